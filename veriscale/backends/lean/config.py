"""Settings, counters, and how the REPL process is found and launched."""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from veriscale.backends.setup_lean import LAKEFILE, default_project_dir

REPL_ENV = "VERISCALE_LEAN_REPL"
"""Environment variable naming a built ``repl`` binary to use instead of the project's own."""

PROJECT_REPL_BINARY = Path(".lake/packages/REPL/.lake/build/bin/repl")
"""Where ``lake build repl`` leaves the REPL of the ``require REPL`` in lakefile.lean."""


class LeanUnavailable(RuntimeError):
    """The Lean backend cannot start here; the message says what is missing."""


class LeanBackendConfig(BaseModel):
    """Everything the Lean backend can be told. Defaults suit a workstation with Mathlib."""

    model_config = ConfigDict(frozen=True)

    project_dir: Path | None = None
    """Directory holding lakefile.lean (default: ``default_project_dir()``)."""
    repl_command: list[str] | None = None
    """Explicit REPL command; skips discovery. Tests put the stand-in REPL here."""
    repl_cwd: Path | None = None
    repl_env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the REPL process."""

    workers: int = Field(default=2, ge=1)
    """REPL processes run side by side; each loads the imports once."""
    batch_size: int = Field(default=16, ge=1)
    """Checks sent to the REPL as one command. A batch that fails is re-run one check at a time."""
    timeout_s: float = Field(default=20.0, gt=0)
    """Wall-clock limit of one check (and of one batch: normal checks take milliseconds)."""
    batch_timeout_s: float | None = None
    """Wall-clock limit of a batch; ``None`` means ``timeout_s``."""
    import_timeout_s: float = Field(default=900.0, gt=0)
    """Limit for elaborating the imports (loading Mathlib cold can take minutes)."""
    definitions_timeout_s: float = Field(default=300.0, gt=0)
    """Limit for elaborating a task's definitions (and for compile and proof checks)."""
    memory_limit_mb: int | None = Field(default=16384, ge=64)
    """``RLIMIT_AS`` of each REPL process in MiB (virtual memory: Mathlib maps several GB of
    .olean files, so keep this well above that); ``None`` disables the limit."""
    max_heartbeats: int = Field(default=400_000, ge=0)
    """``maxHeartbeats`` for each check's elaboration (0 = unlimited); compiled evaluation is
    bounded by the wall clock instead."""
    max_commands_per_process: int = Field(default=2000, ge=1)
    """The REPL keeps every environment it ever produced; recycle a process after this many
    commands to bound its memory."""
    max_response_mb: int = Field(default=64, ge=1)
    """A larger answer kills the process and makes the check unknown."""

    always_import: tuple[str, ...] = ("Plausible",)
    """Modules imported into every check environment besides the task's own imports."""
    precond_proof: str = "lcProof"
    """How the ``h_precond`` argument is supplied when evaluating code and postconditions.

    ``"lcProof"``: the compiler's proof placeholder; allowed because ``#eval`` compiles into an
    ``unsafe`` definition, and harmless because proofs are erased before code runs.
    ``"sorry"``: ``(h_precond := sorry)`` evaluated with ``#eval!``, as Verina's harness does.
    """
    plausible_fallback: bool = True
    """When ``decide`` cannot evaluate a proposition, try ``simp_all!`` + Plausible."""
    plausible_num_inst: int = 1000
    plausible_max_size: int = 100
    plausible_num_retries: int = 20
    plausible_seed: int = 42

    templates_dir: Path | None = None
    """Where the ``*.lean.j2`` templates live (default: ``templates/lean`` of the checkout)."""

    def resolved_project_dir(self) -> Path:
        return (self.project_dir or default_project_dir()).resolve()

    @property
    def effective_batch_timeout_s(self) -> float:
        return self.batch_timeout_s if self.batch_timeout_s is not None else self.timeout_s


class LeanBackendStats(BaseModel):
    """What the backend did. Counts are exact; they are what the cost benchmark reports."""

    repl_starts: int = 0
    """Processes started (the number to compare with one process per check)."""
    restarts_after_failure: int = 0
    """Of the starts, those that replaced a process killed after a timeout or crash."""
    recycles: int = 0
    """Of the starts, those that replaced a process retired after ``max_commands_per_process``."""
    header_loads: int = 0
    """Import commands elaborated (one per import set per process start)."""
    definition_loads: int = 0
    """Task definition commands elaborated (one per task per process start)."""
    commands: int = 0
    """REPL commands sent in total."""
    batches: int = 0
    """Check commands sent (each carrying one or more checks)."""
    checks: int = 0
    """Checks answered by ``run``."""
    probe_checks: int = 0
    """Of the checks, those that needed the Plausible fallback."""
    timeouts: int = 0
    crashes: int = 0
    """Processes that died, refused, flooded their output or broke the protocol."""
    compile_checks: int = 0
    proof_checks: int = 0


class StatsRecorder:
    """Thread-safe increments of a :class:`LeanBackendStats`."""

    def __init__(self) -> None:
        self._stats = LeanBackendStats()
        self._lock = threading.Lock()

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, amount in counts.items():
                setattr(self._stats, name, getattr(self._stats, name) + amount)

    def snapshot(self) -> LeanBackendStats:
        with self._lock:
            return self._stats.model_copy()

    def reset(self) -> None:
        with self._lock:
            self._stats = LeanBackendStats()


class ReplLaunch(BaseModel):
    """The command that starts one REPL process, and where."""

    model_config = ConfigDict(frozen=True)

    command: list[str]
    cwd: Path | None = None
    origin: str
    """Which discovery rule produced it (for error messages and ``doctor``)."""


def resolve_repl_launch(config: LeanBackendConfig) -> ReplLaunch:
    """How to start the REPL, in order of preference:

    1. ``config.repl_command`` (tests, unusual setups);
    2. ``$VERISCALE_LEAN_REPL``: a built ``repl`` binary, started with ``lake env`` in the project;
    3. the project's own REPL (``lake build repl``, done by ``veriscale setup-lean``);
    4. LeanInteract, which fetches and builds a REPL matching the project's toolchain.
    """
    project = config.resolved_project_dir()
    if config.repl_command:
        return ReplLaunch(command=list(config.repl_command), cwd=config.repl_cwd or project, origin="configured")
    lake = shutil.which("lake")
    if lake is None:
        raise LeanUnavailable("`lake` is not on PATH (install elan, then run `veriscale setup-lean`)")
    env_binary = os.environ.get(REPL_ENV)
    if env_binary:
        binary = Path(env_binary).expanduser()
        if not binary.is_file():
            raise LeanUnavailable(f"${REPL_ENV} names {binary}, which does not exist")
        return ReplLaunch(command=[lake, "env", str(binary)], cwd=project, origin=f"${REPL_ENV}")
    project_binary = project / PROJECT_REPL_BINARY
    if project_binary.is_file():
        return ReplLaunch(command=[lake, "env", str(project_binary)], cwd=project, origin="project REPL")
    if importlib.util.find_spec("lean_interact") is not None:
        return _lean_interact_launch(project, lake)
    raise LeanUnavailable(
        f"no REPL found: {project_binary} is missing (run `veriscale setup-lean`) "
        "and LeanInteract is not installed (pip install 'veriscale[lean]')"
    )


def _lean_interact_launch(project: Path, lake: str) -> ReplLaunch:
    """Let LeanInteract provision a REPL for ``project``; we only borrow the binary's location.

    The process itself is still run by :class:`~veriscale.backends.lean.process.ReplProcess`
    (process groups, memory limit, deadlines), not by LeanInteract's server class.
    """
    from lean_interact import LeanREPLConfig, LocalProject  # optional dependency, imported lazily

    try:
        repl_config = LeanREPLConfig(project=LocalProject(directory=str(project), auto_build=False), lake_path=lake)
    except Exception as exc:  # LeanInteract raises plain exceptions for git/lake problems
        raise LeanUnavailable(f"LeanInteract could not prepare a REPL: {exc}") from exc
    binary = Path(repl_config.cache_repl_dir) / ".lake" / "build" / "bin" / "repl"
    return ReplLaunch(command=[lake, "env", str(binary)], cwd=Path(repl_config.working_dir), origin="LeanInteract")


def lean_available(project_dir: Path | None = None) -> tuple[bool, str]:
    """Whether the Lean backend can run here, and why (not). Cheap: starts no process.

    Used by ``--backend auto`` and ``veriscale doctor``.
    """
    project = (project_dir or default_project_dir()).resolve()
    lake = shutil.which("lake")
    if lake is None:
        return False, "`lake` is not on PATH (install elan, then run `veriscale setup-lean`)"
    if not (project / LAKEFILE).is_file():
        return False, f"no {LAKEFILE} in {project} (set $VERISCALE_LEAN_PROJECT to the VeriScale checkout)"
    if not (project / ".lake" / "build").is_dir():
        return False, f"the Lean package in {project} is not built (run `veriscale setup-lean`)"
    env_binary = os.environ.get(REPL_ENV)
    if env_binary:
        if Path(env_binary).expanduser().is_file():
            return True, f"lake at {lake}; REPL from ${REPL_ENV} ({env_binary})"
        return False, f"${REPL_ENV} names {env_binary}, which does not exist"
    if (project / PROJECT_REPL_BINARY).is_file():
        return True, f"lake at {lake}; package built in {project}; REPL at {PROJECT_REPL_BINARY}"
    if importlib.util.find_spec("lean_interact") is not None:
        return True, f"lake at {lake}; package built in {project}; REPL provided by LeanInteract"
    return False, "the REPL is not built (run `veriscale setup-lean`, which runs `lake build repl`)"
