"""Syntax tree of the Lean 4 subset read by the embedded engine.

Every node carries ``line`` (1-based) and ``col`` (0-based) of its first token. Types are terms in
Lean and are parsed as terms here too; declarations keep the source text of their types as well
(``type_text``) so that the type codec (``veriscale.lean.types``) can read them.

Patterns are parsed as terms (as Lean does) and converted to :class:`Pattern` nodes afterwards.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(slots=True, eq=False)
class Node:
    line: int
    col: int


# ---------------------------------------------------------------------------------------------
# Terms


@dataclass(slots=True, eq=False)
class Ident(Node):
    name: str
    """Possibly dotted: ``xs.foldl``, ``List.range``, ``p.1``."""


@dataclass(slots=True, eq=False)
class DotIdent(Node):
    """``.some``: a constructor/function of the expected type's namespace."""

    name: str


@dataclass(slots=True, eq=False)
class NumLit(Node):
    value: int


@dataclass(slots=True, eq=False)
class SciLit(Node):
    mantissa: int
    exponent: int
    """The value is ``mantissa * 10 ** exponent``."""
    text: str


@dataclass(slots=True, eq=False)
class StrLit(Node):
    value: str


@dataclass(slots=True, eq=False)
class CharLit(Node):
    value: str


@dataclass(slots=True, eq=False)
class Interp(Node):
    """``s!"..."``: literal pieces (str) and interpolated terms."""

    parts: list[str | Term]


@dataclass(slots=True, eq=False)
class NamedArg(Node):
    name: str
    value: Term


@dataclass(slots=True, eq=False)
class App(Node):
    fn: Term
    args: list[Term]
    """Explicit arguments; a :class:`NamedArg` may appear among them."""


@dataclass(slots=True, eq=False)
class Explicit(Node):
    """``@f``: explicit-argument mode (implicit arguments are then passed positionally)."""

    term: Term


@dataclass(slots=True, eq=False)
class BinOp(Node):
    op: str
    """Normalised operator symbol: ``+ - * / % ^ ++ :: = ≠ == != < > ≤ ≥ ∧ ∨ → ↔ && || ∈ ∉ ∣ ∘
    >>= <$> |> <| $`` and a few more."""
    lhs: Term
    rhs: Term


@dataclass(slots=True, eq=False)
class UnOp(Node):
    op: str
    """``-`` (negation), ``¬``, ``!`` (Bool not), ``↑`` (coercion)."""
    arg: Term


@dataclass(slots=True, eq=False)
class Paren(Node):
    """Parentheses are kept: they delimit ``·`` sections and take part in ``binop%`` trees."""

    term: Term


@dataclass(slots=True, eq=False)
class Tuple(Node):
    items: list[Term]


@dataclass(slots=True, eq=False)
class UnitLit(Node):
    pass


@dataclass(slots=True, eq=False)
class Ascription(Node):
    term: Term
    type: Term
    type_text: str


@dataclass(slots=True, eq=False)
class AnonCtor(Node):
    """``⟨a, b⟩``."""

    items: list[Term]


@dataclass(slots=True, eq=False)
class ListLit(Node):
    items: list[Term]


@dataclass(slots=True, eq=False)
class ArrayLit(Node):
    items: list[Term]


@dataclass(slots=True, eq=False)
class RangeLit(Node):
    """``[a:b]``, ``[:b]``, ``[a:b:s]`` (a ``Std.Range``)."""

    start: Term | None
    stop: Term
    step: Term | None


@dataclass(slots=True, eq=False)
class Index(Node):
    """``xs[i]`` (``mode='plain'``), ``xs[i]!``, ``xs[i]?``, ``xs[i]'h`` (``mode='proof'``)."""

    coll: Term
    index: Term
    mode: str
    proof: Term | None = None
    """In ``mode='proof'``: the proof ``h`` of the bound (checked by the elaborator, never run)."""


@dataclass(slots=True, eq=False)
class Proj(Node):
    """Generalized field notation on an arbitrary term: ``(f x).length``, ``e.1``, ``e |>.f``."""

    term: Term
    field: str


@dataclass(slots=True, eq=False)
class StructInst(Node):
    """``{ f := v, ... }``, ``{ s with f := v }``, ``{ f := v : T }``; ``{}`` has no fields."""

    source: Term | None
    fields: list[tuple[str, Term]]
    type: Term | None
    type_text: str
    ellipsis: bool = False
    """``{ x := 1, .. }``: the fields not given are holes (``Lean.Elab.StructInst``)."""


@dataclass(slots=True, eq=False)
class SetBuilder(Node):
    """``{x | p}`` / ``{x // p}``: never executable, kept to report it precisely."""

    text: str


@dataclass(slots=True, eq=False)
class Cdot(Node):
    """``·`` placeholder of an anonymous-function section."""


@dataclass(slots=True, eq=False)
class Hole(Node):
    """``_``."""


@dataclass(slots=True, eq=False)
class EmptyCollection(Node):
    """``∅``: ``EmptyCollection.emptyCollection`` at the expected type (``Init/Core.lean``)."""


@dataclass(slots=True, eq=False)
class Sorry(Node):
    pass


@dataclass(slots=True, eq=False)
class ProofTerm(Node):
    """``by tac`` or any other proof-only term; evaluates to a proof (irrelevant at run time)."""

    text: str


@dataclass(slots=True, eq=False)
class Sort(Node):
    """``Type``, ``Prop``, ``Sort u``."""

    name: str


@dataclass(slots=True, eq=False)
class Binder(Node):
    """A binder group: ``(a b : T)``, ``{α : Type}``, ``[BEq α]``, a bare ``x``, or a pattern."""

    names: list[str]
    type: Term | None
    type_text: str
    kind: str = "explicit"
    """``explicit``, ``implicit``, ``strict``, ``inst``."""
    pattern: Term | None = None
    """For ``fun (a, b) => ...`` / ``fun ⟨a, b⟩ => ...``: the pattern (names is empty)."""
    default: Term | None = None


@dataclass(slots=True, eq=False)
class Arrow(Node):
    """Function type ``A → B`` (or dependent ``(x : A) → B``)."""

    binder: Binder | None
    dom: Term
    cod: Term


@dataclass(slots=True, eq=False)
class Lambda(Node):
    binders: list[Binder]
    body: Term


@dataclass(slots=True, eq=False)
class LambdaMatch(Node):
    """``fun | p => e | ...``."""

    alts: list[MatchAlt]


@dataclass(slots=True, eq=False)
class LetDecl(Node):
    """``let x (args) : T := v`` or ``let (a, b) := v`` (``pattern``) or ``let f | p => e ...``."""

    name: str | None
    binders: list[Binder]
    type: Term | None
    type_text: str
    value: Term | None
    pattern: Term | None = None
    alts: list[MatchAlt] | None = None
    termination_hints: tuple[str, ...] = ()
    """For ``let rec``: ``termination_by`` / ``decreasing_by`` given, in order."""
    termination_measure: Term | None = None
    decreasing_tactic: str = ""
    termination_binders: tuple[str, ...] = ()


@dataclass(slots=True, eq=False)
class Let(Node):
    decl: LetDecl
    body: Term
    is_have: bool = False


@dataclass(slots=True, eq=False)
class LetRec(Node):
    decls: list[LetDecl]
    body: Term


@dataclass(slots=True, eq=False)
class If(Node):
    cond: Term
    then: Term
    els: Term
    hyp: str | None = None
    """``if h : c then``: the hypothesis name."""


@dataclass(slots=True, eq=False)
class IfLet(Node):
    pattern: Term
    value: Term
    then: Term
    els: Term


@dataclass(slots=True, eq=False)
class MatchAlt(Node):
    patterns: list[Term]
    """One per discriminant. ``| p1 | p2 => rhs`` gives several alternatives."""
    rhs: Any
    """A term, or a :class:`DoSeq` inside ``do``."""


@dataclass(slots=True, eq=False)
class Match(Node):
    discrs: list[Term]
    hyps: list[str | None]
    alts: list[MatchAlt]


@dataclass(slots=True, eq=False)
class Quant(Node):
    """``∀``/``∃`` with one bound variable per node (multi-binders are nested).

    ``bound`` is the binder predicate of ``∀ x ∈ xs, P`` / ``∀ i < n, P``: (op, term), op in
    ``∈ < ≤ > ≥ ⊆ ≠``."""

    kind: str
    """``forall`` or ``exists``."""
    name: str
    type: Term | None
    type_text: str
    bound: tuple[str, Term] | None
    body: Term
    pattern: Term | None = None
    """``∃ (a, b), P`` style pattern binders (``name`` is then a fresh name)."""


@dataclass(slots=True, eq=False)
class Do(Node):
    seq: DoSeq


@dataclass(slots=True, eq=False)
class OpenTerm(Node):
    """``open A B in e``: ``e`` with the namespaces opened (``Lean.Elab.BuiltinNotation``)."""

    names: list[str]
    term: Term


@dataclass(slots=True, eq=False)
class Show(Node):
    type: Term
    term: Term


# ---------------------------------------------------------------------------------------------
# do-notation


@dataclass(slots=True, eq=False)
class DoSeq(Node):
    items: list[Node]


@dataclass(slots=True, eq=False)
class DoLet(Node):
    """``let [mut] x : T := e`` / ``let [mut] (a, b) := e`` / ``let x ← e``."""

    decl: LetDecl
    mutable: bool
    arrow: bool


@dataclass(slots=True, eq=False)
class DoReassign(Node):
    """``x := e``, ``x ← e``, ``(a, b) := e``, ``x += e``."""

    target: Term
    op: str
    """``:=``, ``←``, ``+=``, ``-=``, ``*=``."""
    value: Term


@dataclass(slots=True, eq=False)
class DoExpr(Node):
    term: Term


@dataclass(slots=True, eq=False)
class DoIf(Node):
    cond: Term | None
    """``None`` for ``if let``."""
    then: DoSeq
    els: DoSeq | None
    hyp: str | None = None
    let_pattern: Term | None = None
    let_value: Term | None = None


@dataclass(slots=True, eq=False)
class DoUnless(Node):
    cond: Term
    body: DoSeq


@dataclass(slots=True, eq=False)
class DoFor(Node):
    """``for x in xs do``; several ``x in xs, y in ys`` clauses iterate in lockstep."""

    clauses: list[tuple[Term, Term]]
    hyp: str | None
    body: DoSeq


@dataclass(slots=True, eq=False)
class DoWhile(Node):
    cond: Term
    body: DoSeq
    hyp: str | None = None


@dataclass(slots=True, eq=False)
class DoRepeat(Node):
    body: DoSeq


@dataclass(slots=True, eq=False)
class DoBreak(Node):
    pass


@dataclass(slots=True, eq=False)
class DoContinue(Node):
    pass


@dataclass(slots=True, eq=False)
class DoReturn(Node):
    term: Term | None


@dataclass(slots=True, eq=False)
class DoMatch(Node):
    discrs: list[Term]
    hyps: list[str | None]
    alts: list[MatchAlt]
    """Right-hand sides are :class:`DoSeq`."""


@dataclass(slots=True, eq=False)
class DoNested(Node):
    """A nested ``do`` block used as an element."""

    seq: DoSeq


@dataclass(slots=True, eq=False)
class DoLetRec(Node):
    decls: list[LetDecl]


@dataclass(slots=True, eq=False)
class DoHave(Node):
    """A ``have`` inside ``do``: a proof, with no run-time effect, unless its type is a class
    (a local instance for the rest of the block)."""

    decl: LetDecl | None = None


# ---------------------------------------------------------------------------------------------
# Commands


@dataclass(slots=True, eq=False)
class Modifiers:
    attributes: list[str] = field(default_factory=list)
    private: bool = False
    protected: bool = False
    noncomputable: bool = False
    partial: bool = False
    unsafe: bool = False
    doc: str | None = None


@dataclass(slots=True, eq=False)
class DefCmd(Node):
    """``def``/``abbrev``/``theorem``/``lemma``/``instance``/``example`` and ``where`` helpers."""

    kind: str
    name: str
    binders: list[Binder]
    type: Term | None
    type_text: str
    body: Term | None
    """``None`` when the body is given by equations (``alts``) or skipped (theorems)."""
    alts: list[MatchAlt] | None = None
    where: list[DefCmd] = field(default_factory=list)
    modifiers: Modifiers = field(default_factory=Modifiers)
    end_line: int = 0
    termination_hints: tuple[str, ...] = ()
    """``termination_by`` / ``decreasing_by`` given after the body, in order."""
    termination_measure: Term | None = None
    """The measure of ``termination_by e`` when it has that form."""
    decreasing_tactic: str = ""
    """The source text of the ``decreasing_by`` tactic."""
    termination_binders: tuple[str, ...] = ()
    """``termination_by x y => e``: the names bound to the parameters after the colon."""


@dataclass(slots=True, eq=False)
class StructField(Node):
    name: str
    binders: list[Binder]
    type: Term | None
    type_text: str
    default: Term | None


@dataclass(slots=True, eq=False)
class StructureCmd(Node):
    name: str
    params: list[Binder]
    fields: list[StructField]
    deriving: list[str]
    extends: list[str]
    ctor_name: str = "mk"
    is_class: bool = False
    modifiers: Modifiers = field(default_factory=Modifiers)


@dataclass(slots=True, eq=False)
class CtorDecl(Node):
    name: str
    binders: list[Binder]
    type: Term | None
    type_text: str


@dataclass(slots=True, eq=False)
class InductiveCmd(Node):
    name: str
    params: list[Binder]
    ctors: list[CtorDecl]
    deriving: list[str]
    modifiers: Modifiers = field(default_factory=Modifiers)


@dataclass(slots=True, eq=False)
class InstanceCmd(Node):
    """``instance [name] [binders] : Class T where f := ...`` or ``:= ⟨...⟩`` / ``:= { ... }``."""

    name: str | None
    binders: list[Binder]
    type: Term
    type_text: str
    methods: list[DefCmd]
    body: Term | None
    modifiers: Modifiers = field(default_factory=Modifiers)


@dataclass(slots=True, eq=False)
class DerivingCmd(Node):
    """``deriving instance BEq, Repr for T``."""

    classes: list[str]
    types: list[str]


@dataclass(slots=True, eq=False)
class OpenCmd(Node):
    """``open A B`` (``kind='all'``), ``open A (x y)`` (``'only'``), ``open A hiding x y``
    (``'hiding'``), ``open A renaming x → y`` (``'renaming'``), ``open scoped A B`` (``'scoped'``).
    The forms mirror ``Lean.Parser.Command.openDecl``."""

    names: list[str]
    """The namespaces named: all of them for ``'all'``/``'scoped'``, the one for the other kinds."""
    kind: str = "all"
    idents: list[str] = field(default_factory=list)
    """The declarations listed by ``'only'`` and ``'hiding'``."""
    renames: list[tuple[str, str]] = field(default_factory=list)
    """``(from, to)`` pairs of ``'renaming'``."""


@dataclass(slots=True, eq=False)
class ExportCmd(Node):
    """``export A (x y)``: aliases ``<current namespace>.x`` for what ``A.x`` resolves to."""

    namespace: str
    idents: list[str]


@dataclass(slots=True, eq=False)
class NamespaceCmd(Node):
    name: str


@dataclass(slots=True, eq=False)
class SectionCmd(Node):
    name: str | None


@dataclass(slots=True, eq=False)
class EndCmd(Node):
    name: str | None


@dataclass(slots=True, eq=False)
class VariableCmd(Node):
    """``variable`` with its binders (section variables, :mod:`..section_variables`)."""

    binders: list[Binder]


@dataclass(slots=True, eq=False)
class OtherCmd(Node):
    """A command that has no bearing on evaluation (``import``, ``set_option``, ``#eval``...)."""

    keyword: str
    text: str


@dataclass(slots=True, eq=False)
class CommandError(Node):
    """A command that failed to parse: where, why, and (if known) the name it would define."""

    message: str
    name: str | None
    text: str
    lean_rejects: bool = False
    """Lean's parser fails on it too (:meth:`ParserCore.lean_error`), so Lean rejects the file."""


Term = Node
"""Any term node (the union of the classes above that are terms)."""

Command = Node


def unparen(node: Any) -> Any:
    """``node`` without the parentheses around it (``((e))`` is ``e``)."""
    while isinstance(node, Paren):
        node = node.term
    return node


def sexpr(node: object) -> str:
    """A compact S-expression rendering of a tree, for tests and debugging."""
    if isinstance(node, Ident):
        return node.name
    if isinstance(node, NumLit):
        return str(node.value)
    if isinstance(node, StrLit):
        return repr(node.value)
    if isinstance(node, CharLit):
        return f"'{node.value}'"
    if isinstance(node, SciLit):
        return node.text
    if isinstance(node, BinOp):
        return f"({node.op} {sexpr(node.lhs)} {sexpr(node.rhs)})"
    if isinstance(node, UnOp):
        return f"({node.op} {sexpr(node.arg)})"
    if isinstance(node, App):
        return "(" + " ".join(sexpr(x) for x in [node.fn, *node.args]) + ")"
    if isinstance(node, Paren):
        return sexpr(node.term)
    if isinstance(node, list):
        return "[" + " ".join(sexpr(x) for x in node) + "]"
    if isinstance(node, tuple):
        return "<" + " ".join(sexpr(x) for x in node) + ">"
    if isinstance(node, (str, int, bool)) or node is None:
        return repr(node)
    if isinstance(node, Node):
        parts = [type(node).__name__]
        for f in fields(node):
            if f.name in ("line", "col", "type_text", "end_line", "modifiers"):
                continue
            value = getattr(node, f.name)
            if value is None or value == [] or value == "":
                continue
            parts.append(f"{f.name}={sexpr(value)}")
        return "{" + " ".join(parts) + "}"
    return repr(node)


_INFIX_PRECEDENCE: dict[str, tuple[int, str]] = {
    # Lean's notation levels (``Init/Prelude.lean``, ``Init/Core.lean``, ``Init/Notation.lean``) and
    # associativity: ``l``eft, ``r``ight, ``n``one
    "↔": (20, "n"), "→": (25, "r"), "∨": (30, "r"), "||": (30, "r"), "∧": (35, "r"), "&&": (35, "r"),
    "=": (50, "n"), "≠": (50, "n"), "==": (50, "n"), "!=": (50, "n"), "<": (50, "n"), ">": (50, "n"),
    "≤": (50, "n"), "≥": (50, "n"), "∈": (50, "n"), "∉": (50, "n"), "∣": (50, "n"),
    "++": (65, "l"), "+": (65, "l"), "-": (65, "l"), "::": (67, "r"), "*": (70, "l"), "/": (70, "l"),
    "%": (70, "l"), "^": (75, "r"), "∘": (90, "r"),
}
_ATOM_PRECEDENCE = 1024


def _precedence(node: object) -> int:
    if isinstance(node, BinOp):
        return _INFIX_PRECEDENCE.get(node.op, (10, "n"))[0]
    if isinstance(node, UnOp):
        return 75 if node.op == "-" else 40 if node.op == "¬" else _ATOM_PRECEDENCE - 1
    if isinstance(node, App):
        return _ATOM_PRECEDENCE - 1
    if isinstance(node, (Ident, DotIdent, NumLit, SciLit, StrLit, CharLit, Paren, Tuple, UnitLit, AnonCtor,
                         ListLit, ArrayLit, Index, Proj, Hole, Cdot, RangeLit)):
        return _ATOM_PRECEDENCE
    return 0  # binders, `if`, `match`, `fun` ...: parenthesised wherever they are an operand


def lean_syntax(node: object) -> str:
    """A term written back in Lean's own notation (``i + 1 < xs.size``), for messages a user reads;
    constructs without a printer here fall back to :func:`sexpr`."""
    def operand(child: object, level: int) -> str:
        text = lean_syntax(child)
        return f"({text})" if _precedence(child) < level else text

    if isinstance(node, Ident):
        return node.name
    if isinstance(node, DotIdent):
        return f".{node.name}"
    if isinstance(node, NumLit):
        return str(node.value)
    if isinstance(node, SciLit):
        return node.text
    if isinstance(node, StrLit):
        return '"' + node.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(node, CharLit):
        return repr(node.value) if node.value != "'" else "'\\''"
    if isinstance(node, BinOp):
        level, assoc = _INFIX_PRECEDENCE.get(node.op, (10, "n"))
        left = operand(node.lhs, level if assoc == "l" else level + 1)
        right = operand(node.rhs, level if assoc == "r" else level + 1)
        return f"{left} {node.op} {right}"
    if isinstance(node, UnOp):
        return f"{node.op}{operand(node.arg, _precedence(node) + (0 if node.op == '¬' else 1))}"
    if isinstance(node, App):
        parts = [operand(node.fn, _ATOM_PRECEDENCE - 1)]
        for arg in node.args:
            parts.append(f"({arg.name} := {lean_syntax(arg.value)})" if isinstance(arg, NamedArg)
                         else operand(arg, _ATOM_PRECEDENCE))
        return " ".join(parts)
    if isinstance(node, Paren):
        return f"({lean_syntax(node.term)})"
    if isinstance(node, Tuple):
        return "(" + ", ".join(lean_syntax(x) for x in node.items) + ")"
    if isinstance(node, AnonCtor):
        return "⟨" + ", ".join(lean_syntax(x) for x in node.items) + "⟩"
    if isinstance(node, ListLit):
        return "[" + ", ".join(lean_syntax(x) for x in node.items) + "]"
    if isinstance(node, ArrayLit):
        return "#[" + ", ".join(lean_syntax(x) for x in node.items) + "]"
    if isinstance(node, UnitLit):
        return "()"
    if isinstance(node, Hole):
        return "_"
    if isinstance(node, Cdot):
        return "·"
    if isinstance(node, Index):
        suffix = {"plain": "", "!": "!", "?": "?"}.get(node.mode, "'" + (operand(node.proof, _ATOM_PRECEDENCE)
                                                                        if node.proof is not None else "_"))
        return f"{operand(node.coll, _ATOM_PRECEDENCE)}[{lean_syntax(node.index)}]{suffix}"
    if isinstance(node, Proj):
        return f"{operand(node.term, _ATOM_PRECEDENCE)}.{node.field}"
    return sexpr(node)


# ---------------------------------------------------------------------------------------------
# Traversal (one walker for every pass that reads or rewrites trees)


def children(node: object) -> Iterator[Node]:
    """The nodes directly below ``node``: its node-valued fields and the nodes in its list fields
    (in field order). Tuple fields (``Quant.bound``, ``DoFor.clauses``) are not entered; passes that
    need them say so."""
    if not isinstance(node, Node):
        return
    for name in node.__slots__:  # type: ignore[attr-defined]
        value = getattr(node, name, None)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Node):
                    yield item


def subterms(value: object) -> Iterator[Node]:
    """The nodes directly below ``value`` -- a node's fields, or a list's or tuple's items -- entering
    lists and tuples at any depth (so ``Quant.bound`` and ``DoFor.clauses`` are included), for the
    analyses that must see every subterm. Leaves that are not nodes are skipped."""
    items = [getattr(value, f.name) for f in fields(value)] if isinstance(value, Node) else value
    if not isinstance(items, (list, tuple)):
        return
    for item in items:
        if isinstance(item, Node):
            yield item
        elif isinstance(item, (list, tuple)):
            yield from subterms(item)


def rewrite(node: Node, replace: Callable[[Node], Node | None], *, into_parens: bool = True,
            copied: Callable[[Node, Node], None] | None = None) -> Node:
    """A copy of ``node`` where every subtree for which ``replace`` returns a node is replaced by it
    (top-down; a replaced subtree is not entered). Node and list fields are rebuilt; other fields
    are shared. ``into_parens=False`` leaves parenthesised subterms as they are. ``copied`` is told
    each (original, copy or replacement) pair."""

    def walk(n: object) -> object:
        if not isinstance(n, Node):
            return n
        new = replace(n)
        if new is not None:
            if copied is not None:
                copied(n, new)
            return new
        if isinstance(n, Paren) and not into_parens:
            return n
        clone = copy.copy(n)
        for name in n.__slots__:  # type: ignore[attr-defined]
            value = getattr(n, name, None)
            if isinstance(value, list):
                setattr(clone, name, [walk(x) for x in value])
            elif isinstance(value, Node):
                setattr(clone, name, walk(value))
        if copied is not None:
            copied(n, clone)
        return clone

    return walk(node)  # type: ignore[return-value]


def identifier_roots(node: object) -> set[str]:
    """The first components of every identifier in ``node`` (``xs`` for ``xs.size``)."""
    if isinstance(node, Ident):
        return {node.name.split(".")[0]}
    out: set[str] = set()
    for child in children(node):
        out |= identifier_roots(child)
    return out
