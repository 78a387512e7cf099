"""Which suites catch which flawed specification or mutant, for one task, lazily.

Every suite's checks are the Verina checks a submission would face:

* precondition: true on every test input (label ``True``), false on every reject input (``False``);
* postcondition: true on (input, expected) (``True``), false on (input, unexpected) (``False``);
* code: the output equals the expected output (typed values, ``printing.same_as_printed``).

A flawed specification is *caught* by a suite when it fails one of the suite's checks that the
ground truth passes (both decided): it rejects a test input or accepts a reject input, rejects an
expected output or accepts an unexpected one. A mutant is *killed* when its output differs from
a test's expected output that the reference implementation reproduces. Requiring the ground
truth to pass the check keeps defective stored rows (an "unexpected" output the ground truth
accepts, a truncated expected value) from counting as catches: such a row fails every
submission, right or wrong. Unknown answers never catch.

An item *counts* when it is told apart from the ground truth on the task's judging pool
(:mod:`.pool`: inputs generated for power alone, independently of every suite compared): its
decided verdict or output differs from the ground truth's on some pool row. Only counted items are
put to the suites, so every suite, alone or in company, has the same denominator.

Evaluation is lazy: an item stops being evaluated as soon as a row tells it apart; rows that told
earlier items of the task apart are tried first. Against a suite, each row reached is first checked
against the ground truth, and the item is asked only about rows whose check the ground truth
passes. An item that keeps timing out (a mutant that no longer terminates) is abandoned, counting
steps, so deterministically. The pool phase and each suite's phase run in a fresh engine unit with
their own step budget, so a suite's catches do not depend on which other suites are compared.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.lean.codec import render_value
from veriscale.lean.printing import same_as_printed
from veriscale.lean.safety import screen_sections
from veriscale.stages.power.cache import PhaseCache, pool_key, suite_key
from veriscale.stages.power.items import PowerItem
from veriscale.stages.power.pool import (
    DEFAULT_POOL_SEED,
    DEFAULT_POOL_SIZE,
    CheckRow,
    JudgingPool,
    RowsByKind,
    input_key,
    mutated_inputs,
    near_outputs,
    output_key,
    pool_inputs,
)
from veriscale.task import Task
from veriscale.typed_task import TypedTaskError, typed_view

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
    order: int = 0
    """Mutants: 1 or 2 edits; 0 for flawed specifications."""
    status: ItemStatus
    """``counted``: told apart from the ground truth on the judging pool; ``equivalent``: not
    (no decided difference on any pool row); ``undetermined``: the pool phase's budget ran out
    first; ``unsafe``: refused by the safety screen (never run)."""
    pool_witness: str | None = None
    """The pool row that told it apart (canonical key)."""
    undetermined_for: list[int] = []
    """Suites whose budget ran out before this (counted) item was decided: not caught by them."""
    caught_by: list[int] = []
    """Positions of the suites that catch it."""
    caught_with: dict[int, str] = {}
    """Per catching suite, the canonical key of the row that caught it (the first one found)."""
    evaluations: int = 0
    abandoned: bool = False
    """It kept timing out on the pool and was not run further (deterministic: timeouts count steps)."""


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
    """A suite's budget ran out: the items left are ``undetermined_for`` it (not caught)."""
    pool_out_of_time: bool = False
    """The pool phase's budget ran out: the items left are ``undetermined``."""
    pool_inputs: int = 0
    pool_rows: dict[str, int] = {}
    """Pool rows per check kind with a decided ground-truth answer."""
    phase_steps: list[int] = []
    """Engine steps of the pool phase, then of each suite's phase (where the work goes)."""


@dataclass
class SuiteChecks(RowsByKind):
    """The rows of one suite's stored tests; their labels are the suite's stored answers."""

    size: int = 0
    parts: tuple[int, int, int] = (0, 0, 0)


def suite_checks(task: Task) -> SuiteChecks:
    """The typed checks of one suite's copy of a task (rows whose values do not parse are left
    out; a row repeated within the suite is kept once)."""
    view = typed_view(task)
    parts = (len(task.tests), sum(len(t.unexpected) for t in task.tests), len(task.reject_inputs))
    out = SuiteChecks(size=sum(parts), parts=parts)
    seen: set[tuple[str, str]] = set()

    def add(kind: str, row: CheckRow) -> None:
        if (kind, row.key) in seen:
            return
        seen.add((kind, row.key))
        out.rows(kind).append(row)

    def output_key(value: Any) -> str:
        return render_value(value, view.return_type, view.structs)

    for test in view.tests:
        if test.args is None or test.key is None:
            continue
        add("precond", CheckRow(test.key, test.args, label=True))
        if test.expected_ok:
            add("code", CheckRow(test.key, test.args, label=test.expected))
            add("postcond", CheckRow(f"{test.key}\n=> {output_key(test.expected)}", test.args, test.expected, True))
        for _, value in test.unexpected:
            add("postcond", CheckRow(f"{test.key}\n=> {output_key(value)}", test.args, value, False))
    for reject in view.rejects:
        if reject.args is None or reject.key is None:
            continue
        add("precond", CheckRow(reject.key, reject.args, label=False))
    return out


_KIND = {"precond": CheckKind.PRECOND, "postcond": CheckKind.POSTCOND, "code": CheckKind.CODE}


def _check(kind: str, row: CheckRow) -> Check:
    return Check(kind=_KIND[kind], args=row.args, output=row.output if kind == "postcond" else None)


class _Deadline(Exception):
    pass


class _Runner:
    """The engine, with one phase's budget: steps (deterministic) and a wall-clock backstop."""

    def __init__(self, backend: Backend, seconds: float | None, step_budget: int | None) -> None:
        backend.start_unit()  # a fresh unit: no tallies carried over from another phase
        self.backend = backend
        self.deadline = time.monotonic() + seconds if seconds is not None else float("inf")
        self.step_budget = step_budget
        self.steps: int | None = None  # stays None while no answer reports steps
        self.clock_ran_out = False
        """The wall-clock backstop, not the step budget, ended the phase (a machine-dependent end)."""

    def run(self, task: Task, checks: list[Check]) -> list[Answer]:
        # Looked at between batches only.
        if self.steps is not None and self.step_budget is not None and self.steps > self.step_budget:
            raise _Deadline
        if time.monotonic() > self.deadline:
            self.clock_ran_out = True
            raise _Deadline
        answers = self.backend.run(task, checks)
        counted = [a.steps for a in answers if a.steps is not None]
        if counted:
            self.steps = (self.steps or 0) + sum(counted)
        return answers


def _answer_of(kind: str, answer: Answer) -> Any:
    if kind == "code":
        return ("value", answer.value) if answer.status == "value" else None
    return answer.status


def _differs(kind: str, answer: Any, label: Any) -> bool:
    """The item's answer is decided and fails the check whose ground-truth answer is ``label``."""
    if kind == "code":
        return answer is not None and not same_as_printed(answer[1], label)
    if answer not in ("true", "false"):
        return False
    return (answer == "true") != bool(label)


class _Judge:
    """Finds, lazily, a row on which an item's decided answer differs from the ground truth's."""

    def __init__(self, truth: Task, runner: _Runner) -> None:
        self.truth = truth
        self.runner = runner
        self.truth_answers: dict[tuple[str, str], Any] = {}
        # rows that told earlier items apart are tried first (they often tell the next one too)
        self.hot: dict[str, list[str]] = {"precond": [], "postcond": [], "code": []}

    def truth_of(self, kind: str, rows: Sequence[CheckRow]) -> None:
        missing = [r for r in rows if (kind, r.key) not in self.truth_answers]
        if missing:
            answers = self.runner.run(self.truth, [_check(kind, r) for r in missing])
            for row, answer in zip(missing, answers, strict=True):
                self.truth_answers[(kind, row.key)] = _answer_of(kind, answer)

    def truth_passes(self, kind: str, row: CheckRow) -> bool:
        answer = self.truth_answers.get((kind, row.key))
        if kind == "code":
            return answer is not None and same_as_printed(answer[1], row.label)
        return answer == ("true" if row.label else "false")

    def witness(self, item: PowerItem, rows: Sequence[CheckRow], *, check_truth: bool) -> tuple[str | None, int, bool]:
        """(key of the first row telling the item apart, or None; evaluations; abandoned).

        ``check_truth``: keep only rows whose check the ground truth passes (a suite's stored
        rows); the pool's rows carry the ground truth's own answers as labels.
        """
        kind = item.kind
        variant = self.truth.with_sections(**item.sections)
        by_key = {r.key: r for r in rows}
        first = [by_key[k] for k in self.hot[kind] if k in by_key]
        firsts = {r.key for r in first}
        queue = first + [r for r in rows if r.key not in firsts]
        chunk, position, evaluations, timeouts = FIRST_CHUNK, 0, 0, 0
        while position < len(queue):
            batch = queue[position : position + chunk]
            position += len(batch)
            chunk = min(chunk * 2, LARGEST_CHUNK)
            if check_truth:
                self.truth_of(kind, batch)
                batch = [r for r in batch if self.truth_passes(kind, r)]
            if not batch:
                continue
            got = self.runner.run(variant, [_check(kind, r) for r in batch])
            evaluations += len(batch)
            for row, answer in zip(batch, got, strict=True):
                timeouts += answer.reason == UnknownReason.TIMEOUT
                if _differs(kind, _answer_of(kind, answer), row.label):
                    if row.key not in self.hot[kind]:
                        self.hot[kind].insert(0, row.key)
                    return row.key, evaluations, False
            if timeouts >= ABANDON_AFTER_TIMEOUTS and 2 * timeouts > evaluations:
                # Mostly out of steps (a mutant that no longer terminates): so would the rest be.
                return None, evaluations, True
        return None, evaluations, False


def build_pool(truth: Task, runner: _Runner, *, seed: int, size: int) -> JudgingPool:
    """The judging pool of one task, every row answered by the ground truth (see :mod:`.pool`)."""
    judge = _Judge(truth, runner)
    pool = JudgingPool()

    def precond_rows(inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows = [CheckRow(input_key(truth, r), r) for r in inputs]
        judge.truth_of("precond", rows)
        accepted = []
        for row, args in zip(rows, inputs, strict=True):
            answer = judge.truth_answers[("precond", row.key)]
            if answer in ("true", "false"):
                pool.precond.append(CheckRow(row.key, args, label=answer == "true"))
            if answer == "true":
                accepted.append(args)
        return accepted

    synthesised = pool_inputs(truth, seed=seed, size=size)
    accepted = precond_rows(synthesised)
    more = mutated_inputs(truth, accepted, synthesised, seed=seed, size=size - len(synthesised))
    accepted += precond_rows(more)
    pool.inputs = len(synthesised) + len(more)
    code_rows = [CheckRow(input_key(truth, r), r) for r in accepted]
    judge.truth_of("code", code_rows)
    pairs: list[CheckRow] = []
    for row in code_rows:
        answer = judge.truth_answers[("code", row.key)]
        if answer is None:
            continue
        value = answer[1]
        pool.code.append(CheckRow(row.key, row.args, label=value))
        for output in [value, *near_outputs(truth, value, seed=seed)]:
            pairs.append(CheckRow(f"{row.key}\n=> {output_key(truth, output)}", row.args, output))
    judge.truth_of("postcond", pairs)
    for row in pairs:
        answer = judge.truth_answers[("postcond", row.key)]
        if answer in ("true", "false"):
            pool.postcond.append(CheckRow(row.key, row.args, row.output, label=answer == "true"))
    return pool


def _undetermined(item: PowerItem) -> ItemResult:
    return ItemResult(id=item.id, kind=item.kind, family=item.family, order=item.order, status="undetermined")


@dataclass
class _PoolPhase:
    """What the pool phase found: every item's status, and the pool's size."""

    results: list[ItemResult]
    inputs: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    out_of_time: bool = False
    steps: int = 0


@dataclass
class _SuitePhase:
    """What one suite's phase found, per counted item (in order): the catching row or ``None``,
    the evaluations, and whether the budget ran out before the item was reached."""

    witnesses: list[str | None]
    evaluations: list[int]
    undetermined: list[bool]
    out_of_time: bool = False
    steps: int = 0


def _pool_phase(
    truth: Task, items: Sequence[PowerItem], backend: Backend, *, seconds: float | None, steps: int | None,
    pool_seed: int, pool_size: int,
) -> tuple[_PoolPhase, bool]:
    """The pool phase, and whether it ended on its own or on its step budget (not the clock)."""
    runner = _Runner(backend, seconds, steps)
    phase = _PoolPhase(results=[])
    pool: JudgingPool | None = None
    try:
        pool = build_pool(truth, runner, seed=pool_seed, size=pool_size)
        phase.inputs = pool.inputs
        phase.rows = {k: len(pool.rows(k)) for k in ("precond", "postcond", "code")}
        judge = _Judge(truth, runner)
    except _Deadline:
        phase.out_of_time = True
    for item in items:
        if pool is None or phase.out_of_time:
            phase.results.append(_undetermined(item))
            continue
        result = ItemResult(id=item.id, kind=item.kind, family=item.family, order=item.order, status="equivalent")
        if item.kind == "code" and not screen_sections(item.sections, origin=item.id).ok:
            result.status = "unsafe"
        else:
            try:
                witness, evaluations, abandoned = judge.witness(item, pool.rows(item.kind), check_truth=False)
            except _Deadline:
                phase.out_of_time = True
                phase.results.append(_undetermined(item))
                continue
            result.evaluations += evaluations
            result.abandoned = abandoned
            if witness is not None:
                result.status, result.pool_witness = "counted", witness
        phase.results.append(result)
    phase.steps = runner.steps or 0
    return phase, not runner.clock_ran_out


def _suite_phase(
    truth: Task, counted: Sequence[PowerItem], rows: SuiteChecks, backend: Backend, *, seconds: float | None,
    steps: int | None,
) -> tuple[_SuitePhase, bool]:
    """One suite's phase, and whether it ended on its own or on its step budget (not the clock)."""
    runner = _Runner(backend, seconds, steps)
    judge = _Judge(truth, runner)
    n = len(counted)
    phase = _SuitePhase(witnesses=[None] * n, evaluations=[0] * n, undetermined=[False] * n)
    for position, item in enumerate(counted):
        try:
            witness, evaluations, _ = judge.witness(item, rows.rows(item.kind), check_truth=True)
        except _Deadline:
            phase.out_of_time = True
            phase.undetermined[position:] = [True] * (n - position)
            break
        phase.evaluations[position] = evaluations
        phase.witnesses[position] = witness
    phase.steps = runner.steps or 0
    return phase, not runner.clock_ran_out


def evaluate_task(
    suites: Sequence[Task],
    items: Sequence[PowerItem],
    backend: Backend,
    *,
    seconds: float | None = None,
    steps: int | None = None,
    pool_seed: int = DEFAULT_POOL_SEED,
    pool_size: int = DEFAULT_POOL_SIZE,
    pool_steps: int | None = None,
    on_item: Callable[[ItemResult], None] | None = None,
    cache: PhaseCache | None = None,
) -> TaskPower:
    """Judge every item on the task's pool, then ask each suite about the items that count.

    ``suites[0]`` is the ground truth (its task text; the pool and the items come from it alone).
    Phases are independent of each other: the pool phase and each suite's phase get a fresh engine
    unit and their own budget (``pool_steps``, default ``steps``; ``steps`` per suite; ``seconds``
    of wall clock each), so a suite's result is the same alone and in company. With ``cache``,
    phases stored there are read instead of run, and phases run are stored (:mod:`.cache`).
    """
    started = time.monotonic()
    power = TaskPower(task=suites[0].id)
    try:
        checks = [suite_checks(t) for t in suites]
    except TypedTaskError as exc:
        power.error = exc.reason
        return power
    power.checks = [c.size for c in checks]
    power.parts = [c.parts for c in checks]
    truth = suites[0]
    engine = backend.name

    # Phase 1: the pool decides which items count (not equivalent to the ground truth).
    budget = pool_steps if pool_steps is not None else steps
    key = pool_key(engine, truth, items, pool_seed=pool_seed, pool_size=pool_size, steps=budget)
    stored = cache.get(truth.id, "pool", key) if cache is not None else None
    if stored is not None:
        pool_phase = _PoolPhase(results=[ItemResult.model_validate(r) for r in stored["results"]],
                                inputs=stored["inputs"], rows=stored["rows"], out_of_time=stored["out_of_time"],
                                steps=stored["steps"])
    else:
        pool_phase, deterministic = _pool_phase(truth, items, backend, seconds=seconds, steps=budget,
                                                pool_seed=pool_seed, pool_size=pool_size)
        if cache is not None and deterministic:
            cache.put(truth.id, "pool", key, {
                "results": [r.model_dump(mode="json") for r in pool_phase.results], "inputs": pool_phase.inputs,
                "rows": pool_phase.rows, "out_of_time": pool_phase.out_of_time, "steps": pool_phase.steps})
    results = pool_phase.results
    power.pool_inputs, power.pool_rows, power.pool_out_of_time = pool_phase.inputs, pool_phase.rows, pool_phase.out_of_time
    power.phase_steps = [pool_phase.steps]

    # Phase 2: each suite on its own, on the counted items only.
    counted = [(item, r) for item, r in zip(items, results, strict=True) if r.status == "counted"]
    counted_items = [item for item, _ in counted]
    for s, suite_rows in enumerate(checks):
        key = suite_key(engine, truth, counted_items, suites[s], steps=steps)
        stored = cache.get(truth.id, "suite", key) if cache is not None else None
        if stored is not None:
            phase = _SuitePhase(witnesses=stored["witnesses"], evaluations=stored["evaluations"],
                                undetermined=stored["undetermined"], out_of_time=stored["out_of_time"],
                                steps=stored["steps"])
        else:
            phase, deterministic = _suite_phase(truth, counted_items, suite_rows, backend, seconds=seconds, steps=steps)
            if cache is not None and deterministic:
                cache.put(truth.id, "suite", key, asdict(phase))
        power.out_of_time = power.out_of_time or phase.out_of_time
        for (_, result), witness, evaluations, undetermined in zip(
            counted, phase.witnesses, phase.evaluations, phase.undetermined, strict=True
        ):
            if undetermined:
                result.undetermined_for.append(s)
                continue
            result.evaluations += evaluations
            if witness is not None:
                result.caught_by.append(s)
                result.caught_with[s] = witness
        power.phase_steps.append(phase.steps)
    for result in results:
        if on_item is not None:
            on_item(result)
    power.items = results
    power.seconds = round(time.monotonic() - started, 3)
    power.steps = sum(power.phase_steps) or None
    return power
