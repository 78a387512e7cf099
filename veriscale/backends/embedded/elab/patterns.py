"""``match`` exhaustiveness (``Lean.Meta.Match``: "missing cases").

Lean rejects a ``match`` (or equation-style definition, or ``fun | …``) whose alternatives do not
cover every value of the discriminants, whether or not the missing case can happen at run time.
This is the classic usefulness check over constructor patterns: ``Bool``, ``Option``, ``List``,
``Nat`` (numerals and ``n + k`` read as ``Nat.succ`` chains, as Lean does), pairs, ``Unit``,
``Ordering`` and the task's own inductive types; string, character and ``Int`` literals never cover their type.
A pattern the checker does not understand leaves the question open (a gap).
"""

from __future__ import annotations

from dataclasses import dataclass

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.types import Gap, MVar, args, has_gap, head_name, zonk
from veriscale.backends.embedded.env import resolve_in
from veriscale.lean.types import LeanType, ProdType


class Unreadable(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Con:
    name: str
    args: tuple[object, ...]


WILD = object()
LIT = object()  # a literal of an infinite type: covers nothing by itself

_SIGNATURES: dict[str, list[tuple[str, int]]] = {
    "Bool": [("true", 0), ("false", 0)],
    "Option": [("none", 0), ("some", 1)],
    "List": [("nil", 0), ("cons", 2)],
    "Nat": [("zero", 0), ("succ", 1)],
    "Prod": [("mk", 2)],
    "Unit": [("unit", 0)],
    "Ordering": [("lt", 0), ("eq", 0), ("gt", 0)],
    "Int": [("ofNat", 1), ("negSucc", 1)],
    "Except": [("error", 1), ("ok", 1)],
}


class PatternsMixin(ElabCore):
    def exhaustive(self, node: A.Node, types: list[LeanType], rows: list[list[A.Node]]) -> None:  # type: ignore[override]
        try:
            matrix = [[self._abstract(p) for p in row] for row in rows]
        except Unreadable as exc:
            self.gap(node, f"cannot check that the patterns are exhaustive: {exc}", "match-exhaustive")
            return
        heads = [self._type_head(t) for t in types]
        try:
            missing = _useful(matrix, [WILD] * len(types), heads, self._ctor_signature)
        except Unreadable as exc:
            self.gap(node, f"cannot check that the patterns are exhaustive: {exc}", "match-exhaustive")
            return
        if missing:
            self.error(node, "missing cases: the alternatives do not cover every value of the discriminant",
                       "match-exhaustive")
        self._redundant_after_variables(rows)

    def _redundant_after_variables(self, rows: list[list[A.Node]]) -> None:
        """An alternative after one whose patterns are all pattern variables (or ``_``) is never
        reached, which Lean rejects ("Redundant alternative", ``Lean.Meta.Match``; the check is
        off only under ``set_option match.ignoreUnusedAlts``). The case models write is a
        constructor's bare name outside its namespace (``| lt => …`` for ``Ordering.lt``): Lean's
        ``CollectPatternVars`` makes an identifier a constructor only when it resolves to one, so
        ``lt`` is a variable. Only names that resolve to no global at all count here; the usefulness
        of other rows is not judged (literals the checker abstracts could make it wrong)."""
        for i, row in enumerate(rows[:-1]):
            if row and all(self._certain_variable(p) for p in row):
                nxt = rows[i + 1][0] if rows[i + 1] else row[0]
                self.error(nxt, "redundant alternative: every value matching it matches a preceding alternative "
                                f"(`{', '.join(A.lean_syntax(p) for p in row)}` binds pattern variables, "
                                "not constructors)", "match-redundant")
                return

    def _certain_variable(self, p: A.Node) -> bool:
        """``_``, or an identifier Lean certainly reads as a new pattern variable: no global
        declaration has its name where the pattern is (so it is no constructor)."""
        p = A.unparen(p)
        if isinstance(p, A.Hole):
            return True
        return isinstance(p, A.Ident) and "." not in p.name and self._resolve_pattern_name(p.name) == []

    def _resolve_pattern_name(self, name: str) -> list[str] | None:
        """The global declarations ``name`` denotes where the pattern is (Lean's resolution);
        ``None`` when the engine cannot tell (no scope information)."""
        current = self.current  # type: ignore[attr-defined]
        if current is None:
            return None
        return resolve_in(self.env, current, name, self.open_terms)  # type: ignore[attr-defined]

    def _type_head(self, t: LeanType) -> tuple[str, tuple[LeanType, ...]] | None:
        z = zonk(t)
        if isinstance(z, (Gap, MVar)) or has_gap(z):
            return None
        if isinstance(z, ProdType):
            return ("Prod", (z.fst, z.snd))
        h = head_name(z)
        return (h, args(z)) if h is not None else None

    def _ctor_signature(self, head: str) -> list[tuple[str, int]] | None:
        if head in _SIGNATURES:
            return _SIGNATURES[head]
        ind = self.env.inductives.get(head)  # type: ignore[attr-defined]
        if ind is not None:
            return [(c.name.rpartition(".")[2], len(c.arg_names)) for c in ind.ctors]
        si = self.env.structs.get(head)  # type: ignore[attr-defined]
        if si is not None:
            return [(si.ctor, len(si.fields))]
        return None

    def _abstract(self, p: A.Node) -> object:
        """A pattern as WILD, LIT or Con(name, args)."""
        if isinstance(p, A.Paren):
            return self._abstract(p.term)
        if isinstance(p, A.Hole):
            return WILD
        if isinstance(p, A.NumLit):
            out: object = Con("zero", ())
            for _ in range(min(p.value, 64)):
                out = Con("succ", (out,))
            return out if p.value <= 64 else LIT
        if isinstance(p, (A.StrLit, A.CharLit)):
            return LIT
        if isinstance(p, A.BinOp) and p.op == "+" and isinstance(p.rhs, A.NumLit):
            out = self._abstract(p.lhs)
            for _ in range(min(p.rhs.value, 64)):
                out = Con("succ", (out,))
            return out
        if isinstance(p, A.BinOp) and p.op == "::":
            return Con("cons", (self._abstract(p.lhs), self._abstract(p.rhs)))
        if isinstance(p, A.ListLit):
            out = Con("nil", ())
            for item in reversed(p.items):
                out = Con("cons", (self._abstract(item), out))
            return out
        if isinstance(p, A.Tuple) or (isinstance(p, A.AnonCtor) and len(p.items) >= 2):
            items = [self._abstract(x) for x in p.items]
            out = items[-1]
            for x in reversed(items[:-1]):
                out = Con("mk", (x, out))
            return out
        if isinstance(p, A.UnitLit):
            return Con("unit", ())
        if isinstance(p, (A.Ident, A.DotIdent)):
            name = _ctor_name(p.name)
            if name is not None:
                return Con(name, ())
            if isinstance(p, A.Ident) and "." not in p.name:
                resolved = self._resolve_pattern_name(p.name)
                if resolved is not None and len(resolved) == 1 and resolved[0] in _CORE_CTORS:
                    return Con(_CORE_CTORS[resolved[0]], ())  # `lt` under `open Ordering`
                if p.name in self._user_ctor_names():
                    return Con(p.name, ())
                return WILD
            return Con(p.name.rpartition(".")[2], ())
        if isinstance(p, A.App) and isinstance(p.fn, (A.Ident, A.DotIdent)):
            name = _ctor_name(p.fn.name) or p.fn.name.rpartition(".")[2]
            return Con(name, tuple(self._abstract(a) for a in p.args))
        raise Unreadable(f"the pattern `{A.lean_syntax(p)}`")

    def _user_ctor_names(self) -> set[str]:
        return {c.rpartition(".")[2] for c in self.env.ctors}  # type: ignore[attr-defined]


_CORE_CTORS = {
    "true": "true", "false": "false", "Bool.true": "true", "Bool.false": "false",
    "none": "none", "some": "some", "Option.none": "none", "Option.some": "some",
    "List.nil": "nil", "List.cons": "cons", "Nat.zero": "zero", "Nat.succ": "succ", "Prod.mk": "mk",
    "()": "unit", "Ordering.lt": "lt", "Ordering.eq": "eq", "Ordering.gt": "gt",
    "Int.ofNat": "ofNat", "Int.negSucc": "negSucc", "Except.ok": "ok", "Except.error": "error",
}


def _ctor_name(name: str) -> str | None:
    return _CORE_CTORS.get(name)


def _useful(matrix: list[list[object]], vector: list[object], heads: list[tuple[str, tuple[LeanType, ...]] | None],
            signature: object) -> bool:
    """Is ``vector`` matched by some value no row of ``matrix`` matches? (Maranget's ``U``)."""
    if not vector:
        return not matrix
    first = vector[0]
    head = heads[0]
    column = [row[0] for row in matrix]
    if isinstance(first, Con):
        return _useful(_specialise(matrix, first.name, len(first.args)), list(first.args) + vector[1:],
                       _sub_heads(head, first.name, len(first.args)) + heads[1:], signature)
    # a wildcard: try every constructor if the column's constructors are complete
    used = {c.name for c in column if isinstance(c, Con)}
    sig = signature(head[0]) if head is not None else None  # type: ignore[operator]
    if sig is not None and not used <= {n for n, _ in sig}:
        # a numeral read as `Nat.succ` chains at `Int`: how Lean's match compiler covers
        # `Int` literals next to `Int.ofNat`/`Int.negSucc` is not modelled
        raise Unreadable("literal patterns next to constructor patterns")
    if used and sig is None:
        raise Unreadable("a discriminant of a type the checker does not know")
    if sig is not None and used and {n for n, _ in sig} <= used:
        for name, arity in sig:
            if _useful(_specialise(matrix, name, arity), [WILD] * arity + vector[1:],
                       _sub_heads(head, name, arity) + heads[1:], signature):
                return True
        return False
    default = [row[1:] for row in matrix if row[0] is WILD]
    return _useful(default, vector[1:], heads[1:], signature)


def _specialise(matrix: list[list[object]], name: str, arity: int) -> list[list[object]]:
    out = []
    for row in matrix:
        p = row[0]
        if isinstance(p, Con):
            if p.name == name:
                out.append(list(p.args) + row[1:])
        elif p is WILD:
            out.append([WILD] * arity + row[1:])
    return out


def _sub_heads(head: tuple[str, tuple[LeanType, ...]] | None, ctor: str,
               arity: int) -> list[tuple[str, tuple[LeanType, ...]] | None]:
    if head is None:
        return [None] * arity
    name, targs = head

    def of(t: LeanType) -> tuple[str, tuple[LeanType, ...]] | None:
        z = zonk(t)
        if isinstance(z, ProdType):
            return ("Prod", (z.fst, z.snd))
        h = head_name(z)
        return (h, args(z)) if h is not None and not has_gap(z) else None

    if name == "List" and ctor == "cons" and targs:
        return [of(targs[0]), head]
    if name == "Option" and ctor == "some" and targs:
        return [of(targs[0])]
    if name == "Nat" and ctor == "succ":
        return [head]
    if name == "Int":
        return [("Nat", ())]
    if name == "Except" and len(targs) == 2:
        return [of(targs[0] if ctor == "error" else targs[1])]
    if name == "Prod" and ctor == "mk" and len(targs) == 2:
        return [of(targs[0]), of(targs[1])]
    return [None] * arity
