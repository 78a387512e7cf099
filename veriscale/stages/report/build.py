"""The report: one document model rendered as Markdown (``report.md``) and HTML (``report.html``).

Made to be read at benchmark scale (151 Verina tasks, several suites and models). Sections, each
present only when its inputs are:

* **Engine caveat** -- when any number comes from the embedded engine (or an unnamed one): what
  that engine does not establish, and that final numbers come from ``--backend lean``; with the
  score files' own caveats.
* **Scores** -- per task kind, a table of every (model, suite, metric): tasks, samples, pass@1
  and pass@k, each as lower and upper bound; suites ordered original → Plus → Lite. One figure per
  (kind, model): a bar per (metric, suite) up to the lower bound, hatched up to the upper bound,
  every bar labelled with its value (a zero bar gets a marker and its label).
* **Provenance** -- per score file: VeriScale version and commit, suite and content hash, engine,
  date, options.
* **Failures** -- per score file, the failed (task, sample, metric)s with their failing tests and
  the first failing input (collapsed in HTML, capped).
* **Test-suite power** -- per suite: size, flawed specifications caught, mutants killed, each with
  its 95 % interval; a figure of labelled points with interval bars per suite on a zoomed axis.
* **Expansion** -- per expand run: totals, the distribution of per-task growth (sorted, and
  summarised by quartiles) and the per-task table (collapsed).

Figures are PNG files beside the documents (``plots/*.png``, matplotlib's Agg backend); the HTML
embeds them as data URIs so that it is self-contained.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from veriscale.stages.report import plots
from veriscale.stages.report.figures import growth_quantiles, sorted_growth, suite_order
from veriscale.stages.report.inputs import (
    ExpandRun,
    PowerRow,
    ScoreFile,
    ScoreRow,
    TaskFailure,
    find_score_files,
    read_expand_run,
    read_power_file,
    read_score_details,
)
from veriscale.stages.score import EMBEDDED_CAVEAT

__all__ = ["ENGINE_CAVEAT", "ReportResult", "build_report"]

METRIC_ORDER = (
    "code", "precond_sound", "precond_complete", "postcond_sound", "postcond_complete", "proof",
    "precond_sound_complete", "postcond_sound_complete", "precond_postcond", "code_spec",
)
FAILURES_SHOWN = 25
"""Failed (task, sample, metric)s listed per score file; the rest are counted."""
FAILING_IDS_SHOWN = 4
VALUE_CHARS = 80

ENGINE_CAVEAT = (
    "Engine caveat: these numbers come from VeriScale's embedded engine, a Python evaluator for the "
    "executable, decidable fragment of Lean 4, not from Lean itself. It elaborates submissions by its "
    "own model of Lean (names, types, index bounds, termination) and decides propositions only where "
    "Lean's decide would. A check it cannot decide counts as a failure in the lower bound and as a pass "
    "in the upper bound; proofs are not checked (proof is unknown). Final numbers still come from "
    "--backend lean."
)


# ---------------------------------------------------------------------------------------------
# The document model


class Heading(BaseModel):
    level: int
    text: str


class Paragraph(BaseModel):
    text: str


class Note(BaseModel):
    """A call-out (the engine caveat): framed in HTML, a quotation in Markdown."""

    text: str


class Table(BaseModel):
    header: list[str]
    rows: list[list[str]]


class Figure(BaseModel):
    path: str
    """Relative to the output directory."""
    caption: str


class Details(BaseModel):
    """Collapsed in HTML (``<details>``), a titled part in Markdown."""

    summary: str
    open: bool = False
    """Shown unfolded at first (the first of a list, so a reader sees what the others hold)."""
    blocks: list[Heading | Paragraph | Note | Table | Figure]


Block = Heading | Paragraph | Note | Table | Figure | Details


class ReportResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    markdown: Path
    html: Path
    plots: list[Path]
    sections: list[str]
    """The sections present: ``caveat``, ``scores``, ``provenance``, ``failures``, ``power``, ``expand``."""
    missing: list[str] = Field(default_factory=list)
    """Inputs named but absent (left out)."""
    score_rows: list[ScoreRow] = Field(default_factory=list)
    power_rows: list[PowerRow] = Field(default_factory=list)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _bounds(lower: float, upper: float) -> str:
    return _pct(lower) if abs(upper - lower) < 5e-5 else f"{_pct(lower)}–{_pct(upper)}"


def _metric_key(metric: str) -> tuple[int, str]:
    return (METRIC_ORDER.index(metric) if metric in METRIC_ORDER else len(METRIC_ORDER), metric)


def _short(text: str, limit: int = VALUE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rel(path: Path, out: Path) -> str:
    return path.relative_to(out).as_posix()


# ---------------------------------------------------------------------------------------------
# Sections


def _caveat_blocks(files: Sequence[ScoreFile], runs: Sequence[ExpandRun], power: bool) -> list[Block]:
    """The engine caveat unless every input names the Lean engine (a power file names none)."""
    engines: set[str | None] = {f.engine for f in files} | {r.summary.engine for r in runs}
    if power:
        engines.add(None)
    shown = bool(engines - {"lean"})
    own = sorted({c for f in files for c in f.caveats if not (shown and _engine_caveat_of_score(c))})
    blocks: list[Block] = [Note(text=ENGINE_CAVEAT)] if shown else []
    blocks += [Note(text=f"From the score files: {c}") for c in own]
    return blocks


def _engine_caveat_of_score(caveat: str) -> bool:
    """The caveat ``score`` writes for the embedded engine (this wording or an earlier one: it
    leads with the engine's name); the report's own engine caveat says it at more length, so it
    is shown once."""
    return caveat == EMBEDDED_CAVEAT or caveat.startswith("embedded engine")


def _score_table(rows: Sequence[ScoreRow]) -> Table:
    """A row per (metric, model); per suite (original → Plus → Lite) a pass@1 column, then a
    pass@k column per suite for every k above 1 that some row reports."""
    suites = suite_order(r.suite for r in rows)
    ks = sorted({p.k for r in rows for p in r.pass_at_k if p.k > 1})
    by_key = {(r.metric, r.model, r.suite): r for r in rows}
    header = ["Metric", "Model", "Tasks (samples)"] + [f"{s} pass@1" for s in suites]
    header += [f"{s} pass@{k}" for k in ks for s in suites]
    body = []
    for metric, model in sorted({(r.metric, r.model) for r in rows}, key=lambda mm: (_metric_key(mm[0]), mm[1])):
        cells = [by_key.get((metric, model, s)) for s in suites]
        sizes = " / ".join(
            "–" if r is None else (f"{r.tasks}" if r.samples in (0, r.tasks) else f"{r.tasks} ({r.samples})")
            for r in cells)
        row = [metric, model, sizes] + ["–" if r is None else _bounds(r.lower_rate, r.upper_rate) for r in cells]
        for k in ks:
            for r in cells:
                found = next((p for p in r.pass_at_k if p.k == k), None) if r is not None else None
                row.append("–" if found is None else _bounds(found.lower, found.upper))
        body.append(row)
    return Table(header=header, rows=body)


def _score_blocks(rows: Sequence[ScoreRow], plots_dir: Path, out: Path) -> tuple[list[Block], list[Path]]:
    blocks: list[Block] = [Heading(level=2, text="Scores")]
    made: list[Path] = []
    blocks.append(Paragraph(text=(
        "Each cell is lower–upper bound (one number when they agree). Lower: a check the engine could "
        "not decide counts as a failure; upper: only checks decided the wrong way (or failing by "
        "timeout, error or an unsafe section) count. pass@k is the unbiased estimator averaged over "
        "tasks. Suites read original → Plus → Lite.")))
    kinds = sorted({r.kind or "" for r in rows})
    for kind in kinds:
        kind_rows = [r for r in rows if (r.kind or "") == kind]
        if len(kinds) > 1 or kind:
            blocks.append(Heading(level=3, text=kind or "other"))
        blocks.append(_score_table(kind_rows))
        for model in sorted({r.model for r in kind_rows}):
            index = len(made) + 1
            path = plots_dir / f"scores_{index}.png"
            model_rows = [r for r in kind_rows if r.model == model]
            plots.score_bars(model_rows, path, title=f"{model}{f' ({kind})' if kind else ''}: pass@1 per metric",
                             metric_order=METRIC_ORDER)
            made.append(path)
            blocks.append(Figure(path=_rel(path, out), caption=(
                f"{model}{f', {kind}' if kind else ''}: pass@1 per metric and suite (solid: lower bound; "
                "hatched: up to the upper bound; ▼ marks a bar at 0)")))
    return blocks, made


def _provenance_blocks(files: Sequence[ScoreFile]) -> list[Block]:
    rows = []
    suites = suite_order(f.suite for f in files)
    for f in sorted(files, key=lambda f: (f.model, suites.index(f.suite), f.kind or "")):
        p = f.provenance or {}
        commit = str(p.get("git_commit") or "–")
        digest = str(p.get("suite_hash") or "–")
        options = p.get("options") or {}
        rows.append([
            f.model, f.suite, f.kind or "–", str(p.get("veriscale_version") or "–"),
            commit[:12] + ("+dirty" if commit.endswith("+dirty") else ""),
            digest[:19] + "…" if len(digest) > 20 else digest, str(p.get("engine") or f.engine or "–"),
            str(p.get("date") or "–"),
            ", ".join(f"{k}={v}" for k, v in sorted(options.items()) if v is not None) or "–",
        ])
    blocks: list[Block] = [Heading(level=2, text="Provenance"), Table(
        header=["Model", "Suite", "Kind", "VeriScale", "Commit", "Suite hash", "Engine", "Date", "Options"],
        rows=rows)]
    without = [f"{f.model} on {f.suite}" for f in files if not f.provenance]
    if without:
        blocks.append(Paragraph(text="No provenance recorded (an older score file): " + ", ".join(without) + "."))
    return blocks


def _failure_row(group: Sequence[TaskFailure]) -> list[str]:
    """One (task, sample): its failed and undecided metrics, and the first failing test of the
    first failed metric (its input, what was returned, what was expected)."""
    failed = [f for f in group if not f.unknown]
    unknown = [f for f in group if f.unknown]
    shown = next((f for f in failed if f.first), failed[0] if failed else unknown[0])
    if shown.first:
        more = len(shown.failing) - 1
        first = f"{shown.metric}: {shown.first}" + (f" (+{more} more)" if more > 0 else "")
    else:
        first = "–"
    given = ", ".join(f"{k} = {v}" for k, v in shown.input.items())
    if shown.output is not None:
        given += f"; output {shown.output}"
    return [shown.task, str(shown.sample), ", ".join(f.metric for f in failed) or "–",
            ", ".join(f.metric for f in unknown) or "–", first, _short(given) if given else "–",
            _short(shown.returned) if shown.returned is not None else "–",
            _short(shown.expected) if shown.expected is not None else "–",
            _short(shown.reason, 110) if shown.reason else "–"]


def _failure_blocks(files: Sequence[ScoreFile]) -> list[Block]:
    blocks: list[Block] = [Heading(level=2, text="Failures per task"), Paragraph(text=(
        f"Per score file, every (task, sample) with a failed or undecided metric, the first {FAILURES_SHOWN} "
        "shown (failures before undecided ones): the first failing test by its id, its input, what the "
        "submission returned and what was expected; score.json lists every failing test. Combined metrics "
        "are left out (they fail with their parts)."))]
    suites = suite_order(f.suite for f in files)
    for f in sorted(files, key=lambda f: (f.model, suites.index(f.suite), f.kind or "")):
        groups: dict[tuple[str, int], list[TaskFailure]] = {}
        for x in sorted(f.failures, key=lambda x: _metric_key(x.metric)):
            if x.metric not in METRIC_ORDER[6:]:
                groups.setdefault((x.task, x.sample), []).append(x)
        ordered = sorted(groups.values(), key=lambda g: (all(x.unknown for x in g), g[0].task, g[0].sample))
        title = f"{f.model} on {f.suite}{f' ({f.kind})' if f.kind else ''}: "
        if not ordered:
            blocks.append(Paragraph(text=title + "no failures."))
            continue
        with_failure = sum(1 for g in ordered if not all(x.unknown for x in g))
        inner: list[Heading | Paragraph | Note | Table | Figure] = [Table(
            header=["Task", "Sample", "Failed", "Undecided", "First failing test", "Its input",
                    "Returned", "Expected", "Reason"],
            rows=[_failure_row(g) for g in ordered[:FAILURES_SHOWN]])]
        if len(ordered) > FAILURES_SHOWN:
            inner.append(Paragraph(text=f"… and {len(ordered) - FAILURES_SHOWN} more in {f.path}."))
        blocks.append(Details(summary=(
            f"{title}{with_failure} task sample(s) with a failed metric, {len(ordered) - with_failure} "
            "with undecided ones only"),
            blocks=inner, open=with_failure > 0 and not any(isinstance(b, Details) and b.open for b in blocks)))
    return blocks


def _power_blocks(rows: Sequence[PowerRow], plots_dir: Path, out: Path) -> tuple[list[Block], list[Path]]:
    order = suite_order(r.name for r in rows)
    ordered = sorted(rows, key=lambda r: (order.index(r.name), r.path))

    def rate(hits: int, total: int, interval: tuple[float, float] | None) -> str:
        if not total:
            return f"{hits}/{total}"
        low, high = interval or (0.0, 1.0)
        return f"{hits}/{total} = {_pct(hits / total)} [{_pct(low)}–{_pct(high)}]"

    blocks: list[Block] = [
        Heading(level=2, text="Test-suite power"),
        Paragraph(text=("The same flawed specifications and reference-code mutants against every suite; "
                        "rates with their 95 % interval (as power wrote it, else Wilson's from the counts).")),
        Table(
            header=["Suite", "Checks", "Flawed specs caught", "Mutants killed"],
            rows=[[r.name, f"{r.checks:,}",
                   rate(r.flawed_specs_caught, r.flawed_specs_total, r.interval("flawed_specs")),
                   rate(r.mutants_killed, r.mutants_total, r.interval("mutants"))] for r in ordered],
        ),
    ]
    path = plots_dir / "power.png"
    plots.power_points(ordered, path)
    blocks.append(Figure(path=_rel(path, out), caption=(
        "Catch rates per suite with 95 % intervals; the axis is zoomed to the intervals (it does not start at 0)")))
    return blocks, [path]


def _expand_blocks(run: ExpandRun, index: int, plots_dir: Path, out: Path) -> tuple[list[Block], list[Path]]:
    s = run.summary
    blocks: list[Block] = [
        Heading(level=2, text=f"Expansion: {run.name}"),
        Paragraph(text=(
            f"Source {s.source}, engine {s.engine}, seed {s.seed}: {s.tasks_total} task(s) "
            f"({s.tasks_expanded} expanded, {s.tasks_resumed} resumed, {s.tasks_failed} failed). "
            f"Checks {s.checks_before:,} → {s.checks_after:,} ({s.growth:.1f}×); tests {s.tests_before:,} → "
            f"{s.tests_after:,}, reject inputs {s.rejects_before:,} → {s.rejects_after:,}, unexpected outputs "
            f"{s.unexpected_before:,} → {s.unexpected_after:,}; {s.kills:,} kills; {s.seconds:.1f} s.")),
    ]
    growth = sorted_growth((t.task, t.checks_before, t.checks_after) for t in run.tasks)
    quantiles = growth_quantiles(growth)
    if quantiles:
        blocks.append(Paragraph(text=(
            "Growth per task (checks after / before): minimum {min:.1f}×, quartiles {q1:.1f}× / {median:.1f}× / "
            "{q3:.1f}×, maximum {max:.1f}×.".format(**quantiles)
            + f" Lowest: {', '.join(f'{t} {g:.1f}×' for t, g in growth[:3])}; highest: "
            + f"{', '.join(f'{t} {g:.1f}×' for t, g in growth[-3:][::-1])}.")))
    made: list[Path] = []
    if growth:
        path = plots_dir / f"expand_{index}.png"
        plots.growth_distribution(growth, [(t.checks_before, t.checks_after) for t in run.tasks], path,
                                  title=f"Expansion of {run.name}: {len(growth)} tasks")
        made.append(path)
        blocks.append(Figure(path=_rel(path, out), caption=(
            f"Per-task growth of {run.name}, tasks sorted by growth (left), and checks before and after (right)")))
    rows = []
    for t in run.tasks:
        kept = sum(a.kept for a in t.adversaries.values())
        killed = sum(a.killed for a in t.adversaries.values())
        task_growth = t.checks_after / t.checks_before if t.checks_before else None
        rows.append([
            t.task, t.status if not t.error else f"{t.status}: {_short(t.error)}",
            f"{t.tests_original}+{t.tests_new}", f"{t.rejects_original}+{t.rejects_new}",
            str(t.unexpected.from_adversaries + t.unexpected.from_output_mutation),
            f"{killed}/{kept}", str(t.kills), str(t.checks_before), str(t.checks_after),
            "–" if task_growth is None else f"{task_growth:.1f}×", f"{t.seconds:.1f}",
        ])
    table = Table(
        header=["Task", "Status", "Tests (orig+new)", "Rejects (orig+new)", "New unexpected",
                "Adversaries killed/kept", "Kills", "Checks before", "Checks after", "Growth", "Seconds"],
        rows=rows,
    )
    blocks.append(Details(summary=f"Per-task expansion table ({len(rows)} tasks)", blocks=[table]))
    return blocks, made


# ---------------------------------------------------------------------------------------------
# Rendering


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {block.text}"
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Note):
        return f"> **{block.text}**"
    if isinstance(block, Table):
        lines = ["| " + " | ".join(_md_cell(h) for h in block.header) + " |",
                 "|" + "|".join("---" for _ in block.header) + "|"]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
        return "\n".join(lines)
    if isinstance(block, Details):
        return "\n\n".join([f"**{block.summary}**"] + [_markdown_block(b) for b in block.blocks])
    return f"![{block.caption}]({block.path})"


def render_markdown(blocks: Sequence[Block]) -> str:
    return "\n\n".join(_markdown_block(b) for b in blocks) + "\n"


#: The page's fonts: the system's own first, then fonts with Chinese, Japanese and Korean glyphs
#: (test inputs hold such text) on Linux (Noto CJK, Source Han, WenQuanYi), macOS (PingFang,
#: Hiragino, Apple SD Gothic) and Windows (Microsoft YaHei, Yu Gothic, Malgun Gothic), so that a
#: browser reaches one before its generic fallback.
_FONT_STACK = (
    'system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",'
    '"Noto Sans CJK SC","Noto Sans CJK JP","Noto Sans CJK KR","Source Han Sans SC","WenQuanYi Micro Hei",'
    '"PingFang SC","Hiragino Sans","Apple SD Gothic Neo","Microsoft YaHei","Yu Gothic","Malgun Gothic",sans-serif'
)

_CSS = (
    f"body{{font-family:{_FONT_STACK};max-width:72em;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}}"
    "h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}"
    ".scroll{overflow-x:auto}"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.85em}"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}th{background:#f3f3f3}"
    "td{font-variant-numeric:tabular-nums;max-width:24em;overflow-wrap:break-word}figure{margin:1em 0}img{max-width:100%}"
    "figcaption{font-size:.85em;color:#555}"
    ".note{border-left:5px solid #d08700;background:#fff6e0;padding:.6em 1em;margin:1em 0}"
    "details{margin:.5em 0}summary{cursor:pointer;font-weight:600}"
)


def _html_block(block: Block, out: Path) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Note):
        return f"<div class=\"note\">{html.escape(block.text)}</div>"
    if isinstance(block, Table):
        head = "".join(f"<th>{html.escape(h)}</th>" for h in block.header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        return f"<div class=\"scroll\"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    if isinstance(block, Details):
        inner = "\n".join(_html_block(b, out) for b in block.blocks)
        unfolded = " open" if block.open else ""
        return f"<details{unfolded}><summary>{html.escape(block.summary)}</summary>\n{inner}\n</details>"
    data = base64.b64encode((out / block.path).read_bytes()).decode("ascii")
    return (f"<figure><img alt=\"{html.escape(block.caption)}\" src=\"data:image/png;base64,{data}\">"
            f"<figcaption>{html.escape(block.caption)}</figcaption></figure>")


def render_html(blocks: Sequence[Block], out: Path, title: str) -> str:
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
             f"<style>{_CSS}</style></head><body>"]
    parts += [_html_block(b, out) for b in blocks]
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _read_inputs(
    scores: Sequence[Path], power: Path | None, expand: Sequence[Path]
) -> tuple[list[ScoreFile], list[PowerRow], list[ExpandRun], list[str]]:
    missing: list[str] = []
    files: list[ScoreFile] = []
    for given in scores:
        if not given.exists():
            missing.append(str(given))
            continue
        files += [read_score_details(path) for path in find_score_files(given)]
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
    return files, power_rows, runs, missing


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
    exist but cannot be read raise :class:`~veriscale.stages.report.inputs.ReportInputError`. Every
    input is read before anything is written.
    """
    files, power_rows, runs, missing = _read_inputs(scores, power, expand)
    score_rows = [row for f in files for row in f.rows]

    out.mkdir(parents=True, exist_ok=True)
    plots_dir = out / "plots"
    plots_dir.mkdir(exist_ok=True)
    for stale in plots_dir.glob("*.png"):  # plots of an earlier report in the same place
        stale.unlink()
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    blocks: list[Block] = [Heading(level=1, text=title), Paragraph(text=f"Generated {generated}.")]
    made: list[Path] = []
    sections: list[str] = []

    def add(name: str, new_blocks: list[Block], new_plots: Sequence[Path] = ()) -> None:
        if new_blocks:
            blocks.extend(new_blocks)
            made.extend(new_plots)
            if name not in sections:
                sections.append(name)

    add("caveat", _caveat_blocks(files, runs, bool(power_rows)))
    if score_rows:
        add("scores", *_score_blocks(score_rows, plots_dir, out))
    if files:
        add("provenance", _provenance_blocks(files))
        add("failures", _failure_blocks(files))
    if power_rows:
        add("power", *_power_blocks(power_rows, plots_dir, out))
    for index, run in enumerate(runs, start=1):
        add("expand", *_expand_blocks(run, index, plots_dir, out))
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
        plots=made,
        sections=sections,
        missing=missing,
        score_rows=score_rows,
        power_rows=power_rows,
    )
