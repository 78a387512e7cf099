"""The per-check fast paths of the embedded engine answer as the general paths do: the exact-type
table of ``type_name_of``, the same-type shortcut of ``<``/``≤``, the batch's cached input sizes
and the code entry point's argument fetch."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.backends.embedded.builtins import order
from veriscale.lean import values
from veriscale.lean.values import (
    NONE,
    UNIT,
    Arr,
    Char,
    Nat,
    Pair,
    Some,
    Struct,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Unsupported,
    type_name_of,
)
from veriscale.task import load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"

SAMPLES: list[Any] = [
    True, False, Nat(0), Nat(7), UInt8(3), UInt16(4), UInt32(5), UInt64(6), 0, -3, 2.5, math.nan,
    Char("a"), "", "ab", Arr(()), Arr((1, 2)), (), (Nat(1),), Pair(1, 2), Some(1), NONE, UNIT,
    Struct("Point", (("x", 1), ("y", 2))),
]


def test_type_names_by_exact_type_are_the_chain_s(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = [type_name_of(v) for v in SAMPLES]
    monkeypatch.setattr(values, "_TYPE_NAMES", {})
    assert fast == [type_name_of(v) for v in SAMPLES]
    assert fast[:3] == ["Bool", "Bool", "Nat"]  # the table is read: bool before int


def _outcome(fn: Any, a: Any, b: Any) -> object:
    try:
        return fn(a, b)
    except Unsupported as exc:
        return ("unsupported", str(exc))


@pytest.mark.parametrize("fn", [order.compare_lt, order.compare_le], ids=["lt", "le"])
def test_same_type_comparisons_are_the_general_ones(fn: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = [(a, b) for a in SAMPLES for b in SAMPLES]
    fast = [_outcome(fn, a, b) for a, b in pairs]
    monkeypatch.setattr(order, "_ORDERED_TYPES", frozenset())
    assert fast == [_outcome(fn, a, b) for a, b in pairs]
    assert fn(Nat(2), 3) is True and fn(3.0, math.nan) is False


def _clamp_checks(xs: list[int]) -> list[Check]:
    return [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 10}) for x in xs]


def _fields(answers: list[Any]) -> list[tuple[object, ...]]:
    return [(a.status, repr(a.value), a.reason, a.detail, a.steps) for a in answers]


def test_a_batch_given_again_answers_alike() -> None:
    task = load_task(MINI / "mini_clamp")
    checks = _clamp_checks([10**40, 5, -(10**20), 11, 0, 3])
    backend = EmbeddedBackend()
    first = backend.run(task, checks)
    again = backend.run(task, checks)
    fresh = EmbeddedBackend().run(task, list(checks))
    assert _fields(first) == _fields(again) == _fields(fresh)
    assert [a.value for a in first] == [10, 5, 0, 10, 0, 3]


def test_code_entry_arguments_by_name() -> None:
    task = load_task(MINI / "mini_clamp")
    backend = EmbeddedBackend()
    # the arguments in another order than the signature's, and one missing
    shuffled = Check(kind=CheckKind.CODE, args={"hi": 4, "x": 9, "lo": 1})
    missing = Check(kind=CheckKind.CODE, args={"x": 9, "lo": 1})
    got = backend.run(task, [shuffled, missing])
    assert got[0].value == 4
    assert got[1].status == "unknown" and "argument hi" in got[1].detail and "not supplied" in got[1].detail


def test_shared_value_answers_keep_the_value_s_type() -> None:
    backend = EmbeddedBackend()
    got = [backend._value_answer(v, 5) for v in (Nat(1), 1, True, Char("a"), "a", 0.0, -0.0, Nat(1), (1,))]
    assert [type(a.value) for a in got] == [Nat, int, bool, Char, str, float, float, Nat, tuple]
    assert math.copysign(1.0, got[6].value) == -1.0  # -0.0 is not the answer of 0.0
    assert got[7] is got[0]  # shared: one answer per scalar value and step count
    assert backend._value_answer(Nat(1), 6).steps == 6
    assert got[0] == backend._value_answer(Nat(1), 5) and got[0]._asdict() == {
        "status": "value", "engine": "embedded", "value": 1, "reason": None, "detail": "", "steps": 5}
