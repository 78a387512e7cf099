"""The LLM client against a local OpenAI-compatible server (real ``openai`` client, real HTTP)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, HttpError, Reply

from veriscale.llm import (
    LLMCallError,
    LLMClient,
    LLMConfig,
    LLMConfigError,
    ModelPrice,
    PriceTable,
    RetryPolicy,
    TokenBudgetExceeded,
    classify_choice,
    prompts_dir,
    render_prompt,
    request_key,
)
from veriscale.store import RunStore

PROJECT_ROOT = Path(__file__).resolve().parents[1]
USER = [{"role": "user", "content": "name three primes"}]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        yield running


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    with RunStore.open(tmp_path / "run") as opened:
        yield opened


class Waits(list[float]):
    """Records the backoff delays instead of sleeping (keeps the tests fast)."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_client(
    server: FakeOpenAIServer,
    store: RunStore | None = None,
    *,
    model: str = "gpt-4o-mini",
    waits: Waits | None = None,
    **config: Any,
) -> LLMClient:
    settings: dict[str, Any] = {
        "model": model,
        "base_url": server.base_url,
        "api_key": "test-key",
        "timeout_s": 5.0,
        "retry": RetryPolicy(max_attempts=4, initial_delay_s=0.5, max_delay_s=8.0, jitter=0.0),
    }
    settings.update(config)
    return LLMClient(LLMConfig(**settings), store, sleep=waits if waits is not None else Waits())


# ---------------------------------------------------------------------------------------------
# Cache


def test_an_identical_call_is_served_from_the_store_without_http(server: FakeOpenAIServer, store: RunStore) -> None:
    client = make_client(server, store)
    first = client.complete(USER, temperature=0.0, max_tokens=64)
    second = client.complete([dict(m) for m in USER], temperature=0, max_tokens=64)
    assert first.text == "echo: name three primes" and not first.cached
    assert second.cached and second.text == first.text and second.key == first.key
    assert first.key == request_key("gpt-4o-mini", USER, {"temperature": 0.0, "max_tokens": 64, "n": 1})
    assert server.request_count == 1
    assert (client.stats.requests, client.stats.responses, client.stats.cache_hits) == (1, 1, 1)
    # Any change of the request is a new request.
    client.complete(USER, temperature=0.5, max_tokens=64)
    client.complete(USER, temperature=0.0, max_tokens=65)
    client.complete(USER, temperature=0.0, max_tokens=64, seed=1)
    client.complete([{"role": "user", "content": "name four primes"}], temperature=0.0, max_tokens=64)
    assert server.request_count == 5


def test_the_cache_survives_a_new_client_and_a_reopened_store(server: FakeOpenAIServer, tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        make_client(server, store).complete(USER, temperature=0.2, max_tokens=10, seed=3)
    with RunStore.open(tmp_path) as store:
        client = make_client(server, store)
        response = client.complete(USER, temperature=0.2, max_tokens=10, seed=3)
    assert response.cached and response.text == "echo: name three primes"
    assert server.request_count == 1 and client.stats.requests == 0


def test_request_key_is_stable_and_ignores_none_parameters() -> None:
    params = {"temperature": 0.0, "max_tokens": 5, "n": 1}
    key = request_key("m", USER, params)
    assert key == request_key("m", [{"content": "name three primes", "role": "user"}], dict(reversed(params.items())))
    assert key == request_key("m", USER, {**params, "seed": None})
    assert key != request_key("m", USER, {**params, "seed": 0})
    assert key != request_key("m2", USER, params)
    assert len(key) == 64


def test_concurrent_identical_calls_send_one_request(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(Reply("slow answer", delay_s=0.3))
    client = make_client(server, store)
    results: list[str] = []

    def ask() -> None:
        results.append(client.complete(USER, temperature=0.0, max_tokens=8).text)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["slow answer"] * 4
    assert server.request_count == 1 and client.stats.cache_hits == 3


# ---------------------------------------------------------------------------------------------
# Retries and errors


def test_server_errors_are_retried_with_exponential_backoff(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(HttpError(500), HttpError(503), Reply("finally"))
    waits = Waits()
    client = make_client(server, store, waits=waits)
    assert client.complete(USER, temperature=0.0, max_tokens=8).text == "finally"
    assert server.request_count == 3 and [r.status for r in server.requests] == [500, 503, 200]
    assert waits == [0.5, 1.0]
    assert client.stats.retries == 2 and client.stats.requests == 3 and client.stats.errors == 0


def test_rate_limit_is_retried_after_the_servers_delay(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(HttpError(429, "slow down", headers=(("Retry-After", "3"),)), Reply("ok now"))
    waits = Waits()
    assert make_client(server, store, waits=waits).complete(USER, temperature=0.0, max_tokens=8).text == "ok now"
    assert waits == [3.0]


def test_backoff_is_capped() -> None:
    import random

    policy = RetryPolicy(initial_delay_s=1.0, multiplier=2.0, max_delay_s=5.0, jitter=0.0)
    rng = random.Random(0)
    assert [policy.delay(k, rng) for k in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert policy.delay(0, rng, retry_after_s=120.0) == 5.0
    jittered = RetryPolicy(initial_delay_s=1.0, jitter=0.5)
    assert all(0.5 <= jittered.delay(0, rng) <= 1.5 for _ in range(50))


def test_retries_are_bounded_and_a_failed_call_is_not_cached(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(*[HttpError(502)] * 4)
    client = make_client(server, store)
    with pytest.raises(LLMCallError) as info:
        client.complete(USER, temperature=0.0, max_tokens=8)
    assert info.value.kind == "server" and info.value.status == 502 and info.value.attempts == 4
    assert info.value.retryable
    assert server.request_count == 4 and client.stats.errors == 1
    assert client.complete(USER, temperature=0.0, max_tokens=8).text.startswith("echo:")
    assert server.request_count == 5


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(server: FakeOpenAIServer, store: RunStore, status: int) -> None:
    server.script(HttpError(status, "you sent something wrong"))
    client = make_client(server, store)
    with pytest.raises(LLMCallError) as info:
        client.complete(USER, temperature=0.0, max_tokens=8)
    assert info.value.kind == "client" and info.value.status == status and not info.value.retryable
    assert "you sent something wrong" in str(info.value)
    assert server.request_count == 1 and client.stats.retries == 0


def test_a_slow_reply_times_out_and_is_retried(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(Reply("too late", delay_s=10.0), Reply("in time"))
    client = make_client(server, store, timeout_s=0.8)
    assert client.complete(USER, temperature=0.0, max_tokens=8).text == "in time"
    assert server.request_count == 2 and client.stats.retries == 1
    assert [r.answered for r in server.requests] == [False, True]  # the server saw the client hang up


def test_timeouts_exhaust_the_retries(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(Reply("late", delay_s=10.0), Reply("late", delay_s=10.0))
    client = make_client(server, store, timeout_s=0.5, retry=RetryPolicy(max_attempts=2, initial_delay_s=0))
    with pytest.raises(LLMCallError) as info:
        client.complete(USER, temperature=0.0, max_tokens=8)
    assert info.value.kind == "timeout" and info.value.attempts == 2
    assert server.request_count == 2 and not any(r.answered for r in server.requests)


def test_an_unreachable_endpoint_is_a_connection_error(store: RunStore) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits = Waits()
    config = LLMConfig(
        model="m", base_url=f"http://127.0.0.1:{port}/v1", retry=RetryPolicy(max_attempts=3, jitter=0.0)
    )
    client = LLMClient(config, store, sleep=waits)
    with pytest.raises(LLMCallError) as info:
        client.complete(USER, temperature=0.0, max_tokens=8)
    assert info.value.kind == "connection" and info.value.attempts == 3 and len(waits) == 2


# ---------------------------------------------------------------------------------------------
# Typed failures


@pytest.mark.parametrize(
    ("reply", "failure", "text"),
    [
        (Reply(content=None, refusal="I can't help with that."), "refusal", ""),
        (Reply(content="", finish_reason="content_filter"), "refusal", ""),
        (Reply(content=""), "empty", ""),
        (Reply(content="  \n "), "empty", "  \n "),
        (Reply(content=None), "empty", ""),
        (Reply(content='[{"x": 1}, {"x"', finish_reason="length"), "truncated", '[{"x": 1}, {"x"'),
        (Reply(content="not json at all {"), None, "not json at all {"),
    ],
)
def test_unusable_replies_are_typed_failures(
    server: FakeOpenAIServer, store: RunStore, reply: Reply, failure: str | None, text: str
) -> None:
    server.script(reply)
    client = make_client(server, store)
    response = client.complete(USER, temperature=0.0, max_tokens=8)
    assert response.failure == failure and response.ok == (failure is None)
    assert response.text == text
    assert client.stats.failure_count == (failure is not None)
    if failure:
        assert client.stats.failures[failure] == 1
        # A failed reply was paid for: it is cached, and counted again when served from the store.
        again = client.complete(USER, temperature=0.0, max_tokens=8)
        assert again.cached and again.failure == failure and client.stats.failures[failure] == 2
        assert server.request_count == 1


def test_failures_are_per_choice(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(Reply(content=("first", "", "third")))
    client = make_client(server, store)
    response = client.complete(USER, temperature=1.0, max_tokens=8, n=3)
    assert response.texts == ["first", "", "third"] and response.ok_texts == ["first", "third"]
    assert [c.failure for c in response.choices] == [None, "empty", None]
    assert client.stats.failures == {"empty": 1}
    assert server.requests[0].body["n"] == 3


def test_classify_choice_precedence() -> None:
    assert classify_choice("", "content_filter", None) == "refusal"
    assert classify_choice("partial", "length", None) == "truncated"
    assert classify_choice("fine", "stop", "no") == "refusal"
    assert classify_choice("fine", "stop", None) is None
    assert classify_choice(None, None, None) == "empty"


# ---------------------------------------------------------------------------------------------
# Accounting and budget


def test_token_usage_and_cost_are_recorded(server: FakeOpenAIServer, store: RunStore) -> None:
    server.script(Reply("a", usage=(1000, 200)), Reply("b", usage=(10, 10)), Reply("c", usage=None))
    client = make_client(server, store, model="gpt-4o-mini-2024-07-18")
    first = client.complete(USER, temperature=0.0, max_tokens=8)
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (1000, 200)
    assert first.cost_usd == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)
    unknown = make_client(server, store, model="my-local-llama")
    second = unknown.complete(USER, temperature=0.0, max_tokens=8)
    assert second.cost_usd is None and second.usage.total_tokens == 20
    third = unknown.complete(USER, temperature=0.1, max_tokens=8)
    assert not third.usage.reported and third.usage.total_tokens == 0
    totals = store.llm_usage()
    assert (totals.responses, totals.prompt_tokens, totals.completion_tokens) == (3, 1010, 210)
    assert totals.cost_usd == pytest.approx(first.cost_usd) and totals.responses_without_cost == 2
    entry = store.llm_get(first.key)
    assert entry is not None and entry.latency_s > 0 and json.loads(entry.request_json)["model"].startswith("gpt-4o")
    assert "test-key" not in entry.request_json and "test-key" not in entry.response_json
    assert client.stats.prompt_tokens == 1000 and client.stats.cost_usd == pytest.approx(first.cost_usd)


def test_price_table_matching_and_overrides(tmp_path: Path) -> None:
    table = PriceTable()
    assert table.price("gpt-4o") == ModelPrice(input_per_mtok=2.5, output_per_mtok=10.0)
    assert table.price("openai/GPT-4o-mini") == ModelPrice(input_per_mtok=0.15, output_per_mtok=0.6)
    assert table.price("llama-3-8b") is None and table.cost("llama-3-8b", 10, 10) is None
    custom = PriceTable({"llama-*": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}})
    assert custom.cost("llama-3-8b", 1_000_000, 500_000) == pytest.approx(2.0)
    assert PriceTable({"*gpt-4o*": ModelPrice(input_per_mtok=0, output_per_mtok=0)}).cost("gpt-4o", 5, 5) == 0
    assert PriceTable(include_defaults=False).price("gpt-4o") is None
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"my-*": {"input_per_mtok": 3, "output_per_mtok": 4}}))
    assert PriceTable.from_file(path).cost("my-model", 1_000_000, 0) == pytest.approx(3.0)
    path.write_text("[1, 2]")
    with pytest.raises(LLMConfigError):
        PriceTable.from_file(path)


def test_the_token_budget_stops_the_run_but_not_the_cache(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.script(*[Reply(f"r{i}", usage=(100, 50)) for i in range(3)])
    prompts = [[{"role": "user", "content": f"q{i}"}] for i in range(3)]
    with RunStore.open(tmp_path) as store:
        client = make_client(server, store, token_budget=250)
        client.complete(prompts[0], temperature=0.0, max_tokens=8)  # 150 used
        client.complete(prompts[1], temperature=0.0, max_tokens=8)  # 300 used: over from now on
        with pytest.raises(TokenBudgetExceeded, match="300 of its 250 tokens"):
            client.complete(prompts[2], temperature=0.0, max_tokens=8)
        assert server.request_count == 2 and client.stats.budget_stops == 1
        assert client.complete(prompts[0], temperature=0.0, max_tokens=8).cached
    with RunStore.open(tmp_path) as store:  # the budget is the run's: a resumption sees the spend
        resumed = make_client(server, store, token_budget=250)
        with pytest.raises(TokenBudgetExceeded):
            resumed.complete(prompts[2], temperature=0.0, max_tokens=8)
        assert make_client(server, store, token_budget=1000).complete(prompts[2], temperature=0.0, max_tokens=8)
    assert server.request_count == 3


# ---------------------------------------------------------------------------------------------
# Configuration


def test_environment_variables_configure_the_endpoint(
    server: FakeOpenAIServer, store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    client = LLMClient(LLMConfig(model="m"), store)
    client.complete(USER, temperature=0.0, max_tokens=4, extra={"top_p": 0.5, "stop": ["\n\n"]}, seed=9)
    request = server.requests[0]
    assert request.authorization == "Bearer env-key"
    assert request.body["model"] == "m" and request.body["top_p"] == 0.5 and request.body["stop"] == ["\n\n"]
    assert request.body["seed"] == 9 and request.body["max_tokens"] == 4 and request.body["messages"] == USER


def test_a_local_server_needs_no_key_but_a_remote_one_does(
    server: FakeOpenAIServer, store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    LLMClient(LLMConfig(model="m", base_url=server.base_url), store).complete(USER, temperature=0.0, max_tokens=4)
    assert server.requests[0].authorization == "Bearer sk-local-no-key"
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        LLMClient(LLMConfig(model="m"), store)
    with pytest.raises(LLMConfigError):
        LLMClient(LLMConfig(model="m", base_url="https://api.example.com/v1"), store)


def test_the_api_key_is_not_shown(store: RunStore) -> None:
    config = LLMConfig(model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-secret-value")
    assert "sk-secret-value" not in repr(config) and "sk-secret-value" not in config.model_dump_json()


def test_prompt_templates_are_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert (prompts_dir() / "input_generation.j2").is_file()
    (tmp_path / "hello.j2").write_text("Hello {{ name }}!")
    monkeypatch.setenv("VERISCALE_PROMPTS_DIR", str(tmp_path))
    assert render_prompt("hello.j2", name="Lean") == "Hello Lean!\n"
    with pytest.raises(LLMConfigError, match="not found"):
        render_prompt("input_generation.j2")


# ---------------------------------------------------------------------------------------------
# An interrupted run repeats no call

N_TASKS = 8

RUN_SCRIPT = textwrap.dedent(
    """
    import json, os, signal, sys
    from veriscale.llm import LLMClient, LLMConfig, RetryPolicy
    from veriscale.store import RunStore

    base_url, run_dir, tasks, die_after = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = RunStore.open(run_dir)
    store.start_run({"model": "fake-model", "tasks": tasks}, 42)
    client = LLMClient(
        LLMConfig(model="fake-model", base_url=base_url, timeout_s=60, retry=RetryPolicy(max_attempts=1)), store
    )
    for t in range(tasks):
        task = f"task{t}"
        if store.is_done(task, "llm"):
            print(json.dumps({"task": task, "skipped": True}), flush=True)
            continue
        response = client.complete([{"role": "user", "content": f"inputs for {task}"}], temperature=0.7,
                                   max_tokens=100, seed=42)
        if t == die_after:  # killed after the response is stored, before the task's checkpoint
            os.kill(os.getpid(), signal.SIGKILL)
        store.mark_done(task, "llm", json.dumps({"text": response.text}))
        print(json.dumps({"task": task, "cached": response.cached, "text": response.text}), flush=True)
    store.finish_session()
    print(json.dumps({"stats": client.stats.model_dump(include={"requests", "cache_hits"})}), flush=True)
    """
)


def _run_args(script: Path, server: FakeOpenAIServer, run_dir: Path, die_after: int = -1) -> list[str]:
    return [sys.executable, str(script), server.base_url, str(run_dir), str(N_TASKS), str(die_after)]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), env.get("PYTHONPATH", "")])
    return env


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_run_killed_during_a_request_repeats_no_answered_call(server: FakeOpenAIServer, tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(RUN_SCRIPT)
    run_dir = tmp_path / "run"
    server.hold_after(4)  # the fifth request stays in flight until the process is killed
    proc = subprocess.Popen(_run_args(script, server, run_dir), stdout=subprocess.PIPE, text=True, env=_env())
    try:
        assert server.wait_for_requests(5, timeout_s=60), "the run never reached its fifth call"
    finally:
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert [line["task"] for line in _lines(out)] == ["task0", "task1", "task2", "task3"]
    server.release()

    rerun = subprocess.run(
        _run_args(script, server, run_dir), capture_output=True, text=True, timeout=120, env=_env(), check=True
    )
    lines = _lines(rerun.stdout)
    assert [line.get("skipped") for line in lines[:4]] == [True] * 4
    assert [line["task"] for line in lines[4:-1]] == [f"task{t}" for t in range(4, N_TASKS)]
    assert lines[-1]["stats"] == {"requests": N_TASKS - 4, "cache_hits": 0}

    answered = server.answered_bodies()
    assert len(answered) == N_TASKS and len(set(answered)) == N_TASKS  # every call answered exactly once
    assert server.request_count == N_TASKS + 1  # plus the one request that was in flight at the kill
    assert [r.answered for r in server.requests].count(False) == 1
    with RunStore.open(run_dir) as store:
        assert store.done_tasks("llm") == {f"task{t}" for t in range(N_TASKS)}
        assert len(store.sessions()) == 2 and store.llm_usage().responses == N_TASKS


def test_a_run_killed_between_response_and_checkpoint_replays_from_the_cache(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    script = tmp_path / "run.py"
    script.write_text(RUN_SCRIPT)
    run_dir = tmp_path / "run"
    killed = subprocess.run(_run_args(script, server, run_dir, die_after=2), capture_output=True, text=True,
                            timeout=120, env=_env())
    assert killed.returncode == -signal.SIGKILL
    assert [line["task"] for line in _lines(killed.stdout)] == ["task0", "task1"]
    assert server.request_count == 3

    rerun = subprocess.run(
        _run_args(script, server, run_dir), capture_output=True, text=True, timeout=120, env=_env(), check=True
    )
    lines = _lines(rerun.stdout)
    task2 = next(line for line in lines if line["task"] == "task2")
    assert task2["cached"] is True and task2["text"] == "echo: inputs for task2"
    assert lines[-1]["stats"] == {"requests": N_TASKS - 3, "cache_hits": 1}
    answered = server.answered_bodies()
    assert len(answered) == N_TASKS and len(set(answered)) == N_TASKS
