"""The parser composed from its mixins, and the entry points :func:`parse_file` and :func:`parse_term`."""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser.binders import BindersMixin
from veriscale.backends.embedded.parser.commands import CommandsMixin, split_commands
from veriscale.backends.embedded.parser.compound import CompoundMixin
from veriscale.backends.embedded.parser.core import ParsedFile
from veriscale.backends.embedded.parser.do_notation import DoNotationMixin
from veriscale.backends.embedded.parser.terms import TermsMixin
from veriscale.lean.lexer import EOF, ERROR, IDENT, KEYWORD, LeanSyntaxError, Token, tokenize


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
