"""Mutants of the reference implementation: one small, type-preserving change to its source text.

The ``code`` and ``code_aux`` section bodies are tokenized with the Lean lexer
(:mod:`veriscale.lean.lexer`) and each change is applied at a token's exact character offsets, so a
mutant is real Lean source that the real Lean backend compiles as well as the embedded one
evaluates. (``solution_aux`` is never touched: some tasks share it with the specification.)

Mutation operators (family names as used for capping):

* ``arith``      ``+ → - *``, ``-`` (binary) ``→ +``, ``* → + /``, ``/ → * %``, ``% → /``
  (no ``%`` is introduced when the task mentions ``Float``, which has no ``Mod`` instance);
* ``relational`` ``< → ≤ >``, ``≤ → < ≥``, ``> → ≥ <``, ``≥ → > ≤``, ``= ↔ ≠``, ``== ↔ !=``;
* ``logical``    ``&& ↔ ||``, ``∧ ↔ ∨``;
* ``negation``   removing a prefix ``!`` or ``¬``;
* ``constant``   a natural-number literal ``n → n+1`` and ``n → n-1`` (indices included);
* ``range``      the end of ``[a:b]`` ``→ b + 1 / b - 1``, the argument of ``List.range``/``Array.range``
  ``→ (n + 1) / (n - 1)``;
* ``condition``  ``if c then`` ``→ if ¬(c) then`` (the same as swapping the branches);
* ``name``       ``true ↔ false``, ``min ↔ max``, ``any ↔ all``, ``head? ↔ getLast?`` (and ``!``/``D``
  variants), ``startsWith ↔ endsWith``, ``toUpper ↔ toLower``, ``isSome ↔ isNone``; ``max? ↔ min?``,
  ``take ↔ drop``, ``takeWhile ↔ dropWhile`` and ``isPrefixOf ↔ isSuffixOf`` only where the
  receiver is known to be a ``List`` (or ``String`` where both names exist there);
* ``call``       dropping a type-preserving call without arguments: ``xs.reverse → xs`` (also
  ``eraseDups``, ``tail``, ``dropLast``, ``trim``, ``toLower``, ``toUpper``);
* ``option``     ``some e → none``;
* ``literal``    a string literal ``"…" → ""`` (``"" → " "``), a character literal to the next code point;
* ``result``     the whole result: ``!(…)`` for a ``Bool`` result, ``(…) + 1`` / ``(…) - 1`` for ``Nat``
  and ``Int`` results.

Changes that would not compile are avoided by construction, by skipping token positions where a
change can break typing or a proof: declaration signatures and binders (``def``/``let``/``fun``
binders, ``where`` helpers), match patterns (a changed literal makes a match non-exhaustive),
conditions of dependent ``if h : …`` and ``for h : … in`` (the hypothesis proves a bound),
proof-carrying indices ``xs[i]`` (without ``!``/``?``), anonymous constructors with a proof
component ``⟨i, h⟩``, type ascriptions, ``by`` blocks, ``have``/``show``/``termination_by``/
``decreasing_by`` clauses, theorems/instances/structures, and the step arguments of recursive
calls (an argument holding a literal or ``/``: changing ``go (i + 1)`` breaks termination).
Other changes may still make a recursion non-terminating in Lean's eyes; such a mutant fails to
compile in Lean (and is dropped there) while the embedded engine evaluates it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from veriscale.lean.codec import quote_char, quote_string
from veriscale.lean.lexer import (
    CHAR,
    DOTIDENT,
    EOF,
    FIELD,
    IDENT,
    INTERP,
    KEYWORD,
    NUM,
    SCI,
    STR,
    SYM,
    LeanSyntaxError,
    Token,
    tokenize,
)
from veriscale.lean.types import LeanType, NamedType

__all__ = [
    "MUTABLE_SECTIONS",
    "Edit",
    "Mutation",
    "body_span",
    "section_mutations",
    "whole_result_mutations",
]

MUTABLE_SECTIONS = ("code_aux", "code")
"""Sections that belong to the implementation alone (``solution_aux`` is shared with specs)."""

FAMILIES = (
    "result",
    "condition",
    "relational",
    "arith",
    "constant",
    "logical",
    "negation",
    "range",
    "name",
    "call",
    "option",
    "literal",
)


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` by ``replacement`` (``start == end`` inserts)."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Mutation:
    section: str
    line: int
    """1-based line within the section body."""
    col: int
    """0-based column (in code points) within the section body, as Lean reports columns."""
    family: str
    change: str
    """Short label of the change, e.g. ``<-to-≤``, ``3-to-4``, ``!-removed``."""
    description: str
    edits: tuple[Edit, ...]

    @property
    def id(self) -> str:
        return f"mutant:{self.section}:L{self.line}C{self.col}:{self.change}"

    def apply(self, text: str) -> str:
        for edit in sorted(self.edits, key=lambda e: (e.start, e.end), reverse=True):
            text = text[: edit.start] + edit.replacement + text[edit.end :]
        return text


# ---------------------------------------------------------------------------------------------
# Operator tables (keys are the lexer's normalised symbol values)

_ARITH: dict[str, tuple[str, ...]] = {
    "+": ("-", "*"),
    "-": ("+",),
    "*": ("+", "/"),
    "/": ("*", "%"),
    "%": ("/",),
}
_RELATIONAL: dict[str, tuple[str, ...]] = {
    "<": ("≤", ">"),
    "≤": ("<", "≥"),
    ">": ("≥", "<"),
    "≥": (">", "≤"),
    "=": ("≠",),
    "≠": ("=",),
    "==": ("!=",),
    "!=": ("==",),
}
_LOGICAL: dict[str, tuple[str, ...]] = {"&&": ("||",), "||": ("&&",), "∧": ("∨",), "∨": ("∧",)}

# Name swaps by last name component. Both names exist, with the same type, in every namespace
# where the original can be used (List, Array, String, Option, Char, or the root namespace).
_SWAPS_ANYWHERE: dict[str, str] = {
    "any": "all",
    "all": "any",
    "head?": "getLast?",
    "getLast?": "head?",
    "head!": "getLast!",
    "getLast!": "head!",
    "headD": "getLastD",
    "getLastD": "headD",
    "startsWith": "endsWith",
    "endsWith": "startsWith",
    "toUpper": "toLower",
    "toLower": "toUpper",
    "isSome": "isNone",
    "isNone": "isSome",
}
_SWAPS_BARE: dict[str, str] = {
    "true": "false",
    "false": "true",
    "True": "False",
    "False": "True",
    "min": "max",
    "max": "min",
}
# Swaps valid only on a receiver known to be of one of the listed type heads.
_SWAPS_TYPED: dict[str, tuple[str, tuple[str, ...]]] = {
    "max?": ("min?", ("List",)),
    "min?": ("max?", ("List",)),
    "take": ("drop", ("List", "String")),
    "drop": ("take", ("List", "String")),
    "takeWhile": ("dropWhile", ("List", "String")),
    "dropWhile": ("takeWhile", ("List", "String")),
    "isPrefixOf": ("isSuffixOf", ("List",)),
    "isSuffixOf": ("isPrefixOf", ("List",)),
}

# Methods without explicit arguments whose result has the receiver's type: `xs.reverse` → `xs`.
_REMOVABLE_CALLS = frozenset({"reverse", "eraseDups", "tail", "dropLast", "trim", "toLower", "toUpper"})

_OPENERS = {"(": ")", "[": "]", "#[": "]", "⟨": "⟩", "{": "}", "@[": "]", "%[": "]", "⦃": "⦄"}
_CLOSERS = frozenset(_OPENERS.values())
_ATOMS = (IDENT, NUM, SCI, STR, CHAR, INTERP, DOTIDENT, FIELD)
_DECL_SKIP_WHOLE = frozenset(
    {
        "theorem",
        "lemma",
        "instance",
        "structure",
        "inductive",
        "class",
        "example",
        "axiom",
        "opaque",
        "macro",
        "macro_rules",
        "syntax",
        "notation",
        "infix",
        "infixl",
        "infixr",
        "prefix",
        "postfix",
        "elab",
        "attribute",
        "set_option",
        "open",
        "namespace",
        "section",
        "end",
        "variable",
        "universe",
        "mutual",
        "export",
        "deriving",
        "initialize",
        "builtin_initialize",
    }
)
_BLOCK_SKIP = frozenset(
    {"by", "have", "show", "suffices", "calc", "termination_by", "decreasing_by", "nomatch", "nofun"}
)
_DECIMAL = re.compile(r"[0-9]+")


def _ends_term(tok: Token) -> bool:
    if tok.kind in _ATOMS:
        return True
    return tok.kind == SYM and tok.value in (")", "]", "⟩", "}", "!", "?", "·", "_")


class _Analysis:
    """Token positions of one section body, with the positions no mutation may touch."""

    def __init__(self, text: str, param_types: Mapping[str, LeanType]) -> None:
        self.text = text
        self.param_types = param_types
        self.tokens: list[Token] = tokenize(text)
        n = len(self.tokens)
        self.closer: dict[int, int] = {}
        self.enclosing: list[int] = [-1] * n
        stack: list[int] = []
        for i, tok in enumerate(self.tokens):
            self.enclosing[i] = stack[-1] if stack else -1
            if tok.kind == SYM and tok.value in _OPENERS:
                stack.append(i)
            elif tok.kind == SYM and tok.value in _CLOSERS:
                if not stack or _OPENERS[self.tokens[stack[-1]].value] != tok.value:
                    raise LeanSyntaxError(tok.line, tok.col, "unbalanced brackets")
                opener = stack.pop()
                self.closer[opener] = i
                self.enclosing[i] = stack[-1] if stack else -1
        if stack:
            tok = self.tokens[stack[-1]]
            raise LeanSyntaxError(tok.line, tok.col, "unclosed bracket")
        self.line_indent: dict[int, int] = {}
        for tok in self.tokens:
            if tok.kind != EOF:
                self.line_indent.setdefault(tok.line, tok.col)
        self.skip = [False] * n
        self.defs: list[tuple[str, int, int]] = []
        """Local definitions as ``(name, body start index, body end index)``."""

    # -- helpers -------------------------------------------------------------------------------
    @property
    def eof(self) -> int:
        return len(self.tokens) - 1

    def is_opener(self, i: int) -> bool:
        tok = self.tokens[i]
        return tok.kind == SYM and tok.value in _OPENERS

    def group_limit(self, i: int) -> int:
        """The closer of the group containing ``i`` (exclusive end of its level), or EOF."""
        outer = self.enclosing[i]
        return self.closer[outer] if outer >= 0 else self.eof

    def block_end(self, i: int, *, declaration: bool = False) -> int:
        """First token after ``i`` that starts a line indented no deeper than ``i``'s line, or the
        end of the enclosing bracket group. A ``declaration`` continues over match arms and
        ``termination_by``/``decreasing_by`` lines at its own column (``def f : Nat → Nat`` then
        ``| 0 => …`` is legal Lean)."""
        base = self.line_indent.get(self.tokens[i].line, 0)
        limit = self.group_limit(i)
        for j in range(i + 1, limit):
            tok = self.tokens[j]
            if tok.newline_before and tok.col <= base:
                if declaration and tok.col == base and self.continues_declaration(tok):
                    continue
                return j
        return limit

    @staticmethod
    def continues_declaration(tok: Token) -> bool:
        return tok.is_sym("|") or tok.is_kw("termination_by", "decreasing_by")

    def find_same_level(self, i: int, pred: Callable[[Token], bool], limit: int | None = None) -> int | None:
        """First index after ``i`` on ``i``'s bracket level satisfying ``pred`` (before ``limit``)."""
        end = self.group_limit(i) if limit is None else min(limit, self.group_limit(i))
        j = i + 1
        while j < end:
            tok = self.tokens[j]
            if pred(tok):
                return j
            j = self.closer[j] + 1 if self.is_opener(j) else j + 1
        return None

    def mark(self, start: int, end: int) -> None:
        for j in range(max(start, 0), min(end, len(self.skip))):
            self.skip[j] = True

    def is_arm_bar(self, i: int) -> bool:
        tok = self.tokens[i]
        if not tok.is_sym("|"):
            return False
        outer = self.enclosing[i]
        return outer < 0 or self.tokens[outer].value != "{"  # `{x | p x}` is set-builder notation

    def is_index_bracket(self, i: int) -> bool:
        tok = self.tokens[i]
        return tok.is_sym("[") and not tok.space_before and i > 0 and _ends_term(self.tokens[i - 1])

    # -- skip zones ----------------------------------------------------------------------------
    def signature_end(self, i: int, limit: int) -> int:
        """Index of the ``:=`` (or first match arm ``|``, or ``where``) ending a signature at ``i``."""
        j = self.find_same_level(
            i, lambda t: t.is_sym(":=") or (t.is_sym("|") and t.newline_before) or t.is_kw("where"), limit
        )
        return limit if j is None else j

    def analyse(self) -> None:
        toks = self.tokens
        n = len(toks)
        for i, tok in enumerate(toks):
            if tok.kind == KEYWORD:
                self._keyword_zone(i, tok)
            elif tok.is_sym("@[", "%["):
                self.mark(i, self.closer[i] + 1)
            elif self.is_arm_bar(i):
                j = self.find_same_level(i, lambda t: t.is_sym("=>"), self.block_end(i))
                self.mark(i, (j if j is not None else i) + 1)
            elif self.is_index_bracket(i):
                close = self.closer[i]
                after = toks[close + 1] if close + 1 < n else None
                if not (after is not None and after.is_sym("!", "?") and not after.space_before):
                    self.mark(i + 1, close)  # a proof-carrying index `xs[i]`
                    if after is not None and after.is_sym("'") and not after.space_before:
                        proof = close + 2  # `xs[i]'h`, `xs[i]'(by omega)`
                        self.mark(close + 1, (self.closer[proof] if self.is_opener(proof) else proof) + 1)
            elif tok.is_sym("⟨") and self.sym_in_group(i, ",") is not None:
                self.mark(i + 1, self.closer[i])  # `⟨i, h⟩`: the proof is about the value
            elif tok.is_sym("("):
                colon = self.sym_in_group(i, ":")
                if colon is not None:
                    self.mark(colon, self.closer[i])  # type ascription `(e : T)`
            elif tok.is_sym("λ"):
                j = self.find_same_level(i, lambda t: t.is_sym("=>"))
                self.mark(i, (j if j is not None else i) + 1)
        self._where_zones()
        self._recursive_call_zones()

    def sym_in_group(self, opener: int, symbol: str) -> int | None:
        """The first ``symbol`` directly inside the bracket group opened at ``opener``."""
        close = self.closer[opener]
        j = opener + 1
        while j < close:
            if self.tokens[j].is_sym(symbol):
                return j
            j = self.closer[j] + 1 if self.is_opener(j) else j + 1
        return None

    def _keyword_zone(self, i: int, tok: Token) -> None:
        toks = self.tokens
        word = tok.value
        if word in ("def", "abbrev"):
            end = self.block_end(i, declaration=True)
            sig = self.signature_end(i, end)
            self.mark(i, sig + 1 if sig < end and toks[sig].is_sym(":=") else sig)
            if i + 1 < len(toks) and toks[i + 1].kind == IDENT:
                self.defs.append((toks[i + 1].parts[-1], sig, end))
        elif word in _DECL_SKIP_WHOLE:
            self.mark(i, self.block_end(i))
        elif word in _BLOCK_SKIP:
            self.mark(i, self.block_end(i))
        elif word == "let":
            end = self.block_end(i)
            stop = self.find_same_level(
                i, lambda t: t.is_sym(":=", "←") or (t.is_sym("|") and t.newline_before), end
            )
            stop = end if stop is None else stop
            self.mark(i, stop + 1 if stop < end and toks[stop].is_sym(":=", "←") else stop)
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is not None and nxt.kind == IDENT and nxt.value == "rec" and toks[i + 2].kind == IDENT:
                self.defs.append((toks[i + 2].value, stop, end))
        elif word == "fun":
            j = self.find_same_level(i, lambda t: t.is_sym("=>"))
            self.mark(i, (j if j is not None else i) + 1)
        elif word in ("if", "for", "match"):
            stop_word = {"if": "then", "for": "do", "match": "with"}[word]
            head_end = self.find_same_level(i, lambda t: t.is_kw(stop_word), self.block_end(i))
            if head_end is None:
                return
            end = head_end
            nxt, nxt2 = toks[i + 1], toks[i + 2]
            dependent = nxt.kind == IDENT and nxt2.is_sym(":")
            if word == "if" and (dependent or nxt.is_kw("let")):
                self.mark(i + 1, end)
            elif word == "for":
                if dependent:
                    self.mark(i + 1, end)
                else:
                    binder_end = self.find_same_level(i, lambda t: t.is_kw("in"), end)
                    self.mark(i + 1, (binder_end if binder_end is not None else end))
            elif word == "match" and self.find_same_level(i, lambda t: t.is_sym(":"), end) is not None:
                self.mark(i + 1, end)

    def _where_zones(self) -> None:
        toks = self.tokens
        for i, tok in enumerate(toks):
            if not tok.is_kw("where") or self.skip[i] or self.enclosing[i] >= 0:
                continue
            j = i + 1
            if j >= self.eof:
                continue
            column = toks[j].col
            while j < self.eof:
                start = j
                end = j + 1
                while end < self.eof and not (
                    toks[end].newline_before
                    and toks[end].col <= column
                    and not (toks[end].col == column and self.continues_declaration(toks[end]))
                ):
                    end += 1
                sig = self.signature_end(start, end)
                self.mark(start, sig + 1 if sig < end and toks[sig].is_sym(":=") else sig)
                if toks[start].kind == IDENT:
                    self.defs.append((toks[start].value, sig, end))
                j = end
                if j < self.eof and toks[j].col < column:
                    break
            break

    def _recursive_call_zones(self) -> None:
        toks = self.tokens
        for name, body_start, body_end in self.defs:
            for j in range(body_start + 1, body_end):
                tok = toks[j]
                if tok.kind != IDENT or tok.value != name:
                    continue
                k = j + 1
                while k < body_end:
                    arg = toks[k]
                    if arg.newline_before:
                        break
                    if self.is_opener(k):
                        close = self.closer[k]
                        stop = close + 1
                        while stop < body_end and toks[stop].kind == FIELD and not toks[stop].space_before:
                            stop += 1
                        if self._steps(k, stop):
                            self.mark(k, stop)
                        k = stop
                    elif arg.kind in _ATOMS or arg.is_sym("_", "·"):
                        if arg.kind == NUM:
                            self.mark(k, k + 1)
                        k += 1
                    else:
                        break

    def _steps(self, start: int, end: int) -> bool:
        """Does an argument look like a recursion step (a literal, or a division)?"""
        return any(t.kind == NUM or t.is_sym("/", "%") for t in self.tokens[start:end])

    # -- receivers -----------------------------------------------------------------------------
    def receiver_head(self, tok: Token) -> str | None:
        """The type head (``List``, ...) of ``x`` in ``x.f`` / of ``List`` in ``List.f``."""
        if tok.kind != IDENT or len(tok.parts) < 2:
            return None
        first = tok.parts[0]
        if len(tok.parts) == 2 and first in ("List", "Array", "String", "Option"):
            return first
        if len(tok.parts) > 2 and tok.parts[-2] in ("toList", "toArray"):
            return "List" if tok.parts[-2] == "toList" else "Array"  # `s.toList.max?`
        rebound = any(
            t.kind == IDENT and t.value == first and self.skip[i] for i, t in enumerate(self.tokens)
        )
        ty = None if rebound else self.param_types.get(first)  # a binder may shadow the parameter
        if len(tok.parts) == 2 and isinstance(ty, NamedType):
            return ty.name
        return None


def _replace(
    section: str, tok: Token, family: str, new_text: str, label: str | None = None, offset_base: int = 0
) -> Mutation:
    change = label or f"{tok.text}-to-{new_text}"
    what = f"`{tok.text}` → `{new_text}`" if new_text else f"remove `{tok.text}`"
    return Mutation(
        section=section,
        line=tok.line,
        col=tok.col,
        family=family,
        change=change,
        description=f"{section} line {tok.line}: {what}",
        edits=(Edit(tok.offset - offset_base, tok.end - offset_base, new_text),),
    )


def _insertions(
    section: str, tok: Token, family: str, change: str, description: str, edits: Sequence[Edit]
) -> Mutation:
    return Mutation(
        section, tok.line, tok.col, family, change, f"{section} line {tok.line}: {description}", tuple(edits)
    )


def analyse_section(
    text: str, param_types: Mapping[str, LeanType] | None = None, recursive_names: Sequence[str] = ()
) -> _Analysis | None:
    """The token analysis of one section body (``recursive_names`` as in :func:`section_mutations`),
    or ``None`` when the text does not lex or its brackets do not balance."""
    try:
        analysis = _Analysis(text, param_types or {})
        analysis.defs.extend((name, -1, analysis.eof) for name in recursive_names)
        analysis.analyse()
    except LeanSyntaxError:
        return None
    return analysis


def section_mutations(
    section: str,
    text: str,
    param_types: Mapping[str, LeanType] | None = None,
    *,
    allow_mod: bool = True,
    recursive_names: Sequence[str] = (),
) -> list[Mutation]:
    """Every single-change mutation of one section body, in source order.

    ``param_types`` lets name swaps that exist only on some types (``take``/``drop``) apply to a
    receiver that is a parameter of known type. ``allow_mod=False`` never introduces ``%``.
    ``recursive_names`` are functions whose body is the whole section (the task's function for
    the ``code`` section): the step arguments of their calls are left alone. Returns ``[]`` when
    the text does not lex or its brackets do not balance; a change whose result does not lex into
    the expected tokens is dropped.
    """
    analysis = analyse_section(text, param_types, recursive_names)
    if analysis is None:
        return []
    candidates = _candidates(section, analysis, allow_mod)
    return [m for m in candidates if _lexes_as_expected(text, analysis.tokens, m)]


def _lexes_as_expected(text: str, tokens: Sequence[Token], mutation: Mutation) -> bool:
    """The mutated text lexes, into the original tokens changed exactly by the edits (a ``≤``
    inserted before a ``-`` must not fuse into ``←``, say)."""
    try:
        mutated = tokenize(mutation.apply(text))
    except LeanSyntaxError:
        return False
    delta = 0
    for edit in mutation.edits:
        if edit.replacement:
            try:
                delta += len(tokenize(edit.replacement)) - 1
            except LeanSyntaxError:
                return False
        delta -= sum(1 for t in tokens if t.kind != EOF and edit.start <= t.offset and t.end <= edit.end)
    return len(mutated) == len(tokens) + delta


def _candidates(section: str, analysis: _Analysis, allow_mod: bool) -> list[Mutation]:
    toks = analysis.tokens
    # A name bound locally (`let max := …`, a parameter `min`) must not be swapped for the global.
    bound = {t.value for i, t in enumerate(toks) if t.kind == IDENT and analysis.skip[i]} | set(
        analysis.param_types
    )
    out: list[Mutation] = []
    for i, tok in enumerate(toks):
        if tok.kind == EOF or analysis.skip[i]:
            continue
        prev = toks[i - 1] if i > 0 else None
        if tok.kind == SYM:
            value = tok.value
            binary = prev is not None and _ends_term(prev)
            if value in _ARITH and binary:
                for new in _ARITH[value]:
                    if new == "%" and not allow_mod:
                        continue
                    out.append(_replace(section, tok, "arith", new))
            elif value in _RELATIONAL and binary:
                for new in _RELATIONAL[value]:
                    out.append(_replace(section, tok, "relational", new))
            elif value in _LOGICAL and binary:
                for new in _LOGICAL[value]:
                    out.append(_replace(section, tok, "logical", new))
            elif value == "!" and not (prev is not None and prev.is_sym("]") and not tok.space_before):
                out.append(_replace(section, tok, "negation", "", label="!-removed"))
            elif value == "¬":
                out.append(_replace(section, tok, "negation", "", label="¬-removed"))
            elif value == "[" and not analysis.is_index_bracket(i):
                out.extend(_range_bound(section, analysis, i))
        elif tok.kind == NUM and _DECIMAL.fullmatch(tok.text):
            number = int(tok.text)
            out.append(_replace(section, tok, "constant", str(number + 1)))
            if number > 0:
                out.append(_replace(section, tok, "constant", str(number - 1)))
        elif tok.kind == STR:
            out.append(_replace(section, tok, "literal", quote_string("" if tok.value else " ")))
        elif tok.kind == CHAR:
            following = _next_char(tok.value)
            if following is not None:
                out.append(_replace(section, tok, "literal", quote_char(following)))
        elif tok.kind in (IDENT, FIELD):
            if not (tok.kind == IDENT and tok.value in bound and tok.value in ("min", "max")):
                out.extend(_name_swap(section, analysis, tok))
            out.extend(_call_removal(section, analysis, i))
            if tok.kind == IDENT and tok.value == "some" and "some" not in bound:
                out.extend(_some_to_none(section, analysis, i))
            if tok.kind == IDENT and tok.value in ("List.range", "Array.range"):
                out.extend(_range_argument(section, analysis, i))
        elif tok.is_kw("if"):
            out.extend(_negate_condition(section, analysis, i))
    return out


def _name_swap(section: str, analysis: _Analysis, tok: Token) -> list[Mutation]:
    parts = tok.parts
    if not parts or tok.text.endswith("»"):
        return []
    last = parts[-1]
    new: str | None = None
    if tok.kind == IDENT and len(parts) == 1 and last in _SWAPS_BARE:
        new = _SWAPS_BARE[last]
    elif last in _SWAPS_ANYWHERE and (tok.kind == FIELD or len(parts) > 1):
        new = _SWAPS_ANYWHERE[last]
    elif last in _SWAPS_TYPED and tok.kind == IDENT:
        target, heads = _SWAPS_TYPED[last]
        if analysis.receiver_head(tok) in heads:
            new = target
    if new is None or not tok.text.endswith(last):
        return []
    new_text = tok.text[: len(tok.text) - len(last)] + new
    return [_replace(section, tok, "name", new_text, label=f"{last}-to-{new}")]


def _next_char(c: str) -> str | None:
    code = ord(c) + 1
    if 0xD800 <= code <= 0xDFFF:
        code = 0xE000
    return chr(code) if code <= 0x10FFFF else None


def _call_removal(section: str, analysis: _Analysis, i: int) -> list[Mutation]:
    """``xs.reverse`` → ``xs`` (never the qualified ``List.reverse xs``, whose argument follows)."""
    tok = analysis.tokens[i]
    last = tok.parts[-1] if tok.parts else ""
    if last not in _REMOVABLE_CALLS or not tok.text.endswith("." + last):
        return []
    if tok.kind == IDENT and (len(tok.parts) < 2 or tok.parts[0][:1].isupper()):
        return []
    start = tok.end - len(last) - 1
    return [
        Mutation(
            section,
            tok.line,
            tok.col,
            "call",
            f".{last}-removed",
            f"{section} line {tok.line}: drop the call `.{last}`",
            (Edit(start, tok.end, ""),),
        )
    ]


def _argument_after(analysis: _Analysis, i: int, single: Callable[[Token], bool]) -> tuple[int, int] | None:
    """The token range ``(j, end)`` of the argument right after token ``i`` on its line: one bracket
    group, or one token ``single`` accepts; ``None`` when there is none or it is not to be touched."""
    toks = analysis.tokens
    j = i + 1
    if j >= analysis.eof or toks[j].newline_before or analysis.skip[j]:
        return None
    if analysis.is_opener(j):
        return j, analysis.closer[j] + 1
    if single(toks[j]):
        return j, j + 1
    return None


def _some_to_none(section: str, analysis: _Analysis, i: int) -> list[Mutation]:
    """``some e`` → ``none`` for an argument ``e`` that is one atom or bracket group."""
    toks = analysis.tokens
    argument = _argument_after(analysis, i, lambda t: t.kind in _ATOMS and t.kind != FIELD)
    if argument is None:
        return []
    j, end = argument
    while (
        end < analysis.eof
        and not toks[end].space_before
        and (toks[end].kind == FIELD or (toks[end].is_sym("[") and analysis.is_index_bracket(end)))
    ):
        end = analysis.closer[end] + 1 if analysis.is_opener(end) else end + 1
    if end < analysis.eof and toks[end].is_sym("!", "?") and not toks[end].space_before:
        end += 1
    if any(analysis.skip[j:end]):
        return []
    tok = toks[i]
    return [
        Mutation(
            section,
            tok.line,
            tok.col,
            "option",
            "some-to-none",
            f"{section} line {tok.line}: `{_span(analysis, i, end)}` → `none`",
            (Edit(tok.offset, toks[end - 1].end, "none"),),
        )
    ]


def _range_bound(section: str, analysis: _Analysis, i: int) -> list[Mutation]:
    """``[a:b]`` → ``[a:b + 1]`` / ``[a:b - 1]`` (a literal ``b`` is left to the constant operator)."""
    toks = analysis.tokens
    close = analysis.closer[i]
    colon = analysis.sym_in_group(i, ":")
    if colon is None or analysis.skip[colon]:
        return []
    second = analysis.find_same_level(colon, lambda t: t.is_sym(":"), close)
    end = second if second is not None else close
    bound = toks[colon + 1 : end]
    if not bound or (len(bound) == 1 and bound[0].kind == NUM) or any(analysis.skip[colon + 1 : end]):
        return []
    at = bound[-1].end
    first = bound[0]
    return [
        _insertions(
            section,
            first,
            "range",
            f"range-end{sign}1",
            f"range end `{_span(analysis, colon + 1, end)}` {sign} 1",
            [Edit(at, at, f" {sign} 1")],
        )
        for sign in ("+", "-")
    ]


def _range_argument(section: str, analysis: _Analysis, i: int) -> list[Mutation]:
    """``List.range n`` → ``List.range (n + 1)`` / ``(n - 1)``."""
    toks = analysis.tokens
    argument = _argument_after(analysis, i, lambda t: t.kind == IDENT)  # a literal is left to the constant operator
    if argument is None:
        return []
    j, end = argument
    while end < analysis.eof and toks[end].kind == FIELD and not toks[end].space_before:
        end += 1
    if any(analysis.skip[j:end]):
        return []
    start_offset, end_offset = toks[j].offset, toks[end - 1].end
    return [
        _insertions(
            section,
            toks[j],
            "range",
            f"range-arg{sign}1",
            f"`{toks[i].text} {_span(analysis, j, end)}` with argument {sign} 1",
            [Edit(start_offset, start_offset, "("), Edit(end_offset, end_offset, f" {sign} 1)")],
        )
        for sign in ("+", "-")
    ]


def _negate_condition(section: str, analysis: _Analysis, i: int) -> list[Mutation]:
    toks = analysis.tokens
    end = analysis.find_same_level(i, lambda t: t.is_kw("then"), analysis.block_end(i))
    if end is None or end == i + 1:
        return []
    nested = analysis.find_same_level(i, lambda t: t.is_kw("if"), end)
    if nested is not None or any(analysis.skip[i + 1 : end]):
        return []
    start_offset, end_offset = toks[i + 1].offset, toks[end - 1].end
    return [
        _insertions(
            section,
            toks[i],
            "condition",
            "if-negated",
            f"negate the condition `{_span(analysis, i + 1, end)}`",
            [Edit(start_offset, start_offset, "¬("), Edit(end_offset, end_offset, ")")],
        )
    ]


def _span(analysis: _Analysis, start: int, end: int) -> str:
    toks = analysis.tokens
    return analysis.text[toks[start].offset : toks[end - 1].end]


# ---------------------------------------------------------------------------------------------
# Whole-result mutations of the code section


def whole_result_mutations(code: str, return_type: LeanType) -> list[Mutation]:
    """``!(body)`` for a ``Bool`` result; ``(body) + 1`` and ``(body) - 1`` for ``Nat``/``Int``."""
    if not isinstance(return_type, NamedType) or return_type.args:
        return []
    name = return_type.name
    if name not in ("Bool", "Nat", "Int"):
        return []
    span = body_span(code)
    if span is None:
        return []
    body_start, body_end, first = span
    indent = " " * first.col
    # The closing parenthesis goes on its own line: the body may end with a `--` comment.
    if name == "Bool":
        variants = [("negate-result", "!(", f"\n{indent})", "negate the whole result")]
    else:
        variants = [
            (f"result{sign}1", "(", f"\n{indent}) {sign} 1", f"the whole result {sign} 1")
            for sign in ("+", "-")
        ]
    return [
        Mutation(
            "code",
            first.line,
            first.col,
            "result",
            change,
            description,
            (Edit(body_start, body_start, opening), Edit(body_end, body_end, closing)),
        )
        for change, opening, closing, description in variants
    ]


def body_span(code: str) -> tuple[int, int, Token] | None:
    """``(start, end, first token)`` of the body of a ``code`` section: from its first token to the
    end of its last token before a trailing ``where``/``termination_by``/``decreasing_by`` clause;
    ``None`` when the text does not lex or is empty."""
    try:
        toks = tokenize(code)
    except LeanSyntaxError:
        return None
    if len(toks) < 2:
        return None
    depth = 0
    split = len(code)
    for tok in toks:
        if tok.kind == SYM and tok.value in _OPENERS:
            depth += 1
        elif tok.kind == SYM and tok.value in _CLOSERS:
            depth -= 1
        elif depth == 0 and (
            tok.is_kw("where")
            or (
                tok.is_kw("termination_by", "decreasing_by") and tok.newline_before and tok.col <= toks[0].col
            )
        ):
            # (a `termination_by` indented deeper belongs to a `let rec` inside the body)
            split = tok.offset
            break
    body_end = max((t.end for t in toks if t.kind != EOF and t.end <= split), default=0)
    return toks[0].offset, body_end, toks[0]
