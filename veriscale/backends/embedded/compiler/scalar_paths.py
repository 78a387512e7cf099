"""Builtins of scalars, lists and options written inline in generated code (:mod:`.codegen`).

Recursions over lists and loops over scalars call a few small builtins once per step:
``xs.length``, ``s.length``, ``xs.getD i d``, ``xs.headD d``, ``o.isNone``, ``o.getD d``, ``Nat.min``, ``Int.toNat``,
``c.isDigit``, ``Char.ofNat``, ``String.mk``, ``x.xor y`` on ``UInt8`` … Called as builtins, each costs a Python call (two or
three where the builtin is a lambda over another function, or makes its ``Nat`` through
``Nat.__new__``). Generated code writes their common case as text over the operands: the
operands' values tested by their exact class (no run-time value's class derives from another:
a test holds the run-time classes to it), a result ``Nat`` below
:data:`~..builtins._core.SMALL_NAT_LIMIT` read from the table of small ``Nat`` values. Every
other case calls the very function the closure calls, so values, errors and steps are the
closures' own; none of these builtins runs Lean code or charges steps.

``x ∈ xs`` / ``x ∉ xs`` on a list of scalars is Python's ``in`` (exact there: Python's
``==`` is Lean's decidable equality on scalars, see :func:`..builtins.order.eq_is_beq`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from veriscale.backends.embedded.builtins._core import SMALL_NAT_LIMIT, SMALL_NATS
from veriscale.backends.embedded.builtins.order import _MEMBERSHIP_MIN, SCALAR_TYPES
from veriscale.backends.embedded.compiler.codegen import CodeGen
from veriscale.backends.embedded.registry import BUILTINS
from veriscale.lean.values import FIXED_WIDTH_TYPES, NONE, Char, Nat, Some

#: writes (statements, expression) of an operation from its operands' expressions
Writer = Callable[[Sequence[str]], tuple[Sequence[str], str]]
#: makes the writer of one builtin: from the code generator and the builtin's own function
_Factory = Callable[[CodeGen, Any], Writer]


def scalar_writer(gen: CodeGen, fn: Any, nargs: int) -> Writer | None:
    """The inline text of a call of the builtin function ``fn`` on ``nargs`` operands, for the
    builtins of this module (``None`` for the others)."""
    entry = _factories().get(id(fn))
    if entry is None or entry[0] is not fn or entry[1] != nargs:
        return None
    return entry[2](gen, fn)


def membership_writer(gen: CodeGen, fallback: Callable[[Any, Any], Any], negated: bool) -> Writer:
    """The inline text of ``x ∈ c`` (``x ∉ c`` when ``negated``) from the operands ``c, x`` (in
    that order, as they are evaluated): Python's ``in`` on a list below the size where the
    builtin searches a hashed copy instead, when ``x`` is a scalar; ``fallback(c, x)`` (the
    closure's own function) otherwise."""
    tup, scalars, size = gen.const(tuple), gen.const(SCALAR_TYPES), gen.const(len)
    limit, call = gen.const(_MEMBERSHIP_MIN), gen.const(fallback)
    op = "not in" if negated else "in"

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        c, x = (_operand(gen, e, stmts) for e in exprs)
        cond = f"{c}.__class__ is {tup} and {x}.__class__ in {scalars} and {size}({c}) < {limit}"
        return stmts, f"({x} {op} {c} if {cond} else {call}({c}, {x}))"

    return write


# -- the builtins written inline ------------------------------------------------------------------


def _length(cls: type) -> _Factory:
    """``xs.length`` / ``s.length``: ``len`` of a value of exactly ``cls`` as a small ``Nat``."""
    def factory(gen: CodeGen, fn: Any) -> Writer:
        is_cls, size, small, limit, call = (gen.const(cls), gen.const(len), gen.const(SMALL_NATS),
                                            gen.const(SMALL_NAT_LIMIT), gen.const(fn))

        def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
            stmts: list[str] = []
            x = _operand(gen, exprs[0], stmts)
            return stmts, f"({small}[{size}({x})] if {x}.__class__ is {is_cls} and {size}({x}) < {limit} else {call}({x}))"

        return write

    return factory


def _is_none(gen: CodeGen, fn: Any) -> Writer:
    # the builtin's own test
    none = gen.const(NONE)
    return lambda exprs: ((), f"({exprs[0]} is {none})")


def _is_some(gen: CodeGen, fn: Any) -> Writer:
    some = gen.const(Some)
    return lambda exprs: ((), f"({exprs[0]}.__class__ is {some})")


def _get_d(gen: CodeGen, fn: Any) -> Writer:
    some = gen.const(Some)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        o, d = (_operand(gen, e, stmts) for e in exprs)  # both evaluated, as the call does
        return stmts, f"({o}.value if {o}.__class__ is {some} else {d})"

    return write


def _list_get_d(gen: CodeGen, fn: Any) -> Writer:
    """``xs.getD i d``: the element of a list at a ``Nat`` index in range, else the default."""
    tup, nat, size, call = gen.const(tuple), gen.const(Nat), gen.const(len), gen.const(fn)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        xs, i, d = (_operand(gen, e, stmts) for e in exprs)  # all evaluated, as the call does
        cond = f"{xs}.__class__ is {tup} and {i}.__class__ is {nat}"
        return stmts, f"(({xs}[{i}] if {i} < {size}({xs}) else {d}) if {cond} else {call}({xs}, {i}, {d}))"

    return write


def _list_head_d(gen: CodeGen, fn: Any) -> Writer:
    """``xs.headD d``: the first element of a list, the default when it is empty."""
    tup, call = gen.const(tuple), gen.const(fn)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        xs, d = (_operand(gen, e, stmts) for e in exprs)
        return stmts, f"(({xs}[0] if {xs} else {d}) if {xs}.__class__ is {tup} else {call}({xs}, {d}))"

    return write


def _nat_pick(smaller: bool) -> _Factory:
    """``Nat.min`` (``smaller``) / ``Nat.max`` of two ``Nat`` values: one of them."""
    def factory(gen: CodeGen, fn: Any) -> Writer:
        nat, call = gen.const(Nat), gen.const(fn)

        def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
            stmts: list[str] = []
            a, b = (_operand(gen, e, stmts) for e in exprs)
            pick = f"{a} if {a} <= {b} else {b}" if smaller else f"{b} if {a} <= {b} else {a}"
            return stmts, f"(({pick}) if {a}.__class__ is {nat} and {b}.__class__ is {nat} else {call}({a}, {b}))"

        return write

    return factory


def _int_to_nat(absolute: bool) -> _Factory:
    """``Int.toNat`` / ``Int.natAbs`` (``absolute``) of a plain ``int`` whose result is small."""
    def factory(gen: CodeGen, fn: Any) -> Writer:
        small, limit, call = gen.const(SMALL_NATS), gen.const(SMALL_NAT_LIMIT), gen.const(fn)
        is_int = f"{{x}}.__class__ is {gen.const(int)}"

        def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
            stmts: list[str] = []
            x = _operand(gen, exprs[0], stmts)
            if absolute:
                value, cond = f"{x} if {x} >= 0 else -{x}", f"-{limit} < {x} < {limit}"
            else:
                value, cond = x, f"0 <= {x} < {limit}"
            return stmts, f"({small}[{value}] if {is_int.format(x=x)} and {cond} else {call}({x}))"

        return write

    return factory


def _char_range(*ranges: tuple[str, str]) -> _Factory:
    """``c.isDigit``, ``c.isUpper``, … : the builtin's own comparisons with its bounds."""
    def factory(gen: CodeGen, fn: Any) -> Writer:
        def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
            stmts: list[str] = []
            c = _operand(gen, exprs[0], stmts) if len(ranges) > 1 else exprs[0]
            tests = " or ".join(f"{gen.const(lo)} <= {c} <= {gen.const(hi)}" for lo, hi in ranges)
            return stmts, f"({tests})"

        return write

    return factory


def _string_mk(gen: CodeGen, fn: Any) -> Writer:
    """``String.mk cs`` of a list: its characters joined (a plain ``str``, as the builtin's)."""
    join, tup, call = gen.const("".join), gen.const(tuple), gen.const(fn)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        x = _operand(gen, exprs[0], stmts)
        return stmts, f"({join}({x}) if {x}.__class__ is {tup} else {call}({x}))"

    return write


def _char_of_nat(gen: CodeGen, fn: Any) -> Writer:
    """``Char.ofNat n`` of a ``Nat`` below :data:`SMALL_CHAR_LIMIT`: the character, made once."""
    chars, limit, nat, call = gen.const(SMALL_CHARS), gen.const(SMALL_CHAR_LIMIT), gen.const(Nat), gen.const(fn)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        n = _operand(gen, exprs[0], stmts)
        return stmts, f"({chars}[{n}] if {n}.__class__ is {nat} and {n} < {limit} else {call}({n}))"

    return write


def _char_to_nat(gen: CodeGen, fn: Any) -> Writer:
    small, limit, code, char, call = (gen.const(SMALL_NATS), gen.const(SMALL_NAT_LIMIT), gen.const(ord),
                                      gen.const(Char), gen.const(fn))

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        c = _operand(gen, exprs[0], stmts)
        return stmts, f"({small}[{code}({c})] if {c}.__class__ is {char} and {code}({c}) < {limit} else {call}({c}))"

    return write


#: the characters of the code points below this, made once (``Char.ofNat`` of a digit's value
#: plus 48 in a number's printing)
SMALL_CHAR_LIMIT = 256
SMALL_CHARS: tuple[Char, ...] = tuple(Char(chr(i)) for i in range(SMALL_CHAR_LIMIT))


def _fixed_bitwise(cls: type, op: str) -> _Factory:
    """``x.xor y``, ``x.land y``, ``x.lor y`` on two values of the fixed-width type ``cls``:
    already below ``2^N``, so the result is too (the builtin's mask changes nothing)."""
    def factory(gen: CodeGen, fn: Any) -> Writer:
        new, is_cls, call = gen.const(int.__new__), gen.const(cls), gen.const(fn)

        def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
            stmts: list[str] = []
            a, b = (_operand(gen, e, stmts) for e in exprs)
            cond = f"{a}.__class__ is {is_cls} and {b}.__class__ is {is_cls}"
            return stmts, f"({new}({is_cls}, {a} {op} {b}) if {cond} else {call}({a}, {b}))"

        return write

    return factory


def _fixed_to_nat(cls: type) -> _Factory:
    def factory(gen: CodeGen, fn: Any) -> Writer:
        small, limit, is_cls, call = (gen.const(SMALL_NATS), gen.const(SMALL_NAT_LIMIT), gen.const(cls),
                                      gen.const(fn))

        def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
            stmts: list[str] = []
            x = _operand(gen, exprs[0], stmts)
            return stmts, f"({small}[{x}] if {x}.__class__ is {is_cls} and {x} < {limit} else {call}({x}))"

        return write

    return factory


def _table() -> dict[str, tuple[int, _Factory]]:
    """The builtins written inline, by name: their number of operands and writer factory."""
    table: dict[str, tuple[int, _Factory]] = {
        "List.length": (1, _length(tuple)),
        "String.length": (1, _length(str)),
        "Option.isNone": (1, _is_none),
        "Option.isSome": (1, _is_some),
        "Option.getD": (2, _get_d),
        "List.getD": (3, _list_get_d),
        "List.headD": (2, _list_head_d),
        "Nat.min": (2, _nat_pick(True)),
        "Nat.max": (2, _nat_pick(False)),
        "Int.toNat": (1, _int_to_nat(False)),
        "Int.natAbs": (1, _int_to_nat(True)),
        "Char.isDigit": (1, _char_range(("0", "9"))),
        "Char.isUpper": (1, _char_range(("A", "Z"))),
        "Char.isLower": (1, _char_range(("a", "z"))),
        "Char.isAlpha": (1, _char_range(("A", "Z"), ("a", "z"))),
        "Char.isAlphanum": (1, _char_range(("A", "Z"), ("a", "z"), ("0", "9"))),
        "Char.ofNat": (1, _char_of_nat),
        "Char.toNat": (1, _char_to_nat),
        "String.mk": (1, _string_mk),
    }
    for name, cls in FIXED_WIDTH_TYPES.items():
        for method, op in (("xor", "^"), ("land", "&"), ("lor", "|")):
            table[f"{name}.{method}"] = (2, _fixed_bitwise(cls, op))
        table[f"{name}.toNat"] = (1, _fixed_to_nat(cls))
    return table


_FACTORIES: dict[int, tuple[Any, int, _Factory]] = {}


def _factories() -> dict[int, tuple[Any, int, _Factory]]:
    """The table of :func:`_table` by the builtins' functions (built on first use, once every
    builtin is registered); each entry keeps its function, so an id is never reused."""
    if not _FACTORIES:
        for name, (nargs, factory) in _table().items():
            fn = BUILTINS[name].fn
            _FACTORIES[id(fn)] = (fn, nargs, factory)
    return _FACTORIES


#: a temporary or a constant of the generated function: assigned once, read in place
_STABLE = re.compile(r"_t\d+|_k\d+")


def _operand(gen: CodeGen, expr: str, stmts: list[str]) -> str:
    """``expr`` as something the text may read several times, after the operands before it and
    before those after it: itself when stable, else a temporary assigned by a statement appended
    to ``stmts`` (in operand order)."""
    if _STABLE.fullmatch(expr):
        return expr
    t = gen.temp()
    stmts.append(f"{t} = {expr}")
    return t


__all__ = ["membership_writer", "scalar_writer"]
