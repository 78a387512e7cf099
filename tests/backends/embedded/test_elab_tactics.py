"""Proofs outside theorems (:mod:`veriscale.backends.embedded.elab.tactics`): checked or a gap.

Each test states what Lean does and where Lean decides it. Snippets are our own.

* ``xs[i]'h`` is ``getElem xs i h``: ``h`` must have a type definitionally equal to
  ``i < xs.size`` (``Init/GetElem.lean``; ``Lean.Elab.Term.ensureHasType``, "type mismatch").
* ``omega`` reads every hypothesis of the local context after ``whnfR``
  (``Lean/Elab/Tactic/Omega/Frontend.lean``, ``omegaTactic``/``addFact``) and fails with "omega
  could not prove the goal".
* ``decide`` evaluates the ``Decidable`` instance (``Lean.Elab.Tactic.evalDecide``: "tactic
  'decide' proved that the proposition … is false").
* ``trivial`` tries ``rfl``, ``assumption``, ``decide``, ``True.intro``, ``And.intro`` (its
  ``macro_rules`` in ``Init/Tactics.lean``); ``simp``/``simp_all``/``linarith`` are not modelled.
"""

from __future__ import annotations

import pytest

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab import elaborate
from veriscale.backends.embedded.elab.tactics import closed_value
from veriscale.backends.embedded.parser.parse import parse_term
from veriscale.backends.embedded.program import Program


def _kinds(src: str) -> list[tuple[str, str]]:
    return [(d.kind, d.rule) for d in elaborate(Program(src).env).diagnostics]


def _messages(src: str) -> list[str]:
    return [d.message for d in elaborate(Program(src).env).diagnostics]


ERROR = [("error", "proof")]
GAP = [("gap", "proof")]


# -- xs[i]'p ---------------------------------------------------------------------------------------

def test_bound_proof_by_the_dependent_if_hypothesis_is_accepted() -> None:
    assert _kinds("def f (a : Array Nat) (i : Nat) : Nat := if h : i < a.size then a[i]'h else 0") == []


def test_bound_proof_stated_with_gt_or_array_size_is_accepted() -> None:
    """``a.size > i`` is ``i < a.size`` (``GT.gt`` is reducible); ``Array.size a`` is ``a.size``."""
    assert _kinds("def f (a : Array Nat) (i : Nat) : Nat := if h : a.size > i then a[i]'h else 0") == []
    assert _kinds("def f (a : Array Nat) (i : Nat) : Nat := if h : i < Array.size a then a[i]'h else 0") == []


def test_bound_proof_of_a_weaker_statement_is_a_type_mismatch() -> None:
    src = "def f (a : Array Nat) (i : Nat) : Nat := if h : i ≤ a.size then a[i]'h else 0"
    assert _kinds(src) == ERROR
    assert "type mismatch" in _messages(src)[0]


def test_bound_proof_about_another_array_is_a_type_mismatch() -> None:
    assert _kinds("def f (a b : Array Nat) (i : Nat) (h : i < b.size) : Nat := a[i]'h") == ERROR


def test_bound_proof_that_is_data_is_a_type_mismatch() -> None:
    assert _kinds("def f (a : Array Nat) (i k : Nat) : Nat := a[i]'k") == ERROR


def test_bound_proof_equivalent_but_not_syntactically_the_bound_is_a_gap() -> None:
    """``i + 1 ≤ a.size`` is definitionally ``i < a.size`` (``Nat.lt n m := Nat.le (n+1) m``); the
    engine does not model that unfolding, so it cannot say -- a gap, not an error."""
    assert _kinds("def f (a : Array Nat) (i : Nat) : Nat := if h : i + 1 ≤ a.size then a[i]'h else 0") == GAP


def test_bound_by_a_reducible_precondition_is_accepted() -> None:
    src = ("@[reducible] def f_pre (a : Array Nat) : Prop := a.size > 0\n"
           "def f (a : Array Nat) (h_pre : f_pre a) : Nat := a[0]'h_pre")
    assert _kinds(src) == []


# -- tactics --------------------------------------------------------------------------------------

def test_omega_with_the_fact_in_scope_is_accepted() -> None:
    assert _kinds("def f (a : Array Nat) (i : Nat) : Nat := if h : i + 1 < a.size then a[i]'(by omega) else 0") == []


def test_omega_with_no_fact_for_the_bound_fails() -> None:
    src = "def f (a : Array Nat) (i : Nat) : Nat := a[i]'(by omega)"
    assert _kinds(src) == ERROR
    assert _messages(src)[0].startswith("omega could not prove the goal")


def test_omega_is_a_gap_when_a_hypothesis_it_cannot_read_mentions_the_variables() -> None:
    """An ``Int`` fact about ``i``'s bound could be what omega uses: the engine cannot refute."""
    src = "def f (a : Array Nat) (i : Nat) (h : (i : Int) < a.size) : Nat := a[i]'(by omega)"
    assert _kinds(src) == GAP


def test_decide_evaluates_closed_propositions() -> None:
    assert _kinds("def f (n : Nat) : Nat :=\n  have h : 2 + 3 < 6 := by decide\n  n") == []
    src = "def f (n : Nat) : Nat :=\n  have h : 3 < 2 := by decide\n  n"
    assert _kinds(src) == ERROR
    assert "proved that the proposition" in _messages(src)[0]


def test_decide_on_an_open_proposition_is_a_gap() -> None:
    assert _kinds("def f (n : Nat) : Nat :=\n  have h : n < n + 1 := by decide\n  n") == GAP


def test_rfl_and_trivial_on_closed_propositions() -> None:
    assert _kinds("def f (n : Nat) : Nat :=\n  have h : 2 + 2 = 4 := by rfl\n  n") == []
    assert _kinds("def f (n : Nat) : Nat :=\n  have h : 2 + 2 = 5 := by rfl\n  n") == ERROR
    assert _kinds("def t : 1 < 2 := by trivial") == []
    assert _kinds("def t : 2 < 1 := by trivial") == ERROR


def test_a_tactic_block_at_a_declared_proposition_is_checked() -> None:
    assert _kinds("def f (n : Nat) : Nat :=\n  let _p : 2 < 1 := by decide\n  n") == ERROR
    assert _kinds("def f (n : Nat) : Nat :=\n  let _p : 1 < 2 := by decide\n  n") == []


def test_an_ascribed_tactic_block_is_never_a_pass() -> None:
    """``(by decide : 2 < 1)``: the engine's parser reads the ascription into the tactic block, so
    the proposition is unknown there -- a gap (Lean rejects it; never accepted here)."""
    assert _kinds("def f (n : Nat) : Nat :=\n  let _p := (by trivial : 2 < 1)\n  n") == GAP


@pytest.mark.parametrize("tactic", ["simp", "simp_all", "linarith", "aesop", "norm_num", "omega; simp"])
def test_unmodelled_tactics_are_gaps_never_passes(tactic: str) -> None:
    src = f"def f (a : Array Nat) (i : Nat) (h : i < a.size) : Nat := a[i]'(by {tactic})"
    assert _kinds(src) == GAP


def test_proof_arguments_of_calls_are_checked() -> None:
    helper = "def g (a : Array Nat) (h : 1 < a.size) : Nat := a[1]\n"
    assert _kinds(helper + "def f (a : Array Nat) (h : 2 < a.size) : Nat := g a (by omega)") == []
    assert _kinds(helper + "def f (a : Array Nat) (h : 0 < a.size) : Nat := g a (by omega)") == ERROR
    assert _kinds(helper + "def f (a : Array Nat) (h : 0 < a.size) : Nat := g a h") == ERROR
    assert _kinds(helper + "def f (a : Array Nat) (h : 0 < a.size) : Nat := g a (by simp_all)") == GAP


def test_a_tactic_block_with_no_known_proposition_is_a_gap() -> None:
    assert ("gap", "proof") in _kinds("def f (n : Nat) : Nat :=\n  let p := by omega\n  n")


@pytest.mark.parametrize(("text", "value"), [
    ("2 + 3 * 4", 14), ("7 / 2", 3), ("7 % 0", 7), ("1 < 2 ∧ ¬ (3 ≤ 2)", True), ("[1, 2, 3].length", 3),
    ("#[1, 2].size = 3", False), ("5 - 7 = 0", None), ("n < 2", None),
])
def test_closed_values(text: str, value: object) -> None:
    assert closed_value(parse_term(text)) == value
    assert isinstance(parse_term(text), A.Node)
