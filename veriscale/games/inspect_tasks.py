"""Both games as inspect_ai tasks: ``inspect eval veriscale/refute -T build=DIR --model ...`` and
``inspect eval veriscale/falsify -T build=DIR --model ...``.

Datasets come from the build directories (``refute build``, ``falsify build``); the solvers run
the same sessions as the LLM-free players (:class:`~veriscale.games.refute.game.RefuteSession`,
:class:`~veriscale.games.falsify.game.FalsifySession`), with the run-the-wrong-program feedback as
an inspect tool; the scorers judge the recorded answers again with VeriScale's engine. Users get
inspect's model providers, caching, retries and log viewer. :func:`run_refute_model` and
:func:`run_falsify_model` wrap ``inspect_ai.eval`` for ``veriscale refute run --model`` and
``veriscale falsify run --model``: they skip items already in the run's transcripts (resumable)
and write the transcripts and the games' metrics.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, Model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolDef

from veriscale.backends.base import Backend
from veriscale.games.common import TranscriptStore
from veriscale.games.falsify.build import FalsifyGame, load_games
from veriscale.games.falsify.game import (
    FalsifyJudge,
    FalsifySession,
    FalsifySettings,
    GameResult,
    falsify_metrics,
    falsify_prompt,
)
from veriscale.games.refute.build import RefuteItem, load_items
from veriscale.games.refute.game import ItemResult, RefuteJudge, RefuteSession, RefuteSettings, refute_metrics
from veriscale.task import Task as LeanTask
from veriscale.task import load_task

__all__ = ["falsify", "refute", "run_falsify_model", "run_refute_model"]

TRANSCRIPTS_FILE = "transcripts.jsonl"


@lru_cache(maxsize=1)
def _engine() -> Backend:
    from veriscale.backends.select import make_backend

    return make_backend("embedded")


@lru_cache(maxsize=256)
def _task(suite: str, task_id: str) -> LeanTask:
    return load_task(Path(suite) / task_id)


def _suite(build: Path) -> str:
    return str(json.loads((build / "build.json").read_text(encoding="utf-8"))["suite"])


class _Result(Protocol):
    def to_json(self) -> dict[str, Any]: ...


class _Session(Protocol):
    """What the solvers need of a game session (REFUTE's and FalsifyBench's have it)."""

    @property
    def done(self) -> bool: ...

    @property
    def result(self) -> _Result: ...


async def _play(
    state: TaskState, generate: Generate, session: _Session, respond: Callable[[str], str], **options: Any
) -> TaskState:
    """The model's turns until the session is over: each reply goes to ``respond``, whose text
    is the next user message (none after the last reply); the session's record goes to the
    state's ``result`` metadata, which the scorer reads. ``options`` are ``generate``'s."""
    while not session.done:
        state = await generate(state, **options)
        text = respond(state.output.completion)
        if not session.done:
            state.messages.append(ChatMessageUser(content=text))
    state.metadata["result"] = session.result.to_json()
    return state


# ---------------------------------------------------------------------------------------------
# REFUTE


def _refute_judge(state: TaskState) -> RefuteJudge:
    item = RefuteItem.from_json(state.metadata["item"])
    return RefuteJudge(_task(state.metadata["suite"], item.task), item, _engine())


def _feedback_tool(session: RefuteSession) -> ToolDef:
    async def run_wrong_program(input: str) -> str:
        return session.feedback(input)

    return ToolDef(
        run_wrong_program,
        name="run_wrong_program",
        description="Run the wrong implementation on an input and see its output and whether the input is valid.",
        parameters={"input": "The input: a JSON object with a value for each parameter."},
    )


@solver
def refute_solver(attempts: int = 1, feedback_calls: int = 0):  # noqa: ANN201 - inspect's Solver
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        session = RefuteSession(
            _refute_judge(state), RefuteSettings(attempts=attempts, feedback_calls=feedback_calls)
        )
        session.prompt()
        if feedback_calls:
            state.tools = [_feedback_tool(session)]
        # The feedback tool's calls are answered inside one generate (tool_calls="loop").
        return await _play(state, generate, session, session.answer, tool_calls="loop")

    return solve


@scorer(metrics=[accuracy(), stderr()])
def refute_scorer():  # noqa: ANN201 - inspect's Scorer
    """Judges every recorded attempt again with the engine: correct when one is a refutation."""

    async def score(state: TaskState, target: Target) -> Score:
        judge = _refute_judge(state)
        result: dict[str, Any] = dict(state.metadata.get("result") or _unfinished_refute(judge))
        verdicts = [judge.judge(a["reply"]).verdict for a in result.get("attempts", [])]
        solved_at = next((n for n, v in enumerate(verdicts, 1) if v == "success"), None)
        result["solved_at"] = solved_at
        return Score(
            value=CORRECT if solved_at is not None else INCORRECT,
            answer=json.dumps(result["attempts"][-1]["reply"]) if result.get("attempts") else "",
            explanation=", ".join(verdicts) or "no answer",
            metadata=result,
        )

    return score


def _unfinished_refute(judge: RefuteJudge) -> dict[str, Any]:
    """The record of an item the solver did not finish (inspect's message limit ended it): a failure."""
    record = ItemResult.of(judge.item).to_json()
    return {**record, "note": "ended before an answer (message limit)"}


def refute_dataset(
    build: Path, *, skip: set[str] | frozenset[str] = frozenset(), feedback_calls: int = 0
) -> MemoryDataset:
    suite = _suite(build)
    samples = [
        Sample(
            id=item.id,
            input=_prompt_of(suite, item, feedback_calls),
            metadata={"item": item.to_json(), "suite": suite},
        )
        for item in load_items(build)
        if item.id not in skip
    ]
    return MemoryDataset(samples, name="veriscale-refute")


def _prompt_of(suite: str, item: RefuteItem, feedback_calls: int) -> str:
    from veriscale.games.refute.game import refute_prompt

    return refute_prompt(_task(suite, item.task), item, feedback_calls=feedback_calls)


@task
def refute(build: str, attempts: int = 1, feedback_calls: int = 0) -> Task:
    """REFUTE items of a ``veriscale refute build`` directory."""
    return _refute_task(Path(build), attempts, feedback_calls)


def _refute_task(
    build: Path, attempts: int, feedback_calls: int, *, skip: set[str] | frozenset[str] = frozenset(),
    name: str | None = None,
) -> Task:
    return Task(
        dataset=refute_dataset(build, skip=skip, feedback_calls=feedback_calls),
        solver=refute_solver(attempts=attempts, feedback_calls=feedback_calls),
        scorer=refute_scorer(),
        message_limit=4 * (attempts + feedback_calls) + 8,
        name=name,
    )


# ---------------------------------------------------------------------------------------------
# FalsifyBench


def _falsify_judge(state: TaskState) -> FalsifyJudge:
    game = FalsifyGame.from_json(state.metadata["game"])
    return FalsifyJudge(_task(state.metadata["suite"], game.task), game, _engine())


@solver
def falsify_solver(max_turns: int = 20, max_guesses: int = 2):  # noqa: ANN201 - inspect's Solver
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        session = FalsifySession(
            _falsify_judge(state), FalsifySettings(max_turns=max_turns, max_guesses=max_guesses)
        )
        session.start()
        return await _play(state, generate, session, lambda reply: session.step(reply).text)

    return solve


@scorer(metrics=[accuracy(), stderr()])
def falsify_scorer():  # noqa: ANN201 - inspect's Scorer
    """Judges the submitted final rules again with the engine: correct when one is the rule."""

    async def score(state: TaskState, target: Target) -> Score:
        judge = _falsify_judge(state)
        result: dict[str, Any] = dict(state.metadata.get("result") or _unfinished_falsify(judge))
        rules = [f["rule"] for f in result.get("finals", [])]
        correct = any(judge.judge_rule(rule).correct for rule in rules)
        result["success"] = correct
        return Score(
            value=CORRECT if correct else INCORRECT,
            answer=rules[-1] if rules else "",
            explanation=f"{len(rules)} final rule(s), {result.get('turns', 0)} test(s)",
            metadata=result,
        )

    return score


def _unfinished_falsify(judge: FalsifyJudge) -> dict[str, Any]:
    record = GameResult(judge.game.id, judge.game.task).to_json()
    return {**record, "note": "ended before the game did (message limit)"}


def falsify_dataset(
    build: Path, settings: FalsifySettings, *, skip: set[str] | frozenset[str] = frozenset()
) -> MemoryDataset:
    suite = _suite(build)
    samples = [
        Sample(
            id=game.id,
            input=falsify_prompt(_task(suite, game.task), game, settings),
            metadata={"game": game.to_json(), "suite": suite},
        )
        for game in load_games(build)
        if game.id not in skip
    ]
    return MemoryDataset(samples, name="veriscale-falsify")


@task
def falsify(build: str, max_turns: int = 20, max_guesses: int = 2) -> Task:
    """FalsifyBench games of a ``veriscale falsify build`` directory."""
    return _falsify_task(Path(build), FalsifySettings(max_turns=max_turns, max_guesses=max_guesses))


def _falsify_task(
    build: Path, settings: FalsifySettings, *, skip: set[str] | frozenset[str] = frozenset(), name: str | None = None
) -> Task:
    return Task(
        dataset=falsify_dataset(build, settings, skip=skip),
        solver=falsify_solver(max_turns=settings.max_turns, max_guesses=settings.max_guesses),
        scorer=falsify_scorer(),
        message_limit=2 * (settings.max_turns + settings.max_guesses) + 4,
        name=name,
    )


# ---------------------------------------------------------------------------------------------
# Wrappers for `veriscale refute run --model` / `falsify run --model`


def _eval_and_collect(
    inspect_task: Task, model: str | Model, out: Path, store: TranscriptStore, limit: int | None
) -> None:
    from inspect_ai import eval as inspect_eval

    if len(inspect_task.dataset) == 0:
        return
    logs = inspect_eval(
        inspect_task, model=model, log_dir=str(out / "logs"), display="none", limit=limit, fail_on_error=False
    )
    for log in logs:
        for sample in log.samples or []:
            scores = sample.scores or {}
            if not scores:
                continue  # the sample failed (an API error, say): played again on the next run
            record = next(iter(scores.values())).metadata or {}
            if record:
                record = {**record, "item": str(sample.id)}
                store.append(record)


def _run_model(
    out: Path,
    model: str | Model,
    limit: int | None,
    make_task: Callable[[set[str]], Task],
    metrics_of: Callable[[Iterable[dict[str, Any]]], dict[str, Any]],
) -> dict[str, Any]:
    """Plays the items that have no transcript in ``out`` yet (``make_task`` gets their ids to
    skip), at most ``limit`` items in all, then writes ``metrics.json`` over every transcript."""
    store = TranscriptStore(out / TRANSCRIPTS_FILE)
    skip = set(store.done())
    inspect_task = make_task(skip)
    remaining = None if limit is None else max(0, limit - len(skip))
    if remaining != 0:
        _eval_and_collect(inspect_task, model, out, store, remaining)
    metrics = metrics_of(store.done().values())
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    return metrics


def run_refute_model(
    build: Path,
    out: Path,
    model: str | Model,
    *,
    attempts: int = 1,
    feedback_calls: int = 0,
    limit: int | None = None,
) -> dict[str, Any]:
    return _run_model(
        out, model, limit,
        lambda skip: _refute_task(build, attempts, feedback_calls, skip=skip, name="veriscale-refute"),
        lambda records: refute_metrics(records, attempts),
    )


def run_falsify_model(
    build: Path, out: Path, model: str | Model, *, settings: FalsifySettings, limit: int | None = None
) -> dict[str, Any]:
    return _run_model(
        out, model, limit,
        lambda skip: _falsify_task(build, settings, skip=skip, name="veriscale-falsify"),
        falsify_metrics,
    )
