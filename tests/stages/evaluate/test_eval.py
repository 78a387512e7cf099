"""``veriscale eval``: prompts, strict reply reading, and the run end to end against a local server.

The end-to-end tests use the real ``openai`` client over real HTTP against
``tests/fake_openai_server.py``, the project's example benchmark (examples/mini), and the real
scorer (``veriscale.stages.score.score_suite``).
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES_DIR
from fake_openai_server import Behaviour, FakeOpenAIServer, HttpError, Reply

from veriscale.llm import LLMCallError, LLMConfig, RetryPolicy, TokenBudgetExceeded
from veriscale.stages.evaluate import (
    EvalOptions,
    ReplyError,
    ReplySections,
    build_codegen_prompt,
    build_prompt,
    build_specgen_prompt,
    default_out_dir,
    definition_header,
    headers_for,
    model_slug,
    parse_reply,
    run_eval,
)
from veriscale.task import load_task

MINI = EXAMPLES_DIR / "mini"
CLAMP_HEADER = (
    "def clampToRange (x : Int) (lo : Int) (hi : Int) (h_precond : clampToRange_precond (x) (lo) (hi)) : Int :="
)


@pytest.fixture(scope="module")
def clamp():  # type: ignore[no-untyped-def]
    return load_task(MINI / "mini_clamp")


def fenced(body: str, tag: str = "lean") -> str:
    return f"Here it is.\n\n```{tag}\n{body.strip()}\n```\n"


# ---------------------------------------------------------------------------------------------
# Prompts


def test_headers_are_read_from_the_task_file(clamp) -> None:  # type: ignore[no-untyped-def]
    code = definition_header(clamp, "code")
    assert code.text == CLAMP_HEADER
    assert (code.section, code.aux_section) == ("code", "code_aux")
    precond, postcond = headers_for(clamp, "specgen")
    assert precond.text == "def clampToRange_precond (x : Int) (lo : Int) (hi : Int) : Prop :="
    assert postcond.name == "clampToRange_postcond"
    assert "(result : Int)" in postcond.text and postcond.text.endswith(": Prop :=")


def test_codegen_prompt_shows_precondition_header_and_examples_but_not_the_solution(clamp) -> None:  # type: ignore[no-untyped-def]
    system, user = build_codegen_prompt(clamp, examples=2)
    assert system["role"] == "system" and "lean" in system["content"]
    text = user["content"]
    assert "limits an integer to a closed range" in text
    assert CLAMP_HEADER in text
    assert "lo ≤ hi" in text  # the ground-truth precondition
    assert "`clampToRange (x := 5) (lo := 0) (hi := 10)` returns `5`" in text
    assert "`clampToRange (x := -7) (lo := -3) (hi := 4)` returns `-3`" in text
    assert "(x := 12)" not in text  # only two examples
    assert "else if hi < x then hi" not in text  # the reference implementation
    assert "result = lo" not in text  # the reference postcondition


def test_specgen_prompt_shows_both_headers_tests_and_rejects_but_no_spec(clamp) -> None:  # type: ignore[no-untyped-def]
    text = build_specgen_prompt(clamp, examples=1)[1]["content"]
    for header in headers_for(clamp, "specgen"):
        assert header.text in text
    assert "`clampToRange (x := 5) (lo := 0) (hi := 10)` is a valid call; the correct result is `5`" in text
    assert "`clampToRange (x := 1) (lo := 5) (hi := 2)` is an invalid call" in text
    assert "(x := -7)" not in text
    assert "lo ≤ hi\n" not in text and "result = lo" not in text  # neither reference proposition
    assert "unexpected" not in text.lower()


# ---------------------------------------------------------------------------------------------
# Reading replies


def test_codegen_reply_with_helper_becomes_code_and_code_aux(clamp) -> None:  # type: ignore[no-untyped-def]
    reply = fenced(
        "def pick (a b : Int) : Int := if a < b then a else b\n\n"
        f"{CLAMP_HEADER}\n  if x < lo then lo\n  else pick x hi\n"
    )
    parsed = parse_reply(reply, headers_for(clamp, "codegen"))
    assert isinstance(parsed, ReplySections)
    assert parsed.sections == {
        "code_aux": "\ndef pick (a b : Int) : Int := if a < b then a else b\n",
        "code": "  if x < lo then lo\n  else pick x hi\n",
    }


def test_body_on_the_header_line_and_respelt_header_are_accepted(clamp) -> None:  # type: ignore[no-untyped-def]
    reply = fenced(
        "def clampToRange (x lo hi : Int) (h_precond : clampToRange_precond x lo hi) : Int := match x with\n"
        "    | 0 => lo\n"
        "    | _ => hi\n"
    )
    parsed = parse_reply(reply, headers_for(clamp, "codegen"))
    assert isinstance(parsed, ReplySections)
    assert parsed.sections["code"] == "  match x with\n  | 0 => lo\n  | _ => hi\n"
    assert parsed.sections["code_aux"] == ""  # set, so that the task's own helpers are replaced


def test_specgen_reply_splits_into_four_sections(clamp) -> None:  # type: ignore[no-untyped-def]
    precond, postcond = (h.text for h in headers_for(clamp, "specgen"))
    reply = fenced(
        f"@[reducible, simp]\n{precond}\n  lo ≤ hi\n\n"
        "def inRange (r lo hi : Int) : Prop := lo ≤ r ∧ r ≤ hi\n\n"
        f"@[reducible, simp]\n{postcond}\n  inRange result lo hi\n  ∧ (x < lo → result = lo)\n"
    )
    parsed = parse_reply(reply, headers_for(clamp, "specgen"))
    assert isinstance(parsed, ReplySections)
    assert parsed.sections == {
        "precond_aux": "",
        "precond": "  lo ≤ hi\n",
        "postcond_aux": "\ndef inRange (r lo hi : Int) : Prop := lo ≤ r ∧ r ≤ hi\n",
        "postcond": "  inRange result lo hi\n  ∧ (x < lo → result = lo)\n",
    }


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("def clampToRange ... no block", "no-code-block"),
        (fenced("def a := 1") + fenced("def b := 2"), "several-code-blocks"),
        ("```lean\n" + CLAMP_HEADER + "\n  x\n", "unclosed-code-block"),
        (fenced("def clampToRange(x): return x", tag="python"), "wrong-language: python"),
        (fenced("def clamp (x : Int) : Int := x"), "missing-definition: clampToRange"),
        (fenced(f"{CLAMP_HEADER}\n  x\n\n{CLAMP_HEADER}\n  lo\n"), "duplicate-definition: clampToRange"),
        (fenced(CLAMP_HEADER.replace(": Int :=", ": Nat :=") + "\n  0\n"), "header-changed: clampToRange"),
        (fenced(CLAMP_HEADER.replace("(hi : Int) ", "") + "\n  x\n"), "header-changed: clampToRange"),
        (fenced(f"{CLAMP_HEADER}\n\n-- nothing\n"), "empty-body: clampToRange"),
        (fenced(f"{CLAMP_HEADER}\n  x\n\n#eval clampToRange 1 0 2 (by decide)\n"), "text-after-definition"),
    ],
)
def test_replies_not_in_the_asked_form_are_named_errors(clamp, reply: str, reason: str) -> None:  # type: ignore[no-untyped-def]
    parsed = parse_reply(reply, headers_for(clamp, "codegen"))
    assert parsed == ReplyError(reason=reason)


def test_specgen_definitions_in_the_wrong_order_are_an_error(clamp) -> None:  # type: ignore[no-untyped-def]
    precond, postcond = (h.text for h in headers_for(clamp, "specgen"))
    reply = fenced(f"{postcond}\n  True\n\n{precond}\n  True\n")
    assert parse_reply(reply, headers_for(clamp, "specgen")) == ReplyError(reason="out-of-order: clampToRange_postcond")


def test_column_zero_body_lines_continue_and_comments_go_with_the_next_helpers(clamp) -> None:  # type: ignore[no-untyped-def]
    precond, postcond = (h.text for h in headers_for(clamp, "specgen"))
    reply = fenced(
        f"{precond}\n  let ok := lo ≤ hi\nok\n\n-- helper for the postcondition\n"
        f"def within (r lo hi : Int) : Prop := lo ≤ r ∧ r ≤ hi\n\n{postcond}\n  within result lo hi\n"
        "-- trailing remark\n"
    )
    parsed = parse_reply(reply, headers_for(clamp, "specgen"))
    assert isinstance(parsed, ReplySections)
    assert parsed.sections["precond"] == "    let ok := lo ≤ hi\n  ok\n"  # relative layout kept
    assert parsed.sections["postcond_aux"] == (
        "\n-- helper for the postcondition\ndef within (r lo hi : Int) : Prop := lo ≤ r ∧ r ≤ hi\n"
    )


@pytest.mark.data
def test_reference_answers_written_as_replies_read_back_to_the_reference_sections(data_dir: Path) -> None:
    """Every reference solution and spec of Verina, written in the asked format, parses back to itself."""
    from veriscale.benchmark import load_benchmark

    load = load_benchmark(data_dir / "verina")
    assert len(load.tasks) > 100
    for task in load.tasks:
        for kind in ("codegen", "specgen"):
            headers = headers_for(task, kind)
            parts = []
            for header in headers:
                assert header.text in task.lean_text(), (task.id, header.name)  # read, not rebuilt
                parts.append(task.section(header.aux_section).strip("\n"))
                parts.append(header.text + "\n" + task.section(header.section).rstrip("\n"))
            build_prompt(task, kind)
            parsed = parse_reply(fenced("\n\n".join(p for p in parts if p.strip())), headers)
            assert isinstance(parsed, ReplySections), (task.id, kind, parsed)
            for header in headers:
                for section in (header.section, header.aux_section):
                    want = textwrap.dedent(task.section(section)).strip()
                    assert textwrap.dedent(parsed.sections[section]).strip() == want, (task.id, section)


def test_default_out_dir_is_per_model_suite_and_kind(tmp_path: Path) -> None:
    assert model_slug("openai/gpt-4o mini") == "openai-gpt-4o-mini"
    out = default_out_dir("openai/gpt-4o", MINI, "specgen", root=tmp_path)
    assert out == tmp_path / "openai-gpt-4o" / "mini" / "specgen"


# ---------------------------------------------------------------------------------------------
# End to end: real openai client, real HTTP, real scorer

CODE_REPLIES = {
    # Correct.
    "clampToRange": fenced(f"{CLAMP_HEADER}\n  if x < lo then lo\n  else if hi < x then hi\n  else x\n"),
    # Wrong: returns its input unchanged.
    "runningMax": fenced(
        "def runningMax (a : Array Int) (h_precond : runningMax_precond (a)) : Array Int :=\n  a\n"
    ),
}
SPEC_REPLIES = {
    "clampToRange": fenced(
        "def clampToRange_precond (x : Int) (lo : Int) (hi : Int) : Prop :=\n  lo ≤ hi\n\n"
        "def clampToRange_postcond (x : Int) (lo : Int) (hi : Int) (result : Int) "
        "(h_precond : clampToRange_precond (x) (lo) (hi)) : Prop :=\n"
        "  lo ≤ result ∧ result ≤ hi ∧ (lo ≤ x ∧ x ≤ hi → result = x) ∧ (x < lo → result = lo) "
        "∧ (hi < x → result = hi)\n"
    ),
}


def scripted(replies: dict[str, str]) -> Callable[[Any], Behaviour]:
    """Answer by the function the prompt asks about: a scripted reply, a refusal, or prose."""

    def answer(body: Any) -> Behaviour:
        user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        for function, text in replies.items():
            if f"def {function} " in user or f"def {function}_precond " in user:
                return Reply(content=text)
        if "dedupSorted" in user:
            return Reply(content=None, refusal="I can't help with that.")
        return Reply(content="The function counts the even numbers; use foldl.")  # no code block

    return answer


@pytest.fixture
def code_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(default=scripted(CODE_REPLIES)) as running:
        yield running


def llm_config(server: FakeOpenAIServer, model: str = "fake-coder") -> LLMConfig:
    return LLMConfig(
        model=model,
        base_url=server.base_url,
        api_key="test-key",
        timeout_s=10.0,
        retry=RetryPolicy(max_attempts=1),
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_codegen_end_to_end_with_malformed_reply_refusal_and_cached_rerun(
    code_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    options = EvalOptions(kind="codegen", concurrency=2, workers=1)
    summary = run_eval(MINI, llm_config(code_server), options, out, progress=False)

    assert code_server.request_count == 4
    assert (summary.tasks, summary.replies_ok, summary.replies_failed) == (4, 2, 2)
    assert summary.failed_tasks == {"mini_count_evens": "no-code-block", "mini_dedup_sorted": "refusal"}
    assert summary.failure_reasons == {"no-code-block": 1, "refusal": 1}
    assert summary.http_requests == 4 and summary.cache_hits == 0
    assert summary.prompt_tokens > 0 and summary.completion_tokens > 0
    assert summary.cost_usd is None  # the fake model has no price

    submissions = read_jsonl(out / "submissions.jsonl")
    assert [s["task"] for s in submissions] == ["mini_clamp", "mini_running_max"]
    assert submissions[0]["code"] == "  if x < lo then lo\n  else if hi < x then hi\n  else x\n"
    assert submissions[1]["code_aux"] == ""

    score = json.loads((out / "score.json").read_text(encoding="utf-8"))
    by_task = {t["task"]: t for t in score["tasks"]}
    assert by_task["mini_clamp"]["code"] == {"lower": 1, "upper": 1}
    assert by_task["mini_running_max"]["code"]["upper"] == 0
    for failed in ("mini_count_evens", "mini_dedup_sorted"):
        assert by_task[failed]["code"] == {"lower": 0, "upper": 0}
        assert any("no usable reply" in r for r in by_task[failed]["reasons"])
    code_total = score["totals"]["code"]
    assert (code_total["tasks"], code_total["lower"], code_total["upper"]) == (4, 1, 1)
    assert code_total["lower_rate"] == pytest.approx(0.25)

    on_disk = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert on_disk["model"] == "fake-coder" and on_disk["task_kind"] == "codegen"
    assert on_disk["totals"]["code"]["lower"] == 1
    replies = {r["task"]: r for r in read_jsonl(out / "replies.jsonl")}
    assert replies["mini_dedup_sorted"]["reason"] == "refusal"
    assert replies["mini_count_evens"]["reply"].startswith("The function counts")

    # A rerun is served from the run store: not one HTTP request, same outputs.
    first_submissions = (out / "submissions.jsonl").read_text(encoding="utf-8")
    again = run_eval(MINI, llm_config(code_server), options, out, progress=False)
    assert code_server.request_count == 4
    assert again.http_requests == 0 and again.cache_hits == 4
    assert (out / "submissions.jsonl").read_text(encoding="utf-8") == first_submissions
    assert again.totals == summary.totals

    # The report reads the run directory: model name from summary.json, bounds from score.json.
    from veriscale.stages.report import build_report

    report = build_report(tmp_path / "report", scores=[tmp_path])
    (row,) = report.score_rows
    assert (row.model, row.suite, row.kind, row.metric) == ("fake-coder", "mini", "codegen", "code")
    assert (row.tasks, row.lower, row.upper) == (4, 1, 1)


def test_an_interrupted_run_resumes_without_repeating_a_call(code_server: FakeOpenAIServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    options = EvalOptions(kind="codegen", concurrency=1, workers=1)
    # Tasks go in id order; the third request meets a configuration error that stops the run.
    code_server.script(Reply(content=CODE_REPLIES["clampToRange"]), Reply(content="prose"),
                       HttpError(401, "bad key"))
    with pytest.raises(LLMCallError):
        run_eval(MINI, llm_config(code_server), options, out, progress=False)
    assert code_server.request_count == 3
    assert not (out / "score.json").exists()

    summary = run_eval(MINI, llm_config(code_server), options, out, progress=False)
    # The two answered requests come from the store; only the other two tasks are asked.
    assert code_server.request_count == 5
    assert (summary.http_requests, summary.cache_hits) == (2, 2)
    assert summary.failed_tasks["mini_count_evens"] == "no-code-block"  # the stored prose reply
    assert summary.replies_ok == 2


def test_an_exhausted_token_budget_stops_the_run_instead_of_scoring_unasked_tasks(
    code_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    options = EvalOptions(kind="codegen", concurrency=1, workers=1)
    tight = llm_config(code_server).model_copy(update={"token_budget": 1})
    with pytest.raises(TokenBudgetExceeded):
        run_eval(MINI, tight, options, out, progress=False)
    assert code_server.request_count == 1  # the first request spent the budget
    assert not (out / "score.json").exists()
    summary = run_eval(MINI, llm_config(code_server), options, out, progress=False)
    assert (summary.http_requests, summary.cache_hits, code_server.request_count) == (3, 1, 4)


def test_specgen_end_to_end_scores_the_four_spec_metrics(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(MINI / "mini_clamp", suite / "mini_clamp")
    shutil.copytree(MINI / "mini_dedup_sorted", suite / "mini_dedup_sorted")
    with FakeOpenAIServer(default=scripted(SPEC_REPLIES)) as server:
        summary = run_eval(suite, llm_config(server, "spec-model"), EvalOptions(kind="specgen", workers=1),
                           tmp_path / "out", progress=False)
        assert server.request_count == 2
    assert (summary.replies_ok, summary.failed_tasks) == (1, {"mini_dedup_sorted": "refusal"})
    score = json.loads((tmp_path / "out" / "score.json").read_text(encoding="utf-8"))
    clamp = next(t for t in score["tasks"] if t["task"] == "mini_clamp")
    for metric in ("precond_sound", "precond_complete", "postcond_sound", "postcond_complete"):
        assert clamp[metric] == {"lower": 1, "upper": 1}, metric
        assert score["totals"][metric]["tasks"] == 2
        assert score["totals"][metric]["lower"] == 1
    assert "code" not in score["totals"]


def test_cli_eval_writes_the_default_layout(code_server: FakeOpenAIServer, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from veriscale.cli import app

    suite = tmp_path / "tiny"
    shutil.copytree(MINI / "mini_clamp", suite / "mini_clamp")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(app, ["eval", "--model", "fake/coder", "--suite", str(suite), "--mode", "codegen",
                                      "--base-url", code_server.base_url, "--workers", "1"])
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "runs" / "eval" / "fake-coder" / "tiny" / "codegen"
    for name in ("usage.jsonl", "replies.jsonl", "submissions.jsonl", "score.json", "summary.json"):
        assert (run_dir / name).is_file(), name
    assert "1 usable replies, 0 failed" in result.output
    # the totals table: a header row, then one row per metric with its bounds as count/samples (rate)
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == ["metric", "lower", "upper"])
    rows = {line.split()[0]: line.split()[1:] for line in lines[header + 1:] if line and not line.startswith("wrote")}
    assert rows["code"] == ["1/1", "(100.0%)", "1/1", "(100.0%)"]

    bad = CliRunner().invoke(app, ["eval", "--model", "m", "--suite", str(suite), "--mode", "lemmas"])
    assert bad.exit_code == 2 and "--mode must be codegen, specgen or proofgen" in bad.output


def test_samples_are_distinct_requests_scored_for_pass_at_k(tmp_path: Path) -> None:
    """Three samples per task, seeds 42, 43, 44: clampToRange is right for the even seeds only."""
    wrong_clamp = fenced(f"{CLAMP_HEADER}\n  x\n")

    def by_seed(body: Any) -> Behaviour:
        if body.get("seed") % 2 == 1 and "def clampToRange " in body["messages"][-1]["content"]:
            return Reply(content=wrong_clamp)
        return scripted(CODE_REPLIES)(body)

    with FakeOpenAIServer(default=by_seed) as server:
        options = EvalOptions(kind="codegen", concurrency=2, workers=1, samples=3)
        summary = run_eval(MINI, llm_config(server), options, tmp_path / "run", progress=False)
        assert server.request_count == 12
        assert sorted({r.body["seed"] for r in server.requests}) == [42, 43, 44]
        again = run_eval(MINI, llm_config(server), options, tmp_path / "run", progress=False)
        assert server.request_count == 12 and again.cache_hits == 12
    assert summary.failed_tasks["mini_dedup_sorted#2"] == "refusal"
    code = summary.totals["code"]
    # clamp: 2 of 3 right; running max: 0 of 3; the other two tasks have no usable reply (0 of 3).
    assert (code["tasks"], code["samples"], code["lower"], code["upper"]) == (4, 12, 2, 2)
    assert code["lower_rate"] == pytest.approx((2 / 3) / 4, abs=1e-4)
    assert {p["k"]: p["lower"] for p in code["pass_at_k"]} == {1: pytest.approx(2 / 12, abs=1e-4), 3: 0.25}
    score = json.loads((tmp_path / "run" / "score.json").read_text(encoding="utf-8"))
    assert score["model"] == score["provenance"]["model"] == "fake-coder"
    assert {t["sample"] for t in score["tasks"]} == {0, 1, 2}
    lines = read_jsonl(tmp_path / "run" / "submissions.jsonl")
    assert [(s["task"], s.get("sample", 0)) for s in lines][:3] == [("mini_clamp", k) for k in range(3)]
