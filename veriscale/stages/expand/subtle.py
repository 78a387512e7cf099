"""Subtle adversaries for the kill matrix: the mutants of ``generate.adversaries.subtle`` that
reproduce every original test's expected output.

A wrong program the original tests already catch adds nothing the suite needs to show (and is no
REFUTE item); running it on every accept input costs as much as any other adversary. So each
candidate is first run on the original tests alone (a handful of checks), and only those that
reproduce every expected output there, decided, go to the kill matrix -- at most ``cap``, in a
seeded order spread over kinds of change (round robin over groups such as "result + 1 when the
list is long", "the parameter reversed when it has a repeated element", "index off by one"),
then second-order mutants: two changes at once, each of which passes the original tests on its
own (from the subtle first-order mutants and the single-change mutants of ``.mutants``).

Deterministic: the order depends on the seed and the task, and whether a candidate passes depends
on the engine's answers on the original tests (decided within the step budget).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

from veriscale.backends.base import Backend, Check, CheckKind
from veriscale.generate.adversaries import Adversary, all_mutations
from veriscale.generate.adversaries.mutants import Mutation
from veriscale.generate.adversaries.subtle import combine, subtle_mutations
from veriscale.lean.printing import same_as_printed
from veriscale.lean.safety import screen_sections
from veriscale.stages.expand.budget import TaskBudget
from veriscale.stages.expand.kills import EXTRA_ADVERSARY_SHARE, AcceptInput
from veriscale.stages.expand.models import SubtleCounts
from veriscale.task import Task

__all__ = ["SECOND_ORDER_SHARE", "mutation_adversary", "select_subtle_adversaries", "selection_group"]

SECOND_ORDER_SHARE = 0.25
"""Share of the cap kept for second-order mutants (when there are first-order ones to pair)."""
TRIES_PER_PLACE = 3
"""Candidates tried on the original tests per place of the cap, at most."""
PREFILTER_SHARE = EXTRA_ADVERSARY_SHARE / 3
"""No candidate is tried once this share of the task's budget is spent."""


def mutation_adversary(task: Task, mutation: Mutation) -> Adversary:
    return Adversary(
        id=mutation.id,
        source="mutant",
        description=f"mutant ({mutation.family}): {mutation.description}",
        sections={mutation.section: mutation.apply(task.section(mutation.section))},
    )


def selection_group(mutation: Mutation) -> str:
    """What a mutant is about, thresholds and positions left out (``guard-result[xs.len>K]:+K``)."""
    if mutation.family.startswith("guard-"):
        return re.sub(r"\d+", "K", mutation.change)
    if mutation.family == "bound":
        return "bound:" + mutation.change.split("@")[0]
    return mutation.family


def _rank(seed: int, task: Task, *parts: str) -> str:
    return hashlib.sha256("\x1f".join((str(seed), task.id, *parts)).encode("utf-8")).hexdigest()


def _round_robin(task: Task, mutations: Sequence[Mutation], seed: int) -> list[Mutation]:
    """Every mutation once: one of each group per round, groups and members in seeded order."""
    groups: dict[str, list[Mutation]] = {}
    for mutation in mutations:
        groups.setdefault(selection_group(mutation), []).append(mutation)
    order = sorted(groups, key=lambda g: _rank(seed, task, "group", g))
    queues = [sorted(groups[g], key=lambda m: _rank(seed, task, m.id)) for g in order]
    out: list[Mutation] = []
    for depth in range(max((len(q) for q in queues), default=0)):
        out.extend(q[depth] for q in queues if depth < len(q))
    return out


class _Prefilter:
    """Runs candidates on the original tests and remembers who passes."""

    def __init__(
        self, task: Task, backend: Backend, originals: Sequence[AcceptInput], budget: TaskBudget, counts: SubtleCounts
    ) -> None:
        self.task = task
        self.backend = backend
        self.originals = originals
        self.checks = [Check(kind=CheckKind.CODE, args=item.args) for item in originals]
        self.budget = budget
        self.counts = counts

    def passes(self, mutation: Mutation) -> bool | None:
        """Whether the mutant reproduces every original expected output (``None``: not tried)."""
        if self.budget.spent(PREFILTER_SHARE):
            self.counts.not_tried_budget += 1
            return None
        adversary = mutation_adversary(self.task, mutation)
        if not screen_sections(adversary.sections, origin=adversary.id).ok:
            return False
        self.counts.tried += 1
        answers = self.budget.run(self.backend, self.task.with_sections(**adversary.sections), self.checks)
        if any(answer.status != "value" for answer in answers):
            self.counts.undecided += 1
            return False
        if all(same_as_printed(a.value, item.expected) for a, item in zip(answers, self.originals, strict=True)):
            return True
        self.counts.caught_by_original += 1
        return False

    def take_passing(
        self,
        candidates: Iterable[Mutation],
        taken: set[tuple[tuple[str, str], ...]],
        places: int,
        *,
        tries: int,
    ) -> list[Mutation]:
        """Up to ``places`` of ``candidates``, in their order, that pass the original tests and make
        a section text none of ``taken`` makes (``taken`` gains theirs). At most ``tries`` candidates
        are run (one whose text is taken costs none), and none once the task's budget is spent."""
        out: list[Mutation] = []
        tried = 0
        for mutation in candidates:
            if len(out) >= places or tried >= tries:
                break
            key = ((mutation.section, mutation.apply(self.task.section(mutation.section))),)
            if key in taken:
                continue
            tried += 1
            verdict = self.passes(mutation)
            if verdict is None:
                break
            if verdict:
                taken.add(key)
                out.append(mutation)
        return out


def select_subtle_adversaries(
    task: Task,
    backend: Backend,
    originals: Sequence[AcceptInput],
    budget: TaskBudget,
    *,
    seed: int,
    cap: int,
    exclude: Sequence[Adversary] = (),
) -> tuple[list[Adversary], SubtleCounts]:
    """At most ``cap`` subtle adversaries that pass the original tests (see the module doc), none
    with the sections of one of ``exclude`` (the other adversaries); and the counts."""
    counts = SubtleCounts()
    if cap <= 0 or not originals:
        return [], counts
    first_order = subtle_mutations(task)
    counts.candidates = len(first_order)
    taken = {tuple(sorted(a.sections.items())) for a in exclude}
    prefilter = _Prefilter(task, backend, originals, budget, counts)
    second_places = max(1, round(cap * SECOND_ORDER_SHARE))
    first_places = cap - second_places
    chosen = prefilter.take_passing(_round_robin(task, first_order, seed), taken, first_places,
                                    tries=TRIES_PER_PLACE * cap)
    survivors = [m for m in chosen if not m.family.startswith("guard-")]
    chosen += _second_order(task, prefilter, survivors, seed, cap - len(chosen), taken)
    counts.passed = len(chosen)
    return [mutation_adversary(task, m) for m in chosen], counts


def _second_order(
    task: Task,
    prefilter: _Prefilter,
    survivors: list[Mutation],
    seed: int,
    places: int,
    taken: set[tuple[tuple[str, str], ...]],
) -> list[Mutation]:
    """Pairs of single changes that each pass the original tests, and pass them together."""
    if places <= 0:
        return []
    singles = list(survivors)
    for mutation in sorted(all_mutations(task), key=lambda m: _rank(seed, task, "single", m.id)):
        if len(singles) >= len(survivors) + places * TRIES_PER_PLACE:
            break
        if prefilter.passes(mutation):
            singles.append(mutation)
    pairs = [combine(a, b) for i, a in enumerate(singles) for b in singles[i + 1 :]]
    ranked = sorted((p for p in pairs if p is not None), key=lambda m: _rank(seed, task, "pair", m.id))
    return prefilter.take_passing(ranked, taken, places, tries=places * TRIES_PER_PLACE)
