"""Scoring model output (code, specifications, proofs) against a suite, with lower/upper bounds.

Public API:

* :func:`score_suite` -- score submissions against a suite directory, in worker processes;
* :func:`format_report` -- the table the CLI prints;
* :class:`Submission`, :func:`load_submissions`, :func:`write_submissions`,
  :func:`ground_truth_submission`;
* :class:`ScoreReport`, :class:`TaskScore`, :class:`Bound`, :class:`MetricTotal`, :data:`METRICS`;
* :func:`~veriscale.stages.score.scoring.score_task` -- one task, one backend, in this process.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from veriscale.backends.select import worker_engine, worker_engine_setup
from veriscale.benchmark import load_benchmark
from veriscale.parallel import (
    Executor,
    LocalExecutor,
    ProgressOption,
    as_progress,
    worker_memory_limit,
)
from veriscale.stages.score.models import (
    BASE_METRICS,
    METRICS,
    Bound,
    MetricTotal,
    ScoreReport,
    TaskScore,
    compute_totals,
)
from veriscale.stages.score.provenance import Provenance
from veriscale.stages.score.provenance import collect as collect_provenance
from veriscale.stages.score.scoring import GROUP_METRICS, GroupResult, groups_of, merge_groups, score_task
from veriscale.stages.score.submission import (
    SUBMITTABLE_SECTIONS,
    Submission,
    SubmissionError,
    load_submissions,
    write_submissions,
)
from veriscale.task import Task

__all__ = [
    "METRICS",
    "SUBMITTABLE_SECTIONS",
    "Bound",
    "MetricTotal",
    "NoTaskSelected",
    "Provenance",
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


class NoTaskSelected(ValueError):
    """``task_ids`` named no task of the suite."""


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




def _crash_results(unit: _Unit, reason: str) -> list[GroupResult]:
    return [
        GroupResult(task=unit.task.id, group=g, bounds={m: Bound(lower=0, upper=0) for m in GROUP_METRICS[g]},
                    reasons=[f"{m}: error: {reason}" for m in GROUP_METRICS[g]], sample=unit.submission.sample)
        for g in unit.groups
    ]


def _score_unit(unit: _Unit) -> list[GroupResult]:
    try:
        return score_task(unit.task, unit.submission, worker_engine(), unit.groups)
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
    progress: ProgressOption = None,
    ks: Sequence[int] | None = None,
    model: str | None = None,
    task_ids: Sequence[str] | None = None,
    executor: Executor | None = None,
) -> ScoreReport:
    """Score every submission whose task is in ``suite``; the others are reported in ``errors``.

    A task may have several submissions (samples); the totals give pass@1 and pass@k for each k
    of ``ks`` (default: 1 and the largest number of samples of a task). ``task_ids`` keeps only
    those tasks' submissions (and raises ``NoTaskSelected`` when none of the ids is a suite task).
    ``model`` names whose submissions these are, for the report's provenance.

    Tasks of the suite without a submission are left out of the report (and of the totals).
    Units of work run on ``executor`` (default: ``workers`` local processes, one per core without
    it); ``workers=1`` scores in this process (no protection against a crashing evaluator).
    Raises ``BackendUnavailable`` when the requested engine cannot run here.
    """
    from veriscale.backends.select import resolve_backend_name

    started = time.perf_counter()
    # raises here when Lean is asked for but not usable, not in every worker's initializer
    engine = resolve_backend_name(backend)
    if workers is None and executor is not None:
        workers = executor.workers  # recorded as given; the executor runs the work
    options: dict[str, object] = {"backend": backend, "workers": workers, "ks": list(ks) if ks else None,
                                  "tasks": sorted(task_ids) if task_ids else None}
    provenance = collect_provenance(Path(suite), engine, options, model)
    loaded = load_benchmark(suite)
    tasks = {t.id: t for t in loaded.tasks}
    if task_ids:
        wanted = set(task_ids)
        if not wanted & (set(tasks) | {f.task for f in loaded.failures}):
            raise NoTaskSelected(f"none of the task ids {', '.join(sorted(wanted))} is a task of {suite}")
        tasks = {i: t for i, t in tasks.items() if i in wanted}
        submissions = [s for s in submissions if s.task in wanted]
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
            unscored.append(TaskScore(task=task.id, sample=submission.sample,
                                      reasons=["the submission has no section to score"]))
            continue
        units.append(_Unit(task, submission, groups))
    # Biggest tasks first keeps every worker busy until the end.
    units.sort(key=lambda u: -(sum(1 + len(t.unexpected) for t in u.task.tests) + len(u.task.reject_inputs)))
    batches = (executor or LocalExecutor(workers)).map(
        _score_unit, units, setup=worker_engine_setup(engine), crashed=_crashed_unit,
        split=_split_unit, merge=_merge_parts, progress=as_progress(progress, "score"), memory_limit=worker_memory_limit(engine),
    )
    results = [result for batch in batches for result in batch]

    by_sample: dict[tuple[str, int], list[GroupResult]] = {}
    for result in results:
        by_sample.setdefault((result.task, result.sample), []).append(result)
    scores = [merge_groups(task_id, group_results, sample)
              for (task_id, sample), group_results in by_sample.items()]
    scores.extend(unscored)
    scores.sort(key=lambda s: (s.task, s.sample))
    return ScoreReport(
        suite=str(suite),
        model=model,
        provenance=provenance,
        engine=engine,
        seconds=round(time.perf_counter() - started, 2),
        checks=sum(s.checks for s in scores),
        tasks=scores,
        totals=compute_totals(scores, ks),
        errors=errors,
        skipped_checks=sum(sum(s.skipped.values()) for s in scores),
        missing=sorted(set(tasks) - {s.task for s in submissions}),
        caveats=[EMBEDDED_CAVEAT] if engine == "embedded" else [],
    )


def format_report(report: ScoreReport, *, verbose: bool = False, width: int = 160) -> str:
    """One row per task and sample (only the imperfect ones unless ``verbose``) with the first
    reasons below the table, then a TOTAL table: one row per metric with its pass@1 and pass@k
    bounds (``rich`` tables rendered to text)."""
    import io

    from rich.console import Console
    from rich.table import Table

    metrics = [m for m in METRICS if m in report.totals]
    row_metrics = [m for m in BASE_METRICS if m in report.totals]
    several = any(s.sample for s in report.tasks)
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    per_task = Table("task", *row_metrics, box=None, pad_edge=False)
    reasons: list[str] = []
    for score in report.tasks:
        bounds = [score.bound(m) for m in row_metrics]
        if all(b is None or b.lower == 1 for b in bounds) and not verbose:
            continue
        name = f"{score.task}#{score.sample}" if several else score.task
        per_task.add_row(name, *("-" if b is None else f"{b.lower}/{b.upper}" for b in bounds))
        reasons.extend(f"  {name}: {reason[:150]}" for reason in score.reasons[: 3 if not verbose else None])
    if per_task.row_count:
        console.print(per_task)
        for line in reasons:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    ks = sorted({p.k for m in metrics for p in report.totals[m].pass_at_k if p.k != 1})
    totals = Table("TOTAL", "tasks", "samples", "pass@1 (lower-upper)", *(f"pass@{k}" for k in ks), box=None,
                   pad_edge=False)
    for metric in metrics:
        total = report.totals[metric]
        at = {p.k: p for p in total.pass_at_k}
        totals.add_row(metric, str(total.tasks), str(total.samples), f"{total.lower_rate:.3f}-{total.upper_rate:.3f}",
                       *(f"{at[k].lower:.3f}-{at[k].upper:.3f}" if k in at else "-" for k in ks))
    console.print()
    console.print(totals)
    lines = buffer.getvalue().rstrip("\n").splitlines()
    notes = sorted({n for m in metrics for n in report.totals[m].notes})
    lines.extend(f"note: {n}" for n in notes)
    lines.append("")
    tasks = len({s.task for s in report.tasks})
    lines.append(f"{tasks} task(s), {len(report.tasks)} sample(s) scored; a cell is lower/upper bound")
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
