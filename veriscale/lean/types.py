"""Lean type expressions as immutable, hashable values with one printed normal form.

Task signatures name parameter and return types as Lean source text (``List (Int × Nat)``,
``Prod Nat Nat``, ``Int -> Bool``, ``Map Int Int``). :func:`parse_type` turns such text into a
:class:`LeanType`; equal types written differently parse to equal values, and ``str(t)`` prints the
normal form:

* products use ``×`` and are right-associative: ``Prod A B`` becomes ``A × B``, and
  ``A × B × C`` is ``A × (B × C)``;
* functions use ``→`` (``->`` is accepted when parsing) and are right-associative;
* parentheses appear only where Lean needs them (``List (Int)`` prints as ``List Int``).

Supported forms: any (possibly dotted) type name applied to arguments, parentheses, ``×`` /
``Prod``, ``→`` / ``->``, and numeric literals as arguments (``Fin 5``). Built-in names with a known
arity are checked (``List Int Nat`` is an error): ``Nat Int Bool String Char Float Unit UInt8
UInt16 UInt32 UInt64 USize`` (no arguments), ``List Array Option Fin Std.HashSet HashSet`` (one),
``Prod Std.HashMap HashMap`` (two). Other names -- user structures such as ``Map`` or type
parameters such as ``K`` -- are accepted with any number of arguments; the value codec decides
what it can represent.

Declarations' signatures need a little more (:func:`parse_signature_type`): universe levels
(``Type u``, :class:`SortType`), dependent arrows (``(i : Nat) → i < n → α``, read as the plain arrow
``Nat → (i < n) → α``: binder names are dropped, the dependency stays inside the proposition),
``∀ (x : T), P`` and propositions (``i < xs.size``, ``as ≠ []``), kept as opaque text
(:class:`PropType`) because the engine never computes with a proof.

Structures declared in a task's ``task_aux`` section are read by :func:`parse_structures`;
:meth:`StructDef.fields_for` gives a field's type for a concrete instance (``Map Int Int``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from veriscale.lean.lexer import EOF, IDENT, KEYWORD, NUM, SYM, lex

__all__ = [
    "BOOL",
    "CHAR",
    "FLOAT",
    "INT",
    "NAT",
    "PROP",
    "STRING",
    "TYPE",
    "UNIT",
    "FunType",
    "LeanType",
    "LeanTypeError",
    "NamedType",
    "NatLitType",
    "ProdType",
    "PropType",
    "SortType",
    "StructDef",
    "StructField",
    "array_of",
    "components",
    "fun_of",
    "list_of",
    "map_components",
    "option_of",
    "parse_signature_type",
    "parse_structures",
    "parse_type",
    "prod_of",
    "substitute",
    "type_head",
]


class LeanTypeError(ValueError):
    """A type (or structure declaration) that could not be parsed; says what, where, and why."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        super().__init__(f"{reason} at position {position} in Lean type {text!r}")


# ---------------------------------------------------------------------------------------------
# The type values


class LeanType:
    """Base class of type expressions. Instances are frozen dataclasses: hashable, comparable."""

    __slots__ = ()

    def _render(self, prec: int) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self._render(_PREC_TOP)

    def __repr__(self) -> str:
        # The printed form says more than the fields; subclasses opt in with ``repr=False``.
        return f"{type(self).__name__}({str(self)!r})"


# Binding strength of the printed forms (Lean: `→` is 25, `×` is infixr 35, application is max).
_PREC_TOP = 0
_PREC_FUN = 25
_PREC_PROD = 35
_PREC_ARG = 1024


def _paren(text: str, needed: bool) -> str:
    return f"({text})" if needed else text


def _render_infix(left: LeanType, symbol: str, right: LeanType, op_prec: int, prec: int) -> str:
    """A right-associative infix type (``×``, ``→``): a left operand of the same operator needs
    parentheses, a right one not."""
    text = f"{left._render(op_prec + 1)} {symbol} {right._render(op_prec)}"
    return _paren(text, prec > op_prec)


@dataclass(frozen=True, slots=True, repr=False)
class NamedType(LeanType):
    """A type name applied to zero or more arguments: ``Nat``, ``List Int``, ``Map Int Int``."""

    name: str
    args: tuple[LeanType, ...] = ()

    def _render(self, prec: int) -> str:
        if not self.args:
            return self.name
        text = " ".join([self.name, *(a._render(_PREC_ARG) for a in self.args)])
        return _paren(text, prec >= _PREC_ARG)


@dataclass(frozen=True, slots=True, repr=False)
class ProdType(LeanType):
    """``fst × snd`` (Lean's ``Prod fst snd``)."""

    fst: LeanType
    snd: LeanType

    def _render(self, prec: int) -> str:
        return _render_infix(self.fst, "×", self.snd, _PREC_PROD, prec)


@dataclass(frozen=True, slots=True, repr=False)
class FunType(LeanType):
    """``domain → codomain``."""

    domain: LeanType
    codomain: LeanType

    def _render(self, prec: int) -> str:
        return _render_infix(self.domain, "→", self.codomain, _PREC_FUN, prec)


@dataclass(frozen=True, slots=True)
class NatLitType(LeanType):
    """A numeric literal in argument position, as in ``Fin 5``."""

    value: int

    def _render(self, prec: int) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"NatLitType({self.value})"


@dataclass(frozen=True, slots=True, repr=False)
class SortType(LeanType):
    """A universe with its level: ``Type u``, ``Sort v``, ``Type (u+1)``. (Bare ``Type`` and ``Prop``
    are the names ``NamedType("Type")`` / ``NamedType("Prop")``, as task signatures always had them.)"""

    kind: str
    """``Type`` or ``Sort``."""
    level: str
    """The level as written: ``u``, ``u_1``, ``(max u v)``."""

    def _render(self, prec: int) -> str:
        return _paren(f"{self.kind} {self.level}", prec >= _PREC_ARG)


@dataclass(frozen=True, slots=True)
class PropType(LeanType):
    """A proposition, kept as its (whitespace-normalised) source text: ``i < xs.size``.

    It is the type of a proof binder (``(h : i < xs.size)``); the engine never inspects proofs,
    so the proposition is not parsed further."""

    text: str

    def _render(self, prec: int) -> str:
        return _paren(self.text, prec > _PREC_TOP)

    def __repr__(self) -> str:
        return f"PropType({self.text!r})"


NAT = NamedType("Nat")
INT = NamedType("Int")
BOOL = NamedType("Bool")
STRING = NamedType("String")
CHAR = NamedType("Char")
FLOAT = NamedType("Float")
UNIT = NamedType("Unit")
PROP = NamedType("Prop")
TYPE = NamedType("Type")


def type_head(ty: LeanType | None) -> str | None:
    """The constant at the head of a type, as field notation sees it: ``List`` for ``List α``,
    ``Prod`` for ``α × β``, ``Function`` for an arrow (``None`` for anything else)."""
    if isinstance(ty, NamedType):
        return ty.name
    if isinstance(ty, ProdType):
        return "Prod"
    if isinstance(ty, FunType):
        return "Function"
    return None


def list_of(elem: LeanType) -> NamedType:
    return NamedType("List", (elem,))


def array_of(elem: LeanType) -> NamedType:
    return NamedType("Array", (elem,))


def option_of(elem: LeanType) -> NamedType:
    return NamedType("Option", (elem,))


def prod_of(*components: LeanType) -> LeanType:
    """``prod_of(A, B, C)`` is ``A × B × C`` (that is, ``A × (B × C)``)."""
    if len(components) < 2:
        raise ValueError("a product needs at least two components")
    result = components[-1]
    for component in reversed(components[:-1]):
        result = ProdType(component, result)
    return result


def fun_of(*types: LeanType) -> LeanType:
    """``fun_of(A, B, C)`` is ``A → B → C``."""
    if len(types) < 2:
        raise ValueError("a function type needs a domain and a codomain")
    result = types[-1]
    for domain in reversed(types[:-1]):
        result = FunType(domain, result)
    return result


# Names whose arity we know; anything else (user structures, type variables) is unchecked.
BUILTIN_ARITY: dict[str, int] = {
    **{
        name: 0
        for name in (
            "Nat",
            "Int",
            "Bool",
            "String",
            "Char",
            "Float",
            "Unit",
            "UInt8",
            "UInt16",
            "UInt32",
            "UInt64",
            "USize",
        )
    },
    "List": 1,
    "Array": 1,
    "Option": 1,
    "Fin": 1,
    "Std.HashSet": 1,
    "HashSet": 1,
    "Prod": 2,
    "Std.HashMap": 2,
    "HashMap": 2,
}


# ---------------------------------------------------------------------------------------------
# Parsing


_TYPE_SYMBOLS = {"→": "arrow", "×": "times", "(": "lparen", ")": "rparen"}


# Signature types also meet binders, `∀`, universe levels and the operators of propositions.
_SIGNATURE_SYMBOLS = {"∀": "forall", ":": "colon", ",": "comma"}
_SIGNATURE_OPS = frozenset({"<=", ">=", "==", "!=", "<", ">", "≤", "≥", "≠", "=", "∣", "∈", "∉", "∧", "∨", "¬", "↔",
                            "+", "-", "*", "/", "%", "[", "]"})
_RELATIONS = frozenset({"<", ">", "<=", ">=", "≤", "≥", "≠", "=", "==", "!=", "∣", "∈", "∉", "∧", "∨", "¬", "↔"})


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str
    text: str
    pos: int


def _tokenize(text: str, signature: bool = False) -> list[_Tok]:
    """The tokens of type text, read by the shared Lean lexer (comments are Lean's, ``->`` is
    ``→``); only names, numerals, arrows, products and parentheses may appear -- and, in a
    signature, binders, ``∀`` and the operators of propositions."""
    lexed = lex(text)
    if lexed.problems:
        problem = lexed.problems[0]
        raise LeanTypeError(text, problem.start if problem.start is not None else 0, problem.message)
    tokens: list[_Tok] = []
    for tok in lexed.tokens:
        if tok.kind == EOF:
            tokens.append(_Tok("end", "", tok.offset))
        elif tok.kind in (IDENT, KEYWORD):
            tokens.append(_Tok("name", str(tok.value), tok.offset))
        elif tok.kind == NUM:
            tokens.append(_Tok("num", str(tok.value), tok.offset))
        elif tok.kind == SYM and tok.value in _TYPE_SYMBOLS:
            tokens.append(_Tok(_TYPE_SYMBOLS[tok.value], tok.text, tok.offset))
        elif signature and tok.kind == SYM and tok.value in _SIGNATURE_SYMBOLS:
            tokens.append(_Tok(_SIGNATURE_SYMBOLS[tok.value], tok.text, tok.offset))
        elif signature and tok.kind == SYM and tok.value in _SIGNATURE_OPS:
            tokens.append(_Tok("op", tok.text, tok.offset))
        else:
            shown = f"character {tok.text!r}" if len(tok.text) == 1 else repr(tok.text)
            raise LeanTypeError(text, tok.offset, f"unexpected {shown}")
    return tokens


class _TypeParser:
    """Recursive descent: fun := prod ('→' fun)? ; prod := app ('×' prod)? ; app := atom atom*."""

    def __init__(self, text: str, signature: bool = False) -> None:
        self.text = text
        self.signature = signature
        self.tokens = _tokenize(text, signature)
        self.i = 0

    def peek(self) -> _Tok:
        return self.tokens[self.i]

    def advance(self) -> _Tok:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def error(self, tok: _Tok, reason: str) -> LeanTypeError:
        return LeanTypeError(self.text, tok.pos, reason)

    def parse(self) -> LeanType:
        if self.peek().kind == "end":
            raise self.error(self.peek(), "empty type")
        ty = self.parse_fun()
        if self.peek().kind != "end":
            raise self.error(self.peek(), f"unexpected {self.peek().text!r}")
        return ty

    def parse_fun(self) -> LeanType:
        if self.signature:
            return self.parse_signature_fun()
        return self.arrow_tail(self.parse_prod())

    # -- signature types only ----------------------------------------------------------------
    def parse_signature_fun(self) -> LeanType:
        """``(x y : T) → U``, ``∀ (x : T), U``, a proposition, or ``prod (→ fun)?``."""
        tok = self.peek()
        if tok.kind == "forall":
            return self.parse_forall()
        binder = self.dependent_binder()
        if binder is not None:
            names, domain = binder
            body = self.parse_fun()
            for _ in names:
                body = FunType(domain, body)
            return body
        return self.arrow_tail(self.parse_proposition() or self.parse_prod())

    def arrow_tail(self, domain: LeanType) -> LeanType:
        """``domain`` alone, or ``domain → fun`` when an arrow follows."""
        if self.peek().kind == "arrow":
            self.advance()
            return FunType(domain, self.parse_fun())
        return domain

    def expect_rparen(self) -> None:
        close = self.advance()
        if close.kind != "rparen":
            raise self.error(close, f"expected ')' but found {close.text or 'end of text'!r}")

    def binder_names(self, error: str) -> int:
        """How many binder names stand before the next ``:`` (consumed too); raises ``error`` when
        there is none or no colon."""
        count = 0
        while self.peek().kind == "name":
            self.advance()
            count += 1
        colon = self.advance()
        if count == 0 or colon.kind != "colon":
            raise self.error(colon, error)
        return count

    def dependent_binder(self) -> tuple[list[str], LeanType] | None:
        """``(x y : T) →``: the names and ``T`` (the position is restored when it is not one)."""
        start = self.i
        if self.peek().kind != "lparen":
            return None
        self.advance()
        names: list[str] = []
        while self.peek().kind == "name":
            names.append(self.advance().text)
        if not names or self.peek().kind != "colon":
            self.i = start
            return None
        self.advance()
        domain = self.parse_fun()
        self.expect_rparen()
        arrow = self.advance()
        if arrow.kind != "arrow":
            raise self.error(arrow, "expected '→' after a binder")
        return names, domain

    def parse_forall(self) -> LeanType:
        """``∀ (x : T) (y : U), body`` (or ``∀ x y : T, body``), read as ``T → U → body``."""
        self.advance()
        domains: list[LeanType] = []
        while self.peek().kind == "lparen":
            self.advance()
            count = self.binder_names("expected a binder '(x : T)' after '∀'")
            domains.extend([self.parse_fun()] * count)
            self.expect_rparen()
        if not domains:
            count = self.binder_names("expected binders after '∀'")
            domains.extend([self.parse_prod()] * count)
        comma = self.advance()
        if comma.kind != "comma":
            raise self.error(comma, "expected ',' after the binders of '∀'")
        return fun_of(*domains, self.parse_fun())

    def parse_proposition(self) -> PropType | None:
        """The tokens up to the next arrow at this depth, as a :class:`PropType`, when they contain
        a relation (``i < n``, ``as ≠ []``, ``¬ p``); ``None`` (nothing consumed) otherwise."""
        depth = 0
        j = self.i
        relation = False
        while True:
            tok = self.tokens[j]
            if tok.kind == "end" or (depth == 0 and tok.kind in ("arrow", "rparen", "comma", "colon")):
                break
            if tok.kind == "lparen":
                depth += 1
            elif tok.kind == "rparen":
                depth -= 1
            elif tok.kind == "op" and depth == 0 and tok.text in _RELATIONS:
                relation = True
            j += 1
        if not relation:
            return None
        start = self.tokens[self.i].pos
        end = self.tokens[j].pos if self.tokens[j].kind != "end" else len(self.text)
        self.i = j
        return PropType(" ".join(self.text[start:end].split()))

    def parse_prod(self) -> LeanType:
        left = self.parse_app()
        if self.peek().kind == "times":
            self.advance()
            return ProdType(left, self.parse_prod())
        return left

    def parse_app(self) -> LeanType:
        head_tok = self.peek()
        head = self.parse_atom()
        args: list[LeanType] = []
        while self.peek().kind in ("name", "num", "lparen"):
            args.append(self.parse_atom())
        if not args:
            if isinstance(head, NamedType) and not head.args:
                self.check_arity(head_tok, head.name, 0)
            return head
        if not (isinstance(head, NamedType) and not head.args) or head_tok.kind != "name":
            raise self.error(head_tok, f"{str(head)!r} cannot be applied to arguments")
        self.check_arity(head_tok, head.name, len(args))
        if head.name == "Prod":
            return ProdType(args[0], args[1])
        return NamedType(head.name, tuple(args))

    def check_arity(self, tok: _Tok, name: str, count: int) -> None:
        expected = BUILTIN_ARITY.get(name)
        if expected is not None and expected != count:
            raise self.error(
                tok, f"{name} takes {expected} type argument{'s' if expected != 1 else ''}, got {count}"
            )

    def parse_atom(self) -> LeanType:
        tok = self.advance()
        if tok.kind == "name" and self.signature and tok.text in ("Type", "Sort") and self.peek().kind in ("name", "num", "lparen"):
            return SortType(tok.text, self.parse_level())
        if tok.kind == "name":
            return NamedType(tok.text)
        if tok.kind == "num":
            return NatLitType(int(tok.text))
        if tok.kind == "lparen":
            if self.peek().kind == "rparen":
                raise self.error(self.peek(), "empty parentheses")
            inner = self.parse_fun()
            self.expect_rparen()
            return inner
        if tok.kind == "end":
            raise self.error(tok, "unexpected end of type")
        raise self.error(tok, f"unexpected {tok.text!r}")


    def parse_level(self) -> str:
        """A universe level after ``Type``/``Sort``: a name, a numeral or a parenthesised expression."""
        tok = self.advance()
        if tok.kind != "lparen":
            return tok.text
        depth = 1
        start = tok.pos
        while depth:
            tok = self.advance()
            if tok.kind == "end":
                raise self.error(tok, "unclosed universe level")
            depth += {"lparen": 1, "rparen": -1}.get(tok.kind, 0)
        return " ".join(self.text[start : tok.pos + 1].split())


@lru_cache(maxsize=4096)
def parse_signature_type(text: str) -> LeanType:
    """Parse a type from a declaration's signature: what :func:`parse_type` reads, plus universe
    levels (``Type u``), dependent arrows (``(i : Nat) → i < n → α``), ``∀ (x : T), P`` and
    propositions (opaque :class:`PropType`). Binder names inside the type are not kept."""
    if not isinstance(text, str):
        raise LeanTypeError(repr(text), 0, "type text must be a string")
    return _TypeParser(text, signature=True).parse()


@lru_cache(maxsize=4096)
def parse_type(text: str) -> LeanType:
    """Parse Lean type text into its normal form; raises :class:`LeanTypeError`."""
    if not isinstance(text, str):
        raise LeanTypeError(repr(text), 0, "type text must be a string")
    return _TypeParser(text).parse()


def components(ty: LeanType) -> tuple[LeanType, ...]:
    """The types ``ty`` is built from: a name's arguments, a product's two sides, an arrow's domain
    and codomain (``()`` for anything else)."""
    if isinstance(ty, NamedType):
        return ty.args
    if isinstance(ty, ProdType):
        return (ty.fst, ty.snd)
    if isinstance(ty, FunType):
        return (ty.domain, ty.codomain)
    return ()


def map_components(ty: LeanType, f: Callable[[LeanType], LeanType]) -> LeanType:
    """``ty`` with ``f`` applied to each of its :func:`components` (``ty`` itself when it has none)."""
    if isinstance(ty, NamedType) and ty.args:
        return NamedType(ty.name, tuple(f(a) for a in ty.args))
    if isinstance(ty, ProdType):
        return ProdType(f(ty.fst), f(ty.snd))
    if isinstance(ty, FunType):
        return FunType(f(ty.domain), f(ty.codomain))
    return ty


def substitute(ty: LeanType, mapping: Mapping[str, LeanType]) -> LeanType:
    """Replace bare type names (type parameters such as ``K``) by the types they stand for."""
    if isinstance(ty, NamedType) and not ty.args:
        return mapping.get(ty.name, ty)
    return map_components(ty, lambda a: substitute(a, mapping))


# ---------------------------------------------------------------------------------------------
# Structures


@dataclass(frozen=True, slots=True)
class StructField:
    name: str
    type: LeanType


@dataclass(frozen=True, slots=True)
class StructDef:
    """A ``structure`` declaration: its name, explicit type parameters, and fields in order."""

    name: str
    params: tuple[str, ...]
    fields: tuple[StructField, ...]

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def fields_for(self, ty: LeanType) -> tuple[StructField, ...]:
        """The fields with the type parameters replaced by the arguments of ``ty``."""
        if not isinstance(ty, NamedType) or ty.name != self.name:
            raise ValueError(f"{ty} is not an instance of structure {self.name}")
        if len(ty.args) != len(self.params):
            raise ValueError(
                f"structure {self.name} takes {len(self.params)} type arguments, {ty} gives {len(ty.args)}"
            )
        mapping = dict(zip(self.params, ty.args))
        return tuple(StructField(f.name, substitute(f.type, mapping)) for f in self.fields)

    def field_type(self, ty: LeanType, field: str) -> LeanType:
        for f in self.fields_for(ty):
            if f.name == field:
                return f.type
        raise KeyError(f"structure {self.name} has no field {field!r}")


_STRUCT_HEAD = re.compile(
    r"^structure[ \t]+(?P<name>[^\W\d][\w'.]*)(?P<binders>.*?)(?:[ \t]+extends[ \t].*?)?"
    r"(?:[ \t]*:[ \t]*(?:Type|Sort)(?:[ \t]+[\w*]+)?)?[ \t]+where[ \t]*(?:--.*)?$",
    re.MULTILINE,
)
_BINDER = re.compile(r"\(([^():]*):([^()]*)\)|\[[^\]]*\]|\{[^}]*\}|⦃[^⦄]*⦄")
_FIELD = re.compile(r"^(?P<names>[^\W\d][\w']*(?:[ \t]+[^\W\d][\w']*)*)[ \t]*:(?!=)[ \t]*(?P<type>.+)$")
_CTOR_LINE = re.compile(r"^[^\W\d][\w']*[ \t]*::[ \t]*$")


def _blank_comments(text: str) -> str:
    """``text`` with every comment (as the shared Lean lexer reads them: nested block comments,
    ``--`` outside strings) replaced by spaces; line breaks and offsets are kept."""
    comments = lex(text).comments
    if not comments:
        return text
    pieces: list[str] = []
    done = 0
    for comment in comments:
        pieces.append(text[done : comment.offset])
        pieces.append("".join("\n" if ch == "\n" else " " for ch in comment.text))
        done = comment.end
    pieces.append(text[done:])
    return "".join(pieces)


def _parse_binders(text: str, decl: str, offset: int) -> tuple[str, ...]:
    """Explicit ``(K V : Type)`` binders become parameters; instance/implicit binders are skipped."""
    params: list[str] = []
    pos = 0
    stripped = text.strip()
    while pos < len(stripped):
        if stripped[pos].isspace():
            pos += 1
            continue
        m = _BINDER.match(stripped, pos)
        if m is None:
            raise LeanTypeError(decl, offset + text.find(stripped) + pos, "unsupported structure binder")
        if m.group(1) is not None:
            params.extend(m.group(1).split())
        pos = m.end()
    return tuple(params)


def parse_structures(lean_source: str) -> dict[str, StructDef]:
    """Extract ``structure Name (params) where field : Type ...`` declarations from Lean source.

    Handles explicit type-parameter binders (``(K V : Type)``), instance binders (``[BEq K]``,
    skipped), an optional ``mk ::`` constructor line, several names per field line
    (``x y : Int``), default values (``:= ...``, ignored), comments, and a trailing ``deriving``
    clause. The field block ends at the first non-indented line.
    """
    result: dict[str, StructDef] = {}
    original = lean_source
    lean_source = _blank_comments(lean_source)  # same offsets, comments turned into spaces
    for head in _STRUCT_HEAD.finditer(lean_source):
        name = head.group("name")
        params = _parse_binders(head.group("binders"), head.group(0), head.start("binders") - head.start())
        fields: list[StructField] = []
        pos = head.end() + 1
        while pos < len(lean_source):
            end = lean_source.find("\n", pos)
            end = len(lean_source) if end < 0 else end
            raw_line = lean_source[pos:end]
            line_start = pos
            pos = end + 1
            line = raw_line
            if not line.strip():
                continue
            if not line[0].isspace():
                break  # `deriving ...`, the next declaration, or the end of the block
            body = line.strip()
            if _CTOR_LINE.match(body):
                continue
            body = body.split(":=", 1)[0].rstrip()
            m = _FIELD.match(body)
            if m is None:
                raise LeanTypeError(original[line_start:end], 0, f"cannot read a field of structure {name}")
            try:
                field_type = parse_type(m.group("type").strip())
            except LeanTypeError as exc:
                raise LeanTypeError(
                    original,
                    line_start + raw_line.find(m.group("type")) + exc.position,
                    f"in a field of structure {name}: {exc.reason}",
                ) from exc
            for field_name in m.group("names").split():
                fields.append(StructField(field_name, field_type))
        result[name] = StructDef(name, params, tuple(fields))
    return result

