"""Choosing an engine: ``--backend auto|embedded|lean``."""

from __future__ import annotations

from typing import Literal

from veriscale.backends.base import Backend

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
    resolved = resolve_backend_name(name)
    if resolved == "embedded":
        from veriscale.backends.embedded.backend import EmbeddedBackend

        return EmbeddedBackend()
    from veriscale.backends.lean import LeanBackend

    return LeanBackend()  # resolve_backend_name has checked that Lean is usable
