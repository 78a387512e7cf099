"""A benchmark's audit as a record to keep beside the code: only ids, our inputs and the engine's
outputs, never the benchmark's own data.

A full audit of a large benchmark takes long, so its result is computed once (by a benchmark
script) and kept; tests then re-evaluate every counterexample it lists and re-audit a few tasks
to check the audit still finds the same. The record holds, per task:

* the confirmed findings counted per kind, the search's counts, the budget that stopped it,
  whether a clock stopped any of its work (then a re-audit may differ), errors and seconds;
* a digest of the task's whole audit (every finding with its evidence, timings left out), which a
  re-audit must reproduce exactly;
* its counterexamples to ``spec_satisfied``: for a searched input, the input (one of our
  generated inputs) and the reference output (computed by the engine); for a stored test row,
  only which row (``test.json[3]``) -- its input is the benchmark's, read from the data when
  needed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from veriscale.stages.audit.models import AuditOptions, BenchmarkAudit, TaskAudit

__all__ = ["AuditRecord", "RecordedCounterexample", "RecordedTask", "audit_record", "task_digest"]

RECORD_FORMAT = 1


class RecordedCounterexample(BaseModel):
    model_config = ConfigDict(frozen=True)

    where: str
    """``test.json[i]`` (a stored row) or ``search: GENERATOR``."""
    input: str | None = None
    """The searched input (``a := 1; b := [2]``); ``None`` for a stored row."""
    output: str | None = None
    """The reference output on a searched input, as a Lean literal; ``None`` for a stored row."""

    @property
    def stored_row(self) -> int | None:
        """The index of the stored test row, or ``None`` for a searched input."""
        if not self.where.startswith("test.json["):
            return None
        return int(self.where[len("test.json["):].split("]", 1)[0])


class RecordedTask(BaseModel):
    task: str
    digest: str
    found: dict[str, int] = Field(default_factory=dict)
    unconfirmed: int = 0
    searched_inputs: int = 0
    searched_accepted: int = 0
    budget_hit: str | None = None
    clock_stops: int = 0
    clock_dependent: bool = False
    """A clock stopped some of its work: a re-audit may legitimately differ."""
    error: str | None = None
    seconds: float = 0.0
    counterexamples: list[RecordedCounterexample] = Field(default_factory=list)


class AuditRecord(BaseModel):
    format: int = RECORD_FORMAT
    benchmark: str
    engine: str
    options: AuditOptions
    tasks_total: int
    tasks_with_counterexample: list[str]
    tasks_with_errors: list[str] = Field(default_factory=list)
    found: dict[str, int]
    load_failures: list[str] = Field(default_factory=list)
    """Tasks that did not load (by id; their findings are in the full report)."""
    seconds: float = 0.0
    tasks: list[RecordedTask]


def task_digest(audit: TaskAudit) -> str:
    """SHA-256 of the task's audit without its timing: equal exactly when a re-audit finds the same."""
    document: dict[str, Any] = audit.model_dump(mode="json", exclude={"seconds"})
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _counterexamples(audit: TaskAudit) -> list[RecordedCounterexample]:
    found: list[RecordedCounterexample] = []
    for finding in audit.findings:
        if finding.kind != "spec_counterexample":
            continue
        if finding.where.startswith("test.json["):
            found.append(RecordedCounterexample(where=finding.where))
        else:
            found.append(RecordedCounterexample(where=finding.where, input=finding.input, output=finding.output))
    return found


def audit_record(report: BenchmarkAudit, benchmark: str, options: AuditOptions) -> AuditRecord:
    """The record of ``report`` (an audit run with ``options``), naming the benchmark ``benchmark``."""
    return AuditRecord(
        benchmark=benchmark,
        engine=report.engine,
        options=options,
        tasks_total=report.tasks_total,
        tasks_with_counterexample=list(report.tasks_with_counterexample),
        tasks_with_errors=list(report.tasks_with_errors),
        found=dict(report.found),
        load_failures=sorted({f.task for f in report.load_findings}),
        seconds=report.seconds,
        tasks=[
            RecordedTask(
                task=t.task, digest=task_digest(t), found=dict(t.found), unconfirmed=t.unconfirmed,
                searched_inputs=t.searched_inputs, searched_accepted=t.searched_accepted,
                budget_hit=t.budget_hit, clock_stops=t.clock_stops, clock_dependent=t.clock_dependent, error=t.error[:300] if t.error else None, seconds=t.seconds,
                counterexamples=_counterexamples(t),
            )
            for t in report.tasks
        ],
    )
