"""``veriscale compare``: a model's scores on original -> Plus -> Lite, and what Plus exposes.

Plus and Lite of examples/mini's clamp task are built here, with ``expand`` (LLM-free) and
``reduce``, as a user would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES_DIR
from typer.testing import CliRunner

from veriscale.cli import app
from veriscale.stages.score import Submission, score_suite, write_submissions
from veriscale.stages.score.suites import compare_reports, format_comparison

MINI = EXAMPLES_DIR / "mini"
# Right on the original tests (no in-range x above 5 there), wrong on in-range x > 5.
OFF_BY_ONE = "  if x < lo then lo\n  else if hi < x then hi\n  else if 5 < x then x - 1\n  else x\n"
RIGHT = "  if x < lo then lo\n  else if hi < x then hi\n  else x\n"


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from veriscale.stages.expand import expand_benchmark
    from veriscale.stages.reduce import reduce_suite

    root = tmp_path_factory.mktemp("compare")
    expand_benchmark(MINI, root / "plus", jobs=1, progress=False, task_ids=["mini_clamp"])
    reduce_suite(root / "plus", "lite", root / "lite")
    return root / "plus", root / "lite"


def test_a_sample_passing_the_original_and_failing_plus_is_listed_with_its_input(suites: tuple[Path, Path]) -> None:
    plus, lite = suites
    subs = [Submission(task="mini_clamp", code=OFF_BY_ONE), Submission(task="mini_clamp", sample=1, code=RIGHT)]
    reports = [(label, score_suite(path, subs, workers=1, progress=False, task_ids=["mini_clamp"]))
               for label, path in (("original", MINI), ("plus", plus), ("lite", lite))]
    comparison = compare_reports("m", reports)
    (code,) = [r for r in comparison.rows if r.metric == "code"]
    assert code.rates["original"] == (1.0, 1.0)  # both samples pass the original
    assert code.rates["plus"] == (0.5, 0.5)      # only the right one passes Plus
    assert code.drop["plus"] == 0.5
    exposed = [e for e in comparison.exposed if e.suite == "plus"]
    assert [(e.task, e.sample, e.metric) for e in exposed] == [("mini_clamp", 0, "code")]
    test = exposed[0].test
    assert test is not None and test.failing and test.first == test.failing[0]
    x, lo, hi = (int(test.input[name]) for name in ("x", "lo", "hi"))
    assert lo <= x <= hi and x > 5  # the input that exposes it is one where the off-by-one fires
    assert (test.returned, test.expected) == (str(x - 1), str(x))
    text = format_comparison(comparison)
    assert f"mini_clamp code fails plus: {test.first}" in text and f"x = {x}" in text
    # The side-by-side table: pass@1 lower-upper per suite, then the change of the lower bound.
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()[1:] if line and not line[0].isspace()}
    assert rows["metric"] == ["original", "plus", "lite", "change", "plus", "change", "lite"]
    assert rows["code"][:4] == ["1.000-1.000", "0.500-0.500", f"{code.rates['lite'][0]:.3f}-{code.rates['lite'][1]:.3f}",
                                "-0.500"]


def test_cli_compare(suites: tuple[Path, Path], tmp_path: Path) -> None:
    plus, lite = suites
    path = tmp_path / "off.jsonl"
    write_submissions(path, [Submission(task="mini_clamp", code=OFF_BY_ONE)])
    out = tmp_path / "compare.json"
    result = CliRunner().invoke(app, ["compare", f"off-by-one={path}", "--suite", str(MINI), "--suite", str(plus),
                                      "--suite", str(lite), "--tasks", "mini_clamp", "--workers", "1",
                                      "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "model: off-by-one" in result.output and "mini_clamp code fails plus" in result.output
    (comparison,) = json.loads(out.read_text(encoding="utf-8"))["comparisons"]
    assert comparison["suites"] == ["mini", "plus", "lite"]
    result = CliRunner().invoke(app, ["compare", str(path), "--suite", str(MINI)])
    assert result.exit_code == 2 and "at least twice" in result.output


def test_cli_compare_exits_2_after_comparing_when_a_line_is_unreadable(suites: tuple[Path, Path],
                                                                        tmp_path: Path) -> None:
    plus, _ = suites
    path = tmp_path / "off.jsonl"
    write_submissions(path, [Submission(task="mini_clamp", code=OFF_BY_ONE)])
    with path.open("a", encoding="utf-8") as handle:
        handle.write("not json\n")
    out = tmp_path / "compare.json"
    result = CliRunner().invoke(app, ["compare", str(path), "--suite", str(MINI), "--suite", str(plus),
                                      "--tasks", "mini_clamp", "--workers", "1", "--json", str(out)])
    assert result.exit_code == 2, result.output
    assert "off.jsonl:2" in result.output and "1 line(s) could not be read" in result.output
    # the readable line was compared and written all the same
    assert "mini_clamp code fails plus" in result.output
    assert json.loads(out.read_text(encoding="utf-8"))["comparisons"][0]["suites"] == ["mini", "plus"]


@pytest.mark.data
def test_three_verina_tasks_original_plus_lite(data_dir: Path) -> None:
    """Code right on Verina's tests but wrong beyond them: Plus exposes it, with the input."""
    subs = [
        Submission(task="verina_basic_1", code="  a * b < 0 && a.natAbs < 100"),
        Submission(task="verina_basic_2", code="  if s.size > 11 then none else s.toList.min?"),
        Submission(task="verina_basic_3", code="  n % 11 == 0 && n.natAbs < 200"),
    ]
    ids = [s.task for s in subs]
    reports = [(name, score_suite(data_dir / name, subs, workers=1, progress=False, task_ids=ids))
               for name in ("verina", "verinaplus", "verinalite")]
    comparison = compare_reports("weak", reports)
    (code,) = [r for r in comparison.rows if r.metric == "code"]
    assert code.rates["verina"] == (1.0, 1.0)
    assert code.rates["verinaplus"][1] < 1.0
    exposed = {e.task: e for e in comparison.exposed if e.suite == "verinaplus"}
    smallest = exposed["verina_basic_2"].test
    assert smallest is not None and smallest.returned == "none" and smallest.expected is not None
    assert smallest.input["s"].startswith("#[") and smallest.input["s"].count(",") >= 11  # more than 11 elements
    assert "verina_basic_2 code fails verinaplus: test" in format_comparison(comparison)
