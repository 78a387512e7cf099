"""``Float``: IEEE-754 double arithmetic, conversions and Lean's printing.

Lean facts reproduced here (Init/Data/Float.lean, Init/Data/OfScientific.lean, src/runtime/object.cpp):

* arithmetic is the C double arithmetic; ``x / 0.0`` is ``±inf`` or ``NaN`` (never an error);
  the math functions are the C ones (``sqrt``, ``floor``, ``pow`` ...).
* ``Float.toString`` is ``lean_float_to_string``: ``"NaN"`` for any NaN, otherwise C++
  ``std::to_string(double)``, which is ``printf("%f")``: six decimals, ``"inf"``/``"-inf"``,
  ``"-0.000000"`` for negative zero.
* ``Repr Float``: ``if n < 0 then Repr.addAppParen (toString n) prec else toString n``.
* ``Float.ofNat n = Float.ofBinaryScientific n 0``, where ``ofBinaryScientific m e`` keeps the top
  64 bits of ``m`` (``s := m.log2 - 63``; ``(m >>> s).toUInt64.toFloat.scaleB (e + s)``), so it is
  correctly rounded below ``2^64`` and double-rounded above.
* ``Float.ofInt (-[n+1]) = -(Float.ofNat (n+1))``.
* ``Float.toUIntN`` saturates: NaN and negatives give 0, values past the maximum give the maximum.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import veriscale.backends.embedded.builtins.numbers as _numbers  # the submodule, not the package: no import cycle
from veriscale.backends.embedded.builtins._core import FIXED_WIDTH_BY_NAME
from veriscale.backends.embedded.registry import builtin
from veriscale.lean.printing import float_to_string
from veriscale.lean.values import Unsupported

INF = math.inf
NAN = math.nan


def float_div(x: float, y: float) -> float:
    """IEEE division: ``x / ±0`` is ``±inf`` (sign of ``x`` times sign of the zero) or NaN."""
    if y == 0.0:
        if math.isnan(x) or x == 0.0:
            return NAN
        negative = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
        return -INF if negative else INF
    return x / y


def c_pow(x: float, y: float) -> float:
    """C ``pow`` (Python's ``math.pow`` raises where C returns ``inf``/``NaN``)."""
    try:
        return math.pow(x, y)
    except OverflowError:
        odd = y.is_integer() and int(y) % 2 == 1
        return -INF if (x < 0 and odd) else INF
    except ValueError:
        if x == 0.0 and y < 0:
            odd = y.is_integer() and int(y) % 2 == 1
            return math.copysign(INF, x) if odd else INF
        return NAN


def c_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def c_log(x: float) -> float:
    if math.isnan(x):
        return x
    if x == 0.0:
        return -INF
    if x < 0:
        return NAN
    return math.log(x)


def c_sqrt(x: float) -> float:
    if math.isnan(x):
        return x
    if x < 0:
        return NAN
    return math.sqrt(x)


def c_floor(x: float) -> float:
    if not math.isfinite(x) or x.is_integer():
        return x  # keeps -0.0, inf and NaN
    return float(math.floor(x))


def c_ceil(x: float) -> float:
    if not math.isfinite(x) or x.is_integer():
        return x
    result = float(math.ceil(x))
    return -0.0 if result == 0.0 and x < 0 else result


def c_round(x: float) -> float:
    """C ``round``: halfway cases away from zero; the sign of zero is kept."""
    if not math.isfinite(x) or x.is_integer():
        return x
    whole = math.floor(abs(x))
    # `abs(x) - whole` is exact for doubles, so the halfway test is exact too
    if abs(x) - whole >= 0.5:
        whole += 1
    return math.copysign(float(whole), x)


def c_trig(fn: Callable[[float], float]) -> Callable[[float], float]:
    def apply(x: float) -> float:
        try:
            return fn(x)
        except ValueError:
            return NAN
        except OverflowError:
            return math.copysign(INF, x)

    return apply


ARITH: dict[tuple[str, str], Callable[[Any, Any], Any]] = {
    ("+", "Float"): lambda a, b: float(a) + float(b),
    ("-", "Float"): lambda a, b: float(a) - float(b),
    ("*", "Float"): lambda a, b: float(a) * float(b),
    ("/", "Float"): lambda a, b: float_div(float(a), float(b)),
    # `instance : HomogeneousPow Float := ⟨Float.pow⟩`, C `pow`
    ("^", "Float"): lambda a, b: c_pow(float(a), float(b)),
}

NEG: dict[str, Callable[[Any], Any]] = {"Float": lambda a: -float(a)}

# `numbers.arith` dispatches through one table for every numeric type
_numbers.ARITH.update(ARITH)
_numbers.NEG.update(NEG)


# ---------------------------------------------------------------------------------------------
# Conversions


def float_of_binary_scientific(m: int, e: int) -> float:
    """``Float.ofBinaryScientific m e``: keep the top 64 bits of ``m``, then scale by ``2^e``."""
    s = max((m.bit_length() - 1 if m > 0 else 0) - 63, 0)
    mantissa = (m >> s) % (1 << 64)
    try:
        return math.ldexp(float(mantissa), e + s)
    except OverflowError:
        return INF


def float_of_scientific(mantissa: int, exponent_negative: bool, exponent: int) -> float:
    """``Float.ofScientific m s e`` (the meaning of a literal such as ``1.25`` or ``3e10``)."""
    if exponent > 100_000:
        raise Unsupported("Float literal", "decimal exponent too large")
    if exponent_negative:
        log2 = mantissa.bit_length() - 1 if mantissa > 0 else 0
        s = 64 - log2 if log2 <= 64 else 0  # Nat subtraction truncates
        m = (mantissa << (3 * exponent + s)) // (5**exponent)
        return float_of_binary_scientific(m, -4 * exponent - s)
    return float_of_binary_scientific(mantissa * 5**exponent, exponent)


@builtin("Float.ofNat", ": Nat → Float", verified=False)
def float_of_nat(n: int) -> float:
    return float_of_binary_scientific(int(n), 0)


@builtin("Float.ofInt", ": Int → Float", verified=False)
def float_of_int(a: int) -> float:
    a = int(a)
    return float_of_nat(a) if a >= 0 else -float_of_nat(-a)


@builtin("Float.ofScientific", ": Nat → Bool → Nat → Float", verified=False)
def _float_of_scientific_builtin(m: int, s: bool, e: int) -> float:
    return float_of_scientific(int(m), bool(s), int(e))


builtin("Nat.toFloat", ": Nat → Float", verified=False)(float_of_nat)


def _saturating(bits: int) -> Callable[[float], int]:
    top = (1 << bits) - 1

    def convert(x: float) -> int:
        if not x >= 0.0:  # NaN and negatives
            return 0
        if x >= top + 1:
            return top
        return int(x)

    return convert


for _name, _cls in FIXED_WIDTH_BY_NAME.items():
    _conv = _saturating(_cls.BITS)
    builtin(f"Float.to{_name}", f": Float → {_name}", verified=False)((lambda c, f: (lambda x: c(f(float(x)))))(_cls, _conv))

# `@[extern "lean_uint64_to_float"] UInt64.toFloat`: the C conversion, round to nearest
builtin("UInt64.toFloat", ": UInt64 → Float", verified=False)(lambda a: float(int(a)))


# ---------------------------------------------------------------------------------------------
# Library


builtin("Float.toString", ": Float → String", verified=False)(float_to_string)
builtin("Float.isNaN", ": Float → Bool", verified=False)(lambda x: math.isnan(x))
builtin("Float.isInf", ": Float → Bool", verified=False)(lambda x: math.isinf(x))
builtin("Float.isFinite", ": Float → Bool", verified=False)(lambda x: math.isfinite(x))
builtin("Float.sqrt", ": Float → Float", verified=False)(c_sqrt)
builtin("Float.floor", ": Float → Float", verified=False)(c_floor)
builtin("Float.ceil", ": Float → Float", verified=False)(c_ceil)
builtin("Float.round", ": Float → Float", verified=False)(c_round)
builtin("Float.abs", ": Float → Float", verified=False)(lambda x: math.fabs(x))
builtin("Float.exp", ": Float → Float", verified=False)(c_exp)
builtin("Float.log", ": Float → Float", verified=False)(c_log)
builtin("Float.pow", ": Float → Float → Float", verified=False)(lambda x, y: c_pow(float(x), float(y)))
builtin("Float.sin", ": Float → Float", verified=False)(c_trig(math.sin))
builtin("Float.cos", ": Float → Float", verified=False)(c_trig(math.cos))
builtin("Float.tan", ": Float → Float", verified=False)(c_trig(math.tan))
builtin("Float.atan", ": Float → Float", verified=False)(c_trig(math.atan))
builtin("Float.atan2", ": Float → Float → Float", verified=False)(lambda y, x: math.atan2(float(y), float(x)))
builtin("Float.neg", ": Float → Float", verified=False)(lambda x: -x)
builtin("Float.add", ": Float → Float → Float", verified=False)(ARITH[("+", "Float")])
builtin("Float.sub", ": Float → Float → Float", verified=False)(ARITH[("-", "Float")])
builtin("Float.mul", ": Float → Float → Float", verified=False)(ARITH[("*", "Float")])
builtin("Float.div", ": Float → Float → Float", verified=False)(ARITH[("/", "Float")])
builtin("Float.beq", ": Float → Float → Bool", verified=False)(lambda x, y: x == y)
builtin("Float.lt", ": Float → Float → Prop", verified=False)(lambda x, y: x < y)
builtin("Float.le", ": Float → Float → Prop", verified=False)(lambda x, y: x <= y)

