"""Power-guided reduction: flawed-specification columns, boundary tests, unexpected outputs.

The task is the two-argument maximum of test_power.py, written for these tests.
"""

from __future__ import annotations

from stages.power.test_power import max_task
from veriscale.backends.embedded.backend import EmbeddedBackend
from veriscale.lean.types import parse_type
from veriscale.stages.power import flawed_specs
from veriscale.stages.reduce import load_recipe, reduce_task
from veriscale.stages.reduce.boundary import boundary_tests
from veriscale.stages.reduce.flaws import cover_flawed_specs

# Test 0 is the only one whose unexpected output (5: at least a and b, yet neither) catches the
# weakened postcondition `result ≥ a ∧ result ≥ b`; test 1 has a = 0, the only input that
# catches the strengthened precondition `a ≥ 1`.
TESTS = [
    ({"a": 1, "b": 2}, 2, [0, -1, 1, 5]),
    ({"a": 0, "b": 3}, 3, [-3]),
    ({"a": 4, "b": 2}, 4, [3]),
    ({"a": 6, "b": 6}, 6, [2]),
    ({"a": 9, "b": 1}, 9, [8]),
]


def backend() -> EmbeddedBackend:
    return EmbeddedBackend(max_steps=200_000, timeout=2.0)


def test_every_column_the_suite_kills_stays_killed_with_the_killing_output() -> None:
    task = max_task(TESTS)
    flaws = flawed_specs(task, seed=42, max_per_section=40)
    cover = cover_flawed_specs(task, [4], backend(), seed=42, max_per_section=40)
    assert cover.columns == [f.id for f in flaws]
    assert not cover.undecided
    weak = next(f.id for f in flaws if " ".join(f.sections.get("postcond", "").split()) == "result ≥ a ∧ result ≥ b")
    assert cover.killed[weak] == (0, 3)  # test 0, its unexpected output 5
    assert 0 in cover.added
    # a flaw no test kills is not "killed"
    assert len(cover.killed) < len(cover.columns)


def test_lite_keeps_what_kills_and_trims_the_rest() -> None:
    task = max_task(TESTS)
    recipe = load_recipe("lite")
    rules = recipe.tests.model_copy(update={"budget": 0, "boundary": False, "unexpected_per_test": 0,
                                            "keep_original": False})
    recipe = recipe.model_copy(update={"tests": rules})
    reduced, report, _ = reduce_task(task, recipe, backend=backend())
    inputs = [t.input for t in reduced.tests]
    assert {"a": 1, "b": 2} in inputs and {"a": 0, "b": 3} in inputs
    kept = {tuple(sorted(t.input.items())): t.unexpected for t in reduced.tests}
    assert 5 in kept[(("a", 1), ("b", 2))]  # the output that kills the weakened postcondition
    assert report.flawed_columns > 0 and report.flawed_killed > 0 and report.flaw_tests == len(reduced.tests)
    # without the flawed-spec columns (and no kill matrix) nothing is kept
    plain = recipe.model_copy(update={"tests": rules.model_copy(update={"columns": ["adversaries"]})})
    none, _, _ = reduce_task(task, plain, backend=backend())
    assert len(none.tests) == 0


def test_flawed_columns_need_an_engine() -> None:
    import pytest

    with pytest.raises(ValueError, match="engine"):
        reduce_task(max_task(TESTS), load_recipe("lite"))


def test_boundary_tests_pick_zero_duplicates_and_extremes() -> None:
    inputs = [{"xs": "[3, 1, 2]"}, {"xs": "[]"}, {"xs": "[5]"}, {"xs": "[2, 2]"}, {"xs": "[0, 7]"},
              {"xs": "[1000000, 1]"}, {"xs": "[1, 2, 3, 4, 5, 6, 7, 8]"}, {"xs": "[4, 6]"}]
    types = {"xs": parse_type("List Int")}
    chosen = boundary_tests(inputs, types, {}, eligible=list(range(len(inputs))))
    assert {1, 2, 3, 4, 5, 6} <= set(chosen)  # empty, singleton, duplicate, zero, extreme, largest
    assert 7 not in chosen  # nothing special about [4, 6]
    assert boundary_tests(inputs, types, {}, eligible=[7]) == [7]
