"""Compound terms: ``if``, ``match``, ``let`` (``let rec``) and ``have``."""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser.core import MAX_PREC, ParserCore
from veriscale.lean.lexer import EOF, IDENT, Token


class CompoundMixin(ParserCore):
    """``if``/``match``/``let``/``have`` terms and their declarations."""

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
            hyp = self.name_or_hole()
            self.advance()
        cond = self.term()
        self.expect_kw("then")
        # Lean lifts nested actions only out of the condition of a pure `if`
        saved_barrier = self.with_lift_barrier("a branch of a pure `if`")
        try:
            then = self.term()
            if not self.at_kw("else"):
                # a term `if` always has an `else` (`termIfThenElse`, `termDepIfThenElse`); only the
                # `if` of `do` notation may leave it out (`doIf`)
                raise self.lean_error(f"expected 'else', found {self.tok.describe()} (outside `do`, `if … then` "
                                      "needs an `else` branch)")
            self.advance()
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
            ty, text = self.type_ascription()
            if self.at_sym("|"):
                alts = self.match_alts()
                return A.LetDecl(t.line, t.col, t.value, binders, ty, text, None, None, alts), False
            # a `let` with parameters is a binder: nested actions are not lifted out of its value
            saved_barrier = self.with_lift_barrier("binder") if binders else self.lift_barrier
            try:
                arrow = self.let_arrow(allow_arrow)
                value = self.term()
                return A.LetDecl(t.line, t.col, t.value, binders, ty, text, value), arrow
            finally:
                self.lift_barrier = saved_barrier
        if t.is_sym("_") and (self.peek().is_sym(":=", ":") or (allow_arrow and self.peek().is_sym("←"))):
            self.advance()
            ty, text = self.type_ascription()
            arrow = self.let_arrow(allow_arrow)
            return A.LetDecl(t.line, t.col, "_", [], ty, text, self.term()), arrow
        # pattern let: `let (a, b) := e`, `let ⟨a, b⟩ := e`
        pat = self.term()
        ty, text = self.type_ascription()
        arrow = self.let_arrow(allow_arrow)
        return A.LetDecl(t.line, t.col, None, [], ty, text, self.term(), pat), arrow

    def let_arrow(self, allow_arrow: bool) -> bool:
        """Consume a ``let``'s ``:=``, or ``←`` where a monadic bind is allowed; True for ``←``."""
        if allow_arrow and self.at_sym("←"):
            self.advance()
            return True
        self.expect_sym(":=")
        return False

    def let_rec_decls(self, let_tok: Token) -> list[A.LetDecl]:
        """After ``let rec``: ``decl (, decl)*``, each with optional termination hints."""
        saved_barrier = self.with_lift_barrier("binder")  # `let rec` is always a binder
        try:
            self.allow_doc()  # `letRecDecl := optional docComment >> …`
            decls = [self.let_decl(let_tok)[0]]
            self._attach_hints(decls[-1])
            while self.at_sym(","):
                self.advance()
                self.allow_doc()
                decls.append(self.let_decl(let_tok)[0])
                self._attach_hints(decls[-1])
        finally:
            self.lift_barrier = saved_barrier
        return decls

    def let_term(self) -> A.Node:
        t = self.advance()  # let
        if self.at_kw("mut"):
            # `let mut` is `doLet` syntax; the term `let` takes a plain declaration (`Lean.Parser.Term.let`)
            raise self.lean_error("unexpected token 'mut': `let mut` is only allowed in `do` notation")
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
        """``have d; b``, and ``letI d; b``/``haveI d; b`` (``Lean.Parser.Term.letI``/``haveI``,
        both taking a ``haveDecl``, so the name may be left out for ``this``). ``haveI`` "behaves
        like ``have``, but inlines the value": its body elaborates with the value hidden, as after
        ``have``; ``letI``'s as after ``let``. A declaration of class type is a local instance
        either way."""
        t = self.advance()  # have / haveI / letI
        saved = self.pos_col
        self.pos_col = t.col
        try:
            decl = self.have_decl(t)
        finally:
            self.pos_col = saved
        self.after_decl_separator()
        body = self.term()
        return A.Let(t.line, t.col, decl, body, is_have=t.value != "letI")

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
        ty, text = self.type_ascription()
        if self.at_sym("|"):
            self.match_alts()
            return A.LetDecl(t.line, t.col, name, binders, ty, text, A.ProofTerm(t.line, t.col, "have"))
        self.expect_sym(":=")
        value = self.term()
        return A.LetDecl(t.line, t.col, name, binders, ty, text, value, pattern)
