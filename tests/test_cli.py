"""The command line: doctor, inspect (with --json), bench load, on our own example benchmark."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veriscale.cli import app

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"


runner = CliRunner()
MINI = EXAMPLES_DIR / "mini"


def test_help_lists_the_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("doctor", "inspect", "validate", "screen", "bench"):
        assert command in result.output


def test_doctor_reports_backends_and_lean_absence_reason() -> None:
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "embedded" in result.output
    assert "--backend auto selects:" in result.output
    if shutil.which("lake") is None:
        assert "lake" in result.output and "not on PATH" in result.output


def test_inspect_json_counts_loaded_and_failed(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(MINI, bench)
    # Break one task's markers: it must be reported with file, line and reason; the rest load.
    lean = bench / "mini_clamp" / "task.lean"
    lines = lean.read_text(encoding="utf-8").splitlines(keepends=True)
    broken_line = next(i for i, line in enumerate(lines) if "@end code\n" in line and "_aux" not in line)
    lines[broken_line] = lines[broken_line].replace("@end code", "@end postcond")
    lean.write_text("".join(lines), encoding="utf-8")

    out = tmp_path / "inspect.json"
    result = runner.invoke(app, ["inspect", str(bench), "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["loaded"] == len(list(MINI.iterdir())) - 1
    [failure] = report["failed"]
    assert failure["task"] == "mini_clamp"
    assert failure["file"].endswith("task.lean")
    assert failure["line"] == broken_line + 1
    assert "postcond" in failure["reason"]
    assert "mini_clamp" in result.output and "failed to load" in result.output


def test_inspect_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_bench_load_prints_counts() -> None:
    result = runner.invoke(app, ["bench", "load", str(MINI)])
    assert result.exit_code == 0, result.output
    assert "tasks_loaded           4" in result.output
    assert "values_failed          0" in result.output


def test_reduce_command_writes_a_suite(tmp_path: Path) -> None:
    out = tmp_path / "lite"
    result = runner.invoke(app, ["reduce", str(MINI), "--out", str(out), "--target", "lite"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(
        p.name for p in MINI.iterdir() if p.is_dir()
    )
    assert (out / "mini_clamp" / "test.json").is_file()


def test_reduce_unknown_recipe_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["reduce", str(MINI), "--out", str(tmp_path / "x"), "--target", "nope"])
    assert result.exit_code == 2
    assert "nope" in result.output


def test_expand_then_reduce_end_to_end(tmp_path: Path) -> None:
    plus, lite = tmp_path / "plus", tmp_path / "lite"
    result = runner.invoke(app, ["expand", str(MINI), "--out", str(plus), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "4 task(s) expanded" in result.output
    assert (plus / "mini_clamp" / "kill_matrix.json").is_file()
    again = runner.invoke(app, ["expand", str(MINI), "--out", str(plus), "--jobs", "1"])
    assert "4 resumed" in again.output
    result = runner.invoke(app, ["reduce", str(plus), "--out", str(lite)])
    assert result.exit_code == 0, result.output
    assert "adversaries killed" in result.output


def test_an_unusable_lean_backend_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # asking for `--backend lean` where Lean is not set up must say why, not fail in the workers
    import veriscale.backends.lean as lean

    monkeypatch.setattr(lean, "lean_available", lambda: (False, "lake not found on PATH"))
    result = CliRunner().invoke(app, ["validate", str(MINI), "--backend", "lean"])
    assert result.exit_code == 2
    assert "lean backend is not usable: lake not found on PATH" in result.output
