"""Wrong-output candidates: type-aware mutants of an expected output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from veriscale.generate.mutation import DEFAULT_MUTATION_SEED, mutate
from veriscale.generate.value_space import (
    INTEGER_KINDS,
    elem_type,
    is_valid_value,
    kind_of,
    make_int,
    value_key,
)
from veriscale.lean.codec import parse_value
from veriscale.lean.types import LeanType, ProdType, StructDef, parse_type
from veriscale.lean.values import NONE, Arr, Char, Pair, Some, values_equal

__all__ = ["OUTPUT_PARAMETER", "mutate_outputs", "near_outputs"]

OUTPUT_PARAMETER = "result"
"""The pseudo-parameter the output is mutated as (its name only salts the random stream)."""

DEFAULT_OUTPUT_CHAIN = 2
"""Chains of at most two changes: near misses are what tell a weak specification apart."""


def mutate_outputs(
    value: Any,
    return_type: LeanType | str,
    structs: Mapping[str, StructDef],
    *,
    seed: int = DEFAULT_MUTATION_SEED,
    n: int = 15,
    max_chain: int = DEFAULT_OUTPUT_CHAIN,
) -> list[Any]:
    """Up to ``n`` distinct values of ``return_type`` near ``value`` and different from it.

    ``value`` is a runtime value or any stored encoding (read with ``parse_value``; raises
    ``ValueParseError`` when it does not fit the type). Built on
    :func:`veriscale.generate.mutate` with a single pseudo-parameter, so the same arguments give
    the same list in any process. Function-typed and unsupported results give ``[]``.
    """
    ty = parse_type(return_type) if isinstance(return_type, str) else return_type
    if n <= 0 or kind_of(ty, structs) in ("fun", "unit", "unsupported"):
        return []
    original = parse_value(value, ty, structs, wrap_uint=True)
    near = near_outputs(original, ty, structs)
    rows = mutate(
        [{OUTPUT_PARAMETER: original}],
        {OUTPUT_PARAMETER: ty},
        structs,
        seed=seed,
        per_seed=n,
        max_chain=max_chain,
        salt="output",
    )
    randoms = [row[OUTPUT_PARAMETER] for row in rows if not values_equal(row[OUTPUT_PARAMETER], original)]
    # Near misses and random mutants alternate, so a small ``n`` gets both kinds.
    merged: list[Any] = []
    seen = {value_key(original, ty, structs)}
    for i in range(max(len(near), len(randoms))):
        for source in (near, randoms):
            if i < len(source):
                key = value_key(source[i], ty, structs)
                if key not in seen:
                    seen.add(key)
                    merged.append(source[i])
    return merged[:n]


def _near_scalar(v: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> list[Any]:
    kind = kind_of(ty, structs)
    if kind in INTEGER_KINDS:
        x = int(v)
        return [make_int(y, ty, structs) for y in (x + 1, x - 1, -x, 0, x + 2, x - 2, 2 * x) if kind == "int" or y >= 0]
    if kind == "bool":
        return [not v]
    if kind == "float":
        return [v + 1.0, v - 1.0, -v, v + 0.5, 0.0]
    if kind == "char":
        c = str(v)
        return [Char(x) for x in (chr(ord(c) + 1) if ord(c) + 1 < 0x110000 else c, c.swapcase(), " ") if len(x) == 1]
    if kind == "string":
        return [v[:-1], v[1:], v + " ", " " + v, v + v[-1:], v.swapcase(), v[::-1], ""]
    return []


def near_outputs(value: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> list[Any]:
    """Deterministic near misses of ``value`` at ``ty``: off by one (and by sign, zero) for
    numbers, the other boolean, a character or element dropped, added, swapped or reversed for
    strings and sequences, ``none`` for ``some`` -- each valid at the type and different from
    ``value``. These are the wrong outputs a weak specification most often lets through."""
    kind = kind_of(ty, structs)
    found: list[Any] = []
    if kind in ("list", "array"):
        items = list(value)
        elem = elem_type(ty)
        wrap = Arr if kind == "array" else tuple
        forms = [items[:-1], items[1:], items + items[-1:], items[1:2] + items[:1] + items[2:], items[::-1], []]
        if items:
            forms += [[first, *items[1:]] for first in _near_scalar(items[0], elem, structs)[:2]]
            forms += [[*items[:-1], last] for last in _near_scalar(items[-1], elem, structs)[:2]]
        found = [wrap(form) for form in forms]
    elif kind == "option":
        if value is NONE or value == NONE:
            found = []
        else:
            inner = value.value if isinstance(value, Some) else None
            found = [NONE] + ([Some(x) for x in near_outputs(inner, elem_type(ty), structs)[:3]] if inner is not None else [])
    elif isinstance(ty, ProdType) and isinstance(value, Pair):
        found = [Pair(x, value.snd) for x in near_outputs(value.fst, ty.fst, structs)[:3]]
        found += [Pair(value.fst, y) for y in near_outputs(value.snd, ty.snd, structs)[:3]]
    else:
        found = _near_scalar(value, ty, structs)
    return [v for v in found if is_valid_value(v, ty, structs) and not values_equal(v, value)]
