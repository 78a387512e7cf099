"""Split a proposition's source text into its top-level conjuncts (``A ∧ B ∧ C`` -> A, B, C).

Used to say *which part* of a postcondition a counterexample falsifies. The split is purely
lexical and conservative: it happens only where ``∧`` is certainly the outermost connective, i.e.
at bracket depth 0, outside strings, characters and comments, and only when nothing at depth 0
binds looser than ``∧`` (``→ ↔ ∨``) before it. A binder at depth 0 (``∀ ∃ fun let if match``...)
takes everything after it into its body, so the text from the conjunct holding it to the end is
one conjunct. Otherwise the whole text is one conjunct.
"""

from __future__ import annotations

import re

from veriscale.lean.lexer import string_literal_end, strip_comments

__all__ = ["split_conjuncts"]

_OPEN = "([{⟨⦃"
_CLOSE = ")]}⟩⦄"
_AND = ("∧", "/\\")
_LOOSER = ("→", "->", "↔", "<->", "∨", "\\/", "||", "<|", "|>", "$")
_BINDERS = re.compile(r"(∀|∃|∃!|λ|fun|let|if|match|have|show|Σ|∑|∏|do)(?![\w'!?.])")


def split_conjuncts(text: str) -> list[str]:
    """The top-level conjuncts of ``text`` (stripped), or ``[text]`` when it is not safely a
    conjunction."""
    source = strip_comments(text).strip()
    parts: list[str] = []
    depth, start, i, n = 0, 0, 0, len(source)
    while i < n:
        c = source[i]
        if c == '"':
            i = string_literal_end(source, i)
            continue
        if c == "'" and i + 2 < n and (source[i + 2] == "'" or source[i + 1] == "\\"):
            close = source.find("'", i + 2)
            i = close + 1 if close > 0 else i + 1
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth < 0:
                return [source]
        elif depth == 0:
            word_start = i == 0 or not (source[i - 1].isalnum() or source[i - 1] in "_'.")
            if word_start and _BINDERS.match(source, i):
                break  # a binder's body runs to the end: the rest is one conjunct
            if any(source.startswith(op, i) for op in _LOOSER):
                return [source]
            op = next((a for a in _AND if source.startswith(a, i)), None)
            if op is not None:
                parts.append(source[start:i].strip())
                i += len(op)
                start = i
                continue
        i += 1
    parts.append(source[start:].strip())
    if depth != 0 or any(not p for p in parts):
        return [source]
    return parts
