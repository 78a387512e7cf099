#!/usr/bin/env python3
"""Score a corpus of submissions that carry Lean's verdict, and print how the engine compares.

A corpus is a directory of JSON files, each a list of entries in the format of
``tests/fixtures/elab/corpus`` (``name``, ``class`` -- ``hostile/…``, ``mistake/…`` or
``control/…`` --, ``task``, ``submission`` sections, ``lean``: the verdict per metric, and for a
section Lean rejects its ``lean_error``); the tasks are directories of a suite (``--suite``). Every
entry is scored with the embedded engine the way ``veriscale score`` scores a submission, and
each metric Lean decides is sorted into:

* ``false pass``  -- the engine's lower bound is above Lean's verdict (must never happen);
* ``control fails`` -- Lean passes it, the engine's lower bound is 0;
* ``rejected, positioned`` -- Lean rejects the section and so does the engine (upper bound 0, a
  reason with line and column);
* ``rejected, unknown`` -- Lean rejects it, the engine cannot tell (lower 0, upper 1);
* ``undecided`` -- Lean accepts the section, the engine's bounds are 0 and 1 (it cannot tell);
* ``decided`` -- the engine's lower and upper bound are both Lean's verdict.

It prints one row per class and the totals; the exit code is 1 when there is a false pass or a
failing control. The issue's held-out corpus is run with the same command:

    python benchmarks/elab_corpus.py                                   # the project's own corpus
    python benchmarks/elab_corpus.py --corpus DIR --suite DIR --json out.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "elab"
POSITION = re.compile(r"\bline \d+\b.*\bcol(?:umn)? \d+\b|\b\d+:\d+\b", re.IGNORECASE)
OUTCOMES = ("false pass", "control fails", "rejected, unknown", "undecided", "rejected, positioned", "decided")


def load_corpus(directory: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.json")):
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise SystemExit(f"error: {path}: not a JSON corpus file ({exc})") from exc
        if not isinstance(loaded, list):
            raise SystemExit(f"error: {path}: a corpus file holds a list of entries")
        entries.extend(loaded)
    return entries


def outcome(entry: dict[str, Any], bounds: dict[str, tuple[int, int]], reasons: list[str]) -> str:
    """The worst outcome over the metrics Lean decides for ``entry`` (the first in OUTCOMES)."""
    found = set()
    for metric, verdict in entry["lean"].items():
        lower, upper = bounds.get(metric, (0, 1))
        if lower > verdict:
            found.add("false pass")
        elif entry["class"].startswith("control/") and verdict == 1 and lower != 1:
            found.add("control fails")
        elif "lean_error" in entry:
            positioned = upper == 0 and any(POSITION.search(r) for r in reasons)
            found.add("rejected, positioned" if positioned else "rejected, unknown")
        else:
            found.add("decided" if lower == upper == verdict else "undecided")
    return next(o for o in OUTCOMES if o in found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=FIXTURES / "corpus", help="directory of corpus JSON files")
    parser.add_argument("--suite", type=Path, default=FIXTURES / "suite", help="directory of the entries' tasks")
    parser.add_argument("--json", type=Path, default=None, help="write every entry's outcome here")
    args = parser.parse_args(argv)

    from veriscale.backends.embedded.backend import EmbeddedBackend
    from veriscale.stages.score import Submission
    from veriscale.stages.score.scoring import merge_groups, score_task
    from veriscale.task import TaskLoadError, load_task

    entries = load_corpus(args.corpus)
    backend = EmbeddedBackend()
    tasks: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    for entry in entries:
        task_id = entry["task"]
        if task_id not in tasks:
            try:
                tasks[task_id] = load_task(args.suite / task_id)
            except TaskLoadError as exc:
                print(f"error: {entry['name']}: {exc}", file=sys.stderr)
                tasks[task_id] = None
        task = tasks[task_id]
        if task is None:
            continue
        score = merge_groups(task.id, score_task(task, Submission(task=task.id, **entry["submission"]), backend))
        bounds = {m: (b.lower, b.upper) for m in entry["lean"] if (b := score.bound(m)) is not None}
        rows.append({"name": entry["name"], "class": entry["class"], "lean": entry["lean"],
                     "engine": {m: list(b) for m, b in bounds.items()},
                     "outcome": outcome(entry, bounds, score.reasons), "reasons": score.reasons[:3]})

    by_class: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        by_class[row["class"]][row["outcome"]] += 1
    width = max([len(c) for c in by_class] + [5])
    print(f"{'class':<{width}}  {'entries':>7}  " + "  ".join(f"{o:>20}" for o in OUTCOMES))
    totals: Counter[str] = Counter()
    for cls in sorted(by_class):
        counts = by_class[cls]
        totals.update(counts)
        print(f"{cls:<{width}}  {sum(counts.values()):>7}  " + "  ".join(f"{counts[o]:>20}" for o in OUTCOMES))
    print(f"{'TOTAL':<{width}}  {sum(totals.values()):>7}  " + "  ".join(f"{totals[o]:>20}" for o in OUTCOMES))
    for row in rows:
        if row["outcome"] in ("false pass", "control fails"):
            print(f"  {row['outcome']}: {row['name']} ({row['class']}): engine {row['engine']}, Lean {row['lean']}; "
                  f"{row['reasons'][:1]}")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 1 if totals["false pass"] or totals["control fails"] else 0


if __name__ == "__main__":
    sys.exit(main())
