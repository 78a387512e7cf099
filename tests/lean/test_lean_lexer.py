"""The one Lean 4 lexer (:mod:`veriscale.lean.lexer`): each lexical rule on small hand-written inputs,
with the function of Lean 4's source (v4.24) that decides it. Unless said otherwise the functions
are in ``src/Lean/Parser/Basic.lean``; ``isIdFirst``/``isIdRest``/``isLetterLike``/
``isSubScriptAlnum`` and ``decodeQuotedChar`` are in ``src/Init/Meta.lean``; ``interpolatedStrFn``
is in ``src/Lean/Parser/StrInterpolation.lean``."""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.lean.lexer import (
    CHAR,
    DOTIDENT,
    EOF,
    ERROR,
    FIELD,
    IDENT,
    INTERP,
    KEYWORD,
    NUM,
    SCI,
    STR,
    SYM,
    Comment,
    InterpPiece,
    LeanSyntaxError,
    Token,
    lex,
    tokenize,
)


def toks(text: str) -> list[Token]:
    """The tokens of ``text`` without the final EOF token (whose presence is checked once)."""
    tokens = tokenize(text)
    assert tokens[-1].kind == EOF
    return tokens[:-1]


def kv(text: str) -> list[tuple[str, Any]]:
    return [(t.kind, t.value) for t in toks(text)]


def single(text: str) -> Token:
    tokens = toks(text)
    assert len(tokens) == 1, [(t.kind, t.text) for t in tokens]
    return tokens[0]


def test_empty_and_blank_input_give_only_eof() -> None:
    for text in ("", "   \n\n  ", "-- only a comment", "/- block -/"):
        tokens = tokenize(text)
        assert [t.kind for t in tokens] == [EOF]


# ---------------------------------------------------------------------------------------------
# Identifiers and keywords


@pytest.mark.parametrize(
    ("text", "name", "parts"),
    [
        ("x", "x", ("x",)),
        ("_acc", "_acc", ("_acc",)),
        ("List.foldl", "List.foldl", ("List", "foldl")),
        ("Std.HashMap.empty", "Std.HashMap.empty", ("Std", "HashMap", "empty")),
        ("xs.get!", "xs.get!", ("xs", "get!")),
        ("xs.find?", "xs.find?", ("xs", "find?")),
        ("x'", "x'", ("x'",)),
        ("h''", "h''", ("h''",)),
        ("α", "α", ("α",)),
        ("β₁", "β₁", ("β₁",)),
        ("ℕ", "ℕ", ("ℕ",)),
        ("café", "café", ("café",)),
        ("p.1", "p.1", ("p", "1")),
        ("p.2.1", "p.2.1", ("p", "2", "1")),
        ("«my name»", "my name", ("my name",)),
        ("x.«def»", "x.def", ("x", "def")),
    ],
)
def test_identifiers(text: str, name: str, parts: tuple[str, ...]) -> None:
    tok = single(text)
    assert tok.kind == IDENT
    assert tok.value == name
    assert tok.parts == parts
    assert tok.text == text


def test_lambda_and_pi_are_not_identifier_letters() -> None:
    # Greek letters are identifier letters, except λ, Π and Σ which are notation.
    assert kv("λx") == [(SYM, "λ"), (IDENT, "x")]
    assert kv("αλ") == [(IDENT, "α"), (SYM, "λ")]


@pytest.mark.parametrize("word", ["def", "fun", "match", "with", "let", "if", "then", "else", "do", "for", "in",
                                  "where", "theorem", "structure", "Type", "termination_by", "deriving"])
def test_keywords(word: str) -> None:
    tok = single(word)
    assert (tok.kind, tok.value) == (KEYWORD, word)


@pytest.mark.parametrize("text", ["rec", "define", "fun_x", "matches", "types", "do'"])
def test_words_that_only_look_like_keywords_are_identifiers(text: str) -> None:
    tok = single(text)
    assert (tok.kind, tok.value) == (IDENT, text)


def test_guillemets_make_a_keyword_an_identifier() -> None:
    assert kv("«def» def") == [(IDENT, "def"), (KEYWORD, "def")]


def test_bang_keywords() -> None:
    assert kv("panic! assert!") == [(KEYWORD, "panic!"), (KEYWORD, "assert!")]
    # `get!` is an ordinary identifier even though it ends with `!`
    assert kv("get! x!") == [(IDENT, "get!"), (IDENT, "x!")]


def test_unterminated_guillemet_is_an_error() -> None:
    with pytest.raises(LeanSyntaxError):
        tokenize("«abc")


# ---------------------------------------------------------------------------------------------
# Numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("42", 42),
        ("007", 7),
        ("123456789012345678901234567890", 123456789012345678901234567890),
        ("0x1F", 31),
        ("0XfF", 255),
        ("0b101", 5),
        ("0B11", 3),
        ("0o17", 15),
    ],
)
def test_natural_number_literals(text: str, value: int) -> None:
    tok = single(text)
    assert (tok.kind, tok.value, tok.text) == (NUM, value, text)


@pytest.mark.parametrize(
    ("text", "mantissa", "exponent"),
    [
        ("1.5", 15, -1),
        ("0.001", 1, -3),
        ("3.14159", 314159, -5),
        ("1e-3", 1, -3),
        ("1E+2", 1, 2),
        ("2e10", 2, 10),
        ("2.5e2", 25, 1),
        ("10.0", 100, -1),
    ],
)
def test_scientific_literals(text: str, mantissa: int, exponent: int) -> None:
    tok = single(text)
    assert tok.kind == SCI
    assert tok.value == (mantissa, exponent)
    assert tok.text == text


def test_scientific_literal_with_trailing_dot() -> None:
    # Lean's decimalNumberFn consumes a '.' after the digits even when no digit follows it.
    assert kv("2. + x")[0] == (SCI, (2, 0))
    assert kv("(2.)") == [(SYM, "("), (SCI, (2, 0)), (SYM, ")")]


def test_dot_after_a_numeral_belongs_to_the_numeral() -> None:
    # so `2.succ` is the scientific literal `2.` followed by the identifier `succ` (not a field access)
    assert kv("2.succ") == [(SCI, (2, 0)), (IDENT, "succ")]


@pytest.mark.parametrize(("source", "col"), [("x + 1e", 5), ("x + 2.5e+", 7), ("3E-", 1), ("2else", 1)])
def test_exponent_without_digits_is_an_error(source: str, col: int) -> None:
    # `decimalNumberFn.parseOptExp`: after `e`/`E` (and an optional sign) a digit is mandatory;
    # the error is reported at the `e` (the state's position before it was consumed)
    with pytest.raises(LeanSyntaxError) as info:
        tokenize(source)
    assert (info.value.line, info.value.col) == (1, col)


def test_digit_separators() -> None:
    # Lean's takeDigitsFn: `_` separates digits, and each run of `_` must be followed by a digit
    assert kv("1_000_000") == [(NUM, 1000000)]
    assert kv("1__0") == [(NUM, 10)]
    assert kv("1_0.2_5") == [(SCI, (1025, -2))]
    with pytest.raises(LeanSyntaxError) as info:
        tokenize("12_ + 1")
    assert (info.value.line, info.value.col) == (1, 3)


def test_number_followed_by_field_access() -> None:
    assert kv("(2).toFloat") == [(SYM, "("), (NUM, 2), (SYM, ")"), (FIELD, "toFloat")]


def test_minus_is_never_part_of_a_numeral() -> None:
    assert kv("-1") == [(SYM, "-"), (NUM, 1)]
    assert kv("a-1") == [(IDENT, "a"), (SYM, "-"), (NUM, 1)]


def test_invalid_hex_numeral_is_an_error_with_its_position() -> None:
    # `hexNumberFn` calls `takeDigitsFn` needing a digit: the error is at the first non-digit
    with pytest.raises(LeanSyntaxError) as info:
        tokenize("x\n  0xZZ")
    assert (info.value.line, info.value.col) == (2, 4)
    assert info.value.message == "unexpected character; expected hexadecimal number"


# ---------------------------------------------------------------------------------------------
# Strings and characters


@pytest.mark.parametrize(
    ("source", "value"),
    [
        (r'"plain"', "plain"),
        (r'""', ""),
        (r'"a\nb"', "a\nb"),
        (r'"tab\there"', "tab\there"),
        (r'"cr\r"', "cr\r"),
        (r'"say \"hi\""', 'say "hi"'),
        (r'"back\\slash"', "back\\slash"),
        (r'"it\'s"', "it's"),
        (r'"\x41\x7a"', "Az"),
        (r'"\u00e9\u03bb"', "éλ"),
        ('"αβγ ✓"', "αβγ ✓"),
        ('"a -- not a comment /- nor this"', "a -- not a comment /- nor this"),
        # a string gap: backslash-newline skips the next line's indentation
        ('"ab\\\n    cd"', "abcd"),
    ],
)
def test_string_literals_and_escapes(source: str, value: str) -> None:
    tok = single(source)
    assert (tok.kind, tok.value, tok.text) == (STR, value, source)


def test_unicode_escape_takes_exactly_four_hex_digits() -> None:
    # Lean's `\u` escape is `\uHHHH`; a fifth digit is an ordinary character.
    assert single(r'"\u1F600"').value == "\u1f60" + "0"


def test_braced_unicode_escape_is_rejected_like_lean() -> None:
    # Lean 4 has no `\u{...}` form: `\u` must be followed by four hex digits.
    with pytest.raises(LeanSyntaxError):
        tokenize(r'"\u{1F600}"')


@pytest.mark.parametrize("source", [r'"\q"', r'"\x4"', r'"\xZZ"', r'"\u12"'])
def test_invalid_escapes_are_errors(source: str) -> None:
    with pytest.raises(LeanSyntaxError) as info:
        tokenize("  " + source)
    assert info.value.line == 1


def test_backslash_zero_is_not_a_lean_escape() -> None:
    # Lean's isQuotableCharDefault: \\ \" \' r n t, then \x and \u; no \0
    with pytest.raises(LeanSyntaxError) as info:
        tokenize(r'"ab\0"')
    assert (info.value.line, info.value.col) == (1, 4)
    assert kv(r'"\x00"') == [(STR, "\0")]


def test_raw_string_literal() -> None:
    assert kv(r'r"a\n"') == [(STR, "a\\n")]
    assert kv('r#"say "hi""#') == [(STR, 'say "hi"')]


def test_raw_string_ends_at_a_quote_followed_by_as_many_hashes() -> None:
    # Lean's rawStrLitFnAux: with n hashes, `"` followed by fewer hashes is content
    tok = single('r##"a"#b"##')
    assert (tok.kind, tok.value, tok.text) == (STR, 'a"#b', 'r##"a"#b"##')
    assert kv('r"x" ++ y') == [(STR, "x"), (SYM, "++"), (IDENT, "y")]


def test_r_not_followed_by_a_quote_is_an_identifier() -> None:
    assert kv("r #[1]") == [(IDENT, "r"), (SYM, "#["), (NUM, 1), (SYM, "]")]
    assert kv("r#[1]")[0] == (IDENT, "r")
    assert kv("rr") == [(IDENT, "rr")]


def test_unterminated_raw_string_is_reported_at_its_start() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        tokenize('x\n  r#"abc"')
    assert (info.value.line, info.value.col) == (2, 2)


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("'a'", "a"),
        ("' '", " "),
        ("'α'", "α"),
        ("'-'", "-"),
        ("'\"'", '"'),
        (r"'\n'", "\n"),
        (r"'\t'", "\t"),
        (r"'\''", "'"),
        (r"'\\'", "\\"),
        (r"'\x41'", "A"),
        (r"'\u03bb'", "λ"),
    ],
)
def test_char_literals(source: str, value: str) -> None:
    tok = single(source)
    assert (tok.kind, tok.value, tok.text) == (CHAR, value, source)


def test_apostrophe_after_index_is_a_symbol_not_a_char() -> None:
    assert kv("xs[i]'h") == [(IDENT, "xs"), (SYM, "["), (IDENT, "i"), (SYM, "]"), (SYM, "'"), (IDENT, "h")]


def test_char_literals_side_by_side() -> None:
    assert kv("f 'a' 'b'") == [(IDENT, "f"), (CHAR, "a"), (CHAR, "b")]


@pytest.mark.parametrize(
    ("source", "col", "message"),
    [
        # `charLitFnAux` moves past the character that should have been `'` before failing
        ("c == 'ab'", 8, "missing end of character literal"),
        (r"c == '\0'", 7, "invalid escape"),
        ("c == 'a", 7, "missing end of character literal"),
        ("c == '", 6, "unexpected end of input"),
    ],
)
def test_malformed_char_literal_is_an_error(source: str, col: int, message: str) -> None:
    # `tokenFnAux`: a `'` not followed by `'` starts a character literal (`charLitFnAux`):
    # one character or escape (`quotedCharFn`), then `'`
    with pytest.raises(LeanSyntaxError) as info:
        tokenize(source)
    assert (info.value.line, info.value.col) == (1, col) and message in info.value.message


def test_apostrophe_after_index_with_space_is_a_char_literal() -> None:
    # only `]'` directly after the bracket is the proof form of `xs[i]'h`
    assert kv("xs[i] 'h'") == [(IDENT, "xs"), (SYM, "["), (IDENT, "i"), (SYM, "]"), (CHAR, "h")]


def test_interpolated_string_pieces() -> None:
    tok = single('s!"n = {n}, next {f (n + 1)}!"')
    assert tok.kind == INTERP
    pieces = tok.value
    assert [p if isinstance(p, str) else ("expr", p.text) for p in pieces] == [
        "n = ",
        ("expr", "n"),
        ", next ",
        ("expr", "f (n + 1)"),
        "!",
    ]


def test_interpolated_piece_positions_point_into_the_source() -> None:
    source = 'x\n  s!"a{y}b"'
    tok = toks(source)[1]
    piece = tok.value[1]
    assert isinstance(piece, InterpPiece)
    assert (piece.line, piece.col) == (2, 7)
    assert source[piece.offset : piece.offset + len(piece.text)] == "y"


def test_interpolation_with_escaped_braces_and_nested_strings() -> None:
    tok = single(r's!"\{lit} {"x" ++ y}\n"')
    pieces = tok.value
    assert pieces[0] == "{lit} "
    assert isinstance(pieces[1], InterpPiece) and pieces[1].text == '"x" ++ y'
    assert pieces[2] == "\n"


def test_interpolation_with_only_text() -> None:
    assert single('s!"plain"').value == ["plain"]


def test_unterminated_interpolation_is_an_error() -> None:
    with pytest.raises(LeanSyntaxError):
        tokenize('s!"a{b"')


# ---------------------------------------------------------------------------------------------
# Comments


def test_line_comments_run_to_the_end_of_the_line() -> None:
    assert kv("a -- comment b\nc -- at end of file") == [(IDENT, "a"), (IDENT, "c")]


def test_block_comments_nest() -> None:
    assert kv("a /- one /- two -/ still comment -/ b") == [(IDENT, "a"), (IDENT, "b")]


def test_doc_and_module_doc_comments_are_skipped() -> None:
    assert kv("/-- doc for f -/ def f /-! module doc -/ x") == [(KEYWORD, "def"), (IDENT, "f"), (IDENT, "x")]


def test_comment_counts_as_whitespace_before_the_next_token() -> None:
    assert toks("a/- c -/b")[1].space_before
    assert toks("a--c\nb")[1].space_before
    assert not toks("a+b")[1].space_before


# ---------------------------------------------------------------------------------------------
# Symbols


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (":=", ":="),
        ("=>", "=>"),
        ("←", "←"),
        ("<-", "←"),
        ("→", "→"),
        ("->", "→"),
        ("↔", "↔"),
        ("<->", "↔"),
        ("≤", "≤"),
        ("<=", "≤"),
        ("≥", "≥"),
        (">=", "≥"),
        ("/\\", "∧"),
        ("\\/", "∨"),
        ("|>.", "|>."),
        ("|>", "|>"),
        ("<|", "<|"),
        ("<|>", "<|>"),
        ("∘", "∘"),
        ("≠", "≠"),
        ("!=", "!="),
        ("==", "=="),
        ("&&", "&&"),
        ("||", "||"),
        ("++", "++"),
        ("::", "::"),
        ("∈", "∈"),
        ("∉", "∉"),
        ("∀", "∀"),
        ("∃", "∃"),
        ("λ", "λ"),
        ("·", "·"),
        ("¬", "¬"),
        ("↑", "↑"),
        ("⟨", "⟨"),
        ("⟩", "⟩"),
        ("#[", "#["),
        ("@[", "@["),
        ("×", "×"),
        ("^", "^"),
        ("%", "%"),
        ("$", "$"),
    ],
)
def test_operators_and_their_normal_form(text: str, value: str) -> None:
    a, op, b = toks(f"a {text} b")
    assert (a.value, b.value) == ("a", "b")
    assert op.kind == SYM
    assert op.value == value
    assert op.text == text


def test_longest_match_without_spaces() -> None:
    assert kv("a::b") == [(IDENT, "a"), (SYM, "::"), (IDENT, "b")]
    assert kv("x:=y") == [(IDENT, "x"), (SYM, ":="), (IDENT, "y")]
    assert kv("a<=b") == [(IDENT, "a"), (SYM, "≤"), (IDENT, "b")]
    assert kv("xs|>.map") == [(IDENT, "xs"), (SYM, "|>."), (IDENT, "map")]


def test_anonymous_constructor_brackets() -> None:
    assert kv("⟨a, b⟩") == [(SYM, "⟨"), (IDENT, "a"), (SYM, ","), (IDENT, "b"), (SYM, "⟩")]


# ---------------------------------------------------------------------------------------------
# Dots: field access, leading-dot names, cdot


def test_dot_after_a_closing_bracket_is_a_field_access() -> None:
    assert kv("(f x).length") == [(SYM, "("), (IDENT, "f"), (IDENT, "x"), (SYM, ")"), (FIELD, "length")]
    assert kv("xs[0]!.succ") == [(IDENT, "xs"), (SYM, "["), (NUM, 0), (SYM, "]"), (SYM, "!"), (FIELD, "succ")]
    assert kv("⟨1, 2⟩.1") == [(SYM, "⟨"), (NUM, 1), (SYM, ","), (NUM, 2), (SYM, "⟩"), (FIELD, "1")]


def test_field_chain_after_bracket_is_one_token_with_parts() -> None:
    tok = toks("(p).1.2")[-1]
    assert tok.kind == FIELD
    assert tok.parts == ("1", "2")


def test_field_after_literals() -> None:
    assert kv('"abc".length') == [(STR, "abc"), (FIELD, "length")]
    assert kv("'a'.toNat") == [(CHAR, "a"), (FIELD, "toNat")]


def test_leading_dot_name_after_whitespace() -> None:
    assert kv(".some x") == [(DOTIDENT, "some"), (IDENT, "x")]
    assert kv("f .none") == [(IDENT, "f"), (DOTIDENT, "none")]
    assert kv("(.inl 1)") == [(SYM, "("), (DOTIDENT, "inl"), (NUM, 1), (SYM, ")")]


def test_cdot_field_access() -> None:
    assert kv("(·.length)") == [(SYM, "("), (SYM, "·"), (FIELD, "length"), (SYM, ")")]


def test_ascii_dot_followed_by_space_is_a_cdot() -> None:
    assert kv("(. + 1)") == [(SYM, "("), (SYM, "·"), (SYM, "+"), (NUM, 1), (SYM, ")")]


# ---------------------------------------------------------------------------------------------
# Positions


def test_token_positions_are_line_and_code_point_column() -> None:
    source = "def f :=\n  α + β\n\n    42"
    got = [(t.text, t.line, t.col) for t in toks(source)]
    assert got == [("def", 1, 0), ("f", 1, 4), (":=", 1, 6), ("α", 2, 2), ("+", 2, 4), ("β", 2, 6), ("42", 4, 4)]


def test_token_offsets_and_text_slice_the_source() -> None:
    source = 'def g (xs : List Nat) : String :=\n  s!"{xs}" ++ "é\\n" ++ toString \'x\' -- c\n  /- c -/ xs.map (· + 1) |>.length'
    for tok in toks(source):
        assert source[tok.offset : tok.end] == tok.text


def test_space_and_newline_flags() -> None:
    a, b, c, d = toks("f (x)\n  y(z")[:4]
    assert (a.space_before, a.newline_before) == (True, True)  # start of input counts as a line start
    assert (b.space_before, b.newline_before) == (True, False)
    assert (c.space_before, c.newline_before) == (False, False)
    assert (d.space_before, d.newline_before) == (False, False)
    y, paren = toks("f (x)\n  y(z")[4:6]
    assert (y.space_before, y.newline_before) == (True, True)
    assert (paren.space_before, paren.newline_before) == (False, False)


def test_tokenize_fragment_at_a_base_position() -> None:
    tokens = tokenize("a +\nb", line=10, col=5, offset=200)
    assert [(t.text, t.line, t.col, t.offset) for t in tokens[:-1]] == [
        ("a", 10, 5, 200),
        ("+", 10, 7, 202),
        ("b", 11, 0, 204),
    ]


def test_eof_token_position_is_end_of_input() -> None:
    eof = tokenize("ab\ncd")[-1]
    assert (eof.kind, eof.line, eof.col, eof.offset) == (EOF, 2, 2, 5)


# ---------------------------------------------------------------------------------------------
# Errors carry line and column


def test_unterminated_string_reports_where_it_starts() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        tokenize('def s :=\n    "abc\n  more')
    err = info.value
    assert (err.line, err.col) == (2, 4)
    assert "unterminated string" in err.message
    assert str(err).startswith("2:4:")


def test_unterminated_block_comment_is_reported_at_the_end_of_input() -> None:
    # `finishCommentBlock` fails with `eoi` at the end of the input; `start` keeps the `/-`
    source = "x\n y /- open /- nested -/ still open"
    with pytest.raises(LeanSyntaxError) as info:
        tokenize(source)
    err = info.value
    assert (err.line, err.col) == (2, len(" y /- open /- nested -/ still open"))
    assert err.message == "unterminated comment"
    assert (err.offset, err.start) == (len(source), source.index("/-"))


def test_invalid_escape_reports_its_line() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        tokenize('a\nb\n"ok" "bad \\q"')
    assert info.value.line == 3


def test_recovering_tokenizer_keeps_the_error_and_resumes_at_the_next_command_line() -> None:
    tokens = tokenize('def a := "x\\q"\n  + 1\ndefinitely := 2\ndef b := 3', recover=True)
    kinds = [t.kind for t in tokens]
    assert kinds.count(ERROR) == 1
    err = tokens[kinds.index(ERROR)]
    assert isinstance(err.value, LeanSyntaxError) and (err.line, err.col) == (1, 12)
    # `definitely` is not the keyword `def`: lexing resumes at line 4
    after = tokens[kinds.index(ERROR) + 1]
    assert (after.kind, after.value, after.line, after.col) == (KEYWORD, "def", 4, 0)
    assert after.newline_before


def test_tokenizer_without_recovery_raises() -> None:
    with pytest.raises(LeanSyntaxError):
        tokenize('def a := "x\\q"\ndef b := 3')


# =============================================================================================
# Lean's rules, one by one
# =============================================================================================


def code_of(text: str) -> list[str]:
    """The source text of the code tokens of ``text`` (comments are not tokens)."""
    return [t.text for t in toks(text)]


# ---------------------------------------------------------------------------------------------
# Block comments: `whitespace` and `finishCommentBlock`


def test_hostile_comment_nesting_reads_as_lean_reads_it() -> None:
    # `whitespace` sees `/-`, consumes the next character without looking at it (`s.next input i`:
    # here the second `/`), then `finishCommentBlock 1` finds `-/` at once: the comment is `/-/-/`.
    # ` True ∨ ` is code, and `-- -/` is a line comment (its `-/` closes nothing). The next
    # line's `result = 0` is code too: the postcondition Lean reads is `True ∨ result = 0`.
    source = "/-/-/ True ∨ -- -/\n  result = 0"
    result = lex(source)
    assert [t.text for t in result.tokens[:-1]] == ["True", "∨", "result", "=", "0"]
    assert [(c.kind, c.text) for c in result.comments] == [("block", "/-/-/"), ("line", "-- -/")]
    assert result.problems == []


@pytest.mark.parametrize(
    ("source", "code"),
    [
        # the character after `/-` is skipped unseen: it cannot start a nested `/-` ...
        ("/-/- -/ x -/", ["x", "-", "/"]),
        # ... nor close the comment with the `-` of `/-`: `/-/` then `-/` closes
        ("/-/-/ x", ["x"]),
        # a doc comment's body starts after `/--` (`docComment`: "/--" >> commentBody):
        # `/--/ x -/` is one comment, not `/--/` followed by code
        ("/--/ x -/ y", ["y"]),
        ("/-!/ x -/ y", ["y"]),
        # ordinary nesting: each `/-` needs its own `-/`
        ("/- a /- b -/ c -/ d", ["d"]),
        ("/- a /- b -/ c -/ d -/", ["d", "-", "/"]),
        # `--` inside a block comment means nothing (`finishCommentBlock` knows only `-/` and `/-`)
        ("/- -- -/ x", ["x"]),
        ("/- --/ x", ["x"]),
        # `-/` and `/-` inside a line comment mean nothing (`takeUntilFn (· = '\n')`)
        ("-- /- \nx", ["x"]),
        ("-- -/ \nx", ["x"]),
        # a comment may close right before code: `-/` then `#`
        ("/- c -/#exit", ["#", "exit"]),
    ],
)
def test_block_comment_scanning(source: str, code: list[str]) -> None:
    assert code_of(source) == code


def test_quotes_mean_nothing_inside_comments() -> None:
    # the first `-/` closes the comment `/- "-/`; then `" x` is an unterminated string
    with pytest.raises(LeanSyntaxError, match="unterminated string literal"):
        tokenize('/- "-/" x')


def test_doc_and_module_doc_comments_are_recorded_with_their_kind() -> None:
    result = lex("/-- doc -/ def f := 1 /-! module -/ -- line\n/- block -/")
    assert [(c.kind, c.text) for c in result.comments] == [
        ("doc", "/-- doc -/"),
        ("module_doc", "/-! module -/"),
        ("line", "-- line"),
        ("block", "/- block -/"),
    ]
    doc = result.comments[0]
    assert isinstance(doc, Comment) and (doc.offset, doc.end, doc.line, doc.col) == (0, 10, 1, 0)


def test_a_line_break_inside_a_comment_is_a_line_break_before_the_next_token() -> None:
    # `checkLinebreakBefore` looks at the whole trailing whitespace, comments included
    a, b = toks("a /- one\ntwo -/ b")
    assert b.newline_before and b.space_before
    assert not toks("a /- one -/ b")[1].newline_before


# ---------------------------------------------------------------------------------------------
# Where comments start: `whitespace` runs after each token


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ("a--b", ["a"]),  # after an identifier `--` is a comment
        ("a/-b-/c", ["a", "c"]),  # and so is `/-`: `2/-1` is not a division
        ("x<--1", ["x", "<-", "-", "1"]),  # the token `<-` swallows the first `-`
        ("a |--b", ["a", "|-", "-", "b"]),  # the token `|-` (`⊢`, Init/Tactics.lean)
        ("{ x // p } //-b", ["{", "x", "/", "/", "p", "}", "/", "/", "-", "b"]),  # the token `//`
        ("a \\/-b", ["a", "\\/", "-", "b"]),  # the token `\/` (`∨`)
        ("(x)--c\ny", ["(", "x", ")", "y"]),
    ],
)
def test_comments_start_only_where_a_token_may_start(source: str, code: list[str]) -> None:
    assert code_of(source) == code


def test_lean_tokens_the_parser_reads_as_characters() -> None:
    # `//` and `]'` are single tokens for Lean; the engine's parser reads their characters
    assert kv("{ x // x > 0 }")[2:4] == [(SYM, "/"), (SYM, "/")]
    assert toks("a//b")[2].space_before is False


# ---------------------------------------------------------------------------------------------
# Whitespace: `whitespace` (and `String.crlfToLf` in `mkInputContext`)


def test_tabs_between_tokens_are_an_error() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        tokenize("def f :=\n\t1")
    assert (info.value.line, info.value.col) == (2, 0)
    assert info.value.message.startswith("tabs are not allowed")


def test_tabs_inside_comments_and_literals_are_text() -> None:
    assert kv('"a\tb" /- \t -/ -- \t\n\'\t\'') == [(STR, "a\tb"), (CHAR, "\t")]


def test_crlf_is_a_line_break_and_an_isolated_cr_is_an_error() -> None:
    a, b = toks("a\r\nb")
    assert (b.line, b.col, b.newline_before) == (2, 0, True)
    assert single('"x\r\ny"').value == "x\ny"  # Lean reads the normalized text
    with pytest.raises(LeanSyntaxError, match="isolated carriage returns are not allowed"):
        tokenize("a\rb")


@pytest.mark.parametrize("char", ["\u00a0", "\u200b", "\x0c", "\u2028"])
def test_other_spaces_are_not_whitespace(char: str) -> None:
    # only ' ' and '\n' are skipped; anything else is a token Lean's table may not know
    assert [t.text for t in toks(f"a{char}b")] == ["a", char, "b"]


def test_a_line_comment_ends_only_at_a_newline() -> None:
    # `takeUntilFn (fun c => c = '\n')`: a form feed or U+2028 does not end it
    assert code_of("-- c\u2028#exit\nx") == ["x"]
    assert code_of("-- c\x0c#exit\nx") == ["x"]


# ---------------------------------------------------------------------------------------------
# Identifiers: `identFnAux`, `isIdFirst`, `isIdRest`, `isLetterLike`, `isSubScriptAlnum`


@pytest.mark.parametrize(
    "name",
    ["é", "ñandú", "Ærø", "ŝĉ", "ℕ", "𝔽", "αβγ", "Ω", "ϊ", "ἀ", "x₁", "xⱼ", "xᵢ", "a'!?", "_x"],
)
def test_identifier_characters(name: str) -> None:
    # Latin-1 and Latin Extended-A letters, Greek, Coptic, letter-like symbols, script letters are
    # first characters; sub-scripts (`ⱼ` is U+2C7C) and `' ! ?` only continue a name
    tok = single(name)
    assert (tok.kind, tok.value) == (IDENT, name)


@pytest.mark.parametrize(
    ("source", "texts"),
    [
        ("a×b", ["a", "×", "b"]),  # × (U+00D7) is excluded from the Latin-1 letters
        ("a÷b", ["a", "÷", "b"]),  # ÷ (U+00F7) too
        ("λx", ["λ", "x"]),
        ("ΠΣ", ["Π", "Σ"]),
        ("ѕorry", ["ѕ", "orry"]),  # Cyrillic ѕ is no identifier character for Lean
        ("x٣", ["x", "٣"]),  # only ASCII digits continue a name (`Char.isDigit`)
        ("₁x", ["₁", "x"]),  # a sub-script does not start one
    ],
)
def test_characters_that_are_not_identifier_characters(source: str, texts: list[str]) -> None:
    assert [t.text for t in toks(source)] == texts


def test_guillemet_components_may_contain_anything_but_the_closing_guillemet() -> None:
    tok = single("«a.b c».«»")
    assert tok.kind == IDENT and tok.parts == ("a.b c", "") and tok.escaped
    assert single("«a«b\n»").parts == ("a«b\n",)  # even `«` and line breaks


def test_unterminated_guillemet_is_reported_after_it_and_swallows_the_rest() -> None:
    # `identFnAux`: "unterminated identifier escape" at the start of the part (after `«`)
    with pytest.raises(LeanSyntaxError) as info:
        tokenize("x «abc\ndef y := 1")
    assert (info.value.line, info.value.col, info.value.start) == (1, 3, 2)
    recovered = tokenize("x «abc\ndef y := 1", recover=True)
    assert [t.kind for t in recovered] == [IDENT, ERROR, EOF]


def test_a_dot_continues_a_name_only_before_a_name_character() -> None:
    # `isIdCont`: `.` followed by `isIdFirst` or `«`
    assert kv("a.b.«c»") == [(IDENT, "a.b.c")]
    assert kv("a.(b)")[:2] == [(IDENT, "a"), (SYM, ".")]


def test_escaped_and_unescaped_names() -> None:
    assert single("«x»").escaped and not single("x").escaped
    assert single("a.«b»").escaped


# ---------------------------------------------------------------------------------------------
# Numbers: `numberFnAux`, `decimalNumberFn`, `takeDigitsFn`


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("0b12", [(NUM, 1), (NUM, 2)]),  # `binNumberFn` stops at the first non-binary digit
        ("0o78", [(NUM, 7), (NUM, 8)]),
        ("0x_1", [(NUM, 1)]),  # `_` may follow the prefix when a digit follows it
        ("0_5", [(NUM, 5)]),
        ("1e1_0", [(SCI, (1, 10))]),
    ],
)
def test_numeral_edges(source: str, expected: list[tuple[str, Any]]) -> None:
    assert kv(source) == expected


@pytest.mark.parametrize(("source", "col"), [("0x", 2), ("0b_", 3), ("0b1_", 4), ("1__", 3)])
def test_numerals_ending_where_a_digit_is_required(source: str, col: int) -> None:
    with pytest.raises(LeanSyntaxError) as info:
        tokenize(source)
    assert info.value.col == col and "unexpected end of input" in info.value.message


def test_unicode_digits_are_not_numerals() -> None:
    assert [t.kind for t in toks("٣")] == [SYM]


# ---------------------------------------------------------------------------------------------
# Strings and characters: `strLitFnAux`, `quotedCharCoreFn`, `stringGapFn`, `decodeQuotedChar`


def test_string_gap_allows_exactly_one_newline() -> None:
    with pytest.raises(LeanSyntaxError, match="unexpected additional newline in string gap"):
        tokenize('"a\\\n  \n  b"')
    assert single('"a\\\n \t b"').value == "ab"  # any whitespace but a second newline


def test_a_gap_must_start_right_after_the_backslash() -> None:
    with pytest.raises(LeanSyntaxError, match="invalid escape sequence"):
        tokenize('"a\\ \n b"')


def test_gaps_are_not_allowed_in_character_literals() -> None:
    with pytest.raises(LeanSyntaxError, match="invalid escape sequence"):
        tokenize("'\\\n'")


def test_a_non_scalar_unicode_escape_reads_as_nul_with_a_note() -> None:
    # `decodeQuotedChar` builds the character with `Char.ofNat`, which gives '\0' for a surrogate
    result = lex('"a\\uD800b"')
    assert result.tokens[0].value == "a\0b"
    assert result.problems == []
    (note,) = result.notes
    assert note.offset == 2 and "not a Unicode scalar value" in note.message


def test_interpolation_escapes() -> None:
    # `isQuotableCharForStrInterpolant`: `\{` is an escape in an interpolated string only;
    # `\}` is not an escape anywhere
    assert single('s!"\\{x}"').value == ["{x}"]
    with pytest.raises(LeanSyntaxError, match="invalid escape"):
        tokenize('"\\{"')
    with pytest.raises(LeanSyntaxError, match="invalid escape"):
        tokenize('s!"\\}"')


def test_a_string_may_span_lines_and_hold_anything_but_an_unescaped_quote() -> None:
    assert single('"a\n-- b /- c"').value == "a\n-- b /- c"


# ---------------------------------------------------------------------------------------------
# Interpolated strings: `interpolatedStrFn`


def test_interpolated_term_is_lexed_so_its_literals_and_comments_hide_braces() -> None:
    tok = single('s!"<{f \'}\' "}" /- } -/ x}>"')
    pieces = tok.value
    assert pieces[0] == "<" and pieces[2] == ">"
    term = pieces[1]
    assert isinstance(term, InterpPiece)
    assert [t.text for t in term.tokens] == ["f", "'}'", '"}"', "x", ""]
    assert term.tokens[-1].kind == EOF


def test_interpolated_string_after_whitespace_and_nested() -> None:
    # `s!` is a token and whitespace may follow it before the string
    tok = single('s! "a{s!"{1}"}"')
    assert tok.kind == INTERP and tok.text == 's! "a{s!"{1}"}"'
    inner = tok.value[1]
    assert isinstance(inner, InterpPiece) and inner.tokens[0].kind == INTERP


def test_only_unescaped_interpolation_heads_take_an_interpolated_string() -> None:
    assert [t.kind for t in toks('«s!»"x{y}"')] == [IDENT, STR]
    assert [t.kind for t in toks('xs!"x{y}"')] == [IDENT, STR]


def test_callers_may_read_more_strings_as_interpolated() -> None:
    def after_throw(tokens: Any) -> bool:
        return bool(tokens) and tokens[-1].kind == IDENT and tokens[-1].value == "throwError"

    result = lex('throwError "bad {x}" ++ "{y}"', interpolated_after=after_throw)
    assert [t.kind for t in result.tokens] == [IDENT, INTERP, SYM, STR, EOF]


def test_comments_inside_interpolations_are_recorded() -> None:
    result = lex('s!"{x -- c\n}"')
    assert [c.text for c in result.comments] == ["-- c"]


# ---------------------------------------------------------------------------------------------
# `lex`: recovery, problems and positions


def test_lex_never_raises_and_lists_problems() -> None:
    result = lex('def a := "x\\q"\ndef b := 1 /- open')
    assert [p.message for p in result.problems] == ["invalid escape sequence", "unterminated comment"]
    assert [t.kind for t in result.tokens].count(ERROR) == 2
    assert [t.text for t in result.tokens if t.kind == KEYWORD] == ["def", "def"]


def test_an_unterminated_string_swallows_the_rest_like_lean() -> None:
    result = lex('def a := "x\ndef b := 1')
    assert [t.kind for t in result.tokens] == [KEYWORD, IDENT, SYM, ERROR, EOF]
    assert result.problems[0].message == "unterminated string literal"


def test_lex_positions_of_a_fragment() -> None:
    result = lex("/- c -/ x", line=3, col=4, offset=100)
    assert (result.comments[0].line, result.comments[0].col, result.comments[0].offset) == (3, 4, 100)
    x = result.tokens[0]
    assert (x.line, x.col, x.offset) == (3, 12, 108)


# ---------------------------------------------------------------------------------------------
# The fast path reads exactly what the general path reads


def _reading(text: str, fast: bool) -> tuple[Any, ...]:
    from veriscale.lean.lexer import _Lexer

    lexer = _Lexer(text, pos=0, line=1, col=0, base=0, recover=True, interpolated_after=None, fast=fast)
    result = lexer.run()

    def token_view(t: Token) -> tuple[Any, ...]:
        value = t.value
        if t.kind == INTERP:
            value = [p if isinstance(p, str) else (p.text, [token_view(x) for x in p.tokens]) for p in value]
        elif t.kind == ERROR:
            value = (value.message, value.line, value.col)
        return (t.kind, t.text, value, t.line, t.col, t.offset, t.end, t.space_before, t.newline_before,
                t.parts, t.escaped)  # fmt: skip

    return (
        [token_view(t) for t in result.tokens],
        result.comments,
        [(p.message, p.line, p.col) for p in result.problems],
    )


def test_fast_path_agrees_with_the_general_path() -> None:
    import random

    alphabet = list("ab rxs!_.0129eE\"'\\-/{}()[],;«»#\n\t\r") + ["é", "α", "λ", "⟨", "⟩", "₁", "«x»", "s!\"", "0x", "--", "/-", "-/"]
    rng = random.Random(7)
    samples = ['def f (xs : List Nat) : Nat := xs.foldl (· + ·) 0 -- sum\n  #[1, 2]"x"', "s! \"a{b}\" r#\"q\"#"]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    for text in samples:
        assert _reading(text, fast=True) == _reading(text, fast=False), text
