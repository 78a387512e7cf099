"""The tokenizer of the embedded Lean engine: Lean 4's lexical rules on small hand-written inputs."""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.backends.embedded.lexer import (
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
    InterpPiece,
    LeanSyntaxError,
    Token,
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


@pytest.mark.parametrize(("source", "col"), [("x + 1e", 6), ("x + 2.5e+", 9), ("3E-", 3)])
def test_exponent_without_digits_is_an_error(source: str, col: int) -> None:
    # Lean's parseOptExp: after `e`/`E` (and an optional sign) a digit is mandatory
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
    with pytest.raises(LeanSyntaxError) as info:
        tokenize("x\n  0xZZ")
    assert (info.value.line, info.value.col) == (2, 2)


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
        ("c == 'ab'", 7, "missing end of character literal"),
        (r"c == '\0'", 7, "invalid escape"),
        ("c == 'a", 7, "missing end of character literal"),
        ("c == '", 6, "unterminated character literal"),
    ],
)
def test_malformed_char_literal_is_an_error(source: str, col: int, message: str) -> None:
    # Lean's tokenFnAux: a `'` not followed by `'` starts a character literal (charLitFnAux):
    # one character or escape, then `'`
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


def test_unterminated_block_comment_reports_where_it_starts() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        tokenize("x\n y /- open /- nested -/ still open")
    err = info.value
    assert (err.line, err.col) == (2, 3)
    assert "unterminated comment" in err.message


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
