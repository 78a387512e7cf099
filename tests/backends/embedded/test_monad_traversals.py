"""``foldlM``/``mapM``/``forM`` of lists and arrays at ``Option``, ``Except ε`` and ``Id``
(:mod:`veriscale.backends.embedded.elab.monadic`, :mod:`veriscale.backends.embedded.compiler.monads`).

Lean's signatures (Init/Data/List/Control.lean, Init/Data/Array/Basic.lean): ``List.foldlM (f : s →
α → m s) (init : s) : List α → m s``, ``List.mapM (f : α → m β) (as : List α) : m (List β)``,
``protected List.forM (as : List α) (f : α → m PUnit) : m PUnit``, and the ``Array`` versions
(``Array.forM (f : α → m PUnit) (as : Array α) (start := 0) (stop := as.size)``). In ``Option`` and
``Except`` the ``bind`` chain stops at the first ``none``/``.error e``. Snippets are our own."""

from __future__ import annotations

from conftest import elab_diagnostics as diagnostics
from conftest import run_elaborated as run

from veriscale.lean.values import NONE, UNIT, Arr, Ctor, Nat, Some


def test_list_foldlm_in_option_stops_at_none() -> None:
    src = ("def f (xs : List Nat) : Option Nat :=\n"
           "  xs.foldlM (fun acc x => if acc + x > 10 then none else some (acc + x)) 0")
    assert run(src, xs=(1, 2, 3)) == Some(Nat(6))
    assert run(src, xs=(5, 9, 1)) is NONE


def test_foldlm_by_its_full_name_and_in_except() -> None:
    src = ('def f (xs : List Int) : Except String Int :=\n'
           '  List.foldlM (fun acc x => if x < 0 then throw s!"negative {x}" else pure (acc + x)) 0 xs')
    assert run(src, xs=(1, 2)) == Ctor("Except.ok", (3,))
    assert run(src, xs=(1, -2, -3)) == Ctor("Except.error", ("negative -2",))


def test_array_foldlm_in_id_under_id_run() -> None:
    src = "def f (xs : Array Int) : Int := Id.run do\n  let s ← xs.foldlM (fun acc x => pure (acc + x)) 0\n  return s * 2"
    assert run(src, xs=Arr((1, 2, 3))) == 12


def test_mapm_collects_or_fails() -> None:
    lst = "def f (xs : List Nat) : Option (List Nat) := xs.mapM (fun x => if x > 0 then some (x - 1) else none)"
    assert run(lst, xs=(1, 3)) == Some((Nat(0), Nat(2)))
    assert run(lst, xs=(1, 0)) is NONE
    arr = "def f (xs : Array Nat) : Option (Array Nat) := xs.mapM (fun x => if x > 0 then some (x * 2) else none)"
    assert run(arr, xs=Arr((1, 3))) == Some(Arr((Nat(2), Nat(6))))


def test_mapm_bound_in_an_option_do_block() -> None:
    src = """def digit (c : Char) : Option Nat := if c.isDigit then some (c.toNat - '0'.toNat) else none
def f (s : String) : Option Nat := do
  let ds ← s.toList.mapM digit
  return ds.foldl (fun acc d => acc * 10 + d) 0"""
    assert run(src, s="123") == Some(Nat(123))
    assert run(src, s="1a3") is NONE


def test_form_list_first_and_array_function_first() -> None:
    lst = "def f (xs : List Nat) : Option Unit := List.forM xs (fun x => if x > 5 then none else some ())"
    assert run(lst, xs=(1, 2)) == Some(UNIT)
    assert run(lst, xs=(1, 9)) is NONE
    arr = """def check (xs : Array Int) : Except String Unit :=
  xs.forM fun x => do
    if x < 0 then throw s!"negative {x}"
def f (xs : Array Int) : String := match check xs with
  | .ok _ => "ok"
  | .error e => e"""
    assert run(arr, xs=Arr((1, 2))) == "ok"
    assert run(arr, xs=Arr((1, -4, -5))) == "negative -4"


def test_ill_typed_traversals_are_errors() -> None:
    # `some x : Option Nat` where `f : α → Option PUnit` is expected
    assert ("error", "type-mismatch") in diagnostics(
        "def f (xs : List Nat) : Option Unit := xs.forM (fun x => some x)")
    # `init : String` while the accumulator is a `Nat`
    assert any(kind == "error" for kind, _ in diagnostics(
        'def f (xs : List Nat) : Option Nat := xs.foldlM (fun acc x => some (acc + x)) "a"'))


def test_unknown_monad_stays_a_gap() -> None:
    """At ``Nat`` no monad application unifies with ``m s``; the engine does not decide it."""
    kinds = diagnostics("def f (xs : List Nat) : Nat := xs.foldlM (fun acc x => some (acc + x)) 0")
    assert kinds and all(kind == "gap" for kind, _ in kinds)


def test_redeclaring_a_traversal_is_an_error() -> None:
    """``List.foldlM`` is a core declaration: declaring it again is Lean's "already declared"."""
    src = "def List.foldlM (xs : List Nat) (k : Nat) : Nat := k\ndef f (xs : List Nat) : Nat := xs.foldlM 7"
    assert ("error", "declaration") in diagnostics(src)
