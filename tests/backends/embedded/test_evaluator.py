"""Unit tests of the embedded evaluator (compiler + program) on small hand-written Lean files.

Each test states the Lean behaviour it reproduces."""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.backends.embedded import compiler as C
from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.compiler import quantifiers as Q
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import NONE, Arr, Nat, Some, Undecidable, Unsupported


def run(src: str, name: str, **args: Any) -> Any:
    return call_entry(Program(src), name, args, None)


def test_nat_subtraction_truncates() -> None:
    # Lean: `(3 : Nat) - 5 = 0`.
    src = "def f (a : Nat) (b : Nat) : Nat := a - b"
    assert run(src, "f", a=Nat(3), b=Nat(5)) == 0


def test_binop_coerces_leaves_to_expected_int() -> None:
    # Lean: `def f (n : Nat) : Int := n - 5` elaborates to `↑n - 5` (binop% uses the expected type).
    src = "def f (n : Nat) : Int := n - 5"
    result = run(src, "f", n=Nat(3))
    assert result == -2 and type(result) is int


def test_binop_mixed_leaves_compute_in_int() -> None:
    # Lean: `n + i` with `n : Nat`, `i : Int` is `↑n + i`; `n - 10 + i` is `↑n - 10 + i`.
    src = "def f (n : Nat) (i : Int) : Int := n - 10 + i"
    assert run(src, "f", n=Nat(3), i=0) == -7


def test_int_division_and_modulo_follow_lean() -> None:
    # Lean: `Int.div` rounds toward zero for `/` (T-division is not used: `-7 / 2 = -4`, `-7 % 2 = 1`).
    src = "def q (a : Int) (b : Int) : Int := a / b\ndef r (a : Int) (b : Int) : Int := a % b"
    assert run(src, "q", a=-7, b=2) == -4
    assert run(src, "r", a=-7, b=2) == 1


def test_getelem_bang_out_of_range_gives_default() -> None:
    # Lean: `xs[i]!` out of bounds panics and returns `default` (0 for Int).
    src = "def f (xs : Array Int) (i : Nat) : Int := xs[i]!"
    assert run(src, "f", xs=Arr((4, 5)), i=Nat(7)) == 0
    assert run(src, "f", xs=Arr((4, 5)), i=Nat(1)) == 5


def test_bounded_forall_and_exists() -> None:
    # Lean: `∀ i < n, P i` and `∃ x ∈ xs, P x` are decidable (Nat.decidableBallLT, List.decidableBEx).
    src = (
        "def p (xs : List Int) : Prop := ∀ i < xs.length, xs[i]! > 0\n"
        "def q (xs : List Int) : Prop := ∃ x ∈ xs, x < 0\n"
        "def r (xs : List Int) : Prop := ∀ i, i < xs.length → ∀ j, j < xs.length → i < j → xs[i]! ≤ xs[j]!\n"
    )
    assert run(src, "p", xs=(1, 2)) is True
    assert run(src, "p", xs=(1, 0)) is False
    assert run(src, "q", xs=(1, -2)) is True
    assert run(src, "r", xs=(1, 2, 2)) is True
    assert run(src, "r", xs=(1, 3, 2)) is False


def test_unbounded_quantifier_is_undecidable() -> None:
    # Lean: `∃ k : Int, n = k * k + 1` has no Decidable instance; `decide` fails. A witness
    # search may prove it for some `n`; for `n = 3` nothing is found and no rule bounds `k`
    # (the linear rule needs `c * k` with `c` free of `k`).
    src = "def p (n : Int) : Prop := ∃ k : Int, n = k * k + 1"
    with pytest.raises(Undecidable):
        run(src, "p", n=3)


def test_float_equality_is_undecidable() -> None:
    # Lean: `Float` has no `DecidableEq` instance, so `decide (x = y)` does not elaborate.
    src = "def p (x : Float) : Prop := x = 1.0"
    with pytest.raises((Undecidable, Unsupported)):
        run(src, "p", x=1.0)


def test_do_block_with_mutation_and_early_return() -> None:
    # Lean: `for` over a list in `Id`, `let mut`, `return` leaves the whole `do` block.
    src = """
def firstNeg (xs : List Int) : Option Int := Id.run do
  for x in xs do
    if x < 0 then
      return some x
  return none

def total (xs : List Nat) : Nat := Id.run do
  let mut s := 0
  for x in xs do
    s := s + x
  return s
"""
    assert run(src, "firstNeg", xs=(1, -3, -4)) == Some(-3)
    assert run(src, "firstNeg", xs=(1,)) is NONE
    assert run(src, "total", xs=(Nat(1), Nat(2))) == 3


def test_let_rec_and_where_helpers() -> None:
    # Lean: `let rec` and `where` define local recursive functions.
    src = """
def sumTo (n : Nat) : Nat :=
  let rec go (k : Nat) (acc : Nat) : Nat :=
    match k with
    | 0 => acc
    | k' + 1 => go k' (acc + k' + 1)
  go n 0

def count (xs : List Int) : Nat := aux xs 0
where
  aux : List Int → Nat → Nat
    | [], acc => acc
    | _ :: t, acc => aux t (acc + 1)
"""
    assert run(src, "sumTo", n=Nat(4)) == 10
    assert run(src, "count", xs=(5, 6, 7)) == 3


def test_field_notation_partial_application_keeps_receiver_position() -> None:
    # Lean: `(xs.foldl f) init` is `List.foldl f init xs` (the receiver fills the List argument).
    src = "def f (xs : List Nat) : List (List Nat) := (xs.foldl (fun acc x => acc ++ [[x]])) [[]]"
    assert run(src, "f", xs=()) == ((),)
    assert run(src, "f", xs=(Nat(1),)) == ((), (Nat(1),))


def test_equality_with_some_coerces_the_plain_side() -> None:
    # Lean: `xs[i]! = some y` elaborates as `↑(xs[i]!) = some y` (Option coercion), true when equal.
    src = "def p (xs : List Int) (y : Int) : Prop := xs[0]! = some y"
    assert run(src, "p", xs=(3,), y=3) is True
    assert run(src, "p", xs=(3,), y=4) is False


def test_unsupported_construct_in_dead_branch_does_not_matter() -> None:
    # Lean: only the branch taken is evaluated; `panic!` in another branch is irrelevant.
    src = 'def f (n : Nat) : Nat := if n > 100 then panic! "big" else n + 1'
    assert run(src, "f", n=Nat(1)) == 2
    with pytest.raises(Unsupported):
        run(src, "f", n=Nat(500))


def test_proof_parameters_are_skipped() -> None:
    # The benchmark passes `h_precond` proofs; the evaluator does not take them.
    src = (
        "def f_precond (n : Nat) : Prop := n > 0\n"
        "def f (n : Nat) (h_precond : f_precond (n)) : Nat := n * 2\n"
    )
    assert run(src, "f", n=Nat(3)) == 6


def test_nested_quantifiers_bounded_by_inner_hypotheses() -> None:
    # `∃ i j, i < n ∧ j < n ∧ P` is not syntactically `Nat.decidableBallLT`, but every value of `i`
    # outside `[0, n)` falsifies the conjunction, so the bounded search gives Lean's truth value.
    src = (
        "def p (s : Array Int) : Prop := ∃ i j, i < s.size ∧ j < s.size ∧ s[i]! ≠ s[j]!\n"
        "def q (main : List Int) (sub : List Int) : Prop :=\n"
        "  ∃ i, i + sub.length ≤ main.length ∧ sub = (main.drop i).take sub.length\n"
    )
    assert run(src, "p", s=Arr((1, 1, 2))) is True
    assert run(src, "p", s=Arr((1, 1))) is False
    assert run(src, "q", main=(1, 2, 3), sub=(2, 3)) is True
    assert run(src, "q", main=(1, 2, 3), sub=(3, 2)) is False


def test_int_quantifier_needs_a_lower_bound() -> None:
    # `∀ k : Int, k < n → P k` ranges over infinitely many integers: not decidable.
    src = "def p (n : Int) : Prop := ∀ k : Int, k < n → k < 100"
    with pytest.raises(Undecidable):
        run(src, "p", n=5)
    src2 = "def p (n : Int) : Prop := ∀ k : Int, 0 ≤ k → k < n → k < 100"
    assert run(src2, "p", n=5) is True


def test_subtraction_at_the_expected_type_propagated_through_an_application() -> None:
    # `(fun x => x) (n - 5) : Int`: Lean.Elab.App `propagateExpectedType` unifies the lambda's
    # result type with `Int` before the argument, so `binop%` computes `↑n - 5` in Int
    src = "def g (n : Nat) : Int := (fun x => x) (n - 5)"
    assert run(src, "g", n=Nat(3)) == -2


def test_truncating_subtraction_with_unknown_operand_type_is_refused() -> None:
    # `f n` where `f := fun k => k - 5` has a type only the pending `HSub ?α ?β ?γ` decides in
    # Lean: the engine does not model that, so a truncating Nat subtraction is refused, not guessed
    src = "def g (n : Nat) : Int :=\n  let f := fun k => k - 5\n  f n"
    with pytest.raises(Unsupported):
        run(src, "g", n=Nat(3))


def test_char_argument_coerces_to_option_parameter() -> None:
    # Lean inserts `↑c` (= `some c`) when a `Char` is passed where `Option Char` is expected.
    src = (
        "def h (c : Option Char) : Bool := c.isSome\n"
        "def f (c : Char) : Bool := h c\n"
    )
    from veriscale.lean.values import Char

    assert run(src, "f", c=Char("a")) is True


def test_named_argument_of_builtin() -> None:
    # `xs.foldl (init := 10) f` passes `init` by name; `f` fills the first free parameter.
    src = "def f (xs : List Nat) : Nat := xs.foldl (init := 10) fun acc x => acc + x"
    assert run(src, "f", xs=(Nat(1), Nat(2))) == 13


# -- witness search for unbounded quantifiers over Nat / Int ---------------------------------
# Lean has no `Decidable` instance for `∃ x : Nat, P x`, but a witness is a proof of it and a
# counterexample refutes `∀ x, P x`. Anything else must stay unknown, never become a truth value.


def test_unbounded_exists_with_witness_is_true() -> None:
    src = "def p (n : Nat) : Prop := ∃ m : Nat, n = 3 ^ m"
    assert run(src, "p", n=Nat(81)) is True
    assert run(src, "p", n=Nat(1)) is True


def test_unbounded_exists_without_witness_is_unknown_not_false() -> None:
    # no rule bounds `m` in `m * m * m + 2` (see tests/backends/embedded/test_embedded_core_quantifiers.py)
    src = "def p (n : Nat) : Prop := ∃ m : Nat, n = m * m * m + 2"
    last = Q.UNBOUNDED_SEARCH_CANDIDATES - 1
    with pytest.raises(Undecidable, match=rf"no witness among m = 0\.\.{last}"):
        run(src, "p", n=Nat(11))


def test_unbounded_forall_counterexample_is_false() -> None:
    src = "def p (n : Int) : Prop := ∀ k : Int, ¬ n = 7 * k"
    assert run(src, "p", n=-21) is False


def test_unbounded_forall_without_counterexample_is_unknown() -> None:
    src = "def p (n : Int) : Prop := ∀ k : Int, ¬ n = k * k"
    with pytest.raises(Undecidable, match="no counterexample among k"):
        run(src, "p", n=22)


def test_negated_unbounded_quantifiers() -> None:
    # `¬ ∃` with a witness is false; without one it stays unknown (not true).
    src = "def p (n : Int) : Prop := ¬ ∃ k : Int, n = k * k * 5"
    assert run(src, "p", n=20) is False
    with pytest.raises(Undecidable):
        run(src, "p", n=16)
    # `¬ ∀` with a counterexample is true; without one unknown.
    src2 = "def q (n : Int) : Prop := ¬ ∀ k : Int, n ≠ k * k * 5"
    assert run(src2, "q", n=45) is True
    with pytest.raises(Undecidable):
        run(src2, "q", n=-11)


def test_int_witness_search_order_covers_negatives_first_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # candidates 0, 1, -1, 2, -2, ...: a negative witness is reachable, and the detail names the
    # range the first N candidates span.
    src = "def p (n : Int) : Prop := ∃ k : Int, k < 0 ∧ k * k = n"
    assert run(src, "p", n=9) is True
    # (`k + 0 = n`, not `k = n`: the one-point rule would take the candidate `n` directly)
    src2 = "def q (n : Int) : Prop := ∃ k : Int, k + 0 = n"
    monkeypatch.setattr(Q, "UNBOUNDED_SEARCH_CANDIDATES", 10)  # 0, 1, -1, ..., 5, -4, 5
    assert run(src2, "q", n=-4) is True
    with pytest.raises(Undecidable, match=r"k = -4\.\.5"):
        run(src2, "q", n=-5)
    assert run(src2, "q", n=5) is True
    with pytest.raises(Undecidable):
        run(src2, "q", n=6)


def test_int_enumeration_order_is_zero_then_alternating() -> None:
    # the search stops at the first witness: both 2 and -2 satisfy `k * k == 4`, and the
    # candidates visited before stopping show the order 0, 1, -1, 2.
    seen: list[int] = []
    src = "def f (k : Int) : Bool := k * k == 4\ndef p : Prop := ∃ k : Int, f k"
    original = C.Compiler._witness_search

    def recording(self: Any, node: Any, slot: int, whole: Any, is_nat: bool) -> Any:
        def spy(fr: list[Any]) -> Any:
            seen.append(fr[slot])
            return whole(fr)

        return original(self, node, slot, spy, is_nat)

    C.Compiler._witness_search = recording  # type: ignore[method-assign]
    try:
        assert run(src, "p") is True
    finally:
        C.Compiler._witness_search = original  # type: ignore[method-assign]
    assert seen == [0, 1, -1, 2]


def test_unbounded_quantifier_nested_in_and_and_implication() -> None:
    src = "def p (n : Nat) (b : Bool) : Prop := (b = true → ∃ m : Nat, n = 2 ^ m) ∧ (n > 0 ∧ ∃ j : Nat, j * j = n)"
    assert run(src, "p", n=Nat(16), b=True) is True
    # the false conjunct is decided without the search ...
    assert run(src, "p", n=Nat(0), b=False) is False
    # ... an implication with a false premise never runs it; `n = 2 ^ m` bounds m (power rule)
    assert run(src, "p", n=Nat(9), b=False) is True
    assert run(src, "p", n=Nat(9), b=True) is False
    # `j * j = n` is bounded by no rule: no witness stays unknown
    with pytest.raises(Undecidable):
        run(src, "p", n=Nat(10), b=False)


def test_unbounded_quantifier_skips_candidates_whose_body_is_undecidable(monkeypatch: pytest.MonkeyPatch) -> None:
    # for m < 3 the body reaches an unbounded ∀ without a counterexample (undecided): skipped.
    # (`m + 0 = n` and `k + 0 = ...`: plain `m = n` would be decided by the one-point rule)
    src = "def p (n : Nat) : Prop := ∃ m : Nat, (m < 3 → ∀ k : Int, k + 0 ≠ 1000000) ∧ m + 0 = n"
    assert run(src, "p", n=Nat(5)) is True
    with pytest.raises(Undecidable, match="body undecided for 3 of them"):
        run(src, "p", n=Nat(20000))
    # when every candidate is undecided the quantifier stays undecided (for ∀ too)
    src2 = "def q : Prop := ∀ m : Nat, ∃ k : Int, k + 0 = 1000000 + m"
    monkeypatch.setattr(Q, "UNBOUNDED_SEARCH_CANDIDATES", 40)
    monkeypatch.setattr(Q, "NESTED_SEARCH_CANDIDATES", 30)
    with pytest.raises(Undecidable, match=r"no counterexample among m = 0\.\.39, body undecided for 40 of them"):
        run(src2, "q")


def test_unbounded_quantifier_over_other_types_stays_undecidable() -> None:
    src = "def p (s : String) : Prop := ∃ t : String, t.length = s.length + 1"
    with pytest.raises(Undecidable):
        run(src, "p", s="a")


def test_unannotated_exponent_binder_is_searched_as_nat() -> None:
    # Lean elaborates the exponent of `^` on Nat to `Nat`.
    src = "def p (n : Nat) : Prop := ∃ i, n / 10 ^ i % 10 == 7"
    assert run(src, "p", n=Nat(1734)) is True
    # no digit 7: decided false by the division-by-a-power rule (tests/backends/embedded/test_embedded_core_quantifiers.py)
    assert run(src, "p", n=Nat(1234)) is False
    # `i` outside the division: the search alone cannot refute it
    src2 = "def q (n : Nat) : Prop := ∃ i, n / 10 ^ i % 10 == 7 + i"
    with pytest.raises(Undecidable):
        run(src2, "q", n=Nat(1234))


def test_witness_search_stops_at_its_step_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    # a recursive body costs more with every candidate; the search gives up (unknown) after a
    # fixed number of evaluation steps rather than eating the check's whole budget.
    src = (
        # (`+ 0`: the exact power definition would be recognised and bounded by the power rule)
        "def pw (b : Nat) (e : Nat) : Nat :=\n  match e with\n  | 0 => 1\n  | k+1 => b * pw b k + 0\n"
        "def p (n : Nat) : Prop := ∃ x : Nat, pw 2 x = n\n"
    )
    assert run(src, "p", n=Nat(2**20)) is True
    monkeypatch.setattr(Q, "SEARCH_STEP_ALLOWANCE", 50)
    with pytest.raises(Undecidable, match="stopped after 50 evaluation steps"):
        run(src, "p", n=Nat(2**20))
    assert run(src, "p", n=Nat(4)) is True


def test_bind_arrow_in_an_id_do_block_is_a_plain_let() -> None:
    # Lean: in `Id`, `let x ← e` binds the value of `e` (Id's bind is application), and a nested
    # action `(← e)` is lifted to such a `let` just before its do element.
    src = (
        "def f (xs : List Nat) : Nat := Id.run do\n"
        "  let s ← pure (xs.foldl (· + ·) 0)\n"
        "  let mut acc := s\n"
        "  acc := acc + (← pure 10)\n"
        "  return acc\n"
    )
    assert run(src, "f", xs=(Nat(1), Nat(2))) == 13


def test_open_in_scopes_one_definition() -> None:
    # Lean: `open X in cmd` makes X's names visible inside cmd only.
    src = (
        "namespace Helpers\ndef twice (n : Nat) : Nat := 2 * n\nend Helpers\n"
        "open Helpers in\n"
        "def f (n : Nat) : Nat := twice n + 1\n"
    )
    assert run(src, "f", n=Nat(4)) == 9


def test_for_over_a_hashset_visits_lean_bucket_order() -> None:
    # Lean v4.24: `Std.HashSet.empty` (capacity 8) has 16 buckets and Nat keys hash to themselves, so small
    # keys sit in bucket k and `for` walks buckets 0, 1, ...: ascending order here.
    src = (
        "def f (xs : List Nat) : List Nat := Id.run do\n"
        "  let s : Std.HashSet Nat := xs.foldl (fun acc x => acc.insert x) Std.HashSet.empty\n"
        "  let mut out : List Nat := []\n"
        "  for x in s do\n"
        "    out := out ++ [x]\n"
        "  return out\n"
    )
    assert run(src, "f", xs=(Nat(5), Nat(1), Nat(3))) == (1, 3, 5)


def test_membership_of_lists_is_structural() -> None:
    # Lean: `[1, 2] ∈ [[1, 2], [3]]` is decided by `List`'s DecidableEq.
    src = "def p (xs : List (List Int)) (x : List Int) : Prop := x ∈ xs"
    assert run(src, "p", xs=((1, 2), (3,)), x=(1, 2)) is True
    assert run(src, "p", xs=((1, 2), (3,)), x=(2, 1)) is False
