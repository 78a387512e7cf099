"""Shared helpers of the builtin library: runtime type names, sizes, defaults, wrapping.

Everything here is about the runtime representation of :mod:`veriscale.lean.values`; Lean semantics
live in the topical modules.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from veriscale.backends.embedded.registry import MAX_COLLECTION
from veriscale.lean.values import (
    NONE,
    ORDERING_LT,
    UNIT,
    Arr,
    BudgetExceeded,
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
    _FixedWidth,
    pair,
)
from veriscale.lean.values import type_name_of as type_name_of  # re-exported: the builtins' namespace lookup

MAX_BITS = 1 << 20
"""Largest integer (in bits) a builtin computes; ``2 ^ 10^9`` is a runaway, not a test value."""


def nat(value: int) -> Nat:
    """Wrap a non-negative Python int as a Lean ``Nat``."""
    return Nat(int(value))


SMALL_NAT_LIMIT = 1024
#: the ``Nat`` values below :data:`SMALL_NAT_LIMIT`, made once: building a ``Nat`` (an ``int``
#: subclass) costs about ten times looking one up, and a ``Nat`` is an immutable value, which
#: nothing tells apart from an equal one but its identity (never consulted)
SMALL_NATS: tuple[Nat, ...] = tuple(int.__new__(Nat, i) for i in range(SMALL_NAT_LIMIT))
_new_nat = partial(int.__new__, Nat)


def nat_unchecked(value: int) -> Nat:
    """``Nat`` from an int known to be non-negative, without ``Nat.__new__``'s check."""
    return SMALL_NATS[value] if 0 <= value < SMALL_NAT_LIMIT else _new_nat(value)


#: ``Nat(0)``, ``Nat(1)``, ... (the small ones first) grown on demand up to ``NAT_TABLE_LIMIT``: a
#: range of naturals is then a slice of it, at memory-copy speed. Building hundreds of thousands
#: of ``Nat`` objects one by one otherwise dominates a check that enumerates ``List.range n``.
_nat_table: tuple[Nat, ...] = SMALL_NATS
NAT_TABLE_LIMIT = 1 << 18


def _nat_table_to(stop: int) -> tuple[Nat, ...]:
    global _nat_table
    size = min(max(stop, 2 * len(_nat_table), 1024), NAT_TABLE_LIMIT)
    _nat_table += tuple(map(_new_nat, range(len(_nat_table), size)))
    return _nat_table


def nat_range(start: int, stop: int, step: int = 1) -> tuple[Nat, ...]:
    """The naturals of ``range(start, stop, step)`` (``start`` and ``stop`` non-negative)."""
    if 0 <= start and stop <= NAT_TABLE_LIMIT and step > 0:
        table = _nat_table if len(_nat_table) >= stop else _nat_table_to(stop)
        return table[start:stop:step]
    return tuple(map(_new_nat, range(start, stop, step)))  # (at C speed)


def check_size(count: int, what: str = "collection") -> None:
    """Refuse to build a collection larger than the registry's limit."""
    if count > MAX_COLLECTION:
        raise BudgetExceeded(f"{what} of {count} elements exceeds the limit of {MAX_COLLECTION}")


def check_bits(value: int) -> int:
    if value.bit_length() > MAX_BITS:
        raise BudgetExceeded(f"integer of {value.bit_length()} bits exceeds the limit of {MAX_BITS}")
    return value


FIXED_WIDTH_BY_NAME: dict[str, type[_FixedWidth]] = {
    "UInt8": UInt8,
    "UInt16": UInt16,
    "UInt32": UInt32,
    "UInt64": UInt64,
}


def default_of_type(ty: Any, *, construct: str) -> Any:
    """``Inhabited.default`` of a Lean type (what ``xs[i]!`` and ``panic!`` return).

    ``ty`` is a :mod:`veriscale.lean.types` type, or ``None`` when the evaluator does not know it,
    in which case the builtin cannot answer and says so instead of guessing.
    """
    from veriscale.lean.types import NamedType, ProdType

    if ty is None:
        raise Unsupported(construct, "result type unknown, so the default value is unknown")
    if isinstance(ty, ProdType):
        return pair(
            default_of_type(ty.fst, construct=construct), default_of_type(ty.snd, construct=construct)
        )
    if isinstance(ty, NamedType):
        name, args = ty.name, ty.args
        simple: dict[str, Any] = {
            "Nat": Nat(0),
            "Int": 0,
            "Bool": False,
            "String": "",
            # Lean: `instance : Inhabited Char := ⟨'A'⟩` (Init/Data/Char/Basic.lean).
            "Char": Char("A"),
            # Lean: `instance : Inhabited Float := ⟨UInt64.toFloat 0⟩`, i.e. +0.0.
            "Float": 0.0,
            "Unit": UNIT,
            # Init/Data/Ord.lean: `deriving Inhabited` takes the first constructor, `Ordering.lt`.
            "Ordering": ORDERING_LT,
        }
        if name in simple and not args:
            return simple[name]
        if name in FIXED_WIDTH_BY_NAME and not args:
            return FIXED_WIDTH_BY_NAME[name](0)
        if name == "List":
            return ()
        if name == "Array":
            return Arr(())
        if name == "Option":
            return NONE
        if name == "Prod" and len(args) == 2:
            return pair(
                default_of_type(args[0], construct=construct),
                default_of_type(args[1], construct=construct),
            )
    raise Unsupported(construct, f"no known default value for type {ty}")


def contains_float(value: Any) -> bool:
    """Whether a value has a Float inside (such values have no lawful ``BEq``/``Hashable``)."""
    if isinstance(value, float):
        return True
    if isinstance(value, (tuple, Arr)):
        return any(contains_float(v) for v in value)
    if isinstance(value, Pair):
        return contains_float(value.fst) or contains_float(value.snd)
    if isinstance(value, Some):
        return contains_float(value.value)
    if isinstance(value, Struct):
        return any(contains_float(v) for _, v in value.fields)
    if isinstance(value, Ctor):
        return any(contains_float(v) for v in value.args)
    return False
