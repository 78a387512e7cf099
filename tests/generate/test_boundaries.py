"""Boundary-aware synthesis and near-miss output mutation."""

from __future__ import annotations

from veriscale.generate.adversaries.outputs import mutate_outputs, near_outputs
from veriscale.generate.boundaries import boundary_rows, spec_numbers
from veriscale.lean.types import parse_type
from veriscale.lean.values import Nat, Some


def test_spec_numbers_ignore_comments_strings_and_identifiers() -> None:
    sections = {
        "precond": "  n ≤ 100 ∧ xs.length > 2 -- not 7\n",
        "postcond": '  result.length = n ∧ s ≠ "42" ∧ f2 x = 0 ∧ y = 1.5\n',
    }
    assert spec_numbers(sections) == [0, 2, 100]


def test_rows_sit_at_and_around_every_bound_and_index() -> None:
    types = {"n": parse_type("Nat"), "xs": parse_type("List Int")}
    rows = boundary_rows(types, {}, {"precond": "  n < 10 ∧ xs.length ≤ 4\n"}, limit=500)
    ns = {int(r["n"]) for r in rows}
    lengths = {len(r["xs"]) for r in rows}
    assert {3, 4, 5, 9, 10, 11, 2**32 - 1, 2**64} <= ns
    assert {0, 1, 2, 3, 4, 5, 9, 10, 11} <= lengths
    assert any(len(r["xs"]) == 5 and int(r["n"]) == 5 for r in rows)  # a number at a length
    assert all(int(r["n"]) >= 0 for r in rows)
    assert rows == boundary_rows(types, {}, {"precond": "  n < 10 ∧ xs.length ≤ 4\n"}, limit=500)  # deterministic


def test_strings_get_whitespace_and_non_ascii_and_uints_stay_in_range() -> None:
    rows = boundary_rows({"s": parse_type("String"), "b": parse_type("UInt8")}, {}, {"postcond": "  x < 300\n"})
    strings = {r["s"] for r in rows}
    assert {"\t", "\n", " a ", "é", "😀😀"} <= strings
    assert {int(r["b"]) for r in rows} <= set(range(256)) and 255 in {int(r["b"]) for r in rows}


def test_near_outputs_are_the_closest_wrong_values() -> None:
    assert near_outputs(5, parse_type("Int"), {})[:3] == [6, 4, -5]
    assert Nat(0) not in near_outputs(Nat(0), parse_type("Nat"), {})
    assert (1, 2) in near_outputs((1, 2, 3), parse_type("List Int"), {})
    assert near_outputs(Some(3), parse_type("Option Int"), {})[0] != Some(3)
    mixed = mutate_outputs(5, "Int", {}, n=6)
    assert mixed[0] == 6 and len(mixed) == 6 and 5 not in mixed
    assert mixed == mutate_outputs(5, "Int", {}, n=6)
