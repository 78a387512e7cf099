"""The REFUTE game: find an input on which a wrong implementation is wrong.

The player sees the task's description, signature and precondition and the wrong code, and
answers with an input, a JSON object by parameter name. An attempt *succeeds* only when

1. the input parses at the parameter types (every parameter, nothing else);
2. the precondition is decided true on it;
3. the reference and the wrong program both produce a value, and they differ;
4. the ground-truth postcondition is decided false on the wrong output.

Anything undecided (``unknown``, a timeout) is a failure with its reason, never a success.

Settings: ``attempts`` (k answers per item, in one dialogue: after a failed attempt the player is
told why and may try again) and ``feedback_calls`` (how often the player may run the wrong
program on an input of its choice before answering; the tool reports the output and whether the
precondition holds). A *player* is any object with :meth:`Player.act`; LLM-free baselines and the
scripted test players use this loop, models play through inspect (:mod:`veriscale.games.inspect_tasks`),
which calls the same :class:`RefuteJudge`.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from veriscale.backends.base import Backend, Check, CheckKind
from veriscale.games.common import (
    InputError,
    answer_text,
    extract_json_object,
    parse_input,
    precondition_text,
    signature_text,
)
from veriscale.games.refute.build import RefuteItem
from veriscale.games.refute.difficulty import BUCKETS
from veriscale.lean.printing import same_as_printed
from veriscale.task import Task
from veriscale.typed_task import TypedTask, typed_view

__all__ = [
    "Action",
    "Attempt",
    "ItemResult",
    "Player",
    "RefuteJudge",
    "RefuteSession",
    "RefuteSettings",
    "Verdict",
    "play_item",
    "refute_metrics",
    "refute_prompt",
]

Verdict = Literal[
    "success",
    "malformed",  # no JSON object in the reply
    "invalid_input",  # not an input of the task (parameters, types)
    "precondition_false",
    "precondition_unknown",
    "not_different",  # the wrong program agrees with the reference there
    "postcondition_holds",  # differs, but the ground truth accepts the wrong output
    "unknown",  # an output or the postcondition undecided
]


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    detail: str = ""
    wrong_output: str | None = None
    expected_output: str | None = None

    @property
    def success(self) -> bool:
        return self.verdict == "success"


class RefuteJudge:
    """Decides attempts on one item with the engine (the task's reference and ground truth)."""

    def __init__(self, task: Task, item: RefuteItem, backend: Backend) -> None:
        self.task = task
        self.item = item
        self.backend = backend
        self.view: TypedTask = typed_view(task)
        self.wrong_task = task.with_sections(**item.sections)

    def parse(self, raw: Any) -> dict[str, Any]:
        """Runtime arguments from a reply: text holding a JSON object, or the object itself."""
        obj = extract_json_object(raw) if isinstance(raw, str) else raw
        if not isinstance(obj, dict):
            raise InputError("the input must be a JSON object by parameter name")
        if set(obj) == {"input"} and isinstance(obj["input"], dict):
            obj = obj["input"]
        return parse_input(obj, self.view.param_types, self.view.structs)

    def judge(self, raw: Any) -> Judgement:
        try:
            args = self.parse(raw)
        except InputError as exc:
            verdict: Verdict = "malformed" if "no JSON object" in str(exc) else "invalid_input"
            return Judgement(verdict, str(exc))
        return self.judge_args(args)

    def judge_args(self, args: dict[str, Any]) -> Judgement:
        pre, reference = self.backend.run(
            self.task, [Check(kind=CheckKind.PRECOND, args=args), Check(kind=CheckKind.CODE, args=args)]
        )
        if pre.status == "false":
            return Judgement("precondition_false", "the precondition is false on this input")
        if pre.status != "true":
            return Judgement(
                "precondition_unknown", f"the precondition is undecided: {answer_text(pre, self.view)}"
            )
        [wrong] = self.backend.run(self.wrong_task, [Check(kind=CheckKind.CODE, args=args)])
        if reference.status != "value" or wrong.status != "value":
            return Judgement(
                "unknown",
                f"reference {answer_text(reference, self.view)}, wrong program {answer_text(wrong, self.view)}",
            )
        shown = answer_text(wrong, self.view)
        expected = answer_text(reference, self.view)
        if same_as_printed(wrong.value, reference.value):
            return Judgement(
                "not_different", "the wrong program returns the correct output here", shown, expected
            )
        [post] = self.backend.run(self.task, [Check(kind=CheckKind.POSTCOND, args=args, output=wrong.value)])
        if post.status == "false":
            return Judgement("success", "", shown, expected)
        if post.status == "true":
            return Judgement("postcondition_holds", "the output differs but is also correct", shown, expected)
        return Judgement(
            "unknown", f"the postcondition is undecided: {answer_text(post, self.view)}", shown, expected
        )

    def judge_batch(self, raws: Sequence[Any]) -> list[Judgement]:
        """:meth:`judge` on many replies with a few engine batches (for players whose inputs do
        not depend on the answers): the same rules, each input judged on its own."""
        out: list[Judgement | None] = [None] * len(raws)
        parsed: dict[int, dict[str, Any]] = {}
        for position, raw in enumerate(raws):
            try:
                parsed[position] = self.parse(raw)
            except InputError as exc:
                out[position] = Judgement(
                    "malformed" if "no JSON object" in str(exc) else "invalid_input", str(exc)
                )
        order = list(parsed)
        checks = [
            Check(kind=kind, args=parsed[p]) for p in order for kind in (CheckKind.PRECOND, CheckKind.CODE)
        ]
        answers = self.backend.run(self.task, checks)
        valid: list[int] = []
        reference: dict[int, Any] = {}
        for index, position in enumerate(order):
            pre, ref = answers[2 * index], answers[2 * index + 1]
            reference[position] = ref
            if pre.status == "false":
                out[position] = Judgement("precondition_false", "the precondition is false on this input")
            elif pre.status != "true":
                out[position] = Judgement(
                    "precondition_unknown", f"the precondition is undecided: {answer_text(pre, self.view)}"
                )
            else:
                valid.append(position)
        wrong = self.backend.run(self.wrong_task, [Check(kind=CheckKind.CODE, args=parsed[p]) for p in valid])
        differing: list[tuple[int, Any, str, str]] = []
        for position, answer in zip(valid, wrong, strict=True):
            ref = reference[position]
            if ref.status != "value" or answer.status != "value":
                detail = (
                    f"reference {answer_text(ref, self.view)}, wrong program {answer_text(answer, self.view)}"
                )
                out[position] = Judgement("unknown", detail)
                continue
            shown, expected = answer_text(answer, self.view), answer_text(ref, self.view)
            if same_as_printed(answer.value, ref.value):
                detail = "the wrong program returns the correct output here"
                out[position] = Judgement("not_different", detail, shown, expected)
            else:
                differing.append((position, answer.value, shown, expected))
        posts = self.backend.run(
            self.task, [Check(kind=CheckKind.POSTCOND, args=parsed[p], output=v) for p, v, _, _ in differing]
        )
        for (position, _, shown, expected), post in zip(differing, posts, strict=True):
            if post.status == "false":
                out[position] = Judgement("success", "", shown, expected)
            elif post.status == "true":
                out[position] = Judgement(
                    "postcondition_holds", "the output differs but is also correct", shown, expected
                )
            else:
                detail = f"the postcondition is undecided: {answer_text(post, self.view)}"
                out[position] = Judgement("unknown", detail, shown, expected)
        return [j if j is not None else Judgement("unknown", "not judged") for j in out]

    def run_wrong(self, raw: Any) -> str:
        """The feedback tool: the wrong program's output on an input, and whether the input is valid."""
        try:
            args = self.parse(raw)
        except InputError as exc:
            return f"error: {exc}"
        pre = self.backend.run(self.task, [Check(kind=CheckKind.PRECOND, args=args)])[0]
        [out] = self.backend.run(self.wrong_task, [Check(kind=CheckKind.CODE, args=args)])
        valid = {"true": "holds", "false": "does not hold"}.get(pre.status, "is undecided")
        return f"output: {answer_text(out, self.view)}; the precondition {valid} on this input"


def wrong_code_text(task: Task, item: RefuteItem) -> str:
    """The wrong implementation as the player sees it: its helpers and its body, in a definition."""
    wrong = task.with_sections(**item.sections)
    view = typed_view(task)
    params = " ".join(f"({p.name} : {p.type})" for p in task.signature.parameters)
    aux = wrong.section("code_aux").strip()
    body = wrong.section("code").rstrip()
    head = f"def {task.signature.name} {params} : {view.task.signature.return_type} :=\n"
    return (aux + "\n\n" if aux else "") + head + body


def refute_prompt(task: Task, item: RefuteItem, *, feedback_calls: int = 0) -> str:
    view = typed_view(task)
    names = ", ".join(f'"{p.name}"' for p in task.signature.parameters)
    tool = (
        f"\nYou may call the tool `run_wrong_program` up to {feedback_calls} time(s) to see what the wrong "
        "implementation returns on an input of your choice.\n"
        if feedback_calls
        else ""
    )
    return (
        "The following Lean 4 implementation is subtly wrong: it passes the official tests, but some valid "
        "input makes it return a wrong output. Find such an input.\n\n"
        f"## Problem\n{task.description.strip()}\n\n"
        f"## Signature\n{signature_text(view)}\n\n"
        f"## Precondition (every valid input satisfies it)\n{precondition_text(view)}\n\n"
        f"## Wrong implementation\n```lean\n{wrong_code_text(task, item)}\n```\n"
        f"{tool}\n"
        f"Answer with one JSON object giving a value for each parameter ({names}); write lists and other "
        'Lean values as JSON arrays or as Lean literals in strings (e.g. "[1, 2]"). Put the JSON in a '
        "```json block."
    )


@dataclass(frozen=True)
class Action:
    """A player's move: ``answer`` an input, or ``feedback`` (run the wrong program on an input)."""

    kind: Literal["answer", "feedback"]
    payload: Any
    """The reply text or a JSON object by parameter name."""


class Player(Protocol):
    def act(self, observation: str) -> Action:
        """The next move given the last message of the environment (the prompt first)."""
        ...


@dataclass
class Attempt:
    reply: Any
    verdict: Verdict
    detail: str
    wrong_output: str | None = None
    expected_output: str | None = None


@dataclass
class ItemResult:
    item: str
    task: str
    bucket: str
    kind: str
    suite_share: float
    pool_rate: float
    attempts: list[Attempt] = field(default_factory=list)
    feedback_used: int = 0
    transcript: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, item: RefuteItem) -> ItemResult:
        """The empty record of playing ``item``."""
        return cls(item.id, item.task, item.bucket, item.kind, item.suite_share, item.pool_rate)

    @property
    def solved_at(self) -> int | None:
        """1-based attempt that succeeded, or None."""
        for number, attempt in enumerate(self.attempts, 1):
            if attempt.verdict == "success":
                return number
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "task": self.task,
            "bucket": self.bucket,
            "kind": self.kind,
            "suite_share": self.suite_share,
            "pool_rate": self.pool_rate,
            "solved_at": self.solved_at,
            "feedback_used": self.feedback_used,
            "attempts": [a.__dict__ for a in self.attempts],
            "transcript": self.transcript,
        }


@dataclass(frozen=True)
class RefuteSettings:
    attempts: int = 1
    feedback_calls: int = 0
    max_moves: int | None = None
    """Moves (answers + feedback calls) before the item ends; default attempts + feedback_calls."""


class RefuteSession:
    """One item being played: the rules of the loop, shared by :func:`play_item` (LLM-free players)
    and the inspect solver (models), so both are judged and budgeted the same way."""

    def __init__(self, judge: RefuteJudge, settings: RefuteSettings) -> None:
        self.judge = judge
        self.settings = settings
        self.result = ItemResult.of(judge.item)
        self.done = False

    def prompt(self) -> str:
        text = refute_prompt(self.judge.task, self.judge.item, feedback_calls=self.settings.feedback_calls)
        self.result.transcript.append({"role": "environment", "text": text})
        return text

    def feedback(self, payload: Any) -> str:
        """The run-the-wrong-program tool (counted against ``feedback_calls``)."""
        self.result.transcript.append({"role": "player", "kind": "feedback", "payload": _jsonable(payload)})
        if self.result.feedback_used >= self.settings.feedback_calls:
            text = "No feedback calls left: answer with an input."
        else:
            self.result.feedback_used += 1
            text = self.judge.run_wrong(payload)
        self.result.transcript.append({"role": "environment", "text": text})
        return text

    def answer_batch(self, replies: Sequence[Any]) -> None:
        """Judge a non-adaptive player's next inputs together; record them in order up to the
        first success or the last attempt allowed."""
        if not replies:
            self.done = True
            return
        for reply, judgement in zip(replies, self.judge.judge_batch(replies), strict=True):
            self.result.transcript.append({"role": "player", "kind": "answer", "payload": _jsonable(reply)})
            self._record_attempt(reply, judgement)
            self.done = judgement.success or len(self.result.attempts) >= self.settings.attempts
            if self.done:
                break

    def _record_attempt(self, reply: Any, judgement: Judgement) -> None:
        """The reply as an attempt, with the judge's verdict."""
        self.result.attempts.append(
            Attempt(
                _jsonable(reply),
                judgement.verdict,
                judgement.detail,
                judgement.wrong_output,
                judgement.expected_output,
            )
        )

    def answer(self, reply: Any) -> str:
        """Judge one attempt; the message for the player (``done`` tells whether the item ended)."""
        self.result.transcript.append({"role": "player", "kind": "answer", "payload": _jsonable(reply)})
        judgement = self.judge.judge(reply)
        self._record_attempt(reply, judgement)
        if judgement.success:
            text = "Correct: that input exposes the wrong implementation."
        else:
            text = f"Not a counterexample ({judgement.verdict.replace('_', ' ')}: {judgement.detail})."
            if len(self.result.attempts) < self.settings.attempts:
                text += " Try another input."
        self.done = judgement.success or len(self.result.attempts) >= self.settings.attempts
        self.result.transcript.append({"role": "environment", "text": text})
        return text


BATCH = 64
"""Inputs of a non-adaptive player judged per engine batch."""


def play_item(judge: RefuteJudge, player: Player, settings: RefuteSettings) -> ItemResult:
    session = RefuteSession(judge, settings)
    observation = session.prompt()
    plan = getattr(player, "plan", None)
    if callable(plan) and settings.feedback_calls == 0:
        # A player whose inputs do not depend on the answers: judged in batches, recorded in
        # order up to the first success -- the same attempts the one-by-one loop would record.
        while not session.done:
            session.answer_batch(plan(min(BATCH, settings.attempts - len(session.result.attempts))))
        return session.result
    moves = (
        settings.max_moves if settings.max_moves is not None else settings.attempts + settings.feedback_calls
    )
    for _ in range(moves):
        action = player.act(observation)
        observation = (
            session.feedback(action.payload) if action.kind == "feedback" else session.answer(action.payload)
        )
        if session.done:
            break
    return session.result


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def _rate(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def refute_metrics(results: Iterable[dict[str, Any]], k: int) -> dict[str, Any]:
    """Success rate, pass@j for j = 1..k (solved within the first j attempts), and both by
    difficulty bucket and adversary kind; verdict counts over all attempts."""
    rows = list(results)
    solved = [r for r in rows if r["solved_at"] is not None]

    def summary(group: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {
            "items": len(group),
            "solved": sum(1 for r in group if r["solved_at"] is not None),
            "success_rate": _rate(sum(1 for r in group if r["solved_at"] is not None), len(group)),
            **{
                f"pass@{j}": _rate(
                    sum(1 for r in group if r["solved_at"] is not None and r["solved_at"] <= j), len(group)
                )
                for j in range(1, k + 1)
            },
        }

    by_bucket: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_bucket[row["bucket"]].append(row)
        by_kind[row["kind"]].append(row)
    order = list(BUCKETS)
    verdicts: Counter[str] = Counter(a["verdict"] for r in rows for a in r["attempts"])
    return {
        **summary(rows),
        "feedback_calls": sum(r["feedback_used"] for r in rows),
        "solved_items": len(solved),
        "by_bucket": {b: summary(by_bucket[b]) for b in order if b in by_bucket},
        "by_kind": {kind: summary(by_kind[kind]) for kind in sorted(by_kind)},
        "verdicts": dict(sorted(verdicts.items())),
    }
