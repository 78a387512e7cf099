"""Terms: the Pratt loop (leading and trailing parts, applications, binary operators), literals,
brackets, indexing and slices, string interpolation and nested actions ``(← e)``."""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser.core import ARG_PREC, LEAD_PREC, MAX_PREC, MIN_PREC, ParserCore
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
    InterpPiece,
    Token,
    tokenize,
)

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


class TermsMixin(ParserCore):
    """Terms and their operators."""

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
        proof: A.Node | None = None
        nt = self.tok
        if nt.kind == SYM and not nt.space_before and nt.value in ("!", "?"):
            self.advance()
            mode = nt.value
        elif nt.kind == SYM and nt.value == "'" and not nt.space_before:
            self.advance()
            proof = self.term(MAX_PREC)  # the proof of `i < xs.size`: checked, irrelevant at run time
            mode = "proof"
        return A.Index(t.line, t.col, coll, idx, mode, proof)

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
            if v == "~~~":
                # Init/Notation.lean: `prefix:100 "~~~" => Complement.complement` (no `unop%`)
                if prec > 100:
                    raise self.error("unexpected '~~~'; a complemented argument needs parentheses")
                self.advance()
                return A.UnOp(t.line, t.col, "~~~", self.term(100)), 100
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
            if v == "return":
                # outside `do`, `return e` is an implicit `do` block around it (`Lean.Parser.Term.termReturn`,
                # `leadPrec`, the value on the same line), so it needs a monad just as `do` does
                self.advance()
                nt = self.tok
                ends = nt.kind == EOF or nt.line != t.line or nt.is_sym(";", ")", "]", "}", ",") or nt.is_kw("else")
                value = None if ends else self.term()
                item = A.DoReturn(t.line, t.col, value)
                return A.Do(t.line, t.col, A.DoSeq(t.line, t.col, [item])), LEAD_PREC
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
            if v in ("haveI", "letI"):
                # keywords of Lean's term parsers `Lean.Parser.Term.haveI`/`letI` (see the lexer)
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

    def interpolation(self, t: Token) -> A.Node:
        parts: list[str | A.Node] = []
        for piece in t.value:
            if isinstance(piece, str):
                parts.append(piece)
                continue
            assert isinstance(piece, InterpPiece)
            toks = tokenize(piece.text, piece.line, piece.col, piece.offset)
            sub = type(self)(toks, self.src)  # the whole parser, not just this mixin
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
                return self.range_rest(t, None)
            first = self.term()
            if self.at_sym(":"):
                return self.range_rest(t, first)
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

    def range_rest(self, t: Token, start: A.Node | None) -> A.RangeLit:
        """``:stop]`` or ``:stop:step]`` of ``[start:stop:step]`` (the ``:`` not yet consumed)."""
        self.expect_sym(":")
        stop = self.term()
        step = None
        if self.at_sym(":"):
            self.advance()
            step = self.term()
        self.expect_sym("]")
        return A.RangeLit(t.line, t.col, start, stop, step)

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
        ellipsis = False
        while not self.at_sym("}"):
            if self.at_sym(".."):
                self.advance()
                ellipsis = True
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
        return A.StructInst(t.line, t.col, source, fields, ty, ty_text, ellipsis)
