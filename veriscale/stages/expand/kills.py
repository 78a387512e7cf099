"""Adversaries against the accept inputs: the complete kill matrix and the proved wrong outputs.

Every adversary that passes the safety screen is run (``code`` checks on
``task.with_sections(**adversary.sections)``) on every accept input of the task -- no sampling.
Where its output differs from the expected output (``printing.same_as_printed``), the ground-truth
postcondition is asked about (input, that output); the adversary is *killed* by the test when the
answer is ``false``. Each distinct (input, output) pair is asked about once, whichever adversary
produced it. Adversaries that never differ from the reference on the kept inputs (equivalent
there) or answer nothing (do not compile or evaluate here) are discarded and counted.

Wrong outputs are also made by mutating each expected output (``mutate_outputs``) and proved the
same way. The unexpected outputs written for a test are chosen from the proved ones, at most
``options.unexpected_cap`` per test, deterministically (most-produced adversary outputs first, a
few output mutants reserved).

Before they are proved, outputs are written to their stored form (``values.to_json``) and read
back, so the value proved wrong is exactly the value the suite stores.

Cost and the budget: proving is what costs (a postcondition may enumerate every subsequence of
its input). Pairs are proved in batches, the original tests' adversary outputs first, then the
new inputs' by input size, then the output mutants. When the task's budget is spent, the pairs not
yet proved are dropped: a *new* input with an unproved adversary output is dropped altogether
(reported in ``dropped_inputs``), so that the kill matrix stays complete over the inputs kept; an
original test is kept with those pairs unknown (counted); unproved output mutants are just not
used.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.lean.codec import ValueParseError, parse_value, to_json
from veriscale.lean.printing import same_as_printed
from veriscale.lean.safety import screen_sections
from veriscale.lean.types import LeanType, StructDef
from veriscale.stages.expand.budget import ChunkSizer, TaskBudget
from veriscale.stages.expand.models import AdversaryCounts, ExpandOptions, UnexpectedCounts
from veriscale.store import KillRow
from veriscale.task import Task

if TYPE_CHECKING:
    from veriscale.generate.adversaries import Adversary

__all__ = [
    "ADVERSARY_SHARE",
    "ADVERSARY_SOURCES",
    "ADVERSARY_TALLIES",
    "EXTRA_ADVERSARY_SHARE",
    "SUBTLE",
    "PROVE_CHUNK",
    "AcceptInput",
    "KillResult",
    "OutputMutator",
    "WrongOutput",
    "run_kill_matrix",
    "select_unexpected",
    "stored_form",
]

ADVERSARY_SHARE = 0.6
"""Fraction of the task's budget after which no further adversary is run."""
ADVERSARY_SOURCES = ("template", "mutant", "llm")
SUBTLE = "subtle"
"""The tally of the ``extra`` adversaries of :func:`run_kill_matrix` (subtle mutants)."""
ADVERSARY_TALLIES = (*ADVERSARY_SOURCES, SUBTLE)
EXTRA_ADVERSARY_SHARE = 0.45
"""Fraction of the task's budget after which no further ``extra`` adversary is run (they come
after the others and must leave room for proving everybody's outputs)."""
ABANDON_AFTER_TIMEOUTS = 3
"""An adversary with at least this many timeouts, more than half its answers, is not run further."""
PROVE_CHUNK = 128
"""Largest batch of postcondition checks while proving (the budget is looked at between
batches, which are smaller while checks are costly)."""
ADVERSARY_CHUNK = 512
"""Largest batch of one adversary's code checks."""

OutputMutator = Callable[..., list[Any]]
"""``mutate_outputs(value, return_type, structs, *, seed, n) -> list`` (see ``generate.adversaries``)."""


@dataclass(frozen=True)
class AcceptInput:
    key: str
    args: dict[str, Any]
    expected: Any
    original: bool
    """An original test of the benchmark (never dropped)."""


@dataclass
class WrongOutput:
    value: Any
    """As read back from ``stored``."""
    stored: Any
    """The ``values.to_json`` form written to ``test.json``."""
    adversaries: list[int] = field(default_factory=list)
    """Positions (in the kept list) of the adversaries that produced it."""
    from_mutation: bool = False


@dataclass
class KillResult:
    kept: list[Adversary] = field(default_factory=list)
    killed_by: dict[int, list[str]] = field(default_factory=dict)
    """Input position -> ids of the kept adversaries it kills, in adversary order."""
    wrong: dict[int, dict[str, WrongOutput]] = field(default_factory=dict)
    """Input position -> proved wrong outputs by their stored text, in order of discovery."""
    dropped_inputs: set[int] = field(default_factory=set)
    """Positions of new inputs dropped because the budget left their outputs unproved."""
    counts: dict[str, AdversaryCounts] = field(default_factory=dict)
    unexpected: UnexpectedCounts = field(default_factory=UnexpectedCounts)
    kill_rows: list[KillRow] = field(default_factory=list)
    unsafe_findings: dict[str, list[str]] = field(default_factory=dict)

    @property
    def kills(self) -> int:
        return sum(len(ids) for ids in self.killed_by.values())


def stored_form(value: Any, ty: LeanType, structs: dict[str, StructDef]) -> tuple[Any, Any, str] | None:
    """(stored JSON value, the value read back from it, its canonical text), or ``None`` when the
    value cannot be written at ``ty`` (an engine value of the wrong shape)."""
    try:
        stored = to_json(value, ty, structs)
        back = parse_value(stored, ty, structs)
    except (ValueParseError, ValueError, TypeError, RecursionError):
        return None
    return stored, back, json.dumps(stored, ensure_ascii=False, sort_keys=True)


def _derived_seed(*parts: object) -> int:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


class _Prover:
    """Asks the ground-truth postcondition about (input, output) pairs, each pair once.

    Within a priority class, pairs go by input size (the length of the input's canonical text),
    smallest first: a postcondition that enumerates subsequences is quick on small inputs and
    times out on large ones, and the backend stops spending time on a batch whose checks keep
    timing out, so small inputs must come first to be decided at all.
    """

    def __init__(self, task: Task, backend: Backend, inputs: Sequence[AcceptInput]) -> None:
        self.task = task
        self.backend = backend
        self.inputs = inputs
        self.verdicts: dict[tuple[int, str], str] = {}
        self.pending: dict[tuple[int, str], tuple[int, Any]] = {}
        self.skipped: set[tuple[int, str]] = set()
        self.slow_inputs: set[int] = set()
        """Inputs on which the postcondition timed out: their other outputs are not asked about
        (the cost is the input's: enumerating its subsequences does not get cheaper)."""
        self.not_asked = 0

    def ask(self, i: int, text: str, value: Any, priority: int) -> None:
        known = self.pending.get((i, text))
        if known is None or priority < known[0]:
            self.pending[(i, text)] = (priority, value)

    def prove(self, budget: TaskBudget) -> None:
        def rank(pair: tuple[int, str]) -> tuple[int, bool, int, int]:
            i = pair[0]
            item = self.inputs[i]
            return self.pending[pair][0], not item.original, len(item.key), i

        order = sorted(self.pending, key=rank)
        sizer = ChunkSizer(start=16, high=PROVE_CHUNK)
        start = 0
        while start < len(order):
            if budget.check(1.0):
                self.skipped.update(order[start:])
                for pair in order[start:]:
                    self.verdicts[pair] = "unknown"
                break
            batch: list[tuple[int, str]] = []
            while start < len(order) and len(batch) < sizer.size:
                pair = order[start]
                start += 1
                if pair[0] in self.slow_inputs:
                    self.verdicts[pair] = "unknown"  # timed out on this input before: not asked again
                    self.not_asked += 1
                else:
                    batch.append(pair)
            if not batch:
                continue
            checks = [
                Check(kind=CheckKind.POSTCOND, args=self.inputs[i].args, output=self.pending[(i, text)][1])
                for i, text in batch
            ]
            answers: list[Answer] = budget.run(self.backend, self.task, checks)
            sizer.record(budget.last_batch)
            for pair, answer in zip(batch, answers, strict=True):
                self.verdicts[pair] = answer.status
                if answer.reason == UnknownReason.TIMEOUT:
                    self.slow_inputs.add(pair[0])
        self.pending.clear()


def run_kill_matrix(
    task: Task,
    backend: Backend,
    inputs: Sequence[AcceptInput],
    adversaries: Sequence[Adversary],
    *,
    return_type: LeanType,
    structs: dict[str, StructDef],
    options: ExpandOptions,
    budget: TaskBudget,
    output_mutator: OutputMutator | None = None,
    extra: Sequence[Adversary] = (),
) -> KillResult:
    """Run every adversary on every accept input, mutate the outputs, prove the differing outputs.

    ``extra`` adversaries (the subtle mutants) come after the others and yield to them: they are
    run only while less than :data:`EXTRA_ADVERSARY_SHARE` of the budget is spent, their outputs
    are proved after the other adversaries' (before the output mutants), and one whose outputs
    are not all proved is left out of the matrix (counted ``skipped_deadline``) instead of
    costing a new input. They are tallied under ``subtle``."""
    result = KillResult(counts={source: AdversaryCounts() for source in ADVERSARY_TALLIES})
    prover = _Prover(task, backend, inputs)
    # Small inputs first, for the same reason as in _Prover.
    by_size = sorted(range(len(inputs)), key=lambda i: (len(inputs[i].key), i))
    code_checks = [Check(kind=CheckKind.CODE, args=inputs[i].args) for i in by_size]
    # Adversaries that differ somewhere, with [(input, text, value read back, stored)].
    differing_by_adversary: list[tuple[Adversary, bool, list[tuple[int, str, Any, Any]]]] = []

    runs = [(adversary, False) for adversary in adversaries] + [(adversary, True) for adversary in extra]
    for adversary, is_extra in runs:
        tally = result.counts.setdefault(SUBTLE if is_extra else adversary.source, AdversaryCounts())
        tally.generated += 1
        screen = screen_sections(adversary.sections, origin=adversary.id)
        if not screen.ok:
            tally.unsafe += 1
            result.unsafe_findings[adversary.id] = [f.format() for f in screen.findings][:5]
            continue
        answers: list[Answer] = []
        variant = task.with_sections(**adversary.sections)
        code_sizer = ChunkSizer(start=16, high=ADVERSARY_CHUNK)
        cut = False
        while len(answers) < len(code_checks):
            # (an extra adversary left out is optional work: not a budget hit of the task)
            if budget.spent(EXTRA_ADVERSARY_SHARE) if is_extra else budget.check(ADVERSARY_SHARE):
                cut = True
                break
            batch = code_checks[len(answers) : len(answers) + code_sizer.size]
            answers += budget.run(backend, variant, batch)
            code_sizer.record(budget.last_batch)
            timeouts = sum(a.reason == UnknownReason.TIMEOUT for a in answers)
            if timeouts >= ABANDON_AFTER_TIMEOUTS and 2 * timeouts > len(answers):
                # Mostly out of time (a mutant that no longer terminates): the rest would be too.
                rest = len(code_checks) - len(answers)
                answers += [Answer.unknown(UnknownReason.TIMEOUT, "not run: the adversary keeps timing out",
                                           "expand")] * rest
        if cut:
            tally.skipped_deadline += 1  # not run on every input: its row would be incomplete
            continue
        answered = False
        differing: list[tuple[int, str, Any, Any]] = []
        for i, answer in sorted(zip(by_size, answers, strict=True), key=lambda pair: pair[0]):
            if answer.status != "value":
                continue
            answered = True
            if same_as_printed(answer.value, inputs[i].expected):
                continue
            form = stored_form(answer.value, return_type, structs)
            if form is None:
                continue  # not a value of the return type: nothing we could store or prove
            stored, back, text = form
            differing.append((i, text, back, stored))
        if not answered:
            tally.all_unknown += 1
        elif not differing:
            tally.equivalent += 1
        else:
            differing_by_adversary.append((adversary, is_extra, differing))
            for i, text, back, _ in differing:
                prover.ask(i, text, back, priority=1 if is_extra else 0)

    # Output mutation: wrong outputs that no program had to produce.
    mutated: list[tuple[int, str, Any, Any]] = []
    if output_mutator is not None and options.output_mutants_per_test > 0:
        for i, item in enumerate(inputs):
            seed = _derived_seed(options.seed, task.id, item.key)
            try:
                mutants = output_mutator(
                    item.expected, return_type, structs, seed=seed, n=options.output_mutants_per_test
                )
            except (ValueError, TypeError, RecursionError):
                continue  # a type the output mutator cannot handle
            for mutant in mutants:
                result.unexpected.output_mutants_tried += 1
                form = stored_form(mutant, return_type, structs)
                if form is None or same_as_printed(form[1], item.expected):
                    continue
                stored, back, text = form
                mutated.append((i, text, back, stored))
                prover.ask(i, text, back, priority=2)

    prover.prove(budget)

    # New inputs whose adversary outputs were not all proved are dropped (see the module doc).
    adversary_pairs = {
        (i, text) for _, is_extra, differing in differing_by_adversary if not is_extra for i, text, _, _ in differing
    }
    dropped = {i for i, text in prover.skipped if (i, text) in adversary_pairs and not inputs[i].original}
    result.dropped_inputs = dropped
    wrong: dict[int, dict[str, WrongOutput]] = {i: {} for i in range(len(inputs)) if i not in dropped}
    killed_by: dict[int, list[str]] = {i: [] for i in wrong}
    for adversary, is_extra, differing in differing_by_adversary:
        kept = [d for d in differing if d[0] not in dropped]
        tally = result.counts[SUBTLE if is_extra else adversary.source]
        if not kept:
            tally.equivalent += 1  # it differed only on inputs that were dropped
            continue
        if is_extra and any((i, text) in prover.skipped for i, text, _, _ in kept):
            tally.skipped_deadline += 1  # its row would be incomplete, and it must not cost an input
            continue
        kept_index = len(result.kept)
        result.kept.append(adversary)
        tally.kept += 1
        was_killed = False
        for i, text, back, stored in kept:
            killed = prover.verdicts[(i, text)] == "false"
            result.kill_rows.append(
                KillRow(task=task.id, adversary=adversary.id, input_key=inputs[i].key, killed=killed, output=text)
            )
            if not killed:
                continue
            was_killed = True
            killed_by[i].append(adversary.id)
            entry = wrong[i].get(text)
            if entry is None:
                entry = wrong[i][text] = WrongOutput(value=back, stored=stored)
            entry.adversaries.append(kept_index)
        if was_killed:
            tally.killed += 1
    for i, text, back, stored in mutated:
        if i in wrong and prover.verdicts[(i, text)] == "false" and text not in wrong[i]:
            wrong[i][text] = WrongOutput(value=back, stored=stored, from_mutation=True)

    verdicts = Counter(status for (i, _), status in prover.verdicts.items() if i not in dropped)
    result.unexpected.proved_wrong = verdicts.get("false", 0)
    result.unexpected.postcond_accepted = verdicts.get("true", 0)
    result.unexpected.postcond_unknown = verdicts.get("unknown", 0) + verdicts.get("value", 0)
    result.unexpected.unproved_deadline = sum(1 for i, _ in prover.skipped if i not in dropped)
    result.wrong = wrong
    result.killed_by = killed_by
    return result


def select_unexpected(
    outputs: dict[str, WrongOutput], cap: int, existing: Sequence[Any] = ()
) -> list[WrongOutput]:
    """At most ``cap`` proved wrong outputs for one test, deterministically.

    Adversary outputs first, the ones most adversaries produced before others (ties: the earliest
    adversary); up to a fifth of the places (at least one) are kept for output mutants when there
    are some. Outputs that print the same as one already chosen or as one of ``existing`` (the
    original unexpected outputs) are skipped.
    """
    if cap <= 0:
        return []
    from_programs = sorted(
        (w for w in outputs.values() if not w.from_mutation),
        key=lambda w: (-len(w.adversaries), w.adversaries[0] if w.adversaries else 0),
    )
    from_mutation = [w for w in outputs.values() if w.from_mutation]
    reserved = min(len(from_mutation), max(1, cap // 5))
    chosen: list[WrongOutput] = []

    def fresh(w: WrongOutput) -> bool:
        return not any(same_as_printed(w.value, c.value) for c in chosen) and not any(
            same_as_printed(w.value, e) for e in existing
        )

    for w in from_programs:
        if len(chosen) >= cap - reserved:
            break
        if fresh(w):
            chosen.append(w)
    for w in from_mutation + from_programs:
        if len(chosen) >= cap:
            break
        if all(w is not c for c in chosen) and fresh(w):
            chosen.append(w)
    return chosen
