"""``veriscale power``: several suites measured against the same flawed specifications and mutants.

Which items count is decided per task on a judging pool generated for power alone
(:mod:`.pool`), so a suite's denominator, and (with per-suite budgets) its catches, are the same
whether it is measured alone or beside others. Every rate comes with a 95 % Wilson interval.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from veriscale.backends.select import worker_engine, worker_engine_setup
from veriscale.benchmark import load_benchmark
from veriscale.parallel import (
    Executor,
    LocalExecutor,
    ProgressOption,
    as_progress,
    worker_memory_limit,
)
from veriscale.stages.power.cache import PhaseCache
from veriscale.stages.power.items import (
    DEFAULT_MAX_FLAWED,
    DEFAULT_MAX_MUTANTS,
    DEFAULT_SEED,
    expand_overlap,
    power_items,
)
from veriscale.stages.power.judge import ItemResult, TaskPower, evaluate_task
from veriscale.stages.power.pool import DEFAULT_POOL_SEED, DEFAULT_POOL_SIZE
from veriscale.stages.power.stats import wilson_interval
from veriscale.tables import add_row, new_table, render
from veriscale.task import Task

__all__ = ["DEFAULT_TASK_SECONDS", "DEFAULT_TASK_STEPS", "PowerReport", "SuitePower", "format_power", "measure_power"]

DEFAULT_TASK_STEPS = 15_000_000
"""Engine steps each phase of one task may spend: the pool phase (judging every item on the
pool), and each suite's phase (asking it about the counted items). Deterministic, so the same
suites give the same table on any machine; per phase, so a suite's result does not depend on the
other suites. Items left by the pool phase are ``undetermined`` (counted nowhere); items left by a
suite's phase are not caught by that suite (``undetermined_for``, reported)."""
DEFAULT_TASK_SECONDS = 900.0
"""Wall-clock limit per task: the budget of an engine without steps (real Lean), and a backstop
for work the steps do not see."""


class SuitePower(BaseModel):
    path: str
    checks: int
    tests: int
    unexpected: int
    reject_inputs: int
    flawed_specs_caught: int
    flawed_specs_total: int
    mutants_killed: int
    mutants_total: int
    flawed_precond_caught: int
    flawed_precond_total: int
    flawed_postcond_caught: int
    flawed_postcond_total: int
    mutants1_killed: int = 0
    mutants1_total: int = 0
    mutants2_killed: int = 0
    mutants2_total: int = 0
    undetermined: int = 0
    """Counted items this suite's budget did not reach (not caught)."""
    caught_by_family: dict[str, int]
    """Flawed specifications caught, per operator family."""
    intervals: dict[str, tuple[float, float]] = {}
    """95 % Wilson intervals of each rate: flawed_specs, flawed_precond, flawed_postcond,
    mutants, mutants1, mutants2."""

    @property
    def flawed_share(self) -> float:
        return self.flawed_specs_caught / self.flawed_specs_total if self.flawed_specs_total else 0.0

    @property
    def mutant_share(self) -> float:
        return self.mutants_killed / self.mutants_total if self.mutants_total else 0.0


class PowerReport(BaseModel):
    suites: list[SuitePower]
    tasks: list[str]
    left_out: dict[str, list[str]]
    """Tasks not compared: task id -> the suites that lack it (or where it fails to load)."""
    seed: int
    max_flawed: int
    max_mutants: int
    mutant_orders: list[int]
    pool_seed: int
    pool_size: int
    pool_inputs: int
    """Judging-pool inputs over all tasks."""
    tasks_pool_out_of_time: list[str]
    items_generated: dict[str, int]
    items_equivalent: dict[str, int]
    """Items not told apart from the ground truth on the judging pool (left out of every rate)."""
    items_undetermined: dict[str, int]
    items_unsafe: int
    family_totals: dict[str, int]
    """Counted flawed specifications per operator family."""
    mutants_identical_to_expand: int
    mutants_sharing_an_edit_with_expand: int
    tasks_out_of_time: list[str]
    task_errors: dict[str, str]
    seconds: float
    per_task: list[TaskPower]

    def to_json(self) -> dict[str, object]:
        data = self.model_dump(mode="json")
        return data


# ---------------------------------------------------------------------------------------------
# Work units


@dataclass(frozen=True)
class _Unit:
    suites: tuple[Task, ...]
    seed: int
    max_flawed: int
    max_mutants: int
    mutant_orders: tuple[int, ...]
    pool_seed: int
    pool_size: int
    seconds: float | None
    steps: int | None
    kinds: tuple[str, ...] = ("precond", "postcond", "code")
    cache: str | None = None
    """Directory of stored phases (:mod:`.cache`), or ``None``."""


@dataclass
class _UnitResult:
    power: TaskPower
    generated: dict[str, int]
    identical: int
    sharing: int




def _run_unit(unit: _Unit) -> _UnitResult:
    truth = unit.suites[0]
    try:
        items = [
            i
            for i in power_items(
                truth, seed=unit.seed, max_flawed=unit.max_flawed, max_mutants=unit.max_mutants,
                mutant_orders=unit.mutant_orders,
            )
            if i.kind in unit.kinds
        ]
        generated = {k: sum(1 for i in items if i.kind == k) for k in unit.kinds}
        identical, sharing = expand_overlap(truth, [i for i in items if i.kind == "code"]) if "code" in unit.kinds else (0, 0)
        power = evaluate_task(unit.suites, items, worker_engine(), seconds=unit.seconds, steps=unit.steps,
                              pool_seed=unit.pool_seed, pool_size=unit.pool_size,
                              cache=PhaseCache(Path(unit.cache)) if unit.cache is not None else None)
        return _UnitResult(power, generated, identical, sharing)
    except Exception as exc:  # noqa: BLE001 - one broken task must not end the run
        return _UnitResult(TaskPower(task=truth.id, error=f"internal {type(exc).__name__}: {exc}"[:300]), {}, 0, 0)


def _split_unit(unit: _Unit) -> list[_Unit]:
    if len(unit.kinds) <= 1:
        return [unit]
    return [replace(unit, kinds=(k,)) for k in unit.kinds]


def _crashed_unit(unit: _Unit, reason: str) -> _UnitResult:
    power = TaskPower(task=unit.suites[0].id, error=f"{'/'.join(unit.kinds)}: {reason}")
    return _UnitResult(power, {}, 0, 0)


def _merge(results: Sequence[_UnitResult]) -> _UnitResult:
    """Parts of one task split after a crash, back together."""
    first = results[0]
    if len(results) == 1:
        return first
    power = TaskPower(task=first.power.task)
    generated: dict[str, int] = {}
    for r in results:
        power.items.extend(r.power.items)
        power.checks = power.checks or r.power.checks
        power.parts = power.parts or r.power.parts
        power.seconds += r.power.seconds
        if r.power.steps is not None:
            power.steps = (power.steps or 0) + r.power.steps
        power.out_of_time = power.out_of_time or r.power.out_of_time
        power.pool_out_of_time = power.pool_out_of_time or r.power.pool_out_of_time
        power.pool_inputs = max(power.pool_inputs, r.power.pool_inputs)
        power.pool_rows = power.pool_rows or r.power.pool_rows
        if r.power.error:
            power.error = "; ".join(filter(None, [power.error, r.power.error]))
        for k, v in r.generated.items():
            generated[k] = generated.get(k, 0) + v
    return _UnitResult(power, generated, sum(r.identical for r in results), sum(r.sharing for r in results))


# ---------------------------------------------------------------------------------------------
# The whole comparison


def measure_power(
    suites: Sequence[Path],
    *,
    seed: int = DEFAULT_SEED,
    max_flawed: int = DEFAULT_MAX_FLAWED,
    max_mutants: int = DEFAULT_MAX_MUTANTS,
    mutant_orders: Sequence[int] = (1, 2),
    pool_seed: int = DEFAULT_POOL_SEED,
    pool_size: int = DEFAULT_POOL_SIZE,
    jobs: int | None = None,
    backend: str = "embedded",
    task_ids: Sequence[str] | None = None,
    every: int = 1,
    task_seconds: float | None = DEFAULT_TASK_SECONDS,
    task_steps: int | None = DEFAULT_TASK_STEPS,
    progress: ProgressOption = None,
    executor: Executor | None = None,
    cache: Path | None = None,
) -> PowerReport:
    """Measure every suite against the same items, generated from the first suite's tasks and
    judged on a pool of inputs generated independently of every suite.

    Only the tasks every suite has are compared (the others are listed in ``left_out``);
    ``every=n`` keeps every n-th of them in sorted order (a deterministic subset). Tasks run on
    ``executor`` (default: ``jobs`` local worker processes). ``cache``: a directory of finished
    phases (:mod:`.cache`), read instead of running them again and written as they finish, so an
    interrupted run resumes and a suite already measured beside others is not measured again.
    """
    from veriscale.backends.select import resolve_backend_name

    if not suites:
        raise ValueError("no suite given")
    started = time.perf_counter()
    engine = resolve_backend_name(backend)
    loaded = [load_benchmark(path) for path in suites]
    by_suite = [{t.id: t for t in load.tasks} for load in loaded]
    common = set(by_suite[0])
    for tasks in by_suite[1:]:
        common &= set(tasks)
    every_id = set().union(*(set(tasks) for tasks in by_suite)) | {
        f.task for load in loaded for f in load.failures if f.task
    }
    left_out = {
        task_id: [str(path) for path, tasks in zip(suites, by_suite, strict=True) if task_id not in tasks]
        for task_id in sorted(every_id - common)
    }
    ids = sorted(common)
    if task_ids:
        wanted = set(task_ids)
        ids = [i for i in ids if i in wanted]
    ids = ids[:: max(1, every)]
    units = [
        _Unit(tuple(tasks[i] for tasks in by_suite), seed, max_flawed, max_mutants, tuple(mutant_orders),
              pool_seed, pool_size, task_seconds, task_steps, cache=str(cache) if cache is not None else None)
        for i in ids
    ]
    # Biggest tasks first keeps the workers busy until the end.
    units.sort(key=lambda u: -sum(len(t.tests) for t in u.suites))
    results = (executor or LocalExecutor(jobs)).map(
        _run_unit, units, setup=worker_engine_setup(engine), crashed=_crashed_unit,
        split=_split_unit, merge=_merge, progress=as_progress(progress, "power"),
        memory_limit=worker_memory_limit(engine),
    )
    results.sort(key=lambda r: r.power.task)
    settings = {"seed": seed, "max_flawed": max_flawed, "max_mutants": max_mutants,
                "mutant_orders": list(mutant_orders), "pool_seed": pool_seed, "pool_size": pool_size}
    return _summarise(suites, results, left_out, settings, time.perf_counter() - started)


def _summarise(
    suites: Sequence[Path],
    results: Sequence[_UnitResult],
    left_out: dict[str, list[str]],
    settings: dict[str, Any],
    seconds: float,
) -> PowerReport:
    kinds = ("precond", "postcond", "code")
    generated = {k: sum(r.generated.get(k, 0) for r in results) for k in kinds}
    items: list[ItemResult] = [i for r in results for i in r.power.items]
    counted = [i for i in items if i.status == "counted"]
    family_totals: dict[str, int] = {}
    for i in counted:
        if i.kind != "code":
            family_totals[i.family] = family_totals.get(i.family, 0) + 1
    rows: list[SuitePower] = []
    for s, path in enumerate(suites):
        caught = [i for i in counted if s in i.caught_by]
        rows.append(_suite_row(str(path), s, results, counted, caught))
    return PowerReport(
        suites=rows,
        tasks=[r.power.task for r in results],
        left_out=left_out,
        **settings,
        pool_inputs=sum(r.power.pool_inputs for r in results),
        tasks_pool_out_of_time=sorted(r.power.task for r in results if r.power.pool_out_of_time),
        items_generated=generated,
        items_equivalent={k: sum(1 for i in items if i.kind == k and i.status == "equivalent") for k in kinds},
        items_undetermined={k: sum(1 for i in items if i.kind == k and i.status == "undetermined") for k in kinds},
        items_unsafe=sum(1 for i in items if i.status == "unsafe"),
        family_totals=dict(sorted(family_totals.items())),
        mutants_identical_to_expand=sum(r.identical for r in results),
        mutants_sharing_an_edit_with_expand=sum(r.sharing for r in results),
        tasks_out_of_time=sorted(r.power.task for r in results if r.power.out_of_time),
        task_errors={r.power.task: r.power.error for r in results if r.power.error},
        seconds=round(seconds, 2),
        per_task=list(x.power for x in results),
    )


def _suite_row(
    path: str, s: int, results: Sequence[_UnitResult], counted: Sequence[ItemResult], caught: Sequence[ItemResult]
) -> SuitePower:
    """Suite ``s``'s row: sizes, catches per item kind and order, and their intervals."""
    parts = [r.power.parts[s] for r in results if r.power.parts]
    by_family: dict[str, int] = {}
    for i in caught:
        if i.kind != "code":
            by_family[i.family] = by_family.get(i.family, 0) + 1
    groups: dict[str, Callable[[ItemResult], bool]] = {
        "flawed_specs": lambda i: i.kind != "code",
        "flawed_precond": lambda i: i.kind == "precond",
        "flawed_postcond": lambda i: i.kind == "postcond",
        "mutants": lambda i: i.kind == "code",
        "mutants1": lambda i: i.kind == "code" and i.order == 1,
        "mutants2": lambda i: i.kind == "code" and i.order == 2,
    }
    hits = {name: sum(1 for i in caught if keep(i)) for name, keep in groups.items()}
    totals = {name: sum(1 for i in counted if keep(i)) for name, keep in groups.items()}
    return SuitePower(
        path=path,
        checks=sum(r.power.checks[s] for r in results if r.power.checks),
        tests=sum(p[0] for p in parts),
        unexpected=sum(p[1] for p in parts),
        reject_inputs=sum(p[2] for p in parts),
        flawed_specs_caught=hits["flawed_specs"],
        flawed_specs_total=totals["flawed_specs"],
        mutants_killed=hits["mutants"],
        mutants_total=totals["mutants"],
        flawed_precond_caught=hits["flawed_precond"],
        flawed_precond_total=totals["flawed_precond"],
        flawed_postcond_caught=hits["flawed_postcond"],
        flawed_postcond_total=totals["flawed_postcond"],
        mutants1_killed=hits["mutants1"],
        mutants1_total=totals["mutants1"],
        mutants2_killed=hits["mutants2"],
        mutants2_total=totals["mutants2"],
        undetermined=sum(1 for i in counted if s in i.undetermined_for),
        caught_by_family=dict(sorted(by_family.items())),
        intervals={name: wilson_interval(hits[name], totals[name]) for name in groups},
    )


def _rate(part: int, whole: int, interval: tuple[float, float] | None = None) -> str:
    """``part/whole share% [low-high]`` with the 95 % Wilson interval."""
    if not whole:
        return f"{part}/{whole} -"
    low, high = interval if interval is not None else wilson_interval(part, whole)
    return f"{part}/{whole} {100 * part / whole:5.1f}% [{100 * low:.0f}-{100 * high:.0f}]"


_COLUMNS = (
    ("flawed specs caught", "flawed_specs_caught", "flawed_specs_total", "flawed_specs"),
    ("1st-order mutants killed", "mutants1_killed", "mutants1_total", "mutants1"),
    ("2nd-order mutants killed", "mutants2_killed", "mutants2_total", "mutants2"),
)


def format_power(report: PowerReport) -> str:
    """The table the CLI prints, and the notes that go with it (rates with 95 % Wilson intervals)."""
    table = new_table("suite", "checks", *(title for title, *_ in _COLUMNS),
                      right=["checks", *(title for title, *_ in _COLUMNS)])
    for s in report.suites:
        add_row(table, Path(s.path).name, f"{s.checks:,}",
                *(_rate(getattr(s, hit), getattr(s, total), s.intervals.get(name)) for _, hit, total, name in _COLUMNS))
    lines = [render(table)]
    lines.append("")
    lines.append(f"{len(report.tasks)} task(s) compared; seed {report.seed}; up to {report.max_flawed} flawed "
                 f"pre/postconditions each and {report.max_mutants} mutants of each order "
                 f"({', '.join(map(str, report.mutant_orders))}) per task; [95% Wilson interval]")
    lines.append(f"judging pool: {report.pool_inputs} inputs (seed {report.pool_seed}, up to {report.pool_size} "
                 "per task), generated independently of every suite; an item counts only when the pool "
                 "tells it apart from the ground truth")
    gen, eq, und = report.items_generated, report.items_equivalent, report.items_undetermined
    lines.append(
        "generated: " + ", ".join(f"{k} {gen.get(k, 0)}" for k in gen)
        + "; equivalent on the pool: " + ", ".join(f"{k} {eq.get(k, 0)}" for k in eq)
        + (f"; undetermined (pool budget): {sum(und.values())}" if sum(und.values()) else "")
        + (f"; unsafe: {report.items_unsafe}" if report.items_unsafe else "")
    )
    lines.append(
        f"mutants identical to one of expand's adversaries: {report.mutants_identical_to_expand}; "
        f"sharing one edit with them: {report.mutants_sharing_an_edit_with_expand}"
    )
    for s in report.suites:
        if s.undetermined:
            lines.append(f"{Path(s.path).name}: {s.undetermined} counted item(s) not reached within its budget "
                         "(not caught)")
    for task_id, lacking in report.left_out.items():
        names = ", ".join(Path(p).name for p in lacking)
        lines.append(f"left out: {task_id} (missing or not loadable in {names})")
    if report.tasks_pool_out_of_time:
        lines.append(f"pool phase out of budget: {', '.join(report.tasks_pool_out_of_time)}")
    if report.tasks_out_of_time:
        lines.append(f"a suite's phase out of budget: {', '.join(report.tasks_out_of_time)}")
    for task, error in report.task_errors.items():
        lines.append(f"error: {task}: {error}")
    lines.append(f"{report.seconds:.1f} s")
    return "\n".join(lines)
