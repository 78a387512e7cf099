"""``Std.HashMap`` and ``Std.HashSet`` with Lean 4 (v4.24)'s bucket layout, hence its iteration order.

Lookups, insertion, erasure and size are modelled by a Python dictionary. Iteration order
(``toList``, ``toArray``, ``keys``, ``values``, ``fold``, ``for x in m``) is the bucket order of
Lean's separate-chaining table, so the table itself is modelled too. The Lean facts this rests on
(``Std.Data.DHashMap.Internal.{Index,Defs,AssocList.Basic}``, ``Std.Data.DHashMap.Raw``,
``Init.Data.Hashable``, the runtime's ``lean_uint64_mix_hash``):

* ``emptyWithCapacity c`` (``∅``/``{}`` are ``c = 8``) allocates
  ``Nat.nextPowerOfTwo (c * 4 / 3)`` empty buckets (8 -> 16).
* A key goes to bucket ``mkIdx size (hash k)`` = ``scrambleHash (hash k) &&& (size - 1)`` with
  ``scrambleHash h = let f := h ^^^ (h >>> 32); f ^^^ (f >>> 16)`` (64-bit ``USize``).
* Inserting a new key conses it onto the *head* of its bucket, increments the size, then expands
  when ``size * 4 / 3 > buckets`` (``expandIfNecessary``): the bucket array doubles and the old
  buckets are walked in index order, each from head to tail, consing every entry onto the head of
  its new bucket (so entries that stay together come out reversed).
* Inserting an existing key replaces key and value in place (``AssocList.replace``);
  ``HashSet.insert`` is ``insertIfNew``: a present key leaves the set unchanged. Erasing removes
  the entry in place and never shrinks the table; ``modify`` changes the value in place.
* ``fold``/``toArray``/``for`` walk buckets ``0, 1, ...`` each head to tail; since
  leanprover/lean4#6244 ``toList``/``keys``/``values`` (``foldRev`` consing) give the same order.
* Hashes: ``Nat`` ``n % 2^64``; ``Int`` ``2n`` / ``2m+1`` for ``-(m+1)`` (mod ``2^64``); ``Char``
  its code point; ``UIntN`` the value; ``Bool`` 11/13; ``Option`` ``none`` 11, ``some a`` =
  ``mixHash (hash a) 13``; pairs ``mixHash (hash a) (hash b)``; ``List``/``Array`` fold
  ``mixHash`` from 7; ``mixHash`` is the runtime's 64-bit ``hash(h1, h2)``.

Where a fact is missing the layout becomes *unknown* and the order-revealing operations answer
``unsupported`` instead of guessing: keys whose hash lives in the C runtime or in a deriving
handler (``String``, structures, inductives, ``Unit``), and ``alter`` creating a new key.

Keys containing floats are refused (``Float`` ``BEq`` is not lawful: a ``NaN`` key is never found).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from veriscale.backends.embedded.builtins._core import check_size, contains_float, default_of_type, nat
from veriscale.backends.embedded.registry import MAX_COLLECTION, alias, builtin
from veriscale.lean.values import (
    NONE,
    UNIT,
    Arr,
    Char,
    Nat,
    Pair,
    Some,
    Unsupported,
    _FixedWidth,
    _NoneType,
)

Fn = Callable[..., Any]

_MASK64 = (1 << 64) - 1
DEFAULT_CAPACITY = 8

Buckets = tuple[tuple[Any, ...], ...]
"""Keys per bucket, head of the association list first."""


# ---------------------------------------------------------------------------------------------
# Lean's hash functions and bucket index


def mix_hash(h1: int, h2: int) -> int:
    """``mixHash`` (runtime ``lean_uint64_mix_hash``, i.e. ``lean::hash(uint64, uint64)``)."""
    h2 = (h2 - h1) & _MASK64
    h2 ^= (h1 << 16) & _MASK64
    h1 = (h1 - h2) & _MASK64
    h2 ^= (h1 << 32) & _MASK64
    h2 = (h2 - h1) & _MASK64
    h2 ^= (h1 << 20) & _MASK64
    return h2


def _int_hash(value: int) -> int:
    """``Hashable.hash`` of an ``Int``: non-negative ``n`` to ``2n``, negative to ``2(-n-1)+1``."""
    return (2 * value if value >= 0 else 2 * (-value - 1) + 1) & _MASK64


def lean_hash(value: Any) -> int | None:
    """``Hashable.hash`` of a runtime value, or ``None`` when the Lean instance is not modelled."""
    t = type(value)
    if t is Nat:  # the common keys first, by their exact type
        return int(value) & _MASK64
    if t is int:
        return _int_hash(value)
    if isinstance(value, bool):
        return 11 if value else 13
    if isinstance(value, Nat):
        return int(value) & _MASK64
    if isinstance(value, _FixedWidth):
        return int(value)
    if isinstance(value, int):
        return _int_hash(value)
    if isinstance(value, Char):
        return ord(value)
    if isinstance(value, (tuple, Arr)):  # List and Array share the instance
        acc = 7
        for item in value:
            h = lean_hash(item)
            if h is None:
                return None
            acc = mix_hash(acc, h)
        return acc
    if isinstance(value, Pair):
        a, b = lean_hash(value.fst), lean_hash(value.snd)
        return None if a is None or b is None else mix_hash(a, b)
    if isinstance(value, Some):
        a = lean_hash(value.value)
        return None if a is None else mix_hash(a, 13)
    if isinstance(value, _NoneType):
        return 11
    return None


def scramble_hash(h: int) -> int:
    folded = h ^ (h >> 32)
    return folded ^ (folded >> 16)


def bucket_index(h: int, bucket_count: int) -> int:
    """``mkIdx``: the scrambled hash masked by ``bucket_count - 1`` (a power of two)."""
    return scramble_hash(h) & (bucket_count - 1)


def next_power_of_two(n: int) -> int:
    """``Nat.nextPowerOfTwo``: the least power of two ``>= n`` (1 for 0)."""
    power = 1
    while power < n:
        power *= 2
    return power


def initial_bucket_count(capacity: int) -> int:
    return next_power_of_two(capacity * 4 // 3)


# ---------------------------------------------------------------------------------------------
# The layout, as a log of layout-changing operations replayed on demand

_INSERT, _ERASE = 0, 1


class _Layout:
    """One version of the key layout: ``parent`` plus one operation, or a materialized table.

    Versions share their history, so an insertion costs O(1) here; the buckets are computed only
    when an order-revealing operation asks (:func:`_materialize`) and then cached on the node.
    """

    __slots__ = ("buckets", "key", "op", "parent", "size")

    def __init__(
        self, parent: _Layout | None, op: int, key: Any, size: int, buckets: Buckets | None = None
    ) -> None:
        self.parent = parent
        self.op = op
        self.key = key
        self.size = size
        """Number of entries after the operation (drives ``expandIfNecessary``)."""
        self.buckets = buckets


def _empty_layout(capacity: int) -> _Layout:
    """The layout of ``emptyWithCapacity capacity``: one node per capacity, shared by every map
    made empty with it (a node never changes once its buckets are known, and these are)."""
    layout = _EMPTY_LAYOUTS.get(capacity)
    if layout is None:
        layout = _Layout(None, _INSERT, None, 0, ((),) * initial_bucket_count(capacity))
        if len(_EMPTY_LAYOUTS) < 64:
            _EMPTY_LAYOUTS[capacity] = layout
    return layout


_EMPTY_LAYOUTS: dict[int, _Layout] = {}


def _materialize(node: _Layout) -> Buckets:
    if node.buckets is not None:
        return node.buckets
    pending: list[_Layout] = []
    base: _Layout = node
    while base.buckets is None:
        pending.append(base)
        assert base.parent is not None
        base = base.parent
    # mutable copy, each bucket kept tail-first so that consing onto the head is an append
    table: list[list[Any]] = [b[::-1] if b else [] for b in map(list, base.buckets)]
    mask = len(table) - 1
    for step in reversed(pending):
        key = step.key
        t = type(key)
        # lean_hash, inline for the common keys
        h = (key & _MASK64 if t is Nat else (2 * key if key >= 0 else -2 * key - 1) & _MASK64 if t is int
             else lean_hash(key))
        assert h is not None  # only keys with a modelled hash get a known layout
        folded = h ^ (h >> 32)  # bucket_index, inline
        bucket = table[(folded ^ (folded >> 16)) & mask]
        if step.op == _ERASE:
            bucket.remove(key)  # AssocList.erase: the others keep their order
            continue
        bucket.append(key)  # cons at the head
        if step.size * 4 // 3 > mask + 1:  # expandIfNecessary
            table = _expand(table)
            mask = len(table) - 1
    node.buckets = tuple([tuple(b[::-1]) for b in table])
    return node.buckets


def _expand(table: list[list[Any]]) -> list[list[Any]]:
    """``expand``: double the array; walk old buckets in index order, each head to tail, consing
    every entry onto its new bucket (tables here keep buckets tail-first)."""
    size = len(table) * 2
    target: list[list[Any]] = [[] for _ in range(size)]
    for bucket in table:
        for key in reversed(bucket):  # head to tail
            h = lean_hash(key)
            assert h is not None
            target[bucket_index(h, size)].append(key)
    return target


# ---------------------------------------------------------------------------------------------
# The table

_DEFAULT_LAYOUT = object()
_PLAIN_KEY_TYPES = frozenset({bool, int, str, Nat, Char})
#: key types whose Lean hash is modelled (:func:`lean_hash`), told at a glance
_HASHED_KEY_TYPES = frozenset({bool, int, Nat, Char})
_ABSENT = object()
"""A diff's old value for a key the older version did not have."""


class LeanHashMap:
    """An immutable ``Std.HashMap``; equality and hashing ignore the layout.

    The entries are a persistent dictionary, as :class:`~veriscale.lean.values.Arr` is a
    persistent list (Baker's version trees), so that a fold inserting into an accumulator is
    linear where a copy per insertion made it quadratic: each map is a *version*, either a
    **root** owning a dictionary of exactly its entries (``_dict``), or a **diff** pointing to a
    newer version (``_next``) and recording the one change that gives it back (``_key``'s old
    value ``_old``, or :data:`_ABSENT`). An update of a root made by an update mutates its
    dictionary in place, hands it to the new version and turns the old one into a diff; a root
    made otherwise (the constructor, a check's inputs, an empty map) is *frozen*: its first update
    copies the dictionary, so values that outlive one evaluation never become diffs. Reading a
    diff first gives it a dictionary of its own again (a copy with the diffs undone, once), which
    is what every update cost before. Each version keeps its size (``_len``).

    Every in-place update builds the new version, then turns the old one into a diff, then
    mutates the dictionary, each step one store: an exception delivered between two bytecodes
    (the engine's watchdog) leaves every reachable version with its value, since undoing a diff
    whose change was not made yet changes nothing.

    ``_layout`` is the bucket layout (``None`` when unknown), persistent on its own.
    """

    __slots__ = ("_dict", "_len", "_layout", "_next", "_key", "_old", "_owned")
    LEAN_TYPE = "Std.HashMap"

    def __init__(self, entries: dict[Any, Any] | None = None, layout: Any = _DEFAULT_LAYOUT) -> None:
        """``LeanHashMap()`` is ``∅``; other layouts come from the operations below."""
        self._dict: dict[Any, Any] | None = dict(entries or {})
        self._len = len(self._dict)
        self._next: LeanHashMap | None = None
        self._key: Any = None
        self._old: Any = None
        self._owned = False
        if layout is _DEFAULT_LAYOUT:
            if self._dict:
                raise ValueError("a non-empty map needs its layout (or None for unknown)")
            layout = _empty_layout(DEFAULT_CAPACITY)
        self._layout: _Layout | None = layout

    @classmethod
    def with_capacity(cls, capacity: int) -> LeanHashMap:
        return cls._make({}, _empty_layout(capacity), owned=False)

    @classmethod
    def _make(cls, entries: dict[Any, Any], layout: _Layout | None, owned: bool = True) -> LeanHashMap:
        made = cls.__new__(cls)
        made._dict = entries
        made._len = len(entries)
        made._next = None
        made._key = made._old = None
        made._owned = owned
        made._layout = layout
        return made

    # -- the entries of this version

    @property
    def _entries(self) -> dict[Any, Any]:
        """This version's entries (read only, and only until the map is updated)."""
        d = self._dict
        return d if d is not None else self._detach()

    def _detach(self) -> dict[Any, Any]:
        """Give this diff version a dictionary of its own: the root's with every diff between
        them undone, newest first."""
        path: list[LeanHashMap] = []
        node = self
        while node._dict is None:
            path.append(node)
            node = node._next  # type: ignore[assignment]
        entries = dict(node._dict)
        for diff in reversed(path):
            if diff._old is _ABSENT:
                entries.pop(diff._key, None)
            else:
                entries[diff._key] = diff._old
        self._owned = True  # nothing else refers to this copy
        self._next = self._key = self._old = None
        self._dict = entries  # one store: from here on this version is a root of its own
        return entries

    def _updated(self, key: Any, value: Any, length: int, layout: _Layout | None) -> LeanHashMap:
        """The version with ``key`` mapped to ``value`` (``_ABSENT``: erased), ``length`` entries
        and ``layout``; this version keeps its value (see the class docstring)."""
        entries = self._entries
        if not self._owned:
            entries = dict(entries)
            if value is _ABSENT:
                del entries[key]
            else:
                entries[key] = value
            return self._make(entries, layout)
        new = self._make(entries, layout)
        new._len = length
        self._old = entries.get(key, _ABSENT)
        self._key = key
        self._next = new
        self._dict = None  # this version is now a diff of `new`
        if value is _ABSENT:
            del entries[key]
        else:
            entries[key] = value
        return new

    # -- lookups (layout independent)

    def get(self, key: Any) -> Any:
        d = self._dict
        return (d if d is not None else self._detach()).get(_checked_key(key), _MISSING)

    def __len__(self) -> int:
        return self._len

    def __contains__(self, key: object) -> bool:
        d = self._dict
        return _checked_key(key) in (d if d is not None else self._detach())

    # -- updates

    def with_entry(self, key: Any, value: Any, *, replace: bool = True) -> LeanHashMap:
        """``insert`` (``replace``) or ``insertIfNew``: a present key keeps its position (and
        with ``replace`` gets the new value); a new one is consed onto its bucket's head."""
        key = _checked_key(key)
        d = self._dict
        present = key in (d if d is not None else self._detach())
        if present:
            return self._updated(key, value, self._len, self._layout) if replace else self
        length = self._len + 1
        check_size(length, self.LEAN_TYPE)
        layout = self._layout
        if layout is not None:
            hashed = type(key) in _HASHED_KEY_TYPES or lean_hash(key) is not None
            layout = _Layout(layout, _INSERT, key, length) if hashed else None
        return self._updated(key, value, length, layout)

    def without(self, key: Any) -> LeanHashMap:
        key = _checked_key(key)
        if key not in self._entries:
            return self
        layout = self._layout
        if layout is not None:
            layout = _Layout(layout, _ERASE, key, self._len - 1)
        return self._updated(key, _ABSENT, self._len - 1, layout)

    def with_value(self, key: Any, value: Any) -> LeanHashMap:
        """``modify``: a new value for a present key, position unchanged."""
        return self._updated(key, value, self._len, self._layout)

    def with_unknown_layout(self) -> LeanHashMap:
        return self._make(dict(self._entries), None)

    # -- iteration in Lean's order

    def buckets(self) -> Buckets:
        if self._layout is None:
            raise Unsupported(
                f"iteration over {self.LEAN_TYPE}",
                "Lean's bucket layout is not modelled for these keys or operations",
            )
        return _materialize(self._layout)

    def ordered_keys(self) -> list[Any]:
        return [k for bucket in self.buckets() for k in bucket]

    def ordered_items(self) -> list[tuple[Any, Any]]:
        keys = self.ordered_keys()
        entries = self._entries
        return [(k, entries[k]) for k in keys]

    def __iter__(self) -> Iterator[Any]:
        """``for ⟨k, v⟩ in m`` (pairs); a set yields its elements."""
        return iter([Pair(k, v) for k, v in self.ordered_items()])

    @property
    def bucket_count(self) -> int | None:
        return None if self._layout is None else len(_materialize(self._layout))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._entries == other._entries  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).LEAN_TYPE, frozenset(self._entries.items())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._entries!r})"


class LeanHashSet(LeanHashMap):
    """An immutable ``Std.HashSet`` (a hash map to ``Unit``)."""

    __slots__ = ()
    LEAN_TYPE = "Std.HashSet"

    def __iter__(self) -> Iterator[Any]:
        return iter(self.ordered_keys())


class _Missing:
    pass


_MISSING = _Missing()


def _checked_key(key: Any) -> Any:
    if type(key) in _PLAIN_KEY_TYPES:
        return key
    if contains_float(key):
        raise Unsupported("Std.HashMap key", "Float keys have no lawful BEq/Hashable")
    return key


def _capacity(capacity: Any) -> int:
    return int(capacity)


# ---------------------------------------------------------------------------------------------
# Std.HashMap


@builtin("Std.HashMap.empty", "{α : Type u} {β : Type v} [BEq α] [Hashable α] (capacity : Nat := 8) : Std.HashMap α β")
def hashmap_empty(capacity: Any = DEFAULT_CAPACITY) -> LeanHashMap:
    return LeanHashMap.with_capacity(_capacity(capacity))


alias("Std.HashMap.emptyWithCapacity", "Std.HashMap.empty", "{α : Type u} {β : Type v} [BEq α] [Hashable α] (capacity : Nat := 8) : Std.HashMap α β", verified=False)


@builtin("Std.HashMap.insert", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) (a : α) (b : β) : Std.HashMap α β")
def hashmap_insert(m: LeanHashMap, key: Any, value: Any) -> LeanHashMap:
    return m.with_entry(key, value)


@builtin("Std.HashMap.insertIfNew", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) (a : α) (b : β) : Std.HashMap α β")
def hashmap_insert_if_new(m: LeanHashMap, key: Any, value: Any) -> LeanHashMap:
    return m.with_entry(key, value, replace=False)


@builtin("Std.HashMap.contains", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) (a : α) : Bool")
def hashmap_contains(m: LeanHashMap, key: Any) -> bool:
    return key in m


@builtin("Std.HashMap.get?", "{α : Type _} {β : Type _} : Std.HashMap α β → α → Option β", verified=False)
def hashmap_get_opt(m: LeanHashMap, key: Any) -> Any:
    value = m.get(key)
    return NONE if value is _MISSING else Some(value)


alias("Std.HashMap.getElem?", "Std.HashMap.get?", "{α : Type _} {β : Type _} : Std.HashMap α β → α → Option β", verified=False)


@builtin("Std.HashMap.getD", "{α : Type _} {β : Type _} : Std.HashMap α β → α → β → β", verified=False)
def hashmap_get_d(m: LeanHashMap, key: Any, fallback: Any) -> Any:
    value = m.get(key)
    return fallback if value is _MISSING else value


@builtin("Std.HashMap.get!", "{α : Type _} {β : Type _} : Std.HashMap α β → α → β", typed=True, verified=False)
def hashmap_get_bang(m: LeanHashMap, key: Any, *, result_type: Any = None) -> Any:
    value = m.get(key)
    if value is _MISSING:
        return default_of_type(result_type, construct="Std.HashMap.get!")
    return value


alias("Std.HashMap.getElem!", "Std.HashMap.get!", "{α : Type _} {β : Type _} : Std.HashMap α β → α → β", verified=False)


@builtin("Std.HashMap.erase", "{α : Type _} {β : Type _} : Std.HashMap α β → α → Std.HashMap α β", verified=False)
def hashmap_erase(m: LeanHashMap, key: Any) -> LeanHashMap:
    return m.without(key)


@builtin("Std.HashMap.size", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) : Nat")
def hashmap_size(m: LeanHashMap) -> Nat:
    return nat(len(m))


@builtin("Std.HashMap.isEmpty", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) : Bool")
def hashmap_is_empty(m: LeanHashMap) -> bool:
    return len(m) == 0


@builtin("Std.HashMap.modify", "{α : Type _} {β : Type _} : Std.HashMap α β → α → (β → β) → Std.HashMap α β", verified=False)
def hashmap_modify(m: LeanHashMap, key: Any, f: Fn) -> LeanHashMap:
    value = m.get(key)
    return m if value is _MISSING else m.with_value(key, f(value))


@builtin("Std.HashMap.alter", "{α : Type _} {β : Type _} : Std.HashMap α β → α → (Option β → Option β) → Std.HashMap α β", verified=False)
def hashmap_alter(m: LeanHashMap, key: Any, f: Fn) -> LeanHashMap:
    value = m.get(key)
    result = f(NONE if value is _MISSING else Some(value))
    if isinstance(result, Some):
        if value is _MISSING:
            # where `Raw₀.alter` puts a new key is not pinned down here: forget the layout
            return m.with_entry(key, result.value).with_unknown_layout()
        return m.with_value(key, result.value)  # AssocList.alter rewrites in place
    return m.without(key)


@builtin("Std.HashMap.toList", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) : List (α × β)")
def hashmap_to_list(m: LeanHashMap) -> tuple:
    return tuple(Pair(k, v) for k, v in m.ordered_items())


@builtin("Std.HashMap.toArray", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) : Array (α × β)")
def hashmap_to_array(m: LeanHashMap) -> Arr:
    return Arr(hashmap_to_list(m))


@builtin("Std.HashMap.keys", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) : List α")
def hashmap_keys(m: LeanHashMap) -> tuple:
    return tuple(m.ordered_keys())


@builtin("Std.HashMap.keysArray", "{α : Type _} {β : Type _} : Std.HashMap α β → Array α", verified=False)
def hashmap_keys_array(m: LeanHashMap) -> Arr:
    return Arr(m.ordered_keys())


@builtin("Std.HashMap.values", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} (m : Std.HashMap α β) : List β")
def hashmap_values(m: LeanHashMap) -> tuple:
    return tuple(v for _, v in m.ordered_items())


@builtin("Std.HashMap.valuesArray", "{α : Type _} {β : Type _} : Std.HashMap α β → Array β", verified=False)
def hashmap_values_array(m: LeanHashMap) -> Arr:
    return Arr(hashmap_values(m))


@builtin("Std.HashMap.fold", "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} {γ : Type w} (f : γ → α → β → γ) (init : γ) (b : Std.HashMap α β) : γ")
def hashmap_fold(f: Fn, init: Any, m: LeanHashMap) -> Any:
    """``fold (f : γ → α → β → γ) (init : γ) (m : HashMap α β)``, buckets in order."""
    acc = init
    for k, v in m.ordered_items():
        acc = f(acc, k, v)
    return acc


@builtin("Std.HashMap.ofList", "{α : Type u} {β : Type v} [BEq α] [Hashable α] (l : List (α × β)) : Std.HashMap α β")
def hashmap_of_list(pairs: tuple) -> LeanHashMap:
    """``insertMany ∅``: a later pair with an equal key replaces the value."""
    return hashmap_insert_many(LeanHashMap(), pairs)


@builtin("Std.HashMap.insertMany", "{α : Type _} {β : Type _} : Std.HashMap α β → List (α × β) → Std.HashMap α β", verified=False)
def hashmap_insert_many(m: LeanHashMap, pairs: Any) -> LeanHashMap:
    for p in pairs:
        m = m.with_entry(p.fst, p.snd)
    return m


# ---------------------------------------------------------------------------------------------
# Std.HashSet


@builtin("Std.HashSet.empty", "{α : Type u} [BEq α] [Hashable α] (capacity : Nat := 8) : Std.HashSet α")
def hashset_empty(capacity: Any = DEFAULT_CAPACITY) -> LeanHashSet:
    return LeanHashSet.with_capacity(_capacity(capacity))  # type: ignore[return-value]


alias("Std.HashSet.emptyWithCapacity", "Std.HashSet.empty", "{α : Type u} [BEq α] [Hashable α] (capacity : Nat := 8) : Std.HashSet α", verified=False)


@builtin("Std.HashSet.insert", "{α : Type u} {_ : BEq α} {_ : Hashable α} (m : Std.HashSet α) (a : α) : Std.HashSet α")
def hashset_insert(s: LeanHashSet, key: Any) -> LeanHashSet:
    # `HashSet.insert` is `insertIfNew`: the set is unchanged when the element is present
    d = s._dict
    if d is None or type(key) not in _HASHED_KEY_TYPES:
        return s.with_entry(key, UNIT, replace=False)  # type: ignore[return-value]
    # `with_entry` and `_updated` for a root and a key of a modelled hash, inline (a loop
    # inserts once a turn), in the same order of stores
    if key in d:
        return s
    length = s._len + 1
    if length > MAX_COLLECTION:
        check_size(length, s.LEAN_TYPE)
    layout = s._layout
    if layout is not None:
        layout = _Layout(layout, _INSERT, key, length)
    new = _new_map(type(s))
    new._next = None
    new._key = new._old = None
    new._owned = True
    new._layout = layout
    new._len = length
    if not s._owned:  # frozen: a copy
        d = dict(d)
        d[key] = UNIT
        new._dict = d
        return new
    new._dict = d
    s._old = _ABSENT
    s._key = key
    s._next = new
    s._dict = None  # `s` is now a diff of `new`
    d[key] = UNIT
    return new


_new_map = object.__new__


@builtin("Std.HashSet.contains", "{α : Type u} {_ : BEq α} {_ : Hashable α} (m : Std.HashSet α) (a : α) : Bool")
def hashset_contains(s: LeanHashSet, key: Any) -> bool:
    d = s._dict
    if d is not None and type(key) in _PLAIN_KEY_TYPES:
        return key in d
    return key in s


@builtin("Std.HashSet.erase", "{α : Type _} : Std.HashSet α → α → Std.HashSet α", verified=False)
def hashset_erase(s: LeanHashSet, key: Any) -> LeanHashSet:
    return s.without(key)  # type: ignore[return-value]


@builtin("Std.HashSet.size", "{α : Type u} {_ : BEq α} {_ : Hashable α} (m : Std.HashSet α) : Nat")
def hashset_size(s: LeanHashSet) -> Nat:
    return nat(len(s))


@builtin("Std.HashSet.isEmpty", "{α : Type u} {_ : BEq α} {_ : Hashable α} (m : Std.HashSet α) : Bool")
def hashset_is_empty(s: LeanHashSet) -> bool:
    return len(s) == 0


@builtin("Std.HashSet.toList", "{α : Type u} {_ : BEq α} {_ : Hashable α} (m : Std.HashSet α) : List α")
def hashset_to_list(s: LeanHashSet) -> tuple:
    return tuple(s.ordered_keys())


@builtin("Std.HashSet.toArray", "{α : Type u} {_ : BEq α} {_ : Hashable α} (m : Std.HashSet α) : Array α")
def hashset_to_array(s: LeanHashSet) -> Arr:
    return Arr(s.ordered_keys())


@builtin("Std.HashSet.fold", "{α : Type u} {_ : BEq α} {_ : Hashable α} {β : Type v} (f : β → α → β) (init : β) (m : Std.HashSet α) : β")
def hashset_fold(f: Fn, init: Any, s: LeanHashSet) -> Any:
    """``fold (f : γ → α → γ) (init : γ) (s : HashSet α)``, buckets in order."""
    acc = init
    for k in s.ordered_keys():
        acc = f(acc, k)
    return acc


@builtin("Std.HashSet.ofList", "{α : Type u} [BEq α] [Hashable α] (l : List α) : Std.HashSet α")
def hashset_of_list(items: tuple) -> LeanHashSet:
    """``insertManyIfNewUnit ∅``: the first occurrence of an element wins."""
    return hashset_insert_many(LeanHashSet(), items)


@builtin("Std.HashSet.insertMany", "{α : Type _} : Std.HashSet α → List α → Std.HashSet α", verified=False)
def hashset_insert_many(s: LeanHashSet, items: Any) -> LeanHashSet:
    for x in items:
        s = hashset_insert(s, x)
    return s
