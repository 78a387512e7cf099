"""The options of every public entry point, with their defaults (the one place they are set).

Each command has a model of its own knobs (``extra="forbid"``: a misspelt option is an error,
not a silent default). What every command shares -- which engine (``backend``), which tasks
(``tasks``), where the work runs (``executor``) and who hears of its progress (``progress``) --
are keyword arguments of the functions in :mod:`veriscale.api`, as they are flags of every
command of the CLI. ``ExpandOptions`` and ``AuditOptions`` are the stages' own models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from veriscale.stages.audit.models import AuditOptions
from veriscale.stages.expand.models import ExpandOptions
from veriscale.stages.power.items import DEFAULT_MAX_FLAWED, DEFAULT_MAX_MUTANTS, DEFAULT_SEED
from veriscale.stages.power.pool import DEFAULT_POOL_SEED, DEFAULT_POOL_SIZE
from veriscale.stages.power.run import DEFAULT_TASK_SECONDS, DEFAULT_TASK_STEPS

__all__ = [
    "AuditOptions",
    "ExpandOptions",
    "PowerOptions",
    "ProgressCallback",
    "ProgressEvent",
    "ReduceOptions",
    "ReportOptions",
    "ScoreOptions",
    "ValidateOptions",
]


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ValidateOptions(_Options):
    """``validate`` has no knob of its own beyond the shared ones; the model exists so that every
    entry point is called the same way (and a misspelt option is still an error)."""


class ReduceOptions(_Options):
    target: str | Path = "lite"
    """A recipe name in ``suites/`` (``lite``, ``plus``) or a ``.toml`` path."""
    exact: bool = False
    """An exact minimum cover (needs the ``exact`` extra) instead of the greedy one."""
    published_compat: bool | None = None
    """Reduce reject inputs exactly as the published VerinaLite (``None``: the recipe's choice)."""
    original: Path | None = None
    """The original benchmark, whose tests are recognised and kept."""


class ScoreOptions(_Options):
    ks: list[int] | None = None
    """Report pass@k for these k (1 is always reported; default: 1 and the number of samples)."""
    model: str | None = None
    """Whose submissions these are (recorded in the provenance)."""


class PowerOptions(_Options):
    seed: int = DEFAULT_SEED
    max_flawed: int = Field(default=DEFAULT_MAX_FLAWED, ge=0)
    """Flawed preconditions and flawed postconditions per task, each."""
    max_mutants: int = Field(default=DEFAULT_MAX_MUTANTS, ge=0)
    """Reference-code mutants per task."""
    mutant_orders: list[int] = Field(default_factory=lambda: [1, 2], min_length=1)
    """Mutant orders to measure: 1 (one edit), 2 (two edits), or both (reported apart)."""
    pool_size: int = Field(default=DEFAULT_POOL_SIZE, ge=1)
    """Judging-pool inputs per task: an item counts only when the pool tells it from the truth."""
    pool_seed: int = DEFAULT_POOL_SEED
    """The pool's own seed, apart from every suite's."""
    every: int = Field(default=1, ge=1)
    """Only every n-th compared task, in sorted order (a deterministic subset)."""
    task_steps: int | None = Field(default=DEFAULT_TASK_STEPS, ge=1)
    """Engine steps per task (deterministic); items left are undetermined."""
    task_seconds: float | None = Field(default=DEFAULT_TASK_SECONDS, gt=0)
    """Wall-clock limit per task (the budget of an engine without steps; else a backstop)."""
    cache: Path | None = None
    """Directory of finished phases: read instead of run again, written as they finish (resumable)."""


class ReportOptions(_Options):
    scores: list[Path] = Field(default_factory=list)
    """Score files, or directories searched for ``score.json``."""
    power: Path | None = None
    """A power JSON file (``{"suites": [...]}``)."""
    expand: list[Path] = Field(default_factory=list)
    """Expand run directories."""
    title: str = "VeriScale report"


@dataclass(frozen=True)
class ProgressEvent:
    """``done`` of ``total`` units of a stage are finished (``total`` is ``None`` when unknown);
    ``item`` names the unit just finished when the stage knows it."""

    stage: str
    done: int
    total: int | None
    item: str | None = None


ProgressCallback = Callable[[ProgressEvent], None]
