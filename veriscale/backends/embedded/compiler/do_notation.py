"""``do`` blocks (in the ``Id`` monad, and in ``Option``/``Except`` by :mod:`.monads`): sequencing,
``let``/``let rec`` elements, ``return``, reassignment of ``let mut`` variables,
``if``/``unless``/``match`` elements and the ``for``, ``while`` and ``repeat`` loops with
``break``/``continue``."""

from __future__ import annotations

from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import type_of_text
from veriscale.backends.embedded.builtins import LeanHashMap, type_name_of
from veriscale.backends.embedded.builtins._core import nat_range
from veriscale.backends.embedded.compiler.codegen import CodeGen
from veriscale.backends.embedded.compiler.monads import MONADIC, ShortCircuit, pure_of, unwrapped, value_type
from veriscale.backends.embedded.compiler.patterns import _BIND_SLOTS
from veriscale.backends.embedded.compiler.support import Closure, Scope, _needs_int, unsupported
from veriscale.backends.embedded.runtime_support import LeanRange, LeanSubarray
from veriscale.backends.embedded.statics import NAT, PROP, elem_type, head, is_known
from veriscale.lean.types import LeanType, NamedType
from veriscale.lean.values import UNIT, Arr


def _then(gen: CodeGen, first: Closure, rest: Closure) -> Closure:
    """Run ``first`` for its effect on the frame, then ``rest`` for the value."""

    def run(fr: list[Any]) -> Any:
        first(fr)
        return rest(fr)

    return gen.then(run, first, rest)

class _Return(Exception):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _iter_coll(value: Any, node: A.Node) -> Any:
    if isinstance(value, LeanRange):
        if value.step <= 0:
            raise unsupported(node, "range with step 0")
        if value.start < 0:
            raise unsupported(node, "range with a negative start")
        return nat_range(value.start, value.stop, value.step)
    if isinstance(value, tuple):
        return value
    if isinstance(value, Arr):
        return tuple(value.view())  # the loop's body may update the array itself
    if isinstance(value, LeanSubarray):
        # `Subarray.forIn` visits `array[start]`, ..., `array[stop - 1]`
        return value.items()
    if isinstance(value, LeanHashMap):
        # a map yields its (key, value) pairs and a set its elements, in Lean's bucket order
        # (raises Unsupported where that order is not known, e.g. String keys)
        return list(value)
    raise unsupported(node, "iteration", f"over {type_name_of(value)}")


class DoNotationMixin:
    """``do`` notation (part of :class:`~.core.Compiler`)."""

    # -- do notation ------------------------------------------------------------------------
    def c_Do(self, node: A.Do, sc: Scope, expected: LeanType | None) -> Closure:
        monad = self.node_types.monad_of(node)  # type: ignore[attr-defined]
        if monad in MONADIC:
            return self._monadic_do(node, sc, expected, monad)
        if monad != "Id" and sc.ctx.monad != "Id":
            raise unsupported(node, "do block", f"in monad {sc.ctx.monad}")
        saved = sc.ctx.monad
        sc.ctx.monad = "Id"
        sc.ctx.do_depth += 1
        try:
            seq = self.compile_do_seq(node.seq, sc, expected)
        finally:
            sc.ctx.do_depth -= 1
            sc.ctx.monad = saved
        body = self.gen.function(seq)  # its own generated function: `return` is caught around it

        def run(fr: list[Any]) -> Any:
            try:
                return body(fr)
            except _Return as r:
                return r.value

        # the same in generated text, where the block's source can go on its caller's locals
        return self.gen.catching(run, seq, _Return)

    def _monadic_do(self, node: A.Do, sc: Scope, expected: LeanType | None, monad: str) -> Closure:
        """A block in ``Option``/``Except`` (the elaborator's type of it): compiled as in ``Id``
        with every monadic value unwrapped (:mod:`.monads`); ``expected`` is the block's type."""
        saved, saved_result = sc.ctx.monad, sc.ctx.do_result
        sc.ctx.monad, sc.ctx.do_result = monad, value_type(monad, expected)
        sc.ctx.do_depth += 1
        try:
            seq = self.compile_do_seq(node.seq, sc, sc.ctx.do_result)
        finally:
            sc.ctx.do_depth -= 1
            sc.ctx.monad, sc.ctx.do_result = saved, saved_result
        pure = pure_of(monad)

        def run(fr: list[Any]) -> Any:
            try:
                return pure(seq(fr))
            except _Return as r:
                return pure(r.value)
            except ShortCircuit as s:
                return s.value

        return run

    def _monadic_type(self, sc: Scope, inner: LeanType | None) -> LeanType | None:
        """The type of an action whose value has type ``inner``, in the block's monad, where the
        compiler can write it (``Option α``; ``Except ε α`` needs ``ε``, which it does not keep)."""
        if sc.ctx.monad == "Option" and inner is not None:
            return NamedType("Option", (inner,))
        return None

    def _arrow_let(self, decl: A.LetDecl, sc: Scope) -> tuple[Scope, Closure]:
        """``let x ← e`` / ``let (a, b) ← e`` in ``Option``/``Except``: ``x`` is ``e``'s value
        inside the monad, and a failing ``e`` ends the block."""
        monad = sc.ctx.monad
        if decl.value is None or decl.binders or decl.alts is not None:
            raise unsupported(decl, "let ← of this form")
        declared = self.clean_type(type_of_text(decl.type_text), set()) if decl.type_text else None  # type: ignore[attr-defined]
        val = unwrapped(monad, decl, self.compile(decl.value, sc, self._monadic_type(sc, declared)))
        if decl.pattern is not None:
            m, inner = self.compile_pattern(decl.pattern, sc, None)

            def set_pat(fr: list[Any]) -> Any:
                if not m(val(fr), fr):
                    raise unsupported(decl, "refutable let ← pattern")
                return UNIT

            return inner, set_pat
        st = declared if declared is not None else value_type(monad, self.stype(decl.value, sc))
        inner, slot = sc.bind(decl.name or "_", st)

        def set_val(fr: list[Any]) -> Any:
            fr[slot] = val(fr)
            return UNIT

        return inner, set_val

    def compile_do_seq(self, seq: Any, sc: Scope, expected: LeanType | None = None) -> Closure:
        if not isinstance(seq, A.DoSeq):
            # a plain term as a do element
            return self.compile(seq, sc, expected)
        items = seq.items
        if not items:
            return lambda fr: UNIT
        return self._do_items(items, 0, sc, expected)

    def _do_items(self, items: list[A.Node], i: int, sc: Scope, expected: LeanType | None) -> Closure:
        item = items[i]
        last = i == len(items) - 1
        if isinstance(item, (A.DoLet, A.DoLetRec)):
            if isinstance(item, A.DoLet) and item.arrow and sc.ctx.monad in MONADIC:
                inner, setter = self._arrow_let(item.decl, sc)
            elif isinstance(item, A.DoLet):
                # `let x ← e` in Id: bind is application and a value of `Id α` is the α itself,
                # so it is `let x := e`.
                inner, setter = self.compile_let_decl(item.decl, sc)
            else:
                inner, setter = self.compile_let_rec(item.decls, sc, items[i + 1:])
            if last:
                raise unsupported(item, "do block ending with " + ("let" if isinstance(item, A.DoLet) else "let rec"))
            return _then(self.gen, setter, self._do_items(items, i + 1, inner, expected))
        if isinstance(item, (A.DoHave,)):
            modelled = self.compile_local_instance(item.decl, sc) if item.decl is not None else None  # type: ignore[attr-defined]
            if modelled is not None and not last:
                # a local instance the elaborator modelled, for the rest of the block (.instances)
                inner_sc, set_instance = modelled
                return _then(self.gen, set_instance, self._do_items(items, i + 1, inner_sc, expected))
            if last:
                return lambda fr: UNIT
            return self._do_items(items, i + 1, sc, expected)
        stmt = self._do_stmt(item, sc, expected if last else None, last)
        if last:
            return stmt
        return _then(self.gen, stmt, self._do_items(items, i + 1, sc, expected))

    def _do_stmt(self, item: A.Node, sc: Scope, expected: LeanType | None, last: bool) -> Closure:
        if isinstance(item, A.DoExpr):
            if sc.ctx.monad in MONADIC:
                # an action: its value goes on, a failing one ends the block
                return unwrapped(sc.ctx.monad, item, self.compile(item.term, sc, self._monadic_type(sc, expected)))
            return self.compile(item.term, sc, expected)
        if isinstance(item, A.DoReturn):
            ret_t = None
            if sc.ctx.monad in MONADIC:
                ret_t = sc.ctx.do_result
            elif sc.ctx.udef is not None:
                _, ret_t = self.def_types(sc.ctx.udef)
            if item.term is None:
                return self.gen.raising(lambda fr: _raise_return_unit(fr), _Return, self.gen.constant(lambda fr: UNIT, UNIT))
            c = self.compile(item.term, sc, ret_t)

            def ret(fr: list[Any]) -> Any:
                raise _Return(c(fr))

            return self.gen.raising(ret, _Return, c)
        if isinstance(item, A.DoReassign):
            return self._reassign(item, sc)
        if isinstance(item, A.DoIf):
            if item.cond is None:
                val = self.compile(item.let_value, sc, None)  # type: ignore[arg-type]
                m, inner = self.compile_pattern(item.let_pattern, sc, self.stype(item.let_value, sc))  # type: ignore[arg-type]
                t = self.compile_do_seq(item.then, inner, expected)
                e = self.compile_do_seq(item.els, sc, expected) if item.els is not None else (lambda fr: UNIT)

                def run_iflet(fr: list[Any]) -> Any:
                    return t(fr) if m(val(fr), fr) else e(fr)

                return run_iflet
            c = self.compile(item.cond, sc, PROP)
            inner = sc
            if item.hyp:
                inner, _ = sc.bind(item.hyp, None)
            t = self.compile_do_seq(item.then, inner, expected)
            e = (self.compile_do_seq(item.els, inner, expected) if item.els is not None
                 else self.gen.constant(lambda fr: UNIT, UNIT))
            return self.gen.choice(lambda fr: t(fr) if c(fr) else e(fr), c, t, e)
        if isinstance(item, A.DoUnless):
            c = self.compile(item.cond, sc, PROP)
            body = self.compile_do_seq(item.body, sc)

            def run_unless(fr: list[Any]) -> Any:
                if not c(fr):
                    return body(fr)
                return UNIT

            return run_unless
        if isinstance(item, A.DoFor):
            return self._for(item, sc)
        if isinstance(item, A.DoWhile):
            c = self.compile(item.cond, sc, PROP)
            body = self.compile_do_seq(item.body, sc)
            budget = self.budget

            def run_while(fr: list[Any]) -> Any:
                b = budget
                while c(fr):
                    b.tick -= 1
                    if b.tick < 0:
                        b.refill()
                    try:
                        body(fr)
                    except _Break:
                        break
                    except _Continue:
                        continue
                return UNIT

            return run_while
        if isinstance(item, A.DoRepeat):
            body = self.compile_do_seq(item.body, sc)
            budget = self.budget

            def run_repeat(fr: list[Any]) -> Any:
                b = budget
                while True:
                    b.tick -= 1
                    if b.tick < 0:
                        b.refill()
                    try:
                        body(fr)
                    except _Break:
                        break
                    except _Continue:
                        continue
                return UNIT

            return run_repeat
        if isinstance(item, A.DoBreak):
            return self.gen.raising(lambda fr: _raise_break(fr), _Break)
        if isinstance(item, A.DoContinue):
            return self.gen.raising(lambda fr: _raise_continue(fr), _Continue)
        if isinstance(item, A.DoMatch):
            return self.compile_match(item, item.alts, item.discrs, sc, expected, f"_dm{item.line}", is_do=True)
        if isinstance(item, A.DoNested):
            return self.compile_do_seq(item.seq, sc, expected)
        raise unsupported(item, type(item).__name__)

    def _reassign(self, item: A.DoReassign, sc: Scope) -> Closure:
        target = item.target
        if item.op == "←":
            return self._arrow_reassign(item, sc)
        if isinstance(target, A.Ident) and target.name in sc.vars:
            slot, ty = sc.vars[target.name]
            if item.op == ":=":
                c = self.compile(item.value, sc, ty if ty is not None and is_known(ty) else None)
                if ty is not None and is_known(ty) and _needs_int(ty):
                    # not when the elaborator typed the value `ty`: coercing a nested array walks
                    # all of it, on every reassignment
                    c = self.coerced(c, item.value, ty)
            else:
                op = item.op[0]
                c = self._arith_tree(A.BinOp(item.line, item.col, op, target, item.value), sc,
                                     ty if ty is not None and is_known(ty) else None)

            def assign(fr: list[Any]) -> Any:
                fr[slot] = c(fr)
                return UNIT

            return self.gen.store(assign, slot, c, self.gen.const(UNIT))
        if isinstance(target, (A.Tuple, A.AnonCtor, A.Paren)) and item.op == ":=":
            c = self.compile(item.value, sc, None)
            # rebinding existing mutable variables by pattern
            names = _pattern_names(target)
            if any(n not in sc.vars for n in names):
                raise unsupported(item, "pattern reassignment of unknown variables")
            m, inner = self.compile_pattern(target, sc, self.stype(item.value, sc))
            moves = [(inner.vars[n][0], sc.vars[n][0]) for n in names]

            def assign_pat(fr: list[Any]) -> Any:
                if not m(c(fr), fr):
                    raise unsupported(item, "refutable pattern")
                for src, dst in moves:
                    fr[dst] = fr[src]
                return UNIT

            return assign_pat
        raise unsupported(item, "reassignment", type(target).__name__)

    def _arrow_reassign(self, item: A.DoReassign, sc: Scope) -> Closure:
        """``x ← e``: ``x := `` the value of the action ``e`` (in ``Id`` that is ``e`` itself)."""
        target = item.target
        if not (isinstance(target, A.Ident) and target.name in sc.vars):
            raise unsupported(item, "← reassignment", type(target).__name__)
        slot, ty = sc.vars[target.name]
        monad = sc.ctx.monad
        if monad in MONADIC:
            c = unwrapped(monad, item, self.compile(item.value, sc, self._monadic_type(sc, ty)))
        elif monad == "Id":
            c = self.compile(item.value, sc, ty if ty is not None and is_known(ty) else None)
        else:
            raise unsupported(item, "← reassignment", f"in monad {monad}")

        def assign(fr: list[Any]) -> Any:
            fr[slot] = c(fr)
            return UNIT

        return assign

    def _for(self, item: A.DoFor, sc: Scope) -> Closure:
        if len(item.clauses) != 1:
            raise unsupported(item, "for with several clauses")
        pat, coll_t = item.clauses[0]
        coll = self.compile(coll_t, sc, None)
        ct = self.stype(coll_t, sc)
        et = elem_type(ct) if head(ct) in ("List", "Array") else (NAT if isinstance(coll_t, A.RangeLit) else None)
        m, inner = self.compile_pattern(pat, sc, et)
        if item.hyp:
            inner, _ = inner.bind(item.hyp, None)
        body = self.gen.function(self.compile_do_seq(item.body, inner))
        budget = self.budget

        def run_for(fr: list[Any]) -> Any:
            b = budget
            for x in _iter_coll(coll(fr), item):
                b.tick -= 1
                if b.tick < 0:
                    b.refill()
                m(x, fr)
                try:
                    body(fr)
                except _Break:
                    break
                except _Continue:
                    continue
            return UNIT

        def iterate(value: Any) -> Any:
            return _iter_coll(value, item)

        return self.gen.for_loop(run_for, coll, iterate, budget, _BIND_SLOTS.get(m, m), body, (_Break, _Continue), UNIT)


# ---------------------------------------------------------------------------------------------
# small run-time helpers


def _raise_break(fr: list[Any]) -> Any:
    raise _Break()


def _raise_continue(fr: list[Any]) -> Any:
    raise _Continue()


def _raise_return_unit(fr: list[Any]) -> Any:
    raise _Return(UNIT)


def _pattern_names(p: Any) -> list[str]:
    if isinstance(p, A.Ident):
        return [p.name] if "." not in p.name else []
    if isinstance(p, A.Node):
        from dataclasses import fields

        out: list[str] = []
        for f in fields(p):
            out.extend(_pattern_names(getattr(p, f.name)))
        return out
    if isinstance(p, (list, tuple)):
        out2: list[str] = []
        for x in p:
            out2.extend(_pattern_names(x))
        return out2
    return []
