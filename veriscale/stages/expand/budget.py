"""A task's budget, looked at between batches of checks (never inside one), and the size of those
batches.

Two runs with the same seed must write the same suite, so the budget is counted in the engine's
own deterministic unit whenever the engine has one: the embedded engine reports the evaluation
steps of every check (``Answer.steps``), and the task's budget is then a number of steps (the sum
over all of its checks); batch sizes are a function of the steps seen. Neither depends on the
machine or its load.

An engine that only knows wall-clock time (real Lean: ``steps`` is ``None``) gets a wall-clock
budget instead (``seconds``); its output can depend on the machine's speed and load.

With a step-counting engine a wall-clock *backstop* stays in force, far above what the step budget
takes on an idle machine, against pathological cases (work that is not counted in steps, such as
parsing and screening, or a machine overloaded many times over). It is the one remaining source
of non-determinism here, and a task where it fired says so (``budget_hit == "backstop"``). The
engine's own per-check wall-clock backstop (for work its steps do not see) is the other one of
the whole run; the checks it stopped are counted (``engine_backstops``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from veriscale.backends.base import stopped_by_a_clock

if TYPE_CHECKING:
    from veriscale.backends.base import Answer, Backend, Check
    from veriscale.task import Task

__all__ = [
    "BATCH_TARGET_STEPS",
    "CHECK_CHARGE_STEPS",
    "DEFAULT_BACKSTOP_S",
    "DEFAULT_TASK_STEPS",
    "STEPS_PER_SECOND",
    "BatchCost",
    "BudgetKind",
    "ChunkSizer",
    "TaskBudget",
]

STEPS_PER_SECOND = 100_000
"""Calibration: steps per second of a whole ``expand`` task on an idle machine (the embedded
engine; everything a task does counted in the seconds, not only evaluation), used only to turn the
historical wall-clock defaults into step defaults. Measured as steps per CPU second of whole
step-bound Verina tasks (CPU time, since the machine was shared): 89,000 (verina_advanced_43),
95,000 (verina_advanced_9), 250,000 (verina_advanced_2, whose steps are cheaper); single
step-dominated checks run 85,000-440,000 steps per CPU second. The low end is taken, so that the
slowest-stepping tasks stay near the former 120 s. ``benchmarks/expand_verina.py`` prints the
figure of a run."""

CHECK_CHARGE_STEPS = 25
"""Steps charged per check on top of the steps the engine reports: the work around a check that
the engine does not count (building the call, converting, comparing and storing values). Measured
at 170-540 us of CPU per check (light tasks of ~6,000 checks take ~1 CPU s; a least-squares fit
over seven Verina tasks gave 544 us on a heavily shared machine), i.e. 17-54 steps at
``STEPS_PER_SECOND``. A constant, so the budget stays deterministic; it matters only for tasks of
many cheap checks."""

DEFAULT_TASK_STEPS = 120 * STEPS_PER_SECOND
"""The default per-task step budget (12 million): what the former 120 s wall-clock budget allowed
on an idle machine."""

BATCH_TARGET_STEPS = 1 * STEPS_PER_SECOND
"""Batches are sized to cost about this many steps (about a second's work)."""

DEFAULT_BACKSTOP_S = 900.0
"""The default wall-clock backstop of a task: 7.5 times the nominal 120 s, so that it fires only
on a machine overloaded several times over or on work the steps do not see."""

BudgetKind = Literal["steps", "seconds", "backstop"]
"""Which budget stopped a task: ``steps`` (deterministic), ``seconds`` (the wall-clock budget of
an engine without steps), ``backstop`` (the wall-clock safety net of a step-counting engine)."""


@dataclass(frozen=True)
class BatchCost:
    """What one batch of checks cost: ``steps`` is ``None`` when no answer reported steps."""

    checks: int
    steps: int | None
    seconds: float

    def __add__(self, other: BatchCost) -> BatchCost:
        if self.steps is None and other.steps is None:
            steps = None
        else:
            steps = (self.steps or 0) + (other.steps or 0)
        return BatchCost(self.checks + other.checks, steps, self.seconds + other.seconds)


def batch_steps(answers: Sequence[Answer]) -> int | None:
    """The steps of a batch: the sum over the answers that report steps (``None``: none does)."""
    counted = [a.steps for a in answers if a.steps is not None]
    return sum(counted) if counted else None


class TaskBudget:
    """``check(f)``: more than the fraction ``f`` of the task's budget has gone (remembered in
    ``hit``, which budget in ``hit_kind``).

    The budget that applies is chosen by the engine's answers: once any answer of the task
    reported steps, the step budget (and the backstop); while none did, the wall-clock budget
    ``seconds`` (and the backstop). Before the engine has answered anything only the backstop
    applies: the budget is measured in the engine's unit, which its answers reveal. Every limit is
    optional (``None``: no such limit).
    """

    def __init__(
        self,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        backstop_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.step_budget = steps
        self.seconds_budget = seconds
        self.backstop_s = backstop_s
        self._clock = clock
        self.started = clock()
        self.steps = 0
        """Steps reported by the engine for this task's checks so far."""
        self.checks = 0
        """Checks answered by the engine so far."""
        self.engine_backstops = 0
        """Checks the engine itself stopped by a wall-clock limit while counting steps (its
        backstop for work its steps do not see): like this budget's backstop, load-dependent."""
        self.batches = 0
        self.counts_steps = False
        """Some answer of this task reported steps: the step budget applies."""
        self.answered = False
        """The engine has answered a check of this task (its unit is known)."""
        self.hit = False
        """Set once a stage found the budget spent and skipped work."""
        self.hit_kind: BudgetKind | None = None
        """The budget that was found spent first."""
        self.last_batch = BatchCost(0, None, 0.0)

    @property
    def charged(self) -> int:
        """What the step budget is compared with: the engine's steps plus ``CHECK_CHARGE_STEPS``
        per check."""
        return self.steps + CHECK_CHARGE_STEPS * self.checks

    def elapsed(self) -> float:
        return self._clock() - self.started

    def spent(self, fraction: float = 1.0) -> BudgetKind | None:
        """Which budget has more than ``fraction`` of it gone, if any (the deterministic one first)."""
        if self.counts_steps:
            if self.step_budget is not None and self.charged > self.step_budget * fraction:
                return "steps"
        elif self.answered and self.seconds_budget is not None:
            if self.elapsed() > self.seconds_budget * fraction:
                return "seconds"
        if self.backstop_s is not None and self.elapsed() > self.backstop_s * fraction:
            return "backstop"
        return None

    def check(self, fraction: float = 1.0) -> bool:
        """Whether ``fraction`` of the budget is spent, remembering that work was skipped when it is."""
        kind = self.spent(fraction)
        if kind is None:
            return False
        self.hit = True
        if self.hit_kind is None:
            self.hit_kind = kind
        return True

    def record(self, answers: Sequence[Answer], seconds: float = 0.0) -> BatchCost:
        """Charge a batch's answers to the budget; returns (and keeps in ``last_batch``) its cost."""
        steps = batch_steps(answers)
        if answers:
            self.answered = True
            self.batches += 1
            self.checks += len(answers)
        if steps is not None:
            self.counts_steps = True
            self.steps += steps
            self.engine_backstops += sum(stopped_by_a_clock(a) for a in answers if a.steps is not None)
        self.last_batch = BatchCost(len(answers), steps, seconds)
        return self.last_batch

    def run(self, backend: Backend, task: Task, checks: Sequence[Check]) -> list[Answer]:
        """``backend.run(task, checks)``, charged to the budget (``last_batch`` is its cost)."""
        if not checks:
            self.last_batch = BatchCost(0, None, 0.0)
            return []
        began = time.monotonic()
        answers = backend.run(task, checks)
        self.record(answers, time.monotonic() - began)
        return answers


class ChunkSizer:
    """How many checks to send in the next batch, so that the budget is looked at often enough.

    Checks of one task cost wildly different amounts (a postcondition that enumerates
    subsequences takes a few steps on three elements and millions on twenty), and callers order
    their checks from cheap to expensive, so the next batch is sized from the last one's cost per
    check to cost about ``target_steps`` -- or, for an engine that does not count steps, to take
    about ``target_s`` -- growing at most twofold per batch and staying within ``low``..``high``.
    Sized from steps, the sequence of batches is the same on every machine and load, which is what
    makes the budget (looked at between batches) deterministic. ``low`` is not 1: the backend
    gives up sooner on a check kind after a few time-outs in a row *within a batch*, which
    single-check batches would defeat.
    """

    def __init__(
        self,
        start: int = 16,
        *,
        low: int = 8,
        high: int = 128,
        target_steps: int = BATCH_TARGET_STEPS,
        target_s: float = 1.0,
    ) -> None:
        self.high = max(1, high)
        self.low = max(1, min(low, self.high))
        self.size = max(self.low, min(start, self.high))
        self.target_steps = target_steps
        self.target_s = target_s

    def record(self, cost: BatchCost) -> None:
        if cost.checks <= 0:
            return
        if cost.steps is not None:
            # Integer arithmetic: the same sizes on every platform.
            charged = cost.steps + CHECK_CHARGE_STEPS * cost.checks
            ideal = self.target_steps * cost.checks // charged if charged > 0 else self.high
        else:
            per_check = cost.seconds / cost.checks
            ideal = int(self.target_s / per_check) if per_check > 0 else self.high
        self.size = max(self.low, min(self.high, 2 * self.size, ideal))
