"""Benchmarks as Hugging Face datasets, in the schema of Verina's own export.

Verina publishes its benchmark on the Hugging Face Hub with one row per task and these columns
(``scripts/create_hf_dataset.py`` in the Verina repository):

* ``id``, ``description``, ``lean_code`` (the whole ``task.lean``), ``difficulty`` (the second
  ``_``-separated part of ``verina_*`` ids, else ``unknown``) -- strings;
* ``signature`` -- ``{name, parameters: [{param_name, param_type}], return_type}``;
* ``metadata`` -- ``{upstream: {name, link, task_id, student_id: [int64]}}``;
* ``tests`` -- ``[{input, expected, unexpected}]`` where ``input`` is the input object as JSON
  text, ``expected`` is the expected output as a *list* of strings (a stored JSON array gives one
  string per element, anything else one string) and ``unexpected`` one string per output; every
  string is Python's ``str`` of the stored JSON value (``True``, ``[1, 2]``, ``abc``);
* ``reject_inputs`` -- ``[{input}]``, the input object as JSON text.

:func:`export_dataset` writes exactly these columns and encodings, so a dataset from VeriScale
reads like Verina's. The encoding of outputs loses the JSON type (``"5"`` and ``5`` both become
``5``), so :func:`tasks_from_dataset` reads outputs back *at the task's return type*: of the stored
text and the Python literal it spells, the first that parses at that type is kept. Outputs that
parse at no reading (the published VerinaPlus has truncated ones) are kept as the stored text, so
that they stay reported as unparseable rather than turned into some other value. The round trip
is therefore equal by canonical value key (``veriscale.lean.codec.canonical_value_key``), not byte
for byte.

Not carried by Verina's schema, so not exported: ``task.json``'s ``specification`` and file-name
fields, ``metadata`` beyond ``upstream``, and other files in the task directory
(``coverage_report.md``).

Layouts read (see :func:`dataset_layout`): a ``Dataset.save_to_disk`` directory, a
``DatasetDict.save_to_disk`` directory (its only split, else ``train``), a ``.parquet`` file, or a
directory of ``.parquet`` files (the Hub's ``data/train-00000-of-00001.parquet``). ``datasets`` is
imported only when one of these is read or written.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from veriscale.lean.codec import ValueParseError, looks_truncated, parse_value
from veriscale.lean.types import LeanType, LeanTypeError, NamedType, StructDef, parse_structures, parse_type
from veriscale.task import (
    BenchmarkLoad,
    LeanFile,
    LeanMarkerError,
    RejectInput,
    Task,
    TaskLoadError,
    TestCase,
    parse_signature,
)

if TYPE_CHECKING:
    from datasets import Dataset, Features

DatasetFormat = Literal["hf", "parquet"]
Layout = Literal["disk", "disk_dict", "parquet"]

COLUMNS: tuple[str, ...] = (
    "id",
    "description",
    "lean_code",
    "signature",
    "metadata",
    "tests",
    "reject_inputs",
    "difficulty",
)
"""Verina's columns, in its order."""
REQUIRED_COLUMNS: tuple[str, ...] = ("id", "description", "lean_code", "signature", "tests", "reject_inputs")
"""What a task cannot be rebuilt without (``metadata`` and ``difficulty`` are optional)."""
UPSTREAM_FIELDS: tuple[str, ...] = ("name", "link", "task_id", "student_id")
PARQUET_FILE = Path("data") / "train-00000-of-00001.parquet"
"""Where ``--format parquet`` writes, as the Hub lays out a one-split dataset."""


class DatasetFormatError(ValueError):
    """A path that is not a dataset in Verina's schema (no dataset, missing columns, unreadable)."""


# ---------------------------------------------------------------------------------------------
# Schema


def verina_features() -> Features:
    """The ``datasets.Features`` of Verina's export (``Sequence`` of dicts, as Verina declares)."""
    from datasets import Features, Sequence, Value

    return Features(
        {
            "id": Value("string"),
            "description": Value("string"),
            "lean_code": Value("string"),
            "signature": {
                "name": Value("string"),
                "parameters": Sequence({"param_name": Value("string"), "param_type": Value("string")}),
                "return_type": Value("string"),
            },
            "metadata": {
                "upstream": {
                    "name": Value("string"),
                    "link": Value("string"),
                    "task_id": Value("string"),
                    "student_id": Sequence(Value("int64")),
                }
            },
            "tests": Sequence(
                {
                    "input": Value("string"),
                    "expected": Sequence(Value("string")),
                    "unexpected": Sequence(Value("string")),
                }
            ),
            "reject_inputs": Sequence({"input": Value("string")}),
            "difficulty": Value("string"),
        }
    )


def difficulty_of(task_id: str) -> str:
    """Verina's difficulty column: ``verina_basic_3`` -> ``basic``; other ids -> ``unknown``."""
    parts = task_id.split("_")
    return parts[1] if len(parts) > 1 and parts[0] == "verina" else "unknown"


# ---------------------------------------------------------------------------------------------
# Task -> row


def _expected_strings(expected: Any) -> list[str]:
    # Verina's encoding: a JSON array gives one string per element, anything else one string.
    items = expected if isinstance(expected, list) else [expected]
    return [str(item) for item in items]


def _upstream(task: Task) -> dict[str, Any] | None:
    metadata = task.metadata.get("metadata")
    upstream = metadata.get("upstream") if isinstance(metadata, dict) else None
    if not isinstance(upstream, dict):
        return None
    return {name: upstream.get(name) for name in UPSTREAM_FIELDS}


def _columns(records: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """A list of records as the dict of lists ``datasets`` expects for a ``Sequence`` of dicts."""
    keys = list(records[0]) if records else []
    return {key: [record[key] for record in records] for key in keys}


def task_row(task: Task) -> dict[str, Any]:
    """One task as a row of Verina's dataset (nested sequences in ``datasets``' columnar form)."""
    tests = [
        {
            "input": json.dumps(test.input),
            "expected": _expected_strings(test.expected),
            "unexpected": [str(output) for output in test.unexpected],
        }
        for test in task.tests
    ]
    rejects = [{"input": json.dumps(reject.input)} for reject in task.reject_inputs]
    parameters = [{"param_name": p.name, "param_type": p.type} for p in task.signature.parameters]
    return {
        "id": task.id,
        "description": task.description,
        "lean_code": task.lean_text(),
        "signature": {
            "name": task.signature.name,
            "parameters": _columns(parameters) or {"param_name": [], "param_type": []},
            "return_type": task.signature.return_type,
        },
        "metadata": {"upstream": _upstream(task)},
        "tests": _columns(tests) or {"input": [], "expected": [], "unexpected": []},
        "reject_inputs": _columns(rejects) or {"input": []},
        "difficulty": difficulty_of(task.id),
    }


def build_dataset(tasks: Iterable[Task]) -> Dataset:
    from datasets import Dataset

    rows = [task_row(task) for task in tasks]
    features = verina_features()
    return Dataset.from_dict({column: [row[column] for row in rows] for column in COLUMNS}, features=features)


def export_dataset(tasks: Iterable[Task], out: str | Path, fmt: DatasetFormat = "hf") -> Path:
    """Write ``tasks`` to ``out`` (a directory): ``save_to_disk`` for ``hf``, one parquet file
    under ``out/data/`` for ``parquet``. Returns the path written."""
    import datasets

    if fmt not in ("hf", "parquet"):
        raise ValueError(f"unknown dataset format {fmt!r} (expected hf or parquet)")
    out = Path(out)
    dataset = build_dataset(tasks)
    # the library prints nothing: `datasets` draws its own progress bars unless told not to
    were_disabled = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        if fmt == "hf":
            dataset.save_to_disk(str(out))
            return out
        target = out / PARQUET_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        dataset.to_parquet(str(target))
        return target
    finally:
        if not were_disabled:
            datasets.enable_progress_bars()


# ---------------------------------------------------------------------------------------------
# Detecting a dataset


def _parquet_files(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*.parquet") if not any(part.startswith(".") for part in p.parts))


def dataset_layout(path: str | Path) -> Layout | None:
    """Which dataset layout ``path`` holds, or ``None`` when it is not a dataset (a benchmark
    directory of task directories, say)."""
    path = Path(path)
    if path.is_file():
        return "parquet" if path.suffix == ".parquet" else None
    if not path.is_dir():
        return None
    if (path / "dataset_info.json").is_file() and (path / "state.json").is_file():
        return "disk"
    if (path / "dataset_dict.json").is_file():
        return "disk_dict"
    if (path / "task.json").is_file() or any((child / "task.json").is_file() for child in path.iterdir()):
        return None
    return "parquet" if _parquet_files(path) else None


def _open(path: Path, layout: Layout) -> Dataset:
    import datasets

    if layout == "disk":
        return datasets.Dataset.load_from_disk(str(path))
    if layout == "disk_dict":
        splits = datasets.DatasetDict.load_from_disk(str(path))
        names = list(splits)
        if len(names) == 1:
            return splits[names[0]]
        if "train" in splits:
            return splits["train"]
        raise DatasetFormatError(f"{path}: several splits {names} and none is named train")
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Read with pyarrow rather than ``Dataset.from_parquet``, which would copy the data into the
    # ``datasets`` cache; the schema's metadata still gives the dataset its features.
    files = [path] if path.is_file() else _parquet_files(path)
    return datasets.Dataset(pa.concat_tables([pq.read_table(f) for f in files]))


def open_dataset(path: str | Path) -> Dataset:
    """The dataset at ``path``; raises :class:`DatasetFormatError` naming what is wrong."""
    path = Path(path)
    layout = dataset_layout(path)
    if layout is None:
        raise DatasetFormatError(f"{path}: not a Hugging Face dataset (no saved dataset, no .parquet file)")
    try:
        dataset = _open(path, layout)
    except DatasetFormatError:
        raise
    except Exception as exc:  # datasets/pyarrow raise many types for a damaged dataset
        raise DatasetFormatError(f"{path}: cannot read the dataset: {type(exc).__name__}: {exc}") from exc
    missing = [column for column in REQUIRED_COLUMNS if column not in dataset.column_names]
    if missing:
        raise DatasetFormatError(
            f"{path}: not in Verina's dataset schema: missing column(s) {', '.join(missing)}"
            f" (has {', '.join(dataset.column_names) or 'none'})"
        )
    return dataset


# ---------------------------------------------------------------------------------------------
# Row -> task


def _records(value: Any, keys: Sequence[str], where: str) -> list[dict[str, Any]]:
    """A sequence of dicts, given either as a list of dicts or as ``datasets``' dict of lists."""
    if value is None:
        return []
    if isinstance(value, list):
        if not all(isinstance(item, dict) for item in value):
            raise ValueError(f"{where}: expected a list of objects")
        return value
    if isinstance(value, dict):
        columns = [value.get(key) or [] for key in keys]
        lengths = {len(column) for column in columns}
        if len(lengths) > 1:
            raise ValueError(f"{where}: columns {list(keys)} have different lengths")
        return [dict(zip(keys, items)) for items in zip(*columns)]
    raise ValueError(f"{where}: expected a sequence of objects, got {type(value).__name__}")


def _json_object(text: Any, where: str) -> dict[str, Any]:
    if isinstance(text, dict):
        return text
    if not isinstance(text, str):
        raise ValueError(f"{where}: expected JSON text, got {type(text).__name__}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from exc
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value


_NOT_READ = object()


def _readings(text: str) -> list[Any]:
    """What a string of Verina's encoding may stand for, most specific first: the Python literal
    it spells when that is not a string (``True``, ``5``, ``[1, 'a']``), then the text itself."""
    try:
        literal = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return [text]
    return [text] if isinstance(literal, str) else [literal, text]


def _read_at(text: str, ty: LeanType, structs: Mapping[str, StructDef]) -> Any:
    """The first reading of ``text`` that parses at ``ty``, else ``_NOT_READ``."""
    for reading in _readings(text):
        try:
            parse_value(reading, ty, structs, wrap_uint=True)
        except ValueParseError:
            continue
        return reading
    return _NOT_READ


def _element_type(ty: LeanType) -> LeanType | None:
    if isinstance(ty, NamedType) and ty.name in ("List", "Array") and len(ty.args) == 1:
        return ty.args[0]
    return None


def decode_output(text: str, ty: LeanType | None, structs: Mapping[str, StructDef]) -> Any:
    """One output (an ``unexpected`` entry) read back at the return type ``ty``."""
    if ty is not None:
        value = _read_at(text, ty, structs)
        if value is not _NOT_READ:
            return value
    return text


def decode_expected(texts: Sequence[str], ty: LeanType | None, structs: Mapping[str, StructDef]) -> Any:
    """The ``expected`` column read back: one string is the whole value unless it only reads as
    the single element of a stored JSON array; several strings are the elements of one."""
    if ty is not None and len(texts) == 1:
        whole = _read_at(texts[0], ty, structs)
        if whole is not _NOT_READ:
            return whole
    element = _element_type(ty) if ty is not None else None
    # The tail of a printed list (`"x", "y"]`, which the published VerinaPlus has) reads as a
    # String element too, but it is a stored string that lost its start: keep it as it is.
    if (
        element is not None
        and ty is not None
        and not (len(texts) == 1 and looks_truncated(texts[0], ty, structs))
    ):
        items = [_read_at(text, element, structs) for text in texts]
        if all(item is not _NOT_READ for item in items):
            return items
    if len(texts) == 1:
        return texts[0]
    return [_readings(text)[0] for text in texts]


def _return_type(text: str) -> LeanType | None:
    try:
        return parse_type(text)
    except LeanTypeError:
        return None


def _metadata(row: Mapping[str, Any]) -> dict[str, Any]:
    metadata = row.get("metadata")
    upstream = metadata.get("upstream") if isinstance(metadata, dict) else None
    if not isinstance(upstream, dict):
        return {}
    # Fields absent from a task come back as None (the schema has them all): drop them again.
    return {"metadata": {"upstream": {k: v for k, v in upstream.items() if v is not None}}}


def task_from_row(row: Mapping[str, Any], index: int) -> Task:
    """Rebuild a task from one dataset row; raises :class:`TaskLoadError` naming the row."""
    task_id = row.get("id")
    name = task_id if isinstance(task_id, str) and task_id else f"row {index}"

    def fail(column: str, reason: str, line: int | None = None) -> TaskLoadError:
        return TaskLoadError(name, column, reason, line)

    if not isinstance(task_id, str) or not task_id:
        raise fail("id", f"id must be a non-empty string, got {task_id!r}")
    for column in ("description", "lean_code"):
        if not isinstance(row.get(column), str):
            raise fail(column, f"expected a string, got {type(row.get(column)).__name__}")
    raw_signature = row.get("signature")
    if not isinstance(raw_signature, dict):
        raise fail("signature", f"expected an object, got {type(raw_signature).__name__}")
    try:
        parameters = _records(raw_signature.get("parameters"), ("param_name", "param_type"), "parameters")
    except ValueError as exc:
        raise fail("signature", str(exc)) from exc
    signature = parse_signature({**raw_signature, "parameters": parameters}, name, file="signature")
    try:
        lean = LeanFile.parse(row["lean_code"])
    except LeanMarkerError as exc:
        raise fail("lean_code", exc.reason, exc.line) from exc

    return_type = _return_type(signature.return_type)
    structs = parse_structures(lean.section("task_aux"))
    try:
        test_rows = _records(row.get("tests"), ("input", "expected", "unexpected"), "tests")
        tests = [
            TestCase(
                input=_json_object(test.get("input"), f"tests[{i}].input"),
                expected=decode_expected(list(test.get("expected") or []), return_type, structs),
                unexpected=[decode_output(text, return_type, structs) for text in test.get("unexpected") or []],
            )
            for i, test in enumerate(test_rows)
        ]
        reject_rows = _records(row.get("reject_inputs"), ("input",), "reject_inputs")
        rejects = [
            RejectInput(input=_json_object(reject.get("input"), f"reject_inputs[{i}].input"))
            for i, reject in enumerate(reject_rows)
        ]
    except ValueError as exc:  # pydantic's ValidationError is a ValueError too
        column = "tests" if str(exc).startswith("tests") else "reject_inputs"
        raise fail(column, str(exc)) from exc
    names = [p.name for p in signature.parameters]
    inputs = [("tests", i, t.input) for i, t in enumerate(tests)]
    inputs += [("reject_inputs", i, r.input) for i, r in enumerate(rejects)]
    for column, i, given in inputs:
        if set(given) != set(names):
            raise fail(column, f"[{i}].input: keys {sorted(given)} do not match the parameters {names}")
    return Task(
        id=task_id,
        signature=signature,
        description=row["description"],
        tests=tests,
        reject_inputs=rejects,
        metadata=_metadata(row),
        lean=lean,
    )


def load_dataset_benchmark(path: str | Path) -> BenchmarkLoad:
    """Every row of the dataset at ``path`` as a task, in row order; bad rows are failures.

    Raises :class:`DatasetFormatError` when ``path`` is not such a dataset at all.
    """
    root = Path(path)
    dataset = open_dataset(root)
    loaded = BenchmarkLoad(root=root)
    seen: dict[str, int] = {}
    for index, row in enumerate(dataset):
        try:
            task = task_from_row(row, index)
        except TaskLoadError as error:
            loaded.failures.append(error)
            continue
        if task.id in seen:
            loaded.failures.append(
                TaskLoadError(task.id, "id", f"duplicate task id (also row {seen[task.id]})")
            )
            continue
        seen[task.id] = index
        loaded.tasks.append(task)
    return loaded
