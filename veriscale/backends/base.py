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
from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

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


class Check(BaseModel):
    """One question. ``args`` maps parameter names to runtime values (``veriscale.lean.values``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    kind: CheckKind
    args: dict[str, Any]
    output: Any = None
    """The candidate output, for ``postcond`` checks only."""

    @classmethod
    def trusted(cls, kind: CheckKind, args: dict[str, Any], output: Any = None) -> Check:
        """A check built without validation, for callers building many from values they already
        typed (``args`` is kept, not copied): equal to ``Check(kind=…, args=…, output=…)``, as
        :meth:`Answer.trusted` is to its validated answer."""
        check = _new_object(cls)
        check.__dict__.update(kind=kind, args=args, output=output)
        _set_fields_set(check, {"kind", "args", "output"})
        _set_extra(check, None)
        _set_private(check, None)
        return check


AnswerStatus = Literal["value", "true", "false", "unknown"]


class Answer(BaseModel):
    """The answer to one check, recording which engine produced it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    status: AnswerStatus
    engine: str
    value: Any = None
    """The computed value, when ``status == "value"``."""
    reason: UnknownReason | None = None
    detail: str = ""
    """For ``unknown``: what was unsupported, what timed out, the error message."""
    steps: int | None = None
    """The work this check took in the engine's own deterministic unit (the embedded engine counts
    evaluation steps), so that budgets built on it give the same answers on any machine and load.
    ``None`` when the engine only knows wall-clock time (real Lean)."""

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
        are right by construction. Equal to the validated ``Answer(...)`` of the same fields (a
        test holds it to that); it fills pydantic's per-instance state directly, as
        ``model_construct`` does, at a third of the cost of either constructor. Every such answer
        shares one set of fields set: a frozen model never adds to it, and pydantic's copies copy
        it."""
        answer = _new_object(cls)
        _set_instance_dict(answer, {"status": status, "engine": engine, "value": value, "reason": reason,
                                    "detail": detail, "steps": steps})
        _set_fields_set(answer, _ANSWER_FIELDS_SET)
        _set_extra(answer, None)
        _set_private(answer, None)
        return answer

    @property
    def is_unknown(self) -> bool:
        return self.status == "unknown"


# The slots of a pydantic model instance besides its field dict, set by Answer.trusted.
_new_object = object.__new__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_set_instance_dict = BaseModel.__dict__["__dict__"].__set__
_ANSWER_FIELDS = frozenset(Answer.model_fields)
_ANSWER_FIELDS_SET = set(_ANSWER_FIELDS)


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
