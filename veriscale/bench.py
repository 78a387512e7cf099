"""Benchmarks printed as numbers (never asserted as timings in unit tests)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from veriscale.benchmark import load_benchmark
from veriscale.stages.score import NoTaskSelected
from veriscale.typed_task import TypedTaskError, typed_view


def bench_load(
    path: Path, *, echo: Callable[[str], None] = print, tasks: Sequence[str] | None = None
) -> dict[str, float | int]:
    """Load a benchmark, parse every stored value at its type, find duplicate inputs; print timings.
    With ``tasks`` only those tasks are counted and parsed (loading reads the whole benchmark)."""
    t0 = time.perf_counter()
    loaded = load_benchmark(path)
    if tasks:
        wanted = set(tasks)
        loaded = replace(loaded, tasks=[t for t in loaded.tasks if t.id in wanted],
                         failures=[f for f in loaded.failures if f.task in wanted])
        if not loaded.tasks and not loaded.failures:
            raise NoTaskSelected(f"none of the task ids {', '.join(sorted(wanted))} is a task of {path}")
    t1 = time.perf_counter()

    values = 0
    failures: Counter[str] = Counter()
    duplicate_rows = 0
    for task in loaded.tasks:
        try:
            view = typed_view(task)
        except TypedTaskError as exc:
            failures[f"signature: {exc.reason}"] += 1
            continue
        values += view.value_count
        for problem in view.problems:
            failures[problem.kind] += 1
        duplicate_rows += view.duplicate_test_rows
    t2 = time.perf_counter()

    stats: dict[str, float | int] = {
        "tasks_loaded": len(loaded.tasks),
        "tasks_failed": len(loaded.failures),
        "values_parsed": values,
        "values_failed": sum(failures.values()),
        "duplicate_test_rows": duplicate_rows,
        "load_seconds": round(t1 - t0, 3),
        "parse_seconds": round(t2 - t1, 3),
        "total_seconds": round(t2 - t0, 3),
    }
    echo(f"benchmark: {path}")
    for key, value in stats.items():
        echo(f"  {key:<22} {value}")
    for error in loaded.failures:
        echo(f"  failed task: {error}")
    for kind, count in sorted(failures.items()):
        echo(f"  value problem: {kind}: {count}")
    return stats
