"""Run-time machinery of compiled Lean code: budgets, function values, control-flow signals.

Kept apart from the compiler so that the hot paths (function entry, loop iterations) are small,
flat functions the compiled closures call directly.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.registry import Builtin
from veriscale.lean import printing
from veriscale.lean.values import Arr, BudgetExceeded

_CLOCK_NOT_READ = float("-inf")
"""``Budget.deadline`` of a check whose CPU clock has not been read yet (:meth:`Budget.start`)."""


class Budget:
    """Per-check limits: a deterministic count of evaluation steps, and a CPU-time backstop.

    A *step* is one user function or closure application, one iteration of a ``for``/``while``/
    ``repeat`` loop or of a bounded quantifier, one candidate of a witness search, one memoised
    call found in :attr:`memo`; work done at C speed in place of many steps is charged at once
    (:meth:`charge`: a member of an enumerated list of sublists, a cell of the dynamic programme
    that answers for them, :mod:`.builtins.sublists`). The count does
    not depend on the machine or its load, so a check that runs out of steps does so on every run;
    the backstop, in CPU seconds of the evaluating thread (so that a busy machine does not trigger
    it), is a much larger safety net for work that is not counted (a builtin doing a lot of
    C-level work per step), and its clock is only read once per period of steps.

    Hot paths decrement ``tick`` and call :meth:`refill` when it goes negative, so the common case
    costs one decrement and one comparison. ``spent`` holds the steps of the finished grants, and
    the current grant has ``grant - tick`` used, which :meth:`used` adds up exactly."""

    __slots__ = ("tick", "grant", "spent", "deadline", "period", "max_steps", "timeout", "memo")

    def __init__(self, max_steps: int = 20_000_000, timeout: float = 30.0, period: int = 4096) -> None:
        self.period = period
        self.max_steps = max_steps
        self.timeout = timeout
        #: the check's memoised pure calls (:mod:`.memo`); emptied with the budget, so a check's
        #: steps do not depend on the checks before it
        self.memo: dict[Any, Any] = {}
        self.reset()

    def reset(self, max_steps: int | None = None, timeout: float | None = None, now: float | None = None) -> None:
        """Start a check: nothing spent, nothing memoised, the backstop ``timeout`` CPU seconds from
        ``now`` (this thread's CPU clock, read here unless the caller just read it)."""
        if max_steps is not None:
            self.max_steps = max_steps
        if timeout is not None:
            self.timeout = timeout
        self.spent = 0
        if self.memo:
            self.memo.clear()
        self.grant = min(self.period, self.max_steps)
        self.tick = self.grant
        self.deadline = (time.thread_time() if now is None else now) + self.timeout

    def start(self, max_steps: int, timeout: float, now: float | None = None) -> None:
        """:meth:`reset` for the per-check loop: ``max_steps`` steps, nothing spent or memoised,
        the backstop ``timeout`` CPU seconds after ``now`` (this thread's CPU clock). Without
        ``now`` the clock is first read at the first :meth:`refill`, one period of steps into the
        check: reading a thread's CPU clock costs as much as a small check's whole evaluation,
        and a check that ends within one period never needs it (the watchdog of the backend
        bounds the time before that first refill)."""
        self.max_steps = max_steps
        self.timeout = timeout
        self.spent = 0
        if self.memo:
            self.memo.clear()
        self.grant = self.tick = max_steps if max_steps < self.period else self.period
        self.deadline = _CLOCK_NOT_READ if now is None else now + timeout

    def started_at(self) -> float | None:
        """This thread's CPU clock when the backstop's count began (``None``: not read yet)."""
        return None if self.deadline == _CLOCK_NOT_READ else self.deadline - self.timeout

    def charge(self, steps: int) -> None:
        """Charge ``steps`` at once: work done at C speed that stands for that many steps."""
        self.tick -= steps
        if self.tick < 0:
            self.refill()

    def used(self) -> int:
        """Steps charged since the last :meth:`reset` (exact, not rounded to a period)."""
        return self.spent + self.grant - self.tick

    def refill(self) -> None:
        # called with tick == -1: the grant and the step that overdrew it are used
        self.spent += self.grant - self.tick
        self.tick = 0
        self.grant = 0
        remaining = self.max_steps - self.spent
        if remaining < 0:
            raise BudgetExceeded(f"step budget of {self.max_steps} steps exhausted")
        if self.deadline == _CLOCK_NOT_READ:
            self.deadline = time.thread_time() + self.timeout
        elif time.thread_time() > self.deadline:
            raise BudgetExceeded(f"backstop of {self.timeout:g} CPU seconds exceeded")
        self.grant = min(self.period, remaining)
        self.tick = self.grant


class TailCall:
    """A self-call in tail position, returned to the function's own loop instead of made.

    Lean compiles such calls to jumps, so a tail-recursive ``loop (k - 1) acc`` runs a million
    times in constant stack; the Python evaluator must too. Only call sites the compiler proved to
    be in tail position of the function they call produce it (see ``Compiler._tail_target``),
    and only that function's loop ever sees it."""

    __slots__ = ("args",)

    def __init__(self, args: tuple[Any, ...]) -> None:
        self.args = args


class _Proof:
    """The value of a proof term. Proofs are irrelevant at run time; they are never inspected."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "PROOF"

    def __reduce__(self) -> str:
        return "PROOF"


PROOF = _Proof()


class _TypeValue:
    """A type passed as an explicit argument (``(α := Nat)``); carries no run-time information."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "TYPE"


TYPE_VALUE = _TypeValue()


class Ret:
    """Control signal of a ``do`` block: ``return v`` (or the value of the block's last element)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Signal:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


BREAK = _Signal("break")
CONTINUE = _Signal("continue")


class Fn:
    """A Lean function value (closure): ``run(env, args)`` evaluates the body with ``arity`` args.

    Calling with fewer arguments gives a partial application, with more applies the result to the
    rest (Lean functions are curried).

    ``key_slots`` are the slots of ``env`` the body can read (its captured variables; ``None``:
    not known), so that ``run`` and those values identify the function (:func:`.memo.fn_key`);
    ``shape`` is what the compiler recognised the ``fun`` to compute, if anything
    (:mod:`.builtins.sublists`)."""

    __slots__ = ("arity", "run", "env", "name", "key_slots", "shape", "direct")

    def __init__(self, arity: int, run: Callable[[Any, tuple[Any, ...]], Any], env: Any, name: str = "fun",
                 key_slots: tuple[int, ...] | None = None, shape: Any = None,
                 direct: Callable[..., Any] | None = None) -> None:
        self.arity = arity
        self.run = run
        self.env = env
        self.name = name
        self.key_slots = key_slots
        self.shape = shape
        #: the function as a plain Python function of exactly ``arity`` arguments, when the
        #: compiler made one (same steps as ``run``, one Python call less per application)
        self.direct = direct

    def __call__(self, *args: Any) -> Any:
        n = self.arity
        k = len(args)
        if k == n:
            return self.run(self.env, args)
        if k < n:
            return Partial(self, args)
        return self.run(self.env, args[:n])(*args[n:])

    def __repr__(self) -> str:
        return f"<fun {self.name}/{self.arity}>"


def unary(f: Any) -> Callable[[Any], Any]:
    """``f`` as a Python function of one argument, for builtins applying it in a loop."""
    if type(f) is Fn and f.arity == 1 and f.direct is not None:
        return f.direct
    return f  # type: ignore[no-any-return]


def binary(f: Any) -> Callable[[Any, Any], Any]:
    """``f`` as a Python function of two arguments, for builtins applying it in a loop."""
    if type(f) is Fn and f.arity == 2 and f.direct is not None:
        return f.direct
    return f  # type: ignore[no-any-return]


class Partial:
    __slots__ = ("fn", "args")

    def __init__(self, fn: Any, args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args

    def __call__(self, *args: Any) -> Any:
        return self.fn(*self.args, *args)

    def __repr__(self) -> str:
        return f"<partial {self.fn!r} {len(self.args)}>"


_REQUIRED: dict[str, int] = {}


def required_arity(b: Builtin) -> int:
    """Number of explicit parameters without a default value (Lean's optional arguments have one)."""
    cached = _REQUIRED.get(b.name)
    if cached is not None:
        return cached
    try:
        params = inspect.signature(b.fn).parameters.values()
        n = sum(
            1
            for p in params
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        )
    except (TypeError, ValueError):
        n = b.arity
    n = min(n, b.arity)
    _REQUIRED[b.name] = n
    return n


class BuiltinFn:
    """A builtin used as a value (``xs.map Char.toUpper``): curried up to its required arity."""

    __slots__ = ("builtin", "need", "result_type", "fn")

    def __init__(self, b: Builtin, result_type: Any = None) -> None:
        self.builtin = b
        self.need = required_arity(b)
        self.result_type = result_type
        self.fn = b.fn

    def __call__(self, *args: Any) -> Any:
        k = len(args)
        need = self.need
        if k < need:
            return Partial(self, args)
        b = self.builtin
        take = min(k, b.arity) if k > need else need
        if b.typed:
            result = self.fn(*args[:take], result_type=self.result_type)
        else:
            result = self.fn(*args[:take])
        if k > take:
            return result(*args[take:])
        return result

    def __repr__(self) -> str:
        return f"<builtin {self.builtin.name}>"


class LeanRange:
    """``Std.Range`` (``[start:stop:step]``) as used by ``for i in [a:b]``."""

    __slots__ = ("start", "stop", "step")
    LEAN_TYPE = "Std.Range"

    def __init__(self, start: int, stop: int, step: int) -> None:
        self.start = start
        self.stop = stop
        self.step = step

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LeanRange) and (self.start, self.stop, self.step) == (other.start, other.stop, other.step)

    def __hash__(self) -> int:
        return hash(("Std.Range", self.start, self.stop, self.step))

    def __repr__(self) -> str:
        return f"[{self.start}:{self.stop}:{self.step}]"


class LeanSubarray:
    """A Lean ``Subarray α``: the array, and the region ``start ≤ i < stop`` of it.

    Lean (``Init/Data/Array/Subarray.lean``, v4.24) represents a subarray by exactly these three
    fields (``start ≤ stop ≤ array.size``), and every operation works on that region of the
    underlying array. A plain copy of the region (an ``Array``) would give the same elements, but
    not the same Lean value: ``sub.array``/``sub.start``/``sub.stop`` see the whole array and the
    bounds, field notation resolves in the ``Subarray`` namespace (``Subarray.any p s`` takes the
    predicate first, unlike ``Array.any``), ``repr`` prints ``#[..].toSubarray``, and a returned
    ``Subarray`` is not an ``Array``. So the value keeps the three fields (the array is immutable,
    so sharing it is safe); :meth:`items` is the region. It has no ``BEq``/``Hashable`` modelled."""

    __slots__ = ("array", "start", "stop")
    LEAN_TYPE = "Subarray"

    def __init__(self, array: Any, start: int, stop: int) -> None:
        if not 0 <= start <= stop <= len(array):
            raise ValueError(f"invalid subarray bounds {start}..{stop} of an array of size {len(array)}")
        self.array = array
        self.start = start
        self.stop = stop

    def items(self) -> tuple[Any, ...]:
        """The elements of the region, in index order."""
        return tuple(self.array[self.start : self.stop])

    def lean_to_string(self) -> str:
        """``instance : ToString (Subarray α)``: ``toString s.toArray``."""
        return printing.to_string(Arr(self.items()))

    def lean_repr(self, prec: int) -> str:
        """``Subarray.repr s = repr s.toArray ++ ".toSubarray"`` (the precedence is ignored)."""
        return printing.repr_value(Arr(self.items())) + ".toSubarray"

    def __repr__(self) -> str:
        return f"LeanSubarray({self.array!r}, {self.start}, {self.stop})"
