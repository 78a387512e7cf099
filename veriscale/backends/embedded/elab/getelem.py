"""Indexing: ``xs[i]``, ``xs[i]!``, ``xs[i]?``, ``xs[i]'h`` (``GetElem``, ``Init/GetElem.lean``).

``xs[i]`` elaborates to ``getElem xs i h`` where the proof ``h : i < xs.size`` (``xs.length`` for
lists) is an auto-parameter filled by ``get_elem_tactic``: with no hypothesis from which the bound
follows, Lean rejects the term ("failed to prove index is valid"). ``xs[i]!`` and ``xs[i]?`` carry
no obligation. The index type must have a ``GetElem`` instance for the collection: ``Nat`` (and
``Fin n``) for lists and arrays; an ``Int`` index has none.
"""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.arith import Goal, decide_lt
from veriscale.backends.embedded.elab.context import Ctx, ProofType
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.types import (
    GAP,
    NAT,
    Gap,
    MVar,
    TermArg,
    args,
    has_gap,
    head_name,
    show,
    unify,
    zonk,
)
from veriscale.lean.types import LeanType, NatLitType, option_of


class GetElemMixin(ElabCore):
    def e_Index(self, node: A.Index, ctx: Ctx, expected: LeanType | None) -> LeanType:
        ct = self.elab(node.coll, ctx, None)
        z = zonk(ct)
        if isinstance(z, MVar):
            # `xs[i]` is `getElem xs i _`, whose `GetElem` instance waits until the collection's
            # type is known (`synthesizeAppInstMVars` registers it as pending); the element type is
            # its out-parameter, fixed only then
            result = self.fresh()
            self.resumes.append(lambda: self._resume_index(node, ct, ctx, expected, result))
            return result
        return self._index_at(node, z, ctx)

    def _resume_index(self, node: A.Index, coll: LeanType, ctx: Ctx, expected: LeanType | None,
                      result: LeanType) -> bool:
        """Run a postponed indexing; ``False`` while the collection's type is still unknown."""
        z = zonk(coll)
        if isinstance(z, MVar):
            return False
        self.expect(node, self._index_at(node, z, ctx), result)
        return True

    def _index_at(self, node: A.Index, z: LeanType, ctx: Ctx) -> LeanType:
        h = head_name(z)
        if isinstance(z, Gap) or has_gap(z):
            self.elab(node.index, ctx, None)
            return GAP
        if h in ("List", "Array", "Subarray") and args(z):
            elem = args(z)[0]
        elif h == "Std.HashMap" and len(args(z)) == 2:
            self.check(node.index, ctx, args(z)[0])
            value = args(z)[1]
            if node.mode == "plain":
                return self.gap(node, "`m[k]` on a HashMap needs a membership proof (not modelled)", "getelem-bound")
            return option_of(value) if node.mode == "?" else value
        elif h in ("Nat", "Int", "Bool", "Char", "Float", "String", "Option", "Prod"):
            self.elab(node.index, ctx, None)
            self.error(node, f"failed to synthesize GetElem {show(z)} ?idx ?elem ?valid: `{show(z)}` cannot be "
                             "indexed with `[…]`", "missing-instance")
            return GAP
        else:
            self.elab(node.index, ctx, None)
            return self.gap(node, f"indexing a value of type {show(z)} is not modelled")
        it = self.elab(node.index, ctx, None)
        iz = zonk(it)
        if isinstance(iz, MVar) and iz.numeral:
            unify(iz, NAT)  # `xs[0]`: the numeral's default instance makes the index a `Nat`
            iz = zonk(iz)
        if isinstance(iz, MVar):
            # the index's type is not known yet (`xs.map (fun i => a[i])` before the receiver fixes
            # `i`): the `GetElem` instance problem waits, and `get_elem_tactic` runs only once
            # the term is elaborated (synthetic metavariables are synthesized last)
            # The element type does not depend on the index type (`Nat` and `Fin n` give the same).
            self.resumes.append(lambda: self._resume_index_type(node, z, h, elem, it, ctx))
            self.index_types.append(iz)
            return option_of(elem) if node.mode == "?" else elem
        return self._index_with(node, z, h, elem, iz, ctx)

    def _resume_index_type(self, node: A.Index, z: LeanType, h: str | None, elem: LeanType, index: LeanType,
                           ctx: Ctx) -> bool:
        iz = zonk(index)
        if isinstance(iz, MVar):
            return False
        self._index_with(node, z, h, elem, iz, ctx)
        return True

    def _index_with(self, node: A.Index, z: LeanType, h: str | None, elem: LeanType, iz: LeanType,
                    ctx: Ctx) -> LeanType:
        ih = head_name(iz)
        if ih == "Fin":
            # `instGetElemFinVal` (Init/GetElem.lean): `xs[i]` for `i : Fin n` is `xs[i.val]`, whose
            # obligation `i.val < xs.size` `get_elem_tactic` proves from `i.isLt : i.val < n`
            # (omega adds `Fin.isLt` for every `Fin.val` atom, Lean/Elab/Tactic/Omega/OmegaM.lean)
            if node.mode == "?":
                return option_of(elem)
            if node.mode == "!":
                return elem
            if fin_bound_term(iz) is None:
                return self.gap(node, f"a `Fin` index whose bound is not known ({show(iz)})", "getelem-bound")
            if node.mode == "proof":
                self.prove(node.proof if node.proof is not None else node, self.bound_goal(node, h or ""), ctx)
                return elem
            self.index_obligation(node, h or "", ctx)
            return elem
        if ih not in ("Nat",):
            if has_gap(iz) or ih not in ("Int", "Float", "String", "Char", "Bool", "List", "Array", "Option"):
                return self.gap(node, f"an index of type {show(iz)}")
            self.error(node.index, f"failed to synthesize GetElem {show(z)} {show(iz)} ?elem ?valid: the index "
                                   f"of a {h} must be a Nat, not {show(iz)}", "missing-instance")
            return GAP
        if node.mode == "?":
            return option_of(elem)
        if node.mode == "!":
            return elem
        if node.mode == "proof":
            self.prove(node.proof if node.proof is not None else node, self.bound_goal(node, h or ""), ctx)
            return elem
        self.index_obligation(node, h or "", ctx)
        return elem

    def bound_goal(self, node: A.Index, head: str) -> A.Node:
        """The proposition ``xs[i]'h`` needs of ``h``: ``i < xs.size`` (``xs.length`` for lists), the
        ``valid`` of the ``GetElem`` instances in ``Init/GetElem.lean``."""
        what = "length" if head == "List" else "size"
        coll = node.coll
        coll = A.unparen(coll)
        size: A.Node = (A.Ident(node.line, node.col, f"{coll.name}.{what}") if isinstance(coll, A.Ident)
                        else A.Proj(node.line, node.col, coll, what))
        return A.BinOp(node.line, node.col, "<", node.index, size)

    def fin_facts(self, ctx: Ctx, about: A.Node | None = None) -> list[A.Node]:
        """``i < n``, ``i.val < n`` and ``i.1 < n`` for each local ``i : Fin n`` in scope (its
        ``isLt`` field; ``i``, ``i.val``, ``i.1`` and ``↑i`` are the same number). With ``about``,
        only the spellings that occur in that term (a fact about a name the term does not use
        would only keep the arithmetic from refuting the goal)."""
        used = _spelled_names(about) if about is not None else None
        out: list[A.Node] = []
        seen: set[str] = set()
        for decl in reversed(ctx.locals):
            if decl.name in seen:
                continue
            seen.add(decl.name)
            bound = fin_bound_term(decl.type)
            if bound is None:
                continue
            for spelling in fin_spellings(decl.name):
                if used is not None and spelling not in used:
                    continue
                out.append(A.BinOp(bound.line, bound.col, "<", A.Ident(bound.line, bound.col, spelling), bound))
        return out

    def index_obligation(self, node: A.Index, head: str, ctx: Ctx) -> None:
        if isinstance(node.coll, (A.ListLit, A.ArrayLit)) and isinstance(node.index, A.NumLit):
            if node.index.value < len(node.coll.items):
                return
            self.error(node, f"failed to prove index is valid: {node.index.value} < {len(node.coll.items)} is false",
                       "getelem-bound")
            return
        if self.proof_sensitive_instances(ctx):
            self.gap(node, f"cannot tell whether `get_elem_tactic` proves `{A.lean_syntax(node.index)} < "
                           f"{A.lean_syntax(node.coll)}.size` with a local arithmetic or order instance in scope",
                     "local-instance")
            return
        size = A.App(node.line, node.col, A.Ident(node.line, node.col,
                                                  "Array.size" if head != "List" else "List.length"), [node.coll])
        facts = [self.unfold_fact(f.prop) for f in ctx.facts] + self.fin_facts(ctx, node.index)
        if self.range_membership_bound(node, facts):
            return
        free_here = all(self._is_free_var(name, ctx) for name in _free_names(node.index) | _free_names(node.coll))
        verdict = decide_lt(Goal(node.index, size), facts, free=lambda name: self._is_free_var(name, ctx))
        if verdict == "proved":
            return
        if verdict == "refuted" and free_here:
            what = "length" if head == "List" else "size"
            self.error(node, f"failed to prove index is valid: no hypothesis in scope shows "
                             f"`{A.lean_syntax(node.index)} < {A.lean_syntax(node.coll)}.{what}` (use `xs[i]!`, `xs[i]?`, "
                             "`if h : i < xs.size` or a bounded binder)", "getelem-bound")
            return
        self.gap(node, f"cannot tell whether `get_elem_tactic` proves `{A.lean_syntax(node.index)} < "
                       f"{A.lean_syntax(node.coll)}.size` here", "getelem-bound")

    def auto_param_obligation(self, node: A.Node, prop: LeanType, ctx: Ctx) -> None:
        """The ``by get_elem_tactic`` default of a builtin's proof parameter (``Array.back``'s
        ``h : 0 < xs.size``, ``Array.swap``'s ``hi : i < xs.size``): Lean runs the tactic where the
        call is elaborated, so the bound must follow from the hypotheses in scope, as for ``xs[i]``
        (:meth:`index_obligation`); whether it holds on the inputs tested is beside the point."""
        z = zonk(prop)
        goal = A.unparen(z.prop) if isinstance(z, ProofType) else None
        if not (isinstance(goal, A.BinOp) and goal.op in ("<", ">")):
            self.gap(node, f"cannot tell whether the default proof of `{show(prop)}` succeeds here", "getelem-bound")
            return
        lhs, rhs = (goal.lhs, goal.rhs) if goal.op == "<" else (goal.rhs, goal.lhs)
        if self.proof_sensitive_instances(ctx):
            self.gap(node, f"cannot tell whether `get_elem_tactic` proves `{A.lean_syntax(goal)}` with a local "
                           "arithmetic or order instance in scope", "local-instance")
            return
        facts = [self.unfold_fact(f.prop) for f in ctx.facts] + self.fin_facts(ctx, goal)
        verdict = decide_lt(Goal(lhs, rhs), facts, free=lambda name: self._is_free_var(name, ctx))
        if verdict == "proved":
            return
        if verdict == "refuted" and all(self._is_free_var(name, ctx) for name in _free_names(goal)):
            self.error(node, f"could not synthesize default value for a proof parameter using tactics: "
                             f"no hypothesis in scope shows `{A.lean_syntax(goal)}`", "getelem-bound")
            return
        self.gap(node, f"cannot tell whether `get_elem_tactic` proves `{A.lean_syntax(goal)}` here", "getelem-bound")

    def range_membership_bound(self, node: A.Index, facts: list[A.Node]) -> bool:
        """``h : i ∈ [a:xs.size]`` in scope proves ``i < xs.size`` (``Membership.get_elem_helper``
        in ``get_elem_tactic``, which needs the range's stop to be the size itself)."""
        from veriscale.backends.embedded.elab.arith import atom_key

        want = f"len({atom_key(node.coll)})"
        for fact in facts:
            if (isinstance(fact, A.BinOp) and fact.op == "∈" and isinstance(fact.rhs, A.RangeLit)
                    and A.sexpr(fact.lhs) == A.sexpr(node.index) and atom_key(fact.rhs.stop) == want):
                return True
        return False

    def _is_free_var(self, name: str, ctx: Ctx) -> bool:
        decl = ctx.lookup(name)
        return decl is not None and decl.kind in ("var", "pattern")

    def unfold_fact(self, prop: A.Node) -> A.Node:
        """Unfold a reducible ``Prop`` definition applied to arguments (``h_precond : foo_precond xs``),
        as ``simp``/``omega`` see through ``@[reducible]`` definitions."""
        head_node, arg_nodes = (prop.fn, prop.args) if isinstance(prop, A.App) else (prop, [])
        if not isinstance(head_node, A.Ident):
            return prop
        body = self.prop_definition(head_node.name, len(arg_nodes))
        if body is None:
            return prop
        params, value = body
        return _substitute(value, dict(zip(params, arg_nodes)))

    def normal_statement(self, prop: A.Node, depth: int = 0) -> str:
        """A statement's normal form for comparison: reducible definitions unfolded, parentheses
        dropped."""
        prop = A.unparen(prop)
        unfolded = self.unfold_fact(prop)
        if unfolded is not prop and depth < 8:
            return self.normal_statement(unfolded, depth + 1)
        return A.sexpr(_strip_parens(prop))

    def prop_definition(self, name: str, nargs: int) -> tuple[list[str], A.Node] | None:  # pragma: no cover
        raise NotImplementedError


def fin_bound_term(t: LeanType) -> A.Node | None:
    """The bound ``n`` of a ``Fin n`` type as a term (``None``: not a ``Fin``, or its bound unknown)."""
    z = zonk(t)
    if head_name(z) != "Fin" or len(args(z)) != 1:
        return None
    bound = zonk(args(z)[0])
    if isinstance(bound, TermArg) and isinstance(bound.node, A.Node):
        return bound.node
    if isinstance(bound, NatLitType):
        return A.NumLit(0, 0, bound.value)
    return None


def _spelled_names(node: A.Node) -> set[str]:
    """Every identifier written in ``node`` (``i.val`` as itself), and ``x.f`` for ``Proj``s of one."""
    out: set[str] = set()

    def visit(n: A.Node) -> None:
        if isinstance(n, A.Ident):
            out.add(n.name)
        if isinstance(n, A.Proj) and isinstance(A.unparen(n.term), A.Ident):
            out.add(f"{A.unparen(n.term).name}.{n.field}")  # type: ignore[attr-defined]
        for c in A.children(n):
            visit(c)

    visit(node)
    return out


def fin_spellings(name: str) -> tuple[str, str, str]:
    """How a ``Fin`` local's number is written: ``i``, ``i.val``, ``i.1``."""
    return (name, f"{name}.val", f"{name}.1")


def _strip_parens(node: A.Node) -> A.Node:
    def unwrap(n: A.Node) -> A.Node | None:
        if not isinstance(n, A.Paren):
            return None
        n = A.unparen(n)
        return _strip_parens(n)

    return A.rewrite(node, unwrap)


def _free_names(node: object) -> set[str]:
    """Identifier roots, except a function applied by name (``f`` in ``f x``)."""
    if isinstance(node, A.Ident):
        return {node.name.split(".")[0]}
    if isinstance(node, A.App):
        out: set[str] = set()
        for a in node.args:
            out |= _free_names(a)
        return out if isinstance(node.fn, A.Ident) else out | _free_names(node.fn)
    out = set()
    for child in A.children(node):
        out |= _free_names(child)
    return out


def _substitute(node: A.Node, mapping: dict[str, A.Node]) -> A.Node:
    """``node`` with the variables of ``mapping`` replaced (``x.f`` becomes ``(e).f``)."""
    def replace(n: A.Node) -> A.Node | None:
        if not isinstance(n, A.Ident):
            return None
        first, _, rest = n.name.partition(".")
        if first not in mapping:
            return n
        target = A.Paren(n.line, n.col, mapping[first])
        return target if not rest else A.Proj(n.line, n.col, target, rest)

    return A.rewrite(node, replace)


__all__ = ["GetElemMixin", "fin_bound_term", "fin_spellings"]
