"""The Ray executor on a real two-node Ray cluster on this machine: the same bytes as local processes.

One cluster for the module (starting it is most of the time). Skipped when Ray is not installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import EXAMPLES_DIR

from veriscale.parallel import RayExecutor, WorkerSetup, ray_runtime_env

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = pytest.mark.ray

MINI = EXAMPLES_DIR / "mini"


@pytest.fixture(scope="module")
def two_node_cluster() -> Iterator[object]:
    cluster = cluster_utils.Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1)
        # The actors import this module (its work functions travel by reference) and veriscale.
        env = ray_runtime_env()
        env["env_vars"]["PYTHONPATH"] += os.pathsep + str(Path(__file__).parent)
        ray.init(address=cluster.address, runtime_env=env, log_to_driver=False)
        try:
            yield cluster
        finally:
            ray.shutdown()
    finally:
        cluster.shutdown()


# --- module-level work (it travels to the actors by reference) -------------------------------

_STATE: dict[str, str] = {}


def _remember(value: str) -> None:
    _STATE["value"] = value


def _where(n: int) -> tuple[int, str, str, str]:
    """Where the unit ran (node, veriscale's checkout) and what the setup left; dies on negatives."""
    import veriscale

    if n < 0:
        os._exit(7)  # what a C stack overflow looks like: the actor's process is gone
    return n, ray.get_runtime_context().get_node_id(), veriscale.__file__, _STATE.get("value", "unset")


def _crashed(n: int, reason: str) -> tuple[int, str, str, str]:
    assert "crashed twice" in reason
    return n, "", "", "crashed"


def _raise_on_three(n: int) -> int:
    if n == 3:
        raise ValueError("three is a configuration error")
    return n


# --- the executor's contract on Ray ------------------------------------------------------------


def test_units_run_set_up_on_both_nodes_in_input_order_and_a_dying_actor_costs_only_its_unit(
    two_node_cluster: object,
) -> None:
    import veriscale

    seen: list[tuple[int, int]] = []
    units = [0, 1, -1, 2, 3, 4, 5]
    results = RayExecutor(workers=2).map(_where, units, crashed=_crashed, setup=WorkerSetup(_remember, ("ready",)),
                                         progress=lambda done, total: seen.append((done, total)))
    assert [n for n, _, _, _ in results] == units
    assert results[2] == (-1, "", "", "crashed")  # died, retried alone, died again
    survivors = [r for r in results if r[0] >= 0]
    assert {path for _, _, path, _ in survivors} == {veriscale.__file__}  # this checkout, not another
    assert {state for _, _, _, state in survivors} == {"ready"}
    assert len({node for _, node, _, _ in survivors}) == 2  # both nodes worked
    assert seen[0] == (0, 7) and seen[-1] == (7, 7)


def test_an_exception_from_the_work_ends_the_run(two_node_cluster: object) -> None:
    with pytest.raises(ValueError, match="configuration error"):
        RayExecutor(workers=2).map(_raise_on_three, list(range(5)), crashed=_crashed)


# --- a stage on Ray writes the same bytes as on local processes ---------------------------------


def test_expand_on_ray_writes_the_same_suite_as_local_processes(two_node_cluster: object, tmp_path: Path) -> None:
    from stages.expand.test_expand import SMALL, _files, _summaries_without_times

    from veriscale.stages.expand import expand_benchmark

    local = tmp_path / "local"
    on_ray = tmp_path / "ray"
    expand_benchmark(MINI, local, jobs=2, progress=False, options=SMALL)
    expand_benchmark(MINI, on_ray, progress=False, options=SMALL, executor=RayExecutor(workers=2))
    local_files = _files(local)
    assert len([name for name in local_files if name.endswith("task.json")]) == 4
    assert _files(on_ray) == local_files
    assert _summaries_without_times(on_ray) == _summaries_without_times(local)


def test_score_on_ray_gives_the_same_report_as_local_processes(two_node_cluster: object) -> None:
    from veriscale.benchmark import load_benchmark
    from veriscale.stages.score import ground_truth_submission, score_suite

    submissions = [ground_truth_submission(t) for t in load_benchmark(MINI).tasks]
    local = score_suite(MINI, submissions, workers=2, progress=False)
    on_ray = score_suite(MINI, submissions, progress=False, executor=RayExecutor(workers=2))
    # what may differ: timings, the date, and the options that say how the work was run
    times = {"seconds": True, "tasks": {"__all__": {"seconds"}}, "provenance": {"date", "options"}}
    assert on_ray.model_dump(exclude=times) == local.model_dump(exclude=times)
    assert local.checks > 0
