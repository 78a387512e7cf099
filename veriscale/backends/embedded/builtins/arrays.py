"""``Array`` builtins (Init/Prelude.lean, Init/Data/Array/Basic.lean).

A Lean array is a :class:`veriscale.lean.values.Arr`. Facts reproduced here:

* ``a[i]!`` / ``a.get! i`` out of range return ``default`` of the element type (registered as
  ``Array.getElem!``); ``a[i]?`` is ``Array.getElem?``.
* ``a.set! i v`` and ``a.setIfInBounds i v`` leave the array unchanged when ``i`` is out of range
  (``set!`` also prints a panic message at run time; the value is the same); ``a.modify i f`` too.
* ``Array.mkArray n v`` (deprecated name of ``Array.replicate``), ``Array.mkEmpty c`` /
  ``Array.emptyWithCapacity c`` / ``Array.empty`` are ``#[]`` whatever the capacity.
* ``a.mapIdx f`` passes the index as a ``Nat`` (``f : Nat → α → β``, since late 2024).
* ``foldl f init a (start := 0) (stop := a.size)`` visits ``start ≤ i < min stop a.size``;
  ``foldr f init a (start := a.size) (stop := 0)`` visits ``i = start-1`` down to ``stop``, and
  from ``a.size - 1`` when ``start > a.size``; ``any``/``all``/``filter`` take the same window.
* ``a.extract start stop`` is the elements with ``start ≤ i < min stop a.size``.
* ``a.back? = a[a.size - 1]?``; ``a.back`` takes a proof of ``0 < a.size`` (an auto-param, like
  ``swap``); ``a.pop`` drops the last element (``#[].pop = #[]``).
* ``insertionSort a lt`` moves each element left while ``lt a[j] a[j-1]``.
* ``qsort as (lt := (· < ·)) (lo := 0) (hi := as.size - 1)`` (``Init/Data/Array/QSort/Basic.lean``)
  is Lean's unstable in-place quicksort of ``as[lo..=hi]``, reproduced step by step (see
  :func:`array_qsort`): elements equal under ``lt`` end up in Lean's order, not the input order.
* ``swap xs i j (hi) (hj)`` takes bounds proofs (auto-params, never passed here), so its indices are
  in range in any program Lean accepts; ``swap!`` (deprecated since 2024-11) is gone by v4.24, only
  ``swapIfInBounds`` remains.
* ``eraseIdx xs i (h)`` needs a bounds proof too; ``eraseIdx! xs i`` out of range is
  ``panic! "invalid index"``, whose value is ``default = #[]`` (not ``xs``);
  ``eraseIdxIfInBounds`` leaves ``xs`` unchanged.
* ``ofFn {n} (f : Fin n → α) = #[f 0, ..., f (n-1)]``: ``n`` is implicit, given as ``(n := k)`` or
  read off ``f``'s type; a ``Fin n`` is a ``Nat`` at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import (
    SMALL_NAT_LIMIT,
    SMALL_NATS,
    check_size,
    default_of_type,
    nat,
    nat_range,
)
from veriscale.backends.embedded.builtins.order import beq_member, compare_lt, eq_is_beq, lean_beq
from veriscale.backends.embedded.registry import MAX_COLLECTION, alias, builtin
from veriscale.backends.embedded.runtime_support import binary, unary
from veriscale.lean.values import NONE, Arr, BudgetExceeded, Nat, Pair, Some, Unsupported, pair

Fn = Callable[..., Any]


def _snapshot(a: Arr) -> tuple[Any, ...]:
    """The elements of ``a``, for a loop that evaluates Lean code between reads: that code may
    update ``a`` itself, which hands its list over to the new version (see :class:`Arr`)."""
    return tuple(a.view())


def _window(a: Arr, start: Any, stop: Any) -> range:
    stop_i = len(a) if stop is None else min(int(stop), len(a))
    return range(int(start), stop_i)


# ---------------------------------------------------------------------------------------------
# Construction


@builtin("Array.mkArray", "{α : Type _} : Nat → α → Array α", verified=False)
def array_mk_array(n: Any, v: Any) -> Arr:
    check_size(int(n), "Array.mkArray")
    return Arr((v,) * int(n))


alias("Array.replicate", "Array.mkArray", "{α : Type _} : Nat → α → Array α", verified=False)


@builtin("Array.mkEmpty", "{α : Type u} (c : Nat) : Array α")
def array_mk_empty(capacity: Any) -> Arr:
    return Arr(())


alias("Array.emptyWithCapacity", "Array.mkEmpty", "{α : Type _} : Nat → Array α", verified=False)


@builtin("Array.empty", "{α : Type u} : Array α")
def array_empty() -> Arr:
    return Arr(())


@builtin("Array.range", "(n : Nat) : Array Nat")
def array_range(n: Any) -> Arr:
    check_size(int(n), "Array.range")
    return Arr(nat_range(0, int(n)))


@builtin("Array.mk", "{α : Type _} : List α → Array α", verified=False)
def array_mk(xs: tuple) -> Arr:
    return Arr(xs)


@builtin("Array.singleton", "{α : Type _} : α → Array α", verified=False)
def array_singleton(v: Any) -> Arr:
    return Arr((v,))


# ---------------------------------------------------------------------------------------------
# Access


@builtin("Array.size", "{α : Type u} (a : Array α) : Nat")
def array_size(a: Arr) -> Nat:
    n = len(a)
    return SMALL_NATS[n] if n < SMALL_NAT_LIMIT else _new_int(Nat, n)  # (a length is never negative)


_new_int = int.__new__


@builtin("Array.isEmpty", "{α : Type u} (xs : Array α) : Bool")
def array_is_empty(a: Arr) -> bool:
    return len(a) == 0


@builtin("Array.toList", "{α : Type u} (self : Array α) : List α")
def array_to_list(a: Arr) -> tuple:
    return tuple(a)


@builtin("Array.getElem!", "{α : Type _} : Array α → Nat → α", typed=True, verified=False)
def array_get_elem_bang(a: Arr, i: Any, *, result_type: Any = None) -> Any:
    i = int(i)
    if 0 <= i < len(a):
        return a.view()[i]
    return default_of_type(result_type, construct="a[i]!")


@builtin("Array.getElem?", "{α : Type _} : Array α → Nat → Option α", verified=False)
def array_get_elem_opt(a: Arr, i: Any) -> Any:
    i = int(i)
    return Some(a.view()[i]) if 0 <= i < len(a) else NONE


alias("Array.get!", "Array.getElem!", "{α : Type _} : Array α → Nat → α", verified=False)
alias("Array.get?", "Array.getElem?", "{α : Type _} : Array α → Nat → Option α", verified=False)


@builtin("Array.getD", "{α : Type u_1} (a : Array α) (i : Nat) (v₀ : α) : α")
def array_get_d(a: Arr, i: Any, fallback: Any) -> Any:
    i = int(i)
    return a.view()[i] if 0 <= i < len(a) else fallback


@builtin("Array.back?", "{α : Type _} : Array α → Option α", verified=False)
def array_back_opt(a: Arr) -> Any:
    return Some(a[-1]) if a else NONE


@builtin("Array.back!", "{α : Type _} : Array α → α", typed=True, verified=False)
def array_back_bang(a: Arr, *, result_type: Any = None) -> Any:
    if a:
        return a[-1]
    return default_of_type(result_type, construct="Array.back!")


@builtin("Array.back", "{α : Type u} (xs : Array α) (h : 0 < xs.size := by get_elem_tactic) : α")
def array_back(xs: Arr, h: Any = None) -> Any:
    """``back (xs) (h : 0 < xs.size := by get_elem_tactic) := xs[xs.size - 1]`` (since v4.18,
    lean4#7059): a program Lean accepts proves the array non-empty, so there is no default."""
    if not xs:
        raise Unsupported("Array.back", "applied to #[] although a proof of 0 < xs.size is required")
    return xs[-1]


# ---------------------------------------------------------------------------------------------
# Updates


@builtin("Array.push", "{α : Type u} (a : Array α) (v : α) : Array α")
def array_push(a: Arr, v: Any) -> Arr:
    if len(a) >= MAX_COLLECTION:  # only then can one more element pass the limit
        check_size(len(a) + 1)
    return a.push(v)


@builtin("Array.pop", "{α : Type _} : Array α → Array α", verified=False)
def array_pop(a: Arr) -> Arr:
    return a.pop()


@builtin("Array.set!", "{α : Type u_1} (xs : Array α) (i : Nat) (v : α) : Array α")
def array_set_bang(a: Arr, i: Any, v: Any) -> Arr:
    i = int(i)
    if 0 <= i < len(a):
        return a.set(i, v)
    return a


alias("Array.setIfInBounds", "Array.set!", "{α : Type _} : Array α → Nat → α → Array α", verified=False)


@builtin("Array.modify", "{α : Type u} (xs : Array α) (i : Nat) (f : α → α) : Array α")
def array_modify(a: Arr, i: Any, f: Fn) -> Arr:
    i = int(i)
    if 0 <= i < len(a):
        v = f(a[i])  # Lean code: it may update `a` itself, which keeps its value
        return a.set(i, v)
    return a


@builtin("Array.swapIfInBounds", "{α : Type _} : Array α → Nat → Nat → Array α", verified=False)
def array_swap_if_in_bounds(a: Arr, i: Any, j: Any) -> Arr:
    i, j = int(i), int(j)
    if 0 <= i < len(a) and 0 <= j < len(a):
        items = a.view()
        x, y = items[i], items[j]
        return a.set(i, y).set(j, x)
    return a


@builtin("Array.eraseIdxIfInBounds", "{α : Type _} : Array α → Nat → Array α", verified=False)
def array_erase_idx_if_in_bounds(a: Arr, i: Any) -> Arr:
    i = int(i)
    if 0 <= i < len(a):
        return Arr((*a[:i], *a[i + 1 :]))
    return a


@builtin("Array.append", "{α : Type u} (as bs : Array α) : Array α")
def array_append(a: Arr, b: Arr) -> Arr:
    check_size(len(a) + len(b))
    return a.extend(b)


@builtin("Array.appendList", "{α : Type _} : Array α → List α → Array α", verified=False)
def array_append_list(a: Arr, xs: tuple) -> Arr:
    check_size(len(a) + len(xs))
    return a.extend(xs)


@builtin("Array.reverse", "{α : Type u} (as : Array α) : Array α")
def array_reverse(a: Arr) -> Arr:
    return Arr(reversed(a))


@builtin("Array.extract", "{α : Type u_1} (as : Array α) (start : Nat := 0) (stop : Nat := as.size) : Array α")
def array_extract(a: Arr, start: Any = 0, stop: Any = None) -> Arr:
    window = _window(a, start, stop)
    return Arr.of_list(a.view()[window.start : window.stop] if window else [])


# ---------------------------------------------------------------------------------------------
# Traversals


@builtin("Array.foldl", "{α : Type u} {β : Type v} (f : β → α → β) (init : β) (as : Array α) (start : Nat := 0) (stop : Nat := as.size) : β")
def array_foldl(f: Fn, init: Any, a: Arr, start: Any = 0, stop: Any = None) -> Any:
    f = binary(f)
    acc = init
    items = _snapshot(a)  # `f` is Lean code, which may update `a` itself
    if start == 0 and stop is None:
        for x in items:  # the whole array
            acc = f(acc, x)
        return acc
    for i in _window(a, start, stop):
        acc = f(acc, items[i])
    return acc


@builtin("Array.foldr", "{α : Type u} {β : Type v} (f : α → β → β) (init : β) (as : Array α) (start : Nat := as.size) (stop : Nat := 0) : β")
def array_foldr(f: Fn, init: Any, a: Arr, start: Any = None, stop: Any = 0) -> Any:
    f = binary(f)
    size = len(a)
    start_i = size if start is None else int(start)
    stop_i = int(stop)
    if start_i <= size:
        top = start_i if stop_i < start_i else None
    else:
        top = size if stop_i < size else None
    acc = init
    if top is None:
        return acc
    items = _snapshot(a)
    for i in range(top - 1, stop_i - 1, -1):
        acc = f(items[i], acc)
    return acc


@builtin("Array.map", "{α : Type u} {β : Type v} (f : α → β) (as : Array α) : Array β")
def array_map(f: Fn, a: Arr) -> Arr:
    return Arr(map(unary(f), a))


@builtin("Array.mapIdx", "{α : Type _} {β : Type _} : (Nat → α → β) → Array α → Array β", verified=False)
def array_map_idx(f: Fn, a: Arr) -> Arr:
    items = tuple(a)
    return Arr(map(binary(f), nat_range(0, len(items)), items))


@builtin("Array.zipIdx", "{α : Type u} (xs : Array α) (start : Nat := 0) : Array (α × Nat)", verified=False)
def array_zip_idx(a: Arr, start: Any = 0) -> Arr:
    return Arr(pair(x, Nat(int(start) + i)) for i, x in enumerate(a))


@builtin("Array.zip", "{α : Type u} {β : Type u_1} (as : Array α) (bs : Array β) : Array (α × β)")
def array_zip(a: Arr, b: Arr) -> Arr:
    return Arr(pair(x, y) for x, y in zip(a, b))


@builtin("Array.filter", "{α : Type u} (p : α → Bool) (as : Array α) (start : Nat := 0) (stop : Nat := as.size) : Array α")
def array_filter(p: Fn, a: Arr, start: Any = 0, stop: Any = None) -> Arr:
    p = unary(p)
    items = _snapshot(a)
    return Arr.of_list([items[i] for i in _window(a, start, stop) if p(items[i])])


@builtin("Array.filterMap", "{α : Type u} {β : Type u_1} (f : α → Option β) (as : Array α) (start : Nat := 0) (stop : Nat := as.size) : Array β")
def array_filter_map(f: Fn, a: Arr, start: Any = 0, stop: Any = None) -> Arr:
    f = unary(f)
    out = []
    items = _snapshot(a)
    for i in _window(a, start, stop):
        r = f(items[i])
        if isinstance(r, Some):
            out.append(r.value)
    return Arr(out)


@builtin("Array.any", "{α : Type u} (as : Array α) (p : α → Bool) (start : Nat := 0) (stop : Nat := as.size) : Bool")
def array_any(a: Arr, p: Fn, start: Any = 0, stop: Any = None) -> bool:
    p = unary(p)
    items = _snapshot(a)
    if start == 0 and stop is None:
        return any(map(p, items))  # the whole array, at C speed between the calls
    return any(p(items[i]) for i in _window(a, start, stop))


@builtin("Array.all", "{α : Type u} (as : Array α) (p : α → Bool) (start : Nat := 0) (stop : Nat := as.size) : Bool")
def array_all(a: Arr, p: Fn, start: Any = 0, stop: Any = None) -> bool:
    p = unary(p)
    items = _snapshot(a)
    if start == 0 and stop is None:
        return all(map(p, items))  # the whole array, at C speed between the calls
    return all(p(items[i]) for i in _window(a, start, stop))


@builtin("Array.contains", "{α : Type u} [BEq α] (as : Array α) (a : α) : Bool")
def array_contains(a: Arr, v: Any) -> bool:
    """``as.any (· == a)``."""
    return beq_member(v, a)


@builtin("Array.count", "{α : Type _} : α → Array α → Nat", verified=False)
def array_count(v: Any, a: Arr) -> Nat:
    if eq_is_beq(v):
        return nat(a.count(v))  # C speed; exact because `==` is Lean's `==` here
    return nat(sum(1 for x in a if lean_beq(x, v)))


@builtin("Array.countP", "{α : Type _} : (α → Bool) → Array α → Nat", verified=False)
def array_count_p(p: Fn, a: Arr) -> Nat:
    return nat(sum(1 for x in a if p(x)))


@builtin("Array.find?", "{α : Type u} (p : α → Bool) (as : Array α) : Option α")
def array_find_opt(p: Fn, a: Arr) -> Any:
    for x in a:
        if p(x):
            return Some(x)
    return NONE


@builtin("Array.findIdx?", "{α : Type _} : (α → Bool) → Array α → Option Nat", verified=False)
def array_find_idx_opt(p: Fn, a: Arr) -> Any:
    for i, x in enumerate(a):
        if p(x):
            return Some(Nat(i))
    return NONE


@builtin("Array.insertionSort", "{α : Type u_1} (xs : Array α) (lt : α → α → Bool := by exact (· < ·)) : Array α")
def array_insertion_sort(a: Arr, lt: Fn | None = None) -> Arr:
    relation = lt if lt is not None else compare_lt
    items = list(a)
    for i in range(1, len(items)):
        j = i
        while j > 0 and relation(items[j], items[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            j -= 1
    return Arr(items)


@builtin("Array.take", "{α : Type u} (xs : Array α) (i : Nat) : Array α")
def array_take(a: Arr, n: Any) -> Arr:
    """``a.take n = a.extract 0 n``."""
    return Arr(a[: int(n)])


@builtin("Array.drop", "{α : Type u} (xs : Array α) (i : Nat) : Array α")
def array_drop(a: Arr, n: Any) -> Arr:
    """``a.drop n = a.extract n a.size``."""
    return Arr(a[int(n) :])


@builtin("Array.flatten", "{α : Type _} : Array (Array α) → Array α", verified=False)
def array_flatten(a: Arr) -> Arr:
    out: list[Any] = []
    for part in a:
        out.extend(part)
        check_size(len(out))
    return Arr(out)


@builtin("Array.zipWith", "{α : Type u} {β : Type u_1} {γ : Type u_2} (f : α → β → γ) (as : Array α) (bs : Array β) : Array γ")
def array_zip_with(f: Fn, a: Arr, b: Arr) -> Arr:
    return Arr(f(x, y) for x, y in zip(a, b))


@builtin("Array.isPrefixOf", "{α : Type _} : Array α → Array α → Bool", verified=False)
def array_is_prefix_of(a: Arr, b: Arr) -> bool:
    return len(a) <= len(b) and all(lean_beq(x, y) for x, y in zip(a, b))


@builtin("Array.toListRev", "{α : Type _} : Array α → List α", verified=False)
def array_to_list_rev(a: Arr) -> tuple:
    return tuple(reversed(a))


@builtin("Array.partition", "{α : Type u} (p : α → Bool) (as : Array α) : Array α × Array α")
def array_partition(p: Fn, a: Arr) -> Pair:
    yes = [x for x in a if p(x)]
    no = [x for x in a if not p(x)]
    return pair(Arr(yes), Arr(no))


# ---------------------------------------------------------------------------------------------
# Swaps, erasure, construction from a function


@builtin("Array.swap", "{α : Type u} (xs : Array α) (i j : Nat) (hi : i < xs.size := by get_elem_tactic) (hj : j < xs.size := by get_elem_tactic) : Array α")
def array_swap(xs: Arr, i: Any, j: Any, hi: Any = None, hj: Any = None) -> Arr:
    """``swap (xs) (i j : Nat) (hi : i < xs.size := by get_elem_tactic) (hj : j < xs.size := ...)``."""
    i, j = int(i), int(j)
    if not (0 <= i < len(xs) and 0 <= j < len(xs)):
        # Lean only accepts the call with proofs of both bounds, so this cannot be Lean's run
        raise Unsupported("Array.swap", "index out of range although bounds proofs are required")
    items = xs.view()
    x, y = items[i], items[j]
    return xs.set(i, y).set(j, x)


@builtin("Array.eraseIdx", "{α : Type u} (xs : Array α) (i : Nat) (h : i < xs.size := by get_elem_tactic) : Array α", verified=False)
def array_erase_idx(xs: Arr, i: Any, h: Any = None) -> Arr:
    """``eraseIdx (xs) (i : Nat) (h : i < xs.size := by get_elem_tactic)``."""
    i = int(i)
    if not 0 <= i < len(xs):
        raise Unsupported("Array.eraseIdx", "index out of range although a bounds proof is required")
    return Arr((*xs[:i], *xs[i + 1 :]))


@builtin("Array.eraseIdx!", "{α : Type _} : Array α → Nat → Array α", verified=False)
def array_erase_idx_bang(xs: Arr, i: Any) -> Arr:
    """``if h : i < xs.size then xs.eraseIdx i h else panic! "invalid index"``; the panic's value is
    ``default : Array α``, i.e. ``#[]``."""
    i = int(i)
    if 0 <= i < len(xs):
        return Arr((*xs[:i], *xs[i + 1 :]))
    return Arr(())


@builtin("Array.ofFn", "{α : Type u} {n : Nat} (f : Fin n → α) : Array α", verified=False)
def array_of_fn(f: Fn, *, n: Any = None) -> Arr:
    """``ofFn {n} (f : Fin n → α)``: ``go 0 #[]`` pushes ``f ⟨i, _⟩`` for ``i = 0, ..., n-1``."""
    if n is None:
        raise Unsupported("Array.ofFn", "the implicit size n is not known")
    check_size(int(n), "Array.ofFn")
    return Arr(f(Nat(i)) for i in range(int(n)))


# ---------------------------------------------------------------------------------------------
# Quicksort


MAX_SORT_COMPARISONS = 20_000_000
"""Comparisons one ``qsort`` may make (a default ``lt`` is not charged to the step budget)."""


def _qpartition(items: list[Any], lt: Fn, lo: int, hi: int) -> int:
    """``Array.qpartition as lt lo hi`` on ``items`` in place; returns the pivot's final index.

    Median of three moves the pivot to ``hi``, then a Lomuto scan: ``i`` starts at ``lo``, every
    ``as[k]`` (``lo ≤ k < hi``) with ``lt as[k] pivot`` is swapped to ``i`` and ``i`` advances;
    finally ``as[i]`` and ``as[hi]`` are swapped and ``i`` is returned."""
    mid = (lo + hi) // 2
    if lt(items[mid], items[lo]):
        items[lo], items[mid] = items[mid], items[lo]
    if lt(items[hi], items[lo]):
        items[lo], items[hi] = items[hi], items[lo]
    if lt(items[mid], items[hi]):
        items[mid], items[hi] = items[hi], items[mid]
    pivot = items[hi]
    i = lo
    for k in range(lo, hi):
        if lt(items[k], pivot):
            items[i], items[k] = items[k], items[i]
            i += 1
    items[i], items[hi] = items[hi], items[i]
    return i


@builtin("Array.qsort", "{α : Type u_1} (as : Array α) (lt : α → α → Bool := by exact (· < ·)) (lo : Nat := 0) (hi : Nat := as.size - 1) : Array α")
def array_qsort(xs: Arr, lt: Fn | None = None, lo: Any = 0, hi: Any = None) -> Arr:
    """``qsort as (lt := (· < ·)) (lo := 0) (hi := as.size - 1)`` as Lean v4.24 defines it.

    ``#[] ↦ #[]``; otherwise ``lo := min lo (size-1)``, ``hi := max lo (min hi (size-1))`` and
    ``sort lo hi``: if ``lo < hi`` then ``mid := qpartition lo hi`` and, unless ``mid ≥ hi``,
    ``sort (sort lo mid) (mid+1) hi`` (the left part includes the pivot position). The two
    recursive sorts touch disjoint index ranges, so an explicit stack that finishes the left range
    before the right one performs exactly Lean's sequence of comparisons and swaps, without
    Python recursion."""
    relation = lt if lt is not None else compare_lt
    size = len(xs)
    if size == 0:
        return xs
    lo_i = min(int(lo), size - 1)
    hi_i = size - 1 if hi is None else min(int(hi), size - 1)
    hi_i = max(lo_i, hi_i)
    items = list(xs)
    stack = [(lo_i, hi_i)]
    work = 0
    while stack:
        a, b = stack.pop()
        if a < b:
            work += b - a + 3  # the comparisons `qpartition` makes
            if work > MAX_SORT_COMPARISONS:
                # Lean's qsort is quadratic on runs of equal elements; refuse a runaway
                raise BudgetExceeded(f"Array.qsort needs more than {MAX_SORT_COMPARISONS} comparisons")
            mid = _qpartition(items, relation, a, b)
            if mid < b:
                stack.append((mid + 1, b))  # sorted second
                stack.append((a, mid))  # sorted first
    return Arr(items)
