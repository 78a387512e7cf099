"""Candidate inputs of one task: LLM rows, type-driven synthesis, mutation of the seeds; de-duplicated.

Boundary rows come from the numbers the task's specification mentions (``generate.boundaries``).
The seeds are the task's original test inputs and reject inputs. Sources are merged in the order
of :data:`~veriscale.stages.expand.models.CANDIDATE_SOURCES`; a candidate whose canonical key
(``typed_task.typed_input_key``) equals an original input's or an earlier candidate's is dropped
and counted as a duplicate of its source. Everything here is deterministic in ``options.seed``
and the task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veriscale.generate import mutate, synthesize
from veriscale.generate.boundaries import boundary_rows
from veriscale.stages.expand.models import CANDIDATE_SOURCES, CandidateCounts, ExpandOptions
from veriscale.typed_task import TypedTask, typed_input_key

__all__ = ["Candidate", "gather_candidates", "original_keys", "seed_rows"]


@dataclass(frozen=True)
class Candidate:
    args: dict[str, Any]
    """Runtime values by parameter name, in signature order."""
    key: str
    source: str


def seed_rows(view: TypedTask) -> list[dict[str, Any]]:
    """Original test inputs, then original reject inputs, that parse (stored order)."""
    rows = [t.args for t in view.tests if t.args is not None]
    rows += [r.args for r in view.rejects if r.args is not None]
    return rows


def original_keys(view: TypedTask) -> set[str]:
    keys = {t.key for t in view.tests if t.key is not None}
    keys |= {r.key for r in view.rejects if r.key is not None}
    return keys


def gather_candidates(
    view: TypedTask,
    options: ExpandOptions,
    *,
    llm_rows: Sequence[Mapping[str, Any]] = (),
) -> tuple[list[Candidate], dict[str, CandidateCounts]]:
    """New distinct candidate inputs (in merge order) and per-source counts."""
    types, structs = view.param_types, view.structs
    task_id = view.task.id
    seeds = seed_rows(view)
    produced: dict[str, Sequence[Mapping[str, Any]]] = {
        "llm": llm_rows,
        "synthesis": synthesize(types, structs, seed=options.seed, limit=options.synthesis_limit, salt=task_id),
        "boundary": boundary_rows(
            types, structs, {name: view.task.section(name) for name in view.task.section_names()},
            limit=options.boundary_limit,
        ),
        "mutation": mutate(
            seeds,
            types,
            structs,
            seed=options.seed,
            per_seed=options.mutants_per_seed,
            max_chain=options.mutation_max_chain,
            ingredient_prob=options.ingredient_prob,
            salt=task_id,
        )
        if seeds
        else [],
    }
    seen = original_keys(view)
    counts = {source: CandidateCounts() for source in CANDIDATE_SOURCES}
    candidates: list[Candidate] = []
    for source in CANDIDATE_SOURCES:
        for row in produced[source]:
            counts[source].generated += 1
            args = {name: row[name] for name in types}
            key = typed_input_key(args, types, structs)
            if key in seen:
                counts[source].duplicate += 1
                continue
            seen.add(key)
            candidates.append(Candidate(args=args, key=key, source=source))
    return candidates, counts
