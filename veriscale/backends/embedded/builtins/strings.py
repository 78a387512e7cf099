"""``String``, ``Char`` and ``String.Iterator`` builtins (Init/Data/String/Basic.lean,
Init/Data/Char/Basic.lean).

A Lean ``String`` is a sequence of Unicode scalar values (a Python ``str``); ``String.length``
counts code points. Positions (``String.Pos``) are UTF-8 byte offsets; they only surface here
through ``String.Iterator``. Facts reproduced here:

* The ``Char`` classifiers are ASCII-only: ``isUpper`` is ``A``–``Z``, ``isLower`` ``a``–``z``,
  ``isDigit`` ``0``–``9``, ``isAlpha = isUpper || isLower``, ``isAlphanum = isAlpha || isDigit``,
  ``isWhitespace`` is exactly space, ``\\t``, ``\\r``, ``\\n``. ``toLower``/``toUpper`` change only
  ASCII letters; ``String.toLower``/``toUpper`` map them over the string.
* ``Char.ofNat n`` is ``'\\0'`` when ``n`` is not a Unicode scalar value (a surrogate or ≥ 0x110000).
* ``String.get`` at a position that is not a character boundary (or past the end) returns
  ``default = 'A'``; ``String.next`` then advances one byte. ``front ""`` and ``back ""`` are ``'A'``.
* ``s.splitOn sep``: ``[s]`` when ``sep = ""``; otherwise the pieces between the leftmost
  non-overlapping occurrences of ``sep`` (on a mismatch after a partial match the search restarts
  one character after where the partial match began), so ``"".splitOn "," = [""]``.
* ``s.replace pat r``: ``s`` when ``pat = ""``; otherwise leftmost non-overlapping replacement.
* ``String.trim`` strips ``Char.isWhitespace`` characters from both ends.
* ``String.toNat?``: ``some`` when non-empty and all ASCII digits (``isNat s = !s.isEmpty &&
  s.all (·.isDigit)``); ``toInt?`` also accepts one leading ``-`` (``if s.get 0 = '-' then``
  ``(s.toSubstring.drop 1).toNat?`` negated), so ``"-0"`` is ``some 0`` and ``"-"`` is ``none``
  (``Substring.isNat`` refuses the empty string since v4.20, lean4#8067). A leading ``+`` is not a
  digit: ``"+5".toInt? = none`` (the docstring lists ``"+587".isInt = false``). Nor is ``_``:
  ``"1_000".toNat? = none`` in v4.24; digit separators were only accepted from v4.27 (lean4#11541).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from veriscale.backends.embedded.builtins._core import check_bits, check_size, default_of_type, nat
from veriscale.backends.embedded.registry import alias, builtin
from veriscale.lean.values import NONE, Char, Nat, Some, UInt8, UInt32

Fn = Callable[..., Any]

DEFAULT_CHAR = Char("A")
WHITESPACE = " \t\r\n"


class _CharTable(dict):  # type: ignore[type-arg]
    """The ``Char`` of each character seen, made (and checked) once: a string's characters are
    then looked up at C speed. Bounded: past :data:`_CHAR_TABLE_LIMIT` entries a character's
    ``Char`` is made each time."""

    def __missing__(self, c: str) -> Char:
        made = Char(c)
        if len(self) < _CHAR_TABLE_LIMIT:
            self[c] = made
        return made


_CHAR_TABLE_LIMIT = 1 << 16
_char_of = _CharTable().__getitem__


def _chars(s: str) -> tuple:
    return tuple(map(_char_of, s))


# ---------------------------------------------------------------------------------------------
# Char


def _is_upper(c: str) -> bool:
    return "A" <= c <= "Z"


def _is_lower(c: str) -> bool:
    return "a" <= c <= "z"


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


def char_to_lower(c: str) -> Char:
    return Char(chr(ord(c) + 32)) if _is_upper(c) else Char(c)


def char_to_upper(c: str) -> Char:
    return Char(chr(ord(c) - 32)) if _is_lower(c) else Char(c)


builtin("Char.isUpper", "(c : Char) : Bool")(_is_upper)
builtin("Char.isLower", "(c : Char) : Bool")(_is_lower)
builtin("Char.isDigit", "(c : Char) : Bool")(_is_digit)
builtin("Char.isAlpha", "(c : Char) : Bool")(lambda c: _is_upper(c) or _is_lower(c))
builtin("Char.isAlphanum", "(c : Char) : Bool")(lambda c: _is_upper(c) or _is_lower(c) or _is_digit(c))
builtin("Char.isWhitespace", "(c : Char) : Bool")(lambda c: c in WHITESPACE)
builtin("Char.toLower", "(c : Char) : Char")(char_to_lower)
builtin("Char.toUpper", "(c : Char) : Char")(char_to_upper)
builtin("Char.toNat", "(c : Char) : Nat")(lambda c: nat(ord(c)))
builtin("Char.toString", ": Char → String", verified=False)(lambda c: str.__str__(c))
builtin("Char.toUInt8", ": Char → UInt8", verified=False)(lambda c: UInt8(ord(c)))


@builtin("Char.ofNat", "(n : Nat) : Char")
def char_of_nat(n: Any) -> Char:
    n = int(n)
    if n < 0xD800 or 0xDFFF < n < 0x110000:
        return Char(chr(n))
    return Char("\0")


# ---------------------------------------------------------------------------------------------
# Construction and conversion


@builtin("String.mk", "(data : List Char) : String")
def string_mk(chars: tuple) -> str:
    return "".join(str.__str__(c) for c in chars)


@builtin("String.singleton", ": Char → String", verified=False)
def string_singleton(c: str) -> str:
    return str.__str__(c)


@builtin("String.toList", "(s : String) : List Char")
def string_to_list(s: str) -> tuple:
    return _chars(s)


alias("String.data", "String.toList", ": String → List Char", verified=False)


builtin("Char.val", ": Char → UInt32", verified=False)(lambda c: UInt32(ord(c)))


@builtin("String.length", ": String → Nat")
def string_length(s: str) -> Nat:
    return nat(len(s))


@builtin("String.isEmpty", "(s : String) : Bool")
def string_is_empty(s: str) -> bool:
    return s == ""


@builtin("String.append", ": String → String → String")
def string_append(s: str, t: str) -> str:
    check_size(len(s) + len(t), "String")
    return s + t


@builtin("String.push", ": String → Char → String", verified=False)
def string_push(s: str, c: str) -> str:
    return s + c


@builtin("String.pushn", ": String → Char → Nat → String", verified=False)
def string_pushn(s: str, c: str, n: Any) -> str:
    check_size(len(s) + int(n), "String")
    return s + c * int(n)


@builtin("String.join", "(l : List String) : String")
def string_join(parts: tuple) -> str:
    return "".join(parts)


@builtin("String.intercalate", "(s : String) : List String → String")
def string_intercalate(sep: str, parts: tuple) -> str:
    return sep.join(parts)


# ---------------------------------------------------------------------------------------------
# Access and slicing (by characters)


@builtin("String.front", ": String → Char", verified=False)
def string_front(s: str) -> Char:
    return Char(s[0]) if s else DEFAULT_CHAR


@builtin("String.back", ": String → Char", verified=False)
def string_back(s: str) -> Char:
    return Char(s[-1]) if s else DEFAULT_CHAR


@builtin("String.take", "(s : String) (n : Nat) : String")
def string_take(s: str, n: Any) -> str:
    return s[: int(n)]


@builtin("String.drop", "(s : String) (n : Nat) : String")
def string_drop(s: str, n: Any) -> str:
    return s[int(n) :]


@builtin("String.takeRight", ": String → Nat → String", verified=False)
def string_take_right(s: str, n: Any) -> str:
    n = int(n)
    return s[len(s) - min(n, len(s)) :]


@builtin("String.dropRight", ": String → Nat → String", verified=False)
def string_drop_right(s: str, n: Any) -> str:
    n = int(n)
    return s[: len(s) - min(n, len(s))]


@builtin("String.takeWhile", ": String → (Char → Bool) → String", verified=False)
def string_take_while(s: str, p: Fn) -> str:
    for i, c in enumerate(s):
        if not p(Char(c)):
            return s[:i]
    return s


@builtin("String.dropWhile", ": String → (Char → Bool) → String", verified=False)
def string_drop_while(s: str, p: Fn) -> str:
    for i, c in enumerate(s):
        if not p(Char(c)):
            return s[i:]
    return ""


@builtin("String.takeRightWhile", ": String → (Char → Bool) → String", verified=False)
def string_take_right_while(s: str, p: Fn) -> str:
    i = len(s)
    while i > 0 and p(Char(s[i - 1])):
        i -= 1
    return s[i:]


@builtin("String.dropRightWhile", ": String → (Char → Bool) → String", verified=False)
def string_drop_right_while(s: str, p: Fn) -> str:
    i = len(s)
    while i > 0 and p(Char(s[i - 1])):
        i -= 1
    return s[:i]


@builtin("String.trim", "(s : String) : String")
def string_trim(s: str) -> str:
    return s.strip(WHITESPACE)


@builtin("String.trimLeft", ": String → String", verified=False)
def string_trim_left(s: str) -> str:
    return s.lstrip(WHITESPACE)


@builtin("String.trimRight", ": String → String", verified=False)
def string_trim_right(s: str) -> str:
    return s.rstrip(WHITESPACE)


# ---------------------------------------------------------------------------------------------
# Predicates and searches


@builtin("String.startsWith", "(s pre : String) : Bool")
def string_starts_with(s: str, prefix: str) -> bool:
    return s.startswith(prefix)


@builtin("String.endsWith", "(s post : String) : Bool")
def string_ends_with(s: str, suffix: str) -> bool:
    return s.endswith(suffix)


@builtin("String.isPrefixOf", ": String → String → Bool", verified=False)
def string_is_prefix_of(p: str, s: str) -> bool:
    return s.startswith(p)


@builtin("String.contains", "(s : String) (c : Char) : Bool")
def string_contains(s: str, c: str) -> bool:
    return c in s


@builtin("String.any", ": String → (Char → Bool) → Bool", verified=False)
def string_any(s: str, p: Fn) -> bool:
    return any(p(Char(c)) for c in s)


@builtin("String.all", ": String → (Char → Bool) → Bool", verified=False)
def string_all(s: str, p: Fn) -> bool:
    return all(p(Char(c)) for c in s)


# ---------------------------------------------------------------------------------------------
# Maps and folds


@builtin("String.map", ": (Char → Char) → String → String", verified=False)
def string_map(f: Fn, s: str) -> str:
    return "".join(str.__str__(f(Char(c))) for c in s)


@builtin("String.foldl", "{α : Type _} : (α → Char → α) → α → String → α", verified=False)
def string_foldl(f: Fn, init: Any, s: str) -> Any:
    acc = init
    for c in s:
        acc = f(acc, Char(c))
    return acc


@builtin("String.foldr", "{α : Type _} : (Char → α → α) → α → String → α", verified=False)
def string_foldr(f: Fn, init: Any, s: str) -> Any:
    acc = init
    for c in reversed(s):
        acc = f(Char(c), acc)
    return acc


@builtin("String.toLower", ": String → String", verified=False)
def string_to_lower(s: str) -> str:
    return "".join(char_to_lower(c) for c in s)


@builtin("String.toUpper", ": String → String", verified=False)
def string_to_upper(s: str) -> str:
    return "".join(char_to_upper(c) for c in s)


@builtin("String.capitalize", ": String → String", verified=False)
def string_capitalize(s: str) -> str:
    return char_to_upper(s[0]) + s[1:] if s else s


@builtin("String.decapitalize", ": String → String", verified=False)
def string_decapitalize(s: str) -> str:
    return char_to_lower(s[0]) + s[1:] if s else s


# ---------------------------------------------------------------------------------------------
# Splitting and replacing


@builtin("String.splitOn", "(s : String) (sep : String := \" \") : List String")
def string_split_on(s: str, sep: str = " ") -> tuple:
    """``String.splitOn`` following ``splitOnAux`` character by character."""
    if sep == "":
        return (s,)
    pieces: list[str] = []
    begin = i = j = 0  # begin of the current piece, scan position in s, matched length of sep
    while i < len(s):
        if s[i] == sep[j]:
            i += 1
            j += 1
            if j == len(sep):
                pieces.append(s[begin : i - j])
                begin, j = i, 0
        else:
            # restart one character after the start of the failed partial match
            i = i - j + 1
            j = 0
    pieces.append(s[begin:i])
    return tuple(pieces)


@builtin("String.split", ": String → (Char → Bool) → List String", verified=False)
def string_split(s: str, p: Fn) -> tuple:
    """``s.split p``: cut at every character satisfying ``p`` (empty pieces are kept)."""
    pieces: list[str] = []
    begin = 0
    for i, c in enumerate(s):
        if p(Char(c)):
            pieces.append(s[begin:i])
            begin = i + 1
    pieces.append(s[begin:])
    return tuple(pieces)


@builtin("String.replace", "(s : String) (pattern : String) (replacement : String) : String")
def string_replace(s: str, pattern: str, replacement: str) -> str:
    if pattern == "":
        return s
    result = s.replace(pattern, replacement)
    check_size(len(result), "String")
    return result


# ---------------------------------------------------------------------------------------------
# Numbers


_INT_SAFE_DIGITS = 4_000
"""Digit strings up to this length are within CPython's 4,300-digit limit of ``int(str)``."""


def _read_digits(digits: str) -> int:
    """The value of a string of ASCII digits of any length (``String.toNat?`` folds
    ``n * 10 + d``; CPython's ``int`` refuses more than 4,300 digits, so longer ones are read in halves)."""
    if len(digits) <= _INT_SAFE_DIGITS:
        return int(digits)
    low_digits = len(digits) // 2
    return _read_digits(digits[:-low_digits]) * 10**low_digits + _read_digits(digits[-low_digits:])


def _digits_only(s: str) -> bool:
    """``String.isNat`` of v4.24: non-empty and every character an ASCII digit (no ``_``, no sign)."""
    return s != "" and all(_is_digit(c) for c in s)


@builtin("String.isNat", ": String → Bool", verified=False)
def string_is_nat(s: str) -> bool:
    return _digits_only(s)


@builtin("String.toNat?", "(s : String) : Option Nat")
def string_to_nat_opt(s: str) -> Any:
    return Some(nat(check_bits(_read_digits(s)))) if _digits_only(s) else NONE


def _int_parts(s: str) -> tuple[int, str]:
    """``toInt?``/``isInt`` test ``s.get 0 = '-'`` and read the rest as a ``Nat``; ``+`` is no sign."""
    return (-1, s[1:]) if s.startswith("-") else (1, s)


@builtin("String.isInt", ": String → Bool", verified=False)
def string_is_int(s: str) -> bool:
    _, digits = _int_parts(s)
    return _digits_only(digits)


@builtin("String.toInt?", "(s : String) : Option Int")
def string_to_int_opt(s: str) -> Any:
    sign, digits = _int_parts(s)
    return Some(sign * check_bits(_read_digits(digits))) if _digits_only(digits) else NONE


@builtin("String.toNat!", ": String → Nat", typed=True, verified=False)
def string_to_nat_bang(s: str, *, result_type: Any = None) -> Any:
    if _digits_only(s):
        return nat(check_bits(_read_digits(s)))
    return default_of_type(result_type, construct="String.toNat!")


@builtin("String.toInt!", ": String → Int", typed=True, verified=False)
def string_to_int_bang(s: str, *, result_type: Any = None) -> Any:
    sign, digits = _int_parts(s)
    if _digits_only(digits):
        return sign * check_bits(_read_digits(digits))
    return default_of_type(result_type, construct="String.toInt!")


# ---------------------------------------------------------------------------------------------
# String.Iterator (byte positions)


@lru_cache(maxsize=512)
def _byte_layout(s: str) -> tuple[dict[int, str], int]:
    """Map each character's UTF-8 start offset to the character; also the byte length."""
    starts: dict[int, str] = {}
    offset = 0
    for c in s:
        starts[offset] = c
        offset += len(c.encode("utf-8"))
    return starts, offset


def _get_at(s: str, pos: int) -> Char:
    starts, _ = _byte_layout(s)
    c = starts.get(pos)
    return Char(c) if c is not None else DEFAULT_CHAR


@dataclass(frozen=True, slots=True)
class StringIterator:
    """``String.Iterator``: the string and a UTF-8 byte position in it."""

    s: str
    pos: int

    LEAN_TYPE = "String.Iterator"

    def lean_to_string(self) -> str:
        return _remaining(self)


def _remaining(it: StringIterator) -> str:
    """``s.extract i s.endPos``: empty when ``i`` is not a character boundary."""
    starts, end = _byte_layout(it.s)
    if it.pos >= end or it.pos not in starts:
        return ""
    return it.s.encode("utf-8")[it.pos :].decode("utf-8")


@builtin("String.iter", ": String → String.Iterator", verified=False)
def string_iter(s: str) -> StringIterator:
    return StringIterator(s, 0)


alias("String.mkIterator", "String.iter", ": String → String.Iterator", verified=False)


@builtin("String.Iterator.curr", ": String.Iterator → Char", verified=False)
def iterator_curr(it: StringIterator) -> Char:
    return _get_at(it.s, it.pos)


@builtin("String.Iterator.next", ": String.Iterator → String.Iterator", verified=False)
def iterator_next(it: StringIterator) -> StringIterator:
    c = _get_at(it.s, it.pos)
    return StringIterator(it.s, it.pos + len(str.__str__(c).encode("utf-8")))


@builtin("String.Iterator.atEnd", ": String.Iterator → Bool", verified=False)
def iterator_at_end(it: StringIterator) -> bool:
    return it.pos >= _byte_layout(it.s)[1]


@builtin("String.Iterator.hasNext", ": String.Iterator → Bool", verified=False)
def iterator_has_next(it: StringIterator) -> bool:
    return it.pos < _byte_layout(it.s)[1]


@builtin("String.Iterator.remainingToString", ": String.Iterator → String", verified=False)
def iterator_remaining_to_string(it: StringIterator) -> str:
    return _remaining(it)
