"""``mutual … end`` blocks: each definition's body sees the others' headers (``withFunLocalDecls``,
Lean.Elab.MutualDef), and the block terminates when it is structurally recursive over one inductive
type (Lean.Elab.PreDefinition.Structural, ``tryAllArgs``); any other block is a gap, never a pass.
Snippets are our own."""

from __future__ import annotations

from conftest import elab_diagnostics as diagnostics
from conftest import run_elaborated as run

from veriscale.lean.values import Nat

EVEN_ODD = """mutual
def isEven : Nat → Bool
  | 0 => true
  | n+1 => isOdd n
def isOdd : Nat → Bool
  | 0 => false
  | n+1 => isEven n
end
def f (n : Nat) : Bool := isEven n"""


def test_equations_over_nat() -> None:
    assert [run(EVEN_ODD, n=k) for k in (0, 7, 10)] == [True, False, True]


def test_matches_over_lists_with_an_accumulator() -> None:
    src = """mutual
def sumA (xs : List Nat) (acc : Nat) : Nat := match xs with
  | [] => acc
  | x :: rest => sumB rest (acc + x)
def sumB (xs : List Nat) (acc : Nat) : Nat := match xs with
  | [] => acc
  | _ :: rest => sumA rest acc
end
def f (xs : List Nat) : Nat := sumA xs 0"""
    assert run(src, xs=(1, 2, 3, 4)) == Nat(4)


def test_inside_a_namespace_and_used_after_the_block() -> None:
    src = EVEN_ODD.replace("mutual", "namespace P\nmutual").replace("end\n", "end\nend P\n").replace(
        "isEven n\"", "").replace("def f (n : Nat) : Bool := isEven n", "def f (n : Nat) : Bool := P.isOdd n")
    assert [run(src, n=k) for k in (3, 4)] == [True, False]


def test_a_member_outside_the_block_does_not_see_it_before() -> None:
    """Only a `mutual` block lets a definition use a later one."""
    kinds = diagnostics("def a (n : Nat) : Nat := b n\ndef b (n : Nat) : Nat := n")
    assert kinds and all(kind != "error" or rule == "unknown-constant" for kind, rule in kinds)
    assert any(rule == "unknown-constant" for _, rule in kinds)


def test_ill_typed_member_is_an_error() -> None:
    assert ("error", "type-mismatch") in diagnostics(EVEN_ODD.replace("| 0 => false", '| 0 => "no"'))


def test_non_structural_blocks_are_gaps() -> None:
    growing = "mutual\ndef a (n : Nat) : Nat := b (n + 1)\ndef b (n : Nat) : Nat := a n\nend"
    same = ("mutual\ndef a (n : Nat) : Nat := b n\ndef b (n : Nat) : Nat := match n with\n"
            "  | 0 => 0\n  | k + 1 => a k\nend")
    for src in (growing, same):
        kinds = diagnostics(src)
        assert ("gap", "termination") in kinds and all(kind == "gap" for kind, _ in kinds)


def test_termination_hints_in_a_block_are_gaps() -> None:
    src = EVEN_ODD.replace("  | n+1 => isEven n\n", "  | n+1 => isEven n\ntermination_by n => n\n")
    assert ("gap", "termination") in diagnostics(src)
