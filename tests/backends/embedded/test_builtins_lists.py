"""List and Array semantics of the builtin library, each pinned to Lean's definition."""

from __future__ import annotations

import math

import pytest

from veriscale.backends.embedded.builtins import BUILTINS, compare_le, compare_lt, lean_beq
from veriscale.lean.types import parse_type
from veriscale.lean.values import NONE, Arr, BudgetExceeded, Char, Nat, Pair, Some, Unsupported


def call(name: str, *args: object, **kwargs: object) -> object:
    return BUILTINS[name].fn(*args, **kwargs)


def test_merge_sort_is_stable_with_the_given_le() -> None:
    """Lean `List.mergeSort` is stable: equal keys keep their input order."""
    items = (Pair(2, "a"), Pair(1, "b"), Pair(2, "c"), Pair(1, "d"), Pair(0, "e"))
    result = call("List.mergeSort", items, lambda x, y: x.fst <= y.fst)
    assert [p.snd for p in result] == ["e", "b", "d", "a", "c"]


def test_merge_sort_with_a_strict_relation_follows_lean_split_and_merge() -> None:
    """With `le := (· < ·)` ties are taken from the right run first; Lean's algorithm (split at
    (n+1)/2, merge taking the left element iff `le x y`) fixes the exact order."""
    items = (Pair(1, "a"), Pair(1, "b"), Pair(1, "c"))
    result = call("List.mergeSort", items, lambda x, y: x.fst < y.fst)
    # mergeSort [a, b] = merge [a] [b]: le a b false -> [b, a]; then merge [b, a] [c] -> [c, b, a]
    assert [p.snd for p in result] == ["c", "b", "a"]


def test_merge_sort_default_is_le() -> None:
    assert call("List.mergeSort", (3, 1, 2)) == (1, 2, 3)
    assert call("List.mergeSort", ()) == ()


def test_sublists_order() -> None:
    """Mathlib docstring: `sublists [1, 2, 3] = [[], [1], [2], [1, 2], [3], [1, 3], [2, 3], [1, 2, 3]]`."""
    assert call("List.sublists", (1, 2, 3)) == ((), (1,), (2,), (1, 2), (3,), (1, 3), (2, 3), (1, 2, 3))
    assert call("List.sublists", ()) == ((),)


def test_zip_idx_puts_the_element_first() -> None:
    """Lean: `[a, b, c].zipIdx = [(a, 0), (b, 1), (c, 2)]`, `[a, b, c].zipIdx 5 = [(a, 5), ...]`."""
    assert call("List.zipIdx", ("a", "b")) == (Pair("a", Nat(0)), Pair("b", Nat(1)))
    assert call("List.zipIdx", ("a", "b"), Nat(5)) == (Pair("a", Nat(5)), Pair("b", Nat(6)))


def test_get_elem_bang_default_needs_the_type() -> None:
    """`xs[i]!` out of range is `default` of the element type (`panic!` returns `default`)."""
    assert call("List.getElem!", (1, 2), Nat(1), result_type=parse_type("Int")) == 2
    assert call("List.getElem!", (1, 2), Nat(7), result_type=parse_type("Int")) == 0
    assert call("List.getElem!", (), Nat(0), result_type=parse_type("Char")) == Char("A")
    assert call("List.getElem!", (), Nat(0), result_type=parse_type("List Nat")) == ()
    assert call("Array.getElem!", Arr(()), Nat(0), result_type=parse_type("Nat × String")) == Pair(
        Nat(0), ""
    )
    with pytest.raises(Unsupported):
        call("List.getElem!", (1,), Nat(3), result_type=None)
    assert call("List.getElem?", (1, 2), Nat(2)) is NONE
    assert BUILTINS["List.getElem!"].typed and BUILTINS["Array.getElem!"].typed


def _folded_sum(xs: tuple, zero: object) -> object:
    from veriscale.backends.embedded.builtins.numbers import arith

    acc = zero
    for x in reversed(xs):
        acc = arith("+", x, acc)
    return acc


@pytest.mark.parametrize("xs", [
    tuple(Nat(k) for k in range(1000)),
    tuple(range(-500, 400, 7)),
    (Nat(3),), (5, -5), (2 ** 200, -(2 ** 200), 1),
])
def test_a_sum_of_integers_at_c_speed_equals_the_fold(xs: tuple) -> None:
    zero = Nat(0) if isinstance(xs[0], Nat) else 0
    got, folded = call("List.sum", xs), _folded_sum(xs, zero)
    assert got == folded and type(got) is type(folded)


def test_a_sum_past_the_bit_limit_stops_as_the_fold_does() -> None:
    from veriscale.backends.embedded.builtins._core import MAX_BITS

    huge = Nat(1 << MAX_BITS)  # one bit past the limit once added to itself
    with pytest.raises(BudgetExceeded):
        call("List.sum", (huge, huge))
    # an Int list whose partial sums might pass the limit is left to the fold, which decides it
    big = (1 << MAX_BITS) - 1
    assert call("List.sum", (big, -big, 1)) == 1


@pytest.mark.parametrize(("start", "stop", "step"), [(0, 0, 1), (0, 10, 1), (3, 20, 4), (5, 2, 1),
                                                      (0, (1 << 18) + 3, 1), (100, 5000, 3)])
def test_a_range_of_naturals_is_the_naturals_of_the_range(start: int, stop: int, step: int) -> None:
    from veriscale.backends.embedded.builtins._core import nat_range

    got = nat_range(start, stop, step)
    assert got == tuple(range(start, stop, step)) and all(type(n) is Nat for n in got)


def test_sum_is_a_right_fold() -> None:
    """`List.sum = foldr (· + ·) 0`: [0.1, 0.2, 0.3].sum = 0.1 + (0.2 + (0.3 + 0)) = 0.6,
    whereas a left fold gives 0.6000000000000001."""
    assert call("List.sum", (0.1, 0.2, 0.3)) == 0.1 + (0.2 + 0.3)
    assert call("List.sum", (0.1, 0.2, 0.3)) != (0.1 + 0.2) + 0.3
    assert call("List.sum", (Nat(1), Nat(2))) == 3
    assert isinstance(call("List.sum", (Nat(1), Nat(2))), Nat)
    assert call("List.sum", (), result_type=parse_type("Int")) == 0
    with pytest.raises(Unsupported):
        call("List.sum", ())


def test_index_search_returns_length_when_absent() -> None:
    """Lean: `["carrot", "potato"].idxOf "tomato" = 2`; `findIdx` likewise."""
    assert call("List.idxOf", "tomato", ("carrot", "potato")) == 2
    assert call("List.idxOf", "potato", ("carrot", "potato")) == 1
    assert call("List.findIdx", lambda x: x > 5, (1, 2)) == 2
    assert call("List.findIdx?", lambda x: x > 1, (1, 2)) == Some(Nat(1))


def test_erase_dups_keeps_first_occurrences() -> None:
    """Lean docstring: `[1, 3, 2, 2, 3, 5].eraseDups = [1, 3, 2, 5]`."""
    assert call("List.eraseDups", (1, 3, 2, 2, 3, 5)) == (1, 3, 2, 5)


def test_rotate_and_extract() -> None:
    """Lean docstrings: `[1,2,3,4,5].rotateRight 3 = [3,4,5,1,2]`, `rotateLeft 3 = [4,5,1,2,3]`,
    `[0..5].extract 2 4 = [2, 3]`."""
    xs = (1, 2, 3, 4, 5)
    assert call("List.rotateRight", xs, Nat(3)) == (3, 4, 5, 1, 2)
    assert call("List.rotateRight", xs, Nat(5)) == xs
    assert call("List.rotateLeft", xs, Nat(3)) == (4, 5, 1, 2, 3)
    assert call("List.extract", (0, 1, 2, 3, 4, 5), Nat(2), Nat(4)) == (2, 3)
    assert call("List.extract", (0, 1, 2), Nat(2), Nat(1)) == ()
    assert call("Array.extract", Arr((0, 1, 2, 3)), Nat(1), Nat(10)) == Arr((1, 2, 3))


def test_beq_functions_use_ieee_float_equality() -> None:
    """`contains`/`count`/`isPerm` use `==`; on Float, `NaN == NaN` is false."""
    assert call("List.contains", (math.nan,), math.nan) is False
    assert call("List.count", 1.0, (1.0, 1.0, math.nan)) == 2
    assert call("List.isPerm", (1, 2, 2), (2, 1, 2)) is True
    assert call("List.isPerm", (1, 2), (2, 2)) is False
    assert call("List.isPerm", (math.nan,), (math.nan,)) is False
    assert lean_beq((math.nan,), (math.nan,)) is False
    assert lean_beq(0.0, -0.0) is True


def test_list_order_is_lexicographic() -> None:
    """`List.lt` is `Lex (· < ·)`; `l₁ ≤ l₂` is `¬ l₂ < l₁`."""
    assert compare_lt((1, 2), (1, 3))
    assert compare_lt((1,), (1, 0))
    assert not compare_lt((1, 2), (1, 2))
    assert compare_le((1, 2), (1, 2))
    assert not compare_le((2,), (1, 9))
    assert compare_lt("abc", "abd") and compare_lt("Z", "a") and compare_lt("", "a")
    assert not compare_lt(math.nan, 1.0) and not compare_le(math.nan, math.nan)
    with pytest.raises(Unsupported):
        compare_le(Pair(1, 2), Pair(1, 3))


def test_max_min_options() -> None:
    """`max? (a :: as) = some (as.foldl max a)`; `[].max? = none`."""
    assert call("List.max?", (3, 9, 2)) == Some(9)
    assert call("List.min?", (Char("b"), Char("a"))) == Some(Char("a"))
    assert call("List.max?", ()) is NONE


def test_ranges() -> None:
    """`List.range 3 = [0, 1, 2]`; `List.range' 3 4 (step := 2) = [3, 5, 7, 9]`."""
    assert call("List.range", Nat(3)) == (0, 1, 2)
    assert all(isinstance(x, Nat) for x in call("List.range", Nat(3)))
    assert call("List.range'", Nat(3), Nat(4), Nat(2)) == (3, 5, 7, 9)
    assert call("List.range'", Nat(1), Nat(3)) == (1, 2, 3)
    with pytest.raises(BudgetExceeded):
        call("List.range", Nat(10**9))


def test_folds_and_misc() -> None:
    assert call("List.foldl", lambda acc, x: acc * 10 + x, 0, (1, 2, 3)) == 123
    assert call("List.foldr", lambda x, acc: f"({x} {acc})", "!", (1, 2, 3)) == "(1 (2 (3 !)))"
    assert call("List.take", Nat(2), (1, 2, 3)) == (1, 2)
    assert call("List.drop", Nat(5), (1, 2, 3)) == ()
    assert call("List.eraseIdx", (0, 1, 2), Nat(5)) == (0, 1, 2)
    assert call("List.erase", (1, 5, 3, 5), 5) == (1, 3, 5)
    assert call("List.insert", 2, (1, 2)) == (1, 2) and call("List.insert", 0, (1,)) == (0, 1)
    assert call("List.getLast!", (), result_type=parse_type("Nat")) == 0
    assert call("List.span", lambda x: x > 5, (6, 8, 5, 9)) == Pair((6, 8), (5, 9))
    assert call("List.partition", lambda x: x > 2, (1, 5, 2, 7)) == Pair((5, 7), (1, 2))
    assert call("List.flatMap", lambda x: (x, x), (1, 2)) == (1, 1, 2, 2)
    assert call("List.lookup", 3, (Pair(1, "a"), Pair(3, "b"), Pair(3, "c"))) == Some("b")
    assert call("List.asString", (Char("h"), Char("i"))) == "hi"


def test_array_windows_and_updates() -> None:
    """`set!` out of range leaves the array unchanged; foldl/foldr take `start`/`stop`;
    `mapIdx` passes a Nat index; `insertionSort` with `(· < ·)`."""
    a = Arr((1, 2, 3))
    assert call("Array.set!", a, Nat(1), 9) == Arr((1, 9, 3))
    assert call("Array.set!", a, Nat(5), 9) == a
    assert call("Array.foldl", lambda acc, x: acc + [x], [], a, Nat(1)) == [2, 3]
    assert call("Array.foldr", lambda x, acc: acc + [x], [], a) == [3, 2, 1]
    assert call("Array.mapIdx", lambda i, x: (i, x), a)[2] == (2, 3)
    assert isinstance(call("Array.mapIdx", lambda i, x: i, a)[0], Nat)
    assert call("Array.insertionSort", Arr((3, 1, 2))) == Arr((1, 2, 3))
    assert call("Array.mkArray", Nat(2), 0) == Arr((0, 0))
    assert call("Array.mkEmpty", Nat(10)) == Arr(())
    assert call("Array.range", Nat(3)) == Arr((0, 1, 2))
    assert call("Array.pop", Arr(())) == Arr(())
    assert call("Array.back?", a) == Some(3)
    assert call("Array.push", a, 4) == Arr((1, 2, 3, 4))
    assert call("Array.toList", a) == (1, 2, 3) and not isinstance(call("Array.toList", a), Arr)


def test_beq_of_scalar_lists_is_lean_beq() -> None:
    from veriscale.lean.values import some

    nan = float("nan")
    assert lean_beq((Char("a"), Char("b")), (Char("a"), Char("b")))
    assert not lean_beq((Nat(1), Nat(2)), (Nat(1), Nat(2), Nat(3)))
    assert not lean_beq((nan,), (nan,))  # a Float leaf: IEEE, even for one NaN object
    assert not lean_beq(((nan,),), ((nan,),))
    assert lean_beq((some(Nat(1)),), (some(Nat(1)),)) and not lean_beq((), (Nat(0),))
    assert not lean_beq(Arr((Nat(1),)), (Nat(1),))  # a List is never an Array
