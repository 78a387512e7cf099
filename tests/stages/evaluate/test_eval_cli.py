"""``veriscale eval`` on the command line, end to end through inspect_ai against the local
OpenAI-compatible server (``tests/fake_openai_server.py``, real HTTP), examples/mini and the real
scorer: scripted right, wrong, malformed, refused and cut-off replies; a rerun, and a run killed
while a request is in flight, resumed without repeating a model call; an endpoint that refuses
every request or cannot be reached stops the run in one line with exit code 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES_DIR, PROJECT_ROOT
from fake_openai_server import Behaviour, FakeOpenAIServer, HttpError, Reply
from typer.testing import CliRunner

from veriscale.cli import app
from veriscale.llm import LLMCallError, LLMConfig, RetryPolicy, endpoint_unreachable
from veriscale.stages.evaluate import EvalOptions, pipeline, run_eval

MINI = EXAMPLES_DIR / "mini"
CLAMP_HEADER = (
    "def clampToRange (x : Int) (lo : Int) (hi : Int) (h_precond : clampToRange_precond (x) (lo) (hi)) : Int :="
)
RIGHT = f"```lean\n{CLAMP_HEADER}\n  if x < lo then lo\n  else if hi < x then hi\n  else x\n```\n"
WRONG = "```lean\ndef runningMax (a : Array Int) (h_precond : runningMax_precond (a)) : Array Int :=\n  a\n```\n"


def scripted(body: Any) -> Behaviour:
    """By the function the prompt asks for: clamp right (cut off for seed 43), running max wrong,
    count evens in prose (no code block), dedup refused."""
    user = body["messages"][-1]["content"]
    if "def clampToRange " in user:
        if body.get("seed") == 43:
            return Reply(content=RIGHT[:50], finish_reason="length")
        return Reply(content=RIGHT)
    if "def runningMax " in user:
        return Reply(content=WRONG)
    if "dedupSorted" in user:
        return Reply(content=None, refusal="I can't help with that.")
    return Reply(content="Count the even numbers with a fold.")


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(default=scripted) as running:
        yield running


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def eval_args(server: FakeOpenAIServer, out: Path, *extra: str) -> list[str]:
    return ["eval", "--model", "fake-coder", "--suite", str(MINI), "--mode", "codegen", "--base-url",
            server.base_url, "--out", str(out), "--workers", "1", "--quiet", *extra]


def test_cli_eval_scores_scripted_replies_and_a_rerun_asks_nothing(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a server on this machine needs no key
    out = tmp_path / "run"
    first = CliRunner().invoke(app, eval_args(server, out, "--samples", "2"))
    assert first.exit_code == 0, first.output
    assert server.request_count == 8
    assert sorted({r.body["seed"] for r in server.requests}) == [42, 43]
    assert "8 model call(s), 0 from the cache" in first.stdout

    replies = {(r["task"], r["sample"]): r for r in read_jsonl(out / "replies.jsonl")}
    assert {key: (r["status"], r["reason"]) for key, r in replies.items()} == {
        ("mini_clamp", 0): ("ok", None),
        ("mini_clamp", 1): ("failed", "truncated"),
        ("mini_count_evens", 0): ("failed", "no-code-block"),
        ("mini_count_evens", 1): ("failed", "no-code-block"),
        ("mini_dedup_sorted", 0): ("failed", "refusal"),
        ("mini_dedup_sorted", 1): ("failed", "refusal"),
        ("mini_running_max", 0): ("ok", None),
        ("mini_running_max", 1): ("ok", None),
    }
    score = json.loads((out / "score.json").read_text(encoding="utf-8"))
    code = {(t["task"], t["sample"]): t["code"] for t in score["tasks"]}
    assert code[("mini_clamp", 0)] == {"lower": 1, "upper": 1}
    assert code[("mini_running_max", 0)]["upper"] == 0  # wrong: returns its input
    for key in [("mini_clamp", 1), ("mini_count_evens", 0), ("mini_dedup_sorted", 1)]:
        assert code[key] == {"lower": 0, "upper": 0}, key  # no usable reply: a failure, never skipped
    total = score["totals"]["code"]
    assert (total["tasks"], total["samples"], total["lower"]) == (4, 8, 1)
    assert {p["k"]: p["lower"] for p in total["pass_at_k"]} == {1: pytest.approx(1 / 8), 2: pytest.approx(1 / 4)}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["model"] == "fake-coder" and summary["http_requests"] == 8
    assert summary["failure_reasons"] == {"no-code-block": 2, "refusal": 2, "truncated": 1}
    assert any((out / "logs").glob("*.eval"))  # inspect's log, for `inspect view`

    # The rerun is served from the run's cache: not one request, the same files.
    before = {name: (out / name).read_text(encoding="utf-8") for name in ("submissions.jsonl", "score.json")}
    again = CliRunner().invoke(app, eval_args(server, out, "--samples", "2"))
    assert again.exit_code == 0, again.output
    assert server.request_count == 8
    assert "0 model call(s), 8 from the cache" in again.stdout
    assert (out / "submissions.jsonl").read_text(encoding="utf-8") == before["submissions.jsonl"]
    rescored = json.loads((out / "score.json").read_text(encoding="utf-8"))
    assert rescored["totals"] == json.loads(before["score.json"])["totals"]
    assert all(r["cached"] for r in read_jsonl(out / "replies.jsonl"))


def test_a_run_killed_with_a_request_in_flight_resumes_without_repeating_a_call(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    server.hold_after(2)  # the third request is never answered: the process is killed waiting
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "veriscale.cli", *eval_args(server, out, "--concurrency", "1")]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        assert server.wait_for_requests(3, timeout_s=120)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    server.release()
    assert len(server.answered()) == 2 and not (out / "score.json").exists()

    result = CliRunner().invoke(app, eval_args(server, out, "--concurrency", "1"))
    assert result.exit_code == 0, result.output
    # The two answered tasks come from the cache; the one in flight and the last one are asked.
    assert len(server.answered()) == 4
    assert "2 model call(s), 2 from the cache" in result.stdout
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["failed_tasks"] == {"mini_count_evens": "no-code-block", "mini_dedup_sorted": "refusal"}


def test_a_bad_key_stops_the_run_in_one_line_and_leaves_no_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer(default=lambda body: HttpError(401, "Incorrect API key provided")) as server:
        result = CliRunner().invoke(app, eval_args(server, out, "--concurrency", "1"))
        assert server.request_count == 1  # nothing more is sent to an endpoint that refuses the key
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "HTTP 401" in line and "Incorrect API key provided" in line
    assert not out.exists()


def test_an_endpoint_that_cannot_be_reached_stops_the_run(tmp_path: Path) -> None:
    with FakeOpenAIServer() as gone:
        dead_url = gone.base_url  # a port nothing listens on once the server has stopped
    config = LLMConfig(model="m", base_url=dead_url, timeout_s=5, retry=RetryPolicy(max_attempts=1))
    with pytest.raises(LLMCallError) as raised:
        run_eval(MINI, config, EvalOptions(kind="codegen", workers=1), tmp_path / "run", progress=False)
    assert raised.value.kind == "connection"
    assert "attempt" not in str(raised.value)  # inspect retried out of eval's sight: no count is claimed
    assert not (tmp_path / "run").exists()


def test_an_endpoint_nothing_listens_on_stops_the_run_before_anything_is_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer() as gone:
        dead_url = gone.base_url
    asked: list[str] = []
    monkeypatch.setattr(pipeline, "_ask_through_inspect", lambda *a, **k: asked.append("asked"))
    result = CliRunner().invoke(app, ["eval", "--model", "m", "--suite", str(MINI), "--mode", "codegen",
                                      "--base-url", dead_url, "--out", str(tmp_path / "run"), "--workers", "1"])
    assert result.exit_code == 2 and not asked  # no retries with backoff against a port nobody serves
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and f"cannot connect to {dead_url}" in line
    assert not (tmp_path / "run").exists()


def test_a_run_with_cached_replies_goes_on_without_the_endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer() as gone:
        dead_url = gone.base_url
    out = tmp_path / "run"
    (out / "cache" / "entries").mkdir(parents=True)
    (out / "cache" / "entries" / "reply").write_bytes(b"cached")

    class Asked(Exception):
        pass

    def ask(*args: Any, **kwargs: Any) -> None:
        raise Asked  # the run went on to its (cached) replies

    monkeypatch.setattr(pipeline, "_ask_through_inspect", ask)
    config = LLMConfig(model="m", base_url=dead_url)
    with pytest.raises(Asked):
        run_eval(MINI, config, EvalOptions(kind="codegen", workers=1), out, progress=False)


@pytest.mark.parametrize("url, reason", [("http://127.0.0.1:notaport/v1", "port"),
                                          ("http:///v1", "names no host"),
                                          ("http://no-such-host.invalid/v1", "unknown host")])
def test_the_endpoint_probe_says_why_it_cannot_connect(url: str, reason: str) -> None:
    assert reason in (endpoint_unreachable(url, 2.0) or "")


def test_the_endpoint_probe_connects_to_a_live_server() -> None:
    with FakeOpenAIServer() as server:
        assert endpoint_unreachable(server.base_url, 2.0) is None
        assert server.request_count == 0  # a connection, not a request


def by_status(status: int) -> Callable[[Any], Behaviour]:
    def answer(body: Any) -> Behaviour:
        if "def clampToRange " in body["messages"][-1]["content"]:
            return HttpError(status, "prompt too long")
        return scripted(body)

    return answer


@pytest.mark.parametrize("status", [400, 422])
def test_a_request_only_this_task_gets_wrong_fails_the_task_and_the_run_goes_on(tmp_path: Path, status: int) -> None:
    with FakeOpenAIServer(default=by_status(status)) as server:
        config = LLMConfig(model="m", base_url=server.base_url, retry=RetryPolicy(max_attempts=1))
        summary = run_eval(MINI, config, EvalOptions(kind="codegen", workers=1), tmp_path / "run", progress=False)
        assert server.request_count == 4
    assert summary.failed_tasks["mini_clamp"].startswith(f"llm-error: LLM request failed (client, HTTP {status}")
    assert summary.replies_ok == 1  # running max: read (and scored wrong)
    assert summary.totals["code"]["tasks"] == 4


def test_a_reply_slower_than_the_timeout_fails_only_its_task(tmp_path: Path) -> None:
    def slow_clamp(body: Any) -> Behaviour:
        if "def clampToRange " in body["messages"][-1]["content"]:
            return Reply(content=RIGHT, delay_s=6.0)
        return scripted(body)

    # a timeout the prompt replies meet on a loaded machine too (1 s did not), far below the delay
    with FakeOpenAIServer(default=slow_clamp) as server:
        config = LLMConfig(model="m", base_url=server.base_url, timeout_s=3, retry=RetryPolicy(max_attempts=1))
        summary = run_eval(MINI, config, EvalOptions(kind="codegen", workers=1), tmp_path / "run", progress=False)
    assert summary.failed_tasks["mini_clamp"].startswith("llm-error: LLM request failed (timeout")
    assert summary.tasks == 4 and summary.replies_ok == 1


def test_a_task_whose_prompt_cannot_be_built_is_a_failed_reply_and_is_not_sent(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veriscale.stages.evaluate import inspect_tasks

    real = inspect_tasks.build_prompt

    def broken_for_clamp(task: Any, kind: Any, *, examples: int) -> Any:
        if task.id == "mini_clamp":
            raise ValueError("unreadable test input")
        return real(task, kind, examples=examples)

    monkeypatch.setattr(inspect_tasks, "build_prompt", broken_for_clamp)
    config = LLMConfig(model="m", base_url=server.base_url, retry=RetryPolicy(max_attempts=1))
    summary = run_eval(MINI, config, EvalOptions(kind="codegen", workers=1), tmp_path / "run", progress=False)
    assert server.request_count == 3
    assert not any("def clampToRange " in r.last_user_content for r in server.requests)
    assert summary.failed_tasks["mini_clamp"] == "prompt-error: unreadable test input"
    assert summary.totals["code"]["tasks"] == 4
