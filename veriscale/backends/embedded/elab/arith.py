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

from collections.abc import Callable
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

Subtraction = tuple[str, Linear, Linear]
"""A truncating ``a - b`` read as a fresh atom ``t``: ``(t, a, b)``; either ``a ≥ b`` and
``t = a - b``, or ``a < b`` and ``t = 0`` (how ``omega`` reads ``Nat`` subtraction)."""

Constraint = tuple[Linear, bool]
"""``(form, strict)``: ``form < 0`` when strict, else ``form ≤ 0``."""

Alternatives = list[list[Constraint]]
"""A disjunction of conjunctions of constraints."""

MAX_ALTERNATIVES = 64


class Reader:
    """Reads terms and propositions into linear arithmetic the way ``omega`` does: atoms for
    non-arithmetic terms (``Nat``-valued, so ``≥ 0``), truncating subtraction as a case split,
    ``/`` and ``%`` by a numeral through their defining inequalities, ``≠`` and ``∨`` as
    disjunctions."""

    def __init__(self, nat_subtraction: bool = True) -> None:
        self.atoms: set[str] = set()
        self.subs: list[Subtraction] = []
        self.side: list[Linear] = []
        self.nat_subtraction = nat_subtraction

    def term(self, node: A.Node) -> Linear:
        if isinstance(node, A.Paren):
            return self.term(node.term)
        if isinstance(node, A.NumLit):
            return {"": Fraction(node.value)}
        if isinstance(node, A.BinOp) and node.op == "+":
            return _add(self.term(node.lhs), self.term(node.rhs))
        if isinstance(node, A.BinOp) and node.op == "*":
            lhs, rhs = self.term(node.lhs), self.term(node.rhs)
            if set(lhs) <= {""}:
                return {k: v * lhs.get("", Fraction(0)) for k, v in rhs.items()}
            if set(rhs) <= {""}:
                return {k: v * rhs.get("", Fraction(0)) for k, v in lhs.items()}
            raise NotLinear(A.sexpr(node))
        if isinstance(node, A.BinOp) and node.op == "-":
            if not self.nat_subtraction:
                raise NotLinear(A.sexpr(node))
            a, b = self.term(node.lhs), self.term(node.rhs)
            key = f"sub#{A.sexpr(node)}"
            if all(k != key for k, _, _ in self.subs):
                self.subs.append((key, a, b))
            self.atoms.add(key)
            return {key: Fraction(1)}
        divisor = _numeral(node.rhs) if isinstance(node, A.BinOp) and node.op in ("/", "%") else None
        if isinstance(node, A.BinOp) and divisor is not None:
            c = Fraction(divisor)
            a = self.term(node.lhs)
            if c == 0:  # Lean: `a / 0 = 0`, `a % 0 = a`
                return {"": Fraction(0)} if node.op == "/" else a
            q = f"div#{A.sexpr(node.lhs)}/{divisor}"
            self.atoms.add(q)
            # c*q ≤ a ≤ c*q + c - 1
            self.side.append(_add({q: c}, a, Fraction(-1)))
            self.side.append(_add(_add(a, {q: -c}), {"": -(c - 1)}))
            return {q: Fraction(1)} if node.op == "/" else _add(a, {q: -c})
        if isinstance(node, (A.Ident, A.App, A.Proj)):
            key = atom_key(node)
            self.atoms.add(key)
            return {key: Fraction(1)}
        raise NotLinear(A.sexpr(node))

    def prop(self, prop: A.Node) -> Alternatives | None:
        """The proposition as alternatives; ``None`` when it cannot be read."""
        if isinstance(prop, A.Paren):
            return self.prop(prop.term)
        if isinstance(prop, A.BinOp) and prop.op == "∧":
            a, b = self.prop(prop.lhs), self.prop(prop.rhs)
            if a is None or b is None or len(a) * len(b) > MAX_ALTERNATIVES:
                return None
            return [x + y for x in a for y in b]
        if isinstance(prop, A.BinOp) and prop.op == "∨":
            a, b = self.prop(prop.lhs), self.prop(prop.rhs)
            return None if a is None or b is None else a + b
        if isinstance(prop, A.UnOp) and prop.op == "¬":
            arg = prop.arg
            arg = A.unparen(arg)
            flipped = {"<": "≥", "≤": ">", ">": "≤", "≥": "<", "=": "≠", "≠": "="}.get(
                arg.op if isinstance(arg, A.BinOp) else "")
            if flipped is None or not isinstance(arg, A.BinOp):
                return None
            return self.prop(A.BinOp(prop.line, prop.col, flipped, arg.lhs, arg.rhs))
        if isinstance(prop, A.BinOp) and prop.op in ("<", "≤", ">", "≥", "=", "≠", "<=", ">="):
            try:
                lhs, rhs = self.term(prop.lhs), self.term(prop.rhs)
            except NotLinear:
                return None
            op = {"<=": "≤", ">=": "≥"}.get(prop.op, prop.op)
            if op in (">", "≥"):
                lhs, rhs = rhs, lhs
                op = "<" if op == ">" else "≤"
            diff = _add(lhs, rhs, Fraction(-1))
            neg = {k: -v for k, v in diff.items()}
            if op == "<":
                return [[(diff, True)]]
            if op == "≤":
                return [[(diff, False)]]
            if op == "=":
                return [[(diff, False), (neg, False)]]
            return [[(diff, True)], [(neg, True)]]  # ≠
        return None


def _numeral(node: A.Node) -> int | None:
    node = A.unparen(node)
    return node.value if isinstance(node, A.NumLit) else None


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


def decide_lt(goal: Goal, facts: list[A.Node], *, nat_subtraction: bool = True,
              free: Callable[[str], bool] | None = None, opaque: frozenset[str] = frozenset()) -> Verdict:
    """Decide ``goal`` from ``facts`` (see the module docstring); terms are ``Nat``-valued, so
    ``-`` truncates (``nat_subtraction``) -- pass ``False`` when that is not known. ``free`` tells
    which identifiers are unconstrained variables (parameters, bound variables): a refutation is
    a small model of the facts and the negated goal over free variables only. ``opaque`` names
    variables that hypotheses left out of ``facts`` mention (a model may not give them values)."""
    reader = Reader(nat_subtraction)
    try:
        lhs, rhs = reader.term(goal.lhs), reader.term(goal.rhs)
    except NotLinear:
        return "unknown"
    alternatives: Alternatives = [[]]
    unread_names: set[str] = set(opaque)
    complete = True
    for fact in facts:
        parsed = reader.prop(fact)
        if parsed is None or len(alternatives) * len(parsed) > MAX_ALTERNATIVES:
            # an unread fact is left out: fewer facts prove less, but a model may then violate
            # it, so no model may give its variables values
            unread_names |= _identifiers(fact)
            complete = complete and parsed is None
            continue
        alternatives = [x + y for x in alternatives for y in parsed]
    negated = _add(rhs, lhs, Fraction(-1))  # the goal fails: rhs - lhs ≤ 0
    base = [negated, *reader.side, *({a: Fraction(-1)} for a in sorted(reader.atoms))]
    if all(_unsat_in_every_case(base + [_tighten(c) for c in alt], reader.subs) for alt in alternatives):
        return "proved"
    if free is not None and complete and _has_small_model(reader, negated, alternatives, unread_names, free):
        return "refuted"
    return "unknown"


MODEL_ATOMS = 6
MODEL_VALUES = range(4)


def _has_small_model(reader: Reader, negated: Linear, alternatives: Alternatives, unread_names: set[str],
                     free: Callable[[str], bool]) -> bool:
    """A counter-model with small values: every fact and the negated goal hold, so no tactic can
    prove the goal from these facts. Only over atoms that are free variables (or sizes of free
    collections) that no unread fact mentions; derived atoms (``a - b``, ``a / c``) are checked
    against their definitions."""
    derived = {t for t, _, _ in reader.subs} | {a for a in reader.atoms if a.startswith("div#")}
    base_atoms = sorted(a for a in reader.atoms if a not in derived)
    if len(reader.atoms) > MODEL_ATOMS:
        return False
    for atom in base_atoms:
        name = atom[4:-1] if atom.startswith("len(") else atom
        if atom.startswith("len("):
            # `s.toList.length` of a free `s` can be any length, like `xs.size` of a free `xs`
            parts = name.split(".")
            if all(p in ("toList", "toArray") for p in parts[1:]):
                name = parts[0]
        if not (name.isidentifier() and free(name)) or name in unread_names:
            return False
    import itertools

    for values in itertools.product(MODEL_VALUES, repeat=len(reader.atoms)):
        env = dict(zip(sorted(reader.atoms), (Fraction(v) for v in values)))
        if not _holds_le(negated, env) or not all(_holds_le(c, env) for c in reader.side):
            continue
        if not all(env[t] == max(_value(a, env) - _value(b, env), Fraction(0)) for t, a, b in reader.subs):
            continue
        if any(all(_holds(c, env) for c in alt) for alt in alternatives):
            return True
    return False


def _value(form: Linear, env: dict[str, Fraction]) -> Fraction:
    return sum((v * (env[k] if k else Fraction(1)) for k, v in form.items()), Fraction(0))


def _holds_le(form: Linear, env: dict[str, Fraction]) -> bool:
    return _value(form, env) <= 0


def _holds(c: Constraint, env: dict[str, Fraction]) -> bool:
    form, strict = c
    v = _value(form, env)
    return v < 0 if strict else v <= 0


def _unsat_in_every_case(cons: list[Linear], subs: list[Subtraction], max_splits: int = 6) -> bool:
    """Unsatisfiable whichever way each truncating subtraction goes (``omega``'s case split)."""
    if len(subs) > max_splits:
        return False
    for mask in range(1 << len(subs)):
        extra: list[Linear] = []
        for k, (t, a, b) in enumerate(subs):
            diff = _add(a, b, Fraction(-1))  # a - b
            if mask >> k & 1:  # a ≥ b and t = a - b
                extra.append({key: -v for key, v in diff.items()})  # b - a ≤ 0
                eq = _add(diff, {t: Fraction(-1)})  # a - b - t = 0
                extra.extend([eq, {key: -v for key, v in eq.items()}])
            else:  # a < b and t = 0
                extra.append(_add(diff, {"": Fraction(1)}))  # a - b + 1 ≤ 0
                extra.extend([{t: Fraction(1)}, {t: Fraction(-1)}])
        if not unsatisfiable(cons + extra):
            return False
    return True


def _identifiers(node: object) -> set[str]:
    return A.identifier_roots(node)
