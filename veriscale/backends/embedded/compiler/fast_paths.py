"""Array operations written inline in generated code (:mod:`.codegen`).

``a.size``, ``a.set! i v``, ``a.push v``, ``a[i]!``/``a[i]``/``a[i]?`` run once per iteration of
the loops Verina's solutions are made of; called as builtins, each costs one to three Python
calls (the builtin, ``len`` of the array, its ``set``). Generated code writes their common
case as text over the operands, kept in temporaries so each is evaluated once and in order: a
:class:`~veriscale.lean.values.Arr` (tested by its exact class) read through ``_len`` and its
root's list ``_items``, an index of the right kind in range. Every other case (another
collection, an index out of range, an array version that is not a root) calls the very function
the closure calls, so values, errors and steps are the closures' own; none of these operations
runs Lean code or charges steps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from veriscale.backends.embedded.builtins import arrays
from veriscale.backends.embedded.builtins._core import SMALL_NAT_LIMIT, SMALL_NATS
from veriscale.backends.embedded.compiler.codegen import CodeGen, some_text
from veriscale.backends.embedded.registry import MAX_COLLECTION
from veriscale.lean.values import Arr, Nat

#: writes (statements, expression) of an operation from its operands' expressions
Writer = Callable[[Sequence[str]], tuple[Sequence[str], str]]


def builtin_writer(gen: CodeGen, fn: Any, nargs: int) -> Writer | None:
    """The inline text of a call of the builtin function ``fn`` on ``nargs`` operands, for the
    builtins written so (``None`` for the others)."""
    if fn is arrays.array_size and nargs == 1:
        return _size(gen)
    if fn is arrays.array_set_bang and nargs == 3:
        return _set_bang(gen)
    if fn is arrays.array_push and nargs == 2:
        return _push(gen)
    return None


def index_writer(gen: CodeGen, mode: str, fallback: Callable[[Any, Any], Any], on_list: bool = False,
                 unboxed: Callable[[Any], Any] | None = None) -> Writer:
    """The inline text of ``c[i]`` (``mode`` ``""`` or ``"!"``) or ``c[i]?`` (``"?"``) on an
    array (a list, a tuple, when ``on_list``), ``fallback(c, i)`` (the closure's own function)
    otherwise. ``unboxed`` (with ``"?"``): the text of ``c[i]?`` unboxed (:mod:`.unboxed`), the
    element itself in range, else ``unboxed`` of the fallback's option."""
    call = gen.const(fallback)
    if on_list:
        is_it, items, size = f"{{c}}.__class__ is {gen.const(tuple)}", "{c}", f"{gen.const(len)}({{c}})"
    else:
        is_it, items, size = f"{{c}}.__class__ is {gen.const(Arr)} and {{c}}._items is not None", "{c}._items", "{c}._len"

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        c, i = (_operand(gen, e, stmts) for e in exprs)
        at = f"{items.format(c=c)}[{i}]"
        if mode == "?":
            # `some` of the element at an index (of any integer type) in range
            cond = f"{is_it.format(c=c)} and 0 <= {i} < {size.format(c=c)}"
            if unboxed is not None:
                return stmts, f"({at} if {cond} else {gen.const(unboxed)}({call}({c}, {i})))"
            return stmts, f"({some_text(gen, at)} if {cond} else {call}({c}, {i}))"
        # the element at a `Nat` index in range
        cond = f"{is_it.format(c=c)} and {i}.__class__ is {gen.const(Nat)} and {i} < {size.format(c=c)}"
        return stmts, f"({at} if {cond} else {call}({c}, {i}))"

    return write


def _size(gen: CodeGen) -> Writer:
    arr, small, limit = gen.const(Arr), gen.const(SMALL_NATS), gen.const(SMALL_NAT_LIMIT)
    call = gen.const(arrays.array_size)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        a = _operand(gen, exprs[0], stmts)
        return stmts, (f"({small}[{a}._len] if {a}.__class__ is {arr} and {a}._len < {limit} "
                                       f"else {call}({a}))")

    return write


def _set_bang(gen: CodeGen) -> Writer:
    arr, call = gen.const(Arr), gen.const(arrays.array_set_bang)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        a, i, v = (_operand(gen, e, stmts) for e in exprs)
        # `set!` of a `Nat` index in range is `set`; the builtin also takes other indices
        cond = f"{a}.__class__ is {arr} and {i}.__class__ is {gen.const(Nat)} and {i} < {a}._len"
        return stmts, f"({a}.set_in_range({i}, {v}) if {cond} else {call}({a}, {i}, {v}))"

    return write


def _push(gen: CodeGen) -> Writer:
    arr, call, limit = gen.const(Arr), gen.const(arrays.array_push), gen.const(MAX_COLLECTION)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        a, v = (_operand(gen, e, stmts) for e in exprs)
        # below the size limit the builtin checks nothing before pushing
        return stmts, f"({a}.push({v}) if {a}.__class__ is {arr} and {a}._len < {limit} else {call}({a}, {v}))"

    return write


def append_writer(gen: CodeGen, fallback: Callable[[Any, Any], Any], kind: str | None) -> Writer:
    """The inline text of ``x ++ y`` where the static type's head is ``kind``: for a ``List``
    (tuples) or a ``String`` (``str``, not a ``Char``) below the size limit, Python's ``+``;
    ``fallback(x, y)`` (the closure's own function, which dispatches on the run-time type)
    for any other pair of values or kind."""
    call = gen.const(fallback)
    cls = {"List": tuple, "String": str}.get(kind or "")
    if cls is None:
        return lambda exprs: ((), f"{call}({exprs[0]}, {exprs[1]})")
    is_cls, size, limit = gen.const(cls), gen.const(len), gen.const(MAX_COLLECTION)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        x, y = (_operand(gen, e, stmts) for e in exprs)
        cond = f"{x}.__class__ is {is_cls} and {y}.__class__ is {is_cls} and {size}({x}) + {size}({y}) <= {limit}"
        return stmts, f"({x} + {y} if {cond} else {call}({x}, {y}))"

    return write


#: an operand's expression that is a temporary of the generated function (assigned once,
#: before the text that reads it): nothing between its reads can change it, so it is read in
#: place (a frame slot, ``fr[k]`` until the body goes on locals, is copied: an operand after
#: it may be a closure that writes the frame)
_STABLE = re.compile(r"_t\d+")


def _operand(gen: CodeGen, expr: str, stmts: list[str]) -> str:
    """``expr`` as something the text may read several times: itself when stable, else a
    temporary assigned by a statement appended to ``stmts`` (in operand order)."""
    if _STABLE.fullmatch(expr):
        return expr
    t = gen.temp()
    stmts.append(f"{t} = {expr}")
    return t


__all__ = ["Writer", "append_writer", "builtin_writer", "index_writer"]
