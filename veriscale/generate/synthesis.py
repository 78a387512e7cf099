"""Type-driven synthesis: input rows built from boundary values of each parameter's type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from veriscale.generate.value_space import ValuePools, covering_rows, stable_rng, supports_type
from veriscale.lean.types import LeanType, StructDef
from veriscale.typed_task import typed_input_key

__all__ = ["DEFAULT_SYNTHESIS_LIMIT", "synthesize", "unsupported_parameters"]

DEFAULT_SYNTHESIS_LIMIT = 200


def unsupported_parameters(
    param_types: Mapping[str, LeanType], structs: Mapping[str, StructDef]
) -> list[str]:
    """Names of the parameters (in declaration order) whose type has no value generator."""
    return [name for name, ty in param_types.items() if not supports_type(ty, structs)]


class DistinctRows:
    """Rows collected in order, the first of each typed input key, up to ``limit``."""

    def __init__(self, param_types: Mapping[str, LeanType], structs: Mapping[str, StructDef], limit: int) -> None:
        self.param_types = param_types
        self.structs = structs
        self.limit = limit
        self.rows: list[dict[str, Any]] = []
        self._seen: set[str] = set()

    def add(self, row: dict[str, Any]) -> None:
        key = typed_input_key(row, self.param_types, self.structs)
        if key not in self._seen and len(self.rows) < self.limit:
            self._seen.add(key)
            self.rows.append(row)


def synthesize(
    param_types: Mapping[str, LeanType],
    structs: Mapping[str, StructDef],
    *,
    seed: int,
    limit: int = DEFAULT_SYNTHESIS_LIMIT,
    salt: str = "",
) -> list[dict[str, Any]]:
    """Up to ``limit`` distinct input rows (runtime values keyed by parameter name).

    Each parameter gets its type's boundary pool (:class:`ValuePools`); rows combine them with
    :func:`covering_rows`: the all-simplest row, every boundary value of every parameter at least
    once, all pairs of the first few values for up to three parameters, then random rows (each
    value a pool value or a random one of random size: :meth:`ValuePools.random_value`) drawn from
    a generator seeded by ``seed``, ``salt`` (pass the task id so that tasks with the
    same signature get different random rows) and the signature's text. Returns ``[]`` when a
    parameter's type is not supported (see :func:`unsupported_parameters`) or there are no
    parameters.
    """
    if not param_types or unsupported_parameters(param_types, structs) or limit <= 0:
        return []
    pools = ValuePools(structs)
    names = list(param_types)
    columns = [pools.pool(param_types[name]) for name in names]
    signature = ", ".join(f"{name} : {param_types[name]}" for name in names)
    rng = stable_rng("synthesize", seed, salt, signature)
    distinct = DistinctRows(param_types, structs, limit)
    rows, add = distinct.rows, distinct.add

    for index_row in covering_rows(columns, rng, limit, random_fill=False):
        add({name: columns[c][i] for c, (name, i) in enumerate(zip(names, index_row))})
    # Random rows: each value from the pool or freshly drawn (random sizes and contents).
    attempts = 0
    while len(rows) < limit and attempts < 4 * limit:
        attempts += 1
        add(
            {
                name: rng.choice(column) if rng.random() < 0.5 else pools.random_value(param_types[name], rng)
                for name, column in zip(names, columns)
            }
        )
    return rows
