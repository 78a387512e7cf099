"""Lean's printing of runtime values (``veriscale.lean.printing``): one walker for every reader."""

from __future__ import annotations

import math

import pytest

from veriscale.backends.embedded.builtins import repr_value as engine_repr
from veriscale.backends.embedded.builtins import to_string as engine_to_string
from veriscale.backends.embedded.runtime_support import LeanSubarray
from veriscale.lean import codec, printing
from veriscale.lean.codec import parse_lean
from veriscale.lean.printing import (
    quote_char,
    quote_core,
    quote_string,
    repr_value,
    same_as_printed,
    to_string,
)
from veriscale.lean.values import Arr, Char, Ctor, Nat, Some, Struct, values_equal


# Lean's `Char.quoteCore` (src/Init/Data/Repr.lean, v4.24): `\n`, `\t`, `\\`, `\"` always;
# `\'` only when `inString` is false (lean4 PR #8742: before it `'''` was printed, which does not
# parse); `\xHH` with lowercase hex for code points <= 31 and 127; anything else as itself.
@pytest.mark.parametrize(
    ("c", "in_char", "in_string"),
    [
        ("'", "\\'", "'"),
        ('"', '\\"', '\\"'),
        ("\\", "\\\\", "\\\\"),
        ("\n", "\\n", "\\n"),
        ("\t", "\\t", "\\t"),
        ("\r", "\\x0d", "\\x0d"),
        ("\x00", "\\x00", "\\x00"),
        ("\x1f", "\\x1f", "\\x1f"),
        ("\x7f", "\\x7f", "\\x7f"),
        ("\x80", "\x80", "\x80"),  # only ASCII controls are escaped
        ("é", "é", "é"),
        ("a", "a", "a"),
    ],
)
def test_char_quote_core_follows_lean(c: str, in_char: str, in_string: str) -> None:
    assert quote_core(c, in_string=False) == in_char
    assert quote_core(c, in_string=True) == in_string
    assert quote_char(c) == f"'{in_char}'"
    assert quote_string(c) == f'"{in_string}"'


def test_the_codec_and_the_engine_print_literals_through_the_same_quoting() -> None:
    # the codec's Lean literals, the engine's `repr` and the Lean layer are one implementation
    assert codec.quote_char is printing.quote_char and codec.quote_string is printing.quote_string
    for c in ("'", '"', "\\", "\n", "\x01", "x"):
        assert engine_repr(Char(c)) == codec.quote_char(c) == quote_char(c)
        assert engine_repr(f"a{c}b") == codec.quote_string(f"a{c}b")


@pytest.mark.parametrize("text", ["", "plain", "it's", 'say "hi"', "back\\slash", "tab\tnew\nline", "\x00\x7f", "é😀"])
def test_printed_literals_read_back(text: str) -> None:
    assert parse_lean(quote_string(text), "String") == text
    for c in text:
        assert parse_lean(quote_char(c), "Char") == Char(c)


def test_engine_builtins_are_the_lean_layers_walker() -> None:
    value = (Some(Arr((Nat(1), -2))), Struct("P", (("x", 1.5),)))
    assert engine_to_string(value[0]) == to_string(value[0]) == "(some #[1, -2])"
    assert engine_repr(value[1]) == repr_value(value[1]) == "{ x := 1.500000 }"


def test_engine_values_print_through_their_own_text() -> None:
    # Lean: `toString s = toString s.toArray`, `repr s = repr s.toArray ++ ".toSubarray"`
    sub = LeanSubarray(Arr((Nat(1), Nat(2), Nat(3))), 1, 3)
    assert to_string(sub) == "#[2, 3]"
    assert repr_value(sub) == "#[2, 3].toSubarray"
    assert to_string((sub,)) == "[#[2, 3]]"  # also inside other values


def test_an_unprintable_value_is_unsupported_naming_its_type() -> None:
    from veriscale.lean.values import Unsupported

    with pytest.raises(Unsupported, match="no ToString instance handled for P"):
        to_string(Struct("P", (("x", 1),)))


def test_same_as_printed_and_values_equal_walk_alike() -> None:
    # the same structural walk; only floats differ: as printed (six decimals) vs exactly
    near = (Ctor("T.mk", (0.1 + 0.2,)), Arr((Some(1.0 / 3.0),)))
    stored = (Ctor("T.mk", (0.3,)), Arr((Some(0.333333),)))
    assert same_as_printed(near, stored)
    assert not values_equal(near, stored)
    assert same_as_printed(math.nan, math.nan) and values_equal(math.nan, math.nan)
    assert not same_as_printed(Arr((1,)), (1,)) and not values_equal(Arr((1,)), (1,))
    assert not same_as_printed(Ctor("T.mk", (1.0,)), Ctor("T.other", (1.0,)))
