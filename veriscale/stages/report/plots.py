"""Drawing the report's figures (matplotlib, Agg backend: files only, no display).

What is drawn -- order, ranges, labels -- is decided in :mod:`veriscale.stages.report.figures`; this
module only turns it into PNGs of a fixed, readable size whatever the number of tasks.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veriscale.stages.report import figures
from veriscale.stages.report.figures import growth_quantiles, suite_order, suite_rank, zoomed_range
from veriscale.stages.report.inputs import PowerRow, ScoreRow

__all__ = ["growth_distribution", "power_points", "score_bars"]

DPI = 110
SUITE_COLOURS = ("#4c72b0", "#dd8452", "#55a868")
"""Original, Plus, Lite."""
EXTRA_COLOURS = ("#8172b3", "#937860", "#da8bc3", "#8c8c8c")


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def suite_colours(suites: Sequence[str]) -> dict[str, str]:
    """Original blue, Plus orange, Lite green; other suites of a rank get further colours."""
    colours: dict[str, str] = {}
    used: set[str] = set()
    extra = iter(EXTRA_COLOURS * (len(suites) + 1))
    for suite in suites:
        colour = SUITE_COLOURS[suite_rank(suite)]
        colours[suite] = colour if colour not in used else next(extra)
        used.add(colours[suite])
    return colours


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    _pyplot().close(fig)


PANEL_METRICS = 5
"""Metric groups per row of a score figure: beyond, rows are added instead of width, so that the
figure keeps a readable size when embedded in a page."""


def score_bars(rows: Sequence[ScoreRow], path: Path, *, title: str, metric_order: Sequence[str]) -> None:
    """One model's pass@1 per metric: a group of bars per metric, one bar per suite (original →
    Plus → Lite), solid to the lower bound and hatched to the upper; every bar labelled, a zero
    bar marked by a ▼ on the axis and its label. At most ``PANEL_METRICS`` metrics a row."""
    plt = _pyplot()
    all_bars = figures.score_bars(((r.metric, r.suite, r.lower_rate, r.upper_rate) for r in rows), metric_order)
    metrics = sorted({b.metric for b in all_bars}, key=lambda m: min(b.x for b in all_bars if b.metric == m))
    suites = suite_order(b.suite for b in all_bars)
    colours = suite_colours(suites)
    width = 0.8 / max(1, len(suites)) * 0.95
    panels = [metrics[i:i + PANEL_METRICS] for i in range(0, len(metrics), PANEL_METRICS)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(10.5, 3.9 * len(panels)), squeeze=False)
    for ax, panel in zip(axes[:, 0], panels):
        first = metrics.index(panel[0])
        for suite in suites:
            mine = [b for b in all_bars if b.suite == suite and b.metric in panel]
            colour = colours[suite]
            xs = [b.x - first for b in mine]
            ax.bar(xs, [b.lower for b in mine], width=width, color=colour, label=suite)
            ax.bar(xs, [b.upper - b.lower for b in mine], width=width, bottom=[b.lower for b in mine],
                   color=colour, alpha=0.3, hatch="///", edgecolor=colour, linewidth=0)
            for x, b in zip(xs, mine):
                if b.zero:
                    ax.plot([x], [0], marker="v", color=colour, markersize=8, clip_on=False, zorder=3)
                ax.text(x, b.upper + 1.5, b.label, ha="center", va="bottom", rotation=90, fontsize=8.5)
        ax.set_xticks(range(len(panel)))
        ax.set_xticklabels([textwrap.fill(m.replace("_", " "), 16) for m in panel], fontsize=9.5)
        ax.set_xlim(-0.5, PANEL_METRICS - 0.5)
        ax.set_ylim(0, 132)  # room above 100 % for the rotated labels
        ax.set_yticks(range(0, 101, 20))
        ax.set_ylabel("pass@1 (%)")
        ax.grid(axis="y", alpha=0.3)
    axes[0, 0].legend(title="suite", fontsize="small", loc="upper left", bbox_to_anchor=(1.005, 1.0))
    axes[0, 0].set_title(title)
    _save(fig, path)


def power_points(rows: Sequence[PowerRow], path: Path) -> None:
    """Two panels (flawed specifications caught, mutants killed): a labelled point per suite with
    its 95 % interval, suites on the x axis in order, the y axis zoomed to the intervals."""
    plt = _pyplot()
    suites = [r.name for r in rows]
    colours = suite_colours(suites)
    panels = [("flawed_specs", "Flawed specifications caught", "flawed_specs_caught", "flawed_specs_total"),
              ("mutants", "Mutants killed", "mutants_killed", "mutants_total")]
    fig, axes = plt.subplots(1, 2, figsize=(max(8.0, 2.0 * len(rows) + 4), 4.4))
    for ax, (name, label, hits_field, total_field) in zip(axes, panels):
        points = []
        for x, row in enumerate(rows):
            interval = row.interval(name)
            total = getattr(row, total_field)
            if interval is None:
                continue
            points.append((x, row, 100 * getattr(row, hits_field) / total, 100 * interval[0], 100 * interval[1]))
        for x, row, rate, low, high in points:
            colour = colours[row.name]
            ax.errorbar([x], [rate], yerr=[[rate - low], [high - rate]], fmt="o", color=colour, capsize=6,
                        markersize=7, elinewidth=1.6)
            ax.annotate(f"{rate:.1f}%\n[{low:.1f}–{high:.1f}]", (x, rate), textcoords="offset points",
                        xytext=(12, 0), va="center", fontsize=8)
        bottom, top = zoomed_range([p[3] for p in points], [p[4] for p in points])
        ax.set_ylim(bottom, top)
        ax.set_xlim(-0.5, len(rows) - 0.2)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([f"{r.name}\n{r.checks:,} checks" for r in rows], fontsize=8.5)
        ax.set_ylabel("caught (%)" + ("  [axis zoomed]" if bottom > 0 else ""))
        ax.set_title(label)
        ax.grid(axis="y", alpha=0.3)
        if not points:
            ax.text(0.5, 0.5, "no items", transform=ax.transAxes, ha="center")
    fig.suptitle("Test-suite power (95 % intervals)")
    _save(fig, path)


def growth_distribution(growth: Sequence[tuple[str, float]], checks: Sequence[tuple[int, int]], path: Path,
                        *, title: str) -> None:
    """Left: growth factor per task, tasks sorted by growth (rank on x, log y), with quartile
    lines and the extremes named. Right: checks after against checks before, one dot a task
    (log-log). A fixed size, whatever the number of tasks."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.4), gridspec_kw={"width_ratios": [3, 2]})
    values = [g for _, g in growth]
    ranks = list(range(1, len(values) + 1))
    left.plot(ranks, values, marker="o", markersize=2.5, linewidth=1, color=SUITE_COLOURS[1])
    quantiles = growth_quantiles(growth)
    positive = all(v > 0 for v in values)
    if positive:
        left.set_yscale("log")
    for key, style in (("q1", ":"), ("median", "--"), ("q3", ":")):
        value = quantiles[key]
        left.axhline(value, color="#555", linestyle=style, linewidth=0.8)
        left.text(1, value, f" {key} {value:.1f}×", va="bottom", fontsize=8, color="#333")
    for task, value, rank, align in ((growth[0][0], values[0], 1, "left"),
                                     (growth[-1][0], values[-1], len(values), "right")):
        left.annotate(f"{task}\n{value:.1f}×", (rank, value), textcoords="offset points",
                      xytext=(6 if align == "left" else -6, 8 if align == "left" else -22), ha=align, fontsize=7.5)
    left.set_xlabel("task rank (sorted by growth)")
    left.set_ylabel("checks after / before (×)")
    left.set_title("Growth per task, sorted")
    left.grid(alpha=0.3)
    pairs = [(b, a) for b, a in checks if b > 0 and a > 0]
    if pairs:
        right.scatter([b for b, _ in pairs], [a for _, a in pairs], s=10, color=SUITE_COLOURS[0], alpha=0.7)
        right.set_xscale("log")
        right.set_yscale("log")
        low = min(min(b for b, _ in pairs), min(a for _, a in pairs))
        high = max(max(b for b, _ in pairs), max(a for _, a in pairs))
        for factor, style in ((1, "-"), (10, "--"), (100, ":")):
            right.plot([low, high / factor], [low * factor, high], color="#999", linestyle=style, linewidth=0.8)
            right.text(high / factor, high, f"{factor}×", fontsize=7.5, color="#555", ha="right", va="top")
    right.set_xlabel("checks before")
    right.set_ylabel("checks after")
    right.set_title("Checks per task")
    right.grid(alpha=0.3)
    fig.suptitle(title)
    _save(fig, path)
