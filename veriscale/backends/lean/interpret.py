"""From REPL messages to answers. Pure functions: no processes here.

Messages are attributed to checks by line (each check's snippet occupies known lines of the batch
command) and read by severity: an ``error`` anywhere in a snippet means the check did not produce
a result. The value of an ``#eval`` is the data of the *last* info message on the ``#eval`` line:
``#eval`` first logs whatever the evaluated code printed (``dbg_trace``, panics), then the value.
The whole message is kept, over as many lines as Lean printed, never just its last line.

The only places where message *text* is read are the ones Lean offers no structure for, each
named by a constant below: the result of ``#print axioms``, Plausible's counterexample report,
and telling a missing ``Decidable`` instance from other elaboration errors (which only chooses
between the reasons ``undecidable`` and ``error``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from veriscale.backends.base import Answer, UnknownReason
from veriscale.backends.lean.protocol import ReplMessage
from veriscale.backends.lean.snippets import Snippet

ENGINE = "lean"
ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
"""A proof is accepted only if it depends on no axioms beyond these (Lean's standard three)."""

PLAUSIBLE_COUNTEREXAMPLE_MARKERS = ("Found a counter-example", "Found problems!")
"""How Plausible's error begins when it found a counterexample (current and older wording)."""

NO_AXIOMS_TEXT = "does not depend on any axioms"
DETAIL_LIMIT = 600


@dataclass
class SnippetResult:
    """What the REPL said about one snippet (lines relative to the snippet), or why it could not."""

    messages: list[ReplMessage] = field(default_factory=list)
    failure: str | None = None
    """``None`` when the REPL answered; otherwise ``"timeout"``, ``"crashed"``, ...."""
    detail: str = ""

    @property
    def errors(self) -> list[ReplMessage]:
        return [m for m in self.messages if m.is_error]

    @classmethod
    def failed(cls, kind: str, detail: str) -> SnippetResult:
        return cls(failure=kind, detail=detail)


def split_messages(messages: Sequence[ReplMessage], snippets: Sequence[Snippet]) -> list[SnippetResult]:
    """Attribute each message of a batch command to the snippet whose lines contain it.

    Snippets are joined with single newlines, so snippet ``k`` starts on line
    ``1 + sum(line_count of the previous snippets)``.
    """
    starts = []
    line = 1
    for snippet in snippets:
        starts.append(line)
        line += snippet.line_count
    results = [SnippetResult() for _ in snippets]
    for message in messages:
        for position in range(len(snippets) - 1, -1, -1):
            if message.pos.line >= starts[position]:
                if message.pos.line < starts[position] + snippets[position].line_count:
                    results[position].messages.append(message.shifted(starts[position] - 1))
                break
    return results


def join_snippets(snippets: Sequence[Snippet]) -> str:
    return "\n".join(snippet.text for snippet in snippets)


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= DETAIL_LIMIT else text[:DETAIL_LIMIT] + " ..."


def failure_answer(result: SnippetResult) -> Answer:
    reason = UnknownReason.TIMEOUT if result.failure == "timeout" else UnknownReason.ERROR
    return Answer.unknown(reason, _clip(f"{result.failure}: {result.detail}"), ENGINE)


# ---------------------------------------------------------------------------------------------
# #eval checks


@dataclass(frozen=True)
class EvalOutcome:
    """``text`` is the printed value; otherwise ``answer`` (a failure) or ``error`` (elaboration)."""

    text: str | None = None
    answer: Answer | None = None
    error: str | None = None


def read_eval(result: SnippetResult, snippet: Snippet) -> EvalOutcome:
    if result.failure is not None:
        return EvalOutcome(answer=failure_answer(result))
    errors = result.errors
    if errors:
        return EvalOutcome(error=_clip("\n".join(m.data for m in errors)))
    values = [m for m in result.messages if m.severity == "info" and m.pos.line == snippet.result_line]
    if not values:
        return EvalOutcome(answer=Answer.unknown(UnknownReason.ERROR, "#eval printed no value", ENGINE))
    return EvalOutcome(text=values[-1].data)


def bool_answer(text: str) -> Answer:
    value = text.strip()
    if value == "true":
        return Answer.of_bool(True, ENGINE)
    if value == "false":
        return Answer.of_bool(False, ENGINE)
    return Answer.unknown(UnknownReason.ERROR, _clip(f"decide printed {value!r}, not a Bool"), ENGINE)


def value_answer(text: str, parse: Any, return_type: str) -> Answer:
    try:
        value = parse(text, return_type)
    except Exception as exc:  # the codec raises ValueError subclasses; anything else is a bug there
        return Answer.unknown(
            UnknownReason.ERROR, _clip(f"cannot read the printed value as {return_type}: {exc}: {text}"), ENGINE
        )
    return Answer.of_value(value, ENGINE)


def looks_undecidable(error: str) -> bool:
    """Whether a failed ``decide`` failed for want of a computable ``Decidable`` instance."""
    return ("Decidable" in error and "synthesize" in error) or "propDecidable" in error


# ---------------------------------------------------------------------------------------------
# #print axioms

_AXIOM_LIST = re.compile(r"depends on axioms:\s*\[(?P<names>[^\]]*)\]", re.S)


def parse_axioms(text: str) -> set[str] | None:
    """The axiom names in ``#print axioms`` output, or None when the text is not such output."""
    if NO_AXIOMS_TEXT in text:
        return set()
    match = _AXIOM_LIST.search(text)
    if match is None:
        return None
    return {name.strip() for name in match.group("names").split(",") if name.strip()}


def axioms_at(result: SnippetResult, line: int) -> set[str] | None:
    for message in result.messages:
        if message.severity == "info" and message.pos.line == line:
            axioms = parse_axioms(message.data)
            if axioms is not None:
                return axioms
    return None


# ---------------------------------------------------------------------------------------------
# Plausible probes

ProbeVerdict = Literal["proved", "refuted", "inconclusive", "error", "failed"]


@dataclass(frozen=True)
class ProbeOutcome:
    verdict: ProbeVerdict
    detail: str = ""
    timeout: bool = False


def read_probe(result: SnippetResult, snippet: Snippet) -> ProbeOutcome:
    """``refuted``: Plausible found a counterexample. ``proved``: the theorem was accepted without
    ``sorryAx`` (``simp_all!`` closed it). ``inconclusive``: no counterexample, goal admitted."""
    if result.failure is not None:
        return ProbeOutcome("failed", f"{result.failure}: {result.detail}", timeout=result.failure == "timeout")
    errors = result.errors
    if any(marker in m.data for m in errors for marker in PLAUSIBLE_COUNTEREXAMPLE_MARKERS):
        return ProbeOutcome("refuted", _clip(next(m.data for m in errors)))
    if errors:
        return ProbeOutcome("error", _clip("\n".join(m.data for m in errors)))
    axioms = axioms_at(result, snippet.result_line)
    if axioms is None:
        return ProbeOutcome("error", "#print axioms printed nothing")
    if "sorryAx" in axioms:
        return ProbeOutcome("inconclusive", "Plausible found no counterexample")
    return ProbeOutcome("proved")


def combine_probes(positive: ProbeOutcome, negative: ProbeOutcome, decide_error: str) -> Answer:
    """The answer for a proposition from its two probes (for ``P`` and for ``¬ P``)."""
    says_true = positive.verdict == "proved" or negative.verdict == "refuted"
    says_false = positive.verdict == "refuted" or negative.verdict == "proved"
    if says_true and says_false:
        return Answer.unknown(
            UnknownReason.ERROR, _clip(f"contradictory probes: {positive.detail} / {negative.detail}"), ENGINE
        )
    if says_true:
        return Answer.of_bool(True, ENGINE)
    if says_false:
        return Answer.of_bool(False, ENGINE)
    if positive.timeout or negative.timeout:
        return Answer.unknown(UnknownReason.TIMEOUT, _clip(f"Plausible fallback timed out; decide: {decide_error}"), ENGINE)
    if positive.verdict == "inconclusive" or negative.verdict == "inconclusive" or looks_undecidable(decide_error):
        return Answer.unknown(
            UnknownReason.UNDECIDABLE,
            _clip(f"decide failed ({decide_error}); Plausible found no counterexample"),
            ENGINE,
        )
    return Answer.unknown(UnknownReason.ERROR, _clip(f"decide failed: {decide_error}; probe: {positive.detail}"), ENGINE)


def decide_failed_answer(decide_error: str) -> Answer:
    """The answer when ``decide`` failed and no fallback is run."""
    reason = UnknownReason.UNDECIDABLE if looks_undecidable(decide_error) else UnknownReason.ERROR
    return Answer.unknown(reason, _clip(decide_error), ENGINE)
