"""Well-typed idioms the elaborator must accept (or leave open), and their ill-typed neighbours.

Each test states Lean's behaviour and where Lean decides it. Snippets are our own.

* ``pure v`` (``Pure.pure : α → f α``, ``Init/Prelude.lean``) takes its monad from the expected
  type (``Lean.Elab.App``, ``propagateExpectedType``): ``Id`` in ``Id.run do``, ``Option``.
* ``simp`` closes a goal its simp set rewrites to ``True`` (``simpTargetCore``,
  ``Lean/Meta/Tactic/Simp/Main.lean``); a definition is in the simp set when tagged ``@[simp]``
  (not for ``simp only``) or listed.
* ``xs[i]`` for ``i : Fin n`` is ``xs[i.val]`` (``Fin.instGetElemFinVal``, ``Init/GetElem.lean``);
  ``get_elem_tactic``'s ``omega`` knows ``i.val < n`` for every ``Fin.val`` atom
  (``Lean/Elab/Tactic/Omega/OmegaM.lean``). ``Nat.fold n f`` gives ``f`` a proof ``h : i < n``
  (``Init/Data/Nat/Fold.lean``).
"""

from __future__ import annotations

from veriscale.backends.embedded.elab import elaborate
from veriscale.backends.embedded.program import Program


def _kinds(src: str) -> list[tuple[str, str]]:
    return [(d.kind, d.rule) for d in elaborate(Program(src).env).diagnostics]


def _errors(src: str) -> list[str]:
    return [d.rule for d in elaborate(Program(src).env).diagnostics if d.kind == "error"]


# -- pure -------------------------------------------------------------------------------------------

def test_pure_ends_an_id_do_block() -> None:
    src = ("def f (a : Array Int) : Nat := Id.run do\n  let mut n := 0\n  for _ in a do\n    n := n + 1\n"
           "  pure n")
    assert _kinds(src) == []


def test_pure_in_an_option_do_block_and_qualified() -> None:
    assert _kinds("def f (a : Array Int) : Option Nat := do\n  let n := a.size\n  pure n") == []
    assert _kinds("def f (a : Array Int) : Nat := Id.run (Pure.pure a.size)") == []


def test_pure_of_a_value_of_another_type_is_a_type_mismatch() -> None:
    assert _errors('def f (a : Array Int) : Nat := Id.run do\n  pure "x"') == ["type-mismatch"]


def test_a_user_pure_in_a_namespace_is_the_one_used() -> None:
    """Inside ``namespace Foo``, ``pure`` resolves to ``Foo.pure`` first (``resolveGlobalName``)."""
    src = ("namespace Foo\ndef pure (n : Nat) : Nat := n + 1\n"
           "def g (a : Array Int) : Nat := pure a.size\nend Foo")
    assert _kinds(src) == []


def test_pure_at_an_unmodelled_monad_is_a_gap_not_an_error() -> None:
    kinds = _kinds("def f (n : Nat) : StateM Nat Nat := pure n")
    assert kinds and all(kind == "gap" for kind, _ in kinds)


def test_pure_and_throw_at_except_check_their_argument() -> None:
    """``Except.pure : α → Except ε α`` and ``throw : ε → Except ε α`` (``MonadExceptOf ε (Except ε)``,
    Init/Prelude.lean, Init/Control/Except.lean): each argument is checked at its own side."""
    assert _kinds("def f (n : Nat) : Except String Nat := pure n") == []
    assert _kinds('def f (n : Nat) : Except String Nat := if n > 3 then throw "big" else pure n') == []
    assert _errors('def f (n : Nat) : Except String Nat := pure "x"') == ["type-mismatch"]
    assert _errors("def f (n : Nat) : Except String Nat := throw n") == ["type-mismatch"]


# -- simp on a goal that becomes True -------------------------------------------------------------

_PRE = ("@[reducible, simp] def p (xs : List Nat) : Prop := True\n"
        "@[reducible] def q (xs : List Nat) : Prop := True\n"
        "@[reducible, simp] def r (xs : List Nat) : Prop := xs.length > 0\n")


def _rec(name: str, pre: str, proof: str) -> str:
    return (f"{_PRE}def {name} (xs : List Nat) (h : {pre} xs) : Nat := match xs with\n"
            f"  | [] => 0\n  | x :: rest => x + {name} rest ({proof})")


def test_simp_closes_a_simp_definition_that_is_true() -> None:
    for proof in ("by simp", "by simp [p]", "by simp only [p]", "by simp_all"):
        assert _kinds(_rec("f", "p", proof)) == [], proof


def test_simp_unfolds_a_definition_outside_the_simp_set_only_when_listed() -> None:
    assert _kinds(_rec("g", "q", "by simp [q]")) == []
    assert _kinds(_rec("g", "q", "by simp")) == [("gap", "proof")]
    assert _kinds(_rec("g", "p", "by simp only []")) == [("gap", "proof")]


def test_simp_on_a_goal_that_is_not_true_stays_a_gap() -> None:
    assert _kinds(_rec("g", "r", "by simp")) == [("gap", "proof")]


# -- Fin indices and folds ------------------------------------------------------------------------

def test_fin_index_bounded_by_the_size_is_accepted() -> None:
    assert _kinds("def f (a : Array Int) : Int := Fin.foldl a.size (fun acc i => max acc a[i]) 0") == []
    assert _kinds("def f (a : Array Int) : Int := Fin.foldr a.size (fun i acc => max a[i] acc) 0") == []
    assert _kinds("def f (a : Array Int) (i : Fin a.size) : Int := a[i]") == []


def test_fin_index_bounded_by_a_smaller_number_is_accepted() -> None:
    src = "def f (a : Array Int) (n : Nat) (h : n ≤ a.size) : Int := Fin.foldl n (fun acc i => max acc a[i]) 0"
    assert _kinds(src) == []


def test_fin_index_with_an_unrelated_bound_fails_to_prove_the_index() -> None:
    assert _errors("def f (a : Array Int) (n : Nat) : Int := Fin.foldl n (fun acc i => max acc a[i]) 0") \
        == ["getelem-bound"]
    assert _errors("def f (a : Array Int) : Int := Fin.foldl (a.size + 1) (fun acc i => max acc a[i]) 0") \
        == ["getelem-bound"]


def test_fin_fields_as_bound_proofs() -> None:
    assert _kinds("def f (a : Array Int) : Int := Fin.foldl a.size (fun acc i => max acc (a[i.val]'i.isLt)) 0") == []
    assert _kinds("def f (a : Array Int) : Int := Fin.foldl a.size (fun acc i => max acc (a[i.1]'i.2)) 0") == []
    assert _kinds("def f (a : Array Int) : Int := Fin.foldl a.size (fun acc i => max acc (a[i.val]'(by omega))) 0") \
        == []


def test_fin_range_elements_index_once_their_type_is_known() -> None:
    """``xs.map (fun i => a[i])`` elaborates the function before the receiver fixes ``i``'s type;
    ``get_elem_tactic`` runs after elaboration, when it is ``Fin a.size``."""
    assert _kinds("def f (a : Array Int) : List Int := (List.finRange a.size).map (fun i => a[i])") == []
    src = "def f (a : Array Int) : Int := Id.run do\n  let mut s := 0\n  for i in List.finRange a.size do\n    s := s + a[i]\n  return s"
    assert _kinds(src) == []


def test_an_index_whose_type_nothing_fixes_is_still_a_nat() -> None:
    assert "getelem-bound" in _errors("def f (a : Array Int) (r : Int) : Prop := ∃ i, a[i] = r")


def test_nat_fold_gives_the_lambda_its_bound() -> None:
    assert _kinds("def f (a : Array Int) : Int := Nat.fold a.size (fun i h acc => acc + a[i]) 0") == []
    assert _kinds("def f (a : Array Int) : Int := a.size.fold (fun j hj acc => acc + a[j]'hj) 0") == []


def test_nat_fold_bound_about_another_number_fails() -> None:
    assert _errors("def f (a : Array Int) (n : Nat) : Int := Nat.fold n (fun i h acc => acc + a[i]) 0") \
        == ["getelem-bound"]


# -- the Fin builtins at run time -----------------------------------------------------------------

def test_fin_folds_visit_indices_in_lean_order() -> None:
    """``Fin.foldl 3 f x = f (f (f x 0) 1) 2``, ``Fin.foldr 3 f x = f 0 (f 1 (f 2 x))``
    (``Init/Data/Fin/Fold.lean``)."""
    from veriscale.backends.embedded.builtins.fins import fin_foldl, fin_foldr, list_fin_range
    from veriscale.lean.values import Nat

    assert fin_foldl(Nat(3), lambda acc, i: f"({acc}{int(i)})", "x") == "(((x0)1)2)"
    assert fin_foldr(Nat(3), lambda i, acc: f"({int(i)}{acc})", "x") == "(0(1(2x)))"
    assert list_fin_range(Nat(3)) == (Nat(0), Nat(1), Nat(2))
    assert list_fin_range(Nat(0)) == ()


def test_the_arguments_of_an_unknown_function_raise_no_error_of_their_own() -> None:
    """An argument of a function the engine does not know has an unknown expected type: a lambda's
    binders there are unknown, so ``a[i]`` in it is not judged (with Mathlib imported the name may
    exist, so the call itself is a gap, not an error)."""
    src = "import Mathlib\ndef f (a : Array Int) : Int := Array.someUnknownFold (fun i acc => acc + a[i]) 0 a"
    kinds = _kinds(src)
    assert kinds and all(kind == "gap" for kind, _ in kinds)
