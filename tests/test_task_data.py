"""Loading and round-tripping the reference suites (read by path; nothing copied)."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest
from conftest import SUITES

from veriscale.benchmark import load_benchmark
from veriscale.task import SECTION_NAMES, BenchmarkLoad, write_benchmark

pytestmark = pytest.mark.data

# The published VerinaPlus/VerinaLite copies of this task lost the `--` of its proof markers.
BROKEN = {"verina_basic_32"}

_loaded: dict[str, BenchmarkLoad] = {}


def load_suite(data_dir: Path, suite: str) -> BenchmarkLoad:
    if suite not in _loaded:
        _loaded[suite] = load_benchmark(data_dir / suite)
    return _loaded[suite]


def test_verina_loads_completely(data_dir: Path) -> None:
    loaded = load_suite(data_dir, "verina")
    assert loaded.failures == [], loaded.summary()
    assert len(loaded.tasks) == len([p for p in (data_dir / "verina").iterdir() if p.is_dir()])
    for task in loaded.tasks:
        assert task.id == task.id.strip() and task.test_count > 0
        assert {"import", "precond", "code", "postcond", "proof"} <= set(task.section_names()), task.id
        assert set(task.section_names()) <= set(SECTION_NAMES)
        assert task.section("code").strip(), task.id
        for test in task.tests:
            assert list(test.input) == task.param_names


@pytest.mark.parametrize("suite", ["verinaplus", "verinalite"])
def test_expanded_suites_fail_only_on_broken_markers(data_dir: Path, suite: str) -> None:
    loaded = load_suite(data_dir, suite)
    failed = {e.task: e for e in loaded.failures}
    assert set(failed) == BROKEN, loaded.summary()
    error = failed["verina_basic_32"]
    assert (error.file, error.line) == ("task.lean", 51)
    assert "`!benchmark` outside a `--` comment" in error.reason
    assert str(error).startswith("verina_basic_32/task.lean:51: malformed marker line")
    assert len(loaded.tasks) + len(loaded.failures) == len(load_suite(data_dir, "verina").tasks)


@pytest.mark.parametrize("suite", ["verinaplus", "verinalite"])
def test_expanded_suites_share_verina_lean(data_dir: Path, suite: str) -> None:
    # The expanded suites change tests, not task definitions (apart from a few signatures), so the
    # specs parsed from them must match Verina's.
    original = {t.id: t for t in load_suite(data_dir, "verina").tasks}
    for task in load_suite(data_dir, suite).tasks:
        for name in ("precond", "postcond"):
            assert task.section(name) == original[task.id].section(name), (task.id, name)
        assert task.signature == original[task.id].signature


@pytest.mark.parametrize("suite", SUITES)
def test_round_trip(data_dir: Path, tmp_path: Path, suite: str) -> None:
    loaded = load_suite(data_dir, suite)
    write_benchmark(loaded.tasks, tmp_path)
    again = load_benchmark(tmp_path)
    assert again.failures == []
    assert again.tasks == loaded.tasks
    # Text files come back byte for byte (JSON is rewritten in one style, so compared as models).
    for task in loaded.tasks:
        source = data_dir / suite / task.id
        for file in source.iterdir():
            if file.suffix != ".json":
                assert filecmp.cmp(file, tmp_path / task.id / file.name, shallow=False), file
