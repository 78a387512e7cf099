"""VeriScale: adversarially scale the test suites of Lean 4 verifiable-code-generation benchmarks.

The public API (:mod:`veriscale.api`) is loaded on first use, so that ``import veriscale`` stays
cheap and the package's lower layers never load the stages above them. The stages' own modules
live in :mod:`veriscale.stages`, so no public name is also a subpackage::

    import veriscale
    summary = veriscale.expand("examples/mini", "runs/mini-plus")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veriscale._version import __version__

if TYPE_CHECKING:
    from veriscale.api import (
        AuditOptions,
        ExecutorConfig,
        ExpandOptions,
        NoTaskSelected,
        PowerOptions,
        ProgressEvent,
        ReduceOptions,
        ReportOptions,
        ScoreOptions,
        ValidateOptions,
        audit,
        evaluate,
        expand,
        load_benchmark,
        make_backend,
        power,
        reduce,
        report,
        score,
        validate,
    )

__all__ = [
    "AuditOptions",
    "ExecutorConfig",
    "ExpandOptions",
    "NoTaskSelected",
    "PowerOptions",
    "ProgressEvent",
    "ReduceOptions",
    "ReportOptions",
    "ScoreOptions",
    "ValidateOptions",
    "__version__",
    "audit",
    "evaluate",
    "expand",
    "load_benchmark",
    "make_backend",
    "power",
    "reduce",
    "report",
    "score",
    "validate",
]

_PUBLIC = frozenset(__all__) - {"__version__"}


def _api_attribute(name: str) -> Any:
    from veriscale import api

    return getattr(api, name)


def __getattr__(name: str) -> Any:
    """The API's classes and functions, imported when first asked for."""
    if name in _PUBLIC:
        return _api_attribute(name)
    raise AttributeError(f"module 'veriscale' has no attribute {name!r}")
