"""Types as the elaborator sees them: Lean types with metavariables and an explicit "gap".

The elaborator works on :mod:`veriscale.lean.types` values extended with two leaves:

* :class:`MVar` -- a metavariable, Lean's ``?m``: a type not yet known that later unification
  assigns (the ``α`` of ``List.map`` at one call site, the type of a numeral before defaulting);
* :data:`GAP` -- "the elaborator cannot tell". A term whose type is a gap was not understood
  (a construct or builtin the engine does not model); it unifies with everything and suppresses
  every error that depends on it, and the place is recorded as a gap, so an undecided section is
  never passed as well-typed.

Unification is first order and never guesses: it answers ``True`` (unified, assignments made),
``False`` (a definite clash: Lean would report a type mismatch) or ``None`` (a gap was involved).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from veriscale.lean.types import (
    BOOL,
    CHAR,
    FLOAT,
    INT,
    NAT,
    PROP,
    STRING,
    TYPE,
    UNIT,
    FunType,
    LeanType,
    NamedType,
    NatLitType,
    ProdType,
    components,
    map_components,
)

# Binding strengths for printing, as in veriscale.lean.types.
_PREC_ARG = 1024


@dataclass(eq=False, slots=True)
class MVar(LeanType):
    """A metavariable. ``numeral`` records an ``OfNat`` constraint still to default to ``Nat``."""

    id: int
    ref: LeanType | None = None
    numeral: bool = False
    hint: str = ""

    def _render(self, prec: int) -> str:
        if self.ref is not None:
            return self.ref._render(prec)
        return f"?m.{self.id}"

    def __hash__(self) -> int:
        return id(self)


@dataclass(frozen=True, slots=True)
class Gap(LeanType):
    """A type the elaborator could not determine (see the module docstring)."""

    def _render(self, prec: int) -> str:
        return "?"


GAP = Gap()


@dataclass(frozen=True, slots=True)
class TParam(LeanType):
    """A type parameter of the declaration being elaborated (``α`` in ``def f {α} ...``): rigid,
    equal only to itself."""

    name: str

    def _render(self, prec: int) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class TermArg(LeanType):
    """A value argument of a type, kept as the term written (``a.size`` in ``Fin a.size``, the
    ``n`` a call to ``Fin.foldl a.size f x`` gives ``Fin n``). Two are equal when written the same;
    otherwise whether they are definitionally equal is not decided here (unification says ``None``)."""

    key: str
    node: object = field(compare=False, hash=False, default=None)
    """The term (an :class:`veriscale.backends.embedded.ast.Node`)."""

    def _render(self, prec: int) -> str:
        from veriscale.backends.embedded import ast as A

        text = A.lean_syntax(self.node) if self.node is not None else self.key  # type: ignore[arg-type]
        simple = all(ch.isalnum() or ch in "._'" for ch in text)
        return text if simple or prec < _PREC_ARG else f"({text})"


def term_arg(node: object) -> TermArg:
    """The type argument for the term ``node``."""
    from veriscale.backends.embedded import ast as A

    bare = A.unparen(node)  # type: ignore[arg-type]
    return TermArg(A.sexpr(bare), bare)


_ALIASES = {"ℕ": "Nat", "ℤ": "Int", "HashMap": "Std.HashMap", "HashSet": "Std.HashSet",
            "Std.Range": "Std.Range", "Range": "Std.Range", "Subarray": "Subarray"}


def canonical_name(name: str) -> str:
    return _ALIASES.get(name, name)


@dataclass(slots=True)
class MVarStore:
    """Creates metavariables; numbering is per elaboration run, so messages are deterministic."""

    count: int = 0
    created: list[MVar] = field(default_factory=list)

    def fresh(self, *, numeral: bool = False, hint: str = "") -> MVar:
        self.count += 1
        m = MVar(self.count, numeral=numeral, hint=hint)
        self.created.append(m)
        return m


def zonk(t: LeanType) -> LeanType:
    """Follow assigned metavariables (shallowly at the head)."""
    while isinstance(t, MVar) and t.ref is not None:
        t = t.ref
    return t


def deep(t: LeanType) -> LeanType:
    """Replace every assigned metavariable by its value, recursively."""
    return map_components(zonk(t), deep)


def has_gap(t: LeanType) -> bool:
    t = zonk(t)
    return isinstance(t, Gap) or any(has_gap(c) for c in components(t))


def is_open(t: LeanType) -> bool:
    """An unassigned metavariable at the head."""
    return isinstance(zonk(t), MVar)


def head_name(t: LeanType) -> str | None:
    t = zonk(t)
    if isinstance(t, NamedType):
        return canonical_name(t.name)
    if isinstance(t, ProdType):
        return "Prod"
    if isinstance(t, FunType):
        return "Function"
    return None


def args(t: LeanType) -> tuple[LeanType, ...]:
    t = zonk(t)
    if isinstance(t, NamedType):
        return t.args
    if isinstance(t, ProdType):
        return (t.fst, t.snd)
    return ()


def _occurs(m: MVar, t: LeanType) -> bool:
    t = zonk(t)
    return t is m or any(_occurs(m, c) for c in components(t))


NUMERAL_TYPES = frozenset({"Nat", "Int", "Float", "UInt8", "UInt16", "UInt32", "UInt64", "USize", "Fin"})
"""Types with ``OfNat`` instances for every literal (``Fin (n+1)`` too)."""


def unify(a: LeanType, b: LeanType) -> bool | None:
    """Make ``a`` and ``b`` equal by assigning metavariables. See the module docstring."""
    a, b = zonk(a), zonk(b)
    if a is b:
        return True
    if isinstance(a, Gap) or isinstance(b, Gap):
        return None
    if getattr(a, "is_proof", False) and getattr(b, "is_proof", False):
        # two statements: definitional unfolding of propositions is not modelled, except that a
        # relation about one local variable is never the same relation about another one
        return False if _distinct_statements(a, b) else None
    if isinstance(a, MVar):
        return _assign(a, b)
    if isinstance(b, MVar):
        return _assign(b, a)
    if isinstance(a, NamedType) and a.name == "Id" and len(a.args) == 1 and not (
            isinstance(b, NamedType) and b.name == "Id"):
        return unify(a.args[0], b)  # `Id α` unfolds to `α`
    if isinstance(b, NamedType) and b.name == "Id" and len(b.args) == 1 and not (
            isinstance(a, NamedType) and a.name == "Id"):
        return unify(a, b.args[0])
    if isinstance(a, TParam) or isinstance(b, TParam):
        return a == b
    if isinstance(a, NamedType) and isinstance(b, NamedType):
        na, nb = canonical_name(a.name), canonical_name(b.name)
        if na == "Prod" and len(a.args) == 2:
            return unify(ProdType(a.args[0], a.args[1]), b)
        if nb == "Prod" and len(b.args) == 2:
            return unify(a, ProdType(b.args[0], b.args[1]))
        if na != nb or len(a.args) != len(b.args):
            if _user_type(na) or _user_type(nb):
                return None  # an abbreviation or a type the elaborator does not unfold
            return False
        return _all(unify(x, y) for x, y in zip(a.args, b.args))
    if isinstance(a, ProdType) and isinstance(b, NamedType) and canonical_name(b.name) == "Prod":
        return unify(b, a)
    if isinstance(a, ProdType) and isinstance(b, ProdType):
        return _all([unify(a.fst, b.fst), unify(a.snd, b.snd)])
    if isinstance(a, FunType) and isinstance(b, FunType):
        return _all([unify(a.domain, b.domain), unify(a.codomain, b.codomain)])
    if isinstance(a, NatLitType) and isinstance(b, NatLitType):
        return a.value == b.value
    if isinstance(a, TermArg) and isinstance(b, TermArg) and a.key == b.key:
        return True
    if isinstance(a, (NatLitType, TermArg)) or isinstance(b, (NatLitType, TermArg)):
        return None  # `Fin (n + 1)` against `Fin xs.size`: index arithmetic is not modelled
    if (isinstance(a, NamedType) and _user_type(a.name)) or (isinstance(b, NamedType) and _user_type(b.name)):
        return None
    return False


_RELATIONS = frozenset({"=", "≠", "<", "≤", ">", "≥"})


def _distinct_statements(a: LeanType, b: LeanType) -> bool:
    """``r x e`` against ``r y e`` with ``x`` and ``y`` distinct local variables (``result ≠ []``
    against ``xs ≠ []``): ``isDefEq`` compares the arguments of the same head, and unfolding the
    relation (``Ne``, ``LT.lt``, …) keeps them apart, so the two types are not defeq."""
    from veriscale.backends.embedded import ast as A

    pa, pb = getattr(a, "prop", None), getattr(b, "prop", None)
    pa = A.unparen(pa)
    pb = A.unparen(pb)
    if not (isinstance(pa, A.BinOp) and isinstance(pb, A.BinOp) and pa.op == pb.op and pa.op in _RELATIONS):
        return False
    pairs = [(pa.lhs, pb.lhs), (pa.rhs, pb.rhs)]
    differing = [(x, y) for x, y in pairs if A.sexpr(x) != A.sexpr(y)]
    if len(differing) != 1:
        return False
    x, y = differing[0]
    x = A.unparen(x)
    y = A.unparen(y)
    return (isinstance(x, A.Ident) and isinstance(y, A.Ident) and x.name != y.name
            and x.name in getattr(a, "fvars", ()) and y.name in getattr(b, "fvars", ()))


_CORE_TYPES = frozenset({
    "Nat", "Int", "Float", "Bool", "Prop", "String", "Char", "Unit", "List", "Array", "Option",
    "Prod", "Fin", "UInt8", "UInt16", "UInt32", "UInt64", "USize", "Std.HashMap", "Std.HashSet",
    "Std.Range", "Subarray", "Type", "Sum", "Except", "Id", "Ordering", "Substring", "String.Pos",
})


def _user_type(name: str) -> bool:
    """A name that may be an abbreviation (``abbrev Grid := List (List Nat)``) or a type the
    elaborator does not model: comparisons involving it are not definite."""
    return canonical_name(name) not in _CORE_TYPES


def _all(results: object) -> bool | None:
    out: bool | None = True
    for r in results:  # type: ignore[attr-defined]
        if r is False:
            return False
        if r is None:
            out = None
    return out


def _assign(m: MVar, t: LeanType) -> bool | None:
    if _occurs(m, t):
        return None
    if m.numeral:
        h = head_name(t)
        if isinstance(t, MVar):
            t.numeral = True
        elif h is not None and h not in NUMERAL_TYPES and not _user_type(h):
            return False  # `OfNat String 1` has no instance
    m.ref = t
    return True


def default_numerals(store: MVarStore) -> None:
    """Lean's default instance: an ``OfNat`` literal whose type is still open becomes ``Nat``."""
    for m in store.created:
        if m.ref is None and m.numeral:
            m.ref = NAT


def show(t: LeanType) -> str:
    t = deep(t)
    text = str(t)
    return text.replace("Std.HashMap", "Std.HashMap").replace("?m.", "?m.")


__all__ = [
    "BOOL", "CHAR", "FLOAT", "GAP", "INT", "NAT", "NUMERAL_TYPES", "PROP", "STRING", "TYPE", "UNIT",
    "FunType", "Gap", "TParam", "TermArg", "term_arg", "LeanType", "MVar", "MVarStore", "NamedType", "ProdType", "args", "canonical_name",
    "deep", "default_numerals", "has_gap", "head_name", "is_open", "show", "unify", "zonk",
]
