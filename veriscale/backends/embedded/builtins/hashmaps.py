"""``Std.HashMap`` and ``Std.HashSet``: the order-independent part of their API.

Lookups, insertion, erasure and size do not depend on the table layout, so they are modelled by a
Python dictionary. Iteration order (``toList``, ``fold``, ``keys``, ``values``, ``for x in m``)
does: it is the bucket order of Lean's separate-chaining table, which depends on the ``Hashable``
instance, the index scrambling in ``Std.DHashMap.Internal.mkIdx`` and the insertion history. The
scrambling function differs between Lean versions we can see in the source history, and the data
here has no case that would pin the v4.24 one down, so those operations are deliberately not
registered: the evaluator answers ``unsupported`` instead of guessing an order.

Keys containing floats are refused (``Float`` ``BEq`` is not lawful: a ``NaN`` key is never found).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from veriscale.backends.embedded.builtins._core import check_size, contains_float, default_of_type, nat
from veriscale.backends.embedded.registry import alias, builtin
from veriscale.runtime import NONE, UNIT, Nat, Some, Unsupported

Fn = Callable[..., Any]


class LeanHashMap:
    """An immutable ``Std.HashMap``; equality and hashing ignore insertion order."""

    __slots__ = ("_entries",)
    LEAN_TYPE = "Std.HashMap"

    def __init__(self, entries: dict[Any, Any] | None = None) -> None:
        self._entries: dict[Any, Any] = dict(entries or {})

    def get(self, key: Any) -> Any:
        return self._entries.get(_checked_key(key), _MISSING)

    def with_entry(self, key: Any, value: Any) -> LeanHashMap:
        entries = dict(self._entries)
        entries[_checked_key(key)] = value
        check_size(len(entries), type(self).LEAN_TYPE)
        return type(self)(entries)

    def without(self, key: Any) -> LeanHashMap:
        key = _checked_key(key)
        if key not in self._entries:
            return self
        entries = dict(self._entries)
        del entries[key]
        return type(self)(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return _checked_key(key) in self._entries

    def __iter__(self) -> Iterator[Any]:
        raise Unsupported(f"iteration over {type(self).LEAN_TYPE}", "Lean's bucket order is not modelled")

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


class _Missing:
    pass


_MISSING = _Missing()


def _checked_key(key: Any) -> Any:
    if contains_float(key):
        raise Unsupported("Std.HashMap key", "Float keys have no lawful BEq/Hashable")
    return key


# ---------------------------------------------------------------------------------------------
# Std.HashMap


@builtin("Std.HashMap.empty", 1)
def hashmap_empty(capacity: Any = 8) -> LeanHashMap:
    return LeanHashMap()


alias("Std.HashMap.emptyWithCapacity", "Std.HashMap.empty")


@builtin("Std.HashMap.insert", 3)
def hashmap_insert(m: LeanHashMap, key: Any, value: Any) -> LeanHashMap:
    return m.with_entry(key, value)


@builtin("Std.HashMap.insertIfNew", 3)
def hashmap_insert_if_new(m: LeanHashMap, key: Any, value: Any) -> LeanHashMap:
    return m if key in m else m.with_entry(key, value)


@builtin("Std.HashMap.contains", 2)
def hashmap_contains(m: LeanHashMap, key: Any) -> bool:
    return key in m


@builtin("Std.HashMap.get?", 2)
def hashmap_get_opt(m: LeanHashMap, key: Any) -> Any:
    value = m.get(key)
    return NONE if value is _MISSING else Some(value)


alias("Std.HashMap.getElem?", "Std.HashMap.get?")


@builtin("Std.HashMap.getD", 3)
def hashmap_get_d(m: LeanHashMap, key: Any, fallback: Any) -> Any:
    value = m.get(key)
    return fallback if value is _MISSING else value


@builtin("Std.HashMap.get!", 2, typed=True)
def hashmap_get_bang(m: LeanHashMap, key: Any, *, result_type: Any = None) -> Any:
    value = m.get(key)
    if value is _MISSING:
        return default_of_type(result_type, construct="Std.HashMap.get!")
    return value


alias("Std.HashMap.getElem!", "Std.HashMap.get!")


@builtin("Std.HashMap.erase", 2)
def hashmap_erase(m: LeanHashMap, key: Any) -> LeanHashMap:
    return m.without(key)


@builtin("Std.HashMap.size", 1)
def hashmap_size(m: LeanHashMap) -> Nat:
    return nat(len(m))


@builtin("Std.HashMap.isEmpty", 1)
def hashmap_is_empty(m: LeanHashMap) -> bool:
    return len(m) == 0


@builtin("Std.HashMap.modify", 3)
def hashmap_modify(m: LeanHashMap, key: Any, f: Fn) -> LeanHashMap:
    value = m.get(key)
    return m if value is _MISSING else m.with_entry(key, f(value))


@builtin("Std.HashMap.alter", 3)
def hashmap_alter(m: LeanHashMap, key: Any, f: Fn) -> LeanHashMap:
    value = m.get(key)
    result = f(NONE if value is _MISSING else Some(value))
    if isinstance(result, Some):
        return m.with_entry(key, result.value)
    return m.without(key)


# ---------------------------------------------------------------------------------------------
# Std.HashSet


@builtin("Std.HashSet.empty", 1)
def hashset_empty(capacity: Any = 8) -> LeanHashSet:
    return LeanHashSet()


alias("Std.HashSet.emptyWithCapacity", "Std.HashSet.empty")


@builtin("Std.HashSet.insert", 2)
def hashset_insert(s: LeanHashSet, key: Any) -> LeanHashSet:
    # `HashSet.insert` keeps the set unchanged when the element is present
    return s if key in s else s.with_entry(key, UNIT)  # type: ignore[return-value]


@builtin("Std.HashSet.contains", 2)
def hashset_contains(s: LeanHashSet, key: Any) -> bool:
    return key in s


@builtin("Std.HashSet.erase", 2)
def hashset_erase(s: LeanHashSet, key: Any) -> LeanHashSet:
    return s.without(key)  # type: ignore[return-value]


@builtin("Std.HashSet.size", 1)
def hashset_size(s: LeanHashSet) -> Nat:
    return nat(len(s))


@builtin("Std.HashSet.isEmpty", 1)
def hashset_is_empty(s: LeanHashSet) -> bool:
    return len(s) == 0


NOT_REGISTERED = (
    "Std.HashMap.toList",
    "Std.HashMap.toArray",
    "Std.HashMap.keys",
    "Std.HashMap.values",
    "Std.HashMap.fold",
    "Std.HashSet.toList",
    "Std.HashSet.toArray",
    "Std.HashSet.fold",
)
"""Order-revealing operations left out on purpose (see the module docstring)."""


@builtin("Std.HashMap.ofList", 1)
def hashmap_of_list(pairs: tuple) -> LeanHashMap:
    """``insertMany`` into an empty map: a later pair with an equal key replaces the value."""
    m = LeanHashMap()
    for p in pairs:
        m = m.with_entry(p.fst, p.snd)
    return m


@builtin("Std.HashSet.ofList", 1)
def hashset_of_list(items: tuple) -> LeanHashSet:
    s = LeanHashSet()
    for x in items:
        s = hashset_insert(s, x)
    return s
