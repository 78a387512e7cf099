"""Well-founded recursion and ``have`` proofs: for each rule a control Lean accepts and a variant
Lean rejects (or the engine cannot judge), which must never be accepted.

Lean's behaviour, by rule (v4.18 as Verina uses it; unchanged in v4.24):
``Lean.Elab.PreDefinition.WF.GuessLex`` (basic measures ``sizeOf p`` and ``e₂ - e₁`` from
hypotheses ``e₁ < e₂``; lexicographic combinations), ``WF.Fix`` (``MatcherApp.addArg``: a ``match``
on a parameter refines it in the goal; ``ite`` becomes ``dite`` so conditions are hypotheses),
``Init/WFTactics.lean`` (``clean_wf`` unfolds ``let`` values; ``decreasing_with`` runs ``simp``,
``decreasing_trivial`` tries ``omega``, ``assumption``, ...), ``Init/Data/String/Extra.lean``
(``String.Iterator.sizeOf_next_lt_of_atEnd`` as a ``decreasing_trivial`` rule), ``Lean.Elab.App``
and ``Lean.Elab.Tactic.evalApply`` for proof terms.
"""

from __future__ import annotations

from veriscale.backends.embedded.elab import elaborate
from veriscale.backends.embedded.program import Program


def _rules(src: str, kind: str) -> list[str]:
    return [d.rule for d in elaborate(Program(src).env).diagnostics if d.kind == kind]


def clean(src: str) -> bool:
    return not elaborate(Program(src).env).diagnostics


def not_accepted(src: str, rule: str) -> bool:
    """The engine does not accept: an error or a gap of ``rule``."""
    return rule in _rules(src, "error") + _rules(src, "gap")


# -- GuessLex: lexicographic combinations, match refinement ----------------------------------------


def test_lexicographic_measure_over_two_lists_is_found() -> None:
    """Call 1 shrinks `a` (`b` refined to `y :: ys` passes unchanged), call 2 keeps `a` and shrinks
    `b`: the order (sizeOf a, sizeOf b) decreases at both."""
    src = ("def zipLonger : List Nat → List Nat → Nat\n  | [], ys => ys.length\n  | xs, [] => xs.length\n"
           "  | x :: xs, y :: ys => if x < y then zipLonger xs (y :: ys) else zipLonger (x :: xs) ys\n")
    assert clean(src)
    # hostile: the second call grows `a` while shrinking `b`, the first shrinks `a` growing `b`
    bad = ("def seesaw : List Nat → List Nat → Nat\n  | [], ys => ys.length\n  | xs, [] => xs.length\n"
           "  | x :: xs, y :: ys => if x < y then seesaw xs (x :: y :: ys) else seesaw (y :: x :: xs) ys\n")
    assert not_accepted(bad, "termination")


def test_a_nested_match_refines_the_parameter_in_the_goal() -> None:
    """`match n | k + 1 => match k | j + 1 => f ((j + 3) / 3)`: the goal is `(j+3)/3 < j + 1 + 1`."""
    src = ("def thirds (n : Nat) : Nat :=\n  match n with\n  | 0 => 0\n  | k + 1 =>\n    match k with\n"
           "    | 0 => 1\n    | j + 1 => thirds ((j + 3) / 3)\n")
    assert clean(src)
    bad = ("def thirds (n : Nat) : Nat :=\n  match n with\n  | 0 => 0\n  | k + 1 =>\n    match k with\n"
           "    | 0 => 1\n    | j + 1 => thirds ((j + 9) / 3)\n")
    assert not_accepted(bad, "termination")


def test_parameters_of_a_fun_body_are_recursion_parameters() -> None:
    src = ("def digitsOf : Nat → List Nat := fun n =>\n  if n < 10 then [n] else digitsOf (n / 10) ++ [n % 10]\n")
    assert clean(src)
    bad = "def digitsOf : Nat → List Nat := fun n =>\n  if n < 10 then [n] else digitsOf (n / 1) ++ [n % 10]\n"
    assert not_accepted(bad, "termination")


# -- let values (clean_wf's zetaDelta) and simp lemmas ----------------------------------------------


def test_let_values_and_array_size_lemmas_reach_the_goal() -> None:
    """`next := acc.set! i 0`: `simp` rewrites `next.size` with `Array.size_set!`, then `omega`
    uses `i < acc.size` for the measure `acc.size - i` GuessLex takes from that hypothesis."""
    src = ("def zeroFrom (acc : Array Nat) (i : Nat) : Array Nat :=\n  if i < acc.size then\n"
           "    let next := acc.set! i 0\n    zeroFrom next (i + 1)\n  else acc\n")
    assert clean(src)
    # careless: `push` grows the array as fast as the index
    bad = ("def zeroFrom (acc : Array Nat) (i : Nat) : Array Nat :=\n  if i < acc.size then\n"
           "    let next := acc.push 0\n    zeroFrom next (i + 1)\n  else acc\n")
    assert not_accepted(bad, "termination")


def test_termination_by_with_length_of_refined_lists() -> None:
    src = ("def common (xs ys : List Nat) : Nat :=\n  match xs, ys with\n  | [], _ => 0\n  | _, [] => 0\n"
           "  | x :: xt, y :: yt => if x = y then 1 + common xt yt else max (common xt (y :: yt)) (common (x :: xt) yt)\n"
           "termination_by xs.length + ys.length\n")
    assert clean(src)
    bad = ("def common (xs ys : List Nat) : Nat :=\n  match xs, ys with\n  | [], _ => 0\n  | _, [] => 0\n"
           "  | x :: xt, y :: yt => if x = y then 1 + common xt yt else common (x :: xt) (y :: yt)\n"
           "termination_by xs.length + ys.length\n")
    assert not_accepted(bad, "termination")


def test_termination_by_binders_name_the_parameters_after_the_colon() -> None:
    src = ("def halve : Nat → Nat → Nat\n  | n, acc => if n > 1 then halve (n / 2) (acc + 1) else acc\n"
           "termination_by n _ => n\n")
    assert clean(src)
    wrong_measure = ("def halve : Nat → Nat → Nat\n  | n, acc => if n > 1 then halve (n / 2) (acc + 1) else acc\n"
                     "termination_by _ acc => acc\n")
    assert not_accepted(wrong_measure, "termination")


def test_a_shadowing_pattern_let_does_not_confuse_old_and_new_values() -> None:
    """`let (lo, hi) := …` is a `match` whose new `lo`, `hi` say nothing of the old ones (Lean's
    `lo✝`, `hi✝`): the hypothesis `lo✝ < hi✝` must not be read as one about the new names."""
    control = ("def squeeze (lo hi : Nat) : Nat :=\n  if h : lo < hi then\n    let (a, b) := (lo + 1, hi)\n"
               "    squeeze (lo + 1) hi\n  else lo\n")
    assert clean(control)
    src = ("def squeeze (lo hi : Nat) : Nat :=\n  if h : lo < hi then\n    let (hi, lo) := (lo, hi)\n"
           "    squeeze (hi + 1) lo\n  else lo\n")
    assert not_accepted(src, "termination")
    bad = ("def squeeze (lo hi : Nat) : Nat :=\n  if h : lo < hi then\n    let (lo, hi) := (lo, hi + 1)\n"
           "    squeeze lo hi\n  else lo\n")
    assert not_accepted(bad, "termination")


def test_string_iterator_steps_under_not_at_end() -> None:
    src = ("def countA (it : String.Iterator) (n : Nat) : Nat :=\n  if it.atEnd then n\n"
           "  else countA it.next (if it.curr = 'a' then n + 1 else n)\n")
    # (the binder type itself is a gap of its own at the top level; termination is decided)
    assert "termination" not in _rules(src, "gap") + _rules(src, "error")
    # careless: without the `atEnd` test no hypothesis lets the iterator lemma apply
    bad = "def countA (it : String.Iterator) (n : Nat) : Nat :=\n  countA it.next n\n"
    assert not_accepted(bad, "termination")


def test_int_facts_are_not_read_as_nat_facts() -> None:
    """`x < 0` about an `Int` is satisfiable; read at `Nat` it would be a contradiction proving
    anything. The call here does not decrease (`n` unchanged): never accepted."""
    src = "def stuck (x : Int) (n : Nat) : Nat :=\n  if x < 0 then (if n > 0 then stuck x n else 0) else 0\n"
    assert not clean(src)


def test_a_tactic_that_is_not_modelled_is_a_gap() -> None:
    src = ("def down (n : Nat) : Nat :=\n  if n = 0 then 0 else down (n - 1)\n"
           "termination_by n\ndecreasing_by all_goals simp_all; omega\n")
    assert "termination" in _rules(src, "gap")
    omega_only = "def down (n : Nat) : Nat :=\n  if n = 0 then 0 else down (n - 1)\ntermination_by n\ndecreasing_by omega\n"
    assert clean(omega_only)


# -- have proofs ----------------------------------------------------------------------------------

_HAVE = ("def shrink (n p : Nat) : Nat :=\n  if h : p > 1 ∧ n > 0 then\n    have : n / p < n := {proof}\n"
         "    shrink (n / p) p\n  else n\ntermination_by n\n")


def test_have_with_a_lemma_applied_to_and_projections() -> None:
    """`Nat.div_lt_self : 0 < n → 1 < k → n / k < n`; `h.2 : n > 0` is `0 < n` (`GT.gt` unfolds);
    the `have` is in the call's context, where `assumption` closes the goal."""
    assert clean(_HAVE.format(proof="Nat.div_lt_self h.2 h.1"))
    assert not_accepted(_HAVE.format(proof="Nat.div_lt_self h.1 h.2"), "proof")  # arguments swapped
    assert not_accepted(_HAVE.format(proof="Nat.div_lt_self h.2"), "proof")  # a hypothesis missing
    assert not_accepted(_HAVE.format(proof="Nat.div_lt_of_everything h"), "proof")  # no such lemma


def test_have_by_apply_and_exact_bullets() -> None:
    script = ("by\n      apply Nat.div_lt_self\n      · exact h.2\n"
              "      · exact Nat.lt_of_succ_le (Nat.succ_le_of_lt h.1)")
    assert clean(_HAVE.format(proof=script))
    missing = "by\n      apply Nat.div_lt_self\n      · exact h.2"
    assert not_accepted(_HAVE.format(proof=missing), "proof")
    unknown_tactic = "by\n      simp_all [Nat.div_lt_iff_lt_mul]"
    assert not_accepted(_HAVE.format(proof=unknown_tactic), "proof")


def test_a_lemma_about_nat_does_not_prove_an_int_statement() -> None:
    src = ("def shrinkI (n p : Int) : Int :=\n  if h : p > 1 ∧ n > 0 then\n"
           "    have : n / p < n := Nat.div_lt_self h.2 h.1\n    n / p\n  else n\n")
    assert not_accepted(src, "proof")
