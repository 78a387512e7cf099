"""Classify candidate inputs by the ground-truth precondition and compute their expected outputs.

``precond`` check true: *accept*; false: *reject*; unknown: dropped (counted by reason). An accept
input then gets its expected output from the reference implementation (a ``code`` check); when
that answer is unknown the input is dropped too, since a test without a trustworthy expected
output would be worse than no test. Finally the ground-truth postcondition is asked about
(input, reference output): only *true* makes a test (the ground truth must pass every test it is
scored on); *false* is a counterexample to the task's ``spec_satisfied`` theorem (the reference
code does not meet its own specification: a broken task, reported, never written); undecided
within the budget is dropped and counted (``postcond_unknown``). Candidates are processed in batches (at most
``options.check_chunk``, fewer while checks are costly); once 40% of the task's budget is spent,
the rest are dropped and counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.stages.expand.budget import ChunkSizer, TaskBudget
from veriscale.stages.expand.candidates import Candidate
from veriscale.stages.expand.models import CandidateCounts, ExpandOptions
from veriscale.task import Task

__all__ = ["CLASSIFY_SHARE", "Classification", "SpecCounterexample", "classify_candidates", "unknown_reason"]

CLASSIFY_SHARE = 0.4
"""Fraction of the task's budget that classification may use."""


def unknown_reason(kind: str, answer: Answer) -> str:
    return f"{kind}: {answer.reason.value if answer.reason is not None else 'unknown'}"


@dataclass(frozen=True)
class SpecCounterexample:
    """An accept input on which the reference output falsifies the reference postcondition."""

    candidate: Candidate
    output: Any
    """The reference implementation's output (runtime value)."""


@dataclass
class Classification:
    accept: list[tuple[Candidate, Any]] = field(default_factory=list)
    """Accept inputs with their expected outputs (runtime values), in candidate order; the
    ground-truth postcondition holds on each (decided true)."""
    reject: list[Candidate] = field(default_factory=list)
    counterexamples: list[SpecCounterexample] = field(default_factory=list)
    code_failures: list[tuple[Candidate, Answer]] = field(default_factory=list)
    """Accept inputs on which the reference implementation raised an error or ran out of budget
    (unknown for a reason other than an unsupported feature)."""
    unknown_reasons: Counter[str] = field(default_factory=Counter)


def classify_candidates(
    task: Task,
    backend: Backend,
    candidates: Sequence[Candidate],
    counts: dict[str, CandidateCounts],
    options: ExpandOptions,
    budget: TaskBudget,
    *,
    share: float = CLASSIFY_SHARE,
) -> Classification:
    """Classify ``candidates`` against ``task``'s ground truth; updates ``counts`` per source.
    Stops once ``share`` of the budget is spent (the rest counted as ``dropped_deadline``)."""
    result = Classification()
    sizer = ChunkSizer(start=16, high=options.check_chunk)
    start = 0
    while start < len(candidates):
        if budget.check(share):
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
        with_output: list[tuple[Candidate, Any]] = []
        for candidate, answer in zip(accepted, outputs, strict=True):
            if answer.status == "value":
                with_output.append((candidate, answer.value))
            else:
                counts[candidate.source].code_unknown += 1
                result.unknown_reasons[unknown_reason("code", answer)] += 1
                if answer.reason in (UnknownReason.ERROR, UnknownReason.TIMEOUT):
                    result.code_failures.append((candidate, answer))
        _judge_outputs(task, backend, with_output, counts, budget, result)
        judged = budget.last_batch
        sizer.record(checked + computed + judged)
    return result


def _judge_outputs(
    task: Task,
    backend: Backend,
    rows: Sequence[tuple[Candidate, Any]],
    counts: dict[str, CandidateCounts],
    budget: TaskBudget,
    result: Classification,
) -> None:
    """Keep the (input, reference output) pairs the ground-truth postcondition decides true."""
    checks = [Check(kind=CheckKind.POSTCOND, args=c.args, output=value) for c, value in rows]
    verdicts = budget.run(backend, task, checks)
    for (candidate, value), answer in zip(rows, verdicts, strict=True):
        tally = counts[candidate.source]
        if answer.status == "true":
            tally.accept += 1
            result.accept.append((candidate, value))
        elif answer.status == "false":
            tally.postcond_false += 1
            result.counterexamples.append(SpecCounterexample(candidate, value))
        else:
            tally.postcond_unknown += 1
            result.unknown_reasons[unknown_reason("postcond", answer)] += 1
