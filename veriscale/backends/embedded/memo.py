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
than a small multiple of the work it replaces. Keys are built only once a hit has become
possible (:func:`memoised_fold`, and the sharing sites of :mod:`.compiler.sharing`): a first
call is recorded with its arguments by reference, and a call on the very same objects is a
hit even when they are too large to key (the same objects are the same Lean values).
"""

from __future__ import annotations

import struct
from collections.abc import Hashable
from typing import Any

from veriscale.backends.embedded.builtins.hashmaps import LeanHashMap, LeanHashSet
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
    if t is Fn:
        return v  # a function's equality and hash are its identity (keeps it alive, like ById)
    if t is LeanHashSet or t is LeanHashMap:
        return _map_key(v)
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
    if isinstance(v, LeanHashMap):
        return _map_key(v)
    # NONE, UNIT (singletons), functions, anything else: by identity
    return ById(v)


_GENERAL = object()
"""The mark of an argument keyed by :func:`memo_key` in :func:`args_key`."""


def args_key(token: Hashable, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The key of a call with ``args``: ``token`` followed by each argument's key, flat.

    A scalar is ``type, value`` and a list or array of scalars of one type ``type, element
    type, value`` (what :func:`memo_key` makes of them, built here without a call per
    argument); any other value is ``_GENERAL, memo_key(value)``. Each argument's part is told
    by its first item (a scalar type, ``tuple``/``Arr`` or the mark), so two keys are equal
    exactly when every argument's :func:`memo_key` is; raises :class:`NotKeyable` as it does."""
    parts: list[Any] = [token]
    for a in args:
        t = type(a)
        if t in _SCALARS:
            parts += (t, a)
            continue
        if (t is tuple or t is Arr) and len(a) < KEY_LIMIT:
            if not a:
                parts += (_GENERAL, (t,))  # memo_key of an empty list or array
                continue
            kinds = set(map(type, a))
            if len(kinds) == 1:
                kind = kinds.pop()
                if kind in _SCALARS:
                    parts += (t, kind, a)
                    continue
        parts += (_GENERAL, memo_key(a))
    return tuple(parts)


def _map_key(v: LeanHashMap) -> Hashable:
    """An empty table is told apart by its bucket count only; any other by identity."""
    if len(v) == 0:
        layout = v._layout  # noqa: SLF001
        if layout is not None and layout.parent is None and layout.buckets is not None:
            return (type(v), "empty", len(layout.buckets))
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


class _Start:
    """The table's token for one (function, start value) of a memoised fold once two of its
    calls were seen: the keys of its calls are ``(token, key of the list)``, hashed without
    hashing the function and start value again."""

    __slots__ = ()


_KEYED = object()
"""What a fold site's or start's table entry holds once its calls are keyed (see below)."""

_DEEP = object()
"""The mark of a start key holding a value that is not a scalar (:func:`_start_key`)."""

_PRE = object()
"""The mark of a start's *pre-key* (:func:`_start_pre`)."""


def _start_key(site: Hashable, f: Fn, init: Any) -> Hashable:
    """The exact key of ``fold f init`` for a fold of ``site`` (raises :class:`NotKeyable`):
    the values ``f`` captured (:func:`fn_key` without its code, which ``site`` names) and
    ``init``. When every one of them is a scalar it is the flat ``(site, type, value, …)``,
    which :func:`_start_pre` builds as well; else ``(site, _DEEP, captured, key of init)``
    (the second item tells the forms apart)."""
    flat = _start_pre(site, f, init)
    if flat[1] is not _PRE:
        return flat
    slots = f.key_slots
    env = f.env
    budget = [KEY_LIMIT]
    captured = tuple([_key(env[s], budget) for s in slots])  # type: ignore[union-attr]
    return (site, _DEEP, captured, memo_key(init))


def _start_pre(site: Hashable, f: Fn, init: Any) -> tuple[Any, ...]:
    """What a start is told apart by before its exact key is built: the exact key itself when
    the captured values and ``init`` are scalars or empty lists and arrays (the common case,
    cheap: ``type, value`` each), else a *pre-key* ``(site, _PRE, …)`` with each such value
    exactly and each other one by its class (and its length, for a list or an array). Equal
    starts have equal pre-keys (their keys tell the class and length apart), so a start whose
    pre-key was never seen was never seen either."""
    env = f.env
    slots: tuple[int, ...] = f.key_slots  # type: ignore[assignment]
    t = type(init)
    if len(slots) == 1 and t in _SCALARS:  # the common case, written out
        v = env[slots[0]]
        if type(v) in _SCALARS:
            return (site, type(v), v, t, init)
    parts: list[Any] = [site, None]
    exact = True
    for v in [*[env[s] for s in slots], init]:
        t = type(v)
        if t in _SCALARS:
            parts += (t, v)
        elif t is tuple or t is Arr:
            n = len(v)
            if n:
                exact = False
                parts.append((t, n))
            else:
                parts += (t, ())  # an empty list or array: one Lean value of its class
        else:
            exact = False
            parts.append(t)
    if exact:
        del parts[1]
    else:
        parts[1] = _PRE
    return tuple(parts)


def memoised_fold(fold: Any, budget: Any, name: str) -> Any:
    """``fold f init xs`` (``List.foldl``/``Array.foldl``) with its calls on a user ``fun``
    recorded in the check's memo table, and a fold over ``xs ++ [x]`` after one over ``xs``
    with the same function and start computed as ``f (fold f init xs) x``
    (``List.foldl_append``): folding every prefix of a list (``(l.take k).foldl f init`` for
    ``k = 1, 2, …``, a cubic loop of Verina's) then costs two steps per prefix. A fold whose
    function or values have no exact key (:func:`fn_key`, :func:`memo_key`) is not recorded.

    Keys are built only once a hit has become possible, in three levels, so a fold made once
    per check (the common case) costs no key at all:

    1. a fold of a ``fun`` not folded before in the check (its *site*, the fold's name and the
       ``fun``'s compiled code, which every key of it starts with) is a miss: it is recorded by
       reference, as ``table[site] = (f, init, xs, result)``;
    2. at the site's second fold, that record is keyed by its *start* (the function with its
       captured values, and ``init``), and so is every later fold of the site: a start seen
       once holds ``(xs, result)`` by reference, and a fold of the very same list object again
       is a hit. A start of scalars and empty lists is keyed flat at once (:func:`_start_pre`);
       one with another value in it (a captured array, a list as ``init``) first by its
       *pre-key* (2a: classes and lengths, no element read), which holds ``(f, init, xs,
       result)`` by reference until a second fold with an equal pre-key keys both starts;
    3. at a start's second fold (other than that identity hit), the lists are keyed: a token
       stands for the start and ``(token, key of xs)`` holds the result.

    The table holds the same calls as if each were keyed at once, so hits, steps and answers
    are the same (but for a fold of the very same objects again, a hit even when they are too
    large to key); it holds one more entry per site, start and pre-key folded more than once
    (and a pre-key entry for a start too large to key)."""

    last: list[Any] = [None, None]  # the list keyed last and its keys (a loop folds one list often)

    def list_keys(xs: Any) -> tuple[Hashable, Hashable]:
        """The keys of ``xs`` and of ``xs`` without its last element (raises NotKeyable)."""
        if xs is last[0]:
            return last[1]  # type: ignore[no-any-return]
        keys = _list_keys(xs)
        if keys is None:
            keys = memo_key(xs), memo_key(type(xs)(xs[:-1]))
        last[0], last[1] = xs, keys
        return keys

    def key_pending(table: dict[Hashable, Any], start: Hashable, state: Any) -> Any:
        """Level 3 for a start seen once: its token, the recorded fold keyed under it."""
        token = _Start()
        table[start] = token
        pxs, presult = state
        try:
            memo_put(table, (token, list_keys(pxs)[0]), presult)
        except NotKeyable:
            pass
        return token

    def record_start(table: dict[Hashable, Any], site: Hashable, f: Any, init: Any, xs: Any, result: Any) -> None:
        """A fold recorded at its site's level moved to its start's (level 2 or 2a)."""
        start = _start_pre(site, f, init)
        if start[1] is _PRE:
            memo_put(table, start, (f, init, xs, result))
        else:
            memo_put(table, start, (xs, result))

    def call(f: Any, init: Any, xs: Any) -> Any:
        if type(f) is not Fn or f.key_slots is None or not xs:
            return fold(f, init, xs)
        table = budget.memo
        site = (name, f.run)
        first = table.get(site, MISSING)
        if first is MISSING:  # level 1: the site's first fold
            result = fold(f, init, xs)
            if len(table) < MAX_ENTRIES:
                table[site] = (f, init, xs, result)
            return result
        if first is not _KEYED:
            pf, pinit, pxs, presult = first
            if pf is f and pinit is init and pxs is xs:
                return _hit(budget, presult)
            table[site] = _KEYED
            record_start(table, site, pf, pinit, pxs, presult)
        pre = _start_pre(site, f, init)
        start: Hashable = pre
        if pre[1] is _PRE:  # level 2a: a start with a list, array or other value in it
            pending = table.get(start, MISSING)
            if pending is MISSING:  # no fold of an equal start yet: nothing to key
                result = fold(f, init, xs)
                if len(table) < MAX_ENTRIES:
                    table[start] = (f, init, xs, result)
                return result
            if pending is not _KEYED:
                table[start] = _KEYED
                pf, pinit, pxs, presult = pending
                try:
                    memo_put(table, _start_key(site, pf, pinit), (pxs, presult))
                except NotKeyable:
                    pass
            try:
                start = _start_key(site, f, init)
            except NotKeyable:
                return fold(f, init, xs)
        token = table.get(start, MISSING)
        if token is MISSING:  # level 2: the start's first fold
            result = fold(f, init, xs)
            if len(table) < MAX_ENTRIES:
                table[start] = (xs, result)
            return result
        if type(token) is tuple:
            if token[0] is xs:
                return _hit(budget, token[1])
            token = key_pending(table, start, token)
        try:  # level 3
            key, shorter = list_keys(xs)
        except NotKeyable:
            return fold(f, init, xs)
        key = (token, key)
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            return _hit(budget, hit)
        before = table.get((token, shorter), MISSING)
        if before is not MISSING:
            budget.tick -= 1
            if budget.tick < 0:
                budget.refill()
            result = f(before, xs[-1])
        else:
            result = fold(f, init, xs)
        if len(table) < MAX_ENTRIES:
            table[key] = result
        return result

    return call


def _hit(budget: Any, value: Any) -> Any:
    """A recorded call's value, for the one step the call costs."""
    budget.tick -= 1
    if budget.tick < 0:
        budget.refill()
    return value
