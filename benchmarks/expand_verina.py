#!/usr/bin/env python3
"""LLM-free ``expand`` of a whole benchmark (Verina by default): time, counts, growth, invariants.

Runs :func:`veriscale.expand.expand_benchmark` with the embedded backend and no LLM, then audits
the written suite (``veriscale.expand.audit``) and prints:

* wall-clock time, tasks expanded / failed / that hit the per-task deadline, slowest tasks;
* candidate inputs by source (generated, duplicates, accept, reject, unknown, dropped);
* adversaries by source (generated, unsafe, all-unknown, equivalent, kept, killed);
* checks before and after (tests + unexpected outputs + reject inputs) and the growth factor;
* duplicate inputs and truncated or unreadable values in the written suite (both must be 0);
* how many of the original unexpected outputs the ground truth does not reject.

    python benchmarks/expand_verina.py                       # ../shared/data/verina, 2 workers
    python benchmarks/expand_verina.py --out /tmp/verina-plus --deadline 90 --jobs 2
    python benchmarks/expand_verina.py --limit 10            # a quick sample

Rerunning with the same ``--out`` resumes (finished tasks are skipped); ``--fresh`` starts over.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _default_data() -> Path:
    return PROJECT_ROOT.parent / "shared" / "data" / "verina"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="?", type=Path, default=_default_data())
    parser.add_argument("--out", type=Path, default=None, help="suite directory (default: a temporary one)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--deadline", type=float, default=90.0, help="per-task deadline in seconds")
    parser.add_argument("--limit", type=int, default=None, help="only the first N tasks (by name)")
    parser.add_argument("--fresh", action="store_true", help="delete --out first")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(PROJECT_ROOT))
    from veriscale.expand import ExpandOptions, expand_benchmark
    from veriscale.expand.audit import audit_suite
    from veriscale.expand.report import format_summary
    from veriscale.task import load_benchmark

    if not args.data.is_dir():
        print(f"no benchmark at {args.data}", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="veriscale-expand-"))
    if args.fresh and out.exists():
        shutil.rmtree(out)
    task_ids = None
    if args.limit is not None:
        task_ids = sorted(t.id for t in load_benchmark(args.data).tasks)[: args.limit]

    started = time.perf_counter()
    summary = expand_benchmark(
        args.data, out, seed=args.seed, backend_name="embedded", llm=None, jobs=args.jobs,
        progress=not args.no_progress, options=ExpandOptions(task_deadline_s=args.deadline), task_ids=task_ids,
    )
    seconds = time.perf_counter() - started
    audit = audit_suite(out)

    print(f"\nsuite: {out}  (wall clock of this invocation: {seconds:.1f} s)")
    print(format_summary(summary, slowest=8))
    print(f"\naudit of the written suite: {audit.tasks} tasks, {audit.checks} checks, "
          f"duplicate inputs {audit.duplicate_inputs}, value problems {audit.value_problems or 0}, "
          f"kill-matrix errors {len(audit.kill_matrix_errors)}, load failures {len(audit.load_failures)}")
    for error in audit.kill_matrix_errors[:10]:
        print(f"  {error}")
    ok = audit.duplicate_inputs == 0 and not audit.value_problems and not audit.kill_matrix_errors
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
