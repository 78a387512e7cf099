"""``veriscale expand`` on the example benchmark: end to end, invariants, determinism, resumption, LLM."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import Behaviour, FakeOpenAIServer, HttpError, Reply

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.benchmark import load_benchmark
from veriscale.games.refute.build import recover_adversaries
from veriscale.generate.adversaries import Adversary, llm_free_adversaries
from veriscale.generate.llm_adversaries import (
    GeneratedSpec,
    LazyImplementation,
    ProblemModel,
    build_lazy_impl_prompt,
    build_problem_model_prompt,
    build_spec_prompt,
    parse_strict_json,
)
from veriscale.lean.printing import same_as_printed
from veriscale.llm import LLMCallError, LLMConfig, RetryPolicy
from veriscale.stages.audit import args_from_key
from veriscale.stages.expand import (
    KILL_MATRIX_FILE,
    STAGE,
    SUMMARY_FILE,
    ExpandOptions,
    ExpandSummary,
    TaskExpansion,
    TaskSummary,
    expand_benchmark,
    expand_task,
    format_summary,
)
from veriscale.stages.expand.audit import audit_suite, recheck_unexpected
from veriscale.stages.expand.budget import CHECK_CHARGE_STEPS, BatchCost, ChunkSizer, TaskBudget
from veriscale.stages.expand.kills import WrongOutput, select_unexpected
from veriscale.stages.expand.writer import write_expanded_task
from veriscale.store import RunMismatchError, RunStore
from veriscale.task import Task, load_task
from veriscale.typed_task import typed_view

PROJECT_ROOT = Path(__file__).resolve().parents[3]
MINI = PROJECT_ROOT / "examples" / "mini"
MINI_IDS = sorted(p.name for p in MINI.iterdir() if (p / "task.json").is_file())

# Small settings for the tests that do not need the published defaults (fast).
SMALL = ExpandOptions(synthesis_limit=40, mutants_per_seed=4, max_mutant_adversaries=12)


@pytest.fixture(scope="module")
def backend() -> EmbeddedBackend:
    return EmbeddedBackend()


@pytest.fixture(scope="module")
def mini_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[ExpandSummary, Path]:
    """One LLM-free run with the published defaults, shared by the read-only tests."""
    out = tmp_path_factory.mktemp("mini-expanded")
    summary = expand_benchmark(MINI, out, jobs=1, progress=False)
    return summary, out


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.name.startswith("run.sqlite") and path.name != SUMMARY_FILE
    }


def _summaries_without_times(root: Path) -> dict[str, Any]:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("seconds", "cpu_seconds", "output")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return {str(p.relative_to(root)): strip(json.loads(p.read_text())) for p in sorted(root.rglob(SUMMARY_FILE))}


# ---------------------------------------------------------------------------------------------
# End to end, LLM-free


def test_the_run_expands_every_task_and_reports_it(mini_run: tuple[ExpandSummary, Path]) -> None:
    summary, out = mini_run
    assert summary.tasks_total == len(MINI_IDS) == summary.tasks_expanded
    assert summary.tasks_failed == 0 and summary.deadline_hits == 0
    assert json.loads((out / SUMMARY_FILE).read_text())["checks_after"] == summary.checks_after
    audit = audit_suite(out)
    assert audit.tasks == len(MINI_IDS)
    assert audit.checks == summary.checks_after
    assert summary.checks_after >= 20 * summary.checks_before
    assert summary.candidates["synthesis"].accept > 0 and summary.candidates["mutation"].accept > 0
    assert summary.candidates["synthesis"].reject + summary.candidates["mutation"].reject > 0
    for source in ("template", "mutant"):
        assert summary.adversaries[source].kept > 0 and summary.adversaries[source].killed > 0
    assert summary.unexpected.from_adversaries > 0 and summary.unexpected.from_output_mutation > 0
    assert summary.reference_disagreements == 0
    for task in summary.tasks:
        assert (out / task.task / KILL_MATRIX_FILE).is_file()
        assert json.loads((out / task.task / SUMMARY_FILE).read_text())["task"] == task.task


def test_no_duplicate_inputs_and_no_unreadable_values(mini_run: tuple[ExpandSummary, Path]) -> None:
    audit = audit_suite(mini_run[1])
    assert audit.duplicate_inputs == 0
    assert audit.value_problems == {}
    assert audit.kill_matrix_errors == []


def test_original_rows_come_first_unchanged(mini_run: tuple[ExpandSummary, Path]) -> None:
    out = mini_run[1]
    for task_id in MINI_IDS:
        source, expanded = load_task(MINI / task_id), load_task(out / task_id)
        assert expanded.lean_text() == source.lean_text()
        assert expanded.description == source.description
        for before, after in zip(source.tests, expanded.tests):
            assert after.input == before.input and after.expected == before.expected
            assert after.unexpected[: len(before.unexpected)] == before.unexpected
        assert len(expanded.tests) > len(source.tests)
        assert expanded.reject_inputs[: len(source.reject_inputs)] == source.reject_inputs


def test_every_new_unexpected_output_is_rejected_by_the_ground_truth(
    mini_run: tuple[ExpandSummary, Path], backend: EmbeddedBackend
) -> None:
    out = mini_run[1]
    checked = 0
    for task_id in MINI_IDS:
        source = load_task(MINI / task_id)
        skip = {i: len(t.unexpected) for i, t in enumerate(source.tests)}
        recheck = recheck_unexpected(load_task(out / task_id), backend, skip_first=skip)
        assert recheck.accepted == [] and recheck.unknown == []
        assert recheck.rejected == recheck.checked
        checked += recheck.checked
    assert checked == mini_run[0].unexpected.from_adversaries + mini_run[0].unexpected.from_output_mutation


def test_new_tests_and_rejects_agree_with_the_ground_truth(
    mini_run: tuple[ExpandSummary, Path], backend: EmbeddedBackend
) -> None:
    out = mini_run[1]
    for task_id in MINI_IDS:
        source = load_task(MINI / task_id)
        view = typed_view(load_task(out / task_id))
        new_tests = view.tests[len(source.tests):]
        new_rejects = view.rejects[len(source.reject_inputs):]
        checks = [Check(kind=CheckKind.PRECOND, args=t.args) for t in new_tests]
        checks += [Check(kind=CheckKind.CODE, args=t.args) for t in new_tests]
        checks += [Check(kind=CheckKind.PRECOND, args=r.args) for r in new_rejects]
        answers = backend.run(view.task, checks)
        n = len(new_tests)
        assert all(a.status == "true" for a in answers[:n])
        assert all(same_as_printed(a.value, t.expected) for a, t in zip(answers[n : 2 * n], new_tests))
        assert all(a.status == "false" for a in answers[2 * n :])


def test_the_kill_matrix_is_complete_and_right(mini_run: tuple[ExpandSummary, Path], backend: EmbeddedBackend) -> None:
    """Recompute the whole matrix of one task: killed iff the output differs and the truth says no."""
    out = mini_run[1]
    task = load_task(out / "mini_clamp")
    view = typed_view(task)
    matrix = json.loads((out / "mini_clamp" / KILL_MATRIX_FILE).read_text())
    kept = {a["id"] for a in matrix["adversaries"]}
    assert [row["test"] for row in matrix["tests"]] == list(range(len(task.tests)))
    kills = 0
    source = load_task(MINI / "mini_clamp")
    first_order = llm_free_adversaries(source)
    # The subtle adversaries (chosen by running them on the original tests) are recovered by id.
    subtle = recover_adversaries(source, sorted(kept - {a.id for a in first_order}))
    assert set(subtle) == kept - {a.id for a in first_order} and subtle
    for adversary in [*first_order, *subtle.values()]:
        outputs = backend.run(task.with_sections(**adversary.sections),
                              [Check(kind=CheckKind.CODE, args=t.args) for t in view.tests])
        differing = [(t, o.value) for t, o in zip(view.tests, outputs)
                     if o.status == "value" and not same_as_printed(o.value, t.expected)]
        if adversary.id not in kept:
            assert differing == [], f"{adversary.id} differs from the reference but was discarded"
            continue
        verdicts = backend.run(task, [Check(kind=CheckKind.POSTCOND, args=t.args, output=v) for t, v in differing])
        killed_here = {t.index for (t, _), a in zip(differing, verdicts) if a.status == "false"}
        listed = {row["test"] for row in matrix["tests"] if adversary.id in row["killed_by"]}
        assert listed == killed_here, adversary.id
        kills += len(listed)
    assert kills == sum(len(row["killed_by"]) for row in matrix["tests"]) > 0


def test_two_runs_with_the_same_seed_are_byte_identical(mini_run: tuple[ExpandSummary, Path], tmp_path: Path) -> None:
    first = mini_run[1]
    second = tmp_path / "again"
    expand_benchmark(MINI, second, jobs=2, progress=False)  # other process layout, same result
    assert _files(first) == _files(second)
    assert _summaries_without_times(first) == _summaries_without_times(second)


def test_another_seed_gives_another_suite(tmp_path: Path) -> None:
    a = expand_benchmark(MINI, tmp_path / "a", seed=1, jobs=1, progress=False, options=SMALL, task_ids=["mini_clamp"])
    b = expand_benchmark(MINI, tmp_path / "b", seed=2, jobs=1, progress=False, options=SMALL, task_ids=["mini_clamp"])
    assert a.tasks_expanded == b.tasks_expanded == 1
    assert _files(tmp_path / "a") != _files(tmp_path / "b")


# ---------------------------------------------------------------------------------------------
# Resumption


def test_a_rerun_skips_finished_tasks_and_recomputes_a_cleared_one(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = expand_benchmark(MINI, out, jobs=1, progress=False, options=SMALL)
    assert first.tasks_expanded == len(MINI_IDS)
    before = _files(out)
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("test.json")}

    again = expand_benchmark(MINI, out, jobs=1, progress=False, options=SMALL)
    assert again.tasks_resumed == len(MINI_IDS) and again.tasks_expanded == 0
    assert again.checks_after == first.checks_after
    assert {p: p.stat().st_mtime_ns for p in out.rglob("test.json")} == stamps

    with RunStore.open(out) as store:
        assert store.clear("mini_count_evens", STAGE) == 1
        assert store.kill_matrix_tasks() == sorted(MINI_IDS)
    shutil.rmtree(out / "mini_count_evens")
    third = expand_benchmark(MINI, out, jobs=1, progress=False, options=SMALL)
    assert third.tasks_resumed == len(MINI_IDS) - 1 and third.tasks_expanded == 1
    assert [t.task for t in third.tasks] == MINI_IDS
    assert _files(out) == before
    changed = {p for p in out.rglob("test.json") if stamps.get(p) != p.stat().st_mtime_ns}
    assert changed == {out / "mini_count_evens" / "test.json"}
    with RunStore.open(out) as store:
        assert store.done_tasks(STAGE) == set(MINI_IDS)
        killed = store.kills("mini_count_evens", killed=True)
        matrix = json.loads((out / "mini_count_evens" / KILL_MATRIX_FILE).read_text())
        assert len(killed) == sum(len(row["killed_by"]) for row in matrix["tests"])


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    expand_benchmark(MINI, out, jobs=1, progress=False, options=SMALL, task_ids=["mini_clamp"])
    with pytest.raises(RunMismatchError):
        expand_benchmark(MINI, out, jobs=1, progress=False, options=SMALL.model_copy(update={"unexpected_cap": 3}),
                         task_ids=["mini_clamp"])
    with pytest.raises(RunMismatchError):
        expand_benchmark(MINI, out, seed=7, jobs=1, progress=False, options=SMALL, task_ids=["mini_clamp"])


# ---------------------------------------------------------------------------------------------
# One task, with stand-in adversaries


def _clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def stand_in_adversaries(task: Task, options: ExpandOptions) -> list[Adversary]:
    """A hand-made list covering every fate an adversary can meet."""
    return [
        Adversary(id="t:same", source="template", description="the reference, rewritten",
                  sections={"code": "  if x < lo then lo else if hi < x then hi else x\n"}),
        Adversary(id="t:lo", source="template", description="always lo", sections={"code": "  lo\n"}),
        Adversary(id="m:no-upper", source="mutant", description="forgets the upper bound",
                  sections={"code": "  if x < lo then lo else x\n"}),
        Adversary(id="m:broken", source="mutant", description="does not parse", sections={"code": "  if then\n"}),
        Adversary(id="m:unsafe", source="mutant", description="cheats", sections={"code": "  sorry\n"}),
        Adversary(id="t:lo-again", source="template", description="same sections as t:lo",
                  sections={"code": "  lo\n"}),
    ]


def test_adversaries_are_screened_run_and_discarded_as_they_deserve(backend: EmbeddedBackend) -> None:
    result = expand_task(_clamp(), backend, SMALL, adversary_provider=stand_in_adversaries)
    counts = result.summary.adversaries
    assert counts["template"].model_dump() == {"generated": 2, "unsafe": 0, "all_unknown": 0, "equivalent": 1,
                                              "skipped_deadline": 0, "kept": 1, "killed": 1}
    assert counts["mutant"].model_dump() == {"generated": 3, "unsafe": 1, "all_unknown": 1, "equivalent": 0,
                                            "skipped_deadline": 0, "kept": 1, "killed": 1}
    assert [a["id"] for a in result.kill_matrix["adversaries"]] == ["t:lo", "m:no-upper"]
    view = typed_view(result.task)
    for row in result.kill_matrix["tests"]:
        test = view.tests[row["test"]]
        assert row["key"] == test.key
        args = test.args
        # The postcondition pins the result down, so a differing output is always a wrong one.
        assert ("t:lo" in row["killed_by"]) == (args["x"] > args["lo"] and args["hi"] > args["lo"])
        assert ("m:no-upper" in row["killed_by"]) == (args["x"] > args["hi"])
    assert result.summary.kills == sum(len(r["killed_by"]) for r in result.kill_matrix["tests"])
    assert {r.adversary for r in result.kill_rows} == {"t:lo", "m:no-upper"}


def test_unexpected_outputs_respect_the_cap(backend: EmbeddedBackend) -> None:
    options = SMALL.model_copy(update={"unexpected_cap": 2, "output_mutants_per_test": 4})
    source = _clamp()
    result = expand_task(source, backend, options)
    originals = len(source.tests)
    for position, test in enumerate(result.task.tests):
        kept = len(source.tests[position].unexpected) if position < originals else 0
        assert len(test.unexpected) - kept <= 2
    assert any(len(t.unexpected) == 2 for t in result.task.tests[originals:])


def test_selection_prefers_common_adversary_outputs_and_keeps_a_place_for_mutants() -> None:
    outputs = {
        "1": WrongOutput(value=1, stored=1, adversaries=[3]),
        "2": WrongOutput(value=2, stored=2, adversaries=[0, 1, 2]),
        "3": WrongOutput(value=3, stored=3, adversaries=[1]),
        "4": WrongOutput(value=4, stored=4, from_mutation=True),
        "5": WrongOutput(value=5, stored=5, adversaries=[0]),
    }
    assert [w.value for w in select_unexpected(outputs, 3)] == [2, 5, 4]
    assert [w.value for w in select_unexpected(outputs, 3, existing=[5])] == [2, 3, 4]
    assert [w.value for w in select_unexpected(outputs, 10)] == [2, 5, 3, 1, 4]
    assert select_unexpected(outputs, 0) == []


def test_an_undecided_precondition_drops_the_candidates(backend: EmbeddedBackend) -> None:
    # An unbounded quantifier: the engine cannot decide it, so no candidate may be classified.
    task = _clamp().with_sections(precond="  ∀ n : Nat, n + 0 = n\n")
    result = expand_task(task, backend, SMALL)
    counts = result.summary.candidates
    assert sum(c.unknown for c in counts.values()) == sum(c.generated - c.duplicate for c in counts.values()) > 0
    assert result.summary.tests_new == result.summary.rejects_new == 0
    assert any(reason.startswith("precond: ") for reason in result.summary.unknown_reasons)


def test_a_reference_output_the_postcondition_rejects_is_a_counterexample_not_a_test(
    backend: EmbeddedBackend,
) -> None:
    # The reference clamps to hi - 1 above the range: it breaks its own postcondition there.
    task = _clamp().with_sections(code="  if x < lo then lo\n  else if hi < x then hi - 1\n  else x\n")
    result = expand_task(task, backend, SMALL)
    found = result.summary.counterexamples
    assert found, "the broken task was not reported"
    counts = result.summary.candidates
    assert sum(c.postcond_false for c in counts.values()) == sum(f.source != "original" for f in found)
    view = typed_view(result.task)
    broken_keys = {f.input for f in found}
    for test in view.tests[len(task.tests):]:
        assert test.key not in broken_keys
        assert not test.args["x"] > test.args["hi"]  # exactly the inputs where the reference is wrong
    # Each counterexample really is one: re-evaluated here from its printed input.
    for f in found:
        args = args_from_key(f.input, view)
        [code] = backend.run(task, [Check(kind=CheckKind.CODE, args=args)])
        [post] = backend.run(task, [Check(kind=CheckKind.POSTCOND, args=args, output=code.value)])
        assert post.status == "false" and args["x"] > args["hi"]


def test_a_postcondition_undecided_on_the_reference_output_writes_no_test(backend: EmbeddedBackend) -> None:
    # Decidable on the precondition and the code, never on the postcondition (unbounded quantifier).
    task = _clamp().with_sections(postcond="  ∀ n : Nat, n + 0 = n\n")
    result = expand_task(task, backend, SMALL)
    counts = result.summary.candidates
    assert result.summary.tests_new == 0
    assert sum(c.postcond_unknown for c in counts.values()) > 0
    assert sum(c.accept for c in counts.values()) == 0
    assert any(reason.startswith("postcond: ") for reason in result.summary.unknown_reasons)
    assert result.summary.original_postcond_unknown == len(task.tests)
    assert result.summary.counterexamples == []


# ---------------------------------------------------------------------------------------------
# Budgets: deterministic in steps, wall clock only for engines without steps and as a backstop


class SteppingBackend(Backend):
    """The embedded engine's answers with a made-up deterministic step count per check (or none,
    like real Lean) and a random delay per batch: a machine under varying load."""

    def __init__(
        self, *, max_delay_s: float = 0.0, seed: int = 0, report_steps: bool = True, stop_postconds: bool = False
    ) -> None:
        self.inner = EmbeddedBackend()
        self.name = self.inner.name
        self.max_delay_s = max_delay_s
        self.rng = random.Random(seed)
        self.report_steps = report_steps
        self.stop_postconds = stop_postconds
        """Answer every postcondition as the embedded engine does when its own backstop fires."""
        self.batches = 0
        self.postconds = 0

    @staticmethod
    def cost(check: Check) -> int:
        return 100 + 10 * len(repr(sorted(check.args.items()))) + (50 if check.output is not None else 0)

    def run(self, task: Task, checks: Sequence[Check]) -> list[Answer]:
        self.batches += 1
        self.postconds += sum(c.kind == CheckKind.POSTCOND for c in checks)
        answers = self.inner.run(task, checks)
        if self.max_delay_s:
            time.sleep(self.rng.uniform(0.0, self.max_delay_s))
        if self.stop_postconds:
            answers = [
                Answer.unknown(UnknownReason.TIMEOUT, "wall-clock backstop of 30s exceeded", self.name)
                if c.kind == CheckKind.POSTCOND else a
                for a, c in zip(answers, checks, strict=True)
            ]
        return [
            a.replace(steps=self.cost(c) if self.report_steps else None)
            for a, c in zip(answers, checks, strict=True)
        ]


def _write(result: TaskExpansion, out: Path) -> dict[str, bytes]:
    write_expanded_task(out, result.task, result.kill_matrix, result.summary)
    return {p.name: p.read_bytes() for p in sorted((out / result.task.id).iterdir()) if p.name != SUMMARY_FILE}


def _timeless(summary: TaskSummary) -> dict[str, Any]:
    return summary.model_dump(mode="json", exclude={"seconds", "cpu_seconds"})


@pytest.mark.parametrize("share", [4, 16])
def test_a_spent_step_budget_gives_the_same_suite_whatever_the_load(share: int, tmp_path: Path) -> None:
    source = _clamp()
    full = expand_task(source, SteppingBackend(), SMALL.model_copy(update={"task_steps": None}))
    assert full.summary.budget_hit is None and full.summary.steps is not None
    # 1/4: some adversaries are run, the others skipped; 1/16: the classification is cut short.
    options = SMALL.model_copy(update={"task_steps": full.summary.steps // share})
    runs = [
        expand_task(source, SteppingBackend(max_delay_s=delay, seed=seed), options)
        for delay, seed in ((0.0, 0), (0.02, 1))
    ]
    for run in runs:
        summary = run.summary
        assert summary.budget_hit == "steps" and summary.deadline_hit
        assert 0 < summary.kills < full.summary.kills if share == 4 else summary.kills == 0
        assert sum(a.skipped_deadline for a in summary.adversaries.values()) > 0
        if share == 16:
            assert 0 < summary.tests_new < full.summary.tests_new
            assert sum(c.dropped_deadline for c in summary.candidates.values()) > 0
    assert _write(runs[0], tmp_path / "a") == _write(runs[1], tmp_path / "b")
    assert _timeless(runs[0].summary) == _timeless(runs[1].summary)


def test_a_task_expands_the_same_whatever_the_worker_ran_before(tmp_path: Path) -> None:
    # A worker process keeps one engine for all the tasks it is given, in an order that depends on
    # scheduling. The engine's per-task-text step budget (spent by the reference and by each
    # adversary) must start afresh with every task, or a task's suite depends on its neighbours.
    # each postcondition check now costs about 100 steps: past the engine's per-task budget,
    # with 50 steps per check, they would all time out
    source = _clamp().with_sections(
        postcond_aux="def down : Nat → Nat\n  | 0 => 0\n  | n + 1 => down n + 1",
        postcond="  down 100 = 100 ∧ lo ≤ result ∧ result ≤ hi ∧ (lo ≤ x ∧ x ≤ hi → result = x) ∧\n"
                 "  (x < lo → result = lo) ∧ (hi < x → result = hi)",
    )
    engine = EmbeddedBackend(task_step_budget=20_000, over_budget_max_steps=50)
    fresh = expand_task(source, engine, SMALL)
    assert fresh.summary.kills > 0 and fresh.summary.budget_hit is None
    after_the_same_task = expand_task(source, engine, SMALL)  # the same texts, budgets spent before
    assert fresh.summary.steps == after_the_same_task.summary.steps
    assert _write(fresh, tmp_path / "a") == _write(after_the_same_task, tmp_path / "b")


def test_the_step_budget_is_looked_at_between_batches_only() -> None:
    # A budget of one step: the first batch of candidates is classified (the engine's unit is
    # not known before it answers), then everything else is dropped and counted.
    source = _clamp()
    options = SMALL.model_copy(update={"task_steps": 1})
    result = expand_task(source, SteppingBackend(), options)
    summary = result.summary
    assert summary.budget_hit == "steps"
    new_distinct = sum(c.generated - c.duplicate for c in summary.candidates.values())
    dropped = sum(c.dropped_deadline for c in summary.candidates.values())
    assert dropped == new_distinct - 16 > 0
    skipped = sum(a.skipped_deadline for a in summary.adversaries.values())
    assert skipped == sum(a.generated - a.unsafe for a in summary.adversaries.values()) > 0
    assert [t.input for t in result.task.tests[: len(source.tests)]] == [t.input for t in source.tests]


def test_the_wall_clock_backstop_is_reported() -> None:
    options = SMALL.model_copy(update={"task_backstop_s": 1e-9})
    result = expand_task(_clamp(), SteppingBackend(), options)
    assert result.summary.budget_hit == "backstop" and result.summary.deadline_hit
    summary = ExpandSummary(source="in", output="out", engine="stepping", seed=42, tasks=[result.summary],
                            deadline_hits=1, budget_hits={"backstop": 1}, task_backstop_s=1e-9)
    text = format_summary(summary)
    assert "1 by backstop" in text
    assert "stopped by a wall-clock limit (may differ in another run): mini_clamp" in text


def test_checks_the_engine_stopped_by_its_wall_clock_backstop_are_reported() -> None:
    backend = SteppingBackend(stop_postconds=True)
    summary = expand_task(_clamp(), backend, SMALL).summary
    assert summary.budget_hit is None
    assert summary.engine_backstops == backend.postconds > 0
    assert summary.kills == 0 and summary.unexpected.postcond_unknown > 0
    run = ExpandSummary(source="in", output="out", engine="stepping", seed=42, tasks=[summary],
                        engine_backstops=summary.engine_backstops)
    text = format_summary(run)
    assert "stopped by a wall-clock limit (may differ in another run): mini_clamp" in text
    assert f"checks stopped by the engine's own wall-clock backstop: {summary.engine_backstops}" in text


def test_an_engine_without_steps_gets_the_wall_clock_budget() -> None:
    source = _clamp()
    # The step budget does not apply to an engine that does not count steps...
    result = expand_task(source, SteppingBackend(report_steps=False), SMALL.model_copy(update={"task_steps": 1}))
    assert result.summary.budget_hit is None and result.summary.steps is None
    # ... the wall-clock budget does.
    result = expand_task(source, SteppingBackend(report_steps=False), SMALL.model_copy(update={"task_deadline_s": 1e-9}))
    assert result.summary.budget_hit == "seconds"
    assert sum(c.dropped_deadline for c in result.summary.candidates.values()) > 0
    # And the wall-clock budget does not apply to an engine that counts steps.
    result = expand_task(source, SteppingBackend(), SMALL.model_copy(update={"task_deadline_s": 1e-9}))
    assert result.summary.budget_hit is None and result.summary.steps is not None and result.summary.steps > 0


def test_the_command_takes_the_budgets_and_prints_the_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from veriscale.cli import app

    out = tmp_path / "suite"
    result = CliRunner().invoke(app, [
        "expand", str(MINI), "--out", str(out), "--jobs", "1", "--task", "mini_clamp", "--quiet",
        "--task-steps", "1", "--task-seconds", "90", "--backstop", "1000", "--max-batch", "8",
    ])
    assert result.exit_code == 0, result.output
    assert "per-task budget (1 steps, 90 s for engines without steps, backstop 1000 s)" in result.output
    assert "candidate inputs:" in result.output and "1 task(s) expanded" in result.output
    summary = ExpandSummary.model_validate_json((out / SUMMARY_FILE).read_text())
    assert (summary.task_steps, summary.task_deadline_s, summary.task_backstop_s) == (1, 90.0, 1000.0)
    (task,) = summary.tasks
    # The embedded engine counts steps: one step is spent after the first batch.
    assert task.budget_hit == ("steps" if task.steps is not None else None)
    if task.steps is not None:
        assert "1 task(s) stopped (1 by steps)" in result.output


def _answers(*steps: int | None) -> list[Answer]:
    return [Answer(status="true", engine="e", steps=s) for s in steps]


def test_budget_bookkeeping() -> None:
    now = [0.0]
    budget = TaskBudget(steps=1000, seconds=5.0, backstop_s=50.0, clock=lambda: now[0])
    now[0] = 20.0
    assert not budget.check(0.5)  # 20 s > 2.5 s, but nothing answered yet: only the backstop (25 s)
    now[0] = 30.0
    assert budget.spent(0.5) == "backstop" and budget.spent(1.0) is None
    now[0] = 0.0
    budget.record(_answers(None, None))
    assert not budget.counts_steps and budget.spent(0.5) is None
    now[0] = 3.0
    assert budget.check(0.5) and budget.hit_kind == "seconds"  # no steps: wall clock
    budget.record(_answers(300, None, 200))
    assert budget.counts_steps and budget.steps == 500 and budget.checks == 5
    assert budget.charged == 500 + 5 * CHECK_CHARGE_STEPS
    budget.step_budget = budget.charged + 100
    assert budget.spent(1.0) is None and budget.spent(budget.charged / budget.step_budget - 0.01) == "steps"
    now[0] = 1e6
    assert budget.spent(1.0) == "backstop"
    assert budget.hit_kind == "seconds"  # the first one found spent is reported
    assert not TaskBudget().check(0.0)


def test_checks_the_engine_stopped_by_its_cpu_backstop_are_counted() -> None:
    """The embedded engine's own backstop is a clock: the task's result depends on the load."""
    budget = TaskBudget(steps=10_000)
    stopped = Answer(status="unknown", engine="e", steps=400, reason=UnknownReason.TIMEOUT,
                     detail="backstop of 30 CPU seconds exceeded")
    counted = Answer(status="unknown", engine="e", steps=500, reason=UnknownReason.TIMEOUT,
                     detail="step budget of 500 steps exhausted")
    budget.record([stopped, counted, *_answers(10)])
    assert budget.engine_backstops == 1


def test_batches_are_sized_from_steps_never_from_seconds() -> None:
    def cost(checks: int, per_check: int, seconds: float = 0.0) -> BatchCost:
        # per_check: charged steps per check, the fixed per-check charge included
        return BatchCost(checks=checks, steps=checks * (per_check - CHECK_CHARGE_STEPS), seconds=seconds)

    sizer = ChunkSizer(start=16, low=8, high=128, target_steps=1_000_000)
    sizer.record(cost(16, 10_000, seconds=99.0))  # cheap in steps, slow in time
    assert sizer.size == 32  # at most twofold growth
    for _ in range(5):
        sizer.record(cost(sizer.size, 1_000))
    assert sizer.size == 128  # never beyond high
    sizer.record(cost(128, 500_000))
    assert sizer.size == 8  # two checks would hit the target, but not below low
    sizer.record(cost(8, 100_000, seconds=1e-6))
    assert sizer.size == 10
    # Without steps (real Lean): from the time per check.
    timed = ChunkSizer(start=16, low=8, high=128, target_s=1.0)
    timed.record(BatchCost(checks=8, steps=None, seconds=0.8))
    assert timed.size == 10
    assert BatchCost(2, None, 1.0) + BatchCost(3, 7, 0.5) == BatchCost(5, 7, 1.5)
    assert BatchCost(2, None, 1.0) + BatchCost(3, None, 0.5) == BatchCost(5, None, 1.5)


# ---------------------------------------------------------------------------------------------
# The LLM path, against a local fake server

CLAMP_INPUTS = json.dumps([
    {"x": 3, "lo": 1, "hi": 2}, {"x": -9, "lo": -4, "hi": 8}, {"x": 7, "lo": 9, "hi": 1},
    {"x": 0, "lo": 0, "hi": 0}, {"x": 5, "lo": 0, "hi": 10}, {"y": 1},
])
PROBLEM_MODEL = json.dumps({"constraints": [
    {"about": "input", "tag": "explicit", "text": "lo is at most hi"},
    {"about": "output", "tag": "explicit", "text": "the result lies between lo and hi"},
    {"about": "output", "tag": "hypothesised", "text": "the result is x when x is in range"},
]})
SPEC = json.dumps({"precond": "lo ≤ hi", "postcond": "lo ≤ result ∧ result ≤ hi"})
LAZY = json.dumps({"implementations": [
    {"idea": "clamps from below only", "code": "if x < lo then lo\nelse x", "code_aux": ""},
    {"idea": "the midpoint", "code": "(lo + hi) / 2", "code_aux": ""},
    {"idea": "a helper that ignores x", "code": "pickLow lo hi", "code_aux": "def pickLow (a b : Int) : Int := a"},
    {"idea": "cheat", "code": "sorry", "code_aux": ""},
    {"idea": "not a string", "code": 5, "code_aux": ""},
]})
GENERIC_LAZY = json.dumps({"implementations": [{"idea": "the default value", "code": "default", "code_aux": ""}]})


def _kind(body: Any) -> str:
    text = json.dumps(body, ensure_ascii=False)
    for marker, kind in (("Propose candidate inputs", "inputs"), ("write down its problem model", "problem"),
                         ("Formalise the requirements", "spec"), ("lazy implementations", "lazy")):
        if marker in text:
            return kind
    return "other"


def scripted(overrides: dict[str, Behaviour] | None = None) -> Any:
    """Replies by prompt kind; ``overrides`` replace the reply of a kind (for every task)."""

    def reply(body: Any) -> Behaviour:
        kind = _kind(body)
        if overrides and kind in overrides:
            return overrides[kind]
        clamp = "clampToRange" in json.dumps(body, ensure_ascii=False)
        if kind == "inputs":
            return Reply(f"```json\n{CLAMP_INPUTS}\n```" if clamp else "[]")
        if kind == "problem":
            return Reply(PROBLEM_MODEL)
        if kind == "spec":
            return Reply(f"```json\n{SPEC}\n```")
        if kind == "lazy":
            return Reply(LAZY if clamp else GENERIC_LAZY)
        return Reply("?")

    return reply


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(default=scripted()) as running:
        yield running


def _llm(server: FakeOpenAIServer, timeout_s: float = 30.0) -> LLMConfig:
    return LLMConfig(model="fake-model", base_url=server.base_url, timeout_s=timeout_s,
                     retry=RetryPolicy(max_attempts=1, initial_delay_s=0.0, jitter=0.0))


def test_strict_reply_parsing() -> None:
    assert isinstance(parse_strict_json(PROBLEM_MODEL, ProblemModel), ProblemModel)
    assert isinstance(parse_strict_json(f"```json\n{SPEC}\n```", GeneratedSpec), GeneratedSpec)
    assert parse_strict_json(f"Here it is: {SPEC}", GeneratedSpec) == "not-json"
    assert parse_strict_json(f"```json\n{SPEC}\n```\nHope this helps", GeneratedSpec) == "not-json"
    assert parse_strict_json("[1, 2]", GeneratedSpec) == "not-json"
    assert parse_strict_json('{"precond": "True"}', GeneratedSpec) == "schema"
    assert parse_strict_json('{"precond": "True", "postcond": "True", "note": 1}', GeneratedSpec) == "schema"
    assert parse_strict_json('{"constraints": [{"about": "input", "tag": "maybe", "text": "t"}]}',
                             ProblemModel) == "schema"
    us = parse_strict_json('{"constraints": [{"about": "input", "tag": "hypothesized", "text": "t"}]}', ProblemModel)
    assert isinstance(us, ProblemModel) and us.constraints[0].tag == "hypothesised"
    with pytest.raises(ValueError):
        LazyImplementation(idea="i", code="def f (x : Int) : Int := x")


def test_prompts_show_the_task_and_only_what_each_step_needs() -> None:
    task = _clamp()
    model = parse_strict_json(PROBLEM_MODEL, ProblemModel)
    assert isinstance(model, ProblemModel)
    problem = build_problem_model_prompt(task)[1]["content"]
    assert "limits an integer to a closed range" in problem and "clampToRange (x : Int)" in problem
    assert "_precond" not in problem and "_postcond" not in problem  # no ground truth shown
    spec = build_spec_prompt(task, model.explicit)[1]["content"]
    assert "1. (input) lo is at most hi" in spec and "2. (output) the result lies between lo and hi" in spec
    assert "the result is x when x is in range" not in spec  # hypothesised: left out
    assert "(result : Int)" in spec
    parsed_spec = parse_strict_json(SPEC, GeneratedSpec)
    assert isinstance(parsed_spec, GeneratedSpec)
    lazy = build_lazy_impl_prompt(task, parsed_spec, 5)[1]["content"]
    assert "Write 5 implementations" in lazy
    assert "def clampToRange_postcond (x : Int) (lo : Int) (hi : Int) (result : Int) : Prop :=\n  lo ≤ result" in lazy
    assert "(h_precond : clampToRange_precond x lo hi) : Int :=" in lazy


def test_the_llm_round_adds_inputs_and_adversaries(server: FakeOpenAIServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    summary = expand_benchmark(MINI, out, llm=_llm(server), jobs=2, progress=False, options=SMALL)
    assert summary.tasks_expanded == len(MINI_IDS) and summary.tasks_failed == 0
    clamp = next(t for t in summary.tasks if t.task == "mini_clamp")
    llm_inputs = clamp.candidates["llm"]
    assert llm_inputs.generated == 5  # the element with wrong keys is dropped by the reader
    assert llm_inputs.duplicate == 1  # {"x": 5, "lo": 0, "hi": 10} is an original test
    assert llm_inputs.accept == 3 and llm_inputs.reject == 1
    assert clamp.llm is not None
    assert clamp.llm.bad_replies == {"inputs: wrong-keys": 1, "lazy_impl: bad-element": 1}
    assert clamp.adversaries["llm"].generated == 4 and clamp.adversaries["llm"].unsafe == 1
    assert clamp.adversaries["llm"].kept == clamp.adversaries["llm"].killed == 3
    matrix = json.loads((out / "mini_clamp" / KILL_MATRIX_FILE).read_text())
    llm_ids = [a["id"] for a in matrix["adversaries"] if a["source"] == "llm"]
    assert llm_ids == ["llm:fake-model:0:0", "llm:fake-model:0:1", "llm:fake-model:0:2"]
    assert summary.llm is not None and summary.llm.requests == server.request_count == 4 * len(MINI_IDS)

    # The same command again: nothing to do, no request.
    again = expand_benchmark(MINI, out, llm=_llm(server), jobs=2, progress=False, options=SMALL)
    assert again.tasks_resumed == len(MINI_IDS) and server.request_count == 4 * len(MINI_IDS)
    # A task recomputed from scratch replays its calls from the store's cache.
    with RunStore.open(out) as store:
        store.clear("mini_clamp", STAGE)
    before = _files(out)
    third = expand_benchmark(MINI, out, llm=_llm(server), jobs=1, progress=False, options=SMALL)
    assert third.tasks_expanded == 1 and server.request_count == 4 * len(MINI_IDS)
    recomputed = next(t for t in third.tasks if t.task == "mini_clamp")
    assert recomputed.llm is not None and recomputed.llm.requests == 0 and recomputed.llm.cache_hits == 4
    assert _files(out) == before


def test_bad_llm_replies_refusals_and_timeouts_do_not_stop_the_run(tmp_path: Path) -> None:
    overrides: dict[str, Behaviour] = {
        "inputs": Reply(content=None, refusal="I cannot help with that."),
        "problem": Reply("Sure! The constraints are: lo <= hi."),
        # Far past the client's timeout, which is far past what a reply takes on a loaded machine:
        # the outcome does not depend on the machine's speed (the server stops when the client
        # hangs up, so the long delay costs nothing).
        "lazy": Reply(LAZY, delay_s=120.0),
    }
    with FakeOpenAIServer(default=scripted(overrides)) as server:
        summary = expand_benchmark(MINI, tmp_path / "a", llm=_llm(server, timeout_s=4.0), jobs=1, progress=False,
                                   options=SMALL, task_ids=["mini_clamp"])
        assert summary.tasks_expanded == 1 and summary.tests_after > summary.tests_before
        clamp = summary.tasks[0]
        assert clamp.llm is not None
        assert clamp.llm.failures == {"refusal": 1}
        assert clamp.llm.bad_replies == {"problem_model: not-json": 1}
        assert clamp.adversaries["llm"].generated == 0 and clamp.adversaries["template"].kept > 0

        # A model that answers the first two steps but times out on the third.
        overrides.pop("problem")
        summary = expand_benchmark(MINI, tmp_path / "b", llm=_llm(server, timeout_s=4.0), jobs=1, progress=False,
                                   options=SMALL, task_ids=["mini_clamp"])
        clamp = summary.tasks[0]
        assert clamp.llm is not None and len(clamp.llm.errors) == 1 and "timeout" in clamp.llm.errors[0]
        assert clamp.adversaries["llm"].generated == 0 and summary.tasks_expanded == 1
        assert (tmp_path / "b" / "mini_clamp" / "test.json").is_file()

        # Resumed once the model answers: only that task's failed call is sent again.
        overrides.pop("lazy")
        requests = server.request_count
        summary = expand_benchmark(MINI, tmp_path / "b", llm=_llm(server, timeout_s=30.0), jobs=1, progress=False,
                                   options=SMALL, task_ids=["mini_clamp"])
        assert summary.tasks_expanded == 1 and server.request_count == requests + 1
        assert summary.tasks[0].adversaries["llm"].kept == 3


def test_an_llm_configuration_error_stops_the_run(tmp_path: Path) -> None:
    with FakeOpenAIServer(default=lambda body: HttpError(401, "invalid api key")) as server:
        with pytest.raises(LLMCallError) as info:
            expand_benchmark(MINI, tmp_path / "run", llm=_llm(server), jobs=1, progress=False, options=SMALL,
                             task_ids=["mini_clamp"])
        assert info.value.status == 401 and server.request_count == 1
    with RunStore.open(tmp_path / "run") as store:
        assert store.done_tasks(STAGE) == set()


KILLABLE_RUN = textwrap.dedent(
    """
    import json, sys
    from veriscale.stages.expand import ExpandOptions, expand_benchmark
    from veriscale.llm import LLMCallError, LLMConfig, RetryPolicy

    base_url, source, out = sys.argv[1:4]
    config = LLMConfig(model="fake-model", base_url=base_url, timeout_s=60, retry=RetryPolicy(max_attempts=1))
    options = ExpandOptions(synthesis_limit=40, mutants_per_seed=4, max_mutant_adversaries=12)
    summary = expand_benchmark(source, out, llm=config, jobs=1, progress=False, options=options)
    print(json.dumps({"expanded": summary.tasks_expanded, "resumed": summary.tasks_resumed}), flush=True)
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), env.get("PYTHONPATH", "")])
    return env


def test_a_run_killed_mid_way_resumes_without_repeating_an_llm_call(server: FakeOpenAIServer, tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(KILLABLE_RUN)
    out = tmp_path / "run"
    args = [sys.executable, str(script), server.base_url, str(MINI), str(out)]
    server.hold_after(6)  # two tasks answered (four calls each), the third in its second call
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=_env())
    try:
        assert server.wait_for_requests(7, timeout_s=120), "the run never reached its seventh call"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    with RunStore.open(out) as store:
        finished = store.done_tasks(STAGE)
    assert len(finished) == 1  # the first task; the second was waiting for its third call
    server.release()

    rerun = subprocess.run(args, capture_output=True, text=True, timeout=300, env=_env(), check=True)
    result = json.loads(rerun.stdout.strip().splitlines()[-1])
    assert result["resumed"] == len(finished) and result["expanded"] == len(MINI_IDS) - len(finished)
    answered = server.answered_bodies()
    assert len(answered) == 4 * len(MINI_IDS) and len(set(answered)) == len(answered)
    assert server.request_count == len(answered) + 1  # plus the one in flight at the kill

    # The resumed suite is the suite of an uninterrupted run.
    with FakeOpenAIServer(default=scripted()) as other:
        clean = tmp_path / "clean"
        expand_benchmark(MINI, clean, llm=_llm(other), jobs=1, progress=False, options=SMALL)
    assert _files(out) == _files(clean)
    assert len(load_benchmark(out).tasks) == len(MINI_IDS)
