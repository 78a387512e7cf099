"""Suite power: flawed specifications and mutants, who catches them, and the CLI.

Every task here is written for these tests (a two-argument maximum); no reference data is used.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import verina_task
from typer.testing import CliRunner

from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.cli import app
from veriscale.generate.adversaries import all_mutations, llm_free_adversaries
from veriscale.generate.adversaries.subtle import subtle_mutations
from veriscale.stages.power import (
    PowerItem,
    PowerReport,
    conjunct_drops,
    evaluate_task,
    flawed_specs,
    measure_power,
    power_items,
    power_mutants,
)
from veriscale.stages.power import items as items_module
from veriscale.stages.power.items import expand_edits, expand_overlap
from veriscale.stages.power.operators import power_mutations
from veriscale.stages.power.stats import wilson_interval
from veriscale.task import RejectInput, Task, TestCase, write_task

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
    return verina_task(
        "own_mx", "mx", [("a", "Int"), ("b", "Int")], "Int",
        description="The larger of two integers.",
        tests=[TestCase(input=i, expected=e, unexpected=u) for i, e, u in tests],
        rejects=[RejectInput(input=r) for r in rejects],
        precond=PRECOND, code=code, postcond=POSTCOND,
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
    assert sum(i.kind == "code" and i.order == 1 for i in first) == 4
    assert sum(i.kind == "code" and i.order == 2 for i in first) == 4
    choices = {tuple(i.id for i in power_mutants(task, seed=s, max_mutants=4)) for s in range(6)}
    assert len(choices) > 1


def test_second_order_mutants_make_two_edits_and_differ_from_the_reference() -> None:
    task = max_task()
    mutants = power_mutants(task, seed=1, max_mutants=10)
    assert mutants
    for mutant in mutants:
        assert len(mutant.components) == 2 and mutant.order == 2
        assert " ".join(mutant.sections["code"].split()) != CODE


def test_power_mutants_share_no_edit_with_expands_adversaries() -> None:
    task = max_task(code="if a + 1 ≤ b * 2 then b - 0 else a + 3")
    adversaries = {tuple(sorted(a.sections.items())) for a in llm_free_adversaries(task, max_mutants=1000)}
    expand_edits = {(m.section, m.edits) for m in all_mutations(task)}
    own = power_mutations(task)
    assert own
    assert not any((m.section, m.edits) in expand_edits for m in own)
    assert {m.family for m in own} >= {"relation-negated", "arith-swapped", "constant-far", "condition-fixed",
                                       "parameter-swapped"}
    for order in (1, 2):
        mutants = power_mutants(task, seed=3, max_mutants=1000, order=order)
        assert mutants and all(m.order == order for m in mutants)
        assert not any(tuple(sorted(m.sections.items())) in adversaries for m in mutants)
        assert expand_overlap(task, mutants) == (0, 0)


def test_expand_overlap_counts_expands_subtle_mutants(monkeypatch: pytest.MonkeyPatch) -> None:
    """A power mutant made of one of expand's subtle edits is counted as identical and sharing."""
    task = max_task()
    subtle = [m for m in subtle_mutations(task) if m.family == "guard-result"]
    assert subtle
    borrowed = subtle[0]
    assert all((borrowed.section, e) in expand_edits(task) for e in borrowed.edits)
    own = power_mutants(task, seed=3, max_mutants=1000, order=1)
    monkeypatch.setattr(items_module, "power_mutations", lambda t: [*power_mutations(t), borrowed])
    mutant = PowerItem(borrowed.id, "code", borrowed.family, borrowed.description,
                       {borrowed.section: borrowed.apply(task.section(borrowed.section))}, (borrowed.id,), 1)
    assert expand_overlap(task, [mutant]) == (1, 1)
    assert expand_overlap(task, [*own, mutant]) == (1, 1)


def test_parameter_swap_replaces_one_use() -> None:
    task = max_task()
    swaps = [m for m in power_mutations(task) if m.family == "parameter-swapped"]
    bodies = {" ".join(m.apply(task.section("code")).split()) for m in swaps}
    assert "if b ≤ b then b else a" in bodies and "if a ≤ b then b else b" in bodies


def test_wilson_interval() -> None:
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)  # the textbook value
    low, high = wilson_interval(36, 36)
    assert 0.9 < low < 1 and high == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


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


def test_the_pool_not_the_suites_decides_what_counts(backend: EmbeddedBackend) -> None:
    # WEAK is a real flaw that this suite misses: it still counts (the suite scores 0/1, not
    # 0/0); a rewording of the ground truth is equivalent on the pool however the suites look.
    suite = max_task([({"a": 1, "b": 2}, 2, [0])])
    reworded = item("postcond", "result ≥ b ∧ result ≥ a ∧ (result = b ∨ result = a)", "reworded")
    weak, same = evaluate_task([suite, suite], [WEAK, reworded], backend).items
    assert weak.status == "counted" and weak.pool_witness is not None
    assert weak.caught_by == []
    assert same.status == "equivalent"


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
    # step only the first batch (the ground truth's answers on the pool) runs, and every item is
    # undetermined, on any machine; with enough steps every item is decided.
    suite = max_task([({"a": 1, "b": 2}, 2, []), ({"a": 5, "b": 0}, 5, [])])
    items = [item("code", "if a ≤ b then a else b", "minimum"), item("code", "a + b", "sum")]
    unlimited = evaluate_task([suite, suite], items, backend)
    assert [r.status for r in unlimited.items] == ["counted", "counted"]
    assert unlimited.steps is not None and unlimited.steps > 0 and not unlimited.out_of_time
    runs = [evaluate_task([suite, suite], items, backend, steps=1) for _ in range(2)]
    for run in runs:
        assert run.pool_out_of_time
        assert [r.status for r in run.items] == ["undetermined", "undetermined"]
        assert run.steps is not None and 0 < run.steps < unlimited.steps
    assert runs[0].model_dump(exclude={"seconds"}) == runs[1].model_dump(exclude={"seconds"})
    # A suite's own budget: the items still count (the pool decided them); the suites that ran
    # out are named, and catch nothing they did not reach.
    starved = evaluate_task([suite, suite], items, backend, steps=1, pool_steps=10**9)
    assert starved.out_of_time and not starved.pool_out_of_time
    assert [r.status for r in starved.items] == ["counted", "counted"]
    assert all(r.undetermined_for == [0, 1] and r.caught_by == [] for r in starved.items)


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


def test_a_suite_alone_and_in_company_gets_the_same_rates(tmp_path: Path) -> None:
    # The denominator comes from the judging pool, and each suite runs in its own engine unit
    # with its own budget: adding suites changes nothing for the first one.
    small = write_suite(tmp_path / "small", max_task([({"a": 1, "b": 2}, 2, [0])], [{"a": -1, "b": 0}]))
    big = write_suite(
        tmp_path / "big",
        max_task([({"a": 1, "b": 2}, 2, [0, 5]), ({"a": 7, "b": 3}, 7, [9, 3]), ({"a": 0, "b": 0}, 0, [1])],
                 [{"a": -1, "b": 0}, {"a": -3, "b": 4}]),
    )
    settings = {"jobs": 1, "progress": False, "max_flawed": 6, "max_mutants": 6, "seed": 11}
    alone = measure_power([small], **settings)
    both = measure_power([small, big], **settings)
    fields = ("flawed_specs_caught", "flawed_specs_total", "mutants1_killed", "mutants1_total",
              "mutants2_killed", "mutants2_total", "intervals")
    assert alone.suites[0].model_dump(include=set(fields)) == both.suites[0].model_dump(include=set(fields))
    assert alone.suites[0].flawed_specs_total > 0 and alone.suites[0].mutants1_total > 0
    # and the small suite is not flattered: it misses what the big one catches
    assert alone.suites[0].flawed_specs_caught < both.suites[1].flawed_specs_caught


@pytest.mark.parametrize("orders", [[1], [2]])
def test_mutant_orders_are_reported_separately(tmp_path: Path, orders: list[int]) -> None:
    suite = write_suite(tmp_path / "s", max_task([({"a": 1, "b": 2}, 2, [0]), ({"a": 5, "b": 0}, 5, [])]))
    report = measure_power([suite], jobs=1, progress=False, max_flawed=0, max_mutants=4, mutant_orders=orders)
    row = report.suites[0]
    if orders == [1]:
        assert row.mutants1_total > 0 and row.mutants2_total == 0
    else:
        assert row.mutants2_total > 0 and row.mutants1_total == 0
    assert row.mutants_total == row.mutants1_total + row.mutants2_total


def test_the_shipped_example_scores_the_same_alone_and_beside_its_plus_and_lite(tmp_path: Path) -> None:
    # The case: examples/mini measured alone used to report 36/36 flawed specs caught
    # (every flaw it missed dropped out as "equivalent") and 36/40 beside Plus and Lite.
    from veriscale.stages.expand.pipeline import expand_benchmark
    from veriscale.stages.reduce import reduce_suite

    mini = Path(__file__).resolve().parents[3] / "examples" / "mini"
    plus, lite = tmp_path / "plus", tmp_path / "lite"
    expand_benchmark(mini, plus, jobs=1, progress=False)
    reduce_suite(plus, "lite", lite)
    settings = {"jobs": 1, "progress": False}
    alone = measure_power([mini], **settings).suites[0]
    company = measure_power([mini, plus, lite], **settings).suites
    keys = {"flawed_specs_caught", "flawed_specs_total", "mutants_killed", "mutants_total", "intervals"}
    assert alone.model_dump(include=keys) == company[0].model_dump(include=keys)
    assert alone.flawed_specs_caught < alone.flawed_specs_total  # not flattered to 100 %
    assert company[1].flawed_specs_caught >= alone.flawed_specs_caught


# ---------------------------------------------------------------------------------------------
# Stored phases


def _rates(report: PowerReport) -> list[dict[str, Any]]:
    return [row.model_dump(exclude={"path"}) for row in report.suites]


def _items(report: PowerReport) -> list[list[dict[str, Any]]]:
    return [[i.model_dump() for i in task.items] for task in report.per_task]


class _CountingBackend(EmbeddedBackend):
    def __init__(self) -> None:
        super().__init__(max_steps=200_000, timeout=2.0)
        self.batches = 0

    def run(self, task: Any, checks: Any) -> Any:
        self.batches += 1
        return super().run(task, checks)


def test_stored_phases_give_the_same_table_and_a_rerun_runs_nothing(tmp_path: Path) -> None:
    small = write_suite(tmp_path / "small", max_task([({"a": 1, "b": 2}, 2, [0])], [{"a": -1, "b": 0}]))
    big = write_suite(
        tmp_path / "big",
        max_task([({"a": 1, "b": 2}, 2, [0, 5]), ({"a": 7, "b": 3}, 7, [9, 3]), ({"a": 0, "b": 0}, 0, [1])],
                 [{"a": -1, "b": 0}, {"a": -3, "b": 4}]),
    )
    settings: dict[str, Any] = {"jobs": 1, "progress": False, "max_flawed": 6, "max_mutants": 6, "seed": 11}
    plain = measure_power([small, big], **settings)
    cache = tmp_path / "cache"
    first = measure_power([small, big], cache=cache, **settings)
    stored = sorted(p.name.split("-")[0] for p in (cache / "own_mx").iterdir())
    assert stored == ["pool", "suite", "suite"]
    again = measure_power([small, big], cache=cache, **settings)
    assert _rates(plain) == _rates(first) == _rates(again)
    assert _items(plain) == _items(first) == _items(again)
    # the big suite alone reuses its phase stored in company, and gets the same row
    alone = measure_power([small], cache=cache, **settings)
    assert _rates(alone)[0] == _rates(plain)[0]
    assert sorted(p.name.split("-")[0] for p in (cache / "own_mx").iterdir()) == stored


def test_a_stored_phase_is_read_instead_of_run_and_a_changed_suite_is_run_again(tmp_path: Path) -> None:
    from veriscale.stages.power.cache import PhaseCache

    tests = [({"a": 1, "b": 2}, 2, [0]), ({"a": 7, "b": 3}, 7, [9])]
    truth = max_task(tests[:1])
    suite = max_task(tests)
    items = power_items(truth, seed=11, max_flawed=4, max_mutants=4)
    store = PhaseCache(tmp_path / "cache")
    backend = _CountingBackend()
    first = evaluate_task([truth, suite], items, backend, cache=store)
    ran = backend.batches
    assert ran > 0
    second = evaluate_task([truth, suite], items, backend, cache=store)
    assert backend.batches == ran  # every phase read back
    assert [i.model_dump() for i in first.items] == [i.model_dump() for i in second.items]
    changed = max_task([*tests, ({"a": 0, "b": 4}, 4, [3])])
    evaluate_task([truth, changed], items, backend, cache=store)
    assert backend.batches > ran  # the changed suite's phase ran


def test_a_phase_cut_by_the_clock_is_not_stored(tmp_path: Path) -> None:
    from veriscale.stages.power.cache import PhaseCache

    truth = max_task([({"a": 1, "b": 2}, 2, [0])])
    items = power_items(truth, seed=11, max_flawed=4, max_mutants=4)
    store = PhaseCache(tmp_path / "cache")
    power = evaluate_task([truth], items, _CountingBackend(), seconds=-1.0, cache=store)
    assert power.pool_out_of_time
    stored = list((tmp_path / "cache").rglob("*.json"))
    assert not any(p.name.startswith("pool-") for p in stored)


def test_cli_cache_option_resumes_with_the_same_table(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s", max_task([({"a": 1, "b": 2}, 2, [0]), ({"a": 5, "b": 0}, 5, [4])]))
    cache = tmp_path / "cache"
    outputs = []
    for n in range(2):
        out = tmp_path / f"power{n}.json"
        run = CliRunner().invoke(app, ["power", str(suite), "--cache", str(cache), "--json", str(out), "--jobs", "1",
                                       "--quiet", "--max-flawed", "3", "--max-mutants", "3"])
        assert run.exit_code == 0, run.output
        outputs.append(json.loads(out.read_text(encoding="utf-8"))["suites"])
    assert outputs[0] == outputs[1]
    assert any(cache.rglob("pool-*.json")) and any(cache.rglob("suite-*.json"))
