"""The elaborator's core: dispatch by construct, expected types and coercions, the simple terms.

Elaboration is bidirectional, as in Lean: ``elab(node, ctx, expected)`` infers the type of
``node`` using ``expected`` where Lean propagates it (numerals, lambdas, ``⟨…⟩``, ``.some``,
``∅``), and :meth:`ElabCore.expect` then checks the inferred type against the expected one,
inserting the coercions Lean inserts (``↑`` Nat→Int and Fin→Nat, Bool→Prop, Prop→Bool by
``decide``, α→Option α). A clash with every type fully known is an error; anything involving a
gap is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx, Diagnostic, ProofType
from veriscale.backends.embedded.elab.node_types import NodeTypes
from veriscale.backends.embedded.elab.types import (
    CHAR,
    FLOAT,
    GAP,
    NAT,
    PROP,
    STRING,
    TYPE,
    UNIT,
    Gap,
    MVar,
    MVarStore,
    args,
    has_gap,
    head_name,
    show,
    unify,
    zonk,
)
from veriscale.lean.types import LeanType, NamedType, ProdType, array_of, list_of


class Abort(Exception):
    """Stop elaborating the current declaration (after an error Lean would also stop at)."""


class ElabBudgetExceeded(Exception):
    """The file is too large or too deep for the elaborator's deterministic budget."""


ELAB_STEPS_PER_FILE = 400_000
"""Terms elaborated per file before the elaborator gives up (a gap, never a pass): a hostile
submission must not make scoring slow. Verina's task files take at most about 300."""


class ElabCore:
    """State and the generic machinery; the constructs live in the mixins composed in
    :class:`veriscale.backends.embedded.elab.Elaborator`."""

    def __init__(self) -> None:
        self.store = MVarStore()
        self.diagnostics: list[Diagnostic] = []
        self.decl_name = ""
        self.steps = 0
        self.postponed: list[Callable[[], None]] = []
        self.resumes: list[Callable[[], bool]] = []
        self.index_types: list[LeanType] = []
        """Index types postponed while unknown (:mod:`.getelem`), defaulted last."""
        """Postponed elaboration problems: each returns ``False`` while it still cannot run."""
        self.heterogeneous_until_defaulted: list[LeanType] = []
        """Result types of arithmetic trees none of whose leaves had a known type."""
        self.undecidable_heads: dict[int, str] = {}
        """Propositions (by node id) headed by a constant or local with no ``Decidable`` instance
        Lean could find: a non-reducible ``def … : Prop`` of the file, a ``Prop``-valued local
        function (:meth:`check_decidable_heads`)."""
        self.decidable_relations: set[tuple[str, int, int]] = set()
        """Order relations (``a < b``) at positions that need a ``Decidable`` instance (``if``,
        ``decide``, a ``Prop`` used as a ``Bool``), by :func:`.instances.use_key`."""
        self._dispatch: dict[type, Callable[[Any, Ctx, LeanType | None], LeanType]] = {}
        #: the type inferred for each term of the declaration being elaborated (for the compiler)
        self.node_types = NodeTypes()
        for cls_name in dir(A):
            cls = getattr(A, cls_name)
            method = getattr(self, f"e_{cls_name}", None)
            if isinstance(cls, type) and method is not None:
                self._dispatch[cls] = method

    # -- diagnostics ----------------------------------------------------------------------------
    def error(self, node: A.Node | None, message: str, rule: str) -> None:
        line, col = (node.line, node.col) if node is not None else (0, 0)
        self.diagnostics.append(Diagnostic("error", line, col, message, rule, self.decl_name))

    def gap(self, node: A.Node | None, message: str, rule: str = "unsupported") -> LeanType:
        line, col = (node.line, node.col) if node is not None else (0, 0)
        self.diagnostics.append(Diagnostic("gap", line, col, message, rule, self.decl_name))
        return GAP

    def run_resumes(self) -> None:
        """Resume postponed problems until none makes progress (Lean's ``synthesizeSyntheticMVars``
        loop); what is left cannot be decided here."""
        progress = True
        while self.resumes and progress:
            pending, self.resumes = self.resumes, []
            progress = False
            for resume in pending:
                if resume():
                    progress = True
                else:
                    self.resumes.append(resume)
            if not progress and self.resumes:
                progress = self.default_index_types()
        for _ in self.resumes:
            self.gap(None, "a term whose type stays unknown (postponed elaboration)", "postponed")
        self.resumes = []

    def default_index_types(self) -> bool:
        """When nothing else makes progress, an index whose type is still unknown (``∃ i, a[i] = r``)
        is a ``Nat``: the engine's reading of Lean's last resort for a stuck ``GetElem`` problem.
        ``True`` when some index type was fixed so."""
        fixed = False
        for m in self.index_types:
            if isinstance(zonk(m), MVar):
                unify(m, NAT)
                fixed = True
        self.index_types = []
        return fixed

    def fresh(self, *, numeral: bool = False, hint: str = "") -> MVar:
        return self.store.fresh(numeral=numeral, hint=hint)

    # -- dispatch -------------------------------------------------------------------------------
    def elab(self, node: A.Node, ctx: Ctx, expected: LeanType | None = None) -> LeanType:
        self.steps += 1
        if self.steps > ELAB_STEPS_PER_FILE:
            raise ElabBudgetExceeded(f"more than {ELAB_STEPS_PER_FILE} terms to elaborate")
        method = self._dispatch.get(type(node))
        if method is None:
            return self.gap(node, f"the elaborator does not model `{type(node).__name__}`")
        t = method(node, ctx, expected)
        self.node_types.record(node, t)
        return t

    def check(self, node: A.Node, ctx: Ctx, expected: LeanType) -> LeanType:
        """Elaborate ``node`` at ``expected`` and check the result (with coercions)."""
        actual = self.elab(node, ctx, expected)
        self.expect(node, actual, expected)
        if unify(actual, expected) is False:
            return expected  # a coercion was inserted (or an error reported): the term now has `expected`
        return actual

    def expect(self, node: A.Node, actual: LeanType, expected: LeanType | None) -> None:
        if expected is None:
            return
        result = unify(actual, expected)
        if result is not False:
            return
        if self.coerces(actual, expected):
            if head_name(zonk(expected)) == "Bool" and self.is_prop(actual):
                self.check_decidable(node)  # Prop to Bool is `decide`, which needs a `Decidable` instance
                self.check_decidable_heads(node)
            return
        if {head_name(actual), head_name(expected)} == {"Int", "Nat"} and (
                isinstance(actual, MVar) or isinstance(expected, MVar)):
            # A type that reached here through a metavariable may have been fixed differently by
            # Lean's postponement order (a lambda elaborated late gets `↑` inserted); not decided.
            # Between declared types (`(hi : Int)` returned at `Nat`) there is no coercion.
            self.gap(node, f"`{A.lean_syntax(node)}` has type {show(actual)} where {show(expected)} is expected; whether "
                           "Lean inserts a coercion depends on elaboration order", "numeric-coercion")
            return
        self.error(node, f"type mismatch: `{A.lean_syntax(node)}` has type {show(actual)} but is expected to have type "
                         f"{show(expected)}", "type-mismatch")

    def coerces(self, src: LeanType, dst: LeanType) -> bool:
        """Coercions Lean finds for the fragment (``↑``): a definite answer only for known types."""
        src, dst = zonk(src), zonk(dst)
        hs, hd = head_name(src), head_name(dst)
        if hs == "Nat" and hd == "Int":
            return True
        if hs == "Fin" and hd in ("Nat", "Int"):
            return True
        if hs == "Bool" and (hd == "Prop" or isinstance(dst, ProofType)):
            return True
        if hd == "Bool" and (hs == "Prop" or isinstance(src, ProofType)):
            return True
        if hd == "Option" and unify(src, args(dst)[0]) is not False:
            return True
        if hs in ("Subtype",):
            return True
        if isinstance(src, ProofType) and hd == "Prop":
            return False
        return False

    def check_decidable(self, cond: A.Node) -> None:
        """An unbounded quantifier over an infinite type has no ``Decidable`` instance in core
        Lean: ``∀ x, x < n → p x`` and ``∃ x, x < n ∧ p x`` do (``Nat.decidableBallLT``,
        ``Nat.decidableExistsLT``), as do ``∀ x ∈ xs`` / ``∃ x ∈ xs`` (``List.decidableBAll``...)."""
        cond = A.unparen(cond)
        if isinstance(cond, A.BinOp) and cond.op in ("<", ">", "≤", "≥"):
            self.decidable_relations.add((cond.op, cond.line, cond.col))
        if isinstance(cond, A.UnOp) and cond.op == "¬":
            self.check_decidable(cond.arg)
        elif isinstance(cond, A.BinOp) and cond.op in ("∧", "∨", "→", "↔"):
            self.check_decidable(cond.lhs)
            self.check_decidable(cond.rhs)
        elif isinstance(cond, A.Quant) and cond.bound is None and cond.pattern is None:
            if _bounded_body(cond) or self.classical_open():
                return
            type_text = (cond.type_text or "").strip()
            if type_text in ("", "Nat", "ℕ", "Int", "ℤ", "String") or type_text.startswith(("List", "Array")):
                what = "∃" if cond.kind == "exists" else "∀"
                self.error(cond, f"failed to synthesize Decidable ({what} {cond.name}, …): an unbounded "
                                 "quantifier over an infinite type is not decidable", "undecidable-condition")

    def check_decidable_heads(self, cond: A.Node) -> None:
        """After elaboration: a proposition that needs a ``Decidable`` instance and is an application
        of a constant instance synthesis cannot see through. ``def Big (x y : Int) : Prop := x > y``
        is not reducible, and type class resolution unfolds only reducible definitions and
        instances (``Lean.Meta.synthInstance?`` runs at ``TransparencyMode.instances``; the
        discrimination tree keys ``Big x m`` by ``Big``), so ``if Big x m then …`` fails with
        "failed to synthesize Decidable (Big x m)"; an ``abbrev`` or ``@[reducible] def`` unfolds. A
        ``Prop``-valued parameter ``p`` has no instance unless the binders give one."""
        cond = A.unparen(cond)
        if isinstance(cond, A.UnOp) and cond.op == "¬":
            self.check_decidable_heads(cond.arg)
        elif isinstance(cond, A.BinOp) and cond.op in ("∧", "∨", "→", "↔"):
            self.check_decidable_heads(cond.lhs)
            self.check_decidable_heads(cond.rhs)
        elif id(cond) in self.undecidable_heads and not self.classical_open():
            self.error(cond, f"failed to synthesize Decidable ({A.lean_syntax(cond)}): "
                             f"{self.undecidable_heads[id(cond)]}", "undecidable-condition")

    def classical_open(self) -> bool:
        return False

    def is_prop(self, t: LeanType) -> bool:
        t = zonk(t)
        return isinstance(t, ProofType) or head_name(t) == "Prop"

    def as_condition(self, node: A.Node, ctx: Ctx) -> LeanType:
        """A condition of ``if``/``while``: a ``Bool``, or a ``Prop`` with a ``Decidable``
        instance (``ite``/``dite`` take one)."""
        self.check_decidable(node)
        t = self.elab(node, ctx, PROP)
        self.check_decidable_heads(node)
        z = zonk(t)
        if isinstance(z, (Gap, MVar)) or has_gap(z):
            return t
        if head_name(z) in ("Bool", "Prop") or isinstance(z, ProofType):
            return t
        self.error(node, f"type mismatch: `{A.lean_syntax(node)}` has type {show(t)} but is expected to have type Prop",
                   "type-mismatch")
        return t

    # -- literals and simple terms --------------------------------------------------------------
    def e_Paren(self, node: A.Paren, ctx: Ctx, expected: LeanType | None) -> LeanType:
        if _has_cdot(node.term):
            return self.cdot_function(node.term, ctx, expected)
        return self.elab(node.term, ctx, expected)

    def e_NumLit(self, node: A.NumLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        m = self.fresh(numeral=True)
        if expected is not None and unify(m, expected) is False:
            want = zonk(expected)
            if head_name(want) == "Prop" or isinstance(want, ProofType):
                return m
            self.error(node, f"failed to synthesize OfNat {show(expected)} {node.value}: numerals are polymorphic "
                             f"in Lean, but the numeral `{node.value}` cannot be used in a context where the "
                             f"expected type is {show(expected)}", "numeral-type")
            return GAP
        return m

    def e_SciLit(self, node: A.SciLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return FLOAT

    def e_StrLit(self, node: A.StrLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return STRING

    def e_CharLit(self, node: A.CharLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return CHAR

    def e_UnitLit(self, node: A.UnitLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return UNIT

    def e_Interp(self, node: A.Interp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        types = [STRING if isinstance(part, str) else self.elab(part, ctx, None) for part in node.parts]
        self.use_interpolation(node, types, ctx)
        return STRING

    def use_interpolation(self, node: A.Interp, part_types: list[LeanType], ctx: Ctx) -> None:
        """Hook: the ``toString`` and ``++`` uses of ``s!`` (:mod:`.instances`)."""

    def proof_sensitive_instances(self, ctx: Ctx | None) -> bool:
        """Hook: whether local instances in scope change what proof tactics read (:mod:`.instances`)."""
        return False

    proof_sensitive_defs: set[str] = set()
    """Hook: declarations declaring such a local instance in their bodies (:mod:`.instances`)."""

    def e_Sort(self, node: A.Sort, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return TYPE

    def e_Hole(self, node: A.Hole, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return expected if expected is not None else self.fresh()

    def e_Sorry(self, node: A.Sorry, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return expected if expected is not None else self.fresh()

    def e_ProofTerm(self, node: A.ProofTerm, ctx: Ctx, expected: LeanType | None) -> LeanType:
        """A tactic block is checked against the proposition expected here (:meth:`prove`), never
        trusted: with no known proposition it is a gap."""
        z = zonk(expected) if expected is not None else None
        if isinstance(z, ProofType):
            self.prove(node, z.prop, ctx)
            return expected  # type: ignore[return-value]
        if isinstance(z, Gap):
            return z  # the reason is reported where the expected type was lost
        if z is not None and not self.is_prop(z) and not isinstance(z, MVar):
            return self.gap(node, "a tactic block producing data is not modelled", "tactic")
        return self.gap(node, "a proof whose proposition is not known here is not checked", "proof")

    def prove(self, proof: A.Node, goal: A.Node, ctx: Ctx) -> None:
        """Check that ``proof`` proves ``goal`` (:mod:`.tactics`); a gap where not modelled."""
        self.gap(proof, f"the proof of `{A.lean_syntax(goal)}` is not checked", "proof")

    def e_SetBuilder(self, node: A.SetBuilder, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return self.gap(node, "set-builder notation is not modelled")

    def e_Ascription(self, node: A.Ascription, ctx: Ctx, expected: LeanType | None) -> LeanType:
        ty = self.read_type(node.type, ctx)
        unknown = self.unimported_type_name(node.type) if isinstance(ty, Gap) else None
        if unknown is not None:
            # in a term there is no auto-bound implicit: the name must exist (Lean.Elab.Term
            # `elabIdent` -> "unknown identifier")
            self.error(node, f"unknown identifier '{unknown}': `{unknown}` is Mathlib's notation, and the file does "
                             "not import Mathlib", "unknown-constant")
            self.elab(node.term, ctx, None)
            return GAP
        if isinstance(ty, Gap):
            self.gap(node, f"the type `{node.type_text}` is not modelled")
            self.elab(node.term, ctx, None)
            return GAP
        self.check(node.term, ctx, ty)
        return ty

    def e_Show(self, node: A.Show, ctx: Ctx, expected: LeanType | None) -> LeanType:
        ty = self.read_type(node.type, ctx)
        self.elab(node.term, ctx, ty if not isinstance(ty, Gap) else None)
        return ty

    def e_Tuple(self, node: A.Tuple, ctx: Ctx, expected: LeanType | None) -> LeanType:
        exp_items: list[LeanType | None] = [None] * len(node.items)
        e = zonk(expected) if expected is not None else None
        i = 0
        while e is not None and isinstance(e, ProdType) and i < len(node.items) - 1:
            exp_items[i] = e.fst
            e = zonk(e.snd)
            i += 1
        if e is not None and i == len(node.items) - 1:
            exp_items[i] = e
        types = [self.check(item, ctx, t) if t is not None else self.elab(item, ctx, None)
                 for item, t in zip(node.items, exp_items)]
        out = types[-1]
        for t in reversed(types[:-1]):
            out = ProdType(t, out)
        return out

    def _elements(self, items: list[A.Node], ctx: Ctx, elem: LeanType | None) -> LeanType:
        if elem is None:
            elem = self.fresh()
        for item in items:
            self.check(item, ctx, elem)
        return elem

    def e_ListLit(self, node: A.ListLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return list_of(self._elements(node.items, ctx, self.element_expected(expected, "List")))

    def e_ArrayLit(self, node: A.ArrayLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return array_of(self._elements(node.items, ctx, self.element_expected(expected, "Array")))

    def element_expected(self, expected: LeanType | None, container: str) -> LeanType | None:
        if expected is None:
            return None
        e = zonk(expected)
        if head_name(e) == container and args(e):
            return args(e)[0]
        return None

    def e_RangeLit(self, node: A.RangeLit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        for part in (node.start, node.stop, node.step):
            if part is not None:
                self.check(part, ctx, NAT)
        return NamedType("Std.Range")

    def e_EmptyCollection(self, node: A.EmptyCollection, ctx: Ctx, expected: LeanType | None) -> LeanType:
        if expected is None or isinstance(zonk(expected), (MVar, Gap)):
            return self.gap(node, "`∅` needs a known expected type", "postponed")
        if head_name(expected) in ("List", "Array", "Std.HashMap", "Std.HashSet"):
            return expected
        return self.gap(node, f"`∅` at type {show(expected)} is not modelled")

    def e_Cdot(self, node: A.Cdot, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return self.gap(node, "`·` outside parentheses")

    # -- hooks the mixins provide ---------------------------------------------------------------
    def unimported_type_name(self, node: A.Node | None) -> str | None:  # pragma: no cover - mixin
        raise NotImplementedError

    def read_type(self, node: A.Node | None, ctx: Ctx) -> LeanType:  # pragma: no cover - mixin
        raise NotImplementedError

    def cdot_function(self, term: A.Node, ctx: Ctx, expected: LeanType | None) -> LeanType:  # pragma: no cover
        raise NotImplementedError


def _bounded_body(q: A.Quant) -> bool:
    """``∀ x, x < n → …`` / ``∃ x, x < n ∧ …`` (or ``≤``, ``∈``): the forms core's instances decide."""
    body = q.body
    body = A.unparen(body)
    sep = "→" if q.kind == "forall" else "∧"
    if isinstance(body, A.BinOp) and body.op == sep:
        first = body.lhs
        first = A.unparen(first)
        if isinstance(first, A.Ascription):
            first = first.type
        if (isinstance(first, A.BinOp) and first.op in ("<", "≤", "∈") and isinstance(first.lhs, A.Ident)
                and first.lhs.name == q.name):
            return True
    if isinstance(q.body, A.Quant) and q.body.bound is None and q.body.type is not None:
        return True  # `∃ k, ∃ h : k < n, …`: decided through the proof binder's statement
    return False


def _has_cdot(node: Any) -> bool:
    """A ``·`` directly inside these parentheses (not inside nested parentheses)."""
    if isinstance(node, A.Cdot):
        return True
    if isinstance(node, A.Paren):
        return False
    return any(_has_cdot(child) for child in A.children(node))


__all__ = ["Abort", "ElabCore"]
