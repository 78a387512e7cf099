"""Both games as inspect_ai tasks, end to end: inspect's mock model with scripted replies (a right
answer, a wrong one, an invalid input, a malformed reply, a refusal) and the local
OpenAI-compatible server through inspect's OpenAI provider."""

from __future__ import annotations

import json

import pytest
from fake_openai_server import FakeOpenAIServer, Reply
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from veriscale.games.falsify.game import FalsifySettings
from veriscale.games.inspect_tasks import run_falsify_model, run_refute_model
from veriscale.games.refute.build import load_items
from veriscale.task import load_task


def _out(content: str) -> ModelOutput:
    output = ModelOutput.from_content("mockllm", content)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    return output


def _tool_call(name: str, arguments: dict) -> ModelOutput:
    output = ModelOutput.for_tool_call("mockllm", name, arguments)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def _mock(*outputs: ModelOutput):
    script = list(outputs)

    def reply(messages, tools, tool_choice, config):
        return script.pop(0) if script else _out("I have nothing more to say.")

    return get_model("mockllm/model", custom_outputs=reply)


def _first_item(refute_build, games_plus):
    item = load_items(refute_build[0])[0]
    return item, load_task(games_plus / item.task)


def _fenced(value: dict) -> str:
    return "Here is my input:\n```json\n" + json.dumps(value) + "\n```"


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("right", "success"),
        ("wrong", "not_different"),
        ("invalid", "invalid_input"),
        ("malformed", "malformed"),
        ("refusal", "malformed"),
    ],
)
def test_refute_with_mock_model(refute_build, games_plus, tmp_path, reply, verdict) -> None:
    item, task = _first_item(refute_build, games_plus)
    texts = {
        "right": _fenced(item.witnesses[0]),
        "wrong": _fenced(task.tests[0].input),
        "invalid": _fenced({name: "not a value" for name in task.param_names}),
        "malformed": "{a: 1,,}",
        "refusal": "I'm sorry, but I can't help with that.",
    }
    metrics = run_refute_model(refute_build[0], tmp_path, _mock(_out(texts[reply])), attempts=1, limit=1)
    record = json.loads((tmp_path / "transcripts.jsonl").read_text().splitlines()[0])
    assert record["item"] == item.id
    assert [a["verdict"] for a in record["attempts"]] == [verdict]
    assert metrics["success_rate"] == (1.0 if verdict == "success" else 0.0)


def test_refute_feedback_tool_attempts_and_resume(refute_build, games_plus, tmp_path) -> None:
    item, task = _first_item(refute_build, games_plus)
    model = _mock(
        _tool_call("run_wrong_program", {"input": json.dumps(item.witnesses[0])}),
        _out(_fenced(task.tests[0].input)),
        _out(_fenced(item.witnesses[0])),
    )
    metrics = run_refute_model(refute_build[0], tmp_path, model, attempts=2, feedback_calls=1, limit=1)
    assert metrics["pass@1"] == 0.0 and metrics["pass@2"] == 1.0 and metrics["feedback_calls"] == 1
    record = json.loads((tmp_path / "transcripts.jsonl").read_text())
    assert any(t.get("text", "").startswith("output:") for t in record["transcript"])

    def must_not_be_called(messages, tools, tool_choice, config):
        raise AssertionError("a finished item was sent to the model again")

    again = run_refute_model(
        refute_build[0],
        tmp_path,
        get_model("mockllm/model", custom_outputs=must_not_be_called),
        attempts=2,
        feedback_calls=1,
        limit=1,
    )
    assert again == metrics


def test_falsify_with_mock_model(clamp_games, tmp_path) -> None:
    model = _mock(
        _out(json.dumps({"hypothesis": "lo < hi", "expectation": "no", "input": {"x": 0, "lo": 2, "hi": 2}})),
        _out("I refuse to play."),
        _out(json.dumps({"final": "lo ≤ hi ∧ x < 2"})),  # revised after the contradiction, still wrong
        _out("```json\n" + json.dumps({"final": "lo ≤ hi"}) + "\n```"),
    )
    metrics = run_falsify_model(
        clamp_games, tmp_path, model, settings=FalsifySettings(max_turns=4, max_guesses=2)
    )
    record = json.loads((tmp_path / "transcripts.jsonl").read_text())
    assert record["success"] and record["guesses"] == 2 and record["invalid"] == 1
    assert record["conclusive_falsifications"] == 1 and record["positive_bias"] == 0.0
    assert metrics["success_rate"] == 1.0


def test_games_through_the_local_openai_server(
    refute_build, games_plus, clamp_games, tmp_path, monkeypatch
) -> None:
    item, _ = _first_item(refute_build, games_plus)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeOpenAIServer() as server:
        server.script(Reply(_fenced(item.witnesses[0]), usage=(10, 5)))
        model = get_model("openai/gpt-4o-mini", base_url=server.base_url, api_key="test-key")
        metrics = run_refute_model(refute_build[0], tmp_path / "refute", model, attempts=1, limit=1)
        assert metrics["success_rate"] == 1.0
        server.script(
            Reply(
                json.dumps({"hypothesis": "True", "expectation": "yes", "input": {"x": 1, "lo": 0, "hi": 3}}),
                usage=(9, 9),
            ),
            Reply(json.dumps({"final": "True"}), usage=(9, 9)),
        )
        lost = run_falsify_model(
            clamp_games, tmp_path / "falsify", model, settings=FalsifySettings(max_turns=3, max_guesses=1)
        )
        assert lost["success_rate"] == 0.0 and lost["positive_bias"] == 1.0
        assert len(server.requests) == 3


def test_a_model_that_only_calls_the_tool_fails_and_is_recorded(refute_build, games_plus, tmp_path) -> None:
    item, _ = _first_item(refute_build, games_plus)

    def always_the_tool(messages, tools, tool_choice, config):
        return _tool_call("run_wrong_program", {"input": json.dumps(item.witnesses[0])})

    model = get_model("mockllm/model", custom_outputs=always_the_tool)
    metrics = run_refute_model(refute_build[0], tmp_path, model, attempts=1, feedback_calls=1, limit=1)
    record = json.loads((tmp_path / "transcripts.jsonl").read_text())
    assert metrics["success_rate"] == 0.0 and record["solved_at"] is None and record["attempts"] == []
