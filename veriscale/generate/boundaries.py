"""Boundary-aware synthesis: inputs at and around the numbers a task's specification mentions.

A flawed specification or program is most often wrong at an edge: ``i < n`` written ``i ≤ n``, a
bound of 100 checked as 99, a string with a tab where the code expected only spaces. This module
reads the integer literals of the precondition and postcondition (and their helper sections) and
builds rows where

* every integer parameter takes each mentioned bound ``c`` and ``c - 1``, ``c + 1``, and the
  extremes of its type (``UIntN``'s 0 and maximum, ``Int``'s ±2^31, ±2^63, ``Nat``'s 2^32 ...);
* every list, array or string parameter takes sizes at and around those bounds (and 0, 1, 2);
* integer and sequence parameters are paired so that a number sits at, just below and just above
  a sequence's length (index bounds);
* string and character parameters get whitespace (space, tab, newline, carriage return, runs of
  spaces) and non-ASCII characters (accented, Greek, German sharp s, dotted capital I, CJK,
  emoji, a non-breaking space, a combining accent); floats get their extremes (smallest
  subnormal, largest finite, 2^53 and its neighbour).

The other parameters of a row take their type's simplest pool values in turn. Everything is
deterministic (no randomness beyond :func:`~veriscale.generate.value_space.stable_rng`), rows are
distinct by canonical key, and sizes stay within the generators' limits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from veriscale.generate.synthesis import DistinctRows
from veriscale.generate.value_space import (
    INTEGER_KINDS,
    MAX_SEQUENCE_LENGTH,
    MAX_STRING_LENGTH,
    ValuePools,
    elem_type,
    is_valid_value,
    kind_of,
    make_int,
    supports_type,
    uint_bits,
)
from veriscale.lean.types import LeanType, StructDef
from veriscale.lean.values import Arr, Char

__all__ = ["DEFAULT_BOUNDARY_LIMIT", "boundary_rows", "spec_numbers"]

DEFAULT_BOUNDARY_LIMIT = 120
SPEC_SECTIONS = ("precond_aux", "precond", "postcond_aux", "postcond")
_MAX_NUMBERS = 12
_INT_LITERAL = re.compile(r"(?<![\w.'])(\d+)(?![\w.])")
_COMMENT = re.compile(r"--[^\n]*|/-.*?-/", re.S)
_STRING_LITERAL = re.compile(r'"(?:\\.|[^"\\])*"')

WHITESPACE_STRINGS = (" ", "  ", "\t", "\n", "\r\n", " a ", "a\tb", "a\nb", "a  b", "  a", "a  ")
NON_ASCII_STRINGS = ("é", "ß", "İ", "Σσς", "日本語", "😀😀", "a\u00a0b", "e\u0301", "Ａｂ", "ÀÉÎõü")
BOUNDARY_CHARS = (" ", "\t", "\n", "\r", "é", "ß", "İ", "Σ", "日", "😀", "\u00a0", "`", "{", "@", "[", "/", ":")
_FLOAT_EXTREMES = (5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 2.0**53, 2.0**53 + 2.0)
_INT_EXTREMES = (2**31 - 1, -(2**31) - 1, 2**32, 2**63 - 1, -(2**63) - 1, 2**64)
_NAT_EXTREMES = (2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, 2**64)


def spec_numbers(sections: Mapping[str, str]) -> list[int]:
    """The distinct integer literals of the specification sections, smallest first (at most 12;
    literals inside comments and strings are ignored)."""
    found: set[int] = set()
    for name in SPEC_SECTIONS:
        text = _STRING_LITERAL.sub(" ", _COMMENT.sub(" ", sections.get(name, "")))
        found.update(int(m.group(1)) for m in _INT_LITERAL.finditer(text) if len(m.group(1)) <= 20)
    return sorted(found)[:_MAX_NUMBERS]


def _around(numbers: Iterable[int]) -> list[int]:
    out: list[int] = []
    for c in numbers:
        out += [c, c - 1, c + 1]
    return list(dict.fromkeys(out))


def _sizes(numbers: Iterable[int], cap: int) -> list[int]:
    return [n for n in dict.fromkeys([0, 1, 2, *_around(numbers)]) if 0 <= n <= cap]


class _Values:
    """Boundary values per parameter type, valid at that type."""

    def __init__(self, structs: Mapping[str, StructDef], numbers: list[int]) -> None:
        self.structs = structs
        self.numbers = numbers
        self.pools = ValuePools(structs)

    def valid(self, values: Iterable[Any], ty: LeanType) -> list[Any]:
        return [v for v in values if is_valid_value(v, ty, self.structs)]

    def integers(self, ty: LeanType) -> list[Any]:
        kind = kind_of(ty, self.structs)
        raw = _around(self.numbers)
        if kind == "uint":
            top = (1 << uint_bits(ty)) - 1
            raw += [0, top, top - 1, 1 << (uint_bits(ty) - 1)]
            raw = [x for x in raw if 0 <= x <= top]
        elif kind == "nat":
            raw += list(_NAT_EXTREMES)
            raw = [x for x in raw if x >= 0]
        else:
            raw += [-c for c in raw if c > 0] + list(_INT_EXTREMES)
        return self.valid((make_int(x, ty, self.structs) for x in dict.fromkeys(raw)), ty)

    def sequence(self, ty: LeanType, size: int, variant: int) -> Any:
        """A sequence of ``size`` elements: constant, counting up, or the bounds themselves."""
        elem = elem_type(ty)
        pool = self.pools.pool(elem, 1)
        ekind = kind_of(elem, self.structs)
        if ekind in INTEGER_KINDS and variant == 1:
            items = [make_int(i, elem, self.structs) for i in range(size)]
        elif ekind in INTEGER_KINDS and variant == 2 and self.numbers:
            around = [x for x in _around(self.numbers) if ekind == "int" or x >= 0]
            items = [make_int(around[i % len(around)], elem, self.structs) for i in range(size)]
        elif ekind == "char" and variant == 2:
            items = [Char(BOUNDARY_CHARS[i % len(BOUNDARY_CHARS)]) for i in range(size)]
        else:
            items = [pool[(i * variant) % len(pool)] if variant else pool[min(1, len(pool) - 1)] for i in range(size)]
        return Arr(items) if kind_of(ty, self.structs) == "array" else tuple(items)

    def values(self, ty: LeanType) -> list[Any]:
        kind = kind_of(ty, self.structs)
        if kind in INTEGER_KINDS:
            return self.integers(ty)
        if kind in ("list", "array"):
            sizes = _sizes(self.numbers, MAX_SEQUENCE_LENGTH)
            return self.valid((self.sequence(ty, n, v) for n in sizes for v in (0, 1, 2)), ty)
        if kind == "string":
            sized = ["a" * n for n in _sizes(self.numbers, MAX_STRING_LENGTH)]
            return self.valid(dict.fromkeys([*sized, *WHITESPACE_STRINGS, *NON_ASCII_STRINGS]), ty)
        if kind == "char":
            return self.valid((Char(c) for c in BOUNDARY_CHARS), ty)
        if kind == "float":
            near = [float(x) for x in _around(self.numbers)] + [x + 0.5 for x in self.numbers]
            return self.valid(dict.fromkeys([*near, *_FLOAT_EXTREMES]), ty)
        return self.pools.pool(ty)[:6]


def boundary_rows(
    param_types: Mapping[str, LeanType],
    structs: Mapping[str, StructDef],
    sections: Mapping[str, str],
    *,
    limit: int = DEFAULT_BOUNDARY_LIMIT,
) -> list[dict[str, Any]]:
    """Up to ``limit`` distinct rows at the task's boundaries (see the module docstring); ``[]``
    when a parameter's type has no generator."""
    if not param_types or limit <= 0 or not all(supports_type(t, structs) for t in param_types.values()):
        return []
    values = _Values(structs, spec_numbers(sections))
    names = list(param_types)
    columns = {name: values.values(param_types[name]) for name in names}
    simple = {name: values.pools.pool(param_types[name]) for name in names}
    distinct = DistinctRows(param_types, structs, limit)
    rows, add = distinct.rows, distinct.add

    def base(turn: int) -> dict[str, Any]:
        return {name: simple[name][turn % min(len(simple[name]), 4)] for name in names}

    # Index bounds first: a number at, below and above a sequence's length.
    kinds = {name: kind_of(param_types[name], structs) for name in names}
    numeric = [n for n in names if kinds[n] in INTEGER_KINDS]
    sized = [n for n in names if kinds[n] in ("list", "array", "string")]
    for seq in sized:
        for length in (0, 1, 2, 5):
            for num in numeric:
                for delta in (-1, 0, 1):
                    row = base(length)
                    row[seq] = values.sequence(param_types[seq], length, 1) if kinds[seq] != "string" else "ab" * length
                    row[num] = make_int(max(0, length + delta) if kinds[num] != "int" else length + delta,
                                        param_types[num], structs)
                    if all(is_valid_value(row[n], param_types[n], structs) for n in (seq, num)):
                        add(row)
    # Then every boundary value of every parameter, the others at simple values in turn.
    longest = max((len(c) for c in columns.values()), default=0)
    for i in range(longest):
        for name in names:
            if i < len(columns[name]):
                row = base(i)
                row[name] = columns[name][i]
                add(row)
    return rows
