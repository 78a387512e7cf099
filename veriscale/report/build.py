"""The report: one document model rendered as Markdown (``report.md``) and HTML (``report.html``).

Sections, each present only when its inputs are:

* **Scores** -- per task kind, a table of every (model, suite, metric) with the lower and upper
  bound (count and rate), and one plot per metric: a bar per (suite, model) up to the lower
  bound, a hatched extension up to the upper bound.
* **Test-suite power** -- per suite: checks, flawed specifications caught, mutants killed; a plot
  of the catch rates against the suite's size (checks, log scale).
* **Expansion** -- per expand run: the run's totals and a per-task table (tests, reject inputs,
  unexpected outputs, adversaries, kills, checks before and after); a plot of checks before and
  after per task.

Plots are PNG files beside the documents (``plots/*.png``, matplotlib's Agg backend, no display
needed); the HTML embeds them as data URIs so that it is self-contained.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from veriscale.report.inputs import (
    ExpandRun,
    PowerRow,
    ScoreRow,
    find_score_files,
    read_expand_run,
    read_power_file,
    read_score_file,
)

__all__ = ["ReportResult", "build_report"]

METRIC_ORDER = ("code", "precond_sound", "precond_complete", "postcond_sound", "postcond_complete", "proof")


# ---------------------------------------------------------------------------------------------
# The document model


class Heading(BaseModel):
    level: int
    text: str


class Paragraph(BaseModel):
    text: str


class Table(BaseModel):
    header: list[str]
    rows: list[list[str]]


class Figure(BaseModel):
    path: str
    """Relative to the output directory."""
    caption: str


Block = Heading | Paragraph | Table | Figure


class ReportResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    markdown: Path
    html: Path
    plots: list[Path]
    sections: list[str]
    """The sections present: ``scores``, ``power``, ``expand``."""
    missing: list[str] = Field(default_factory=list)
    """Inputs named but absent (left out)."""
    score_rows: list[ScoreRow] = Field(default_factory=list)
    power_rows: list[PowerRow] = Field(default_factory=list)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _metric_key(metric: str) -> tuple[int, str]:
    return (METRIC_ORDER.index(metric) if metric in METRIC_ORDER else len(METRIC_ORDER), metric)


# ---------------------------------------------------------------------------------------------
# Plots


def _pyplot():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def _plot_metric(rows: Sequence[ScoreRow], metric: str, path: Path) -> None:
    plt = _pyplot()
    suites = sorted({r.suite for r in rows})
    models = sorted({r.model for r in rows})
    by_key = {(r.suite, r.model): r for r in rows}
    width = min(0.4, 0.8 / max(1, len(models)))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(suites) * max(1, len(models)) + 2), 4.0))
    colors = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    for m_index, model in enumerate(models):
        color = colors[m_index % len(colors)]
        xs, lowers, gaps = [], [], []
        for s_index, suite in enumerate(suites):
            row = by_key.get((suite, model))
            if row is None:
                continue
            xs.append(s_index + (m_index - (len(models) - 1) / 2) * width)
            lowers.append(100 * row.lower_rate)
            gaps.append(100 * (row.upper_rate - row.lower_rate))
        ax.bar(xs, lowers, width=width, color=color, label=f"{model} (lower)")
        ax.bar(xs, gaps, width=width, bottom=lowers, color=color, alpha=0.35, hatch="//",
               edgecolor=color, label=f"{model} (up to upper)")
    ax.set_xticks(range(len(suites)))
    ax.set_xticklabels(suites)
    ax.set_ylim(0, 100)
    ax.set_ylabel("tasks passing (%)")
    ax.set_title(f"{metric}: lower and upper bound")
    ax.legend(fontsize="small", loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_power(rows: Sequence[PowerRow], path: Path) -> None:
    plt = _pyplot()
    ordered = sorted(rows, key=lambda r: (r.checks, r.name))
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for attribute, label, marker in (("flawed_rate", "flawed specs caught", "o"),
                                     ("mutant_rate", "mutants killed", "s")):
        points = [(r.checks, 100 * getattr(r, attribute), r.name) for r in ordered
                  if getattr(r, attribute) is not None]
        if not points:
            continue
        ax.plot([p[0] for p in points], [p[1] for p in points], marker=marker, label=label)
        for x, y, name in points:
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 4), fontsize="small")
    if ordered and all(r.checks > 0 for r in ordered):
        ax.set_xscale("log")
    ax.set_xlabel("suite size (checks)")
    ax.set_ylabel("caught (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Test-suite power against size")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_expand(run: ExpandRun, path: Path) -> None:
    plt = _pyplot()
    tasks = run.tasks
    fig, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(tasks) + 2), 4.0))
    xs = list(range(len(tasks)))
    ax.bar([x - 0.2 for x in xs], [t.checks_before for t in tasks], width=0.4, label="checks before")
    ax.bar([x + 0.2 for x in xs], [t.checks_after for t in tasks], width=0.4, label="checks after")
    if any(t.checks_after > 0 for t in tasks):
        ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([t.task for t in tasks], rotation=60, ha="right", fontsize="small")
    ax.set_ylabel("checks")
    ax.set_title(f"Expansion per task: {run.name}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# Sections


def _score_blocks(rows: Sequence[ScoreRow], plots_dir: Path, out: Path) -> tuple[list[Block], list[Path]]:
    blocks: list[Block] = [Heading(level=2, text="Scores")]
    plots: list[Path] = []
    blocks.append(Paragraph(text=(
        "Lower bound: a check the engine could not decide counts as a failure; upper bound: only "
        "checks decided the wrong way (or failing by timeout, error or an unsafe section) count.")))
    kinds = sorted({r.kind or "" for r in rows})
    for kind in kinds:
        kind_rows = sorted((r for r in rows if (r.kind or "") == kind),
                           key=lambda r: (_metric_key(r.metric), r.suite, r.model))
        if len(kinds) > 1 or kind:
            blocks.append(Heading(level=3, text=kind or "other"))
        blocks.append(Table(
            header=["Model", "Suite", "Metric", "Tasks", "Lower", "Upper", "Lower rate", "Upper rate"],
            rows=[[r.model, r.suite, r.metric, str(r.tasks), str(r.lower), str(r.upper),
                   _pct(r.lower_rate), _pct(r.upper_rate)] for r in kind_rows],
        ))
    for metric in sorted({r.metric for r in rows}, key=_metric_key):
        path = plots_dir / f"scores_{metric}.png"
        _plot_metric([r for r in rows if r.metric == metric], metric, path)
        plots.append(path)
        blocks.append(Figure(path=path.relative_to(out).as_posix(), caption=f"{metric} per suite and model"))
    return blocks, plots


def _power_blocks(rows: Sequence[PowerRow], plots_dir: Path, out: Path) -> tuple[list[Block], list[Path]]:
    ordered = sorted(rows, key=lambda r: (r.checks, r.name))
    blocks: list[Block] = [
        Heading(level=2, text="Test-suite power"),
        Table(
            header=["Suite", "Checks", "Flawed specs caught", "Rate", "Mutants killed", "Rate"],
            rows=[[r.name, str(r.checks), f"{r.flawed_specs_caught}/{r.flawed_specs_total}", _pct(r.flawed_rate),
                   f"{r.mutants_killed}/{r.mutants_total}", _pct(r.mutant_rate)] for r in ordered],
        ),
    ]
    path = plots_dir / "power.png"
    _plot_power(ordered, path)
    blocks.append(Figure(path=path.relative_to(out).as_posix(), caption="Catch rates against suite size"))
    return blocks, [path]


def _expand_blocks(
    run: ExpandRun, index: int, plots_dir: Path, out: Path
) -> tuple[list[Block], list[Path]]:
    s = run.summary
    blocks: list[Block] = [
        Heading(level=2, text=f"Expansion: {run.name}"),
        Paragraph(text=(
            f"Source {s.source}, engine {s.engine}, seed {s.seed}: {s.tasks_total} task(s) "
            f"({s.tasks_expanded} expanded, {s.tasks_resumed} resumed, {s.tasks_failed} failed). "
            f"Checks {s.checks_before} → {s.checks_after} ({s.growth:.1f}×); tests {s.tests_before} → "
            f"{s.tests_after}, reject inputs {s.rejects_before} → {s.rejects_after}, unexpected outputs "
            f"{s.unexpected_before} → {s.unexpected_after}; {s.kills} kills; {s.seconds:.1f} s.")),
    ]
    rows = []
    for t in run.tasks:
        kept = sum(a.kept for a in t.adversaries.values())
        killed = sum(a.killed for a in t.adversaries.values())
        growth = t.checks_after / t.checks_before if t.checks_before else None
        rows.append([
            t.task, t.status if not t.error else f"{t.status}: {t.error}",
            f"{t.tests_original}+{t.tests_new}", f"{t.rejects_original}+{t.rejects_new}",
            str(t.unexpected.from_adversaries + t.unexpected.from_output_mutation),
            f"{killed}/{kept}", str(t.kills), str(t.checks_before), str(t.checks_after),
            "–" if growth is None else f"{growth:.1f}×", f"{t.seconds:.1f}",
        ])
    blocks.append(Table(
        header=["Task", "Status", "Tests (orig+new)", "Rejects (orig+new)", "New unexpected",
                "Adversaries killed/kept", "Kills", "Checks before", "Checks after", "Growth", "Seconds"],
        rows=rows,
    ))
    plots: list[Path] = []
    if run.tasks:
        path = plots_dir / f"expand_{index}.png"
        _plot_expand(run, path)
        plots.append(path)
        blocks.append(Figure(path=path.relative_to(out).as_posix(), caption=f"Checks per task, {run.name}"))
    return blocks, plots


# ---------------------------------------------------------------------------------------------
# Rendering


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: Sequence[Block]) -> str:
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"{'#' * block.level} {block.text}")
        elif isinstance(block, Paragraph):
            parts.append(block.text)
        elif isinstance(block, Table):
            lines = ["| " + " | ".join(_md_cell(h) for h in block.header) + " |",
                     "|" + "|".join("---" for _ in block.header) + "|"]
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
            parts.append("\n".join(lines))
        else:
            parts.append(f"![{block.caption}]({block.path})")
    return "\n\n".join(parts) + "\n"


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#f3f3f3}"
    "td:not(:first-child){font-variant-numeric:tabular-nums}figure{margin:1em 0}img{max-width:100%}"
    "figcaption{font-size:.85em;color:#555}"
)


def render_html(blocks: Sequence[Block], out: Path, title: str) -> str:
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
             f"<style>{_CSS}</style></head><body>"]
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"<h{block.level}>{html.escape(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{html.escape(h)}</th>" for h in block.header)
            body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in block.rows)
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        else:
            data = base64.b64encode((out / block.path).read_bytes()).decode("ascii")
            parts.append(f"<figure><img alt=\"{html.escape(block.caption)}\" src=\"data:image/png;base64,{data}\">"
                         f"<figcaption>{html.escape(block.caption)}</figcaption></figure>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def build_report(
    out: Path,
    *,
    scores: Sequence[Path] = (),
    power: Path | None = None,
    expand: Sequence[Path] = (),
    title: str = "VeriScale report",
) -> ReportResult:
    """Write ``report.md``, ``report.html`` and ``plots/*.png`` into ``out``.

    ``scores``: score files, or directories searched for ``score.json`` (an eval root such as
    ``runs/eval``). Inputs that do not exist are left out (listed in ``missing``); inputs that
    exist but cannot be read raise :class:`~veriscale.report.inputs.ReportInputError`. Every
    input is read before anything is written.
    """
    missing: list[str] = []
    score_rows: list[ScoreRow] = []
    for given in scores:
        if not given.exists():
            missing.append(str(given))
            continue
        for path in find_score_files(given):
            score_rows.extend(read_score_file(path))
    power_rows: list[PowerRow] = []
    if power is not None:
        if power.exists():
            power_rows = read_power_file(power)
        else:
            missing.append(str(power))
    runs: list[ExpandRun] = []
    for run_dir in expand:
        if run_dir.exists():
            runs.append(read_expand_run(run_dir))
        else:
            missing.append(str(run_dir))

    out.mkdir(parents=True, exist_ok=True)
    plots_dir = out / "plots"
    plots_dir.mkdir(exist_ok=True)
    for stale in plots_dir.glob("*.png"):  # plots of an earlier report in the same place
        stale.unlink()
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    blocks: list[Block] = [Heading(level=1, text=title), Paragraph(text=f"Generated {generated}.")]
    plots: list[Path] = []
    sections: list[str] = []
    if score_rows:
        new_blocks, new_plots = _score_blocks(score_rows, plots_dir, out)
        blocks += new_blocks
        plots += new_plots
        sections.append("scores")
    if power_rows:
        new_blocks, new_plots = _power_blocks(power_rows, plots_dir, out)
        blocks += new_blocks
        plots += new_plots
        sections.append("power")
    for index, run in enumerate(runs, start=1):
        new_blocks, new_plots = _expand_blocks(run, index, plots_dir, out)
        blocks += new_blocks
        plots += new_plots
        if "expand" not in sections:
            sections.append("expand")
    if not sections:
        blocks.append(Paragraph(text="No inputs: nothing to report."))
    if missing:
        blocks.append(Paragraph(text="Left out (not found): " + ", ".join(missing) + "."))

    markdown_path = out / "report.md"
    html_path = out / "report.html"
    markdown_path.write_text(render_markdown(blocks), encoding="utf-8")
    html_path.write_text(render_html(blocks, out, title), encoding="utf-8")
    return ReportResult(
        markdown=markdown_path,
        html=html_path,
        plots=plots,
        sections=sections,
        missing=missing,
        score_rows=score_rows,
        power_rows=power_rows,
    )
