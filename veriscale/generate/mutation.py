"""Type-aware mutation of seed inputs (the published method's defaults: 15 mutants per seed, chains
of 1-5 single-parameter changes, ingredient reuse with probability 0.3, seed 42).

A *mutant* is a seed row after a chain of *steps*; each step changes one parameter's value with
one operator. With probability ``ingredient_prob`` a step reuses an *ingredient* -- a value of the
same type seen anywhere in the seeds (a whole parameter value, a list element, a product
component, a structure field, an option's content, a character of a string) -- instead of a
fresh value. Operators only build values of the declared type (a ``Nat`` is never negative, a
``UInt8`` wraps within 0..255, a ``Char`` is a Unicode scalar, a structure keeps its fields); they
do not try to keep any precondition or structure invariant: classifying candidates is the
precondition's job.

Operators by type (names as recorded in :class:`MutationStep`):

* ``Nat``/``Int``/``UIntN``: inc, dec, double, halve, negate (``Int``; wrapping for ``UIntN``),
  zero, boundary, nearby (±1..10), small;
* ``Float``: inc, dec (±1.0), double, halve, zero, negate, boundary (including -0.0, NaN, ±inf),
  nearby (±0.25..2.0), small;
* ``Bool``: flip;
* ``Char``: neighbour (adjacent code point, skipping surrogates), case_swap, letter, digit, space,
  boundary (non-ASCII included), small;
* ``String``: insert_char, delete_char, replace_char, swap_chars, duplicate_char, duplicate,
  reverse, empty, change_case, prefix, boundary;
* ``List``/``Array``: insert, delete, replace, swap, duplicate_element, sort, reverse, empty,
  singleton, append, element (mutate one element recursively);
* ``α × β``: fst / snd (mutate one component); ``Option``: to_none, to_some, inside;
* structures: field (mutate one field); functions (``Int → Bool``): other_function (from a small
  catalog), tweak_literal (change one numeric literal of the source);
* ingredient steps: ingredient (replace the whole value), ingredient_insert / ingredient_replace /
  ingredient_append (an element), ingredient_splice (a piece of a string), or one of these inside
  a component (``fst>ingredient``).

Sizes stay bounded: lists and strings do not grow past 50 (or the seed's own size), integers stay
within ±2^63 and finite floats within ±1e18 unless they come from a boundary pool.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veriscale.generate.value_space import (
    CHAR_PALETTE,
    MAX_FLOAT_MAGNITUDE,
    MAX_MAGNITUDE,
    MAX_SEQUENCE_LENGTH,
    MAX_STRING_LENGTH,
    ValuePools,
    elem_type,
    function_catalog,
    kind_of,
    make_int,
    sorted_values,
    stable_rng,
    struct_fields,
    supports_type,
    value_key,
)
from veriscale.lean.codec import LeanSource, parse_value
from veriscale.lean.types import LeanType, NamedType, ProdType, StructDef
from veriscale.lean.values import NONE, Arr, Char, Pair, Some, Struct
from veriscale.typed_task import typed_input_key

__all__ = [
    "DEFAULT_INGREDIENT_PROB",
    "DEFAULT_MAX_CHAIN",
    "DEFAULT_MUTATION_SEED",
    "DEFAULT_PER_SEED",
    "IngredientPool",
    "Mutant",
    "MutationStep",
    "mutate",
    "mutate_traced",
]

DEFAULT_MUTATION_SEED = 42
DEFAULT_PER_SEED = 15
DEFAULT_MAX_CHAIN = 5
DEFAULT_INGREDIENT_PROB = 0.3

_INGREDIENTS_PER_TYPE = 256
_OPERATOR_TRIES = 8
_ATTEMPTS_PER_MUTANT = 3


@dataclass(frozen=True)
class MutationStep:
    parameter: str
    operator: str
    """Operator path, e.g. ``insert`` or ``element>inc`` (an operator applied inside a value)."""
    ingredient: bool
    """Whether the step reused a value seen in the seeds."""


@dataclass(frozen=True)
class Mutant:
    row: dict[str, Any]
    seed_index: int
    """Position of the seed row (in the ``seeds`` argument) it was derived from."""
    steps: tuple[MutationStep, ...]


class IngredientPool:
    """Values seen in the seed rows, by type, in order of first appearance, without duplicates."""

    def __init__(self, structs: Mapping[str, StructDef]) -> None:
        self.structs = structs
        self._entries: dict[LeanType, dict[str, Any]] = {}  # rendered key -> value, insertion-ordered
        self._supported: dict[LeanType, bool] = {}

    def get(self, ty: LeanType) -> Sequence[Any]:
        return list(self._entries.get(ty, {}).values())

    def others(self, ty: LeanType, key: str) -> list[Any]:
        """The ingredients of ``ty`` except the one whose rendered key is ``key``."""
        return [v for k, v in self._entries.get(ty, {}).items() if k != key]

    def add(self, v: Any, ty: LeanType) -> None:
        kind = kind_of(ty, self.structs)
        supported = self._supported.get(ty)
        if supported is None:
            supported = self._supported[ty] = supports_type(ty, self.structs) or kind == "fun"
        if not supported or (kind == "fun" and not isinstance(v, LeanSource)):
            return
        entries = self._entries.setdefault(ty, {})
        key = value_key(v, ty, self.structs)
        if key not in entries and len(entries) < _INGREDIENTS_PER_TYPE:
            entries[key] = v
        if kind in ("list", "array"):
            for x in v:
                self.add(x, elem_type(ty))
        elif kind == "string":
            for c in v:
                self.add(Char(c), NamedType("Char"))
        elif kind == "option" and isinstance(v, Some):
            self.add(v.value, elem_type(ty))
        elif isinstance(ty, ProdType):
            self.add(v.fst, ty.fst)
            self.add(v.snd, ty.snd)
        elif kind == "struct":
            for (_, field_ty), (_, field_value) in zip(struct_fields(ty, self.structs), v.fields):
                self.add(field_value, field_ty)


_Result = tuple[Any, str]
_Operator = Callable[[Any, LeanType, int], Any]


class _Mutator:
    """Applies one operator to a value; returns ``(new value, operator path)`` or ``None``."""

    def __init__(
        self, structs: Mapping[str, StructDef], pools: ValuePools, ingredients: IngredientPool, rng: Any
    ):
        self.structs = structs
        self.pools = pools
        self.ingredients = ingredients
        self.rng = rng

    def changed(self, old: Any, new: Any, ty: LeanType) -> bool:
        return value_key(old, ty, self.structs) != value_key(new, ty, self.structs)

    # -- fresh changes ---------------------------------------------------------------------------

    def fresh(self, v: Any, ty: LeanType, depth: int) -> _Result | None:
        operators = self.operators(kind_of(ty, self.structs))
        if not operators:
            return None
        for _ in range(_OPERATOR_TRIES):
            name, op = self.rng.choice(operators)
            result = op(v, ty, depth)
            if result is None:
                continue
            new, path = (result.value, result.path) if isinstance(result, _Nested) else (result, name)
            if self.changed(v, new, ty):
                return new, path
        return None

    def operators(self, kind: str) -> list[tuple[str, _Operator]]:
        table: dict[str, list[tuple[str, _Operator]]] = {
            "nat": self._integer_ops(),
            "int": self._integer_ops(),
            "uint": self._integer_ops(),
            "float": self._float_ops(),
            "bool": [("flip", lambda v, ty, d: not v)],
            "char": self._char_ops(),
            "string": self._string_ops(),
            "list": self._sequence_ops(),
            "array": self._sequence_ops(),
            "option": [("to_none", self._to_none), ("to_some", self._to_some), ("inside", self._inside)],
            "prod": [("fst", self._fst), ("snd", self._snd)],
            "struct": [("field", self._field)],
            "fun": [("other_function", self._other_function), ("tweak_literal", self._tweak_literal)],
        }
        return table.get(kind, [])

    # numbers

    def _integer_ops(self) -> list[tuple[str, _Operator]]:
        rng = self.rng

        def op(f: Callable[[int], int]) -> _Operator:
            return lambda v, ty, d: self._make_integer(f(int(v)), ty)

        nearby = [k for k in range(-10, 11) if k]
        return [
            ("inc", op(lambda x: x + 1)),
            ("dec", op(lambda x: x - 1)),
            ("double", op(lambda x: 2 * x)),
            ("halve", op(lambda x: x // 2)),
            ("negate", op(lambda x: -x)),
            ("zero", op(lambda x: 0)),
            ("boundary", lambda v, ty, d: rng.choice(self.pools.pool(ty, 0))),
            ("nearby", op(lambda x: x + rng.choice(nearby))),
            ("small", lambda v, ty, d: rng.choice(self.pools.pool(ty, 1))),
        ]

    def _make_integer(self, x: int, ty: LeanType) -> Any:
        kind = kind_of(ty, self.structs)
        if kind == "uint":
            return make_int(x, ty, self.structs)  # wraps modulo 2^bits, like Lean's UIntN arithmetic
        if abs(x) > MAX_MAGNITUDE or (kind == "nat" and x < 0):
            return None
        return make_int(x, ty, self.structs)

    def _float_ops(self) -> list[tuple[str, _Operator]]:
        rng = self.rng

        def op(f: Callable[[float], float]) -> _Operator:
            def apply(v: float, ty: LeanType, d: int) -> float | None:
                x = f(v)
                if math.isfinite(v) and (not math.isfinite(x) or abs(x) > MAX_FLOAT_MAGNITUDE):
                    return None
                return x

            return apply

        nearby = [k / 4 for k in range(-8, 9) if k]
        return [
            ("inc", op(lambda x: x + 1.0)),
            ("dec", op(lambda x: x - 1.0)),
            ("double", op(lambda x: x * 2.0)),
            ("halve", op(lambda x: x / 2.0)),
            ("zero", op(lambda x: 0.0)),
            ("negate", op(lambda x: -x)),
            ("boundary", lambda v, ty, d: rng.choice(self.pools.pool(ty, 0))),
            ("nearby", op(lambda x: x + rng.choice(nearby))),
            ("small", lambda v, ty, d: rng.choice(self.pools.pool(ty, 1))),
        ]

    # characters and strings

    def _char_ops(self) -> list[tuple[str, _Operator]]:
        rng = self.rng

        def neighbour(v: str, ty: LeanType, d: int) -> Char | None:
            step = rng.choice((-1, 1))
            cp = ord(v) + step
            if 0xD800 <= cp <= 0xDFFF:
                cp = 0xE000 if step > 0 else 0xD7FF
            return Char(chr(cp)) if 0 <= cp <= 0x10FFFF else None

        def case_swap(v: str, ty: LeanType, d: int) -> Char | None:
            swapped = v.swapcase()
            return Char(swapped) if len(swapped) == 1 else None

        return [
            ("neighbour", neighbour),
            ("case_swap", case_swap),
            ("letter", lambda v, ty, d: Char(rng.choice(string.ascii_letters))),
            ("digit", lambda v, ty, d: Char(rng.choice(string.digits))),
            ("space", lambda v, ty, d: Char(" ")),
            ("boundary", lambda v, ty, d: rng.choice(self.pools.pool(ty, 0))),
            ("small", lambda v, ty, d: rng.choice(self.pools.pool(ty, 1))),
        ]

    def _string_ops(self) -> list[tuple[str, _Operator]]:
        rng = self.rng

        def bounded(old: str, new: str) -> str:
            return new[: max(MAX_STRING_LENGTH, len(old))]

        def insert_char(s: str, ty: LeanType, d: int) -> str | None:
            if len(s) >= MAX_STRING_LENGTH:
                return None
            i = rng.randint(0, len(s))
            return s[:i] + rng.choice(CHAR_PALETTE) + s[i:]

        def delete_char(s: str, ty: LeanType, d: int) -> str | None:
            if not s:
                return None
            i = rng.randrange(len(s))
            return s[:i] + s[i + 1 :]

        def replace_char(s: str, ty: LeanType, d: int) -> str | None:
            if not s:
                return None
            i = rng.randrange(len(s))
            return s[:i] + rng.choice(CHAR_PALETTE) + s[i + 1 :]

        def swap_chars(s: str, ty: LeanType, d: int) -> str | None:
            if len(s) < 2:
                return None
            i, j = sorted(rng.sample(range(len(s)), 2))
            return s[:i] + s[j] + s[i + 1 : j] + s[i] + s[j + 1 :]

        def duplicate_char(s: str, ty: LeanType, d: int) -> str | None:
            if not s or len(s) >= MAX_STRING_LENGTH:
                return None
            i = rng.randrange(len(s))
            return s[: i + 1] + s[i:]

        def change_case(s: str, ty: LeanType, d: int) -> str:
            return bounded(s, rng.choice((str.upper, str.lower, str.swapcase, str.capitalize))(s))

        def prefix(s: str, ty: LeanType, d: int) -> str | None:
            return s[: rng.randrange(len(s))] if s else None

        return [
            ("insert_char", insert_char),
            ("delete_char", delete_char),
            ("replace_char", replace_char),
            ("swap_chars", swap_chars),
            ("duplicate_char", duplicate_char),
            ("duplicate", lambda s, ty, d: bounded(s, s + s) if s else None),
            ("reverse", lambda s, ty, d: s[::-1]),
            ("empty", lambda s, ty, d: ""),
            ("change_case", change_case),
            ("prefix", prefix),
            ("boundary", lambda s, ty, d: rng.choice(self.pools.pool(ty, 0))),
        ]

    # sequences

    def _wrap(self, ty: LeanType) -> Callable[[Sequence[Any]], Any]:
        return Arr if kind_of(ty, self.structs) == "array" else tuple

    def _new_element(self, ty: LeanType, depth: int) -> Any:
        return self.rng.choice(self.pools.pool(elem_type(ty), depth + 1))

    def _sequence_ops(self) -> list[tuple[str, _Operator]]:
        rng = self.rng

        def grows(xs: Sequence[Any]) -> bool:
            return len(xs) < MAX_SEQUENCE_LENGTH

        def insert(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            if not grows(xs):
                return None
            i = rng.randint(0, len(xs))
            return self._wrap(ty)([*xs[:i], self._new_element(ty, d), *xs[i:]])

        def delete(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            if not xs:
                return None
            i = rng.randrange(len(xs))
            return self._wrap(ty)([*xs[:i], *xs[i + 1 :]])

        def replace(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            if not xs:
                return None
            i = rng.randrange(len(xs))
            return self._wrap(ty)([*xs[:i], self._new_element(ty, d), *xs[i + 1 :]])

        def swap(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            if len(xs) < 2:
                return None
            i, j = rng.sample(range(len(xs)), 2)
            items = list(xs)
            items[i], items[j] = items[j], items[i]
            return self._wrap(ty)(items)

        def duplicate_element(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            if not xs or not grows(xs):
                return None
            i = rng.randrange(len(xs))
            return self._wrap(ty)([*xs[: i + 1], *xs[i:]])

        def sort(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            ordered = sorted_values(list(xs), elem_type(ty), self.structs)
            return None if ordered is None else self._wrap(ty)(ordered)

        def singleton(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            return self._wrap(ty)([rng.choice(list(xs)) if xs else self._new_element(ty, d)])

        def append(xs: Sequence[Any], ty: LeanType, d: int) -> Any:
            return self._wrap(ty)([*xs, self._new_element(ty, d)]) if grows(xs) else None

        def element(xs: Sequence[Any], ty: LeanType, d: int) -> _Nested | None:
            if not xs:
                return None
            i = rng.randrange(len(xs))
            inner = self.fresh(xs[i], elem_type(ty), d + 1)
            if inner is None:
                return None
            return _Nested(self._wrap(ty)([*xs[:i], inner[0], *xs[i + 1 :]]), "element>" + inner[1])

        return [
            ("insert", insert),
            ("delete", delete),
            ("replace", replace),
            ("swap", swap),
            ("duplicate_element", duplicate_element),
            ("sort", sort),
            ("reverse", lambda xs, ty, d: self._wrap(ty)(list(xs)[::-1])),
            ("empty", lambda xs, ty, d: self._wrap(ty)([])),
            ("singleton", singleton),
            ("append", append),
            ("element", element),
        ]

    # options, products, structures, functions

    def _to_none(self, v: Any, ty: LeanType, d: int) -> Any:
        return NONE if isinstance(v, Some) else None

    def _to_some(self, v: Any, ty: LeanType, d: int) -> Any:
        return Some(self.rng.choice(self.pools.pool(elem_type(ty), d))) if v is NONE else None

    def _inside(self, v: Any, ty: LeanType, d: int) -> _Nested | None:
        if not isinstance(v, Some):
            return None
        inner = self.fresh(v.value, elem_type(ty), d)
        return None if inner is None else _Nested(Some(inner[0]), "inside>" + inner[1])

    def _fst(self, v: Pair, ty: LeanType, d: int) -> _Nested | None:
        assert isinstance(ty, ProdType)
        inner = self.fresh(v.fst, ty.fst, d)
        return None if inner is None else _Nested(Pair(inner[0], v.snd), "fst>" + inner[1])

    def _snd(self, v: Pair, ty: LeanType, d: int) -> _Nested | None:
        assert isinstance(ty, ProdType)
        inner = self.fresh(v.snd, ty.snd, d)
        return None if inner is None else _Nested(Pair(v.fst, inner[0]), "snd>" + inner[1])

    def _field(self, v: Struct, ty: LeanType, d: int) -> _Nested | None:
        fields = struct_fields(ty, self.structs)
        if not fields:
            return None
        i = self.rng.randrange(len(fields))
        name, field_ty = fields[i]
        inner = self.fresh(v.fields[i][1], field_ty, d)
        if inner is None:
            return None
        new_fields = tuple((n, inner[0] if j == i else x) for j, (n, x) in enumerate(v.fields))
        return _Nested(Struct(v.type_name, new_fields), f"field[{name}]>" + inner[1])

    def _other_function(self, v: Any, ty: LeanType, d: int) -> Any:
        catalog = function_catalog(ty)
        return LeanSource(self.rng.choice(catalog)) if catalog else None

    def _tweak_literal(self, v: Any, ty: LeanType, d: int) -> Any:
        if not isinstance(v, LeanSource):
            return None
        literals = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", v.text))
        if not literals:
            return None
        m = self.rng.choice(literals)
        # Only non-negative replacements: the literal may be at `Nat`, and `-` would change parsing.
        n = max(0, int(m.group()) + self.rng.choice((-2, -1, 1, 2, 5)))
        return LeanSource(v.text[: m.start()] + str(n) + v.text[m.end() :])

    # -- ingredient changes -------------------------------------------------------------------------

    def with_ingredient(self, v: Any, ty: LeanType, depth: int) -> _Result | None:
        """Change ``v`` using a value seen in the seeds; ``None`` when no such change exists."""
        kind = kind_of(ty, self.structs)
        options: list[Callable[[], _Result | None]] = [lambda: self._ingredient_whole(v, ty)]
        if kind in ("list", "array"):
            options.append(lambda: self._ingredient_element(v, ty))
        elif kind == "string":
            options.append(lambda: self._ingredient_splice(v, ty))
        elif kind == "option" and isinstance(v, Some):
            options.append(lambda: self._nested_ingredient(v.value, elem_type(ty), depth, "inside", Some))
        elif kind == "option":
            inner = self.ingredients.get(elem_type(ty))
            if inner:
                options.append(lambda: (Some(self.rng.choice(inner)), "to_some>ingredient"))
        elif isinstance(ty, ProdType):
            options.append(
                lambda: self._nested_ingredient(v.fst, ty.fst, depth, "fst", lambda x: Pair(x, v.snd))
            )
            options.append(
                lambda: self._nested_ingredient(v.snd, ty.snd, depth, "snd", lambda x: Pair(v.fst, x))
            )
        elif kind == "struct":
            for i, (name, field_ty) in enumerate(struct_fields(ty, self.structs)):
                options.append(self._field_ingredient_option(v, field_ty, depth, i, name))
        self.rng.shuffle(options)
        for option in options:
            result = option()
            if result is not None and self.changed(v, result[0], ty):
                return result
        return None

    def _field_ingredient_option(
        self, v: Struct, field_ty: LeanType, depth: int, i: int, name: str
    ) -> Callable[[], _Result | None]:
        def rebuild(x: Any) -> Struct:
            return Struct(v.type_name, tuple((n, x if j == i else y) for j, (n, y) in enumerate(v.fields)))

        return lambda: self._nested_ingredient(v.fields[i][1], field_ty, depth, f"field[{name}]", rebuild)

    def _nested_ingredient(
        self, inner: Any, inner_ty: LeanType, depth: int, label: str, rebuild: Callable[[Any], Any]
    ) -> _Result | None:
        result = self.with_ingredient(inner, inner_ty, depth)
        return None if result is None else (rebuild(result[0]), f"{label}>{result[1]}")

    def _ingredient_whole(self, v: Any, ty: LeanType) -> _Result | None:
        candidates = self.ingredients.others(ty, value_key(v, ty, self.structs))
        return (self.rng.choice(candidates), "ingredient") if candidates else None

    def _ingredient_element(self, xs: Sequence[Any], ty: LeanType) -> _Result | None:
        elements = self.ingredients.get(elem_type(ty))
        if not elements:
            return None
        x = self.rng.choice(elements)
        wrap = self._wrap(ty)
        choices = ["replace"] if xs else []
        if len(xs) < MAX_SEQUENCE_LENGTH:
            choices += ["insert", "append"]
        if not choices:
            return None
        how = self.rng.choice(choices)
        if how == "append":
            return wrap([*xs, x]), "ingredient_append"
        if how == "insert":
            i = self.rng.randint(0, len(xs))
            return wrap([*xs[:i], x, *xs[i:]]), "ingredient_insert"
        i = self.rng.randrange(len(xs))
        return wrap([*xs[:i], x, *xs[i + 1 :]]), "ingredient_replace"

    def _ingredient_splice(self, s: str, ty: LeanType) -> _Result | None:
        pieces = [x for x in self.ingredients.get(ty) if x] or list(self.ingredients.get(NamedType("Char")))
        room = MAX_STRING_LENGTH - len(s)
        if not pieces or room <= 0:
            return None
        piece = str(self.rng.choice(pieces))
        start = self.rng.randrange(len(piece))
        piece = piece[start : start + self.rng.randint(1, room)]
        i = self.rng.randint(0, len(s))
        return s[:i] + piece + s[i:], "ingredient_splice"


@dataclass(frozen=True)
class _Nested:
    """An operator's result that already names the inner operator applied (``element>inc``)."""

    value: Any
    path: str


def _mutable(ty: LeanType, structs: Mapping[str, StructDef]) -> bool:
    kind = kind_of(ty, structs)
    if kind == "fun":
        return True  # a catalog replacement or a literal tweak may apply
    return kind != "unit" and supports_type(ty, structs)


def mutate_traced(
    seeds: Sequence[Mapping[str, Any]],
    param_types: Mapping[str, LeanType],
    structs: Mapping[str, StructDef],
    *,
    seed: int = DEFAULT_MUTATION_SEED,
    per_seed: int = DEFAULT_PER_SEED,
    max_chain: int = DEFAULT_MAX_CHAIN,
    ingredient_prob: float = DEFAULT_INGREDIENT_PROB,
    salt: str = "",
) -> list[Mutant]:
    """Mutants of every seed row, with the steps that produced them.

    Seed values may be runtime values or any stored encoding (they are read with
    ``parse_value``). For each seed, up to ``per_seed`` mutants, each from a chain of
    ``randint(1, max_chain)`` steps; a mutant equal to any seed or to an earlier mutant is dropped
    (up to ``3 * per_seed`` chains are tried per seed). The random stream of a seed row depends
    only on ``seed``, ``salt``, the signature and the row's canonical key, so adding or reordering
    other seeds does not change its mutants (apart from ingredients and duplicate removal).
    """
    if per_seed < 0 or max_chain < 1 or not 0.0 <= ingredient_prob <= 1.0:
        raise ValueError("per_seed must be >= 0, max_chain >= 1 and ingredient_prob in [0, 1]")
    names = list(param_types)
    mutable = [name for name in names if _mutable(param_types[name], structs)]
    rows = [
        {name: parse_value(row[name], param_types[name], structs, wrap_uint=True) for name in names}
        for row in seeds
    ]
    keys = [typed_input_key(row, param_types, structs) for row in rows]
    if not mutable or per_seed == 0:
        return []
    ingredients = IngredientPool(structs)
    for row in rows:
        for name in names:
            ingredients.add(row[name], param_types[name])
    pools = ValuePools(structs)
    signature = ", ".join(f"{name} : {param_types[name]}" for name in names)
    produced: set[str] = set(keys)
    mutants: list[Mutant] = []
    for index, (row, key) in enumerate(zip(rows, keys)):
        rng = stable_rng("mutate", seed, salt, signature, key)
        mutator = _Mutator(structs, pools, ingredients, rng)
        made = 0
        for _ in range(_ATTEMPTS_PER_MUTANT * per_seed):
            if made >= per_seed:
                break
            current = dict(row)
            steps: list[MutationStep] = []
            for _ in range(rng.randint(1, max_chain)):
                name = rng.choice(mutable)
                ty = param_types[name]
                result = None
                used_ingredient = rng.random() < ingredient_prob
                if used_ingredient:
                    result = mutator.with_ingredient(current[name], ty, 0)
                    used_ingredient = result is not None
                if result is None:
                    result = mutator.fresh(current[name], ty, 0)
                if result is None:
                    continue  # nothing applies to this value (e.g. a function without literals)
                current[name] = result[0]
                steps.append(MutationStep(name, result[1], used_ingredient))
            if not steps:
                continue
            mutant_key = typed_input_key(current, param_types, structs)
            if mutant_key in produced:
                continue
            produced.add(mutant_key)
            mutants.append(Mutant(current, index, tuple(steps)))
            made += 1
    return mutants


def mutate(
    seeds: Sequence[Mapping[str, Any]],
    param_types: Mapping[str, LeanType],
    structs: Mapping[str, StructDef],
    *,
    seed: int = DEFAULT_MUTATION_SEED,
    per_seed: int = DEFAULT_PER_SEED,
    max_chain: int = DEFAULT_MAX_CHAIN,
    ingredient_prob: float = DEFAULT_INGREDIENT_PROB,
    salt: str = "",
) -> list[dict[str, Any]]:
    """The rows of :func:`mutate_traced` (runtime values keyed by parameter name)."""
    return [
        m.row
        for m in mutate_traced(
            seeds,
            param_types,
            structs,
            seed=seed,
            per_seed=per_seed,
            max_chain=max_chain,
            ingredient_prob=ingredient_prob,
            salt=salt,
        )
    ]
