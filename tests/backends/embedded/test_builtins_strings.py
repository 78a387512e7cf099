"""String and Char semantics: Unicode, ASCII-only classifiers, splitOn, iterators."""

from __future__ import annotations

import random

import pytest

from veriscale.backends.embedded.builtins import BUILTINS
from veriscale.lean.values import NONE, Char, Nat, Some


def call(name: str, *args: object) -> object:
    return BUILTINS[name].fn(*args)


def test_length_counts_unicode_scalars() -> None:
    """A Lean String is a sequence of Unicode scalar values; `"héllo😀".length = 6`."""
    assert call("String.length", "héllo😀") == 6
    assert call("String.toList", "a😀") == (Char("a"), Char("😀"))
    assert call("String.mk", (Char("é"), Char("x"))) == "éx"


@pytest.mark.parametrize(
    ("s", "sep", "pieces"),
    [
        ("a b c", " ", ("a", "b", "c")),
        ("a  b", " ", ("a", "", "b")),
        ("", ",", ("",)),
        (",", ",", ("", "")),
        ("abc", "", ("abc",)),  # `if sep == "" then [s]`
        ("a--b--c", "--", ("a", "b", "c")),
        # A failed partial match restarts one character after where it began (splitOnAux uses
        # `s.next (i - j)`), so the separator inside "aab" / "ababcab" is still found.
        ("aab", "ab", ("a", "")),
        ("ababcab", "abc", ("ab", "ab")),
        ("aaa", "aa", ("", "a")),
    ],
)
def test_split_on(s: str, sep: str, pieces: tuple[str, ...]) -> None:
    assert call("String.splitOn", s, sep) == pieces


def test_split_on_agrees_with_leftmost_non_overlapping_search() -> None:
    """Lean's splitOnAux (v4.24, with backtracking) cuts at the leftmost non-overlapping matches."""
    rng = random.Random(7)
    for _ in range(500):
        s = "".join(rng.choice("ab") for _ in range(rng.randint(0, 10)))
        sep = "".join(rng.choice("ab") for _ in range(rng.randint(1, 3)))
        assert call("String.splitOn", s, sep) == tuple(s.split(sep))


def test_split_on_default_separator_is_a_space() -> None:
    assert call("String.splitOn", "x y") == ("x", "y")


def test_char_classifiers_are_ascii_only() -> None:
    """Init/Data/Char/Basic.lean: isUpper is 65..90, isLower 97..122, isDigit 48..57;
    isWhitespace is space, \\t, \\r, \\n; toLower/toUpper touch only ASCII letters."""
    assert call("Char.isAlpha", Char("é")) is False
    assert call("Char.isUpper", Char("Ä")) is False
    assert call("Char.isDigit", Char("٣")) is False
    assert call("Char.isAlphanum", Char("7")) is True
    assert call("Char.isWhitespace", Char("\u00a0")) is False
    assert call("Char.isWhitespace", Char("\r")) is True
    assert call("Char.toLower", Char("Ä")) == "Ä"
    assert call("Char.toLower", Char("Q")) == "q"
    assert call("String.toLower", "ÄÖÜ ABC") == "ÄÖÜ abc"
    assert call("String.toUpper", "straße") == "STRAßE"


def test_char_of_nat_invalid_is_nul() -> None:
    """`Char.ofNat n` is `'\\0'` unless n is a Unicode scalar value."""
    assert call("Char.ofNat", Nat(65)) == "A"
    assert call("Char.ofNat", Nat(0xD800)) == "\0"
    assert call("Char.ofNat", Nat(0x110000)) == "\0"
    assert call("Char.toNat", Char("😀")) == 0x1F600


def test_front_back_default_to_A() -> None:
    """`"".front = "".get 0 = default = 'A'`."""
    assert call("String.front", "") == "A"
    assert call("String.back", "") == "A"
    assert call("String.back", "xyz") == "z"


def test_trim_replace_take_drop() -> None:
    assert call("String.trim", " \t a b \n") == "a b"
    assert call("String.trim", "\u00a0x") == "\u00a0x"  # NBSP is not Char.isWhitespace
    assert call("String.replace", "aaa", "aa", "b") == "ba"
    assert call("String.replace", "abc", "", "x") == "abc"
    assert call("String.take", "héllo", Nat(2)) == "hé"
    assert call("String.drop", "héllo", Nat(9)) == ""
    assert call("String.dropRightWhile", "ab  ", lambda c: c == " ") == "ab"
    assert call("String.intercalate", ", ", ("a", "b")) == "a, b"
    assert call("String.join", ("a", "b")) == "ab"


def test_to_nat_and_to_int() -> None:
    """`toNat?` needs a non-empty all-digit string; `toInt?` allows one leading '-'."""
    assert call("String.toNat?", "123") == Some(123)
    assert call("String.toNat?", "") is NONE
    assert call("String.toNat?", "-1") is NONE
    assert call("String.toInt?", "-12") == Some(-12)
    assert call("String.toInt?", "-") is NONE
    # v4.24's isNat is `!s.isEmpty && s.all (·.isDigit)`: `_` separators came in v4.27 (lean4#11541)
    assert call("String.toNat?", "1_000") is NONE
    assert call("String.toInt?", "+1") is NONE  # '+' is no sign for `toInt?`


def test_iterator_walks_by_utf8_bytes() -> None:
    """String.Iterator positions are UTF-8 byte offsets; `curr` at the end is `default = 'A'`."""
    it = call("String.iter", "añb")
    assert call("String.Iterator.curr", it) == "a"
    it = call("String.Iterator.next", it)
    assert call("String.Iterator.curr", it) == "ñ"
    it = call("String.Iterator.next", it)
    assert it.pos == 3  # 'ñ' is two bytes
    assert call("String.Iterator.remainingToString", it) == "b"
    it = call("String.Iterator.next", it)
    assert call("String.Iterator.atEnd", it) is True
    assert call("String.Iterator.curr", it) == "A"
