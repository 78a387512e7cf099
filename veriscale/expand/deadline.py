"""A task's wall-clock budget, looked at between batches of checks (never inside one), and the
size of those batches."""

from __future__ import annotations

import time

__all__ = ["ChunkSizer", "Deadline"]


class Deadline:
    """``past(f)``: more than the fraction ``f`` of the budget has gone. No budget: never past."""

    def __init__(self, budget_s: float | None, *, clock: float | None = None) -> None:
        self.budget_s = budget_s
        self.started = time.monotonic() if clock is None else clock
        self.hit = False
        """Set once any stage found the deadline past and skipped work."""

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def past(self, fraction: float = 1.0) -> bool:
        return self.budget_s is not None and self.elapsed() > self.budget_s * fraction

    def check(self, fraction: float = 1.0) -> bool:
        """``past(fraction)``, remembering that work was skipped when it is."""
        if self.past(fraction):
            self.hit = True
            return True
        return False


class ChunkSizer:
    """How many checks to send in the next batch, so that the deadline is looked at often enough.

    Checks of one task cost wildly different amounts (a postcondition that enumerates
    subsequences takes microseconds on three elements and seconds on twenty), and callers order
    their checks from cheap to expensive, so the next batch is sized from the last one's time per
    check to take about ``target_s``, growing at most twofold per batch and staying within
    ``low``..``high``. ``low`` is not 1: the backend shortens the time limit after a few timeouts
    in a row *within a batch*, which single-check batches would defeat.
    """

    def __init__(self, start: int = 16, *, low: int = 8, high: int = 128, target_s: float = 1.0) -> None:
        self.high = max(1, high)
        self.low = max(1, min(low, self.high))
        self.size = max(self.low, min(start, self.high))
        self.target_s = target_s

    def record(self, checks: int, seconds: float) -> None:
        if checks <= 0:
            return
        per_check = seconds / checks
        ideal = int(self.target_s / per_check) if per_check > 0 else self.high
        self.size = max(self.low, min(self.high, 2 * self.size, ideal))
