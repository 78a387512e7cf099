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
failing control, else 2 when an entry is not one (one line each on stderr, naming its file and
position; the other entries are still scored). The issue's held-out corpus is run with the same
command:

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
if str(PROJECT_ROOT) not in sys.path:  # this checkout's engine, not another installed copy
    sys.path.insert(0, str(PROJECT_ROOT))
FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "elab"
POSITION = re.compile(r"\bline \d+\b.*\bcol(?:umn)? \d+\b|\b\d+:\d+\b", re.IGNORECASE)
OUTCOMES = ("false pass", "control fails", "rejected, unknown", "undecided", "rejected, positioned", "decided")


def _metrics() -> frozenset[str]:
    from veriscale.stages.score.models import Bound, TaskScore

    return frozenset(name for name, field in TaskScore.model_fields.items() if field.annotation == (Bound | None))


METRICS = _metrics()
"""The metrics a score has (``code``, ``precond_sound``, ...): the keys an entry's ``lean`` may use."""


def entry_problem(entry: Any) -> str | None:
    """Why ``entry`` is not a corpus entry (``None``: it is one)."""
    if not isinstance(entry, dict):
        return "an entry is a JSON object"
    for key in ("name", "class", "task"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            return f"`{key}` must be a non-empty string"
    if not entry["class"].startswith(("hostile/", "mistake/", "control/")):
        return "`class` must start with hostile/, mistake/ or control/"
    submission = entry.get("submission")
    if not isinstance(submission, dict) or not all(isinstance(v, str) for v in submission.values()):
        return "`submission` must map section names to Lean text"
    lean = entry.get("lean")
    if not isinstance(lean, dict) or not lean or not all(v in (0, 1) and isinstance(v, int) for v in lean.values()):
        return "`lean` must map metric names to Lean's verdict, 0 or 1"
    unknown = sorted(set(lean) - METRICS)
    if unknown:
        return f"`lean` names no metric {', '.join(unknown)} (metrics: {', '.join(sorted(METRICS))})"
    return None


def load_corpus(directory: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The entries of every ``*.json`` file of ``directory``, and one line per entry that is not
    one (named by file and position; the others are still scored)."""
    entries: list[dict[str, Any]] = []
    problems: list[str] = []
    if not directory.is_dir():
        raise SystemExit(f"error: {directory}: not a directory of corpus files")
    for path in sorted(directory.glob("*.json")):
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"{path}: not a JSON corpus file ({exc})")
            continue
        if not isinstance(loaded, list):
            problems.append(f"{path}: a corpus file holds a list of entries")
            continue
        for position, entry in enumerate(loaded):
            problem = entry_problem(entry)
            if problem is None:
                entries.append(entry)
            else:
                name = entry.get("name") if isinstance(entry, dict) else None
                problems.append(f"{path}: entry {position}" + (f" ({name})" if isinstance(name, str) else "")
                                + f": {problem}")
    return entries, problems


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

    from pydantic import ValidationError

    from veriscale.backends.embedded.backend import EmbeddedBackend
    from veriscale.stages.score import Submission
    from veriscale.stages.score.scoring import merge_groups, score_task
    from veriscale.task import TaskLoadError, load_task

    entries, problems = load_corpus(args.corpus)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
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
        try:
            submission = Submission(task=task.id, **entry["submission"])
        except ValidationError as exc:
            problems.append(f"{entry['name']}: not a submission: {exc.errors()[0]['msg']}")
            print(f"error: {problems[-1]}", file=sys.stderr)
            continue
        score = merge_groups(task.id, score_task(task, submission, backend))
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
    if totals["false pass"] or totals["control fails"]:
        return 1
    return 2 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
