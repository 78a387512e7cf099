"""``veriscale power``: several suites measured against the same flawed specifications and mutants."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from veriscale.backends.base import Backend
from veriscale.benchmark import load_benchmark
from veriscale.parallel import (
    Executor,
    LocalExecutor,
    ProgressOption,
    WorkerSetup,
    as_progress,
    worker_memory_limit,
)
from veriscale.power.evaluate import ItemResult, TaskPower, evaluate_task
from veriscale.power.items import (
    DEFAULT_MAX_FLAWED,
    DEFAULT_MAX_MUTANTS,
    DEFAULT_SEED,
    expand_overlap,
    power_items,
)
from veriscale.task import Task

__all__ = ["DEFAULT_TASK_SECONDS", "DEFAULT_TASK_STEPS", "PowerReport", "SuitePower", "format_power", "measure_power"]

DEFAULT_TASK_STEPS = 30_000_000
"""Engine steps one task may spend on all of its items (over every suite); the items left are
``undetermined``. Deterministic, so the same suites give the same table on any machine. Measured
against Verina, VerinaPlus, VerinaLite and our two suites: the heaviest tasks finish in 16.7
million (verina_advanced_43), 20.4 million (verina_basic_54) and 24.8 million (verina_advanced_9)
steps, in 160-320 s, since much of the work (building each item's program, say) is not counted
in steps; one task of cheap steps, verina_advanced_74, reaches the budget in under a minute with
29 of its 47 items left. A higher budget decides those at the price of tasks that run for many
minutes."""
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
    caught_by_family: dict[str, int]
    """Flawed specifications caught, per operator family."""

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
    mutant_order: int
    items_generated: dict[str, int]
    items_equivalent: dict[str, int]
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
    mutant_order: int
    seconds: float | None
    steps: int | None
    kinds: tuple[str, ...] = ("precond", "postcond", "code")


@dataclass
class _UnitResult:
    power: TaskPower
    generated: dict[str, int]
    identical: int
    sharing: int


_WORKER_BACKEND: Backend | None = None


def _worker_init(backend_name: str) -> None:
    global _WORKER_BACKEND
    from veriscale.backends.select import make_backend

    _WORKER_BACKEND = make_backend(backend_name)


def _worker_close() -> None:
    global _WORKER_BACKEND
    if _WORKER_BACKEND is not None:
        _WORKER_BACKEND.close()
    _WORKER_BACKEND = None


def _run_unit(unit: _Unit) -> _UnitResult:
    assert _WORKER_BACKEND is not None
    truth = unit.suites[0]
    try:
        items = [
            i
            for i in power_items(
                truth, seed=unit.seed, max_flawed=unit.max_flawed, max_mutants=unit.max_mutants,
                mutant_order=unit.mutant_order,
            )
            if i.kind in unit.kinds
        ]
        generated = {k: sum(1 for i in items if i.kind == k) for k in unit.kinds}
        identical, sharing = expand_overlap(truth, [i for i in items if i.kind == "code"]) if "code" in unit.kinds else (0, 0)
        power = evaluate_task(unit.suites, items, _WORKER_BACKEND, seconds=unit.seconds, steps=unit.steps)
        return _UnitResult(power, generated, identical, sharing)
    except Exception as exc:  # noqa: BLE001 - one broken task must not end the run
        return _UnitResult(TaskPower(task=truth.id, error=f"internal {type(exc).__name__}: {exc}"[:300]), {}, 0, 0)


def _split_unit(unit: _Unit) -> list[_Unit]:
    if len(unit.kinds) <= 1:
        return [unit]
    return [_Unit(unit.suites, unit.seed, unit.max_flawed, unit.max_mutants, unit.mutant_order, unit.seconds,
                  unit.steps, (k,))
            for k in unit.kinds]


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
    mutant_order: int = 2,
    jobs: int | None = None,
    backend: str = "embedded",
    task_ids: Sequence[str] | None = None,
    every: int = 1,
    task_seconds: float | None = DEFAULT_TASK_SECONDS,
    task_steps: int | None = DEFAULT_TASK_STEPS,
    progress: ProgressOption = None,
    executor: Executor | None = None,
) -> PowerReport:
    """Measure every suite against the same items, generated from the first suite's tasks.

    Only the tasks every suite has are compared (the others are listed in ``left_out``);
    ``every=n`` keeps every n-th of them in sorted order (a deterministic subset). Tasks run on
    ``executor`` (default: ``jobs`` local worker processes).
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
        _Unit(tuple(tasks[i] for tasks in by_suite), seed, max_flawed, max_mutants, mutant_order, task_seconds,
              task_steps)
        for i in ids
    ]
    # Biggest tasks first keeps the workers busy until the end.
    units.sort(key=lambda u: -sum(len(t.tests) for t in u.suites))
    results = (executor or LocalExecutor(jobs)).map(
        _run_unit, units, setup=WorkerSetup(_worker_init, (engine,), _worker_close), crashed=_crashed_unit,
        split=_split_unit, merge=_merge, progress=as_progress(progress, "power"),
        memory_limit=worker_memory_limit(engine),
    )
    results.sort(key=lambda r: r.power.task)
    return _summarise(suites, results, left_out, seed, max_flawed, max_mutants, mutant_order,
                      time.perf_counter() - started)


def _summarise(
    suites: Sequence[Path],
    results: Sequence[_UnitResult],
    left_out: dict[str, list[str]],
    seed: int,
    max_flawed: int,
    max_mutants: int,
    mutant_order: int,
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
        sizes = [r.power.checks[s] for r in results if r.power.checks]
        tests = sum(r.power.parts[s][0] for r in results if r.power.parts)
        unexpected = sum(r.power.parts[s][1] for r in results if r.power.parts)
        rejects = sum(r.power.parts[s][2] for r in results if r.power.parts)
        caught = [i for i in counted if s in i.caught_by]
        by_family: dict[str, int] = {}
        for i in caught:
            if i.kind != "code":
                by_family[i.family] = by_family.get(i.family, 0) + 1
        rows.append(
            SuitePower(
                path=str(path),
                checks=sum(sizes),
                tests=tests,
                unexpected=unexpected,
                reject_inputs=rejects,
                flawed_specs_caught=sum(1 for i in caught if i.kind != "code"),
                flawed_specs_total=sum(1 for i in counted if i.kind != "code"),
                mutants_killed=sum(1 for i in caught if i.kind == "code"),
                mutants_total=sum(1 for i in counted if i.kind == "code"),
                flawed_precond_caught=sum(1 for i in caught if i.kind == "precond"),
                flawed_precond_total=sum(1 for i in counted if i.kind == "precond"),
                flawed_postcond_caught=sum(1 for i in caught if i.kind == "postcond"),
                flawed_postcond_total=sum(1 for i in counted if i.kind == "postcond"),
                caught_by_family=dict(sorted(by_family.items())),
            )
        )
    return PowerReport(
        suites=rows,
        tasks=[r.power.task for r in results],
        left_out=left_out,
        seed=seed,
        max_flawed=max_flawed,
        max_mutants=max_mutants,
        mutant_order=mutant_order,
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


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def format_power(report: PowerReport) -> str:
    """The table the CLI prints, and the notes that go with it."""
    width = max([len(Path(s.path).name) for s in report.suites] + [5])
    lines = [
        f"{'suite':<{width}}  {'checks':>9}  {'flawed specs caught':>26}  {'mutants killed':>24}",
    ]
    for s in report.suites:
        lines.append(
            f"{Path(s.path).name:<{width}}  {s.checks:>9,}  "
            f"{f'{s.flawed_specs_caught}/{s.flawed_specs_total}':>18} {_pct(s.flawed_specs_caught, s.flawed_specs_total)}  "
            f"{f'{s.mutants_killed}/{s.mutants_total}':>16} {_pct(s.mutants_killed, s.mutants_total)}"
        )
    lines.append("")
    lines.append(f"{len(report.tasks)} task(s) compared; seed {report.seed}; "
                 f"up to {report.max_flawed} flawed pre/postconditions each and {report.max_mutants} "
                 f"order-{report.mutant_order} mutants per task")
    gen, eq, und = report.items_generated, report.items_equivalent, report.items_undetermined
    lines.append(
        "generated: " + ", ".join(f"{k} {gen.get(k, 0)}" for k in gen)
        + "; equivalent on every suite's rows: " + ", ".join(f"{k} {eq.get(k, 0)}" for k in eq)
        + (f"; undetermined (budget): {sum(und.values())}" if sum(und.values()) else "")
        + (f"; unsafe: {report.items_unsafe}" if report.items_unsafe else "")
    )
    lines.append(
        f"mutants identical to one of expand's adversaries: {report.mutants_identical_to_expand}; "
        f"sharing one edit with them: {report.mutants_sharing_an_edit_with_expand}"
    )
    for task_id, lacking in report.left_out.items():
        names = ", ".join(Path(p).name for p in lacking)
        lines.append(f"left out: {task_id} (missing or not loadable in {names})")
    if report.tasks_out_of_time:
        lines.append(f"out of budget (items left undetermined): {', '.join(report.tasks_out_of_time)}")
    for task, error in report.task_errors.items():
        lines.append(f"error: {task}: {error}")
    lines.append(f"{report.seconds:.1f} s")
    return "\n".join(lines)
