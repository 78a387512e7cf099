"""``Check`` and ``Answer``: immutable records, validated when built by keyword, trusted on an
engine's hot path."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from veriscale.backends.base import Answer, Check, CheckKind, UnknownReason
from veriscale.lean.values import Arr, Nat


def _nats(*values: int) -> Arr:
    return Arr(tuple(Nat(v) for v in values))


@pytest.mark.parametrize(("status", "value", "reason", "detail", "steps"), [
    ("value", _nats(1, 2), None, "", 7),
    ("true", None, None, "", 0),
    ("unknown", None, UnknownReason.TIMEOUT, "step budget of 5 steps exhausted", 6),
    ("unknown", None, UnknownReason.ERROR, "no answer", None),
])
def test_a_trusted_answer_is_the_validated_one(status: Any, value: Any, reason: Any, detail: str,
                                               steps: int | None) -> None:
    fast = Answer.trusted(status, "embedded", value, reason, detail, steps)
    slow = Answer(status=status, engine="embedded", value=value, reason=reason, detail=detail, steps=steps)
    assert fast == slow and not fast != slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert type(fast) is Answer and fast._asdict() == slow._asdict()
    assert (fast.status, fast.engine, fast.value, fast.reason, fast.detail, fast.steps) == (
        status, "embedded", value, reason, detail, steps)
    assert pickle.loads(pickle.dumps(fast)) == slow and copy.deepcopy(fast) == slow
    with pytest.raises(AttributeError):  # immutable
        fast.steps = 3  # type: ignore[misc]


def test_the_constructors_fill_the_fields() -> None:
    assert Answer.of_bool(True, "e") == Answer(status="true", engine="e")
    assert Answer.of_bool(False, "e") == Answer(status="false", engine="e")
    assert Answer.of_value(Nat(3), "e") == Answer(status="value", engine="e", value=Nat(3))
    unknown = Answer.unknown(UnknownReason.UNSUPPORTED, "List.foo at 3:5", "e")
    assert unknown.is_unknown and not Answer.of_bool(True, "e").is_unknown
    assert (unknown.value, unknown.detail, unknown.steps) == (None, "List.foo at 3:5", None)
    assert repr(unknown) == ("Answer(status='unknown', engine='e', value=None, "
                             "reason=<UnknownReason.UNSUPPORTED: 'unsupported'>, detail='List.foo at 3:5', steps=None)")


def test_an_answer_is_equal_only_to_answers() -> None:
    answer = Answer(status="value", engine="e", value=1, steps=2)
    assert answer != tuple(answer) and tuple(answer) != answer
    assert answer != Answer(status="value", engine="e", value=1, steps=3)
    assert answer != Answer(status="value", engine="f", value=1, steps=2)
    assert len({answer, Answer(status="value", engine="e", value=1, steps=2)}) == 1
    with pytest.raises(TypeError):
        assert answer < answer  # a record, not an ordered sequence


def test_replace_changes_fields_and_validates_them() -> None:
    answer = Answer.unknown(UnknownReason.ERROR, "failed", "lean")
    changed = answer.replace(detail="failed (in f)")
    assert changed == Answer.unknown(UnknownReason.ERROR, "failed (in f)", "lean")
    assert answer.detail == "failed"
    with pytest.raises(TypeError, match="Answer.steps"):
        answer.replace(steps="3")
    with pytest.raises(TypeError):
        answer.replace(colour="red")


def test_fields_given_in_their_other_accepted_forms_are_normalised() -> None:
    answer = Answer(status="unknown", engine="e", reason="timeout", steps=Nat(4))
    assert answer.reason is UnknownReason.TIMEOUT
    assert type(answer.steps) is int and answer.steps == 4
    assert answer == Answer(status="unknown", engine="e", reason=UnknownReason.TIMEOUT, steps=4)


@pytest.mark.parametrize(("fields", "error", "field"), [
    ({"status": "maybe"}, ValueError, "status"),
    ({"status": None}, ValueError, "status"),
    ({"engine": 3}, TypeError, "engine"),
    ({"reason": "bogus"}, ValueError, "reason"),
    ({"reason": 3}, TypeError, "reason"),
    ({"detail": None}, TypeError, "detail"),
    ({"steps": "3"}, TypeError, "steps"),
    ({"steps": 3.0}, TypeError, "steps"),
    ({"steps": True}, TypeError, "steps"),
])
def test_a_field_of_the_wrong_kind_is_refused(fields: dict[str, Any], error: type[Exception], field: str) -> None:
    given: dict[str, Any] = {"status": "unknown", "engine": "e", **fields}
    with pytest.raises(error, match=f"Answer.{field}"):
        Answer(**given)


def test_fields_are_required_by_name() -> None:
    with pytest.raises(TypeError):
        Answer(status="true")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Answer(status="true", engine="e", colour="red")  # type: ignore[call-arg]


@pytest.mark.parametrize("output", [None, _nats(3), Nat(0)])
def test_a_trusted_check_is_the_validated_one(output: Any) -> None:
    args = {"a": _nats(1, 2), "n": Nat(4)}
    fast = Check.trusted(CheckKind.POSTCOND, args, output)
    slow = Check(kind=CheckKind.POSTCOND, args=args, output=output)
    assert fast == slow and not fast != slow and repr(fast) == repr(slow) and type(fast) is Check
    assert fast.args is args and slow.args == args and slow.args is not args  # validated: a copy
    assert fast._asdict() == slow._asdict() == {"kind": CheckKind.POSTCOND, "args": args, "output": output}
    assert pickle.loads(pickle.dumps(fast)) == slow and copy.deepcopy(fast) == slow
    with pytest.raises(AttributeError):  # immutable
        fast.output = 3  # type: ignore[misc]


def test_a_check_is_equal_only_to_checks() -> None:
    check = Check(kind=CheckKind.CODE, args={"x": Nat(1)})
    assert check == Check(kind="code", args={"x": Nat(1)}) and check.kind is CheckKind.CODE
    assert check != tuple(check) and check != Check(kind=CheckKind.PRECOND, args={"x": Nat(1)})
    assert check != Answer(status="true", engine="e")
    with pytest.raises(TypeError):
        assert check < check


@pytest.mark.parametrize(("fields", "error", "field"), [
    ({"kind": "run"}, ValueError, "kind"),
    ({"kind": None}, ValueError, "kind"),
    ({"args": [("x", 1)]}, TypeError, "args"),
    ({"args": {1: 2}}, TypeError, "args"),
])
def test_a_check_field_of_the_wrong_kind_is_refused(fields: dict[str, Any], error: type[Exception], field: str) -> None:
    given: dict[str, Any] = {"kind": CheckKind.CODE, "args": {}, **fields}
    with pytest.raises(error, match=f"Check.{field}"):
        Check(**given)
