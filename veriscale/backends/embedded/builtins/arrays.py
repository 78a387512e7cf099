"""``Array`` builtins (Init/Prelude.lean, Init/Data/Array/Basic.lean).

A Lean array is a :class:`veriscale.runtime.Arr`. Facts reproduced here:

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
* ``a.back? = a[a.size - 1]?``; ``a.pop`` drops the last element (``#[].pop = #[]``).
* ``insertionSort a lt`` moves each element left while ``lt a[j] a[j-1]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import check_size, default_of_type, nat, nat_range
from veriscale.backends.embedded.builtins.order import beq_member, compare_lt, eq_is_beq, lean_beq
from veriscale.backends.embedded.registry import alias, builtin
from veriscale.runtime import NONE, Arr, Nat, Pair, Some

Fn = Callable[..., Any]


def _window(a: Arr, start: Any, stop: Any) -> range:
    stop_i = len(a) if stop is None else min(int(stop), len(a))
    return range(int(start), stop_i)


# ---------------------------------------------------------------------------------------------
# Construction


@builtin("Array.mkArray", 2)
def array_mk_array(n: Any, v: Any) -> Arr:
    check_size(int(n), "Array.mkArray")
    return Arr((v,) * int(n))


alias("Array.replicate", "Array.mkArray")


@builtin("Array.mkEmpty", 1)
def array_mk_empty(capacity: Any) -> Arr:
    return Arr(())


alias("Array.emptyWithCapacity", "Array.mkEmpty")


@builtin("Array.empty", 0)
def array_empty() -> Arr:
    return Arr(())


@builtin("Array.range", 1)
def array_range(n: Any) -> Arr:
    check_size(int(n), "Array.range")
    return Arr(nat_range(0, int(n)))


@builtin("Array.mk", 1)
def array_mk(xs: tuple) -> Arr:
    return Arr(xs)


@builtin("Array.singleton", 1)
def array_singleton(v: Any) -> Arr:
    return Arr((v,))


# ---------------------------------------------------------------------------------------------
# Access


@builtin("Array.size", 1)
def array_size(a: Arr) -> Nat:
    return nat(len(a))


@builtin("Array.isEmpty", 1)
def array_is_empty(a: Arr) -> bool:
    return len(a) == 0


@builtin("Array.toList", 1)
def array_to_list(a: Arr) -> tuple:
    return tuple(a)


@builtin("Array.getElem!", 2, typed=True)
def array_get_elem_bang(a: Arr, i: Any, *, result_type: Any = None) -> Any:
    i = int(i)
    if 0 <= i < len(a):
        return a[i]
    return default_of_type(result_type, construct="a[i]!")


@builtin("Array.getElem?", 2)
def array_get_elem_opt(a: Arr, i: Any) -> Any:
    i = int(i)
    return Some(a[i]) if 0 <= i < len(a) else NONE


alias("Array.get!", "Array.getElem!")
alias("Array.get?", "Array.getElem?")


@builtin("Array.getD", 3)
def array_get_d(a: Arr, i: Any, fallback: Any) -> Any:
    i = int(i)
    return a[i] if 0 <= i < len(a) else fallback


@builtin("Array.back?", 1)
def array_back_opt(a: Arr) -> Any:
    return Some(a[-1]) if a else NONE


@builtin("Array.back!", 1, typed=True)
def array_back_bang(a: Arr, *, result_type: Any = None) -> Any:
    if a:
        return a[-1]
    return default_of_type(result_type, construct="Array.back!")


alias("Array.back", "Array.back!")


# ---------------------------------------------------------------------------------------------
# Updates


@builtin("Array.push", 2)
def array_push(a: Arr, v: Any) -> Arr:
    check_size(len(a) + 1)
    return Arr((*a, v))


@builtin("Array.pop", 1)
def array_pop(a: Arr) -> Arr:
    return Arr(a[:-1])


@builtin("Array.set!", 3)
def array_set_bang(a: Arr, i: Any, v: Any) -> Arr:
    i = int(i)
    if 0 <= i < len(a):
        return Arr((*a[:i], v, *a[i + 1 :]))
    return a


alias("Array.setIfInBounds", "Array.set!")


@builtin("Array.modify", 3)
def array_modify(a: Arr, i: Any, f: Fn) -> Arr:
    i = int(i)
    if 0 <= i < len(a):
        return Arr((*a[:i], f(a[i]), *a[i + 1 :]))
    return a


@builtin("Array.swapIfInBounds", 3)
def array_swap_if_in_bounds(a: Arr, i: Any, j: Any) -> Arr:
    i, j = int(i), int(j)
    if 0 <= i < len(a) and 0 <= j < len(a):
        items = list(a)
        items[i], items[j] = items[j], items[i]
        return Arr(items)
    return a


@builtin("Array.eraseIdxIfInBounds", 2)
def array_erase_idx_if_in_bounds(a: Arr, i: Any) -> Arr:
    i = int(i)
    if 0 <= i < len(a):
        return Arr((*a[:i], *a[i + 1 :]))
    return a


@builtin("Array.append", 2)
def array_append(a: Arr, b: Arr) -> Arr:
    check_size(len(a) + len(b))
    return Arr((*a, *b))


@builtin("Array.appendList", 2)
def array_append_list(a: Arr, xs: tuple) -> Arr:
    check_size(len(a) + len(xs))
    return Arr((*a, *xs))


@builtin("Array.reverse", 1)
def array_reverse(a: Arr) -> Arr:
    return Arr(reversed(a))


@builtin("Array.extract", 3)
def array_extract(a: Arr, start: Any = 0, stop: Any = None) -> Arr:
    return Arr(a[i] for i in _window(a, start, stop))


# ---------------------------------------------------------------------------------------------
# Traversals


@builtin("Array.foldl", 5, self_index=2)
def array_foldl(f: Fn, init: Any, a: Arr, start: Any = 0, stop: Any = None) -> Any:
    acc = init
    for i in _window(a, start, stop):
        acc = f(acc, a[i])
    return acc


@builtin("Array.foldr", 5, self_index=2)
def array_foldr(f: Fn, init: Any, a: Arr, start: Any = None, stop: Any = 0) -> Any:
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
    for i in range(top - 1, stop_i - 1, -1):
        acc = f(a[i], acc)
    return acc


@builtin("Array.map", 2, self_index=1)
def array_map(f: Fn, a: Arr) -> Arr:
    return Arr(f(x) for x in a)


@builtin("Array.mapIdx", 2, self_index=1)
def array_map_idx(f: Fn, a: Arr) -> Arr:
    return Arr(f(Nat(i), x) for i, x in enumerate(a))


@builtin("Array.zipIdx", 2)
def array_zip_idx(a: Arr, start: Any = 0) -> Arr:
    return Arr(Pair(x, Nat(int(start) + i)) for i, x in enumerate(a))


@builtin("Array.zip", 2)
def array_zip(a: Arr, b: Arr) -> Arr:
    return Arr(Pair(x, y) for x, y in zip(a, b))


@builtin("Array.filter", 4, self_index=1)
def array_filter(p: Fn, a: Arr, start: Any = 0, stop: Any = None) -> Arr:
    return Arr(a[i] for i in _window(a, start, stop) if p(a[i]))


@builtin("Array.filterMap", 4, self_index=1)
def array_filter_map(f: Fn, a: Arr, start: Any = 0, stop: Any = None) -> Arr:
    out = []
    for i in _window(a, start, stop):
        r = f(a[i])
        if isinstance(r, Some):
            out.append(r.value)
    return Arr(out)


@builtin("Array.any", 4)
def array_any(a: Arr, p: Fn, start: Any = 0, stop: Any = None) -> bool:
    return any(p(a[i]) for i in _window(a, start, stop))


@builtin("Array.all", 4)
def array_all(a: Arr, p: Fn, start: Any = 0, stop: Any = None) -> bool:
    return all(p(a[i]) for i in _window(a, start, stop))


@builtin("Array.contains", 2)
def array_contains(a: Arr, v: Any) -> bool:
    """``as.any (· == a)``."""
    return beq_member(v, a)


@builtin("Array.count", 2, self_index=1)
def array_count(v: Any, a: Arr) -> Nat:
    if eq_is_beq(v):
        return nat(a.count(v))  # C speed; exact because `==` is Lean's `==` here
    return nat(sum(1 for x in a if lean_beq(x, v)))


@builtin("Array.countP", 2, self_index=1)
def array_count_p(p: Fn, a: Arr) -> Nat:
    return nat(sum(1 for x in a if p(x)))


@builtin("Array.find?", 2, self_index=1)
def array_find_opt(p: Fn, a: Arr) -> Any:
    for x in a:
        if p(x):
            return Some(x)
    return NONE


@builtin("Array.findIdx?", 2, self_index=1)
def array_find_idx_opt(p: Fn, a: Arr) -> Any:
    for i, x in enumerate(a):
        if p(x):
            return Some(Nat(i))
    return NONE


@builtin("Array.insertionSort", 2)
def array_insertion_sort(a: Arr, lt: Fn | None = None) -> Arr:
    relation = lt if lt is not None else compare_lt
    items = list(a)
    for i in range(1, len(items)):
        j = i
        while j > 0 and relation(items[j], items[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            j -= 1
    return Arr(items)


@builtin("Array.take", 2)
def array_take(a: Arr, n: Any) -> Arr:
    """``a.take n = a.extract 0 n``."""
    return Arr(a[: int(n)])


@builtin("Array.drop", 2)
def array_drop(a: Arr, n: Any) -> Arr:
    """``a.drop n = a.extract n a.size``."""
    return Arr(a[int(n) :])


@builtin("Array.flatten", 1)
def array_flatten(a: Arr) -> Arr:
    out: list[Any] = []
    for part in a:
        out.extend(part)
        check_size(len(out))
    return Arr(out)


@builtin("Array.zipWith", 3, self_index=1)
def array_zip_with(f: Fn, a: Arr, b: Arr) -> Arr:
    return Arr(f(x, y) for x, y in zip(a, b))


@builtin("Array.isPrefixOf", 2)
def array_is_prefix_of(a: Arr, b: Arr) -> bool:
    return len(a) <= len(b) and all(lean_beq(x, y) for x, y in zip(a, b))


@builtin("Array.toListRev", 1)
def array_to_list_rev(a: Arr) -> tuple:
    return tuple(reversed(a))


@builtin("Array.partition", 2, self_index=1)
def array_partition(p: Fn, a: Arr) -> Pair:
    yes = [x for x in a if p(x)]
    no = [x for x in a if not p(x)]
    return Pair(Arr(yes), Arr(no))
