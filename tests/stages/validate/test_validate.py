"""`validate` logic, driven by a scripted backend so that each verdict path is exercised exactly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.lean.values import Arr
from veriscale.stages.validate import ALL_KINDS, format_report, summarize, validate_task
from veriscale.task import Task, load_task
from veriscale.typed_task import typed_view

EXAMPLES_DIR = Path(__file__).resolve().parents[3] / "examples"


class ScriptedBackend(Backend):
    """Answers each check with ``script(check, index)``; records what it was asked."""

    name = "scripted"

    def __init__(self, script: Callable[[Check, int], Answer]) -> None:
        self.script = script
        self.asked: list[Check] = []

    def run(self, task: Task, checks: Sequence[Check]) -> list[Answer]:
        answers = []
        for check in checks:
            answers.append(self.script(check, len(self.asked)))
            self.asked.append(check)
        return answers


def _task() -> Task:
    return load_task(EXAMPLES_DIR / "mini" / "mini_running_max")


def _truthful(task: Task) -> Callable[[Check, int], Answer]:
    """Answers exactly what the stored data says (an engine that agrees with Lean)."""
    view = typed_view(task)
    expected_by_args = {repr(t.args): t.expected for t in view.tests}
    unexpected = {repr((t.args, v)) for t in view.tests for _, v in t.unexpected}

    def script(check: Check, _: int) -> Answer:
        if check.kind is CheckKind.PRECOND:
            is_test = repr(check.args) in expected_by_args
            return Answer.of_bool(is_test, "scripted")
        if check.kind is CheckKind.CODE:
            return Answer.of_value(expected_by_args[repr(check.args)], "scripted")
        return Answer.of_bool(repr((check.args, check.output)) not in unexpected, "scripted")

    return script


def test_truthful_engine_agrees_everywhere_and_task_is_full() -> None:
    task = _task()
    result = validate_task(task, ScriptedBackend(_truthful(task)))
    assert result.status == "full"
    assert result.disagreements == []
    n_tests = len(task.tests)
    assert result.counts["precond_tests"].agree == n_tests
    assert result.counts["code"].agree == n_tests
    assert result.counts["postcond_expected"].agree == n_tests
    assert result.counts["postcond_unexpected"].agree == sum(len(t.unexpected) for t in task.tests)
    assert result.counts["precond_rejects"].agree == len(task.reject_inputs)


def test_wrong_value_is_a_disagreement_with_both_values() -> None:
    task = _task()
    truthful = _truthful(task)

    def script(check: Check, i: int) -> Answer:
        if check.kind is CheckKind.CODE and check.args == typed_view(task).tests[1].args:
            return Answer.of_value(Arr(()), "scripted")
        return truthful(check, i)

    result = validate_task(task, ScriptedBackend(script))
    [bad] = result.disagreements
    assert bad.kind == "code" and bad.row == "test.json[1]"
    assert bad.engine == "#[]"
    assert bad.stored != "#[]"
    assert result.status == "full"  # answered everything; disagreeing is not "unknown"


def test_unknowns_make_partial_and_all_unknown_is_unsupported() -> None:
    task = _task()
    truthful = _truthful(task)

    def some_unknown(check: Check, i: int) -> Answer:
        if check.kind is CheckKind.POSTCOND:
            return Answer.unknown(UnknownReason.UNSUPPORTED, "List.foo at 3:5", "scripted")
        return truthful(check, i)

    partial = validate_task(task, ScriptedBackend(some_unknown))
    assert partial.status == "partial"
    assert partial.first_unsupported == "List.foo at 3:5"
    assert partial.unknown_reasons == {
        "unsupported: List.foo at 3:5": partial.counts["postcond_expected"].unknown
        + partial.counts["postcond_unexpected"].unknown
    }

    def all_unknown(check: Check, i: int) -> Answer:
        return Answer.unknown(UnknownReason.TIMEOUT, "", "scripted")

    assert validate_task(task, ScriptedBackend(all_unknown)).status == "unsupported"


def test_truncated_expected_is_a_defect_proven_by_the_computed_value() -> None:
    task = _task()
    view = typed_view(task)
    full = view.tests[1].expected
    rendered = "#[" + ", ".join(str(int(x)) for x in full) + "]"
    tail = rendered[rendered.index(",") + 2:]  # what the anchor kept: the end of the printed value
    tests = list(task.tests)
    tests[1] = tests[1].model_copy(update={"expected": tail})
    damaged = task.model_copy(update={"tests": tests})
    result = validate_task(damaged, ScriptedBackend(_truthful(task)))
    assert [d.kind for d in result.defects] == ["truncated-expected"]
    assert result.defects[0].row == "test.json[1]"
    assert result.disagreements == []
    # The damaged row is neither agreement nor disagreement for the code check.
    assert result.counts["code"].agree == len(task.tests) - 1


def test_report_totals_and_table() -> None:
    task = _task()
    result = validate_task(task, ScriptedBackend(_truthful(task)))
    report = summarize("mini", "scripted", [result], 2.0, [])
    assert report.checks == result.checks
    assert report.checks_per_second == round(result.checks / 2.0, 1)
    text = format_report(report, verbose=True)
    assert "mini_running_max" in text and "100.0% full" in text
    # The table: a header, a row per task and a TOTAL row, each cell agree/disagree/unknown.
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}
    assert rows["task"] == ["status", "pre+", "pre-", "code", "post+", "post-"]
    cells = [f"{c.agree}/{c.disagree}/{c.unknown}" for c in (report.totals[k] for k in ALL_KINDS)]
    assert rows["TOTAL"] == cells and rows["mini_running_max"] == ["full", *cells]
    assert max(map(len, text.splitlines())) <= 160


def test_a_crashing_worker_costs_its_task_not_the_run(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A task whose evaluation kills its worker process is reported as an error; the rest run."""
    import importlib
    import os

    V = importlib.import_module("veriscale.stages.validate")  # the module (``veriscale.stages.validate`` is the API function)

    mini = EXAMPLES_DIR / "mini"

    def validate_or_die(task: Task, backend: Backend):  # type: ignore[no-untyped-def]
        if task.id == "mini_clamp":
            os._exit(139)  # what a C stack overflow looks like from the parent
        return V.TaskValidation(task=task.id, status="full")

    monkeypatch.setattr(V, "validate_task", validate_or_die)
    report = V.validate_benchmark(mini, backend_name="embedded", jobs=2)
    by_task = {r.task: r for r in report.tasks}
    assert by_task["mini_clamp"].status == "error"
    assert "crashed" in (by_task["mini_clamp"].error or "")
    assert all(r.status == "full" for name, r in by_task.items() if name != "mini_clamp")
    assert len(by_task) == 4


def test_known_storage_defects_are_recognised_with_evidence() -> None:
    from types import SimpleNamespace

    from veriscale.lean.types import parse_type
    from veriscale.stages.validate import _explain_stored_defect
    from veriscale.task import TestCase

    view = SimpleNamespace(return_type=parse_type("String"), param_types={"s": parse_type("String")})
    # The anchor stored Lean's escaped rendering: backslash, x, 0, d as four characters.
    escaped = TestCase(input={"s": "a\r"}, expected="A\\x0d", unexpected=[])
    assert _explain_stored_defect("A\r", escaped, view)[0] == "escaped-expected"  # type: ignore[index,arg-type]
    # A genuinely different string is not explained away.
    assert _explain_stored_defect("B\r", escaped, view) is None  # type: ignore[arg-type]

    char_view = SimpleNamespace(
        return_type=parse_type("String"), param_types={"s": parse_type("String"), "c": parse_type("Char")}
    )
    mangled = TestCase(input={"s": "a b", "c": " "}, expected="a b", unexpected=[])
    assert _explain_stored_defect("a_b", mangled, char_view)[0] == "whitespace-char-input"  # type: ignore[index,arg-type]
    plain = TestCase(input={"s": "a b", "c": "x"}, expected="a b", unexpected=[])
    assert _explain_stored_defect("a_b", plain, char_view) is None  # type: ignore[arg-type]


def test_the_embedded_engine_elaborates_each_task_file_and_reports_what_lean_would_reject() -> None:
    """`validate` elaborates the task file: the shipped example elaborates cleanly, and a file
    whose code Lean would reject (a plain `let` reassigned in `do`) is reported with its place."""
    from veriscale.backends.embedded.backend import EmbeddedBackend

    task = _task()
    clean = validate_task(task, EmbeddedBackend())
    assert clean.elaborated and clean.elaboration_errors == [] and clean.elaboration_gaps == 0
    broken = task.with_sections(code=task.section("code").replace("let mut best", "let best"))
    result = validate_task(broken, EmbeddedBackend())
    assert len(result.elaboration_errors) >= 1 and "cannot be mutated" in result.elaboration_errors[0]
    report = summarize("mini", "embedded", [clean, result], 1.0, [])
    assert report.elaborated == 2 and report.elaboration_errors == len(result.elaboration_errors)
    assert "elaboration error:" in format_report(report) and "elaboration: 2 task files" in format_report(report)
