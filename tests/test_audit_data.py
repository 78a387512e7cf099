"""``veriscale audit`` on all of Verina: every counterexample to spec_satisfied it reports is
re-evaluated here by a fresh engine, and the README states how many tasks have one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from veriscale.audit import BenchmarkAudit, args_from_key, audit_benchmark
from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.compare import same_as_printed
from veriscale.task import load_task
from veriscale.typed_task import typed_view

pytestmark = pytest.mark.data

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture(scope="module")
def verina_audit(data_dir: Path) -> tuple[Path, BenchmarkAudit]:
    source = data_dir / "verina"
    return source, audit_benchmark(source)


def test_every_counterexample_re_evaluates(verina_audit: tuple[Path, BenchmarkAudit]) -> None:
    source, report = verina_audit
    backend = EmbeddedBackend()
    checked = 0
    for task_audit in report.tasks:
        findings = [f for f in task_audit.findings if f.kind == "spec_counterexample"]
        assert bool(findings) == task_audit.has_counterexample
        if not findings:
            continue
        task = load_task(source / task_audit.task)
        view = typed_view(task)
        for finding in findings:
            args = args_from_key(finding.input, view)
            [pre, code] = backend.run(task, [Check(kind=CheckKind.PRECOND, args=args), Check(kind=CheckKind.CODE, args=args)])
            assert pre.status == "true" and code.status == "value", (task.id, finding.input)
            assert same_as_printed(code.value, args_from_output(finding.output, view)), (task.id, finding.input)
            [post] = backend.run(task, [Check(kind=CheckKind.POSTCOND, args=args, output=code.value)])
            assert post.status == "false", (task.id, finding.input)
            checked += 1
    assert checked >= len(report.tasks_with_counterexample)


def args_from_output(text: str, view: object) -> object:
    from veriscale.values import parse_lean

    return parse_lean(text, view.return_type, view.structs)  # type: ignore[attr-defined]


def test_the_readme_states_the_number_of_broken_tasks(verina_audit: tuple[Path, BenchmarkAudit]) -> None:
    _, report = verina_audit
    match = re.search(r"concrete counterexample to `spec_satisfied` in (\d+) of Verina's (\d+) tasks", README.read_text())
    assert match is not None, "the README does not state the audit's count"
    assert int(match.group(1)) == len(report.tasks_with_counterexample)
    assert int(match.group(2)) == report.tasks_total
