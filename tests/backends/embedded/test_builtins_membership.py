"""`List.contains`/`List.elem`/`Array.contains`: fast paths must answer exactly like Lean's `==`."""

from __future__ import annotations

import pytest

from veriscale.backends.embedded.builtins import BUILTINS
from veriscale.backends.embedded.builtins.order import beq_member, eq_is_beq, lean_beq
from veriscale.lean.values import NONE, Arr, Char, Nat, Pair, Some, Struct, Unsupported


def call(name: str, *args: object) -> object:
    return BUILTINS[name].fn(*args)


def test_eq_is_beq_only_without_floats_and_functions() -> None:
    assert eq_is_beq((Nat(1), Nat(2))) and eq_is_beq(((Char("a"),), ()))
    assert eq_is_beq(Pair(1, Some("x"))) and eq_is_beq(NONE)
    assert eq_is_beq(Struct("P", (("x", 1), ("y", (2, 3)))))
    assert not eq_is_beq((1.0,)) and not eq_is_beq(Pair(1, 0.5)) and not eq_is_beq(len)


def test_nan_is_never_found_even_as_the_same_object() -> None:
    """Lean: `[x].contains x` is false for x = NaN (IEEE `==`); Python's `in` would say true."""
    nan = float("nan")
    xs = tuple([(nan,)] * 100)
    for _ in range(3):  # however often the same big list is searched
        assert call("List.contains", xs, (nan,)) is False
    assert call("List.elem", 0.0, (-0.0,)) is True  # IEEE: 0.0 == -0.0


def test_repeated_search_of_a_big_list_agrees_with_the_scan() -> None:
    big = tuple(tuple(Nat(int(d)) for d in str(i)) for i in range(500))
    probes = [tuple(Nat(int(d)) for d in str(i)) for i in range(480, 520)] + [(), (Nat(0), Nat(0))]
    for _ in range(2):
        for p in probes:
            expected = any(lean_beq(b, p) for b in big)
            assert beq_member(p, big) is expected
    assert beq_member(tuple(Nat(int(d)) for d in "499"), big) is True
    assert beq_member(tuple(Nat(int(d)) for d in "500"), big) is False


def test_list_and_array_are_different_types() -> None:
    assert call("List.contains", ((1, 2),), Arr((1, 2))) is False
    assert call("Array.contains", Arr((Arr((1,)), Arr((2,)))), Arr((2,))) is True
    assert call("Array.contains", Arr(tuple(range(200))), 150) is True


def test_functions_have_no_beq() -> None:
    with pytest.raises(Unsupported):
        call("List.contains", (len,), len)


def test_count_matches_lean_beq() -> None:
    nan = float("nan")
    assert call("List.count", Nat(1), (Nat(1), Nat(2), Nat(1))) == 2
    assert call("List.count", nan, (nan, nan)) == 0
    assert call("List.count", (nan,), ((nan,),)) == 0
    assert call("Array.count", (1,), Arr(((1,), (2,), (1,)))) == 2
