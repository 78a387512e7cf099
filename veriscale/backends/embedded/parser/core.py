"""The parser's base: token cursor, errors, layout state and helpers, precedence levels.

:class:`ParserCore` holds what every construct needs: the tokens and the position in them, the
column saved by the innermost ``withPosition`` (Lean's ``checkColGt``), the ``do``-forbidden flag,
the frames of nested actions ``(← e)``, and the skipping of tactic blocks and termination hints by
layout. The constructs themselves are mixins over it (:mod:`.terms`, :mod:`.binders`,
:mod:`.compound`, :mod:`.do_notation`, :mod:`.commands`), composed in :class:`.parse.Parser`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from veriscale.backends.embedded import ast as A
from veriscale.lean.lexer import EOF, IDENT, KEYWORD, SYM, LeanSyntaxError, Token

MAX_PREC = 1024
ARG_PREC = 1023
LEAD_PREC = 1022
MIN_PREC = 10

_OPENERS = ("(", "[", "{", "⟨", "#[")
_CLOSERS = (")", "]", "}", "⟩")
_DECL_TAIL_KEYWORDS = ("decreasing_by", "termination_by", "where", "deriving")
"""Keywords that end a declaration's body (a skipped layout or tactic block stops there)."""


@dataclass
class ParsedFile:
    commands: list[A.Node] = field(default_factory=list)

    @property
    def errors(self) -> list[A.CommandError]:
        return [c for c in self.commands if isinstance(c, A.CommandError)]


# ---------------------------------------------------------------------------------------------


class ParserCore:
    """The state of one parse and the helpers shared by every construct."""

    def __init__(self, tokens: list[Token], source: str) -> None:
        self.toks = tokens
        self.i = 0
        self.src = source
        self.pos_col = -1
        """Column saved by the innermost ``withPosition`` (-1: none)."""
        self.no_do = False
        """``withForbidden "do"``: inside the collection of a ``for`` / condition of ``while``."""
        self.lift_frames: list[list[A.Node]] = []
        """Nested actions ``(← e)`` of the do elements being parsed, innermost last: each becomes
        a ``let x ← e`` placed before its element (Lean's ``expandLiftMethod``)."""
        self.lift_barrier: str | None = None
        """Why a nested action here cannot be lifted to its do element (None: it can)."""
        self.lift_count = 0
        self.doc_allowed: set[int] = set()
        """Indices of the tokens a doc comment may precede (see :meth:`allow_doc`)."""

    # -- doc comments -----------------------------------------------------------------------

    def allow_doc(self) -> None:
        """The current token starts a construct whose grammar begins with an optional doc comment
        (``declModifiers``, ``letRecDecl``, a structure field, a constructor)."""
        self.doc_allowed.add(self.i)

    def check_doc_comments(self, command_start: bool = False) -> None:
        """Lean reads ``/--`` and ``/-!`` as tokens, not whitespace (``whitespace`` stops before
        them), so one anywhere its grammar has no place for it is a parse error. A module doc
        ``/-!`` is a command of its own: it may only precede the start of a command
        (``command_start``: the first token of these tokens is one)."""
        for j, t in enumerate(self.toks):
            doc = t.doc_before
            if doc is None or t.kind == EOF:
                continue
            if doc.kind == "module_doc" and command_start and j == 0:
                continue
            if doc.kind == "doc" and j in self.doc_allowed:
                continue
            opener = "/--" if doc.kind == "doc" else "/-!"
            exc = LeanSyntaxError(doc.line, doc.col, f"unexpected token '{opener}'; expected term")
            exc.lean_rejects = True
            raise exc

    # -- token helpers --------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = min(self.i + k, len(self.toks) - 1)
        return self.toks[j]

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != EOF:
            self.i += 1
        return t

    def type_ascription(self) -> tuple[A.Node | None, str]:
        """An optional ``: T``: the type and its source text, or ``(None, "")``."""
        if not self.at_sym(":"):
            return None, ""
        self.advance()
        start = self.i
        ty = self.term()
        return ty, self.text_from(start)

    def name_or_hole(self) -> str:
        """Consume an identifier or ``_`` (the caller checked it is one) and return its text."""
        token = self.advance()
        return str(token.value) if token.kind == IDENT else "_"

    @property
    def prev_end(self) -> int:
        return self.toks[self.i - 1].end if self.i > 0 else 0

    def error(self, message: str, tok: Token | None = None) -> LeanSyntaxError:
        t = tok or self.tok
        return LeanSyntaxError(t.line, t.col, message)

    def lean_error(self, message: str, tok: Token | None = None) -> LeanSyntaxError:
        """A syntax error Lean's parser gives too: raised only where Lean's grammar has no rule
        that could go on (a submission with it is rejected, not merely unread)."""
        exc = self.error(message, tok)
        exc.lean_rejects = True
        return exc

    def at_sym(self, *syms: str) -> bool:
        t = self.tok
        return t.kind == SYM and t.value in syms

    def at_kw(self, *words: str) -> bool:
        t = self.tok
        return t.kind == KEYWORD and t.value in words

    def expect_sym(self, sym: str) -> Token:
        if not self.at_sym(sym):
            raise self.error(f"expected '{sym}', found {self.tok.describe()}")
        return self.advance()

    def expect_kw(self, word: str) -> Token:
        if not self.at_kw(word):
            raise self.error(f"expected '{word}', found {self.tok.describe()}")
        return self.advance()

    def expect_ident(self) -> Token:
        if self.tok.kind != IDENT:
            raise self.error(f"expected identifier, found {self.tok.describe()}")
        return self.advance()

    def text_from(self, start_tok_index: int) -> str:
        if start_tok_index >= self.i:
            return ""
        return self.src[self.toks[start_tok_index].offset : self.prev_end]

    # -- brackets and nested actions -----------------------------------------------------

    def enter_brackets(self) -> tuple[int, bool]:
        saved = (self.pos_col, self.no_do)
        self.pos_col = -1
        self.no_do = False
        return saved

    def leave_brackets(self, saved: tuple[int, bool]) -> None:
        self.pos_col, self.no_do = saved

    def with_lift_barrier(self, reason: str | None) -> str | None:
        """Set the lift barrier and return the previous one (to restore)."""
        saved = self.lift_barrier
        if reason is None or saved is None:
            self.lift_barrier = reason
        return saved

    # -- layout: termination hints, tactic blocks ------------------------------------------

    def skip_termination_hints(self) -> tuple[str, ...]:
        """Skip ``termination_by``/``decreasing_by`` clauses; return which were given (the
        elaborator's termination check needs to know, not their text)."""
        hints: list[str] = []
        self.last_measure: A.Node | None = None
        self.last_decreasing: str = ""
        self.last_binders: tuple[str, ...] = ()
        while self.at_kw("termination_by", "decreasing_by"):
            kw = self.advance()
            hints.append(kw.value)
            start = self.i
            if kw.value == "decreasing_by":
                self.skip_tactic_block(kw)
                self.last_decreasing = self.text_from(start)
            else:
                self.skip_layout_block(kw.col, kw.line)
                self.last_measure = self._measure(start, self.i)
        return tuple(hints)

    def _attach_hints(self, node: A.LetDecl | A.DefCmd) -> None:
        node.termination_hints = self.skip_termination_hints()
        node.termination_measure = self.last_measure
        node.decreasing_tactic = self.last_decreasing
        node.termination_binders = self.last_binders

    def _measure(self, start: int, end: int) -> A.Node | None:
        """The measure of ``termination_by e`` (``None`` for other forms: binders, ``structural``)."""
        toks = self.toks[start:end]
        arrows = [k for k, t in enumerate(toks) if t.kind == SYM and t.value == "=>"]
        if arrows:
            # `termination_by x y => e`: names for the parameters after the colon
            head = toks[:arrows[0]]
            if len(arrows) > 1 or not head or not all(t.kind == IDENT and "." not in t.value for t in head):
                return None
            self.last_binders = tuple(t.value for t in head)
            toks = toks[arrows[0] + 1:]
        if not toks or toks[0].kind == IDENT and toks[0].value == "structural":
            self.last_binders = ()
            return None
        last = toks[-1]
        eof = Token(EOF, "", "", last.line, last.col, last.end, last.end, True, True)
        sub = type(self)(toks + [eof], self.src)  # the whole parser, not just this base
        try:
            term = sub.term()
        except LeanSyntaxError:
            return None
        return term if sub.tok.kind == EOF else None

    def skip_layout_block(self, col: int, line: int) -> None:
        """Skip tokens up to a line starting at or left of ``col``, a closer or a hint keyword."""

        def ends_block(t: Token) -> bool:
            return (
                (t.newline_before and t.col <= col and t.line != line)
                or (t.kind == SYM and t.value in _CLOSERS)
                or (t.kind == KEYWORD and t.value in _DECL_TAIL_KEYWORDS)
            )

        self.skip_balanced(ends_block)

    def skip_tactic_block(self, by_tok: Token) -> None:
        """Skip a tactic sequence after ``by``: tactics stay right of or at the first one's column
        (on later lines), and the block ends at an unmatched closer or ``,`` in brackets."""
        first = self.tok
        if first.kind == EOF:
            return

        def ends_block(t: Token) -> bool:
            if t.newline_before and t.line != by_tok.line:
                if t.col < first.col:
                    return True
                # `by simp` on one line: later lines belong to it only when indented past the line's start
                if first.line == by_tok.line and t.col <= self.pos_col:
                    return True
            if t.kind == SYM:
                return t.value in _CLOSERS or t.value == ","
            return t.kind == KEYWORD and (
                t.value in _DECL_TAIL_KEYWORDS or (t.value in ("then", "else", "with") and t.line == by_tok.line)
            )

        self.skip_balanced(ends_block)

    def skip_balanced(self, ends_at: Callable[[Token], bool]) -> None:
        """Skip tokens, keeping brackets balanced, up to the end of input or a token outside all
        brackets opened here on which ``ends_at`` holds."""
        depth = 0
        while self.tok.kind != EOF:
            t = self.tok
            if depth == 0 and ends_at(t):
                return
            if t.kind == SYM and t.value in _OPENERS:
                depth += 1
            elif t.kind == SYM and t.value in _CLOSERS:
                depth -= 1
            self.advance()

    def by_block(self) -> A.Node:
        t = self.advance()  # by
        start = self.i
        self.skip_tactic_block(t)
        return A.ProofTerm(t.line, t.col, "by " + self.text_from(start))

    def after_decl_separator(self) -> None:
        if self.at_sym(";"):
            self.advance()

    if TYPE_CHECKING:
        # Implemented by the mixins (see :class:`.parse.Parser`); declared here so that each mixin
        # type-checks on its own against this base. Not defined at run time: no fallback to hide a
        # missing method.
        def term(self, prec: int = 0) -> A.Node: ...
        def quantifier(self, t: Token, kind: str) -> A.Node: ...
        def fun_rest(self, t: Token) -> A.Node: ...
        def bracketed_binder(self) -> A.Binder: ...
        def decl_binders(self) -> list[A.Binder]: ...
        def if_term(self) -> A.Node: ...
        def match_term(self) -> A.Node: ...
        def match_discrs(self) -> tuple[list[A.Node], list[str | None]]: ...
        def match_alts(self, rhs_do: bool = False) -> list[A.MatchAlt]: ...
        def let_decl(self, let_tok: Token, allow_arrow: bool = False) -> tuple[A.LetDecl, bool]: ...
        def let_rec_decls(self, let_tok: Token) -> list[A.LetDecl]: ...
        def let_term(self) -> A.Node: ...
        def have_term(self) -> A.Node: ...
        def have_decl(self, t: Token) -> A.LetDecl: ...
        def do_seq(self) -> A.DoSeq: ...
