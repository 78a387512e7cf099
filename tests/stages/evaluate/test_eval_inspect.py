"""CodeGen, SpecGen and ProofGen as inspect_ai tasks on examples/mini: scripted replies through inspect's mock
model (a right answer, a wrong one, a reply not in the asked format, a changed header, a refusal,
a cut-off reply) and through the local OpenAI-compatible server; every score comes from
VeriScale's score stage on the embedded engine."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Reply
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, StopReason, get_model

from stages.evaluate.test_eval_proofgen import CLAMP_PROOF
from veriscale.stages.evaluate.inspect_tasks import codegen, generation_dataset, proofgen, specgen
from veriscale.stages.evaluate.prompts import build_prompt, headers_for
from veriscale.task import Task, load_task

ROOT = Path(__file__).resolve().parents[3]
MINI = ROOT / "examples" / "mini"
CLAMP = load_task(MINI / "mini_clamp")


def _lean(text: str) -> str:
    return "Here it is:\n```lean\n" + text.strip("\n") + "\n```\n"


def _ground_truth(task: Task, kind: str) -> str:
    """The task's own sections as a reply of ``kind``: each requested definition with its helpers."""
    parts = []
    for header in headers_for(task, kind):  # type: ignore[arg-type]
        aux = task.section(header.aux_section).strip()
        parts.extend([aux] if aux else [])
        parts.append(header.text + "\n" + task.section(header.section).rstrip())
    return _lean("\n\n".join(parts))


def _output(content: str, stop_reason: StopReason = "stop") -> ModelOutput:
    output = ModelOutput.from_content("mockllm", content, stop_reason=stop_reason)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    return output


def _score_one(inspect_task: Any, output: ModelOutput | str, tmp_path: Path, **model: Any) -> Any:
    if isinstance(output, str):
        output = _output(output)
    reply = output

    def script(messages, tools, tool_choice, config):
        return reply

    mock = get_model("mockllm/model", custom_outputs=script, **model)
    (log,) = inspect_eval(inspect_task, model=mock, display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    return sample.scores["generation_scorer"]


def test_the_dataset_holds_evals_prompts() -> None:
    dataset = generation_dataset(str(MINI), "codegen")
    assert [s.id for s in dataset] == sorted(p.name for p in MINI.iterdir() if p.is_dir())
    clamp = next(s for s in dataset if s.id == "mini_clamp")
    expected = build_prompt(CLAMP, "codegen")
    assert [(m.role, m.text) for m in clamp.input] == [(m["role"], m["content"]) for m in expected]


def test_a_task_selection_that_names_no_task_is_an_error() -> None:
    with pytest.raises(ValueError, match="no_such_task"):
        generation_dataset(str(MINI), "codegen", tasks="no_such_task")
    with pytest.raises(FileNotFoundError):
        generation_dataset(str(MINI / "missing"), "codegen")


WRONG_CODE = _lean(f"{headers_for(CLAMP, 'codegen')[0].text}\n  x")


@pytest.mark.parametrize(
    ("reply", "value", "why"),
    [
        ("right", 1.0, "every check passed"),
        ("wrong", 0.0, "code: test"),
        ("no-block", 0.0, "no usable reply: no-code-block"),
        ("header", 0.0, "no usable reply: header-changed: clampToRange"),
        ("refusal", 0.0, "no usable reply: refusal"),
        ("truncated", 0.0, "no usable reply: truncated"),
    ],
)
def test_codegen_replies(tmp_path, reply, value, why) -> None:
    outputs = {
        "right": _output(_ground_truth(CLAMP, "codegen")),
        "wrong": _output(WRONG_CODE),
        "no-block": _output("def clampToRange (x : Int) : Int := x"),
        "header": _output(_lean("def clampToRange (x : Int) (lo : Int) (hi : Int) : Int :=\n  x")),
        "refusal": _output("", stop_reason="content_filter"),
        "truncated": _output(_ground_truth(CLAMP, "codegen")[:60], stop_reason="max_tokens"),
    }
    score = _score_one(codegen(suite=str(MINI), tasks="mini_clamp"), outputs[reply], tmp_path)
    assert score.value == {"code": value}
    assert why in score.explanation


def test_specgen_right_and_wrong(tmp_path) -> None:
    right = _score_one(specgen(suite=str(MINI), tasks=["mini_clamp"]), _ground_truth(CLAMP, "specgen"), tmp_path)
    assert set(right.value) == {"precond_sound", "precond_complete", "postcond_sound", "postcond_complete",
                                "precond_sound_complete", "postcond_sound_complete", "precond_postcond"}
    assert all(v == 1.0 for v in right.value.values()), right.explanation

    precond, postcond = headers_for(CLAMP, "specgen")
    loose = _lean(f"{precond.text}\n{CLAMP.section('precond').rstrip()}\n\n{postcond.text}\n  True")
    wrong = _score_one(specgen(suite=str(MINI), tasks="mini_clamp"), loose, tmp_path)
    assert wrong.value["postcond_sound"] == 0.0  # True accepts every wrong output
    assert wrong.value["postcond_complete"] == 1.0 and wrong.value["precond_sound"] == 1.0
    assert wrong.value["precond_postcond"] == 0.0


def test_codegen_through_the_local_openai_server(tmp_path, monkeypatch) -> None:
    def answer(body: Any) -> Reply:
        """The clamp task gets its right answer; any other task a refusal."""
        if "clampToRange" in body["messages"][-1]["content"]:
            return Reply(_ground_truth(CLAMP, "codegen"), usage=(10, 5))
        return Reply(None, finish_reason="content_filter", refusal="I cannot help with that.", usage=(10, 0))

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeOpenAIServer(default=answer) as server:
        model = get_model("openai/gpt-4o-mini", base_url=server.base_url, api_key="test-key")
        (log,) = inspect_eval(
            codegen(suite=str(MINI), tasks="mini_clamp,mini_count_evens"),
            model=model,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
        assert len(server.requests) == 2
    scores = {s.id: s.scores["generation_scorer"] for s in log.samples or []}
    assert scores["mini_clamp"].value == {"code": 1.0}
    assert scores["mini_count_evens"].value == {"code": 0.0}
    assert "no usable reply: refusal" in scores["mini_count_evens"].explanation


def test_an_undecided_metric_is_not_a_pass(tmp_path, monkeypatch) -> None:
    """What the engine cannot decide (lower bound 0, upper 1) scores 0 and says so."""
    from veriscale.stages.evaluate import inspect_tasks
    from veriscale.stages.score.models import Bound
    from veriscale.stages.score.scoring import GroupResult

    def undecided(task, submission, backend, groups=None):
        return [GroupResult(task=task.id, group="code", bounds={"code": Bound(lower=0, upper=1)},
                            reasons=["code: test 1: unknown (unsupported)"])]

    monkeypatch.setattr(inspect_tasks, "score_task", undecided)
    score = _score_one(codegen(suite=str(MINI), tasks="mini_clamp"), _ground_truth(CLAMP, "codegen"), tmp_path)
    assert score.value == {"code": 0.0}
    assert score.explanation.startswith("undecided (counted as failed): code")
    assert score.metadata["score"]["code"] == {"lower": 0, "upper": 1}


# ---------------------------------------------------------------------------------------------
# ProofGen

PROOF_HEADER = headers_for(CLAMP, "proofgen")[0].text


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        # Well formed: the embedded engine cannot check a proof, so it is unknown -- 0, never a pass.
        (_lean(f"{PROOF_HEADER} by\n{CLAMP_PROOF}"), "undecided (counted as failed): proof"),
        (_lean(f"{PROOF_HEADER} by\n  sorry"), "proof: unsafe:"),  # the screen, before any engine
        (_lean(f"{PROOF_HEADER}\n  fun _ => trivial"), "no usable reply: not-a-tactic-proof"),
    ],
)
def test_proofgen_on_the_embedded_engine_never_passes(tmp_path, reply: str, why: str) -> None:
    score = _score_one(proofgen(suite=str(MINI), tasks="mini_clamp"), reply, tmp_path)
    assert score.value == {"proof": 0.0}
    assert why in score.explanation


def test_a_proof_the_embedded_engine_cannot_check_says_so(tmp_path) -> None:
    score = _score_one(proofgen(suite=str(MINI), tasks="mini_clamp"), _lean(f"{PROOF_HEADER} by\n{CLAMP_PROOF}"),
                       tmp_path)
    assert score.metadata["score"]["proof"] == {"lower": 0, "upper": 1}
    assert "embedded engine cannot check proofs" in score.explanation
    assert score.metadata["sections"]["proof"] == CLAMP_PROOF


@pytest.mark.lean
@pytest.mark.skipif(shutil.which("lake") is None, reason="needs a Lean 4 toolchain (lake on PATH)")
def test_proofgen_on_the_lean_backend_checks_the_proof(tmp_path) -> None:
    right = _score_one(proofgen(suite=str(MINI), tasks="mini_clamp", backend="lean"),
                       _lean(f"{PROOF_HEADER} by\n{CLAMP_PROOF}"), tmp_path)
    assert right.value == {"proof": 1.0}, right.explanation
    wrong = _score_one(proofgen(suite=str(MINI), tasks="mini_clamp", backend="lean"),
                       _lean(f"{PROOF_HEADER} by\n  unfold clampToRange_postcond clampToRange\n  rfl"), tmp_path)
    assert wrong.value == {"proof": 0.0}


def test_proofgen_by_its_registered_name(tmp_path) -> None:
    """``inspect eval veriscale/proofgen``: resolved through the declared entry point in a fresh
    interpreter (the games' entry-point test's runner), scored on the embedded engine."""
    from games.test_inspect_entry_point import _run_in_fresh_interpreter

    runs = [{
        "task": "veriscale/proofgen",
        "task_args": {"suite": str(MINI), "tasks": "mini_clamp"},
        "replies": [_lean(f"{PROOF_HEADER} by\n{CLAMP_PROOF}")],
        "log_dir": str(tmp_path / "logs"),
    }]
    (result,) = _run_in_fresh_interpreter(runs, tmp_path)
    assert result["status"] == "success" and result["task"] == "veriscale/proofgen"
    assert result["scores"] == [{"id": "mini_clamp", "value": {"proof": 0.0}}]
