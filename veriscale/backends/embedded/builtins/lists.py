"""``List`` builtins (Init/Data/List/Basic.lean, BasicAux.lean, Sort/Basic.lean; Mathlib for
``List.sublists``).

A Lean list is a Python ``tuple``. Every function follows the Lean definition, including the
order in which a fold visits elements (it matters for ``Float`` sums) and the ``BEq``-based
functions (``contains``, ``count``, ``erase``, ``isPerm`` ... use ``==``, under which ``NaN`` is
never found).

Semantics worth knowing (each checked against the Lean source):

* ``List.sum = foldr (· + ·) 0``: ``[a, b, c].sum = a + (b + (c + 0))``.
* ``List.max? (a :: as) = some (as.foldl max a)``; ``max``/``min`` are ``maxOfLe``/``minOfLe``.
* ``List.idxOf a l`` / ``List.findIdx p l``: the length of the list when not found.
* ``List.zipIdx l (n := 0)`` pairs each element with its index: ``(x, i)``, element first.
* ``List.eraseDups`` keeps the first occurrence of each element.
* ``List.mergeSort xs (le := (· ≤ ·))``: split into ``take ((n+1)/2)``/``drop``, sort both,
  ``merge`` taking from the left while ``le x y``; stable; the runtime version is proved equal,
  so this is the result for any ``le``.
* ``List.rotateRight l n``: ``len ≤ 1 → l``; else ``let i := len - n % len; drop i l ++ take i l``.
* ``List.extract l start stop = (l.drop start).take (stop - start)``.
* ``List.sublists`` (Mathlib) ``= foldr (fun a acc => acc.flatMap fun x => [x, a :: x]) [[]]``:
  ``[1, 2, 3] ↦ [[], [1], [2], [1, 2], [3], [1, 3], [2, 3], [1, 2, 3]]``.
* ``xs[i]!`` out of range is ``default`` of the element type (``panic!`` returns ``default``);
  it is registered as ``List.getElem!`` (and ``xs[i]?`` as ``List.getElem?``).

``map``, ``filter``, ``contains``/``elem``, ``all`` and ``any`` also take the symbolic list of
all sublists (:class:`.sublists.SublistFamily`), which reaches them only where the compiler
allowed it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import veriscale.backends.embedded.builtins.floats as _floats  # noqa: F401  (registers Float arithmetic)
from veriscale.backends.embedded.builtins._core import (
    MAX_BITS,
    check_size,
    default_of_type,
    nat,
    nat_range,
    nat_unchecked,
    type_name_of,
)
from veriscale.backends.embedded.builtins.numbers import arith
from veriscale.backends.embedded.builtins.order import (
    beq_member,
    compare_le,
    eq_is_beq,
    lean_beq,
    lean_max,
    lean_min,
)
from veriscale.backends.embedded.builtins.sublists import SublistFamily
from veriscale.backends.embedded.registry import alias, builtin
from veriscale.backends.embedded.runtime_support import binary, unary
from veriscale.lean.printing import to_string
from veriscale.lean.values import NONE, Arr, Nat, Pair, Some, Unsupported, pair

Fn = Callable[..., Any]


def _index(i: Any) -> int:
    return int(i)


# ---------------------------------------------------------------------------------------------
# Construction


@builtin("List.range", "(n : Nat) : List Nat")
def list_range(n: int) -> tuple:
    check_size(int(n), "List.range")
    return nat_range(0, int(n))


@builtin("List.range'", ": (start len : Nat) → (step : Nat := 1) → List Nat")
def list_range_prime(start: int, length: int, step: int = 1) -> tuple:
    """``List.range' s n step = [s, s+step, ..., s+(n-1)*step]``."""
    check_size(int(length), "List.range'")
    return tuple(Nat(int(start) + k * int(step)) for k in range(int(length)))


@builtin("List.ofFn", "{α : Type u} {n : Nat} (f : Fin n → α) : List α", verified=False)
def list_of_fn(f: Fn, *, n: Any = None) -> tuple:
    """``List.ofFn {n} (f : Fin n → α) = [f 0, ..., f (n-1)]`` (Init/Data/List/OfFn.lean:
    ``Fin.foldr n (f · :: ·) []``); a ``Fin`` is kept as its number."""
    if n is None:
        raise Unsupported("List.ofFn", "the implicit size n is not known")
    check_size(int(n), "List.ofFn")
    return tuple(f(Nat(i)) for i in range(int(n)))


@builtin("List.iota", "(n : Nat) : List Nat", verified=False)
def list_iota(n: int) -> tuple:
    """``List.iota n = [n, n-1, ..., 1]`` (Init/Data/List/Basic.lean: ``iota 0 = []``,
    ``iota (n+1) = (n+1) :: iota n``; deprecated in favour of ``(List.range' 1 n).reverse``)."""
    check_size(int(n), "List.iota")
    return tuple(Nat(k) for k in range(int(n), 0, -1))


@builtin("List.replicate", "{α : Type u} : (n : Nat) → (a : α) → List α")
def list_replicate(n: int, a: Any) -> tuple:
    check_size(int(n), "List.replicate")
    return (a,) * int(n)


@builtin("List.singleton", "{α : Type u} (a : α) : List α")
def list_singleton(a: Any) -> tuple:
    return (a,)


@builtin("List.cons", "{α : Type _} : α → List α → List α", verified=False)
def list_cons(a: Any, xs: tuple) -> tuple:
    return (a, *xs)


@builtin("List.concat", "{α : Type _} : List α → α → List α", verified=False)
def list_concat(xs: tuple, a: Any) -> tuple:
    return (*xs, a)


@builtin("List.append", "{α : Type u} (xs ys : List α) : List α")
def list_append(xs: tuple, ys: tuple) -> tuple:
    check_size(len(xs) + len(ys))
    return tuple(xs) + tuple(ys)


# ---------------------------------------------------------------------------------------------
# Basic queries


@builtin("List.length", "{α : Type u_1} : List α → Nat")
def list_length(xs: tuple) -> Nat:
    return nat(len(xs))


@builtin("List.isEmpty", "{α : Type u} : List α → Bool")
def list_is_empty(xs: tuple) -> bool:
    return len(xs) == 0


@builtin("List.head?", "{α : Type u} : List α → Option α")
def list_head_opt(xs: tuple) -> Any:
    return Some(xs[0]) if xs else NONE


@builtin("List.headD", "{α : Type u} : (as : List α) → (fallback : α) → α")
def list_head_d(xs: tuple, fallback: Any) -> Any:
    return xs[0] if xs else fallback


@builtin("List.head!", "{α : Type u_1} [Inhabited α] : List α → α", typed=True)
def list_head_bang(xs: tuple, *, result_type: Any = None) -> Any:
    if xs:
        return xs[0]
    return default_of_type(result_type, construct="List.head!")


@builtin("List.tail", "{α : Type u} : List α → List α")
def list_tail(xs: tuple) -> tuple:
    return tuple(xs[1:])


@builtin("List.tail?", "{α : Type u} : List α → Option (List α)")
def list_tail_opt(xs: tuple) -> Any:
    return Some(tuple(xs[1:])) if xs else NONE


@builtin("List.tailD", "{α : Type u} (l fallback : List α) : List α")
def list_tail_d(xs: tuple, fallback: tuple) -> tuple:
    return tuple(xs[1:]) if xs else fallback


@builtin("List.tail!", "{α : Type u_1} : List α → List α")
def list_tail_bang(xs: tuple) -> tuple:
    # panics on [] and returns `default : List α`, which is [] as well
    return tuple(xs[1:])


@builtin("List.getLast?", "{α : Type u} : List α → Option α")
def list_get_last_opt(xs: tuple) -> Any:
    return Some(xs[-1]) if xs else NONE


@builtin("List.getLastD", "{α : Type u} : (as : List α) → (fallback : α) → α")
def list_get_last_d(xs: tuple, fallback: Any) -> Any:
    return xs[-1] if xs else fallback


@builtin("List.getLast!", "{α : Type _} : List α → α", typed=True, verified=False)
def list_get_last_bang(xs: tuple, *, result_type: Any = None) -> Any:
    if xs:
        return xs[-1]
    return default_of_type(result_type, construct="List.getLast!")


@builtin("List.getElem!", "{α : Type _} : List α → Nat → α", typed=True, verified=False)
def list_get_elem_bang(xs: tuple, i: Any, *, result_type: Any = None) -> Any:
    """``l[i]!``: the element, or ``default`` of the element type when out of range."""
    i = _index(i)
    if 0 <= i < len(xs):
        return xs[i]
    return default_of_type(result_type, construct="xs[i]!")


@builtin("List.getElem?", "{α : Type _} : List α → Nat → Option α", verified=False)
def list_get_elem_opt(xs: tuple, i: Any) -> Any:
    i = _index(i)
    return Some(xs[i]) if 0 <= i < len(xs) else NONE


alias("List.get!", "List.getElem!", "{α : Type _} : List α → Nat → α", verified=False)
alias("List.get?", "List.getElem?", "{α : Type _} : List α → Nat → Option α", verified=False)


@builtin("List.getD", "{α : Type _} : List α → Nat → α → α", verified=False)
def list_get_d(xs: tuple, i: Any, fallback: Any) -> Any:
    i = _index(i)
    return xs[i] if 0 <= i < len(xs) else fallback


@builtin("List.set", "{α : Type _} : List α → Nat → α → List α", verified=False)
def list_set(xs: tuple, i: Any, a: Any) -> tuple:
    """``l.set i a``: unchanged when ``i`` is out of range."""
    i = _index(i)
    if 0 <= i < len(xs):
        return (*xs[:i], a, *xs[i + 1 :])
    return tuple(xs)


# ---------------------------------------------------------------------------------------------
# Folds and maps


@builtin("List.foldl", "{α : Type u} {β : Type v} (f : α → β → α) : (init : α) → List β → α")
def list_foldl(f: Fn, init: Any, xs: tuple) -> Any:
    f = binary(f)
    acc = init
    for x in xs:
        acc = f(acc, x)
    return acc


@builtin("List.foldr", "{α : Type u} {β : Type v} (f : α → β → β) (init : β) : (l : List α) → β")
def list_foldr(f: Fn, init: Any, xs: tuple) -> Any:
    f = binary(f)
    acc = init
    for x in reversed(xs):
        acc = f(x, acc)
    return acc


@builtin("List.map", "{α : Type u} {β : Type v} (f : α → β) (l : List α) : List β")
def list_map(f: Fn, xs: tuple) -> tuple:
    if type(xs) is SublistFamily:
        return xs.map(f)
    return tuple(map(unary(f), xs))


@builtin("List.filter", "{α : Type u} (p : α → Bool) : (l : List α) → List α")
def list_filter(p: Fn, xs: tuple) -> tuple:
    if type(xs) is SublistFamily:
        return xs.filter(p)
    return tuple(filter(unary(p), xs))


@builtin("List.filterMap", "{α : Type u} {β : Type v} (f : α → Option β) : List α → List β")
def list_filter_map(f: Fn, xs: tuple) -> tuple:
    f = unary(f)
    out = []
    for x in xs:
        r = f(x)
        if isinstance(r, Some):
            out.append(r.value)
    return tuple(out)


@builtin("List.flatMap", "{α : Type _} {β : Type _} : (α → List β) → List α → List β", verified=False)
def list_flat_map(f: Fn, xs: tuple) -> tuple:
    out: list[Any] = []
    for x in xs:
        out.extend(f(x))
        check_size(len(out))
    return tuple(out)


@builtin("List.flatten", "{α : Type _} : List (List α) → List α", verified=False)
def list_flatten(ls: tuple) -> tuple:
    out: list[Any] = []
    for part in ls:
        out.extend(part)
        check_size(len(out))
    return tuple(out)


@builtin("List.reverse", "{α : Type u} (as : List α) : List α")
def list_reverse(xs: tuple) -> tuple:
    return tuple(xs[::-1])


@builtin("List.zip", "{α : Type u} {β : Type v} : List α → List β → List (α × β)")
def list_zip(xs: tuple, ys: tuple) -> tuple:
    return tuple(pair(x, y) for x, y in zip(xs, ys))


@builtin("List.zipWith", "{α : Type u} {β : Type v} {γ : Type w} (f : α → β → γ) : (xs : List α) → (ys : List β) → List γ")
def list_zip_with(f: Fn, xs: tuple, ys: tuple) -> tuple:
    return tuple(f(x, y) for x, y in zip(xs, ys))


@builtin("List.unzip", "{α : Type u} {β : Type v} : (l : List (α × β)) → List α × List β")
def list_unzip(xs: tuple) -> Pair:
    return pair(tuple(p.fst for p in xs), tuple(p.snd for p in xs))


@builtin("List.zipIdx", "{α : Type u} : (l : List α) → (n : Nat := 0) → List (α × Nat)")
def list_zip_idx(xs: tuple, n: Any = 0) -> tuple:
    """``[a, b].zipIdx = [(a, 0), (b, 1)]``; ``zipIdx l n`` starts counting at ``n``."""
    start = int(n)
    return tuple(pair(x, Nat(start + i)) for i, x in enumerate(xs))


@builtin("List.intersperse", "{α : Type u} (sep : α) : (l : List α) → List α")
def list_intersperse(sep: Any, xs: tuple) -> tuple:
    out: list[Any] = []
    for i, x in enumerate(xs):
        if i:
            out.append(sep)
        out.append(x)
    return tuple(out)


@builtin("List.intercalate", "{α : Type u} (sep : List α) (xs : List (List α)) : List α")
def list_intercalate(sep: tuple, xs: tuple) -> tuple:
    out: list[Any] = []
    for i, part in enumerate(xs):
        if i:
            out.extend(sep)
        out.extend(part)
        check_size(len(out))
    return tuple(out)


@builtin("List.sum", "{α : Type u_1} [Add α] [Zero α] : List α → α", typed=True)
def list_sum(xs: tuple, *, result_type: Any = None) -> Any:
    """``foldr (· + ·) 0``: ``[a, b, c].sum = a + (b + (c + 0))``."""
    acc = _zero_like(xs, result_type)
    exact = _exact_integer_sum(xs, acc)
    if exact is not None:
        return exact
    for x in reversed(xs):
        acc = arith("+", x, acc)
    return acc


def _exact_integer_sum(xs: tuple, zero: Any) -> Any:
    """The sum of a list of ``Nat`` (or of ``Int``) at C speed, when it equals the fold: every
    element of the zero's exact type, and no partial sum can pass ``MAX_BITS`` (then the fold
    would stop there; ``None`` leaves that case to it)."""
    kind = type(zero)
    if not xs or (kind is not Nat and kind is not int) or set(map(type, xs)) != {kind}:
        return None
    if kind is Nat:
        total = sum(xs)  # every partial sum of naturals is at most the total
        return nat_unchecked(total) if total.bit_length() <= MAX_BITS else None
    if max(map(int.bit_length, xs)) + len(xs).bit_length() >= MAX_BITS:
        return None  # some partial sum might pass the limit
    total = sum(xs)
    return total


def _zero_like(xs: tuple, result_type: Any) -> Any:
    if result_type is not None:
        from veriscale.lean.types import NamedType

        if isinstance(result_type, NamedType) and not result_type.args:
            zero = _ZEROS.get(result_type.name)
            if zero is not None:
                return zero()
        raise Unsupported("List.sum", f"no Zero instance handled for {result_type}")
    if xs:
        kind = type_name_of(xs[0])
        zero = _ZEROS.get(kind)
        if zero is not None:
            return zero()
        raise Unsupported("List.sum", f"no Zero instance handled for {kind}")
    raise Unsupported("List.sum", "sum of an empty list of unknown type")


def _fixed_zero(name: str) -> Callable[[], Any]:
    from veriscale.backends.embedded.builtins._core import FIXED_WIDTH_BY_NAME

    return lambda: FIXED_WIDTH_BY_NAME[name](0)


_ZEROS: dict[str, Callable[[], Any]] = {
    "Nat": lambda: Nat(0),
    "Int": lambda: 0,
    "Float": lambda: 0.0,
    **{name: _fixed_zero(name) for name in ("UInt8", "UInt16", "UInt32", "UInt64")},
}


@builtin("List.max?", "{α : Type u} [Max α] : List α → Option α")
def list_max_opt(xs: tuple) -> Any:
    if not xs:
        return NONE
    acc = xs[0]
    for x in xs[1:]:
        acc = lean_max(acc, x)
    return Some(acc)


@builtin("List.min?", "{α : Type u} [Min α] : List α → Option α")
def list_min_opt(xs: tuple) -> Any:
    if not xs:
        return NONE
    acc = xs[0]
    for x in xs[1:]:
        acc = lean_min(acc, x)
    return Some(acc)


# ---------------------------------------------------------------------------------------------
# Sublists


@builtin("List.take", "{α : Type u} : (n : Nat) → (xs : List α) → List α")
def list_take(n: Any, xs: tuple) -> tuple:
    return tuple(xs[: int(n)])


@builtin("List.drop", "{α : Type u} : (n : Nat) → (xs : List α) → List α")
def list_drop(n: Any, xs: tuple) -> tuple:
    return tuple(xs[int(n) :])


@builtin("List.takeWhile", "{α : Type u} (p : α → Bool) : (xs : List α) → List α")
def list_take_while(p: Fn, xs: tuple) -> tuple:
    p = unary(p)
    out = []
    for x in xs:
        if not p(x):
            break
        out.append(x)
    return tuple(out)


@builtin("List.dropWhile", "{α : Type u} (p : α → Bool) : List α → List α")
def list_drop_while(p: Fn, xs: tuple) -> tuple:
    p = unary(p)
    for i, x in enumerate(xs):
        if not p(x):
            return tuple(xs[i:])
    return ()


@builtin("List.splitAt", "{α : Type u} (n : Nat) (l : List α) : List α × List α")
def list_split_at(n: Any, xs: tuple) -> Pair:
    n = int(n)
    return pair(tuple(xs[:n]), tuple(xs[n:]))


@builtin("List.extract", "{α : Type u} (l : List α) (start : Nat := 0) (stop : Nat := l.length) : List α")
def list_extract(xs: tuple, start: Any = 0, stop: Any = None) -> tuple:
    """``(l.drop start).take (stop - start)`` with Nat subtraction; ``stop`` defaults to the length."""
    start_i = int(start)
    stop_i = len(xs) if stop is None else int(stop)
    return tuple(xs[start_i:][: max(stop_i - start_i, 0)])


@builtin("List.dropLast", "{α : Type u_1} : List α → List α")
def list_drop_last(xs: tuple) -> tuple:
    return tuple(xs[:-1])


@builtin("List.rotateLeft", "{α : Type u} (xs : List α) (i : Nat := 1) : List α")
def list_rotate_left(xs: tuple, n: Any = 1) -> tuple:
    length = len(xs)
    if length <= 1:
        return tuple(xs)
    i = int(n) % length
    return tuple(xs[i:]) + tuple(xs[:i])


@builtin("List.rotateRight", "{α : Type u} (xs : List α) (i : Nat := 1) : List α")
def list_rotate_right(xs: tuple, n: Any = 1) -> tuple:
    length = len(xs)
    if length <= 1:
        return tuple(xs)
    i = length - int(n) % length
    return tuple(xs[i:]) + tuple(xs[:i])


@builtin("List.partition", "{α : Type u} (p : α → Bool) (as : List α) : List α × List α")
def list_partition(p: Fn, xs: tuple) -> Pair:
    yes: list[Any] = []
    no: list[Any] = []
    for x in xs:
        (yes if p(x) else no).append(x)
    return pair(tuple(yes), tuple(no))


@builtin("List.span", "{α : Type u} (p : α → Bool) (as : List α) : List α × List α")
def list_span(p: Fn, xs: tuple) -> Pair:
    for i, x in enumerate(xs):
        if not p(x):
            return pair(tuple(xs[:i]), tuple(xs[i:]))
    return pair(tuple(xs), ())


@builtin("List.isPrefixOf", "{α : Type u} [BEq α] : List α → List α → Bool")
def list_is_prefix_of(l1: tuple, l2: tuple) -> bool:
    return len(l1) <= len(l2) and all(lean_beq(a, b) for a, b in zip(l1, l2))


@builtin("List.isSuffixOf", "{α : Type u} [BEq α] (l₁ l₂ : List α) : Bool")
def list_is_suffix_of(l1: tuple, l2: tuple) -> bool:
    return list_is_prefix_of(tuple(reversed(l1)), tuple(reversed(l2)))


@builtin("List.sublists", "{α : Type u_1} (l : List α) : List (List α)")
def list_sublists(xs: tuple) -> tuple:
    """Mathlib: ``foldr (fun a acc => acc.flatMap fun x => [x, a :: x]) [[]]``."""
    check_size(1 << min(len(xs), 63), "List.sublists")
    acc: list[tuple] = [()]
    for a in reversed(xs):
        nxt: list[tuple] = []
        for x in acc:
            nxt.append(x)
            nxt.append((a, *x))
        acc = nxt
    return tuple(acc)


# ---------------------------------------------------------------------------------------------
# Membership and search (BEq-based)


@builtin("List.elem", "{α : Type u} [BEq α] (a : α) : (l : List α) → Bool")
def list_elem(a: Any, xs: tuple) -> bool:
    if type(xs) is SublistFamily:
        return xs.contains(a)
    return beq_member(a, xs)


@builtin("List.contains", "{α : Type u} [BEq α] (as : List α) (a : α) : Bool")
def list_contains(xs: tuple, a: Any) -> bool:
    return list_elem(a, xs)


@builtin("List.count", "{α : Type u} [BEq α] (a : α) : List α → Nat")
def list_count(a: Any, xs: tuple) -> Nat:
    """``count a = countP (· == a)``."""
    if eq_is_beq(a):
        return nat(xs.count(a))  # C speed; exact because `==` is Lean's `==` here
    return nat(sum(1 for x in xs if lean_beq(x, a)))


@builtin("List.countP", "{α : Type u} (p : α → Bool) (l : List α) : Nat")
def list_count_p(p: Fn, xs: tuple) -> Nat:
    p = unary(p)
    return nat(sum(1 for x in xs if p(x)))


@builtin("List.find?", "{α : Type u} (p : α → Bool) : List α → Option α")
def list_find_opt(p: Fn, xs: tuple) -> Any:
    p = unary(p)
    for x in xs:
        if p(x):
            return Some(x)
    return NONE


@builtin("List.findSome?", "{α : Type u} {β : Type v} (f : α → Option β) : List α → Option β")
def list_find_some_opt(f: Fn, xs: tuple) -> Any:
    f = unary(f)
    for x in xs:
        r = f(x)
        if isinstance(r, Some):
            return r
    return NONE


@builtin("List.findIdx", "{α : Type u} (p : α → Bool) (l : List α) : Nat")
def list_find_idx(p: Fn, xs: tuple) -> Nat:
    p = unary(p)
    for i, x in enumerate(xs):
        if p(x):
            return nat(i)
    return nat(len(xs))


@builtin("List.findIdx?", "{α : Type u} (p : α → Bool) (l : List α) : Option Nat")
def list_find_idx_opt(p: Fn, xs: tuple) -> Any:
    p = unary(p)
    for i, x in enumerate(xs):
        if p(x):
            return Some(nat(i))
    return NONE


@builtin("List.idxOf", "{α : Type u} [BEq α] (a : α) : List α → Nat")
def list_idx_of(a: Any, xs: tuple) -> Nat:
    """``idxOf a = findIdx (· == a)``: the length when absent."""
    return list_find_idx(lambda x: lean_beq(x, a), xs)


@builtin("List.idxOf?", "{α : Type u} [BEq α] (a : α) : List α → Option Nat")
def list_idx_of_opt(a: Any, xs: tuple) -> Any:
    return list_find_idx_opt(lambda x: lean_beq(x, a), xs)


@builtin("List.lookup", "{α : Type u} {β : Type v} [BEq α] : α → List (α × β) → Option β")
def list_lookup(a: Any, xs: tuple) -> Any:
    for p in xs:
        if lean_beq(a, p.fst):
            return Some(p.snd)
    return NONE


@builtin("List.any", "{α : Type u} : (l : List α) → (p : α → Bool) → Bool")
def list_any(xs: tuple, p: Fn) -> bool:
    if type(xs) is SublistFamily:
        return xs.any(p)
    return any(map(unary(p), xs))


@builtin("List.all", "{α : Type u} : List α → (α → Bool) → Bool")
def list_all(xs: tuple, p: Fn) -> bool:
    if type(xs) is SublistFamily:
        return xs.all(p)
    return all(map(unary(p), xs))


@builtin("List.and", "(bs : List Bool) : Bool")
def list_and(xs: tuple) -> bool:
    return all(xs)


@builtin("List.or", "(bs : List Bool) : Bool")
def list_or(xs: tuple) -> bool:
    return any(xs)


@builtin("List.beq", "{α : Type u} [BEq α] : List α → List α → Bool")
def list_beq(l1: tuple, l2: tuple) -> bool:
    return len(l1) == len(l2) and all(lean_beq(a, b) for a, b in zip(l1, l2))


# ---------------------------------------------------------------------------------------------
# Modification


@builtin("List.erase", "{α : Type u_1} [BEq α] : List α → α → List α")
def list_erase(xs: tuple, a: Any) -> tuple:
    """Removes the first element ``== a``."""
    for i, x in enumerate(xs):
        if lean_beq(x, a):
            return tuple(xs[:i]) + tuple(xs[i + 1 :])
    return tuple(xs)


@builtin("List.eraseIdx", "{α : Type u} : (l : List α) → (i : Nat) → List α")
def list_erase_idx(xs: tuple, i: Any) -> tuple:
    i = int(i)
    if 0 <= i < len(xs):
        return tuple(xs[:i]) + tuple(xs[i + 1 :])
    return tuple(xs)


@builtin("List.eraseDups", "{α : Type u_1} [BEq α] (as : List α) : List α")
def list_erase_dups(xs: tuple) -> tuple:
    """Keeps the first occurrence (``loop`` checks ``bs.elem a`` on the kept prefix)."""
    kept: list[Any] = []
    for a in xs:
        if not any(lean_beq(a, b) for b in kept):
            kept.append(a)
    return tuple(kept)


@builtin("List.eraseReps", "{α : Type u_1} [BEq α] (as : List α) : List α")
def list_erase_reps(xs: tuple) -> tuple:
    out: list[Any] = []
    for a in xs:
        if not out or not lean_beq(out[-1], a):
            out.append(a)
    return tuple(out)


@builtin("List.removeAll", "{α : Type u} [BEq α] (xs ys : List α) : List α")
def list_remove_all(xs: tuple, ys: tuple) -> tuple:
    return tuple(x for x in xs if not list_elem(x, ys))


@builtin("List.insert", "{α : Type u} [BEq α] (a : α) (l : List α) : List α")
def list_insert(a: Any, xs: tuple) -> tuple:
    """``if l.contains a then l else a :: l``."""
    return tuple(xs) if list_elem(a, xs) else (a, *xs)


@builtin("List.replace", "{α : Type u} [BEq α] : (l : List α) → (a : α) → (b : α) → List α")
def list_replace(xs: tuple, a: Any, b: Any) -> tuple:
    """Replaces the first element ``x`` with ``a == x`` by ``b``."""
    for i, x in enumerate(xs):
        if lean_beq(a, x):
            return (*xs[:i], b, *xs[i + 1 :])
    return tuple(xs)


@builtin("List.isPerm", "{α : Type u} [BEq α] : List α → List α → Bool")
def list_is_perm(l1: tuple, l2: tuple) -> bool:
    """``isPerm [] l₂ = l₂.isEmpty``; ``isPerm (a :: l₁) l₂ = l₂.contains a && l₁.isPerm (l₂.erase a)``."""
    rest = tuple(l2)
    for a in l1:
        if not list_contains(rest, a):
            return False
        rest = list_erase(rest, a)
    return len(rest) == 0


# ---------------------------------------------------------------------------------------------
# Sorting


def _merge(xs: list[Any], ys: list[Any], le: Fn) -> list[Any]:
    out: list[Any] = []
    i = j = 0
    while i < len(xs) and j < len(ys):
        if le(xs[i], ys[j]):
            out.append(xs[i])
            i += 1
        else:
            out.append(ys[j])
            j += 1
    out.extend(xs[i:])
    out.extend(ys[j:])
    return out


def _merge_sort(xs: list[Any], le: Fn) -> list[Any]:
    if len(xs) < 2:
        return list(xs)
    half = (len(xs) + 1) // 2
    return _merge(_merge_sort(xs[:half], le), _merge_sort(xs[half:], le), le)


@builtin("List.mergeSort", "{α : Type u_1} : ∀ (xs : List α) (le : α → α → Bool := by exact fun a b => a ≤ b), List α")
def list_merge_sort(xs: tuple, le: Fn | None = None) -> tuple:
    """``mergeSort xs (le := fun a b => a ≤ b)``: stable merge sort, exactly Lean's split and merge."""
    relation = binary(le) if le is not None else compare_le  # a `fun`'s direct function: same steps
    return tuple(_merge_sort(list(xs), relation))


@builtin("List.merge", "{α : Type u_1} (xs ys : List α) (le : α → α → Bool := by exact fun a b => a ≤ b) : List α")
def list_merge(xs: tuple, ys: tuple, le: Fn | None = None) -> tuple:
    relation = binary(le) if le is not None else compare_le
    return tuple(_merge(list(xs), list(ys), relation))


# ---------------------------------------------------------------------------------------------
# Conversions


@builtin("List.toArray", "{α : Type _} : List α → Array α", verified=False)
def list_to_array(xs: tuple) -> Arr:
    return Arr(xs)


@builtin("List.asString", ": List Char → String", verified=False)
def list_as_string(xs: tuple) -> str:
    return "".join(str.__str__(c) for c in xs)


@builtin("List.reduceOption", "{α : Type _} : List (Option α) → List α", verified=False)
def list_reduce_option(xs: tuple) -> tuple:
    return tuple(o.value for o in xs if isinstance(o, Some))


def _to_string(xs: tuple) -> str:
    return to_string(tuple(xs))


builtin("List.toString", "{α : Type _} : List α → String", verified=False)(_to_string)


# ---------------------------------------------------------------------------------------------
# Further core, Batteries and Mathlib functions


@builtin("List.head", "{α : Type u} : (as : List α) → as ≠ [] → α")
def list_head(xs: tuple, h: Any) -> Any:
    """``List.head xs (h : xs ≠ [])``: ``h`` is the proof token (proofs are not evaluated)."""
    if not xs:
        raise Unsupported("List.head", "applied to [] (its non-emptiness proof cannot hold)")
    return xs[0]


@builtin("List.getLast", "{α : Type u} : ∀ (as : List α), as ≠ [] → α")
def list_get_last(xs: tuple, h: Any) -> Any:
    """``List.getLast xs (h : xs ≠ [])``: ``h`` is the proof token (proofs are not evaluated)."""
    if not xs:
        raise Unsupported("List.getLast", "applied to [] (its non-emptiness proof cannot hold)")
    return xs[-1]


@builtin("List.mapIdx", "{α : Type _} {β : Type _} : (Nat → α → β) → List α → List β", verified=False)
def list_map_idx(f: Fn, xs: tuple) -> tuple:
    """``mapIdx (f : Nat → α → β)``: the index comes first."""
    return tuple(map(binary(f), nat_range(0, len(xs)), xs))


@builtin("List.modify", "{α : Type u} (l : List α) (i : Nat) (f : α → α) : List α")
def list_modify(xs: tuple, i: Any, f: Fn) -> tuple:
    """``l.modify i f``: applies ``f`` at index ``i``; unchanged when out of range."""
    i = int(i)
    if 0 <= i < len(xs):
        return (*xs[:i], f(xs[i]), *xs[i + 1 :])
    return tuple(xs)


@builtin("List.isSublist", "{α : Type u} [BEq α] : List α → List α → Bool")
def list_is_sublist(l1: tuple, l2: tuple) -> bool:
    """``isSublist`` (``==``-based): greedy match of ``l1`` as a subsequence of ``l2``."""
    i = 0
    for b in l2:
        if i < len(l1) and lean_beq(l1[i], b):
            i += 1
    return i == len(l1)


@builtin("List.splitBy", "{α : Type u} (R : α → α → Bool) : List α → List (List α)")
def list_split_by(r: Fn, xs: tuple) -> tuple:
    """``splitBy R l``: maximal runs whose adjacent elements are ``R``-related (``R prev next``)."""
    if not xs:
        return ()
    groups: list[list[Any]] = [[xs[0]]]
    for prev, cur in zip(xs, xs[1:]):
        if r(prev, cur):
            groups[-1].append(cur)
        else:
            groups.append([cur])
    return tuple(tuple(g) for g in groups)


@builtin("List.union", "{α : Type _} : List α → List α → List α", verified=False)
def list_union(l1: tuple, l2: tuple) -> tuple:
    """``l₁ ∪ l₂ = foldr .insert l₂ l₁``."""
    acc = tuple(l2)
    for a in reversed(l1):
        acc = list_insert(a, acc)
    return acc


@builtin("List.inter", "{α : Type _} : List α → List α → List α", verified=False)
def list_inter(l1: tuple, l2: tuple) -> tuple:
    """``l₁ ∩ l₂ = filter (elem · l₂) l₁``."""
    return tuple(x for x in l1 if list_elem(x, l2))


@builtin("List.diff", "{α : Type _} : List α → List α → List α", verified=False)
def list_diff(l1: tuple, l2: tuple) -> tuple:
    """Batteries: ``l.diff (a :: l₂) = if l.elem a then (l.erase a).diff l₂ else l.diff l₂``."""
    acc = tuple(l1)
    for a in l2:
        if list_elem(a, acc):
            acc = list_erase(acc, a)
    return acc


@builtin("List.insertionSort", "{α : Type _} : (α → α → Bool) → List α → List α", verified=False)
def list_insertion_sort(r: Fn, xs: tuple) -> tuple:
    """Mathlib: ``insertionSort r = foldr (orderedInsert r) []``, where ``orderedInsert r a``
    puts ``a`` before the first ``b`` with ``r a b``."""
    acc: list[Any] = []
    for a in reversed(xs):
        for k, b in enumerate(acc):
            if r(a, b):
                acc.insert(k, a)
                break
        else:
            acc.append(a)
    return tuple(acc)


@builtin("List.dedup", "{α : Type _} : List α → List α", verified=False)
def list_dedup(xs: tuple) -> tuple:
    """Mathlib ``dedup = pwFilter (· ≠ ·)``: keeps the *last* occurrence of each element."""
    from veriscale.backends.embedded.builtins.order import decidable_eq

    kept: list[Any] = []
    for a in reversed(xs):
        if not any(decidable_eq(a, b) for b in kept):
            kept.append(a)
    return tuple(reversed(kept))
