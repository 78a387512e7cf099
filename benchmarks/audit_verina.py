#!/usr/bin/env python3
"""``veriscale audit`` of a whole benchmark (Verina by default): figures, and the record kept in
``benchmarks/results/``.

Audits every task (default options, the embedded engine) on the shared executor and prints the
wall clock, the tasks with a concrete counterexample to ``spec_satisfied``, the confirmed findings
per kind, the tasks whose audit did not complete and the slowest tasks. With ``--json`` it writes
the audit's record (``veriscale.stages.audit.record``: task ids, digests, counts, and the counterexamples
-- our generated inputs and the engine's outputs, stored rows by index only), which
``tests/stages/audit/test_audit_data.py`` re-evaluates and the README's count comes from. ``--report`` also
writes the full audit report (``veriscale audit --json``'s document: it quotes the benchmark's
data, so keep it out of the project). ``--from-report`` makes the record from such a report
instead of auditing again.

    python benchmarks/audit_verina.py ../shared/data/verina --json benchmarks/results/audit_verina.json
    python benchmarks/audit_verina.py --workers 2 --tasks verina_basic_1,verina_advanced_5
    python benchmarks/audit_verina.py ../shared/data/verina --from-report /tmp/audit.json --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _default_data() -> Path:
    return Path(os.environ.get("VERISCALE_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "verina"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="?", type=Path, default=_default_data())
    parser.add_argument("--json", type=Path, default=None, help="write the audit's record here")
    parser.add_argument("--report", type=Path, default=None, help="also write the full audit report here")
    parser.add_argument("--from-report", type=Path, default=None,
                        help="make the record from this `veriscale audit --json` report instead of auditing")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--executor", default="local", choices=("local", "ray"))
    parser.add_argument("--address", default=None, help="with --executor ray: the cluster to join")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--tasks", default=None, help="only these tasks (comma-separated ids)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(PROJECT_ROOT))
    from veriscale.parallel import ExecutorConfig, make_executor, progress_bar
    from veriscale.stages.audit import AuditOptions, BenchmarkAudit, audit_benchmark
    from veriscale.stages.audit.record import audit_record

    if not args.data.is_dir():
        print(f"error: {args.data}: not a directory", file=sys.stderr)
        return 2
    options = AuditOptions(seed=args.seed)
    if args.from_report is not None:
        report = BenchmarkAudit.model_validate_json(args.from_report.read_text())
        if report.seed != options.seed:
            print(f"error: {args.from_report}: seed {report.seed}, expected {options.seed}", file=sys.stderr)
            return 2
    else:
        executor = make_executor(ExecutorConfig(kind=args.executor, workers=args.workers, address=args.address))
        task_ids = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
        report = audit_benchmark(args.data, options=options, task_ids=task_ids, executor=executor,
                                 progress=None if args.no_progress else progress_bar("audit"))
        if args.report is not None:
            args.report.write_text(json.dumps(report.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n")

    broken = report.tasks_with_counterexample
    print(f"audit of {args.data.name}: {report.tasks_total} tasks, {report.seconds:.0f} s wall clock "
          f"(sum of task seconds {sum(t.seconds for t in report.tasks):.0f})")
    print(f"tasks with a concrete counterexample to spec_satisfied: {len(broken)} of {report.tasks_total}")
    print(f"  {', '.join(broken) or '-'}")
    print(f"tasks with findings: {report.tasks_with_findings}; confirmed findings by kind:")
    for kind, count in report.found.items():
        tasks = sum(1 for t in report.tasks if t.found.get(kind))
        print(f"  {kind:<26}{count:>7} in {tasks} task(s)")
    print(f"unconfirmed on re-evaluation: {sum(t.unconfirmed for t in report.tasks)}; "
          f"searches stopped by a budget: {sum(t.budget_hit is not None for t in report.tasks)}")
    if report.tasks_with_errors:
        print(f"tasks not fully audited: {', '.join(report.tasks_with_errors)}")
    slowest = sorted(report.tasks, key=lambda t: -t.seconds)[:8]
    print("slowest: " + ", ".join(f"{t.task} {t.seconds:.0f} s" for t in slowest))
    if args.json is not None:
        record = audit_record(report, args.data.name, options)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
