"""REFUTE difficulty: the suite route, the blind route (a pool of random draws) and the easier of
the two; the build on workers and its checkpoint."""

from __future__ import annotations

import json
import shutil
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

from veriscale.backends.base import Backend
from veriscale.games.refute import build as build_module
from veriscale.games.refute.build import ITEMS_FILE, TASKS_FILE, BuildSettings, build_items, load_items
from veriscale.games.refute.difficulty import (
    BUCKETS,
    POOL_STREAM,
    blind_bucket,
    blind_inputs,
    expected_success,
    item_bucket,
    suite_bucket,
)
from veriscale.generate.adversaries import Adversary
from veriscale.generate.value_space import stable_rng
from veriscale.parallel import ExecutorConfig, make_executor
from veriscale.task import load_task
from veriscale.typed_task import typed_view


def test_blind_buckets_follow_the_random_baselines_budgets() -> None:
    # the rate at which B random attempts succeed half the time
    half = {budget: 1 - 0.5 ** (1 / budget) for budget in (10, 100, 1000)}
    assert blind_bucket(0.0) == "very-hard"
    assert blind_bucket(half[1000] * 0.99) == "very-hard"
    assert blind_bucket(half[1000] * 1.01) == "hard"
    assert blind_bucket(half[100] * 1.01) == "medium"
    assert blind_bucket(half[10] * 0.99) == "medium"
    assert blind_bucket(half[10] * 1.01) == "easy"
    assert blind_bucket(1.0) == "easy"
    assert expected_success(half[1000], 1000) == pytest.approx(0.5)
    # one exposing draw in the default pool of 2,000 is still very-hard
    assert blind_bucket(1 / 2000) == "very-hard" and blind_bucket(2 / 2000) == "hard"


def test_an_item_is_only_as_hard_as_its_easiest_route() -> None:
    assert [suite_bucket(s) for s in (0.0, 0.009, 0.01, 0.049, 0.05, 0.19, 0.2, 1.0)] == [
        "very-hard", "very-hard", "hard", "hard", "medium", "medium", "easy", "easy"
    ]
    assert item_bucket(0.001, 0.0) == "very-hard"
    assert item_bucket(0.001, 0.5) == "easy"  # rare in the suite, but blind sampling finds it
    assert item_bucket(0.5, 0.0) == "easy"  # never drawn blind, but the suite is full of it
    assert item_bucket(0.03, 0.01) == "medium"
    assert list(BUCKETS) == ["very-hard", "hard", "medium", "easy"]


def test_the_pool_does_not_replay_the_random_baseline(games_plus) -> None:
    view = typed_view(load_task(games_plus / "games_prefix_sum"))
    pool = list(islice(blind_inputs(view, stable_rng(POOL_STREAM, 42, view.task.id)), 50))
    baseline = list(islice(blind_inputs(view, stable_rng("refute-random", 42, view.task.id)), 50))
    assert len(pool) == len(baseline) == 50 and pool != baseline
    again = list(islice(blind_inputs(view, stable_rng(POOL_STREAM, 42, view.task.id)), 50))
    assert pool == again


# absDiff's reference, and two wrong programs that pass its original tests (5,3 -> 2 and 9,0 -> 9)
REFERENCE = "if a < b then b - a else a - b"
GUARD = Adversary(
    id="llm:guard", source="llm", description="wrong only at a = 5000 (random draws stay within 1000)",
    sections={"code": f"  if a = 5000 then 0 else {REFERENCE}\n"},
)
EVERYWHERE = Adversary(
    id="llm:everywhere", source="llm", description="wrong everywhere but on the original tests",
    sections={"code": f"  if (a = 5 ∧ b = 3) ∨ (a = 9 ∧ b = 0) then {REFERENCE} else ({REFERENCE}) + 1\n"},
)


def _suite_with_rare_witness(games_plus: Path, root: Path) -> Path:
    """absDiff's expanded suite with 12 more accept inputs (a = 5000 ...), of which only the first
    exposes the two adversaries above, and the kill matrix saying so: both are exposed by fewer
    than 1 % of the suite's accept inputs."""
    suite = root / "suite"
    shutil.copytree(games_plus / "games_absdiff", suite / "games_absdiff")
    task_dir = suite / "games_absdiff"
    tests = json.loads((task_dir / "test.json").read_text())
    matrix = json.loads((task_dir / "kill_matrix.json").read_text())
    first = len(tests)
    for i in range(12):
        tests.append({"input": {"a": 5000 + i, "b": 1}, "expected": 4999 + i, "unexpected": []})
        matrix["tests"].append({"test": first + i, "key": f"a := {5000 + i}\nb := 1", "killed_by": []})
    matrix["adversaries"] = [
        {"id": a.id, "source": a.source, "description": a.description} for a in (GUARD, EVERYWHERE)
    ]
    for row in matrix["tests"]:
        row["killed_by"] = [GUARD.id, EVERYWHERE.id] if row["test"] == first else []
    (task_dir / "test.json").write_text(json.dumps(tests))
    (task_dir / "kill_matrix.json").write_text(json.dumps(matrix))
    return suite


def test_the_blind_pool_sets_the_bucket(games_plus, backend, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(
        build_module, "recover_adversaries", lambda task, ids: {a.id: a for a in (GUARD, EVERYWHERE) if a.id in ids}
    )
    suite = _suite_with_rare_witness(games_plus, tmp_path)
    summary = build_items(suite, tmp_path / "out", backend)
    items = {item.adversary: item for item in load_items(tmp_path / "out")}
    assert set(items) == {GUARD.id, EVERYWHERE.id} and summary.items == 2
    guard, everywhere = items[GUARD.id], items[EVERYWHERE.id]
    for item in (guard, everywhere):
        assert item.exposing == 1 and item.suite_share < 0.01  # the suite route says very-hard
        assert item.pool_draws == 2000 and 0 < item.pool_valid < 2000  # negative draws are invalid
    # no random draw reaches a = 5000: the hardest bucket
    assert guard.pool_exposing == 0 and guard.bucket == "very-hard"
    # every valid draw but the original tests' inputs exposes it: easy, whatever the suite says
    assert everywhere.pool_valid - 10 <= everywhere.pool_exposing <= everywhere.pool_valid
    assert everywhere.bucket == "easy"
    assert summary.by_suite_bucket == {"very-hard": 2}
    assert summary.by_blind_bucket == {"very-hard": 1, "easy": 1}
    assert summary.by_bucket == {"very-hard": 1, "easy": 1}


class _Refuses(Backend):
    """An engine that must not be asked anything (every task should come from the checkpoint)."""

    name = "refuses"

    def run(self, task: Any, checks: Any) -> list[Any]:
        raise AssertionError(f"{task.id} was built again")


def test_build_on_workers_is_the_same_and_resumes(refute_build, games_plus, tmp_path) -> None:
    out, summary = refute_build
    workers = tmp_path / "workers"
    executor = make_executor(ExecutorConfig(kind="local", workers=2))
    on_workers = build_items(games_plus, workers, "embedded", executor=executor)
    assert (workers / ITEMS_FILE).read_bytes() == (out / ITEMS_FILE).read_bytes()
    assert on_workers.to_json() == summary.to_json()
    # a rerun reads every task back from the checkpoint
    again = build_items(games_plus, workers, _Refuses())
    assert (workers / ITEMS_FILE).read_bytes() == (out / ITEMS_FILE).read_bytes()
    assert again.to_json() == summary.to_json()
    # other settings are not taken from it
    with pytest.raises(AssertionError, match="built again"):
        build_items(games_plus, workers, _Refuses(), settings=BuildSettings(pool_size=100))


def test_an_interrupted_build_builds_only_the_rest(refute_build, games_plus, backend, tmp_path) -> None:
    out, summary = refute_build
    partial = tmp_path / "partial"
    build_items(games_plus, partial, backend, tasks=["games_absdiff"])
    lines = (partial / TASKS_FILE).read_text().splitlines()
    assert [json.loads(line)["item"] for line in lines] == ["games_absdiff"]
    built: list[str] = []
    build_items(games_plus, partial, backend, progress=lambda name, n: built.append(name))
    assert built == ["games_prefix_sum"]
    assert (partial / ITEMS_FILE).read_bytes() == (out / ITEMS_FILE).read_bytes()


def test_items_of_an_older_build_are_refused_with_a_reason(refute_build, tmp_path) -> None:
    out, _ = refute_build
    raw = json.loads((out / ITEMS_FILE).read_text().splitlines()[0])
    old = {k: v for k, v in raw.items() if not k.startswith("pool_") and k != "suite_share"}
    (tmp_path / ITEMS_FILE).write_text(json.dumps({**old, "difficulty": 0.1}) + "\n")
    with pytest.raises(ValueError, match="rebuild"):
        load_items(tmp_path)
