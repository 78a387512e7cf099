"""The interface every engine implements: a batch of checks for one task in, one answer each out.

A *check* is a small question about a task's Lean definitions on concrete values:

* ``precond``  -- is ``<name>_precond args`` true?
* ``code``     -- what is ``<name> args``?
* ``postcond`` -- is ``<name>_postcond args output`` true?

The task (``veriscale.task.Task``) supplies the Lean source; to judge generated code or specs,
callers pass a copy of the task whose sections were replaced. Answers never guess: whatever the
engine cannot establish is ``unknown`` with a reason.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, get_args

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from veriscale.task import Task


class CheckKind(str, Enum):
    PRECOND = "precond"
    CODE = "code"
    POSTCOND = "postcond"


class UnknownReason(str, Enum):
    UNDECIDABLE = "undecidable"
    UNSUPPORTED = "unsupported"
    TIMEOUT = "timeout"
    ERROR = "error"
    UNSAFE = "unsafe"


# Checks and answers are immutable records on tuples: an engine reads and makes one of each per
# check, and a small check costs about a microsecond. A pydantic model's attributes go through its
# ``__getattr__`` hook (several times a tuple field's cost) and building one costs five plain
# objects. The records behave as records, not sequences: equal only to a record of their own
# class with equal fields (never to a plain tuple), hashed as their fields, not ordered. Built by
# keyword (or position, in field order) they validate each field; ``trusted`` skips that for
# fields right by construction.


def _same_record(self: tuple[Any, ...], other: object) -> bool:
    return type(other) is type(self) and _tuple_eq(self, other)


def _other_record(self: tuple[Any, ...], other: object) -> bool:
    return not (type(other) is type(self) and _tuple_eq(self, other))


def _unordered(self: tuple[Any, ...], other: object) -> bool:
    return NotImplemented


_new_tuple = tuple.__new__
_tuple_eq = tuple.__eq__


class _CheckFields(NamedTuple):
    kind: CheckKind
    args: dict[str, Any]
    output: Any


class Check(_CheckFields):
    """One question. ``args`` maps parameter names to runtime values (``veriscale.lean.values``);
    ``output`` is the candidate output, for ``postcond`` checks only. Built by keyword, ``args``
    is copied (a check does not change with the caller's dict)."""

    __slots__ = ()

    def __new__(cls, kind: CheckKind | str, args: Mapping[str, Any], output: Any = None) -> Check:
        return _new_tuple(cls, (_valid_kind(kind), _valid_args(args), output))

    @classmethod
    def trusted(cls, kind: CheckKind, args: dict[str, Any], output: Any = None) -> Check:
        """A check built without validation, for callers building many from values they already
        typed (``args`` is kept, not copied): equal to ``Check(kind=…, args=…, output=…)``."""
        return _new_tuple(cls, (kind, args, output))

    __eq__ = _same_record
    __ne__ = _other_record
    __hash__ = tuple.__hash__
    __lt__ = __le__ = __gt__ = __ge__ = _unordered


def _valid_kind(kind: object) -> CheckKind:
    if type(kind) is CheckKind:
        return kind
    if isinstance(kind, str):  # the kind's value
        try:
            return CheckKind(kind)
        except ValueError:
            pass
    raise ValueError(f"Check.kind must be a CheckKind, not {kind!r}")


def _valid_args(args: object) -> dict[str, Any]:
    if not isinstance(args, Mapping):
        raise TypeError(f"Check.args must be a dict, not {type(args).__name__}")
    for name in args:
        if not isinstance(name, str):
            raise TypeError(f"Check.args must be named by str, not {type(name).__name__} ({name!r})")
    return dict(args)


AnswerStatus = Literal["value", "true", "false", "unknown"]


class _AnswerFields(NamedTuple):
    status: AnswerStatus
    engine: str
    value: Any
    reason: UnknownReason | None
    detail: str
    steps: int | None


class Answer(_AnswerFields):
    """The answer to one check, recording which engine produced it.

    ``value`` is the computed value, when ``status == "value"``; ``reason`` and ``detail`` say,
    for ``unknown``, what was unsupported, what timed out, the error message; ``steps`` is the
    work the check took in the engine's own deterministic unit (the embedded engine counts
    evaluation steps), so that budgets built on it give the same answers on any machine and load,
    ``None`` when the engine only knows wall-clock time (real Lean)."""

    __slots__ = ()

    def __new__(cls, status: AnswerStatus, engine: str, value: Any = None, reason: UnknownReason | str | None = None,
                detail: str = "", steps: int | None = None) -> Answer:
        return _new_tuple(cls, (_valid_status(status), _valid_str("engine", engine), value, _valid_reason(reason),
                                _valid_str("detail", detail), _valid_steps(steps)))

    @classmethod
    def of_bool(cls, result: bool, engine: str) -> Answer:
        return cls(status="true" if result else "false", engine=engine)

    @classmethod
    def of_value(cls, value: Any, engine: str) -> Answer:
        return cls(status="value", value=value, engine=engine)

    @classmethod
    def unknown(cls, reason: UnknownReason, detail: str, engine: str) -> Answer:
        return cls(status="unknown", reason=reason, detail=detail, engine=engine)

    @classmethod
    def trusted(cls, status: AnswerStatus, engine: str, value: Any, reason: UnknownReason | None,
                detail: str, steps: int | None) -> Answer:
        """An answer built without validation, for an engine's per-check hot path whose fields
        are right by construction: equal to the validated ``Answer(...)`` of the same fields (a
        test holds it to that)."""
        return _new_tuple(cls, (status, engine, value, reason, detail, steps))

    def replace(self, **changes: Any) -> Answer:
        """This answer with the given fields changed, validated as the constructor validates."""
        return Answer(**{**self._asdict(), **changes})

    @property
    def is_unknown(self) -> bool:
        return self.status == "unknown"

    __eq__ = _same_record
    __ne__ = _other_record
    __hash__ = tuple.__hash__
    __lt__ = __le__ = __gt__ = __ge__ = _unordered


#: each status, by itself (a ``str`` enum equal to one is stored as the plain string)
_STATUSES: dict[str, AnswerStatus] = {s: s for s in get_args(AnswerStatus)}


def _valid_status(status: object) -> AnswerStatus:
    found = _STATUSES.get(status) if isinstance(status, str) else None
    if found is None:
        raise ValueError(f"Answer.status must be one of {', '.join(_STATUSES)}, not {status!r}")
    return found


def _valid_str(field: str, text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"Answer.{field} must be a str, not {type(text).__name__}")
    return text


def _valid_reason(reason: object) -> UnknownReason | None:
    if reason is None or type(reason) is UnknownReason:
        return reason
    if isinstance(reason, str):  # the reason's value, as a JSON record holds it
        try:
            return UnknownReason(reason)
        except ValueError:
            raise ValueError(f"Answer.reason must be an UnknownReason, not {reason!r}") from None
    raise TypeError(f"Answer.reason must be an UnknownReason or None, not {type(reason).__name__}")


def _valid_steps(steps: object) -> int | None:
    if steps is None or type(steps) is int:
        return steps
    if isinstance(steps, int) and not isinstance(steps, bool):
        return int(steps)  # an int subclass (a Lean Nat) as the plain int
    raise TypeError(f"Answer.steps must be an int or None, not {type(steps).__name__}")


def stopped_by_a_clock(answer: Answer) -> bool:
    """A timeout reached by a clock (an engine's CPU or wall-clock backstop) rather than by counting
    steps: such an answer, and whatever follows from it, depends on the machine's load. The
    engines say so in the detail ("backstop of N CPU seconds", "wall-clock ...")."""
    return answer.reason == UnknownReason.TIMEOUT and ("backstop of" in answer.detail or "wall-clock" in answer.detail)


class SourceDiagnostic(BaseModel):
    """What an engine found when it read a task file the way Lean does, at a place in it.

    ``error``: Lean rejects the file there (``message`` says what Lean would say); ``gap``: the
    engine cannot tell whether Lean accepts it, so nothing it computes from that place may count
    as a pass."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["error", "gap"]
    line: int
    col: int
    message: str
    rule: str


class Backend(ABC):
    """An engine that answers checks. Implementations must be safe to call repeatedly per task."""

    name: str

    @abstractmethod
    def run(self, task: Task, checks: Sequence[Check]) -> list[Answer]:
        """Answer every check, in order. Must not raise for problems of a single check."""

    def start_unit(self) -> None:  # noqa: B027 - optional hook, most engines keep no tallies
        """Begin an independent unit of work (one task of ``expand``, ``score`` or ``validate``):
        forget whatever the engine tallied for earlier units, such as steps spent per task, so a
        unit's answers do not depend on which units the same worker process ran before it."""

    def diagnose(self, task: Task) -> list[SourceDiagnostic] | None:
        """Read the task file as Lean's elaborator would, before any check runs: the errors Lean
        would report and the places the engine cannot judge. ``None`` when the engine has no
        such pass of its own (its answers then carry any failure, as real Lean's do)."""
        return None

    def reading_problems(self, original: Task, copy: Task) -> tuple[list[str], list[str]]:
        """Where this engine would read ``copy`` (``original`` with substituted sections)
        differently from real Lean, beyond what :meth:`diagnose` reports: ``(definite, doubtful)``.
        ``definite``: Lean rejects the copy and the engine would not notice (so the copy fails);
        ``doubtful``: the engine cannot tell (so nothing computed from the copy may count as a
        pass). Real Lean reads every file as Lean does: nothing, by default."""
        return [], []

    def close(self) -> None:  # noqa: B027 - optional hook, most engines hold nothing
        """Release processes or other resources."""
