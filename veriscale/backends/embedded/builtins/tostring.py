"""``toString`` and ``repr`` with Lean's exact rendering.

``ToString`` instances (Init/Data/ToString/Basic.lean, Init/Data/Array/Basic.lean):

* ``Nat``/``Int``/``UIntN``: decimal, ``"-"`` before negative integers; ``Bool``: ``true``/``false``;
  ``Char``: the character; ``String``: itself; ``Unit``: ``()``; ``Float``: ``Float.toString``.
* ``List``: ``"[1, 2, 3]"`` (``"[]"`` when empty); ``Array``: ``"#" ++ toString a.toList``.
* ``α × β``: ``"(" ++ toString a ++ ", " ++ toString b ++ ")"``, so a triple is ``"(1, (2, 3))"``
  (only ``Repr`` flattens tuples).
* ``Option``: ``"none"`` or ``"(some " ++ addParenHeuristic (toString a) ++ ")"``, where
  ``addParenHeuristic s`` keeps ``s`` when it starts with ``(``, ``[``, ``{`` or ``#[`` or has no
  whitespace, and parenthesises it otherwise.

``Repr`` instances (Init/Data/Repr.lean), rendered on one line (the ``Format`` width is not
modelled, so output longer than Lean's 120-column layout may be broken into lines by Lean):

* ``Int`` and ``Float``: ``Repr.addAppParen`` when negative (``some (-3)``), i.e. parentheses when
  the precedence is at least ``max_prec`` (1024, argument position).
* ``Char``: ``Char.quote``; ``String``: ``String.quote`` (escapes ``\\n``, ``\\t``, ``\\\\``,
  ``\\"``, and ``\\xHH`` for code points ≤ 31 and 127).
* ``List``: ``[a, b]``; ``Array``: ``#[a, b]``; tuples ``(a, b, c)``; ``Option``: ``none`` /
  ``some a`` (parenthesised in argument position); ``Unit``: ``()``.
* ``deriving Repr`` structures: ``{ x := 1, y := 2 }``; inductives: ``Ctor.name arg ...``
  (parenthesised in argument position when they have arguments).
"""

from __future__ import annotations

from typing import Any

from veriscale.backends.embedded.builtins._core import type_name_of
from veriscale.backends.embedded.builtins.floats import float_to_string
from veriscale.backends.embedded.registry import builtin
from veriscale.lean.values import Arr, Ctor, Pair, Some, Struct, Unsupported

MAX_PREC = 1024


def _add_paren_heuristic(s: str) -> str:
    if s.startswith(("(", "[", "{", "#[")):
        return s
    if not any(c in " \t\r\n" for c in s):
        return s
    return "(" + s + ")"


def to_string(value: Any) -> str:
    """Lean's ``toString value`` for the standard ``ToString`` instances."""
    kind = type_name_of(value)
    if kind == "Bool":
        return "true" if value else "false"
    if kind in ("Nat", "Int", "UInt8", "UInt16", "UInt32", "UInt64"):
        return str(int(value))
    if kind == "Float":
        return float_to_string(value)
    if kind in ("Char", "String"):
        return str.__str__(value)
    if kind == "Unit":
        return "()"
    if kind == "List":
        return "[" + ", ".join(to_string(v) for v in value) + "]"
    if kind == "Array":
        return "#[" + ", ".join(to_string(v) for v in value) + "]"
    if kind == "Subarray":
        # `instance [ToString α] : ToString (Subarray α) where toString s := toString s.toArray`
        return to_string(Arr(value.items()))
    if kind == "Prod":
        return "(" + to_string(value.fst) + ", " + to_string(value.snd) + ")"
    if kind == "Option":
        if isinstance(value, Some):
            return "(some " + _add_paren_heuristic(to_string(value.value)) + ")"
        return "none"
    iterator_text = getattr(value, "lean_to_string", None)
    if callable(iterator_text):
        return str(iterator_text())
    raise Unsupported("toString", f"no ToString instance handled for {kind}")


def _quote_char_core(c: str) -> str:
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    if c == "\\":
        return "\\\\"
    if c == '"':
        return '\\"'
    code = ord(c)
    if code <= 31 or code == 0x7F:
        return "\\x" + format(code, "02x")
    return c


def quote_string(s: str) -> str:
    """``String.quote``."""
    return '"' + "".join(_quote_char_core(c) for c in s) + '"'


def quote_char(c: str) -> str:
    """``Char.quote``; the quote characters themselves are refused (their escaping changed in Lean)."""
    if c in ("'", '"'):
        raise Unsupported("repr of a quote character", "escaping differs between Lean versions")
    return "'" + _quote_char_core(c) + "'"


def _paren_if(text: str, prec: int) -> str:
    """``Repr.addAppParen``."""
    return "(" + text + ")" if prec >= MAX_PREC else text


def _tuple_items(value: Pair) -> list[Any]:
    items = [value.fst]
    rest = value.snd
    while isinstance(rest, Pair):
        items.append(rest.fst)
        rest = rest.snd
    items.append(rest)
    return items


def repr_value(value: Any, prec: int = 0) -> str:
    """Lean's ``reprPrec value prec`` on one line (``#eval`` uses precedence 0)."""
    kind = type_name_of(value)
    if kind == "Subarray":
        # `Subarray.repr s = repr s.toArray ++ ".toSubarray"` (the precedence is ignored)
        return repr_value(Arr(value.items())) + ".toSubarray"
    if kind == "Bool":
        return "true" if value else "false"
    if kind in ("Nat", "UInt8", "UInt16", "UInt32", "UInt64"):
        return str(int(value))
    if kind == "Int":
        return _paren_if(str(int(value)), prec) if value < 0 else str(int(value))
    if kind == "Float":
        text = float_to_string(value)
        return _paren_if(text, prec) if value < 0 else text
    if kind == "Char":
        return quote_char(value)
    if kind == "String":
        return quote_string(value)
    if kind == "Unit":
        return "()"
    if kind == "List":
        return "[" + ", ".join(repr_value(v) for v in value) + "]"
    if kind == "Array":
        return "#[" + ", ".join(repr_value(v) for v in value) + "]"
    if kind == "Prod":
        return "(" + ", ".join(repr_value(v) for v in _tuple_items(value)) + ")"
    if kind == "Option":
        if isinstance(value, Some):
            return _paren_if("some " + repr_value(value.value, MAX_PREC), prec)
        return "none"
    if isinstance(value, Struct):
        if not value.fields:
            raise Unsupported("repr", "structure without fields")
        return "{ " + ", ".join(f"{n} := {repr_value(v)}" for n, v in value.fields) + " }"
    if isinstance(value, Ctor):
        if not value.args:
            return value.name
        text = " ".join([value.name, *(repr_value(a, MAX_PREC) for a in value.args)])
        return _paren_if(text, prec)
    raise Unsupported("repr", f"no Repr instance handled for {kind}")


builtin("toString", "{α : Type _} : α → String", verified=False)(to_string)
builtin("ToString.toString", "{α : Type _} : α → String", verified=False)(to_string)
# `repr a` is `reprPrec a 0` (the builtin takes Lean's one explicit argument)
builtin("repr", "{α : Type _} : α → String", verified=False)(lambda value: repr_value(value))
