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
from veriscale.backends.embedded.memo import KEY_LIMIT, NotKeyable, args_key, memo_key, memoised_fold
from veriscale.backends.embedded.runtime_support import Budget, Fn
from veriscale.lean.values import NONE, UNIT, Arr, Char, Nat, Some
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


def _add_sized(env: list[Any], args: tuple[Any, ...]) -> Any:
    env[1].charge(1)
    return args[0] + args[1] * len(env[0])


def _sized_adder(budget: Budget, ys: Any) -> Fn:
    """``fun acc x => acc + x * ys.length`` (``ys``, a list, captured in slot 0), one step per
    call."""
    return Fn(2, _add_sized, [ys, budget], key_slots=(0,))


def _refuse_keys(monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...]) -> None:
    def refuse(*_: Any) -> Hashable:
        raise AssertionError("a key was built")

    for name in names:
        monkeypatch.setattr(memo_module, name, refuse)


def test_folds_of_distinct_starts_with_a_list_in_them_key_no_list(monkeypatch: pytest.MonkeyPatch) -> None:
    budget = Budget()
    fold = memoised_fold(_fold, budget, "List.foldl")
    ys, xs = tuple(range(40)), tuple(range(6))
    with monkeypatch.context() as m:
        _refuse_keys(m, ("memo_key", "_list_keys", "_start_key", "_key"))
        # one start per start value: each is a new start, told apart without keying `ys`
        assert [_steps(budget, fold, _sized_adder(budget, ys), k, xs) for k in range(5)] == [
            (k + 15 * 40, 6) for k in range(5)]
    # a start again, with an equal list that is another object: found by its key, one step
    assert _steps(budget, fold, _sized_adder(budget, tuple(list(ys))), 3, xs) == (3 + 15 * 40, 1)
    # as an eager table: a list of the same length and other elements, or of Nat, is another start
    assert _steps(budget, fold, _sized_adder(budget, tuple(range(1, 41))), 3, xs) == (3 + 15 * 40, 6)
    nats = tuple(Nat(y) for y in ys)
    assert _steps(budget, fold, _sized_adder(budget, nats), 3, xs) == (3 + 15 * 40, 6)
    assert _steps(budget, fold, _sized_adder(budget, nats), 3, xs[:5]) == (3 + 10 * 40, 5)
    # and the prefix rule holds under a start keyed late: xs after xs[:5] is two steps
    assert _steps(budget, fold, _sized_adder(budget, tuple(nats)), 3, tuple(list(xs))) == (3 + 15 * 40, 1)
    assert _steps(budget, fold, _sized_adder(budget, nats), 4, xs[:5]) == (4 + 10 * 40, 5)
    assert _steps(budget, fold, _sized_adder(budget, nats), 4, xs) == (4 + 15 * 40, 2)


def _append_scaled(env: list[Any], args: tuple[Any, ...]) -> Any:
    env[1].charge(1)
    return (*args[0], args[1] * env[0])


def test_a_start_of_scalars_or_an_empty_list_is_keyed_without_a_deep_key(monkeypatch: pytest.MonkeyPatch) -> None:
    budget = Budget()
    fold = memoised_fold(_fold, budget, "List.foldl")
    xs = tuple(range(5))
    _refuse_keys(monkeypatch, ("memo_key", "_start_key", "_key"))  # lists of scalars: _list_keys

    def scaled(m: Any) -> Fn:
        return Fn(2, _append_scaled, [m, budget], key_slots=(0,))

    calls = [(scaled(2), (), xs), (scaled(3), (), xs), (scaled(2), (), tuple(list(xs))),
             (scaled(Nat(2)), (), xs), (scaled(True), (), xs), (scaled(1), (), xs),
             (scaled(2), (), xs[:4]), (scaled(2), (), xs + (7,))]
    assert [_steps(budget, fold, *c) for c in calls] == [
        (tuple(2 * x for x in xs), 5), (tuple(3 * x for x in xs), 5), (tuple(2 * x for x in xs), 1),
        (tuple(2 * x for x in xs), 5), (xs, 5), (xs, 5),  # Nat 2, True and 1 are other values
        (tuple(2 * x for x in xs[:4]), 4), ((*(2 * x for x in xs), 14), 2)]
    # an empty list and an empty array are other start values
    assert _steps(budget, fold, scaled(2), Arr(()), xs[:4])[1] == 4


# ---------------------------------------------------------------------------------------------
# Memoised definitions

_ARG_VALUES: list[Any] = [
    0, 1, Nat(1), True, False, "a", Char("a"), -3, (), Arr(()), (1, 2), (Nat(1), Nat(2)), (1, Nat(2)),
    Arr((1, 2)), ((1,), (2,)), (True,), Some(1), NONE, 0.0, -0.0, tuple(range(KEY_LIMIT - 1)),
]


def test_argument_keys_are_equal_exactly_when_each_arguments_memo_key_is() -> None:
    token = object()
    pairs = [(a, b) for a in _ARG_VALUES for b in _ARG_VALUES]
    for args in [*[(a,) for a in _ARG_VALUES], *pairs]:
        for other in [(a,) for a in _ARG_VALUES] + pairs[:: 7]:
            same = tuple(map(memo_key, args)) == tuple(map(memo_key, other))
            assert (args_key(token, args) == args_key(token, other)) == same, (args, other)
    assert args_key(token, (1,)) != args_key(object(), (1,))
    with pytest.raises(NotKeyable):
        args_key(token, (tuple(range(KEY_LIMIT)),))


def test_a_memoised_definition_keys_scalars_and_lists_of_scalars_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    # a naive LCS over lists of Nat through the memo wrapper, one step per call: the calls it
    # makes are those of a table keyed by the Python values (exact here: every element a Nat)
    budget = Budget()

    def lcs(xs: Any, ys: Any) -> Nat:
        budget.charge(1)
        if not xs or not ys:
            return Nat(0)
        if xs[0] == ys[0]:
            return Nat(1 + memo(xs[1:], ys[1:]))
        return Nat(max(memo(xs[1:], ys), memo(xs, ys[1:])))

    memo = core_module.memoised(lcs, 2, budget, "lcs")
    calls: dict[tuple[Any, Any], int] = {}

    values: dict[tuple[Any, Any], int] = {}

    def reference(xs: tuple[int, ...], ys: tuple[int, ...]) -> int:
        calls[(xs, ys)] = calls.get((xs, ys), 0) + 1
        if (xs, ys) in values:
            return values[(xs, ys)]
        if not xs or not ys:
            value = 0
        elif xs[0] == ys[0]:
            value = 1 + reference(xs[1:], ys[1:])
        else:
            value = max(reference(xs[1:], ys), reference(xs, ys[1:]))
        values[(xs, ys)] = value
        return value

    a = tuple(Nat(v % 3) for v in range(9))
    b = tuple(Nat(v % 2) for v in range(7))
    _refuse_keys(monkeypatch, ("memo_key", "_key"))
    value, steps = _steps(budget, memo, a, b)
    assert value == reference(tuple(map(int, a)), tuple(map(int, b)))
    assert steps == sum(calls.values()) and max(calls.values()) > 1


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
