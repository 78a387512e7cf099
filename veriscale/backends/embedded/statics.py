"""Static types for the evaluator: Lean's elaboration decisions that depend on types.

The evaluator is dynamically typed at run time (values know whether they are ``Nat`` or ``Int``),
but several Lean decisions are made by the elaborator from *static* types and cannot be recovered
from values alone: the type of a numeral (``0`` is an ``Int`` when an ``Int`` is expected), the
``binop%`` coercions (``(n : Nat) - 5`` computes in ``Int`` when an ``Int`` is expected), the
default value returned by ``xs[i]!`` out of range, the meaning of ``{}``, ``⟨a, b⟩`` and ``.some``.

This module supplies what the compiler needs for that:

* :class:`TVar` -- a type variable (``α`` in a signature, or an unknown component);
* :func:`unify` / :func:`subst` -- first-order unification of signature types with argument
  types, to propagate expected types into arguments (``List.replicate n 0 : List Int`` makes the
  ``0`` an ``Int``);
* :func:`signature` -- the explicit parameter types and result type of a builtin, read from the
  full Lean signature it is registered with;
* the coercion relation used by ``binop%`` (``Nat`` to ``Int``, ``Fin n`` to ``Nat``, ``α`` to
  ``Option α``) and the runtime conversion that implements it.

Unknown types are ``None`` at the top level and :data:`UNKNOWN` inside a type.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

# The type constants are re-exported: the compiler reads them from here.
from veriscale.lean.types import BOOL as BOOL
from veriscale.lean.types import CHAR as CHAR
from veriscale.lean.types import FLOAT as FLOAT
from veriscale.lean.types import INT as INT
from veriscale.lean.types import NAT as NAT
from veriscale.lean.types import PROP as PROP
from veriscale.lean.types import STRING as STRING
from veriscale.lean.types import (
    TYPE,
    UNIT,
    FunType,
    LeanType,
    NamedType,
    NatLitType,
    ProdType,
    PropType,
    components,
    type_head,
)
from veriscale.lean.values import Arr, Nat, Pair, Some, Unsupported, _FixedWidth, pair


@dataclass(frozen=True, slots=True)
class TVar(LeanType):
    """A type variable of a signature, or an unknown type component (``?``)."""

    name: str

    def _render(self, prec: int) -> str:
        return self.name


UNKNOWN = TVar("?")
# The compiler's names for the shared constants (``UNIT``/``TYPE`` there are runtime values).
UNIT_T = UNIT
TYPE_T = TYPE

NUMERIC = frozenset({"Nat", "Int", "Float", "UInt8", "UInt16", "UInt32", "UInt64", "USize"})
INTEGRAL = frozenset({"Nat", "Int", "UInt8", "UInt16", "UInt32", "UInt64", "USize"})

_TYPE_ALIASES = {
    "ℕ": "Nat",
    "ℤ": "Int",
    "HashMap": "Std.HashMap",
    "HashSet": "Std.HashSet",
    "Std.Data.HashMap": "Std.HashMap",
    "Nat.Prime": "Nat.Prime",
}


head = type_head  # the compiler's name for it


def args_of(ty: LeanType | None) -> tuple[LeanType, ...]:
    if isinstance(ty, NamedType):
        return ty.args
    if isinstance(ty, ProdType):
        return (ty.fst, ty.snd)
    return ()


def is_known(ty: LeanType | None) -> bool:
    """A type with no variables or unknown components."""
    if ty is None or isinstance(ty, TVar):
        return False
    return all(is_known(c) for c in components(ty))


def known_or_none(ty: LeanType | None) -> LeanType | None:
    return ty if ty is not None and not isinstance(ty, TVar) else None


def elem_type(ty: LeanType | None) -> LeanType | None:
    """Element type of ``List``/``Array``/``Option``/``Std.HashSet`` (or ``None``)."""
    if isinstance(ty, NamedType) and ty.name in ("List", "Array", "Option", "Std.HashSet", "Multiset", "Finset", "Set") and ty.args:
        return known_or_none(ty.args[0])
    return None


def numeric_name(ty: LeanType | None) -> str | None:
    if isinstance(ty, NamedType) and not ty.args and ty.name in NUMERIC:
        return ty.name
    return None


def fresh(ty: LeanType, suffix: str) -> LeanType:
    """Rename the variables of a signature apart (``α`` -> ``α#3``)."""
    if isinstance(ty, TVar):
        return TVar(ty.name + suffix) if ty is not UNKNOWN else ty
    if isinstance(ty, NamedType):
        return NamedType(ty.name, tuple(fresh(a, suffix) for a in ty.args)) if ty.args else ty
    if isinstance(ty, ProdType):
        return ProdType(fresh(ty.fst, suffix), fresh(ty.snd, suffix))
    if isinstance(ty, FunType):
        return FunType(fresh(ty.domain, suffix), fresh(ty.codomain, suffix))
    return ty


def subst(ty: LeanType | None, s: dict[str, LeanType]) -> LeanType | None:
    """Apply a substitution; unresolved variables become :data:`UNKNOWN`."""
    if ty is None:
        return None
    if isinstance(ty, TVar):
        if ty.name in s:
            return subst(s[ty.name], s)
        return UNKNOWN
    if isinstance(ty, NamedType):
        if not ty.args:
            return ty
        return NamedType(ty.name, tuple(subst(a, s) or UNKNOWN for a in ty.args))
    if isinstance(ty, ProdType):
        return ProdType(subst(ty.fst, s) or UNKNOWN, subst(ty.snd, s) or UNKNOWN)
    if isinstance(ty, FunType):
        return FunType(subst(ty.domain, s) or UNKNOWN, subst(ty.codomain, s) or UNKNOWN)
    return ty


def unify(pattern: LeanType | None, actual: LeanType | None, s: dict[str, LeanType]) -> bool:
    """Bind the variables of ``pattern`` so that it matches ``actual`` (which may be partial).

    Unknown parts match anything. Returns ``False`` on a clash (bindings made so far are kept;
    callers treat a clash as "no information", never as an error)."""
    if pattern is None or actual is None or actual is UNKNOWN:
        return True
    if isinstance(pattern, TVar):
        if pattern is UNKNOWN:
            return True
        bound = s.get(pattern.name)
        if bound is None:
            if isinstance(actual, TVar) and actual.name == pattern.name:
                return True
            s[pattern.name] = actual
            return True
        if isinstance(bound, TVar) or not is_known(bound):
            merged = _merge(bound, actual)
            s[pattern.name] = merged
            return True
        return unify(bound, actual, s) if not is_known(actual) else _compatible(bound, actual)
    if isinstance(actual, TVar):
        return True
    if isinstance(pattern, NamedType):
        if not isinstance(actual, NamedType) or actual.name != pattern.name or len(actual.args) != len(pattern.args):
            return False
        return all(unify(p, a, s) for p, a in zip(pattern.args, actual.args))
    if isinstance(pattern, ProdType):
        if not isinstance(actual, ProdType):
            return False
        return unify(pattern.fst, actual.fst, s) and unify(pattern.snd, actual.snd, s)
    if isinstance(pattern, FunType):
        if not isinstance(actual, FunType):
            return False
        return unify(pattern.domain, actual.domain, s) and unify(pattern.codomain, actual.codomain, s)
    return pattern == actual


def _compatible(a: LeanType, b: LeanType) -> bool:
    return a == b


def _merge(a: LeanType, b: LeanType) -> LeanType:
    """Combine two partial descriptions of the same type, preferring known parts."""
    if isinstance(a, TVar):
        return b
    if isinstance(b, TVar):
        return a
    if isinstance(a, NamedType) and isinstance(b, NamedType) and a.name == b.name and len(a.args) == len(b.args):
        return NamedType(a.name, tuple(_merge(x, y) for x, y in zip(a.args, b.args))) if a.args else a
    if isinstance(a, ProdType) and isinstance(b, ProdType):
        return ProdType(_merge(a.fst, b.fst), _merge(a.snd, b.snd))
    if isinstance(a, FunType) and isinstance(b, FunType):
        return FunType(_merge(a.domain, b.domain), _merge(a.codomain, b.codomain))
    return a


# ---------------------------------------------------------------------------------------------
# Coercions (the ones `binop%` and expected types insert in the code we evaluate)


def has_coe(src: LeanType | None, dst: LeanType | None) -> bool:
    """Is there a (non-identity) coercion from ``src`` to ``dst`` that we implement?"""
    if src is None or dst is None or src == dst:
        return False
    hs, hd = head(src), head(dst)
    if hs == "Nat" and hd == "Int":
        return True
    if hs == "Fin" and hd in ("Nat", "Int"):
        return True
    if hd == "Option" and args_of(dst) and args_of(dst)[0] == src:
        return True
    if hs == "Subtype":
        return True
    return False


def max_type(types: list[LeanType]) -> tuple[LeanType | None, bool]:
    """``binop%``'s maximum of leaf types: returns (max, uncomparable)."""
    result: LeanType | None = None
    for ty in types:
        if ty is None or not is_known(ty):
            continue
        if result is None:
            result = ty
            continue
        if result == ty:
            continue
        if has_coe(ty, result):
            continue
        if has_coe(result, ty):
            result = ty
            continue
        return result, True
    return result, False


def coerce_value(value: Any, ty: LeanType | None) -> Any:
    """Convert a runtime value to ``ty`` along the coercions Lean inserts (deeply for containers).

    Used where a static expected type is known and the value was computed without it (a numeral
    that defaulted to ``Nat``, a ``Nat`` passed where ``Int`` is declared)."""
    if ty is None:
        return value
    if isinstance(ty, NamedType):
        name = ty.name
        if name == "Int":
            if isinstance(value, Nat) or (isinstance(value, _FixedWidth)):
                return int(value)
            return value
        if name == "Nat" or name in ("UInt8", "UInt16", "UInt32", "UInt64") or name == "Float":
            return value
        if name == "List" and ty.args and isinstance(value, tuple) and not isinstance(value, Arr):
            inner = ty.args[0]
            if needs_int(inner) and not _all_plain_ints(value, inner):
                return tuple(coerce_value(v, inner) for v in value)
            return value
        if name == "Array" and ty.args and isinstance(value, Arr):
            inner = ty.args[0]
            items = value.view()  # valid throughout: coercing runs no Lean code
            if needs_int(inner) and not _all_plain_ints(items, inner):
                coerced = [coerce_value(v, inner) for v in items]
                if all(c is v for c, v in zip(coerced, items)):
                    return value  # nothing converted (the common case of nested arrays)
                return Arr.of_list(coerced)
            return value
        if name == "Option" and ty.args:
            if isinstance(value, Some):
                inner = ty.args[0]
                return Some(coerce_value(value.value, inner)) if needs_int(inner) else value
            return value
        return value
    if isinstance(ty, ProdType) and isinstance(value, Pair):
        return pair(coerce_value(value.fst, ty.fst), coerce_value(value.snd, ty.snd))
    return value


def _all_plain_ints(values: Any, inner: LeanType) -> bool:
    """Every element is already a plain ``int`` where ``Int`` is wanted: nothing to convert
    (checked at C speed; a function returning ``List Int`` re-coerces its result at every return)."""
    return isinstance(inner, NamedType) and inner.name == "Int" and not inner.args and (
        _ONLY_INT.issuperset(map(type, values)))  # (builds no set of the types)


_ONLY_INT = frozenset({int})


def needs_int(ty: LeanType | None) -> bool:
    """Whether ``Int`` occurs in ``ty`` (through type arguments and products): its values may
    need coercing from ``Nat``."""
    if isinstance(ty, NamedType):
        if ty.name == "Int":
            return True
        return any(needs_int(a) for a in ty.args)
    if isinstance(ty, ProdType):
        return needs_int(ty.fst) or needs_int(ty.snd)
    return False


def value_matches(value: Any, ty: LeanType | None) -> bool:
    """Does a runtime value have static type ``ty``? (``True`` where it cannot tell.)"""
    from veriscale.lean.values import Char, Ctor, Struct, _NoneType

    if ty is None or isinstance(ty, TVar):
        return True
    if isinstance(ty, NamedType):
        n = ty.name
        if n == "Nat":
            return isinstance(value, Nat)
        if n == "Int":
            return isinstance(value, int) and not isinstance(value, (bool, Nat, _FixedWidth))
        if n in ("Bool", "Prop"):
            return isinstance(value, bool)
        if n == "Float":
            return isinstance(value, float)
        if n == "String":
            return isinstance(value, str) and not isinstance(value, Char)
        if n == "Char":
            return isinstance(value, Char)
        if n in ("UInt8", "UInt16", "UInt32", "UInt64"):
            return type(value).__name__ == n
        if n == "List":
            return isinstance(value, tuple) and not isinstance(value, Arr) and all(value_matches(v, ty.args[0]) for v in value[:20])
        if n == "Array":
            return isinstance(value, Arr) and all(value_matches(v, ty.args[0]) for v in value[:20])
        if n == "Option":
            if isinstance(value, _NoneType):
                return True
            return isinstance(value, Some) and value_matches(value.value, ty.args[0])
        if isinstance(value, Struct):
            return value.type_name == n
        if isinstance(value, Ctor):
            return value.name.rsplit(".", 1)[0] == n
        return True
    if isinstance(ty, ProdType):
        return isinstance(value, Pair) and value_matches(value.fst, ty.fst) and value_matches(value.snd, ty.snd)
    if isinstance(ty, FunType):
        return callable(value)
    return True


# ---------------------------------------------------------------------------------------------
# Builtin signatures, as the evaluator uses them: the explicit parameters' types, in Lean's order,
# then the result type. They are read from the registry, where every builtin carries its full Lean
# signature (:mod:`.signatures`).


@dataclass(frozen=True, slots=True)
class Signature:
    params: tuple[LeanType, ...]
    result: LeanType


def evaluated_type(ty: LeanType, bound: frozenset[str]) -> LeanType:
    """A signature type as the evaluator reads it: names bound by the signature's binders (type
    parameters ``α``, value parameters such as ``n`` in ``Fin n``, and their projections such as
    ``xs.size``) become type variables; a proposition, which no value of ours inhabits, is unknown;
    ``Id α`` is ``α`` (``Id`` is the identity on types, and the engine runs ``Id`` code directly)."""
    if isinstance(ty, NamedType):
        if not ty.args:
            if ty.name in bound or ty.name.partition(".")[0] in bound:
                return TVar(ty.name)
            return ty
        if ty.name == "Id" and len(ty.args) == 1:
            return evaluated_type(ty.args[0], bound)
        return NamedType(ty.name, tuple(evaluated_type(a, bound) for a in ty.args))
    if isinstance(ty, ProdType):
        return ProdType(evaluated_type(ty.fst, bound), evaluated_type(ty.snd, bound))
    if isinstance(ty, FunType):
        return FunType(evaluated_type(ty.domain, bound), evaluated_type(ty.codomain, bound))
    if isinstance(ty, PropType):
        return UNKNOWN
    return ty


@cache
def _explicit_view(name: str) -> Signature | None:
    from veriscale.backends.embedded.builtins import BUILTINS  # registers every builtin

    b = BUILTINS.get(name)
    if b is None:
        return None
    bound: set[str] = set()
    params: list[LeanType] = []
    for binder in b.signature.binders:
        if binder.is_explicit:
            params.append(evaluated_type(binder.type, frozenset(bound)))
        if binder.name is not None:
            bound.add(binder.name)
    return Signature(tuple(params), evaluated_type(b.signature.result, frozenset(bound)))


def signature(name: str, arity: int) -> Signature | None:
    """The signature of builtin ``name`` with its first ``arity`` explicit parameters (the rest, if
    any, folded into the result type; parameters beyond the declared ones are unknown)."""
    view = _explicit_view(name)
    if view is None:
        return None
    if arity <= len(view.params):
        result = view.result
        for p in reversed(view.params[arity:]):
            result = FunType(p, result)
        return Signature(view.params[:arity], result)
    return Signature(view.params + (UNKNOWN,) * (arity - len(view.params)), view.result)


def known_signature_names() -> frozenset[str]:
    from veriscale.backends.embedded.builtins import BUILTINS

    return frozenset(BUILTINS)


def fin_bound(ty: LeanType | None) -> int | None:
    if isinstance(ty, NamedType) and ty.name == "Fin" and ty.args and isinstance(ty.args[0], NatLitType):
        return ty.args[0].value
    return None


def describe(ty: LeanType | None) -> str:
    return "?" if ty is None else str(ty)


def check_numeral_type(ty: LeanType | None, value: int) -> Any:
    """The runtime value of numeral ``value`` at type ``ty`` (``Nat`` when unknown)."""
    from veriscale.lean.values import FIXED_WIDTH_TYPES

    name = numeric_name(ty)
    if name is None or name == "Nat":
        if ty is not None and head(ty) not in (None, "Nat") and is_known(ty):
            raise Unsupported("numeral", f"numeral {value} at type {ty}")
        return Nat(value)
    if name == "Int":
        return int(value)
    if name == "Float":
        return float(value)
    cls = FIXED_WIDTH_TYPES.get(name)
    if cls is not None:
        return cls(value)
    raise Unsupported("numeral", f"numeral at type {ty}")
