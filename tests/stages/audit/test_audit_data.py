"""The audit of Verina kept in ``benchmarks/results/audit_verina.json`` (written by
``benchmarks/audit_verina.py``; a full audit is too long for the test suite) still holds:

* every counterexample to spec_satisfied it lists re-evaluates with a fresh engine: the
  precondition is true, the reference computes the recorded output, the postcondition is false;
* a fixed sample of tasks, some with counterexamples and some without, re-audited here, gives
  exactly what the record says (the same digest of every finding and its evidence);
* the README states the record's count.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.lean.codec import parse_lean
from veriscale.lean.printing import same_as_printed
from veriscale.parallel import LocalExecutor
from veriscale.stages.audit import args_from_key, audit_benchmark
from veriscale.stages.audit.record import AuditRecord, RecordedCounterexample, task_digest
from veriscale.task import Task, load_task
from veriscale.typed_task import TypedTask, typed_view

pytestmark = pytest.mark.data

PROJECT = Path(__file__).resolve().parents[3]
README = PROJECT / "README.md"
RECORD = PROJECT / "benchmarks" / "results" / "audit_verina.json"

# Re-audited here, all quick and stopped by no clock: tasks with findings (reference code that
# exceeds the engine's limits on searched inputs; duplicate unexpected outputs) and tasks with
# none -- and, besides, the quickest few of the tasks the record lists a counterexample for.
SAMPLE_WITH_FINDINGS = ("verina_basic_25", "verina_advanced_74")
SAMPLE_CLEAN = ("verina_basic_55", "verina_advanced_59", "verina_basic_101", "verina_advanced_21")
COUNTEREXAMPLE_SAMPLE = 3
COUNTEREXAMPLE_SAMPLE_MAX_SECONDS = 30.0


@pytest.fixture(scope="module")
def record() -> AuditRecord:
    return AuditRecord.model_validate_json(RECORD.read_text())


@pytest.fixture(scope="module")
def verina(data_dir: Path) -> Path:
    return data_dir / "verina"


def _input_of(counterexample: RecordedCounterexample, view: TypedTask) -> dict[str, Any]:
    row = counterexample.stored_row
    if row is None:
        assert counterexample.input is not None
        return args_from_key(counterexample.input, view)
    [test] = [t for t in view.tests if t.index == row]
    assert test.args is not None
    return test.args


def _check_counterexample(task: Task, view: TypedTask, backend: EmbeddedBackend,
                          counterexample: RecordedCounterexample) -> None:
    args = _input_of(counterexample, view)
    where = (task.id, counterexample.where, counterexample.input)
    pre, code = backend.run(task, [Check(kind=CheckKind.PRECOND, args=args), Check(kind=CheckKind.CODE, args=args)])
    assert pre.status == "true" and code.status == "value", where
    if counterexample.output is not None:
        assert same_as_printed(code.value, parse_lean(counterexample.output, view.return_type, view.structs)), where
    [post] = backend.run(task, [Check(kind=CheckKind.POSTCOND, args=args, output=code.value)])
    assert post.status == "false", where


def test_the_record_is_of_this_data(record: AuditRecord, verina: Path) -> None:
    tasks = {p.name for p in verina.iterdir() if (p / "task.json").is_file()}
    assert record.tasks_total == len(tasks)
    assert {t.task for t in record.tasks} | set(record.load_failures) == tasks
    listed = [t.task for t in record.tasks if t.counterexamples]
    assert listed == record.tasks_with_counterexample
    for task in record.tasks:
        assert bool(task.counterexamples) == (task.found.get("spec_counterexample", 0) > 0), task.task
        for counterexample in task.counterexamples:
            # our generated inputs and the engine's outputs; a stored row by its index only
            assert (counterexample.stored_row is None) == (counterexample.input is not None), task.task


def test_every_recorded_counterexample_re_evaluates(record: AuditRecord, verina: Path) -> None:
    backend = EmbeddedBackend()
    checked = 0
    for recorded in record.tasks:
        if not recorded.counterexamples:
            continue
        task = load_task(verina / recorded.task)
        view = typed_view(task)
        backend.start_unit()
        for counterexample in recorded.counterexamples:
            _check_counterexample(task, view, backend, counterexample)
            checked += 1
    assert checked >= len(record.tasks_with_counterexample)


def _sample(record: AuditRecord) -> list[str]:
    by_task = {t.task: t for t in record.tasks}
    assert all(by_task[t].found for t in SAMPLE_WITH_FINDINGS)
    assert not any(by_task[t].found for t in SAMPLE_CLEAN)
    broken = sorted((t for t in record.tasks if t.counterexamples and not t.clock_dependent
                     and t.seconds <= COUNTEREXAMPLE_SAMPLE_MAX_SECONDS), key=lambda t: (t.seconds, t.task))
    sample = {*SAMPLE_WITH_FINDINGS, *SAMPLE_CLEAN, *(t.task for t in broken[:COUNTEREXAMPLE_SAMPLE])}
    assert not any(by_task[t].clock_dependent for t in sample)  # else a re-audit may legitimately differ
    return sorted(sample)


def test_a_sample_re_audits_to_exactly_the_record(record: AuditRecord, verina: Path) -> None:
    by_task = {t.task: t for t in record.tasks}
    sample = _sample(record)
    again = audit_benchmark(verina, options=record.options, task_ids=sample, executor=LocalExecutor(2))
    assert [t.task for t in again.tasks] == sample
    for task_audit in again.tasks:
        recorded = by_task[task_audit.task]
        assert (task_audit.found, task_audit.searched_inputs, task_audit.error) == (
            recorded.found, recorded.searched_inputs, recorded.error), task_audit.task
        assert task_digest(task_audit) == recorded.digest, task_audit.task


def test_the_readme_states_the_number_of_broken_tasks(record: AuditRecord) -> None:
    match = re.search(r"`veriscale audit` finds a concrete counterexample to `spec_satisfied` in (\d+) of "
                      r"Verina's (\d+) tasks", " ".join(README.read_text().split()))
    assert match is not None, "the README does not state the audit's count"
    assert int(match.group(1)) == len(record.tasks_with_counterexample)
    assert int(match.group(2)) == record.tasks_total
