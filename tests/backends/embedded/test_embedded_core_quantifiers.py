"""Sound rules that decide unbounded ∃/∀ over Nat, Int and other types (issue 3).

Lean has no `Decidable` instance for `∃ x : Int, P x`, so `decide` fails on these; but their
truth is certain, and the engine answers them when a rule proves that every witness (every
counterexample of a ∀) lies in a finite candidate list. Each test states the rule and the truth
Lean's semantics give."""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Nat, Undecidable


def run(src: str, name: str, **args: Any) -> Any:
    return call_entry(Program(src), name, args, None)


# -- one-point rule: `x = E` with E free of x means the only candidate is E --------------------
def test_one_point_rule_over_lists() -> None:
    # `∃ ws : List String, ws = E ∧ P ws` is `P E`; no enumeration of lists is needed.
    src = ("def p (s : String) (r : String) : Prop :=\n"
           "  ∃ ws : List String, (ws = (s.splitOn \" \").filter (fun w => w ≠ \"\")) ∧ r = String.intercalate \",\" ws")
    assert run(src, "p", s="a  b c", r="a,b,c") is True
    assert run(src, "p", s="a  b c", r="a,,b,c") is False


def test_one_point_rule_in_a_forall_hypothesis() -> None:
    # `∀ x : Int, x = n + 1 → x > 0` holds iff `n + 1 > 0`.
    src = "def p (n : Int) : Prop := ∀ x : Int, x = n + 1 → x > 0"
    assert run(src, "p", n=0) is True
    assert run(src, "p", n=-1) is False


def test_one_point_rule_respects_nat_domain() -> None:
    # `∃ x : Nat, x = n` with `n : Nat`: the witness is n itself
    src = "def p (n : Nat) : Prop := ∃ x : Nat, x = n ∧ x % 2 = 1"
    assert run(src, "p", n=Nat(7)) is True
    assert run(src, "p", n=Nat(8)) is False


# -- linear rule: `a = c * x` (c ≠ 0) has the one solution a / c when c divides a -------------
@pytest.mark.parametrize(("n", "divisible"), [(0, True), (22, True), (-33, True), (23, False), (-1, False)])
def test_linear_rule_exists_and_forall(n: int, divisible: bool) -> None:
    src = ("def p (n : Int) : Prop := ∃ k : Int, n = 11 * k\n"
           "def q (n : Int) : Prop := ∀ k : Int, ¬ n = 11 * k\n"
           "def r (n : Int) : Prop := ∃ k : Int, k * 11 = n")
    assert run(src, "p", n=n) is divisible
    assert run(src, "q", n=n) is (not divisible)
    assert run(src, "r", n=n) is divisible


def test_linear_rule_over_nat_excludes_negative_quotients() -> None:
    # `∃ k : Nat, (n : Int) = -2 * k` is true only for n ≤ 0 and even (k = n / -2 ≥ 0).
    src = "def p (n : Int) : Prop := ∃ k : Nat, n = -2 * k"
    assert run(src, "p", n=-4) is True
    assert run(src, "p", n=4) is False


def test_linear_rule_with_zero_factor_is_not_used() -> None:
    # `n = c * k` with c = 0 is `n = 0` for every k: no finite candidate set; for n = 1 nothing
    # proves the ∃ false, so it stays undecided rather than guessed.
    src = "def p (n : Int) (c : Int) : Prop := ∃ k : Int, n = c * k"
    assert run(src, "p", n=0, c=0) is True  # the witness search finds k = 0
    with pytest.raises(Undecidable):
        run(src, "p", n=1, c=0)


# -- power rule: `b ^ x = a` with |b| ≥ 2 needs |b| ^ x ≤ |a| -----------------------------------
@pytest.mark.parametrize(("n", "power"), [(1, True), (4, True), (64, True), (4**40, True),
                                          (0, False), (2, False), (8, False), (4**40 + 1, False)])
def test_power_rule(n: int, power: bool) -> None:
    src = "def p (n : Nat) : Prop := ∃ m : Nat, n = 4 ^ m"
    assert run(src, "p", n=Nat(n)) is power


def test_power_rule_recognises_an_exact_power_definition() -> None:
    # `pw b x` defined by `| 0 => 1 | k+1 => b * pw b k` is b ^ x by induction on x.
    src = ("def pw (base : Int) (e : Nat) : Int :=\n  match e with\n  | 0 => 1\n  | k+1 => base * pw base k\n"
           "def p (n : Int) : Prop := ∃ x : Nat, (pw 2 x = n) ∧ (n > 0)")
    assert run(src, "p", n=1024) is True
    assert run(src, "p", n=1000) is False
    assert run(src, "p", n=-8) is False  # the conjunct `n > 0` is false and free of x


def test_a_different_definition_is_not_taken_for_a_power() -> None:
    src = ("def pw (base : Int) (e : Nat) : Int :=\n  match e with\n  | 0 => 1\n  | k+1 => base * pw base k + 1\n"
           "def p (n : Int) : Prop := ∃ x : Nat, pw 2 x = n")
    assert run(src, "p", n=7) is True  # 1, 3, 7, ...: found by the search
    with pytest.raises(Undecidable):
        run(src, "p", n=8)


# -- division by a power: `A / b ^ x` is 0 once b ^ x > A -----------------------------------
def test_digit_search_is_decided() -> None:
    # `∃ i, a / 10 ^ i % 10 = 8`: the digits of a; beyond them every term is 0 % 10 = 0 ≠ 8.
    src = "def p (a : Nat) : Prop := ∃ i, a / (10 ^ i) % 10 == 8"
    assert run(src, "p", a=Nat(1823)) is True
    assert run(src, "p", a=Nat(0)) is False
    assert run(src, "p", a=Nat(12345679)) is False
    # ∀: every digit position of 777 (and every position beyond, where the term is 0) is < 8
    src2 = "def q (a : Nat) : Prop := ∀ i, a / (10 ^ i) % 10 < 8"
    assert run(src2, "q", a=Nat(777)) is True
    assert run(src2, "q", a=Nat(787)) is False


def test_division_rule_needs_the_variable_only_inside_the_divisions() -> None:
    # `i` also occurs outside `a / 10 ^ i`: the body keeps changing with i, no bound applies.
    src = "def p (a : Nat) : Prop := ∃ i, a / (10 ^ i) % 10 == 8 + i * 0 + i"
    with pytest.raises(Undecidable):
        run(src, "p", a=Nat(5))


_FIN_QUANTIFIERS = """def upper (a : Array Int) (r : Int) : Prop :=
  (∀ i : Fin a.size, a[i] ≤ r) ∧ ∃ i : Fin a.size, a[i] = r
def shifted (a : Array Int) (r : Int) : Prop :=
  ∀ i : Fin a.size, a[i.val]! ≤ r + i.val
"""


@pytest.mark.parametrize(("r", "upper", "shifted"), [(5, True, True), (3, False, False), (4, False, True), (6, False, True)])
def test_a_quantifier_over_fin_n_enumerates_its_n_values(r: int, upper: bool, shifted: bool) -> None:
    """`∀ i : Fin n, P i` is decidable by enumeration (a finite type); a `Fin` is its number."""
    from veriscale.lean.values import Arr

    assert run(_FIN_QUANTIFIERS, "upper", a=Arr((3, 5, 4)), r=r) is upper
    assert run(_FIN_QUANTIFIERS, "shifted", a=Arr((3, 5, 4)), r=r) is shifted
    assert run(_FIN_QUANTIFIERS, "upper", a=Arr(()), r=r) is False  # no witness in `Fin 0`
