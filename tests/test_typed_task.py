"""Typed view of a task: values at their declared types, problems recorded, duplicate rows found."""

from __future__ import annotations

from pathlib import Path

from veriscale.lean.codec import canonical_key
from veriscale.lean.values import Arr, UInt8
from veriscale.task import load_task
from veriscale.typed_task import typed_view

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"



def _running_max_task():
    return load_task(EXAMPLES_DIR / "mini" / "mini_running_max")


def test_values_are_parsed_at_declared_types() -> None:
    view = typed_view(_running_max_task())
    assert view.problems == []
    first = view.tests[0]
    assert isinstance(first.args["a"], Arr)
    assert isinstance(first.expected, Arr)
    assert first.expected_ok


def test_bad_values_become_problems_not_failures() -> None:
    task = _running_max_task()
    tests = list(task.tests)
    tests[0] = tests[0].model_copy(update={"expected": "4, 5]"})  # the tail of a printed array
    tests[1] = tests[1].model_copy(update={"input": {"a": "#[1, oops]"}})
    view = typed_view(task.model_copy(update={"tests": tests}))
    kinds = {p.field: p.kind for p in view.problems}
    assert kinds == {"test.json[0].expected": "truncated", "test.json[1].input.a": "unparseable"}
    assert view.tests[0].args is not None and not view.tests[0].expected_ok
    assert view.tests[1].args is None
    # The other rows are untouched.
    assert all(t.args is not None and t.expected_ok for t in view.tests[2:])


def test_duplicate_rows_use_canonical_keys_across_encodings() -> None:
    task = _running_max_task()
    row = task.tests[0]
    compact = "#[" + ",".join(str(x) for x in typed_view(task).tests[0].args["a"]) + "]"
    dup = row.model_copy(update={"input": {"a": compact}})
    view = typed_view(task.model_copy(update={"tests": [row, dup, *task.tests[1:]]}))
    assert view.duplicate_test_rows == 1
    assert view.tests[0].key == view.tests[1].key
    assert view.tests[0].key == canonical_key(row.input, view.param_types, view.structs)


def test_out_of_range_uint_literals_wrap_like_lean() -> None:
    """Lean elaborates the stored literal `510` at `UInt8` as `510 % 256 = 254`."""
    task = load_task(EXAMPLES_DIR / "mini" / "mini_count_evens")
    signature = task.signature.model_copy(
        update={"parameters": [task.signature.parameters[0].model_copy(update={"type": "List UInt8"})]}
    )
    row = task.tests[0].model_copy(update={"input": {"xs": "[510, 2]"}})
    view = typed_view(task.model_copy(update={"signature": signature, "tests": [row]}))
    assert view.problems == []
    assert view.tests[0].args == {"xs": (UInt8(254), UInt8(2))}
    assert all(isinstance(x, UInt8) for x in view.tests[0].args["xs"])
