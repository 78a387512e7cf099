"""``veriscale audit`` on a benchmark of our own with planted defects: every defect is found, with
evidence that re-evaluates, and a sound task yields nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veriscale.backends.base import Answer, Check, CheckKind, UnknownReason
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.cli import app
from veriscale.parallel import LocalExecutor
from veriscale.stages.audit import (
    AuditOptions,
    BenchmarkAudit,
    args_from_key,
    audit_benchmark,
    audit_task,
    failing_conjuncts,
    format_audit,
    split_conjuncts,
)
from veriscale.task import load_task, write_task
from veriscale.typed_task import typed_view

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"
QUICK = AuditOptions(synthesis_limit=60, mutants_per_seed=5, boundary_limit=40)


def _planted(root: Path) -> Path:
    """mini with defects: clamp's reference is wrong above the range and its data has a duplicate
    test, a reject input the precondition accepts and an unexpected output that is correct; the
    dedup task's test.json has a truncated value; running_max's task.lean has a broken marker."""
    shutil.copytree(MINI, root)
    clamp = load_task(root / "mini_clamp")
    clamp = clamp.with_sections(code="  if x < lo then lo\n  else if hi < x then hi - 1\n  else x\n")
    tests = list(clamp.tests)
    tests.append(tests[0])  # a duplicate input
    tests[1] = tests[1].model_copy(update={"unexpected": [*tests[1].unexpected, tests[1].expected]})
    rejects = [*clamp.reject_inputs, clamp.reject_inputs[0].model_copy(update={"input": {"x": 0, "lo": 0, "hi": 1}})]
    write_task(clamp.model_copy(update={"tests": tests, "reject_inputs": rejects}), root / "mini_clamp")
    data = json.loads((root / "mini_dedup_sorted" / "test.json").read_text())
    data[0]["expected"] = "3, 4]"  # the tail of a printed list
    (root / "mini_dedup_sorted" / "test.json").write_text(json.dumps(data))
    lean = root / "mini_running_max" / "task.lean"
    lean.write_text(lean.read_text().replace("-- !benchmark @end code\n", "", 1))
    return root


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BenchmarkAudit]:
    root = _planted(tmp_path_factory.mktemp("planted") / "bench")
    return root, audit_benchmark(root, options=QUICK)


def _kinds(report: BenchmarkAudit, task: str) -> dict[str, int]:
    return next(t.found for t in report.tasks if t.task == task)


def test_the_broken_reference_is_a_counterexample_with_its_failing_conjunct(
    planted: tuple[Path, BenchmarkAudit],
) -> None:
    root, report = planted
    assert report.tasks_with_counterexample == ["mini_clamp"]
    task = load_task(root / "mini_clamp")
    view = typed_view(task)
    backend = EmbeddedBackend()
    found = [f for t in report.tasks for f in t.findings if f.kind == "spec_counterexample"]
    assert found and all(f.task == "mini_clamp" and f.confirmed for f in found)
    assert any(f.where.startswith("test.json[") for f in found)  # a stored test shows it
    assert any(f.where.startswith("search: ") for f in found)  # and the search finds more
    for finding in found:
        args = args_from_key(finding.input, view)
        assert args["x"] > args["hi"]
        [code] = backend.run(task, [Check(kind=CheckKind.CODE, args=args)])
        [post] = backend.run(task, [Check(kind=CheckKind.POSTCOND, args=args, output=code.value)])
        assert post.status == "false"
        # result = hi - 1 breaks `result = hi` only when hi - 1 ≥ lo, and `lo ≤ result` when hi = lo.
        assert "(hi < x → result = hi)" in finding.detail


def test_every_planted_data_defect_is_reported(planted: tuple[Path, BenchmarkAudit]) -> None:
    _, report = planted
    clamp = _kinds(report, "mini_clamp")
    assert clamp["reject_accepted"] == 1
    assert clamp["unexpected_accepted"] == 1
    duplicates = sorted(f.detail for t in report.tasks for f in t.findings if f.kind == "duplicate")
    assert duplicates == ["equals the expected output", "same input as test.json[0]"]
    assert _kinds(report, "mini_dedup_sorted").get("unreadable_value") == 1
    assert [(f.task, f.kind) for f in report.load_findings] == [("mini_running_max", "broken_marker")]
    assert _kinds(report, "mini_count_evens") == {}  # a sound task: nothing
    assert report.found["broken_marker"] == 1


def test_the_command_prints_a_table_and_writes_json(planted: tuple[Path, BenchmarkAudit], tmp_path: Path) -> None:
    root, _ = planted
    out = tmp_path / "audit.json"
    result = CliRunner().invoke(app, ["audit", str(root), "--no-search", "--json", str(out), "--task", "mini_clamp"])
    assert result.exit_code == 0, result.output
    assert "spec_satisfied: 1 (mini_clamp)" in result.output
    document = json.loads(out.read_text())
    assert document["tasks_with_counterexample"] == ["mini_clamp"]
    assert all(f["where"].startswith("test.json") for t in document["tasks"] for f in t["findings"]
               if f["kind"] == "spec_counterexample")
    missing = CliRunner().invoke(app, ["audit", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_conjuncts_split_only_where_and_is_outermost() -> None:
    assert split_conjuncts("a ∧ b ∧\n  (c → d) -- x ∧ y") == ["a", "b", "(c → d)"]
    assert split_conjuncts("a ∧ b → c") == ["a ∧ b → c"]
    assert split_conjuncts("∀ i, p i ∧ q i") == ["∀ i, p i ∧ q i"]
    assert split_conjuncts("a ∧ ∀ i, p i ∧ q i") == ["a", "∀ i, p i ∧ q i"]
    assert split_conjuncts('s = "∧" ∧ t') == ['s = "∧"', "t"]


def test_failing_conjuncts_are_evaluated_one_by_one() -> None:
    task = load_task(MINI / "mini_clamp")
    backend = EmbeddedBackend()
    args = {"x": 12, "lo": 0, "hi": 10}
    assert failing_conjuncts(task, backend, args, 9) == ["(hi < x → result = hi)"]
    assert failing_conjuncts(task, backend, args, 11) == ["result ≤ hi", "(hi < x → result = hi)"]
    assert failing_conjuncts(task, backend, args, 10) == []


def _without_timings(report: BenchmarkAudit) -> dict[str, object]:
    document = report.model_dump(mode="json", exclude={"seconds"})
    for task in document["tasks"]:
        task.pop("seconds")
    return document


@pytest.mark.parametrize("workers", [2, 3])
def test_the_audit_is_the_same_whatever_the_worker_count(planted: tuple[Path, BenchmarkAudit], workers: int) -> None:
    root, in_process = planted
    parallel = audit_benchmark(root, options=QUICK, executor=LocalExecutor(workers))
    assert [t.task for t in parallel.tasks] == sorted(t.task for t in parallel.tasks)
    assert _without_timings(parallel) == _without_timings(in_process)


def test_a_crashing_task_costs_only_itself(planted: tuple[Path, BenchmarkAudit], monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import veriscale.stages.audit.run as R

    root, in_process = planted
    real_audit_task = R.audit_task

    def audit_or_die(task, backend, confirmer, options):  # type: ignore[no-untyped-def]
        if task.id == "mini_clamp":
            os._exit(139)  # what a C stack overflow looks like from the parent
        return real_audit_task(task, backend, confirmer, options)

    monkeypatch.setattr(R, "audit_task", audit_or_die)
    report = audit_benchmark(root, options=QUICK, executor=LocalExecutor(2))
    assert report.tasks_with_errors == ["mini_clamp"]
    clamp = next(t for t in report.tasks if t.task == "mini_clamp")
    assert "crashed" in (clamp.error or "") and clamp.findings == []
    assert report.tasks_with_counterexample == []  # mini_clamp's were not found: it was not audited
    others = [t for t in _without_timings(report)["tasks"] if t["task"] != "mini_clamp"]  # type: ignore[index]
    assert others == [t for t in _without_timings(in_process)["tasks"] if t["task"] != "mini_clamp"]  # type: ignore[index]
    assert "tasks not fully audited: 1" in format_audit(report)


def test_an_audit_that_raises_is_an_error_of_its_task(planted: tuple[Path, BenchmarkAudit],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import veriscale.stages.audit.run as R

    root, _ = planted

    def broken(task, backend, confirmer, options):  # type: ignore[no-untyped-def]
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(R, "audit_task", broken)
    report = audit_benchmark(root, options=QUICK, task_ids=["mini_clamp", "mini_count_evens"])
    assert report.tasks_with_errors == ["mini_clamp", "mini_count_evens"]
    assert all("RecursionError" in (t.error or "") for t in report.tasks)


def test_the_command_takes_the_worker_flags(planted: tuple[Path, BenchmarkAudit], tmp_path: Path) -> None:
    root, _ = planted
    help_text = CliRunner().invoke(app, ["audit", "--help"], terminal_width=200).output
    assert all(flag in help_text for flag in ("--workers", "--executor", "--address"))
    out = tmp_path / "audit.json"
    result = CliRunner().invoke(app, ["audit", str(root), "--no-search", "--workers", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["tasks_with_counterexample"] == ["mini_clamp"]
    for args, message in ((["--executor", "threads"], "expected local or ray"),
                          (["--address", "10.0.0.1:6379"], "--address is for the Ray executor")):
        wrong = CliRunner().invoke(app, ["audit", str(root), *args])
        assert wrong.exit_code == 2 and message in wrong.output and "Traceback" not in wrong.output


class _ClockedCode(EmbeddedBackend):
    """The embedded engine, except that every run of the reference code hits the CPU backstop."""

    def run(self, task, checks):  # type: ignore[no-untyped-def]
        answers = super().run(task, checks)
        return [Answer(status="unknown", reason=UnknownReason.TIMEOUT, engine="embedded", steps=1,
                       detail="backstop of 30 CPU seconds exceeded") if c.kind == CheckKind.CODE else a
                for c, a in zip(checks, answers, strict=True)]


def test_work_stopped_by_a_clock_is_counted_as_load_dependent() -> None:
    task = load_task(MINI / "mini_clamp")
    steady = audit_task(task, EmbeddedBackend(), EmbeddedBackend(), QUICK.model_copy(update={"search": False}))
    assert steady.clock_stops == 0 and not steady.clock_dependent
    clocked = audit_task(task, _ClockedCode(), EmbeddedBackend(), QUICK.model_copy(update={"search": False}))
    assert clocked.clock_stops == len(task.tests) and clocked.clock_dependent
    # the reference 'fails' on every stored test, but the confirming engine computes it: not listed
    assert clocked.found == {} and clocked.unconfirmed == len(task.tests)


def test_the_record_keeps_ids_our_inputs_and_engine_outputs_only(planted: tuple[Path, BenchmarkAudit]) -> None:
    from veriscale.stages.audit.record import AuditRecord, audit_record, task_digest

    root, report = planted
    record = AuditRecord.model_validate_json(audit_record(report, "planted", QUICK).model_dump_json())
    assert record.benchmark == "planted" and str(root) not in record.model_dump_json()
    assert record.tasks_with_counterexample == ["mini_clamp"] and record.options == QUICK
    clamp = next(t for t in record.tasks if t.task == "mini_clamp")
    stored = [c for c in clamp.counterexamples if c.stored_row is not None]
    searched = [c for c in clamp.counterexamples if c.stored_row is None]
    assert stored and all(c.input is None and c.output is None for c in stored)  # the benchmark's row: by index
    assert searched and all(c.input and c.output for c in searched)
    audits = {t.task: t for t in report.tasks}
    assert all(t.digest == task_digest(audits[t.task]) for t in record.tasks)
    changed = audits["mini_clamp"].model_copy(update={"findings": audits["mini_clamp"].findings[1:]})
    assert task_digest(changed) != clamp.digest
    assert task_digest(audits["mini_clamp"].model_copy(update={"seconds": 99.0})) == clamp.digest


def test_a_reference_beyond_the_engines_budget_is_an_engine_limit_not_a_failing_reference() -> None:
    """Running out of the engine's limits on a large input says nothing against the task: it is
    listed as ``reference_beyond_budget``, never as ``reference_fails``."""
    clamp = load_task(MINI / "mini_clamp")
    slow = clamp.with_sections(code=(
        "  if 3 < x ∧ (List.range (x.toNat * 10000000)).length = 0 then lo\n"
        "  else if x < lo then lo\n  else if hi < x then hi\n  else x\n"
    ))
    audit = audit_task(slow, EmbeddedBackend(), EmbeddedBackend(), QUICK)
    beyond = [f for f in audit.findings if f.kind == "reference_beyond_budget"]
    assert beyond and all(f.confirmed and "timeout" in f.detail for f in beyond)
    assert all(args_from_key(f.input, typed_view(slow))["x"] > 3 for f in beyond)
    assert not [f for f in audit.findings if f.kind == "reference_fails"]
