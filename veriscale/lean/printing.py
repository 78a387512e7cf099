"""How Lean prints runtime values: ``toString``, ``repr``, and comparison "as printed".

One walker over the runtime values of :mod:`veriscale.lean.values`, used by every engine's
``toString``/``repr`` builtins, by the value codec's literals (``Char.quote``/``String.quote``) and
by whoever compares a computed value with one real Lean printed (:func:`same_as_printed`).

``ToString`` instances (Init/Data/ToString/Basic.lean, Init/Data/Array/Basic.lean):

* ``Nat``/``Int``/``UIntN``: decimal, ``"-"`` before negative integers; ``Bool``: ``true``/``false``;
  ``Char``: the character; ``String``: itself; ``Unit``: ``()``; ``Float``: ``Float.toString``.
* ``List``: ``"[1, 2, 3]"`` (``"[]"`` when empty); ``Array``: ``"#" ++ toString a.toList``.
* ``α × β``: ``"(" ++ toString a ++ ", " ++ toString b ++ ")"``, so a triple is ``"(1, (2, 3))"``
  (only ``Repr`` flattens tuples).
* ``Option``: ``"none"`` or ``"(some " ++ addParenHeuristic (toString a) ++ ")"``, where
  ``addParenHeuristic s`` keeps ``s`` when it starts with ``(``, ``[``, ``{`` or ``#[`` or has no
  whitespace, and parenthesises it otherwise.

``Repr`` instances (Init/Data/Repr.lean), rendered on one line (the ``Format`` width is not
modelled, so output longer than Lean's 120-column layout may be broken into lines by Lean):

* ``Int`` and ``Float``: ``Repr.addAppParen`` when negative (``some (-3)``), i.e. parentheses when
  the precedence is at least ``max_prec`` (1024, argument position).
* ``Char``: ``Char.quote``; ``String``: ``String.quote`` (:func:`quote_core` has the escapes).
* ``List``: ``[a, b]``; ``Array``: ``#[a, b]``; tuples ``(a, b, c)``; ``Option``: ``none`` /
  ``some a`` (parenthesised in argument position); ``Unit``: ``()``.
* ``deriving Repr`` structures: ``{ x := 1, y := 2 }``; inductives: ``Ctor.name arg ...``
  (parenthesised in argument position when they have arguments).

``Float.toString`` is ``lean_float_to_string`` (src/runtime/object.cpp): ``"NaN"`` for any NaN,
otherwise C++ ``std::to_string(double)``, i.e. ``printf("%f")``: six decimals, ``"inf"``/``"-inf"``,
``"-0.000000"`` for negative zero.

Values an engine adds of its own (a ``Subarray`` view, a ``String.Iterator``) print through
:class:`LeanPrintable`: the walker asks them for their text rather than knowing their insides.
"""

from __future__ import annotations

import math
import re
from typing import Any, Protocol, runtime_checkable

from veriscale.lean.values import (
    FIXED_WIDTH_TYPES,
    NONE,
    UNIT,
    Arr,
    Char,
    Ctor,
    Nat,
    Pair,
    Some,
    Struct,
    Unsupported,
    structurally_equal,
    type_name_of,
)

__all__ = [
    "MAX_PREC",
    "LeanPrintable",
    "add_paren_heuristic",
    "float_to_string",
    "quote_char",
    "quote_core",
    "quote_string",
    "repr_value",
    "same_as_printed",
    "to_string",
]

MAX_PREC = 1024
"""Lean's ``max_prec``: ``Repr.addAppParen`` parenthesises at this precedence (argument position)."""

_NAT_LIKE: tuple[type[int], ...] = (Nat, *FIXED_WIDTH_TYPES.values())


@runtime_checkable
class LeanPrintable(Protocol):
    """A runtime value an engine defines itself, printing as Lean's instances for its type do."""

    def lean_to_string(self) -> str:
        """``toString`` of the value."""
        ...


# ---------------------------------------------------------------------------------------------
# Leaves


def float_to_string(x: float) -> str:
    """``Float.toString``: ``"NaN"`` or C's ``%f``."""
    if math.isnan(x):
        return "NaN"
    return f"{x:f}"


def quote_core(c: str, *, in_string: bool) -> str:
    """Lean's ``Char.quoteCore c inString``: the escape of one character in a literal.

    ``\\n``, ``\\t``, ``\\\\`` and ``\\"`` everywhere; ``\\'`` only in a character literal
    (``inString := false``; added by lean4 PR #8742, merged in June 2025 and so in the v4.24
    toolchain this project pins, so that ``'''`` is never printed: earlier Lean printed it bare);
    ``\\xHH`` (two lowercase hex digits) for code points up to 31 and 127; any other character as
    itself.
    """
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    if c == "\\":
        return "\\\\"
    if c == '"':
        return '\\"'
    if c == "'" and not in_string:
        return "\\'"
    code = ord(c)
    if code <= 31 or code == 0x7F:
        return f"\\x{code:02x}"
    return c


def quote_char(c: str) -> str:
    """``Char.quote``: the character literal ``repr`` prints (and Lean reads back)."""
    return "'" + quote_core(c, in_string=False) + "'"


_NEEDS_STRING_ESCAPE = re.compile(r'[\x00-\x1f\x7f"\\]')
"""The characters ``quote_core(c, in_string=True)`` changes (a fast path for the common case)."""


def quote_string(s: str) -> str:
    """``String.quote``: the string literal ``repr`` prints (and Lean reads back)."""
    if not _NEEDS_STRING_ESCAPE.search(s):
        return '"' + s + '"'
    return '"' + "".join(quote_core(c, in_string=True) for c in s) + '"'


# ---------------------------------------------------------------------------------------------
# toString


def add_paren_heuristic(s: str) -> str:
    """Lean's ``addParenHeuristic`` (the ``ToString (Option α)`` instance parenthesises with it)."""
    if s.startswith(("(", "[", "{", "#[")):
        return s
    if not any(c in " \t\r\n" for c in s):
        return s
    return "(" + s + ")"


_STR_SAFE_BITS = 12_000
"""Integers up to this many bits have fewer than CPython's 4,300 decimal digits of ``str``'s limit."""


def decimal(n: int) -> str:
    """``str(n)`` for an integer of any size: Lean prints every ``Nat``, while CPython refuses to
    convert one of more than 4,300 digits (``sys.int_info.default_max_str_digits``). Larger ones
    are split at a power of ten and converted in halves."""
    if n.bit_length() <= _STR_SAFE_BITS:
        return str(int(n))
    if n < 0:
        return "-" + decimal(-n)
    low_digits = int(n.bit_length() * 0.30103) // 2  # about half of n's digits
    high, low = divmod(int(n), 10**low_digits)
    return decimal(high) + decimal(low).zfill(low_digits)


def to_string(value: Any) -> str:
    """Lean's ``toString value`` for the standard ``ToString`` instances."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):  # Nat, Int, UIntN
        return decimal(value)
    if isinstance(value, float):
        return float_to_string(value)
    if isinstance(value, str):  # Char, String
        return str.__str__(value)
    if value is UNIT:
        return "()"
    if isinstance(value, Arr):  # before List: an Array is not a List
        return "#[" + ", ".join(to_string(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "[" + ", ".join(to_string(v) for v in value) + "]"
    if isinstance(value, Pair):
        return "(" + to_string(value.fst) + ", " + to_string(value.snd) + ")"
    if isinstance(value, Some):
        return "(some " + add_paren_heuristic(to_string(value.value)) + ")"
    if value is NONE:
        return "none"
    if isinstance(value, LeanPrintable):
        return str(value.lean_to_string())
    raise Unsupported("toString", f"no ToString instance handled for {_lean_type_name(value)}")


# ---------------------------------------------------------------------------------------------
# repr


def _paren_if(text: str, prec: int) -> str:
    """``Repr.addAppParen``."""
    return "(" + text + ")" if prec >= MAX_PREC else text


def _tuple_items(value: Pair) -> list[Any]:
    items = [value.fst]
    rest = value.snd
    while isinstance(rest, Pair):
        items.append(rest.fst)
        rest = rest.snd
    items.append(rest)
    return items


def repr_value(value: Any, prec: int = 0) -> str:
    """Lean's ``reprPrec value prec`` on one line (``#eval`` uses precedence 0)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _NAT_LIKE):
        return decimal(value)
    if isinstance(value, int):  # Int
        return _paren_if(decimal(value), prec) if value < 0 else decimal(value)
    if isinstance(value, float):
        text = float_to_string(value)
        return _paren_if(text, prec) if value < 0 else text
    if isinstance(value, Char):
        return quote_char(value)
    if isinstance(value, str):
        return quote_string(value)
    if value is UNIT:
        return "()"
    if isinstance(value, Arr):
        return "#[" + ", ".join(repr_value(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "[" + ", ".join(repr_value(v) for v in value) + "]"
    if isinstance(value, Pair):
        return "(" + ", ".join(repr_value(v) for v in _tuple_items(value)) + ")"
    if isinstance(value, Some):
        return _paren_if("some " + repr_value(value.value, MAX_PREC), prec)
    if value is NONE:
        return "none"
    if isinstance(value, Struct):
        if not value.fields:
            raise Unsupported("repr", "structure without fields")
        return "{ " + ", ".join(f"{n} := {repr_value(v)}" for n, v in value.fields) + " }"
    if isinstance(value, Ctor):
        if not value.args:
            return value.name
        return _paren_if(" ".join([value.name, *(repr_value(a, MAX_PREC) for a in value.args)]), prec)
    lean_repr = getattr(value, "lean_repr", None)
    if callable(lean_repr):
        return str(lean_repr(prec))
    raise Unsupported("repr", f"no Repr instance handled for {_lean_type_name(value)}")


def _lean_type_name(value: Any) -> str:
    """The Lean type a value the walker cannot print belongs to, for the message."""
    try:
        return type_name_of(value)
    except Unsupported:
        return type(value).__name__


# ---------------------------------------------------------------------------------------------
# Equality as printed


def _same_printed_float(a: float, b: float) -> bool:
    return float_to_string(a) == float_to_string(b)


def same_as_printed(computed: Any, stored: Any) -> bool:
    """True when the two values are equal, floats compared as Lean's ``toString`` prints them.

    The published suites store a ``Float`` the way ``#eval`` printed it (``Float.toString``: six
    decimals, ``NaN``, ``inf``), so ``4.166667`` stands for every double that prints that way:
    comparing such a value with a computed double bit for bit would call agreement a disagreement,
    while comparing both through Lean's printing is exactly as precise as the yardstick. Every
    other leaf compares as :func:`veriscale.lean.values.values_equal` does (same Lean type, same
    value), through the same structural walk.
    """
    return structurally_equal(computed, stored, _same_printed_float)
