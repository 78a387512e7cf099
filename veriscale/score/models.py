"""The score report: per task and metric a lower and an upper bound, with the reasons."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

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


class TaskScore(BaseModel):
    task: str
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


class MetricTotal(BaseModel):
    tasks: int
    lower: int
    upper: int
    lower_rate: float
    upper_rate: float


class ScoreReport(BaseModel):
    suite: str
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

    @property
    def checks_per_second(self) -> float:
        return self.checks / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The issue's layout: a task's metric is left out when its submission lacks the sections."""
        tasks = []
        for score in self.tasks:
            entry: dict[str, Any] = {"task": score.task}
            for metric in METRICS:
                bound = score.bound(metric)
                if bound is not None:
                    entry[metric] = {"lower": bound.lower, "upper": bound.upper}
            entry["reasons"] = list(score.reasons)
            if score.skipped:
                entry["skipped"] = dict(score.skipped)
            entry["checks"] = score.checks
            entry["seconds"] = score.seconds
            tasks.append(entry)
        return {
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


def compute_totals(scores: list[TaskScore]) -> dict[str, MetricTotal]:
    """Sum the bounds per metric over the tasks that have it."""
    totals: dict[str, MetricTotal] = {}
    for metric in METRICS:
        bounds = [b for s in scores if (b := s.bound(metric)) is not None]
        if not bounds:
            continue
        lower = sum(b.lower for b in bounds)
        upper = sum(b.upper for b in bounds)
        totals[metric] = MetricTotal(
            tasks=len(bounds), lower=lower, upper=upper,
            lower_rate=round(lower / len(bounds), 4), upper_rate=round(upper / len(bounds), 4),
        )
    return totals
