"""The embedded engine: answers checks by evaluating the task's Lean definitions in Python.

Each batch runs in one worker thread with a large stack and a raised recursion limit, so deep
(but legitimate) recursion in Lean code does not overflow the interpreter; a ``RecursionError``
or ``MemoryError`` becomes ``unknown(timeout)``, never an exception out of :meth:`run`. A check
may nest :data:`CHECK_FRAMES` Python frames, counted from the frame that calls its definition
(:func:`_pin_frames`), so a recursion too deep stops at the same step on every path.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from collections.abc import Callable, Sequence
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from veriscale.backends.base import (
    Answer,
    AnswerStatus,
    Backend,
    Check,
    CheckKind,
    SourceDiagnostic,
    UnknownReason,
)
from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded import reading
from veriscale.backends.embedded.binders import explicit_params, is_proof_binder
from veriscale.backends.embedded.compiler import Compiler, DefCtx, Scope, _needs_int
from veriscale.backends.embedded.compiler.representation import result_in_int_repr
from veriscale.backends.embedded.env import UserDef
from veriscale.backends.embedded.program import Program
from veriscale.backends.embedded.runtime_support import _CLOCK_NOT_READ, Budget, LeanSubarray
from veriscale.backends.embedded.statics import coerce_value
from veriscale.lean.codec import LeanSource
from veriscale.lean.types import NamedType, ProdType
from veriscale.lean.values import (
    Arr,
    BudgetExceeded,
    Char,
    LeanPanic,
    LeanRuntimeError,
    Nat,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Undecidable,
    Unsupported,
    value_size,
)

if TYPE_CHECKING:
    from veriscale.task import Task

ENGINE = "embedded"
STACK_SIZE = 512 * 1024 * 1024
RECURSION_LIMIT = 150_000  # Lean recursion 20,000 deep fits; deeper risks the C stack
#: Python frames a check may use above the frame that calls its definition, whichever path
#: evaluates it (see _pin_frames): where "recursion too deep" stops a recursion, at a step count,
#: is then the same on every path
CHECK_FRAMES = RECURSION_LIMIT


#: Steps a check may take. Calibrated on the checks of VerinaPlus that ran into the former
#: 3-second limit, in steps per CPU second: 250,000-440,000 for step-dominated code (recursion,
#: loops), 80,000-150,000 where each step also runs builtins over long lists, down to 16,000 where
#: a step scans a list of lists. Half a million steps is about 3 s at the median of those tasks
#: (1.2-2 s for the fastest, longer for the slowest, which the backstop bounds).
DEFAULT_MAX_STEPS = 500_000
#: Safety net per check, in CPU seconds of the evaluating thread (a loaded machine does not make
#: it fire), for work the step count does not see (a builtin doing a lot of C-level work per
#: step). Far above what a step-bound check takes, so it only ends pathologies.
DEFAULT_BACKSTOP_SECONDS = 30.0
#: Steps one task's checks may spend in total (over every batch this backend is given for the same
#: task text) before each further check is held to ``OVER_BUDGET_MAX_STEPS``. A few VerinaPlus
#: tasks have thousands of checks that each take hundreds of thousands of steps (an O(n^3)
#: postcondition on n = 100, digit sums over `List.range n`); without a per-task cap they alone
#: take most of a suite's time. Small inputs still get answered past the cap.
DEFAULT_TASK_STEP_BUDGET = 10_000_000
OVER_BUDGET_MAX_STEPS = 5_000


def _input_size(check: Check) -> int:
    return sum(map(value_size, check.args.values()))


_args_of = attrgetter("args")
_second = itemgetter(1)
_third = itemgetter(2)


#: input sizes kept per check object, at most this many (see EmbeddedBackend._sizes)
_SIZE_CACHE_LIMIT = 1 << 13  # the dicts are kept alive while cached: a bound on memory too



def _shared_value_answer(cache: dict[Any, Answer], key: Any, value: Any, steps: int) -> Answer:
    """The answer of ``value`` after ``steps`` steps, made once per ``key`` of ``cache`` (an
    ``Answer`` is frozen, so equal answers may be one object); the cache is bounded. The loop of
    ``_code_run`` looks the answer up inline and calls this on a miss."""
    answer = cache.get(key)
    if answer is None:
        if len(cache) > _ANSWER_CACHE_LIMIT:
            cache.clear()
        answer = cache[key] = _trusted("value", ENGINE, value, None, "", steps)
    return answer


class EmbeddedBackend(Backend):
    """Evaluates checks in Python; every answer carries the steps it took (``Answer.steps``).

    The limits are counted in steps, so for one task and one list of checks the answers are the
    same on every run and machine; only the backstop (``timeout``, CPU seconds) can differ, and it
    is set far above any step-bound check."""

    name = ENGINE

    def __init__(
        self,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        timeout: float = DEFAULT_BACKSTOP_SECONDS,
        timeout_streak: int = 3,
        short_max_steps: int | None = None,
        batch_step_budget: int | None = None,
        batch_backstop_seconds: float = 30.0,
        task_step_budget: int | None = DEFAULT_TASK_STEP_BUDGET,
        over_budget_max_steps: int = OVER_BUDGET_MAX_STEPS,
    ) -> None:
        self.max_steps = max_steps
        self.timeout = timeout
        # A postcondition that enumerates 2^n subsequences runs out of steps on every large input
        # of a task; paying the full budget thousands of times would make a suite unusable. After
        # `timeout_streak` consecutive step-budget timeouts of one check kind, later checks of
        # that kind get `short_max_steps` (small inputs still finish); once the batch has spent
        # `batch_step_budget` steps on checks that ran out, later checks of kinds that ran out
        # are not run. All of it counts steps, never seconds, so it is deterministic. Either way
        # the answer is unknown(timeout), never a guess.
        self.timeout_streak = timeout_streak
        self.short_max_steps = short_max_steps if short_max_steps is not None else max(1, max_steps // 12)
        self.batch_step_budget = batch_step_budget if batch_step_budget is not None else 7 * max_steps
        # The CPU-time backstop gets its own (non-deterministic, pathological-only) batch cap.
        self.batch_backstop_seconds = batch_backstop_seconds
        self.task_step_budget = task_step_budget
        self.over_budget_max_steps = over_budget_max_steps
        #: steps a check may take in the given order, tried before the order by input size (see
        #: _run_batch): a check over it sends the batch to that order, so it bounds the work done twice
        self.optimistic_max_steps = min(self.short_max_steps, max_steps)
        # steps spent so far per task text (a submission's copy of a task is another text)
        self._task_steps: dict[tuple[str, int], int] = {}
        # the answers without a value, by (status, steps): see _truth_answer
        self._truth_answers: dict[tuple[str, int], Answer] = {}
        # the answers carrying a scalar value, by (type, value, steps): see _value_answer; those
        # carrying a Bool (what most tasks return), by steps in one table per value, a lookup
        # without a key to build
        self._value_answers: dict[tuple[type, Any, int], Answer] = {}
        self._bool_answers: tuple[dict[int, Answer], dict[int, Answer]] = ({}, {})
        # input sizes, and whether an argument is a function given as Lean text, by the identity
        # of the checks' argument dicts (each kept alongside, so its identity is not reused while
        # cached): the values are immutable and a dict of arguments is not changed once in a
        # check; the pipelines ask the precondition, the code and the postcondition of one input
        # with one dict, measured once
        self._sizes: dict[int, tuple[dict[str, Any], int, bool]] = {}
        # answer runs of consecutive code checks in one flat loop (_code_run); off, every check
        # takes the general path (the tests compare the two)
        self._code_runs = True

    def diagnose(self, task: Task) -> list[SourceDiagnostic] | None:
        """Elaborate the task file (:mod:`.elab`): Lean's errors and the engine's gaps."""
        try:
            report = Program.from_task(task).elaboration
        except Exception as exc:  # noqa: BLE001 - a failure of the elaborator is a gap, never a pass
            return [SourceDiagnostic(kind="gap", line=0, col=0, message=f"the elaborator failed: {exc}",
                                     rule="elaborator-failure")]
        return [SourceDiagnostic(kind=d.kind, line=d.line, col=d.col, message=d.message, rule=d.rule)
                for d in report.diagnostics]

    def reading_problems(self, original: Task, copy: Task) -> tuple[list[str], list[str]]:
        """Redeclarations Lean rejects and commands the parser skips (:mod:`.reading`)."""
        return reading.reading_problems(original, copy)

    def start_unit(self) -> None:
        self._task_steps.clear()

    def run(self, task: Any, checks: Sequence[Check]) -> list[Answer]:
        results: list[Answer] = []
        # the index of the check being evaluated (-1: none), for the watchdog below
        self._current = -1

        # The evaluating thread publishes its own CPU clock id: asking for another thread's id
        # (pthread_getcpuclockid on its handle) is undefined once that thread has ended, and the
        # batch may end at any moment; reading a clock id of an ended thread is a clean OSError.
        cpu_clock: list[int] = []

        def work() -> None:
            getter = getattr(time, "pthread_getcpuclockid", None)
            if getter is not None:
                try:
                    cpu_clock.append(getter(threading.get_ident()))
                except (OSError, ValueError, OverflowError):
                    pass
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(max(old, RECURSION_LIMIT))
            try:
                results.extend(self._run_batch(task, checks))
            finally:
                self._current = -1
                sys.setrecursionlimit(old)

        old_size = threading.stack_size()
        try:
            # The stack size applies to threads *started* while it is set.
            threading.stack_size(STACK_SIZE)
            thread = threading.Thread(target=work, name="embedded-eval", daemon=True)
            thread.start()
        finally:
            threading.stack_size(old_size)
        # Watchdog: steps are charged per function call and loop iteration, but one builtin call
        # can take arbitrarily long (a `contains` over a million lists); past the backstop the
        # check is interrupted from outside with an asynchronous BudgetExceeded. It reads the
        # evaluating thread's CPU clock, the clock the thread itself records starts with.
        # The evaluating thread only publishes the index of its check (reading its CPU clock per
        # check would cost as much as a small check): the watchdog takes a check's start as the
        # thread's CPU time when it first sees that index, at most one poll late.
        fired = -1
        seen, seen_at = -1, 0.0
        while thread.is_alive():
            thread.join(0.05)
            index = self._current
            if index < 0 or index == fired:
                continue
            now = _cpu_seconds(cpu_clock)
            if index != seen:
                seen, seen_at = index, now
            elif now - seen_at > self.timeout + 0.5:
                fired = index
                _interrupt(thread)
        if len(results) != len(checks):
            return [Answer.unknown(UnknownReason.ERROR, "evaluator thread failed", ENGINE) for _ in checks]
        return results

    # ------------------------------------------------------------------------------------
    def _run_batch(self, task: Any, checks: Sequence[Check]) -> list[Answer]:
        try:
            program = Program.from_task(task)
        except Exception as exc:  # noqa: BLE001 - a file we cannot parse answers unknown
            detail = f"cannot parse the task: {type(exc).__name__}: {exc}"
            return [Answer.unknown(UnknownReason.UNSUPPORTED, detail, ENGINE) for _ in checks]
        name = task.signature.name
        task_key = (str(getattr(task, "id", name)), hash(task.lean_text()))
        if len(self._task_steps) > 1024:
            # within one unit of work (see start_unit) the texts come in a fixed order, so where
            # this happens does not depend on the run
            self._task_steps.clear()
        task_spent = self._task_steps.get(task_key, 0)
        entries = _Entries(program, name)
        n = len(checks)
        task_budget = self.task_step_budget
        answered: tuple[list[Answer | None], int] | None = None
        if task_budget is None or task_spent < task_budget:
            # In the given order first, each check held to `optimistic_max_steps`, given up at
            # the first check that runs out of steps (or hits the backstop) or that brings the
            # task's steps to its budget. Had none done so, every policy below kept its initial
            # state throughout (no streak, no check over budget, nothing "not run"), and would
            # have kept it in any order, the partial sums of steps being below the whole; every
            # answer, and its steps, depends on its check alone (memo tables are per check,
            # hoisting replays exactly), so these are the answers of the order below, without
            # measuring a single input. Given up, the checks are answered afresh in that order:
            # at most the checks before the one given up are answered twice, each in at most
            # `optimistic_max_steps` steps.
            answered = self._answer_in_order(entries, checks, range(n), task_spent, True,
                                             self.optimistic_max_steps, 0)
        if answered is None:
            # Smallest inputs first (ties in the given order, so the checks of one input stay
            # together): the caps below then cost the large inputs that run out of steps, not
            # the small ones that would have finished after them. Answers go back to their places.
            order, sources_given = self._smallest_first(checks)
            # (its watchdog indices after the given order's, so that a check's clock restarts)
            answered = self._answer_in_order(entries, checks, order, task_spent, sources_given, None, n)
            assert answered is not None  # (given up only under a cap)
        out, task_spent = answered
        self._task_steps[task_key] = task_spent
        return list(filter(None, out))  # (every position is answered: an answer is a non-empty tuple)

    def _answer_in_order(self, entries: _Entries, checks: Sequence[Check], order: Sequence[int], task_spent: int,
                         sources_given: bool, cap: int | None, index_base: int,
                         ) -> tuple[list[Answer | None], int] | None:
        """Answer ``checks`` in ``order`` under the batch's policies, starting from the task's
        ``task_spent`` steps: the answers in their places and the task's steps after them. With a
        ``cap``, each check is held to at most ``cap`` steps, and ``None`` is returned (nothing
        kept) at the first check that runs out of steps or hits the backstop, or that brings the
        task's steps to its budget. ``index_base`` is added to the positions the watchdog sees."""
        budget = entries.program.compiler.budget
        task_budget = self.task_step_budget
        thread_time = time.thread_time
        out: list[Answer | None] = [None] * len(checks)
        streak: dict[CheckKind, int] = {}
        timed_out_kinds: set[CheckKind] = set()
        steps_on_timeouts = 0
        seconds_on_backstops = 0.0
        # read once: the loop below runs once per check, and a small check costs a few microseconds
        max_steps, timeout, answer_of, start = self.max_steps, self.timeout, self._answer, budget.start
        n = len(order)
        position = 0
        # the position a run of code checks stopped at without answering it (see _code_run): that
        # check takes the general path below
        declined = -1
        code_runs = self._code_runs
        while position < n:
            i = order[position]
            check = checks[i]
            kind = check.kind
            if timed_out_kinds and kind in timed_out_kinds and (
                steps_on_timeouts >= self.batch_step_budget or seconds_on_backstops >= self.batch_backstop_seconds
            ):
                out[i] = Answer(
                    status="unknown", reason=UnknownReason.TIMEOUT, engine=ENGINE, steps=0,
                    detail=(f"not run: this task's checks already spent {steps_on_timeouts} steps "
                            "on checks that ran out of steps"),
                )
                position += 1
                continue
            limit = self.short_max_steps if streak and streak.get(kind, 0) >= self.timeout_streak else max_steps
            over = task_budget is not None and task_spent >= task_budget
            if over:
                if cap is not None:
                    return None
                limit = min(limit, self.over_budget_max_steps)
            if cap is not None and cap < limit:
                limit = cap
            if (kind is _CODE and code_runs and position != declined and not streak.get(_CODE)
                    and entries.code in entries.plans and position + 1 < n and checks[order[position + 1]].kind is _CODE):
                # A run of code checks under the same policies (see _code_run; one alone, as the
                # pipelines interleave kinds, is not worth its set-up). Its limit holds for every
                # check it answers: no timeout streak of code checks to reset, and it ends at the
                # check that crosses the task's step budget.
                spend_until = task_budget if task_budget is not None and not over else _NEVER
                end, task_spent, raised = self._code_run(
                    entries.plans[entries.code], checks, order, position, out, limit, spend_until, task_spent, budget,
                    sources_given, index_base)
                if raised is None:
                    # the run answered every check before `end`; the one at `end`, if any, takes
                    # the general path once (the run stops at checks it does not start, and after
                    # the check that crosses the task's step budget)
                    position = declined = end
                    continue
                # the check at `end` raised: its answer is `raised`, kept as the general path keeps it
                position, i, answer = end, order[end], raised
            else:
                try:
                    self._current = index_base + position
                    start(limit, timeout)  # the CPU clock is read at the first refill
                    answer = answer_of(entries, check, budget)
                    self._current = -1
                except BudgetExceeded:  # the watchdog's interrupt landed outside the check
                    self._current = -1
                    answer = Answer(
                        status="unknown", reason=UnknownReason.TIMEOUT, engine=ENGINE,
                        steps=budget.used(),
                        detail=f"backstop of {self.timeout:g} CPU seconds exceeded",
                    )
            position += 1
            task_spent += answer.steps or 0
            if answer.reason is None:
                if streak:
                    streak[kind] = 0
                out[i] = answer
                continue
            if over and answer.reason is _TIMEOUT and "step budget" in answer.detail:
                answer = Answer(
                    status="unknown", reason=UnknownReason.TIMEOUT, engine=ENGINE, steps=answer.steps,
                    detail=(f"step budget of {limit} steps exhausted (this task's checks already spent "
                            f"{self.task_step_budget} steps)"),
                )
            if answer.reason is _TIMEOUT:
                if cap is not None:
                    return None
                streak[kind] = streak.get(kind, 0) + 1
                timed_out_kinds.add(kind)
                steps_on_timeouts += answer.steps or 0
                if "backstop" in answer.detail:
                    started = budget.started_at()
                    # without a refill the watchdog fired, after more than `timeout` seconds
                    seconds_on_backstops += self.timeout if started is None else thread_time() - started
            else:
                streak[kind] = 0
            out[i] = answer
        if cap is not None and task_budget is not None and task_spent >= task_budget:
            return None
        return out, task_spent

    def _code_run(self, plan: _EntryPlan, checks: Sequence[Check], order: Sequence[int], position: int,
                  out: list[Answer | None], limit: int, spend_until: float, task_spent: int,
                  budget: Budget, sources_given: bool, index_base: int = 0) -> tuple[int, int, Answer | None]:
        """Answer the code checks at ``order[position:]`` while they come one after another, each
        under ``limit`` steps, what :meth:`_answer` and the loop of :meth:`_run_batch` would answer
        each (value, steps, the watchdog's index), at a fraction of the cost per check. A small
        check's evaluation costs about a microsecond, so the loop is kept flat.

        It stops before a check it leaves to the general path (another kind; arguments it cannot
        fetch or that hold a function given as Lean text, looked for only when ``sources_given``
        says some check of the batch has one), after the check that brings the task's steps to
        ``spend_until`` (the next one runs under the over-budget limit), or at the check whose
        evaluation raised. Returns the position it stopped at, the task's steps including every
        answered check, and the answer of a check that raised (``None`` if none did): that check
        is not stored in ``out`` nor its steps counted, so the caller's bookkeeping of failures
        applies to it as to any other."""
        fn = plan.fn
        # a definition of one parameter gets its argument itself, called without unpacking a tuple
        fetch: Callable[[dict[str, Any]], Any] = plan.fetch_one if plan.fetch_one is not None else plan.fetch
        one = plan.fetch_one is not None
        adjusted = plan.adjusted if plan.adjusts else None
        check_sources = sources_given and plan.takes_sources
        # Budget.start(limit, self.timeout) per check, inline: the limits are set once for the run,
        # then each check starts with nothing spent or memoised, its clock not read and a full
        # first grant. Only Budget.refill changes `spent`, `grant` and `deadline` during a check,
        # and it always adds to `spent`: they are set here, and again only after a check that
        # drew a second grant.
        budget.max_steps = limit
        budget.timeout = self.timeout
        first_grant = limit if limit < budget.period else budget.period
        budget.spent = 0
        budget.grant = first_grant
        budget.deadline = _CLOCK_NOT_READ  # the CPU clock is read at the first refill
        # the entry point's step charged by starting one below the grant (what `fn` would do
        # first, without a refill), then its entry called: one Python call less per check
        first_tick = first_grant
        if plan.entry is not None and first_grant >= 1:
            fn, first_tick = plan.entry, first_grant - 1
        memo = budget.memo
        cache = self._value_answers
        false_answers, true_answers = self._bool_answers
        shared = _SHARED_VALUE_TYPES
        _pin_frames()  # this frame calls `fn`, as `_answer`'s does (see _pin_frames)
        try:
            for i in order[position:]:
                check = checks[i]
                if check.kind is not _CODE:
                    break
                try:
                    values = fetch(check.args)  # the argument itself when `one`
                    if check_sources and LeanSource in map(type, (values,) if one else values):
                        break
                except Exception:  # noqa: BLE001 - the general path answers for arguments that do not fit
                    break
                self._current = index_base + position
                if memo:
                    memo.clear()
                budget.tick = first_tick
                value = fn(values) if one else fn(*values)
                if adjusted is not None:
                    value = adjusted(value)
                spent = budget.spent
                if spent:  # budget.used() over several grants, then the next check's start
                    steps = spent + budget.grant - budget.tick
                    budget.spent = 0
                    budget.grant = first_grant
                    budget.deadline = _CLOCK_NOT_READ
                else:  # budget.used() within the first grant
                    steps = first_grant - budget.tick
                # _value_answer, inline
                vtype = type(value)
                if vtype is bool:
                    by_steps = true_answers if value else false_answers
                    answer = by_steps.get(steps)
                    if answer is None:
                        answer = _shared_value_answer(by_steps, steps, value, steps)
                elif vtype in shared:
                    key = (vtype, value, steps)
                    answer = cache.get(key)
                    if answer is None:
                        answer = _shared_value_answer(cache, key, value, steps)
                else:
                    answer = _trusted("value", ENGINE, value, None, "", steps)
                out[i] = answer
                task_spent += steps
                position += 1
                if task_spent >= spend_until:
                    break
        except Exception as exc:  # noqa: BLE001 - answered as _answer answers it
            reason, detail = self._unknown(exc)
            return position, task_spent, Answer(status="unknown", engine=ENGINE, value=None, reason=reason,
                                                detail=detail, steps=budget.used())
        finally:
            self._current = -1
        return position, task_spent, None

    def _smallest_first(self, checks: Sequence[Check]) -> tuple[list[int], bool]:
        """The positions of ``checks``, smallest input first, ties in the given order; and whether
        an argument of some check is a function given as Lean text (``LeanSource``)."""
        arg_dicts = list(map(_args_of, checks))
        ids = list(map(id, arg_dicts))
        sizes = self._sizes
        if len(sizes) + len(checks) > _SIZE_CACHE_LIMIT:
            sizes.clear()
        # in C calls: a batch given again (or the checks of one input under one dict) is measured
        # once. An entry keeps its dict alive, so the dict found under an identity is that dict.
        known: list[Any] = list(map(sizes.get, ids))  # entries, None where not measured
        if None in known:
            for k, args in enumerate(arg_dicts):
                if known[k] is None:
                    known[k] = sizes[id(args)] = (args, _input_size(checks[k]),
                                                  LeanSource in map(type, args.values()))
        input_sizes = list(map(_second, known))
        order = sorted(range(len(input_sizes)), key=input_sizes.__getitem__)  # a stable sort: ties in order
        sources_given = any(map(_third, known))
        return order, sources_given

    def _answer(self, entries: _Entries, check: Check, budget: Budget) -> Answer:
        """Evaluate one check under the budget the caller started. Answers that carry no value are
        shared (an ``Answer`` is frozen): one per outcome and step count.

        The check's definition is called from this frame, with the Python frames above it pinned
        to :data:`CHECK_FRAMES` (:func:`_pin_frames`), as :meth:`_code_run` calls it: where
        ``recursion too deep`` stops a recursion (a step count) does not depend on the path."""
        try:
            kind = check.kind
            if kind is not _CODE and kind is not _PRECOND and kind is not _POSTCOND:
                kind = CheckKind(kind)  # a kind's value given to Check.trusted (a ValueError if none)
            # by identity: a str enum's `==`, and reading a member off its class, are slow
            code = kind is _CODE
            if code:
                plan, values = entries.code_call(check.args)
            elif kind is _PRECOND:
                plan, values = entries.call_of(entries.precond, check.args, None, False)
            else:
                plan, values = entries.call_of(entries.postcond, check.args, check.output, True)
            limit = entries.frames_limit
            if limit is None:  # (this frame's depth is the same for every check of the batch)
                limit = entries.frames_limit = _pin_frames()
            else:
                sys.setrecursionlimit(limit)
            entry = plan.entry
            if entry is not None:  # the call's step, as `plan.fn` would charge it, then its entry
                budget.tick -= 1
                if budget.tick < 0:
                    budget.refill()
                result = entry(*values)
            else:
                result = plan.fn(*values)
            if plan.adjusts:
                result = plan.adjusted(result)
            if code:
                return self._value_answer(result, budget.used())
            if result is True:
                return self._truth_answer("true", budget.used())
            if result is False:
                return self._truth_answer("false", budget.used())
            raise Unsupported("proposition", f"evaluated to {result!r}, not a decided truth value")
        except Exception as exc:  # noqa: BLE001 - sorted by _unknown; an engine bug is an error, never an answer
            reason, detail = self._unknown(exc)
        return Answer(status="unknown", engine=ENGINE, value=None, reason=reason, detail=detail, steps=budget.used())

    def _value_answer(self, value: Any, steps: int) -> Answer:
        """The answer carrying ``value``: shared, like the truth answers, when the value is a
        scalar of a type whose equal values are interchangeable (keyed by the exact type, so a
        ``Nat`` never stands for an equal ``Int``; floats are left out: ``0.0 == -0.0``)."""
        vtype = type(value)
        if vtype is bool:
            return _shared_value_answer(self._bool_answers[value], steps, value, steps)
        if vtype in _SHARED_VALUE_TYPES:
            return _shared_value_answer(self._value_answers, (vtype, value, steps), value, steps)
        return _trusted("value", ENGINE, value, None, "", steps)

    def _truth_answer(self, status: AnswerStatus, steps: int) -> Answer:
        cache = self._truth_answers
        answer = cache.get((status, steps))
        if answer is None:
            if len(cache) > _ANSWER_CACHE_LIMIT:
                cache.clear()
            answer = cache[(status, steps)] = Answer.trusted(status, ENGINE, None, None, "", steps)
        return answer

    def _unknown(self, exc: BaseException) -> tuple[UnknownReason, str]:
        """The reason and detail of a check whose evaluation raised ``exc``."""
        if isinstance(exc, Undecidable):
            return UnknownReason.UNDECIDABLE, str(exc)
        if isinstance(exc, Unsupported):
            return UnknownReason.UNSUPPORTED, f"{exc.construct}" + (f" ({exc.detail})" if exc.detail else "")
        if isinstance(exc, BudgetExceeded):
            # the watchdog's asynchronous interrupt carries no message
            return UnknownReason.TIMEOUT, str(exc) or f"backstop of {self.timeout:g} CPU seconds exceeded"
        if isinstance(exc, RecursionError):
            return UnknownReason.TIMEOUT, "recursion too deep"
        if isinstance(exc, MemoryError):
            return UnknownReason.TIMEOUT, "out of memory"
        if isinstance(exc, LeanPanic):
            return UnknownReason.ERROR, f"panic: {exc}"
        if isinstance(exc, LeanRuntimeError):
            return UnknownReason.ERROR, str(exc)
        return UnknownReason.ERROR, f"internal {type(exc).__name__}: {exc}"


_CODE, _PRECOND, _POSTCOND = CheckKind.CODE, CheckKind.PRECOND, CheckKind.POSTCOND
_TIMEOUT = UnknownReason.TIMEOUT
#: result types whose equal values are the same Lean value (see EmbeddedBackend._value_answer)
_SHARED_VALUE_TYPES = frozenset({bool, int, Nat, str, Char, UInt8, UInt16, UInt32, UInt64})
_trusted = Answer.trusted
#: shared answers kept per table before it is emptied (a bound on memory)
_ANSWER_CACHE_LIMIT = 4096
#: a step count no task reaches (a run of code checks under no task step budget)
_NEVER = float("inf")


def _pin_frames() -> int:
    """Set Python's recursion limit to the depth of the calling frame plus :data:`CHECK_FRAMES`
    and return it: the functions that frame calls may nest exactly ``CHECK_FRAMES`` frames deep,
    however deep it sits. The two paths that evaluate checks (``EmbeddedBackend._code_run`` and
    ``_answer``) call the check's definition from a frame pinned so: a recursion that runs out
    of Python stack does so at the same step on either, and with any wrapper around them. (The
    limit counts Python frames, and calls through a C slot of a Python class; the frames below
    are plain calls, one each.)"""
    depth = 0
    frame: Any = sys._getframe(1)
    while frame is not None:
        depth += 1
        frame = frame.f_back
    limit = depth + CHECK_FRAMES
    sys.setrecursionlimit(limit)
    return limit


def _cpu_seconds(cpu_clock: list[int]) -> float:
    """The evaluating thread's CPU time (what ``time.thread_time()`` gives inside it), or -inf
    when it cannot be read (no per-thread CPU clocks here, or the thread has just ended): then
    the watchdog does not fire, and the in-thread budget checks still hold."""
    if not cpu_clock:
        return float("-inf")
    try:
        return time.clock_gettime(cpu_clock[0])
    except (OSError, ValueError, OverflowError):
        return float("-inf")


def _interrupt(thread: threading.Thread) -> None:
    """Raise BudgetExceeded asynchronously in ``thread`` (delivered at its next bytecode)."""
    ident = thread.ident
    if ident is None:
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(BudgetExceeded))


def _find_entry(program: Program, def_name: str) -> UserDef:
    d = program.env.defs.get(def_name)
    if d is None:
        if def_name in program.env.errors:
            err = program.env.errors[def_name]
            raise Unsupported(f"definition {def_name}", f"did not parse: {err.message} at {err.line}:{err.col}")
        raise Unsupported(f"definition {def_name}", "not found")
    return d


class _EntryPlan:
    """What calling a top-level definition with named arguments takes, worked out once per
    program and definition (the definition's types do not change between checks)."""

    __slots__ = ("fn", "entry", "names", "types", "ret", "int_coercer", "array_ret", "int_ret", "compiler", "fetch",
                 "fetch_one", "adjusts", "takes_sources")

    def __init__(self, program: Program, def_name: str, output_last: bool = False) -> None:
        comp = program.compiler
        d = _find_entry(program, def_name)
        ptypes, ret = comp.def_types(d)
        params = [(n, t) for (n, b), t in zip(explicit_params(d), ptypes)
                  if not is_proof_binder(b, program.env, d.namespace)]
        self.names = tuple(n for n, _ in params)
        self.types = tuple(t for _, t in params)
        if output_last and self.names and d.run is None:
            # one input is checked against several outputs: what does not read the output is
            # computed once per input (compiler.hoisting)
            comp.hoist_over[d.name] = self.names[-1]
        self.fn = comp.def_function(d)
        #: the definition's entry (``Compiler.def_entry``: ``fn`` after the call's step is charged),
        #: which the checks call with the step charged inline; ``None`` for a memoised definition
        self.entry: Callable[..., Any] | None = comp.def_entry(d)[0]
        self.compiler = comp
        self.ret = ret
        self.array_ret = ret is not None and getattr(ret, "name", None) == "Array"
        # the compiled body coerces its result already, or every value it returns is proven to be
        # in `ret`'s representation (compiler.representation); otherwise the result is coerced
        self.int_coercer = ret is not None and _needs_int(ret) and d.name not in comp.results_in_repr
        if self.int_coercer and result_in_int_repr(comp, d):
            self.int_coercer = False
            self.array_ret = False  # (nothing it accepts makes a `Subarray`)
        self.int_ret = self.int_coercer and str(ret) == "Int"
        # the arguments as a tuple, read from the named arguments in one C call
        names = self.names
        self.fetch: Any = (itemgetter(*names) if len(names) > 1
                           else (lambda args, name=names[0]: (args[name],)) if names else (lambda args: ()))
        #: the only argument itself, in one C call (``None`` unless there is exactly one parameter)
        self.fetch_one: Callable[[dict[str, Any]], Any] | None = itemgetter(names[0]) if len(names) == 1 else None
        self.adjusts = self.array_ret or self.int_coercer
        #: whether an argument may be a function given as Lean text (``LeanSource``, read at a
        #: function type): not when every parameter's type is a core data type
        self.takes_sources = not all(_data_type(t) for t in self.types)

    def call(self, def_name: str, args: dict[str, Any], output: Any, with_output: bool) -> Any:
        """Call the definition: each parameter from ``args`` by name, the last one from
        ``output`` when ``with_output`` and ``args`` does not name it."""
        result = self.fn(*self.values(def_name, args, output, with_output))
        return self.adjusted(result) if self.adjusts else result

    def values(self, def_name: str, args: dict[str, Any], output: Any, with_output: bool) -> Sequence[Any]:
        """The arguments of :meth:`call`, in order, a function given as Lean text compiled."""
        names = self.names
        try:
            if with_output and names and names[-1] not in args:
                values = [args[p] for p in names[:-1]]
                values.append(output)
            else:
                values = self.fetch(args)
        except KeyError:
            raise self._missing(def_name, args) from None
        return self._compiled(values)

    def code_values(self, def_name: str, args: dict[str, Any]) -> Sequence[Any]:
        """:meth:`values` without an output: every parameter from ``args``."""
        try:
            values = self.fetch(args)
        except KeyError:
            raise self._missing(def_name, args) from None
        return self._compiled(values)

    def adjusted(self, result: Any) -> Any:
        """:meth:`_adjust` where ``adjusts`` is set, a plain ``int`` at ``Int`` left as it is
        (what `coerce_value` at Int does with it)."""
        if self.int_ret and type(result) is int:
            return result
        return self._adjust(result)

    def _missing(self, def_name: str, args: dict[str, Any]) -> Unsupported:
        missing = next(p for p in self.names if p not in args)
        return Unsupported(f"argument {missing} of {def_name}", "not supplied")

    def _compiled(self, values: Sequence[Any]) -> Sequence[Any]:
        """``values`` with each function given as Lean text compiled (a list then)."""
        if LeanSource not in map(type, values):
            return values
        out = list(values)
        for i, v in enumerate(out):
            if type(v) is LeanSource:
                out[i] = compile_source(self.compiler, v.text, self.types[i])
        return out

    def _adjust(self, result: Any) -> Any:
        """The result at the declared return type (coercions the compiled body leaves to the caller)."""
        if self.array_ret and isinstance(result, LeanSubarray):
            # a `Subarray` returned where `Array` is declared went through Lean's
            # `Coe (Subarray α) (Array α)` coercion, `Array.ofSubarray`
            result = coerce_value(Arr(result.items()), self.ret)
        if self.int_coercer:
            result = coerce_value(result, self.ret)
            if self.int_ret and isinstance(result, Nat):
                result = int(result)
        return result


#: heads of core types whose values are data, never a function given as Lean text
_DATA_HEADS = frozenset({"Nat", "Int", "Bool", "String", "Char", "Float", "Unit", "List", "Array", "Option", "Prod",
                         "UInt8", "UInt16", "UInt32", "UInt64"})


def _data_type(t: Any) -> bool:
    """``t`` is a core data type (a user type name may abbreviate a function type)."""
    return isinstance(t, ProdType) or (isinstance(t, NamedType) and t.name in _DATA_HEADS)


def _entry_plan(program: Program, def_name: str, output_last: bool = False) -> _EntryPlan:
    plans: dict[str, _EntryPlan] = program.__dict__.setdefault("_entry_plans", {})
    plan = plans.get(def_name)
    if plan is None:
        plan = plans[def_name] = _EntryPlan(program, def_name, output_last)
    return plan


def call_entry(program: Program, def_name: str, args: dict[str, Any], output: Any, with_output: bool = False) -> Any:
    """Call a top-level definition with named arguments (proof parameters are skipped)."""
    return _entry_plan(program, def_name).call(def_name, args, output, with_output)


class _Entries:
    """The three entry points of one task (code, precondition, postcondition) for one batch: each
    one's plan is looked up on first use (a missing one raises then, for that check alone)."""

    __slots__ = ("program", "code", "precond", "postcond", "plans", "frames_limit")

    def __init__(self, program: Program, name: str) -> None:
        self.program = program
        self.code = name
        self.precond = f"{name}_precond"
        self.postcond = f"{name}_postcond"
        self.plans: dict[str, _EntryPlan] = {}
        #: the recursion limit that pins the frames of a check the general path evaluates
        #: (``EmbeddedBackend._answer``; found on its first check)
        self.frames_limit: int | None = None

    def plan(self, def_name: str) -> _EntryPlan:
        plan = self.plans.get(def_name)
        if plan is None:
            plan = self.plans[def_name] = _entry_plan(self.program, def_name, def_name == self.postcond)
        return plan

    def code_call(self, args: dict[str, Any]) -> tuple[_EntryPlan, Sequence[Any]]:
        """The code entry point's plan and its arguments from the named ``args``."""
        plan = self.plan(self.code)
        return plan, plan.code_values(self.code, args)

    def call_of(self, def_name: str, args: dict[str, Any], output: Any,
                with_output: bool) -> tuple[_EntryPlan, Sequence[Any]]:
        """The plan of ``def_name`` and its arguments (:meth:`_EntryPlan.values`)."""
        plan = self.plan(def_name)
        return plan, plan.values(def_name, args, output, with_output)


def compile_source(comp: Compiler, text: str, ty: Any) -> Any:
    from veriscale.backends.embedded.parser import parse_term

    term = parse_term(text)
    sc = Scope(DefCtx("", None))
    closure = comp.compile(term, sc, ty)
    frame: list[Any] = [None] * max(sc.ctx.nslots, 1)
    return closure(frame)


__all__ = ["EmbeddedBackend", "call_entry", "A"]
