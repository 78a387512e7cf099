"""The power table: several suites against the same flawed specifications and mutants.

    python benchmarks/power_table.py ../shared/data/verina ../shared/data/verinaplus \
        ../shared/data/verinalite runs/ours-plus runs/ours-lite --json power.json [--every 5]
    python benchmarks/power_table.py --from-json power.json --relative-to ours-plus

Prints, per suite: checks, flawed specs caught, first- and second-order mutants killed (each with a
95 % Wilson interval), and all of it relative to a reference suite (the first unless
``--relative-to`` names another): its power as a share of the reference's (caught / reference
caught) and its size as a share of the reference's checks. The first suite's tasks are the ground
truth the items are generated from; which items count is decided on a judging pool generated
independently of every suite, so the denominators are the same for all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from veriscale.stages.power import (
    DEFAULT_MAX_FLAWED,
    DEFAULT_MAX_MUTANTS,
    DEFAULT_SEED,
    DEFAULT_TASK_SECONDS,
    DEFAULT_TASK_STEPS,
    PowerReport,
    format_power,
    measure_power,
)
from veriscale.stages.power.pool import DEFAULT_POOL_SIZE


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:6.1f}%" if whole else "      -"


def relative_table(suites: list[dict[str, object]], reference: str | None) -> str:
    """Power and size of every suite relative to the reference suite (by directory name).

    Power is the share of the reference's catches: flawed specs, first-order and second-order
    mutants, and all items together; size is the share of its checks (tests + unexpected outputs
    + reject inputs). The denominators are the same for every suite (the judging pool's)."""
    names = [Path(str(s["path"])).name for s in suites]
    ref = suites[names.index(reference)] if reference in names else suites[0]
    ref_name = Path(str(ref["path"])).name
    width = max([len(n) for n in names] + [5])

    def num(row: dict[str, object], key: str) -> int:
        value = row.get(key, 0)
        assert isinstance(value, int)
        return value

    def both(row: dict[str, object]) -> int:
        return num(row, "flawed_specs_caught") + num(row, "mutants_killed")

    lines = [
        f"relative to {ref_name}:",
        f"{'suite':<{width}}  {'tests':>7}  {'checks':>9}  {'size':>7}  {'specs':>7}  {'mut1':>7}  {'mut2':>7}  "
        f"{'all':>7}",
    ]
    for name, row in zip(names, suites, strict=True):
        lines.append(
            f"{name:<{width}}  {num(row, 'tests'):>7,}  {num(row, 'checks'):>9,}  "
            f"{_share(num(row, 'checks'), num(ref, 'checks')):>7}  "
            f"{_share(num(row, 'flawed_specs_caught'), num(ref, 'flawed_specs_caught')):>7}  "
            f"{_share(num(row, 'mutants1_killed'), num(ref, 'mutants1_killed')):>7}  "
            f"{_share(num(row, 'mutants2_killed'), num(ref, 'mutants2_killed')):>7}  "
            f"{_share(both(row), both(ref)):>7}"
        )
    return "\n".join(lines)


def family_table(suites: list[dict[str, object]], totals: dict[str, int]) -> str:
    """Flawed specifications caught per operator family (which kinds a suite misses)."""
    names = [Path(str(s["path"])).name for s in suites]
    width = max(len(f) for f in [*totals, "family"])
    lines = [f"{'family':<{width}}  {'total':>6}" + "".join(f"  {n[:12]:>12}" for n in names)]
    for family, total in sorted(totals.items(), key=lambda kv: -kv[1]):
        cells = "".join(
            f"  {dict(s['caught_by_family']).get(family, 0):>12}" for s in suites  # type: ignore[call-overload]
        )
        lines.append(f"{family:<{width}}  {total:>6}{cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suites", nargs="*", type=Path)
    parser.add_argument("--json", type=Path, help="write the power report here")
    parser.add_argument("--from-json", type=Path, help="print the tables of an existing report")
    parser.add_argument("--relative-to", help="directory name of the reference suite (default: the first)")
    parser.add_argument("--every", type=int, default=1, help="only every n-th task (a deterministic subset)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--max-flawed", type=int, default=DEFAULT_MAX_FLAWED)
    parser.add_argument("--max-mutants", type=int, default=DEFAULT_MAX_MUTANTS, help="per mutant order")
    parser.add_argument("--pool-size", type=int, default=DEFAULT_POOL_SIZE, help="judging-pool inputs per task")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--task-steps", type=int, default=DEFAULT_TASK_STEPS, help="engine steps per task")
    parser.add_argument("--task-seconds", type=float, default=DEFAULT_TASK_SECONDS, help="wall-clock backstop per task")
    parser.add_argument("--task", action="append", default=None, help="only these task ids (repeatable)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="directory of finished phases: reused, and written as they finish (resumable)")
    args = parser.parse_args(argv)

    if args.from_json is not None:
        data = json.loads(args.from_json.read_text(encoding="utf-8"))
        print(format_power(PowerReport.model_validate(data)))
    else:
        if not args.suites:
            parser.error("give suite directories or --from-json")
        started = time.perf_counter()
        report = measure_power(
            args.suites, seed=args.seed, max_flawed=args.max_flawed, max_mutants=args.max_mutants,
            pool_size=args.pool_size, jobs=args.jobs, every=args.every, task_seconds=args.task_seconds, task_steps=args.task_steps,
            task_ids=args.task, cache=args.cache,
        )
        print(format_power(report))
        print(f"wall clock {time.perf_counter() - started:.1f} s")
        data = report.to_json()
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"wrote {args.json}")
    suites = data["suites"]
    print()
    print(relative_table(suites, args.relative_to))
    print()
    print(family_table(suites, data.get("family_totals", {})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
