"""The judging pool: inputs that decide which flawed specifications and mutants count at all.

An item (a flawed specification or a mutant) is *equivalent* to the ground truth unless its decided
verdict differs from the ground truth's somewhere. Judging that on the rows of the suites being
compared would flatter them (an item no compared suite tells apart would drop out of the
denominator, and a suite measured alone would score 100 %), so it is judged on a pool of inputs
generated for power alone, with its own seed and salt, from the type-driven generators of
:mod:`veriscale.generate` (synthesis from each parameter's boundary and random values, then
mutation chains from the inputs the ground-truth precondition accepts). The pool is built from the
ground-truth task only, so every suite compared, alone or in company, gets the same denominator.

Rows of the pool (all answered by the ground truth first; only decided answers are kept):

* every input, with the ground-truth precondition's verdict (judges flawed preconditions);
* every accepted input, with the reference output (judges mutants);
* (accepted input, reference output) and (accepted input, a few outputs near it), with the
  ground-truth postcondition's verdict (judges flawed postconditions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from veriscale.generate import dedupe, mutate, synthesize
from veriscale.generate.adversaries import mutate_outputs
from veriscale.lean.codec import ValueParseError, render_value
from veriscale.lean.types import LeanType, LeanTypeError, StructDef, parse_structures, parse_type
from veriscale.task import Task
from veriscale.typed_task import TypedTaskError, typed_input_key

__all__ = ["DEFAULT_POOL_SEED", "DEFAULT_POOL_SIZE", "CheckRow", "JudgingPool", "RowsByKind", "pool_inputs"]

DEFAULT_POOL_SEED = 90_001
"""Neither expand's 42 nor the items' seed: the pool is chosen independently of both."""
DEFAULT_POOL_SIZE = 120
"""Inputs per task: half synthesised, half mutated from the accepted ones."""
NEAR_OUTPUTS = 3
"""Outputs near the reference output per accepted input (postcondition rows)."""
MUTATION_SEEDS = 24


@dataclass(frozen=True)
class CheckRow:
    """One check the judge runs: a pool row, or a row of a suite's stored tests."""

    key: str
    args: dict[str, Any]
    output: Any = None
    label: Any = None
    """The answer that passes: ``True``/``False`` for specifications, the value for code."""


@dataclass
class RowsByKind:
    """Rows per check kind (``precond``, ``postcond``, ``code``)."""

    precond: list[CheckRow] = field(default_factory=list)
    postcond: list[CheckRow] = field(default_factory=list)
    code: list[CheckRow] = field(default_factory=list)

    def rows(self, kind: str) -> list[CheckRow]:
        rows: list[CheckRow] = getattr(self, kind)
        return rows


@dataclass
class JudgingPool(RowsByKind):
    """The judging pool's rows, labelled with the ground truth's own answers."""

    inputs: int = 0


def _signature(truth: Task) -> tuple[dict[str, LeanType], LeanType, dict[str, StructDef]]:
    # only the signature: the task's stored values play no part in the pool
    try:
        params = {p.name: parse_type(p.type) for p in truth.signature.parameters}
        ret = parse_type(truth.signature.return_type)
    except LeanTypeError as exc:
        raise TypedTaskError(truth.id, f"signature type does not parse: {exc}") from exc
    return params, ret, parse_structures(truth.section("task_aux"))


def pool_inputs(
    truth: Task, *, seed: int = DEFAULT_POOL_SEED, size: int = DEFAULT_POOL_SIZE
) -> list[dict[str, Any]]:
    """The synthesised half of the pool (runtime values), deterministic for the seed."""
    params, _, structs = _signature(truth)
    return synthesize(params, structs, seed=seed, limit=max(1, size // 2), salt=f"power-pool\x1f{truth.id}")


def mutated_inputs(
    truth: Task, accepted: list[dict[str, Any]], known: list[dict[str, Any]], *, seed: int, size: int
) -> list[dict[str, Any]]:
    """The mutated half: chains of type-aware changes to accepted pool inputs, new ones only."""
    params, _, structs = _signature(truth)
    if not accepted or size <= 0:
        return []
    rows = mutate(accepted[:MUTATION_SEEDS], params, structs, seed=seed, per_seed=max(1, size // min(len(accepted), MUTATION_SEEDS) + 1),
                  salt=f"power-pool\x1f{truth.id}")
    seen = {typed_input_key(r, params, structs) for r in known}
    out: list[dict[str, Any]] = []
    for row in dedupe(rows, params, structs, on_invalid="drop"):
        key = typed_input_key(row, params, structs)
        if key not in seen:
            seen.add(key)
            out.append(row)
        if len(out) >= size:
            break
    return out


def input_key(truth: Task, row: dict[str, Any]) -> str:
    params, _, structs = _signature(truth)
    return typed_input_key(row, params, structs)


def near_outputs(truth: Task, value: Any, *, seed: int) -> list[Any]:
    _, ret, structs = _signature(truth)
    try:
        return mutate_outputs(value, ret, structs, seed=seed, n=NEAR_OUTPUTS)
    except ValueParseError:
        return []


def output_key(truth: Task, value: Any) -> str:
    _, ret, structs = _signature(truth)
    return render_value(value, ret, structs)
