"""Terms of a postcondition that do not read its output are evaluated once per input and
replayed for the other outputs (:mod:`veriscale.backends.embedded.compiler.hoisting`).

A replay must be invisible: every answer and every step count is the one the plain evaluation
gives, whatever the checks before it were. Each test compares with the same checks evaluated
with hoisting turned off.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_with_postcond

from veriscale.backends.base import Answer, Check, CheckKind
from veriscale.backends.embedded.compiler import hoisting
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"

FIB = "def fib : Nat → Nat\n  | 0 => 0\n  | 1 => 1\n  | n + 2 => fib (n + 1) + fib n"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the replays made (one entry per replay)."""
    made: list[int] = []
    original = hoisting._Site.same_inputs

    def counted(self: hoisting._Site, inputs: tuple[object, ...]) -> bool:
        same = original(self, inputs)
        if same:
            made.append(1)
        return same

    monkeypatch.setattr(hoisting._Site, "same_inputs", counted)
    return made


def _checks(inputs: list[int], outputs: list[int]) -> list[Check]:
    """For each input, the postcondition against every output (validate's order)."""
    return [Check(kind=CheckKind.POSTCOND, args={"x": x, "lo": 0, "hi": 5}, output=r)
            for x in inputs for r in outputs]


def _plain(monkeypatch: pytest.MonkeyPatch, task: Task, aux: str, postcond: str, checks: list[Check],
           max_steps: int = 500_000) -> list[Answer]:
    with monkeypatch.context() as m:
        m.setattr(hoisting.HoistingMixin, "hoist_plan", lambda self, name, body, params: None)
        return run_with_postcond(task, aux, postcond, checks, max_steps)


def _seen(answers: list[Answer]) -> list[tuple[object, ...]]:
    return [(a.status, a.reason, a.detail, a.steps) for a in answers]


def test_a_reference_value_is_computed_once_per_input(clamp: Task, monkeypatch: pytest.MonkeyPatch,
                                                      replays: list[int]) -> None:
    postcond = ("let expected : Int := (List.range (Int.toNat x)).foldl (fun a k => a + k) 0\n"
                "  result = expected")
    checks = _checks([4, 30, 4], [6, 435, 7, 6])
    hoisted = run_with_postcond(clamp, "", postcond, checks)
    assert replays, "the output-independent fold was never replayed"
    assert _seen(hoisted) == _seen(_plain(monkeypatch, clamp, "", postcond, checks))
    assert [a.status for a in hoisted] == ["true", "false", "false", "true",
                                           "false", "true", "false", "false",
                                           "true", "false", "false", "true"]


def test_memo_entries_of_the_reference_term_are_replayed(clamp: Task, monkeypatch: pytest.MonkeyPatch,
                                                        replays: list[int]) -> None:
    # `fib (x + 20)` fills the check's memo table; the output-dependent `fib result` then finds
    # its calls recorded: the steps are the plain evaluation's only if the replay restores them
    postcond = "fib (Int.toNat x + 20) > 0 ∧ fib (Int.toNat result) ≥ 0"
    checks = _checks([1, 2], [0, 3, 15, 25])
    hoisted = run_with_postcond(clamp, FIB, postcond, checks)
    assert replays
    assert _seen(hoisted) == _seen(_plain(monkeypatch, clamp, FIB, postcond, checks))


def test_terms_that_read_the_output_are_not_replayed(clamp: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    # the output reaches the term through a `let`, a `fun` and a `match`
    postcond = ("let r := result\n"
                "  let f := fun k => k + r\n"
                "  (List.range (Int.toNat x)).foldl (fun a k => a + f k) 0 ≥ 0 ∧\n"
                "  (match r with | 3 => false | _ => true) = true ∧ (List.range 3).all (fun k => k + r ≠ 7)")
    checks = _checks([3, 3], [1, 3, 5, 4])
    hoisted = run_with_postcond(clamp, "", postcond, checks)
    assert [a.status for a in hoisted] == ["true", "false", "false", "true"] * 2
    assert _seen(hoisted) == _seen(_plain(monkeypatch, clamp, "", postcond, checks))


def test_a_replay_past_the_step_limit_runs_out_where_the_evaluation_does(
        clamp: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    # the output-dependent part runs first and takes `result` steps; the reference fold (x steps)
    # then fits in the budget for a small output and not for a large one
    postcond = ("(List.range (Int.toNat result)).all (fun k => k ≥ 0) ∧\n"
                "  (List.range (Int.toNat x)).foldl (fun a k => a + k) 0 ≥ 0")
    checks = _checks([300], [1, 219, 2, 220, 250, 3])
    hoisted = run_with_postcond(clamp, "", postcond, checks, max_steps=520)
    plain = _plain(monkeypatch, clamp, "", postcond, checks, max_steps=520)
    assert _seen(hoisted) == _seen(plain)
    assert [(a.status, a.steps) for a in hoisted] == [
        ("true", 302), ("true", 520), ("true", 303), ("unknown", 521), ("unknown", 521), ("true", 304)]


def test_a_do_block_that_reassigns_a_name_keeps_it_output_dependent(clamp: Task,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    postcond = ("let s := x\n"
                "  (Id.run do\n"
                "    let mut s := s\n"
                "    for k in [0:3] do\n"
                "      s := s + result + k\n"
                "    return s) = x + 3 * result + 3")
    checks = _checks([2, 2], [0, 1, 7])
    hoisted = run_with_postcond(clamp, "", postcond, checks)
    assert [a.status for a in hoisted] == ["true"] * 6
    assert _seen(hoisted) == _seen(_plain(monkeypatch, clamp, "", postcond, checks))
