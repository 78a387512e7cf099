"""Export -> load round trip of the published suites as Hugging Face datasets (read by path)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_hf_dataset import benchmark_differences

from veriscale.benchmark import load_benchmark
from veriscale.hf_dataset import export_dataset

pytestmark = pytest.mark.data


@pytest.mark.parametrize("suite", ["verina", "verinaplus"])
def test_suite_round_trips_through_a_dataset(data_dir: Path, tmp_path: Path, suite: str) -> None:
    original = load_benchmark(data_dir / suite)
    assert original.tasks
    export_dataset(original.tasks, tmp_path / "ds")
    back = load_benchmark(tmp_path / "ds")
    assert back.failures == [], back.summary()
    assert [t.id for t in back.tasks] == [t.id for t in original.tasks]
    assert benchmark_differences(original.tasks, back.tasks) == []
    # The comparison above really looked at the suite's outputs (Verina has about 2,800).
    assert sum(1 + len(t.unexpected) for task in back.tasks for t in task.tests) > 2_000
