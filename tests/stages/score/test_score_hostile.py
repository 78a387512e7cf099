"""The hostile corpus: submissions that try to fool a scorer get 0/0 on the metric they attack.

Each entry of tests/fixtures/hostile/submissions/corpus.json is a submission for our own task
``score_clamp_all`` (not benchmark data), the metrics it attacks, and a text the reason for each
must contain. The tricks: ``#exit``, BEq/Decidable overrides, sorry/admit/axiom/Plausible,
native_decide, IO, debug output, option changes, implementation overrides, marker injection,
syntax extensions, scope leaks, timeouts, deep recursion, huge outputs, ill-typed outputs,
redeclarations the embedded engine would otherwise accept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from veriscale.backends.base import Backend
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.stages.score import Submission
from veriscale.stages.score.models import BASE_METRICS
from veriscale.stages.score.scoring import GROUP_METRICS, merge_groups, score_group, score_task
from veriscale.task import Task, load_task

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "hostile" / "submissions"
CORPUS: list[dict[str, Any]] = json.loads((HERE / "corpus.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def task() -> Task:
    return load_task(HERE / "suite" / "score_clamp_all")


@pytest.fixture(scope="module")
def backend() -> Backend:
    # A small step budget keeps the corpus fast; the verdicts do not depend on it.
    return EmbeddedBackend(max_steps=300_000)


@pytest.mark.parametrize("entry", CORPUS, ids=[e["name"] for e in CORPUS])
def test_hostile_submission_gets_no_pass_on_the_metric_it_attacks(
    entry: dict[str, Any], task: Task, backend: Backend
) -> None:
    submission = Submission.model_validate(entry["submission"])
    score = merge_groups(task.id, score_task(task, submission, backend))
    for metric in entry["attacks"]:
        bound = score.bound(metric)
        assert bound is not None, metric
        assert bound.lower == 0, f"false pass: {metric} {score.reasons}"
        assert bound.upper == entry.get("upper", 0), f"{metric} {score.reasons}"
        assert any(r.startswith(f"{metric}: ") and entry["reason"] in r for r in score.reasons), score.reasons
    for reason in score.reasons:
        assert len(reason) <= 400, "a reason line must stay short, whatever the output size"


def test_the_corpus_covers_every_trick_of_the_issue() -> None:
    reasons = {e["reason"] for e in CORPUS}
    names = " ".join(e["name"] for e in CORPUS)
    for rule in ("exit-command", "instance-override", "sorry", "axiom", "native-decide", "io", "timeout"):
        assert rule in reasons, rule
    for trick in ("beq", "huge_output", "deep_recursion", "timeout"):
        assert trick in names, trick
    attacked = {m for e in CORPUS for m in e["attacks"]}
    assert attacked == set(BASE_METRICS)


def test_a_beq_override_cannot_fool_the_typed_comparison_even_unscreened(task: Task, backend: Backend) -> None:
    """Outputs are compared in Python as typed values: a BEq instance the screen had missed would
    still not make a wrong output equal the expected one."""
    submission = Submission(
        task=task.id,
        code_aux="instance : BEq (List Int) where\n  beq _ _ := true",
        code="  xs.map (fun _ => 0)",
    )
    result = score_group(task, submission, "code", backend, screened={})  # the screen bypassed
    assert result.bounds["code"].lower == 0 and result.bounds["code"].upper == 0
    assert result.reasons[0].startswith("code: test 1: returned [0, 0, 0]")


def test_an_unsafe_precondition_also_fails_the_postcondition_that_runs_with_it(task: Task, backend: Backend) -> None:
    submission = Submission(task=task.id, precond_aux="#exit", precond="  lo ≤ hi",
                            postcond="  result = xs.map (clampOne lo hi)")
    score = merge_groups(task.id, score_task(task, submission, backend))
    assert {m: (b.lower, b.upper) for m in BASE_METRICS if (b := score.bound(m))} == {
        "precond_sound": (0, 0), "precond_complete": (0, 0), "postcond_sound": (0, 0), "postcond_complete": (0, 0)}
    assert all("exit-command" in r for r in score.reasons)


def test_an_unsafe_code_section_does_not_taint_the_specification(task: Task, backend: Backend) -> None:
    submission = Submission(task=task.id, code="  sorry", precond="  lo ≤ hi",
                            postcond="  result = xs.map (clampOne lo hi)")
    score = merge_groups(task.id, score_task(task, submission, backend))
    assert (score.code.lower, score.code.upper) == (0, 0)  # type: ignore[union-attr]
    for metric in GROUP_METRICS["precond"] + GROUP_METRICS["postcond"]:
        bound = score.bound(metric)
        assert bound is not None and (bound.lower, bound.upper) == (1, 1), metric


def test_proof_is_judged_by_a_proof_checking_engine(task: Task) -> None:
    """With an engine that checks proofs (real Lean), its verdict decides; a failure to run is 0/0."""
    from veriscale.backends.base import Answer, Check

    class ProofEngine(Backend):
        name = "lean"

        def __init__(self, verdict: Any) -> None:
            self.verdict = verdict
            self.seen: list[str] = []

        def run(self, task: Any, checks: list[Check]) -> list[Answer]:
            raise AssertionError("no evaluation checks for a proof")

        def check_proof(self, task_copy: Task) -> Any:
            self.seen.append(task_copy.section("proof"))
            if isinstance(self.verdict, Exception):
                raise self.verdict
            return self.verdict

    from veriscale.backends.lean import ProofCheck

    submission = Submission(task=task.id, proof="  simp [clampAll_postcond]")
    accepted = ProofEngine(ProofCheck(theorem="t", accepted=True, axioms={"propext"}, reason="ok"))
    result = score_group(task, submission, "proof", accepted)
    assert (result.bounds["proof"].lower, result.bounds["proof"].upper) == (1, 1)
    assert accepted.seen == ["  simp [clampAll_postcond]\n"]
    rejected = ProofEngine(ProofCheck(theorem="t", accepted=False, reason="uses axioms sorryAx"))
    result = score_group(task, submission, "proof", rejected)
    assert (result.bounds["proof"].lower, result.bounds["proof"].upper) == (0, 0)
    assert "sorryAx" in result.reasons[0]
    crashed = ProofEngine(RuntimeError("REPL died"))
    result = score_group(task, submission, "proof", crashed)
    assert (result.bounds["proof"].lower, result.bounds["proof"].upper) == (0, 0)
    # Screened before any engine sees it.
    result = score_group(task, Submission(task=task.id, proof="  native_decide"), "proof", accepted)
    assert (result.bounds["proof"].lower, result.bounds["proof"].upper) == (0, 0)
    assert accepted.seen == ["  simp [clampAll_postcond]\n"]
