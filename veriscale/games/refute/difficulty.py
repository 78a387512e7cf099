"""How hard a REFUTE item is: the easier of two routes to an exposing input.

* **Suite route** -- the share ``s`` of the expanded suite's accept inputs that expose the wrong
  implementation (``expand``'s generators, aimed at the task's edges, found them).
* **Blind route** -- the rate ``p`` at which blind type-driven sampling exposes it: the share of
  a pool of ``pool_draws`` random inputs (the random baseline's own sampler, on a stream of the
  pool's own) that expose it. Every draw counts, valid or not, as every attempt of the random
  baseline does; a task whose parameter types the sampler cannot draw has no pool (``p = 0``).
  An item exposed at rate ``p`` is solved by ``B`` random attempts with probability
  ``1 - (1 - p) ** B``.

Each route gives a bucket; the item's bucket is the easier of the two (an item is only as hard as
its easiest route):

==========  ========================  =================================================
bucket      suite route               blind route: random sampling is expected to
                                      succeed at least half the time within
==========  ========================  =================================================
easy        ``s >= 20 %``             10 attempts    (``p >= 6.7 %``)
medium      ``5 % <= s < 20 %``       100 attempts   (``p >= 0.69 %``)
hard        ``1 % <= s < 5 %``        1,000 attempts (``p >= 0.069 %``)
very-hard   ``s < 1 %``               not within 1,000 attempts (with the default pool of
                                      2,000 draws: at most one exposing draw)
==========  ========================  =================================================

So a very-hard item is one the suite rarely exposes *and* the random baseline at 1,000 attempts
is expected to miss more often than not.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from veriscale.backends.base import Answer, Backend, Check, CheckKind
from veriscale.games.common import InputError, parse_input, stored_input
from veriscale.generate.value_space import ValuePools, stable_rng, supports_type
from veriscale.lean.printing import same_as_printed
from veriscale.task import Task
from veriscale.typed_task import TypedTask, typed_input_key

__all__ = [
    "BLIND_BUDGETS",
    "BUCKETS",
    "DEFAULT_POOL_SIZE",
    "SUITE_SHARE_BOUNDS",
    "BlindPool",
    "blind_bucket",
    "blind_inputs",
    "draw_pool",
    "expected_success",
    "item_bucket",
    "suite_bucket",
    "verified_wrong",
]

BUCKETS: tuple[str, ...] = ("very-hard", "hard", "medium", "easy")
"""The difficulty buckets, hardest first."""

SUITE_SHARE_BOUNDS: tuple[float, ...] = (0.01, 0.05, 0.20)
"""Suite route: a share below ``SUITE_SHARE_BOUNDS[i]`` (and not below the one before) is
``BUCKETS[i]``; a share of 20 % or more is easy."""

BLIND_BUDGETS: tuple[int, ...] = (1000, 100, 10)
"""Blind route: the item is ``BUCKETS[i + 1]`` when random sampling is expected to succeed at least
half the time within ``BLIND_BUDGETS[i]`` attempts (the smallest such budget wins); very-hard when
not even within the first."""

DEFAULT_POOL_SIZE = 2000
"""Random draws per task in the blind pool: twice the largest baseline budget, so that a rate at
the very-hard/hard boundary (0.069 %) is about 1.4 expected exposing draws."""

POOL_STREAM = "refute-pool"
"""The label of the pool's random stream (the random baseline's is ``refute-random``), so the pool
never replays the baseline's draws whatever the seeds."""


def expected_success(rate: float, budget: int) -> float:
    """The chance that ``budget`` independent draws, each exposing at ``rate``, expose at least once."""
    return 1.0 - (1.0 - rate) ** budget


def suite_bucket(share: float) -> str:
    for name, upper in zip(BUCKETS, SUITE_SHARE_BOUNDS):
        if share < upper:
            return name
    return BUCKETS[-1]


def blind_bucket(rate: float) -> str:
    bucket = BUCKETS[0]
    for name, budget in zip(BUCKETS[1:], BLIND_BUDGETS):
        if expected_success(rate, budget) >= 0.5:
            bucket = name
    return bucket


def item_bucket(suite_share: float, pool_rate: float) -> str:
    """The easier of the suite route's and the blind route's buckets."""
    return BUCKETS[max(BUCKETS.index(suite_bucket(suite_share)), BUCKETS.index(blind_bucket(pool_rate)))]


def blind_inputs(view: TypedTask, rng: Any) -> Iterator[dict[str, Any]]:
    """Random type-driven inputs (stored form, a fresh value per parameter each time) from ``rng``,
    without end; nothing when some parameter type cannot be drawn. The random baseline plays these,
    and the blind pool is drawn from them."""
    if not all(supports_type(ty, view.structs) for ty in view.param_types.values()):
        return
    pools = ValuePools(view.structs)
    while True:
        yield stored_input({name: pools.random_value(ty, rng) for name, ty in view.param_types.items()}, view)


@dataclass
class BlindPool:
    """A task's pool of random draws, reduced to its distinct valid inputs.

    ``rows[i]`` was drawn ``weights[i]`` times, its precondition is decided true and the reference
    returns ``reference[i]`` on it; the other draws (invalid, undecided, or not parsing back) can
    expose nothing, but count in ``draws``."""

    draws: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    weights: list[int] = field(default_factory=list)
    reference: list[Any] = field(default_factory=list)

    @property
    def valid(self) -> int:
        return sum(self.weights)

    def exposing(self, task: Task, wrong_task: Task, backend: Backend) -> int:
        """Draws on which ``wrong_task``'s output is verified wrong."""
        return sum(self.weights[i] for i in verified_wrong(task, wrong_task, backend, self.rows, self.reference))


def draw_pool(task: Task, view: TypedTask, backend: Backend, *, size: int, seed: int) -> BlindPool:
    """``size`` draws of :func:`blind_inputs` on the pool's own stream for ``task``, judged as the
    REFUTE judge reads an answer (parsed back at the parameter types, precondition decided true,
    the reference's output a value)."""
    counts: dict[str, int] = {}
    distinct: dict[str, dict[str, Any]] = {}
    draws = 0
    for stored in islice(blind_inputs(view, stable_rng(POOL_STREAM, seed, task.id)), size):
        draws += 1
        try:
            args = parse_input(stored, view.param_types, view.structs)
        except InputError:
            continue
        key = typed_input_key(args, view.param_types, view.structs)
        counts[key] = counts.get(key, 0) + 1
        distinct.setdefault(key, args)
    keys = list(distinct)
    # The precondition first: the reference need not terminate on an input outside it.
    precond = backend.run(task, [Check(kind=CheckKind.PRECOND, args=distinct[k]) for k in keys])
    valid = [k for k, answer in zip(keys, precond, strict=True) if answer.status == "true"]
    outputs = backend.run(task, [Check(kind=CheckKind.CODE, args=distinct[k]) for k in valid])
    pool = BlindPool(draws)
    for key, answer in zip(valid, outputs, strict=True):
        if answer.status == "value":
            pool.rows.append(distinct[key])
            pool.weights.append(counts[key])
            pool.reference.append(answer.value)
    return pool


def verified_wrong(
    task: Task, wrong_task: Task, backend: Backend, rows: Sequence[dict[str, Any]], reference: Sequence[Any]
) -> list[int]:
    """The indices of ``rows`` (valid inputs, ``reference[i]`` the reference's output on
    ``rows[i]``) on which the wrong program returns a value that differs from the reference's and
    that the ground-truth postcondition decides false -- REFUTE's success, with nothing undecided."""
    if not rows:
        return []
    outputs: list[Answer] = backend.run(wrong_task, [Check(kind=CheckKind.CODE, args=args) for args in rows])
    differing = [
        (i, answer.value)
        for i, answer in enumerate(outputs)
        if answer.status == "value" and not same_as_printed(answer.value, reference[i])
    ]
    if not differing:
        return []
    verdicts = backend.run(
        task, [Check(kind=CheckKind.POSTCOND, args=rows[i], output=value) for i, value in differing]
    )
    return [i for (i, _), verdict in zip(differing, verdicts, strict=True) if verdict.status == "false"]
