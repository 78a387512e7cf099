"""The command line: doctor, inspect (with --json), bench load, on our own example benchmark."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import Result
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


# ---------------------------------------------------------------------------------------------
# A user's mistake is one line on stderr and exit code 2, never a traceback


def _one_line_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_version_prints_the_version() -> None:
    from veriscale import __version__

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"veriscale {__version__}"


def test_a_reused_out_with_other_settings_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "plus"
    first = runner.invoke(app, ["expand", str(MINI), "--out", str(out), "--tasks", "mini_clamp", "--workers", "1",
                                "--quiet"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["expand", str(MINI), "--out", str(out), "--tasks", "mini_clamp", "--workers", "1",
                                "--seed", "7", "--quiet"])
    _one_line_error(again, str(out), "different settings", "seed")


def test_exact_without_its_extra_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pulp", None)  # as if the 'exact' extra were not installed
    result = runner.invoke(app, ["reduce", str(MINI), "--out", str(tmp_path / "lite"), "--exact"])
    _one_line_error(result, "veriscale[exact]")


@pytest.mark.parametrize("command", [
    ["validate", str(MINI)],
    ["expand", str(MINI), "--out", "{tmp}/plus"],
    ["power", str(MINI), str(MINI)],
    ["audit", str(MINI)],
    ["export", str(MINI), "--out", "{tmp}/hf"],
    ["reduce", str(MINI), "--out", "{tmp}/lite"],
    ["inspect", str(MINI)],
    ["bench", "load", str(MINI)],
])
def test_no_matching_task_id_is_one_line(tmp_path: Path, command: list[str]) -> None:
    args = [part.replace("{tmp}", str(tmp_path)) for part in command]
    result = runner.invoke(app, [*args, "--tasks", "no_such_task", "--workers", "1"] if command[0] in
                           ("validate", "expand", "power") else [*args, "--tasks", "no_such_task"])
    _one_line_error(result, "no_such_task")
    assert not (tmp_path / "plus").exists() and not (tmp_path / "lite").exists()


def test_no_matching_task_id_in_score_is_one_line(tmp_path: Path) -> None:
    submissions = tmp_path / "answers.jsonl"
    submissions.write_text('{"task": "mini_clamp", "code": "x"}\n', encoding="utf-8")
    result = runner.invoke(app, ["score", str(MINI), "--submission", str(submissions), "--tasks", "nope"])
    _one_line_error(result, "nope")


def test_the_old_task_flag_still_selects_tasks(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(MINI), "--task", "mini_clamp", "--workers", "1", "--quiet",
                                 "--json", str(tmp_path / "v.json")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert [t["task"] for t in report["tasks"]] == ["mini_clamp"]
    assert "--task " not in runner.invoke(app, ["validate", "--help"]).output.replace("--tasks", "")


def test_a_bad_option_value_is_one_line() -> None:
    result = runner.invoke(app, ["audit", str(MINI), "--task-steps", "0", "--quiet"])
    _one_line_error(result, "task_steps")


def test_quiet_prints_no_progress(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(MINI), "--tasks", "mini_clamp", "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_eval_without_an_api_key_is_one_line_and_leaves_no_run_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    result = runner.invoke(app, ["eval", "--model", "gpt-4o-mini", "--suite", str(MINI), "--mode", "codegen",
                                 "--out", str(out), "--quiet"])
    _one_line_error(result, "OPENAI_API_KEY")
    assert not out.exists() and not (tmp_path / "runs").exists()


def test_no_matching_task_id_in_eval_and_compare_is_one_line(tmp_path: Path) -> None:
    submissions = tmp_path / "answers.jsonl"
    submissions.write_text('{"task": "mini_clamp", "code": "x"}\n', encoding="utf-8")
    compare = runner.invoke(app, ["compare", str(submissions), "--suite", str(MINI), "--suite", str(MINI),
                                  "--tasks", "nope", "--workers", "1"])
    _one_line_error(compare, "nope")
    evaluate = runner.invoke(app, ["eval", "--model", "m", "--suite", str(MINI), "--mode", "codegen",
                                   "--base-url", "http://127.0.0.1:9/v1", "--tasks", "nope", "--out",
                                   str(tmp_path / "run")])
    _one_line_error(evaluate, "nope")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("command", [
    ["validate", "--workers", "1", "--quiet"],
    ["audit", "--workers", "1", "--quiet", "--no-search"],
    ["inspect"],
])
def test_a_broken_task_that_was_not_selected_is_not_reported(tmp_path: Path, command: list[str]) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(MINI, bench)
    lean = bench / "mini_clamp" / "task.lean"
    lean.write_text(lean.read_text(encoding="utf-8").replace("@end code", "@end postcond", 1), encoding="utf-8")
    chosen = runner.invoke(app, [command[0], str(bench), *command[1:], "--tasks", "mini_count_evens"])
    assert chosen.exit_code == 0, chosen.output
    assert "mini_clamp" not in chosen.output, chosen.output
    both = runner.invoke(app, [command[0], str(bench), *command[1:], "--tasks", "mini_count_evens,mini_clamp"])
    assert both.exit_code == 0 and "mini_clamp" in both.output  # the selected broken task is reported


def test_expand_reports_only_the_selected_tasks_load_failures(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(MINI, bench)
    lean = bench / "mini_clamp" / "task.lean"
    lean.write_text(lean.read_text(encoding="utf-8").replace("@end code", "@end postcond", 1), encoding="utf-8")
    result = runner.invoke(app, ["expand", str(bench), "--out", str(tmp_path / "plus"), "--tasks",
                                 "mini_count_evens", "--workers", "1", "--quiet", "--task-steps", "200000"])
    assert result.exit_code == 0, result.output
    assert "not loaded" not in result.output and "mini_clamp" not in result.output
