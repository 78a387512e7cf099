"""A task seen through its types: parsed signature, typed test values, canonical input keys.

``task.py`` keeps stored JSON values raw so that a benchmark round-trips byte for byte; this
module is the one place that turns them into runtime values at their declared Lean types, and that
records every stored value that does not fit (a truncated ``expected`` in the published
VerinaPlus, say) as a :class:`ValueProblem` instead of failing the whole task.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from veriscale.lean.codec import ValueParseError, looks_truncated, parse_value, render_value
from veriscale.lean.types import (
    LeanType,
    LeanTypeError,
    StructDef,
    parse_structures,
    parse_type,
)
from veriscale.task import Task


class TypedTaskError(Exception):
    """The task's signature itself cannot be understood (a type that does not parse)."""

    def __init__(self, task: str, reason: str) -> None:
        self.task = task
        self.reason = reason
        super().__init__(f"{task}: {reason}")


@dataclass(frozen=True)
class ValueProblem:
    """A stored value that does not parse at its declared type."""

    task: str
    field: str
    """Where it is, e.g. ``test.json[3].expected`` or ``reject_inputs.json[0].input.xs``."""
    raw: Any
    reason: str
    kind: str = "unparseable"
    """``unparseable``, or ``truncated`` when it looks like the tail of a longer printed value."""

    def __str__(self) -> str:
        return f"{self.task}: {self.field}: {self.reason}"


@dataclass
class TypedTest:
    index: int
    args: dict[str, Any] | None
    """Runtime values by parameter name; ``None`` when an input value does not parse."""
    key: str | None
    expected: Any | None
    expected_ok: bool
    unexpected: list[tuple[int, Any]]
    """``(position in the stored list, value)`` for every unexpected output that parses."""


@dataclass
class TypedReject:
    index: int
    args: dict[str, Any] | None
    key: str | None


@dataclass
class TypedTask:
    task: Task
    param_types: dict[str, LeanType]
    return_type: LeanType
    structs: dict[str, StructDef]
    tests: list[TypedTest] = field(default_factory=list)
    rejects: list[TypedReject] = field(default_factory=list)
    problems: list[ValueProblem] = field(default_factory=list)
    value_count: int = 0

    @property
    def duplicate_test_rows(self) -> int:
        """Test rows whose input equals an earlier row's input (canonically)."""
        seen: set[str] = set()
        duplicates = 0
        for test in self.tests:
            if test.key is None:
                continue
            if test.key in seen:
                duplicates += 1
            seen.add(test.key)
        return duplicates


def typed_input_key(
    args: Mapping[str, Any], types: Mapping[str, LeanType], structs: Mapping[str, StructDef]
) -> str:
    """The canonical key of a parsed input row; equals ``values.canonical_key`` of its raw form."""
    return "\n".join(f"{name} := {render_value(args[name], types[name], structs)}" for name in sorted(types))


def _raw_key(raw: Any) -> Any:
    """A key equal for two stored JSON values exactly when they are the same JSON value written
    the same way: a string or integer itself, anything else its ``repr`` (which tells ``1``,
    ``1.0`` and ``True`` apart, and ``0.0`` from ``-0.0``), with its type."""
    kind = type(raw)
    return (kind, raw) if kind is str or kind is int else (kind, repr(raw))


def typed_view(task: Task) -> TypedTask:
    """Parse the task's signature and every stored value at its type."""
    try:
        param_types = {p.name: parse_type(p.type) for p in task.signature.parameters}
        return_type = parse_type(task.signature.return_type)
    except LeanTypeError as exc:
        raise TypedTaskError(task.id, f"signature type does not parse: {exc}") from exc
    structs = parse_structures(task.section("task_aux"))
    view = TypedTask(task=task, param_types=param_types, return_type=return_type, structs=structs)
    # Most stored values recur within a task (in VerinaPlus two thirds of the outputs and a
    # quarter of the inputs): each distinct one is parsed, and rendered for a key, once. Sharing
    # a parsed value between rows is safe, since runtime values are immutable.
    parsed: dict[tuple[Any, int], tuple[bool, Any]] = {}
    """(:func:`_raw_key`, id of the declared type) -> (True, value) or (False, (reason, kind))."""
    rendered: dict[tuple[str, Any], str] = {}

    def parse(raw: Any, ty: LeanType, where: str) -> tuple[bool, Any]:
        view.value_count += 1
        cache_key = (_raw_key(raw), id(ty))
        known = parsed.get(cache_key)
        if known is None:
            try:
                # A stored number is spliced into Lean as a literal, and a literal out of a
                # fixed-width type's range wraps (`(510 : UInt8) = 254`); the published expected
                # outputs agree.
                known = True, parse_value(raw, ty, structs, wrap_uint=True)
            except ValueParseError as exc:
                known = False, (str(exc), "truncated" if looks_truncated(raw, ty, structs) else "unparseable")
            parsed[cache_key] = known
        if known[0]:
            return known
        view.problems.append(ValueProblem(task.id, where, raw, *known[1]))
        return False, None

    def key_of(args: dict[str, Any], inputs: Mapping[str, Any]) -> str:
        """``typed_input_key(args, …)``, each parameter's part rendered once per stored text."""
        parts = []
        for name in sorted(param_types):
            part_key = (name, _raw_key(inputs[name]))
            part = rendered.get(part_key)
            if part is None:
                part = rendered[part_key] = f"{name} := {render_value(args[name], param_types[name], structs)}"
            parts.append(part)
        return "\n".join(parts)

    def parse_args(inputs: Mapping[str, Any], where: str) -> tuple[dict[str, Any] | None, str | None]:
        args: dict[str, Any] = {}
        ok = True
        for name, ty in param_types.items():
            if name not in inputs:
                view.problems.append(ValueProblem(task.id, f"{where}.{name}", None, "missing parameter"))
                ok = False
                continue
            parsed_ok, value = parse(inputs[name], ty, f"{where}.{name}")
            ok = ok and parsed_ok
            args[name] = value
        if not ok:
            return None, None
        return args, key_of(args, inputs)

    for i, test in enumerate(task.tests):
        where = f"test.json[{i}]"
        args, key = parse_args(test.input, f"{where}.input")
        expected_ok, expected = parse(test.expected, return_type, f"{where}.expected")
        unexpected = []
        for j, raw in enumerate(test.unexpected):
            ok, value = parse(raw, return_type, f"{where}.unexpected[{j}]")
            if ok:
                unexpected.append((j, value))
        view.tests.append(TypedTest(i, args, key, expected, expected_ok, unexpected))
    for i, reject in enumerate(task.reject_inputs):
        args, key = parse_args(reject.input, f"reject_inputs.json[{i}].input")
        view.rejects.append(TypedReject(i, args, key))
    return view
