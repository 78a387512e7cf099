"""The list of all sublists of a list, kept symbolic while only questions that need no
enumeration are asked of it.

Postconditions of Verina's subsequence tasks build every subsequence of their input,

    let allSubseq := (xs.foldl (fun acc x => acc ++ acc.map (fun sub => x :: sub)) [[]]).map List.reverse

and then ask whether some common (or increasing) subsequence has the output's length and none is
longer. The list has ``2 ^ n`` members, so for ``n`` near 100 no enumeration, in Lean or here,
can finish. A :class:`SublistFamily` stands for that exact Lean list (same members, same order)
and answers the questions asked of it from the structure of its members:

* the members are exactly the sublists (subsequences) of one list, :attr:`SublistFamily.seq`;
* ``filter`` by membership in another such family keeps the common sublists, by
  ``List.Pairwise R`` with ``R`` one of ``<``, ``≤``, ``>``, ``≥`` on numbers or characters the
  chains of ``R``. Both properties hold of every prefix (indeed every sublist) of a member that
  has them, so the lengths of the kept members are exactly ``0, 1, ..., L``: the prefixes of one
  longest kept member realise them all. ``L`` and that member come from the classic dynamic
  programmes (longest common subsequence; longest chain, which for a transitive ``R`` is the
  longest ``Pairwise R`` sublist);
* ``contains v`` asks whether ``v`` is a kept member: ``v`` is a sublist of :attr:`seq` (the
  leftmost matching is a witness whenever any is) and passes the filters;
* ``map g`` where ``g`` reads its argument only through ``List.length`` (the compiler checks the
  ``fun``; see :mod:`..compiler.families`), and then ``contains``/``all``/``any``, only need the
  set of values ``g`` takes, which is ``g`` of one kept member of each length ``0..L``; ``all q``
  / ``any q`` with such a ``q`` likewise.

Any other operation materialises the list, member by member in Lean's order (charging a step per
member, so a large one runs out of steps exactly as the enumeration would), and continues on
the plain list; answers are therefore always those of the enumeration. Evaluating fewer
predicate calls than the enumeration cannot change a decided answer: Lean's functions are total
and pure, and an element the enumeration decides on (``all`` finding a ``false``) has the same
value here.

Where these values may appear is decided by the compiler (:mod:`..compiler.families`): only at
sites whose every use is one of the operations above, so no other code ever sees one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import check_size
from veriscale.backends.embedded.builtins.order import beq_member, compare_le, compare_lt, eq_is_beq, lean_beq
from veriscale.backends.embedded.runtime_support import Budget, BuiltinFn, Fn
from veriscale.lean.values import Char, Nat

#: what a ``fun`` the compiler recognised computes (``Fn.shape``)
VIA_LENGTH = "via-length"
"""``fun l => … l.length …``: reads its list argument only through ``List.length``."""
MEMBER_OF = "member-of"
"""``fun l => ys.contains l``; the shape is ``(MEMBER_OF, slot of ys)``."""
CHAIN = "pairwise"
"""``fun l => List.Pairwise (· op ·) l``; the shape is ``(CHAIN, op)``."""

CHAIN_OPS = ("<", "≤", ">", "≥")
"""Relations that are transitive on the ordered scalars: there ``Pairwise R`` = ``Chain' R``."""

_ORDERED = frozenset({int, Nat, Char})

_Constraint = tuple[str, Any]
"""``("sublist", ys)``: a sublist of ``ys``; ``("chain", op)``: a chain of ``op``."""


class SublistFamily:
    """The Lean list of all sublists of :attr:`items` as ``foldl`` builds it, then filtered and
    mapped by :attr:`ops`.

    ``forward`` says whether members list their elements in the order of :attr:`items` (after
    ``map List.reverse``) or in reverse (the ``foldl`` conses). ``ops`` are ``("filter", p,
    constraint)`` (``constraint`` what ``p`` keeps, as above) followed by at most one
    ``("map", g, None)`` with ``g`` reading only lengths."""

    __slots__ = ("items", "forward", "ops", "budget")
    LEAN_TYPE = "List"

    def __init__(self, items: tuple[Any, ...], forward: bool, ops: tuple[tuple[str, Any, Any], ...],
                 budget: Budget) -> None:
        self.items = items
        self.forward = forward
        self.ops = ops
        self.budget = budget

    def __repr__(self) -> str:
        return f"SublistFamily({self.items!r}, forward={self.forward}, ops={len(self.ops)})"

    @property
    def seq(self) -> tuple[Any, ...]:
        """The list whose sublists the members are (as lists of their elements in order)."""
        return self.items if self.forward else self.items[::-1]

    def _mapped(self) -> bool:
        return bool(self.ops) and self.ops[-1][0] == "map"

    # -- the list itself ------------------------------------------------------------------
    def materialise(self) -> tuple[Any, ...]:
        """The Lean list, exactly: ``foldl`` order, each member as built, then the ops."""
        n = len(self.items)
        count = 1 << min(n, 63)
        check_size(count, "the list of all sublists")
        self.budget.charge(count)  # a step per member, as the enumeration's `fun sub => x :: sub`
        members: list[tuple[Any, ...]] = [()]
        if self.forward:
            for x in self.items:
                members += [s + (x,) for s in members]
        else:
            for x in self.items:
                members += [(x, *s) for s in members]
        out: tuple[Any, ...] = tuple(members)
        for kind, f, _ in self.ops:
            out = tuple(filter(f, out)) if kind == "filter" else tuple(map(f, out))
        return out

    # -- transformations ------------------------------------------------------------------
    def filter(self, p: Callable[..., Any]) -> Any:
        constraint = None if self._mapped() else self._constraint(p)
        if constraint is None:
            return tuple(filter(p, self.materialise()))
        return SublistFamily(self.items, self.forward, (*self.ops, ("filter", p, constraint)), self.budget)

    def map(self, g: Callable[..., Any]) -> Any:
        if isinstance(g, BuiltinFn) and g.builtin.name == "List.reverse" and not self.ops:
            return SublistFamily(self.items, not self.forward, (), self.budget)
        if not self._mapped() and _reads_only_length(g):
            return SublistFamily(self.items, self.forward, (*self.ops, ("map", g, None)), self.budget)
        return tuple(map(g, self.materialise()))

    def _constraint(self, p: Callable[..., Any]) -> _Constraint | None:
        shape = getattr(p, "shape", None)
        if not isinstance(shape, tuple):
            return None
        if shape[0] == MEMBER_OF:
            other = p.env[shape[1]]  # type: ignore[attr-defined]
            if type(other) is SublistFamily and not other.ops:
                return ("sublist", other.seq)
            return None
        if shape[0] == CHAIN and shape[1] in CHAIN_OPS and _ordered(self.items):
            return ("chain", shape[1])
        return None

    # -- questions ------------------------------------------------------------------------
    def contains(self, v: Any) -> bool:
        if self._mapped():
            values = self._values()
            return beq_member(v, values) if values is not None else beq_member(v, self.materialise())
        seq = self.seq
        if type(v) is not tuple or not _plain(seq) or not eq_is_beq(v):
            return beq_member(v, self.materialise())
        self.budget.charge(len(seq) + 1)
        member = _leftmost_sublist(v, seq)
        if member is None:
            return False
        # every member equal to `v` is this very value (one representation per element), so
        # the filters decide on it alone
        return all(p(member) for kind, p, _ in self.ops if kind == "filter")

    def all(self, q: Callable[..., Any]) -> bool:
        values = self._values_for(q)
        if values is None:
            return all(q(x) for x in self.materialise())
        return all(q(x) for x in values)

    def any(self, q: Callable[..., Any]) -> bool:
        values = self._values_for(q)
        if values is None:
            return any(q(x) for x in self.materialise())
        return any(q(x) for x in values)

    def _values_for(self, q: Callable[..., Any]) -> tuple[Any, ...] | None:
        """Values on which ``q`` decides as on every element: the distinct mapped values, or
        one kept member per length when ``q`` reads only lengths."""
        if self._mapped():
            return self._values()
        if _reads_only_length(q):
            return self._one_per_length()
        return None

    def _values(self) -> tuple[Any, ...] | None:
        """``g`` of one kept member of each length (``g`` the final map): every value the
        elements of this list take, and no other."""
        members = self._one_per_length()
        if members is None:
            return None
        g = self.ops[-1][1]
        return tuple(g(m) for m in members)

    def _one_per_length(self) -> tuple[tuple[Any, ...], ...] | None:
        longest = self._longest()
        if longest is None:
            return None
        return tuple(longest[:k] for k in range(len(longest) + 1))

    def _longest(self) -> tuple[Any, ...] | None:
        """A longest member kept by the filters (``None``: not known how to find one)."""
        constraints: list[_Constraint] = []
        for kind, _, c in self.ops:
            if kind == "filter" and c not in constraints:
                constraints.append(c)
        seq = self.seq
        if not constraints:
            return seq
        if len(constraints) > 1:
            return None
        kind, arg = constraints[0]
        if kind == "sublist":
            if not (_plain(seq) and _plain(arg)):
                return None
            self.budget.charge(len(seq) * len(arg) + 1)
            return _longest_common_sublist(seq, arg)
        self.budget.charge(len(seq) * len(seq) + 1)
        return _longest_chain(seq, arg)


def _reads_only_length(f: Any) -> bool:
    if isinstance(f, BuiltinFn):
        return f.builtin.name == "List.length"
    return isinstance(f, Fn) and f.shape == VIA_LENGTH


def _ordered(items: tuple[Any, ...]) -> bool:
    """All of one ordered scalar type (``Nat``/``Int`` or ``Char``), where ``<``/``≤`` are
    total orders and so transitive."""
    kinds = set(map(type, items))
    return kinds <= {int, Nat} or kinds == {Char}


def _plain(items: tuple[Any, ...]) -> bool:
    """One Python type throughout, with Python's ``==`` being Lean's ``==`` (no floats): then
    ``==``-equal elements are the same Lean value with the same representation."""
    kinds = set(map(type, items))
    return len(kinds) <= 1 and all(eq_is_beq(x) for x in items[:1])


def _leftmost_sublist(v: tuple[Any, ...], seq: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The elements of ``seq`` at the leftmost positions matching ``v`` one by one under
    ``==``, or ``None`` when ``v`` is no sublist of ``seq`` (greedy matching finds a matching
    whenever one exists: taking the earliest position leaves the most room for the rest)."""
    out = []
    i = 0
    n = len(seq)
    for x in v:
        while i < n and not lean_beq(seq[i], x):
            i += 1
        if i == n:
            return None
        out.append(seq[i])
        i += 1
    return tuple(out)


def _longest_common_sublist(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    """A longest common sublist of ``a`` and ``b`` under ``==``, as elements of ``a``."""
    m = len(b)
    # table[i][j]: the length of a longest common sublist of a[i:] and b[j:]
    table = [[0] * (m + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        row, below = table[i], table[i + 1]
        x = a[i]
        for j in range(m - 1, -1, -1):
            if lean_beq(x, b[j]):
                row[j] = below[j + 1] + 1
            else:
                row[j] = max(below[j], row[j + 1])
    out = []
    i = j = 0
    while i < len(a) and j < m:
        if lean_beq(a[i], b[j]) and table[i][j] == table[i + 1][j + 1] + 1:
            out.append(a[i])
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _related(op: str, x: Any, y: Any) -> bool:
    if op == "<":
        return compare_lt(x, y)
    if op == "≤":
        return compare_le(x, y)
    if op == ">":
        return compare_lt(y, x)
    return compare_le(y, x)


def _longest_chain(seq: tuple[Any, ...], op: str) -> tuple[Any, ...]:
    """A longest sublist whose consecutive elements are related by ``op``; for a transitive
    relation, a longest one related pairwise."""
    n = len(seq)
    best = [1] * n  # the longest chain ending at i
    before = [-1] * n
    for i in range(n):
        for j in range(i):
            if best[j] + 1 > best[i] and _related(op, seq[j], seq[i]):
                best[i] = best[j] + 1
                before[i] = j
    if n == 0:
        return ()
    i = max(range(n), key=lambda k: best[k])
    out = []
    while i >= 0:
        out.append(seq[i])
        i = before[i]
    return tuple(reversed(out))


def is_family(value: Any) -> bool:
    return type(value) is SublistFamily
