"""The report's figure logic: suite order, intervals, zoomed axis, bar labels, growth distribution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriscale.stages.report import read_power_file
from veriscale.stages.report.figures import (
    growth_quantiles,
    score_bars,
    sorted_growth,
    suite_order,
    suite_rank,
    wilson_interval,
    zoomed_range,
)


def test_suites_read_original_plus_lite() -> None:
    assert suite_order(["verinalite", "verinaplus", "verina"]) == ["verina", "verinaplus", "verinalite"]
    assert suite_order(["ours-lite", "verina_plus", "ours-plus", "verina", "ours"]) == [
        "ours", "ours-plus", "ours-lite", "verina", "verina_plus"]
    assert [suite_rank(n) for n in ("verina", "VerinaPlus", "mini-lite", "plus-ultra", "lite2")] == [0, 1, 2, 0, 2]
    assert suite_order(["b", "a", "a"]) == ["a", "b"]  # unrelated names: alphabetical, once each


def test_wilson_interval() -> None:
    low, high = wilson_interval(10, 40)
    assert (round(low, 4), round(high, 4)) == (0.1419, 0.4019)
    assert wilson_interval(0, 10)[0] == 0.0 and 0 < wilson_interval(0, 10)[1] < 0.35
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0) and wilson_interval(10, 10)[0] > 0.65
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_zoomed_range_shows_differences_near_the_top() -> None:
    bottom, top = zoomed_range([91.0, 96.5], [94.0, 99.5])
    assert 88 < bottom < 91 and 99.5 < top < 102  # not 0-100: 92 % and 98 % are far apart
    # The range covers every interval, with room; never below 0.
    bottom, top = zoomed_range([2.0, 40.0], [10.0, 60.0])
    assert 0 <= bottom <= 2.0 and top >= 60.0
    bottom, top = zoomed_range([99.9], [100.0])
    assert top - bottom >= 2.0 and top >= 100.0
    assert zoomed_range([], []) == (0.0, 100.0)


def test_score_bars_are_grouped_ordered_and_every_bar_is_labelled() -> None:
    bars = score_bars([("code", "verinalite", 0.5, 0.5), ("code", "verina", 0.9, 1.0),
                       ("postcond_sound", "verina", 0.0, 0.25), ("code", "verinaplus", 0.0, 0.0)],
                      metric_order=("code", "postcond_sound"))
    assert [(b.metric, b.suite) for b in bars] == [
        ("code", "verina"), ("code", "verinaplus"), ("code", "verinalite"), ("postcond_sound", "verina")]
    assert [b.label for b in bars] == ["90.0%–100%", "0%", "50.0%", "0%–25.0%"]
    zero = [b for b in bars if b.zero]
    assert [(b.metric, b.suite) for b in zero] == [("code", "verinaplus"), ("postcond_sound", "verina")]
    assert bars[0].x < bars[1].x < bars[2].x < bars[3].x
    assert bars[3].x == pytest.approx(1 - 0.8 / 3)  # the metric's group, at verina's place


def test_growth_is_sorted_and_summarised() -> None:
    growth = sorted_growth([("b", 10, 400), ("a", 5, 5), ("c", 0, 9), ("d", 2, 80), ("e", 4, 40)])
    assert growth == [("a", 1.0), ("e", 10.0), ("b", 40.0), ("d", 40.0)]  # no checks before: left out
    assert growth_quantiles(growth) == {"min": 1.0, "q1": 1.0, "median": 10.0, "q3": 40.0, "max": 40.0}
    assert growth_quantiles([]) == {}


def test_power_intervals_come_from_the_file_else_from_the_counts(tmp_path: Path) -> None:
    path = tmp_path / "power.json"
    path.write_text(json.dumps({"suites": [
        {"path": "/d/a", "checks": 1, "flawed_specs_caught": 10, "flawed_specs_total": 40, "mutants_killed": 0,
         "mutants_total": 0, "intervals": {"flawed_specs": [0.2, 0.3]}},
        {"path": "/d/b", "checks": 1, "flawed_specs_caught": 10, "flawed_specs_total": 40, "mutants_killed": 5,
         "mutants_total": 10}]}), encoding="utf-8")
    given, computed = read_power_file(path)
    assert given.interval("flawed_specs") == (0.2, 0.3)
    assert given.interval("mutants") is None  # no mutants: no rate
    assert computed.interval("flawed_specs") == wilson_interval(10, 40)
    assert computed.interval("mutants") == wilson_interval(5, 10)
