"""Where the embedded engine reads a task copy differently from real Lean, beyond ``diagnose``.

The engine's program keeps the last of two declarations of one name, where Lean rejects the
second; and its parser skips commands it cannot read, where Lean may accept or reject them (it
surely rejects those whose syntax error is a rule of its own grammar: ``lean_rejects``). A
submission that redeclares a name or that the parser cannot read is therefore reported before any
check runs (:meth:`EmbeddedBackend.reading_problems <veriscale.backends.embedded.backend.EmbeddedBackend.reading_problems>`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import veriscale.backends.embedded.builtins  # noqa: F401  (registers the builtins)
from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser import parse_file
from veriscale.backends.embedded.registry import BUILTINS
from veriscale.backends.embedded.resolve import EXPORTED_ONLY

if TYPE_CHECKING:
    from veriscale.task import Task

MAX_MESSAGE = 120


@functools.lru_cache(maxsize=32)
def declared_names(text: str) -> tuple[list[str], int, list[A.CommandError]]:
    """Top-level names a Lean text declares (with repeats), its number of unparsed commands, and
    those of them Lean's own parser rejects too."""
    names: list[str] = []
    errors = 0
    rejected: list[A.CommandError] = []
    stack: list[str] = []
    for cmd in parse_file(text).commands:
        ns = ".".join(stack)
        if isinstance(cmd, A.NamespaceCmd):
            stack.extend(cmd.name.split("."))
        elif isinstance(cmd, A.EndCmd):
            if cmd.name:
                for _ in cmd.name.split("."):
                    if stack:
                        stack.pop()
        elif isinstance(cmd, A.CommandError):
            errors += 1
            if cmd.lean_rejects:
                rejected.append(cmd)
        elif isinstance(cmd, (A.DefCmd, A.StructureCmd, A.InductiveCmd)):
            if isinstance(cmd, A.DefCmd) and cmd.kind in ("example", "instance"):
                continue
            full = f"{ns}.{cmd.name}" if ns else cmd.name
            names.append(full)
            if isinstance(cmd, A.DefCmd):
                names.extend(f"{full}.{helper.name}" for helper in cmd.where)
    return names, errors, rejected


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reading_problems(original: Task, copy: Task) -> tuple[list[str], list[str]]:
    """``(definite, doubtful)``: ``definite`` are redeclarations Lean rejects (a name declared
    twice, or a builtin Lean already has) -- the engine would silently let the last declaration
    win; ``doubtful`` are commands of the copy the parser cannot read (Lean may or may not accept
    them)."""
    original_text, copy_text = original.lean_text(), copy.lean_text()
    if copy_text == original_text:
        return [], []
    try:
        before, before_errors, before_rejected = declared_names(original_text)
        after, after_errors, after_rejected = declared_names(copy_text)
    except Exception as exc:  # noqa: BLE001 - a lexing failure is the engine's to report
        return [], [f"the embedded parser cannot read the file: {_clip(str(exc), MAX_MESSAGE)}"]
    definite: list[str] = []
    doubtful: list[str] = []
    seen: set[str] = set()
    counts_before = {n: before.count(n) for n in set(before)}
    for name in after:
        if name in seen:
            if after.count(name) > counts_before.get(name, 0):
                definite.append(f"`{name}` is declared twice (Lean rejects the redeclaration)")
            continue
        seen.add(name)
        if name in BUILTINS and name not in counts_before:
            if name in EXPORTED_ONLY:
                # Lean has only an alias by this name (`export Max (max)`): the declaration is
                # accepted, and its uses are overloaded with the alias
                doubtful.append(f"`{name}` is declared beside Lean's alias `{name}`; the engine does not model "
                                "the overloads this makes")
            else:
                definite.append(f"`{name}` already exists in Lean (Lean rejects the redeclaration)")
    known = {(e.message, e.text) for e in before_rejected}
    definite.extend(f"line {e.line}, column {e.col}: {_clip(e.message, MAX_MESSAGE)} (Lean's parser rejects it too)"
                    for e in after_rejected if (e.message, e.text) not in known)
    after_errors -= len(after_rejected) - len(before_rejected)
    if after_errors > before_errors:
        doubtful.append(
            f"{after_errors - before_errors} command(s) of the submission do not parse in the embedded engine"
        )
    return sorted(set(definite)), doubtful
