"""LLM-free candidate inputs: type-driven synthesis, type-aware mutation, de-duplication.

All three are pure and deterministic: the same arguments give the same rows, in the same order,
in any process (random streams come from :func:`veriscale.generate.value_space.stable_rng`).
Rows map parameter names to runtime values (:mod:`veriscale.lean.values`).

* :func:`synthesize` -- rows from boundary values of each parameter's type;
* :func:`mutate` / :func:`mutate_traced` -- chains of type-aware changes to seed rows;
* :func:`dedupe` -- the first row of each canonical input key;
* :func:`is_valid_row` -- every value is a well-formed value of its declared type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from veriscale.generate.mutation import (
    DEFAULT_INGREDIENT_PROB,
    DEFAULT_MAX_CHAIN,
    DEFAULT_MUTATION_SEED,
    DEFAULT_PER_SEED,
    Mutant,
    MutationStep,
    mutate,
    mutate_traced,
)
from veriscale.generate.synthesis import DEFAULT_SYNTHESIS_LIMIT, synthesize, unsupported_parameters
from veriscale.generate.value_space import is_valid_value
from veriscale.lean.codec import ValueParseError, parse_value
from veriscale.lean.types import LeanType, StructDef
from veriscale.typed_task import typed_input_key

__all__ = [
    "DEFAULT_INGREDIENT_PROB",
    "DEFAULT_MAX_CHAIN",
    "DEFAULT_MUTATION_SEED",
    "DEFAULT_PER_SEED",
    "DEFAULT_SYNTHESIS_LIMIT",
    "Mutant",
    "MutationStep",
    "dedupe",
    "is_valid_row",
    "mutate",
    "mutate_traced",
    "synthesize",
    "unsupported_parameters",
]


def dedupe(
    rows: Iterable[Mapping[str, Any]],
    param_types: Mapping[str, LeanType],
    structs: Mapping[str, StructDef],
    *,
    on_invalid: Literal["raise", "drop"] = "raise",
) -> list[dict[str, Any]]:
    """The first row of each canonical key (``typed_task.typed_input_key``), in input order.

    Rows may hold runtime values or stored encodings (``"[1, 2]"``, ``[1, 2]``, ``"#[1,2]"``);
    every returned row holds runtime values (read with ``parse_value``, ``UIntN`` literals wrapping
    as Lean's do). A row that does not fit the signature raises :class:`ValueParseError`, or is
    skipped with ``on_invalid="drop"``.
    """
    seen: set[str] = set()
    result: list[dict[str, Any]] = []
    for row in rows:
        try:
            missing = [name for name in param_types if name not in row]
            if missing or len(row) != len(param_types):
                raise ValueParseError(f"row does not match the parameters {list(param_types)}", raw=dict(row))
            typed = {
                name: parse_value(row[name], ty, structs, wrap_uint=True) for name, ty in param_types.items()
            }
            key = typed_input_key(typed, param_types, structs)
        except ValueParseError:
            if on_invalid == "drop":
                continue
            raise
        if key not in seen:
            seen.add(key)
            result.append(typed)
    return result


def is_valid_row(
    row: Mapping[str, Any], param_types: Mapping[str, LeanType], structs: Mapping[str, StructDef]
) -> bool:
    """Exactly the declared parameters, each a valid runtime value of its type (round-trips)."""
    return set(row) == set(param_types) and all(
        is_valid_value(row[name], ty, structs) for name, ty in param_types.items()
    )
