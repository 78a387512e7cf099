"""Checking the proofs of ``have`` facts (``have : n / p < n := Nat.div_lt_self h.2 h.1``).

A ``have`` puts its statement in the local context, where ``decreasing_tactic`` and
``get_elem_tactic`` use it, so its proof must be one Lean accepts -- never trusted. The checker
infers the proposition a proof term proves and matches it against the statement:

* a hypothesis by name (``h`` from ``if h : c``, a binder ``(h : c)``, an earlier ``have``), and
  its ``And`` projections ``h.1``/``h.2`` (``And.left``/``And.right``, Lean's generalized field
  notation on a structure's fields);
* a declared lemma (:mod:`veriscale.backends.embedded.lemmas`) applied to proofs of all its
  explicit hypotheses, its implicit ``Nat`` variables instantiated by matching
  (``Lean.Elab.App``: implicit arguments become metavariables that unification assigns);
* ``by`` with the script ``apply L`` followed by one ``exact t`` per new goal (``·`` bullets
  allowed), or a single ``exact t`` (``Lean.Elab.Tactic.evalApply``: the new goals are ``L``'s
  explicit hypotheses, in order).

Propositions are compared up to notation Lean unfolds while parsing (``a > b`` is ``b < a``,
``a ≥ b`` is ``b ≤ a``: ``GT.gt``/``GE.ge`` are reducible, ``Init/Prelude.lean``) and ``Nat.succ n``
is read as ``n + 1`` (``Nat.succ_eq_add_one`` holds by ``rfl``). Anything else -- another tactic, a
lemma not declared, a statement that matches only up to definitional unfolding -- is a gap
naming the reason, never an acceptance.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx, ProofType
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.types import head_name, zonk
from veriscale.backends.embedded.lemmas import lemma
from veriscale.lean.lexer import LeanSyntaxError


class ProofError(Exception):
    """The proof cannot be checked: the message says why."""


class ProofsMixin(ElabCore):
    def check_have_proof(self, decl: A.LetDecl, prop: A.Node, ctx: Ctx) -> None:
        """Check ``decl.value`` proves ``prop``; a gap naming the reason when it cannot be shown."""
        assert decl.value is not None
        self.prove(decl.value, prop, ctx)  # the checker of :mod:`.tactics`

    def _nat_term_checker(self, ctx: Ctx) -> Callable[[A.Node], bool]:
        def is_nat(node: A.Node) -> bool:
            node = A.unparen(node)
            if isinstance(node, A.NumLit):
                return True
            if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and len(node.args) == 1:
                return node.fn.name in ("Array.size", "List.length", "String.length")
            if isinstance(node, A.Ident):
                if node.name.endswith((".length", ".size")):
                    return True
                decl = ctx.lookup(node.name)
                if decl is not None:
                    return head_name(zonk(decl.type)) == "Nat"
                # `i.val`/`i.1` of a local `i : Fin n` is a `Nat` (omega's `Fin.val` atoms)
                root, _, field = node.name.partition(".")
                owner = ctx.lookup(root)
                return owner is not None and field in ("val", "1") and head_name(zonk(owner.type)) == "Fin"
            if isinstance(node, A.BinOp) and node.op in ("+", "-", "*", "/", "%"):
                return is_nat(node.lhs) and is_nat(node.rhs)
            if isinstance(node, A.Proj) and node.field in ("length", "size"):
                return True
            return False

        return is_nat


def normal_prop(node: A.Node) -> A.Node:
    """``a > b`` as ``b < a``, ``a ≥ b`` as ``b ≤ a``, ``Nat.succ n``/``n.succ`` as ``n + 1``,
    parentheses dropped."""
    node = A.unparen(node)
    if isinstance(node, A.BinOp):
        lhs, rhs = normal_prop(node.lhs), normal_prop(node.rhs)
        if node.op in (">", "≥"):
            return A.BinOp(node.line, node.col, "<" if node.op == ">" else "≤", rhs, lhs)
        return A.BinOp(node.line, node.col, node.op, lhs, rhs)
    if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name in ("Nat.succ", "succ") \
            and len(node.args) == 1:
        return A.BinOp(node.line, node.col, "+", normal_prop(node.args[0]), A.NumLit(node.line, node.col, 1))
    if isinstance(node, A.Ident) and node.name.endswith(".succ") and node.name.count(".") == 1:
        return A.BinOp(node.line, node.col, "+", A.Ident(node.line, node.col, node.name[:-5]),
                       A.NumLit(node.line, node.col, 1))
    if isinstance(node, A.App):
        return A.App(node.line, node.col, normal_prop(node.fn), [normal_prop(a) for a in node.args])
    if isinstance(node, A.UnOp):
        return A.UnOp(node.line, node.col, node.op, normal_prop(node.arg))
    return node


def _match(pattern: A.Node, term: A.Node, variables: tuple[str, ...], binding: dict[str, A.Node]) -> bool:
    """Syntactic matching of normalised propositions, binding the lemma's variables."""
    if isinstance(pattern, A.Ident) and pattern.name in variables:
        bound = binding.get(pattern.name)
        if bound is None:
            binding[pattern.name] = term
            return True
        return A.sexpr(bound) == A.sexpr(term)
    if type(pattern) is not type(term):
        return False
    if isinstance(pattern, A.BinOp):
        assert isinstance(term, A.BinOp)
        return pattern.op == term.op and _match(pattern.lhs, term.lhs, variables, binding) and \
            _match(pattern.rhs, term.rhs, variables, binding)
    if isinstance(pattern, A.App):
        assert isinstance(term, A.App)
        return len(pattern.args) == len(term.args) and _match(pattern.fn, term.fn, variables, binding) and all(
            _match(p, t, variables, binding) for p, t in zip(pattern.args, term.args))
    if isinstance(pattern, A.UnOp):
        assert isinstance(term, A.UnOp)
        return pattern.op == term.op and _match(pattern.arg, term.arg, variables, binding)
    return A.sexpr(pattern) == A.sexpr(term)


def _instantiate(node: A.Node, binding: dict[str, A.Node]) -> A.Node:
    def replace(n: A.Node) -> A.Node | None:
        if isinstance(n, A.Ident) and n.name in binding:
            return binding[n.name]
        return None

    return normal_prop(A.rewrite(node, replace))


def _hypothesis(name: str, ctx: Ctx) -> A.Node:
    """The proposition of ``h`` or of a chain of ``And`` projections ``h.2.1``."""
    root, *fields = name.split(".")
    decl = ctx.lookup(root)
    if decl is None:
        raise ProofError(f"`{root}` is not a hypothesis in scope")
    t = zonk(decl.type)
    if not isinstance(t, ProofType):
        raise ProofError(f"`{root}` is not a hypothesis whose statement is known")
    prop = normal_prop(t.prop)
    for f in fields:
        if not (isinstance(prop, A.BinOp) and prop.op == "∧") or f not in ("1", "2", "left", "right"):
            raise ProofError(f"`.{f}` of `{A.lean_syntax(prop)}` is not an `And` projection")
        prop = prop.lhs if f in ("1", "left") else prop.rhs
    return prop


def infer_prop(term: A.Node, ctx: Ctx, is_nat: Callable[[A.Node], bool], expected: A.Node | None = None) -> A.Node:
    """The proposition ``term`` proves (normalised)."""
    term = A.unparen(term)
    if isinstance(term, A.Ident):
        if lemma(term.name) is not None:
            return _apply_lemma(term.name, [], ctx, is_nat, expected)
        return _hypothesis(term.name, ctx)
    if isinstance(term, A.App) and isinstance(term.fn, A.Ident) and lemma(term.fn.name) is not None:
        return _apply_lemma(term.fn.name, term.args, ctx, is_nat, expected)
    raise ProofError(f"the proof term `{A.lean_syntax(term)}` is not modelled")


def _apply_lemma(name: str, args: list[A.Node], ctx: Ctx, is_nat: Callable[[A.Node], bool],
                 expected: A.Node | None) -> A.Node:
    lem = lemma(name)
    assert lem is not None
    if any(isinstance(a, A.NamedArg) for a in args) or len(args) != len(lem.hypotheses):
        raise ProofError(f"`{name}` takes {len(lem.hypotheses)} explicit hypotheses, {len(args)} given")
    binding: dict[str, A.Node] = {}
    conclusion = normal_prop(lem.conclusion)
    if expected is not None:
        # elaboration postpones arguments and unifies the result type first (Lean.Elab.App)
        _match(conclusion, expected, lem.variables, binding)
        binding = {k: v for k, v in binding.items()}
    for arg, hyp in zip(args, lem.hypotheses):
        hyp_n = normal_prop(hyp)
        wanted = _instantiate(hyp_n, binding) if all(v in binding for v in _vars_of(hyp_n, lem.variables)) else None
        got = infer_prop(arg, ctx, is_nat, wanted)
        if not _match(hyp_n, got, lem.variables, binding):
            raise ProofError(f"`{A.lean_syntax(arg)}` proves `{A.lean_syntax(got)}`, `{name}` needs `{A.lean_syntax(hyp_n)}`")
    missing = [v for v in lem.variables if v not in binding]
    if missing:
        raise ProofError(f"the variables {', '.join(missing)} of `{name}` are not determined")
    if not all(is_nat(v) for v in binding.values()):
        raise ProofError(f"`{name}` is about `Nat`; an argument is not known to be a `Nat`")
    return _instantiate(lem.conclusion, binding)


def _vars_of(node: A.Node, variables: tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    if isinstance(node, A.Ident) and node.name in variables:
        out.add(node.name)
    for c in A.children(node):
        out |= _vars_of(c, variables)
    return out


def _check_term(term: A.Node, prop: A.Node, ctx: Ctx, is_nat: Callable[[A.Node], bool]) -> None:
    want = normal_prop(prop)
    got = infer_prop(term, ctx, is_nat, want)
    if A.sexpr(got) != A.sexpr(want):
        # Lean compares up to definitional unfolding (`1 < p` is `2 ≤ p`), which is not modelled
        raise ProofError(f"`{A.lean_syntax(term)}` proves `{A.lean_syntax(got)}`, not syntactically the statement")


_BULLET = re.compile(r"^[·.]\s*")


def check_script(text: str, prop: A.Node, ctx: Ctx, is_nat: Callable[[A.Node], bool]) -> None:
    """``by apply L`` then ``exact t`` per new goal (bullets allowed), or ``by exact t``."""
    from veriscale.backends.embedded.parser.parse import parse_term

    body = text.strip()
    if not body.startswith("by"):
        raise ProofError("not a tactic block")
    steps = [_BULLET.sub("", line.split("--")[0].strip()) for line in re.split(r"[\n;]", body[2:])]
    steps = [s for s in steps if s]
    goals = [normal_prop(prop)]
    for step in steps:
        word, _, rest = step.partition(" ")
        try:
            arg = parse_term(rest.strip()) if rest.strip() else None
        except LeanSyntaxError as exc:
            raise ProofError(f"the tactic `{step}` is not read: {exc}") from exc
        if not goals:
            raise ProofError(f"`{step}` runs with no goal left (Lean: no goals to be proved)")
        if word == "exact" and arg is not None:
            _check_term(arg, goals.pop(0), ctx, is_nat)
        elif word == "apply" and isinstance(head := A.unparen(arg) if arg is not None else None, A.Ident) \
                and lemma(head.name) is not None:
            goals = _apply_goals(head.name, goals.pop(0), is_nat) + goals
        else:
            raise ProofError(f"the tactic `{step}` is not modelled")
    if goals:
        raise ProofError(f"{len(goals)} goal(s) left unproved")


def _apply_goals(name: str, goal: A.Node, is_nat: Callable[[A.Node], bool]) -> list[A.Node]:
    lem = lemma(name)
    assert lem is not None
    binding: dict[str, A.Node] = {}
    if not _match(normal_prop(lem.conclusion), goal, lem.variables, binding):
        raise ProofError(f"`apply {name}`: its conclusion does not match `{A.lean_syntax(goal)}` syntactically")
    if any(v not in binding for v in lem.variables) or not all(is_nat(v) for v in binding.values()):
        raise ProofError(f"`apply {name}`: its variables are not all determined `Nat` terms")
    return [_instantiate(h, binding) for h in lem.hypotheses]


__all__ = ["ProofError", "ProofsMixin", "check_script", "infer_prop", "normal_prop"]
