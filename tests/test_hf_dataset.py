"""Hugging Face datasets in Verina's schema: export, detection, loading, round trip (examples/mini
and small tasks of our own)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES_DIR
from typer.testing import CliRunner

from veriscale.benchmark import load_benchmark
from veriscale.cli import app
from veriscale.hf_dataset import (
    COLUMNS,
    DatasetFormatError,
    dataset_layout,
    decode_expected,
    export_dataset,
    task_row,
)
from veriscale.lean.codec import ValueParseError, canonical_value_key
from veriscale.lean.types import parse_structures, parse_type
from veriscale.task import LeanFile, Parameter, RejectInput, Signature, Task, TestCase

MINI = EXAMPLES_DIR / "mini"


# ---------------------------------------------------------------------------------------------
# The round-trip comparison (also used by the data test)


def _value_difference(original: Any, loaded: Any, ty_text: str, structs: dict, where: str) -> str | None:
    """``None`` when the two stored values are the same value at the type: equal canonical keys,
    or, for a value that does not parse at its type, the same stored value."""
    ty = parse_type(ty_text)
    try:
        want = canonical_value_key(original, ty, structs, wrap_uint=True)
    except ValueParseError:
        return None if loaded == original else f"{where}: {loaded!r} != {original!r} (unparseable original)"
    try:
        got = canonical_value_key(loaded, ty, structs, wrap_uint=True)
    except ValueParseError as exc:
        return f"{where}: loaded value {loaded!r} does not parse: {exc}"
    return None if got == want else f"{where}: {got} != {want}"


def task_differences(original: Task, loaded: Task) -> list[str]:
    """What differs between a directory-loaded task and the same task read from a dataset, in
    everything Verina's schema carries."""
    out: list[str] = []
    name = original.id
    for field in ("id", "signature", "description"):
        if getattr(original, field) != getattr(loaded, field):
            out.append(f"{name}: {field} differs")
    if original.lean_text() != loaded.lean_text():
        out.append(f"{name}: task.lean text differs")
    if original.lean.sections() != loaded.lean.sections():
        out.append(f"{name}: task.lean sections differ")
    if original.metadata.get("metadata", {}).get("upstream") != loaded.metadata.get("metadata", {}).get("upstream"):
        out.append(f"{name}: metadata.upstream differs")
    if [r.input for r in original.reject_inputs] != [r.input for r in loaded.reject_inputs]:
        out.append(f"{name}: reject inputs differ")
    if len(original.tests) != len(loaded.tests):
        return [*out, f"{name}: {len(original.tests)} tests != {len(loaded.tests)}"]
    structs = parse_structures(original.section("task_aux"))
    ret = original.signature.return_type
    for i, (a, b) in enumerate(zip(original.tests, loaded.tests)):
        if a.input != b.input:
            out.append(f"{name}: tests[{i}].input differs")
        diff = _value_difference(a.expected, b.expected, ret, structs, f"{name}: tests[{i}].expected")
        out += [diff] if diff else []
        if len(a.unexpected) != len(b.unexpected):
            out.append(f"{name}: tests[{i}]: unexpected count differs")
            continue
        for j, (x, y) in enumerate(zip(a.unexpected, b.unexpected)):
            diff = _value_difference(x, y, ret, structs, f"{name}: tests[{i}].unexpected[{j}]")
            out += [diff] if diff else []
    return out


def benchmark_differences(original: list[Task], loaded: list[Task]) -> list[str]:
    by_id = {t.id: t for t in loaded}
    out = [f"{t.id}: missing from the dataset" for t in original if t.id not in by_id]
    out += [f"{t}: not in the original" for t in sorted(set(by_id) - {t.id for t in original})]
    for task in original:
        if task.id in by_id:
            out += task_differences(task, by_id[task.id])
    return out


# ---------------------------------------------------------------------------------------------
# A task of our own whose outputs exercise every lossy corner of Verina's encoding

_LEAN = """\
-- !benchmark @start task_aux
structure Pt where
  x : Int
  y : Int
-- !benchmark @end task_aux
-- !benchmark @start code
  xs
-- !benchmark @end code
"""


def _task(task_id: str, return_type: str, tests: list[tuple[Any, list[Any]]]) -> Task:
    return Task(
        id=task_id,
        signature=Signature(name="f", parameters=[Parameter(name="xs", type="Nat")], return_type=return_type),
        description="A task of our own.\n",
        tests=[TestCase(input={"xs": i}, expected=exp, unexpected=unexp) for i, (exp, unexp) in enumerate(tests)],
        reject_inputs=[RejectInput(input={"xs": 99})],
        metadata={"metadata": {"upstream": {"name": "ours", "link": "N/A", "task_id": "7"}}},
        lean=LeanFile.parse(_LEAN),
    )


TRICKY = [
    # Bool becomes "True"; the string "true" also occurs in the data.
    _task("verina_basic_900", "Bool", [(True, [False]), ("true", ["false"])]),
    # A String that spells a number, a Python literal, a quoted text, or nothing at all.
    _task("verina_basic_901", "String", [("5", ["True"]), ("[1, 2]", ["'a'"]), ("", ['"q"'])]),
    # Lists as Lean text and as JSON arrays (one element, several, none).
    _task("verina_advanced_902", "List Int", [("[1, -2]", [[3]]), ([7], [[]]), ([1, 2], ["[]"]), ([], [[0]])]),
    # A one-element JSON array of strings whose element looks like a list.
    # ... and the tail of a printed list, which must stay the (unparseable) text it was.
    _task(
        "verina_advanced_903",
        "List String",
        [(["[1]"], [["a", "b"]]), (["x"], ['["x", "y"]']), ('"x", "y"]', [])],
    ),
    _task("mine_904", "Option (List Char)", [("some ['a', 'b']", ["none"]), ("none", ["some []"])]),
    _task("mine_905", "Float", [(1.5, [1e16]), (2, ["0.1"])]),
    _task("mine_906", "Pt", [("{ x := 1, y := -2 }", ["⟨0, 0⟩"]), ({"x": 3, "y": 4}, [{"x": 4, "y": 3}])]),
    _task("mine_907", "Nat × List Bool", [("(1, [true])", ["(0, [])"])]),
]


@pytest.fixture(scope="module")
def mini() -> list[Task]:
    loaded = load_benchmark(MINI)
    assert loaded.failures == [] and loaded.tasks
    return loaded.tasks


@pytest.mark.parametrize("fmt", ["hf", "parquet"])
def test_mini_round_trip(mini: list[Task], tmp_path: Path, fmt: str) -> None:
    written = export_dataset(mini, tmp_path / "ds", fmt)  # type: ignore[arg-type]
    assert dataset_layout(tmp_path / "ds") == ("disk" if fmt == "hf" else "parquet")
    back = load_benchmark(tmp_path / "ds")
    assert back.failures == []
    assert [t.id for t in back.tasks] == [t.id for t in mini]
    assert benchmark_differences(mini, back.tasks) == []
    if fmt == "parquet":  # a single parquet file is a benchmark too
        assert benchmark_differences(mini, load_benchmark(written).tasks) == []


def test_tricky_outputs_round_trip(tmp_path: Path) -> None:
    export_dataset(TRICKY, tmp_path / "ds")
    back = load_benchmark(tmp_path / "ds")
    assert back.failures == []
    assert benchmark_differences(TRICKY, back.tasks) == []
    # Metadata fields the task lacks (student_id) are not invented on the way back.
    assert back.tasks[0].metadata == TRICKY[0].metadata


def test_the_comparison_can_fail(mini: list[Task]) -> None:
    task = mini[0]
    changed = task.model_copy(update={"tests": [t.model_copy(update={"expected": 12345}) for t in task.tests]})
    assert any("expected" in d for d in task_differences(task, changed))
    assert task_differences(task, task.with_sections(code="  0\n")) != []


def test_rows_use_verinas_encoding() -> None:
    row = task_row(TRICKY[0])
    assert list(row) == list(COLUMNS)
    assert row["difficulty"] == "basic"
    assert row["tests"]["expected"] == [["True"], ["true"]]
    assert row["tests"]["unexpected"] == [["False"], ["false"]]
    assert json.loads(row["tests"]["input"][0]) == {"xs": 0}
    assert json.loads(row["reject_inputs"]["input"][0]) == {"xs": 99}
    lists = task_row(TRICKY[2])["tests"]
    assert lists["expected"] == [["[1, -2]"], ["7"], ["1", "2"], []]
    assert task_row(TRICKY[4])["difficulty"] == "unknown"


def test_features_match_verinas_declaration(mini: list[Task], tmp_path: Path) -> None:
    from datasets import Dataset, Features, Sequence, Value

    export_dataset(mini, tmp_path / "ds")
    features = Dataset.load_from_disk(str(tmp_path / "ds")).features
    # Verina declares tests as a Sequence of dicts, i.e. one list per field.
    assert features["tests"] == Features(
        {
            "tests": Sequence(
                {"input": Value("string"), "expected": Sequence(Value("string")), "unexpected": Sequence(Value("string"))}
            )
        }
    )["tests"]
    assert features["metadata"]["upstream"]["student_id"] == Sequence(Value("int64"))
    assert list(features) == list(COLUMNS)


def test_expected_reads_at_the_return_type() -> None:
    structs: dict = {}
    assert decode_expected(["7"], parse_type("List Int"), structs) == [7]
    assert decode_expected(["True"], parse_type("Bool"), structs) is True
    assert decode_expected(["True"], parse_type("String"), structs) == "True"
    # Nothing reads: the stored text is kept, to be reported as unparseable later.
    assert decode_expected(["2, 3]"], parse_type("List Int"), structs) == "2, 3]"
    assert decode_expected(['"x"]'], parse_type("List String"), structs) == '"x"]'
    assert decode_expected(['"x"'], parse_type("List String"), structs) == ['"x"']


def test_a_dataset_dict_and_a_list_of_records_load(mini: list[Task], tmp_path: Path) -> None:
    from datasets import Dataset, DatasetDict

    rows = [task_row(t) for t in mini]
    # The same rows with tests as a list of records (a `List` of dicts rather than a `Sequence`).
    records = []
    for row in rows:
        tests = row["tests"]
        as_list = [dict(zip(tests, values)) for values in zip(*tests.values())]
        records.append({**row, "tests": as_list})
    DatasetDict({"train": Dataset.from_list(records)}).save_to_disk(str(tmp_path / "dd"))
    assert dataset_layout(tmp_path / "dd") == "disk_dict"
    back = load_benchmark(tmp_path / "dd")
    assert back.failures == [] and benchmark_differences(mini, back.tasks) == []


# ---------------------------------------------------------------------------------------------
# Bad input


def test_missing_columns_are_one_clear_error(tmp_path: Path) -> None:
    from datasets import Dataset

    Dataset.from_list([{"id": "a", "description": "d"}]).save_to_disk(str(tmp_path / "ds"))
    with pytest.raises(DatasetFormatError, match="missing column.*lean_code.*signature.*tests.*reject_inputs"):
        load_benchmark(tmp_path / "ds")


def test_bad_rows_are_failures_and_the_rest_loads(mini: list[Task], tmp_path: Path) -> None:
    from datasets import Dataset

    from veriscale.hf_dataset import build_dataset

    rows = build_dataset(mini).to_list()
    rows[0]["tests"]["input"][0] = "{not json"
    rows[1]["lean_code"] = "-- !benchmark @start code\n"
    Dataset.from_list(rows, features=build_dataset([]).features).save_to_disk(str(tmp_path / "ds"))
    back = load_benchmark(tmp_path / "ds")
    assert [t.id for t in back.tasks] == [t.id for t in mini[2:]]
    reasons = [str(f) for f in back.failures]
    assert reasons[0].startswith(f"{mini[0].id}/tests: tests[0].input: invalid JSON")
    assert reasons[1].startswith(f"{mini[1].id}/lean_code:1: unterminated section code")


def test_layout_detection(tmp_path: Path) -> None:
    assert dataset_layout(MINI) is None
    assert dataset_layout(MINI / "mini_clamp") is None
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    assert dataset_layout(tmp_path / "notes.txt") is None
    assert dataset_layout(tmp_path) is None
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    assert dataset_layout(tmp_path) == "parquet"
    with pytest.raises(DatasetFormatError, match="cannot read the dataset"):
        load_benchmark(tmp_path)


runner = CliRunner()


def test_cli_export_and_inspect(tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", str(MINI), "--out", str(tmp_path / "ds")])
    assert result.exit_code == 0, result.output
    assert "wrote 4 task(s)" in result.output
    result = runner.invoke(app, ["inspect", str(tmp_path / "ds")])
    assert result.exit_code == 0 and "mini_clamp" in result.output
    result = runner.invoke(app, ["export", str(MINI), "--out", str(tmp_path / "pq"), "--format", "parquet"])
    assert result.exit_code == 0 and (tmp_path / "pq" / "data" / "train-00000-of-00001.parquet").is_file()


@pytest.mark.parametrize(
    "args, message",
    [
        (["export", "{missing}", "--out", "{out}"], "no such file or directory"),
        (["export", "{mini}", "--out", "{out}", "--format", "csv"], "expected hf or parquet"),
        (["export", "{notes}", "--out", "{out}"], "not a benchmark directory"),
        (["export", "{bad}", "--out", "{out}"], "missing column(s) lean_code"),
        (["export", "{mini}", "--out", "{full}"], "exists and is not an empty directory"),
    ],
)
def test_cli_export_bad_input(tmp_path: Path, args: list[str], message: str) -> None:
    from datasets import Dataset

    Dataset.from_list([{"id": "a", "description": "d"}]).save_to_disk(str(tmp_path / "bad"))
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x", encoding="utf-8")
    paths = {
        "missing": tmp_path / "nope",
        "mini": MINI,
        "notes": tmp_path / "notes.txt",
        "bad": tmp_path / "bad",
        "out": tmp_path / "out",
        "full": tmp_path / "full",
    }
    result = runner.invoke(app, [a.format(**paths) for a in args])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output
    assert not (tmp_path / "out").exists()


def test_export_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The library never prints: `datasets`' own progress bars stay off while we write."""
    from veriscale.hf_dataset import export_dataset

    export_dataset(load_benchmark(MINI).tasks, tmp_path / "hf")
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""
