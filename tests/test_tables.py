"""Reports as text: rich tables rendered the same on a terminal, in a pipe and here."""

from __future__ import annotations

import pytest

from veriscale.stages.power.run import PowerReport, SuitePower, format_power
from veriscale.tables import WIDTH, add_row, new_table, render


def _table() -> str:
    table = new_table("task", "value", "n", right=["n"])
    add_row(table, "a", "[true, false]", 3)
    add_row(table, "[bold]b", "#[1, 2]", 12)
    return render("heading", table, "", ("a line longer than the table is never wrapped " * 6).strip())


def test_cells_and_lines_are_literal_and_numbers_right_aligned() -> None:
    lines = _table().splitlines()
    assert lines[0] == "heading"
    assert lines[1].split() == ["task", "value", "n"]
    assert lines[2].split(maxsplit=1) == ["a", "[true, false]   3"]  # a Lean list is not rich markup
    assert lines[3].startswith("[bold]b ") and lines[3].endswith("12") and len(lines[3]) == len(lines[2])
    assert lines[4] == "" and len(lines[5]) > WIDTH
    assert all(line == line.rstrip() for line in lines)


def test_the_rendering_ignores_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _table()
    monkeypatch.setenv("COLUMNS", "20")
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    assert _table() == plain
    assert "\x1b" not in plain


def test_a_wide_cell_folds_within_the_width() -> None:
    table = new_table("task", "detail")
    add_row(table, "t", "x" * 300)
    lines = render(table, width=80).splitlines()
    assert all(len(line) <= 80 for line in lines) and "".join(line[5:].strip() for line in lines[1:]) == "x" * 300


def _suite(path: str, caught: int, killed: int) -> SuitePower:
    return SuitePower(path=path, checks=1234, tests=10, unexpected=5, reject_inputs=2, flawed_specs_caught=caught,
                      flawed_specs_total=10, mutants_killed=killed, mutants_total=20, flawed_precond_caught=0,
                      flawed_precond_total=0, flawed_postcond_caught=0, flawed_postcond_total=0,
                      mutants1_killed=killed, mutants1_total=20, caught_by_family={})


def test_power_table_has_a_row_per_suite_with_the_rates() -> None:
    report = PowerReport(
        suites=[_suite("data/verina", 5, 10), _suite("runs/verinaplus", 9, 19)], tasks=["t"], left_out={},
        seed=1, max_flawed=12, max_mutants=20, mutant_orders=[1], pool_seed=2, pool_size=120, pool_inputs=100,
        tasks_pool_out_of_time=[], items_generated={}, items_equivalent={}, items_undetermined={}, items_unsafe=0,
        family_totals={}, mutants_identical_to_expand=0, mutants_sharing_an_edit_with_expand=0,
        tasks_out_of_time=[], task_errors={}, seconds=1.0, per_task=[],
    )
    lines = format_power(report).splitlines()
    assert lines[0].split() == ["suite", "checks", "flawed", "specs", "caught", "1st-order", "mutants", "killed",
                                "2nd-order", "mutants", "killed"]
    verina, plus = lines[1].split(), lines[2].split()
    assert verina[:4] == ["verina", "1,234", "5/10", "50.0%"] and verina[-2:] == ["0/0", "-"]
    assert plus[:4] == ["verinaplus", "1,234", "9/10", "90.0%"] and plus[5:7] == ["19/20", "95.0%"]
    assert len(lines[1]) == len(lines[2])  # the columns line up
