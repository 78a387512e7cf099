"""Operators: ``binop%``/``binrel%``/``unop%`` trees, logical connectives, ``::``, ``∈``, ``^``.

Lean elaborates an arithmetic expression as a tree (``Lean.Elab.Extra``, ``elabBinOp`` and
``analyze``): the leaves are elaborated without an expected type, the *maximal type* is computed
from the expected type (when known) and the leaves' types (``Nat`` < ``Int`` by coercion), and
every leaf is coerced to it. If two leaf types are not related by a coercion the tree is
*uncomparable* and Lean falls back to plain instance resolution (``HAdd String Char ?``), which for
the types of this fragment fails. Relations (``binrel%``) analyse both sides the same way and give
a ``Prop`` (``==`` gives a ``Bool``).
"""

from __future__ import annotations

import functools

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.bitwise import (
    BITWISE_OPS,
    SHIFT_OPS,
    BitwiseMixin,
    bitwise_instance_exists,
)
from veriscale.backends.embedded.elab.context import Ctx, ProofType
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.types import (
    BOOL,
    GAP,
    NAT,
    PROP,
    Gap,
    MVar,
    args,
    has_gap,
    head_name,
    show,
    unify,
    zonk,
)
from veriscale.lean.types import FunType, LeanType, NamedType, list_of

OPERATOR_CLASSES: dict[str, str] = {
    "+": "Add", "-": "Sub", "*": "Mul", "/": "Div", "%": "Mod", "++": "Append", "neg": "Neg",
    "&&&": "AndOp", "|||": "OrOp", "^^^": "Xor",
}
"""The class whose instance each operator of a ``binop%`` tree reaches (:mod:`.instances`)."""

ARITH_OPS = frozenset({"+", "-", "*", "/", "%", "++"} | BITWISE_OPS)
REL_OPS = frozenset({"<", ">", "≤", "≥", "=", "≠", "==", "!="})
ORDER_RELATIONS = {"<": "LT", ">": "LT", "≤": "LE", "≥": "LE"}
"""``a > b`` is ``GT.gt a b := LT.lt b a``, ``a ≥ b`` is ``GE.ge a b := LE.le b a`` (Init/Prelude.lean)."""
PROP_OPS = frozenset({"∧", "∨", "↔", "→"})
BOOL_OPS = frozenset({"&&", "||"})
OPTION_OPS = frozenset({"<|>", ">>=", "<$>"})

_NUMERIC = frozenset({"Nat", "Int", "Float", "UInt8", "UInt16", "UInt32", "UInt64", "USize", "Fin"})
_CORE = _NUMERIC | {"String", "Char", "Bool", "List", "Array", "Option", "Prod", "Unit", "Std.HashMap",
                    "Std.HashSet", "Prop", "Function"}
"""Type heads whose instances the fragment knows completely (a function has no arithmetic)."""


def _instance_exists(op: str, t: LeanType, has_mathlib: bool = False) -> bool | None:
    """Whether core Lean has the homogeneous instance of ``op`` at ``t`` (None: not modelled)."""
    h = head_name(t)
    if h is None or h not in _CORE:
        return None
    if op in BITWISE_OPS:
        return bitwise_instance_exists(op, h, has_mathlib)
    if op in ("+", "*", "-"):
        return h in _NUMERIC
    if op in ("/", "%"):
        if h == "Float":
            return None if op == "%" else True
        return h in _NUMERIC
    if op == "++":
        return h in ("String", "List", "Array")
    if op == "neg":
        return h in ("Int", "Float") or (None if h.startswith("UInt") or h == "Fin" else False)
    return None


class OpsMixin(BitwiseMixin, ElabCore):
    def e_BinOp(self, node: A.BinOp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        op = node.op
        if op in ARITH_OPS or op == "^":
            return self.binop_tree(node, ctx, expected)
        if op in SHIFT_OPS:
            return self.shift(node, ctx, expected)
        if op in REL_OPS:
            return self.relation(node, ctx, expected)
        if op == "→" and isinstance(A.unparen(node.lhs), A.Ascription) and isinstance(
                A.unparen(node.lhs).term, A.Ident):  # type: ignore[attr-defined]
            # `(h : P) → Q`: a dependent arrow; `h : P` is in scope for Q
            asc = A.unparen(node.lhs)
            self.check(asc.type, ctx, PROP)  # type: ignore[attr-defined]
            inner = ctx.bind(asc.term.name, ProofType(asc.type, A.sexpr(asc.type)))  # type: ignore[attr-defined]
            self.check(node.rhs, inner.assume(asc.type, "implication"), PROP)  # type: ignore[attr-defined]
            return PROP
        if op in PROP_OPS:
            lhs_ctx = ctx
            self.check(node.lhs, ctx, PROP)
            if op == "→":
                lhs_ctx = ctx.assume(node.lhs, "implication")
            self.check(node.rhs, lhs_ctx, PROP)
            return PROP if not _wants_bool(expected) else BOOL
        if op in BOOL_OPS:
            self.check(node.lhs, ctx, BOOL)
            self.check(node.rhs, ctx, BOOL)
            return BOOL
        if op == "::":
            elem = self.elab(node.lhs, ctx, self.element_expected(expected, "List"))
            return self.check(node.rhs, ctx, list_of(elem))
        if op in ("∈", "∉"):
            return self.membership(node, ctx)
        if op in ("|>", "<|", "$"):
            fn, arg = (node.rhs, node.lhs) if op == "|>" else (node.lhs, node.rhs)
            return self.e_App(A.App(node.line, node.col, fn, [arg]), ctx, expected)  # type: ignore[attr-defined]
        if op == "∘":
            f = self.elab(node.lhs, ctx, None)
            g = self.elab(node.rhs, ctx, None)
            fz, gz = zonk(f), zonk(g)
            if isinstance(fz, FunType) and isinstance(gz, FunType):
                self.expect(node, gz.codomain, fz.domain)
                return FunType(gz.domain, fz.codomain)
            return self.gap(node, "composition of terms whose function types are not known", "postponed")
        if op in OPTION_OPS:
            return self.option_operator(node, ctx, expected)
        self.elab(node.lhs, ctx, None)
        self.elab(node.rhs, ctx, None)
        return self.gap(node, f"the operator `{op}` is not modelled")

    def option_operator(self, node: A.BinOp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        """``a <|> b``, ``x >>= f`` and ``f <$> x`` on ``Option`` (Init/Prelude.lean: ``<|>`` is
        ``HOrElse.hOrElse a (fun _ => b)`` with ``a`` and ``b`` of one type, ``>>=`` is
        ``Bind.bind : m α → (α → m β) → m β``, ``<$>`` is ``Functor.map : (α → β) → f α → f β``;
        ``Option``'s instances are ``Option.orElse``, ``Option.bind``, ``Option.map``,
        Init/Data/Option/Basic.lean). At any other type the operator is a gap."""
        op = node.op
        monadic = node.rhs if op == "<$>" else node.lhs
        mt = self.elab(monadic, ctx, expected if op == "<|>" else None)
        z = zonk(mt)
        other = node.lhs if op == "<$>" else node.rhs
        if head_name(z) != "Option" or len(args(z)) != 1:
            self.elab(other, ctx, None)
            return self.gap(node, f"the operator `{op}` at {show(z)} is not modelled")
        elem = args(z)[0]
        if op == "<|>":
            self.check(other, ctx, z)
            return z
        out = self.fresh()
        self.check(other, ctx, FunType(elem, NamedType("Option", (out,)) if op == ">>=" else out))
        result = NamedType("Option", (out,))
        self.expect(node, result, expected)
        return result

    # -- binop% ---------------------------------------------------------------------------------
    def _leaves(self, node: A.Node, out: list[A.Node], ops: list[A.Node], exps: list[A.Node]) -> None:
        if isinstance(node, A.Paren) and isinstance(node.term, (A.BinOp, A.UnOp)) and not _cdot(node.term):
            node = node.term
        if isinstance(node, A.BinOp) and node.op in ARITH_OPS:
            ops.append(node)
            self._leaves(node.lhs, out, ops, exps)
            self._leaves(node.rhs, out, ops, exps)
        elif isinstance(node, A.BinOp) and node.op == "^":
            ops.append(node)
            self._leaves(node.lhs, out, ops, exps)
            exps.append(node)
        elif isinstance(node, A.UnOp) and node.op == "-":
            ops.append(node)
            self._leaves(node.arg, out, ops, exps)
        else:
            out.append(node)

    def _analyse(self, leaves: list[A.Node], ctx: Ctx, seed: LeanType | None) -> tuple[LeanType | None, bool, list[LeanType]]:
        """Elaborate the leaves; return (maximal type, uncomparable, leaf types).

        A leaf that is a dot identifier (``.lt``, ``.some x``) cannot be elaborated without an
        expected type: Lean postpones it (``elabDotIdent`` waits for the expected type) and the
        tree's analysis gives it the maximal type of the other leaves (``Lean.Elab.Extra``,
        ``toTree``/``analyze``), so ``compare a b == .lt`` compares at ``Ordering``."""
        dotted = [_is_dot_leaf(leaf) for leaf in leaves]
        types: list[LeanType] = [GAP if d else self.elab(leaf, ctx, None) for leaf, d in zip(leaves, dotted)]
        if any(dotted):
            others, _, _ = self._maximal(types, seed, [not d for d in dotted])
            for i, leaf in enumerate(leaves):
                if dotted[i]:
                    types[i] = self.elab(leaf, ctx, others)
        max_t, uncomparable, _ = self._maximal(types, seed, [True] * len(types))
        return max_t, uncomparable, types

    def _maximal(self, types: list[LeanType], seed: LeanType | None,
                 include: list[bool]) -> tuple[LeanType | None, bool, list[LeanType]]:
        """The maximal type of the ``include``d leaf types (and ``seed``), and whether two of them
        are uncomparable."""
        max_t: LeanType | None = None
        if seed is not None and not isinstance(zonk(seed), (MVar, Gap)) and not self.is_prop(seed):
            max_t = seed
        uncomparable = False
        for t, wanted in zip(types, include):
            if not wanted:
                continue
            z = zonk(t)
            if isinstance(z, (MVar, Gap)) or has_gap(z):
                continue
            if max_t is None:
                max_t = z
                continue
            if unify(max_t, z) is not False:
                continue
            if self.coerces(z, max_t) and not _bool_prop(z, max_t):
                continue
            if self.coerces(max_t, z) and not _bool_prop(max_t, z):
                max_t = z
                continue
            uncomparable = True
        return max_t, uncomparable, types

    def binop_tree(self, node: A.BinOp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        leaves: list[A.Node] = []
        ops: list[A.Node] = []
        exps: list[A.Node] = []
        self._leaves(node, leaves, ops, exps)
        max_t, uncomparable, types = self._analyse(leaves, ctx, expected)
        return self._finish_tree(node, leaves, ops, exps, types, max_t, uncomparable, ctx)

    def _finish_tree(self, node: A.Node, leaves: list[A.Node], ops: list[A.Node], exps: list[A.Node],
                     types: list[LeanType], max_t: LeanType | None, uncomparable: bool, ctx: Ctx) -> LeanType:
        if any(isinstance(zonk(t), Gap) or has_gap(t) for t in types):
            for e in exps:
                self.elab(e.rhs, ctx, None)  # type: ignore[attr-defined]
            return self.fresh()
        if uncomparable:
            known = sorted({show(t) for t in types if not isinstance(zonk(t), MVar)})
            # a proof (`acc : i < n`, from a binder Lean gave a proof type) has no arithmetic either
            if all(head_name(t) in _CORE or isinstance(zonk(t), ProofType) for t in types
                   if not isinstance(zonk(t), MVar)):
                op = next((o.op for o in ops if isinstance(o, A.BinOp)), "-")
                self.error(node, f"failed to synthesize an instance for `{op}` on {' and '.join(known)}: "
                                 "no coercion relates these types", "binop-types")
                return self.fresh()
            return self.gap(node, f"operands of types {', '.join(known)} (user instances are not modelled)")
        if max_t is None:
            # no leaf type known yet: the leaves share one type (a numeral leaf makes it a
            # numeral type, defaulting to Nat, through the assignment)
            result: LeanType = self.fresh()
            for t in types:
                unify(t, result)
            # Lean leaves such a tree as `HSub ?α ?β ?γ` until default instances make it
            # homogeneous; the elaborator unifies its types at once, so an expected type must not
            # be propagated into it (see `CallsMixin._propagate_expected`)
            self.heterogeneous_until_defaulted.append(result)
        else:
            result = max_t
            for leaf, t in zip(leaves, types):
                if unify(t, result) is False and not self.coerces(t, result):
                    self.error(leaf, f"type mismatch: `{A.lean_syntax(leaf)}` has type {show(t)} but is expected to "
                                     f"have type {show(result)}", "type-mismatch")
        for e in exps:
            self.power_exponent(e, ctx, result)  # type: ignore[arg-type]
        for o in ops:
            kind = "neg" if isinstance(o, A.UnOp) else o.op  # type: ignore[attr-defined]
            if kind == "^":
                continue
            self.postponed.append(functools.partial(self._check_instance, o, kind, result))
            # `a + b` at `α` is `HAdd α α α` through `instHAdd [Add α]`: a local `Add α` is its instance
            self.use_class(o, OPERATOR_CLASSES[kind], result, ctx, direct=True)
        return result

    def power_exponent(self, node: A.BinOp, ctx: Ctx, base: LeanType) -> None:
        t = self.elab(node.rhs, ctx, None)
        h = head_name(base)
        if h in ("Nat", "Int") or (h is not None and h.startswith("UInt")):
            if unify(t, NAT) is False:
                self.error(node.rhs, f"failed to synthesize HPow {show(base)} {show(t)}: the exponent of `^` on "
                                     f"{h} must be a Nat", "binop-types")

    def _check_instance(self, node: A.Node, op: str, t: LeanType) -> None:
        z = zonk(t)
        if isinstance(z, (MVar, Gap)) or has_gap(z):
            return
        exists = _instance_exists(op, z, getattr(self, "has_mathlib", False))
        if exists is False:
            what = {"neg": "Neg", "+": "HAdd", "-": "HSub", "*": "HMul", "/": "HDiv", "%": "HMod",
                    "++": "HAppend", "&&&": "HAnd", "|||": "HOr", "^^^": "HXor"}[op]
            self.error(node, f"failed to synthesize {what} {show(z)} {show(z)} ?γ"
                             + (f" (core Lean declares no {OPERATOR_CLASSES[op]} {show(z)})" if op in BITWISE_OPS else ""),
                       "missing-instance")
        elif exists is None and op in BITWISE_OPS:
            self.gap(node, f"`{op}` on {show(z)} (an instance of an imported library is not modelled)", "user-instance")
        elif exists is None and head_name(z) not in _CORE:
            self.gap(node, f"`{op}` on {show(z)} (user instances are not modelled)", "user-instance")

    # -- binrel% --------------------------------------------------------------------------------
    def relation(self, node: A.BinOp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        leaves: list[A.Node] = []
        ops: list[A.Node] = []
        exps: list[A.Node] = []
        self._leaves(node.lhs, leaves, ops, exps)
        n_left = len(leaves)
        self._leaves(node.rhs, leaves, ops, exps)
        max_t, uncomparable, types = self._analyse(leaves, ctx, None)
        if uncomparable and not any(has_gap(t) for t in types):
            lt = types[0] if n_left == 1 else max_t
            rhs_t = types[n_left] if len(leaves) == n_left + 1 else None
            if all(head_name(t) in _CORE for t in types if not isinstance(zonk(t), MVar)):
                other = rhs_t if rhs_t is not None else types[-1]
                self.error(node.rhs, f"type mismatch: `{A.lean_syntax(node.rhs)}` has type {show(other)} but is expected "
                                     f"to have type {show(lt or types[0])}", "type-mismatch")
                return BOOL if node.op in ("==", "!=") else PROP
            self.gap(node, "a relation between types related only by user instances")
            return BOOL if node.op in ("==", "!=") else PROP
        common = self._finish_tree(node, leaves, ops, exps, types, max_t, False, ctx)
        if node.op in ("==", "!="):
            self.use_class(node, "BEq", common, ctx, direct=True)
            return BOOL
        self.use_order(node, common, ctx)
        if node.op in ORDER_RELATIONS:
            self.require_order_instance(node, ORDER_RELATIONS[node.op], common, ctx)
        return PROP if not _wants_bool(expected) else BOOL

    def use_class(self, node: A.Node, cls: str, t: LeanType, ctx: Ctx, direct: bool,
                  function: str | None = None, key: tuple[str, int, int] | None = None) -> None:
        """Hook: a use of a class (:mod:`.instances`)."""

    def use_order(self, node: A.BinOp, t: LeanType, ctx: Ctx) -> None:
        """Hook: an order relation's ``LT``/``LE`` instance (:mod:`.instances`)."""

    def use_membership(self, node: A.Node, elem: LeanType, ctx: Ctx) -> None:
        """Hook: a membership's decidability (:mod:`.instances`)."""

    def require_order_instance(self, node: A.Node, cls: str, t: LeanType, ctx: Ctx) -> None:
        """Hook: ``cls t`` must exist (:mod:`.order_instances`)."""

    # -- membership -----------------------------------------------------------------------------
    def membership(self, node: A.BinOp, ctx: Ctx) -> LeanType:
        coll = self.elab(node.rhs, ctx, None)
        z = zonk(coll)
        h = head_name(z)
        if h in ("List", "Array", "Std.HashSet") and args(z):
            self.check(node.lhs, ctx, args(z)[0])
            self.use_membership(node, args(z)[0], ctx)
            return PROP
        if h == "Std.Range":
            self.check(node.lhs, ctx, NAT)
            return PROP
        lhs = self.elab(node.lhs, ctx, None)
        if isinstance(z, MVar):
            # `Membership.mem acc x`: the `Membership` instance (and with it the element type, its
            # out-parameter) waits until the collection's type is known
            self.resumes.append(lambda: self._resume_membership(node, coll, lhs, ctx))
            return PROP
        return self._membership_without_elements(node, z)

    def _resume_membership(self, node: A.BinOp, coll: LeanType, lhs: LeanType, ctx: Ctx) -> bool:
        """Run a postponed membership; ``False`` while the collection's type is still unknown."""
        z = zonk(coll)
        if isinstance(z, MVar):
            return False
        h = head_name(z)
        if h in ("List", "Array", "Std.HashSet") and args(z):
            self.expect(node.lhs, lhs, args(z)[0])
            self.use_membership(node, args(z)[0], ctx)
        elif h == "Std.Range":
            self.expect(node.lhs, lhs, NAT)
        else:
            self._membership_without_elements(node, z)
        return True

    def _membership_without_elements(self, node: A.BinOp, z: LeanType) -> LeanType:
        """Membership in a type the fragment gives no elements: an error or a gap."""
        h = head_name(z)
        if isinstance(z, Gap) or has_gap(z):
            return PROP
        if h in ("Nat", "Int", "Bool", "Char", "Float", "String"):
            self.error(node, f"failed to synthesize Membership ?α {show(z)}", "missing-instance")
            return PROP
        self.gap(node, f"membership in {show(z)} is not modelled")
        return PROP

    # -- unary ----------------------------------------------------------------------------------
    def e_UnOp(self, node: A.UnOp, ctx: Ctx, expected: LeanType | None) -> LeanType:
        if node.op == "-":
            return self.binop_tree(node, ctx, expected)  # type: ignore[arg-type]
        if node.op == "¬":
            self.check(node.arg, ctx, PROP)
            return PROP
        if node.op == "!":
            self.check(node.arg, ctx, BOOL)
            return BOOL
        if node.op == "~~~":
            return self.complement(node, ctx, expected)
        if node.op == "↑":
            t = self.elab(node.arg, ctx, None)
            if expected is not None and not isinstance(zonk(expected), MVar):
                if unify(t, expected) is False and not self.coerces(t, expected) and not has_gap(t):
                    self.error(node, f"type mismatch: no coercion from {show(t)} to {show(expected)}",
                               "type-mismatch")
                return expected
            return self.gap(node, "`↑` with no known target type", "postponed")
        self.elab(node.arg, ctx, None)
        return self.gap(node, f"the operator `{node.op}` is not modelled")

def _is_dot_leaf(leaf: A.Node) -> bool:
    """``.lt`` or ``.some x``: a leaf whose elaboration waits for its expected type."""
    leaf = A.unparen(leaf)
    return isinstance(leaf, A.DotIdent) or (isinstance(leaf, A.App) and isinstance(A.unparen(leaf.fn), A.DotIdent))


def _wants_bool(expected: LeanType | None) -> bool:
    return expected is not None and head_name(expected) == "Bool"


def _bool_prop(a: LeanType, b: LeanType) -> bool:
    """Bool and Prop coerce into each other only at a position that expects one of them, not to
    make a `binop%` tree comparable."""
    return {head_name(a), head_name(b)} <= {"Bool", "Prop"} or isinstance(zonk(a), ProofType) or isinstance(
        zonk(b), ProofType)


def _cdot(node: A.Node) -> bool:
    from veriscale.backends.embedded.elab.core import _has_cdot

    return _has_cdot(node)
