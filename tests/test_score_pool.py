"""The crash-tolerant worker pool: a worker that dies costs only the item that killed it."""

from __future__ import annotations

import os

from veriscale.score.pool import run_resilient

Item = tuple[str, tuple[str, ...]]


def _work(item: Item) -> list[str]:
    name, parts = item
    if "boom" in parts:
        os._exit(3)  # what a C stack overflow looks like from the parent: the process is gone
    return [f"{name}.{p}" for p in parts]


def _split(item: Item) -> list[Item]:
    name, parts = item
    return [(name, (p,)) for p in parts]


def _crashed(item: Item) -> list[str]:
    name, parts = item
    return [f"{name}.{p}:crashed" for p in parts]


def test_a_crashing_part_is_isolated_and_the_rest_is_computed() -> None:
    items: list[Item] = [("a", ("x", "boom", "y")), ("b", ("x",)), ("c", ("x", "y")), ("d", ("z",))]
    results = [r for batch in run_resilient(items, _work, jobs=2, split=_split, crashed=_crashed) for r in batch]
    assert sorted(results) == sorted(["a.x", "a.boom:crashed", "a.y", "b.x", "c.x", "c.y", "d.z"])


def test_without_crashes_every_item_is_computed_once() -> None:
    items: list[Item] = [(str(i), ("p", "q")) for i in range(6)]
    results = [r for batch in run_resilient(items, _work, jobs=2, split=_split, crashed=_crashed) for r in batch]
    assert sorted(results) == sorted(f"{i}.{p}" for i in range(6) for p in ("p", "q"))
