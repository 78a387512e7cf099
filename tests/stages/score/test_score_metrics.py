"""Verina's metric definitions, one test per metric, on a small task of our own.

``score_clamp_all`` (tests/fixtures/hostile/submissions/suite): ``clampAll xs lo hi`` clamps every
element into ``[lo, hi]``; precondition ``lo ≤ hi``; 5 tests, 2 reject inputs (``lo > hi``).
"""

from __future__ import annotations

from stages.score.conftest import score_one
from veriscale.backends.base import Backend
from veriscale.stages.score.models import COMBINED_METRICS, METRICS, Bound, TaskScore, conjunction
from veriscale.task import Task

RIGHT_PRECOND = "  lo ≤ hi"
RIGHT_POSTCOND = "  result = xs.map (clampOne lo hi)"
RIGHT_CODE = "  xs.map (fun x => max lo (min hi x))"


def _pair(score: TaskScore, metric: str) -> tuple[int, int] | None:
    bound = score.bound(metric)
    return None if bound is None else (bound.lower, bound.upper)


def test_precond_false_fails_soundness(clamp: Task, embedded: Backend) -> None:
    # P* (lo ≤ hi) does not imply False: the test inputs, valid ones, expose it.
    score = score_one(clamp, embedded, precond="  False")
    assert _pair(score, "precond_sound") == (0, 0)
    assert _pair(score, "precond_complete") == (1, 1)
    assert any(r.startswith("precond_sound: test 1: the precondition is false on a test input") for r in score.reasons)


def test_precond_accepting_a_reject_input_fails_completeness(clamp: Task, embedded: Backend) -> None:
    # `lo ≤ hi + 10` holds on the reject input (lo 5, hi 2): it does not imply P*.
    score = score_one(clamp, embedded, precond="  lo ≤ hi + 10")
    assert _pair(score, "precond_sound") == (1, 1)
    assert _pair(score, "precond_complete") == (0, 0)
    assert any(r.startswith("precond_complete: reject 1: the precondition is true on a reject input")
               for r in score.reasons)


def test_postcond_accepting_a_wrong_output_fails_soundness(clamp: Task, embedded: Backend) -> None:
    score = score_one(clamp, embedded, postcond="  result.length = xs.length")
    assert _pair(score, "postcond_sound") == (0, 0)
    assert _pair(score, "postcond_complete") == (1, 1)
    assert any("true on an unexpected (wrong) output" in r for r in score.reasons)


def test_postcond_rejecting_the_expected_output_fails_completeness(clamp: Task, embedded: Backend) -> None:
    # Too strong: demands a non-empty result, but test 2 expects [].
    score = score_one(clamp, embedded, postcond=RIGHT_POSTCOND.rstrip() + " ∧ result ≠ []")
    assert _pair(score, "postcond_sound") == (1, 1)
    assert _pair(score, "postcond_complete") == (0, 0)
    assert any(r.startswith("postcond_complete: test 2: the postcondition is false on the expected output")
               for r in score.reasons)


def test_code_is_judged_by_its_outputs(clamp: Task, embedded: Backend) -> None:
    assert _pair(score_one(clamp, embedded, code=RIGHT_CODE), "code") == (1, 1)
    assert _pair(score_one(clamp, embedded, code="  xs.map (fun x => min hi x)"), "code") == (0, 0)


def test_spec_sound_and_complete_needs_both_halves(clamp: Task, embedded: Backend) -> None:
    right = score_one(clamp, embedded, precond=RIGHT_PRECOND, postcond=RIGHT_POSTCOND)
    assert _pair(right, "precond_sound_complete") == (1, 1)
    assert _pair(right, "postcond_sound_complete") == (1, 1)
    assert _pair(right, "precond_postcond") == (1, 1)
    weak_post = score_one(clamp, embedded, precond=RIGHT_PRECOND, postcond="  result.length = xs.length")
    assert _pair(weak_post, "precond_sound_complete") == (1, 1)
    assert _pair(weak_post, "postcond_sound_complete") == (0, 0)
    assert _pair(weak_post, "precond_postcond") == (0, 0)
    strong_pre = score_one(clamp, embedded, precond="  False", postcond=RIGHT_POSTCOND)
    assert _pair(strong_pre, "precond_sound_complete") == (0, 0)
    assert _pair(strong_pre, "precond_postcond") == (0, 0)


def test_code_and_spec_together(clamp: Task, embedded: Backend) -> None:
    right = score_one(clamp, embedded, code=RIGHT_CODE, precond=RIGHT_PRECOND, postcond=RIGHT_POSTCOND)
    assert _pair(right, "code_spec") == (1, 1)
    wrong_code = score_one(clamp, embedded, code="  xs", precond=RIGHT_PRECOND, postcond=RIGHT_POSTCOND)
    assert _pair(wrong_code, "precond_postcond") == (1, 1)
    assert _pair(wrong_code, "code_spec") == (0, 0)
    wrong_spec = score_one(clamp, embedded, code=RIGHT_CODE, precond="  True", postcond=RIGHT_POSTCOND)
    assert _pair(wrong_spec, "code") == (1, 1)
    assert _pair(wrong_spec, "code_spec") == (0, 0)


def test_a_combined_metric_needs_every_part_scored(clamp: Task, embedded: Backend) -> None:
    only_post = score_one(clamp, embedded, postcond=RIGHT_POSTCOND)
    assert _pair(only_post, "postcond_sound_complete") == (1, 1)
    for metric in ("precond_sound_complete", "precond_postcond", "code_spec"):
        assert only_post.bound(metric) is None, metric
    code_and_post = score_one(clamp, embedded, code=RIGHT_CODE, postcond=RIGHT_POSTCOND)
    assert code_and_post.bound("code_spec") is None


def test_conjunction_of_bounds_keeps_unknowns_apart() -> None:
    unknown, passed, failed = Bound(lower=0, upper=1), Bound(lower=1, upper=1), Bound(lower=0, upper=0)
    assert conjunction([unknown, passed]) == unknown
    assert conjunction([unknown, failed]) == failed
    assert conjunction([passed, passed]) == passed
    # every combined metric's parts come before it in report order
    for metric, parts in COMBINED_METRICS.items():
        assert all(METRICS.index(p) < METRICS.index(metric) for p in parts)
