"""``veriscale falsify build``: FalsifyBench games whose hidden rule is a task's precondition.

A game is made of every task whose ground-truth precondition is non-trivial (its body is not
``True``). It carries

* the starting positive example: the first test input on which the hidden rule is decided true;
* the judging inputs, each with the hidden rule's decided verdict: the suite's accept inputs and
  reject inputs plus an independently generated pool (random type-driven rows and mutants of the
  test inputs, with seeds of the games' own), at most ``cap`` from each source, de-duplicated;
* how many of the inputs considered the hidden rule decided (``decided_share``): undecided inputs
  are not used for judging, and a game whose share is low says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veriscale.backends.base import Backend, Check, CheckKind
from veriscale.backends.select import make_backend, worker_engine, worker_engine_setup
from veriscale.benchmark import load_benchmark
from veriscale.games.common import read_jsonl, stored_input
from veriscale.generate.mutation import mutate
from veriscale.generate.value_space import ValuePools, stable_rng, supports_type
from veriscale.parallel import Executor, worker_memory_limit
from veriscale.task import Task, TaskLoadError
from veriscale.typed_task import TypedTask, TypedTaskError, typed_input_key, typed_view

__all__ = ["GAMES_FILE", "FalsifyGame", "build_games", "is_trivial_precondition", "load_games"]

GAMES_FILE = "games.jsonl"
DEFAULT_CAP = 60
"""Judging inputs taken from each source (accept, reject, pool)."""


def is_trivial_precondition(task: Task) -> bool:
    body = " ".join(task.section("precond").split())
    return body in ("", "True")


@dataclass
class FalsifyGame:
    id: str
    task: str
    positive: dict[str, Any]
    """The starting example (a stored input on which the hidden rule holds)."""
    judging: list[dict[str, Any]]
    """``{"input": stored input, "label": bool, "source": accept|reject|pool}``, hidden."""
    considered: int
    decided_share: float

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> FalsifyGame:
        return cls(**raw)


@dataclass
class FalsifyBuildSummary:
    tasks: int = 0
    trivial: int = 0
    games: int = 0
    no_positive_example: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    min_decided_share: float = 1.0
    games_below_95: list[str] = field(default_factory=list)
    judging_inputs: int = 0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def independent_pool(
    view: TypedTask, seeds: Sequence[dict[str, Any]], *, seed: int, size: int
) -> list[dict[str, Any]]:
    """Random type-driven rows and mutants of ``seeds`` (runtime values), half each, from streams
    of the games' own (not the ones ``expand`` used)."""
    rows: list[dict[str, Any]] = []
    if all(supports_type(ty, view.structs) for ty in view.param_types.values()):
        pools = ValuePools(view.structs)
        rng = stable_rng("falsify-pool", seed, view.task.id)
        rows += [
            {n: pools.random_value(ty, rng) for n, ty in view.param_types.items()} for _ in range(size // 2)
        ]
    if seeds:
        per_seed = max(1, (size - len(rows)) // len(seeds) + 1)
        rows += mutate(
            list(seeds), view.param_types, view.structs, seed=seed + 7919, per_seed=per_seed, salt="falsify"
        )
    return rows[:size]


def _spread(rows: Sequence[Any], cap: int) -> list[Any]:
    """At most ``cap`` rows spread evenly over ``rows`` (originals first, as suites store them)."""
    if len(rows) <= cap:
        return list(rows)
    step = len(rows) / cap
    return [rows[int(i * step)] for i in range(cap)]


def build_game(task: Task, backend: Backend, *, seed: int = 42, cap: int = DEFAULT_CAP) -> FalsifyGame | None:
    view = typed_view(task)
    accept = [t.args for t in view.tests if t.args is not None]
    reject = [r.args for r in view.rejects if r.args is not None]
    pool = independent_pool(view, accept[:10], seed=seed, size=cap)
    candidates: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    for source, rows in (("accept", _spread(accept, cap)), ("reject", _spread(reject, cap)), ("pool", pool)):
        for args in rows:
            key = typed_input_key(args, view.param_types, view.structs)
            if key not in seen:
                seen.add(key)
                candidates.append((source, args))
    backend.start_unit()
    answers = backend.run(task, [Check(kind=CheckKind.PRECOND, args=args) for _, args in candidates])
    judging: list[dict[str, Any]] = [
        {"input": stored_input(args, view), "label": answer.status == "true", "source": source}
        for (source, args), answer in zip(candidates, answers, strict=True)
        if answer.status in ("true", "false")
    ]
    positive: dict[str, Any] | None = next(
        (row["input"] for row in judging if row["source"] == "accept" and row["label"]), None
    )
    if positive is None:
        return None
    share = len(judging) / len(candidates) if candidates else 0.0
    return FalsifyGame(
        id=f"falsify::{task.id}",
        task=task.id,
        positive=positive,
        judging=judging,
        considered=len(candidates),
        decided_share=round(share, 4),
    )


def build_games(
    suite: Path,
    out: Path,
    backend: Backend | str,
    *,
    seed: int = 42,
    cap: int = DEFAULT_CAP,
    tasks: Sequence[str] | None = None,
    progress: Callable[[str, bool], None] | None = None,
    executor: Executor | None = None,
) -> FalsifyBuildSummary:
    """Write ``out/games.jsonl`` (and ``build_summary.json``, ``build.json``) for every task of
    ``suite`` with a non-trivial precondition.

    ``backend`` is an engine, or an engine's name; with a name and an ``executor``, the tasks are
    built on the executor's workers (one engine each). The output is the same either way."""
    loaded = load_benchmark(suite)
    summary = FalsifyBuildSummary()
    summary.errors.update({failure.task: str(failure) for failure in loaded.failures})
    chosen = [task for task in loaded.tasks if not tasks or task.id in tasks]
    summary.tasks = len(chosen)
    summary.trivial = sum(1 for task in chosen if is_trivial_precondition(task))
    units = [(task, seed, cap) for task in chosen if not is_trivial_precondition(task)]
    if executor is not None and isinstance(backend, str):
        built = executor.map(_worker_build, units, setup=worker_engine_setup(backend), crashed=_crashed_build,
                             memory_limit=worker_memory_limit(backend))
    else:
        engine = make_backend(backend) if isinstance(backend, str) else backend
        built = [_game_or_error(task, engine, seed, cap) for task, seed, cap in units]
    lines: list[str] = []
    for (task, _, _), game in zip(units, built):
        if isinstance(game, str):
            summary.errors[task.id] = game
            continue
        if game is None:
            summary.no_positive_example.append(task.id)
            continue
        summary.games += 1
        summary.judging_inputs += len(game.judging)
        summary.min_decided_share = min(summary.min_decided_share, game.decided_share)
        if game.decided_share < 0.95:
            summary.games_below_95.append(task.id)
        lines.append(json.dumps(game.to_json(), ensure_ascii=False, sort_keys=True))
        if progress is not None:
            progress(task.id, True)
    out.mkdir(parents=True, exist_ok=True)
    (out / GAMES_FILE).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (out / "build_summary.json").write_text(json.dumps(summary.to_json(), indent=2) + "\n", encoding="utf-8")
    (out / "build.json").write_text(
        json.dumps({"suite": str(suite.resolve())}, indent=2) + "\n", encoding="utf-8"
    )
    return summary


def _game_or_error(task: Task, backend: Backend, seed: int, cap: int) -> FalsifyGame | None | str:
    """The task's game, ``None`` without a positive example, or why it cannot be built."""
    try:
        return build_game(task, backend, seed=seed, cap=cap)
    except (TypedTaskError, TaskLoadError, ValueError) as exc:
        return str(exc).splitlines()[0]


def _worker_build(unit: tuple[Task, int, int]) -> FalsifyGame | None | str:
    task, seed, cap = unit
    return _game_or_error(task, worker_engine(), seed, cap)


def _crashed_build(unit: tuple[Task, int, int], reason: str) -> str:
    return reason


def load_games(path: Path) -> list[FalsifyGame]:
    file = path / GAMES_FILE if path.is_dir() else path
    return [FalsifyGame.from_json(raw) for raw in read_jsonl(file)]
