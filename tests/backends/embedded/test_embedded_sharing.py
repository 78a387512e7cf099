"""A term a definition writes twice is evaluated once per check and values
(:mod:`veriscale.backends.embedded.compiler.sharing`).

Sharing must change nothing but the steps: every answer is the one the plain evaluation gives
(each test compares with sharing turned off), a second occurrence costs one step, and what reads
other variables, other values or sits under another meaning is not shared.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_with_postcond

from veriscale.backends.base import Answer, Check, CheckKind
from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.compiler import core as core_module
from veriscale.backends.embedded.compiler import sharing
from veriscale.backends.embedded.compiler.sharing import repeated_terms, structure_key
from veriscale.backends.embedded.parser import parse_term
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"

#: a digit sum by structural recursion on a fuel argument (one step per digit)
DIGITS = ("def digitTotalFuel : Nat → Nat → Nat\n"
          "  | 0, _ => 0\n"
          "  | fuel + 1, n => if n = 0 then 0 else n % 10 + digitTotalFuel fuel (n / 10)\n\n"
          "def digitTotal (n : Nat) : Nat := digitTotalFuel 20 n")

#: the count stated twice, as a postcondition pins a count from both sides
COUNT = "((List.range (Int.toNat x)).filter (fun k => digitTotal k % 3 = 0)).length"
FOLD = "(List.range 12).foldl (fun a k => a + digitTotal k) 0"
TWICE = f"{COUNT} - Int.toNat result = 0 ∧\n  Int.toNat result ≤ {COUNT}"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def _checks(pairs: list[tuple[int, int]]) -> list[Check]:
    return [Check(kind=CheckKind.POSTCOND, args={"x": x, "lo": 0, "hi": 5}, output=r) for x, r in pairs]


def _plain(monkeypatch: pytest.MonkeyPatch, task: Task, aux: str, postcond: str, checks: list[Check],
           max_steps: int = 500_000) -> list[Answer]:
    with monkeypatch.context() as m:
        m.setattr(core_module, "repeated_terms", lambda body, names: {})
        return run_with_postcond(task, aux, postcond, checks, max_steps)


def _decided(answers: list[Answer]) -> list[str]:
    return [a.status for a in answers]


def _count_reference(x: int) -> int:
    return sum(1 for k in range(x) if sum(map(int, str(k))) % 3 == 0)


def test_a_count_stated_twice_costs_one_count(clamp: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    right = _count_reference(300)
    checks = _checks([(300, right), (300, right - 1), (300, right + 1), (300, 0)])
    shared = run_with_postcond(clamp, DIGITS, TWICE, checks)
    plain = _plain(monkeypatch, clamp, DIGITS, TWICE, checks)
    assert _decided(shared) == _decided(plain) == ["true", "false", "false", "false"]
    # the right output evaluates both copies: the second is one step instead of a second count
    assert shared[0].steps is not None and plain[0].steps is not None
    assert shared[0].steps < plain[0].steps / 2 + 10
    # `right - 1` is decided by the first copy alone: nothing to share, the same steps
    assert shared[1].steps == plain[1].steps


def test_sharing_answers_within_a_budget_the_plain_evaluation_exceeds(
        clamp: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    right = _count_reference(300)
    checks = _checks([(300, right), (300, right + 1)])
    steps = run_with_postcond(clamp, DIGITS, TWICE, checks)[0].steps
    plain_steps = _plain(monkeypatch, clamp, DIGITS, TWICE, checks)[0].steps
    assert steps is not None and plain_steps is not None
    budget = (steps + plain_steps) // 2
    shared = run_with_postcond(clamp, DIGITS, TWICE, checks, max_steps=budget)
    plain = _plain(monkeypatch, clamp, DIGITS, TWICE, checks, max_steps=budget)
    assert _decided(shared) == ["true", "false"]  # and a wrong output still fails
    assert _decided(plain)[0] == "unknown"


def test_the_answers_do_not_depend_on_the_checks_before(clamp: Task) -> None:
    right = _count_reference(120)
    pairs = [(120, right), (120, right + 2), (57, _count_reference(57)), (120, right), (57, 3)]
    forward = run_with_postcond(clamp, DIGITS, TWICE, _checks(pairs))
    backward = run_with_postcond(clamp, DIGITS, TWICE, _checks(pairs[::-1]))[::-1]
    assert [(a.status, a.steps) for a in forward] == [(a.status, a.steps) for a in backward]
    assert _decided(forward) == ["true", "false", "true", "true", "false"]


def test_a_full_memo_table_takes_no_more_shared_values(clamp: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    right = _count_reference(300)
    checks = _checks([(300, right), (300, right + 1)])
    plain = _plain(monkeypatch, clamp, DIGITS, TWICE, checks)
    monkeypatch.setattr(sharing, "SHARE_TABLE_LIMIT", 0)
    full = run_with_postcond(clamp, DIGITS, TWICE, checks)
    assert [(a.status, a.steps) for a in full] == [(a.status, a.steps) for a in plain]


@pytest.mark.parametrize(("postcond", "expected"), [
    # the same text under binders of other values: `digitTotal y` reads another value each time
    ("(fun y => digitTotal (y * 7)) 3 = (fun y => digitTotal (y * 7)) 4", "false"),
    ("(fun y => digitTotal (y * 7)) 30 = (fun y => digitTotal (y * 7)) 3", "true"),
    # the same text, another variable: `y` is a `let` in each copy
    ("(let y := Int.toNat x; digitTotal (y + 5)) = (let y := Int.toNat x + 1; digitTotal (y + 5))", "false"),
    # inside a `fun` applied to every member: the value of `k` is part of the key
    ("(List.range 30).all (fun k => digitTotal (k * 3) % 3 = 0 ∧ digitTotal (k * 3) ≥ 0)", "true"),
    ("(List.range 30).any (fun k => digitTotal (k + 1) = 9 ∧ digitTotal (k + 1) = 9)", "true"),
])
def test_what_differs_is_not_shared(clamp: Task, monkeypatch: pytest.MonkeyPatch, postcond: str,
                                    expected: str) -> None:
    checks = _checks([(5, 5)])
    shared = run_with_postcond(clamp, DIGITS, postcond, checks)
    plain = _plain(monkeypatch, clamp, DIGITS, postcond, checks)
    assert _decided(shared) == _decided(plain) == [expected]


@pytest.mark.parametrize("postcond", [
    f"({FOLD} : Int) - 100 < 0 ∧ ({FOLD} : Nat) - 100 = 0",
    f"({FOLD} : Nat) - 100 = 0 ∧ ({FOLD} : Int) - 100 < 0",
])
def test_a_term_elaborated_at_another_type_is_not_shared(clamp: Task, monkeypatch: pytest.MonkeyPatch,
                                                         postcond: str) -> None:
    # the fold's start `0` takes the expected type: an Int value in one copy, a Nat in the other
    checks = _checks([(5, 5)])
    shared = run_with_postcond(clamp, DIGITS, postcond, checks)
    plain = _plain(monkeypatch, clamp, DIGITS, postcond, checks)
    assert [(a.status, a.steps) for a in shared] == [(a.status, a.steps) for a in plain]
    assert _decided(shared) == ["true"]


def test_only_the_largest_repeated_terms_that_cost_steps_are_marked() -> None:
    body = parse_term(f"{COUNT} + (List.range 4).length + (List.range 4).length + {COUNT} + digitTotal 3")
    marked = repeated_terms(body, {"digitTotal"})
    texts = sorted(A.sexpr(_find(body, i)) for i in marked)
    # the whole count twice (not the filter inside it); `List.range 4` costs no steps
    assert len(marked) == 2 and texts[0] == texts[1] and texts[0].endswith("field='length'}")


def test_a_local_instance_turns_sharing_off() -> None:
    body = parse_term("have inst : BEq Nat := ⟨fun _ _ => true⟩; (digitTotal 3 == 4) = (digitTotal 3 == 4)")
    assert repeated_terms(body, {"digitTotal"}) == {}


def test_structure_keys_ignore_positions_only() -> None:
    a = parse_term("(fun (k : Nat) => digitTotal k) 3")
    b = parse_term("(fun (k : Nat) =>\n     digitTotal k) 3")
    c = parse_term("(fun (k : Int) => digitTotal k) 3")
    assert structure_key(a) == structure_key(b)
    assert structure_key(a) != structure_key(c)


def _find(node: object, ident: int) -> A.Node:
    if isinstance(node, A.Node) and id(node) == ident:
        return node
    for sub in A.subterms(node):
        found = _find(sub, ident)
        if found is not None:
            return found
    return None  # type: ignore[return-value]
