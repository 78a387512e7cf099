"""Wrong-output candidates: type-aware mutants of an expected output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from veriscale.generate.mutation import DEFAULT_MUTATION_SEED, mutate
from veriscale.generate.value_space import kind_of
from veriscale.lean_types import LeanType, StructDef, parse_type
from veriscale.runtime import values_equal
from veriscale.values import parse_value

__all__ = ["OUTPUT_PARAMETER", "mutate_outputs"]

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
    rows = mutate(
        [{OUTPUT_PARAMETER: original}],
        {OUTPUT_PARAMETER: ty},
        structs,
        seed=seed,
        per_seed=n,
        max_chain=max_chain,
        salt="output",
    )
    return [row[OUTPUT_PARAMETER] for row in rows if not values_equal(row[OUTPUT_PARAMETER], original)][:n]
