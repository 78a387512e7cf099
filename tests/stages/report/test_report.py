"""``veriscale report``: numbers in the Markdown and HTML, plots written, inputs checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES_DIR
from typer.testing import CliRunner

import veriscale
from veriscale.cli import app
from veriscale.stages.expand.models import AdversaryCounts, ExpandSummary, TaskSummary, UnexpectedCounts
from veriscale.stages.report import ReportInputError, build_report, read_score_file
from veriscale.stages.score import ground_truth_submission

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def write_json(path: Path, payload: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def total(tasks: int, lower: int, upper: int) -> dict[str, Any]:
    return {"tasks": tasks, "lower": lower, "upper": upper,
            "lower_rate": lower / tasks, "upper_rate": upper / tasks}


def eval_run(root: Path, model: str, suite: str, kind: str, totals: dict[str, Any]) -> Path:
    """A run directory as ``veriscale eval`` leaves it (score.json and summary.json)."""
    run = root / model / suite / kind
    write_json(run / "summary.json", {"model": model, "suite": f"/data/{suite}", "suite_name": suite,
                                      "task_kind": kind})
    return write_json(run / "score.json", {"suite": f"/data/{suite}", "engine": "embedded", "seconds": 1.0,
                                           "checks": 10, "tasks": [], "totals": totals})


def expand_run(path: Path) -> Path:
    tasks = [
        TaskSummary(task="t_b", tests_original=5, tests_new=45, rejects_original=1, rejects_new=9,
                    adversaries={"template": AdversaryCounts(generated=4, kept=3, killed=2)},
                    unexpected=UnexpectedCounts(from_adversaries=30, from_output_mutation=10),
                    kills=77, checks_before=20, checks_after=400, seconds=1.5),
        TaskSummary(task="t_a", tests_original=2, tests_new=8, checks_before=10, checks_after=30, kills=5,
                    seconds=0.5),
    ]
    summary = ExpandSummary(source="bench", output=str(path), engine="embedded", seed=7, tasks_total=2,
                            tasks_expanded=2, checks_before=30, checks_after=430, growth=430 / 30, kills=82,
                            tests_before=7, tests_after=60, tasks=tasks)
    write_json(path / "summary.json", summary.model_dump(mode="json"))
    return path


def test_report_shows_every_number_and_writes_the_plots(tmp_path: Path) -> None:
    scores = tmp_path / "eval"
    eval_run(scores, "model-a", "verina", "codegen", {"code": total(4, 1, 3)})
    eval_run(scores, "model-b", "verina", "codegen", {"code": total(4, 2, 2)})
    eval_run(scores, "model-a", "verinaplus", "codegen", {"code": total(4, 0, 1)})
    eval_run(scores, "model-a", "verinaplus", "specgen",
             {"precond_sound": total(5, 5, 5), "postcond_complete": total(5, 0, 4)})
    power = write_json(tmp_path / "power.json", {"suites": [
        {"path": "/d/verinaplus", "checks": 300000, "flawed_specs_caught": 36, "flawed_specs_total": 40,
         "mutants_killed": 90, "mutants_total": 100},
        {"path": "/d/verina", "checks": 3629, "flawed_specs_caught": 10, "flawed_specs_total": 40,
         "mutants_killed": 55, "mutants_total": 100},
    ]})
    run = expand_run(tmp_path / "expand_run")

    out = tmp_path / "report"
    result = build_report(out, scores=[scores], power=power, expand=[run])

    assert result.sections == ["caveat", "scores", "provenance", "failures", "power", "expand"]
    assert result.missing == []
    md = result.markdown.read_text(encoding="utf-8")
    # One row per (metric, model), a pass@1 column per suite, original before Plus.
    assert "| Metric | Model | Tasks (samples) | verina pass@1 | verinaplus pass@1 |" in md
    assert "| code | model-a | 4 / 4 | 25.0%–75.0% | 0.0%–25.0% |" in md
    assert "| code | model-b | 4 / – | 50.0% | – |" in md
    assert "| postcond_complete | model-a | 5 | 0.0%–80.0% |" in md
    assert md.index("### codegen") < md.index("| code | model-a") < md.index("### specgen")
    # Power: original before Plus whatever the file's order, rates with Wilson intervals.
    assert "| verina | 3,629 | 10/40 = 25.0% [14.2%–40.2%] | 55/100 = 55.0% [45.2%–64.4%] |" in md
    assert "| verinaplus | 300,000 | 36/40 = 90.0% [76.9%–96.0%] | 90/100 = 90.0% [82.6%–94.5%] |" in md
    assert md.index("| verina | 3,629") < md.index("| verinaplus | 300,000")
    # Expansion: run totals, growth quartiles and per-task rows (sorted by task id).
    assert "Checks 30 → 430 (14.3×)" in md
    assert "minimum 3.0×, quartiles 3.0× / 3.0× / 20.0×, maximum 20.0×" in md
    assert "| t_b | expanded | 5+45 | 1+9 | 40 | 2/3 | 77 | 20 | 400 | 20.0× | 1.5 |" in md
    assert md.index("| t_a |") < md.index("| t_b |")
    assert "Engine caveat" in md and "--backend lean" in md

    names = sorted(p.name for p in result.plots)
    assert names == ["expand_1.png", "power.png", "scores_1.png", "scores_2.png", "scores_3.png"]
    for plot in result.plots:
        assert plot.read_bytes()[:8] == PNG_MAGIC
        assert f"](plots/{plot.name})" in md

    page = result.html.read_text(encoding="utf-8")
    assert page.count('src="data:image/png;base64,') == len(result.plots)  # self-contained
    assert "<td>code</td><td>model-b</td><td>4 / –</td><td>50.0%</td>" in page
    assert '<div class="note">Engine caveat' in page
    assert "<details><summary>Per-task expansion table (2 tasks)</summary>" in page


def score_file(path: Path, *, provenance: dict[str, Any] | None, tasks: list[dict[str, Any]],
               totals: dict[str, Any], engine: str = "embedded") -> Path:
    return write_json(path, {"model": "m", "provenance": provenance, "suite": "/data/verinaplus", "engine": engine,
                             "tasks": tasks, "totals": totals, "caveats": ["engine said this once"]})


def test_failures_samples_and_provenance(tmp_path: Path) -> None:
    provenance = {"veriscale_version": "0.1.0", "git_commit": "0123456789abcdef0123+dirty",
                  "suite": "/data/verinaplus", "suite_hash": "sha256:" + "ab" * 32, "engine": "embedded",
                  "options": {"workers": 2, "ks": None}, "date": "2026-01-02T03:04:05+00:00", "model": "m"}
    failing = {"failing": ["test 1", "test 3", "test 4", "test 5", "test 9", "test 12"], "first": "test 1",
               "input": {"xs": "#[1, 2]", "k": "3"}, "returned": "4", "expected": "5"}
    tasks = [
        {"task": "t1", "sample": 0, "code": {"lower": 0, "upper": 0}, "precond_sound": {"lower": 0, "upper": 1},
         "reasons": ["precond_sound: test 2: undecided", "code: test 1: wrong output"],
         "failures": {"code": failing}},
        {"task": "t1", "sample": 1, "code": {"lower": 1, "upper": 1}},
        {"task": "t2", "sample": 0, "code": {"lower": 0, "upper": 1}, "reasons": ["code: test 2: undecided"]},
        {"task": "t2", "sample": 1, "code": {"lower": 0, "upper": 1}},
    ]
    totals = {"code": {"tasks": 2, "samples": 4, "lower": 1, "upper": 3, "lower_rate": 0.25, "upper_rate": 0.75,
                       "pass_at_k": [{"k": 1, "lower": 0.25, "upper": 0.75}, {"k": 2, "lower": 0.5, "upper": 1.0}]}}
    path = score_file(tmp_path / "s" / "score.json", provenance=provenance, tasks=tasks, totals=totals)
    md = build_report(tmp_path / "out", scores=[path]).markdown.read_text(encoding="utf-8")
    # pass@1 from the file's mean over tasks (not lower/samples summed), and pass@2.
    assert "| Metric | Model | Tasks (samples) | verinaplus pass@1 | verinaplus pass@2 |" in md
    assert "| code | m | 2 (4) | 25.0%–75.0% | 50.0%–100.0% |" in md
    assert ("| m | verinaplus | – | 0.1.0 | 0123456789ab+dirty | sha256:abababababab… | embedded | "
            "2026-01-02T03:04:05+00:00 | workers=2 |") in md
    assert "**m on verinaplus: 1 task sample(s) with a failed metric, 2 with undecided ones only**" in md
    assert ("| t1 | 0 | code | precond_sound | code: test 1 (+5 more) | xs = #[1, 2], k = 3 | 4 | 5 "
            "| test 1: wrong output |") in md
    assert "| t2 | 0 | – | code | – | – | – | – | test 2: undecided |" in md
    assert "| t2 | 1 | – | code | – | – | – | – | – |" in md
    assert md.index("| t1 | 0 |") < md.index("| t2 | 0 |") < md.index("| t2 | 1 |")
    assert "> **From the score files: engine said this once**" in md
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "<details open><summary>m on verinaplus" in page  # the first failure list is unfolded


def test_the_caveat_is_left_out_only_when_every_input_is_from_lean(tmp_path: Path) -> None:
    path = score_file(tmp_path / "score.json", provenance=None, tasks=[], totals={"code": total(2, 2, 2)},
                      engine="lean")
    md = build_report(tmp_path / "out", scores=[path]).markdown.read_text(encoding="utf-8")
    assert "Engine caveat" not in md
    assert "No provenance recorded (an older score file): m on verinaplus." in md
    run = expand_run(tmp_path / "run")  # an embedded expansion beside a Lean score
    md = build_report(tmp_path / "out", scores=[path], expand=[run]).markdown.read_text(encoding="utf-8")
    assert "Engine caveat" in md


def test_the_engine_caveat_is_shown_once(tmp_path: Path) -> None:
    # A real embedded-engine score file: it carries the score stage's own engine caveat.
    task = veriscale.load_benchmark(EXAMPLES_DIR / "mini").tasks[0]
    scored = veriscale.score(EXAMPLES_DIR / "mini", [ground_truth_submission(task, ["code"])], tasks=[task.id])
    assert scored.engine == "embedded" and scored.caveats
    path = write_json(tmp_path / "embedded" / "score.json", scored.to_json())
    result = build_report(tmp_path / "out", scores=[path])
    for text in (result.markdown.read_text(encoding="utf-8"), result.html.read_text(encoding="utf-8")):
        assert text.count("Engine caveat") == 1
        assert "From the score files" not in text
        assert "not by Lean itself" not in text  # the score file's wording of the same caveat
    # A caveat of another kind is still shown, beside the engine caveat.
    raw = json.loads(path.read_text(encoding="utf-8"))
    write_json(path, {**raw, "caveats": [*raw["caveats"], "suite reduced by hand"]})
    md = build_report(tmp_path / "out", scores=[path]).markdown.read_text(encoding="utf-8")
    assert md.count("Engine caveat") == 1
    assert md.count("From the score files") == 1 and "From the score files: suite reduced by hand" in md


def test_the_page_falls_back_to_cjk_fonts(tmp_path: Path) -> None:
    path = score_file(tmp_path / "score.json", provenance=None, tasks=[], totals={"code": total(2, 2, 2)})
    page = build_report(tmp_path / "out", scores=[path]).html.read_text(encoding="utf-8")
    body_fonts = page.split("body{font-family:", 1)[1].split(";", 1)[0]
    assert body_fonts.endswith("sans-serif")
    for font in ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", "Malgun Gothic"):
        assert f'"{font}"' in body_fonts


def test_missing_inputs_are_left_out(tmp_path: Path) -> None:
    power = write_json(tmp_path / "power.json", {"suites": [
        {"path": "s", "checks": 10, "flawed_specs_caught": 0, "flawed_specs_total": 0,
         "mutants_killed": 1, "mutants_total": 2}]})
    result = build_report(tmp_path / "out", scores=[tmp_path / "nope.json"], power=power,
                          expand=[tmp_path / "no_run"])
    assert result.sections == ["caveat", "power"]
    assert result.missing == [str(tmp_path / "nope.json"), str(tmp_path / "no_run")]
    md = result.markdown.read_text(encoding="utf-8")
    assert "## Scores" not in md and "## Expansion" not in md
    assert "| s | 10 | 0/0 | 1/2 = 50.0% [9.5%–90.5%] |" in md
    assert [p.name for p in result.plots] == ["power.png"]

    empty = build_report(tmp_path / "empty")
    assert empty.sections == [] and empty.plots == []
    assert "nothing to report" in empty.markdown.read_text(encoding="utf-8")


def test_model_name_falls_back_to_the_eval_layout(tmp_path: Path) -> None:
    path = write_json(tmp_path / "gpt-x" / "lite" / "codegen" / "score.json",
                      {"suite": "/x/lite", "totals": {"code": total(2, 1, 2)}})
    (row,) = read_score_file(path)
    assert (row.model, row.suite, row.kind, row.lower, row.upper) == ("gpt-x", "lite", "codegen", 1, 2)
    loose = write_json(tmp_path / "loose.json", {"suite": "/x/verina", "model": "m", "totals": {}})
    assert read_score_file(loose) == []


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"suite": "s"}', "no 'totals' object"),
        ('{"totals": {"code": {"tasks": 2, "lower": 2, "upper": 1}}}', "totals.code"),
        ('{"totals": {"code": {"tasks": 2, "lower": 1}}}', "totals.code: upper"),
    ],
)
def test_malformed_score_files_name_the_file(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "score.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ReportInputError) as caught:
        build_report(tmp_path / "out", scores=[path])
    assert caught.value.file == str(path)
    assert needle in str(caught.value)
    assert not (tmp_path / "out" / "report.md").exists()  # nothing written


def test_malformed_power_and_expand_inputs_name_the_file(tmp_path: Path) -> None:
    power = write_json(tmp_path / "power.json", {"suites": [{"path": "s", "checks": 3}]})
    with pytest.raises(ReportInputError, match=r"power\.json: not a power file .*suites\.0\.flawed_specs_caught"):
        build_report(tmp_path / "out", power=power)
    worse = write_json(tmp_path / "worse.json", {"suites": [
        {"path": "s", "checks": 3, "flawed_specs_caught": 5, "flawed_specs_total": 4,
         "mutants_killed": 0, "mutants_total": 0}]})
    with pytest.raises(ReportInputError, match="flawed_specs_caught exceeds"):
        build_report(tmp_path / "out", power=worse)
    backwards = write_json(tmp_path / "backwards.json", {"suites": [
        {"path": "s", "checks": 3, "flawed_specs_caught": 1, "flawed_specs_total": 4, "mutants_killed": 0,
         "mutants_total": 0, "intervals": {"flawed_specs": [0.5, 0.1]}}]})
    with pytest.raises(ReportInputError, match=r"intervals\.flawed_specs: needs 0 <= low <= high <= 1"):
        build_report(tmp_path / "out", power=backwards)
    not_a_run = tmp_path / "run"
    not_a_run.mkdir()
    with pytest.raises(ReportInputError, match=r"run/summary\.json: missing"):
        build_report(tmp_path / "out", expand=[not_a_run])
    write_json(not_a_run / "summary.json", {"source": "x"})
    with pytest.raises(ReportInputError, match="not an expand summary"):
        build_report(tmp_path / "out", expand=[not_a_run])


def test_expand_run_without_task_list_reads_the_task_summaries(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_json(run / "summary.json", ExpandSummary(source="b", output=str(run), engine="embedded", seed=1,
                                                   tasks_total=1).model_dump(mode="json"))
    write_json(run / "only" / "summary.json", TaskSummary(task="only", checks_before=3, checks_after=9)
               .model_dump(mode="json"))
    md = build_report(tmp_path / "out", expand=[run]).markdown.read_text(encoding="utf-8")
    assert "| only | expanded | 0+0 | 0+0 | 0 | 0/0 | 0 | 3 | 9 | 3.0× |" in md


def test_cli_report(tmp_path: Path) -> None:
    scores = eval_run(tmp_path / "eval", "m", "verina", "codegen", {"code": total(2, 1, 1)})
    result = CliRunner().invoke(app, ["report", "--out", str(tmp_path / "out"), "--scores", str(scores),
                                      "--expand", str(tmp_path / "missing_run")])
    assert result.exit_code == 0, result.output
    assert "sections: caveat, scores, provenance, failures; 1 plot(s)" in result.output
    assert (tmp_path / "out" / "report.html").is_file()
    assert (tmp_path / "out" / "plots" / "scores_1.png").is_file()

    bad = write_json(tmp_path / "bad.json", {"suites": "no"})
    failed = CliRunner().invoke(app, ["report", "--out", str(tmp_path / "out2"), "--power", str(bad)])
    assert failed.exit_code == 2
    assert str(bad) in failed.output
