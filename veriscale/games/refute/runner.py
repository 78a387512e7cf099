"""Playing REFUTE items with LLM-free players, one transcript line per item (resumable)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from veriscale.backends.base import Backend
from veriscale.games.common import TranscriptStore
from veriscale.games.refute.baselines import MutationPlayer, RandomPlayer
from veriscale.games.refute.build import RefuteItem, load_items, original_count
from veriscale.games.refute.game import Player, RefuteJudge, RefuteSettings, play_item, refute_metrics
from veriscale.task import Task, load_task

__all__ = ["TRANSCRIPTS_FILE", "baseline_player", "run_items", "suite_of"]

TRANSCRIPTS_FILE = "transcripts.jsonl"
BUILD_FILE = "build.json"


def suite_of(build_dir: Path) -> Path:
    """The suite a build directory was made from (recorded by ``refute build``)."""
    record = json.loads((build_dir / BUILD_FILE).read_text(encoding="utf-8"))
    return Path(record["suite"])


def original_inputs(suite: Path, task: Task) -> list[dict[str, Any]]:
    return [t.input for t in task.tests[: original_count(suite / task.id)]]


def baseline_player(name: str, judge: RefuteJudge, suite: Path, *, seed: int, budget: int) -> Player:
    if name == "random":
        return RandomPlayer(judge.view, seed=seed, item_id=judge.item.id)
    if name == "mutation":
        return MutationPlayer(
            judge.view, original_inputs(suite, judge.task), seed=seed, item_id=judge.item.id, budget=budget
        )
    raise ValueError(f"unknown baseline {name!r}: choose random or mutation")


def run_items(
    build_dir: Path,
    out: Path,
    backend: Backend,
    make_player: Callable[[RefuteJudge], Player],
    settings: RefuteSettings,
    *,
    items: list[RefuteItem] | None = None,
    progress: Callable[[str, bool], None] | None = None,
) -> dict[str, Any]:
    """Play every item (skipping those already in ``out/transcripts.jsonl``); the metrics of all."""
    suite = suite_of(build_dir)
    store = TranscriptStore(out / TRANSCRIPTS_FILE)
    done = store.done()
    tasks: dict[str, Task] = {}
    for item in items if items is not None else load_items(build_dir):
        if item.id in done:
            continue
        task = tasks.get(item.task)
        if task is None:
            task = tasks[item.task] = load_task(suite / item.task)
        backend.start_unit()
        judge = RefuteJudge(task, item, backend)
        result = play_item(judge, make_player(judge), settings)
        record = result.to_json()
        store.append(record)
        done[item.id] = record
        if progress is not None:
            progress(item.id, result.solved_at is not None)
    metrics = refute_metrics(done.values(), settings.attempts)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    return metrics
