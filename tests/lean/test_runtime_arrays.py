"""The runtime ``Array`` (:class:`veriscale.lean.values.Arr`): a persistent array whose newest
version is updated in place. Lean's arrays are values, so whatever the sharing underneath, every
version must keep its elements; these tests hold it to a tuple model, and check that the
in-place path is the one taken."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Arr, Nat, Pair


def _update(rng: random.Random, arr: Arr, model: tuple[Any, ...]) -> tuple[Arr, tuple[Any, ...]] | None:
    """One random update of ``arr`` and the same update of its tuple model."""
    op = rng.randrange(4)
    value = rng.randrange(100)
    if op == 0:
        return arr.push(value), (*model, value)
    if op == 1:
        return arr.pop(), model[:-1]
    if op == 2:
        if not model:
            return None
        i = rng.randrange(len(model))
        return arr.set(i, value), (*model[:i], value, *model[i + 1 :])
    tail = tuple(rng.randrange(10) for _ in range(rng.randrange(4)))
    source: Any = rng.choice([tail, Arr(tail), arr])
    added = model if source is arr else tail
    return arr.extend(source), (*model, *added)


@pytest.mark.parametrize("seed", range(4))
def test_every_version_keeps_its_elements(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        start = tuple(range(rng.randrange(5)))
        versions: list[tuple[Arr, tuple[Any, ...]]] = [(Arr(start), start)]
        for _ in range(rng.randrange(1, 30)):
            # mostly the newest version (the in-place path), sometimes an older one
            arr, model = versions[-1] if rng.random() < 0.7 else rng.choice(versions)
            if rng.random() < 0.2:
                old, old_model = rng.choice(versions)
                assert tuple(old) == old_model  # reading an old version in between
            updated = _update(rng, arr, model)
            if updated is not None:
                versions.append(updated)
        for arr, model in versions:
            assert len(arr) == len(model)
            assert tuple(arr) == model
            assert arr == Arr(model) and hash(arr) == hash(Arr(model))
            assert arr[1:] == model[1:]
            if model:
                assert arr[-1] == model[-1] and arr[0] == model[0]


def test_updates_of_the_newest_version_share_its_list() -> None:
    built = Arr((1, 2))
    first = built.push(3)  # a constructed array is frozen: its first update copies
    assert built.view() is not first.view() and tuple(built) == (1, 2)
    items = first.view()
    second = first.push(4).set(0, 9).pop()
    assert second.view() is items  # updated in place, three times
    assert tuple(second) == (9, 2, 3)
    assert tuple(first) == (1, 2, 3)  # the old version gets its elements back, in a list of its own
    assert first.view() is not items


def test_iteration_is_a_snapshot() -> None:
    arr = Arr((1, 2)).push(3)
    seen = []
    for x in arr:
        seen.append(x)
        arr.push(x)  # updates the very version being iterated; the loop does not see it
    assert seen == [1, 2, 3]


def test_arrays_are_values_for_equality_hashing_copying_and_pickling() -> None:
    arr = Arr((1, 2)).push(3)
    older = arr.pop()
    assert arr == Arr((1, 2, 3)) and arr != (1, 2, 3) and Arr(()) != ()
    assert {arr: "x"}[Arr((1, 2, 3))] == "x"
    assert copy.copy(arr) is arr and copy.deepcopy(arr) is arr
    assert pickle.loads(pickle.dumps(older)) == Arr((1, 2))
    assert 2 in arr and 4 not in arr and arr.count(3) == 1 and arr.index(3) == 2
    assert list(reversed(arr)) == [3, 2, 1]
    assert Arr((1, 2)) < Arr((1, 3))
    assert repr(older) == "Arr((1, 2))"


ALIASING = """
def f (a : Array Nat) : Array Nat × Array Nat × Array Nat :=
  let b := a.push 1
  let c := b.push 2
  let d := b.set! 0 7
  (b, c, d)

def g (a : Array Nat) : Array Nat := a.foldl (fun acc x => acc.push (x + 10)) a

def h (a : Array Nat) : Array Nat := Id.run do
  let mut out := a
  for x in a do
    out := out.push x
  for x in out do
    out := out.set! 0 x
  return out

def k (n : Nat) : Array Nat :=
  let rec loop (i : Nat) (acc : Array Nat) : Array Nat :=
    if i < n then loop (i + 1) (acc.push i) else acc
  loop 0 #[]
"""


def nats(*values: int) -> Arr:
    return Arr(Nat(v) for v in values)


def test_lean_code_sees_value_semantics_whatever_it_updates() -> None:
    program = Program(ALIASING)
    a = nats(5, 6)
    result = call_entry(program, "f", {"a": a}, None)
    assert isinstance(result, Pair)
    b, rest = result.fst, result.snd
    assert (b, rest.fst, rest.snd) == (nats(5, 6, 1), nats(5, 6, 1, 2), nats(7, 6, 1))
    assert call_entry(program, "g", {"a": a}, None) == nats(5, 6, 15, 16)
    assert call_entry(program, "h", {"a": a}, None) == nats(6, 6, 5, 6)
    assert call_entry(program, "k", {"n": Nat(5)}, None) == nats(0, 1, 2, 3, 4)
    assert a == nats(5, 6)  # the input is a value too
