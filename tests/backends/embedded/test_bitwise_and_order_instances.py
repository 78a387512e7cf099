"""Bitwise operators, ``letI``/``haveI``, and the order classes core Lean does not give pairs.

Each test states Lean's rule and where Lean decides it; the snippets are our own.

* Init/Notation.lean: ``infixl:60 " &&& "``, ``infixl:58 " ^^^ "``, ``infixl:55 " ||| "`` (each
  redefined as ``binop%``, so they join the arithmetic tree), ``infixl:75 " <<< "``/``" >>> "``
  (plain applications of ``HShiftLeft.hShiftLeft``/``HShiftRight.hShiftRight``),
  ``prefix:100 "~~~" => Complement.complement``.
* Instances: ``Nat`` (Init/Data/Nat/Bitwise/Basic.lean) and ``UInt8``…``UInt64``
  (Init/Data/UInt/Basic.lean, shift amounts modulo the width) have all of them but ``Nat`` has no
  ``Complement``; ``Int`` has only ``Complement`` and ``HShiftRight Int Nat Int``
  (Init/Data/Int/Bitwise/Basic.lean).
* ``letI``/``haveI`` (``Lean.Parser.Term.letI``/``haveI``, a ``haveDecl``): a ``let``/``have``
  whose value is inlined; a declaration of class type is a local instance.
* No ``Ord``/``LT``/``LE``/``Max``/``Min`` on ``α × β`` in core (``lexOrd``, ``Prod.lexLt`` are
  definitions; lean4#9739 removed the accidental ``instance`` attribute on ``lexOrd`` in v4.23).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import elab_clean as clean
from conftest import elab_errors as errors
from conftest import elab_gaps as gaps

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.parser import parse_term
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Nat, UInt8, UInt32


def run(src: str, name: str, **args: Any) -> Any:
    return call_entry(Program(src), name, args, None)


# -- parsing --------------------------------------------------------------------------------------


def test_bitwise_precedences_are_leans() -> None:
    """`&&&` (60) binds tighter than `^^^` (58), which binds tighter than `|||` (55); `<<<` (75)
    tighter than `+` (65); all bind tighter than `==` (50): `a &&& b == c` is `(a &&& b) == c`."""
    t = parse_term("a ||| b ^^^ c &&& d")
    assert isinstance(t, A.BinOp) and t.op == "|||"
    assert isinstance(t.rhs, A.BinOp) and t.rhs.op == "^^^"
    assert isinstance(t.rhs.rhs, A.BinOp) and t.rhs.rhs.op == "&&&"
    s = parse_term("1 <<< 2 + 1")
    assert isinstance(s, A.BinOp) and s.op == "+"
    e = parse_term("n &&& 1 == 1")
    assert isinstance(e, A.BinOp) and e.op == "=="


def test_complement_is_a_prefix_at_100() -> None:
    t = parse_term("~~~x.val + 1")
    assert isinstance(t, A.BinOp) and t.op == "+"
    assert isinstance(t.lhs, A.UnOp) and t.lhs.op == "~~~"


def test_letI_and_haveI_are_term_lets_with_an_optional_name() -> None:
    t = parse_term("letI : BEq Nat := ⟨fun a b => a == b⟩; 1")
    assert isinstance(t, A.Let) and not t.is_have and t.decl.name == "this"
    h = parse_term("haveI m : Max Int := ⟨fun a _ => a⟩\nm.max 1 2")
    assert isinstance(h, A.Let) and h.is_have and h.decl.name == "m"


# -- elaboration: which instances exist -------------------------------------------------------------


@pytest.mark.parametrize("body", ["n &&& 1", "n ||| m", "n ^^^ m", "n <<< 3", "n >>> m", "(n &&& m) + 1 ^^^ 2"])
def test_nat_has_every_bitwise_operator(body: str) -> None:
    assert clean(f"def f (n m : Nat) : Nat := {body}")


@pytest.mark.parametrize("ty", ["UInt8", "UInt16", "UInt32", "UInt64"])
def test_fixed_widths_have_every_bitwise_operator_and_complement(ty: str) -> None:
    assert clean(f"def f (x y : {ty}) : {ty} := ~~~(x &&& y ||| x ^^^ 7) <<< 2 >>> y")


@pytest.mark.parametrize("body", ["i &&& 1", "i ||| j", "i ^^^ j"])
def test_int_has_no_and_or_xor_in_core(body: str) -> None:
    """The `binop%` tree is at Int, and `instHAnd` needs `AndOp Int`: not in core."""
    assert errors(f"def f (i j : Int) : Int := {body}") == ["missing-instance"]


def test_a_nat_leaf_is_coerced_to_int_before_the_instance_is_sought() -> None:
    """`binop%` takes the maximal type of the leaves (Int) and inserts `↑n`: `Xor Int` is sought."""
    assert errors("def f (n : Nat) (i : Int) : Int := n ^^^ i") == ["missing-instance"]


def test_int_shifts_right_only_by_a_nat_and_never_left() -> None:
    assert clean("def f (i : Int) (k : Nat) : Int := i >>> k + (i >>> 2)")
    assert errors("def f (i j : Int) : Int := i >>> j") == ["missing-instance"]
    assert errors("def f (i : Int) : Int := i <<< 1") == ["missing-instance"]


def test_nat_has_no_complement_int_has() -> None:
    assert errors("def f (n : Nat) : Nat := ~~~n") == ["missing-instance"]
    assert clean("def f (i : Int) : Int := ~~~i")


def test_a_shift_amount_of_another_width_has_no_instance() -> None:
    """`HShiftLeft UInt8 Nat ?γ`: only the homogeneous default instance exists at UInt8."""
    assert errors("def f (x : UInt8) (k : Nat) : UInt8 := x <<< k") == ["missing-instance"]


def test_under_mathlib_int_bitwise_is_not_decided() -> None:
    """Mathlib declares bitwise operations on ℤ: the engine leaves that to a gap, never a verdict."""
    src = "import Mathlib\ndef f (i j : Int) : Int := i &&& j"
    assert errors(src) == [] and gaps(src)


def test_a_shift_inside_a_lambda_waits_for_its_operand_types() -> None:
    src = ("def f (xs : List Nat) : Nat :=\n"
           "  (xs.foldl (fun st x => (st.1 + 1, st.2 ||| (1 <<< x))) (0, 0)).2")
    assert clean(src)


# -- elaboration: order classes on pairs -------------------------------------------------------------


@pytest.mark.parametrize("body", [
    "if compare p q == .lt then 1 else 0",
    "if p < q then 1 else 0",
    "if p ≤ q then 1 else 0",
    "(max p q).1",
    "([p, q].mergeSort).length",
    "if compare [p] [q] == .lt then 1 else 0",
])
def test_core_has_no_order_on_pairs(body: str) -> None:
    assert errors(f"def f (p q : Nat × Nat) : Nat := {body}") == ["missing-instance"]


def test_pairs_sorted_with_an_explicit_comparison_need_no_instance() -> None:
    assert clean("def f (ps : List (Nat × Nat)) : List (Nat × Nat) := ps.mergeSort (fun a b => a.1 ≤ b.1)")
    assert clean("def f (p q : Nat × Nat) : Bool := compare p.1 q.1 == .lt && p == q")


def test_pairs_order_is_not_decided_under_mathlib() -> None:
    """Mathlib's `Prod` has the componentwise `Preorder`, `Max` and `Min`: not modelled, not an error."""
    assert errors("import Mathlib\ndef f (p q : Nat × Nat) : Nat × Nat := max p q") == []


def test_a_local_order_instance_is_not_judged_missing() -> None:
    src = "def f (p q : Nat × Nat) : Bool := letI : Ord (Nat × Nat) := lexOrd; compare p q == .lt"
    assert "missing-instance" not in errors(src)


# -- evaluation ----------------------------------------------------------------------------------------


def test_nat_bitwise_values() -> None:
    src = "def f (a b : Nat) : List Nat := [a &&& b, a ||| b, a ^^^ b, a <<< 2, a >>> 1]"
    assert run(src, "f", a=Nat(12), b=Nat(10)) == (8, 14, 6, 48, 6)


def test_uint8_wraps_and_takes_shift_amounts_modulo_the_width() -> None:
    """`UInt8.shiftLeft a b = ⟨a.toBitVec <<< (b % 8).toBitVec⟩`; `~~~a = 255 - a`."""
    src = "def f (x : UInt8) : List UInt8 := [x <<< 9, x <<< 7, x >>> 8, ~~~x, x ^^^ 255]"
    out = run(src, "f", x=UInt8(3))
    assert out == (6, 128, 3, 252, 252) and all(type(v) is UInt8 for v in out)


def test_uint32_and_of_char_values() -> None:
    src = "def f (c : Char) : UInt32 := c.val &&& 0xF0"
    assert run(src, "f", c="a") == UInt32(0x60)


def test_int_shift_right_rounds_toward_negative_infinity_and_complement_is_minus_one_minus() -> None:
    """`Int.negSucc n >>> s = Int.negSucc (n >>> s)`: `-7 >>> 1 = -4`; `~~~x = -x - 1`."""
    src = "def f (i : Int) : List Int := [i >>> 1, i >>> 100, ~~~i]"
    assert run(src, "f", i=-7) == (-4, -1, 6)


def test_letI_local_instance_is_used_by_evaluation() -> None:
    src = "def f (xs : List Int) : Int := letI : Max Int := ⟨fun a _ => a⟩; xs.foldl max 0"
    assert run(src, "f", xs=(3, 9)) == 0


# -- Nat.fold's function takes the bound proof (Init/Data/Nat/Fold.lean, v4.24) ---------------------


def test_a_fold_written_for_the_old_signature_adds_to_a_proof() -> None:
    """`Nat.fold n (fun i acc => acc + i) 0`: `acc` is bound to the proof `i < n`, and `binop%`
    finds no instance relating a proof and a number."""
    assert errors("def f (n : Nat) : Nat := Nat.fold n (fun i acc => acc + i) 0") == ["binop-types"]
    assert clean("def f (n : Nat) : Nat := Nat.fold n (fun i _ acc => acc + i) 0")


@pytest.mark.parametrize(("ty", "body"), [
    ("String", "max a b"), ("String", "min a b"), ("Char", "max a b"), ("List Nat", "min a b"),
    ("Array Int", "max a b"),
])
def test_max_min_where_the_core_instance_is_not_settled_are_undecided(ty: str, body: str) -> None:
    # left undecided (upper bound kept), neither rejected nor evaluated as if the instance existed
    src = f"def f (a b : {ty}) : {ty} := {body}"
    assert gaps(src) == ["unsettled-instance"] and errors(src) == []


@pytest.mark.parametrize("ty", ["Nat", "Int", "UInt8", "Option Nat"])
def test_max_min_at_numbers_and_options_of_numbers_are_decided(ty: str) -> None:
    assert clean(f"def f (a b : {ty}) : {ty} := max a (min a b)")


def test_max_on_strings_is_decided_under_mathlib_or_a_local_instance() -> None:
    assert clean("import Mathlib\ndef f (a b : String) : String := max a b")
    assert "unsettled-instance" not in gaps(
        "def f (a b : String) : String :=\n  let _ : Max String := ⟨fun x y => if x < y then y else x⟩\n  max a b")
