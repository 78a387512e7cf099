"""``Nat``, ``Int`` and ``UIntN``: the arithmetic operator table and the ``Nat.*``/``Int.*`` library.

Lean facts reproduced here (Init/Prelude.lean, Init/Data/Nat/Basic.lean,
Init/Data/Int/DivMod/Basic.lean, Init/Data/UInt/Basic.lean):

* ``Nat`` subtraction truncates at 0; ``n / 0 = 0`` and ``n % 0 = n``.
* ``Int`` ``/`` and ``%`` are ``Int.ediv``/``Int.emod`` ("The Div and Mod syntax uses ediv and emod",
  ``instance : Div Int := ⟨Int.ediv⟩``): ``0 ≤ a % b < |b|`` for ``b ≠ 0``, ``a / 0 = 0``,
  ``a % 0 = a``. ``Int.tdiv``/``Int.tmod`` round toward zero, ``Int.fdiv``/``Int.fmod`` toward −∞,
  all with ``x / 0 = 0`` and ``x % 0 = x``.
* ``UIntN`` arithmetic wraps modulo ``2^N``; ``a / 0 = 0`` and ``a % 0 = a``; shift amounts are
  taken modulo ``N``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import (
    FIXED_WIDTH_BY_NAME,
    MAX_BITS,
    SMALL_NAT_LIMIT,
    SMALL_NATS,
    check_bits,
    check_size,
    nat,
    nat_unchecked,
    type_name_of,
)
from veriscale.backends.embedded.registry import builtin
from veriscale.backends.embedded.runtime_support import PROOF
from veriscale.lean.printing import decimal
from veriscale.lean.values import BudgetExceeded, Nat, Unsupported, _FixedWidth

# ---------------------------------------------------------------------------------------------
# Division conventions


def int_ediv(a: int, b: int) -> int:
    """``Int.ediv``: Euclidean division (``a - b * q`` is in ``[0, |b|)``); ``a / 0 = 0``."""
    if b == 0:
        return 0
    q = a // b  # floor division
    if b < 0 and q * b != a:
        # floor rounds toward -inf; for b < 0 Euclidean rounds toward +inf
        q += 1
    return q


def int_emod(a: int, b: int) -> int:
    """``Int.emod``: always in ``[0, |b|)`` for ``b ≠ 0``; ``a % 0 = a``."""
    if b == 0:
        return a
    return a - b * int_ediv(a, b)


def int_tdiv(a: int, b: int) -> int:
    """``Int.tdiv``: rounds toward zero; ``a.tdiv 0 = 0``."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def int_tmod(a: int, b: int) -> int:
    """``Int.tmod``: sign of the dividend; ``a.tmod 0 = a``."""
    if b == 0:
        return a
    return a - b * int_tdiv(a, b)


def int_fdiv(a: int, b: int) -> int:
    """``Int.fdiv``: rounds toward −∞; ``a.fdiv 0 = 0``."""
    if b == 0:
        return 0
    return a // b


def int_fmod(a: int, b: int) -> int:
    """``Int.fmod``: sign of the divisor; ``a.fmod 0 = a``."""
    if b == 0:
        return a
    return a - b * (a // b)


def _pow(base: int, exponent: int) -> int:
    if exponent < 0:
        raise Unsupported("^", "negative exponent")
    if abs(base) > 1 and exponent * max(abs(base).bit_length() - 1, 1) > MAX_BITS:
        raise BudgetExceeded(f"power {base}^{exponent} is too large")
    return check_bits(base**exponent)


# ---------------------------------------------------------------------------------------------
# Operator table


# `int.__new__(Nat, v)` builds a Nat without running `Nat.__new__` (a Python frame and a sign
# test), and a small one is looked up (`_core.SMALL_NATS`): these are the evaluator's hottest
# functions, and every result below is non-negative.
_new_int = int.__new__
_NAT_ZERO = Nat(0)


def _nat_add(a: Any, b: Any) -> Any:
    value = a + b
    if value < SMALL_NAT_LIMIT and value >= 0:
        return SMALL_NATS[value]
    if value.bit_length() > MAX_BITS:
        check_bits(value)
    return _new_int(Nat, value)


def _nat_sub(a: Any, b: Any) -> Any:
    value = a - b
    if value <= 0:
        return _NAT_ZERO
    return SMALL_NATS[value] if value < SMALL_NAT_LIMIT else _new_int(Nat, value)


def _nat_mul(a: Any, b: Any) -> Any:
    value = a * b
    if value < SMALL_NAT_LIMIT and value >= 0:
        return SMALL_NATS[value]
    if value.bit_length() > MAX_BITS:
        check_bits(value)
    return _new_int(Nat, value)


def _nat_div(a: Any, b: Any) -> Any:
    return nat_unchecked(a // b) if b else _NAT_ZERO


def _nat_mod(a: Any, b: Any) -> Any:
    return nat_unchecked(a % b if b else a)


def _nat_ops() -> dict[str, Callable[[Any, Any], Any]]:
    return {
        "+": _nat_add,
        "-": _nat_sub,
        "*": _nat_mul,
        "/": _nat_div,
        "%": _nat_mod,
        "^": lambda a, b: Nat(_pow(int(a), int(b))),
    }


# Arithmetic on `int` and its subclasses (`Nat`, the fixed widths) gives an exact `int`: an `Int`
# result needs no `int(...)` around it.
def _int_add(a: Any, b: Any) -> Any:
    value = a + b
    if value.bit_length() > MAX_BITS:
        check_bits(value)
    return value


def _int_sub(a: Any, b: Any) -> Any:
    value = a - b
    if value.bit_length() > MAX_BITS:
        check_bits(value)
    return value


def _int_mul(a: Any, b: Any) -> Any:
    value = a * b
    if value.bit_length() > MAX_BITS:
        check_bits(value)
    return value


def _int_div(a: Any, b: Any) -> Any:
    # `Int.ediv` is floor division when the divisor is positive
    return a // b if b > 0 else int_ediv(a, b)


def _int_mod(a: Any, b: Any) -> Any:
    # `Int.emod` is Python's `%` when the divisor is positive
    return a % b if b > 0 else int_emod(a, b)


def _int_ops() -> dict[str, Callable[[Any, Any], Any]]:
    return {
        "+": _int_add,
        "-": _int_sub,
        "*": _int_mul,
        "/": _int_div,
        "%": _int_mod,
        # `HPow Int Nat Int`: the exponent is a Nat
        "^": lambda a, b: _pow(int(a), int(b)),
    }


def _fixed_ops(cls: type[_FixedWidth]) -> dict[str, Callable[[Any, Any], Any]]:
    # Lean's `UIntN` operations are modulo 2^N: for operands in range, `& mask` is that modulo
    # (also of a negative difference) and the result needs no `_FixedWidth.__new__`
    modulus = 1 << cls.BITS
    mask = modulus - 1
    return {
        "+": lambda a, b: _new_int(cls, (a + b) & mask),
        "-": lambda a, b: _new_int(cls, (a - b) & mask),
        "*": lambda a, b: _new_int(cls, (a * b) & mask),
        "/": lambda a, b: _new_int(cls, (a // b if b else 0) & mask),
        "%": lambda a, b: _new_int(cls, (a % b if b else a) & mask),
        "^": lambda a, b: _new_int(cls, pow(a, b, modulus)),
    }


ARITH: dict[tuple[str, str], Callable[[Any, Any], Any]] = {}
for _op, _fn in _nat_ops().items():
    ARITH[(_op, "Nat")] = _fn
for _op, _fn in _int_ops().items():
    ARITH[(_op, "Int")] = _fn
for _name, _cls in FIXED_WIDTH_BY_NAME.items():
    for _op, _fn in _fixed_ops(_cls).items():
        ARITH[(_op, _name)] = _fn

NEG: dict[str, Callable[[Any], Any]] = {
    "Int": lambda a: -int(a),
}
for _name, _cls in FIXED_WIDTH_BY_NAME.items():
    # `instance : Neg UInt8 := ⟨UInt8.neg⟩`, wrapping: -a = 2^8 - a (mod 2^8)
    NEG[_name] = (lambda cls: (lambda a: cls(-int(a))))(_cls)


def arith(op: str, a: Any, b: Any) -> Any:
    """Apply a binary operator at the runtime type of ``a`` (both operands share a Lean type)."""
    kind = type_name_of(a)
    if (op == "^" and kind in ("Nat", "Int")) or kind == type_name_of(b):
        fn = ARITH.get((op, kind))
        if fn is not None:
            return fn(a, b)
    if {kind, type_name_of(b)} <= {"Nat", "Int"}:
        fn = ARITH.get((op, "Int"))
        if fn is not None:
            return fn(a, b)
    raise Unsupported(op, f"no instance handled for {kind} and {type_name_of(b)}")


# ---------------------------------------------------------------------------------------------
# Nat library


@builtin("Nat.succ", "(n : Nat) : Nat")
def nat_succ(n: int) -> Nat:
    return nat(int(n) + 1)


@builtin("Nat.pred", ": Nat → Nat")
def nat_pred(n: int) -> Nat:
    return nat(max(int(n) - 1, 0))


@builtin("Nat.add", ": Nat → Nat → Nat", verified=False)
def nat_add(a: int, b: int) -> Nat:
    return ARITH[("+", "Nat")](a, b)


@builtin("Nat.sub", ": Nat → Nat → Nat", verified=False)
def nat_sub(a: int, b: int) -> Nat:
    return ARITH[("-", "Nat")](a, b)


@builtin("Nat.mul", ": Nat → Nat → Nat", verified=False)
def nat_mul(a: int, b: int) -> Nat:
    return ARITH[("*", "Nat")](a, b)


@builtin("Nat.div", "(x y : Nat) : Nat")
def nat_div(a: int, b: int) -> Nat:
    return ARITH[("/", "Nat")](a, b)


@builtin("Nat.mod", ": Nat → Nat → Nat")
def nat_mod(a: int, b: int) -> Nat:
    return ARITH[("%", "Nat")](a, b)


@builtin("Nat.pow", "(m : Nat) : Nat → Nat")
def nat_pow(a: int, b: int) -> Nat:
    return ARITH[("^", "Nat")](a, b)


@builtin("Nat.max", "(n m : Nat) : Nat")
def nat_max(a: int, b: int) -> Nat:
    # `Nat.max n m = if n ≤ m then m else n`
    return nat(b if a <= b else a)


@builtin("Nat.min", "(n m : Nat) : Nat")
def nat_min(a: int, b: int) -> Nat:
    # `Nat.min n m = if n ≤ m then n else m`
    return nat(a if a <= b else b)


@builtin("Nat.gcd", "(m n : Nat) : Nat")
def nat_gcd(a: int, b: int) -> Nat:
    return nat(math.gcd(int(a), int(b)))


@builtin("Nat.lcm", "(m n : Nat) : Nat")
def nat_lcm(a: int, b: int) -> Nat:
    # `Nat.lcm m n = m * n / gcd m n`, which is 0 when either is 0
    a, b = int(a), int(b)
    return nat(0 if a == 0 or b == 0 else a * b // math.gcd(a, b))


@builtin("Nat.sqrt", ": Nat → Nat", verified=False)
def nat_sqrt(n: int) -> Nat:
    """Floor square root."""
    return nat(math.isqrt(int(n)))


@builtin("Nat.log2", "(n : Nat) : Nat")
def nat_log2(n: int) -> Nat:
    """``Nat.log2 n`` = ⌊log₂ n⌋, with ``Nat.log2 0 = 0``."""
    return nat(max(int(n).bit_length() - 1, 0))


@builtin("Nat.beq", ": Nat → Nat → Bool", verified=False)
def nat_beq(a: int, b: int) -> bool:
    return int(a) == int(b)


@builtin("Nat.ble", ": Nat → Nat → Bool", verified=False)
def nat_ble(a: int, b: int) -> bool:
    return int(a) <= int(b)


@builtin("Nat.blt", ": Nat → Nat → Bool", verified=False)
def nat_blt(a: int, b: int) -> bool:
    return int(a) < int(b)


@builtin("Nat.land", ": Nat → Nat → Nat", verified=False)
def nat_land(a: int, b: int) -> Nat:
    return nat(int(a) & int(b))


@builtin("Nat.lor", ": Nat → Nat → Nat", verified=False)
def nat_lor(a: int, b: int) -> Nat:
    return nat(int(a) | int(b))


@builtin("Nat.xor", ": Nat → Nat → Nat", verified=False)
def nat_xor(a: int, b: int) -> Nat:
    return nat(int(a) ^ int(b))


@builtin("Nat.shiftLeft", ": Nat → Nat → Nat", verified=False)
def nat_shift_left(a: int, b: int) -> Nat:
    if int(b) > MAX_BITS:
        raise BudgetExceeded("shift amount too large")
    return nat(check_bits(int(a) << int(b)))


@builtin("Nat.shiftRight", ": Nat → Nat → Nat", verified=False)
def nat_shift_right(a: int, b: int) -> Nat:
    return nat(int(a) >> int(b))


@builtin("Nat.testBit", ": Nat → Nat → Bool", verified=False)
def nat_test_bit(a: int, i: int) -> bool:
    return bool((int(a) >> int(i)) & 1)


@builtin("Nat.repr", ": Nat → String", verified=False)
def nat_repr(n: int) -> str:
    return decimal(n)


@builtin("Nat.toDigits", "(base n : Nat) : List Char")
def nat_to_digits(base: int, n: int) -> tuple:
    """``Nat.toDigits base n``: the digits of ``n`` in ``base`` as characters, most significant first.

    Lean: ``toDigitsCore base (n+1) n []`` with ``Nat.digitChar`` (0-9, then a-f, then ``'*'``).
    """
    from veriscale.lean.values import Char

    base, n = int(base), int(n)
    if base == 1:
        check_size(n + 1)
    digits: list[str] = []
    fuel = n + 1
    while fuel > 0:
        fuel -= 1
        d = n % base if base else n
        digits.append(_digit_char(d))
        n = n // base if base else 0
        if n == 0:
            break
    return tuple(Char(c) for c in reversed(digits))


def _digit_char(d: int) -> str:
    if d < 10:
        return chr(ord("0") + d)
    if d < 16:
        return chr(ord("a") + d - 10)
    return "*"


@builtin("Nat.digits", ": Nat → Nat → List Nat", verified=False)
def nat_digits(base: int, n: int) -> tuple:
    """Mathlib ``Nat.digits b n``: little-endian digits; ``digits b 0 = []``.

    ``digits 0 n = [n]`` (n ≠ 0) and ``digits 1 n = replicate n 1`` (Mathlib ``digitsAux0``/``digitsAux1``).
    """
    base, n = int(base), int(n)
    if n == 0:
        return ()
    if base == 0:
        return (nat(n),)
    if base == 1:
        check_size(n)
        return tuple(nat(1) for _ in range(n))
    out = []
    while n:
        out.append(nat(n % base))
        n //= base
    return tuple(out)


for _bits_name in FIXED_WIDTH_BY_NAME:

    def _make_to_fixed(cls: type[_FixedWidth]) -> Callable[[int], _FixedWidth]:
        return lambda n: cls(int(n))

    builtin(f"Nat.to{_bits_name}", f": Nat → {_bits_name}", verified=False)(_make_to_fixed(FIXED_WIDTH_BY_NAME[_bits_name]))


# ---------------------------------------------------------------------------------------------
# Nat.fold / foldRev / any / all (Init/Data/Nat/Fold.lean): `f` takes the index, a proof of
# `i < n` (passed as the run-time proof token, which a `fun i h acc => ...` binds like any other
# argument), and for the folds the accumulator.


def _bound(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, Nat):
        raise Unsupported(name, f"bound must be a Nat, got {type_name_of(n)}")
    return int(n)


@builtin("Nat.fold", "{α : Type u} : (n : Nat) → (f : (i : Nat) → i < n → α → α) → (init : α) → α")
def nat_fold(n: Any, f: Callable[..., Any], init: Any) -> Any:
    """``Nat.fold n f init = init |> f 0 _ |> f 1 _ |> ... |> f (n-1) _`` (increasing order)."""
    acc = init
    for i in range(_bound(n, "Nat.fold")):
        acc = f(Nat(i), PROOF, acc)
    return acc


@builtin("Nat.foldRev", "{α : Type u} : (n : Nat) → (f : (i : Nat) → i < n → α → α) → (init : α) → α")
def nat_fold_rev(n: Any, f: Callable[..., Any], init: Any) -> Any:
    """``Nat.foldRev n f init = f 0 _ (f 1 _ (... (f (n-1) _ init)))``: ``f (n-1)`` is applied first."""
    acc = init
    for i in reversed(range(_bound(n, "Nat.foldRev"))):
        acc = f(Nat(i), PROOF, acc)
    return acc


@builtin("Nat.any", ": (n : Nat) → (f : (i : Nat) → i < n → Bool) → Bool")
def nat_any(n: Any, f: Callable[..., Any]) -> bool:
    """``Nat.any n f``: some ``i < n`` with ``f i _``; the run-time ``anyTR`` tests ``i = 0, 1, ...``
    and stops at the first ``true``."""
    return any(f(Nat(i), PROOF) for i in range(_bound(n, "Nat.any")))


@builtin("Nat.all", ": (n : Nat) → (f : (i : Nat) → i < n → Bool) → Bool", verified=False)
def nat_all(n: Any, f: Callable[..., Any]) -> bool:
    """``Nat.all n f``: ``f i _`` for every ``i < n``; ``allTR`` tests ``i = 0, 1, ...`` and stops at the
    first ``false``."""
    return all(f(Nat(i), PROOF) for i in range(_bound(n, "Nat.all")))


# ---------------------------------------------------------------------------------------------
# Int library


@builtin("Int.ofNat", ": Nat → Int")
def int_of_nat(n: int) -> int:
    return int(n)


@builtin("Int.negSucc", ": Nat → Int", verified=False)
def int_neg_succ(n: int) -> int:
    return -int(n) - 1


@builtin("Int.toNat", ": Int → Nat")
def int_to_nat(a: int) -> Nat:
    """``Int.toNat``: negative integers map to 0."""
    return nat(max(int(a), 0))


@builtin("Int.natAbs", "(m : Int) : Nat")
def int_nat_abs(a: int) -> Nat:
    return nat(abs(int(a)))


@builtin("Int.neg", "(n : Int) : Int")
def int_neg(a: int) -> int:
    return -int(a)


@builtin("Int.sign", ": Int → Int")
def int_sign(a: int) -> int:
    a = int(a)
    return (a > 0) - (a < 0)


@builtin("Int.repr", ": Int → String", verified=False)
def int_repr(a: int) -> str:
    return decimal(a)


@builtin("Int.add", ": Int → Int → Int", verified=False)
def int_add(a: int, b: int) -> int:
    return int(a) + int(b)


@builtin("Int.sub", ": Int → Int → Int", verified=False)
def int_sub(a: int, b: int) -> int:
    return int(a) - int(b)


@builtin("Int.mul", ": Int → Int → Int", verified=False)
def int_mul(a: int, b: int) -> int:
    return int(a) * int(b)


@builtin("Int.pow", "(m : Int) : Nat → Int")
def int_pow(a: int, b: int) -> int:
    return _pow(int(a), int(b))


builtin("Int.ediv", ": Int → Int → Int")(lambda a, b: int_ediv(int(a), int(b)))
builtin("Int.emod", ": Int → Int → Int")(lambda a, b: int_emod(int(a), int(b)))
builtin("Int.tdiv", ": Int → Int → Int", verified=False)(lambda a, b: int_tdiv(int(a), int(b)))
builtin("Int.tmod", ": Int → Int → Int", verified=False)(lambda a, b: int_tmod(int(a), int(b)))
builtin("Int.fdiv", ": Int → Int → Int", verified=False)(lambda a, b: int_fdiv(int(a), int(b)))
builtin("Int.fmod", ": Int → Int → Int", verified=False)(lambda a, b: int_fmod(int(a), int(b)))


@builtin("Int.bmod", ": Int → Nat → Int", verified=False)
def int_bmod(x: int, m: int) -> int:
    """``Int.bmod x m`` (m : Nat): ``let r := x % m; if r < (m + 1) / 2 then r else r - m``."""
    x, m = int(x), int(m)
    r = int_emod(x, m)
    return r if r < (m + 1) // 2 else r - m


@builtin("Int.gcd", "(m n : Int) : Nat")
def int_gcd(a: int, b: int) -> Nat:
    return nat(math.gcd(int(a), int(b)))


@builtin("Int.lcm", "(m n : Int) : Nat")
def int_lcm(a: int, b: int) -> Nat:
    return nat_lcm(abs(int(a)), abs(int(b)))


# ---------------------------------------------------------------------------------------------
# Fixed-width library


def _register_fixed(name: str, cls: type[_FixedWidth]) -> None:
    bits = cls.BITS
    mask = (1 << bits) - 1  # `& mask` is Lean's wrapping modulo 2^N, without `_FixedWidth.__new__`
    unary, binary = f": {name} → {name}", f": {name} → {name} → {name}"
    builtin(f"{name}.toNat", f": {name} → Nat", verified=False)(lambda a: nat_unchecked(int(a)))
    builtin(f"{name}.ofNat", f": Nat → {name}", verified=False)(lambda n: _new_int(cls, n & mask))
    builtin(f"{name}.xor", binary, verified=False)(lambda a, b: _new_int(cls, (a ^ b) & mask))
    builtin(f"{name}.land", binary, verified=False)(lambda a, b: _new_int(cls, a & b & mask))
    builtin(f"{name}.lor", binary, verified=False)(lambda a, b: _new_int(cls, (a | b) & mask))
    # `a <<< b = ⟨a.toBitVec <<< (b.toBitVec % N)⟩`
    builtin(f"{name}.shiftLeft", binary, verified=False)(lambda a, b: _new_int(cls, (a << (b % bits)) & mask))
    builtin(f"{name}.shiftRight", binary, verified=False)(lambda a, b: _new_int(cls, (a >> (b % bits)) & mask))
    builtin(f"{name}.complement", unary, verified=False)(lambda a: _new_int(cls, ~a & mask))
    for op, lean in (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div"), ("%", "mod")):
        builtin(f"{name}.{lean}", binary, verified=False)(ARITH[(op, name)])
    for other, other_cls in FIXED_WIDTH_BY_NAME.items():
        if other != name:
            builtin(f"{name}.to{other}", f": {name} → {other}", verified=False)((lambda c: (lambda a: c(int(a))))(other_cls))


for _name, _cls in FIXED_WIDTH_BY_NAME.items():
    _register_fixed(_name, _cls)
