"""Identifiers and applications: locals, globals, constructors, user-definition and builtin
calls (named, implicit and proof arguments, partial and over-application, tail calls), generalized
field notation (``x.f args``), ``.name`` dot identifiers and the special functions elaborated
inline (``some``, ``pure``, ``default``, ``ite``...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import explicit_params, type_of_text
from veriscale.backends.embedded.builtins import (
    BUILTINS,
    IMPLICIT_ARGS,
    OPTIONAL_ARGS,
    PROOF_PARAMS,
    default_of_type,
    type_name_of,
)
from veriscale.backends.embedded.compiler.codegen import CodeGen, call_template
from veriscale.backends.embedded.compiler.fast_paths import Writer, builtin_writer
from veriscale.backends.embedded.compiler.loops import fold_function, fuse_loop
from veriscale.backends.embedded.compiler.monads import except_error, except_ok, traversal
from veriscale.backends.embedded.compiler.scalar_paths import scalar_writer
from veriscale.backends.embedded.compiler.support import (
    _STD_SHORT_NAMES,
    UNSURE,
    Closure,
    Scope,
    TailTarget,
    _field_builtin,
    _has_cdot,
    _needs_int,
    _some_of,
    _vtype,
    unsupported,
)
from veriscale.backends.embedded.elab.monadic import MONADIC_TRAVERSALS
from veriscale.backends.embedded.env import UserDef
from veriscale.backends.embedded.memo import memoised_fold
from veriscale.backends.embedded.registry import Builtin
from veriscale.backends.embedded.runtime_support import (
    PROOF,
    Budget,
    BuiltinFn,
    Fn,
    LeanRange,
    Partial,
    TailCall,
)
from veriscale.backends.embedded.statics import (
    INT,
    NAT,
    PROP,
    UNKNOWN,
    elem_type,
    fin_bound,
    head,
    is_known,
    signature,
    subst,
    unify,
)
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType
from veriscale.lean.values import (
    NONE,
    ORDERINGS,
    Arr,
    Ctor,
    Nat,
    Pair,
    Some,
    Struct,
    Unsupported,
    _NoneType,
)

_MEMO_FOLDS = frozenset({"List.foldl", "Array.foldl"})
#: types of `Std` written by their short names (under `open Std`), with their full names
_ORDERINGS: dict[str, Ctor] = {o.name: o for o in ORDERINGS}
"""``Ordering.lt``/``eq``/``gt``: core's constructors, constants."""
"""Folds whose calls are memoised (:func:`..memo.memoised_fold`)."""


class CallsMixin:
    """Identifiers, applications and field notation (part of :class:`~.core.Compiler`)."""

    def c_DotIdent(self, node: A.DotIdent, sc: Scope, expected: LeanType | None) -> Closure:
        return self._dot_ident(node, node.name, [], sc, expected)

    def _dot_ident(self, node: A.Node, name: str, args: list[A.Node], sc: Scope, expected: LeanType | None) -> Closure:
        h = head(expected)
        if h is None:
            if name in ("some", "none"):
                h = "Option"
            elif name in ("ok", "error") and self.node_types.monad_of(node) == "Except":
                h = "Except"
            else:
                raise unsupported(node, f".{name}", "expected type unknown")
        full = f"{h}.{name}"
        if h == "Option" and name == "none" and not args:
            return lambda fr: NONE
        return self._call_name(node, full, args, sc, expected)

    # -- identifiers ------------------------------------------------------------------------
    def c_Ident(self, node: A.Ident, sc: Scope, expected: LeanType | None) -> Closure:
        return self._call_name(node, node.name, [], sc, expected)

    def _call_name(self, node: A.Node, name: str, args: list[A.Node], sc: Scope, expected: LeanType | None) -> Closure:
        """Compile ``name args`` where ``name`` may be a local, a dotted field chain or a global."""
        v = sc.vars.get(name)
        if v is not None:
            slot = v[0]
            if not args:
                return self.gen.slot(lambda fr: fr[slot], slot)
            target = self._tail_target
            if (target is not None and target.key == slot and id(node) in target.calls
                    and len(args) == target.nargs and not any(isinstance(a, A.NamedArg) for a in args)):
                # a `let rec` function calling itself in tail position (the slot is its name's)
                target.used = True
                pts = _param_types(v[1], len(args))
                cs = [self._arg(a, sc, t if t is not None else UNSURE) for a, t in zip(args, pts)]
                return _tail_call(self.gen, cs, target, self.budget)
            lifted = self._lifted_fns.get((sc.ctx, slot))
            if lifted is not None:  # a function of a lifted `let rec` group (.lambdas)
                return self.apply_lifted(node, slot, lifted, args, sc, _param_types(v[1], len(args)))
            return self._apply_value(node, self.gen.slot(lambda fr: fr[slot], slot), args, sc,
                                     _param_types(v[1], len(args)), self._local_fns.get((sc.ctx, slot)))
        parts = name.split(".")
        if parts[0] in sc.vars and len(parts) > 1:
            slot, t = sc.vars[parts[0]]
            base: Closure = self.gen.slot(lambda fr: fr[slot], slot)
            if len(parts) == 2 and not args and self.node_types.is_fin_value(node):
                return base  # `i.val` of a `Fin`: the number the engine keeps for `i`
            for i, f in enumerate(parts[1:]):
                last = i == len(parts) - 2
                base = self._method(node, base, t, f, args if last else [], sc, expected if last else None)
                t = self._field_type(t, f, args if last else [], sc)
            return base
        resolved = self.resolved_names(name, sc)
        if resolved:
            # a declaration of the file that Lean's resolution picks (`Cheat.False` inside
            # `namespace Cheat`) comes before the engine's own handling of core names
            d = self.find_def(name, sc)
            if d is not None:
                return self._call_def(node, d, args, sc, expected)
            if len(resolved) == 1 and resolved[0] != name:
                name = resolved[0]  # `succ` under `open Nat` is `Nat.succ`
                parts = name.split(".")
        special = self._special(node, name, args, sc, expected)
        if special is not None:
            return special
        # longest global prefix
        for k in range(len(parts), 0, -1):
            gname = ".".join(parts[:k])
            rest = parts[k:]
            target = self._global(node, gname, args if not rest else [], sc, expected if not rest else None)
            if target is None:
                continue
            t = self._stype(A.App(node.line, node.col, A.Ident(node.line, node.col, gname), []), sc) if rest else None
            for i, f in enumerate(rest):
                last = i == len(rest) - 1
                target = self._method(node, target, t, f, args if last else [], sc, expected if last else None)
                t = self._field_type(t, f, args if last else [], sc)
            return target
        if name in self.env.errors:
            raise unsupported(node, f"{name}", "its definition did not parse")
        raise unsupported(node, f"name {name}")

    def _special(self, node: A.Node, name: str, args: list[A.Node], sc: Scope, expected: LeanType | None) -> Closure | None:
        if name in ("true", "True", "Bool.true") and not args:
            return self.gen.constant(lambda fr: True, True)
        if name in ("false", "False", "Bool.false") and not args:
            return self.gen.constant(lambda fr: False, False)
        if name in ("none", "Option.none") and not args:
            return self.gen.constant(lambda fr: NONE, NONE)
        if name in _ORDERINGS and not args:
            ordering = _ORDERINGS[name]
            return self.gen.constant(lambda fr: ordering, ordering)
        if name in ("some", "Option.some") and len(args) == 1:
            et = elem_type(expected) if head(expected) == "Option" else None
            c = self.compile(args[0], sc, et)
            return _some_of(c, self.gen)
        if name in ("default", "Inhabited.default") and not args:
            if expected is None or not is_known(expected):
                raise unsupported(node, "default", "type unknown")
            v = self.default_of(expected, node)
            return lambda fr: v
        if name in ("decide", "Decidable.decide") and len(args) == 1:
            return self.compile(args[0], sc, PROP)
        if name == "Id.run" and len(args) == 1:
            saved = sc.ctx.monad
            sc.ctx.monad = "Id"
            try:
                return self.compile(args[0], sc, expected)
            finally:
                sc.ctx.monad = saved
        if name in ("id",) and len(args) == 1:
            return self.compile(args[0], sc, expected)
        if name in ("pure", "Pure.pure") and len(args) == 1:
            # `pure v` at a known Option type is `some v`; inside an Id do block (the only monad
            # do blocks compile in) it is `v`. Anywhere else the monad is not known here, unless
            # the elaborator found it (`pure_call`): `Id α` is `α` at run time.
            monad = self.node_types.monad_of(node)
            if monad == "Id":
                return self.compile(args[0], sc, expected)
            if monad == "Except":  # `Except.pure a = .ok a` (.monads)
                c = self.compile(args[0], sc, None)
                return lambda fr: except_ok(c(fr))
            if head(expected) == "Option" or monad == "Option":
                c = self.compile(args[0], sc, elem_type(expected))
                return lambda fr: Some(c(fr))
            if sc.ctx.do_depth > 0 and sc.ctx.monad == "Id" and head(expected) not in ("Except", "IO", "StateM", "ReaderM", "EStateM", "List", "Array"):
                return self.compile(args[0], sc, expected)
            raise unsupported(node, "pure", "outside an Id do block")
        if name in ("throw", "MonadExcept.throw") and len(args) == 1:
            # `throw e` in `Except ε` is `.error e` (Init/Control/Except.lean); other monads are not modelled
            if self.node_types.monad_of(node) != "Except":
                raise unsupported(node, name, "outside the Except monad")
            c = self.compile(args[0], sc, None)
            return lambda fr: except_error(c(fr))
        if name in ("Except.ok", "Except.error") and len(args) == 1:
            c = self.compile(args[0], sc, None)
            make = except_ok if name == "Except.ok" else except_error
            return lambda fr: make(c(fr))
        if name == "Int.negSucc" and len(args) == 1:
            # `Int.negSucc n` is `-(n + 1)` (Init/Data/Int/Basic.lean)
            c = self.compile(args[0], sc, NAT)
            return lambda fr: -int(c(fr)) - 1
        if name == "panic!" or name == "unreachable!":
            raise unsupported(node, name)
        if name in ("dbg_trace", "dbgTrace"):
            raise unsupported(node, name)
        if name in ("Nat.succ",) and len(args) == 1:
            c = self.compile(args[0], sc, NAT)
            return self.gen.fuse(lambda fr: Nat(c(fr) + 1), self.gen.const(Nat) + "({0} + 1)", [c])
        if name in ("ite",) and len(args) == 3:
            return self._if(node, args[0], args[1], args[2], sc, expected)
        if name in MONADIC_TRAVERSALS:
            return traversal(self, node, name, args, sc, None)
        if name in ("Int.ofNat",) and len(args) == 1:
            c = self.compile(args[0], sc, NAT)
            return self.gen.fuse(lambda fr: int(c(fr)), self.gen.const(int) + "({0})", [c])
        if name in ("Int.toNat",) and len(args) == 1:
            c = self.compile(args[0], sc, INT)
            to_nat = BUILTINS["Int.toNat"].fn  # the same value; its text reads small ones from a table
            writer = scalar_writer(self.gen, to_nat, 1)
            assert writer is not None
            return self.gen.fuse_with(lambda fr: to_nat(c(fr)), [c], writer)
        if name in ("Prod.mk",) and len(args) == 2:
            return self.c_Tuple(A.Tuple(node.line, node.col, list(args)), sc, expected)
        if name in ("List.cons",) and len(args) == 2:
            return self._cons(node, args[0], args[1], sc, expected)
        if name in ("List.nil",) and not args:
            return lambda fr: ()
        if name in ("Array.mk", "List.toArray") and len(args) == 1 and isinstance(args[0], A.ListLit):
            et = elem_type(expected) if head(expected) == "Array" else None
            c = self.compile(args[0], sc, NamedType("List", (et,)) if et is not None else None)
            return lambda fr: Arr(c(fr))
        if name in ("Nat.cast", "Int.cast", "Int.ofNat") and len(args) == 1:
            return self._coe(node, args[0], sc, expected)
        return None

    def default_of(self, ty: LeanType, node: A.Node) -> Any:
        h = head(ty)
        if h in self.env.structs:
            si = self.env.structs[h]
            vals = []
            for fname, fty, fdef in si.fields:
                if fdef is not None:
                    raise unsupported(node, "default of a structure with field defaults")
                if fty is None:
                    raise unsupported(node, "default", f"field {fname} of unknown type")
                vals.append((fname, self.default_of(fty, node)))
            return Struct(h, tuple(vals))
        try:
            return default_of_type(ty, construct=f"default at {node.line}:{node.col}")
        except Unsupported:
            raise
        except Exception as exc:  # noqa: BLE001
            raise unsupported(node, "default", str(exc)) from None

    def _global(self, node: A.Node, name: str, args: list[A.Node], sc: Scope, expected: LeanType | None) -> Closure | None:
        d = self.find_def(name, sc)
        if d is not None:
            return self._call_def(node, d, args, sc, expected)
        ci = self.env.ctors.get(name) or (self.env.ctors.get(f"{head(expected)}.{name}") if expected is not None else None)
        if ci is not None:
            cs = [self.compile(a, sc, t) for a, t in zip(args, ci.arg_types + [None] * len(args))]
            n = len(ci.arg_names)
            cname = ci.name
            if len(cs) == n:
                return self.gen.fuse(lambda fr: Ctor(cname, tuple(c(fr) for c in cs)),
                                     f"{self.gen.const(Ctor)}({self.gen.const(cname)}, ("
                                     + "".join(f"{{{i}}}, " for i in range(n)) + "))", cs)
            if not cs:
                if n == 0:
                    v = Ctor(cname, ())
                    return self.gen.constant(lambda fr: v, v)
                return lambda fr: Fn(n, lambda env, a: Ctor(cname, tuple(a)), None, cname)
            raise unsupported(node, f"partial constructor {cname}")
        if name.endswith(".mk") and name[:-3] in self.env.structs or (
                name.rpartition(".")[0] in self.env.structs
                and self.env.structs[name.rpartition(".")[0]].ctor == name.rpartition(".")[2]):
            si = self.env.structs[name.rpartition(".")[0]]
            if len(args) != len(si.fields):
                raise unsupported(node, f"partial constructor {name}")
            cs = [self.compile(a, sc, f[1]) for a, f in zip(args, si.fields)]
            fnames = [f[0] for f in si.fields]
            sname = si.name
            return self._struct_source(  # type: ignore[attr-defined,no-any-return]
                lambda fr: Struct(sname, tuple(zip(fnames, (c(fr) for c in cs)))), sname, fnames, cs)
        b = self.find_builtin(name)
        if b is not None:
            return self._call_builtin(node, b, args, sc, expected, None)
        return None

    # -- calls ------------------------------------------------------------------------------
    def _call_def(self, node: A.Node, d: UserDef, args: list[A.Node], sc: Scope, expected: LeanType | None) -> Closure:
        n, flags = self.def_arity(d)
        ptypes, ret = self.def_types(d)
        named = [a for a in args if isinstance(a, A.NamedArg)]
        if named:
            raise unsupported(node, "named arguments")
        # generic definitions: infer type variables from argument types for numeral typing
        s: dict[str, LeanType] = {}
        for p, a in zip(ptypes, args):
            if p is not None and not is_known(p):
                at = self._stype(a, sc)
                if at is not None:
                    unify(p, at, s)
        cs: list[Closure] = []
        for i, a in enumerate(args):
            if i < n and flags[i]:
                continue
            pt = ptypes[i] if i < len(ptypes) else None
            if pt is not None and not is_known(pt):
                pt = subst(pt, s)
                if pt is not None and not is_known(pt):
                    pt = None
            cs.append(self._arg(a, sc, pt))
        fn_ref = [None]
        comp = self

        def get() -> Any:
            f = fn_ref[0]
            if f is None:
                f = comp.def_function(d)
                fn_ref[0] = f
            return f

        extra: list[Closure] = []
        if len(args) > n:
            extra = cs[n - sum(flags):]
            cs = cs[: n - sum(flags)]
        nreal = n - sum(flags)
        target = self._tail_target
        if (target is not None and target.key is d and id(node) in target.calls and len(args) == n
                and len(cs) == nreal == target.nargs):
            target.used = True
            return _tail_call(self.gen, cs, target, self.budget)
        if len(cs) == nreal and not extra:
            call: Closure
            if nreal == 0:
                call = lambda fr: get()()  # noqa: E731
            elif nreal == 1:
                c0 = cs[0]
                call = lambda fr: get()(c0(fr))  # noqa: E731
            elif nreal == 2:
                c0, c1 = cs
                call = lambda fr: get()(c0(fr), c1(fr))  # noqa: E731
            else:
                call = lambda fr: get()(*[c(fr) for c in cs])  # noqa: E731
            if not self.def_memoised(d):  # type: ignore[attr-defined]
                entry = self.def_entry(d)  # type: ignore[attr-defined]
                return self.gen.fuse_with(call, cs, _direct_call(self.gen, entry, get, self.budget))
            # generated code reads the function found by the first `get()` without a call
            callee = f"({self.gen.const(fn_ref)}[0] or {self.gen.const(get)}())"
            return self.gen.fuse(call, call_template(callee, nreal), cs)
        if extra:
            return lambda fr: get()(*[c(fr) for c in cs])(*[c(fr) for c in extra])
        # partial application: a function value (generated code reads the function as above)
        callee = f"({self.gen.const(fn_ref)}[0] or {self.gen.const(get)}())"
        if not cs:
            return self.gen.fuse(lambda fr: get(), callee, [])
        return self.gen.fuse(lambda fr: Partial(get(), tuple(c(fr) for c in cs)),
                             f"{self.gen.const(Partial)}({callee}, (" + "".join(f"{{{i}}}, " for i in range(len(cs))) + "))",
                             cs)

    def _call_builtin(self, node: A.Node, b: Builtin, args: list[A.Node], sc: Scope, expected: LeanType | None,
                      self_arg: tuple[Closure, LeanType | None] | None) -> Closure:
        implicit: dict[str, Closure] = {}
        implicit_names = IMPLICIT_ARGS.get(b.name)
        if implicit_names:
            kept: list[A.Node] = []
            for a in args:
                if isinstance(a, A.NamedArg) and a.name in implicit_names:
                    implicit[a.name] = self.compile(a.value, sc, NAT)
                else:
                    kept.append(a)
            args = kept
            if b.name in ("Array.ofFn", "List.ofFn") and "n" not in implicit and args:
                bound = self._fin_domain_bound(args[0], sc)
                if bound is not None:
                    size = Nat(bound)
                    implicit["n"] = self.gen.constant(lambda fr: size, size)
                else:
                    size_term = _fin_binder_size(args[0])
                    if size_term is not None:  # `fun (i : Fin xs.length) => …`: `n` is `xs.length`
                        implicit["n"] = self.compile(size_term, sc, NAT)
        if any(isinstance(a, A.NamedArg) for a in args):
            args = self._place_named(node, b, args, self_arg is not None)
        if self_arg is not None and len(args) < b.self_index:
            # `xs.foldl f` is `fun init => List.foldl f init xs`: the receiver keeps its position
            return self._eta_method(node, b, args, sc, expected, self_arg)
        n_explicit = len(args) + (1 if self_arg is not None else 0)
        argtys: list[LeanType | None] = [self._stype(a, sc) for a in args]
        if self_arg is not None:
            argtys.insert(min(b.self_index, len(argtys)), self_arg[1])
        ptys, rty = self._builtin_arg_types(b.name, argtys, expected)
        cs: list[Closure] = []
        j = 0
        for i in range(n_explicit):
            if self_arg is not None and i == min(b.self_index, len(args)):
                cs.append(self_arg[0])
                continue
            a = args[j]
            j += 1
            if i in PROOF_PARAMS.get(b.name, ()):
                # a proof argument: irrelevant, never evaluated
                cs.append(self.gen.constant(lambda fr: PROOF, PROOF))
                continue
            pt = ptys[i] if i < len(ptys) else None
            if i == 0 and b.name in _MEMO_FOLDS:
                self.note_fold_fun(a)  # type: ignore[attr-defined]
            c = self.compile(a, sc, pt)
            if pt is not None and _needs_int(pt):
                c = self.coerced(c, a, pt)
            cs.append(c)
        if rty is None and b.typed and expected is not None and is_known(expected):
            rty = expected
        with_local_beq = self.beq_call(node, b, cs, sc) if self.instance_choices else None
        if with_local_beq is not None:
            return with_local_beq  # the `[BEq α]` argument is a local instance (.instances)
        need = b.arity - OPTIONAL_ARGS.get(b.name, 0)
        fn = b.fn
        typed = b.typed
        if b.name in _MEMO_FOLDS and len(cs) == 3 and not implicit:
            # the fold called on a miss: the loop of a `fun` written here, when inlinable (.loops)
            fn = memoised_fold(fold_function(self.gen, b.name, cs, fn) or fn, self.budget, b.name)
        if implicit:
            if len(cs) < need or len(cs) > b.arity:
                raise unsupported(node, f"{b.name} with named implicit arguments", "partial or over-application")
            kw_names = list(implicit)
            kw_cs = [implicit[k] for k in kw_names]

            def call_kw(fr: list[Any]) -> Any:
                return fn(*[c(fr) for c in cs], **{k: c(fr) for k, c in zip(kw_names, kw_cs)})

            return call_kw
        if len(cs) < need:
            bf = BuiltinFn(b, rty)
            g = self.gen
            if not cs:
                return g.constant(lambda fr: bf, bf)
            held = "(" + "".join(f"{{{i}}}, " for i in range(len(cs))) + ")"
            return g.fuse(lambda fr: Partial(bf, tuple(c(fr) for c in cs)), f"{g.const(Partial)}({g.const(bf)}, {held})", cs)
        extra = cs[b.arity:]
        cs = cs[: b.arity]
        template = call_template(self.gen.const(fn), len(cs), f"result_type={self.gen.const(rty)}" if typed else "")
        if typed and len(cs) == 2:
            c0, c1 = cs

            def call(fr: list[Any]) -> Any:
                return fn(c0(fr), c1(fr), result_type=rty)
        elif typed:
            def call(fr: list[Any]) -> Any:
                return fn(*[c(fr) for c in cs], result_type=rty)
        elif len(cs) == 1:
            c0 = cs[0]

            def call(fr: list[Any]) -> Any:
                return fn(c0(fr))
        elif len(cs) == 2:
            c0, c1 = cs

            def call(fr: list[Any]) -> Any:
                return fn(c0(fr), c1(fr))
        elif len(cs) == 3:
            c0, c1, c2 = cs

            def call(fr: list[Any]) -> Any:
                return fn(c0(fr), c1(fr), c2(fr))
        else:
            def call(fr: list[Any]) -> Any:
                return fn(*[c(fr) for c in cs])
        if not extra and head(expected) == "Array":
            sig = signature(b.name, len(cs))
            if sig is not None and head(sig.result) == "Subarray":
                # Lean inserts the `Coe (Subarray α) (Array α)` coercion, `Array.ofSubarray`
                to_array = BUILTINS["Array.ofSubarray"].fn
                as_subarray = call
                return lambda fr: to_array(as_subarray(fr))
        if extra:
            inner = call
            return lambda fr: inner(fr)(*[c(fr) for c in extra])
        looped = fuse_loop(self.gen, call, b.name, cs, fn) if not typed else None
        if looped is not None:
            return looped  # a `fun` applied per element, inlined in a loop (.loops)
        inline = self.owned_update_writer(node, fn, len(cs)) if not typed else None
        if inline is None and not typed:
            inline = builtin_writer(self.gen, fn, len(cs)) or scalar_writer(self.gen, fn, len(cs))
        if inline is not None:
            return self.gen.fuse_with(call, cs, inline)
        return self.gen.fuse(call, template, cs)

    def _fin_domain_bound(self, f: A.Node, sc: Scope) -> int | None:
        """``k`` when the function ``f`` visibly takes a ``Fin k`` with a literal ``k``: a ``fun``
        whose first binder is annotated ``Fin k``, or a term whose static type is ``Fin k → β``."""
        while isinstance(f, A.Paren):
            f = f.term
        if isinstance(f, A.Lambda) and f.binders:
            text = f.binders[0].type_text
            if text:
                return fin_bound(self.clean_type(type_of_text(text), set()))
            return None
        ft = self.stype(f, sc)
        if isinstance(ft, FunType):
            return fin_bound(ft.domain)
        return None

    def _arg(self, a: A.Node, sc: Scope, pt: LeanType | None) -> Closure:
        """An argument at a known parameter type, with the coercions Lean inserts there
        (``Nat`` to ``Int``, ``α`` to ``Option α``)."""
        c = self.compile(a, sc, pt)
        if pt is None:
            return c
        if head(pt) == "Option" and is_known(pt):
            at = self.stype(a, sc)
            if at is not None and is_known(at) and head(at) != "Option" and at == elem_type(pt):
                return _some_of(c, self.gen)
        if _needs_int(pt):
            c = self.coerced(c, a, pt)
        return c

    def _place_named(self, node: A.Node, b: Builtin, args: list[A.Node], has_self: bool) -> list[A.Node]:
        """Put ``(name := v)`` arguments at their parameter's position (Python parameter names of the
        builtins follow Lean's); the positional ones fill the remaining positions in order."""
        import inspect

        try:
            pnames = list(inspect.signature(b.fn).parameters)[: b.arity]
        except (TypeError, ValueError):
            raise unsupported(node, "named arguments") from None
        slots: list[A.Node | None] = [None] * b.arity
        positional = []
        for a in args:
            if isinstance(a, A.NamedArg):
                if a.name not in pnames:
                    raise unsupported(node, f"named argument {a.name}")
                slots[pnames.index(a.name)] = a.value
            else:
                positional.append(a)
        free = [i for i in range(b.arity) if slots[i] is None and not (has_self and i == b.self_index)]
        for i, a in zip(free, positional):
            slots[i] = a
        if len(positional) > len(free):
            raise unsupported(node, "named arguments")
        if has_self:
            # the receiver is inserted by the caller at self_index: drop that slot here
            out = [x for i, x in enumerate(slots) if i != b.self_index]
        else:
            out = list(slots)
        while out and out[-1] is None:
            out.pop()
        if any(x is None for x in out):
            raise unsupported(node, "named arguments", "leaving a gap")
        return out  # type: ignore[return-value]

    def _eta_method(self, node: A.Node, b: Builtin, args: list[A.Node], sc: Scope, expected: LeanType | None,
                    self_arg: tuple[Closure, LeanType | None]) -> Closure:
        missing = b.self_index - len(args)
        inner = sc
        names = []
        for k in range(missing):
            nm = f"__eta{node.line}_{node.col}_{k}"
            inner, _ = inner.bind(nm, None)
            names.append(A.Ident(node.line, node.col, nm))
        call = self._call_builtin(node, b, [*args, *names], inner, None, self_arg)
        slots = [inner.vars[n.name][0] for n in names]
        return self._make_fn(node, slots, [], call, sc.ctx)

    def _elaborated_int_or_unsure(self, arg: A.Node) -> LeanType:
        """The type of an argument whose parameter type the compiler does not know: ``Int`` when the
        elaborator typed it so (the expected type it propagated, ``propagateExpectedType``), else
        ``UNSURE`` (a ``Nat`` subtraction there refuses to truncate: Lean may compute in ``Int``)."""
        t = self.node_types.of(arg)
        return t if t is not None and head(t) == "Int" else UNSURE

    def _apply_value(self, node: A.Node, fc: Closure, args: list[A.Node], sc: Scope,
                     ptypes: list[LeanType | None] | None = None, local: Any = None) -> Closure:
        """``fc args``; ``local``: the :class:`.lambdas.LocalFn` whose functions ``fc`` holds
        when the compiler knows it (generated code calls it directly)."""
        if any(isinstance(a, A.NamedArg) for a in args):
            raise unsupported(node, "named arguments")
        pts = ptypes or [None] * len(args)
        # unknown parameter types: Lean knows them, we do not, so arithmetic arguments must not
        # silently truncate in Nat
        cs = [self._arg(a, sc, t if t is not None else self._elaborated_int_or_unsure(a)) for a, t in zip(args, pts)]
        template = "{0}(" + "".join(f"{{{i + 1}}}, " for i in range(len(cs))) + ")"
        direct = local.call_source(self.gen, len(cs)) if local is not None else None
        if len(cs) == 1:
            c0 = cs[0]

            def apply1(fr: list[Any]) -> Any:
                return fc(fr)(c0(fr))

            if direct is not None:
                return self.gen.fuse_with(apply1, [fc, c0], direct)
            return self.gen.fuse(apply1, template, [fc, c0])

        def apply(fr: list[Any]) -> Any:
            return fc(fr)(*[c(fr) for c in cs])

        if direct is not None:
            return self.gen.fuse_with(apply, [fc, *cs], direct)
        return self.gen.fuse(apply, template, [fc, *cs])

    def _method(self, node: A.Node, base: Closure, t: LeanType | None, field: str, args: list[A.Node], sc: Scope,
                expected: LeanType | None) -> Closure:
        """``base.field args``: projection, or generalized field notation (resolved by type)."""
        if field in ("1", "fst", "2", "snd") and (t is None or isinstance(t, ProdType)):
            get = _fst if field in ("1", "fst") else _snd
            proj: Closure = self.gen.fuse(lambda fr: get(base(fr), node),
                                          f"{self.gen.const(get)}({{0}}, {self.gen.const(node)})", [base])
            if args:
                return self._apply_value(node, proj, args, sc)
            return proj
        h = head(t) if t is not None else None
        if h is not None and h not in ("Function",):
            static = self._resolve_method(node, h, field, base, t, args, sc, expected)
            if static is None and h in _STD_SHORT_NAMES and not self._declares(h):
                # `HashSet Nat` written under `open Std` (the file elaborated: no other `HashSet`
                # is in scope) is `Std.HashSet Nat`, whose methods a run-time lookup would find
                static = self._resolve_method(node, _STD_SHORT_NAMES[h], field, base, t, args, sc, expected)
            if static is not None:
                return static
        # dynamic resolution on the run-time type
        cache: dict[str, Closure] = {}
        comp = self
        sc_obj, objslot = sc.bind(f"__obj{node.line}_{node.col}", t)
        ctx = sc.ctx

        def run(fr: list[Any]) -> Any:
            obj = base(fr)
            tn = _runtime_head(obj)
            c = cache.get(tn)
            if c is None:
                rt = t if t is not None else _value_type(obj)
                c = comp._resolve_method(node, tn, field, lambda f2: f2[objslot], rt, args, sc_obj, expected)
                if c is None:
                    raise unsupported(node, f"field {field}", f"on a value of type {tn}")
                cache[tn] = c
            if len(fr) < ctx.nslots:
                fr.extend([None] * (ctx.nslots - len(fr)))
            fr[objslot] = obj
            return c(fr)

        return run

    def _declares(self, name: str) -> bool:
        """Whether the file declares something named ``name`` (in any namespace)."""
        env = self.env
        return any(n == name or n.endswith("." + name) or f".{name}." in f".{n}"
                   for n in (*env.structs, *env.inductives, *env.defs))

    def _resolve_method(self, node: A.Node, h: str, field: str, base: Closure, t: LeanType | None,
                        args: list[A.Node], sc: Scope, expected: LeanType | None) -> Closure | None:
        si = self.env.structs.get(h)
        if si is not None and si.field_index(field) >= 0:
            idx = si.field_index(field)

            def get_field(fr: list[Any]) -> Any:
                return _struct_field(base(fr), idx, node, field)

            g = self.gen
            g.fuse(get_field, f"{g.const(_struct_field)}({{0}}, {idx}, {g.const(node)}, {g.const(field)})", [base])
            if args:
                return self._apply_value(node, get_field, args, sc)
            return get_field
        d = self.env.defs.get(f"{h}.{field}")
        if d is not None:
            params = explicit_params(d)
            ptypes, _ = self.def_types(d)
            pos = 0
            for i in range(len(params)):
                if head(ptypes[i]) == h:
                    pos = i
                    break
            placeholder = A.Ident(node.line, node.col, "__self__")
            new_args = list(args)
            new_args.insert(min(pos, len(new_args)), placeholder)
            sc2 = self._with_self(sc, base, t)
            return self._wrap_self(sc2, self._call_def(node, d, new_args, sc2[0], expected), base)
        if f"{h}.{field}" in MONADIC_TRAVERSALS:  # (a declaration of the file was found above)
            return traversal(self, node, f"{h}.{field}", args, sc, base)
        b = _field_builtin(h, field)
        if b is not None:
            return self._call_builtin(node, b, args, sc, expected, (base, t))
        return None

    def _with_self(self, sc: Scope, base: Closure, t: LeanType | None) -> tuple[Scope, int]:
        return sc.bind("__self__", t)

    def _wrap_self(self, sc_slot: tuple[Scope, int], call: Closure, base: Closure) -> Closure:
        slot = sc_slot[1]

        def run(fr: list[Any]) -> Any:
            v = base(fr)
            if slot >= len(fr):
                fr.extend([None] * (slot + 1 - len(fr)))
            fr[slot] = v
            return call(fr)

        return run

    def c_App(self, node: A.App, sc: Scope, expected: LeanType | None) -> Closure:
        if self._lazy_sites.get(id(node)) is node:
            return self.c_family_producer(node, sc, self._c_app(node, sc, expected))
        return self._c_app(node, sc, expected)

    def _c_app(self, node: A.App, sc: Scope, expected: LeanType | None) -> Closure:
        fn = node.fn
        args = node.args
        if isinstance(fn, A.Paren) and not _has_cdot(fn.term):
            fn = fn.term
        if isinstance(fn, A.Ident):
            return self._call_name(node, fn.name, args, sc, expected)
        if isinstance(fn, A.DotIdent):
            return self._dot_ident(node, fn.name, args, sc, expected)
        if isinstance(fn, A.Proj):
            base = self.compile(fn.term, sc, None)
            t = self.stype(fn.term, sc)
            return self._method(node, base, t, fn.field, args, sc, expected)
        if isinstance(fn, A.Explicit):
            raise unsupported(node, "@ explicit application")
        fc = self.compile(fn, sc, None)
        return self._apply_value(node, fc, args, sc)

    def c_Proj(self, node: A.Proj, sc: Scope, expected: LeanType | None) -> Closure:
        base = self.compile(node.term, sc, None)
        if self.node_types.is_fin_value(node):
            return base  # `i.val` of a `Fin`: the number the engine keeps for `i`
        t = self.stype(node.term, sc)
        return self._method(node, base, t, node.field, [], sc, expected)

    def c_NamedArg(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        raise unsupported(node, "named argument")


def _fst(v: Any, node: A.Node) -> Any:
    if isinstance(v, Pair):
        return v.fst
    raise unsupported(node, ".1", f"on {type_name_of(v)}")


def _snd(v: Any, node: A.Node) -> Any:
    if isinstance(v, Pair):
        return v.snd
    raise unsupported(node, ".2", f"on {type_name_of(v)}")


def _struct_field(v: Any, idx: int, node: A.Node, field: str) -> Any:
    """Field number ``idx`` (named ``field``) of the structure value ``v``."""
    if not isinstance(v, Struct):
        raise unsupported(node, f"field {field}")
    return v.fields[idx][1]


def _runtime_head(v: Any) -> str:
    if isinstance(v, Struct):
        return v.type_name
    if isinstance(v, Ctor):
        return v.name.rpartition(".")[0]
    if isinstance(v, LeanRange):
        return "Std.Range"
    return type_name_of(v)


def _value_type(v: Any) -> LeanType | None:
    t = _vtype(v)
    if t is not None:
        return t
    if isinstance(v, Struct):
        return NamedType(v.type_name)
    if isinstance(v, Arr):
        return NamedType("Array", (UNKNOWN,))
    if isinstance(v, tuple):
        return NamedType("List", (UNKNOWN,))
    if isinstance(v, (Some, _NoneType)):
        return NamedType("Option", (UNKNOWN,))
    return None


def _param_types(t: LeanType | None, n: int) -> list[LeanType | None]:
    out: list[LeanType | None] = []
    for _ in range(n):
        if isinstance(t, FunType):
            out.append(t.domain if is_known(t.domain) else None)
            t = t.codomain
        else:
            out.append(None)
    return out




def _direct_call(gen: CodeGen, entry: list[Any], get: Callable[[], Any], budget: Budget) -> Writer:
    """The text of a call of a user definition with all its arguments, calling its entry
    (:meth:`.core.Compiler.def_entry`) as ``run`` would, in the order the call's source has
    always had: the arguments' statements; the callee, compiled by ``get()`` on the first call
    (which raises the definition's compile error); the arguments' expressions, left to right;
    one step charged; the entry called."""
    def first() -> Any:
        get()
        fn = entry[0]
        if fn is None:  # (never: an entry is filled when its definition's compilation ends)
            raise RuntimeError("a definition called while it is compiled")
        return fn

    fetch, k = f"{gen.const(entry)}[0] or {gen.const(first)}()", gen.const(budget)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        f = gen.temp()
        computed, args = gen.into_temps(exprs)
        stmts = [f"{f} = {fetch}", *computed]
        stmts.extend([f"{k}.tick -= 1", f"if {k}.tick < 0:", f"    {k}.refill()"])
        return stmts, f"{f}({', '.join(args)})"

    return write


def _tail_call(gen: CodeGen, cs: list[Closure], target: TailTarget, budget: Budget) -> Closure:
    """A self-call in tail position: its arguments, evaluated, as a :class:`TailCall`; in the
    function's generated body, a jump back to its start (:meth:`.codegen.CodeGen.tail_call`)."""
    closure: Closure
    if len(cs) == 1:
        c0 = cs[0]

        def closure(fr: list[Any]) -> Any:
            return TailCall((c0(fr),))
    elif len(cs) == 2:
        c0, c1 = cs

        def closure(fr: list[Any]) -> Any:
            return TailCall((c0(fr), c1(fr)))
    else:
        def closure(fr: list[Any]) -> Any:
            return TailCall(tuple([c(fr) for c in cs]))
    setattr(closure, _TAIL_CALL_ATTR, True)
    if target.loop is None or target.slots is None:
        template = gen.const(TailCall) + "((" + "".join(f"{{{i}}}, " for i in range(len(cs))) + "))"
        return gen.fuse(closure, template, cs)
    return gen.tail_call(closure, cs, target.loop, target.slots, budget)


#: the attribute marking the closure of a self tail call (:func:`is_tail_call`)
_TAIL_CALL_ATTR = "_veriscale_tail_call"


def is_tail_call(closure: Closure) -> bool:
    """Whether ``closure`` is a self tail call's: its value is always a pending
    :class:`..runtime_support.TailCall` (or it raises)."""
    return getattr(closure, _TAIL_CALL_ATTR, False) is True


def _fin_binder_size(f: A.Node) -> A.Node | None:
    """``e`` when ``f`` is ``fun (i : Fin e) => …``: the size a ``Fin``-indexed builder takes
    from its function's first binder (Lean unifies ``Fin ?n`` with ``Fin e``)."""
    f = A.unparen(f)
    if not isinstance(f, A.Lambda) or not f.binders:
        return None
    ty = f.binders[0].type
    ty = A.unparen(ty) if ty is not None else None
    if isinstance(ty, A.App) and isinstance(ty.fn, A.Ident) and ty.fn.name == "Fin" and len(ty.args) == 1:
        return ty.args[0]
    return None
