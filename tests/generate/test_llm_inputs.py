"""The LLM round of input generation: prompt, lenient reading, validation, end to end over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import write_verina_task
from fake_openai_server import FakeOpenAIServer, HttpError, Reply

from veriscale.generate.llm_inputs import (
    build_input_prompt,
    extract_json_array,
    generate_llm_inputs,
    validate_candidates,
)
from veriscale.lean.types import parse_type
from veriscale.lean.values import Arr, Nat, Struct
from veriscale.llm import LLMCallError, LLMClient, LLMConfig, RetryPolicy
from veriscale.store import RunStore
from veriscale.task import RejectInput, Task, TestCase, load_task

MINI = Path(__file__).resolve().parents[2] / "examples" / "mini"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        yield running


@pytest.fixture
def client(server: FakeOpenAIServer, tmp_path: Path) -> Iterator[LLMClient]:
    with RunStore.open(tmp_path / "run") as store:
        config = LLMConfig(
            model="fake-model",
            base_url=server.base_url,
            timeout_s=5.0,
            retry=RetryPolicy(max_attempts=2, initial_delay_s=0.0, jitter=0.0),
        )
        yield LLMClient(config, store)


@pytest.fixture
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


# A task written for these tests: a structure parameter, a Nat list, a UInt8.
def budget_task(root: Path) -> Task:
    return write_verina_task(
        root, "budget_remaining", "remaining", [("b", "Budget"), ("extra", "List Nat"), ("scale", "UInt8")], "Nat",
        description="How much of a budget is left after extra spending, scaled.\n",
        tests=[TestCase(input={"b": "{ limit := 10, spent := [2, 3] }", "extra": "[1]", "scale": 2}, expected=8,
                        unexpected=[0])],
        rejects=[RejectInput(input={"b": "{ limit := 1, spent := [5] }", "extra": "[]", "scale": 1})],
        task_aux="structure Budget where\n  limit : Nat\n  spent : List Nat",
        precond="b.spent.sum ≤ b.limit ∧ 0 < scale",
        code="(b.limit - b.spent.sum - extra.sum) * scale.toNat",
        postcond="result = (b.limit - b.spent.sum - extra.sum) * scale.toNat",
        proof="sorry",
    )


# ---------------------------------------------------------------------------------------------
# Prompt


def test_prompt_shows_the_task_the_boundary_and_at_most_five_examples(clamp: Task) -> None:
    system, user = build_input_prompt(clamp)
    assert system["role"] == "system" and "JSON" in system["content"]
    text = user["content"]
    assert user["role"] == "user"
    assert "limits an integer to a closed range" in text
    assert "lo ≤ hi" in text  # the ground-truth precondition
    assert "def clampToRange (x : Int) (lo : Int) (hi : Int) : Int" in text
    assert "- `x` (Int): a JSON integer" in text
    valid = text.split("## Valid inputs")[1].split("## Invalid inputs")[0]
    invalid = text.split("## Invalid inputs")[1].split("## Your job")[0]
    assert valid.count("-- in Lean:") == 5 and len(clamp.tests) == 6
    assert '{"x": -7, "lo": -3, "hi": 4}' in valid and "clampToRange (x := -7) (lo := -3) (hi := 4)" in valid
    assert '"x": -100' not in text  # the sixth test is not shown
    assert invalid.count("-- in Lean:") == len(clamp.reject_inputs) == 2
    assert "Write 40 new candidate inputs" in text and "About 8 of them should be invalid" in text
    assert 'exactly the keys "x", "lo", "hi"' in text


def test_prompt_counts_follow_the_parameters(clamp: Task) -> None:
    text = build_input_prompt(clamp, n=10, invalid_share=0.3)[1]["content"]
    assert "Write 10 new candidate inputs" in text and "About 3 of them" in text and "other 7 valid" in text
    none_invalid = build_input_prompt(clamp, n=10, invalid_share=0.0)[1]["content"]
    assert "All of them should be valid" in none_invalid


def test_a_trivial_precondition_asks_for_valid_inputs_only() -> None:
    text = build_input_prompt(load_task(MINI / "mini_running_max"))[1]["content"]
    assert "all 40 candidates are valid" in text and "should be invalid" not in text
    assert "(none given)" in text  # no reject inputs to show
    assert '"#[-3, 0, 2]", or a JSON array, e.g. [-3, 0, 2]' in text


def test_prompt_shows_the_tasks_structures(tmp_path: Path) -> None:
    text = build_input_prompt(budget_task(tmp_path))[1]["content"]
    assert "structure Budget where" in text
    assert "`b` (Budget): a JSON string holding a Lean literal, e.g. \"{ limit := 2, spent := [0, 5] }\"" in text
    assert "`scale` (UInt8): a JSON integer from 0 to 255" in text
    assert "remaining (b := { limit := 10, spent := [2, 3] }) (extra := [1]) (scale := 2)" in text


# ---------------------------------------------------------------------------------------------
# Reading a reply


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('[{"x": 1}, {"x": 2}]', ([{"x": 1}, {"x": 2}], True)),
        ('Here you go:\n```json\n[{"x": 1}]\n```\nHope this helps [1].', ([{"x": 1}], True)),
        ('Some notes [see below].\n```\n[{"x": 1},\n {"x": 2},]\n```', ([{"x": 1}, {"x": 2}], True)),
        ('Sure! The inputs [as requested] are: [{"x": 3}] -- enjoy', ([{"x": 3}], True)),
        ('{"inputs": [{"x": 1}, {"x": 2}]}', ([{"x": 1}, {"x": 2}], True)),
        ('{"x": 5}', ([{"x": 5}], True)),
        ('```json\n[{"x": 1}, {"x": 2}, {"x"', ([{"x": 1}, {"x": 2}], False)),  # cut off
        ("[1, 2, 3]", ([1, 2, 3], True)),
        ("```json\n[]\n```", ([], True)),
        ("I'm sorry, I cannot do that.", None),
        ("[not json]", None),
    ],
)
def test_extract_json_array(reply: str, expected: Any) -> None:
    assert extract_json_array(reply) == expected


def test_validation_drops_and_counts_by_reason() -> None:
    types = {"xs": parse_type("List Nat"), "k": parse_type("Int")}
    elements = [
        {"xs": "[1, 2]", "k": -1},
        {"xs": [1, 2], "k": -1},  # the same input in another encoding
        {"xs": [], "k": 0},
        {"xs": "[1, -2]", "k": 0},  # a negative Nat
        {"xs": [1], "k": "five"},
        {"xs": [1], "k": 1.5},
        {"xs": [1]},
        {"xs": [1], "k": 1, "extra": 0},
        [1, 2],
        "xs := [1]",
    ]
    kept, dropped = validate_candidates(elements, types, {})
    assert [c.args for c in kept] == [{"xs": (Nat(1), Nat(2)), "k": -1}, {"xs": (), "k": 0}]
    assert kept[0].key == "k := -1\nxs := [1, 2]" and kept[0].raw == {"xs": "[1, 2]", "k": -1}
    assert dict(dropped) == {
        "duplicate": 1,
        "bad-value: xs": 1,
        "bad-value: k": 2,
        "wrong-keys": 2,
        "not-object": 2,
    }


# ---------------------------------------------------------------------------------------------
# End to end over HTTP


def test_llm_round_end_to_end(server: FakeOpenAIServer, client: LLMClient, clamp: Task) -> None:
    rows = [
        {"x": 0, "lo": 0, "hi": 0},
        {"x": "-4", "lo": -10, "hi": 10},  # an integer written as a string is read as stored data is
        {"x": 5, "lo": 3, "hi": 1},  # meant to be invalid: still well-typed, kept
        {"x": 1, "lo": 2},  # wrong keys
        {"x": 1, "lo": 2, "hi": 3, "y": 0},  # wrong keys
        {"x": 1.5, "lo": 0, "hi": 2},  # bad value
        {"x": 0, "lo": "zero", "hi": 2},  # bad value
        "x=1",  # not an object
        {"x": 0, "lo": 0, "hi": 0},  # duplicate
    ]
    reply = "Here are the candidates you asked for:\n```json\n" + json.dumps(rows, indent=1) + "\n```\nLet me know!"
    server.script(Reply(reply, usage=(1200, 300)))
    result = generate_llm_inputs(clamp, client, n=9, invalid_share=0.2, seed=7)

    assert result.error is None and result.llm_failure is None and not result.cached
    assert result.rows == [{"x": 0, "lo": 0, "hi": 0}, {"x": -4, "lo": -10, "hi": 10}, {"x": 5, "lo": 3, "hi": 1}]
    assert all(type(v) is int for row in result.rows for v in row.values())
    assert result.received == 9 and result.requested == 9 and result.requested_invalid == 2
    assert result.dropped == {"bad-value: lo": 1, "bad-value: x": 1, "duplicate": 1, "not-object": 1, "wrong-keys": 2}
    assert result.dropped_total == 6
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (1200, 300)

    request = server.requests[0].body
    assert request["seed"] == 7 and request["model"] == "fake-model"
    assert "limits an integer to a closed range" in request["messages"][1]["content"]
    assert "Write 9 new candidate inputs" in request["messages"][1]["content"]

    again = generate_llm_inputs(clamp, client, n=9, invalid_share=0.2, seed=7)
    assert again.cached and again.rows == result.rows and server.request_count == 1
    generate_llm_inputs(clamp, client, n=9, invalid_share=0.2, seed=8)  # another seed is another request
    assert server.request_count == 2


def test_structures_lists_and_uint8_values(server: FakeOpenAIServer, client: LLMClient, tmp_path: Path) -> None:
    task = budget_task(tmp_path)
    rows = [
        {"b": "{ limit := 5, spent := [1, 1] }", "extra": [0, 2], "scale": 3},
        {"b": {"limit": 0, "spent": []}, "extra": "[]", "scale": 0},
        {"b": "⟨7, [7]⟩", "extra": [], "scale": 255},
        {"b": "{ limit := 5 }", "extra": [], "scale": 1},  # a missing field
        {"b": "{ limit := 5, spent := [] }", "extra": [], "scale": 256},  # out of UInt8 range
        {"b": "{ limit := 5, spent := [] }", "extra": [-1], "scale": 1},  # a negative Nat
    ]
    server.script(Reply(json.dumps(rows)))
    result = generate_llm_inputs(task, client, n=6)
    assert len(result.candidates) == 3
    first = result.candidates[0].args
    assert first["b"] == Struct("Budget", (("limit", Nat(5)), ("spent", (Nat(1), Nat(1)))))
    assert first["extra"] == (Nat(0), Nat(2)) and int(first["scale"]) == 3
    assert result.candidates[2].args["b"] == Struct("Budget", (("limit", Nat(7)), ("spent", (Nat(7),))))
    assert result.dropped == {"bad-value: b": 1, "bad-value: extra": 1, "bad-value: scale": 1}


def test_arrays_read_from_json_and_lean_text(server: FakeOpenAIServer, client: LLMClient) -> None:
    task = load_task(MINI / "mini_running_max")
    server.script(Reply('[{"a": [3, -1]}, {"a": "#[]"}, {"a": "[1, 2]"}]'))
    result = generate_llm_inputs(task, client, n=3)
    assert result.rows == [{"a": Arr((3, -1))}, {"a": Arr(())}]
    assert result.dropped == {"bad-value: a": 1}  # a List literal is not an Array


@pytest.mark.parametrize(
    ("reply", "failure", "dropped"),
    [
        (Reply(content=None, refusal="I won't."), "refusal", {}),
        (Reply(content="", finish_reason="content_filter"), "refusal", {}),
        (Reply(content="   "), "empty", {}),
        (Reply(content="I do not understand the task."), None, {"not-json": 1}),
    ],
)
def test_unusable_replies_do_not_crash_the_task(
    server: FakeOpenAIServer, client: LLMClient, clamp: Task, reply: Reply, failure: str | None, dropped: dict
) -> None:
    server.script(reply)
    result = generate_llm_inputs(clamp, client, n=5)
    assert result.candidates == [] and result.llm_failure == failure and result.dropped == dropped
    assert client.stats.failure_count == (failure is not None)


def test_a_truncated_reply_keeps_its_complete_elements(
    server: FakeOpenAIServer, client: LLMClient, clamp: Task
) -> None:
    server.script(Reply('```json\n[{"x": 1, "lo": 0, "hi": 2},\n {"x": 2, "lo": 0, "hi": 2},\n {"x": 3, "lo"',
                        finish_reason="length"))
    result = generate_llm_inputs(clamp, client, n=40)
    assert result.llm_failure == "truncated"
    assert [row["x"] for row in result.rows] == [1, 2]
    assert result.dropped == {"not-json": 1}


def test_a_rejected_request_is_recorded_but_an_endpoint_failure_propagates(
    server: FakeOpenAIServer, client: LLMClient, clamp: Task
) -> None:
    server.script(HttpError(400, "maximum context length exceeded"))
    result = generate_llm_inputs(clamp, client, n=5)
    assert result.candidates == [] and result.error is not None and "maximum context length" in result.error
    server.script(HttpError(500), HttpError(500))
    with pytest.raises(LLMCallError) as info:
        generate_llm_inputs(clamp, client, n=6)
    assert info.value.kind == "server"


def test_arguments_are_checked(client: LLMClient, clamp: Task) -> None:
    with pytest.raises(ValueError):
        generate_llm_inputs(clamp, client, n=0)
    with pytest.raises(ValueError):
        generate_llm_inputs(clamp, client, invalid_share=1.5)
