"""The typed value codec: stored encodings in, runtime values out, Lean literals and keys back."""

from __future__ import annotations

import math
from typing import Any

import pytest

from veriscale.lean.codec import (
    LeanSource,
    ValueParseError,
    canonical_key,
    canonical_value_key,
    default_value,
    lean_float_of_literal,
    lean_float_of_scientific,
    parse_lean,
    parse_value,
    render_float,
    render_value,
    to_json,
)
from veriscale.lean.types import parse_structures, parse_type
from veriscale.lean.values import (
    NONE,
    UNIT,
    Arr,
    Char,
    Nat,
    Pair,
    Some,
    Struct,
    UInt8,
    UInt16,
    value_size,
    values_equal,
)

STRUCTS = parse_structures(
    """
structure Map (K V : Type) [BEq K] [BEq V] where
  entries : List (K × V)
deriving Inhabited

structure Point where
  x : Int
  y : Int
  name : String
"""
)


def pt(x: int, y: int, name: str) -> Struct:
    return Struct("Point", (("x", x), ("y", y), ("name", name)))


def mp(*entries: tuple[int, int]) -> Struct:
    return Struct("Map", (("entries", tuple(Pair(k, v) for k, v in entries)),))


# ---------------------------------------------------------------------------------------------
# Encodings


@pytest.mark.parametrize(
    ("raw", "ty", "expected"),
    [
        # JSON natives and numbers/booleans stored as text
        (7, "Nat", Nat(7)),
        ("7", "Nat", Nat(7)),
        (" 7 ", "Nat", Nat(7)),
        (-7, "Int", -7),
        ("-7", "Int", -7),
        ("(-7)", "Int", -7),
        ("(7 : Int)", "Int", 7),
        ("0x1F", "Nat", Nat(31)),
        (True, "Bool", True),
        ("false", "Bool", False),
        (255, "UInt8", UInt8(255)),
        ("65535", "UInt16", UInt16(65535)),
        (1.5, "Float", 1.5),
        (2, "Float", 2.0),
        ("1e10", "Float", 1e10),
        ("2.5E-3", "Float", 0.0025),
        ("3.000000", "Float", 3.0),
        ("-0.0", "Float", -0.0),
        ("-Float.inf", "Float", -math.inf),
        ("Float.inf", "Float", math.inf),
        ("inf", "Float", math.inf),
        ("(1.0 / 0.0 : Float)", "Float", math.inf),
        ("-1.0 / 0.0", "Float", -math.inf),
        # raw String / Char at the top level
        ("hello, world", "String", "hello, world"),
        ("", "String", ""),
        ('say "hi" \\o/', "String", 'say "hi" \\o/'),
        ("x", "Char", Char("x")),
        ("\n", "Char", Char("\n")),
        ("😀", "Char", Char("😀")),
        # Lean char literals with escapes
        ("'a'", "Char", Char("a")),
        ("'\\n'", "Char", Char("\n")),
        ("'\\''", "Char", Char("'")),
        ("'\\\\'", "Char", Char("\\")),
        ("'\\x41'", "Char", Char("A")),
        ("'\\u0041'", "Char", Char("A")),
        ("'\"'", "Char", Char('"')),
        # containers as Lean text
        ("[1, 2, 3]", "List Int", (1, 2, 3)),
        ("[1,2,3]", "List Nat", (Nat(1), Nat(2), Nat(3))),
        ("[]", "List Int", ()),
        ("[ ]", "List Int", ()),
        ("[1, /- 2, -/ 3]", "List Int", (1, 3)),  # Lean's comments (`whitespace`)
        ("[1_000, 0x_f]", "List Int", (1000, 15)),  # Lean's numerals (`takeDigitsFn`)
        ("#[1, -2]", "Array Int", Arr((1, -2))),
        ("#[]", "Array Nat", Arr(())),
        ("#[(1 : Int), (2 : Int)]", "Array Int", Arr((1, 2))),
        ("#[-(-5), -(3)]", "Array Int", Arr((5, -3))),
        ("[-3, - 4]", "List Int", (-3, -4)),
        ("[[1], [], [2, 3]]", "List (List Nat)", ((Nat(1),), (), (Nat(2), Nat(3)))),
        ("#[#[1, 2], #[3]]", "Array (Array Nat)", Arr((Arr((Nat(1), Nat(2))), Arr((Nat(3),))))),
        ("[(1, 2), (3, 4)]", "List (Int × Int)", (Pair(1, 2), Pair(3, 4))),
        ("(1, -5)", "Int × Int", Pair(1, -5)),
        ("(#[0, 1], false)", "Array Int × Bool", Pair(Arr((0, 1)), False)),
        ("([2, 4], [])", "List Nat × List Nat", Pair((Nat(2), Nat(4)), ())),
        ("(1, 2, 3)", "Int × Int × Int", Pair(1, Pair(2, 3))),
        ("(1, (2, 3))", "Int × Int × Int", Pair(1, Pair(2, 3))),
        ("((1, 2), 3)", "(Int × Int) × Int", Pair(Pair(1, 2), 3)),
        ("((1, 2))", "Int × Int", Pair(1, 2)),
        ("((1, 2) : Int × Int)", "Int × Int", Pair(1, 2)),
        ("⟨1, 2⟩", "Int × Int", Pair(1, 2)),
        ("(15, 3.000000)", "Int × Float", Pair(15, 3.0)),
        ("some (1, 2)", "Option (Nat × Nat)", Some(Pair(Nat(1), Nat(2)))),
        ("some 2", "Option Int", Some(2)),
        ("some (2)", "Option Nat", Some(Nat(2))),
        ("some (-1)", "Option Int", Some(-1)),
        ("some 'a'", "Option Char", Some(Char("a"))),
        ("some ('a')", "Option Char", Some(Char("a"))),
        ("some (some 1)", "Option (Option Int)", Some(Some(1))),
        ("none", "Option Nat", NONE),
        ("(none : Option Nat)", "Option Nat", NONE),
        ("[Float.nan, 1.0]", "List Float", (math.nan, 1.0)),
        ("['a', 'b']", "List Char", (Char("a"), Char("b"))),
        ("#['a','\\t']", "Array Char", Arr((Char("a"), Char("\t")))),
        ('["a\\"b", "c\\nd", "\\\\", "é😀"]', "List String", ('a"b', "c\nd", "\\", "é😀")),
        ('["x\\x00y", "\\u00e9"]', "List String", ("x\x00y", "é")),
        ('["with\nnewline"]', "List String", ("with\nnewline",)),
        ("()", "Unit", UNIT),
        # structures
        ("{ entries := [(1, 2)] }", "Map Int Int", mp((1, 2))),
        ("{entries:=[]}", "Map Int Int", mp()),
        ("⟨[(1, 2), (3, 4)]⟩", "Map Int Int", mp((1, 2), (3, 4))),
        ("Map.mk [(1, 2)]", "Map Int Int", mp((1, 2))),
        ('{ y := -2, x := 1, name := "p" }', "Point", pt(1, -2, "p")),
        ('{ x := 1\n  y := 2\n  name := "q" }', "Point", pt(1, 2, "q")),
        ('⟨1, 2, "r"⟩', "Point", pt(1, 2, "r")),
        # JSON arrays, nested, with raw strings inside
        ([1, 2], "List Int", (1, 2)),
        ([1, "2", "-3"], "List Int", (1, 2, -3)),
        ([[1, 2], []], "List (List Nat)", ((Nat(1), Nat(2)), ())),
        ([1, 2], "Array Nat", Arr((Nat(1), Nat(2)))),
        (["a b", ""], "List String", ("a b", "")),
        (["x"], "List Char", (Char("x"),)),
        ([1.0, -2.5], "List Float", (1.0, -2.5)),
        ({"entries": "[(5, 6)]"}, "Map Int Int", mp((5, 6))),
        # functions stay source text
        ("fun x => x > 5", "Int -> Bool", LeanSource("fun x => x > 5")),
        # big integers
        ("123456789012345678901234567890", "Nat", Nat(123456789012345678901234567890)),
        ("[-99999999999999999999999999, 1]", "List Int", (-99999999999999999999999999, 1)),
        (10**40, "Int", 10**40),
        (10**400, "Float", math.inf),  # Lean's `OfNat Float` overflows to infinity
        ("1e400", "Float", math.inf),
        ("1e-400", "Float", 0.0),
    ],
)
def test_parse_encodings(raw: Any, ty: str, expected: Any) -> None:
    value = parse_value(raw, ty, STRUCTS)
    assert values_equal(value, expected), (value, expected)


def test_parsed_types_are_the_runtime_types() -> None:
    assert type(parse_value("5", "Nat")) is Nat
    assert type(parse_value(5, "Int")) is int
    assert type(parse_value(Nat(5), "Int")) is int
    assert type(parse_value("[1]", "List Int")) is tuple
    assert type(parse_value("#[1]", "Array Int")) is Arr
    assert type(parse_value("x", "String")) is str
    assert type(parse_value("x", "Char")) is Char
    assert type(parse_value(3, "UInt8")) is UInt8
    # List and Array are different types: a list literal is not an array and vice versa.
    with pytest.raises(ValueParseError):
        parse_value("[1]", "Array Int")
    with pytest.raises(ValueParseError):
        parse_value("#[1]", "List Int")


def test_parse_value_is_idempotent_on_runtime_values() -> None:
    cases: list[tuple[Any, str]] = [
        ("[(1, 2)]", "List (Int × Nat)"),
        ("#[#['a']]", "Array (Array Char)"),
        ("some (1, none)", "Option (Int × Option Nat)"),
        ("{ entries := [(1, 2)] }", "Map Int Int"),
        ("fun x => x", "Int -> Bool"),
        ("()", "Unit"),
        ("(0.0 / 0.0 : Float)", "Float"),
    ]
    for raw, ty in cases:
        once = parse_value(raw, ty, STRUCTS)
        assert values_equal(parse_value(once, ty, STRUCTS), once)


def test_uint_range_is_checked_unless_wrapping() -> None:
    with pytest.raises(ValueParseError, match="outside the range of UInt8"):
        parse_value(256, "UInt8")
    with pytest.raises(ValueParseError, match="outside the range"):
        parse_value("(300 : UInt8)", "UInt8")
    with pytest.raises(ValueParseError, match="outside the range"):
        parse_value("-1", "UInt8")
    # Lean's numeric literals wrap; the option reproduces that (the published data relies on it).
    assert parse_value(510, "UInt8", wrap_uint=True) == UInt8(254)
    assert parse_value("(300 : UInt8)", "UInt8", wrap_uint=True) == UInt8(44)
    assert parse_value("#[256, 1]", "Array UInt8", wrap_uint=True) == Arr((UInt8(0), UInt8(1)))
    assert parse_value("-1", "UInt8", wrap_uint=True) == UInt8(255)


@pytest.mark.parametrize(
    ("raw", "ty", "fragment", "position"),
    [
        ("15, 16, 17]", "Array Int", "expected '#['", 0),
        ("true)", "Array Int × Bool", "expected a pair", 0),
        ("[1, 2", "List Int", "expected ',' or ']'", 5),
        ("[1, 2,]", "List Int", "expected an integer", 6),
        ("[1] x", "List Int", "unexpected 'x' after a complete", 4),
        ("-1", "Nat", "cannot be negated", 0),
        ("[0, -0]", "List Nat", "cannot be negated", 4),
        ("[1.5]", "List Int", "decimal", 1),
        ("abc", "Int", "expected an integer", 0),
        ("yes", "Bool", "expected true or false", 0),
        ("some -1", "Option Int", "needs parentheses", 5),
        ("some some 1", "Option (Option Int)", "needs parentheses", 5),
        ("(1 : Nat)", "Int", "does not match", 3),
        ("(1, 2)", "Int × Int × Int", None, None),
        ("(1, x)", "Int × Int", "expected an integer but found 'x'", 4),
        ("(1, 2, x)", "Int × Int × Int", "found 'x'", 7),
        ("'ab'", "Char", None, None),
        ("'\\q'", "Char", "invalid escape", 1),
        # Lean's `\u` takes exactly four hex digits (`quotedCharCoreFn`): there is no `\u{...}`
        ("'\\u{1F600}'", "Char", "invalid hexadecimal numeral", 3),
        # a comment is a comment (`whitespace`), also in a stored literal: `-- 2]` hides the `]`
        ("[1, -- 2]", "List Int", "expected an integer but found end of text", 9),
        ('["abc]', "List String", "unterminated string", 1),
        ('["\\uD800"]', "List String", "not a Unicode scalar value", 2),
        ("{ entries := [], x := 1 }", "Map Int Int", "no field 'x'", 17),
        ('{ x := 1, name := "n" }', "Point", "missing field(s) y", None),
        ("{ entries := [], entries := [] }", "Map Int Int", "given twice", None),
        ("⟨[], []⟩", "Map Int Int", "expected '⟩'", None),
        ("[(1, 2)]", "List Int", "expected ')'", 3),
        ("#[1 + 2]", "Array Int", "unexpected character '+'", 4),
    ],
)
def test_parse_errors(raw: str, ty: str, fragment: str | None, position: int | None) -> None:
    with pytest.raises(ValueParseError) as info:
        parse_value(raw, ty, STRUCTS)
    err = info.value
    if fragment is not None:
        assert fragment in err.reason
    if position is not None:
        assert err.position == position
    assert err.raw == raw
    assert str(err.type) == str(parse_type(ty))


@pytest.mark.parametrize(
    ("raw", "ty", "fragment"),
    [
        ("ab", "Char", "must be one character"),
        ("", "Char", "got 0"),
        ("\ud800", "Char", "surrogate"),
        (True, "Int", "boolean"),
        (1, "Bool", "number"),
        (1.5, "Int", "decimal"),
        (None, "Int", "NoneType"),
        ([1, 2], "Int × Int", "list"),
        ((1, 2), "Array Int", "tuple"),
        (Arr((1,)), "List Int", "Arr"),
        ({"entries": "[]", "size": 1}, "Map Int Int", "unknown field(s) size"),
        ("1", "Std.HashMap Int Int", "not supported"),
        ("1", "Fin 3", "not supported"),
        ("1", "Widget", "unknown type 'Widget'"),
        ("", "Int -> Bool", "empty Lean source"),
    ],
)
def test_type_mismatch_errors(raw: Any, ty: str, fragment: str) -> None:
    with pytest.raises(ValueParseError) as info:
        parse_value(raw, ty, STRUCTS)
    assert fragment in str(info.value)


def test_error_context_and_message() -> None:
    with pytest.raises(ValueParseError) as info:
        parse_value("15, 16]", "Array Int")
    err = info.value
    assert err.task is None and err.field is None
    assert err.with_context(task="verina_basic_1", field="expected") is err
    text = str(err)
    assert text.startswith("task verina_basic_1, field expected: ")
    assert "type Array Int" in text and "'15, 16]'" in text and "position 0" in text
    # Context already set is kept.
    err.with_context(task="other", field="other")
    assert (err.task, err.field) == ("verina_basic_1", "expected")


def test_long_raw_values_are_shortened_in_messages() -> None:
    with pytest.raises(ValueParseError) as info:
        parse_value("x" * 1000, "List Int")
    assert len(str(info.value)) < 400


# ---------------------------------------------------------------------------------------------
# Rendering, round trips


@pytest.mark.parametrize(
    ("value", "ty", "text"),
    [
        (Nat(3), "Nat", "3"),
        (-3, "Int", "-3"),
        (True, "Bool", "true"),
        (UInt8(200), "UInt8", "200"),
        (Arr((1, -2)), "Array Int", "#[1, -2]"),
        ((Pair(1, 2),), "List (Int × Int)", "[(1, 2)]"),
        (Some(Pair(Nat(1), Nat(2))), "Option (Nat × Nat)", "some (1, 2)"),
        (Some(-1), "Option Int", "some (-1)"),
        (Some(-1.5), "Option Float", "some (-1.5)"),
        (Some(Some(2)), "Option (Option Int)", "some (some 2)"),
        (NONE, "Option Nat", "none"),
        ('a"b', "String", '"a\\"b"'),
        ("tab\there\nnl\\ \x00 \x7f é", "String", '"tab\\there\\nnl\\\\ \\x00 \\x7f é"'),
        (Char("x"), "Char", "'x'"),
        (Char("'"), "Char", "'\\''"),
        (Char('"'), "Char", "'\\\"'"),  # Char.quote escapes `"` as Lean's repr does (both read back)
        (Char("\n"), "Char", "'\\n'"),
        (Pair(1, Pair(2, 3)), "Int × Int × Int", "(1, 2, 3)"),
        (Pair(Pair(1, 2), 3), "(Int × Int) × Int", "((1, 2), 3)"),
        (Pair(Arr(()), False), "Array Int × Bool", "(#[], false)"),
        (mp((1, 2)), "Map Int Int", "{ entries := [(1, 2)] }"),
        (pt(1, -2, "p"), "Point", '{ x := 1, y := -2, name := "p" }'),
        (0.1, "Float", "0.1"),
        (1e16, "Float", "1e16"),
        (1.5e-7, "Float", "1.5e-07"),
        (-0.0, "Float", "-0.0"),
        (math.nan, "Float", "(0.0 / 0.0 : Float)"),
        (-math.inf, "Float", "(-1.0 / 0.0 : Float)"),
        (UNIT, "Unit", "()"),
        (LeanSource("fun x => x > 5"), "Int -> Bool", "fun x => x > 5"),
    ],
)
def test_render_value(value: Any, ty: str, text: str) -> None:
    assert render_value(value, ty, STRUCTS) == text
    assert values_equal(parse_lean(text, ty, STRUCTS), value)


def test_render_rejects_mismatched_values() -> None:
    for value, ty in [("1", "Int"), (1, "Bool"), ((1,), "Array Int"), (Arr((1,)), "List Int"), (1, "Float")]:
        with pytest.raises(ValueParseError):
            render_value(value, ty)
    with pytest.raises(ValueParseError):
        render_value(Struct("Map", ()), "Map Int Int", STRUCTS)


ROUND_TRIP_VALUES: list[tuple[Any, str]] = [
    (Nat(0), "Nat"),
    (Nat(10**30), "Nat"),
    (-(10**30), "Int"),
    (False, "Bool"),
    (UInt8(0), "UInt8"),
    (0.1 + 0.2, "Float"),
    (5e-324, "Float"),
    (1.7976931348623157e308, "Float"),
    (-0.0, "Float"),
    (math.inf, "Float"),
    (math.nan, "Float"),
    ("", "String"),
    ("quote \" backslash \\ apostrophe ' \r\n\t \x01 \U0001f600 é", "String"),
    (Char("\\"), "Char"),
    (Char("'"), "Char"),
    (Char("\x07"), "Char"),
    (Char("\U0001f600"), "Char"),
    ((), "List Int"),
    ((-1, 0, 10**20), "List Int"),
    (Arr((Arr(()), Arr((Nat(1),)))), "Array (Array Nat)"),
    (('a"', "", "\\n"), "List String"),
    ((Char("'"), Char('"')), "List Char"),
    ((math.nan, -math.inf, 1.5), "List Float"),
    (Pair(Arr((1, -2)), True), "Array Int × Bool"),
    (Pair(1, Pair(Char("c"), Pair("s", 2.5))), "Int × Char × String × Float"),
    (Pair(Pair(1, 2), Pair(3, 4)), "(Int × Int) × Int × Int"),
    (Some(Pair(Nat(1), Nat(2))), "Option (Nat × Nat)"),
    (Some(Some(-1)), "Option (Option Int)"),
    (Some(NONE), "Option (Option Int)"),
    ((Some(1), NONE), "List (Option Int)"),
    (mp(), "Map Int Int"),
    (mp((1, -2), (3, 4)), "Map Int Int"),
    (pt(-1, 2, 'a "q"'), "Point"),
    (Some(pt(0, 0, "")), "Option Point"),
    (UNIT, "Unit"),
    (LeanSource("fun x => x % 2 == 0"), "Int -> Bool"),
]


@pytest.mark.parametrize(("value", "ty"), ROUND_TRIP_VALUES)
def test_round_trips(value: Any, ty: str) -> None:
    text = render_value(value, ty, STRUCTS)
    assert values_equal(parse_lean(text, ty, STRUCTS), value)
    stored = to_json(value, ty, STRUCTS)
    assert values_equal(parse_value(stored, ty, STRUCTS), value)
    # Rendering is canonical: the rendering of the re-read value is the same text.
    assert render_value(parse_lean(text, ty, STRUCTS), ty, STRUCTS) == text


def test_to_json_follows_the_storage_convention() -> None:
    assert to_json(Nat(3), "Nat") == 3 and type(to_json(Nat(3), "Nat")) is int
    assert to_json(-3, "Int") == -3
    assert to_json(True, "Bool") is True
    assert to_json(1.5, "Float") == 1.5
    assert to_json(math.nan, "Float") == "(0.0 / 0.0 : Float)"
    assert to_json('a"b\n', "String") == 'a"b\n'  # raw, not quoted
    assert to_json(Char("x"), "Char") == "x"
    assert to_json((1, 2), "List Int") == "[1, 2]"
    assert to_json(Arr(("a",)), "Array String") == '#["a"]'
    assert to_json(Some(Char("a")), "Option Char") == "some 'a'"
    assert to_json(UInt8(7), "UInt8") == 7
    assert to_json(LeanSource("fun x => true"), "Int -> Bool") == "fun x => true"
    assert to_json(mp((1, 2)), "Map Int Int", STRUCTS) == "{ entries := [(1, 2)] }"


def test_render_float_is_shortest_round_trip() -> None:
    for x in (0.1, 1 / 3, 2.0**-1074, 123456789.125, 1e300, -2.5e-10, 2.0**70):
        text = render_float(x)
        assert "e+" not in text and ("." in text or "e" in text)
        assert float(text) == x
        assert parse_lean(text, "Float") == x


def test_float_literals_read_as_lean_reads_them() -> None:
    # Lean's `Float.ofScientific` truncates to 64 bits before rounding, so a few shortest decimals
    # elaborate to a neighbouring double. This one does; the codec follows Lean, and rendering
    # picks a longer literal that Lean reads back exactly.
    x = float("3.004778152164068e-302")
    assert lean_float_of_literal("3.004778152164068e-302") != x
    assert lean_float_of_literal("3.0047781521640683e-302") == x
    assert render_float(x) == "3.0047781521640683e-302"
    assert parse_lean(render_float(x), "Float") == x
    # The usual literals are exact.
    for text in ("0.1", "1.5", "3.000000", "1e10", "2.5e-3", "5e-324", "1.7976931348623157e308", "7"):
        assert lean_float_of_literal(text) == float(text)
    assert lean_float_of_scientific(15, True, 1) == 1.5
    assert lean_float_of_scientific(2**64 + 1, False, 0) == 2.0**64
    assert lean_float_of_literal("1e309") == math.inf
    assert lean_float_of_literal("0x10") == 16.0


# ---------------------------------------------------------------------------------------------
# Canonical keys


def test_canonical_value_key_is_equal_across_encodings() -> None:
    forms = [[1, 2], "[1,2]", "[1, 2]", " [ 1 ,2 ] ", ["1", 2], (1, 2), "[(1 : Int), 2]"]
    keys = {canonical_value_key(f, "List Int") for f in forms}
    assert keys == {"[1, 2]"}
    assert canonical_value_key("#[1,2]", "Array Int") == "#[1, 2]"
    assert canonical_value_key(5, "Nat") == canonical_value_key("5", "Nat")
    assert canonical_value_key("⟨[(1, 2)]⟩", "Map Int Int", STRUCTS) == canonical_value_key(
        "{ entries := [(1,2)] }", "Map Int Int", STRUCTS
    )
    assert canonical_value_key("Float.nan", "Float") == canonical_value_key("(0.0/0.0 : Float)", "Float")
    assert canonical_value_key("some (1)", "Option Nat") == canonical_value_key("some 1", "Option Nat")
    assert canonical_value_key("-0", "Int") == canonical_value_key("0", "Int")


def test_canonical_value_key_differs_for_different_values() -> None:
    assert canonical_value_key("[1, 2]", "List Int") != canonical_value_key("[2, 1]", "List Int")
    assert canonical_value_key("[1, 2]", "List Int") != canonical_value_key("[1, 2, 2]", "List Int")
    assert canonical_value_key("0.0", "Float") != canonical_value_key("-0.0", "Float")
    assert canonical_value_key("a", "String") != canonical_value_key("a ", "String")
    assert canonical_value_key("none", "Option Int") != canonical_value_key("some 0", "Option Int")


def test_canonical_key_of_rows() -> None:
    types = {"xs": parse_type("List Int"), "s": parse_type("String"), "k": parse_type("Nat")}
    a = canonical_key({"xs": [1, 2], "s": "a, b", "k": 3}, types)
    b = canonical_key({"k": "3", "s": "a, b", "xs": "[1,2]"}, types)
    assert a == b
    assert a == 'k := 3\ns := "a, b"\nxs := [1, 2]'
    assert canonical_key({"xs": [1, 2], "s": "a, b", "k": 4}, types) != a
    # A newline inside a string cannot be confused with the separator between parameters.
    assert canonical_key({"xs": [], "s": "x\nk := 3", "k": 3}, types).count("\n") == 2
    # String-typed names accepted as types too.
    assert canonical_key({"k": 3}, {"k": "Nat"}) == "k := 3"


def test_canonical_key_errors_name_the_field() -> None:
    types = {"xs": parse_type("List Int"), "k": parse_type("Nat")}
    with pytest.raises(ValueParseError) as info:
        canonical_key({"xs": "[1, 2", "k": 1}, types)
    assert info.value.field == "xs"
    with pytest.raises(ValueParseError) as info:
        canonical_key({"xs": "[]"}, types)
    assert info.value.field == "k" and "missing" in info.value.reason
    with pytest.raises(ValueParseError) as info:
        canonical_key({"xs": "[]", "k": 1, "extra": 2}, types)
    assert "unknown" in info.value.reason


# ---------------------------------------------------------------------------------------------
# Defaults


@pytest.mark.parametrize(
    ("ty", "expected"),
    [
        ("Nat", Nat(0)),
        ("Int", 0),
        ("UInt8", UInt8(0)),
        ("Bool", False),
        ("Float", 0.0),
        ("Char", Char("A")),
        ("String", ""),
        ("Unit", UNIT),
        ("List Int", ()),
        ("Array Nat", Arr(())),
        ("Option Int", NONE),
        ("Int × Char × String", Pair(0, Pair(Char("A"), ""))),
        ("Map Int Int", mp()),
        ("Point", pt(0, 0, "")),
    ],
)
def test_default_value(ty: str, expected: Any) -> None:
    value = default_value(ty, STRUCTS)
    assert values_equal(value, expected)
    assert type(value) is type(expected)


def test_default_value_has_no_function_or_unknown_default() -> None:
    with pytest.raises(ValueParseError):
        default_value("Int -> Bool")
    with pytest.raises(ValueParseError):
        default_value("Widget")


def test_errors_inside_json_array_elements_say_where() -> None:
    with pytest.raises(ValueParseError) as info:
        parse_value([[1], "[x"], "List (List Int)")
    err = info.value
    assert err.raw == [[1], "[x"]
    assert str(err.type) == "List (List Int)"
    assert "in element '[x' at position 1" in err.reason


def test_parse_lean_reads_quoted_strings_and_chars() -> None:
    assert parse_lean('"a\\tb"', "String") == "a\tb"
    assert parse_lean("'\\t'", "Char") == Char("\t")
    # parse_value keeps top-level strings raw: the quotes are part of the text there.
    assert parse_value('"a"', "String") == '"a"'
    with pytest.raises(ValueParseError):
        parse_lean("abc", "String")
    with pytest.raises(ValueParseError):
        parse_lean(5, "Nat")  # type: ignore[arg-type]


def _size_by_definition(value: object) -> int:
    """`value_size` as its docstring defines it, one value at a time."""
    if isinstance(value, int):
        return 1 + abs(value).bit_length()
    if isinstance(value, str):
        return 1 + len(value)
    if isinstance(value, (tuple, Arr)):
        return 1 + sum(_size_by_definition(item) for item in value)
    if isinstance(value, Pair):
        return 1 + _size_by_definition(value.fst) + _size_by_definition(value.snd)
    if isinstance(value, Some):
        return 1 + _size_by_definition(value.value)
    return 1


def test_value_size_of_sequences_matches_its_definition_item_by_item() -> None:
    # sequences of numbers take a path of C calls; any other item falls back to the item walk
    import random

    rng = random.Random(7)
    atoms = [0, -1, 5, 2**70, -(2**65), True, Nat(3), UInt8(200), 1.5, float("nan"), "ab", Char("é"),
             NONE, Some(4), Pair(1, -2)]
    for _ in range(300):
        items = [rng.choice(atoms) for _ in range(rng.randrange(0, 6))]
        if rng.random() < 0.3:
            items.append(tuple(rng.choice(atoms) for _ in range(3)))
        for value in (tuple(items), Arr(items)):
            assert value_size(value) == _size_by_definition(value), value
