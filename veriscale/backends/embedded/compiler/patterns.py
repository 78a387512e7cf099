"""Branching and patterns: ``if``/``if let``, ``match`` and its alternatives, the patterns
themselves, and the terms built from a structure's fields (anonymous constructors, structure
instances).

The generated tests of a pattern read a value's class by identity (``v.__class__ is tuple``)
where the closures call ``isinstance``: no run-time value's class derives from ``tuple``,
``Some``, ``Pair`` or ``Ctor``, so the two agree, and the identity test costs no call."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import type_of_text
from veriscale.backends.embedded.compiler.codegen import InlineTest
from veriscale.backends.embedded.compiler.support import Closure, DefCtx, Scope, _coercer, unsupported
from veriscale.backends.embedded.compiler.unboxed import (
    record_none_pattern,
    record_some_pattern,
    unboxed_of,
    unboxed_tests,
)
from veriscale.backends.embedded.statics import INT, NAT, PROP, elem_type, head
from veriscale.lean.types import LeanType, NamedType, ProdType
from veriscale.lean.values import NONE, ORDERINGS, Arr, Char, Ctor, Nat, Pair, Some, Struct

_ORDERINGS: dict[str, Ctor] = {o.name: o for o in ORDERINGS}
_CORE_NULLARY_CTORS = frozenset({*_ORDERINGS, "Nat.zero", "List.nil", "Option.none", "Bool.true", "Bool.false",
                                 "Unit.unit"})
"""Core constructors without arguments that an opened namespace lets a pattern name bare."""


class PatternsMixin:
    """``if``, ``match``, patterns and structure values (part of :class:`~.core.Compiler`)."""

    # -- if / match -------------------------------------------------------------------------
    def c_If(self, node: A.If, sc: Scope, expected: LeanType | None) -> Closure:
        return self._if(node, node.cond, node.then, node.els, sc, expected, node.hyp)

    def _if(self, node: A.Node, cond: A.Node, then: A.Node, els: A.Node, sc: Scope, expected: LeanType | None,
            hyp: str | None = None) -> Closure:
        c = self.compile(cond, sc, PROP)
        inner = sc
        if hyp:
            inner, slot = sc.bind(hyp, None)
        t = self.compile(then, inner, expected)
        e = self.compile(els, inner, expected)
        if expected is None:
            tt, et = self.stype(then, sc), self.stype(els, sc)
            if tt == INT or et == INT:
                t, e = _coercer(t, INT, self.gen), _coercer(e, INT, self.gen)

        def run(fr: list[Any]) -> Any:
            return t(fr) if c(fr) else e(fr)

        return self.gen.choice(run, c, t, e)

    def c_IfLet(self, node: A.IfLet, sc: Scope, expected: LeanType | None) -> Closure:
        val = self.compile(node.value, sc, None)
        m, inner = self.compile_pattern(node.pattern, sc, self.stype(node.value, sc))
        t = self.compile(node.then, inner, expected)
        e = self.compile(node.els, sc, expected)

        def run(fr: list[Any]) -> Any:
            if m(val(fr), fr):
                return t(fr)
            return e(fr)

        return run

    def c_Match(self, node: A.Match, sc: Scope, expected: LeanType | None) -> Closure:
        return self.compile_match(node, node.alts, node.discrs, sc, expected, f"_m{node.line}_{node.col}", is_do=False)

    def compile_match(self, node: A.Node, alts: list[A.MatchAlt], discrs: list[A.Node], sc: Scope, expected: LeanType | None,
                      slot_name: str, is_do: bool) -> Closure:
        """A ``match`` (a term, or a ``do`` element when ``is_do``): each discriminant is computed
        into its own slot (``{slot_name}_{k}``), then the alternatives are tried on the slots."""
        dcs = [self.compile(d, sc, None) for d in discrs]
        dts = [self.stype(d, sc) for d in discrs]
        inner = sc
        slots = []
        for k in range(len(dcs)):
            inner, slot = inner.bind(f"{slot_name}_{k}", dts[k])
            slots.append(slot)
        unboxable = [unboxed_of(d) for d in dcs]
        body, unboxed = self._match_alts(node, [self.gen.slot(lambda fr, s=s: fr[s], s) for s in slots], dts, alts,
                                         inner, expected, is_do, unboxable)
        # the discriminants the generated text stores (unboxed where its tests read them so)
        stores = [unboxable[k] if k in unboxed else d for k, d in enumerate(dcs)]

        if len(dcs) == 1:
            (s0,), (d0,), (t0,) = slots, dcs, stores

            def run1(fr: list[Any]) -> Any:
                fr[s0] = d0(fr)
                return body(fr)

            return self.gen.then(run1, self.gen.store(lambda fr: None, s0, t0), body)

        def run(fr: list[Any]) -> Any:
            for s, c in zip(slots, dcs):
                fr[s] = c(fr)
            return body(fr)

        stored = body
        for s, c in reversed(list(zip(slots, stores))):  # each discriminant stored in turn, then the body
            stored = self.gen.then(lambda fr: None, self.gen.store(lambda fr: None, s, c), stored)
        src = self.gen.src(stored)
        return self.gen.attach(run, src) if src.fused else run

    def compile_match_alts(self, node: A.Node, getters: list[Closure], dtypes: list[LeanType | None],
                           alts: list[A.MatchAlt], sc: Scope, expected: LeanType | None, is_do: bool) -> Closure:
        return self._match_alts(node, getters, dtypes, alts, sc, expected, is_do, [None] * len(getters))[0]

    def _match_alts(self, node: A.Node, getters: list[Closure], dtypes: list[LeanType | None],
                    alts: list[A.MatchAlt], sc: Scope, expected: LeanType | None, is_do: bool,
                    unboxable: list[Closure | None]) -> tuple[Closure, frozenset[int]]:
        """The alternatives of a ``match`` tried on the values ``getters`` read, and the
        positions whose value the generated text tests unboxed (:mod:`.unboxed`): among those
        whose discriminant has an unboxed form (``unboxable``), the ones every pattern allows."""
        compiled: list[tuple[list[Any], Closure]] = []
        for alt in alts:
            if len(alt.patterns) != len(getters):
                raise unsupported(alt, "match alternative arity")
            inner = sc
            ms = []
            for p, t in zip(alt.patterns, dtypes):
                m, inner = self.compile_pattern(p, inner, t)
                ms.append(m)
            if is_do:
                rhs = self.compile_do_seq(alt.rhs, inner)
            else:
                rhs = self.compile(alt.rhs, inner, expected)
            compiled.append((ms, rhs))
        # per position, the tests of the alternatives in order (None: tested as the closures do)
        unboxed_at: dict[int, list[InlineTest | None]] = {}
        for k, u in enumerate(unboxable):
            tests_k = unboxed_tests(self.gen, [ms[k] for ms, _ in compiled], _test_of, _matches_anything) if u else None
            if tests_k is not None:
                unboxed_at[k] = tests_k

        def tests_of(i: int, ms: list[Any]) -> list[int | InlineTest | Callable[..., bool] | None]:
            return [unboxed_at[k][i] if k in unboxed_at else _test_of(m) for k, m in enumerate(ms)]

        unboxed = frozenset(unboxed_at)
        if len(getters) == 1:
            # one discriminant (the common case): no list of values, no inner loop
            g0 = getters[0]
            single = [(ms[0], rhs) for ms, rhs in compiled]

            def run1(fr: list[Any]) -> Any:
                v = g0(fr)
                for m, rhs in single:
                    if m(v, fr):
                        return rhs(fr)
                raise unsupported(node, "non-exhaustive match")

            def fail() -> Any:
                raise unsupported(node, "non-exhaustive match")

            tests = [(tests_of(i, [m])[0], rhs) for i, (m, rhs) in enumerate(single)]
            return self.gen.match(run1, g0, tests, fail), unboxed

        first_ms, first_rhs = compiled[0]
        if all(m is _matches_anything or m in _BIND_SLOTS for m in first_ms):
            # `| n, p => …` (every pattern of the first alternative a variable or `_`): it always
            # matches, so the alternative is its bindings (the getters only read slots)
            binds = [(_BIND_SLOTS[m], g) for m, g in zip(first_ms, getters) if m is not _matches_anything]

            def run_binds(fr: list[Any]) -> Any:
                for slot, g in binds:
                    fr[slot] = g(fr)
                return first_rhs(fr)

            return self.gen.match_many(run_binds, getters, [(tests_of(0, first_ms), first_rhs)], _never), unboxed

        def run(fr: list[Any]) -> Any:
            vals = [g(fr) for g in getters]
            for ms, rhs in compiled:
                ok = True
                for m, v in zip(ms, vals):
                    if not m(v, fr):
                        ok = False
                        break
                if ok:
                    return rhs(fr)
            raise unsupported(node, "non-exhaustive match")

        def fail_many() -> Any:
            raise unsupported(node, "non-exhaustive match")

        return self.gen.match_many(run, getters, [(tests_of(i, ms), rhs) for i, (ms, rhs) in enumerate(compiled)],
                                   fail_many), unboxed

    # -- patterns ---------------------------------------------------------------------------
    def compile_pattern(self, p: A.Node, sc: Scope, ty: LeanType | None) -> tuple[Callable[[Any, list[Any]], bool], Scope]:
        if isinstance(p, A.Paren):
            return self.compile_pattern(p.term, sc, ty)
        if isinstance(p, A.Hole):
            return _matches_anything, sc
        if isinstance(p, A.Ident):
            name = p.name
            if name in ("none", "Option.none") or (name == "none"):
                none = _inline(lambda v, fr: v is NONE, InlineTest(f"{{v}} is {self.gen.const(NONE)}"))
                record_none_pattern(none)
                return none, sc
            if name in ("true", "Bool.true"):
                return _inline(lambda v, fr: v is True, InlineTest("{v} is True")), sc
            if name in ("false", "Bool.false"):
                return _inline(lambda v, fr: v is False, InlineTest("{v} is False")), sc
            if name == "Nat.zero":
                return _inline(lambda v, fr: v == 0 and not isinstance(v, bool), self._number_test(0)), sc
            if name in ("List.nil",):
                return _inline(lambda v, fr: len(v) == 0, InlineTest(f"{self.gen.const(len)}({{v}}) == 0")), sc
            if name in _ORDERINGS:
                return self._ordering_pattern(_ORDERINGS[name]), sc
            core = self._resolved_core_ctor(name, sc)
            if core is not None:
                return self.compile_pattern(A.Ident(p.line, p.col, core), sc, ty)
            ci = self._pattern_ctor(name, ty)
            if ci is not None:
                cname = ci
                return _inline(lambda v, fr: isinstance(v, Ctor) and v.name == cname, self._ctor_test(cname)), sc
            if "." in name:
                raise unsupported(p, f"pattern {name}")
            inner, slot = sc.bind(name, ty)

            def bind(v: Any, fr: list[Any]) -> bool:
                fr[slot] = v
                return True

            _BIND_SLOTS[bind] = slot
            return bind, inner
        if isinstance(p, A.DotIdent):
            if p.name == "none":
                return _inline(lambda v, fr: v is NONE, InlineTest(f"{{v}} is {self.gen.const(NONE)}")), sc
            if p.name == "nil":
                return _inline(lambda v, fr: len(v) == 0, InlineTest(f"{self.gen.const(len)}({{v}}) == 0")), sc
            if p.name in ("true", "false"):
                bv = p.name == "true"
                return _inline(lambda v, fr: v is bv, InlineTest(f"{{v}} is {bv}")), sc
            if head(ty) == "Ordering" and f"Ordering.{p.name}" in _ORDERINGS:
                return self._ordering_pattern(_ORDERINGS[f"Ordering.{p.name}"]), sc
            ci = self._pattern_ctor(p.name, ty)
            if ci is not None:
                cname = ci
                return _inline(lambda v, fr: isinstance(v, Ctor) and v.name == cname, self._ctor_test(cname)), sc
            raise unsupported(p, f"pattern .{p.name}")
        if isinstance(p, A.NumLit):
            n = p.value
            return _inline(lambda v, fr: v == n and not isinstance(v, bool), self._number_test(n)), sc
        if isinstance(p, A.UnOp) and p.op == "-" and isinstance(p.arg, A.NumLit):
            n = -p.arg.value
            return (lambda v, fr: v == n), sc
        if isinstance(p, A.StrLit):
            s = p.value
            return (lambda v, fr: isinstance(v, str) and not isinstance(v, Char) and v == s), sc
        if isinstance(p, A.CharLit):
            ch = p.value
            return _inline(lambda v, fr: v == ch, InlineTest(f"{{v}} == {self.gen.const(ch)}")), sc
        if isinstance(p, A.ListLit) or isinstance(p, A.ArrayLit):
            et = elem_type(ty)
            ms = []
            inner = sc
            for item in p.items:
                m, inner = self.compile_pattern(item, inner, et)
                ms.append(m)
            n = len(ms)
            is_arr = isinstance(p, A.ArrayLit)
            if n == 0 and not is_arr:
                return _inline(lambda v, fr: isinstance(v, tuple) and not v,
                               InlineTest(f"({{v}}.__class__ is {self.gen.const(tuple)} and not {{v}})")
                               ), inner

            def match_list(v: Any, fr: list[Any]) -> bool:
                if not isinstance(v, (tuple, Arr)) or len(v) != n or (is_arr and not isinstance(v, Arr)):
                    return False
                return all(m(x, fr) for m, x in zip(ms, v))

            if not is_arr:
                g = self.gen
                shape = f"{g.const(isinstance)}({{v}}, {g.const((tuple, Arr))}) and {g.const(len)}({{v}}) == {g.const(n)}"
                _inline_composed(match_list, [shape], [(m, f"{{v}}[{i}]") for i, m in enumerate(ms)])
            return match_list, inner
        if isinstance(p, A.BinOp) and p.op == "::":
            et = elem_type(ty) if head(ty) == "List" else None
            mh, inner = self.compile_pattern(p.lhs, sc, et)
            mt, inner = self.compile_pattern(p.rhs, inner, ty)

            hs, ts = _BIND_SLOTS.get(mh), _BIND_SLOTS.get(mt)
            if hs is not None and ts is not None:
                # `x :: xs` with two variables: bind the slots directly
                def bind_cons(v: Any, fr: list[Any]) -> bool:
                    if not isinstance(v, tuple) or not v:
                        return False
                    fr[hs] = v[0]
                    fr[ts] = v[1:]
                    return True

                cond = f"({{v}}.__class__ is {self.gen.const(tuple)} and {{v}})"
                return _inline(bind_cons, InlineTest(cond, [(hs, "{v}[0]"), (ts, "{v}[1:]")])), inner

            def match_cons(v: Any, fr: list[Any]) -> bool:
                if not isinstance(v, tuple) or not v:
                    return False
                return mh(v[0], fr) and mt(v[1:], fr)

            cond = f"{{v}}.__class__ is {self.gen.const(tuple)} and {{v}}"
            _inline_composed(match_cons, [cond], [(mh, "{v}[0]"), (mt, "{v}[1:]")])
            return match_cons, inner
        if isinstance(p, A.BinOp) and p.op == "+" and isinstance(p.rhs, A.NumLit):
            k = p.rhs.value
            mn, inner = self.compile_pattern(p.lhs, sc, NAT)

            def match_succ(v: Any, fr: list[Any]) -> bool:
                if not isinstance(v, int) or v < k:
                    return False
                return mn(Nat(v - k), fr)

            g = self.gen
            _inline_composed(match_succ, [f"{g.const(isinstance)}({{v}}, {g.const(int)}) and {{v}} >= {g.const(k)}"],
                             [(mn, f"{g.const(Nat)}({{v}} - {g.const(k)})")])
            return match_succ, inner
        if isinstance(p, (A.Tuple, A.AnonCtor)):
            items = p.items
            h = head(ty)
            if isinstance(p, A.AnonCtor) and h is not None and h in self.env.structs:
                si = self.env.structs[h]
                if len(items) != len(si.fields):
                    raise unsupported(p, "anonymous constructor pattern")
                ms = []
                inner = sc
                for item, f in zip(items, si.fields):
                    m, inner = self.compile_pattern(item, inner, f[1])
                    ms.append(m)

                def match_struct(v: Any, fr: list[Any]) -> bool:
                    return isinstance(v, Struct) and all(m(x[1], fr) for m, x in zip(ms, v.fields))

                return match_struct, inner
            if isinstance(p, A.AnonCtor) and h is not None and h not in ("Prod",) and ty is not None:
                raise unsupported(p, "anonymous constructor pattern", f"at type {ty}")
            # product (right-nested)
            ms = []
            inner = sc
            t = ty
            for item in items[:-1]:
                m, inner = self.compile_pattern(item, inner, t.fst if isinstance(t, ProdType) else None)
                ms.append(m)
                t = t.snd if isinstance(t, ProdType) else None
            ml, inner = self.compile_pattern(items[-1], inner, t)
            ms.append(ml)

            def match_prod(v: Any, fr: list[Any]) -> bool:
                for m in ms[:-1]:
                    if not isinstance(v, Pair):
                        return False
                    if not m(v.fst, fr):
                        return False
                    v = v.snd
                return ms[-1](v, fr)

            if len(items) == 1:
                return ms[0], inner
            pair, part = self.gen.const(Pair), "{v}"
            conds, parts = [], []
            for m in ms[:-1]:
                conds.append(f"{part}.__class__ is {pair}")
                parts.append((m, f"{part}.fst"))
                part += ".snd"
            parts.append((ms[-1], part))
            # (each part's own test comes after the tests of the pairs it sits in, as above)
            _inline_composed(match_prod, conds, parts)
            return match_prod, inner
        if isinstance(p, A.App):
            fn = p.fn
            fname = fn.name if isinstance(fn, (A.Ident, A.DotIdent)) else None
            if fname in ("some", "Option.some") and len(p.args) == 1:
                m, inner = self.compile_pattern(p.args[0], sc, elem_type(ty) if head(ty) == "Option" else None)
                def some(v: Any, fr: list[Any]) -> bool:
                    return isinstance(v, Some) and m(v.value, fr)

                # `some x`, `some _`: a type test, then at most one store; `some (a, b)`…: the
                # inner pattern's test on the value
                _inline_composed(some, [f"{{v}}.__class__ is {self.gen.const(Some)}"],
                                 [(m, "{v}.value")])
                record_some_pattern(some, m)
                return some, inner
            if fname in ("Nat.succ", "succ") and len(p.args) == 1:
                m, inner = self.compile_pattern(p.args[0], sc, NAT)
                return (lambda v, fr: isinstance(v, int) and v > 0 and m(Nat(v - 1), fr)), inner
            core_ctor = _core_ctor_pattern(fname, p.fn, ty)
            if core_ctor is not None and len(p.args) == 1:
                return self._unary_ctor_pattern(core_ctor, p.args[0], sc, ty)
            if fname in ("List.cons", "cons") and len(p.args) == 2:
                return self.compile_pattern(A.BinOp(p.line, p.col, "::", p.args[0], p.args[1]), sc, ty)
            if fname in ("Prod.mk",) and len(p.args) == 2:
                return self.compile_pattern(A.Tuple(p.line, p.col, list(p.args)), sc, ty)
            if fname is not None:
                ci = self._pattern_ctor(fname, ty)
                if ci is not None:
                    info = self.env.ctors[ci]
                    ms = []
                    inner = sc
                    for a, at in zip(p.args, info.arg_types + [None] * len(p.args)):
                        m, inner = self.compile_pattern(a, inner, at)
                        ms.append(m)
                    cname = ci

                    def match_ctor(v: Any, fr: list[Any]) -> bool:
                        return isinstance(v, Ctor) and v.name == cname and len(v.args) == len(ms) and all(
                            m(x, fr) for m, x in zip(ms, v.args))

                    g = self.gen
                    shape = f"{self._ctor_test(cname).cond} and {g.const(len)}({{v}}.args) == {g.const(len(ms))}"
                    _inline_composed(match_ctor, [shape], [(m, f"{{v}}.args[{i}]") for i, m in enumerate(ms)])
                    return match_ctor, inner
        if isinstance(p, A.Ascription):
            return self.compile_pattern(p.term, sc, type_of_text(p.type_text) or ty)
        raise unsupported(p, "pattern", type(p).__name__)

    def _unary_ctor_pattern(self, ctor: str, arg: A.Node, sc: Scope,
                            ty: LeanType | None) -> tuple[Callable[[Any, list[Any]], bool], Scope]:
        """``Int.ofNat n`` / ``Int.negSucc n`` (Init/Data/Int/Basic.lean: ``Int.negSucc n`` is
        ``-(n + 1)``; an ``Int`` is kept as a Python int) and ``Except.ok a`` / ``Except.error e``."""
        if ctor in ("Int.ofNat", "Int.negSucc"):
            m, inner = self.compile_pattern(arg, sc, NAT)
            if ctor == "Int.ofNat":
                return (lambda v, fr: isinstance(v, int) and not isinstance(v, bool) and v >= 0 and m(Nat(v), fr)), inner
            return (lambda v, fr: isinstance(v, int) and not isinstance(v, bool) and v < 0 and m(Nat(-v - 1), fr)), inner
        m, inner = self.compile_pattern(arg, sc, None)
        return (lambda v, fr: isinstance(v, Ctor) and v.name == ctor and m(v.args[0], fr)), inner

    def _resolved_core_ctor(self, name: str, sc: Scope) -> str | None:
        """The core constructor a bare name denotes where it is (``lt`` under ``open Ordering``,
        ``zero`` under ``open Nat``): Lean reads an identifier as a constructor pattern exactly
        when it resolves to one (``Lean.Elab.PatternVar``), else as a new variable."""
        if "." in name:
            return None
        names = self.resolved_names(name, sc)  # type: ignore[attr-defined]
        if names is None or len(names) != 1 or names[0] not in _CORE_NULLARY_CTORS:
            return None
        return names[0]

    def _ordering_pattern(self, ordering: Ctor) -> Callable[[Any, list[Any]], bool]:
        """``.lt`` / ``Ordering.lt``: the value is that constructor (the three are shared objects
        only by convention, so the test is by value)."""
        return _inline(lambda v, fr: v == ordering, InlineTest(f"{{v}} == {self.gen.const(ordering)}"))

    def _number_test(self, n: int) -> InlineTest:
        """The test of a numeral pattern: equal to ``n``, not a ``Bool``."""
        g = self.gen
        return InlineTest(f"{{v}} == {g.const(n)} and not {g.const(isinstance)}({{v}}, {g.const(bool)})")

    def _ctor_test(self, cname: str) -> InlineTest:
        """The test of a user constructor's pattern: a constructor value of that name."""
        g = self.gen
        return InlineTest(f"{{v}}.__class__ is {g.const(Ctor)} and {{v}}.name == {g.const(cname)}")

    def _pattern_ctor(self, name: str, ty: LeanType | None) -> str | None:
        if name in self.env.ctors:
            return name
        h = head(ty)
        if h is not None and f"{h}.{name}" in self.env.ctors:
            return f"{h}.{name}"
        return None

    # -- structures -------------------------------------------------------------------------
    def c_AnonCtor(self, node: A.AnonCtor, sc: Scope, expected: LeanType | None) -> Closure:
        h = head(expected)
        if h is not None and h in self.env.structs:
            si = self.env.structs[h]
            if len(node.items) != len(si.fields):
                raise unsupported(node, "anonymous constructor arity")
            cs = [self.compile(a, sc, f[1]) for a, f in zip(node.items, si.fields)]
            fnames = [f[0] for f in si.fields]
            return self._struct_source(lambda fr: Struct(h, tuple(zip(fnames, (c(fr) for c in cs)))), h, fnames, cs)
        if h == "Prod" or (expected is None and len(node.items) >= 2):
            if expected is None:
                raise unsupported(node, "anonymous constructor", "expected type unknown")
            return self.c_Tuple(A.Tuple(node.line, node.col, node.items), sc, expected)
        raise unsupported(node, "anonymous constructor", f"at type {expected}")

    def c_StructInst(self, node: A.StructInst, sc: Scope, expected: LeanType | None) -> Closure:
        ty = self.clean_type(type_of_text(node.type_text), set()) if node.type_text else expected
        h = head(ty)
        if h is None:
            # the type the elaborator found for it (an argument whose parameter type the compiler
            # does not know: `xs.foldl step { seen := [] }`), for a structure without parameters
            found = self.node_types.head_of(node)  # type: ignore[attr-defined]
            si = self.env.structs.get(found) if found is not None else None
            if si is not None and not si.params:
                h, ty = found, NamedType(found)  # type: ignore[assignment]
        if h is None or h not in self.env.structs:
            if not node.fields and node.source is None and h is not None:
                # `{}` is also `EmptyCollection.emptyCollection` notation; at a type that is not a
                # user structure that is the only elaboration that can succeed (`Array` is a
                # structure, but `{}` lacks its field `toList`)
                return self._empty_collection(node, ty, "{}")
            raise unsupported(node, "structure instance", f"type {ty}")
        si = self.env.structs[h]
        given = dict(node.fields)
        src = self.compile(node.source, sc, ty) if node.source is not None else None
        cs: list[tuple[str, Closure | None, int]] = []
        for i, (fname, fty, fdef) in enumerate(si.fields):
            if fname in given:
                cs.append((fname, self.compile(given[fname], sc, fty), i))
            elif src is not None:
                cs.append((fname, None, i))
            elif fdef is not None:
                cs.append((fname, self.compile(fdef, Scope(DefCtx("", None)), fty), i))
            else:
                raise unsupported(node, "structure instance", f"missing field {fname}")
        for fname in given:
            if si.field_index(fname) < 0:
                raise unsupported(node, "structure instance", f"unknown field {fname}")

        def run(fr: list[Any]) -> Any:
            s = src(fr) if src is not None else None
            vals = []
            for fname, c, i in cs:
                vals.append((fname, c(fr) if c is not None else s.fields[i][1]))  # type: ignore[union-attr]
            return Struct(h, tuple(vals))

        if src is not None:
            return run
        return self._struct_source(run, h, [fname for fname, _, _ in cs], [c for _, c, _ in cs if c is not None])

    def _struct_source(self, closure: Closure, h: str, fnames: list[str], cs: list[Closure]) -> Closure:
        """``closure`` (the structure ``h`` made of the fields ``fnames``, valued by ``cs`` in
        that order) with its source: the fields evaluated left to right, as the closure does."""
        g = self.gen  # type: ignore[attr-defined]
        fields = "".join(f"({g.const(n)}, {{{i}}}), " for i, n in enumerate(fnames))
        return g.fuse(closure, f"{g.const(Struct)}({g.const(h)}, ({fields}))", cs)  # type: ignore[no-any-return]


def _test_of(m: Callable[..., bool]) -> int | InlineTest | Callable[..., bool] | None:
    """A matcher as code generation takes it (:meth:`.codegen.CodeGen.match`): ``None`` for
    ``_``, the slot of a variable pattern, its inline test, or the matcher itself."""
    if m is _matches_anything:
        return None
    slot = _BIND_SLOTS.get(m)
    if slot is not None:
        return slot
    return _INLINE_TESTS.get(m, m)


def _never() -> Any:
    raise AssertionError("an alternative of variables and `_` always matches")


def _matches_anything(v: Any, fr: list[Any]) -> bool:
    """The matcher of ``_``."""
    return True


_BIND_SLOTS: weakref.WeakKeyDictionary[Callable[..., bool], int] = weakref.WeakKeyDictionary()
"""The frame slot of each variable pattern's matcher (which always matches and binds it)."""

_INLINE_TESTS: weakref.WeakKeyDictionary[Callable[..., bool], InlineTest] = weakref.WeakKeyDictionary()
"""The text of the matchers whose test and binding generated code can write inline."""


def _inline_composed(matcher: Callable[..., bool], conds: list[str], parts: list[tuple[Callable[..., bool], str]]) -> None:
    """Record the text of a pattern made of sub-patterns, when each sub-pattern's test has one:
    ``conds`` (over ``{v}``, tested first, in order), then each sub-pattern's test on its part
    of the value (``parts``: its matcher and the part as text over ``{v}``), in order, their
    variables bound once all pass. No part is read before the tests that make it readable."""
    tests = list(conds)
    binds: list[tuple[int, str]] = []
    for m, part in parts:
        t = _test_of(m)
        if t is None:
            continue
        if isinstance(t, int):
            binds.append((t, part))
        elif isinstance(t, InlineTest):
            tests.append(t.cond.format(v=part))
            binds.extend((slot, text.format(v=part)) for slot, text in t.binds)
        else:
            return  # a sub-pattern tested only by its matcher
    _inline(matcher, InlineTest(" and ".join(f"({c})" for c in tests) or "True", binds))


def pattern_text(m: Callable[..., bool]) -> InlineTest | None:
    """The text of the matcher ``m`` as one test and its bindings, when it has one."""
    t = _test_of(m)
    if t is None:
        return InlineTest("True")
    if isinstance(t, int):
        return InlineTest("True", [(t, "{v}")])
    return t if isinstance(t, InlineTest) else None


def _inline(matcher: Callable[..., bool], test: InlineTest) -> Callable[..., bool]:
    """``matcher``, with ``test`` recorded as its text (see :class:`.codegen.InlineTest`)."""
    _INLINE_TESTS[matcher] = test
    return matcher


_CORE_UNARY_CTORS = {"Int": ("Int.ofNat", "Int.negSucc"), "Except": ("Except.ok", "Except.error")}


def _core_ctor_pattern(fname: str | None, fn: A.Node, ty: LeanType | None) -> str | None:
    """The core constructor of one argument a pattern's head names (``Int.ofNat``, ``.negSucc`` at
    ``Int``, ``Except.ok``, ``.error`` at ``Except``), or ``None``."""
    if fname is None:
        return None
    if isinstance(fn, A.DotIdent):
        h = head(ty)
        ctors = _CORE_UNARY_CTORS.get(h or "", ())
        return next((c for c in ctors if c == f"{h}.{fname}"), None)
    return fname if any(fname in ctors for ctors in _CORE_UNARY_CTORS.values()) else None
