"""Test selection over a kill matrix: greedy set cover (the published rule), an exact minimum
cover (optional: an integer program through PuLP, solved by HiGHS), and filling a budget by kill
count.

``kills[t]`` is the set of adversary ids test ``t`` (its position in ``test.json``) kills. An
adversary killed by some test must stay killed by the kept tests: the cover is never cut to fit
the budget (when it is larger, it is kept whole and :attr:`TestSelection.over_budget` says so).
*Forced* tests (the original benchmark's, say) are kept first, outside the budget; their kills
count as covered.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "CoverMethod",
    "ExactCoverUnavailable",
    "TestSelection",
    "exact_cover",
    "exact_solver_name",
    "fill_by_kills",
    "greedy_cover",
    "select_tests",
]

CoverMethod = Literal["greedy", "exact"]
_SOLVER_TIME_LIMIT_S = 120
_SOLVER_PREFERENCE = ("HiGHS", "COIN_CMD", "PULP_CBC_CMD")


class ExactCoverUnavailable(RuntimeError):
    """The exact cover needs PuLP and a solver (``pip install 'veriscale[exact]'``), or it failed."""


def _uncovered(kills: Sequence[Collection[str]], forced: Collection[int]) -> set[str]:
    killed = set().union(*kills) if kills else set()
    return killed - set().union(*(kills[i] for i in forced)) if forced else killed


def greedy_cover(kills: Sequence[Collection[str]], *, forced: Collection[int] = ()) -> list[int]:
    """The published greedy cover, in pick order (forced tests excluded from the result).

    Repeatedly take the test that kills the most adversaries not yet covered; ties go to the test
    with the most kills in total, then to the lowest position. Stops when every adversary killed
    by some test is covered.
    """
    forced_set = set(forced)
    uncovered = _uncovered(kills, forced_set)
    sets = [frozenset(k) for k in kills]
    candidates = [t for t in range(len(sets)) if t not in forced_set and sets[t] & uncovered]
    picked: list[int] = []
    while uncovered:
        best = min(candidates, key=lambda t: (-len(sets[t] & uncovered), -len(sets[t]), t))
        picked.append(best)
        uncovered -= sets[best]
        candidates = [t for t in candidates if t != best and sets[t] & uncovered]
    return picked


def _import_pulp() -> Any:
    try:
        import pulp
    except ImportError as exc:  # optional dependency
        raise ExactCoverUnavailable(
            "the exact cover needs PuLP and HiGHS: pip install 'veriscale[exact]' (or pip install pulp highspy)"
        ) from exc
    return pulp


def exact_solver_name() -> str:
    """The solver :func:`exact_cover` uses: the first available of HiGHS (``highspy``), an
    installed CBC (``COIN_CMD``), and the CBC bundled with PuLP < 4 (deprecated there)."""
    pulp = _import_pulp()
    available = set(pulp.listSolvers(onlyAvailable=True))
    for name in _SOLVER_PREFERENCE:
        if name in available:
            return name
    raise ExactCoverUnavailable(
        f"PuLP finds none of the solvers {', '.join(_SOLVER_PREFERENCE)}: pip install highspy"
    )


def exact_cover(kills: Sequence[Collection[str]], *, forced: Collection[int] = ()) -> list[int]:
    """A minimum cover (forced tests excluded), sorted by position; solved as an integer program.

    Tests with the same useful kill set are merged first (the lowest position stands for them).
    Among the minimum covers, a second solve prefers tests the greedy rule would prefer (more
    kills, lower position) by minimising the sum of their ranks in that order. Raises
    :class:`ExactCoverUnavailable` without PuLP and a solver, or when the solver does not prove
    optimality within its time limit.
    """
    pulp = _import_pulp()
    forced_set = set(forced)
    uncovered = _uncovered(kills, forced_set)
    if not uncovered:
        return []
    representative: dict[frozenset[str], int] = {}
    for t, k in enumerate(kills):
        useful = frozenset(k) & uncovered
        if t not in forced_set and useful:
            representative.setdefault(useful, t)
    tests = sorted(representative.values())
    useful_of = {t: frozenset(kills[t]) & uncovered for t in tests}
    rank = {t: r for r, t in enumerate(sorted(tests, key=lambda t: (-len(kills[t]), t)))}
    solver_name = exact_solver_name()

    def solve(weights: dict[int, int], size: int | None) -> list[int]:
        problem = pulp.LpProblem("test_cover", pulp.LpMinimize)
        add_variable = getattr(problem, "add_variable", None)  # PuLP >= 3.3; LpVariable before
        chosen = {
            t: add_variable(f"t{t}", cat=pulp.LpBinary)
            if add_variable is not None
            else pulp.LpVariable(f"t{t}", cat=pulp.LpBinary)
            for t in tests
        }
        problem += pulp.lpSum(weights[t] * chosen[t] for t in tests)
        for adversary in sorted(uncovered):
            problem += pulp.lpSum(chosen[t] for t in tests if adversary in useful_of[t]) >= 1
        if size is not None:
            problem += pulp.lpSum(chosen.values()) == size
        with warnings.catch_warnings():
            # PuLP 3.3+ warns that its bundled CBC goes away in 4.0; it is only the last resort.
            warnings.simplefilter("ignore", DeprecationWarning)
            solver = pulp.getSolver(solver_name, msg=False, timeLimit=_SOLVER_TIME_LIMIT_S)
            problem.solve(solver)
        status = pulp.LpStatus[problem.status]
        if status != "Optimal":
            raise ExactCoverUnavailable(f"{solver_name} did not prove an optimal cover ({status})")
        return sorted(t for t in tests if (chosen[t].value() or 0) > 0.5)

    minimum = solve(dict.fromkeys(tests, 1), None)
    return solve(rank, len(minimum))


def fill_by_kills(
    kills: Sequence[Collection[str]], kept: Collection[int], budget: int, *, eligible: Collection[int]
) -> list[int]:
    """Tests added after the cover until ``budget``: most kills first, ties to the lowest position."""
    kept_set = set(kept)
    room = budget - len(kept_set)
    if room <= 0:
        return []
    pool = sorted((t for t in eligible if t not in kept_set), key=lambda t: (-len(kills[t]), t))
    return pool[:room]


@dataclass(frozen=True)
class TestSelection:
    """Which tests a reduction keeps and why."""

    __test__ = False  # not a pytest class despite the name

    selected: list[int]
    """Every kept test (forced, cover, fill), sorted by position."""
    forced: list[int]
    cover: list[int]
    """The cover actually used, in pick order (greedy) or position order (exact)."""
    fill: list[int]
    greedy_size: int
    exact_size: int | None
    budget: int

    @property
    def over_budget(self) -> bool:
        """The cover alone needs more tests than the budget allows (it is kept whole)."""
        return len(self.cover) > self.budget


def select_tests(
    kills: Sequence[Collection[str]],
    budget: int,
    *,
    forced: Collection[int] = (),
    method: CoverMethod = "greedy",
    fill_eligible: Collection[int] | None = None,
) -> TestSelection:
    """Cover every killed adversary, then fill up to ``budget`` tests (forced ones not counted).

    ``fill_eligible`` limits the tests the fill may add (default: all); the cover may use any.
    """
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    n = len(kills)
    forced_list = sorted(set(forced))
    if any(not 0 <= t < n for t in forced_list):
        raise ValueError(f"forced test positions out of range 0..{n - 1}: {forced_list}")
    greedy = greedy_cover(kills, forced=forced_list)
    exact = exact_cover(kills, forced=forced_list) if method == "exact" else None
    cover = exact if exact is not None else greedy
    eligible = range(n) if fill_eligible is None else fill_eligible
    fill = fill_by_kills(kills, cover, budget, eligible=[t for t in eligible if t not in set(forced_list)])
    return TestSelection(
        selected=sorted({*forced_list, *cover, *fill}),
        forced=forced_list,
        cover=cover,
        fill=fill,
        greedy_size=len(greedy),
        exact_size=None if exact is None else len(exact),
        budget=budget,
    )
