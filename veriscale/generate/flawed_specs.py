"""Flawed specifications: the ground truth's ``precond``/``postcond`` changed a little.

The token-level operators of :mod:`veriscale.generate.adversaries.mutants` (relations loosened or
tightened, ``∧ ↔ ∨``, a negation dropped, ``True ↔ False``, constants ±1, name swaps, ...) plus
*conjunct drops*: one conjunct of a conjunction removed (``A ∧ B ∧ C`` → ``A ∧ C``), found at the
top level and inside parentheses, after ``∀ …,`` / ``∃ …,`` / ``fun … =>`` binders and in the
operands of ``→``, ``↔`` and ``∨`` -- the classic weak postcondition that checks the length of a
list but not its elements. Whether a change weakens or strengthens depends on where it sits (a
conjunct dropped from an antecedent strengthens); what counts is that it changes the verdict.

One generator for the two stages that need them: ``power`` measures suites against them (judged
on its own pool) and ``reduce`` keeps a test that catches each one Plus catches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from veriscale.generate.adversaries import select_mutations
from veriscale.generate.adversaries.mutants import Edit, Mutation, section_mutations
from veriscale.lean.lexer import EOF, KEYWORD, SYM, LeanSyntaxError, Token, tokenize
from veriscale.lean.types import LeanType, LeanTypeError, parse_type
from veriscale.task import Task

__all__ = [
    "DEFAULT_MAX_FLAWED",
    "DEFAULT_SEED",
    "ItemKind",
    "PowerItem",
    "conjunct_drops",
    "flawed_specs",
    "normalised_text",
]

DEFAULT_SEED = 2027
"""Not expand's 42: the items must not be chosen the way the adversaries were."""
DEFAULT_MAX_FLAWED = 12
"""Per specification section (precond, postcond)."""

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


def normalised_text(text: str) -> str:
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
        seen = {normalised_text(text)}
        distinct: list[Mutation] = []
        for mutation in found:
            body = normalised_text(mutation.apply(text))
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
