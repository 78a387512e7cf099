"""The order in which Lean elaborates, postpones and resumes terms, where it decides a type.

Lean elaborates the arguments of an application left to right (``Lean.Elab.App``,
``ElabAppArgs.processExplicitArg``); the receiver of field notation is inserted as an already
elaborated argument at its own parameter's position (``addLValArg``). So in ``xs.map (·.length)``
the function is elaborated before the element type is known, and field notation on a binder of
unknown type is postponed (``tryPostponeIfMVar`` in ``resolveLValLoop``; ``elabTermEnsuringType``
turns the postponement into a synthetic metavariable). ``let x := v; b`` elaborates ``v`` and then
``b`` with no ``synthesizeSyntheticMVars`` in between (``Lean.Elab.Binders``, ``elabLetDeclAux``),
so the body may fix the postponed term's type first; the resumed term then gets that type with a
coercion (``resumePostponed`` ends with ``ensureHasType``).
"""

from __future__ import annotations

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.elab import elaborate
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Nat


def _diagnostics(src: str) -> list[str]:
    return [f"{d.kind}: {d.message}" for d in elaborate(Program(src).env).diagnostics]


_LENGTHS_THEN_CONTAINS = (
    "def p (a : List (List Int)) (r : Int) : Prop :=\n"
    "  let lens := a.filter (fun l => a.contains l) |>.map (·.length)\n"
    "  lens.contains r ∧ lens.all (· ≤ r)\n"
)


def test_a_let_value_postponed_lambda_takes_the_type_its_body_gives() -> None:
    # `·.length` is postponed (its binder's type is unknown when `map`'s function is elaborated);
    # the body's `lens.contains r` makes the lengths `Int`; the resumed `x.length` gets `↑`.
    assert _diagnostics(_LENGTHS_THEN_CONTAINS) == []


def test_the_postponed_lengths_are_compared_as_integers() -> None:
    program = Program(_LENGTHS_THEN_CONTAINS)
    xs = ((1, 2), (3,))
    assert call_entry(program, "p", {"a": xs, "r": 2}, None) is True
    assert call_entry(program, "p", {"a": xs, "r": 1}, None) is False


def test_the_lengths_typed_int_by_the_body_subtract_in_int() -> None:
    # In Lean `lens : List Int` (fixed by `lens.contains r` before `·.length` is resumed), so the
    # fold subtracts in `Int`: 0 - 2 - 3 = -5, not the truncated `Nat` 0.
    program = Program(
        "def g (a : List (List Int)) : Int :=\n"
        "  let lens := a.map (·.length)\n"
        "  let r : Int := 0\n"
        "  if lens.contains r then 1 else lens.foldl (· - ·) 0\n"
    )
    assert _diagnostics(program.text) == []
    assert call_entry(program, "g", {"a": ((1, 2), (3, 4, 5))}, None) == -5


def test_a_lambda_with_a_declared_binder_is_not_postponed() -> None:
    # `fun (x : List Int) => x.length` is elaborated at once: `lens : List Nat`, and `r : Int`
    # has no coercion to `Nat`. Lean rejects it; the engine must not accept it.
    src = (
        "def p (a : List (List Int)) (r : Int) : Bool :=\n"
        "  let lens := List.map (fun (x : List Int) => x.length) a\n"
        "  lens.contains r\n"
    )
    assert _diagnostics(src) != []


def test_indexing_a_binder_of_unknown_type_waits_for_the_type() -> None:
    # `c[0]!` is `getElem! c 0`; its `GetElem?` instance is synthesized once `c`'s type is known
    src = "def f (cs : List (List Nat)) : List Nat :=\n  cs.map (fun c => let a := c[0]!\n    a + c[1]!)\n"
    assert _diagnostics(src) == []
    assert call_entry(Program(src), "f", {"cs": ((Nat(1), Nat(2)), (Nat(3), Nat(4)))}, None) == (Nat(3), Nat(7))


def test_membership_in_an_accumulator_of_unknown_type_waits_for_the_type() -> None:
    src = "def f (xs : List Nat) : List Nat :=\n  xs.foldl (fun acc x => if x ∈ acc then acc else x :: acc) []\n"
    assert _diagnostics(src) == []
    assert call_entry(Program(src), "f", {"xs": (Nat(1), Nat(2), Nat(1))}, None) == (Nat(2), Nat(1))
