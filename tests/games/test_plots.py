"""The games' report figures: what is drawn (pure), and `refute report` / `falsify report` writing
a non-blank PNG from small baseline runs, with one line and exit code 2 for runs they cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veriscale.cli import app
from veriscale.games.falsify.baselines import AGENTS
from veriscale.games.falsify.game import FalsifySettings
from veriscale.games.falsify.runner import run_games
from veriscale.games.plots import falsify_summary, refute_bars, run_labels
from veriscale.games.refute.build import load_items
from veriscale.games.refute.game import RefuteSettings
from veriscale.games.refute.runner import baseline_player, run_items, suite_of

runner = CliRunner()


def _refute_record(item: str, bucket: str, kind: str, solved_at: int | None) -> dict:
    return {"item": item, "bucket": bucket, "kind": kind, "solved_at": solved_at, "attempts": []}


def test_refute_bars_count_per_bucket_hardest_first_and_per_kind() -> None:
    model = [
        _refute_record("a", "easy", "mutant", 1),
        _refute_record("b", "very-hard", "mutant", None),
        _refute_record("c", "easy", "lazy", 2),
        _refute_record("d", "medium", "lazy", None),
    ]
    baseline = [_refute_record("a", "easy", "mutant", None)]
    bars = refute_bars([("model", model), ("random", baseline)])
    by_bucket = [(b.name, b.run, b.solved, b.items) for b in bars if b.group == "bucket"]
    assert by_bucket == [
        ("very-hard", "model", 0, 1),
        ("medium", "model", 0, 1),
        ("easy", "model", 2, 2),
        ("easy", "random", 0, 1),
    ]
    by_kind = [(b.name, b.run, b.solved, b.items) for b in bars if b.group == "kind"]
    assert by_kind == [("lazy", "model", 1, 2), ("mutant", "model", 1, 2), ("mutant", "random", 0, 1)]


def test_falsify_summary_means_bias_over_games_that_stated_one() -> None:
    records = [
        {"item": "g1", "success": True, "turns": 3, "positive_bias": 0.5},
        {"item": "g2", "success": False, "turns": 7, "positive_bias": None},
        {"item": "g3", "success": False, "turns": 5, "positive_bias": 1.0},
    ]
    summary = falsify_summary("p", records)
    assert (summary.games, summary.solved, summary.positive_bias) == (3, 1, 0.75)
    assert summary.turns == ((3, True), (7, False), (5, False))
    assert summary.success_rate == pytest.approx(1 / 3)


def test_run_labels_fall_back_to_paths_when_names_coincide() -> None:
    assert run_labels([Path("a/run"), Path("b/other")]) == ["run", "other"]
    assert run_labels([Path("a/run"), Path("b/run")]) == ["a/run", "b/run"]


def _non_blank(png: Path) -> float:
    """The share of pixels that are not (near) white."""
    from matplotlib.image import imread

    pixels = imread(str(png))[..., :3]
    return float((pixels.min(axis=-1) < 0.9).mean())


@pytest.fixture(scope="module")
def refute_runs(refute_build, backend, tmp_path_factory) -> list[Path]:
    build = refute_build[0]
    items = load_items(build)[:4]
    suite = suite_of(build)
    runs = []
    for name, budget in (("random", 5), ("mutation", 30)):
        out = tmp_path_factory.mktemp("refute-runs") / name
        run_items(build, out, backend,
                  lambda judge, name=name, budget=budget: baseline_player(name, judge, suite, seed=1, budget=budget),
                  RefuteSettings(attempts=budget, feedback_calls=0), items=items)
        runs.append(out)
    return runs


def test_refute_report_writes_a_non_blank_png(refute_runs, tmp_path) -> None:
    png = tmp_path / "figs" / "refute.png"
    result = runner.invoke(app, ["refute", "report", *map(str, refute_runs), "--out", str(png)])
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _non_blank(png) > 0.01


def test_falsify_report_writes_a_non_blank_png(clamp_games, backend, tmp_path) -> None:
    runs = []
    for agent in ("positive", "negative"):
        out = tmp_path / agent
        run_games(clamp_games, out, backend, AGENTS[agent], FalsifySettings(max_turns=8, max_guesses=2))
        runs.append(out)
    png = tmp_path / "falsify.png"
    result = runner.invoke(app, ["falsify", "report", *map(str, runs), "--out", str(png), "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.output == ""
    assert _non_blank(png) > 0.01


def test_report_of_runs_it_cannot_read_is_one_line_and_exit_2(refute_runs, tmp_path) -> None:
    falsify_like = tmp_path / "falsify-run"
    falsify_like.mkdir()
    (falsify_like / "transcripts.jsonl").write_text(
        json.dumps({"item": "g1", "success": True, "turns": 2, "positive_bias": 0.0}) + "\n"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "transcripts.jsonl").write_text("{cut short\n")
    cases = [
        (["refute", "report", str(tmp_path / "missing"), "--out", str(tmp_path / "r.png")], "no transcripts"),
        (["refute", "report", str(falsify_like), "--out", str(tmp_path / "r.png")], "missing bucket, kind"),
        (["refute", "report", str(refute_runs[0]), "--out", str(tmp_path / "r.svg")], "names a .png"),
        (["falsify", "report", str(empty), "--out", str(tmp_path / "f.png")], "no finished item"),
        (["falsify", "report", str(refute_runs[0]), "--out", str(tmp_path / "f.png")], "missing success"),
    ]
    for args, reason in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and reason in lines[0], (args, lines)
    assert not list(tmp_path.glob("*.png"))
