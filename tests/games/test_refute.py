"""REFUTE: building items from the kill matrix, judging attempts, the loop, metrics, baselines."""

from __future__ import annotations

import json
from pathlib import Path

from veriscale.backends.base import Backend
from veriscale.games.refute.build import (
    ITEMS_FILE,
    BuildSummary,
    RefuteItem,
    build_items,
    load_items,
)
from veriscale.games.refute.difficulty import DEFAULT_POOL_SIZE, item_bucket
from veriscale.games.refute.game import Action, RefuteJudge, RefuteSettings, play_item, refute_metrics
from veriscale.games.refute.runner import TRANSCRIPTS_FILE, baseline_player, run_items
from veriscale.task import load_task


def _items(build: tuple[Path, BuildSummary]) -> list[RefuteItem]:
    return load_items(build[0])


def test_build_keeps_only_adversaries_passing_the_original_tests(refute_build, games_plus, backend) -> None:
    out, summary = refute_build
    items = _items(refute_build)
    assert summary.items == len(items) > 0
    assert summary.tasks_with_items == len({i.task for i in items})
    assert summary.killed_by_original_tests > 0
    for item in items:
        task = load_task(games_plus / item.task)
        judge = RefuteJudge(task, item, backend)
        for original in task.tests[:2]:  # both fixture tasks have two original tests
            assert judge.judge(original.input).verdict == "not_different"
        assert 0 < item.suite_share <= 1 and item.exposing == round(item.suite_share * item.accept_inputs)
        assert 0 <= item.pool_exposing <= item.pool_valid <= item.pool_draws == DEFAULT_POOL_SIZE
        assert item.bucket == item_bucket(item.suite_share, item.pool_rate)


def test_every_witness_is_a_successful_refutation(refute_build, games_plus, backend) -> None:
    for item in _items(refute_build):
        judge = RefuteJudge(load_task(games_plus / item.task), item, backend)
        assert item.witnesses
        for witness in item.witnesses:
            assert judge.judge(witness).success, (item.id, witness)


def test_an_item_whose_witness_does_not_verify_is_dropped(
    refute_build, games_plus, backend, tmp_path
) -> None:
    # Damage a copy of the suite: the kill matrix now claims an item's adversary is exposed only by
    # inputs on which it is in fact right. The build must catch it and count it as dropped.
    item = _items(refute_build)[0]
    task = load_task(games_plus / item.task)
    judge = RefuteJudge(task, item, backend)
    suite = tmp_path / "suite"
    (suite / item.task).mkdir(parents=True)
    for f in (games_plus / item.task).iterdir():
        (suite / item.task / f.name).write_bytes(f.read_bytes())
    matrix = json.loads((games_plus / item.task / "kill_matrix.json").read_text())
    agreeing = []
    for row in matrix["tests"]:
        row["killed_by"] = [a for a in row["killed_by"] if a != item.adversary]
        if row["test"] >= 2 and judge.judge(task.tests[row["test"]].input).verdict == "not_different":
            agreeing.append(row)
    assert agreeing
    agreeing[0]["killed_by"].append(item.adversary)
    (suite / item.task / "kill_matrix.json").write_text(json.dumps(matrix))
    summary = build_items(suite, tmp_path / "out", backend)
    assert summary.dropped["no witness verified"] == 1
    assert item.adversary not in {i.adversary for i in load_items(tmp_path / "out")}


class Scripted:
    def __init__(self, *replies: Action) -> None:
        self.replies = list(replies)
        self.seen: list[str] = []

    def act(self, observation: str) -> Action:
        self.seen.append(observation)
        return self.replies.pop(0)


def _judge(refute_build, games_plus, backend: Backend) -> RefuteJudge:
    item = _items(refute_build)[0]
    return RefuteJudge(load_task(games_plus / item.task), item, backend)


def test_verdicts_of_bad_replies(refute_build, games_plus, backend) -> None:
    judge = _judge(refute_build, games_plus, backend)
    names = list(judge.view.param_types)
    assert judge.judge("I will not do that.").verdict == "malformed"
    assert judge.judge('{"nope": 1}').verdict == "invalid_input"
    assert judge.judge({n: "not a value" for n in names}).verdict == "invalid_input"
    original = judge.task.tests[0].input
    assert judge.judge(f"Here:\n```json\n{json.dumps(original)}\n```").verdict == "not_different"


def test_precondition_false_is_never_a_success(games_plus, backend) -> None:
    task = load_task(games_plus / "games_absdiff")
    item = RefuteItem("x", task.id, "a", "template", "t", "", {"code": "  a + b\n"}, 0.5, 1, 2, 0, 0, 0, [])
    judge = RefuteJudge(task, item, backend)
    assert judge.judge({"a": -3, "b": 0}).verdict == "precondition_false"
    assert judge.judge({"a": 3, "b": 1}).verdict == "success"
    assert "precondition does not hold" in judge.run_wrong({"a": -3, "b": 0})


def test_loop_k_attempts_and_feedback(refute_build, games_plus, backend) -> None:
    judge = _judge(refute_build, games_plus, backend)
    witness = judge.item.witnesses[0]
    original = judge.task.tests[0].input
    player = Scripted(
        Action("feedback", original),
        Action("answer", "no idea"),
        Action("answer", original),
        Action("answer", witness),
    )
    result = play_item(judge, player, RefuteSettings(attempts=3, feedback_calls=1))
    assert [a.verdict for a in result.attempts] == ["malformed", "not_different", "success"]
    assert result.solved_at == 3 and result.feedback_used == 1
    assert player.seen[1].startswith("output:")
    metrics = refute_metrics([result.to_json()], 3)
    assert metrics["pass@1"] == 0.0 and metrics["pass@3"] == 1.0
    one = play_item(judge, Scripted(Action("answer", original)), RefuteSettings(attempts=1))
    assert one.solved_at is None and len(one.attempts) == 1


def test_baselines_resume_and_separate_budgets(refute_build, games_plus, backend, tmp_path) -> None:
    build_dir, _ = refute_build
    rates = {}
    for budget in (1, 30):
        out = tmp_path / f"random-{budget}"
        metrics = run_items(
            build_dir,
            out,
            backend,
            lambda j, b=budget: baseline_player("random", j, games_plus, seed=3, budget=b),
            RefuteSettings(attempts=budget),
        )
        rates[budget] = metrics["success_rate"]
        assert len((out / TRANSCRIPTS_FILE).read_text().splitlines()) == metrics["items"]
    assert rates[30] >= rates[1] and rates[30] > 0
    calls = []

    def never(judge):
        calls.append(judge)
        raise AssertionError("a finished item was played again")

    again = run_items(build_dir, tmp_path / "random-30", backend, never, RefuteSettings(attempts=30))
    assert again["success_rate"] == rates[30] and not calls
    mutation = run_items(
        build_dir,
        tmp_path / "mutation",
        backend,
        lambda j: baseline_player("mutation", j, games_plus, seed=3, budget=30),
        RefuteSettings(attempts=30),
    )
    assert mutation["items"] == len(_items(refute_build))


class _OneByOne:
    """The same player without ``plan``: every input goes through the one-by-one loop."""

    def __init__(self, player) -> None:
        self.player = player

    def act(self, observation: str) -> Action:
        return self.player.act(observation)


def test_batched_play_records_what_the_one_by_one_loop_records(refute_build, games_plus, backend) -> None:
    for item in _items(refute_build):
        judge = RefuteJudge(load_task(games_plus / item.task), item, backend)
        settings = RefuteSettings(attempts=40)
        batched = play_item(judge, baseline_player("random", judge, games_plus, seed=5, budget=40), settings)
        single = play_item(
            judge, _OneByOne(baseline_player("random", judge, games_plus, seed=5, budget=40)), settings
        )
        assert [a.__dict__ for a in batched.attempts] == [a.__dict__ for a in single.attempts]
        assert batched.solved_at == single.solved_at


def test_build_is_deterministic_and_has_subtle_items(refute_build, games_plus, backend, tmp_path) -> None:
    """The same suite gives the same items; most come from the subtle adversaries (guards,
    bounds, second-order), which the original tests miss by construction of the pre-filter."""
    out, _ = refute_build
    again = tmp_path / "again"
    build_items(games_plus, again, backend)
    assert (again / ITEMS_FILE).read_bytes() == (out / ITEMS_FILE).read_bytes()
    kinds = {item.kind for item in _items(refute_build)}
    assert kinds & {"mutant:guard-result", "mutant:guard-input", "mutant:bound", "mutant:drop-last",
                    "mutant:second-order"}
