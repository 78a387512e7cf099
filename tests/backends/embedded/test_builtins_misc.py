"""Options, products, hash maps and decidable propositions."""

from __future__ import annotations

import pytest

from veriscale.backends.embedded.builtins import BUILTINS, OPTIONAL_ARGS, type_name_of
from veriscale.lean.types import parse_type
from veriscale.lean.values import NONE, Nat, Pair, Some, Unsupported


def call(name: str, *args: object, **kwargs: object) -> object:
    return BUILTINS[name].fn(*args, **kwargs)


def test_option_functions() -> None:
    """`none.get!` is `default`; getD/map/bind/isSome/isNone as in Init/Data/Option."""
    assert call("Option.get!", Some(4)) == 4
    assert call("Option.get!", NONE, result_type=parse_type("Nat")) == 0
    assert call("Option.getD", NONE, 7) == 7
    assert call("Option.map", lambda x: x + 1, Some(1)) == Some(2)
    assert call("Option.bind", Some(1), lambda x: NONE) is NONE
    assert call("Option.isNone", NONE) is True


def test_prod_functions() -> None:
    assert call("Prod.fst", Pair(1, 2)) == 1
    assert call("Prod.map", lambda x: x + 1, str, Pair(1, 2)) == Pair(2, "2")
    assert call("Prod.swap", Pair(1, 2)) == Pair(2, 1)


def test_hash_map_lookup_insert_erase() -> None:
    m = call("Std.HashMap.empty")
    m = call("Std.HashMap.insert", m, Nat(1), Nat(10))
    m = call("Std.HashMap.insert", m, Nat(1), Nat(11))
    assert call("Std.HashMap.getD", m, Nat(1), Nat(0)) == 11
    assert call("Std.HashMap.get?", m, Nat(2)) is NONE
    assert call("Std.HashMap.get!", m, Nat(2), result_type=parse_type("Nat")) == 0
    assert call("Std.HashMap.size", m) == 1
    m2 = call("Std.HashMap.erase", m, Nat(1))
    assert call("Std.HashMap.size", m2) == 0 and call("Std.HashMap.size", m) == 1
    assert type_name_of(m) == "Std.HashMap"


def test_hash_set_and_unsupported_order() -> None:
    """Iteration order of Std.HashSet is Lean's bucket layout (see test_builtins_hashmaps.py);
    for keys whose hash is not modelled (String: a C runtime hash) it is refused, not guessed."""
    s = call("Std.HashSet.emptyWithCapacity")
    s = call("Std.HashSet.insert", call("Std.HashSet.insert", s, 3), 3)
    assert call("Std.HashSet.size", s) == 1 and call("Std.HashSet.contains", s, 3)
    assert call("Std.HashSet.toList", s) == (3,)
    words = call("Std.HashSet.insert", call("Std.HashSet.emptyWithCapacity"), "abc")
    assert call("Std.HashSet.contains", words, "abc")
    with pytest.raises(Unsupported):
        list(words)
    with pytest.raises(Unsupported):
        call("Std.HashSet.insert", s, 1.5)


def test_decidable_props() -> None:
    """Nodup = Pairwise (· ≠ ·); Pairwise relates every earlier element to every later one;
    Nat.Prime is primality (Mathlib); Perm/Sublist by DecidableEq."""
    assert call("List.Nodup", (1, 2, 3)) is True
    assert call("List.Nodup", (1, 2, 1)) is False
    assert call("List.Pairwise", lambda a, b: a < b, (1, 2, 3)) is True
    assert call("List.Pairwise", lambda a, b: a < b, (1, 3, 2)) is False
    assert [n for n in range(30) if call("Nat.Prime", Nat(n))] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    assert call("Nat.Prime", Nat(2**61 - 1)) is True
    assert call("Nat.Prime", Nat(2**61 + 1)) is False
    assert call("List.Perm", (1, 2, 2), (2, 1, 2)) is True
    assert call("List.Sublist", (1, 3), (0, 1, 2, 3)) is True
    assert call("List.Sublist", (3, 1), (0, 1, 2, 3)) is False


def test_registry_shape() -> None:
    """Self indices follow Lean's field-notation rule (first explicit argument of the namespace)."""
    assert BUILTINS["List.foldl"].self_index == 2
    assert BUILTINS["List.count"].self_index == 1
    assert BUILTINS["List.take"].self_index == 1
    assert BUILTINS["Array.mapIdx"].self_index == 1
    for name, optional in OPTIONAL_ARGS.items():
        assert 0 < optional <= BUILTINS[name].arity


def test_mathlib_and_batteries_list_functions() -> None:
    """Mathlib `dedup = pwFilter (· ≠ ·)` keeps last occurrences; `insertionSort r` is
    `foldr (orderedInsert r) []`; core `splitBy` docstring: `[1, 2, 5, 4, 5, 1, 4].splitBy (· < ·)
    = [[1, 2, 5], [4, 5], [1, 4]]`; `l₁ ∪ l₂ = foldr .insert l₂ l₁`; Batteries `diff` erases once."""
    assert call("List.dedup", (1, 2, 1, 3, 2)) == (1, 3, 2)
    assert call("List.insertionSort", lambda a, b: a <= b, (3, 1, 2)) == (1, 2, 3)
    assert call("List.splitBy", lambda a, b: a < b, (1, 2, 5, 4, 5, 1, 4)) == ((1, 2, 5), (4, 5), (1, 4))
    assert call("List.union", (1, 2), (2, 3)) == (1, 2, 3)
    assert call("List.inter", (1, 2, 2, 3), (2,)) == (2, 2)
    assert call("List.diff", (1, 2, 2, 3), (2, 4)) == (1, 2, 3)
    assert call("List.Chain'", lambda a, b: a < b, (1, 2, 3)) is True
    assert call("Nat.log", Nat(2), Nat(8)) == 3 and call("Nat.log", Nat(1), Nat(8)) == 0
    assert call("Nat.fib", Nat(10)) == 55
    assert call("Nat.choose", Nat(5), Nat(2)) == 10
    assert call("Nat.factorial", Nat(5)) == 120
