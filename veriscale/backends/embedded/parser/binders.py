"""Binders: bracketed and declaration binders, ``fun``/``λ``, and the quantifiers ``∀ ∃ ∃!``."""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser.core import MAX_PREC, ParserCore
from veriscale.lean.lexer import EOF, IDENT, SYM, Token

_BINDER_PRED_OPS = frozenset({"∈", "∉", "<", "≤", ">", "≥", "≠", "⊆"})


class BindersMixin(ParserCore):
    """Binders, lambdas and quantifiers."""

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
                ty: A.Node | None = self.term()
                text = self.text_from(start)
                self.expect_sym("]")
                return A.Binder(t.line, t.col, names, ty, text, kind)
            while self.tok.kind == IDENT or self.at_sym("_"):
                names.append(self.name_or_hole())
            if not names:
                raise self.error("expected binder name")
            ty, text = self.type_ascription()
            default: A.Node | None = None
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
            ty, text = self.type_ascription()
            if ty is None and self.tok.kind == SYM and self.tok.value in _BINDER_PRED_OPS:
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
            pred = bound if (bound is not None and idx >= len(flat) - len(groups[-1][0])) else None
            result = A.Quant(t.line, t.col, kind, name, ty, text, pred, result, pat)
        return result


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
