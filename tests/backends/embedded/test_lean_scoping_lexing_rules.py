"""Lean rules found by red-teaming the elaborator: doc comments as tokens, ``_root_`` and export
aliases, guillemet names with dots, section variables, imports of Std, type abbreviations.

Each test states Lean's behaviour and where Lean decides it; the snippets are our own.
"""

from __future__ import annotations

import pytest

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded import resolve as R
from veriscale.backends.embedded.elab import elaborate
from veriscale.backends.embedded.parser import parse_file, parse_term
from veriscale.backends.embedded.program import Program
from veriscale.lean.lexer import LeanSyntaxError, lex


def _report(src: str):  # type: ignore[no-untyped-def]
    return elaborate(Program(src).env)


def _errors(src: str) -> list[str]:
    return [d.message for d in _report(src).errors]


def _gaps(src: str) -> list[str]:
    return [d.message for d in _report(src).gaps]


def _parse_errors(src: str) -> list[A.CommandError]:
    return parse_file(src).errors


# -- doc comments are tokens (Lean.Parser.Basic `whitespace`: "/--" and "/-!" are actual tokens) --


@pytest.mark.parametrize("term", ["/-- doc -/ a.size > 0", "/-! doc -/ a.size > 0", "a.size > /-- doc -/ 0"])
def test_doc_comment_inside_a_term_is_a_parse_error(term: str) -> None:
    """Lean: ``whitespace`` stops before ``/--`` and ``/-!``, so no term can contain one."""
    with pytest.raises(LeanSyntaxError) as info:
        parse_term(term)
    assert info.value.lean_rejects
    assert "unexpected token '/-" in info.value.message


def test_plain_block_comment_inside_a_term_is_whitespace() -> None:
    parse_term("/- note -/ a.size > /- x -/ 0")


@pytest.mark.parametrize("src", [
    "/-- doc -/\ndef f (n : Nat) : Nat := n\n",
    "/-- doc -/\n@[simp] def f (n : Nat) : Nat := n\n",
    "/-- doc -/\nprivate def f (n : Nat) : Nat := n\n",
    "/-! module doc -/\nopen Nat\n",
    "def f (n : Nat) : Nat := go n\nwhere\n  /-- helper -/\n  go (k : Nat) : Nat := k\n",
    "def f (n : Nat) : Nat :=\n  let rec /-- helper -/ go (k : Nat) : Nat := k\n  go n\n",
    "structure P where\n  /-- first -/\n  x : Nat\n",
    "inductive T where\n  /-- a -/\n  | a\n  | /-- b -/ b\n",
])
def test_doc_comment_where_the_grammar_has_doc_comment(src: str) -> None:
    """Lean: ``declModifiers``, ``letRecDecl`` (``where``/``let rec``), structure fields and
    constructors begin with ``optional docComment``; a module doc is a command of its own."""
    assert _parse_errors(src) == []


@pytest.mark.parametrize("src", ["/-- doc -/\nopen Nat\n", "namespace A\n/-- doc -/\nend A\n",
                                 "def f (n : Nat) : Nat :=\n  /-! doc -/ n\n"])
def test_doc_comment_before_a_command_without_one_is_an_error(src: str) -> None:
    """Lean: ``open``, ``namespace``, ``section``, ``end``, ``export`` have no ``docComment?``."""
    errors = _parse_errors(src)
    assert errors and errors[0].lean_rejects


def test_lexer_records_the_doc_comment_on_the_next_token() -> None:
    tokens = lex("x /-- d -/ y /- c -/ z").tokens
    assert [t.doc_before.kind if t.doc_before else None for t in tokens[:3]] == [None, "doc", None]


# -- `_root_` and export aliases (Lean.ResolveName.resolveExact / resolveGlobalName) --------------


def _globals(src: str, decl: str, name: str) -> list[str]:
    fs = R.walk_scopes(parse_file(src).commands)
    d = fs.declarations.lookup(decl)
    assert d is not None and d.scope is not None
    return [n for n, _ in R.resolve_global(name, d.scope, fs.declarations)]


@pytest.mark.parametrize("alias", ["max", "min", "toString"])
def test_root_prefix_does_not_reach_an_export_alias(alias: str) -> None:
    """Lean: ``max``/``min``/``toString`` are aliases (``export Max (max)`` in Init/Prelude.lean,
    ``export ToString (toString)``); ``resolveExact`` accepts only a declaration after removing
    ``_root_``, and no alias is named ``_root_.max``: an unknown identifier."""
    src = f"namespace Cheat\ndef {alias} (x y : Int) : Int := x\ndef f (x : Int) : Int := x\nend Cheat\n"
    assert _globals(src, "Cheat.f", f"_root_.{alias}") == []
    assert _globals(src, "Cheat.f", alias) == [f"Cheat.{alias}"]


def test_root_prefix_reaches_a_declaration() -> None:
    src = ("def width (n : Nat) : Nat := n\nnamespace Cheat\ndef width (n : Nat) : Nat := 0\n"
           "def f (n : Nat) : Nat := n\nend Cheat\n")
    assert _globals(src, "Cheat.f", "_root_.width") == ["width"]
    assert _globals(src, "Cheat.f", "_root_.Int.toNat") == ["Int.toNat"]


def test_declaring_a_name_lean_has_only_as_an_alias_is_not_an_error() -> None:
    """Lean: ``def max`` at the root is accepted (there is no declaration ``max``, only the alias
    of ``Max.max``); later uses of ``max`` are overloaded, which the engine cannot decide."""
    fs = R.walk_scopes(parse_file("def max (x y : Int) : Int := x\n").commands)
    assert fs.errors == []
    assert [d.certain for d in fs.diagnostics] == [False]
    real = R.walk_scopes(parse_file("def List.map (n : Nat) : Nat := n\n").commands)
    assert [d.message for d in real.errors] == ["`List.map` has already been declared"]


# -- guillemets (Lean.Parser.Basic identFnAux: a «…» part is one name component) -----------------


def test_guillemet_component_with_a_dot_is_one_component() -> None:
    tok = lex("«Cheat.max»").tokens[0]
    assert tok.parts == ("Cheat.max",)
    assert R.components(tok.value) == ["«Cheat.max»"]
    assert lex("Cheat.«max»").tokens[0].value == "Cheat.max"  # no dot inside: the usual name


def test_guillemet_dotted_name_is_not_the_dotted_declaration() -> None:
    src = ("def «Cheat.max» (x y : Int) : Int := x\n"
           "def Cheat.max (x y : Int) : Int := if x ≤ y then y else x\n"
           "def f (x : Int) : Int := Cheat.max x 1\n")
    assert _errors(src) == []
    assert _globals(src, "f", "Cheat.max") == ["Cheat.max"]
    assert _globals(src, "f", "«Cheat.max»") == ["«Cheat.max»"]


# -- section variables (Lean.Elab.MutualDef: the variables a definition uses come first) ----------


def _binders(src: str, name: str) -> list[tuple[str, ...]]:
    program = Program(src)
    return [tuple(b.names) for b in program.env.defs[name].cmd.binders]


def test_section_variable_used_in_the_body_is_a_leading_parameter() -> None:
    src = "section\nvariable (bias : Nat) (unused : Int)\ndef f (n : Nat) : Nat := n + bias\nend\n"
    assert _binders(src, "f") == [("bias",), ("n",)]
    assert _errors(src + "def g : Nat := f 1 2\n") == []
    assert _errors(src + "def g : Nat := f 1\n") != []  # `f 1 : Nat → Nat`


def test_section_variable_types_and_instances_are_included() -> None:
    """Lean: the variables an included variable's type mentions are included, and an instance
    variable whose variables are all included."""
    src = ("section\nvariable {α : Type} [BEq α] (xs : List α)\n"
           "def count (x : α) : Nat := (xs.filter (· == x)).length\nend\n")
    program = Program(src)
    binders = program.env.defs["count"].cmd.binders
    assert [(b.kind, tuple(b.names)) for b in binders] == [
        ("implicit", ("α",)), ("inst", ()), ("explicit", ("xs",)), ("explicit", ("x",))]


def test_section_variables_end_with_their_section() -> None:
    src = "section\nvariable (bias : Nat)\nend\ndef f (n : Nat) : Nat := n + bias\n"
    assert _binders(src, "f") == [("n",)]


# -- imports: Std's containers are not in Init ------------------------------------------------


@pytest.mark.parametrize(("imports", "expected"), [
    ([], frozenset()),
    (["Std.Data.HashMap"], frozenset({"Std.HashMap"})),
    (["Std.Data.HashSet"], frozenset({"Std.HashMap", "Std.HashSet"})),
    (["Std"], frozenset({"Std.HashMap", "Std.HashSet"})),
    (["Mathlib"], frozenset({"Std.HashMap", "Std.HashSet"})),
])
def test_std_containers_come_with_their_imports(imports: list[str], expected: frozenset[str]) -> None:
    assert R.std_containers(imports) == expected


def test_hash_set_without_import_is_not_known() -> None:
    body = "def f (xs : List Nat) : Nat := Id.run do\n  let mut s : Std.HashSet Nat := {}\n  return xs.length\n"
    assert _gaps(body)
    assert not _gaps("import Std.Data.HashSet\n" + body)


# -- type abbreviations ------------------------------------------------------------------------


def test_abbrev_of_a_type_without_its_type_given() -> None:
    """``abbrev Row := Array Int`` is a type; a parameter of type ``Row`` is an array."""
    src = "abbrev Row := Array Int\ndef first (r : Row) : Int := r.foldl max 0\n"
    assert _errors(src) == [] and _gaps(src) == []


def test_field_through_a_type_abbreviation_is_not_an_error() -> None:
    """Lean: ``r : Row`` looks for ``Row.best`` first; the engine unfolds ``Row``, so it must not
    report ``Array.best`` as missing."""
    src = ("abbrev Row := Array Int\ndef Row.best (r : Row) : Int := r.foldl max 0\n"
           "def f (r : Row) : Int := r.best\n")
    assert _errors(src) == []
