"""The embedded backend end to end on the project's own example tasks (examples/mini)."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriscale.backends.base import Check, CheckKind, UnknownReason
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.stages.validate import validate_task
from veriscale.task import load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"


@pytest.fixture(scope="module")
def backend() -> EmbeddedBackend:
    return EmbeddedBackend()


def test_clamp_checks(backend: EmbeddedBackend) -> None:
    task = load_task(MINI / "mini_clamp")
    args = {"x": 15, "lo": 0, "hi": 10}
    answers = backend.run(task, [
        Check(kind=CheckKind.PRECOND, args=args),
        Check(kind=CheckKind.PRECOND, args={"x": 1, "lo": 5, "hi": 2}),
        Check(kind=CheckKind.CODE, args=args),
        Check(kind=CheckKind.POSTCOND, args=args, output=10),
        Check(kind=CheckKind.POSTCOND, args=args, output=15),
    ])
    assert [a.status for a in answers] == ["true", "false", "value", "true", "false"]
    assert answers[2].value == 10
    assert all(a.engine == "embedded" for a in answers)


@pytest.mark.parametrize("name", sorted(p.name for p in MINI.iterdir() if p.is_dir()))
def test_mini_tasks_agree(backend: EmbeddedBackend, name: str) -> None:
    result = validate_task(load_task(MINI / name), backend)
    assert result.status == "full", result.unknown_reasons
    assert result.disagreements == []


def test_unsupported_answers_name_construct_and_position(backend: EmbeddedBackend) -> None:
    task = load_task(MINI / "mini_clamp")
    body = "if x < lo then lo else if hi < x then hi else (dbg_trace \"x\" fun _ => x)"
    changed = task.with_sections(code=body)
    (answer,) = backend.run(changed, [Check(kind=CheckKind.CODE, args={"x": 1, "lo": 0, "hi": 5})])
    assert answer.status == "unknown"
    assert answer.reason == UnknownReason.UNSUPPORTED
    assert ":" in answer.detail  # line:col of the construct


def test_timeout_is_unknown_not_an_exception() -> None:
    task = load_task(MINI / "mini_clamp")
    # a Lean program that does not terminate in any reasonable time (partial def style loop)
    looping = task.with_sections(code_aux="def spin (n : Nat) : Nat := spin (n + 1)", code="spin 0")
    engine = EmbeddedBackend(max_steps=100_000, timeout=2.0)
    (answer,) = engine.run(looping, [Check(kind=CheckKind.CODE, args={"x": 1, "lo": 0, "hi": 5})])
    assert answer.status == "unknown"
    assert answer.reason == UnknownReason.TIMEOUT


def test_deep_recursion_is_handled() -> None:
    # Lean evaluates this non-tail recursion of depth 20000 without trouble; so must we.
    task = load_task(MINI / "mini_clamp")
    code_aux = "def down : Nat → Nat\n  | 0 => 0\n  | n + 1 => down n + 1"
    deep = task.with_sections(code_aux=code_aux, code="Int.ofNat (down 20000)")
    (answer,) = EmbeddedBackend().run(deep, [Check(kind=CheckKind.CODE, args={"x": 1, "lo": 0, "hi": 5})])
    assert answer.status == "value" and answer.value == 20000
    # far deeper recursion becomes unknown(timeout), never an exception
    deeper = task.with_sections(code_aux=code_aux, code="Int.ofNat (down 1000000)")
    (answer,) = EmbeddedBackend().run(deeper, [Check(kind=CheckKind.CODE, args={"x": 1, "lo": 0, "hi": 5})])
    assert answer.status == "unknown" and answer.reason == UnknownReason.TIMEOUT


def test_user_beq_instance_is_refused_not_replaced_by_structural_equality(backend: EmbeddedBackend) -> None:
    """A task's own `BEq` instance decides `==` in Lean; the engine must not substitute its own."""
    task = load_task(MINI / "mini_clamp")
    code_aux = (
        "structure Box where\n  v : Int\n\n"
        "instance : BEq Box where\n  beq _ _ := true\n"
    )
    code = "if (Box.mk x == Box.mk lo) then lo else x"
    changed = task.with_sections(code_aux=code_aux, code=code)
    (answer,) = backend.run(changed, [Check(kind=CheckKind.CODE, args={"x": 3, "lo": 0, "hi": 5})])
    # Lean answers 0 here (every Box is `==` to every other); structural equality would say 3.
    assert answer.status == "unknown"
    assert answer.reason == UnknownReason.UNSUPPORTED
    assert "user instance" in answer.detail


def test_repeated_timeouts_shorten_then_stop_paying_the_step_budget() -> None:
    task = load_task(MINI / "mini_clamp")
    looping = task.with_sections(code_aux="def spin (n : Nat) : Nat := spin (n + 1)", code="spin 0")
    engine = EmbeddedBackend(max_steps=50_000, timeout_streak=2, short_max_steps=5_000, batch_step_budget=150_000)
    checks = [Check(kind=CheckKind.CODE, args={"x": i, "lo": 0, "hi": 5}) for i in range(40)]
    precond = Check(kind=CheckKind.PRECOND, args={"x": 1, "lo": 0, "hi": 5})
    answers = engine.run(looping, [*checks, precond])
    assert all(a.status == "unknown" and a.reason == UnknownReason.TIMEOUT for a in answers[:-1])
    # two full budgets, then short ones until 150,000 steps were spent, then not run at all
    used = [a.steps for a in answers[:-1]]
    assert used[:2] == [50_001, 50_001]
    # (100,002 + 10 * 5,001 >= 150,000: ten short ones)
    assert used[2:12] == [5_001] * 10
    assert all(u == 0 and a.detail.startswith("not run:") for u, a in zip(used[12:], answers[12:-1]))
    # Other kinds are still answered: the precondition does not loop.
    assert answers[-1].status == "true"


def test_small_inputs_are_answered_before_large_ones_exhaust_the_caps() -> None:
    """The caps above stop paying for a kind once its checks ran out of steps; the large inputs
    that run out must not cost the small ones listed after them their answers."""
    task = load_task(MINI / "mini_clamp")
    linear = task.with_sections(code_aux="def walk : Nat → Nat\n  | 0 => 0\n  | n + 1 => walk n + 1",
                                code="Int.ofNat (walk x.toNat)")
    engine = EmbeddedBackend(max_steps=20_000, timeout_streak=1, short_max_steps=2_000, batch_step_budget=26_000)
    large = [Check(kind=CheckKind.CODE, args={"x": 10**6 + i, "lo": 0, "hi": 5}) for i in range(6)]
    small = [Check(kind=CheckKind.CODE, args={"x": i, "lo": 0, "hi": 5}) for i in range(10)]
    answers = engine.run(linear, [*large, *small])
    assert [a.value for a in answers[6:]] == list(range(10))  # answered, in their own places
    assert all(a.status == "unknown" and a.reason == UnknownReason.TIMEOUT for a in answers[:6])
    assert any(a.detail.startswith("not run:") for a in answers[:6])  # the caps still hold


def test_runaway_recursion_in_a_thread_does_not_crash_the_process() -> None:
    """The evaluator thread must really get its large stack (it is set before the thread starts)."""
    task = load_task(MINI / "mini_clamp")
    code_aux = "def grow (n : Nat) : Nat := grow (n + 1) + 1"
    runaway = task.with_sections(code_aux=code_aux, code="Int.ofNat (grow 0)")
    (answer,) = EmbeddedBackend(timeout=20.0).run(runaway, [Check(kind=CheckKind.CODE, args={"x": 1, "lo": 0, "hi": 5})])
    assert answer.status == "unknown" and answer.reason == UnknownReason.TIMEOUT
