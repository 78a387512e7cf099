"""The games' figures, from the run directories' transcripts (``transcripts.jsonl``, one finished
item or game a line, as ``refute run`` / ``falsify run`` write them, with a model or a baseline).

* REFUTE: success rate by difficulty bucket (hardest first), and by adversary kind; one bar per
  run, each labelled ``solved/items``.
* FalsifyBench: the tests (turns) each game took, solved games filled and lost ones hollow; and
  each run's positive-testing bias against its success rate (FalsifyBench's headline figure:
  players who test negatively succeed more often).

What is drawn is computed by pure functions (:func:`refute_bars`, :func:`falsify_summary`);
drawing uses matplotlib's Agg backend (files only, no display). Several runs (a model and the
baselines, say) share one figure, each labelled with its directory's name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriscale.games.common import TranscriptStore
from veriscale.games.refute.difficulty import BUCKETS

__all__ = [
    "FalsifyRun",
    "RefuteBar",
    "RunReadError",
    "falsify_figure",
    "falsify_summary",
    "read_run",
    "refute_bars",
    "refute_figure",
    "run_labels",
]

TRANSCRIPTS = "transcripts.jsonl"
DPI = 110
COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")


class RunReadError(ValueError):
    """A run directory without readable transcripts (the message names the file and why)."""


def read_run(run: Path, required: Sequence[str]) -> list[dict[str, Any]]:
    """The finished records of ``run/transcripts.jsonl`` (as the run's metrics count them: a line
    cut short by an interruption is left out), each checked to hold the ``required`` fields."""
    path = run / TRANSCRIPTS
    if not path.is_file():
        raise RunReadError(f"{path}: no transcripts (play the run first)")
    try:
        records = list(TranscriptStore(path).done().values())
    except (OSError, UnicodeDecodeError) as exc:
        raise RunReadError(f"{path}: cannot be read: {exc}") from exc
    for record in records:
        missing = [name for name in required if name not in record]
        if missing:
            raise RunReadError(
                f"{path}: item {record['item']}: missing {', '.join(missing)} (not a run of this game?)"
            )
    if not records:
        raise RunReadError(f"{path}: no finished item")
    return records


def run_labels(runs: Sequence[Path]) -> list[str]:
    """Each run's directory name; the paths as given where two names coincide."""
    names = [run.name or str(run) for run in runs]
    return names if len(set(names)) == len(names) else [str(run) for run in runs]


# ---------------------------------------------------------------------------------------------
# REFUTE


REFUTE_FIELDS = ("item", "bucket", "kind", "solved_at")


@dataclass(frozen=True)
class RefuteBar:
    group: str
    """``bucket`` or ``kind``."""
    name: str
    run: str
    solved: int
    items: int

    @property
    def rate(self) -> float:
        return self.solved / self.items if self.items else 0.0


def _bucket_order(names: Iterable[str]) -> list[str]:
    known = list(BUCKETS)
    present = set(names)
    return [n for n in known if n in present] + sorted(present - set(known))


def refute_bars(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> list[RefuteBar]:
    """Solved and played items per (bucket, run) and per (kind, run); buckets hardest first, kinds
    alphabetically, runs in the given order. A bucket a run did not play has no bar for it."""
    bars: list[RefuteBar] = []
    for group, order in (("bucket", _bucket_order), ("kind", sorted)):
        names = order({str(r[group]) for _, records in runs for r in records})
        for name in names:
            for label, records in runs:
                mine = [r for r in records if str(r[group]) == name]
                if mine:
                    solved = sum(1 for r in mine if r["solved_at"] is not None)
                    bars.append(RefuteBar(group, name, label, solved, len(mine)))
    return bars


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def _grouped_bars(ax: Any, bars: Sequence[RefuteBar], runs: Sequence[str], title: str) -> None:
    names = list(dict.fromkeys(b.name for b in bars))
    width = 0.8 / max(1, len(runs))
    for index, run in enumerate(runs):
        mine = [b for b in bars if b.run == run]
        xs = [names.index(b.name) - 0.4 + width * (index + 0.5) for b in mine]
        ax.bar(xs, [b.rate for b in mine], width=width * 0.95, color=COLOURS[index % len(COLOURS)], label=run)
        for x, bar in zip(xs, mine):
            ax.annotate(f"{bar.solved}/{bar.items}", (x, bar.rate), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("success rate")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)


def refute_figure(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]], path: Path) -> list[RefuteBar]:
    """Success by difficulty bucket and by adversary kind, as a PNG at ``path``; the bars drawn."""
    plt = _pyplot()
    bars = refute_bars(runs)
    labels = [label for label, _ in runs]
    fig, (by_bucket, by_kind) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    _grouped_bars(by_bucket, [b for b in bars if b.group == "bucket"], labels,
                  "REFUTE: success by difficulty bucket (hardest first)")
    _grouped_bars(by_kind, [b for b in bars if b.group == "kind"], labels, "by adversary kind")
    by_bucket.set_xlabel("bucket (share of the suite's accept inputs that expose the program)")
    by_kind.tick_params(axis="x", labelrotation=30, labelsize=8)
    by_bucket.legend(fontsize=8, loc="upper left")
    _save(plt, fig, path)
    return bars


# ---------------------------------------------------------------------------------------------
# FalsifyBench


FALSIFY_FIELDS = ("item", "success", "turns", "positive_bias")


@dataclass(frozen=True)
class FalsifyRun:
    run: str
    games: int
    solved: int
    turns: tuple[tuple[int, bool], ...]
    """(tests proposed, solved) per game, in record order."""
    positive_bias: float | None
    """Mean over the games where the player stated an expectation (``None``: it never did)."""

    @property
    def success_rate(self) -> float:
        return self.solved / self.games if self.games else 0.0


def falsify_summary(label: str, records: Sequence[dict[str, Any]]) -> FalsifyRun:
    biases = [float(r["positive_bias"]) for r in records if r["positive_bias"] is not None]
    return FalsifyRun(
        run=label,
        games=len(records),
        solved=sum(1 for r in records if r["success"]),
        turns=tuple((int(r["turns"]), bool(r["success"])) for r in records),
        positive_bias=sum(biases) / len(biases) if biases else None,
    )


def falsify_figure(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]], path: Path) -> list[FalsifyRun]:
    """Turns per game and positive-testing bias against success, as a PNG at ``path``."""
    plt = _pyplot()
    summaries = [falsify_summary(label, records) for label, records in runs]
    fig, (turns_ax, bias_ax) = plt.subplots(1, 2, figsize=(11, 4.2))
    for index, summary in enumerate(summaries):
        colour = COLOURS[index % len(COLOURS)]
        count = len(summary.turns)
        # Evenly spread within the run's column (deterministic, unlike random jitter).
        xs = [index + (0.0 if count == 1 else -0.25 + 0.5 * k / (count - 1)) for k in range(count)]
        for x, (turns, solved) in zip(xs, summary.turns):
            turns_ax.scatter([x], [turns], s=28, edgecolors=colour, facecolors=colour if solved else "none")
        if summary.positive_bias is not None:
            bias_ax.scatter([summary.positive_bias], [summary.success_rate], s=60, color=colour)
            bias_ax.annotate(f"{summary.run} ({summary.solved}/{summary.games})",
                             (summary.positive_bias, summary.success_rate), xytext=(5, 4),
                             textcoords="offset points", fontsize=8)
    turns_ax.set_xticks(range(len(summaries)), [s.run for s in summaries])
    turns_ax.set_xlim(-0.6, len(summaries) - 0.4)
    turns_ax.set_ylim(bottom=0)
    turns_ax.set_ylabel("tests proposed")
    turns_ax.set_title("FalsifyBench: tests per game (filled: solved)")
    turns_ax.grid(axis="y", alpha=0.3)
    bias_ax.set_xlim(-0.05, 1.05)
    bias_ax.set_ylim(-0.05, 1.1)
    bias_ax.set_xlabel("positive-testing bias (share of proposals expected to be 'yes')")
    bias_ax.set_ylabel("success rate")
    bias_ax.set_title("bias against success")
    bias_ax.grid(alpha=0.3)
    if all(s.positive_bias is None for s in summaries):
        bias_ax.text(0.5, 0.5, "no expectation stated in any game", ha="center", va="center",
                     transform=bias_ax.transAxes)
    _save(plt, fig, path)
    return summaries


def _save(plt: Any, fig: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
