"""Prompts of ``veriscale eval``: what a model is shown for CodeGen, SpecGen and ProofGen of one task.

CodeGen (``codegen.j2``): the description, the signature, the task's shared definitions
(``task_aux``), the ground-truth precondition with its auxiliary definitions, the header of the
function to complete (exactly as the task file has it) and a few of the suite's tests as
examples. SpecGen (``specgen.j2``): the description, the signature, the shared definitions, the
headers of ``<name>_precond`` and ``<name>_postcond`` to complete, a few tests and a few reject
inputs (inputs the precondition must rule out) as examples. Unexpected outputs are never shown:
they are what the postcondition is scored against. ProofGen (``proofgen.j2``), as in Verina's
harness: the description and the task file up to the theorem -- the reference code, precondition
and postcondition with their helpers -- and the header of the ``spec_satisfied`` theorem whose
proof (``proof``) and helper lemmas (``proof_aux``) the model writes.

Headers are read from the task file (the definition line just above the section's start marker),
so the model completes the very definition the scorer splices its answer into.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from veriscale.lean.codec import ValueParseError, parse_value, render_value
from veriscale.lean.types import LeanType, LeanTypeError, StructDef, parse_structures, parse_type
from veriscale.llm import Message, prompt_messages
from veriscale.task import Task

__all__ = [
    "DEFAULT_EXAMPLES",
    "KIND_METRICS",
    "TaskKind",
    "DefinitionHeader",
    "build_codegen_prompt",
    "build_proofgen_prompt",
    "build_prompt",
    "build_specgen_prompt",
    "definition_header",
    "headers_for",
    "theorem_header",
]

TaskKind = Literal["codegen", "specgen", "proofgen"]
DEFAULT_EXAMPLES = 2
"""Tests (and, for SpecGen, reject inputs) shown per task."""
KIND_METRICS: dict[str, tuple[str, ...]] = {
    "codegen": ("code",),
    "specgen": ("precond_sound", "precond_complete", "postcond_sound", "postcond_complete",
                "precond_sound_complete", "postcond_sound_complete", "precond_postcond"),
    "proofgen": ("proof",),
}
"""The score metrics each task kind is judged on."""


class DefinitionHeader(BaseModel):
    """The definition a reply completes: ``def <name> ... :=`` above the ``section`` marker."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The defined name (``clampToRange``, ``clampToRange_precond``, ``clampToRange_spec_satisfied``)."""
    text: str
    """The header as the task file writes it, ending with ``:=`` (a theorem's ``by`` left out)."""
    section: str
    """The section its body fills (``code``, ``precond``, ``postcond``, ``proof``)."""
    aux_section: str
    """The section of helper definitions written before it (``code_aux``, ...)."""
    keyword: str = "def"
    """The command that opens it: ``def``, or ``theorem`` for the proof."""


def _params_lean(task: Task) -> str:
    return task.signature.binders_lean()


def _args_lean(task: Task) -> str:
    return " ".join(f"({p.name})" for p in task.signature.parameters)


def _fallback_header(task: Task, section: str) -> str:
    """The header Verina's layout has, when the task file's own cannot be read."""
    sig = task.signature
    name, params, args = sig.name, _params_lean(task), _args_lean(task)
    if section == "precond":
        text = f"def {name}_precond {params} : Prop :="
    elif section == "postcond":
        text = (f"def {name}_postcond {params} (result : {sig.return_type}) "
                f"(h_precond : {name}_precond {args}) : Prop :=")
    else:
        text = f"def {name} {params} (h_precond : {name}_precond {args}) : {sig.return_type} :="
    return re.sub(r"\s+", " ", text)


def definition_header(task: Task, section: Literal["code", "precond", "postcond"]) -> DefinitionHeader:
    """The header of the definition whose body is ``section``, read from the task file."""
    sig_name = task.signature.name
    name = sig_name if section == "code" else f"{sig_name}_{section}"
    lines = task.lean_text().splitlines()
    marker = re.compile(rf"^\s*--\s*!benchmark\s+@start\s+{section}\b(?!_)")
    start = re.compile(rf"^def\s+{re.escape(name)}(\s|$)")
    text: str | None = None
    for index, line in enumerate(lines):
        if not marker.match(line):
            continue
        for back in range(index - 1, max(-1, index - 12), -1):
            if start.match(lines[back]):
                candidate = " ".join(part.strip() for part in lines[back:index] if part.strip())
                if candidate.endswith(":="):
                    text = candidate
                break
        break
    return DefinitionHeader(
        name=name,
        text=text or _fallback_header(task, section),
        section=section,
        aux_section=f"{section}_aux",
    )


_PROOF_START = re.compile(r"^\s*--\s*!benchmark\s+@start\s+proof\b(?!_)")
_THEOREM_LINE = re.compile(r"^theorem\s+([^\s(:]+)")


def theorem_header(task: Task) -> DefinitionHeader:
    """The header of the theorem whose tactic proof is the ``proof`` section, read from the task
    file (``theorem <name>_spec_satisfied ... :=``, without the ``by``)."""
    lines = task.lean_text().splitlines()
    fallback_name = f"{task.signature.name}_spec_satisfied"
    for index, line in enumerate(lines):
        if not _PROOF_START.match(line):
            continue
        for back in range(index - 1, max(-1, index - 12), -1):
            found = _THEOREM_LINE.match(lines[back])
            if found:
                candidate = " ".join(part.strip() for part in lines[back:index] if part.strip())
                by = re.search(r":=\s*by\s*$", candidate)
                if by:
                    text = candidate[: by.start()].rstrip() + " :="
                    return DefinitionHeader(name=found.group(1), text=text, section="proof",
                                            aux_section="proof_aux", keyword="theorem")
                break
        break
    return DefinitionHeader(name=fallback_name, text=_fallback_theorem(task, fallback_name), section="proof",
                            aux_section="proof_aux", keyword="theorem")


def _fallback_theorem(task: Task, name: str) -> str:
    """The theorem Verina's layout has, when the task file's own cannot be read."""
    sig = task.signature
    args = _args_lean(task)
    return re.sub(r"\s+", " ", (
        f"theorem {name} {_params_lean(task)} (h_precond : {sig.name}_precond {args}) : "
        f"{sig.name}_postcond {args} ({sig.name} {args} h_precond) h_precond :="))


def headers_for(task: Task, kind: TaskKind) -> list[DefinitionHeader]:
    """The definitions a reply of ``kind`` must contain, in the order the task file has them."""
    if kind == "codegen":
        return [definition_header(task, "code")]
    if kind == "proofgen":
        return [theorem_header(task)]
    return [definition_header(task, "precond"), definition_header(task, "postcond")]


# ---------------------------------------------------------------------------------------------
# Examples


def _structures(task: Task) -> dict[str, StructDef]:
    try:
        return parse_structures(task.section("task_aux"))
    except LeanTypeError:
        return {}


def _render_call(
    task: Task, raw_input: Mapping[str, Any], types: Mapping[str, LeanType] | None, structs: Mapping[str, StructDef]
) -> str:
    """``f (x := 5) (lo := 0)``; stored JSON text for a value that cannot be rendered in Lean."""
    parts = []
    for param in task.signature.parameters:
        raw = raw_input.get(param.name)
        rendered: str | None = None
        if types is not None:
            try:
                rendered = render_value(parse_value(raw, types[param.name], structs), types[param.name], structs)
            except (ValueParseError, ValueError, LeanTypeError, RecursionError):
                rendered = None
        parts.append(f"({param.name} := {rendered if rendered is not None else json.dumps(raw, ensure_ascii=False)})")
    return f"{task.signature.name} {' '.join(parts)}".strip()


def _render_output(task: Task, raw: Any, structs: Mapping[str, StructDef]) -> str:
    try:
        ty = parse_type(task.signature.return_type)
        return render_value(parse_value(raw, ty, structs), ty, structs)
    except (ValueParseError, ValueError, LeanTypeError, RecursionError):
        return json.dumps(raw, ensure_ascii=False)


def _examples(task: Task, count: int) -> tuple[list[dict[str, str]], list[str]]:
    """Up to ``count`` tests (call, expected) and ``count`` reject inputs (call), in stored order."""
    structs = _structures(task)
    try:
        types: dict[str, LeanType] | None = {p.name: parse_type(p.type) for p in task.signature.parameters}
    except LeanTypeError:
        types = None
    tests = [
        {"call": _render_call(task, t.input, types, structs), "expected": _render_output(task, t.expected, structs)}
        for t in task.tests[:count]
    ]
    rejects = [_render_call(task, r.input, types, structs) for r in task.reject_inputs[:count]]
    return tests, rejects


# ---------------------------------------------------------------------------------------------
# Prompts


def _signature_line(task: Task) -> str:
    sig = task.signature
    return re.sub(r"\s+", " ", f"def {sig.name} {_params_lean(task)} : {sig.return_type}")


def _imports(task: Task) -> str:
    return "\n".join(line for line in task.section("import").splitlines() if line.strip())


def _task_context(task: Task) -> dict[str, str]:
    """What the code and the specification prompts both show of the task."""
    return {
        "description": task.description,
        "signature": _signature_line(task),
        "imports": _imports(task),
        "structures_lean": task.section("task_aux").strip(),
    }


def _messages(kind: TaskKind, **values: Any) -> list[Message]:
    return prompt_messages(f"{kind}.system.j2", f"{kind}.j2", **values)


def build_codegen_prompt(task: Task, *, examples: int = DEFAULT_EXAMPLES) -> list[Message]:
    """System and user messages asking for the implementation of ``task``'s function."""
    tests, _ = _examples(task, examples)
    (header,) = headers_for(task, "codegen")
    precond = definition_header(task, "precond")
    return _messages(
        "codegen",
        **_task_context(task),
        precond_aux=task.section("precond_aux").strip(),
        precond_header=precond.text,
        precond=task.section("precond").strip() or "True",
        header=header.text,
        function=header.name,
        tests=tests,
    )


def build_specgen_prompt(task: Task, *, examples: int = DEFAULT_EXAMPLES) -> list[Message]:
    """System and user messages asking for the precondition and postcondition of ``task``."""
    tests, rejects = _examples(task, examples)
    precond, postcond = headers_for(task, "specgen")
    return _messages(
        "specgen",
        **_task_context(task),
        precond_header=precond.text,
        postcond_header=postcond.text,
        precond_name=precond.name,
        postcond_name=postcond.name,
        tests=tests,
        rejects=rejects,
    )


_MARKER_LINE = re.compile(r"^\s*--\s*!benchmark\b")


def proof_context(task: Task) -> str:
    """The task file up to the theorem: imports, shared definitions, the precondition, the
    reference code and the postcondition with their helpers. Benchmark markers are left out (they
    are bookkeeping, not Lean the model needs) and runs of blank lines are collapsed."""
    lines = task.lean_text().splitlines()
    stop = len(lines)
    for index, line in enumerate(lines):
        if re.match(r"^\s*--\s*!benchmark\s+@start\s+proof_aux\b", line) or _THEOREM_LINE.match(line):
            stop = index
            break
    kept: list[str] = []
    for line in lines[:stop]:
        if _MARKER_LINE.match(line):
            continue
        if not line.strip() and (not kept or not kept[-1].strip()):
            continue
        kept.append(line.rstrip())
    return "\n".join(kept).strip()


def build_proofgen_prompt(task: Task, *, examples: int = DEFAULT_EXAMPLES) -> list[Message]:
    """System and user messages asking for the proof that ``task``'s code meets its specification.

    ``examples`` is accepted for a uniform call and unused: a proof is about every input."""
    del examples
    header = theorem_header(task)
    return _messages(
        "proofgen",
        description=task.description,
        signature=_signature_line(task),
        context=proof_context(task),
        header=header.text,
        theorem=header.name,
    )


def build_prompt(task: Task, kind: TaskKind, *, examples: int = DEFAULT_EXAMPLES) -> list[Message]:
    if kind == "codegen":
        return build_codegen_prompt(task, examples=examples)
    if kind == "specgen":
        return build_specgen_prompt(task, examples=examples)
    if kind == "proofgen":
        return build_proofgen_prompt(task, examples=examples)
    raise ValueError(f"unknown task kind {kind!r} (codegen, specgen or proofgen)")

