"""Terms in messages are written back in Lean's notation, with its precedence and associativity."""

from __future__ import annotations

import pytest

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab import elaborate
from veriscale.backends.embedded.program import Program


def _body(term: str) -> A.Node:
    program = Program(f"def t (xs : Array Int) (i a b c : Nat) (p q : Prop) : Prop := {term}\n")
    body = program.env.defs["t"].cmd.body
    assert body is not None
    return body


@pytest.mark.parametrize("term", [
    "i + 1 < xs.size",
    "a - b - c = a - (b - c)",  # `-` is left-associative: only the right operand needs parentheses
    "2 ^ 3 ^ a = 2 ^ (3 ^ a)",  # `^` is right-associative
    "¬a < b ∨ p ∧ q",
    "a :: b :: [] = [1, 2]",
    "xs[i]! = -3 ∧ xs.toList.length > 2 * (3 + 4)",
    "\"a\\\"b\\n\" = \"x\" ∧ 'c' = 'd'",
    "f (g a) b",
])
def test_a_term_prints_as_written(term: str) -> None:
    assert A.lean_syntax(_body(term)) == term


def test_parentheses_the_tree_needs_are_supplied() -> None:
    # `(a + b) * c` without its Paren node: the printer must put the parentheses back
    product = A.BinOp(1, 1, "*", A.BinOp(1, 1, "+", A.Ident(1, 1, "a"), A.Ident(1, 1, "b")), A.Ident(1, 1, "c"))
    assert A.lean_syntax(product) == "(a + b) * c"
    negated = A.UnOp(1, 1, "¬", A.BinOp(1, 1, "∧", A.Ident(1, 1, "p"), A.Ident(1, 1, "q")))
    assert A.lean_syntax(negated) == "¬(p ∧ q)"


def test_an_elaboration_message_names_propositions_in_lean_notation() -> None:
    src = "def f (xs ys : Array Int) (i : Nat) : Int := if h : i < ys.size then xs[i]'h else 0\n"
    (diagnostic,) = elaborate(Program(src).env).diagnostics
    assert "`h` has type `i < ys.size` but is expected to have type `i < xs.size`" in diagnostic.message
