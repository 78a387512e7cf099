"""Subtle adversaries: each operator makes a wrong program that a small suite misses and a bigger
one exposes; expand keeps only those passing the original tests; refute build recovers them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from generate.test_adversaries import make_task as verina_task
from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.games.refute.build import recover_adversaries
from veriscale.generate.adversaries import all_mutations
from veriscale.generate.adversaries.mutants import Mutation
from veriscale.generate.adversaries.subtle import (
    combine,
    guard_mutations,
    split_order,
    subtle_mutations,
)
from veriscale.lean.printing import same_as_printed
from veriscale.stages.expand import ExpandOptions
from veriscale.stages.expand.budget import TaskBudget
from veriscale.stages.expand.kills import AcceptInput, run_kill_matrix
from veriscale.stages.expand.subtle import mutation_adversary, select_subtle_adversaries
from veriscale.task import Task, TestCase
from veriscale.typed_task import typed_view


@pytest.fixture(scope="module")
def backend() -> EmbeddedBackend:
    return EmbeddedBackend(max_steps=2_000_000, timeout=2.0)


def make_task(name: str, params: list[tuple[str, str]], ret: str, code: str, tests: Sequence[tuple[dict[str, Any], Any]] = ()) -> Task:
    """A Verina-layout task of our own; its postcondition says ``result`` is the reference's output."""
    args = " ".join(f"({p})" for p, _ in params)
    return verina_task(name, params, ret, code, tests=tests, postcond=f"result = {name} {args} h_precond")


def outputs(backend: EmbeddedBackend, task: Task, sections: dict[str, str] | None, rows: Sequence[dict[str, Any]]) -> list[Any]:
    variant = task.with_sections(**sections) if sections else task
    view = typed_view(task.model_copy(update={"tests": [TestCase(input=r, expected=0, unexpected=[]) for r in rows]}))
    answers = backend.run(variant, [Check(kind=CheckKind.CODE, args=t.args) for t in view.tests])
    assert all(a.status == "value" for a in answers), answers
    return [a.value for a in answers]


def misses_small_exposed_by_big(
    backend: EmbeddedBackend, task: Task, mutation: Mutation, small: Sequence[dict[str, Any]], big: Sequence[dict[str, Any]]
) -> None:
    sections = {mutation.section: mutation.apply(task.section(mutation.section))}
    reference_small, wrong_small = outputs(backend, task, None, small), outputs(backend, task, sections, small)
    assert all(same_as_printed(w, r) for w, r in zip(wrong_small, reference_small)), mutation.id
    reference_big, wrong_big = outputs(backend, task, None, big), outputs(backend, task, sections, big)
    assert any(not same_as_printed(w, r) for w, r in zip(wrong_big, reference_big)), mutation.id


def by_id(task: Task, suffix: str) -> Mutation:
    (found,) = [m for m in subtle_mutations(task) if m.id.endswith(suffix)]
    return found


SUM = make_task("sumList", [("xs", "List Int")], "Int", "  xs.foldl (fun acc x => acc + x) 0")
SMALL_LISTS = [{"xs": "[1, 2, 3]"}, {"xs": "[]"}, {"xs": "[5, 7]"}]
BIG_LISTS = [*SMALL_LISTS, {"xs": "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"}, {"xs": "[4, -1, 4]"}]


def test_guard_result_wrong_only_on_long_lists(backend: EmbeddedBackend) -> None:
    mutation = by_id(SUM, "guard-result[xs.len>8]:+1")
    assert mutation.family == "guard-result"
    misses_small_exposed_by_big(backend, SUM, mutation, SMALL_LISTS, BIG_LISTS)


def test_guard_input_wrong_only_on_negatives_and_duplicates(backend: EmbeddedBackend) -> None:
    for suffix in ("guard-input[xs.neg]:xs.tail", "guard-input[xs.dup]:xs.dropLast"):
        mutation = by_id(SUM, suffix)
        assert mutation.family == "guard-input"
        misses_small_exposed_by_big(backend, SUM, mutation, SMALL_LISTS, BIG_LISTS)


def test_guard_on_a_number_and_on_a_string(backend: EmbeddedBackend) -> None:
    double = make_task("double", [("n", "Nat")], "Nat", "  2 * n")
    misses_small_exposed_by_big(
        backend, double, by_id(double, "guard-result[n>100]:-1"), [{"n": 0}, {"n": 7}], [{"n": 7}, {"n": 500}]
    )
    size = make_task("size", [("s", "String")], "Nat", "  s.length")
    misses_small_exposed_by_big(
        backend, size, by_id(size, "guard-input[s.space]:s.dropRight"), [{"s": '"ab"'}], [{"s": '"a b"'}]
    )


def test_bound_take_count_off_by_one(backend: EmbeddedBackend) -> None:
    task = make_task("firstN", [("xs", "List Nat"), ("n", "Nat")], "List Nat", "  xs.take n")
    (plus_one,) = [m for m in subtle_mutations(task) if m.family == "bound" and "take-count+1" in m.id]
    misses_small_exposed_by_big(
        backend, task, plus_one, [{"xs": "[1, 2]", "n": 2}, {"xs": "[]", "n": 0}], [{"xs": "[1, 2, 3]", "n": 1}]
    )


def test_bound_index_off_by_one(backend: EmbeddedBackend) -> None:
    task = make_task("elemAt", [("xs", "Array Int"), ("i", "Nat")], "Int", "  xs[i]!")
    (minus_one,) = [m for m in subtle_mutations(task) if m.family == "bound" and "index-1" in m.id]
    misses_small_exposed_by_big(
        backend, task, minus_one, [{"xs": "#[4, 4, 9]", "i": 1}, {"xs": "#[3]", "i": 0}], [{"xs": "#[4, 5]", "i": 1}]
    )


def test_drop_last_misses_lists_whose_last_element_does_not_matter(backend: EmbeddedBackend) -> None:
    task = make_task("best", [("xs", "List Nat")], "Nat", "  xs.foldl max 0")
    (mutation,) = [m for m in subtle_mutations(task) if m.family == "drop-last"]
    assert "(xs.dropLast)" in mutation.apply(task.section("code"))
    misses_small_exposed_by_big(backend, task, mutation, [{"xs": "[9, 1]"}, {"xs": "[]"}], [{"xs": "[1, 9]"}])


def test_second_order_two_boundaries_at_once(backend: EmbeddedBackend) -> None:
    task = make_task("inRange", [("lo", "Int"), ("x", "Int"), ("hi", "Int")], "Bool", "  lo ≤ x && x ≤ hi")
    strict = [m for m in all_mutations(task) if m.change == "≤-to-<"]
    assert len(strict) == 2
    pair = combine(strict[0], strict[1])
    assert pair is not None and pair.family == "second-order"
    assert split_order(pair.id) == [strict[0].id, strict[1].id]
    assert pair.apply(task.section("code")).strip() == "lo < x && x < hi"
    misses_small_exposed_by_big(
        backend, task, pair, [{"lo": 0, "x": 5, "hi": 9}, {"lo": 3, "x": 1, "hi": 4}], [{"lo": 0, "x": 0, "hi": 9}]
    )
    assert combine(strict[0], strict[0]) is None  # the same place twice


def test_generation_is_pure_and_ids_unique() -> None:
    first = [m.id for m in subtle_mutations(SUM)]
    assert first == [m.id for m in subtle_mutations(SUM)]
    assert len(set(first)) == len(first)
    assert {m.family for m in guard_mutations(SUM)} == {"guard-result", "guard-input"}


# ---------------------------------------------------------------------------------------------
# Expand: the pre-filter on the original tests, the kill matrix, refute's recovery


def _originals(task: Task) -> list[AcceptInput]:
    return [
        AcceptInput(key=t.key or "", args=t.args or {}, expected=t.expected, original=True)
        for t in typed_view(task).tests
    ]


ORIGINAL_SUM = make_task(
    "sumList",
    [("xs", "List Int")],
    "Int",
    "  xs.foldl (fun acc x => acc + x) 0",
    tests=[({"xs": "[1, 2, 3]"}, 6), ({"xs": "[]"}, 0), ({"xs": "[5, 7, 0, 0, 0, 0]"}, 12)],
)


def test_only_mutants_passing_the_original_tests_are_selected(backend: EmbeddedBackend) -> None:
    originals = _originals(ORIGINAL_SUM)
    chosen, counts = select_subtle_adversaries(
        ORIGINAL_SUM, backend, originals, TaskBudget(steps=50_000_000), seed=42, cap=10
    )
    assert len(chosen) == counts.passed <= 10
    assert counts.caught_by_original > 0  # e.g. `xs.len>3` meets the third test
    checks = [Check(kind=CheckKind.CODE, args=o.args) for o in originals]
    for adversary in chosen:
        answers = backend.run(ORIGINAL_SUM.with_sections(**adversary.sections), checks)
        assert all(a.status == "value" and same_as_printed(a.value, o.expected) for a, o in zip(answers, originals))
    again, _ = select_subtle_adversaries(ORIGINAL_SUM, backend, originals, TaskBudget(steps=50_000_000), seed=42, cap=10)
    assert [a.id for a in again] == [a.id for a in chosen]
    other, _ = select_subtle_adversaries(ORIGINAL_SUM, backend, originals, TaskBudget(steps=50_000_000), seed=7, cap=10)
    assert [a.id for a in other] != [a.id for a in chosen]
    recovered = recover_adversaries(ORIGINAL_SUM, [a.id for a in chosen])
    assert {i: a.sections for i, a in recovered.items()} == {a.id: a.sections for a in chosen}


def test_extra_adversaries_are_tallied_apart_in_the_kill_matrix(backend: EmbeddedBackend) -> None:
    originals = _originals(ORIGINAL_SUM)
    longer = AcceptInput(key="long", args={"xs": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)}, expected=91, original=False)
    view = typed_view(ORIGINAL_SUM)
    extra = [mutation_adversary(ORIGINAL_SUM, by_id(ORIGINAL_SUM, "guard-result[xs.len>12]:+1"))]
    result = run_kill_matrix(
        ORIGINAL_SUM, backend, [*originals, longer], [], return_type=view.return_type, structs=view.structs,
        options=ExpandOptions(), budget=TaskBudget(steps=50_000_000), extra=extra,
    )
    assert [a.id for a in result.kept] == [extra[0].id]
    assert result.counts["subtle"].kept == 1 and result.counts["mutant"].generated == 0
    assert result.killed_by[len(originals)] == [extra[0].id]  # the long input exposes it; True postcond
    assert all(not result.killed_by[i] for i in range(len(originals)))


def test_second_order_ids_are_recovered() -> None:
    task = make_task("inRange", [("lo", "Int"), ("x", "Int"), ("hi", "Int")], "Bool", "  lo ≤ x && x ≤ hi")
    strict = [m for m in all_mutations(task) if m.change == "≤-to-<"]
    pair = combine(strict[0], strict[1])
    assert pair is not None
    recovered = recover_adversaries(task, [pair.id, "mutant:code:L9C9:nowhere + mutant:code:L1C1:x"])
    assert list(recovered) == [pair.id]
    assert recovered[pair.id].sections == {"code": pair.apply(task.section("code"))}
