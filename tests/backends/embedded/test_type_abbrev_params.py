"""A type abbreviation with type parameters (``abbrev Matrix (α : Type) := Array (Array α)``): a
use ``Matrix Int`` is the body with ``α := Int`` (delta and beta reduction; field notation unfolds
the head, Lean.Elab.App ``resolveLValLoop``). Snippets are our own."""

from __future__ import annotations

from conftest import elab_diagnostics as diagnostics

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.elab import elaborate
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Arr

MATRIX = "abbrev Matrix (α : Type) := Array (Array α)\n"
GRID = Arr((Arr((1, 2)), Arr((3,))))


def test_field_notation_and_indexing_through_the_abbreviation() -> None:
    src = MATRIX + "def f (g : Matrix Int) : Int := if h : 0 < g.size then g[0].foldl (· + ·) 0 else g.size"
    program = Program(src)
    assert elaborate(program.env).diagnostics == []
    assert call_entry(program, "f", {"g": GRID}, None) == 3


def test_the_unfolded_type_decides_errors() -> None:
    assert ("error", "type-mismatch") in diagnostics(MATRIX + "def f (g : Matrix Int) : String := g.size")
    assert ("error", "unknown-constant") in diagnostics(MATRIX + "def f (g : Matrix Int) : Nat := g.length")


def test_an_unapplied_abbreviation_is_not_unfolded() -> None:
    kinds = diagnostics(MATRIX + "def f (g : Matrix) : Nat := 0")
    assert kinds and all(kind == "gap" for kind, _ in kinds)
