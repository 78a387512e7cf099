"""Comparing a model's scores across suites: original -> Plus -> Lite.

For each model (one submission file) and metric: pass@1 bounds on every suite side by side, the
drop from the first suite (lower bound to lower bound), and the *exposed* samples: those that pass
the first suite for certain (lower bound 1) but fail a later one for certain (upper bound 0),
with the test of the later suite that exposes them (its id, input and values).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from veriscale.stages.score.models import BASE_METRICS, METRICS, FailingTests, ScoreReport
from veriscale.tables import add_row, new_table, render


class Exposed(BaseModel):
    task: str
    sample: int
    metric: str
    suite: str
    """The label of the suite that exposes the sample."""
    test: FailingTests | None = None
    """The exposing tests (``None`` when the suite could not say which, e.g. a rejected file)."""
    reason: str = ""
    """The metric's first reason line on that suite."""


class MetricRow(BaseModel):
    metric: str
    rates: dict[str, tuple[float, float]]
    """Suite label -> pass@1 (lower, upper)."""
    drop: dict[str, float]
    """Later suite label -> first suite's lower pass@1 minus this suite's."""


class ModelComparison(BaseModel):
    model: str
    suites: list[str]
    rows: list[MetricRow] = Field(default_factory=list)
    exposed: list[Exposed] = Field(default_factory=list)


def compare_reports(model: str, reports: Sequence[tuple[str, ScoreReport]]) -> ModelComparison:
    """Side by side: ``reports`` are (suite label, report) pairs, the reference suite first."""
    labels = [label for label, _ in reports]
    comparison = ModelComparison(model=model, suites=labels)
    (base_label, base), *later = reports
    for metric in METRICS:
        if not all(metric in r.totals for _, r in reports):
            continue
        rates = {label: (r.totals[metric].lower_rate, r.totals[metric].upper_rate) for label, r in reports}
        drop = {label: round(rates[base_label][0] - rates[label][0], 4) for label, _ in later}
        comparison.rows.append(MetricRow(metric=metric, rates=rates, drop=drop))
    base_scores = {(s.task, s.sample): s for s in base.tasks}
    for label, report in later:
        for score in report.tasks:
            reference = base_scores.get((score.task, score.sample))
            if reference is None:
                continue
            for metric in BASE_METRICS:  # a combined metric is exposed through its parts
                before, after = reference.bound(metric), score.bound(metric)
                if before is None or after is None or before.lower != 1 or after.upper != 0:
                    continue
                reason = next((r for r in score.reasons if r.startswith(f"{metric}: ")), "")
                comparison.exposed.append(Exposed(task=score.task, sample=score.sample, metric=metric, suite=label,
                                                  test=score.failures.get(metric), reason=reason))
    comparison.exposed.sort(key=lambda e: (e.task, e.sample, METRICS.index(e.metric), labels.index(e.suite)))
    return comparison


def format_comparison(comparison: ModelComparison, *, max_exposed: int = 20) -> str:
    """The side-by-side table and the exposed samples (the first ``max_exposed``)."""
    labels = comparison.suites
    changes = [f"change {label}" for label in labels[1:]]
    table = new_table("metric", *labels, *changes, right=[*labels, *changes])
    for row in comparison.rows:
        add_row(table, row.metric, *(f"{row.rates[label][0]:.3f}-{row.rates[label][1]:.3f}" for label in labels),
                *(f"{-row.drop[label] if row.drop[label] else 0.0:+.3f}" for label in labels[1:]))
    lines = [f"model: {comparison.model}  (pass@1 lower-upper; change = of the lower bound, from {labels[0]})",
             render(table)]
    exposed = comparison.exposed
    lines.append(f"{len(exposed)} (task, sample, metric) pass {labels[0]} but fail a later suite")
    for item in exposed[:max_exposed]:
        name = item.task if not item.sample else f"{item.task}#{item.sample}"
        lines.append(f"  {name} {item.metric} fails {item.suite}: {_exposing(item)}")
    if len(exposed) > max_exposed:
        lines.append(f"  ... and {len(exposed) - max_exposed} more (see the JSON)")
    return "\n".join(lines)


def _exposing(item: Exposed) -> str:
    test = item.test
    if test is None or not test.first:
        return item.reason
    inputs = ", ".join(f"{k} = {v}" for k, v in test.input.items())
    text = f"{test.first} ({len(test.failing)} failing): input {inputs}"
    if test.output is not None:
        text += f"; output {test.output}"
    if test.returned is not None:
        text += f"; gave {test.returned}, expected {test.expected}"
    return text
