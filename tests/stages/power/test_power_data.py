"""Suite power on a few published tasks (reference data read by path; skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriscale.stages.power import measure_power

FAST_TASKS = ["verina_basic_1", "verina_basic_4"]


@pytest.mark.data
def test_verinaplus_catches_at_least_what_verina_catches(data_dir: Path) -> None:
    report = measure_power(
        [data_dir / "verina", data_dir / "verinaplus"], task_ids=FAST_TASKS, jobs=1, progress=False,
        max_flawed=6, max_mutants=8,
    )
    verina, plus = report.suites
    assert report.tasks == FAST_TASKS
    assert verina.flawed_specs_total == plus.flawed_specs_total > 0
    assert verina.mutants_total == plus.mutants_total > 0
    # VerinaPlus keeps Verina's tests, so what a Verina row catches a VerinaPlus row catches too.
    assert plus.flawed_specs_caught >= verina.flawed_specs_caught
    assert plus.mutants_killed >= verina.mutants_killed
    assert plus.checks > 10 * verina.checks
    # the same items for both suites: one item list per task
    assert all(len(t.checks) == 2 for t in report.per_task)
    # and Verina alone gets exactly the rates it gets beside VerinaPlus
    alone = measure_power([data_dir / "verina"], task_ids=FAST_TASKS, jobs=1, progress=False,
                          max_flawed=6, max_mutants=8).suites[0]
    keys = {"flawed_specs_caught", "flawed_specs_total", "mutants_killed", "mutants_total"}
    assert alone.model_dump(include=keys) == verina.model_dump(include=keys)
