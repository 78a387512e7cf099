"""Reduce a suite directory by a recipe: ``veriscale reduce SUITE --target lite --out OUT``.

Per task: the tests a kill-matrix cover (plus a budget fill) keeps, the reject inputs the boundary
reduction keeps, everything else of the task unchanged. Output: the same directory layout
(``veriscale.task.write_task``), ``kill_matrix.json`` restricted to the kept tests (renumbered),
``summary.json`` per task and one for the run.

*Original tests.* With ``tests.keep_original`` the tests of the original benchmark are kept on top
of the budget, as the published VerinaLite does (in all 151 published tasks its tests are all of
Verina's plus at most 50 of VerinaPlus's). They are found, in this order: by input (canonical key)
in the task of the same id under ``original_dir`` when given; else as the first
``tests_original`` tests named by the suite's own ``<task>/summary.json`` (written by
``veriscale expand``, which puts the original tests first); else there are none.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from veriscale.backends.base import Backend
from veriscale.lean.codec import ValueParseError, canonical_key
from veriscale.lean.types import LeanType, LeanTypeError, StructDef, parse_structures, parse_type
from veriscale.stages.reduce.boundary import boundary_tests
from veriscale.stages.reduce.cover import TestSelection, exact_solver_name, fill_by_kills, select_tests
from veriscale.stages.reduce.flaws import cover_flawed_specs
from veriscale.stages.reduce.recipe import Recipe, load_recipe
from veriscale.stages.reduce.rejects import published_canonical_text, reduce_reject_inputs
from veriscale.task import TASK_JSON, Task, TaskLoadError, TestCase, load_task, write_task

__all__ = [
    "KILL_MATRIX_FILE",
    "SUMMARY_FILE",
    "KillMatrix",
    "ReduceReport",
    "ReduceTotals",
    "TaskReduction",
    "reduce_suite",
    "reduce_task",
]

KILL_MATRIX_FILE = "kill_matrix.json"
SUMMARY_FILE = "summary.json"


# ---------------------------------------------------------------------------------------------
# Kill matrix file


class KillMatrixAdversary(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    source: str = ""
    description: str = ""


class KillMatrixTest(BaseModel):
    model_config = ConfigDict(extra="allow")

    test: int = Field(ge=0)
    key: str = ""
    killed_by: list[str] = Field(default_factory=list)


class KillMatrix(BaseModel):
    """``kill_matrix.json``: adversaries, and per test (position in test.json) who it kills."""

    model_config = ConfigDict(extra="allow")

    adversaries: list[KillMatrixAdversary] = Field(default_factory=list)
    tests: list[KillMatrixTest] = Field(default_factory=list)

    def kills(self, test_count: int) -> list[frozenset[str]]:
        """Adversary ids killed by each test position (entries for one test are merged)."""
        sets: list[set[str]] = [set() for _ in range(test_count)]
        for entry in self.tests:
            if entry.test >= test_count:
                raise ValueError(f"{KILL_MATRIX_FILE}: test {entry.test} does not exist ({test_count} tests)")
            sets[entry.test].update(entry.killed_by)
        return [frozenset(s) for s in sets]

    def restricted(self, kept: Sequence[int]) -> dict[str, Any]:
        """The matrix for the kept tests, renumbered to their new positions (JSON-ready)."""
        new_position = {old: new for new, old in enumerate(kept)}
        entries = [
            entry.model_copy(update={"test": new_position[entry.test]})
            for entry in self.tests
            if entry.test in new_position
        ]
        entries.sort(key=lambda entry: entry.test)
        data = self.model_dump(mode="json")
        data["tests"] = [entry.model_dump(mode="json") for entry in entries]
        return data


# ---------------------------------------------------------------------------------------------
# Reports


class TaskReduction(BaseModel):
    """What the reduction did to one task (``<task>/summary.json``)."""

    task: str
    recipe: str
    status: Literal["reduced", "error"] = "reduced"
    error: str | None = None
    tests_before: int = 0
    tests_after: int = 0
    tests_original: int = 0
    """Tests kept as the original benchmark's (outside the budget)."""
    original_source: Literal["original_dir", "summary", "none"] = "none"
    unexpected_before: int = 0
    unexpected_after: int = 0
    rejects_before: int = 0
    rejects_unique: int = 0
    """Reject inputs left after de-duplication (equal to ``rejects_before`` when kept all)."""
    rejects_after: int = 0
    checks_before: int = 0
    checks_after: int = 0
    """Checks = tests + unexpected outputs + reject inputs."""
    kill_matrix: bool = False
    adversaries: int = 0
    killed_before: int = 0
    """Adversaries killed by some test before the reduction ..."""
    killed_after: int = 0
    """... and by some kept test after it (equal for a cover)."""
    cover_method: Literal["greedy", "exact"] | None = None
    cover_size: int | None = None
    greedy_cover_size: int | None = None
    exact_cover_size: int | None = None
    cover_over_budget: bool = False
    flawed_columns: int = 0
    """LLM-free flawed specifications computed at reduce time (columns besides the adversaries)."""
    flawed_killed: int = 0
    """Of those, killed by some test (and so by a kept one)."""
    flawed_undecided: int = 0
    flaw_tests: int = 0
    """Tests added to kill a flawed specification no other kept test kills."""
    boundary_tests: int = 0
    """Boundary accept tests added (not already kept)."""
    fill: int = 0
    notes: list[str] = Field(default_factory=list)
    kept_tests: list[int] = Field(default_factory=list)
    """Positions, in the input test.json, of the kept tests (in output order)."""
    kept_rejects: list[int] = Field(default_factory=list)
    """Positions, in the input reject_inputs.json, of the kept reject inputs (in output order)."""


class ReduceTotals(BaseModel):
    tasks: int = 0
    tasks_reduced: int = 0
    tasks_failed: int = 0
    tasks_without_kill_matrix: int = 0
    tests_before: int = 0
    tests_after: int = 0
    unexpected_before: int = 0
    unexpected_after: int = 0
    rejects_before: int = 0
    rejects_after: int = 0
    checks_before: int = 0
    checks_after: int = 0
    killed_before: int = 0
    killed_after: int = 0
    flawed_columns: int = 0
    flawed_killed: int = 0
    flawed_undecided: int = 0
    flaw_tests: int = 0
    boundary_tests: int = 0
    greedy_cover_size: int = 0
    exact_cover_size: int | None = None

    def add(self, item: TaskReduction) -> None:
        self.tasks += 1
        if item.status != "reduced":
            self.tasks_failed += 1
            return
        self.tasks_reduced += 1
        self.tasks_without_kill_matrix += not item.kill_matrix
        for name in (
            "tests_before",
            "tests_after",
            "unexpected_before",
            "unexpected_after",
            "rejects_before",
            "rejects_after",
            "checks_before",
            "checks_after",
            "killed_before",
            "killed_after",
            "flawed_columns",
            "flawed_killed",
            "flawed_undecided",
            "flaw_tests",
            "boundary_tests",
        ):
            setattr(self, name, getattr(self, name) + getattr(item, name))
        self.greedy_cover_size += item.greedy_cover_size or 0
        if item.exact_cover_size is not None:
            self.exact_cover_size = (self.exact_cover_size or 0) + item.exact_cover_size


class ReduceReport(BaseModel):
    """The run's report (``summary.json`` at the top of the output directory)."""

    recipe: Recipe
    recipe_source: str | None = None
    suite: str
    output: str
    original: str | None = None
    exact: bool = False
    exact_solver: str | None = None
    totals: ReduceTotals = Field(default_factory=ReduceTotals)
    load_failures: list[str] = Field(default_factory=list)
    tasks: list[TaskReduction] = Field(default_factory=list)

    def summary(self) -> str:
        """A few human-readable lines."""
        t = self.totals
        lines = [
            f"{self.recipe.name}: {t.tasks_reduced} task(s) reduced, {t.tasks_failed} failed, "
            f"{len(self.load_failures)} did not load -> {self.output}",
            f"  tests {t.tests_before} -> {t.tests_after}, unexpected outputs {t.unexpected_before} -> "
            f"{t.unexpected_after}, reject inputs {t.rejects_before} -> {t.rejects_after}, "
            f"checks {t.checks_before} -> {t.checks_after}",
            f"  adversaries killed {t.killed_before} -> {t.killed_after}; greedy cover {t.greedy_cover_size} tests"
            + (f", minimum cover {t.exact_cover_size}" if t.exact_cover_size is not None else ""),
        ]
        if t.flawed_columns:
            lines.append(
                f"  flawed specifications killed {t.flawed_killed}/{t.flawed_columns} (kept: all of them; "
                f"{t.flaw_tests} test(s) added for them, {t.flawed_undecided} undecided within budget); "
                f"boundary tests {t.boundary_tests}"
            )
        if t.tasks_without_kill_matrix:
            lines.append(f"  {t.tasks_without_kill_matrix} task(s) without {KILL_MATRIX_FILE}")
        lines.extend(
            f"  failed: {item.task}: {item.error}" for item in self.tasks if item.status != "reduced"
        )
        lines.extend(f"  not loaded: {failure}" for failure in self.load_failures)
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Input keys


class _InputKeys:
    """Canonical input keys of a task's rows: typed when the values parse, else raw JSON."""

    def __init__(self, task: Task) -> None:
        self.notes: list[str] = []
        self.types: dict[str, LeanType] | None
        self.structs: dict[str, StructDef] = {}
        try:
            self.types = {p.name: parse_type(p.type) for p in task.signature.parameters}
            self.structs = parse_structures(task.section("task_aux"))
        except LeanTypeError as exc:
            self.types = None
            self.notes.append(f"signature types do not parse ({exc}); inputs compared as raw JSON")

    def key(self, row: Mapping[str, Any]) -> str:
        if self.types is not None:
            try:
                return canonical_key(row, self.types, self.structs, wrap_uint=True)
            except ValueParseError:
                pass
        return "raw:" + published_canonical_text(row)


# ---------------------------------------------------------------------------------------------
# One task


def _trim_unexpected(test: TestCase, needed: set[int], extra: int) -> TestCase:
    """The test with the unexpected outputs that kill a column, and the first ``extra`` others."""
    others = [j for j in range(len(test.unexpected)) if j not in needed][:extra]
    keep = sorted(needed | set(others))
    return test.model_copy(update={"unexpected": [test.unexpected[j] for j in keep]})


def _count_unexpected(task: Task, positions: Sequence[int] | None = None) -> int:
    rows = task.tests if positions is None else [task.tests[i] for i in positions]
    return sum(len(t.unexpected) for t in rows)


def _original_positions(
    task: Task,
    keys: _InputKeys,
    original: Task | None,
    suite_summary: Mapping[str, Any] | None,
) -> tuple[list[int], Literal["original_dir", "summary", "none"]]:
    if original is not None:
        original_keys = {keys.key(t.input) for t in original.tests}
        return [i for i, t in enumerate(task.tests) if keys.key(t.input) in original_keys], "original_dir"
    count = (suite_summary or {}).get("tests_original")
    if isinstance(count, int) and not isinstance(count, bool) and count > 0:
        return list(range(min(count, len(task.tests)))), "summary"
    return [], "none"


def reduce_task(
    task: Task,
    recipe: Recipe,
    *,
    kill_matrix: KillMatrix | None = None,
    original: Task | None = None,
    suite_summary: Mapping[str, Any] | None = None,
    backend: Backend | None = None,
) -> tuple[Task, TaskReduction, dict[str, Any] | None]:
    """Reduce one task: the reduced task, its report, and its restricted kill matrix (if any).

    Raises ``ValueError`` when the kill matrix names tests the task does not have (or the recipe
    wants flawed-specification columns and no ``backend`` is given), and
    :class:`~veriscale.stages.reduce.cover.ExactCoverUnavailable` when an exact cover cannot be solved.

    With a ``cover`` recipe the tests are chosen in this order: the original tests (outside the
    budget), a cover of the adversaries, tests killing the flawed specifications no kept test kills
    (``columns``), boundary accept tests (``boundary``), then the budget fill by kill count.
    """
    rules = recipe.tests
    keys = _InputKeys(task)
    report = TaskReduction(task=task.id, recipe=recipe.name, notes=list(keys.notes))
    n = len(task.tests)
    kills = kill_matrix.kills(n) if kill_matrix is not None else [frozenset[str]() for _ in range(n)]
    killed_before = set().union(*kills) if kills else set()

    forced: list[int] = []
    if rules.mode != "all" and rules.keep_original:
        forced, report.original_source = _original_positions(task, keys, original, suite_summary)
        if report.original_source == "none":
            report.notes.append("original tests not identified (no original benchmark, no tests_original)")
    eligible = list(range(n))
    if rules.skip_duplicate_inputs:
        seen: set[str] = {keys.key(task.tests[i].input) for i in forced}
        eligible = []
        for i, test in enumerate(task.tests):
            key = keys.key(test.input)
            if key not in seen:
                eligible.append(i)
            seen.add(key)

    selection: TestSelection | None = None
    kill_unexpected: dict[int, set[int]] = {}
    if rules.mode == "all":
        kept_tests = list(range(n))
    elif rules.mode == "cover" and (kill_matrix is not None or "flawed_specs" in rules.columns):
        if "adversaries" not in rules.columns:
            kills = [frozenset[str]() for _ in range(n)]
        selection = select_tests(kills, 0, forced=forced, method=rules.cover)
        chosen = [*selection.cover]
        if "flawed_specs" in rules.columns:
            if backend is None:
                raise ValueError("the recipe's flawed_specs columns need an engine (backend)")
            flaws = cover_flawed_specs(
                task, [*forced, *chosen], backend, seed=rules.flawed_seed,
                max_per_section=rules.flawed_per_section, step_budget=rules.flaw_steps,
            )
            chosen += flaws.added
            for test_index, unexpected in flaws.killed.values():
                if unexpected is not None:
                    kill_unexpected.setdefault(test_index, set()).add(unexpected)
            report.flawed_columns, report.flawed_killed = len(flaws.columns), len(flaws.killed)
            report.flawed_undecided, report.flaw_tests = len(flaws.undecided), len(flaws.added)
        if rules.boundary:
            forced_or_chosen = {*forced, *chosen}
            extra = [i for i in boundary_tests([t.input for t in task.tests], keys.types, keys.structs,
                                               eligible=eligible) if i not in forced_or_chosen]
            chosen += extra
            report.boundary_tests = len(extra)
        fill = fill_by_kills(kills, chosen, rules.budget, eligible=[i for i in eligible if i not in set(forced)])
        selection = TestSelection(
            selected=sorted({*forced, *chosen, *fill}), forced=selection.forced, cover=selection.cover, fill=fill,
            greedy_size=selection.greedy_size, exact_size=selection.exact_size, budget=rules.budget,
        )
        kept_tests = selection.selected
        report.cover_method = rules.cover
        report.cover_size = len(selection.cover)
        report.greedy_cover_size = selection.greedy_size
        report.exact_cover_size = selection.exact_size
        report.cover_over_budget = selection.over_budget
        report.fill = len(selection.fill)
        if selection.over_budget:
            report.notes.append(
                f"the cover needs {len(selection.cover)} tests, more than the budget {rules.budget}; kept whole"
            )
    else:
        forced_set = set(forced)
        first = [i for i in eligible if i not in forced_set][: rules.budget]
        kept_tests = sorted({*forced, *first})
        if rules.mode == "cover":
            report.notes.append(
                f"no {KILL_MATRIX_FILE}: no kill information; kept the original tests and the first "
                f"{rules.budget} other tests by position"
                + (" (repeated inputs skipped)" if rules.skip_duplicate_inputs else "")
            )

    reject_rules = recipe.reject_inputs
    reject_rows = [r.input for r in task.reject_inputs]
    if reject_rules.mode == "all":
        kept_rejects = list(range(len(reject_rows)))
        report.rejects_unique = len(reject_rows)
    else:
        typed = not reject_rules.published_compat and keys.types is not None
        reduction = reduce_reject_inputs(
            reject_rows,
            reject_rules.budget,
            mode="typed" if typed else "published",
            types=keys.types,
            structs=keys.structs,
        )
        kept_rejects = reduction.kept
        report.rejects_unique = reduction.unique
        if reduction.typed_fallbacks:
            report.notes.append(
                f"{reduction.typed_fallbacks} reject input(s) do not parse at their types; compared as raw JSON"
            )

    kept_rows = [task.tests[i] for i in kept_tests]
    if rules.mode != "all" and rules.unexpected_per_test is not None:
        kept_rows = [
            _trim_unexpected(task.tests[i], kill_unexpected.get(i, set()), rules.unexpected_per_test)
            for i in kept_tests
        ]
    reduced = task.model_copy(
        update={
            "tests": kept_rows,
            "reject_inputs": [task.reject_inputs[i] for i in kept_rejects],
            "extra_files": {
                name: text
                for name, text in task.extra_files.items()
                if name not in (KILL_MATRIX_FILE, SUMMARY_FILE)
            },
        }
    )
    killed_after = set().union(*(kills[i] for i in kept_tests)) if kept_tests else set()
    report.tests_before, report.tests_after = n, len(kept_tests)
    report.tests_original = len(forced)
    report.unexpected_before, report.unexpected_after = _count_unexpected(task), _count_unexpected(reduced)
    report.rejects_before, report.rejects_after = len(reject_rows), len(kept_rejects)
    report.checks_before = n + report.unexpected_before + report.rejects_before
    report.checks_after = len(kept_tests) + report.unexpected_after + report.rejects_after
    report.kill_matrix = kill_matrix is not None
    report.adversaries = len(kill_matrix.adversaries) if kill_matrix is not None else 0
    report.killed_before, report.killed_after = len(killed_before), len(killed_after)
    report.kept_tests, report.kept_rejects = kept_tests, kept_rejects
    restricted = kill_matrix.restricted(kept_tests) if kill_matrix is not None else None
    return reduced, report, restricted


# ---------------------------------------------------------------------------------------------
# A suite


def _task_dirs(root: Path) -> list[Path]:
    if (root / TASK_JSON).is_file():
        return [root]
    return sorted(
        (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")), key=lambda p: p.name
    )


def _read_json_file(path: Path) -> Any:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _load_originals(original_dir: Path) -> dict[str, Task]:
    originals: dict[str, Task] = {}
    for directory in _task_dirs(original_dir):
        try:
            task = load_task(directory)
        except TaskLoadError:
            continue  # that task simply has no known originals
        originals.setdefault(task.id, task)
    return originals


def reduce_suite(
    suite_dir: str | Path,
    target: str | Path | Recipe,
    out_dir: str | Path,
    *,
    exact: bool = False,
    published_compat: bool | None = None,
    original_dir: str | Path | None = None,
    backend: str = "embedded",
    progress: bool = False,
    task_ids: Sequence[str] | None = None,
) -> ReduceReport:
    """Reduce every task of ``suite_dir`` by a recipe (a name such as ``lite``, a ``.toml`` path, or
    a :class:`Recipe`) into ``out_dir``.

    ``exact`` uses a minimum cover (PuLP + HiGHS) instead of the greedy one and reports both sizes;
    ``published_compat`` overrides the recipe's reject-input mode; ``original_dir`` is the original
    benchmark, whose tests are kept on top of the budget (see the module docstring); ``backend``
    is the engine that finds the tests killing flawed specifications (recipes whose ``columns``
    name them). Tasks that do not load, or whose kill matrix is unusable, are reported and not
    written. ``task_ids`` keeps only those tasks (task directories of those names).
    """
    recipe = target if isinstance(target, Recipe) else load_recipe(target)
    if exact and recipe.tests.cover != "exact":
        recipe = recipe.model_copy(update={"tests": recipe.tests.model_copy(update={"cover": "exact"})})
    if published_compat is not None:
        rules = recipe.reject_inputs.model_copy(update={"published_compat": published_compat})
        recipe = recipe.model_copy(update={"reject_inputs": rules})
    solver = exact_solver_name() if recipe.tests.mode == "cover" and recipe.tests.cover == "exact" else None
    source, output = Path(suite_dir), Path(out_dir)
    if not source.is_dir():
        raise NotADirectoryError(f"not a suite directory: {source}")
    if output.resolve() == source.resolve():
        raise ValueError("the output directory must differ from the suite directory")
    originals = _load_originals(Path(original_dir)) if original_dir is not None else None
    report = ReduceReport(
        recipe=recipe,
        recipe_source=recipe.source,
        suite=str(source),
        output=str(output),
        original=None if original_dir is None else str(original_dir),
        exact=recipe.tests.cover == "exact",
        exact_solver=solver,
    )
    engine: Backend | None = None
    if recipe.tests.mode == "cover" and "flawed_specs" in recipe.tests.columns:
        from veriscale.backends.select import make_backend, resolve_backend_name

        engine = make_backend(resolve_backend_name(backend))
    single = (source / TASK_JSON).is_file()
    directories = [d for d in _task_dirs(source) if not task_ids or d.name in set(task_ids)]
    if progress:
        from tqdm import tqdm

        directories = tqdm(directories, desc="reduce", unit="task", file=sys.stderr)
    for directory in directories:
        try:
            task = load_task(directory)
        except TaskLoadError as error:
            report.load_failures.append(str(error))
            continue
        try:
            matrix_path = directory / KILL_MATRIX_FILE
            matrix = (
                KillMatrix.model_validate(_read_json_file(matrix_path)) if matrix_path.is_file() else None
            )
            summary_path = directory / SUMMARY_FILE
            suite_summary = _read_json_file(summary_path) if summary_path.is_file() else None
            if not isinstance(suite_summary, dict):
                suite_summary = None
            original = originals.get(task.id) if originals is not None else None
            reduced, item, restricted = reduce_task(
                task, recipe, kill_matrix=matrix, original=original, suite_summary=suite_summary, backend=engine
            )
            if originals is not None and original is None and recipe.tests.keep_original:
                item.notes.append(f"task not found in the original benchmark {original_dir}")
        except (ValueError, ValidationError, OSError) as exc:
            item = TaskReduction(task=task.id, recipe=recipe.name, status="error", error=str(exc))
            report.tasks.append(item)
            report.totals.add(item)
            continue
        target_dir = output if single else output / task.id
        write_task(reduced, target_dir)
        if restricted is not None:
            (target_dir / KILL_MATRIX_FILE).write_text(_dump(restricted), encoding="utf-8")
        (target_dir / SUMMARY_FILE).write_text(_dump(item.model_dump(mode="json")), encoding="utf-8")
        report.tasks.append(item)
        report.totals.add(item)
    output.mkdir(parents=True, exist_ok=True)
    if not single:
        (output / SUMMARY_FILE).write_text(_dump(report.model_dump(mode="json")), encoding="utf-8")
    return report
