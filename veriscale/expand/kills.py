"""Adversaries against the accept inputs: the complete kill matrix and the proved wrong outputs.

Every adversary that passes the safety screen is run (``code`` checks on
``task.with_sections(**adversary.sections)``) on every accept input of the task -- no sampling.
Where its output differs from the expected output (``compare.same_as_printed``), the ground-truth
postcondition is asked about (input, that output); the adversary is *killed* by the test when the
answer is ``false``. Each distinct (input, output) pair is asked about once, whichever adversary
produced it. Adversaries that never differ from the reference (equivalent on these inputs) or
answer nothing (do not compile or evaluate here) are discarded and counted.

Wrong outputs are also made by mutating each expected output (``mutate_outputs``) and proved the
same way. The unexpected outputs written for a test are chosen from the proved ones, at most
``options.unexpected_cap`` per test, deterministically (most-produced adversary outputs first, a
few output mutants reserved).

Before they are proved, outputs are written to their stored form (``values.to_json``) and read
back, so the value proved wrong is exactly the value the suite stores.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind
from veriscale.backends.safety import screen_sections
from veriscale.compare import same_as_printed
from veriscale.expand.deadline import Deadline
from veriscale.expand.models import AdversaryCounts, ExpandOptions, UnexpectedCounts
from veriscale.lean_types import LeanType, StructDef
from veriscale.store import KillRow
from veriscale.task import Task
from veriscale.values import ValueParseError, parse_value, to_json

if TYPE_CHECKING:
    from veriscale.generate.adversaries import Adversary

__all__ = [
    "ADVERSARY_SHARE",
    "ADVERSARY_SOURCES",
    "AcceptInput",
    "KillResult",
    "OutputMutator",
    "WrongOutput",
    "run_kill_matrix",
    "select_unexpected",
    "stored_form",
]

ADVERSARY_SHARE = 0.85
"""Fraction of the task's deadline after which no further adversary is run."""
ADVERSARY_SOURCES = ("template", "mutant", "llm")

OutputMutator = Callable[..., list[Any]]
"""``mutate_outputs(value, return_type, structs, *, seed, n) -> list`` (see ``generate.adversaries``)."""


@dataclass(frozen=True)
class AcceptInput:
    test: int
    """Position of the test in the output ``test.json``."""
    key: str
    args: dict[str, Any]
    expected: Any


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
    """Test position -> ids of the kept adversaries it kills, in adversary order."""
    wrong: dict[int, dict[str, WrongOutput]] = field(default_factory=dict)
    """Test position -> proved wrong outputs by their stored text, in order of discovery."""
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
    """Asks the ground-truth postcondition about (input, output) pairs, each pair once."""

    def __init__(self, task: Task, backend: Backend, inputs: Sequence[AcceptInput]) -> None:
        self.task = task
        self.backend = backend
        self.inputs = inputs
        self.verdicts: dict[tuple[int, str], str] = {}

    def prove(self, pairs: Sequence[tuple[int, str, Any]]) -> None:
        """Decide every new ``(input position, output text, output value)``."""
        fresh: list[tuple[int, str, Any]] = []
        queued: set[tuple[int, str]] = set()
        for i, text, value in pairs:
            if (i, text) not in self.verdicts and (i, text) not in queued:
                queued.add((i, text))
                fresh.append((i, text, value))
        if not fresh:
            return
        checks = [Check(kind=CheckKind.POSTCOND, args=self.inputs[i].args, output=value) for i, _, value in fresh]
        answers: list[Answer] = self.backend.run(self.task, checks)
        for (i, text, _), answer in zip(fresh, answers, strict=True):
            self.verdicts[(i, text)] = answer.status

    def counts(self) -> Counter[str]:
        return Counter(self.verdicts.values())


def run_kill_matrix(
    task: Task,
    backend: Backend,
    inputs: Sequence[AcceptInput],
    adversaries: Sequence[Adversary],
    *,
    return_type: LeanType,
    structs: dict[str, StructDef],
    options: ExpandOptions,
    deadline: Deadline,
    output_mutator: OutputMutator | None = None,
) -> KillResult:
    """Run every adversary on every accept input, prove the differing outputs, mutate outputs."""
    result = KillResult(counts={source: AdversaryCounts() for source in ADVERSARY_SOURCES})
    prover = _Prover(task, backend, inputs)
    wrong: dict[int, dict[str, WrongOutput]] = {i: {} for i in range(len(inputs))}
    killed_by: dict[int, list[str]] = {i: [] for i in range(len(inputs))}
    code_checks = [Check(kind=CheckKind.CODE, args=item.args) for item in inputs]

    for adversary in adversaries:
        tally = result.counts.setdefault(adversary.source, AdversaryCounts())
        tally.generated += 1
        screen = screen_sections(adversary.sections, origin=adversary.id)
        if not screen.ok:
            tally.unsafe += 1
            result.unsafe_findings[adversary.id] = [f.format() for f in screen.findings][:5]
            continue
        if deadline.check(ADVERSARY_SHARE):
            tally.skipped_deadline += 1
            continue
        if not inputs:
            tally.all_unknown += 1
            continue
        answers = backend.run(task.with_sections(**adversary.sections), code_checks)
        answered = False
        differing: list[tuple[int, str, Any, Any]] = []  # (input, text, value read back, stored)
        for i, answer in enumerate(answers):
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
            continue
        if not differing:
            tally.equivalent += 1
            continue
        kept_index = len(result.kept)
        result.kept.append(adversary)
        tally.kept += 1
        prover.prove([(i, text, back) for i, text, back, _ in differing])
        was_killed = False
        for i, text, back, stored in differing:
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

    # Output mutation: wrong outputs that no program had to produce.
    if output_mutator is not None and options.output_mutants_per_test > 0 and inputs:
        if deadline.check(1.0):
            pass  # no time left: the adversaries' wrong outputs are all there is
        else:
            pairs: list[tuple[int, str, Any, Any]] = []
            for i, item in enumerate(inputs):
                seed = _derived_seed(options.seed, task.id, item.key)
                try:
                    mutants = output_mutator(
                        item.expected, return_type, structs, seed=seed, n=options.output_mutants_per_test
                    )
                except (ValueError, TypeError, ValueParseError, RecursionError):
                    continue  # a type the output mutator cannot handle
                for mutant in mutants:
                    result.unexpected.output_mutants_tried += 1
                    if same_as_printed(mutant, item.expected):
                        continue
                    form = stored_form(mutant, return_type, structs)
                    if form is None or same_as_printed(form[1], item.expected):
                        continue
                    stored, back, text = form
                    pairs.append((i, text, back, stored))
            prover.prove([(i, text, back) for i, text, back, _ in pairs])
            for i, text, back, stored in pairs:
                if prover.verdicts[(i, text)] == "false" and text not in wrong[i]:
                    wrong[i][text] = WrongOutput(value=back, stored=stored, from_mutation=True)

    verdicts = prover.counts()
    result.unexpected.proved_wrong = verdicts.get("false", 0)
    result.unexpected.postcond_accepted = verdicts.get("true", 0)
    result.unexpected.postcond_unknown = verdicts.get("unknown", 0) + verdicts.get("value", 0)
    result.wrong = {inputs[i].test: outputs for i, outputs in wrong.items()}
    result.killed_by = {inputs[i].test: ids for i, ids in killed_by.items()}
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
