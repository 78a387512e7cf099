"""``do`` notation (``Lean.Elab.Do``): a monad from the expected type, ``let mut`` and reassignment,
``for``/``while`` loops, ``return``, ``break``/``continue``.

* ``do`` needs its expected type to be a monad application; at ``Nat`` Lean stops with "invalid
  `do` notation, expected type is not a monad application" and suggests ``Id.run do``.
* Only variables declared with ``let mut`` may be reassigned (``x := e``, ``x += e``, ``x ← e``).
* A non-final ``do`` element must have type ``m PUnit``; the final one gives the block's value.
* ``for h : i in [a:b]`` puts ``h : i ∈ [a:b]`` in scope (``get_elem_tactic`` uses it when ``b`` is
  the collection's size); ``for i in [a:b]`` puts nothing.
"""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx, ProofType
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.types import (
    GAP,
    NAT,
    UNIT,
    Gap,
    MVar,
    args,
    has_gap,
    head_name,
    show,
    unify,
    zonk,
)
from veriscale.lean.types import LeanType, NamedType

_NOT_MONADS = frozenset({"Nat", "Int", "Bool", "String", "Char", "Float", "Prod", "Unit", "Std.HashMap",
                         "Std.HashSet", "UInt8", "UInt16", "UInt32", "UInt64", "USize", "Prop", "Fin", "Array"})


class DoMixin(ElabCore):
    has_mathlib: bool = False

    def e_Do(self, node: A.Do, ctx: Ctx, expected: LeanType | None) -> LeanType:
        if expected is None or isinstance(zonk(expected), MVar):
            return self.gap(node, "a `do` block whose monad is not known", "postponed")
        z = zonk(expected)
        if isinstance(z, Gap) or has_gap(z):
            return GAP
        h = head_name(z)
        if h in ("Id", "Option") and args(z):
            monad, result = NamedType(h), args(z)[0]
        elif h == "Except" and len(args(z)) == 2:
            # `instance : Monad (Except ε)` (Init/Prelude.lean): the monad is `Except ε`
            monad, result = NamedType(h, args(z)[:1]), args(z)[1]
        elif h in _NOT_MONADS or (h == "List" and not self.has_mathlib):
            self.error(node, f"invalid `do` notation, expected type is not a monad application: {show(z)} "
                             "(in pure code write `Id.run do`)", "do-needs-monad")
            return expected
        else:
            return self.gap(node, f"`do` in the monad of {show(z)} is not modelled")
        inner = ctx.with_do(monad, result, in_loop=False)
        self.do_seq(node.seq, inner, result, final=True)
        return expected

    def wrap(self, ctx: Ctx, t: LeanType) -> LeanType:
        monad = ctx.monad
        assert isinstance(monad, NamedType)
        return NamedType(monad.name, (*monad.args, t))

    def do_seq(self, seq: A.DoSeq, ctx: Ctx, result: LeanType | None, final: bool) -> Ctx:
        items = seq.items
        for i, item in enumerate(items):
            last = i == len(items) - 1
            ctx = self.do_item(item, ctx, result if (last and final) else None, last and final)
        if final and result is not None and items and isinstance(items[-1], _UNIT_ENDINGS):
            # the block continues after such an element with what an empty sequence is, `pure ()`
            # (`Lean.Elab.Term.Do.doSeqToCode` on `[]`): its result is `Unit`
            if unify(UNIT, result) is False and not self.coerces(UNIT, result):
                self.error(items[-1], "type mismatch: the `do` block ends with this element, so its value is "
                                      f"`()` of type Unit, but it is expected to have type {show(zonk(result))}",
                           "do-unit-ending")
        return ctx

    def do_item(self, item: A.Node, ctx: Ctx, result: LeanType | None, last: bool) -> Ctx:
        if isinstance(item, A.DoLet):
            return self.do_let(item, ctx)
        if isinstance(item, A.DoReassign):
            self.do_reassign(item, ctx)
            return ctx
        if isinstance(item, A.DoExpr):
            want = self.wrap(ctx, result if result is not None else UNIT) if last else self.wrap(ctx, UNIT)
            if last and result is None:
                want = self.wrap(ctx, self.fresh())
            t = self.elab(item.term, ctx, want)
            self.expect(item.term, t, want)
            return ctx
        if isinstance(item, A.DoReturn):
            want = ctx.do_return if ctx.do_return is not None else self.fresh()
            if item.term is not None:
                self.check(item.term, ctx, want)
            else:
                self.expect(item, UNIT, want)
            return ctx
        if isinstance(item, A.DoIf):
            return self.do_if(item, ctx, result, last)
        if isinstance(item, A.DoUnless):
            self.as_condition(item.cond, ctx)
            self.do_seq(item.body, ctx, None, final=False)
            return ctx
        if isinstance(item, A.DoFor):
            self.do_for(item, ctx)
            return ctx
        if isinstance(item, A.DoWhile):
            self.as_condition(item.cond, ctx)
            self.do_seq(item.body, ctx.with_do(ctx.monad, ctx.do_return, in_loop=True), None, final=False)
            return ctx
        if isinstance(item, A.DoRepeat):
            self.do_seq(item.body, ctx.with_do(ctx.monad, ctx.do_return, in_loop=True), None, final=False)
            return ctx
        if isinstance(item, (A.DoBreak, A.DoContinue)):
            if not ctx.in_loop:
                word = "break" if isinstance(item, A.DoBreak) else "continue"
                self.error(item, f"invalid `{word}`: it is only valid inside a `for`, `while` or `repeat` loop",
                           "do-loop-control")
            return ctx
        if isinstance(item, A.DoMatch):
            dtypes = [self.elab(d, ctx, None) for d in item.discrs]
            for alt in item.alts:
                inner = ctx
                for p, t in zip(alt.patterns, dtypes):
                    inner = self.bind_pattern(p, t, inner)  # type: ignore[attr-defined]
                self.do_seq(alt.rhs, inner, result, final=last)
            self.exhaustive(item, dtypes, [alt.patterns for alt in item.alts])  # type: ignore[attr-defined]
            return ctx
        if isinstance(item, A.DoNested):
            self.do_seq(item.seq, ctx, result, final=last)
            return ctx
        if isinstance(item, A.DoLetRec):
            return self.let_rec(item.decls, ctx)  # type: ignore[attr-defined]
        if isinstance(item, A.DoHave):
            # a `have` of class type is a local instance for the rest of the block (the block is
            # one term, `have inst : C := v; rest`); any other `have` is a proof
            if item.decl is not None:
                with_instance = self.local_instance_decl(item.decl, ctx, "have")  # type: ignore[attr-defined]
                if with_instance is not None:
                    return with_instance  # type: ignore[no-any-return]
            return ctx
        self.gap(item, f"the `do` element `{type(item).__name__}` is not modelled")
        return ctx

    def do_let(self, item: A.DoLet, ctx: Ctx) -> Ctx:
        decl = item.decl
        kind = "mut" if item.mutable else "let"
        if not item.arrow:
            return self.let_decl(decl, ctx, kind)  # type: ignore[attr-defined]
        declared = self.read_type(decl.type, ctx) if decl.type is not None else None
        inner_t: LeanType = declared if declared is not None and not isinstance(declared, Gap) else self.fresh()
        if decl.value is not None:
            self.check(decl.value, ctx, self.wrap(ctx, inner_t))
        if decl.pattern is not None:
            return self.bind_pattern(decl.pattern, inner_t, ctx)  # type: ignore[attr-defined]
        return ctx.bind(decl.name or "_", inner_t, kind)  # type: ignore[arg-type]

    def do_reassign(self, item: A.DoReassign, ctx: Ctx) -> None:
        targets = _target_names(item.target)
        if targets is None:
            self.elab(item.value, ctx, None)
            self.gap(item, f"reassignment of `{A.lean_syntax(item.target)}` is not modelled")
            return
        for name in targets:
            decl = ctx.lookup(name)
            if decl is None:
                self.error(item, f"unknown identifier `{name}` (reassignment needs a `let mut` variable)",
                           "do-reassign")
                return
            if decl.kind != "mut":
                self.error(item, f"`{name}` cannot be mutated, only variables declared using `let mut` can be "
                                 "mutated", "do-reassign")
                return
        if isinstance(item.target, A.Ident):
            var_t = ctx.lookup(item.target.name).type  # type: ignore[union-attr]
            if item.op == ":=":
                self.check(item.value, ctx, var_t)
            elif item.op == "←":
                self.check(item.value, ctx, self.wrap(ctx, var_t))
            else:
                op = item.op[0]
                node = A.BinOp(item.line, item.col, op, item.target, item.value)
                self.check(node, ctx, var_t)
            return
        t = self.elab(item.value, ctx, None)
        self.bind_pattern(item.target, t, ctx)  # type: ignore[attr-defined]

    def do_if(self, item: A.DoIf, ctx: Ctx, result: LeanType | None, last: bool) -> Ctx:
        then_ctx, else_ctx = ctx, ctx
        if item.cond is None:
            vt = self.elab(item.let_value, ctx, None) if item.let_value is not None else GAP
            if item.let_pattern is not None:
                then_ctx = self.bind_pattern(item.let_pattern, vt, ctx)  # type: ignore[attr-defined]
        else:
            self.as_condition(item.cond, ctx)
            if item.hyp:
                then_ctx = ctx.bind(item.hyp, ProofType(item.cond, A.sexpr(item.cond))).assume(item.cond, "if")
                neg = A.UnOp(item.line, item.col, "¬", item.cond)
                else_ctx = ctx.bind(item.hyp, ProofType(neg, A.sexpr(neg))).assume(neg, "if")
        self.do_seq(item.then, then_ctx, result, final=last)
        if item.els is not None:
            self.do_seq(item.els, else_ctx, result, final=last)
        return ctx

    def do_for(self, item: A.DoFor, ctx: Ctx) -> None:
        inner = ctx.with_do(ctx.monad, ctx.do_return, in_loop=True)
        for pattern, coll in item.clauses:
            ct = self.elab(coll, ctx, None)
            z = zonk(ct)
            h = head_name(z)
            if h in ("List", "Array", "Subarray", "Std.HashSet") and args(z):
                elem: LeanType = args(z)[0]
            elif h == "Std.Range":
                elem = NAT
            elif h == "Std.HashMap" and len(args(z)) == 2:
                from veriscale.lean.types import ProdType

                elem = ProdType(args(z)[0], args(z)[1])
            elif isinstance(z, Gap) or has_gap(z):
                elem = GAP
            elif h in ("Nat", "Int", "Bool", "Char", "Float"):
                self.error(coll, f"failed to synthesize ForIn for {show(z)}", "missing-instance")
                elem = GAP
            else:
                self.gap(coll, f"`for … in` over {show(z)} is not modelled")
                elem = GAP
            inner = self.bind_pattern(pattern, elem, inner)  # type: ignore[attr-defined]
            if item.hyp and isinstance(pattern, A.Ident):
                mem = A.BinOp(item.line, item.col, "∈", pattern, coll)
                inner = inner.bind(item.hyp, ProofType(mem, A.sexpr(mem))).assume(mem, "for")
        self.do_seq(item.body, inner, None, final=False)


#: `do` elements after which a sequence goes on: ending a block with one ends it with `pure ()`
_UNIT_ENDINGS = (A.DoLet, A.DoReassign, A.DoHave, A.DoLetRec, A.DoFor, A.DoWhile, A.DoRepeat, A.DoUnless)


def _target_names(target: A.Node) -> list[str] | None:
    if isinstance(target, A.Ident) and "." not in target.name:
        return [target.name]
    if isinstance(target, A.Paren):
        return _target_names(target.term)
    if isinstance(target, (A.Tuple, A.AnonCtor)):
        out: list[str] = []
        for item in target.items:
            names = _target_names(item)
            if names is None:
                return None
            out.extend(names)
        return out
    if isinstance(target, A.Hole):
        return []
    return None


__all__ = ["DoMixin"]
