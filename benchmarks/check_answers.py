#!/usr/bin/env python3
"""Every answer of the embedded engine on a suite's validation checks, and two such runs compared.

``dump`` runs the checks ``veriscale validate`` builds for every task (precondition on tests and
rejects, code, postcondition on expected and unexpected outputs) through the embedded engine with
its default budgets and writes one line per check: task, position, kind, status, value (its Python
text), reason and steps. ``compare`` reads two dumps of the same suite and prints, per kind,
how many answers stayed decided and the same, changed, became decided, or were lost; every
decided answer that changed or was lost is listed. Use it to show that an engine change keeps
every answer that was decided before (run ``dump`` on the old and the new code).

    python benchmarks/check_answers.py dump ../shared/data/verinaplus /tmp/after.jsonl --workers 2
    python benchmarks/check_answers.py compare /tmp/before.jsonl /tmp/after.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]

KIND_NAMES = {"precond": "pre", "code": "code", "postcond": "post"}


def _dump_task(path: str) -> list[dict[str, Any]]:
    from veriscale.backends.base import Answer, Backend, Check
    from veriscale.backends.embedded.backend import EmbeddedBackend
    from veriscale.stages.validate import validate_task
    from veriscale.task import load_task

    class Recorder(Backend):
        """The embedded engine, keeping every batch it answered."""

        name = "embedded"

        def __init__(self) -> None:
            self.inner = EmbeddedBackend()
            self.batches: list[tuple[Sequence[Check], list[Answer]]] = []

        def start_unit(self) -> None:
            self.inner.start_unit()

        def diagnose(self, task: Any) -> Any:
            return None

        def run(self, task: Any, checks: Sequence[Check]) -> list[Answer]:
            answers = self.inner.run(task, checks)
            self.batches.append((checks, answers))
            return answers

    try:
        task = load_task(path)
    except Exception as exc:  # noqa: BLE001 - a task that does not load is reported, not fatal
        return [{"task": Path(path).name, "error": f"{type(exc).__name__}: {exc}"}]
    recorder = Recorder()
    validate_task(task, recorder)
    rows = []
    index = 0
    for checks, answers in recorder.batches:
        for check, answer in zip(checks, answers, strict=True):
            # the Python text tells Nat from Int, List from Array (what Lean prints may not)
            value = repr(answer.value) if answer.status == "value" else None
            rows.append({
                "task": task.id, "i": index, "kind": KIND_NAMES.get(check.kind.value, check.kind.value),
                "status": answer.status, "value": value,
                "reason": answer.reason.value if answer.reason is not None else None,
                "steps": answer.steps,
            })
            index += 1
    return rows


def dump(suite: Path, out: Path, workers: int) -> int:
    from concurrent.futures import ProcessPoolExecutor

    paths = sorted(str(p) for p in suite.iterdir() if (p / "task.json").is_file())
    started = time.perf_counter()
    with out.open("w") as fh, ProcessPoolExecutor(max_workers=workers) as pool:
        for rows in pool.map(_dump_task, paths):
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    import veriscale

    print(f"{len(paths)} tasks in {time.perf_counter() - started:.1f} s wall -> {out} "
          f"(engine from {Path(veriscale.__file__).parent})")
    return 0


def _load(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    rows = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if "error" not in row:
            rows[(row["task"], row["i"])] = row
    return rows


def compare(before_path: Path, after_path: Path) -> int:
    before, after = _load(before_path), _load(after_path)
    if before.keys() != after.keys():
        print(f"the dumps hold different checks ({len(before)} against {len(after)})")
        return 1
    tally: dict[str, Counter[str]] = {}
    steps: dict[str, list[int]] = {}
    bad = []
    for key, old in before.items():
        new = after[key]
        kind = old["kind"]
        counts = tally.setdefault(kind, Counter())
        old_decided, new_decided = old["status"] != "unknown", new["status"] != "unknown"
        if old_decided and new_decided:
            same = old["status"] == new["status"] and old["value"] == new["value"]
            counts["same" if same else "CHANGED"] += 1
            if not same:
                bad.append((key, old, new))
            s = steps.setdefault(kind, [0, 0])
            s[0] += old["steps"] or 0
            s[1] += new["steps"] or 0
        elif old_decided:
            counts["LOST"] += 1
            bad.append((key, old, new))
        elif new_decided:
            counts["newly decided"] += 1
        else:
            counts["unknown both"] += 1
    for kind, counts in sorted(tally.items()):
        s = steps.get(kind, [0, 0])
        print(f"{kind:5} " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
              + f"; steps of the checks decided both times: {s[0]} -> {s[1]}")
    for key, old, new in bad[:50]:
        print(f"  {key[0]}[{key[1]}] {old['kind']}: {old['status']} {old['value']} -> "
              f"{new['status']} {new['value']} {new['reason'] or ''}")
    print("OK: every decided answer kept" if not bad else f"{len(bad)} decided answers changed or lost")
    return 0 if not bad else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="answer every validation check of a suite")
    d.add_argument("suite", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--workers", type=int, default=1)
    c = sub.add_parser("compare", help="compare two dumps")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(PROJECT_ROOT))
    if args.command == "dump":
        if not args.suite.is_dir():
            print(f"error: {args.suite}: not a directory", file=sys.stderr)
            return 2
        return dump(args.suite, args.out, args.workers)
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
