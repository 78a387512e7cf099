"""Lean's ``<``, ``≤``, ``==`` and ``=`` on runtime values, and ``max``/``min``.

* ``<``/``≤`` follow the ``LT``/``LE`` instances: numbers and ``Char`` by value, ``Float`` by IEEE
  (every comparison with NaN is false), ``String`` lexicographically by code point, ``List``
  lexicographically (``List.lt`` is ``List.Lex (· < ·)``: the first position where the heads are
  not equal decides, by ``<``; ``l₁ ≤ l₂`` is ``¬ l₂ < l₁``). Types whose instance differs between
  core Lean and Mathlib (``Prod``: lexicographic in core, componentwise with Mathlib) or that we
  could not pin down (``Array``, ``Option``, ``Bool``) raise :class:`Unsupported`.
* ``==`` follows the ``BEq`` instances: IEEE on ``Float`` (``NaN != NaN``, ``0.0 == -0.0``),
  elementwise on containers (so ``[NaN] == [NaN]`` is false), structural elsewhere.
* ``=`` (``DecidableEq``) is structural; ``Float`` has no ``DecidableEq`` instance, so deciding
  ``x = y`` on floats is not something Lean does.
* ``max``/``min`` are ``maxOfLe``/``minOfLe`` (``max x y = if x ≤ y then y else x``,
  ``min x y = if x ≤ y then x else y``), which is also how ``Nat.max``/``Nat.min`` are defined.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from veriscale.backends.embedded.builtins._core import type_name_of
from veriscale.backends.embedded.registry import builtin
from veriscale.backends.embedded.runtime_support import LeanSubarray
from veriscale.lean.values import (
    UNIT,
    Arr,
    Char,
    Ctor,
    Nat,
    Pair,
    Some,
    Struct,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Unsupported,
    _NoneType,
)

_SCALAR_ORDERED = frozenset({"Nat", "Int", "UInt8", "UInt16", "UInt32", "UInt64", "Char", "String"})
#: the representations of the scalar kinds above and of Float: two values of one of these types
#: are compared by Python's operator, which is what `compare_lt`/`compare_le` do after `_kind`
_ORDERED_TYPES = frozenset({int, Nat, UInt8, UInt16, UInt32, UInt64, Char, str, float})


def _kind(a: Any, b: Any) -> str:
    ka, kb = type_name_of(a), type_name_of(b)
    if ka != kb:
        # Nat and Int literals can meet when the evaluator has not coerced yet; they order alike.
        if {ka, kb} <= {"Nat", "Int"}:
            return "Int"
        raise Unsupported("comparison", f"values of different types {ka} and {kb}")
    return ka


def compare_lt(a: Any, b: Any) -> bool:
    """Lean's ``a < b`` (decided)."""
    if type(a) is type(b) and type(a) in _ORDERED_TYPES:
        return bool(a < b)
    kind = _kind(a, b)
    if kind in _SCALAR_ORDERED:
        return bool(a < b)
    if kind == "Float":
        return bool(a < b)  # IEEE: false whenever a NaN is involved
    if kind == "List":
        for x, y in zip(a, b):
            if compare_lt(x, y):
                return True
            if not decidable_eq(x, y):
                return False
        return len(a) < len(b)
    raise Unsupported("<", f"no LT instance handled for {kind}")


def compare_le(a: Any, b: Any) -> bool:
    """Lean's ``a ≤ b`` (decided)."""
    if type(a) is type(b) and type(a) in _ORDERED_TYPES:
        return bool(a <= b)
    kind = _kind(a, b)
    if kind in _SCALAR_ORDERED:
        return bool(a <= b)
    if kind == "Float":
        return bool(a <= b)
    if kind == "List":
        # `List.le a b := ¬ b < a`
        return not compare_lt(b, a)
    raise Unsupported("≤", f"no LE instance handled for {kind}")


def lean_beq(a: Any, b: Any) -> bool:
    """Lean's ``a == b`` with the standard ``BEq`` instances (derived ones are fieldwise)."""
    ta = type(a)
    if ta is type(b) and (ta in SCALAR_TYPES or (ta is tuple and SCALAR_TYPES.issuperset(map(type, a)))):
        # scalars, and lists of scalars (at C speed): Python's `==` is Lean's (see `eq_is_beq`)
        return a == b
    if isinstance(a, float) or isinstance(b, float):
        return bool(a == b)
    if isinstance(a, (tuple, Arr)) and isinstance(b, (tuple, Arr)):
        if isinstance(a, Arr) != isinstance(b, Arr):
            return False
        return len(a) == len(b) and all(lean_beq(x, y) for x, y in zip(a, b))
    if isinstance(a, Pair) and isinstance(b, Pair):
        return lean_beq(a.fst, b.fst) and lean_beq(a.snd, b.snd)
    if isinstance(a, Some) and isinstance(b, Some):
        return lean_beq(a.value, b.value)
    if isinstance(a, Struct) and isinstance(b, Struct):
        return a.type_name == b.type_name and all(
            lean_beq(x, y) for (_, x), (_, y) in zip(a.fields, b.fields)
        )
    if isinstance(a, Ctor) and isinstance(b, Ctor):
        return a.name == b.name and len(a.args) == len(b.args) and all(
            lean_beq(x, y) for x, y in zip(a.args, b.args)
        )
    if isinstance(a, _NoneType) or isinstance(b, _NoneType):
        return a is b
    if callable(a) or callable(b):
        raise Unsupported("==", "functions have no BEq instance")
    if isinstance(a, LeanSubarray) or isinstance(b, LeanSubarray):
        raise Unsupported("==", "no BEq instance handled for Subarray")
    return bool(a == b)


def eq_is_beq(a: Any) -> bool:
    """Whether Python's ``==`` against ``a`` is exactly Lean's ``==`` against it.

    The two differ only at ``Float`` leaves (Python compares container members by identity
    first, so an identical ``NaN`` object is "equal" to itself) and at functions (no ``BEq``). A
    value with neither inside compares like Lean against any value of its type, since the other
    side has the same shape wherever the comparison looks.
    """
    if isinstance(a, (bool, int, str)):  # Nat, Int, UIntN, Char, String
        return True
    if isinstance(a, float) or callable(a):
        return False
    if isinstance(a, (tuple, Arr)):
        # the common case, a list of numbers or characters, checked at C speed
        return SCALAR_TYPES.issuperset(map(type, a)) or all(eq_is_beq(x) for x in a)
    if isinstance(a, Pair):
        return eq_is_beq(a.fst) and eq_is_beq(a.snd)
    if isinstance(a, Some):
        return eq_is_beq(a.value)
    if isinstance(a, Struct):
        return all(eq_is_beq(x) for _, x in a.fields)
    if isinstance(a, Ctor):
        return all(eq_is_beq(x) for x in a.args)
    return isinstance(a, _NoneType) or a is UNIT


#: Runtime types whose Lean equality is Python's ``==`` (numbers other than Float, strings, Bool).
SCALAR_TYPES = frozenset({bool, int, str, Nat, Char, UInt8, UInt16, UInt32, UInt64})
_MEMBERSHIP_MIN = 64
_MEMBERSHIP_SLOTS = 4
_queried_once: OrderedDict[int, tuple | Arr] = OrderedDict()
_membership_sets: OrderedDict[int, tuple[tuple | Arr, frozenset]] = OrderedDict()


def _membership_set(xs: tuple | Arr) -> frozenset | None:
    """The elements of a large list as a set, built when the same list object is searched a
    second time (``filter (fun l => big.contains l)``); a list searched once is scanned instead.
    The caches hold the tuples, so an id is not reused while it is a key; lists are immutable."""
    key = id(xs)
    hit = _membership_sets.get(key)
    if hit is not None:
        _membership_sets.move_to_end(key)
        return hit[1]
    if _queried_once.get(key) is not xs:
        _queried_once[key] = xs
        if len(_queried_once) > _MEMBERSHIP_SLOTS:
            _queried_once.popitem(last=False)
        return None
    del _queried_once[key]
    try:
        members = frozenset(xs)
    except TypeError:  # an unhashable runtime value: no shortcut
        return None
    _membership_sets[key] = (xs, members)
    if len(_membership_sets) > _MEMBERSHIP_SLOTS:
        _membership_sets.popitem(last=False)
    return members


def beq_member(a: Any, xs: tuple | Arr) -> bool:
    """``xs.contains a`` / ``xs.elem a``: whether some element is ``==`` to ``a``.

    When Python's equality is Lean's for ``a`` (see :func:`eq_is_beq`) the search runs in C, and
    repeated searches of one large list (``filter (fun l => big.contains l)``) hash it once.
    """
    if not eq_is_beq(a):
        return any(lean_beq(b, a) for b in xs)
    if len(xs) >= _MEMBERSHIP_MIN:
        members = _membership_set(xs)
        if members is not None:
            return a in members
    return a in xs  # C speed; exact because `==` is Lean's `==` here


def decidable_eq(a: Any, b: Any) -> bool:
    """Lean's decided ``a = b``; refuses floats, which have no ``DecidableEq`` instance."""
    if type(a) in SCALAR_TYPES and type(b) in SCALAR_TYPES:
        return a == b  # what the last line below answers for them, without the tests before it
    if isinstance(a, float) or isinstance(b, float):
        raise Unsupported("=", "Float has no DecidableEq instance")
    if isinstance(a, (tuple, Arr)) and isinstance(b, (tuple, Arr)):
        if isinstance(a, Arr) != isinstance(b, Arr):
            return False
        return len(a) == len(b) and all(decidable_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, Pair) and isinstance(b, Pair):
        return decidable_eq(a.fst, b.fst) and decidable_eq(a.snd, b.snd)
    if isinstance(a, Some) and isinstance(b, Some):
        return decidable_eq(a.value, b.value)
    if isinstance(a, Struct) and isinstance(b, Struct):
        return a.type_name == b.type_name and all(
            decidable_eq(x, y) for (_, x), (_, y) in zip(a.fields, b.fields)
        )
    if isinstance(a, Ctor) and isinstance(b, Ctor):
        return a.name == b.name and len(a.args) == len(b.args) and all(
            decidable_eq(x, y) for x, y in zip(a.args, b.args)
        )
    if callable(a) or callable(b):
        raise Unsupported("=", "equality of functions is not decidable")
    if isinstance(a, LeanSubarray) or isinstance(b, LeanSubarray):
        raise Unsupported("=", "no DecidableEq instance handled for Subarray")
    return bool(a == b)


def lean_max(a: Any, b: Any) -> Any:
    """``max a b`` = ``maxOfLe``: ``if a ≤ b then b else a``."""
    return b if compare_le(a, b) else a


def lean_min(a: Any, b: Any) -> Any:
    """``min a b`` = ``minOfLe``: ``if a ≤ b then a else b``."""
    return a if compare_le(a, b) else b


builtin("max", "{α : Type _} : α → α → α", verified=False)(lean_max)
builtin("min", "{α : Type _} : α → α → α", verified=False)(lean_min)
builtin("Max.max", "{α : Type _} : α → α → α", verified=False)(lean_max)
builtin("Min.min", "{α : Type _} : α → α → α", verified=False)(lean_min)
