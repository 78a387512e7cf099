"""LLM-free candidate inputs: synthesis, mutation, de-duplication (veriscale.generate.inputs)."""

from __future__ import annotations

import hashlib
import math
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from veriscale.generate import (
    dedupe,
    is_valid_row,
    mutate,
    mutate_traced,
    synthesize,
    unsupported_parameters,
)
from veriscale.generate.value_space import ValuePools
from veriscale.lean.codec import LeanSource, ValueParseError, parse_lean, parse_value, render_value, to_json
from veriscale.lean.types import LeanType, NamedType, ProdType, StructDef, parse_structures, parse_type
from veriscale.lean.values import NONE, Arr, Char, Nat, Pair, Some, Struct, UInt8, UInt16, values_equal
from veriscale.typed_task import typed_input_key

STRUCTS: dict[str, StructDef] = parse_structures(
    """structure Bag (K V : Type) [BEq K] where
  items : List (K × V)
  total : Nat
deriving Inhabited

structure Point where
  x : Int
  y : Int
"""
)

# Every type form of the benchmark data, plus neighbours of the same shapes.
TYPE_FORMS = [
    "Nat",
    "Int",
    "Bool",
    "Char",
    "String",
    "Float",
    "UInt8",
    "UInt16",
    "List Int",
    "List Nat",
    "List (Int)",
    "Array Int",
    "Array Nat",
    "Array Char",
    "List Char",
    "List Float",
    "List String",
    "List (List Nat)",
    "Array (Array Nat)",
    "List (Prod Nat Nat)",
    "List (Int × Int)",
    "Nat × String × Bool",
    "Option Nat",
    "Option (Int × Char)",
    "Option (Option Nat)",
    "List (Option Nat)",
    "Array String",
    "Bag Int Int",
    "Point",
    "Int -> Bool",
    "Nat -> Bool",
    "Nat -> Nat",
]

MAX_LEN = 50
MAX_ABS = 2**63


def _check_value(v: Any, ty: LeanType, structs: dict[str, StructDef] = STRUCTS) -> None:
    """Fail unless ``v`` is a well-formed runtime value of ``ty`` within the size bounds.

    Independent of the generator's own validator: render as Lean, read back strictly (no UInt
    wrapping), compare, read the storage encoding back, and walk the value by its type.
    """
    text = render_value(v, ty, structs)
    back = parse_lean(text, ty, structs)
    if isinstance(v, LeanSource):
        assert back == LeanSource(v.text.strip())
        return
    assert values_equal(back, v), (text, v)
    assert values_equal(parse_value(to_json(v, ty, structs), ty, structs), v), text
    _walk(v, ty, structs)


def _walk(v: Any, ty: LeanType, structs: dict[str, StructDef]) -> None:
    if isinstance(ty, ProdType):
        assert isinstance(v, Pair)
        _walk(v.fst, ty.fst, structs)
        _walk(v.snd, ty.snd, structs)
        return
    assert isinstance(ty, NamedType)
    name = ty.name
    if name == "Nat":
        assert type(v) is Nat and v >= 0
    elif name == "Int":
        assert type(v) is int and abs(v) <= MAX_ABS
    elif name == "UInt8":
        assert type(v) is UInt8 and 0 <= v <= 255
    elif name == "UInt16":
        assert type(v) is UInt16 and 0 <= v < 2**16
    elif name == "Bool":
        assert type(v) is bool
    elif name == "Float":
        assert type(v) is float
    elif name == "Char":
        assert type(v) is Char and len(v) == 1 and not 0xD800 <= ord(v) <= 0xDFFF
    elif name == "String":
        assert type(v) is str and len(v) <= MAX_LEN
    elif name in ("List", "Array"):
        assert type(v) is (tuple if name == "List" else Arr)
        assert len(v) <= MAX_LEN
        for x in v:
            _walk(x, ty.args[0], structs)
    elif name == "Option":
        assert v is NONE or isinstance(v, Some)
        if isinstance(v, Some):
            _walk(v.value, ty.args[0], structs)
    elif name in structs:
        assert isinstance(v, Struct) and v.type_name == name
        for field, (field_name, field_value) in zip(structs[name].fields_for(ty), v.fields):
            assert field.name == field_name
            _walk(field_value, field.type, structs)
    else:
        raise AssertionError(f"unexpected type {ty}")


def _rendered(
    rows: list[dict[str, Any]], types: dict[str, LeanType], structs: dict[str, StructDef] = STRUCTS
) -> list[str]:
    return [typed_input_key(r, types, structs) for r in rows]


def _one(text: str) -> dict[str, LeanType]:
    return {"x": parse_type(text)}


# ---------------------------------------------------------------------------------------------
# Synthesis


@pytest.mark.parametrize("type_text", TYPE_FORMS)
def test_synthesis_gives_valid_distinct_values_for_every_type_form(type_text: str) -> None:
    types = _one(type_text)
    rows = synthesize(types, STRUCTS, seed=7, limit=120)
    assert len(rows) >= 2
    for row in rows:
        assert set(row) == {"x"}
        _check_value(row["x"], types["x"])
        assert is_valid_row(row, types, STRUCTS)
    keys = _rendered(rows, types)
    assert len(set(keys)) == len(keys)


def _values(type_text: str, limit: int = 200) -> list[Any]:
    return [row["x"] for row in synthesize(_one(type_text), STRUCTS, seed=1, limit=limit)]


def test_scalar_boundaries_are_present() -> None:
    nats = _values("Nat")
    assert {0, 1, 2} <= set(nats) and max(nats) >= 10**6
    ints = _values("Int")
    assert {0, 1, -1, 2, -2} <= set(ints) and min(ints) <= -(10**6) and max(ints) >= 10**6
    assert set(_values("Bool")) == {False, True}
    assert {0, 1, 127, 128, 255} <= {int(v) for v in _values("UInt8")}
    chars = _values("Char")
    assert {"a", "Z", "0", " "} <= set(chars) and any(ord(c) > 127 for c in chars)
    strings = _values("String")
    assert "" in strings and any(len(s) == 1 for s in strings)
    assert any(len(s) > 2 and s == s[::-1] for s in strings)  # palindrome
    assert any(" " in s for s in strings) and any(s.isdigit() for s in strings)
    assert any(any(ord(c) > 127 for c in s) for s in strings)
    assert any(len(s) >= 3 and len(set(s)) == 1 for s in strings)  # repeated character
    floats = _values("Float")
    assert any(math.isnan(f) for f in floats) and any(f == 0.0 and math.copysign(1, f) < 0 for f in floats)
    assert 0.0 in floats and 1.5 in floats and any(f < 0 for f in floats)


def test_sequence_forms_are_present() -> None:
    lists = [list(v) for v in _values("List Int", limit=40)]
    assert [] in lists
    assert any(len(xs) == 1 for xs in lists)
    assert any(len(xs) == 2 and xs[0] == xs[1] for xs in lists)
    assert any(len(xs) >= 3 and xs == sorted(xs) and len(set(xs)) == len(xs) for xs in lists)
    assert any(len(xs) >= 3 and xs == sorted(xs, reverse=True) and len(set(xs)) == len(xs) for xs in lists)
    assert any(len(xs) >= 3 and len(set(xs)) == 1 for xs in lists)
    assert any(len(set(xs)) < len(xs) and len(set(xs)) > 1 for xs in lists)
    assert any(0 in xs and any(x < 0 for x in xs) for xs in lists)
    assert any(10 <= len(xs) <= 20 for xs in lists)
    grids = _values("Array (Array Nat)", limit=60)
    assert all(isinstance(g, Arr) and all(isinstance(r, Arr) for r in g) for g in grids)
    assert any(len(g) >= 2 and len({len(r) for r in g}) == 1 and len(g[0]) >= 2 for g in grids)  # a matrix
    options = _values("Option Nat")
    assert NONE in options and any(isinstance(o, Some) for o in options)
    bags = _values("Bag Int Int")
    assert any(b.get("items") == () for b in bags) and any(len(b.get("items")) >= 2 for b in bags)


def test_covering_selection_uses_every_boundary_value_and_small_pairs() -> None:
    types = {"a": parse_type("Int"), "b": parse_type("List Nat")}
    rows = synthesize(types, STRUCTS, seed=3, limit=150)
    assert len(rows) == 150
    covering = rows[:60]  # the deterministic covering part comes first
    assert set(ValuePools(STRUCTS).pool(types["a"])) <= {row["a"] for row in covering}
    pool_b = {render_value(v, types["b"]) for v in ValuePools(STRUCTS).pool(types["b"])}
    assert pool_b <= {render_value(r["b"], types["b"]) for r in covering}
    pairs = {(row["a"], row["b"]) for row in rows}
    for a in (0, 1, -1):
        for b in ((), (Nat(0),)):
            assert (a, b) in pairs
    keys = _rendered(rows, types)
    assert len(set(keys)) == len(keys)


def test_synthesis_respects_limit_and_scales_to_many_parameters() -> None:
    types = {f"p{i}": parse_type(t) for i, t in enumerate(["Nat", "Int", "String", "List Int", "Char"])}
    rows = synthesize(types, STRUCTS, seed=0, limit=50)
    assert len(rows) == 50
    assert all(is_valid_row(r, types, STRUCTS) for r in rows)
    assert synthesize(types, STRUCTS, seed=0, limit=0) == []


def test_unsupported_types_are_reported_not_guessed() -> None:
    types = {"n": parse_type("Nat"), "s": parse_type("Std.HashMap Nat Nat"), "f": parse_type("String → Bool")}
    assert unsupported_parameters(types, STRUCTS) == ["s", "f"]
    assert synthesize(types, STRUCTS, seed=0) == []


# ---------------------------------------------------------------------------------------------
# Determinism


def _digest(
    rows: list[dict[str, Any]], types: dict[str, LeanType], structs: dict[str, StructDef] = STRUCTS
) -> str:
    return hashlib.sha256("\n\n".join(_rendered(rows, types, structs)).encode()).hexdigest()


DETERMINISM_TYPES = {"xs": "List Int", "s": "String", "m": "Bag Int Int", "c": "Char"}
DETERMINISM_SEEDS = [
    {"xs": "[3, 1, 2]", "s": "abc", "m": "{ items := [(1, 2)], total := 1 }", "c": "q"},
    {"xs": "[]", "s": "", "m": "{ items := [], total := 0 }", "c": "é"},
]


def _determinism_run(seed: int) -> tuple[str, str]:
    types = {k: parse_type(v) for k, v in DETERMINISM_TYPES.items()}
    synthesized = synthesize(types, STRUCTS, seed=seed, limit=80, salt="task")
    mutants = mutate(DETERMINISM_SEEDS, types, STRUCTS, seed=seed, salt="task")
    return _digest(synthesized, types), _digest(mutants, types)


def test_same_seed_same_candidates_and_different_seed_differs() -> None:
    assert _determinism_run(5) == _determinism_run(5)
    other = _determinism_run(6)
    here = _determinism_run(5)
    assert other[0] != here[0] and other[1] != here[1]
    types = {k: parse_type(v) for k, v in DETERMINISM_TYPES.items()}
    salted = synthesize(types, STRUCTS, seed=5, limit=80, salt="another task")
    assert _digest(salted, types) != here[0]


def test_candidates_are_identical_across_processes() -> None:
    """Python's str hash is randomized per process; the generators must not depend on it."""
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}); import generate.test_generate_inputs as t; "
        "print(*t._determinism_run(5))"
    )
    outputs = set()
    for hash_seed in ("1", "2"):
        project_root = str(Path(__file__).resolve().parents[2])
        env = {"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin", "PYTHONPATH": project_root}
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, timeout=120
        )
        outputs.add(result.stdout.strip())
    assert outputs == {" ".join(_determinism_run(5))}


# ---------------------------------------------------------------------------------------------
# Mutation


@pytest.mark.parametrize("type_text", TYPE_FORMS)
def test_mutants_of_every_type_form_are_valid(type_text: str) -> None:
    types = {"x": parse_type(type_text), "n": parse_type("Nat")}
    seeds = synthesize(types, STRUCTS, seed=11, limit=12)
    mutants = mutate_traced(seeds, types, STRUCTS, seed=4, per_seed=10)
    assert mutants
    seed_keys = set(_rendered(seeds, types))
    keys = _rendered([m.row for m in mutants], types)
    assert len(set(keys)) == len(keys) and not seed_keys & set(keys)
    for m in mutants:
        for name, ty in types.items():
            _check_value(m.row[name], ty)
    assert any(step.parameter == "x" for m in mutants for step in m.steps)


def test_mutation_respects_per_seed_and_chain_bounds() -> None:
    types = {"xs": parse_type("List Int"), "k": parse_type("Nat"), "s": parse_type("String")}
    seeds = [{"xs": "[5, 3, 8, 1]", "k": 2, "s": "level"}, {"xs": "[0]", "k": 0, "s": ""}]
    for per_seed, max_chain in ((15, 5), (4, 1), (7, 2)):
        mutants = mutate_traced(seeds, types, STRUCTS, per_seed=per_seed, max_chain=max_chain)
        counts = Counter(m.seed_index for m in mutants)
        assert set(counts) == {0, 1} and max(counts.values()) <= per_seed
        typed_seeds = dedupe(seeds, types, STRUCTS)
        for m in mutants:
            assert 1 <= len(m.steps) <= max_chain
            origin = typed_seeds[m.seed_index]
            changed = [
                n for n in types if render_value(m.row[n], types[n]) != render_value(origin[n], types[n])
            ]
            assert 1 <= len(changed) <= len({s.parameter for s in m.steps})
    assert mutate(seeds, types, STRUCTS, per_seed=0) == []
    with pytest.raises(ValueError):
        mutate(seeds, types, STRUCTS, max_chain=0)


def test_default_mutation_fills_per_seed_for_rich_types() -> None:
    types = {"xs": parse_type("Array Int"), "s": parse_type("String")}
    seeds = [{"xs": "#[1, 2, 3]", "s": "abc"}, {"xs": "#[9, -4]", "s": "zz"}]
    mutants = mutate_traced(seeds, types, STRUCTS)
    assert Counter(m.seed_index for m in mutants) == {0: 15, 1: 15}


def test_ingredient_reuse_rate_is_about_the_configured_probability() -> None:
    types = {"xs": parse_type("List Int"), "n": parse_type("Int"), "s": parse_type("String")}
    seeds = [
        {"xs": "[4, 9, -3, 12]", "n": 17, "s": "apple"},
        {"xs": "[100, 7]", "n": -8, "s": "kiwi"},
        {"xs": "[]", "n": 0, "s": "melon pie"},
        {"xs": "[55, 55, 1]", "n": 31, "s": "x"},
    ]
    steps = [s for m in mutate_traced(seeds, types, STRUCTS, seed=42) for s in m.steps]
    assert len(steps) > 100
    rate = sum(s.ingredient for s in steps) / len(steps)
    assert 0.2 <= rate <= 0.4, rate
    none = [s for m in mutate_traced(seeds, types, STRUCTS, ingredient_prob=0.0) for s in m.steps]
    assert not any(s.ingredient for s in none)
    always = [s for m in mutate_traced(seeds, types, STRUCTS, ingredient_prob=1.0) for s in m.steps]
    assert sum(s.ingredient for s in always) / len(always) >= 0.9


def test_ingredients_come_from_the_seeds() -> None:
    types = {"n": parse_type("Int"), "xs": parse_type("List Int")}
    seeds = [{"n": 1234, "xs": "[777]"}, {"n": -55, "xs": "[31, 32]"}]
    seen_ints = {1234, -55, 777, 31, 32}
    mutants = mutate_traced(seeds, types, STRUCTS, ingredient_prob=1.0, max_chain=1, per_seed=30)
    whole = [m for m in mutants if m.steps[0].operator == "ingredient" and m.steps[0].parameter == "n"]
    assert whole and all(m.row["n"] in seen_ints for m in whole)
    elementwise = [m for m in mutants if m.steps[0].operator.startswith("ingredient_")]
    assert elementwise
    for m in elementwise:
        origin = dedupe([seeds[m.seed_index]], types, STRUCTS)[0]["xs"]
        added = Counter(m.row["xs"]) - Counter(origin)
        assert set(added) <= seen_ints


def _operators(type_text: str, seed_text: Any, runs: int = 400) -> set[str]:
    types = {"x": parse_type(type_text)}
    seeds = [{"x": seed_text}]
    found: set[str] = set()
    for i in range(runs // 20):
        for m in mutate_traced(seeds, types, STRUCTS, seed=i, per_seed=20, max_chain=1, ingredient_prob=0.0):
            found.add(m.steps[0].operator)
    return found


def test_operators_per_type() -> None:
    assert {"inc", "dec", "double", "negate", "zero", "boundary", "nearby"} <= _operators("Int", 6)
    assert {"inc", "dec", "double", "zero", "boundary"} <= _operators("Nat", 6)
    assert _operators("Bool", True) == {"flip"}
    assert {"neighbour", "case_swap", "digit", "space"} <= _operators("Char", "m")
    assert {
        "insert_char", "delete_char", "replace_char", "swap_chars", "duplicate", "reverse", "empty",
        "change_case",
    } <= _operators("String", "abcd")  # fmt: skip
    assert {
        "insert", "delete", "replace", "swap", "duplicate_element", "sort", "reverse", "empty",
        "singleton", "append",
    } <= _operators("List Int", "[3, 1, 2]")  # fmt: skip
    assert any(op.startswith("element>") for op in _operators("Array Nat", "#[3, 1, 2]"))
    option_ops = _operators("Option Int", "some 4")
    assert "to_none" in option_ops and any(op.startswith("inside>") for op in option_ops)
    assert "to_some" in _operators("Option Int", "none")
    assert any(op.startswith("fst>") for op in _operators("Nat × Int", "(1, 2)"))
    assert any(
        op.startswith("field[items]>")
        for op in _operators("Bag Int Int", "{ items := [(1, 2)], total := 1 }")
    )
    assert {"other_function", "tweak_literal"} <= _operators("Int -> Bool", "fun x => x > 5")
    assert {"inc", "dec", "double", "zero", "negate"} <= _operators("Float", 1.5)


def test_mutation_keeps_values_in_type_and_size_bounds() -> None:
    types = {
        "u": parse_type("UInt8"),
        "n": parse_type("Nat"),
        "xs": parse_type("List Nat"),
        "s": parse_type("String"),
        "c": parse_type("Char"),
        "p": parse_type("Nat -> Bool"),
    }
    seeds = [
        {
            "u": 255,
            "n": 0,
            "xs": "[" + ", ".join(["7"] * 50) + "]",
            "s": "z" * 50,
            "c": "\U0010ffff",
            "p": "fun x => x > 0",
        },
        {"u": 0, "n": 2**63, "xs": "[]", "s": "", "c": "\ud7ff", "p": "fun _ => true"},
    ]
    mutants = mutate(seeds, types, STRUCTS, per_seed=60, max_chain=5)
    assert len(mutants) > 60
    us = {int(m["u"]) for m in mutants}
    assert {0, 255} & us and 254 in us  # wrap-around and decrement at the edges stay in 0..255
    for row in mutants:
        for name, ty in types.items():
            _check_value(row[name], ty)
        assert "-" not in row["p"].text  # literal tweaks never make a Nat literal negative


def test_mutation_accepts_stored_encodings_of_seeds() -> None:
    types = {"a": parse_type("Array Int")}
    runtime = mutate([{"a": Arr((1, 2, 3))}], types, STRUCTS)
    stored = mutate([{"a": "#[1, 2, 3]"}], types, STRUCTS)
    json_list = mutate([{"a": [1, 2, 3]}], types, STRUCTS)
    assert _rendered(runtime, types) == _rendered(stored, types) == _rendered(json_list, types)


# ---------------------------------------------------------------------------------------------
# Dedupe


def test_dedupe_keeps_the_first_row_of_each_canonical_key_across_encodings() -> None:
    types = {"xs": parse_type("List Nat"), "s": parse_type("String")}
    rows = [
        {"xs": "[1, 2]", "s": "a"},
        {"xs": [1, 2], "s": "a"},
        {"xs": (Nat(1), Nat(2)), "s": "a"},
        {"xs": "[1,2]", "s": "b"},
        {"xs": " [ 1 , 2 ] ", "s": "a"},
        {"xs": "[]", "s": "a"},
    ]
    result = dedupe(rows, types, STRUCTS)
    assert [(list(r["xs"]), r["s"]) for r in result] == [([1, 2], "a"), ([1, 2], "b"), ([], "a")]
    assert all(type(x) is Nat for r in result for x in r["xs"])
    arrays = dedupe([{"a": "#[1]"}, {"a": [1]}], {"a": parse_type("Array Int")}, STRUCTS)
    assert len(arrays) == 1
    floats = dedupe(
        [{"f": 0.0}, {"f": -0.0}, {"f": "Float.nan"}, {"f": math.nan}], {"f": parse_type("Float")}, STRUCTS
    )
    assert len(floats) == 3  # -0.0 differs from 0.0 (Lean prints them differently); NaN equals NaN


def test_dedupe_rejects_or_drops_rows_that_do_not_fit() -> None:
    types = {"n": parse_type("Nat")}
    rows = [{"n": 1}, {"n": -1}, {"m": 1}, {"n": 1}]
    with pytest.raises(ValueParseError):
        dedupe(rows, types, STRUCTS)
    assert dedupe(rows, types, STRUCTS, on_invalid="drop") == [{"n": Nat(1)}]


# ---------------------------------------------------------------------------------------------
# The whole benchmark


@pytest.mark.data
def test_synthesis_and_mutation_on_every_verina_task(data_dir: Path) -> None:
    from veriscale.benchmark import load_benchmark
    from veriscale.typed_task import typed_view

    bench = load_benchmark(data_dir / "verina")
    assert bench.tasks and not bench.failures
    started = time.perf_counter()
    totals = Counter()
    for task in bench.tasks:
        view = typed_view(task)
        types, structs = view.param_types, view.structs
        assert unsupported_parameters(types, structs) == [], task.id
        seeds = [t.args for t in view.tests if t.args is not None]
        synthesized = synthesize(types, structs, seed=0, salt=task.id)
        mutants = mutate(seeds, types, structs, salt=task.id)
        assert synthesized and mutants, task.id
        for row in [*synthesized, *mutants]:
            for name, ty in types.items():
                _check_value(row[name], ty, structs)
        again = mutate(seeds, types, structs, salt=task.id)
        assert _digest(again, types, structs) == _digest(mutants, types, structs), task.id
        candidates = dedupe([*synthesized, *mutants], types, structs)
        totals["tasks"] += 1
        totals["synthesized"] += len(synthesized)
        totals["mutants"] += len(mutants)
        totals["candidates"] += len(candidates)
    elapsed = time.perf_counter() - started
    print(
        f"\n{totals['tasks']} tasks: {totals['synthesized']} synthesized, {totals['mutants']} mutants, "
        f"{totals['candidates']} candidates after dedupe "
        f"({totals['candidates'] / totals['tasks']:.1f} per task), {elapsed:.1f}s including validation"
    )
