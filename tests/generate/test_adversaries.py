"""LLM-free adversaries: signature templates, mutants of the reference, output mutants."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import verina_task

from veriscale.backends.base import Answer, Check, CheckKind
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.benchmark import load_benchmark
from veriscale.generate.adversaries import (
    Adversary,
    all_mutations,
    llm_free_adversaries,
    mutant_adversaries,
    mutate_outputs,
    template_adversaries,
)
from veriscale.generate.adversaries.mutants import section_mutations, whole_result_mutations
from veriscale.generate.value_space import is_valid_value
from veriscale.lean.codec import parse_value
from veriscale.lean.lexer import EOF, tokenize
from veriscale.lean.safety import screen_sections
from veriscale.lean.types import parse_type
from veriscale.lean.values import NONE, Arr, Nat, Pair, Some, values_equal
from veriscale.task import LeanFile, Task, TestCase, load_task
from veriscale.typed_task import typed_view

MINI = Path(__file__).resolve().parents[2] / "examples" / "mini"
MINI_TASKS = ("mini_clamp", "mini_count_evens", "mini_dedup_sorted", "mini_running_max")

@pytest.fixture(scope="module")
def backend() -> EmbeddedBackend:
    return EmbeddedBackend(max_steps=2_000_000, timeout=2.0)


def mini(name: str) -> Task:
    return load_task(MINI / name)


# ---------------------------------------------------------------------------------------------
# Tasks written for these tests


def make_task(
    name: str,
    params: list[tuple[str, str]],
    ret: str,
    code: str,
    *,
    code_aux: str = "",
    tests: Sequence[tuple[dict[str, Any], Any]] = (),
    postcond: str = "True",
) -> Task:
    """A Verina-layout task with a trivial precondition and the given postcondition (``True``)."""
    return verina_task(
        f"own_{name}", name, params, ret, description="",
        tests=[TestCase(input=i, expected=e, unexpected=[]) for i, e in tests],
        code=code, code_aux=code_aux, postcond=postcond,
    )


def code_answers(backend: EmbeddedBackend, task: Task, adversary: Adversary) -> list[Answer]:
    view = typed_view(task)
    checks = [Check(kind=CheckKind.CODE, args=t.args) for t in view.tests if t.args is not None]
    return backend.run(task.with_sections(**adversary.sections), checks)


# ---------------------------------------------------------------------------------------------
# Templates


def test_templates_follow_the_return_type() -> None:
    kinds = {
        ret: {
            a.id
            for a in template_adversaries(
                make_task("f", [("xs", "List Int"), ("n", "Nat")], ret, "  default")
            )
        }
        for ret in ("Int", "Nat", "Bool", "List Int", "Array Int", "Option Int", "Int × Int", "String")
    }
    assert {
        "template:const-default",
        "template:const-one",
        "template:const-minus-one",
        "template:length:xs",
        "template:sum:xs",
        "template:max:xs",
        "template:first:xs",
        "template:cast:n",
    } <= kinds["Int"]
    assert {"template:echo:n", "template:echo-plus-one:n", "template:length:xs"} <= kinds["Nat"]
    assert "template:sum:xs" not in kinds["Nat"]  # Int elements do not sum to a Nat
    assert {"template:const-default", "template:const-true", "template:is-empty:xs"} <= kinds["Bool"]
    assert {
        "template:echo:xs",
        "template:reverse:xs",
        "template:sort:xs",
        "template:take-1:xs",
        "template:drop-1:xs",
        "template:const-singleton",
    } <= kinds["List Int"]
    assert {"template:cast:xs", "template:const-singleton"} <= kinds["Array Int"]
    assert "template:echo:xs" not in kinds["Array Int"]
    assert {"template:const-some", "template:head-option:xs", "template:max-option:xs"} <= kinds["Option Int"]
    assert {"template:const-default", "template:const-pair-one"} <= kinds["Int × Int"]
    assert kinds["String"] == {"template:const-default"}


def test_template_bodies_are_expressions_of_the_return_type(backend: EmbeddedBackend) -> None:
    task = make_task(
        "f",
        [("xs", "Array Nat"), ("x", "Nat")],
        "Nat",
        "  x",
        tests=[({"xs": "#[3, 1, 2]", "x": 7}, 7), ({"xs": "#[]", "x": 0}, 0)],
    )
    values = {}
    for adversary in template_adversaries(task):
        answers = code_answers(backend, task, adversary)
        assert all(a.status == "value" for a in answers), (adversary.id, answers)
        values[adversary.id] = answers[0].value
    assert values["template:sum:xs"] == Nat(6)
    assert values["template:max:xs"] == Nat(3)
    assert values["template:min:xs"] == Nat(1)
    assert values["template:last:xs"] == Nat(2)
    assert values["template:length:xs"] == Nat(3)
    assert values["template:echo-plus-one:x"] == Nat(8)
    assert "template:echo:x" not in values  # it is the reference itself


def test_templates_of_a_structure_result_use_its_default(backend: EmbeddedBackend) -> None:
    task = make_task(
        "g", [("p", "Pt")], "Pt", "  p", tests=[({"p": "{ x := 1, y := 2 }"}, "{ x := 1, y := 2 }")]
    )
    aux = "structure Pt where\n  x : Int\n  y : Int\nderiving Repr, Inhabited\n"
    task = task.model_copy(
        update={
            "lean": LeanFile.parse(
                task.lean_text().replace(
                    "-- !benchmark @start import type=solution\n\n-- !benchmark @end import\n",
                    "-- !benchmark @start import type=solution\n\n-- !benchmark @end import\n\n"
                    f"-- !benchmark @start task_aux\n{aux}-- !benchmark @end task_aux\n",
                )
            )
        }
    )
    (adversary,) = template_adversaries(task)
    assert adversary.id == "template:const-default"
    (answer,) = code_answers(backend, task, adversary)
    assert answer.status == "value" and answer.value.get("x") == 0


@pytest.mark.parametrize("name", MINI_TASKS)
def test_mini_templates_evaluate(backend: EmbeddedBackend, name: str) -> None:
    task = mini(name)
    templates = template_adversaries(task)
    assert len(templates) >= 4
    for adversary in templates:
        answers = code_answers(backend, task, adversary)
        assert answers and all(a.status == "value" for a in answers), (adversary.id, answers)


# ---------------------------------------------------------------------------------------------
# Mutants: positions


def ids(section: str, text: str, **kwargs: Any) -> list[str]:
    return [m.id for m in section_mutations(section, text, **kwargs)]


def changes(text: str, **kwargs: Any) -> list[str]:
    return [m.change for m in section_mutations("code", text, **kwargs)]


def test_operator_mutants_have_positions_and_replacements() -> None:
    text = "  if a < b && c = 0 then a + 1 else !(a ≥ b)\n"
    found = ids("code", text)
    assert "mutant:code:L1C7:<-to-≤" in found
    assert "mutant:code:L1C7:<-to->" in found
    assert "mutant:code:L1C11:&&-to-||" in found
    assert "mutant:code:L1C16:=-to-≠" in found
    assert "mutant:code:L1C18:0-to-1" in found
    assert "mutant:code:L1C2:if-negated" in found
    assert "mutant:code:L1C27:+-to--" in found
    assert "mutant:code:L1C36:!-removed" in found
    assert "mutant:code:L1C40:≥-to->" in found
    assert len(found) == len(set(found))
    negated = next(m for m in section_mutations("code", text) if m.change == "if-negated")
    assert negated.apply(text) == "  if ¬(a < b && c = 0) then a + 1 else !(a ≥ b)\n"


def test_patterns_binders_types_and_proofs_are_left_alone() -> None:
    text = (
        "  let rec go (i : Nat) (acc : Int) : Int :=\n"
        "    match i with\n"
        "    | 0 => acc\n"
        "    | n + 1 => go n (acc + k)\n"
        "  let x : Fin 3 := ⟨1, by decide⟩\n"
        "  if h : k < xs.size then xs[k] + go 5 0 else xs[k + 1]!\n"
    )
    found = changes(text)
    # literals of patterns, of types, of proofs and of proof-carrying indices stay
    assert found.count("0-to-1") == 1  # only `go 5 0`
    assert "5-to-6" in found and "1-to-2" in found  # `go 5 0`, `xs[k + 1]!`
    assert "3-to-4" not in found  # `Fin 3`
    assert "<-to-≤" not in found  # the condition of a dependent `if h :`
    mutated_lines = {m.line for m in section_mutations("code", text)}
    assert 4 in mutated_lines  # `acc + k` is data
    assert 2 not in mutated_lines and 3 not in mutated_lines and 5 not in mutated_lines


def test_recursion_steps_are_left_alone_but_accumulators_are_not() -> None:
    aux = (
        "def loop (a : Array Int) (i : Nat) (acc : Int) : Int :=\n"
        "  if i < a.size then loop a (i + 1) (acc + a[i]!) else acc\n"
        "termination_by a.size - i\n"
    )
    found = section_mutations("code_aux", aux)
    touched = {aux[m.edits[0].start : m.edits[0].end] for m in found if m.edits[0].end > m.edits[0].start}
    assert "+" in touched  # `acc + a[i]!`
    step = aux.index("(i + 1)")
    assert not any(step <= m.edits[0].start < step + 7 for m in found)
    assert all(m.line != 3 for m in found)  # termination_by


def test_where_helpers_with_arms_at_their_own_column() -> None:
    code = (
        "  go n 0\n"
        "  where\n"
        "  go : Nat → Nat → Nat\n"
        "  | 0, acc => acc\n"
        "  | n + 1, acc => go (n / 2) (acc + n)\n"
    )
    found = section_mutations("code", code, recursive_names=["f"])
    assert {m.line for m in found} == {1, 5}
    assert not any(code.index("(n / 2)") <= m.edits[0].start < code.index("(n / 2)") + 7 for m in found)


def test_name_swaps_need_a_known_receiver_and_an_unshadowed_name() -> None:
    params = {"xs": parse_type("List Int"), "a": parse_type("Array Int")}
    found = changes("  (xs.take 2, a.take 2, xs.any (· > 0), min 1 2, true)\n", param_types=params)
    assert found.count("take-to-drop") == 1  # only on the List parameter
    assert {"any-to-all", "min-to-max", "true-to-false"} <= set(found)
    shadowed = changes("  let min := 3\n  min + 1\n")
    assert "min-to-max" not in shadowed


def test_ranges_calls_options_and_literals() -> None:
    code = "  (List.range n).map (fun i => if xs.reverse = [] then some i else none) ++ [0:n].toList.map (fun _ => 'a')\n"
    found = changes(code)
    assert {
        "range-arg+1",
        "range-arg-1",
        "range-end+1",
        "range-end-1",
        ".reverse-removed",
        "some-to-none",
    } <= set(found)
    assert "'a'-to-'b'" in found
    by_change = {m.change: m for m in section_mutations("code", code)}
    assert "List.range (n + 1)" in by_change["range-arg+1"].apply(code)
    assert "[0:n - 1]" in by_change["range-end-1"].apply(code)
    assert "then none else" in by_change["some-to-none"].apply(code)


def test_percent_is_not_introduced_when_floats_are_around() -> None:
    assert "/-to-%" in changes("  a / b\n")
    assert "/-to-%" not in changes("  a / b\n", allow_mod=False)


def test_whole_result_mutants_wrap_the_body_before_trailing_clauses() -> None:
    code = "  helper x\n  where\n    helper (y : Nat) : Bool := y > 2\n"
    (negated,) = whole_result_mutations(code, parse_type("Bool"))
    assert negated.apply(code) == "  !(helper x\n  )\n  where\n    helper (y : Nat) : Bool := y > 2\n"
    assert [m.change for m in whole_result_mutations("  n\n", parse_type("Int"))] == ["result+1", "result-1"]
    assert whole_result_mutations("  xs\n", parse_type("List Int")) == []


def test_unbalanced_text_gives_no_mutants() -> None:
    assert section_mutations("code", "  (a + b\n") == []


# ---------------------------------------------------------------------------------------------
# Mutants: the mini tasks


def _significant(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text) if t.kind != EOF]


@pytest.mark.parametrize("name", MINI_TASKS)
def test_mutants_are_single_changes(name: str) -> None:
    task = mini(name)
    for adversary, mutation in zip(mutant_adversaries(task), all_mutations(task)):
        assert adversary.id == mutation.id
        ((section, body),) = adversary.sections.items()
        before, after = _significant(task.section(section)), _significant(body)
        prefix = 0
        while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
            prefix += 1
        suffix = 0
        while suffix < min(len(before), len(after)) - prefix and before[-1 - suffix] == after[-1 - suffix]:
            suffix += 1
        old, new = before[prefix : len(before) - suffix], after[prefix : len(after) - suffix]
        if mutation.family in ("condition", "range", "result"):
            # insertions only: the old tokens survive in order inside the new ones
            remaining = iter(new)
            assert all(tok in remaining for tok in old), adversary.id
            assert len(new) - len(old) <= 4
        else:
            assert len(old) <= 1 and len(new) <= 1 and old != new, (adversary.id, old, new)


def test_mutant_ids_are_unique_stable_and_deterministic() -> None:
    for name in MINI_TASKS:
        first = llm_free_adversaries(mini(name))
        again = llm_free_adversaries(mini(name))
        assert first == again
        assert len({a.id for a in first}) == len(first)
        assert len({tuple(sorted(a.sections.items())) for a in first}) == len(first)
    clamp_ids = {a.id for a in llm_free_adversaries(mini("mini_clamp"))}
    assert {
        "mutant:code:L1C7:<-to-≤",
        "mutant:code:L2C13:<-to->",
        "mutant:code:L1C2:if-negated",
        "template:echo:x",
        "template:max-params",
    } <= clamp_ids


@pytest.mark.parametrize("name", MINI_TASKS)
def test_adversaries_pass_the_safety_screen(name: str) -> None:
    for adversary in llm_free_adversaries(mini(name)):
        result = screen_sections(adversary.sections)
        assert result.ok, (adversary.id, result.findings)


def test_cap_is_a_seeded_stable_subset_spread_over_families() -> None:
    code = (
        "\n".join(f"  let v{i} := a + {i} * b - c / {i + 1}" for i in range(8))
        + "\n  if v0 < v1 && v2 = 3 then v3 else v4\n"
    )
    task = make_task("h", [("a", "Int"), ("b", "Int"), ("c", "Int")], "Int", code)
    everything = [a.id for a in mutant_adversaries(task, max_mutants=1000)]
    assert len(everything) > 40
    capped = [a.id for a in mutant_adversaries(task, max_mutants=12)]
    assert len(capped) == 12
    assert capped == [i for i in everything if i in set(capped)]  # source order kept
    assert capped == [a.id for a in mutant_adversaries(task, max_mutants=12)]
    other_seed = [a.id for a in mutant_adversaries(task, seed=7, max_mutants=12)]
    assert other_seed != capped
    families = Counter(
        a.description.split("(")[1].split(")")[0] for a in mutant_adversaries(task, max_mutants=12)
    )
    assert len(families) >= 6


def test_most_mini_mutants_are_killed(backend: EmbeddedBackend) -> None:
    killed = evaluated = total = 0
    for name in MINI_TASKS:
        task = mini(name)
        expected = [t.expected for t in typed_view(task).tests]
        for adversary in mutant_adversaries(task):
            total += 1
            answers = code_answers(backend, task, adversary)
            if any(a.status == "value" for a in answers):
                evaluated += 1
            if any(a.status == "value" and not values_equal(a.value, e) for a, e in zip(answers, expected)):
                killed += 1
    assert total >= 20
    assert evaluated == total
    assert killed >= 0.75 * total


def test_negated_result_of_a_bool_task_is_always_wrong(backend: EmbeddedBackend) -> None:
    task = make_task(
        "isPos",
        [("n", "Int")],
        "Bool",
        "  n > 0",
        tests=[({"n": 3}, True), ({"n": -2}, False), ({"n": 0}, False)],
    )
    negated = next(a for a in mutant_adversaries(task) if a.id.endswith(":negate-result"))
    answers = code_answers(backend, task, negated)
    assert [a.value for a in answers] == [False, True, True]


# ---------------------------------------------------------------------------------------------
# Output mutation


@pytest.mark.parametrize(
    "value, type_text",
    [
        (5, "Int"),
        ("[1, 2, 3]", "List Nat"),
        (Arr((1, -2)), "Array Int"),
        (Some(Pair(Nat(1), Nat(2))), "Option (Nat × Nat)"),
        ('"abc"', "String"),
        (True, "Bool"),
        (NONE, "Option Int"),
    ],
)
def test_output_mutants_are_distinct_values_of_the_type(value: Any, type_text: str) -> None:
    ty = parse_type(type_text)
    mutants = mutate_outputs(value, type_text, {}, seed=42, n=6)
    assert mutants == mutate_outputs(value, ty, {}, seed=42, n=6)
    assert 1 <= len(mutants) <= 6
    original = parse_value(value, ty, {})
    assert all(is_valid_value(m, ty, {}) for m in mutants)
    assert not any(values_equal(m, original) for m in mutants)
    assert all(not values_equal(a, b) for i, a in enumerate(mutants) for b in mutants[i + 1 :])


def test_output_mutants_depend_on_the_seed_and_respect_n() -> None:
    first = mutate_outputs("[4, 8, 15, 16, 23, 42]", "List Int", {}, seed=1, n=10)
    second = mutate_outputs("[4, 8, 15, 16, 23, 42]", "List Int", {}, seed=2, n=10)
    assert len(first) == 10 and first != second
    assert mutate_outputs(1, "Int", {}, seed=1, n=0) == []
    assert mutate_outputs("fun x => x > 0", "Int → Bool", {}, seed=1, n=3) == []


# ---------------------------------------------------------------------------------------------
# The whole benchmark


@pytest.mark.data
def test_verina_adversaries_evaluate_and_are_killable(data_dir: Path) -> None:
    """Every task gets adversaries; a sample (all templates, 10 mutants, 3 inputs per task) is
    evaluated with the embedded engine against the stored expected outputs."""
    tasks = load_benchmark(data_dir / "verina").tasks
    backend = EmbeddedBackend(max_steps=300_000, timeout=0.3)
    started = time.monotonic()
    generated: Counter[str] = Counter()
    sampled: Counter[str] = Counter()
    evaluates: Counter[str] = Counter()
    killable: Counter[str] = Counter()
    unscreened = 0
    for task in tasks:
        adversaries = llm_free_adversaries(task)
        assert len({a.id for a in adversaries}) == len(adversaries), task.id
        generated.update(a.source for a in adversaries)
        unscreened += sum(not screen_sections(a.sections).ok for a in adversaries)
        tests = [t for t in typed_view(task).tests if t.args is not None and t.expected_ok][:3]
        if not tests:
            continue
        checks = [Check(kind=CheckKind.CODE, args=t.args) for t in tests]
        for adversary in llm_free_adversaries(task, max_mutants=10):
            sampled[adversary.source] += 1
            answers = backend.run(task.with_sections(**adversary.sections), checks)
            if any(a.status == "value" for a in answers):
                evaluates[adversary.source] += 1
            if any(
                a.status == "value" and not values_equal(a.value, t.expected) for a, t in zip(answers, tests)
            ):
                killable[adversary.source] += 1
    elapsed = time.monotonic() - started
    print(f"\nverina: {len(tasks)} tasks, adversaries generated {dict(generated)}, {elapsed:.1f}s")
    for source in ("template", "mutant"):
        n = sampled[source]
        print(
            f"  {source}: sampled {n}, evaluate {evaluates[source] / n:.1%}, killable {killable[source] / n:.1%}"
        )
    assert unscreened == 0
    assert generated["template"] >= 5 * len(tasks) and generated["mutant"] >= 8 * len(tasks)
    # measured: templates 100% evaluate / 98% killable; mutants 96% / 75%
    assert evaluates["template"] >= 0.97 * sampled["template"]
    assert killable["template"] >= 0.93 * sampled["template"]
    assert evaluates["mutant"] >= 0.9 * sampled["mutant"]
    assert killable["mutant"] >= 0.65 * sampled["mutant"]
