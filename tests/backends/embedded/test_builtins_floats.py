"""Float semantics: IEEE arithmetic and Lean's exact printing."""

from __future__ import annotations

import math

import pytest

from veriscale.backends.embedded.builtins import ARITH, BUILTINS, repr_value, to_string
from veriscale.backends.embedded.builtins.floats import float_of_scientific
from veriscale.lean.values import Nat


def call(name: str, *args: object) -> object:
    return BUILTINS[name].fn(*args)


# Lean runtime `lean_float_to_string`: "NaN" for NaN, else C++ std::to_string = printf("%f").
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.000000"),
        (3.0, "3.000000"),
        (50.5, "50.500000"),
        (-2.25, "-2.250000"),
        (0.1, "0.100000"),
        (-0.0, "-0.000000"),
        (1e-7, "0.000000"),
        (0.0078125, "0.007812"),  # exact tie at the sixth decimal: round half to even
        (1e20, "100000000000000000000.000000"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (math.nan, "NaN"),
    ],
)
def test_float_to_string(value: float, text: str) -> None:
    assert to_string(value) == text
    assert call("Float.toString", value) == text


def test_float_repr_parenthesises_negatives_in_argument_position() -> None:
    """Lean: `Repr Float`: `if n < 0 then Repr.addAppParen (toString n) prec else toString n`."""
    assert repr_value(-1.5) == "-1.500000"
    assert repr_value(-1.5, 1024) == "(-1.500000)"
    assert repr_value(-0.0, 1024) == "-0.000000"  # -0.0 < 0 is false
    assert repr_value(math.nan, 1024) == "NaN"


def test_division_by_zero_is_ieee() -> None:
    """Float division never fails: 1/0 = inf, -1/0 = -inf, 1/-0 = -inf, 0/0 = NaN."""
    div = ARITH[("/", "Float")]
    assert div(1.0, 0.0) == math.inf
    assert div(-1.0, 0.0) == -math.inf
    assert div(1.0, -0.0) == -math.inf
    assert math.isnan(div(0.0, 0.0))


def test_nan_and_inf_predicates() -> None:
    assert call("Float.isNaN", math.nan) is True
    assert call("Float.isNaN", 1.0) is False
    assert call("Float.isInf", -math.inf) is True
    assert call("Float.isFinite", math.inf) is False


def test_of_nat_and_of_int() -> None:
    """`Float.ofNat n = ofBinaryScientific n 0` (top 64 bits then C conversion);
    `Float.ofInt (-[n+1]) = -(Float.ofNat (n+1))`."""
    assert call("Float.ofNat", Nat(5)) == 5.0
    assert call("Nat.toFloat", Nat(2**53 + 1)) == float(2**53)  # round to nearest even
    assert call("Float.ofInt", -3) == -3.0
    # 2^64 + 2^11 + 1 keeps its top 64 bits (2^64 + 2^11, a tie) and rounds to even: 2^64.
    # Correct rounding of the full value would give 2^64 + 2^12.
    n = 2**64 + 2**11 + 1
    assert call("Float.ofNat", Nat(n)) == float(2**64)
    assert float(n) == float(2**64 + 2**12)


def test_of_scientific_literals() -> None:
    """`OfScientific Float`: `1.5` is `ofScientific 15 true 1`, `3e2` is `ofScientific 3 false 2`."""
    assert float_of_scientific(15, True, 1) == 1.5
    assert float_of_scientific(1, True, 1) == 0.1
    assert float_of_scientific(3, False, 2) == 300.0
    assert float_of_scientific(0, True, 3) == 0.0


def test_math_functions_follow_c() -> None:
    """C semantics: sqrt(-1) = NaN, floor(-0.5) = -1, ceil(-0.5) = -0.0, round(2.5) = 3 (away
    from zero), round(-0.4) = -0.0, pow(0, -1) = inf."""
    assert math.isnan(call("Float.sqrt", -1.0))
    assert call("Float.sqrt", 16.0) == 4.0
    assert call("Float.floor", -0.5) == -1.0
    ceil = call("Float.ceil", -0.5)
    assert ceil == 0.0 and math.copysign(1.0, ceil) == -1.0
    assert call("Float.round", 2.5) == 3.0
    assert call("Float.round", -2.5) == -3.0
    assert call("Float.round", 0.49999999999999994) == 0.0
    rounded = call("Float.round", -0.4)
    assert rounded == 0.0 and math.copysign(1.0, rounded) == -1.0
    assert ARITH[("^", "Float")](0.0, -1.0) == math.inf
    assert ARITH[("^", "Float")](2.0, 10.0) == 1024.0


def test_float_to_uint_saturates() -> None:
    """`Float.toUInt8`: NaN and negatives give 0, values past 255 give 255."""
    assert call("Float.toUInt8", math.nan) == 0
    assert call("Float.toUInt8", -3.0) == 0
    assert call("Float.toUInt8", 300.0) == 255
    assert call("Float.toUInt8", 7.9) == 7
