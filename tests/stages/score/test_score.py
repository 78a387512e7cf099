"""Scoring: bounds per metric, data defects skipped and counted, the report layout, the CLI.

The suite used here is our own (tests/fixtures/hostile/submissions/suite), not benchmark data.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from stages.score.conftest import score_one
from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.benchmark import load_benchmark
from veriscale.cli import app
from veriscale.stages.score import (
    METRICS,
    ScoreReport,
    Submission,
    format_report,
    ground_truth_submission,
    score_suite,
    write_submissions,
)
from veriscale.stages.score.models import BASE_METRICS, Bound, TaskScore, compute_totals
from veriscale.stages.score.scoring import merge_groups, score_task
from veriscale.task import Task, load_task

SUITE = Path(__file__).resolve().parents[2] / "fixtures" / "hostile" / "submissions" / "suite"
CLAMP = SUITE / "score_clamp_all"
DEFECTS = SUITE / "score_defects"
SPEC_AND_CODE = ("code", "code_aux", "precond", "precond_aux", "postcond", "postcond_aux")


def _bounds(score: TaskScore, metrics: Sequence[str] = BASE_METRICS) -> dict[str, tuple[int, int]]:
    return {m: (b.lower, b.upper) for m in metrics if (b := score.bound(m)) is not None}


def test_ground_truth_scores_one_on_everything_but_the_proof(clamp: Task, embedded: Backend) -> None:
    score = merge_groups(clamp.id, score_task(clamp, ground_truth_submission(clamp), embedded))
    bounds = _bounds(score, METRICS)
    assert bounds == {
        "precond_sound": (1, 1), "precond_complete": (1, 1), "postcond_sound": (1, 1),
        "postcond_complete": (1, 1), "code": (1, 1), "proof": (0, 1),
        # Verina's combined metrics: each part passed
        "precond_sound_complete": (1, 1), "postcond_sound_complete": (1, 1), "precond_postcond": (1, 1),
        "code_spec": (1, 1),
    }
    assert score.reasons == ["proof: unknown (unsupported): the embedded engine cannot check proofs (use --backend lean)"]
    # 5 tests (precond, code, postcond each), 2 rejects, 11 unexpected outputs; no proof check.
    assert score.checks == 5 * 3 + 2 + 11


def test_only_submitted_metrics_are_scored(clamp: Task, embedded: Backend) -> None:
    assert set(_bounds(score_one(clamp, embedded, code="  xs.map (clampOne lo hi)"))) == {"code"}
    assert set(_bounds(score_one(clamp, embedded, precond_aux=""))) == {
        "precond_sound", "precond_complete"}
    assert set(_bounds(score_one(clamp, embedded, postcond="  True"))) == {"postcond_sound", "postcond_complete"}


def test_every_failing_test_is_named_with_the_first_ones_values(clamp: Task, embedded: Backend) -> None:
    score = score_one(clamp, embedded, code="  xs")
    assert _bounds(score) == {"code": (0, 0)}
    assert score.checks == 5  # a wrong answer does not stop the metric
    # `xs` unchanged is right where every element is already in range (tests 2 and 3).
    failing = score.failures["code"]
    assert failing.failing == ["test 1", "test 4", "test 5"]
    assert (failing.first, failing.input) == ("test 1", {"xs": "[5, -2, 11]", "lo": "0", "hi": "10"})
    assert (failing.returned, failing.expected, failing.halted) == ("[5, -2, 11]", "[5, 0, 10]", None)
    assert score.reasons == ["code: test 1: returned [5, -2, 11], expected [5, 0, 10]",
                             "code: 3 failing test(s): test 1, test 4, test 5"]


def test_an_accepted_wrong_output_is_shown(clamp: Task, embedded: Backend) -> None:
    score = score_one(clamp, embedded, postcond="  result.length = xs.length")
    failing = score.failures["postcond_sound"]
    # test 1's unexpected outputs: [5, -2, 11] (right length: accepted), [5, 0] (rejected), [5, 0, 9]
    assert failing.failing[:2] == ["test 1 unexpected 1", "test 1 unexpected 3"]
    assert failing.output == "[5, -2, 11]" and failing.input["xs"] == "[5, -2, 11]"
    assert (failing.returned, failing.expected) == ("true", "false")
    assert "postcond_complete" not in score.failures


def test_a_wrong_answer_on_a_later_test_is_found(clamp: Task, embedded: Backend) -> None:
    # Right on tests 0-3, wrong only on test 4 (a range narrower than the values).
    code = "  if lo = 2 then xs else xs.map (clampOne lo hi)"
    score = score_one(clamp, embedded, code=code)
    assert _bounds(score) == {"code": (0, 0)}
    assert score.reasons[0].startswith("code: test 5: returned [1, 2, 3, 4]")


def test_alternative_correct_answers_pass(clamp: Task, embedded: Backend) -> None:
    score = score_one(
        clamp, embedded,
        code="  xs.map (fun x => max lo (min hi x))",
        precond="  ¬ (hi < lo)",
        postcond_aux="def within (lo hi x : Int) : Int := max lo (min hi x)",
        postcond="  result = xs.map (within lo hi)",
    )
    assert set(_bounds(score).values()) == {(1, 1)}
    assert score.reasons == []


def test_undecidable_answers_lift_only_the_upper_bound(clamp: Task, embedded: Backend) -> None:
    # An unbounded quantifier the engine cannot decide: neither a pass nor a failure.
    score = score_one(clamp, embedded, precond="  lo ≤ hi ∧ ∀ n : Nat, n + 0 = n")
    bounds = _bounds(score)
    # undecided on the test inputs (soundness); decided false on the reject inputs (completeness)
    assert bounds["precond_sound"] == (0, 1)
    assert bounds["precond_complete"] == (1, 1)
    assert any(r.startswith("precond_sound:") and "unknown" in r for r in score.reasons)


class ScriptedBackend(Backend):
    """Answers every check with one scripted answer per kind (and records what it was asked)."""

    name = "scripted"

    def __init__(self, answers: dict[CheckKind, Answer]) -> None:
        self.answers = answers
        self.calls: list[int] = []

    def run(self, task: Any, checks: Sequence[Check]) -> list[Answer]:
        self.calls.append(len(checks))
        return [self.answers[c.kind] for c in checks]


@pytest.mark.parametrize("reason", list(UnknownReason))
def test_an_unknown_is_never_a_pass(clamp: Task, reason: UnknownReason) -> None:
    unknown = Answer.unknown(reason, "scripted", "scripted")
    backend = ScriptedBackend({k: unknown for k in CheckKind})
    score = merge_groups(clamp.id, score_task(clamp, ground_truth_submission(clamp, SPEC_AND_CODE), backend))
    soft = reason in (UnknownReason.UNDECIDABLE, UnknownReason.UNSUPPORTED)
    for metric, bound in _bounds(score).items():
        assert bound[0] == 0, metric
        assert bound[1] == (1 if soft else 0), metric
    if not soft:
        # A hard unknown ends each metric at its first check, and says so.
        assert score.checks == 5
        assert all(f.halted is not None and f.failing == [f.first] for f in score.failures.values())


def test_engine_answers_of_the_wrong_kind_are_failures(clamp: Task) -> None:
    backend = ScriptedBackend({
        CheckKind.CODE: Answer.of_bool(True, "scripted"),
        CheckKind.PRECOND: Answer.of_value(1, "scripted"),
        CheckKind.POSTCOND: Answer.of_value(True, "scripted"),
    })
    score = merge_groups(clamp.id, score_task(clamp, ground_truth_submission(clamp, SPEC_AND_CODE), backend))
    assert set(_bounds(score).values()) == {(0, 0)}


def test_chunks_grow_so_passing_metrics_cost_few_engine_calls(clamp: Task) -> None:
    backend = ScriptedBackend({CheckKind.POSTCOND: Answer.of_bool(False, "scripted")})
    score = score_one(clamp, backend, postcond="  False")
    assert _bounds(score) == {"postcond_sound": (1, 1), "postcond_complete": (0, 0)}
    # First call: one check per metric; then 4 more of each, then the rest of postcond_sound (a
    # failing metric runs on, to name every failing test).
    assert backend.calls == [2, 8, 6]
    assert score.failures["postcond_complete"].failing == [f"test {i}" for i in range(1, 6)]


def test_unreadable_stored_values_are_skipped_named_and_counted() -> None:
    from veriscale.backends.embedded.backend import EmbeddedBackend

    task = load_task(DEFECTS)
    score = merge_groups(task.id, score_task(task, ground_truth_submission(task, SPEC_AND_CODE), EmbeddedBackend()))
    assert set(_bounds(score).values()) == {(1, 1)}
    assert score.skipped == {
        "precond_sound": 1,       # test 3's input does not parse (a negative Nat)
        "precond_complete": 1,    # reject 2 does not parse
        "postcond_sound": 2,      # test 1's unexpected 2, and test 3 (its input)
        "postcond_complete": 2,   # test 2's truncated expected, test 3
        "code": 2,
    }
    code_reason = next(r for r in score.reasons if r.startswith("code:"))
    assert "test 2, test 3" in code_reason and "truncated" in code_reason


def test_skipped_tests_do_not_hide_a_wrong_answer() -> None:
    from veriscale.backends.embedded.backend import EmbeddedBackend

    task = load_task(DEFECTS)
    score = score_one(task, EmbeddedBackend(), code="  xs.map (fun x => x + x + 1)", postcond="  result.length = xs.length")
    assert _bounds(score) == {"code": (0, 0), "postcond_sound": (0, 0), "postcond_complete": (1, 1)}


def test_a_metric_whose_every_test_is_unreadable_is_unknown(tmp_path: Path) -> None:
    from veriscale.backends.embedded.backend import EmbeddedBackend

    suite = tmp_path / "suite"
    shutil.copytree(DEFECTS, suite / "score_defects")
    rows = json.loads((suite / "score_defects" / "test.json").read_text(encoding="utf-8"))
    for row in rows:
        row["expected"] = "9]"
    (suite / "score_defects" / "test.json").write_text(json.dumps(rows), encoding="utf-8")
    task = load_task(suite / "score_defects")
    score = score_one(task, EmbeddedBackend(), code="  []")
    assert _bounds(score) == {"code": (0, 1)}
    assert any("no test could be judged" in r for r in score.reasons)


def test_a_metric_without_tests_is_vacuously_satisfied(tmp_path: Path, embedded: Backend) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(CLAMP, suite / "score_clamp_all")
    (suite / "score_clamp_all" / "reject_inputs.json").write_text("[]", encoding="utf-8")
    task = load_task(suite / "score_clamp_all")
    score = score_one(task, embedded, precond="  True")
    assert _bounds(score) == {"precond_sound": (1, 1), "precond_complete": (1, 1)}
    assert any("vacuously" in r for r in score.reasons)


def test_bound_validation_and_totals() -> None:
    with pytest.raises(ValueError):
        Bound(lower=1, upper=0)
    with pytest.raises(ValueError):
        Bound(lower=0, upper=2)
    scores = [
        TaskScore(task="a", code=Bound(lower=1, upper=1), proof=Bound(lower=0, upper=1)),
        TaskScore(task="b", code=Bound(lower=0, upper=1)),
        TaskScore(task="c", precond_sound=Bound(lower=0, upper=0)),
    ]
    totals = compute_totals(scores)
    assert set(totals) == {"code", "proof", "precond_sound"}
    assert (totals["code"].tasks, totals["code"].lower, totals["code"].upper) == (2, 1, 2)
    assert totals["code"].lower_rate == 0.5 and totals["code"].upper_rate == 1.0
    assert (totals["precond_sound"].lower, totals["precond_sound"].upper) == (0, 0)


def test_score_suite_reports_errors_missing_tasks_and_the_issue_layout(tmp_path: Path) -> None:
    tasks = {t.id: t for t in load_benchmark(SUITE).tasks}
    submissions = [
        Submission(task="score_clamp_all", code="  xs", postcond="  True"),
        Submission(task="not_a_task", code="  []"),
    ]
    report = score_suite(SUITE, submissions, workers=1, progress=False)
    assert isinstance(report, ScoreReport)
    assert [s.task for s in report.tasks] == ["score_clamp_all"]
    assert report.errors == [f"not_a_task: no such task in {SUITE}"]
    assert report.missing == sorted(set(tasks) - {"score_clamp_all"})
    layout = report.to_json()
    entry = layout["tasks"][0]
    # Only the submitted metrics appear; precond and proof are left out.
    assert {k for k in entry if k in METRICS} == {
        "code", "postcond_sound", "postcond_complete", "postcond_sound_complete"}
    assert entry["code"] == {"lower": 0, "upper": 0}
    assert entry["postcond_complete"] == {"lower": 1, "upper": 1}
    assert any(r.startswith("postcond_sound: ") for r in entry["reasons"])
    assert layout["totals"]["code"] == {"tasks": 1, "lower": 0, "upper": 0, "lower_rate": 0.0, "upper_rate": 0.0,
                                        "samples": 1, "pass_at_k": [{"k": 1, "lower": 0.0, "upper": 0.0}],
                                        "notes": []}
    assert "precond_sound" not in layout["totals"]
    json.dumps(layout)  # serialisable as it is
    # the embedded engine's elaborator is a model of Lean's, and the report says so
    assert len(layout["caveats"]) == 1 and "not by Lean itself" in layout["caveats"][0]
    text = format_report(report)
    assert "score_clamp_all" in text and "not_a_task" in text
    assert "caveat: embedded engine" in text


def test_score_suite_in_worker_processes_matches_in_process() -> None:
    submissions = [ground_truth_submission(t, SPEC_AND_CODE) for t in load_benchmark(SUITE).tasks]
    pooled = score_suite(SUITE, submissions, workers=2, progress=False)
    inline = score_suite(SUITE, submissions, workers=1, progress=False)
    assert [s.model_dump(exclude={"seconds"}) for s in pooled.tasks] == [
        s.model_dump(exclude={"seconds"}) for s in inline.tasks]
    assert pooled.totals == inline.totals
    assert pooled.skipped_checks == 8


def test_cli_score_writes_json_and_prints_a_table(tmp_path: Path) -> None:
    submission = tmp_path / "sub.jsonl"
    task = load_task(CLAMP)
    write_submissions(submission, [ground_truth_submission(task, SPEC_AND_CODE)])
    with submission.open("a", encoding="utf-8") as handle:
        handle.write('{"task": "score_defects", "code": 1}\n')
    out = tmp_path / "score.json"
    result = CliRunner().invoke(app, ["score", str(SUITE), "--submission", str(submission), "--json", str(out),
                                      "--workers", "1", "--verbose"])
    # the unreadable second line is the user's mistake: exit 2, after the other line is scored
    assert result.exit_code == 2, result.output
    assert "1 line(s) could not be read" in result.output
    # named once, with its task and reason (on stderr), not again in the summary
    assert result.output.count("sub.jsonl:2") == 1
    assert "sub.jsonl:2: score_defects" in result.stderr
    assert "score_clamp_all" in result.output and "TOTAL" in result.output
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert payload["tasks"][0]["task"] == "score_clamp_all"
    assert payload["tasks"][0]["code"] == {"lower": 1, "upper": 1}
    assert any("sub.jsonl:2" in e and "score_defects" in e for e in payload["errors"])


def test_cli_score_rejects_a_missing_suite(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(tmp_path / "nope"), "--submission", str(tmp_path / "s.jsonl")])
    assert result.exit_code == 2


def test_benchmark_script_scores_the_ground_truth_of_a_suite(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "score_verinaplus.py"
    spec = importlib.util.spec_from_file_location("score_verinaplus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main([str(SUITE), "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "checks/s:" in out and "seconds:" in out
    assert "total code: lower 2/2 (1.000), upper 2/2 (1.000)" in out
    assert "total proof" not in out  # proofs are submitted only with --with-proof


def test_cli_score_reports_an_unusable_engine(tmp_path: Path) -> None:
    if shutil.which("lake") is not None:
        pytest.skip("lake is installed here")
    submission = tmp_path / "sub.jsonl"
    write_submissions(submission, [Submission(task="score_clamp_all", code="  xs")])
    result = CliRunner().invoke(app, ["score", str(SUITE), "--submission", str(submission), "--backend", "lean"])
    assert result.exit_code == 2
    assert "lean backend is not usable" in result.output
