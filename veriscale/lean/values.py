"""Runtime values: the one Python representation of Lean values used everywhere.

The value codec (``veriscale.lean.codec``) parses stored test data into these objects, the embedded
evaluator computes with them, and results are compared and rendered from them. Keeping a single
representation means there is no conversion layer that could drift from Lean's semantics.

Representation (Lean type -> Python):

=================  ==========================================================
``Nat``            :class:`Nat` (an ``int`` subclass, always >= 0)
``Int``            plain ``int`` (never ``bool``)
``UInt8`` ...      :class:`UInt8`, :class:`UInt16`, :class:`UInt32`, :class:`UInt64`
``Bool``           ``bool``
``Float``          ``float`` (IEEE double, like Lean's ``Float``)
``Char``           :class:`Char` (a ``str`` subclass of length 1, one Unicode scalar)
``String``         plain ``str``
``List α``         ``tuple`` (plain tuple, immutable, hashable)
``Array α``        :class:`Arr` (a ``tuple`` subclass)
``α × β``          :class:`Pair` (``(a, b, c)`` is ``Pair(a, Pair(b, c))`` as in Lean)
``Option α``       :data:`NONE` or :class:`Some`
``Unit``           :data:`UNIT`
structures         :class:`Struct` (type name and field values in declaration order)
inductives         :class:`Ctor` (constructor name and arguments)
functions          any Python callable; see :class:`LeanFunction`
=================  ==========================================================

Values are immutable and hashable (floats aside, NaN), so they can be keys of hash maps, members
of sets, and compared structurally with ``==``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

# ---------------------------------------------------------------------------------------------
# Numbers


class Nat(int):
    """A natural number. Arithmetic on it is done by the evaluator, which re-wraps results."""

    __slots__ = ()

    def __new__(cls, value: int = 0) -> Nat:
        if value < 0:
            raise ValueError(f"Nat cannot be negative: {value}")
        return super().__new__(cls, value)

    def __repr__(self) -> str:
        return f"Nat({int(self)})"


class _FixedWidth(int):
    """Unsigned fixed-width integers; construction wraps modulo 2**BITS like Lean's ``ofNat``."""

    __slots__ = ()
    BITS = 0

    def __new__(cls, value: int = 0) -> _FixedWidth:
        return super().__new__(cls, int(value) % (1 << cls.BITS))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"


class UInt8(_FixedWidth):
    __slots__ = ()
    BITS = 8


class UInt16(_FixedWidth):
    __slots__ = ()
    BITS = 16


class UInt32(_FixedWidth):
    __slots__ = ()
    BITS = 32


class UInt64(_FixedWidth):
    __slots__ = ()
    BITS = 64


FIXED_WIDTH_TYPES: dict[str, type[_FixedWidth]] = {
    "UInt8": UInt8,
    "UInt16": UInt16,
    "UInt32": UInt32,
    "UInt64": UInt64,
}


# ---------------------------------------------------------------------------------------------
# Characters and containers


class Char(str):
    """A Lean ``Char``: exactly one Unicode scalar value (no surrogates)."""

    __slots__ = ()

    def __new__(cls, value: str) -> Char:
        if len(value) != 1:
            raise ValueError(f"Char must be one code point, got {value!r}")
        cp = ord(value)
        if 0xD800 <= cp <= 0xDFFF:
            raise ValueError(f"Char cannot be a surrogate: U+{cp:04X}")
        return super().__new__(cls, value)

    def __repr__(self) -> str:
        return f"Char({str.__repr__(self)})"


class Arr(tuple):
    """A Lean ``Array``; distinct from ``List`` (a plain tuple) so the two never compare equal."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Arr({tuple.__repr__(self)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Arr) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("Arr", tuple(self)))


@dataclass(frozen=True, slots=True)
class Pair:
    """``Prod.mk fst snd``."""

    fst: Any
    snd: Any


@dataclass(frozen=True, slots=True)
class Some:
    """``Option.some value``."""

    value: Any


class _NoneType:
    """``Option.none``; a singleton distinct from Python's ``None``."""

    __slots__ = ()
    _instance: _NoneType | None = None

    def __new__(cls) -> _NoneType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NONE"

    def __reduce__(self) -> str:
        return "NONE"


NONE = _NoneType()


class _UnitType:
    __slots__ = ()
    _instance: _UnitType | None = None

    def __new__(cls) -> _UnitType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNIT"

    def __reduce__(self) -> str:
        return "UNIT"


UNIT = _UnitType()


@dataclass(frozen=True, slots=True)
class Struct:
    """A structure instance: its type name and ``(field name, value)`` pairs in declaration order."""

    type_name: str
    fields: tuple[tuple[str, Any], ...]

    def get(self, field: str) -> Any:
        for name, value in self.fields:
            if name == field:
                return value
        raise KeyError(f"structure {self.type_name} has no field {field!r}")


@dataclass(frozen=True, slots=True)
class Ctor:
    """A value of a user inductive type: constructor name (e.g. ``Tree.node``) and arguments."""

    name: str
    args: tuple[Any, ...] = ()


class LeanFunction(Protocol):
    """A function value. Calling it with several arguments applies them in order (currying)."""

    def __call__(self, *args: Any) -> Any: ...


# ---------------------------------------------------------------------------------------------
# Structural equality with Lean's view of floats


def structurally_equal(a: Any, b: Any, same_float: Callable[[float, float], bool]) -> bool:
    """The one structural comparison of runtime values; ``same_float`` decides between two floats.

    Values of different Lean types are never equal (``Nat`` vs ``Int``, ``List`` vs ``Array``: a
    stored value is parsed at the declared type, so a mismatch is a real difference). Containers
    compare element by element, so a float anywhere inside is judged by ``same_float``.
    """
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, float) and isinstance(b, float) and same_float(a, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, Arr)):
        return len(a) == len(b) and all(structurally_equal(x, y, same_float) for x, y in zip(a, b))
    if isinstance(a, Pair):
        return structurally_equal(a.fst, b.fst, same_float) and structurally_equal(a.snd, b.snd, same_float)
    if isinstance(a, Some):
        return structurally_equal(a.value, b.value, same_float)
    if isinstance(a, Struct):
        return (
            a.type_name == b.type_name
            and len(a.fields) == len(b.fields)
            and all(
                n1 == n2 and structurally_equal(v1, v2, same_float)
                for (n1, v1), (n2, v2) in zip(a.fields, b.fields)
            )
        )
    if isinstance(a, Ctor):
        return a.name == b.name and structurally_equal(a.args, b.args, same_float)
    return bool(a == b)


def _same_double(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def values_equal(a: Any, b: Any) -> bool:
    """Structural equality used to compare a computed value with a stored one.

    Floats compare by their bits' meaning rather than IEEE ``==``: a stored ``Float.nan`` equals a
    computed NaN (``#eval`` prints both as ``NaN``), and ``0.0`` differs from ``-0.0`` because Lean
    prints them differently. (Comparing with a value Lean *printed* goes through
    :func:`veriscale.lean.printing.same_as_printed`, the same walk with floats compared as printed.)
    """
    return structurally_equal(a, b, _same_double)


# ---------------------------------------------------------------------------------------------
# Errors raised while computing


class LeanRuntimeError(Exception):
    """Base class of errors raised while evaluating Lean code."""


class Unsupported(LeanRuntimeError):
    """The construct or builtin is outside what the engine implements; names the construct."""

    def __init__(self, construct: str, detail: str = "") -> None:
        self.construct = construct
        self.detail = detail
        super().__init__(f"unsupported: {construct}" + (f" ({detail})" if detail else ""))


class Undecidable(LeanRuntimeError):
    """A proposition that Lean's ``decide`` could not decide (e.g. an unbounded quantifier)."""


class BudgetExceeded(LeanRuntimeError):
    """The step, time or recursion budget of one check ran out."""


class LeanPanic(LeanRuntimeError):
    """A Lean ``panic!`` whose result cannot be replaced by the type's default value."""
