"""Repeated terms of a definition: a term written twice is evaluated once per check and values.

Verina's postconditions often state one count twice, ``(xs.filter p).length - result = 0 ∧
result ≤ (xs.filter p).length``; evaluating each copy costs the whole count again. Lean values
are immutable and Lean functions pure, so two occurrences of the same term that read the same
variables with the same values have the same value (Lean's compiler shares them too, by
common-subexpression elimination; the truth value of a proposition does not depend on it).

Which terms are shared is decided per definition, before it is compiled
(:func:`repeated_terms`): the largest application or quantifier that occurs at least twice,
syntactically identical up to positions (every field, the binder types' text included), and
that does work worth a lookup (a ``fun``, a quantifier or a call of a user definition). Each
occurrence keeps its own compiled closure and is wrapped in a *sharing site*
(:meth:`SharingMixin.shared`) whose key is

* at compile time: the term's structure, the expected type and the elaborator's type of the
  term, the frame slot of every variable the term names (so a name bound elsewhere, or shadowing
  a global, gives another key), the namespaces opened by ``open … in`` and the monad context;
* at run time: the exact values of those variables (:func:`..memo.memo_key`: ``Nat 3`` and
  ``Int 3`` differ, lists and arrays differ).

The value is recorded in the check's memo table (``Budget.memo``, while it is less than half
full) with the steps its evaluation took; a later occurrence with the same key returns it for
one step (none when the evaluation took none), never more than evaluating it again would cost.
The run-time part of the key is built only once it can tell two evaluations apart: a term's
first evaluation in a check is recorded under its compile-time key with the variables' values
by reference, an occurrence reading the very same objects finds it by identity (even values
too large to key, :data:`..memo.KEY_LIMIT`: the same objects are the same values), and any
other occurrence keys both (the entries and hits of keying each at once, one entry more per
term keyed). The table is emptied with the budget,
so a check's answer and step count depend on that check alone, and the entries are copied by a
replay of :mod:`.hoisting` like any memo entry. An evaluation that raises (out of steps,
unsupported, undecidable) records nothing; a self-call left pending in tail position
(:class:`..runtime_support.TailCall`) is not a value and is not recorded. Definitions that
declare a local instance (``have inst : BEq α := …``) share nothing: an instance in scope can
change what a term means without the term naming it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.compiler.support import Closure, Scope, referenced_names
from veriscale.backends.embedded.memo import MAX_ENTRIES, MISSING, NotKeyable, memo_key
from veriscale.backends.embedded.runtime_support import Budget, TailCall

if TYPE_CHECKING:
    from veriscale.backends.embedded.elab.node_types import NodeTypes
    from veriscale.lean.types import LeanType

#: terms that may be shared (calls, field notation, quantifiers: never a control signal)
_SHAREABLE = (A.App, A.Proj, A.Quant)
#: constructs whose presence means evaluating a term costs steps
_STEP_WORK = (A.Lambda, A.LambdaMatch, A.Quant)
#: constructs whose meaning depends on more than the variables a term names
_CONTEXTUAL = (A.Do, A.DoSeq, A.DoReturn, A.Hole, A.Sorry, A.Cdot)
#: entries of the check's memo table past which sharing sites record nothing more, so that
#: a repeated term inside a ``fun`` applied to a long list leaves room for the memoised
#: recursions of :mod:`.core` (the table as a whole holds ``memo.MAX_ENTRIES``)
SHARE_TABLE_LIMIT = MAX_ENTRIES // 2
#: what a term's entry (keyed by its compile-time token) holds once its values are keyed
_KEYED = object()
#: fields that locate a node and do not change its meaning
_POSITION_FIELDS = frozenset({"line", "col", "end_line"})


def structure_key(node: Any) -> Hashable:
    """A hashable key equal for two trees exactly when they are the same up to positions: every
    other field, source texts of types included."""
    if isinstance(node, A.Node):
        return (type(node).__name__, *(structure_key(getattr(node, f.name)) for f in fields(node)
                                       if f.name not in _POSITION_FIELDS))
    if isinstance(node, (list, tuple)):
        return (type(node).__name__, *(structure_key(x) for x in node))
    if isinstance(node, A.Modifiers):
        return repr(node)
    if node is None or isinstance(node, (str, int, float, bool)):
        return node
    return repr(node)


def repeated_terms(body: Any, user_names: Iterable[str]) -> dict[int, Hashable]:
    """The occurrences (by node id) of the largest shareable terms of ``body`` that occur at
    least twice, each with its structure key; empty when ``body`` declares a local instance."""
    from veriscale.backends.embedded.compiler.lambdas import local_instance_class

    users = set(user_names)
    keys: dict[int, Hashable] = {}
    counts: Counter[Hashable] = Counter()
    nodes: list[A.Node] = []

    def collect(node: A.Node) -> bool:
        """Record the shareable terms below ``node``; whether ``node`` may be part of one."""
        if isinstance(node, A.LetDecl) and local_instance_class(node) is not None:
            raise _LocalInstance
        if (isinstance(node, A.Binder) and node.kind == "inst") or isinstance(node, A.DoHave):
            raise _LocalInstance  # (a `have` in a `do` block keeps no text to tell)
        ok = not isinstance(node, _CONTEXTUAL)
        for sub in A.subterms(node):
            ok = collect(sub) and ok
        if ok and isinstance(node, _SHAREABLE) and _costs_steps(node, users):
            key = structure_key(node)
            keys[id(node)] = key
            counts[key] += 1
            nodes.append(node)
        return ok

    try:
        for top in (body if isinstance(body, list) else [body]):
            if isinstance(top, A.Node):
                collect(top)
    except _LocalInstance:
        return {}
    repeated = {k for k, n in counts.items() if n >= 2}
    if not repeated:
        return {}
    out: dict[int, Hashable] = {}

    def mark(node: Any) -> None:
        # top-down: a repeated term is shared whole; the terms inside it are not wrapped again
        if id(node) in keys and keys[id(node)] in repeated:
            out[id(node)] = keys[id(node)]
            return
        for sub in A.subterms(node):
            mark(sub)

    for top in (body if isinstance(body, list) else [body]):
        mark(top)
    return out


def tail_only(shared: dict[int, Hashable], tail_calls: set[int]) -> frozenset[int]:
    """The occurrences of ``shared`` (node id: structure key) whose key's every occurrence is
    one of ``tail_calls``, the applications in tail position of the definition's body.

    A sharing site records a value its term returns, never a pending self tail call
    (:class:`..runtime_support.TailCall`), and replays only what a site of the same token
    recorded. Take such an occurrence that compiles as a self tail call. A site of the same
    token is an occurrence of the same key, so in tail position of the same body, naming the
    same variables in the same slots (the token holds them, so the term's function resolves
    alike), under the same definition: it compiles as a self tail call too. So no site of that
    token ever records, none ever replays, and each only evaluates its term: the term alone
    is the same (:meth:`~.core.Compiler.compile` leaves the site out)."""
    keys_elsewhere = {key for node_id, key in shared.items() if node_id not in tail_calls}
    return frozenset(node_id for node_id, key in shared.items() if key not in keys_elsewhere)


class _LocalInstance(Exception):
    """A local instance in the definition: nothing in it is shared."""


def _costs_steps(node: Any, users: set[str]) -> bool:
    if isinstance(node, _STEP_WORK):
        return True
    if isinstance(node, A.Ident):
        name = node.name.removeprefix("_root_.")
        return name in users or name.rpartition(".")[2] in users
    return any(_costs_steps(sub, users) for sub in A.subterms(node))


class SharingMixin:
    """Sharing sites for a definition's repeated terms (part of :class:`~.core.Compiler`)."""

    budget: Budget
    node_types: NodeTypes
    _open_terms: tuple[str, ...]

    def shared(self, node: A.Node, sc: Scope, expected: LeanType | None, inner: Closure) -> Closure:
        """``inner`` (the compiled ``node``, one of the definition's repeated terms) wrapped in a
        sharing site."""
        assert sc.ctx.shared is not None
        names = sorted(referenced_names(node))
        bound = tuple((n, sc.vars[n][0]) for n in names if n in sc.vars)
        token = (
            "shared", sc.ctx.shared[id(node)], bound, repr(expected), repr(self.node_types.of(node)),
            self._open_terms, sc.ctx.monad, sc.ctx.do_depth > 0,
        )
        return _site(inner, token, tuple(slot for _, slot in bound), self.budget)


def _site(inner: Closure, token: Hashable, slots: tuple[int, ...], budget: Budget) -> Closure:
    def run(fr: list[Any]) -> Any:
        values = tuple([fr[s] for s in slots])
        table = budget.memo
        first = table.get(token, MISSING)
        if first is MISSING:  # no occurrence evaluated yet in this check: nothing to look up
            return _evaluate(inner, fr, table, token, values)
        if first is not _KEYED:
            recorded, value, steps = first
            if _same(recorded, values):
                return _replay(budget, value, steps)
            table[token] = _KEYED
            try:
                table[(token, memo_key(recorded))] = (value, steps)
            except NotKeyable:
                pass
        try:
            key = (token, memo_key(values))
        except NotKeyable:
            return inner(fr)
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            return _replay(budget, *hit)
        return _evaluate(inner, fr, table, key, None)

    def _evaluate(inner: Closure, fr: list[Any], table: dict[Any, Any], key: Hashable, values: Any) -> Any:
        """Evaluate the term and record it under ``key``: with the variables' ``values`` by
        reference for a term's first evaluation in the check, else the value and its steps."""
        start = budget.used()
        value = inner(fr)
        if type(value) is not TailCall and len(table) < SHARE_TABLE_LIMIT:
            steps = budget.used() - start
            table[key] = (value, steps) if values is None else (values, value, steps)
        return value

    return run


def _same(recorded: tuple[Any, ...], values: tuple[Any, ...]) -> bool:
    """Whether the variables hold the very objects they held when the term was recorded."""
    for a, b in zip(recorded, values):
        if a is not b:
            return False
    return True


def _replay(budget: Budget, value: Any, steps: int) -> Any:
    """A recorded value, for one step (none when its evaluation took none)."""
    if steps:
        budget.tick -= 1
        if budget.tick < 0:
            budget.refill()
    return value
