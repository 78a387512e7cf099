"""Task model, strict task.lean marker parser, loader and writer (synthetic tasks and examples/mini)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES_DIR

from veriscale.benchmark import load_benchmark
from veriscale.task import (
    SECTION_NAMES,
    LeanFile,
    LeanMarkerError,
    LeanSection,
    Task,
    TaskLoadError,
    load_task,
    write_benchmark,
    write_task,
)

MINI = EXAMPLES_DIR / "mini"

# A small task of our own: `twice n = n + n` over Nat.
LEAN = """\
-- !benchmark @start import type=solution
-- !benchmark @end import

-- !benchmark @start import type=llm
-- !benchmark @end import

-- !benchmark @start precond_aux
-- !benchmark @end precond_aux

def twice_precond (n : Nat) : Prop :=
  -- !benchmark @start precond
  True
  -- !benchmark @end precond

-- !benchmark @start code_aux
-- !benchmark @end code_aux

def twice (n : Nat) (h_precond : twice_precond (n)) : Nat :=
  -- !benchmark @start code
  n + n
  -- !benchmark @end code

def twice_postcond (n : Nat) (result : Nat) (h_precond : twice_precond (n)) : Prop :=
  -- !benchmark @start postcond
  result = 2 * n
  -- !benchmark @end postcond

theorem twice_spec_satisfied (n : Nat) (h_precond : twice_precond (n)) :
    twice_postcond (n) (twice (n) h_precond) h_precond := by
  -- !benchmark @start proof
  sorry
  -- !benchmark @end proof
"""


def task_json(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "twice",
        "signature": {
            "name": "twice",
            "parameters": [{"param_name": "n", "param_type": "Nat"}],
            "return_type": "Nat",
        },
        "description_file": "./description.txt",
        "lean_file": "./task.lean",
        "specification": {"preconditions": "- none", "postconditions": "- doubles"},
        "metadata": {"note": "synthetic"},
        "test_file": "./test.json",
        "reject_inputs_file": "./reject_inputs.json",
    }
    data.update(overrides)
    return data


TESTS: list[dict[str, Any]] = [
    {"input": {"n": 0}, "expected": 0, "unexpected": [1]},
    {"input": {"n": 3}, "expected": 6, "unexpected": [3, 9]},
]


def make_task_dir(
    root: Path,
    name: str = "twice",
    *,
    lean: str = LEAN,
    task: Any = None,
    tests: Any = None,
    rejects: Any = None,
    raw: dict[str, str] | None = None,
) -> Path:
    """Write a task directory; ``raw`` maps file names to exact text (overriding the rest)."""
    directory = root / name
    directory.mkdir(parents=True)
    files = {
        "task.json": json.dumps(task if task is not None else task_json(), indent=4),
        "description.txt": "Double a natural number.\n",
        "task.lean": lean,
        "test.json": json.dumps(tests if tests is not None else TESTS, indent=4),
        "reject_inputs.json": json.dumps(rejects if rejects is not None else []),
    }
    files.update(raw or {})
    for file, text in files.items():
        (directory / file).parent.mkdir(parents=True, exist_ok=True)
        with open(directory / file, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    return directory


def load_error(directory: Path) -> TaskLoadError:
    with pytest.raises(TaskLoadError) as info:
        load_task(directory)
    return info.value


# ---------------------------------------------------------------------------------------------
# Loading a good task


def test_load_synthetic_task(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path))
    assert task.id == "twice"
    assert task.signature.name == "twice"
    assert [(p.name, p.type) for p in task.signature.parameters] == [("n", "Nat")]
    assert task.param_names == ["n"]
    assert task.test_count == 2
    assert (
        task.tests[1].input == {"n": 3} and task.tests[1].expected == 6 and task.tests[1].unexpected == [3, 9]
    )
    assert task.reject_inputs == []
    assert task.description == "Double a natural number.\n"
    assert list(task.metadata) == [
        "description_file",
        "lean_file",
        "specification",
        "metadata",
        "test_file",
        "reject_inputs_file",
    ]
    assert task.section("code") == "  n + n\n"
    assert task.section("precond") == "  True\n"
    assert task.section("task_aux") == ""  # absent
    assert task.section_names() == [
        "import",
        "precond_aux",
        "precond",
        "code_aux",
        "code",
        "postcond",
        "proof",
    ]
    assert task.lean_text() == LEAN
    assert [s.type for s in task.lean.sections("import")] == ["solution", "llm"]


def test_section_rejects_unknown_name(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path))
    with pytest.raises(ValueError, match="unknown section name"):
        task.section("cod")


def test_import_sections_are_joined(tmp_path: Path) -> None:
    lean = LEAN.replace(
        "-- !benchmark @start import type=solution\n",
        "-- !benchmark @start import type=solution\nimport Std\n",
    ).replace(
        "-- !benchmark @start import type=llm\n", "-- !benchmark @start import type=llm\nimport Mathlib\n"
    )
    task = load_task(make_task_dir(tmp_path, lean=lean))
    assert task.section("import") == "import Std\nimport Mathlib\n"


def test_values_are_kept_raw(tmp_path: Path) -> None:
    tests = [
        {
            "input": {"xs": "[1, 2]", "m": {"k": [1, None]}},
            "expected": "#[1.5]",
            "unexpected": [2.5, True, None],
        },
    ]
    task = task_json(
        signature={
            "name": "f",
            "parameters": [
                {"param_name": "xs", "param_type": "List Nat"},
                {"param_name": "m", "param_type": "M"},
            ],
            "return_type": "Array Float",
        }
    )
    loaded = load_task(
        make_task_dir(tmp_path, task=task, tests=tests, rejects=[{"input": {"xs": "[]", "m": 0}}])
    )
    assert loaded.tests[0].model_dump() == tests[0]
    assert loaded.reject_inputs[0].input == {"xs": "[]", "m": 0}


# ---------------------------------------------------------------------------------------------
# Marker errors: every one names the file and the line


def _lean_with(line_no: int, new: str, *, replace: bool = True) -> str:
    lines = LEAN.split("\n")
    if replace:
        lines[line_no - 1] = new
    else:
        lines.insert(line_no - 1, new)
    return "\n".join(lines)


LEAN_LINES = LEAN.split("\n")
CODE_START = LEAN_LINES.index("  -- !benchmark @start code") + 1
CODE_END = LEAN_LINES.index("  -- !benchmark @end code") + 1
PRECOND_START = LEAN_LINES.index("  -- !benchmark @start precond") + 1
PRECOND_END = LEAN_LINES.index("  -- !benchmark @end precond") + 1
PROOF_START = LEAN_LINES.index("  -- !benchmark @start proof") + 1


@pytest.mark.parametrize(
    ("lean", "line", "reason"),
    [
        pytest.param(
            _lean_with(CODE_START, "  -- !benchmark @start cod"),
            CODE_START,
            "unknown section name 'cod'",
            id="unknown-name",
        ),
        pytest.param(
            _lean_with(PRECOND_END, "  -- !benchmark @start code", replace=False),
            PRECOND_END,
            "nested @start code inside precond",
            id="nested",
        ),
        pytest.param(
            _lean_with(PROOF_START, "-- !benchmark @start code\n-- !benchmark @end code", replace=False),
            PROOF_START,
            f"duplicate section code (first at line {CODE_START})",
            id="duplicate",
        ),
        pytest.param(
            LEAN.replace("@start import type=llm", "@start import type=solution"),
            4,
            "duplicate section import type=solution (first at line 1)",
            id="duplicate-import-type",
        ),
        pytest.param(
            _lean_with(CODE_END, "  -- !benchmark @end precond"),
            CODE_END,
            f"@end precond does not match the open section code (line {CODE_START})",
            id="end-mismatch",
        ),
        pytest.param(
            _lean_with(CODE_START, "  -- !benchmark @end code", replace=False),
            CODE_START,
            "@end code with no open section",
            id="end-none-open",
        ),
        pytest.param(
            LEAN.replace("  -- !benchmark @end proof\n", ""),
            PROOF_START,
            "unterminated section proof: no @end before end of file",
            id="unterminated",
        ),
        pytest.param(
            _lean_with(PROOF_START, "  !benchmark @start proof"),
            PROOF_START,
            "malformed marker line (`!benchmark` outside a `--` comment): '!benchmark @start proof'",
            id="no-comment",
        ),
        pytest.param(
            _lean_with(CODE_START, "  -- !benchmark @begin code"),
            CODE_START,
            "malformed marker line",
            id="bad-keyword",
        ),
        pytest.param(
            _lean_with(CODE_START, "  -- !benchmark @start"),
            CODE_START,
            "malformed marker line",
            id="no-name",
        ),
        pytest.param(
            _lean_with(CODE_START + 1, "  n + n -- see !benchmark notes"),
            CODE_START + 1,
            "malformed marker line",
            id="token-in-code",
        ),
        pytest.param(
            _lean_with(CODE_START, "  -- !benchmark @start code fast"),
            CODE_START,
            "malformed marker attribute 'fast'",
            id="bad-attribute",
        ),
        pytest.param(
            LEAN.replace("type=llm", "type=extra"), 4, "unknown import type 'extra'", id="unknown-import-type"
        ),
        pytest.param(
            _lean_with(CODE_START, "  -- !benchmark @start code type=llm"),
            CODE_START,
            "unknown attribute type=llm on section code",
            id="attribute-on-code",
        ),
        pytest.param(
            LEAN.replace("@start import type=solution", "@start import type=solution type=llm"),
            1,
            "duplicate marker attribute 'type'",
            id="repeated-attribute",
        ),
        pytest.param(
            _lean_with(CODE_END, "  -- !benchmark @end code type=x"),
            CODE_END,
            "@end code takes no attributes",
            id="attribute-on-end",
        ),
    ],
)
def test_marker_errors(tmp_path: Path, lean: str, line: int, reason: str) -> None:
    error = load_error(make_task_dir(tmp_path, lean=lean))
    assert error.task == "twice"
    assert error.file == "task.lean"
    assert error.line == line
    assert reason in error.reason
    assert str(error).startswith(f"twice/task.lean:{line}: ")
    assert reason in str(error)


def test_marker_parse_error_type() -> None:
    with pytest.raises(LeanMarkerError) as info:
        LeanFile.parse("-- !benchmark @end code\n")
    assert info.value.line == 1
    assert str(info.value) == "line 1: @end code with no open section"


def test_marker_whitespace_and_crlf() -> None:
    text = "\t--  !benchmark   @start code\t\r\nx\r\n  -- !benchmark @end code  \r\n"
    lean = LeanFile.parse(text)
    assert lean.section("code") == "x\r\n"
    assert lean.text() == text


def test_only_newline_ends_a_line() -> None:
    # \x0c and \u2028 are ordinary characters to Lean; str.splitlines would split on them.
    text = "a\x0cb\u2028c\n-- !benchmark @start code\nx\x0c\n-- !benchmark @end code"
    lean = LeanFile.parse(text)
    assert lean.text() == text
    assert lean.section("code") == "x\x0c\n"
    assert lean.section_line("code") == 3


def test_lean_file_without_sections() -> None:
    assert LeanFile.parse("").text() == ""
    lean = LeanFile.parse("def x := 1\n")
    assert lean.section_names() == [] and lean.text() == "def x := 1\n"


# ---------------------------------------------------------------------------------------------
# with_sections


def test_with_sections_replaces_bodies_only(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path))
    changed = task.with_sections(code="  n * 2", postcond="  result = n + n\n")
    assert changed.section("code") == "  n * 2\n"  # a final newline keeps @end on its own line
    assert changed.section("postcond") == "  result = n + n\n"
    assert changed.section("precond") == task.section("precond")
    expected = LEAN.replace("  n + n\n", "  n * 2\n").replace("  result = 2 * n\n", "  result = n + n\n")
    assert changed.lean_text() == expected
    assert task.lean_text() == LEAN  # the original is untouched
    assert changed.tests == task.tests and changed.id == task.id
    # Markers survive: the changed text parses to the same structure.
    assert LeanFile.parse(changed.lean_text()) == changed.lean


def test_with_sections_empty_body_and_crlf() -> None:
    lean = LeanFile.parse("-- !benchmark @start code\r\nold\r\n-- !benchmark @end code\r\n")
    assert (
        lean.with_sections({"code": "new"}).text()
        == "-- !benchmark @start code\r\nnew\r\n-- !benchmark @end code\r\n"
    )
    assert (
        lean.with_sections({"code": ""}).text() == "-- !benchmark @start code\r\n-- !benchmark @end code\r\n"
    )


def test_with_sections_import_goes_to_first_import(tmp_path: Path) -> None:
    lean = LEAN.replace(
        "-- !benchmark @start import type=llm\n", "-- !benchmark @start import type=llm\nimport Std\n"
    )
    task = load_task(make_task_dir(tmp_path, lean=lean))
    changed = task.with_sections(**{"import": "import Mathlib"})
    assert changed.section("import") == "import Mathlib\n"
    bodies = {s.type: s.body for s in changed.lean.sections("import")}
    assert bodies == {"solution": "import Mathlib\n", "llm": ""}


def test_with_sections_errors(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path))
    with pytest.raises(ValueError, match="unknown section name"):
        task.with_sections(cod="x")
    with pytest.raises(ValueError, match="no task_aux section"):
        task.with_sections(task_aux="x")


def test_section_line(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path))
    assert task.lean.section_line("code") == CODE_START + 1
    assert LEAN_LINES[CODE_START] == "  n + n"
    assert task.lean.section_line("task_aux") is None


def test_segments_are_typed() -> None:
    lean = LeanFile.parse("x\n-- !benchmark @start import type=test\n-- !benchmark @end import\n")
    section = lean.segments[1]
    assert isinstance(section, LeanSection)
    assert section.attributes == {"type": "test"}
    assert section.start_marker == "-- !benchmark @start import type=test\n"
    assert LeanFile.model_validate(lean.model_dump()) == lean
    assert set(SECTION_NAMES) >= {"import", "code", "proof"}


# ---------------------------------------------------------------------------------------------
# JSON and field errors


def test_bad_json_reports_line(tmp_path: Path) -> None:
    text = '[\n    {"input": {"n": 1}, "expected": 2, "unexpected": []},\n    {"input": {"n": 2}\n]\n'
    error = load_error(make_task_dir(tmp_path, raw={"test.json": text}))
    assert error.file == "test.json" and error.line == 4
    assert str(error).startswith("twice/test.json:4: invalid JSON")


def test_nan_is_not_json(tmp_path: Path) -> None:
    text = '[{"input": {"n": 1}, "expected": NaN, "unexpected": []}]'
    error = load_error(make_task_dir(tmp_path, raw={"test.json": text}))
    assert error.file == "test.json" and "NaN is not standard JSON" in error.reason


@pytest.mark.parametrize(
    "missing", ["task.json", "description.txt", "task.lean", "test.json", "reject_inputs.json"]
)
def test_missing_file(tmp_path: Path, missing: str) -> None:
    directory = make_task_dir(tmp_path)
    (directory / missing).unlink()
    error = load_error(directory)
    assert (error.file, error.reason, error.line) == (missing, "missing file", None)
    assert str(error) == f"twice/{missing}: missing file"


def test_not_a_directory(tmp_path: Path) -> None:
    error = load_error(tmp_path / "nope")
    assert "not a task directory" in error.reason


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        pytest.param([1], "expected a JSON object, got list", id="not-object"),
        pytest.param({k: v for k, v in task_json().items() if k != "id"}, "missing field 'id'", id="no-id"),
        pytest.param(task_json(id=7), "id must be a non-empty string", id="id-type"),
        pytest.param(
            {k: v for k, v in task_json().items() if k != "signature"},
            "missing field 'signature'",
            id="no-signature",
        ),
        pytest.param(task_json(signature=[]), "signature: expected an object", id="signature-type"),
        pytest.param(
            task_json(signature={"name": "f", "parameters": []}),
            "signature: missing field 'return_type'",
            id="no-return-type",
        ),
        pytest.param(
            task_json(signature={"name": "f", "parameters": {}, "return_type": "Nat"}),
            "signature: parameters must be a list",
            id="parameters-type",
        ),
        pytest.param(
            task_json(signature={"name": "f", "parameters": [{"param_name": "n"}], "return_type": "Nat"}),
            "parameters[0] must be an object with exactly param_name and param_type",
            id="parameter-keys",
        ),
        pytest.param(
            task_json(
                signature={
                    "name": "f",
                    "parameters": [{"param_name": "n", "param_type": 1}],
                    "return_type": "N",
                }
            ),
            "param_name and param_type must be strings",
            id="parameter-type",
        ),
        pytest.param(
            task_json(
                signature={
                    "name": "f",
                    "parameters": [{"param_name": "n", "param_type": "Nat"}] * 2,
                    "return_type": "Nat",
                }
            ),
            "duplicate parameter names ['n']",
            id="duplicate-parameter",
        ),
        pytest.param(
            task_json(signature={"name": "f", "parameters": [], "return_type": "Nat", "extra": 1}),
            "signature: unknown fields ['extra']",
            id="signature-extra",
        ),
        pytest.param(
            task_json(test_file="../test.json"), "test_file must be a relative path", id="escaping-file"
        ),
        pytest.param(task_json(lean_file=3), "lean_file must be a non-empty string", id="file-type"),
    ],
)
def test_task_json_errors(tmp_path: Path, task: Any, reason: str) -> None:
    error = load_error(make_task_dir(tmp_path, task=task))
    assert error.file == "task.json"
    assert reason in error.reason, error.reason


@pytest.mark.parametrize(
    ("tests", "reason"),
    [
        pytest.param({"input": {}}, "expected a list of {input, expected, unexpected}", id="not-list"),
        pytest.param(
            [{"input": {"n": 1}, "expected": 2}], "[0].unexpected: Field required", id="no-unexpected"
        ),
        pytest.param(
            [{"input": {"n": 1}, "expected": 2, "unexpected": 3}],
            "[0].unexpected: Input should be a valid list",
            id="unexp-type",
        ),
        pytest.param(
            [{"input": {"n": 1}, "expected": 2, "unexpected": [], "note": 1}],
            "[0].note: Extra inputs",
            id="extra-key",
        ),
        pytest.param(
            [{"input": [1], "expected": 2, "unexpected": []}],
            "[0].input: Input should be a valid dict",
            id="input-type",
        ),
        pytest.param(
            [TESTS[0], {"input": {"m": 1}, "expected": 2, "unexpected": []}],
            "[1].input: keys do not match the parameters ['n'] (missing ['n']; unknown ['m'])",
            id="wrong-keys",
        ),
        pytest.param(
            [{"input": {"n": 1, "k": 2}, "expected": 2, "unexpected": []}],
            "[0].input: keys do not match the parameters ['n'] (unknown ['k'])",
            id="extra-input-key",
        ),
    ],
)
def test_test_json_errors(tmp_path: Path, tests: Any, reason: str) -> None:
    error = load_error(make_task_dir(tmp_path, tests=tests))
    assert error.file == "test.json"
    assert reason in error.reason, error.reason


def test_reject_inputs_errors(tmp_path: Path) -> None:
    error = load_error(make_task_dir(tmp_path, rejects=[{"input": {}}]))
    assert error.file == "reject_inputs.json" and "(missing ['n'])" in error.reason
    error = load_error(make_task_dir(tmp_path, "b", rejects=[{"input": {"n": 1}, "expected": 1}]))
    assert error.file == "reject_inputs.json" and "[0].expected: Extra inputs" in error.reason


def test_file_pointers_are_followed(tmp_path: Path) -> None:
    directory = make_task_dir(
        tmp_path,
        task=task_json(test_file="data/tests.json"),
        raw={"data/tests.json": json.dumps(TESTS)},
    )
    (directory / "test.json").unlink()
    task = load_task(directory)
    assert task.test_count == 2 and task.file_name("test_file") == "data/tests.json"
    out = write_task(task, tmp_path / "out")
    assert (out / "data" / "tests.json").is_file() and not (out / "test.json").exists()
    assert load_task(out) == task


def test_error_pickles() -> None:
    error = TaskLoadError("t", "task.lean", "bad", 4)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.task, copy.file, copy.line, copy.reason, str(copy)) == (
        "t",
        "task.lean",
        4,
        "bad",
        "t/task.lean:4: bad",
    )
    marker = pickle.loads(pickle.dumps(LeanMarkerError(3, "x")))
    assert (marker.line, marker.reason) == (3, "x")


# ---------------------------------------------------------------------------------------------
# Round trips


def test_round_trip_synthetic_keeps_every_byte(tmp_path: Path) -> None:
    lean = LEAN.replace("\n", "\r\n").rstrip("\r\n")  # CRLF, no final newline
    task_data = task_json(extra_field={"kept": ["é", 1]})
    directory = make_task_dir(
        tmp_path,
        lean=lean,
        task=task_data,
        raw={
            "description.txt": "Dé\r\nscription\n\n",
            "coverage_report.md": "# Coverage ✓\r\n",
            "notes/more.txt": "nested\n",
            ".hidden": "ignored",
        },
    )
    task = load_task(directory)
    assert task.metadata["extra_field"] == {"kept": ["é", 1]}
    assert task.extra_files == {"coverage_report.md": "# Coverage ✓\r\n", "notes/more.txt": "nested\n"}
    out = write_task(task, tmp_path / "out" / "twice")
    again = load_task(out)
    assert again == task
    for name in ("task.lean", "description.txt", "coverage_report.md", "notes/more.txt"):
        assert (out / name).read_bytes() == (directory / name).read_bytes(), name
    assert not (out / ".hidden").exists()
    assert json.loads((out / "task.json").read_text(encoding="utf-8")) == task_data
    # JSON style: 4-space indent, non-ASCII kept, final newline.
    written = (out / "task.json").read_text(encoding="utf-8")
    assert written.startswith('{\n    "id": "twice",') and '"é"' in written and written.endswith("}\n")


def test_round_trip_after_with_sections(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path)).with_sections(code="  2 * n")
    again = load_task(write_task(task, tmp_path / "out"))
    assert again == task and again.section("code") == "  2 * n\n"


def test_mini_examples_round_trip(tmp_path: Path) -> None:
    loaded = load_benchmark(MINI)
    assert loaded.failures == []
    assert [t.id for t in loaded.tasks] == [
        "mini_clamp",
        "mini_count_evens",
        "mini_dedup_sorted",
        "mini_running_max",
    ]
    write_benchmark(loaded.tasks, tmp_path)
    again = load_benchmark(tmp_path)
    assert again.failures == [] and again.tasks == loaded.tasks
    for task in loaded.tasks:
        for name in ("task.json", "description.txt", "task.lean", "test.json", "reject_inputs.json"):
            assert (tmp_path / task.id / name).read_bytes() == (MINI / task.id / name).read_bytes(), (
                task.id,
                name,
            )


def test_mini_examples_are_complete_tasks() -> None:
    for task in load_benchmark(MINI).tasks:
        assert set(task.section_names()) == set(SECTION_NAMES) - {"task_aux"}, task.id
        assert 4 <= task.test_count <= 6
        assert all(1 <= len(t.unexpected) <= 2 for t in task.tests)
        assert all(t.expected not in t.unexpected for t in task.tests)
        no_precondition = task.section("precond").strip() == "True"
        assert (task.reject_inputs == []) == no_precondition, task.id
        name = task.signature.name
        assert f"def {name} (" in task.lean_text() and f"def {name}_postcond (" in task.lean_text()


# ---------------------------------------------------------------------------------------------
# Benchmarks


def test_benchmark_reports_bad_task_and_carries_on(tmp_path: Path) -> None:
    make_task_dir(tmp_path, "b_good")
    make_task_dir(tmp_path, "a_bad", lean=LEAN.replace("  -- !benchmark @end code\n", ""))
    make_task_dir(tmp_path, "c_good", task=task_json(id="other"))
    (tmp_path / "README.md").write_text("not a task")
    (tmp_path / "d_empty").mkdir()
    loaded = load_benchmark(tmp_path)
    assert [t.id for t in loaded.tasks] == ["twice", "other"]
    assert [(e.task, e.file) for e in loaded.failures] == [("a_bad", "task.lean"), ("d_empty", "task.json")]
    assert "nested @start postcond inside code" in loaded.failures[0].reason
    summary = loaded.summary()
    assert "2 of 4 task(s) loaded, 2 failed" in summary
    assert f"a_bad/task.lean:{CODE_START + 4}: nested @start postcond inside code" in summary


def test_benchmark_duplicate_ids(tmp_path: Path) -> None:
    make_task_dir(tmp_path, "one")
    make_task_dir(tmp_path, "two")
    loaded = load_benchmark(tmp_path)
    assert len(loaded.tasks) == 1
    assert (
        loaded.failures[0].task == "two"
        and "duplicate task id 'twice' (also in one)" in loaded.failures[0].reason
    )


def test_single_task_directory_is_a_benchmark_of_one(tmp_path: Path) -> None:
    loaded = load_benchmark(make_task_dir(tmp_path))
    assert [t.id for t in loaded.tasks] == ["twice"] and loaded.failures == []


def test_load_benchmark_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        load_benchmark(tmp_path / "missing")


def test_write_benchmark_rejects_bad_ids(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path / "src"))
    with pytest.raises(ValueError, match="duplicate task ids"):
        write_benchmark([task, task], tmp_path / "out")
    with pytest.raises(ValueError, match="cannot be a directory name"):
        write_benchmark([task.model_copy(update={"id": "../x"})], tmp_path / "out")


def test_metadata_cannot_shadow_fields(tmp_path: Path) -> None:
    task = load_task(make_task_dir(tmp_path))
    with pytest.raises(ValueError, match="must not contain 'id'"):
        Task(**{**task.__dict__, "metadata": {"id": "x"}})
