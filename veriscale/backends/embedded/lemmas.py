"""Statements of the library lemmas the elaborator checks proof terms against.

A lemma is declared once, as its Lean declaration writes it after the name (binders, a colon, the
statement), so a proof such as ``Nat.div_lt_self h.2 h.1`` is checked against the statement Lean
has, never trusted. Only ``Prop``-valued hypotheses and implicit ``Nat`` variables occur in these
statements; the proof checker (:mod:`.elab.proofs`) instantiates the implicit variables by
matching.

Each statement is looked up in Lean's source (v4.18 as Verina uses it, unchanged in v4.24):
``Nat.div_lt_self`` in ``Init/Data/Nat/Div`` (``{n k : Nat} (hLtN : 0 < n) (hLtK : 1 < k)``),
``Nat.lt_of_succ_le``, ``Nat.succ_le_of_lt``, ``Nat.le_of_lt_succ``, ``Nat.lt_succ_of_le``,
``Nat.sub_lt`` and ``Nat.lt_of_lt_of_le`` in ``Init/Prelude.lean``/``Init/Data/Nat/Basic.lean``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from veriscale.backends.embedded import ast as A

LEMMA_STATEMENTS: dict[str, str] = {
    "Nat.div_lt_self": "{n k : Nat} (hLtN : 0 < n) (hLtK : 1 < k) : n / k < n",
    "Nat.lt_of_succ_le": "{n m : Nat} (h : Nat.succ n ≤ m) : n < m",
    "Nat.succ_le_of_lt": "{n m : Nat} (h : n < m) : Nat.succ n ≤ m",
    "Nat.le_of_lt_succ": "{m n : Nat} (h : m < Nat.succ n) : m ≤ n",
    "Nat.lt_succ_of_le": "{n m : Nat} (h : n ≤ m) : n < Nat.succ m",
    "Nat.sub_lt": "{n m : Nat} (h₁ : 0 < n) (h₂ : 0 < m) : n - m < n",
    "Nat.lt_of_lt_of_le": "{n m k : Nat} (h₁ : n < m) (h₂ : m ≤ k) : n < k",
}


@dataclass(frozen=True, slots=True)
class Lemma:
    name: str
    variables: tuple[str, ...]
    """The implicit variables, instantiated by matching."""
    hypotheses: tuple[A.Node, ...]
    """The explicit hypotheses, in order."""
    conclusion: A.Node


@cache
def lemma(name: str) -> Lemma | None:
    text = LEMMA_STATEMENTS.get(name)
    if text is None:
        return None
    from veriscale.backends.embedded.parser.parse import parse_term

    binders, _, statement = text.rpartition(" : ")
    variables: list[str] = []
    hypotheses: list[A.Node] = []
    for group in _groups(binders):
        inner, _, ty = group[1:-1].partition(" : ")
        if group.startswith("{"):
            variables.extend(inner.split())
        else:
            hypotheses.append(parse_term(ty))
    return Lemma(name, tuple(variables), tuple(hypotheses), parse_term(statement))


def _groups(text: str) -> list[str]:
    """The bracketed binder groups of a declaration head (no nesting occurs in the table)."""
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            if depth == 0:
                start = i
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
    return out


__all__ = ["LEMMA_STATEMENTS", "Lemma", "lemma"]
