"""Quantifiers: ``∀``/``∃`` over a bounded range or a collection, the bounds found among a
body's hypotheses, the sound rules that reduce an unbounded quantifier to finitely many
candidates, and the witness search over ``Nat``/``Int`` when no rule applies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import type_of_text
from veriscale.backends.embedded.builtins import type_name_of
from veriscale.backends.embedded.compiler.static_types import StaticTypesMixin
from veriscale.backends.embedded.compiler.support import (
    ARITH_OPS,
    REL_OPS,
    Closure,
    Scope,
    _coercer,
    _needs_int,
    unsupported,
)
from veriscale.backends.embedded.env import UserDef
from veriscale.backends.embedded.statics import INT, NAT, PROP, elem_type, head, is_known
from veriscale.lean.types import LeanType
from veriscale.lean.values import Arr, Nat, Undecidable, Unsupported

#: candidates tried by the witness search of an unbounded ``∃``/``∀`` over Nat or Int (bodies
#: like `n / 10 ^ i` cost more with every candidate, so the whole search grows quadratically)
UNBOUNDED_SEARCH_CANDIDATES = 2_000
#: candidates of a search that runs inside the body of another search
NESTED_SEARCH_CANDIDATES = 100
#: evaluation steps (function entries, loop iterations) one search may spend: a recursive body
#: such as `pow 2 x` costs `x` steps per candidate. Counted in steps, not seconds, so whether a
#: witness is found does not depend on the machine's speed.
SEARCH_STEP_ALLOWANCE = 10_000


def _members(value: Any, node: A.Node) -> Any:
    if isinstance(value, tuple):
        return value
    if isinstance(value, Arr):
        return tuple(value.view())  # the body may update the array itself
    raise unsupported(node, "membership", f"in {type_name_of(value)}")


def _fin_size(node: A.Quant) -> A.Node | None:
    """``n`` when ``node`` binds its variable at type ``Fin n`` (with no binder predicate), and ``n``
    does not mention the variable."""
    ty = A.unparen(node.type) if node.type is not None else None
    if node.bound is not None or node.pattern is not None or not isinstance(ty, A.App):
        return None
    if not (isinstance(ty.fn, A.Ident) and ty.fn.name == "Fin" and len(ty.args) == 1):
        return None
    size = ty.args[0]
    return None if _mentions(size, node.name) else size


class QuantifiersMixin:
    """``∀`` and ``∃`` (part of :class:`~.core.Compiler`)."""

    # -- quantifiers ------------------------------------------------------------------------
    def c_Quant(self, node: A.Quant, sc: Scope, expected: LeanType | None) -> Closure:
        is_all = node.kind == "forall"
        if node.bound is None and node.pattern is None and _is_statement(node.type):
            # `∀ h : P, Q` is `P → Q` and `∃ h : P, Q` is `P ∧ Q` (a proof is irrelevant at run
            # time; the decision procedures are `forall_prop_decidable` / `exists_prop_decidable`)
            op = "→" if is_all else "∧"
            return self.compile(A.BinOp(node.line, node.col, op, A.Paren(node.line, node.col, node.type),
                                        node.body), sc, expected)
        fin_size = _fin_size(node)
        if fin_size is not None:
            # `∀ i : Fin n, P i` / `∃ i : Fin n, P i` is decided by enumerating the `n` values
            # (`Fintype.decidableForallFintype` / `decidableExistsFintype`); a `Fin` is its number
            # at run time, so it is the bounded quantifier `∀ i < n, P i`
            node = replace(node, type=None, type_text="", bound=("<", fin_size))
        vty = self.clean_type(type_of_text(node.type_text), set()) if node.type_text else None
        name = node.name
        if node.bound is not None:
            bop, bterm = node.bound
            inner, slot = sc.bind(name, vty)
            if bop in ("∈",):
                coll = self.compile(bterm, sc, None)
                ct = self.stype(bterm, sc)
                if vty is None:
                    inner, slot = sc.bind(name, elem_type(ct))
                body = self._quant_body(node, inner)

                def run_mem(fr: list[Any]) -> Any:
                    xs = _members(coll(fr), node)
                    for x in xs:
                        fr[slot] = x
                        if body(fr) != is_all:
                            return not is_all
                    return is_all

                return run_mem
            if bop in ("<", "≤"):
                bt = self.stype(bterm, sc)
                if vty is None:
                    vty = bt
                    inner, slot = sc.bind(name, vty)
                if vty is not None and head(vty) != "Nat":
                    raise Undecidable(f"quantifier over {vty} bounded above only at {node.line}:{node.col}")
                bound = self.compile(bterm, sc, vty or NAT)
                body = self._quant_body(node, inner)
                incl = 1 if bop == "≤" else 0

                def run_lt(fr: list[Any]) -> Any:
                    n = bound(fr)
                    if not isinstance(n, Nat):
                        raise Undecidable(f"bounded quantifier over {type_name_of(n)} at {node.line}:{node.col}")
                    for i in range(n + incl):
                        fr[slot] = Nat(i)
                        if body(fr) != is_all:
                            return not is_all
                    return is_all

                return run_lt
            raise Undecidable(f"quantifier bound {bop} at {node.line}:{node.col}")
        # unbounded binder: look for a bound among hypotheses of the body
        return self._quant_search(node, sc, vty)

    def _quant_body(self, node: A.Quant, inner: Scope) -> Closure:
        return self.compile(node.body, inner, PROP)

    def _quant_search(self, node: A.Quant, sc: Scope, vty: LeanType | None) -> Closure:
        """``∀ i, i < n → P``, ``∀ i, lo ≤ i → i < n → P``, ``∃ i, i < n ∧ P``, ``∃ x, x ∈ xs ∧ P``.

        These are decidable in Lean (``Nat.decidableBallLT``, ``List.decidableBEx``...). We look
        for an upper bound (or a membership) among the hypotheses (for ``∀``) or conjuncts (for
        ``∃``); every hypothesis is still checked per value, so iterating over the bounded range
        is equivalent to the quantifier over the whole type."""
        is_all = node.kind == "forall"
        name = node.name
        sep = "→" if is_all else "∧"
        hyps: list[A.Node] = []
        inner_vars: set[str] = set()
        inner_upper: dict[str, A.Node] = {}

        def gather(body: A.Node) -> None:
            # descend through the `→` (∀) / `∧` (∃) chain and through nested quantifiers of the
            # same kind: a hypothesis there that fails for every value outside a range makes the
            # whole body trivially true (∀) / false (∃) outside it
            while True:
                b = body
                while isinstance(b, A.Paren):
                    b = b.term
                if isinstance(b, A.Quant) and b.kind == node.kind and b.bound is None and _is_statement(b.type):
                    # `∀ i (h : i < n), P` / `∃ k, ∃ h : k < n, P`: the binder's statement is a hypothesis
                    hyps.extend(_split_and(b.type))  # type: ignore[arg-type]
                    body = b.body
                    continue
                if isinstance(b, A.Quant) and b.kind == node.kind and b.pattern is None:
                    inner_vars.add(b.name)
                    if b.bound is not None and b.bound[0] in ("<", "≤"):
                        inner_upper[b.name] = b.bound[1]
                    elif b.bound is not None and b.bound[0] == "∈":
                        pass
                    body = b.body
                    continue
                if isinstance(b, A.BinOp) and b.op == sep:
                    h = b.lhs
                    while isinstance(h, A.Paren):
                        h = h.term
                    if isinstance(h, A.Ascription) and isinstance(h.term, A.Ident):
                        h = h.type
                    hyps.extend(_split_and(h))
                    body = b.rhs
                    continue
                if not is_all and isinstance(b, A.BinOp) and b.op == "∧":
                    pass
                break

        gather(node.body)
        for h in hyps:
            # inner variables' own upper bounds, for chains like `i < j → j < n`
            if isinstance(h, A.BinOp):
                for v in inner_vars:
                    if v in inner_upper:
                        continue
                    if _is_var(h.lhs, v) and h.op in ("<", "≤") and not _mentions_any(h.rhs, inner_vars | {name}):
                        inner_upper[v] = h.rhs
                    elif _is_var(h.rhs, v) and h.op in (">", "≥") and not _mentions_any(h.lhs, inner_vars | {name}):
                        inner_upper[v] = h.lhs

        def closed(e: A.Node) -> bool:
            return not _mentions(e, name) and not _mentions_any(e, inner_vars)

        def via_inner(e: A.Node) -> A.Node | None:
            # `i < j` with `j` bounded by `u`: `i ≤ u` (a looser bound is still exact, see above)
            e0 = e
            while isinstance(e0, A.Paren):
                e0 = e0.term
            if isinstance(e0, A.Ident) and e0.name in inner_upper:
                u = inner_upper[e0.name]
                if closed(u):
                    return u
            return None

        upper: A.Node | None = None
        upper_incl = 0
        member: A.Node | None = None
        lower: A.Node | None = None
        lower_incl = 0
        for h in hyps:
            if not isinstance(h, A.BinOp):
                continue
            lhs_is = _is_var(h.lhs, name)
            rhs_is = _is_var(h.rhs, name)
            if h.op == "∈" and lhs_is and closed(h.rhs):
                member = member or h.rhs
            cand: tuple[A.Node, int] | None = None
            if lhs_is and h.op in ("<", "≤"):
                cand = (h.rhs, 1 if h.op == "≤" else 0)
            elif rhs_is and h.op in (">", "≥"):
                cand = (h.lhs, 1 if h.op == "≥" else 0)
            elif h.op in ("<", "≤") and _is_nat_sum_with(h.lhs, name, self, sc, vty):
                # `i + k ≤ n` with `i k : Nat` bounds `i ≤ n`
                cand = (h.rhs, 1)
            if cand is not None and upper is None:
                if closed(cand[0]):
                    upper, upper_incl = cand
                else:
                    u = via_inner(cand[0])
                    if u is not None:
                        upper, upper_incl = u, 1
            if rhs_is and h.op in ("<", "≤") and closed(h.lhs) and lower is None:
                lower, lower_incl = h.lhs, (0 if h.op == "≤" else 1)
            if lhs_is and h.op in (">", "≥") and closed(h.rhs) and lower is None:
                lower, lower_incl = h.rhs, (0 if h.op == "≥" else 1)
        if member is None and upper is None and vty is None and _used_as_exponent(node.body, name):
            # `b ^ i`: Lean's `HPow` instances for Nat/Int bases take a `Nat` exponent, so an
            # unannotated binder used as an exponent elaborates to `Nat`
            vty = NAT
        q_scope, _ = self._bind_q(sc, name, vty, member, upper)
        inner_slot = self._last_slot
        whole = self.compile(node.body, q_scope, PROP)
        if member is not None:
            coll = self.compile(member, sc, None)

            def run_mem(fr: list[Any]) -> Any:
                for x in _members(coll(fr), node):
                    fr[inner_slot] = x
                    if whole(fr) != is_all:
                        return not is_all
                return is_all

            return run_mem
        if upper is None:
            if vty is not None and head(vty) in ("Nat", "Int"):
                fallback = self._witness_search(node, inner_slot, whole, head(vty) == "Nat")
            else:
                message = f"unbounded quantifier over {name} at {node.line}:{node.col}"

                def fallback(fr: list[Any]) -> Any:
                    raise Undecidable(message)
            if node.pattern is None:
                finite = self._finite_candidates(node, sc, q_scope, vty)
                if finite is not None:
                    return self._run_candidates(finite, inner_slot, whole, is_all, fallback)
            return fallback
        ut = self.stype(upper, sc)
        vt = vty or ut
        if vt is not None and head(vt) not in ("Nat", "Int"):
            raise Undecidable(f"quantifier over {vt} at {node.line}:{node.col}")
        up = self.compile(upper, sc, vt)
        lo = self.compile(lower, sc, vt) if lower is not None else None
        declared_nat = vty is not None and head(vty) == "Nat"
        declared_int = vty is not None and head(vty) == "Int"

        def run_range(fr: list[Any]) -> Any:
            n = up(fr)
            if isinstance(n, bool) or not isinstance(n, int):
                raise Undecidable(f"quantifier bound of type {type_name_of(n)}")
            is_nat = declared_nat or (not declared_int and isinstance(n, Nat))
            if is_nat:
                start = 0
                if lo is not None:
                    start = max(0, int(lo(fr)) + lower_incl)
                mk: Any = Nat
            else:
                if lo is None:
                    # infinitely many integers below the bound: only a witness search can answer
                    return int_search(fr)
                start = int(lo(fr)) + lower_incl
                mk = int
            stop = int(n) + upper_incl
            b = comp_budget
            for i in range(start, stop):
                b.tick -= 1
                if b.tick < 0:
                    b.refill()
                fr[inner_slot] = mk(i)
                if whole(fr) != is_all:
                    return not is_all
            return is_all

        comp_budget = self.budget
        int_search = self._witness_search(node, inner_slot, whole, False)
        return run_range

    # -- unbounded quantifiers with a finite set of candidates -------------------------------
    def _run_candidates(self, finite: Callable[[list[Any]], list[Any] | None], slot: int, whole: Closure,
                        is_all: bool, fallback: Closure) -> Closure:
        budget = self.budget

        def run_finite(fr: list[Any]) -> Any:
            candidates = finite(fr)
            if candidates is None:
                return fallback(fr)
            for value in candidates:
                budget.tick -= 1
                if budget.tick < 0:
                    budget.refill()
                fr[slot] = value
                if whole(fr) != is_all:
                    return not is_all
            return is_all

        return run_finite

    def _finite_candidates(self, node: A.Quant, sc: Scope, q_scope: Scope,
                           vty: LeanType | None) -> Callable[[list[Any]], list[Any] | None] | None:
        """Sound reduction of ``∃ x, P x`` / ``∀ x, P x`` over an infinite type to finitely many x.

        Each rule below gives, at run time, a finite list ``C`` of values such that *every*
        witness of the ``∃`` (every counterexample of the ``∀``, i.e. every witness of ``¬ P``)
        lies in ``C``. Then ``∃ x, P x`` is ``∃ x ∈ C, P x`` and ``∀ x, P x`` is ``∀ x ∈ C, P x``,
        exactly, and the body is evaluated on ``C`` only (the body itself is still checked, so a
        rule only has to be right about what it excludes). The rules read *falsifier conjuncts*:
        for ``∃`` the conjuncts of the body, which every witness makes true; for ``∀`` the
        hypotheses of its ``→`` chain and, when the conclusion is ``¬ Q`` or ``a ≠ b``, the
        conjuncts of ``Q`` or ``a = b``, which every counterexample makes true.

        * one-point: a conjunct ``x = E`` / ``E = x`` with ``E`` free of ``x`` leaves ``C = [E]``
          (any type: equality means the value is ``E``'s);
        * linear: ``a = c * x`` (either side, either factor order) with ``x : Nat/Int`` and ``a``,
          ``c`` exact integers, ``c ≠ 0``: ``c * x = a`` has the one solution ``a / c`` when ``c``
          divides ``a`` and none otherwise (integer multiplication is exact and cancellable);
        * power: ``b ^ x = a`` (or a user definition that is exactly ``b ^ x``, see
          :func:`_is_power_def`) with ``x : Nat`` and ``|b| ≥ 2``: ``|b ^ x| = |b| ^ x`` grows
          strictly, so a solution has ``|b| ^ x ≤ |a|``;
        * a conjunct that does not mention ``x`` and is false: ``C = []``;
        * division by a power: when every occurrence of ``x : Nat`` in the body is inside terms
          ``A / b ^ x`` of type Nat or Int, with ``A ≥ 0`` and ``b ≥ 2`` exact integers: from the
          first ``k`` with ``b ^ k > A`` on, each such term is ``0`` (every Lean integer division
          of ``0 ≤ A < m`` by ``m`` is ``0``), so the body's value for ``x ≥ k`` is its value at
          ``k`` and ``C = [0..k]`` decides the quantifier.

        When no rule applies to the values at hand the quantifier falls back to the witness
        search (or stays undecidable)."""
        name = node.name
        is_all = node.kind == "forall"
        conjuncts = _falsifier_conjuncts(node.body, is_all)
        kind = head(vty) if vty is not None else None
        rules: list[Callable[[list[Any]], list[Any] | None]] = []
        for conj in conjuncts:
            c0 = conj
            while isinstance(c0, A.Paren):
                c0 = c0.term
            if not _mentions(c0, name):
                rules.append(self._rule_false_conjunct(c0, sc))
                continue
            if not (isinstance(c0, A.BinOp) and c0.op in ("=", "==")):
                continue
            for lhs, rhs in ((c0.lhs, c0.rhs), (c0.rhs, c0.lhs)):
                if _mentions(rhs, name):
                    continue
                # the arithmetic rules need the equation in Nat or Int (exact, unbounded): the
                # side free of x must be statically one of them (not Fin, UIntN, Float...)
                exact_side = isinstance(rhs, A.NumLit) or self.stype(rhs, sc) in (NAT, INT)
                if c0.op == "=" and _is_var(lhs, name):
                    rule = self._rule_one_point(rhs, sc, vty)
                    if rule is not None:
                        rules.append(rule)
                    continue
                if kind in ("Nat", "Int") and exact_side:
                    factor = _linear_factor(lhs, name)
                    if factor is not None:
                        # the equation is computed in Int when any of its leaves is an Int
                        leaves: list[A.Node] = []
                        _arith_leaves(c0.lhs, leaves)
                        _arith_leaves(c0.rhs, leaves)
                        in_int = kind == "Int" or any(
                            isinstance(leaf, A.UnOp) and leaf.op == "-" or self.stype(leaf, q_scope) == INT
                            for leaf in leaves)
                        rules.append(self._rule_linear(rhs, factor, sc, INT if in_int else NAT, kind == "Nat"))
                        continue
                if kind == "Nat" and exact_side:
                    base = self._power_base(lhs, name, sc)
                    if base is not None:
                        rules.append(self._rule_power(rhs, base, sc))
        if kind == "Nat":
            divisions: list[A.BinOp] = []
            if (_only_in_power_divisions(node.body, name, divisions) and divisions
                    and all(self._computed_in_integers(node.body, d, q_scope) for d in divisions)):
                rules.append(self._rule_power_division(divisions, sc))
        if not rules:
            return None

        def candidates(fr: list[Any]) -> list[Any] | None:
            best: list[Any] | None = None
            for rule in rules:
                try:
                    found = rule(fr)
                except (Undecidable, Unsupported):
                    continue  # a rule that cannot be evaluated here excludes nothing
                if found is not None and (best is None or len(found) < len(best)):
                    best = found
                    if not best:
                        break
            return best

        return candidates

    def _exact_int_closure(self, term: A.Node, sc: Scope, ty: LeanType | None) -> Closure:
        c = self.compile(term, sc, ty)
        return _coercer(c, ty, self.gen) if ty is not None and _needs_int(ty) else c

    def _rule_false_conjunct(self, conj: A.Node, sc: Scope) -> Callable[[list[Any]], list[Any] | None]:
        c = self.compile(conj, sc, PROP)

        def rule(fr: list[Any]) -> list[Any] | None:
            try:
                value = c(fr)
            except (Undecidable, Unsupported):
                return None
            return [] if value is False else None

        return rule

    def _rule_one_point(self, term: A.Node, sc: Scope, vty: LeanType | None) -> Callable[[list[Any]], list[Any] | None] | None:
        # the binder's declared type only: an inferred one could differ from Lean's elaboration
        ty = vty
        if ty is None or not is_known(ty):
            return None
        c = self._exact_int_closure(term, sc, ty)
        is_nat = head(ty) == "Nat"

        def rule(fr: list[Any]) -> list[Any] | None:
            value = c(fr)
            if is_nat:
                if not _exact_int(value) or value < 0:
                    return None
                return [Nat(value)]
            return [value]

        return rule

    def _rule_linear(self, total: A.Node, factor: A.Node, sc: Scope, eq_type: LeanType,
                     is_nat: bool) -> Callable[[list[Any]], list[Any] | None]:
        a_c = self._exact_int_closure(total, sc, eq_type)
        c_c = self._exact_int_closure(factor, sc, eq_type)

        def rule(fr: list[Any]) -> list[Any] | None:
            a, c = a_c(fr), c_c(fr)
            if not (_exact_int(a) and _exact_int(c)) or c == 0:
                return None
            if a % c != 0:
                return []
            q = a // c  # exact, so the rounding convention does not matter
            if is_nat:
                return [Nat(q)] if q >= 0 else []
            return [int(q)]

        return rule

    def _rule_power(self, total: A.Node, base: A.Node, sc: Scope) -> Callable[[list[Any]], list[Any] | None]:
        a_c = self.compile(total, sc, None)
        b_c = self.compile(base, sc, None)

        def rule(fr: list[Any]) -> list[Any] | None:
            a, b = a_c(fr), b_c(fr)
            if not (_exact_int(a) and _exact_int(b)) or abs(b) < 2:
                return None
            out: list[Any] = []
            p = 1
            while p <= abs(a):
                out.append(Nat(len(out)))
                p *= abs(b)
            return out

        return rule

    def _rule_power_division(self, divisions: list[A.BinOp], sc: Scope) -> Callable[[list[Any]], list[Any] | None]:
        parts: list[tuple[Closure, Closure]] = []
        for d in divisions:
            num = d.lhs
            pw = d.rhs
            while isinstance(pw, A.Paren):
                pw = pw.term
            assert isinstance(pw, A.BinOp)
            parts.append((self.compile(num, sc, self.stype(num, sc)), self.compile(pw.lhs, sc, None)))

        def rule(fr: list[Any]) -> list[Any] | None:
            k_max = 0
            for num_c, base_c in parts:
                a, b = num_c(fr), base_c(fr)
                if not (_exact_int(a) and _exact_int(b)) or a < 0 or b < 2:
                    return None
                k, p = 0, 1
                while p <= a:
                    k += 1
                    p *= b
                k_max = max(k_max, k)
            return [Nat(i) for i in range(k_max + 1)]

        return rule

    def _computed_in_integers(self, body: A.Node, target: A.Node, sc: Scope) -> bool:
        """Whether the arithmetic term ``target`` inside ``body`` is computed in Nat or Int.

        Lean elaborates an arithmetic tree (``+ - * / %`` and parentheses) together with the other
        side of the relation it sits in (``binop%``), so every leaf of that relation decides the
        type. Required: ``target``'s tree is an operand of a relation, and every leaf of the
        relation is a numeral, a power of Nat/Int values, or a term statically of type Nat or Int
        (a leaf of type Rat or Float would move the division out of the integers)."""
        path = _path_to(body, target)
        if path is None:
            return False
        relation: A.BinOp | None = None
        for anc in reversed(path[:-1]):
            if isinstance(anc, A.Paren) or (isinstance(anc, A.BinOp) and anc.op in ARITH_OPS):
                continue
            if isinstance(anc, A.BinOp) and anc.op in REL_OPS:
                relation = anc
            break
        if relation is None:
            return False
        leaves: list[A.Node] = []
        _arith_leaves(relation.lhs, leaves)
        _arith_leaves(relation.rhs, leaves)
        for leaf in leaves:
            if isinstance(leaf, A.NumLit):
                continue
            if isinstance(leaf, A.BinOp) and leaf.op == "^":
                base = leaf.lhs
                while isinstance(base, A.Paren):
                    base = base.term
                if isinstance(base, A.NumLit) or self.stype(base, sc) in (NAT, INT):
                    continue
                return False
            if self.stype(leaf, sc) not in (NAT, INT):
                return False
        return True

    def _power_base(self, term: A.Node, name: str, sc: Scope) -> A.Node | None:
        """``b`` when ``term`` is ``b ^ x`` or ``f b x`` for a user ``f`` that is exactly ``b ^ x``."""
        t = term
        while isinstance(t, A.Paren):
            t = t.term
        if isinstance(t, A.BinOp) and t.op == "^" and _is_var(t.rhs, name) and not _mentions(t.lhs, name):
            return t.lhs
        if (isinstance(t, A.App) and isinstance(t.fn, A.Ident) and len(t.args) == 2
                and t.fn.name not in sc.vars and _is_var(t.args[1], name) and not _mentions(t.args[0], name)):
            d = self.find_def(t.fn.name, sc)
            if d is not None and _is_power_def(d):
                return t.args[0]
        return None

    _last_slot = 0
    #: nesting depth of running witness searches (a search inside a search's body gets fewer
    #: candidates, so nested unbounded quantifiers cost at most the product of the two limits)
    _search_depth = 0

    def _witness_search(self, node: A.Quant, slot: int, whole: Closure, is_nat: bool) -> Closure:
        """Sound partial decision of ``∃ x, P x`` / ``∀ x, P x`` over all of ``Nat`` or ``Int``.

        Lean has no ``Decidable`` instance for these, but a witness proves the ``∃`` and a
        counterexample refutes the ``∀``. Candidates are tried in a fixed order (Nat: 0, 1, 2, ...;
        Int: 0, 1, -1, 2, -2, ...); a candidate whose body is itself undecided or unsupported
        tells nothing and is skipped. Finding nothing is never an answer: the quantifier stays
        :class:`Undecidable`, so an enclosing ``¬``/``→`` cannot turn "no witness found" into a
        truth value."""
        is_all = node.kind == "forall"
        name = node.name
        decisive = not is_all  # the body value that settles the quantifier
        budget = self.budget
        compiler = self

        def run_search(fr: list[Any]) -> Any:
            limit = UNBOUNDED_SEARCH_CANDIDATES if compiler._search_depth == 0 else NESTED_SEARCH_CANDIDATES
            compiler._search_depth += 1
            undecided = 0
            tried = 0
            stopped = ""
            steps_at_start = budget.used()
            try:
                for idx in range(limit):
                    budget.tick -= 1
                    if budget.tick < 0:
                        budget.refill()
                    if budget.used() - steps_at_start > SEARCH_STEP_ALLOWANCE:
                        stopped = f", stopped after {SEARCH_STEP_ALLOWANCE} evaluation steps"
                        break
                    if is_nat:
                        fr[slot] = Nat(idx)
                    else:
                        half = (idx + 1) // 2
                        fr[slot] = half if idx % 2 == 1 else -half
                    try:
                        holds = whole(fr)
                    except (Undecidable, Unsupported):
                        undecided += 1
                        tried += 1
                        continue
                    except RecursionError:
                        # candidates grow: a body too deep for this one is too deep for the next
                        stopped = f", stopped at {name} = {int(fr[slot])} (recursion too deep)"
                        break
                    tried += 1
                    if holds is decisive:
                        return decisive
            finally:
                compiler._search_depth -= 1
            what = "counterexample" if is_all else "witness"
            if tried == 0:
                among = "no candidate"
            elif is_nat:
                among = f"{name} = 0..{tried - 1}"
            else:
                # candidates 0, 1, -1, 2, -2, ...: the first `tried` of them span this range
                among = f"{name} = {-((tried - 1) // 2)}..{tried // 2}"
            note = f", body undecided for {undecided} of them" if undecided else ""
            raise Undecidable(
                f"unbounded {'∀' if is_all else '∃'} over {name} at {node.line}:{node.col}: "
                f"no {what} among {among}{note}{stopped}"
            )

        return run_search

    def _bind_q(self, sc: Scope, name: str, vty: LeanType | None, member: A.Node | None,
                upper: A.Node | None) -> tuple[Scope, LeanType]:
        t = vty
        if t is None and member is not None:
            t = elem_type(self.stype(member, sc))
        if t is None and upper is not None:
            t = self.stype(upper, sc)
        inner, slot = sc.bind(name, t)
        self._last_slot = slot
        return inner, PROP


def _split_and(h: A.Node) -> list[A.Node]:
    while isinstance(h, A.Paren):
        h = h.term
    if isinstance(h, A.BinOp) and h.op == "∧":
        return _split_and(h.lhs) + _split_and(h.rhs)
    return [h]


def _path_to(node: Any, target: A.Node) -> list[Any] | None:
    """The chain of nodes from ``node`` down to ``target`` (both included), or None."""
    if node is target:
        return [node]
    children: list[Any] = []
    if isinstance(node, (list, tuple)):
        children = list(node)
    elif isinstance(node, A.Node):
        from dataclasses import fields

        children = [getattr(node, f.name) for f in fields(node)]
    for child in children:
        if isinstance(child, (A.Node, list, tuple)):
            sub = _path_to(child, target)
            if sub is not None:
                return sub if isinstance(node, (list, tuple)) else [node, *sub]
    return None


def _arith_leaves(node: A.Node, out: list[A.Node]) -> None:
    """The operands of an arithmetic tree (``^`` terms are leaves, as in Lean's ``binop%``)."""
    while isinstance(node, A.Paren):
        node = node.term
    if isinstance(node, A.BinOp) and node.op in ARITH_OPS:
        _arith_leaves(node.lhs, out)
        _arith_leaves(node.rhs, out)
    else:
        out.append(node)


def _exact_int(v: Any) -> bool:
    """An unbounded integer value (Lean ``Nat``/``Int``), not a Bool or a fixed-width integer."""
    return type(v) is int or type(v) is Nat


def _falsifier_conjuncts(body: A.Node, is_all: bool) -> list[A.Node]:
    """Conjuncts every witness of ``∃ x, body`` (every counterexample of ``∀ x, body``) satisfies."""
    b = body
    while isinstance(b, A.Paren):
        b = b.term
    if not is_all:
        return _split_and(b)
    out: list[A.Node] = []
    while isinstance(b, A.BinOp) and b.op == "→":
        out.extend(_split_and(b.lhs))
        b = b.rhs
        while isinstance(b, A.Paren):
            b = b.term
    if isinstance(b, A.UnOp) and b.op == "¬":
        out.extend(_split_and(b.arg))
    elif isinstance(b, A.BinOp) and b.op == "≠":
        out.append(A.BinOp(b.line, b.col, "=", b.lhs, b.rhs))
    return out


def _linear_factor(term: A.Node, name: str) -> A.Node | None:
    """``c`` when ``term`` is ``c * x`` or ``x * c`` with ``c`` free of ``x``."""
    t = term
    while isinstance(t, A.Paren):
        t = t.term
    if isinstance(t, A.BinOp) and t.op == "*":
        if _is_var(t.rhs, name) and not _mentions(t.lhs, name):
            return t.lhs
        if _is_var(t.lhs, name) and not _mentions(t.rhs, name):
            return t.rhs
    return None


def _only_in_power_divisions(node: Any, name: str, found: list[A.BinOp]) -> bool:
    """Whether every occurrence of ``name`` in ``node`` is the exponent of a ``A / b ^ name`` with
    ``A`` and ``b`` free of it (those divisions are collected in ``found``)."""
    if isinstance(node, A.BinOp) and node.op == "/":
        pw = node.rhs
        while isinstance(pw, A.Paren):
            pw = pw.term
        if (isinstance(pw, A.BinOp) and pw.op == "^" and _is_var(pw.rhs, name)
                and not _mentions(pw.lhs, name) and not _mentions(node.lhs, name)):
            found.append(node)
            return True
    if isinstance(node, A.Ident):
        return not (node.name == name or node.name.startswith(name + "."))
    if isinstance(node, _BINDING_NODES):
        # a construct that binds names could shadow `name`: refuse rather than reason about scopes
        return not _mentions(node, name)
    return all(_only_in_power_divisions(sub, name, found) for sub in A.subterms(node))


_BINDING_NODES = (A.Quant, A.Lambda, A.LambdaMatch, A.Let, A.LetRec, A.Match, A.Do, A.IfLet)


def _is_power_def(d: UserDef) -> bool:
    """Whether a user definition is, by its text, exactly ``base ^ exp`` on Nat or Int::

        def f (base : Int) (exp : Nat) : Int :=
          match exp with
          | 0 => 1
          | n + 1 => base * f base n      -- or `f base n * base`

    (by induction on ``exp`` it computes ``base ^ exp``; any other shape is not recognised)."""
    cmd = d.cmd
    params = [(n, b) for b in cmd.binders if b.kind == "explicit" for n in b.names]
    if len(params) != 2 or cmd.body is None or cmd.alts is not None:
        return False
    (base, bb), (exp, eb) = params
    if bb.type_text.strip() not in ("Int", "Nat") or eb.type_text.strip() != "Nat":
        return False
    if cmd.type_text.strip() != bb.type_text.strip():
        return False
    body = cmd.body
    while isinstance(body, A.Paren):
        body = body.term
    if not (isinstance(body, A.Match) and len(body.discrs) == 1 and _is_var(body.discrs[0], exp)
            and len(body.alts) == 2):
        return False
    zero, succ = body.alts
    if not (len(zero.patterns) == 1 and isinstance(zero.patterns[0], A.NumLit) and zero.patterns[0].value == 0):
        return False
    zr = zero.rhs
    while isinstance(zr, A.Paren):
        zr = zr.term
    if not (isinstance(zr, A.NumLit) and zr.value == 1):
        return False
    sp = succ.patterns[0] if len(succ.patterns) == 1 else None
    while isinstance(sp, A.Paren):
        sp = sp.term
    if not (isinstance(sp, A.BinOp) and sp.op == "+" and isinstance(sp.lhs, A.Ident)
            and isinstance(sp.rhs, A.NumLit) and sp.rhs.value == 1):
        return False
    pred = sp.lhs.name
    if pred in (base, exp):
        return False
    rhs = succ.rhs
    while isinstance(rhs, A.Paren):
        rhs = rhs.term
    if not (isinstance(rhs, A.BinOp) and rhs.op == "*"):
        return False
    short = cmd.name.rsplit(".", 1)[-1]

    def is_rec_call(t: A.Node) -> bool:
        while isinstance(t, A.Paren):
            t = t.term
        return (isinstance(t, A.App) and isinstance(t.fn, A.Ident) and t.fn.name in (cmd.name, d.name, short)
                and len(t.args) == 2 and _is_var(t.args[0], base) and _is_var(t.args[1], pred))

    return (_is_var(rhs.lhs, base) and is_rec_call(rhs.rhs)) or (is_rec_call(rhs.lhs) and _is_var(rhs.rhs, base))


def _used_as_exponent(node: Any, name: str) -> bool:
    """Whether ``name`` occurs as the exponent of a ``^`` somewhere in ``node``."""
    if isinstance(node, A.BinOp) and node.op == "^" and _is_var(node.rhs, name):
        return True
    return any(_used_as_exponent(sub, name) for sub in A.subterms(node))


def _is_var(n: A.Node, name: str) -> bool:
    while isinstance(n, A.Paren):
        n = n.term
    return isinstance(n, A.Ident) and n.name == name


def _mentions(node: Any, name: str) -> bool:
    if isinstance(node, A.Ident):
        return node.name == name or node.name.startswith(name + ".")
    return any(_mentions(sub, name) for sub in A.subterms(node))


def _mentions_any(node: Any, names: set[str]) -> bool:
    return any(_mentions(node, n) for n in names)


def _is_nat_sum_with(e: A.Node, name: str, comp: StaticTypesMixin, sc: Scope, vty: LeanType | None) -> bool:
    """``name + k`` (or ``k + name``) where ``name`` is a Nat variable and ``k`` is statically Nat."""
    while isinstance(e, A.Paren):
        e = e.term
    if not (isinstance(e, A.BinOp) and e.op == "+"):
        return False
    if vty is not None and head(vty) != "Nat":
        return False
    for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
        if _is_var(a, name) and not _mentions(b, name):
            return isinstance(b, A.NumLit) or comp.stype(b, sc) == NAT
    return False


_RELATIONS = frozenset({"<", "≤", ">", "≥", "=", "≠", "∧", "∨", "↔", "∈", "∉", "→"})


def _is_statement(ty: A.Node | None) -> bool:
    """A binder type that is a proposition written as a relation (``i < a.size``), so the bound
    name is a proof, not a value."""
    while isinstance(ty, A.Paren):
        ty = ty.term
    return (isinstance(ty, A.BinOp) and ty.op in _RELATIONS) or (isinstance(ty, A.UnOp) and ty.op == "¬")
