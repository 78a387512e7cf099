"""The figures' logic, apart from drawing: suite order, intervals, axis ranges, bar labels,
growth distributions. Pure functions, so that what a reader sees can be tested without images.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Z_95",
    "Bar",
    "bar_label",
    "score_bars",
    "growth_quantiles",
    "sorted_growth",
    "suite_order",
    "suite_rank",
    "wilson_interval",
    "zoomed_range",
]

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95 % interval."""

_VARIANTS = ("plus", "lite")


def suite_rank(name: str) -> int:
    """0 for an original suite, 1 for a Plus suite, 2 for a Lite suite (by the name's last word:
    ``verinaplus``, ``verina-plus``, ``ours_lite``), so suites read original → Plus → Lite."""
    lowered = name.lower()
    for rank, variant in enumerate(_VARIANTS, start=1):
        if re.search(rf"{variant}(\d*|[-_.]v?\d+)$", lowered):
            return rank
    return 0


def _family(name: str) -> str:
    """The name without its variant suffix: ``verinaplus`` and ``verina`` are one family."""
    lowered = name.lower()
    for variant in _VARIANTS:
        stripped = re.sub(rf"[-_.]?{variant}(\d*|[-_.]v?\d+)$", "", lowered)
        if stripped != lowered:
            return stripped
    return lowered


def suite_order(names: Iterable[str]) -> list[str]:
    """Distinct suite names, each family together, original → Plus → Lite within a family."""
    return sorted(set(names), key=lambda n: (_family(n), suite_rank(n), n))


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, (low, high) within [0, 1]; (0, 1) for no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def zoomed_range(lows: Sequence[float], highs: Sequence[float], *, floor: float = 0.0, ceiling: float = 100.0,
                 min_span: float = 2.0, margin: float = 0.12) -> tuple[float, float]:
    """A y range (percent) around every interval, not 0-100: differences between 92 % and 100 %
    must be visible. ``margin`` of the span is added on both sides (room for labels), and the
    range is at least ``min_span`` wide, clipped to [floor, ceiling + a label's room]."""
    if not lows or not highs:
        return (floor, ceiling)
    low, high = min(lows), max(highs)
    span = max(high - low, min_span)
    bottom = max(floor, low - margin * span)
    top = min(ceiling + margin * span, high + 2 * margin * span)
    if top - bottom < min_span:
        bottom = max(floor, top - min_span)
    return (bottom, top)


def bar_label(value: float, *, percent: bool = True) -> str:
    """The label printed on a bar; a zero bar is labelled too (it would otherwise be invisible)."""
    if percent:
        return f"{value:.0f}%" if value in (0, 100) else f"{value:.1f}%"
    return f"{value:g}"


def sorted_growth(pairs: Iterable[tuple[str, int, int]]) -> list[tuple[str, float]]:
    """(task, checks after / checks before) for tasks with checks before, ascending by growth
    (ties by task id): the distribution's x axis is the rank, not the task."""
    values = [(task, after / before) for task, before, after in pairs if before > 0]
    return sorted(values, key=lambda item: (item[1], item[0]))


def growth_quantiles(growth: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Minimum, quartiles, maximum of sorted growth factors (nearest-rank quantiles)."""
    if not growth:
        return {}
    values = [g for _, g in growth]

    def at(q: float) -> float:
        return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]

    return {"min": values[0], "q1": at(0.25), "median": at(0.5), "q3": at(0.75), "max": values[-1]}


@dataclass(frozen=True)
class Bar:
    """One bar of a score figure: where it stands, how high (percent) and what it says."""

    x: float
    metric: str
    suite: str
    lower: float
    upper: float
    label: str
    zero: bool
    """The lower bound is 0: drawn as a marker on the axis, since the bar has no height."""


def score_bars(values: Iterable[tuple[str, str, float, float]], metric_order: Sequence[str]) -> list[Bar]:
    """Bars of a grouped figure from (metric, suite, lower rate, upper rate): a group per metric
    (in ``metric_order``, unknown metrics after), suites original → Plus → Lite within it."""
    rows = list(values)
    metrics = sorted({m for m, _, _, _ in rows},
                     key=lambda m: (metric_order.index(m) if m in metric_order else len(metric_order), m))
    suites = suite_order(s for _, s, _, _ in rows)
    width = 0.8 / max(1, len(suites))
    bars = []
    for metric, suite, lower, upper in rows:
        x = metrics.index(metric) + (suites.index(suite) - (len(suites) - 1) / 2) * width
        low, high = 100 * lower, 100 * upper
        label = bar_label(low) if high - low < 0.05 else f"{bar_label(low)}–{bar_label(high)}"
        bars.append(Bar(x=x, metric=metric, suite=suite, lower=low, upper=high, label=label, zero=low == 0))
    return sorted(bars, key=lambda b: b.x)
