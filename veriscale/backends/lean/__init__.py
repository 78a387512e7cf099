"""The Lean 4 backend: checks answered by real Lean through a pool of persistent REPL processes.

Importing this package needs neither Lean nor LeanInteract; they are looked for when the first
check runs (see :func:`lean_available` and :func:`~.config.resolve_repl_launch`).

Public API:

* :class:`LeanBackend` -- ``run(task, checks)``, ``compile(task)``, ``check_proof(task)``,
  ``proof_axioms(task)``, ``stats``, ``close()``;
* :class:`LeanBackendConfig`, :class:`LeanBackendStats`;
* :func:`lean_available` -- ``(usable, reason)`` for ``--backend auto`` and ``veriscale doctor``.
"""

from veriscale.backends.lean.backend import LeanBackend, LeanCheckError, ProofCheck
from veriscale.backends.lean.config import (
    LeanBackendConfig,
    LeanBackendStats,
    LeanUnavailable,
    lean_available,
    resolve_repl_launch,
)
from veriscale.backends.lean.interpret import ALLOWED_AXIOMS

__all__ = [
    "ALLOWED_AXIOMS",
    "LeanBackend",
    "LeanBackendConfig",
    "LeanBackendStats",
    "LeanCheckError",
    "LeanUnavailable",
    "ProofCheck",
    "lean_available",
    "resolve_repl_launch",
]
