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

    Starts at ``start``; a batch that took less than ``target_s`` doubles the size (up to
    ``high``), one that took more than four times ``target_s`` halves it (down to 1). Checks of one
    task cost wildly different amounts (a postcondition that enumerates subsequences takes
    microseconds on three elements and seconds on twenty), so a fixed size is either too slow to
    react or too chatty.
    """

    def __init__(self, start: int = 16, *, high: int = 1024, target_s: float = 2.0) -> None:
        self.size = max(1, start)
        self.high = high
        self.target_s = target_s

    def record(self, seconds: float) -> None:
        if seconds < self.target_s:
            self.size = min(self.high, self.size * 2)
        elif seconds > 4 * self.target_s:
            self.size = max(1, self.size // 2)
