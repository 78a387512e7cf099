"""The score report: per task and metric a lower and an upper bound, with the reasons."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, model_validator

from veriscale.stages.score.provenance import Provenance

BASE_METRICS: tuple[str, ...] = (
    "precond_sound", "precond_complete", "postcond_sound", "postcond_complete", "code", "proof",
)
"""The metrics judged by running checks, in report order."""

COMBINED_METRICS: dict[str, tuple[str, ...]] = {
    "precond_sound_complete": ("precond_sound", "precond_complete"),
    "postcond_sound_complete": ("postcond_sound", "postcond_complete"),
    "precond_postcond": ("precond_sound_complete", "postcond_sound_complete"),
    "code_spec": ("code", "precond_postcond"),
}
"""Verina's combined metrics (its ``DatapointSummaryReport.extract_score``): each passes when all
of its parts pass, and exists only when all of its parts were scored. In dependency order."""

METRICS: tuple[str, ...] = BASE_METRICS + tuple(COMBINED_METRICS)
"""Every metric, in report order."""


class Bound(BaseModel):
    """``lower`` counts an unknown as a failure, ``upper`` as a pass; 0 or 1 each."""

    lower: int
    upper: int

    @model_validator(mode="after")
    def _ordered(self) -> Bound:
        if self.lower not in (0, 1) or self.upper not in (0, 1) or self.lower > self.upper:
            raise ValueError(f"a bound is 0 or 1 with lower <= upper, got {self.lower}/{self.upper}")
        return self


class FailingTests(BaseModel):
    """Every failing test of one metric, and what the first one shows."""

    failing: list[str] = Field(default_factory=list)
    """Stable ids of every test the metric failed (``test 3``, ``test 3 unexpected 2``,
    ``reject 1``: 1-based rows of the suite's files), in suite order."""
    first: str = ""
    """The id of the first failing test."""
    input: dict[str, str] = Field(default_factory=dict)
    """Its input, rendered as Lean values (long values shortened)."""
    returned: str | None = None
    """What the submission gave: the code's output, or the proposition's truth value."""
    expected: str | None = None
    """What it should have given: the expected output, or the required truth value."""
    output: str | None = None
    """For a postcondition: the output it was checked on (an accepted wrong output, for
    ``postcond_sound``; the rejected expected output, for ``postcond_complete``)."""
    halted: str | None = None
    """Why the metric's remaining checks were not run (a check that timed out or errored:
    running on would cost a time limit per test), or ``None`` when every check ran."""


class TaskScore(BaseModel):
    task: str
    sample: int = 0
    """Which sample of the task's submissions this is scored from (0-based)."""
    code: Bound | None = None
    precond_sound: Bound | None = None
    precond_complete: Bound | None = None
    postcond_sound: Bound | None = None
    postcond_complete: Bound | None = None
    proof: Bound | None = None
    precond_sound_complete: Bound | None = None
    postcond_sound_complete: Bound | None = None
    precond_postcond: Bound | None = None
    code_spec: Bound | None = None
    reasons: list[str] = Field(default_factory=list)
    """Why each failed or unknown metric is so: ``"<metric>: test 3: <reason>"``."""
    checks: int = 0
    """Checks the engine answered for this task."""
    failures: dict[str, FailingTests] = Field(default_factory=dict)
    """Per failed metric, its failing tests and the first one's input and values."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Per metric, tests left out because a stored value of the suite cannot be read (or is a
    known defect of the published data); each is named in ``reasons``."""
    seconds: float = 0.0

    def bound(self, metric: str) -> Bound | None:
        value: Bound | None = getattr(self, metric)
        return value

    def add_combined(self) -> None:
        """Set the combined metrics whose parts are all scored (a conjunction of bounds)."""
        for metric, parts in COMBINED_METRICS.items():
            bounds = [self.bound(p) for p in parts]
            if all(b is not None for b in bounds):
                setattr(self, metric, conjunction([b for b in bounds if b is not None]))


def conjunction(bounds: list[Bound]) -> Bound:
    """Bounds of "all of these pass": the lower bound needs every lower bound, likewise upper."""
    return Bound(lower=min(b.lower for b in bounds), upper=min(b.upper for b in bounds))


class PassAtK(BaseModel):
    """pass@k over the tasks, counting unknowns as failures (``lower``) or as passes (``upper``)."""

    k: int
    lower: float
    upper: float


class MetricTotal(BaseModel):
    tasks: int
    """Tasks with at least one scored sample of this metric."""
    lower: int
    """Samples that pass with unknowns counted as failures (= tasks passed, with one sample each)."""
    upper: int
    """Samples that pass with unknowns counted as passes."""
    lower_rate: float
    """pass@1 lower bound: the mean over tasks of the fraction of their samples that pass."""
    upper_rate: float
    """pass@1 upper bound."""
    samples: int = 0
    """Scored samples (the number of tasks, with one sample each)."""
    pass_at_k: list[PassAtK] = Field(default_factory=list)
    """pass@k for each reported k (1 first), each a mean over tasks of the unbiased estimator."""
    notes: list[str] = Field(default_factory=list)
    """Why a requested k is not reported (a task has fewer than k samples)."""


class ScoreReport(BaseModel):
    suite: str
    model: str | None = None
    """Whose submissions were scored (``None``: not said)."""
    engine: str
    seconds: float
    checks: int
    tasks: list[TaskScore]
    totals: dict[str, MetricTotal]
    """Keyed by metric name; a metric no submission had is left out."""
    errors: list[str] = Field(default_factory=list)
    """Submission lines and tasks that could not be scored, named."""
    skipped_checks: int = 0
    """Tests left out for unreadable stored values, over all tasks and metrics."""
    missing: list[str] = Field(default_factory=list)
    """Tasks of the suite without a submission (left out of the report and the totals)."""
    caveats: list[str] = Field(default_factory=list)
    """What the engine could not establish about every submission (said once, not per task)."""
    provenance: Provenance | None = None

    @property
    def checks_per_second(self) -> float:
        return self.checks / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The issue's layout: a task's metric is left out when its submission lacks the sections."""
        tasks = []
        for score in self.tasks:
            entry: dict[str, Any] = {"task": score.task, "sample": score.sample}
            for metric in METRICS:
                bound = score.bound(metric)
                if bound is not None:
                    entry[metric] = {"lower": bound.lower, "upper": bound.upper}
            entry["reasons"] = list(score.reasons)
            if score.failures:
                entry["failures"] = {m: f.model_dump(exclude_none=True) for m, f in score.failures.items()}
            if score.skipped:
                entry["skipped"] = dict(score.skipped)
            entry["checks"] = score.checks
            entry["seconds"] = score.seconds
            tasks.append(entry)
        return {
            "model": self.model,
            "provenance": self.provenance.model_dump() if self.provenance is not None else None,
            "suite": self.suite,
            "engine": self.engine,
            "seconds": self.seconds,
            "checks": self.checks,
            "skipped_checks": self.skipped_checks,
            "tasks": tasks,
            "totals": {name: total.model_dump() for name, total in self.totals.items()},
            "errors": list(self.errors),
            "missing": list(self.missing),
            "caveats": list(self.caveats),
        }


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k from ``n`` samples of which ``c`` pass:
    ``1 - C(n-c, k) / C(n, k)``, the chance that k samples drawn without replacement include a
    passing one. Needs ``1 <= k <= n``."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def default_ks(scores: Sequence[TaskScore]) -> tuple[int, ...]:
    """pass@1, and pass@n for n the largest number of samples a task has (when more than one)."""
    per_task: dict[str, int] = {}
    for score in scores:
        per_task[score.task] = per_task.get(score.task, 0) + 1
    most = max(per_task.values(), default=1)
    return (1,) if most <= 1 else (1, most)


def compute_totals(scores: Sequence[TaskScore], ks: Sequence[int] | None = None) -> dict[str, MetricTotal]:
    """Per metric, over the tasks that have it: sample counts, pass@1 and pass@k bounds.

    pass@k is averaged over tasks (Verina's ``pass_at_k`` summary); a k larger than some task's
    number of samples is not reported for that metric, and a note says so."""
    ks = tuple(sorted(set(ks))) if ks else default_ks(scores)
    totals: dict[str, MetricTotal] = {}
    for metric in METRICS:
        by_task: dict[str, list[Bound]] = {}
        for score in scores:
            bound = score.bound(metric)
            if bound is not None:
                by_task.setdefault(score.task, []).append(bound)
        if not by_task:
            continue
        samples = [b for bounds in by_task.values() for b in bounds]
        fewest = min(len(bounds) for bounds in by_task.values())
        reported: list[PassAtK] = []
        notes: list[str] = []
        for k in ks:
            if k > fewest:
                notes.append(f"pass@{k} not reported: a task has only {fewest} sample(s)")
                continue
            reported.append(PassAtK(k=k, lower=_mean_pass_at_k(by_task, k, "lower"),
                                    upper=_mean_pass_at_k(by_task, k, "upper")))
        totals[metric] = MetricTotal(
            tasks=len(by_task), samples=len(samples),
            lower=sum(b.lower for b in samples), upper=sum(b.upper for b in samples),
            lower_rate=_mean_pass_at_k(by_task, 1, "lower"), upper_rate=_mean_pass_at_k(by_task, 1, "upper"),
            pass_at_k=reported, notes=notes,
        )
    return totals


def _mean_pass_at_k(by_task: dict[str, list[Bound]], k: int, side: str) -> float:
    values = [pass_at_k(len(bounds), sum(getattr(b, side) for b in bounds), k) for bounds in by_task.values()]
    return round(sum(values) / len(values), 4)
