"""One way to run a pure per-task function over many tasks: in local processes or on a Ray cluster.

Every stage that works task by task (expand, validate, score, power) hands its units of work to
an :class:`Executor`::

    executor = make_executor(ExecutorConfig(kind="local", workers=4))
    results = executor.map(work, units, setup=WorkerSetup(init, (engine,)), crashed=crash_result)

The contract, the same for both implementations:

* **Deterministic order.** ``map`` returns one result per unit, in the units' order, whatever
  order the workers finished in; ``on_result(index, result)`` additionally sees each result as
  soon as it arrives (to checkpoint it), and ``progress(done, total)`` counts them.
* **Crash isolation.** A worker process that dies (a C stack overflow, the memory limit, the
  kernel's OOM killer) costs only the unit it was running: that unit is retried once, alone (no
  other unit running, in a fresh worker) -- split into its parts first when ``split`` is given --
  and if it dies again its result is ``crashed(unit, reason)``. The run goes on.
* **Memory limit.** Each worker process limits its own address space (``RLIMIT_AS``) to
  ``memory_limit`` bytes before its setup runs, so a runaway task gets a ``MemoryError`` (or
  dies, and is isolated as above) instead of exhausting the machine.
* **Exceptions are not crashes.** An exception raised by ``work`` (e.g. a configuration error
  that should end the run) stops the run and is raised by ``map``; the workers are stopped.

``work`` and the setup's functions and arguments travel to the workers, so they must be
picklable (module-level functions); ``crashed``, ``split``, ``merge`` and the callbacks run here. The units and results travel between processes (pickled), so the same units give the
same results -- the same bytes out -- on either implementation. With ``workers=1`` the local
executor runs everything in this process: no crash isolation and no memory limit, but
monkeypatches and debuggers see the work.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "Executor",
    "ExecutorConfig",
    "ExecutorKind",
    "LocalExecutor",
    "RayExecutor",
    "WorkerSetup",
    "make_executor",
    "ProgressOption",
    "as_progress",
    "progress_bar",
    "ray_runtime_env",
    "worker_memory_limit",
]

Unit = TypeVar("Unit")
Result = TypeVar("Result")
ExecutorKind = Literal["local", "ray"]

DEFAULT_MEMORY_LIMIT = 6 * 1024**3
"""Address-space limit of a worker process (bytes): far above what any Verina task needs, far
below what would starve the machine."""

MemoryLimit = int | None | Literal["default"]
"""A ``map`` call's memory limit: bytes, ``None`` for none, ``"default"`` for the executor's."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called once before the first unit and after every finished one."""


class ExecutorConfig(BaseModel):
    """Which executor runs the workers, and how many."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ExecutorKind = "local"
    workers: int | None = Field(default=None, ge=1)
    """Worker processes (default: one per core here; one per CPU of the cluster on Ray)."""
    address: str | None = None
    """Ray only: the cluster to join (``ray.init``'s address); default: Ray's choice (see
    :class:`RayExecutor`)."""
    memory_limit: int | None = Field(default=DEFAULT_MEMORY_LIMIT, ge=1)
    """Address-space limit of every worker in bytes (``None``: none). Stages drop it for real
    Lean, whose REPL children inherit it and map gigabytes of Mathlib."""


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker runs once before its first unit, and when it ends (module-level functions).

    Per-worker state (an engine, an LLM client) lives in the worker's module globals, set by
    ``init``; ``close`` releases it (engines holding child processes must).
    """

    init: Callable[..., None] | None = None
    args: tuple[Any, ...] = ()
    close: Callable[[], None] | None = None


class WorkerCrashed(Exception):
    """A worker process died while running a unit (internal: becomes ``crashed``'s result)."""


class Executor(ABC):
    """Maps a pure per-unit function over units (see the module docstring for the contract)."""

    def __init__(self, workers: int | None = None, memory_limit: int | None = DEFAULT_MEMORY_LIMIT) -> None:
        self.workers = workers
        self.memory_limit = memory_limit

    def map(
        self,
        work: Callable[[Unit], Result],
        units: Sequence[Unit],
        *,
        crashed: Callable[[Unit, str], Result],
        setup: WorkerSetup | None = None,
        split: Callable[[Unit], Sequence[Unit]] | None = None,
        merge: Callable[[Sequence[Result]], Result] | None = None,
        on_result: Callable[[int, Result], None] | None = None,
        progress: Progress | None = None,
        memory_limit: MemoryLimit = "default",
    ) -> list[Result]:
        """``[work(u) for u in units]``, computed by the workers, in the units' order.

        ``split(unit)`` gives the parts to retry separately after a crash and ``merge`` puts
        their results back together (both or neither). ``memory_limit`` overrides the
        executor's for this call.
        """
        if (split is None) != (merge is None):
            raise ValueError("split and merge go together")
        limit = self.memory_limit if memory_limit == "default" else memory_limit
        run = _Run(work, list(units), crashed, setup or WorkerSetup(), split, merge, on_result, progress, limit)
        if run.units:
            run.report_progress()
            self._execute(run)
        return run.ordered()

    @abstractmethod
    def _execute(self, run: _Run[Any, Any]) -> None:
        """Compute every unit of ``run``, calling ``run.finish`` / ``run.crash`` for each."""


# ---------------------------------------------------------------------------------------------
# The bookkeeping both implementations share


class _Run(Generic[Unit, Result]):
    """One ``map`` call: the units, their results so far, and the callbacks."""

    def __init__(
        self,
        work: Callable[[Unit], Result],
        units: list[Unit],
        crashed: Callable[[Unit, str], Result],
        setup: WorkerSetup,
        split: Callable[[Unit], Sequence[Unit]] | None,
        merge: Callable[[Sequence[Result]], Result] | None,
        on_result: Callable[[int, Result], None] | None,
        progress: Progress | None,
        memory_limit: int | None,
    ) -> None:
        self.work = work
        self.units = units
        self.crashed = crashed
        self.setup = setup
        self.split = split
        self.merge = merge
        self.on_result = on_result
        self.progress = progress
        self.memory_limit = memory_limit
        self.results: dict[int, Result] = {}
        self.retry: list[int] = []
        """Units whose worker died once, in the order they died."""

    def finish(self, index: int, result: Result) -> None:
        self.results[index] = result
        if self.on_result is not None:
            self.on_result(index, result)
        self.report_progress()

    def crash(self, index: int) -> None:
        """The worker running unit ``index`` died (for the first time): retry it later, alone."""
        self.retry.append(index)

    def retry_parts(self, index: int) -> list[Unit]:
        unit = self.units[index]
        parts = list(self.split(unit)) if self.split is not None else []
        return parts or [unit]

    def finish_parts(self, index: int, results: Sequence[Result]) -> None:
        self.finish(index, results[0] if self.merge is None else self.merge(results))

    def report_progress(self) -> None:
        if self.progress is not None:
            self.progress(len(self.results), len(self.units))

    def ordered(self) -> list[Result]:
        return [self.results[i] for i in range(len(self.units))]


def _crash_reason(detail: str) -> str:
    return f"the worker process running this task crashed twice ({detail}: a C stack overflow, the memory limit?)"


def limit_memory(limit: int | None) -> None:
    """Limit this process's address space to ``limit`` bytes (never raise an existing lower limit)."""
    if limit is None:
        return
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


#: What a stage function accepts as ``progress``: a callback, ``True`` for a bar on stderr (an
#: explicit opt-in: by default the library stays silent), or ``False``/``None`` for nothing.
ProgressOption = Progress | bool | None


def as_progress(progress: ProgressOption, description: str) -> Progress | None:
    """The callback a stage reports ``(done, total)`` to, from its ``progress`` argument."""
    if progress is True:
        return progress_bar(description)
    if progress is False or progress is None:
        return None
    return progress


def progress_bar(description: str) -> Progress:
    """A progress callback drawing a bar on stderr, closed when the last unit is done."""
    from tqdm import tqdm

    bar = tqdm(desc=description, unit="task", file=sys.stderr, dynamic_ncols=True)

    def update(done: int, total: int) -> None:
        bar.total, bar.n = total, done
        bar.refresh()
        if done == total:
            bar.close()

    return update


def worker_memory_limit(engine: str) -> MemoryLimit:
    """The executor's limit for the embedded engine; none for real Lean, whose REPLs (the workers'
    children, which inherit the limit) map gigabytes of Mathlib's .olean files."""
    return "default" if engine == "embedded" else None


def _start_worker(setup: WorkerSetup, memory_limit: int | None) -> None:
    limit_memory(memory_limit)
    if setup.init is not None:
        setup.init(*setup.args)


class _Pool(Protocol):
    def drain(
        self, queue: list[tuple[int, Any]], finished: Callable[[int, Any], None], died: Callable[[int, str], None]
    ) -> None: ...

    def stop(self) -> None: ...


def _run_pooled(run: _Run[Any, Any], new_pool: Callable[[int], _Pool], size: int) -> None:
    """Every unit on ``size`` workers; then each unit whose worker died is retried alone."""
    pool = new_pool(size)
    try:
        pool.drain(list(enumerate(run.units)), run.finish, lambda index, _detail: run.crash(index))
    finally:
        pool.stop()
    for index in list(run.retry):
        run.finish_parts(index, [_run_alone(run, new_pool, part) for part in run.retry_parts(index)])


def _run_alone(run: _Run[Any, Any], new_pool: Callable[[int], _Pool], unit: Any) -> Any:
    """Run one unit in a fresh worker with nothing else running: its result, or ``crashed``'s
    (nothing else runs, so a second death is certainly this unit's own)."""
    outcome: list[Any] = []
    deaths: list[str] = []
    pool = new_pool(1)
    try:
        pool.drain([(0, unit)], lambda _i, result: outcome.append(result), lambda _i, detail: deaths.append(detail))
    finally:
        pool.stop()
    return outcome[0] if outcome else run.crashed(unit, _crash_reason(deaths[0]))


# ---------------------------------------------------------------------------------------------
# Local processes


def _local_worker_main(conn: Connection, setup: WorkerSetup, memory_limit: int | None) -> None:
    """A worker process: set up, then answer ``(work, unit)`` requests until told to stop."""
    setup_error: BaseException | None = None
    try:
        _start_worker(setup, memory_limit)
    except Exception as exc:  # noqa: BLE001 - every request is answered with it: the run stops
        setup_error = exc
    try:
        while True:
            request = conn.recv()
            if request is None:
                break
            work, unit = request
            try:
                if setup_error is not None:
                    raise setup_error
                reply: tuple[str, Any] = ("ok", work(unit))
            except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
                reply = ("error", exc)
            try:
                conn.send(reply)
            except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
                conn.send(("error", RuntimeError(f"cannot send the result back: {type(exc).__name__}: {exc}")))
    except (EOFError, KeyboardInterrupt):  # the parent went away or the user interrupted
        pass
    finally:
        if setup.close is not None and setup_error is None:
            setup.close()
        conn.close()


class _LocalWorker:
    """One worker process and the pipe to it; runs one unit at a time."""

    def __init__(self, context: Any, setup: WorkerSetup, memory_limit: int | None) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_local_worker_main, args=(child, setup, memory_limit))
        self.process.start()
        child.close()
        self.busy: int | None = None
        """The index of the unit it is running."""

    def submit(self, work: Callable[[Any], Any], unit: Any, index: int) -> None:
        self.busy = index
        with contextlib.suppress(OSError):  # it died already: receive() reports the crash
            self.conn.send((work, unit))

    def ready(self, signalled: list[Any]) -> bool:
        return self.busy is not None and (self.conn in signalled or self.process.sentinel in signalled)

    def receive(self) -> tuple[str, Any]:
        """The reply to the unit it is running; raises ``WorkerCrashed`` when the process died."""
        try:
            reply: tuple[str, Any] = self.conn.recv()
        except (EOFError, OSError) as exc:
            self.busy = None
            self.process.join(5)
            raise WorkerCrashed(f"exit code {self.process.exitcode}") from exc
        self.busy = None
        return reply

    def stop(self, *, gracefully: bool) -> None:
        if gracefully and self.process.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.process.join(30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        self.conn.close()


class LocalExecutor(Executor):
    """Worker processes on this machine (``workers``: default one per core)."""

    def _execute(self, run: _Run[Any, Any]) -> None:
        if self.workers == 1:
            _run_inline(run)
            return
        count = max(1, min(len(run.units), self.workers or os.cpu_count() or 1))
        _run_pooled(run, lambda size: _LocalPool(run, size), count)


class _LocalPool:
    """Worker processes, started when there is a unit for them and restarted after a death."""

    def __init__(self, run: _Run[Any, Any], size: int) -> None:
        self.run = run
        self.context = multiprocessing.get_context()
        self.workers: list[_LocalWorker | None] = [None] * size
        self.clean = False

    def drain(
        self,
        queue: list[tuple[int, Any]],
        finished: Callable[[int, Any], None],
        died: Callable[[int, str], None],
    ) -> None:
        """Run every ``(index, unit)`` of ``queue``; ``finished(index, result)`` or
        ``died(index, detail)`` for each. An exception raised by the work is raised here."""
        queue = list(queue)
        while True:
            for slot, worker in enumerate(self.workers):
                if queue and (worker is None or worker.busy is None):
                    if worker is None:
                        worker = self.workers[slot] = _LocalWorker(self.context, self.run.setup, self.run.memory_limit)
                    index, unit = queue.pop(0)
                    worker.submit(self.run.work, unit, index)
            busy = [w for w in self.workers if w is not None and w.busy is not None]
            if not busy:
                break
            signalled = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for slot, worker in enumerate(self.workers):
                if worker is None or not worker.ready(signalled):
                    continue
                running = worker.busy
                assert running is not None  # ready() implies busy
                try:
                    kind, value = worker.receive()
                except WorkerCrashed as crash:
                    worker.stop(gracefully=False)
                    self.workers[slot] = None  # a fresh one when there is more to do
                    died(running, str(crash))
                    continue
                if kind == "error":
                    raise value
                finished(running, value)
        self.clean = True

    def stop(self) -> None:
        for worker in self.workers:
            if worker is not None:
                worker.stop(gracefully=self.clean)


def _run_inline(run: _Run[Any, Any]) -> None:
    """``workers=1``: in this process, without crash isolation or memory limit."""
    if run.setup.init is not None:
        run.setup.init(*run.setup.args)
    try:
        for index, unit in enumerate(run.units):
            run.finish(index, run.work(unit))
    finally:
        if run.setup.close is not None:
            run.setup.close()


# ---------------------------------------------------------------------------------------------
# Ray


class RayExecutor(Executor):
    """Ray actors, one per worker (default: one per CPU of the cluster), each set up once.

    Joins the cluster at ``address`` unless Ray is already initialised in this process; without
    an address Ray itself chooses: ``$RAY_ADDRESS``, a cluster already running on this machine,
    else a new local instance. What it joined it leaves again.
    """

    def __init__(
        self, workers: int | None = None, memory_limit: int | None = DEFAULT_MEMORY_LIMIT, address: str | None = None
    ) -> None:
        super().__init__(workers, memory_limit)
        self.address = address

    def _execute(self, run: _Run[Any, Any]) -> None:
        ray = _import_ray()
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                     runtime_env=ray_runtime_env())
        try:
            self._execute_on_cluster(ray, run)
        finally:
            if started_here:
                ray.shutdown()

    def _execute_on_cluster(self, ray: Any, run: _Run[Any, Any]) -> None:
        actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_RayWorker)
        count = max(1, min(len(run.units), self.workers or int(ray.cluster_resources().get("CPU", 1))))
        _run_pooled(run, lambda size: _RayPool(ray, actor_class, run, size), count)


class _RayPool:
    """Ray actors, created when there is a unit for them and recreated after a death."""

    def __init__(self, ray: Any, actor_class: Any, run: _Run[Any, Any], size: int) -> None:
        self.ray = ray
        self.actor_class = actor_class
        self.run = run
        self.actors: list[Any] = [None] * size
        self.clean = False

    def drain(
        self,
        queue: list[tuple[int, Any]],
        finished: Callable[[int, Any], None],
        died: Callable[[int, str], None],
    ) -> None:
        """As :meth:`_LocalPool.drain`."""
        ray = self.ray
        queue = list(queue)
        in_flight: dict[Any, tuple[int, int]] = {}  # object ref -> (unit index, actor slot)
        while True:
            busy = {slot for _, slot in in_flight.values()}
            for slot in range(len(self.actors)):
                if queue and slot not in busy:
                    if self.actors[slot] is None:
                        self.actors[slot] = self.actor_class.remote(self.run.setup, self.run.memory_limit)
                    index, unit = queue.pop(0)
                    in_flight[self.actors[slot].run.remote(self.run.work, unit)] = (index, slot)
            if not in_flight:
                break
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in done:
                index, slot = in_flight.pop(ref)
                try:
                    value = ray.get(ref)
                except ray.exceptions.RayActorError as exc:
                    with contextlib.suppress(Exception):
                        ray.kill(self.actors[slot])
                    self.actors[slot] = None  # a fresh one when there is more to do
                    died(index, f"Ray: {type(exc).__name__}")
                    continue
                except ray.exceptions.RayTaskError as exc:
                    raise exc.as_instanceof_cause() from None
                finished(index, value)
        self.clean = True

    def stop(self) -> None:
        for actor in self.actors:
            if actor is None:
                continue
            if self.clean:
                with contextlib.suppress(Exception):
                    self.ray.get(actor.close.remote(), timeout=30)
            with contextlib.suppress(Exception):
                self.ray.kill(actor)


class _RayWorker:
    """The body of a Ray actor: set up once, then run units (made remote in ``RayExecutor``)."""

    def __init__(self, setup: WorkerSetup, memory_limit: int | None) -> None:
        self.setup = setup
        self.setup_error: Exception | None = None
        try:
            _start_worker(setup, memory_limit)
        except Exception as exc:  # noqa: BLE001 - raised by every call: the run stops with it
            self.setup_error = exc

    def run(self, work: Callable[[Any], Any], unit: Any) -> Any:
        if self.setup_error is not None:
            raise self.setup_error
        return work(unit)

    def close(self) -> None:
        if self.setup.close is not None and self.setup_error is None:
            self.setup.close()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ExecutorUnavailable("the Ray executor needs Ray: pip install 'veriscale[ray]'") from exc
    return ray


def ray_runtime_env() -> dict[str, Any]:
    """Workers import ``veriscale`` from where this process does (a checkout, not only a wheel)."""
    # this module sits at the package's top level: its directory's parent holds ``veriscale``
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH", "")) if p)
    return {"env_vars": {"PYTHONPATH": path}}


class ExecutorUnavailable(RuntimeError):
    """The requested executor cannot run here (Ray not installed)."""


def make_executor(config: ExecutorConfig | None = None) -> Executor:
    """The executor ``config`` describes (default: local processes, one per core)."""
    config = config or ExecutorConfig()
    if config.kind == "ray":
        return RayExecutor(config.workers, config.memory_limit, config.address)
    if config.address is not None:
        raise ValueError("--address is for the Ray executor (--executor ray)")
    return LocalExecutor(config.workers, config.memory_limit)
