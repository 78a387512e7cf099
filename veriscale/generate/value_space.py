"""The space of candidate values per Lean type, shared by synthesis and mutation.

This module knows, for each type form found in the benchmarks, which runtime values are worth
trying (:class:`ValuePools`), how to order them (for "sorted" list forms), how large they may get
(:data:`MAX_SEQUENCE_LENGTH` and friends), and how to draw reproducible random numbers
(:func:`stable_rng`). Everything here is pure and deterministic: pools are built from fixed
tables plus a random generator seeded from the type's printed form, never from Python's
per-process ``hash()``.

Float pools include the special values ``-0.0``, NaN and both infinities (at the top level only,
plus one list form per special): Verina stores ``Float.nan`` inputs, and Lean's ``Float``
distinguishes ``-0.0`` from ``0.0`` when printing. They render as ``-0.0`` and
``(0.0 / 0.0 : Float)``-style divisions (see :func:`veriscale.lean.codec.render_float`).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from veriscale.lean.codec import (
    LeanSource,
    ValueParseError,
    builtin_kind,
    parse_lean,
    render_value,
    values_equal,
)
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType, StructDef
from veriscale.lean.values import FIXED_WIDTH_TYPES, NONE, UNIT, Arr, Char, Nat, Pair, Some, Struct

__all__ = [
    "MAX_MAGNITUDE",
    "MAX_SEQUENCE_LENGTH",
    "MAX_STRING_LENGTH",
    "ValuePools",
    "function_catalog",
    "is_valid_value",
    "kind_of",
    "make_int",
    "order_key",
    "stable_rng",
    "supports_type",
    "value_key",
]

MAX_SEQUENCE_LENGTH = 50
"""No generated list or array is longer (keeps evaluation cheap)."""
MAX_STRING_LENGTH = 50
"""No generated string is longer."""
MAX_MAGNITUDE = 2**63
"""Generated integers stay within ``[-2^63, 2^63]`` (the largest boundary values we try)."""
MAX_FLOAT_MAGNITUDE = 1e18
"""Finite floats produced by arithmetic mutation stay within this magnitude."""


# ---------------------------------------------------------------------------------------------
# Seeding


def stable_rng(*parts: object) -> random.Random:
    """A ``random.Random`` seeded from the text of ``parts`` through SHA-256.

    ``str()`` of ints, strings and Lean types is stable across processes, unlike ``hash()``
    (randomized per process for strings), so the same parts give the same stream everywhere.
    """
    text = "\x1f".join(str(part) for part in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


# ---------------------------------------------------------------------------------------------
# Type classification


INTEGER_KINDS = ("nat", "int", "uint")


def kind_of(ty: LeanType, structs: Mapping[str, StructDef]) -> str:
    """``nat int uint bool float char string unit list array option prod struct fun`` or
    ``unsupported`` (``Fin``, hash maps, unknown names, structures applied to the wrong arity)."""
    kind = builtin_kind(ty)
    if kind and kind != "unsupported":
        return kind
    if isinstance(ty, NamedType):
        sdef = structs.get(ty.name)
        if sdef is not None and len(sdef.params) == len(ty.args):
            return "struct"
    return "unsupported"


def elem_type(ty: LeanType) -> LeanType:
    """The argument of ``List α`` / ``Array α`` / ``Option α``."""
    assert isinstance(ty, NamedType) and len(ty.args) == 1
    return ty.args[0]


def uint_bits(ty: LeanType) -> int:
    assert isinstance(ty, NamedType)
    return FIXED_WIDTH_TYPES[ty.name].BITS


def struct_fields(ty: LeanType, structs: Mapping[str, StructDef]) -> list[tuple[str, LeanType]]:
    assert isinstance(ty, NamedType)
    return [(f.name, f.type) for f in structs[ty.name].fields_for(ty)]


def supports_type(
    ty: LeanType, structs: Mapping[str, StructDef], _seen: frozenset[str] = frozenset()
) -> bool:
    """Whether values of ``ty`` can be generated (every part has a runtime form and a pool)."""
    kind = kind_of(ty, structs)
    if kind == "unsupported":
        return False
    if kind in ("list", "array", "option"):
        return supports_type(elem_type(ty), structs, _seen)
    if isinstance(ty, ProdType):
        return supports_type(ty.fst, structs, _seen) and supports_type(ty.snd, structs, _seen)
    if kind == "struct":
        assert isinstance(ty, NamedType)
        if ty.name in _seen:  # a recursive structure: no finite pool of our making
            return False
        inner = _seen | {ty.name}
        return all(supports_type(t, structs, inner) for _, t in struct_fields(ty, structs))
    if kind == "fun":
        return bool(function_catalog(ty))
    return True


def make_int(value: int, ty: LeanType, structs: Mapping[str, StructDef]) -> Any:
    """The runtime integer of an integer-kinded type (``Nat`` rejects negatives, ``UIntN`` wraps)."""
    kind = kind_of(ty, structs)
    if kind == "nat":
        return Nat(value)
    if kind == "uint":
        assert isinstance(ty, NamedType)
        return FIXED_WIDTH_TYPES[ty.name](value)
    return int(value)


# ---------------------------------------------------------------------------------------------
# Keys, validity, ordering


def value_key(v: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> str:
    """The rendered Lean literal: one text per value (NaN equals NaN, ``-0.0`` differs from 0.0)."""
    return render_value(v, ty, structs)


def is_valid_value(v: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> bool:
    """``v`` is a runtime value of ``ty``: it renders, parses back strictly (no wrapping of
    ``UIntN``, no negative ``Nat``, one Unicode scalar per ``Char``) and equals itself typed."""
    try:
        text = render_value(v, ty, structs)
        back = parse_lean(text, ty, structs)
    except ValueParseError:
        return False
    if isinstance(v, LeanSource):
        return isinstance(back, LeanSource) and back.text == v.text.strip()
    return values_equal(back, v) and _exact_types(v, ty, structs)


def _exact_types(v: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> bool:
    # `values_equal` compares Python types, which already separates Nat/Int/UInt8 and List/Array;
    # this additionally rejects a List encoded with a tuple subclass other than Arr.
    kind = kind_of(ty, structs)
    if kind == "list":
        return type(v) is tuple and all(_exact_types(x, elem_type(ty), structs) for x in v)
    if kind == "array":
        return type(v) is Arr and all(_exact_types(x, elem_type(ty), structs) for x in v)
    return True


class Unorderable(Exception):
    """The value has no total order we can sort by (NaN, functions, structures, options)."""


def order_key(v: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> Any:
    """A sort key agreeing with Lean's ``<`` on the type (lexicographic for products and lists).

    Raises :class:`Unorderable` when the type (or a NaN inside the value) has no such order.
    """
    kind = kind_of(ty, structs)
    if kind in INTEGER_KINDS or kind == "bool":
        return int(v)
    if kind == "float":
        if math.isnan(v):
            raise Unorderable("NaN")
        return v
    if kind in ("char", "string"):
        return str(v)  # code-point order, as Lean's `String.lt` / `Char.lt`
    if isinstance(ty, ProdType):
        return (order_key(v.fst, ty.fst, structs), order_key(v.snd, ty.snd, structs))
    if kind in ("list", "array"):
        return tuple(order_key(x, elem_type(ty), structs) for x in v)
    raise Unorderable(str(ty))


def sorted_values(values: Sequence[Any], ty: LeanType, structs: Mapping[str, StructDef]) -> list[Any] | None:
    """``values`` in ascending order, or ``None`` when they are not orderable."""
    try:
        keys = [order_key(v, ty, structs) for v in values]
    except Unorderable:
        return None
    order = sorted(range(len(values)), key=lambda i: keys[i])
    return [values[i] for i in order]


# ---------------------------------------------------------------------------------------------
# Function values


# The functions meaningful on both Nat and Int; each signed list adds what needs a sign, at a
# fixed place (the order is the catalog's, which seeded generation depends on).
_PREDICATES_UNSIGNED = (
    "fun x => x > 0",
    "fun x => x == 0",
    "fun x => x % 2 == 0",
    "fun x => x % 2 == 1",
    "fun x => x > 5",
    "fun x => x < 3",
    "fun x => x >= 10",
    "fun _ => true",
    "fun _ => false",
)
_PREDICATES_SIGNED = (_PREDICATES_UNSIGNED[0], "fun x => x < 0", *_PREDICATES_UNSIGNED[1:])
_ENDO_COMMON = (
    "fun x => x",
    "fun x => x + 1",
    "fun x => x - 1",
    "fun x => 2 * x",
)
_ENDO_SIGNED = (*_ENDO_COMMON, "fun x => -x", "fun _ => 0")
_ENDO_UNSIGNED = (*_ENDO_COMMON, "fun x => x / 2", "fun _ => 0")


def function_catalog(ty: LeanType) -> tuple[str, ...]:
    """Lean source of simple functions of type ``ty`` (only numeric predicates and endomorphisms).

    Each is a closed ``fun`` term that elaborates at the type; the evaluator compiles it.
    """
    if not isinstance(ty, FunType) or not isinstance(ty.domain, NamedType):
        return ()
    domain = ty.domain.name if not ty.domain.args else ""
    if domain not in ("Int", "Nat"):
        return ()
    if ty.codomain == NamedType("Bool"):
        return _PREDICATES_SIGNED if domain == "Int" else _PREDICATES_UNSIGNED
    if ty.codomain == ty.domain:
        return _ENDO_SIGNED if domain == "Int" else _ENDO_UNSIGNED
    return ()


# ---------------------------------------------------------------------------------------------
# Scalar pools: the top level gets boundary values, elements of sequences get small ones


_NAT_TOP = (0, 1, 2, 3, 4, 5, 7, 10, 16, 42, 100, 1000, 10**6, 2**31, 2**63)
_NAT_ELEM = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 42, 100)
_INT_TOP = (0, 1, -1, 2, -2, 3, -3, 5, -5, 10, -10, 42, 100, -100, 10**6, -(10**6), 2**31, -(2**31), 2**63, -(2**63))  # fmt: skip
_INT_ELEM = (0, 1, -1, 2, -2, 3, -3, 4, 5, -5, 7, 10, -10, 42, -42, 100)
_FLOAT_TOP = (
    0.0, 1.0, -1.0, 0.5, 1.5, -2.25, 2.0, 3.14159, 0.1, 10.0, -100.5, 1e6, 1e-6, 1e18,
    -0.0, math.nan, math.inf, -math.inf,
)  # fmt: skip
_FLOAT_ELEM = (0.0, 1.0, -1.0, 0.5, 1.5, -2.25, 2.0, 3.0, 10.0, 0.1, -0.5, 100.0)
_CHAR_TOP = ("a", "b", "z", "A", "Z", "0", "9", " ", ".", "!", "_", "é", "λ", "😀")
_CHAR_ELEM = ("a", "b", "c", "d", "x", "y", "z", "A", "B", "Z", "0", "1", "9", " ", "é")
_STRING_TOP = (
    "", "a", "A", " ", "0", "ab", "abc", "aaa", "abba", "racecar", "hello", "Hello", "hello world",
    "Hello, World!", "  padded  ", "a b  c", "12345", "abc123", "007", "aAbB", "mississippi",
    "héllo", "λ", "naïve café", "😀", "a😀b", "The quick brown fox jumps over the lazy dog",
    "ab" * 25,
)  # fmt: skip
_STRING_ELEM = ("", "a", "b", "ab", "abc", "ba", "hello", "world", "A", " ", "123", "aa")
_STRING_ALPHABETS = (
    "abcdefghijklmnopqrstuvwxyz",
    "ab",
    "abc ",
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ",
    "0123456789",
    "abc123 .,!",
    "aeiouAEIOU xyz",
    "aéλ😀 b",
)
CHAR_PALETTE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,!?-_éλ😀"
"""Characters that mutation inserts into strings (mostly ASCII, a few non-ASCII)."""


def _uint_pool(bits: int, top: bool) -> list[int]:
    half = 1 << (bits - 1)
    full = 1 << bits
    if top:
        values = [0, 1, 2, 10, 65, half - 1, half, full - 2, full - 1]
    else:
        values = [0, 1, 2, 3, 10, 65, 97, half - 1, half, full - 1]
    return list(dict.fromkeys(values))


# How many values a composite pool keeps, at the top level and nested inside a sequence.
_PROD_LIMIT = (30, 16)
_STRUCT_LIMIT = (20, 10)
_OPTION_SOME = (6, 3)


class ValuePools:
    """Ordered, duplicate-free candidate values per type and nesting depth (memoized).

    Depth 0 is a parameter's own value; each list/array level adds one. Products, options and
    structure fields stay at their container's depth. Simple values come first, so a truncated
    pool keeps the most basic cases.
    """

    def __init__(self, structs: Mapping[str, StructDef]) -> None:
        self.structs = structs
        self._cache: dict[tuple[LeanType, int], list[Any]] = {}

    def pool(self, ty: LeanType, depth: int = 0) -> list[Any]:
        depth = min(depth, 3)
        key = (ty, depth)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._dedupe(self._build(ty, depth), ty)
            self._cache[key] = cached
        return cached

    def _dedupe(self, values: Sequence[Any], ty: LeanType) -> list[Any]:
        seen: set[str] = set()
        result = []
        for v in values:
            k = value_key(v, ty, self.structs)
            if k not in seen:
                seen.add(k)
                result.append(v)
        return result

    def _build(self, ty: LeanType, depth: int) -> list[Any]:
        kind = kind_of(ty, self.structs)
        top = depth == 0
        if kind == "nat":
            return [Nat(x) for x in (_NAT_TOP if top else _NAT_ELEM)]
        if kind == "int":
            return list(_INT_TOP if top else _INT_ELEM)
        if kind == "uint":
            return [make_int(x, ty, self.structs) for x in _uint_pool(uint_bits(ty), top)]
        if kind == "bool":
            return [False, True]
        if kind == "float":
            return list(_FLOAT_TOP if top else _FLOAT_ELEM)
        if kind == "char":
            return [Char(c) for c in (_CHAR_TOP if top else _CHAR_ELEM)]
        if kind == "string":
            return list(_STRING_TOP if top else _STRING_ELEM)
        if kind == "unit":
            return [UNIT]
        if kind in ("list", "array"):
            return self._sequence_forms(ty, depth)
        if kind == "option":
            inner = self.pool(elem_type(ty), depth)
            return [NONE, *(Some(v) for v in inner[: _OPTION_SOME[0 if top else 1]])]
        if isinstance(ty, ProdType):
            columns = [self.pool(ty.fst, depth), self.pool(ty.snd, depth)]
            rng = stable_rng("prod-pool", ty, depth)
            # Shifted so that components differ ((0, 1), (1, 2), ...: also well-formed intervals).
            rows = covering_rows(columns, rng, _PROD_LIMIT[0 if top else 1], shift=1)
            return [Pair(columns[0][i], columns[1][j]) for i, j in rows]
        if kind == "struct":
            fields = struct_fields(ty, self.structs)
            assert isinstance(ty, NamedType)
            if not fields:
                return [Struct(ty.name, ())]
            columns = [self.pool(t, depth) for _, t in fields]
            rng = stable_rng("struct-pool", ty, depth)
            rows = covering_rows(columns, rng, _STRUCT_LIMIT[0 if top else 1], shift=1)
            return [
                Struct(
                    ty.name, tuple((name, columns[c][i]) for c, ((name, _), i) in enumerate(zip(fields, row)))
                )
                for row in rows
            ]
        if kind == "fun":
            return [LeanSource(text) for text in function_catalog(ty)]
        raise ValueError(f"no candidate values for type {ty}")

    def random_value(self, ty: LeanType, rng: random.Random, depth: int = 0) -> Any:
        """A random value of ``ty`` beyond the fixed pools (random sizes and contents), bounded."""
        kind = kind_of(ty, self.structs)
        if kind in ("nat", "int"):
            bound = rng.choice((10, 20, 100, 1000))
            low = 0 if kind == "nat" else -bound
            return make_int(rng.randint(low, bound), ty, self.structs)
        if kind == "uint":
            top = (1 << uint_bits(ty)) - 1
            return make_int(rng.randint(0, rng.choice((10, 100, top))), ty, self.structs)
        if kind == "bool":
            return rng.random() < 0.5
        if kind == "float":
            if rng.random() < 0.5:
                return rng.randint(-40, 40) / 4
            return round(rng.uniform(-1000.0, 1000.0), rng.randint(0, 3))
        if kind == "char":
            return Char(rng.choice(CHAR_PALETTE))
        if kind == "string":
            alphabet = rng.choice(_STRING_ALPHABETS)
            length = rng.choice((0, 1, 2, 3, 5, 8, 12, 20))
            return "".join(rng.choice(alphabet) for _ in range(length))
        if kind in ("list", "array"):
            wrap: Callable[[Sequence[Any]], Any] = Arr if kind == "array" else tuple
            length = rng.choice((0, 1, 2, 3, 4, 5, 6, 8, 10, 15) if depth == 0 else (0, 1, 2, 3, 4))
            elem = elem_type(ty)
            small = self.pool(elem, depth + 1)
            items = [
                rng.choice(small) if rng.random() < 0.5 else self.random_value(elem, rng, depth + 1)
                for _ in range(length)
            ]
            if rng.random() < 0.25:
                items = sorted_values(items, elem, self.structs) or items
            return wrap(items)
        if kind == "option":
            return NONE if rng.random() < 0.25 else Some(self.random_value(elem_type(ty), rng, depth))
        if isinstance(ty, ProdType):
            return Pair(self.random_value(ty.fst, rng, depth), self.random_value(ty.snd, rng, depth))
        if kind == "struct":
            assert isinstance(ty, NamedType)
            fields = struct_fields(ty, self.structs)
            return Struct(ty.name, tuple((name, self.random_value(t, rng, depth)) for name, t in fields))
        return rng.choice(self.pool(ty, depth))  # unit, functions: the pool is all there is

    def _sequence_forms(self, ty: LeanType, depth: int) -> list[Any]:
        """Empty, singleton, two equal, sorted, reversed, all-equal, duplicates, long, grids."""
        elem = elem_type(ty)
        wrap: Callable[[Sequence[Any]], Any] = Arr if kind_of(ty, self.structs) == "array" else tuple
        p = self.pool(elem, depth + 1)
        n = len(p)
        rng = stable_rng("sequence-pool", ty, depth)

        def at(i: int) -> Any:
            return p[i % n]

        forms: list[list[Any]] = [[], [at(0)], [at(1)], [at(1), at(1)], [at(1), at(2)], [at(2), at(1)]]
        distinct5 = rng.sample(p, min(5, n))
        ascending = sorted_values(distinct5, elem, self.structs)
        if depth == 0:
            forms += [
                [at(n - 1)],
                [at(0), at(1), at(2)],
                [at(3)] * 4,
                [at(3), at(1), at(3), at(2), at(1)],
                [at(5), at(0), at(2), at(4), at(1)],
            ]
            if ascending is not None:
                with_dups = sorted_values([at(1), at(2), at(2), at(3), at(5)], elem, self.structs) or []
                forms += [ascending, ascending[::-1], with_dups]
            head = p[: min(n, 8)]
            forms.append([rng.choice(head) for _ in range(10)])
            forms.append([rng.choice(p) for _ in range(15)])
            forms.append([rng.choice(p) for _ in range(20)])
            long_sorted = sorted_values([rng.choice(p) for _ in range(12)], elem, self.structs)
            if long_sorted is not None:
                forms.append(long_sorted)
            if kind_of(elem, self.structs) in INTEGER_KINDS:
                # Runs and permutations: index-like data (ranges, permutations of 0..n-1).
                ints = [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1], [2, 0, 3, 1]]
                forms += [[make_int(x, elem, self.structs) for x in form] for form in ints]
            if kind_of(elem, self.structs) == "float":
                forms += [[at(1), math.nan], [math.inf, at(1), -math.inf], [-0.0, 0.0]]
            forms += self._grid_forms(elem, depth)
        else:
            if ascending is not None:
                forms += [ascending[:3], ascending[:3][::-1]]
            forms.append([rng.choice(p) for _ in range(rng.randint(4, 5))])
        return [wrap(form[:MAX_SEQUENCE_LENGTH]) for form in forms]

    def _grid_forms(self, row_ty: LeanType, depth: int) -> list[list[Any]]:
        """For sequences of sequences: rectangular grids (matrices) and a few ragged ones."""
        if kind_of(row_ty, self.structs) not in ("list", "array"):
            return []
        wrap_row: Callable[[Sequence[Any]], Any] = Arr if kind_of(row_ty, self.structs) == "array" else tuple
        cell = self.pool(elem_type(row_ty), depth + 2)
        rng = stable_rng("grid-pool", row_ty, depth)
        grids: list[list[Any]] = []
        for rows, cols in ((1, 1), (1, 3), (3, 1), (2, 2), (2, 3), (3, 2), (3, 3), (4, 4)):
            grids.append([wrap_row([rng.choice(cell) for _ in range(cols)]) for _ in range(rows)])
        grids.append([wrap_row([])])
        grids.append([wrap_row([]), wrap_row([])])
        grids.append([wrap_row(cell[:3]), wrap_row(cell[:1])])
        return grids


# ---------------------------------------------------------------------------------------------
# Covering combinations


def covering_rows(
    columns: Sequence[Sequence[Any]],
    rng: random.Random,
    limit: int,
    *,
    pairwise_max_columns: int = 3,
    pair_width: int = 6,
    shift: int = 0,
    random_fill: bool = True,
) -> list[tuple[int, ...]]:
    """Index tuples choosing one value per column, without the full cartesian product.

    In order: all-first; a "diagonal" giving every value of every column at least once (row
    ``i`` takes value ``i mod len`` of each column, so same-typed columns also meet equal
    values; ``shift`` offsets column ``c`` by ``c * shift`` to avoid that); for at most ``pairwise_max_columns`` columns, every pair among the first
    ``pair_width`` values of every two columns (the rest at their first value); then (unless
    ``random_fill`` is false) seeded random rows until ``limit``. Truncation at ``limit`` keeps the earlier, simpler rows.
    """
    if limit <= 0 or not columns or any(len(c) == 0 for c in columns):
        return []
    lengths = [len(c) for c in columns]
    seen: set[tuple[int, ...]] = set()
    rows: list[tuple[int, ...]] = []

    def add(row: tuple[int, ...]) -> None:
        if row not in seen and len(rows) < limit:
            seen.add(row)
            rows.append(row)

    add(tuple(0 for _ in lengths))
    for i in range(max(lengths)):
        add(tuple((i + c * shift) % n for c, n in enumerate(lengths)))
    k = len(lengths)
    if 2 <= k <= pairwise_max_columns:
        for a in range(k):
            for b in range(a + 1, k):
                for ia in range(min(lengths[a], pair_width)):
                    for ib in range(min(lengths[b], pair_width)):
                        row = [0] * k
                        row[a], row[b] = ia, ib
                        add(tuple(row))
    if not random_fill:
        return rows
    total = math.prod(lengths)
    attempts = 0
    while len(rows) < min(limit, total) and attempts < 4 * limit:
        attempts += 1
        add(tuple(rng.randrange(n) for n in lengths))
    return rows
