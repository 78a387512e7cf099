"""Finished phases of ``veriscale power`` on disk: a rerun, or a run beside other suites, does
not compute them again.

A task's work is one pool phase (which items count) and one phase per suite (which counted items
the suite catches). Each phase runs in a fresh engine unit with its own step budget, so its result
is a function of what goes into it alone; the key is a digest of all of that:

* the pool phase: the engine, the code (:func:`code_fingerprint`), the ground-truth
  task, the items, the pool's seed and size, and the step budget;
* a suite's phase: the engine, the code, the ground-truth task, the counted items, the suite's
  copy of the task (its tests, unexpected outputs and reject inputs), and the step budget.

A stored phase is therefore the phase as it would run now, and the table is the same with or
without the cache. Only phases that ended on their own or on their *step* budget are stored; a
phase cut by the wall-clock backstop depends on the machine, and runs again next time.

Entries are small JSON files, ``<root>/<task id>/<kind>-<digest>.json``, written atomically, so
an interrupted run leaves nothing half-written and the next run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from veriscale.stages.power.items import PowerItem
from veriscale.task import Task

__all__ = ["PhaseCache", "code_fingerprint", "pool_key", "suite_key"]

FORMAT = 1
"""Bumped when what a stored phase holds changes."""


PHASE_CODE = (
    "backends", "lean", "generate", "task.py", "typed_task.py", "stages/power/judge.py", "stages/power/pool.py",
)
"""The sources a phase's result depends on (inside the ``veriscale`` package): the engines, the Lean
values, the input generators, the task model, and power's judge and pool. The items are in the
keys themselves, so the rest of the package (the CLI, other stages, how the table is printed) can
change without making stored phases stale."""


@cache
def code_fingerprint() -> str:
    """A digest of the sources in :data:`PHASE_CODE`: a stored phase is only reused by the same code."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for part in PHASE_CODE:
        where = root / part
        for path in sorted(where.rglob("*.py")) if where.is_dir() else [where]:
            digest.update(str(path.relative_to(root)).encode("utf-8") + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _task_text(task: Task) -> list[Any]:
    return [task.id, task.lean_text(), task.signature.model_dump(mode="json")]


def _items(items: Sequence[PowerItem]) -> list[Any]:
    return [[i.id, i.kind, sorted(i.sections.items())] for i in items]


def pool_key(
    engine: str, truth: Task, items: Sequence[PowerItem], *, pool_seed: int, pool_size: int, steps: int | None
) -> str:
    return _digest(FORMAT, "pool", engine, code_fingerprint(), _task_text(truth), _items(items), pool_seed,
                   pool_size, steps)


def suite_key(engine: str, truth: Task, counted: Sequence[PowerItem], suite: Task, *, steps: int | None) -> str:
    rows = {
        "tests": [t.model_dump(mode="json") for t in suite.tests],
        "rejects": [r.model_dump(mode="json") for r in suite.reject_inputs],
        "signature": suite.signature.model_dump(mode="json"),
    }
    return _digest(FORMAT, "suite", engine, code_fingerprint(), _task_text(truth), _items(counted), rows, steps)


class PhaseCache:
    """Stored phases under ``root`` (created on first write)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, task_id: str, kind: str, key: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in task_id)
        return self.root / safe / f"{kind}-{key}.json"

    def get(self, task_id: str, kind: str, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(task_id, kind, key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent, or unreadable: computed again
        return data if isinstance(data, dict) else None

    def put(self, task_id: str, kind: str, key: str, value: dict[str, Any]) -> None:
        path = self._path(task_id, kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
