"""Bitwise operators on runtime values, by operator and type (the ``ARITH``/``NEG`` tables' shape).

What the operators mean at each type is core Lean's (see :mod:`..elab.bitwise` for which
instances exist):

* ``Nat``: ``&&&``/``|||``/``^^^`` are ``Nat.land``/``Nat.lor``/``Nat.xor`` (bit by bit, Python's
  ``&``/``|``/``^`` on non-negative integers), ``a <<< b = a * 2 ^ b`` and ``a >>> b = a / 2 ^ b``
  (Init/Data/Nat/Basic.lean, ``Nat.shiftLeft``/``Nat.shiftRight``);
* ``UInt8``…``UInt64`` (``BitVec`` underneath, Init/Data/UInt/Basic.lean): bit by bit modulo
  ``2^N``, and the shift amount is taken modulo the width: ``a <<< b = ⟨a.toBitVec <<< (b %
  N).toBitVec⟩`` (likewise ``>>>``); ``~~~a = 2^N - 1 - a``;
* ``Int``: ``x >>> (n : Nat)`` is ``Int.shiftRight``, which rounds toward negative infinity
  (``Int.negSucc m >>> n = Int.negSucc (m >>> n)``): Python's ``>>`` on an ``int``; ``~~~x =
  -x - 1`` (``Int.not``: ``ofNat n ↦ negSucc n``, ``negSucc n ↦ ofNat n``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import FIXED_WIDTH_BY_NAME, nat_unchecked
from veriscale.backends.embedded.builtins.numbers import nat_shift_left
from veriscale.lean.values import _FixedWidth

_new_int = int.__new__


def _fixed(cls: type[_FixedWidth]) -> dict[str, Callable[[Any, Any], Any]]:
    bits = cls.BITS
    mask = (1 << bits) - 1
    return {
        "&&&": lambda a, b: _new_int(cls, a & b),
        "|||": lambda a, b: _new_int(cls, a | b),
        "^^^": lambda a, b: _new_int(cls, a ^ b),
        "<<<": lambda a, b: _new_int(cls, (a << (b % bits)) & mask),
        ">>>": lambda a, b: _new_int(cls, a >> (b % bits)),
    }


ARITH: dict[tuple[str, str], Callable[[Any, Any], Any]] = {
    ("&&&", "Nat"): lambda a, b: nat_unchecked(a & b),
    ("|||", "Nat"): lambda a, b: nat_unchecked(a | b),
    ("^^^", "Nat"): lambda a, b: nat_unchecked(a ^ b),
    ("<<<", "Nat"): nat_shift_left,
    (">>>", "Nat"): lambda a, b: nat_unchecked(a >> b),
    (">>>", "Int"): lambda a, b: int(a) >> b,
}
"""``(operator, type) ↦ function`` for the operators core declares (shifts: the amount's type is
the operand's, ``Nat`` for ``Int``)."""
for _name, _cls in FIXED_WIDTH_BY_NAME.items():
    for _op, _fn in _fixed(_cls).items():
        ARITH[(_op, _name)] = _fn

COMPLEMENT: dict[str, Callable[[Any], Any]] = {"Int": lambda a: -int(a) - 1}
"""``~~~`` by type (``Complement``: ``Int`` and the fixed widths; ``Nat`` has none)."""
for _name, _cls in FIXED_WIDTH_BY_NAME.items():
    COMPLEMENT[_name] = (lambda cls, mask: (lambda a: _new_int(cls, ~a & mask)))(_cls, (1 << _cls.BITS) - 1)
