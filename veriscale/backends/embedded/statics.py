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
* :data:`SIGNATURES` -- Lean signatures (explicit parameters only) of the builtins, written as Lean
  types and parsed once;
* the coercion relation used by ``binop%`` (``Nat`` to ``Int``, ``Fin n`` to ``Nat``, ``α`` to
  ``Option α``) and the runtime conversion that implements it.

Unknown types are ``None`` at the top level and :data:`UNKNOWN` inside a type.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from veriscale.lean_types import FunType, LeanType, NamedType, NatLitType, ProdType, parse_type
from veriscale.runtime import Arr, Nat, Pair, Some, Unsupported, _FixedWidth


@dataclass(frozen=True, slots=True)
class TVar(LeanType):
    """A type variable of a signature, or an unknown type component (``?``)."""

    name: str

    def _render(self, prec: int) -> str:
        return self.name


UNKNOWN = TVar("?")
NAT = NamedType("Nat")
INT = NamedType("Int")
FLOAT = NamedType("Float")
BOOL = NamedType("Bool")
PROP = NamedType("Prop")
STRING = NamedType("String")
CHAR = NamedType("Char")
UNIT_T = NamedType("Unit")
TYPE_T = NamedType("Type")

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


def normalise_type_name(name: str) -> str:
    return _TYPE_ALIASES.get(name, name)


def head(ty: LeanType | None) -> str | None:
    """The head constant of a type: ``List`` for ``List Int``, ``Prod`` for ``A × B``."""
    if isinstance(ty, NamedType):
        return ty.name
    if isinstance(ty, ProdType):
        return "Prod"
    if isinstance(ty, FunType):
        return "Function"
    return None


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
    if isinstance(ty, NamedType):
        return all(is_known(a) for a in ty.args)
    if isinstance(ty, ProdType):
        return is_known(ty.fst) and is_known(ty.snd)
    if isinstance(ty, FunType):
        return is_known(ty.domain) and is_known(ty.codomain)
    return True


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


def merge_types(a: LeanType | None, b: LeanType | None) -> LeanType | None:
    if a is None:
        return b
    if b is None:
        return a
    return _merge(a, b)


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
            if _needs_deep(inner):
                return tuple(coerce_value(v, inner) for v in value)
            return value
        if name == "Array" and ty.args and isinstance(value, Arr):
            inner = ty.args[0]
            if _needs_deep(inner):
                return Arr(coerce_value(v, inner) for v in value)
            return value
        if name == "Option" and ty.args:
            if isinstance(value, Some):
                inner = ty.args[0]
                return Some(coerce_value(value.value, inner)) if _needs_deep(inner) else value
            return value
        return value
    if isinstance(ty, ProdType) and isinstance(value, Pair):
        return Pair(coerce_value(value.fst, ty.fst), coerce_value(value.snd, ty.snd))
    return value


def _needs_deep(ty: LeanType) -> bool:
    if isinstance(ty, NamedType):
        if ty.name == "Int":
            return True
        return any(_needs_deep(a) for a in ty.args)
    if isinstance(ty, ProdType):
        return _needs_deep(ty.fst) or _needs_deep(ty.snd)
    return False


def value_matches(value: Any, ty: LeanType | None) -> bool:
    """Does a runtime value have static type ``ty``? (``True`` where it cannot tell.)"""
    from veriscale.runtime import Char, Ctor, Struct, _NoneType

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
# Builtin signatures: explicit parameters, in Lean's order, then the result type.

_SIGNATURE_TEXT = """
Array.all : Array α → (α → Bool) → Nat → Nat → Bool
Array.any : Array α → (α → Bool) → Nat → Nat → Bool
Array.append : Array α → Array α → Array α
Array.appendList : Array α → List α → Array α
Array.back : Array α → α
Array.back! : Array α → α
Array.back? : Array α → Option α
Array.contains : Array α → α → Bool
Array.count : α → Array α → Nat
Array.countP : (α → Bool) → Array α → Nat
Array.empty : Array α
Array.emptyWithCapacity : Nat → Array α
Array.eraseIdxIfInBounds : Array α → Nat → Array α
Array.extract : Array α → Nat → Nat → Array α
Array.filter : (α → Bool) → Array α → Nat → Nat → Array α
Array.filterMap : (α → Option β) → Array α → Nat → Nat → Array β
Array.find? : (α → Bool) → Array α → Option α
Array.findIdx? : (α → Bool) → Array α → Option Nat
Array.foldl : (β → α → β) → β → Array α → Nat → Nat → β
Array.foldr : (α → β → β) → β → Array α → Nat → Nat → β
Array.get! : Array α → Nat → α
Array.get? : Array α → Nat → Option α
Array.getD : Array α → Nat → α → α
Array.getElem! : Array α → Nat → α
Array.getElem? : Array α → Nat → Option α
Array.insertionSort : Array α → (α → α → Bool) → Array α
Array.isEmpty : Array α → Bool
Array.map : (α → β) → Array α → Array β
Array.mapIdx : (Nat → α → β) → Array α → Array β
Array.mk : List α → Array α
Array.mkArray : Nat → α → Array α
Array.mkEmpty : Nat → Array α
Array.modify : Array α → Nat → (α → α) → Array α
Array.pop : Array α → Array α
Array.push : Array α → α → Array α
Array.range : Nat → Array Nat
Array.replicate : Nat → α → Array α
Array.reverse : Array α → Array α
Array.set! : Array α → Nat → α → Array α
Array.setIfInBounds : Array α → Nat → α → Array α
Array.singleton : α → Array α
Array.size : Array α → Nat
Array.swapIfInBounds : Array α → Nat → Nat → Array α
Array.toList : Array α → List α
Array.zip : Array α → Array β → Array (α × β)
Array.zipIdx : Array α → Nat → Array (α × Nat)
Array.sum : Array α → α
Array.max? : Array α → Option α
Array.min? : Array α → Option α
Array.sortDedup : Array α → Array α
Array.qsort : Array α → (α → α → Bool) → Nat → Nat → Array α
Array.takeWhile : (α → Bool) → Array α → Array α
Array.take : Array α → Nat → Array α
Array.drop : Array α → Nat → Array α
Array.flatten : Array (Array α) → Array α
Array.flatMap : (α → Array β) → Array α → Array β
Array.idxOf? : Array α → α → Option Nat
Array.all₂ : (α → β → Bool) → Array α → Array β → Bool
Array.zipWith : (α → β → γ) → Array α → Array β → Array γ
Array.isPrefixOf : Array α → Array α → Bool
Array.eraseIdx! : Array α → Nat → Array α
Array.insertIdx! : Array α → Nat → α → Array α
Array.swap! : Array α → Nat → Nat → Array α
Array.toListRev : Array α → List α
Array.partition : (α → Bool) → Array α → Array α × Array α
Array.elem : α → Array α → Bool
Array.getIdx? : Array α → α → Option Nat
Array.ofFn : (Fin ε → α) → Array α
Array.swap : Array α → Nat → Nat → Array α
Array.eraseIdx : Array α → Nat → Array α
Array.toSubarray : Array α → Nat → Nat → Subarray α
Array.ofSubarray : Subarray α → Array α
Subarray.toArray : Subarray α → Array α
Subarray.size : Subarray α → Nat
Subarray.array : Subarray α → Array α
Subarray.start : Subarray α → Nat
Subarray.stop : Subarray α → Nat
Subarray.foldl : (β → α → β) → β → Subarray α → β
Subarray.foldr : (α → β → β) → β → Subarray α → β
Subarray.any : (α → Bool) → Subarray α → Bool
Subarray.all : (α → Bool) → Subarray α → Bool
Subarray.popFront : Subarray α → Subarray α
Std.Slice.toList : Subarray α → List α
Bool.not : Bool → Bool
Bool.toNat : Bool → Nat
Bool.xor : Bool → Bool → Bool
Bool.and : Bool → Bool → Bool
Bool.or : Bool → Bool → Bool
Bool.decEq : Bool → Bool → Bool
Char.isAlpha : Char → Bool
Char.isAlphanum : Char → Bool
Char.isDigit : Char → Bool
Char.isLower : Char → Bool
Char.isUpper : Char → Bool
Char.isWhitespace : Char → Bool
Char.ofNat : Nat → Char
Char.toLower : Char → Char
Char.toUpper : Char → Char
Char.toNat : Char → Nat
Char.toString : Char → String
Char.toUInt8 : Char → UInt8
Char.val : Char → UInt32
Even : α → Prop
Odd : α → Prop
Float.abs : Float → Float
Float.add : Float → Float → Float
Float.beq : Float → Float → Bool
Float.ceil : Float → Float
Float.cos : Float → Float
Float.div : Float → Float → Float
Float.exp : Float → Float
Float.floor : Float → Float
Float.isFinite : Float → Bool
Float.isInf : Float → Bool
Float.isNaN : Float → Bool
Float.le : Float → Float → Prop
Float.log : Float → Float
Float.lt : Float → Float → Prop
Float.mul : Float → Float → Float
Float.neg : Float → Float
Float.ofInt : Int → Float
Float.ofNat : Nat → Float
Float.ofScientific : Nat → Bool → Nat → Float
Float.pow : Float → Float → Float
Float.round : Float → Float
Float.sin : Float → Float
Float.sqrt : Float → Float
Float.sub : Float → Float → Float
Float.tan : Float → Float
Float.toString : Float → String
Float.toUInt16 : Float → UInt16
Float.toUInt32 : Float → UInt32
Float.toUInt64 : Float → UInt64
Float.toUInt8 : Float → UInt8
Float.max : Float → Float → Float
Float.min : Float → Float → Float
Float.decLt : Float → Float → Bool
Float.decLe : Float → Float → Bool
Float.toInt64 : Float → Int64
Float.log2 : Float → Float
Float.log10 : Float → Float
Float.exp2 : Float → Float
Float.atan : Float → Float
Float.atan2 : Float → Float → Float
Float.cbrt : Float → Float
Function.comp : (β → γ) → (α → β) → α → γ
Id.run : α → α
Int.add : Int → Int → Int
Int.bmod : Int → Nat → Int
Int.ediv : Int → Int → Int
Int.emod : Int → Int → Int
Int.fdiv : Int → Int → Int
Int.fmod : Int → Int → Int
Int.tdiv : Int → Int → Int
Int.tmod : Int → Int → Int
Int.div : Int → Int → Int
Int.mod : Int → Int → Int
Int.gcd : Int → Int → Nat
Int.lcm : Int → Int → Nat
Int.mul : Int → Int → Int
Int.natAbs : Int → Nat
Int.neg : Int → Int
Int.negSucc : Nat → Int
Int.ofNat : Nat → Int
Int.pow : Int → Nat → Int
Int.repr : Int → String
Int.sign : Int → Int
Int.sub : Int → Int → Int
Int.toNat : Int → Nat
Int.toNat' : Int → Option Nat
Int.natMod : Int → Int → Nat
Int.abs : Int → Int
Int.max : Int → Int → Int
Int.min : Int → Int → Int
Int.toFloat : Int → Float
Int.cast : Int → α
Int.toString : Int → String
Int.emod_emod_of_dvd : Int → Int → Int
List.Nodup : List α → Prop
List.Pairwise : (α → α → Prop) → List α → Prop
List.Perm : List α → List α → Prop
List.Sorted : (α → α → Prop) → List α → Prop
List.Sublist : List α → List α → Prop
List.Chain' : (α → α → Prop) → List α → Prop
List.all : List α → (α → Bool) → Bool
List.and : List Bool → Bool
List.any : List α → (α → Bool) → Bool
List.append : List α → List α → List α
List.asString : List Char → String
List.beq : List α → List α → Bool
List.concat : List α → α → List α
List.cons : α → List α → List α
List.contains : List α → α → Bool
List.count : α → List α → Nat
List.countP : (α → Bool) → List α → Nat
List.drop : Nat → List α → List α
List.dropLast : List α → List α
List.dropWhile : (α → Bool) → List α → List α
List.elem : α → List α → Bool
List.erase : List α → α → List α
List.eraseDups : List α → List α
List.eraseIdx : List α → Nat → List α
List.eraseReps : List α → List α
List.extract : List α → Nat → Nat → List α
List.filter : (α → Bool) → List α → List α
List.filterMap : (α → Option β) → List α → List β
List.find? : (α → Bool) → List α → Option α
List.findIdx : (α → Bool) → List α → Nat
List.findIdx? : (α → Bool) → List α → Option Nat
List.findSome? : (α → Option β) → List α → Option β
List.flatMap : (α → List β) → List α → List β
List.flatten : List (List α) → List α
List.join : List (List α) → List α
List.foldl : (α → β → α) → α → List β → α
List.foldr : (α → β → β) → β → List α → β
List.get! : List α → Nat → α
List.get? : List α → Nat → Option α
List.getD : List α → Nat → α → α
List.getElem! : List α → Nat → α
List.getElem? : List α → Nat → Option α
List.getLast! : List α → α
List.getLast? : List α → Option α
List.getLastD : List α → α → α
List.head! : List α → α
List.head? : List α → Option α
List.headD : List α → α → α
List.idxOf : α → List α → Nat
List.idxOf? : α → List α → Option Nat
List.indexOf : α → List α → Nat
List.indexOf? : α → List α → Option Nat
List.insert : α → List α → List α
List.intercalate : List α → List (List α) → List α
List.intersperse : α → List α → List α
List.isEmpty : List α → Bool
List.isPerm : List α → List α → Bool
List.isPrefixOf : List α → List α → Bool
List.isSuffixOf : List α → List α → Bool
List.isSublist : List α → List α → Bool
List.length : List α → Nat
List.lookup : α → List (α × β) → Option β
List.map : (α → β) → List α → List β
List.mapIdx : (Nat → α → β) → List α → List β
List.max? : List α → Option α
List.maximum? : List α → Option α
List.min? : List α → Option α
List.minimum? : List α → Option α
List.merge : List α → List α → (α → α → Bool) → List α
List.mergeSort : List α → (α → α → Bool) → List α
List.or : List Bool → Bool
List.partition : (α → Bool) → List α → List α × List α
List.range : Nat → List Nat
List.range' : Nat → Nat → Nat → List Nat
List.reduceOption : List (Option α) → List α
List.removeAll : List α → List α → List α
List.replace : List α → α → α → List α
List.replicate : Nat → α → List α
List.reverse : List α → List α
List.rotateLeft : List α → Nat → List α
List.rotateRight : List α → Nat → List α
List.set : List α → Nat → α → List α
List.singleton : α → List α
List.span : (α → Bool) → List α → List α × List α
List.splitAt : Nat → List α → List α × List α
List.sublists : List α → List (List α)
List.sum : List α → α
List.prod : List α → α
List.tail : List α → List α
List.tail! : List α → List α
List.tail? : List α → Option (List α)
List.tailD : List α → List α → List α
List.take : Nat → List α → List α
List.takeWhile : (α → Bool) → List α → List α
List.toArray : List α → Array α
List.toString : List α → String
List.unzip : List (α × β) → List α × List β
List.zip : List α → List β → List (α × β)
List.zipIdx : List α → Nat → List (α × Nat)
List.enum : List α → List (Nat × α)
List.zipWith : (α → β → γ) → List α → List β → List γ
List.insertionSort : (α → α → Bool) → List α → List α
List.dedup : List α → List α
List.nil : List α
List.iota : Nat → List Nat
List.get : List α → Nat → α
List.last : List α → α
List.last! : List α → α
List.last? : List α → Option α
List.getLast : List α → α
List.head : List α → α
List.minimum : List α → α
List.maximum : List α → α
List.bagInter : List α → List α → List α
List.diff : List α → List α → List α
List.inter : List α → List α → List α
List.union : List α → List α → List α
List.product : List α → List β → List (α × β)
List.sortBy : List α → (α → α → Bool) → List α
List.foldlIdx : (Nat → α → β → α) → α → List β → α
List.permutations : List α → List (List α)
List.modify : List α → Nat → (α → α) → List α
List.insertIdx : List α → Nat → α → List α
List.splitBy : List α → (α → α → Bool) → List (List α)
List.groupBy : List α → (α → α → Bool) → List (List α)
List.finRange : Nat → List Nat
List.sort : List α → List α
List.map₂ : (α → β → γ) → List α → List β → List γ
List.toFinset : List α → Finset α
List.count' : α → List α → Nat
Max.max : α → α → α
Min.min : α → α → α
max : α → α → α
min : α → α → α
Nat.Coprime : Nat → Nat → Prop
Nat.Prime : Nat → Prop
Nat.add : Nat → Nat → Nat
Nat.beq : Nat → Nat → Bool
Nat.ble : Nat → Nat → Bool
Nat.blt : Nat → Nat → Bool
Nat.digits : Nat → Nat → List Nat
Nat.div : Nat → Nat → Nat
Nat.gcd : Nat → Nat → Nat
Nat.land : Nat → Nat → Nat
Nat.lcm : Nat → Nat → Nat
Nat.log2 : Nat → Nat
Nat.lor : Nat → Nat → Nat
Nat.max : Nat → Nat → Nat
Nat.min : Nat → Nat → Nat
Nat.mod : Nat → Nat → Nat
Nat.mul : Nat → Nat → Nat
Nat.pow : Nat → Nat → Nat
Nat.pred : Nat → Nat
Nat.repr : Nat → String
Nat.shiftLeft : Nat → Nat → Nat
Nat.shiftRight : Nat → Nat → Nat
Nat.sqrt : Nat → Nat
Nat.sub : Nat → Nat → Nat
Nat.succ : Nat → Nat
Nat.testBit : Nat → Nat → Bool
Nat.toDigits : Nat → Nat → List Char
Nat.toFloat : Nat → Float
Nat.toUInt16 : Nat → UInt16
Nat.toUInt32 : Nat → UInt32
Nat.toUInt64 : Nat → UInt64
Nat.toUInt8 : Nat → UInt8
Nat.xor : Nat → Nat → Nat
Nat.factorial : Nat → Nat
Nat.fact : Nat → Nat
Nat.choose : Nat → Nat → Nat
Nat.fib : Nat → Nat
Nat.dist : Nat → Nat → Nat
Nat.cast : Nat → α
Nat.toString : Nat → String
Nat.isPowerOfTwo : Nat → Prop
Nat.divisors : Nat → Finset Nat
Nat.log : Nat → Nat → Nat
Nat.decEq : Nat → Nat → Bool
Nat.toInt : Nat → Int
Nat.fold : Nat → (Nat → ε → α → α) → α → α
Nat.foldRev : Nat → (Nat → ε → α → α) → α → α
Nat.all : Nat → (Nat → ε → Bool) → Bool
Nat.any : Nat → (Nat → ε → Bool) → Bool
Nat.repeat : (α → α) → Nat → α → α
Option.bind : Option α → (α → Option β) → Option β
Option.filter : (α → Bool) → Option α → Option α
Option.get! : Option α → α
Option.getD : Option α → α → α
Option.isNone : Option α → Bool
Option.isSome : Option α → Bool
Option.map : (α → β) → Option α → Option β
Option.toList : Option α → List α
Option.some : α → Option α
Option.none : Option α
Option.get : Option α → α
Option.orElse : Option α → (Unit → Option α) → Option α
Option.all : (α → Bool) → Option α → Bool
Option.any : (α → Bool) → Option α → Bool
Prod.fst : α × β → α
Prod.map : (α → γ) → (β → δ) → α × β → γ × δ
Prod.mk : α → β → α × β
Prod.snd : α × β → β
Prod.swap : α × β → β × α
Std.HashMap.alter : Std.HashMap α β → α → (Option β → Option β) → Std.HashMap α β
Std.HashMap.contains : Std.HashMap α β → α → Bool
Std.HashMap.empty : Nat → Std.HashMap α β
Std.HashMap.emptyWithCapacity : Nat → Std.HashMap α β
Std.HashMap.erase : Std.HashMap α β → α → Std.HashMap α β
Std.HashMap.get! : Std.HashMap α β → α → β
Std.HashMap.get? : Std.HashMap α β → α → Option β
Std.HashMap.getD : Std.HashMap α β → α → β → β
Std.HashMap.getElem! : Std.HashMap α β → α → β
Std.HashMap.getElem? : Std.HashMap α β → α → Option β
Std.HashMap.insert : Std.HashMap α β → α → β → Std.HashMap α β
Std.HashMap.insertIfNew : Std.HashMap α β → α → β → Std.HashMap α β
Std.HashMap.isEmpty : Std.HashMap α β → Bool
Std.HashMap.modify : Std.HashMap α β → α → (β → β) → Std.HashMap α β
Std.HashMap.size : Std.HashMap α β → Nat
Std.HashMap.ofList : List (α × β) → Std.HashMap α β
Std.HashMap.toList : Std.HashMap α β → List (α × β)
Std.HashMap.keys : Std.HashMap α β → List α
Std.HashMap.values : Std.HashMap α β → List β
Std.HashMap.fold : Std.HashMap α β → (γ → α → β → γ) → γ → γ
Std.HashSet.contains : Std.HashSet α → α → Bool
Std.HashSet.toArray : Std.HashSet α → Array α
Std.HashSet.fold : Std.HashSet α → (γ → α → γ) → γ → γ
Std.HashSet.insertMany : Std.HashSet α → List α → Std.HashSet α
Std.HashMap.toArray : Std.HashMap α β → Array (α × β)
Std.HashMap.keysArray : Std.HashMap α β → Array α
Std.HashMap.valuesArray : Std.HashMap α β → Array β
Std.HashMap.insertMany : Std.HashMap α β → List (α × β) → Std.HashMap α β
Std.HashSet.empty : Nat → Std.HashSet α
Std.HashSet.emptyWithCapacity : Nat → Std.HashSet α
Std.HashSet.erase : Std.HashSet α → α → Std.HashSet α
Std.HashSet.insert : Std.HashSet α → α → Std.HashSet α
Std.HashSet.isEmpty : Std.HashSet α → Bool
Std.HashSet.size : Std.HashSet α → Nat
Std.HashSet.ofList : List α → Std.HashSet α
Std.HashSet.toList : Std.HashSet α → List α
String.Iterator.atEnd : String.Iterator → Bool
String.Iterator.curr : String.Iterator → Char
String.Iterator.hasNext : String.Iterator → Bool
String.Iterator.next : String.Iterator → String.Iterator
String.Iterator.remainingToString : String.Iterator → String
String.all : String → (Char → Bool) → Bool
String.any : String → (Char → Bool) → Bool
String.append : String → String → String
String.back : String → Char
String.capitalize : String → String
String.contains : String → Char → Bool
String.data : String → List Char
String.decapitalize : String → String
String.drop : String → Nat → String
String.dropRight : String → Nat → String
String.dropRightWhile : String → (Char → Bool) → String
String.dropWhile : String → (Char → Bool) → String
String.endsWith : String → String → Bool
String.foldl : (α → Char → α) → α → String → α
String.foldr : (Char → α → α) → α → String → α
String.front : String → Char
String.intercalate : String → List String → String
String.isEmpty : String → Bool
String.isInt : String → Bool
String.isNat : String → Bool
String.isPrefixOf : String → String → Bool
String.iter : String → String.Iterator
String.join : List String → String
String.length : String → Nat
String.map : (Char → Char) → String → String
String.mk : List Char → String
String.mkIterator : String → String.Iterator
String.push : String → Char → String
String.pushn : String → Char → Nat → String
String.replace : String → String → String → String
String.singleton : Char → String
String.split : String → (Char → Bool) → List String
String.splitOn : String → String → List String
String.startsWith : String → String → Bool
String.take : String → Nat → String
String.takeRight : String → Nat → String
String.takeRightWhile : String → (Char → Bool) → String
String.takeWhile : String → (Char → Bool) → String
String.toInt! : String → Int
String.toInt? : String → Option Int
String.toList : String → List Char
String.toLower : String → String
String.toNat! : String → Nat
String.toNat? : String → Option Nat
String.toUpper : String → String
String.trim : String → String
String.trimLeft : String → String
String.trimRight : String → String
String.get : String → Nat → Char
String.get! : String → Nat → Char
String.reverse : String → String
String.revPosOf : String → Char → Option Nat
String.posOf : String → Char → Nat
String.count : String → Char → Nat
String.isPalindrome : String → Bool
String.filter : (Char → Bool) → String → String
String.ofList : List Char → String
String.toArray : String → Array Char
String.words : String → List String
String.lines : String → List String
ToString.toString : α → String
toString : α → String
repr : α → String
UInt8.ofNat : Nat → UInt8
UInt8.toNat : UInt8 → Nat
UInt16.ofNat : Nat → UInt16
UInt16.toNat : UInt16 → Nat
UInt32.ofNat : Nat → UInt32
UInt32.toNat : UInt32 → Nat
UInt64.ofNat : Nat → UInt64
UInt64.toNat : UInt64 → Nat
UInt64.toFloat : UInt64 → Float
UInt8.toUInt16 : UInt8 → UInt16
UInt8.toUInt32 : UInt8 → UInt32
UInt8.toUInt64 : UInt8 → UInt64
UInt16.toUInt8 : UInt16 → UInt8
UInt16.toUInt32 : UInt16 → UInt32
UInt16.toUInt64 : UInt16 → UInt64
UInt32.toUInt8 : UInt32 → UInt8
UInt32.toUInt16 : UInt32 → UInt16
UInt32.toUInt64 : UInt32 → UInt64
UInt64.toUInt8 : UInt64 → UInt8
UInt64.toUInt16 : UInt64 → UInt16
UInt64.toUInt32 : UInt64 → UInt32
and : Bool → Bool → Bool
or : Bool → Bool → Bool
not : Bool → Bool
xor : Bool → Bool → Bool
id : α → α
Decidable.decide : Prop → Bool
"""

_UINT_OPS = ("add", "sub", "mul", "div", "mod", "land", "lor", "xor", "shiftLeft", "shiftRight")


def _uint_signatures() -> str:
    lines = []
    for n in ("UInt8", "UInt16", "UInt32", "UInt64"):
        for op in _UINT_OPS:
            lines.append(f"{n}.{op} : {n} → {n} → {n}")
        lines.append(f"{n}.complement : {n} → {n}")
        lines.append(f"{n}.toFloat : {n} → Float")
    return "\n".join(lines)


_GREEK = frozenset("αβγδεσ")


def _vars(ty: LeanType) -> LeanType:
    if isinstance(ty, NamedType):
        if not ty.args and ty.name in _GREEK:
            return TVar(ty.name)
        if ty.args:
            return NamedType(ty.name, tuple(_vars(a) for a in ty.args))
        return ty
    if isinstance(ty, ProdType):
        return ProdType(_vars(ty.fst), _vars(ty.snd))
    if isinstance(ty, FunType):
        return FunType(_vars(ty.domain), _vars(ty.codomain))
    return ty


@dataclass(frozen=True, slots=True)
class Signature:
    params: tuple[LeanType, ...]
    result: LeanType


def split_fun(ty: LeanType, n: int) -> Signature:
    params: list[LeanType] = []
    while len(params) < n and isinstance(ty, FunType):
        params.append(ty.domain)
        ty = ty.codomain
    return Signature(tuple(params), ty)


@lru_cache(maxsize=1)
def _signature_types() -> dict[str, LeanType]:
    table: dict[str, LeanType] = {}
    for line in (_SIGNATURE_TEXT + "\n" + _uint_signatures()).splitlines():
        line = line.strip()
        if not line:
            continue
        name, _, text = line.partition(" : ")
        table[name.strip()] = _vars(parse_type(text.strip()))
    return table


def signature(name: str, arity: int) -> Signature | None:
    """The signature of builtin ``name`` with its first ``arity`` explicit parameters."""
    ty = _signature_types().get(name)
    if ty is None:
        return None
    sig = split_fun(ty, arity)
    if len(sig.params) < arity:
        # the signature lists fewer parameters than the implementation takes (optional ones)
        sig = Signature(sig.params + (UNKNOWN,) * (arity - len(sig.params)), sig.result)
    return sig


def known_signature_names() -> frozenset[str]:
    return frozenset(_signature_types())


def fin_bound(ty: LeanType | None) -> int | None:
    if isinstance(ty, NamedType) and ty.name == "Fin" and ty.args and isinstance(ty.args[0], NatLitType):
        return ty.args[0].value
    return None


def describe(ty: LeanType | None) -> str:
    return "?" if ty is None else str(ty)


def check_numeral_type(ty: LeanType | None, value: int) -> Any:
    """The runtime value of numeral ``value`` at type ``ty`` (``Nat`` when unknown)."""
    from veriscale.runtime import FIXED_WIDTH_TYPES

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
