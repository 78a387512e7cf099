"""Local instances of ``ToString``, the arithmetic classes and ``Append`` are the ones evaluation
uses, as Lean's instance resolution picks them (Lean.Meta.SynthInstance: local instances first,
the most recent first); what the engine does not model is refused, never evaluated with the global
instance. Each test would give another value with the global instance."""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.builtins.with_to_string import (
    option_to_string,
    prod_to_string,
    seq_to_string,
)
from veriscale.backends.embedded.elab.instances import interpolation_chunks
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import NONE, Arr, Nat, Pair, Some, Unsupported


def run(source: str, name: str, args: dict[str, Any]) -> Any:
    program = Program(source)
    assert not program.elaboration.errors, program.elaboration.errors
    assert not program.elaboration.gaps, program.elaboration.gaps
    return call_entry(program, name, args, None)


# -- arithmetic -------------------------------------------------------------------------------
@pytest.mark.parametrize(("declaration", "expected"), [
    ("have : Add Int := ⟨fun a b => a * b⟩", 7 * (3 * 2) - 1),      # `+` only: `*` and `-` stay global
    ("have : Sub Int := ⟨fun a b => b - a⟩", 1 - (7 + 3 * 2)),
    ("let inst : Mul Int := { mul := fun a b => a + b }", 7 + (3 + 2) - 1),
])
def test_each_operator_of_a_tree_uses_its_own_class_instance(declaration: str, expected: int) -> None:
    source = f"def f (a : Int) (b : Int) (c : Int) : Int :=\n  {declaration}\n  a + b * c - 1\n"
    assert run(source, "f", {"a": 7, "b": 3, "c": 2}) == expected


def test_a_local_instance_at_another_type_leaves_the_tree_global() -> None:
    source = "def f (a : Int) (b : Int) : Int :=\n  have : Add Nat := ⟨fun x y => x * y⟩\n  a + b\n"
    assert run(source, "f", {"a": 2, "b": 5}) == 7


def test_unary_minus_is_the_local_neg() -> None:
    source = "def f (a : Int) (b : Int) : Int :=\n  have : Neg Int := ⟨fun x => x + 100⟩\n  a + -b\n"
    assert run(source, "f", {"a": 1, "b": 2}) == 1 + 102


def test_division_and_modulo_at_nat() -> None:
    source = ("def f (a : Nat) (b : Nat) : Nat :=\n  have : Div Nat := ⟨fun x y => x * y⟩\n"
              "  have : Mod Nat := ⟨fun _ _ => 0⟩\n  a / b + a % b\n")
    assert run(source, "f", {"a": Nat(7), "b": Nat(2)}) == 14


def test_the_most_recent_local_instance_wins() -> None:
    source = ("def f (a : Int) : Int :=\n  have : Add Int := ⟨fun x y => x * y⟩\n"
              "  have : Add Int := ⟨fun x y => x - y⟩\n  a + 1\n")
    assert run(source, "f", {"a": 10}) == 9


def test_append_through_a_local_append_instance() -> None:
    source = "def f (a : String) (b : String) : String :=\n  have : Append String := ⟨fun x y => y ++ x⟩\n  a ++ b\n"
    assert run(source, "f", {"a": "x", "b": "y"}) == "yx"


def test_an_instance_inside_a_lambda_is_used_by_the_lambda() -> None:
    source = ("def f (xs : List Nat) : Nat :=\n  have : Add Nat := ⟨fun a b => max a b⟩\n"
              "  xs.foldl (fun acc x => acc + x) 0\n")
    assert run(source, "f", {"xs": (Nat(3), Nat(9), Nat(4))}) == 9


# -- ToString ----------------------------------------------------------------------------------
def test_to_string_uses_the_local_instance() -> None:
    source = 'def f (n : Nat) : String :=\n  have : ToString Nat := ⟨fun k => "#" ++ Nat.repr k⟩\n  toString n\n'
    assert run(source, "f", {"n": Nat(4)}) == "#4"


def test_interpolation_prints_every_chunk_with_to_string() -> None:
    # `s!"a{n}b"` is `toString "a" ++ toString n ++ toString "b"`: the literal chunks at `String`
    source = 'def f (n : Nat) : String :=\n  have : ToString String := ⟨fun t => "<" ++ t ++ ">"⟩\n  s!"a{n}b"\n'
    assert run(source, "f", {"n": Nat(4)}) == "<a>4<b>"


def test_interpolation_chunks_are_lean_s() -> None:
    x, y = object(), object()
    assert interpolation_chunks([x]) == ["", x, ""]
    assert interpolation_chunks(["a", x, y, "b"]) == ["a", x, "", y, "b"]
    assert interpolation_chunks(["a"]) == ["a"]


def test_interpolation_appends_with_a_local_append() -> None:
    source = 'def f (n : Nat) : String :=\n  have : Append String := ⟨fun x y => y ++ x⟩\n  s!"a{n}b"\n'
    # ((toString "a" ++ toString n) ++ toString "b") with `x ++ y := y ++ x`
    assert run(source, "f", {"n": Nat(4)}) == "b4a"


def test_container_to_string_is_built_from_the_local_element_instance() -> None:
    source = 'def f (xs : List Nat) : String :=\n  have : ToString Nat := ⟨fun _ => "n"⟩\n  toString (xs, some xs.toArray)\n'
    assert run(source, "f", {"xs": (Nat(1), Nat(2))}) == "([n, n], (some #[n, n]))"


def test_container_builders() -> None:
    def show(x: Any) -> str:
        return f"<{x}>"

    assert seq_to_string(show, array=False)((1, 2)) == "[<1>, <2>]"
    assert seq_to_string(show, array=True)(Arr((1,))) == "#[<1>]"
    assert seq_to_string(show, array=False)(()) == "[]"
    assert option_to_string(lambda _x: "a b")(Some(1)) == "(some (a b))"
    assert option_to_string(show)(NONE) == "none"
    assert prod_to_string(show, str)(Pair(1, 2)) == "(<1>, 2)"


def test_do_block_have_of_class_type_is_a_local_instance() -> None:
    source = ("def f (xs : List Nat) (y : Nat) : Bool := Id.run do\n  have : BEq Nat := ⟨fun _ _ => true⟩\n"
              "  return xs.contains y\n")
    assert run(source, "f", {"xs": (Nat(1),), "y": Nat(5)}) is True


# -- what is not modelled, or what Lean rejects -------------------------------------------------
def test_a_have_lt_in_a_decidable_position_is_lean_s_synthesis_failure() -> None:
    program = Program("def f (a : Int) (b : Int) : Bool :=\n  have : LT Int := ⟨fun x y => y < x⟩\n"
                      "  if a < b then true else false\n")
    assert [d.rule for d in program.elaboration.errors] == ["missing-instance"]
    assert "failed to synthesize Decidable" in program.elaboration.errors[0].message


def test_a_let_lt_is_not_decided() -> None:
    # the value of a `let` is visible to instance synthesis: whether it unifies is not modelled
    program = Program("def f (a : Int) (b : Int) : Bool :=\n  let inst : LT Int := ⟨fun x y => x < y⟩\n"
                      "  if a < b then true else false\n")
    assert not program.elaboration.errors
    assert [d.rule for d in program.elaboration.gaps] == ["local-instance"]


def test_library_functions_taking_an_arithmetic_instance_are_refused() -> None:
    program = Program("def f (xs : List Nat) : Nat :=\n  have : Add Nat := ⟨fun a b => a * b⟩\n  xs.sum\n")
    assert [d.rule for d in program.elaboration.gaps] == ["local-instance"]


def test_index_proofs_under_a_local_arithmetic_instance_are_not_decided() -> None:
    program = Program("def f (xs : Array Nat) (i : Nat) : Nat :=\n  have : Add Nat := ⟨fun a b => a * b⟩\n"
                      "  if h : i + 1 < xs.size then xs[i + 1] else 0\n")
    assert not program.elaboration.errors
    assert any("get_elem_tactic" in d.message for d in program.elaboration.gaps)


def test_a_lambda_binder_of_class_type_is_not_modelled() -> None:
    program = Program("def f (xs : List Nat) : Bool :=\n  (fun (inst : BEq Nat) => xs.contains 1) ⟨fun _ _ => true⟩\n")
    assert "local-instance" in [d.rule for d in program.elaboration.gaps]


def test_an_unresolved_use_is_refused_by_the_compiler() -> None:
    # the compiler never falls back to the global instance where the elaborator gave no answer
    program = Program("def f (a : Int) : Int :=\n  have : Add Int := ⟨fun x y => x * y⟩\n  (a + 1) * 2\n")
    choices = program.elaboration.instance_choices
    assert {key[0] for key in choices} == {"+", "*"}  # the global `*` is recorded too
    del choices[next(key for key in choices if key[0] == "+")]
    with pytest.raises(Unsupported, match="local Add instance"):
        call_entry(program, "f", {"a": 3}, None)
