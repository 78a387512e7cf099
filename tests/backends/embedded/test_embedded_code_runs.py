"""Runs of code checks (``EmbeddedBackend._code_run``) answer exactly what the general path does.

Every test runs one batch on two fresh engines, one with the runs of code checks and one with
every check on the general path (``_code_runs = False``), and compares each answer field by field
(the value's Python type too: a ``Nat`` is not an ``int``). Each also makes sure the runs really
answered some checks, by counting the checks the general path answered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from veriscale.backends.base import Answer, Check, CheckKind, UnknownReason
from veriscale.backends.embedded.backend import CHECK_FRAMES, EmbeddedBackend
from veriscale.lean.codec import LeanSource
from veriscale.lean.values import Arr
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"
WALK = "def walk : Nat → Nat\n  | 0 => 0\n  | n + 1 => walk n + 1"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def _code(x: int, lo: int = 0, hi: int = 10) -> Check:
    return Check(kind=CheckKind.CODE, args={"x": x, "lo": lo, "hi": hi})


def _general_answers(engine: EmbeddedBackend) -> list[int]:
    """Count the checks ``engine`` answers on its general path (``_answer``)."""
    calls = [0]
    general = engine._answer

    def counted(*args: Any) -> Answer:
        calls[0] += 1
        return general(*args)

    engine._answer = counted  # type: ignore[method-assign]
    return calls


def _fields(answer: Answer) -> tuple[Any, ...]:
    return (answer.status, answer.engine, type(answer.value), answer.value, answer.reason, answer.detail, answer.steps)


def _both(task: Task, batches: list[list[Check]], **limits: Any) -> list[list[Answer]]:
    """Run ``batches`` in turn on an engine with runs of code checks and on one without; the
    answers must be the same, and the runs must have answered some code checks."""
    fast, general = EmbeddedBackend(**limits), EmbeddedBackend(**limits)
    general._code_runs = False
    fast_general_calls = _general_answers(fast)
    answered: list[list[Answer]] = []
    for checks in batches:
        by_runs = fast.run(task, checks)
        by_general = general.run(task, checks)
        assert [_fields(a) for a in by_runs] == [_fields(a) for a in by_general]
        answered.append(by_runs)
    total = sum(len(checks) for checks in batches)
    assert fast_general_calls[0] < total, "no check was answered by a run of code checks"
    return answered


def test_a_batch_mixing_kinds_and_sizes(clamp: Task) -> None:
    checks: list[Check] = []
    for x in [*range(-5, 16), 10**30, -(10**40), 7, 7]:
        args = {"x": x, "lo": 0, "hi": 10}
        checks += [Check(kind=CheckKind.PRECOND, args=args), Check(kind=CheckKind.CODE, args=args),
                   Check(kind=CheckKind.POSTCOND, args=args, output=x)]
    # code checks one after another (smallest first puts them among the others by size)
    checks += [_code(x) for x in range(-20, 40)]
    checks += [Check(kind=CheckKind.PRECOND, args={"x": 1, "lo": 5, "hi": 0})]
    (answers,) = _both(clamp, [checks])
    assert [a.value for a in answers[-61:-1]] == [min(max(x, 0), 10) for x in range(-20, 40)]
    assert answers[-1].status == "false"


def test_a_check_that_raises_in_the_middle_of_a_run(clamp: Task) -> None:
    # x = 7 is unsupported at run time (panic!), x = 9 runs out of steps, x = 11 recurses too
    # deep; the checks after each are answered as if alone
    task = clamp.with_sections(
        code_aux=WALK + "\ndef spin (n : Nat) : Nat := spin (n + 1)\ndef grow (n : Nat) : Nat := grow (n + 1) + 1",
        code=('if x = 7 then (panic! "boom" : Int) else if x = 9 then Int.ofNat (spin 0) '
              "else if x = 11 then Int.ofNat (grow 0) else Int.ofNat (walk x.toNat)"),
    )
    (answers,) = _both(task, [[_code(x) for x in range(30)]], max_steps=200_000, timeout_streak=2)
    assert answers[7].reason == UnknownReason.UNSUPPORTED
    assert answers[9].reason == UnknownReason.TIMEOUT and "step budget" in answers[9].detail
    assert answers[11].reason == UnknownReason.TIMEOUT
    assert [a.value for a in answers if a.reason is None] == [x for x in range(30) if x not in (7, 9, 11)]


def test_recursion_too_deep_comes_at_one_step_wherever_the_check_is_evaluated(clamp: Task) -> None:
    # `grow` recurses until Python's stack runs out. The check that calls it is evaluated alone
    # (the general path, which also makes the plan), after a check of another kind, last of a
    # batch, inside a run of code checks, on an engine without runs, and with a wrapper around
    # the general path: each starts at another Python depth, and each stops at the same step
    task = clamp.with_sections(
        code_aux="def grow (n : Nat) : Nat := grow (n + 1) + 1",
        code="if x = 11 then Int.ofNat (grow 0) else x",
    )
    pre = Check(kind=CheckKind.PRECOND, args={"x": 11, "lo": 0, "hi": 10})
    batches = [[_code(11)], [pre, _code(11), pre], [_code(1), _code(11)], [_code(1), _code(2), _code(11), _code(3)]]
    steps: list[int] = []
    for runs, wrapped in ((True, False), (False, False), (True, True)):
        for batch in batches:
            engine = EmbeddedBackend()
            engine._code_runs = runs
            if wrapped:
                _general_answers(engine)
            for check, answer in zip(batch, engine.run(task, batch)):
                if check.kind is CheckKind.CODE and check.args["x"] == 11:
                    assert (answer.reason, answer.detail) == (UnknownReason.TIMEOUT, "recursion too deep")
                    steps.append(answer.steps or 0)
    assert len(steps) == 12 and len(set(steps)) == 1, steps
    # one Python frame per Lean call, the check's own definition entered directly too: the
    # recursion is stopped by the call that would nest one frame more than a check may
    assert steps[0] == CHECK_FRAMES


@pytest.mark.parametrize("recursion", [
    WALK,  # a definition calling itself through its entry: one Python frame per call
    # a `let rec` function calling itself outside tail position, through its group's holder
    "def walkLocal (n : Nat) : Nat :=\n  let rec go (k : Nat) : Nat := if k = 0 then 0 else go (k - 1) + 1\n  go n",
    # a `where` helper capturing a parameter (a `let rec` then) and one that does not (a definition)
    "def walkWhere (n : Nat) : Nat := go n + stay n\nwhere\n  go (k : Nat) : Nat := if k = 0 then n - n else go (k - 1) + 1\n"
    "  stay : Nat → Nat\n    | 0 => 0\n    | k + 1 => stay k * 1",
])
def test_a_recursion_one_frame_per_call_deep_finishes(clamp: Task, recursion: str) -> None:
    # 100,000 calls deep: past what two Python frames per call (a definition called through
    # its `run`) or three (a `let rec` value applied) left of the check's frames; the answers
    # are the same on both paths, and 160,000 deep still runs out of Python stack on both
    name = recursion.split()[1]
    task = clamp.with_sections(code_aux=recursion, code=f"Int.ofNat ({name} x.toNat)")
    sizes = [100_000, 3, 100_000, 160_000, 5]
    (answers,) = _both(task, [[_code(x, 0, 5) for x in sizes]], max_steps=1_000_000)
    assert [a.value for a in answers[:3]] == [100_000, 3, 100_000] and answers[4].value == 5
    assert (answers[3].reason, answers[3].detail) == (UnknownReason.TIMEOUT, "recursion too deep")


def test_timeouts_then_the_short_limit_then_the_cap(clamp: Task) -> None:
    # `walk x` takes about x steps: large inputs time out, which shortens the limit after a
    # streak and stops running code checks once the batch spent its steps on timeouts; small
    # inputs between them are answered, and shorter limits let fewer finish
    task = clamp.with_sections(code_aux=WALK, code="Int.ofNat (walk x.toNat)")
    xs = [*range(0, 3000, 37), *range(5000, 9000, 250), *range(100, 400, 7), *range(6000, 20000, 500)]
    (answers,) = _both(task, [[_code(x, 0, 5) for x in xs]], max_steps=6_000, timeout_streak=2,
                       short_max_steps=2_000, batch_step_budget=40_000)
    reasons = {a.detail.split(":")[0] for a in answers if a.reason is not None}
    assert "not run" in reasons and any(d.startswith("step budget of 2000") for d in reasons)


def test_the_task_step_budget_crossed_in_a_run(clamp: Task) -> None:
    # `walk x` takes about x steps. The first batch spends most of the task's budget; in the
    # second the budget runs out among the 1000s (inputs of one size keep their given order),
    # the 1000s after that time out under `over_budget_max_steps`, 600 and 650 still finish and
    # 900 then runs out of steps in the middle of a run, under the over-budget limit
    task = clamp.with_sections(code_aux=WALK, code="Int.ofNat (walk x.toNat)")
    first = [_code(x, 0, 5) for x in range(0, 2000, 40)]
    second = [_code(x, 0, 5) for x in [*[1000] * 15, 600, 650, 900, 610]]
    _, later = _both(task, [first, second], task_step_budget=60_000, over_budget_max_steps=700)
    assert later[0].reason is None and later[0].steps > 700
    assert later[-5].reason == UnknownReason.TIMEOUT
    assert [a.value for a in later[-4:-2]] == [600, 650] and later[-1].value == 610
    assert "this task's checks already spent 60000 steps" in later[-2].detail


def test_a_check_after_one_that_drew_several_grants_starts_afresh(clamp: Task) -> None:
    # x = 2 and x = 4 take 10,000 steps (more than one grant of the budget, so their evaluation
    # refills it and reads the clock); the small checks after each are counted from nothing
    task = clamp.with_sections(code_aux=WALK, code="if x = 2 ∨ x = 4 then Int.ofNat (walk 10000) else x")
    (answers,) = _both(task, [[_code(x) for x in (1, 2, 3, 4, 5, 2, 6)]])
    small = [a.steps for a in answers if a.value != 10000]
    assert [a.value for a in answers] == [1, 10000, 3, 10000, 5, 10000, 6]
    assert len(set(small)) == 1 and small[0] is not None and small[0] < 10
    assert {a.steps for a in answers if a.value == 10000} == {small[0] + 10001}


def test_each_check_starts_with_no_memoised_calls(clamp: Task) -> None:
    # the engine memoises pure calls within a check (`fib` is linear in steps with it); a check
    # must not find the calls of the check before it
    fib = "def fib : Nat → Nat\n  | 0 => 0\n  | 1 => 1\n  | n + 2 => fib n + fib (n + 1)"
    task = clamp.with_sections(code_aux=fib, code="Int.ofNat (fib x.toNat)")
    (answers,) = _both(task, [[_code(x) for x in (20, 21, 22, 20, 21)]])
    assert [a.steps for a in answers[:2]] == [a.steps for a in answers[3:]]
    assert answers[0].steps < answers[1].steps < answers[2].steps


def test_values_keep_their_types_and_adjustments(clamp: Task) -> None:
    # a Nat result at `Int` becomes an int; a Subarray returned as `Array` becomes an Array
    as_int = clamp.with_sections(code="if x < 0 then 0 else x.toNat")
    (answers,) = _both(as_int, [[_code(x) for x in range(-3, 20)]])
    assert all(type(a.value) is int for a in answers)
    listy = clamp.with_sections(code="Int.ofNat ((List.range x.toNat).map (· * 2)).length")
    _both(listy, [[_code(x) for x in range(0, 40)]])


def _own_task(root: Path, name: str, params: list[tuple[str, str]], ret: str, code: str) -> Task:
    """A task of our own (precondition `True`, postcondition `result = <code>`) in ``root``."""
    binders = " ".join(f"({p} : {t})" for p, t in params)
    passed = " ".join(f"({p})" for p, _ in params)
    lean = "\n".join([
        "-- !benchmark @start import type=solution", "-- !benchmark @end import",
        "-- !benchmark @start solution_aux", "-- !benchmark @end solution_aux",
        "-- !benchmark @start precond_aux", "-- !benchmark @end precond_aux",
        "@[reducible, simp]", f"def {name}_precond {binders} : Prop :=",
        "  -- !benchmark @start precond", "  True", "  -- !benchmark @end precond",
        "-- !benchmark @start code_aux", "-- !benchmark @end code_aux",
        f"def {name} {binders} (h_precond : {name}_precond {passed}) : {ret} :=",
        "  -- !benchmark @start code", f"  {code}", "  -- !benchmark @end code",
        "-- !benchmark @start postcond_aux", "-- !benchmark @end postcond_aux",
        "@[reducible, simp]",
        f"def {name}_postcond {binders} (result : {ret}) (h_precond : {name}_precond {passed}) : Prop :=",
        "  -- !benchmark @start postcond", f"  result = ({code})", "  -- !benchmark @end postcond",
        "-- !benchmark @start proof_aux", "-- !benchmark @end proof_aux",
        f"theorem {name}_spec_satisfied {binders} (h_precond : {name}_precond {passed}) :",
        f"    {name}_postcond {passed} ({name} {passed} h_precond) h_precond := by",
        "  -- !benchmark @start proof", "  sorry", "  -- !benchmark @end proof", "",
    ])
    signature = {"name": name, "parameters": [{"param_name": p, "param_type": t} for p, t in params],
                 "return_type": ret}
    (root / "task.json").write_text(json.dumps({"id": name, "signature": signature}))
    (root / "task.lean").write_text(lean)
    (root / "description.txt").write_text("A task written for these tests.\n")
    (root / "test.json").write_text("[]")
    (root / "reject_inputs.json").write_text("[]")
    return load_task(root)


def test_a_subarray_returned_as_an_array(tmp_path: Path) -> None:
    task = _own_task(tmp_path, "firstHalf", [("a", "Array Int")], "Array Int", "a[0:a.size / 2]")
    checks = [Check(kind=CheckKind.CODE, args={"a": Arr(tuple(range(n)))}) for n in range(25)]
    (answers,) = _both(task, [checks])
    assert all(type(a.value) is Arr for a in answers)
    assert [len(a.value) for a in answers] == [n // 2 for n in range(25)]


def test_functions_given_as_lean_text(tmp_path: Path) -> None:
    task = _own_task(tmp_path, "applyTwice", [("f", "Int → Int"), ("x", "Int")], "Int", "f (f x)")
    # Lean text among function values already evaluated (what a caller may pass, as the
    # evaluator's own closures are): the runs leave each check with Lean text to the general path
    double, shift = LeanSource("fun y => 2 * y"), LeanSource("fun y => y - 3")

    def negate(y: int) -> int:
        return -y

    functions = (double, negate, negate, shift, negate)
    checks = [Check(kind=CheckKind.CODE, args={"f": f, "x": x}) for x in range(-4, 12) for f in functions]
    (answers,) = _both(task, [checks])
    assert [a.value for a in answers] == [v for x in range(-4, 12) for v in (4 * x, x, x, x - 6, x)]


def test_functions_given_as_lean_text_at_an_abbreviated_type(tmp_path: Path) -> None:
    # a parameter whose type is a name of the file's own (here a function type) may take Lean
    # text: the runs look for it as for `Int → Int` (they skip the look only at core data types)
    task = _own_task(tmp_path, "applyTwice", [("f", "IntFn"), ("x", "Int")], "Int", "f (f x)")
    task = task.with_sections(precond_aux="abbrev IntFn := Int → Int")
    double = LeanSource("fun y => 2 * y")

    def negate(y: int) -> int:
        return -y

    checks = [Check(kind=CheckKind.CODE, args={"f": f, "x": x}) for x in range(-4, 12) for f in (negate, double, negate)]
    (answers,) = _both(task, [checks])
    assert [a.value for a in answers] == [v for x in range(-4, 12) for v in (x, 4 * x, x)]


def test_the_watchdog_interrupts_a_check_of_a_run_and_answers_the_rest(clamp: Task) -> None:
    # x = 7 spends its CPU time in builtin calls, few steps: only the watchdog, reading the index
    # the run publishes, can stop it; the checks after it are answered as usual
    task = clamp.with_sections(
        code=("if x = 7 then Int.ofNat ((List.range 300).foldl (fun acc _ => acc + (List.range 1000000).length) 0) "
              "else x"),
    )
    engine = EmbeddedBackend(timeout=0.1)
    general_calls = _general_answers(engine)
    answers = engine.run(task, [_code(x) for x in range(12)])
    assert general_calls[0] < 12
    assert answers[7].reason == UnknownReason.TIMEOUT and answers[7].detail == "backstop of 0.1 CPU seconds exceeded"
    assert [a.value for a in answers[:7] + answers[8:]] == [x for x in range(12) if x != 7]


def test_a_batch_given_again_is_ordered_as_the_first_time(clamp: Task) -> None:
    # every batch is ordered as given: the same checks again, in another order, or with one
    # check replaced by another
    from veriscale.backends.embedded.backend import _input_size

    def by_size(batch: list[Check]) -> list[int]:
        return sorted(range(len(batch)), key=lambda k: _input_size(batch[k]))

    checks = [_code(x, x, 10) for x in (5, 2**70, -3, 2**40, 7)]
    shuffled = checks[::-1]
    replaced = [*checks[:-1], _code(2**90, 2**90, 10)]
    engine = EmbeddedBackend()
    for batch in (checks, checks, shuffled, checks, replaced, replaced, checks):
        order, sources_given = engine._smallest_first(batch)
        assert order == by_size(batch) and not sources_given
    assert by_size(shuffled) != by_size(checks) and by_size(replaced)[-1] == 4
    answers = _both(clamp, [checks, checks, shuffled, checks])
    assert [a.value for a in answers[0]] == [a.value for a in answers[1]] == [a.value for a in answers[3]]
    assert [a.value for a in answers[2]] == [a.value for a in answers[0]][::-1]
