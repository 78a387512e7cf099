"""The executor: deterministic order, crash isolation, one retry alone, memory limit, progress."""

from __future__ import annotations

import os
import resource
from collections.abc import Sequence
from pathlib import Path

import pytest

from veriscale.parallel import (
    DEFAULT_MEMORY_LIMIT,
    ExecutorConfig,
    LocalExecutor,
    RayExecutor,
    WorkerSetup,
    make_executor,
)

# --- module-level work functions (they travel to the workers by reference) ---------------------

_STATE: dict[str, str] = {}


def _square(n: int) -> int:
    return n * n


def _slow_first(n: int) -> int:
    """The first units take longest, so completion order is not input order."""
    if n < 2:
        for _ in range(300_000):
            pass
    return n


def _die_on_negative(n: int) -> int:
    if n < 0:
        os._exit(7)  # what a C stack overflow looks like from the parent: the process is gone
    return n


def _die_once(path: str) -> str:
    """Dies the first time it sees ``path`` (a marker file records the visit), succeeds after."""
    marker = Path(path)
    if not marker.exists():
        marker.write_text("visited")
        os._exit(9)
    return marker.name


Parts = tuple[str, tuple[str, ...]]


def _parts_work(item: Parts) -> list[str]:
    name, parts = item
    if "boom" in parts:
        os._exit(3)
    return [f"{name}.{p}" for p in parts]


def _split(item: Parts) -> list[Parts]:
    name, parts = item
    return [(name, (p,)) for p in parts]


def _merge(results: Sequence[list[str]]) -> list[str]:
    return [r for part in results for r in part]


def _crashed_parts(item: Parts, reason: str) -> list[str]:
    name, parts = item
    return [f"{name}.{p}:crashed" for p in parts]


def _crashed_number(n: int, reason: str) -> int:
    assert "crashed twice" in reason
    return -1000


def _crashed_text(path: str, reason: str) -> str:
    return "crashed"


def _allocate(megabytes: int) -> str:
    try:
        block = bytearray(megabytes * 1024**2)
    except MemoryError:
        return "MemoryError"
    return f"allocated {len(block)}"


def _address_limit(_: int) -> int:
    return resource.getrlimit(resource.RLIMIT_AS)[0]


def _remember(value: str) -> None:
    _STATE["value"] = value


def _recall(_: int) -> str:
    return _STATE.get("value", "unset")


def _fail_setup() -> None:
    raise RuntimeError("no engine here")


def _raise_on_three(n: int) -> int:
    if n == 3:
        raise ValueError("three is a configuration error")
    return n


# --- the local executor ---------------------------------------------------------------------


def test_results_come_back_in_input_order_whatever_the_completion_order() -> None:
    finished: list[int] = []
    units = list(range(8))
    results = LocalExecutor(workers=3).map(_slow_first, units, crashed=_crashed_number,
                                           on_result=lambda i, r: finished.append(i))
    assert results == units
    assert sorted(finished) == units  # every unit reported once, as it finished


def test_progress_counts_every_unit() -> None:
    seen: list[tuple[int, int]] = []
    LocalExecutor(workers=2).map(_square, [1, 2, 3], crashed=_crashed_number, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_a_dying_worker_costs_only_its_unit() -> None:
    results = LocalExecutor(workers=2).map(_die_on_negative, [1, -1, 2, 3, -2, 4], crashed=_crashed_number)
    assert results == [1, -1000, 2, 3, -1000, 4]


def test_a_unit_whose_worker_died_once_is_retried_once(tmp_path: Path) -> None:
    markers = [str(tmp_path / f"unit{i}") for i in range(3)]
    results = LocalExecutor(workers=2).map(_die_once, markers, crashed=_crashed_text)
    assert results == ["unit0", "unit1", "unit2"]  # each died once, and succeeded when retried alone


def test_a_crashed_unit_is_retried_in_parts_and_only_the_guilty_part_is_lost() -> None:
    items: list[Parts] = [("a", ("x", "boom", "y")), ("b", ("x",)), ("c", ("x", "y"))]
    results = LocalExecutor(workers=2).map(_parts_work, items, crashed=_crashed_parts, split=_split, merge=_merge)
    assert results == [["a.x", "a.boom:crashed", "a.y"], ["b.x"], ["c.x", "c.y"]]


def test_split_without_merge_is_refused() -> None:
    with pytest.raises(ValueError, match="together"):
        LocalExecutor(workers=2).map(_parts_work, [], crashed=_crashed_parts, split=_split)


def _address_space_in_use() -> int:
    """This process's address space in bytes (a forked worker starts with the same)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize in /proc/self/status")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_workers_get_the_memory_limit() -> None:
    # Relative to what is mapped already (more once Ray has been imported), so the test does not
    # depend on which tests ran before it in this process.
    limit = _address_space_in_use() + 2 * 1024**3
    assert LocalExecutor(workers=2, memory_limit=limit).map(_address_limit, [0, 1], crashed=_crashed_number) == [
        limit, limit
    ]
    assert LocalExecutor(workers=2).map(_allocate, [256, 4096], crashed=_crashed_text, memory_limit=limit) == [
        f"allocated {256 * 1024**2}", "MemoryError"
    ]
    # the parent process is not limited
    assert resource.getrlimit(resource.RLIMIT_AS)[0] != limit


def test_without_a_memory_limit_the_workers_keep_the_parents() -> None:
    parent = resource.getrlimit(resource.RLIMIT_AS)[0]
    assert LocalExecutor(workers=2, memory_limit=None).map(_address_limit, [0, 1], crashed=_crashed_number) == [
        parent, parent
    ]


def test_setup_runs_in_every_worker() -> None:
    results = LocalExecutor(workers=2).map(_recall, [0, 1, 2], crashed=_crashed_text,
                                           setup=WorkerSetup(_remember, ("ready",)))
    assert results == ["ready"] * 3


def test_an_exception_from_the_work_ends_the_run() -> None:
    with pytest.raises(ValueError, match="configuration error"):
        LocalExecutor(workers=2).map(_raise_on_three, list(range(6)), crashed=_crashed_number)


def test_a_failing_setup_ends_the_run_instead_of_counting_as_crashes() -> None:
    with pytest.raises(RuntimeError, match="no engine here"):
        LocalExecutor(workers=2).map(_square, [1, 2], crashed=_crashed_number, setup=WorkerSetup(_fail_setup))


def test_one_worker_runs_in_this_process() -> None:
    _STATE.pop("value", None)
    results = LocalExecutor(workers=1).map(_recall, [0], crashed=_crashed_text, setup=WorkerSetup(_remember, ("here",)))
    assert results == ["here"] and _STATE["value"] == "here"


def test_the_configuration_picks_the_executor() -> None:
    assert isinstance(make_executor(), LocalExecutor)
    ray_executor = make_executor(ExecutorConfig(kind="ray", workers=2, address="auto"))
    assert isinstance(ray_executor, RayExecutor) and ray_executor.address == "auto"
    assert make_executor(ExecutorConfig(workers=3)).memory_limit == DEFAULT_MEMORY_LIMIT
    with pytest.raises(ValueError, match="address"):
        make_executor(ExecutorConfig(address="auto"))
    with pytest.raises(ValueError):
        ExecutorConfig.model_validate({"kind": "local", "threads": 2})  # extra fields are refused
