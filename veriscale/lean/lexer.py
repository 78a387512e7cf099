"""The one Lean 4 lexer: every reader of Lean text in VeriScale tokenizes here.

The embedded engine's parser, the safety screen and the values reader share it, so they agree with
each other -- and with Lean -- on what is code, what is a comment and what is a literal. Each rule
is Lean 4's (v4.24), from the function that decides it (``Lean/Parser/Basic.lean`` unless said):

* **Whitespace** (``whitespace``): only ``' '`` and ``'\\n'``; a ``'\\r\\n'`` pair counts as
  ``'\\n'`` because Lean normalizes line endings before parsing (``String.crlfToLf`` in
  ``mkInputContext``). A tab or an isolated ``'\\r'`` between tokens is an error.
* **Comments start only where a token may start**: ``whitespace`` runs after every token, so
  ``--`` and ``/-`` begin a comment there and nowhere else -- ``x <--1`` is ``<-``, ``-``, ``1``
  because the longest token ``<-`` swallows the first ``-``.
* **Line comments** ``--`` run up to ``'\\n'`` only (``takeUntilFn (· = '\\n')``).
* **Block comments** ``/- ... -/``: the character right after ``/-`` is consumed without being
  looked at (``whitespace`` calls ``s.next`` on it), then ``finishCommentBlock`` scans with
  nesting 1: ``-/`` closes one level, ``/-`` opens one, anything else -- ``--`` included -- is
  text. So ``/-/-/ True ∨ -- -/`` is the comment ``/-/-/``, the code ``True ∨``, and the line
  comment ``-- -/``. An unterminated comment is reported at the end of the input.
* **Doc comments** ``/-- ... -/`` and **module docs** ``/-! ... -/`` are tokens for Lean
  (``docComment``, ``moduleDoc``), with the same body scan; here they are recorded as comments of
  kind ``doc``/``module_doc`` and, like other comments, not put in the token stream.
* **Identifiers** (``identFnAux``; ``isIdFirst``/``isIdRest``/``isLetterLike``/
  ``isSubScriptAlnum`` in ``Init/Meta.lean``): ASCII letters, ``_``, Greek (but ``λ Π Σ``),
  Coptic, letter-like symbols, Latin-1 and Latin Extended-A letters first; then also ASCII
  digits, ``' ! ?`` and sub-scripts. ``«...»`` quotes a component (anything but ``»``). A ``.``
  continues the name only when an identifier character or ``«`` follows. A reserved word is a
  keyword unless written with guillemets (``mkIdResult``: the token wins when it is at least as
  long as the identifier).
* **Numbers** (``numberFnAux``, ``decimalNumberFn``, ``takeDigitsFn``): ``0b``/``0o``/``0x``
  need a digit; ``_`` separates digits and must be followed by one; a ``.`` after decimal digits
  always belongs to the numeral (``2.`` is scientific); after ``e``/``E`` (and a sign) a digit is
  mandatory. Only ASCII digits are digits.
* **Strings** (``strLitFnAux``, ``quotedCharCoreFn``, ``isQuotableCharDefault``,
  ``stringGapFn``): escapes ``\\\\ \\" \\' \\r \\n \\t``, ``\\xHH``, ``\\uHHHH`` (exactly four
  digits; there is no ``\\0`` and no ``\\u{...}``), and a gap: backslash, newline, then whitespace
  with no second newline. ``\\u`` of a non-scalar value decodes to ``'\\0'`` (``Char.ofNat``,
  ``decodeQuotedChar`` in ``Init/Meta.lean``); such escapes are listed in :attr:`LexResult.notes`.
* **Characters** (``charLitFnAux``): ``'`` not followed by ``'`` starts one: one character or
  escape (no gaps), then ``'``.
* **Raw strings** (``isRawStrLitStart``, ``rawStrLitFnAux``): ``r"..."``, ``r#"..."#``: no
  escapes; with n hashes the literal ends at ``"`` followed by n hashes.
* **Interpolated strings** (``interpolatedStrFn``, ``Lean/Parser/StrInterpolation.lean``): after
  the tokens ``s!``, ``f!``, ``m!`` (whitespace may follow them); ``{`` starts a term that ends at
  its ``}`` -- found here by lexing the term, so strings, characters and comments inside it are
  read as such -- and ``\\{`` is an escape.
* **Symbols**: the longest match in a token table holding core Lean's tokens that the engine and
  the screen need (every core token with ``-`` or ``/`` after its first character is in it, since
  those decide where comments start).

Deliberate differences from Lean's token stream, kept for the engine's parser: ``x.1`` stays one
identifier with the component ``"1"`` (Lean reads a projection: same meaning); ``.name`` directly
after a term is a ``field`` token and ``.name`` elsewhere a ``dotident`` token; ``.`` before
whitespace is the cdot ``·``; Lean's tokens ``]'`` and ``//`` come out as ``]``, ``'`` and ``/``,
``/``; ASCII spellings of symbols are normalised in ``value`` (``->`` is ``→``); a character no
token starts with is a one-character symbol (Lean's token table, which grows with imports, decides
whether it is an error).

Every token records its line (1-based), column (0-based, in code points, as Lean reports them),
offsets in the source, and whether whitespace or a comment precedes it -- Lean's grammar depends
on that (``f (x)`` is an application, ``xs[i]`` indexing only without a space, ``x.f`` a field
access only without spaces around the dot).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CHAR",
    "COMMAND_KEYWORDS",
    "DOTIDENT",
    "EOF",
    "ERROR",
    "FIELD",
    "IDENT",
    "INTERP",
    "KEYWORD",
    "KEYWORDS",
    "NUM",
    "SCI",
    "STR",
    "SYM",
    "Comment",
    "InterpPiece",
    "LeanSyntaxError",
    "LexResult",
    "Token",
    "is_id_first",
    "is_id_rest",
    "is_letter_like",
    "is_subscript_alnum",
    "lex",
    "string_literal_end",
    "strip_comments",
    "tokenize",
]


class LeanSyntaxError(Exception):
    """A lexing or parsing error at ``line`` (1-based) and ``col`` (0-based, like Lean).

    ``offset`` is the character offset of that position when known, ``start`` the offset where the
    construct in error begins (an unterminated comment is reported at the end of the input, as
    Lean does, but begins at its ``/-``).
    """

    def __init__(
        self, line: int, col: int, message: str, offset: int | None = None, start: int | None = None
    ) -> None:
        self.line = line
        self.col = col
        self.message = message
        self.offset = offset
        self.start = offset if start is None else start
        self.resume_index: int | None = None
        """For the lexer: the index of its input from which lexing may resume."""
        self.lean_rejects = False
        """Lean's own parser fails here too (a rule of Lean's grammar, not a limit of this parser)."""
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
ERROR = "error"  # a lexical error, kept in the token stream when lexing recovers

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
        "include", "initialize", "builtin_initialize", "haveI", "letI",
    }
)  # fmt: skip
"""Reserved words. ``rec`` is not reserved in Lean (it is matched after ``let``). ``haveI``/``letI``
are tokens of Lean's builtin term parsers ``Lean.Parser.Term.haveI``/``letI``."""

COMMAND_KEYWORDS = frozenset(
    {
        "def", "theorem", "lemma", "abbrev", "structure", "inductive", "instance", "class",
        "private", "protected", "noncomputable", "partial", "unsafe", "open", "namespace", "end",
        "section", "mutual", "example", "import", "variable", "universe", "set_option",
        "attribute", "macro", "macro_rules", "syntax", "notation", "infix", "infixl", "infixr",
        "prefix", "postfix", "export", "axiom", "opaque", "elab", "local", "scoped", "omit",
        "include", "initialize", "builtin_initialize",
    }
)  # fmt: skip
"""Keywords that start a top-level command when they begin a line."""

# The tokens `s!`, `f!` (core) and `m!` (Lean) take an interpolated string.
_INTERPOLATION_HEADS = frozenset({"s!", "f!", "m!"})

# ---------------------------------------------------------------------------------------------
# Characters (Init/Meta.lean)


def is_letter_like(c: str) -> bool:
    """Lean's ``isLetterLike``."""
    v = ord(c)
    return (
        (0x3B1 <= v <= 0x3C9 and v != 0x3BB)  # lower Greek, but λ
        or (0x391 <= v <= 0x3A9 and v != 0x3A0 and v != 0x3A3)  # upper Greek, but Π and Σ
        or 0x3CA <= v <= 0x3FB  # Coptic
        or 0x1F00 <= v <= 0x1FFE  # polytonic Greek
        or 0x2100 <= v <= 0x214F  # letter-like block (ℕ, ℤ, ...)
        or 0x1D49C <= v <= 0x1D59F  # script, double-struck, Fraktur
        or (0xC0 <= v <= 0xFF and v != 0xD7 and v != 0xF7)  # Latin-1 letters, but × and ÷
        or 0x100 <= v <= 0x17F  # Latin Extended-A
    )


def is_subscript_alnum(c: str) -> bool:
    """Lean's ``isSubScriptAlnum``."""
    v = ord(c)
    return 0x2080 <= v <= 0x2089 or 0x2090 <= v <= 0x209C or 0x1D62 <= v <= 0x1D6A or v == 0x2C7C


def is_id_first(c: str) -> bool:
    """Lean's ``isIdFirst``: ``Char.isAlpha`` is ASCII only."""
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_" or is_letter_like(c)


def is_id_rest(c: str) -> bool:
    """Lean's ``isIdRest``."""
    return is_id_first(c) or ("0" <= c <= "9") or c in "'!?" or is_subscript_alnum(c)


# The same classes as regular expression character sets, for speed.
_LETTER_LIKE = (
    "\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1\u03a2\u03a4-\u03a9\u03ca-\u03fb\u1f00-\u1ffe"
    "\u2100-\u214f\U0001d49c-\U0001d59f\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0100-\u017f"
)
_SUBSCRIPT = "\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a\u2c7c"
_ID_PART = re.compile(f"[A-Za-z_{_LETTER_LIKE}][A-Za-z0-9_'!?{_LETTER_LIKE}{_SUBSCRIPT}]*")
_SPACES = re.compile("[ \n]+")
_TRIVIA_START = frozenset(" \n-/\r\t")
_PLAIN_PUNCTUATION = frozenset("()[],;⟨⟩")
_DECIMAL_DIGITS = re.compile("[0-9]+")
_NUMERAL_CONTINUATIONS = frozenset("_.eE")
# Tokens that `_Lexer.scan_simple_tokens` reads without the general path. Each alternative stops
# short of anything that could change its reading: a name followed by a name character, `.`, `«`,
# `"` or any non-ASCII character; digits followed by anything that continues a numeral; `r"`.
_NAME_CHARS = "A-Za-z0-9_'!?"
_FAST_ALTERNATIVES = (
    rf'(?P<name>(?!r#*")[A-Za-z_][{_NAME_CHARS}]*)(?![{_NAME_CHARS}.«"\u0080-\U0010ffff])',
    r"(?P<digits>[0-9]+)(?![0-9_.eExXbBoO])",
    r'(?P<string>"[^"\\\r\n]*")',
    r"(?P<punct>[()\[\],;⟨⟩])",
)


def _fast_token(alternatives: tuple[str, ...]) -> re.Pattern[str]:
    """Spaces then one token (one match per token), or spaces alone."""
    return re.compile(r"[ \n]*(?:" + "|".join(alternatives) + r")|(?P<space>[ \n]+)")


_FAST_TOKEN = _fast_token(_FAST_ALTERNATIVES)
_FAST_TOKEN_NO_STRING = _fast_token(tuple(alt for alt in _FAST_ALTERNATIVES if "string" not in alt))
_ASCII_ID_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_SIMPLE_STRING = re.compile(r'"[^"\\\r]*"')
_COMMENT_DELIMITER = re.compile("-/|/-")
_DIGIT_RUNS = {
    10: re.compile("[0-9_]*"),
    2: re.compile("[01_]*"),
    8: re.compile("[0-7_]*"),
    16: re.compile("[0-9a-fA-F_]*"),
}
_DIGIT_NAMES = {10: "decimal number", 2: "binary number", 8: "octal number", 16: "hexadecimal number"}
_HEX = frozenset("0123456789abcdefABCDEF")

# ---------------------------------------------------------------------------------------------
# Symbols

_SYMBOLS = sorted(
    [
        ":=", "=>", "->", "<-", "<->", "<|", "|>.", "|>", "<|>", "::", "++", "==", "!=", "<=",
        ">=", "&&", "||", "/\\", "\\/", "#[", "@[", "..", "...", ">>=", "<$>", "<*>", "<*", "*>",
        ">>", "<<<", ">>>", "|||", "&&&", "^^^", "^^", "×'", "⊕'", "+=", "-=", "*=", "%[", "⦃", "⦄",
        "(", ")", "[", "]", "{", "}", "⟨", "⟩", ",", ":", ";", "|", ".", "@", "$", "+", "-",
        "*", "/", "%", "^", "<", ">", "=", "!", "?", "∘", "×", "∈", "∉", "∣", "↑", "·", "▸",
        "_", "→", "←", "↔", "∧", "∨", "¬", "∀", "∃", "λ", "≠", "≤", "≥", "∑", "∏", "∩", "∪",
        "⊆", "⊂", "\\", "≈", "'", "#", "&", "∅", "⁻¹", "•", "∃!", "≍", "~~~", "⋯", "∞",
        # core tokens that matter for where comments start: `|-` (`⊢`, tactic locations) and
        # `//` (subtypes) swallow a following `-`; `<;>` is the tactic combinator
        "|-", "⊢", "//", "<;>",
    ],
    key=len,
    reverse=True,
)  # fmt: skip
_SYMBOL = re.compile("|".join(re.escape(sym) for sym in _SYMBOLS))  # longest first
_NORMALISE = {
    "->": "→", "<-": "←", "<->": "↔", "/\\": "∧", "\\/": "∨", "<=": "≤", ">=": "≥", "|-": "⊢",
}  # fmt: skip
# Lean tokens the engine's parser reads as their characters (`{ x // p x }`).
_SPLIT = {"//": ("/", "/")}

# Lean's `isQuotableCharDefault` and the characters they stand for (`decodeQuotedChar`).
_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "r": "\r", "n": "\n", "t": "\t"}

# A line where lexing resumes after a lexical error: one that starts a command.
_COMMAND_LINE = re.compile(
    r"^(?:@\[|#[A-Za-z]|deriving\s+instance\b|(?:"
    + "|".join(sorted(COMMAND_KEYWORDS, key=len, reverse=True))
    + r")(?![\w'!?]))",
    re.MULTILINE,
)


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(slots=True)
class Token:
    kind: str
    text: str
    """The source text of the token."""
    value: Any
    """Identifier: the name (str); num: int; sci: (mantissa, exponent10) as ints; str/char:
    the decoded text; sym/keyword: the normalised symbol; interp: list of parts (str or
    :class:`InterpPiece`); error: the :class:`LeanSyntaxError`."""
    line: int
    col: int
    offset: int
    end: int
    """Character offset just past the token."""
    space_before: bool
    """Whitespace or a comment separates this token from the previous one."""
    newline_before: bool = False
    """A line break (possibly inside a comment) separates this token from the previous one."""
    parts: tuple[str, ...] = field(default=())
    """For identifiers, fields and dotted identifiers: the components, guillemets removed."""
    escaped: bool = False
    """Some component was written with guillemets (such a name is never a keyword)."""
    doc_before: Comment | None = None
    """The doc comment (``/--``) or module doc (``/-!``) right before this token, if any. For Lean
    these are tokens, not whitespace, so the parser decides whether the grammar allows one here
    (before a declaration, a ``where``/``let rec`` declaration, a structure field or a
    constructor) -- anywhere else, e.g. inside a term, it is a parse error."""

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
    """One ``{term}`` of an interpolated string: its source text, where it starts, and its tokens
    (ending with an ``EOF`` token at the closing brace)."""

    text: str
    line: int
    col: int
    offset: int
    tokens: tuple[Token, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Comment:
    kind: str
    """``line`` (``--``), ``block`` (``/-``), ``doc`` (``/--``) or ``module_doc`` (``/-!``)."""
    text: str
    """The whole comment, delimiters included (to the end of the input when unterminated)."""
    offset: int
    line: int
    col: int

    @property
    def end(self) -> int:
        return self.offset + len(self.text)


@dataclass(slots=True)
class LexResult:
    tokens: list[Token] = field(default_factory=list)
    """Ends with an ``EOF`` token; a lexical error is an ``ERROR`` token, after which lexing
    resumed at the next line that starts a command."""
    comments: list[Comment] = field(default_factory=list)
    problems: list[LeanSyntaxError] = field(default_factory=list)
    """Lexical errors, in order (one per ``ERROR`` token)."""
    notes: list[LeanSyntaxError] = field(default_factory=list)
    """Text Lean accepts but reads in a surprising way (``\\uD800`` is ``'\\0'``)."""


InterpolationTest = Callable[[Sequence[Token]], bool]
"""Given the tokens before a ``"``, says whether the string is interpolated although it does not
follow ``s!``/``f!``/``m!`` (Lean decides this by grammar: ``throwError "..{x}.."``)."""


# ---------------------------------------------------------------------------------------------
# The lexer


def _ends_term(tok: Token) -> bool:
    """Can ``tok`` end a term, so that a directly following ``.name`` is a field access?"""
    if tok.kind in (IDENT, NUM, SCI, STR, CHAR, INTERP, FIELD, DOTIDENT):
        return True
    return tok.kind == SYM and tok.value in (")", "]", "⟩", "}", "!", "?", "·")


class _Lexer:
    """Lexes ``src`` from ``pos``; inside an interpolation it stops at the unmatched ``}``."""

    __slots__ = (
        "src", "n", "pos", "line", "line_start", "base", "recover", "interpolated_after",
        "in_interpolation", "brace_depth", "result", "tokens", "space", "newline", "doc", "fast",
    )  # fmt: skip

    def __init__(
        self,
        src: str,
        *,
        pos: int,
        line: int,
        col: int,
        base: int,
        recover: bool,
        interpolated_after: InterpolationTest | None,
        in_interpolation: bool = False,
        fast: bool = True,
    ) -> None:
        self.src = src
        self.n = len(src)
        self.pos = pos
        self.line = line
        self.line_start = pos - col  # index of the current line's first character (maybe < 0)
        self.base = base  # offset of src[0] in the whole file
        self.recover = recover
        self.interpolated_after = interpolated_after
        self.in_interpolation = in_interpolation
        self.brace_depth = 0
        self.result = LexResult()
        self.tokens = self.result.tokens
        self.space = True
        self.newline = True
        self.doc: Comment | None = None
        """The doc comment read since the last token (it goes on the next token)."""
        self.fast: re.Pattern[str] | None = None
        if fast:
            self.fast = _FAST_TOKEN if interpolated_after is None else _FAST_TOKEN_NO_STRING

    # -- positions ------------------------------------------------------------------------------

    def where(self, p: int) -> tuple[int, int]:
        """Line and column of index ``p`` (not before the current position)."""
        breaks = self.src.count("\n", self.pos, p)
        if breaks == 0:
            return self.line, p - self.line_start
        return self.line + breaks, p - (self.src.rfind("\n", self.pos, p) + 1)

    def advance_to(self, p: int) -> None:
        breaks = self.src.count("\n", self.pos, p)
        if breaks:
            self.line += breaks
            self.line_start = self.src.rfind("\n", self.pos, p) + 1
        self.pos = p

    def error_at(
        self, p: int, message: str, start: int | None = None, *, unterminated: bool = False
    ) -> LeanSyntaxError:
        """The error at index ``p``; ``unterminated`` when the construct ran to the end of the
        input (lexing then cannot resume before the end, as in Lean)."""
        line, col = self.where(p)
        error = LeanSyntaxError(line, col, message, self.base + p, self.base + (p if start is None else start))
        error.resume_index = self.n if unterminated else p
        return error

    # -- driver ---------------------------------------------------------------------------------

    def run(self) -> LexResult:
        src, n = self.src, self.n
        while True:
            try:
                if self.fast is not None:
                    self.scan_simple_tokens(self.fast)
                if self.pos < n and src[self.pos] in _TRIVIA_START:
                    self.skip_trivia()
                if self.pos >= n:
                    break
                if self.in_interpolation and self.brace_depth == 0 and src[self.pos] == "}":
                    break
                self.lex_token()
            except LeanSyntaxError as exc:
                if not self.recover:
                    raise
                self.result.problems.append(exc)
                at = exc.offset if exc.offset is not None else self.base + self.pos
                self.tokens.append(
                    Token(ERROR, "", exc, exc.line, exc.col, at, at, self.space, self.newline)
                )
                resume = exc.resume_index if exc.resume_index is not None else self.pos
                if resume > self.pos:
                    self.advance_to(min(resume, n))
                self.skip_to_next_command()
                self.space = self.newline = True
        at = self.base + self.pos
        self.tokens.append(Token(EOF, "", None, self.line, self.pos - self.line_start, at, at, self.space, self.newline))
        return self.result

    def scan_simple_tokens(self, fast: re.Pattern[str]) -> None:
        """The common tokens (spaces, plain ASCII names, decimal digits, strings without escapes
        or line breaks, plain punctuation) read in one loop, exactly as :meth:`lex_token` would
        read them; returns at anything else."""
        if self.doc is not None:
            return  # the next token carries a doc comment: :meth:`emit` records it
        src, n, base, append, match = self.src, self.n, self.base, self.tokens.append, fast.match
        pos, line, line_start, space, newline = self.pos, self.line, self.line_start, self.space, self.newline
        while pos < n:
            found = match(src, pos)
            if found is None:
                break
            group: str = found.lastgroup  # type: ignore[assignment]  # every alternative is a named group
            start, end = found.span(group)
            if group == "space":
                start = end
            if start > pos:  # spaces before the token (or only spaces)
                if src.find("\n", pos, start) >= 0:
                    newline = True
                    line += src.count("\n", pos, start)
                    line_start = src.rfind("\n", pos, start) + 1
                space = True
            if group == "space":
                pos = end
                continue
            text = found.group(group)
            if group == "name":
                if text in KEYWORDS:
                    append(Token(KEYWORD, text, text, line, start - line_start, base + start, base + end, space, newline))
                elif text in _INTERPOLATION_HEADS:
                    pos = start
                    break  # maybe an interpolated string: the general path decides
                else:
                    append(
                        Token(IDENT, text, text, line, start - line_start, base + start, base + end, space, newline,
                              (text,))
                    )  # fmt: skip
            elif group == "digits":
                append(Token(NUM, text, int(text), line, start - line_start, base + start, base + end, space, newline))
            elif group == "string":
                append(Token(STR, text, text[1:-1], line, start - line_start, base + start, base + end, space, newline))
            else:
                append(Token(SYM, text, text, line, start - line_start, base + start, base + end, space, newline))
            pos = end
            space = newline = False
        self.pos, self.line, self.line_start, self.space, self.newline = pos, line, line_start, space, newline

    def skip_to_next_command(self) -> None:
        """After a lexical error: resume at the next line that starts a command, as Lean resumes
        at the next command. An error that ran to the end of the input (an unterminated string or
        comment) swallows the rest, as it does in Lean."""
        if self.pos >= self.n:
            return
        newline = self.src.find("\n", self.pos)
        found = _COMMAND_LINE.search(self.src, newline + 1) if newline >= 0 else None
        self.advance_to(found.start() if found is not None else self.n)

    def emit(
        self,
        kind: str,
        start: int,
        end: int,
        value: Any,
        parts: tuple[str, ...] = (),
        escaped: bool = False,
    ) -> Token:
        """Append the token ``src[start:end]`` (``start`` is the current position) and move past it."""
        token = Token(
            kind,
            self.src[start:end],
            value,
            self.line,
            start - self.line_start,
            self.base + start,
            self.base + end,
            self.space,
            self.newline,
            parts,
            escaped,
            self.doc,
        )
        self.doc = None
        self.tokens.append(token)
        if "\n" in token.text:
            self.advance_to(end)
        else:
            self.pos = end
        self.space = self.newline = False
        return token

    # -- whitespace and comments (`whitespace`, `finishCommentBlock`) ----------------------------

    def skip_trivia(self) -> None:
        src, n = self.src, self.n
        while self.pos < n:
            p = self.pos
            c = src[p]
            if c == " " or c == "\n":
                end = _SPACES.match(src, p).end()  # type: ignore[union-attr]
                if src.find("\n", p, end) >= 0:
                    self.newline = True
                self.space = True
                self.advance_to(end)
            elif c == "-" and src.startswith("-", p + 1):
                end = src.find("\n", p)
                if end < 0:
                    end = n
                elif src[end - 1] == "\r":
                    end -= 1  # the `\r` of a CRLF line ending is not part of the comment
                self.comment("line", p, end)
            elif c == "/" and src.startswith("-", p + 1):
                third = src[p + 2 : p + 3]
                kind = "doc" if third == "-" else "module_doc" if third == "!" else "block"
                self.comment(kind, p, self.block_end(p))
            elif c == "\r" and src.startswith("\n", p + 1):
                self.space = self.newline = True  # a CRLF line ending is a newline for Lean
                self.advance_to(p + 2)
            elif c == "\t":
                raise self.error_at(p, "tabs are not allowed; please configure your editor to expand them")
            elif c == "\r":
                raise self.error_at(p, "isolated carriage returns are not allowed")
            else:
                return

    def block_end(self, start: int) -> int:
        """The index just past the ``-/`` closing the comment opened at ``start``: the character
        after ``/-`` is skipped unseen, then ``-/`` and ``/-`` change the nesting."""
        depth = 1
        scan = start + 3
        while True:
            found = _COMMENT_DELIMITER.search(self.src, scan) if scan <= self.n else None
            if found is None:
                raise self.error_at(self.n, "unterminated comment", start, unterminated=True)
            scan = found.end()
            if found.group() == "/-":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return scan

    def comment(self, kind: str, start: int, end: int) -> None:
        line, col = self.where(start)
        comment = Comment(kind, self.src[start:end], self.base + start, line, col)
        self.result.comments.append(comment)
        if kind in ("doc", "module_doc"):
            self.doc = comment
        if self.src.find("\n", start, end) >= 0:
            self.newline = True  # Lean's `checkLinebreakBefore` sees breaks inside comments
        self.space = True
        self.advance_to(end)

    # -- tokens ---------------------------------------------------------------------------------

    def lex_token(self) -> None:
        src, p = self.src, self.pos
        c = src[p]
        if c in _ASCII_ID_FIRST and c != "r":
            self.identifier()
        elif c in _PLAIN_PUNCTUATION:  # no longer token starts with these
            self.emit(SYM, p, p + 1, c)
        elif c == '"':
            if self.interpolated_after is not None and self.interpolated_after(self.tokens):
                self.interpolated_string(p, p)
            else:
                self.string()
        elif c == "'" and not src.startswith("'", p + 1) and not self.after_index_bracket():
            self.char_literal()
        elif "0" <= c <= "9":
            self.number()
        elif c == "r" and self.raw_string_hashes(p) is not None:
            self.raw_string()
        elif c == "«" or is_id_first(c):
            self.identifier()
        elif c == "." and self.dot():
            pass
        else:
            self.symbol()

    def after_index_bracket(self) -> bool:
        """A ``'`` right after ``]`` is Lean's token ``]'`` (``xs[i]'h``), not a character literal."""
        prev = self.tokens[-1] if self.tokens else None
        return prev is not None and prev.is_sym("]") and not self.space

    def symbol(self) -> None:
        src, p = self.src, self.pos
        found = _SYMBOL.match(src, p)
        if found is None:
            # no token starts with this character: a one-character symbol (e.g. rare notation)
            self.emit(SYM, p, p + 1, src[p])
            return
        sym = found.group()
        split = _SPLIT.get(sym)
        if split is not None:
            for piece in split:
                self.emit(SYM, self.pos, self.pos + len(piece), piece)
            return
        if self.in_interpolation:
            if sym == "{":
                self.brace_depth += 1
            elif sym == "}":
                self.brace_depth -= 1
        self.emit(SYM, p, found.end(), _NORMALISE.get(sym, sym))

    def dot(self) -> bool:
        """Field access ``.name``, leading-dot name ``.some``, or cdot; ``False`` for a plain dot."""
        src, p = self.src, self.pos
        nxt = src[p + 1 : p + 2]
        prev = self.tokens[-1] if self.tokens else None
        if nxt and not self.space and prev is not None and _ends_term(prev):
            if nxt == "«" or is_id_first(nxt) or "0" <= nxt <= "9":
                parts, escaped, end = self.name_parts(p + 1)
                self.emit(FIELD, p, end, ".".join(parts), tuple(parts), escaped)
                return True
        if nxt and (nxt == "«" or is_id_first(nxt)):
            parts, escaped, end = self.name_parts(p + 1)
            self.emit(DOTIDENT, p, end, ".".join(parts), tuple(parts), escaped)
            return True
        if nxt in (" ", "\t", "\n", ")", ""):
            self.emit(SYM, p, p + 1, "·")  # `.` before whitespace is the cdot `·`
            return True
        return False

    def name_part(self, p: int) -> tuple[str, bool, int]:
        """One component at ``p``: (text, guillemets?, end)."""
        src = self.src
        if src[p] == "«":
            close = src.find("»", p + 1)
            if close < 0:
                raise self.error_at(p + 1, "unterminated identifier escape", p, unterminated=True)
            return src[p + 1 : close], True, close + 1
        if "0" <= src[p] <= "9":
            end = p + 1
            while end < self.n and "0" <= src[end] <= "9":
                end += 1
            return src[p:end], False, end
        found = _ID_PART.match(src, p)
        end = found.end() if found is not None else p + 1
        return src[p:end], False, end

    def name_parts(self, p: int) -> tuple[list[str], bool, int]:
        """Dotted components from ``p`` (Lean's ``identFnAux``/``isIdCont``; a numeric component
        ``x.1`` is kept, see the module docstring)."""
        src, n = self.src, self.n
        parts: list[str] = []
        escaped = False
        while True:
            part, quoted, p = self.name_part(p)
            parts.append(part)
            escaped = escaped or quoted
            if p + 1 < n and src[p] == ".":
                nxt = src[p + 1]
                if nxt == "«" or is_id_first(nxt) or "0" <= nxt <= "9":
                    p += 1
                    continue
            return parts, escaped, p

    def identifier(self) -> None:
        p = self.pos
        simple = _ID_PART.match(self.src, p)
        if simple is not None and not self.src.startswith(".", simple.end()):
            name, end = simple.group(), simple.end()
            if name in KEYWORDS:
                self.emit(KEYWORD, p, end, name)
            elif name in _INTERPOLATION_HEADS:
                self.name_or_interpolation(p, [name], False, end)
            else:
                self.emit(IDENT, p, end, name, (name,))
            return
        parts, escaped, end = self.name_parts(p)
        self.name_or_interpolation(p, parts, escaped, end)

    def name_or_interpolation(self, p: int, parts: list[str], escaped: bool, end: int) -> None:
        # A component holding a dot keeps its guillemets in the name: `«Cheat.max»` is the one
        # component "Cheat.max", another name than the two components of `Cheat.max`.
        name = ".".join(f"«{part}»" if "." in part else part for part in parts)
        if len(parts) == 1 and not escaped:
            if name in KEYWORDS:
                self.emit(KEYWORD, p, end, name)
                return
            if name in _INTERPOLATION_HEADS:
                quote = _SPACES.match(self.src, end)
                at = quote.end() if quote is not None else end
                if self.src.startswith('"', at):
                    self.interpolated_string(p, at)
                    return
        self.emit(IDENT, p, end, name, tuple(parts), escaped)

    # -- numbers (`numberFnAux`, `decimalNumberFn`, `takeDigitsFn`) ------------------------------

    def take_digits(self, p: int, radix: int, need_digit: bool) -> int:
        """Digits of ``radix`` with ``_`` separators from ``p``; each ``_`` (and, when
        ``need_digit``, the start) must be followed by a digit. Returns the end."""
        end = _DIGIT_RUNS[radix].match(self.src, p).end()  # type: ignore[union-attr]
        if (need_digit and end == p) or self.src[p:end].endswith("_"):
            expecting = _DIGIT_NAMES[radix]
            if end >= self.n:
                raise self.error_at(end, f"unexpected end of input; expected {expecting}")
            raise self.error_at(end, f"unexpected character; expected {expecting}")
        return end

    def number(self) -> None:
        src, p, n = self.src, self.pos, self.n
        digits = _DECIMAL_DIGITS.match(src, p).end()  # type: ignore[union-attr]
        after = src[digits : digits + 1]
        if after not in _NUMERAL_CONTINUATIONS and not (after in "xXbBoO" and digits == p + 1 and src[p] == "0"):
            self.emit(NUM, p, digits, int(src[p:digits]))  # plain decimal digits: the common case
            return
        radix = {"b": 2, "o": 8, "x": 16}.get(src[p + 1 : p + 2].lower()) if src[p] == "0" else None
        if radix is not None:
            end = self.take_digits(p + 2, radix, need_digit=True)
            self.emit(NUM, p, end, int(src[p + 2 : end].replace("_", ""), radix))
            return
        end = self.take_digits(p, 10, need_digit=False)
        int_digits = src[p:end].replace("_", "")
        if end >= n or src[end] not in ".eE":
            self.emit(NUM, p, end, int(int_digits))
            return
        frac = ""
        if src[end] == ".":
            end += 1
            if end < n and "0" <= src[end] <= "9":
                frac_start = end
                end = self.take_digits(end, 10, need_digit=False)
                frac = src[frac_start:end].replace("_", "")
        exponent = 0
        if end < n and src[end] in "eE":
            q = end + 1
            sign = -1 if src.startswith("-", q) else 1
            if q < n and src[q] in "+-":
                q += 1
            if not (q < n and "0" <= src[q] <= "9"):
                raise self.error_at(end, "missing exponent digits in scientific literal")
            exp_end = self.take_digits(q, 10, need_digit=False)
            exponent = sign * int(src[q:exp_end].replace("_", ""))
            end = exp_end
        self.emit(SCI, p, end, (int(int_digits + frac), exponent - len(frac)))

    # -- strings and characters ----------------------------------------------------------------

    def escape(self, p: int, *, in_string: bool, interpolated: bool) -> tuple[int, str]:
        """Lean's ``quotedCharCoreFn`` at ``p`` (just after a backslash): (end, decoded text)."""
        src, n = self.src, self.n
        if p >= n:
            raise self.error_at(p, "unexpected end of input")
        c = src[p]
        simple = _ESCAPES.get(c)
        if simple is not None:
            return p + 1, simple
        if interpolated and c == "{":  # `isQuotableCharForStrInterpolant`
            return p + 1, "{"
        if c == "x" or c == "u":
            count = 2 if c == "x" else 4
            for k in range(p + 1, p + 1 + count):
                if k >= n:
                    raise self.error_at(k, "unexpected end of input")
                if src[k] not in _HEX:
                    raise self.error_at(k, "invalid hexadecimal numeral")
            code = int(src[p + 1 : p + 1 + count], 16)
            if 0xD800 <= code <= 0xDFFF:
                # `Char.ofNat` of a surrogate is '\0'
                self.result.notes.append(
                    self.error_at(p - 1, f"\\u{src[p + 1 : p + 5]} is not a Unicode scalar value; Lean reads '\\0'")
                )
                return p + 1 + count, "\0"
            return p + 1 + count, chr(code)
        if in_string and (c == "\n" or (c == "\r" and src.startswith("\n", p + 1))):
            return self.string_gap(p), ""
        raise self.error_at(p, "invalid escape sequence", p - 1)

    def string_gap(self, p: int) -> int:
        """Lean's ``stringGapFn`` at the line break after a backslash: whitespace with exactly one
        newline."""
        src, n = self.src, self.n
        seen_newline = False
        while p < n:
            c = src[p]
            if c == "\n":
                if seen_newline:
                    raise self.error_at(p, "unexpected additional newline in string gap")
                seen_newline = True
            elif c not in " \t\r":
                break
            p += 1
        return p

    def string(self) -> None:
        src, p = self.src, self.pos
        simple = _SIMPLE_STRING.match(src, p)
        if simple is not None:
            self.emit(STR, p, simple.end(), src[p + 1 : simple.end() - 1])
            return
        end, pieces = self.string_body(p, interpolated=False)
        self.emit(STR, p, end, pieces[0] if pieces else "")

    def string_body(self, quote: int, *, interpolated: bool) -> tuple[int, list[str | InterpPiece]]:
        """From the opening quote: (end, pieces). Lean's ``strLitFnAux`` and, when
        ``interpolated``, ``interpolatedStrFn``."""
        src, n = self.src, self.n
        pieces: list[str | InterpPiece] = []
        buf: list[str] = []
        p = quote + 1
        while True:
            if p >= n:
                raise self.error_at(quote, "unterminated string literal", unterminated=True)
            c = src[p]
            if c == '"':
                p += 1
                break
            if c == "\\":
                p, text = self.escape(p + 1, in_string=True, interpolated=interpolated)
                buf.append(text)
            elif interpolated and c == "{":
                if buf:
                    pieces.append("".join(buf))
                    buf = []
                piece, p = self.interpolation(p + 1)
                pieces.append(piece)
            elif c == "\r" and src.startswith("\n", p + 1):
                buf.append("\n")
                p += 2
            else:
                buf.append(c)
                p += 1
        if buf or not interpolated:
            pieces.append("".join(buf))
        return p, pieces

    def interpolation(self, begin: int) -> tuple[InterpPiece, int]:
        """The term of ``{...}`` starting at ``begin``: lexed up to its ``}``."""
        line, col = self.where(begin)
        sub = _Lexer(
            self.src,
            pos=begin,
            line=line,
            col=col,
            base=self.base,
            recover=False,
            interpolated_after=self.interpolated_after,
            in_interpolation=True,
            fast=self.fast is not None,
        )
        result = sub.run()
        if sub.pos >= self.n:
            raise self.error_at(begin, "unterminated interpolation", unterminated=True)
        self.result.comments.extend(result.comments)
        self.result.notes.extend(result.notes)
        piece = InterpPiece(self.src[begin : sub.pos], line, col, self.base + begin, tuple(result.tokens))
        return piece, sub.pos + 1

    def interpolated_string(self, start: int, quote: int) -> None:
        end, pieces = self.string_body(quote, interpolated=True)
        self.emit(INTERP, start, end, pieces)

    def char_literal(self) -> None:
        """Lean's ``charLitFnAux``: one character or escape, then ``'``."""
        src, start, n = self.src, self.pos, self.n
        p = start + 1
        if p >= n:
            raise self.error_at(p, "unexpected end of input; expected a character literal", start)
        if src[p] == "\\":
            p, value = self.escape(p + 1, in_string=False, interpolated=False)
        elif src[p] == "\r" and src.startswith("\n", p + 1):
            p, value = p + 2, "\n"
        else:
            p, value = p + 1, src[p]
        if p >= n or src[p] != "'":
            raise self.error_at(min(p + 1, n), "missing end of character literal", start)
        self.emit(CHAR, start, p + 1, value)

    def raw_string_hashes(self, p: int) -> int | None:
        """At an ``r``: the number of ``#`` of a raw string literal starting here, or ``None``
        when this is not one (Lean's ``isRawStrLitStart``)."""
        k = p + 1
        while k < self.n and self.src[k] == "#":
            k += 1
        return k - p - 1 if self.src.startswith('"', k) else None

    def raw_string(self) -> None:
        """Lean's ``rawStrLitFnAux``: no escapes; ends at ``"`` followed by as many hashes."""
        p = self.pos
        hashes = self.raw_string_hashes(p) or 0
        body = p + 2 + hashes
        closing = '"' + "#" * hashes
        end = self.src.find(closing, body)
        if end < 0:
            raise self.error_at(p, "unterminated raw string literal", unterminated=True)
        self.emit(STR, p, end + len(closing), self.src[body:end].replace("\r\n", "\n"))


def lex(
    text: str,
    *,
    line: int = 1,
    col: int = 0,
    offset: int = 0,
    interpolated_after: InterpolationTest | None = None,
) -> LexResult:
    """Tokens, comments and problems of ``text``. Never raises: a lexical error becomes an
    ``ERROR`` token and a problem, and lexing resumes at the next line that starts a command.

    ``line``/``col``/``offset`` give the position of ``text`` inside a larger file, so that a
    fragment (an interpolated expression, a section body) reports positions of the whole file.
    ``interpolated_after`` lets a caller read more strings as interpolated than Lean's ``s!``,
    ``f!`` and ``m!`` (see :data:`InterpolationTest`).
    """
    lexer = _Lexer(
        text, pos=0, line=line, col=col, base=offset, recover=True, interpolated_after=interpolated_after
    )
    return lexer.run()


def tokenize(text: str, line: int = 1, col: int = 0, offset: int = 0, recover: bool = False) -> list[Token]:
    """Split ``text`` into tokens ending with an ``EOF`` token. Raises :class:`LeanSyntaxError`,
    unless ``recover``: then each lexical error becomes an ``ERROR`` token (its value is the
    error) and lexing resumes at the next line that starts a command.

    ``line``/``col``/``offset`` give the position of ``text`` inside a larger file.
    """
    lexer = _Lexer(text, pos=0, line=line, col=col, base=offset, recover=recover, interpolated_after=None)
    return lexer.run().tokens


# ---------------------------------------------------------------------------------------------
# A quick textual scan, for callers that want the code of a fragment without lexing it


def string_literal_end(text: str, start: int) -> int:
    """The index just after the string literal opening at ``start`` (escapes skipped; the end of
    the text when it is not closed)."""
    j, n = start + 1, len(text)
    while j < n and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return j + 1


def strip_comments(text: str) -> str:
    """``text`` without its ``--`` line comments and (nested) ``/- -/`` block comments; string
    literals are kept intact. A character-level scan that never fails, for fragments a caller
    only searches (the lexer's :class:`Comment` records carry positions when they matter)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            end = string_literal_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("--", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/-", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/-", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("-/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
