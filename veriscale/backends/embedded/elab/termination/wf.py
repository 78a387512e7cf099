"""Well-founded recursion: the goals Lean's ``decreasing_tactic`` sees, and whether it surely
proves them.

For each recursive call Lean's well-founded encoding (``Lean.Elab.PreDefinition.WF.Fix``) creates
the goal ``measure(args) < measure(params)`` in the call's local context:

* the conditions of the enclosing ``if``s -- the preprocessing turns ``ite`` into ``dite``, so
  each branch has its condition (or its negation) as a hypothesis;
* a ``match`` on a parameter refines that parameter to the alternative's pattern in the goal
  (``MatcherApp.addArg`` threads the recursion through the matcher);
* ``have`` facts (their proofs are checked elsewhere, :mod:`..proofs`) and ``let`` variables,
  whose values ``clean_wf`` unfolds in the goal (``zetaDelta := true``).

The default ``decreasing_tactic`` (``Init/WFTactics.lean``) is ``decreasing_with`` with
``decreasing_trivial``: it first runs ``simp`` (the default simp set: ``sizeOf`` of constructors
via their ``sizeOf_spec`` lemmas, ``List.length_cons``/``length_nil``/``length_append``,
``Array.size_set!``/``size_push``), applies ``Prod.Lex`` lemmas for lexicographic measures, then
tries ``decreasing_trivial``: ``simp +arith``, ``omega``, ``assumption``, ``Nat.sub_one_lt_of_lt``,
``Nat.pred_lt`` and the extensions other modules add, e.g. ``String.Iterator.sizeOf_next_lt_of_atEnd``
/``_of_hasNext`` with ``assumption`` (``Init/Data/String/Extra.lean``). The model here: the goal
rewritten with those simp lemmas, then ``omega`` (the linear-arithmetic prover of :mod:`..arith`
over ``Nat`` atoms, with the facts whose every term is known to be a ``Nat``), ``assumption``
(the goal is a fact in scope) or the ``String.Iterator`` rule. A user ``decreasing_by omega``
sees only the ``clean_wf`` goal (no ``simp``): then only ``omega`` and no simp lemma is used.

``GuessLex`` (``Lean.Elab.PreDefinition.WF.GuessLex``) tries as basic measures ``sizeOf`` of each
varying parameter (``n`` itself for a ``Nat``) and ``e₂ - e₁`` for each hypothesis ``e₁ < e₂``
(or ``≤``, ``>``, ``≥``) in a call's context, and searches a lexicographic combination where at
every call some component decreases and the earlier ones are equal. A combination found with
cells this model proves is one Lean's search also finds (its cells are proved by the same tactic).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.arith import Goal, decide_lt
from veriscale.backends.embedded.elab.proofs import normal_prop

Relation = str
"""``"lt"`` (proved smaller), ``"eq"`` (the same term) or ``""`` (not shown)."""

_COLLECTIONS = ("List", "Array", "String")


@dataclass
class Scope:
    """What a recursive call's goal may use, at one point of the body."""

    here: list[A.Node]
    """The current value of each parameter (refined by ``match`` alternatives)."""
    facts: list[A.Node] = field(default_factory=list)
    lets: dict[str, A.Node] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    """Head type names known for variables (``Nat``, ``List``, ``String.Iterator`` ...)."""
    opaque: bool = False
    """A binder shadowed a name the goal refers to: the goal is not known."""

    def copy(self) -> Scope:
        return Scope(list(self.here), list(self.facts), dict(self.lets), dict(self.types), self.opaque)

    def shadow(self, name: str) -> None:
        """A binder rebinds ``name``: what the scope says of the old variable now speaks of an
        inaccessible one (Lean's ``name✝``), so the new binding is not confused with it."""
        if not name or name == "_":
            return
        Scope._fresh += 1
        old = f"{name}✝{Scope._fresh}"
        rename = {name: A.Ident(0, 0, old)}
        self.here = [substitute(h, rename) for h in self.here]
        self.facts = [substitute(f, rename) for f in self.facts]
        self.lets = {(old if k == name else k): substitute(v, rename) for k, v in self.lets.items()}
        if name in self.types:
            self.types[old] = self.types.pop(name)

    _fresh = 0


@dataclass
class Site:
    call: A.App
    args: list[A.Node]
    scope: Scope


def collect_sites(body: A.Node, names: set[str], scope: Scope, is_prop: Callable[[A.Node], bool],
                  elem_types: dict[str, str]) -> list[Site]:
    """Every recursive call in ``body`` with its scope. ``elem_types`` gives a parameter's element
    type (``Nat`` for ``List Nat``) so that a cons pattern's head is typed."""
    sites: list[Site] = []
    params_here = list(scope.here)

    def walk(node: object, sc: Scope) -> None:
        if not isinstance(node, A.Node):
            return
        if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name in names:
            sites.append(Site(node, [a for a in node.args if not isinstance(a, A.NamedArg)], sc.copy()))
            for a in node.args:
                walk(a, sc)
            return
        if isinstance(node, A.Ident) and node.name in names:
            unapplied = sc.copy()
            unapplied.opaque = True
            sites.append(Site(A.App(node.line, node.col, node, []), [], unapplied))
            return
        if isinstance(node, A.If):
            walk(node.cond, sc)
            then, els = sc.copy(), sc.copy()
            then.facts.append(node.cond)
            els.facts.append(A.UnOp(node.line, node.col, "¬", node.cond))
            for s, branch in ((then, node.then), (els, node.els)):
                if node.hyp:
                    s.shadow(node.hyp)
                walk(branch, s)
            return
        if isinstance(node, A.Let):
            walk(node.decl, sc)
            inner = sc.copy()
            _bind_let(node.decl, inner, is_prop)
            walk(node.body, inner)
            return
        if isinstance(node, A.Match):
            for d in node.discrs:
                walk(d, sc)
            for alt in node.alts:
                inner = sc.copy()
                for h in node.hyps:
                    if h:
                        inner.shadow(h)
                refinements: list[tuple[int, A.Node]] = []
                for discr, pat in zip(node.discrs, alt.patterns):
                    k = _param_position(discr, inner.here)
                    for v in _pattern_vars(pat):
                        inner.shadow(v)
                    if k is not None:
                        refinements.append((k, pat))
                for k, pat in refinements:
                    inner.here[k] = pat
                    _type_pattern(pat, _kind(params_here[k], scope.types), elem_types.get(_root(params_here[k]), ""),
                                  inner.types)
                for discr, pat in zip(node.discrs, alt.patterns):
                    # a variable a refined parameter's pattern bound is generalized in the goal too
                    name = _root(A.unparen(discr))
                    if name and "." not in name and _param_position(discr, inner.here) is None and any(
                            name in _names(h) for h in inner.here):
                        kind = sc.types.get(name, "")
                        inner.here = [substitute(h, {name: pat}) for h in inner.here]
                        _type_pattern(pat, kind, "", inner.types)
                walk(alt.rhs, inner)
            return
        # any other binder: its names shadow, its body has no tracked hypotheses of its own
        inner = sc
        bound = _bound_here(node)
        if bound:
            inner = sc.copy()
            for b in bound:
                inner.shadow(b)
        for slot in getattr(node, "__slots__", ()):
            value = getattr(node, slot, None)
            for x in (value if isinstance(value, (list, tuple)) else [value]):
                for y in (x if isinstance(x, tuple) else [x]):
                    walk(y, inner)

    walk(body, scope)
    return sites


def _bind_let(decl: A.LetDecl, sc: Scope, is_prop: Callable[[A.Node], bool]) -> None:
    if decl.pattern is not None:
        for v in _pattern_vars(decl.pattern):
            sc.shadow(v)
        return
    name = decl.name or "this"
    sc.shadow(name)
    if decl.binders or decl.alts is not None or decl.value is None:
        return
    if decl.type is not None and is_prop(decl.type):
        sc.facts.append(decl.type)
        return
    sc.lets[name] = decl.value
    if decl.type is not None and isinstance(decl.type, A.Ident):
        sc.types[name] = decl.type.name
    elif _is_nat_term(decl.value, sc.types):
        sc.types[name] = "Nat"


def _param_position(discr: A.Node, here: list[A.Node]) -> int | None:
    discr = A.unparen(discr)
    if not isinstance(discr, A.Ident) or "." in discr.name:
        return None
    for k, h in enumerate(here):
        if isinstance(h, A.Ident) and h.name == discr.name:
            return k
    return None


def _root(node: A.Node) -> str:
    return node.name if isinstance(node, A.Ident) else ""


def _kind(node: A.Node, types: dict[str, str]) -> str:
    return types.get(_root(node), "")


def _type_pattern(pat: A.Node, kind: str, elem: str, types: dict[str, str]) -> None:
    """Types of a refining pattern's variables: ``m`` of ``m + 1``/``Nat.succ m`` is a ``Nat``, the
    tail of ``x :: xs`` a ``List`` (its head of the element type)."""
    pat = A.unparen(pat)
    if isinstance(pat, A.Ident) and "." not in pat.name:
        if kind:
            types[pat.name] = kind
        return
    if kind == "Nat":
        if isinstance(pat, A.BinOp) and pat.op == "+" and isinstance(pat.rhs, A.NumLit):
            _type_pattern(pat.lhs, "Nat", "", types)
        elif isinstance(pat, A.App) and isinstance(pat.fn, A.Ident) and pat.fn.name in ("Nat.succ", ".succ") \
                and len(pat.args) == 1:
            _type_pattern(pat.args[0], "Nat", "", types)
    if kind == "List" and isinstance(pat, A.BinOp) and pat.op == "::":
        _type_pattern(pat.lhs, elem, "", types)
        _type_pattern(pat.rhs, "List", elem, types)


def _pattern_vars(p: object) -> list[str]:
    out: list[str] = []
    if isinstance(p, A.Ident):
        if "." not in p.name and p.name != "_" and not p.name[:1].isupper() and p.name not in ("none", "true", "false"):
            out.append(p.name)
        return out
    if isinstance(p, A.App):
        for a in p.args:
            out.extend(_pattern_vars(a))
        return out
    for c in A.children(p):
        out.extend(_pattern_vars(c))
    return out


def _bound_here(node: A.Node) -> list[str]:
    """Names a binder node introduces for its children (conservatively: every name bound anywhere
    below a ``fun``/quantifier/``do``)."""
    if isinstance(node, (A.Lambda, A.LambdaMatch, A.Quant, A.Do, A.LetRec, A.IfLet)):
        return sorted(_bound_names(node))
    return []


def _names(node: object) -> set[str]:
    """Identifier roots in a term (``xs`` of ``xs.length``)."""
    out: set[str] = set()
    if isinstance(node, A.Ident):
        out.add(node.name.split(".")[0])
    elif isinstance(node, A.Node):
        for slot in getattr(node, "__slots__", ()):
            value = getattr(node, slot, None)
            for x in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(x, A.Node):
                    out |= _names(x)
    return out


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


# -- the goal ---------------------------------------------------------------------------------------


def substitute(node: A.Node, mapping: Mapping[str, A.Node]) -> A.Node:
    from veriscale.backends.embedded.elab.getelem import _substitute

    return _substitute(node, dict(mapping)) if mapping else node


def zeta(node: A.Node, lets: dict[str, A.Node]) -> A.Node:
    """Unfold ``let`` variables (``clean_wf`` runs ``simp`` with ``zetaDelta := true``)."""
    for _ in range(12):
        if not (_names(node) & set(lets)):
            return node
        node = substitute(node, {k: v for k, v in lets.items()})
    return node


def _mk(op: str, a: A.Node, b: A.Node) -> A.Node:
    return A.BinOp(0, 0, op, a, b)


def _num(v: int) -> A.Node:
    return A.NumLit(0, 0, v)


def _size_of(node: A.Node) -> A.Node:
    return A.App(0, 0, A.Ident(0, 0, "sizeOf"), [node])


def _measure_field(node: A.Node) -> tuple[str, A.Node] | None:
    """``(field, receiver)`` of ``x.length``/``x.size``, ``List.length x``, ``(e).size``."""
    node = A.unparen(node)
    if isinstance(node, A.Ident):
        root, _, last = node.name.rpartition(".")
        if root and last in ("length", "size"):
            return last, A.Ident(node.line, node.col, root)
    if isinstance(node, A.Proj) and node.field in ("length", "size"):
        return node.field, node.term
    if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and len(node.args) == 1 and node.fn.name in (
            "List.length", "Array.size", "String.length"):
        return ("size" if node.fn.name == "Array.size" else "length"), node.args[0]
    return None


def _method(node: A.Node, method: str) -> tuple[A.Node, list[A.Node]] | None:
    """``(receiver, args)`` of ``r.method a b`` / ``(e).method a b`` / ``Array.method r a b``."""
    node = A.unparen(node)
    if not isinstance(node, A.App):
        return None
    fn = node.fn
    args = [a for a in node.args if not isinstance(a, A.NamedArg)]
    if isinstance(fn, A.Ident):
        if fn.name == f"Array.{method}" and args:
            return args[0], args[1:]
        root, _, last = fn.name.rpartition(".")
        if last == method and root and root[0].islower():
            return A.Ident(fn.line, fn.col, root), args
    if isinstance(fn, A.Proj) and fn.field == method:
        return fn.term, args
    return None


class Simp:
    """The rewriting ``decreasing_tactic``'s leading ``simp`` surely does (``full``), or only
    ``sizeOf_nat`` (``clean_wf``, which every goal gets)."""

    def __init__(self, types: dict[str, str], full: bool) -> None:
        self.types = types
        self.full = full

    def run(self, node: A.Node) -> A.Node:
        node = A.unparen(node)
        if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name == "sizeOf" and len(node.args) == 1:
            return self.size_of(self.run(node.args[0]))
        if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name == "Nat.succ" and len(node.args) == 1:
            return _mk("+", self.run(node.args[0]), _num(1))  # omega reads `Nat.succ n` as `n + 1`
        fld = _measure_field(node)
        if fld is not None and self.full:
            return self.length(fld[0], self.run(fld[1]))
        if isinstance(node, A.BinOp):
            return A.BinOp(node.line, node.col, node.op, self.run(node.lhs), self.run(node.rhs))
        if fld is not None:
            return A.Proj(0, 0, fld[1], fld[0])
        return node

    def size_of(self, arg: A.Node) -> A.Node:
        arg = A.unparen(arg)
        if _is_nat_term(arg, self.types):
            return arg  # sizeOf_nat
        if not self.full:
            return _size_of(arg)
        if isinstance(arg, A.BinOp) and arg.op == "::":
            # List.cons.sizeOf_spec: sizeOf (h :: t) = 1 + sizeOf h + sizeOf t
            return _mk("+", _mk("+", _num(1), self.size_of(arg.lhs)), self.size_of(arg.rhs))
        if isinstance(arg, A.ListLit) and not arg.items:
            return _num(1)  # List.nil.sizeOf_spec
        return _size_of(arg)

    def length(self, fld: str, recv: A.Node) -> A.Node:
        recv = A.unparen(recv)
        if fld == "length" and isinstance(recv, A.BinOp) and recv.op == "::":
            return _mk("+", self.length("length", recv.rhs), _num(1))  # List.length_cons
        if fld == "length" and isinstance(recv, A.BinOp) and recv.op == "++":
            return _mk("+", self.length("length", recv.lhs), self.length("length", recv.rhs))
        if fld == "length" and isinstance(recv, A.ListLit):
            return _num(len(recv.items))
        if fld == "size":
            for method in ("set!", "setIfInBounds", "swap!", "modify"):
                inner = _method(recv, method)
                if inner is not None:
                    return self.length("size", inner[0])  # Array.size_set! and kin
            pushed = _method(recv, "push")
            if pushed is not None:
                return _mk("+", self.length("size", pushed[0]), _num(1))  # Array.size_push
        return A.Proj(0, 0, recv, fld)


def _is_nat_term(node: A.Node, types: dict[str, str]) -> bool:
    """``node`` is surely a ``Nat``: numerals, ``Nat`` variables, sizes and lengths of collections,
    ``sizeOf``, and arithmetic of such."""
    node = A.unparen(node)
    if isinstance(node, A.NumLit):
        return True
    fld = _measure_field(node)
    if fld is not None:
        recv = A.unparen(fld[1])
        return _collection(recv, types)
    if isinstance(node, A.Ident):
        return types.get(node.name) == "Nat"
    if isinstance(node, A.BinOp) and node.op in ("+", "-", "*", "/", "%"):
        return _is_nat_term(node.lhs, types) and _is_nat_term(node.rhs, types)
    if isinstance(node, A.App) and isinstance(node.fn, A.Ident) and node.fn.name == "sizeOf":
        return True
    return False


def _collection(node: A.Node, types: dict[str, str]) -> bool:
    node = A.unparen(node)
    if isinstance(node, A.Ident):
        return types.get(node.name) in _COLLECTIONS
    if isinstance(node, (A.ListLit, A.ArrayLit)):
        return True
    if isinstance(node, A.BinOp) and node.op in ("::", "++"):
        return _collection(node.rhs, types)
    for method in ("set!", "setIfInBounds", "swap!", "modify", "push"):
        inner = _method(node, method)
        if inner is not None:
            return _collection(inner[0], types)
    return False


def _nat_facts(facts: list[A.Node], types: dict[str, str]) -> list[A.Node]:
    """The facts ``omega`` reads with every term a ``Nat`` (conjunctions split): a fact about
    ``Int``s read as ``Nat``s could prove a false goal, so it is left out."""
    out: list[A.Node] = []
    for f in facts:
        f = A.unparen(f)
        if isinstance(f, A.BinOp) and f.op == "∧":
            out.extend(_nat_facts([f.lhs, f.rhs], types))
        elif _nat_prop(f, types):
            out.append(f)
    return out


def _nat_prop(f: A.Node, types: dict[str, str]) -> bool:
    f = A.unparen(f)
    if isinstance(f, A.UnOp) and f.op == "¬":
        return _nat_prop(f.arg, types)
    if isinstance(f, A.BinOp) and f.op in ("∧", "∨"):
        return _nat_prop(f.lhs, types) and _nat_prop(f.rhs, types)
    if isinstance(f, A.BinOp) and f.op in ("<", "≤", ">", "≥", "=", "≠"):
        return _is_nat_term(f.lhs, types) and _is_nat_term(f.rhs, types)
    return False


def _atomise_division(node: A.Node) -> A.Node:
    """``a / b`` and ``a % b`` by a non-numeral: an atom for ``omega``."""
    def replace(n: A.Node) -> A.Node | None:
        if isinstance(n, A.BinOp) and n.op in ("/", "%") and not isinstance(A.unparen(n.rhs), A.NumLit):
            return A.App(0, 0, A.Ident(0, 0, "HDiv.hDiv" if n.op == "/" else "HMod.hMod"), [n.lhs, n.rhs])
        return None

    return A.rewrite(node, replace)


@dataclass(frozen=True)
class Tactic:
    full_simp: bool
    """The default ``decreasing_tactic`` (``simp``, ``assumption``, the extensions) or only
    ``omega`` on the ``clean_wf`` goal."""


DEFAULT = Tactic(True)
OMEGA = Tactic(False)


def relation(site: Site, measure: A.Node, params: list[str], tactic: Tactic) -> Relation:
    """How ``measure`` at the call relates to its value in the caller's branch."""
    sc = site.scope
    if sc.opaque or len(site.args) != len(params):
        return ""
    smaller = zeta(substitute(measure, dict(zip(params, [A.Paren(0, 0, a) for a in site.args]))), sc.lets)
    current = zeta(substitute(measure, dict(zip(params, [A.Paren(0, 0, h) for h in sc.here]))), sc.lets)
    if A.sexpr(_strip_all(smaller)) == A.sexpr(_strip_all(current)):
        return "eq"
    simp = Simp(sc.types, tactic.full_simp)
    lhs, rhs = simp.run(smaller), simp.run(current)
    if A.sexpr(_strip_all(lhs)) == A.sexpr(_strip_all(rhs)):
        return "eq"
    goal = normal_prop(_mk("<", lhs, rhs))
    facts = [zeta(f, {}) for f in sc.facts]
    if tactic.full_simp and any(A.sexpr(normal_prop(f)) == A.sexpr(goal) for f in facts):
        return "lt"  # decreasing_trivial: assumption
    if tactic.full_simp and _iterator_step(smaller, current, facts, sc.types):
        return "lt"
    if not (_is_nat_term(lhs, sc.types) and _is_nat_term(rhs, sc.types)):
        return ""
    usable = [_atomise_division(f) for f in _nat_facts(facts, sc.types)]
    verdict = decide_lt(Goal(_atomise_division(lhs), _atomise_division(rhs)), usable)
    return "lt" if verdict == "proved" else ""


def _strip_all(node: A.Node) -> A.Node:
    def unwrap(n: A.Node) -> A.Node | None:
        if isinstance(n, A.Paren):
            inner = n.term
            inner = A.unparen(inner)
            return A.rewrite(inner, unwrap)
        return None

    return A.rewrite(node, unwrap)


def _iterator_step(smaller: A.Node, current: A.Node, facts: list[A.Node], types: dict[str, str]) -> bool:
    """``sizeOf it.next < sizeOf it`` from ``¬it.atEnd = true`` or ``it.hasNext = true`` in scope
    (``String.Iterator.sizeOf_next_lt_of_atEnd``/``_of_hasNext``, ``Init/Data/String/Extra.lean``,
    registered as ``decreasing_trivial`` rules: ``apply``, then ``assumption``)."""
    s, c = A.unparen(smaller), A.unparen(current)
    if not (isinstance(s, A.App) and isinstance(c, A.App) and isinstance(s.fn, A.Ident) and s.fn.name == "sizeOf"
            and isinstance(c.fn, A.Ident) and c.fn.name == "sizeOf"):
        return False
    it = A.unparen(c.args[0])
    if not isinstance(it, A.Ident) or types.get(it.name) != "String.Iterator":
        return False
    if A.sexpr(_strip_all(s.args[0])) not in (f"{it.name}.next", A.sexpr(A.Proj(0, 0, it, "next"))):
        return False
    for f in facts:
        f = A.unparen(f)
        if isinstance(f, A.UnOp) and f.op == "¬" and _is_field(f.arg, it.name, "atEnd"):
            return True
        if _is_field(f, it.name, "hasNext"):
            return True
    return False


def _is_field(node: A.Node, var: str, name: str) -> bool:
    """``it.atEnd`` or ``it.atEnd = true`` (a ``Bool`` condition is ``b = true`` as a ``Prop``)."""
    node = A.unparen(node)
    rhs = A.unparen(node.rhs) if isinstance(node, A.BinOp) and node.op == "=" else None
    if isinstance(node, A.BinOp) and isinstance(rhs, A.Ident) and rhs.name == "true":
        node = A.unparen(node.lhs)
    return isinstance(node, A.Ident) and node.name == f"{var}.{name}"


# -- measures ---------------------------------------------------------------------------------------


def basic_measures(params: list[str], types: dict[str, str], sites: list[Site],
                   fixed: set[str] = frozenset()) -> list[A.Node]:  # type: ignore[assignment]
    """``GuessLex``'s basic measures: ``sizeOf`` of each parameter and ``e₂ - e₁`` for each
    comparison hypothesis at some call over the parameters and the ``fixed`` variables of the
    enclosing scope (a ``let rec`` closes over them)."""
    out: list[A.Node] = []
    for p in params:
        if p.startswith("_") and p[1:].isdigit() and p not in types:
            continue
        out.append(A.Ident(0, 0, p) if types.get(p) == "Nat" else _size_of(A.Ident(0, 0, p)))
    seen = {A.sexpr(m) for m in out}
    for site in sites:
        for fact in site.scope.facts:
            gap = _difference(fact)
            if gap is None or not _names(gap) <= set(params) | fixed or not _is_nat_term(gap, types):
                continue
            if A.sexpr(gap) not in seen:
                seen.add(A.sexpr(gap))
                out.append(gap)
    return out


def _difference(cond: A.Node) -> A.Node | None:
    cond = A.unparen(cond)
    if not isinstance(cond, A.BinOp):
        return None
    if cond.op in ("<", "≤"):
        lo, hi = cond.lhs, cond.rhs
    elif cond.op in (">", "≥"):
        lo, hi = cond.rhs, cond.lhs
    else:
        return None
    return _mk("-", A.Paren(0, 0, hi), A.Paren(0, 0, lo))


def lexicographic(cells: list[list[Relation]]) -> list[int] | None:
    """A lexicographic order of measures (column indices) under which every call (row) decreases:
    ``GuessLex``'s greedy search -- take a measure that is ``<`` or ``=`` at every remaining call
    and ``<`` at one, drop the calls it decreases, repeat."""
    remaining = list(range(len(cells)))
    order: list[int] = []
    columns = len(cells[0]) if cells else 0
    while remaining:
        for j in range(columns):
            if j in order:
                continue
            rels = [cells[i][j] for i in remaining]
            if all(r in ("lt", "eq") for r in rels) and "lt" in rels:
                order.append(j)
                remaining = [i for i in remaining if cells[i][j] != "lt"]
                break
        else:
            return None
    return order


def decreases(sites: list[Site], params: list[str], measures: list[A.Node], tactic: Tactic,
              fixed: bool) -> bool:
    """Every call decreases: under the single (or tuple) measure given (``fixed``), or under a
    lexicographic combination of ``measures`` that the search finds."""
    if not sites:
        return False
    cells = [[relation(s, m, params, tactic) for m in measures] for s in sites]
    if fixed:
        # `termination_by (a, b)`: at each call some component decreases after equal ones
        for row in cells:
            for r in row:
                if r == "lt":
                    break
                if r != "eq":
                    return False
            else:
                return False
        return True
    return lexicographic(cells) is not None


__all__ = ["DEFAULT", "OMEGA", "Scope", "Site", "Tactic", "basic_measures", "collect_sites", "decreases"]
