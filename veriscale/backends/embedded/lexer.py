"""Tokenizer for the Lean 4 subset the embedded engine reads.

It follows Lean's own lexical rules where they matter for parsing real code:

* identifiers may contain letters (including Greek and letter-like symbols such as ``ℕ``),
  digits, ``_``, ``'``, ``!`` and ``?`` after the first character, and dotted components
  (``List.foldl``, ``h.1``) are part of one identifier token;
* ``«...»`` quotes an identifier component;
* comments are ``--`` to end of line and nested ``/- ... -/`` (doc comments included);
* numeric literals are decimal (with ``_`` separators), ``0x``/``0o``/``0b``, and scientific
  (``1.5``, ``1e-3``, and ``2.``: a ``.`` after digits always belongs to the numeral);
* string literals support Lean's escapes (``\\ \\" \\' n t r``, ``\\xHH``, ``\\uHHHH``; no
  ``\\0``) and ``\\`` line gaps; raw strings ``r"..."``/``r#"..."#`` have no escapes; ``s!"..{e}.."`` is
  one token carrying its literal pieces and the source text of each interpolated expression;
* a ``'`` starts a character literal unless it directly follows ``]`` (``xs[i]'h``).

Every token records its line (1-based), column (0-based, in code points, as Lean reports them),
its character offset in the source, and whether whitespace precedes it -- Lean's grammar depends on
that (``f (x)`` is an application, ``xs[i]`` is indexing only without a space, ``x.f`` is a field
access only without spaces around the dot).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any


class LeanSyntaxError(Exception):
    """A lexing or parsing error at ``line`` (1-based) and ``col`` (0-based, like Lean)."""

    def __init__(self, line: int, col: int, message: str) -> None:
        self.line = line
        self.col = col
        self.message = message
        super().__init__(f"{line}:{col}: {message}")


# Token kinds
IDENT = "ident"
KEYWORD = "keyword"
NUM = "num"
SCI = "sci"
STR = "str"
CHAR = "char"
INTERP = "interp"
SYM = "sym"
FIELD = "field"  # `.name` / `.1` directly after a term (no whitespace before the dot)
DOTIDENT = "dotident"  # `.name` in leading position (`.some x`)
EOF = "eof"
ERROR = "error"  # a lexical error, kept in the token stream by `tokenize(..., recover=True)`

KEYWORDS = frozenset(
    {
        "def", "theorem", "lemma", "abbrev", "structure", "inductive", "instance", "class",
        "where", "with", "match", "fun", "let", "have", "show", "from", "if", "then", "else",
        "do", "for", "in", "while", "return", "break", "continue", "mut", "by", "at",
        "deriving", "termination_by", "decreasing_by", "open", "namespace", "end", "section",
        "mutual", "private", "protected", "partial", "noncomputable", "unsafe", "example",
        "import", "variable", "universe", "set_option", "attribute", "macro", "macro_rules",
        "syntax", "notation", "infix", "infixl", "infixr", "prefix", "postfix", "unless",
        "repeat", "try", "catch", "finally", "Type", "Sort", "Prop", "nomatch", "nofun", "calc",
        "suffices", "extends", "forall", "exists", "sorry", "panic!", "assert!", "dbg_trace",
        "unreachable!", "export", "axiom", "opaque", "elab", "local", "scoped", "omit",
        "include", "initialize", "builtin_initialize",
    }
)
"""Reserved words. ``rec`` is not reserved in Lean (it is matched after ``let``)."""

COMMAND_KEYWORDS = frozenset(
    {
        "def", "theorem", "lemma", "abbrev", "structure", "inductive", "instance", "class",
        "private", "protected", "noncomputable", "partial", "unsafe", "open", "namespace", "end",
        "section", "mutual", "example", "import", "variable", "universe", "set_option",
        "attribute", "macro", "macro_rules", "syntax", "notation", "infix", "infixl", "infixr",
        "prefix", "postfix", "export", "axiom", "opaque", "elab", "local", "scoped", "omit",
        "include", "initialize", "builtin_initialize",
    }
)
"""Keywords that start a top-level command when they begin a line."""

# A line where lexing resumes after a lexical error: one that starts a command.
_COMMAND_LINE = re.compile(
    r"^(?:@\[|#[A-Za-z]|deriving\s+instance\b|(?:"
    + "|".join(sorted(COMMAND_KEYWORDS, key=len, reverse=True))
    + r")(?![\w'!?]))",
    re.MULTILINE,
)

# Longest match first. ASCII alternatives are normalised to the unicode spelling in `value`.
_SYMBOLS = sorted(
    [
        ":=", "=>", "->", "<-", "<->", "<|", "|>.", "|>", "<|>", "::", "++", "==", "!=", "<=",
        ">=", "&&", "||", "/\\", "\\/", "#[", "@[", "..", "...", ">>=", "<$>", "<*>", "<*", "*>",
        ">>", "<<<", ">>>", "|||", "&&&", "^^^", "^^", "×'", "⊕'", "+=", "-=", "*=", "%[", "⦃", "⦄",
        "(", ")", "[", "]", "{", "}", "⟨", "⟩", ",", ":", ";", "|", ".", "@", "$", "+", "-",
        "*", "/", "%", "^", "<", ">", "=", "!", "?", "∘", "×", "∈", "∉", "∣", "↑", "·", "▸",
        "_", "→", "←", "↔", "∧", "∨", "¬", "∀", "∃", "λ", "≠", "≤", "≥", "∑", "∏", "∩", "∪",
        "⊆", "⊂", "\\", "≈", "'", "#", "&", "∅", "⁻¹", "•", "∃!", "≍", "~~~", "⋯", "∞",
    ],
    key=len,
    reverse=True,
)
_SYMBOL_FIRST = {s[0] for s in _SYMBOLS}
_NORMALISE = {"->": "→", "<-": "←", "<->": "↔", "/\\": "∧", "\\/": "∨", "<=": "≤", ">=": "≥"}


@dataclass(slots=True)
class Token:
    kind: str
    text: str
    """The source text of the token."""
    value: Any
    """Identifier: the name (str); num: int; sci: (mantissa, exponent10) as ints; str/char:
    the decoded text; sym/keyword: the normalised symbol; interp: list of parts."""
    line: int
    col: int
    offset: int
    end: int
    """Character offset just past the token."""
    space_before: bool
    newline_before: bool = False
    parts: tuple[str, ...] = field(default=())
    """For identifiers: the dotted components."""

    def is_sym(self, *symbols: str) -> bool:
        return self.kind == SYM and self.value in symbols

    def is_kw(self, *words: str) -> bool:
        return self.kind == KEYWORD and self.value in words

    def describe(self) -> str:
        if self.kind == EOF:
            # the end of one command of a file carries the text of the token that follows it
            return f"'{self.value}'" if self.value else "end of input"
        return f"'{self.text}'"


@dataclass(frozen=True, slots=True)
class InterpPiece:
    """One ``{expr}`` of an interpolated string: its source text and where it starts."""

    text: str
    line: int
    col: int
    offset: int


def _is_letter_like(c: str) -> bool:
    cp = ord(c)
    if (0x3B1 <= cp <= 0x3C9 and cp != 0x3BB) or (0x391 <= cp <= 0x3A9 and cp not in (0x3A0, 0x3A3)):
        return True  # Greek, except λ, Π, Σ which are notation
    if 0x3CA <= cp <= 0x3FB or 0x1F00 <= cp <= 0x1FFE:
        return True
    if 0x2100 <= cp <= 0x214F:  # letter-like symbols (ℕ, ℤ, ...)
        return True
    if 0x1D49C <= cp <= 0x1D59F:  # script / double-struck / fraktur
        return True
    return False


def _is_subscript(c: str) -> bool:
    cp = ord(c)
    return 0x2080 <= cp <= 0x2089 or 0x2090 <= cp <= 0x209C or 0x1D62 <= cp <= 0x1D6A or cp == 0x2C7C


def is_id_first(c: str) -> bool:
    if c.isascii():
        return c.isalpha() or c == "_"
    if _is_letter_like(c):
        return True
    if c in "λΠΣ":
        return False
    return unicodedata.category(c) in ("Lu", "Ll", "Lt", "Lm", "Lo") and not (0x370 <= ord(c) <= 0x3FF)


def is_id_rest(c: str) -> bool:
    if c.isascii():
        return c.isalnum() or c in "_'!?"
    return is_id_first(c) or _is_subscript(c)


# Lean's `isQuotableCharDefault`: only these characters follow a backslash directly (plus the
# `\xHH` / `\uHHHH` forms and, in strings, a line gap). There is no `\0`.
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r"}


def _ends_term(tok: Token) -> bool:
    """Can ``tok`` end a term, so that a directly following ``.name`` is a field access?"""
    if tok.kind in (IDENT, NUM, SCI, STR, CHAR, INTERP, FIELD, DOTIDENT):
        return True
    return tok.kind == SYM and tok.value in (")", "]", "⟩", "}", "!", "?", "·")


class _Lexer:
    def __init__(self, text: str, line: int = 1, col: int = 0, offset: int = 0, recover: bool = False) -> None:
        self.recover = recover
        self.src = text
        self.pos = 0
        self.line = line
        self.col = col
        self.base_offset = offset
        self.tokens: list[Token] = []

    def error(self, message: str, line: int | None = None, col: int | None = None) -> LeanSyntaxError:
        return LeanSyntaxError(self.line if line is None else line, self.col if col is None else col, message)

    def advance(self, n: int = 1) -> None:
        src = self.src
        for _ in range(n):
            if src[self.pos] == "\n":
                self.line += 1
                self.col = 0
            else:
                self.col += 1
            self.pos += 1

    def peek(self, k: int = 0) -> str:
        p = self.pos + k
        return self.src[p] if p < len(self.src) else ""

    def skip_block_comment(self) -> None:
        start_line, start_col = self.line, self.col
        depth = 0
        src = self.src
        while self.pos < len(src):
            if src.startswith("/-", self.pos):
                depth += 1
                self.advance(2)
            elif src.startswith("-/", self.pos):
                depth -= 1
                self.advance(2)
                if depth == 0:
                    return
            else:
                self.advance()
        raise self.error("unterminated comment", start_line, start_col)

    def run(self) -> list[Token]:
        src = self.src
        n = len(src)
        space = True
        newline = True
        while True:
            try:
                # whitespace and comments
                while self.pos < n:
                    c = src[self.pos]
                    if c in " \t\r\n":
                        if c == "\n":
                            newline = True
                        space = True
                        self.advance()
                    elif src.startswith("--", self.pos):
                        while self.pos < n and src[self.pos] != "\n":
                            self.advance()
                        space = True
                    elif src.startswith("/-", self.pos):
                        self.skip_block_comment()
                        space = True
                    else:
                        break
                if self.pos >= n:
                    self.tokens.append(
                        Token(EOF, "", None, self.line, self.col, self.base_offset + n, self.base_offset + n, space, newline)
                    )
                    return self.tokens
                tok = self.lex_one(space)
            except LeanSyntaxError as exc:
                if not self.recover:
                    raise
                at = self.base_offset + self.pos
                self.tokens.append(Token(ERROR, "", exc, exc.line, exc.col, at, at, space, newline))
                self.skip_to_next_command()
                space = newline = True
                continue
            tok.newline_before = newline
            self.tokens.append(tok)
            space = False
            newline = False

    def skip_to_next_command(self) -> None:
        """After a lexical error: resume at the next line that starts a command, as Lean resumes
        at the next command. An error that ran to the end of the input (an unterminated string or
        comment) swallows the rest, as it does in Lean."""
        if self.pos >= len(self.src):
            return
        newline = self.src.find("\n", self.pos)
        found = _COMMAND_LINE.search(self.src, newline + 1) if newline >= 0 else None
        target = found.start() if found is not None else len(self.src)
        self.advance(target - self.pos)

    def make(self, kind: str, start: int, line: int, col: int, value: Any, space: bool, parts: tuple[str, ...] = ()) -> Token:
        return Token(
            kind, self.src[start : self.pos], value, line, col, self.base_offset + start,
            self.base_offset + self.pos, space, False, parts,
        )

    def lex_one(self, space: bool) -> Token:
        src = self.src
        c = src[self.pos]
        start, line, col = self.pos, self.line, self.col
        prev = self.tokens[-1] if self.tokens else None
        # interpolated string s!"..."
        if c in "sfm" and self.peek(1) == "!" and self.peek(2) == '"':
            self.advance(2)
            pieces = self.lex_string(interpolated=True)
            return self.make(INTERP, start, line, col, pieces, space)
        if c == "r" and self.raw_string_hashes() is not None:
            value = self.lex_raw_string()
            return self.make(STR, start, line, col, value, space)
        if is_id_first(c) or c == "«":
            return self.lex_ident(space)
        if c.isdigit():
            return self.lex_number(space)
        if c == '"':
            value = self.lex_string(interpolated=False)
            return self.make(STR, start, line, col, value, space)
        if c == "'" and not (prev is not None and prev.is_sym("]") and not space):
            # Lean's tokenFnAux: a `'` that does not follow `]` (the `]'` of `xs[i]'h`) and is not
            # followed by another `'` always starts a character literal
            if self.peek(1) != "'":
                return self.make(CHAR, start, line, col, self.char_literal(), space)
        if c == "." and not space and prev is not None and _ends_term(prev):
            nxt = self.peek(1)
            if nxt and (is_id_first(nxt) or nxt.isdigit() or nxt == "«"):
                self.advance()
                return self.lex_field(start, line, col, space)
        if c == "." and self.peek(1) and (is_id_first(self.peek(1)) or self.peek(1) == "«"):
            # leading-dot identifier `.some`
            self.advance()
            ident = self.lex_ident(space)
            return Token(DOTIDENT, src[start : self.pos], ident.value, line, col, self.base_offset + start,
                         self.base_offset + self.pos, space, False, ident.parts)
        if c == "." and self.peek(1) in (" ", "\t", "\n", ")", "") :
            # `.` followed by whitespace is the cdot `·`
            self.advance()
            return self.make(SYM, start, line, col, "·", space)
        if c in _SYMBOL_FIRST:
            for sym in _SYMBOLS:
                if src.startswith(sym, self.pos):
                    self.advance(len(sym))
                    value = _NORMALISE.get(sym, sym)
                    return self.make(SYM, start, line, col, value, space)
        # any other character: a one-character symbol (e.g. rare unicode notation)
        self.advance()
        return self.make(SYM, start, line, col, c, space)

    def lex_ident_part(self) -> str:
        src = self.src
        if src[self.pos] == "«":
            end = src.find("»", self.pos)
            if end < 0:
                raise self.error("unterminated «identifier»")
            part = src[self.pos + 1 : end]
            self.advance(end + 1 - self.pos)
            return part
        begin = self.pos
        self.advance()
        while self.pos < len(src) and is_id_rest(src[self.pos]):
            self.advance()
        return src[begin : self.pos]

    def lex_ident(self, space: bool) -> Token:
        start, line, col = self.pos, self.line, self.col
        parts = [self.lex_ident_part()]
        src = self.src
        while self.peek() == "." and self.peek(1) and (is_id_first(self.peek(1)) or self.peek(1) == "«" or self.peek(1).isdigit()):
            if self.peek(1).isdigit():
                # `x.1`: a numeric projection component
                self.advance()
                begin = self.pos
                while self.pos < len(src) and src[self.pos].isdigit():
                    self.advance()
                parts.append(src[begin : self.pos])
                continue
            self.advance()
            parts.append(self.lex_ident_part())
        name = ".".join(parts)
        if len(parts) == 1 and name in KEYWORDS and src[start] != "«":
            return self.make(KEYWORD, start, line, col, name, space)
        if len(parts) == 1 and name.endswith("!") and name[:-1] in ("panic", "assert", "unreachable"):
            return self.make(KEYWORD, start, line, col, name, space)
        return self.make(IDENT, start, line, col, name, space, tuple(parts))

    def lex_field(self, start: int, line: int, col: int, space: bool) -> Token:
        src = self.src
        parts: list[str] = []
        while True:
            if self.peek().isdigit():
                begin = self.pos
                while self.pos < len(src) and src[self.pos].isdigit():
                    self.advance()
                parts.append(src[begin : self.pos])
            else:
                parts.append(self.lex_ident_part())
            if self.peek() == "." and self.peek(1) and (is_id_first(self.peek(1)) or self.peek(1).isdigit() or self.peek(1) == "«"):
                self.advance()
                continue
            break
        return self.make(FIELD, start, line, col, ".".join(parts), space, tuple(parts))

    def lex_number(self, space: bool) -> Token:
        src = self.src
        start, line, col = self.pos, self.line, self.col
        if src[self.pos] == "0" and self.peek(1) in ("x", "X", "b", "B", "o", "O"):
            base = {"x": 16, "b": 2, "o": 8}[self.peek(1).lower()]
            self.advance(2)
            begin = self.pos
            while self.pos < len(src) and (src[self.pos].isalnum() or src[self.pos] == "_"):
                self.advance()
            digits = src[begin : self.pos].replace("_", "")
            try:
                value = int(digits, base)
            except ValueError:
                raise self.error(f"invalid numeral {src[start:self.pos]!r}", line, col) from None
            return self.make(NUM, start, line, col, value, space)
        int_digits = self.take_digits()
        frac = ""
        is_sci = False
        if self.peek() == ".":
            # Lean's `decimalNumberFn` consumes a '.' after the digits even when no digit follows
            # (`2.` is the scientific literal 2.0, and `2.foo` is `2.` followed by `foo`).
            self.advance()
            if self.peek().isdigit():
                frac = self.take_digits()
            is_sci = True
        exponent = 0
        if self.peek() in ("e", "E"):
            # `parseOptExp`: once an 'e' follows a numeral, exponent digits are mandatory.
            self.advance()
            sign = 1
            if self.peek() in ("+", "-"):
                sign = -1 if self.peek() == "-" else 1
                self.advance()
            if not self.peek().isdigit():
                raise self.error("missing exponent digits in scientific literal")
            exponent = sign * int(self.take_digits())
            is_sci = True
        if not is_sci:
            return self.make(NUM, start, line, col, int(int_digits), space)
        mantissa = int(int_digits + frac)
        return self.make(SCI, start, line, col, (mantissa, exponent - len(frac)), space)

    def take_digits(self) -> str:
        """Decimal digits with Lean's ``_`` separators (each ``_`` must be followed by a digit)."""
        src = self.src
        begin = self.pos
        while self.pos < len(src) and (src[self.pos].isdigit() or src[self.pos] == "_"):
            if src[self.pos] == "_" and not (self.peek(1).isdigit() or self.peek(1) == "_"):
                self.advance()
                raise self.error("unexpected character; expected decimal number")
            self.advance()
        return src[begin : self.pos].replace("_", "")

    def read_escape(self) -> str:
        # at the character after the backslash
        c = self.peek()
        if c in _ESCAPES:
            self.advance()
            return _ESCAPES[c]
        if c == "x":
            digits = self.src[self.pos + 1 : self.pos + 3]
            if len(digits) != 2 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise self.error("invalid \\x escape")
            self.advance(3)
            return chr(int(digits, 16))
        if c == "u":
            digits = self.src[self.pos + 1 : self.pos + 5]
            if len(digits) != 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise self.error("invalid \\u escape")
            self.advance(5)
            return chr(int(digits, 16))
        raise self.error(f"invalid escape sequence \\{c}")

    def lex_string(self, interpolated: bool) -> Any:
        """At the opening quote. Returns the decoded text, or the list of pieces if interpolated."""
        src = self.src
        start_line, start_col = self.line, self.col
        self.advance()  # opening quote
        pieces: list[str | InterpPiece] = []
        buf: list[str] = []
        while True:
            if self.pos >= len(src):
                raise self.error("unterminated string literal", start_line, start_col)
            c = src[self.pos]
            if c == '"':
                self.advance()
                break
            if c == "\\":
                self.advance()
                if self.peek() == "\n":
                    # string gap: backslash-newline skips the following indentation
                    self.advance()
                    while self.peek() in (" ", "\t"):
                        self.advance()
                    continue
                if interpolated and self.peek() in "{}":
                    buf.append(self.peek())
                    self.advance()
                    continue
                buf.append(self.read_escape())
                continue
            if interpolated and c == "{":
                if buf:
                    pieces.append("".join(buf))
                    buf = []
                self.advance()
                begin, line, col = self.pos, self.line, self.col
                depth = 1
                while self.pos < len(src):
                    ch = src[self.pos]
                    if ch == "{":
                        depth += 1
                    elif ch == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    elif ch == '"':
                        # a nested string literal inside the interpolation
                        self.lex_string(interpolated=False)
                        continue
                    self.advance()
                if self.pos >= len(src):
                    raise self.error("unterminated interpolation", line, col)
                pieces.append(InterpPiece(src[begin : self.pos], line, col, self.base_offset + begin))
                self.advance()  # closing brace
                continue
            buf.append(c)
            self.advance()
        if not interpolated:
            return "".join(buf)
        if buf:
            pieces.append("".join(buf))
        return pieces

    def raw_string_hashes(self) -> int | None:
        """At an ``r``: the number of ``#`` of a raw string literal starting here (``r"``,
        ``r#"``, ...), or ``None`` when this is not one (Lean's ``isRawStrLitStart``)."""
        k = 1
        while self.peek(k) == "#":
            k += 1
        return k - 1 if self.peek(k) == '"' else None

    def lex_raw_string(self) -> str:
        """``r"..."`` / ``r#"..."#``: no escapes; with n hashes the literal ends at ``"`` followed
        by n hashes (Lean's ``rawStrLitFnAux``)."""
        start_line, start_col = self.line, self.col
        hashes = self.raw_string_hashes() or 0
        self.advance(2 + hashes)  # r, hashes, opening quote
        closing = '"' + "#" * hashes
        end = self.src.find(closing, self.pos)
        if end < 0:
            raise self.error("unterminated raw string literal", start_line, start_col)
        value = self.src[self.pos : end]
        self.advance(end + len(closing) - self.pos)
        return value

    def char_literal(self) -> str:
        """At the opening ``'``: one character or escape, then the closing ``'``
        (Lean's ``charLitFnAux``)."""
        self.advance()
        if self.pos >= len(self.src):
            raise self.error("unterminated character literal")
        if self.peek() == "\\":
            self.advance()
            ch = self.read_escape()
        else:
            ch = self.peek()
            self.advance()
        if self.peek() != "'":
            raise self.error("missing end of character literal")
        self.advance()
        return ch


def tokenize(text: str, line: int = 1, col: int = 0, offset: int = 0, recover: bool = False) -> list[Token]:
    """Split ``text`` into tokens ending with an ``EOF`` token. Raises :class:`LeanSyntaxError`,
    unless ``recover``: then each lexical error becomes an ``ERROR`` token (its value is the
    error) and lexing resumes at the next line that starts a command.

    ``line``/``col``/``offset`` give the position of ``text`` inside a larger file, so that a
    fragment (an interpolated expression, a section body) reports positions of the whole file.
    """
    return _Lexer(text, line, col, offset, recover).run()
