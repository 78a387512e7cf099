#!/usr/bin/env python3
"""Score the ground truth of a suite (VerinaPlus by default) as if it were a model's submission.

Builds a submission from every task's own sections (code, precond, postcond and their aux
sections; ``--with-proof`` adds the proof sections), scores it with ``veriscale.stages.score`` and
prints the wall-clock seconds, the checks answered, checks per second, the load average, the
slowest tasks and the totals. Every metric of the ground truth should be 1/1 except where the
engine cannot decide (unknown), a check runs out of time, or the published data is defective
(unexpected outputs that the ground-truth postcondition accepts, say); the imperfect tasks are
listed with their first reason.

    python benchmarks/score_verinaplus.py                       # ../shared/data/verinaplus
    python benchmarks/score_verinaplus.py /path/to/suite --workers 2 --json /tmp/score.json
    python benchmarks/score_verinaplus.py --limit 20            # a quick sample
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _default_data() -> Path:
    return Path(os.environ.get("VERISCALE_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "verinaplus"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", nargs="?", type=Path, default=_default_data())
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--backend", default="embedded")
    parser.add_argument("--with-proof", action="store_true", help="also submit the proof sections")
    parser.add_argument("--limit", type=int, default=None, help="only the first N tasks (by name)")
    parser.add_argument("--json", type=Path, default=None, help="write the score report here")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(PROJECT_ROOT))
    from veriscale.benchmark import load_benchmark
    from veriscale.stages.score import (
        SUBMITTABLE_SECTIONS,
        format_report,
        ground_truth_submission,
        score_suite,
    )
    from veriscale.stages.score.submission import load_submissions, write_submissions

    if not args.suite.is_dir():
        print(f"error: {args.suite}: not a directory", file=sys.stderr)
        return 2
    import resource

    def cpu_seconds() -> float:
        usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
        return sum(u.ru_utime + u.ru_stime for u in usage)

    load_before = os.getloadavg()
    cpu_before = cpu_seconds()
    loaded = load_benchmark(args.suite)
    tasks = sorted(loaded.tasks, key=lambda t: t.id)[: args.limit]
    sections = [s for s in SUBMITTABLE_SECTIONS if args.with_proof or not s.startswith("proof")]
    with tempfile.TemporaryDirectory(prefix="veriscale-score-") as tmp:
        # Through a file, like a real submission: the JSONL round trip is part of what is measured.
        path = Path(tmp) / "ground_truth.jsonl"
        write_submissions(path, (ground_truth_submission(t, sections) for t in tasks))
        submissions, errors = load_submissions(path)
    if errors:
        for error in errors:
            print(f"submission error: {error}", file=sys.stderr)
        return 1
    report = score_suite(args.suite, submissions, backend=args.backend, workers=args.workers,
                         progress=not args.no_progress)
    load_after = os.getloadavg()
    # Worker processes are reaped when the pool shuts down, so their CPU time is counted here.
    cpu = cpu_seconds() - cpu_before

    print(format_report(report))
    print()
    slowest = sorted(report.tasks, key=lambda s: -s.seconds)[:10]
    print("slowest tasks (seconds in a worker, checks): "
          + ", ".join(f"{s.task} {s.seconds:.1f} s {s.checks}" for s in slowest))
    print(f"tasks: {len(report.tasks)} scored, {len(loaded.failures)} not loadable from the suite")
    print(f"seconds: {report.seconds:.1f}")
    print(f"checks: {report.checks}")
    print(f"checks/s: {report.checks_per_second:.0f}")
    cores = os.cpu_count() or 1
    print(f"cpu seconds (this process and its workers): {cpu:.1f}; "
          f"on {cores} otherwise idle cores that is at least {cpu / cores:.1f} s of wall-clock time")
    print(f"skipped tests (unreadable or defective stored values): {report.skipped_checks}")
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}; cores: {os.cpu_count()}")
    for metric, total in report.totals.items():
        print(f"total {metric}: lower {total.lower}/{total.tasks} ({total.lower_rate:.3f}), "
              f"upper {total.upper}/{total.tasks} ({total.upper_rate:.3f})")
    print(f"within 3 minutes: {'yes' if report.seconds <= 180 else 'no'}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
