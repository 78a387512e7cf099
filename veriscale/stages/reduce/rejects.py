"""Reject-input reduction: de-duplicate, keep boundary cases, then shape variety, up to a budget.

The published method (VerinaLite from VerinaPlus) works on the raw JSON of each input row. This
module implements it literally, and ``published`` mode reproduces the published VerinaLite
``reject_inputs.json`` from VerinaPlus's for every task, order included (the data test checks
it). ``typed`` mode applies the same bucket logic to values parsed at their Lean types, so that
``"[1, 2]"``, ``[1,2]`` and ``"[1,2]"`` are one input and a ``List (Int × Int)`` exposes its
numbers.

How a row is seen (published mode; each rule was pinned down against the published data):

* *Value kinds.* An *integer scalar* is a JSON integer (not a boolean) or a string that is
  optionally signed decimal digits with surrounding whitespace (``" 1"`` counts; ``\\d`` is
  Unicode-aware, so ``"０１"`` counts too, as it does for Python's ``int``). An *integer sequence*
  is a JSON list whose items are all integers (``[]`` included), or a string that, stripped, is
  ``[..]`` or ``#[..]`` whose comma-separated items are all integer scalars (``"[ ]"`` is empty).
  Any other JSON list, or bracketed string, is a *mixed sequence* (its length: the list's length,
  or the number of comma-separated pieces of the string). Other strings are *strings*; booleans
  are *bool*; everything else (floats, null, objects) is *unknown*.
* *Numbers* of a row: its integer scalars, the items of its integer sequences, and every integer
  nested in a JSON-list mixed sequence (``[[1, 2], [0]]``); bracketed strings that are not
  integer sequences contribute none.
* *Size*: the sum of sequence lengths and string lengths, plus 1 per other value.
* *Features* (a set): per integer sequence (named by parameter) empty, singleton, has duplicate,
  all same (length >= 1), sorted ascending and sorted descending (non-strict, length >= 2); over
  the numbers has zero, one, minus one, negative, magnitude >= 10^6; with two or more integer
  sequences, their lengths match or mismatch.
* *Buckets* (a set, per parameter): an integer sequence is empty, contains zero, contains a
  negative, has a duplicate, is unsorted (not non-decreasing), is a singleton; an integer scalar
  is a negative / zero *index* when the parameter is named like an index, else a negative / zero
  scalar; and the row-level bucket "sequences of different lengths".
* *Priority* (smaller first): (rank of the best bucket, 11 when none; size; minus the number of
  features and buckets; canonical text). The canonical text is the row as JSON with sorted keys,
  compact separators and non-ASCII kept.
* *Shape*: per parameter (sorted by name) the kind and a length bucket (0, 1, 2, 3, 4-5, 6-10,
  >10) of the sequence or string (0 for other values).

Selection: de-duplicate by canonical text (first occurrence kept); if at most ``budget`` rows
remain, keep them all, ordered by priority. Otherwise (1) for every bucket in rank order and
every parameter having it, the best row carrying it; (2) scanning the rows not yet kept in
priority order, the first of each (shape, feature set) group; (3) the rest in priority order,
until ``budget`` rows. The output lists the rows of step 1 by priority, then those of step 2,
then those of step 3 (each already in priority order).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from veriscale.lean.codec import ValueParseError, canonical_key, parse_value
from veriscale.lean.types import LeanType, StructDef
from veriscale.lean.values import Arr, Pair, Some, Struct

__all__ = [
    "BUCKETS",
    "INDEX_NAMES",
    "ReductionMode",
    "RejectReduction",
    "RowAnalysis",
    "ValueKind",
    "ValueView",
    "analyse_row",
    "analyse_rows",
    "is_index_name",
    "published_canonical_text",
    "published_value_view",
    "reduce_reject_inputs",
    "select_rows",
    "typed_value_view",
]

ReductionMode = Literal["published", "typed"]

# Boundary buckets in rank order (rank = position); the rank of "no bucket" is len(BUCKETS).
BUCKETS: tuple[str, ...] = (
    "empty_sequence",
    "length_mismatch",
    "negative_index",
    "zero_index",
    "negative_scalar",
    "zero_scalar",
    "sequence_has_zero",
    "sequence_has_negative",
    "sequence_has_duplicate",
    "unsorted_sequence",
    "singleton_sequence",
)
_BUCKET_RANK = {name: rank for rank, name in enumerate(BUCKETS)}
NO_BUCKET_RANK = len(BUCKETS)
# The one bucket that belongs to the row rather than to a parameter.
_ROW_BUCKET = "length_mismatch"

INDEX_NAMES = frozenset({"i", "j", "k", "idx", "index", "pos", "position", "left", "right", "start", "end"})
BIG_MAGNITUDE = 10**6

_INT_TEXT = re.compile(r"\s*[+-]?\d+\s*")


def is_index_name(name: str) -> bool:
    """A parameter named like a position: its zero / negative values are *index* buckets.

    Compared case-insensitively (``endIndex`` is an index); the published data cannot tell the
    two readings apart.
    """
    lowered = name.lower()
    return lowered in INDEX_NAMES or lowered.endswith(("idx", "index"))


class ValueKind(str, Enum):
    BOOL = "bool"
    INT = "int scalar"
    INT_SEQ = "int sequence"
    MIXED_SEQ = "mixed sequence"
    STRING = "string"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ValueView:
    """What the bucket logic needs to know about one parameter value."""

    kind: ValueKind
    length: int = 0
    """Items of a sequence, characters of a string; 0 otherwise."""
    items: tuple[int, ...] = ()
    """The items of an integer sequence, or the value of an integer scalar (one item)."""
    numbers: tuple[int, ...] = ()
    """The integers this value contributes to the row's number features."""


# ---------------------------------------------------------------------------------------------
# Seeing values: raw JSON (published mode) and typed runtime values (typed mode)


def _is_json_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bracket_body(text: str) -> str | None:
    stripped = text.strip()
    if stripped.startswith("#[") and stripped.endswith("]"):
        return stripped[2:-1]
    if stripped.startswith("[") and stripped.endswith("]"):
        return stripped[1:-1]
    return None


def _nested_json_ints(values: Sequence[Any]) -> list[int]:
    found: list[int] = []
    for value in values:
        if isinstance(value, list):
            found.extend(_nested_json_ints(value))
        elif _is_json_int(value):
            found.append(value)
    return found


def published_value_view(raw: Any) -> ValueView:
    """The published method's view of a raw JSON value (see the module docstring)."""
    if isinstance(raw, bool):
        return ValueView(ValueKind.BOOL)
    if _is_json_int(raw):
        return ValueView(ValueKind.INT, items=(raw,), numbers=(raw,))
    if isinstance(raw, list):
        if all(_is_json_int(item) for item in raw):
            items = tuple(raw)
            return ValueView(ValueKind.INT_SEQ, len(items), items, items)
        return ValueView(ValueKind.MIXED_SEQ, len(raw), numbers=tuple(_nested_json_ints(raw)))
    if isinstance(raw, str):
        if _INT_TEXT.fullmatch(raw):
            number = int(raw)
            return ValueView(ValueKind.INT, items=(number,), numbers=(number,))
        body = _bracket_body(raw)
        if body is None:
            return ValueView(ValueKind.STRING, len(raw))
        pieces = [piece.strip() for piece in body.split(",")] if body.strip() else []
        if all(_INT_TEXT.fullmatch(piece) for piece in pieces):
            items = tuple(int(piece) for piece in pieces)
            return ValueView(ValueKind.INT_SEQ, len(items), items, items)
        return ValueView(ValueKind.MIXED_SEQ, len(pieces))
    return ValueView(ValueKind.UNKNOWN)


def _runtime_int(value: Any) -> bool:
    # Nat, UIntN and Int are int (sub)classes at runtime; Bool is bool.
    return isinstance(value, int) and not isinstance(value, bool)


def _nested_runtime_ints(value: Any) -> list[int]:
    if _runtime_int(value):
        return [int(value)]
    if isinstance(value, (tuple, Arr)):  # List, Array
        return [n for item in value for n in _nested_runtime_ints(item)]
    if isinstance(value, Pair):
        return _nested_runtime_ints(value.fst) + _nested_runtime_ints(value.snd)
    if isinstance(value, Some):
        return _nested_runtime_ints(value.value)
    if isinstance(value, Struct):
        return [n for _, item in value.fields for n in _nested_runtime_ints(item)]
    return []


def typed_value_view(value: Any) -> ValueView:
    """The same view of a runtime value (``veriscale.lean.values``) parsed at its Lean type.

    Integers of any Lean integer type are integer scalars; a ``List``/``Array`` of them an integer
    sequence; other lists and arrays mixed sequences; ``String``/``Char`` strings; everything else
    (floats, products, options, structures, functions) unknown. Numbers nested in lists, products,
    options and structures count for the number features.
    """
    if isinstance(value, bool):
        return ValueView(ValueKind.BOOL)
    if _runtime_int(value):
        return ValueView(ValueKind.INT, items=(int(value),), numbers=(int(value),))
    if isinstance(value, str):
        return ValueView(ValueKind.STRING, len(value))
    if isinstance(value, (tuple, Arr)):
        if all(_runtime_int(item) for item in value):
            items = tuple(int(item) for item in value)
            return ValueView(ValueKind.INT_SEQ, len(items), items, items)
        return ValueView(ValueKind.MIXED_SEQ, len(value), numbers=tuple(_nested_runtime_ints(value)))
    return ValueView(ValueKind.UNKNOWN, numbers=tuple(_nested_runtime_ints(value)))


def published_canonical_text(row: Mapping[str, Any]) -> str:
    """The published canonical text of an input row: sorted keys, compact, non-ASCII kept."""
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# Features, buckets, priority, shape


def _length_bucket(length: int) -> str:
    if length <= 3:
        return str(length)
    if length <= 5:
        return "4-5"
    if length <= 10:
        return "6-10"
    return ">10"


@dataclass(frozen=True)
class RowAnalysis:
    """Everything the selection needs about one (de-duplicated) input row."""

    text: str
    """Canonical text: the de-duplication key and the last tie-break."""
    features: frozenset[str]
    buckets: frozenset[str]
    """``"<parameter>:<bucket>"``, or ``"length_mismatch"`` for the row-level bucket."""
    size: int
    shape: tuple[tuple[str, str, str], ...]

    @property
    def best_rank(self) -> int:
        return min((_BUCKET_RANK[_bucket_name(b)] for b in self.buckets), default=NO_BUCKET_RANK)

    @property
    def priority(self) -> tuple[int, int, int, str]:
        return (self.best_rank, self.size, -(len(self.features) + len(self.buckets)), self.text)

    @property
    def group(self) -> tuple[tuple[tuple[str, str, str], ...], frozenset[str]]:
        return (self.shape, self.features)


def _bucket_name(bucket: str) -> str:
    return bucket.rsplit(":", 1)[-1]


def _sequence_traits(items: Sequence[int]) -> tuple[bool, bool, bool]:
    """(has duplicate, non-decreasing, non-increasing)."""
    ascending = all(a <= b for a, b in zip(items, items[1:]))
    descending = all(a >= b for a, b in zip(items, items[1:]))
    return len(set(items)) < len(items), ascending, descending


def analyse_row(views: Mapping[str, ValueView], text: str) -> RowAnalysis:
    """Features, buckets, size and shape of a row whose values are seen as ``views``."""
    features: set[str] = set()
    buckets: set[str] = set()
    numbers: list[int] = []
    sequence_lengths: list[int] = []
    size = 0
    shape: list[tuple[str, str, str]] = []
    for name in sorted(views):
        view = views[name]
        numbers.extend(view.numbers)
        if view.kind is ValueKind.INT_SEQ:
            items = view.items
            sequence_lengths.append(len(items))
            size += len(items)
            duplicate, ascending, descending = _sequence_traits(items)
            named = {
                "empty": not items,
                "singleton": len(items) == 1,
                "has_duplicate": duplicate,
                "all_same": len(set(items)) == 1,
                # A one-item sequence is "all same" but, like the empty one, not "sorted".
                "sorted_ascending": len(items) >= 2 and ascending,
                "sorted_descending": len(items) >= 2 and descending,
            }
            features.update(f"{name}:{feature}" for feature, present in named.items() if present)
            in_bucket = {
                "empty_sequence": not items,
                "sequence_has_zero": 0 in items,
                "sequence_has_negative": any(x < 0 for x in items),
                "sequence_has_duplicate": duplicate,
                "unsorted_sequence": not ascending,
                "singleton_sequence": len(items) == 1,
            }
            buckets.update(f"{name}:{bucket}" for bucket, present in in_bucket.items() if present)
        elif view.kind is ValueKind.INT:
            size += 1
            (value,) = view.items
            index = is_index_name(name)
            if value < 0:
                buckets.add(f"{name}:{'negative_index' if index else 'negative_scalar'}")
            elif value == 0:
                buckets.add(f"{name}:{'zero_index' if index else 'zero_scalar'}")
        elif view.kind in (ValueKind.MIXED_SEQ, ValueKind.STRING):
            size += view.length
        else:
            size += 1
        sized = view.kind in (ValueKind.INT_SEQ, ValueKind.MIXED_SEQ, ValueKind.STRING)
        shape.append((name, view.kind.value, _length_bucket(view.length) if sized else "0"))
    number_set = set(numbers)
    if 0 in number_set:
        features.add("has_zero")
    if 1 in number_set:
        features.add("has_one")
    if -1 in number_set:
        features.add("has_minus_one")
    if any(n < 0 for n in number_set):
        features.add("has_negative")
    if any(abs(n) >= BIG_MAGNITUDE for n in number_set):
        features.add("has_big_magnitude")
    if len(sequence_lengths) >= 2:
        if len(set(sequence_lengths)) == 1:
            features.add("sequence_lengths_match")
        else:
            features.add("sequence_lengths_mismatch")
            buckets.add(_ROW_BUCKET)
    return RowAnalysis(text, frozenset(features), frozenset(buckets), size, tuple(shape))


# ---------------------------------------------------------------------------------------------
# Selection


@dataclass
class RejectReduction:
    """The outcome: ``kept`` indexes the input rows, in output order."""

    kept: list[int]
    unique: int
    """Rows left after de-duplication."""
    reasons: dict[int, str] = field(default_factory=dict)
    """Why each kept row is kept: ``all`` (under budget), a bucket (``xs:empty_sequence``),
    ``group`` (first of its shape and feature set) or ``rest``."""
    duplicates: int = 0
    """Rows dropped as repeats of an earlier row."""
    typed_fallbacks: int = 0
    """Rows that did not parse at their types and were seen as raw JSON (typed mode)."""


def _typed_views(
    row: Mapping[str, Any], types: Mapping[str, LeanType], structs: Mapping[str, StructDef]
) -> tuple[dict[str, ValueView], str] | None:
    if set(row) != set(types):
        return None
    try:
        parsed = {name: parse_value(row[name], ty, structs, wrap_uint=True) for name, ty in types.items()}
        text = canonical_key(parsed, types, structs, wrap_uint=True)
    except ValueParseError:
        return None
    return {name: typed_value_view(value) for name, value in parsed.items()}, text


def analyse_rows(
    rows: Sequence[Mapping[str, Any]],
    *,
    mode: ReductionMode = "published",
    types: Mapping[str, LeanType] | None = None,
    structs: Mapping[str, StructDef] | None = None,
) -> tuple[list[RowAnalysis], int]:
    """A :class:`RowAnalysis` per row, and how many rows fell back to the raw view (typed mode).

    In typed mode a row whose values do not parse at ``types`` (a reject input may well be
    ill-typed: ``""`` for a list) is seen as raw JSON; its text is prefixed with ``raw:`` so that
    it never collides with a typed key.
    """
    if mode == "typed" and types is None:
        raise ValueError("typed mode needs the parameter types")
    analyses: list[RowAnalysis] = []
    fallbacks = 0
    for row in rows:
        if mode == "typed":
            assert types is not None
            seen = _typed_views(row, types, structs or {})
            if seen is not None:
                views, text = seen
                analyses.append(analyse_row(views, text))
                continue
            fallbacks += 1
            text = "raw:" + published_canonical_text(row)
        else:
            text = published_canonical_text(row)
        analyses.append(analyse_row({name: published_value_view(v) for name, v in row.items()}, text))
    return analyses, fallbacks


def select_rows(analyses: Sequence[RowAnalysis], budget: int) -> tuple[list[int], dict[int, str]]:
    """The selection over already de-duplicated rows; returns kept positions in output order."""
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    order = sorted(range(len(analyses)), key=lambda i: analyses[i].priority)
    if len(order) <= budget:
        return order, dict.fromkeys(order, "all")
    reasons: dict[int, str] = {}
    boundary: list[int] = []
    bucket_keys = sorted(
        {b for a in analyses for b in a.buckets}, key=lambda b: (_BUCKET_RANK[_bucket_name(b)], b)
    )
    for bucket in bucket_keys:
        if len(boundary) >= budget:
            break
        best = next(i for i in order if bucket in analyses[i].buckets)
        if best not in reasons:
            reasons[best] = bucket
            boundary.append(best)
    boundary.sort(key=lambda i: analyses[i].priority)
    kept = list(boundary)
    groups_seen: set[tuple[Any, ...]] = set()
    for i in order:
        if len(kept) >= budget:
            break
        group = analyses[i].group
        if i in reasons or group in groups_seen:
            continue
        groups_seen.add(group)
        reasons[i] = "group"
        kept.append(i)
    for i in order:
        if len(kept) >= budget:
            break
        if i not in reasons:
            reasons[i] = "rest"
            kept.append(i)
    return kept, reasons


def reduce_reject_inputs(
    rows: Sequence[Mapping[str, Any]],
    budget: int = 50,
    *,
    mode: ReductionMode = "published",
    types: Mapping[str, LeanType] | None = None,
    structs: Mapping[str, StructDef] | None = None,
) -> RejectReduction:
    """Reduce reject input rows (raw ``input`` dicts) to at most ``budget``; see the module doc.

    ``mode="published"`` is the published method exactly (raw JSON canonical text);
    ``mode="typed"`` de-duplicates and tie-breaks on :func:`veriscale.lean.codec.canonical_key` and
    sees values at their ``types``.
    """
    analyses, fallbacks = analyse_rows(rows, mode=mode, types=types, structs=structs)
    first_of: dict[str, int] = {}
    for i, analysis in enumerate(analyses):
        first_of.setdefault(analysis.text, i)
    unique = sorted(first_of.values())
    kept_unique, reasons_unique = select_rows([analyses[i] for i in unique], budget)
    return RejectReduction(
        kept=[unique[j] for j in kept_unique],
        unique=len(unique),
        reasons={unique[j]: reason for j, reason in reasons_unique.items()},
        duplicates=len(rows) - len(unique),
        typed_fallbacks=fallbacks,
    )
