"""``Subarray`` builtins (Init/Data/Array/Subarray.lean, Init/Data/Slice/Operations.lean, v4.24).

A subarray is a :class:`veriscale.backends.embedded.runtime_support.LeanSubarray` (the array and
the region ``start ≤ i < stop``; see its docstring for why it is not a plain copy). Facts
reproduced here:

* ``Array.toSubarray as (start := 0) (stop := as.size)`` clamps: ``stop' = min stop as.size`` and
  ``start' = min start stop'``. The slice syntax is a macro for it: ``a[i:j]`` is
  ``a.toSubarray i j``, ``a[:j]`` is ``a.toSubarray 0 j``, ``a[i:]`` is ``a.toSubarray i a.size``.
* ``Subarray.size s = s.stop - s.start``; ``toArray`` is ``Array.ofSubarray`` (pushes the region's
  elements in order), which is also the ``Coe (Subarray α) (Array α)`` coercion.
* ``foldl``/``foldr``/``any``/``all`` are the array's operations on the window ``start``..``stop``
  (``foldr`` from ``stop - 1`` down to ``start``); ``any``/``all`` take the predicate *first*
  (``Subarray.any (p) (as)``), unlike ``Array.any``.
* ``for x in s`` visits ``s.array[start]``, ..., ``s.array[stop-1]``.
* ``popFront`` drops the first element when ``start < stop``.
* ``Subarray`` is an abbreviation of ``Std.Slice (SubarrayData α)``, so field notation that finds
  no ``Subarray.f`` uses ``Std.Slice.f``: ``s.toList`` is ``Std.Slice.toList`` (the region as a
  list). There is no ``Subarray.toList``.
* ``∅ : Subarray α`` is ``Subarray.empty``, the empty region of ``#[]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import nat
from veriscale.backends.embedded.registry import builtin
from veriscale.backends.embedded.runtime_support import LeanSubarray
from veriscale.lean.values import Arr, Nat, Unsupported

Fn = Callable[..., Any]


def _sub(value: Any) -> LeanSubarray:
    if not isinstance(value, LeanSubarray):
        raise Unsupported("Subarray operation", f"on a {type(value).__name__}")
    return value


@builtin("Array.toSubarray", "{α : Type u} (as : Array α) (start : Nat := 0) (stop : Nat := as.size) : Subarray α", verified=False)
def array_to_subarray(xs: Arr, start: Any = 0, stop: Any = None) -> LeanSubarray:
    size = len(xs)
    stop_i = size if stop is None else min(int(stop), size)
    start_i = min(int(start), stop_i)
    return LeanSubarray(xs, start_i, stop_i)


@builtin("Array.ofSubarray", "{α : Type _} : Subarray α → Array α", verified=False)
def array_of_subarray(s: LeanSubarray) -> Arr:
    return Arr(_sub(s).items())


@builtin("Subarray.toArray", "{α : Type _} : Subarray α → Array α", verified=False)
def subarray_to_array(s: LeanSubarray) -> Arr:
    return Arr(_sub(s).items())


@builtin("Subarray.size", "{α : Type _} : Subarray α → Nat", verified=False)
def subarray_size(s: LeanSubarray) -> Nat:
    s = _sub(s)
    return nat(s.stop - s.start)


@builtin("Subarray.array", "{α : Type _} : Subarray α → Array α", verified=False)
def subarray_array(s: LeanSubarray) -> Arr:
    return _sub(s).array


@builtin("Subarray.start", "{α : Type _} : Subarray α → Nat", verified=False)
def subarray_start(s: LeanSubarray) -> Nat:
    return nat(_sub(s).start)


@builtin("Subarray.stop", "{α : Type _} : Subarray α → Nat", verified=False)
def subarray_stop(s: LeanSubarray) -> Nat:
    return nat(_sub(s).stop)


@builtin("Subarray.foldl", "{α : Type _} {β : Type _} : (β → α → β) → β → Subarray α → β", verified=False)
def subarray_foldl(f: Fn, init: Any, s: LeanSubarray) -> Any:
    acc = init
    for x in _sub(s).items():
        acc = f(acc, x)
    return acc


@builtin("Subarray.foldr", "{α : Type _} {β : Type _} : (α → β → β) → β → Subarray α → β", verified=False)
def subarray_foldr(f: Fn, init: Any, s: LeanSubarray) -> Any:
    acc = init
    for x in reversed(_sub(s).items()):
        acc = f(x, acc)
    return acc


@builtin("Subarray.any", "{α : Type _} : (α → Bool) → Subarray α → Bool", verified=False)
def subarray_any(p: Fn, s: LeanSubarray) -> bool:
    return any(p(x) for x in _sub(s).items())


@builtin("Subarray.all", "{α : Type _} : (α → Bool) → Subarray α → Bool", verified=False)
def subarray_all(p: Fn, s: LeanSubarray) -> bool:
    return all(p(x) for x in _sub(s).items())


@builtin("Subarray.popFront", "{α : Type _} : Subarray α → Subarray α", verified=False)
def subarray_pop_front(s: LeanSubarray) -> LeanSubarray:
    s = _sub(s)
    if s.start < s.stop:
        return LeanSubarray(s.array, s.start + 1, s.stop)
    return s


@builtin("Std.Slice.toList", "{α : Type _} : Subarray α → List α", verified=False)
def slice_to_list(s: LeanSubarray) -> tuple:
    return _sub(s).items()
