"""``Fin n`` folds and ranges (``Init/Data/Fin/Fold.lean``, ``Init/Data/List/FinRange.lean``).

A value of ``Fin n`` is the structure ``⟨val, isLt⟩``; at run time the engine keeps only ``val``, a
``Nat`` (the proof is erased, as Lean's compiler erases it). So ``Fin.foldl n f init`` passes
``0, 1, …, n-1`` to ``f`` as naturals; the elaborator knows them as ``Fin n`` and uses their bound
for index obligations (``xs[i]`` with ``i : Fin xs.size``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins.numbers import _bound
from veriscale.backends.embedded.registry import MAX_COLLECTION, builtin
from veriscale.lean.values import BudgetExceeded, Nat


@builtin("Fin.foldl", "{α : Sort u} (n : Nat) (f : α → Fin n → α) (init : α) : α")
def fin_foldl(n: Any, f: Callable[..., Any], init: Any) -> Any:
    """``Fin.foldl 3 f x = f (f (f x 0) 1) 2``."""
    acc = init
    for i in range(_bound(n, "Fin.foldl")):
        acc = f(acc, Nat(i))
    return acc


@builtin("Fin.foldr", "{α : Sort u} (n : Nat) (f : Fin n → α → α) (init : α) : α")
def fin_foldr(n: Any, f: Callable[..., Any], init: Any) -> Any:
    """``Fin.foldr 3 f x = f 0 (f 1 (f 2 x))``: ``f (n-1)`` is applied first."""
    acc = init
    for i in reversed(range(_bound(n, "Fin.foldr"))):
        acc = f(Nat(i), acc)
    return acc


@builtin("List.finRange", "(n : Nat) : List (Fin n)")
def list_fin_range(n: Any) -> tuple[Nat, ...]:
    """``List.finRange n = [0, 1, …, n-1]`` as elements of ``Fin n``."""
    size = _bound(n, "List.finRange")
    if size > MAX_COLLECTION:
        raise BudgetExceeded(f"List.finRange {size}")
    return tuple(Nat(i) for i in range(size))


@builtin("Fin.val", "{n : Nat} (self : Fin n) : Nat")
def fin_val(i: Any) -> Any:
    """The structure projection ``Fin.val`` (``i.val``, ``i.1``, ``↑i``): the number itself."""
    return i


__all__ = ["fin_foldl", "fin_foldr", "fin_val", "list_fin_range"]
