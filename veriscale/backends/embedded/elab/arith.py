"""A small linear-arithmetic prover for index and termination obligations.

``get_elem_tactic`` and ``decreasing_tactic`` close goals such as ``i < xs.size`` from the
hypotheses in scope, chiefly with ``omega`` (linear integer arithmetic over ``Nat``/``Int``
atoms). This module answers three ways, never guessing:

* ``proved``: the negated goal together with the facts is unsatisfiable over the rationals after
  integer tightening (Fourier–Motzkin), which ``omega`` -- complete for linear integer arithmetic --
  also establishes;
* ``refuted``: no fact constrains any atom of the goal (transitively) and the goal is false when
  its collections are empty -- then a counter-model exists and *no* tactic can prove it;
* ``unknown``: anything else (facts the prover cannot read, non-linear terms, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from veriscale.backends.embedded import ast as A

Verdict = Literal["proved", "refuted", "unknown"]

Linear = dict[str, Fraction]
"""A linear form: atom -> coefficient; the constant term under the key ``""``."""


class NotLinear(Exception):
    pass


def _add(a: Linear, b: Linear, k: Fraction = Fraction(1)) -> Linear:
    out = dict(a)
    for key, v in b.items():
        out[key] = out.get(key, Fraction(0)) + k * v
        if out[key] == 0 and key:
            del out[key]
    return out


def atom_key(node: A.Node) -> str:
    """A canonical name for a non-arithmetic term: ``xs.size`` and ``Array.size xs`` agree."""
    if isinstance(node, A.Paren):
        return atom_key(node.term)
    if isinstance(node, A.Ident):
        name = node.name
        for method in ("size", "length"):
            if name.endswith("." + method) and name.count(".") >= 1:
                base = name[: -len(method) - 1]
                if base and base[0].islower():
                    return f"len({base})"
        return name
    if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and len(node.args) == 1:
        fn = node.fn.name
        if fn in ("Array.size", "List.length", "String.length"):
            return f"len({atom_key(node.args[0])})"
    if isinstance(node, A.Proj) and node.field in ("size", "length"):
        return f"len({atom_key(node.term)})"
    return A.sexpr(node)


def linear(node: A.Node, nat_atoms: set[str]) -> Linear:
    """Read a term as a linear form; atoms are recorded in ``nat_atoms`` (assumed ``Nat``)."""
    if isinstance(node, A.Paren):
        return linear(node.term, nat_atoms)
    if isinstance(node, A.NumLit):
        return {"": Fraction(node.value)}
    if isinstance(node, A.BinOp) and node.op == "+":
        return _add(linear(node.lhs, nat_atoms), linear(node.rhs, nat_atoms))
    if isinstance(node, A.BinOp) and node.op == "*":
        lhs, rhs = linear(node.lhs, nat_atoms), linear(node.rhs, nat_atoms)
        if set(lhs) <= {""}:
            return {k: v * lhs.get("", Fraction(0)) for k, v in rhs.items()}
        if set(rhs) <= {""}:
            return {k: v * rhs.get("", Fraction(0)) for k, v in lhs.items()}
        raise NotLinear(A.sexpr(node))
    if isinstance(node, A.BinOp) and node.op == "-":
        # Nat subtraction truncates: only `a - c` with a numeral `c` and a known `a ≥ c` would be
        # linear; the caller does not know that, so truncating subtraction is not read.
        raise NotLinear(A.sexpr(node))
    if isinstance(node, (A.Ident, A.App, A.Proj)):
        key = atom_key(node)
        nat_atoms.add(key)
        return {key: Fraction(1)}
    raise NotLinear(A.sexpr(node))


Constraint = tuple[Linear, bool]
"""``(form, strict)``: ``form < 0`` when strict, else ``form ≤ 0``."""


def constraints_of(prop: A.Node, nat_atoms: set[str]) -> list[list[Constraint]] | None:
    """The proposition as a conjunction of constraints (a list of alternatives is not needed for
    the fragment: ``∨`` is not read). ``None`` when it cannot be read."""
    if isinstance(prop, A.Paren):
        return constraints_of(prop.term, nat_atoms)
    if isinstance(prop, A.BinOp) and prop.op == "∧":
        a, b = constraints_of(prop.lhs, nat_atoms), constraints_of(prop.rhs, nat_atoms)
        if a is None or b is None:
            return None
        return [a[0] + b[0]]
    if isinstance(prop, A.UnOp) and prop.op == "¬" and isinstance(prop.arg, A.BinOp):
        flipped = {"<": "≥", "≤": ">", ">": "≤", "≥": "<"}.get(prop.arg.op)
        if flipped is None:
            return None
        return constraints_of(A.BinOp(prop.line, prop.col, flipped, prop.arg.lhs, prop.arg.rhs), nat_atoms)
    if isinstance(prop, A.BinOp) and prop.op in ("<", "≤", ">", "≥", "=", "<=", ">="):
        try:
            lhs, rhs = linear(prop.lhs, nat_atoms), linear(prop.rhs, nat_atoms)
        except NotLinear:
            return None
        op = {"<=": "≤", ">=": "≥"}.get(prop.op, prop.op)
        if op in (">", "≥"):
            lhs, rhs = rhs, lhs
            op = "<" if op == ">" else "≤"
        diff = _add(lhs, rhs, Fraction(-1))
        if op == "<":
            return [[(diff, True)]]
        if op == "≤":
            return [[(diff, False)]]
        return [[(diff, False), ({k: -v for k, v in diff.items()}, False)]]
    return None


def _tighten(c: Constraint) -> Linear:
    """Over the integers ``f < 0`` is ``f + 1 ≤ 0``; coefficients are made integral first."""
    form, strict = c
    if strict:
        form = _add(form, {"": Fraction(1)})
    return form


def unsatisfiable(cons: list[Linear], limit: int = 4000) -> bool:
    """Fourier–Motzkin elimination over ``form ≤ 0`` constraints (integer-tightened). ``True``
    only when a contradiction ``c ≤ 0`` with ``c > 0`` is derived."""
    work = [dict(c) for c in cons]
    while True:
        for c in work:
            if all(k == "" for k in c) and c.get("", Fraction(0)) > 0:
                return True
        atoms = sorted({k for c in work for k in c if k})
        if not atoms:
            return False
        x = atoms[0]
        pos = [c for c in work if c.get(x, 0) > 0]
        neg = [c for c in work if c.get(x, 0) < 0]
        rest = [c for c in work if c.get(x, 0) == 0]
        if len(pos) * len(neg) + len(rest) > limit:
            return False
        for p in pos:
            for n in neg:
                combined = _add({k: v / p[x] for k, v in p.items()}, {k: v / -n[x] for k, v in n.items()})
                combined.pop(x, None)
                rest.append(combined)
        work = rest


@dataclass(frozen=True, slots=True)
class Goal:
    """``lhs < rhs`` over Nat terms."""

    lhs: A.Node
    rhs: A.Node


def decide_lt(goal: Goal, facts: list[A.Node]) -> Verdict:
    nat_atoms: set[str] = set()
    try:
        lhs, rhs = linear(goal.lhs, nat_atoms), linear(goal.rhs, nat_atoms)
    except NotLinear:
        return "unknown"
    goal_atoms = set(nat_atoms)
    readable: list[Linear] = []
    touched = False
    for fact in facts:
        names = _identifiers(fact)
        relevant = any(_mentions(a, names) for a in goal_atoms)
        fact_atoms: set[str] = set()
        parsed = constraints_of(fact, fact_atoms)
        if relevant:
            touched = True
        if parsed is None:
            continue
        nat_atoms |= fact_atoms
        readable.extend(_tighten(c) for c in parsed[0])
    # negated goal: lhs ≥ rhs, i.e. rhs - lhs ≤ 0
    negated = _add(rhs, lhs, Fraction(-1))
    cons = readable + [negated] + [{a: Fraction(-1)} for a in sorted(nat_atoms)]
    if unsatisfiable(cons):
        return "proved"
    if not touched and _false_when_empty(lhs, rhs, goal_atoms):
        return "refuted"
    return "unknown"


def _false_when_empty(lhs: Linear, rhs: Linear, atoms: set[str]) -> bool:
    """With every collection empty and every other atom zero, ``lhs < rhs`` fails: a counter-model
    (atoms are free variables and lengths of free collections: nothing constrains them)."""
    def value(form: Linear) -> Fraction:
        return form.get("", Fraction(0))

    return all(_is_free(a) for a in atoms) and not value(lhs) < value(rhs)


def _is_free(atom: str) -> bool:
    if atom.startswith("len(") and atom.endswith(")"):
        return _is_free(atom[4:-1])
    return atom.replace("_", "a").replace("'", "a").isidentifier() and "." not in atom


def _identifiers(node: object) -> set[str]:
    out: set[str] = set()
    if isinstance(node, A.Ident):
        out.add(node.name.split(".")[0])
    elif isinstance(node, A.Node):
        for f in getattr(node, "__slots__", ()):
            v = getattr(node, f, None)
            if isinstance(v, list):
                for x in v:
                    out |= _identifiers(x)
            elif isinstance(v, A.Node):
                out |= _identifiers(v)
    return out


def _mentions(atom: str, names: set[str]) -> bool:
    base = atom[4:-1] if atom.startswith("len(") else atom
    return base.split(".")[0] in names
