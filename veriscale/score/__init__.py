"""Scoring model output (code, specifications, proofs) against a suite, with lower/upper bounds.

Public API:

* :func:`score_suite` -- score submissions against a suite directory, in worker processes;
* :func:`format_report` -- the table the CLI prints;
* :class:`Submission`, :func:`load_submissions`, :func:`write_submissions`,
  :func:`ground_truth_submission`;
* :class:`ScoreReport`, :class:`TaskScore`, :class:`Bound`, :class:`MetricTotal`, :data:`METRICS`;
* :func:`~veriscale.score.scoring.score_task` -- one task, one backend, in this process.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from veriscale.backends.base import Backend
from veriscale.parallel import Executor, LocalExecutor, WorkerSetup, progress_bar, worker_memory_limit
from veriscale.score.models import METRICS, Bound, MetricTotal, ScoreReport, TaskScore, compute_totals
from veriscale.score.scoring import GROUP_METRICS, GroupResult, groups_of, merge_groups, score_task
from veriscale.score.submission import (
    SUBMITTABLE_SECTIONS,
    Submission,
    SubmissionError,
    load_submissions,
    write_submissions,
)
from veriscale.task import Task, load_benchmark

__all__ = [
    "METRICS",
    "SUBMITTABLE_SECTIONS",
    "Bound",
    "MetricTotal",
    "ScoreReport",
    "Submission",
    "SubmissionError",
    "TaskScore",
    "format_report",
    "ground_truth_submission",
    "load_submissions",
    "score_suite",
    "score_task",
    "write_submissions",
]


#: The embedded engine elaborates a submission before evaluating it, for the fragment it models;
#: where it cannot tell what Lean would say the lower bound drops, but its elaborator is not Lean's.
EMBEDDED_CAVEAT = (
    "embedded engine: submissions are elaborated by the engine's model of Lean (names, types, index "
    "bounds, termination), not by Lean itself; what it cannot judge lowers the lower bound, and final "
    "scores need --backend lean"
)


def ground_truth_submission(task: Task, sections: Sequence[str] = SUBMITTABLE_SECTIONS) -> Submission:
    """The task's own section bodies as a submission (a sanity check: it should score 1/1)."""
    return Submission(task=task.id, **{name: task.section(name) for name in sections})


# ---------------------------------------------------------------------------------------------
# Work units: one task's groups, split into single groups after a crash


@dataclass(frozen=True)
class _Unit:
    task: Task
    submission: Submission
    groups: tuple[str, ...]


_WORKER_BACKEND: Backend | None = None


def _worker_init(backend_name: str) -> None:
    global _WORKER_BACKEND
    from veriscale.backends.select import make_backend

    _WORKER_BACKEND = make_backend(backend_name)


def _worker_close() -> None:
    global _WORKER_BACKEND
    if _WORKER_BACKEND is not None:
        _WORKER_BACKEND.close()  # an engine holding child processes (Lean REPLs) releases them
    _WORKER_BACKEND = None


def _crash_results(unit: _Unit, reason: str) -> list[GroupResult]:
    return [
        GroupResult(task=unit.task.id, group=g, bounds={m: Bound(lower=0, upper=0) for m in GROUP_METRICS[g]},
                    reasons=[f"{m}: error: {reason}" for m in GROUP_METRICS[g]])
        for g in unit.groups
    ]


def _score_unit(unit: _Unit) -> list[GroupResult]:
    assert _WORKER_BACKEND is not None
    try:
        return score_task(unit.task, unit.submission, _WORKER_BACKEND, unit.groups)
    except Exception as exc:  # noqa: BLE001 - one broken task must not end the run; never a pass
        return _crash_results(unit, f"internal {type(exc).__name__}: {exc}"[:200])


def _split_unit(unit: _Unit) -> list[_Unit]:
    return [_Unit(unit.task, unit.submission, (g,)) for g in unit.groups]


def _crashed_unit(unit: _Unit, reason: str) -> list[GroupResult]:
    return _crash_results(unit, reason)


def _merge_parts(parts: Sequence[list[GroupResult]]) -> list[GroupResult]:
    return [result for part in parts for result in part]


def score_suite(
    suite: Path,
    submissions: Sequence[Submission],
    *,
    backend: str = "embedded",
    workers: int | None = None,
    progress: bool = True,
    executor: Executor | None = None,
) -> ScoreReport:
    """Score every submission whose task is in ``suite``; the others are reported in ``errors``.

    Tasks of the suite without a submission are left out of the report (and of the totals).
    Units of work run on ``executor`` (default: ``workers`` local processes, one per core without
    it); ``workers=1`` scores in this process (no protection against a crashing evaluator).
    Raises ``BackendUnavailable`` when the requested engine cannot run here.
    """
    from veriscale.backends.select import resolve_backend_name

    started = time.perf_counter()
    # raises here when Lean is asked for but not usable, not in every worker's initializer
    engine = resolve_backend_name(backend)
    loaded = load_benchmark(suite)
    tasks = {t.id: t for t in loaded.tasks}
    load_failures = {f.task: f for f in loaded.failures}
    errors: list[str] = []
    units: list[_Unit] = []
    unscored: list[TaskScore] = []
    for submission in submissions:
        task = tasks.get(submission.task)
        if task is None:
            if submission.task in load_failures:
                errors.append(f"{submission.task}: the suite's task could not be loaded: {load_failures[submission.task]}")
            else:
                errors.append(f"{submission.task}: no such task in {suite}")
            continue
        groups = groups_of(submission)
        if not groups:
            unscored.append(TaskScore(task=task.id, reasons=["the submission has no section to score"]))
            continue
        units.append(_Unit(task, submission, groups))
    # Biggest tasks first keeps every worker busy until the end.
    units.sort(key=lambda u: -(sum(1 + len(t.unexpected) for t in u.task.tests) + len(u.task.reject_inputs)))
    batches = (executor or LocalExecutor(workers)).map(
        _score_unit, units, setup=WorkerSetup(_worker_init, (engine,), _worker_close), crashed=_crashed_unit,
        split=_split_unit, merge=_merge_parts, progress=progress_bar("score") if progress else None, memory_limit=worker_memory_limit(engine),
    )
    results = [result for batch in batches for result in batch]

    by_task: dict[str, list[GroupResult]] = {}
    for result in results:
        by_task.setdefault(result.task, []).append(result)
    scores = [merge_groups(task_id, group_results) for task_id, group_results in by_task.items()]
    scores.extend(unscored)
    scores.sort(key=lambda s: s.task)
    return ScoreReport(
        suite=str(suite),
        engine=engine,
        seconds=round(time.perf_counter() - started, 2),
        checks=sum(s.checks for s in scores),
        tasks=scores,
        totals=compute_totals(scores),
        errors=errors,
        skipped_checks=sum(sum(s.skipped.values()) for s in scores),
        missing=sorted(set(tasks) - {s.task for s in submissions}),
        caveats=[EMBEDDED_CAVEAT] if engine == "embedded" else [],
    )


def format_report(report: ScoreReport, *, verbose: bool = False) -> str:
    """A table: one row per task (only the imperfect ones unless ``verbose``) and the totals."""
    metrics = [m for m in METRICS if m in report.totals]
    width = max([len(s.task) for s in report.tasks] + [5])
    header = f"{'task':<{width}}" + "".join(f"{m:>19}" for m in metrics)
    lines = [header]
    for score in report.tasks:
        bounds = [score.bound(m) for m in metrics]
        perfect = all(b is None or b.lower == 1 for b in bounds)
        if perfect and not verbose:
            continue
        cells = "".join(f"{'-' if b is None else f'{b.lower}/{b.upper}':>19}" for b in bounds)
        lines.append(f"{score.task:<{width}}{cells}")
        for reason in score.reasons[: 3 if not verbose else None]:
            lines.append(f"{'':<{width}}  {reason[:150]}")
    lines.append(
        f"{'TOTAL':<{width}}"
        + "".join(f"{f'{t.lower}/{t.upper}/{t.tasks}':>19}" for t in (report.totals[m] for m in metrics))
    )
    lines.append(
        f"{'rate':<{width}}"
        + "".join(f"{f'{t.lower_rate:.3f}-{t.upper_rate:.3f}':>19}" for t in (report.totals[m] for m in metrics))
    )
    lines.append("")
    lines.append(f"{len(report.tasks)} task(s) scored; totals are lower/upper/tasks")
    if report.skipped_checks:
        lines.append(f"{report.skipped_checks} test(s) skipped for unreadable or defective stored values")
    lines.append(
        f"{report.checks} checks in {report.seconds:.1f} s = {report.checks_per_second:.0f} checks/s "
        f"(engine: {report.engine})"
    )
    lines.extend(f"caveat: {caveat}" for caveat in report.caveats)
    if report.missing:
        lines.append(f"{len(report.missing)} task(s) of the suite have no submission (left out)")
    for error in report.errors:
        lines.append(f"not scored: {error}")
    return "\n".join(lines)
