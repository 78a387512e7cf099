"""The parser composed from its mixins, and the entry points :func:`parse_file` and :func:`parse_term`."""

from __future__ import annotations

import unicodedata

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser.binders import BindersMixin
from veriscale.backends.embedded.parser.commands import CommandsMixin, split_commands
from veriscale.backends.embedded.parser.compound import CompoundMixin
from veriscale.backends.embedded.parser.core import ParsedFile
from veriscale.backends.embedded.parser.do_notation import DoNotationMixin
from veriscale.backends.embedded.parser.terms import TermsMixin
from veriscale.lean.lexer import (
    EOF,
    ERROR,
    IDENT,
    KEYWORD,
    SYM,
    LeanSyntaxError,
    Token,
    is_letter_like,
    tokenize,
)


class Parser(CommandsMixin, DoNotationMixin, CompoundMixin, BindersMixin, TermsMixin):
    """The Lean parser: every construct's mixin over :class:`~.core.ParserCore` (no method is
    defined by two of them, so their order does not matter)."""


def _command_name(chunk: list[Token]) -> str | None:
    for j, t in enumerate(chunk):
        if t.kind == KEYWORD and t.value in ("def", "abbrev", "theorem", "lemma", "structure", "inductive", "class", "instance"):
            nxt = chunk[j + 1] if j + 1 < len(chunk) else None
            if nxt is not None and nxt.kind == IDENT:
                return str(nxt.value)
            return None
    return None


def _reject_foreign_letter(exc: LeanSyntaxError, chunk: list[Token]) -> None:
    """A letter of an alphabet Lean does not read in identifiers (Cyrillic `о` in `tоtal`, a
    look-alike of Latin `o`): ``isIdFirst``/``isIdRest`` accept ASCII letters and ``isLetterLike``
    (Greek, Coptic, letter-like symbols) only, and no token of Lean's or Mathlib's grammar starts
    with such a letter (Mathlib's text linter admits no such character), so Lean's parser stops
    there too. The engine's lexer keeps it as a one-character symbol; an error at it is Lean's."""
    if exc.lean_rejects:
        return
    at = next((t for t in chunk if t.line == exc.line and t.col == exc.col), None)
    if at is None or at.kind != SYM or not isinstance(at.value, str) or len(at.value) != 1:
        return
    c = at.value
    if c.isascii() or not unicodedata.category(c).startswith("L") or is_letter_like(c):
        return
    exc.message = (f"unexpected character '{c}' (U+{ord(c):04X}): not an identifier character in Lean "
                   f"(`isIdFirst`/`isIdRest`), and no token starts with it")
    exc.lean_rejects = True


def parse_file(text: str) -> ParsedFile:
    """Parse a whole Lean file. Errors, lexical ones included, are recorded on their command
    (:class:`~veriscale.backends.embedded.ast.CommandError`) and the other commands still parse, as in Lean."""
    tokens = tokenize(text, recover=True)
    result = ParsedFile()
    for chunk in split_commands(tokens):
        first = chunk[0]
        parser = Parser(chunk, text)
        lex_error = next((t.value for t in chunk if t.kind == ERROR), None)
        try:
            if lex_error is not None:
                raise lex_error
            cmd = parser.command()
            if parser.tok.kind != EOF:
                raise parser.error(f"unexpected {parser.tok.describe()}; expected the end of the command")
            parser.check_doc_comments(command_start=True)
            result.commands.append(cmd)
        except LeanSyntaxError as exc:
            end = chunk[-1].offset
            _reject_foreign_letter(exc, chunk)
            result.commands.append(
                A.CommandError(exc.line, exc.col, exc.message, _command_name(chunk), text[first.offset : end],
                               exc.lean_rejects)
            )
        except RecursionError:
            result.commands.append(
                A.CommandError(first.line, first.col, "nesting too deep", _command_name(chunk), "")
            )
    return result


def parse_term(text: str, line: int = 1, col: int = 0, offset: int = 0, source: str | None = None) -> A.Node:
    """Parse one term (e.g. a section body). Raises :class:`LeanSyntaxError`."""
    toks = tokenize(text, line, col, offset)
    src = source if source is not None else text
    if source is None and offset:
        src = " " * offset + text
    parser = Parser(toks, src)
    term = parser.term()
    if parser.tok.kind != EOF:
        raise parser.error(f"unexpected {parser.tok.describe()}; expected the end of the term")
    parser.check_doc_comments()
    return term
