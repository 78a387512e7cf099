"""Scripted FalsifyBench players over a small hypothesis space (LLM-free).

The space is built from the signature: single-parameter bounds (``0 ≤ n``, ``n > 0``,
``xs.length > 0`` ...), relations between two parameters (``lo ≤ hi``, ``i < xs.length``,
``xs.length = ys.length``), conjunctions of two single-parameter atoms on different parameters,
and ``True``. Every hypothesis is evaluated by the engine on a pool of candidate inputs (the
players' own, seeded) and on the positive example; hypotheses that are undecided anywhere, or false
on the positive example, are left out.

Both players keep the *version space* (the hypotheses consistent with every answer so far) and
state its most specific member (fewest inputs of the pool accepted) as their hypothesis.

* :class:`PositiveTester` proposes inputs its hypothesis accepts (expecting "yes") and submits
  after ``patience`` confirmations in a row -- the confirmation strategy of the 2-4-6 task;
* :class:`NegativeTester` proposes inputs its hypothesis rejects (expecting "no"), choosing the
  one on which the version space is most divided, and submits once the space agrees on every
  input of the pool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from veriscale.games.common import parse_input, stored_input
from veriscale.games.falsify.game import FalsifyJudge, FalsifyPlayer, Observation
from veriscale.generate.synthesis import synthesize
from veriscale.generate.value_space import kind_of
from veriscale.typed_task import TypedTask

__all__ = ["AGENTS", "NegativeTester", "PositiveTester", "hypothesis_space"]

_NUMERIC = ("nat", "int", "uint")
_SEQUENCE = ("list", "array", "string")


def _single_atoms(name: str, kind: str) -> list[str]:
    if kind in _NUMERIC:
        atoms = [f"{name} > 0", f"{name} ≤ 10", f"{name} < 100"]
        return ([f"0 ≤ {name}"] if kind == "int" else []) + atoms
    if kind in _SEQUENCE:
        return [f"{name}.length > 0", f"{name}.length ≤ 10"]
    return []


def hypothesis_space(view: TypedTask) -> list[str]:
    kinds = {name: kind_of(ty, view.structs) for name, ty in view.param_types.items()}
    singles = {name: _single_atoms(name, kind) for name, kind in kinds.items()}
    relations: list[str] = []
    for a, b in combinations(kinds, 2):
        ka, kb = kinds[a], kinds[b]
        if ka in _NUMERIC and kb in _NUMERIC and ka == kb:
            relations += [f"{a} ≤ {b}", f"{b} ≤ {a}", f"{a} < {b}", f"{b} < {a}", f"{a} ≠ {b}"]
        for n, s in ((a, b), (b, a)):
            if kinds[n] in ("nat",) and kinds[s] in ("list", "array"):
                relations += [f"{n} < {s}.length", f"{n} ≤ {s}.length"]
        if ka in ("list", "array") and kb in ("list", "array"):
            relations.append(f"{a}.length = {b}.length")
    conjunctions = [f"{x} ∧ {y}" for a, b in combinations(kinds, 2) for x in singles[a] for y in singles[b]]
    return ["True", *(atom for atoms in singles.values() for atom in atoms), *relations, *conjunctions]


class _Tester:
    """Shared machinery: the evaluated space, the version space, the most specific hypothesis."""

    def __init__(
        self, judge: FalsifyJudge, *, seed: int = 42, pool_size: int = 40, patience: int = 3
    ) -> None:
        view = judge.view
        self.view = view
        self.patience = patience
        start = parse_input(judge.game.positive, view.param_types, view.structs)
        rows = synthesize(
            view.param_types, view.structs, seed=seed + 1, limit=pool_size, salt="falsify-agent"
        )
        # the players' own pool: the judging inputs stay hidden from them
        self.pool: list[dict[str, Any]] = [start, *rows]
        self.hypotheses: list[str] = []
        self.table: list[list[bool]] = []
        for hypothesis in hypothesis_space(view):
            verdicts = judge.evaluate(hypothesis, self.pool)
            if isinstance(verdicts, str) or any(v is None for v in verdicts) or not verdicts[0]:
                continue
            self.hypotheses.append(hypothesis)
            self.table.append([bool(v) for v in verdicts])
        self.alive = list(range(len(self.hypotheses)))
        self.asked: set[int] = {0}
        self.last: int | None = None
        self.confirmations = 0

    def observe(self, observation: Observation) -> None:
        if self.last is None or observation.answer is None:
            return
        index = self.last
        self.alive = [h for h in self.alive if self.table[h][index] == observation.answer]
        self.last = None

    def current(self) -> int | None:
        if not self.alive:
            return None
        return min(self.alive, key=lambda h: (sum(self.table[h]), h))

    def final(self, h: int | None) -> dict[str, Any]:
        return {"final": self.hypotheses[h] if h is not None else "True"}

    def propose(self, h: int, index: int, expectation: bool) -> dict[str, Any]:
        self.asked.add(index)
        self.last = index
        return {
            "hypothesis": self.hypotheses[h],
            "expectation": "yes" if expectation else "no",
            "input": stored_input(self.pool[index], self.view),
        }

    def unasked(self) -> Sequence[int]:
        return [i for i in range(len(self.pool)) if i not in self.asked]


class PositiveTester(_Tester):
    def act(self, observation: Observation) -> dict[str, Any]:
        surprised = self.last is not None and observation.answer is False
        self.observe(observation)
        self.confirmations = 0 if surprised else self.confirmations + (observation.answer is True)
        h = self.current()
        if h is None or self.confirmations >= self.patience or observation.text.startswith("No tests left"):
            return self.final(h)
        candidates = [i for i in self.unasked() if self.table[h][i]]
        if not candidates:
            return self.final(h)
        return self.propose(h, candidates[0], True)


class NegativeTester(_Tester):
    def act(self, observation: Observation) -> dict[str, Any]:
        self.observe(observation)
        h = self.current()
        if h is None or observation.text.startswith("No tests left"):
            return self.final(h)

        def split(i: int) -> int:
            yes = sum(1 for g in self.alive if self.table[g][i])
            return min(yes, len(self.alive) - yes)

        divided = [i for i in self.unasked() if split(i) > 0]
        if not divided:
            return self.final(h)
        negatives = [i for i in divided if not self.table[h][i]]
        choice = max(negatives or divided, key=lambda i: (split(i), -i))
        return self.propose(h, choice, self.table[h][choice])


AGENTS: dict[str, Callable[[FalsifyJudge], FalsifyPlayer]] = {
    "positive": PositiveTester,
    "negative": NegativeTester,
}
