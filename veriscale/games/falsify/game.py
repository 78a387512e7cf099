"""The FalsifyBench game on a task's hidden precondition (a Wason 2-4-6 game over Lean predicates).

The player is shown the signature (parameter names and types, not the description, which would
give the rule away) and one positive example. Each turn it replies with a JSON object, either

* ``{"hypothesis": LEAN_PREDICATE, "expectation": "yes"|"no", "input": {param: value, ...}}``:
  its current hypothesis (a Lean proposition over the parameters), what it expects the hidden rule
  to say, and an input; it is told ``yes`` or ``no`` (the hidden rule decided by the engine); or
* ``{"final": LEAN_PREDICATE}``: a final rule. It is judged by the engine against every judging
  input of the game: it must be decided and agree with the hidden rule on all of them. A wrong
  final rule costs a guess; the game goes on while turns and guesses remain.

Budgets: ``max_turns`` proposals and ``max_guesses`` final rules. A reply that is not one of the
two shapes, or an input that does not parse, costs a turn and gets an error message.

Metrics per game: success, turns (proposals made before the successful rule), guesses,
positive-testing bias (share of proposals expected to be "yes") and conclusive falsifications (a
proposal whose expectation was contradicted, after which the player's hypothesis changed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from veriscale.backends.base import Backend, Check, CheckKind
from veriscale.games.common import InputError, extract_json_object, parse_input, signature_text
from veriscale.games.falsify.build import FalsifyGame
from veriscale.lean.safety import screen_sections
from veriscale.task import Task
from veriscale.typed_task import TypedTask, typed_view

__all__ = [
    "FalsifyJudge",
    "FalsifySession",
    "FalsifySettings",
    "Move",
    "Observation",
    "falsify_metrics",
    "falsify_prompt",
    "parse_move",
    "play_game",
]


@dataclass(frozen=True)
class Move:
    kind: Literal["propose", "final", "invalid"]
    hypothesis: str = ""
    expectation: bool | None = None
    input: Any = None
    error: str = ""


def parse_move(reply: Any) -> Move:
    """A player's reply (text or object) as a move; ``invalid`` with the reason when it is neither shape."""
    try:
        obj = extract_json_object(reply) if isinstance(reply, str) else reply
    except InputError as exc:
        return Move("invalid", error=str(exc))
    if not isinstance(obj, dict):
        return Move("invalid", error="the reply must be a JSON object")
    if isinstance(obj.get("final"), str) and obj["final"].strip():
        return Move("final", hypothesis=obj["final"].strip())
    hypothesis, expectation, given = obj.get("hypothesis"), obj.get("expectation"), obj.get("input")
    if not isinstance(hypothesis, str) or not isinstance(given, dict):
        return Move("invalid", error='expected {"hypothesis", "expectation", "input"} or {"final"}')
    if expectation not in ("yes", "no", True, False):
        return Move("invalid", error='"expectation" must be "yes" or "no"')
    return Move("propose", hypothesis.strip(), expectation in ("yes", True), given)


@dataclass(frozen=True)
class RuleVerdict:
    correct: bool
    agree: int
    disagree: int
    undecided: int
    detail: str = ""


class FalsifyJudge:
    """Answers proposals with the hidden rule and judges final rules, with the engine."""

    def __init__(self, task: Task, game: FalsifyGame, backend: Backend) -> None:
        self.task = task
        self.game = game
        self.backend = backend
        self.view: TypedTask = typed_view(task)
        self._judging = [
            parse_input(row["input"], self.view.param_types, self.view.structs) for row in game.judging
        ]

    def answer(self, raw_input: Any) -> bool | None | str:
        """The hidden rule on an input: True/False, None when undecided, or an error text."""
        try:
            args = parse_input(raw_input, self.view.param_types, self.view.structs)
        except InputError as exc:
            return f"error: {exc}"
        [verdict] = self.backend.run(self.task, [Check(kind=CheckKind.PRECOND, args=args)])
        return {"true": True, "false": False}.get(verdict.status)

    def rule_task(self, rule: str) -> Task | str:
        screened = screen_sections({"precond": rule}, origin="final rule")
        if not screened.ok:
            return "rejected by the safety screen: " + "; ".join(str(f) for f in screened.findings[:2])
        return self.task.with_sections(precond=f"  {rule}\n")

    def evaluate(self, rule: str, inputs: list[dict[str, Any]]) -> list[bool | None] | str:
        """A candidate rule's verdicts on runtime inputs (None where undecided), or why it cannot run."""
        candidate = self.rule_task(rule)
        if isinstance(candidate, str):
            return candidate
        answers = self.backend.run(candidate, [Check(kind=CheckKind.PRECOND, args=a) for a in inputs])
        return [{"true": True, "false": False}.get(a.status) for a in answers]

    def judge_rule(self, rule: str) -> RuleVerdict:
        verdicts = self.evaluate(rule, self._judging)
        if isinstance(verdicts, str):
            return RuleVerdict(False, 0, 0, len(self._judging), verdicts)
        labels = [row["label"] for row in self.game.judging]
        agree = sum(1 for v, label in zip(verdicts, labels, strict=True) if v is label)
        undecided = sum(1 for v in verdicts if v is None)
        disagree = len(labels) - agree - undecided
        return RuleVerdict(disagree == 0 and undecided == 0, agree, disagree, undecided)


def falsify_prompt(task: Task, game: FalsifyGame, settings: FalsifySettings) -> str:
    view = typed_view(task)
    names = ", ".join(f'"{p.name}"' for p in task.signature.parameters)
    return (
        "We are playing a rule-discovery game. A hidden rule decides which inputs of the Lean 4 function\n"
        f"  {signature_text(view)}\n"
        "are valid. The rule is a Lean 4 proposition over the parameters.\n\n"
        f"This input satisfies the rule: {json.dumps(game.positive, ensure_ascii=False)}\n\n"
        "Each turn, reply with one JSON object (in a ```json block):\n"
        '  {"hypothesis": "<your current guess at the rule, a Lean proposition>", "expectation": "yes" or "no", '
        f'"input": {{{names}: values}}}}\n'
        "to test an input (you are told whether it satisfies the rule), or\n"
        '  {"final": "<the rule, a Lean proposition over the parameters>"}\n'
        "to submit the rule. It is correct when it agrees with the hidden rule on a large set of inputs.\n"
        f"You have {settings.max_turns} test(s) and {settings.max_guesses} final guess(es)."
    )


@dataclass(frozen=True)
class FalsifySettings:
    max_turns: int = 20
    max_guesses: int = 2


@dataclass(frozen=True)
class Observation:
    text: str
    answer: bool | None = None
    """The hidden rule's answer to the last proposal (None: none, or undecided)."""
    last: Move | None = None


class FalsifyPlayer(Protocol):
    def act(self, observation: Observation) -> Any:
        """A reply: text holding a JSON object, or the object itself."""
        ...


@dataclass
class GameResult:
    game: str
    task: str
    success: bool = False
    turns: int = 0
    guesses: int = 0
    turns_to_solution: int | None = None
    proposals: list[dict[str, Any]] = field(default_factory=list)
    finals: list[dict[str, Any]] = field(default_factory=list)
    invalid: int = 0
    transcript: list[dict[str, Any]] = field(default_factory=list)

    @property
    def positive_bias(self) -> float | None:
        stated = [p for p in self.proposals if p["expectation"] is not None]
        return round(sum(1 for p in stated if p["expectation"]) / len(stated), 4) if stated else None

    @property
    def conclusive_falsifications(self) -> int:
        """Proposals whose expectation was contradicted and after which the hypothesis changed
        (the next stated hypothesis or final rule differs)."""
        statements = [(p["hypothesis"], p) for p in self.proposals] + [
            (f["rule"], None) for f in self.finals[:1]
        ]
        count = 0
        for position, proposal in enumerate(self.proposals):
            contradicted = proposal["answer"] is not None and proposal["answer"] != proposal["expectation"]
            following = next((h for h, _ in statements[position + 1 :]), None)
            if contradicted and following is not None and _norm(following) != _norm(proposal["hypothesis"]):
                count += 1
        return count

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.game,
            "task": self.task,
            "success": self.success,
            "turns": self.turns,
            "guesses": self.guesses,
            "turns_to_solution": self.turns_to_solution,
            "positive_bias": self.positive_bias,
            "conclusive_falsifications": self.conclusive_falsifications,
            "invalid": self.invalid,
            "proposals": self.proposals,
            "finals": self.finals,
            "transcript": self.transcript,
        }


def _norm(text: str) -> str:
    return " ".join(text.split())


class FalsifySession:
    """One game being played: the rules of the loop, shared by :func:`play_game` (scripted
    players) and the inspect solver (models)."""

    def __init__(self, judge: FalsifyJudge, settings: FalsifySettings) -> None:
        self.judge = judge
        self.settings = settings
        self.result = GameResult(judge.game.id, judge.game.task)
        self.done = False
        self.replies = 0

    def start(self) -> Observation:
        observation = Observation(falsify_prompt(self.judge.task, self.judge.game, self.settings))
        self.result.transcript.append({"role": "environment", "text": observation.text})
        return observation

    def step(self, reply: Any) -> Observation:
        """Play one reply; the next observation (check ``done`` afterwards)."""
        result, settings = self.result, self.settings
        self.replies += 1
        result.transcript.append(
            {"role": "player", "reply": reply if isinstance(reply, (str, dict)) else repr(reply)}
        )
        observation = self._step(parse_move(reply))
        # every reply costs a turn or a guess, so the loop is bounded by both budgets
        if self.replies >= settings.max_turns + settings.max_guesses:
            self.done = True
        result.transcript.append({"role": "environment", "text": observation.text})
        return observation

    def _step(self, move: Move) -> Observation:
        result, settings = self.result, self.settings
        if move.kind == "final":
            result.guesses += 1
            verdict = self.judge.judge_rule(move.hypothesis)
            result.finals.append({"rule": move.hypothesis, **verdict.__dict__})
            if verdict.correct:
                result.success = True
                result.turns_to_solution = result.turns
                self.done = True
                return Observation("Correct: that is the rule.", last=move)
            if result.guesses >= settings.max_guesses:
                self.done = True
                return Observation("That is not the rule, and no guesses are left.", last=move)
            note = f" ({verdict.detail})" if verdict.detail else ""
            return Observation(f"That is not the rule{note}. Keep testing or guess again.", last=move)
        if result.turns >= settings.max_turns:
            result.invalid += 1
            return Observation('No tests left: submit {"final": ...}.', last=move)
        result.turns += 1
        if move.kind == "invalid":
            result.invalid += 1
            return Observation(f"Invalid reply: {move.error}. That used a test.", last=move)
        answer = self.judge.answer(move.input)
        if isinstance(answer, str):
            result.invalid += 1
            return Observation(f"Invalid input: {answer[len('error: ') :]}. That used a test.", last=move)
        result.proposals.append(
            {
                "hypothesis": move.hypothesis,
                "expectation": move.expectation,
                "input": move.input,
                "answer": answer,
            }
        )
        text = {True: "yes", False: "no", None: "unknown (the rule could not be decided on this input)"}[
            answer
        ]
        return Observation(text, answer=answer, last=move)


def play_game(judge: FalsifyJudge, player: FalsifyPlayer, settings: FalsifySettings) -> GameResult:
    session = FalsifySession(judge, settings)
    observation = session.start()
    while not session.done:
        observation = session.step(player.act(observation))
    return session.result


def falsify_metrics(results: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(results)
    won = [r for r in rows if r["success"]]
    biases = [r["positive_bias"] for r in rows if r["positive_bias"] is not None]

    def mean(values: list[float]) -> float | None:
        return round(sum(values) / len(values), 4) if values else None

    return {
        "games": len(rows),
        "solved": len(won),
        "success_rate": round(len(won) / len(rows), 4) if rows else 0.0,
        "mean_turns_to_solution": mean([float(r["turns_to_solution"]) for r in won]),
        "mean_turns": mean([float(r["turns"]) for r in rows]),
        "mean_guesses": mean([float(r["guesses"]) for r in rows]),
        "positive_bias": mean(biases),
        "conclusive_falsifications": sum(r["conclusive_falsifications"] for r in rows),
        "mean_conclusive_falsifications": mean([float(r["conclusive_falsifications"]) for r in rows]),
        "invalid_replies": sum(r["invalid"] for r in rows),
    }
