"""``veriscale eval --mode proofgen``: the prompt, reading proof replies, and the run end to end.

The end-to-end tests use the real ``openai`` client over real HTTP against
``tests/fake_openai_server.py``, examples/mini, and the real scorer. On the embedded engine a
proof is never a pass (unknown, lower 0 / upper 1); the Lean-marked test checks a real proof.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES_DIR
from fake_openai_server import Behaviour, FakeOpenAIServer, Reply

from veriscale.llm import LLMConfig, LLMConfigError, RetryPolicy
from veriscale.stages.evaluate import (
    EvalOptions,
    ReplyError,
    ReplySections,
    build_prompt,
    build_proofgen_prompt,
    headers_for,
    parse_reply,
    proof_context,
    run_eval,
    theorem_header,
)
from veriscale.stages.score import NoTaskSelected
from veriscale.task import load_task

MINI = EXAMPLES_DIR / "mini"
CLAMP_THEOREM = (
    "theorem clampToRange_spec_satisfied (x : Int) (lo : Int) (hi : Int) "
    "(h_precond : clampToRange_precond (x) (lo) (hi)) : "
    "clampToRange_postcond (x) (lo) (hi) (clampToRange (x) (lo) (hi) h_precond) h_precond :="
)
CLAMP_PROOF = (
    "  unfold clampToRange_postcond clampToRange\n"
    "  unfold clampToRange_precond at h_precond\n"
    "  split\n"
    "  · omega\n"
    "  · split <;> omega\n"
)


@pytest.fixture(scope="module")
def clamp():  # type: ignore[no-untyped-def]
    return load_task(MINI / "mini_clamp")


def fenced(body: str, tag: str = "lean") -> str:
    return f"Here is the proof.\n\n```{tag}\n{body.strip()}\n```\n"


# ---------------------------------------------------------------------------------------------
# Prompt


def test_theorem_header_is_read_from_every_mini_task_file() -> None:
    for path in sorted(p for p in MINI.iterdir() if (p / "task.json").is_file()):
        task = load_task(path)
        header = theorem_header(task)
        assert (header.keyword, header.section, header.aux_section) == ("theorem", "proof", "proof_aux")
        assert header.name == f"{task.signature.name}_spec_satisfied"
        assert header.text.endswith(" h_precond :=") and " by" not in header.text


def test_proofgen_prompt_shows_code_and_spec_and_asks_for_the_theorem(clamp) -> None:  # type: ignore[no-untyped-def]
    system, user = build_proofgen_prompt(clamp)
    assert "proof" in system["content"] and "lean" in system["content"]
    text = user["content"]
    assert "limits an integer to a closed range" in text  # the description
    assert "else if hi < x then hi" in text  # the reference code
    assert "lo ≤ hi" in text  # the precondition
    assert "(x < lo → result = lo)" in text  # the postcondition
    assert f"{CLAMP_THEOREM} by" in text
    assert "sorry" not in text.replace("no `sorry`", "")  # the task file's placeholder proof is not shown
    assert "!benchmark" not in text
    assert build_prompt(clamp, "proofgen") == [system, user]


def test_proof_context_stops_before_the_theorem(clamp) -> None:  # type: ignore[no-untyped-def]
    context = proof_context(clamp)
    assert context.startswith("@[reducible, simp]\ndef clampToRange_precond")
    assert context.rstrip().endswith("(hi < x → result = hi)")
    assert "theorem" not in context and "\n\n\n" not in context


# ---------------------------------------------------------------------------------------------
# Reading proof replies


def test_a_tactic_proof_with_a_helper_lemma_fills_proof_and_proof_aux(clamp) -> None:  # type: ignore[no-untyped-def]
    reply = fenced(f"theorem le_refl' (a : Int) : a ≤ a := by omega\n\n{CLAMP_THEOREM} by\n{CLAMP_PROOF}")
    parsed = parse_reply(reply, headers_for(clamp, "proofgen"))
    assert isinstance(parsed, ReplySections)
    assert parsed.sections == {"proof_aux": "\ntheorem le_refl' (a : Int) : a ≤ a := by omega\n", "proof": CLAMP_PROOF}


@pytest.mark.parametrize(
    "body",
    [
        f"{CLAMP_THEOREM}\n  by\n    simp\n    omega\n",  # `by` on a line of its own
        f"{CLAMP_THEOREM} by simp\n  omega\n",  # the first tactic on the header line
    ],
)
def test_by_placements_give_the_same_tactics(clamp, body: str) -> None:  # type: ignore[no-untyped-def]
    parsed = parse_reply(fenced(body), headers_for(clamp, "proofgen"))
    assert isinstance(parsed, ReplySections)
    assert parsed.sections["proof"] == "  simp\n  omega\n"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (f"{CLAMP_THEOREM}\n  fun _ => trivial\n", "not-a-tactic-proof: clampToRange_spec_satisfied"),
        (f"{CLAMP_THEOREM} by\n  -- to do\n", "empty-body: clampToRange_spec_satisfied"),
        (f"{CLAMP_THEOREM}\n", "empty-body: clampToRange_spec_satisfied"),
        (f"import Mathlib\n\n{CLAMP_THEOREM} by\n  simp\n", "import-in-reply"),
        (CLAMP_THEOREM.replace("theorem", "lemma") + " by simp\n", "missing-definition: clampToRange_spec_satisfied"),
        (CLAMP_THEOREM.replace("(lo) (hi) h_precond) h_precond", "(lo) (hi) h_precond) h_precond ∨ True")
         + " by simp\n", "header-changed: clampToRange_spec_satisfied"),
        (f"{CLAMP_THEOREM} by\n  simp\n\n#print axioms clampToRange_spec_satisfied\n", "text-after-definition"),
    ],
)
def test_proof_replies_not_in_the_asked_form_are_named_errors(clamp, body: str, reason: str) -> None:  # type: ignore[no-untyped-def]
    assert parse_reply(fenced(body), headers_for(clamp, "proofgen")) == ReplyError(reason=reason)


# ---------------------------------------------------------------------------------------------
# End to end on examples/mini (embedded engine)

PROOF_REPLIES = {
    "clampToRange": fenced(f"{CLAMP_THEOREM} by\n{CLAMP_PROOF}"),  # well formed
    "runningMax": fenced(  # a term proof: not what was asked
        "theorem runningMax_spec_satisfied (a : Array Int) (h_precond : runningMax_precond (a)) :\n"
        "    runningMax_postcond (a) (runningMax (a) h_precond) h_precond :=\n  fun _ => trivial\n"
    ),
    "countEvens": fenced(  # well formed, but the safety screen rejects `sorry`
        "theorem countEvens_spec_satisfied (xs : List Nat) (h_precond : countEvens_precond (xs)) :\n"
        "    countEvens_postcond (xs) (countEvens (xs) h_precond) h_precond := by\n  sorry\n"
    ),
}


def scripted(replies: dict[str, str]) -> Callable[[Any], Behaviour]:
    """Answer by the theorem the prompt asks for; dedupSorted gets a refusal."""

    def answer(body: Any) -> Behaviour:
        user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        for function, text in replies.items():
            if f"theorem {function}_spec_satisfied " in user:
                return Reply(content=text)
        return Reply(content=None, refusal="I can't help with that.")

    return answer


@pytest.fixture
def proof_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(default=scripted(PROOF_REPLIES)) as running:
        yield running


def llm_config(server: FakeOpenAIServer, model: str = "fake-prover") -> LLMConfig:
    return LLMConfig(model=model, base_url=server.base_url, api_key="test-key", timeout_s=10.0,
                     retry=RetryPolicy(max_attempts=1))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_proofgen_end_to_end_on_the_embedded_engine(proof_server: FakeOpenAIServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    options = EvalOptions(kind="proofgen", concurrency=2, workers=1)
    summary = run_eval(MINI, llm_config(proof_server), options, out, progress=False)

    assert proof_server.request_count == 4
    assert (summary.tasks, summary.replies_ok, summary.replies_failed) == (4, 2, 2)
    assert summary.failed_tasks == {
        "mini_dedup_sorted": "refusal",
        "mini_running_max": "not-a-tactic-proof: runningMax_spec_satisfied",
    }
    assert summary.task_kind == "proofgen"

    submissions = {s["task"]: s for s in read_jsonl(out / "submissions.jsonl")}
    assert sorted(submissions) == ["mini_clamp", "mini_count_evens"]
    assert submissions["mini_clamp"] == {"task": "mini_clamp", "proof": CLAMP_PROOF, "proof_aux": ""}
    assert submissions["mini_count_evens"]["proof"] == "  sorry\n"

    score = json.loads((out / "score.json").read_text(encoding="utf-8"))
    by_task = {t["task"]: t for t in score["tasks"]}
    # A well-formed proof the embedded engine cannot check: unknown, never a pass.
    assert by_task["mini_clamp"]["proof"] == {"lower": 0, "upper": 1}
    assert any("embedded engine cannot check proofs" in r for r in by_task["mini_clamp"]["reasons"])
    # The screen rejects `sorry` before any engine sees it.
    assert by_task["mini_count_evens"]["proof"] == {"lower": 0, "upper": 0}
    assert any(r.startswith("proof: unsafe:") and "sorry" in r for r in by_task["mini_count_evens"]["reasons"])
    for failed, reason in (("mini_dedup_sorted", "refusal"), ("mini_running_max", "not-a-tactic-proof")):
        assert by_task[failed]["proof"] == {"lower": 0, "upper": 0}
        assert any(r.startswith("proof: no usable reply: " + reason) for r in by_task[failed]["reasons"])
    for task in by_task.values():
        assert "code" not in task and "precond_sound" not in task
    proof_total = score["totals"]["proof"]
    assert (proof_total["tasks"], proof_total["lower"], proof_total["upper"]) == (4, 0, 1)
    assert set(score["totals"]) == {"proof"}

    # Resumable: a second run is served from the store, with the same outputs.
    first = (out / "submissions.jsonl").read_text(encoding="utf-8")
    again = run_eval(MINI, llm_config(proof_server), options, out, progress=False)
    assert proof_server.request_count == 4
    assert (again.http_requests, again.cache_hits) == (0, 4)
    assert (out / "submissions.jsonl").read_text(encoding="utf-8") == first
    assert again.totals == summary.totals

    from veriscale.stages.report import build_report

    (row,) = build_report(tmp_path / "report", scores=[out]).score_rows
    assert (row.model, row.kind, row.metric, row.tasks, row.lower, row.upper) == (
        "fake-prover", "proofgen", "proof", 4, 0, 1)


def test_tasks_selects_and_an_unknown_id_stops_before_any_file(proof_server: FakeOpenAIServer, tmp_path: Path) -> None:
    options = EvalOptions(kind="proofgen", workers=1, tasks=("mini_clamp", "not_a_task"))
    summary = run_eval(MINI, llm_config(proof_server), options, tmp_path / "run", progress=False)
    assert proof_server.request_count == 1 and summary.tasks == 1
    score = json.loads((tmp_path / "run" / "score.json").read_text(encoding="utf-8"))
    assert [t["task"] for t in score["tasks"]] == ["mini_clamp"]

    with pytest.raises(NoTaskSelected):
        run_eval(MINI, llm_config(proof_server), options.model_copy(update={"tasks": ("nope",)}),
                 tmp_path / "other", progress=False)
    assert not (tmp_path / "other").exists() and proof_server.request_count == 1


def test_a_missing_api_key_leaves_no_run_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = LLMConfig(model="m", base_url="https://api.example.invalid/v1")
    with pytest.raises(LLMConfigError):
        run_eval(MINI, config, EvalOptions(kind="proofgen", workers=1), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_cli_eval_mode_tasks_and_user_mistakes(proof_server: FakeOpenAIServer, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from veriscale.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    base = ["eval", "--model", "fake/prover", "--suite", str(MINI), "--mode", "proofgen", "--workers", "1"]
    runner = CliRunner()
    result = runner.invoke(app, [*base, "--base-url", proof_server.base_url, "--tasks", "mini_clamp,mini_count_evens"])
    assert result.exit_code == 0, result.output
    assert proof_server.request_count == 2
    assert "(proofgen): 2 task(s)" in result.output and "proof" in result.output
    assert (tmp_path / "runs" / "eval" / "fake-prover" / "mini" / "proofgen" / "score.json").is_file()

    # No task id matches: one line on stderr, exit 2, nothing asked.
    missing = runner.invoke(app, [*base, "--base-url", proof_server.base_url, "--tasks", "nope",
                                  "--out", str(tmp_path / "none")])
    assert missing.exit_code == 2
    assert missing.stderr.strip().splitlines() == [f"error: none of the task ids nope is a task of {MINI}"]
    assert not (tmp_path / "none").exists() and proof_server.request_count == 2

    # No API key for a remote endpoint: one line, exit 2, no run directory left behind.
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    keyless = runner.invoke(app, [*base, "--base-url", "https://api.example.invalid/v1", "--out", str(tmp_path / "k")])
    assert keyless.exit_code == 2
    assert len(keyless.stderr.strip().splitlines()) == 1 and "no API key" in keyless.stderr
    assert not (tmp_path / "k").exists()

    # The old flag is gone.
    old = runner.invoke(app, ["eval", "--model", "m", "--suite", str(MINI), "--task", "codegen"])
    assert old.exit_code == 2


@pytest.mark.data
def test_every_verina_theorem_header_is_read_from_its_file(data_dir: Path) -> None:
    from veriscale.backends.lean.source import theorem_name
    from veriscale.benchmark import load_benchmark

    load = load_benchmark(data_dir / "verina")
    assert len(load.tasks) > 100
    for task in load.tasks:
        header = theorem_header(task)
        assert header.name == theorem_name(task), task.id
        flat = " ".join(task.lean_text().split())
        assert " ".join(header.text.split())[:-2].rstrip() in flat, task.id  # read, not rebuilt
        assert header.text in build_proofgen_prompt(task)[1]["content"]


# ---------------------------------------------------------------------------------------------
# A real proof through the Lean backend


@pytest.mark.lean
@pytest.mark.skipif(shutil.which("lake") is None, reason="needs a Lean 4 toolchain (lake on PATH)")
def test_a_real_proof_is_kernel_checked_through_the_lean_backend(tmp_path: Path) -> None:
    from veriscale.backends.lean import lean_available

    usable, reason = lean_available()
    if not usable:
        pytest.fail(f"lake is installed but the Lean backend is not ready: {reason}")
    wrong = fenced(f"{CLAMP_THEOREM} by\n  unfold clampToRange_postcond clampToRange\n  rfl\n")
    with FakeOpenAIServer(default=lambda body: Reply(content=PROOF_REPLIES["clampToRange"])) as server:
        server.script(Reply(content=PROOF_REPLIES["clampToRange"]), Reply(content=wrong))
        options = EvalOptions(kind="proofgen", workers=1, backend="lean", samples=2, tasks=("mini_clamp",),
                              concurrency=1)
        run_eval(MINI, llm_config(server), options, tmp_path / "run", progress=False)
    score = json.loads((tmp_path / "run" / "score.json").read_text(encoding="utf-8"))
    by_sample = {t["sample"]: t for t in score["tasks"]}
    assert by_sample[0]["proof"] == {"lower": 1, "upper": 1}, by_sample[0]["reasons"]
    assert by_sample[1]["proof"] == {"lower": 0, "upper": 0}
    assert any(r.startswith("proof: rejected:") for r in by_sample[1]["reasons"])


@pytest.mark.parametrize(
    ("sections", "rule"),
    [
        ({"proof": "  native_decide\n"}, "native"),
        ({"proof_aux": "\naxiom cheat : False\n", "proof": "  exact cheat.elim\n"}, "axiom"),
        ({"proof_aux": "\nset_option debug.skipKernelTC true\n", "proof": "  simp\n"}, "set_option"),
        ({"proof": "  decide (config := ⟨false, true, true, true⟩)\n"}, "config"),
    ],
)
def test_a_submitted_proof_passes_the_safety_screen_first(clamp, sections: dict[str, str], rule: str) -> None:  # type: ignore[no-untyped-def]
    """A proof the screen rejects is 0/0 on every engine (here: before the embedded engine's unknown)."""
    from veriscale.backends.select import make_backend
    from veriscale.stages.score.scoring import merge_groups, score_task
    from veriscale.stages.score.submission import Submission

    backend = make_backend("embedded")
    try:
        score = merge_groups(clamp.id, score_task(clamp, Submission(task=clamp.id, **sections), backend))
    finally:
        backend.close()
    assert score.proof is not None and (score.proof.lower, score.proof.upper) == (0, 0)
    assert any(r.startswith("proof: unsafe:") and rule in r for r in score.reasons), score.reasons
