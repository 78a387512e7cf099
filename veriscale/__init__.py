"""VeriScale: adversarially scale the test suites of Lean 4 verifiable-code-generation benchmarks.

The public API (:mod:`veriscale.api`) is loaded on first use, so that ``import veriscale`` stays
cheap and the package's lower layers, which import their siblings through it, never load the
stages above them::

    import veriscale
    summary = veriscale.expand("examples/mini", "runs/mini-plus")
"""

from __future__ import annotations

import sys
import types
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


class _Package(types.ModuleType):
    """``veriscale.expand`` is the API function even though ``veriscale.expand`` is also a
    subpackage: importing a submodule stores it as an attribute of its parent, which would
    otherwise hide the function. The modules stay reachable by import (``from veriscale.expand
    import expand_benchmark``); only ``import veriscale.expand as m`` is ambiguous (use the
    ``from`` form)."""


def _api_property(name: str) -> property:
    def read(_module: types.ModuleType) -> Any:
        return _api_attribute(name)

    def write(module: types.ModuleType, value: Any) -> None:
        module.__dict__[name] = value  # the import system recording a submodule; reads stay the API's

    return property(read, write, doc=f"veriscale.api.{name}")


for _name in _PUBLIC & {"audit", "evaluate", "expand", "power", "reduce", "report", "score", "validate"}:
    setattr(_Package, _name, _api_property(_name))
sys.modules[__name__].__class__ = _Package
