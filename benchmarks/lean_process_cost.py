#!/usr/bin/env python3
"""Lean process starts: VeriScale's Lean backend versus one process per check.

For every task of a benchmark directory this builds the checks a test suite implies -- the
precondition on each test input and each reject input, the code on each test input, the
postcondition on each expected and each unexpected output -- runs them through the Lean backend,
and reports how many Lean processes were started, against the anchor design that launches a
fresh ``lake lean`` (reloading every import) per check.

Without ``--real`` the REPL is the stand-in of ``tests/fake_repl.py``: it answers instantly and
computes nothing, but the backend drives it exactly as it would drive Lean, so the process starts,
import loads, definition loads and commands printed are the real counts of what the backend does
for these checks. Wall-clock times are then *not* Lean's. With ``--real`` (needs ``veriscale
setup-lean``) the same run uses Lean.

    python benchmarks/lean_process_cost.py ../shared/data/verina
    python benchmarks/lean_process_cost.py ../shared/data/verinaplus --limit 20 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
FAKE_REPL = PROJECT_ROOT / "tests" / "fake_repl.py"


def suite_checks(task: Any) -> tuple[list[Any], int]:
    """The checks of a task's test suite, and how many stored values could not be read."""
    from veriscale.backends.base import Check, CheckKind
    from veriscale.lean.codec import parse_value
    from veriscale.lean.types import parse_structures

    try:
        structs = parse_structures(task.lean_text())
    except ValueError:
        structs = {}
    params = task.signature.parameters
    return_type = task.signature.return_type
    skipped = 0

    def inputs(raw: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return {p.name: parse_value(raw[p.name], p.type, structs) for p in params}
        except (KeyError, ValueError):
            return None

    def output(raw: Any) -> Any:
        return parse_value(raw, return_type, structs)

    checks: list[Any] = []
    for test in task.tests:
        args = inputs(test.input)
        if args is None:
            skipped += 1
            continue
        checks.append(Check(kind=CheckKind.PRECOND, args=args))
        checks.append(Check(kind=CheckKind.CODE, args=args))
        for raw in [test.expected, *test.unexpected]:
            try:
                checks.append(Check(kind=CheckKind.POSTCOND, args=args, output=output(raw)))
            except ValueError:
                skipped += 1
    for reject in task.reject_inputs:
        args = inputs(reject.input)
        if args is None:
            skipped += 1
            continue
        checks.append(Check(kind=CheckKind.PRECOND, args=args))
    return checks, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("benchmark", type=Path, help="a directory of task directories (e.g. ../shared/data/verina)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N tasks (sorted by id)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-commands", type=int, default=2000, help="commands before a process is recycled")
    parser.add_argument("--real", action="store_true", help="use the real Lean REPL instead of the stand-in")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(PROJECT_ROOT))
    from veriscale.backends.lean import LeanBackend, LeanBackendConfig, lean_available
    from veriscale.benchmark import load_benchmark

    loaded = load_benchmark(args.benchmark)
    tasks = sorted(loaded.tasks, key=lambda task: task.id)
    if args.limit is not None:
        tasks = tasks[: args.limit]

    settings: dict[str, Any] = {
        "workers": args.workers,
        "batch_size": args.batch_size,
        "max_commands_per_process": args.max_commands,
    }
    if args.real:
        usable, reason = lean_available()
        if not usable:
            print(f"error: --real needs the Lean backend: {reason}", file=sys.stderr)
            return 2
        mode = "real Lean REPL"
    else:
        settings["repl_command"] = [sys.executable, str(FAKE_REPL)]
        settings["memory_limit_mb"] = None
        mode = "stand-in REPL (tests/fake_repl.py)"

    total_checks = 0
    total_skipped = 0
    started = time.perf_counter()
    with LeanBackend(LeanBackendConfig(**settings)) as backend:
        for task in tasks:
            checks, skipped = suite_checks(task)
            total_skipped += skipped
            total_checks += len(checks)
            backend.run(task, checks)
        stats = backend.stats
    elapsed = time.perf_counter() - started

    anchor_starts = total_checks  # one `lake lean` per check, each reloading the imports
    ratio = anchor_starts / stats.repl_starts if stats.repl_starts else float("inf")
    print(f"benchmark            {args.benchmark} ({len(tasks)} tasks, {len(loaded.failures)} failed to load)")
    print(f"REPL                 {mode}")
    print(f"settings             workers={args.workers} batch_size={args.batch_size} "
          f"max_commands_per_process={args.max_commands}")
    print(f"checks               {total_checks} (stored values not readable, skipped: {total_skipped})")
    print(f"anchor process starts {anchor_starts:>10}  (one per check; each reloads the imports)")
    print(f"our process starts    {stats.repl_starts:>10}  (recycles {stats.recycles}, "
          f"restarts after failure {stats.restarts_after_failure})")
    print(f"our import loads      {stats.header_loads:>10}")
    print(f"our definition loads  {stats.definition_loads:>10}")
    print(f"our REPL commands     {stats.commands:>10}  ({stats.batches} check batches)")
    print(f"ratio                 {ratio:>10.1f}x fewer Lean process starts")
    if args.real:
        print(f"wall clock            {elapsed:.1f} s")
    else:
        print(f"wall clock            {elapsed:.1f} s (stand-in: measures our overhead, not Lean's)")
        print("note: with the stand-in the counts are the real counts of what the backend would do;")
        print("      the answers are not Lean's and are not reported.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
