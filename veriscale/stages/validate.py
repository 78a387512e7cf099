"""``veriscale validate``: check an engine against a benchmark whose answers came from real Lean.

For every task, five kinds of check:

* ``precond_tests``       (a) the precondition holds on every test input;
* ``precond_rejects``     (b) the precondition fails on every reject input;
* ``code``                (c) the reference code returns ``expected`` (compared as typed values);
* ``postcond_expected``   (d) the postcondition holds on (input, expected);
* ``postcond_unexpected`` (e) the postcondition fails on (input, unexpected) -- reported apart,
  because the published suites contain unexpected outputs that the ground truth accepts.

A task is ``full`` when every check of kinds (a)-(d) was answered, ``unsupported`` when none was,
``partial`` otherwise. Values that do not parse (the published VerinaPlus's truncated
``expected`` values) are data defects, reported with the evidence, not disagreements.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from veriscale.backends.base import Answer, Backend, Check, CheckKind
from veriscale.backends.select import worker_engine, worker_engine_setup
from veriscale.benchmark import load_benchmark
from veriscale.lean.codec import quote_string, render_value
from veriscale.lean.printing import same_as_printed
from veriscale.parallel import Executor, LocalExecutor, Progress, worker_memory_limit
from veriscale.tables import add_row, new_table, render
from veriscale.task import Task, TestCase
from veriscale.typed_task import TypedTask, TypedTaskError, ValueProblem, typed_view

CORE_KINDS = ("precond_tests", "precond_rejects", "code", "postcond_expected")
ALL_KINDS = (*CORE_KINDS, "postcond_unexpected")
Verdict = Literal["agree", "disagree", "unknown"]


class KindCounts(BaseModel):
    agree: int = 0
    disagree: int = 0
    unknown: int = 0

    @property
    def total(self) -> int:
        return self.agree + self.disagree + self.unknown

    def add(self, other: KindCounts) -> None:
        self.agree += other.agree
        self.disagree += other.disagree
        self.unknown += other.unknown


class Disagreement(BaseModel):
    kind: str
    row: str
    """Where the check comes from, e.g. ``test.json[3]`` or ``test.json[3].unexpected[1]``."""
    input: dict[str, Any]
    stored: Any
    """What the data says: the stored expected value, or the truth value it implies."""
    engine: Any
    """What the engine answered."""


class Defect(BaseModel):
    kind: str
    """``truncated-expected``, ``unparseable-value``, ``duplicate-input``."""
    row: str
    detail: str


class TaskValidation(BaseModel):
    task: str
    status: Literal["full", "partial", "unsupported", "error"]
    first_unsupported: str | None = None
    counts: dict[str, KindCounts] = Field(default_factory=lambda: {k: KindCounts() for k in ALL_KINDS})
    disagreements: list[Disagreement] = Field(default_factory=list)
    unknown_reasons: dict[str, int] = Field(default_factory=dict)
    defects: list[Defect] = Field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    elaboration_errors: list[str] = Field(default_factory=list)
    """Where the engine's elaborator says Lean rejects the task file (its ground truth compiles
    under Lean, so each one is a defect of the elaborator, or of the file)."""
    elaboration_gaps: int = 0
    """Places of the task file the elaborator cannot judge."""
    elaborated: bool = False
    """The engine read the task file with an elaborator of its own (``Backend.diagnose``)."""

    @property
    def checks(self) -> int:
        return sum(c.total for c in self.counts.values())


class ValidationReport(BaseModel):
    root: str
    engine: str
    tasks: list[TaskValidation]
    totals: dict[str, KindCounts]
    status_counts: dict[str, int]
    defect_counts: dict[str, int]
    checks: int
    seconds: float
    checks_per_second: float
    load_failures: list[str]
    elaboration_errors: int = 0
    elaboration_gaps: int = 0
    elaborated: int = 0
    """Task files the engine elaborated (engines without an elaborator of their own: 0)."""


# ---------------------------------------------------------------------------------------------
# One task


def _compact(text: str) -> str:
    return "".join(text.split())


def _render(value: Any, ty: Any) -> str:
    try:
        return render_value(value, ty)
    except Exception:  # noqa: BLE001 - rendering is for the report only
        return repr(value)


def _first_reason(answer: Answer) -> str:
    reason = answer.reason.value if answer.reason is not None else "unknown"
    return f"{reason}: {answer.detail}" if answer.detail else reason


def _explain_stored_defect(computed: Any, test: TestCase, view: TypedTask) -> tuple[str, str] | None:
    """Recognise the published data's known ways of storing a wrong ``expected`` value.

    * ``escaped-expected``: the anchor stored Lean's *escaped* rendering of a String result
      (``\\x0d`` as four characters); proven when quoting the computed string gives the stored text.
    * ``whitespace-char-input``: the anchor mangled whitespace ``Char`` inputs (in VerinaPlus every
      disagreeing row of the affected tasks has one, and no other row disagrees); the row's stored
      output is not evidence about Lean, so it is reported, not counted.
    """
    if str(view.return_type) == "String" and isinstance(computed, str) and isinstance(test.expected, str):
        if quote_string(computed)[1:-1] == test.expected:
            return "escaped-expected", f"stored {test.expected[:60]!r} is the escaped form of the computed string"
    for name, ty in view.param_types.items():
        value = test.input.get(name)
        if str(ty) == "Char" and isinstance(value, str) and len(value) == 1 and (value.isspace() or not value.isprintable()):
            return "whitespace-char-input", f"Char input {name} = {value!r}, which the anchor is known to mangle"
    return None


def validate_task(task: Task, backend: Backend) -> TaskValidation:
    """Run every check of one task through ``backend`` and compare with the stored answers."""
    backend.start_unit()
    started = time.perf_counter()
    result = TaskValidation(task=task.id, status="full")
    diagnostics = backend.diagnose(task)
    if diagnostics is not None:
        result.elaborated = True
        result.elaboration_errors = [f"{d.line}:{d.col}: {d.message}" for d in diagnostics if d.kind == "error"]
        result.elaboration_gaps = sum(1 for d in diagnostics if d.kind == "gap")
    try:
        view = typed_view(task)
    except TypedTaskError as exc:
        result.status = "error"
        result.error = exc.reason
        return result

    problems_by_field: dict[str, ValueProblem] = {p.field: p for p in view.problems}
    for problem in view.problems:
        if problem.kind != "truncated" or not problem.field.endswith(".expected"):
            result.defects.append(Defect(kind="unparseable-value", row=problem.field, detail=problem.reason))

    # Build the batch, remembering what each check means.
    checks: list[Check] = []
    meaning: list[tuple[str, str, dict[str, Any], Any]] = []  # (kind, row, raw input, stored answer)

    def add(kind: str, row: str, raw_input: dict[str, Any], stored: Any, check: Check) -> None:
        checks.append(check)
        meaning.append((kind, row, raw_input, stored))

    seen_keys: set[str] = set()
    for test in view.tests:
        raw = task.tests[test.index]
        row = f"test.json[{test.index}]"
        if test.args is None:
            continue
        if test.key is not None:
            if test.key in seen_keys:
                result.defects.append(Defect(kind="duplicate-input", row=row, detail="same input as an earlier test"))
            seen_keys.add(test.key)
        add("precond_tests", row, raw.input, True, Check.trusted(CheckKind.PRECOND, test.args))
        add("code", row, raw.input, test.expected if test.expected_ok else raw.expected,
            Check.trusted(CheckKind.CODE, test.args))
        if test.expected_ok:
            add("postcond_expected", row, raw.input, True,
                Check.trusted(CheckKind.POSTCOND, test.args, test.expected))
        for j, value in test.unexpected:
            add("postcond_unexpected", f"{row}.unexpected[{j}]", raw.input, False,
                Check.trusted(CheckKind.POSTCOND, test.args, value))
    for reject in view.rejects:
        if reject.args is None:
            continue
        row = f"reject_inputs.json[{reject.index}]"
        add("precond_rejects", row, task.reject_inputs[reject.index].input, False,
            Check.trusted(CheckKind.PRECOND, reject.args))

    answers = backend.run(task, checks) if checks else []
    defective_rows: set[str] = set()
    reasons: Counter[str] = Counter()
    for (kind, row, raw_input, stored), answer in zip(meaning, answers, strict=True):
        counts = result.counts[kind]
        if answer.is_unknown:
            counts.unknown += 1
            reasons[_first_reason(answer)] += 1
            if result.first_unsupported is None and answer.reason is not None and answer.reason.value == "unsupported":
                result.first_unsupported = answer.detail
            continue
        if kind == "code":
            problem = problems_by_field.get(f"{row}.expected")
            if problem is not None:
                # The stored value does not parse: a data defect, proven when it is the tail of ours.
                rendered = _render(answer.value, view.return_type)
                tail = _compact(str(problem.raw))
                if tail and _compact(rendered).endswith(tail):
                    result.defects.append(Defect(
                        kind="truncated-expected", row=row,
                        detail=f"stored {str(problem.raw)[:60]!r} is the tail of the computed value"))
                else:
                    result.defects.append(Defect(
                        kind="unparseable-expected", row=row,
                        detail=f"{problem.reason}; computed {rendered[:80]}"))
                continue
            same = same_as_printed(answer.value, stored)
            verdict: Verdict = "agree" if same else "disagree"
            if not same:
                explained = _explain_stored_defect(answer.value, task.tests[int(row[10:-1])], view)
                if explained is not None:
                    result.defects.append(Defect(kind=explained[0], row=row, detail=explained[1]))
                    defective_rows.add(row)
                    continue
                # rendered for the report of the disagreement only
                engine_view: Any = _render(answer.value, view.return_type)
                stored_view: Any = _render(stored, view.return_type)
        elif kind == "postcond_expected" and row in defective_rows:
            continue  # the stored expected value itself is the defect, reported with the code check
        else:
            got = answer.status == "true"
            verdict = "agree" if got == stored else "disagree"
            engine_view, stored_view = got, stored
        if verdict == "agree":
            counts.agree += 1
        else:
            counts.disagree += 1
            result.disagreements.append(Disagreement(
                kind=kind, row=row, input=raw_input, stored=stored_view, engine=engine_view))

    result.unknown_reasons = dict(reasons.most_common())
    core_answered = sum(result.counts[k].agree + result.counts[k].disagree for k in CORE_KINDS)
    core_unknown = sum(result.counts[k].unknown for k in CORE_KINDS)
    if core_unknown == 0:
        result.status = "full"
    elif core_answered == 0:
        result.status = "unsupported"
    else:
        result.status = "partial"
    result.seconds = round(time.perf_counter() - started, 4)
    return result


# ---------------------------------------------------------------------------------------------
# A whole benchmark, in worker processes



def _worker_validate(task: Task) -> TaskValidation:
    try:
        return validate_task(task, worker_engine())
    except Exception as exc:  # noqa: BLE001 - one broken task must not end the run
        return TaskValidation(task=task.id, status="error", error=f"{type(exc).__name__}: {exc}")


def _crashed_validation(task: Task, reason: str) -> TaskValidation:
    return TaskValidation(task=task.id, status="error", error=reason)


def validate_benchmark(
    root: Path,
    *,
    backend_name: str = "embedded",
    jobs: int | None = None,
    progress: Progress | None = None,
    task_ids: Sequence[str] | None = None,
    executor: Executor | None = None,
) -> ValidationReport:
    """Validate every task of ``root`` (or those of ``task_ids``) on ``executor``'s workers
    (default: ``jobs`` local processes); a task whose worker dies twice is an ``error``."""
    started = time.perf_counter()
    loaded = load_benchmark(root)
    wanted = set(task_ids) if task_ids is not None else None
    tasks = [t for t in loaded.tasks if wanted is None or t.id in wanted]
    failures = [f for f in loaded.failures if wanted is None or f.task in wanted]  # only the selected tasks
    # Biggest tasks first keeps every worker busy until the end.
    tasks.sort(key=lambda t: (-(len(t.tests) + len(t.reject_inputs)), t.id))
    results = (executor or LocalExecutor(jobs)).map(
        _worker_validate, tasks, setup=worker_engine_setup(backend_name),
        crashed=_crashed_validation, progress=progress, memory_limit=worker_memory_limit(backend_name),
    )
    results.sort(key=lambda r: r.task)
    return summarize(str(root), backend_name, results, time.perf_counter() - started, [str(e) for e in failures])


def summarize(
    root: str, engine: str, results: list[TaskValidation], seconds: float, load_failures: list[str]
) -> ValidationReport:
    totals = {k: KindCounts() for k in ALL_KINDS}
    for r in results:
        for k, c in r.counts.items():
            totals[k].add(c)
    checks = sum(r.checks for r in results)
    status_counts = Counter(r.status for r in results)
    defect_counts = Counter(d.kind for r in results for d in r.defects)
    return ValidationReport(
        root=root,
        engine=engine,
        tasks=results,
        totals=totals,
        status_counts=dict(sorted(status_counts.items())),
        defect_counts=dict(sorted(defect_counts.items())),
        checks=checks,
        seconds=round(seconds, 2),
        checks_per_second=round(checks / seconds, 1) if seconds > 0 else 0.0,
        load_failures=load_failures,
        elaboration_errors=sum(len(r.elaboration_errors) for r in results),
        elaboration_gaps=sum(r.elaboration_gaps for r in results),
        elaborated=sum(1 for r in results if r.elaborated),
    )


def _cell(counts: KindCounts) -> str:
    return f"{counts.agree}/{counts.disagree}/{counts.unknown}"


def format_report(report: ValidationReport, *, verbose: bool = False) -> str:
    """One row per notable task (every task when ``verbose``) and a TOTAL row, each cell
    agree/disagree/unknown with the stored answers; the reasons below the table, then the summary."""
    short = {"precond_tests": "pre+", "precond_rejects": "pre-", "code": "code",
             "postcond_expected": "post+", "postcond_unexpected": "post-"}
    table = new_table("task", "status", *(short[k] for k in ALL_KINDS), right=[short[k] for k in ALL_KINDS])
    details: list[str] = []
    for r in report.tasks:
        if not verbose and r.status == "full" and not r.disagreements and not r.defects and not r.elaboration_errors:
            continue
        add_row(table, r.task, r.status, *(_cell(r.counts[k]) for k in ALL_KINDS))
        if r.status in ("partial", "unsupported") and r.unknown_reasons:
            details.append(f"  {r.task}: unknown: {next(iter(r.unknown_reasons))[:140]}")
        if r.error:
            details.append(f"  {r.task}: error: {r.error[:140]}")
        details.extend(f"  {r.task}: elaboration error: {message[:140]}" for message in r.elaboration_errors[:3])
    table.add_section()
    add_row(table, "TOTAL", "", *(_cell(report.totals[k]) for k in ALL_KINDS))
    lines = [render(table), *details]
    lines.append("a cell is agree/disagree/unknown (the engine against the stored answers)")
    lines.append("")
    n = len(report.tasks)
    full = report.status_counts.get("full", 0)
    lines.append(
        f"{n} tasks: " + ", ".join(f"{v} {k}" for k, v in report.status_counts.items())
        + (f" ({100 * full / n:.1f}% full)" if n else "")
    )
    if report.defect_counts:
        lines.append("data defects: " + ", ".join(f"{v} {k}" for k, v in report.defect_counts.items()))
    if report.elaborated:
        files_with_gaps = sum(1 for r in report.tasks if r.elaboration_gaps)
        lines.append(f"elaboration: {report.elaborated} task files, {report.elaboration_errors} errors, "
                     f"{report.elaboration_gaps} places the engine cannot judge (in {files_with_gaps} files)")
    lines.append(
        f"{report.checks} checks in {report.seconds:.1f} s = {report.checks_per_second:.0f} checks/s "
        f"(engine: {report.engine})"
    )
    for failure in report.load_failures:
        lines.append(f"not loaded: {failure}")
    return "\n".join(lines)
