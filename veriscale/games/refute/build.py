"""``veriscale refute build``: REFUTE items from an expanded suite's kill matrix.

An item is (task, wrong implementation). Its adversary comes from the task's ``kill_matrix.json``
(written by ``veriscale expand``) and must

* pass the original benchmark's tests: on every original test its output is decided and equal to
  the expected output (checked again here by the engine, not read from the matrix), like REFUTE's
  submissions that passed the official tests and were hacked later;
* be exposed by at least one accept input of the suite (a *witness*).

Its difficulty is the share of the suite's accept inputs that expose it (low share = hard).
Witnesses are re-verified by the engine when the item is built: the precondition is decided true,
the reference and the wrong program both produce a value, the two differ, and the ground-truth
postcondition is decided false on the wrong output. An item none of whose witnesses verifies is
dropped and counted (so are adversaries whose code cannot be recovered, and adversaries whose
runs on the original tests are undecided).

Adversary code is not stored in the kill matrix; LLM-free adversaries are regenerated from the
task (templates from the signature, every single-change mutant of the reference, every subtle
mutant, and second-order mutants from their two changes' ids, matched by id).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind
from veriscale.games.common import stored_input
from veriscale.generate.adversaries import Adversary, template_adversaries
from veriscale.generate.adversaries.mutants import Mutation
from veriscale.generate.adversaries.subtle import ORDER_SEPARATOR, combine, split_order, subtle_mutations
from veriscale.lean.printing import same_as_printed
from veriscale.stages.expand.writer import KILL_MATRIX_FILE, SUMMARY_FILE
from veriscale.task import Task, TaskLoadError, load_task
from veriscale.typed_task import TypedTask, TypedTaskError, typed_view

__all__ = [
    "DIFFICULTY_BUCKETS",
    "ITEMS_FILE",
    "BuildSummary",
    "RefuteItem",
    "build_items",
    "build_task_items",
    "difficulty_bucket",
    "recover_adversaries",
]

ITEMS_FILE = "items.jsonl"
SUMMARY_NAME = "build_summary.json"
DEFAULT_WITNESSES = 5
"""Witnesses verified and kept per item (the smallest exposing inputs first)."""

DIFFICULTY_BUCKETS: tuple[tuple[str, float], ...] = (
    ("very-hard", 0.01),
    ("hard", 0.05),
    ("medium", 0.20),
    ("easy", 1.01),
)
"""(name, upper bound of the exposing share) in increasing order."""


def difficulty_bucket(share: float) -> str:
    for name, upper in DIFFICULTY_BUCKETS:
        if share < upper:
            return name
    return DIFFICULTY_BUCKETS[-1][0]


@dataclass
class RefuteItem:
    id: str
    task: str
    adversary: str
    source: str
    kind: str
    """The adversary's kind: a template kind or a mutation family (``arith``, ``relational`` ...)."""
    description: str
    sections: dict[str, str]
    """Replacement section bodies that make the wrong program (normally ``code``/``code_aux``)."""
    difficulty: float
    exposing: int
    accept_inputs: int
    witnesses: list[dict[str, Any]]
    """Hidden: stored inputs on which the engine verified the wrong output."""

    @property
    def bucket(self) -> str:
        return difficulty_bucket(self.difficulty)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "task": self.task,
            "adversary": self.adversary,
            "source": self.source,
            "kind": self.kind,
            "description": self.description,
            "sections": self.sections,
            "difficulty": self.difficulty,
            "bucket": self.bucket,
            "exposing": self.exposing,
            "accept_inputs": self.accept_inputs,
            "witnesses": self.witnesses,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> RefuteItem:
        return cls(
            id=raw["id"],
            task=raw["task"],
            adversary=raw["adversary"],
            source=raw["source"],
            kind=raw["kind"],
            description=raw["description"],
            sections=dict(raw["sections"]),
            difficulty=float(raw["difficulty"]),
            exposing=int(raw["exposing"]),
            accept_inputs=int(raw["accept_inputs"]),
            witnesses=list(raw["witnesses"]),
        )


@dataclass
class BuildSummary:
    tasks_seen: int = 0
    tasks_with_items: int = 0
    items: int = 0
    adversaries: int = 0
    killed_by_original_tests: int = 0
    """Adversaries the original tests already catch (not items: they fail the official tests)."""
    fails_original_tests: int = 0
    """Not caught by the matrix but differing from an expected output when re-run here."""
    never_exposed: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    """Items dropped, by reason (``code not recoverable``, ``original tests undecided``,
    ``no witness verified``)."""
    task_errors: dict[str, str] = field(default_factory=dict)
    by_bucket: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks_seen": self.tasks_seen,
            "tasks_with_items": self.tasks_with_items,
            "items": self.items,
            "adversaries": self.adversaries,
            "killed_by_original_tests": self.killed_by_original_tests,
            "fails_original_tests": self.fails_original_tests,
            "never_exposed": self.never_exposed,
            "dropped": dict(sorted(self.dropped.items())),
            "dropped_total": sum(self.dropped.values()),
            "task_errors": dict(sorted(self.task_errors.items())),
            "by_bucket": dict(sorted(self.by_bucket.items())),
            "by_kind": dict(sorted(self.by_kind.items())),
        }


def _every_mutation(task: Task, wanted: set[str]) -> list[Mutation]:
    """Every single-change and subtle mutant of the task, and the second-order ones in ``wanted``."""
    from veriscale.generate.adversaries import all_mutations

    singles = [*all_mutations(task), *subtle_mutations(task)]
    by_id = {m.id: m for m in singles}
    pairs: list[Mutation] = []
    for adversary_id in wanted:
        if ORDER_SEPARATOR + "mutant:" not in adversary_id:
            continue
        parts = [by_id.get(part) for part in split_order(adversary_id)]
        if len(parts) == 2 and parts[0] is not None and parts[1] is not None:
            pair = combine(parts[0], parts[1])
            if pair is not None and pair.id == adversary_id:
                pairs.append(pair)
    return singles + pairs


def recover_adversaries(task: Task, ids: Sequence[str]) -> dict[str, Adversary]:
    """The adversaries among ``ids`` whose code can be regenerated from the task (templates and
    mutants of the reference; LLM adversaries are not stored and cannot be)."""
    wanted = set(ids)
    found: dict[str, Adversary] = {a.id: a for a in template_adversaries(task) if a.id in wanted}
    if any(i.startswith("mutant:") for i in wanted):
        for mutation in _every_mutation(task, wanted):
            if mutation.id in wanted and mutation.id not in found:
                found[mutation.id] = Adversary(
                    id=mutation.id,
                    source="mutant",
                    description=f"mutant ({mutation.family}): {mutation.description}",
                    sections={mutation.section: mutation.apply(task.section(mutation.section))},
                )
    return found


def adversary_kind(adversary_id: str, source: str, description: str) -> str:
    """``template:<kind>`` for templates, ``mutant:<family>`` for mutants, else the source."""
    if source == "template":
        return "template:" + adversary_id.split(":")[1]
    if source == "mutant" and description.startswith("mutant ("):
        return "mutant:" + description[len("mutant (") :].split(")", 1)[0]
    return source


def _original_count(directory: Path, task: Task) -> int:
    summary_path = directory / SUMMARY_FILE
    if summary_path.is_file():
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        if isinstance(summary.get("tests_original"), int):
            return int(summary["tests_original"])
    raise ValueError(f"{summary_path}: no tests_original (not a suite written by veriscale expand)")


def _input_size(view: TypedTask, position: int) -> int:
    key = view.tests[position].key
    return len(key) if key is not None else 1 << 30


@dataclass
class _Witnessing:
    """Engine answers shared by every adversary of a task: precondition and reference output per input."""

    precond: dict[int, Answer]
    reference: dict[int, Answer]


def _verify_witnesses(
    task: Task,
    view: TypedTask,
    backend: Backend,
    adversary: Adversary,
    positions: Sequence[int],
    shared: _Witnessing,
) -> list[int]:
    """The positions on which the wrong output is verified wrong by the engine."""
    wrong_task = task.with_sections(**adversary.sections)
    usable = [
        p for p in positions if shared.precond[p].status == "true" and shared.reference[p].status == "value"
    ]
    if not usable:
        return []
    outputs = backend.run(
        wrong_task, [Check(kind=CheckKind.CODE, args=view.tests[p].args or {}) for p in usable]
    )
    differing = [
        (p, answer.value)
        for p, answer in zip(usable, outputs, strict=True)
        if answer.status == "value" and not same_as_printed(answer.value, shared.reference[p].value)
    ]
    if not differing:
        return []
    verdicts = backend.run(
        task,
        [
            Check(kind=CheckKind.POSTCOND, args=view.tests[p].args or {}, output=value)
            for p, value in differing
        ],
    )
    return [p for (p, _), verdict in zip(differing, verdicts, strict=True) if verdict.status == "false"]


def _passes_original_tests(
    task: Task, view: TypedTask, backend: Backend, adversary: Adversary, originals: Sequence[int]
) -> bool | None:
    """True when the wrong program reproduces every original expected output, False when one
    differs, None when some run is undecided."""
    rows = [p for p in originals if view.tests[p].args is not None and view.tests[p].expected_ok]
    if len(rows) != len(originals):
        return None
    answers = backend.run(
        task.with_sections(**adversary.sections),
        [Check(kind=CheckKind.CODE, args=view.tests[p].args or {}) for p in rows],
    )
    undecided = False
    for p, answer in zip(rows, answers, strict=True):
        if answer.status != "value":
            undecided = True
        elif not same_as_printed(answer.value, view.tests[p].expected):
            return False
    return None if undecided else True


def build_task_items(
    directory: Path, backend: Backend, summary: BuildSummary, *, witnesses: int = DEFAULT_WITNESSES
) -> list[RefuteItem]:
    """The verified items of one expanded task directory (counts go to ``summary``)."""
    task = load_task(directory)
    view = typed_view(task)
    matrix = json.loads((directory / KILL_MATRIX_FILE).read_text(encoding="utf-8"))
    originals = list(range(_original_count(directory, task)))
    rows = [row for row in matrix["tests"] if 0 <= int(row["test"]) < len(view.tests)]
    accept_count = len(rows)
    exposing: dict[str, list[int]] = {}
    for row in rows:
        for adversary_id in row["killed_by"]:
            exposing.setdefault(adversary_id, []).append(int(row["test"]))
    declared = matrix["adversaries"]
    summary.adversaries += len(declared)
    code = recover_adversaries(task, [a["id"] for a in declared])
    backend.start_unit()
    candidates: list[tuple[dict[str, Any], Adversary, list[int]]] = []
    for entry in declared:
        positions = exposing.get(entry["id"], [])
        if any(p in originals for p in positions):
            summary.killed_by_original_tests += 1
            continue
        if not positions:
            summary.never_exposed += 1
            continue
        adversary = code.get(entry["id"])
        if adversary is None:
            summary.dropped["code not recoverable"] += 1
            continue
        candidates.append((entry, adversary, sorted(positions, key=lambda p: (_input_size(view, p), p))))
    if not candidates:
        return []
    chosen_inputs = sorted(
        {p for _, _, ps in candidates for p in ps[:witnesses] if view.tests[p].args is not None}
    )
    precond = backend.run(
        task, [Check(kind=CheckKind.PRECOND, args=view.tests[p].args or {}) for p in chosen_inputs]
    )
    reference = backend.run(
        task, [Check(kind=CheckKind.CODE, args=view.tests[p].args or {}) for p in chosen_inputs]
    )
    shared = _Witnessing(
        dict(zip(chosen_inputs, precond, strict=True)), dict(zip(chosen_inputs, reference, strict=True))
    )
    items: list[RefuteItem] = []
    for _entry, adversary, positions in candidates:
        passes = _passes_original_tests(task, view, backend, adversary, originals)
        if passes is None:
            summary.dropped["original tests undecided"] += 1
            continue
        if not passes:
            summary.fails_original_tests += 1
            continue
        tried = [p for p in positions[:witnesses] if p in shared.precond]
        verified = _verify_witnesses(task, view, backend, adversary, tried, shared)
        if not verified:
            summary.dropped["no witness verified"] += 1
            continue
        share = len(positions) / accept_count if accept_count else 0.0
        item = RefuteItem(
            id=f"{task.id}::{adversary.id}",
            task=task.id,
            adversary=adversary.id,
            source=adversary.source,
            kind=adversary_kind(adversary.id, adversary.source, adversary.description),
            description=adversary.description,
            sections=dict(adversary.sections),
            difficulty=round(share, 6),
            exposing=len(positions),
            accept_inputs=accept_count,
            witnesses=[stored_input(view.tests[p].args or {}, view) for p in verified],
        )
        items.append(item)
        summary.by_bucket[item.bucket] += 1
        summary.by_kind[item.kind] += 1
    return items


def suite_task_dirs(suite: Path) -> list[Path]:
    """Task directories of an expanded suite that carry a kill matrix, sorted by name."""
    return sorted(p for p in suite.iterdir() if p.is_dir() and (p / KILL_MATRIX_FILE).is_file())


def build_items(
    suite: Path,
    out: Path,
    backend: Backend,
    *,
    witnesses: int = DEFAULT_WITNESSES,
    tasks: Sequence[str] | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> BuildSummary:
    """Build every task's items into ``out/items.jsonl`` (and ``out/build_summary.json``).

    Tasks are processed in name order and written as they finish; the output is deterministic
    for a given suite and engine."""
    summary = BuildSummary()
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for directory in suite_task_dirs(suite):
        if tasks and directory.name not in tasks:
            continue
        summary.tasks_seen += 1
        try:
            items = build_task_items(directory, backend, summary, witnesses=witnesses)
        except (TaskLoadError, TypedTaskError, ValueError, KeyError, OSError) as exc:
            summary.task_errors[directory.name] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            items = []
        if items:
            summary.tasks_with_items += 1
        summary.items += len(items)
        lines.extend(json.dumps(item.to_json(), ensure_ascii=False, sort_keys=True) for item in items)
        if progress is not None:
            progress(directory.name, len(items))
    (out / ITEMS_FILE).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (out / SUMMARY_NAME).write_text(json.dumps(summary.to_json(), indent=2) + "\n", encoding="utf-8")
    (out / "build.json").write_text(
        json.dumps({"suite": str(suite.resolve())}, indent=2) + "\n", encoding="utf-8"
    )
    return summary


def load_items(path: Path) -> list[RefuteItem]:
    """Items from a build directory (or an ``items.jsonl`` file)."""
    from veriscale.games.common import read_jsonl

    file = path / ITEMS_FILE if path.is_dir() else path
    return [RefuteItem.from_json(raw) for raw in read_jsonl(file)]
