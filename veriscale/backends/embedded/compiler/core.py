"""The :class:`Compiler`: user definitions, name resolution, the dispatch of a term to its
construct's ``c_<Node>`` method, and the literals and small terms (tuples, collection literals,
ascriptions, string interpolation, indexing).

The constructs with more to them are compiled by the mixins :class:`Compiler` is composed of,
one module per construct family (see the package's docstring)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import explicit_params, is_proof_binder, type_of_text
from veriscale.backends.embedded.builtins import BUILTINS, LeanHashMap, LeanHashSet, to_string, type_name_of
from veriscale.backends.embedded.compiler.arith import ArithMixin
from veriscale.backends.embedded.compiler.calls import CallsMixin, is_tail_call
from veriscale.backends.embedded.compiler.codegen import Body, CodeGen, Src
from veriscale.backends.embedded.compiler.do_notation import DoNotationMixin
from veriscale.backends.embedded.compiler.families import FamiliesMixin
from veriscale.backends.embedded.compiler.fast_paths import index_writer
from veriscale.backends.embedded.compiler.hoisting import HoistingMixin
from veriscale.backends.embedded.compiler.instances import InstancesMixin
from veriscale.backends.embedded.compiler.lambdas import LambdasMixin
from veriscale.backends.embedded.compiler.linearity import LinearityMixin
from veriscale.backends.embedded.compiler.patterns import PatternsMixin
from veriscale.backends.embedded.compiler.quantifiers import QuantifiersMixin
from veriscale.backends.embedded.compiler.sharing import SharingMixin, repeated_terms, tail_only
from veriscale.backends.embedded.compiler.static_types import StaticTypesMixin
from veriscale.backends.embedded.compiler.support import (
    UNSURE,
    Closure,
    DefCtx,
    Scope,
    TailTarget,
    _coercer,
    _has_cdot,
    _needs_int,
    _vtype,
    tail_apps,
    unsupported,
)
from veriscale.backends.embedded.compiler.unboxed import record_unboxed, unbox
from veriscale.backends.embedded.elab.context import Report
from veriscale.backends.embedded.elab.node_types import NodeTypes
from veriscale.backends.embedded.env import Env, UserDef, find_scoped, resolve_in
from veriscale.backends.embedded.memo import MISSING, NotKeyable, args_key, memo_put
from veriscale.backends.embedded.registry import Builtin
from veriscale.backends.embedded.runtime_support import (
    PROOF,
    Budget,
    LeanRange,
    LeanSubarray,
    Partial,
    TailCall,
)
from veriscale.backends.embedded.statics import (
    INT,
    NAT,
    PROP,
    UNKNOWN,
    TVar,
    check_numeral_type,
    coerce_value,
    elem_type,
    head,
    is_known,
)
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType
from veriscale.lean.values import NONE, UNIT, Arr, Char, Nat, Undecidable, Unsupported, pair, some


class Compiler(StaticTypesMixin, CallsMixin, LambdasMixin, PatternsMixin, ArithMixin, QuantifiersMixin,
               DoNotationMixin, FamiliesMixin, HoistingMixin, InstancesMixin, SharingMixin, LinearityMixin):
    """Compiles the definitions of one task's :class:`Env` to Python closures.

    Each ``c_<Node>`` method compiles one AST node class; :meth:`compile` dispatches on the
    node's class name. The methods live in this class and in the mixins, one per construct
    family; they call each other through ``self``."""

    def __init__(self, env: Env, node_types: NodeTypes | None = None, report: Report | None = None) -> None:
        self.env = env
        #: the elaborator's type of each term (empty when the file was not elaborated)
        self.node_types = node_types if node_types is not None else NodeTypes()
        #: local instances the elaborator modelled, and the uses it resolved to them (:mod:`.instances`)
        self.local_instances = report.local_instances if report is not None else {}
        self.instance_choices = report.instance_choices if report is not None else {}
        self._instance_slots: dict[int, int] = {}
        self.budget = Budget()
        #: the generated functions of fused terms (:mod:`.codegen`)
        self.gen = CodeGen()
        #: the function whose self tail calls are being compiled (None: no tail calls)
        self._tail_target: TailTarget | None = None
        #: `let rec` lambdas (by node id) being compiled, with the frame slot of their name
        self._rec_lambdas: dict[int, int] = {}
        #: (definition, frame slot) of local functions generated on locals, with their function
        #: (:class:`.lambdas.LocalFn`)
        self._local_fns: dict[tuple[DefCtx, int], Any] = {}
        #: (definition, frame slot) of the functions of lifted `let rec` groups, which hold their
        #: group's environment (:class:`.lambdas.LiftedFn`)
        self._lifted_fns: dict[tuple[DefCtx, int], Any] = {}
        self._defs_running: dict[str, Callable[..., Any]] = {}
        self._method_cache: dict[tuple[str, str], Any] = {}
        self._resolution_cache: dict[tuple[str, str, tuple[str, ...]], list[str] | None] = {}
        self._open_terms: tuple[str, ...] = ()
        """Namespaces opened by enclosing ``open … in`` terms."""
        #: producers of all sublists allowed to build the symbolic list (:mod:`.builtins.sublists`)
        self._lazy_sites: dict[int, A.Node] = {}
        #: definitions whose terms independent of one parameter (named here) are recorded and
        #: replayed between calls (:mod:`.hoisting`): a postcondition and its output
        self.hoist_over: dict[str, str] = {}
        self._user_name_set: frozenset[str] | None = None
        self._hoisting = False
        """A term being compiled is wrapped by :mod:`.hoisting` (its parts are not wrapped again)."""
        #: definitions whose results have their declared type's representation already (``Int``
        #: values are ``int`` also inside containers): their callers need not coerce them
        self.results_in_repr: set[str] = set()
        #: each definition's *entry* (:meth:`def_entry`), by name
        self._def_entries: dict[str, list[Any]] = {}
        self._memoised_defs: dict[str, bool] = {}
        #: array updates written in place when owned (:mod:`.linearity`), by node id, with their owner
        self._owned_updates: dict[int, tuple[A.Node, str]] = {}
        #: ``fun`` nodes written as the function operand of a fold, by id (:mod:`.linearity`)
        self._fold_funs: set[int] = set()

    # -- user definitions -----------------------------------------------------------------
    def def_function(self, d: UserDef) -> Callable[..., Any]:
        """The Python function of a user definition: takes the non-proof explicit arguments."""
        if d.run is not None:
            return d.run
        if d.compile_error is not None:
            raise d.compile_error
        if d.name in self.env.errors:
            raise Unsupported(f"definition {d.name}", "did not parse")
        try:
            self._compile_def(d)
        except Unsupported as exc:
            d.compile_error = exc
            raise
        return d.run

    def def_entry(self, d: UserDef) -> list[Any]:
        """A one-place list that holds, once ``d`` is compiled, its *entry*: a function of exactly
        its arguments doing what its ``run`` does after charging the call's step and checking
        the number of arguments (the body on them, and a pending self tail call's loop). A call
        site that knows both charges the step itself and calls the entry: one Python call per
        call of the definition instead of two. Never filled for a memoised definition
        (:meth:`def_memoised`), whose calls go through the memo table."""
        entry = self._def_entries.get(d.name)
        if entry is None:
            entry = self._def_entries[d.name] = [None]
        return entry

    def def_memoised(self, d: UserDef) -> bool:
        """Whether ``d``'s calls are memoised (:func:`branching_recursion`)."""
        known = self._memoised_defs.get(d.name)
        if known is None:
            known = self._memoised_defs[d.name] = branching_recursion(d, _tail_calls(d))
        return known

    def def_arity(self, d: UserDef) -> tuple[int, list[bool]]:
        params = explicit_params(d)
        flags = [is_proof_binder(b, self.env, d.namespace) for _, b in params]
        extra = self._equation_extra(d)
        return len(params) + extra, flags + [False] * extra

    def _equation_extra(self, d: UserDef) -> int:
        if d.cmd.alts is None:
            return 0
        return len(d.cmd.alts[0].patterns) if d.cmd.alts else 0

    def _type_params(self, d: UserDef) -> set[str]:
        names = set()
        for b in d.cmd.binders:
            if b.kind in ("implicit", "strict") or (b.kind == "explicit" and b.type_text.strip() in ("Type", "Type u", "Type _")):
                names.update(b.names)
        return names

    def clean_type(self, ty: LeanType | None, tparams: set[str]) -> LeanType | None:
        if ty is None:
            return None
        if isinstance(ty, NamedType):
            if not ty.args and (ty.name in tparams or (len(ty.name) == 1 and ty.name in "αβγδεσ")):
                return TVar(ty.name)
            if ty.name in ("ℕ",):
                return NAT
            if ty.name in ("ℤ",):
                return INT
            if ty.args:
                return NamedType(ty.name, tuple(self.clean_type(a, tparams) or UNKNOWN for a in ty.args))
            return ty
        if isinstance(ty, ProdType):
            return ProdType(self.clean_type(ty.fst, tparams) or UNKNOWN, self.clean_type(ty.snd, tparams) or UNKNOWN)
        if isinstance(ty, FunType):
            return FunType(self.clean_type(ty.domain, tparams) or UNKNOWN, self.clean_type(ty.codomain, tparams) or UNKNOWN)
        return ty

    def def_types(self, d: UserDef) -> tuple[list[LeanType | None], LeanType | None]:
        tparams = self._type_params(d)
        params = explicit_params(d)
        ptypes = [self.clean_type(type_of_text(b.type_text), tparams) for _, b in params]
        ret = self.clean_type(type_of_text(d.cmd.type_text), tparams)
        extra = self._equation_extra(d)
        if extra:
            t = ret
            for _ in range(extra):
                if isinstance(t, FunType):
                    ptypes.append(t.domain)
                    t = t.codomain
                else:
                    ptypes.append(None)
                    t = None
            ret = t
        if d.returns_prop:
            ret = PROP
        return ptypes, ret

    def _compile_def(self, d: UserDef) -> None:
        if d.cmd.modifiers.unsafe:
            raise unsupported(d.cmd, "unsafe definition")
        ctx = DefCtx(d.namespace if d.cmd.where == [] else d.name, d)
        ctx.namespace = d.name  # `where` helpers are found as `<name>.<helper>`
        ptypes, ret = self.def_types(d)
        if head(ret) in ("Option", "Except", "IO", "StateM", "EStateM") :
            ctx.monad = head(ret) or "Id"
        _, flags = self.def_arity(d)
        params = explicit_params(d)
        sc = Scope(ctx)
        arg_slots: list[int] = []
        named_slots: list[tuple[str, int]] = []
        for i, (name, _b) in enumerate(params):
            if flags[i]:
                continue
            sc, slot = sc.bind(name, ptypes[i])
            arg_slots.append(slot)
            named_slots.append((name, slot))
        ctx.hoist = self.hoist_plan(d.name, d.cmd, named_slots)
        extra = self._equation_extra(d)
        extra_slots = []
        for k in range(extra):
            sc, slot = sc.bind(f"_eq{k}", ptypes[len(params) + k])
            extra_slots.append(slot)
            arg_slots.append(slot)
        d.compiling = True
        holder: list[Any] = [None, False]  # the body's function; whether it takes the arguments (locals)

        budget = self.budget
        nargs = len(arg_slots)
        ctx_ref = ctx

        # The arguments are bound first, to slots 0, 1, ...: a frame is the arguments followed by
        # the body's other slots (their number read at each call, since a method resolved at run
        # time may bind one more).
        assert arg_slots == list(range(nargs)), arg_slots

        def run(*args: Any) -> Any:
            b = budget
            b.tick -= 1
            if b.tick < 0:
                b.refill()
            if len(args) != nargs:
                if len(args) < nargs:
                    return Partial(run, args)
                return run(*args[:nargs])(*args[nargs:])
            if holder[1]:  # the body generated on Python locals takes the arguments as they are
                result = holder[0](*args)
            else:
                need = ctx_ref.nslots
                fr = [*args, *_NONES[nargs:need]] if need <= _NONES_LEN else [*args, *([None] * (need - nargs))]
                result = holder[0](fr)
            if type(result) is TailCall:
                return tail_loop(result)
            return result

        def tail_loop(result: TailCall) -> Any:
            # self-calls in tail position left pending (a call site outside the generated body):
            # one step each, like the call they replace
            b = budget
            body = holder[0]
            while True:
                b.tick -= 1
                if b.tick < 0:
                    b.refill()
                if holder[1]:
                    result = body(*result.args)
                else:
                    need = ctx_ref.nslots
                    fr = ([*result.args, *_NONES[nargs:need]] if need <= _NONES_LEN
                          else [*result.args, *([None] * (need - nargs))])
                    result = body(fr)
                if type(result) is not TailCall:
                    return result

        d.run = run
        saved_target = self._tail_target
        saved_hoisting = self._hoisting
        self._hoisting = False  # the terms of another definition compiled on the way are its own
        calls = _tail_calls(d)
        memo = self.def_memoised(d)
        if memo:
            d.run = memoised(run, nargs, budget, d.name)
        self.note_family_sites(d.cmd.alts if d.cmd.alts is not None else d.cmd.body)
        body_node = d.cmd.alts if d.cmd.alts is not None else (
            _with_capturing_helpers(d.cmd, [n for n, _ in params]) if d.cmd.body is not None else None)
        ctx.shared = repeated_terms(body_node, self._user_names()) or None
        if ctx.shared is not None:
            ctx.tail_shared = tail_only(ctx.shared, calls)
        self._tail_target = target = TailTarget(d, nargs, calls, tuple(range(nargs)), self.gen.loop_name())
        if d.cmd.alts is None and isinstance(body_node, A.Node):
            self.note_owned_updates(body_node, [(n, not flags[i] and head(ptypes[i]) == "Array")
                                                for i, (n, _b) in enumerate(params)],
                                    {d.name, d.name.rpartition(".")[2]}, calls, ctx.shared, self.env.defs)
        try:
            if d.cmd.alts is not None:
                discr_sc_types = [ptypes[len(params) + k] for k in range(extra)]
                body = self.compile_match_alts(
                    d.cmd, [self.gen.slot(lambda fr, s=s: fr[s], s) for s in extra_slots], discr_sc_types, d.cmd.alts, sc, ret, is_do=False)
            elif d.cmd.body is None:
                raise unsupported(d.cmd, f"definition {d.name} without a body")
            else:
                assert isinstance(body_node, A.Node)
                body = self.compile(body_node, sc, ret)
            finish = None
            if ret is not None and is_known(ret) and head(ret) in ("Int", "List", "Array", "Option", "Prod") and \
                    _needs_int(ret) and not self._elaborated_as(_result_terms(d.cmd), ret):
                # (a body the elaborator typed `ret` may still compute a `Nat` in a local function
                # whose result Lean coerces: only this coercion makes the representation sure)
                self.results_in_repr.add(d.name)

                def finish(v: Any, ret: LeanType = ret) -> Any:
                    # a pending tail call is coerced when it returns (the coercion is idempotent)
                    return v if type(v) is TailCall else coerce_value(v, ret)
            generated = self.gen.body(body, arg_slots, target.loop, finish=finish)
            body = generated.fn
            if generated.kind == Body.CLOSURE and finish is not None:
                inner, fin = body, finish

                def body(fr: list[Any]) -> Any:
                    return fin(inner(fr))
            holder[0] = body
            holder[1] = generated.kind == Body.LOCALS
            if not memo:
                self.def_entry(d)[0] = _entry(body, generated.kind == Body.LOCALS, nargs, ctx, tail_loop)
        except Unsupported:
            d.run = None
            raise
        finally:
            d.compiling = False
            self._tail_target = saved_target
            self._hoisting = saved_hoisting

    def _user_names(self) -> frozenset[str]:
        """The names of the task's definitions, full and last component (a call of one costs
        steps: :mod:`.sharing`)."""
        if self._user_name_set is None:
            defs = self.env.defs
            self._user_name_set = frozenset({*defs, *(n.rpartition(".")[2] for n in defs)})
        return self._user_name_set

    def _elaborated_as(self, terms: list[A.Node], ty: LeanType) -> bool:
        """Whether the elaborator typed every one of ``terms`` exactly ``ty``: their compiled values
        then have ``ty``'s representation already and need no coercion to it."""
        return bool(terms) and all(self.node_types.of(t) == ty for t in terms)

    def coerced(self, c: Closure, node: A.Node, ty: LeanType) -> Closure:
        """``c`` (the compiled ``node``) coerced to ``ty`` where Lean inserts ``↑`` Nat→Int (also
        inside containers); unchanged when the elaborator typed ``node`` exactly ``ty``."""
        if self.node_types.of(node) == ty:
            return c
        return _coercer(c, ty, self.gen)

    # -- name resolution --------------------------------------------------------------------
    def resolved_names(self, name: str, sc: Scope | None) -> list[str] | None:
        """What ``name`` denotes where ``sc`` is, by Lean's rules (:func:`..env.resolve_in`); ``None``
        when the definition being compiled has no scope information (the older lookup applies)."""
        udef = sc.ctx.udef if sc is not None else None
        if udef is None:
            return None
        key = (udef.name, name, self._open_terms)
        if key not in self._resolution_cache:
            self._resolution_cache[key] = resolve_in(self.env, udef, name, self._open_terms)
        return self._resolution_cache[key]

    def c_OpenTerm(self, node: A.OpenTerm, sc: Scope, expected: LeanType | None) -> Closure:
        saved = self._open_terms
        self._open_terms = saved + tuple(node.names)
        try:
            return self.compile(node.term, sc, expected)
        finally:
            self._open_terms = saved

    def find_def(self, name: str, sc: Scope | None) -> UserDef | None:
        names = self.resolved_names(name, sc)
        if names is not None:
            defs = [self.env.defs[n] for n in names if n in self.env.defs]
            if len(names) > 1 and defs:
                raise unsupported(None, f"ambiguous name {name}", f"possible interpretations: {', '.join(names)}")
            return defs[0] if defs else None
        return find_scoped(self.env.defs, name, sc.ctx.namespace if sc is not None else "", self._opens(sc))

    def _opens(self, sc: Scope | None) -> list[str]:
        """The namespaces opened for the definition being compiled: the file's `open`s (as Lean
        sees them wherever the definition sits; tasks open at the top) plus its own `open X in`."""
        udef = sc.ctx.udef if sc is not None else None
        if udef is None or not udef.opens:
            return self.env.opens
        return [*self.env.opens, *(o for o in udef.opens if o not in self.env.opens)]

    def find_builtin(self, name: str, sc: Scope | None = None) -> Builtin | None:
        names = self.resolved_names(name, sc)
        if names is not None:
            found = [BUILTINS[n] for n in names if n in BUILTINS]
            if len(names) > 1 and found:
                raise unsupported(None, f"ambiguous name {name}", f"possible interpretations: {', '.join(names)}")
            return found[0] if found else None
        return find_scoped(BUILTINS, name, opens=self._opens(sc))

    # -- terms ------------------------------------------------------------------------------
    def compile(self, node: A.Node, sc: Scope, expected: LeanType | None = None) -> Closure:
        method = getattr(self, "c_" + type(node).__name__, None)
        if method is None:
            raise unsupported(node, type(node).__name__)
        if expected is None or (expected is not UNSURE and not is_known(expected)):
            # the context does not tell the type: the term's own, as the elaborator inferred it
            # (not where Lean knows a parameter type the compiler does not: `UNSURE` keeps its
            # run-time guard, since there Lean may propagate an expected type the elaborator does not)
            expected = self.node_types.of(node) or expected
        try:
            if self.instance_choices:
                choice = self.instance_choice(node, sc)
                if choice is not None:
                    return self.compile_instance_use(node, choice, sc)
            shared = sc.ctx.shared
            if shared is not None and id(node) in shared:
                def compile_term() -> Closure:
                    inner = method(node, sc, expected)
                    if id(node) in sc.ctx.tail_shared and is_tail_call(inner):
                        return inner  # its site would never record (.sharing.tail_only)
                    return self.shared(node, sc, expected, inner)
            else:
                def compile_term() -> Closure:
                    return method(node, sc, expected)  # type: ignore[no-any-return]
            if sc.ctx.hoist is not None and self.hoist_candidate(node, sc):
                # the sharing site sits inside the recording, so a replay puts its entry back
                return self.hoisted(compile_term, sc.ctx)
            return compile_term()
        except (Unsupported, Undecidable) as exc:
            # refuse only when evaluation reaches this term (it may sit in a dead branch)
            err = exc

            def refuse(fr: list[Any]) -> Any:
                raise err

            def refused() -> Any:
                raise err

            # as text too, so the body around it is generated whole (on locals when it can be)
            return self.gen.attach(refuse, Src(f"{self.gen.const(refused)}()"))

    def c_Paren(self, node: A.Paren, sc: Scope, expected: LeanType | None) -> Closure:
        if _has_cdot(node.term):
            return self._cdot_lambda(node.term, sc, expected)
        return self.compile(node.term, sc, expected)

    def c_NumLit(self, node: A.NumLit, sc: Scope, expected: LeanType | None) -> Closure:
        if expected is not None and head(expected) == "Fin":
            v: Any = Nat(node.value)
        else:
            try:
                v = check_numeral_type(expected if expected is not None and is_known(expected) else None, node.value)
            except Unsupported as exc:
                raise unsupported(node, "numeral", exc.detail) from None
        return self.gen.constant(lambda fr: v, v)

    def c_SciLit(self, node: A.SciLit, sc: Scope, expected: LeanType | None) -> Closure:
        from veriscale.lean.codec import lean_float_of_literal

        if expected is not None and head(expected) not in (None, "Float") and is_known(expected):
            raise unsupported(node, "scientific literal", f"at type {expected}")
        v = lean_float_of_literal(node.text)
        return self.gen.constant(lambda fr: v, v)

    def c_StrLit(self, node: A.StrLit, sc: Scope, expected: LeanType | None) -> Closure:
        v = node.value
        return self.gen.constant(lambda fr: v, v)

    def c_CharLit(self, node: A.CharLit, sc: Scope, expected: LeanType | None) -> Closure:
        v = Char(node.value)
        return self.gen.constant(lambda fr: v, v)

    def c_UnitLit(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        return self.gen.constant(lambda fr: UNIT, UNIT)

    def c_ProofTerm(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        return lambda fr: PROOF

    def c_Sorry(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        raise unsupported(node, "sorry")

    def c_Interp(self, node: A.Interp, sc: Scope, expected: LeanType | None) -> Closure:
        if self.instance_choices:
            with_instances = self.interpolation_with_instances(node, sc)
            if with_instances is not None:
                return with_instances
        parts: list[Any] = []
        for p in node.parts:
            if isinstance(p, str):
                parts.append(p)
            else:
                parts.append(self.compile(p, sc, None))

        def run(fr: list[Any]) -> Any:
            return "".join(p if isinstance(p, str) else to_string(p(fr)) for p in parts)

        return run

    def c_Ascription(self, node: A.Ascription, sc: Scope, expected: LeanType | None) -> Closure:
        ty = self.clean_type(type_of_text(node.type_text), set())
        inner = self.compile(node.term, sc, ty)
        if ty is not None and is_known(ty) and _needs_int(ty):
            return self.gen.fuse(lambda fr: coerce_value(inner(fr), ty),
                                 f"{self.gen.const(coerce_value)}({{0}}, {self.gen.const(ty)})", [inner])
        return inner

    def c_Show(self, node: A.Show, sc: Scope, expected: LeanType | None) -> Closure:
        return self.compile(node.term, sc, expected)

    def c_Tuple(self, node: A.Tuple, sc: Scope, expected: LeanType | None) -> Closure:
        items = node.items
        if len(items) < 2:
            raise unsupported(node, "tuple")
        exp_parts: list[LeanType | None] = []
        t = expected
        for _ in items[:-1]:
            if isinstance(t, ProdType):
                exp_parts.append(t.fst)
                t = t.snd
            else:
                exp_parts.append(None)
                t = None
        exp_parts.append(t)
        cs = [self.compile(x, sc, e) for x, e in zip(items, exp_parts)]
        if len(cs) == 2:
            a, b = cs
            return self.gen.fuse(lambda fr: pair(a(fr), b(fr)), self.gen.const(pair) + "({0}, {1})", cs)

        def run(fr: list[Any]) -> Any:
            vals = [c(fr) for c in cs]
            v = vals[-1]
            for x in reversed(vals[:-1]):
                v = pair(x, v)
            return v

        # `(a, b, c)` is `(a, (b, c))`: the operands are evaluated left to right either way
        p = self.gen.const(pair)
        template = "".join(f"{p}({{{i}}}, " for i in range(len(cs) - 1)) + f"{{{len(cs) - 1}}}" + ")" * (len(cs) - 1)
        return self.gen.fuse(run, template, cs)

    def c_ListLit(self, node: A.ListLit, sc: Scope, expected: LeanType | None) -> Closure:
        et = elem_type(expected) if head(expected) == "List" else None
        cs = [self.compile(x, sc, et) for x in node.items]
        if et is None and cs:
            return self._unify_elems(cs, tuple)
        if not cs:
            return self.gen.constant(lambda fr: (), ())
        return self.gen.fuse(lambda fr: tuple(c(fr) for c in cs), "(" + "".join(f"{{{i}}}, " for i in range(len(cs))) + ")",
                             cs)

    def c_ArrayLit(self, node: A.ArrayLit, sc: Scope, expected: LeanType | None) -> Closure:
        et = elem_type(expected) if head(expected) == "Array" else None
        cs = [self.compile(x, sc, et) for x in node.items]
        if et is None and cs:
            return self._unify_elems(cs, Arr)
        return self.gen.fuse(lambda fr: Arr(c(fr) for c in cs),
                             self.gen.const(Arr) + "((" + "".join(f"{{{i}}}, " for i in range(len(cs))) + "))", cs)

    def _unify_elems(self, cs: list[Closure], mk: Any) -> Closure:
        def run(fr: list[Any]) -> Any:
            vals = [c(fr) for c in cs]
            # numerals default to Nat; a sibling of type Int makes them all Int (unification)
            if any(isinstance(v, Nat) for v in vals) and any(type(v) is int for v in vals):
                vals = [int(v) for v in vals]
            return mk(vals)

        return run

    def c_RangeLit(self, node: A.RangeLit, sc: Scope, expected: LeanType | None) -> Closure:
        g = self.gen
        start = self.compile(node.start, sc, NAT) if node.start is not None else g.constant(lambda fr: 0, 0)
        stop = self.compile(node.stop, sc, NAT)
        step = self.compile(node.step, sc, NAT) if node.step is not None else g.constant(lambda fr: 1, 1)
        make, to_int = g.const(LeanRange), g.const(int)
        return g.fuse(lambda fr: LeanRange(int(start(fr)), int(stop(fr)), int(step(fr))),
                      f"{make}({to_int}({{0}}), {to_int}({{1}}), {to_int}({{2}}))", [start, stop, step])

    def c_Hole(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        raise unsupported(node, "_ placeholder")

    def c_EmptyCollection(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        return self._empty_collection(node, expected, "∅")

    def _empty_collection(self, node: A.Node, ty: LeanType | None, what: str) -> Closure:
        """``EmptyCollection.emptyCollection`` (``∅``, and ``{}`` at a non-structure type) at ``ty``.

        Only the instances Lean has are known: ``List`` (``⟨List.nil⟩``), ``Array``
        (``⟨Array.empty⟩``), ``Subarray`` (``Subarray.empty``), ``Std.HashMap``/``Std.HashSet``
        (``emptyWithCapacity``, 8). ``String`` has none; an unknown type is not guessed."""
        h = head(ty)
        g = self.gen
        if h == "List":
            return g.constant(lambda fr: (), ())
        if h == "Array":
            empty = Arr(())
            return g.constant(lambda fr: empty, empty)
        if h == "Subarray":
            return lambda fr: LeanSubarray(Arr(()), 0, 0)
        if h in ("Std.HashMap", "HashMap"):
            return g.fuse(lambda fr: LeanHashMap(), f"{g.const(LeanHashMap)}()", [])
        if h in ("Std.HashSet", "HashSet"):
            return g.fuse(lambda fr: LeanHashSet(), f"{g.const(LeanHashSet)}()", [])
        if ty is None:
            raise unsupported(node, what, "expected type unknown")
        raise unsupported(node, what, f"no EmptyCollection instance handled for {ty}")

    def c_Cdot(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        raise unsupported(node, "· outside parentheses")

    def c_Sort(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        from veriscale.backends.embedded.runtime_support import TYPE_VALUE

        return lambda fr: TYPE_VALUE

    def c_SetBuilder(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        raise unsupported(node, "set-builder notation")

    # -- indexing ---------------------------------------------------------------------------
    def c_Index(self, node: A.Index, sc: Scope, expected: LeanType | None) -> Closure:
        coll = self.compile(node.coll, sc, None)
        ct = self.stype(node.coll, sc)
        idx = self.compile(node.index, sc, NAT if head(ct) in ("List", "Array", "Subarray", "String", None) else None)
        et = elem_type(ct) if head(ct) in ("List", "Array") else None
        if head(ct) == "Subarray" and isinstance(ct, NamedType) and ct.args and is_known(ct.args[0]):
            et = ct.args[0]
        if et is None and node.mode == "!" and expected is not None and is_known(expected):
            et = expected
        mode = node.mode
        comp = self

        if mode == "?":
            def at_opt(c: Any, i: Any) -> Any:
                if type(c) is Arr:
                    c = c.view()
                    return some(c[i]) if 0 <= i < len(c) else NONE
                if isinstance(c, LeanSubarray):
                    c = c.items()  # `GetElem (Subarray α) Nat α`: index `i` is `array[start + i]`
                if isinstance(c, tuple):
                    if 0 <= i < len(c):
                        return some(c[i])
                    return NONE
                if isinstance(c, LeanHashMap):
                    return BUILTINS["Std.HashMap.getElem?"].fn(c, i)
                raise unsupported(node, "xs[i]?", f"on {type_name_of(c)}")

            return self._index_source(lambda fr: at_opt(coll(fr), idx(fr)), ct, mode, at_opt, [coll, idx])

        def at(c: Any, i: Any) -> Any:
            # the element at `i` of `c` (both computed, the collection first)
            if type(c) is Arr:
                c = c.view()  # read at once, before any other Lean code runs
                if type(i) is Nat and i < len(c):
                    return c[i]
            elif isinstance(c, LeanSubarray):
                c = c.items()
            if isinstance(c, (tuple, list)):
                if isinstance(i, int) and 0 <= i < len(c):
                    return c[i]
                if mode == "!":
                    if et is not None:
                        return comp.default_of(et, node)
                    # the static element type is unknown: a scalar sibling tells it exactly
                    if c:
                        vt = _vtype(c[0])
                        if vt is not None:
                            return comp.default_of(vt, node)
                    raise unsupported(node, "xs[i]!", "out of range and element type unknown")
                raise unsupported(node, "xs[i]", "index out of range")
            if isinstance(c, LeanHashMap):
                b = BUILTINS["Std.HashMap.getElem!" if mode == "!" else "Std.HashMap.getElem!"]
                return b.fn(c, i, result_type=et if et is not None else expected) if b.typed else b.fn(c, i)
            raise unsupported(node, "indexing", f"on {type_name_of(c)}")

        return self._index_source(lambda fr: at(coll(fr), idx(fr)), ct, mode, at, [coll, idx])

    def _index_source(self, closure: Closure, ct: LeanType | None, mode: str, at: Callable[[Any, Any], Any],
                      operands: list[Closure]) -> Closure:
        """``closure`` (``at(c, i)`` of the operands) with its source: written inline for an
        array or a list (:mod:`.fast_paths`), else the call of ``at``."""
        if head(ct) in ("Array", "List"):
            on_list = head(ct) == "List"
            if mode == "?":  # a `match` on it may take it unboxed
                record_unboxed(self.gen, closure, operands, index_writer(self.gen, mode, at, on_list, unboxed=unbox))
            return self.gen.fuse_with(closure, operands, index_writer(self.gen, mode, at, on_list=on_list))
        return self.gen.fuse(closure, self.gen.const(at) + "({0}, {1})", operands)


#: empty frame slots, sliced to pad a frame after its arguments
_NONES_LEN = 256
_NONES = (None,) * _NONES_LEN


def _entry(body: Callable[..., Any], on_locals: bool, nargs: int, ctx: DefCtx,
           tail_loop: Callable[[TailCall], Any]) -> Callable[..., Any]:
    """The entry of a definition (:meth:`Compiler.def_entry`) whose compiled body is ``body``.

    A body generated on Python locals is its own entry: it takes the arguments as they are, and
    it never returns a pending tail call (its text reads no frame, so every self tail call in it
    is written in the text, as a jump of its loop). Another body gets its frame built, and
    a pending tail call run, as ``run`` does."""
    if on_locals:
        return body

    def on_frame(*args: Any) -> Any:
        need = ctx.nslots
        fr = [*args, *_NONES[nargs:need]] if need <= _NONES_LEN else [*args, *([None] * (need - nargs))]
        result = body(fr)
        if type(result) is TailCall:
            return tail_loop(result)
        return result

    return on_frame


def _result_terms(cmd: A.DefCmd) -> list[A.Node]:
    """The terms whose value a definition returns: its body, or the right-hand side of each
    equation."""
    if cmd.alts is not None:
        return [alt.rhs for alt in cmd.alts]
    return [cmd.body] if cmd.body is not None else []


def _with_capturing_helpers(cmd: A.DefCmd, param_names: list[str]) -> A.Node:
    """The body of ``cmd``, with its ``where`` helpers that use the definition's own parameters
    made local ``let rec`` functions (Lean closes a helper over the variables it uses; a local
    function sees them in the frame)."""
    assert cmd.body is not None
    names = set(param_names)
    capturing = [h for h in cmd.where if names & _mentioned(h)]
    if not capturing:
        return cmd.body
    decls = [A.LetDecl(h.line, h.col, h.name, h.binders, h.type, h.type_text, h.body, alts=h.alts)
             for h in cmd.where]
    return A.LetRec(cmd.body.line, cmd.body.col, decls, cmd.body)


def _mentioned(node: object) -> set[str]:
    return A.identifier_roots(node)


def branching_recursion(d: UserDef, tail_calls: set[int]) -> bool:
    """Whether ``d`` calls itself from two or more places outside tail position (``fib (n - 1) +
    fib (n - 2)``, the three calls of a naive LCS): such a recursion can reach one argument
    tuple many times, exponentially often, and is worth memoising (:func:`memoised`). A linear
    recursion reaches each argument tuple once per top-level call and is left alone."""
    short = d.name.rpartition(".")[2]
    names = {d.name, short}
    count = 0

    def walk(node: object) -> None:
        nonlocal count
        if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name in names \
                and id(node) not in tail_calls:
            count += 1
        for sub in A.subterms(node):
            walk(sub)

    walk(d.cmd.alts if d.cmd.alts is not None else d.cmd.body)
    return count >= 2


MEMO_TRIAL_CALLS = 1_000
"""Calls of a memoised definition after which, if none found its arguments recorded, the rest
of the check calls it directly (a recursion over a tree visits each subtree once)."""


class _DefToken:
    """What the keys of one memoised definition start with, and the key of its call counters:
    equal only to itself and hashed by identity, so a lookup hashes no name or tuple for it
    (the definition's wrapper is made once per compiled program, like its ``run``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<memo {self.name}>"


def memoised(run: Callable[..., Any], nargs: int, budget: Budget, name: str) -> Callable[..., Any]:
    """``run`` with its calls recorded in the check's memo table (:mod:`..memo`): a call on
    arguments already seen costs one step and returns the recorded value. Calls with another
    number of arguments (partial or over-application) and arguments too large to key go to
    ``run`` unchanged, and so does every call once :data:`MEMO_TRIAL_CALLS` calls of the check
    found nothing recorded. All of it is counted, not timed, so step counts stay deterministic.

    A call's key is ``(token, key of each argument…)`` (:func:`..memo.args_key`), flat: the
    number of arguments is the definition's."""
    token = _DefToken(name)
    counts_key = _DefToken(name)

    def call(*args: Any) -> Any:
        if len(args) != nargs:
            return run(*args)
        table = budget.memo
        counts = table.get(counts_key)
        if counts is None:
            counts = table[counts_key] = [0, 0]  # calls, hits
        elif counts[0] >= MEMO_TRIAL_CALLS and not counts[1]:
            return run(*args)  # no argument tuple came back: keying is pure overhead here
        counts[0] += 1
        try:
            key = args_key(token, args)
        except NotKeyable:
            return run(*args)
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            counts[1] += 1
            budget.tick -= 1
            if budget.tick < 0:
                budget.refill()
            return hit
        result = run(*args)
        memo_put(table, key, result)
        return result

    return call


def _tail_calls(d: UserDef) -> set[int]:
    """The identities of the applications in tail position of ``d``'s body or equations."""
    calls: set[int] = set()
    if d.cmd.alts is not None:
        for alt in d.cmd.alts:
            tail_apps(alt.rhs, calls)
    elif d.cmd.body is not None:
        tail_apps(d.cmd.body, calls)
    return calls
