"""``do`` notation: sequences and their elements (``let``/``let mut``/``←``, ``if``, ``unless``,
``for``, ``while``, ``repeat``, ``return``, reassignments), with the expansions Lean's macros do:
nested actions placed before their element and ``let pat := e | alt`` into a ``match``."""

from __future__ import annotations

from dataclasses import dataclass

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser.core import ParserCore
from veriscale.lean.lexer import EOF, IDENT, KEYWORD, SYM, LeanSyntaxError, Token

_CLOSERS = frozenset({")", "]", "}", "⟩", ",", ":=", "=>", "|", ";", ":", "⦄"})


class DoNotationMixin(ParserCore):
    """``do`` blocks."""

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
                return A.DoHave(t.line, t.col, self.have_decl(t))
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
                hyp = self.name_or_hole()
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


@dataclass(slots=True, eq=False)
class _DoLetElse(A.Node):
    """``let pat := value | alternative`` while its do block is parsed; expanded into a
    :class:`~veriscale.backends.embedded.ast.DoMatch` over the rest of the block before the block is returned."""

    pattern: A.Node
    value: A.Node
    arrow: bool
    alternative: A.DoSeq
