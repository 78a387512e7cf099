"""Shifts (``<<<``, ``>>>``) and complement (``~~~``): applications, not ``binop%`` trees.

The elaborator (:mod:`..elab.bitwise`) has fixed the operand types: a shift's result has the
type of its left operand, whose type the amount shares (``Nat`` for an ``Int`` shifted right),
and ``~~~x`` has the type of ``x``. At a type known statically the operation is one call of the
table :mod:`..builtins.bitwise` gives; otherwise it is looked up from the left operand's run-time
type. (``&&&``, ``|||``, ``^^^`` are ``binop%`` and go through the arithmetic trees of
:mod:`.arith`.)
"""

from __future__ import annotations

from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins import type_name_of
from veriscale.backends.embedded.builtins.bitwise import ARITH, COMPLEMENT
from veriscale.backends.embedded.compiler.support import Closure, Scope, unsupported
from veriscale.backends.embedded.statics import NAT, head, is_known
from veriscale.lean.types import LeanType, NamedType


def _static_head(comp: Any, node: A.Node, sc: Scope, expected: LeanType | None) -> str | None:
    t = comp.stype(node, sc)
    if t is None or not is_known(t):
        t = expected if expected is not None and is_known(expected) else None
    return head(t) if t is not None else None


def bitwise_shift(comp: Any, node: A.BinOp, sc: Scope, expected: LeanType | None) -> Closure:
    """``x <<< n`` / ``x >>> n``."""
    op = node.op
    T = _static_head(comp, node, sc, None)
    if T is not None:
        f = ARITH.get((op, T))
        if f is None:
            raise unsupported(node, f"operator {op}", f"at type {T}")
        t = NamedType(T)
        a = comp.compile(node.lhs, sc, t)
        b = comp.compile(node.rhs, sc, NAT if T == "Int" else t)
        return comp.gen.fuse(lambda fr: f(a(fr), b(fr)), comp.gen.const(f) + "({0}, {1})", [a, b])
    a = comp.compile(node.lhs, sc, None)
    b = comp.compile(node.rhs, sc, None)

    def dynamic(fr: list[Any]) -> Any:
        x, n = a(fr), b(fr)
        kind = type_name_of(x)
        f = ARITH.get((op, kind))
        if f is None or type_name_of(n) != ("Nat" if kind == "Int" else kind):
            raise unsupported(node, f"operator {op}", f"on {kind} by {type_name_of(n)}")
        return f(x, n)

    return dynamic


def bitwise_complement(comp: Any, node: A.UnOp, sc: Scope, expected: LeanType | None) -> Closure:
    """``~~~x``."""
    T = _static_head(comp, node, sc, expected)
    if T is not None:
        f = COMPLEMENT.get(T)
        if f is None:
            raise unsupported(node, "operator ~~~", f"at type {T}")
        c = comp.compile(node.arg, sc, NamedType(T))
        return comp.gen.fuse(lambda fr: f(c(fr)), comp.gen.const(f) + "({0})", [c])
    c = comp.compile(node.arg, sc, None)

    def dynamic(fr: list[Any]) -> Any:
        x = c(fr)
        g = COMPLEMENT.get(type_name_of(x))
        if g is None:
            raise unsupported(node, "operator ~~~", f"on {type_name_of(x)}")
        return g(x)

    return dynamic
