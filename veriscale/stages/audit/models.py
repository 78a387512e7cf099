"""What ``veriscale audit`` reports: findings with their evidence, per task and for a benchmark."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from veriscale.stages.expand.budget import DEFAULT_TASK_STEPS

__all__ = ["FINDING_KINDS", "AuditOptions", "BenchmarkAudit", "Finding", "FindingKind", "TaskAudit"]

FindingKind = Literal[
    "spec_counterexample",
    "reference_fails",
    "reference_beyond_budget",
    "expected_mismatch",
    "test_rejected_by_precond",
    "reject_accepted",
    "unexpected_accepted",
    "duplicate",
    "unreadable_value",
    "broken_marker",
    "task_unloadable",
]
FINDING_KINDS: tuple[str, ...] = FindingKind.__args__  # type: ignore[attr-defined]
"""In the order the report lists them (most serious first)."""

FINDING_TITLES: dict[str, str] = {
    "spec_counterexample": "reference output falsifies the reference postcondition (spec_satisfied is false)",
    "reference_fails": "the precondition accepts, the reference code fails (an error, e.g. an index out of range)",
    "reference_beyond_budget": "the precondition accepts, the reference code gives no result within the engine's "
    "budget (an engine limit on a large input: says nothing against the task)",
    "expected_mismatch": "stored expected output differs from the reference code's output",
    "test_rejected_by_precond": "stored test input the precondition rejects",
    "reject_accepted": "stored reject input the precondition accepts",
    "unexpected_accepted": "stored unexpected output the ground-truth postcondition accepts",
    "duplicate": "duplicate input or output",
    "unreadable_value": "stored value that does not read at its type (truncated or unparseable)",
    "broken_marker": "task.lean markers that do not parse",
    "task_unloadable": "task files that do not load",
}


class Finding(BaseModel):
    """One thing wrong with a task, with what shows it."""

    model_config = ConfigDict(frozen=True)

    task: str
    kind: FindingKind
    where: str
    """Which stored row (``test.json[3]``, ``reject_inputs.json[0]``...) or, for a searched input,
    the generator that produced it (``search: synthesis``)."""
    input: str = ""
    """The input, one ``name := Lean literal`` per parameter (re-readable)."""
    output: str = ""
    """The output involved (the reference's, the stored one), as a Lean literal."""
    detail: str = ""
    """Which conjuncts fail, the engine's error, what the stored value was..."""
    confirmed: bool = True
    """Re-evaluated from the evidence alone (input parsed back from its text) with the same
    verdict; static findings (duplicates, unreadable values, markers) are confirmed by reading
    the files a second time."""


class AuditOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 42
    search: bool = True
    """Search for counterexamples beyond the stored rows (generated inputs)."""
    synthesis_limit: int = Field(default=400, ge=0)
    mutants_per_seed: int = Field(default=30, ge=0)
    boundary_limit: int = Field(default=200, ge=0)
    task_steps: int | None = Field(default=DEFAULT_TASK_STEPS // 2, ge=1)
    """Step budget of the search of one task (the stored rows are always checked in full)."""
    task_backstop_s: float | None = Field(default=600.0, gt=0)
    max_findings_per_kind: int = Field(default=5, ge=1)
    """Searched findings kept per task and kind (all are counted in ``TaskAudit.found``)."""


class TaskAudit(BaseModel):
    task: str
    findings: list[Finding] = Field(default_factory=list)
    found: dict[str, int] = Field(default_factory=dict)
    """Confirmed findings per kind, before ``max_findings_per_kind`` kept the first few."""
    unconfirmed: int = 0
    """Findings whose re-evaluation did not give the same verdict (not listed)."""
    searched_inputs: int = 0
    searched_accepted: int = 0
    undecided: dict[str, int] = Field(default_factory=dict)
    """Checks the engine could not decide, by ``kind: reason`` (never counted as findings)."""
    budget_hit: str | None = None
    """The budget that stopped the search: ``steps`` (deterministic) or ``backstop`` (the wall
    clock: depends on the machine's load)."""
    clock_stops: int = 0
    """Checks the engine stopped by a clock (its CPU backstop) instead of by counting steps. With
    none and no ``backstop`` budget hit, a task's audit is the same on every run and machine;
    otherwise what was undecided, found or confirmed may differ with the load."""
    error: str | None = None
    """Why this task was not audited (its signature does not type, its audit raised, its worker
    process died twice); its findings are then incomplete."""
    seconds: float = 0.0
    """Wall clock of this task's audit (the only field that differs between identical runs)."""

    @property
    def has_counterexample(self) -> bool:
        return self.found.get("spec_counterexample", 0) > 0

    @property
    def clock_dependent(self) -> bool:
        """A clock, not a step count, stopped some of this task's work (see ``clock_stops``)."""
        return self.clock_stops > 0 or self.budget_hit == "backstop"


class BenchmarkAudit(BaseModel):
    source: str
    engine: str
    seed: int
    tasks_total: int = 0
    tasks_with_findings: int = 0
    tasks_with_counterexample: list[str] = Field(default_factory=list)
    """Tasks with a concrete, confirmed counterexample to ``spec_satisfied``."""
    tasks_with_errors: list[str] = Field(default_factory=list)
    """Tasks whose audit did not complete (``TaskAudit.error``)."""
    found: dict[str, int] = Field(default_factory=dict)
    """Confirmed findings per kind over all tasks."""
    load_findings: list[Finding] = Field(default_factory=list)
    """Broken markers and unloadable tasks (those tasks are not audited further)."""
    tasks: list[TaskAudit] = Field(default_factory=list)
    seconds: float = 0.0
