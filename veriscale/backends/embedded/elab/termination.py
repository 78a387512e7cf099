"""Termination of recursive definitions (``Lean.Elab.PreDefinition``).

Lean accepts a recursive ``def`` (or ``let rec``/``where`` helper) that is not ``partial`` when it
is *structurally* recursive -- some parameter is matched against constructor patterns and every
recursive call passes, at that position, a variable bound strictly inside that pattern -- or when
a well-founded measure decreases at every call (``termination_by``, or one ``GuessLex`` finds),
proved by ``decreasing_tactic`` or the ``decreasing_by`` tactic. This module decides:

* structural recursion: accepted;
* a recursive call whose arguments are exactly the parameters: no measure can decrease, so Lean
  reports "fail to show termination" -- an error;
* anything else (a measure and its proof): not modelled, a gap.
"""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.env import UserDef


class TerminationMixin(ElabCore):
    def check_termination(self, d: UserDef, ctx: Ctx) -> None:
        cmd = d.cmd
        if cmd.modifiers.partial or cmd.modifiers.unsafe:
            return
        params = [n for b in cmd.binders if b.kind == "explicit" for n in (b.names or ["_"])]
        names = {d.name, cmd.name}
        if "." in d.name:
            names.add(d.name.rpartition(".")[2])
        body = cmd.body
        # report at the body: that is where a submitted section puts the definition
        where = body if body is not None else (cmd.alts[0] if cmd.alts else cmd)
        self._termination(where, names, params, body, cmd.alts, cmd.termination_hints)

    def note_recursion(self, decl: A.LetDecl, ctx: Ctx) -> None:  # type: ignore[override]
        params = [n for b in decl.binders if b.kind == "explicit" for n in (b.names or ["_"])]
        self._termination(decl, {decl.name or ""}, params, decl.value, decl.alts, decl.termination_hints)

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
                for v in _strict_vars(p):
                    sub[v] = len(params) + k
            roots.append((alt.rhs, sub))
        structural_ok: set[int] | None = None
        rebound = set().union(*(_bound_names(r) for r, _ in roots)) if roots else set()
        for root, sub in roots:
            for call, subterms in _recursive_calls(root, names, params, sub):
                calls.append(call)
                call_sites.append((call, subterms))
                ok = {k for k, a in enumerate(call) if isinstance(a, A.Ident) and subterms.get(a.name) == k}
                structural_ok = ok if structural_ok is None else structural_ok & ok
        if not calls:
            return
        if structural_ok:
            return
        for call, _subterms in call_sites:
            if params and len(call) >= len(params) and not alts and all(
                    isinstance(a, A.Ident) and a.name == p and p not in rebound
                    for a, p in zip(call, params)):
                self.error(node, "fail to show termination: a recursive call passes the parameters unchanged, so "
                                 "no measure decreases", "termination")
                return
        what = "the `decreasing_by` proof" if "decreasing_by" in hints else (
            "the `termination_by` measure's decrease" if hints else "a termination measure (GuessLex)")
        self.gap(node, f"non-structural recursion: {what} is not modelled", "termination")




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
                        for v in _strict_vars(p):
                            inner[v] = k
                walk(alt.rhs, inner)
            for discr in n.discrs:
                walk(discr, sub)
            return
        if isinstance(n, A.Node):
            for f in getattr(n, "__slots__", ()):
                v = getattr(n, f, None)
                if isinstance(v, list):
                    for x in v:
                        walk(x, sub)
                elif isinstance(v, (A.Node, tuple)):
                    if isinstance(v, tuple):
                        for x in v:
                            walk(x, sub)
                    else:
                        walk(v, sub)

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


def _bound_names(node: object) -> set[str]:
    """Every name some binder inside ``node`` introduces (a parameter's name rebound there makes a
    call that mentions it not "unchanged")."""
    out: set[str] = set()
    if isinstance(node, A.Binder):
        out.update(node.names)
        if node.pattern is not None:
            out.update(_vars_deep(node.pattern))
    elif isinstance(node, A.LetDecl):
        if node.name:
            out.add(node.name)
        if node.pattern is not None:
            out.update(_vars_deep(node.pattern))
    elif isinstance(node, A.MatchAlt):
        for p in node.patterns:
            out.update(_vars_deep(p))
    elif isinstance(node, A.Quant):
        out.add(node.name)
    elif isinstance(node, A.DoFor):
        for pat, _ in node.clauses:
            out.update(_vars_deep(pat))
    if isinstance(node, A.Node):
        for f in getattr(node, "__slots__", ()):
            v = getattr(node, f, None)
            if isinstance(v, (list, tuple)):
                for x in v:
                    if isinstance(x, tuple):
                        for y in x:
                            out |= _bound_names(y)
                    else:
                        out |= _bound_names(x)
            elif isinstance(v, A.Node):
                out |= _bound_names(v)
    return out


def _vars_deep(p: object) -> set[str]:
    out: set[str] = set()
    if isinstance(p, A.Ident) and "." not in p.name:
        out.add(p.name)
    elif isinstance(p, A.Node):
        for f in getattr(p, "__slots__", ()):
            v = getattr(p, f, None)
            if isinstance(v, list):
                for x in v:
                    out |= _vars_deep(x)
            elif isinstance(v, A.Node) and f != "fn":
                out |= _vars_deep(v)
    return out
