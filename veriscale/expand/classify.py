"""Classify candidate inputs by the ground-truth precondition and compute their expected outputs.

``precond`` check true: *accept*; false: *reject*; unknown: dropped (counted by reason). An accept
input then gets its expected output from the reference implementation (a ``code`` check); when
that answer is unknown the input is dropped too, since a test without a trustworthy expected
output would be worse than no test. Candidates are processed in batches (at most
``options.check_chunk``, fewer while checks are costly); once 40% of the task's budget is spent,
the rest are dropped and counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind
from veriscale.expand.candidates import Candidate
from veriscale.expand.deadline import ChunkSizer, TaskBudget
from veriscale.expand.models import CandidateCounts, ExpandOptions
from veriscale.task import Task

__all__ = ["CLASSIFY_SHARE", "Classification", "classify_candidates", "unknown_reason"]

CLASSIFY_SHARE = 0.4
"""Fraction of the task's budget that classification may use."""


def unknown_reason(kind: str, answer: Answer) -> str:
    return f"{kind}: {answer.reason.value if answer.reason is not None else 'unknown'}"


@dataclass
class Classification:
    accept: list[tuple[Candidate, Any]] = field(default_factory=list)
    """Accept inputs with their expected outputs (runtime values), in candidate order."""
    reject: list[Candidate] = field(default_factory=list)
    unknown_reasons: Counter[str] = field(default_factory=Counter)


def classify_candidates(
    task: Task,
    backend: Backend,
    candidates: Sequence[Candidate],
    counts: dict[str, CandidateCounts],
    options: ExpandOptions,
    budget: TaskBudget,
) -> Classification:
    """Classify ``candidates`` against ``task``'s ground truth; updates ``counts`` per source."""
    result = Classification()
    sizer = ChunkSizer(start=16, high=options.check_chunk)
    start = 0
    while start < len(candidates):
        if budget.check(CLASSIFY_SHARE):
            for candidate in candidates[start:]:
                counts[candidate.source].dropped_deadline += 1
            break
        batch = candidates[start : start + sizer.size]
        start += len(batch)
        verdicts = budget.run(backend, task, [Check(kind=CheckKind.PRECOND, args=c.args) for c in batch])
        checked = budget.last_batch
        accepted: list[Candidate] = []
        for candidate, answer in zip(batch, verdicts, strict=True):
            tally = counts[candidate.source]
            if answer.status == "true":
                accepted.append(candidate)
            elif answer.status == "false":
                tally.reject += 1
                result.reject.append(candidate)
            else:
                tally.unknown += 1
                result.unknown_reasons[unknown_reason("precond", answer)] += 1
        outputs = budget.run(backend, task, [Check(kind=CheckKind.CODE, args=c.args) for c in accepted])
        computed = budget.last_batch
        for candidate, answer in zip(accepted, outputs, strict=True):
            tally = counts[candidate.source]
            if answer.status == "value":
                tally.accept += 1
                result.accept.append((candidate, answer.value))
            else:
                tally.code_unknown += 1
                result.unknown_reasons[unknown_reason("code", answer)] += 1
        sizer.record(checked + computed)
    return result
