"""A readable rendering of an audit (``rich`` tables: the totals, then every finding)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from veriscale.stages.audit.models import FINDING_KINDS, FINDING_TITLES, BenchmarkAudit, Finding

__all__ = ["format_audit"]


def _one_line(text: str, width: int = 90) -> str:
    text = " ".join(text.replace("\n", "; ").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def format_audit(report: BenchmarkAudit, *, width: int = 160) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    console.print(f"audit of {report.source} (engine {report.engine}, seed {report.seed}): {report.tasks_total} tasks, "
                  f"{report.tasks_with_findings} with findings, {report.seconds:.1f} s")
    console.print(f"tasks with a concrete counterexample to spec_satisfied: {len(report.tasks_with_counterexample)}"
                  + (f" ({', '.join(report.tasks_with_counterexample)})" if report.tasks_with_counterexample else ""))
    if report.tasks_with_errors:
        errors = {t.task: t.error for t in report.tasks if t.error is not None}
        console.print(f"tasks not fully audited: {len(errors)}")
        for name, error in errors.items():
            console.print(f"  {name}: {_one_line(error or '', 140)}")
    totals = Table(title="findings by kind (confirmed by re-evaluation)")
    totals.add_column("kind")
    totals.add_column("findings", justify="right")
    totals.add_column("tasks", justify="right")
    totals.add_column("what")
    for kind in FINDING_KINDS:
        tasks = {f.task for f in report.load_findings if f.kind == kind}
        tasks |= {t.task for t in report.tasks if t.found.get(kind)}
        totals.add_row(kind, str(report.found.get(kind, 0)), str(len(tasks)), FINDING_TITLES[kind])
    console.print(totals)
    unconfirmed = sum(t.unconfirmed for t in report.tasks)
    undecided = sum(sum(t.undecided.values()) for t in report.tasks)
    console.print(f"not listed: {unconfirmed} unconfirmed on re-evaluation; {undecided} checks undecided here "
                  f"(never findings); searched inputs {sum(t.searched_inputs for t in report.tasks)}, "
                  f"accepted {sum(t.searched_accepted for t in report.tasks)}; "
                  f"{sum(t.budget_hit is not None for t in report.tasks)} task searches stopped by the budget")
    clocked = [t.task for t in report.tasks if t.clock_dependent]
    if clocked:
        console.print(f"stopped by a clock, not by counting steps (may differ with the machine's load): "
                      f"{len(clocked)} task(s): {', '.join(clocked)}")
    findings: list[Finding] = list(report.load_findings)
    for task in report.tasks:
        findings += task.findings
    order = {kind: i for i, kind in enumerate(FINDING_KINDS)}
    findings.sort(key=lambda f: (order[f.kind], f.task))
    if findings:
        table = Table(title="findings (searched ones: the first few per task and kind)")
        for column in ("task", "kind", "where", "input", "output", "detail"):
            table.add_column(column, overflow="fold")
        for f in findings:
            table.add_row(f.task, f.kind, f.where, _one_line(f.input, 50), _one_line(f.output, 30), _one_line(f.detail, 70))
        console.print(table)
    return buffer.getvalue()
