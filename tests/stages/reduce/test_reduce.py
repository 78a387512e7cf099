"""Suite reduction: set cover, budget fill, reject-input buckets, recipes, and a whole suite run.

All examples are small and hand-made; the published data is checked in test_reduce_data.py.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES_DIR

from veriscale.lean.codec import parse_value
from veriscale.lean.types import parse_type
from veriscale.stages.reduce import (
    Recipe,
    RecipeError,
    exact_cover,
    exact_solver_name,
    fill_by_kills,
    greedy_cover,
    load_recipe,
    reduce_reject_inputs,
    reduce_suite,
    select_tests,
)
from veriscale.stages.reduce import cover as cover_module
from veriscale.stages.reduce.rejects import (
    ValueKind,
    analyse_row,
    is_index_name,
    published_canonical_text,
    published_value_view,
    typed_value_view,
)
from veriscale.task import RejectInput, TestCase, load_task, write_task


def kill_sets(*rows: str) -> list[frozenset[str]]:
    """``kill_sets("ab", "", "c")``: test 0 kills a and b, test 1 nothing, test 2 c."""
    return [frozenset(row) for row in rows]


def union(sets: list[frozenset[str]], picked: list[int]) -> set[str]:
    return set().union(*(sets[i] for i in picked)) if picked else set()


# ---------------------------------------------------------------------------------------------
# Greedy cover


def test_greedy_cover_of_nothing_is_empty() -> None:
    assert greedy_cover([]) == []
    assert greedy_cover(kill_sets("", "", "")) == []


def test_greedy_takes_most_new_kills_first() -> None:
    kills = kill_sets("a", "abc", "cd", "d")
    # abc (3 new), then d: cd and d both add one new kill; cd has more kills in total.
    assert greedy_cover(kills) == [1, 2]


def test_greedy_ties_go_to_more_total_kills_then_lowest_position() -> None:
    # After "abc" only d is left: tests 1, 2 and 3 each add d; 2 and 3 kill two in total.
    kills = kill_sets("abc", "d", "ad", "bd")
    assert greedy_cover(kills) == [0, 2]
    # Identical candidates: the lowest position wins.
    assert greedy_cover(kill_sets("ab", "ab", "ab")) == [0]


def test_greedy_with_one_dominating_test() -> None:
    kills = kill_sets("ab", "abcde", "e", "cd")
    assert greedy_cover(kills) == [1]


def test_greedy_is_not_always_minimal() -> None:
    # The classic: the biggest set first costs one test more than {0, 1}.
    kills = kill_sets("abc", "def", "abde")
    assert greedy_cover(kills) == [2, 0, 1]


def test_forced_tests_count_as_covered() -> None:
    kills = kill_sets("abc", "def", "abde")
    assert greedy_cover(kills, forced=[0]) == [1]
    assert greedy_cover(kills, forced=[0, 1]) == []


def test_covers_keep_every_killed_adversary_on_random_matrices() -> None:
    rng = random.Random(7)
    for _ in range(60):
        tests = rng.randint(0, 12)
        adversaries = "abcdefghij"[: rng.randint(1, 10)]
        kills = [frozenset(a for a in adversaries if rng.random() < 0.25) for _ in range(tests)]
        killed = union(kills, list(range(tests)))
        cover = greedy_cover(kills)
        assert union(kills, cover) == killed
        assert len(set(cover)) == len(cover)
        for budget in (0, 3, 50):
            selection = select_tests(kills, budget)
            assert union(kills, selection.selected) == killed
            assert len(selection.selected) == max(len(cover), min(budget, tests))
            assert selection.selected == sorted(selection.selected)


# ---------------------------------------------------------------------------------------------
# Budget fill and selection


def test_fill_by_kill_count_then_position() -> None:
    kills = kill_sets("a", "", "bc", "d", "ef", "")
    assert fill_by_kills(kills, [2], 4, eligible=range(6)) == [4, 0, 3]
    assert fill_by_kills(kills, [2], 1, eligible=range(6)) == []
    assert fill_by_kills(kills, [], 6, eligible=[1, 5, 0]) == [0, 1, 5]


def test_select_tests_covers_then_fills_in_position_order() -> None:
    kills = kill_sets("", "ab", "b", "", "c", "a")
    selection = select_tests(kills, 3)
    assert selection.cover == [1, 4]
    assert selection.fill == [2]  # one kill beats none; 2 is before 5
    assert selection.selected == [1, 2, 4]
    assert not selection.over_budget


def test_select_tests_keeps_a_cover_larger_than_the_budget() -> None:
    kills = kill_sets("a", "b", "c", "")
    selection = select_tests(kills, 2)
    assert selection.selected == [0, 1, 2]
    assert selection.over_budget
    assert selection.fill == []


def test_select_tests_forced_outside_budget_and_fill_eligibility() -> None:
    kills = kill_sets("a", "a", "b", "", "", "")
    selection = select_tests(kills, 2, forced=[0, 4], fill_eligible=[1, 2, 3, 5])
    assert selection.forced == [0, 4]
    assert selection.cover == [2]
    assert selection.fill == [1]
    assert selection.selected == [0, 1, 2, 4]
    with pytest.raises(ValueError):
        select_tests(kills, 2, forced=[9])
    with pytest.raises(ValueError):
        select_tests(kills, -1)


def test_exact_cover_finds_the_minimum() -> None:
    pytest.importorskip("pulp")
    kills = kill_sets("abc", "def", "abde", "")
    assert exact_cover(kills) == [0, 1]
    selection = select_tests(kills, 2, method="exact")
    assert (selection.greedy_size, selection.exact_size) == (3, 2)
    assert selection.selected == [0, 1]
    assert exact_cover(kill_sets("", "")) == []
    # Equal kill sets: the lowest position stands for them; prefer tests with more kills.
    assert exact_cover(kill_sets("ab", "ab", "abx", "b")) == [2]


def test_exact_cover_never_beaten_by_greedy_on_random_matrices() -> None:
    pytest.importorskip("pulp")
    rng = random.Random(11)
    for _ in range(8):
        kills = [frozenset(a for a in "abcdefgh" if rng.random() < 0.3) for _ in range(10)]
        exact = exact_cover(kills)
        assert union(kills, exact) == union(kills, list(range(10)))
        assert len(exact) <= len(greedy_cover(kills))


# ---------------------------------------------------------------------------------------------
# Reject inputs: how values are seen


@pytest.mark.parametrize(
    ("raw", "kind", "length", "numbers"),
    [
        (7, ValueKind.INT, 0, (7,)),
        (" 1", ValueKind.INT, 0, (1,)),
        ("-12", ValueKind.INT, 0, (-12,)),
        ("０１", ValueKind.INT, 0, (1,)),  # Unicode digits are digits
        (True, ValueKind.BOOL, 0, ()),
        (2.5, ValueKind.UNKNOWN, 0, ()),
        ([], ValueKind.INT_SEQ, 0, ()),
        ("[ ]", ValueKind.INT_SEQ, 0, ()),
        ("#[1, -2, 3]", ValueKind.INT_SEQ, 3, (1, -2, 3)),
        ([4, 0], ValueKind.INT_SEQ, 2, (4, 0)),
        ("[(1, 2), (3, 4)]", ValueKind.MIXED_SEQ, 4, ()),  # comma-separated pieces, no numbers
        ([[1, 2], [0]], ValueKind.MIXED_SEQ, 2, (1, 2, 0)),  # nested JSON numbers count
        ([1.5, 2], ValueKind.MIXED_SEQ, 2, (2,)),
        ("", ValueKind.STRING, 0, ()),
        ("abc", ValueKind.STRING, 3, ()),
        ("[1, 2,]", ValueKind.MIXED_SEQ, 3, ()),
    ],
)
def test_published_value_view(raw: Any, kind: ValueKind, length: int, numbers: tuple[int, ...]) -> None:
    view = published_value_view(raw)
    assert (view.kind, view.length, view.numbers) == (kind, length, numbers)


def test_typed_value_view_sees_numbers_inside_products() -> None:
    pairs = typed_value_view(parse_value("[(0, -1), (5, 6)]", "List (Int × Int)"))
    assert (pairs.kind, pairs.length, pairs.numbers) == (ValueKind.MIXED_SEQ, 2, (0, -1, 5, 6))
    array = typed_value_view(parse_value("#[3, 3]", "Array Nat"))
    assert (array.kind, array.items) == (ValueKind.INT_SEQ, (3, 3))
    assert typed_value_view(parse_value("7", "Nat")).kind is ValueKind.INT
    assert typed_value_view(parse_value("ab", "String")).length == 2


@pytest.mark.parametrize(
    ("name", "index"),
    [("i", True), ("k", True), ("pos", True), ("endIdx", True), ("startIndex", True), ("end", True)],
)
def test_index_names(name: str, index: bool) -> None:
    assert is_index_name(name) is index


@pytest.mark.parametrize("name", ["n", "sStart", "len", "target", "indices"])
def test_not_index_names(name: str) -> None:
    assert not is_index_name(name)


def analyse(row: dict[str, Any]) -> Any:
    return analyse_row(
        {name: published_value_view(v) for name, v in row.items()}, published_canonical_text(row)
    )


def test_features_and_buckets_of_a_row() -> None:
    row = analyse({"xs": "[3, 3, 0]", "ys": [-1], "k": 0, "n": -5})
    assert row.features == {
        "xs:has_duplicate",
        "xs:sorted_descending",
        "ys:singleton",
        "ys:all_same",  # a singleton is all same but not sorted
        "has_zero",
        "has_minus_one",
        "has_negative",
        "sequence_lengths_mismatch",
    }
    assert row.buckets == {
        "xs:sequence_has_zero",
        "xs:sequence_has_duplicate",
        "xs:unsorted_sequence",
        "ys:sequence_has_negative",
        "ys:singleton_sequence",
        "k:zero_index",
        "n:negative_scalar",
        "length_mismatch",
    }
    assert row.size == 3 + 1 + 1 + 1
    assert row.best_rank == 1  # length_mismatch
    assert row.priority == (1, 6, -16, '{"k":0,"n":-5,"xs":"[3, 3, 0]","ys":[-1]}')
    assert row.shape == (
        ("k", "int scalar", "0"),
        ("n", "int scalar", "0"),
        ("xs", "int sequence", "3"),
        ("ys", "int sequence", "1"),
    )


def test_big_magnitude_and_length_buckets() -> None:
    row = analyse({"xs": list(range(1, 12)), "s": "hello", "m": 1_000_000})
    assert {"has_big_magnitude", "has_one", "xs:sorted_ascending"} <= row.features
    assert dict((name, bucket) for name, _, bucket in row.shape) == {"m": "0", "s": "4-5", "xs": ">10"}
    assert row.best_rank == len(
        [
            "empty",
            "mismatch",
            "neg idx",
            "zero idx",
            "neg",
            "zero",
            "has0",
            "has-",
            "dup",
            "unsorted",
            "single",
        ]
    )


# ---------------------------------------------------------------------------------------------
# Reject inputs: selection

ROWS: list[dict[str, Any]] = [
    {"xs": [3, 1], "k": 2},  # 0: unsorted (rank 9)
    {"xs": [], "k": 5},  # 1: empty (rank 0)
    {"xs": [0], "k": 7},  # 2: contains zero (6), singleton (10)
    {"xs": [4, 5], "k": -1},  # 3: negative index (2)
    {"xs": [4, 5], "k": 9},  # 4: no bucket; same (shape, features) as 5 and 7
    {"xs": [6, 7], "k": 8},  # 5
    {"k": 9, "xs": [4, 5]},  # 6: the same row as 4
    {"xs": [1, 2, 3], "k": 4},  # 7: no bucket, a group of its own (length 3, has one)
    {"xs": [6, 8], "k": 3},  # 8: group of 4 and 5, and first of it by text
]


def test_under_budget_keeps_all_unique_rows_by_priority() -> None:
    reduction = reduce_reject_inputs(ROWS, 50)
    assert reduction.unique == 8 and reduction.duplicates == 1
    assert reduction.kept == [1, 3, 2, 0, 8, 5, 4, 7]
    assert set(reduction.reasons.values()) == {"all"}


def test_over_budget_boundary_then_groups_then_rest() -> None:
    reduction = reduce_reject_inputs(ROWS, 6)
    assert reduction.kept == [1, 3, 2, 0, 8, 7]
    assert reduction.reasons == {
        1: "xs:empty_sequence",
        3: "k:negative_index",
        2: "xs:sequence_has_zero",
        0: "xs:unsorted_sequence",
        8: "group",
        7: "group",
    }
    # One more slot: the best remaining row by priority.
    assert reduce_reject_inputs(ROWS, 7).kept == [1, 3, 2, 0, 8, 7, 5]
    assert reduce_reject_inputs(ROWS, 2).kept == [1, 3]
    assert reduce_reject_inputs(ROWS, 0).kept == []


def test_boundary_rows_are_listed_by_priority_not_bucket_order() -> None:
    rows = [
        {"a": [0, 5], "b": []},  # 0: empty b (rank 0) but bigger than row 1
        {"a": [1], "b": []},  # 1: the best empty-sequence row
        {"a": [2, 3], "b": [2, 3], "i": 0},  # 2: zero index (rank 3)
        {"a": [4, 5], "b": [4, 5], "i": 1},  # 3
        {"a": [6, 7], "b": [6, 7], "i": 2},  # 4
    ]
    # Buckets in rank order pick 1 (empty), 1 (length mismatch), 2 (zero index), then 0 (a
    # contains zero): 0 has a better priority than 2, so it is listed before it.
    assert reduce_reject_inputs(rows, 4).kept == [1, 0, 2, 3]


def test_typed_mode_deduplicates_encodings() -> None:
    rows = [{"xs": "[1, 2]"}, {"xs": [1, 2]}, {"xs": "[1,2]"}, {"xs": "oops"}, {"xs": "[]"}]
    types = {"xs": parse_type("List Int")}
    published = reduce_reject_inputs(rows, 50)
    typed = reduce_reject_inputs(rows, 50, mode="typed", types=types)
    assert published.unique == 5
    assert typed.unique == 3 and typed.duplicates == 2
    assert typed.typed_fallbacks == 1
    assert typed.kept == [4, 0, 3]
    with pytest.raises(ValueError):
        reduce_reject_inputs(rows, 50, mode="typed")


# ---------------------------------------------------------------------------------------------
# Recipes


def test_shipped_recipes() -> None:
    lite = load_recipe("lite")
    assert lite.name == "lite" and lite.source is not None
    assert (lite.tests.mode, lite.tests.budget, lite.tests.cover) == ("cover", 30, "greedy")
    assert (lite.reject_inputs.mode, lite.reject_inputs.budget) == ("boundary", 50)
    plus = load_recipe("plus")
    assert (plus.tests.mode, plus.reject_inputs.mode) == ("all", "all")


def test_recipe_from_path_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text('[tests]\nmode = "cover"\nbudget = 3\n[reject_inputs]\nmode = "boundary"\nbudget = 2\n')
    recipe = load_recipe(path)
    assert recipe.name == "tiny" and recipe.tests.budget == 3 and recipe.reject_inputs.budget == 2
    path.write_text("[tests]\nbudgett = 3\n")
    with pytest.raises(RecipeError, match="budgett"):
        load_recipe(path)
    path.write_text("[tests\n")
    with pytest.raises(RecipeError, match="TOML"):
        load_recipe(path)
    with pytest.raises(RecipeError, match="no recipe named"):
        load_recipe("no-such-recipe")
    with pytest.raises(RecipeError, match="not found"):
        load_recipe(tmp_path / "missing.toml")


# ---------------------------------------------------------------------------------------------
# A whole suite


def make_suite(root: Path) -> Path:
    """A one-task suite from examples/mini/mini_clamp with 8 tests, 4 reject inputs, a kill
    matrix and an expand summary naming 2 original tests."""
    task = load_task(EXAMPLES_DIR / "mini" / "mini_clamp")
    tests = [
        TestCase(input={"x": x, "lo": 0, "hi": 10}, expected=min(max(x, 0), 10), unexpected=[-1])
        for x in range(8)
    ]
    rejects = [RejectInput(input={"x": x, "lo": 5, "hi": 5 - x}) for x in range(1, 5)]
    task = task.model_copy(
        update={"tests": tests, "reject_inputs": rejects, "extra_files": {"notes.md": "keep me\n"}}
    )
    directory = write_task(task, root / task.id)
    matrix = {
        "adversaries": [{"id": name, "source": "template", "description": name} for name in "abcd"],
        "tests": [
            {"test": 0, "key": "k0", "killed_by": ["a"]},
            {"test": 3, "key": "k3", "killed_by": ["b", "c"]},
            {"test": 5, "key": "k5", "killed_by": ["c"]},
            {"test": 6, "key": "k6", "killed_by": ["d", "b"]},
        ],
    }
    (directory / "kill_matrix.json").write_text(json.dumps(matrix))
    (directory / "summary.json").write_text(json.dumps({"task": task.id, "tests_original": 2}))
    return root


def tiny_recipe(**tests: Any) -> Recipe:
    return Recipe.model_validate(
        {
            "name": "tiny",
            "tests": {"mode": "cover", "budget": 3, **tests},
            "reject_inputs": {"mode": "boundary", "budget": 2},
        }
    )


def test_reduce_suite_writes_a_reduced_suite(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    report = reduce_suite(suite, tiny_recipe(), tmp_path / "out")
    (item,) = report.tasks
    assert item.status == "reduced" and item.original_source == "summary"
    # Originals 0 and 1 are forced (a is covered by 0); the cover adds 6 (b, d) then 3 or 5 for c:
    # 3 (kills 2) beats 5 (kills 1). The fill adds 5 (one kill) to reach 3 beyond the originals.
    assert item.kept_tests == [0, 1, 3, 5, 6]
    assert (item.tests_before, item.tests_after, item.tests_original) == (8, 5, 2)
    assert (item.killed_before, item.killed_after) == (4, 4)
    assert (item.cover_size, item.greedy_cover_size, item.fill) == (2, 2, 1)
    assert (item.rejects_before, item.rejects_after) == (4, 2)
    assert item.checks_before == 8 + 8 + 4 and item.checks_after == 5 + 5 + 2

    out = tmp_path / "out" / "mini_clamp"
    tests = json.loads((out / "test.json").read_text())
    assert [t["input"]["x"] for t in tests] == [0, 1, 3, 5, 6]
    matrix = json.loads((out / "kill_matrix.json").read_text())
    assert [(t["test"], t["key"]) for t in matrix["tests"]] == [(0, "k0"), (2, "k3"), (3, "k5"), (4, "k6")]
    assert len(matrix["adversaries"]) == 4
    assert (out / "notes.md").read_text() == "keep me\n"
    assert json.loads((out / "summary.json").read_text())["kept_tests"] == [0, 1, 3, 5, 6]
    run = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert run["totals"]["tests_after"] == 5 and run["recipe"]["name"] == "tiny"
    assert "tests 8 -> 5" in report.summary()


def test_reduce_suite_plus_copies_everything(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    report = reduce_suite(suite, "plus", tmp_path / "out")
    (item,) = report.tasks
    assert item.kept_tests == list(range(8)) and item.rejects_after == 4
    source, copy = suite / "mini_clamp", tmp_path / "out" / "mini_clamp"
    for name in ("test.json", "task.lean", "description.txt"):
        assert (copy / name).read_text() == (source / name).read_text()
    assert json.loads((copy / "kill_matrix.json").read_text())["tests"][1]["test"] == 3


def test_reduce_suite_without_kill_matrix_keeps_the_first_tests(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    (suite / "mini_clamp" / "kill_matrix.json").unlink()
    (item,) = reduce_suite(suite, tiny_recipe(), tmp_path / "out").tasks
    assert item.kept_tests == [0, 1, 2, 3, 4] and not item.kill_matrix
    assert any("no kill_matrix.json" in note for note in item.notes)
    assert not (tmp_path / "out" / "mini_clamp" / "kill_matrix.json").exists()


def test_reduce_suite_original_dir_and_exact(tmp_path: Path) -> None:
    pytest.importorskip("pulp")
    suite = make_suite(tmp_path / "suite")
    report = reduce_suite(
        suite, tiny_recipe(budget=0), tmp_path / "out", exact=True, original_dir=EXAMPLES_DIR / "mini"
    )
    (item,) = report.tasks
    # Of mini_clamp's original inputs only x = 5 (lo = 0, hi = 10) is in the suite; it kills c,
    # so the cover needs 0 (a) and 6 (b, d).
    assert item.original_source == "original_dir" and item.tests_original == 1
    assert item.cover_method == "exact" and item.exact_cover_size == item.cover_size == 2
    assert item.killed_after == item.killed_before == 4
    assert report.totals.exact_cover_size == 2 and report.exact_solver is not None


def test_reduce_suite_reports_a_bad_kill_matrix(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    (suite / "mini_clamp" / "kill_matrix.json").write_text(
        json.dumps({"tests": [{"test": 99, "killed_by": []}]})
    )
    report = reduce_suite(suite, tiny_recipe(), tmp_path / "out")
    (item,) = report.tasks
    assert item.status == "error" and "99" in (item.error or "")
    assert report.totals.tasks_failed == 1
    with pytest.raises(ValueError):
        reduce_suite(suite, tiny_recipe(), suite)


@pytest.mark.parametrize("solver", ["HiGHS", "COIN_CMD", "PULP_CBC_CMD"])
def test_exact_cover_with_each_available_solver(solver: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pulp = pytest.importorskip("pulp")
    if solver not in pulp.listSolvers(onlyAvailable=True):
        pytest.skip(f"{solver} is not available")
    monkeypatch.setattr(cover_module, "_SOLVER_PREFERENCE", (solver,))
    assert exact_solver_name() == solver
    assert exact_cover(kill_sets("abc", "def", "abde", "c")) == [0, 1]
