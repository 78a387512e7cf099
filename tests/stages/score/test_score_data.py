"""Scoring the ground truth of the reference suites: it must never be judged definitely wrong,
except where the published data itself is (unexpected outputs its postcondition accepts) or the
engine runs out of time."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriscale.benchmark import load_benchmark
from veriscale.stages.score import METRICS, ground_truth_submission, score_suite
from veriscale.stages.score.models import BASE_METRICS

pytestmark = pytest.mark.data

SPEC_AND_CODE = ("code", "code_aux", "precond", "precond_aux", "postcond", "postcond_aux")


def test_ground_truth_of_verina_is_never_judged_wrong(data_dir: Path) -> None:
    suite = data_dir / "verina"
    tasks = load_benchmark(suite).tasks
    report = score_suite(suite, [ground_truth_submission(t, SPEC_AND_CODE) for t in tasks], progress=False)
    assert report.errors == [] and len(report.tasks) == len(tasks)
    wrong = [(s.task, m, s.reasons) for s in report.tasks for m in METRICS if (b := s.bound(m)) and b.upper == 0]
    assert wrong == []
    # Every task scored every submitted metric, and most are decided outright.
    assert all(report.totals[m].tasks == len(tasks) for m in METRICS if m != "proof")
    assert report.totals["code"].lower_rate > 0.9


def test_ground_truth_of_a_verinaplus_sample_fails_only_for_time_or_data_defects(data_dir: Path) -> None:
    suite = data_dir / "verinaplus"
    # The smallest tasks keep this quick; they include rows with unreadable stored values.
    tasks = sorted(load_benchmark(suite).tasks, key=lambda t: sum(1 + len(r.unexpected) for r in t.tests))[:8]
    report = score_suite(suite, [ground_truth_submission(t, SPEC_AND_CODE) for t in tasks], progress=False)
    for score in report.tasks:
        for metric in BASE_METRICS:  # a combined metric fails through a part, whose reason is checked
            bound = score.bound(metric)
            if bound is None or bound.upper == 1:
                continue
            why = next(r for r in score.reasons if r.startswith(f"{metric}: "))
            allowed = "timeout" in why or (
                metric == "postcond_sound" and "true on an unexpected" in why)  # a published-data defect
            assert allowed, why
