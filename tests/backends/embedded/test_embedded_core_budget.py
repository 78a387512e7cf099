"""The embedded engine's deterministic step budget and its tail calls (issue 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriscale.backends.base import Check, CheckKind, UnknownReason
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"
ARGS = {"x": 1, "lo": 0, "hi": 5}


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def _code(task: Task, code_aux: str, code: str, engine: EmbeddedBackend | None = None) -> object:
    changed = task.with_sections(code_aux=code_aux, code=code)
    (answer,) = (engine or EmbeddedBackend()).run(changed, [Check(kind=CheckKind.CODE, args=ARGS)])
    return answer


def test_same_checks_give_identical_answers_and_step_counts(clamp: Task) -> None:
    checks = [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 10}) for x in range(-3, 14)]
    checks += [Check(kind=CheckKind.POSTCOND, args={"x": x, "lo": 0, "hi": 10}, output=x) for x in range(-3, 14)]
    first = EmbeddedBackend().run(clamp, checks)
    second = EmbeddedBackend().run(clamp, checks)
    assert [(a.status, a.value, a.steps) for a in first] == [(a.status, a.value, a.steps) for a in second]
    assert all(a.steps is not None and a.steps >= 1 for a in first)  # at least the entry call


def test_steps_count_calls_exactly(clamp: Task) -> None:
    # `down n` makes n + 1 calls of `down`, plus the call of the task's own function
    code_aux = "def down : Nat → Nat\n  | 0 => 0\n  | n + 1 => down n + 1"
    small = _code(clamp, code_aux, "Int.ofNat (down 10)")
    large = _code(clamp, code_aux, "Int.ofNat (down 110)")
    assert small.status == "value" and small.value == 10
    assert large.steps - small.steps == 100


def test_budget_exhaustion_is_a_deterministic_timeout(clamp: Task) -> None:
    code_aux = "def spin (n : Nat) : Nat := spin (n + 1)"
    answers = [_code(clamp, code_aux, "spin 0", EmbeddedBackend(max_steps=30_000)) for _ in range(2)]
    for answer in answers:
        assert answer.status == "unknown" and answer.reason == UnknownReason.TIMEOUT
        assert "step budget" in answer.detail
        assert answer.steps == 30_001  # the step that overdrew the budget
    # a check that fits the budget is answered, whatever the budget of the check before
    fits = _code(clamp, "def count : Nat → Nat\n  | 0 => 0\n  | n + 1 => count n", "Int.ofNat (count 100)",
                 EmbeddedBackend(max_steps=30_000))
    assert fits.status == "value" and fits.value == 0


def test_tail_recursive_let_rec_runs_in_constant_stack(clamp: Task) -> None:
    # Lean compiles the self-call in tail position to a jump; 120,000 deep must not overflow
    # (without the jump the engine gave up near 60,000: several Python frames per Lean call)
    code = ("  let rec loop (k : Nat) (acc : Nat) : Nat :=\n"
            "    if k = 0 then acc else loop (k - 1) (acc + k)\n"
            "  Int.ofNat (loop 120000 0)")
    answer = _code(clamp, "", code)
    assert answer.status == "value" and answer.value == 120000 * 120001 // 2
    assert answer.steps == 120_002  # one step per call, as without the jump


def test_tail_recursive_match_let_rec_and_top_level_def(clamp: Task) -> None:
    code = ("  let rec go : Nat → Nat → Nat\n"
            "    | 0, r => r\n"
            "    | b + 1, r => if r < 5 then go b (r + 1) else r\n"
            "  Int.ofNat (go 150000 0 + go 3 0)")
    answer = _code(clamp, "", code)
    assert answer.status == "value" and answer.value == 5 + 3
    code_aux = "def countdown (n : Nat) (acc : Int) : Int :=\n  match n with\n  | 0 => acc\n  | k + 1 => countdown k (acc - 1)"
    answer = _code(clamp, code_aux, "countdown 120000 0")
    assert answer.status == "value" and answer.value == -120000


def test_calls_not_in_tail_position_keep_their_meaning(clamp: Task) -> None:
    # `1 + f n` and `f (f n)`'s inner call are not tail calls: results must be unchanged
    code_aux = ("def f : Nat → Nat\n  | 0 => 0\n  | n + 1 => 1 + f n\n\n"
                "def g (n : Nat) : Nat := if n = 0 then 0 else g (g (n - 1))")
    answer = _code(clamp, code_aux, "Int.ofNat (f 50 + g 7)")
    assert answer.status == "value" and answer.value == 50


def test_a_task_past_its_step_budget_still_answers_small_checks(clamp: Task) -> None:
    # `down n` takes about n steps; once the task has spent its budget (over two batches), each
    # further check gets only `over_budget_max_steps`: small ones finish, large ones time out.
    task = clamp.with_sections(
        code_aux="def down : Nat → Nat\n  | 0 => 0\n  | n + 1 => down n + 1",
        code="Int.ofNat (down (Int.toNat x))",
    )
    engine = EmbeddedBackend(task_step_budget=3_000, over_budget_max_steps=500)
    first = engine.run(task, [Check(kind=CheckKind.CODE, args={"x": 2_000, "lo": 0, "hi": 5})])
    assert first[0].status == "value"  # under the budget: full per-check allowance
    later = engine.run(task, [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 5}) for x in (1_500, 2_000, 100)])
    assert later[0].status == "value"  # 2,000 + 1,500 steps: the budget is passed during it
    assert later[1].reason == UnknownReason.TIMEOUT and "already spent 3000 steps" in later[1].detail
    assert later[2].status == "value" and later[2].value == 100
    # the same sequence on a fresh engine gives the same answers
    again = EmbeddedBackend(task_step_budget=3_000, over_budget_max_steps=500)
    again.run(task, [Check(kind=CheckKind.CODE, args={"x": 2_000, "lo": 0, "hi": 5})])
    assert [a.status for a in again.run(task, [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 5}) for x in (1_500, 2_000, 100)])] == [a.status for a in later]


def test_a_new_unit_of_work_starts_with_fresh_task_budgets(clamp: Task) -> None:
    # A worker process runs many units (tasks of expand, score, validate) one after another; what
    # one unit spent must not shrink the budget of a later unit that evaluates the same text.
    task = clamp.with_sections(
        code_aux="def down : Nat → Nat\n  | 0 => 0\n  | n + 1 => down n + 1",
        code="Int.ofNat (down (Int.toNat x))",
    )
    engine = EmbeddedBackend(task_step_budget=3_000, over_budget_max_steps=500)
    check = Check(kind=CheckKind.CODE, args={"x": 2_000, "lo": 0, "hi": 5})
    engine.run(task, [check, check])  # spends the task's budget
    assert engine.run(task, [check])[0].reason == UnknownReason.TIMEOUT
    engine.start_unit()
    assert engine.run(task, [check])[0].status == "value"
