"""``veriscale refute build``: REFUTE items from an expanded suite's kill matrix.

An item is (task, wrong implementation). Its adversary comes from the task's ``kill_matrix.json``
(written by ``veriscale expand``) and must

* pass the original benchmark's tests: on every original test its output is decided and equal to
  the expected output (checked again here by the engine, not read from the matrix), like REFUTE's
  submissions that passed the official tests and were hacked later;
* be exposed by at least one accept input of the suite (a *witness*).

Witnesses are re-verified by the engine when the item is built: the precondition is decided true,
the reference and the wrong program both produce a value, the two differ, and the ground-truth
postcondition is decided false on the wrong output. An item none of whose witnesses verifies is
dropped and counted (so are adversaries whose code cannot be recovered, and adversaries whose
runs on the original tests are undecided).

Its difficulty comes from two measured figures (:mod:`.difficulty` defines the buckets): the share
of the suite's accept inputs that expose it, and the rate at which a pool of blind random draws
(the random baseline's sampler on a stream of its own, ``pool_size`` draws per task) exposes it;
the bucket is the easier of the two routes.

Adversary code is not stored in the kill matrix; LLM-free adversaries are regenerated from the
task (templates from the signature, every single-change mutant of the reference, every subtle
mutant, and second-order mutants from their two changes' ids, matched by id).

Tasks are independent units of work: they run on an executor's workers when one is given, and
every finished task is checkpointed (``build_tasks.jsonl``), so an interrupted build resumes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind
from veriscale.backends.select import make_backend, worker_engine, worker_engine_setup
from veriscale.games.common import TranscriptStore, stored_input
from veriscale.games.refute.difficulty import (
    DEFAULT_POOL_SIZE,
    blind_bucket,
    draw_pool,
    item_bucket,
    suite_bucket,
    verified_wrong,
)
from veriscale.generate.adversaries import Adversary, template_adversaries
from veriscale.generate.adversaries.mutants import Mutation
from veriscale.generate.adversaries.subtle import ORDER_SEPARATOR, combine, split_order, subtle_mutations
from veriscale.lean.printing import same_as_printed
from veriscale.parallel import Executor, worker_memory_limit
from veriscale.stages.expand.writer import KILL_MATRIX_FILE, SUMMARY_FILE
from veriscale.task import Task, TaskLoadError, load_task
from veriscale.typed_task import TypedTask, TypedTaskError, typed_view

__all__ = [
    "ITEMS_FILE",
    "BuildSettings",
    "BuildSummary",
    "RefuteItem",
    "TaskBuild",
    "build_items",
    "build_task_items",
    "original_count",
    "recover_adversaries",
]

ITEMS_FILE = "items.jsonl"
SUMMARY_NAME = "build_summary.json"
TASKS_FILE = "build_tasks.jsonl"
"""The checkpoint: one line per finished task (its items and counts, with the settings used)."""
DEFAULT_WITNESSES = 5
"""Witnesses verified and kept per item (the smallest exposing inputs first)."""


@dataclass(frozen=True)
class BuildSettings:
    witnesses: int = DEFAULT_WITNESSES
    pool_size: int = DEFAULT_POOL_SIZE
    """Random draws per task in the blind pool (0: no pool, every item's blind rate is 0)."""
    seed: int = 0
    """Seed of the blind pool (its stream is the pool's own, apart from the random baseline's)."""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


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
    suite_share: float
    """Share of the suite's accept inputs that expose it (``exposing / accept_inputs``)."""
    exposing: int
    accept_inputs: int
    pool_draws: int
    """Blind random draws made for the task (the same pool for every item of the task)."""
    pool_valid: int
    """Draws that are valid inputs (precondition decided true, reference output a value)."""
    pool_exposing: int
    """Draws that expose it (the wrong output verified wrong)."""
    witnesses: list[dict[str, Any]]
    """Hidden: stored inputs on which the engine verified the wrong output."""

    @property
    def pool_rate(self) -> float:
        """The rate at which blind random draws expose it (0 without a pool)."""
        return round(self.pool_exposing / self.pool_draws, 6) if self.pool_draws else 0.0

    @property
    def bucket(self) -> str:
        return item_bucket(self.suite_share, self.pool_rate)

    def to_json(self) -> dict[str, Any]:
        raw = {f.name: getattr(self, f.name) for f in fields(self)}
        # derived, written for readers of items.jsonl
        return {**raw, "pool_rate": self.pool_rate, "bucket": self.bucket}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> RefuteItem:
        missing = [f.name for f in fields(cls) if f.name not in raw]
        if missing:
            raise ValueError(f"not a REFUTE item of this version (no {', '.join(missing)}): rebuild the items")
        return cls(**{f.name: raw[f.name] for f in fields(cls)})


COUNTS = ("items", "adversaries", "killed_by_original_tests", "fails_original_tests", "never_exposed")
TALLIES = ("dropped", "by_bucket", "by_suite_bucket", "by_blind_bucket", "by_kind")


@dataclass
class BuildSummary:
    tasks_seen: int = 0
    tasks_with_items: int = 0
    tasks_without_pool: list[str] = field(default_factory=list)
    """Tasks whose parameter types the random sampler cannot draw (no blind pool)."""
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
    by_suite_bucket: Counter[str] = field(default_factory=Counter)
    """Items by the suite route's bucket alone."""
    by_blind_bucket: Counter[str] = field(default_factory=Counter)
    """Items by the blind route's bucket alone."""
    by_kind: Counter[str] = field(default_factory=Counter)

    def count_item(self, item: RefuteItem) -> None:
        self.items += 1
        self.by_bucket[item.bucket] += 1
        self.by_suite_bucket[suite_bucket(item.suite_share)] += 1
        self.by_blind_bucket[blind_bucket(item.pool_rate)] += 1
        self.by_kind[item.kind] += 1

    def add(self, task: str, part: BuildSummary, error: str | None = None) -> None:
        """Count one task's build (``part``; ``error`` when it could not be built)."""
        self.tasks_seen += 1
        if error is not None:
            self.task_errors[task] = error
        self.tasks_with_items += 1 if part.items else 0
        self.tasks_without_pool.extend(part.tasks_without_pool)
        for name in COUNTS:
            setattr(self, name, getattr(self, name) + getattr(part, name))
        for name in TALLIES:
            getattr(self, name).update(getattr(part, name))

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks_seen": self.tasks_seen,
            "tasks_with_items": self.tasks_with_items,
            "tasks_without_pool": sorted(self.tasks_without_pool),
            **{name: getattr(self, name) for name in COUNTS},
            **{name: dict(sorted(getattr(self, name).items())) for name in TALLIES},
            "dropped_total": sum(self.dropped.values()),
            "task_errors": dict(sorted(self.task_errors.items())),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> BuildSummary:
        summary = cls(
            tasks_seen=raw["tasks_seen"],
            tasks_with_items=raw["tasks_with_items"],
            tasks_without_pool=list(raw["tasks_without_pool"]),
            task_errors=dict(raw["task_errors"]),
        )
        for name in COUNTS:
            setattr(summary, name, int(raw[name]))
        for name in TALLIES:
            setattr(summary, name, Counter(raw[name]))
        return summary


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


def original_count(directory: Path) -> int:
    """How many of an expanded task's tests are the original benchmark's (they come first)."""
    summary_path = directory / SUMMARY_FILE
    if summary_path.is_file():
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        if isinstance(summary.get("tests_original"), int):
            return int(summary["tests_original"])
    raise ValueError(f"{summary_path}: no tests_original (not a suite written by veriscale expand)")


def _input_size(view: TypedTask, position: int) -> int:
    key = view.tests[position].key
    return len(key) if key is not None else 1 << 30


def _verify_witnesses(
    task: Task,
    view: TypedTask,
    backend: Backend,
    adversary: Adversary,
    positions: Sequence[int],
    precond: dict[int, Answer],
    reference: dict[int, Answer],
) -> list[int]:
    """The positions on which the wrong output is verified wrong by the engine (``precond`` and
    ``reference``: the engine's answers on the positions, shared by every adversary of the task)."""
    usable = [p for p in positions if precond[p].status == "true" and reference[p].status == "value"]
    wrong = verified_wrong(
        task,
        task.with_sections(**adversary.sections),
        backend,
        [view.tests[p].args or {} for p in usable],
        [reference[p].value for p in usable],
    )
    return [usable[i] for i in wrong]


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


@dataclass
class TaskBuild:
    """One task's verified items and its counts."""

    items: list[RefuteItem]
    summary: BuildSummary


def _candidates(
    task: Task, view: TypedTask, directory: Path, summary: BuildSummary
) -> tuple[list[tuple[Adversary, list[int]]], list[int], int]:
    """The adversaries worth verifying, each with its exposing positions (smallest inputs first);
    the original tests' positions; the number of accept inputs."""
    matrix = json.loads((directory / KILL_MATRIX_FILE).read_text(encoding="utf-8"))
    originals = list(range(original_count(directory)))
    rows = [row for row in matrix["tests"] if 0 <= int(row["test"]) < len(view.tests)]
    exposing: dict[str, list[int]] = {}
    for row in rows:
        for adversary_id in row["killed_by"]:
            exposing.setdefault(adversary_id, []).append(int(row["test"]))
    declared = matrix["adversaries"]
    summary.adversaries += len(declared)
    code = recover_adversaries(task, [a["id"] for a in declared])
    candidates: list[tuple[Adversary, list[int]]] = []
    for entry in declared:
        positions = exposing.get(entry["id"], [])
        if any(p in originals for p in positions):
            summary.killed_by_original_tests += 1
        elif not positions:
            summary.never_exposed += 1
        elif entry["id"] not in code:
            summary.dropped["code not recoverable"] += 1
        else:
            candidates.append((code[entry["id"]], sorted(positions, key=lambda p: (_input_size(view, p), p))))
    return candidates, originals, len(rows)


def build_task_items(directory: Path, backend: Backend, settings: BuildSettings = BuildSettings()) -> TaskBuild:
    """The verified items of one expanded task directory, with their counts."""
    summary = BuildSummary()
    task = load_task(directory)
    view = typed_view(task)
    backend.start_unit()
    candidates, originals, accept_count = _candidates(task, view, directory, summary)
    if not candidates:
        return TaskBuild([], summary)
    chosen_inputs = sorted(
        {p for _, ps in candidates for p in ps[: settings.witnesses] if view.tests[p].args is not None}
    )
    precond = backend.run(
        task, [Check(kind=CheckKind.PRECOND, args=view.tests[p].args or {}) for p in chosen_inputs]
    )
    reference = backend.run(
        task, [Check(kind=CheckKind.CODE, args=view.tests[p].args or {}) for p in chosen_inputs]
    )
    verified: list[tuple[Adversary, list[int], list[int]]] = []
    for adversary, positions in candidates:
        passes = _passes_original_tests(task, view, backend, adversary, originals)
        if passes is None:
            summary.dropped["original tests undecided"] += 1
            continue
        if not passes:
            summary.fails_original_tests += 1
            continue
        tried = [p for p in positions[: settings.witnesses] if p in chosen_inputs]
        witnesses = _verify_witnesses(
            task,
            view,
            backend,
            adversary,
            tried,
            dict(zip(chosen_inputs, precond, strict=True)),
            dict(zip(chosen_inputs, reference, strict=True)),
        )
        if not witnesses:
            summary.dropped["no witness verified"] += 1
            continue
        verified.append((adversary, positions, witnesses))
    if not verified:
        return TaskBuild([], summary)
    # The engine's step budget per task text spans a unit of work: the pool and each adversary's
    # run on it are units of their own, so an item's figures do not depend on the items before it
    # (the runner likewise plays each item as a unit).
    backend.start_unit()
    pool = draw_pool(task, view, backend, size=settings.pool_size, seed=settings.seed)
    if settings.pool_size and not pool.draws:
        summary.tasks_without_pool.append(task.id)
    items: list[RefuteItem] = []
    for adversary, positions, witnesses in verified:
        backend.start_unit()
        item = RefuteItem(
            id=f"{task.id}::{adversary.id}",
            task=task.id,
            adversary=adversary.id,
            source=adversary.source,
            kind=adversary_kind(adversary.id, adversary.source, adversary.description),
            description=adversary.description,
            sections=dict(adversary.sections),
            suite_share=round(len(positions) / accept_count, 6) if accept_count else 0.0,
            exposing=len(positions),
            accept_inputs=accept_count,
            pool_draws=pool.draws,
            pool_valid=pool.valid,
            pool_exposing=pool.exposing(task, task.with_sections(**adversary.sections), backend),
            witnesses=[stored_input(view.tests[p].args or {}, view) for p in witnesses],
        )
        items.append(item)
        summary.count_item(item)
    return TaskBuild(items, summary)


def suite_task_dirs(suite: Path) -> list[Path]:
    """Task directories of an expanded suite that carry a kill matrix, sorted by name."""
    return sorted(p for p in suite.iterdir() if p.is_dir() and (p / KILL_MATRIX_FILE).is_file())


BuildUnit = tuple[Path, BuildSettings]
BuildResult = TaskBuild | str
"""A task's build, or why it could not be built."""


def _build_or_error(directory: Path, backend: Backend, settings: BuildSettings) -> BuildResult:
    try:
        return build_task_items(directory, backend, settings)
    except (TaskLoadError, TypedTaskError, ValueError, KeyError, OSError) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _worker_build(unit: BuildUnit) -> BuildResult:
    directory, settings = unit
    return _build_or_error(directory, worker_engine(), settings)


def _crashed_build(unit: BuildUnit, reason: str) -> BuildResult:
    return reason


def _checkpoint(name: str, settings_key: dict[str, Any], result: BuildResult) -> dict[str, Any]:
    if isinstance(result, str):
        return {"item": name, "settings": settings_key, "error": result}
    return {
        "item": name,
        "settings": settings_key,
        "summary": result.summary.to_json(),
        "items": [item.to_json() for item in result.items],
    }


def _from_checkpoint(record: dict[str, Any]) -> BuildResult:
    if "error" in record:
        return str(record["error"])
    return TaskBuild([RefuteItem.from_json(raw) for raw in record["items"]], BuildSummary.from_json(record["summary"]))


def build_items(
    suite: Path,
    out: Path,
    backend: Backend | str,
    *,
    settings: BuildSettings = BuildSettings(),
    tasks: Sequence[str] | None = None,
    progress: Callable[[str, int], None] | None = None,
    executor: Executor | None = None,
) -> BuildSummary:
    """Build every task's items into ``out/items.jsonl`` (and ``out/build_summary.json``).

    ``backend`` is an engine, or an engine's name; with a name and an ``executor``, the tasks are
    built on the executor's workers (one engine each). Each finished task is appended to
    ``out/build_tasks.jsonl``; a rerun with the same suite and settings builds only the tasks not
    there yet. The output is in task-name order and the same whichever way it was computed."""
    out.mkdir(parents=True, exist_ok=True)
    directories = [d for d in suite_task_dirs(suite) if not tasks or d.name in tasks]
    key = {"suite": str(suite.resolve()), **settings.to_json()}
    store = TranscriptStore(out / TASKS_FILE)
    results: dict[str, BuildResult] = {
        name: _from_checkpoint(record) for name, record in store.done().items() if record.get("settings") == key
    }
    todo = [d for d in directories if d.name not in results]

    def finished(index: int, result: BuildResult) -> None:
        name = todo[index].name
        results[name] = result
        store.append(_checkpoint(name, key, result))
        if progress is not None:
            progress(name, 0 if isinstance(result, str) else len(result.items))

    if executor is not None and isinstance(backend, str):
        executor.map(_worker_build, [(d, settings) for d in todo], setup=worker_engine_setup(backend),
                     crashed=_crashed_build, on_result=finished, memory_limit=worker_memory_limit(backend))
    else:
        engine = make_backend(backend) if isinstance(backend, str) else backend
        for index, directory in enumerate(todo):
            finished(index, _build_or_error(directory, engine, settings))
    summary = BuildSummary()
    lines: list[str] = []
    for directory in directories:
        result = results[directory.name]
        if isinstance(result, str):
            summary.add(directory.name, BuildSummary(), result)
            continue
        summary.add(directory.name, result.summary)
        lines.extend(json.dumps(item.to_json(), ensure_ascii=False, sort_keys=True) for item in result.items)
    (out / ITEMS_FILE).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (out / SUMMARY_NAME).write_text(
        json.dumps({**summary.to_json(), "settings": settings.to_json()}, indent=2) + "\n", encoding="utf-8"
    )
    (out / "build.json").write_text(json.dumps({"suite": str(suite.resolve())}, indent=2) + "\n", encoding="utf-8")
    return summary


def load_items(path: Path) -> list[RefuteItem]:
    """Items from a build directory (or an ``items.jsonl`` file)."""
    from veriscale.games.common import read_jsonl

    file = path / ITEMS_FILE if path.is_dir() else path
    return [RefuteItem.from_json(raw) for raw in read_jsonl(file)]
