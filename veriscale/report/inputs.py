"""Reading the report's inputs: score files, a power file, expand run directories.

Each reader returns plain pydantic rows. A missing input is not an error (the report leaves its
section out); an input that exists but cannot be read -- not JSON, wrong shape, impossible
numbers -- raises :class:`ReportInputError` naming the file and what is wrong with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from veriscale.expand.models import ExpandSummary, TaskSummary

__all__ = [
    "ExpandRun",
    "PowerRow",
    "ReportInputError",
    "ScoreRow",
    "find_score_files",
    "read_expand_run",
    "read_power_file",
    "read_score_file",
]


class ReportInputError(Exception):
    """An input file of the report that exists but cannot be used."""

    def __init__(self, file: Path | str, reason: str) -> None:
        self.file = str(file)
        self.reason = reason
        super().__init__(f"{file}: {reason}")


class ScoreRow(BaseModel):
    """One metric of one (model, suite) score file."""

    model_config = ConfigDict(frozen=True)

    model: str
    suite: str
    kind: str | None
    metric: str
    tasks: int
    lower: int
    upper: int
    file: str

    @property
    def lower_rate(self) -> float:
        return self.lower / self.tasks if self.tasks else 0.0

    @property
    def upper_rate(self) -> float:
        return self.upper / self.tasks if self.tasks else 0.0


class _Total(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tasks: int = Field(ge=0)
    lower: int = Field(ge=0)
    upper: int = Field(ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> _Total:
        if not self.lower <= self.upper <= self.tasks:
            raise ValueError(f"needs lower <= upper <= tasks, has {self.lower}, {self.upper}, {self.tasks}")
        return self


class PowerRow(BaseModel):
    """How strong one suite is: flawed specifications and mutants it catches, and its size."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    path: str
    checks: int = Field(ge=0)
    flawed_specs_caught: int = Field(ge=0)
    flawed_specs_total: int = Field(ge=0)
    mutants_killed: int = Field(ge=0)
    mutants_total: int = Field(ge=0)

    @model_validator(mode="after")
    def _counts(self) -> PowerRow:
        if self.flawed_specs_caught > self.flawed_specs_total:
            raise ValueError("flawed_specs_caught exceeds flawed_specs_total")
        if self.mutants_killed > self.mutants_total:
            raise ValueError("mutants_killed exceeds mutants_total")
        return self

    @property
    def name(self) -> str:
        return Path(self.path).name or self.path

    @property
    def flawed_rate(self) -> float | None:
        return self.flawed_specs_caught / self.flawed_specs_total if self.flawed_specs_total else None

    @property
    def mutant_rate(self) -> float | None:
        return self.mutants_killed / self.mutants_total if self.mutants_total else None


class _PowerFile(BaseModel):
    suites: list[PowerRow]


class ExpandRun(BaseModel):
    """An expand run directory's summary and its per-task summaries."""

    model_config = ConfigDict(frozen=True)

    path: str
    summary: ExpandSummary
    tasks: list[TaskSummary]

    @property
    def name(self) -> str:
        return Path(self.path).name or self.path


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ReportInputError(path, f"not UTF-8 text: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ReportInputError(path, f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from exc
    except OSError as exc:
        raise ReportInputError(path, f"cannot read: {exc.strerror or exc}") from exc


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error.get("loc", ())) or "top level"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {error.get('msg', 'invalid')}{more}"


def find_score_files(path: Path) -> list[Path]:
    """``path`` itself, or every ``score.json`` below a directory (sorted)."""
    if path.is_dir():
        return sorted(path.rglob("score.json"))
    return [path]


def read_score_file(path: Path) -> list[ScoreRow]:
    """The metric totals of one score file (``veriscale score --json`` or ``eval``'s score.json).

    The model name comes from the eval ``summary.json`` beside the file, else a ``model`` key of
    the score file, else the directory layout of ``eval`` (``.../<model>/<suite>/<kind>/``), else
    ``unknown``.
    """
    raw = _read_json(path)
    if not isinstance(raw, dict):
        raise ReportInputError(path, "expected a JSON object (a score report)")
    totals = raw.get("totals")
    if not isinstance(totals, dict):
        raise ReportInputError(path, "no 'totals' object: not a score report")
    summary: dict[str, Any] = {}
    summary_path = path.parent / "summary.json"
    if summary_path.is_file():
        loaded = _read_json(summary_path)
        if not isinstance(loaded, dict):
            raise ReportInputError(summary_path, "expected a JSON object (an eval summary)")
        summary = loaded
    model = summary.get("model") or raw.get("model")
    kind = summary.get("task_kind") or raw.get("task_kind")
    if not model and path.parent.name in ("codegen", "specgen") and len(path.parents) >= 3:
        model, kind = path.parents[2].name, kind or path.parent.name
    suite = summary.get("suite_name") or raw.get("suite") or summary.get("suite") or path.parent.name
    suite = Path(str(suite)).name or str(suite)
    rows: list[ScoreRow] = []
    for metric, value in totals.items():
        try:
            total = _Total.model_validate(value)
        except ValidationError as exc:
            raise ReportInputError(path, f"totals.{metric}: {_first_error(exc)}") from exc
        rows.append(
            ScoreRow(
                model=str(model or "unknown"),
                suite=suite,
                kind=str(kind) if kind else None,
                metric=str(metric),
                tasks=total.tasks,
                lower=total.lower,
                upper=total.upper,
                file=str(path),
            )
        )
    return rows


def read_power_file(path: Path) -> list[PowerRow]:
    raw = _read_json(path)
    try:
        return _PowerFile.model_validate(raw).suites
    except ValidationError as exc:
        raise ReportInputError(path, f"not a power file ({{\"suites\": [...]}}): {_first_error(exc)}") from exc


def read_expand_run(path: Path) -> ExpandRun:
    """``summary.json`` of an expand run directory, with per-task summaries.

    The per-task summaries come from the run summary's ``tasks``; when it has none, from the
    ``<task>/summary.json`` files of the directory.
    """
    summary_path = path / "summary.json"
    if not summary_path.is_file():
        raise ReportInputError(summary_path, "missing: not an expand run directory")
    raw = _read_json(summary_path)
    try:
        summary = ExpandSummary.model_validate(raw)
    except ValidationError as exc:
        raise ReportInputError(summary_path, f"not an expand summary: {_first_error(exc)}") from exc
    tasks = list(summary.tasks)
    if not tasks:
        for task_file in sorted(path.glob("*/summary.json")):
            try:
                tasks.append(TaskSummary.model_validate(_read_json(task_file)))
            except ValidationError as exc:
                raise ReportInputError(task_file, f"not a task summary: {_first_error(exc)}") from exc
    return ExpandRun(path=str(path), summary=summary, tasks=sorted(tasks, key=lambda t: t.task))
