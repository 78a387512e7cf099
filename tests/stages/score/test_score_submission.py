"""Submission files: JSONL loading with per-line errors, and the write/load round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriscale.stages.score.submission import (
    Submission,
    load_submissions,
    parse_submission_lines,
    write_submissions,
)


def test_round_trip_keeps_bodies_exactly(tmp_path: Path) -> None:
    bodies = [
        Submission(task="a", code="  xs.map (· + 1)\n", code_aux="def h (n : Nat) : Nat :=\n  n\n"),
        # Line separators JSON keeps escaped must survive: U+2028 inside a body, a lone CR, a tab.
        Submission(task="b", postcond="  result = \"a\u2028b\\r\"\r\n\t∧ True", proof=""),
    ]
    path = tmp_path / "sub.jsonl"
    write_submissions(path, bodies)
    loaded, errors = load_submissions(path)
    assert errors == []
    assert loaded == bodies
    assert len(path.read_text(encoding="utf-8").splitlines()) >= 2
    # Sections left out are not written (None), an empty body is (it replaces the section).
    first, second = (json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line)
    assert set(first) == {"task", "code", "code_aux"}
    assert second["proof"] == ""


def test_bad_lines_are_reported_and_the_rest_load() -> None:
    lines = [
        '{"task": "t1", "code": "  1"}',
        "",
        "{not json",
        "[1, 2]",
        '{"task": "t2", "code": 7}',
        '{"task": "t3", "cod": "typo"}',
        '{"code": "no task"}',
        '{"task": "t1", "code": "  2"}',
        '{"task": 5, "code": "x"}',
        '{"task": "t4", "precond": "  True", "precond_aux": ""}',
    ]
    loaded, errors = parse_submission_lines(lines, "f.jsonl")
    assert [s.task for s in loaded] == ["t1", "t4"]
    assert loaded[0].code == "  1"  # the first line of a duplicated task is the one scored
    by_line = {e.line: e for e in errors}
    assert sorted(by_line) == [3, 4, 5, 6, 7, 8, 9]
    assert "not JSON" in by_line[3].reason
    assert "not a JSON object" in by_line[4].reason
    assert by_line[5].task == "t2" and "code" in by_line[5].reason
    assert by_line[6].task == "t3" and "unknown key" in by_line[6].reason
    assert "task" in by_line[7].reason
    assert "duplicate" in by_line[8].reason and "line 1" in by_line[8].reason
    assert by_line[9].task is None
    assert all(e.file == "f.jsonl" for e in errors)
    assert str(by_line[6]).startswith("f.jsonl:6: t3:")


def test_sections_lists_only_submitted_bodies() -> None:
    submission = Submission(task="t", code="  x", proof_aux="")
    assert submission.sections() == {"code": "  x", "proof_aux": ""}


def test_submission_rejects_unknown_keys_and_non_strings() -> None:
    with pytest.raises(ValueError):
        Submission.model_validate({"task": "t", "import": "Mathlib"})
    with pytest.raises(ValueError):
        Submission.model_validate({"task": "t", "code": None, "extra": 1})


def test_failing_input_of_a_user_structure_is_shown_as_lean() -> None:
    # A reason line shows a failing input at its type with the task's structures, never Python's
    # repr of the runtime value (which a reader cannot paste back into Lean).
    from veriscale.lean.codec import parse_value
    from veriscale.lean.types import parse_structures, parse_type
    from veriscale.stages.score.scoring import _brief

    structs = parse_structures("structure Span where\n  lo : Int\n  hi : Int\n")
    span = parse_type("Span")
    value = parse_value("{ lo := -1, hi := 3 }", span, structs)
    shown = _brief(value, span, structs)
    assert "Struct(" not in shown and "lo := -1" in shown and "hi := 3" in shown
    # without the structures the codec cannot render it; Lean's repr is the fallback
    assert "Struct(" not in _brief(value, span, {})
