"""Integer semantics of the builtin library, each case stating the Lean behaviour it pins."""

from __future__ import annotations

import pytest

from veriscale.backends.embedded.builtins import ARITH, BUILTINS, NEG
from veriscale.lean.values import Nat, UInt8, UInt64


def call(name: str, *args: object) -> object:
    return BUILTINS[name].fn(*args)


# Lean (Init/Data/Int/DivMod/Basic.lean): `/` and `%` on Int are `Int.ediv`/`Int.emod`;
# the docstring examples give, for ±12 and ±7: 12/7=1, 12/-7=-1, -12/7=-2, -12/-7=2 and
# 12%7=5, 12%-7=5, -12%7=2, -12%-7=2; x/0 = 0 and x%0 = x.
@pytest.mark.parametrize(
    ("a", "b", "quotient", "remainder"),
    [
        (12, 7, 1, 5),
        (12, -7, -1, 5),
        (-12, 7, -2, 2),
        (-12, -7, 2, 2),
        (-7, 2, -4, 1),
        (7, 0, 0, 7),
        (-7, 0, 0, -7),
        (0, 7, 0, 0),
        (12, 6, 2, 0),
        (-12, -6, 2, 0),
    ],
)
def test_int_div_mod_is_euclidean(a: int, b: int, quotient: int, remainder: int) -> None:
    assert ARITH[("/", "Int")](a, b) == quotient
    assert ARITH[("%", "Int")](a, b) == remainder
    assert call("Int.ediv", a, b) == quotient
    assert call("Int.emod", a, b) == remainder


# Lean docstrings: (-12).tdiv 7 = -1, (-12).tmod 7 = -5, 12.tmod (-7) = 5;
# 12.fdiv (-7) = -2, 12.fmod (-7) = -2, (-12).fmod 7 = 2; division by 0 gives 0, mod gives x.
@pytest.mark.parametrize(
    ("a", "b", "tdiv", "tmod", "fdiv", "fmod"),
    [
        (12, 7, 1, 5, 1, 5),
        (12, -7, -1, 5, -2, -2),
        (-12, 7, -1, -5, -2, 2),
        (-12, -7, 1, -5, 1, -5),
        (7, 0, 0, 7, 0, 7),
    ],
)
def test_int_t_and_f_rounding(a: int, b: int, tdiv: int, tmod: int, fdiv: int, fmod: int) -> None:
    assert (call("Int.tdiv", a, b), call("Int.tmod", a, b)) == (tdiv, tmod)
    assert (call("Int.fdiv", a, b), call("Int.fmod", a, b)) == (fdiv, fmod)


def test_nat_subtraction_truncates_and_division_by_zero() -> None:
    """Lean: `3 - 5 = 0` on Nat; `n / 0 = 0`; `n % 0 = n` (Init/Prelude, Nat.div/Nat.mod)."""
    assert ARITH[("-", "Nat")](Nat(3), Nat(5)) == 0
    assert isinstance(ARITH[("-", "Nat")](Nat(3), Nat(5)), Nat)
    assert ARITH[("/", "Nat")](Nat(7), Nat(0)) == 0
    assert ARITH[("%", "Nat")](Nat(7), Nat(0)) == 7
    assert ARITH[("/", "Nat")](Nat(7), Nat(2)) == 3
    assert ARITH[("^", "Nat")](Nat(2), Nat(10)) == 1024


def test_nat_has_no_negation_but_int_does() -> None:
    """Lean has no `Neg Nat` instance; `-x` on Int is negation."""
    assert "Nat" not in NEG
    assert NEG["Int"](5) == -5


def test_uint8_wraps() -> None:
    """Lean: UInt8 arithmetic is modulo 256 (`(3 : UInt8) - 5 = 254`, `200 + 100 = 44`);
    `a / 0 = 0`, `a % 0 = a`; shifts take the amount modulo 8."""
    assert ARITH[("-", "UInt8")](UInt8(3), UInt8(5)) == 254
    assert ARITH[("+", "UInt8")](UInt8(200), UInt8(100)) == 44
    assert ARITH[("*", "UInt8")](UInt8(16), UInt8(16)) == 0
    assert ARITH[("/", "UInt8")](UInt8(9), UInt8(0)) == 0
    assert ARITH[("%", "UInt8")](UInt8(9), UInt8(0)) == 9
    assert call("UInt8.shiftLeft", UInt8(1), UInt8(9)) == 2
    assert call("UInt8.xor", UInt8(0b1100), UInt8(0b1010)) == 0b0110
    assert call("UInt8.toNat", UInt8(255)) == 255
    assert call("Nat.toUInt8", Nat(300)) == 44
    assert NEG["UInt8"](UInt8(1)) == 255
    assert ARITH[("-", "UInt64")](UInt64(0), UInt64(1)) == 2**64 - 1


def test_int_to_nat_and_nat_abs() -> None:
    """Lean: `Int.toNat (-5) = 0`, `Int.natAbs (-5) = 5`."""
    assert call("Int.toNat", -5) == 0
    assert call("Int.toNat", 5) == 5
    assert call("Int.natAbs", -5) == 5
    assert isinstance(call("Int.natAbs", -5), Nat)


def test_int_power_takes_a_nat_exponent() -> None:
    """`HPow Int Nat Int`: (-2)^3 = -8."""
    assert ARITH[("^", "Int")](-2, Nat(3)) == -8


def test_nat_library() -> None:
    """Nat.max/min are `if n ≤ m then m else n` / `... then n else m`; log2 0 = 0;
    `Nat.toDigits 10 123 = ['1','2','3']`; Mathlib `Nat.digits 10 123 = [3, 2, 1]`, `digits b 0 = []`."""
    assert call("Nat.max", Nat(3), Nat(8)) == 8
    assert call("Nat.min", Nat(3), Nat(8)) == 3
    assert call("Nat.log2", Nat(0)) == 0
    assert call("Nat.log2", Nat(1024)) == 10
    assert call("Nat.gcd", Nat(12), Nat(18)) == 6
    assert call("Nat.lcm", Nat(4), Nat(6)) == 12
    assert call("Nat.lcm", Nat(0), Nat(6)) == 0
    assert call("Nat.toDigits", Nat(10), Nat(123)) == ("1", "2", "3")
    assert call("Nat.toDigits", Nat(16), Nat(255)) == ("f", "f")
    assert call("Nat.toDigits", Nat(10), Nat(0)) == ("0",)
    assert call("Nat.digits", Nat(10), Nat(123)) == (3, 2, 1)
    assert call("Nat.digits", Nat(10), Nat(0)) == ()
    assert call("Nat.repr", Nat(42)) == "42"
    assert call("Nat.shiftRight", Nat(13), Nat(2)) == 3
    assert call("Nat.land", Nat(13), Nat(1)) == 1
    assert call("Nat.succ", Nat(4)) == 5
    assert call("Nat.pred", Nat(0)) == 0


def test_int_bmod() -> None:
    """Lean docstring: (12).bmod 7 = -2, (12).bmod 9 = 3, (-12).bmod 8 = -4, x.bmod 0 = x."""
    assert call("Int.bmod", 12, Nat(7)) == -2
    assert call("Int.bmod", 12, Nat(9)) == 3
    assert call("Int.bmod", -12, Nat(8)) == -4
    assert call("Int.bmod", 7, Nat(0)) == 7
