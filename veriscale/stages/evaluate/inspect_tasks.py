"""CodeGen, SpecGen and ProofGen on any suite as inspect_ai tasks: ``inspect eval veriscale/codegen
-T suite=DIR --model ...`` (``veriscale/specgen``, ``veriscale/proofgen``). ``veriscale eval`` runs
these very tasks (:mod:`veriscale.stages.evaluate.pipeline`).

The dataset is the suite (one sample per task that loads, in id order); each sample's input is
the prompt of :func:`~veriscale.stages.evaluate.prompts.build_prompt` (the shipped templates); the
solver is inspect's ``generate`` (skipped for a task whose prompt cannot be built). The scorer reads the reply strictly
(:func:`~veriscale.stages.evaluate.replies.parse_reply`) and scores the sections with VeriScale's
score stage (:func:`~veriscale.stages.score.score_task`) on the engine ``backend`` names. A reply
that cannot be used (a refusal, an empty or cut-off reply, not the asked format) fails every
metric of the kind with its reason. Each metric's value is its lower bound: an undecided check is
never a pass; the upper bounds and reasons are in the score's metadata. So a ProofGen proof on the
embedded engine, which cannot check proofs, scores 0 with that reason; the Lean backend checks it.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, ContentText, ModelOutput
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from veriscale.backends.base import Backend
from veriscale.benchmark import load_benchmark
from veriscale.llm import classify_choice
from veriscale.stages.evaluate.prompts import (
    DEFAULT_EXAMPLES,
    KIND_METRICS,
    TaskKind,
    build_prompt,
    headers_for,
)
from veriscale.stages.evaluate.replies import ReplyError, parse_reply
from veriscale.stages.score import Submission, score_task
from veriscale.stages.score.scoring import merge_groups
from veriscale.task import Task as LeanTask

__all__ = [
    "PROMPT_ERROR",
    "ask_model",
    "codegen",
    "generation_dataset",
    "generation_scorer",
    "generation_task",
    "proofgen",
    "reply_failure",
    "specgen",
]

PROMPT_ERROR = "prompt_error"
"""Sample metadata key: why the task's prompt could not be built (the sample is then not asked)."""

logger = logging.getLogger(__name__)


@lru_cache(maxsize=4)
def _engine(name: str) -> Backend:
    from veriscale.backends.select import make_backend

    return make_backend(name)


@lru_cache(maxsize=8)
def _suite_tasks(suite: str) -> dict[str, LeanTask]:
    """The suite's tasks that load, by id (cached: the scorer looks each one up again)."""
    load = load_benchmark(Path(suite))
    for failure in load.failures:
        logger.warning("%s: task not loaded: %s", suite, failure)
    return {t.id: t for t in load.tasks}


def _task_ids(tasks: str | list[str] | None) -> set[str] | None:
    if tasks is None:
        return None
    names = tasks.split(",") if isinstance(tasks, str) else tasks
    return {name.strip() for name in names if name.strip()}


def _sample(task: LeanTask, kind: TaskKind, suite: str, examples: int) -> Sample:
    """The task's prompt as a sample; a task whose prompt cannot be built keeps the reason in its
    metadata (and a placeholder input), so that it is scored as failed rather than lost."""
    metadata = {"suite": suite, "task": task.id, "kind": kind}
    try:
        messages = build_prompt(task, kind, examples=examples)
    except Exception as exc:  # noqa: BLE001 - a task whose prompt cannot be built is that task's failure
        return Sample(id=task.id, input=f"(no prompt: {exc})", metadata={**metadata, PROMPT_ERROR: str(exc)})
    chat: list[ChatMessage] = [
        ChatMessageSystem(content=m["content"]) if m["role"] == "system" else ChatMessageUser(content=m["content"])
        for m in messages
    ]
    return Sample(id=task.id, input=chat, metadata=metadata)


def generation_dataset(
    suite: str, kind: TaskKind, *, tasks: str | list[str] | None = None, examples: int = DEFAULT_EXAMPLES
) -> MemoryDataset:
    """One sample per task of ``suite`` (only ``tasks`` when given), its input ``eval``'s prompt."""
    if not Path(suite).is_dir():
        raise FileNotFoundError(f"{suite}: not a suite directory")
    resolved = str(Path(suite).resolve())
    by_id = _suite_tasks(resolved)
    wanted = _task_ids(tasks)
    if wanted is not None and not wanted & set(by_id):
        raise ValueError(f"none of the task ids {', '.join(sorted(wanted))} is a task of {suite}")
    samples = [
        _sample(by_id[task_id], kind, resolved, examples)
        for task_id in sorted(by_id)
        if wanted is None or task_id in wanted
    ]
    return MemoryDataset(samples, name=f"veriscale-{kind}-{Path(resolved).name}")


_FINISH_REASONS = {"max_tokens": "length", "model_length": "length", "content_filter": "content_filter"}
"""inspect's stop reasons under the OpenAI names :func:`~veriscale.llm.classify_choice` reads."""


_OWN_FAILURES = ("llm-error:", "prompt-error:")
"""Reasons ``veriscale eval``'s solver writes into an output's ``error`` itself."""


def _refused(output: ModelOutput) -> bool:
    """A refusal the provider marked: a refusal content part, or refusal stop details."""
    choice = output.choices[0]
    details = getattr(choice, "stop_details", None)
    if details is not None and getattr(details, "type", None) in ("refusal", "content_filter"):
        return True
    content = choice.message.content
    return not isinstance(content, str) and any(isinstance(c, ContentText) and c.refusal for c in content)


def reply_failure(output: ModelOutput) -> str | None:
    """Why the model's output is no answer at all (``refusal``, ``truncated``, ``empty``, a failed
    request), as ``eval`` classifies a reply; ``None`` for a reply to read."""
    if output.error:
        return output.error if output.error.startswith(_OWN_FAILURES) else f"model-error: {output.error}"
    if not output.choices:
        return "empty"
    choice = output.choices[0]
    refusal = "refused" if _refused(output) else None
    return classify_choice(output.completion, _FINISH_REASONS.get(choice.stop_reason), refusal)


def _failed(metrics: tuple[str, ...], reason: str, reply: str) -> Score:
    return Score(
        value={metric: 0.0 for metric in metrics},
        answer=reply,
        explanation=f"no usable reply: {reason}",
        metadata={"reply_error": reason},
    )


def _score_reply(lean_task: LeanTask, kind: TaskKind, reply: str, backend: str) -> Score:
    metrics = KIND_METRICS[kind]
    parsed = parse_reply(reply, headers_for(lean_task, kind))
    if isinstance(parsed, ReplyError):
        return _failed(metrics, parsed.reason, reply)
    submission = Submission(task=lean_task.id, **parsed.sections)
    try:
        results = score_task(lean_task, submission, _engine(backend))
    except Exception as exc:  # noqa: BLE001 - an engine crash on one reply is that reply's failure
        return _failed(metrics, f"internal {type(exc).__name__}: {exc}"[:200], reply)
    task_score = merge_groups(lean_task.id, results)
    bounds = {m: task_score.bound(m) for m in metrics}
    lower = {m: float(b.lower) if b is not None else 0.0 for m, b in bounds.items()}
    unknown = [m for m, b in bounds.items() if b is not None and b.lower != b.upper]
    explanation = "; ".join(task_score.reasons[:5]) or "every check passed"
    if unknown:
        explanation = f"undecided (counted as failed): {', '.join(unknown)}; {explanation}"
    return Score(
        value=lower,
        answer=reply,
        explanation=explanation,
        metadata={"sections": parsed.sections, "score": task_score.model_dump(mode="json")},
    )


@scorer(metrics={"*": [mean(), stderr()]})
def generation_scorer(kind: TaskKind, backend: str = "embedded"):  # noqa: ANN201 - inspect's Scorer
    """Every metric of ``kind`` scored by VeriScale's score stage: its lower bound (1 or 0)."""

    async def score(state: TaskState, target: Target) -> Score:
        metrics = KIND_METRICS[kind]
        if PROMPT_ERROR in state.metadata:
            return _failed(metrics, f"prompt-error: {state.metadata[PROMPT_ERROR]}", "")
        failure = reply_failure(state.output)
        if failure is not None:
            return _failed(metrics, failure, state.output.completion)
        lean_task = _suite_tasks(state.metadata["suite"]).get(state.metadata["task"])
        if lean_task is None:
            return _failed(metrics, f"task {state.metadata['task']} no longer loads", state.output.completion)
        return _score_reply(lean_task, kind, state.output.completion, backend)

    return score


@solver
def ask_model() -> Solver:
    """inspect's ``generate``, except for a sample without a prompt (scored failed, never sent)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if PROMPT_ERROR in state.metadata:
            return state
        return await generate(state)

    return solve


def generation_task(
    kind: TaskKind, suite: str, tasks: str | list[str] | None, examples: int, backend: str
) -> Task:
    """The inspect task of ``kind`` on ``suite`` (what ``veriscale/<kind>`` and ``eval`` run)."""
    return Task(
        dataset=generation_dataset(suite, kind, tasks=tasks, examples=examples),
        solver=ask_model(),
        scorer=generation_scorer(kind, backend=backend),
        name=f"veriscale/{kind}",
    )


@task
def codegen(
    suite: str, tasks: str | list[str] | None = None, examples: int = DEFAULT_EXAMPLES, backend: str = "embedded"
) -> Task:
    """CodeGen on ``suite``: the model writes each task's function; scored on ``code``."""
    return generation_task("codegen", suite, tasks, examples, backend)


@task
def specgen(
    suite: str, tasks: str | list[str] | None = None, examples: int = DEFAULT_EXAMPLES, backend: str = "embedded"
) -> Task:
    """SpecGen on ``suite``: the model writes each task's precondition and postcondition; scored on
    the soundness and completeness metrics."""
    return generation_task("specgen", suite, tasks, examples, backend)


@task
def proofgen(
    suite: str, tasks: str | list[str] | None = None, examples: int = DEFAULT_EXAMPLES, backend: str = "embedded"
) -> Task:
    """ProofGen on ``suite``: the model proves each task's ``spec_satisfied`` theorem; scored on
    ``proof`` (checked by ``backend="lean"``; on the embedded engine it is unknown, so 0 with the
    reason, never a pass)."""
    return generation_task("proofgen", suite, tasks, examples, backend)
