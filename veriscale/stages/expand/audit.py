"""Audit of a suite directory written by ``expand``: the invariants it must keep.

* no two rows of a task (tests and reject inputs together) have the same canonical input;
* every stored value parses at its declared type (nothing truncated, nothing unreadable);
* ``kill_matrix.json`` names only tests that exist, with their canonical keys, and only
  adversaries it lists.

Used by the tests and by ``benchmarks/expand_verina.py``. Whether unexpected outputs are really
wrong needs a backend; see :func:`recheck_unexpected`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from veriscale.backends.base import Backend, Check, CheckKind
from veriscale.benchmark import load_benchmark
from veriscale.stages.expand.writer import KILL_MATRIX_FILE
from veriscale.task import Task
from veriscale.typed_task import typed_view

__all__ = ["SuiteAudit", "UnexpectedRecheck", "audit_suite", "recheck_unexpected"]


class SuiteAudit(BaseModel):
    tasks: int = 0
    tests: int = 0
    unexpected: int = 0
    rejects: int = 0
    duplicate_inputs: int = 0
    """Rows whose canonical input equals an earlier row's (tests and reject inputs together)."""
    value_problems: dict[str, int] = Field(default_factory=dict)
    """Stored values that do not parse, by kind (``truncated``, ``unparseable``)."""
    kill_matrix_errors: list[str] = Field(default_factory=list)
    load_failures: list[str] = Field(default_factory=list)

    @property
    def checks(self) -> int:
        return self.tests + self.unexpected + self.rejects


def audit_task(task: Task, directory: Path, audit: SuiteAudit) -> None:
    view = typed_view(task)
    audit.tasks += 1
    audit.tests += len(task.tests)
    audit.unexpected += sum(len(t.unexpected) for t in task.tests)
    audit.rejects += len(task.reject_inputs)
    problems = Counter(p.kind for p in view.problems)
    for kind, n in problems.items():
        audit.value_problems[kind] = audit.value_problems.get(kind, 0) + n
    seen: set[str] = set()
    for key in [t.key for t in view.tests] + [r.key for r in view.rejects]:
        if key is None:
            continue
        if key in seen:
            audit.duplicate_inputs += 1
        seen.add(key)
    path = directory / KILL_MATRIX_FILE
    if not path.is_file():
        audit.kill_matrix_errors.append(f"{task.id}: no {KILL_MATRIX_FILE}")
        return
    document = json.loads(path.read_text(encoding="utf-8"))
    ids = [a["id"] for a in document.get("adversaries", [])]
    if len(set(ids)) != len(ids):
        audit.kill_matrix_errors.append(f"{task.id}: duplicate adversary ids")
    known = set(ids)
    for row in document.get("tests", []):
        index = row.get("test")
        if not isinstance(index, int) or not 0 <= index < len(view.tests):
            audit.kill_matrix_errors.append(f"{task.id}: test {index!r} does not exist")
            continue
        if view.tests[index].key != row.get("key"):
            audit.kill_matrix_errors.append(f"{task.id}: test {index} has another key")
        unknown = [a for a in row.get("killed_by", []) if a not in known]
        if unknown:
            audit.kill_matrix_errors.append(f"{task.id}: test {index} names unlisted adversaries {unknown[:3]}")


def audit_suite(suite_dir: str | Path) -> SuiteAudit:
    root = Path(suite_dir)
    loaded = load_benchmark(root)
    audit = SuiteAudit(load_failures=[str(e) for e in loaded.failures])
    for task in loaded.tasks:
        audit_task(task, root / task.id, audit)
    return audit


class UnexpectedRecheck(BaseModel):
    checked: int = 0
    rejected: int = 0
    """Decided false by the ground-truth postcondition."""
    accepted: list[str] = Field(default_factory=list)
    """``task: test.json[i].unexpected[j]`` of those decided true."""
    unknown: list[str] = Field(default_factory=list)


def recheck_unexpected(task: Task, backend: Backend, *, skip_first: dict[int, int] | None = None) -> UnexpectedRecheck:
    """Ask the ground-truth postcondition about every stored unexpected output of ``task``.

    ``skip_first`` maps a test position to how many of its leading unexpected outputs to skip
    (the original benchmark's, which are kept whatever the ground truth says).
    """
    view = typed_view(task)
    result = UnexpectedRecheck()
    checks: list[Check] = []
    where: list[str] = []
    for test in view.tests:
        if test.args is None:
            continue
        skip = (skip_first or {}).get(test.index, 0)
        for j, value in test.unexpected:
            if j < skip:
                continue
            checks.append(Check(kind=CheckKind.POSTCOND, args=test.args, output=value))
            where.append(f"{task.id}: test.json[{test.index}].unexpected[{j}]")
    for label, answer in zip(where, backend.run(task, checks) if checks else [], strict=True):
        result.checked += 1
        if answer.status == "false":
            result.rejected += 1
        elif answer.status == "true":
            result.accepted.append(label)
        else:
            result.unknown.append(label)
    return result
