"""The command line as a whole: every command's help is plain text, every command that takes a
benchmark offers the same flags, --quiet is everywhere. Found by walking the typer app, so a new
command is checked without being listed here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from conftest import EXAMPLES_DIR
from typer.testing import CliRunner

from veriscale.cli import app
from veriscale.cli_base import plain_type

runner = CliRunner()
MINI = EXAMPLES_DIR / "mini"

# Commands that take a benchmark but run no per-task work in parallel, so have no --workers.
SERIAL = {
    ("inspect",): "reads the task files only",
    ("export",): "writes a dataset in one pass",
    ("reduce",): "covers the kill matrices in one process",
    ("bench", "load"): "measures loading in this process",
}
# The parameter names by which a command takes a benchmark or a suite.
BENCHMARK_PARAMETERS = {"path", "suite", "suites"}


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of the app with its path of names (groups included)."""
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


ALL = list(_commands(typer.main.get_command(app)))
LEAVES = [(path, command) for path, command in ALL if not hasattr(command, "commands")]


def _options(command: Any) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def _takes_a_benchmark(command: Any) -> bool:
    return any(param.name in BENCHMARK_PARAMETERS for param in command.params)


def test_the_walk_finds_the_commands() -> None:
    names = {" ".join(path) for path, _ in LEAVES}
    assert {"validate", "expand", "score", "eval", "bench load", "refute build", "falsify run"} <= names
    benchmark_commands = {" ".join(path) for path, command in LEAVES if _takes_a_benchmark(command)}
    assert {"inspect", "validate", "audit", "expand", "reduce", "export", "eval", "score", "compare", "power",
            "falsify build"} <= benchmark_commands
    assert "refute run" not in benchmark_commands  # it takes a build directory


# Markup that would show raw in plain help: rich tags, markdown code, click's no-rewrap marker,
# typer's Python type names.
RAW = re.compile(r"\[/?(bold|dim|italic|red|green|yellow|blue|cyan|magenta|link)\b|\[/\]|`|\x08|\\b"
                 r"|<bool>|list\[|<\w+ range>")


@pytest.mark.parametrize("path", [path for path, _ in ALL], ids=lambda p: " ".join(p) or "veriscale")
def test_help_shows_no_raw_markup(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ")
    found = RAW.findall(result.output)
    assert not found, (path, found, result.output)


def test_the_markup_check_can_fail() -> None:
    assert RAW.search("--version <bool>  Print the version") and RAW.search("--tasks <list[str]>")
    assert RAW.search("[bold]x[/bold]") and RAW.search("run `veriscale expand`")
    assert not RAW.search("--workers <int>  Worker processes  [x>=1]  [default: local]  [required]")


def test_plain_types() -> None:
    assert plain_type("<list[Path]>") == "<path>" and plain_type("<list[str]>") == "<str>"
    assert plain_type("<int range>") == "<int>" and plain_type("<float range>") == "<float>"
    assert plain_type("<path>") == "<path>"


@pytest.mark.parametrize("path", [path for path, command in LEAVES if _takes_a_benchmark(command)],
                         ids=" ".join)
def test_every_command_that_takes_a_benchmark_has_the_shared_flags(path: tuple[str, ...]) -> None:
    options = _options(dict(LEAVES)[path])
    assert "--tasks" in options and "--quiet" in options and "-q" in options, (path, options)
    if path not in SERIAL:
        assert {"--workers", "--executor", "--address"} <= options, (path, options)
    else:
        assert "--workers" not in options, (path, "runs in parallel now: take it off SERIAL")


@pytest.mark.parametrize("path", [path for path, _ in LEAVES], ids=" ".join)
def test_every_command_has_quiet(path: tuple[str, ...]) -> None:
    assert {"--quiet", "-q"} <= _options(dict(LEAVES)[path]), path


def test_no_command_keeps_the_old_jobs_or_task_flags_visible() -> None:
    for path, command in LEAVES:
        visible = {opt for param in command.params if not getattr(param, "hidden", False) for opt in param.opts}
        assert "--jobs" not in visible and "--task" not in visible, path


# ---------------------------------------------------------------------------------------------
# What --quiet leaves out


def test_quiet_doctor_lists_only_problems() -> None:
    loud = runner.invoke(app, ["doctor"])
    quiet = runner.invoke(app, ["doctor", "--quiet"])
    assert loud.exit_code == quiet.exit_code == 0
    assert "packages:" in loud.stdout and "packages:" not in quiet.stdout
    assert all(line.startswith("-- ") for line in quiet.stdout.splitlines()[:-1]), quiet.stdout
    assert quiet.stdout.splitlines()[-1].startswith("--backend auto selects: ")
    assert quiet.stdout.count("\n-- ") + quiet.stdout.startswith("-- ") == loud.stdout.count("  -- ")


def test_quiet_screen_prints_no_ok(tmp_path) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.lean"
    good.write_text("def f (x : Nat) : Nat := x + 1\n", encoding="utf-8")
    assert runner.invoke(app, ["screen", str(good)]).stdout == "ok\n"
    quiet = runner.invoke(app, ["screen", str(good), "-q"])
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_quiet_inspect_writes_without_a_note(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "inspect.json"
    result = runner.invoke(app, ["inspect", str(MINI), "--json", str(out), "--quiet"])
    assert result.exit_code == 0 and out.is_file()
    assert "wrote" not in result.stdout and "mini_clamp" in result.stdout


def test_quiet_bench_load_prints_the_figures_only() -> None:
    result = runner.invoke(app, ["bench", "load", str(MINI), "-q"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split() == ["tasks_loaded", "4"]


def test_quiet_setup_lean_prints_only_the_error(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "lakefile.lean").write_text("-- a project\n", encoding="utf-8")
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))  # no lake anywhere
    loud = runner.invoke(app, ["setup-lean", "--project-dir", str(tmp_path)])
    quiet = runner.invoke(app, ["setup-lean", "--project-dir", str(tmp_path), "-q"])
    assert loud.exit_code == quiet.exit_code == 127
    assert loud.stdout != "" and quiet.stdout == ""
    assert quiet.stderr.startswith("error: `lake` is not on PATH") and len(quiet.stderr.splitlines()) == 1
