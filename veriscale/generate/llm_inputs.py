"""The LLM round of input generation: ask a model for candidate inputs of a task, keep the well-typed.

One request per task (prompt: ``templates/prompts/input_generation.j2``) shows the description,
the ground-truth precondition (the validity boundary the candidates should straddle), the
parameters with their Lean types and how to encode each in JSON, and up to five valid (test) and
five invalid (reject) inputs, and asks for ``n`` candidates (default 40, about 20% meant to be
invalid) as a JSON array of ``{param: value}`` objects.

The reply is read leniently -- JSON in a fenced block or bare, prose around it, an array wrapped
in an object, a reply cut off by ``max_tokens`` (the complete elements are kept) -- and every
element is checked against the signature: exactly the parameter names as keys, each value
readable by :func:`veriscale.lean.codec.parse_value` at its declared type. What fails is dropped and
counted by reason, never raised:

``not-json``            no JSON array in the reply, or an unreadable rest after the last element
``not-object``          an element that is not a JSON object
``wrong-keys``          an object whose keys are not exactly the parameter names
``bad-value: <param>``  a value that does not parse at the parameter's type (the first such)
``duplicate``           the same input (canonically) as an earlier candidate of the reply

Whether a candidate is actually valid is not decided here: the precondition classification
(accept / reject / unknown) is the next stage's job. Candidates equal to the task's existing tests
or reject inputs are kept too (de-duplication across sources happens when they are merged).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from veriscale.lean.codec import ValueParseError, parse_value, render_value, to_json
from veriscale.lean.types import (
    FunType,
    LeanType,
    LeanTypeError,
    NamedType,
    ProdType,
    StructDef,
    parse_structures,
    parse_type,
)
from veriscale.lean.values import FIXED_WIDTH_TYPES, UNIT, Arr, Char, Nat, Pair, Some, Struct
from veriscale.llm import FailureKind, LLMCallError, LLMClient, TokenUsage, render_prompt
from veriscale.task import Task

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_INVALID_SHARE",
    "LLMCandidate",
    "LLMInputResult",
    "build_input_prompt",
    "extract_json_array",
    "generate_llm_inputs",
    "validate_candidates",
]

DEFAULT_CANDIDATES = 40
DEFAULT_INVALID_SHARE = 0.2
MAX_EXAMPLES = 5
TEMPLATE = "input_generation.j2"
SYSTEM_TEMPLATE = "input_generation.system.j2"

# HTTP statuses that say "this request is wrong" (too long a prompt, say), not "the endpoint is":
# the task records the error and the run goes on. Other failures propagate and stop the run.
_TASK_LEVEL_STATUSES = {400, 413, 422}


class LLMCandidate(BaseModel):
    """A well-typed candidate input."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    args: dict[str, Any]
    """Runtime values (:mod:`veriscale.lean.values`) by parameter name, in signature order."""
    key: str
    """The canonical input key (``values.canonical_key``)."""
    raw: dict[str, Any]
    """The object as the model wrote it."""


class LLMInputResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: str
    requested: int
    requested_invalid: int
    candidates: list[LLMCandidate] = Field(default_factory=list)
    received: int = 0
    """Array elements read from the reply (kept + dropped, not counting ``not-json``)."""
    dropped: dict[str, int] = Field(default_factory=dict)
    usage: TokenUsage = TokenUsage(reported=False)
    cost_usd: float | None = None
    cached: bool = False
    llm_failure: FailureKind | None = None
    """``empty``, ``refusal`` or ``truncated`` when the model's reply was one (a truncated reply's
    complete elements are still used)."""
    error: str | None = None
    """Why no request could be made or answered for this task (signature, rejected request)."""
    response_key: str | None = None

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [c.args for c in self.candidates]

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())


# ---------------------------------------------------------------------------------------------
# Prompt


_SAMPLE_SCALARS: dict[str, tuple[Any, ...]] = {
    "Nat": (Nat(2), Nat(0), Nat(5)),
    "Int": (-3, 0, 2),
    "Bool": (True, False, True),
    "Float": (1.5, -0.25, 3.0),
    "Char": (Char("a"), Char("b"), Char("c")),
    "String": ("ab", "", "c d"),
    "Unit": (UNIT, UNIT, UNIT),
    **{name: (cls(7), cls(0), cls(200)) for name, cls in FIXED_WIDTH_TYPES.items()},
}


def _sample_value(ty: LeanType, structs: Mapping[str, StructDef], variant: int = 0, depth: int = 0) -> Any:
    """A small value of ``ty`` (``variant`` picks among a few) to show the model how it is written."""
    if depth > 4:
        raise ValueError("type nested too deeply for an example")
    if isinstance(ty, ProdType):
        return Pair(
            _sample_value(ty.fst, structs, variant, depth + 1),
            _sample_value(ty.snd, structs, variant + 1, depth + 1),
        )
    if not isinstance(ty, NamedType):
        raise ValueError(f"no example for {ty}")
    if not ty.args and ty.name in _SAMPLE_SCALARS:
        return _SAMPLE_SCALARS[ty.name][variant % 3]
    if ty.name in ("List", "Array") and len(ty.args) == 1:
        count = 2 if depth else 3
        items = tuple(_sample_value(ty.args[0], structs, variant + i, depth + 1) for i in range(count))
        return Arr(items) if ty.name == "Array" else items
    if ty.name == "Option" and len(ty.args) == 1:
        return Some(_sample_value(ty.args[0], structs, variant, depth + 1))
    sdef = structs.get(ty.name)
    if sdef is not None:
        fields = sdef.fields_for(ty)
        return Struct(
            sdef.name,
            tuple((f.name, _sample_value(f.type, structs, variant + i, depth + 1)) for i, f in enumerate(fields)),
        )
    raise ValueError(f"no example for {ty}")


def _encoding_hint(ty: LeanType, structs: Mapping[str, StructDef]) -> str:
    """How one parameter's value is written in the JSON answer (what ``parse_value`` reads)."""
    if isinstance(ty, NamedType) and not ty.args:
        if ty.name == "Nat":
            return "a JSON integer, at least 0"
        if ty.name == "Int":
            return "a JSON integer"
        if ty.name in FIXED_WIDTH_TYPES:
            return f"a JSON integer from 0 to {(1 << FIXED_WIDTH_TYPES[ty.name].BITS) - 1}"
        if ty.name == "Bool":
            return "true or false"
        if ty.name == "Float":
            return "a JSON number, e.g. 2.5"
        if ty.name == "String":
            return 'a JSON string holding the text itself (not Lean-quoted), e.g. "ab"'
        if ty.name == "Char":
            return 'a JSON string of exactly one character, e.g. "a"'
    if _plain_json_type(ty):
        # Sequences of plain scalars (nested or not) read as JSON arrays too, which models prefer.
        try:
            sample = _sample_value(ty, structs)
            lean = render_value(sample, ty, structs)
            as_json = json.dumps(_json_form(sample, ty), ensure_ascii=False)
        except (ValueError, LeanTypeError):
            return f"a JSON string holding a Lean literal of type {ty}"
        return (
            f"a JSON string holding a Lean literal, e.g. {json.dumps(lean, ensure_ascii=False)}, "
            f"or a JSON array, e.g. {as_json}"
        )
    if isinstance(ty, NamedType) and ty.args == () and ty.name not in structs:
        return f"a JSON string holding a Lean literal of type {ty}"
    try:
        if isinstance(ty, FunType):
            return 'a JSON string holding a Lean function, e.g. "fun x => x % 2 = 0"'
        lean = render_value(_sample_value(ty, structs), ty, structs)
    except (ValueError, LeanTypeError):
        return f"a JSON string holding a Lean literal of type {ty}"
    return f"a JSON string holding a Lean literal, e.g. {json.dumps(lean, ensure_ascii=False)}"


_PLAIN_SCALARS = {"Nat", "Int", "Bool", "Float", "Char", "String", *FIXED_WIDTH_TYPES}


def _plain_json_type(ty: LeanType) -> bool:
    """``List``/``Array`` whose elements are plain scalars or again such sequences."""
    if not (isinstance(ty, NamedType) and ty.name in ("List", "Array") and len(ty.args) == 1):
        return False
    elem = ty.args[0]
    return (isinstance(elem, NamedType) and not elem.args and elem.name in _PLAIN_SCALARS) or _plain_json_type(elem)


def _json_form(v: Any, ty: LeanType) -> Any:
    """A value of a :func:`_plain_json_type` type as nested JSON arrays of JSON scalars."""
    if _plain_json_type(ty):
        assert isinstance(ty, NamedType)
        return [_json_form(x, ty.args[0]) for x in v]
    return to_json(v, ty)


def _example_rows(
    rows: Sequence[Mapping[str, Any]], types: Mapping[str, LeanType], structs: Mapping[str, StructDef]
) -> list[dict[str, Any]]:
    """Up to five distinct stored rows that parse, as runtime values (stored order)."""
    examples: list[dict[str, Any]] = []
    seen: set[str] = set()
    for row in rows:
        try:
            args = {name: parse_value(row[name], ty, structs) for name, ty in types.items()}
            key = _key(args, types, structs)
        except (KeyError, ValueError, LeanTypeError):
            continue  # a stored row that does not fit its type is not shown as an example
        if key in seen:
            continue
        seen.add(key)
        examples.append(args)
        if len(examples) == MAX_EXAMPLES:
            break
    return examples


def _shown(
    args: Mapping[str, Any], function: str, types: Mapping[str, LeanType], structs: Mapping[str, StructDef]
) -> dict[str, str]:
    as_json = {name: to_json(args[name], ty, structs) for name, ty in types.items()}
    lean_args = " ".join(f"({name} := {render_value(args[name], ty, structs)})" for name, ty in types.items())
    return {
        "json": json.dumps(as_json, ensure_ascii=False),
        "lean": f"{function} {lean_args}".strip(),
    }


def _key(args: Mapping[str, Any], types: Mapping[str, LeanType], structs: Mapping[str, StructDef]) -> str:
    # Same text as values.canonical_key and typed_task.typed_input_key, from runtime values.
    return "\n".join(f"{name} := {render_value(args[name], types[name], structs)}" for name in sorted(types))


def _invalid_count(n: int, invalid_share: float, precond_trivial: bool) -> int:
    if precond_trivial:
        return 0
    return min(n, max(0, round(n * invalid_share)))


def build_input_prompt(
    task: Task,
    *,
    n: int = DEFAULT_CANDIDATES,
    invalid_share: float = DEFAULT_INVALID_SHARE,
    types: Mapping[str, LeanType] | None = None,
    structs: Mapping[str, StructDef] | None = None,
) -> list[dict[str, str]]:
    """The chat messages (system, user) that ask for ``n`` candidate inputs of ``task``."""
    if types is None:
        types = {p.name: parse_type(p.type) for p in task.signature.parameters}
    if structs is None:
        structs = _structures(task)
    precond = task.section("precond").strip()
    trivial = precond in ("", "True")
    n_invalid = _invalid_count(n, invalid_share, trivial)
    signature = task.signature
    params_text = signature.binders_lean()
    valid = _example_rows([t.input for t in task.tests], types, structs)
    invalid = _example_rows([r.input for r in task.reject_inputs], types, structs)
    user = render_prompt(
        TEMPLATE,
        task_name=task.id,
        description=task.description,
        signature=f"def {signature.name} {params_text} : {signature.return_type}".replace("  ", " "),
        parameters=[
            {"name": name, "type": str(ty), "hint": _encoding_hint(ty, structs)} for name, ty in types.items()
        ],
        structures_lean=task.section("task_aux").strip(),
        precond_aux=task.section("precond_aux").strip(),
        precond=precond or "True",
        precond_trivial=trivial,
        valid_examples=[_shown(args, signature.name, types, structs) for args in valid],
        invalid_examples=[_shown(args, signature.name, types, structs) for args in invalid],
        n=n,
        n_valid=n - n_invalid,
        n_invalid=n_invalid,
        keys_json=", ".join(json.dumps(name, ensure_ascii=False) for name in types),
    )
    return [{"role": "system", "content": render_prompt(SYSTEM_TEMPLATE).strip()}, {"role": "user", "content": user}]


def _structures(task: Task) -> dict[str, StructDef]:
    try:
        return parse_structures(task.section("task_aux"))
    except LeanTypeError:
        return {}  # values of the task's own types then fail as bad values, the rest still work


# ---------------------------------------------------------------------------------------------
# Reading the reply

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_DECODER = json.JSONDecoder()


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _read_array(text: str, start: int) -> tuple[list[Any], bool] | None:
    """Read the JSON array opening at ``text[start] == '['`` element by element.

    Returns the elements read and whether the array was closed; ``None`` when not even the first
    element is JSON. Stopping at the first unreadable element keeps everything before it, which is
    what a reply cut off by ``max_tokens`` needs.
    """
    items: list[Any] = []
    pos = _skip_ws(text, start + 1)
    while True:
        if pos >= len(text):
            return items, False
        if text[pos] == "]":
            return items, True
        if items:
            if text[pos] != ",":
                return items, False
            pos = _skip_ws(text, pos + 1)
            if pos < len(text) and text[pos] == "]":  # a trailing comma, as models often write
                return items, True
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except ValueError:
            return (items, False) if items else None
        items.append(value)
        pos = _skip_ws(text, pos)


def _arrays_in(text: str) -> tuple[tuple[list[Any], bool] | None, tuple[list[Any], bool] | None]:
    """The first array of objects, and the first array of anything, found in ``text``."""
    stripped = text.strip()
    try:
        whole = json.loads(stripped)
    except ValueError:
        whole = None
    if isinstance(whole, list):
        return ((whole, True) if not whole or isinstance(whole[0], dict) else None), (whole, True)
    if isinstance(whole, dict):
        for value in whole.values():  # {"inputs": [...]}
            if isinstance(value, list) and value and isinstance(value[0], dict):
                return (value, True), (value, True)
        return ([whole], True), ([whole], True)  # one object where an array was asked for
    first_any: tuple[list[Any], bool] | None = None
    for match in re.finditer(r"\[", text):
        found = _read_array(text, match.start())
        if found is None:
            continue
        if found[0] and isinstance(found[0][0], dict):
            return found, first_any or found
        if first_any is None and (found[0] or found[1]):
            first_any = found
    return None, first_any


def extract_json_array(text: str) -> tuple[list[Any], bool] | None:
    """The JSON array of candidates in a reply, and whether it was complete; ``None`` if none.

    Looks in fenced code blocks first (``json``-tagged ones before others), then in the whole text;
    prefers an array whose first element is an object.
    """
    fences = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    sources = [body for tag, body in fences if tag == "json"] + [body for tag, body in fences if tag != "json"]
    sources.append(text)
    fallback: tuple[list[Any], bool] | None = None
    for source in sources:
        objects, anything = _arrays_in(source)
        if objects is not None:
            return objects
        if fallback is None:
            fallback = anything
    return fallback


def validate_candidates(
    elements: Sequence[Any],
    types: Mapping[str, LeanType],
    structs: Mapping[str, StructDef],
) -> tuple[list[LLMCandidate], Counter[str]]:
    """Check each element against the signature; the well-typed candidates and drop counts."""
    kept: list[LLMCandidate] = []
    dropped: Counter[str] = Counter()
    seen: set[str] = set()
    names = set(types)
    for element in elements:
        if not isinstance(element, dict):
            dropped["not-object"] += 1
            continue
        if set(element) != names:
            dropped["wrong-keys"] += 1
            continue
        args: dict[str, Any] = {}
        bad: str | None = None
        for name, ty in types.items():
            try:
                args[name] = parse_value(element[name], ty, structs)
            except (ValueParseError, ValueError, TypeError, RecursionError):
                bad = name
                break
        if bad is not None:
            dropped[f"bad-value: {bad}"] += 1
            continue
        try:
            key = _key(args, types, structs)
        except (ValueParseError, ValueError):
            dropped[f"bad-value: {next(iter(types))}"] += 1
            continue
        if key in seen:
            dropped["duplicate"] += 1
            continue
        seen.add(key)
        kept.append(LLMCandidate(args=args, key=key, raw=element))
    return kept, dropped


# ---------------------------------------------------------------------------------------------
# The round


def generate_llm_inputs(
    task: Task,
    client: LLMClient,
    *,
    n: int = DEFAULT_CANDIDATES,
    invalid_share: float = DEFAULT_INVALID_SHARE,
    seed: int = 42,
    temperature: float = 1.0,
    max_tokens: int = 8192,
) -> LLMInputResult:
    """One LLM round for ``task``: prompt, call (through the client's cache), read, validate.

    Raises only what should stop the run: :class:`~veriscale.llm.TokenBudgetExceeded`, and
    :class:`~veriscale.llm.LLMCallError` for endpoint-level failures (retries exhausted, 401,
    404, ...). A request the server rejects as malformed for this task (400, 413, 422) is
    recorded in ``error``.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    if not 0 <= invalid_share <= 1:
        raise ValueError("invalid_share must be between 0 and 1")
    precond_trivial = task.section("precond").strip() in ("", "True")
    result = LLMInputResult(
        task=task.id, requested=n, requested_invalid=_invalid_count(n, invalid_share, precond_trivial)
    )
    try:
        types = {p.name: parse_type(p.type) for p in task.signature.parameters}
    except LeanTypeError as exc:
        result.error = f"signature type does not parse: {exc}"
        return result
    structs = _structures(task)
    messages = build_input_prompt(task, n=n, invalid_share=invalid_share, types=types, structs=structs)
    try:
        response = client.complete(messages, temperature=temperature, max_tokens=max_tokens, seed=seed)
    except LLMCallError as exc:
        if exc.kind == "client" and exc.status in _TASK_LEVEL_STATUSES:
            result.error = str(exc)
            return result
        raise
    result.usage = response.usage
    result.cost_usd = response.cost_usd
    result.cached = response.cached
    result.response_key = response.key
    result.llm_failure = response.failure
    if response.failure in ("empty", "refusal"):
        return result
    found = extract_json_array(response.text)
    dropped: Counter[str] = Counter()
    if found is None:
        dropped["not-json"] += 1
        elements: list[Any] = []
    else:
        elements, complete = found
        if not complete:
            dropped["not-json"] += 1  # the unreadable (often cut-off) rest of the array
    kept, invalid = validate_candidates(elements, types, structs)
    dropped.update(invalid)
    result.received = len(elements)
    result.candidates = kept
    result.dropped = dict(sorted(dropped.items()))
    return result

