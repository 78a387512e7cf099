"""What a suite's power is measured against: flawed specifications and reference-code mutants.

Both are generated once per task from the ground-truth task, deterministically for a seed, and
are the same for every suite compared.

* Flawed specifications: changes to the ``precond`` / ``postcond`` section bodies. The token-level
  operators of :mod:`veriscale.generate.adversaries.mutants` (relations loosened or tightened,
  ``∧ ↔ ∨``, a negation dropped, ``True ↔ False``, constants ±1, name swaps, ...) plus
  *conjunct drops*: one conjunct of a conjunction removed (``A ∧ B ∧ C`` → ``A ∧ C``), found at the
  top level and inside parentheses, after ``∀ …,`` / ``∃ …,`` / ``fun … =>`` binders and in the
  operands of ``→``, ``↔`` and ``∨`` -- the classic weak postcondition that checks the length of
  a list but not its elements. Whether a change weakens or strengthens depends on where it sits
  (a conjunct dropped from an antecedent strengthens); what counts is that it changes the verdict.
* Mutants of the reference ``code_aux``/``code``: first-order (one edit) and second-order (two
  edits at different places), chosen with their own seed (not expand's 42) from power's own
  operators (:mod:`.operators`), which make none of the edits ``veriscale expand`` makes for its
  adversaries: measuring with expand's edits would favour the suites built to kill them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from veriscale.generate.adversaries import all_mutations, llm_free_adversaries, select_mutations
from veriscale.generate.adversaries.mutants import Edit, Mutation, section_mutations
from veriscale.lean.lexer import EOF, KEYWORD, SYM, LeanSyntaxError, Token, tokenize
from veriscale.lean_types import LeanType, LeanTypeError, parse_type
from veriscale.power.operators import power_mutations
from veriscale.task import Task

__all__ = [
    "DEFAULT_MAX_FLAWED",
    "DEFAULT_MAX_MUTANTS",
    "DEFAULT_SEED",
    "ItemKind",
    "PowerItem",
    "conjunct_drops",
    "expand_overlap",
    "flawed_specs",
    "power_items",
    "power_mutants",
]

DEFAULT_SEED = 2027
"""Not expand's 42: the items must not be chosen the way the adversaries were."""
DEFAULT_MAX_FLAWED = 12
"""Per specification section (precond, postcond)."""
DEFAULT_MAX_MUTANTS = 20
"""Per order (first-order and second-order mutants)."""

ItemKind = Literal["precond", "postcond", "code"]


@dataclass(frozen=True)
class PowerItem:
    """One flawed specification or mutant: replacement section bodies for ``task.with_sections``."""

    id: str
    kind: ItemKind
    family: str
    description: str
    sections: dict[str, str] = field(hash=False)
    components: tuple[str, ...] = ()
    """For mutants: the ids of the first-order mutations it is made of."""
    order: int = 0
    """For mutants: how many edits (1 or 2); 0 for flawed specifications."""


# ---------------------------------------------------------------------------------------------
# Conjunct drops

_OPENERS = {"(": ")", "[": "]", "#[": "]", "⟨": "⟩", "{": "}", "%[": "]", "⦃": "⦄"}
_BINDER_SYMS = frozenset({"∀", "∃", "∃!", "λ"})
_BINDER_KWS = frozenset({"fun", "forall", "exists"})
# Tokens after which the rest of the region belongs to one construct (a binder body, a branch).
_STOP_SYMS = frozenset({"∀", "∃", "∃!", "λ", ",", ":=", "=>", "|", ";", ":"})
_STOP_KWS = frozenset(
    {"fun", "forall", "exists", "let", "if", "then", "else", "match", "with", "have", "show", "do", "by", "from"}
)
# Propositional connectives by increasing precedence (↔ 20, → 25, ∨ 30, ∧ 35 in Lean 4).
_CONNECTIVES = ("↔", "→", "∨", "∧")


def _is_stop(tok: Token) -> bool:
    return (tok.kind == SYM and tok.value in _STOP_SYMS) or (tok.kind == KEYWORD and tok.value in _STOP_KWS)


class _Conjuncts:
    def __init__(self, section: str, text: str) -> None:
        self.section = section
        self.text = text
        self.toks = [t for t in tokenize(text) if t.kind != EOF]
        self.closer: dict[int, int] = {}
        stack: list[int] = []
        for i, tok in enumerate(self.toks):
            if tok.kind == SYM and tok.value in _OPENERS:
                stack.append(i)
            elif tok.kind == SYM and tok.value in _OPENERS.values():
                if not stack:
                    raise LeanSyntaxError(tok.line, tok.col, "unbalanced bracket")
                self.closer[stack.pop()] = i
        if stack:
            tok = self.toks[stack[-1]]
            raise LeanSyntaxError(tok.line, tok.col, "unbalanced bracket")
        self.out: list[Mutation] = []

    def depth0(self, start: int, end: int) -> list[int]:
        """Token positions at bracket depth 0 of ``[start, end)``."""
        found: list[int] = []
        i = start
        while i < end:
            found.append(i)
            i = self.closer[i] + 1 if i in self.closer else i + 1
        return found

    def region(self, start: int, end: int) -> None:
        if start >= end:
            return
        toks = self.toks
        first = toks[start]
        if (first.kind == SYM and first.value in _BINDER_SYMS) or (first.kind == KEYWORD and first.value in _BINDER_KWS):
            separator = "=>" if first.is_kw("fun") or first.is_sym("λ") else ","
            for i in self.depth0(start + 1, end):
                if toks[i].is_sym(separator):
                    self.region(i + 1, end)
                    break
            return
        if first.is_sym("¬"):
            self.region(start + 1, end)
            return
        level = self.depth0(start, end)
        # Connectives count only before the first token that opens a construct running to the end.
        head: list[int] = []
        for i in level:
            if _is_stop(toks[i]):
                break
            head.append(i)
        for op in _CONNECTIVES:
            cuts = [i for i in head if toks[i].is_sym(op)]
            if not cuts:
                continue
            bounds = [start, *(c + 1 for c in cuts)]
            ends = [*cuts, end]
            segments = list(zip(bounds, ends, strict=True))
            if op == "∧":
                self.drops(segments, cuts)
            for seg_start, seg_end in segments:
                self.region(seg_start, seg_end)
            return
        # No connective at this level: look inside parenthesised groups.
        for i in level:
            if toks[i].is_sym("(") and i in self.closer:
                self.region(i + 1, self.closer[i])

    def drops(self, segments: list[tuple[int, int]], cuts: list[int]) -> None:
        toks = self.toks
        n = len(segments)
        for k, (seg_start, seg_end) in enumerate(segments):
            if seg_start >= seg_end:
                return  # a malformed conjunction: leave it alone
            if k < n - 1:
                # the conjunct and the `∧` after it, up to the next conjunct
                edit = Edit(toks[seg_start].offset, toks[segments[k + 1][0]].offset, "")
            else:
                # the `∧` before the last conjunct and the conjunct
                edit = Edit(toks[segments[k - 1][1] - 1].end, toks[seg_end - 1].end, "")
            shown = " ".join(self.text[toks[seg_start].offset : toks[seg_end - 1].end].split())
            if len(shown) > 60:
                shown = shown[:57] + "..."
            tok = toks[seg_start]
            self.out.append(
                Mutation(
                    section=self.section,
                    line=tok.line,
                    col=tok.col,
                    family="conjunct",
                    change=f"conjunct-{k + 1}-of-{n}-dropped",
                    description=f"{self.section} line {tok.line}: drop the conjunct `{shown}`",
                    edits=(edit,),
                )
            )
        del cuts


def conjunct_drops(section: str, text: str) -> list[Mutation]:
    """Every single-conjunct removal in a specification body, in source order (``[]`` when the
    text does not lex)."""
    try:
        finder = _Conjuncts(section, text)
    except LeanSyntaxError:
        return []
    finder.region(0, len(finder.toks))
    return sorted(finder.out, key=lambda m: (m.edits[0].start, m.change))


# ---------------------------------------------------------------------------------------------
# Flawed specifications


def _param_types(task: Task) -> dict[str, LeanType]:
    types: dict[str, LeanType] = {}
    for p in task.signature.parameters:
        try:
            types[p.name] = parse_type(p.type)
        except LeanTypeError:
            continue
    return types


def _mentions_float(task: Task) -> bool:
    texts = [task.signature.return_type, *(p.type for p in task.signature.parameters)]
    texts += [task.section(name) for name in ("task_aux", "precond_aux", "precond", "postcond_aux", "postcond")]
    return any("Float" in t for t in texts)


def _normalised(text: str) -> str:
    return " ".join(text.split())


def flawed_specs(task: Task, *, seed: int = DEFAULT_SEED, max_per_section: int = DEFAULT_MAX_FLAWED) -> list[PowerItem]:
    """Flawed preconditions and postconditions: at most ``max_per_section`` each, a seeded choice
    spread over the operator families (conjunct drops are one family), textually distinct."""
    params = _param_types(task)
    allow_mod = not _mentions_float(task)
    out: list[PowerItem] = []
    for section in ("precond", "postcond"):
        text = task.section(section)
        if not text.strip():
            continue
        found = conjunct_drops(section, text) + section_mutations(section, text, params, allow_mod=allow_mod)
        seen = {_normalised(text)}
        distinct: list[Mutation] = []
        for mutation in found:
            body = _normalised(mutation.apply(text))
            if body and body not in seen:
                seen.add(body)
                distinct.append(mutation)
        for mutation in select_mutations(task, distinct, seed=seed, cap=max_per_section):
            out.append(
                PowerItem(
                    id="flaw:" + mutation.id.removeprefix("mutant:"),
                    kind=section,  # type: ignore[arg-type]
                    family=mutation.family,
                    description=mutation.description,
                    sections={section: mutation.apply(text)},
                )
            )
    return out


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
    reference = {s: _normalised(task.section(s)) for s in ("code_aux", "code")}
    out: list[PowerItem] = []
    seen: set[tuple[tuple[str, str], ...]] = set()

    def add(parts: Sequence[Mutation], item_id: str, family: str, description: str) -> None:
        sections = _sections_of(task, parts)
        key = tuple(sorted((s, _normalised(b)) for s, b in sections.items()))
        if key in seen or all(_normalised(b) == reference.get(s) for s, b in sections.items()):
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


def expand_overlap(task: Task, mutants: Sequence[PowerItem]) -> tuple[int, int]:
    """(mutants identical to one of expand's LLM-free adversaries, mutants sharing an edit with
    one of them), with expand's defaults (seed 42, up to 60 mutants)."""
    adversaries = llm_free_adversaries(task)
    bodies = {
        tuple(sorted((s, _normalised(b)) for s, b in a.sections.items())) for a in adversaries
    }
    chosen = {a.id for a in adversaries if a.source == "mutant"}
    expand_edits = {(m.section, m.edits) for m in all_mutations(task) if m.id in chosen}
    own = {m.id: (m.section, m.edits) for m in power_mutations(task)}
    identical = sharing = 0
    for item in mutants:
        key = tuple(sorted((s, _normalised(b)) for s, b in item.sections.items()))
        identical += key in bodies
        sharing += any(own.get(c) in expand_edits for c in item.components)
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
