"""Lean type expressions: parsing, the printed normal form, errors, structure declarations."""

from __future__ import annotations

import pytest

from veriscale.lean.types import (
    BOOL,
    CHAR,
    FLOAT,
    INT,
    NAT,
    STRING,
    UNIT,
    FunType,
    LeanTypeError,
    NamedType,
    NatLitType,
    ProdType,
    StructDef,
    StructField,
    array_of,
    fun_of,
    list_of,
    option_of,
    parse_structures,
    parse_type,
    prod_of,
    substitute,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Nat", NAT),
        ("Int", INT),
        ("Bool", BOOL),
        ("String", STRING),
        ("Char", CHAR),
        ("Float", FLOAT),
        ("Unit", UNIT),
        ("UInt8", NamedType("UInt8")),
        ("UInt64", NamedType("UInt64")),
        ("USize", NamedType("USize")),
        ("List Int", list_of(INT)),
        ("List (Int)", list_of(INT)),
        ("((List ((Int))))", list_of(INT)),
        ("Array (Array Nat)", array_of(array_of(NAT))),
        ("Option Nat", option_of(NAT)),
        ("Option (Nat × Nat)", option_of(ProdType(NAT, NAT))),
        ("Int × Int", ProdType(INT, INT)),
        ("(Int × Int)", ProdType(INT, INT)),
        ("Prod Nat Nat", ProdType(NAT, NAT)),
        ("List (Prod Int Int)", list_of(ProdType(INT, INT))),
        ("(Array Int × Bool)", ProdType(array_of(INT), BOOL)),
        ("Int × Int × Int", ProdType(INT, ProdType(INT, INT))),
        ("(Int × Int) × Int", ProdType(ProdType(INT, INT), INT)),
        ("Prod (Prod Int Int) Int", ProdType(ProdType(INT, INT), INT)),
        ("Int -> Bool", FunType(INT, BOOL)),
        ("Int → Bool", FunType(INT, BOOL)),
        ("Int → Int → Bool", FunType(INT, FunType(INT, BOOL))),
        ("(Int → Int) → Bool", FunType(FunType(INT, INT), BOOL)),
        ("Int × Int → Bool", FunType(ProdType(INT, INT), BOOL)),
        ("Map Int Int", NamedType("Map", (INT, INT))),
        ("Std.HashMap String (List Nat)", NamedType("Std.HashMap", (STRING, list_of(NAT)))),
        ("Std.HashSet Int", NamedType("Std.HashSet", (INT,))),
        ("Fin 5", NamedType("Fin", (NatLitType(5),))),
        ("List α", list_of(NamedType("α"))),
    ],
)
def test_parse_type_forms(text: str, expected: object) -> None:
    assert parse_type(text) == expected


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("List (Int)", "List Int"),
        ("(Int × Int)", "Int × Int"),
        ("Prod Nat Nat", "Nat × Nat"),
        ("List (Prod Int Int)", "List (Int × Int)"),
        ("(Array Int × Bool)", "Array Int × Bool"),
        ("Prod (Prod A B) C", "(A × B) × C"),
        ("Prod A (Prod B C)", "A × B × C"),
        ("A × (B × C)", "A × B × C"),
        ("Int -> Bool", "Int → Bool"),
        ("(Int -> Int) -> Int", "(Int → Int) → Int"),
        ("Int -> (Int -> Int)", "Int → Int → Int"),
        ("(Int × Int) -> Bool", "Int × Int → Bool"),
        ("Int × (Int -> Bool)", "Int × (Int → Bool)"),
        ("Option (Option Nat)", "Option (Option Nat)"),
        ("List (Int -> Bool)", "List (Int → Bool)"),
        ("Map Int (List Int)", "Map Int (List Int)"),
        ("  Array   (Array   Nat) ", "Array (Array Nat)"),
        ("Fin 3", "Fin 3"),
    ],
)
def test_printed_normal_form(text: str, normal: str) -> None:
    ty = parse_type(text)
    assert str(ty) == normal
    # The normal form is a fixed point and parses back to the same value.
    assert parse_type(normal) == ty
    assert str(parse_type(normal)) == normal


def test_types_are_hashable_and_immutable() -> None:
    a = parse_type("List (Int × Nat)")
    b = parse_type("List (Prod Int Nat)")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, parse_type("List (Nat × Int)")}) == 2
    with pytest.raises(AttributeError):
        a.name = "Array"  # type: ignore[misc]


def test_constructors() -> None:
    assert prod_of(INT, NAT, BOOL) == parse_type("Int × Nat × Bool")
    assert fun_of(INT, INT, BOOL) == parse_type("Int → Int → Bool")
    with pytest.raises(ValueError):
        prod_of(INT)


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("", 0, "empty type"),
        ("List", 0, "List takes 1 type argument, got 0"),
        ("List Int Nat", 0, "List takes 1 type argument, got 2"),
        ("Array", 0, "Array takes 1"),
        ("Prod Int", 0, "Prod takes 2"),
        ("Int Nat", 0, "Int takes 0"),
        ("Int ×", 5, "unexpected end"),
        ("(Int", 4, "expected ')'"),
        ("Nat)", 3, "unexpected ')'"),
        ("List ()", 6, "empty parentheses"),
        ("Int @ Nat", 4, "unexpected character '@'"),
        ("3 Int", 0, "cannot be applied"),
        ("(List Int) Nat", 0, "cannot be applied"),
        ("Int → ", 6, "unexpected end"),
    ],
)
def test_errors_carry_text_and_position(text: str, position: int, fragment: str) -> None:
    with pytest.raises(LeanTypeError) as info:
        parse_type(text)
    err = info.value
    assert err.text == text
    assert err.position == position
    assert fragment in err.reason
    assert f"position {position}" in str(err)


def test_substitute() -> None:
    ty = parse_type("List (K × V) → Option V")
    assert substitute(ty, {"K": INT, "V": list_of(NAT)}) == parse_type(
        "List (Int × List Nat) → Option (List Nat)"
    )
    # Only bare names are replaced; applied names and other names are kept.
    assert substitute(parse_type("K Int × W"), {"K": NAT}) == parse_type("K Int × W")


MAP_SOURCE = """
structure Map (K V : Type) [BEq K] [BEq V] where
  entries : List (K × V)
deriving Inhabited

instance  (K V : Type) [BEq K] [BEq V] : BEq (Map K V) where
  beq m1 m2 := m1.entries.length = m2.entries.length
"""


def test_parse_structures_with_binders_and_deriving() -> None:
    structs = parse_structures(MAP_SOURCE)
    assert set(structs) == {"Map"}
    map_def = structs["Map"]
    assert map_def == StructDef(
        "Map", ("K", "V"), (StructField("entries", list_of(ProdType(NamedType("K"), NamedType("V")))),)
    )
    assert map_def.field_names == ("entries",)
    fields = map_def.fields_for(parse_type("Map Int Int"))
    assert fields == (StructField("entries", parse_type("List (Int × Int)")),)
    assert map_def.field_type(parse_type("Map String Nat"), "entries") == parse_type("List (String × Nat)")
    with pytest.raises(ValueError):
        map_def.fields_for(parse_type("Map Int"))
    with pytest.raises(ValueError):
        map_def.fields_for(parse_type("List Int"))
    with pytest.raises(KeyError):
        map_def.field_type(parse_type("Map Int Int"), "keys")


def test_parse_structures_variants() -> None:
    source = """
def helper := 1

structure Point where
  mk ::
  x y : Int  -- coordinates
  label : String := "origin"
  tags : List (String × Nat)

structure Box (α : Type) {β : Type} (γ : Type u) : Type where
  first : α
  -- a comment line inside the block
  third : Option γ
deriving Repr, BEq

theorem t : True := trivial
"""
    structs = parse_structures(source)
    assert list(structs) == ["Point", "Box"]
    point = structs["Point"]
    assert point.params == ()
    assert point.fields == (
        StructField("x", INT),
        StructField("y", INT),
        StructField("label", STRING),
        StructField("tags", list_of(ProdType(STRING, NAT))),
    )
    box = structs["Box"]
    assert box.params == ("α", "γ")
    assert box.fields_for(parse_type("Box Nat Bool")) == (
        StructField("first", NAT),
        StructField("third", option_of(BOOL)),
    )


def test_parse_structures_reads_comments_as_lean_does() -> None:
    # comments come from the shared lexer: `--` inside a string is text, block comments nest
    # (`finishCommentBlock`) and may hide a field, a comment may sit in the header line
    source = """
structure P where /- the /- nested -/ header comment -/
  name : String := "a -- b"
  /- hidden : Nat
  -/ -- and a line comment
  y : Int
"""
    assert parse_structures(source)["P"].fields == (StructField("name", STRING), StructField("y", INT))


def test_parse_structures_none_and_errors() -> None:
    assert parse_structures("def f (x : Nat) : Nat := x\n") == {}
    with pytest.raises(LeanTypeError) as info:
        parse_structures("structure Bad where\n  xs : List (Int\n")
    assert "structure Bad" in info.value.reason


def test_parse_signature_type_extensions() -> None:
    """Declarations' signatures: universe levels, dependent arrows and `∀` (binder names dropped),
    propositions kept as opaque text; the plain `parse_type` still rejects them."""
    from veriscale.lean.types import PropType, SortType, parse_signature_type

    assert parse_signature_type("Type u") == SortType("Type", "u")
    assert parse_signature_type("Type") == NamedType("Type")
    assert parse_signature_type("(i : Nat) → i < n → Bool") == FunType(NAT, FunType(PropType("i < n"), BOOL))
    assert parse_signature_type("∀ (xs : List α), xs ≠ [] → α") == FunType(
        list_of(NamedType("α")), FunType(PropType("xs ≠ []"), NamedType("α"))
    )
    assert parse_signature_type("List (α × β) → Option β") == parse_type("List (α × β) → Option β")
    for text in ("i < n", "(i : Nat) → Nat", "∀ (x : Nat), Nat"):
        with pytest.raises(LeanTypeError):
            parse_type(text)
