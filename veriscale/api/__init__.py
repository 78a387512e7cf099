"""VeriScale's public Python API: the pipeline's commands as functions (``import veriscale``).

Every function takes its inputs, a typed model of the command's own knobs
(:mod:`veriscale.api.options`) and the keyword arguments every command shares:

* ``backend`` -- the engine: ``embedded``, ``lean`` or ``auto``;
* ``tasks`` -- only these task ids (none of them in the benchmark raises :class:`NoTaskSelected`);
* ``executor`` -- where tasks run: an :class:`~veriscale.parallel.ExecutorConfig` (local worker
  processes or Ray), an :class:`~veriscale.parallel.Executor`, or ``None`` for one local worker
  per core;
* ``progress`` -- a callback receiving :class:`ProgressEvent` as units finish.

The functions return the stage's report models and write only where they are told to (``out``);
nothing is printed. Mistakes of the caller raise exceptions the CLI turns into one line and exit
code 2: :class:`NoTaskSelected`, :class:`~veriscale.store.RunMismatchError`,
:class:`~veriscale.stages.reduce.ExactCoverUnavailable`, :class:`~veriscale.stages.reduce.RecipeError`,
:class:`~veriscale.backends.select.BackendUnavailable`, :class:`~veriscale.stages.report.ReportInputError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from veriscale.api.options import (
    AuditOptions,
    ExpandOptions,
    PowerOptions,
    ProgressCallback,
    ProgressEvent,
    ReduceOptions,
    ReportOptions,
    ScoreOptions,
    ValidateOptions,
)
from veriscale.backends.base import Backend
from veriscale.backends.select import BackendUnavailable, resolve_backend_name
from veriscale.backends.select import make_backend as _make_backend
from veriscale.benchmark import load_benchmark
from veriscale.llm import LLMConfig
from veriscale.parallel import Executor, ExecutorConfig, Progress, make_executor
from veriscale.stages.audit import BenchmarkAudit, audit_benchmark

# ``evaluate`` is the eval stage's own entry point, with its own options model (EvalOptions)
from veriscale.stages.evaluate import run_eval as evaluate
from veriscale.stages.expand import ExpandSummary, expand_benchmark
from veriscale.stages.power import PowerReport, measure_power
from veriscale.stages.reduce import ExactCoverUnavailable, RecipeError, ReduceReport, reduce_suite
from veriscale.stages.report import ReportInputError, ReportResult, build_report
from veriscale.stages.score import NoTaskSelected, ScoreReport, Submission, load_submissions, score_suite
from veriscale.stages.validate import ValidationReport, validate_benchmark
from veriscale.store import RunMismatchError

__all__ = [
    "AuditOptions",
    "BackendUnavailable",
    "ExactCoverUnavailable",
    "ExecutorConfig",
    "ExpandOptions",
    "NoTaskSelected",
    "PowerOptions",
    "ProgressCallback",
    "ProgressEvent",
    "RecipeError",
    "ReduceOptions",
    "ReportInputError",
    "ReportOptions",
    "RunMismatchError",
    "ScoreOptions",
    "ValidateOptions",
    "audit",
    "evaluate",
    "expand",
    "load_benchmark",
    "load_submissions",
    "make_backend",
    "power",
    "reduce",
    "report",
    "score",
    "validate",
]

ExecutorSpec = ExecutorConfig | Executor | None


def make_backend(name: str = "auto") -> Backend:
    """An engine by name (``embedded``, ``lean`` or ``auto``); close it when done.
    Raises :class:`BackendUnavailable` when it cannot run here."""
    return _make_backend(name)


# ---------------------------------------------------------------------------------------------
# Shared plumbing


def _executor(spec: ExecutorSpec) -> Executor:
    return spec if isinstance(spec, Executor) else make_executor(spec)


def _stage_progress(callback: ProgressCallback | None, stage: str) -> Progress | None:
    """The stages' ``(done, total)`` callback, reporting to ``callback`` as events."""
    if callback is None:
        return None
    return lambda done, total: callback(ProgressEvent(stage, done, total))


def _require_tasks(benchmark: str | Path, tasks: Sequence[str] | None) -> None:
    """Raise :class:`NoTaskSelected` when ``tasks`` names none of ``benchmark``'s tasks (a task
    that failed to load counts as present: its failure is reported by the stage)."""
    if not tasks:
        return
    loaded = load_benchmark(benchmark)
    present = {t.id for t in loaded.tasks} | {f.task for f in loaded.failures if f.task}
    if not set(tasks) & present:
        raise NoTaskSelected(f"none of the task ids {', '.join(sorted(set(tasks)))} is a task of {benchmark}")


def _ids(tasks: Sequence[str] | None) -> list[str] | None:
    return list(tasks) if tasks else None


# ---------------------------------------------------------------------------------------------
# The commands


def validate(
    benchmark: str | Path,
    options: ValidateOptions | None = None,
    *,
    backend: str = "embedded",
    tasks: Sequence[str] | None = None,
    executor: ExecutorSpec = None,
    progress: ProgressCallback | None = None,
) -> ValidationReport:
    """Check an engine against a benchmark's stored answers (which came from real Lean)."""
    del options  # no knob of its own yet
    engine = resolve_backend_name(backend)
    _require_tasks(benchmark, tasks)
    return validate_benchmark(Path(benchmark), backend_name=engine, task_ids=_ids(tasks),
                              executor=_executor(executor), progress=_stage_progress(progress, "validate"))


def expand(
    benchmark: str | Path,
    out: str | Path,
    options: ExpandOptions | None = None,
    *,
    backend: str = "embedded",
    tasks: Sequence[str] | None = None,
    llm: LLMConfig | None = None,
    executor: ExecutorSpec = None,
    progress: ProgressCallback | None = None,
) -> ExpandSummary:
    """Expand a benchmark's suites into ``out`` (resumable; a resumption with other settings
    raises :class:`RunMismatchError`). ``llm`` adds LLM rounds; without it the run is LLM-free."""
    options = options or ExpandOptions()
    engine = resolve_backend_name(backend)
    _require_tasks(benchmark, tasks)
    return expand_benchmark(benchmark, out, seed=options.seed, backend_name=engine, llm=llm, options=options,
                            task_ids=_ids(tasks), executor=_executor(executor),
                            progress=_stage_progress(progress, "expand"))


def reduce(
    suite: str | Path,
    out: str | Path,
    options: ReduceOptions | None = None,
    *,
    tasks: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
) -> ReduceReport:
    """Keep few tests that still kill every adversary of an expanded suite, and few reject inputs
    (a recipe of ``suites/``). Raises :class:`ExactCoverUnavailable` for ``exact`` without its
    extra, :class:`RecipeError` for a bad recipe."""
    options = options or ReduceOptions()
    _require_tasks(suite, tasks)
    if progress is not None:
        progress(ProgressEvent("reduce", 0, 1))
    result = reduce_suite(suite, options.target, out, exact=options.exact,
                          published_compat=options.published_compat, original_dir=options.original,
                          task_ids=_ids(tasks))
    if progress is not None:
        progress(ProgressEvent("reduce", 1, 1))
    return result


def score(
    suite: str | Path,
    submissions: str | Path | Sequence[Submission],
    options: ScoreOptions | None = None,
    *,
    backend: str = "embedded",
    tasks: Sequence[str] | None = None,
    executor: ExecutorSpec = None,
    progress: ProgressCallback | None = None,
) -> ScoreReport:
    """Score submissions (a JSONL file or :class:`Submission` objects) against a suite. Lines of
    the file that cannot be read are listed first in the report's ``errors``."""
    options = options or ScoreOptions()
    if isinstance(submissions, (str, Path)):
        loaded, unreadable = load_submissions(Path(submissions))
    else:
        loaded, unreadable = list(submissions), []
    report = score_suite(Path(suite), loaded, backend=backend, executor=_executor(executor),
                         ks=sorted({1, *options.ks}) if options.ks else None, model=options.model,
                         task_ids=_ids(tasks), progress=_stage_progress(progress, "score"))
    report.errors[:0] = [str(error) for error in unreadable]
    return report


def power(
    suites: Sequence[str | Path],
    options: PowerOptions | None = None,
    *,
    backend: str = "embedded",
    tasks: Sequence[str] | None = None,
    executor: ExecutorSpec = None,
    progress: ProgressCallback | None = None,
) -> PowerReport:
    """How well each suite tells right from wrong (flawed specs caught, mutants killed); the
    first suite's tasks are the ground truth."""
    options = options or PowerOptions()
    if suites:
        _require_tasks(suites[0], tasks)
    return measure_power([Path(s) for s in suites], seed=options.seed, max_flawed=options.max_flawed,
                         max_mutants=options.max_mutants, mutant_orders=options.mutant_orders,
                         pool_size=options.pool_size, pool_seed=options.pool_seed,
                         backend=backend, task_ids=_ids(tasks), every=options.every,
                         task_seconds=options.task_seconds, task_steps=options.task_steps,
                         executor=_executor(executor), progress=_stage_progress(progress, "power"),
                         cache=options.cache)


def audit(
    benchmark: str | Path,
    options: AuditOptions | None = None,
    *,
    backend: str = "embedded",
    tasks: Sequence[str] | None = None,
    executor: ExecutorSpec = None,
    progress: ProgressCallback | None = None,
) -> BenchmarkAudit:
    """Everything wrong with a benchmark's tasks and data, with evidence, each finding re-evaluated."""
    engine = resolve_backend_name(backend)
    _require_tasks(benchmark, tasks)
    return audit_benchmark(benchmark, backend_name=engine, options=options or AuditOptions(),
                           task_ids=_ids(tasks), executor=_executor(executor),
                           progress=_stage_progress(progress, "audit"))


def report(
    out: str | Path,
    options: ReportOptions | None = None,
    *,
    progress: ProgressCallback | None = None,
) -> ReportResult:
    """Write ``report.md``, ``report.html`` and plots from score, power and expand results.
    Raises :class:`ReportInputError` for an unreadable input."""
    options = options or ReportOptions()
    result = build_report(Path(out), scores=options.scores, power=options.power, expand=options.expand,
                          title=options.title)
    if progress is not None:
        progress(ProgressEvent("report", 1, 1))
    return result

