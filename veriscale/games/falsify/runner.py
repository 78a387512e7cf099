"""Playing FalsifyBench games with scripted players, one transcript line per game (resumable)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from veriscale.backends.base import Backend
from veriscale.games.common import TranscriptStore
from veriscale.games.falsify.build import FalsifyGame, load_games
from veriscale.games.falsify.game import (
    FalsifyJudge,
    FalsifyPlayer,
    FalsifySettings,
    falsify_metrics,
    play_game,
)
from veriscale.task import Task, load_task

__all__ = ["TRANSCRIPTS_FILE", "run_games"]

TRANSCRIPTS_FILE = "transcripts.jsonl"


def run_games(
    build_dir: Path,
    out: Path,
    backend: Backend,
    make_player: Callable[[FalsifyJudge], FalsifyPlayer],
    settings: FalsifySettings,
    *,
    games: list[FalsifyGame] | None = None,
    progress: Callable[[str, bool], None] | None = None,
) -> dict[str, Any]:
    """Play every game not yet in ``out/transcripts.jsonl``; the metrics over all of them."""
    suite = Path(json.loads((build_dir / "build.json").read_text(encoding="utf-8"))["suite"])
    store = TranscriptStore(out / TRANSCRIPTS_FILE)
    done = store.done()
    for game in games if games is not None else load_games(build_dir):
        if game.id in done:
            continue
        task: Task = load_task(suite / game.task)
        backend.start_unit()
        judge = FalsifyJudge(task, game, backend)
        result = play_game(judge, make_player(judge), settings)
        record = result.to_json()
        store.append(record)
        done[game.id] = record
        if progress is not None:
            progress(game.id, result.success)
    metrics = falsify_metrics(done.values())
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    return metrics
