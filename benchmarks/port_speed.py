#!/usr/bin/env python3
"""The embedded engine's code checks against each task's own Python port, side by side.

Verina ships, for every task, a Python port of the reference solution in the task's
``coverage_report.md``. For each selected task this benchmark runs the task's code checks
(``EmbeddedBackend.run`` with ``CheckKind.CODE`` checks, one per VerinaPlus test input) and the
port on the same inputs, and prints per task the number of inputs, the engine's and the port's
time per call in microseconds and their ratio, then the geometric mean of the ratios over the
measured tasks and the skipped tasks counted by reason.

How the port is run:

* It is read from the report at run time (nothing of it is kept in this project): the numbered
  "Source Code with Coverage" block with the line numbers and coverage marks stripped, or, when
  that block is missing, the "Complete Test File" block up to its ``def run_tests``. Reports are
  read from the Verina suite beside the given one (``--reports``), else from the task's own
  directory. The entry point is the function named like the task's signature.
* It is compiled and ``exec``-ed in a fresh namespace (not ``__main__``), with its printing
  captured, in a worker thread with a deep stack and a raised recursion limit (as the engine
  evaluates, so a port is not cut short by Python's default of 1,000 frames), under a wall-clock
  guard that interrupts it with an asynchronous exception. Any exception, ``SystemExit`` or
  time-out skips the task, never the run.
* Inputs are VerinaPlus's ``test.json`` rows, read at their Lean types (``veriscale.typed_task``)
  and mapped to plain Python by type, positionally in signature order: numbers to ``int`` and
  ``float``, ``Bool`` to ``bool``, ``Char`` and ``String`` to ``str``, ``List``/``Array`` to
  ``list``, products to a flat tuple (``a × b × c`` is ``(a, b, c)``; if the port fails or
  disagrees that way, to a flat list), ``Option`` to the value or ``None``. Structures, user
  inductives, functions and nested options are not mapped: the task is skipped
  (``args-unmappable``).
* Agreement is checked before any timing: the port's result on every input is read back at the
  declared return type (also accepting a ``str`` for ``List Char``/``Array Char``, a ``list`` for
  a product, an ``int`` for a ``Float``) and compared with the engine's answer and with
  VerinaPlus's expected value as ``validate`` compares them (``compare.same_as_printed``, floats
  as Lean prints them). A difference skips the task: ``port-disagrees``; ``engine-disagrees`` when
  the port matches the stored value and the engine does not; ``stored-differs`` when port and
  engine agree with each other but not with the stored value (a defect of the data).

Timing is the same for both sides. One *pass* calls the whole input list once: the engine as one
``EmbeddedBackend.run`` batch of checks and argument dicts built afresh before the clock starts
(after ``start_unit``, so the per-task step budget never throttles a repeat), the port in a plain loop over argument tuples built before the clock starts (fresh each
pass, since a port may mutate what it is given) in one worker thread; each side's pass starts one
thread, which is timed with it. A warm-up pass comes first (the engine parses and compiles the
task there; outputs are compared there), then passes until ``--min-seconds`` have been spent and
at least ``--min-passes`` ran, with the garbage collector off during each timed pass. Time per call
is the fastest pass divided by the number of inputs. Passes are timed by the wall clock, or with
``--clock cpu`` by the process's CPU time (on a loaded machine the wall clock also counts the
time the process waits for a core, which falls unevenly on long and short passes).

"Another algorithm" is detected in three ways, and such a task is skipped (``another-algorithm``):

1. a marker in the report: a phrase such as "a different algorithm" or "another approach" (no
   published Verina report has one today; the check is for suites that do);
2. growth. The engine counts deterministic steps per check (calls and loop iterations,
   ``Answer.steps``); the port's work per call is counted alike, as the 'call' and 'line' trace
   events of the port's own code (``sys.settrace``, during the agreement pass only). Both counts
   are taken above their minimum over the inputs (the fixed cost of a call), the engine's largest
   count is kept for each port count (the worst case, so that an early exit on one side only shows
   as different work), and the slope of log engine steps against log port events is fitted by
   least squares. The same algorithm on both sides gives a slope near 1; a slope above
   ``GROWTH_SLOPE_HIGH`` (the engine's work grows faster: quadratic against linear, a linear scan
   against a binary search, list indexing inside a loop) or below ``GROWTH_SLOPE_LOW`` (the port
   does more, or stops early where the Lean code does not) is another algorithm. No slope is drawn
   when either count varies less than ``GROWTH_MIN_SPREAD``-fold or there are fewer than
   ``GROWTH_MIN_POINTS`` distinct port counts;
3. a closed form: every parameter is a number, the port's count is the same on every input and
   the engine's varies ``GROWTH_MIN_SPREAD``-fold or more (``n & (n - 1) == 0`` against halving
   in a loop, a sum formula against summing). When the engine's steps do not vary either, its
   time per check is compared instead: the smallest tenth of the inputs (by
   ``veriscale.lean.values.value_size``) against the largest tenth, each timed as one batch like
   the passes below. A builtin doing the loop (``(List.range (n + 1)).sum`` against
   ``n * (n + 1) // 2``) shows there and not in the steps; it counts when the largest inputs
   take ``GROWTH_MIN_SPREAD`` times as long per check and at least ``CLOSED_FORM_MIN_GROWTH``
   seconds more (below that, the difference is the noise of a microsecond-sized check).

Work left to a builtin (``sorted``, ``sum``, ``a + b`` on lists, ``List.range``) is counted by
neither side: that is where the heuristic is blind, and such tasks are measured. The limits were
set by reading the Lean code and the port of the VerinaPlus tasks near them. Same algorithm:
slopes 0.65 to 1.08 (``verina_advanced_26`` 0.65, ``verina_basic_54`` 0.77, ``verina_basic_10``
1.05). Another one: 1.16 and up (``verina_advanced_24`` LIS by list replacement against
``bisect``, ``verina_advanced_48`` insertion sort against merge sort, ``verina_basic_37`` a scan
against a binary search, ``verina_advanced_1`` counting each element against XOR) and 0.42 and
down (``verina_basic_63`` pairwise against sorting, ``verina_basic_19`` no early exit against
one). Known misjudgements: ``verina_advanced_8`` (1.38) is one algorithm, with a fold in Lean
where the port calls ``sum``; ``verina_advanced_57`` (1.08) looks values up in a list in Lean and
in a dict in the port; ``verina_basic_25`` sums ``List.range`` (a builtin, no steps) where the port
uses the formula.

    python benchmarks/port_speed.py                              # ../shared/data/verinaplus
    python benchmarks/port_speed.py --tasks verina_basic_10,verina_advanced_1
    python benchmarks/port_speed.py --limit-inputs 20 --json /tmp/port_speed.json
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import ctypes
import gc
import io
import json
import math
import os
import re
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
if str(PROJECT_ROOT) not in sys.path:
    sys.path.insert(0, str(PROJECT_ROOT))

from veriscale.backends.base import Answer, Check, CheckKind  # noqa: E402
from veriscale.backends.embedded.backend import EmbeddedBackend  # noqa: E402
from veriscale.lean.codec import render_value  # noqa: E402
from veriscale.lean.printing import same_as_printed  # noqa: E402
from veriscale.lean.types import LeanType, NamedType, ProdType  # noqa: E402
from veriscale.lean.values import FIXED_WIDTH_TYPES, NONE, UNIT, Arr, Char, Nat, Pair, Some, value_size  # noqa: E402
from veriscale.task import Task, TaskLoadError, load_task  # noqa: E402
from veriscale.typed_task import TypedTask, TypedTaskError, TypedTest, typed_view  # noqa: E402

REPORT_NAME = "coverage_report.md"
#: Wall-clock seconds a port may take to load, or for one call while outputs are compared.
DEFAULT_PORT_TIMEOUT = 10.0
PORT_STACK_SIZE = 512 * 1024 * 1024
PORT_RECURSION_LIMIT = 100_000
GROWTH_MIN_POINTS = 4
GROWTH_MIN_SPREAD = 4.0
GROWTH_SLOPE_HIGH = 1.15
GROWTH_SLOPE_LOW = 0.6
#: seconds per check by which the largest inputs must outgrow the smallest for the closed-form
#: rule to read the engine's time (builtin work on large inputs takes milliseconds)
CLOSED_FORM_MIN_GROWTH = 20e-6
#: Phrases by which a report would say its port does not follow the reference solution.
ALGORITHM_MARKERS = re.compile(
    r"\b(?:a\s+different|another|an\s+alternative)\s+(?:algorithm|approach|method)\b"
    r"|\bnot\s+the\s+same\s+algorithm\b",
    re.IGNORECASE,
)

# Skip reasons, in the order the summary prints them.
NO_PORT = "no-port"
TASK_UNLOADABLE = "task-unloadable"
NO_INPUTS = "no-inputs"
ARGS_UNMAPPABLE = "args-unmappable"
PORT_NOT_LOADABLE = "port-not-loadable"
PORT_ERROR = "port-error"
ENGINE_UNKNOWN = "engine-unknown"
PORT_DISAGREES = "port-disagrees"
ENGINE_DISAGREES = "engine-disagrees"
STORED_DIFFERS = "stored-differs"
ANOTHER_ALGORITHM = "another-algorithm"
SKIP_REASONS = (NO_PORT, TASK_UNLOADABLE, NO_INPUTS, ARGS_UNMAPPABLE, PORT_NOT_LOADABLE, PORT_ERROR,
                ENGINE_UNKNOWN, PORT_DISAGREES, ENGINE_DISAGREES, STORED_DIFFERS, ANOTHER_ALGORITHM)


class Skip(Exception):
    """Why a task is left out of the comparison."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class PortError(Exception):
    """The report holds no port, or the port does not load."""


class Unmappable(ValueError):
    """A value has no plain-Python counterpart at its Lean type (or the port's result no Lean one)."""


class PortTimeout(BaseException):
    """Raised inside a port that runs past its guard; a BaseException so that the port's own
    ``except Exception`` does not swallow it."""


# ---------------------------------------------------------------------------------------------
# The port: extraction, loading, guarded calls


_SOURCE_BLOCK = re.compile(r"^## Source Code with Coverage[ \t]*\n+```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
_TEST_FILE_BLOCK = re.compile(r"^## Complete Test File[ \t]*\n+```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
# "12: ✓ code": the line number, one coverage-mark column (✓, ✗ or a blank), a space, the code.
_NUMBERED_LINE = re.compile(r"^(\d+): (.)(?: (.*))?$")


def extract_port(report: str) -> str:
    """The Python port in a coverage report's text.

    Read from the numbered "Source Code with Coverage" block (its lines must be numbered 1, 2, ...
    in order), else from the "Complete Test File" block up to its test driver ``def run_tests``.
    Raises :class:`PortError` when neither holds code."""
    block = _SOURCE_BLOCK.search(report)
    if block is not None:
        lines: list[str] = []
        for number, line in enumerate(block.group(1).splitlines(), start=1):
            numbered = _NUMBERED_LINE.match(line)
            if numbered is None or int(numbered.group(1)) != number:
                raise PortError(f"source line {number} is not numbered as expected: {line[:60]!r}")
            lines.append(numbered.group(3) or "")
        source = "\n".join(lines).strip("\n")
        if source.strip():
            return source + "\n"
    block = _TEST_FILE_BLOCK.search(report)
    if block is not None:
        source = re.split(r"^def run_tests\b", block.group(1), maxsplit=1, flags=re.MULTILINE)[0].strip("\n")
        if source.strip():
            return source + "\n"
    raise PortError("the report has no Python source block")


def algorithm_marker(report: str) -> str | None:
    """The phrase by which a report says its port uses another algorithm, if any."""
    found = ALGORITHM_MARKERS.search(report)
    return found.group(0) if found else None


def _interrupt(thread: threading.Thread) -> None:
    """Raise :class:`PortTimeout` asynchronously in ``thread`` (delivered at its next bytecode)."""
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(PortTimeout))


def run_guarded(action: Callable[[], Any], seconds: float) -> Any:
    """``action()`` in a fresh thread with a deep stack and a raised recursion limit, its printing
    captured; what it raises is raised here, and past ``seconds`` of wall-clock time it is
    interrupted and :class:`PortTimeout` is raised (also when it cannot be interrupted because it
    is stuck inside one C call: then the thread is left behind, as a daemon)."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, PORT_RECURSION_LIMIT))
        try:
            outcome["value"] = action()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            outcome["error"] = exc
        finally:
            sys.setrecursionlimit(limit)

    old_size = threading.stack_size()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            threading.stack_size(PORT_STACK_SIZE)  # applies to threads started while it is set
            thread = threading.Thread(target=work, name="port", daemon=True)
            thread.start()
        finally:
            threading.stack_size(old_size)
        thread.join(seconds)
        if thread.is_alive():
            _interrupt(thread)
            thread.join(1.0)
            raise PortTimeout(f"took more than {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@dataclass(frozen=True)
class LoadedPort:
    function: Callable[..., Any]
    filename: str
    """The port's code-object file name (``<port ...>``), by which its trace events are told apart."""


def load_port(source: str, entry: str, label: str, timeout: float = DEFAULT_PORT_TIMEOUT) -> LoadedPort:
    """Run the port's module code in a fresh namespace and return its ``entry`` function."""
    filename = f"<port {label}>"
    namespace: dict[str, Any] = {"__name__": "port_" + re.sub(r"\W", "_", label), "__builtins__": builtins}
    try:
        code = compile(source, filename, "exec")
        run_guarded(lambda: exec(code, namespace), timeout)  # noqa: S102 - Verina's own port
    except (Exception, SystemExit, PortTimeout) as exc:
        raise PortError(f"{type(exc).__name__}: {exc}") from exc
    function = namespace.get(entry)
    if not callable(function):
        raise PortError(f"the port defines no function {entry!r}")
    return LoadedPort(function, filename)


def call_counted(port: LoadedPort, args: Sequence[Any]) -> tuple[Any, int]:
    """The port's result and its work: the 'call' and 'line' trace events of the port's own code.
    Call it in the thread that should be traced (``sys.settrace`` is per thread)."""
    events = 0

    def in_port(_frame: Any, event: str, _arg: Any) -> Any:
        nonlocal events
        if event == "line":
            events += 1
        return in_port

    def on_call(frame: Any, _event: str, _arg: Any) -> Any:
        nonlocal events
        if frame.f_code.co_filename != port.filename:
            return None
        events += 1
        return in_port

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        result = port.function(*args)
    finally:
        sys.settrace(previous)
    return result, events


# ---------------------------------------------------------------------------------------------
# Values: typed runtime values to the port's Python and back


def _prod_components(ty: ProdType) -> list[LeanType]:
    """``a × b × c`` (that is ``a × (b × c)``) as ``[a, b, c]``: a Python port writes a triple flat."""
    components: list[LeanType] = []
    current: LeanType = ty
    while isinstance(current, ProdType):
        components.append(current.fst)
        current = current.snd
    components.append(current)
    return components


def _named(ty: LeanType) -> tuple[str, tuple[LeanType, ...]]:
    if isinstance(ty, NamedType):
        return ty.name, ty.args
    raise Unmappable(f"no Python counterpart for values of type {ty}")


def _is_option(ty: LeanType) -> bool:
    return isinstance(ty, NamedType) and ty.name == "Option"


def has_product(ty: LeanType) -> bool:
    if isinstance(ty, ProdType):
        return True
    return isinstance(ty, NamedType) and any(has_product(arg) for arg in ty.args)


def to_python(value: Any, ty: LeanType, product: type = tuple) -> Any:
    """A runtime value (``veriscale.lean.values``) of Lean type ``ty`` as a port takes it; products
    become ``product`` (``tuple`` or ``list``). Raises :class:`Unmappable`."""
    if isinstance(ty, ProdType):
        components = _prod_components(ty)
        items: list[Any] = []
        for component in components[:-1]:
            if not isinstance(value, Pair):
                raise Unmappable(f"expected a pair of type {ty}, got {value!r}")
            items.append(to_python(value.fst, component, product))
            value = value.snd
        items.append(to_python(value, components[-1], product))
        return product(items)
    name, args = _named(ty)
    if name in ("Nat", "Int") or name in FIXED_WIDTH_TYPES:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unmappable(f"expected an integer of type {ty}, got {value!r}")
        return int(value)
    if name == "Bool" and isinstance(value, bool):
        return value
    if name == "Float" and isinstance(value, float):
        return value
    if name in ("String", "Char") and isinstance(value, str):
        return str(value)
    if name in ("List", "Array") and len(args) == 1 and isinstance(value, (tuple, Arr)):
        return [to_python(item, args[0], product) for item in value]
    if name == "Option" and len(args) == 1:
        if _is_option(args[0]):
            raise Unmappable(f"{ty}: `none` and `some none` would both be Python's None")
        if value is NONE:
            return None
        if isinstance(value, Some):
            return to_python(value.value, args[0], product)
    if name == "Unit" and value is UNIT:
        return None
    raise Unmappable(f"no Python counterpart for {value!r} at type {ty}"[:200])


def from_python(obj: Any, ty: LeanType) -> Any:
    """A port's result read back as the runtime value of Lean type ``ty`` (raises :class:`Unmappable`)."""
    if isinstance(ty, ProdType):
        components = _prod_components(ty)
        if not isinstance(obj, (tuple, list)) or len(obj) != len(components):
            raise Unmappable(f"expected a {len(components)}-tuple for {ty}, got {obj!r}")
        values = [from_python(item, component) for item, component in zip(obj, components)]
        result = values[-1]
        for item in reversed(values[:-1]):
            result = Pair(item, result)
        return result
    name, args = _named(ty)
    is_int = isinstance(obj, int) and not isinstance(obj, bool)
    if name == "Nat" and is_int and obj >= 0:
        return Nat(obj)
    if name == "Int" and is_int:
        return int(obj)
    if name in FIXED_WIDTH_TYPES and is_int and 0 <= obj < (1 << FIXED_WIDTH_TYPES[name].BITS):
        return FIXED_WIDTH_TYPES[name](obj)
    if name == "Bool" and isinstance(obj, bool):
        return obj
    if name == "Float" and (isinstance(obj, float) or is_int):
        return float(obj)
    if name == "String" and isinstance(obj, str):
        return str(obj)
    if name == "Char" and isinstance(obj, str) and len(obj) == 1:
        return Char(obj)
    if name in ("List", "Array") and len(args) == 1:
        element = args[0]
        if isinstance(obj, str) and isinstance(element, NamedType) and element.name == "Char":
            obj = list(obj)  # a Python port's natural List Char
        if isinstance(obj, (list, tuple)):
            items = tuple(from_python(item, element) for item in obj)
            return Arr(items) if name == "Array" else items
    if name == "Option" and len(args) == 1 and not _is_option(args[0]):
        return NONE if obj is None else Some(from_python(obj, args[0]))
    if name == "Unit" and obj is None:
        return UNIT
    raise Unmappable(f"{obj!r} is not a value of type {ty}"[:200])


def disagreement(port_value: Any, engine_value: Any, expected: Any, expected_ok: bool) -> str | None:
    """``None`` when the port's (typed) result equals the engine's and, where the stored value was
    readable, the stored one; else the skip reason that says who differs."""
    if not same_as_printed(engine_value, port_value):
        return ENGINE_DISAGREES if expected_ok and same_as_printed(port_value, expected) else PORT_DISAGREES
    if expected_ok and not same_as_printed(port_value, expected):
        return STORED_DIFFERS
    return None


# ---------------------------------------------------------------------------------------------
# Growth: is it the same algorithm on both sides?


def growth_slope(engine_steps: Sequence[int], port_events: Sequence[int]) -> float | None:
    """How the engine's work grows with the port's over the inputs: the least-squares slope of
    log engine steps against log port events, both taken above their minimum (the fixed cost of a
    call), keeping the engine's largest count for each port count. ``None`` when there are fewer
    than ``GROWTH_MIN_POINTS`` such points or either side varies less than ``GROWTH_MIN_SPREAD``-fold."""
    if not engine_steps or len(engine_steps) != len(port_events):
        return None
    engine_floor, port_floor = min(engine_steps), min(port_events)
    worst: dict[int, int] = {}
    for steps, events in zip(engine_steps, port_events):
        x, y = events - port_floor, steps - engine_floor
        if x > 0 and y > 0:
            worst[x] = max(worst.get(x, 0), y)
    if len(worst) < GROWTH_MIN_POINTS:
        return None
    xs = [math.log(x) for x in worst]
    ys = [math.log(y) for y in worst.values()]
    if max(xs) - min(xs) < math.log(GROWTH_MIN_SPREAD) or max(ys) - min(ys) < math.log(GROWTH_MIN_SPREAD):
        return None
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    return sxy / sxx


def another_algorithm(slope: float | None) -> bool:
    return slope is not None and not (GROWTH_SLOPE_LOW <= slope <= GROWTH_SLOPE_HIGH)


NUMBER_TYPES = frozenset({"Nat", "Int", "Float", "Bool", *FIXED_WIDTH_TYPES})


def numbers_only(param_types: Sequence[LeanType]) -> bool:
    """Every parameter is a number (or a Bool): a port cannot hand work over a container to a builtin."""
    return all(isinstance(ty, NamedType) and ty.name in NUMBER_TYPES for ty in param_types)


def judge_growth(engine_steps: Sequence[int], port_events: Sequence[int], numbers: bool,
                 engine_seconds: Callable[[], Sequence[float]] | None = None) -> tuple[float | None, str | None]:
    """The growth slope and, when the two sides do different work, why it is another algorithm.

    Besides the slope: when every parameter is a number, a port that does the same work on every
    input while the engine's steps vary ``GROWTH_MIN_SPREAD``-fold or more computes in closed form
    (``n & (n - 1) == 0``, a sum formula) what the Lean code loops for."""
    slope = growth_slope(engine_steps, port_events)
    if another_algorithm(slope):
        assert slope is not None
        return slope, f"engine steps grow as port work to the power {slope:.2f}"
    if numbers and port_events and len(set(port_events)) == 1:
        spread = max(engine_steps) / max(1, min(engine_steps))
        if spread >= GROWTH_MIN_SPREAD:
            return slope, (f"the port does the same work on every input (a closed form) while the "
                           f"engine's steps vary {spread:.0f}-fold")
        if engine_seconds is not None:
            small, large = engine_seconds()
            # both a ratio and an absolute growth: a check of a microsecond or two measured after
            # subtracting the batch overhead is mostly noise, which alone can give a large ratio
            if small > 0 and large / small >= GROWTH_MIN_SPREAD and large - small >= CLOSED_FORM_MIN_GROWTH:
                return slope, (f"the port does the same work on every input (a closed form) while the "
                               f"engine's time per check grows {large / small:.0f}-fold from the smallest "
                               "inputs to the largest (work a builtin does)")
    return slope, None


def deciles_by_size(sizes: Sequence[int]) -> tuple[list[int], list[int]]:
    """The positions of the smallest and of the largest tenth of the inputs (at least one each;
    ties in the given order)."""
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    tenth = max(1, len(order) // 10)
    return order[:tenth], order[-tenth:]


def geometric_mean(values: Sequence[float]) -> float | None:
    positive = [v for v in values if 0 < v < math.inf]
    return math.exp(sum(math.log(v) for v in positive) / len(positive)) if positive else None


# ---------------------------------------------------------------------------------------------
# Measuring one task


@dataclass
class Measured:
    task: str
    inputs: int
    engine_us: float
    port_us: float
    ratio: float
    growth_slope: float | None
    engine_passes: int
    port_passes: int
    engine_batch_overhead_us: float
    products_as: str | None


@dataclass
class Skipped:
    task: str
    reason: str
    detail: str


@dataclass
class Settings:
    min_seconds: float = 0.2
    min_passes: int = 3
    max_passes: int = 200
    limit_inputs: int | None = None
    port_timeout: float = DEFAULT_PORT_TIMEOUT
    clock: str = "wall"
    """``wall`` (``time.perf_counter``) or ``cpu`` (``time.process_time``: this process's CPU time,
    both sides alike, so that a loaded machine's waiting is not counted)."""

    def timer(self) -> Callable[[], float]:
        return time.process_time if self.clock == "cpu" else time.perf_counter


@dataclass
class Results:
    suite: str
    measured: list[Measured] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def geomean_ratio(self) -> float | None:
        return geometric_mean([m.ratio for m in self.measured])

    def skip_counts(self) -> dict[str, int]:
        counts = Counter(s.reason for s in self.skipped)
        return {reason: counts[reason] for reason in SKIP_REASONS if counts[reason]}


def _fastest_pass(run_pass: Callable[[], float], settings: Settings) -> tuple[float, int]:
    """The fastest plausible of repeated passes (seconds) and how many ran.

    A pass that read less than half the median is left out: the same work does not take half the
    usual CPU time, but the process's CPU clock can miss a worker thread that has just ended (its
    time is added to the process a moment later: on a loaded machine a 1.7 ms pass was read as
    0.1 ms), and the fastest pass would pick exactly that reading."""
    times: list[float] = []
    while len(times) < settings.min_passes or (sum(times) < settings.min_seconds and len(times) < settings.max_passes):
        times.append(run_pass())
    floor = statistics.median(times) / 2
    return min(t for t in times if t >= floor), len(times)


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def port_arguments(view: TypedTask, rows: Sequence[dict[str, Any]], product: type = tuple) -> list[tuple[Any, ...]]:
    """Fresh positional arguments (in signature order) for every input row."""
    return [tuple(to_python(row[name], ty, product) for name, ty in view.param_types.items()) for row in rows]


def _check_port(view: TypedTask, port: LoadedPort, tests: Sequence[TypedTest], answers: Sequence[Answer],
                product: type, timeout: float) -> list[int]:
    """Run the port once per input, compare, and return its work per input; raises :class:`Skip`."""
    rows = [t.args for t in tests if t.args is not None]
    events_per_input: list[int] = []
    for test, args, answer in zip(tests, port_arguments(view, rows, product), answers):
        where = f"test.json[{test.index}]"
        try:
            result, events = run_guarded(lambda args=args: call_counted(port, args), timeout)
        except (Exception, SystemExit, PortTimeout) as exc:
            raise Skip(PORT_ERROR, f"{where}: {type(exc).__name__}: {str(exc)[:100]}") from exc
        events_per_input.append(events)
        try:
            port_value = from_python(result, view.return_type)
        except Unmappable as exc:
            raise Skip(PORT_DISAGREES, f"{where}: {exc}") from exc
        differs = disagreement(port_value, answer.value, test.expected, test.expected_ok)
        if differs is not None:
            sides = [("port", port_value), ("engine", answer.value)]
            if test.expected_ok:
                sides.append(("expected", test.expected))
            raise Skip(differs, f"{where}: " + ", ".join(
                f"{side} {render_value(value, view.return_type, view.structs)[:40]}" for side, value in sides))
    return events_per_input


def measure_task(task: Task, report: str, backend: EmbeddedBackend, settings: Settings) -> Measured:
    """Check agreement, then time the engine and the port on the task's inputs; raises :class:`Skip`."""
    try:
        view = typed_view(task)
    except TypedTaskError as exc:
        raise Skip(TASK_UNLOADABLE, exc.reason) from exc
    tests = [t for t in view.tests if t.args is not None][: settings.limit_inputs]
    rows = [t.args for t in tests if t.args is not None]
    if not rows:
        raise Skip(NO_INPUTS, "no test input reads at its declared types")
    marker = algorithm_marker(report)
    if marker is not None:
        raise Skip(ANOTHER_ALGORITHM, f"the report says {marker!r}")
    try:
        port_arguments(view, rows)
    except Unmappable as exc:
        raise Skip(ARGS_UNMAPPABLE, str(exc)) from exc
    try:
        port = load_port(extract_port(report), task.signature.name, task.id, settings.port_timeout)
    except PortError as exc:
        raise Skip(PORT_NOT_LOADABLE, str(exc)) from exc

    # Warm-up: the engine parses and compiles the task here, and the outputs are compared.
    checks = [Check(kind=CheckKind.CODE, args=row) for row in rows]
    backend.start_unit()
    answers = backend.run(task, checks)
    for test, answer in zip(tests, answers):
        if answer.is_unknown:
            reason = answer.reason.value if answer.reason is not None else "unknown"
            raise Skip(ENGINE_UNKNOWN, f"test.json[{test.index}]: {reason}: {answer.detail[:100]}")
    products: list[type] = [tuple, list] if any(has_product(t) for t in view.param_types.values()) else [tuple]
    first_failure: Skip | None = None
    for product in products:
        try:
            port_events = _check_port(view, port, tests, answers, product, settings.port_timeout)
            break
        except Skip as skip:
            first_failure = first_failure or skip
            if skip.reason not in (PORT_ERROR, PORT_DISAGREES):
                raise
    else:
        assert first_failure is not None
        tried = " (also with products as lists)" if len(products) > 1 else ""
        raise Skip(first_failure.reason, first_failure.detail + tried)
    clock = settings.timer()

    def engine_pass(batch: list[Check]) -> float:
        backend.start_unit()
        # new check objects and argument dicts (the values shared), built before the clock starts:
        # each pass pays what a batch the engine has not seen pays (the engine keeps input sizes
        # by the identity of a check's argument dict)
        fresh = [Check.trusted(check.kind, dict(check.args), check.output) for check in batch]
        with _no_gc():
            started = clock()
            backend.run(task, fresh)
            return clock() - started

    def engine_seconds() -> tuple[float, float]:
        """Seconds per check over the smallest and over the largest tenth of the inputs."""
        small, large = deciles_by_size([sum(map(value_size, row.values())) for row in rows])
        overhead = _fastest_pass(lambda: engine_pass([]), settings)[0]
        per_check = []
        for part in (small, large):
            batch = [checks[i] for i in part]
            best = _fastest_pass(lambda batch=batch: engine_pass(batch), settings)[0]
            per_check.append(max(best - overhead, 0.0) / len(batch))
        return per_check[0], per_check[1]

    slope, different = judge_growth([a.steps or 0 for a in answers], port_events,
                                    numbers_only(list(view.param_types.values())), engine_seconds)
    if different is not None:
        raise Skip(ANOTHER_ALGORITHM, different)

    function = port.function

    def port_pass() -> float:
        argument_lists = port_arguments(view, rows, product)  # fresh: a port may mutate its arguments

        def calls() -> float:
            started = clock()
            for args in argument_lists:
                function(*args)
            return clock() - started

        with _no_gc():
            seconds: float = run_guarded(calls, settings.port_timeout * len(rows))
        return seconds

    try:
        engine_best, engine_passes = _fastest_pass(lambda: engine_pass(checks), settings)
        # What a batch costs whatever its checks (the evaluation thread, finding the compiled
        # program), measured alike and taken off: the port's clock runs inside its thread.
        overhead, _ = _fastest_pass(lambda: engine_pass([]), settings)
        port_best, port_passes = _fastest_pass(port_pass, settings)
    except (Exception, SystemExit, PortTimeout) as exc:  # a port that ran once but not again
        raise Skip(PORT_ERROR, f"while timing: {type(exc).__name__}: {str(exc)[:100]}") from exc
    engine_us = max(engine_best - overhead, 0.0) / len(rows) * 1e6
    port_us = port_best / len(rows) * 1e6
    return Measured(
        task=task.id, inputs=len(rows), engine_us=engine_us, port_us=port_us,
        ratio=engine_us / port_us if port_us > 0 else math.inf, growth_slope=slope,
        engine_passes=engine_passes, port_passes=port_passes, engine_batch_overhead_us=overhead * 1e6,
        products_as=product.__name__ if len(products) > 1 else None,
    )


def _report_path(task_id: str, suite: Path, reports: Path | None) -> Path | None:
    for directory in ([reports] if reports is not None else []) + [suite]:
        path = directory / task_id / REPORT_NAME
        if path.is_file():
            return path
    return None


def run_benchmark(suite: Path, task_ids: Sequence[str], reports: Path | None, settings: Settings,
                  progress: bool = True) -> Results:
    results = Results(suite=str(suite))
    backend = EmbeddedBackend()
    for number, task_id in enumerate(task_ids, start=1):
        started = time.perf_counter()
        outcome: Measured | Skipped
        report_path = _report_path(task_id, suite, reports)
        if report_path is None:
            outcome = Skipped(task_id, NO_PORT, f"no {REPORT_NAME}")
        else:
            try:
                task = load_task(suite / task_id)
                outcome = measure_task(task, report_path.read_text(encoding="utf-8"), backend, settings)
            except TaskLoadError as exc:
                outcome = Skipped(task_id, TASK_UNLOADABLE, str(exc))
            except Skip as skip:
                outcome = Skipped(task_id, skip.reason, skip.detail)
        if isinstance(outcome, Measured):
            results.measured.append(outcome)
            said = f"{outcome.engine_us:.1f} us vs {outcome.port_us:.2f} us ({outcome.ratio:.0f}x)"
        else:
            results.skipped.append(outcome)
            said = f"skipped, {outcome.reason}: {outcome.detail}"
        if progress:
            print(f"[{number}/{len(task_ids)}] {task_id}: {said} [{time.perf_counter() - started:.1f} s]",
                  file=sys.stderr, flush=True)
    return results


# ---------------------------------------------------------------------------------------------
# Printing


def format_results(results: Results) -> str:
    header = f"{'task':<22} {'inputs':>6} {'engine us/call':>15} {'port us/call':>13} {'ratio':>8} {'growth':>7}"
    lines = [header, "-" * len(header)]
    for m in results.measured:
        growth = f"{m.growth_slope:.2f}" if m.growth_slope is not None else "-"
        lines.append(f"{m.task:<22} {m.inputs:>6} {m.engine_us:>15.2f} {m.port_us:>13.3f} {m.ratio:>7.1f}x {growth:>7}")
    lines.append("")
    total = len(results.measured) + len(results.skipped)
    mean = results.geomean_ratio
    lines.append(f"tasks measured: {len(results.measured)} of {total}")
    lines.append("geometric-mean ratio (engine / port): " + (f"{mean:.1f}x" if mean is not None else "n/a"))
    counts = results.skip_counts()
    summary = ", ".join(f"{reason} {n}" for reason, n in counts.items())
    lines.append(f"skipped: {len(results.skipped)}" + (f" ({summary})" if summary else ""))
    for s in sorted(results.skipped, key=lambda s: (SKIP_REASONS.index(s.reason), s.task)):
        lines.append(f"  {s.task}: {s.reason}: {s.detail}")
    return "\n".join(lines)


def results_json(results: Results, settings: Settings) -> dict[str, Any]:
    return {
        "suite": results.suite,
        "settings": asdict(settings),
        "geomean_ratio": results.geomean_ratio,
        "measured": [asdict(m) for m in results.measured],
        "skipped": [asdict(s) for s in results.skipped],
        "skip_counts": results.skip_counts(),
    }


def _default_suite() -> Path:
    return Path(os.environ.get("VERISCALE_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "verinaplus"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", nargs="?", type=Path, default=_default_suite(),
                        help="the suite whose test inputs are used (default: VerinaPlus)")
    parser.add_argument("--reports", type=Path, default=None,
                        help=f"where each task's {REPORT_NAME} is read first (default: the Verina suite beside "
                             "the given one, if there is one); the task's own directory is the fallback")
    parser.add_argument("--tasks", default=None, help="only these tasks (comma-separated ids)")
    parser.add_argument("--limit-inputs", type=int, default=None, help="only the first N inputs of each task")
    parser.add_argument("--min-seconds", type=float, default=Settings.min_seconds,
                        help="seconds each side spends per task before its passes stop (default: %(default)s)")
    parser.add_argument("--min-passes", type=int, default=Settings.min_passes, help="(default: %(default)s)")
    parser.add_argument("--port-timeout", type=float, default=DEFAULT_PORT_TIMEOUT,
                        help="wall-clock seconds a port may take to load or for one call (default: %(default)s)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time passes by wall clock or by this process's CPU time (steadier on a "
                             "loaded machine) (default: %(default)s)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    if not args.suite.is_dir():
        print(f"error: {args.suite}: not a directory", file=sys.stderr)
        return 2
    reports = args.reports
    if reports is None and (args.suite.parent / "verina").is_dir():
        reports = args.suite.parent / "verina"
    available = sorted(p.name for p in args.suite.iterdir() if (p / "task.json").is_file())
    if args.tasks:
        task_ids = sorted({t.strip() for t in args.tasks.split(",") if t.strip()})
        missing = [t for t in task_ids if t not in available]
        if missing:
            print(f"error: not in {args.suite}: {', '.join(missing)}", file=sys.stderr)
            return 2
    else:
        task_ids = [t for t in available if _report_path(t, args.suite, reports) is not None]
    settings = Settings(min_seconds=args.min_seconds, min_passes=max(1, args.min_passes),
                        limit_inputs=args.limit_inputs, port_timeout=args.port_timeout, clock=args.clock)
    load_before = os.getloadavg()
    results = run_benchmark(args.suite, task_ids, reports, settings, progress=not args.no_progress)
    load_after = os.getloadavg()
    print(format_results(results))
    print(f"load average before: {load_before[0]:.2f}, after: {load_after[0]:.2f}; cores: {os.cpu_count()}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = results_json(results, settings) | {"load_average": [load_before[0], load_after[0]]}
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
