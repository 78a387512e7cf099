"""The readers of Lean text -- the safety screen, the values reader, the engine's parser -- read
hostile comment and string nestings as the shared lexer does, and the lexer as Lean does.

Lean's rules (``src/Lean/Parser/Basic.lean``): ``whitespace`` skips the character right after
``/-`` unseen, then ``finishCommentBlock`` nests on ``/-`` and ``-/`` only (``--`` inside means
nothing); ``--`` runs to the end of the line; ``/--`` and ``/-!`` comments' bodies start after those
three characters; inside string and character literals (``strLitFnAux``, ``charLitFnAux``) comment
markers are text, and inside comments quotes are text. Code inside a comment is not code; code after
a comment's real end is code.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser import parse_term
from veriscale.lean.codec import ValueParseError, parse_lean
from veriscale.lean.lexer import EOF, ERROR, lex
from veriscale.lean.safety import screen_lean
from veriscale.lean.values import Nat

# (source, whether Lean reads `#exit` in it as code, whether Lean reports a lexical error)
EXIT_NESTINGS = [
    ("/-/-/ #exit -- -/", True, False),  # the comment is `/-/-/`; `-- -/` is a line comment
    ("/-/- -/ #exit -/", True, False),  # the `/` after `/-` is skipped: no nesting
    ("/- /- -/ #exit -/", False, False),  # real nesting: the first `-/` closes the inner comment
    ("/- /- -/ -/ #exit", True, False),
    ("/--/ #exit -/", False, False),  # a doc comment's body starts after `/--`
    ("/-!/ #exit -/", False, False),
    ("/- -- -/ #exit", True, False),  # `--` inside a block comment means nothing
    ("-- -/ #exit", False, False),  # `-/` inside a line comment means nothing
    ("-- /-\n#exit", True, False),
    ('"/-" #exit "-/"', True, False),  # comment markers inside strings are text
    ("'\"' #exit '\"'", True, False),  # a quote inside a character literal opens no string
    ('/- " -/ #exit /- " -/', True, False),  # quotes inside comments are text
    ('/- "-/" #exit "-/"', False, True),  # the comment ends inside the quotes; `#exit` is in a string
    ('s!"{"}"}" #exit', True, False),  # the interpolated term holds a string with a brace
    ('s!"{/- } -/ 1}" #exit', True, False),  # ... or a comment with a brace
    ("x <--#exit", True, False),  # the token `<-` swallows the first `-`: no comment
]


def lexer_reads_exit(source: str) -> tuple[bool, bool]:
    result = lex(source)
    code = [t for t in result.tokens if t.kind not in (EOF, ERROR)]
    exit_in_code = any(
        a.text == "#" and b.text == "exit" and not b.space_before for a, b in zip(code, code[1:])
    )
    # an `#exit` in an interpolated term is code too
    for tok in code:
        if tok.kind == "interp":
            for piece in tok.value:
                if not isinstance(piece, str):
                    texts = [t.text for t in piece.tokens]
                    exit_in_code |= any(a == "#" and b == "exit" for a, b in zip(texts, texts[1:]))
    return exit_in_code, bool(result.problems)


@pytest.mark.parametrize(("source", "is_code", "lex_error"), EXIT_NESTINGS, ids=range(len(EXIT_NESTINGS)))
def test_lexer_reads_hostile_nestings_as_lean(source: str, is_code: bool, lex_error: bool) -> None:
    assert lexer_reads_exit(source) == (is_code, lex_error)


@pytest.mark.parametrize(("source", "is_code", "lex_error"), EXIT_NESTINGS, ids=range(len(EXIT_NESTINGS)))
def test_screen_agrees_with_the_lexer(source: str, is_code: bool, lex_error: bool) -> None:
    rules = screen_lean(source).rules
    assert ("exit-command" in rules) == is_code, rules
    assert ("lex-error" in rules) == lex_error, rules


def test_screen_judges_sorry_as_lean_would() -> None:
    assert screen_lean("theorem t : False := by\n  /-/-/ sorry -- -/").rules == ["sorry"]
    assert screen_lean("theorem t : False := by\n  /- /- -/ sorry -/\n  trivial").ok
    # `whitespace` runs after the token `*`: `/- "-/` is a comment and `sorry` is code (the
    # screen's former lexer read `/`, `-` and a string `"-/ sorry "` there, and passed this)
    assert "sorry" in screen_lean('def f := x */- "-/ sorry "-/').rules


# ---------------------------------------------------------------------------------------------
# The engine's parser


def shape(node: Any) -> Any:
    """A syntax tree without positions, for comparing two readings."""
    if isinstance(node, A.Node):
        return (type(node).__name__,) + tuple(
            shape(getattr(node, f.name)) for f in dataclasses.fields(node) if f.name not in ("line", "col")
        )
    if isinstance(node, (list, tuple)):
        return tuple(shape(x) for x in node)
    return node


@pytest.mark.parametrize(
    ("hostile", "lean_reads"),
    [
        # the example: Lean's postcondition is `True ∨ result = 0`, always true
        ("/-/-/ True ∨ -- -/\n  result = 0", "True ∨\n  result = 0"),
        ("/-/- -/ result + 1", "result + 1"),
        ("/- /- -/ result -/ 0", "0"),
        ("/- -- -/ result", "result"),
        ("-- /- \n result", "result"),
        ('"/-" ++ s ++ "-/"', '"/-" ++ s ++ "-/"'),
    ],
)
def test_engine_parses_hostile_nestings_as_lean(hostile: str, lean_reads: str) -> None:
    assert shape(parse_term(hostile)) == shape(parse_term(lean_reads))


# ---------------------------------------------------------------------------------------------
# The values reader


@pytest.mark.parametrize(
    ("text", "ty", "value"),
    [
        ("[1, /-/-/ 2, -- -/\n 3]", "List Nat", (Nat(1), Nat(2), Nat(3))),
        ("[1, /- /- -/ 2, -/ 3]", "List Nat", (Nat(1), Nat(3))),
        ('["/-", "-/", "--"]', "List String", ("/-", "-/", "--")),
        ("['-', '/']", "List Char", None),
    ],
)
def test_values_reader_agrees_with_the_lexer(text: str, ty: str, value: Any) -> None:
    parsed = parse_lean(text, ty)
    if value is not None:
        assert parsed == value
    else:
        assert [str(c) for c in parsed] == ["-", "/"]


def test_values_reader_rejects_what_lean_cannot_read() -> None:
    with pytest.raises(ValueParseError, match="unterminated comment"):
        parse_lean("[1, /- 2]", "List Nat")
    with pytest.raises(ValueParseError, match="unterminated string"):
        parse_lean('[/- "-/", "x"]', "List String")  # the comment ends inside the quotes
