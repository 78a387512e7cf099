"""``Ordering``, ``compare`` and core's global ``Ord`` instances (Init/Data/Ord.lean, Lean v4.24).

``inductive Ordering | lt | eq | gt deriving Inhabited, DecidableEq, Repr``: the values are
:data:`~veriscale.lean.values.ORDERING_LT` … (``Ctor`` values, so the derived ``BEq``/``=`` are the
structural ones and ``repr`` prints ``Ordering.lt``). Core gives it no ``ToString``, ``LT`` or
``Max`` instance; its ``Ord`` instance compares constructor indices (``compareOn (·.toCtorIdx)``).

The global ``Ord`` instances core declares, and what :func:`lean_compare` computes for them:

* ``Nat``, ``Int``, ``String``, ``Char``, ``UInt8``…``UInt64``: ``compareOfLessAndEq x y`` --
  ``.lt`` if ``x < y``, else ``.eq`` if ``x = y``, else ``.gt`` (``String``'s ``<`` is the
  lexicographic order of its characters, ``Char``'s that of the code points);
* ``Bool``: ``false < true``;
* ``Option α`` (``[Ord α]``): ``none < some _``, ``some x`` against ``some y`` is ``compare x y``;
* ``List α`` and ``Array α`` (``[Ord α]``): ``List.compareLex compare`` / ``Array.compareLex
  compare``: the first position whose elements do not compare ``.eq`` decides, a proper prefix is
  ``.lt``;
* ``Ordering``: by constructor index.

Products have none (``lexOrd`` is a ``def``; the instance attribute it carried by accident under
``import Std`` was removed in v4.23, lean4#9739), and neither have ``Float`` nor structures without
``deriving Ord``: :func:`lean_compare` refuses them (the elaborator cannot yet say which instance a
Mathlib import would add). The ``[Ord α]`` of a container's instance may be a *local* instance
(:mod:`..elab.instances`): :func:`seq_compare` and :func:`option_compare` build the container's
comparison from the element's.

``ltOfOrd``, ``leOfOrd``, ``beqOfOrd``, ``compareOfLessAndEq``, ``compareLex`` and ``compareOn``
are definitions, not instances: a local ``Ord`` never changes ``<``, ``≤``, ``==``, ``max`` or a
sort's default comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import type_name_of
from veriscale.backends.embedded.builtins.order import compare_lt, decidable_eq, lean_beq
from veriscale.backends.embedded.registry import builtin
from veriscale.backends.embedded.runtime_support import binary
from veriscale.lean.values import (
    ORDERING_EQ,
    ORDERING_GT,
    ORDERING_LT,
    ORDERINGS,
    Arr,
    Ctor,
    Some,
    Unsupported,
    _NoneType,
)

Compare = Callable[[Any, Any], Any]

_BY_LESS_AND_EQ = frozenset({"Nat", "Int", "String", "Char", "UInt8", "UInt16", "UInt32", "UInt64"})
"""Types whose core ``Ord`` instance is ``compareOfLessAndEq`` (their ``<`` and ``=`` are by value)."""


def ordering_of(value: Any) -> Ctor:
    """``value`` checked to be an ``Ordering``."""
    if type(value) is Ctor and value in ORDERINGS:
        return value
    raise Unsupported("Ordering", f"not an Ordering value: {value!r}")


def _less_and_eq(x: Any, y: Any) -> Ctor:
    """``compareOfLessAndEq x y`` for values compared by value (numbers, characters, strings)."""
    if x < y:
        return ORDERING_LT
    return ORDERING_EQ if x == y else ORDERING_GT


def lean_compare(a: Any, b: Any) -> Ctor:
    """``compare a b`` with core's global ``Ord`` instances (the elements' too)."""
    ka, kb = type_name_of(a), type_name_of(b)
    if ka != kb and not {ka, kb} <= {"Nat", "Int"}:
        raise Unsupported("compare", f"values of different types {ka} and {kb}")
    if ka in _BY_LESS_AND_EQ:
        return _less_and_eq(a, b)
    if ka == "Bool":
        return _less_and_eq(int(a), int(b))  # `false, true => .lt`, `true, false => .gt`
    if ka == "Option":
        return option_compare(lean_compare)(a, b)
    if ka in ("List", "Array"):
        return seq_compare(lean_compare)(a, b)
    if ka == "Ordering":
        return _less_and_eq(ORDERINGS.index(ordering_of(a)), ORDERINGS.index(ordering_of(b)))
    raise Unsupported("compare", f"no Ord instance handled for {ka}")


# -- core instances built from their components' ------------------------------------------------
def seq_compare(elem: Compare) -> Compare:
    """``List.compareLex cmp`` / ``Array.compareLex cmp``: left to right, the first pair of
    elements whose comparison is not ``.eq`` decides; when one runs out first it is ``.lt``."""
    cmp = binary(elem)

    def compare(xs: Any, ys: Any) -> Ctor:
        xs_t = tuple(xs) if type(xs) is Arr else xs
        ys_t = tuple(ys) if type(ys) is Arr else ys
        for x, y in zip(xs_t, ys_t):
            result = ordering_of(cmp(x, y))
            if result != ORDERING_EQ:
                return result
        return _less_and_eq(len(xs_t), len(ys_t))

    return compare


def option_compare(elem: Compare) -> Compare:
    """``instance [Ord α] : Ord (Option α)``: ``none`` first, two ``some`` by their values."""
    cmp = binary(elem)

    def compare(a: Any, b: Any) -> Ctor:
        if type(a) is Some and type(b) is Some:
            return ordering_of(cmp(a.value, b.value))
        if isinstance(a, _NoneType):
            return ORDERING_EQ if isinstance(b, _NoneType) else ORDERING_LT
        return ORDERING_GT

    return compare


# -- the class and its definitions ---------------------------------------------------------------
builtin("Ord.compare", "{α : Type u} [self : Ord α] : α → α → Ordering")(lean_compare)


@builtin("compareOn", "{β : Type u_1} {α : Sort u_2} [ord : Ord β] (f : α → β) (x y : α) : Ordering")
def compare_on(f: Callable[[Any], Any], x: Any, y: Any) -> Ctor:
    """``compareOn f x y = compare (f x) (f y)``."""
    return compare_on_with(lean_compare, f, x, y)


def compare_on_with(cmp: Compare, f: Callable[[Any], Any], x: Any, y: Any) -> Ctor:
    """``compareOn`` whose ``[Ord β]`` is the instance with method ``cmp``."""
    return ordering_of(binary(cmp)(f(x), f(y)))


@builtin("compareLex", "{α : Sort u_1} {β : Sort u_2} (cmp₁ cmp₂ : α → β → Ordering) (a : α) (b : β) : Ordering")
def compare_lex(cmp1: Compare, cmp2: Compare, a: Any, b: Any) -> Ctor:
    """``compareLex cmp₁ cmp₂ a b = (cmp₁ a b).then (cmp₂ a b)``."""
    first = ordering_of(binary(cmp1)(a, b))
    return ordering_of(binary(cmp2)(a, b)) if first == ORDERING_EQ else first


@builtin("compareOfLessAndEq",
         "{α : Type u} (x y : α) [LT α] [Decidable (x < y)] [DecidableEq α] : Ordering")
def compare_of_less_and_eq(x: Any, y: Any) -> Ctor:
    """``if x < y then .lt else if x = y then .eq else .gt`` (global ``<`` and ``=``)."""
    if compare_lt(x, y):
        return ORDERING_LT
    return ORDERING_EQ if decidable_eq(x, y) else ORDERING_GT


@builtin("compareOfLessAndBEq", "{α : Type u} (x y : α) [LT α] [Decidable (x < y)] [BEq α] : Ordering")
def compare_of_less_and_beq(x: Any, y: Any) -> Ctor:
    """``if x < y then .lt else if x == y then .eq else .gt`` (global ``<`` and ``==``)."""
    if compare_lt(x, y):
        return ORDERING_LT
    return ORDERING_EQ if lean_beq(x, y) else ORDERING_GT


@builtin("List.compareLex", "{α : Type u_1} (cmp : α → α → Ordering) : List α → List α → Ordering")
def list_compare_lex(cmp: Compare, xs: tuple, ys: tuple) -> Ctor:
    return seq_compare(cmp)(xs, ys)  # type: ignore[no-any-return]


@builtin("Array.compareLex", "{α : Type u_1} (cmp : α → α → Ordering) (a₁ a₂ : Array α) : Ordering")
def array_compare_lex(cmp: Compare, xs: Arr, ys: Arr) -> Ctor:
    return seq_compare(cmp)(xs, ys)  # type: ignore[no-any-return]


# -- Ordering's own functions --------------------------------------------------------------------
@builtin("Ordering.swap", ": Ordering → Ordering")
def ordering_swap(o: Any) -> Ctor:
    """``.lt`` and ``.gt`` exchanged."""
    return ORDERINGS[2 - ORDERINGS.index(ordering_of(o))]


@builtin("Ordering.then", "(a b : Ordering) : Ordering")
def ordering_then(a: Any, b: Any) -> Ctor:
    """``a`` unless it is ``.eq``, then ``b``. (Lean's ``@[macro_inline]`` does not evaluate ``b``
    when ``a`` decides; here both are values already: the same result, possibly more work.)"""
    first = ordering_of(a)
    return ordering_of(b) if first == ORDERING_EQ else first


def _test(name: str, true_for: frozenset[Ctor], doc: str) -> None:
    def test(o: Any) -> bool:
        return ordering_of(o) in true_for

    test.__doc__ = doc
    builtin(f"Ordering.{name}", ": Ordering → Bool")(test)


_test("isEq", frozenset({ORDERING_EQ}), "``eq => true | _ => false``")
_test("isNe", frozenset({ORDERING_LT, ORDERING_GT}), "``eq => false | _ => true``")
_test("isLE", frozenset({ORDERING_LT, ORDERING_EQ}), "``gt => false | _ => true``")
_test("isLT", frozenset({ORDERING_LT}), "``lt => true | _ => false``")
_test("isGT", frozenset({ORDERING_GT}), "``gt => true | _ => false``")
_test("isGE", frozenset({ORDERING_GT, ORDERING_EQ}), "``lt => false | _ => true``")


ORD_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "compareOn": compare_on_with,
}
"""Library functions evaluated with the instance their ``[Ord β]`` binder receives (the method
first, then Lean's explicit arguments), by name."""

__all__ = ["ORD_FUNCTIONS", "lean_compare", "option_compare", "ordering_of", "seq_compare"]
