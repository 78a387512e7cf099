"""Parser for the Lean 4 subset of task files and model-generated code.

A Pratt parser over the tokens of :mod:`.lexer`, following Lean's grammar where it matters:

* precedences and associativity of the notations in Lean's ``Init`` (``+`` is ``infixl:65``,
  ``^`` ``infixr:80``, ``¬``/``!`` take an argument at 40, prefix ``-`` is ``prefix:75``, ``∧`` is
  ``infixr:35``, ``|>`` and ``<|`` are at ``min``, ...);
* application arguments need whitespace before them and must start in a column greater than the
  saved *position* (Lean's ``checkColGt``); ``let``/``have``, ``do`` elements and ``match``
  alternatives save the position, brackets clear it. That is what ends ``let x := f a`` at a
  following line that starts in the column of ``let``;
* ``match`` alternatives continue while ``|`` is at or right of the first one's column;
* ``fun`` and ``do`` can be the last argument of an application (``xs.map fun x => ...``,
  ``Id.run do ...``), and ``do`` is forbidden in the collection of ``for ... in ... do``;
* tactic blocks (``by ...``, ``decreasing_by ...``) and theorem bodies are skipped by layout, not
  parsed.

Some notations are expanded here, as Lean's macros do, into nodes the evaluator already knows:
nested actions ``(← e)`` become ``let x ← e`` before their do element (``expandLiftMethod``),
``let pat := e | alt`` in a do block becomes a ``match`` over the rest of the block, slices
``xs[a:b]`` become ``Array.toSubarray xs a b``, and ``a ^^ b`` becomes ``Bool.xor a b``.

A file is split into commands at column-0 command keywords; each command parses on its own, so a
syntax error is recorded on that command (:class:`~.ast.CommandError`) and the rest still parse.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from veriscale.backends.embedded import ast as A
from veriscale.lean.lexer import (
    CHAR,
    COMMAND_KEYWORDS,
    DOTIDENT,
    EOF,
    ERROR,
    FIELD,
    IDENT,
    INTERP,
    KEYWORD,
    NUM,
    SCI,
    STR,
    SYM,
    InterpPiece,
    LeanSyntaxError,
    Token,
    tokenize,
)

MAX_PREC = 1024
ARG_PREC = 1023
LEAD_PREC = 1022
MIN_PREC = 10

# symbol -> (precedence, minimum precedence of the left operand, precedence of the right operand)
_BINOPS: dict[str, tuple[int, int, int]] = {}


def _infixl(p: int, *ops: str) -> None:
    for op in ops:
        _BINOPS[op] = (p, p, p + 1)


def _infixr(p: int, *ops: str) -> None:
    for op in ops:
        _BINOPS[op] = (p, p + 1, p)


def _infix(p: int, *ops: str) -> None:
    for op in ops:
        _BINOPS[op] = (p, p + 1, p + 1)


_infixl(65, "+", "-", "++", "∪")
_infixl(70, "*", "/", "%", "∩")
_infix(70, "\\")
_infixr(80, "^")  # Prelude: `infixr:80 " ^ " => HPow.hPow`
_infixr(67, "::")
_infix(50, "=", "≠", "==", "!=", "<", ">", "≤", "≥", "∣", "⊆", "⊂", "≈", "≍")
_BINOPS["∈"] = (50, 50, 50)
_BINOPS["∉"] = (50, 50, 50)
_infixr(35, "∧", "×", "×'")
_infixr(30, "∨", "⊕", "⊕'")  # `infixr:30 " ⊕ " => Sum`
_infixl(35, "&&")
_infixl(30, "||")
_infix(20, "↔")
_BINOPS["→"] = (25, 0, 25)
_infixr(90, "∘")
_infixl(55, ">>=")
_infixr(100, "<$>")
_BINOPS["<*>"] = (60, 60, 61)
_infixr(60, ">>")
_BINOPS["<|>"] = (20, 21, 20)
_BINOPS["|>"] = (MIN_PREC, 0, MIN_PREC + 1)
_BINOPS["<|"] = (MIN_PREC, 0, MIN_PREC)
_BINOPS["$"] = (MIN_PREC, 0, MIN_PREC)
_infixl(55, "|||")
_infixl(60, "&&&")
_infixl(58, "^^^")
_infixl(33, "^^")  # namespace Bool: `infixl:33 " ^^ " => xor`

# notations that are plain function applications: built as such, so no evaluator support is needed
_BINOP_FUNCTIONS = {"^^": "Bool.xor"}
_infixl(75, "<<<", ">>>")
_infixr(73, "•")

_CLOSERS = frozenset({")", "]", "}", "⟩", ",", ":=", "=>", "|", ";", ":", "⦄"})
_COMMAND_KEYWORDS = COMMAND_KEYWORDS
_MODIFIER_KEYWORDS = frozenset({"private", "protected", "noncomputable", "partial", "unsafe", "local", "scoped"})
_BINDER_PRED_OPS = frozenset({"∈", "∉", "<", "≤", ">", "≥", "≠", "⊆"})


@dataclass
class ParsedFile:
    commands: list[A.Node] = field(default_factory=list)

    @property
    def errors(self) -> list[A.CommandError]:
        return [c for c in self.commands if isinstance(c, A.CommandError)]


# ---------------------------------------------------------------------------------------------


class Parser:
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

    @property
    def prev_end(self) -> int:
        return self.toks[self.i - 1].end if self.i > 0 else 0

    def error(self, message: str, tok: Token | None = None) -> LeanSyntaxError:
        t = tok or self.tok
        return LeanSyntaxError(t.line, t.col, message)

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

    # -- terms ----------------------------------------------------------------------------

    def term(self, prec: int = 0) -> A.Node:
        left, left_prec = self.leading(prec)
        return self.trailing(left, left_prec, prec)

    def can_start_arg(self, t: Token) -> bool:
        if t.kind in (IDENT, NUM, SCI, STR, CHAR, INTERP, DOTIDENT):
            return True
        if t.kind == SYM:
            return t.value in ("(", "[", "#[", "⟨", "{", "_", "·", "!", "¬", "↑", "@", "λ", "⦃", "∅")
        if t.kind == KEYWORD:
            if t.value == "do":
                return not self.no_do
            return t.value in ("fun", "Type", "Prop", "Sort", "sorry")
        return False

    def trailing(self, left: A.Node, left_prec: int, prec: int) -> A.Node:
        while True:
            t = self.tok
            if t.kind == FIELD and not t.space_before:
                self.advance()
                for part in t.parts:
                    left = A.Proj(t.line, t.col, left, part)
                left_prec = MAX_PREC
                continue
            if t.kind == SYM and t.value == "[" and not t.space_before and left_prec >= MAX_PREC:
                left = self.index_suffix(left)
                left_prec = MAX_PREC
                continue
            if t.kind == SYM and t.value == "@" and not t.space_before and isinstance(left, A.Ident):
                # named pattern `x@p`
                self.advance()
                if self.tok.kind == IDENT and self.peek().is_sym(":"):
                    self.advance()
                    self.advance()
                rhs = self.term(MAX_PREC)
                left = A.BinOp(t.line, t.col, "@", left, rhs)
                left_prec = MAX_PREC
                continue
            if (
                prec <= LEAD_PREC
                and left_prec >= MAX_PREC
                and t.space_before
                and t.col > self.pos_col
                and self.can_start_arg(t)
            ):
                args: list[A.Node] = []
                while True:
                    t2 = self.tok
                    if not (t2.space_before and t2.col > self.pos_col and self.can_start_arg(t2)):
                        break
                    args.append(self.argument())
                left = A.App(left.line, left.col, left, args)
                left_prec = LEAD_PREC
                continue
            if t.kind == SYM and t.value == "|>.":
                if MIN_PREC < prec:
                    break
                self.advance()
                ft = self.tok
                if ft.kind == IDENT:
                    self.advance()
                    parts = ft.parts
                elif ft.kind == NUM:
                    self.advance()
                    parts = (str(ft.value),)
                else:
                    raise self.error("expected field name after '|>.'")
                for part in parts:
                    left = A.Proj(ft.line, ft.col, left, part)
                args = []
                while True:
                    t2 = self.tok
                    if not (t2.space_before and t2.col > self.pos_col and self.can_start_arg(t2)):
                        break
                    args.append(self.argument())
                if args:
                    left = A.App(left.line, left.col, left, args)
                left_prec = MIN_PREC
                continue
            if t.kind == SYM and t.value == "▸":
                # `h ▸ e`: a cast along an equation; the value is `e`
                if 75 < prec:
                    break
                self.advance()
                left = self.term(75)
                left_prec = 75
                continue
            if t.kind == SYM and t.value in _BINOPS:
                p, lhs_min, rhs_prec = _BINOPS[t.value]
                if p < prec or left_prec < lhs_min:
                    break
                self.advance()
                rhs = self.term(rhs_prec)
                fn_name = _BINOP_FUNCTIONS.get(t.value)
                if fn_name is not None:
                    left = A.App(left.line, left.col, A.Ident(t.line, t.col, fn_name), [left, rhs])
                else:
                    left = A.BinOp(t.line, t.col, t.value, left, rhs)
                left_prec = p
                continue
            break
        return left

    def argument(self) -> A.Node:
        t = self.tok
        if t.is_sym("(") and self.peek().kind == IDENT and self.peek(2).is_sym(":="):
            self.advance()
            name = self.advance().value
            self.advance()
            saved = self.enter_brackets()
            value = self.term()
            self.leave_brackets(saved)
            self.expect_sym(")")
            return A.NamedArg(t.line, t.col, name, value)
        return self.term(ARG_PREC)

    def enter_brackets(self) -> tuple[int, bool]:
        saved = (self.pos_col, self.no_do)
        self.pos_col = -1
        self.no_do = False
        return saved

    def leave_brackets(self, saved: tuple[int, bool]) -> None:
        self.pos_col, self.no_do = saved

    def index_suffix(self, coll: A.Node) -> A.Node:
        t = self.advance()  # [
        saved = self.enter_brackets()
        if self.at_sym(":"):
            self.advance()
            stop = self.term()
            self.leave_brackets(saved)
            self.expect_sym("]")
            return self.slice(t, coll, A.NumLit(t.line, t.col, 0), stop)
        idx = self.term()
        if self.at_sym(":"):
            self.advance()
            stop_or_none = None if self.at_sym("]") else self.term()
            self.leave_brackets(saved)
            self.expect_sym("]")
            return self.slice(t, coll, idx, stop_or_none)
        self.leave_brackets(saved)
        self.expect_sym("]")
        mode = "plain"
        nt = self.tok
        if nt.kind == SYM and not nt.space_before and nt.value in ("!", "?"):
            self.advance()
            mode = nt.value
        elif nt.kind == SYM and nt.value == "'" and not nt.space_before:
            self.advance()
            self.term(MAX_PREC)  # the proof of `i < xs.size`; irrelevant at run time
            mode = "proof"
        return A.Index(t.line, t.col, coll, idx, mode)

    def slice(self, t: Token, coll: A.Node, start: A.Node, stop: A.Node | None) -> A.Node:
        """``xs[a:b]``, ``xs[:b]``, ``xs[a:]``, desugared like Lean's ``macro_rules`` in
        ``Init/Data/Array/Subarray``: ``Array.toSubarray xs a b``, ``Array.toSubarray xs 0 b`` and
        ``let a := xs; Array.toSubarray a start a.size``."""
        fn = A.Ident(t.line, t.col, "Array.toSubarray")
        if stop is not None:
            return A.App(t.line, t.col, fn, [coll, start, stop])
        name = "a✝slice"  # `✝`: not a name user code can write, so nothing is captured
        var = A.Ident(t.line, t.col, name)
        call = A.App(t.line, t.col, fn, [var, start, A.Proj(t.line, t.col, var, "size")])
        decl = A.LetDecl(t.line, t.col, name, [], None, "", coll)
        return A.Let(t.line, t.col, decl, call)

    def leading(self, prec: int) -> tuple[A.Node, int]:
        t = self.tok
        k = t.kind
        if k == IDENT:
            self.advance()
            return A.Ident(t.line, t.col, t.value), MAX_PREC
        if k == NUM:
            self.advance()
            return A.NumLit(t.line, t.col, t.value), MAX_PREC
        if k == SCI:
            self.advance()
            return A.SciLit(t.line, t.col, t.value[0], t.value[1], t.text), MAX_PREC
        if k == STR:
            self.advance()
            return A.StrLit(t.line, t.col, t.value), MAX_PREC
        if k == CHAR:
            self.advance()
            return A.CharLit(t.line, t.col, t.value), MAX_PREC
        if k == INTERP:
            self.advance()
            return self.interpolation(t), MAX_PREC
        if k == DOTIDENT:
            self.advance()
            return A.DotIdent(t.line, t.col, t.value), MAX_PREC
        if k == SYM:
            v = t.value
            if v == "(":
                return self.paren(), MAX_PREC
            if v == "[":
                return self.list_or_range(), MAX_PREC
            if v == "#[":
                self.advance()
                items = self.comma_items("]")
                return A.ArrayLit(t.line, t.col, items), MAX_PREC
            if v == "⟨":
                self.advance()
                items = self.comma_items("⟩")
                return A.AnonCtor(t.line, t.col, items), MAX_PREC
            if v == "{":
                return self.brace(), MAX_PREC
            if v == "_":
                self.advance()
                return A.Hole(t.line, t.col), MAX_PREC
            if v == "∅":
                self.advance()
                return A.EmptyCollection(t.line, t.col), MAX_PREC
            if v == "·":
                self.advance()
                return A.Cdot(t.line, t.col), MAX_PREC
            if v == "¬":
                self.advance()
                return A.UnOp(t.line, t.col, "¬", self.term(40)), MAX_PREC
            if v == "!":
                self.advance()
                return A.UnOp(t.line, t.col, "!", self.term(40)), MAX_PREC
            if v == "-":
                if prec > 75:
                    raise self.error("unexpected '-'; a negative argument needs parentheses")
                self.advance()
                return A.UnOp(t.line, t.col, "-", self.term(75)), 75
            if v == "↑":
                self.advance()
                return A.UnOp(t.line, t.col, "↑", self.term(MAX_PREC)), MAX_PREC
            if v == "@":
                self.advance()
                return A.Explicit(t.line, t.col, self.term(MAX_PREC)), MAX_PREC
            if v == "λ":
                self.advance()
                return self.fun_rest(t), MAX_PREC
            if v in ("∀", "∃", "∃!"):
                if prec > LEAD_PREC:
                    raise self.error(f"unexpected '{v}' in argument position; add parentheses")
                self.advance()
                return self.quantifier(t, "forall" if v == "∀" else ("exists" if v == "∃" else "exists!")), LEAD_PREC
            if v in ("∑", "∏"):
                raise self.error(f"big operator '{v}' (Finset) is not supported")
            if v == "←":
                # `liftMethod := leading_parser:minPrec leftArrow >> termParser`, usually `(← e)`
                if prec > MIN_PREC:
                    raise self.error("unexpected '←'; a nested action needs parentheses: (← e)")
                self.advance()
                return self.lift_action(t, self.term()), MIN_PREC
        if k == KEYWORD:
            v = t.value
            if v == "open":
                # `open A B in e` as a term (`Lean.Parser.Term.open`): the namespaces are open in `e`
                self.advance()
                names: list[str] = []
                while self.tok.kind == IDENT:
                    names.append(str(self.advance().value))
                if not names or not self.at_kw("in"):
                    raise self.error(f"expected namespaces and 'in' after 'open', found {self.tok.describe()}")
                self.advance()
                return A.OpenTerm(t.line, t.col, names, self.term()), 0
            if v == "fun":
                self.advance()
                return self.fun_rest(t), MAX_PREC
            if v == "do":
                self.advance()
                seq = self.do_seq()
                return A.Do(t.line, t.col, seq), ARG_PREC
            if v in ("Type", "Prop", "Sort"):
                self.advance()
                if v != "Prop" and self.tok.kind in (IDENT, NUM) and self.tok.space_before and self.tok.line == t.line:
                    self.advance()  # universe level
                return A.Sort(t.line, t.col, v), MAX_PREC
            if v == "sorry":
                self.advance()
                return A.Sorry(t.line, t.col), MAX_PREC
            if prec > LEAD_PREC:
                raise self.error(f"unexpected '{v}' in argument position; add parentheses")
            if v == "if":
                return self.if_term(), LEAD_PREC
            if v == "match":
                return self.match_term(), LEAD_PREC
            if v == "let":
                return self.let_term(), LEAD_PREC
            if v == "have":
                return self.have_term(), LEAD_PREC
            if v == "show":
                self.advance()
                ty = self.term()
                if self.at_kw("from"):
                    self.advance()
                    return A.Show(t.line, t.col, ty, self.term()), LEAD_PREC
                if self.at_kw("by"):
                    return self.by_block(), LEAD_PREC
                return A.Show(t.line, t.col, ty, ty), LEAD_PREC
            if v == "by":
                return self.by_block(), LEAD_PREC
            if v in ("forall", "exists"):
                self.advance()
                return self.quantifier(t, v), LEAD_PREC
            if v == "panic!":
                self.advance()
                msg = self.term()
                return A.App(t.line, t.col, A.Ident(t.line, t.col, "panic!"), [msg]), LEAD_PREC
            if v == "unreachable!":
                self.advance()
                return A.App(t.line, t.col, A.Ident(t.line, t.col, "panic!"), [A.StrLit(t.line, t.col, "unreachable code has been reached")]), LEAD_PREC
            if v in ("assert!", "dbg_trace"):
                self.advance()
                saved = self.pos_col
                self.pos_col = t.col
                cond = self.term()
                self.pos_col = saved
                if self.at_sym(";"):
                    self.advance()
                body = self.term()
                fn = "assert!" if v == "assert!" else "dbg_trace"
                return A.App(t.line, t.col, A.Ident(t.line, t.col, fn), [cond, body]), LEAD_PREC
            if v == "nomatch":
                raise self.error("'nomatch' is not supported")
        raise self.error(f"unexpected {t.describe()}")

    def lift_action(self, arrow: Token, action: A.Node) -> A.Node:
        """Record the nested action ``(← action)`` for the enclosing do element and stand for its
        result by a fresh variable."""
        if not self.lift_frames:
            raise self.error("invalid use of `(<- ...)`, must be nested inside a 'do' expression", arrow)
        if self.lift_barrier == "binder":
            raise self.error(
                "cannot lift `(<- ...)` over a binder (a `fun`, a `let` with parameters or a `match` "
                "alternative); add a `do` inside it",
                arrow,
            )
        if self.lift_barrier is not None:
            raise self.error(
                f"invalid use of `(<- ...)` in {self.lift_barrier}, must be nested inside a 'do' expression", arrow
            )
        self.lift_count += 1
        name = f"__do_lift✝{self.lift_count}"
        decl = A.LetDecl(arrow.line, arrow.col, name, [], None, "", action)
        self.lift_frames[-1].append(A.DoLet(arrow.line, arrow.col, decl, False, True))
        return A.Ident(arrow.line, arrow.col, name)

    def with_lift_barrier(self, reason: str | None) -> str | None:
        """Set the lift barrier and return the previous one (to restore)."""
        saved = self.lift_barrier
        if reason is None or saved is None:
            self.lift_barrier = reason
        return saved

    def interpolation(self, t: Token) -> A.Node:
        parts: list[str | A.Node] = []
        for piece in t.value:
            if isinstance(piece, str):
                parts.append(piece)
                continue
            assert isinstance(piece, InterpPiece)
            toks = tokenize(piece.text, piece.line, piece.col, piece.offset)
            sub = Parser(toks, self.src)
            # nested actions inside `{...}` belong to the enclosing do element
            sub.lift_frames, sub.lift_barrier, sub.lift_count = self.lift_frames, self.lift_barrier, self.lift_count
            term = sub.term()
            self.lift_count = sub.lift_count
            if sub.tok.kind != EOF:
                raise sub.error(f"unexpected {sub.tok.describe()} in interpolation")
            parts.append(term)
        return A.Interp(t.line, t.col, parts)

    def comma_items(self, closer: str) -> list[A.Node]:
        saved = self.enter_brackets()
        items: list[A.Node] = []
        if not self.at_sym(closer):
            while True:
                items.append(self.term())
                if self.at_sym(","):
                    self.advance()
                    if self.at_sym(closer):
                        break
                    continue
                break
        self.leave_brackets(saved)
        self.expect_sym(closer)
        return items

    def paren(self) -> A.Node:
        t = self.advance()
        saved = self.enter_brackets()
        try:
            if self.at_sym(")"):
                self.advance()
                return A.UnitLit(t.line, t.col)
            inner = self.term()
            if self.at_sym(":"):
                self.advance()
                if self.at_sym(")"):
                    self.advance()
                    return A.Paren(t.line, t.col, inner)
                start = self.i
                ty = self.term()
                text = self.text_from(start)
                self.expect_sym(")")
                return A.Paren(t.line, t.col, A.Ascription(t.line, t.col, inner, ty, text))
            if self.at_sym(","):
                items = [inner]
                while self.at_sym(","):
                    self.advance()
                    items.append(self.term())
                self.expect_sym(")")
                return A.Paren(t.line, t.col, A.Tuple(t.line, t.col, items))
            self.expect_sym(")")
            return A.Paren(t.line, t.col, inner)
        finally:
            self.leave_brackets(saved)

    def list_or_range(self) -> A.Node:
        t = self.advance()
        saved = self.enter_brackets()
        try:
            if self.at_sym("]"):
                self.advance()
                return A.ListLit(t.line, t.col, [])
            if self.at_sym(":"):
                self.advance()
                stop = self.term()
                step = None
                if self.at_sym(":"):
                    self.advance()
                    step = self.term()
                self.expect_sym("]")
                return A.RangeLit(t.line, t.col, None, stop, step)
            first = self.term()
            if self.at_sym(":"):
                self.advance()
                stop = self.term()
                step = None
                if self.at_sym(":"):
                    self.advance()
                    step = self.term()
                self.expect_sym("]")
                return A.RangeLit(t.line, t.col, first, stop, step)
            items = [first]
            while self.at_sym(","):
                self.advance()
                if self.at_sym("]"):
                    break
                items.append(self.term())
            self.expect_sym("]")
            return A.ListLit(t.line, t.col, items)
        finally:
            self.leave_brackets(saved)

    def brace(self) -> A.Node:
        t = self.advance()
        saved = self.enter_brackets()
        try:
            if self.at_sym("}"):
                self.advance()
                return A.StructInst(t.line, t.col, None, [], None, "")
            # `{ x := e, ... }` or `{ x, y }` (field abbreviations)
            if self.tok.kind == IDENT and (self.peek().is_sym(":=") or (self.peek().is_sym(",", "}") and "." not in self.tok.value)):
                return self.struct_fields(t, None)
            start = self.i
            first = self.term()
            if self.at_kw("with"):
                self.advance()
                return self.struct_fields(t, first)
            if self.at_sym("|") or (self.at_sym("/") and self.peek().is_sym("/")) or self.at_sym(":"):
                depth = 0
                while not (depth == 0 and self.at_sym("}")):
                    if self.tok.kind == EOF:
                        raise self.error("unterminated '{'")
                    if self.at_sym("(", "[", "{", "⟨", "#["):
                        depth += 1
                    elif self.at_sym(")", "]", "}", "⟩"):
                        depth -= 1
                    self.advance()
                text = self.text_from(start)
                self.advance()
                return A.SetBuilder(t.line, t.col, text)
            raise self.error("expected ':=', 'with' or '|' in '{ ... }'")
        finally:
            self.leave_brackets(saved)

    def struct_fields(self, t: Token, source: A.Node | None) -> A.Node:
        fields: list[tuple[str, A.Node]] = []
        ty: A.Node | None = None
        ty_text = ""
        # Lean parses the fields with `sepByIndent`, i.e. under `withPosition`: a value's arguments
        # must lie right of the first field's column, so a field on the next line in that column
        # starts a new field instead of being applied (`{ x := f\n  y := 2 }`).
        self.pos_col = self.tok.col
        while not self.at_sym("}"):
            if self.at_sym(".."):
                self.advance()
                continue
            if self.at_sym(":"):
                self.advance()
                start = self.i
                ty = self.term()
                ty_text = self.text_from(start)
                continue
            name_tok = self.expect_ident()
            if self.at_sym(":="):
                self.advance()
                value = self.term()
            else:
                value = A.Ident(name_tok.line, name_tok.col, name_tok.value)
            fields.append((name_tok.value, value))
            if self.at_sym(","):
                self.advance()
            elif not self.at_sym("}", ":", ".."):
                if self.tok.newline_before and self.tok.kind == IDENT and self.tok.col >= self.pos_col:
                    continue  # fields separated by line breaks (`checkColGe` against the first field)
                raise self.error(f"expected ',' or '}}' in structure instance, found {self.tok.describe()}")
        self.expect_sym("}")
        return A.StructInst(t.line, t.col, source, fields, ty, ty_text)

    # -- binders --------------------------------------------------------------------------

    def bracketed_binder(self) -> A.Binder:
        """``(a b : T)``, ``(x : T := d)``, ``{α : Type}``, ``{α}``, ``[BEq α]``, ``[inst : C α]``,
        ``⦃x : T⦄``."""
        t = self.advance()
        opener = t.value
        closer = {"(": ")", "{": "}", "[": "]", "⦃": "⦄"}[opener]
        kind = {"(": "explicit", "{": "implicit", "[": "inst", "⦃": "strict"}[opener]
        saved = self.enter_brackets()
        try:
            names: list[str] = []
            if opener == "[":
                if self.tok.kind == IDENT and self.peek().is_sym(":"):
                    names.append(self.advance().value)
                    self.advance()
                start = self.i
                ty = self.term()
                text = self.text_from(start)
                self.expect_sym("]")
                return A.Binder(t.line, t.col, names, ty, text, kind)
            while self.tok.kind == IDENT or self.at_sym("_"):
                names.append(self.advance().value if self.tok.kind == IDENT else (self.advance() and "_"))
            if not names:
                raise self.error("expected binder name")
            ty = None
            text = ""
            default = None
            if self.at_sym(":"):
                self.advance()
                start = self.i
                ty = self.term()
                text = self.text_from(start)
            if self.at_sym(":="):
                self.advance()
                default = self.term()
            self.expect_sym(closer)
            return A.Binder(t.line, t.col, names, ty, text, kind, None, default)
        finally:
            self.leave_brackets(saved)

    def decl_binders(self) -> list[A.Binder]:
        binders: list[A.Binder] = []
        while True:
            t = self.tok
            if t.is_sym("(", "{", "[", "⦃"):
                binders.append(self.bracketed_binder())
            elif t.kind == IDENT and len(t.parts) == 1:
                self.advance()
                binders.append(A.Binder(t.line, t.col, [t.value], None, ""))
            elif t.is_sym("_"):
                self.advance()
                binders.append(A.Binder(t.line, t.col, ["_"], None, ""))
            else:
                return binders

    def fun_binder_from_term(self, term: A.Node) -> A.Binder:
        line, col = term.line, term.col
        if isinstance(term, A.Ident) and "." not in term.name:
            return A.Binder(line, col, [term.name], None, "")
        if isinstance(term, A.Hole):
            return A.Binder(line, col, ["_"], None, "")
        if isinstance(term, A.Paren) and isinstance(term.term, A.Ascription):
            asc = term.term
            names = _simple_names(asc.term)
            if names is not None:
                return A.Binder(line, col, names, asc.type, asc.type_text)
            return A.Binder(line, col, [], asc.type, asc.type_text, "explicit", asc.term)
        if isinstance(term, A.Paren) and isinstance(term.term, A.Ident):
            return A.Binder(line, col, [term.term.name], None, "")
        return A.Binder(line, col, [], None, "", "explicit", term)

    def fun_rest(self, t: Token) -> A.Node:
        saved_barrier = self.with_lift_barrier("binder")  # no nested action is lifted out of a `fun`
        try:
            return self.fun_rest_inner(t)
        finally:
            self.lift_barrier = saved_barrier

    def fun_rest_inner(self, t: Token) -> A.Node:
        if self.at_sym("|"):
            alts = self.match_alts()
            return A.LambdaMatch(t.line, t.col, alts)
        binders: list[A.Binder] = []
        while not self.at_sym("=>", "↦", ":"):
            bt = self.tok
            if bt.is_sym("{", "[", "⦃"):
                binders.append(self.bracketed_binder())
                continue
            if bt.kind == EOF:
                raise self.error("expected '=>'")
            term = self.term(MAX_PREC)
            binders.append(self.fun_binder_from_term(term))
        if self.at_sym(":"):
            self.advance()
            start = self.i
            ty = self.term()
            text = self.text_from(start)
            for b in binders:
                if b.type is None and b.pattern is None:
                    b.type = ty
                    b.type_text = text
        # `basicFun` ends its binders with `unicodeSymbol " ↦" " =>"`: both arrows are accepted
        if self.at_sym("↦"):
            self.advance()
        else:
            self.expect_sym("=>")
        if not binders:
            raise self.error("expected binder")
        body = self.term()
        return A.Lambda(t.line, t.col, binders, body)

    def quantifier(self, t: Token, kind: str) -> A.Node:
        """``∀ x y, P`` / ``∀ (x : T) (y : U), P`` / ``∀ x : T, P`` / ``∀ x ∈ xs, P`` / ``∃ i < n, P``."""
        groups: list[tuple[list[str], A.Node | None, str, A.Node | None]] = []  # names, type, text, pattern
        pending: list[str] = []
        bound: tuple[str, A.Node] | None = None
        while True:
            # `many1 (binderIdent <|> bracketedBinder)`: plain names and brackets mix freely
            # (`∀ i (h : i < n), P`); a run of plain names before a bracket has no type.
            bt = self.tok
            if bt.kind == IDENT and len(bt.parts) == 1:
                self.advance()
                pending.append(bt.value)
            elif bt.is_sym("_"):
                self.advance()
                pending.append("_")
            elif bt.is_sym("(", "{", "[", "⦃", "⟨"):
                if pending:
                    groups.append((pending, None, "", None))
                    pending = []
                if bt.is_sym("⟨"):
                    groups.append(([], None, "", self.term(MAX_PREC)))
                else:
                    b = self.bracketed_binder()
                    groups.append((b.names, b.type, b.type_text, None))
            else:
                break
        if pending and groups and not self.at_sym(",", ":"):
            # binder predicates (`∀ x ∈ xs, P`) follow a single run of names only
            raise self.error(f"expected ',' or ':' after the binders, found {self.tok.describe()}")
        if pending:
            ty = None
            text = ""
            if self.at_sym(":"):
                self.advance()
                start = self.i
                ty = self.term()
                text = self.text_from(start)
            elif self.tok.kind == SYM and self.tok.value in _BINDER_PRED_OPS:
                op = self.advance().value
                bound = (op, self.term(51))
            groups.append((pending, ty, text, None))
        if not groups:
            raise self.error("expected binder after quantifier")
        self.expect_sym(",")
        body = self.term()
        # nest from the innermost binder outwards
        flat: list[tuple[str, A.Node | None, str, A.Node | None]] = []
        for names, ty, text, pat in groups:
            if pat is not None:
                flat.append(("_", ty, text, pat))
            for name in names:
                flat.append((name, ty, text, None))
        result = body
        for idx in range(len(flat) - 1, -1, -1):
            name, ty, text, pat = flat[idx]
            # a binder predicate applies to every name of the last group (`∀ x y ∈ s`)
            b = bound if (bound is not None and idx >= len(flat) - len(groups[-1][0])) else None
            result = A.Quant(t.line, t.col, kind, name, ty, text, b, result, pat)
        return result

    # -- compound terms -------------------------------------------------------------------

    def if_term(self) -> A.Node:
        t = self.advance()  # if
        if self.at_kw("let"):
            self.advance()
            pat = self.term()
            self.expect_sym(":=")
            value = self.term()
            self.expect_kw("then")
            then = self.term()
            self.expect_kw("else")
            els = self.term()
            return A.IfLet(t.line, t.col, pat, value, then, els)
        hyp = None
        if (self.tok.kind == IDENT or self.at_sym("_")) and self.peek().is_sym(":"):
            hyp = self.advance().value if self.tok.kind == IDENT else (self.advance() and "_")
            self.advance()
        cond = self.term()
        self.expect_kw("then")
        # Lean lifts nested actions only out of the condition of a pure `if`
        saved_barrier = self.with_lift_barrier("a branch of a pure `if`")
        try:
            then = self.term()
            self.expect_kw("else")
            els = self.term()
        finally:
            self.lift_barrier = saved_barrier
        return A.If(t.line, t.col, cond, then, els, hyp)

    def match_discrs(self) -> tuple[list[A.Node], list[str | None]]:
        # optional `(generalizing := true)` / `(motive := ...)`
        while self.at_sym("(") and self.peek().kind == IDENT and self.peek().value in ("generalizing", "motive") and self.peek(2).is_sym(":="):
            depth = 0
            while True:
                if self.at_sym("("):
                    depth += 1
                elif self.at_sym(")"):
                    depth -= 1
                    if depth == 0:
                        self.advance()
                        break
                if self.tok.kind == EOF:
                    raise self.error("unterminated '('")
                self.advance()
        discrs: list[A.Node] = []
        hyps: list[str | None] = []
        while True:
            hyp = None
            if self.tok.kind == IDENT and self.peek().is_sym(":"):
                hyp = self.advance().value
                self.advance()
            discrs.append(self.term())
            hyps.append(hyp)
            if self.at_sym(","):
                self.advance()
                continue
            break
        self.expect_kw("with")
        return discrs, hyps

    def match_term(self) -> A.Node:
        t = self.advance()
        saved_no_do = self.no_do
        discrs, hyps = self.match_discrs()
        self.no_do = saved_no_do
        alts = self.match_alts()
        return A.Match(t.line, t.col, discrs, hyps, alts)

    def match_alts(self, rhs_do: bool = False) -> list[A.MatchAlt]:
        if not self.at_sym("|"):
            raise self.error(f"expected '|', found {self.tok.describe()}")
        alts_col = self.tok.col
        saved = self.pos_col
        self.pos_col = alts_col
        saved_barrier = self.with_lift_barrier("binder")  # `matchAlts` is a binder for nested actions
        alts: list[A.MatchAlt] = []
        try:
            while self.at_sym("|") and self.tok.col >= alts_col:
                bar = self.advance()
                groups: list[list[A.Node]] = []
                while True:
                    pats = [self.term()]
                    while self.at_sym(","):
                        self.advance()
                        pats.append(self.term())
                    groups.append(pats)
                    if self.at_sym("|"):
                        self.advance()
                        continue
                    break
                self.expect_sym("=>")
                rhs: object = self.do_seq() if rhs_do else self.term()
                for pats in groups:
                    alts.append(A.MatchAlt(bar.line, bar.col, pats, rhs))
        finally:
            self.pos_col = saved
            self.lift_barrier = saved_barrier
        return alts

    def let_decl(self, let_tok: Token, allow_arrow: bool = False) -> tuple[A.LetDecl, bool]:
        """After ``let`` (and ``mut``). Returns the declaration and whether it used ``←``."""
        t = self.tok
        if t.kind == IDENT and len(t.parts) == 1 and not self.peek().is_sym("@"):
            self.advance()
            binders: list[A.Binder] = []
            while True:
                bt = self.tok
                if bt.is_sym("(", "{", "[", "⦃") and bt.space_before:
                    binders.append(self.bracketed_binder())
                elif bt.kind == IDENT and len(bt.parts) == 1:
                    self.advance()
                    binders.append(A.Binder(bt.line, bt.col, [bt.value], None, ""))
                elif bt.is_sym("_"):
                    self.advance()
                    binders.append(A.Binder(bt.line, bt.col, ["_"], None, ""))
                else:
                    break
            ty = None
            text = ""
            if self.at_sym(":"):
                self.advance()
                start = self.i
                ty = self.term()
                text = self.text_from(start)
            if self.at_sym("|"):
                alts = self.match_alts()
                return A.LetDecl(t.line, t.col, t.value, binders, ty, text, None, None, alts), False
            # a `let` with parameters is a binder: nested actions are not lifted out of its value
            saved_barrier = self.with_lift_barrier("binder") if binders else self.lift_barrier
            try:
                if allow_arrow and self.at_sym("←"):
                    self.advance()
                    value = self.term()
                    return A.LetDecl(t.line, t.col, t.value, binders, ty, text, value), True
                self.expect_sym(":=")
                value = self.term()
                return A.LetDecl(t.line, t.col, t.value, binders, ty, text, value), False
            finally:
                self.lift_barrier = saved_barrier
        if t.is_sym("_") and (self.peek().is_sym(":=", ":") or (allow_arrow and self.peek().is_sym("←"))):
            self.advance()
            ty = None
            text = ""
            if self.at_sym(":"):
                self.advance()
                start = self.i
                ty = self.term()
                text = self.text_from(start)
            arrow = False
            if allow_arrow and self.at_sym("←"):
                arrow = True
                self.advance()
            else:
                self.expect_sym(":=")
            value = self.term()
            return A.LetDecl(t.line, t.col, "_", [], ty, text, value), arrow
        # pattern let: `let (a, b) := e`, `let ⟨a, b⟩ := e`
        pat = self.term()
        ty = None
        text = ""
        if self.at_sym(":"):
            self.advance()
            start = self.i
            ty = self.term()
            text = self.text_from(start)
        arrow = False
        if allow_arrow and self.at_sym("←"):
            arrow = True
            self.advance()
        else:
            self.expect_sym(":=")
        value = self.term()
        return A.LetDecl(t.line, t.col, None, [], ty, text, value, pat), arrow

    def skip_termination_hints(self) -> tuple[str, ...]:
        """Skip ``termination_by``/``decreasing_by`` clauses; return which were given (the
        elaborator's termination check needs to know, not their text)."""
        hints: list[str] = []
        self.last_measure: A.Node | None = None
        self.last_decreasing: str = ""
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

    def _measure(self, start: int, end: int) -> A.Node | None:
        """The measure of ``termination_by e`` (``None`` for other forms: binders, ``structural``)."""
        toks = self.toks[start:end]
        if not toks or any(t.kind == SYM and t.value == "=>" for t in toks) or toks[0].kind == IDENT and toks[0].value == "structural":
            return None
        last = toks[-1]
        eof = Token(EOF, "", "", last.line, last.col, last.end, last.end, True, True)
        sub = Parser(toks + [eof], self.src)
        try:
            term = sub.term()
        except LeanSyntaxError:
            return None
        return term if sub.tok.kind == EOF else None

    def skip_layout_block(self, col: int, line: int) -> None:
        """Skip tokens up to a line starting at or left of ``col``, a closer or a hint keyword."""
        depth = 0
        while True:
            t = self.tok
            if t.kind == EOF:
                return
            if depth == 0:
                if t.newline_before and t.col <= col and t.line != line:
                    return
                if t.kind == SYM and t.value in (")", "]", "}", "⟩"):
                    return
                if t.kind == KEYWORD and t.value in ("decreasing_by", "termination_by", "where", "deriving"):
                    return
            if t.kind == SYM and t.value in ("(", "[", "{", "⟨", "#["):
                depth += 1
            elif t.kind == SYM and t.value in (")", "]", "}", "⟩"):
                depth -= 1
            self.advance()

    def skip_tactic_block(self, by_tok: Token) -> None:
        """Skip a tactic sequence after ``by``: tactics stay right of or at the first one's column
        (on later lines), and the block ends at an unmatched closer or ``,`` in brackets."""
        first = self.tok
        if first.kind == EOF:
            return
        block_col = first.col
        if first.line == by_tok.line:
            # `by simp` on one line: later lines belong to it only when indented past `by`'s line start
            block_col = first.col
        depth = 0
        while True:
            t = self.tok
            if t.kind == EOF:
                return
            if depth == 0:
                if t.newline_before and t.line != by_tok.line and t.col < block_col:
                    return
                if t.newline_before and t.line != by_tok.line and first.line == by_tok.line and t.col <= self.pos_col:
                    return
                if t.kind == SYM and t.value in (")", "]", "}", "⟩", ","):
                    return
                if t.kind == KEYWORD and t.value in ("decreasing_by", "termination_by", "where", "deriving", "then", "else", "with"):
                    if t.value in ("then", "else", "with") and t.line == by_tok.line:
                        return
                    if t.value in ("decreasing_by", "termination_by", "where", "deriving"):
                        return
            if t.kind == SYM and t.value in ("(", "[", "{", "⟨", "#["):
                depth += 1
            elif t.kind == SYM and t.value in (")", "]", "}", "⟩"):
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

    def let_rec_decls(self, let_tok: Token) -> list[A.LetDecl]:
        """After ``let rec``: ``decl (, decl)*``, each with optional termination hints."""
        saved_barrier = self.with_lift_barrier("binder")  # `let rec` is always a binder
        try:
            decls = [self.let_decl(let_tok)[0]]
            self._attach_hints(decls[-1])
            while self.at_sym(","):
                self.advance()
                decls.append(self.let_decl(let_tok)[0])
                self._attach_hints(decls[-1])
        finally:
            self.lift_barrier = saved_barrier
        return decls

    def let_term(self) -> A.Node:
        t = self.advance()  # let
        saved = self.pos_col
        self.pos_col = t.col
        try:
            if self.tok.kind == IDENT and self.tok.value == "rec":
                self.advance()
                decls = self.let_rec_decls(t)
                is_rec = True
            else:
                decl, _ = self.let_decl(t)
                is_rec = False
        finally:
            self.pos_col = saved
        self.after_decl_separator()
        body = self.term()
        if is_rec:
            return A.LetRec(t.line, t.col, decls, body)
        return A.Let(t.line, t.col, decl, body)

    def have_term(self) -> A.Node:
        t = self.advance()  # have
        saved = self.pos_col
        self.pos_col = t.col
        try:
            decl = self.have_decl(t)
        finally:
            self.pos_col = saved
        self.after_decl_separator()
        body = self.term()
        return A.Let(t.line, t.col, decl, body, is_have=True)

    def have_decl(self, t: Token) -> A.LetDecl:
        name = "this"
        binders: list[A.Binder] = []
        pattern = None
        if self.tok.kind == IDENT and len(self.tok.parts) == 1:
            name = self.advance().value
            binders = self.decl_binders()
        elif self.at_sym("⟨", "("):
            pattern = self.term(MAX_PREC)
        elif self.at_sym("_"):
            self.advance()
            name = "_"
        ty = None
        text = ""
        if self.at_sym(":"):
            self.advance()
            start = self.i
            ty = self.term()
            text = self.text_from(start)
        if self.at_sym("|"):
            self.match_alts()
            return A.LetDecl(t.line, t.col, name, binders, ty, text, A.ProofTerm(t.line, t.col, "have"))
        self.expect_sym(":=")
        value = self.term()
        return A.LetDecl(t.line, t.col, name, binders, ty, text, value, pattern)

    # -- do notation ----------------------------------------------------------------------

    def do_seq(self) -> A.DoSeq:
        first = self.tok
        if first.kind == EOF:
            raise self.error("expected do-block element")
        if first.is_sym("{"):
            # `doSeqBracketed := "{" withoutPosition(many1Indent doSeqItem) "}"`, tried first
            self.advance()
            saved_brackets = self.enter_brackets()
            try:
                seq = self.do_seq()
            finally:
                self.leave_brackets(saved_brackets)
            self.expect_sym("}")
            return seq
        seq_col = first.col
        saved = (self.pos_col, self.no_do)
        self.pos_col = seq_col
        self.no_do = False
        saved_barrier = self.with_lift_barrier(None)  # a nested `do` is a fresh target for `(← e)`
        items: list[A.Node] = []
        try:
            while True:
                items.extend(self.do_elem())
                t = self.tok
                if t.is_sym(";"):
                    self.advance()
                    if self.tok.kind == EOF or self.at_sym("}") or (self.tok.newline_before and self.tok.col < seq_col):
                        break
                    continue
                if t.kind == EOF:
                    break
                if t.newline_before and t.col == seq_col and not (t.kind == SYM and t.value in _CLOSERS) and not t.is_kw("else", "then", "with", "catch", "finally", "termination_by", "decreasing_by", "where", "deriving"):
                    continue
                break
        finally:
            self.pos_col, self.no_do = saved
            self.lift_barrier = saved_barrier
        return A.DoSeq(first.line, first.col, self.expand_let_else(items))

    def do_elem(self) -> list[A.Node]:
        """One do element, preceded by a ``let x ← e`` for each nested action ``(← e)`` in it."""
        frame: list[A.Node] = []
        self.lift_frames.append(frame)
        try:
            elem = self.do_elem_core()
        finally:
            self.lift_frames.pop()
        if not frame:
            return [elem]
        if isinstance(elem, A.DoWhile):
            # `while c do b` is the macro `repeat (if c then b else break)`, so the actions of the
            # condition run at every iteration, inside the loop
            brk = A.DoSeq(elem.line, elem.col, [A.DoBreak(elem.line, elem.col)])
            test = A.DoIf(elem.line, elem.col, elem.cond, elem.body, brk, elem.hyp)
            return [A.DoRepeat(elem.line, elem.col, A.DoSeq(elem.line, elem.col, [*frame, test]))]
        return [*frame, elem]

    def do_elem_core(self) -> A.Node:
        t = self.tok
        if t.kind == KEYWORD:
            v = t.value
            if v == "let":
                self.advance()
                if self.tok.kind == IDENT and self.tok.value == "rec":
                    self.advance()
                    return A.DoLetRec(t.line, t.col, self.let_rec_decls(t))
                mutable = False
                if self.at_kw("mut"):
                    self.advance()
                    mutable = True
                start, frame = self.i, self.lift_frames[-1]
                lifted, count = len(frame), self.lift_count
                first_error: LeanSyntaxError | None = None
                try:
                    decl, arrow = self.let_decl(t, allow_arrow=True)
                    if not self.at_sym("|"):
                        return A.DoLet(t.line, t.col, decl, mutable, arrow)
                except LeanSyntaxError as exc:
                    first_error = exc
                # `let pat := e | alt` (doLetElse / doPatDecl with an else branch): the left side
                # is a whole pattern term (`let some x := o | ...` is not a function `some`)
                self.i = start
                del frame[lifted:]
                self.lift_count = count
                try:
                    return self.let_else(t, mutable)
                except LeanSyntaxError:
                    if first_error is not None:
                        raise first_error from None
                    raise
            if v == "have":
                self.advance()
                self.have_decl(t)
                return A.DoHave(t.line, t.col)
            if v == "if":
                return self.do_if()
            if v == "unless":
                self.advance()
                self.no_do = True
                cond = self.term()
                self.no_do = False
                self.expect_kw("do")
                return A.DoUnless(t.line, t.col, cond, self.do_seq())
            if v == "for":
                return self.do_for()
            if v == "while":
                self.advance()
                hyp = None
                if self.tok.kind == IDENT and self.peek().is_sym(":"):
                    hyp = self.advance().value
                    self.advance()
                self.no_do = True
                cond = self.term()
                self.no_do = False
                self.expect_kw("do")
                return A.DoWhile(t.line, t.col, cond, self.do_seq(), hyp)
            if v == "repeat":
                self.advance()
                return A.DoRepeat(t.line, t.col, self.do_seq())
            if v == "return":
                self.advance()
                nt = self.tok
                if nt.kind == EOF or (nt.newline_before and nt.col <= self.pos_col) or nt.is_sym(";", ")", "]", "}") or nt.is_kw("else"):
                    return A.DoReturn(t.line, t.col, None)
                return A.DoReturn(t.line, t.col, self.term())
            if v == "break":
                self.advance()
                return A.DoBreak(t.line, t.col)
            if v == "continue":
                self.advance()
                return A.DoContinue(t.line, t.col)
            if v == "match":
                self.advance()
                discrs, hyps = self.match_discrs()
                alts = self.match_alts(rhs_do=True)
                return A.DoMatch(t.line, t.col, discrs, hyps, alts)
            if v == "do":
                self.advance()
                return A.DoNested(t.line, t.col, self.do_seq())
            if v in ("try",):
                raise self.error("'try' in do-blocks is not supported")
        # reassignment or expression
        term = self.term()
        if self.at_sym(":=", "←", "+=", "-=", "*="):
            op = self.advance().value
            value = self.term()
            return A.DoReassign(t.line, t.col, term, op, value)
        return A.DoExpr(t.line, t.col, term)

    def let_else(self, let_tok: Token, mutable: bool) -> A.Node:
        """After ``let`` (``mut``): ``pat := e | alt`` or ``pat ← e | alt``."""
        pattern = self.term()
        arrow = self.at_sym("←")
        if arrow:
            self.advance()
        else:
            self.expect_sym(":=")
        value = self.term()
        bar = self.tok
        if not bar.is_sym("|"):
            raise self.error(f"expected '|' or a new line, found {bar.describe()}")
        if bar.col <= self.pos_col:  # `checkColGt` before the `|`
            raise self.error("expected the '|' of `let ... | ...` right of the do block's column")
        if mutable:
            raise self.error("`let mut <pattern> := e | alt` is not supported", let_tok)
        self.advance()
        alternative = self.do_seq()
        return _DoLetElse(let_tok.line, let_tok.col, pattern, value, arrow, alternative)

    def expand_let_else(self, items: list[A.Node]) -> list[A.Node]:
        """Lean's ``doLetElseToCode``: ``let pat := e | alt; rest`` is
        ``match e with | pat => rest | _ => alt`` (with ``←``: bind ``e`` first)."""
        for idx, item in enumerate(items):
            if not isinstance(item, _DoLetElse):
                continue
            line, col = item.line, item.col
            rest = self.expand_let_else(items[idx + 1 :])
            head: list[A.Node] = []
            discr = item.value
            if item.arrow:
                self.lift_count += 1
                name = f"__discr✝{self.lift_count}"
                head.append(A.DoLet(line, col, A.LetDecl(line, col, name, [], None, "", item.value), False, True))
                discr = A.Ident(line, col, name)
            first = rest[0] if rest else item
            alts = [
                A.MatchAlt(line, col, [item.pattern], A.DoSeq(first.line, first.col, rest)),
                A.MatchAlt(line, col, [A.Hole(line, col)], item.alternative),
            ]
            return [*items[:idx], *head, A.DoMatch(line, col, [discr], [None], alts)]
        return items

    def do_if(self) -> A.Node:
        t = self.advance()  # if
        hyp = None
        let_pat = None
        let_val = None
        cond = None
        if self.at_kw("let"):
            self.advance()
            let_pat = self.term()
            self.expect_sym(":=")
            let_val = self.term()
        else:
            if (self.tok.kind == IDENT or self.at_sym("_")) and self.peek().is_sym(":"):
                hyp = self.advance().value if self.tok.kind == IDENT else (self.advance() and "_")
                self.advance()
            cond = self.term()
        self.expect_kw("then")
        then = self.do_seq()
        els = None
        if self.at_kw("else"):
            et = self.advance()
            if self.at_kw("if") and self.tok.line == et.line:
                nested = self.do_if()
                els = A.DoSeq(nested.line, nested.col, [nested])
            else:
                els = self.do_seq()
        return A.DoIf(t.line, t.col, cond, then, els, hyp, let_pat, let_val)

    def do_for(self) -> A.Node:
        t = self.advance()  # for
        hyp = None
        clauses: list[tuple[A.Node, A.Node]] = []
        while True:
            if self.tok.kind == IDENT and self.peek().is_sym(":"):
                hyp = self.advance().value
                self.advance()
            pat = self.term()
            self.expect_kw("in")
            self.no_do = True
            coll = self.term()
            self.no_do = False
            clauses.append((pat, coll))
            if self.at_sym(","):
                self.advance()
                continue
            break
        self.expect_kw("do")
        return A.DoFor(t.line, t.col, clauses, hyp, self.do_seq())

    # -- commands -------------------------------------------------------------------------

    def modifiers(self) -> A.Modifiers:
        mods = A.Modifiers()
        while True:
            t = self.tok
            if t.is_sym("@["):
                self.advance()
                depth = 1
                start = self.i
                while depth > 0:
                    if self.tok.kind == EOF:
                        raise self.error("unterminated attribute list")
                    if self.at_sym("[", "@[", "#["):
                        depth += 1
                    elif self.at_sym("]"):
                        depth -= 1
                        if depth == 0:
                            break
                    self.advance()
                text = self.text_from(start)
                self.advance()
                mods.attributes.extend(a.strip() for a in text.split(",") if a.strip())
            elif t.kind == KEYWORD and t.value in _MODIFIER_KEYWORDS:
                self.advance()
                if t.value in ("private", "protected", "noncomputable", "partial", "unsafe"):
                    setattr(mods, t.value, True)
            else:
                return mods

    def command(self) -> A.Node:
        mods = self.modifiers()
        t = self.tok
        if t.kind == KEYWORD:
            v = t.value
            if v in ("def", "abbrev"):
                return self.def_cmd(mods)
            if v in ("theorem", "lemma", "example", "axiom", "opaque"):
                self.advance()
                name = self.advance().value if self.tok.kind == IDENT else v
                # statements and proofs are not evaluated: skip the whole command
                while self.tok.kind != EOF:
                    self.advance()
                return A.DefCmd(t.line, t.col, v, name, [], None, "", None, modifiers=mods)
            if v == "instance":
                return self.instance_cmd(mods)
            if v in ("structure", "class"):
                if v == "class" and self.peek().is_kw("inductive"):
                    self.advance()
                    return self.inductive_cmd(mods)
                return self.structure_cmd(mods)
            if v == "inductive":
                return self.inductive_cmd(mods)
            if v == "open":
                self.advance()
                decl = self.open_decl(t)
                if self.at_kw("in"):
                    # `open Foo in <command>`: the opened names apply to the next command only
                    self.advance()
                    inner = self.command()
                    return _OpenIn(t.line, t.col, decl.names, inner, decl)
                return decl
            if v == "export":
                self.advance()
                ns = self.expect_ident().value
                self.expect_sym("(")
                idents = [self.expect_ident().value]
                while self.tok.kind == IDENT:
                    idents.append(self.advance().value)
                self.expect_sym(")")
                return A.ExportCmd(t.line, t.col, ns, idents)
            if v == "namespace":
                self.advance()
                return A.NamespaceCmd(t.line, t.col, self.expect_ident().value)
            if v == "section":
                self.advance()
                name = self.advance().value if self.tok.kind == IDENT else None
                return A.SectionCmd(t.line, t.col, name)
            if v == "end":
                self.advance()
                name = self.advance().value if self.tok.kind == IDENT else None
                return A.EndCmd(t.line, t.col, name)
            if v == "deriving":
                self.advance()
                self.expect_kw("instance")
                classes = [self.expect_ident().value]
                while self.at_sym(","):
                    self.advance()
                    classes.append(self.expect_ident().value)
                self.expect_kw("for")
                types = [self.expect_ident().value]
                while self.at_sym(","):
                    self.advance()
                    types.append(self.expect_ident().value)
                return A.DerivingCmd(t.line, t.col, classes, types)
            start = self.i
            while self.tok.kind != EOF:
                self.advance()
            return A.OtherCmd(t.line, t.col, v, self.text_from(start))
        if t.is_sym("#"):
            start = self.i
            while self.tok.kind != EOF:
                self.advance()
            return A.OtherCmd(t.line, t.col, "#", self.text_from(start))
        raise self.error(f"unexpected {t.describe()} at the start of a command")

    def open_decl(self, t: Token) -> A.OpenCmd:
        """The clause after ``open`` (``Lean.Parser.Command.openDecl``): ``A B``, ``scoped A B``,
        ``A (x y)``, ``A hiding x y``, ``A renaming x → y, z → w``."""
        if self.at_kw("scoped"):
            self.advance()
            names = [self.expect_ident().value]
            while self.tok.kind == IDENT:
                names.append(self.advance().value)
            return A.OpenCmd(t.line, t.col, names, "scoped")
        first = self.expect_ident().value
        if self.at_sym("("):
            self.advance()
            idents = [self.expect_ident().value]
            while self.tok.kind == IDENT:
                idents.append(self.advance().value)
            self.expect_sym(")")
            return A.OpenCmd(t.line, t.col, [first], "only", idents)
        if self.tok.kind == IDENT and self.tok.value == "hiding":
            self.advance()
            idents = [self.expect_ident().value]
            while self.tok.kind == IDENT:
                idents.append(self.advance().value)
            return A.OpenCmd(t.line, t.col, [first], "hiding", idents)
        if self.tok.kind == IDENT and self.tok.value == "renaming":
            self.advance()
            renames: list[tuple[str, str]] = []
            while True:
                src = self.expect_ident().value
                self.expect_sym("→")
                renames.append((src, self.expect_ident().value))
                if not self.at_sym(","):
                    break
                self.advance()
            return A.OpenCmd(t.line, t.col, [first], "renaming", renames=renames)
        names = [first]
        while self.tok.kind == IDENT:
            names.append(self.advance().value)
        return A.OpenCmd(t.line, t.col, names)

    def decl_name(self) -> str:
        return self.expect_ident().value

    def def_cmd(self, mods: A.Modifiers) -> A.DefCmd:
        t = self.advance()  # def / abbrev
        name = self.decl_name()
        binders = self.decl_binders()
        ty = None
        text = ""
        if self.at_sym(":"):
            self.advance()
            start = self.i
            ty = self.term()
            text = self.text_from(start)
        return self.def_body(t, t.value, name, binders, ty, text, mods)

    def def_body(
        self, t: Token, kind: str, name: str, binders: list[A.Binder], ty: A.Node | None, text: str, mods: A.Modifiers
    ) -> A.DefCmd:
        body = None
        alts = None
        if self.at_sym(":="):
            self.advance()
            body = self.term()
        elif self.at_sym("|"):
            alts = self.match_alts()
        elif self.at_kw("where") and kind == "instance":
            body = None
        else:
            raise self.error(f"expected ':=' or '|' in definition of {name}, found {self.tok.describe()}")
        hints = self.skip_termination_hints()
        measure, decreasing = self.last_measure, self.last_decreasing
        where: list[A.DefCmd] = []
        if self.at_kw("where"):
            self.advance()
            where = self.where_decls()
        if self.at_kw("deriving"):
            self.advance()
            while self.tok.kind == IDENT or self.at_sym(","):
                self.advance()
        return A.DefCmd(t.line, t.col, kind, name, binders, ty, text, body, alts, where, mods, self.tok.line,
                        termination_hints=hints, termination_measure=measure, decreasing_tactic=decreasing)

    def where_decls(self) -> list[A.DefCmd]:
        decls: list[A.DefCmd] = []
        if self.tok.kind == EOF:
            return decls
        col = self.tok.col
        saved = self.pos_col
        try:
            while self.tok.kind != EOF:
                self.pos_col = self.tok.col
                mods = self.modifiers()
                nt = self.expect_ident()
                binders = self.decl_binders()
                ty = None
                text = ""
                if self.at_sym(":"):
                    self.advance()
                    start = self.i
                    ty = self.term()
                    text = self.text_from(start)
                body = None
                alts = None
                if self.at_sym(":="):
                    self.advance()
                    body = self.term()
                elif self.at_sym("|"):
                    alts = self.match_alts()
                else:
                    raise self.error(f"expected ':=' or '|' in where-declaration {nt.value}")
                hints = self.skip_termination_hints()
                decls.append(A.DefCmd(nt.line, nt.col, "def", nt.value, binders, ty, text, body, alts, [], mods,
                                      termination_hints=hints, termination_measure=self.last_measure,
                                      decreasing_tactic=self.last_decreasing))
                if self.at_sym(";"):
                    self.advance()
                if self.tok.kind == EOF or self.tok.col != col or not (self.tok.kind == IDENT or self.at_sym("@[")):
                    break
        finally:
            self.pos_col = saved
        return decls

    def instance_cmd(self, mods: A.Modifiers) -> A.Node:
        t = self.advance()  # instance
        if self.at_sym("("):
            # priority `(priority := low)`
            if self.peek().kind == IDENT and self.peek().value == "priority":
                while not self.at_sym(")"):
                    self.advance()
                self.advance()
        name = None
        if self.tok.kind == IDENT and not self.peek().is_sym(".") and self.peek().kind != IDENT and not self.peek().is_sym(":"):
            pass
        if self.tok.kind == IDENT and (self.peek().is_sym(":", "(", "{", "[", "⦃")):
            name = self.advance().value
        binders = self.decl_binders() if not self.at_sym(":") else []
        self.expect_sym(":")
        start = self.i
        ty = self.term()
        text = self.text_from(start)
        methods: list[A.DefCmd] = []
        body = None
        if self.at_kw("where"):
            self.advance()
            methods = self.where_decls()
        elif self.at_sym(":="):
            self.advance()
            body = self.term()
        else:
            raise self.error("expected 'where' or ':=' in instance")
        return A.InstanceCmd(t.line, t.col, name, binders, ty, text, methods, body, mods)

    def deriving_clause(self) -> list[str]:
        names: list[str] = []
        if self.at_kw("deriving"):
            self.advance()
            while self.tok.kind == IDENT:
                names.append(self.advance().value)
                if self.at_sym(","):
                    self.advance()
                    continue
                break
        return names

    def structure_cmd(self, mods: A.Modifiers) -> A.Node:
        t = self.advance()  # structure / class
        name = self.decl_name()
        params = self.decl_binders()
        extends: list[str] = []
        if self.at_kw("extends"):
            self.advance()
            while True:
                start = self.i
                self.term(51)
                extends.append(self.text_from(start))
                if self.at_sym(","):
                    self.advance()
                    continue
                break
        if self.at_sym(":"):
            self.advance()
            self.term()
        fields: list[A.StructField] = []
        ctor = "mk"
        if self.at_kw("where"):
            self.advance()
            if self.tok.kind == IDENT and self.peek().is_sym("::"):
                ctor = self.advance().value
                self.advance()
            while self.tok.kind == IDENT or self.at_sym("("):
                fields.extend(self.struct_field())
        deriving = self.deriving_clause()
        if self.tok.kind != EOF:
            raise self.error(f"unexpected {self.tok.describe()} in structure {name}")
        return A.StructureCmd(t.line, t.col, name, params, fields, deriving, extends, ctor, t.value == "class", mods)

    def struct_field(self) -> list[A.StructField]:
        t = self.tok
        if t.is_sym("("):
            b = self.bracketed_binder()
            return [A.StructField(b.line, b.col, n, [], b.type, b.type_text, b.default) for n in b.names]
        names: list[Token] = [self.expect_ident()]
        while self.tok.kind == IDENT and self.tok.line == t.line:
            names.append(self.advance())
        binders = self.decl_binders()
        ty = None
        text = ""
        if self.at_sym(":"):
            self.advance()
            saved = self.pos_col
            self.pos_col = t.col
            start = self.i
            ty = self.term()
            text = self.text_from(start)
            self.pos_col = saved
        default = None
        if self.at_sym(":="):
            self.advance()
            saved = self.pos_col
            self.pos_col = t.col
            default = self.term()
            self.pos_col = saved
        return [A.StructField(n.line, n.col, n.value, binders, ty, text, default) for n in names]

    def inductive_cmd(self, mods: A.Modifiers) -> A.Node:
        t = self.advance()  # inductive
        name = self.decl_name()
        params = self.decl_binders()
        if self.at_sym(":"):
            self.advance()
            self.term()
        if self.at_kw("where"):
            self.advance()
        ctors: list[A.CtorDecl] = []
        while self.at_sym("|"):
            self.advance()
            ct = self.expect_ident()
            saved = self.pos_col
            binders = self.decl_binders()
            ty = None
            text = ""
            if self.at_sym(":"):
                self.advance()
                start = self.i
                ty = self.term()
                text = self.text_from(start)
            self.pos_col = saved
            ctors.append(A.CtorDecl(ct.line, ct.col, ct.value, binders, ty, text))
        deriving = self.deriving_clause()
        if self.tok.kind != EOF:
            raise self.error(f"unexpected {self.tok.describe()} in inductive {name}")
        return A.InductiveCmd(t.line, t.col, name, params, ctors, deriving, mods)


@dataclass(slots=True, eq=False)
class _OpenIn(A.Node):
    names: list[str]
    command: A.Node
    decl: A.OpenCmd | None = None
    """The whole ``open`` clause (``names`` are its namespaces)."""


OpenIn = _OpenIn


@dataclass(slots=True, eq=False)
class _DoLetElse(A.Node):
    """``let pat := value | alternative`` while its do block is parsed; expanded into a
    :class:`~.ast.DoMatch` over the rest of the block before the block is returned."""

    pattern: A.Node
    value: A.Node
    arrow: bool
    alternative: A.DoSeq


def _simple_names(term: A.Node) -> list[str] | None:
    """``x`` or ``x y z`` (parsed as an application) as a list of binder names."""
    if isinstance(term, A.Ident) and "." not in term.name:
        return [term.name]
    if isinstance(term, A.Hole):
        return ["_"]
    if isinstance(term, A.App):
        head = _simple_names(term.fn)
        if head is None:
            return None
        names = list(head)
        for a in term.args:
            sub = _simple_names(a)
            if sub is None or len(sub) != 1:
                return None
            names.extend(sub)
        return names
    return None


# ---------------------------------------------------------------------------------------------
# Splitting a file into commands


def _is_command_start(toks: list[Token], j: int) -> bool:
    t = toks[j]
    if t.col != 0 or t.kind == EOF:
        return False
    if t.kind == KEYWORD:
        if t.value in _COMMAND_KEYWORDS:
            return True
        if t.value == "deriving":
            return toks[j + 1].is_kw("instance")
        return False
    if t.kind == SYM and t.value == "@[":
        return True
    if t.kind == SYM and t.value == "#" and toks[j + 1].kind == IDENT and not toks[j + 1].space_before:
        return True
    return False


def _only_modifiers(toks: list[Token]) -> bool:
    depth = 0
    for t in toks:
        if t.is_sym("@["):
            depth += 1
        elif depth > 0:
            if t.is_sym("[", "#["):
                depth += 1
            elif t.is_sym("]"):
                depth -= 1
        elif not (t.kind == KEYWORD and t.value in _MODIFIER_KEYWORDS):
            return False
    return True


def _only_command_prefix(toks: list[Token]) -> bool:
    """Only ``open A B in`` prefixes and modifiers: they belong to the next command, whatever
    line that starts on (``open Nat in`` on its own line scopes the following ``def``)."""
    j = 0
    while j < len(toks) and toks[j].is_kw("open"):
        k = j + 1
        # the clause: identifiers, and the `scoped`, `(x y)`, `renaming x → y, …` forms
        while k < len(toks) and (toks[k].kind == IDENT or toks[k].is_kw("scoped") or toks[k].is_sym("(", ")", "→", ",")):
            k += 1
        if k == j + 1 or k >= len(toks) or not toks[k].is_kw("in"):
            return False
        j = k + 1
    return _only_modifiers(toks[j:])


def split_commands(tokens: list[Token]) -> list[list[Token]]:
    """Token lists of the top-level commands (each ending with an EOF token).

    The EOF token of a command sits where the next command starts (or at the end of the file), so
    an error at the end of a command is reported at the token Lean would complain about.
    """
    starts = [j for j in range(len(tokens) - 1) if _is_command_start(tokens, j)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    chunks: list[list[Token]] = []
    pending: list[Token] = []
    for n, s in enumerate(starts):
        e = starts[n + 1] if n + 1 < len(starts) else len(tokens) - 1
        chunk = pending + tokens[s:e]
        if not chunk:
            continue
        if _only_command_prefix(chunk) and n + 1 < len(starts):
            pending = chunk
            continue
        pending = []
        nxt = tokens[e]
        end_tok = Token(EOF, "", nxt.text, nxt.line, nxt.col, nxt.offset, nxt.offset, True, True)
        chunks.append(chunk + [end_tok])
    return chunks


def _command_name(chunk: list[Token]) -> str | None:
    for j, t in enumerate(chunk):
        if t.kind == KEYWORD and t.value in ("def", "abbrev", "theorem", "lemma", "structure", "inductive", "class", "instance"):
            nxt = chunk[j + 1] if j + 1 < len(chunk) else None
            if nxt is not None and nxt.kind == IDENT:
                return str(nxt.value)
            return None
    return None


def parse_file(text: str) -> ParsedFile:
    """Parse a whole Lean file. Errors, lexical ones included, are recorded on their command
    (:class:`~.ast.CommandError`) and the other commands still parse, as in Lean."""
    tokens = tokenize(text, recover=True)
    result = ParsedFile()
    for chunk in split_commands(tokens):
        first = chunk[0]
        parser = Parser(chunk, text)
        lex_error = next((t.value for t in chunk if t.kind == ERROR), None)
        try:
            if lex_error is not None:
                raise lex_error
            cmd = parser.command()
            if parser.tok.kind != EOF:
                raise parser.error(f"unexpected {parser.tok.describe()}; expected the end of the command")
            result.commands.append(cmd)
        except LeanSyntaxError as exc:
            end = chunk[-1].offset
            result.commands.append(
                A.CommandError(exc.line, exc.col, exc.message, _command_name(chunk), text[first.offset : end])
            )
        except RecursionError:
            result.commands.append(
                A.CommandError(first.line, first.col, "nesting too deep", _command_name(chunk), "")
            )
    return result


def parse_term(text: str, line: int = 1, col: int = 0, offset: int = 0, source: str | None = None) -> A.Node:
    """Parse one term (e.g. a section body). Raises :class:`LeanSyntaxError`."""
    toks = tokenize(text, line, col, offset)
    src = source if source is not None else text
    if source is None and offset:
        src = " " * offset + text
    parser = Parser(toks, src)
    term = parser.term()
    if parser.tok.kind != EOF:
        raise parser.error(f"unexpected {parser.tok.describe()}; expected the end of the term")
    return term
