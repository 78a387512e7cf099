"""A task's wall-clock budget, looked at between batches of checks (never inside one)."""

from __future__ import annotations

import time

__all__ = ["Deadline"]


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
