"""What ``veriscale expand`` is told (:class:`ExpandOptions`) and what it reports (the summaries).

Every count in a summary says where a number came from, so that a run can be audited: how many
candidate inputs each source produced and how many survived de-duplication, how the ground-truth
precondition classified them, what was dropped and why (unknown answers, the per-task budget),
how many adversaries each source produced and what became of them, and how the check count grew.

A *check* in the sense of the published numbers is one test (its expected output), one unexpected
output, or one reject input; ``checks_before``/``checks_after`` count those.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from veriscale.stages.expand.budget import DEFAULT_BACKSTOP_S, DEFAULT_TASK_STEPS, BudgetKind

__all__ = [
    "CANDIDATE_SOURCES",
    "AdversaryCounts",
    "CandidateCounts",
    "Counterexample",
    "ExpandOptions",
    "ExpandSummary",
    "LLMTaskCounts",
    "SubtleCounts",
    "TaskSummary",
    "UnexpectedCounts",
]

CANDIDATE_SOURCES = ("llm", "synthesis", "boundary", "mutation")
"""Sources of new candidate inputs, in the order they are merged (an input's source is the first
that produced it)."""


class ExpandOptions(BaseModel):
    """Knobs of the expansion; the defaults are the published method's where it has one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 42
    synthesis_limit: int = Field(default=200, ge=0)
    """Rows of type-driven synthesis per task."""
    boundary_limit: int = Field(default=120, ge=0)
    """Rows at and around the numbers the specification mentions, whitespace and non-ASCII
    strings, numeric extremes (``generate.boundaries``) per task."""
    mutants_per_seed: int = Field(default=15, ge=0)
    mutation_max_chain: int = Field(default=5, ge=1)
    ingredient_prob: float = Field(default=0.3, ge=0.0, le=1.0)
    max_mutant_adversaries: int = Field(default=60, ge=0)
    """Passed to ``llm_free_adversaries`` as ``max_mutants``."""
    max_subtle_adversaries: int = Field(default=24, ge=0)
    """Subtle mutants (``generate.adversaries.subtle``: wrong only on long, empty, duplicated,
    negative ... inputs, off-by-one counts and indices, second-order changes) that reproduce every
    original test's expected output, added to the kill matrix after the other adversaries. They
    are what ``veriscale refute build`` makes items of: wrong programs the original tests miss."""
    output_mutants_per_test: int = Field(default=6, ge=0)
    """Mutants of each accept input's expected output tried as wrong outputs: near misses
    (off by one, one element dropped or added, ...) alternating with random type-aware mutants."""
    unexpected_cap: int = Field(default=10, ge=0)
    """New unexpected outputs kept per test (the original benchmark's are kept on top)."""
    task_steps: int | None = Field(default=DEFAULT_TASK_STEPS, ge=1)
    """Budget of one task in the engine's evaluation steps (the sum of ``Answer.steps`` over the
    task's checks, plus ``expand.deadline.CHECK_CHARGE_STEPS`` per check), for engines that count
    steps (the embedded one): deterministic, so that two runs with the same seed write the same
    suite on any machine and load. The default is what the
    former 120 s budget allowed on an idle machine (``expand.deadline.STEPS_PER_SECOND``). Past 40%
    of it no more candidates are classified, past 60% no more adversaries are run, past 100% no
    further wrong outputs are proved; whatever is skipped is counted (``dropped_deadline``,
    ``skipped_deadline``, ``unproved_deadline``). ``None``: no step budget."""
    task_deadline_s: float | None = Field(default=120.0, gt=0)
    """Wall-clock budget of one task (same shares), for engines that do not count steps (real
    Lean); such runs can depend on the machine's load. ``None``: no wall-clock budget."""
    task_backstop_s: float | None = Field(default=DEFAULT_BACKSTOP_S, gt=0)
    """Wall-clock safety backstop of one task (same shares) whatever the engine, far above what
    the step budget takes on an idle machine: the one remaining source of non-determinism of a
    step-counting run, reported (``budget_hit == "backstop"``) when it fires. ``None``: none."""
    check_chunk: int = Field(default=128, ge=1)
    """Largest backend batch while classifying candidates (the budget is looked at between
    batches; batches shrink while checks are costly)."""
    llm_inputs: int = Field(default=40, ge=1)
    llm_invalid_share: float = Field(default=0.2, ge=0.0, le=1.0)
    llm_specs: int = Field(default=1, ge=0)
    """Specifications generated per task (from the explicit constraints of the problem model)."""
    llm_impls_per_spec: int = Field(default=5, ge=1)


class CandidateCounts(BaseModel):
    """What became of the candidate inputs of one source."""

    generated: int = 0
    duplicate: int = 0
    """Same canonical input as an original test or reject input, or an earlier candidate."""
    accept: int = 0
    reject: int = 0
    unknown: int = 0
    """The precondition was not decided: dropped."""
    code_unknown: int = 0
    """Accepted, but the reference implementation's output was not established: dropped."""
    postcond_unknown: int = 0
    """The ground-truth postcondition on (input, reference output) was not decided within the
    budget: dropped (a test the ground truth cannot be shown to pass is never written)."""
    postcond_false: int = 0
    """The reference output falsifies the ground-truth postcondition: a counterexample to the
    task's ``spec_satisfied`` (see ``TaskSummary.counterexamples``), never written."""
    dropped_deadline: int = 0
    """Not classified (or not run) because the task's budget was spent: dropped."""

    def add(self, other: CandidateCounts) -> None:
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class AdversaryCounts(BaseModel):
    """What became of the adversaries of one source (template, mutant, llm)."""

    generated: int = 0
    unsafe: int = 0
    """Rejected by the safety screen; never run."""
    all_unknown: int = 0
    """No answer on any accept input (does not compile or evaluate here): discarded."""
    equivalent: int = 0
    """Same output as the reference on every accept input it answered: discarded."""
    skipped_deadline: int = 0
    kept: int = 0
    """Differ from the reference on at least one accept input: in the kill matrix."""
    killed: int = 0
    """Kept and killed by at least one test."""

    def add(self, other: AdversaryCounts) -> None:
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class SubtleCounts(BaseModel):
    """The subtle adversaries of one task (``generate.adversaries.subtle``): how many were tried
    on the original tests before the kill matrix, and what became of them there."""

    candidates: int = 0
    """Generated (first-order subtle mutants; second-order ones are counted when tried)."""
    tried: int = 0
    """Run on the original tests."""
    caught_by_original: int = 0
    """Differ from an expected output of an original test: not worth the whole suite."""
    undecided: int = 0
    """Some run on an original test was undecided: not used."""
    passed: int = 0
    """Reproduce every original expected output: sent to the kill matrix (up to the cap)."""
    not_tried_budget: int = 0
    """Not tried because the task's budget was spent."""

    def add(self, other: SubtleCounts) -> None:
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class UnexpectedCounts(BaseModel):
    original: int = 0
    """Unexpected outputs of the original benchmark (all kept)."""
    original_not_rejected: int = 0
    """Of those, how many the ground-truth postcondition accepts (decided true): not wrong at all."""
    original_unknown: int = 0
    """Of those, how many the ground truth could not decide here."""
    from_adversaries: int = 0
    """New unexpected outputs written, produced by an adversary and proved wrong."""
    from_output_mutation: int = 0
    """New unexpected outputs written, from mutating the expected output and proved wrong."""
    proved_wrong: int = 0
    """Distinct (input, wrong output) pairs proved wrong, before the per-test cap."""
    postcond_accepted: int = 0
    """Distinct (input, differing output) pairs the ground truth accepts (another correct output)."""
    postcond_unknown: int = 0
    """Distinct (input, differing output) pairs the ground truth could not decide."""
    unproved_deadline: int = 0
    """Of the postcondition-undecided pairs, how many were not asked because the budget was spent."""
    output_mutants_tried: int = 0

    def add(self, other: UnexpectedCounts) -> None:
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class LLMTaskCounts(BaseModel):
    requests: int = 0
    """HTTP requests sent (retries included)."""
    cache_hits: int = 0
    bad_replies: dict[str, int] = Field(default_factory=dict)
    """Replies (or elements of replies) that did not parse, by reason."""
    failures: dict[str, int] = Field(default_factory=dict)
    """Replies that were empty, refusals or truncated."""
    errors: list[str] = Field(default_factory=list)
    """Calls that failed for good (timeouts after retries, rejected requests, token budget)."""

    def add(self, other: LLMTaskCounts) -> None:
        self.requests += other.requests
        self.cache_hits += other.cache_hits
        for mine, theirs in ((self.bad_replies, other.bad_replies), (self.failures, other.failures)):
            for key, value in theirs.items():
                mine[key] = mine.get(key, 0) + value
        self.errors.extend(other.errors)


class Counterexample(BaseModel):
    """An input the precondition accepts on which the reference implementation's output
    falsifies the reference postcondition: the task's ``spec_satisfied`` theorem is false."""

    input: str
    """The input's canonical key (``typed_task.typed_input_key``)."""
    output: str
    """The reference output, as a Lean literal."""
    source: str
    """Where the input came from: ``original`` (a stored test) or a candidate source."""


class TaskSummary(BaseModel):
    """The per-task report (``<task>/summary.json``)."""

    task: str
    status: Literal["expanded", "error"] = "expanded"
    error: str | None = None
    engine: str = ""
    candidates: dict[str, CandidateCounts] = Field(default_factory=dict)
    """By source: ``llm``, ``synthesis``, ``mutation``."""
    unknown_reasons: dict[str, int] = Field(default_factory=dict)
    """Why precondition or reference-output checks of candidates were unknown."""
    tests_original: int = 0
    tests_new: int = 0
    rejects_original: int = 0
    rejects_new: int = 0
    original_inputs_unparsed: int = 0
    """Original tests whose input does not parse at its types (kept as stored, not expanded)."""
    reference_disagreements: int = 0
    """Original tests whose stored expected output the engine computes differently (should be 0)."""
    original_postcond_unknown: int = 0
    """Original tests on which the ground-truth postcondition of (input, expected output) was not
    decided here (kept: they are the benchmark's own)."""
    counterexamples: list[Counterexample] = Field(default_factory=list)
    """Inputs (original or new) where the reference output falsifies the reference
    postcondition: the task is broken. New ones are not written; original ones are kept."""
    adversaries: dict[str, AdversaryCounts] = Field(default_factory=dict)
    """By source: ``template``, ``mutant``, ``llm``, and ``subtle`` (the subtle mutants that passed
    the original tests; their source is ``mutant`` in the kill matrix)."""
    subtle: SubtleCounts = Field(default_factory=SubtleCounts)
    kills: int = 0
    """(adversary, test) pairs in the kill matrix."""
    unexpected: UnexpectedCounts = Field(default_factory=UnexpectedCounts)
    llm: LLMTaskCounts | None = None
    checks_before: int = 0
    checks_after: int = 0
    steps: int | None = None
    """Engine steps of all of the task's checks (``None``: the engine does not count steps)."""
    engine_checks: int = 0
    """Checks sent to the engine."""
    engine_batches: int = 0
    """Batches they were sent in."""
    engine_backstops: int = 0
    """Checks a step-counting engine stopped by its own wall-clock backstop (work its steps do not
    see): load-dependent answers, so this task may come out differently in another run."""
    budget_hit: BudgetKind | None = None
    """Which budget stopped work on this task, if any: ``steps`` (deterministic), ``seconds``
    (wall clock, engine without steps) or ``backstop`` (the wall-clock safety net fired: this task
    may come out differently in another run)."""
    deadline_hit: bool = False
    """Any budget stopped work (``budget_hit`` is set)."""
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the process while expanding the task (for calibrating steps against time)."""


class ExpandSummary(BaseModel):
    """The run's report (``summary.json`` at the top of the output directory)."""

    source: str
    output: str
    engine: str
    seed: int
    tasks_total: int = 0
    tasks_expanded: int = 0
    """Computed by this invocation."""
    tasks_resumed: int = 0
    """Finished by an earlier invocation of the same run (skipped)."""
    tasks_failed: int = 0
    load_failures: list[str] = Field(default_factory=list)
    candidates: dict[str, CandidateCounts] = Field(default_factory=dict)
    adversaries: dict[str, AdversaryCounts] = Field(default_factory=dict)
    subtle: SubtleCounts = Field(default_factory=SubtleCounts)
    unexpected: UnexpectedCounts = Field(default_factory=UnexpectedCounts)
    llm: LLMTaskCounts | None = None
    tests_before: int = 0
    tests_after: int = 0
    rejects_before: int = 0
    rejects_after: int = 0
    unexpected_before: int = 0
    unexpected_after: int = 0
    checks_before: int = 0
    checks_after: int = 0
    growth: float = 0.0
    kills: int = 0
    reference_disagreements: int = 0
    original_postcond_unknown: int = 0
    broken_tasks: list[str] = Field(default_factory=list)
    """Tasks with a counterexample to ``spec_satisfied`` (see each task's ``counterexamples``)."""
    deadline_hits: int = 0
    """Tasks where any budget stopped work."""
    budget_hits: dict[str, int] = Field(default_factory=dict)
    """Tasks by the budget that stopped them (``steps``, ``seconds``, ``backstop``)."""
    task_steps: int | None = None
    task_deadline_s: float | None = None
    task_backstop_s: float | None = None
    """The budgets in force (from the options)."""
    steps: int | None = None
    """Engine steps of every task's checks (``None``: the engine does not count steps)."""
    engine_backstops: int = 0
    """Checks stopped by the engine's own wall-clock backstop, over all tasks."""
    seconds: float = 0.0
    tasks: list[TaskSummary] = Field(default_factory=list)
