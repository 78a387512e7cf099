"""What a suite's power is measured against: flawed specifications and reference-code mutants.

Both are generated once per task from the ground-truth task, deterministically for a seed, and
are the same for every suite compared.

* Flawed specifications: :mod:`veriscale.generate.flawed_specs` (shared with ``reduce``).

* Mutants of the reference ``code_aux``/``code``: first-order (one edit) and second-order (two
  edits at different places), chosen with their own seed (not expand's 42) from power's own
  operators (:mod:`.operators`), which make none of the edits ``veriscale expand`` makes for its
  adversaries: measuring with expand's edits would favour the suites built to kill them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from veriscale.generate.adversaries import all_mutations, llm_free_adversaries, select_mutations
from veriscale.generate.adversaries.mutants import Edit, Mutation
from veriscale.generate.adversaries.subtle import subtle_mutations
from veriscale.generate.flawed_specs import (
    DEFAULT_MAX_FLAWED,
    DEFAULT_SEED,
    ItemKind,
    PowerItem,
    conjunct_drops,
    flawed_specs,
    normalised_text,
)
from veriscale.stages.power.operators import power_mutations
from veriscale.task import Task

__all__ = [
    "DEFAULT_MAX_FLAWED",
    "DEFAULT_MAX_MUTANTS",
    "DEFAULT_SEED",
    "ItemKind",
    "PowerItem",
    "conjunct_drops",
    "expand_edits",
    "expand_overlap",
    "flawed_specs",
    "power_items",
    "power_mutants",
]

DEFAULT_MAX_MUTANTS = 20
"""Per order (first-order and second-order mutants)."""


# ---------------------------------------------------------------------------------------------
# Mutants of the reference implementation


def _rank(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _overlaps(a: Mutation, b: Mutation) -> bool:
    if a.section != b.section:
        return False
    if (a.line, a.col) == (b.line, b.col):
        return True  # two changes of the same token
    for x in a.edits:
        for y in b.edits:
            if x.start < y.end and y.start < x.end:
                return True
            if x.start == x.end == y.start == y.end:
                return True
    return False


def _sections_of(task: Task, mutations: Sequence[Mutation]) -> dict[str, str]:
    by_section: dict[str, list[Edit]] = {}
    for mutation in mutations:
        by_section.setdefault(mutation.section, []).extend(mutation.edits)
    sections: dict[str, str] = {}
    for section, edits in by_section.items():
        text = task.section(section)
        for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
            text = text[: edit.start] + edit.replacement + text[edit.end :]
        sections[section] = text
    return sections


def power_mutants(
    task: Task, *, seed: int = DEFAULT_SEED, max_mutants: int = DEFAULT_MAX_MUTANTS, order: int = 2
) -> list[PowerItem]:
    """Mutants of the reference code made of power's own edits (:mod:`.operators`, none of them
    an edit ``expand`` makes), at most ``max_mutants``, deterministic for the seed.

    ``order=1``: single edits, a seeded choice spread over the operator families.
    ``order=2``: pairs of edits at different places, in seeded hash order, each edit used in at
    most two pairs so that the choice spreads over the code.
    """
    mutations = power_mutations(task)
    reference = {s: normalised_text(task.section(s)) for s in ("code_aux", "code")}
    out: list[PowerItem] = []
    seen: set[tuple[tuple[str, str], ...]] = set()

    def add(parts: Sequence[Mutation], item_id: str, family: str, description: str) -> None:
        sections = _sections_of(task, parts)
        key = tuple(sorted((s, normalised_text(b)) for s, b in sections.items()))
        if key in seen or all(normalised_text(b) == reference.get(s) for s, b in sections.items()):
            return
        seen.add(key)
        out.append(PowerItem(item_id, "code", family, description, sections, tuple(m.id for m in parts), len(parts)))

    if order == 1:
        for mutation in select_mutations(task, mutations, seed=seed, cap=max_mutants):
            add([mutation], mutation.id, mutation.family, mutation.description)
        return out
    pairs: list[tuple[str, int, int]] = []
    for i, a in enumerate(mutations):
        for j in range(i + 1, len(mutations)):
            b = mutations[j]
            if not _overlaps(a, b):
                pairs.append((_rank(seed, task.id, a.id, b.id), i, j))
    pairs.sort()
    uses: dict[int, int] = {}
    for _, i, j in pairs:
        if len(out) >= max_mutants:
            break
        if uses.get(i, 0) >= 2 or uses.get(j, 0) >= 2:
            continue
        a, b = mutations[i], mutations[j]
        before = len(out)
        add(
            [a, b],
            f"mutant2:{a.id.removeprefix('mutant:')}+{b.id.removeprefix('mutant:')}",
            f"{a.family}+{b.family}",
            f"{a.description}; {b.description}",
        )
        if len(out) > before:
            uses[i] = uses.get(i, 0) + 1
            uses[j] = uses.get(j, 0) + 1
    return out


def expand_edits(task: Task) -> set[tuple[str, Edit]]:
    """Every single edit ``expand`` may put into one of its LLM-free adversaries, by section.

    Its single-change mutants are a seeded choice among :func:`all_mutations`, and its subtle
    mutants (:mod:`veriscale.generate.adversaries.subtle`) are the subtle candidates that pass a
    task's original tests, alone or paired with one another or with any of :func:`all_mutations`
    (which of them pass depends on engine runs). The set holds the edits of all of these, so it
    is a superset of what any expand run used: an overlap counted with it is never an undercount."""
    candidates = [*all_mutations(task), *subtle_mutations(task)]
    return {(m.section, edit) for m in candidates for edit in m.edits}


def expand_overlap(task: Task, mutants: Sequence[PowerItem]) -> tuple[int, int]:
    """(mutants identical to one of expand's LLM-free adversaries, mutants sharing an edit with
    one of them).

    Identical: the sections equal those of one of expand's templates and single-change mutants
    (its defaults: seed 42, up to 60 mutants) or of one of its first-order subtle candidates.
    Sharing: one of the mutant's edits is one :func:`expand_edits` holds (single-change mutants,
    subtle mutants of either order)."""
    bodies = {tuple(sorted((s, normalised_text(b)) for s, b in a.sections.items())) for a in llm_free_adversaries(task)}
    bodies |= {((m.section, normalised_text(m.apply(task.section(m.section)))),) for m in subtle_mutations(task)}
    theirs = expand_edits(task)
    own = {m.id: m for m in power_mutations(task)}
    identical = sharing = 0
    for item in mutants:
        key = tuple(sorted((s, normalised_text(b)) for s, b in item.sections.items()))
        identical += key in bodies
        edits = [(own[c].section, e) for c in item.components if c in own for e in own[c].edits]
        sharing += any(e in theirs for e in edits)
    return identical, sharing


def power_items(
    task: Task,
    *,
    seed: int = DEFAULT_SEED,
    max_flawed: int = DEFAULT_MAX_FLAWED,
    max_mutants: int = DEFAULT_MAX_MUTANTS,
    mutant_orders: Sequence[int] = (1, 2),
) -> list[PowerItem]:
    """Flawed preconditions, flawed postconditions, then mutants of each order (up to
    ``max_mutants`` each)."""
    items = flawed_specs(task, seed=seed, max_per_section=max_flawed)
    for order in mutant_orders:
        items += power_mutants(task, seed=seed, max_mutants=max_mutants, order=order)
    return items
