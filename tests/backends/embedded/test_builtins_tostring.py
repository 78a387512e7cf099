"""toString / repr rendering, byte for byte as Lean prints it."""

from __future__ import annotations

import pytest

from veriscale.backends.embedded.builtins import repr_value, to_string
from veriscale.lean.values import NONE, UNIT, Arr, Char, Ctor, Nat, Pair, Some, Struct, UInt8


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ((Nat(1), Nat(2), Nat(3)), "[1, 2, 3]"),  # List.toString
        ((), "[]"),
        (Arr((1, -2)), "#[1, -2]"),  # "#" ++ toString a.toList
        # ToString (α × β) is "(" ++ toString a ++ ", " ++ toString b ++ ")": no flattening
        (Pair(1, Pair("a", Char("b"))), "(1, (a, b))"),
        (Some(-3), "(some -3)"),  # addParenHeuristic: no whitespace, no parens
        (Some("a b"), "(some (a b))"),
        (Some((1, 2)), "(some [1, 2])"),
        (NONE, "none"),
        (True, "true"),
        (UNIT, "()"),
        (UInt8(255), "255"),
        ("héllo", "héllo"),
        (2.5, "2.500000"),
    ],
)
def test_to_string(value: object, text: str) -> None:
    assert to_string(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ((1, -2), "[1, -2]"),  # list elements at precedence 0: no parentheses
        (Some(-3), "some (-3)"),  # Repr Int: addAppParen when negative
        (Some(Some(1)), "some (some 1)"),
        (Pair(Nat(15), 3.0), "(15, 3.000000)"),
        (Pair(1, Pair(2, 3)), "(1, 2, 3)"),
        ("a\"b\n", '"a\\"b\\n"'),  # String.quote
        ("\x01", '"\\x01"'),
        (Char("x"), "'x'"),
        (Char("\t"), "'\\t'"),
        (Arr(()), "#[]"),
        (Struct("Point", (("x", 1), ("y", -2))), "{ x := 1, y := -2 }"),
        (Ctor("Tree.node", (Ctor("Tree.leaf"), 3)), "Tree.node Tree.leaf 3"),
    ],
)
def test_repr(value: object, text: str) -> None:
    assert repr_value(value) == text


def test_repr_in_argument_position() -> None:
    assert repr_value(Some(1), 1024) == "(some 1)"
    assert repr_value(Ctor("Tree.node", (1,)), 1024) == "(Tree.node 1)"
    assert repr_value(-5, 1024) == "(-5)"


def test_quote_characters_print_as_lean_v4_24_prints_them() -> None:
    """`Char.quoteCore c (inString := false)` escapes `'` (lean4 PR #8742, in the pinned v4.24)."""
    assert repr_value(Char("'")) == "'\\''"
    assert repr_value(Char('"')) == "'\\\"'"
    assert repr_value("it's") == '"it\'s"'
