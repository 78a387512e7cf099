"""The names a user types, ``inspect eval veriscale/refute`` (``falsify``, ``codegen``, ``specgen``),
resolved the way inspect_ai resolves them: through the ``inspect_ai`` entry point that
``pyproject.toml`` declares, in a fresh interpreter where nothing of VeriScale is imported yet.

The interpreter sees this checkout as an editable install of ``veriscale`` whose metadata holds
the entry point read from ``pyproject.toml`` (a ``.dist-info`` directory first on its path), so
the test does not depend on when the shared environment was last installed, and fails if the
declared entry point or the registry module is wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from veriscale.games.refute.build import load_items

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]

RUNNER = '''
import json, sys
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

runs = json.loads(open(sys.argv[1], encoding="utf-8").read())
results = []
for run in runs:
    script = list(run["replies"])

    def reply(messages, tools, tool_choice, config, script=script):
        output = ModelOutput.from_content("mockllm", script.pop(0) if script else "no more")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    (log,) = inspect_eval(run["task"], model=get_model("mockllm/model", custom_outputs=reply),
                          task_args=run["task_args"], limit=1, display="none", log_dir=run["log_dir"])
    results.append({
        "status": log.status,
        "task": log.eval.task,
        "scores": [{"id": s.id, "value": next(iter(s.scores.values())).value} for s in log.samples or []],
    })
json.dump(results, open(sys.argv[2], "w", encoding="utf-8"))
'''


def _declared_entry_points() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return dict(project["entry-points"]["inspect_ai"])


def _editable_install(where: Path) -> Path:
    """A ``veriscale`` distribution's metadata as an editable install of this checkout writes it."""
    dist = where / "veriscale-0.0.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: veriscale\nVersion: 0.0.0\n", encoding="utf-8")
    lines = ["[inspect_ai]", *(f"{name} = {value}" for name, value in _declared_entry_points().items())]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (dist / "direct_url.json").write_text(
        json.dumps({"url": ROOT.as_uri(), "dir_info": {"editable": True}}), encoding="utf-8"
    )
    return where


def _run_in_fresh_interpreter(runs: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    spec, out = tmp_path / "runs.json", tmp_path / "results.json"
    spec.write_text(json.dumps(runs), encoding="utf-8")
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER, encoding="utf-8")
    site = _editable_install(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, str(runner), str(spec), str(out)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(out.read_text(encoding="utf-8")))


def test_the_declared_entry_point_names_the_registry_module() -> None:
    assert _declared_entry_points() == {"veriscale": "veriscale.inspect_registry"}


def test_inspect_eval_by_registry_name(refute_build, clamp_games, tmp_path) -> None:
    item = load_items(refute_build[0])[0]
    logs = str(tmp_path / "logs")
    clamp = ROOT / "examples" / "mini"
    runs = [
        {
            "task": "veriscale/refute",
            "task_args": {"build": str(refute_build[0])},
            "replies": ["```json\n" + json.dumps(item.witnesses[0]) + "\n```"],
            "log_dir": logs,
        },
        {
            "task": "veriscale/falsify",
            "task_args": {"build": str(clamp_games), "max_turns": 2, "max_guesses": 1},
            "replies": [json.dumps({"final": "lo ≤ hi"})],
            "log_dir": logs,
        },
        {
            "task": "veriscale/codegen",
            "task_args": {"suite": str(clamp), "tasks": "mini_clamp"},
            "replies": ["I would rather not write Lean today."],
            "log_dir": logs,
        },
        {
            "task": "veriscale/specgen",
            "task_args": {"suite": str(clamp), "tasks": "mini_clamp"},
            "replies": ["```python\nprint('not Lean')\n```"],
            "log_dir": logs,
        },
    ]
    refute, falsify, codegen, specgen = _run_in_fresh_interpreter(runs, tmp_path)
    assert refute["status"] == "success" and refute["task"] == "veriscale/refute"
    assert refute["scores"] == [{"id": item.id, "value": "C"}]
    assert falsify["status"] == "success" and falsify["task"] == "veriscale/falsify"
    assert [s["value"] for s in falsify["scores"]] == ["C"]
    assert codegen["task"] == "veriscale/codegen" and codegen["scores"] == [{"id": "mini_clamp", "value": {"code": 0.0}}]
    assert specgen["task"] == "veriscale/specgen"
    (specgen_score,) = specgen["scores"]
    assert set(specgen_score["value"]) >= {"precond_sound", "postcond_complete"}
    assert not any(specgen_score["value"].values())
