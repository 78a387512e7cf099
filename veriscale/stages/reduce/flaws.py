"""Flawed-specification columns for reduction: which tests (and which of their unexpected outputs)
tell the LLM-free flawed specifications apart from the ground truth.

The flawed specifications are the ones ``veriscale power`` measures with (one generator:
:func:`veriscale.stages.power.items.flawed_specs` -- weakened and strengthened preconditions and
postconditions: dropped conjuncts, flipped and loosened comparisons, constants ±1, ...), drawn with
the recipe's seed. They are computed at reduce time from the suite's own rows; ``kill_matrix.json``
(the adversaries) is left as ``expand`` wrote it.

A test *kills* a flawed precondition when the flaw rejects the test's input (the ground truth
accepts it), and a flawed postcondition when the flaw rejects (input, expected) or accepts
(input, an unexpected output) where the ground truth decides the other way. Unknown answers never
kill.

The full kill matrix would cost every flaw on every row of a large suite. The selection only
needs one killer per column, so it is found lazily: first among the rows of the tests already kept
(the original tests and the adversary cover), then among the other tests in position order; the
first test found joins the kept ones. Columns no row kills (flaws the suite does not catch) cost a
full scan, bounded by the task's step budget; columns left undecided are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from veriscale.backends.base import Backend, Check, CheckKind
from veriscale.generate.flawed_specs import PowerItem, flawed_specs
from veriscale.task import Task
from veriscale.typed_task import TypedTaskError, typed_view

__all__ = ["FlawCover", "cover_flawed_specs"]

FIRST_CHUNK = 16
LARGEST_CHUNK = 256


@dataclass
class FlawCover:
    """What the flaw columns add to a selection."""

    columns: list[str] = field(default_factory=list)
    """Ids of the flawed specifications (columns)."""
    killed: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    """Column -> (test position, unexpected-output index or ``None`` for the accept checks)."""
    added: list[int] = field(default_factory=list)
    """Tests added to the kept ones to kill a column no kept test kills."""
    undecided: list[str] = field(default_factory=list)
    """Columns whose scan ran out of the step budget."""
    steps: int = 0


@dataclass(frozen=True)
class _Row:
    test: int
    unexpected: int | None
    kind: CheckKind
    args: dict[str, Any]
    output: Any
    label: bool
    """The check a right specification passes: the precondition or postcondition is ``label``."""


def _rows(task: Task) -> tuple[list[_Row], list[_Row]]:
    """(precondition rows, postcondition rows) of every test whose values parse."""
    view = typed_view(task)
    pre: list[_Row] = []
    post: list[_Row] = []
    for position, test in enumerate(view.tests):
        if test.args is None:
            continue
        pre.append(_Row(position, None, CheckKind.PRECOND, test.args, None, True))
        if test.expected_ok:
            post.append(_Row(position, None, CheckKind.POSTCOND, test.args, test.expected, True))
        for index, value in test.unexpected:  # index: position in the stored list
            post.append(_Row(position, index, CheckKind.POSTCOND, test.args, value, False))
    return pre, post


def _check(row: _Row) -> Check:
    return Check(kind=row.kind, args=row.args, output=row.output if row.kind == CheckKind.POSTCOND else None)


class _Scanner:
    def __init__(self, truth: Task, backend: Backend, step_budget: int | None) -> None:
        self.truth = truth
        self.backend = backend
        self.step_budget = step_budget
        self.steps = 0
        self.truth_ok: dict[int, bool] = {}  # by id(row)

    def out_of_budget(self) -> bool:
        return self.step_budget is not None and self.steps > self.step_budget

    def _run(self, task: Task, rows: Sequence[_Row]) -> list[str]:
        answers = self.backend.run(task, [_check(r) for r in rows])
        self.steps += sum(a.steps or 0 for a in answers)
        return [a.status for a in answers]

    def first_kill(self, flaw: PowerItem, rows: Sequence[_Row]) -> _Row | None:
        variant = self.truth.with_sections(**flaw.sections)
        position, chunk = 0, FIRST_CHUNK
        while position < len(rows):
            if self.out_of_budget():
                raise TimeoutError
            batch = list(rows[position : position + chunk])
            position += len(batch)
            chunk = min(2 * chunk, LARGEST_CHUNK)
            unknown = [r for r in batch if id(r) not in self.truth_ok]
            if unknown:
                for row, status in zip(unknown, self._run(self.truth, unknown), strict=True):
                    self.truth_ok[id(row)] = status == ("true" if row.label else "false")
            batch = [r for r in batch if self.truth_ok[id(r)]]
            if not batch:
                continue
            for row, status in zip(batch, self._run(variant, batch), strict=True):
                if status in ("true", "false") and (status == "true") != row.label:
                    return row
        return None


def cover_flawed_specs(
    task: Task,
    kept: Sequence[int],
    backend: Backend,
    *,
    seed: int,
    max_per_section: int,
    step_budget: int | None = None,
) -> FlawCover:
    """Kill every flawed-specification column the suite kills, adding as few tests as the lazy
    scan finds (rows of ``kept`` tests first)."""
    out = FlawCover()
    flaws = flawed_specs(task, seed=seed, max_per_section=max_per_section)
    out.columns = [f.id for f in flaws]
    if not flaws:
        return out
    try:
        pre, post = _rows(task)
    except TypedTaskError:
        out.undecided = list(out.columns)
        return out
    backend.start_unit()
    scanner = _Scanner(task, backend, step_budget)
    chosen = set(kept)
    for flaw in flaws:
        rows = pre if flaw.kind == "precond" else post
        inside = [r for r in rows if r.test in chosen]
        outside = [r for r in rows if r.test not in chosen]
        try:
            row = scanner.first_kill(flaw, inside) or scanner.first_kill(flaw, outside)
        except TimeoutError:
            out.undecided.append(flaw.id)
            continue
        if row is None:
            continue
        out.killed[flaw.id] = (row.test, row.unexpected)
        if row.test not in chosen:
            chosen.add(row.test)
            out.added.append(row.test)
    out.steps = scanner.steps
    return out
