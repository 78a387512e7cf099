"""Suite power without any LLM: how well a test suite tells right from wrong.

Every suite compared faces the same flawed specifications (weakened or strengthened ground-truth
pre/postconditions) and the same mutants of the reference implementation, generated once per task
from the first suite's ground truth (:mod:`.items`); a suite's power is the share of those it
catches (:mod:`.evaluate`), next to its size in checks.

Public API: :func:`measure_power`, :func:`format_power`, :class:`PowerReport`, :class:`SuitePower`;
:func:`power_items` / :func:`flawed_specs` / :func:`power_mutants`; :func:`evaluate_task`.
"""

from __future__ import annotations

from veriscale.stages.power.items import (
    DEFAULT_MAX_FLAWED,
    DEFAULT_MAX_MUTANTS,
    DEFAULT_SEED,
    PowerItem,
    conjunct_drops,
    expand_overlap,
    flawed_specs,
    power_items,
    power_mutants,
)
from veriscale.stages.power.judge import ItemResult, TaskPower, evaluate_task, suite_checks
from veriscale.stages.power.run import (
    DEFAULT_TASK_SECONDS,
    DEFAULT_TASK_STEPS,
    PowerReport,
    SuitePower,
    format_power,
    measure_power,
)

__all__ = [
    "DEFAULT_MAX_FLAWED",
    "DEFAULT_MAX_MUTANTS",
    "DEFAULT_SEED",
    "DEFAULT_TASK_SECONDS",
    "DEFAULT_TASK_STEPS",
    "ItemResult",
    "PowerItem",
    "PowerReport",
    "SuitePower",
    "TaskPower",
    "conjunct_drops",
    "evaluate_task",
    "expand_overlap",
    "flawed_specs",
    "format_power",
    "measure_power",
    "power_items",
    "power_mutants",
    "suite_checks",
]
