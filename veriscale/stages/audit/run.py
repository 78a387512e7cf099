"""``veriscale audit``: everything wrong with a benchmark's tasks and data, each finding re-checked.

Per task:

1. *static*: stored values that do not read at their types, duplicate inputs (tests and reject
   inputs together), duplicate unexpected outputs, unexpected outputs equal to the expected one;
2. *stored rows*: the ground truth on every stored row -- test inputs the precondition rejects,
   reference outputs that differ from the stored expected output or that falsify the
   postcondition (a counterexample to ``spec_satisfied``), reference code that fails, unexpected
   outputs the postcondition accepts, reject inputs the precondition accepts;
3. *search*: new inputs from the expansion's generators (synthesis, mutation of the stored
   inputs, boundary values of the numbers the specification mentions) classified as ``expand``
   does, within a step budget: accepted inputs whose reference output falsifies the
   postcondition, or on which the reference code fails;
4. *confirmation*: every evaluated finding is re-evaluated by a second engine instance from its
   evidence alone (the input parsed back from its printed text); a finding that does not give the
   same verdict again is dropped and counted (``unconfirmed``). A counterexample's failing
   conjuncts are found by evaluating each top-level conjunct of the postcondition on its own.

Nothing undecided is ever a finding: the engine's ``unknown`` answers are counted by reason.
Broken ``task.lean`` markers and unloadable task files come from loading the benchmark.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason, stopped_by_a_clock
from veriscale.benchmark import load_benchmark
from veriscale.lean.codec import ValueParseError, parse_lean, render_value
from veriscale.lean.printing import same_as_printed
from veriscale.parallel import Executor, LocalExecutor, Progress, WorkerSetup, worker_memory_limit
from veriscale.stages.audit.conjuncts import split_conjuncts
from veriscale.stages.audit.models import AuditOptions, BenchmarkAudit, Finding, TaskAudit
from veriscale.stages.expand.budget import TaskBudget
from veriscale.stages.expand.candidates import gather_candidates
from veriscale.stages.expand.classify import classify_candidates, unknown_reason
from veriscale.stages.expand.models import ExpandOptions
from veriscale.task import Task, TaskLoadError
from veriscale.typed_task import TypedTask, TypedTaskError, typed_input_key, typed_view

__all__ = ["args_from_key", "audit_benchmark", "audit_task", "failing_conjuncts", "input_text", "stopped_by_a_clock"]

_FAILURES = (UnknownReason.ERROR, UnknownReason.TIMEOUT)


def input_text(key: str) -> str:
    """An input key as one line (``a := 1; b := [2]``)."""
    return "; ".join(key.splitlines())


def args_from_key(key: str, view: TypedTask) -> dict[str, Any]:
    """The runtime input an input key (``typed_input_key``) prints; raises ``ValueParseError``."""
    values: dict[str, Any] = {}
    for line in key.split("\n") if "\n" in key else key.split("; "):
        name, sep, literal = line.partition(" := ")
        if not sep or name not in view.param_types:
            raise ValueParseError(f"not an input line: {line!r}")
        values[name] = parse_lean(literal, view.param_types[name], view.structs)
    if set(values) != set(view.param_types):
        raise ValueParseError("the input does not name every parameter")
    return {name: values[name] for name in view.param_types}


def _render(value: Any, view: TypedTask) -> str:
    try:
        return render_value(value, view.return_type, view.structs)
    except ValueParseError:
        return repr(value)


def failing_conjuncts(task: Task, backend: Backend, args: dict[str, Any], output: Any) -> list[str] | None:
    """The top-level conjuncts of the postcondition decided false on (args, output); ``None``
    when the postcondition is a single conjunct (it fails as a whole)."""
    parts = split_conjuncts(task.section("postcond"))
    if len(parts) < 2:
        return None
    variants = [task.with_sections(postcond=f"  ({part})\n") for part in parts]
    failing: list[str] = []
    for part, variant in zip(parts, variants, strict=True):
        [answer] = backend.run(variant, [Check(kind=CheckKind.POSTCOND, args=args, output=output)])
        if answer.status == "false":
            failing.append(" ".join(part.split()))
    return failing


class _ClockWatch(Backend):
    """An engine, counting the answers of one task that a clock stopped."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self.clock_stops = 0

    def run(self, task: Task, checks: Sequence[Check]) -> list[Answer]:
        answers = self.inner.run(task, checks)
        self.clock_stops += sum(stopped_by_a_clock(a) for a in answers)
        return answers

    def start_unit(self) -> None:
        self.inner.start_unit()

    def diagnose(self, task: Task) -> Any:
        return self.inner.diagnose(task)

    def reading_problems(self, original: Task, copy: Task) -> tuple[list[str], list[str]]:
        return self.inner.reading_problems(original, copy)

    def close(self) -> None:
        self.inner.close()


class _Collector:
    """Findings of one task: confirmed or not, capped per kind for searched ones."""

    def __init__(self, audit: TaskAudit, cap: int) -> None:
        self.audit = audit
        self.cap = cap
        self.kept: Counter[str] = Counter()
        self.seen: set[tuple[str, str, str]] = set()

    def add(self, finding: Finding, *, searched: bool = False) -> None:
        identity = (finding.kind, finding.input, finding.where if not searched else "")
        if identity in self.seen:
            return
        self.seen.add(identity)
        if not finding.confirmed:
            self.audit.unconfirmed += 1
            return
        self.audit.found[finding.kind] = self.audit.found.get(finding.kind, 0) + 1
        if searched and self.kept[finding.kind] >= self.cap:
            return
        self.kept[finding.kind] += 1
        self.audit.findings.append(finding)


# ---------------------------------------------------------------------------------------------
# Static findings


def _static(view: TypedTask, out: _Collector) -> None:
    task = view.task.id
    for problem in view.problems:
        out.add(Finding(task=task, kind="unreadable_value", where=problem.field,
                        output=str(problem.raw)[:200], detail=f"{problem.kind}: {problem.reason}"))
    first: dict[str, str] = {}
    rows = [(f"test.json[{t.index}]", t.key) for t in view.tests]
    rows += [(f"reject_inputs.json[{r.index}]", r.key) for r in view.rejects]
    for where, key in rows:
        if key is None:
            continue
        if key in first:
            out.add(Finding(task=task, kind="duplicate", where=where, input=key,
                            detail=f"same input as {first[key]}"))
        else:
            first[key] = where
    for test in view.tests:
        texts: dict[str, int] = {}
        expected = _render(test.expected, view) if test.expected_ok else None
        for position, value in test.unexpected:
            text = _render(value, view)
            where = f"test.json[{test.index}].unexpected[{position}]"
            if text == expected:
                out.add(Finding(task=task, kind="duplicate", where=where, input=test.key or "", output=text,
                                detail="equals the expected output"))
            elif text in texts:
                out.add(Finding(task=task, kind="duplicate", where=where, input=test.key or "", output=text,
                                detail=f"same as unexpected[{texts[text]}]"))
            else:
                texts[text] = position


# ---------------------------------------------------------------------------------------------
# Evaluated findings: proposed by one engine, confirmed by another from the printed evidence


class _Judge:
    def __init__(self, view: TypedTask, backend: Backend, confirmer: Backend, undecided: Counter[str]) -> None:
        self.view = view
        self.task = view.task
        self.backend = backend
        self.confirmer = confirmer
        self.undecided = undecided

    def run(self, checks: Sequence[Check], budget: TaskBudget | None = None) -> list[Answer]:
        if not checks:
            return []
        if budget is not None:
            return budget.run(self.backend, self.task, checks)
        return self.backend.run(self.task, checks)

    def note(self, kind: str, answer: Answer) -> None:
        self.undecided[unknown_reason(kind, answer)] += 1

    def reread(self, key: str) -> dict[str, Any] | None:
        try:
            return args_from_key(key, self.view)
        except ValueParseError:
            return None

    def again(self, check: Check) -> Answer:
        [answer] = self.confirmer.run(self.task, [check])
        return answer

    def counterexample(self, where: str, key: str, output: Any) -> Finding:
        """(key, reference output) falsifies the postcondition: confirmed from the text."""
        text = _render(output, self.view)
        args = self.reread(key)
        confirmed = False
        detail = ""
        if args is not None:
            code = self.again(Check(kind=CheckKind.CODE, args=args))
            if code.status == "value" and same_as_printed(code.value, output):
                post = self.again(Check(kind=CheckKind.POSTCOND, args=args, output=code.value))
                confirmed = post.status == "false"
                if confirmed:
                    failing = failing_conjuncts(self.task, self.confirmer, args, code.value)
                    detail = ("the postcondition is false" if failing is None
                              else "failing conjuncts: " + " | ".join(failing) if failing
                              else "no single top-level conjunct is false on its own")
        return Finding(task=self.task.id, kind="spec_counterexample", where=where, input=key, output=text,
                       detail=detail, confirmed=confirmed)

    def reference_fails(self, where: str, key: str, answer: Answer) -> Finding:
        args = self.reread(key)
        confirmed = False
        if args is not None:
            again = self.again(Check(kind=CheckKind.CODE, args=args))
            confirmed = again.status == "unknown" and again.reason == answer.reason
        reason = answer.reason.value if answer.reason is not None else "unknown"
        # Running out of the engine's steps, memory or recursion on a large input is a limit of the
        # engine, not a defect of the task: listed apart, never as a failing reference.
        kind = "reference_beyond_budget" if answer.reason == UnknownReason.TIMEOUT else "reference_fails"
        return Finding(task=self.task.id, kind=kind, where=where, input=key,
                       detail=f"{reason}: {answer.detail[:200]}", confirmed=confirmed)

    def precond_is(self, kind: Any, where: str, key: str, verdict: str, detail: str) -> Finding:
        args = self.reread(key)
        confirmed = args is not None and self.again(Check(kind=CheckKind.PRECOND, args=args)).status == verdict
        return Finding(task=self.task.id, kind=kind, where=where, input=key, detail=detail, confirmed=confirmed)

    def postcond_accepts(self, where: str, key: str, value: Any) -> Finding:
        args = self.reread(key)
        confirmed = args is not None and self.again(
            Check(kind=CheckKind.POSTCOND, args=args, output=value)).status == "true"
        return Finding(task=self.task.id, kind="unexpected_accepted", where=where, input=key,
                       output=_render(value, self.view), confirmed=confirmed)

    def mismatch(self, where: str, key: str, stored: Any, computed: Any) -> Finding:
        args = self.reread(key)
        confirmed = False
        if args is not None:
            again = self.again(Check(kind=CheckKind.CODE, args=args))
            confirmed = again.status == "value" and not same_as_printed(again.value, stored)
        return Finding(task=self.task.id, kind="expected_mismatch", where=where, input=key,
                       output=_render(stored, self.view), detail=f"the reference computes {_render(computed, self.view)}",
                       confirmed=confirmed)


def _stored_rows(judge: _Judge, out: _Collector) -> None:
    view = judge.view
    tests = [t for t in view.tests if t.args is not None and t.key is not None]
    rejects = [r for r in view.rejects if r.args is not None and r.key is not None]
    pre = judge.run([Check(kind=CheckKind.PRECOND, args=t.args) for t in tests])  # type: ignore[arg-type]
    code = judge.run([Check(kind=CheckKind.CODE, args=t.args) for t in tests])  # type: ignore[arg-type]
    outputs: list[tuple[Any, Any]] = []  # (test, reference output)
    for test, p, c in zip(tests, pre, code, strict=True):
        assert test.key is not None
        where = f"test.json[{test.index}]"
        if p.status == "false":
            out.add(judge.precond_is("test_rejected_by_precond", where, test.key, "false",
                                     "the test's input does not satisfy the precondition"))
        elif p.status != "true":
            judge.note("precond", p)
        if c.status == "value":
            if test.expected_ok and not same_as_printed(c.value, test.expected):
                out.add(judge.mismatch(where, test.key, test.expected, c.value))
            if p.status == "true":
                outputs.append((test, c.value))
        elif c.reason in _FAILURES and p.status == "true":
            out.add(judge.reference_fails(where, test.key, c))
        else:
            judge.note("code", c)
    post = judge.run([Check(kind=CheckKind.POSTCOND, args=t.args, output=v) for t, v in outputs])
    for (test, value), answer in zip(outputs, post, strict=True):
        if answer.status == "false":
            out.add(judge.counterexample(f"test.json[{test.index}]", test.key, value))
        elif answer.status != "true":
            judge.note("postcond", answer)
    pairs = [(t, pos, v) for t in tests for pos, v in t.unexpected]
    verdicts = judge.run([Check(kind=CheckKind.POSTCOND, args=t.args, output=v) for t, _, v in pairs])
    for (test, position, value), answer in zip(pairs, verdicts, strict=True):
        if answer.status == "true":
            assert test.key is not None  # tests without a key were left out above
            out.add(judge.postcond_accepts(f"test.json[{test.index}].unexpected[{position}]", test.key, value))
        elif answer.status != "false":
            judge.note("postcond", answer)
    rejected = judge.run([Check(kind=CheckKind.PRECOND, args=r.args) for r in rejects])  # type: ignore[arg-type]
    for reject, answer in zip(rejects, rejected, strict=True):
        assert reject.key is not None
        if answer.status == "true":
            out.add(judge.precond_is("reject_accepted", f"reject_inputs.json[{reject.index}]", reject.key, "true",
                                     "a reject input the precondition accepts"))
        elif answer.status != "false":
            judge.note("precond", answer)


def _search(judge: _Judge, out: _Collector, options: AuditOptions, audit: TaskAudit) -> None:
    view = judge.view
    expand_options = ExpandOptions(
        seed=options.seed, synthesis_limit=options.synthesis_limit, mutants_per_seed=options.mutants_per_seed,
        boundary_limit=options.boundary_limit,
    )
    candidates, counts = gather_candidates(view, expand_options)
    budget = TaskBudget(steps=options.task_steps, seconds=None, backstop_s=options.task_backstop_s)
    classified = classify_candidates(view.task, judge.backend, candidates, counts, expand_options, budget, share=1.0)
    audit.searched_inputs = len(candidates)
    audit.searched_accepted = len(classified.accept) + len(classified.counterexamples) + len(classified.code_failures)
    audit.budget_hit = budget.hit_kind
    for reason, n in classified.unknown_reasons.items():
        judge.undecided[reason] += n
    for found in classified.counterexamples:
        key = typed_input_key(found.candidate.args, view.param_types, view.structs)
        out.add(judge.counterexample(f"search: {found.candidate.source}", key, found.output), searched=True)
    for candidate, answer in classified.code_failures:
        key = typed_input_key(candidate.args, view.param_types, view.structs)
        out.add(judge.reference_fails(f"search: {candidate.source}", key, answer), searched=True)


def audit_task(task: Task, backend: Backend, confirmer: Backend, options: AuditOptions | None = None) -> TaskAudit:
    """Audit one loaded task (see the module docstring)."""
    options = options or AuditOptions()
    audit = TaskAudit(task=task.id)
    try:
        view = typed_view(task)
    except TypedTaskError as exc:
        audit.error = exc.reason
        audit.findings.append(Finding(task=task.id, kind="task_unloadable", where="task.json signature",
                                      detail=exc.reason))
        audit.found["task_unloadable"] = 1
        return audit
    backend.start_unit()
    confirmer.start_unit()
    out = _Collector(audit, options.max_findings_per_kind)
    undecided: Counter[str] = Counter()
    watched, watched_confirmer = _ClockWatch(backend), _ClockWatch(confirmer)
    judge = _Judge(view, watched, watched_confirmer, undecided)
    _static(view, out)
    _stored_rows(judge, out)
    if options.search:
        _search(judge, out, options, audit)
    audit.clock_stops = watched.clock_stops + watched_confirmer.clock_stops
    audit.undecided = dict(sorted(undecided.items()))
    audit.found = dict(sorted(audit.found.items()))
    return audit


def _load_finding(error: TaskLoadError) -> Finding:
    kind = "broken_marker" if str(getattr(error, "file", "")).endswith(".lean") else "task_unloadable"
    return Finding(task=getattr(error, "task", "?"), kind=kind, where=str(getattr(error, "file", "")),
                   detail=str(error))


# ---------------------------------------------------------------------------------------------
# A whole benchmark, on an executor's workers (veriscale.parallel)

_WORKER: tuple[Backend, Backend, AuditOptions] | None = None
"""A worker's engine, its confirming engine and the options (set by ``_worker_init``)."""


def _worker_init(backend_name: str, options: AuditOptions) -> None:
    from veriscale.backends.select import make_backend

    global _WORKER
    _WORKER = (make_backend(backend_name), make_backend(backend_name), options)


def _worker_close() -> None:
    global _WORKER
    if _WORKER is not None:
        _WORKER[0].close()
        _WORKER[1].close()
    _WORKER = None


def _audit_error(task_id: str, reason: str) -> TaskAudit:
    return TaskAudit(task=task_id, error=reason)


def _worker_audit(task: Task) -> TaskAudit:
    assert _WORKER is not None
    backend, confirmer, options = _WORKER
    started = time.perf_counter()
    try:
        audit = audit_task(task, backend, confirmer, options)
    except Exception as exc:  # noqa: BLE001 - one broken task must not end the run
        audit = _audit_error(task.id, f"{type(exc).__name__}: {exc}")
    audit.seconds = round(time.perf_counter() - started, 2)
    return audit


def _crashed_audit(task: Task, reason: str) -> TaskAudit:
    return _audit_error(task.id, reason)


def _size(task: Task) -> int:
    return sum(1 + len(t.unexpected) for t in task.tests) + len(task.reject_inputs)


def audit_benchmark(
    source: str | Path,
    *,
    backend_name: str = "embedded",
    options: AuditOptions | None = None,
    task_ids: Sequence[str] | None = None,
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> BenchmarkAudit:
    """Audit every task of the benchmark at ``source`` (or those of ``task_ids``) on
    ``executor``'s workers (default: in this process). Tasks are listed by id whatever order the
    workers finished in; a task whose worker dies twice, or whose audit raises, gets ``error``
    and no findings -- the others go on."""
    from veriscale.backends.select import resolve_backend_name

    started = time.perf_counter()
    options = options or AuditOptions()
    engine = resolve_backend_name(backend_name)
    loaded = load_benchmark(source)
    wanted = set(task_ids) if task_ids is not None else None
    tasks = [t for t in loaded.tasks if wanted is None or t.id in wanted]
    failures = [f for f in loaded.failures if wanted is None or f.task in wanted]  # only the selected tasks
    # Biggest tasks first keeps every worker busy until the end.
    tasks.sort(key=lambda t: (-_size(t), t.id))
    report = BenchmarkAudit(source=str(source), engine=engine, seed=options.seed,
                            tasks_total=len(tasks) + len(failures))
    report.load_findings = [_load_finding(error) for error in failures]
    results = (executor or LocalExecutor(1)).map(
        _worker_audit, tasks, setup=WorkerSetup(_worker_init, (engine, options), _worker_close),
        crashed=_crashed_audit, progress=progress, memory_limit=worker_memory_limit(engine),
    )
    report.tasks = sorted(results, key=lambda t: t.task)
    found: Counter[str] = Counter(f.kind for f in report.load_findings)
    for task_audit in report.tasks:
        found.update(task_audit.found)
    report.found = dict(sorted(found.items()))
    report.tasks_with_findings = sum(bool(t.found) for t in report.tasks) + len(
        {f.task for f in report.load_findings})
    report.tasks_with_counterexample = [t.task for t in report.tasks if t.has_counterexample]
    report.tasks_with_errors = [t.task for t in report.tasks if t.error is not None]
    report.seconds = round(time.perf_counter() - started, 2)
    return report
