"""FalsifyBench: building games, the loop's budgets and metrics, judging rules, scripted testers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from veriscale.games.falsify.baselines import NegativeTester, PositiveTester, hypothesis_space
from veriscale.games.falsify.build import build_games, load_games
from veriscale.games.falsify.game import FalsifyJudge, FalsifySettings, parse_move, play_game
from veriscale.games.falsify.runner import TRANSCRIPTS_FILE, run_games
from veriscale.task import load_task

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def own_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our small tasks: examples/mini and the games fixture, side by side."""
    suite = tmp_path_factory.mktemp("own")
    for source in (ROOT / "examples" / "mini", ROOT / "tests" / "fixtures" / "games"):
        for task_dir in source.iterdir():
            if task_dir.is_dir():
                shutil.copytree(task_dir, suite / task_dir.name)
    return suite


@pytest.fixture(scope="module")
def games_dir(own_suite, backend, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("falsify-build")
    summary = build_games(own_suite, out, backend)
    assert summary.trivial == 2  # mini_count_evens and mini_running_max
    return out


def test_games_built_on_workers_are_the_serial_ones(games_dir, own_suite, tmp_path) -> None:
    from veriscale.parallel import LocalExecutor

    out = tmp_path / "on-workers"
    build_games(own_suite, out, "embedded", executor=LocalExecutor(2))
    for name in ("games.jsonl", "build_summary.json"):
        assert (out / name).read_bytes() == (games_dir / name).read_bytes(), name


def _judge(games_dir: Path, own_suite: Path, backend, task: str) -> FalsifyJudge:
    game = next(g for g in load_games(games_dir) if g.task == task)
    return FalsifyJudge(load_task(own_suite / task), game, backend)


def test_games_cover_the_non_trivial_preconditions(games_dir) -> None:
    games = load_games(games_dir)
    assert sorted(g.task for g in games) == [
        "games_absdiff",
        "games_prefix_sum",
        "mini_clamp",
        "mini_dedup_sorted",
    ]
    for game in games:
        labels = {row["label"] for row in game.judging}
        assert labels == {True, False} and game.decided_share >= 0.95
        assert {row["source"] for row in game.judging} >= {"accept", "reject", "pool"}


def test_rule_judging(games_dir, own_suite, backend) -> None:
    judge = _judge(games_dir, own_suite, backend, "mini_clamp")
    assert judge.judge_rule("lo ≤ hi").correct
    assert judge.judge_rule("hi ≥ lo ∧ True").correct  # equivalent rules are right too
    assert not judge.judge_rule("lo < hi").correct
    wrong_type = judge.judge_rule("lo ++ hi")
    assert not wrong_type.correct and wrong_type.undecided > 0
    assert judge.answer({"x": 0, "lo": 3, "hi": 1}) is False
    assert judge.answer({"x": 0, "lo": 1}).startswith("error")


def test_parse_move_shapes() -> None:
    assert parse_move('{"final": "0 < n"}').kind == "final"
    move = parse_move('```json\n{"hypothesis": "True", "expectation": "no", "input": {"n": 1}}\n```')
    assert (move.kind, move.expectation) == ("propose", False)
    assert parse_move("I refuse.").kind == "invalid"
    assert parse_move('{"hypothesis": "True", "expectation": "maybe", "input": {}}').kind == "invalid"


class Script:
    def __init__(self, *replies) -> None:
        self.replies = list(replies)

    def act(self, observation):
        return self.replies.pop(0)


def test_loop_budgets_bias_and_falsifications(games_dir, own_suite, backend) -> None:
    judge = _judge(games_dir, own_suite, backend, "mini_clamp")
    player = Script(
        {"hypothesis": "lo < hi", "expectation": "no", "input": {"x": 0, "lo": 2, "hi": 2}},  # yes: falsified
        {
            "hypothesis": "lo ≤ hi",
            "expectation": "yes",
            "input": {"x": 0, "lo": 1, "hi": 3},
        },  # yes: confirmed
        "no json here",  # costs a turn
        {"final": "lo < hi"},  # wrong guess
        {"final": "lo ≤ hi"},
    )
    result = play_game(judge, player, FalsifySettings(max_turns=5, max_guesses=2))
    record = result.to_json()
    assert record["success"] and record["guesses"] == 2 and record["turns"] == 3 and record["invalid"] == 1
    assert record["positive_bias"] == 0.5 and record["conclusive_falsifications"] == 1
    capped = play_game(judge, Script(*[{"final": "True"}] * 3), FalsifySettings(max_turns=5, max_guesses=2))
    assert not capped.success and capped.guesses == 2


def test_negative_tester_beats_positive_only(games_dir, backend, tmp_path) -> None:
    settings = FalsifySettings(max_turns=15, max_guesses=1)
    positive = run_games(games_dir, tmp_path / "pos", backend, PositiveTester, settings)
    negative = run_games(games_dir, tmp_path / "neg", backend, NegativeTester, settings)
    assert negative["success_rate"] > positive["success_rate"]
    assert positive["positive_bias"] == 1.0 and negative["positive_bias"] < 0.5
    assert negative["conclusive_falsifications"] > positive["conclusive_falsifications"]
    lines = (tmp_path / "neg" / TRANSCRIPTS_FILE).read_text().splitlines()
    assert len(lines) == negative["games"] == 4
    again = run_games(games_dir, tmp_path / "neg", backend, lambda j: pytest.fail("replayed"), settings)
    assert again == negative


def test_hypothesis_space_contains_relations(own_suite) -> None:
    from veriscale.typed_task import typed_view

    space = hypothesis_space(typed_view(load_task(own_suite / "games_prefix_sum")))
    assert "k ≤ xs.length" in space and "True" in space
