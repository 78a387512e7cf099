"""LLM-free REFUTE players that play through :func:`~veriscale.games.refute.game.play_item`.

* :class:`RandomPlayer` -- random type-driven sampling: each attempt a fresh random value per
  parameter (:func:`~veriscale.games.refute.difficulty.blind_inputs`; a stream of its own, seeded
  by the item, independent of the inputs ``expand`` drew and of the build's blind pool);
* :class:`MutationPlayer` -- mutants of the benchmark's original test inputs (chains of
  type-aware single-parameter changes, ``generate.mutation``), in order.

The random player draws from the same sampler as the blind pool that calibrates the difficulty
buckets (:mod:`~veriscale.games.refute.difficulty`), so its success per bucket checks them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from veriscale.games.common import stored_input
from veriscale.games.refute.difficulty import blind_inputs
from veriscale.games.refute.game import Action
from veriscale.generate.mutation import mutate
from veriscale.generate.value_space import stable_rng
from veriscale.typed_task import TypedTask

__all__ = ["BASELINES", "MutationPlayer", "RandomPlayer"]


class _ScriptedPlayer:
    """Answers the next input of a stream at every move (it never asks for feedback)."""

    def __init__(self, inputs: Iterator[dict[str, Any]]) -> None:
        self._inputs = inputs

    def act(self, observation: str) -> Action:
        row = next(self._inputs, None)
        return Action("answer", row if row is not None else "no more inputs")

    def plan(self, n: int) -> list[dict[str, Any]]:
        """The next ``n`` inputs (fewer when the stream ends): this player never reads the answers."""
        rows: list[dict[str, Any]] = []
        for row in self._inputs:
            rows.append(row)
            if len(rows) >= n:
                break
        return rows


class RandomPlayer(_ScriptedPlayer):
    def __init__(self, view: TypedTask, *, seed: int, item_id: str) -> None:
        super().__init__(blind_inputs(view, stable_rng("refute-random", seed, item_id)))


class MutationPlayer(_ScriptedPlayer):
    def __init__(
        self, view: TypedTask, originals: Sequence[Mapping[str, Any]], *, seed: int, item_id: str, budget: int
    ) -> None:
        per_seed = max(1, math.ceil(budget / max(1, len(originals))))
        rows = mutate(
            [dict(row) for row in originals],
            view.param_types,
            view.structs,
            seed=seed,
            per_seed=per_seed,
            salt=item_id,
        )
        super().__init__(iter([stored_input(row, view) for row in rows]))


BASELINES = ("random", "mutation")
