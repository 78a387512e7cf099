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
The three tables below are derived from the Lean signature each builtin is registered with
(:mod:`veriscale.backends.embedded.signatures`):

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
    bitwise,
    fins,
    floats,
    hashmaps,
    lists,
    numbers,
    options,
    order,
    ordering,
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
from veriscale.lean.values import Arr


def _append(kind: str) -> Callable[[Any, Any], Any]:
    if kind == "String":
        return lambda a, b: strings.string_append(a, b)
    if kind == "List":
        return lambda a, b: lists.list_append(a, b)
    return lambda a, b: arrays.array_append(Arr(a), Arr(b))


ARITH: dict[tuple[str, str], Callable[[Any, Any], Any]] = {
    **numbers.ARITH,
    **floats.ARITH,
    **bitwise.ARITH,
    **{("++", kind): _append(kind) for kind in ("String", "List", "Array")},
}

NEG: dict[str, Callable[[Any], Any]] = {**numbers.NEG, **floats.NEG}


def _implicit_args(b: Builtin) -> tuple[str, ...]:
    """The implicit value parameters (``{n : Nat}``) a call may name and the function takes."""
    import inspect

    taken = inspect.signature(b.fn).parameters
    return tuple(name for name in b.signature.value_implicits if name in taken)


# Derived from the registered Lean signatures (see :mod:`.registry`); kept as tables because the
# evaluator reads them by name.
OPTIONAL_ARGS: dict[str, int] = {
    name: b.signature.optional_count for name, b in BUILTINS.items() if b.signature.optional_count
}
"""Number of trailing explicit parameters with a Lean default value, per builtin."""

IMPLICIT_ARGS: dict[str, tuple[str, ...]] = {
    name: names for name, b in BUILTINS.items() if (names := _implicit_args(b))
}
"""Implicit parameters a call may give as named arguments; they reach the builtin as keywords."""

PROOF_PARAMS: dict[str, frozenset[int]] = {
    name: b.signature.proof_positions for name, b in BUILTINS.items() if b.signature.proof_positions
}
"""Positions of explicit proof parameters: a proof given there is not evaluated (it is irrelevant
at run time), the builtin receives the proof token instead, as user definitions skip theirs."""

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
