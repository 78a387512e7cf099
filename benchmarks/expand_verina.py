#!/usr/bin/env python3
"""LLM-free ``expand`` of a whole benchmark (Verina by default): time, counts, growth, invariants.

Runs :func:`veriscale.stages.expand.expand_benchmark` with the embedded backend and no LLM, then audits
the written suite (``veriscale.stages.expand.audit``) and prints:

* wall-clock time, tasks expanded / failed / stopped by a budget (which one), slowest tasks;
* candidate inputs by source (generated, duplicates, accept, reject, unknown, dropped);
* adversaries by source (generated, unsafe, all-unknown, equivalent, kept, killed);
* checks before and after (tests + unexpected outputs + reject inputs) and the growth factor;
* duplicate inputs and truncated or unreadable values in the written suite (both must be 0);
* how many of the original unexpected outputs the ground truth does not reject;
* the step calibration: engine steps and checks against CPU seconds per task (what
  ``expand.deadline.STEPS_PER_SECOND`` and ``CHECK_CHARGE_STEPS`` are set from).

With ``--twice`` the expansion runs a second time into a fresh directory (same seed) and every
task's files are compared byte for byte: identical or not per task, and for the ones that differ
which budget stopped each run (a wall-clock limit is the expected cause; a step budget never is).

With ``--score-ground-truth`` the written suite is scored with the ground truth as the submission
(every task's own code, precondition and postcondition, not its proof): every metric the engine decides must be
1 -- a test the ground truth does not pass is a defect of the suite. Prints, per metric, the tasks
passed, undecided and failed, and every failure with its first reason; exit code 1 on a failure.

    python benchmarks/expand_verina.py                       # ../shared/data/verina, 2 workers
    python benchmarks/expand_verina.py --out /tmp/verina-plus --jobs 2
    python benchmarks/expand_verina.py --limit 10            # a quick sample
    python benchmarks/expand_verina.py --limit 20 --twice    # determinism on 20 tasks
    python benchmarks/expand_verina.py --tasks verina_basic_1,verina_advanced_5 --twice
    python benchmarks/expand_verina.py --out /tmp/verina-plus --score-ground-truth   # all of Verina

Rerunning with the same ``--out`` resumes (finished tasks are skipped); ``--fresh`` starts over.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _default_data() -> Path:
    return PROJECT_ROOT.parent / "shared" / "data" / "verina"


def _task_files(directory: Path) -> dict[str, bytes]:
    """A task directory's files except its summary (which holds timings)."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file() and p.name != "summary.json"}


def _compare_runs(first: Any, second: Any, out_a: Path, out_b: Path) -> list[str]:
    """Per task: byte-identical or not, and for those that differ, why (the budgets that fired)."""
    by_task = {t.task: t for t in second.tasks}
    identical = 0
    lines: list[str] = []
    for task in first.tasks:
        other = by_task.get(task.task)
        if other is not None and _task_files(out_a / task.task) == _task_files(out_b / task.task):
            identical += 1
            continue
        differing = sorted(
            name for name in set(_task_files(out_a / task.task)) | set(_task_files(out_b / task.task))
            if (out_a / task.task / name).is_file() != (out_b / task.task / name).is_file()
            or (out_a / task.task / name).read_bytes() != (out_b / task.task / name).read_bytes()
        )
        why = f"budget {task.budget_hit} / {other.budget_hit if other else '?'}"
        if task.engine_backstops or (other is not None and other.engine_backstops):
            why += (f", checks stopped by the engine's wall-clock backstop {task.engine_backstops} / "
                    f"{other.engine_backstops if other else '?'}")
        if other is not None and task.steps != other.steps:
            why += f", steps {task.steps} / {other.steps}"
        if other is not None and task.unknown_reasons != other.unknown_reasons:
            why += f", unknown answers {task.unknown_reasons} / {other.unknown_reasons}"
        if other is not None and task.unexpected.postcond_unknown != other.unexpected.postcond_unknown:
            why += f", undecided pairs {task.unexpected.postcond_unknown} / {other.unexpected.postcond_unknown}"
        lines.append(f"  {task.task}: differs in {', '.join(differing)} ({why})")
    header = (f"determinism: {identical}/{len(first.tasks)} tasks byte-identical across the two runs "
              "(a difference is expected only where a wall-clock limit fired in either run)")
    return [header, *lines]


def _calibration(summary: Any) -> list[str]:
    """Engine steps and checks against CPU seconds, per task: the least-squares fit
    cpu = steps / S + checks / C gives steps per second S and the per-check charge S / C."""
    from veriscale.stages.expand.budget import CHECK_CHARGE_STEPS, STEPS_PER_SECOND

    rows = [(t.steps, t.engine_checks, t.cpu_seconds) for t in summary.tasks if t.steps is not None and t.cpu_seconds]
    if not rows:
        return ["calibration: the engine reported no steps"]
    steps = sum(r[0] for r in rows)
    checks = sum(r[1] for r in rows)
    cpu = sum(r[2] for r in rows)
    charged = steps + CHECK_CHARGE_STEPS * checks
    lines = [
        f"calibration over {len(rows)} tasks: {steps:,} steps, {checks:,} checks, {cpu:.1f} CPU s; "
        f"{charged / cpu:,.0f} charged steps per CPU s (STEPS_PER_SECOND = {STEPS_PER_SECOND:,}, "
        f"CHECK_CHARGE_STEPS = {CHECK_CHARGE_STEPS:,})",
    ]
    # Normal equations of cpu ~ a * steps + b * checks (no intercept: a task of nothing costs nothing).
    sxx = sum(r[0] * r[0] for r in rows)
    sxy = sum(r[0] * r[1] for r in rows)
    syy = sum(r[1] * r[1] for r in rows)
    sxc = sum(r[0] * r[2] for r in rows)
    syc = sum(r[1] * r[2] for r in rows)
    det = sxx * syy - sxy * sxy
    if det > 0:
        a = (sxc * syy - syc * sxy) / det
        b = (syc * sxx - sxc * sxy) / det
        if a > 0 and b > 0:
            lines.append(f"  fit: {1 / a:,.0f} steps per CPU s, {b * 1e6:.0f} us per check "
                         f"(a per-check charge of {b / a:,.0f} steps)")
        else:
            lines.append(f"  fit: degenerate (a={a:.3g} s/step, b={b:.3g} s/check)")
    budget_hit = [t for t in summary.tasks if t.budget_hit is not None]
    if budget_hit:
        worst = sorted(budget_hit, key=lambda t: -t.cpu_seconds)[:5]
        lines.append("  stopped by a budget: " + ", ".join(
            f"{t.task} ({t.budget_hit}, {t.cpu_seconds:.0f} CPU s)" for t in worst))
    return lines


def ground_truth_failures(suite: Path, task_ids: list[str] | None, jobs: int, progress: bool) -> tuple[list[str], bool]:
    """Score the ground truth on ``suite``: per metric, tasks passed / undecided / failed, then every
    decided failure (a task and metric whose upper bound is 0) with its first reason."""
    from veriscale.benchmark import load_benchmark
    from veriscale.stages.score import SUBMITTABLE_SECTIONS, ground_truth_submission, score_suite

    tasks = [t for t in load_benchmark(suite).tasks if task_ids is None or t.id in task_ids]
    # Without the proof sections: Verina's reference proofs are mostly `sorry`, and proofs are
    # Lean's to check, not the engine's.
    sections = [s for s in SUBMITTABLE_SECTIONS if not s.startswith("proof")]
    report = score_suite(suite, [ground_truth_submission(t, sections) for t in tasks], workers=jobs,
                         progress=progress)
    lines = [f"ground truth scored on the written suite: {len(report.tasks)} tasks, {report.checks} checks, "
             f"{report.seconds:.0f} s; errors {len(report.errors)}"]
    failures: list[str] = []
    for metric in report.totals:
        bounds = [(score.task, score.bound(metric), score.reasons) for score in report.tasks]
        decided = [(task, b, reasons) for task, b, reasons in bounds if b is not None and b.lower == b.upper]
        failed = [(task, reasons) for task, b, reasons in decided if b.upper == 0]
        undecided = sum(1 for _, b, _ in bounds if b is not None and b.lower != b.upper)
        lines.append(f"  {metric:<26} 1 on {len(decided) - len(failed)}, undecided on {undecided}, "
                     f"0 on {len(failed)} task(s)")
        failures += [f"    {task} {metric}: {reasons[0][:160] if reasons else ''}" for task, reasons in failed]
    lines += failures
    lines.extend(f"    error: {error}" for error in report.errors)
    return lines, not failures and not report.errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="?", type=Path, default=_default_data())
    parser.add_argument("--out", type=Path, default=None, help="suite directory (default: a temporary one)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--task-steps", type=int, default=None,
                        help="per-task step budget (default: ExpandOptions' default)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="per-task wall-clock budget in seconds, for engines without steps (default: 120)")
    parser.add_argument("--backstop", type=float, default=None,
                        help="per-task wall-clock backstop in seconds (default: 900)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N tasks (by name)")
    parser.add_argument("--tasks", default=None, help="only these tasks (comma-separated ids)")
    parser.add_argument("--twice", action="store_true",
                        help="run a second time into a fresh directory and compare the suites byte for byte")
    parser.add_argument("--fresh", action="store_true", help="delete --out first")
    parser.add_argument("--score-ground-truth", action="store_true",
                        help="score the ground truth on the written suite: 1 on every metric the engine decides")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(PROJECT_ROOT))
    from veriscale.benchmark import load_benchmark
    from veriscale.stages.expand import ExpandOptions, expand_benchmark
    from veriscale.stages.expand.audit import audit_suite
    from veriscale.stages.expand.report import format_summary

    if not args.data.is_dir():
        print(f"no benchmark at {args.data}", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="veriscale-expand-"))
    if args.fresh and out.exists():
        shutil.rmtree(out)
    task_ids = None
    if args.tasks:
        task_ids = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if args.limit is not None:
        task_ids = (task_ids or sorted(t.id for t in load_benchmark(args.data).tasks))[: args.limit]
    given = {"task_steps": args.task_steps, "task_deadline_s": args.deadline, "task_backstop_s": args.backstop}
    options = ExpandOptions.model_validate({name: value for name, value in given.items() if value is not None})

    def run(target: Path) -> tuple[Any, float]:
        started = time.perf_counter()
        summary = expand_benchmark(
            args.data, target, seed=args.seed, backend_name="embedded", llm=None, jobs=args.jobs,
            progress=not args.no_progress, options=options, task_ids=task_ids,
        )
        return summary, time.perf_counter() - started

    summary, seconds = run(out)
    audit = audit_suite(out)

    print(f"\nsuite: {out}  (wall clock of this invocation: {seconds:.1f} s)")
    print(format_summary(summary, slowest=8))
    print(f"\naudit of the written suite: {audit.tasks} tasks, {audit.checks} checks, "
          f"duplicate inputs {audit.duplicate_inputs}, value problems {audit.value_problems or 0}, "
          f"kill-matrix errors {len(audit.kill_matrix_errors)}, load failures {len(audit.load_failures)}")
    for error in audit.kill_matrix_errors[:10]:
        print(f"  {error}")
    print()
    print("\n".join(_calibration(summary)))
    ok = audit.duplicate_inputs == 0 and not audit.value_problems and not audit.kill_matrix_errors

    if args.score_ground_truth:
        lines, passed = ground_truth_failures(out, task_ids, args.jobs, not args.no_progress)
        print()
        print("\n".join(lines))
        ok = ok and passed

    if args.twice:
        second_out = Path(tempfile.mkdtemp(prefix="veriscale-expand-again-"))
        second, seconds_again = run(second_out)
        print(f"\nsecond run: {second_out} ({seconds_again:.1f} s; {second.deadline_hits} task(s) stopped by a budget: "
              f"{second.budget_hits or 'none'})")
        print("\n".join(_compare_runs(summary, second, out, second_out)))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
