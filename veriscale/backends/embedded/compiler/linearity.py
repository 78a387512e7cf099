"""Array updates that no one can see the old version of, done in place.

Lean updates an array in place when its reference count says nothing else holds it; the
engine's :class:`~veriscale.lean.values.Arr` is persistent instead (every ``push``/``set!``
makes a new version object and turns the old one into a diff), which costs an object and about
ten attribute stores per update. In the loops Verina's solutions are made of, the array
updated is an accumulator that nothing else ever reads again::

    let rec loop (i : Nat) (acc : Array Int) : Array Int :=
      if i < s.size then loop (i + 1) (acc.push s[i]!) else acc

This module proves that of a function body, syntactically, before it is compiled
(:func:`plan_owned_updates`), and writes the updates it proves as text that changes the array
in place (:func:`owned_writer`) when the generated function *owns* it.

**Ownership at run time.** Each generated function keeps, per chain of updates (below), one
local variable, its *owner* (``_o<n>``, ``None`` on entry: :func:`.codegen._body_lines`). An
update whose receiver is not the owner runs the persistent update, as before; when that update
had to copy its list (the receiver was frozen: an argument of the check, a literal, a builtin's
result), the new version is a root no other version reads (:func:`~veriscale.lean.values.owned_result`)
and nothing but this function refers to it, and the owner takes it. An update whose receiver
*is* the owner changes its list in place and returns it. The owner therefore only ever holds a
version this very Python frame made by copying, and in-place updates only touch it.

**The proof (why nobody sees the change).** A *chain variable* is an ``Array``-typed parameter
of the function, or a variable bound by ``let x := <update>``. A chain variable is *linear* when
every occurrence of it (its scope resolved by name, shadowing included) is one of

* a read that keeps nothing of the array: ``x.size``, ``x.isEmpty``, ``x[i]``/``x[i]!``/
  ``x[i]?``, ``x.getD i d``, ``x.get! i``, ``x.get? i``, ``x.back…`` (an element or a number);
* the receiver of an update (``x.push v``, ``x.set! i v``) whose result flows into a linear
  chain variable (the value of a ``let``, or the argument of a self-call in tail position, which
  the generated loop stores into that parameter) or out as the function's result, and after
  which ``x`` is not read (not in the ``let``'s body, not in a later argument of the call);
* ``x`` itself flowing the same way (an argument of a self tail call, not read in a later
  argument; the function's result);

and none is inside a ``fun``, a ``do`` block, a quantifier, a local function or any construct
this analysis does not read, nor inside a term the definition shares (:mod:`.sharing`, whose
sites record variables' values by reference). An owned version enters chain variables only
(the updates that make it flow into linear ones), so by induction it is only ever held by linear
chain variables and the temporaries of one update's text; each of those is dead once the next
update of the chain has run, or leaves the function as its result (the frame then ends and
never touches it again), and nothing it was handed to keeps it: reads keep elements, and a
hoisted or shared term, a memo table, a closure or a data structure never sees it. Hence the
version an in-place update changes is unobservable except through the update's own result.

**Folds.** The ``fun`` of ``List.foldl``/``Array.foldl`` runs as the body of a generated loop
(:func:`..loops.fold_function`) whose turn's result is the next turn's accumulator, the ``fun``'s
first parameter: the loop *is* a self tail call storing the result into that parameter. Its body
is proven as such (``result_into``: a result flows into the accumulator, a chain variable, instead
of leaving the function), so the owner, held by the loop across its turns, only updates a version
the loop made, which the accumulator alone holds; a result that would flow into an accumulator
that is not linear (not an ``Array``, read again, handed on) is not linear either. The loop
starts by copying its accumulator for its owner (:func:`..loops._own_accumulator`): the
caller's ``init``, which the memo table may keep, is never updated.

Everything else keeps the persistent path: a closure-only evaluation, a receiver that is not
the owner (a caller's array, a captured one), a site the analysis did not prove. User
definitions named like the array operations the proof relies on disable it for the file."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins import arrays
from veriscale.backends.embedded.compiler.codegen import CodeGen
from veriscale.backends.embedded.compiler.support import _has_cdot, referenced_names
from veriscale.backends.embedded.registry import MAX_COLLECTION
from veriscale.lean.values import Arr, Nat, owned_result

#: writes (statements, expression) of an operation from its operands' expressions
Writer = Callable[[Sequence[str]], tuple[Sequence[str], str]]

#: array methods whose value keeps nothing of the array (a number, an element, an option of one),
#: with how many arguments each takes
READS = {"size": 0, "isEmpty": 0, "getD": 2, "get!": 1, "get?": 1, "back": 0, "back!": 0, "back?": 0}
#: the updates written in place, with their argument counts
UPDATES = {"push": 1, "set!": 2}
#: user definitions that would make a method above something else than the builtin
_RELIED_ON = tuple(f"Array.{m}" for m in (*READS, *UPDATES))
#: where an update's result goes: the function's result
RESULT = "result"


def relied_on_names_defined(defined: Iterable[str]) -> bool:
    """Whether the file defines one of the array operations the proof relies on."""
    names = set(defined)
    return any(n in names for n in _RELIED_ON)


class _Var:
    """A chain variable (see the module docstring)."""

    __slots__ = ("name", "linear", "uses", "flows", "index")

    def __init__(self, name: str, index: int) -> None:
        self.name = name
        self.linear = True
        self.uses = 0  # occurrences met so far (to tell whether one comes after an update)
        self.flows: list[_Var | str | None] = []  # where its value goes: a chain variable, RESULT, nowhere known
        self.index = index  # for the union of the chains


class _Site:
    __slots__ = ("node", "receiver", "dest")

    def __init__(self, node: A.Node, receiver: _Var | None, dest: _Var | str | None) -> None:
        self.node = node
        self.receiver = receiver
        self.dest = dest


#: a scope: names to the chain variable they denote (``None``: a name that is not one)
_Env = dict[str, "_Var | None"]


class _Walk:
    """One pass over a function body collecting chain variables, their uses and the updates."""

    def __init__(self, self_names: set[str], nparams: int, tail_ids: set[int], shared: set[int]) -> None:
        self.self_names = self_names
        self.nparams = nparams
        self.tail_ids = tail_ids
        self.shared = shared
        self.vars: list[_Var] = []
        self.sites: list[_Site] = []
        self.params: list[_Var | None] = []
        #: where the body's result goes: out of the function (:data:`RESULT`), or, for a fold's
        #: ``fun``, into its accumulator parameter (a chain variable, ``None`` when it is none)
        self.result: _Var | str | None = RESULT

    def new_var(self, name: str) -> _Var:
        v = _Var(name, len(self.vars))
        self.vars.append(v)
        return v

    # -- occurrences ------------------------------------------------------------------------
    def opaque(self, node: Any, env: _Env) -> None:
        """A construct the proof does not read: every chain variable it may name is not linear."""
        for name in referenced_names(node):
            v = env.get(name)
            if v is not None:
                v.uses += 1
                v.linear = False

    def var_of(self, node: Any, env: _Env) -> _Var | None:
        node = _unparen(node)
        if isinstance(node, A.Ident):
            return env.get(node.name)
        return None

    def walk(self, node: Any, env: _Env, tail: bool) -> None:
        if not isinstance(node, A.Node):
            return
        if id(node) in self.shared:
            self.opaque(node, env)
            return
        if isinstance(node, A.Paren):
            if _has_cdot(node.term):
                self.opaque(node, env)
            else:
                self.walk(node.term, env, tail)
        elif isinstance(node, A.Ident):
            self.ident(node, env, tail)
        elif isinstance(node, A.App):
            self.app(node, env, tail)
        elif isinstance(node, A.Proj):
            recv = self.var_of(node.term, env)
            if recv is not None and node.field in READS and READS[node.field] == 0:
                recv.uses += 1
            else:
                self.walk(node.term, env, False)
                if recv is not None:
                    recv.linear = False
        elif isinstance(node, A.Index):
            recv = self.var_of(node.coll, env)
            if recv is not None:
                recv.uses += 1
            else:
                self.walk(node.coll, env, False)
            self.walk(node.index, env, False)
        elif isinstance(node, A.If):
            self.walk(node.cond, env, False)
            inner = _shadow(env, [node.hyp] if node.hyp else [])
            self.walk(node.then, inner, tail)
            self.walk(node.els, inner, tail)
        elif isinstance(node, A.Match):
            for d in node.discrs:
                self.walk(d, env, False)
            for alt in node.alts:
                names = set().union(*(referenced_names(p) for p in alt.patterns)) if alt.patterns else set()
                inner = _shadow(env, [*names, *(h for h in node.hyps if h)])
                self.walk(alt.rhs, inner, tail)
        elif isinstance(node, A.Let):
            self.let(node, env, tail)
        elif isinstance(node, A.LetRec):
            for decl in node.decls:
                self.opaque(decl, env)
            self.walk(node.body, _shadow(env, [d.name for d in node.decls if d.name]), tail)
        elif isinstance(node, (A.BinOp, A.UnOp, A.Tuple, A.ListLit, A.ArrayLit)):
            for sub in A.subterms(node):
                self.walk(sub, env, False)
        elif isinstance(node, A.Ascription):
            self.walk(node.term, env, False)
        elif isinstance(node, (A.NumLit, A.StrLit, A.CharLit, A.SciLit, A.UnitLit, A.ProofTerm)):
            pass
        else:
            self.opaque(node, env)

    def ident(self, node: A.Ident, env: _Env, tail: bool) -> None:
        first, _, rest = node.name.partition(".")
        v = env.get(first)
        if v is None:
            return
        v.uses += 1
        if not rest:
            if tail:
                v.flows.append(self.result)
            else:
                v.linear = False
        elif READS.get(rest) != 0:
            v.linear = False

    def app(self, node: A.App, env: _Env, tail: bool) -> None:
        fn = _unparen(node.fn) if not (isinstance(node.fn, A.Paren) and _has_cdot(node.fn.term)) else node.fn
        if (tail and id(node) in self.tail_ids and isinstance(fn, A.Ident) and fn.name in self.self_names
                and len(node.args) == self.nparams and not any(isinstance(a, A.NamedArg) for a in node.args)):
            self.self_call(node, env)
            return
        if tail and _update(node) is not None:
            self.site(node, env, self.result)
            return
        method = _method(node)
        if method is not None:
            recv_node, name, args = method
            recv = self.var_of(recv_node, env)
            if recv is not None:
                recv.uses += 1
                if READS.get(name) != len(args):
                    recv.linear = False
                for a in args:
                    self.walk(a, env, False)
                return
        self.walk(node.fn, env, False)
        for a in node.args:
            self.walk(a, env, False)

    def site(self, node: A.App, env: _Env, dest: _Var | str | None) -> None:
        """An update in a flow position whose result goes to ``dest``."""
        found = _update(node)
        assert found is not None
        recv_node, args = found
        recv = self.var_of(recv_node, env)
        if recv is not None:
            recv.uses += 1
        else:
            self.walk(recv_node, env, False)
        for a in args:
            self.walk(a, env, False)
        self.sites.append(_Site(node, recv, dest))

    def self_call(self, node: A.App, env: _Env) -> None:
        moved: list[tuple[_Var, int]] = []  # variables updated or passed on, and their uses then
        for j, a in enumerate(node.args):
            p = self.params[j]
            inner = _unparen(a)
            if isinstance(inner, A.App) and _update(inner) is not None:
                self.site(inner, env, p)
                recv = self.var_of(_update(inner)[0], env)  # type: ignore[index]
                if recv is not None:
                    moved.append((recv, recv.uses))
                continue
            v = self.var_of(inner, env)
            if v is not None:
                v.uses += 1
                v.flows.append(p)
                moved.append((v, v.uses))
                continue
            self.walk(a, env, False)
        for v, uses in moved:
            if v.uses != uses:  # read again after its update or hand-over
                v.linear = False

    def let(self, node: A.Let, env: _Env, tail: bool) -> None:
        decl = node.decl
        value = _unparen(decl.value) if decl.value is not None else None
        simple = not decl.binders and decl.pattern is None and decl.alts is None and decl.name is not None
        if tail and simple and isinstance(value, A.App) and _update(value) is not None:
            # (in tail position only: then nothing but the body runs after the update)
            assert decl.name is not None
            x = self.new_var(decl.name)
            self.site(value, env, x)
            recv = self.var_of(_update(value)[0], env)  # type: ignore[index]
            before = recv.uses if recv is not None else 0
            self.walk(node.body, {**env, decl.name: x}, tail)
            if recv is not None and recv.uses != before:
                recv.linear = False  # read after its update
            return
        if decl.binders or decl.alts is not None:
            self.opaque(decl, env)  # a local function: a closure over what it names
        elif decl.value is not None:
            self.walk(decl.value, env, False)
        names = [decl.name] if decl.name else []
        if decl.pattern is not None:
            names.extend(referenced_names(decl.pattern))
        self.walk(node.body, _shadow(env, names), tail)

    # -- the verdict ------------------------------------------------------------------------
    def tracked(self) -> dict[int, tuple[A.Node, int]]:
        """The updates written with an owner, by node id, with the number of their chain (and
        :attr:`param_chains`: each parameter's chain, ``None`` for one that is not linear)."""
        changed = True
        while changed:  # a variable flowing into one that is not linear is not linear either
            changed = False
            for v in self.vars:
                if not v.linear:
                    continue
                dests = [*v.flows, *(s.dest for s in self.sites if s.receiver is v)]
                if any(d is None or (isinstance(d, _Var) and not d.linear) for d in dests):
                    v.linear = False
                    changed = True
        parent = list(range(len(self.vars)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for v in self.vars:
            for d in v.flows:
                if isinstance(d, _Var):
                    parent[find(d.index)] = find(v.index)
        for s in self.sites:  # an update joins the chain of what it updates
            if isinstance(s.dest, _Var) and s.dest.linear and s.receiver is not None and s.receiver.linear:
                parent[find(s.dest.index)] = find(s.receiver.index)
        self.param_chains = [find(p.index) if p is not None and p.linear else None for p in self.params]
        out: dict[int, tuple[A.Node, int]] = {}
        for s in self.sites:
            if isinstance(s.dest, _Var) and s.dest.linear:
                out[id(s.node)] = (s.node, find(s.dest.index))
            elif s.dest == RESULT and s.receiver is not None and s.receiver.linear:
                # (the result of an update of anything else: nothing would be updated after it)
                out[id(s.node)] = (s.node, find(s.receiver.index))
        return out


def plan_owned_updates(body: Any, params: Sequence[tuple[str | None, bool]], self_names: Iterable[str],
                       tail_ids: set[int], shared: Iterable[int] | None,
                       result_into: int | None = None) -> dict[int, tuple[A.Node, int]]:
    """The updates of a function body proven to be written in place when owned (module
    docstring), by node id, each with the number of its chain (one owner per chain).

    ``params``: the function's explicit parameters in order, each a name (``None`` when it has
    none) and whether its type is ``Array …``; ``self_names``: the names a self-call is written
    with; ``tail_ids``: the ids of the applications in tail position; ``shared``: the ids of the
    terms the definition shares; ``result_into``: the parameter the body's result flows into
    (a fold's ``fun``, see :func:`plan_fold_fun`), else the result leaves the function."""
    return _planned(body, params, self_names, tail_ids, shared, result_into)[0]


def _planned(body: Any, params: Sequence[tuple[str | None, bool]], self_names: Iterable[str], tail_ids: set[int],
             shared: Iterable[int] | None, result_into: int | None) -> tuple[dict[int, tuple[A.Node, int]], list[int | None]]:
    """:func:`plan_owned_updates` and the chain of each parameter (``None``: not linear)."""
    w = _Walk(set(self_names), len(params), tail_ids, set(shared or ()))
    env: _Env = {}
    for name, is_array in params:
        v = w.new_var(name) if name is not None and is_array else None
        w.params.append(v)
        if name is not None:
            env[name] = v
    for n in self_names:
        env.pop(n, None)
    if result_into is not None:
        w.result = w.params[result_into]
    w.walk(body, env, True)
    return w.tracked(), w.param_chains


def _unparen(node: Any) -> Any:
    while isinstance(node, A.Paren) and not _has_cdot(node.term):
        node = node.term
    return node


def _shadow(env: _Env, names: Iterable[str]) -> _Env:
    names = [n for n in names if n in env]
    if not names:
        return env
    return {**env, **dict.fromkeys(names)}


def _method(node: A.App) -> tuple[Any, str, list[Any]] | None:
    """``(receiver, method, args)`` of ``x.m args`` (an identifier ``x.m`` or a projection)."""
    fn = node.fn
    if isinstance(fn, A.Ident) and "." in fn.name:
        recv, _, name = fn.name.rpartition(".")
        if "." in recv:
            return None
        return A.Ident(fn.line, fn.col, recv), name, list(node.args)
    if isinstance(fn, A.Proj):
        return fn.term, fn.field, list(node.args)
    return None


def _update(node: A.App) -> tuple[Any, list[Any]] | None:
    """``(receiver, args)`` when ``node`` is ``x.push v``/``x.set! i v`` written as a method."""
    m = _method(node)
    if m is None or any(isinstance(a, A.NamedArg) for a in m[2]):
        return None
    recv, name, args = m
    if UPDATES.get(name) != len(args):
        return None
    return recv, args


class LinearityMixin:
    """The compiler's side (part of :class:`~.core.Compiler`): the plans of the functions
    compiled, and the text of the updates they prove."""

    gen: CodeGen
    _owned_updates: dict[int, tuple[A.Node, str]]
    _fold_funs: set[int]

    def note_owned_updates(self, body: Any, params: Sequence[tuple[str | None, bool]], self_names: Iterable[str],
                           tail_ids: set[int], shared: Iterable[int] | None, defined: Iterable[str],
                           result_into: int | None = None) -> list[str | None]:
        """Plan the updates of one function body (:func:`plan_owned_updates`), one owner variable
        per chain; ``defined``: the file's definitions (none may be an operation relied on).
        Returns the owner of each parameter's chain (``None`` where none of its updates is
        planned)."""
        if relied_on_names_defined(defined):
            return [None] * len(params)
        owners: dict[int, str] = {}
        planned, param_chains = _planned(body, params, self_names, tail_ids, shared, result_into)
        for key, (node, chain) in planned.items():
            if chain not in owners:
                owners[chain] = self.gen.owner()
            self._owned_updates[key] = (node, owners[chain])
        return [owners.get(c) if c is not None else None for c in param_chains]

    def note_fold_fun(self, node: Any) -> None:
        """``node`` is the function operand of ``List.foldl``/``Array.foldl`` (:meth:`fold_fun_owner`)."""
        node = _unparen(node)
        if isinstance(node, A.Lambda):
            self._fold_funs.add(id(node))

    def fold_fun_owner(self, node: A.Lambda, params: Sequence[tuple[str | None, bool]], shared: Iterable[int] | None,
                       defined: Iterable[str]) -> str | None:
        """Plan the body of a ``fun`` noted by :meth:`note_fold_fun` as the body of the fold's
        loop (:func:`..loops.fold_function`): the result of one application is the accumulator
        (its first parameter) of the next, exactly as a self-call in tail position stores its
        argument into the parameter, so the proof is that of a ``let rec`` loop with the result
        flowing into that parameter (``result_into``), and an owner held across the iterations
        updates in place only a version that loop made. Returns the owner of the accumulator's
        chain (``None`` when it is not linear or has no update planned)."""
        if id(node) not in self._fold_funs or len(params) != 2:
            return None
        self._fold_funs.discard(id(node))
        return self.note_owned_updates(node.body, params, (), set(), shared, defined, result_into=0)[0]

    def owned_update_writer(self, node: A.Node, fn: Any, nargs: int) -> Writer | None:
        """The text of the builtin call ``node`` when it is a planned update, else ``None``."""
        planned = self._owned_updates.get(id(node))
        if planned is None or planned[0] is not node:
            return None
        return owned_writer(self.gen, fn, nargs, planned[1])


# -- the text ---------------------------------------------------------------------------------
def owned_writer(gen: CodeGen, fn: Any, nargs: int, owner: str) -> Writer | None:
    """The text of an update proven by :func:`plan_owned_updates`, with the owner ``owner``
    (module docstring); ``None`` for a builtin that is not one of the updates written so."""
    if fn is arrays.array_push and nargs == 2:
        return _owned_push(gen, owner)
    if fn is arrays.array_set_bang and nargs == 3:
        return _owned_set(gen, owner)
    return None


def _owned_push(gen: CodeGen, o: str) -> Writer:
    arr, call, limit, owned = gen.const(Arr), gen.const(arrays.array_push), gen.const(MAX_COLLECTION), gen.const(owned_result)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        a, v = (_operand(gen, e, stmts) for e in exprs)
        r = gen.temp()
        stmts.extend([
            f"if {a} is {o} and {a}._len < {limit}:",
            f"    {a}._items.append({v})",
            f"    {a}._len += 1",
            f"    {r} = {a}",
            "else:",
            f"    {r} = ({a}.push({v}) if {a}.__class__ is {arr} and {a}._len < {limit} else {call}({a}, {v}))",
            f"    {o} = {owned}({r}, {a})",
        ])
        return stmts, r

    return write


def _owned_set(gen: CodeGen, o: str) -> Writer:
    arr, nat, call, owned = gen.const(Arr), gen.const(Nat), gen.const(arrays.array_set_bang), gen.const(owned_result)

    def write(exprs: Sequence[str]) -> tuple[Sequence[str], str]:
        stmts: list[str] = []
        a, i, v = (_operand(gen, e, stmts) for e in exprs)
        r = gen.temp()
        in_range = f"{i}.__class__ is {nat} and {i} < {a}._len"
        stmts.extend([
            f"if {a} is {o} and {in_range}:",
            f"    {a}._items[{i}] = {v}",
            f"    {r} = {a}",
            "else:",
            f"    {r} = ({a}.set_in_range({i}, {v}) if {a}.__class__ is {arr} and {in_range} else {call}({a}, {i}, {v}))",
            f"    {o} = {owned}({r}, {a})",
        ])
        return stmts, r

    return write


def _operand(gen: CodeGen, expr: str, stmts: list[str]) -> str:
    """``expr`` kept in a temporary (read several times by the text)."""
    if expr.startswith("_t") and expr[2:].isdigit():
        return expr
    t = gen.temp()
    stmts.append(f"{t} = {expr}")
    return t


__all__ = ["LinearityMixin", "plan_owned_updates", "owned_writer", "relied_on_names_defined"]
