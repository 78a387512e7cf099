"""Library functions evaluated with a given ``BEq`` method call it in the order Lean's
definitions do (Init/Data/List/Basic.lean, Init/Data/Array/Basic.lean): an asymmetric method
tells the orders apart."""

from __future__ import annotations

from typing import Any

from veriscale.backends.embedded.builtins.with_beq import BEQ_FUNCTIONS, option_beq, prod_beq, seq_beq
from veriscale.lean.values import NONE, Arr, Pair, Some


def first_is_zero(x: Any, _y: Any) -> bool:
    """An asymmetric method: true exactly when its first argument is 0."""
    return x == 0


def test_elem_and_contains_call_the_sought_element_first() -> None:
    # `elem a (b :: bs)` tests `a == b`
    assert BEQ_FUNCTIONS["List.elem"](first_is_zero, 0, (5, 6)) is True
    assert BEQ_FUNCTIONS["List.contains"](first_is_zero, (0, 6), 5) is False
    assert BEQ_FUNCTIONS["Array.contains"](first_is_zero, Arr((5,)), 0) is True


def test_count_idx_of_and_erase_call_the_element_first() -> None:
    # `count a = countP (· == a)`, `idxOf a = findIdx (· == a)`, `erase (x :: xs) a` tests `x == a`
    assert BEQ_FUNCTIONS["List.count"](first_is_zero, 7, (0, 1, 0)) == 2
    assert BEQ_FUNCTIONS["List.idxOf"](first_is_zero, 7, (1, 0)) == 1
    assert BEQ_FUNCTIONS["List.erase"](first_is_zero, (1, 0, 0), 7) == (1, 0)


def test_lookup_calls_the_key_sought_first() -> None:
    pairs = (Pair(1, "one"), Pair(2, "two"))
    assert BEQ_FUNCTIONS["List.lookup"](first_is_zero, 0, pairs) == Some("one")
    assert BEQ_FUNCTIONS["List.lookup"](first_is_zero, 5, pairs) is NONE


def test_erase_dups_compares_each_new_element_with_the_kept_ones() -> None:
    def by_decade(x: Any, y: Any) -> bool:
        return x // 10 == y // 10

    assert BEQ_FUNCTIONS["List.eraseDups"](by_decade, (1, 12, 3, 15, 20)) == (1, 12, 20)
    assert BEQ_FUNCTIONS["List.eraseReps"](by_decade, (1, 3, 12, 4)) == (1, 12, 4)


def test_container_instances_use_the_component_instance() -> None:
    def always(_x: Any, _y: Any) -> bool:
        return True

    assert seq_beq(always)((1, 2), (3, 4)) is True
    assert seq_beq(always)((1, 2), (3,)) is False
    assert option_beq(always)(Some(1), Some(2)) is True
    assert option_beq(always)(Some(1), NONE) is False
    assert prod_beq(always, lambda x, y: x == y)(Pair(1, 2), Pair(5, 2)) is True
    assert prod_beq(always, lambda x, y: x == y)(Pair(1, 2), Pair(5, 3)) is False
