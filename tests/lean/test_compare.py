"""Values printed by Lean compare with computed ones at the precision Lean printed them."""

from __future__ import annotations

import math

from veriscale.lean.printing import same_as_printed
from veriscale.lean.values import Arr, Nat, Pair, Some


def test_float_compares_through_lean_printing() -> None:
    # Lean: `toString (25.0 / 6.0 : Float) = "4.166667"` (Float.toString is C's %f).
    assert same_as_printed(25.0 / 6.0, 4.166667)
    assert not same_as_printed(25.0 / 6.0, 4.16666)
    assert same_as_printed(Pair(25, 25.0 / 6.0), Pair(25, 4.166667))
    assert same_as_printed(math.nan, math.nan)
    assert not same_as_printed(math.inf, -math.inf)


def test_other_types_compare_structurally() -> None:
    assert same_as_printed(Arr((1, 2)), Arr((1, 2)))
    assert not same_as_printed(Arr((1, 2)), (1, 2))  # Array is not List
    assert not same_as_printed(Nat(1), 1)  # Nat is not Int
    assert same_as_printed(Some(Nat(3)), Some(Nat(3)))
    assert not same_as_printed(Some(1.0), Some(2.0))
