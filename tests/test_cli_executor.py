"""The worker flags every parallel command shares: --workers (--jobs hidden), --executor, --address."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES_DIR
from typer.testing import CliRunner

from veriscale.cli import app

runner = CliRunner()
MINI = EXAMPLES_DIR / "mini"
PARALLEL_COMMANDS = ("expand", "validate", "score", "power")


@pytest.mark.parametrize("command", PARALLEL_COMMANDS)
def test_every_parallel_command_offers_the_same_worker_flags(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    for flag in ("--workers", "--executor", "--address"):
        assert flag in result.output, (command, flag)
    assert "--jobs" not in result.output  # the old name still works, unadvertised


def test_workers_and_the_old_jobs_flag_both_work() -> None:
    for flag in ("--workers", "--jobs"):
        result = runner.invoke(app, ["validate", str(MINI), flag, "2", "--task", "mini_clamp"])
        assert result.exit_code == 0, result.output
        assert "1 tasks: 1 full" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--executor", "threads"], "--executor threads: expected local or ray"),
        (["--address", "10.0.0.1:6379"], "--address is for the Ray executor"),
        (["--workers", "0"], "--workers"),
    ],
)
def test_a_wrong_worker_flag_is_one_line_and_exit_code_2(args: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["expand", str(MINI), "--out", str(tmp_path / "out"), *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()  # nothing was started
