"""REPL workers: one process each, with its environments, restarts and a pool around them.

A worker owns at most one live :class:`ReplProcess`. It elaborates an import header once per
process (cached by import set) and a task's definitions once per process (cached by task), and
runs check commands in the resulting environment. When a command fails (timeout, crash, output
flood, protocol error) the process group is already dead; the worker forgets its environments and
the next command starts a fresh process. After ``max_commands_per_process`` commands the process
is retired the same way, because the REPL never frees the environments it has recorded.
"""

from __future__ import annotations

import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from veriscale.backends.lean.config import LeanBackendConfig, ReplLaunch, StatsRecorder
from veriscale.backends.lean.process import ReplFailure, ReplProcess, ReplProtocolError
from veriscale.backends.lean.protocol import (
    ReplAnswerError,
    ReplMessage,
    ReplRefusal,
    ReplResponse,
    command_request,
    decode_response,
)
from veriscale.backends.lean.snippets import Templates
from veriscale.backends.lean.source import TaskSource

TASK_ENVS_PER_PROCESS = 16


class EnvironmentFailure(Exception):
    """The imports or the definitions could not be elaborated into an environment."""

    def __init__(self, kind: str, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")


@dataclass
class TaskEnvironment:
    env: int
    messages: list[ReplMessage] = field(default_factory=list)

    @property
    def errors(self) -> list[ReplMessage]:
        return [m for m in self.messages if m.is_error]


class ReplWorker:
    """One REPL process slot. Used by one thread at a time."""

    def __init__(
        self,
        index: int,
        launch: Callable[[], ReplLaunch],
        config: LeanBackendConfig,
        stats: StatsRecorder,
        templates: Templates,
    ) -> None:
        self.index = index
        self._launch = launch
        self.config = config
        self.stats = stats
        self.templates = templates
        self.process: ReplProcess | None = None
        self._commands = 0
        self._ever_started = False
        self._pending_start_reason: str | None = None
        self._headers: dict[tuple[str, ...], int | EnvironmentFailure] = {}
        self._tasks: OrderedDict[str, TaskEnvironment] = OrderedDict()

    # ------------------------------------------------------------------------------------------
    # Process lifecycle

    def _start(self) -> ReplProcess:
        launch = self._launch()
        process = ReplProcess(
            launch.command,
            cwd=launch.cwd,
            env=self.config.repl_env,
            memory_limit_mb=self.config.memory_limit_mb,
            max_response_bytes=self.config.max_response_mb * 1024 * 1024,
        )
        counts = {"repl_starts": 1}
        if self._pending_start_reason == "failure":
            counts["restarts_after_failure"] = 1
        elif self._pending_start_reason == "recycle":
            counts["recycles"] = 1
        self.stats.add(**counts)
        self._pending_start_reason = None
        self._ever_started = True
        self._commands = 0
        self._headers.clear()
        self._tasks.clear()
        self.process = process
        return process

    def _live_process(self, *, allow_recycle: bool) -> ReplProcess:
        # Recycling is only allowed before an environment id is handed out (``task_env``), never
        # between handing one out and using it.
        if allow_recycle and self.process is not None and self._commands >= self.config.max_commands_per_process:
            self.process.close()
            self.process = None
            self._pending_start_reason = "recycle"
        if self.process is None:
            return self._start()
        return self.process

    def prepare(self) -> None:
        """A safe point: start the process, or retire it if it has served its command budget."""
        self._live_process(allow_recycle=True)

    def _forget_process(self, reason: str) -> None:
        if self.process is not None:
            self.process.kill()
        self.process = None
        self._pending_start_reason = reason
        self._headers.clear()
        self._tasks.clear()

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
        self.process = None
        self._headers.clear()
        self._tasks.clear()

    # ------------------------------------------------------------------------------------------
    # Commands

    def command(self, cmd: str, env: int | None, timeout: float) -> ReplResponse:
        """Run one command; raises :class:`ReplFailure` (the process is then gone)."""
        process = self._live_process(allow_recycle=False)
        self._commands += 1
        self.stats.add(commands=1)
        try:
            answer = decode_response(process.request(command_request(cmd, env), timeout))
        except ReplFailure as exc:
            if exc.kind == "timeout":
                self.stats.add(timeouts=1)
            else:
                self.stats.add(crashes=1)
            self._forget_process("failure")
            raise
        except ReplAnswerError as exc:
            # An answer of no known shape (no env, say): the process is out of step with us.
            self.stats.add(crashes=1)
            self._forget_process("failure")
            raise ReplProtocolError(str(exc)) from exc
        if isinstance(answer, ReplRefusal):
            # E.g. "Unknown environment.": this process is out of step with our bookkeeping.
            self.stats.add(crashes=1)
            self._forget_process("failure")
            raise ReplProtocolError(f"the REPL refused the command: {answer.message}")
        if not isinstance(answer, ReplResponse):
            self.stats.add(crashes=1)
            self._forget_process("failure")
            raise ReplProtocolError(f"the REPL answered a command with a {type(answer).__name__}")
        return answer

    def header_env(self, imports: tuple[str, ...]) -> int:
        cached = self._headers.get(imports)
        if isinstance(cached, EnvironmentFailure):
            raise cached
        if cached is not None and self.process is not None:
            return cached
        text = self.templates.header(imports)
        self.stats.add(header_loads=1)
        try:
            response = self.command(text, None, self.config.import_timeout_s)
        except ReplFailure as exc:
            raise EnvironmentFailure(exc.kind, f"loading imports {', '.join(imports)}: {exc.detail}") from exc
        if response.errors:
            failure = EnvironmentFailure(
                "error", "the imports do not elaborate: " + "; ".join(m.data for m in response.errors[:3])
            )
            self._headers[imports] = failure
            raise failure
        assert response.env is not None
        self._headers[imports] = response.env
        return response.env

    def task_env(self, source: TaskSource) -> TaskEnvironment:
        """The environment holding the task's definitions (elaborated once per process)."""
        # Recycle before looking at caches: a retired process takes its environments with it.
        self.prepare()
        cached = self._tasks.get(source.key)
        if cached is not None:
            self._tasks.move_to_end(source.key)
            return cached
        header = self.header_env(source.imports)
        self.stats.add(definition_loads=1)
        try:
            response = self.command(source.body, header, self.config.definitions_timeout_s)
        except ReplFailure as exc:
            raise EnvironmentFailure(exc.kind, f"elaborating the task's definitions: {exc.detail}") from exc
        assert response.env is not None
        environment = TaskEnvironment(env=response.env, messages=list(response.messages))
        self._tasks[source.key] = environment
        while len(self._tasks) > TASK_ENVS_PER_PROCESS:
            self._tasks.popitem(last=False)
        return environment


Job = TypeVar("Job")
Result = TypeVar("Result")


class ReplPool:
    """A fixed set of workers. Jobs are pulled from a shared queue by one thread per worker.

    Worker 0 takes the first job, so a run with a single batch uses (and loads imports into) a
    single process; results come back in job order whatever the scheduling.
    """

    def __init__(
        self,
        config: LeanBackendConfig,
        stats: StatsRecorder,
        launch: Callable[[], ReplLaunch],
        templates: Templates,
    ) -> None:
        self.workers = [ReplWorker(i, launch, config, stats, templates) for i in range(config.workers)]
        self._lock = threading.Lock()

    def map(self, function: Callable[[ReplWorker, Job], Result], jobs: Sequence[Job]) -> list[Result]:
        """``[function(worker, job) for job in jobs]`` spread over the workers.

        ``function`` must not raise for problems of a single job; an unexpected exception is
        re-raised here after all threads have stopped.
        """
        with self._lock:
            if not jobs:
                return []
            active = self.workers[: min(len(self.workers), len(jobs))]
            if len(active) == 1:
                return [function(active[0], job) for job in jobs]
            pending: queue.SimpleQueue[tuple[int, Job]] = queue.SimpleQueue()
            for position, job in enumerate(jobs):
                pending.put((position, job))
            results: list[Result | None] = [None] * len(jobs)
            errors: list[BaseException] = []

            def drain(worker: ReplWorker) -> None:
                while not errors:
                    try:
                        position, job = pending.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        results[position] = function(worker, job)
                    except BaseException as exc:  # surfaced to the caller below
                        errors.append(exc)
                        return

            threads = [
                threading.Thread(target=drain, args=(worker,), name=f"veriscale-lean-{worker.index}", daemon=True)
                for worker in active
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if errors:
                raise errors[0]
            return results  # type: ignore[return-value]

    def first(self, function: Callable[[ReplWorker], Result]) -> Result:
        """Run ``function`` on worker 0 (the one most likely to hold the environments)."""
        with self._lock:
            return function(self.workers[0])

    def close(self) -> None:
        with self._lock:
            for worker in self.workers:
                worker.close()
