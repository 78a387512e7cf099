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

from veriscale.stages.expand.models import ExpandSummary, TaskSummary

__all__ = [
    "ExpandRun",
    "PassRow",
    "ScoreFile",
    "TaskFailure",
    "PowerRow",
    "ReportInputError",
    "ScoreRow",
    "find_score_files",
    "read_expand_run",
    "read_power_file",
    "read_score_details",
    "read_score_file",
]


class ReportInputError(Exception):
    """An input file of the report that exists but cannot be used."""

    def __init__(self, file: Path | str, reason: str) -> None:
        self.file = str(file)
        self.reason = reason
        super().__init__(f"{file}: {reason}")


class PassRow(BaseModel):
    """pass@k of one metric: unknowns counted as failures (``lower``) or passes (``upper``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    k: int = Field(ge=1)
    lower: float = Field(ge=0, le=1)
    upper: float = Field(ge=0, le=1)


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
    samples: int = 0
    """Scored samples (0 in files older than samples: one per task)."""
    rates: tuple[float, float] | None = None
    """pass@1 lower and upper as the file states them (a mean over tasks with several samples)."""
    pass_at_k: list[PassRow] = Field(default_factory=list)

    @property
    def lower_rate(self) -> float:
        if self.rates is not None:
            return self.rates[0]
        return self.lower / self.tasks if self.tasks else 0.0

    @property
    def upper_rate(self) -> float:
        if self.rates is not None:
            return self.rates[1]
        return self.upper / self.tasks if self.tasks else 0.0


class _Total(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tasks: int = Field(ge=0)
    lower: int = Field(ge=0)
    upper: int = Field(ge=0)
    samples: int = Field(default=0, ge=0)
    lower_rate: float | None = Field(default=None, ge=0, le=1)
    upper_rate: float | None = Field(default=None, ge=0, le=1)
    pass_at_k: list[PassRow] = Field(default_factory=list)

    @model_validator(mode="after")
    def _bounds(self) -> _Total:
        most = self.samples or self.tasks
        if not self.lower <= self.upper <= most:
            raise ValueError(f"needs lower <= upper <= samples, has {self.lower}, {self.upper}, {most}")
        return self


class TaskFailure(BaseModel):
    """One failed metric of one task sample, with the first failing test when the file has it."""

    model_config = ConfigDict(frozen=True)

    task: str
    sample: int
    metric: str
    failing: list[str] = Field(default_factory=list)
    first: str = ""
    input: dict[str, str] = Field(default_factory=dict)
    returned: str | None = None
    expected: str | None = None
    output: str | None = None
    reason: str = ""
    """The metric's first reason (``reasons`` of the score file)."""
    unknown: bool = False
    """Lower bound 0, upper bound 1: undecided rather than failed."""


class ScoreFile(BaseModel):
    """Everything the report shows of one score file."""

    model_config = ConfigDict(frozen=True)

    path: str
    model: str
    suite: str
    kind: str | None
    engine: str | None
    provenance: dict[str, Any] | None
    caveats: list[str]
    rows: list[ScoreRow]
    failures: list[TaskFailure]
    errors: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)


class PowerRow(BaseModel):
    """How strong one suite is: flawed specifications and mutants it catches, and its size."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    path: str
    checks: int = Field(ge=0)
    flawed_specs_caught: int = Field(ge=0)
    flawed_specs_total: int = Field(ge=0)
    mutants_killed: int = Field(ge=0)
    mutants_total: int = Field(ge=0)
    intervals: dict[str, tuple[float, float]] = Field(default_factory=dict)
    """95 % intervals of the rates as ``power`` wrote them (``flawed_specs``, ``mutants``, ...);
    absent in older files, where the report computes Wilson intervals from the counts."""

    def interval(self, name: str) -> tuple[float, float] | None:
        """The 95 % interval of rate ``name`` (``flawed_specs`` or ``mutants``), from the file
        or else the Wilson interval of the counts; ``None`` without trials."""
        from veriscale.stages.report.figures import wilson_interval

        hits, total = {"flawed_specs": (self.flawed_specs_caught, self.flawed_specs_total),
                       "mutants": (self.mutants_killed, self.mutants_total)}[name]
        if not total:
            return None
        return self.intervals.get(name) or wilson_interval(hits, total)

    @model_validator(mode="after")
    def _counts(self) -> PowerRow:
        if self.flawed_specs_caught > self.flawed_specs_total:
            raise ValueError("flawed_specs_caught exceeds flawed_specs_total")
        if self.mutants_killed > self.mutants_total:
            raise ValueError("mutants_killed exceeds mutants_total")
        for name, (low, high) in self.intervals.items():
            if not 0 <= low <= high <= 1:
                raise ValueError(f"intervals.{name}: needs 0 <= low <= high <= 1, has {low}, {high}")
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
    """The metric totals of one score file (see :func:`read_score_details`)."""
    return read_score_details(path).rows


def read_score_details(path: Path) -> ScoreFile:
    """One score file (``veriscale score --json`` or ``eval``'s score.json): totals, provenance,
    caveats and per-task failures.

    The model name comes from the eval ``summary.json`` beside the file, else a ``model`` key of
    the score file (or its provenance), else the directory layout of ``eval``
    (``.../<model>/<suite>/<kind>/``), else ``unknown``.
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
    provenance = raw.get("provenance")
    if provenance is not None and not isinstance(provenance, dict):
        raise ReportInputError(path, "'provenance' is not an object")
    model = summary.get("model") or raw.get("model") or (provenance or {}).get("model")
    kind = summary.get("task_kind") or raw.get("task_kind")
    if not model and path.parent.name in ("codegen", "specgen", "proofgen") and len(path.parents) >= 3:
        model, kind = path.parents[2].name, kind or path.parent.name
    suite = summary.get("suite_name") or raw.get("suite") or summary.get("suite") or path.parent.name
    suite = Path(str(suite)).name or str(suite)
    rows: list[ScoreRow] = []
    for metric, value in totals.items():
        try:
            total = _Total.model_validate(value)
        except ValidationError as exc:
            raise ReportInputError(path, f"totals.{metric}: {_first_error(exc)}") from exc
        rates = (None if total.lower_rate is None or total.upper_rate is None
                 else (total.lower_rate, total.upper_rate))
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
                samples=total.samples,
                rates=rates if total.samples > total.tasks else None,
                pass_at_k=total.pass_at_k,
            )
        )
    return ScoreFile(
        path=str(path),
        model=str(model or "unknown"),
        suite=suite,
        kind=str(kind) if kind else None,
        engine=str(raw.get("engine")) if raw.get("engine") else None,
        provenance=provenance,
        caveats=[str(c) for c in raw.get("caveats") or []],
        rows=rows,
        failures=_task_failures(path, raw.get("tasks")),
        errors=[str(e) for e in raw.get("errors") or []],
        missing=[str(m) for m in raw.get("missing") or []],
    )


def _task_failures(path: Path, tasks: Any) -> list[TaskFailure]:
    """Each (task, sample, metric) whose lower bound is 0, with its first failing test."""
    if tasks is None:
        return []
    if not isinstance(tasks, list):
        raise ReportInputError(path, "'tasks' is not a list")
    out: list[TaskFailure] = []
    for index, entry in enumerate(tasks):
        if not isinstance(entry, dict) or not isinstance(entry.get("task"), str):
            raise ReportInputError(path, f"tasks[{index}]: not a task score (needs a 'task' name)")
        reasons = [str(r) for r in entry.get("reasons") or []]
        details = entry.get("failures") or {}
        for metric, bound in entry.items():
            if not isinstance(bound, dict) or set(bound) != {"lower", "upper"} or bound["lower"] != 0:
                continue
            detail = details.get(metric) if isinstance(details, dict) else None
            detail = detail if isinstance(detail, dict) else {}
            reason = next((r.split(": ", 1)[1] for r in reasons if r.startswith(f"{metric}: ")), "")
            try:
                out.append(TaskFailure(
                    task=entry["task"], sample=int(entry.get("sample", 0)), metric=metric,
                    failing=[str(t) for t in detail.get("failing", [])], first=str(detail.get("first", "")),
                    input={str(k): str(v) for k, v in (detail.get("input") or {}).items()},
                    returned=_opt_str(detail.get("returned")), expected=_opt_str(detail.get("expected")),
                    output=_opt_str(detail.get("output")), reason=reason, unknown=bound.get("upper") == 1,
                ))
            except (TypeError, ValueError, AttributeError) as exc:
                raise ReportInputError(path, f"tasks[{index}].failures.{metric}: {exc}") from exc
    return out


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


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
