"""Binding constructs: ``fun``, ``let``, ``have``, ``if``, ``match``, quantifiers, constructors.

Hypotheses matter here: what a construct puts *in scope* is what a later tactic
(``get_elem_tactic``, ``decreasing_tactic``) may use. ``if h : c`` binds ``h : c``; a plain
``if c`` binds nothing (it is ``ite``); ``∀ i < n, P`` is ``∀ i, i < n → P`` and so puts
``i < n`` in scope for ``P``, while ``∃ i < n, P`` is ``∃ i, i < n ∧ P``, where ``P`` sees no
hypothesis (``Init/BinderPredicates.lean``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from veriscale.backends.embedded import ast as A
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
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType, fun_of, list_of

if TYPE_CHECKING:
    from veriscale.backends.embedded.env import StructInfo


class BindingMixin(ElabCore):
    # -- patterns -------------------------------------------------------------------------------
    def bind_pattern(self, pat: A.Node, ty: LeanType, ctx: Ctx) -> Ctx:
        """Bind the variables of a pattern of type ``ty``; check what the pattern fixes."""
        if isinstance(pat, A.Paren):
            return self.bind_pattern(pat.term, ty, ctx)
        if isinstance(pat, A.Hole):
            return ctx
        if isinstance(pat, A.Ident) and "." not in pat.name:
            ctor = self.constructor_pattern(pat, pat.name, [], ty, ctx)
            if ctor is not None:
                return ctor
            return ctx.bind(pat.name, ty, "pattern")
        if isinstance(pat, A.Tuple):
            z = zonk(ty)
            items = pat.items
            for i, item in enumerate(items):
                if i == len(items) - 1:
                    ctx = self.bind_pattern(item, z, ctx)
                    break
                if isinstance(z, MVar):
                    fst, snd = self.fresh(), self.fresh()
                    unify(z, ProdType(fst, snd))
                    z = zonk(z)
                if not isinstance(z, ProdType):
                    if not isinstance(z, Gap):
                        self.error(pat, f"type mismatch: the tuple pattern `{A.lean_syntax(pat)}` matches a value of type "
                                        f"{show(ty)}", "pattern-type")
                    return self._bind_all_gap(pat, ctx)
                ctx = self.bind_pattern(item, z.fst, ctx)
                z = zonk(z.snd)
            return ctx
        if isinstance(pat, A.AnonCtor):
            z = zonk(ty)
            if isinstance(z, ProdType) or head_name(z) == "Prod":
                return self.bind_pattern(A.Tuple(pat.line, pat.col, pat.items), z, ctx)
            fields = self.structure_fields(z)
            if fields is not None and len(fields) == len(pat.items):
                for item, ft in zip(pat.items, fields):
                    ctx = self.bind_pattern(item, ft, ctx)
                return ctx
            self.gap(pat, f"anonymous constructor pattern at type {show(ty)}")
            return self._bind_all_gap(pat, ctx)
        if isinstance(pat, A.NumLit):
            self.check(pat, ctx, ty)
            return ctx
        if isinstance(pat, (A.StrLit, A.CharLit)):
            self.check(pat, ctx, ty)
            return ctx
        if isinstance(pat, A.ListLit):
            elem = self.fresh()
            self.expect(pat, list_of(elem), ty)
            for item in pat.items:
                ctx = self.bind_pattern(item, elem, ctx)
            return ctx
        if isinstance(pat, A.ArrayLit):
            elem = self.fresh()
            self.expect(pat, NamedType("Array", (elem,)), ty)
            for item in pat.items:
                ctx = self.bind_pattern(item, elem, ctx)
            return ctx
        if isinstance(pat, A.BinOp) and pat.op == "::":
            elem = self.fresh()
            self.expect(pat, list_of(elem), ty)
            ctx = self.bind_pattern(pat.lhs, elem, ctx)
            return self.bind_pattern(pat.rhs, list_of(elem), ctx)
        if isinstance(pat, A.BinOp) and pat.op == "+" and isinstance(pat.rhs, A.NumLit):
            if any(i.cls in ("Add", "HAdd") for i in ctx.instances):
                # the pattern is elaborated as a term, `+` with the local instance: whether the
                # match compiler still reads it as `Nat.succ` is not modelled
                self.gap(pat, "a `n + k` pattern with a local Add instance in scope", "local-instance")
            self.expect(pat, NAT, ty)
            return self.bind_pattern(pat.lhs, NAT, ctx)
        if isinstance(pat, A.App) and isinstance(pat.fn, (A.Ident, A.DotIdent)):
            name = pat.fn.name
            bound = self.constructor_pattern(pat, name, pat.args, ty, ctx, dotted=isinstance(pat.fn, A.DotIdent))
            if bound is not None:
                return bound
        if isinstance(pat, (A.Ident, A.DotIdent)):
            bound = self.constructor_pattern(pat, pat.name, [], ty, ctx, dotted=isinstance(pat, A.DotIdent))
            if bound is not None:
                return bound
        self.gap(pat, f"the pattern `{A.lean_syntax(pat)}` is not modelled")
        return self._bind_all_gap(pat, ctx)

    def _bind_all_gap(self, pat: A.Node, ctx: Ctx) -> Ctx:
        for name in _pattern_vars(pat):
            ctx = ctx.bind(name, GAP, "pattern")
        return ctx

    def constructor_pattern(self, pat: A.Node, name: str, arg_pats: list[A.Node], ty: LeanType, ctx: Ctx,
                            dotted: bool = False) -> Ctx | None:  # pragma: no cover - driver
        raise NotImplementedError

    def structure_fields(self, t: LeanType) -> list[LeanType] | None:  # pragma: no cover - driver
        raise NotImplementedError

    # -- fun ------------------------------------------------------------------------------------
    def e_Lambda(self, node: A.Lambda, ctx: Ctx, expected: LeanType | None) -> LeanType:
        exp = zonk(expected) if expected is not None else None
        doms: list[LeanType] = []
        bound_names: list[str | None] = []  # the name bound for each domain, in order
        inner = ctx
        for b in node.binders:
            names = b.names or ["_"] if b.pattern is None else [None]
            for name in names:
                bound_names.append(name if name not in (None, "_") else None)
                if isinstance(exp, FunType):
                    dom: LeanType = exp.domain
                    exp = zonk(exp.codomain)
                elif isinstance(exp, MVar):
                    dom = self.fresh()
                    cod = self.fresh()
                    unify(exp, FunType(dom, cod))
                    exp = cod
                elif isinstance(exp, Gap):
                    # the argument of something the engine does not know: its binders' types are
                    # not known either, so nothing that depends on them can be an error
                    dom = GAP
                else:
                    dom = self.fresh()
                    exp = None
                if b.type is not None:
                    self.class_typed_binder(b, b.type)
                    declared = self.read_type(b.type, ctx)
                    if not isinstance(declared, Gap):
                        self.expect(b, declared, dom) if not isinstance(zonk(dom), MVar) else unify(dom, declared)
                        dom = declared
                if isinstance(zonk(dom), ProofType) and _has_placeholder(zonk(dom).prop):  # type: ignore[attr-defined]
                    dom = _name_dependent_binders(zonk(dom), bound_names)  # type: ignore[arg-type]
                doms.append(dom)
                if b.pattern is not None:
                    inner = self.bind_pattern(b.pattern, dom, inner)
                elif isinstance(zonk(dom), ProofType) and _has_placeholder(zonk(dom).prop):  # type: ignore[attr-defined]
                    inner = inner.bind(name or "_", dom)  # its dependent binder has no name here: no fact
                elif isinstance(zonk(dom), ProofType):
                    inner = inner.bind(name or "_", dom).assume(zonk(dom).prop, "fun")  # type: ignore[attr-defined]
                else:
                    inner = inner.bind(name or "_", dom)
        body_t = self.elab(node.body, inner, exp)
        if exp is not None:
            self.expect(node.body, body_t, exp)
            body_t = exp  # a coercion (Prop to Bool, Nat to Int) was inserted: the function has type `exp`
        return _curried(doms, body_t)

    def e_LambdaMatch(self, node: A.LambdaMatch, ctx: Ctx, expected: LeanType | None) -> LeanType:
        n = len(node.alts[0].patterns) if node.alts else 1
        doms, exp = self.expected_domains(expected, n)
        result = exp if exp is not None else self.fresh()
        for alt in node.alts:
            inner = ctx
            for p, d in zip(alt.patterns, doms):
                inner = self.bind_pattern(p, d, inner)
            self.check(alt.rhs, inner, result)
        self.exhaustive(node, doms, [alt.patterns for alt in node.alts])
        return _curried(doms, result)

    def expected_domains(self, expected: LeanType | None, count: int) -> tuple[list[LeanType], LeanType | None]:
        """The first ``count`` domains of the expected function type (fresh where it says none) and
        what remains of it (``None`` once it is not a function type)."""
        exp = zonk(expected) if expected is not None else None
        doms: list[LeanType] = []
        for _ in range(count):
            if isinstance(exp, FunType):
                doms.append(exp.domain)
                exp = zonk(exp.codomain)
            elif isinstance(exp, Gap):
                doms.append(GAP)  # see `e_Lambda`
            else:
                doms.append(self.fresh())
                exp = None
        return doms, exp

    def cdot_function(self, term: A.Node, ctx: Ctx, expected: LeanType | None) -> LeanType:
        count = _count_cdots(term)
        doms, exp = self.expected_domains(expected, count)
        names = [f"·{i}" for i in range(count)]
        pairs: list[tuple[A.Node, A.Node]] = []
        renamed = _replace_cdots(term, names, lambda original, copy: pairs.append((original, copy)))
        inner = ctx
        for n, d in zip(names, doms):
            inner = inner.bind(n, d)
        body = self.elab(renamed, inner, exp)
        for original, copy in pairs:
            # the compiler compiles the original section: it reads the types of the copy
            self.node_types.alias(original, copy)
        if exp is not None:
            self.expect(term, body, exp)
            body = exp
        return _curried(doms, body)

    # -- let ------------------------------------------------------------------------------------
    def let_decl(self, decl: A.LetDecl, ctx: Ctx, kind: str = "let", is_have: bool = False) -> Ctx:
        with_instance = self.local_instance_decl(decl, ctx, "have" if is_have else "let")
        if with_instance is not None:
            return with_instance
        if decl.alts is not None or decl.binders:
            ft = self.local_function(decl, ctx)
            return ctx.bind(decl.name or "_", ft, "let")
        declared = self.read_type(decl.type, ctx) if decl.type is not None else None
        if declared is not None and isinstance(declared, Gap):
            self.gap(decl, f"the type `{decl.type_text}` is not modelled")
        if decl.value is None:
            return ctx
        t: LeanType
        if isinstance(declared, ProofType) and _checkable_proof(decl.value):
            self.check_have_proof(decl, declared.prop, ctx)
            t = declared
        elif declared is not None and not isinstance(declared, Gap):
            self.check(decl.value, ctx, declared)
            t = declared
        else:
            t = self.elab(decl.value, ctx, None)
        if decl.pattern is not None:
            return self.bind_pattern(decl.pattern, t, ctx)
        if isinstance(zonk(t), ProofType):
            return ctx.bind(decl.name or "this", t).assume(zonk(t).prop, "have")  # type: ignore[attr-defined]
        return ctx.bind(decl.name or "_", t, kind)  # type: ignore[arg-type]

    def local_instance_decl(self, decl: A.LetDecl, ctx: Ctx, kind: Literal["have", "let"]) -> Ctx | None:
        """Hook: a local instance declaration (:mod:`.instances`)."""
        return None

    def class_typed_binder(self, binder: A.Node, type_term: A.Node | None) -> None:
        """Hook: a binder whose type may be a class (:mod:`.instances`)."""

    def local_function(self, decl: A.LetDecl, ctx: Ctx, rec_name: str | None = None) -> LeanType:
        """``let f (x : T) : U := body`` (or with equations): its type, after checking the body."""
        inner = ctx
        doms: list[LeanType] = []
        for b in decl.binders:
            if b.kind != "explicit":
                continue
            bt = self.read_type(b.type, ctx) if b.type is not None else self.fresh()
            for n in b.names or ["_"]:
                doms.append(bt)
                inner = inner.bind(n, bt)
                if isinstance(zonk(bt), ProofType):
                    inner = inner.assume(zonk(bt).prop, "binder")  # type: ignore[attr-defined]
        result = self.read_type(decl.type, ctx) if decl.type is not None else self.fresh()
        ft = _curried(doms, result)
        if rec_name is not None:
            inner = inner.bind(rec_name, ft, "aux")
        if decl.alts is not None:
            self.elab_equations(decl, decl.alts, result, inner)
        elif decl.value is not None:
            self.check(decl.value, inner, result)
        return ft

    def elab_equations(self, node: A.Node, alts: list[A.MatchAlt], fun_type: LeanType, ctx: Ctx) -> None:
        """``| p₁, p₂ => rhs`` alternatives of a definition whose type is ``fun_type``: each
        pattern matches one arrow's domain, each right-hand side has the rest of the type, and
        together they must be exhaustive."""
        doms: list[LeanType] = []
        rest = zonk(fun_type)
        for _ in range(len(alts[0].patterns) if alts else 0):
            if isinstance(rest, FunType):
                doms.append(rest.domain)
                rest = zonk(rest.codomain)
            else:
                doms.append(self.fresh())
        for alt in alts:
            alt_ctx = ctx
            for p, d in zip(alt.patterns, doms):
                alt_ctx = self.bind_pattern(p, d, alt_ctx)
            self.check(alt.rhs, alt_ctx, rest)
        self.exhaustive(node, doms, [alt.patterns for alt in alts])

    def e_Let(self, node: A.Let, ctx: Ctx, expected: LeanType | None) -> LeanType:
        inner = self.let_decl(node.decl, ctx, "let", is_have=node.is_have)
        return self.elab(node.body, inner, expected)

    def e_LetRec(self, node: A.LetRec, ctx: Ctx, expected: LeanType | None) -> LeanType:
        inner = self.let_rec(node.decls, ctx)
        return self.elab(node.body, inner, expected)

    def let_rec(self, decls: list[A.LetDecl], ctx: Ctx) -> Ctx:
        inner = ctx
        types = []
        for decl in decls:
            ft = self.declared_function_type(decl, ctx)
            types.append(ft)
            inner = inner.bind(decl.name or "_", ft, "aux")
        for decl in decls:
            self.local_function(decl, inner, None)
            self.note_recursion(decl, inner)
        return inner

    def declared_function_type(self, decl: A.LetDecl, ctx: Ctx) -> LeanType:
        doms = []
        for b in decl.binders:
            if b.kind != "explicit":
                continue
            bt = self.read_type(b.type, ctx) if b.type is not None else self.fresh()
            doms.extend([bt] * len(b.names or ["_"]))
        result = self.read_type(decl.type, ctx) if decl.type is not None else self.fresh()
        return _curried(doms, result)

    def check_have_proof(self, decl: A.LetDecl, prop: A.Node, ctx: Ctx) -> None:
        """Hook: check the proof of a ``have`` (see :mod:`.proofs`)."""

    def note_recursion(self, decl: A.LetDecl, ctx: Ctx) -> None:
        """Hook for the termination check of ``let rec``."""

    # -- if -------------------------------------------------------------------------------------
    def e_If(self, node: A.If, ctx: Ctx, expected: LeanType | None) -> LeanType:
        self.as_condition(node.cond, ctx)
        then_ctx, else_ctx = ctx, ctx
        if node.hyp:
            negated = A.UnOp(node.line, node.col, "¬", node.cond)
            then_ctx = ctx.bind(node.hyp, ProofType(node.cond, A.sexpr(node.cond))).assume(node.cond, "if")
            else_ctx = ctx.bind(node.hyp, ProofType(negated, A.sexpr(negated))).assume(negated, "if")
        result = expected if expected is not None else self.fresh()
        t1 = self.elab(node.then, then_ctx, result)
        self.expect(node.then, t1, result)
        t2 = self.elab(node.els, else_ctx, result)
        self.expect(node.els, t2, result)
        return result

    def e_IfLet(self, node: A.IfLet, ctx: Ctx, expected: LeanType | None) -> LeanType:
        vt = self.elab(node.value, ctx, None)
        inner = self.bind_pattern(node.pattern, vt, ctx)
        result = expected if expected is not None else self.fresh()
        self.check(node.then, inner, result)
        self.check(node.els, ctx, result)
        return result

    # -- match ----------------------------------------------------------------------------------
    def e_Match(self, node: A.Match, ctx: Ctx, expected: LeanType | None) -> LeanType:
        dtypes = [self.elab(d, ctx, None) for d in node.discrs]
        result = expected if expected is not None else self.fresh()
        for alt in node.alts:
            if len(alt.patterns) != len(node.discrs):
                # Lean.Elab.Match: every alternative has one pattern per discriminant
                self.error(alt, f"incorrect number of patterns: expected {len(node.discrs)}, found "
                                f"{len(alt.patterns)}", "match-patterns")
            inner = ctx
            for h in node.hyps:
                if h:
                    inner = inner.bind(h, PROP)
            for p, t in zip(alt.patterns, dtypes):
                inner = self.bind_pattern(p, t, inner)
            t = self.elab(alt.rhs, inner, result)
            self.expect(alt.rhs, t, result)
        self.exhaustive(node, dtypes, [alt.patterns for alt in node.alts])
        return result

    def exhaustive(self, node: A.Node, types: list[LeanType], rows: list[list[A.Node]]) -> None:
        """Hook: ``match`` exhaustiveness (see :mod:`.patterns`)."""

    # -- quantifiers ----------------------------------------------------------------------------
    def e_Quant(self, node: A.Quant, ctx: Ctx, expected: LeanType | None) -> LeanType:
        if node.kind == "exists!" and not getattr(self, "has_mathlib", False):
            # `∃!` is Mathlib's notation (Mathlib/Logic/ExistsUnique.lean `macro "∃!"`); core Lean
            # has no such token, so `∃` is followed by `!`, which no binder starts with
            self.error(node, "unexpected token '!'; expected binder (`∃!` is Mathlib's notation for ExistsUnique, "
                             "and the file does not import Mathlib)", "parse")
        is_all = node.kind == "forall"
        vty: LeanType = self.read_type(node.type, ctx) if node.type is not None else self.fresh()
        inner = ctx
        if node.bound is not None:
            op, bterm = node.bound
            bt = self.elab(bterm, ctx, None)
            if op == "∈":
                z = zonk(bt)
                if head_name(z) in ("List", "Array", "Std.HashSet") and args(z):
                    self.expect(node, args(z)[0], vty) if node.type is not None else unify(vty, args(z)[0])
                elif head_name(z) == "Std.Range":
                    unify(vty, NAT)
                elif not has_gap(z) and not isinstance(z, MVar):
                    self.gap(node, f"membership in {show(z)} is not modelled")
            elif op in ("<", "≤", ">", "≥", "≠"):
                if unify(vty, bt) is False and not self.coerces(vty, bt):
                    self.error(bterm, f"type mismatch: the bound `{A.lean_syntax(bterm)}` has type {show(bt)} but the "
                                      f"variable has type {show(vty)}", "type-mismatch")
            else:
                self.gap(node, f"the binder predicate `{op}` is not modelled")
            inner = inner.bind(node.name, vty)
            if is_all:
                # `∀ x ∈ xs, P` is `∀ x, x ∈ xs → P`: the bound is a hypothesis for P
                bound_prop = A.BinOp(node.line, node.col, op, A.Ident(node.line, node.col, node.name), bterm)
                inner = inner.assume(bound_prop, "forall-binder")
        elif node.pattern is not None:
            inner = self.bind_pattern(node.pattern, vty, inner)
        else:
            z = zonk(vty)
            inner = inner.bind(node.name, vty)
            if isinstance(z, ProofType):
                # `∀ (h : i < n), P` / `∃ (h : i < n), P`: a hypothesis in scope for P
                inner = inner.assume(z.prop, "binder")
        self.check(node.body, inner, PROP)
        if expected is not None and head_name(expected) == "Bool":
            self.check_decidable(node)  # at `Bool` the quantifier is `decide`d: it needs an instance
            return BOOL
        return PROP

    def e_Arrow(self, node: A.Arrow, ctx: Ctx, expected: LeanType | None) -> LeanType:
        """``(h : P) → Q`` / ``P → Q`` in term position: an implication (or a function type)."""
        b = node.binder
        dom_t = self.elab(node.dom, ctx, None)
        inner = ctx
        if self.is_prop(dom_t) or isinstance(zonk(dom_t), MVar):
            if b is not None:
                for n in b.names:
                    inner = inner.bind(n, ProofType(node.dom, A.sexpr(node.dom)))
            inner = inner.assume(node.dom, "implication")
            self.check(node.cod, inner, PROP)
            return PROP
        if head_name(dom_t) in ("Type", "Bool") or isinstance(zonk(dom_t), Gap):
            self.elab(node.cod, inner, None)
            return PROP if head_name(dom_t) == "Bool" else zonk(dom_t)
        return self.gap(node, "a dependent arrow over data in term position")

    # -- constructors ---------------------------------------------------------------------------
    def e_AnonCtor(self, node: A.AnonCtor, ctx: Ctx, expected: LeanType | None) -> LeanType:
        if expected is None or isinstance(zonk(expected), (MVar, Gap)):
            for item in node.items:
                self.elab(item, ctx, None)
            if expected is not None and isinstance(zonk(expected), Gap):
                return expected
            return self.gap(node, "`⟨…⟩` needs a known expected type", "postponed")
        z = zonk(expected)
        if isinstance(z, ProdType) or head_name(z) == "Prod":
            if len(node.items) < 2:
                return self.gap(node, "anonymous constructor of a pair with one item")
            return self.e_Tuple(A.Tuple(node.line, node.col, node.items), ctx, expected)
        if isinstance(z, ProofType):
            for item in node.items:
                self.elab(item, ctx, None)
            return expected
        fields = self.structure_fields(z)
        if fields is not None:
            if len(fields) != len(node.items):
                self.error(node, f"invalid constructor ⟨...⟩: {show(z)} expects {len(fields)} fields, "
                                 f"{len(node.items)} given", "anonymous-constructor")
                return expected
            for item, ft in zip(node.items, fields):
                self.check(item, ctx, ft)
            return expected
        for item in node.items:
            self.elab(item, ctx, None)
        return self.gap(node, f"anonymous constructor at type {show(z)}")

    def e_StructInst(self, node: A.StructInst, ctx: Ctx, expected: LeanType | None) -> LeanType:
        ty = self.read_type(node.type, ctx) if node.type is not None else expected
        if node.source is not None:
            st = self.elab(node.source, ctx, ty)
            ty = ty if ty is not None else st
        if ty is not None and isinstance(zonk(ty), MVar):
            # Lean's structure instance elaborator postpones while the expected type is a
            # metavariable (`{ s with x := … }` in `xs.foldl (fun s x => …) init`, whose `init`
            # fixes the type later) and resumes once it is known (`Lean.Elab.StructInst`,
            # `tryPostponeIfMVar`); still unknown at the end, it is an error Lean reports and
            # the engine leaves open (`run_resumes`)
            target = ty
            self.resumes.append(lambda: self._resume_struct_inst(node, ctx, target))
            return target
        if ty is None or isinstance(zonk(ty), Gap):
            for _, v in node.fields:
                self.elab(v, ctx, None)
            return self.gap(node, "structure instance with an unknown type", "postponed")
        self._struct_inst_fields(node, ctx, zonk(ty))
        return ty

    def _resume_struct_inst(self, node: A.StructInst, ctx: Ctx, target: LeanType) -> bool:
        if isinstance(zonk(target), MVar):
            return False
        z = zonk(target)
        if isinstance(z, Gap):
            for _, v in node.fields:
                self.elab(v, ctx, GAP)
            return True
        self._struct_inst_fields(node, ctx, z)
        return True

    def _struct_inst_fields(self, node: A.StructInst, ctx: Ctx, z: LeanType) -> None:
        if not node.fields and head_name(z) in ("List", "Array", "Std.HashMap", "Std.HashSet"):
            return
        si = self._complete_user_structure(z)
        for fname, value in node.fields:
            ft = self.structure_field(z, fname)  # type: ignore[attr-defined]
            if ft is None:
                self.elab(value, ctx, None)
                if si is not None:
                    self.error(node, f"'{fname}' is not a field of structure '{si.name}'", "structure-instance")
                else:
                    self.gap(node, f"field `{fname}` of {show(z)}")
                continue
            self.check(value, ctx, ft)
        if si is not None and node.source is None and not node.ellipsis:
            given = {fname for fname, _ in node.fields}
            missing = [f for f, _, default in si.fields if default is None and f not in given]
            if missing:
                # Lean.Elab.StructInst: a field with no value and no default (nor `..`/`with`)
                self.error(node, "fields missing: " + ", ".join(f"'{f}'" for f in missing), "structure-instance")

    def _complete_user_structure(self, z: LeanType) -> StructInfo | None:
        """The file's own structure ``z`` names when the engine knows all of its fields: declared
        without ``extends`` (whose parents' fields it would have to gather) and not a class."""
        si = self.env.structs.get(head_name(z) or "")  # type: ignore[attr-defined]
        if si is None or si.cmd.extends or si.cmd.is_class:
            return None
        return si


def _curried(domains: list[LeanType], result: LeanType) -> LeanType:
    """``d₁ → … → dₙ → result``."""
    return fun_of(*domains, result) if domains else result


def _pattern_vars(p: object) -> list[str]:
    out: list[str] = []
    if isinstance(p, A.Ident):
        if "." not in p.name and p.name[:1].islower():
            out.append(p.name)
    elif isinstance(p, A.Node):
        for f in getattr(p, "__slots__", ()):
            v = getattr(p, f, None)
            if isinstance(v, list):
                for x in v:
                    out.extend(_pattern_vars(x))
            elif isinstance(v, A.Node) and f != "fn":
                out.extend(_pattern_vars(v))
    return out


def _count_cdots(node: object) -> int:
    if isinstance(node, A.Cdot):
        return 1
    if isinstance(node, A.Paren):
        return 0
    return sum(_count_cdots(child) for child in A.children(node))


def _replace_cdots(node: A.Node, names: list[str],
                   copied: Callable[[A.Node, A.Node], None] | None = None) -> A.Node:
    """A copy of ``node`` with each ``·`` (outside nested parentheses) replaced by a variable."""
    counter = iter(names)
    return A.rewrite(node, lambda n: A.Ident(n.line, n.col, next(counter)) if isinstance(n, A.Cdot) else None,
                     into_parens=False, copied=copied)


__all__ = ["BindingMixin"]


def _checkable_proof(value: A.Node) -> bool:
    """A proof :mod:`.proofs` reads: a tactic block, a hypothesis or a lemma application."""
    value = A.unparen(value)
    return isinstance(value, (A.ProofTerm, A.Ident)) or (isinstance(value, A.App) and isinstance(value.fn, A.Ident))


def _has_placeholder(prop: A.Node) -> bool:
    return any(root.startswith("#dep") for root in A.identifier_roots(prop))


def _name_dependent_binders(proof: ProofType, bound_names: list[str | None]) -> ProofType:
    """A signature's proof domain (``#dep0 < a.size`` of ``Nat.fold a.size``, see
    :func:`.calls.dependent_placeholder`) stated with the names this lambda binds (``i < a.size``
    for ``fun i h acc => …``); a placeholder whose binder is unnamed here (``_``, a pattern) stays."""
    from veriscale.backends.embedded.elab.calls import dependent_placeholder, substitute_names

    mapping: dict[str, A.Node] = {}
    for k, name in enumerate(bound_names):
        if name is not None:
            mapping[dependent_placeholder(k)] = A.Ident(proof.prop.line, proof.prop.col, name)
    prop = substitute_names(proof.prop, mapping)
    return ProofType(prop, A.sexpr(prop), proof.fvars | frozenset(n for n in bound_names if n is not None))
