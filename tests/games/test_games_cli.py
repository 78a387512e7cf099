"""The `veriscale refute` / `veriscale falsify` command groups: outputs, and exit code 2 with one
line for bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from veriscale.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_refute_build_and_baseline_run(games_plus, tmp_path) -> None:
    build = tmp_path / "build"
    result = runner.invoke(
        app, ["refute", "build", str(games_plus), "--out", str(build), "--workers", "2", "--pool", "300", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((build / "build_summary.json").read_text())
    assert f"{summary['items']} item(s)" in result.output and summary["items"] > 0
    assert summary["settings"]["pool_size"] == 300
    assert all(json.loads(line)["pool_draws"] == 300 for line in (build / "items.jsonl").read_text().splitlines())
    run = runner.invoke(
        app,
        ["refute", "run", str(build), "--out", str(tmp_path / "run"), "--baseline", "mutation", "-k", "20"],
    )
    assert run.exit_code == 0, run.output
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["items"] == summary["items"] and "pass@20" in metrics


def test_refute_bad_input_exits_2(games_plus, tmp_path) -> None:
    old = tmp_path / "old-build"  # items written before the blind pool: no pool figures
    old.mkdir()
    (old / "items.jsonl").write_text(json.dumps({"id": "t::a", "task": "t", "difficulty": 0.1}) + "\n")
    (old / "build.json").write_text(json.dumps({"suite": str(games_plus)}))
    cases = [
        ["refute", "run", str(old), "--out", str(tmp_path / "o"), "--baseline", "random"],
        ["refute", "build", str(tmp_path / "missing"), "--out", str(tmp_path / "o")],
        ["refute", "build", str(ROOT / "examples" / "mini"), "--out", str(tmp_path / "o")],  # not expanded
        ["refute", "run", str(tmp_path), "--out", str(tmp_path / "o"), "--baseline", "random"],
    ]
    for args in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output


def test_falsify_build_and_run(tmp_path) -> None:
    out = tmp_path / "games"
    result = runner.invoke(app, ["falsify", "build", str(ROOT / "examples" / "mini"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 game(s) from 4 task(s)" in result.output
    bad = runner.invoke(app, ["falsify", "run", str(out), "--out", str(tmp_path / "r"), "--agent", "lucky"])
    assert bad.exit_code == 2
    both = runner.invoke(
        app, ["falsify", "run", str(out), "--out", str(tmp_path / "r"), "--agent", "negative", "--model", "m"]
    )
    assert both.exit_code == 2
    ok = runner.invoke(
        app,
        ["falsify", "run", str(out), "--out", str(tmp_path / "r"), "--agent", "negative", "--turns", "10"],
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads((tmp_path / "r" / "metrics.json").read_text())["games"] == 2


def test_falsify_build_takes_the_shared_task_worker_and_quiet_flags(tmp_path) -> None:
    out = tmp_path / "games"
    result = runner.invoke(app, ["falsify", "build", str(ROOT / "examples" / "mini"), "--out", str(out),
                                 "--tasks", "mini_clamp,mini_count_evens", "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "1 game(s) from 2 task(s) (1 with a trivial precondition)" in result.stdout
    assert result.stderr == "" and "wrote" not in result.stdout
    assert [g["task"] for g in map(json.loads, (out / "games.jsonl").read_text().splitlines())] == ["mini_clamp"]


def test_a_task_id_that_matches_nothing_is_one_line(games_plus, tmp_path) -> None:
    for group in ("refute", "falsify"):
        result = runner.invoke(app, [group, "build", str(games_plus), "--out", str(tmp_path / group), "--tasks", "nope"])
        assert result.exit_code == 2, result.output
        assert result.stderr.strip().splitlines() == [f"error: none of the task ids nope is a task of {games_plus}"]
        assert not (tmp_path / group).exists()
