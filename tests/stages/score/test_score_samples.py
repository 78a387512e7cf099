"""Several samples per task: pass@1 and pass@k (the unbiased estimator), lower and upper bounds."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veriscale.cli import app
from veriscale.stages.score import Submission, format_report, score_suite, write_submissions
from veriscale.stages.score.models import pass_at_k
from veriscale.stages.score.submission import load_submissions, parse_submission_lines

SUITE = Path(__file__).resolve().parents[2] / "fixtures" / "hostile" / "submissions" / "suite"
RIGHT = "  lo ≤ hi"
UNDECIDED = "  lo ≤ hi ∧ ∀ n : Nat, n + 0 = n"  # the embedded engine cannot decide it: (0, 1)

# Five samples per task.
# score_clamp_all: precond_sound passes in samples 0 and 3, is unknown in 1, fails in 2 and 4;
#                  its code is wrong in every sample.
# score_defects:   code is right in samples 1 and 4 only.
CLAMP_PRECONDS = [RIGHT, UNDECIDED, "  False", RIGHT, "  False"]
DEFECTS_CODES = ["  xs", "  xs.map (fun x => x + x)", "  []", "  xs ++ xs", "  xs.map (fun x => 2 * x)"]


def _samples() -> list[Submission]:
    subs = [Submission(task="score_clamp_all", sample=k, precond=p, code="  xs") for k, p in enumerate(CLAMP_PRECONDS)]
    subs += [Submission(task="score_defects", sample=k, code=c) for k, c in enumerate(DEFECTS_CODES)]
    return subs


def _by_subsets(n: int, c: int, k: int) -> float:
    """pass@k by definition: the share of k-subsets of the n samples that hold a passing one."""
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(i < c for i in subset) for subset in subsets) / len(subsets)


def test_the_estimator_is_the_share_of_k_subsets_with_a_pass() -> None:
    for n in range(1, 7):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(_by_subsets(n, c, k)), (n, c, k)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_five_samples_per_task_match_a_hand_computation() -> None:
    report = score_suite(SUITE, _samples(), workers=1, progress=False, ks=(1, 3, 5))
    assert [(s.task, s.sample) for s in report.tasks] == [
        *(("score_clamp_all", k) for k in range(5)), *(("score_defects", k) for k in range(5))]
    sound = report.totals["precond_sound"]
    # one task, n = 5: lower counts c = 2 passes, upper c = 3 (the unknown counts as a pass).
    assert (sound.tasks, sound.samples, sound.lower, sound.upper) == (1, 5, 2, 3)
    assert (sound.lower_rate, sound.upper_rate) == (0.4, 0.6)
    at = {p.k: (p.lower, p.upper) for p in sound.pass_at_k}
    # pass@3: 1 - C(5-c, 3) / C(5, 3); lower 1 - 1/10, upper 1 - 0/10.
    assert at == {1: (0.4, 0.6), 3: (0.9, 1.0), 5: (1.0, 1.0)}
    code = report.totals["code"]
    # two tasks: clamp c = 0 (0 for every k), defects c = 2 of 5 (pass@1 0.4, @3 0.9, @5 1).
    assert (code.tasks, code.samples, code.lower, code.upper) == (2, 10, 2, 2)
    assert {p.k: (p.lower, p.upper) for p in code.pass_at_k} == {1: (0.2, 0.2), 3: (0.45, 0.45), 5: (0.5, 0.5)}
    text = format_report(report)
    assert "pass@3" in text and "pass@5" in text and "score_clamp_all#2" in text


def test_default_k_is_the_number_of_samples_and_a_too_large_k_is_named() -> None:
    subs = _samples()
    report = score_suite(SUITE, subs, workers=1, progress=False)
    assert [p.k for p in report.totals["code"].pass_at_k] == [1, 5]
    fewer = [s for s in subs if not (s.task == "score_defects" and s.sample == 4)]
    report = score_suite(SUITE, fewer, workers=1, progress=False, ks=(1, 5))
    assert [p.k for p in report.totals["code"].pass_at_k] == [1]
    assert report.totals["code"].notes == ["pass@5 not reported: a task has only 4 sample(s)"]
    assert [p.k for p in report.totals["precond_sound"].pass_at_k] == [1, 5]


def test_samples_in_a_file_round_trip_and_duplicates_are_named(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    write_submissions(path, _samples())
    loaded, errors = load_submissions(path)
    assert errors == [] and loaded == _samples()
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert "sample" not in first  # sample 0 is written in the one-sample layout
    lines = ['{"task": "t", "sample": 1, "code": "a"}', '{"task": "t", "sample": 1, "code": "b"}',
             '{"task": "t", "code": "c"}', '{"task": "t", "sample": -1, "code": "d"}']
    subs, errors = parse_submission_lines(lines)
    assert [(s.sample, s.code) for s in subs] == [(1, "a"), (0, "c")]
    assert [e.line for e in errors] == [2, 4]
    assert "duplicate task and sample 1" in errors[0].reason


def test_cli_reports_pass_at_k(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    write_submissions(path, _samples())
    out = tmp_path / "score.json"
    result = CliRunner().invoke(app, ["score", str(SUITE), "--submission", str(path), "--k", "3",
                                      "--json", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "pass@3" in result.output
    totals = json.loads(out.read_text(encoding="utf-8"))["totals"]
    assert [p["k"] for p in totals["code"]["pass_at_k"]] == [1, 3]


def test_results_carry_provenance(tmp_path: Path) -> None:
    import veriscale
    from veriscale.stages.score.provenance import suite_hash

    path = tmp_path / "samples.jsonl"
    write_submissions(path, _samples())
    out = tmp_path / "score.json"
    result = CliRunner().invoke(app, ["score", str(SUITE), "--submission", str(path), "--model", "m-1",
                                      "--json", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    layout = json.loads(out.read_text(encoding="utf-8"))
    prov = layout["provenance"]
    assert layout["model"] == prov["model"] == "m-1"
    assert prov["veriscale_version"] == veriscale.__version__
    assert prov["suite"] == str(SUITE) and prov["suite_hash"] == suite_hash(SUITE)
    assert prov["engine"] == "embedded" and prov["options"]["workers"] == 1
    assert prov["date"].endswith("+00:00") and "git_commit" in prov
    entry = next(t for t in layout["tasks"] if t["task"] == "score_defects" and t["sample"] == 0)
    code = entry["failures"]["code"]
    assert code["first"] == "test 1" and code["input"] == {"xs": "[1, 2]"}
    assert (code["returned"], code["expected"]) == ("[1, 2]", "[2, 4]")


def test_the_suite_hash_sees_every_change(tmp_path: Path) -> None:
    import shutil

    from veriscale.stages.score.provenance import suite_hash

    copy = tmp_path / "suite"
    shutil.copytree(SUITE, copy)
    before = suite_hash(copy)
    assert before == suite_hash(SUITE)
    (copy / "score_defects" / "reject_inputs.json").write_text("[]", encoding="utf-8")
    assert suite_hash(copy) != before


def test_tasks_selects_and_an_unknown_id_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    write_submissions(path, _samples())
    runner = CliRunner()
    out = tmp_path / "score.json"
    result = runner.invoke(app, ["score", str(SUITE), "--submission", str(path), "--tasks", "score_defects",
                                 "--json", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert {t["task"] for t in json.loads(out.read_text(encoding="utf-8"))["tasks"]} == {"score_defects"}
    result = runner.invoke(app, ["score", str(SUITE), "--submission", str(path), "--tasks", "nope,nada"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: none of the task ids nada, nope is a task of {SUITE}"]
