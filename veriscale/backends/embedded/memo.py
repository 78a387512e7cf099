"""Memoised pure calls: keys that tell Lean values apart exactly, and the table of one check.

Lean code is pure and its values immutable, so a call of a user function (or of ``foldl`` with
a user function) on arguments equal *as Lean values* returns the same value, and may be looked
up instead of computed again. What makes that exact here is the key: two run-time values get
the same key only when they are the same Lean value and have the same Python representation
(``Nat 3`` and ``Int 3`` are both the Python number 3 and equal under ``==``, but they are
different Lean values and the engine computes differently with them, so their keys differ;
``0.0`` and ``-0.0`` are ``==`` in Python, not in Lean). Values whose equality says less than
that (hash maps compare by contents, not by the bucket layout that ``toList`` reveals;
functions have no equality at all) are keyed by identity, which is always sound.

The table is the check's ``Budget.memo`` (:mod:`.runtime_support`), emptied with the budget, so a
check's answer and step count never depend on the checks run before it. A hit costs one step
(the call it stands for); the table holds at most :data:`MAX_ENTRIES` entries, and keys are
built only for arguments of at most :data:`KEY_LIMIT` leaves, so memoisation never costs more
than a small multiple of the work it replaces.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable
from typing import Any

from veriscale.backends.embedded.builtins.hashmaps import LeanHashMap
from veriscale.backends.embedded.runtime_support import Fn, LeanRange, LeanSubarray
from veriscale.lean.values import Arr, Char, Ctor, Nat, Pair, Some, Struct, UInt8, UInt16, UInt32, UInt64

MAX_ENTRIES = 200_000
"""Entries one check's table may hold; past it, calls are computed and not recorded."""

KEY_LIMIT = 4_096
"""Leaves (scalars, list elements) a key may have; a larger argument is not memoised."""

_SCALARS = frozenset({bool, int, str, Nat, Char, UInt8, UInt16, UInt32, UInt64})


class NotKeyable(Exception):
    """The value is too large to key, or has no exact key."""


class ById:
    """A key standing for one object: equal only to a key of the very same object (which it
    keeps alive, so its id cannot be reused while the key exists)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return type(other) is ById and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def memo_key(value: Any, limit: int = KEY_LIMIT) -> Hashable:
    """A hashable key equal to another key exactly when both values are the same Lean value
    with the same representation; raises :class:`NotKeyable` past ``limit`` leaves."""
    budget = [limit]
    return _key(value, budget)


def _key(v: Any, budget: list[int]) -> Hashable:
    t = type(v)
    if t in _SCALARS:
        budget[0] -= 1
        if budget[0] < 0:
            raise NotKeyable
        return (t, v)
    if t is tuple or t is Arr:
        n = len(v)
        budget[0] -= n + 1
        if budget[0] < 0:
            raise NotKeyable
        if n == 0:
            return (t,)
        kinds = set(map(type, v))  # at C speed: the common case is a list of one scalar type
        if len(kinds) == 1:
            kind = kinds.pop()
            if kind in _SCALARS:
                return (t, kind, v)
        budget[0] += n  # the items count themselves below
        return (t, None, tuple([_key(x, budget) for x in v]))
    if t is float:
        budget[0] -= 1
        return (float, struct.pack("<d", v))  # the bits: 0.0 and -0.0, NaN payloads differ
    if t is Pair:
        return (Pair, _key(v.fst, budget), _key(v.snd, budget))
    if t is Some:
        return (Some, _key(v.value, budget))
    if t is Struct:
        return (Struct, v.type_name, tuple([(name, _key(x, budget)) for name, x in v.fields]))
    if t is Ctor:
        return (Ctor, v.name, tuple([_key(x, budget) for x in v.args]))
    if t is LeanRange:
        return (LeanRange, v.start, v.stop, v.step)
    if t is LeanSubarray:
        return (LeanSubarray, _key(v.array, budget), v.start, v.stop)
    if isinstance(v, LeanHashMap) and len(v) == 0:
        layout = v._layout  # noqa: SLF001 - an empty table is told apart by its bucket count only
        if layout is not None and layout.parent is None and layout.buckets is not None:
            return (t, "empty", len(layout.buckets))
    # NONE, UNIT (singletons), functions, non-empty hash maps, anything else: by identity
    return ById(v)


def fn_key(f: Fn, limit: int = KEY_LIMIT) -> Hashable:
    """The key of a function value as a *function*: its compiled code and the values of the
    variables it captures (see ``LambdasMixin._make_fn``). Two closures of one ``fun`` that
    captured equal values are the same function, whichever call created them."""
    slots = f.key_slots
    if slots is None:
        return ById(f)
    env = f.env
    budget = [limit]
    return (f.run, tuple([_key(env[s], budget) for s in slots]))


def _scalar_fn_key(f: Fn) -> Hashable | None:
    """:func:`fn_key` of a function whose captured variables are all scalars (the common case,
    built without a call per variable); ``None`` otherwise."""
    env = f.env
    values = [env[s] for s in f.key_slots]  # type: ignore[union-attr]
    if not _SCALARS.issuperset(map(type, values)):
        return None
    return (f.run, tuple([(type(v), v) for v in values]))


def _list_keys(xs: Any) -> tuple[Hashable, Hashable] | None:
    """``memo_key(xs)`` and ``memo_key(xs[:-1])`` of a non-empty list of scalars of one type
    (the common case, built without walking it twice); ``None`` for any other value."""
    if type(xs) is not tuple or len(xs) + 1 > KEY_LIMIT:
        return None
    kinds = set(map(type, xs))
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind not in _SCALARS:
        return None
    return (tuple, kind, xs), ((tuple, kind, xs[:-1]) if len(xs) > 1 else (tuple,))


def memo_put(table: dict[Hashable, Any], key: Hashable, value: Any) -> None:
    """Record a call in a check's table (``Budget.memo``) unless the table is full."""
    if len(table) < MAX_ENTRIES:
        table[key] = value


MISSING = object()
"""What a memo lookup gives for a call never recorded (``None`` is a run-time value)."""


def memoised_fold(fold: Any, budget: Any, name: str) -> Any:
    """``fold f init xs`` (``List.foldl``/``Array.foldl``) with its calls on a user ``fun``
    recorded in the check's memo table, and a fold over ``xs ++ [x]`` after one over ``xs``
    with the same function and start computed as ``f (fold f init xs) x``
    (``List.foldl_append``): folding every prefix of a list (``(l.take k).foldl f init`` for
    ``k = 1, 2, …``, a cubic loop of Verina's) then costs two steps per prefix. A fold whose
    function or values have no exact key (:func:`fn_key`, :func:`memo_key`) is not recorded."""

    last: list[Any] = [None, None]  # the list keyed last and its keys (a loop folds one list often)

    def call(f: Any, init: Any, xs: Any) -> Any:
        if type(f) is not Fn or f.key_slots is None or not xs:
            return fold(f, init, xs)
        try:
            start = (name, _scalar_fn_key(f) or fn_key(f), (type(init), init) if type(init) in _SCALARS else memo_key(init))
            if xs is last[0]:
                keys = last[1]
            else:
                keys = _list_keys(xs)
                last[0], last[1] = xs, keys
            if keys is None:
                key = (start, memo_key(xs))
                shorter = (start, memo_key(type(xs)(xs[:-1])))
            else:
                key, shorter = (start, keys[0]), (start, keys[1])
        except NotKeyable:
            return fold(f, init, xs)
        table = budget.memo
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            budget.charge(1)
            return hit
        before = table.get(shorter, MISSING)
        if before is not MISSING:
            budget.charge(1)
            result = f(before, xs[-1])
        else:
            result = fold(f, init, xs)
        memo_put(table, key, result)
        return result

    return call
