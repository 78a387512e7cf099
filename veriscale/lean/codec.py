"""Typed values: read Verina's stored encodings, render Lean literals, build canonical keys.

Stored test data mixes encodings (measured on ``../shared/data``; see the report in
``tests/lean/test_values_data.py``):

* ``Nat``/``Int``/``UInt8`` -- JSON integers, occasionally integers written as strings (``"5"``);
* ``Bool`` -- JSON booleans, occasionally ``"true"``/``"false"``;
* ``Float`` -- JSON numbers; inside Lean text ``1.5``, ``1e10``, ``3.000000`` (Lean's printing),
  ``Float.nan``, ``Float.inf``, ``-Float.inf``, ``NaN``, ``inf``, ``(0.0 / 0.0 : Float)``;
* ``String`` and ``Char`` at the top level of a parameter or result -- the *raw* text, not
  Lean-quoted (``"hello"`` is the five letters; a ``Char`` is a one-character string);
* everything else (``List``, ``Array``, products, ``Option``, structures) -- Lean literal text:
  ``"#[1, -2]"``, ``"[(1, 2)]"``, ``"some (1, 2)"``, ``"none"``, ``"['a', 'b']"``,
  ``"[\\"x\\"]"``, ``"{ entries := [(1, 2)] }"``, ``"⟨[(1, 2)]⟩"``, with optional type ascriptions
  ``(1 : Int)``; some rows store lists as JSON arrays instead, whose elements follow the same rules
  (a ``String`` element of a JSON array is raw text);
* a function parameter (``Int -> Bool``) -- Lean source text, kept as :class:`LeanSource`.

:func:`parse_value` accepts all of these (and runtime values, so it is idempotent) and returns the
runtime representation of :mod:`veriscale.lean.values`. Lean text is tokenized by the shared Lean
lexer (:mod:`veriscale.lean.lexer`: Lean's comments, escapes and numerals) and read by a
recursive-descent reader guided by the expected type; nothing is ``eval``-ed.

Decisions:

* A stored ``UInt8``/``UInt16``/``UInt32``/``UInt64`` outside its range is an error by default,
  even when written ``(300 : UInt8)`` (which Lean would wrap to 44): an out-of-range stored value
  is more likely a data defect than an intended wrap-around. ``wrap_uint=True`` wraps like Lean;
  the published VerinaPlus needs it for 75 ``UInt8`` inputs (``510`` meant 254 to Lean).
* A ``Nat`` must not be negative; a ``Char`` must be exactly one Unicode scalar value.
* ``USize``, ``Fin n``, ``Std.HashMap``/``Std.HashSet`` types parse (``veriscale.lean.types``) but have no
  runtime representation yet, so values of them raise :class:`ValueParseError`.

:func:`parse_lean` reads Lean literal text at a type (there a ``String`` must be quoted); it is
the inverse of :func:`render_value`, which prints a Lean term of the type (``#[1, -2]``,
``some (-1)``, ``"a\\"b"``, ``'x'``, ``{ entries := [(1, 2)] }``). Floats print as the shortest
decimal that round-trips through Lean (``0.1``, ``1e16``, ``-0.0``); NaN and infinities print as
``(0.0 / 0.0 : Float)``, ``(1.0 / 0.0 : Float)`` and ``(-1.0 / 0.0 : Float)`` because
``Float.nan``/``Float.inf`` are not part of core Lean 4 (v4.24). :func:`to_json` writes Verina's
storage convention back: JSON natives for numbers and booleans, raw text for top-level
``String``/``Char``, Lean text otherwise, so that ``parse_value(to_json(v, t), t) == v``.

:func:`canonical_key` is ``"\n".join(f"{name} := {render_value(v)}")`` over the parameters sorted
by name: equal for equal rows whatever their stored encoding.

Floats follow Lean, not Python: Lean text (``0.1``, ``1e10``) and JSON integers at ``Float`` are
read with Lean's own ``Float.ofScientific`` (which truncates to 64 bits before rounding, so in rare
cases it differs from the correctly rounded ``float()``), and :func:`render_float` picks the
shortest decimal that Lean reads back exactly. A JSON number with a fraction is taken as the exact
double Python reads (it is also how runtime floats arrive). The published VerinaPlus stores
Lean-printed floats with six decimals (``4.166667``); those parse to that decimal, not to the
float Lean computed, so comparing them needs Lean's printing, not ``==``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

from veriscale.lean.lexer import CHAR, EOF, IDENT, KEYWORD, NUM, SCI, STR, SYM, Token, lex
from veriscale.lean.printing import decimal, quote_char, quote_string
from veriscale.lean.types import (
    FunType,
    LeanType,
    LeanTypeError,
    NamedType,
    ProdType,
    StructDef,
    parse_type,
)
from veriscale.lean.values import (
    FIXED_WIDTH_TYPES,
    NONE,
    ORDERING_LT,
    ORDERINGS,
    UNIT,
    Arr,
    Char,
    Nat,
    Pair,
    Some,
    Struct,
    values_equal,
)

__all__ = [
    "LeanSource",
    "ValueParseError",
    "builtin_kind",
    "canonical_key",
    "canonical_value_key",
    "default_value",
    "lean_float_of_literal",
    "lean_float_of_scientific",
    "parse_lean",
    "parse_value",
    "quote_char",
    "quote_string",
    "render_float",
    "render_value",
    "to_json",
    "values_equal",
]

_NO_STRUCTS: Mapping[str, StructDef] = {}


@dataclass(frozen=True, slots=True)
class LeanSource:
    """A value given as Lean source text (a ``fun x => ...`` argument); the evaluator compiles it."""

    text: str


class ValueParseError(ValueError):
    """A stored value that does not fit its declared type.

    ``reason`` says why, ``position`` is the offset in the Lean text where reading failed (when the
    value was text). Callers that know where the value came from attach ``task`` and ``field``
    with :meth:`with_context`; ``str()`` includes them.
    """

    def __init__(
        self,
        reason: str,
        *,
        raw: Any = None,
        type: LeanType | str | None = None,
        position: int | None = None,
        task: str | None = None,
        field: str | None = None,
    ) -> None:
        self.reason = reason
        self.raw = raw
        self.type = type
        self.position = position
        self.task = task
        self.field = field
        super().__init__(reason)

    def with_context(self, task: str | None = None, field: str | None = None) -> ValueParseError:
        """Record where the value came from (keeps what is already set); returns ``self``."""
        if task is not None and self.task is None:
            self.task = task
        if field is not None and self.field is None:
            self.field = field
        return self

    def __str__(self) -> str:
        where = ", ".join(
            part
            for part in (
                f"task {self.task}" if self.task else "",
                f"field {self.field}" if self.field else "",
            )
            if part
        )
        text = f"{where}: {self.reason}" if where else self.reason
        details = []
        if self.type is not None:
            details.append(f"type {self.type}")
        if self.raw is not None:
            shown = repr(self.raw)
            details.append(f"value {shown if len(shown) <= 120 else shown[:117] + '...'}")
        if self.position is not None:
            details.append(f"at position {self.position}")
        return f"{text} ({', '.join(details)})" if details else text


# ---------------------------------------------------------------------------------------------
# Type classification


_SCALAR_KINDS = {
    "Nat": "nat",
    "Int": "int",
    "Bool": "bool",
    "Float": "float",
    "Char": "char",
    "String": "string",
    "Unit": "unit",
    "Ordering": "ordering",
    **{name: "uint" for name in FIXED_WIDTH_TYPES},
}
_CONTAINER_KINDS = {"List": "list", "Array": "array", "Option": "option"}
_UNSUPPORTED = ("USize", "Fin", "Std.HashMap", "HashMap", "Std.HashSet", "HashSet")


@lru_cache(maxsize=4096)
def builtin_kind(ty: LeanType) -> str:
    """The kind of a type that does not depend on user structures ('' when it may): ``nat int uint
    bool float char string unit list array option prod fun``, or ``unsupported`` (``Fin``, hash maps)."""
    if isinstance(ty, ProdType):
        return "prod"
    if isinstance(ty, FunType):
        return "fun"
    if isinstance(ty, NamedType):
        if not ty.args and ty.name in _SCALAR_KINDS:
            return _SCALAR_KINDS[ty.name]
        if len(ty.args) == 1 and ty.name in _CONTAINER_KINDS:
            return _CONTAINER_KINDS[ty.name]
        if ty.name in _UNSUPPORTED:
            return "unsupported"
    return ""


def _arg0(ty: LeanType) -> LeanType:
    """The argument of ``List α`` / ``Array α`` / ``Option α`` (callers checked the kind)."""
    assert isinstance(ty, NamedType) and ty.args
    return ty.args[0]


def _type_name(ty: LeanType) -> str:
    assert isinstance(ty, NamedType)
    return ty.name


def _as_prod(ty: LeanType) -> ProdType:
    assert isinstance(ty, ProdType)
    return ty


def _kind(ty: LeanType, structs: Mapping[str, StructDef]) -> str:
    kind = builtin_kind(ty)
    if kind:
        return kind
    if isinstance(ty, NamedType) and ty.name in structs:
        return "struct"
    return "unknown"


def _as_type(ty: LeanType | str) -> LeanType:
    if isinstance(ty, LeanType):
        return ty
    try:
        return parse_type(ty)
    except LeanTypeError as exc:
        raise ValueParseError(f"invalid type: {exc}", type=ty) from exc


def _unsupported_type(ty: LeanType, raw: Any, structs: Mapping[str, StructDef]) -> ValueParseError:
    if _kind(ty, structs) == "unsupported":
        return ValueParseError(f"values of type {ty} are not supported", raw=raw, type=ty)
    name = ty.name if isinstance(ty, NamedType) else str(ty)
    return ValueParseError(
        f"unknown type {name!r} (not a built-in type nor a structure of the task)", raw=raw, type=ty
    )


# ---------------------------------------------------------------------------------------------
# Scalars


def _make_int(value: int, kind: str, ty: LeanType, raw: Any, wrap_uint: bool = False) -> Any:
    if kind == "int":
        return int(value)
    if kind == "nat":
        if value < 0:
            raise ValueParseError(f"a Nat cannot be negative: {value}", raw=raw, type=ty)
        return value if type(value) is Nat else Nat(value)
    if kind == "uint":
        name = _type_name(ty)
        cls = FIXED_WIDTH_TYPES[name]
        if wrap_uint:
            return cls(value)  # Lean's `OfNat` for fixed-width types wraps modulo 2^BITS
        if not 0 <= value < (1 << cls.BITS):
            raise ValueParseError(
                f"{value} is outside the range of {name} (0..{(1 << cls.BITS) - 1}); "
                "stored out-of-range values are rejected unless wrap_uint=True",
                raw=raw,
                type=ty,
            )
        return value if type(value) is cls else cls(value)
    raise AssertionError(kind)


def _make_char(text: str, ty: LeanType, raw: Any, position: int | None = None) -> Char:
    if len(text) != 1:
        raise ValueParseError(
            f"a Char must be exactly one character, got {len(text)}", raw=raw, type=ty, position=position
        )
    try:
        return Char(text)
    except ValueError as exc:
        raise ValueParseError(str(exc), raw=raw, type=ty, position=position) from exc


def _float_div(a: float, b: float) -> float:
    """IEEE division, as Lean's ``Float`` does it (Python raises on division by zero)."""
    if b != 0.0 or math.isnan(b):
        return a / b
    if a == 0.0 or math.isnan(a):
        return math.nan
    negative = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
    return -math.inf if negative else math.inf


def _float_of_binary_scientific(m: int, e: int) -> float:
    # Lean's `Float.ofBinaryScientific`: keep the top 64 bits of `m` (truncating), convert that
    # UInt64 to the nearest double, then scale by 2^e.
    shift = max(max(m.bit_length() - 1, 0) - 63, 0)
    m >>= shift
    e += shift
    f = float(m)
    if f == 0.0:
        return 0.0
    try:
        return math.ldexp(f, e)
    except OverflowError:
        return math.inf if e > 0 else 0.0


def lean_float_of_scientific(mantissa: int, negative_exponent: bool, exponent: int) -> float:
    """Lean 4's ``Float.ofScientific``: the float a literal ``m * 10^(±e)`` elaborates to.

    This is not always the correctly rounded double (it truncates to 64 bits before rounding), so
    reading Lean text with Python's ``float()`` could disagree with Lean in rare cases.
    """
    if exponent > 100_000:
        raise ValueError(f"decimal exponent {exponent} is too large")
    if negative_exponent:
        shift = max(64 - max(mantissa.bit_length() - 1, 0), 0)
        scaled = (mantissa << (3 * exponent + shift)) // 5**exponent
        return _float_of_binary_scientific(scaled, -4 * exponent - shift)
    return _float_of_binary_scientific(mantissa * 5**exponent, exponent)


def lean_float_of_literal(text: str) -> float:
    """The float Lean elaborates an unsigned numeric literal to (``1.5``, ``1e10``, ``0x10``, ``7``)."""
    if text[:2].lower() in ("0x", "0b", "0o"):
        return lean_float_of_scientific(int(text, 0), False, 0)
    mantissa, _, exp = text.lower().partition("e")
    int_part, dot, frac = mantissa.partition(".")
    m = int(int_part + frac)
    decimals = len(frac)
    if exp:
        x = int(exp.lstrip("+-"))
        if exp.startswith("-"):
            return lean_float_of_scientific(m, True, x + decimals)
        if x >= decimals:
            return lean_float_of_scientific(m, False, x - decimals)
        return lean_float_of_scientific(m, True, decimals - x)
    if dot:
        return lean_float_of_scientific(m, True, decimals)
    return lean_float_of_scientific(m, False, 0)  # `OfNat Float n` is `ofScientific n false 0`


def _lean_float_of_int(n: int) -> float:
    magnitude = lean_float_of_scientific(abs(n), False, 0)
    return -magnitude if n < 0 else magnitude


# ---------------------------------------------------------------------------------------------
# Lean literal text: read with the shared Lean lexer (`veriscale.lean.lexer`)

# Symbols a literal may contain; any other symbol is reported as unexpected.
_LITERAL_PUNCT = frozenset({"#[", ":=", "→", "[", "]", "(", ")", ",", ":", "⟨", "⟩", "{", "}", "/", "×", "-"})
_TOKEN_KINDS = {
    NUM: "num", SCI: "sci", STR: "str", CHAR: "chr", IDENT: "name", KEYWORD: "name", SYM: "punct", EOF: "end"
}  # fmt: skip

# Fast path for the most common stored shape: a list/array of integer literals.
_INT_SEQ = re.compile(r"[ \n]*(#?)\[[ \n]*((?:-?[ \n]*[0-9]+[ \n]*,[ \n]*)*-?[ \n]*[0-9]+)?[ \n]*\][ \n]*")


def _literal_tokens(text: str, raw: Any) -> tuple[list[Token], list[str]]:
    """The tokens of ``text`` (ending with ``EOF`` at ``len(text)``) and the reader's kind of each
    (``num``, ``sci``, ``str``, ``chr``, ``name``, ``punct``, ``end``).

    Lean's lexical rules decide what is a literal, a comment or an error; the reader accepts only
    the tokens a value can be written with.
    """
    lexed = lex(text)
    if lexed.problems:
        problem = lexed.problems[0]
        raise ValueParseError(problem.message, raw=raw, position=problem.start)
    if lexed.notes:  # stricter than Lean, which reads such an escape as '\0': a data defect
        note = lexed.notes[0]
        at = note.start or 0  # the lexer's notes always carry their offset
        escape = text[at : at + 6]
        raise ValueParseError(f"escape {escape} is not a Unicode scalar value", raw=raw, position=at)
    tokens = lexed.tokens
    kinds: list[str] = []
    for tok in tokens:
        kind = _TOKEN_KINDS.get(tok.kind)
        if kind is None or (kind == "punct" and tok.value not in _LITERAL_PUNCT):
            shown = f"character {tok.text!r}" if len(tok.text) == 1 else repr(tok.text)
            raise ValueParseError(f"unexpected {shown}", raw=raw, position=tok.offset)
        kinds.append(kind)
    return tokens, kinds


class _Reader:
    """Recursive-descent reader of one Lean literal, guided by the expected type."""

    __slots__ = ("text", "raw", "structs", "wrap_uint", "toks", "kinds", "i")

    def __init__(self, text: str, raw: Any, structs: Mapping[str, StructDef], wrap_uint: bool) -> None:
        self.text = text
        self.raw = raw
        self.structs = structs
        self.wrap_uint = wrap_uint
        self.toks, self.kinds = _literal_tokens(text, raw)
        self.i = 0

    # -- helpers ----------------------------------------------------------------------------

    def error(self, reason: str, ty: LeanType | None = None, index: int | None = None) -> ValueParseError:
        pos = self.toks[self.i if index is None else index].offset
        return ValueParseError(reason, raw=self.raw, type=ty, position=pos)

    def describe(self, index: int | None = None) -> str:
        i = self.i if index is None else index
        if self.kinds[i] == "end":
            return "end of text"
        tok = self.toks[i].text
        return repr(tok if len(tok) <= 40 else tok[:37] + "...")

    def expect(self, punct: str, ty: LeanType) -> None:
        if self.toks[self.i].text == punct and self.kinds[self.i] == "punct":
            self.i += 1
            return
        raise self.error(f"expected {punct!r} but found {self.describe()}", ty)

    def at(self, punct: str) -> bool:
        return self.kinds[self.i] == "punct" and self.toks[self.i].text == punct

    # -- entry --------------------------------------------------------------------------------

    def read_all(self, ty: LeanType) -> Any:
        value = self.read(ty)
        if self.kinds[self.i] != "end":
            raise self.error(f"unexpected {self.describe()} after a complete {ty} value", ty)
        return value

    def read(self, ty: LeanType, arg: bool = False) -> Any:
        """One term of type ``ty``; ``arg`` is true in argument position (``some x``)."""
        if self.at("("):
            return self.read_paren(ty)
        kind = _kind(ty, self.structs)
        if kind in ("int", "nat", "uint"):
            return self.read_int(ty, kind, arg)
        if kind == "float":
            return self.read_float(ty, arg)
        kind_tok = self.kinds[self.i]
        if kind == "bool":
            if kind_tok == "name" and self.toks[self.i].value in ("true", "false", "Bool.true", "Bool.false"):
                self.i += 1
                return self.toks[self.i - 1].value.endswith("true")
            raise self.error(f"expected true or false but found {self.describe()}", ty)
        if kind == "string":
            if kind_tok == "str":
                self.i += 1
                return self.toks[self.i - 1].value
            raise self.error(f"expected a string literal but found {self.describe()}", ty)
        if kind == "ordering":
            return self.read_ordering(ty)
        if kind == "char":
            if kind_tok == "chr":
                self.i += 1
                return _make_char(self.toks[self.i - 1].value, ty, self.raw, self.toks[self.i - 1].offset)
            raise self.error(f"expected a character literal but found {self.describe()}", ty)
        if kind == "list":
            return self.read_seq(ty, "[")
        if kind == "array":
            return Arr(self.read_seq(ty, "#["))
        if kind == "option":
            return self.read_option(ty, arg)
        if kind == "prod":
            if self.at("⟨"):
                self.i += 1
                return self.read_tuple(_as_prod(ty), "⟩")
            raise self.error(f"expected a pair '(a, b)' but found {self.describe()}", ty)
        if kind == "struct":
            return self.read_struct(ty, arg)
        if kind == "unit":
            raise self.error(f"expected '()' but found {self.describe()}", ty)
        if kind == "fun":
            raise self.error("a function value inside Lean literal text is not supported", ty)
        raise _unsupported_type(ty, self.raw, self.structs)

    def read_ordering(self, ty: LeanType) -> Any:
        """``Ordering.lt``, as ``Repr Ordering`` prints it."""
        name = self.toks[self.i].value if self.kinds[self.i] == "name" else None
        for ordering in ORDERINGS:
            if name == ordering.name:
                self.i += 1
                return ordering
        raise self.error(f"expected Ordering.lt, Ordering.eq or Ordering.gt but found {self.describe()}", ty)

    # -- parentheses, ascriptions, tuples -----------------------------------------------------

    def read_paren(self, ty: LeanType) -> Any:
        open_index = self.i
        self.i += 1
        if self.at(")") and _kind(ty, self.structs) == "unit":
            self.i += 1
            return UNIT
        tuple_error: ValueParseError | None = None
        if isinstance(ty, ProdType):
            try:
                return self.read_tuple(ty, ")")
            except ValueParseError as exc:
                tuple_error = exc
                self.i = open_index + 1  # not a tuple: `((a, b))` or `((a, b) : T)`
        try:
            value = self.read(ty)
            if self.at(":"):
                self.read_ascription(ty)
            if not self.at(")"):
                raise self.error(
                    f"expected ')' (closing the '(' at position {self.toks[open_index].offset}) "
                    f"but found {self.describe()}",
                    ty,
                )
        except ValueParseError as exc:
            raise _furthest(exc, tuple_error) from None
        self.i += 1
        return value

    def read_ascription(self, ty: LeanType) -> None:
        colon = self.i
        self.i += 1
        depth = 0
        while True:
            kind, tok = self.kinds[self.i], self.toks[self.i].text
            if kind == "end":
                raise self.error("unterminated type ascription", ty)
            if kind == "punct" and tok == "(":
                depth += 1
            elif kind == "punct" and tok == ")":
                if depth == 0:
                    break
                depth -= 1
            self.i += 1
        type_text = self.text[self.toks[colon].offset + 1 : self.toks[self.i].offset]
        try:
            ascribed = parse_type(type_text.strip())
        except LeanTypeError as exc:
            raise self.error(f"invalid type ascription: {exc.reason}", ty, colon) from exc
        if ascribed != ty:
            raise self.error(f"type ascription ({ascribed}) does not match the expected type {ty}", ty, colon)

    def read_tuple(self, ty: ProdType, closer: str) -> Pair:
        """After the opening bracket: ``a, b`` or ``a, b, c`` (right-nested) then ``closer``."""
        first = self.read(ty.fst)
        self.expect(",", ty)
        return Pair(first, self.read_tuple_rest(ty.snd, closer))

    def read_tuple_rest(self, ty: LeanType, closer: str) -> Any:
        flat_error: ValueParseError | None = None
        if isinstance(ty, ProdType):
            save = self.i
            try:
                head = self.read(ty.fst)
                if self.at(","):
                    self.i += 1
                    return Pair(head, self.read_tuple_rest(ty.snd, closer))
            except ValueParseError as exc:
                flat_error = exc
            self.i = save  # the remaining element is the whole nested product, e.g. `(1, (2, 3))`
        try:
            value = self.read(ty)
            self.expect(closer, ty)
        except ValueParseError as exc:
            raise _furthest(exc, flat_error) from None
        return value

    # -- numbers --------------------------------------------------------------------------------

    def read_int(self, ty: LeanType, kind: str, arg: bool) -> Any:
        start = self.i
        negative = False
        if self.at("-"):
            if arg:
                raise self.error("a negative number in argument position needs parentheses", ty)
            if kind == "nat":
                raise self.error("a Nat cannot be negated (Lean has no `Neg Nat`)", ty)
            negative = True
            self.i += 1
            if self.at("("):  # `-(3)`, `-(-5)`: negation of a parenthesised integer
                inner = self.read_paren(ty)
                try:
                    return _make_int(-int(inner), kind, ty, self.raw, self.wrap_uint)
                except ValueParseError as exc:
                    exc.position = self.toks[start].offset
                    raise
        if self.kinds[self.i] == "sci":
            raise self.error(f"expected an integer but found the decimal {self.toks[self.i].text!r}", ty)
        if self.kinds[self.i] != "num":
            raise self.error(f"expected an integer but found {self.describe()}", ty)
        value = self.toks[self.i].value
        self.i += 1
        try:
            return _make_int(-value if negative else value, kind, ty, self.raw, self.wrap_uint)
        except ValueParseError as exc:
            exc.position = self.toks[start].offset
            raise

    def read_float_atom(self, ty: LeanType) -> float:
        negative = False
        if self.at("-"):
            negative = True
            self.i += 1
        kind, tok = self.kinds[self.i], self.toks[self.i].text
        if kind in ("num", "sci"):
            try:
                value = lean_float_of_literal(tok.replace("_", ""))
            except ValueError as exc:
                raise self.error(str(exc), ty) from exc
        elif kind == "name" and self.toks[self.i].value in ("Float.nan", "NaN", "nan"):
            value = math.nan
        elif kind == "name" and self.toks[self.i].value in ("Float.inf", "inf", "Float.infinity"):
            value = math.inf
        elif self.at("("):
            value = self.read_paren(ty)
            return -value if negative else value
        else:
            raise self.error(f"expected a Float but found {self.describe()}", ty)
        self.i += 1
        return -value if negative else value

    def read_float(self, ty: LeanType, arg: bool) -> float:
        if arg and self.at("-"):
            raise self.error("a negative number in argument position needs parentheses", ty)
        value = self.read_float_atom(ty)
        while self.at("/"):  # `0.0 / 0.0`, `1.0 / 0.0`: how NaN and infinities are written
            self.i += 1
            value = _float_div(value, self.read_float_atom(ty))
        return value

    # -- containers -------------------------------------------------------------------------------

    def read_seq(self, ty: LeanType, opener: str) -> tuple[Any, ...]:
        elem_ty = _arg0(ty)
        if not self.at(opener):
            raise self.error(f"expected {opener!r} to open the {ty} but found {self.describe()}", ty)
        self.i += 1
        items: list[Any] = []
        if self.at("]"):
            self.i += 1
            return ()
        while True:
            items.append(self.read(elem_ty))
            if self.at(","):
                self.i += 1
                continue
            if self.at("]"):
                self.i += 1
                return tuple(items)
            raise self.error(f"expected ',' or ']' in a {ty} but found {self.describe()}", ty)

    def read_option(self, ty: LeanType, arg: bool) -> Any:
        tok = self.toks[self.i].value if self.kinds[self.i] == "name" else ""
        if tok in ("none", "Option.none"):
            self.i += 1
            return NONE
        if tok in ("some", "Option.some"):
            if arg:
                raise self.error("'some x' in argument position needs parentheses", ty)
            self.i += 1
            return Some(self.read(_arg0(ty), arg=True))
        raise self.error(f"expected 'none' or 'some' but found {self.describe()}", ty)

    def read_struct(self, ty: LeanType, arg: bool) -> Struct:
        sdef = self.structs[_type_name(ty)]
        try:
            fields = sdef.fields_for(ty)
        except ValueError as exc:
            raise self.error(str(exc), ty) from exc
        if self.at("⟨"):
            self.i += 1
            values: list[Any] = []
            for n, f in enumerate(fields):
                if n:
                    self.expect(",", ty)
                values.append(self.read(f.type))
            self.expect("⟩", ty)
            return Struct(sdef.name, tuple((f.name, v) for f, v in zip(fields, values)))
        if self.at("{"):
            self.i += 1
            by_name: dict[str, Any] = {}
            types = {f.name: f.type for f in fields}
            while not self.at("}"):
                if self.kinds[self.i] != "name":
                    raise self.error(f"expected a field name of {sdef.name} but found {self.describe()}", ty)
                name = self.toks[self.i].value
                if name not in types:
                    raise self.error(f"structure {sdef.name} has no field {name!r}", ty)
                if name in by_name:
                    raise self.error(f"field {name!r} is given twice", ty)
                self.i += 1
                self.expect(":=", ty)
                by_name[name] = self.read(types[name])
                if self.at(","):
                    self.i += 1
            self.i += 1
            missing = [f.name for f in fields if f.name not in by_name]
            if missing:
                raise self.error(f"structure {sdef.name} is missing field(s) {', '.join(missing)}", ty)
            return Struct(sdef.name, tuple((f.name, by_name[f.name]) for f in fields))
        if self.kinds[self.i] == "name" and self.toks[self.i].value == f"{sdef.name}.mk":
            if arg:
                raise self.error(f"'{sdef.name}.mk ...' in argument position needs parentheses", ty)
            self.i += 1
            return Struct(sdef.name, tuple((f.name, self.read(f.type, arg=True)) for f in fields))
        raise self.error(
            f"expected a {sdef.name} value ('{{ field := ... }}' or '⟨...⟩') but found {self.describe()}", ty
        )


def _furthest(error: ValueParseError, other: ValueParseError | None) -> ValueParseError:
    """Of two failed readings of the same text, the one that got further explains it better."""
    if other is not None and (other.position or 0) > (error.position or 0):
        return other
    return error


def _read_int_seq(
    text: str, kind: str, elem_ty: LeanType, want_array: bool, raw: Any, wrap_uint: bool
) -> Any | None:
    """Fast path for ``[1, -2]`` / ``#[1, -2]``; ``None`` when the text is not of that shape."""
    m = _INT_SEQ.fullmatch(text)
    if m is None or bool(m.group(1)) != want_array:
        return None
    body = m.group(2)
    if kind == "nat" and body is not None and "-" in body:
        return None  # let the reader report the negation (Lean has no `Neg Nat`)
    if body is None:
        items: tuple[Any, ...] = ()
    else:
        ints = [int("".join(part.split())) for part in body.split(",")]
        if kind == "int":
            items = tuple(ints)
        else:
            items = tuple(_make_int(v, kind, elem_ty, raw, wrap_uint) for v in ints)
    return Arr(items) if want_array else items


def _parse_text(
    text: str, ty: LeanType, structs: Mapping[str, StructDef], raw: Any, wrap_uint: bool = False
) -> Any:
    kind = _kind(ty, structs)
    if kind in ("list", "array"):
        elem_ty = _arg0(ty)
        elem_kind = builtin_kind(elem_ty)
        if elem_kind in ("int", "nat", "uint"):
            fast = _read_int_seq(text, elem_kind, elem_ty, kind == "array", raw, wrap_uint)
            if fast is not None:
                return fast
    elif kind == "unsupported" or kind == "unknown":
        raise _unsupported_type(ty, raw, structs)
    try:
        return _Reader(text, raw, structs, wrap_uint).read_all(ty)
    except ValueParseError as exc:
        exc.type = ty  # report the declared type; the reason names the inner problem
        exc.raw = raw
        raise


# ---------------------------------------------------------------------------------------------
# parse_value


def parse_value(
    raw: Any,
    ty: LeanType | str,
    structs: Mapping[str, StructDef] = _NO_STRUCTS,
    *,
    wrap_uint: bool = False,
) -> Any:
    """Read a stored value (any encoding found in the data) at its declared type.

    Also accepts runtime values, so ``parse_value(parse_value(x, t), t) == parse_value(x, t)``.
    ``wrap_uint=True`` reads out-of-range ``UIntN`` values modulo 2^N as Lean's numeric literals do
    (the published VerinaPlus stores ``510`` for a ``UInt8`` and its expected outputs were computed
    from 254); by default they are errors. Raises :class:`ValueParseError` when the value does not
    fit the type.
    """
    ty = _as_type(ty)
    try:
        return _parse(raw, ty, structs, wrap_uint)
    except ValueParseError as exc:
        # Report the stored value and its declared type; the reason names the inner problem.
        if exc.raw is not raw and exc.raw is not None and exc.position is not None:
            # The failing text was an element of a JSON array: keep where, inside that element.
            exc.reason = f"{exc.reason} (in element {exc.raw!r} at position {exc.position})"
            exc.args = (exc.reason,)
            exc.position = None
        exc.raw = raw
        exc.type = ty
        raise
    except RecursionError as exc:
        raise ValueParseError("value is nested too deeply", raw=raw, type=ty) from exc


def parse_lean(
    text: str,
    ty: LeanType | str,
    structs: Mapping[str, StructDef] = _NO_STRUCTS,
    *,
    wrap_uint: bool = False,
) -> Any:
    """Read Lean literal text at a type; the inverse of :func:`render_value`.

    Unlike :func:`parse_value`, a ``String`` must be a quoted Lean string literal here and a
    ``Char`` a character literal (stored data keeps those raw at the top level).
    """
    ty = _as_type(ty)
    if not isinstance(text, str):
        raise ValueParseError("Lean literal text must be a string", raw=text, type=ty)
    if _kind(ty, structs) == "fun":
        return _parse(text, ty, structs, wrap_uint)
    try:
        return _parse_text(text, ty, structs, text, wrap_uint)
    except RecursionError as exc:
        raise ValueParseError("value is nested too deeply", raw=text, type=ty) from exc


def _parse(raw: Any, ty: LeanType, structs: Mapping[str, StructDef], wrap: bool) -> Any:
    kind = _kind(ty, structs)
    if isinstance(raw, str):
        if kind == "string":
            return str(raw)
        if kind == "char":
            if len(raw) == 1:
                return _make_char(raw, ty, raw)
            try:  # a Lean char literal such as "'a'"
                return _parse_text(raw, ty, structs, raw, wrap)
            except ValueParseError:
                if len(raw) > 2 and raw[0] == raw[-1] == "'":
                    raise
                raise ValueParseError(
                    f"a Char must be one character (or a Lean char literal), got {len(raw)} characters",
                    raw=raw,
                    type=ty,
                ) from None
        if kind == "fun":
            if not raw.strip():
                raise ValueParseError("empty Lean source for a function value", raw=raw, type=ty)
            return LeanSource(raw)
        return _parse_text(raw, ty, structs, raw, wrap)
    if isinstance(raw, bool):
        if kind == "bool":
            return raw
        raise ValueParseError(f"a boolean is not a {ty}", raw=raw, type=ty)
    if isinstance(raw, int):
        if kind in ("int", "nat", "uint"):
            return _make_int(raw, kind, ty, raw, wrap)
        if kind == "float":
            return _lean_float_of_int(raw)  # as Lean reads the numeral (`OfNat Float n`)
        raise ValueParseError(f"a number is not a {ty}", raw=raw, type=ty)
    if isinstance(raw, float):
        if kind == "float":
            return raw
        raise ValueParseError(f"a decimal number is not a {ty}", raw=raw, type=ty)
    if kind == "list":
        # A JSON array or a runtime List (plain tuple); a runtime Array is a different type.
        if isinstance(raw, list) or type(raw) is tuple:
            elem = _arg0(ty)
            return tuple(_parse(x, elem, structs, wrap) for x in raw)
    elif kind == "array":
        if isinstance(raw, (list, Arr)):
            elem = _arg0(ty)
            return Arr(_parse(x, elem, structs, wrap) for x in raw)
    elif kind == "option":
        if raw is NONE:
            return NONE
        if isinstance(raw, Some):
            return Some(_parse(raw.value, _arg0(ty), structs, wrap))
    elif kind == "prod":
        if isinstance(raw, Pair):
            prod = _as_prod(ty)
            return Pair(_parse(raw.fst, prod.fst, structs, wrap), _parse(raw.snd, prod.snd, structs, wrap))
    elif kind == "unit":
        if raw is UNIT:
            return UNIT
    elif kind == "ordering":
        if raw in ORDERINGS:
            return raw
    elif kind == "fun":
        if isinstance(raw, LeanSource) or callable(raw):
            return raw
    elif kind == "struct":
        return _parse_struct_native(raw, ty, structs, wrap)
    elif kind in ("unsupported", "unknown"):
        raise _unsupported_type(ty, raw, structs)
    raise ValueParseError(f"a {type(raw).__name__} is not a {ty}", raw=raw, type=ty)


def _parse_struct_native(raw: Any, ty: LeanType, structs: Mapping[str, StructDef], wrap: bool) -> Struct:
    sdef = structs[_type_name(ty)]
    try:
        fields = sdef.fields_for(ty)
    except ValueError as exc:
        raise ValueParseError(str(exc), raw=raw, type=ty) from exc
    if isinstance(raw, Struct):
        if raw.type_name != sdef.name:
            raise ValueParseError(f"a {raw.type_name} is not a {ty}", raw=raw, type=ty)
        given = dict(raw.fields)
    elif isinstance(raw, dict):
        given = raw
    else:
        raise ValueParseError(f"a {type(raw).__name__} is not a {ty}", raw=raw, type=ty)
    unknown = sorted(set(given) - {f.name for f in fields})
    missing = [f.name for f in fields if f.name not in given]
    if unknown or missing:
        problems = ([f"missing field(s) {', '.join(missing)}"] if missing else []) + (
            [f"unknown field(s) {', '.join(unknown)}"] if unknown else []
        )
        raise ValueParseError(f"structure {sdef.name}: {'; '.join(problems)}", raw=raw, type=ty)
    return Struct(sdef.name, tuple((f.name, _parse(given[f.name], f.type, structs, wrap)) for f in fields))


# ---------------------------------------------------------------------------------------------
# Rendering Lean literals


def _same_float(a: float, b: float) -> bool:
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def render_float(x: float) -> str:
    """The shortest decimal that Lean reads back as exactly ``x``; NaN and infinities as divisions.

    Candidates are Python's shortest round-trip form, then 17 significant digits, then the exact
    decimal expansion; the first that Lean's own literal conversion maps to ``x`` is used.
    """
    if math.isnan(x):
        return "(0.0 / 0.0 : Float)"
    if math.isinf(x):
        return "(1.0 / 0.0 : Float)" if x > 0 else "(-1.0 / 0.0 : Float)"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    magnitude = abs(x)
    for candidate in (repr(magnitude), f"{magnitude:.17g}", _exact_decimal(magnitude)):
        # Python writes `1e+16`; keep a `.` or `e` so the literal reads as a decimal.
        text = candidate.replace("e+", "e")
        if "." not in text and "e" not in text:
            text += ".0"
        if _same_float(lean_float_of_literal(text), magnitude):
            return sign + text
    raise AssertionError(f"no Lean literal found for {x!r}")  # the exact expansion always works


def _exact_decimal(x: float) -> str:
    text = format(Decimal(x), "f")
    return text if "." in text else text + ".0"


def render_value(v: Any, ty: LeanType | str, structs: Mapping[str, StructDef] = _NO_STRUCTS) -> str:
    """A Lean term of type ``ty`` denoting the runtime value ``v``."""
    ty = _as_type(ty)
    try:
        return _render(v, ty, structs, False)
    except ValueParseError as exc:
        if exc.type is None:
            exc.type = ty
        raise


def _mismatch(v: Any, ty: LeanType) -> ValueParseError:
    return ValueParseError(f"cannot render a {type(v).__name__} as a {ty}", raw=v, type=ty)


def _is_integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_SCALAR_FITS: dict[str, Callable[[Any], bool]] = {
    "int": _is_integer,
    "nat": _is_integer,
    "uint": _is_integer,
    "bool": lambda v: isinstance(v, bool),
    "float": lambda v: isinstance(v, float),
    "string": lambda v: isinstance(v, str),
    "char": lambda v: isinstance(v, str) and len(v) == 1,
    "ordering": lambda v: v in ORDERINGS,
}
"""What a runtime value of each scalar kind is (rendering and storing check it first)."""


def _check_scalar(v: Any, kind: str, ty: LeanType) -> bool:
    """Whether ``kind`` is a scalar kind; raises when ``v`` is not a value of it."""
    fits = _SCALAR_FITS.get(kind)
    if fits is None:
        return False
    if not fits(v):
        raise _mismatch(v, ty)
    return True


def _render(v: Any, ty: LeanType, structs: Mapping[str, StructDef], arg: bool) -> str:
    kind = _kind(ty, structs)
    if _check_scalar(v, kind, ty):
        if kind == "bool":
            return "true" if v else "false"
        if kind == "ordering":
            return str(v.name)  # `Repr Ordering` (derived): `Ordering.lt`
        if kind == "string":
            return quote_string(v)
        if kind == "char":
            return quote_char(v)
        text = render_float(v) if kind == "float" else decimal(v)
        return f"({text})" if arg and text.startswith("-") else text
    if kind == "list" or kind == "array":
        if not isinstance(v, (tuple, Arr)) or isinstance(v, Arr) != (kind == "array"):
            raise _mismatch(v, ty)
        elem = _arg0(ty)
        body = ", ".join(_render(x, elem, structs, False) for x in v)
        return f"#[{body}]" if kind == "array" else f"[{body}]"
    if kind == "option":
        if v is NONE:
            return "none"
        if not isinstance(v, Some):
            raise _mismatch(v, ty)
        text = "some " + _render(v.value, _arg0(ty), structs, True)
        return f"({text})" if arg else text
    if kind == "prod":
        if not isinstance(v, Pair):
            raise _mismatch(v, ty)
        prod = _as_prod(ty)
        parts = [_render(v.fst, prod.fst, structs, False)]
        rest, rest_ty = v.snd, prod.snd
        # Right-nested pairs print flat, as Lean's `Repr` does: `(1, 2, 3)`.
        while isinstance(rest_ty, ProdType) and isinstance(rest, Pair):
            parts.append(_render(rest.fst, rest_ty.fst, structs, False))
            rest, rest_ty = rest.snd, rest_ty.snd
        parts.append(_render(rest, rest_ty, structs, False))
        return "(" + ", ".join(parts) + ")"
    if kind == "unit":
        if v is not UNIT:
            raise _mismatch(v, ty)
        return "()"
    if kind == "struct":
        sdef = structs[_type_name(ty)]
        if not isinstance(v, Struct) or v.type_name != sdef.name:
            raise _mismatch(v, ty)
        fields = sdef.fields_for(ty)
        given = dict(v.fields)
        if set(given) != {f.name for f in fields}:
            raise ValueParseError(f"fields of the value do not match structure {sdef.name}", raw=v, type=ty)
        body = ", ".join(f"{f.name} := {_render(given[f.name], f.type, structs, False)}" for f in fields)
        return "{ " + body + " }" if body else "{}"
    if kind == "fun":
        if isinstance(v, LeanSource):
            text = v.text.strip()
            return f"({text})" if arg else text
        raise ValueParseError("only functions given as Lean source text can be rendered", raw=v, type=ty)
    raise _unsupported_type(ty, v, structs)


# ---------------------------------------------------------------------------------------------
# Storage encoding, canonical keys, defaults


def to_json(v: Any, ty: LeanType | str, structs: Mapping[str, StructDef] = _NO_STRUCTS) -> Any:
    """The value in Verina's storage convention; ``parse_value(to_json(v, t), t) == v``.

    Integers and booleans as JSON natives, finite floats as JSON numbers (NaN and infinities as
    Lean text, since JSON has no such numbers), top-level ``String``/``Char`` as raw text, functions
    as their source text, and every other type as a Lean literal string.
    """
    ty = _as_type(ty)
    kind = _kind(ty, structs)
    if _check_scalar(v, kind, ty):
        if kind == "bool":
            return v
        if kind == "float":
            return float(v) if math.isfinite(v) else render_float(v)
        if kind == "ordering":
            return str(v.name)
        return str(v) if kind in ("string", "char") else int(v)
    if kind == "fun" and isinstance(v, LeanSource):
        return v.text
    return render_value(v, ty, structs)


def canonical_value_key(
    v: Any,
    ty: LeanType | str,
    structs: Mapping[str, StructDef] = _NO_STRUCTS,
    *,
    wrap_uint: bool = False,
) -> str:
    """One text per value, whatever its encoding: ``[1,2]``, ``"[1,2]"`` and ``"[1, 2]"`` agree.

    ``v`` is a stored value or a runtime value (see :func:`parse_value`).
    """
    ty = _as_type(ty)
    return render_value(parse_value(v, ty, structs, wrap_uint=wrap_uint), ty, structs)


def canonical_key(
    inputs: Mapping[str, Any],
    types: Mapping[str, LeanType | str],
    structs: Mapping[str, StructDef] = _NO_STRUCTS,
    *,
    wrap_uint: bool = False,
) -> str:
    """A canonical text for an input row: parameters sorted by name, each value rendered.

    Rendered values never contain a raw newline (strings and chars escape it), so the
    newline-joined ``name := value`` lines are unambiguous. Raises :class:`ValueParseError` (with
    ``field`` set) when a value does not parse or the names do not match the parameters.
    """
    missing = sorted(set(types) - set(inputs))
    extra = sorted(set(inputs) - set(types))
    if missing or extra:
        field = (missing or extra)[0]
        reason = "; ".join(
            ([f"missing input(s) {', '.join(missing)}"] if missing else [])
            + ([f"unknown input(s) {', '.join(extra)}"] if extra else [])
        )
        raise ValueParseError(reason, field=field)
    lines = []
    for name in sorted(types):
        try:
            key = canonical_value_key(inputs[name], types[name], structs, wrap_uint=wrap_uint)
            lines.append(f"{name} := {key}")
        except ValueParseError as exc:
            raise exc.with_context(field=name) from None
    return "\n".join(lines)


def default_value(ty: LeanType | str, structs: Mapping[str, StructDef] = _NO_STRUCTS) -> Any:
    """Lean's ``Inhabited`` default (``default``/``xs[i]!`` out of range) of a type.

    ``Nat``/``Int``/``UIntN`` 0, ``Bool`` false, ``Float`` 0.0 (``UInt64.toFloat 0``), ``Char``
    ``'A'``, ``String`` "", ``List`` [], ``Array`` #[], ``Option`` none, ``Unit`` (), products of
    defaults, structures of their fields' defaults (as ``deriving Inhabited`` builds them when the
    fields declare no default values). Function types have no default here.
    """
    ty = _as_type(ty)
    kind = _kind(ty, structs)
    if kind in ("int", "nat", "uint"):
        return _make_int(0, kind, ty, 0)
    simple = {
        "bool": False,
        "float": 0.0,
        "string": "",
        "unit": UNIT,
        "list": (),
        "option": NONE,
    }
    if kind in simple:
        return simple[kind]
    if kind == "char":
        return Char("A")
    if kind == "ordering":
        return ORDERING_LT  # `deriving Inhabited`: the first constructor
    if kind == "array":
        return Arr(())
    if kind == "prod":
        prod = _as_prod(ty)
        return Pair(default_value(prod.fst, structs), default_value(prod.snd, structs))
    if kind == "struct":
        sdef = structs[_type_name(ty)]
        return Struct(sdef.name, tuple((f.name, default_value(f.type, structs)) for f in sdef.fields_for(ty)))
    if kind == "fun":
        raise ValueParseError("a function type has no default value", type=ty)
    raise _unsupported_type(ty, None, structs)


def json_text(v: Any, ty: LeanType | str, structs: Mapping[str, StructDef] = _NO_STRUCTS) -> str:
    """``to_json`` serialised compactly (handy for logs and hashing)."""
    return json.dumps(to_json(v, ty, structs), ensure_ascii=False, separators=(",", ":"))


def _openers(ty: LeanType, structs: Mapping[str, StructDef]) -> tuple[str, ...]:
    if isinstance(ty, ProdType):
        return ("(",)
    if isinstance(ty, NamedType):
        if ty.name in structs:
            return ("{", "⟨")
        return {"List": ("[",), "Array": ("#[",), "Option": ("some", "none")}.get(ty.name, ())
    return ()


def looks_truncated(raw: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> bool:
    """The anchor implementation kept only the last printed line of a long value.

    Such a value is the tail of a rendering: it ends the literal (``]``, ``)``) without starting
    it the way a value of its type starts (``[``, ``#[``, ``(``, ``some``).
    """
    if not isinstance(raw, str):
        return False
    text = raw.strip()
    openers = _openers(ty, structs)
    return bool(text) and bool(openers) and text[-1] in ")]}⟩" and not text.startswith(openers)
