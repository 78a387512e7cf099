"""The embedded engine: answers checks by evaluating the task's Lean definitions in Python.

Each batch runs in one worker thread with a large stack and a raised recursion limit, so deep
(but legitimate) recursion in Lean code does not overflow the interpreter; a ``RecursionError``
or ``MemoryError`` becomes ``unknown(timeout)``, never an exception out of :meth:`run`.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.compiler import Compiler, DefCtx, Scope, _coercer, _needs_int
from veriscale.backends.embedded.env import UserDef
from veriscale.backends.embedded.program import Program, explicit_params, is_proof_binder
from veriscale.runtime import (
    BudgetExceeded,
    LeanPanic,
    LeanRuntimeError,
    Nat,
    Undecidable,
    Unsupported,
)
from veriscale.values import LeanSource

ENGINE = "embedded"
STACK_SIZE = 512 * 1024 * 1024
RECURSION_LIMIT = 150_000  # Lean recursion 20,000 deep fits; deeper risks the C stack


class EmbeddedBackend(Backend):
    name = ENGINE

    def __init__(
        self,
        *,
        max_steps: int = 20_000_000,
        timeout: float = 3.0,
        timeout_streak: int = 3,
        short_timeout: float = 0.25,
        batch_timeout_budget: float = 20.0,
    ) -> None:
        self.max_steps = max_steps
        self.timeout = timeout
        # A postcondition that enumerates 2^n subsequences times out on every large input of a
        # task; paying the full time limit thousands of times would make a suite unusable. After
        # `timeout_streak` consecutive timeouts of one check kind, later checks of that kind get
        # `short_timeout` (small inputs still finish); once a batch has spent
        # `batch_timeout_budget` seconds on timeouts, checks of kinds that timed out are not run.
        # Either way the answer is unknown(timeout), never a guess.
        self.timeout_streak = timeout_streak
        self.short_timeout = short_timeout
        self.batch_timeout_budget = batch_timeout_budget

    def run(self, task: Any, checks: Sequence[Check]) -> list[Answer]:
        results: list[Answer] = []
        # the check being evaluated and when it started, for the watchdog below
        self._current: tuple[int, float] = (-1, 0.0)
        self._limit = self.timeout

        def work() -> None:
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(max(old, RECURSION_LIMIT))
            try:
                results.extend(self._run_batch(task, checks))
            finally:
                self._current = (-1, 0.0)
                sys.setrecursionlimit(old)

        old_size = threading.stack_size()
        try:
            # The stack size applies to threads *started* while it is set.
            threading.stack_size(STACK_SIZE)
            thread = threading.Thread(target=work, name="embedded-eval", daemon=True)
            thread.start()
        finally:
            threading.stack_size(old_size)
        # Watchdog: the step budget is charged per function call and loop iteration, but one
        # builtin call can take arbitrarily long (a `contains` over a million lists); past the
        # deadline the check is interrupted from outside with an asynchronous BudgetExceeded.
        fired = -1
        while thread.is_alive():
            thread.join(0.05)
            index, started = self._current
            if index >= 0 and index != fired and time.monotonic() - started > self._limit + 0.5:
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
        out: list[Answer] = []
        streak: dict[CheckKind, int] = {}
        timed_out_kinds: set[CheckKind] = set()
        spent_on_timeouts = 0.0
        for i, check in enumerate(checks):
            if check.kind in timed_out_kinds and spent_on_timeouts >= self.batch_timeout_budget:
                out.append(Answer.unknown(
                    UnknownReason.TIMEOUT,
                    f"not run: {spent_on_timeouts:.0f} s of this task's checks already ran out of time",
                    ENGINE,
                ))
                continue
            limit = self.short_timeout if streak.get(check.kind, 0) >= self.timeout_streak else self.timeout
            started = time.monotonic()
            try:
                self._current = (i, started)
                self._limit = limit
                answer = self._one(program, name, check, limit)
                self._current = (-1, 0.0)
            except BudgetExceeded as exc:  # the watchdog's interrupt landed outside the check
                self._current = (-1, 0.0)
                answer = Answer.unknown(UnknownReason.TIMEOUT, str(exc) or "time limit exceeded", ENGINE)
            if answer.reason == UnknownReason.TIMEOUT:
                streak[check.kind] = streak.get(check.kind, 0) + 1
                timed_out_kinds.add(check.kind)
                spent_on_timeouts += time.monotonic() - started
            else:
                streak[check.kind] = 0
            out.append(answer)
        return out

    def _one(self, program: Program, name: str, check: Check, timeout: float | None = None) -> Answer:
        comp = program.compiler
        comp.budget.reset(self.max_steps, self.timeout if timeout is None else timeout)
        try:
            if check.kind == CheckKind.PRECOND:
                value = call_entry(program, f"{name}_precond", check.args, None)
                return _bool_answer(value)
            if check.kind == CheckKind.POSTCOND:
                value = call_entry(program, f"{name}_postcond", check.args, check.output, with_output=True)
                return _bool_answer(value)
            value = call_entry(program, name, check.args, None)
            return Answer.of_value(value, ENGINE)
        except Undecidable as exc:
            return Answer.unknown(UnknownReason.UNDECIDABLE, str(exc), ENGINE)
        except Unsupported as exc:
            return Answer.unknown(UnknownReason.UNSUPPORTED, f"{exc.construct}" + (f" ({exc.detail})" if exc.detail else ""), ENGINE)
        except BudgetExceeded as exc:
            return Answer.unknown(UnknownReason.TIMEOUT, str(exc), ENGINE)
        except RecursionError:
            return Answer.unknown(UnknownReason.TIMEOUT, "recursion too deep", ENGINE)
        except MemoryError:
            return Answer.unknown(UnknownReason.TIMEOUT, "out of memory", ENGINE)
        except LeanPanic as exc:
            return Answer.unknown(UnknownReason.ERROR, f"panic: {exc}", ENGINE)
        except LeanRuntimeError as exc:
            return Answer.unknown(UnknownReason.ERROR, str(exc), ENGINE)
        except Exception as exc:  # noqa: BLE001 - an engine bug must not become an answer
            return Answer.unknown(UnknownReason.ERROR, f"internal {type(exc).__name__}: {exc}", ENGINE)


def _interrupt(thread: threading.Thread) -> None:
    """Raise BudgetExceeded asynchronously in ``thread`` (delivered at its next bytecode)."""
    ident = thread.ident
    if ident is None:
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(BudgetExceeded))


def _bool_answer(value: Any) -> Answer:
    if value is True or value is False:
        return Answer.of_bool(value, ENGINE)
    raise Unsupported("proposition", f"evaluated to {value!r}, not a decided truth value")


def _find_entry(program: Program, def_name: str) -> UserDef:
    d = program.env.defs.get(def_name)
    if d is None:
        if def_name in program.env.errors:
            err = program.env.errors[def_name]
            raise Unsupported(f"definition {def_name}", f"did not parse: {err.message} at {err.line}:{err.col}")
        raise Unsupported(f"definition {def_name}", "not found")
    return d


def call_entry(program: Program, def_name: str, args: dict[str, Any], output: Any, with_output: bool = False) -> Any:
    """Call a top-level definition with named arguments (proof parameters are skipped)."""
    comp = program.compiler
    d = _find_entry(program, def_name)
    params = explicit_params(d)
    ptypes, ret = comp.def_types(d)
    values: list[Any] = []
    real = [(n, b, t) for (n, b), t in zip(params, ptypes) if not is_proof_binder(b, program.env, d.namespace)]
    for i, (pname, _b, pty) in enumerate(real):
        if pname in args:
            v = args[pname]
        elif with_output and i == len(real) - 1:
            v = output
        else:
            raise Unsupported(f"argument {pname} of {def_name}", "not supplied")
        if isinstance(v, LeanSource):
            v = compile_source(comp, v.text, pty)
        values.append(v)
    fn = comp.def_function(d)
    result = fn(*values)
    if ret is not None and _needs_int(ret):
        result = _coercer(lambda fr: result, ret)([])
    if isinstance(result, Nat) and ret is not None and str(ret) == "Int":
        result = int(result)
    return result


def compile_source(comp: Compiler, text: str, ty: Any) -> Any:
    from veriscale.backends.embedded.parser import parse_term

    term = parse_term(text)
    sc = Scope(DefCtx("", None))
    closure = comp.compile(term, sc, ty)
    frame: list[Any] = [None] * max(sc.ctx.nslots, 1)
    return closure(frame)


__all__ = ["EmbeddedBackend", "call_entry", "A"]
