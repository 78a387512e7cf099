"""Rules found by the seventh round of hostile and careless submissions (issue 12).

Each test states Lean's behaviour and where Lean decides it. Snippets are our own; ``errors(src)``
are the rules of the errors the elaborator reports (Lean rejects the file), ``gaps(src)`` the
rules of places it cannot judge; a well-typed control has neither.
"""

from __future__ import annotations

from conftest import elab_clean as clean
from conftest import elab_errors as errors
from conftest import elab_gaps as gaps
from conftest import elab_report as _report

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded import resolve as R
from veriscale.backends.embedded.parser import parse_file

MATHLIB = "import Mathlib\n"


def messages(src: str) -> list[str]:
    return [d.message for d in _report(src).errors]


def scope_errors(src: str) -> list[str]:
    return [d.message for d in R.walk_scopes(parse_file(src).commands, has_mathlib=False).errors]


def command_errors(src: str) -> list[A.CommandError]:
    return [c for c in parse_file(src).commands if isinstance(c, A.CommandError)]


# -- `haveI`/`letI` are term parsers of Lean (Lean.Parser.Term `haveI`/`letI`, a `haveDecl`) -----


def test_haveI_and_letI_parse_with_an_anonymous_or_named_binder() -> None:
    for head in ("haveI : Max Int := ⟨fun x y => if x ≤ y then y else x⟩",
                 "letI inst : Max Int := ⟨fun x y => if x ≤ y then y else x⟩"):
        src = f"def f (a : Array Int) : Int :=\n  {head}\n  a.foldl max 0"
        assert not command_errors(src), head


def test_haveI_elaborates_its_body_as_have_does_and_letI_as_let() -> None:
    """`haveI` "behaves like `have`, but inlines the value instead of producing a `let_fun`": its
    body is elaborated with the value hidden, as after `have`, and the value is put in after;
    `letI` is the same after `let` (the value visible)."""
    def body(src: str) -> A.Let:
        (cmd,) = [c for c in parse_file(src).commands if isinstance(c, A.DefCmd)]
        assert isinstance(cmd.body, A.Let)
        return cmd.body

    assert body("def f : Nat :=\n  haveI x : Nat := 2\n  x").is_have
    assert not body("def f : Nat :=\n  letI x : Nat := 2\n  x").is_have
    assert body("def f : Nat :=\n  have x : Nat := 2\n  x").is_have


# -- `∃!` is Mathlib's notation (Mathlib/Logic/ExistsUnique.lean) ------------------------------


def test_exists_unique_without_mathlib_is_a_parse_error() -> None:
    src = "def p (a : Array Int) (r : Int) : Prop := ∃! i, i < a.size ∧ a[i]! = r"
    assert errors(src) == ["parse"]


def test_exists_unique_with_mathlib_is_accepted() -> None:
    assert "parse" not in errors(MATHLIB + "def p (xs : List Nat) (r : Nat) : Prop := ∃! s : Nat, s = xs.sum ∧ s = r")


# -- an unknown name inside a signature type (auto-bound implicit, Lean.Elab.Term
#    `withAutoBoundImplicit`): the engine cannot tell what Lean makes of it ------------------------


def test_unknown_type_argument_in_a_binder_is_never_taken_as_known() -> None:
    """`Array Integer`: `Integer` is auto-bound (`{Integer : Sort u}`) or a declaration the engine
    does not know; either way the binder's type is not `Array` of anything the engine knows."""
    src = "def bestOf (a : Array Integer) : Int := a.foldl max 0"
    assert gaps(src) and not clean(src)


def test_unknown_type_argument_in_a_result_type_is_a_gap() -> None:
    assert gaps("def f (n : Nat) : List Integr := []")


def test_known_types_in_signatures_stay_clean() -> None:
    assert clean("def f (a : Array (List Int)) (p : Nat × Int) : Option (Array Int) := some #[p.2]")


# -- structure instances (Lean.Elab.StructInst) -------------------------------------------------

BEST = "structure Best where\n  best : Int\n  seen : Nat\n"


def test_structure_instance_missing_a_field_is_an_error() -> None:
    src = BEST + "def f (x : Int) : Int :=\n  let s : Best := { best := x }\n  s.best"
    assert errors(src) == ["structure-instance"]
    assert messages(src) == ["fields missing: 'seen'"]


def test_structure_instance_with_an_unknown_field_is_an_error() -> None:
    src = BEST + "def f (x : Int) : Int :=\n  let s : Best := { best := x, seen := 0, extra := 1 }\n  s.best"
    assert errors(src) == ["structure-instance"]


def test_defaults_ellipsis_and_update_need_no_other_field() -> None:
    with_default = "structure Best where\n  best : Int\n  seen : Nat := 0\n"
    assert clean(with_default + "def f (x : Int) : Int :=\n  let s : Best := { best := x }\n  s.best")
    assert "structure-instance" not in errors(BEST + "def f (x : Int) : Best := { best := x, .. }")
    assert clean(BEST + "def f (s : Best) (x : Int) : Best := { s with best := x }")


def test_structure_with_parents_is_not_claimed() -> None:
    """`extends` brings the parent's fields, which the engine does not gather: never an error."""
    src = BEST + "structure More extends Best where\n  tag : Nat\ndef f (x : Int) : More := { best := x, seen := 0 }"
    assert "structure-instance" not in errors(src)


def test_field_notation_with_no_field_or_function_of_the_file_structure() -> None:
    """`s.bset` on the file's root structure: its namespace holds only what the file and Lean's
    structure command put there (Lean.Elab.App `resolveLValLoop`)."""
    src = BEST + "def f (s : Best) : Int := s.bset"
    assert errors(src) == ["unknown-constant"]
    assert clean(BEST + "def Best.total (s : Best) : Int := s.best + s.seen\ndef f (s : Best) : Int := s.total")


# -- declarations Lean's prelude already has (Lean.Elab.DeclModifiers `checkNotAlreadyDeclared`) --


def test_a_structure_named_like_a_prelude_type_is_a_redeclaration() -> None:
    """`Acc` is Init/WF.lean's accessibility predicate; `Dynamic` is Init/Dynamic.lean's."""
    assert any("`Acc` has already been declared" in m for m in scope_errors(BEST.replace("Best", "Acc")))
    assert any("`Dynamic` has already been declared" in m for m in scope_errors("def Dynamic : Nat := 1"))


def test_user_names_and_namespaced_names_are_fine() -> None:
    assert not scope_errors(BEST + "def Best.Acc : Nat := 1\nnamespace Foo\ndef Dynamic : Nat := 2\nend Foo")


# -- `match` needs one pattern per discriminant (Lean.Elab.Match) -------------------------------


def test_match_alternative_with_the_wrong_number_of_patterns() -> None:
    assert set(errors("def f (n : Nat) (x : Int) : Int :=\n  match n, x with\n  | 0 => 0\n  | _ => x")) == {
        "match-patterns"}
    assert "match-patterns" in errors("def f (n : Int) : Int :=\n  match n with\n  | d, _ => d")
    assert clean("def f (n : Nat) (x : Int) : Int :=\n  match n, x with\n  | 0, _ => 0\n  | _, y => y")


# -- named arguments name a binder of the function (Lean.Elab.App `elabAppArgs`) ----------------


def test_named_argument_must_name_a_binder() -> None:
    assert errors("def f (a : Array Int) : Int := a.foldl (fn := max) 0") == ["named-argument"]
    assert clean("def f (a : Array Int) : Int := a.foldl (init := 0) (f := max)")
    assert errors("def g (x y : Int) : Int := x - y\ndef f (a : Int) : Int := g (z := a) 1") == ["named-argument"]
    assert clean("def g (x y : Int) : Int := x - y\ndef f (a : Int) : Int := g (y := a) 1")


def test_named_argument_may_name_an_auto_bound_implicit() -> None:
    assert "named-argument" not in errors("def g (x : α) : α := x\ndef f (a : Int) : Int := g (α := Int) a")


# -- identifier characters (Lean.Parser.Basic `isIdFirst`/`isIdRest`/`isLetterLike`) -------------


def test_a_cyrillic_letter_is_a_parse_error_lean_shares() -> None:
    """`о` (U+043E) looks like Latin `o` but is neither an identifier character nor a token."""
    (err,) = command_errors("def f (s : String) : Nat :=\n  let tоtal := s.length\n  total")
    assert err.lean_rejects and "U+043E" in err.message


def test_greek_and_letter_like_characters_are_identifiers() -> None:
    assert not command_errors("def f (α : Nat) (ℓ : Nat) : Nat := α + ℓ")


def test_an_unknown_symbol_stays_undecided() -> None:
    """`−` (U+2212) is no core token; the engine does not claim Lean's whole token table."""
    (err,) = command_errors("def f (x y : Int) : Int := x − y")
    assert not err.lean_rejects


# -- round 6's open question: a let-bound predicate in an `if` ----------------------------------


def test_let_bound_predicate_is_seen_through_by_instance_search() -> None:
    """`whnfCore` zeta-reduces a let-variable of the local context (Lean.Meta.WHNF
    `whnfEasyCases`, `.fvar` with a value), so `Decidable (p x m)` finds `Int.decLt`."""
    assert clean("def f (a : Array Int) : Int :=\n  let p := fun (x y : Int) => x > y\n"
                 "  a.foldl (fun m x => if p x m then x else m) 0")
