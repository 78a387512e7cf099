"""Termination of recursive definitions (``Lean.Elab.PreDefinition``).

Lean accepts a recursive ``def`` (or ``let rec``/``where`` helper) that is not ``partial`` when it
is *structurally* recursive -- some parameter is matched against constructor patterns and every
recursive call passes, at that position, a variable bound strictly inside that pattern -- or when
a well-founded measure decreases at every call (``termination_by``, or one ``GuessLex`` finds),
proved by ``decreasing_tactic`` or the ``decreasing_by`` tactic. This module decides:

* structural recursion: accepted;
* a recursive call whose arguments are exactly the parameters: no measure can decrease, so Lean
  reports "fail to show termination" -- an error;
* without ``termination_by``/``decreasing_by``, a call (reached through ``if``s only, under a
  satisfiable guard) at which every basic measure ``GuessLex`` tries is equal or larger -- the other
  parameters passed unchanged or growing (``acc + x``, ``max best x``): an error too;
* a measure (``termination_by e``, or without it a ``Nat`` parameter, as ``GuessLex`` tries) that
  provably decreases at every call by linear arithmetic over the facts on the call's path (the
  conditions of enclosing ``if``s -- Lean's well-founded preprocessing turns ``ite`` into ``dite``
  so ``decreasing_tactic`` sees them -- and the hypotheses in scope), with the default
  ``decreasing_by`` or ``omega``: accepted;
* anything else (another tactic, a non-linear measure): not modelled, a gap.
"""

from __future__ import annotations

import itertools

import veriscale.backends.embedded.elab.termination.wf as wf
from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx, ProofType
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.termination.wf import _bound_names
from veriscale.backends.embedded.elab.types import head_name, zonk
from veriscale.backends.embedded.env import UserDef
from veriscale.lean.types import FunType, LeanType, NamedType


class TerminationMixin(ElabCore):
    def mutual_group(self, d: UserDef) -> list[UserDef]:
        """Hook (:mod:`.mutual`): the definitions of ``d``'s ``mutual`` block, ``[]`` outside one."""
        return []

    def check_mutual_termination(self, group: list[UserDef], ctx: Ctx) -> None:  # pragma: no cover - .mutual
        raise NotImplementedError

    def check_termination(self, d: UserDef, ctx: Ctx) -> None:
        cmd = d.cmd
        if cmd.modifiers.partial or cmd.modifiers.unsafe:
            return
        group = self.mutual_group(d)
        if group:
            self.check_mutual_termination(group, ctx)
            return
        params = self._enter(cmd, ctx)
        names = {d.name, cmd.name}
        if "." in d.name:
            names.add(d.name.rpartition(".")[2])
        body, params = _open_lambdas(cmd.body, params, cmd.alts)
        # report at the body: that is where a submitted section puts the definition
        where = cmd.body if cmd.body is not None else (cmd.alts[0] if cmd.alts else cmd)
        self._termination(where, names, params, body, cmd.alts, cmd.termination_hints)

    def note_recursion(self, decl: A.LetDecl, ctx: Ctx) -> None:  # type: ignore[override]
        params = self._enter(decl, ctx)
        body, params = _open_lambdas(decl.value, params, decl.alts)
        self._termination(decl, {decl.name or ""}, params, body, decl.alts, decl.termination_hints)

    def _enter(self, decl: A.DefCmd | A.LetDecl, ctx: Ctx) -> list[str]:
        """Take in a recursive declaration's termination clauses, binders and the facts in scope;
        returns its explicit parameter names."""
        self._measure = decl.termination_measure
        self._tactic = decl.decreasing_tactic
        self._decl = decl
        self._domains = self._arrow_domains(decl.type, ctx)
        self._facts = [f.prop for f in ctx.facts]
        self._param_types = self._binder_heads(decl.binders, ctx)
        self._ctx = ctx
        self._other_binders = any(b.kind != "explicit" and not _is_type_binder(b) for b in decl.binders)
        self._explicit = [n for b in decl.binders if b.kind == "explicit" for n in (b.names or ["_"])]
        return list(self._explicit)

    _measure: A.Node | None = None
    _tactic: str = ""
    _facts: list[A.Node] = []

    _decl: A.DefCmd | A.LetDecl | None = None
    _domains: list[LeanType] = []

    def _decreases(self, names: set[str], params: list[str], body: A.Node | None,
                   alts: list[A.MatchAlt] | None) -> bool:
        """Well-founded recursion Lean surely accepts (:mod:`.wf`): the ``termination_by`` measure,
        or a lexicographic combination of ``GuessLex``'s basic measures, decreases at every call
        by what ``decreasing_tactic`` (or a ``decreasing_by omega``) surely proves."""
        tactic = _tactic_model(self._tactic)
        if tactic is None:
            return False
        types, elems = self._param_kinds(params)
        positional = [f"_{k}" for k in range(len(alts[0].patterns))] if alts else []
        all_params = params + positional
        for k, name in enumerate(positional):
            if k < len(self._domains):
                types[name] = head_name(self._domains[k]) or ""
                elems[name] = _elem_head(self._domains[k])
        if any(v == "" for v in types.values()):
            types = {k: v for k, v in types.items() if v}
        sites: list[wf.Site] = []
        base = [self.unfold_fact(f) for f in self._facts]  # type: ignore[attr-defined]
        inner_names = set(all_params) | (_bound_names(body) if body is not None else set())
        for alt in alts or []:
            inner_names |= _bound_names(alt)
        # hypotheses of the enclosing scope that mention a name rebound here are not about it
        base = [f for f in base if not (wf._names(f) & inner_names)]
        outer = {n: h for n, h in self._outer_kinds().items() if n not in inner_names}
        roots: list[tuple[A.Node, list[A.Node]]] = []
        if body is not None:
            roots.append((body, [A.Ident(0, 0, p) for p in all_params]))
        for alt in alts or []:
            if len(alt.patterns) != len(positional):
                return False
            roots.append((alt.rhs, [A.Ident(0, 0, p) for p in params] + list(alt.patterns)))
        for root, here in roots:
            scope = wf.Scope(here, list(base), {}, {**outer, **types})
            for k, pat in enumerate(here[len(params):]):
                wf._type_pattern(pat, types.get(positional[k], ""), elems.get(positional[k], ""), scope.types)
            sites.extend(wf.collect_sites(root, names, scope, self._is_prop_type, elems))
        measure = self._measure
        if measure is not None:
            measure = self._bind_measure(measure, params, positional)
            if measure is None or not self._measure_is_nat(measure, all_params + sorted(outer), {**outer, **types}):
                return False
            parts = list(measure.items) if isinstance(measure, A.Tuple) else [measure]
            return wf.decreases(sites, all_params, parts, tactic, fixed=True)
        fixed_vars = set(outer) - inner_names
        return wf.decreases(sites, all_params, wf.basic_measures(all_params, {**outer, **types}, sites, fixed_vars),
                            tactic, fixed=False)

    def _bind_measure(self, measure: A.Node, params: list[str], positional: list[str]) -> A.Node | None:
        """``termination_by x y => e`` names the parameters after the colon; only the form that
        names all of them is read."""
        binders = getattr(self._decl, "termination_binders", ())
        unnamed = positional or params[len(self._explicit):]
        if not binders:
            return measure if not positional else None
        if len(binders) != len(unnamed):
            return None
        mapping: dict[str, A.Node] = {b: A.Ident(0, 0, p) for b, p in zip(binders, unnamed) if b != "_"}
        return wf.substitute(measure, mapping)

    def _param_kinds(self, params: list[str]) -> tuple[dict[str, str], dict[str, str]]:
        types: dict[str, str] = {}
        elems: dict[str, str] = {}
        decl = self._decl
        binders = decl.binders if decl is not None else []
        for b in binders:
            if b.type is None or b.kind != "explicit":
                continue
            t = self.read_type(b.type, self._ctx)
            # a type the reader does not model (`String.Iterator`) keeps its written name
            written = b.type.name if isinstance(b.type, A.Ident) else ""
            for n in b.names:
                types[n] = head_name(t) or written
                elems[n] = _elem_head(t)
        # parameters of a `fun` body take the declared arrow's domains
        extra = [p for p in params if p not in types]
        for k, p in enumerate(extra):
            if k < len(self._domains):
                types[p] = head_name(self._domains[k]) or ""
                elems[p] = _elem_head(self._domains[k])
        return types, elems

    def _outer_kinds(self) -> dict[str, str]:
        """Head types of the enclosing scope's variables (a ``let rec`` closes over them: fixed
        parameters of the recursion, which measures may mention)."""
        out: dict[str, str] = {}
        for decl in self._ctx.locals:
            if decl.kind in ("var", "pattern", "let"):
                out[decl.name] = head_name(zonk(decl.type)) or ""
            else:
                out.pop(decl.name, None)
        return {k: v for k, v in out.items() if v}

    def _arrow_domains(self, ty: A.Node | None, ctx: Ctx) -> list[LeanType]:
        if ty is None:
            return []
        t = self.read_type(ty, ctx)
        out: list[LeanType] = []
        while isinstance(t, FunType):
            out.append(t.domain)
            t = t.codomain
        return out

    def _is_prop_type(self, node: A.Node) -> bool:
        return isinstance(self.read_type(node, self._ctx), ProofType)

    _explicit: list[str] = []

    def _measure_is_nat(self, measure: A.Node, params: list[str], types: dict[str, str]) -> bool:
        """``Nat`` subtraction truncates; the prover reads ``-`` that way, so only a measure whose
        every term is surely a ``Nat`` is accepted (other measures make the check a gap)."""
        parts = list(measure.items) if isinstance(measure, A.Tuple) else [measure]
        return all(wf._is_nat_term(p, types) and wf._names(p) <= set(params) for p in parts)

    _param_types: dict[str, str] = {}
    _ctx: Ctx = Ctx()
    _other_binders: bool = False

    def _call_no_measure_decreases(self, body: A.Node, names: set[str], params: list[str],
                                   rebound: set[str]) -> str | None:
        """A recursive call at which no measure Lean tries can decrease, so Lean certainly rejects
        the definition (``line:column`` of that call), or ``None`` when that cannot be shown.

        Without ``termination_by``/``decreasing_by``, Lean tries structural recursion (the caller
        checked it fails) and then well-founded recursion with a measure ``GuessLex`` builds from
        *basic measures* (``Lean.Elab.PreDefinition.WF.GuessLex``; the reference manual, "Inferring
        Well-Founded Recursion"): ``sizeOf`` of each parameter, and ``e₂ - e₁`` for each assumption
        ``e₁ < e₂``/``e₁ ≤ e₂`` in the local context of a recursive call. Every candidate is a tuple
        of basic measures, and at each call one component must strictly decrease. At a call where
        every basic measure provably does not decrease -- its parameters are passed unchanged, or
        (a parameter absent from every assumption) grow: ``p + e``, ``max p e``, an ``if`` whose
        branches do -- the goal ``measure(args) < measure(params)`` is false under some valuation
        of the context, so no tactic proves it. That valuation is found by search: the call's
        context (the conditions of the ``if``s around it and the hypotheses in scope) must be
        satisfiable, or ``omega`` would close every goal by contradiction. Calls under other binders
        (``let``, ``match``, ``fun``, …) may see hypotheses this does not track: not decided."""
        base_facts = [self.unfold_fact(f) for f in self._facts]  # type: ignore[attr-defined]
        for call, path, plain in _calls_on_plain_paths(body, names, []):
            if not plain or len(call.args) != len(params) or any(isinstance(a, A.NamedArg) for a in call.args):
                continue
            facts = base_facts + [self.unfold_fact(f) for f in path]  # type: ignore[attr-defined]
            in_facts = set().union(*(_identifier_roots(f) | _dotted_roots(f) for f in facts)) if facts else set()
            grown: list[str] = []
            decided = True
            for p, arg in zip(params, call.args):
                if _is_param(arg, p) and p not in rebound:
                    continue
                kind = self._param_types.get(p)
                if p in rebound or p in in_facts or kind not in ("Nat", "Int") or not _grows(arg, p, kind):
                    decided = False
                    break
                grown.append(p)
            if decided and self._satisfiable(facts, params):
                return f"{call.line}:{call.col}"
        return None

    def _satisfiable(self, facts: list[A.Node], params: list[str]) -> bool:
        """Some valuation makes every fact true: a search over small values of the ``Nat`` atoms
        (``Nat`` variables, and ``x.length``/``x.size`` of a list, array or string variable, each
        free of the others)."""
        atoms: set[str] = set()
        for f in facts:
            found = _atoms(f)
            if found is None:
                return False
            atoms |= found
        owners: dict[str, str] = {}
        for atom in sorted(atoms):
            owner, _, field = atom.partition(".")
            kind = self._param_types.get(owner) if owner in params else self._local_head(owner)
            if field:
                if kind not in ("List", "Array", "String") or owner in owners:
                    return False
                owners[owner] = field
            elif kind != "Nat":
                return False
        if not facts:
            return True
        order = sorted(atoms)
        if len(order) > 5:
            return False
        for values in itertools.product(range(4), repeat=len(order)):
            env = dict(zip(order, values))
            if all(_truth(f, env) is True for f in facts):
                return True
        return False

    def _local_head(self, name: str) -> str | None:
        decl = self._ctx.lookup(name)
        return head_name(decl.type) if decl is not None else None

    def _binder_heads(self, binders: list[A.Binder], ctx: Ctx) -> dict[str, str]:
        out: dict[str, str] = {}
        for b in binders:
            if b.type is None:
                continue
            h = head_name(self.read_type(b.type, ctx))
            for n in b.names:
                out[n] = h or "?"
        return out

    def _termination(self, node: A.Node, names: set[str], params: list[str], body: A.Node | None,
                     alts: list[A.MatchAlt] | None, hints: tuple[str, ...]) -> None:
        calls: list[list[A.Node]] = []
        call_sites: list[tuple[list[A.Node], dict[str, int]]] = []
        roots: list[tuple[A.Node, dict[str, int]]] = []
        if body is not None:
            roots.append((body, {}))
        for alt in alts or []:
            sub: dict[str, int] = {}
            for k, p in enumerate(alt.patterns):
                for v in _strict_vars(p) + _strict_subpatterns(p):
                    sub[v] = len(params) + k
            roots.append((alt.rhs, sub))
        structural_ok: set[int] | None = None
        rebound = set().union(*(_bound_names(r) for r, _ in roots)) if roots else set()
        for root, sub in roots:
            for call, subterms in _recursive_calls(root, names, params, sub):
                calls.append(call)
                call_sites.append((call, subterms))
                ok = {k for k, a in enumerate(call) if _is_strict_subterm(a, k, subterms)}
                structural_ok = ok if structural_ok is None else structural_ok & ok
        if not calls:
            return
        if structural_ok:
            return
        if self.proof_sensitive_instances(getattr(self, "_ctx", None)) or self.decl_name in self.proof_sensitive_defs:
            # `decreasing_tactic` reads `-`, `+`, `<` as the global operations: with a local
            # instance of them its proof is not Lean's
            self.gap(node, "termination with a local arithmetic or order instance in scope is not modelled",
                     "termination")
            return
        for call, _subterms in call_sites:
            if params and len(call) >= len(params) and not alts and all(
                    isinstance(a, A.Ident) and a.name == p and p not in rebound
                    for a, p in zip(call, params)):
                self.error(node, "fail to show termination: a recursive call passes the parameters unchanged, so "
                                 "no measure decreases", "termination")
                return
        if self._decreases(names, params, body, alts):
            return
        if not hints and not alts and body is not None and not self._other_binders:
            stuck = self._call_no_measure_decreases(body, names, params, rebound)
            if stuck is not None:
                self.error(node, f"fail to show termination: structural recursion fails and no measure Lean "
                                 f"tries decreases at the recursive call at {stuck}", "termination")
                return
        what = "the `decreasing_by` proof" if "decreasing_by" in hints else (
            "the `termination_by` measure's decrease" if hints else "a termination measure (GuessLex)")
        self.gap(node, f"non-structural recursion: {what} is not modelled", "termination")




_DEFAULT_TACTICS = frozenset({"", "decreasing_tactic"})
_OMEGA_TACTICS = frozenset({"omega", "simp_wf; omega", "simp_wf <;> omega", "simp_wf omega"})


def _tactic_model(text: str) -> wf.Tactic | None:
    """How a ``decreasing_by`` tactic is modelled: the default ``decreasing_tactic``, ``omega`` on
    the ``clean_wf`` goal (``simp_wf`` is a ``simp only`` of the same lemmas), or not at all."""
    norm = " ".join(text.split()).replace(" ;", ";")
    if norm in _DEFAULT_TACTICS:
        return wf.DEFAULT
    if norm in _OMEGA_TACTICS:
        return wf.OMEGA
    return None


def _open_lambdas(body: A.Node | None, params: list[str],
                  alts: list[A.MatchAlt] | None) -> tuple[A.Node | None, list[str]]:
    """``def f : A → B → C := fun a b => e``: the recursion is over ``a`` and ``b`` too (the
    well-founded and structural encodings take the body's leading lambdas as parameters)."""
    while alts is None and isinstance(body, A.Lambda) and all(
            b.kind == "explicit" and b.pattern is None and b.names for b in body.binders):
        params = params + [n for b in body.binders for n in b.names]
        body = body.body
    return body, params


def _elem_head(t: LeanType) -> str:
    z = zonk(t)
    if isinstance(z, NamedType) and z.name == "List" and z.args:
        return head_name(z.args[0]) or ""
    return ""


def _is_strict_subterm(arg: A.Node, k: int, subterms: dict[str, int]) -> bool:
    arg = A.unparen(arg)
    if isinstance(arg, A.Ident):
        return subterms.get(arg.name) == k
    return subterms.get("@" + A.sexpr(arg)) == k


def _strict_subpatterns(p: A.Node) -> list[str]:
    """Constructor sub-patterns strictly inside a pattern, as keys (``y :: rest`` inside
    ``x :: y :: rest``): passing that term again is passing a structural subterm."""
    p = A.unparen(p)
    out: list[str] = []
    children: list[A.Node] = []
    if isinstance(p, A.BinOp) and p.op == "::":
        children = [p.lhs, p.rhs]
    elif isinstance(p, A.App):
        children = list(p.args)
    for c in children:
        c = A.unparen(c)
        if isinstance(c, (A.BinOp, A.App)):
            out.append("@" + A.sexpr(c))
            out.extend(_strict_subpatterns(c))
    return out


def _strict_vars(p: A.Node) -> list[str]:
    """Variables bound strictly inside a constructor pattern (``xs`` in ``x :: xs``, ``n`` in
    ``n + 1``): structurally smaller than the matched value."""
    if isinstance(p, A.Paren):
        return _strict_vars(p.term)
    if isinstance(p, A.BinOp) and p.op == "::":
        return _vars(p.lhs) + _vars(p.rhs)
    if isinstance(p, A.BinOp) and p.op == "+" and isinstance(p.rhs, A.NumLit) and p.rhs.value > 0:
        return _vars(p.lhs)
    if isinstance(p, A.App):
        return [v for a in p.args for v in _vars(a)]
    if isinstance(p, (A.ListLit, A.Tuple, A.AnonCtor)):
        return [v for a in p.items for v in _vars(a)]
    return []


def _vars(p: A.Node) -> list[str]:
    if isinstance(p, A.Ident) and "." not in p.name:
        return [p.name]
    if isinstance(p, A.Paren):
        return _vars(p.term)
    return _strict_vars(p)


def _recursive_calls(root: A.Node, names: set[str], params: list[str],
                     sub: dict[str, int]) -> list[tuple[list[A.Node], dict[str, int]]]:
    """Every call of the function in ``root``, with the structural-subterm map in force there."""
    out: list[tuple[list[A.Node], dict[str, int]]] = []

    def walk(n: object, sub: dict[str, int]) -> None:
        if isinstance(n, A.App) and isinstance(n.fn, A.Ident) and n.fn.name in names:
            out.append(([a for a in n.args if not isinstance(a, A.NamedArg)], sub))
            for a in n.args:
                walk(a, sub)
            return
        elif isinstance(n, A.Ident) and n.name in names:
            out.append(([], sub))
            return
        if isinstance(n, A.Match):
            for alt in n.alts:
                inner = dict(sub)
                for discr, p in zip(n.discrs, alt.patterns):
                    k = _param_index(discr, params, sub)
                    if k is not None:
                        for v in _strict_vars(p) + _strict_subpatterns(p):
                            inner[v] = k
                walk(alt.rhs, inner)
            for discr in n.discrs:
                walk(discr, sub)
            return
        if isinstance(n, A.Node):
            # unlike A.children, tuple fields are entered too: a call inside a binder's bound
            # (`∀ x ∈ f xs`) or a `for` clause is still a call
            for slot in getattr(n, "__slots__", ()):
                value = getattr(n, slot, None)
                if isinstance(value, (list, tuple)):
                    for x in value:
                        walk(x, sub)
                elif isinstance(value, A.Node):
                    walk(value, sub)

    walk(root, sub)
    return out


def _param_index(discr: A.Node, params: list[str], sub: dict[str, int]) -> int | None:
    if isinstance(discr, A.Paren):
        return _param_index(discr.term, params, sub)
    if isinstance(discr, A.Ident):
        if discr.name in params:
            return params.index(discr.name)
        return sub.get(discr.name)
    return None


def _identifier_roots(node: object) -> set[str]:
    """Undotted identifiers (the variables a measure is written in)."""
    if isinstance(node, A.Ident):
        return {node.name} if "." not in node.name else set()
    out: set[str] = set()
    for child in A.children(node):
        out |= _identifier_roots(child)
    return out


def _calls_with_facts(node: object, names: set[str], path: list[A.Node]) -> list[tuple[list[A.Node], list[A.Node]]]:
    """Every recursive call with the conditions of the ``if``s on its path."""
    out: list[tuple[list[A.Node], list[A.Node]]] = []
    if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name in names:
        out.append(([a for a in node.args if not isinstance(a, A.NamedArg)], list(path)))
        for a in node.args:
            out.extend(_calls_with_facts(a, names, path))
        return out
    if isinstance(node, A.If):
        out.extend(_calls_with_facts(node.cond, names, path))
        out.extend(_calls_with_facts(node.then, names, path + [node.cond]))
        out.extend(_calls_with_facts(node.els, names, path + [A.UnOp(node.line, node.col, "¬", node.cond)]))
        return out
    if isinstance(node, A.Node):
        for f in getattr(node, "__slots__", ()):
            v = getattr(node, f, None)
            if isinstance(v, list):
                for x in v:
                    out.extend(_calls_with_facts(x, names, path))
            elif isinstance(v, A.Node):
                out.extend(_calls_with_facts(v, names, path))
    return out


def _is_type_binder(b: A.Binder) -> bool:
    """An implicit type parameter (``{α : Type}``) or an instance: no ``sizeOf`` measure, and the
    same at every call of a function of this fragment."""
    return b.kind == "inst" or (b.kind in ("implicit", "strict") and (b.type is None or isinstance(b.type, A.Sort)))


def _is_param(arg: A.Node, p: str) -> bool:
    arg = A.unparen(arg)
    return isinstance(arg, A.Ident) and arg.name == p


def _grows(arg: A.Node, p: str, kind: str) -> bool:
    """``measure(arg) < measure(p)`` is false for some value of ``p`` that no fact constrains.

    ``Nat`` (``sizeOf n = n``): ``arg ≥ p`` always -- ``p``, ``p + e``, ``max p e``, ``Nat.succ p``,
    or an ``if`` whose branches are such. ``Int`` (whose ``sizeOf`` this does not model): ``arg = p``
    once ``p`` is large enough -- ``p``, ``max p e`` with ``e`` free of ``p``, or an ``if`` of such."""
    arg = A.unparen(arg)
    if _is_param(arg, p):
        return True
    if isinstance(arg, A.If):
        return _grows(arg.then, p, kind) and _grows(arg.els, p, kind)
    if kind == "Nat" and isinstance(arg, A.BinOp) and arg.op == "+":
        return _is_param(arg.lhs, p) or _is_param(arg.rhs, p)
    if isinstance(arg, A.App) and isinstance(arg.fn, A.Ident):
        args = [a for a in arg.args if not isinstance(a, A.NamedArg)]
        if arg.fn.name in ("max", "Max.max", f"{kind}.max") and len(args) == 2:
            mine = [k for k, a in enumerate(args) if _is_param(a, p)]
            return bool(mine) and (kind == "Nat" or p not in _identifier_roots(args[1 - mine[0]]))
        if kind == "Nat" and arg.fn.name == "Nat.succ" and len(args) == 1:
            return _is_param(args[0], p)
    return kind == "Nat" and isinstance(arg, A.Ident) and arg.name == f"{p}.succ"


_PLAIN = (A.If, A.Paren, A.App, A.BinOp, A.UnOp, A.Proj, A.Index, A.Tuple, A.ListLit, A.ArrayLit, A.AnonCtor,
          A.Ascription, A.Explicit, A.Ident, A.NumLit, A.StrLit, A.CharLit)


def _calls_on_plain_paths(node: object, names: set[str], path: list[A.Node],
                          plain: bool = True) -> list[tuple[A.App, list[A.Node], bool]]:
    """Every recursive call with the ``if`` conditions on its path, and whether that path passes
    through nothing but applications, operators and ``if``s (no binder that could add a hypothesis
    to the call's local context)."""
    out: list[tuple[A.App, list[A.Node], bool]] = []
    if not isinstance(node, A.Node):
        return out
    plain = plain and isinstance(node, _PLAIN)
    if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name in names:
        out.append((node, list(path), plain))
    if isinstance(node, A.If):
        out.extend(_calls_on_plain_paths(node.cond, names, path, plain))
        out.extend(_calls_on_plain_paths(node.then, names, path + [node.cond], plain))
        out.extend(_calls_on_plain_paths(node.els, names, path + [A.UnOp(node.line, node.col, "¬", node.cond)], plain))
        return out
    for f in getattr(node, "__slots__", ()):
        v = getattr(node, f, None)
        for x in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(x, tuple):
                for y in x:
                    out.extend(_calls_on_plain_paths(y, names, path, plain))
            else:
                out.extend(_calls_on_plain_paths(x, names, path, plain))
    return out


def _dotted_roots(node: object) -> set[str]:
    """The variable of each ``x.f`` identifier (``cs.length`` mentions ``cs``)."""
    if isinstance(node, A.Ident):
        return {node.name.split(".")[0]} if "." in node.name else set()
    out: set[str] = set()
    for child in A.children(node):
        out |= _dotted_roots(child)
    return out


def _atom(node: A.Node) -> str | None:
    node = A.unparen(node)
    if isinstance(node, A.Ident):
        parts = node.name.split(".")
        if len(parts) == 1 or (len(parts) == 2 and parts[1] in ("length", "size")):
            return node.name
    if isinstance(node, A.Proj) and node.field in ("length", "size"):
        inner = node.term
        inner = A.unparen(inner)
        if isinstance(inner, A.Ident) and "." not in inner.name:
            return f"{inner.name}.{node.field}"
    return None


_COMPARE = {"<": lambda a, b: a < b, "≤": lambda a, b: a <= b, ">": lambda a, b: a > b, "≥": lambda a, b: a >= b,
            "=": lambda a, b: a == b, "≠": lambda a, b: a != b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: max(a - b, 0), "*": lambda a, b: a * b}


def _atoms(node: A.Node) -> set[str] | None:
    """The ``Nat`` atoms of a linear fact, or ``None`` when it has another shape."""
    node = A.unparen(node)
    if isinstance(node, A.NumLit):
        return set()
    atom = _atom(node)
    if atom is not None:
        return {atom}
    if isinstance(node, A.UnOp) and node.op in ("¬", "!"):
        return _atoms(node.arg)
    if isinstance(node, A.BinOp) and (node.op in _COMPARE or node.op in _ARITH or node.op in ("∧", "∨", "&&", "||")):
        left, right = _atoms(node.lhs), _atoms(node.rhs)
        return None if left is None or right is None else left | right
    return None


def _truth(node: A.Node, env: dict[str, int]) -> int | bool | None:
    """The value of a fact :func:`_atoms` accepts, with ``Nat`` subtraction truncating."""
    node = A.unparen(node)
    if isinstance(node, A.NumLit):
        return node.value
    atom = _atom(node)
    if atom is not None:
        return env.get(atom)
    if isinstance(node, A.UnOp) and node.op in ("¬", "!"):
        v = _truth(node.arg, env)
        return None if not isinstance(v, bool) else not v
    if isinstance(node, A.BinOp):
        a, b = _truth(node.lhs, env), _truth(node.rhs, env)
        if a is None or b is None:
            return None
        if node.op in ("∧", "&&"):
            return bool(a) and bool(b) if isinstance(a, bool) and isinstance(b, bool) else None
        if node.op in ("∨", "||"):
            return bool(a) or bool(b) if isinstance(a, bool) and isinstance(b, bool) else None
        if isinstance(a, bool) or isinstance(b, bool):
            return None
        if node.op in _COMPARE:
            return _COMPARE[node.op](a, b)
        if node.op in _ARITH:
            return _ARITH[node.op](a, b)
    return None
