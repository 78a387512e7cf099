"""A human-readable report of an ``expand`` run (what the CLI and the benchmark print)."""

from __future__ import annotations

from veriscale.stages.expand.models import ExpandSummary
from veriscale.tables import add_row, new_table, render

__all__ = ["format_summary"]

_CANDIDATE_FIELDS = (
    "generated", "duplicate", "accept", "reject", "unknown", "code_unknown", "postcond_unknown", "postcond_false",
    "dropped_deadline",
)  # fmt: skip
_ADVERSARY_FIELDS = ("generated", "unsafe", "all_unknown", "equivalent", "skipped_deadline", "kept", "killed")


def _table(title: str, rows: dict[str, object], fields: tuple[str, ...]) -> list[str]:
    """``title``, then one row per source with a count per field."""
    table = new_table("source", *fields, right=fields)
    for source, counts in rows.items():
        add_row(table, source, *(getattr(counts, f) for f in fields))
    return [title, *("  " + line for line in render(table).splitlines())]


def _limits(s: ExpandSummary) -> str:
    parts = []
    if s.task_steps is not None:
        parts.append(f"{s.task_steps:,} steps")
    if s.task_deadline_s is not None:
        parts.append(f"{s.task_deadline_s:g} s for engines without steps")
    if s.task_backstop_s is not None:
        parts.append(f"backstop {s.task_backstop_s:g} s")
    return ", ".join(parts) or "none"


def _budget_line(s: ExpandSummary) -> str:
    hits = ", ".join(f"{n} by {kind}" for kind, n in s.budget_hits.items()) if s.budget_hits else "none"
    return f"per-task budget ({_limits(s)}): {s.deadline_hits} task(s) stopped ({hits})"


def format_summary(summary: ExpandSummary, *, slowest: int = 5) -> str:
    s = summary
    lines = [
        f"{s.source} -> {s.output} (engine {s.engine}, seed {s.seed})",
        f"{s.tasks_total} tasks: {s.tasks_expanded} expanded now, {s.tasks_resumed} resumed, {s.tasks_failed} failed; "
        f"{s.seconds:.1f} s" + (f", {s.steps:,} engine steps" if s.steps is not None else ""),
        _budget_line(s),
    ]
    wall_clock = [t.task for t in s.tasks if t.budget_hit in ("seconds", "backstop") or t.engine_backstops]
    if wall_clock:
        lines.append(f"stopped by a wall-clock limit (may differ in another run): {', '.join(wall_clock)}")
    if s.engine_backstops:
        lines.append(f"checks stopped by the engine's own wall-clock backstop: {s.engine_backstops}")
    if s.tasks and slowest:
        worst = sorted(s.tasks, key=lambda t: -t.seconds)[:slowest]
        lines.append("slowest: " + ", ".join(f"{t.task} {t.seconds:.0f} s" for t in worst))
    for task in s.tasks:
        if task.status == "error":
            lines.append(f"failed: {task.task}: {task.error}")
    for failure in s.load_failures:
        lines.append(f"not loaded: {failure}")
    lines.append("")
    lines += _table("candidate inputs:", dict(s.candidates), _CANDIDATE_FIELDS)
    lines.append("")
    lines += _table("adversaries:", dict(s.adversaries), _ADVERSARY_FIELDS)
    u = s.unexpected
    lines += [
        "",
        f"wrong outputs: {u.proved_wrong} distinct (input, output) pairs proved wrong; written "
        f"{u.from_adversaries} from adversaries + {u.from_output_mutation} from output mutation",
        f"differing outputs the ground truth accepts: {u.postcond_accepted}; undecided: {u.postcond_unknown} "
        f"({u.unproved_deadline} for the budget)",
        f"original unexpected outputs: {u.original}; the ground truth accepts {u.original_not_rejected} of them "
        f"and cannot decide {u.original_unknown}",
        f"kill matrix: {s.kills} (adversary, test) kills; reference disagreements: {s.reference_disagreements}",
        f"original tests whose ground-truth postcondition is undecided here: {s.original_postcond_unknown}",
        f"broken tasks (the reference output falsifies the reference postcondition): {len(s.broken_tasks)}"
        + (f" ({', '.join(s.broken_tasks)})" if s.broken_tasks else ""),
    ]
    for task in s.tasks:
        for found in task.counterexamples[:3]:
            lines.append(f"  {task.task}: input {found.input} ({found.source}) -> {found.output}")
    if s.llm is not None:
        lines.append(
            f"LLM: {s.llm.requests} requests, {s.llm.cache_hits} cache hits, bad replies {s.llm.bad_replies or 0}, "
            f"failures {s.llm.failures or 0}, errors {len(s.llm.errors)}"
        )
    lines += [
        "",
        "checks = tests + unexpected outputs + reject inputs",
        f"  before: {s.checks_before} = {s.tests_before} + {s.unexpected_before} + {s.rejects_before}",
        f"  after:  {s.checks_after} = {s.tests_after} + {s.unexpected_after} + {s.rejects_after}",
        f"  growth: {s.growth:.1f}x",
    ]
    return "\n".join(lines)
