"""Idioms of model-written Lean code: `∅`, `Array.qsort`, `Array.swap`, subarrays, `eraseIdx`,
`Array.ofFn`, `Nat.fold` and friends. Each test states the Lean (v4.24) behaviour it reproduces and
the source file that defines it."""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.builtins import BUILTINS, repr_value, to_string
from veriscale.backends.embedded.program import Program
from veriscale.backends.embedded.runtime_support import PROOF, LeanSubarray
from veriscale.lean.values import NONE, Arr, BudgetExceeded, Nat, Pair, Some, Unsupported


def run(src: str, name: str = "f", **args: Any) -> Any:
    return call_entry(Program(src), name, args, None)


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    return BUILTINS[name].fn(*args, **kwargs)


def nats(*values: int) -> Arr:
    return Arr(Nat(v) for v in values)


A = nats(3, 1, 3, 2)


# ---------------------------------------------------------------------------------------------
# `∅` / `{}`: `EmptyCollection.emptyCollection` (Init/Core.lean: `notation "∅" => ...`,
# `notation "{" "}" => ...`); instances: `List` (⟨List.nil⟩, Init/Data/List/Basic.lean), `Array`
# (⟨Array.empty⟩, Init/Data/Array/Basic.lean), `Subarray` (Subarray.empty), `Std.HashMap`/
# `Std.HashSet` (emptyWithCapacity). `String` has none.


def test_empty_set_symbol_builds_an_empty_hash_set() -> None:
    """`let mut s : Std.HashSet Nat := ∅` then inserting 3, 1, 3, 2 leaves 3 elements."""
    src = """def f (a : Array Nat) : Nat := Id.run do
  let mut s : Std.HashSet Nat := ∅
  for x in a do
    s := s.insert x
  return s.size"""
    assert run(src, a=A) == 3


def test_empty_collection_at_list_array_and_hash_map() -> None:
    """`(∅ : List Nat) = []` (`List.empty_eq`), `(∅ : Array Nat) = #[]`, and `{}` is the same
    notation at a type that is not a user structure (`{}` lacks `Array`'s field `toList`)."""
    src_list = """def f (a : Array Nat) : List Nat := Id.run do
  let mut s : List Nat := ∅
  for x in a do
    s := x :: s
  return s"""
    assert run(src_list, a=A) == (Nat(2), Nat(3), Nat(1), Nat(3))
    assert run("def f (a : Array Nat) : Array Nat := Id.run do\n  let mut s : Array Nat := {}\n"
               "  s := s.push 7\n  return s", a=A) == nats(7)
    assert run("def f (a : Array Nat) : Array Nat := Id.run do\n  let mut s := a\n  s := ∅\n  return s",
               a=A) == Arr(())
    src_map = """def f (a : Array Nat) : Nat := Id.run do
  let mut m : Std.HashMap Nat Nat := ∅
  for x in a do
    m := m.insert x 1
  return m.size"""
    assert run(src_map, a=A) == 3
    # `∅` is a term like any other: an argument, and compared with `==` at the other side's type
    assert run("def g (xs : List Nat) : Nat := xs.length\ndef f (a : Array Nat) : Nat := g ∅", a=A) == 0
    assert run("def f (a : Array Nat) : Bool := a == ∅", a=A) is False
    assert run("def f (a : Array Nat) : Bool := a == ∅", a=Arr(())) is True


def test_empty_collection_without_a_known_instance_is_unsupported() -> None:
    """`String` has no `EmptyCollection` instance in core Lean; with no expected type Lean
    cannot pick an instance either, and neither do we."""
    with pytest.raises(Unsupported):
        run("def f (n : Nat) : String := Id.run do\n  let s : String := ∅\n  return s", n=Nat(0))
    with pytest.raises(Unsupported):
        run("def f (n : Nat) : Nat := Id.run do\n  let s := ∅\n  return n", n=Nat(0))


# ---------------------------------------------------------------------------------------------
# Array.qsort (Init/Data/Array/QSort/Basic.lean, v4.24):
#   qsort as (lt := (· < ·)) (lo := 0) (hi := as.size - 1)
#   #[] ↦ #[]; lo := min lo (size-1); hi := max lo (min hi (size-1)); sort lo hi, where
#   sort lo hi := if lo < hi then let (mid, as) := qpartition lo hi;
#                 if mid ≥ hi then as else sort (sort lo mid) (mid+1) hi
#   qpartition: mid := (lo+hi)/2; swap lo mid if lt as[mid] as[lo]; swap lo hi if lt as[hi] as[lo];
#   swap mid hi if lt as[mid] as[hi]; pivot := as[hi]; i := lo; for k in lo..hi-1: if lt as[k] pivot
#   then swap i k, i += 1; finally swap i hi and return i.


def test_qsort_orders_equal_keys_like_lean_not_stably() -> None:
    """Hand trace of Lean's definition on [(1,10),(0,20),(1,30),(0,40)] with lt = key `<`:

    sort 0 3: qpartition 0 3, mid = 1: lt (0,20) (1,10) → swap 0 1 → [(0,20),(1,10),(1,30),(0,40)];
      lt (0,40) (0,20) no; lt (1,10) (0,40) no; pivot (0,40); k = 0, 1, 2: none < pivot, so i = 0;
      swap 0 3 → [(0,40),(1,10),(1,30),(0,20)], mid = 0 < 3 → sort 0 0 (nothing), sort 1 3.
    sort 1 3: qpartition 1 3, mid = 2: lt (1,30) (1,10) no; lt (0,20) (1,10) → swap 1 3 →
      [(0,40),(0,20),(1,30),(1,10)]; lt (1,30) (1,10) no; pivot (1,10); k = 1: (0,20) < pivot →
      swap 1 1, i = 2; k = 2: no; swap 2 3 → [(0,40),(0,20),(1,10),(1,30)], mid = 2 → sort 1 2.
    sort 1 2: qpartition 1 2, mid = 1: lt a[1] a[1] no; lt (1,10) (0,20) no; lt (0,20) (1,10) →
      swap 1 2 → [(0,40),(1,10),(0,20),(1,30)]; pivot (0,20); k = 1: no; swap 1 2 →
      [(0,40),(0,20),(1,10),(1,30)], mid = 1 → sort 1 1, sort 2 2: nothing. sort 3 3: nothing.

    Result [(0,40),(0,20),(1,10),(1,30)]: the two key-0 pairs come out reversed, unlike a stable
    sort (which would give (0,20) first)."""
    pairs = Arr(Pair(Nat(k), Nat(v)) for k, v in ((1, 10), (0, 20), (1, 30), (0, 40)))
    expected = Arr(Pair(Nat(k), Nat(v)) for k, v in ((0, 40), (0, 20), (1, 10), (1, 30)))
    src = "def f (a : Array (Nat × Nat)) : Array (Nat × Nat) := a.qsort (fun x y => x.1 < y.1)"
    assert run(src, a=pairs) == expected
    assert call("Array.qsort", pairs, lambda x, y: x.fst < y.fst) == expected


def test_qsort_default_relation_and_empty_array() -> None:
    """`lt` defaults to `(· < ·)`; `#[].qsort = #[]` (the `as.size = 0` branch)."""
    assert run("def f (a : Array Nat) : Array Nat := a.qsort", a=A) == nats(1, 2, 3, 3)
    assert run("def f (a : List Nat) : List Nat := (a.toArray.qsort (fun x y => x < y)).toList",
               a=(Nat(2), Nat(0), Nat(1))) == (Nat(0), Nat(1), Nat(2))
    assert call("Array.qsort", Arr(())) == Arr(())


def test_qsort_sorts_only_the_clamped_inclusive_range() -> None:
    """`qsort as lt lo hi` sorts `as[lo..=hi]` after `lo := min lo (size-1)`,
    `hi := max lo (min hi (size-1))`; outside the range nothing moves."""
    five = nats(5, 4, 3, 2, 1)
    lt = lambda x, y: x < y  # noqa: E731
    assert call("Array.qsort", five, lt, Nat(1), Nat(3)) == nats(5, 2, 3, 4, 1)
    assert call("Array.qsort", five, lt, Nat(2), Nat(100)) == nats(5, 4, 1, 2, 3)
    assert call("Array.qsort", five, lt, Nat(3), Nat(1)) == five  # hi := max lo .. = lo
    assert call("Array.qsort", five, lt, Nat(10)) == five  # lo := size - 1 = hi
    # the v4.24 parameter names are `lo` and `hi`
    assert run("def f (a : Array Nat) : Array Nat := a.qsort (· > ·) (lo := 1)", a=A) == nats(3, 3, 2, 1)
    assert run("def f (a : Array Nat) : Array Nat := Array.qsort a (· < ·) 1 2", a=A) == A
    with pytest.raises(Unsupported):
        run("def f (a : Array Nat) : Array Nat := a.qsort (· < ·) (low := 1)", a=A)


def test_qsort_refuses_a_quadratic_runaway() -> None:
    """Lean's qsort is quadratic on equal elements (every partition ends at `i = lo`); beyond the
    comparison limit the builtin answers a budget refusal, not a value."""
    with pytest.raises(BudgetExceeded):
        call("Array.qsort", Arr([Nat(0)] * 10_000))


# ---------------------------------------------------------------------------------------------
# Array.swap / eraseIdx (Init/Data/Array/Basic.lean): the bounds proofs are auto-params.


def test_swap_exchanges_two_entries() -> None:
    """Docstring of `Array.swap`: `#["red", "green", "blue", "brown"].swap 0 3 =
    #["brown", "green", "blue", "red"]` and `.swap 1 2 = #["red", "blue", "green", "brown"]`."""
    colours = Arr(("red", "green", "blue", "brown"))
    assert call("Array.swap", colours, Nat(0), Nat(3)) == Arr(("brown", "green", "blue", "red"))
    assert run("def f (a : Array String) : Array String := a.swap 1 2", a=colours) == Arr(
        ("red", "blue", "green", "brown")
    )
    # explicit proofs are accepted and never evaluated (`h` is a skipped proof parameter)
    src = "def f (a : Array Nat) (h : 1 < a.size) : Array Nat := a.swap 0 1 (by omega) h"
    assert run(src, a=A) == nats(1, 3, 3, 2)
    with pytest.raises(Unsupported):  # no proof of `5 < size` exists, so this is not Lean's run
        call("Array.swap", A, Nat(0), Nat(5))


def test_names_gone_by_v4_24_stay_unsupported() -> None:
    """`Array.swap!` (deprecated for `swapIfInBounds` since 2024-11-24) and `List.maximum?`
    (deprecated for `max?` since 2024-09-29) are no longer declared; `Array.max?` only appears
    after v4.24 (Init/Data/Array/MinMax.lean)."""
    with pytest.raises(Unsupported):
        run("def f (a : Array Nat) : Array Nat := a.swap! 0 1", a=A)
    with pytest.raises(Unsupported):
        run("def f (a : List Nat) : Option Nat := a.maximum?", a=(Nat(1),))
    with pytest.raises(Unsupported):
        run("def f (a : Array Nat) : Option Nat := a.max?", a=A)
    # what does exist: `List.max? (a :: as) = some (as.foldl max a)`
    assert run("def f (a : Array Nat) : Option Nat := a.toList.max?", a=A) == Some(Nat(3))
    assert run("def f (a : Array Nat) : Option Nat := a.toList.min?", a=Arr(())) == NONE


def test_erase_idx_variants() -> None:
    """`eraseIdx xs i (h)` removes index `i`; `eraseIdx! xs i` out of range is
    `panic! "invalid index"`, whose value is `default : Array α = #[]` (not `xs`);
    `List.eraseIdx` out of range leaves the list unchanged (`| [], _ => []`)."""
    assert run("def f (a : Array Nat) : Array Nat := a.eraseIdx 1", a=A) == nats(3, 3, 2)
    assert run("def f (a : Array Nat) : Array Nat := a.eraseIdx! 0", a=A) == nats(1, 3, 2)
    assert run("def f (a : Array Nat) : Array Nat := a.eraseIdx! 7", a=A) == Arr(())
    assert call("Array.eraseIdxIfInBounds", A, Nat(7)) == A
    assert run("def f (a : List Nat) : List Nat := a.eraseIdx 1", a=(Nat(3), Nat(5), Nat(1))) == (Nat(3), Nat(1))
    assert call("List.eraseIdx", (Nat(3),), Nat(4)) == (Nat(3),)
    with pytest.raises(Unsupported):
        call("Array.eraseIdx", A, Nat(4))


# ---------------------------------------------------------------------------------------------
# Array.ofFn {n} (f : Fin n → α) (Init/Data/Array/Basic.lean)


def test_of_fn_with_named_or_visible_size() -> None:
    """Docstring: `Array.ofFn (n := 3) toString = #["0", "1", "2"]`; `n` may also come from a
    `Fin k` binder; with `n` unknown the value is not guessed."""
    assert run("def f (a : Array Nat) : Array String := Array.ofFn (n := 3) toString", a=A) == Arr(("0", "1", "2"))
    assert run("def f (a : Array Nat) : Array Nat := Array.ofFn (n := a.size) (fun i => a[a.size - 1 - i]!)",
               a=A) == nats(2, 3, 1, 3)
    assert run("def f (a : Array Nat) : Array Nat := Array.ofFn (fun (i : Fin 2) => a[i]!)", a=A) == nats(3, 1)
    with pytest.raises(Unsupported):
        run("def f (a : Array Nat) : Array Nat := Array.ofFn (fun i => a[i]!)", a=A)
    assert call("Array.ofFn", lambda i: i * 2, n=Nat(3)) == nats(0, 2, 4)


# ---------------------------------------------------------------------------------------------
# Nat.fold / foldRev / any / all (Init/Data/Nat/Fold.lean): `f : (i : Nat) → i < n → ...`


def test_nat_fold_family_passes_the_bound_proof() -> None:
    """Docstrings: `Nat.fold 4 (fun i _ xs => xs.push i) #[] = #[0, 1, 2, 3]`,
    `Nat.foldRev 4 (fun i _ xs => xs.push i) #[] = #[3, 2, 1, 0]`,
    `Nat.any 7 (fun i _ => i % 2 = 0) = true`, `Nat.any 1 (fun i _ => i % 2 = 1) = false`,
    `Nat.all 7 (fun i _ => i < 5) = false`, `Nat.all 4 (fun i _ => i < 5) = true`."""
    assert run("def f (n : Nat) : Array Nat := Nat.fold n (fun i _ xs => xs.push i) #[]", n=Nat(4)) == nats(0, 1, 2, 3)
    assert run("def f (n : Nat) : Array Nat := n.foldRev (fun i _ xs => xs.push i) #[]", n=Nat(4)) == nats(3, 2, 1, 0)
    assert run("def f (n : Nat) : Nat := n.fold (fun i h acc => acc + i) 0", n=Nat(5)) == 10
    assert run("def f (n : Nat) : Bool := Nat.any n (fun i _ => i % 2 = 0)", n=Nat(7)) is True
    assert run("def f (n : Nat) : Bool := Nat.any n (fun i _ => i % 2 = 1)", n=Nat(1)) is False
    assert run("def f (n : Nat) : Bool := n.all (fun i _ => i < 5)", n=Nat(7)) is False
    assert run("def f (n : Nat) : Bool := n.all (fun i _ => i < 5)", n=Nat(4)) is True


def test_nat_any_all_stop_early_from_zero_up() -> None:
    """The run-time `anyTR`/`allTR` test `f 0, f 1, ...` and stop at the first decisive answer;
    every call receives the proof of `i < n` as its second argument."""
    seen: list[tuple[int, Any]] = []

    def pred(i: Nat, h: Any) -> bool:
        seen.append((int(i), h))
        return int(i) == 2

    assert call("Nat.any", Nat(10), pred) is True
    assert seen == [(0, PROOF), (1, PROOF), (2, PROOF)]
    seen.clear()
    assert call("Nat.all", Nat(10), lambda i, h: seen.append((int(i), h)) or int(i) < 1) is False
    assert [i for i, _ in seen] == [0, 1]
    with pytest.raises(Unsupported):  # arguments in the wrong order do not type-check in Lean
        run("def f (n : Nat) : Nat := Nat.fold (fun i _ acc => acc + i) n 0", n=Nat(4))


# ---------------------------------------------------------------------------------------------
# Subarray (Init/Data/Array/Subarray.lean; Init/Data/Slice/Operations.lean for `toList`)


def test_to_subarray_clamps_like_lean() -> None:
    """`toSubarray as start stop`: `stop' = min stop as.size`, `start' = min start stop'`."""
    sub = call("Array.toSubarray", A, Nat(1), Nat(3))
    assert isinstance(sub, LeanSubarray) and (sub.start, sub.stop) == (1, 3)
    sub = call("Array.toSubarray", A, Nat(5), Nat(9))
    assert (sub.start, sub.stop) == (4, 4)
    sub = call("Array.toSubarray", A, Nat(3), Nat(1))
    assert (sub.start, sub.stop) == (1, 1)
    sub = call("Array.toSubarray", A)
    assert (sub.start, sub.stop) == (0, 4)
    assert run("def f (a : Array Nat) : Nat := let s := a[1:3]; s.start + s.stop", a=A) == 4


def test_slice_syntax_and_subarray_operations() -> None:
    """`a[i:j]`, `a[:j]`, `a[i:]` are `toSubarray` (macro in Subarray.lean); `size = stop - start`;
    `foldl`/`foldr`/`any`/`all` run over the window; `s.toList` is `Std.Slice.toList`."""
    assert run("def f (a : Array Nat) : Nat := a[1:3].foldl (· + ·) 0", a=A) == 4
    assert run("def f (a : Array Nat) : List Nat := a[1:].foldr (· :: ·) []", a=A) == (Nat(1), Nat(3), Nat(2))
    assert run("def f (a : Array Nat) : Nat := a[:2].size", a=A) == 2
    assert run("def f (a : Array Nat) : Nat := a[5:1].size", a=A) == 0
    assert run("def f (a : Array Nat) : Bool := a[1:3].any (· == 1)", a=A) is True
    assert run("def f (a : Array Nat) : Bool := a[1:3].all (· > 1)", a=A) is False
    assert run("def f (a : Array Nat) : List Nat := a[1:].toList", a=A) == (Nat(1), Nat(3), Nat(2))
    assert run("def f (a : Array Nat) : Nat := (a.toSubarray 1 3).popFront.size", a=A) == 1
    assert run("def f (a : Array Nat) : Nat := a[1:3][1]!", a=A) == 3
    # `Subarray.any (p) (as)` takes the predicate first
    assert run("def f (a : Array Nat) : Bool := Subarray.any (· == 2) (a.toSubarray 3)", a=A) is True


def test_for_in_a_subarray_visits_its_window() -> None:
    """`Subarray.forIn` loops `i` from `start` to `stop - 1` over `s.array`."""
    src = """def f (a : Array Nat) : List Nat := Id.run do
  let mut acc := []
  for x in a[1:3] do
    acc := x :: acc
  return acc"""
    assert run(src, a=A) == (Nat(3), Nat(1))


def test_subarray_to_array_and_the_coercion() -> None:
    """`toArray`/`Array.ofSubarray` copy the window; `Coe (Subarray α) (Array α) := ⟨ofSubarray⟩`
    makes `def f (a : Array Nat) : Array Nat := a[1:3]` elaborate."""
    assert run("def f (a : Array Nat) : Array Nat := (a.toSubarray 1 3).toArray", a=A) == nats(1, 3)
    assert run("def f (a : Array Nat) : Array Nat := Array.ofSubarray (a.toSubarray 2)", a=A) == nats(3, 2)
    assert run("def f (a : Array Nat) : Array Nat := a[1:3]", a=A) == nats(1, 3)
    assert run("def f (a : Array Nat) : Array Nat := if a.size > 2 then a[1:] else a", a=A) == nats(1, 3, 2)
    assert run("def g (b : Array Nat) : Nat := b.size\ndef f (a : Array Nat) : Nat := g a[1:3]", a=A) == 2
    assert run("def f (a : Array Nat) : Array Nat := let s := a[1:3]\n  s", a=A) == nats(1, 3)


def test_subarray_to_string_repr_and_equality() -> None:
    """`toString s = toString s.toArray`; `repr s = repr s.toArray ++ ".toSubarray"`; no `BEq`
    instance is modelled, so `==` is refused rather than decided by identity."""
    sub = call("Array.toSubarray", A, Nat(1), Nat(3))
    assert to_string(sub) == "#[1, 3]"
    assert repr_value(sub) == "#[1, 3].toSubarray"
    with pytest.raises(Unsupported):
        run("def f (a : Array Nat) : Bool := a[1:3] == a[1:3]", a=A)
