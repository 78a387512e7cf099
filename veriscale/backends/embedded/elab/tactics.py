"""Every proof outside a theorem is checked against its proposition, or is a gap -- never trusted.

Proofs occur in definitions as the bound of ``xs[i]'p``, ``h_precond`` arguments of calls,
fields of anonymous constructors, ascriptions ``(p : P)`` and ``have`` facts. :meth:`TacticsMixin.prove`
judges ``p`` against the expected proposition ``P`` three ways: accepted (Lean accepts it too), an
error with Lean's message (Lean rejects it), or a gap naming why the engine cannot tell.

Proof terms (Lean elaborates them against ``P`` and demands a definitionally equal type,
``Lean.Elab.Term.ensureHasType``/``isDefEq``):

* a hypothesis ``h``, its ``And`` projections ``h.1``/``h.2``, a declared lemma applied to proofs
  (:mod:`.proofs`), ``trivial`` for ``True``: accepted when the statement is ``P`` after unfolding
  reducible definitions and notation (``>``/``≥`` are reducible); an error ("type mismatch") when
  the two statements are linear comparisons over free ``Nat`` variables that some small valuation
  tells apart -- then they are not equivalent, so not definitionally equal; otherwise a gap.

Tactic blocks ``by tac`` (one tactic; the ``apply L``/``exact t`` scripts of :mod:`.proofs`):

* ``omega`` (``Lean/Elab/Tactic/Omega/Frontend.lean``: ``omegaTactic`` takes every hypothesis of
  the local context, ``getLocalHyps``, reads each after ``whnfR`` -- so ``@[reducible]``
  definitions unfold -- as linear facts over ``Nat``/``Int`` atoms, and refutes the negated goal):
  the prover of :mod:`.arith` over the hypotheses in scope. Proved: accepted. A small counter-model
  over free variables that satisfies every hypothesis the engine reads, while the hypotheses it
  cannot read mention none of them: the error "omega could not prove the goal". Otherwise a gap.
* ``decide`` (``Lean.Elab.Tactic.evalDecide``: evaluates the ``Decidable`` instance; "tactic
  'decide' proved that the proposition … is false"): a closed proposition over numerals and
  literal collections is evaluated here; anything else is a gap.
* ``rfl`` on a closed ``a = b`` (``Eq.refl`` needs ``a`` and ``b`` definitionally equal, which
  closed numeral arithmetic is exactly when the values agree); ``trivial``
  (``Init/Tactics.lean``: its ``macro_rules`` try ``rfl``, ``assumption``, ``decide``,
  ``True.intro`` and ``And.intro <;> trivial``) on a closed proposition; ``assumption``
  (``Lean.MVarId.assumption``: a hypothesis whose type is definitionally equal to the goal);
  ``exact t`` as a proof term above.
* ``simp``/``simp [d, …]``/``simp only [d, …]``/``simp_all`` on a goal that becomes ``True`` by
  unfolding definitions in the simp set (``@[simp]``-tagged, unless ``only``, or listed): accepted
  (``simpTargetCore`` closes a target simplified to ``True``). Any other ``simp``, and ``linarith``,
  ``aesop``, ``norm_num``, combinators and anything else: a gap ("cannot tell whether `simp`
  proves …"); the engine does not model their rule sets.

Numerals in a closed proposition are read as ``Nat`` or ``Int`` alike: the evaluation refuses
``-`` (where the two differ), so either reading gives the same truth value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.arith import Goal, decide_lt
from veriscale.backends.embedded.elab.context import Ctx, ProofType
from veriscale.backends.embedded.elab.proofs import (
    ProofError,
    ProofsMixin,
    check_script,
    infer_prop,
    normal_prop,
)
from veriscale.backends.embedded.elab.types import Gap, MVar, show, zonk
from veriscale.backends.embedded.lemmas import lemma
from veriscale.lean.types import LeanType

VerdictKind = Literal["accepted", "error", "gap"]


@dataclass(frozen=True, slots=True)
class ProofVerdict:
    kind: VerdictKind
    message: str = ""


ACCEPTED = ProofVerdict("accepted")

_SIZE_FUNCTIONS = {"Array.size": "size", "List.length": "length", "String.length": "length"}
_NO_MODEL_TACTICS = ("simp", "simp_all", "linarith", "nlinarith", "aesop", "norm_num", "positivity",
                     "grind", "simp_arith", "exact?", "tauto")


class TacticsMixin(ProofsMixin):
    """The proof checker; the hook :meth:`ElabCore.prove` reports its verdict."""

    def prove(self, proof: A.Node, goal: A.Node, ctx: Ctx) -> None:
        verdict = self.judge_proof(proof, goal, ctx)
        if verdict.kind == "error":
            self.error(proof, verdict.message, "proof")
        elif verdict.kind == "gap":
            self.gap(proof, verdict.message, "proof")

    def judge_proof(self, proof: A.Node, goal: A.Node, ctx: Ctx) -> ProofVerdict:
        target = A.unparen(proof)
        if self.proof_sensitive_instances(ctx):
            # the goal's `+`/`<` may be a local instance's, which no tactic reads as the global one
            return ProofVerdict("gap", f"cannot tell whether the proof of `{A.lean_syntax(goal)}` holds with a local "
                                       "arithmetic or order instance in scope")
        want = self.canonical_prop(goal)
        if isinstance(target, A.ProofTerm):
            simp = self._simp_closes(target.text, goal)
            if simp is not None:
                return simp
            return self._judge_script(target.text, want, ctx)
        return self._judge_term(target, want, ctx)

    # -- statements -----------------------------------------------------------------------------
    def canonical_prop(self, prop: A.Node) -> A.Node:
        """``prop`` as compared here: reducible definitions unfolded at the head (as ``whnfR``
        and ``isDefEq`` do), notation unfolded (:func:`.proofs.normal_prop`), sizes written one way."""
        for _ in range(8):
            unfolded = self.unfold_fact(A.unparen(prop))  # type: ignore[attr-defined]
            if unfolded is A.unparen(prop):
                break
            prop = unfolded
        return _canonical_sizes(normal_prop(prop))

    def hypotheses(self, ctx: Ctx) -> list[A.Node]:
        """The statements of the hypotheses in the local context (named and anonymous), canonical."""
        seen: dict[str, A.Node] = {}
        props = [f.prop for f in ctx.facts]
        props += [t.prop for d in ctx.locals if isinstance(t := zonk(d.type), ProofType)]
        for prop in props:
            c = self.canonical_prop(prop)
            seen.setdefault(A.sexpr(c), c)
        return list(seen.values())

    def _free(self, ctx: Ctx) -> Callable[[str], bool]:
        def free(name: str) -> bool:
            decl = ctx.lookup(name)
            return decl is not None and decl.kind in ("var", "pattern")

        return free

    def _nat_prop(self, prop: A.Node, ctx: Ctx) -> bool:
        """A comparison/connective tree all of whose terms are known ``Nat`` terms."""
        is_nat = self._nat_term_checker(ctx)
        prop = A.unparen(prop)
        if isinstance(prop, A.BinOp) and prop.op in ("∧", "∨", "→"):
            return self._nat_prop(prop.lhs, ctx) and self._nat_prop(prop.rhs, ctx)
        if isinstance(prop, A.UnOp) and prop.op == "¬":
            return self._nat_prop(prop.arg, ctx)
        if isinstance(prop, A.BinOp) and prop.op in ("<", "≤", "=", "≠"):
            return is_nat(prop.lhs) and is_nat(prop.rhs)
        return False

    def not_defeq(self, given: A.Node, want: A.Node, ctx: Ctx) -> bool:
        """``given`` and ``want`` (canonical) are surely not definitionally equal: both are ``Nat``
        comparisons and a small valuation of free variables makes one true and the other false
        (definitionally equal propositions are equivalent under every valuation)."""
        g1, g2 = _as_goal(given), _as_goal(want)
        if g1 is None or g2 is None or not (self._nat_prop(given, ctx) and self._nat_prop(want, ctx)):
            return False
        free = self._free(ctx)
        return decide_lt(g2, [given], free=free) == "refuted" or decide_lt(g1, [want], free=free) == "refuted"

    # -- proof terms ----------------------------------------------------------------------------
    def _judge_term(self, term: A.Node, want: A.Node, ctx: Ctx) -> ProofVerdict:
        shown = A.lean_syntax(want)
        if isinstance(term, (A.NumLit, A.StrLit, A.CharLit, A.ListLit, A.ArrayLit)):
            return ProofVerdict("error", f"type mismatch: `{A.lean_syntax(term)}` is data, but a proof of `{shown}` is "
                                         "expected")
        if isinstance(term, A.Ident) and term.name in ("trivial", "True.intro") and ctx.lookup(term.name) is None:
            if shown == "True":
                return ACCEPTED
            return ProofVerdict("gap", f"cannot tell whether `{term.name}` proves `{shown}`")
        if isinstance(term, A.Ident) and lemma(term.name) is None:
            local = ctx.lookup(term.name.split(".")[0])
            if local is None:
                return ProofVerdict("gap", f"the proof `{term.name}` is not a hypothesis in scope")
            t = zonk(local.type)
            if not isinstance(t, ProofType) and "." in term.name:
                return self._judge_field_proof(term.name, t, want)
            if not isinstance(t, ProofType):
                if not isinstance(t, (Gap, MVar)) and not self.is_prop(t):
                    return ProofVerdict("error", f"type mismatch: `{term.name}` has type {show(t)} but a proof of "
                                                 f"`{shown}` is expected")
                return ProofVerdict("gap", f"cannot tell what `{term.name}` proves")
            got = self._projected(term.name, t.prop)
            if got is None:
                return ProofVerdict("gap", f"`{term.name}` is not an `And` projection of a known statement")
        else:
            try:
                got = _canonical_sizes(infer_prop(term, ctx, self._nat_term_checker(ctx), want))
            except ProofError as exc:
                return ProofVerdict("gap", f"the proof of `{shown}` is not checked: {exc}")
        if A.sexpr(got) == A.sexpr(want):
            return ACCEPTED
        if self.not_defeq(got, want, ctx):
            return ProofVerdict("error", f"type mismatch: `{A.lean_syntax(term)}` has type `{A.lean_syntax(got)}` but is expected "
                                         f"to have type `{shown}`")
        return ProofVerdict("gap", f"cannot tell whether `{A.lean_syntax(term)}` (a proof of `{A.lean_syntax(got)}`) proves "
                                   f"`{shown}`")

    def _judge_field_proof(self, name: str, t: LeanType, want: A.Node) -> ProofVerdict:
        """``i.isLt``/``i.2`` for ``i : Fin n`` proves ``i.val < n`` (``structure Fin``'s field,
        ``Init/Prelude.lean``), where ``i.val``, ``i.1`` and ``↑i`` are the same term; a field of
        any other value may be a proof the engine does not read: a gap, never an error."""
        from veriscale.backends.embedded.elab.getelem import fin_bound_term, fin_spellings

        root, _, field = name.partition(".")
        bound = fin_bound_term(t)
        shown = A.lean_syntax(want)
        if bound is None or field not in ("isLt", "2"):
            return ProofVerdict("gap", f"cannot tell what `{name}` proves (wanted: `{shown}`)")
        for spelling in fin_spellings(root):
            stated = A.BinOp(want.line, want.col, "<", A.Ident(want.line, want.col, spelling), bound)
            if A.sexpr(self.canonical_prop(stated)) == A.sexpr(want):
                return ACCEPTED
        return ProofVerdict("gap", f"cannot tell whether `{name}` (a proof of `{root}.val < "
                                   f"{A.lean_syntax(bound)}`) proves `{shown}`")

    def _projected(self, name: str, prop: A.Node) -> A.Node | None:
        """The statement of ``h.1.2``: ``And`` projections after unfolding (generalized field
        notation unfolds the head to find the structure ``And``)."""
        _, *fields = name.split(".")
        prop = self.canonical_prop(prop)
        for f in fields:
            if not (isinstance(prop, A.BinOp) and prop.op == "∧") or f not in ("1", "2", "left", "right"):
                return None
            prop = self.canonical_prop(prop.lhs if f in ("1", "left") else prop.rhs)
        return prop

    # -- tactic blocks --------------------------------------------------------------------------
    def _judge_script(self, text: str, want: A.Node, ctx: Ctx) -> ProofVerdict:
        body = text.strip()
        if not body.startswith("by"):
            return ProofVerdict("gap", f"the proof of `{A.lean_syntax(want)}` is not a tactic block the engine reads")
        steps = [s for s in (line.split("--")[0].strip() for line in re.split(r"[\n;]", body[2:])) if s]
        if len(steps) != 1:
            return self._judge_apply_script(text, want, ctx, steps)
        step = steps[0]
        word, _, rest = step.partition(" ")
        rest = rest.strip()
        if word == "omega" and not rest:
            return self._omega(want, ctx)
        if word == "decide" and not rest:
            return self._decide(want)
        if word == "rfl" and not rest:
            return self._rfl(want)
        if word == "trivial" and not rest:
            return self._trivial(want, ctx)
        if word == "assumption" and not rest:
            return self._assumption(want, ctx)
        if word == "exact" and rest:
            from veriscale.backends.embedded.parser.parse import parse_term
            from veriscale.lean.lexer import LeanSyntaxError

            try:
                term = parse_term(rest)
            except LeanSyntaxError as exc:
                return ProofVerdict("gap", f"the tactic `{step}` is not read: {exc}")
            return self._judge_term(A.unparen(term), want, ctx)
        if word.startswith(_NO_MODEL_TACTICS) or word in ("exact?",):
            return ProofVerdict("gap", f"cannot tell whether `{word}` proves `{A.lean_syntax(want)}` (its rule set is not "
                                       "modelled)")
        return self._judge_apply_script(text, want, ctx, steps)

    def _simp_closes(self, text: str, goal: A.Node) -> ProofVerdict | None:
        """``by simp``, ``by simp [d, …]``, ``by simp only [d, …]``, ``by simp_all`` (and its
        lists) on a goal that unfolds to ``True``: accepted. ``simpTargetCore``
        (``Lean/Meta/Tactic/Simp/Main.lean``) closes the goal when the simplified target is
        ``True`` (with ``True.intro`` when it was ``True`` already, so there is no "no progress"
        error); simp unfolds a definition by its equation lemmas only when it is in the simp set:
        tagged ``@[simp]`` (not for ``simp only``) or listed. ``None``: not such a script, or the
        goal does not unfold to ``True`` that way -- the caller's gap then."""
        parsed = _simp_call(text)
        if parsed is None:
            return None
        only, listed = parsed
        prop = A.unparen(goal)
        for _ in range(8):
            if isinstance(prop, A.Ident) and prop.name == "True":
                return ACCEPTED
            unfolded = self._simp_unfold(prop, only, listed)
            if unfolded is None:
                return None
            prop = A.unparen(unfolded)
        return None

    def _simp_unfold(self, prop: A.Node, only: bool, listed: frozenset[str]) -> A.Node | None:
        """``prop`` with its head definition unfolded when simp would unfold it."""
        head_node, arg_nodes = (prop.fn, prop.args) if isinstance(prop, A.App) else (prop, [])
        if not isinstance(head_node, A.Ident):
            return None
        d = self._find_def(head_node.name)  # type: ignore[attr-defined]
        if d is None or d.cmd.body is None:
            return None
        in_set = any(self._find_def(name) is d for name in listed)  # type: ignore[attr-defined]
        if not in_set and (only or "simp" not in d.cmd.modifiers.attributes):
            return None
        params = [n for b in d.cmd.binders if b.kind == "explicit" for n in (b.names or ["_"])]
        if len(params) != len(arg_nodes):
            return None
        from veriscale.backends.embedded.elab.getelem import _substitute

        return _substitute(d.cmd.body, dict(zip(params, arg_nodes)))

    def _judge_apply_script(self, text: str, want: A.Node, ctx: Ctx, steps: list[str]) -> ProofVerdict:
        first = steps[0].split(" ")[0] if steps else ""
        if first == "apply":
            try:
                check_script(text, want, ctx, self._nat_term_checker(ctx))
                return ACCEPTED
            except ProofError as exc:
                return ProofVerdict("gap", f"the proof of `{A.lean_syntax(want)}` is not checked: {exc}")
        return ProofVerdict("gap", f"cannot tell whether `{' '.join(steps)[:60]}` proves `{A.lean_syntax(want)}`")

    def _omega(self, want: A.Node, ctx: Ctx) -> ProofVerdict:
        shown = A.lean_syntax(want)
        goal = _as_goal(want)
        if goal is None or not self._nat_prop(want, ctx):
            return ProofVerdict("gap", f"cannot tell whether `omega` proves `{shown}` (not a `Nat` comparison the "
                                       "engine reads)")
        usable: list[A.Node] = self.fin_facts(ctx, want)  # type: ignore[attr-defined]
        opaque: set[str] = set()
        for hyp in self.hypotheses(ctx):
            if self._nat_prop(hyp, ctx):
                usable.append(hyp)
            else:
                # omega may read it (Int facts, implications): a counter-model must not touch it
                opaque |= A.identifier_roots(hyp)
        verdict = decide_lt(goal, usable, free=self._free(ctx), opaque=frozenset(opaque))
        if verdict == "proved":
            return ACCEPTED
        if verdict == "refuted" and not any(isinstance(zonk(d.type), (Gap, MVar)) for d in ctx.locals):
            # a local of unknown type may be a hypothesis omega reads: no refutation then
            return ProofVerdict("error", f"omega could not prove the goal `{shown}`: no hypothesis in scope implies it "
                                         "(a counterexample satisfies every hypothesis)")
        return ProofVerdict("gap", f"cannot tell whether `omega` proves `{shown}` from the hypotheses in scope")

    def _decide(self, want: A.Node) -> ProofVerdict:
        value = closed_value(want)
        if value is True:
            return ACCEPTED
        if value is False:
            return ProofVerdict("error", f"tactic 'decide' proved that the proposition `{A.lean_syntax(want)}` is false")
        return ProofVerdict("gap", f"cannot tell whether `decide` proves `{A.lean_syntax(want)}` (not a closed proposition "
                                   "the engine evaluates)")

    def _rfl(self, want: A.Node) -> ProofVerdict:
        if isinstance(want, A.BinOp) and want.op == "=":
            lhs, rhs = closed_value(want.lhs), closed_value(want.rhs)
            if lhs is not None and rhs is not None and type(lhs) is type(rhs):
                if lhs == rhs:
                    return ACCEPTED
                return ProofVerdict("error", f"The rfl tactic failed: `{A.lean_syntax(want.lhs)}` and `{A.lean_syntax(want.rhs)}` "
                                             "are not definitionally equal")
        return ProofVerdict("gap", f"cannot tell whether `rfl` proves `{A.lean_syntax(want)}`")

    def _trivial(self, want: A.Node, ctx: Ctx) -> ProofVerdict:
        value = closed_value(want)
        if value is True:
            return ACCEPTED
        if value is False and self._no_hypothesis_matches(want, ctx):
            return ProofVerdict("error", f"`trivial` failed: none of `rfl`, `assumption`, `decide`, `True.intro`, "
                                         f"`And.intro` proves `{A.lean_syntax(want)}`, which is false")
        return ProofVerdict("gap", f"cannot tell whether `trivial` proves `{A.lean_syntax(want)}`")

    def _assumption(self, want: A.Node, ctx: Ctx) -> ProofVerdict:
        if any(A.sexpr(h) == A.sexpr(want) for h in self.hypotheses(ctx)):
            return ACCEPTED
        if self._no_hypothesis_matches(want, ctx):
            return ProofVerdict("error", f"tactic 'assumption' failed: no hypothesis in scope states `{A.lean_syntax(want)}`")
        return ProofVerdict("gap", f"cannot tell whether a hypothesis in scope is `{A.lean_syntax(want)}` up to unfolding")

    def _no_hypothesis_matches(self, want: A.Node, ctx: Ctx) -> bool:
        """No hypothesis in scope can be definitionally equal to ``want`` (and no local of unknown
        type could be one)."""
        if any(isinstance(zonk(d.type), (Gap, MVar)) for d in ctx.locals):
            return False
        return all(self.not_defeq(h, want, ctx) or _definitely_differs(h, want) for h in self.hypotheses(ctx))


_SIMP_CALL = re.compile(r"^by\s+(simp|simp_all)(\s+only)?(?:\s*\[([^\]]*)\])?\s*$")
_SIMP_LEMMA = re.compile(r"^[^\W\d][\w.\'!?]*$")


def _simp_call(text: str) -> tuple[bool, frozenset[str]] | None:
    """``(only, listed names)`` of a one-step ``simp``/``simp_all`` script with an optional lemma
    list of plain names; ``None`` for anything else (``at h``, configuration, ``←``, terms)."""
    m = _SIMP_CALL.match(text.strip())
    if m is None:
        return None
    names = [n.strip() for n in (m.group(3) or "").split(",") if n.strip()]
    if not all(_SIMP_LEMMA.match(n) for n in names):
        return None
    return m.group(2) is not None, frozenset(names)


def _canonical_sizes(node: A.Node) -> A.Node:
    """``Array.size xs``, ``(xs).size`` and ``xs.size`` written as the identifier ``xs.size``."""
    def replace(n: A.Node) -> A.Node | None:
        if isinstance(n, A.App) and isinstance(n.fn, A.Ident) and n.fn.name in _SIZE_FUNCTIONS and len(n.args) == 1:
            arg = A.unparen(n.args[0])
            if isinstance(arg, A.Ident):
                return A.Ident(n.line, n.col, f"{arg.name}.{_SIZE_FUNCTIONS[n.fn.name]}")
        if isinstance(n, A.Proj) and n.field in ("size", "length") and isinstance(A.unparen(n.term), A.Ident):
            return A.Ident(n.line, n.col, f"{A.unparen(n.term).name}.{n.field}")  # type: ignore[attr-defined]
        if isinstance(n, A.Paren):
            return _canonical_sizes(n.term)
        return None

    return A.rewrite(node, replace)


def _as_goal(prop: A.Node) -> Goal | None:
    """A canonical ``a < b`` or ``a ≤ b`` as the goal ``a < b`` / ``a < b + 1`` (over ``Nat``)."""
    if isinstance(prop, A.BinOp) and prop.op == "<":
        return Goal(prop.lhs, prop.rhs)
    if isinstance(prop, A.BinOp) and prop.op == "≤":
        return Goal(prop.lhs, A.BinOp(prop.line, prop.col, "+", prop.rhs, A.NumLit(prop.line, prop.col, 1)))
    return None


def _definitely_differs(hyp: A.Node, want: A.Node) -> bool:
    """Two closed propositions with different truth values are not definitionally equal."""
    a, b = closed_value(hyp), closed_value(want)
    return a is not None and b is not None and a != b


Value = int | bool


def closed_value(node: A.Node) -> Value | None:
    """The value of a closed term over numerals, literal collections' sizes, ``Bool``/``Prop``
    connectives and comparisons; ``None`` when it is not one (a variable, ``-``, a call)."""
    node = A.unparen(node)
    if isinstance(node, A.NumLit):
        return node.value
    if isinstance(node, A.Ident):
        return {"True": True, "False": False, "true": True, "false": False}.get(node.name)
    if isinstance(node, A.UnOp) and node.op in ("¬", "!"):
        arg = closed_value(node.arg)
        return (not arg) if isinstance(arg, bool) else None
    if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name in _SIZE_FUNCTIONS \
            and len(node.args) == 1 and isinstance(A.unparen(node.args[0]), (A.ListLit, A.ArrayLit)):
        return len(A.unparen(node.args[0]).items)  # type: ignore[attr-defined]
    if isinstance(node, A.Proj) and node.field in ("size", "length") and isinstance(A.unparen(node.term),
                                                                                   (A.ListLit, A.ArrayLit)):
        return len(A.unparen(node.term).items)  # type: ignore[attr-defined]
    if not isinstance(node, A.BinOp):
        return None
    lhs, rhs = closed_value(node.lhs), closed_value(node.rhs)
    if lhs is None or rhs is None:
        return None
    if isinstance(lhs, bool) and isinstance(rhs, bool):
        logic: dict[str, Callable[[bool, bool], bool]] = {
            "∧": lambda a, b: a and b, "&&": lambda a, b: a and b, "∨": lambda a, b: a or b,
            "||": lambda a, b: a or b, "→": lambda a, b: (not a) or b, "↔": lambda a, b: a == b,
            "=": lambda a, b: a == b, "≠": lambda a, b: a != b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
        }
        f = logic.get(node.op)
        return f(lhs, rhs) if f is not None else None
    if isinstance(lhs, bool) or isinstance(rhs, bool):
        return None
    arith: dict[str, Callable[[int, int], Value]] = {
        "+": lambda a, b: a + b, "*": lambda a, b: a * b,
        "/": lambda a, b: a // b if b else 0, "%": lambda a, b: a % b if b else a,
        "<": lambda a, b: a < b, "≤": lambda a, b: a <= b, ">": lambda a, b: a > b, "≥": lambda a, b: a >= b,
        "=": lambda a, b: a == b, "≠": lambda a, b: a != b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    }
    g = arith.get(node.op)
    return g(lhs, rhs) if g is not None else None


__all__ = ["ProofVerdict", "TacticsMixin", "closed_value"]
