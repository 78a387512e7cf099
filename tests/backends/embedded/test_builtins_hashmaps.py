"""Std.HashMap / Std.HashSet iteration order: Lean 4's bucket layout on small hand-made tables.

Lean facts used below (see the docstring of builtins/hashmaps.py for the sources):
(H) hash: Nat n -> n, Int n>=0 -> 2n, Int -(m+1) -> 2m+1, Char -> code point;
(S) scrambleHash h = f ^^^ (f >>> 16) with f = h ^^^ (h >>> 32): the identity below 2^16;
(I) bucket = scrambleHash h &&& (buckets - 1); `∅` has nextPowerOfTwo (8 * 4 / 3) = 16 buckets;
(C) a new key is consed onto the head of its bucket;
(E) after an insertion, size * 4 / 3 > buckets doubles the table, re-consing old buckets in index
    order, each head to tail (entries that stay together are reversed);
(O) toList / keys / toArray / fold / for visit buckets 0, 1, ... each head to tail.
"""

from __future__ import annotations

import pytest

from veriscale.backends.embedded.builtins import BUILTINS
from veriscale.backends.embedded.builtins.hashmaps import (
    LeanHashMap,
    LeanHashSet,
    bucket_index,
    lean_hash,
    mix_hash,
    scramble_hash,
)
from veriscale.lean.values import UNIT, Arr, Char, Nat, Pair, Some, Unsupported


def call(name: str, *args: object) -> object:
    return BUILTINS[name].fn(*args)


def hash_set(*items: object, capacity: int | None = None) -> LeanHashSet:
    s = call("Std.HashSet.emptyWithCapacity", capacity) if capacity is not None else call(
        "Std.HashSet.empty"
    )
    for x in items:
        s = call("Std.HashSet.insert", s, x)
    assert isinstance(s, LeanHashSet)
    return s


def nats(*values: int) -> tuple[Nat, ...]:
    return tuple(Nat(v) for v in values)


def test_hashes_of_scalar_keys() -> None:
    """(H) and (S)."""
    assert lean_hash(Nat(5)) == 5 and lean_hash(Nat(2**64 + 3)) == 3
    assert [lean_hash(i) for i in (0, 1, -1, -2, 3)] == [0, 2, 1, 3, 6]
    assert lean_hash(Char("a")) == 97 and lean_hash(True) == 11 and lean_hash(False) == 13
    assert scramble_hash(1000) == 1000
    assert scramble_hash(2**32) == 2**32 + 1 + 2**16  # f = 2^32 + 1, then f ^^^ (f >>> 16)
    assert bucket_index(2**32, 16) == 1
    assert mix_hash(0, 0) == 0 and lean_hash(Pair(Nat(0), Nat(0))) == 0
    assert lean_hash(Some(Nat(1))) == mix_hash(1, 13)
    assert lean_hash("text") is None and lean_hash(UNIT) is None


def test_collisions_cons_at_head() -> None:
    """5, 21 and 37 share bucket 5 of 16 (I); later ones are consed in front (C); bucket 3 comes
    first (O)."""
    s = hash_set(*nats(5, 3, 21, 37))
    assert call("Std.HashSet.toList", s) == nats(3, 37, 21, 5)
    assert call("Std.HashSet.toArray", s) == Arr(nats(3, 37, 21, 5))
    assert list(s) == list(nats(3, 37, 21, 5))


def test_int_and_char_keys() -> None:
    """Int -1 -> 1, 2 -> 4, -3 -> 5, 7 -> 14; Char 'b' = 98 -> bucket 2, 'a' = 97 -> 1 (H)(I)."""
    assert call("Std.HashSet.toList", hash_set(7, -3, 2, -1)) == (-1, 2, -3, 7)
    chars = hash_set(Char("b"), Char("a"), Char("q"))  # 'q' = 113 -> bucket 1, after 'a'
    assert call("Std.HashSet.toList", chars) == (Char("q"), Char("a"), Char("b"))


def test_large_hash_is_scrambled() -> None:
    """2^32 lands in bucket 1 through the high-half fold (S), in front of 1 (C)."""
    s = hash_set(*nats(1, 2**32))
    assert call("Std.HashSet.toList", s) == nats(2**32, 1)


def test_expansion_reverses_entries_that_stay_together() -> None:
    """0 and 32 share bucket 0 at 16 and at 32 buckets. With 12 keys (12 * 4 / 3 = 16) no growth:
    32 is in front (C). The 13th key grows the table (E): bucket 0 is re-consed as 0, 32."""
    twelve = hash_set(*nats(0, 32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
    assert twelve.bucket_count == 16
    assert call("Std.HashSet.toList", twelve)[:2] == nats(32, 0)
    thirteen = call("Std.HashSet.insert", twelve, Nat(11))
    assert isinstance(thirteen, LeanHashSet) and thirteen.bucket_count == 32
    assert call("Std.HashSet.toList", thirteen) == nats(0, 32, *range(1, 12))


def test_capacity_sets_the_bucket_count() -> None:
    """emptyWithCapacity c has nextPowerOfTwo (c * 4 / 3) buckets; capacity 0 has 1 bucket, which
    doubles when the second key arrives (2 * 4 / 3 = 2 > 1)."""
    assert hash_set(capacity=100).bucket_count == 256
    assert hash_set(capacity=8).bucket_count == 16
    one = hash_set(Nat(3), capacity=0)
    assert one.bucket_count == 1
    two = call("Std.HashSet.insert", one, Nat(4))
    assert isinstance(two, LeanHashSet) and two.bucket_count == 2
    assert call("Std.HashSet.toList", two) == nats(4, 3)  # 4 -> bucket 0, 3 -> bucket 1


def test_map_replace_erase_and_reinsert() -> None:
    """Replacing keeps the position; erase removes in place; a re-inserted key goes to the head."""
    m = call("Std.HashMap.empty")
    for k in (5, 21, 37):
        m = call("Std.HashMap.insert", m, Nat(k), Nat(k * 10))
    m = call("Std.HashMap.insert", m, Nat(21), Nat(0))
    assert call("Std.HashMap.toList", m) == tuple(
        Pair(Nat(k), Nat(v)) for k, v in ((37, 370), (21, 0), (5, 50))
    )
    m = call("Std.HashMap.erase", m, Nat(37))
    m = call("Std.HashMap.insert", m, Nat(37), Nat(1))
    assert call("Std.HashMap.keys", m) == nats(37, 21, 5)
    m = call("Std.HashMap.erase", m, Nat(21))
    m = call("Std.HashMap.insert", m, Nat(21), Nat(2))
    assert call("Std.HashMap.keys", m) == nats(21, 37, 5)
    assert call("Std.HashMap.values", m) == nats(2, 1, 50)
    assert call("Std.HashMap.fold", lambda acc, k, v: acc + (int(k),), (), m) == (21, 37, 5)
    assert list(m) == list(call("Std.HashMap.toList", m))


def test_set_insert_of_present_element_changes_nothing() -> None:
    s = hash_set(*nats(5, 21))
    assert call("Std.HashSet.insert", s, Nat(5)) is s
    assert call("Std.HashSet.fold", lambda acc, k: acc + (int(k),), (), s) == (21, 5)


def test_of_list_is_repeated_insert() -> None:
    m = call("Std.HashMap.ofList", (Pair(Nat(5), 1), Pair(Nat(21), 2), Pair(Nat(5), 3)))
    assert call("Std.HashMap.toList", m) == (Pair(Nat(21), 2), Pair(Nat(5), 3))
    s = call("Std.HashSet.ofList", nats(5, 21, 5))
    assert call("Std.HashSet.toList", s) == nats(21, 5)


def test_unmodelled_layouts_are_refused() -> None:
    """String hashes live in the C runtime and `alter` adding a key is not modelled: no order."""
    words = hash_set("a", "b")
    assert call("Std.HashSet.contains", words, "a") and call("Std.HashSet.size", words) == 2
    with pytest.raises(Unsupported):
        call("Std.HashSet.toList", words)
    m = call("Std.HashMap.insert", call("Std.HashMap.empty"), Nat(1), Nat(1))
    altered = call("Std.HashMap.alter", m, Nat(2), lambda _: Some(Nat(2)))
    assert call("Std.HashMap.getD", altered, Nat(2), Nat(0)) == 2
    with pytest.raises(Unsupported):
        call("Std.HashMap.toList", altered)
    in_place = call("Std.HashMap.alter", m, Nat(1), lambda _: Some(Nat(9)))
    assert call("Std.HashMap.toList", in_place) == (Pair(Nat(1), Nat(9)),)


def test_equality_ignores_layout() -> None:
    a = hash_set(*nats(1, 2), capacity=0)
    b = hash_set(*nats(2, 1))
    assert a == b and hash(a) == hash(b)
    assert LeanHashMap() != LeanHashSet()


def _general_insert(s: LeanHashSet, key: object) -> LeanHashSet:
    """``HashSet.insert`` through the general path the inline one of ``hashset_insert`` copies."""
    made = s.with_entry(key, UNIT, replace=False)
    assert isinstance(made, LeanHashSet)
    return made


@pytest.mark.parametrize("keys", [
    [Nat(k) for k in (3, 19, 3, 35, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 40000, 1 << 40)],
    [-1, 2, -3, 4, 2, 0, -(1 << 70), 1 << 70, 17, -17, 33, 5, 6, 7, 8, 9, 10, 11],
    [Char("a"), Char("b"), Char("a"), Char("z")],
    ["s", "t"],  # no modelled hash: the general path (unknown layout)
])
def test_set_insert_fast_path_is_the_general_one(keys: list[object]) -> None:
    fast: list[LeanHashSet] = [call("Std.HashSet.empty")]  # type: ignore[list-item]
    slow: list[LeanHashSet] = [call("Std.HashSet.empty")]  # type: ignore[list-item]
    for k in keys:
        fast.append(call("Std.HashSet.insert", fast[-1], k))  # type: ignore[arg-type]
        slow.append(_general_insert(slow[-1], k))
        assert call("Std.HashSet.contains", fast[-1], k) is True
    # every version keeps its elements, size and order (each one read after all the inserts)
    for f, s in zip(fast, slow):
        assert f == s and len(f) == len(s)
        assert sorted(map(repr, f._entries)) == sorted(map(repr, s._entries))
        if keys[0] != "s":
            assert f.ordered_keys() == s.ordered_keys()
    assert call("Std.HashSet.contains", fast[0], keys[0]) is False
    present = fast[-1]
    assert call("Std.HashSet.insert", present, keys[0]) is present


def test_empty_sets_share_a_layout_that_never_changes() -> None:
    a = hash_set(Nat(1), Nat(17))
    b = hash_set(Nat(2))
    assert a.ordered_keys() == [Nat(17), Nat(1)] and b.ordered_keys() == [Nat(2)]
    assert hash_set().ordered_keys() == [] and hash_set().bucket_count == 16
