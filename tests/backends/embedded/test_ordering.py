"""``Ordering``, ``compare`` and local ``Ord`` instances, as Lean v4.24 defines them
(Init/Data/Ord.lean): the values and their functions, core's global ``Ord`` instances, the
elaboration of ``Ordering`` terms and patterns, and a local ``Ord`` that only ``compare`` (and what
is built from it) follows -- ``<``, ``≤``, ``max`` and sorts keep the global instances."""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.builtins import BUILTINS
from veriscale.backends.embedded.builtins.ordering import lean_compare, option_compare, seq_compare
from veriscale.backends.embedded.program import Program
from veriscale.lean.codec import ValueParseError, default_value, parse_value, render_value, to_json
from veriscale.lean.printing import repr_value
from veriscale.lean.values import (
    NONE,
    ORDERING_EQ,
    ORDERING_GT,
    ORDERING_LT,
    Arr,
    Char,
    Nat,
    Pair,
    Some,
    Unsupported,
)

LT, EQ, GT = ORDERING_LT, ORDERING_EQ, ORDERING_GT


def run(source: str, name: str, args: dict[str, Any]) -> Any:
    program = Program(source)
    assert not program.elaboration.errors, program.elaboration.errors
    assert not program.elaboration.gaps, program.elaboration.gaps
    return call_entry(program, name, args, None)


def errors(source: str) -> list[str]:
    return [d.message for d in Program(source).elaboration.errors]


def call(name: str, *args: Any) -> Any:
    return BUILTINS[name].fn(*args)


# -- values and core's global instances --------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "expected"), [
    (Nat(1), Nat(2), LT), (Nat(2), Nat(2), EQ), (-1, -5, GT),
    ("abc", "abd", LT), ("b", "abc", GT), ("", "", EQ), ("é", "z", GT),    # by code point, not locale
    (Char("a"), Char("B"), GT),
    (False, True, LT), (True, False, GT), (True, True, EQ),
    (NONE, Some(0), LT), (Some(3), NONE, GT), (Some(3), Some(2), GT), (NONE, NONE, EQ),
    ((1, 2), (1, 2, 0), LT), ((2,), (1, 9), GT), ((), (), EQ),           # a proper prefix is smaller
    (Arr((Nat(3),)), Arr((Nat(2), Nat(9))), GT),
    (LT, GT, LT), (GT, EQ, GT),                                           # by constructor index
])
def test_compare_with_the_global_instances(a: Any, b: Any, expected: Any) -> None:
    assert lean_compare(a, b) == expected


@pytest.mark.parametrize(("a", "b"), [(1.0, 2.0), (Pair(1, 2), Pair(1, 3))])
def test_types_without_a_core_ord_instance_are_refused(a: Any, b: Any) -> None:
    # no `Ord Float`; `lexOrd` on products is a definition, not an instance (lean4#9739)
    with pytest.raises(Unsupported):
        lean_compare(a, b)


def test_containers_compare_with_the_given_element_comparison() -> None:
    def reversed_cmp(x: Any, y: Any) -> Any:
        return lean_compare(y, x)

    assert seq_compare(reversed_cmp)((1, 5), (1, 2)) == LT
    assert seq_compare(reversed_cmp)((1,), (1, 0)) == LT  # the prefix rule does not depend on it
    assert option_compare(reversed_cmp)(Some(1), Some(2)) == GT
    assert option_compare(reversed_cmp)(NONE, Some(2)) == LT


@pytest.mark.parametrize(("name", "trues"), [
    ("isEq", {EQ}), ("isNe", {LT, GT}), ("isLE", {LT, EQ}), ("isLT", {LT}), ("isGT", {GT}), ("isGE", {EQ, GT}),
])
def test_ordering_tests(name: str, trues: set[Any]) -> None:
    assert {o for o in (LT, EQ, GT) if call(f"Ordering.{name}", o)} == trues


def test_swap_then_and_the_comparison_combinators() -> None:
    assert [call("Ordering.swap", o) for o in (LT, EQ, GT)] == [GT, EQ, LT]
    assert [call("Ordering.then", o, GT) for o in (LT, EQ, GT)] == [LT, GT, GT]
    assert call("compareOn", len, "aa", "b") == GT
    assert call("compareLex", lambda x, y: EQ, lambda x, y: lean_compare(y, x), 1, 2) == GT
    assert call("compareOfLessAndEq", 5, -1) == GT
    assert call("List.compareLex", lambda x, y: lean_compare(y, x), (1,), (2,)) == GT


def test_ordering_values_read_print_and_default_as_lean() -> None:
    assert repr_value(LT) == "Ordering.lt"                 # the derived `Repr`
    assert repr_value(Some(GT)) == "some Ordering.gt"
    assert parse_value("[Ordering.eq, Ordering.lt]", "List Ordering") == (EQ, LT)
    assert render_value(Pair(GT, Nat(1)), "Ordering × Nat") == "(Ordering.gt, 1)"
    assert to_json(EQ, "Ordering") == "Ordering.eq"
    assert parse_value(to_json(GT, "Ordering"), "Ordering") == GT
    assert default_value("Ordering") == LT                 # `deriving Inhabited`: the first constructor
    for bad in ("lt", "Ordering.le", "0"):
        with pytest.raises(ValueParseError):
            parse_value(bad, "Ordering")


# -- elaboration -----------------------------------------------------------------------------
def test_compare_has_type_ordering() -> None:
    assert errors("def f (a : Nat) : Bool := compare a a\n") == [
        "type mismatch: `compare a a` has type Ordering but is expected to have type Bool"]


def test_a_match_on_ordering_must_cover_the_three_constructors() -> None:
    head = "def f (a b : Nat) : Nat :=\n  match compare a b with\n  | .lt => 0\n  | .eq => 1\n"
    assert any("missing cases" in m for m in errors(head))
    assert errors(head + "  | .gt => 2\n") == []
    assert errors("def f (a b : Nat) : Nat :=\n  match compare a b with\n  | Ordering.lt => 0\n  | _ => 1\n") == []


def test_a_bare_constructor_name_is_a_variable_and_what_follows_is_redundant() -> None:
    # `lt` does not resolve to `Ordering.lt` outside the namespace: a pattern variable
    source = "def f (a b : Nat) : Nat :=\n  match compare a b with\n  | lt => 0\n  | eq => 1\n  | gt => 2\n"
    assert any("redundant alternative" in m for m in errors(source))
    opened = "open Ordering in\n" + source
    assert [run(opened, "f", {"a": Nat(a), "b": Nat(1)}) for a in (0, 1, 2)] == [0, 1, 2]


def test_a_dot_constructor_takes_its_type_from_the_other_side_of_a_relation() -> None:
    assert run("def f (a b : Nat) : Bool := compare a b == .lt\n", "f", {"a": Nat(1), "b": Nat(2)}) is True
    assert run("def f (a b : Nat) : Bool := decide (compare a b = .gt)\n", "f", {"a": Nat(1), "b": Nat(2)}) is False


def test_ordering_functions_by_field_notation() -> None:
    source = "def f (a b : Nat) : Ordering := ((compare a b).then (compare b a)).swap\n"
    assert run(source, "f", {"a": Nat(3), "b": Nat(3)}) == EQ
    assert run("def f (a b : Int) : Bool := (compare a b).isLE\n", "f", {"a": 2, "b": 2}) is True


# -- local Ord instances -----------------------------------------------------------------------
FLIP = "  have : Ord Int := ⟨fun x y => compare y x⟩\n"
HEAD = "def f (xs : List Int) (a b : Int) : "


def local(result_type: str, body: str, declaration: str = FLIP, **args: Any) -> Any:
    values = {"xs": (), "a": 1, "b": 2, **args}
    return run(HEAD + f"{result_type} :=\n" + declaration + body, "f", values)


def test_compare_uses_the_local_instance_and_its_value_the_global_one() -> None:
    assert local("Ordering", "  compare a b\n") == GT


def test_the_most_recent_local_ord_wins() -> None:
    two = FLIP + "  let inst : Ord Int := { compare := fun _ _ => .eq }\n"
    assert local("Ordering", "  compare a b\n", two) == EQ


def test_a_local_ord_at_another_type_leaves_compare_global() -> None:
    assert local("Ordering", "  compare a b\n", "  have : Ord Nat := ⟨fun x y => compare y x⟩\n") == LT


def test_a_match_and_a_sort_follow_the_local_instance() -> None:
    assert local("Int", "  match compare a b with\n  | .lt => a\n  | _ => b\n") == 2
    assert local("List Int", "  xs.mergeSort (fun x y => compare x y != .gt)\n", xs=(3, 1, 2)) == (3, 2, 1)


def test_container_instances_are_built_from_the_local_element_instance() -> None:
    assert local("Ordering", "  compare [a] [b]\n") == GT
    assert local("Ordering", "  compare #[a, b] #[a]\n") == GT       # the prefix rule is the container's
    assert local("Ordering", "  compare (some a) (some b)\n") == GT
    assert local("Ordering", "  compareOn (fun v => v) a b\n") == GT


def test_order_max_and_the_default_sort_stay_global() -> None:
    # `ltOfOrd`, `leOfOrd`, `maxOfLe` are definitions, not instances
    assert local("Bool", "  a < b\n") is True
    assert local("Int", "  max a b\n") == 2
    assert local("List Int", "  xs.mergeSort\n", xs=(3, 1, 2)) == (1, 2, 3)
    assert local("Ordering", "  compareOfLessAndEq a b\n") == LT


def test_a_local_instance_passed_to_a_user_instance_binder_is_a_gap() -> None:
    source = ("def g [Ord α] (a b : α) : Ordering := compare a b\n"
              + HEAD + "Ordering :=\n" + FLIP + "  g a b\n")
    gaps = [d.message for d in Program(source).elaboration.gaps]
    assert any("resolves to a local instance" in m for m in gaps)


def test_an_instance_value_of_another_type_is_lean_s_type_error() -> None:
    assert errors("def f (a : Nat) : Nat :=\n  have : Ord Nat := ⟨fun _ _ => true⟩\n  a\n") == [
        "type mismatch: `true` has type Bool but is expected to have type Ordering"]
