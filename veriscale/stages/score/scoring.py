"""Scoring one submission on one task: the checks of each metric, judged one by one.

A metric's checks (Verina's definitions):

* ``precond_sound``     the precondition is true on every test input (the ground truth implies it);
* ``precond_complete``  the precondition is false on every reject input (it implies the ground truth);
* ``postcond_complete`` the postcondition is true on (input, expected) of every test;
* ``postcond_sound``    the postcondition is false on (input, u) for every unexpected output u;
* ``code``              the code returns the expected output on every test input, compared as
  typed values in Python (:func:`veriscale.lean.printing.same_as_printed`), never with a ``BEq`` the
  submission could have supplied;
* ``proof``             the theorem is proved (real Lean only).

Each answer is *right*, *wrong*, a *soft unknown* (``undecidable``/``unsupported``: the engine
cannot tell, so only the lower bound drops) or a *hard unknown* (``timeout``/``error``/``unsafe``:
a check that did not finish is a failure, never a pass). ``lower`` is 1 iff every check was
right; ``upper`` is 1 iff none was wrong or a hard unknown. A metric runs on past wrong answers,
so that every failing test is named (:class:`~veriscale.stages.score.models.FailingTests`, with the first
one's input and values), and stops at its first hard unknown.

The metrics are grouped by the task copy they run on (``code``: the submitted code sections;
``precond``: the precondition sections; ``postcond``: the postcondition sections plus any submitted
precondition sections they may use; ``proof``: everything submitted). A group's sections go through
the safety screen first; a rejected section fails every metric of the groups that contain it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.lean.codec import ValueParseError, parse_lean, render_value
from veriscale.lean.printing import repr_value, same_as_printed
from veriscale.lean.safety import Finding, screen_lean
from veriscale.lean.types import LeanType, StructDef
from veriscale.lean.values import Arr
from veriscale.stages.score.models import Bound, FailingTests, TaskScore
from veriscale.stages.score.submission import SUBMITTABLE_SECTIONS, Submission
from veriscale.task import Task, TestCase
from veriscale.typed_task import TypedTask, TypedTaskError, typed_view

GROUP_METRICS: dict[str, tuple[str, ...]] = {
    "precond": ("precond_sound", "precond_complete"),
    "postcond": ("postcond_sound", "postcond_complete"),
    "code": ("code",),
    "proof": ("proof",),
}
GROUP_TRIGGERS: dict[str, tuple[str, ...]] = {
    "precond": ("precond_aux", "precond"),
    "postcond": ("postcond_aux", "postcond"),
    "code": ("code_aux", "code"),
    "proof": ("proof_aux", "proof"),
}
"""A group is scored when the submission has one of these sections."""
GROUP_SECTIONS: dict[str, tuple[str, ...]] = {
    "precond": ("precond_aux", "precond"),
    "postcond": ("precond_aux", "precond", "postcond_aux", "postcond"),
    "code": ("code_aux", "code"),
    "proof": SUBMITTABLE_SECTIONS,
}
"""The submitted sections a group's task copy carries (and whose screening it depends on)."""

FIRST_CHUNK = 1
CHUNK_GROWTH = 4
MAX_CHUNK = 1024
"""Checks go to the engine in growing chunks (1, 4, 16, ... per metric), so a metric costs few
engine calls. A wrong answer does not stop a metric (every failing test is named); a check that
did not finish does, since every further one could cost the whole time limit."""

SOFT_REASONS = frozenset({UnknownReason.UNDECIDABLE, UnknownReason.UNSUPPORTED})
MAX_DETAIL = 160
MAX_LISTED = 5


def groups_of(submission: Submission) -> tuple[str, ...]:
    """The metric groups a submission asks to be scored, in report order."""
    present = submission.sections()
    return tuple(g for g in GROUP_METRICS if any(s in present for s in GROUP_TRIGGERS[g]))


def _clip(text: str, limit: int = MAX_DETAIL) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _brief(value: Any, ty: LeanType | None, structs: Mapping[str, StructDef]) -> str:
    """A short rendering of a (possibly huge) value for a reason line, as Lean text.

    The value is rendered as a term of its type (with the task's structures); a value the codec
    cannot render at that type is shown by Lean's ``repr`` -- never by Python's, which a reader
    of a Lean benchmark cannot paste back."""
    if isinstance(value, (tuple, list, str, Arr)) and len(value) > 200:
        return f"<a value of length {len(value)}>"
    try:
        text = render_value(value, ty, structs) if ty is not None else repr_value(value)
    except Exception:  # noqa: BLE001 - the rendering only explains a verdict
        try:
            text = repr_value(value)
        except Exception:  # noqa: BLE001
            text = f"<a {type(value).__name__} value>"
    return _clip(text, 80)


def _unknown_text(answer: Answer) -> str:
    reason = answer.reason.value if answer.reason is not None else "unknown"
    return f"{reason}: {_clip(answer.detail)}" if answer.detail else reason


# ---------------------------------------------------------------------------------------------
# Planned checks and their judgement


@dataclass(frozen=True)
class Planned:
    label: str
    """``test 3``, ``reject 1``, ``test 3 unexpected 1``: 1-based positions in the suite's files (the
    n-th row of ``test.json`` / ``reject_inputs.json``, the n-th unexpected output of a row)."""
    check: Check
    expect: Any
    """The truth value a pre/postcondition check must have, or the typed expected output."""
    row: int = -1
    """The test row, for recognising published-data defects."""


@dataclass
class MetricState:
    metric: str
    planned: list[Planned]
    position: int = 0
    failure: str | None = None
    """The first definite failure (a wrong answer or a hard unknown), as a reason line."""
    soft: list[str] = field(default_factory=list)
    soft_first: str = ""
    skipped: list[str] = field(default_factory=list)
    skip_first: str = ""
    judged: int = 0
    notes: list[str] = field(default_factory=list)
    """Extra reasons that lower the lower bound (the engine could not read the submission)."""
    lower_cap: bool = False
    failing: FailingTests = field(default_factory=FailingTests)
    """Every failing test (a wrong answer or a hard unknown), the first one's details."""

    @property
    def live(self) -> bool:
        return self.failing.halted is None and self.position < len(self.planned)

    def fail(self, label: str, reason: str, *, halt: bool = False, **detail: Any) -> None:
        """Record a failing test. A wrong answer lets the metric go on (to name every failing
        test); ``halt`` (a check that did not finish) stops its remaining checks."""
        self.failing.failing.append(label)
        if self.failure is None:
            self.failure = f"{self.metric}: {label}: {reason}"
            self.failing.first = label
            for key, value in detail.items():
                setattr(self.failing, key, value)
        if halt and self.failing.halted is None:
            self.failing.halted = _clip(f"{label}: {reason}", MAX_DETAIL)

    def soft_unknown(self, label: str, reason: str) -> None:
        if not self.soft:
            self.soft_first = reason
        self.soft.append(label)

    def skip(self, label: str, reason: str) -> None:
        if not self.skipped:
            self.skip_first = reason
        self.skipped.append(label)

    def bound(self, had_tests: bool) -> tuple[Bound, list[str]]:
        reasons: list[str] = []
        if self.skipped:
            listed = ", ".join(self.skipped[:MAX_LISTED]) + (", …" if len(self.skipped) > MAX_LISTED else "")
            reasons.append(
                f"{self.metric}: {len(self.skipped)} test(s) skipped, a stored value of the suite is "
                f"unreadable or a known defect ({listed}); first: {self.skip_first}"
            )
        if self.failure is not None:
            failing = self.failing.failing
            if len(failing) > 1:
                listed = ", ".join(failing[:MAX_LISTED]) + (", …" if len(failing) > MAX_LISTED else "")
                reasons.append(f"{self.metric}: {len(failing)} failing test(s): {listed}")
            if self.failing.halted is not None:
                reasons.append(f"{self.metric}: later checks not run after {self.failing.halted}")
            return Bound(lower=0, upper=0), [self.failure, *reasons]
        reasons.extend(self.notes)
        lower_ok = not self.soft and not self.lower_cap
        if self.soft:
            listed = ", ".join(self.soft[:MAX_LISTED]) + (", …" if len(self.soft) > MAX_LISTED else "")
            reasons.append(f"{self.metric}: {len(self.soft)} test(s) unknown ({listed}); first: {self.soft_first}")
        if self.judged == 0 and not self.soft:
            if had_tests:
                reasons.append(f"{self.metric}: no test could be judged, so the metric is unknown")
                return Bound(lower=0, upper=1), reasons
            reasons.append(f"{self.metric}: the suite has no test for this metric (vacuously satisfied)")
        return Bound(lower=1 if lower_ok else 0, upper=1), reasons


def _escaped_form_suspected(raw: Any) -> bool:
    """The published data sometimes stores Lean's *escaped* rendering of a String result; such a
    stored value reads differently as the body of a Lean string literal."""
    if not isinstance(raw, str) or "\\" not in raw:
        return False
    try:
        return parse_lean('"' + raw + '"', "String") != raw
    except ValueParseError:
        return False


def _suspect_row(test: TestCase, view: TypedTask) -> str | None:
    """Why a test row's stored expected output is not evidence (a known defect of the published
    data), or ``None``. Used only when a check on that row disagrees with the stored value."""
    if str(view.return_type) == "String" and _escaped_form_suspected(test.expected):
        return "the stored expected String looks like Lean's escaped rendering (a published-data defect)"
    for name, ty in view.param_types.items():
        value = test.input.get(name)
        if str(ty) == "Char" and isinstance(value, str) and len(value) == 1 and (value.isspace() or not value.isprintable()):
            return f"the row has a whitespace Char input ({name}), which the published data is known to mangle"
    return None


class Judge:
    """Turns answers into verdicts for one metric."""

    def __init__(self, view: TypedTask) -> None:
        self.view = view

    def input_text(self, planned: Planned) -> dict[str, str]:
        types = self.view.param_types
        return {name: _brief(value, types.get(name), self.view.structs) for name, value in planned.check.args.items()}

    def judge(self, state: MetricState, planned: Planned, answer: Answer) -> None:
        label = planned.label
        if answer.is_unknown:
            if answer.reason in SOFT_REASONS:
                state.soft_unknown(label, _unknown_text(answer))
            else:
                state.fail(label, _unknown_text(answer), halt=True, input=self.input_text(planned))
            return
        if planned.check.kind == CheckKind.CODE:
            self._judge_code(state, planned, answer)
            return
        if answer.status not in ("true", "false"):
            state.fail(label, f"error: the engine answered {answer.status!r} for a proposition", halt=True)
            return
        got = answer.status == "true"
        state.judged += 1
        if got == planned.expect:
            return
        if state.metric == "postcond_complete" and planned.row >= 0:
            suspect = _suspect_row(self.view.task.tests[planned.row], self.view)
            if suspect is not None:
                state.judged -= 1
                state.skip(label, suspect)
                return
        what = {
            "precond_sound": "the precondition is false on a test input",
            "precond_complete": "the precondition is true on a reject input",
            "postcond_complete": "the postcondition is false on the expected output",
            "postcond_sound": "the postcondition is true on an unexpected (wrong) output",
        }.get(state.metric, f"decided {got}, should be {planned.expect}")
        output = None
        if planned.check.kind == CheckKind.POSTCOND:
            output = _brief(planned.check.output, self.view.return_type, self.view.structs)
        state.fail(label, what, input=self.input_text(planned), returned=str(got).lower(),
                   expected=str(planned.expect).lower(), output=output)

    def _judge_code(self, state: MetricState, planned: Planned, answer: Answer) -> None:
        if answer.status == "value":
            value = answer.value
        elif answer.status in ("true", "false"):
            value = answer.status == "true"
        else:
            state.fail(planned.label, f"error: the engine answered {answer.status!r}", halt=True)
            return
        state.judged += 1
        if same_as_printed(value, planned.expect):
            return
        from veriscale.stages.validate import _explain_stored_defect

        test = self.view.task.tests[planned.row]
        explained = _explain_stored_defect(value, test, self.view)
        if explained is not None:
            state.judged -= 1
            state.skip(planned.label, f"{explained[0]}: {_clip(explained[1], 100)}")
            return
        ty = self.view.return_type
        returned, expected = _brief(value, ty, self.view.structs), _brief(planned.expect, ty, self.view.structs)
        state.fail(planned.label, f"returned {returned}, expected {expected}", input=self.input_text(planned),
                   returned=returned, expected=expected)


# ---------------------------------------------------------------------------------------------
# Planning


@dataclass
class Plan:
    states: list[MetricState]
    had_tests: dict[str, bool]


def plan_metrics(view: TypedTask, metrics: Sequence[str]) -> Plan:
    """Every check of the given metrics, in suite order; unreadable stored values are skipped."""
    task = view.task
    problems = {p.field: p for p in view.problems}
    states = {m: MetricState(metric=m, planned=[]) for m in metrics}
    had: dict[str, bool] = {m: False for m in metrics}

    def problem_text(prefix: str) -> str:
        found = [p for f, p in problems.items() if f.startswith(prefix)]
        if not found:
            return "a stored value does not parse"
        p = found[0]
        return _clip(f"{p.field} does not parse ({p.kind}): {p.reason}", 120)

    for test in view.tests:
        row = f"test {test.index + 1}"
        where = f"test.json[{test.index}]"
        for m in ("precond_sound", "code", "postcond_complete"):
            if m in states:
                had[m] = True
        if "postcond_sound" in states and task.tests[test.index].unexpected:
            had["postcond_sound"] = True
        if test.args is None:
            reason = problem_text(f"{where}.input")
            for m in ("precond_sound", "code", "postcond_complete", "postcond_sound"):
                if m in states and (m != "postcond_sound" or task.tests[test.index].unexpected):
                    states[m].skip(row, reason)
            continue
        if "precond_sound" in states:
            states["precond_sound"].planned.append(
                Planned(row, Check(kind=CheckKind.PRECOND, args=test.args), True, test.index))
        if test.expected_ok:
            if "code" in states:
                states["code"].planned.append(
                    Planned(row, Check(kind=CheckKind.CODE, args=test.args), test.expected, test.index))
            if "postcond_complete" in states:
                states["postcond_complete"].planned.append(Planned(
                    row, Check(kind=CheckKind.POSTCOND, args=test.args, output=test.expected), True, test.index))
        else:
            reason = problem_text(f"{where}.expected")
            for m in ("code", "postcond_complete"):
                if m in states:
                    states[m].skip(row, reason)
        if "postcond_sound" in states:
            readable = {j for j, _ in test.unexpected}
            for j in range(len(task.tests[test.index].unexpected)):
                if j not in readable:
                    states["postcond_sound"].skip(
                        f"{row} unexpected {j + 1}", problem_text(f"{where}.unexpected[{j}]"))
            for j, value in test.unexpected:
                states["postcond_sound"].planned.append(Planned(
                    f"{row} unexpected {j + 1}", Check(kind=CheckKind.POSTCOND, args=test.args, output=value),
                    False, test.index))
    if "precond_complete" in states:
        for reject in view.rejects:
            had["precond_complete"] = True
            label = f"reject {reject.index + 1}"
            if reject.args is None:
                states["precond_complete"].skip(label, problem_text(f"reject_inputs.json[{reject.index}]"))
                continue
            states["precond_complete"].planned.append(
                Planned(label, Check(kind=CheckKind.PRECOND, args=reject.args), False))
    return Plan(states=[states[m] for m in metrics], had_tests=had)


def run_plan(task_copy: Task, plan: Plan, judge: Judge, backend: Backend) -> int:
    """Run the planned checks in growing chunks, stopping each metric at its first failure.
    Returns the number of checks the engine answered."""
    size = FIRST_CHUNK
    answered = 0
    while True:
        batch: list[tuple[MetricState, Planned]] = []
        for state in plan.states:
            if not state.live:
                continue
            take = state.planned[state.position: state.position + size]
            state.position += len(take)
            batch.extend((state, p) for p in take)
        if not batch:
            return answered
        answers = backend.run(task_copy, [p.check for _, p in batch])
        answered += len(batch)
        if len(answers) != len(batch):
            for state, p in batch:
                state.fail(p.label, f"error: the engine returned {len(answers)} answers for {len(batch)} checks",
                           halt=True)
            continue
        for (state, p), answer in zip(batch, answers):
            if state.failing.halted is None:
                judge.judge(state, p, answer)
        size = min(size * CHUNK_GROWTH, MAX_CHUNK)


# ---------------------------------------------------------------------------------------------
# Screening and the task copy


def _finding_text(section: str, finding: Finding) -> str:
    return _clip(f"section {section} fails the safety screen: {finding.rule}: {finding.message}", 240)


def screen_submission(submission: Submission) -> dict[str, list[str]]:
    """Per submitted section, the screen's findings as reason texts (empty: accepted)."""
    out: dict[str, list[str]] = {}
    for name, body in submission.sections().items():
        result = screen_lean(body, origin=f"{submission.task}[{name}]", context="section")
        out[name] = [_finding_text(name, f) for f in result.findings]
    return out


def elaboration_problems(original: Task, copy: Task, submitted: tuple[str, ...],
                         backend: Backend) -> tuple[list[str], list[str]]:
    """What reading the copy as Lean does finds against the submission: ``(rejected, undecided)``.

    A diagnostic counts when it lies in a submitted section, or, for an error elsewhere, when the
    original task does not have it (a submitted section can break a definition it did not touch).
    Errors fail the metric (Lean would reject the file); gaps cap its lower bound."""
    diagnostics = backend.diagnose(copy)
    if not diagnostics:
        return [], []
    spans = [(name, first, last) for name, first, last in copy.lean.section_spans() if name in submitted]
    before = {(d.rule, d.message) for d in backend.diagnose(original) or [] if d.kind == "error"}
    rejected: list[str] = []
    undecided: list[str] = []
    for d in diagnostics:
        section = next((name for name, first, last in spans if first <= d.line <= last), None)
        if section is None and (d.kind != "error" or (d.rule, d.message) in before):
            continue
        where = f"section {section}, " if section else ""
        if d.kind == "error":
            rejected.append(_clip(f"Lean rejects the submission: {where}line {d.line}, column {d.col}: {d.message}",
                                  300))
        else:
            undecided.append(_clip(f"cannot tell whether Lean accepts the submission: {where}line {d.line}, "
                                   f"column {d.col}: {d.message}", 300))
    return rejected, undecided


# ---------------------------------------------------------------------------------------------
# One task


@dataclass
class GroupResult:
    task: str
    group: str
    bounds: dict[str, Bound]
    reasons: list[str]
    checks: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    sample: int = 0
    failures: dict[str, FailingTests] = field(default_factory=dict)


def _all_fail(task: str, group: str, reasons: list[str]) -> GroupResult:
    return GroupResult(task=task, group=group,
                       bounds={m: Bound(lower=0, upper=0) for m in GROUP_METRICS[group]}, reasons=reasons)


def score_group(
    task: Task,
    submission: Submission,
    group: str,
    backend: Backend,
    *,
    view: TypedTask | None = None,
    screened: dict[str, list[str]] | None = None,
) -> GroupResult:
    """Score one metric group of one submission. Never raises for problems of the submission."""
    started = time.perf_counter()
    metrics = GROUP_METRICS[group]
    sections = {n: b for n, b in submission.sections().items() if n in GROUP_SECTIONS[group]}
    screened = screened if screened is not None else screen_submission(submission)
    unsafe = [reason for n in sections for reason in screened.get(n, [])]
    if unsafe:
        return _finish(_all_fail(task.id, group, [f"{m}: unsafe: {r}" for m in metrics for r in unsafe[:3]]),
                       started)
    try:
        copy = task.with_sections(**sections)
    except ValueError as exc:
        return _finish(_all_fail(task.id, group, [f"{m}: error: {_clip(str(exc))}" for m in metrics]), started)

    if group == "proof":
        return _finish(_score_proof(task.id, copy, backend), started)

    if view is None:
        try:
            view = typed_view(task)
        except TypedTaskError as exc:
            return _finish(_all_fail(task.id, group, [
                f"{m}: error: the suite's signature cannot be read: {_clip(exc.reason)}" for m in metrics]), started)
    plan = plan_metrics(view, metrics)

    rejected, undecided = elaboration_problems(task, copy, tuple(sections), backend)
    if rejected:
        return _finish(_all_fail(task.id, group, [f"{m}: error: {r}" for m in metrics for r in rejected[:3]]),
                       started)
    definite, doubtful = backend.reading_problems(task, copy)
    if definite:
        return _finish(_all_fail(task.id, group, [f"{m}: error: {d}" for m in metrics for d in definite[:3]]),
                       started)
    notes = doubtful + undecided[:3]
    for state in plan.states:
        if notes:
            state.lower_cap = True
            state.notes.extend(f"{state.metric}: unsupported: {n}" for n in notes)
    checks = run_plan(copy, plan, Judge(view), backend)
    bounds: dict[str, Bound] = {}
    reasons: list[str] = []
    skipped: dict[str, int] = {}
    for state in plan.states:
        bound, why = state.bound(plan.had_tests[state.metric])
        bounds[state.metric] = bound
        reasons.extend(why)
        if state.skipped:
            skipped[state.metric] = len(state.skipped)
    failures = {s.metric: s.failing for s in plan.states if s.failing.failing}
    return _finish(GroupResult(task=task.id, group=group, bounds=bounds, reasons=reasons, checks=checks,
                               skipped=skipped, failures=failures), started)


def _score_proof(task_id: str, copy: Task, backend: Backend) -> GroupResult:
    check_proof = getattr(backend, "check_proof", None)
    if check_proof is None:
        return GroupResult(task=task_id, group="proof", bounds={"proof": Bound(lower=0, upper=1)}, reasons=[
            f"proof: unknown (unsupported): the {backend.name} engine cannot check proofs (use --backend lean)"])
    try:
        verdict = check_proof(copy)
    except Exception as exc:  # noqa: BLE001 - an engine failure is a failure, never a pass
        return _all_fail(task_id, "proof", [f"proof: error: {_clip(f'{type(exc).__name__}: {exc}')}"])
    if getattr(verdict, "accepted", False) is True:
        return GroupResult(task=task_id, group="proof", bounds={"proof": Bound(lower=1, upper=1)}, reasons=[],
                           checks=1)
    detail = getattr(verdict, "reason", "") or "rejected"
    errors = getattr(verdict, "errors", []) or []
    if errors:
        detail += f" ({_clip(errors[0], 120)})"
    result = _all_fail(task_id, "proof", [f"proof: rejected: {_clip(detail, 200)}"])
    result.checks = 1
    return result


def _finish(result: GroupResult, started: float) -> GroupResult:
    result.seconds = time.perf_counter() - started
    return result


def score_task(task: Task, submission: Submission, backend: Backend, groups: Sequence[str] | None = None) -> list[GroupResult]:
    """Score the given groups (default: all the submission asks for) of one task."""
    groups = tuple(groups) if groups is not None else groups_of(submission)
    backend.start_unit()
    screened = screen_submission(submission)
    view: TypedTask | None = None
    if any(g != "proof" for g in groups):
        try:
            view = typed_view(task)
        except TypedTaskError:
            view = None  # score_group reports it per group
    results = [score_group(task, submission, g, backend, view=view, screened=screened) for g in groups]
    for result in results:
        result.sample = submission.sample
    return results


def merge_groups(task_id: str, results: Sequence[GroupResult], sample: int = 0) -> TaskScore:
    """One TaskScore from the results of one sample's groups."""
    score = TaskScore(task=task_id, sample=sample)
    by_group = {r.group: r for r in results}
    for group in GROUP_METRICS:  # report order, whatever order the results came in
        result = by_group.get(group)
        if result is None:
            continue
        for metric, bound in result.bounds.items():
            setattr(score, metric, bound)
        score.reasons.extend(result.reasons)
        score.checks += result.checks
        score.skipped.update(result.skipped)
        score.failures.update(result.failures)
        score.seconds += result.seconds
    score.seconds = round(score.seconds, 3)
    score.add_combined()
    return score
