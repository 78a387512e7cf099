"""A batch is answered in its given order when no policy of the batch comes into play.

The engine's policies (a timeout streak shortening the limit, checks "not run" after the batch
spent its steps on timeouts, the task's step budget) depend on the order of the checks, which is
smallest input first. A batch whose checks all finish within ``optimistic_max_steps`` steps and
stay below the task's budget is answered in the given order without measuring the inputs: these
tests hold its answers equal, field by field, to an engine that always orders by size
(``optimistic_max_steps = 0``: every check takes at least one step, so it always gives up).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from veriscale.backends.base import Answer, Check, CheckKind
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"
WALK = "def walk : Nat → Nat\n  | 0 => 0\n  | n + 1 => walk n + 1"


@pytest.fixture(scope="module")
def walk() -> Task:
    return load_task(MINI / "mini_clamp").with_sections(code_aux=WALK, code="Int.ofNat (walk x.toNat)")


def _code(x: int) -> Check:
    return Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 5})


def _post(x: int, output: int) -> Check:
    return Check(kind=CheckKind.POSTCOND, args={"x": x, "lo": 0, "hi": 5}, output=output)


def _fields(answer: Answer) -> tuple[Any, ...]:
    return (answer.status, type(answer.value), answer.value, answer.reason, answer.detail, answer.steps)


def _orderings(engine: EmbeddedBackend) -> list[int]:
    """Count the batches ``engine`` orders by input size."""
    calls = [0]
    ordered = engine._smallest_first

    def counted(checks: Any) -> Any:
        calls[0] += 1
        return ordered(checks)

    engine._smallest_first = counted  # type: ignore[method-assign]
    return calls


def _against_sorted(task: Task, batches: list[list[Check]], **limits: Any) -> tuple[list[list[Answer]], int]:
    """Each batch on an engine that tries the given order and on one that never does: the
    answers must be the same. Returns the answers and how many batches were ordered by size."""
    given, by_size = EmbeddedBackend(**limits), EmbeddedBackend(**limits)
    by_size.optimistic_max_steps = 0
    orderings = _orderings(given)
    answered = []
    for checks in batches:
        first, second = given.run(task, checks), by_size.run(task, checks)
        assert [_fields(a) for a in first] == [_fields(a) for a in second]
        answered.append(first)
    return answered, orderings[0]


def test_a_batch_within_the_limits_is_answered_in_its_order_without_sizes(walk: Task) -> None:
    xs = [900, 3, 2**70 % 1000, 40, 7, 600]
    checks = [c for x in xs for c in (_code(x), _post(x, x), _post(x, x + 1))]
    (answers,), ordered = _against_sorted(walk, [checks])
    assert ordered == 0
    assert [a.value for a in answers[::3]] == xs
    assert all(a.status in ("true", "false") for k, a in enumerate(answers) if k % 3)


def test_a_check_over_the_optimistic_limit_sends_the_batch_to_the_size_order(walk: Task) -> None:
    # 30,000 steps is within the check limit but over the optimistic one
    (answers,), ordered = _against_sorted(walk, [[_code(x) for x in (5, 30_000, 9)]], max_steps=50_000)
    assert ordered == 1 and [a.value for a in answers] == [5, 30_000, 9]


def test_timeouts_in_the_given_order_are_answered_as_in_the_size_order(walk: Task) -> None:
    # large inputs first: in the given order their timeouts would shorten the limit of the small
    # ones after them; the size order answers the small ones first, under the full limit
    xs = [*range(9_000, 20_000, 500), *range(2_900, 3_000, 10)]
    (answers,), ordered = _against_sorted(walk, [[_code(x) for x in xs]], max_steps=6_000, timeout_streak=2,
                                          short_max_steps=2_000, batch_step_budget=40_000)
    assert ordered == 1
    assert [a.value for a in answers[-10:]] == list(range(2_900, 3_000, 10))


def test_the_task_budget_crossed_sends_the_batch_to_the_size_order(walk: Task) -> None:
    first = [_code(x) for x in range(0, 2_000, 40)]
    second = [_code(x) for x in [1_000, 1_000, 600, 650, 900, 610, 1_000]]
    (_, later), ordered = _against_sorted(walk, [first, second], task_step_budget=50_000, over_budget_max_steps=700)
    assert ordered == 1  # the first batch stays below the budget, the second crosses it
    assert any(a.reason is not None for a in later)
