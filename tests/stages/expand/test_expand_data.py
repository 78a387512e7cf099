"""LLM-free ``expand`` of a sample of Verina tasks: the suite's invariants hold on real tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.benchmark import load_benchmark
from veriscale.lean.printing import same_as_printed
from veriscale.stages.expand import ExpandOptions, ExpandSummary, expand_benchmark
from veriscale.stages.expand.audit import audit_suite, recheck_unexpected
from veriscale.stages.score import SUBMITTABLE_SECTIONS, ground_truth_submission, score_suite
from veriscale.task import load_task
from veriscale.typed_task import typed_view

pytestmark = pytest.mark.data

# Spread over the benchmark (basic and advanced; lists, strings, arrays, floats, a Nat-heavy task);
# all quick to evaluate, so the test stays short.
SAMPLE = (
    "verina_advanced_1",
    "verina_advanced_10",
    "verina_advanced_36",
    "verina_advanced_47",
    "verina_basic_1",
    "verina_basic_10",
    "verina_basic_15",
    "verina_basic_50",
    "verina_basic_70",
    "verina_basic_89",
)
OPTIONS = ExpandOptions(task_deadline_s=60)  # the published defaults otherwise


@pytest.fixture(scope="module")
def expanded(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[ExpandSummary, Path, Path]:
    source = data_dir / "verina"
    present = [t for t in SAMPLE if (source / t / "task.json").is_file()]
    if len(present) < len(SAMPLE) // 2:
        pytest.skip("the sample tasks are not in this copy of the data")
    out = tmp_path_factory.mktemp("verina-sample")
    summary = expand_benchmark(source, out, jobs=2, progress=False, options=OPTIONS, task_ids=present)
    return summary, source, out


def test_every_sampled_task_is_expanded(expanded: tuple[ExpandSummary, Path, Path]) -> None:
    summary, _, _ = expanded
    assert summary.tasks_failed == 0 and summary.tasks_expanded == summary.tasks_total
    assert summary.reference_disagreements == 0
    assert summary.checks_after >= 10 * summary.checks_before
    for task in summary.tasks:
        assert task.tests_new > 0, task.task
        assert task.kills > 0, task.task


def test_the_suite_has_no_duplicates_and_no_truncated_values(expanded: tuple[ExpandSummary, Path, Path]) -> None:
    summary, _, out = expanded
    audit = audit_suite(out)
    assert audit.tasks == summary.tasks_total
    assert audit.duplicate_inputs == 0
    assert audit.value_problems == {}
    assert audit.kill_matrix_errors == []
    assert audit.checks == summary.checks_after


def test_new_rows_agree_with_the_ground_truth(expanded: tuple[ExpandSummary, Path, Path]) -> None:
    summary, source, out = expanded
    backend = EmbeddedBackend()
    for task_summary in summary.tasks:
        original = load_task(source / task_summary.task)
        expanded_task = load_task(out / task_summary.task)
        view = typed_view(expanded_task)
        new_tests = view.tests[len(original.tests):]
        new_rejects = view.rejects[len(original.reject_inputs):]
        checks = [Check(kind=CheckKind.PRECOND, args=t.args) for t in new_tests]
        checks += [Check(kind=CheckKind.CODE, args=t.args) for t in new_tests]
        checks += [Check(kind=CheckKind.PRECOND, args=r.args) for r in new_rejects]
        answers = backend.run(expanded_task, checks)
        n = len(new_tests)
        assert [a.status for a in answers[:n]] == ["true"] * n, task_summary.task
        for answer, test in zip(answers[n : 2 * n], new_tests):
            assert answer.status == "value" and same_as_printed(answer.value, test.expected), task_summary.task
        assert [a.status for a in answers[2 * n :]] == ["false"] * len(new_rejects), task_summary.task

        skip = {i: len(t.unexpected) for i, t in enumerate(original.tests)}
        recheck = recheck_unexpected(expanded_task, backend, skip_first=skip)
        assert recheck.accepted == [], task_summary.task
        # A recheck may time out where the expansion did not (another process's load): never a pass.
        assert recheck.rejected + len(recheck.unknown) == recheck.checked
        assert recheck.rejected >= 0.95 * recheck.checked


def test_the_ground_truth_passes_every_written_test(expanded: tuple[ExpandSummary, Path, Path]) -> None:
    """Scoring the ground truth on the suite: its postcondition holds on every test's (input,
    expected output) -- decided true on every new test (expand wrote only those), never false on
    an original one -- and counterexamples to spec_satisfied were reported, not written."""
    summary, source, out = expanded
    backend = EmbeddedBackend()
    for task_summary in summary.tasks:
        original = load_task(source / task_summary.task)
        view = typed_view(load_task(out / task_summary.task))
        tests = [t for t in view.tests if t.args is not None and t.expected_ok]
        answers = backend.run(view.task, [Check(kind=CheckKind.POSTCOND, args=t.args, output=t.expected) for t in tests])
        for test, answer in zip(tests, answers, strict=True):
            new = test.index >= len(original.tests)
            assert answer.status == "true" if new else answer.status != "false", (task_summary.task, test.index)
        written = {t.key for t in view.tests}
        assert not {c.input for c in task_summary.counterexamples if c.source != "original"} & written


def test_a_second_run_writes_the_same_bytes(expanded: tuple[ExpandSummary, Path, Path], tmp_path: Path) -> None:
    summary, source, out = expanded
    # A few of the sampled tasks again, in one process (the first run used two): same bytes.
    again = [t.task for t in summary.tasks][:3]
    second = expand_benchmark(source, tmp_path / "again", jobs=1, progress=False, options=OPTIONS, task_ids=again)
    for task in second.tasks:
        first_files = {p.name: p.read_bytes() for p in sorted((out / task.task).iterdir()) if p.name != "summary.json"}
        second_files = {
            p.name: p.read_bytes() for p in sorted((tmp_path / "again" / task.task).iterdir()) if p.name != "summary.json"
        }
        earlier = next(t for t in summary.tasks if t.task == task.task)
        wall_clock = any(t.budget_hit in ("seconds", "backstop") or t.engine_backstops > 0 for t in (task, earlier))
        if not wall_clock:  # only a wall-clock limit may make a task differ (and it is reported)
            assert first_files == second_files, task.task


def test_scoring_the_ground_truth_on_the_suite_gives_1_on_every_decided_metric(
    expanded: tuple[ExpandSummary, Path, Path],
) -> None:
    """What ``benchmarks/expand_verina.py --score-ground-truth`` checks on all of Verina, on the
    sample: no metric the engine decides is 0 for the reference solution."""
    summary, _, out = expanded
    tasks = load_benchmark(out).tasks
    # Without the proof sections: Verina's reference proofs are mostly `sorry`, and proofs are
    # Lean's to check, not the engine's.
    sections = [s for s in SUBMITTABLE_SECTIONS if not s.startswith("proof")]
    report = score_suite(out, [ground_truth_submission(t, sections) for t in tasks], workers=2, progress=False)
    assert report.errors == [] and len(report.tasks) == summary.tasks_total
    failed = [(s.task, metric, s.reasons[:1]) for s in report.tasks for metric in report.totals
              if (bound := s.bound(metric)) is not None and bound.upper == 0]
    assert failed == []
    decided = [metric for s in report.tasks for metric in ("code", "postcond_complete", "postcond_sound")
               if (bound := s.bound(metric)) is not None and bound.lower == 1]
    assert len(decided) >= 2 * len(report.tasks)  # mostly decided, so the check has teeth
