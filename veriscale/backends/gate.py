"""The safety gate in front of every engine: untrusted Lean is screened before an engine sees it.

Generated and submitted Lean reaches an engine as a copy of a task whose sections were replaced
(``Task.with_sections``), and those sections are marked as substituted. :class:`ScreenedBackend`
wraps an engine (:func:`veriscale.backends.select.make_backend` wraps each one it makes) and runs
every substituted section through the safety screen (:mod:`veriscale.lean.safety`) before the
engine is given the task: a task with a rejected section gets ``unknown (unsafe)`` for every check,
an error diagnostic from ``diagnose``, and :class:`UnsafeLean` from any other engine method taking
the task (``check_proof``, ``compile`` ...). Text read from a task file is the ground truth and is
not screened (Verina's own files use ``sorry`` and ``axiom``, which generated text must not).

Stages still screen what they submit themselves, to report the findings in their own terms; the
gate is what makes it impossible for any path to hand an engine unscreened text.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, SourceDiagnostic, UnknownReason
from veriscale.lean.safety import Finding, screen_lean
from veriscale.task import Task

__all__ = ["ScreenedBackend", "UnsafeLean", "screen_substituted"]


class UnsafeLean(ValueError):
    """A task handed to an engine carries a substituted section the safety screen rejects."""

    def __init__(self, problems: Sequence[tuple[str, Finding]]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(_describe(name, finding) for name, finding in self.problems[:3]))


def _describe(section: str, finding: Finding) -> str:
    return f"section {section} fails the safety screen: {finding.rule}: {finding.message}"


@functools.lru_cache(maxsize=4096)
def _findings(body: str) -> tuple[Finding, ...]:
    # The same adversary or submission body is screened once per worker, however many batches
    # of checks run on it.
    return tuple(screen_lean(body, context="section").findings)


def screen_substituted(task: Task) -> list[tuple[str, Finding]]:
    """``(section name, finding)`` for every finding in the task's substituted sections."""
    return [
        (section.name, finding)
        for section in task.lean.sections()
        if section.substituted
        for finding in _findings(section.body)
    ]


class ScreenedBackend(Backend):
    """An engine behind the safety gate; everything else is the engine's own behaviour."""

    def __init__(self, engine: Backend) -> None:
        self.engine = engine
        self.name = engine.name

    def run(self, task: Task, checks: Sequence[Check]) -> list[Answer]:
        problems = screen_substituted(task)
        if problems:
            detail = str(UnsafeLean(problems))
            return [Answer.unknown(UnknownReason.UNSAFE, detail, self.name) for _ in checks]
        return self.engine.run(task, checks)

    def diagnose(self, task: Task) -> list[SourceDiagnostic] | None:
        problems = screen_substituted(task)
        if problems:
            return [_diagnostic(task, name, finding) for name, finding in problems]
        return self.engine.diagnose(task)

    def reading_problems(self, original: Task, copy: Task) -> tuple[list[str], list[str]]:
        problems = screen_substituted(copy)
        if problems:
            return [_describe(name, finding) for name, finding in problems], []
        return self.engine.reading_problems(original, copy)

    def start_unit(self) -> None:
        self.engine.start_unit()

    def close(self) -> None:
        self.engine.close()

    def __getattr__(self, attribute: str) -> Any:
        # An engine's own extras (``check_proof``, ``stats`` ...) pass through; any task among
        # their arguments goes through the screen first.
        if attribute.startswith("__") or attribute == "engine":
            raise AttributeError(attribute)
        value = getattr(self.engine, attribute)
        return _screening(value) if callable(value) else value


def _screening(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def screened(*args: Any, **kwargs: Any) -> Any:
        for arg in (*args, *kwargs.values()):
            if isinstance(arg, Task):
                problems = screen_substituted(arg)
                if problems:
                    raise UnsafeLean(problems)
        return method(*args, **kwargs)

    return screened


def _diagnostic(task: Task, section: str, finding: Finding) -> SourceDiagnostic:
    # a finding's line is 1-based in the section body, its column 1-based; a diagnostic's line is
    # the file's and its column 0-based, as Lean reports them
    first = task.lean.section_line(section) or 1
    return SourceDiagnostic(kind="error", line=first + finding.line - 1, col=finding.column - 1,
                            message=f"fails the safety screen: {finding.message}", rule=f"unsafe:{finding.rule}")
