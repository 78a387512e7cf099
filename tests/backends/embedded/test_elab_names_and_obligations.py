"""Elaborator rules found by the sixth round of hostile and careless submissions (issue 12).

Each test states Lean's behaviour and where Lean decides it. Snippets are our own; ``errors(src)``
are the rules of the errors the elaborator reports (Lean rejects the file), ``gaps(src)`` the
rules of places it cannot judge; a well-typed control has neither.
"""

from __future__ import annotations

from conftest import elab_clean as clean
from conftest import elab_errors as errors
from conftest import elab_gaps as gaps

MATHLIB = "import Mathlib\n"


# -- ℕ and ℤ are Mathlib's notations (Mathlib/Data/Nat/Notation.lean, Data/Int/Notation.lean) ------


def test_nat_notation_in_a_term_without_mathlib_is_an_unknown_identifier() -> None:
    """Core v4.24 declares no `ℕ`; a term gets no auto-bound implicit (Lean.Elab.Term `elabIdent`)."""
    assert errors("def f (n : Nat) : Nat := (n : ℕ)") == ["unknown-constant"]
    assert errors("def f (n : Int) : Int := (n + 1 : ℤ)") == ["unknown-constant"]


def test_nat_notation_in_a_signature_without_mathlib_is_not_nat() -> None:
    """In a signature `ℕ` is an auto-bound type variable, not `Nat`: the engine cannot call it Nat."""
    src = "def f (n : Nat) : ℕ := n"
    assert errors(src) or gaps(src)


def test_nat_notation_with_mathlib_is_nat() -> None:
    assert clean(MATHLIB + "def f (n : ℕ) : ℕ := (n + 1 : ℕ)")
    assert clean(MATHLIB + "def f (n : ℤ) : ℤ := (n - 1 : ℤ)")


def test_a_user_abbreviation_named_like_the_notation_is_used() -> None:
    assert clean("abbrev ℕ := Nat\ndef f (n : Nat) : Nat := (n : ℕ)")


# -- Batteries' names (which Mathlib imports) are not core's at v4.24 ----------------------------


def test_batteries_list_and_nat_functions_need_an_import() -> None:
    """`Nat.sqrt` came to core in v4.32 (#14054); `List.diff`/`union`/`inter` are Batteries' still."""
    assert errors("def f (n : Nat) : Nat := Nat.sqrt n") == ["unknown-constant"]
    for name in ("diff", "union", "inter"):
        assert errors(f"def f (xs : List Nat) : List Nat := xs.{name} xs") != [], name
    assert clean(MATHLIB + "def f (n : Nat) : Nat := Nat.sqrt n")
    assert clean(MATHLIB + "def f (xs : List Nat) : List Nat := xs.diff xs")


# -- Decidable of a proposition: instance synthesis unfolds only reducible definitions -------------
# (Lean.Meta.SynthInstance at TransparencyMode.instances; Init/Prelude.lean `ite [Decidable c]`)


def test_if_on_a_plain_prop_definition_has_no_decidable_instance() -> None:
    base = "def Big (x y : Int) : Prop := x > y\n"
    assert errors(base + "def f (x y : Int) : Int := if Big x y then x else y") == ["undecidable-condition"]
    assert errors(base + "def f (x y : Int) : Bool := decide (Big x y)") == ["undecidable-condition"]
    assert errors(base + "def f (x y : Int) : Int := if ¬ Big x y then y else x") == ["undecidable-condition"]


def test_a_prop_definition_used_as_a_bool_needs_decidable() -> None:
    src = "def Same (x y : Char) : Prop := x = y\ndef f (s : List Char) (c : Char) : Nat := (s.filter (fun x => Same x c)).length"
    assert errors(src) == ["undecidable-condition"]


def test_simp_attribute_does_not_make_a_definition_reducible() -> None:
    src = "@[simp] def Big (x y : Int) : Prop := x > y\ndef f (x y : Int) : Int := if Big x y then x else y"
    assert errors(src) == ["undecidable-condition"]


def test_reducible_and_abbrev_prop_definitions_unfold() -> None:
    use = "def f (x y : Int) : Int := if Big x y then x else y"
    assert clean("@[reducible] def Big (x y : Int) : Prop := x > y\n" + use)
    assert clean("abbrev Big (x y : Int) : Prop := x > y\n" + use)


def test_a_prop_definition_stays_fine_where_no_instance_is_needed() -> None:
    assert clean("def Big (x y : Int) : Prop := x > y\ndef g (x y : Int) (h : Big x y) : Int := x")


def test_a_prop_valued_parameter_needs_a_decidable_binder() -> None:
    bad = "def f (p : Int → Int → Prop) (x y : Int) : Int := if p x y then x else y"
    ok = "def f (p : Int → Int → Prop) [DecidableRel p] (x y : Int) : Int := if p x y then x else y"
    assert errors(bad) == ["undecidable-condition"]
    assert clean(ok)


def test_open_classical_makes_every_proposition_decidable() -> None:
    """`Classical.propDecidable` is a scoped instance of namespace Classical."""
    src = "open Classical\ndef Big (x y : Int) : Prop := x > y\ndef f (x y : Int) : Int := if Big x y then x else y"
    assert "undecidable-condition" not in errors(src)


# -- autoParam proofs of library functions are proved where the call is written ------------------
# (Lean.Elab.App synthesizes `(h : 0 < xs.size := by get_elem_tactic)` at the call)


def test_array_back_needs_a_proof_that_the_array_is_not_empty() -> None:
    """`Array.back (xs) (h : 0 < xs.size := by get_elem_tactic)` (Init/Data/Array/Basic.lean)."""
    assert errors("def f (xs : Array Nat) : Nat := xs.back") == ["getelem-bound"]
    assert clean("def f (xs : Array Nat) (h : 0 < xs.size) : Nat := xs.back")
    assert clean("def f (xs : Array Nat) : Nat := xs.back!")


def test_array_back_bound_the_prover_cannot_read_is_undecided() -> None:
    src = "def f (xs : Array Nat) (h : 0 < xs.size) : Nat := xs.reverse.back"
    assert gaps(src) == ["getelem-bound"] and errors(src) == []


def test_array_swap_bounds_come_from_the_hypotheses_not_from_run_time() -> None:
    assert errors("def f (xs : Array Nat) : Array Nat := xs.swap 0 1") == ["getelem-bound", "getelem-bound"]
    assert clean("def f (xs : Array Nat) (h : 1 < xs.size) : Array Nat := xs.swap 0 1")
