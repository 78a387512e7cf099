"""Power's own mutation operators: edits of the reference code that ``veriscale expand`` never makes.

``expand`` builds its adversaries from the operators of
:mod:`veriscale.generate.adversaries.mutants` (relations loosened or tightened, ``+ → - *``,
constants ±1, conditions negated, name swaps, ...). Measuring suites with those same edits would
favour the suites built to kill them, so power's mutants use a disjoint set of edits:

* ``relation-negated``  ``< → ≥``, ``≤ → >``, ``> → ≤``, ``≥ → <`` (expand only moves a relation to
  its neighbours: ``< → ≤ >``);
* ``arith-swapped``     ``+ → /``, ``- → *``, ``* → -``, ``/ → -``, ``% → -`` (none of expand's
  replacements);
* ``constant-far``      a literal ``n ≥ 2 → 0``; ``0 → 2``, ``1 → 3`` (expand only does ``n ± 1``);
* ``condition-fixed``   ``if c then`` → ``if True then`` / ``if False then`` (expand negates ``c``);
* ``parameter-swapped`` a use of one parameter replaced by another parameter of the same type
  (``a - b → b - b``), in the ``code`` section.

Every edit is made at a token where expand's analysis found a change that compiles (a relation, an
operator, a literal, an ``if`` condition outside binders, proofs and patterns), so the positions
are as safe as expand's; only the replacement differs. A parameter swap needs no such position:
at worst it renames a binder, which still compiles. By construction no power mutant is one of
expand's mutants, and none shares an edit with one (:func:`veriscale.stages.power.items.expand_overlap`
checks it).
"""

from __future__ import annotations

from veriscale.generate.adversaries import all_mutations
from veriscale.generate.adversaries.mutants import Edit, Mutation
from veriscale.lean.lexer import IDENT, LeanSyntaxError, tokenize
from veriscale.task import Task

__all__ = ["POWER_FAMILIES", "power_mutations"]

POWER_FAMILIES = ("relation-negated", "arith-swapped", "constant-far", "condition-fixed", "parameter-swapped")

_NEGATED = {"<": "≥", "≤": ">", ">": "≤", "≥": "<"}
_ARITH_SWAPPED = {"+": "/", "-": "*", "*": "-", "/": "-", "%": "-"}


def _at(origin: Mutation, family: str, change: str, description: str, edits: tuple[Edit, ...]) -> Mutation:
    return Mutation(
        section=origin.section,
        line=origin.line,
        col=origin.col,
        family=family,
        change=change,
        description=f"{origin.section} line {origin.line}: {description}",
        edits=edits,
    )


def _from_expand_position(task: Task, origin: Mutation) -> Mutation | None:
    """Power's edit at the token where ``origin`` (one of expand's mutations) applies."""
    text = task.section(origin.section)
    if origin.family in ("relational", "arith", "constant") and len(origin.edits) == 1:
        edit = origin.edits[0]
        old = text[edit.start : edit.end]
        if origin.family == "relational" and old in _NEGATED:
            new, family = _NEGATED[old], "relation-negated"
        elif origin.family == "arith" and old in _ARITH_SWAPPED:
            new, family = _ARITH_SWAPPED[old], "arith-swapped"
        elif origin.family == "constant" and old.isdigit():
            number = int(old)
            new, family = (str(number + 2) if number < 2 else "0"), "constant-far"
        else:
            return None
        return _at(origin, family, f"{old}-to-{new}!", f"`{old}` → `{new}`", (Edit(edit.start, edit.end, new),))
    if origin.family == "condition" and len(origin.edits) == 2:
        start, end = origin.edits[0].start, origin.edits[1].start
        shown = " ".join(text[start:end].split())
        return _at(origin, "condition-fixed", "if-fixed", f"condition `{shown}` fixed", (Edit(start, end, ""),))
    return None


def _condition_variants(mutation: Mutation) -> list[Mutation]:
    edit = mutation.edits[0]
    return [
        Mutation(mutation.section, mutation.line, mutation.col, mutation.family, f"if-{value}!",
                 mutation.description.replace("fixed", f"→ `{value}`"), (Edit(edit.start, edit.end, value),))
        for value in ("True", "False")
    ]


def _parameter_swaps(task: Task) -> list[Mutation]:
    code = task.section("code")
    by_type: dict[str, list[str]] = {}
    for p in task.signature.parameters:
        by_type.setdefault(" ".join(p.type.split()), []).append(p.name)
    partners = {
        name: [other for other in names if other != name] for names in by_type.values() for name in names
    }
    try:
        tokens = tokenize(code)
    except LeanSyntaxError:
        return []
    out: list[Mutation] = []
    for tok in tokens:
        if tok.kind != IDENT or not tok.parts or not partners.get(tok.parts[0]):
            continue
        name = tok.parts[0]
        for other in partners[name]:
            out.append(
                Mutation(
                    section="code",
                    line=tok.line,
                    col=tok.col,
                    family="parameter-swapped",
                    change=f"{name}-to-{other}!",
                    description=f"code line {tok.line}: `{name}` → `{other}`",
                    edits=(Edit(tok.offset, tok.offset + len(name), other),),
                )
            )
    return out


def power_mutations(task: Task) -> list[Mutation]:
    """Every power mutation of the reference ``code_aux``/``code``, in source order; ids end in
    ``!`` so that none equals an expand mutation id."""
    out: list[Mutation] = []
    seen: set[tuple[str, tuple[Edit, ...]]] = set()
    for origin in all_mutations(task):
        mutation = _from_expand_position(task, origin)
        if mutation is None:
            continue
        variants = _condition_variants(mutation) if mutation.family == "condition-fixed" else [mutation]
        for variant in variants:
            key = (variant.section, variant.edits)
            if key not in seen:
                seen.add(key)
                out.append(variant)
    out.extend(_parameter_swaps(task))
    return sorted(out, key=lambda m: (m.section != "code_aux", m.edits[0].start, m.change))
