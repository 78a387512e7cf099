"""The ``Option`` and ``Except ε`` monads at run time: their values, ``pure``, and how a ``do``
block in them runs.

Facts (Init/Prelude.lean, Init/Control/Except.lean, Init/Data/Option/Basic.lean):

* ``Option``'s ``pure a = some a``; ``x >>= f`` is ``none`` when ``x`` is ``none``, else
  ``f a`` for ``x = some a`` (``Option.bind``).
* ``Except ε α`` is ``inductive Except | error : ε → Except ε α | ok : α → Except ε α``; its
  monad (``Except.pure``/``Except.bind``): ``pure a = .ok a``; ``.error e >>= f = .error e``,
  ``.ok a >>= f = f a``; ``throw e = .error e`` (``MonadExceptOf ε (Except ε)``).

A ``do`` block in one of them is compiled as the ``Id`` block it would be, except that every
monadic value it meets -- each action element, each ``let x ← e`` and ``x ← e`` -- is *unwrapped*:
``some a``/``.ok a`` gives ``a`` and the block goes on, ``none``/``.error e`` ends the whole block
with that value (:class:`ShortCircuit`, caught where the block starts). ``return a`` and falling
off the end give ``pure a``. This is the meaning of ``Lean.Elab.Do``'s translation into ``bind``
chains for these two monads, whose ``bind`` stops at the first failing value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins.options import option_bind, option_map
from veriscale.backends.embedded.compiler.support import unsupported
from veriscale.backends.embedded.elab.monadic import MONADIC_TRAVERSALS
from veriscale.backends.embedded.runtime_support import binary, unary
from veriscale.lean.types import LeanType, NamedType
from veriscale.lean.values import NONE, UNIT, Arr, Ctor, Some, Unsupported

MONADIC = frozenset({"Option", "Except"})
"""Monads whose ``do`` blocks stop at a failing value (the ``Id`` monad's never fail)."""

EXCEPT_OK = "Except.ok"
EXCEPT_ERROR = "Except.error"


def except_ok(value: Any) -> Ctor:
    return Ctor(EXCEPT_OK, (value,))


def except_error(value: Any) -> Ctor:
    return Ctor(EXCEPT_ERROR, (value,))


class ShortCircuit(Exception):
    """A ``none`` or ``.error e`` met by a ``do`` block in ``Option``/``Except``: the block's value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def pure_of(monad: str) -> Callable[[Any], Any]:
    """``pure`` of ``monad`` (``Option`` or ``Except``)."""
    return Some if monad == "Option" else except_ok


def value_type(monad: str, ty: LeanType | None) -> LeanType | None:
    """``α`` of ``Option α`` / ``Except ε α`` (``None`` when ``ty`` is not that)."""
    if isinstance(ty, NamedType) and ty.name == monad:
        if monad == "Option" and len(ty.args) == 1:
            return ty.args[0]
        if monad == "Except" and len(ty.args) == 2:
            return ty.args[1]
    return None


def unwrapper(monad: str, node: A.Node) -> Callable[[Any], Any]:
    """The value inside a successful monadic value; a failing one ends the block
    (:class:`ShortCircuit`). Anything else is not a value of ``monad``: the engine says so."""
    if monad == "Option":

        def unwrap_option(v: Any) -> Any:
            if isinstance(v, Some):
                return v.value
            if v is NONE:
                raise ShortCircuit(v)
            raise unsupported(node, "do element", "its value is not an Option")

        return unwrap_option

    def unwrap_except(v: Any) -> Any:
        if isinstance(v, Ctor) and len(v.args) == 1:
            if v.name == EXCEPT_OK:
                return v.args[0]
            if v.name == EXCEPT_ERROR:
                raise ShortCircuit(v)
        raise unsupported(node, "do element", "its value is not an Except")

    return unwrap_except


def unwrapped(monad: str, node: A.Node, c: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    """``c``'s monadic value unwrapped (:func:`unwrapper`)."""
    unwrap = unwrapper(monad, node)

    def run(fr: list[Any]) -> Any:
        return unwrap(c(fr))

    return run


OPTION_OPS = frozenset({"<|>", ">>=", "<$>"})
"""Operators the compiler runs on ``Option`` values (:func:`option_operator`)."""


def option_operator(compiler: Any, node: A.BinOp, sc: Any, expected: LeanType | None) -> Callable[[list[Any]], Any]:
    """``a <|> b`` (``Option.orElse``: ``b`` only when ``a`` is ``none``), ``x >>= f``
    (``Option.bind``) and ``f <$> x`` (``Option.map``), where the elaborator typed the monadic
    operand an ``Option``; anywhere else the engine does not run them."""
    op = node.op
    monadic = node.rhs if op == "<$>" else node.lhs
    if compiler.node_types.monad_of(monadic) != "Option":
        raise unsupported(node, f"operator {op}", "outside Option")
    if op == "<|>":
        a, b = compiler.compile(node.lhs, sc, expected), compiler.compile(node.rhs, sc, expected)

        def or_else(fr: list[Any]) -> Any:
            v = a(fr)
            return v if isinstance(v, Some) else b(fr)

        return or_else
    x = compiler.compile(monadic, sc, None)
    f = compiler.compile(node.lhs if op == "<$>" else node.rhs, sc, None)
    # the operands evaluated as those of the named functions (`Option.bind x f`, `Option.map f x`),
    # which the operators stand for
    if op == ">>=":
        return lambda fr: option_bind(x(fr), f(fr))
    return lambda fr: option_map(f(fr), x(fr))


# -- foldlM / mapM / forM (Init/Data/List/Control.lean, Init/Data/Array/Basic.lean) -----------------

_RUN_MONADS = frozenset({"Option", "Except", "Id"})


def _step(monad: str) -> Callable[[Any], tuple[bool, Any]]:
    """A monadic value as ``(True, a)`` when it goes on with ``a`` (``some a``, ``.ok a``, any
    ``Id`` value) or ``(False, v)`` when it is the failure ``v`` that ends a ``bind`` chain."""
    if monad == "Id":
        return lambda v: (True, v)
    if monad == "Option":

        def option_step(v: Any) -> tuple[bool, Any]:
            if isinstance(v, Some):
                return True, v.value
            if v is NONE:
                return False, v
            raise Unsupported("foldlM/mapM/forM", "a value that is not an Option")

        return option_step

    def except_step(v: Any) -> tuple[bool, Any]:
        if isinstance(v, Ctor) and len(v.args) == 1 and v.name in (EXCEPT_OK, EXCEPT_ERROR):
            return v.name == EXCEPT_OK, v.args[0] if v.name == EXCEPT_OK else v
        raise Unsupported("foldlM/mapM/forM", "a value that is not an Except")

    return except_step


def _pure(monad: str) -> Callable[[Any], Any]:
    return (lambda v: v) if monad == "Id" else pure_of(monad)


def fold_m(monad: str, f: Any, init: Any, xs: Any) -> Any:
    """``foldlM f init xs``: ``f acc x >>= …`` left to right, the first failure its value."""
    step, g, acc = _step(monad), binary(f), init
    for x in xs:
        ok, acc = step(g(acc, x))
        if not ok:
            return acc
    return _pure(monad)(acc)


def map_m(monad: str, f: Any, xs: Any, array: bool) -> Any:
    """``mapM f xs``: each ``f x`` in order, the first failure its value, else the results."""
    step, g, out = _step(monad), unary(f), []
    for x in xs:
        ok, y = step(g(x))
        if not ok:
            return y
        out.append(y)
    return _pure(monad)(Arr(tuple(out)) if array else tuple(out))


def for_m(monad: str, f: Any, xs: Any) -> Any:
    """``forM xs f``: each ``f x`` in order, the first failure its value, else ``pure ()``."""
    step, g = _step(monad), unary(f)
    for x in xs:
        ok, v = step(g(x))
        if not ok:
            return v
    return _pure(monad)(UNIT)


_COLLECTION_FIRST = frozenset({"List.forM"})
"""``protected def List.forM (as : List α) (f : α → m PUnit)``: the list before the function."""


def traversal(compiler: Any, node: A.Node, name: str, args: list[A.Node], sc: Any,
              receiver: Callable[[list[Any]], Any] | None) -> Callable[[list[Any]], Any]:
    """``name args`` (``receiver.name args``) for ``name`` in :data:`MONADIC_TRAVERSALS`, at the
    monad the elaborator found for the call (``Option``, ``Except ε``, ``Id``). The collection is
    the receiver of field notation, else the argument at its position; the optional ``start``/
    ``stop`` of the array versions and partial applications are not run."""
    assert name in MONADIC_TRAVERSALS
    monad = compiler.node_types.monad_of(node)
    if monad not in _RUN_MONADS:
        raise unsupported(node, name, "at a monad the engine does not run")
    if any(isinstance(a, A.NamedArg) for a in args):
        raise unsupported(node, name, "with a named argument")
    op = name.partition(".")[2]
    arity = 3 if op == "foldlM" else 2
    cs = [compiler.compile(a, sc, compiler.stype(a, sc)) for a in args]
    if receiver is not None:
        cs.insert(0 if name in _COLLECTION_FIRST else arity - 1, receiver)
    if len(cs) != arity:
        raise unsupported(node, name, f"with {len(cs)} arguments (start/stop or a partial application)")
    if op == "foldlM":
        f, init, xs = cs
        return lambda fr: fold_m(monad, f(fr), init(fr), xs(fr))
    if op == "mapM":
        f, xs = cs
        array = name.startswith("Array.")
        return lambda fr: map_m(monad, f(fr), xs(fr), array)
    xs, f = cs if name in _COLLECTION_FIRST else cs[::-1]
    return lambda fr: for_m(monad, f(fr), xs(fr))


__all__ = ["OPTION_OPS", "traversal", "fold_m", "map_m", "for_m", "option_operator", "EXCEPT_ERROR", "EXCEPT_OK", "MONADIC", "ShortCircuit", "except_error", "except_ok", "pure_of",
           "unwrapped", "unwrapper", "value_type"]
