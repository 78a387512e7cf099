"""Where the list of all sublists may stay symbolic (:mod:`..builtins.sublists`), and the ``fun``s whose
meaning the symbolic list needs to know.

A *producer* is the idiom that builds every sublist of a list ``xs``::

    xs.foldl (fun acc x => acc ++ acc.map (fun sub => x :: sub)) [[]]

(also ``List.foldl``/``Array.foldl`` applied in full, and ``(x :: ·)`` for the inner ``fun``).
It may produce a :class:`~..builtins.sublists.SublistFamily` instead of its ``2 ^ n`` members only where
the compiler has seen every use of the value, before compiling the definition: the value, and
everything computed from it by ``map``/``filter``, may only be

* bound by ``let`` (a variable, or the body of a local function applied in full), or
* the list argument of ``List.map``/``List.filter`` (giving another such value) or of
  ``List.contains``/``List.elem``/``List.all``/``List.any`` (giving a plain value),

written as field notation (``s.filter p``, ``… |>.map f``) or in full (``List.filter p s``).
Any other use (passing it to a function, ``length``, ``==``, a ``match``, a rebinding of its
name) and the producer compiles as usual. So no code that does not know the symbolic value ever
receives one, and each of the operations above gives the answer of the enumeration.

The check needs the names of those operations to mean the builtins, so a file that declares any
of them itself (``def List.map``) or an instance of the classes they use keeps the plain lists.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins.sublists import (
    CHAIN,
    CHAIN_OPS,
    MEMBER_OF,
    VIA_LENGTH,
    SublistFamily,
)
from veriscale.backends.embedded.compiler.support import Closure, Scope
from veriscale.backends.embedded.runtime_support import Budget
from veriscale.lean.values import Arr

#: declarations whose builtin meaning the analysis relies on
_RELIED_ON = frozenset({
    "List.foldl", "Array.foldl", "List.map", "List.filter", "List.contains", "List.elem", "List.all",
    "List.any", "List.reverse", "List.length", "List.Pairwise", "List.append", "List.cons",
})
#: classes whose user instances could change what those builtins compute
_RELIED_ON_CLASSES = frozenset({"BEq", "LT", "LE", "HAppend", "Append", "DecidableEq", "Ord"})

_TRANSFORMS = {"map": 0, "filter": 0}
"""Operations giving another symbolic value: the position of the function argument."""
_QUESTIONS = {"contains": 1, "elem": 0, "all": 1, "any": 1}
"""Operations giving a plain value: the position of the other argument in the full form
(``List.contains l a``, ``List.elem a l``, ``List.all l p``, ``List.any l p``)."""


def _spine(node: Any) -> tuple[Any, list[Any]]:
    """``f a b c`` as ``(f, [a, b, c])`` through nested applications and parentheses; pipes
    (``x |> f``, ``f <| x``, ``f $ x``) are the applications they stand for."""
    node = A.unparen(node)
    if isinstance(node, A.BinOp) and node.op == "|>":
        head, args = _spine(node.rhs)
        return head, [*args, node.lhs]
    if isinstance(node, A.BinOp) and node.op in ("<|", "$"):
        head, args = _spine(node.lhs)
        return head, [*args, node.rhs]
    if isinstance(node, A.App) and not any(isinstance(a, A.NamedArg) for a in node.args):
        head, args = _spine(node.fn)
        return head, [*args, *node.args]
    return node, []


def _method_call(node: Any) -> tuple[str, Any, list[Any]] | None:
    """``(name, receiver, other args)`` of ``r.name args`` / ``List.name … r …`` for the
    operations of :data:`_TRANSFORMS` and :data:`_QUESTIONS` (``None`` for anything else)."""
    head, args = _spine(node)
    if isinstance(head, A.Proj):
        name, receiver = head.field, head.term
    elif isinstance(head, A.Ident) and head.name.startswith("List.") and head.name.count(".") == 1:
        name = head.name[5:]
        if name in _TRANSFORMS and len(args) == 2:
            return name, args[1], [args[0]]
        if name in _QUESTIONS and len(args) == 2:
            pos = _QUESTIONS[name]
            return name, args[1 - pos], [args[pos]]
        return None
    elif isinstance(head, A.Ident) and head.name.count(".") >= 1:
        prefix, _, name = head.name.rpartition(".")
        receiver = A.Ident(head.line, head.col, prefix)
    else:
        return None
    if (name in _TRANSFORMS or name in _QUESTIONS) and len(args) == 1:
        return name, receiver, args
    return None


def _is_nil_of_nil(node: Any) -> bool:
    node = A.unparen(node)
    return (isinstance(node, A.ListLit) and len(node.items) == 1
            and isinstance(A.unparen(node.items[0]), A.ListLit) and not A.unparen(node.items[0]).items)


def _simple_binders(node: A.Lambda) -> list[str] | None:
    names: list[str] = []
    for b in node.binders:
        if b.pattern is not None or b.kind != "explicit":
            return None
        names.extend(b.names)
    return names


def _is_ident(node: Any, name: str) -> bool:
    node = A.unparen(node)
    return isinstance(node, A.Ident) and node.name == name


def _is_cons_of(node: Any, x: str) -> bool:
    """``fun sub => x :: sub``, ``(x :: ·)`` or ``List.cons x``."""
    node = A.unparen(node)
    if isinstance(node, A.Lambda):
        names = _simple_binders(node)
        body = A.unparen(node.body)
        return (names is not None and len(names) == 1 and names[0] != x and isinstance(body, A.BinOp)
                and body.op == "::" and _is_ident(body.lhs, x) and _is_ident(body.rhs, names[0]))
    if isinstance(node, A.BinOp) and node.op == "::":
        return _is_ident(node.lhs, x) and isinstance(A.unparen(node.rhs), A.Cdot)
    head, args = _spine(node)
    return isinstance(head, A.Ident) and head.name == "List.cons" and len(args) == 1 and _is_ident(args[0], x)


def _is_sublist_step(node: Any) -> bool:
    """``fun acc x => acc ++ acc.map (fun sub => x :: sub)`` (or ``List.map … acc``)."""
    node = A.unparen(node)
    if not isinstance(node, A.Lambda):
        return False
    names = _simple_binders(node)
    if names is None or len(names) != 2 or names[0] == names[1]:
        return False
    acc, x = names
    body = A.unparen(node.body)
    if not (isinstance(body, A.BinOp) and body.op == "++" and _is_ident(body.lhs, acc)):
        return False
    head, args = _spine(body.rhs)
    if isinstance(head, A.Ident) and head.name == f"{acc}.map" and len(args) == 1:
        return _is_cons_of(args[0], x)
    if isinstance(head, A.Proj) and head.field == "map" and _is_ident(head.term, acc) and len(args) == 1:
        return _is_cons_of(args[0], x)
    if isinstance(head, A.Ident) and head.name == "List.map" and len(args) == 2 and _is_ident(args[1], acc):
        return _is_cons_of(args[0], x)
    return False


def producer_list(node: Any) -> Any | None:
    """The list ``xs`` of a producer ``xs.foldl step [[]]`` (``None``: not a producer)."""
    head, args = _spine(node)
    if isinstance(head, A.Ident) and head.name in ("List.foldl", "Array.foldl") and len(args) == 3:
        step, init, xs = args
    elif isinstance(head, A.Proj) and head.field == "foldl" and len(args) == 2:
        (step, init), xs = args, head.term
    elif isinstance(head, A.Ident) and head.name.endswith(".foldl") and head.name.count(".") >= 1 and len(args) == 2:
        (step, init), xs = args, A.Ident(head.line, head.col, head.name[: -len(".foldl")])
    else:
        return None
    if _is_sublist_step(step) and _is_nil_of_nil(init):
        return xs
    return None


def _declared(node: Any) -> set[str]:
    """Names a node itself binds (not those of its sub-terms)."""
    out: set[str] = set()
    if isinstance(node, A.Binder):
        out.update(node.names)
    elif isinstance(node, (A.LetDecl, A.Quant)) and node.name:
        out.add(node.name)
    for attr in ("hyp",):
        v = getattr(node, attr, None)
        if isinstance(v, str):
            out.add(v)
    hyps = getattr(node, "hyps", None)
    if isinstance(hyps, list):
        out.update(h for h in hyps if isinstance(h, str))
    return out


class _Analysis:
    """One definition's check (see the module docstring). The methods collect into ``sites``
    (node id -> node) the producers whose every use was seen to be allowed.

    ``fams`` maps a name to ``None`` (a variable holding a symbolic value) or to the arity of a
    local function returning one."""

    # A family expression: an expression whose value is symbolic if its producers are approved.
    def is_family(self, node: Any, fams: dict[str, int | None]) -> bool:
        node = A.unparen(node)
        if producer_list(node) is not None:
            return True
        if isinstance(node, A.Ident):
            return node.name in fams and fams[node.name] is None
        call = _method_call(node)
        if call is not None and call[0] in _TRANSFORMS:
            return self.is_family(call[1], fams)
        head, args = _spine(node)
        return (isinstance(head, A.Ident) and head.name in fams and fams[head.name] is not None
                and len(args) == fams[head.name])

    def family(self, node: Any, fams: dict[str, int | None], sites: dict[int, Any]) -> bool:
        """Check a family expression's parts; collect its producers into ``sites``."""
        node = A.unparen(node)
        xs = producer_list(node)
        if xs is not None:
            sites[id(node)] = node
            return self.uses(xs, fams, sites)
        if isinstance(node, A.Ident):
            return True
        call = _method_call(node)
        if call is not None and call[0] in _TRANSFORMS:
            return self.family(call[1], fams, sites) and all(self.uses(a, fams, sites) for a in call[2])
        _, args = _spine(node)
        return all(self.uses(a, fams, sites) for a in args)

    def uses(self, node: Any, fams: dict[str, int | None], sites: dict[int, Any]) -> bool:
        """Whether every use of a symbolic value in ``node`` is allowed, collecting approved
        producers into ``sites``. ``node`` is in a position where a symbolic value may not be:
        a producer found there stays a plain list (it is not collected), and a name of ``fams``
        found there fails the check."""
        if isinstance(node, (list, tuple)):
            return all(self.uses(x, fams, sites) for x in node)
        if not isinstance(node, A.Node):
            return True
        if fams and _declared(node) & fams.keys():
            return False  # a rebinding: not followed
        if isinstance(node, A.Let) and not node.is_have:
            return self.let(node, fams, sites)
        if isinstance(node, A.Ident):
            return node.name.partition(".")[0] not in fams
        call = _method_call(node)
        if call is not None and call[0] in _QUESTIONS and self.is_family(call[1], fams):
            trial: dict[int, Any] = {}
            if self.family(call[1], fams, trial) and all(self.uses(a, fams, trial) for a in call[2]):
                sites |= trial
                return True
        return all(self.uses(getattr(node, f.name), fams, sites) for f in fields(node))

    def let(self, node: A.Let, fams: dict[str, int | None], sites: dict[int, Any]) -> bool:
        decl = node.decl
        name = decl.name
        simple = (decl.pattern is None and name is not None and decl.alts is None and decl.value is not None
                  and all(b.kind == "explicit" and b.pattern is None for b in decl.binders)
                  and _plain_list_type(decl.type_text))
        if simple:
            assert name is not None and decl.value is not None
            params = [n for b in decl.binders for n in b.names]
            local_fams = {k: v for k, v in fams.items() if k not in params}
            if self.is_family(decl.value, local_fams) and (params or not decl.binders):
                trial: dict[int, Any] = {}
                bound = {**fams, name: (len(params) if decl.binders else None)}
                if self.family(decl.value, local_fams, trial) and self.uses(node.body, bound, trial):
                    sites |= trial
                    return True
        # an ordinary `let`: its name hides any symbolic value of that name in the body
        inner = {k: v for k, v in fams.items() if k != name}
        return self.uses(decl, fams, sites) and self.uses(node.body, inner, sites)


def _plain_list_type(text: str) -> bool:
    """A declared type the symbolic list may have: none, or a ``List`` type without ``Int`` in
    it (a declared ``Int`` may coerce the members from ``Nat``, which the symbolic list does
    not model; another head may select other functions by field notation)."""
    text = text.strip()
    return not text or (text.startswith("List") and "Int" not in text and "ℤ" not in text)


def approved_producers(body: Any) -> dict[int, Any]:
    """The producer nodes in ``body`` (by id) that may build symbolic values."""
    analysis = _Analysis()
    sites: dict[int, Any] = {}
    analysis.uses(body, {}, sites)
    return sites


class FamiliesMixin:
    """Symbolic lists of sublists (part of :class:`~.core.Compiler`)."""

    budget: Budget
    _lazy_sites: dict[int, Any]

    def families_allowed(self) -> bool:
        """Whether the file leaves the builtins the analysis relies on alone (computed once)."""
        allowed = self.__dict__.get("_families_allowed")
        if allowed is None:
            env = self.env  # type: ignore[attr-defined]
            # `namespace Foo` + `def List.map` is `Foo.List.map`, which `List.map` means inside
            # Foo: any declaration ending in one of the names counts
            allowed = not any(name.endswith(r) for name in env.defs for r in _RELIED_ON) and not any(
                inst.class_name in _RELIED_ON_CLASSES for inst in env.instances)
            self.__dict__["_families_allowed"] = allowed
        return bool(allowed)

    def note_family_sites(self, body: Any) -> None:
        """Run the check on a definition's body before it is compiled."""
        if self.families_allowed():
            self._lazy_sites |= approved_producers(body)

    def c_family_producer(self, node: A.Node, sc: Scope, plain: Closure) -> Closure:
        """An approved producer: the symbolic list, or ``plain`` (the ordinary evaluation) if
        the list turns out not to be a ``List``/``Array`` (a user structure's ``foldl``)."""
        xs_node = producer_list(node)
        if isinstance(xs_node, A.Ident) and xs_node.name.partition(".")[0] not in sc.vars:
            return plain  # `Array.foldl step [[]]`: a function, not a list
        items = self.compile(xs_node, sc, None)  # type: ignore[attr-defined]
        budget = self.budget

        def build(fr: list[Any]) -> Any:
            xs = items(fr)
            if type(xs) is tuple or type(xs) is Arr:
                return SublistFamily(tuple(xs), False, (), budget)
            return plain(fr)

        return build

    # -- shapes of `fun`s -----------------------------------------------------------------
    def lambda_shape(self, node: A.Lambda, sc: Scope) -> Any:
        """What a ``fun`` computes, when it is one of the shapes :mod:`..builtins.sublists` uses."""
        names = _simple_binders(node)
        if names is None or len(names) != 1 or not self.families_allowed():
            return None
        (param,) = names
        (binder,) = node.binders
        if binder.type_text and not binder.type_text.lstrip().startswith("List"):
            return None
        body = A.unparen(node.body)
        if _reads_only_length(body, param):
            return VIA_LENGTH
        call = _method_call(body)
        if call is not None and call[0] in ("contains", "elem") and _is_ident(call[2][0], param):
            other = A.unparen(call[1])
            if isinstance(other, A.Ident) and other.name != param and other.name in sc.vars:
                return (MEMBER_OF, sc.vars[other.name][0])
        head, args = _spine(body)
        if isinstance(head, A.Ident) and head.name == "List.Pairwise" and len(args) == 2 and _is_ident(args[1], param):
            op = _relation(args[0])
            if op is not None:
                return (CHAIN, op)
        if isinstance(head, A.Ident) and head.name == f"{param}.Pairwise" and len(args) == 1:
            op = _relation(args[0])
            if op is not None:
                return (CHAIN, op)
        return None


def _relation(node: Any) -> str | None:
    """``op`` of ``(· op ·)`` or ``fun a b => a op b`` for a transitive order relation."""
    node = A.unparen(node)
    if isinstance(node, A.BinOp) and node.op in CHAIN_OPS:
        if isinstance(node.lhs, A.Cdot) and isinstance(node.rhs, A.Cdot):
            return node.op
        return None
    if isinstance(node, A.Lambda):
        names = _simple_binders(node)
        body = A.unparen(node.body)
        if (names is not None and len(names) == 2 and names[0] != names[1] and isinstance(body, A.BinOp)
                and body.op in CHAIN_OPS and _is_ident(body.lhs, names[0]) and _is_ident(body.rhs, names[1])):
            return body.op
    return None


def _reads_only_length(node: Any, param: str) -> bool:
    """Whether ``param`` occurs in ``node`` only as ``param.length`` (or ``List.length param``),
    and is not rebound inside."""
    found = [False]

    def ok(n: Any) -> bool:
        if isinstance(n, (list, tuple)):
            return all(ok(x) for x in n)
        if not isinstance(n, A.Node):
            return True
        if param in _declared(n):
            return False
        if isinstance(n, A.Ident):
            if n.name == f"{param}.length":
                found[0] = True
                return True
            return n.name.partition(".")[0] != param
        if isinstance(n, A.Proj) and n.field == "length" and _is_ident(n.term, param):
            found[0] = True
            return True
        if isinstance(n, A.App) and _is_ident(n.fn, "List.length") and len(n.args) == 1 and _is_ident(n.args[0], param):
            found[0] = True
            return True
        return all(ok(getattr(n, f.name)) for f in fields(n))

    return ok(node) and found[0]

