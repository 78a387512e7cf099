"""The library of Lean builtins, with Lean 4 (v4.24) semantics, registered in
:data:`veriscale.backends.embedded.registry.BUILTINS` on import.

Public API used by the evaluator:

* ``BUILTINS`` (re-exported from the registry): qualified Lean name -> :class:`Builtin`.
* :data:`ARITH` ``[(op, type name)]`` for ``+ - * / % ^`` on ``Nat``, ``Int``, ``UInt8..64`` and
  ``Float``, and ``++`` on ``String``, ``List``, ``Array``; :data:`NEG` for unary minus (``Int``,
  ``Float``, ``UIntN``; ``Nat`` has no ``Neg`` instance).
* :func:`compare_lt`, :func:`compare_le` (``<``, ``≤``), :func:`lean_beq` (``==``),
  :func:`decidable_eq` (decided ``=``), :func:`lean_max`, :func:`lean_min`.
* :func:`to_string` (``toString``, also what ``s!"{x}"`` interpolates) and :func:`repr_value`.
* :data:`OPTIONAL_ARGS`: builtins whose trailing explicit parameters have defaults in Lean
  (``List.range' s n (step := 1)``); the Python function accepts the shorter call too.
* :data:`IMPLICIT_ARGS`: implicit parameters a call may name (``Array.ofFn (n := 3) f``); the
  builtin receives them as keyword arguments.
* :data:`PROOF_PARAMS`: positions of explicit proof parameters (``Array.swap xs i j hi hj``);
  the proofs given there are not evaluated.
* :func:`type_name_of`: the Lean type head of a runtime value (the namespace for field notation).

Naming of the indexing entry points: ``xs[i]!`` is ``List.getElem!`` / ``Array.getElem!`` /
``Std.HashMap.getElem!`` (typed: they need the element type for the out-of-range default) and
``xs[i]?`` is ``List.getElem?`` / ``Array.getElem?`` / ``Std.HashMap.getElem?``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins import (  # noqa: F401  (imported to register)
    arrays,
    floats,
    hashmaps,
    lists,
    numbers,
    options,
    order,
    props,
    strings,
    subarrays,
    tostring,
)
from veriscale.backends.embedded.builtins._core import default_of_type, type_name_of
from veriscale.backends.embedded.builtins.coverage import used_names
from veriscale.backends.embedded.builtins.hashmaps import LeanHashMap, LeanHashSet
from veriscale.backends.embedded.builtins.order import (
    compare_le,
    compare_lt,
    decidable_eq,
    lean_beq,
    lean_max,
    lean_min,
)
from veriscale.backends.embedded.builtins.strings import StringIterator
from veriscale.backends.embedded.builtins.tostring import repr_value, to_string
from veriscale.backends.embedded.registry import BUILTINS, Builtin
from veriscale.runtime import Arr


def _append(kind: str) -> Callable[[Any, Any], Any]:
    if kind == "String":
        return lambda a, b: strings.string_append(a, b)
    if kind == "List":
        return lambda a, b: lists.list_append(a, b)
    return lambda a, b: arrays.array_append(Arr(a), Arr(b))


ARITH: dict[tuple[str, str], Callable[[Any, Any], Any]] = {
    **numbers.ARITH,
    **floats.ARITH,
    **{("++", kind): _append(kind) for kind in ("String", "List", "Array")},
}

NEG: dict[str, Callable[[Any], Any]] = {**numbers.NEG, **floats.NEG}

OPTIONAL_ARGS: dict[str, int] = {
    "List.range'": 1,
    "List.zipIdx": 1,
    "List.mergeSort": 1,
    "List.merge": 1,
    "List.extract": 2,
    "List.rotateLeft": 1,
    "List.rotateRight": 1,
    "Array.extract": 2,
    "Array.foldl": 2,
    "Array.foldr": 2,
    "Array.filter": 2,
    "Array.filterMap": 2,
    "Array.any": 2,
    "Array.all": 2,
    "Array.zipIdx": 1,
    "Array.insertionSort": 1,
    "Array.qsort": 3,
    "Array.swap": 2,
    "Array.eraseIdx": 1,
    "Array.toSubarray": 2,
    "String.splitOn": 1,
    "Std.HashMap.empty": 1,
    "Std.HashMap.emptyWithCapacity": 1,
    "Std.HashSet.empty": 1,
    "Std.HashSet.emptyWithCapacity": 1,
}
"""Number of trailing explicit parameters with a Lean default value, per builtin."""

IMPLICIT_ARGS: dict[str, tuple[str, ...]] = {
    # `Array.ofFn {n} (f : Fin n → α)`: `n` is implicit; `(n := k)` names it
    "Array.ofFn": ("n",),
}
"""Implicit parameters a call may give as named arguments; they reach the builtin as keywords."""

PROOF_PARAMS: dict[str, frozenset[int]] = {
    # `swap xs i j (hi : i < xs.size := by get_elem_tactic) (hj : j < xs.size := ...)`
    "Array.swap": frozenset({3, 4}),
    # `eraseIdx xs i (h : i < xs.size := by get_elem_tactic)`
    "Array.eraseIdx": frozenset({2}),
}
"""Positions of explicit proof parameters: a proof given there is not evaluated (it is irrelevant
at run time), the builtin receives the proof token instead, as user definitions skip theirs."""

for _name in (*OPTIONAL_ARGS, *IMPLICIT_ARGS, *PROOF_PARAMS):
    assert _name in BUILTINS, _name

__all__ = [
    "ARITH",
    "BUILTINS",
    "IMPLICIT_ARGS",
    "NEG",
    "OPTIONAL_ARGS",
    "PROOF_PARAMS",
    "Builtin",
    "LeanHashMap",
    "LeanHashSet",
    "StringIterator",
    "compare_le",
    "compare_lt",
    "decidable_eq",
    "default_of_type",
    "lean_beq",
    "lean_max",
    "lean_min",
    "repr_value",
    "to_string",
    "type_name_of",
    "used_names",
]
