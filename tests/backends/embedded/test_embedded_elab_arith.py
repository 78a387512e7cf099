"""The linear-arithmetic prover behind index and termination obligations (``elab/arith.py``).

``proved`` must only be said when ``omega`` would prove the goal from the facts, ``refuted``
only when a counter-model over free variables exists (then no tactic can prove it), and
everything else is ``unknown``.
"""

from __future__ import annotations

from veriscale.backends.embedded.elab.arith import Goal, decide_lt
from veriscale.backends.embedded.parser import parse_term


def verdict(lhs: str, rhs: str, *facts: str, free: tuple[str, ...] = ("i", "j", "n", "xs", "a", "k", "s")) -> str:
    return decide_lt(Goal(parse_term(lhs), parse_term(rhs)), [parse_term(f) for f in facts],
                     free=lambda name: name in free)


def test_a_hypothesis_that_is_the_goal_proves_it() -> None:
    assert verdict("i", "xs.size", "i < xs.size") == "proved"


def test_linear_consequences_are_proved() -> None:
    assert verdict("i", "xs.size", "i + 1 < xs.size") == "proved"
    assert verdict("i", "n", "i < j", "j ≤ n") == "proved"
    assert verdict("i", "xs.size", "i < n ∧ n = xs.size") == "proved"


def test_truncating_subtraction_is_split_by_cases() -> None:
    assert verdict("a.size - (i + 1)", "a.size - i", "i < a.size") == "proved"
    assert verdict("xs.size - 1", "xs.size", "xs.size > 0") == "proved"
    # without the hypothesis both sides may be 0
    assert verdict("a.size - (i + 1)", "a.size - i") != "proved"


def test_division_and_modulo_by_a_numeral() -> None:
    assert verdict("n / 10", "n", "¬ n = 0") == "proved"
    assert verdict("n % 10", "10") == "proved"
    assert verdict("n / 2", "n") != "proved"  # n = 0


def test_disequality_is_a_case_split() -> None:
    assert verdict("n - 1", "n", "n ≠ 0") == "proved"


def test_a_free_index_with_no_constraint_is_refuted() -> None:
    assert verdict("i", "xs.size") == "refuted"
    assert verdict("k", "a.size", "a.size > 0") == "refuted"  # k = a.size = 1


def test_no_refutation_over_variables_that_are_not_free_or_unread_facts() -> None:
    assert verdict("i", "xs.size", free=()) == "unknown"  # a let-bound `i` may be determined
    # an unread fact mentioning `i` might constrain it
    assert verdict("i", "xs.size", "P i") == "unknown"


def test_non_linear_goals_are_unknown() -> None:
    assert verdict("i * j", "xs.size", "i < 2", "j < 2") == "unknown"
