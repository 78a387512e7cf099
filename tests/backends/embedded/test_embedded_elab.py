"""The elaborator: each rule states Lean's behaviour and where Lean decides it.

Snippets are our own. ``errors(src)`` are the rules of the errors the elaborator reports (Lean
rejects the file), ``gaps(src)`` the rules of places it cannot judge; a well-typed control must
have neither.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest
from conftest import elab_clean as clean
from conftest import elab_errors as errors
from conftest import elab_gaps as gaps
from conftest import elab_report as _report

from veriscale.backends.embedded.program import Program

# -- GetElem obligations (Init/GetElem.lean: `xs[i]` is `getElem xs i (by get_elem_tactic)`) --------


def test_index_without_a_bound_in_scope_is_rejected() -> None:
    assert errors("def f (xs : Array Nat) (i : Nat) : Nat := xs[i]") == ["getelem-bound"]


def test_plain_if_gives_no_hypothesis_but_dependent_if_does() -> None:
    """`if c then` is `ite`: no hypothesis; `if h : c then` is `dite`: `h : c` is in scope."""
    assert errors("def f (xs : Array Nat) (i : Nat) : Nat := if i < xs.size then xs[i] else 0") == ["getelem-bound"]
    assert clean("def f (xs : Array Nat) (i : Nat) : Nat := if h : i < xs.size then xs[i] else 0")


def test_bang_and_question_indexing_carry_no_obligation() -> None:
    assert clean("def f (xs : List Int) (i : Nat) : Int := xs[i]!")
    assert clean("def f (xs : List Int) (i : Nat) : Option Int := xs[i]?")


def test_forall_binder_predicate_is_a_hypothesis_exists_is_not() -> None:
    """`∀ i < n, P` is `∀ i, i < n → P`; `∃ i < n, P` is `∃ i, i < n ∧ P` (Init/BinderPredicates)."""
    ok = "def p (a : Array Int) (m : Int) : Prop := ∀ i < a.size, a[i] ≤ m"
    bad = "def p (a : Array Int) (m : Int) : Prop := ∃ i < a.size, a[i] = m"
    assert clean(ok)
    assert errors(bad) == ["getelem-bound"]


def test_exists_with_a_named_proof_binder_is_bounded() -> None:
    assert clean("def p (a : Array Int) (r : Int) : Prop := ∃ k, ∃ h : k < a.size, r = a[k]")


def test_a_hypothesis_that_implies_the_bound_by_linear_arithmetic_suffices() -> None:
    assert clean("def f (xs : Array Nat) (i : Nat) (h : i + 1 < xs.size) : Nat := xs[i]")


def test_for_with_membership_hypothesis_over_the_size_is_bounded() -> None:
    src = ("def f (xs : Array Nat) : Nat := Id.run do\n  let mut s := 0\n  for h : i in [0:xs.size] do\n"
           "    s := s + xs[i]\n  return s")
    assert "getelem-bound" not in errors(src)


def test_an_int_index_has_no_getelem_instance() -> None:
    assert errors("def f (xs : Array Nat) (i : Int) : Nat := xs[i]!") == ["missing-instance"]


# -- binop% / binrel% (Lean.Elab.Extra) ------------------------------------------------------------


def test_char_compared_with_string_is_a_type_mismatch() -> None:
    assert errors("def f (c : Char) : Bool := c = \",\"") == ["type-mismatch"]


def test_string_append_char_has_no_instance() -> None:
    assert errors("def f (s : String) (c : Char) : String := s ++ c") == ["binop-types"]


def test_nat_and_int_leaves_meet_at_int() -> None:
    assert clean("def f (n : Nat) (k : Int) : Int := n - k + 1")


def test_negation_at_nat_has_no_instance_even_in_dead_code() -> None:
    assert errors("def f (n : Nat) : Nat := if n = n then n else -1") == ["missing-instance"]


# -- do notation (Lean.Elab.Do) --------------------------------------------------------------------


def test_do_in_a_pure_function_needs_id_run() -> None:
    bad = "def f (xs : List Nat) : Nat := do\n  let mut s := 0\n  for x in xs do\n    s := s + x\n  return s"
    assert errors(bad) == ["do-needs-monad"]
    assert clean(bad.replace(":= do", ":= Id.run do"))


def test_only_let_mut_variables_can_be_reassigned() -> None:
    src = "def f (xs : List Nat) : Nat := Id.run do\n  let s := 0\n  for x in xs do\n    s := s + x\n  return s"
    assert errors(src) == ["do-reassign"]


# -- applications ----------------------------------------------------------------------------------


def test_a_missing_proof_argument_leaves_a_function() -> None:
    src = ("def g (n : Nat) (h : n > 0) : Nat := n - 1\n"
           "def f (n : Nat) : Nat := g n + 1")
    assert errors(src) == ["binop-types"] or errors(src) == ["type-mismatch"]


def test_wrong_argument_type_is_a_mismatch() -> None:
    assert errors("def g (s : String) : Nat := s.length\ndef f (n : Nat) : Nat := g n") == ["type-mismatch"]


# -- match (Lean.Meta.Match) -----------------------------------------------------------------------


def test_missing_cases_are_rejected_even_if_unreachable() -> None:
    bad = "def f (xs : List Nat) : Nat :=\n  match xs with\n  | [] => 0\n  | [x] => x"
    assert errors(bad) == ["match-exhaustive"]
    assert clean(bad + "\n  | x :: _ => x")


def test_nat_numerals_and_successor_patterns_cover_nat() -> None:
    assert clean("def f (n : Nat) : Nat :=\n  match n with\n  | 0 => 1\n  | 1 => 1\n  | k + 2 => k")


# -- termination (Lean.Elab.PreDefinition) ---------------------------------------------------------


def test_structural_recursion_is_accepted() -> None:
    assert clean("def len (xs : List Nat) : Nat :=\n  match xs with\n  | [] => 0\n  | _ :: t => 1 + len t")


def test_a_call_with_unchanged_arguments_cannot_terminate() -> None:
    assert errors("def f (n : Nat) : Nat := if n = 0 then 0 else f n") == ["termination"]


def test_non_structural_recursion_is_a_gap_not_a_pass() -> None:
    src = ("def f (xs : List Nat) : Nat :=\n  match xs with\n  | [] => 0\n"
           "  | x :: rest => 1 + f (rest.filter (· > x))")
    assert gaps(src) == ["termination"]


def test_a_parameter_that_decreases_under_the_if_condition_terminates() -> None:
    """GuessLex tries each parameter; `decreasing_tactic` sees the `if` condition because
    well-founded preprocessing turns `ite` into `dite`; `omega` knows `/` by a numeral."""
    assert clean("def f (n : Nat) : Nat := if n = 0 then 0 else f (n / 2)")
    assert clean("def g (k : Nat) (s : Nat) : Nat := if k = 0 then s else g (k - 1) (s + k)")


def test_guesslex_tries_the_gap_of_a_guarding_comparison() -> None:
    src = "def f (a : Array Int) (i : Nat) : Int := if i < a.size then a[i]! + f a (i + 1) else 0"
    assert clean(src)


def test_termination_by_measure_is_checked_at_every_call() -> None:
    ok = ("def f (a : Array Int) (i : Nat) : Int :=\n  if h : i < a.size then a[i] + f a (i + 1) else 0\n"
          "termination_by a.size - i")
    assert clean(ok)
    not_decreasing = ("def f (a : Array Int) (i : Nat) : Int :=\n  if h : i < a.size then a[i] + f a (i + 2) else 0\n"
                      "termination_by a.size - i - 3")
    assert gaps(not_decreasing) == ["termination"]


def test_no_basic_measure_decreases_when_the_index_is_not_advanced() -> None:
    """GuessLex's basic measures (Lean.Elab.PreDefinition.WF.GuessLex; reference manual,
    "Inferring Well-Founded Recursion") are `sizeOf` of each parameter and `e₂ - e₁` for a
    hypothesis `e₁ < e₂` on the parameters. With `i` unchanged and `acc` growing, each is equal or
    larger at the call under a satisfiable guard, so no tactic proves a decrease: Lean rejects."""
    nat_acc = ("def f (xs : List Nat) (i : Nat) (acc : Nat) : Nat :=\n"
               "  if i < xs.length then f xs i (acc + xs[i]!) else acc")
    assert errors(nat_acc) == ["termination"]
    int_max = ("def g (a : Array Int) (i : Nat) (best : Int) : Int :=\n"
               "  if i < a.size then g a i (max best a[i]!) else best")
    assert errors(int_max) == ["termination"]
    branches = ("def k (cs : List Char) (c : Char) (i : Nat) (acc : Nat) : Nat :=\n"
                "  if h : i < cs.length then k cs c i (if cs[i] == c then acc + 1 else acc) else acc")
    assert errors(branches) == ["termination"]


def test_a_growing_argument_is_not_decided_when_a_guard_bounds_it() -> None:
    """`if acc < 10 then f … (acc + 1)`: the hypothesis gives the measure `10 - acc`, which does
    decrease (Lean accepts); the rule must not fire on a parameter a hypothesis mentions."""
    src = "def f (xs : List Nat) (acc : Nat) : Nat :=\n  if acc < 10 then f xs (acc + 1) else acc"
    assert "termination" not in errors(src)


def test_a_contradictory_guard_is_not_called_non_terminating() -> None:
    """Under `i < n ∧ n ≤ i` every goal is provable (omega closes it by contradiction), so a call
    there with unchanged arguments does not make Lean reject the definition."""
    src = ("def f (n : Nat) (i : Nat) (acc : Nat) : Nat :=\n"
           "  if i < n then (if n ≤ i then f n i (acc + 1) else acc) else acc")
    assert "termination" not in errors(src)


def test_a_changed_argument_of_another_type_is_not_decided() -> None:
    src = ("def f (xs : List Nat) (i : Nat) (acc : List Nat) : List Nat :=\n"
           "  if i < xs.length then f xs i (acc ++ [xs[i]!]) else acc")
    assert "termination" not in errors(src)
    assert "termination" in gaps(src)


def test_partial_definitions_need_no_termination_argument() -> None:
    assert clean("partial def f (n : Nat) : Nat := if n = 0 then 0 else f (n / 2)")


# -- the yardstick ---------------------------------------------------------------------------------

DATA = Path(os.environ.get("VERISCALE_DATA", Path(__file__).resolve().parents[4] / "shared" / "data"))


@pytest.mark.data
@pytest.mark.skipif(not (DATA / "verinaplus").is_dir(), reason="reference data absent")
def test_every_ground_truth_file_elaborates_without_error() -> None:
    """Every Verina task compiles under real Lean, so an error here is the elaborator's."""
    files = sorted(glob.glob(str(DATA / "verinaplus" / "*" / "task.lean")))
    assert len(files) >= 150
    bad = {Path(f).parent.name: [d.format() for d in _report(Path(f).read_text(encoding="utf-8")).errors]
           for f in files}
    assert {k: v for k, v in bad.items() if v} == {}


# -- dependent proof parameters (Lean.Elab.App `elabAppArgs`) -----------------------------------------


def test_head_without_its_proof_is_a_function_of_that_proof() -> None:
    """`List.head : (as : List α) → as ≠ [] → α`: `xs.head` is `xs ≠ [] → α`. Two such terms about
    different local lists have types no unfolding equates (Lean.Meta.ExprDefEq: distinct free
    variables), so `=` between them is a type mismatch; about the same list it is well typed."""
    bad = "def p (xs : List Nat) (ys : List Nat) : Prop := xs.head = ys.head"
    assert errors(bad) == ["type-mismatch"]
    assert "type-mismatch" not in errors("def p (xs : List Nat) : Prop := xs.head = xs.head")


# -- expected types through applications (Lean.Elab.App `propagateExpectedType`) ----------------------


def test_the_expected_type_reaches_the_argument_of_a_lambda_head() -> None:
    """Before the first explicit argument, the result type `?α` of `fun x => x` is unified with the
    expected `Int`, so `n - 5` is elaborated at `Int` (`binop%`, Lean.Elab.Extra `analyze`)."""
    from veriscale.backends.embedded import ast as A

    program = Program("def h (n : Nat) : Int :=\n  (fun x => x) (n - 5)\n")
    assert not program.elaboration.diagnostics
    body = program.env.defs["h"].cmd.body
    sub = body.args[0].term
    assert isinstance(sub, A.BinOp) and str(program.elaboration.node_types.of(sub)) == "Int"


def test_no_propagation_into_an_arithmetic_tree_of_unknown_leaves() -> None:
    """`let f := fun k => k - 3` leaves `HSub ?α ?β ?γ` pending in Lean, which the elaborator's
    homogeneous reading cannot follow: the expected type is not propagated into it."""
    from veriscale.backends.embedded import ast as A

    program = Program("def h (n : Nat) : Int :=\n  let f := fun k => k - 3\n  f n\n")
    call = program.env.defs["h"].cmd.body.body
    assert isinstance(call, A.App) and str(program.elaboration.node_types.of(call.args[0])) == "Nat"

