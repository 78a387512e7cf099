"""Choosing an engine: ``--backend auto|embedded|lean``."""

from __future__ import annotations

from typing import Literal

from veriscale.backends.base import Backend
from veriscale.backends.gate import ScreenedBackend
from veriscale.parallel import WorkerSetup

BackendName = Literal["auto", "embedded", "lean"]


class BackendUnavailable(RuntimeError):
    """The requested engine cannot run here; the message says why."""


def resolve_backend_name(name: str) -> str:
    """``auto`` is ``lean`` when ``lake`` is found and the Lean package is built, else ``embedded``."""
    if name not in ("auto", "embedded", "lean"):
        raise BackendUnavailable(f"unknown backend {name!r}: choose auto, embedded or lean")
    if name == "embedded":
        return name
    from veriscale.backends.lean import lean_available

    usable, reason = lean_available()
    if name == "lean" and not usable:
        # said here, once, rather than by every worker process that tries to start it
        raise BackendUnavailable(f"the lean backend is not usable: {reason}")
    return "lean" if usable else "embedded"


def make_backend(name: str) -> Backend:
    """The engine ``name`` names, behind the safety gate (:mod:`veriscale.backends.gate`)."""
    return ScreenedBackend(_make_engine(resolve_backend_name(name)))


def _make_engine(resolved: str) -> Backend:
    if resolved == "embedded":
        from veriscale.backends.embedded.backend import EmbeddedBackend

        return EmbeddedBackend()
    from veriscale.backends.lean import LeanBackend

    return LeanBackend()  # resolve_backend_name has checked that Lean is usable


# ---------------------------------------------------------------------------------------------
# One engine per worker process, for the stages that run on veriscale.parallel

_WORKER_ENGINE: Backend | None = None


def open_worker_engine(name: str) -> None:
    """Start this worker's engine (a ``WorkerSetup.init``)."""
    global _WORKER_ENGINE
    _WORKER_ENGINE = make_backend(name)


def close_worker_engine() -> None:
    """Release this worker's engine; engines holding child processes (Lean REPLs) must be closed."""
    global _WORKER_ENGINE
    if _WORKER_ENGINE is not None:
        _WORKER_ENGINE.close()
    _WORKER_ENGINE = None


def worker_engine() -> Backend:
    """The engine :func:`open_worker_engine` started in this worker."""
    if _WORKER_ENGINE is None:
        raise RuntimeError("no worker engine: the executor's setup did not run open_worker_engine")
    return _WORKER_ENGINE


def worker_engine_setup(name: str) -> WorkerSetup:
    """The executor's setup giving each worker one engine of ``name``."""
    return WorkerSetup(open_worker_engine, (name,), close_worker_engine)
