"""What memoisation costs: keys are built only once a hit is possible (:mod:`..memo`,
:mod:`..compiler.sharing`), and hash maps are updated in place when nothing else can see it.

Each change must leave every answer and step count as it was: the folds below are compared with
the steps an eager table gives (a hit is one step, a fold over ``xs ++ [x]`` after one over
``xs`` is two), the shared terms with the plain evaluation, and the hash maps with their values
before the update.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_with_postcond

from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded import memo as memo_module
from veriscale.backends.embedded.builtins import BUILTINS
from veriscale.backends.embedded.builtins.hashmaps import LeanHashMap, LeanHashSet
from veriscale.backends.embedded.compiler import core as core_module
from veriscale.backends.embedded.compiler import sharing
from veriscale.backends.embedded.memo import memoised_fold
from veriscale.backends.embedded.runtime_support import Budget, Fn
from veriscale.lean.values import UNIT, Nat
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"


# ---------------------------------------------------------------------------------------------
# Memoised folds


def _fold(f: Any, init: Any, xs: Any) -> Any:
    acc = init
    for x in xs:
        acc = f(acc, x)
    return acc


def _add_scaled(env: list[Any], args: tuple[Any, ...]) -> Any:
    env[1].charge(1)
    return args[0] + args[1] * env[0]


def _adder(budget: Budget, scale: int = 1) -> Fn:
    """``fun acc x => acc + x * scale`` (one compiled body, ``scale`` captured in slot 0), one
    step per call."""
    return Fn(2, _add_scaled, [scale, budget], key_slots=(0,))


def _steps(budget: Budget, call: Any, *args: Any) -> tuple[Any, int]:
    before = budget.used()
    value = call(*args)
    return value, budget.used() - before


def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any) -> Hashable:
        raise AssertionError("a key was built")

    for name in ("memo_key", "_list_keys", "_start_key", "_key"):
        monkeypatch.setattr(memo_module, name, refuse)


def test_a_fold_made_once_per_check_builds_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    budget = Budget()
    fold = memoised_fold(_fold, budget, "List.foldl")
    f, xs = _adder(budget), tuple(range(50))
    _no_keys(monkeypatch)
    assert _steps(budget, fold, f, 0, xs) == (sum(xs), 50)
    # the very same call again is a hit, told by identity: still no key
    assert _steps(budget, fold, f, 0, xs) == (sum(xs), 1)
    assert len(budget.memo) == 1


def test_keyed_folds_hit_as_an_eager_table_would() -> None:
    budget = Budget()
    fold = memoised_fold(_fold, budget, "List.foldl")
    f = _adder(budget)
    xs = tuple(range(10))
    # every prefix after the first finds the one before it recorded: two steps each, the second
    # one included (it finds the first, recorded by reference, keyed then)
    assert [_steps(budget, fold, f, 0, xs[:k]) for k in range(1, 11)] == \
        [(sum(xs[:k]), 1 if k == 1 else 2) for k in range(1, 11)]
    # an equal list that is another object is found by its key
    assert _steps(budget, fold, f, 0, tuple(list(xs[:5]))) == (sum(xs[:5]), 1)
    # a list of Int is not a list of Nat, another start value is another fold
    nats = tuple(Nat(x) for x in xs[:5])
    assert _steps(budget, fold, f, 0, nats) == (sum(xs[:5]), 5)
    assert _steps(budget, fold, f, 1, xs[:5]) == (1 + sum(xs[:5]), 5)


def test_a_fold_of_a_function_that_captured_another_value_is_another_fold() -> None:
    budget = Budget()
    fold = memoised_fold(_fold, budget, "List.foldl")
    xs = tuple(range(6))
    assert [_steps(budget, fold, _adder(budget, m), 0, xs) for m in (1, 2, 1, 3, 2)] == [
        (15, 6), (30, 6), (15, 1), (45, 6), (30, 1)]


def test_each_check_starts_with_nothing_recorded() -> None:
    budget = Budget()
    fold = memoised_fold(_fold, budget, "List.foldl")
    f, xs = _adder(budget), tuple(range(8))
    fold(f, 0, xs)
    budget.start(1_000, 30.0)
    assert _steps(budget, fold, f, 0, xs) == (28, 8)


# ---------------------------------------------------------------------------------------------
# Shared terms

DIGITS = ("def digitTotal : Nat → Nat → Nat\n"
          "  | 0, _ => 0\n"
          "  | fuel + 1, n => if n = 0 then 0 else n % 10 + digitTotal fuel (n / 10)")
COUNT = "((List.range (Int.toNat x)).filter (fun k => digitTotal 20 k % 3 = 0)).length"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def test_a_term_stated_twice_over_the_same_values_is_shared_without_a_key(
        clamp: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    right = sum(1 for k in range(200) if sum(map(int, str(k))) % 3 == 0)
    checks = [Check(kind=CheckKind.POSTCOND, args={"x": 200, "lo": 0, "hi": 5}, output=r)
              for r in (right, right + 1)]
    twice = f"{COUNT} - Int.toNat result = 0 ∧ Int.toNat result ≤ {COUNT}"
    with monkeypatch.context() as m:
        m.setattr(core_module, "repeated_terms", lambda body, names: {})
        plain = run_with_postcond(clamp, DIGITS, twice, checks)

    def refuse(*_: Any) -> Hashable:
        raise AssertionError("a key was built")

    monkeypatch.setattr(sharing, "memo_key", refuse)
    shared = run_with_postcond(clamp, DIGITS, twice, checks)
    assert [a.status for a in shared] == [a.status for a in plain] == ["true", "false"]
    # both outputs evaluate both copies (`right - (right + 1)` is 0 at Nat): one count each
    assert all(a.steps is not None and b.steps is not None and a.steps < b.steps / 2 + 10
               for a, b in zip(shared, plain))


# ---------------------------------------------------------------------------------------------
# Hash maps: persistent entries


def _insert(s: Any, x: int) -> LeanHashSet:
    return BUILTINS["Std.HashSet.insert"].fn(s, Nat(x))  # type: ignore[no-any-return]


def _to_list(s: Any) -> tuple[Any, ...]:
    return BUILTINS["Std.HashSet.toList"].fn(s)  # type: ignore[no-any-return]


def test_an_insertion_into_the_newest_version_takes_its_entries_over() -> None:
    empty = LeanHashSet.with_capacity(8)
    one = _insert(empty, 1)
    two = _insert(one, 2)
    # `empty` is frozen (its insertion copied its entries), `one` was made by an insertion: the
    # next one took its dictionary over, and `one` is a diff of `two` now
    assert empty._dict == {} and one._dict is None and one._next is two  # noqa: SLF001
    # every version keeps its value, read in any order, and can be extended again
    assert _to_list(two) == (Nat(1), Nat(2)) and len(two) == 2
    assert _to_list(one) == (Nat(1),) and len(one) == 1 and Nat(2) not in one
    other = _insert(one, 17)  # 17 shares bucket 1 with 1: consed in front
    assert _to_list(other) == (Nat(17), Nat(1))
    assert _to_list(two) == (Nat(1), Nat(2)) and _to_list(empty) == () and len(empty) == 0


def test_replacing_and_erasing_keep_the_older_versions() -> None:
    insert, erase = BUILTINS["Std.HashMap.insert"].fn, BUILTINS["Std.HashMap.erase"].fn
    get = BUILTINS["Std.HashMap.getD"].fn
    m0 = LeanHashMap()
    m1 = insert(insert(m0, Nat(5), Nat(50)), Nat(21), Nat(210))
    m2 = insert(m1, Nat(5), Nat(0))
    m3 = erase(m2, Nat(21))
    m4 = insert(m3, Nat(21), Nat(1))
    assert [get(m, Nat(5), None) for m in (m0, m1, m2, m3, m4)] == [None, 50, 0, 0, 0]
    assert [get(m, Nat(21), None) for m in (m0, m1, m2, m3, m4)] == [None, 210, 210, None, 1]
    assert [len(m) for m in (m0, m1, m2, m3, m4)] == [0, 2, 2, 1, 2]
    assert m1 == insert(insert(LeanHashMap(), Nat(21), Nat(210)), Nat(5), Nat(50))
    keys = BUILTINS["Std.HashMap.keys"].fn
    assert keys(m1) == (Nat(21), Nat(5)) and keys(m4) == (Nat(21), Nat(5))


def test_a_set_built_by_a_fold_is_the_set_of_its_elements() -> None:
    s: Any = LeanHashSet()
    versions = []
    for x in (3, 19, 3, 35, 4):
        s = _insert(s, x)
        versions.append(s)
    assert [len(v) for v in versions] == [1, 2, 2, 3, 4]
    assert versions[2] is versions[1]  # insertIfNew of a present element: the same set
    assert [_to_list(v) for v in versions[::-1]] == [
        (Nat(35), Nat(19), Nat(3), Nat(4)), (Nat(35), Nat(19), Nat(3)), (Nat(19), Nat(3)),
        (Nat(19), Nat(3)), (Nat(3),)]
    assert UNIT is s.get(Nat(4))
