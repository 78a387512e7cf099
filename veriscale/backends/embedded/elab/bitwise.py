"""Bitwise operators: ``&&&``, ``|||``, ``^^^`` (in ``binop%`` trees), ``<<<``, ``>>>`` and ``~~~``.

Lean's notations (Init/Notation.lean, Init/Prelude.lean):

* ``infixl:60 " &&& " => HAnd.hAnd``, ``infixl:58 " ^^^ " => HXor.hXor``, ``infixl:55 " ||| " =>
  HOr.hOr``, each redefined by ``macro_rules`` as ``binop% …``: they join the arithmetic
  expression tree (``Lean.Elab.Extra``), so their leaves get the tree's maximal type and
  coercions, and the instance is the default ``instHAnd [AndOp α] : HAnd α α α`` (``instHOr``/
  ``OrOp``, ``instHXor``/``Xor``) at that type -- handled by :mod:`.ops` with
  :func:`bitwise_instance_exists`;
* ``infixl:75 " <<< " => HShiftLeft.hShiftLeft`` and ``infixl:75 " >>> " =>
  HShiftRight.hShiftRight`` have no ``binop%`` macro: a plain application, elaborated by
  :meth:`BitwiseMixin.shift` -- the default instances ``instHShiftLeft [ShiftLeft α] : HShiftLeft
  α α α`` (``instHShiftRight``) make both operands one type, except that core's ``Int`` has only
  ``instance : HShiftRight Int Nat Int`` (Init/Data/Int/Bitwise/Basic.lean: ``Int.shiftRight``, the
  amount a ``Nat``) and no left shift;
* ``prefix:100 "~~~" => Complement.complement``: an application, :meth:`BitwiseMixin.complement`.

Core's instances (without Mathlib): ``Nat`` has ``AndOp``/``OrOp``/``Xor``/``ShiftLeft``/
``ShiftRight`` (Init/Data/Nat/Bitwise/Basic.lean: ``Nat.land``, ``Nat.lor``, ``Nat.xor``,
``Nat.shiftLeft``, ``Nat.shiftRight``) and no ``Complement``; ``UInt8``…``UInt64`` and ``USize``
have all six (Init/Data/UInt/Basic.lean, shift amounts taken modulo the width); ``Int`` has
``Complement`` (``Int.not``) and ``HShiftRight Int Nat Int`` only. Types whose instances the engine
could not pin down (``Bool``, ``Fin``) and every type under a Mathlib import (Mathlib declares
bitwise operations on ``ℤ``) are gaps, never a verdict.
"""

from __future__ import annotations

import functools

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.types import INT, NAT, Gap, MVar, has_gap, head_name, show, unify, zonk
from veriscale.lean.types import LeanType

BITWISE_OPS = frozenset({"&&&", "|||", "^^^"})
"""The bitwise operators that are ``binop%`` (they join the arithmetic tree)."""
SHIFT_OPS = frozenset({"<<<", ">>>"})

FIXED_WIDTH = frozenset({"UInt8", "UInt16", "UInt32", "UInt64", "USize"})
_WITH_BITWISE = FIXED_WIDTH | {"Nat"}
"""Types whose ``AndOp``/``OrOp``/``Xor``/``ShiftLeft``/``ShiftRight`` instances core declares."""
_UNPINNED = frozenset({"Bool", "Fin"})
"""Core types whose bitwise instances the engine does not decide (a gap, not a verdict)."""
_NO_BITWISE = frozenset({"Int", "Float", "String", "Char", "List", "Array", "Option", "Prod", "Unit", "Prop",
                         "Std.HashMap", "Std.HashSet", "Function"})
"""Core types with no ``AndOp``/``OrOp``/``Xor``/``ShiftLeft`` instance (``Int`` has ``>>>`` by a
``Nat``, handled apart)."""

SHIFT_CLASS = {"<<<": "HShiftLeft", ">>>": "HShiftRight"}


def bitwise_instance_exists(op: str, head: str, has_mathlib: bool) -> bool | None:
    """Whether core Lean has the homogeneous instance of the ``binop%`` operator ``op`` (``&&&``,
    ``|||``, ``^^^``) at the type headed ``head`` (``None``: not decided here)."""
    if head in _WITH_BITWISE:
        return True
    if has_mathlib or head in _UNPINNED:
        return None
    return False if head in _NO_BITWISE else None


class BitwiseMixin(ElabCore):
    """Shifts and complement (the ``binop%`` bitwise operators are in :mod:`.ops`)."""

    def shift(self, node: A.BinOp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        """``x <<< y`` / ``x >>> y``: ``HShiftLeft.hShiftLeft x y`` elaborated as an application
        (arguments without an expected type, the instance found once the operand types are)."""
        lt = self.elab(node.lhs, ctx, None)
        rt = self.elab(node.rhs, ctx, None)
        if _unknown(lt) or _unknown(rt):
            # `st.2 >>> x` in a lambda elaborated before its argument types are known: the
            # instance problem waits (Lean's `synthesizeSyntheticMVars` loop), and so does the type
            result = self.fresh()

            def resume() -> bool:
                if _unknown(lt) or _unknown(rt):
                    return False
                unify(result, self._shift_type(node, lt, rt))
                return True

            self.resumes.append(resume)
            return result
        return self._shift_type(node, lt, rt)

    def _shift_type(self, node: A.BinOp, lt: LeanType, rt: LeanType) -> LeanType:
        """The type of ``lhs <<< rhs`` (or ``>>>``) from the operands' types, with the instance
        Lean's resolution finds (an error where core has none)."""
        lz, rz = zonk(lt), zonk(rt)
        if isinstance(lz, Gap) or has_gap(lz) or isinstance(rz, Gap) or has_gap(rz):
            return self.fresh()
        cls = SHIFT_CLASS[node.op]
        mathlib = getattr(self, "has_mathlib", False)
        if isinstance(lz, MVar):
            other = head_name(rz) if not isinstance(rz, MVar) else None
            if other is None and isinstance(rz, MVar) and rz.numeral:
                # two numerals: `instHShiftLeft` makes them one type, `OfNat` defaults it to `Nat`
                unify(lt, rt)
                self.postponed.append(functools.partial(self._numeral_shift, node, lt))
                return lt
            if other in _WITH_BITWISE:
                unify(lt, rz)  # the default instance `HShiftLeft α α α` at the amount's type
                return rz
            return self.gap(node, f"`{node.op}` of a numeral by {show(rz)} (default-instance order not modelled)",
                            "user-instance")
        h = head_name(lz)
        if h in _WITH_BITWISE:
            if unify(rt, lz) is False:
                self.error(node, f"failed to synthesize {cls} {show(lz)} {show(rz)} ?γ: core shifts {h} only by "
                                 f"a {h}", "missing-instance")
            return lz
        if h == "Int" and not mathlib:
            if node.op == ">>>":
                if unify(rt, NAT) is False:
                    self.error(node, f"failed to synthesize HShiftRight Int {show(rz)} ?γ: core shifts an Int "
                                     "right only by a Nat (`instance : HShiftRight Int Nat Int`)", "missing-instance")
                return INT
            self.error(node, "failed to synthesize HShiftLeft Int ?β ?γ: core Lean declares no left shift of Int",
                       "missing-instance")
            return INT
        if h in _NO_BITWISE and not mathlib:
            self.error(node, f"failed to synthesize {cls} {show(lz)} {show(rz)} ?γ", "missing-instance")
            return self.fresh()
        return self.gap(node, f"`{node.op}` on {show(lz)} is not modelled", "user-instance")

    def _numeral_shift(self, node: A.BinOp, t: LeanType) -> None:
        """Numerals shifted are ``Nat`` after defaulting; fixed to another type by the context,
        whether Lean's default instances agree is not modelled."""
        z = zonk(t)
        if not isinstance(z, MVar) and head_name(z) != "Nat":
            self.gap(node, f"`{node.op}` of numerals at {show(z)} (default-instance order not modelled)",
                     "user-instance")

    def complement(self, node: A.UnOp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        """``~~~x``: ``Complement.complement x`` (``{α} [Complement α] : α → α``, the expected type
        propagated to ``x``)."""
        known = expected if expected is not None and not isinstance(zonk(expected), MVar) else None
        t = self.elab(node.arg, ctx, known)
        if known is not None:
            self.expect(node.arg, t, known)
        self.postponed.append(functools.partial(self._check_complement, node, t))
        return t

    def _check_complement(self, node: A.UnOp, t: LeanType) -> None:
        z = zonk(t)
        if isinstance(z, (MVar, Gap)) or has_gap(z):
            if isinstance(z, MVar):
                self.gap(node, "`~~~` on an operand whose type is only defaulted (not modelled)", "user-instance")
            return
        h = head_name(z)
        if h in FIXED_WIDTH or h == "Int":
            return
        if not getattr(self, "has_mathlib", False) and (h == "Nat" or h in _NO_BITWISE):
            self.error(node, f"failed to synthesize Complement {show(z)}"
                             + (": a natural number has no bitwise complement in core Lean" if h == "Nat" else ""),
                       "missing-instance")
            return
        self.gap(node, f"`~~~` on {show(z)} is not modelled", "user-instance")


def _unknown(t: LeanType) -> bool:
    """A type still unknown that is not a numeral's (which defaults to ``Nat``)."""
    z = zonk(t)
    return isinstance(z, MVar) and not z.numeral
