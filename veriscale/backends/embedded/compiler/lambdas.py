"""Functions and local definitions: ``fun`` (with patterns), ``fun | ...`` alternatives,
``·`` sections, ``let``/``have`` and ``let rec`` (with its self tail calls; lambda lifted when
its names are only ever applied: :meth:`LambdasMixin._compile_lifted_group`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import type_of_text
from veriscale.backends.embedded.compiler.codegen import Body, CodeGen, Src, call_template
from veriscale.backends.embedded.compiler.loops import InlineFun, note_inline
from veriscale.backends.embedded.compiler.patterns import pattern_text
from veriscale.backends.embedded.compiler.support import (
    Closure,
    DefCtx,
    Scope,
    TailTarget,
    _has_cdot,
    _needs_int,
    captured_slots,
    tail_apps,
    unsupported,
)
from veriscale.backends.embedded.core_names import CORE_CLASSES
from veriscale.backends.embedded.runtime_support import Fn, TailCall
from veriscale.backends.embedded.statics import UNKNOWN, head, is_known
from veriscale.lean.types import FunType, LeanType


class LambdasMixin:
    """``fun``, ``·`` sections, ``let`` and ``let rec`` (part of :class:`~.core.Compiler`)."""

    # -- lambdas ----------------------------------------------------------------------------
    def c_Lambda(self, node: A.Lambda, sc: Scope, expected: LeanType | None) -> Closure:
        names: list[tuple[str | None, A.Node | None, LeanType | None]] = []
        dom_types: list[LeanType | None] = []
        t = expected
        for b in node.binders:
            bt = self.clean_type(type_of_text(b.type_text), set()) if b.type_text else None
            for n in (b.names if b.pattern is None else [None]):
                et = None
                if isinstance(t, FunType):
                    et = t.domain if is_known(t.domain) else None
                    t = t.codomain
                else:
                    t = None
                names.append((n, b.pattern, bt or et))
                dom_types.append(bt or et)
        body_expected = t if t is not None and is_known(t) else None
        inner = sc
        slots: list[int] = []
        patterns: list[tuple[int, Any]] = []
        for n, pat, ty in names:
            inner, slot = inner.bind(n or f"_p{len(slots)}", ty)
            slots.append(slot)
            if pat is not None:
                m, inner = self.compile_pattern(pat, inner, ty)
                patterns.append((slot, m))
        target = self._rec_target(node, slots, [node.body], jumps=not patterns)
        acc_owner = None
        if target is None:  # the `fun` of a fold: its loop may own the accumulator (.linearity)
            acc_owner = self.fold_fun_owner(  # type: ignore[attr-defined]
                node, [(n, head(ty) == "Array") for n, _pat, ty in names], sc.ctx.shared, self.env.defs)
        elif target.loop is not None:
            self.note_owned_updates(  # type: ignore[attr-defined]
                node.body, [(n, head(ty) == "Array") for n, _pat, ty in names],
                [n for n, (s, _t) in sc.vars.items() if s == target.key], target.calls, sc.ctx.shared,
                self.env.defs)
        saved = self._tail_target
        if target is not None:
            self._tail_target = target
        try:
            body = self.compile(node.body, inner, body_expected)
        finally:
            self._tail_target = saved
        return self._make_fn(node, slots, patterns, body, sc.ctx, target,
                             key_slots=captured_slots(node, sc), shape=self.lambda_shape(node, sc), acc_owner=acc_owner)

    def _rec_target(self, node: A.Node, slots: list[int], bodies: list[Any], jumps: bool) -> TailTarget | None:
        """The tail-call target of a ``let rec`` function's lambda (None for other lambdas), with
        parameters in ``slots``; ``jumps``: its generated body may loop on its tail calls itself
        (nothing but the parameters is bound on entry)."""
        slot = self._rec_lambdas.pop(id(node), None)
        if slot is None:
            return None
        calls: set[int] = set()
        for b in bodies:
            tail_apps(b, calls)
        if not jumps:
            return TailTarget(slot, len(slots), calls)
        return TailTarget(slot, len(slots), calls, tuple(slots), self.gen.loop_name())

    def _make_fn(self, node: A.Node, slots: list[int], patterns: list[tuple[int, Any]], body: Closure,
                 ctx: DefCtx, target: TailTarget | None = None, key_slots: tuple[int, ...] | None = None,
                 shape: Any = None, acc_owner: str | None = None) -> Closure:
        arity = len(slots)
        budget = self.budget
        slot_a, slot_b = (slots[0], slots[1]) if arity == 2 else (-1, -1)
        loops = target is not None and target.used
        loop = target.loop if target is not None else None
        if patterns and target is None:
            bound = self._bind_params(node, patterns, body)
            if bound is not None:
                patterns, body = [], bound
        if not patterns:
            generated = self.gen.body(body, slots, loop, env=True, budget=budget)
            if generated.kind == Body.LOCALS:
                local = LocalFn(generated.fn, arity, ctx, key_slots, shape)
                make_local = local.make
                setattr(make_local, _LOCAL_FN_ATTR, (local, generated.captured))
                setattr(make_local, _LIFT_ATTR, (arity, generated.fn, local.runner))
                src = local.source(self.gen, generated.captured) if target is None else None
                # (a `let rec` function's maker is written by its setter: its siblings are unbound)
                if src is None:
                    return make_local
                # a builtin applying it in a loop may inline its body (.loops)
                note_inline(make_local, InlineFun(slots, self.gen.src(body), budget, src, local.runner, acc_owner))
                return self.gen.attach(make_local, src)
            body = generated.fn
        else:
            body = self.gen.function(body, loop)

        def runner(env: Any, args: tuple[Any, ...]) -> Any:
            b = budget
            b.tick -= 1
            if b.tick < 0:
                b.refill()
            fr = env[:]
            for s, v in zip(slots, args):
                fr[s] = v
            for s, m in patterns:
                if not m(fr[s], fr):
                    raise unsupported(node, "refutable pattern in fun")
            return body(fr)

        def loop_runner(env: Any, args: tuple[Any, ...]) -> Any:
            # a `let rec` function with self-calls in tail position: they come back as TailCall
            # and run here, one step each, in constant stack
            b = budget
            while True:
                b.tick -= 1
                if b.tick < 0:
                    b.refill()
                fr = env[:]
                if arity == 2:
                    fr[slot_a] = args[0]
                    fr[slot_b] = args[1]
                else:
                    for s, v in zip(slots, args):
                        fr[s] = v
                for s, m in patterns:
                    if not m(fr[s], fr):
                        raise unsupported(node, "refutable pattern in fun")
                result = body(fr)
                if type(result) is not TailCall:
                    return result
                args = result.args

        if loops:
            runner = loop_runner  # noqa: F811 - chosen once, at compile time
        elif arity in (1, 2) and not patterns:
            return self._make_direct_fn(slots, body, ctx, key_slots, shape)

        def make(fr: list[Any]) -> Any:
            snap = fr[:]
            need = ctx.nslots
            if len(snap) < need:
                snap.extend([None] * (need - len(snap)))
            return Fn(arity, runner, snap, "fun", key_slots, shape)

        setattr(make, _LIFT_ATTR, _lifted_entry(arity, runner))
        return make

    def _bind_params(self, node: A.Node, patterns: list[tuple[int, Any]], body: Closure) -> Closure | None:
        """``body`` preceded by the tests and bindings of the parameters' ``patterns`` (slot,
        matcher), as the runner does them, when each pattern has its text; else ``None``."""
        texts = [pattern_text(m) for _, m in patterns]
        if any(t is None for t in texts):
            return None

        def refuted() -> None:
            raise unsupported(node, "refutable pattern in fun")

        for (slot, m), text in reversed(list(zip(patterns, texts))):
            assert text is not None

            def bind(fr: list[Any], slot: int = slot, m: Any = m) -> None:
                if not m(fr[slot], fr):
                    refuted()

            def then(fr: list[Any], bind: Closure = bind, rest: Closure = body) -> Any:
                bind(fr)
                return rest(fr)

            body = self.gen.then(then, self.gen.destructure(bind, None, slot, text, refuted), body)
        return body

    def _make_direct_fn(self, slots: list[int], body: Closure, ctx: DefCtx, key_slots: tuple[int, ...] | None,
                        shape: Any) -> Closure:
        """A ``fun`` of one or two variables: its :class:`Fn` also carries a plain Python function
        of its arguments (``Fn.direct``), one step per call like ``run``."""
        budget = self.budget
        arity = len(slots)
        slot0 = slots[0]
        slot1 = slots[-1]

        def runner(env: Any, args: tuple[Any, ...]) -> Any:
            b = budget
            b.tick -= 1
            if b.tick < 0:
                b.refill()
            fr = env[:]
            fr[slot0] = args[0]
            if arity == 2:
                fr[slot1] = args[1]
            return body(fr)

        def make(fr: list[Any]) -> Any:
            snap = fr[:]
            need = ctx.nslots
            if len(snap) < need:
                snap.extend([None] * (need - len(snap)))
            if arity == 1:
                def direct(x: Any) -> Any:
                    b = budget
                    b.tick -= 1
                    if b.tick < 0:
                        b.refill()
                    local = snap[:]
                    local[slot0] = x
                    return body(local)
            else:
                def direct(x: Any, y: Any) -> Any:  # type: ignore[misc]
                    b = budget
                    b.tick -= 1
                    if b.tick < 0:
                        b.refill()
                    local = snap[:]
                    local[slot0] = x
                    local[slot1] = y
                    return body(local)
            return Fn(arity, runner, snap, "fun", key_slots, shape, direct)

        setattr(make, _LIFT_ATTR, _lifted_entry(arity, runner))
        return make

    def c_LambdaMatch(self, node: A.LambdaMatch, sc: Scope, expected: LeanType | None) -> Closure:
        n = len(node.alts[0].patterns)
        inner = sc
        slots = []
        dts: list[LeanType | None] = []
        t = expected
        for k in range(n):
            et = None
            if isinstance(t, FunType):
                et = t.domain if is_known(t.domain) else None
                t = t.codomain
            inner, slot = inner.bind(f"_lm{k}", et)
            slots.append(slot)
            dts.append(et)
        target = self._rec_target(node, slots, [alt.rhs for alt in node.alts], jumps=True)
        saved = self._tail_target
        if target is not None:
            self._tail_target = target
        try:
            body = self.compile_match_alts(node, [self.gen.slot(lambda fr, s=s: fr[s], s) for s in slots], dts,
                                           node.alts, inner, t if t is not None and is_known(t) else None, is_do=False)
        finally:
            self._tail_target = saved
        return self._make_fn(node, slots, [], body, sc.ctx, target, key_slots=captured_slots(node, sc))

    def _cdot_lambda(self, term: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        count = [0]
        names: list[str] = []

        def rewrite(n: Any) -> Any:
            if isinstance(n, A.Cdot):
                name = f"__cdot{count[0]}"
                count[0] += 1
                names.append(name)
                ident = A.Ident(n.line, n.col, name)
                self.node_types.alias(ident, n)
                return ident
            if isinstance(n, A.Paren):
                return n  # nested parentheses delimit their own sections
            if isinstance(n, A.Node):
                from dataclasses import fields, replace

                changes = {}
                for f in fields(n):
                    v = getattr(n, f.name)
                    nv = rewrite(v)
                    if nv is not v:
                        changes[f.name] = nv
                if not changes:
                    return n
                copy = replace(n, **changes)
                self.node_types.alias(copy, n)  # the same term for the elaborator's types
                return copy
            if isinstance(n, list):
                new = [rewrite(x) for x in n]
                return new if any(a is not b for a, b in zip(new, n)) else n
            if isinstance(n, tuple):
                new_t = tuple(rewrite(x) for x in n)
                return new_t if any(a is not b for a, b in zip(new_t, n)) else n
            return n

        body = rewrite(term)
        lam = A.Lambda(term.line, term.col, [A.Binder(term.line, term.col, [nm], None, "") for nm in names], body)
        return self.c_Lambda(lam, sc, expected)

    # -- let / let rec ----------------------------------------------------------------------
    def c_Let(self, node: A.Let, sc: Scope, expected: LeanType | None) -> Closure:
        decl = node.decl
        modelled = self.compile_local_instance(decl, sc)
        if modelled is not None:
            # a local instance the elaborator modelled: its uses call its method (.instances)
            inner_sc, set_instance = modelled
            body_c = self.compile(node.body, inner_sc, expected)

            def run_with_instance(fr: list[Any]) -> Any:
                set_instance(fr)
                return body_c(fr)

            return run_with_instance
        cls = local_instance_class(decl)
        if cls is not None:
            # Lean resolves instances among the local ones first (Lean.Meta.SynthInstance): every
            # use of `cls` in the body may mean the user's instance, which is not evaluated here
            raise unsupported(node, f"local instance of {cls}", "instances declared by `have`/`let` are not evaluated")
        if node.is_have:
            return self.compile(node.body, sc, expected)
        inner, setter = self.compile_let_decl(decl, sc)
        if sc.ctx.hoist is not None:
            self.note_fixed_let(decl, sc, inner)
        body = self.compile(node.body, inner, expected)

        def run(fr: list[Any]) -> Any:
            setter(fr)
            return body(fr)

        return self.gen.then(run, setter, body)

    def compile_let_decl(self, decl: A.LetDecl, sc: Scope) -> tuple[Scope, Callable[[list[Any]], None]]:
        if decl.pattern is not None:
            val = self.compile(decl.value, sc, None)  # type: ignore[arg-type]
            vt = self.stype(decl.value, sc) if decl.value is not None else None
            m, inner = self.compile_pattern(decl.pattern, sc, vt)

            def set_pat(fr: list[Any]) -> None:
                if not m(val(fr), fr):
                    raise unsupported(decl, "refutable let pattern")

            text = pattern_text(m)
            if text is None:
                return inner, set_pat

            def refuted() -> None:
                raise unsupported(decl, "refutable let pattern")

            return inner, self.gen.destructure(set_pat, val, None, text, refuted)
        if decl.binders or decl.alts is not None:
            # local function
            lam: A.Node
            ft = self._local_fun_type(decl)
            explicit = [b for b in decl.binders if b.kind == "explicit"]
            if decl.alts is not None:
                lam = A.LambdaMatch(decl.line, decl.col, decl.alts)
                if explicit:
                    lam = A.Lambda(decl.line, decl.col, explicit, lam)
            else:
                lam = A.Lambda(decl.line, decl.col, explicit, decl.value)  # type: ignore[arg-type]
            inner, slot = sc.bind(decl.name or "_", ft)
            c = self.compile(lam, sc, ft)
            self._note_local_fn(sc.ctx, slot, c)

            def set_fn(fr: list[Any]) -> None:
                fr[slot] = c(fr)

            return inner, self.gen.store(set_fn, slot, c)
        ty = self.clean_type(type_of_text(decl.type_text), set()) if decl.type_text else None
        if decl.value is None:
            raise unsupported(decl, "let without value")
        val = self.compile(decl.value, sc, ty)
        if ty is not None and is_known(ty) and _needs_int(ty):
            val = self.coerced(val, decl.value, ty)
        st = ty if ty is not None else self.stype(decl.value, sc)
        inner, slot = sc.bind(decl.name or "_", st)
        self._note_local_fn(sc.ctx, slot, val)

        def set_val(fr: list[Any]) -> None:
            fr[slot] = val(fr)

        return inner, self.gen.store(set_val, slot, val)

    def c_LetRec(self, node: A.LetRec, sc: Scope, expected: LeanType | None) -> Closure:
        inner, setter = self.compile_let_rec(node.decls, sc, [node.body])
        if sc.ctx.hoist is not None:
            self.note_fixed_let(node.decls, sc, inner)
        body = self.compile(node.body, inner, expected)

        def run(fr: list[Any]) -> Any:
            setter(fr)
            return body(fr)

        return self.gen.then(run, setter, body)

    def _local_fun_type(self, decl: A.LetDecl) -> LeanType | None:
        doms: list[LeanType] = []
        for b in decl.binders:
            if b.kind != "explicit":
                continue
            bt = self.clean_type(type_of_text(b.type_text), set()) if b.type_text else None
            for _ in b.names or ["_"]:
                doms.append(bt or UNKNOWN)
        ret = self.clean_type(type_of_text(decl.type_text), set()) if decl.type_text else None
        t: LeanType = ret or UNKNOWN
        for d in reversed(doms):
            t = FunType(d, t)
        return t

    def compile_let_rec(self, decls: list[A.LetDecl], sc: Scope,
                        scope: Sequence[A.Node] | None = None) -> tuple[Scope, Callable[[list[Any]], None]]:
        """The scope with the group's functions bound, and the setter making them; ``scope``:
        the terms where the group's names are visible besides its own bodies (when given, a
        group whose names are only ever applied is lifted: see :meth:`_compile_lifted_group`)."""
        inner = sc
        slots = []
        types = []
        for decl in decls:
            if decl.name is None:
                raise unsupported(decl, "let rec pattern")
            ft = self._local_fun_type(decl)
            inner, slot = inner.bind(decl.name, ft)
            slots.append(slot)
            types.append(ft)
        lams = [_let_rec_lambda(decl) for decl in decls]
        arities = {decl.name: _lambda_arity(lam) for decl, lam in zip(decls, lams) if decl.name is not None}
        if scope is not None and only_applied(arities, [*lams, *scope]):
            return inner, self._compile_lifted_group(decls, lams, slots, types, inner, sc.ctx)
        slot_of = {decl.name: inner.vars[decl.name][0] for decl in decls if decl.name is not None}
        # the group's names applied in its own bodies (self and sibling calls) call the functions
        # generated for them directly, once they are made (:class:`PendingLocalFn`)
        pending = {s: PendingLocalFn() for s in slots}
        for s, p in pending.items():
            self._local_fns[(sc.ctx, s)] = p
        makers = []
        for decl, lam, ft in zip(decls, lams, types):
            if isinstance(lam, (A.Lambda, A.LambdaMatch)):
                self._rec_lambdas[id(lam)] = slot_of[decl.name]
            try:
                makers.append(self.compile(lam, inner, ft))
            finally:
                self._rec_lambdas.pop(id(lam), None)

        def setter(fr: list[Any]) -> None:
            fns = [m(fr) for m in makers]
            for s, f in zip(slots, fns):
                fr[s] = f
            for f in fns:
                if isinstance(f, Fn):
                    for s, g in zip(slots, fns):
                        f.env[s] = g

        for s, m in zip(slots, makers):
            del self._local_fns[(sc.ctx, s)]
            made = getattr(m, _LOCAL_FN_ATTR, None)
            if made is not None:
                pending[s].fill(made[0])
            self._note_local_fn(sc.ctx, s, m)
        return inner, self._let_rec_source(setter, slots, makers)

    def _compile_lifted_group(self, decls: list[A.LetDecl], lams: list[A.Node], slots: list[int],
                              types: list[LeanType | None], inner: Scope, ctx: DefCtx) -> Closure:
        """The setter of a ``let rec`` group whose names are only ever applied to all their
        arguments (:func:`only_applied`): lambda lifting without moving the functions.

        Each function is compiled once, as for any group, into a function of its captured
        environment and its arguments (``run(env, args)``; on locals, ``fn(env, *args)``);
        what a call of the enclosing code makes is only that environment: one list, the frame's
        snapshot (on locals, only the slots the group reads), shared by the group and holding
        itself in the group's slots, which is what the group's names hold. An application of
        a name calls its function on it directly (:meth:`apply_lifted`): no function value is
        made, since none is ever needed. Steps are those of the applications (one each, charged
        by the function as ``Fn`` does through ``run``), and the functions read the same
        captured values as the snapshots of the function values would hold."""
        lifted = [LiftedFn(self.gen, _lambda_arity(lam) or 0) for lam in lams]
        for s, fn in zip(slots, lifted):
            self._lifted_fns[(ctx, s)] = fn
        makers = []
        for lam, s, ft in zip(lams, slots, types):
            self._rec_lambdas[id(lam)] = s
            try:
                makers.append(self.compile(lam, inner, ft))
            finally:
                self._rec_lambdas.pop(id(lam), None)
        entries = [getattr(m, _LIFT_ATTR, None) for m in makers]
        if any(e is None or e[0] != fn.arity for e, fn in zip(entries, lifted)):
            # a function refused (its maker raises what it could not compile, as making it
            # would have, when the group is reached)
            failed = [m for m, e, fn in zip(makers, entries, lifted) if e is None or e[0] != fn.arity]
            node = decls[0]

            def refuse(fr: list[Any]) -> None:
                for m in failed:
                    m(fr)
                raise unsupported(node, "let rec", "a function of the group was not compiled")

            return refuse
        for fn, entry in zip(lifted, entries):
            assert entry is not None
            fn.fill(self.gen, entry[1], entry[2])

        def setter(fr: list[Any]) -> None:
            env = fr[:]
            need = ctx.nslots
            if len(env) < need:
                env.extend([None] * (need - len(env)))
            for s in slots:
                env[s] = env
            for s in slots:
                fr[s] = env

        return self._lifted_group_source(setter, slots, makers)

    def _lifted_group_source(self, setter: Closure, slots: list[int], makers: list[Closure]) -> Closure:
        """``setter`` of a lifted group with its source, when every function of the group is
        generated on locals: the environment as a list of only the slots their bodies read
        (:attr:`.codegen.Body.captured`; each other place ``None``), among them the group's own
        slots read by a call that is not a tail call, holding the list. No function value is
        made, so nothing else reads it (the ``key_slots`` of :meth:`LocalFn.source` are for the
        identity of a function value); the list is a new one each time, as the function values
        were (a sharing site keys a term naming the group by the identity of what it holds)."""
        read: set[int] = set()
        for m in makers:
            made = getattr(m, _LOCAL_FN_ATTR, None)
            if made is None:
                return setter
            read.update(made[1])
        targets = ", ".join(f"fr[{int(s)}]" for s in slots)
        t = self.gen.temp()
        items = "".join((f"fr[{k}], " if k in read and k not in slots else "None, ")
                        for k in range(max(read, default=-1) + 1))
        lines = [f"{t} = [{items}]", *(f"{t}[{int(s)}] = {t}" for s in slots if s in read),
                 f"{targets} = " + ", ".join(t for _ in slots)]
        return self.gen.attach(setter, Src("None", lines, simple=True))

    def apply_lifted(self, node: A.Node, slot: int, fn: LiftedFn, args: list[A.Node], sc: Scope,
                     ptypes: list[LeanType | None]) -> Closure:
        """``name args`` where ``name`` is the function ``fn`` of a lifted group, held (its
        group's environment) in frame slot ``slot``; the arguments compiled as for any
        function value's application."""
        if len(args) != fn.arity or any(isinstance(a, A.NamedArg) for a in args):
            raise unsupported(node, "let rec application", "not an application to all its arguments")
        cs = [self._arg(a, sc, t if t is not None else self._elaborated_int_or_unsure(a))  # type: ignore[attr-defined]
              for a, t in zip(args, ptypes)]
        return fn.apply(self.gen, self.gen.slot(lambda fr: fr[slot], slot), cs)

    def _note_local_fn(self, ctx: DefCtx, slot: int, maker: Closure) -> None:
        """Record that frame slot ``slot`` of ``ctx`` holds what ``maker`` makes, when that is a
        function generated on locals (:class:`LocalFn`): applications of the variable call it
        directly (:meth:`LocalFn.call_source`, which checks the value at run time)."""
        made = getattr(maker, _LOCAL_FN_ATTR, None)
        if made is not None:
            self._local_fns[(ctx, slot)] = made[0]

    def _let_rec_source(self, setter: Closure, slots: list[int], makers: list[Closure]) -> Closure:
        """``setter`` with its source, when every function of the group is generated on locals:
        each made from a snapshot (the group's slots ``None``: not stored yet), then stored in its
        slot and into each function's snapshot, as ``setter`` does."""
        made = [getattr(m, _LOCAL_FN_ATTR, None) for m in makers]
        unbound = frozenset(slots)
        srcs = [m[0].source(self.gen, m[1], unbound) if m is not None else None for m in made]
        if any(src is None for src in srcs):
            return setter
        temps = [self.gen.temp() for _ in slots]
        lines = [f"{t} = {src.expr}" for t, src in zip(temps, srcs) if src is not None]
        lines.append(", ".join(f"fr[{int(s)}]" for s in slots) + " = " + ", ".join(temps))
        lines.extend(f"{t}.env[{int(s)}] = {g}" for t in temps for s, g in zip(slots, temps))
        return self.gen.attach(setter, Src("None", lines, simple=True))



class LocalFn:
    """A ``fun`` whose body was generated on Python locals (:meth:`.codegen.CodeGen.body`):
    ``fn(env, *args)`` charges the application's step and runs the body on the captured frame
    ``env``, read only, so an application copies nothing; its self tail calls, all in the
    generated body, loop there.

    Its maker is a closure ``make(fr)`` (snapshot of the frame ``fr``) and, for generated code,
    :meth:`source`: the snapshot written as a list of only the slots the function can read
    (its captured variables, ``key_slots``, and its ``let rec`` siblings, which the setter
    stores into it), each other place ``None``; nothing reads the other places (the body reads
    ``captured``, :func:`..memo.fn_key` reads ``key_slots``, :mod:`..builtins.sublists` a
    ``shape``'s slot, which is a captured variable). Application from generated code
    (:meth:`call_source`) calls ``fn`` on the value's ``env`` when the value is a function this
    maker made, as ``Fn.__call__`` would through ``runner``."""

    __slots__ = ("fn", "arity", "runner", "make", "make_from", "key_slots")

    def __init__(self, fn: Callable[..., Any], arity: int, ctx: DefCtx, key_slots: tuple[int, ...] | None,
                 shape: Any) -> None:
        self.fn = fn
        self.arity = arity
        self.key_slots = key_slots

        def runner(env: Any, args: tuple[Any, ...]) -> Any:
            return fn(env, *args)

        def make_from(snap: list[Any]) -> Fn:
            return Fn(arity, runner, snap, "fun", key_slots, shape, partial(fn, snap) if arity <= 2 else None)

        def make(fr: list[Any]) -> Any:
            snap = fr[:]
            need = ctx.nslots
            if len(snap) < need:
                snap.extend([None] * (need - len(snap)))
            return make_from(snap)

        self.runner = runner
        self.make = make
        self.make_from = make_from

    def source(self, gen: CodeGen, captured: frozenset[int], unbound: frozenset[int] = frozenset()) -> Src | None:
        """The maker as generated text over ``fr[k]`` reads, the slots ``unbound`` (``let rec``
        siblings, not stored yet) left ``None``; ``None`` when the body reads a slot that is not
        one of ``key_slots`` (a variable in scope, so stored before the ``fun`` is made)."""
        if self.key_slots is None or not captured <= set(self.key_slots):
            return None
        read = set(self.key_slots) - unbound
        size = max([*self.key_slots, *unbound], default=-1) + 1
        items = "".join((f"fr[{k}], " if k in read else "None, ") for k in range(size))
        return Src(f"{gen.const(self.make_from)}([{items}])")

    def call_source(self, gen: CodeGen, nargs: int) -> Callable[[Sequence[str]], tuple[Sequence[str], str]] | None:
        """For :meth:`.codegen.CodeGen.fuse_with` over (function value, arguments…): the direct
        call when the value is a function of this maker (another value, as ``f(args…)``);
        ``None`` unless ``nargs`` is the arity."""
        if nargs != self.arity:
            return None
        return _guarded_call(gen, gen.const(self.fn), gen.const(self.runner))


class PendingLocalFn:
    """A function of the ``let rec`` group being compiled, for the applications of its name in
    the group's own bodies (its self-calls, not in tail position, and its siblings' calls):
    they are written as :meth:`LocalFn.call_source` writes them, with the generated function
    and its runner read from a holder that :meth:`fill` sets once the group is compiled. Where
    the function is not generated on locals, or takes another number of arguments, the holder
    stays empty, the test of the runner fails and the value is applied as any function. A
    recursion then nests one Python frame per call instead of three (``Fn.__call__``, the
    runner, the body), with the same steps (the body charges its own)."""

    __slots__ = ("_holders",)

    def __init__(self) -> None:
        #: a holder ``[fn, runner]`` per number of arguments applied
        self._holders: dict[int, list[Any]] = {}

    def call_source(self, gen: CodeGen, nargs: int) -> Callable[[Sequence[str]], tuple[Sequence[str], str]]:
        holder = self._holders.get(nargs)
        if holder is None:
            holder = self._holders[nargs] = [None, None]
        h = gen.const(holder)
        return _guarded_call(gen, f"{h}[0]", f"{h}[1]")

    def fill(self, local: LocalFn) -> None:
        """The group is compiled and this function generated on locals as ``local``."""
        holder = self._holders.get(local.arity)
        if holder is not None:
            holder[0], holder[1] = local.fn, local.runner


def _guarded_call(gen: CodeGen, fn: str, runner: str) -> Callable[[Sequence[str]], tuple[Sequence[str], str]]:
    """The text of an application (over the function value's and the arguments' expressions)
    calling ``fn`` on the value's captured frame when the value is a :class:`Fn` run by
    ``runner`` (what ``Fn.__call__`` would do, through the runner), else applying the value.
    The value, then each argument that runs code, is computed into a temporary first, in that
    order: the arguments' text is written twice (once per branch), and a nested application
    would double it at each level."""
    fn_type = gen.const(Fn)

    def build(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        f = gen.temp()
        computed, args = gen.into_temps(exprs[1:])
        stmts = [f"{f} = {exprs[0]}", *computed]
        text = "".join(f"{a}, " for a in args)
        return stmts, f"({fn}({f}.env, {text}) if {f}.__class__ is {fn_type} and {f}.run is {runner} else {f}({text}))"

    return build


#: the attribute of a maker of a :class:`LocalFn`: the function and the slots its body reads
_LOCAL_FN_ATTR = "_veriscale_local_fn"
#: the attribute of every maker :meth:`LambdasMixin._make_fn` returns: the arity of the function
#: it makes, and the function as ``call(env, *args)`` and as ``run(env, args)`` (for a lifted
#: ``let rec`` group, :class:`LiftedFn`)
_LIFT_ATTR = "_veriscale_lifted"


def _lifted_entry(arity: int, runner: Callable[[Any, tuple[Any, ...]], Any]) -> tuple[int, Callable[..., Any], Any]:
    """The ``_LIFT_ATTR`` of a function of ``arity`` whose body runs as ``runner(env, args)``."""

    def call(env: Any, *args: Any) -> Any:
        return runner(env, args)

    return arity, call, runner


class LiftedFn:
    """A function of a lifted ``let rec`` group (:meth:`LambdasMixin._compile_lifted_group`):
    its name holds the group's environment, and an application calls the function on it. The
    function is known once the group is compiled (:meth:`fill`), after the applications in the
    group's own bodies: generated text calls it through a constant defined then
    (:meth:`.codegen.CodeGen.forward`), closures through a cell."""

    __slots__ = ("arity", "name", "cell")

    def __init__(self, gen: CodeGen, arity: int) -> None:
        self.arity = arity
        self.name = gen.forward()
        #: ``run(env, args)`` once filled
        self.cell: list[Any] = [None]

    def fill(self, gen: CodeGen, call: Callable[..., Any], run: Callable[[Any, tuple[Any, ...]], Any]) -> None:
        gen.define(self.name, call)
        self.cell[0] = run

    def apply(self, gen: CodeGen, env: Closure, cs: Sequence[Closure]) -> Closure:
        """The application of the function to ``cs`` (the group's environment read by ``env``),
        evaluated left to right: the environment, then the arguments."""
        cell = self.cell
        closure: Closure
        if len(cs) == 1:
            c0 = cs[0]

            def closure(fr: list[Any]) -> Any:
                return cell[0](env(fr), (c0(fr),))
        elif len(cs) == 2:
            c0, c1 = cs

            def closure(fr: list[Any]) -> Any:
                return cell[0](env(fr), (c0(fr), c1(fr)))
        else:
            def closure(fr: list[Any]) -> Any:
                e = env(fr)
                return cell[0](e, tuple([c(fr) for c in cs]))
        return gen.fuse(closure, call_template(self.name, len(cs) + 1), [env, *cs])


def _let_rec_lambda(decl: A.LetDecl) -> A.Node:
    """The function a ``let rec`` declaration defines, as a term: a ``fun`` of its explicit
    binders (over its equations' ``fun |`` when it has some), or its value."""
    explicit = [b for b in decl.binders if b.kind == "explicit"]
    if decl.alts is not None:
        if explicit:
            return A.Lambda(decl.line, decl.col, explicit, A.LambdaMatch(decl.line, decl.col, decl.alts))
        return A.LambdaMatch(decl.line, decl.col, decl.alts)
    if not explicit:
        if decl.value is None:
            raise unsupported(decl, "let rec without a value")
        return decl.value
    return A.Lambda(decl.line, decl.col, explicit, decl.value)  # type: ignore[arg-type]


def _lambda_arity(lam: A.Node) -> int | None:
    """How many arguments the function ``lam`` takes, as its compiled ``Fn`` counts them
    (``c_Lambda``: a name per binder name, one per pattern binder; ``c_LambdaMatch``: one per
    pattern of an equation); ``None`` when ``lam`` is not a ``fun``."""
    if isinstance(lam, A.Lambda):
        return sum(len(b.names) if b.pattern is None else 1 for b in lam.binders)
    if isinstance(lam, A.LambdaMatch):
        return len(lam.alts[0].patterns) if lam.alts else None
    return None


def only_applied(arities: dict[str, int | None], nodes: Sequence[A.Node]) -> bool:
    """Whether every identifier of ``nodes`` naming one of ``arities``'s names (``f``, or a
    field of it, ``f.x``) is the function of an application to exactly its arity's arguments,
    none named: then no term reads such a name's value but to apply it, whatever it is bound
    to there. Locals are only ever read by name (:func:`.support.referenced_names`); an
    application's function is read as ``_c_app`` reads it (through one pair of parentheses
    without a ``·``)."""
    if not arities or any(a is None or a == 0 for a in arities.values()):
        return False

    def ok(node: A.Node) -> bool:
        if isinstance(node, A.Ident):
            return node.name.partition(".")[0] not in arities
        if isinstance(node, A.App):
            fn = node.fn
            if isinstance(fn, A.Paren) and not _has_cdot(fn.term):
                fn = fn.term
            if isinstance(fn, A.Ident) and fn.name in arities:
                if len(node.args) != arities[fn.name] or any(isinstance(a, A.NamedArg) for a in node.args):
                    return False
                return all(ok(a) for a in A.subterms(node.args))
        return all(ok(sub) for sub in A.subterms(node))

    return all(ok(n) for n in nodes)


def local_instance_class(decl: A.LetDecl) -> str | None:
    """The class when ``decl`` declares a local instance (``have inst : BEq Int := …``): a local
    whose type is an application of a type class."""
    ty = decl.type
    while isinstance(ty, A.Paren):
        ty = ty.term
    if isinstance(ty, A.App):
        ty = ty.fn
    if isinstance(ty, A.Ident):
        name = ty.name.removeprefix("_root_.")
        if name in CORE_CLASSES:
            return name
    return None
