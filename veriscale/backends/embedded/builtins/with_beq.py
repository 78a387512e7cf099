"""Library functions with an ``[BEq α]`` binder, evaluated with a given ``BEq`` instance.

The builtins of :mod:`.lists` and :mod:`.arrays` compare with the global instances
(:func:`.order.lean_beq`). When Lean's instance resolution gives the binder a *local* instance
(``have : BEq Int := ⟨f⟩`` in scope, see :mod:`..elab.instances`), the function compares with
that instance's method instead. Each function here takes the method ``beq`` first, then Lean's
explicit arguments in Lean's order, and calls ``beq`` with its arguments in the order Lean's
definition does (Init/Data/List/Basic.lean, Init/Data/Array/Basic.lean; the method need not be
symmetric): ``List.elem a l`` tests ``a == b`` for each element ``b``, ``List.count a`` is
``countP (· == a)``, and so on. The method is a user function: its calls charge their own steps.

:func:`seq_beq`, :func:`option_beq` and :func:`prod_beq` build the core instances of ``List``,
``Array``, ``Option`` and ``Prod`` from their components' instances (``List.beq``, the derived
``BEq (Option α)``, ``instBEqProd``, ``Array.isEqv``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import nat
from veriscale.backends.embedded.runtime_support import binary
from veriscale.lean.values import NONE, Arr, Nat, Pair, Some

Beq = Callable[[Any, Any], Any]


# -- core instances built from their components' ------------------------------------------------
def seq_beq(elem: Beq) -> Beq:
    """``List.beq``/``Array.isEqv xs ys (· == ·)``: same length, pairwise ``x == y``, left to right."""
    eq = binary(elem)

    def beq(xs: Any, ys: Any) -> bool:
        xs_t = tuple(xs) if type(xs) is Arr else xs
        ys_t = tuple(ys) if type(ys) is Arr else ys
        return len(xs_t) == len(ys_t) and all(eq(x, y) for x, y in zip(xs_t, ys_t))

    return beq


def option_beq(elem: Beq) -> Beq:
    """The derived ``BEq (Option α)``: ``none == none``, ``some a == some b`` is ``a == b``."""
    eq = binary(elem)

    def beq(a: Any, b: Any) -> bool:
        if type(a) is Some and type(b) is Some:
            return bool(eq(a.value, b.value))
        return a is NONE and b is NONE

    return beq


def prod_beq(fst: Beq, snd: Beq) -> Beq:
    """``instBEqProd``: ``a₁ == a₂ && b₁ == b₂``."""
    eq1, eq2 = binary(fst), binary(snd)

    def beq(a: Pair, b: Pair) -> bool:
        return bool(eq1(a.fst, b.fst)) and bool(eq2(a.snd, b.snd))

    return beq


# -- library functions ----------------------------------------------------------------------------
def _elements(xs: Any) -> tuple:
    return tuple(xs) if type(xs) is Arr else xs


def list_elem(beq: Beq, a: Any, xs: tuple) -> bool:
    """``elem a (b :: bs) = match a == b with | true => true | false => elem a bs``."""
    eq = binary(beq)
    return any(eq(a, b) for b in xs)


def list_contains(beq: Beq, xs: tuple, a: Any) -> bool:
    """``contains as a = elem a as``."""
    return list_elem(beq, a, xs)


def array_contains(beq: Beq, xs: Arr, a: Any) -> bool:
    """``Array.contains as a = as.any (a == ·)``."""
    return list_elem(beq, a, _elements(xs))


def array_elem(beq: Beq, a: Any, xs: Arr) -> bool:
    """``Array.elem a as = as.contains a``."""
    return array_contains(beq, xs, a)


def list_count(beq: Beq, a: Any, xs: tuple) -> Nat:
    """``count a = countP (· == a)``."""
    eq = binary(beq)
    return nat(sum(1 for x in xs if eq(x, a)))


def list_idx_of(beq: Beq, a: Any, xs: tuple) -> Nat:
    """``idxOf a = findIdx (· == a)``: the length when absent."""
    eq = binary(beq)
    for i, x in enumerate(xs):
        if eq(x, a):
            return nat(i)
    return nat(len(xs))


def list_idx_of_opt(beq: Beq, a: Any, xs: tuple) -> Any:
    """``idxOf? a = findIdx? (· == a)``."""
    eq = binary(beq)
    for i, x in enumerate(xs):
        if eq(x, a):
            return Some(nat(i))
    return NONE


def list_lookup(beq: Beq, a: Any, xs: tuple) -> Any:
    """``lookup a ((k, b) :: es) = match a == k with | true => some b | false => lookup a es``."""
    eq = binary(beq)
    for p in xs:
        if eq(a, p.fst):
            return Some(p.snd)
    return NONE


def list_erase(beq: Beq, xs: tuple, a: Any) -> tuple:
    """``erase (x :: xs) a = match x == a with | true => xs | false => x :: erase xs a``."""
    eq = binary(beq)
    for i, x in enumerate(xs):
        if eq(x, a):
            return xs[:i] + xs[i + 1:]
    return xs


def list_erase_dups(beq: Beq, xs: tuple) -> tuple:
    """``eraseDupsBy (· == ·)``: an element is dropped when ``a == b`` for a kept ``b``."""
    eq = binary(beq)
    kept: list[Any] = []
    for a in xs:
        if not any(eq(a, b) for b in reversed(kept)):
            kept.append(a)
    return tuple(kept)


def list_erase_reps(beq: Beq, xs: tuple) -> tuple:
    """``eraseReps``: the first element of each run of ``run_head == next``."""
    eq = binary(beq)
    out: list[Any] = []
    for a in xs:
        if not out or not eq(out[-1], a):
            out.append(a)
    return tuple(out)


def list_beq(beq: Beq, xs: tuple, ys: tuple) -> bool:
    """``List.beq``."""
    return seq_beq(beq)(xs, ys)


def list_is_prefix_of(beq: Beq, xs: tuple, ys: tuple) -> bool:
    """``isPrefixOf (a :: as) (b :: bs) = a == b && isPrefixOf as bs``."""
    eq = binary(beq)
    return len(xs) <= len(ys) and all(eq(a, b) for a, b in zip(xs, ys))


BEQ_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "List.elem": list_elem,
    "List.contains": list_contains,
    "List.count": list_count,
    "List.idxOf": list_idx_of,
    "List.indexOf": list_idx_of,
    "List.idxOf?": list_idx_of_opt,
    "List.indexOf?": list_idx_of_opt,
    "List.lookup": list_lookup,
    "List.erase": list_erase,
    "List.eraseDups": list_erase_dups,
    "List.eraseReps": list_erase_reps,
    "List.beq": list_beq,
    "List.isPrefixOf": list_is_prefix_of,
    "Array.contains": array_contains,
    "Array.elem": array_elem,
}
"""Library functions evaluated with the instance their ``[BEq α]`` binder receives, by name."""

__all__ = ["BEQ_FUNCTIONS", "option_beq", "prod_beq", "seq_beq"]
