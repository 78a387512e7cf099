"""The Lean backend's protocol layer against real Lean REPL v4.24.0 transcripts.

The transcripts are the REPL's own test folder at tag v4.24.0 (``NAME.in`` requests,
``NAME.expected.out`` the answers its CI checks), read by path from ``../shared/lean-repl-v4.24.0``
and never copied; the tests skip when they are absent. Every request must go through our request
models and come out as the same JSON; every answer must be read by :class:`ResponseReader`, parse
into our answer models and come out as the same JSON (so no field is silently dropped); and the
messages must reach the checks (``interpret``) with their severities and positions.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import PROJECT_ROOT

from veriscale.backends.lean.interpret import SnippetResult, read_eval, split_messages
from veriscale.backends.lean.protocol import (
    CommandRequest,
    FileRequest,
    ProofStepRequest,
    ProofStepResponse,
    ReplAnswerError,
    ReplRefusal,
    ReplResponse,
    ResponseReader,
    decode_response,
    encode_request,
    parse_request,
)
from veriscale.backends.lean.snippets import Snippet

TRANSCRIPTS = Path(os.environ.get("VERISCALE_REPL_TRANSCRIPTS", PROJECT_ROOT.parent / "shared" / "lean-repl-v4.24.0"))
TEST_DIR = TRANSCRIPTS / "test"
IN_FILES = sorted(TEST_DIR.rglob("*.in")) if TEST_DIR.is_dir() else []

pytestmark = pytest.mark.skipif(not IN_FILES, reason=f"REPL transcripts not found at {TRANSCRIPTS}")


def repl_queries(text: str) -> list[str]:
    """The queries the REPL reads from an ``.in`` file, as its ``getLines`` reads them: lines up to
    a blank line, each right-trimmed and concatenated with no separator; queries starting with
    ``#`` or ``--`` are skipped."""
    queries: list[str] = []
    current: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line.strip():
            current.append(line.rstrip())
            continue
        query = "".join(current)
        current = []
        if query and not query.startswith(("#", "--")):
            queries.append(query)
    return queries


def repl_answers(text: str) -> list[dict[str, Any]]:
    """The answers in an ``.expected.out`` file, cut out by our own stream reader."""
    reader = ResponseReader()
    reader.feed(text.encode("utf-8") + b"\n\n")
    answers = []
    while (payload := reader.next_object()) is not None:
        answers.append(payload)
    assert reader.noise == [] and len(reader) == 0
    return answers


def _expected_out(path: Path) -> Path:
    return path.with_name(path.name[: -len(".in")] + ".expected.out")


def _id(path: Path) -> str:
    return path.relative_to(TEST_DIR).as_posix()


def transcript(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    requests = [json.loads(q) for q in repl_queries(path.read_text(encoding="utf-8"))]
    out = _expected_out(path)
    answers = repl_answers(out.read_text(encoding="utf-8")) if out.is_file() else None
    return requests, answers


def test_the_transcripts_are_all_there() -> None:
    # The v4.24.0 test folder: dozens of transcripts, with and without Mathlib.
    assert len(IN_FILES) >= 70
    assert sum(_expected_out(p).is_file() for p in IN_FILES) >= 65


@pytest.mark.parametrize("path", IN_FILES, ids=_id)
def test_transcript_goes_through_the_protocol_models(path: Path) -> None:
    requests, answers = transcript(path)
    assert requests
    for request in requests:
        model = parse_request(request)
        assert model.wire() == request
        # What we would send is one line that the REPL reads back as the same object.
        encoded = encode_request(model).decode("utf-8")
        assert encoded.endswith("\n\n") and "\n" not in encoded[:-2]
        assert [json.loads(q) for q in repl_queries(encoded)] == [request]
    if answers is None:  # a transcript without recorded answers
        return
    assert len(answers) == len(requests)
    for request, payload in zip(requests, answers):
        answer = decode_response(payload)
        assert answer.wire() == payload
        kind = parse_request(request)
        if isinstance(answer, ReplRefusal):
            continue
        if isinstance(kind, (CommandRequest, FileRequest)):
            assert isinstance(answer, ReplResponse)
        elif isinstance(kind, ProofStepRequest):
            assert isinstance(answer, ProofStepResponse)


def _all_answers() -> list[tuple[dict[str, Any], Any]]:
    pairs = []
    for path in IN_FILES:
        requests, answers = transcript(path)
        pairs += list(zip(requests, answers or []))
    return [(request, decode_response(payload)) for request, payload in pairs]


def test_every_kind_of_answer_occurs() -> None:
    # The checks below would prove little if the transcripts lacked these shapes.
    answers = [answer for _, answer in _all_answers()]
    severities = {m.severity for a in answers if not isinstance(a, ReplRefusal) for m in a.messages}
    assert severities == {"info", "warning", "error"}
    assert any(isinstance(a, ReplRefusal) and a.message == "Unknown environment." for a in answers)
    assert any(isinstance(a, ProofStepResponse) and a.traces for a in answers)
    assert any(isinstance(a, ReplResponse) and a.tactics for a in answers)
    assert any(isinstance(a, ReplResponse) and a.infotree for a in answers)
    sorries = [s for a in answers if not isinstance(a, ReplRefusal) for s in a.sorries]
    assert any(s.pos is None for s in sorries) and any(s.pos is not None for s in sorries)
    assert any("\n" in m.data for a in answers if not isinstance(a, ReplRefusal) for m in a.messages)


def test_messages_reach_the_checks_with_their_lines_and_severities() -> None:
    """Split every real command answer as the backend splits a batch: one snippet per line of the
    command. Each message must land in the snippet of its line, at line 1 of it, keeping its
    severity, columns and text; a snippet's errors are exactly the error messages on its line."""
    checked = 0
    for request, answer in _all_answers():
        if not isinstance(answer, ReplResponse) or "cmd" not in request or not answer.messages:
            continue
        lines = request["cmd"].split("\n")
        snippets = [Snippet(i, "eval", line, 1) for i, line in enumerate(lines)]
        results = split_messages(answer.messages, snippets)
        for index, result in enumerate(results):
            on_line = [m for m in answer.messages if m.pos.line == index + 1]
            assert [(m.severity, m.pos.column, m.data) for m in result.messages] == [
                (m.severity, m.pos.column, m.data) for m in on_line
            ]
            assert all(m.pos.line == 1 for m in result.messages)
            assert [m.data for m in result.errors] == [m.data for m in on_line if m.severity == "error"]
        checked += len(answer.messages)
    assert checked >= 50


def test_an_info_message_is_read_as_the_printed_value() -> None:
    # `#check f` answers with an info message at the command's line 1: that is what read_eval reads.
    requests, answers = transcript(TEST_DIR / "dup_msg.in")
    assert answers is not None
    checked, failing = decode_response(answers[1]), decode_response(answers[2])
    assert isinstance(checked, ReplResponse) and isinstance(failing, ReplResponse)
    snippet = Snippet(0, "eval", requests[1]["cmd"], 1)
    outcome = read_eval(split_messages(checked.messages, [snippet])[0], snippet)
    assert outcome.text == "f : Nat" and outcome.error is None
    # An error on the line is an elaboration error, never a value.
    bad = Snippet(0, "eval", requests[2]["cmd"], 1)
    outcome = read_eval(split_messages(failing.messages, [bad])[0], bad)
    assert outcome.text is None and outcome.error == "Unknown identifier `g`"


def test_a_multi_line_message_is_kept_whole() -> None:
    requests, answers = transcript(TEST_DIR / "trace_simp.in")
    assert answers is not None
    answer = decode_response(answers[3])
    assert isinstance(answer, ReplResponse)
    snippet = Snippet(0, "eval", requests[3]["cmd"], 1)
    result: SnippetResult = split_messages(answer.messages, [snippet])[0]
    assert read_eval(result, snippet).text == answer.messages[0].data
    assert answer.messages[0].data.count("\n") == 7


@pytest.mark.parametrize(
    "payload",
    [
        {"messages": []},  # a command answer always has env
        {"env": 0, "messages": [{"severity": "fatal", "pos": {"line": 1, "column": 0}, "data": "x"}]},
        {"env": 0, "messages": [{"severity": "error", "data": "no position"}]},
        {"proofStatus": "Completed", "goals": []},  # no proofState
        {"env": -1},
    ],
)
def test_answers_of_no_known_shape_are_refused(payload: dict[str, Any]) -> None:
    with pytest.raises(ReplAnswerError, match="REPL answer is not a"):
        decode_response(payload)


def test_requests_refuse_unknown_fields() -> None:
    with pytest.raises(ValueError, match="not a REPL request"):
        parse_request({"cmd": "#eval 1", "envv": 0})
    assert parse_request({"cmd": "#eval 1", "env": 3}) == CommandRequest(cmd="#eval 1", env=3)
