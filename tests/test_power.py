"""Suite power: flawed specifications and mutants, who catches them, and the CLI.

Every task here is written for these tests (a two-argument maximum); no reference data is used.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.cli import app
from veriscale.power import (
    PowerItem,
    conjunct_drops,
    evaluate_task,
    flawed_specs,
    measure_power,
    power_items,
    power_mutants,
)
from veriscale.task import LeanFile, Parameter, RejectInput, Signature, Task, TestCase, write_task

PRECOND = "a ≥ 0"
CODE = "if a ≤ b then b else a"
POSTCOND = "(result = a ∨ result = b) ∧ result ≥ a ∧ result ≥ b"


def max_task(
    tests: Sequence[tuple[dict[str, Any], Any, list[Any]]] = (),
    rejects: Sequence[dict[str, Any]] = (),
    *,
    code: str = CODE,
) -> Task:
    """``mx a b``: the larger of two integers, for ``a ≥ 0``."""
    text = f"""-- !benchmark @start import type=solution

-- !benchmark @end import

-- !benchmark @start solution_aux

-- !benchmark @end solution_aux

-- !benchmark @start precond_aux

-- !benchmark @end precond_aux

@[reducible, simp]
def mx_precond (a : Int) (b : Int) : Prop :=
  -- !benchmark @start precond
  {PRECOND}
  -- !benchmark @end precond


-- !benchmark @start code_aux

-- !benchmark @end code_aux


def mx (a : Int) (b : Int) (h_precond : mx_precond (a) (b)) : Int :=
  -- !benchmark @start code
  {code}
  -- !benchmark @end code


-- !benchmark @start postcond_aux

-- !benchmark @end postcond_aux


@[reducible, simp]
def mx_postcond (a : Int) (b : Int) (result : Int) (h_precond : mx_precond (a) (b)) : Prop :=
  -- !benchmark @start postcond
  {POSTCOND}
  -- !benchmark @end postcond


-- !benchmark @start proof_aux

-- !benchmark @end proof_aux
"""
    return Task(
        id="own_mx",
        signature=Signature(
            name="mx", parameters=[Parameter(name="a", type="Int"), Parameter(name="b", type="Int")], return_type="Int"
        ),
        description="The larger of two integers.",
        tests=[TestCase(input=i, expected=e, unexpected=u) for i, e, u in tests],
        reject_inputs=[RejectInput(input=r) for r in rejects],
        lean=LeanFile.parse(text),
    )


@pytest.fixture(scope="module")
def backend() -> EmbeddedBackend:
    return EmbeddedBackend(max_steps=200_000, timeout=2.0)


def item(kind: str, section_body: str, item_id: str) -> PowerItem:
    return PowerItem(id=item_id, kind=kind, family="test", description=item_id,  # type: ignore[arg-type]
                     sections={kind: f"  {section_body}\n"})


# ---------------------------------------------------------------------------------------------
# Generation


def test_conjunct_drops_remove_each_conjunct_once() -> None:
    text = "  (result = a ∨ result = b) ∧ result ≥ a ∧ result ≥ b\n"
    bodies = [" ".join(m.apply(text).split()) for m in conjunct_drops("postcond", text)]
    assert bodies[:3] == [
        "result ≥ a ∧ result ≥ b",
        "(result = a ∨ result = b) ∧ result ≥ b",
        "(result = a ∨ result = b) ∧ result ≥ a",
    ]
    # and inside the parenthesised disjunction there is no conjunction to drop from
    assert len(bodies) == 3


def test_conjunct_drops_look_inside_binders_and_implications() -> None:
    text = "∀ i, i < n → (f i ≥ 0 ∧ f i ≤ 9)"
    bodies = {" ".join(m.apply(text).split()) for m in conjunct_drops("postcond", text)}
    assert bodies == {"∀ i, i < n → (f i ≤ 9)", "∀ i, i < n → (f i ≥ 0)"}
    # a conjunction under a binder is not split at the top level (the binder scopes over both)
    assert conjunct_drops("postcond", "∃ x, x = 1 ∧ x > 0") != []
    assert all("∃ x," in m.apply("∃ x, x = 1 ∧ x > 0") for m in conjunct_drops("postcond", "∃ x, x = 1 ∧ x > 0"))


def test_items_are_deterministic_and_depend_on_the_seed() -> None:
    task = max_task(code="if a + 1 ≤ b * 2 then b - 0 else a + 3")
    first = power_items(task, seed=5, max_flawed=3, max_mutants=4)
    again = power_items(task, seed=5, max_flawed=3, max_mutants=4)
    assert [(i.id, i.sections) for i in first] == [(i.id, i.sections) for i in again]
    assert sum(i.kind == "code" for i in first) == 4
    choices = {tuple(i.id for i in power_mutants(task, seed=s, max_mutants=4)) for s in range(6)}
    assert len(choices) > 1


def test_second_order_mutants_make_two_edits_and_differ_from_the_reference() -> None:
    task = max_task()
    mutants = power_mutants(task, seed=1, max_mutants=10)
    assert mutants
    for mutant in mutants:
        assert len(mutant.components) == 2
        assert " ".join(mutant.sections["code"].split()) != CODE


def test_flawed_specs_include_a_weakened_postcondition() -> None:
    flaws = flawed_specs(max_task(), seed=3, max_per_section=50)
    bodies = {" ".join(f.sections["postcond"].split()) for f in flaws if f.kind == "postcond"}
    assert "result ≥ a ∧ result ≥ b" in bodies
    assert all(f.kind in ("precond", "postcond") for f in flaws)


# ---------------------------------------------------------------------------------------------
# Catching


WEAK = item("postcond", "result ≥ a ∧ result ≥ b", "weak")


def test_weakened_postcondition_is_caught_only_with_the_right_unexpected_output(backend: EmbeddedBackend) -> None:
    truth = max_task([({"a": 1, "b": 2}, 2, [0])])
    with_witness = max_task([({"a": 1, "b": 2}, 2, [5])])  # 5 ≥ 1 and 5 ≥ 2, but neither a nor b
    without = max_task([({"a": 1, "b": 2}, 2, [0]), ({"a": 3, "b": 1}, 3, [1])])
    power = evaluate_task([truth, with_witness, without], [WEAK], backend)
    (result,) = power.items
    assert result.status == "counted"
    assert result.caught_by == [1]
    assert power.checks == [2, 2, 4]


def test_flaw_that_no_suite_tells_apart_is_equivalent(backend: EmbeddedBackend) -> None:
    suite = max_task([({"a": 1, "b": 2}, 2, [0])])
    (result,) = evaluate_task([suite, suite], [WEAK], backend).items
    assert result.status == "equivalent"
    assert result.caught_by == []


def test_defective_reject_input_catches_nothing(backend: EmbeddedBackend) -> None:
    stricter = item("precond", "a ≥ 1", "stricter")
    looser = item("precond", "a ≥ -5", "looser")
    truth = max_task([({"a": 0, "b": 5}, 5, [])], [{"a": -1, "b": 0}])
    # a "reject" input the ground truth accepts: every precondition "fails" it, right or wrong
    defective = max_task([({"a": 4, "b": 5}, 5, [])], [{"a": 3, "b": 1}])
    power = evaluate_task([truth, defective], [stricter, looser], backend)
    by_id = {r.id: r for r in power.items}
    assert by_id["stricter"].caught_by == [0]  # rejects the test input a = 0
    assert by_id["looser"].caught_by == [0]  # accepts the reject input a = -1
    assert by_id["looser"].status == "counted"


def test_equivalent_mutant_is_excluded_and_a_wrong_one_is_killed(backend: EmbeddedBackend) -> None:
    suite = max_task([({"a": 1, "b": 2}, 2, []), ({"a": 2, "b": 2}, 2, []), ({"a": 5, "b": 0}, 5, [])])
    equivalent = item("code", "if a < b then b else a", "equivalent")  # a = b: both branches agree
    minimum = item("code", "if a ≤ b then a else b", "minimum")
    power = evaluate_task([suite, suite], [equivalent, minimum], backend)
    by_id = {r.id: r for r in power.items}
    assert by_id["equivalent"].status == "equivalent"
    assert by_id["minimum"].status == "counted"
    assert by_id["minimum"].caught_by == [0, 1]


def test_defective_expected_value_kills_nothing(backend: EmbeddedBackend) -> None:
    truth = max_task([({"a": 1, "b": 2}, 2, [])])
    defective = max_task([({"a": 1, "b": 2}, 7, [])])  # an expected value the reference does not give
    off_by_one = item("code", "(if a ≤ b then b else a) + 1", "plus1")
    (result,) = evaluate_task([truth, defective], [off_by_one], backend).items
    assert result.caught_by == [0]


def test_a_task_past_its_step_budget_leaves_the_rest_undetermined_the_same_way_every_time(
    backend: EmbeddedBackend,
) -> None:
    # The budget is counted in engine steps and looked at between batches: with a budget of one
    # step only the first batch (the ground truth's answers) runs, and every item is undetermined,
    # on any machine; with enough steps every item is decided.
    suite = max_task([({"a": 1, "b": 2}, 2, []), ({"a": 5, "b": 0}, 5, [])])
    items = [item("code", "if a ≤ b then a else b", "minimum"), item("code", "a + b", "sum")]
    unlimited = evaluate_task([suite, suite], items, backend)
    assert [r.status for r in unlimited.items] == ["counted", "counted"]
    assert unlimited.steps is not None and unlimited.steps > 0 and not unlimited.out_of_time
    runs = [evaluate_task([suite, suite], items, backend, steps=1) for _ in range(2)]
    for run in runs:
        assert run.out_of_time
        assert [r.status for r in run.items] == ["undetermined", "undetermined"]
        assert run.steps is not None and 0 < run.steps < unlimited.steps
    assert runs[0].model_dump(exclude={"seconds"}) == runs[1].model_dump(exclude={"seconds"})


# ---------------------------------------------------------------------------------------------
# Whole suites and the CLI


def write_suite(root: Path, task: Task) -> Path:
    write_task(task, root / task.id)
    return root


def test_measure_power_and_cli_json(tmp_path: Path) -> None:
    tests = [({"a": 1, "b": 2}, 2, [0]), ({"a": 0, "b": 0}, 0, [1])]
    small = write_suite(tmp_path / "small", max_task(tests[:1], [{"a": -1, "b": 0}]))
    big = write_suite(
        tmp_path / "big",
        max_task([*tests, ({"a": 7, "b": 3}, 7, [9, 3]), ({"a": 2, "b": 9}, 9, [8, 10])], [{"a": -1, "b": 0}]),
    )
    report = measure_power([small, big], jobs=1, progress=False, max_flawed=6, max_mutants=8, seed=11)
    small_row, big_row = report.suites
    assert small_row.flawed_specs_total == big_row.flawed_specs_total > 0
    assert small_row.mutants_total == big_row.mutants_total > 0
    assert big_row.flawed_specs_caught >= small_row.flawed_specs_caught
    assert big_row.mutants_killed >= small_row.mutants_killed
    assert big_row.mutants_killed + big_row.flawed_specs_caught > small_row.mutants_killed + small_row.flawed_specs_caught
    assert (small_row.checks, big_row.checks) == (3, 11)

    out = tmp_path / "power.json"
    run = CliRunner().invoke(
        app, ["power", str(small), str(big), "--json", str(out), "--jobs", "1", "--quiet",
              "--max-flawed", "6", "--max-mutants", "8", "--seed", "11"]
    )
    assert run.exit_code == 0, run.output
    assert "flawed specs caught" in run.output
    data = json.loads(out.read_text(encoding="utf-8"))
    fields = {"path", "checks", "flawed_specs_caught", "flawed_specs_total", "mutants_killed", "mutants_total"}
    assert all(fields <= set(row) for row in data["suites"])
    assert [row["flawed_specs_caught"] for row in data["suites"]] == [small_row.flawed_specs_caught,
                                                                     big_row.flawed_specs_caught]


def test_tasks_missing_from_a_suite_are_left_out(tmp_path: Path) -> None:
    one = write_suite(tmp_path / "one", max_task([({"a": 1, "b": 2}, 2, [0])]))
    other = tmp_path / "other"
    other.mkdir()
    report = measure_power([one, other], jobs=1, progress=False, max_flawed=2, max_mutants=2)
    assert report.tasks == []
    assert report.left_out == {"own_mx": [str(other)]}
