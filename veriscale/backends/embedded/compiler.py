"""Compile the parsed Lean subset to Python closures.

Every term compiles to a closure ``f(frame) -> value``. A *frame* is a Python list holding the
local variables of one user-definition invocation; each local gets a slot at compile time.
Lambdas snapshot the frame when they are created (Lean values are immutable, so a closure sees
the values of the variables at creation time, even when a ``do`` block later reassigns them) and
copy the snapshot on every call.

Lean's elaboration decisions that depend on static types (numeral types, ``binop%`` coercions,
the default of ``xs[i]!``) are reproduced from declared types (:mod:`.statics`) and, where the
static type is not known, from the run-time types of values, which equal their static types
except for numerals. Where that is not enough to be sure (a ``Nat`` subtraction that truncates
while one of its operands had no static type), the engine refuses rather than guesses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins import (
    ARITH,
    BUILTINS,
    IMPLICIT_ARGS,
    NEG,
    OPTIONAL_ARGS,
    PROOF_PARAMS,
    LeanHashMap,
    LeanHashSet,
    compare_le,
    compare_lt,
    decidable_eq,
    default_of_type,
    lean_beq,
    to_string,
    type_name_of,
)
from veriscale.backends.embedded.builtins._core import nat_range
from veriscale.backends.embedded.builtins.order import SCALAR_TYPES, beq_member, eq_is_beq
from veriscale.backends.embedded.env import Env, UserDef
from veriscale.backends.embedded.program import explicit_params, is_proof_binder, type_of_text
from veriscale.backends.embedded.registry import Builtin
from veriscale.backends.embedded.runtime_support import (
    PROOF,
    Budget,
    BuiltinFn,
    Fn,
    LeanRange,
    LeanSubarray,
    Partial,
    TailCall,
)
from veriscale.backends.embedded.statics import (
    BOOL,
    CHAR,
    FLOAT,
    INT,
    NAT,
    PROP,
    STRING,
    UNKNOWN,
    TVar,
    check_numeral_type,
    coerce_value,
    elem_type,
    fin_bound,
    fresh,
    head,
    is_known,
    max_type,
    signature,
    subst,
    unify,
)
from veriscale.lean_types import FunType, LeanType, NamedType, ProdType
from veriscale.runtime import (
    NONE,
    UNIT,
    Arr,
    Char,
    Ctor,
    LeanPanic,
    Nat,
    Pair,
    Some,
    Struct,
    Undecidable,
    Unsupported,
    _FixedWidth,
    _NoneType,
)

Closure = Callable[[list[Any]], Any]

UNSURE = TVar("?unsure")
"""Expected type of an argument whose parameter type Lean knows but we do not."""

#: candidates tried by the witness search of an unbounded ``∃``/``∀`` over Nat or Int (bodies
#: like `n / 10 ^ i` cost more with every candidate, so the whole search grows quadratically)
UNBOUNDED_SEARCH_CANDIDATES = 2_000
#: candidates of a search that runs inside the body of another search
NESTED_SEARCH_CANDIDATES = 100
#: evaluation steps (function entries, loop iterations) one search may spend: a recursive body
#: such as `pow 2 x` costs `x` steps per candidate. Counted in steps, not seconds, so whether a
#: witness is found does not depend on the machine's speed.
SEARCH_STEP_ALLOWANCE = 10_000
ARITH_OPS = frozenset({"+", "-", "*", "/", "%"})
REL_OPS = frozenset({"=", "≠", "<", ">", "≤", "≥", "==", "!="})


class _Return(Exception):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def unsupported(node: A.Node | None, construct: str, detail: str = "") -> Unsupported:
    where = f" at {node.line}:{node.col}" if node is not None else ""
    return Unsupported(f"{construct}{where}", detail)


# ---------------------------------------------------------------------------------------------
# Compile-time scopes


class DefCtx:
    """Per user definition: the slot allocator and the definition's namespace."""

    __slots__ = ("nslots", "namespace", "udef", "monad", "do_depth")

    def __init__(self, namespace: str, udef: UserDef | None) -> None:
        self.nslots = 0
        self.namespace = namespace
        self.udef = udef
        self.monad = "Id"
        self.do_depth = 0
        """How many Id `do` blocks enclose the term being compiled (`pure` means `id` there)."""

    def alloc(self) -> int:
        i = self.nslots
        self.nslots += 1
        return i


class Scope:
    __slots__ = ("vars", "ctx", "local_fns", "mutable")

    def __init__(self, ctx: DefCtx, vars_: dict[str, tuple[int, LeanType | None]] | None = None) -> None:
        self.ctx = ctx
        self.vars: dict[str, tuple[int, LeanType | None]] = vars_ or {}

    def bind(self, name: str, ty: LeanType | None) -> tuple[Scope, int]:
        slot = self.ctx.alloc()
        new = Scope(self.ctx, {**self.vars, name: (slot, ty)})
        return new, slot

    def with_vars(self, extra: dict[str, tuple[int, LeanType | None]]) -> Scope:
        return Scope(self.ctx, {**self.vars, **extra})


# ---------------------------------------------------------------------------------------------
# Helpers on values


def _vtype(value: Any) -> LeanType | None:
    """The static type of a scalar run-time value (``None`` for containers / unknown)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, Nat):
        return NAT
    if isinstance(value, _FixedWidth):
        return NamedType(type(value).__name__)
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, Char):
        return CHAR
    if isinstance(value, str):
        return STRING
    return None


def _iter_coll(value: Any, node: A.Node) -> Any:
    if isinstance(value, LeanRange):
        if value.step <= 0:
            raise unsupported(node, "range with step 0")
        if value.start < 0:
            raise unsupported(node, "range with a negative start")
        return nat_range(value.start, value.stop, value.step)
    if isinstance(value, tuple):
        return value
    if isinstance(value, LeanSubarray):
        # `Subarray.forIn` visits `array[start]`, ..., `array[stop - 1]`
        return value.items()
    if isinstance(value, LeanHashMap):
        # a map yields its (key, value) pairs and a set its elements, in Lean's bucket order
        # (raises Unsupported where that order is not known, e.g. String keys)
        return list(value)
    raise unsupported(node, "iteration", f"over {type_name_of(value)}")


def _members(value: Any, node: A.Node) -> Any:
    if isinstance(value, tuple):
        return value
    raise unsupported(node, "membership", f"in {type_name_of(value)}")


def _is_float(v: Any) -> bool:
    return isinstance(v, float)


def _eq(a: Any, b: Any) -> bool:
    if type(a) in SCALAR_TYPES and type(b) in SCALAR_TYPES:
        return a == b
    if isinstance(a, float) or isinstance(b, float):
        raise Undecidable("Float equality is not decidable")
    return decidable_eq(a, b)


def _as_bool(v: Any, node: A.Node) -> bool:
    if v is True or v is False:
        return v
    raise unsupported(node, "proposition", f"value {v!r} is not decided")


# ---------------------------------------------------------------------------------------------


class TailTarget:
    """The function being compiled whose self-calls in tail position become :class:`TailCall`.

    ``key`` is the :class:`UserDef` of a top-level definition or the frame slot of a ``let rec``
    function; ``calls`` holds the ids of the application nodes in tail position of its body;
    ``used`` records whether any call site was compiled as a tail call (only then does the
    function need its loop)."""

    __slots__ = ("key", "nargs", "calls", "used")

    def __init__(self, key: object, nargs: int, calls: set[int]) -> None:
        self.key = key
        self.nargs = nargs
        self.calls = calls
        self.used = False


def tail_apps(body: Any, out: set[int]) -> set[int]:
    """Ids of the applications in tail position of ``body``.

    Walks only the constructs whose compiled closure returns its sub-term's value unchanged
    (parentheses, both branches of ``if``/``if let``, the alternatives of ``match``, the body of
    ``let``/``have``/``let rec``); anything else (an operator, an argument, a lambda, a ``do``
    block) is not a tail position. Conservative by construction: missing a tail call costs stack,
    marking a non-tail call would change results."""
    if isinstance(body, A.Paren):
        if not _has_cdot(body.term):
            tail_apps(body.term, out)
    elif isinstance(body, A.App):
        out.add(id(body))
    elif isinstance(body, (A.If, A.IfLet)):
        tail_apps(body.then, out)
        tail_apps(body.els, out)
    elif isinstance(body, A.Match):
        for alt in body.alts:
            tail_apps(alt.rhs, out)
    elif isinstance(body, (A.Let, A.LetRec)):
        tail_apps(body.body, out)
    return out


class Compiler:
    def __init__(self, env: Env) -> None:
        self.env = env
        self.budget = Budget()
        #: the function whose self tail calls are being compiled (None: no tail calls)
        self._tail_target: TailTarget | None = None
        #: `let rec` lambdas (by node id) being compiled, with the frame slot of their name
        self._rec_lambdas: dict[int, int] = {}
        self._defs_running: dict[str, Callable[..., Any]] = {}
        self._method_cache: dict[tuple[str, str], Any] = {}

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
        for i, (name, _b) in enumerate(params):
            if flags[i]:
                continue
            sc, slot = sc.bind(name, ptypes[i])
            arg_slots.append(slot)
        extra = self._equation_extra(d)
        extra_slots = []
        for k in range(extra):
            sc, slot = sc.bind(f"_eq{k}", ptypes[len(params) + k])
            extra_slots.append(slot)
            arg_slots.append(slot)
        d.compiling = True
        holder: list[Any] = [None]

        budget = self.budget
        nargs = len(arg_slots)
        ctx_ref = ctx

        def run(*args: Any) -> Any:
            b = budget
            b.tick -= 1
            if b.tick < 0:
                b.refill()
            fr = [None] * ctx_ref.nslots
            if len(args) != nargs:
                if len(args) < nargs:
                    return Partial(run, args)
                return run(*args[:nargs])(*args[nargs:])
            for slot, v in zip(arg_slots, args):
                fr[slot] = v
            result = holder[0](fr)
            if type(result) is TailCall:
                return tail_loop(result)
            return result

        def tail_loop(result: TailCall) -> Any:
            # self-calls in tail position: one step each, like the call they replace
            b = budget
            while True:
                b.tick -= 1
                if b.tick < 0:
                    b.refill()
                fr = [None] * ctx_ref.nslots
                for slot, v in zip(arg_slots, result.args):
                    fr[slot] = v
                result = holder[0](fr)
                if type(result) is not TailCall:
                    return result

        d.run = run
        saved_target = self._tail_target
        calls: set[int] = set()
        if d.cmd.alts is not None:
            for alt in d.cmd.alts:
                tail_apps(alt.rhs, calls)
        elif d.cmd.body is not None:
            tail_apps(d.cmd.body, calls)
        self._tail_target = TailTarget(d, nargs, calls)
        try:
            if d.cmd.alts is not None:
                discr_sc_types = [ptypes[len(params) + k] for k in range(extra)]
                body = self.compile_match_alts(
                    d.cmd, [lambda fr, s=s: fr[s] for s in extra_slots], discr_sc_types, d.cmd.alts, sc, ret, is_do=False)
            elif d.cmd.body is None:
                raise unsupported(d.cmd, f"definition {d.name} without a body")
            else:
                body = self.compile(d.cmd.body, sc, ret)
            if ret is not None and is_known(ret) and head(ret) in ("Int", "List", "Array", "Option", "Prod") and _needs_int(ret):
                inner = body

                def body(fr: list[Any], inner: Closure = inner, ret: LeanType = ret) -> Any:
                    # a pending tail call is coerced when it returns (the coercion is idempotent)
                    v = inner(fr)
                    return v if type(v) is TailCall else coerce_value(v, ret)
            holder[0] = body
        except Unsupported:
            d.run = None
            raise
        finally:
            d.compiling = False
            self._tail_target = saved_target

    # -- name resolution --------------------------------------------------------------------
    def find_def(self, name: str, sc: Scope | None) -> UserDef | None:
        defs = self.env.defs
        if sc is not None:
            ns = sc.ctx.namespace
            while ns:
                d = defs.get(f"{ns}.{name}")
                if d is not None:
                    return d
                ns = ns.rpartition(".")[0]
        d = defs.get(name)
        if d is not None:
            return d
        for o in self._opens(sc):
            d = defs.get(f"{o}.{name}")
            if d is not None:
                return d
        return None

    def _opens(self, sc: Scope | None) -> list[str]:
        """The namespaces opened for the definition being compiled: the file's `open`s (as Lean
        sees them wherever the definition sits; tasks open at the top) plus its own `open X in`."""
        udef = sc.ctx.udef if sc is not None else None
        if udef is None or not udef.opens:
            return self.env.opens
        return [*self.env.opens, *(o for o in udef.opens if o not in self.env.opens)]

    def find_builtin(self, name: str, sc: Scope | None = None) -> Builtin | None:
        b = BUILTINS.get(name)
        if b is not None:
            return b
        for o in self._opens(sc):
            b = BUILTINS.get(f"{o}.{name}")
            if b is not None:
                return b
        return None

    # -- static types ---------------------------------------------------------------------
    def stype(self, node: A.Node, sc: Scope) -> LeanType | None:
        """Best-effort static type of a term (``None``: unknown)."""
        try:
            return self._stype(node, sc)
        except RecursionError:
            return None

    def _stype(self, node: A.Node, sc: Scope) -> LeanType | None:
        if isinstance(node, A.Paren):
            return self._stype(node.term, sc)
        if isinstance(node, A.Ident):
            return self._ident_type(node.name, sc, [])
        if isinstance(node, A.StrLit) or isinstance(node, A.Interp):
            return STRING
        if isinstance(node, A.CharLit):
            return CHAR
        if isinstance(node, A.SciLit):
            return FLOAT
        if isinstance(node, A.Ascription):
            return type_of_text(node.type_text)
        if isinstance(node, A.App) and isinstance(node.fn, A.Ident):
            return self._ident_type(node.fn.name, sc, node.args)
        if isinstance(node, A.Proj):
            return self._field_type(self._stype(node.term, sc), node.field, [], sc)
        if isinstance(node, A.App) and isinstance(node.fn, A.Proj):
            return self._field_type(self._stype(node.fn.term, sc), node.fn.field, node.args, sc)
        if isinstance(node, A.Index):
            ct = self._stype(node.coll, sc)
            et = elem_type(ct) if head(ct) in ("List", "Array") else None
            if node.mode == "?":
                return NamedType("Option", (et,)) if et is not None else None
            return et
        if isinstance(node, A.BinOp):
            if node.op in ARITH_OPS:
                lt, rt = self._stype(node.lhs, sc), self._stype(node.rhs, sc)
                if lt is not None and lt == rt:
                    return lt
                if isinstance(node.lhs, A.NumLit):
                    return rt
                if isinstance(node.rhs, A.NumLit):
                    return lt
                if lt is not None and rt is not None:
                    m, bad = max_type([lt, rt])
                    return None if bad else m
                return None
            if node.op in REL_OPS or node.op in ("∧", "∨", "→", "↔", "∈", "∉"):
                return BOOL if node.op in ("==", "!=") else PROP
            if node.op in ("&&", "||"):
                return BOOL
            if node.op == "++":
                return self._stype(node.lhs, sc) or self._stype(node.rhs, sc)
            if node.op == "::":
                t = self._stype(node.rhs, sc)
                return t
            if node.op == "^":
                return self._stype(node.lhs, sc)
            return None
        if isinstance(node, A.UnOp):
            if node.op == "-":
                return self._stype(node.arg, sc)
            if node.op == "!":
                return BOOL
            if node.op == "¬":
                return PROP
            return None
        if isinstance(node, A.If):
            return self._stype(node.then, sc) or self._stype(node.els, sc)
        if isinstance(node, A.Tuple) and len(node.items) >= 2:
            ts = [self._stype(x, sc) for x in node.items]
            if any(t is None for t in ts):
                return None
            t = ts[-1]
            for x in reversed(ts[:-1]):
                t = ProdType(x, t)  # type: ignore[arg-type]
            return t
        return None

    def _ident_type(self, name: str, sc: Scope, args: list[A.Node]) -> LeanType | None:
        v = sc.vars.get(name)
        if v is not None:
            return v[1] if not args else _apply_fun_type(v[1], len(args))
        parts = name.split(".")
        if parts[0] in sc.vars:
            t = sc.vars[parts[0]][1]
            for i, f in enumerate(parts[1:]):
                last = i == len(parts) - 2
                t = self._field_type(t, f, args if last else [], sc)
                if t is None:
                    return None
            return t
        if name in ("true", "false"):
            return BOOL
        if name in ("some", "Option.some") and len(args) == 1:
            inner = self._stype(args[0], sc)
            return NamedType("Option", (inner,)) if inner is not None else None
        d = self.find_def(name, sc)
        if d is not None:
            ptypes, ret = self.def_types(d)
            n, flags = self.def_arity(d)
            if len(args) >= n or n == 0:
                if any(isinstance(t, TVar) or (t is not None and not is_known(t)) for t in [ret]):
                    return None
                return ret
            return None
        b = self.find_builtin(name)
        if b is not None:
            return self._builtin_result_type(b.name, [self._stype(a, sc) for a in args if not isinstance(a, A.NamedArg)], None)
        # Namespace.fn with a local? e.g. `List.length xs` handled above; struct field of global? no
        return None

    def _field_type(self, t: LeanType | None, field: str, args: list[A.Node], sc: Scope) -> LeanType | None:
        if t is None:
            return None
        if field in ("1", "fst") and isinstance(t, ProdType):
            return t.fst
        if field in ("2", "snd") and isinstance(t, ProdType):
            return t.snd
        h = head(t)
        if h is None:
            return None
        si = self.env.structs.get(h)
        if si is not None:
            for fname, fty, _ in si.fields:
                if fname == field:
                    if si.params and isinstance(t, NamedType):
                        from veriscale.lean_types import substitute
                        fty = substitute(fty, dict(zip(si.params, t.args))) if fty is not None else None
                    return fty
        d = self.env.defs.get(f"{h}.{field}")
        if d is not None:
            _, ret = self.def_types(d)
            return ret if ret is not None and is_known(ret) else None
        b = _field_builtin(h, field)
        if b is not None:
            argtys: list[LeanType | None] = [self._stype(a, sc) for a in args if not isinstance(a, A.NamedArg)]
            argtys.insert(min(b.self_index, len(argtys)), t)
            return self._builtin_result_type(b.name, argtys, None)
        return None

    def _builtin_result_type(self, name: str, argtys: list[LeanType | None], expected: LeanType | None) -> LeanType | None:
        sig = signature(name, len(argtys))
        if sig is None:
            return None
        s: dict[str, LeanType] = {}
        params = [fresh(p, "#") for p in sig.params]
        result = fresh(sig.result, "#")
        for p, a in zip(params, argtys):
            if a is not None:
                unify(p, a, s)
        if expected is not None:
            unify(result, expected, s)
        r = subst(result, s)
        return r if r is not None and is_known(r) else None

    def _builtin_arg_types(self, name: str, argtys: list[LeanType | None], expected: LeanType | None) -> tuple[list[LeanType | None], LeanType | None]:
        sig = signature(name, len(argtys))
        if sig is None:
            return [None] * len(argtys), None
        s: dict[str, LeanType] = {}
        params = [fresh(p, "#") for p in sig.params]
        result = fresh(sig.result, "#")
        for p, a in zip(params, argtys):
            if a is not None:
                unify(p, a, s)
        if expected is not None:
            unify(result, expected, s)
        out: list[LeanType | None] = []
        for p in params:
            t = subst(p, s)
            out.append(t if t is not None and is_known(t) else None)
        r = subst(result, s)
        return out, (r if r is not None and is_known(r) else None)

    # -- terms ------------------------------------------------------------------------------
    def compile(self, node: A.Node, sc: Scope, expected: LeanType | None = None) -> Closure:
        method = getattr(self, "c_" + type(node).__name__, None)
        if method is None:
            raise unsupported(node, type(node).__name__)
        try:
            return method(node, sc, expected)
        except (Unsupported, Undecidable) as exc:
            # refuse only when evaluation reaches this term (it may sit in a dead branch)
            err = exc

            def refuse(fr: list[Any]) -> Any:
                raise err

            return refuse

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
        return lambda fr: v

    def c_SciLit(self, node: A.SciLit, sc: Scope, expected: LeanType | None) -> Closure:
        from veriscale.values import lean_float_of_literal

        if expected is not None and head(expected) not in (None, "Float") and is_known(expected):
            raise unsupported(node, "scientific literal", f"at type {expected}")
        v = lean_float_of_literal(node.text)
        return lambda fr: v

    def c_StrLit(self, node: A.StrLit, sc: Scope, expected: LeanType | None) -> Closure:
        v = node.value
        return lambda fr: v

    def c_CharLit(self, node: A.CharLit, sc: Scope, expected: LeanType | None) -> Closure:
        v = Char(node.value)
        return lambda fr: v

    def c_UnitLit(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        return lambda fr: UNIT

    def c_ProofTerm(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        return lambda fr: PROOF

    def c_Sorry(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        raise unsupported(node, "sorry")

    def c_Interp(self, node: A.Interp, sc: Scope, expected: LeanType | None) -> Closure:
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
            return lambda fr: coerce_value(inner(fr), ty)
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
            return lambda fr: Pair(a(fr), b(fr))

        def run(fr: list[Any]) -> Any:
            vals = [c(fr) for c in cs]
            v = vals[-1]
            for x in reversed(vals[:-1]):
                v = Pair(x, v)
            return v

        return run

    def c_ListLit(self, node: A.ListLit, sc: Scope, expected: LeanType | None) -> Closure:
        et = elem_type(expected) if head(expected) == "List" else None
        cs = [self.compile(x, sc, et) for x in node.items]
        if et is None and cs:
            return self._unify_elems(cs, tuple)
        return lambda fr: tuple(c(fr) for c in cs)

    def c_ArrayLit(self, node: A.ArrayLit, sc: Scope, expected: LeanType | None) -> Closure:
        et = elem_type(expected) if head(expected) == "Array" else None
        cs = [self.compile(x, sc, et) for x in node.items]
        if et is None and cs:
            return self._unify_elems(cs, Arr)
        return lambda fr: Arr(c(fr) for c in cs)

    def _unify_elems(self, cs: list[Closure], mk: Any) -> Closure:
        def run(fr: list[Any]) -> Any:
            vals = [c(fr) for c in cs]
            # numerals default to Nat; a sibling of type Int makes them all Int (unification)
            if any(isinstance(v, Nat) for v in vals) and any(type(v) is int for v in vals):
                vals = [int(v) for v in vals]
            return mk(vals)

        return run

    def c_RangeLit(self, node: A.RangeLit, sc: Scope, expected: LeanType | None) -> Closure:
        start = self.compile(node.start, sc, NAT) if node.start is not None else (lambda fr: 0)
        stop = self.compile(node.stop, sc, NAT)
        step = self.compile(node.step, sc, NAT) if node.step is not None else (lambda fr: 1)
        return lambda fr: LeanRange(int(start(fr)), int(stop(fr)), int(step(fr)))

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
        if h == "List":
            return lambda fr: ()
        if h == "Array":
            empty = Arr(())
            return lambda fr: empty
        if h == "Subarray":
            return lambda fr: LeanSubarray(Arr(()), 0, 0)
        if h in ("Std.HashMap", "HashMap"):
            return lambda fr: LeanHashMap()
        if h in ("Std.HashSet", "HashSet"):
            return lambda fr: LeanHashSet()
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

    def c_DotIdent(self, node: A.DotIdent, sc: Scope, expected: LeanType | None) -> Closure:
        return self._dot_ident(node, node.name, [], sc, expected)

    def _dot_ident(self, node: A.Node, name: str, args: list[A.Node], sc: Scope, expected: LeanType | None) -> Closure:
        h = head(expected)
        if h is None:
            if name in ("some", "none"):
                h = "Option"
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
                return lambda fr: fr[slot]
            target = self._tail_target
            if (target is not None and target.key == slot and id(node) in target.calls
                    and len(args) == target.nargs and not any(isinstance(a, A.NamedArg) for a in args)):
                # a `let rec` function calling itself in tail position (the slot is its name's)
                target.used = True
                pts = _param_types(v[1], len(args))
                cs = [self._arg(a, sc, t if t is not None else UNSURE) for a, t in zip(args, pts)]
                return lambda fr: TailCall(tuple([c(fr) for c in cs]))
            return self._apply_value(node, lambda fr: fr[slot], args, sc, _param_types(v[1], len(args)))
        parts = name.split(".")
        if parts[0] in sc.vars and len(parts) > 1:
            slot, t = sc.vars[parts[0]]
            base: Closure = lambda fr: fr[slot]  # noqa: E731
            for i, f in enumerate(parts[1:]):
                last = i == len(parts) - 2
                base = self._method(node, base, t, f, args if last else [], sc, expected if last else None)
                t = self._field_type(t, f, args if last else [], sc)
            return base
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
            return lambda fr: True
        if name in ("false", "False", "Bool.false") and not args:
            return lambda fr: False
        if name in ("none", "Option.none") and not args:
            return lambda fr: NONE
        if name in ("some", "Option.some") and len(args) == 1:
            et = elem_type(expected) if head(expected) == "Option" else None
            c = self.compile(args[0], sc, et)
            return lambda fr: Some(c(fr))
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
            # do blocks compile in) it is `v`. Anywhere else the monad is not known here.
            if head(expected) == "Option":
                c = self.compile(args[0], sc, elem_type(expected))
                return lambda fr: Some(c(fr))
            if sc.ctx.do_depth > 0 and head(expected) not in ("Except", "IO", "StateM", "ReaderM", "EStateM", "List", "Array"):
                return self.compile(args[0], sc, expected)
            raise unsupported(node, "pure", "outside an Id do block")
        if name == "panic!" or name == "unreachable!":
            raise unsupported(node, name)
        if name in ("dbg_trace", "dbgTrace"):
            raise unsupported(node, name)
        if name in ("Nat.succ",) and len(args) == 1:
            c = self.compile(args[0], sc, NAT)
            return lambda fr: Nat(c(fr) + 1)
        if name in ("ite",) and len(args) == 3:
            return self._if(node, args[0], args[1], args[2], sc, expected)
        if name in ("Int.ofNat",) and len(args) == 1:
            c = self.compile(args[0], sc, NAT)
            return lambda fr: int(c(fr))
        if name in ("Int.toNat",) and len(args) == 1:
            c = self.compile(args[0], sc, INT)
            return lambda fr: Nat(max(0, int(c(fr))))
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
                return lambda fr: Ctor(cname, tuple(c(fr) for c in cs))
            if not cs:
                if n == 0:
                    v = Ctor(cname, ())
                    return lambda fr: v
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
            return lambda fr: Struct(sname, tuple(zip(fnames, (c(fr) for c in cs))))
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
            return lambda fr: TailCall(tuple([c(fr) for c in cs]))
        if len(cs) == nreal and not extra:
            if nreal == 0:
                return lambda fr: get()()
            if nreal == 1:
                c0 = cs[0]
                return lambda fr: get()(c0(fr))
            if nreal == 2:
                c0, c1 = cs
                return lambda fr: get()(c0(fr), c1(fr))
            return lambda fr: get()(*[c(fr) for c in cs])
        if extra:
            return lambda fr: get()(*[c(fr) for c in cs])(*[c(fr) for c in extra])
        # partial application: a function value
        return lambda fr: Partial(get(), tuple(c(fr) for c in cs)) if cs else get()

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
            if b.name == "Array.ofFn" and "n" not in implicit and args:
                bound = self._fin_domain_bound(args[0], sc)
                if bound is not None:
                    size = Nat(bound)
                    implicit["n"] = lambda fr: size
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
                cs.append(lambda fr: PROOF)  # a proof argument: irrelevant, never evaluated
                continue
            pt = ptys[i] if i < len(ptys) else None
            c = self.compile(a, sc, pt)
            if pt is not None and _needs_int(pt):
                c = _coercer(c, pt)
            cs.append(c)
        if rty is None and b.typed and expected is not None and is_known(expected):
            rty = expected
        need = b.arity - OPTIONAL_ARGS.get(b.name, 0)
        fn = b.fn
        typed = b.typed
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
            if not cs:
                return lambda fr: bf
            return lambda fr: Partial(bf, tuple(c(fr) for c in cs))
        extra = cs[b.arity:]
        cs = cs[: b.arity]
        if typed:
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
        return call

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
                return _some_of(c)
        if _needs_int(pt):
            c = _coercer(c, pt)
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

    def _apply_value(self, node: A.Node, fc: Closure, args: list[A.Node], sc: Scope,
                     ptypes: list[LeanType | None] | None = None) -> Closure:
        if any(isinstance(a, A.NamedArg) for a in args):
            raise unsupported(node, "named arguments")
        pts = ptypes or [None] * len(args)
        # unknown parameter types: Lean knows them, we do not, so arithmetic arguments must not
        # silently truncate in Nat
        cs = [self._arg(a, sc, t if t is not None else UNSURE) for a, t in zip(args, pts)]
        if len(cs) == 1:
            c0 = cs[0]
            return lambda fr: fc(fr)(c0(fr))
        return lambda fr: fc(fr)(*[c(fr) for c in cs])

    def _method(self, node: A.Node, base: Closure, t: LeanType | None, field: str, args: list[A.Node], sc: Scope,
                expected: LeanType | None) -> Closure:
        """``base.field args``: projection, or generalized field notation (resolved by type)."""
        if field in ("1", "fst", "2", "snd") and (t is None or isinstance(t, ProdType)):
            first = field in ("1", "fst")
            proj: Closure = (lambda fr: _fst(base(fr), node)) if first else (lambda fr: _snd(base(fr), node))
            if args:
                return self._apply_value(node, proj, args, sc)
            return proj
        h = head(t) if t is not None else None
        if h is not None and h not in ("Function",):
            static = self._resolve_method(node, h, field, base, t, args, sc, expected)
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
                c = comp._resolve_method(node, tn, field, lambda f2: f2[objslot], rt, args, sc_obj, expected,
                                         dynamic=True)
                if c is None:
                    raise unsupported(node, f"field {field}", f"on a value of type {tn}")
                cache[tn] = c
            if len(fr) < ctx.nslots:
                fr.extend([None] * (ctx.nslots - len(fr)))
            fr[objslot] = obj
            return c(fr)

        return run

    def _resolve_method(self, node: A.Node, h: str, field: str, base: Closure, t: LeanType | None,
                        args: list[A.Node], sc: Scope, expected: LeanType | None, dynamic: bool = False) -> Closure | None:
        si = self.env.structs.get(h)
        if si is not None and si.field_index(field) >= 0:
            idx = si.field_index(field)

            def get_field(fr: list[Any]) -> Any:
                v = base(fr)
                if not isinstance(v, Struct):
                    raise unsupported(node, f"field {field}")
                return v.fields[idx][1]

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
        t = self.stype(node.term, sc)
        return self._method(node, base, t, node.field, [], sc, expected)

    def c_NamedArg(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        raise unsupported(node, "named argument")

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
        target = self._rec_target(node, len(slots), [node.body])
        saved = self._tail_target
        if target is not None:
            self._tail_target = target
        try:
            body = self.compile(node.body, inner, body_expected)
        finally:
            self._tail_target = saved
        return self._make_fn(node, slots, patterns, body, sc.ctx, loops=target is not None and target.used)

    def _rec_target(self, node: A.Node, nargs: int, bodies: list[Any]) -> TailTarget | None:
        """The tail-call target of a ``let rec`` function's lambda (None for other lambdas)."""
        slot = self._rec_lambdas.pop(id(node), None)
        if slot is None:
            return None
        calls: set[int] = set()
        for b in bodies:
            tail_apps(b, calls)
        return TailTarget(slot, nargs, calls)

    def _make_fn(self, node: A.Node, slots: list[int], patterns: list[tuple[int, Any]], body: Closure,
                 ctx: DefCtx, loops: bool = False) -> Closure:
        arity = len(slots)
        budget = self.budget

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

        def make(fr: list[Any]) -> Any:
            snap = fr[:]
            need = ctx.nslots
            if len(snap) < need:
                snap.extend([None] * (need - len(snap)))
            return Fn(arity, runner, snap)

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
        target = self._rec_target(node, n, [alt.rhs for alt in node.alts])
        saved = self._tail_target
        if target is not None:
            self._tail_target = target
        try:
            body = self.compile_match_alts(node, [lambda fr, s=s: fr[s] for s in slots], dts, node.alts, inner,
                                           t if t is not None and is_known(t) else None, is_do=False)
        finally:
            self._tail_target = saved
        return self._make_fn(node, slots, [], body, sc.ctx, loops=target is not None and target.used)

    def _cdot_lambda(self, term: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        count = [0]
        names: list[str] = []

        def rewrite(n: Any) -> Any:
            if isinstance(n, A.Cdot):
                name = f"__cdot{count[0]}"
                count[0] += 1
                names.append(name)
                return A.Ident(n.line, n.col, name)
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
                return replace(n, **changes) if changes else n
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

    # -- let / if / match -------------------------------------------------------------------
    def c_Let(self, node: A.Let, sc: Scope, expected: LeanType | None) -> Closure:
        decl = node.decl
        if node.is_have:
            return self.compile(node.body, sc, expected)
        inner, setter = self.compile_let_decl(decl, sc)
        body = self.compile(node.body, inner, expected)

        def run(fr: list[Any]) -> Any:
            setter(fr)
            return body(fr)

        return run

    def compile_let_decl(self, decl: A.LetDecl, sc: Scope) -> tuple[Scope, Callable[[list[Any]], None]]:
        if decl.pattern is not None:
            val = self.compile(decl.value, sc, None)  # type: ignore[arg-type]
            vt = self.stype(decl.value, sc) if decl.value is not None else None
            m, inner = self.compile_pattern(decl.pattern, sc, vt)

            def set_pat(fr: list[Any]) -> None:
                if not m(val(fr), fr):
                    raise unsupported(decl, "refutable let pattern")

            return inner, set_pat
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

            def set_fn(fr: list[Any]) -> None:
                fr[slot] = c(fr)

            return inner, set_fn
        ty = self.clean_type(type_of_text(decl.type_text), set()) if decl.type_text else None
        if decl.value is None:
            raise unsupported(decl, "let without value")
        val = self.compile(decl.value, sc, ty)
        if ty is not None and is_known(ty) and _needs_int(ty):
            val = _coercer(val, ty)
        st = ty if ty is not None else self.stype(decl.value, sc)
        inner, slot = sc.bind(decl.name or "_", st)

        def set_val(fr: list[Any]) -> None:
            fr[slot] = val(fr)

        return inner, set_val

    def c_LetRec(self, node: A.LetRec, sc: Scope, expected: LeanType | None) -> Closure:
        inner, setter = self.compile_let_rec(node.decls, sc)
        body = self.compile(node.body, inner, expected)

        def run(fr: list[Any]) -> Any:
            setter(fr)
            return body(fr)

        return run

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

    def compile_let_rec(self, decls: list[A.LetDecl], sc: Scope) -> tuple[Scope, Callable[[list[Any]], None]]:
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
        slot_of = {decl.name: inner.vars[decl.name][0] for decl in decls if decl.name is not None}
        makers = []
        for decl, ft in zip(decls, types):
            explicit = [b for b in decl.binders if b.kind == "explicit"]
            if decl.alts is not None:
                if explicit:
                    lam_body: A.Node = A.LambdaMatch(decl.line, decl.col, decl.alts)
                    lam: A.Node = A.Lambda(decl.line, decl.col, explicit, lam_body)
                else:
                    lam = A.LambdaMatch(decl.line, decl.col, decl.alts)
            elif not explicit:
                if decl.value is None:
                    raise unsupported(decl, "let rec without a value")
                lam = decl.value
            else:
                lam = A.Lambda(decl.line, decl.col, explicit, decl.value)  # type: ignore[arg-type]
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

        return inner, setter

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
                t, e = _coercer(t, INT), _coercer(e, INT)

        def run(fr: list[Any]) -> Any:
            return t(fr) if c(fr) else e(fr)

        return run

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
        if any(node.hyps):
            pass
        dcs = [self.compile(d, sc, None) for d in node.discrs]
        dts = [self.stype(d, sc) for d in node.discrs]
        inner = sc
        slots = []
        for k in range(len(dcs)):
            inner, slot = inner.bind(f"_m{node.line}_{node.col}_{k}", dts[k])
            slots.append(slot)
        body = self.compile_match_alts(node, [lambda fr, s=s: fr[s] for s in slots], dts, node.alts, inner, expected,
                                       is_do=False)

        def run(fr: list[Any]) -> Any:
            for s, c in zip(slots, dcs):
                fr[s] = c(fr)
            return body(fr)

        return run

    def compile_match_alts(self, node: A.Node, getters: list[Closure], dtypes: list[LeanType | None],
                           alts: list[A.MatchAlt], sc: Scope, expected: LeanType | None, is_do: bool) -> Closure:
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

        return run

    # -- patterns ---------------------------------------------------------------------------
    def compile_pattern(self, p: A.Node, sc: Scope, ty: LeanType | None) -> tuple[Callable[[Any, list[Any]], bool], Scope]:
        if isinstance(p, A.Paren):
            return self.compile_pattern(p.term, sc, ty)
        if isinstance(p, A.Hole):
            return (lambda v, fr: True), sc
        if isinstance(p, A.Ident):
            name = p.name
            if name in ("none", "Option.none") or (name == "none"):
                return (lambda v, fr: v is NONE), sc
            if name in ("true",):
                return (lambda v, fr: v is True), sc
            if name in ("false",):
                return (lambda v, fr: v is False), sc
            if name in ("List.nil",):
                return (lambda v, fr: len(v) == 0), sc
            ci = self._pattern_ctor(name, ty)
            if ci is not None:
                cname = ci
                return (lambda v, fr: isinstance(v, Ctor) and v.name == cname), sc
            if "." in name:
                raise unsupported(p, f"pattern {name}")
            inner, slot = sc.bind(name, ty)

            def bind(v: Any, fr: list[Any]) -> bool:
                fr[slot] = v
                return True

            return bind, inner
        if isinstance(p, A.DotIdent):
            if p.name == "none":
                return (lambda v, fr: v is NONE), sc
            if p.name == "nil":
                return (lambda v, fr: len(v) == 0), sc
            if p.name in ("true", "false"):
                bv = p.name == "true"
                return (lambda v, fr: v is bv), sc
            ci = self._pattern_ctor(p.name, ty)
            if ci is not None:
                cname = ci
                return (lambda v, fr: isinstance(v, Ctor) and v.name == cname), sc
            raise unsupported(p, f"pattern .{p.name}")
        if isinstance(p, A.NumLit):
            n = p.value
            return (lambda v, fr: v == n and not isinstance(v, bool)), sc
        if isinstance(p, A.UnOp) and p.op == "-" and isinstance(p.arg, A.NumLit):
            n = -p.arg.value
            return (lambda v, fr: v == n), sc
        if isinstance(p, A.StrLit):
            s = p.value
            return (lambda v, fr: isinstance(v, str) and not isinstance(v, Char) and v == s), sc
        if isinstance(p, A.CharLit):
            ch = p.value
            return (lambda v, fr: v == ch), sc
        if isinstance(p, A.ListLit) or isinstance(p, A.ArrayLit):
            et = elem_type(ty)
            ms = []
            inner = sc
            for item in p.items:
                m, inner = self.compile_pattern(item, inner, et)
                ms.append(m)
            n = len(ms)
            is_arr = isinstance(p, A.ArrayLit)

            def match_list(v: Any, fr: list[Any]) -> bool:
                if not isinstance(v, tuple) or len(v) != n or (is_arr and not isinstance(v, Arr)):
                    return False
                return all(m(x, fr) for m, x in zip(ms, v))

            return match_list, inner
        if isinstance(p, A.BinOp) and p.op == "::":
            et = elem_type(ty) if head(ty) == "List" else None
            mh, inner = self.compile_pattern(p.lhs, sc, et)
            mt, inner = self.compile_pattern(p.rhs, inner, ty)

            def match_cons(v: Any, fr: list[Any]) -> bool:
                if not isinstance(v, tuple) or not v:
                    return False
                return mh(v[0], fr) and mt(v[1:], fr)

            return match_cons, inner
        if isinstance(p, A.BinOp) and p.op == "+" and isinstance(p.rhs, A.NumLit):
            k = p.rhs.value
            mn, inner = self.compile_pattern(p.lhs, sc, NAT)

            def match_succ(v: Any, fr: list[Any]) -> bool:
                if not isinstance(v, int) or v < k:
                    return False
                return mn(Nat(v - k), fr)

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
            return match_prod, inner
        if isinstance(p, A.App):
            fn = p.fn
            fname = fn.name if isinstance(fn, (A.Ident, A.DotIdent)) else None
            if fname in ("some", "Option.some") and len(p.args) == 1:
                m, inner = self.compile_pattern(p.args[0], sc, elem_type(ty) if head(ty) == "Option" else None)
                return (lambda v, fr: isinstance(v, Some) and m(v.value, fr)), inner
            if fname in ("Nat.succ", "succ") and len(p.args) == 1:
                m, inner = self.compile_pattern(p.args[0], sc, NAT)
                return (lambda v, fr: isinstance(v, int) and v > 0 and m(Nat(v - 1), fr)), inner
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

                    return match_ctor, inner
        if isinstance(p, A.Ascription):
            return self.compile_pattern(p.term, sc, type_of_text(p.type_text) or ty)
        raise unsupported(p, "pattern", type(p).__name__)

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
            return lambda fr: Struct(h, tuple(zip(fnames, (c(fr) for c in cs))))
        if h == "Prod" or (expected is None and len(node.items) >= 2):
            if expected is None:
                raise unsupported(node, "anonymous constructor", "expected type unknown")
            return self.c_Tuple(A.Tuple(node.line, node.col, node.items), sc, expected)
        raise unsupported(node, "anonymous constructor", f"at type {expected}")

    def c_StructInst(self, node: A.StructInst, sc: Scope, expected: LeanType | None) -> Closure:
        ty = self.clean_type(type_of_text(node.type_text), set()) if node.type_text else expected
        h = head(ty)
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

        return run

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
            def get_opt(fr: list[Any]) -> Any:
                c = coll(fr)
                i = idx(fr)
                if isinstance(c, LeanSubarray):
                    c = c.items()  # `GetElem (Subarray α) Nat α`: index `i` is `array[start + i]`
                if isinstance(c, tuple):
                    if 0 <= i < len(c):
                        return Some(c[i])
                    return NONE
                if isinstance(c, LeanHashMap):
                    return BUILTINS["Std.HashMap.getElem?"].fn(c, i)
                raise unsupported(node, "xs[i]?", f"on {type_name_of(c)}")

            return get_opt

        def get(fr: list[Any]) -> Any:
            c = coll(fr)
            i = idx(fr)
            if isinstance(c, LeanSubarray):
                c = c.items()
            if isinstance(c, tuple):
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

        return get

    # -- operators --------------------------------------------------------------------------
    def c_UnOp(self, node: A.UnOp, sc: Scope, expected: LeanType | None) -> Closure:
        op = node.op
        if op == "-":
            return self._arith_tree(node, sc, expected)
        if op in ("¬", "!"):
            c = self.compile(node.arg, sc, PROP if op == "¬" else BOOL)
            return lambda fr: not c(fr)
        if op == "↑":
            return self._coe(node, node.arg, sc, expected)
        raise unsupported(node, f"operator {op}")

    def _coe(self, node: A.Node, arg: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        c = self.compile(arg, sc, None)
        if expected is None or not is_known(expected):
            raise unsupported(node, "↑ coercion", "target type unknown")
        h = head(expected)
        if h == "Int":
            return lambda fr: int(c(fr))
        if h == "Nat":
            def to_nat(fr: list[Any]) -> Any:
                v = c(fr)
                if isinstance(v, Nat):
                    return v
                raise unsupported(node, "↑ coercion", f"{type_name_of(v)} to Nat")
            return to_nat
        if h == "Float":
            raise unsupported(node, "↑ coercion to Float")
        if h == "Option":
            return lambda fr: Some(c(fr))
        raise unsupported(node, "↑ coercion", f"to {expected}")

    def c_BinOp(self, node: A.BinOp, sc: Scope, expected: LeanType | None) -> Closure:
        op = node.op
        if op in ARITH_OPS or op == "^":
            return self._arith_tree(node, sc, expected)
        if op in REL_OPS:
            return self._relation(node, sc)
        if op == "∧":
            a, b = self.compile(node.lhs, sc, PROP), self.compile(node.rhs, sc, PROP)
            return lambda fr: a(fr) and b(fr)
        if op == "∨":
            a, b = self.compile(node.lhs, sc, PROP), self.compile(node.rhs, sc, PROP)
            return lambda fr: a(fr) or b(fr)
        if op == "&&":
            a, b = self.compile(node.lhs, sc, BOOL), self.compile(node.rhs, sc, BOOL)
            return lambda fr: a(fr) and b(fr)
        if op == "||":
            a, b = self.compile(node.lhs, sc, BOOL), self.compile(node.rhs, sc, BOOL)
            return lambda fr: a(fr) or b(fr)
        if op == "→":
            lhs = node.lhs
            inner = sc
            if isinstance(lhs, A.Paren) and isinstance(lhs.term, A.Ascription) and isinstance(lhs.term.term, A.Ident):
                inner, _ = sc.bind(lhs.term.term.name, None)
                lhs = lhs.term.type
            elif isinstance(lhs, A.Ascription) and isinstance(lhs.term, A.Ident):
                inner, _ = sc.bind(lhs.term.name, None)
                lhs = lhs.type
            a, b = self.compile(lhs, sc, PROP), self.compile(node.rhs, inner, PROP)
            return lambda fr: (not a(fr)) or b(fr)
        if op == "↔":
            a, b = self.compile(node.lhs, sc, PROP), self.compile(node.rhs, sc, PROP)
            return lambda fr: a(fr) == b(fr)
        if op in ("∈", "∉"):
            ct = self.stype(node.rhs, sc)
            x = self.compile(node.lhs, sc, elem_type(ct))
            coll = self.compile(node.rhs, sc, None)
            neg = op == "∉"

            def member(fr: list[Any]) -> Any:
                c = coll(fr)
                v = x(fr)
                if isinstance(c, tuple):
                    # without Float or function leaves Python's `==` is Lean's decidable equality
                    r = beq_member(v, c) if eq_is_beq(v) else any(_eq(v, y) for y in c)
                elif isinstance(c, str):
                    raise unsupported(node, "∈ on String")
                elif isinstance(c, LeanHashSet):
                    r = BUILTINS["Std.HashSet.contains"].fn(c, v)
                else:
                    raise unsupported(node, "∈", f"on {type_name_of(c)}")
                return (not r) if neg else r

            return member
        if op == "++":
            et = expected if expected is not None and is_known(expected) else (self.stype(node.lhs, sc) or self.stype(node.rhs, sc))
            a, b = self.compile(node.lhs, sc, et), self.compile(node.rhs, sc, et)

            def append(fr: list[Any]) -> Any:
                x, y = a(fr), b(fr)
                kind = type_name_of(x)
                f = ARITH.get(("++", kind))
                if f is None:
                    raise unsupported(node, "++", f"on {kind}")
                return f(x, y)

            return append
        if op == "::":
            return self._cons(node, node.lhs, node.rhs, sc, expected)
        if op == "∣":
            a = self.compile(node.lhs, sc, None)
            b = self.compile(node.rhs, sc, None)

            def dvd(fr: list[Any]) -> Any:
                x, y = a(fr), b(fr)
                if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool):
                    raise unsupported(node, "∣")
                if x == 0:
                    return y == 0
                return y % x == 0

            return dvd
        if op == "∘":
            f, g = self.compile(node.lhs, sc, None), self.compile(node.rhs, sc, None)
            return lambda fr: _compose(f(fr), g(fr))
        if op == "|>":
            return self.compile(A.App(node.line, node.col, node.rhs, [node.lhs]), sc, expected)
        if op in ("<|", "$"):
            return self.compile(A.App(node.line, node.col, node.lhs, [node.rhs]), sc, expected)
        raise unsupported(node, f"operator {op}")

    def _cons(self, node: A.Node, lhs: A.Node, rhs: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        lt = expected if head(expected) == "List" else self.stype(rhs, sc)
        et = elem_type(lt) if head(lt) == "List" else self.stype(lhs, sc)
        h = self.compile(lhs, sc, et)
        t = self.compile(rhs, sc, lt if head(lt) == "List" else None)
        if et is not None and _needs_int(et):
            h = _coercer(h, et)
        return lambda fr: (h(fr),) + t(fr)

    # binop% trees -----------------------------------------------------------------------
    def _flatten(self, node: A.Node, leaves: list[A.Node]) -> Any:
        if isinstance(node, A.Paren) and not _has_cdot(node.term):
            return self._flatten(node.term, leaves)
        if isinstance(node, A.BinOp) and node.op in ARITH_OPS:
            return ("bin", node.op, self._flatten(node.lhs, leaves), self._flatten(node.rhs, leaves), node)
        if isinstance(node, A.BinOp) and node.op == "^":
            return ("pow", self._flatten(node.lhs, leaves), node.rhs, node)
        if isinstance(node, A.UnOp) and node.op == "-":
            return ("neg", self._flatten(node.arg, leaves), node)
        if isinstance(node, A.NumLit):
            return ("num", node.value)
        if isinstance(node, A.UnOp) and node.op == "↑":
            leaves.append(node.arg)
            return ("coe", len(leaves) - 1)
        leaves.append(node)
        return ("leaf", len(leaves) - 1)

    def _arith_tree(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        leaves: list[A.Node] = []
        tree = self._flatten(node, leaves)
        exp = expected if expected is not None and is_known(expected) and head(expected) not in ("Prop",) else None
        return self._tree_closure([tree], leaves, sc, exp, node, unsure=expected is UNSURE)[0]

    def _tree_closure(self, trees: list[Any], leaves: list[A.Node], sc: Scope, exp: LeanType | None,
                      node: A.Node, unsure: bool = False) -> list[Closure]:
        stypes = [self.stype(lf, sc) for lf in leaves]
        if unsure:
            stypes.append(None)
        coe_idx = set()

        def collect_coe(t: Any) -> None:
            if t[0] == "coe":
                coe_idx.add(t[1])
            elif t[0] == "bin":
                collect_coe(t[2])
                collect_coe(t[3])
            elif t[0] in ("neg",):
                collect_coe(t[1])
            elif t[0] == "pow":
                collect_coe(t[1])

        for t in trees:
            collect_coe(t)
        known = [t for i, t in enumerate(stypes) if i not in coe_idx]
        static_ok = all(t is not None and is_known(t) for t in known)
        static_T: LeanType | None = None
        if static_ok:
            m, bad = max_type([*known, *([exp] if exp is not None else [])])
            if bad:
                static_ok = False
            else:
                static_T = m if m is not None else NAT
        leaf_cs = [self.compile(lf, sc, static_T if (static_ok and i in coe_idx) else None) for i, lf in enumerate(leaves)]
        if static_ok and static_T is not None and head(static_T) in ("Int",):
            leaf_cs = [_coercer(c, static_T) if stypes[i] != static_T else c for i, c in enumerate(leaf_cs)]
        comp = self
        exp_name = head(exp) if exp is not None else None

        def build(t: Any) -> Callable[[list[Any], str], Any]:
            kind = t[0]
            if kind == "num":
                val = t[1]

                def num(fr: list[Any], T: str, val: int = val) -> Any:
                    return _numeral(val, T, node)

                return num
            if kind in ("leaf", "coe"):
                c = leaf_cs[t[1]]

                def leaf(fr: list[Any], T: str, c: Closure = c) -> Any:
                    v = c(fr)
                    if T == "Int" and isinstance(v, Nat):
                        return int(v)
                    return v

                return leaf
            if kind == "neg":
                sub = build(t[1])
                nnode = t[2]

                def neg(fr: list[Any], T: str) -> Any:
                    f = NEG.get(T)
                    if f is None:
                        raise unsupported(nnode, "negation", f"at type {T}")
                    return f(sub(fr, T))

                return neg
            if kind == "pow":
                base = build(t[1])
                expo = comp.compile(t[2], sc, None)
                pnode = t[3]

                def power(fr: list[Any], T: str) -> Any:
                    return _power_at(base(fr, T), expo(fr), T, pnode)

                return power
            op = t[1]
            lhs, rhs = build(t[2]), build(t[3])
            bnode = t[4]

            def binop(fr: list[Any], T: str, op: str = op) -> Any:
                f = ARITH.get((op, T))
                if f is None:
                    raise unsupported(bnode, f"operator {op}", f"at type {T}")
                return f(lhs(fr, T), rhs(fr, T))

            return binop

        if static_ok:
            # The type is known now: numerals, operator lookups and coercions are settled once,
            # here, instead of on every evaluation (this is the evaluator's hottest path).
            return [self._static_tree(t, head(static_T) or "Nat", leaf_cs, sc, node) for t in trees]
        builders = [build(t) for t in trees]

        # dynamic: the run-time types of the leaves decide the type (as binop% would statically)
        unknown_leaf = [i for i, t in enumerate(stypes) if (t is None or not is_known(t)) and i not in coe_idx]
        if unsure:
            unknown_leaf.append(-1)

        def run_dynamic(fr: list[Any], b: Callable[[list[Any], str], Any]) -> Any:
            names = set()
            for i, c in enumerate(leaf_cs):
                if i in coe_idx:
                    continue
                names.add(type_name_of(c(fr)))
            if exp_name is not None:
                names.add(exp_name)
            if len(names) == 0:
                T = "Nat"
            elif len(names) == 1:
                T = next(iter(names))
            elif names == {"Nat", "Int"}:
                T = "Int"
            else:
                raise unsupported(node, "arithmetic", f"mixed types {sorted(names)}")
            if T == "Nat" and unknown_leaf:
                return _checked_nat(b, fr, node)
            return b(fr, T)

        return [lambda fr, b=b: run_dynamic(fr, b) for b in builders]

    def _static_tree(self, t: Any, T: str, leaf_cs: list[Closure], sc: Scope, node: A.Node) -> Closure:
        """A binop% tree whose type ``T`` is known statically, as one closure per node."""
        kind = t[0]
        if kind == "num":
            try:
                value = _numeral(t[1], T, node)
            except Unsupported as exc:
                return _raiser(exc)
            return lambda fr: value
        if kind in ("leaf", "coe"):
            c = leaf_cs[t[1]]
            if T != "Int":
                return c

            def to_int(fr: list[Any]) -> Any:
                v = c(fr)
                return int(v) if isinstance(v, Nat) else v

            return to_int
        if kind == "neg":
            sub = self._static_tree(t[1], T, leaf_cs, sc, node)
            negate = NEG.get(T)
            if negate is None:
                return _raiser(unsupported(t[2], "negation", f"at type {T}"))
            return lambda fr: negate(sub(fr))
        if kind == "pow":
            base = self._static_tree(t[1], T, leaf_cs, sc, node)
            exponent, pnode = self.compile(t[2], sc, None), t[3]
            return lambda fr: _power_at(base(fr), exponent(fr), T, pnode)
        op, bnode = t[1], t[4]
        f = ARITH.get((op, T))
        if f is None:
            return _raiser(unsupported(bnode, f"operator {op}", f"at type {T}"))
        lhs, rhs = self._static_tree(t[2], T, leaf_cs, sc, node), self._static_tree(t[3], T, leaf_cs, sc, node)
        return lambda fr: f(lhs(fr), rhs(fr))

    def _relation(self, node: A.BinOp, sc: Scope) -> Closure:
        op = node.op
        leaves: list[A.Node] = []
        lt = self._flatten(node.lhs, leaves)
        rt = self._flatten(node.rhs, leaves)
        if lt[0] in ("leaf",) and rt[0] in ("leaf",):
            # no arithmetic and no numerals: compile both sides plainly (with mutual expected types)
            lty, rty = self.stype(node.lhs, sc), self.stype(node.rhs, sc)
            a = self.compile(node.lhs, sc, rty if lty is None else None)
            b = self.compile(node.rhs, sc, lty if rty is None else None)
            if lty is not None and rty is not None and lty != rty:
                m, bad = max_type([lty, rty])
                if not bad and m is not None and head(m) == "Int":
                    a, b = _coercer(a, m), _coercer(b, m)
                elif not bad and m is not None and head(m) == "Option":
                    # `x = some y` with `x : α` elaborates as `↑x = some y`, i.e. `some x = some y`
                    if lty != m:
                        a = _some_of(a)
                    if rty != m:
                        b = _some_of(b)
        else:
            a, b = self._tree_closure([lt, rt], leaves, sc, None, node)
        overridden = self._user_instance_types(op)
        if overridden:
            a, b = _refuse_user_instance(a, overridden, op, node), _refuse_user_instance(b, overridden, op, node)
        return _rel(op, a, b, node)

    def _user_instance_types(self, op: str) -> frozenset[str]:
        """Types for which the task declares its own instance of the class behind ``op``.

        Comparisons use the structural instances of the runtime; a user instance could mean
        anything, so a comparison that reaches a value of such a type is refused, never guessed.
        """
        classes = _RELATION_CLASSES.get(op, ())
        return frozenset(
            inst.type_name for inst in self.env.instances if inst.class_name in classes and inst.type_name
        )

    # -- quantifiers ------------------------------------------------------------------------
    def c_Quant(self, node: A.Quant, sc: Scope, expected: LeanType | None) -> Closure:
        is_all = node.kind == "forall"
        vty = self.clean_type(type_of_text(node.type_text), set()) if node.type_text else None
        name = node.name
        if node.bound is not None:
            bop, bterm = node.bound
            inner, slot = sc.bind(name, vty)
            if bop in ("∈",):
                coll = self.compile(bterm, sc, None)
                ct = self.stype(bterm, sc)
                if vty is None:
                    inner, slot = sc.bind(name, elem_type(ct))
                body = self._quant_body(node, inner)

                def run_mem(fr: list[Any]) -> Any:
                    xs = _members(coll(fr), node)
                    for x in xs:
                        fr[slot] = x
                        if body(fr) != is_all:
                            return not is_all
                    return is_all

                return run_mem
            if bop in ("<", "≤"):
                bt = self.stype(bterm, sc)
                if vty is None:
                    vty = bt
                    inner, slot = sc.bind(name, vty)
                if vty is not None and head(vty) != "Nat":
                    raise Undecidable(f"quantifier over {vty} bounded above only at {node.line}:{node.col}")
                bound = self.compile(bterm, sc, vty or NAT)
                body = self._quant_body(node, inner)
                incl = 1 if bop == "≤" else 0

                def run_lt(fr: list[Any]) -> Any:
                    n = bound(fr)
                    if not isinstance(n, Nat):
                        raise Undecidable(f"bounded quantifier over {type_name_of(n)} at {node.line}:{node.col}")
                    for i in range(n + incl):
                        fr[slot] = Nat(i)
                        if body(fr) != is_all:
                            return not is_all
                    return is_all

                return run_lt
            raise Undecidable(f"quantifier bound {bop} at {node.line}:{node.col}")
        # unbounded binder: look for a bound among hypotheses of the body
        return self._quant_search(node, sc, vty)

    def _quant_body(self, node: A.Quant, inner: Scope) -> Closure:
        return self.compile(node.body, inner, PROP)

    def _quant_search(self, node: A.Quant, sc: Scope, vty: LeanType | None) -> Closure:
        """``∀ i, i < n → P``, ``∀ i, lo ≤ i → i < n → P``, ``∃ i, i < n ∧ P``, ``∃ x, x ∈ xs ∧ P``.

        These are decidable in Lean (``Nat.decidableBallLT``, ``List.decidableBEx``...). We look
        for an upper bound (or a membership) among the hypotheses (for ``∀``) or conjuncts (for
        ``∃``); every hypothesis is still checked per value, so iterating over the bounded range
        is equivalent to the quantifier over the whole type."""
        is_all = node.kind == "forall"
        name = node.name
        sep = "→" if is_all else "∧"
        hyps: list[A.Node] = []
        inner_vars: set[str] = set()
        inner_upper: dict[str, A.Node] = {}

        def gather(body: A.Node) -> None:
            # descend through the `→` (∀) / `∧` (∃) chain and through nested quantifiers of the
            # same kind: a hypothesis there that fails for every value outside a range makes the
            # whole body trivially true (∀) / false (∃) outside it
            while True:
                b = body
                while isinstance(b, A.Paren):
                    b = b.term
                if isinstance(b, A.Quant) and b.kind == node.kind and b.pattern is None:
                    inner_vars.add(b.name)
                    if b.bound is not None and b.bound[0] in ("<", "≤"):
                        inner_upper[b.name] = b.bound[1]
                    elif b.bound is not None and b.bound[0] == "∈":
                        pass
                    body = b.body
                    continue
                if isinstance(b, A.BinOp) and b.op == sep:
                    h = b.lhs
                    while isinstance(h, A.Paren):
                        h = h.term
                    if isinstance(h, A.Ascription) and isinstance(h.term, A.Ident):
                        h = h.type
                    hyps.extend(_split_and(h))
                    body = b.rhs
                    continue
                if not is_all and isinstance(b, A.BinOp) and b.op == "∧":
                    pass
                break

        gather(node.body)
        for h in hyps:
            # inner variables' own upper bounds, for chains like `i < j → j < n`
            if isinstance(h, A.BinOp):
                for v in inner_vars:
                    if v in inner_upper:
                        continue
                    if _is_var(h.lhs, v) and h.op in ("<", "≤") and not _mentions_any(h.rhs, inner_vars | {name}):
                        inner_upper[v] = h.rhs
                    elif _is_var(h.rhs, v) and h.op in (">", "≥") and not _mentions_any(h.lhs, inner_vars | {name}):
                        inner_upper[v] = h.lhs

        def closed(e: A.Node) -> bool:
            return not _mentions(e, name) and not _mentions_any(e, inner_vars)

        def via_inner(e: A.Node) -> A.Node | None:
            # `i < j` with `j` bounded by `u`: `i ≤ u` (a looser bound is still exact, see above)
            e0 = e
            while isinstance(e0, A.Paren):
                e0 = e0.term
            if isinstance(e0, A.Ident) and e0.name in inner_upper:
                u = inner_upper[e0.name]
                if closed(u):
                    return u
            return None

        upper: A.Node | None = None
        upper_incl = 0
        member: A.Node | None = None
        lower: A.Node | None = None
        lower_incl = 0
        for h in hyps:
            if not isinstance(h, A.BinOp):
                continue
            lhs_is = _is_var(h.lhs, name)
            rhs_is = _is_var(h.rhs, name)
            if h.op == "∈" and lhs_is and closed(h.rhs):
                member = member or h.rhs
            cand: tuple[A.Node, int] | None = None
            if lhs_is and h.op in ("<", "≤"):
                cand = (h.rhs, 1 if h.op == "≤" else 0)
            elif rhs_is and h.op in (">", "≥"):
                cand = (h.lhs, 1 if h.op == "≥" else 0)
            elif h.op in ("<", "≤") and _is_nat_sum_with(h.lhs, name, self, sc, vty):
                # `i + k ≤ n` with `i k : Nat` bounds `i ≤ n`
                cand = (h.rhs, 1)
            if cand is not None and upper is None:
                if closed(cand[0]):
                    upper, upper_incl = cand
                else:
                    u = via_inner(cand[0])
                    if u is not None:
                        upper, upper_incl = u, 1
            if rhs_is and h.op in ("<", "≤") and closed(h.lhs) and lower is None:
                lower, lower_incl = h.lhs, (0 if h.op == "≤" else 1)
            if lhs_is and h.op in (">", "≥") and closed(h.rhs) and lower is None:
                lower, lower_incl = h.rhs, (0 if h.op == "≥" else 1)
        if member is None and upper is None and vty is None and _used_as_exponent(node.body, name):
            # `b ^ i`: Lean's `HPow` instances for Nat/Int bases take a `Nat` exponent, so an
            # unannotated binder used as an exponent elaborates to `Nat`
            vty = NAT
        q_scope, _ = self._bind_q(sc, name, vty, member, upper)
        inner_slot = self._last_slot
        whole = self.compile(node.body, q_scope, PROP)
        if member is not None:
            coll = self.compile(member, sc, None)

            def run_mem(fr: list[Any]) -> Any:
                for x in _members(coll(fr), node):
                    fr[inner_slot] = x
                    if whole(fr) != is_all:
                        return not is_all
                return is_all

            return run_mem
        if upper is None:
            if vty is not None and head(vty) in ("Nat", "Int"):
                fallback = self._witness_search(node, inner_slot, whole, head(vty) == "Nat")
            else:
                message = f"unbounded quantifier over {name} at {node.line}:{node.col}"

                def fallback(fr: list[Any]) -> Any:
                    raise Undecidable(message)
            if node.pattern is None:
                finite = self._finite_candidates(node, sc, q_scope, vty)
                if finite is not None:
                    return self._run_candidates(finite, inner_slot, whole, is_all, fallback)
            return fallback
        ut = self.stype(upper, sc)
        vt = vty or ut
        if vt is not None and head(vt) not in ("Nat", "Int"):
            raise Undecidable(f"quantifier over {vt} at {node.line}:{node.col}")
        up = self.compile(upper, sc, vt)
        lo = self.compile(lower, sc, vt) if lower is not None else None
        declared_nat = vty is not None and head(vty) == "Nat"
        declared_int = vty is not None and head(vty) == "Int"

        def run_range(fr: list[Any]) -> Any:
            n = up(fr)
            if isinstance(n, bool) or not isinstance(n, int):
                raise Undecidable(f"quantifier bound of type {type_name_of(n)}")
            is_nat = declared_nat or (not declared_int and isinstance(n, Nat))
            if is_nat:
                start = 0
                if lo is not None:
                    start = max(0, int(lo(fr)) + lower_incl)
                mk: Any = Nat
            else:
                if lo is None:
                    # infinitely many integers below the bound: only a witness search can answer
                    return int_search(fr)
                start = int(lo(fr)) + lower_incl
                mk = int
            stop = int(n) + upper_incl
            b = comp_budget
            for i in range(start, stop):
                b.tick -= 1
                if b.tick < 0:
                    b.refill()
                fr[inner_slot] = mk(i)
                if whole(fr) != is_all:
                    return not is_all
            return is_all

        comp_budget = self.budget
        int_search = self._witness_search(node, inner_slot, whole, False)
        return run_range

    # -- unbounded quantifiers with a finite set of candidates -------------------------------
    def _run_candidates(self, finite: Callable[[list[Any]], list[Any] | None], slot: int, whole: Closure,
                        is_all: bool, fallback: Closure) -> Closure:
        budget = self.budget

        def run_finite(fr: list[Any]) -> Any:
            candidates = finite(fr)
            if candidates is None:
                return fallback(fr)
            for value in candidates:
                budget.tick -= 1
                if budget.tick < 0:
                    budget.refill()
                fr[slot] = value
                if whole(fr) != is_all:
                    return not is_all
            return is_all

        return run_finite

    def _finite_candidates(self, node: A.Quant, sc: Scope, q_scope: Scope,
                           vty: LeanType | None) -> Callable[[list[Any]], list[Any] | None] | None:
        """Sound reduction of ``∃ x, P x`` / ``∀ x, P x`` over an infinite type to finitely many x.

        Each rule below gives, at run time, a finite list ``C`` of values such that *every*
        witness of the ``∃`` (every counterexample of the ``∀``, i.e. every witness of ``¬ P``)
        lies in ``C``. Then ``∃ x, P x`` is ``∃ x ∈ C, P x`` and ``∀ x, P x`` is ``∀ x ∈ C, P x``,
        exactly, and the body is evaluated on ``C`` only (the body itself is still checked, so a
        rule only has to be right about what it excludes). The rules read *falsifier conjuncts*:
        for ``∃`` the conjuncts of the body, which every witness makes true; for ``∀`` the
        hypotheses of its ``→`` chain and, when the conclusion is ``¬ Q`` or ``a ≠ b``, the
        conjuncts of ``Q`` or ``a = b``, which every counterexample makes true.

        * one-point: a conjunct ``x = E`` / ``E = x`` with ``E`` free of ``x`` leaves ``C = [E]``
          (any type: equality means the value is ``E``'s);
        * linear: ``a = c * x`` (either side, either factor order) with ``x : Nat/Int`` and ``a``,
          ``c`` exact integers, ``c ≠ 0``: ``c * x = a`` has the one solution ``a / c`` when ``c``
          divides ``a`` and none otherwise (integer multiplication is exact and cancellable);
        * power: ``b ^ x = a`` (or a user definition that is exactly ``b ^ x``, see
          :func:`_is_power_def`) with ``x : Nat`` and ``|b| ≥ 2``: ``|b ^ x| = |b| ^ x`` grows
          strictly, so a solution has ``|b| ^ x ≤ |a|``;
        * a conjunct that does not mention ``x`` and is false: ``C = []``;
        * division by a power: when every occurrence of ``x : Nat`` in the body is inside terms
          ``A / b ^ x`` of type Nat or Int, with ``A ≥ 0`` and ``b ≥ 2`` exact integers: from the
          first ``k`` with ``b ^ k > A`` on, each such term is ``0`` (every Lean integer division
          of ``0 ≤ A < m`` by ``m`` is ``0``), so the body's value for ``x ≥ k`` is its value at
          ``k`` and ``C = [0..k]`` decides the quantifier.

        When no rule applies to the values at hand the quantifier falls back to the witness
        search (or stays undecidable)."""
        name = node.name
        is_all = node.kind == "forall"
        conjuncts = _falsifier_conjuncts(node.body, is_all)
        kind = head(vty) if vty is not None else None
        rules: list[Callable[[list[Any]], list[Any] | None]] = []
        for conj in conjuncts:
            c0 = conj
            while isinstance(c0, A.Paren):
                c0 = c0.term
            if not _mentions(c0, name):
                rules.append(self._rule_false_conjunct(c0, sc))
                continue
            if not (isinstance(c0, A.BinOp) and c0.op in ("=", "==")):
                continue
            for lhs, rhs in ((c0.lhs, c0.rhs), (c0.rhs, c0.lhs)):
                if _mentions(rhs, name):
                    continue
                # the arithmetic rules need the equation in Nat or Int (exact, unbounded): the
                # side free of x must be statically one of them (not Fin, UIntN, Float...)
                exact_side = isinstance(rhs, A.NumLit) or self.stype(rhs, sc) in (NAT, INT)
                if c0.op == "=" and _is_var(lhs, name):
                    rule = self._rule_one_point(rhs, sc, vty)
                    if rule is not None:
                        rules.append(rule)
                    continue
                if kind in ("Nat", "Int") and exact_side:
                    factor = _linear_factor(lhs, name)
                    if factor is not None:
                        # the equation is computed in Int when any of its leaves is an Int
                        leaves: list[A.Node] = []
                        _arith_leaves(c0.lhs, leaves)
                        _arith_leaves(c0.rhs, leaves)
                        in_int = kind == "Int" or any(
                            isinstance(leaf, A.UnOp) and leaf.op == "-" or self.stype(leaf, q_scope) == INT
                            for leaf in leaves)
                        rules.append(self._rule_linear(rhs, factor, sc, INT if in_int else NAT, kind == "Nat"))
                        continue
                if kind == "Nat" and exact_side:
                    base = self._power_base(lhs, name, sc)
                    if base is not None:
                        rules.append(self._rule_power(rhs, base, sc))
        if kind == "Nat":
            divisions: list[A.BinOp] = []
            if (_only_in_power_divisions(node.body, name, divisions) and divisions
                    and all(self._computed_in_integers(node.body, d, q_scope) for d in divisions)):
                rules.append(self._rule_power_division(divisions, sc))
        if not rules:
            return None

        def candidates(fr: list[Any]) -> list[Any] | None:
            best: list[Any] | None = None
            for rule in rules:
                try:
                    found = rule(fr)
                except (Undecidable, Unsupported):
                    continue  # a rule that cannot be evaluated here excludes nothing
                if found is not None and (best is None or len(found) < len(best)):
                    best = found
                    if not best:
                        break
            return best

        return candidates

    def _exact_int_closure(self, term: A.Node, sc: Scope, ty: LeanType | None) -> Closure:
        c = self.compile(term, sc, ty)
        return _coercer(c, ty) if ty is not None and _needs_int(ty) else c

    def _rule_false_conjunct(self, conj: A.Node, sc: Scope) -> Callable[[list[Any]], list[Any] | None]:
        c = self.compile(conj, sc, PROP)

        def rule(fr: list[Any]) -> list[Any] | None:
            try:
                value = c(fr)
            except (Undecidable, Unsupported):
                return None
            return [] if value is False else None

        return rule

    def _rule_one_point(self, term: A.Node, sc: Scope, vty: LeanType | None) -> Callable[[list[Any]], list[Any] | None] | None:
        # the binder's declared type only: an inferred one could differ from Lean's elaboration
        ty = vty
        if ty is None or not is_known(ty):
            return None
        c = self._exact_int_closure(term, sc, ty)
        is_nat = head(ty) == "Nat"

        def rule(fr: list[Any]) -> list[Any] | None:
            value = c(fr)
            if is_nat:
                if not _exact_int(value) or value < 0:
                    return None
                return [Nat(value)]
            return [value]

        return rule

    def _rule_linear(self, total: A.Node, factor: A.Node, sc: Scope, eq_type: LeanType,
                     is_nat: bool) -> Callable[[list[Any]], list[Any] | None]:
        a_c = self._exact_int_closure(total, sc, eq_type)
        c_c = self._exact_int_closure(factor, sc, eq_type)

        def rule(fr: list[Any]) -> list[Any] | None:
            a, c = a_c(fr), c_c(fr)
            if not (_exact_int(a) and _exact_int(c)) or c == 0:
                return None
            if a % c != 0:
                return []
            q = a // c  # exact, so the rounding convention does not matter
            if is_nat:
                return [Nat(q)] if q >= 0 else []
            return [int(q)]

        return rule

    def _rule_power(self, total: A.Node, base: A.Node, sc: Scope) -> Callable[[list[Any]], list[Any] | None]:
        a_c = self.compile(total, sc, None)
        b_c = self.compile(base, sc, None)

        def rule(fr: list[Any]) -> list[Any] | None:
            a, b = a_c(fr), b_c(fr)
            if not (_exact_int(a) and _exact_int(b)) or abs(b) < 2:
                return None
            out: list[Any] = []
            p = 1
            while p <= abs(a):
                out.append(Nat(len(out)))
                p *= abs(b)
            return out

        return rule

    def _rule_power_division(self, divisions: list[A.BinOp], sc: Scope) -> Callable[[list[Any]], list[Any] | None]:
        parts: list[tuple[Closure, Closure]] = []
        for d in divisions:
            num = d.lhs
            pw = d.rhs
            while isinstance(pw, A.Paren):
                pw = pw.term
            assert isinstance(pw, A.BinOp)
            parts.append((self.compile(num, sc, self.stype(num, sc)), self.compile(pw.lhs, sc, None)))

        def rule(fr: list[Any]) -> list[Any] | None:
            k_max = 0
            for num_c, base_c in parts:
                a, b = num_c(fr), base_c(fr)
                if not (_exact_int(a) and _exact_int(b)) or a < 0 or b < 2:
                    return None
                k, p = 0, 1
                while p <= a:
                    k += 1
                    p *= b
                k_max = max(k_max, k)
            return [Nat(i) for i in range(k_max + 1)]

        return rule

    def _computed_in_integers(self, body: A.Node, target: A.Node, sc: Scope) -> bool:
        """Whether the arithmetic term ``target`` inside ``body`` is computed in Nat or Int.

        Lean elaborates an arithmetic tree (``+ - * / %`` and parentheses) together with the other
        side of the relation it sits in (``binop%``), so every leaf of that relation decides the
        type. Required: ``target``'s tree is an operand of a relation, and every leaf of the
        relation is a numeral, a power of Nat/Int values, or a term statically of type Nat or Int
        (a leaf of type Rat or Float would move the division out of the integers)."""
        path = _path_to(body, target)
        if path is None:
            return False
        relation: A.BinOp | None = None
        for anc in reversed(path[:-1]):
            if isinstance(anc, A.Paren) or (isinstance(anc, A.BinOp) and anc.op in ARITH_OPS):
                continue
            if isinstance(anc, A.BinOp) and anc.op in REL_OPS:
                relation = anc
            break
        if relation is None:
            return False
        leaves: list[A.Node] = []
        _arith_leaves(relation.lhs, leaves)
        _arith_leaves(relation.rhs, leaves)
        for leaf in leaves:
            if isinstance(leaf, A.NumLit):
                continue
            if isinstance(leaf, A.BinOp) and leaf.op == "^":
                base = leaf.lhs
                while isinstance(base, A.Paren):
                    base = base.term
                if isinstance(base, A.NumLit) or self.stype(base, sc) in (NAT, INT):
                    continue
                return False
            if self.stype(leaf, sc) not in (NAT, INT):
                return False
        return True

    def _power_base(self, term: A.Node, name: str, sc: Scope) -> A.Node | None:
        """``b`` when ``term`` is ``b ^ x`` or ``f b x`` for a user ``f`` that is exactly ``b ^ x``."""
        t = term
        while isinstance(t, A.Paren):
            t = t.term
        if isinstance(t, A.BinOp) and t.op == "^" and _is_var(t.rhs, name) and not _mentions(t.lhs, name):
            return t.lhs
        if (isinstance(t, A.App) and isinstance(t.fn, A.Ident) and len(t.args) == 2
                and t.fn.name not in sc.vars and _is_var(t.args[1], name) and not _mentions(t.args[0], name)):
            d = self.find_def(t.fn.name, sc)
            if d is not None and _is_power_def(d):
                return t.args[0]
        return None

    _last_slot = 0
    #: nesting depth of running witness searches (a search inside a search's body gets fewer
    #: candidates, so nested unbounded quantifiers cost at most the product of the two limits)
    _search_depth = 0

    def _witness_search(self, node: A.Quant, slot: int, whole: Closure, is_nat: bool) -> Closure:
        """Sound partial decision of ``∃ x, P x`` / ``∀ x, P x`` over all of ``Nat`` or ``Int``.

        Lean has no ``Decidable`` instance for these, but a witness proves the ``∃`` and a
        counterexample refutes the ``∀``. Candidates are tried in a fixed order (Nat: 0, 1, 2, ...;
        Int: 0, 1, -1, 2, -2, ...); a candidate whose body is itself undecided or unsupported
        tells nothing and is skipped. Finding nothing is never an answer: the quantifier stays
        :class:`Undecidable`, so an enclosing ``¬``/``→`` cannot turn "no witness found" into a
        truth value."""
        is_all = node.kind == "forall"
        name = node.name
        decisive = not is_all  # the body value that settles the quantifier
        budget = self.budget
        compiler = self

        def run_search(fr: list[Any]) -> Any:
            limit = UNBOUNDED_SEARCH_CANDIDATES if compiler._search_depth == 0 else NESTED_SEARCH_CANDIDATES
            compiler._search_depth += 1
            undecided = 0
            tried = 0
            stopped = ""
            steps_at_start = budget.used()
            try:
                for idx in range(limit):
                    budget.tick -= 1
                    if budget.tick < 0:
                        budget.refill()
                    if budget.used() - steps_at_start > SEARCH_STEP_ALLOWANCE:
                        stopped = f", stopped after {SEARCH_STEP_ALLOWANCE} evaluation steps"
                        break
                    if is_nat:
                        fr[slot] = Nat(idx)
                    else:
                        half = (idx + 1) // 2
                        fr[slot] = half if idx % 2 == 1 else -half
                    try:
                        holds = whole(fr)
                    except (Undecidable, Unsupported):
                        undecided += 1
                        tried += 1
                        continue
                    except RecursionError:
                        # candidates grow: a body too deep for this one is too deep for the next
                        stopped = f", stopped at {name} = {int(fr[slot])} (recursion too deep)"
                        break
                    tried += 1
                    if holds is decisive:
                        return decisive
            finally:
                compiler._search_depth -= 1
            what = "counterexample" if is_all else "witness"
            if tried == 0:
                among = "no candidate"
            elif is_nat:
                among = f"{name} = 0..{tried - 1}"
            else:
                # candidates 0, 1, -1, 2, -2, ...: the first `tried` of them span this range
                among = f"{name} = {-((tried - 1) // 2)}..{tried // 2}"
            note = f", body undecided for {undecided} of them" if undecided else ""
            raise Undecidable(
                f"unbounded {'∀' if is_all else '∃'} over {name} at {node.line}:{node.col}: "
                f"no {what} among {among}{note}{stopped}"
            )

        return run_search

    def _bind_q(self, sc: Scope, name: str, vty: LeanType | None, member: A.Node | None,
                upper: A.Node | None) -> tuple[Scope, LeanType]:
        t = vty
        if t is None and member is not None:
            t = elem_type(self.stype(member, sc))
        if t is None and upper is not None:
            t = self.stype(upper, sc)
        inner, slot = sc.bind(name, t)
        self._last_slot = slot
        return inner, PROP

    # -- do notation ------------------------------------------------------------------------
    def c_Do(self, node: A.Do, sc: Scope, expected: LeanType | None) -> Closure:
        if sc.ctx.monad != "Id":
            raise unsupported(node, "do block", f"in monad {sc.ctx.monad}")
        sc.ctx.do_depth += 1
        try:
            seq = self.compile_do_seq(node.seq, sc, expected)
        finally:
            sc.ctx.do_depth -= 1

        def run(fr: list[Any]) -> Any:
            try:
                return seq(fr)
            except _Return as r:
                return r.value

        return run

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
        if isinstance(item, A.DoLet):
            # `let x ← e`: do blocks are compiled in the Id monad only (c_Do refuses others), where
            # bind is application and a value of `Id α` is the α itself, so it is `let x := e`.
            inner, setter = self.compile_let_decl(item.decl, sc)
            if last:
                raise unsupported(item, "do block ending with let")
            rest = self._do_items(items, i + 1, inner, expected)

            def run_let(fr: list[Any]) -> Any:
                setter(fr)
                return rest(fr)

            return run_let
        if isinstance(item, (A.DoHave,)):
            if last:
                return lambda fr: UNIT
            return self._do_items(items, i + 1, sc, expected)
        if isinstance(item, A.DoLetRec):
            inner, setter = self.compile_let_rec(item.decls, sc)
            if last:
                raise unsupported(item, "do block ending with let rec")
            rest = self._do_items(items, i + 1, inner, expected)

            def run_letrec(fr: list[Any]) -> Any:
                setter(fr)
                return rest(fr)

            return run_letrec
        stmt = self._do_stmt(item, sc, expected if last else None, last)
        if last:
            return stmt
        rest = self._do_items(items, i + 1, sc, expected)

        def run_seq(fr: list[Any]) -> Any:
            stmt(fr)
            return rest(fr)

        return run_seq

    def _do_stmt(self, item: A.Node, sc: Scope, expected: LeanType | None, last: bool) -> Closure:
        if isinstance(item, A.DoExpr):
            return self.compile(item.term, sc, expected)
        if isinstance(item, A.DoReturn):
            ret_t = None
            if sc.ctx.udef is not None:
                _, ret_t = self.def_types(sc.ctx.udef)
            if item.term is None:
                return _raise_return_unit
            c = self.compile(item.term, sc, ret_t)

            def ret(fr: list[Any]) -> Any:
                raise _Return(c(fr))

            return ret
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
            e = self.compile_do_seq(item.els, inner, expected) if item.els is not None else (lambda fr: UNIT)
            return lambda fr: t(fr) if c(fr) else e(fr)
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
            return _raise_break
        if isinstance(item, A.DoContinue):
            return _raise_continue
        if isinstance(item, A.DoMatch):
            dcs = [self.compile(d, sc, None) for d in item.discrs]
            dts = [self.stype(d, sc) for d in item.discrs]
            inner = sc
            slots = []
            for k in range(len(dcs)):
                inner, slot = inner.bind(f"_dm{item.line}_{k}", dts[k])
                slots.append(slot)
            body = self.compile_match_alts(item, [lambda fr, s=s: fr[s] for s in slots], dts, item.alts, inner,
                                           expected, is_do=True)

            def run_match(fr: list[Any]) -> Any:
                for s, c in zip(slots, dcs):
                    fr[s] = c(fr)
                return body(fr)

            return run_match
        if isinstance(item, A.DoNested):
            return self.compile_do_seq(item.seq, sc, expected)
        raise unsupported(item, type(item).__name__)

    def _reassign(self, item: A.DoReassign, sc: Scope) -> Closure:
        target = item.target
        if item.op == "←":
            raise unsupported(item, "← reassignment")
        if isinstance(target, A.Ident) and target.name in sc.vars:
            slot, ty = sc.vars[target.name]
            if item.op == ":=":
                c = self.compile(item.value, sc, ty if ty is not None and is_known(ty) else None)
                if ty is not None and is_known(ty) and _needs_int(ty):
                    c = _coercer(c, ty)
            else:
                op = item.op[0]
                c = self._arith_tree(A.BinOp(item.line, item.col, op, target, item.value), sc,
                                     ty if ty is not None and is_known(ty) else None)

            def assign(fr: list[Any]) -> Any:
                fr[slot] = c(fr)
                return UNIT

            return assign
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
        body = self.compile_do_seq(item.body, inner)
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

        return run_for


# ---------------------------------------------------------------------------------------------
# small run-time helpers


def _raise_break(fr: list[Any]) -> Any:
    raise _Break()


def _raise_continue(fr: list[Any]) -> Any:
    raise _Continue()


def _raise_return_unit(fr: list[Any]) -> Any:
    raise _Return(UNIT)


def _field_builtin(type_head: str | None, field: str) -> Builtin | None:
    """The builtin ``x.field`` resolves to for ``x`` of type ``type_head``. ``Subarray``
    abbreviates ``Std.Slice (SubarrayData α)``, so its field notation falls back to the
    ``Std.Slice`` namespace (``s.toList`` is ``Std.Slice.toList``)."""
    b = BUILTINS.get(f"{type_head}.{field}")
    if b is None and type_head == "Subarray":
        b = BUILTINS.get(f"Std.Slice.{field}")
    return b


def _raiser(exc: Exception) -> Closure:
    """A closure that raises ``exc`` when evaluated (an error of the code, not of compiling it)."""

    def raise_it(fr: list[Any]) -> Any:
        raise exc

    return raise_it


def _power_at(b: Any, e: Any, T: str, node: A.Node) -> Any:
    """``b ^ e`` at the type ``T``: ``Float ^ Float``, or ``T ^ Nat``."""
    if T == "Float":
        if isinstance(e, float):
            return ARITH[("^", "Float")](b, e)
        raise unsupported(node, "Float ^ Nat")
    if not isinstance(e, Nat):
        raise unsupported(node, "^", f"exponent of type {type_name_of(e)}")
    f = ARITH.get(("^", T))
    if f is None:
        raise unsupported(node, "^", f"at type {T}")
    return f(b, e)


def _numeral(val: int, T: str, node: A.Node) -> Any:
    if T == "Nat" or T == "NatChecked":
        return Nat(val)
    if T == "Int":
        return val
    if T == "Float":
        return float(val)
    from veriscale.runtime import FIXED_WIDTH_TYPES

    cls = FIXED_WIDTH_TYPES.get(T)
    if cls is not None:
        return cls(val)
    raise unsupported(node, "numeral", f"at type {T}")


class _NatUnsure(Exception):
    pass


def _checked_nat(b: Callable[[list[Any], str], Any], fr: list[Any], node: A.Node) -> Any:
    """Compute in ``Nat`` but refuse when a subtraction truncates: one leaf's static type was
    unknown, so Lean may have computed in ``Int`` instead."""
    global _NAT_SUB_GUARD
    old = _NAT_SUB_GUARD[0]
    _NAT_SUB_GUARD[0] = True
    try:
        return b(fr, "NatChecked")
    finally:
        _NAT_SUB_GUARD[0] = old


_NAT_SUB_GUARD = [False]


def _nat_checked_sub(a: Any, b: Any) -> Any:
    if a < b:
        raise Unsupported("Nat subtraction", "truncating subtraction whose operand types are not known statically")
    return Nat(a - b)


for _op in ("+", "*", "/", "%", "^"):
    ARITH[(_op, "NatChecked")] = ARITH[(_op, "Nat")]
ARITH[("-", "NatChecked")] = _nat_checked_sub


_RELATION_CLASSES: dict[str, tuple[str, ...]] = {
    "=": ("DecidableEq", "BEq"),
    "≠": ("DecidableEq", "BEq"),
    "==": ("BEq",),
    "!=": ("BEq",),
    "<": ("LT", "Ord"),
    ">": ("LT", "Ord"),
    "≤": ("LE", "Ord"),
    "≥": ("LE", "Ord"),
}


def _value_types(v: Any) -> Iterator[str]:
    """Names of the user types (structures, inductives) occurring in a value."""
    if isinstance(v, Struct):
        yield v.type_name
        for _, field_value in v.fields:
            yield from _value_types(field_value)
    elif isinstance(v, Ctor):
        yield v.name.rsplit(".", 1)[0]
        for arg in v.args:
            yield from _value_types(arg)
    elif isinstance(v, tuple):
        for item in v:
            yield from _value_types(item)
    elif isinstance(v, Pair):
        yield from _value_types(v.fst)
        yield from _value_types(v.snd)
    elif isinstance(v, Some):
        yield from _value_types(v.value)


def _refuse_user_instance(c: Closure, types: frozenset[str], op: str, node: A.Node) -> Closure:
    def guarded(fr: Any) -> Any:
        value = c(fr)
        for name in _value_types(value):
            if name in types:
                raise unsupported(node, f"user instance behind {op}", f"on {name}")
        return value

    return guarded


def _rel(op: str, a: Closure, b: Closure, node: A.Node) -> Closure:
    if op == "=":
        return lambda fr: _eq(a(fr), b(fr))
    if op == "≠":
        return lambda fr: not _eq(a(fr), b(fr))
    if op == "==":
        return lambda fr: lean_beq(a(fr), b(fr))
    if op == "!=":
        return lambda fr: not lean_beq(a(fr), b(fr))
    if op == "<":
        return lambda fr: compare_lt(a(fr), b(fr))
    if op == ">":
        return lambda fr: compare_lt(b(fr), a(fr))
    if op == "≤":
        return lambda fr: compare_le(a(fr), b(fr))
    if op == "≥":
        return lambda fr: compare_le(b(fr), a(fr))
    raise unsupported(node, f"relation {op}")


def _some_of(c: Closure) -> Closure:
    return lambda fr: Some(c(fr))


def _fst(v: Any, node: A.Node) -> Any:
    if isinstance(v, Pair):
        return v.fst
    raise unsupported(node, ".1", f"on {type_name_of(v)}")


def _snd(v: Any, node: A.Node) -> Any:
    if isinstance(v, Pair):
        return v.snd
    raise unsupported(node, ".2", f"on {type_name_of(v)}")


def _compose(f: Any, g: Any) -> Any:
    return Fn(1, lambda env, a: f(g(a[0])), None, "∘")


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


def _needs_int(ty: LeanType | None) -> bool:
    if isinstance(ty, NamedType):
        if ty.name == "Int":
            return True
        return any(_needs_int(a) for a in ty.args)
    if isinstance(ty, ProdType):
        return _needs_int(ty.fst) or _needs_int(ty.snd)
    return False


def _coercer(c: Closure, ty: LeanType) -> Closure:
    if not _needs_int(ty):
        return c
    if ty == INT:
        def to_int(fr: list[Any]) -> Any:
            v = c(fr)
            return int(v) if isinstance(v, Nat) else v
        return to_int
    return lambda fr: coerce_value(c(fr), ty)


def _apply_fun_type(t: LeanType | None, n: int) -> LeanType | None:
    for _ in range(n):
        if isinstance(t, FunType):
            t = t.codomain
        else:
            return None
    return t


def _param_types(t: LeanType | None, n: int) -> list[LeanType | None]:
    out: list[LeanType | None] = []
    for _ in range(n):
        if isinstance(t, FunType):
            out.append(t.domain if is_known(t.domain) else None)
            t = t.codomain
        else:
            out.append(None)
    return out


def _has_cdot(node: Any) -> bool:
    if isinstance(node, A.Cdot):
        return True
    if isinstance(node, A.Paren):
        return False
    if isinstance(node, A.Node):
        from dataclasses import fields

        return any(_has_cdot(getattr(node, f.name)) for f in fields(node))
    if isinstance(node, (list, tuple)):
        return any(_has_cdot(x) for x in node)
    return False


def _split_and(h: A.Node) -> list[A.Node]:
    while isinstance(h, A.Paren):
        h = h.term
    if isinstance(h, A.BinOp) and h.op == "∧":
        return _split_and(h.lhs) + _split_and(h.rhs)
    return [h]


def _path_to(node: Any, target: A.Node) -> list[Any] | None:
    """The chain of nodes from ``node`` down to ``target`` (both included), or None."""
    if node is target:
        return [node]
    children: list[Any] = []
    if isinstance(node, (list, tuple)):
        children = list(node)
    elif isinstance(node, A.Node):
        from dataclasses import fields

        children = [getattr(node, f.name) for f in fields(node)]
    for child in children:
        if isinstance(child, (A.Node, list, tuple)):
            sub = _path_to(child, target)
            if sub is not None:
                return sub if isinstance(node, (list, tuple)) else [node, *sub]
    return None


def _arith_leaves(node: A.Node, out: list[A.Node]) -> None:
    """The operands of an arithmetic tree (``^`` terms are leaves, as in Lean's ``binop%``)."""
    while isinstance(node, A.Paren):
        node = node.term
    if isinstance(node, A.BinOp) and node.op in ARITH_OPS:
        _arith_leaves(node.lhs, out)
        _arith_leaves(node.rhs, out)
    else:
        out.append(node)


def _exact_int(v: Any) -> bool:
    """An unbounded integer value (Lean ``Nat``/``Int``), not a Bool or a fixed-width integer."""
    return type(v) is int or type(v) is Nat


def _falsifier_conjuncts(body: A.Node, is_all: bool) -> list[A.Node]:
    """Conjuncts every witness of ``∃ x, body`` (every counterexample of ``∀ x, body``) satisfies."""
    b = body
    while isinstance(b, A.Paren):
        b = b.term
    if not is_all:
        return _split_and(b)
    out: list[A.Node] = []
    while isinstance(b, A.BinOp) and b.op == "→":
        out.extend(_split_and(b.lhs))
        b = b.rhs
        while isinstance(b, A.Paren):
            b = b.term
    if isinstance(b, A.UnOp) and b.op == "¬":
        out.extend(_split_and(b.arg))
    elif isinstance(b, A.BinOp) and b.op == "≠":
        out.append(A.BinOp(b.line, b.col, "=", b.lhs, b.rhs))
    return out


def _linear_factor(term: A.Node, name: str) -> A.Node | None:
    """``c`` when ``term`` is ``c * x`` or ``x * c`` with ``c`` free of ``x``."""
    t = term
    while isinstance(t, A.Paren):
        t = t.term
    if isinstance(t, A.BinOp) and t.op == "*":
        if _is_var(t.rhs, name) and not _mentions(t.lhs, name):
            return t.lhs
        if _is_var(t.lhs, name) and not _mentions(t.rhs, name):
            return t.rhs
    return None


def _only_in_power_divisions(node: Any, name: str, found: list[A.BinOp]) -> bool:
    """Whether every occurrence of ``name`` in ``node`` is the exponent of a ``A / b ^ name`` with
    ``A`` and ``b`` free of it (those divisions are collected in ``found``)."""
    if isinstance(node, A.BinOp) and node.op == "/":
        pw = node.rhs
        while isinstance(pw, A.Paren):
            pw = pw.term
        if (isinstance(pw, A.BinOp) and pw.op == "^" and _is_var(pw.rhs, name)
                and not _mentions(pw.lhs, name) and not _mentions(node.lhs, name)):
            found.append(node)
            return True
    if isinstance(node, A.Ident):
        return not (node.name == name or node.name.startswith(name + "."))
    if isinstance(node, _BINDING_NODES):
        # a construct that binds names could shadow `name`: refuse rather than reason about scopes
        return not _mentions(node, name)
    if isinstance(node, (list, tuple)):
        return all(_only_in_power_divisions(x, name, found) for x in node)
    if isinstance(node, A.Node):
        from dataclasses import fields

        return all(_only_in_power_divisions(getattr(node, f.name), name, found) for f in fields(node))
    return True


_BINDING_NODES = (A.Quant, A.Lambda, A.LambdaMatch, A.Let, A.LetRec, A.Match, A.Do, A.IfLet)


def _is_power_def(d: UserDef) -> bool:
    """Whether a user definition is, by its text, exactly ``base ^ exp`` on Nat or Int::

        def f (base : Int) (exp : Nat) : Int :=
          match exp with
          | 0 => 1
          | n + 1 => base * f base n      -- or `f base n * base`

    (by induction on ``exp`` it computes ``base ^ exp``; any other shape is not recognised)."""
    cmd = d.cmd
    params = [(n, b) for b in cmd.binders if b.kind == "explicit" for n in b.names]
    if len(params) != 2 or cmd.body is None or cmd.alts is not None:
        return False
    (base, bb), (exp, eb) = params
    if bb.type_text.strip() not in ("Int", "Nat") or eb.type_text.strip() != "Nat":
        return False
    if cmd.type_text.strip() != bb.type_text.strip():
        return False
    body = cmd.body
    while isinstance(body, A.Paren):
        body = body.term
    if not (isinstance(body, A.Match) and len(body.discrs) == 1 and _is_var(body.discrs[0], exp)
            and len(body.alts) == 2):
        return False
    zero, succ = body.alts
    if not (len(zero.patterns) == 1 and isinstance(zero.patterns[0], A.NumLit) and zero.patterns[0].value == 0):
        return False
    zr = zero.rhs
    while isinstance(zr, A.Paren):
        zr = zr.term
    if not (isinstance(zr, A.NumLit) and zr.value == 1):
        return False
    sp = succ.patterns[0] if len(succ.patterns) == 1 else None
    while isinstance(sp, A.Paren):
        sp = sp.term
    if not (isinstance(sp, A.BinOp) and sp.op == "+" and isinstance(sp.lhs, A.Ident)
            and isinstance(sp.rhs, A.NumLit) and sp.rhs.value == 1):
        return False
    pred = sp.lhs.name
    if pred in (base, exp):
        return False
    rhs = succ.rhs
    while isinstance(rhs, A.Paren):
        rhs = rhs.term
    if not (isinstance(rhs, A.BinOp) and rhs.op == "*"):
        return False
    short = cmd.name.rsplit(".", 1)[-1]

    def is_rec_call(t: A.Node) -> bool:
        while isinstance(t, A.Paren):
            t = t.term
        return (isinstance(t, A.App) and isinstance(t.fn, A.Ident) and t.fn.name in (cmd.name, d.name, short)
                and len(t.args) == 2 and _is_var(t.args[0], base) and _is_var(t.args[1], pred))

    return (_is_var(rhs.lhs, base) and is_rec_call(rhs.rhs)) or (is_rec_call(rhs.lhs) and _is_var(rhs.rhs, base))


def _used_as_exponent(node: Any, name: str) -> bool:
    """Whether ``name`` occurs as the exponent of a ``^`` somewhere in ``node``."""
    if isinstance(node, A.BinOp) and node.op == "^" and _is_var(node.rhs, name):
        return True
    if isinstance(node, A.Node):
        from dataclasses import fields

        return any(_used_as_exponent(getattr(node, f.name), name) for f in fields(node))
    if isinstance(node, (list, tuple)):
        return any(_used_as_exponent(x, name) for x in node)
    return False


def _is_var(n: A.Node, name: str) -> bool:
    while isinstance(n, A.Paren):
        n = n.term
    return isinstance(n, A.Ident) and n.name == name


def _mentions(node: Any, name: str) -> bool:
    if isinstance(node, A.Ident):
        return node.name == name or node.name.startswith(name + ".")
    if isinstance(node, A.Node):
        from dataclasses import fields

        return any(_mentions(getattr(node, f.name), name) for f in fields(node))
    if isinstance(node, (list, tuple)):
        return any(_mentions(x, name) for x in node)
    return False


def _mentions_any(node: Any, names: set[str]) -> bool:
    return any(_mentions(node, n) for n in names)


def _is_nat_sum_with(e: A.Node, name: str, comp: Compiler, sc: Scope, vty: LeanType | None) -> bool:
    """``name + k`` (or ``k + name``) where ``name`` is a Nat variable and ``k`` is statically Nat."""
    while isinstance(e, A.Paren):
        e = e.term
    if not (isinstance(e, A.BinOp) and e.op == "+"):
        return False
    if vty is not None and head(vty) != "Nat":
        return False
    for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
        if _is_var(a, name) and not _mentions(b, name):
            return isinstance(b, A.NumLit) or comp.stype(b, sc) == NAT
    return False


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


__all__ = ["Compiler", "unsupported", "LeanPanic", "math", "FLOAT", "STRING", "_is_float"]
