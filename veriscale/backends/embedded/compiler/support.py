"""What every construct's compiler shares: closures, compile-time scopes, tail-call targets,
the errors of unsupported constructs and the small helpers on values and types used by several
construct modules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins import BUILTINS
from veriscale.backends.embedded.compiler.codegen import some_text
from veriscale.backends.embedded.env import UserDef
from veriscale.backends.embedded.registry import Builtin
from veriscale.backends.embedded.statics import BOOL, CHAR, FLOAT, INT, NAT, STRING, TVar, coerce_value
from veriscale.backends.embedded.statics import needs_int as _needs_int
from veriscale.lean.types import LeanType, NamedType
from veriscale.lean.values import Char, Nat, Unsupported, _FixedWidth, some

if TYPE_CHECKING:
    from veriscale.backends.embedded.compiler.codegen import CodeGen

Closure = Callable[[list[Any]], Any]

UNSURE = TVar("?unsure")
"""Expected type of an argument whose parameter type Lean knows but we do not."""


ARITH_OPS = frozenset({"+", "-", "*", "/", "%", "&&&", "|||", "^^^"})  # the bitwise ones are `binop%` too
REL_OPS = frozenset({"=", "≠", "<", ">", "≤", "≥", "==", "!="})


def unsupported(node: A.Node | None, construct: str, detail: str = "") -> Unsupported:
    where = f" at {node.line}:{node.col}" if node is not None else ""
    return Unsupported(f"{construct}{where}", detail)


# ---------------------------------------------------------------------------------------------
# Compile-time scopes


class DefCtx:
    """Per user definition: the slot allocator and the definition's namespace."""

    __slots__ = ("nslots", "namespace", "udef", "monad", "do_depth", "do_result", "hoist", "shared",
                 "tail_shared")

    def __init__(self, namespace: str, udef: UserDef | None) -> None:
        self.nslots = 0
        self.namespace = namespace
        self.udef = udef
        self.monad = "Id"
        self.do_depth = 0
        """How many Id `do` blocks enclose the term being compiled (`pure` means `id` there)."""
        self.do_result: LeanType | None = None
        """In an `Option`/`Except` `do` block: the type of the values it returns (`α` of `Option α`)."""
        self.hoist: Any = None
        """The definition's :class:`.hoisting.HoistPlan` when its output-independent terms are
        recorded and replayed (``None``: they are not)."""
        self.shared: dict[int, Any] | None = None
        """The definition's repeated terms, by node id, with their structure keys
        (:func:`.sharing.repeated_terms`); ``None`` when it has none."""
        self.tail_shared: frozenset[int] = frozenset()
        """Those of :attr:`shared` whose every occurrence is in tail position of the definition
        (:func:`.sharing.tail_only`): an occurrence compiled as a self tail call needs no site."""

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


# ---------------------------------------------------------------------------------------------


class TailTarget:
    """The function being compiled whose self-calls in tail position become :class:`TailCall`.

    ``key`` is the :class:`UserDef` of a top-level definition or the frame slot of a ``let rec``
    function; ``calls`` holds the ids of the application nodes in tail position of its body;
    ``used`` records whether any call site was compiled as a tail call (only then does the
    function need its loop). ``slots`` are the frame slots of the parameters, when the body binds
    nothing else on entry (no pattern): then the generated body loops itself (``loop`` names its
    loop, :meth:`.codegen.CodeGen.tail_call`)."""

    __slots__ = ("key", "nargs", "calls", "used", "slots", "loop")

    def __init__(self, key: object, nargs: int, calls: set[int], slots: tuple[int, ...] | None = None,
                 loop: str | None = None) -> None:
        self.key = key
        self.nargs = nargs
        self.calls = calls
        self.used = False
        self.slots = slots
        self.loop = loop


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


#: `HashSet`/`HashMap` written under `open Std`: the file elaborated, so where the file declares
#: no other type of that name they are Std's (whose methods are the builtins of the long name)
_STD_SHORT_NAMES = {"HashSet": "Std.HashSet", "HashMap": "Std.HashMap"}


def _field_builtin(type_head: str | None, field: str) -> Builtin | None:
    """The builtin ``x.field`` resolves to for ``x`` of type ``type_head``. ``Subarray``
    abbreviates ``Std.Slice (SubarrayData α)``, so its field notation falls back to the
    ``Std.Slice`` namespace (``s.toList`` is ``Std.Slice.toList``)."""
    b = BUILTINS.get(f"{type_head}.{field}")
    if b is None and type_head == "Subarray":
        b = BUILTINS.get(f"Std.Slice.{field}")
    return b


def _some_of(c: Closure, gen: CodeGen | None = None) -> Closure:
    """``some`` of ``c``'s value (with its source for ``gen`` when given)."""
    def run(fr: list[Any]) -> Any:
        return some(c(fr))

    if gen is None:
        return run
    return gen.fuse_with(run, [c], lambda exprs: ((), some_text(gen, exprs[0])))


def _coercer(c: Closure, ty: LeanType, gen: CodeGen | None = None) -> Closure:
    """``c`` with its value coerced to ``ty`` (``↑`` Nat→Int, also inside containers); at
    ``Int``, with the source of the coercion for ``gen`` when given."""
    if not _needs_int(ty):
        return c
    if ty == INT:
        def to_int(fr: list[Any]) -> Any:
            v = c(fr)
            return int(v) if isinstance(v, Nat) else v

        if gen is None:
            return to_int
        to_int_, nat = gen.const(int), gen.const(Nat)

        def write(exprs: Sequence[str]) -> tuple[list[str], str]:
            # `isinstance` read as the class's identity: no run-time class derives from `Nat`
            t = gen.temp()
            return [f"{t} = {exprs[0]}"], f"({to_int_}({t}) if {t}.__class__ is {nat} else {t})"

        return gen.fuse_with(to_int, [c], write)
    def coerce(fr: list[Any]) -> Any:
        return coerce_value(c(fr), ty)

    if gen is None:
        return coerce
    return gen.fuse(coerce, f"{gen.const(coerce_value)}({{0}}, {gen.const(ty)})", [c])


def _has_cdot(node: Any) -> bool:
    if isinstance(node, A.Cdot):
        return True
    if isinstance(node, A.Paren):
        return False
    return any(_has_cdot(sub) for sub in A.subterms(node))


def referenced_names(node: Any, out: set[str] | None = None) -> set[str]:
    """The first components of every identifier in ``node`` (``xs`` for ``xs.map``): a superset
    of the local variables the term reads, since locals are only ever read by name."""
    if out is None:
        out = set()
    if isinstance(node, A.Ident):
        out.add(node.name.partition(".")[0])
    else:
        for sub in A.subterms(node):
            referenced_names(sub, out)
    return out


def captured_slots(node: A.Node, sc: Scope) -> tuple[int, ...]:
    """The frame slots of the variables of ``sc`` that ``node`` may read (a superset)."""
    names = referenced_names(node)
    slots = {sc.vars[n][0] for n in names if n in sc.vars}
    # a local instance is read by the terms that use its class, not by name (`a == b`)
    slots.update(slot for n, (slot, _ty) in sc.vars.items() if n.startswith(INSTANCE_SLOT_PREFIX))
    return tuple(sorted(slots))


INSTANCE_SLOT_PREFIX = "⟦instance⟧"
"""Scope names of local instances (:mod:`.instances`): no Lean identifier starts so."""
