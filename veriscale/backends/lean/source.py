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

from veriscale.lean.lexer import IDENT, lex

if TYPE_CHECKING:
    from veriscale.task import Task

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
    """The modules imported at the top of ``text``, and ``text`` with those imports blanked.

    Only the file's leading ``import`` commands count (imports must precede everything else in
    Lean); comments may sit between them (read by the shared Lean lexer, so ``/- import X -/`` is
    no import). Each ``import`` and its module names are replaced by spaces, so line and column
    numbers in the body's messages are those of ``task.lean``.
    """
    tokens = lex(text).tokens
    modules: list[str] = []
    spans: list[tuple[int, int]] = []
    k = 0
    while tokens[k].is_kw("import"):
        j = k + 1
        while tokens[j].kind == IDENT and not tokens[j].newline_before:
            modules.append(str(tokens[j].value))
            j += 1
        if j == k + 1:
            break  # `import` without a module: left for Lean to report
        spans.append((tokens[k].offset, tokens[j - 1].end))
        k = j
    body = text
    for start, end in reversed(spans):
        body = body[:start] + " " * (end - start) + body[end:]
    return modules, body


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
