"""Which suites catch which flawed specification or mutant, for one task, lazily.

Every suite's checks are the Verina checks a submission would face:

* precondition: true on every test input (label ``True``), false on every reject input (``False``);
* postcondition: true on (input, expected) (``True``), false on (input, unexpected) (``False``);
* code: the output equals the expected output (typed values, ``compare.same_as_printed``).

A flawed specification is *caught* by a suite when it fails one of the suite's checks that the
ground truth passes (both decided): it rejects a test input or accepts a reject input, rejects an
expected output or accepts an unexpected one. A mutant is *killed* when its output differs from
a test's expected output that the reference implementation reproduces. Requiring the ground
truth to pass the check keeps defective stored rows (an "unexpected" output the ground truth
accepts, a truncated expected value) from counting as catches: such a row fails every
submission, right or wrong. Unknown answers never catch.

An item counts (is "not equivalent on the task's inputs") when at least one suite catches it: by
the rule above that is exactly when its decided verdict differs from the ground truth's on a
stored input or pair of some suite whose stored label the ground truth agrees with.

Evaluation is lazy. Answers are cached per task by canonical input (and output) key, so a pair
that several suites store is evaluated once per item; an item stops being evaluated against a
suite as soon as that suite catches it; rows that already caught this item or earlier items of
the task are tried first. Each row reached is first checked against the ground truth (once per
task), and the item is asked only about rows whose check the ground truth passes: a postcondition
that times out on large inputs costs its time once, not once per item. An item that keeps timing
out (a mutant that no longer terminates) is abandoned, counting steps, so deterministically.
Apart from the per-task wall-clock limit (items left are ``undetermined``), the result does not
depend on the order, only the time does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.backends.safety import screen_sections
from veriscale.compare import same_as_printed
from veriscale.power.items import PowerItem
from veriscale.task import Task
from veriscale.typed_task import TypedTaskError, typed_view
from veriscale.values import render_value

__all__ = ["ItemResult", "SuiteChecks", "TaskPower", "evaluate_task", "suite_checks"]

FIRST_CHUNK = 8
LARGEST_CHUNK = 256
ABANDON_AFTER_TIMEOUTS = 3
"""An item with at least this many timeouts, more than half its answers, is not run further."""

ItemStatus = Literal["counted", "equivalent", "undetermined", "unsafe"]


class ItemResult(BaseModel):
    id: str
    kind: str
    family: str
    status: ItemStatus
    """``counted``: caught by at least one suite; ``equivalent``: by none (no decided difference
    from the ground truth on any stored row); ``undetermined``: the task's time ran out first;
    ``unsafe``: refused by the safety screen (never run)."""
    caught_by: list[int] = []
    """Positions of the suites that catch it."""
    caught_with: dict[int, str] = {}
    """Per catching suite, the canonical key of the row that caught it (the first one found)."""
    evaluations: int = 0
    abandoned: bool = False
    """It kept timing out and was not run further (deterministic: timeouts count steps)."""


class TaskPower(BaseModel):
    task: str
    items: list[ItemResult] = []
    checks: list[int] = []
    """Per suite: tests + unexpected outputs + reject inputs (as expand counts them)."""
    parts: list[tuple[int, int, int]] = []
    """Per suite: (tests, unexpected outputs, reject inputs)."""
    seconds: float = 0.0
    steps: int | None = None
    """Engine steps spent on the task (``None``: the engine does not count steps)."""
    error: str | None = None
    out_of_time: bool = False
    """The task's budget ran out: the items left are ``undetermined``."""


@dataclass
class _Row:
    key: str
    args: dict[str, Any]
    output: Any = None
    label: Any = None
    """``True``/``False`` for spec checks; the stored expected value for code checks."""


@dataclass
class SuiteChecks:
    precond: list[_Row] = field(default_factory=list)
    postcond: list[_Row] = field(default_factory=list)
    code: list[_Row] = field(default_factory=list)
    size: int = 0
    parts: tuple[int, int, int] = (0, 0, 0)


def suite_checks(task: Task) -> SuiteChecks:
    """The typed checks of one suite's copy of a task (rows whose values do not parse are left
    out; a row repeated within the suite is kept once)."""
    view = typed_view(task)
    parts = (len(task.tests), sum(len(t.unexpected) for t in task.tests), len(task.reject_inputs))
    out = SuiteChecks(size=sum(parts), parts=parts)
    seen: set[tuple[str, str]] = set()

    def add(kind: str, row: _Row) -> None:
        if (kind, row.key) in seen:
            return
        seen.add((kind, row.key))
        getattr(out, kind).append(row)

    def output_key(value: Any) -> str:
        return render_value(value, view.return_type, view.structs)

    for test in view.tests:
        if test.args is None or test.key is None:
            continue
        add("precond", _Row(test.key, test.args, label=True))
        if test.expected_ok:
            add("code", _Row(test.key, test.args, label=test.expected))
            add("postcond", _Row(f"{test.key}\n=> {output_key(test.expected)}", test.args, test.expected, True))
        for _, value in test.unexpected:
            add("postcond", _Row(f"{test.key}\n=> {output_key(value)}", test.args, value, False))
    for reject in view.rejects:
        if reject.args is None or reject.key is None:
            continue
        add("precond", _Row(reject.key, reject.args, label=False))
    return out


_KIND = {"precond": CheckKind.PRECOND, "postcond": CheckKind.POSTCOND, "code": CheckKind.CODE}


def _check(kind: str, row: _Row) -> Check:
    return Check(kind=_KIND[kind], args=row.args, output=row.output if kind == "postcond" else None)


class _Deadline(Exception):
    pass


class _TaskEvaluator:
    def __init__(self, truth: Task, suites: Sequence[SuiteChecks], backend: Backend, deadline: float,
                 step_budget: int | None = None) -> None:
        self.truth = truth
        self.suites = suites
        self.backend = backend
        self.deadline = deadline
        self.step_budget = step_budget
        self.steps: int | None = None  # stays None while no answer reports steps
        # Ground-truth answers by (kind, key): "true"/"false"/"unknown" for specs, the value or None.
        self.truth_answers: dict[tuple[str, str], Any] = {}
        self.hot: dict[str, list[str]] = {"precond": [], "postcond": [], "code": []}
        self.hot_set: dict[str, set[str]] = {k: set() for k in self.hot}

    def run(self, task: Task, checks: list[Check]) -> list[Answer]:
        # Looked at between batches only. The step budget is deterministic; the wall clock is the
        # budget of an engine without steps and a backstop for the others.
        if self.steps is not None and self.step_budget is not None and self.steps > self.step_budget:
            raise _Deadline
        if time.monotonic() > self.deadline:
            raise _Deadline
        answers = self.backend.run(task, checks)
        counted = [a.steps for a in answers if a.steps is not None]
        if counted:
            self.steps = (self.steps or 0) + sum(counted)
        return answers

    def truth_of(self, kind: str, rows: Sequence[_Row]) -> None:
        missing = [r for r in rows if (kind, r.key) not in self.truth_answers]
        if not missing:
            return
        answers = self.run(self.truth, [_check(kind, r) for r in missing])
        for row, answer in zip(missing, answers, strict=True):
            if kind == "code":
                self.truth_answers[(kind, row.key)] = ("value", answer.value) if answer.status == "value" else None
            else:
                self.truth_answers[(kind, row.key)] = answer.status

    def truth_passes(self, kind: str, row: _Row) -> bool:
        answer = self.truth_answers.get((kind, row.key))
        if kind == "code":
            return answer is not None and same_as_printed(answer[1], row.label)
        return answer == ("true" if row.label else "false")

    def fails(self, kind: str, row: _Row, answer: Any) -> bool:
        """The item's (decided) answer fails the row's check."""
        if kind == "code":
            return answer is not None and not same_as_printed(answer, row.label)
        if answer not in ("true", "false"):
            return False
        return (answer == "true") != bool(row.label)

    def item(self, item: PowerItem) -> ItemResult:
        kind = item.kind
        result = ItemResult(id=item.id, kind=kind, family=item.family, status="equivalent")
        if kind == "code":
            screen = screen_sections(item.sections, origin=item.id)
            if not screen.ok:
                result.status = "unsafe"
                return result
        variant = self.truth.with_sections(**item.sections)
        answers: dict[str, Any] = {}  # the item's answers by key
        caught_at: list[str] = []
        order = sorted(range(len(self.suites)), key=lambda s: self.suites[s].size)
        for s in order:
            rows: list[_Row] = getattr(self.suites[s], kind)
            by_key = {r.key: r for r in rows}
            first = [by_key[k] for k in caught_at if k in by_key]
            first += [by_key[k] for k in self.hot[kind] if k in by_key and k not in caught_at]
            firsts = {r.key for r in first}
            queue = first + [r for r in rows if r.key not in firsts]
            chunk = FIRST_CHUNK
            position = 0
            caught = False
            # Timeouts are counted per suite: rows of one suite (large inputs) may make the item
            # run out of steps where another suite's rows do not.
            timeouts = asked = 0
            abandoned = False
            while position < len(queue) and not caught:
                batch = queue[position : position + chunk]
                position += len(batch)
                chunk = min(chunk * 2, LARGEST_CHUNK)
                if abandoned:
                    # answers already known (from another suite's rows) still count
                    batch = [r for r in batch if r.key in answers]
                else:
                    # Only rows whose check the ground truth passes can catch anything.
                    self.truth_of(kind, batch)
                batch = [r for r in batch if self.truth_passes(kind, r)]
                ask = [r for r in batch if r.key not in answers]
                if ask:
                    got = self.run(variant, [_check(kind, r) for r in ask])
                    result.evaluations += len(ask)
                    asked += len(ask)
                    for row, answer in zip(ask, got, strict=True):
                        timeouts += answer.reason == UnknownReason.TIMEOUT
                        if kind == "code":
                            answers[row.key] = answer.value if answer.status == "value" else None
                        else:
                            answers[row.key] = answer.status
                for row in batch:
                    if self.fails(kind, row, answers[row.key]):
                        caught = True
                        result.caught_by.append(s)
                        result.caught_with[s] = row.key
                        if row.key not in caught_at:
                            caught_at.append(row.key)
                        if row.key not in self.hot_set[kind]:
                            self.hot_set[kind].add(row.key)
                            self.hot[kind].insert(0, row.key)
                        break
                if not abandoned and timeouts >= ABANDON_AFTER_TIMEOUTS and 2 * timeouts > asked:
                    # Mostly out of steps on this suite's rows (a mutant that no longer terminates):
                    # so would the rest be.
                    abandoned = result.abandoned = True
        result.caught_by.sort()
        if result.caught_by:
            result.status = "counted"
        return result


def evaluate_task(
    suites: Sequence[Task],
    items: Sequence[PowerItem],
    backend: Backend,
    *,
    seconds: float | None = None,
    steps: int | None = None,
    on_item: Callable[[ItemResult], None] | None = None,
) -> TaskPower:
    """Evaluate every item against every suite's copy of one task; ``suites[0]`` is the ground
    truth. Items left once the task has spent ``steps`` engine steps (for an engine that counts
    them) or ``seconds`` of wall clock are ``undetermined``."""
    backend.start_unit()
    started = time.monotonic()
    power = TaskPower(task=suites[0].id)
    try:
        checks = [suite_checks(t) for t in suites]
    except TypedTaskError as exc:
        power.error = exc.reason
        return power
    power.checks = [c.size for c in checks]
    power.parts = [c.parts for c in checks]
    deadline = started + seconds if seconds is not None else float("inf")
    evaluator = _TaskEvaluator(suites[0], checks, backend, deadline, steps)
    for item in items:
        if power.out_of_time:
            result = ItemResult(id=item.id, kind=item.kind, family=item.family, status="undetermined")
        else:
            try:
                result = evaluator.item(item)
            except _Deadline:
                power.out_of_time = True
                result = ItemResult(id=item.id, kind=item.kind, family=item.family, status="undetermined")
        power.items.append(result)
        if on_item is not None:
            on_item(result)
    power.seconds = round(time.monotonic() - started, 3)
    power.steps = evaluator.steps
    return power
