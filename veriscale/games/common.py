"""What both games share: reading a model's input reply at the task's parameter types, rendering
inputs back, the Lean text a player is shown, and a small JSONL transcript store."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriscale.backends.base import Answer
from veriscale.lean.codec import ValueParseError, parse_value, render_value, to_json
from veriscale.lean.types import LeanType, StructDef
from veriscale.typed_task import TypedTask

__all__ = [
    "InputError",
    "TranscriptStore",
    "answer_text",
    "extract_json_object",
    "parse_input",
    "precondition_text",
    "read_jsonl",
    "signature_text",
    "stored_input",
]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class InputError(ValueError):
    """A reply that is not an input of the task (not JSON, wrong parameters, a value of the wrong type)."""


def extract_json_object(text: str) -> dict[str, Any]:
    """The JSON object of a reply: the last fenced block that parses, else the whole text, else the
    outermost ``{...}`` span. Raises :class:`InputError` saying why when there is none."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)][::-1]
    candidates.append(text)
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate.strip())
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(value, dict):
            return value
    raise InputError("the reply holds no JSON object")


def parse_input(
    raw: Mapping[str, Any], param_types: Mapping[str, LeanType], structs: Mapping[str, StructDef]
) -> dict[str, Any]:
    """Runtime values by parameter name from ``{name: stored value}``, every parameter exactly once,
    each value read at its declared type (the encodings the benchmark stores are accepted)."""
    missing = [name for name in param_types if name not in raw]
    extra = [name for name in raw if name not in param_types]
    if missing or extra:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if extra:
            parts.append("unknown " + ", ".join(extra))
        raise InputError("parameters: " + "; ".join(parts))
    args: dict[str, Any] = {}
    for name, ty in param_types.items():
        try:
            args[name] = parse_value(raw[name], ty, structs)
        except (ValueParseError, ValueError, TypeError, RecursionError) as exc:
            raise InputError(f"{name}: not a value of type {ty}: {exc}") from exc
    return args


def stored_input(args: Mapping[str, Any], view: TypedTask) -> dict[str, Any]:
    """An input in the benchmark's storage convention, parameters in signature order."""
    return {name: to_json(args[name], ty, view.structs) for name, ty in view.param_types.items()}


def input_text(args: Mapping[str, Any], view: TypedTask) -> str:
    """An input as compact JSON (for prompts and transcripts)."""
    return json.dumps(stored_input(args, view), ensure_ascii=False)


def answer_text(answer: Answer, view: TypedTask) -> str:
    """An engine answer for a player: the value printed as Lean prints it, or why there is none."""
    if answer.status == "value":
        try:
            return render_value(answer.value, view.return_type, view.structs)
        except (ValueParseError, ValueError, TypeError):
            return repr(answer.value)
    if answer.status in ("true", "false"):
        return answer.status
    reason = answer.reason.value if answer.reason is not None else "unknown"
    return f"unknown ({reason})"


def signature_text(view: TypedTask) -> str:
    task = view.task
    params = " ".join(f"({p.name} : {p.type})" for p in task.signature.parameters)
    return f"{task.signature.name} {params} : {task.signature.return_type}"


def precondition_text(view: TypedTask) -> str:
    """The precondition as the player sees it: its helpers, then its body."""
    aux = view.task.section("precond_aux").strip()
    body = view.task.section("precond").strip()
    return (aux + "\n\n" if aux else "") + body


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


@dataclass
class TranscriptStore:
    """One JSON line per finished item (``{"item": id, ...}``); a rerun skips the items already
    there, so an interrupted run resumes without repeating any call."""

    path: Path

    def done(self) -> dict[str, dict[str, Any]]:
        if not self.path.is_file():
            return {}
        out: dict[str, dict[str, Any]] = {}
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by an interruption: that item is played again
                if isinstance(record, dict) and "item" in record:
                    out[str(record["item"])] = record
        return out

    def append(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
