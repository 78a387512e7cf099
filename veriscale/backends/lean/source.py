"""The Lean text of a task as the REPL receives it: an import header and a definitions body.

The REPL accepts ``import`` only in a command that starts a fresh environment, so the task file
is split: the header (the task's imports plus ``Plausible``) is elaborated once per process and
import set, the body (everything else) once per process and task, and every check runs in the
environment the body produced. Import lines are blanked rather than removed so that line numbers
in the body's messages are the line numbers of ``task.lean``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veriscale.task import Task

_IMPORT_LINE = re.compile(r"^\s*import\s+(?P<modules>[^-]*?)\s*(--.*)?$")
_THEOREM = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+)?theorem\s+(?P<name>[^\s(:{\[]+)", re.M)
_PROOF_MARKER = re.compile(r"--\s*!benchmark\s+@start\s+proof\b")


@dataclass(frozen=True)
class TaskSource:
    """What the REPL elaborates for one task."""

    imports: tuple[str, ...]
    body: str
    key: str
    """Identifies (imports, body): environments are cached under it."""


def split_imports(text: str) -> tuple[list[str], str]:
    """The modules imported at the top of ``text``, and ``text`` with those lines blanked.

    Only the file's leading block is scanned (imports must precede everything else in Lean);
    blank lines, ``--`` comments (the benchmark markers) and ``/- ... -/`` comments may sit
    between import lines.
    """
    lines = text.split("\n")
    modules: list[str] = []
    in_block_comment = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if in_block_comment:
            if "-/" in stripped:
                in_block_comment = False
            continue
        if not stripped or stripped.startswith("--"):
            continue
        if stripped.startswith("/-"):
            in_block_comment = "-/" not in stripped[2:]
            continue
        match = _IMPORT_LINE.match(line)
        if match is None:
            break
        modules.extend(match.group("modules").split())
        lines[index] = ""
    return modules, "\n".join(lines)


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return tuple(seen)


def task_source(task: Task, *, always_import: Iterable[str] = (), keep_proof: bool = False) -> TaskSource:
    """The header and body for ``task``.

    Unless ``keep_proof``, the proof is replaced by ``sorry``: checks need the definitions, not
    the proof, and an expensive or broken proof must not slow down or block them.
    """
    if not keep_proof and task.section("proof").strip():
        task = task.with_sections(proof="  sorry\n")
    modules, body = split_imports(task.lean_text())
    imports = _unique([*modules, *always_import])
    digest = hashlib.sha256()
    digest.update("\n".join(imports).encode("utf-8"))
    digest.update(b"\0")
    digest.update(body.encode("utf-8"))
    return TaskSource(imports=imports, body=body, key=digest.hexdigest())


def theorem_name(task: Task) -> str:
    """The theorem the task's proof section proves (``<name>_spec_satisfied`` in Verina)."""
    text = task.lean_text()
    marker = _PROOF_MARKER.search(text)
    before = text[: marker.start()] if marker else text
    names = [match.group("name") for match in _THEOREM.finditer(before)]
    if names:
        return names[-1]
    return f"{task.signature.name}_spec_satisfied"
