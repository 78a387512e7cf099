"""Termination of the definitions of a ``mutual … end`` block (``Lean.Elab.PreDefinition``).

Lean elaborates a mutual block as one unit (``Lean.Elab.MutualDef``) and first tries structural
recursion over the whole block (``Lean.Elab.PreDefinition.Structural``, ``tryAllArgs`` over every
combination of one argument per definition, all of the same inductive type): every call from a
definition of the block to one of them must pass, at the callee's recursive argument, a term bound
strictly inside a constructor pattern of the caller's recursive argument. When that holds Lean
accepts the block (well-founded recursion on ``sizeOf`` would too: each call's argument is a strict
subterm). That is the only case the engine decides; any other mutual block -- a termination hint, a
call that does not pass a strict subterm, arguments of different types -- is a gap: the engine does
not model well-founded recursion across a block.
"""

from __future__ import annotations

import itertools

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx
from veriscale.backends.embedded.elab.termination.driver import (
    TerminationMixin,
    _is_strict_subterm,
    _open_lambdas,
    _recursive_calls,
    _strict_subpatterns,
    _strict_vars,
)
from veriscale.backends.embedded.elab.types import head_name
from veriscale.backends.embedded.env import UserDef

_MAX_COMBINATIONS = 4096
"""Argument choices tried at most (``tryAllArgs`` tries them all; blocks are small)."""


class MutualTerminationMixin(TerminationMixin):
    def mutual_group(self, d: UserDef) -> list[UserDef]:
        """The definitions of ``d``'s ``mutual`` block (``d`` first), or ``[]`` outside one."""
        scopes = self.env.scopes  # type: ignore[attr-defined]
        decl = scopes.declarations.lookup(d.name) if scopes is not None else None
        if decl is None or len(decl.mutual) < 2:
            return []
        members = [self.env.defs.get(name) for name in decl.mutual]  # type: ignore[attr-defined]
        if any(m is None for m in members):
            return []
        return [d] + [m for m in members if m is not None and m is not d]

    def check_mutual_termination(self, group: list[UserDef], ctx: Ctx) -> None:
        """Report at ``group[0]`` whether the block terminates structurally (nothing reported) or
        the engine cannot tell (a gap). Call sites in ``group[0]`` that reach no definition of
        the block make it non-recursive: nothing to check."""
        d = group[0]
        where = d.cmd.body if d.cmd.body is not None else (d.cmd.alts[0] if d.cmd.alts else d.cmd)
        # per definition: its parameters' type heads and its calls of each member
        heads: list[list[str]] = []
        calls: list[list[tuple[int, list[A.Node], dict[str, int]]]] = []
        for member in group:
            cmd = member.cmd
            if cmd.modifiers.partial or cmd.modifiers.unsafe:
                return  # Lean requires the whole block `partial`; nothing to prove
            explicit = [n for b in cmd.binders if b.kind == "explicit" for n in (b.names or ["_"])]
            named = self._binder_heads(cmd.binders, ctx)  # type: ignore[attr-defined]
            body, params = _open_lambdas(cmd.body, explicit, cmd.alts)
            if params != explicit:
                self.gap(where, "termination of a mutual block whose bodies are lambdas is not modelled",
                         "termination")
                return
            domains = self._arrow_domains(cmd.type, ctx) if cmd.alts else []  # type: ignore[attr-defined]
            positional = len(cmd.alts[0].patterns) if cmd.alts else 0
            heads.append([named.get(p, "?") for p in params]
                         + [(head_name(domains[k]) or "?") if k < len(domains) else "?" for k in range(positional)])
            roots: list[tuple[A.Node, dict[str, int]]] = []
            if body is not None:
                roots.append((body, {}))
            for alt in cmd.alts or []:
                sub: dict[str, int] = {}
                for k, p in enumerate(alt.patterns):
                    for v in _strict_vars(p) + _strict_subpatterns(p):
                        sub[v] = len(params) + k
                roots.append((alt.rhs, sub))
            found: list[tuple[int, list[A.Node], dict[str, int]]] = []
            for j, callee in enumerate(group):
                names = {callee.name, callee.cmd.name or "", callee.name.rpartition(".")[2]} - {""}
                for root, sub in roots:
                    for args, subterms in _recursive_calls(root, names, params, sub):
                        found.append((j, args, subterms))
            calls.append(found)
        if not calls[0]:
            return  # `d` calls no definition of the block
        if any(m.cmd.termination_hints for m in group):
            self.gap(where, "termination of a mutual block with `termination_by`/`decreasing_by` is not modelled",
                     "termination")
            return
        choices = [[k for k, h in enumerate(hs) if h not in ("?", "")] for hs in heads]
        total = 1
        for c in choices:
            total *= max(len(c), 1)
        if total <= _MAX_COMBINATIONS:
            for pick in itertools.product(*choices):
                if len({heads[i][k] for i, k in enumerate(pick)}) != 1:
                    continue  # structural recursion over one inductive type
                if all(len(args) > pick[j] and _is_strict_subterm(args[pick[j]], pick[i], subterms)
                       for i, found in enumerate(calls) for j, args, subterms in found):
                    return
        self.gap(where, "termination of a mutual block that is not structurally recursive is not modelled",
                 "termination")


__all__ = ["MutualTerminationMixin"]
