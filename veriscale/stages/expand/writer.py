"""Writing an expanded task: the suite directory in the input layout, ``kill_matrix.json``, ``summary.json``.

``test.json`` keeps the original tests first, exactly as stored, each followed by its new proved
wrong outputs; the new accept tests follow in candidate order. ``reject_inputs.json`` keeps the
original reject inputs, then the new ones. New values are written with ``values.to_json`` (the
benchmark's storage convention, never truncated). The JSON side files are written one record
per line so that they diff well and stay byte-identical between runs with the same seed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veriscale.lean.codec import to_json
from veriscale.stages.expand.candidates import Candidate
from veriscale.stages.expand.kills import WrongOutput
from veriscale.stages.expand.models import TaskSummary
from veriscale.task import RejectInput, Task, TestCase, write_task
from veriscale.typed_task import TypedTask

if TYPE_CHECKING:
    from veriscale.generate.adversaries import Adversary

__all__ = [
    "KILL_MATRIX_FILE",
    "SUMMARY_FILE",
    "build_suite_task",
    "dump_records",
    "kill_matrix_document",
    "write_expanded_task",
]

KILL_MATRIX_FILE = "kill_matrix.json"
SUMMARY_FILE = "summary.json"


def stored_input(args: dict[str, Any], view: TypedTask) -> dict[str, Any]:
    """An input row in the storage convention, parameters in signature order."""
    return {name: to_json(args[name], ty, view.structs) for name, ty in view.param_types.items()}


def build_suite_task(
    view: TypedTask,
    new_tests: Sequence[tuple[Candidate, Any]],
    new_rejects: Sequence[Candidate],
    unexpected: dict[int, list[WrongOutput]],
) -> Task:
    """The expanded task: originals first (plus their new unexpected outputs), then the new rows."""
    task = view.task
    tests: list[TestCase] = []
    for position, original in enumerate(task.tests):
        extra = [w.stored for w in unexpected.get(position, [])]
        tests.append(
            TestCase(input=original.input, expected=original.expected, unexpected=[*original.unexpected, *extra])
        )
    for offset, (candidate, expected) in enumerate(new_tests):
        position = len(task.tests) + offset
        tests.append(
            TestCase(
                input=stored_input(candidate.args, view),
                expected=to_json(expected, view.return_type, view.structs),
                unexpected=[w.stored for w in unexpected.get(position, [])],
            )
        )
    rejects = [*task.reject_inputs, *(RejectInput(input=stored_input(c.args, view)) for c in new_rejects)]
    return task.model_copy(update={"tests": tests, "reject_inputs": rejects})


def kill_matrix_document(kept: Sequence[Adversary], tests: dict[int, tuple[str, list[str]]]) -> dict[str, Any]:
    """The ``kill_matrix.json`` content: the kept adversaries, and for every accept test (by its
    position in ``test.json``) its canonical input key and the adversaries it kills."""
    return {
        "adversaries": [{"id": a.id, "source": a.source, "description": a.description} for a in kept],
        "tests": [
            {"test": test, "key": key, "killed_by": list(killers)}
            for test, (key, killers) in sorted(tests.items())
        ],
    }


def dump_records(document: dict[str, Any]) -> str:
    """JSON with each top-level list element on a line of its own (compact within the line)."""
    parts: list[str] = []
    for name, value in document.items():
        head = json.dumps(name, ensure_ascii=False)
        if isinstance(value, list):
            if value:
                lines = ",\n".join("  " + json.dumps(v, ensure_ascii=False, allow_nan=False) for v in value)
                parts.append(f" {head}: [\n{lines}\n ]")
            else:
                parts.append(f" {head}: []")
        else:
            parts.append(f" {head}: {json.dumps(value, ensure_ascii=False, allow_nan=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    os.replace(temporary, path)


def write_expanded_task(
    out_dir: Path, task: Task, kill_matrix: dict[str, Any], summary: TaskSummary
) -> Path:
    """Write the task directory, its kill matrix and its summary (the summary last)."""
    directory = write_task(task, out_dir / task.id)
    _write_atomically(directory / KILL_MATRIX_FILE, dump_records(kill_matrix))
    _write_atomically(directory / SUMMARY_FILE, summary.model_dump_json(indent=2) + "\n")
    return directory
