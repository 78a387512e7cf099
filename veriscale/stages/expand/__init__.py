"""``veriscale expand``: scale a benchmark's test suites adversarially (see :mod:`.pipeline`).

Public API:

* :func:`expand_benchmark` -- a whole benchmark directory into a suite directory, resumable;
* :func:`expand_task` -- one task with a given backend (pure apart from the backend and LLM);
* :class:`ExpandOptions`, :class:`ExpandSummary`, :class:`TaskSummary` -- settings and reports;
* :func:`format_summary` -- the run's report as text;
* :mod:`.audit` -- the invariants of a written suite (duplicates, unreadable values, kill matrix).
"""

from veriscale.stages.expand.models import (
    AdversaryCounts,
    CandidateCounts,
    ExpandOptions,
    ExpandSummary,
    LLMTaskCounts,
    TaskSummary,
    UnexpectedCounts,
)
from veriscale.stages.expand.pipeline import (
    STAGE,
    TaskExpansion,
    default_adversaries,
    expand_benchmark,
    expand_task,
)
from veriscale.stages.expand.report import format_summary
from veriscale.stages.expand.writer import KILL_MATRIX_FILE, SUMMARY_FILE

__all__ = [
    "KILL_MATRIX_FILE",
    "STAGE",
    "SUMMARY_FILE",
    "AdversaryCounts",
    "CandidateCounts",
    "ExpandOptions",
    "ExpandSummary",
    "LLMTaskCounts",
    "TaskExpansion",
    "TaskSummary",
    "UnexpectedCounts",
    "default_adversaries",
    "expand_benchmark",
    "expand_task",
    "format_summary",
]
