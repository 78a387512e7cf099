#!/usr/bin/env python3
"""Local processes against Ray: the time of ``expand`` and ``score`` on Verina, and the same bytes out.

Expands the benchmark (LLM-free, embedded engine) once with the local executor and once with the
Ray executor on a two-node Ray cluster started on this machine (``ray.cluster_utils.Cluster``,
``--cpus-per-node`` CPUs each; or the cluster at ``--address``), then scores the expanded suite's
ground truth both ways. Prints the wall-clock seconds of each run, the speed-up (local / Ray), the
cluster's start-up time (not counted in the Ray times), and checks that both expansions wrote
byte-identical suites (every task's files but ``summary.json``, which holds timings) and that
both score reports are equal apart from timings. Exit code 1 when anything differs.

    python benchmarks/executor_speed.py                          # all of ../shared/data/verina
    python benchmarks/executor_speed.py --every 10 --task-steps 2000000   # a quick sample
    python benchmarks/executor_speed.py --address 10.0.0.5:6379 --workers 16

On one machine both executors share the same cores, so the speed-up measures Ray's overhead
(actor start-up, object transfer) rather than a gain; the gain comes from more machines.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))


def _default_data() -> Path:
    return Path(os.environ.get("VERISCALE_DATA", PROJECT_ROOT.parent / "shared" / "data")) / "verina"


def _suite_files(root: Path) -> dict[str, bytes]:
    """Every file of a suite but the run store and the summaries (which hold timings)."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.name.startswith("run.sqlite") and path.name != "summary.json"
    }


def _differing_tasks(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    return sorted({name.split("/")[0] for name in set(a) | set(b) if a.get(name) != b.get(name)})


def _start_cluster(cpus_per_node: int) -> Any:
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": cpus_per_node, "include_dashboard": False})
    cluster.add_node(num_cpus=cpus_per_node)
    return cluster


def _timed(label: str, run: Any) -> tuple[Any, float]:
    print(f"{label} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    result = run()
    return result, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmark", nargs="?", type=Path, default=_default_data())
    parser.add_argument("--workers", type=int, default=2, help="workers of each executor (default: 2)")
    parser.add_argument("--cpus-per-node", type=int, default=1, help="CPUs of each of the two local Ray nodes")
    parser.add_argument("--address", default=None, help="use this Ray cluster instead of starting one")
    parser.add_argument("--every", type=int, default=1, help="only every n-th task, in sorted order")
    parser.add_argument("--task-steps", type=int, default=None, help="expand's per-task step budget")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--keep", type=Path, default=None, help="write the suites here instead of a temp dir")
    args = parser.parse_args(argv)

    import ray

    from veriscale.benchmark import load_benchmark
    from veriscale.parallel import LocalExecutor, RayExecutor, ray_runtime_env
    from veriscale.stages.expand import ExpandOptions, expand_benchmark
    from veriscale.stages.score import ground_truth_submission, score_suite

    ids = sorted(t.id for t in load_benchmark(args.benchmark).tasks)[:: max(1, args.every)]
    options = ExpandOptions() if args.task_steps is None else ExpandOptions(task_steps=args.task_steps)
    work = args.keep or Path(tempfile.mkdtemp(prefix="executor-speed-"))
    for name in ("local", "ray"):
        shutil.rmtree(work / name, ignore_errors=True)

    load_before = os.getloadavg()[0]
    cluster = None
    started = time.perf_counter()
    if args.address is None:
        cluster = _start_cluster(args.cpus_per_node)
    ray.init(address=args.address or cluster.address, runtime_env=ray_runtime_env(), log_to_driver=False)
    cluster_seconds = time.perf_counter() - started
    nodes = len([n for n in ray.nodes() if n["Alive"]])
    try:
        local = LocalExecutor(args.workers)
        on_ray = RayExecutor(args.workers)

        def expand(executor: Any, name: str) -> Any:
            return expand_benchmark(args.benchmark, work / name, seed=args.seed, options=options, task_ids=ids,
                                    progress=False, executor=executor)

        expanded_local, expand_local_s = _timed("expand, local", lambda: expand(local, "local"))
        _, expand_ray_s = _timed("expand, Ray", lambda: expand(on_ray, "ray"))
        differing = _differing_tasks(_suite_files(work / "local"), _suite_files(work / "ray"))

        suite = work / "local"
        submissions = [ground_truth_submission(t) for t in load_benchmark(suite).tasks]
        scored_local, score_local_s = _timed(
            "score, local", lambda: score_suite(suite, submissions, progress=False, executor=local))
        scored_ray, score_ray_s = _timed(
            "score, Ray", lambda: score_suite(suite, submissions, progress=False, executor=on_ray))
        # timings and the date scoring started are the only fields that may differ
        times = {"seconds": True, "tasks": {"__all__": {"seconds"}}, "provenance": {"date"}}
        same_scores = scored_local.model_dump(exclude=times) == scored_ray.model_dump(exclude=times)
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()

    print(f"benchmark: {args.benchmark} ({len(ids)} tasks{f', every {args.every}th' if args.every > 1 else ''}); "
          f"{args.workers} workers each; load average before: {load_before:.1f}")
    print(f"Ray cluster: {nodes} nodes, started in {cluster_seconds:.1f} s (not counted below)")
    print(f"{'':8}{'local s':>10}{'Ray s':>10}{'speed-up':>10}")
    for label, a, b in (("expand", expand_local_s, expand_ray_s), ("score", score_local_s, score_ray_s)):
        print(f"{label:8}{a:>10.1f}{b:>10.1f}{a / b:>9.2f}x")
    print(f"expand: {expanded_local.tasks_expanded} expanded, {expanded_local.tasks_failed} failed, "
          f"budget hits {expanded_local.budget_hits or 'none'}; checks {expanded_local.checks_before} -> "
          f"{expanded_local.checks_after}")
    print(f"suites byte-identical: {'yes' if not differing else 'NO'} ({len(ids) - len(differing)}/{len(ids)} tasks)")
    for task in differing:
        print(f"  differs: {task}")
    print(f"score reports equal: {'yes' if same_scores else 'NO'} ({scored_local.checks} checks)")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if not differing and same_scores else 1


if __name__ == "__main__":
    sys.exit(main())
