"""A worker pool that survives workers dying (a C stack overflow, the kernel's OOM killer).

The same idea as ``veriscale.validate``'s pool, made generic: at most ``jobs`` items are in flight,
so when the pool breaks the items that were running are known. Each gets a strike and is retried
in a fresh pool, *alone* (so that a second crash is certainly its own), split into smaller parts
when it has any; an item that crashes while running alone is handed to ``crashed``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class _Queued(Generic[Item]):
    __slots__ = ("item", "strikes")

    def __init__(self, item: Item, strikes: int = 0) -> None:
        self.item = item
        self.strikes = strikes


def run_resilient(
    items: Sequence[Item],
    work: Callable[[Item], Result],
    *,
    jobs: int,
    initializer: Callable[..., Any] | None = None,
    initargs: tuple[Any, ...] = (),
    split: Callable[[Item], list[Item]] | None = None,
    crashed: Callable[[Item], Result],
) -> Iterator[Result]:
    """Yield ``work(item)`` for every item (in completion order), computed in ``jobs`` processes.

    ``work`` and ``initializer`` must be picklable (module-level functions). ``split(item)``
    returns the parts to retry separately after a crash (``[item]`` or ``[]`` for none).
    """
    queue: list[_Queued[Item]] = [_Queued(item) for item in items]
    while queue:
        with ProcessPoolExecutor(max_workers=jobs, initializer=initializer, initargs=initargs) as pool:
            in_flight: dict[Future[Result], _Queued[Item]] = {}
            broken = False
            while (queue or in_flight) and not broken:
                # An item that was running during a crash runs alone.
                while queue and len(in_flight) < jobs and not any(q.strikes for q in in_flight.values()):
                    if queue[0].strikes and in_flight:
                        break
                    queued = queue.pop(0)
                    in_flight[pool.submit(work, queued.item)] = queued
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    queued = in_flight.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        broken = True
                        in_flight[future] = queued
                        continue
                    yield result
            if broken:
                retry: list[_Queued[Item]] = []
                for queued in in_flight.values():
                    if queued.strikes >= 1:
                        yield crashed(queued.item)
                        continue
                    parts = split(queued.item) if split is not None else [queued.item]
                    retry.extend(_Queued(part, 1) for part in (parts or [queued.item]))
                queue[:0] = retry
