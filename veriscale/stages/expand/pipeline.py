"""``veriscale expand``: one task (:func:`expand_task`) and a whole benchmark (:func:`expand_benchmark`).

Per task, in order (each stage's counts end up in the task's ``summary.json``):

1. with an LLM: one round of candidate inputs (``generate.llm_inputs``);
2. candidates from synthesis and mutation, merged and de-duplicated against the original inputs
   (``expand.candidates``);
3. classification by the ground-truth precondition and expected outputs from the reference
   implementation (``expand.classify``);
4. the original tests' expected outputs are read (and recomputed, to count disagreements), their
   unexpected outputs are judged by the ground-truth postcondition (all are kept);
5. adversaries: ``llm_free_adversaries`` and, with an LLM, the lazy implementations of
   ``generate.llm_adversaries``; de-duplicated by id and by sections;
6. the complete kill matrix over every accept input, wrong outputs proved, output mutants
   (``expand.kills``);
7. the expanded task, ``kill_matrix.json`` and ``summary.json`` (``expand.writer``).

The benchmark driver keeps the run store ``run.sqlite`` in the output directory: a task is
checkpointed (stage ``expand``, payload: its summary) in the same transaction as its kill-matrix
rows, after its files are written, so an interrupted run resumed with the same command skips the
finished tasks and replays every LLM call from the store's cache. The store's kill-matrix table
holds one row per (adversary, accept input) where the adversary's output differs from the
expected one, killed or not (equal outputs are implied). Tasks run on an executor
(:mod:`veriscale.parallel`: local processes or Ray, one backend per worker), largest first.

Determinism: everything is derived from the seed and the task (synthesis, mutation, adversaries,
output mutants, the order of every list), so two runs with the same seed write byte-identical
suites -- whatever the number of workers. Budgets keep that true when they are hit, as long as
the engine counts its work in deterministic steps (``Answer.steps``; the embedded engine does):
the per-task budget is then a number of steps and batches are sized from steps
(:mod:`.deadline`). Two wall-clock limits remain: the per-task wall-clock budget of engines that
do not count steps (real Lean, whose per-check time limit is wall-clock too), and a generous
wall-clock backstop for every engine. A task stopped by either says so in its summary
(``budget_hit``: ``seconds`` or ``backstop``) and may come out differently in another run; so may a
task where the engine stopped a check by its own wall-clock backstop (``engine_backstops``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from veriscale.backends.base import Backend, Check, CheckKind
from veriscale.benchmark import load_benchmark
from veriscale.lean.codec import ValueParseError, render_value
from veriscale.lean.printing import same_as_printed
from veriscale.parallel import (
    Executor,
    LocalExecutor,
    ProgressOption,
    WorkerSetup,
    as_progress,
    worker_memory_limit,
)
from veriscale.stages.expand.budget import TaskBudget
from veriscale.stages.expand.candidates import Candidate, gather_candidates
from veriscale.stages.expand.classify import classify_candidates, unknown_reason
from veriscale.stages.expand.kills import (
    ADVERSARY_TALLIES,
    AcceptInput,
    OutputMutator,
    run_kill_matrix,
    select_unexpected,
)
from veriscale.stages.expand.models import (
    CANDIDATE_SOURCES,
    AdversaryCounts,
    CandidateCounts,
    Counterexample,
    ExpandOptions,
    ExpandSummary,
    LLMTaskCounts,
    SubtleCounts,
    TaskSummary,
    UnexpectedCounts,
)
from veriscale.stages.expand.subtle import select_subtle_adversaries
from veriscale.stages.expand.writer import (
    SUMMARY_FILE,
    build_suite_task,
    kill_matrix_document,
    write_expanded_task,
)
from veriscale.store import KillRow, RunStore, canonical_json
from veriscale.task import Task
from veriscale.typed_task import TypedTask, TypedTaskError, typed_view

if TYPE_CHECKING:
    from veriscale.generate.adversaries import Adversary
    from veriscale.llm import LLMClient, LLMConfig

__all__ = [
    "STAGE",
    "AdversaryProvider",
    "TaskExpansion",
    "default_adversaries",
    "expand_benchmark",
    "expand_task",
]

STAGE = "expand"
"""The checkpoint stage name of a finished task."""

AdversaryProvider = Callable[[Task, ExpandOptions], "list[Adversary]"]
StageCallback = Callable[[str], None]


def default_adversaries(task: Task, options: ExpandOptions) -> list[Adversary]:
    """``llm_free_adversaries`` with the options' seed and mutant cap."""
    from veriscale.generate.adversaries import llm_free_adversaries

    return llm_free_adversaries(task, seed=options.seed, max_mutants=options.max_mutant_adversaries)


def _default_output_mutator() -> OutputMutator:
    from veriscale.generate.adversaries import mutate_outputs

    return mutate_outputs


class TaskExpansion(BaseModel):
    """Everything the driver writes for one task."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: Task
    kill_matrix: dict[str, Any]
    summary: TaskSummary
    kill_rows: list[KillRow]


def _checks(task: Task) -> int:
    return len(task.tests) + sum(len(t.unexpected) for t in task.tests) + len(task.reject_inputs)


# ---------------------------------------------------------------------------------------------
# LLM stages (errors that should not end the run are recorded and the task goes on)


def _is_configuration_error(exc: Exception) -> bool:
    from veriscale.llm import LLMCallError

    return isinstance(exc, LLMCallError) and exc.kind == "client" and exc.status not in (400, 413, 422)


def _llm_inputs(task: Task, client: LLMClient, options: ExpandOptions, counts: LLMTaskCounts) -> list[dict[str, Any]]:
    from veriscale.generate.llm_inputs import generate_llm_inputs
    from veriscale.llm import LLMCallError, TokenBudgetExceeded

    try:
        result = generate_llm_inputs(
            task, client, n=options.llm_inputs, invalid_share=options.llm_invalid_share, seed=options.seed
        )
    except (LLMCallError, TokenBudgetExceeded) as exc:
        if _is_configuration_error(exc):
            raise
        counts.errors.append(f"inputs: {exc}")
        return []
    for reason, n in result.dropped.items():
        counts.bad_replies[f"inputs: {reason}"] = counts.bad_replies.get(f"inputs: {reason}", 0) + n
    if result.llm_failure is not None:
        counts.failures[result.llm_failure] = counts.failures.get(result.llm_failure, 0) + 1
    if result.error:
        counts.errors.append(f"inputs: {result.error}")
    return result.rows


def _llm_adversaries(task: Task, client: LLMClient, options: ExpandOptions, counts: LLMTaskCounts) -> list[Adversary]:
    from veriscale.generate.llm_adversaries import generate_llm_adversaries

    result = generate_llm_adversaries(
        task, client, seed=options.seed, specs=options.llm_specs, impls_per_spec=options.llm_impls_per_spec
    )
    for reason, n in result.bad_replies.items():
        counts.bad_replies[reason] = counts.bad_replies.get(reason, 0) + n
    for kind, n in result.failures.items():
        counts.failures[kind] = counts.failures.get(kind, 0) + n
    counts.errors.extend(result.errors)
    return list(result.adversaries)


# ---------------------------------------------------------------------------------------------
# One task


def expand_task(
    task: Task,
    backend: Backend,
    options: ExpandOptions | None = None,
    *,
    llm_client: LLMClient | None = None,
    adversary_provider: AdversaryProvider | None = None,
    output_mutator: OutputMutator | None = None,
    stage: StageCallback | None = None,
) -> TaskExpansion:
    """Expand one task with ``backend`` as the ground truth's engine (see the module docstring).

    Raises :class:`~veriscale.typed_task.TypedTaskError` when the signature does not parse, and
    LLM configuration errors; everything else about single checks is counted, not raised.
    """
    options = options or ExpandOptions()
    backend.start_unit()
    started = time.perf_counter()
    cpu_started = time.process_time()
    budget = TaskBudget(steps=options.task_steps, seconds=options.task_deadline_s, backstop_s=options.task_backstop_s)
    provider = adversary_provider or default_adversaries
    mutator = output_mutator if output_mutator is not None else _default_output_mutator()
    note = stage or (lambda _name: None)
    summary = TaskSummary(task=task.id, engine=backend.name)
    summary.checks_before = _checks(task)
    summary.tests_original = len(task.tests)
    summary.rejects_original = len(task.reject_inputs)
    view = typed_view(task)

    # 1-3: candidates, classified.
    llm_counts = LLMTaskCounts() if llm_client is not None else None
    llm_rows: list[dict[str, Any]] = []
    requests_before = llm_client.stats.requests if llm_client is not None else 0
    hits_before = llm_client.stats.cache_hits if llm_client is not None else 0
    if llm_client is not None and llm_counts is not None:
        note("llm inputs")
        llm_rows = _llm_inputs(task, llm_client, options, llm_counts)
    note("candidates")
    candidates, counts = gather_candidates(view, options, llm_rows=llm_rows)
    note(f"classify {len(candidates)}")
    classified = classify_candidates(task, backend, candidates, counts, options, budget)
    reasons: Counter[str] = Counter(classified.unknown_reasons)

    # 4: the original tests.
    originals: list[tuple[int, AcceptInput]] = []  # (position in test.json, input)
    parsed = [t for t in view.tests if t.args is not None]
    summary.original_inputs_unparsed = len(view.tests) - len(parsed)
    computed = budget.run(backend, task, [Check(kind=CheckKind.CODE, args=t.args) for t in parsed])
    judged: list[tuple[int, Any]] = []
    for test, answer in zip(parsed, computed, strict=True):
        assert test.args is not None and test.key is not None
        if test.expected_ok:
            expected = test.expected
            if answer.status == "value" and not same_as_printed(answer.value, expected):
                summary.reference_disagreements += 1
        elif answer.status == "value":
            expected = answer.value  # the stored value does not parse: the reference's own output
        else:
            reasons[unknown_reason("code", answer)] += 1
            continue
        originals.append((test.index, AcceptInput(key=test.key, args=test.args, expected=expected, original=True)))
        judged.extend((test.index, value) for _, value in test.unexpected)
    counterexamples = _original_counterexamples(task, backend, budget, originals, view, summary)
    counterexamples += [
        _counterexample(found.candidate.key, found.output, found.candidate.source, view)
        for found in classified.counterexamples
    ]
    unexpected_counts = UnexpectedCounts(original=sum(len(t.unexpected) for t in task.tests))
    if judged:
        by_index = {t.index: t for t in parsed}
        verdicts = budget.run(backend, task, [
            Check(kind=CheckKind.POSTCOND, args=by_index[i].args, output=value) for i, value in judged
        ])
        unexpected_counts.original_not_rejected = sum(a.status == "true" for a in verdicts)
        unexpected_counts.original_unknown = sum(a.status not in ("true", "false") for a in verdicts)

    # 5: adversaries.
    note("adversaries")
    adversaries = list(provider(task, options))
    if llm_client is not None and llm_counts is not None:
        note("llm adversaries")
        adversaries += _llm_adversaries(task, llm_client, options, llm_counts)
        llm_counts.requests = llm_client.stats.requests - requests_before
        llm_counts.cache_hits = llm_client.stats.cache_hits - hits_before
    from veriscale.generate.adversaries import distinct_adversaries

    adversaries = distinct_adversaries(adversaries)
    inputs = [item for _, item in originals]
    subtle: list[Adversary] = []
    if adversary_provider is None and options.max_subtle_adversaries > 0:
        note("subtle adversaries")
        subtle, summary.subtle = select_subtle_adversaries(
            task, backend, inputs, budget, seed=options.seed, cap=options.max_subtle_adversaries, exclude=adversaries
        )

    # 6: the kill matrix over every accept input.
    inputs += [
        AcceptInput(key=candidate.key, args=candidate.args, expected=expected, original=False)
        for candidate, expected in classified.accept
    ]
    note(f"kill matrix {len(adversaries) + len(subtle)}x{len(inputs)}")
    kills = run_kill_matrix(
        task, backend, inputs, adversaries,
        return_type=view.return_type, structs=view.structs, options=options, budget=budget,
        output_mutator=mutator, extra=subtle,
    )

    # 7: the expanded task; test positions: originals where they were, then the new kept inputs.
    position = {i: test for i, (test, _) in enumerate(originals)}
    new_tests: list[tuple[Candidate, Any]] = []
    for offset, (candidate, expected) in enumerate(classified.accept):
        i = len(originals) + offset
        if i in kills.dropped_inputs:
            counts[candidate.source].accept -= 1
            counts[candidate.source].dropped_deadline += 1
            continue
        position[i] = len(task.tests) + len(new_tests)
        new_tests.append((candidate, expected))
    existing = {t.index: [value for _, value in t.unexpected] for t in view.tests}
    chosen = {
        position[i]: select_unexpected(outputs, options.unexpected_cap, existing.get(position[i], ()))
        for i, outputs in kills.wrong.items()
    }
    suite = build_suite_task(view, new_tests, classified.reject, chosen)
    document = kill_matrix_document(
        kills.kept,
        {position[i]: (inputs[i].key, killers) for i, killers in kills.killed_by.items()},
    )

    unexpected_counts.from_adversaries = sum(1 for ws in chosen.values() for w in ws if not w.from_mutation)
    unexpected_counts.from_output_mutation = sum(1 for ws in chosen.values() for w in ws if w.from_mutation)
    for name in ("proved_wrong", "postcond_accepted", "postcond_unknown", "unproved_deadline",
                 "output_mutants_tried"):
        setattr(unexpected_counts, name, getattr(kills.unexpected, name))
    summary.candidates = counts
    summary.unknown_reasons = dict(sorted(reasons.items()))
    summary.counterexamples = counterexamples
    summary.tests_new = len(new_tests)
    summary.rejects_new = len(classified.reject)
    summary.adversaries = {source: kills.counts.get(source, AdversaryCounts()) for source in ADVERSARY_TALLIES}
    summary.kills = kills.kills
    summary.unexpected = unexpected_counts
    summary.llm = llm_counts
    summary.checks_after = _checks(suite)
    summary.steps = budget.steps if budget.counts_steps else None
    summary.engine_checks = budget.checks
    summary.engine_batches = budget.batches
    summary.engine_backstops = budget.engine_backstops
    summary.budget_hit = budget.hit_kind
    summary.deadline_hit = budget.hit
    summary.seconds = round(time.perf_counter() - started, 3)
    summary.cpu_seconds = round(time.process_time() - cpu_started, 3)
    return TaskExpansion(task=suite, kill_matrix=document, summary=summary, kill_rows=kills.kill_rows)


def _counterexample(key: str, output: Any, source: str, view: TypedTask) -> Counterexample:
    try:
        text = render_value(output, view.return_type, view.structs)
    except ValueParseError:
        text = repr(output)
    return Counterexample(input=key, output=text, source=source)


def _original_counterexamples(
    task: Task,
    backend: Backend,
    budget: TaskBudget,
    originals: Sequence[tuple[int, AcceptInput]],
    view: TypedTask,
    summary: TaskSummary,
) -> list[Counterexample]:
    """The ground-truth postcondition on each original test's (input, expected output): falsified
    ones are counterexamples, undecided ones are counted (both are kept in the suite)."""
    verdicts = budget.run(backend, task, [
        Check(kind=CheckKind.POSTCOND, args=item.args, output=item.expected) for _, item in originals
    ])
    found: list[Counterexample] = []
    for (_, item), answer in zip(originals, verdicts, strict=True):
        if answer.status == "false":
            found.append(_counterexample(item.key, item.expected, "original", view))
        elif answer.status != "true":
            summary.original_postcond_unknown += 1
    return found


def _failed_expansion(task: Task, error: str, engine: str, seconds: float) -> TaskExpansion:
    """The original task unchanged (so the suite stays complete), its summary saying why."""
    summary = TaskSummary(task=task.id, status="error", error=error, engine=engine, seconds=round(seconds, 3))
    summary.checks_before = summary.checks_after = _checks(task)
    summary.tests_original = len(task.tests)
    summary.rejects_original = len(task.reject_inputs)
    return TaskExpansion(task=task, kill_matrix={"adversaries": [], "tests": []}, summary=summary, kill_rows=[])


# ---------------------------------------------------------------------------------------------
# Workers

_WORKER: dict[str, Any] = {}


def _worker_init(
    backend_name: str,
    options: ExpandOptions,
    llm: LLMConfig | None,
    store_path: str | None,
    adversary_provider: AdversaryProvider | None,
    output_mutator: OutputMutator | None,
) -> None:
    from veriscale.backends.select import make_backend

    _WORKER.clear()
    _WORKER["backend"] = make_backend(backend_name)
    _WORKER["options"] = options
    _WORKER["provider"] = adversary_provider
    _WORKER["mutator"] = output_mutator
    _WORKER["client"] = None
    if llm is not None:
        from veriscale.llm import LLMClient

        store = RunStore(store_path) if store_path is not None else None
        _WORKER["client"] = LLMClient(llm, store)


def _worker_expand(task: Task, stage: StageCallback | None = None) -> TaskExpansion:
    backend: Backend = _WORKER["backend"]
    started = time.perf_counter()
    try:
        return expand_task(
            task, backend, _WORKER["options"], llm_client=_WORKER["client"],
            adversary_provider=_WORKER["provider"], output_mutator=_WORKER["mutator"], stage=stage,
        )
    except TypedTaskError as exc:
        return _failed_expansion(task, exc.reason, backend.name, time.perf_counter() - started)
    except Exception as exc:
        if _is_configuration_error(exc):
            raise
        return _failed_expansion(task, f"{type(exc).__name__}: {exc}", backend.name, time.perf_counter() - started)


def _worker_close() -> None:
    backend = _WORKER.get("backend")
    if backend is not None:
        backend.close()
    client = _WORKER.get("client")
    if client is not None and client.store is not None:
        client.store.close()
    _WORKER.clear()


# ---------------------------------------------------------------------------------------------
# A benchmark


def _run_config(source: Path, engine: str, options: ExpandOptions, llm: LLMConfig | None) -> dict[str, Any]:
    """What a resumption must match (never the API key or the endpoint's address)."""
    return {
        "command": "expand",
        "source": str(source.resolve()),
        "engine": engine,
        "options": options.model_dump(mode="json", exclude={"seed"}),
        "llm_model": llm.model if llm is not None else None,
    }


def _finished(store: RunStore, out_dir: Path, task: Task, redo_llm_errors: bool) -> TaskSummary | None:
    """The summary of a task finished by an earlier invocation, or ``None`` to (re)compute it."""
    checkpoint = store.get(task.id, STAGE)
    if checkpoint is None or not (out_dir / task.id / SUMMARY_FILE).is_file():
        return None
    summary = TaskSummary.model_validate_json(checkpoint.payload_json)
    if redo_llm_errors and summary.llm is not None and summary.llm.errors:
        return None  # the LLM failed for this task last time: try again (answered calls replay)
    return summary


def _aggregate(summary: ExpandSummary, tasks: list[TaskSummary]) -> None:
    summary.tasks = sorted(tasks, key=lambda s: s.task)
    summary.candidates = {source: CandidateCounts() for source in CANDIDATE_SOURCES}
    summary.adversaries = {source: AdversaryCounts() for source in ADVERSARY_TALLIES}
    summary.subtle = SubtleCounts()
    summary.unexpected = UnexpectedCounts()
    llm_total: LLMTaskCounts | None = None
    for task in summary.tasks:
        for source, counts in task.candidates.items():
            summary.candidates.setdefault(source, CandidateCounts()).add(counts)
        for source, adversaries in task.adversaries.items():
            summary.adversaries.setdefault(source, AdversaryCounts()).add(adversaries)
        summary.subtle.add(task.subtle)
        summary.unexpected.add(task.unexpected)
        if task.llm is not None:
            llm_total = llm_total or LLMTaskCounts()
            llm_total.add(task.llm)
        summary.tests_before += task.tests_original
        summary.tests_after += task.tests_original + task.tests_new
        summary.rejects_before += task.rejects_original
        summary.rejects_after += task.rejects_original + task.rejects_new
        summary.checks_before += task.checks_before
        summary.checks_after += task.checks_after
        summary.kills += task.kills
        summary.reference_disagreements += task.reference_disagreements
        summary.original_postcond_unknown += task.original_postcond_unknown
        if task.counterexamples:
            summary.broken_tasks.append(task.task)
        summary.deadline_hits += int(task.deadline_hit)
        if task.budget_hit is not None:
            summary.budget_hits[task.budget_hit] = summary.budget_hits.get(task.budget_hit, 0) + 1
        if task.steps is not None:
            summary.steps = (summary.steps or 0) + task.steps
        summary.engine_backstops += task.engine_backstops
    summary.unexpected_before = summary.checks_before - summary.tests_before - summary.rejects_before
    summary.unexpected_after = summary.checks_after - summary.tests_after - summary.rejects_after
    summary.budget_hits = dict(sorted(summary.budget_hits.items()))
    summary.llm = llm_total
    summary.growth = round(summary.checks_after / summary.checks_before, 2) if summary.checks_before else 0.0


def expand_benchmark(
    src_dir: str | Path,
    out_dir: str | Path,
    *,
    seed: int = 42,
    backend_name: str = "embedded",
    llm: LLMConfig | None = None,
    jobs: int | None = None,
    progress: ProgressOption = None,
    options: ExpandOptions | None = None,
    executor: Executor | None = None,
    task_ids: Sequence[str] | None = None,
    adversary_provider: AdversaryProvider | None = None,
    output_mutator: OutputMutator | None = None,
    redo_llm_errors: bool = True,
) -> ExpandSummary:
    """Expand every task of the benchmark ``src_dir`` into the suite directory ``out_dir``.

    Resumable: run it again with the same arguments and finished tasks are skipped (their
    summaries come from the run store), no answered LLM request is sent again, and a task whose
    LLM calls failed last time is retried (``redo_llm_errors``). A resumption with different
    settings raises :class:`~veriscale.store.RunMismatchError`. ``adversary_provider`` and
    ``output_mutator`` replace the LLM-free generators (module-level functions, so that worker
    processes can receive them). Tasks run on ``executor`` (default: ``jobs`` local worker
    processes, one per core without it). Raises :class:`~veriscale.backends.select.BackendUnavailable`
    when the engine cannot run here.
    """
    from veriscale.backends.select import resolve_backend_name

    started = time.perf_counter()
    source, target = Path(src_dir), Path(out_dir)
    if target.resolve() == source.resolve() or source.resolve() in target.resolve().parents:
        raise ValueError(f"the output directory {target} must not be the benchmark {source} or inside it")
    engine = resolve_backend_name(backend_name)
    options = (options or ExpandOptions()).model_copy(update={"seed": seed})
    loaded = load_benchmark(source)
    wanted = set(task_ids) if task_ids is not None else None
    tasks = [t for t in loaded.tasks if wanted is None or t.id in wanted]
    failures = [f for f in loaded.failures if wanted is None or f.task in wanted]  # only the selected tasks
    summary = ExpandSummary(source=str(source), output=str(target), engine=engine, seed=seed,
                            tasks_total=len(tasks), load_failures=[str(e) for e in failures],
                            task_steps=options.task_steps, task_deadline_s=options.task_deadline_s,
                            task_backstop_s=options.task_backstop_s)
    target.mkdir(parents=True, exist_ok=True)
    store = RunStore.open(target)
    try:
        store.start_run(_run_config(source, engine, options, llm), seed, command="expand")
        finished: list[TaskSummary] = []
        todo: list[Task] = []
        for task in tasks:
            done = _finished(store, target, task, redo_llm_errors and llm is not None)
            if done is not None:
                finished.append(done)
            else:
                todo.append(task)
        summary.tasks_resumed = len(finished)
        # Biggest tasks first keeps every worker busy until the end.
        todo.sort(key=lambda t: (-(len(t.tests) + len(t.reject_inputs)), t.id))
        computed = _run_tasks(todo, store, target, engine, options, llm, executor or LocalExecutor(jobs),
                              progress, adversary_provider, output_mutator)
        summary.tasks_expanded = sum(s.status == "expanded" for s in computed)
        summary.tasks_failed = sum(s.status == "error" for s in computed)
        _aggregate(summary, finished + computed)
        summary.seconds = round(time.perf_counter() - started, 2)
        (target / SUMMARY_FILE).write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
        store.finish_session()
    finally:
        store.close()
    return summary


def _record(store: RunStore, out_dir: Path, expansion: TaskExpansion) -> None:
    """Write a task's files, then checkpoint it with its kill rows in one transaction."""
    write_expanded_task(out_dir, expansion.task, expansion.kill_matrix, expansion.summary)
    if expansion.summary.status != "expanded":
        return  # not checkpointed: the next invocation tries again
    with store.transaction():
        store.delete_kills(expansion.summary.task)
        store.add_kills(expansion.kill_rows)
        store.mark_done(expansion.summary.task, STAGE, canonical_json(expansion.summary.model_dump(mode="json")))


def _run_tasks(
    tasks: list[Task],
    store: RunStore,
    out_dir: Path,
    engine: str,
    options: ExpandOptions,
    llm: LLMConfig | None,
    executor: Executor,
    progress: ProgressOption,
    adversary_provider: AdversaryProvider | None,
    output_mutator: OutputMutator | None,
) -> list[TaskSummary]:
    """Expand ``tasks`` on ``executor``'s workers, recording each as soon as it is finished."""
    if not tasks:
        return []
    # Workers open the run store themselves, for the LLM cache (the store is safe to share).
    store_path = str(store.path) if llm is not None else None
    setup = WorkerSetup(_worker_init, (engine, options, llm, store_path, adversary_provider, output_mutator),
                        _worker_close)
    report = as_progress(progress, "expand")
    done = 0

    def record(_index: int, expansion: TaskExpansion) -> None:
        nonlocal done
        _record(store, out_dir, expansion)
        done += 1
        if report is not None:
            report(done, len(tasks))

    def crashed(task: Task, reason: str) -> TaskExpansion:
        return _failed_expansion(task, reason, engine, 0.0)

    expansions = executor.map(_worker_expand, tasks, setup=setup, crashed=crashed, on_result=record,
                              memory_limit=worker_memory_limit(engine))
    return [expansion.summary for expansion in expansions]
