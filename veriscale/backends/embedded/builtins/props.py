"""Decidable propositions, decided: each returns the ``bool`` that ``decide`` would produce.

* ``List.Nodup l = Pairwise (· ≠ ·) l``, decided with ``DecidableEq`` (structural equality).
* ``List.Pairwise R l``: every element is ``R``-related to every later one (``R`` arrives decided).
* ``List.Sorted R l`` (Mathlib) is ``Pairwise R l``.
* ``List.Perm l₁ l₂`` is decided through ``isPerm`` (``DecidableEq``); ``List.Sublist l₁ l₂``
  (``l₁ <+ l₂``) through ``isSublist``.
* ``Nat.Prime p`` (Mathlib, ``Nat.decidablePrime1``): ``p ≥ 2`` and no divisor in ``[2, p)``.
* ``Nat.Coprime m n``: ``Nat.gcd m n = 1``. ``Even n``/``Odd n`` on ``Nat``/``Int``: ``n % 2``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import type_name_of
from veriscale.backends.embedded.builtins.order import decidable_eq
from veriscale.backends.embedded.registry import builtin
from veriscale.lean.values import Unsupported

Fn = Callable[..., Any]


@builtin("List.Pairwise", "{α : Type u} (R : α → α → Prop) : List α → Prop")
def list_pairwise(r: Fn, xs: tuple) -> bool:
    items = list(xs)
    return all(r(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items)))


@builtin("List.Sorted", "{α : Type _} : (α → α → Prop) → List α → Prop", verified=False)
def list_sorted(r: Fn, xs: tuple) -> bool:
    return list_pairwise(r, xs)


@builtin("List.Nodup", "{α : Type u} : List α → Prop")
def list_nodup(xs: tuple) -> bool:
    items = list(xs)
    return not any(
        decidable_eq(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items))
    )


@builtin("List.Perm", "{α : Type u} : List α → List α → Prop")
def list_perm(l1: tuple, l2: tuple) -> bool:
    rest = list(l2)
    for a in l1:
        for i, b in enumerate(rest):
            if decidable_eq(a, b):
                del rest[i]
                break
        else:
            return False
    return not rest


@builtin("List.Sublist", "{α : Type u_1} : List α → List α → Prop")
def list_sublist(l1: tuple, l2: tuple) -> bool:
    i = 0
    for b in l2:
        if i < len(l1) and decidable_eq(l1[i], b):
            i += 1
    return i == len(l1)


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    for p in small:
        if n % p == 0:
            return n == p
    if n < 10**12:
        return all(n % d for d in range(41, math.isqrt(n) + 1, 2))
    if n >= 3_317_044_064_679_887_385_961_981:
        raise Unsupported("Nat.Prime", "number too large for a deterministic primality test")
    # Miller-Rabin with these bases is deterministic below 3.3e24
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


@builtin("Nat.Prime", ": Nat → Prop", verified=False)
def nat_prime(n: Any) -> bool:
    return _is_prime(int(n))


@builtin("Nat.Coprime", ": Nat → Nat → Prop", verified=False)
def nat_coprime(m: Any, n: Any) -> bool:
    return math.gcd(int(m), int(n)) == 1


def _parity_operand(n: Any, construct: str) -> int:
    if type_name_of(n) not in ("Nat", "Int"):
        raise Unsupported(construct, f"only Nat and Int are handled, not {type_name_of(n)}")
    return int(n)


@builtin("Even", "{α : Type _} : α → Prop", verified=False)
def even(n: Any) -> bool:
    return _parity_operand(n, "Even") % 2 == 0


@builtin("Odd", "{α : Type _} : α → Prop", verified=False)
def odd(n: Any) -> bool:
    return _parity_operand(n, "Odd") % 2 == 1


@builtin("List.Chain'", "{α : Type _} : (α → α → Prop) → List α → Prop", verified=False)
def list_chain_prime(r: Fn, xs: tuple) -> bool:
    """Mathlib ``Chain' R l``: every adjacent pair is ``R``-related."""
    return all(r(a, b) for a, b in zip(xs, xs[1:]))


@builtin("Nat.factorial", ": Nat → Nat", verified=False)
def nat_factorial(n: Any) -> Any:
    from veriscale.backends.embedded.builtins._core import check_bits, nat

    n = int(n)
    if n > 20_000:
        raise Unsupported("Nat.factorial", "argument too large")
    return nat(check_bits(math.factorial(n)))


@builtin("Nat.choose", ": Nat → Nat → Nat", verified=False)
def nat_choose(n: Any, k: Any) -> Any:
    from veriscale.backends.embedded.builtins._core import check_bits, nat

    n, k = int(n), int(k)
    if n > 100_000:
        raise Unsupported("Nat.choose", "argument too large")
    return nat(check_bits(math.comb(n, k)))


@builtin("Nat.fib", ": Nat → Nat", verified=False)
def nat_fib(n: Any) -> Any:
    """Mathlib ``Nat.fib``: ``fib 0 = 0``, ``fib 1 = 1``."""
    from veriscale.backends.embedded.builtins._core import nat

    n = int(n)
    if n > 100_000:
        raise Unsupported("Nat.fib", "argument too large")
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return nat(a)


@builtin("Nat.dist", ": Nat → Nat → Nat", verified=False)
def nat_dist(n: Any, m: Any) -> Any:
    """``Nat.dist n m = n - m + (m - n)`` (truncated subtractions)."""
    from veriscale.backends.embedded.builtins._core import nat

    return nat(abs(int(n) - int(m)))


@builtin("Nat.log", ": Nat → Nat → Nat", verified=False)
def nat_log(b: Any, n: Any) -> Any:
    """Mathlib ``Nat.log b n``: the largest ``k`` with ``b^k ≤ n``; 0 when ``b ≤ 1`` or ``n < b``."""
    from veriscale.backends.embedded.builtins._core import nat

    b, n = int(b), int(n)
    if b <= 1 or n < b:
        return nat(0)
    k, power = 0, 1
    while power * b <= n:
        power *= b
        k += 1
    return nat(k)
