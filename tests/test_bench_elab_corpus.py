"""benchmarks/elab_corpus.py: the corpus table, and its exit code on a false pass or a failing control."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, load_benchmark_script

SUITE = PROJECT_ROOT / "tests" / "fixtures" / "elab" / "suite"
RIGHT_CODE = {"code": "  (s.toList.filter (· == c)).length\n"}


def _entry(name: str, cls: str, submission: dict[str, str], lean: dict[str, int], **extra: str) -> dict[str, object]:
    return {"name": name, "class": cls, "task": "elab_count_char", "submission": submission, "lean": lean, **extra}


def _run(tmp_path: Path, entries: list[dict[str, object]], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list]:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "entries.json").write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "rows.json"
    code = load_benchmark_script("elab_corpus").main(["--corpus", str(corpus), "--suite", str(SUITE), "--json", str(out)])
    return code, capsys.readouterr().out, json.loads(out.read_text(encoding="utf-8"))


def test_a_control_and_a_positioned_rejection_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = [
        _entry("right", "control/plain", RIGHT_CODE, {"code": 1}),
        _entry("string_plus_char", "mistake/string-append-char", {"code": "  (s ++ c).length\n"}, {"code": 0},
               lean_error="failed to synthesize HAppend String Char"),
    ]
    code, printed, rows = _run(tmp_path, entries, capsys)
    assert code == 0
    assert [r["outcome"] for r in rows] == ["decided", "rejected, positioned"]
    assert "TOTAL" in printed


def test_a_false_pass_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a verdict of 0 for code the engine (rightly) passes: the table must call it a false pass
    entries = [_entry("claimed_wrong", "hostile/claimed", RIGHT_CODE, {"code": 0})]
    code, printed, rows = _run(tmp_path, entries, capsys)
    assert code == 1 and rows[0]["outcome"] == "false pass"
    assert "false pass: claimed_wrong" in printed


def test_a_malformed_entry_is_one_line_and_exit_2_the_others_scored(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    entries = [
        _entry("right", "control/plain", RIGHT_CODE, {"code": 1}),
        {"name": "no_task", "class": "control/plain", "submission": RIGHT_CODE, "lean": {"code": 1}},
        _entry("bad_verdict", "control/plain", RIGHT_CODE, {"code": 2}),
        _entry("bad_section", "control/plain", {"nonsense": "x"}, {"code": 1}),
        _entry("bad_metric", "control/plain", RIGHT_CODE, {"precond": 1}),
    ]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "entries.json").write_text(json.dumps(entries), encoding="utf-8")
    (corpus / "broken.json").write_text("{not json", encoding="utf-8")
    out = tmp_path / "rows.json"
    code = load_benchmark_script("elab_corpus").main(["--corpus", str(corpus), "--suite", str(SUITE), "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 2
    errors = captured.err.strip().splitlines()
    assert len(errors) == 5 and all(line.startswith("error: ") for line in errors)
    assert any("entry 4 (bad_metric): `lean` names no metric precond" in line for line in errors)
    assert any("broken.json: not a JSON corpus file" in line for line in errors)
    assert any("entry 1 (no_task): `task`" in line for line in errors)
    assert any("entry 2 (bad_verdict): `lean`" in line for line in errors)
    assert any(line.startswith("error: bad_section: not a submission") for line in errors)
    assert [r["name"] for r in json.loads(out.read_text(encoding="utf-8"))] == ["right"]
