"""One REPL process: start it in its own process group under a memory limit, exchange JSON with
a wall-clock deadline, and kill the whole group when it hangs, crashes or floods its output.

Why not LeanInteract's server class: it kills the process tree it can see through ``psutil``
(children that re-parented themselves escape), applies the memory limit through ``preexec_fn``
(unsafe when the caller runs threads, as the worker pool does), and waits for answers in a helper
thread that outlives a kill. Here every guarantee is explicit:

* the process is started with ``start_new_session=True``: it leads a new process group, and
  ``os.killpg`` reaches ``lake``, the REPL and anything they spawned;
* the memory limit is ``RLIMIT_AS``, set by a tiny exec shim (``python -c`` that calls
  ``setrlimit`` and then ``execvp``) so no code runs between ``fork`` and ``exec`` in this process;
* reads use ``select`` against a deadline on the raw pipe, so a silent process costs exactly its
  timeout; answers larger than a cap are refused (the process is killed) instead of exhausting
  this process's memory;
* stderr goes to an unbuffered temporary file, so a chatty process can never block on a full
  pipe, and its tail is available for the error report.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from veriscale.backends.lean.protocol import ResponseReader, encode_request

# Runs in the child: set the address-space limit, then become the real command.
_RLIMIT_SHIM = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)

_READ_CHUNK = 1 << 16


class ReplFailure(Exception):
    """The process could not answer; it has been killed. ``kind`` says why."""

    kind = "error"

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"{self.kind}: {detail}")


class ReplTimeout(ReplFailure):
    kind = "timeout"


class ReplCrashed(ReplFailure):
    kind = "crashed"


class ReplOutputTooLarge(ReplFailure):
    kind = "output too large"


class ReplProtocolError(ReplFailure):
    kind = "protocol error"


def limited_command(command: Sequence[str], memory_limit_mb: int | None) -> list[str]:
    """``command`` wrapped so that it runs under ``RLIMIT_AS = memory_limit_mb`` MiB."""
    if memory_limit_mb is None:
        return list(command)
    limit = int(memory_limit_mb) * 1024 * 1024
    return [sys.executable, "-I", "-S", "-c", _RLIMIT_SHIM, str(limit), *command]


class ReplProcess:
    """A started REPL. Not thread-safe: one caller at a time (the worker owning it)."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        memory_limit_mb: int | None = None,
        max_response_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self.command = list(command)
        self.max_response_bytes = max_response_bytes
        self._stderr: IO[bytes] = tempfile.TemporaryFile(prefix="veriscale-repl-", suffix=".stderr")
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            limited_command(self.command, memory_limit_mb),
            cwd=str(cwd) if cwd is not None else None,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
            start_new_session=True,
            close_fds=True,
        )
        self.pid = self._proc.pid
        self._reader = ResponseReader()

    # ------------------------------------------------------------------------------------------
    # State

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def noise(self) -> list[str]:
        """Non-JSON text the process printed on stdout (kept for diagnostics)."""
        return self._reader.noise

    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - limit))
            return self._stderr.read().decode("utf-8", errors="replace").strip()
        except (OSError, ValueError):
            return ""

    # ------------------------------------------------------------------------------------------
    # Exchange

    def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and return the decoded answer.

        On any failure the process group is killed before the exception propagates, so the
        caller never talks to a process in an unknown state.
        """
        if self._proc is None or not self.alive:
            detail = self._exit_detail()
            self.kill()
            raise ReplCrashed(detail)
        deadline = time.monotonic() + timeout
        try:
            self._write(encode_request(payload), deadline)
            return self._read(deadline)
        except ReplFailure:
            self.kill()
            raise

    def _write(self, data: bytes, deadline: float) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ReplTimeout("the REPL did not accept the command in time")
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                raise ReplTimeout("the REPL did not accept the command in time")
            try:
                written = os.write(fd, view[: _READ_CHUNK])
            except (BrokenPipeError, ConnectionResetError, OSError) as exc:
                raise ReplCrashed(f"{exc.__class__.__name__} while sending; {self._exit_detail()}") from exc
            view = view[written:]

    def _read(self, deadline: float) -> dict[str, Any]:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            try:
                answer = self._reader.next_object()
            except ValueError as exc:
                raise ReplProtocolError(str(exc)) from exc
            if answer is not None:
                return answer
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ReplTimeout("no answer within the time limit")
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                raise ReplTimeout("no answer within the time limit")
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                # EOF: give the process a moment to be reaped so the exit status is reported.
                try:
                    self._proc.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
                raise ReplCrashed(self._exit_detail())
            self._reader.feed(chunk)
            if len(self._reader) > self.max_response_bytes:
                raise ReplOutputTooLarge(f"answer exceeded {self.max_response_bytes} bytes")

    def _exit_detail(self) -> str:
        code = None if self._proc is None else self._proc.poll()
        if code is None:
            status = "the REPL closed its output"
        elif code < 0:
            try:
                status = f"the REPL was killed by {signal.Signals(-code).name}"
            except ValueError:
                status = f"the REPL was killed by signal {-code}"
        else:
            status = f"the REPL exited with status {code}"
        tail = self.stderr_tail(limit=400)
        return f"{status}" + (f"; stderr: {tail}" if tail else "")

    # ------------------------------------------------------------------------------------------
    # Ending

    def kill(self) -> None:
        """Kill the whole process group and reap the leader. Safe to call repeatedly."""
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
            pass
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._reader.clear()

    def close(self, grace: float = 2.0) -> None:
        """End politely (EOF on stdin makes the REPL return), then make sure the group is gone."""
        proc = self._proc
        if proc is not None and proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        try:
            self._stderr.close()
        except OSError:
            pass

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter shutdown
        try:
            self.kill()
        except Exception:
            pass
