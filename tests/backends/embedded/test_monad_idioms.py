"""Idioms models write that the engine used to answer ``unknown``: ``do`` blocks in ``Option`` and
``Except``, ``throw``/``pure``, ``Option``'s ``<|>``/``>>=``/``<$>``, ``Int``'s and ``Except``'s
constructor patterns, ``(n := …)`` of ``Array.ofFn``/``List.ofFn``, structure instances whose type
comes later. Each test elaborates the snippet (it must be clean, as in Lean v4.24) and runs it; the
Lean behaviour and its source are stated per test. Snippets are our own."""

from __future__ import annotations

import pytest
from conftest import elab_diagnostics as diagnostics
from conftest import run_elaborated as run

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Arr, Ctor, Nat, Unsupported

# -- Option do blocks (Init/Prelude.lean `instance : Monad Option`; Lean.Elab.Do) ------------------

OPTION_DO = """def g (x : Int) : Option Int := do
  let y ← if x > 0 then some x else none
  let mut acc := 0
  for i in [0:3] do
    let z ← some i
    acc := acc + z
    if acc > 100 then return 0
  return y + acc
def f (x : Int) : Int := (g x).getD (-1)"""


def test_option_do_binds_and_returns() -> None:
    """`let y ← e` binds the value of `some`, `return v` is `some v`; a `none` ends the block."""
    assert run(OPTION_DO, x=3) == 6
    assert run(OPTION_DO, x=-3) == -1


def test_option_do_action_none_ends_the_block() -> None:
    """`if c then none` (no `else`: `pure ()`) as an element: `none : Option PUnit` ends the block."""
    src = "def g (x : Int) : Option Int := do\n  if x < 0 then none\n  pure (x * 2)\ndef f (x : Int) : Int := (g x).getD 7"
    assert run(src, x=5) == 10
    assert run(src, x=-5) == 7


def test_option_reassign_by_arrow() -> None:
    """`acc ← e` is `acc := ` the value of the action `e`."""
    src = ("def g (xs : List Int) : Option Int := do\n  let mut acc := 0\n  for x in xs do\n"
           "    acc ← if x ≥ 0 then some (acc + x) else none\n  return acc\n"
           "def f (xs : List Int) : Int := (g xs).getD (-1)")
    assert run(src, xs=(1, 2, 3)) == 6
    assert run(src, xs=(1, -2, 3)) == -1


def test_option_operators() -> None:
    """`a <|> b` (`Option.orElse`), `x >>= f` (`Option.bind`), `f <$> x` (`Option.map`)."""
    orelse = "def f (xs : List Int) : Int := (xs.head? <|> some 5).get!"
    assert run(orelse, xs=()) == 5 and run(orelse, xs=(7,)) == 7
    bind = "def f (xs : List Int) : Int := (xs.head? >>= fun h => if h > 0 then some (h * 10) else none).getD (-1)"
    assert [run(bind, xs=v) for v in ((), (7,), (-7,))] == [-1, 70, -1]
    fmap = "def f (xs : List Int) : Int := ((· + 1) <$> xs.head?).getD (-1)"
    assert run(fmap, xs=()) == -1 and run(fmap, xs=(7,)) == 8


def test_option_operator_at_another_type_is_a_gap() -> None:
    """`<|>` at `List`/`>>=` at an unmodelled monad: the engine cannot tell, never an error."""
    kinds = diagnostics("def f (xs : List Nat) : List Nat := xs <|> [1]")
    assert kinds and all(kind == "gap" for kind, _ in kinds)


# -- Except (Init/Prelude.lean `inductive Except`, `Except.pure`/`bind`; Init/Control/Except.lean) ---

EXCEPT_DO = """def g (x : Int) : Except String Int := do
  if x < 0 then
    throw "neg"
  let y ← pure (x * 2)
  return y + 1
def f (x : Int) : Int := match g x with
  | .ok v => v
  | .error _ => -100"""


def test_except_do_throw_and_return() -> None:
    assert run(EXCEPT_DO, x=3) == 7
    assert run(EXCEPT_DO, x=-3) == -100


def test_except_bind_stops_at_the_first_error() -> None:
    """`.error e >>= f = .error e`: the second `let … ←` is not reached."""
    src = """def g (x : Int) : Except String Int := if x > 0 then .ok x else .error s!"bad {x}"
def h (x : Int) : Except String Int := do
  let v ← g x
  let w ← g (x - 1)
  return v + w
def f (x : Int) : String := match h x with
  | Except.ok v => toString v
  | Except.error e => e"""
    assert run(src, x=3) == "5"
    assert run(src, x=1) == "bad 0"


def test_except_values_are_its_constructors() -> None:
    src = 'def f (x : Int) : Except String Int := if x > 0 then pure x else throw "no"'
    assert run(src, x=2) == Ctor("Except.ok", (2,))
    assert run(src, x=-2) == Ctor("Except.error", ("no",))


def test_except_match_must_cover_both_constructors() -> None:
    src = "def f (e : Except String Nat) : Nat := match e with\n  | .ok n => n"
    assert ("error", "match-exhaustive") in diagnostics(src)


def test_throw_outside_except_is_not_run() -> None:
    """`throw` at a monad the engine does not model (`Option` has `MonadExcept Unit`): a gap."""
    kinds = diagnostics("def f (x : Nat) : Option Nat := throw ()")
    assert kinds and all(kind == "gap" for kind, _ in kinds)


# -- Int's constructors (Init/Prelude.lean: `Int.negSucc n = -(n + 1)`) -----------------------------

INT_MATCH = "def f (x : Int) : Nat := match x with\n  | Int.ofNat n => n\n  | Int.negSucc n => n + 100"


def test_int_constructor_patterns() -> None:
    assert [run(INT_MATCH, x=v) for v in (3, 0, -1, -5)] == [Nat(3), Nat(0), Nat(100), Nat(104)]
    dotted = "def f (x : Int) : Nat := match x with\n  | .ofNat n => n + 1\n  | .negSucc _ => 0"
    assert run(dotted, x=4) == Nat(5) and run(dotted, x=-4) == Nat(0)


def test_int_negsucc_as_a_term() -> None:
    assert run("def f (n : Nat) : Int := Int.negSucc n", n=Nat(3)) == -4


def test_int_patterns_must_cover_both_constructors() -> None:
    assert ("error", "match-exhaustive") in diagnostics("def f (x : Int) : Nat := match x with\n  | Int.ofNat n => n")


def test_int_literal_next_to_constructors_is_left_open() -> None:
    """How Lean covers `Int` numerals next to `Int.ofNat`/`Int.negSucc` is not modelled: a gap,
    not a 'missing cases' error."""
    src = "def f (x : Int) : Nat := match x with\n  | 0 => 1\n  | Int.ofNat n => n\n  | Int.negSucc _ => 0"
    kinds = diagnostics(src)
    assert ("error", "match-exhaustive") not in kinds
    assert ("gap", "match-exhaustive") in kinds


# -- ofFn with a named or binder-given size (Init/Data/Array/Basic.lean, Init/Data/List/OfFn.lean) ---


def test_of_fn_sizes_from_named_argument_and_fin_binder() -> None:
    src = ("def f (xs : List Int) : List Int := (Array.ofFn (n := xs.length) (fun i => xs[i] * 2)).toList"
           " ++ List.ofFn (fun (i : Fin xs.length) => xs[i])")
    assert run(src, xs=(1, 2)) == (2, 4, 1, 2)


def test_list_of_fn_without_a_known_size_is_unsupported() -> None:
    with pytest.raises(Unsupported):
        call_entry(Program("def f (n : Nat) : List Nat := List.ofFn (fun i => i.val)"), "f", {"n": Nat(2)}, None)


def test_list_iota_counts_down_to_one() -> None:
    assert run("def f (n : Nat) : List Nat := List.iota n", n=Nat(3)) == (Nat(3), Nat(2), Nat(1))
    assert run("def f (n : Nat) : List Nat := List.iota n", n=Nat(0)) == ()


def test_an_unknown_named_argument_stays_a_gap() -> None:
    kinds = diagnostics("def f (xs : List Int) : Array Int := Array.ofFn (m := 2) (fun i => xs[i]!)")
    assert kinds and all(kind == "gap" for kind, _ in kinds)


# -- structure instances whose type comes later (Lean.Elab.StructInst `tryPostponeIfMVar`) ----------


def test_structure_update_in_a_fold_is_postponed_until_init_fixes_the_type() -> None:
    src = ("structure Tally where\n  best : Int\n"
           "def f (a : Array Int) : Int := (a.foldl (fun s x => { s with best := max s.best x }) "
           "({ best := a[0]! } : Tally)).best")
    assert run(src, a=Arr((3, 9, 2))) == 9


def test_structure_literal_argument_takes_the_parameter_type() -> None:
    src = """structure St where
  seen : List Nat
  out : Array Nat
def step (s : St) (x : Nat) : St :=
  if s.seen.contains x then s else { s with seen := x :: s.seen, out := s.out.push x }
def f (xs : List Nat) : List Nat := (xs.foldl step { seen := [], out := #[] }).out.toList"""
    assert run(src, xs=(Nat(1), Nat(2), Nat(1))) == (Nat(1), Nat(2))


def test_structure_instance_whose_type_stays_unknown_is_a_gap() -> None:
    kinds = diagnostics("structure P where\n  x : Nat\ndef f (n : Nat) : Nat := let p := { x := n }; n")
    assert kinds and all(kind == "gap" for kind, _ in kinds)


# -- a block that ends with an element after which a sequence goes on (Lean.Elab.Do: `doSeqToCode`
# of the empty rest is `pure ()`, so the block's value is `()` of type Unit) --------------------

@pytest.mark.parametrize("src", [
    "def f (x : Int) : Option Int := do\n  let y ← some x",
    "def f (x : Nat) : Nat := Id.run do\n  let mut s := 0\n  for i in [0:x] do\n    s := s + i",
    "def f (x : Nat) : Nat := Id.run do\n  let mut s := x\n  s := s + 1",
    "def f (x : Nat) : Except String Nat := do\n  let y := x + 1",
])
def test_a_block_ending_without_a_value_is_rejected(src: str) -> None:
    assert ("error", "do-unit-ending") in diagnostics(src)


@pytest.mark.parametrize("src", [
    "def f (x : Nat) : Id Unit := do\n  let mut s := x\n  s := s + 1",
    "def g (x : Nat) : Option Unit := do\n  let _ ← some x\ndef f (x : Nat) : Nat := if (g x).isSome then x else 0",
    "def f (x : Nat) : Nat := Id.run do\n  let mut s := 0\n  for i in [0:x] do\n    s := s + i\n  return s",
])
def test_a_block_ending_without_a_value_at_unit_is_clean(src: str) -> None:
    assert diagnostics(src) == []
