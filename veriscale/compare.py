"""Comparing a computed value with a value that real Lean printed.

The published suites store a ``Float`` the way ``#eval`` printed it, through Lean's
``Float.toString`` (C's ``%f``: six decimals, ``NaN``, ``inf``), so ``4.166667`` stands for every
double that prints that way. Comparing such a value with a computed double bit for bit would call
agreement a disagreement; comparing both sides through Lean's printing is exactly as precise as the
yardstick. Every other type compares structurally (``runtime.values_equal``).
"""

from __future__ import annotations

from typing import Any

from veriscale.backends.embedded.builtins.tostring import to_string
from veriscale.lean.values import Arr, Pair, Some, Struct, values_equal


def same_as_printed(computed: Any, stored: Any) -> bool:
    """True when the two values are equal, floats compared as Lean's ``toString`` prints them."""
    if isinstance(computed, float) or isinstance(stored, float):
        return isinstance(computed, float) and isinstance(stored, float) and to_string(computed) == to_string(stored)
    if type(computed) is not type(stored):
        return False
    if isinstance(computed, (tuple, Arr)):
        return len(computed) == len(stored) and all(same_as_printed(a, b) for a, b in zip(computed, stored))
    if isinstance(computed, Pair):
        return same_as_printed(computed.fst, stored.fst) and same_as_printed(computed.snd, stored.snd)
    if isinstance(computed, Some):
        return same_as_printed(computed.value, stored.value)
    if isinstance(computed, Struct):
        return (
            computed.type_name == stored.type_name
            and len(computed.fields) == len(stored.fields)
            and all(
                n1 == n2 and same_as_printed(v1, v2)
                for (n1, v1), (n2, v2) in zip(computed.fields, stored.fields)
            )
        )
    return values_equal(computed, stored)
