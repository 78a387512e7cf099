"""Boundary accept tests: the tests a small suite keeps for their inputs' shape, whatever they kill.

Per test input (values parsed at their Lean types, as the typed reject-input reduction sees them,
:mod:`veriscale.stages.reduce.rejects`): for every boundary bucket some input has (an empty or singleton
sequence, a zero or negative scalar or index, a sequence with a zero, a negative or a duplicate,
an unsorted sequence, sequences of different lengths) the best test carrying it (smallest first);
and the extremes: the smallest and the largest input, and per parameter the input with the number
of largest magnitude.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from veriscale.lean.codec import ValueParseError, parse_value
from veriscale.lean.types import LeanType, StructDef
from veriscale.stages.reduce.rejects import analyse_rows, typed_value_view

__all__ = ["boundary_tests"]


def _largest_number(raw: Any, ty: LeanType, structs: Mapping[str, StructDef]) -> int | None:
    try:
        numbers = typed_value_view(parse_value(raw, ty, structs, wrap_uint=True)).numbers
    except ValueParseError:
        return None
    return max((abs(n) for n in numbers), default=None)


def boundary_tests(
    inputs: Sequence[Mapping[str, Any]],
    types: Mapping[str, LeanType] | None,
    structs: Mapping[str, StructDef],
    *,
    eligible: Sequence[int],
) -> list[int]:
    """Positions (among ``eligible``) of the boundary tests, sorted."""
    if not eligible or types is None:
        return []
    rows = [inputs[i] for i in eligible]
    analyses, _ = analyse_rows(rows, mode="typed", types=types, structs=structs)
    order = sorted(range(len(rows)), key=lambda k: analyses[k].priority)
    chosen: set[int] = set()
    for bucket in sorted({b for a in analyses for b in a.buckets}):
        chosen.add(next(k for k in order if bucket in analyses[k].buckets))
    chosen.add(min(order, key=lambda k: (analyses[k].size, analyses[k].priority)))
    chosen.add(max(order, key=lambda k: analyses[k].size))  # the first of the largest
    for name, ty in types.items():
        magnitudes = [(_largest_number(rows[k].get(name), ty, structs), k) for k in order]
        known = [(m, k) for m, k in magnitudes if m is not None]
        if known:
            best = max(m for m, _ in known)
            chosen.add(next(k for m, k in known if m == best))
    return sorted(eligible[k] for k in chosen)
