"""Reading a model's CodeGen / SpecGen / ProofGen reply into task sections, strictly.

The prompt asks for one fenced code block tagged ``lean`` holding helper definitions (optional)
and the requested definitions, headers included, in the task file's order (for ProofGen: helper
lemmas, then the ``spec_satisfied`` theorem proved with ``:= by`` and tactics; the tactics become
the ``proof`` section, the helpers ``proof_aux``). A reply is read only if it is exactly that;
otherwise it is a :class:`ReplyError` with a short, stable reason:

``no-code-block``                 no fenced code block at all
``several-code-blocks``           more than one fenced block (which one is the answer?)
``unclosed-code-block``           a block that is never closed (a reply cut off)
``wrong-language: <tag>``         a block tagged with another language than ``lean``/``lean4``
``import-in-reply``               an ``import`` line (the task file's imports are fixed)
``missing-definition: <name>``    no top-level ``def <name>`` (``theorem <name>``) in the block
``duplicate-definition: <name>``  ``def <name>`` more than once
``out-of-order: <name>``          the definitions in another order than asked
``header-changed: <name>``        a header that differs from the given one (beyond whitespace and
                                  parentheses around a single argument)
``empty-body: <name>``            nothing after ``:=`` (for a theorem: nothing after ``by``)
``not-a-tactic-proof: <name>``    a theorem proved by a term, not ``:= by`` and tactics
``text-after-definition``         top-level text after the last definition (``#eval`` lines, a
                                  theorem, ...)

Prose outside the block is ignored. Nothing is screened or compiled here: the scorer screens
every section before anything runs it.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from veriscale.stages.evaluate.prompts import DefinitionHeader

__all__ = ["ReplyError", "ReplySections", "extract_lean_block", "parse_reply", "same_header"]

_FENCE_OPEN = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n`]*$")
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*$")
_LEAN_TAGS = {"", "lean", "lean4"}
# A line at column 0 that starts a new top-level command ends the definition before it. Other
# lines at column 0 continue the body (Lean accepts a term continued at column 0 after ':=').
_COMMAND = re.compile(
    r"^(@\[|/-|#|(def|theorem|lemma|abbrev|instance|structure|inductive|class|namespace|section|end|open|"
    r"example|private|protected|noncomputable|partial|unsafe|mutual|set_option|import|variable|universe|"
    r"attribute|macro|macro_rules|syntax|notation|infix|infixl|infixr|prefix|postfix|opaque|axiom|"
    r"deriving|elab|local|scoped|export)\b)"
)
_ATTRIBUTE_LINE = re.compile(r"^@\[[^\]]*\]\s*$")


class ReplyError(BaseModel):
    model_config = ConfigDict(frozen=True)

    reason: str


class ReplySections(BaseModel):
    """Section bodies as the task file holds them (``code`` -> ``"  body\\n"``)."""

    model_config = ConfigDict(frozen=True)

    sections: dict[str, str]


def extract_lean_block(text: str) -> str | ReplyError:
    """The body of the one fenced ``lean`` block of ``text``."""
    blocks: list[tuple[str, list[str]]] = []
    current: tuple[str, list[str]] | None = None
    for line in text.replace("\r\n", "\n").split("\n"):
        if current is None:
            opened = _FENCE_OPEN.match(line)
            if opened:
                current = (opened.group(1).lower(), [])
        elif _FENCE_CLOSE.match(line):
            blocks.append(current)
            current = None
        else:
            current[1].append(line)
    if current is not None:
        return ReplyError(reason="unclosed-code-block")
    if not blocks:
        return ReplyError(reason="no-code-block")
    if len(blocks) > 1:
        return ReplyError(reason="several-code-blocks")
    tag, lines = blocks[0]
    if tag not in _LEAN_TAGS:
        return ReplyError(reason=f"wrong-language: {tag}")
    return "\n".join(lines)


def _expand_binders(text: str) -> str:
    """``(a b : T)`` as ``(a : T) (b : T)``, for top-level parenthesised binders."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos] != "(":
            out.append(text[pos])
            pos += 1
            continue
        depth, end = 0, pos
        while end < len(text):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
            end += 1
        inner = text[pos + 1:end]
        grouped = re.match(r"^\s*([\w'.]+(?:\s+[\w'.]+)+)\s*:(?!=)\s*(.+?)\s*$", inner, re.DOTALL)
        if grouped and end < len(text):
            out.append(" ".join(f"({name} : {grouped.group(2)})" for name in grouped.group(1).split()))
        else:
            out.append(text[pos:end + 1])
        pos = end + 1
    return "".join(out)


def _normal_header(text: str) -> str:
    """Whitespace-insensitive form; ``(x)`` is ``x``; ``a: T`` is ``a : T``; binders ungrouped."""
    text = _expand_binders(text.strip())
    text = re.sub(r"\s*:=\s*$", "", text)
    text = re.sub(r"\s*:\s*", " : ", text)
    text = re.sub(r"\s+", " ", text)
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\(\s*([\w.'!?]+)\s*\)", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s+\)", ")", text)
    return text.strip()


def same_header(given: str, written: str) -> bool:
    return _normal_header(given) == _normal_header(written)


def _def_line(name: str, keyword: str = "def") -> re.Pattern[str]:
    return re.compile(rf"^(?:@\[[^\]]*\]\s*)?{keyword}\s+{re.escape(name)}(?=\s|\(|:|$)")


_IMPORT_LINE = re.compile(r"^\s*import\s")
_BY = re.compile(r"^\s*by\b")


def _after_by(first: str, following: list[str]) -> tuple[str, list[str]] | None:
    """A tactic proof's text after ``:=`` without its ``by`` (``None`` when it does not start with
    ``by``): ``first`` is the rest of the ``:=`` line, ``following`` the body's further lines."""
    if _BY.match(first):
        return _BY.sub("", first, count=1), following
    if first.strip():
        return None
    for index, line in enumerate(following):  # ``:=`` ending its line, ``by`` on a line of its own
        if _comment_or_blank(line):
            continue
        if not _BY.match(line):
            return None
        indent = " " * (len(line) - len(line.lstrip()))
        rest = _BY.sub("", line, count=1)
        # Keep the tactics on the ``by`` line at that line's indentation, so relative layout holds.
        return (indent + rest.strip() if rest.strip() else ""), following[index + 1:]
    return "", []  # nothing but comments: an empty body


def _top_level(line: str) -> bool:
    return bool(line.strip()) and not line[0].isspace() and bool(_COMMAND.match(line))


def _comment_or_blank(line: str) -> bool:
    return not line.strip() or line.lstrip().startswith("--")


def _section_body(first: str, following: list[str]) -> str:
    """The body lines as a section holds them: each indented by two spaces, relative layout kept."""
    lines = list(following)
    if first.strip():
        indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
        lines.insert(0, " " * (min(indents) if indents else 0) + first.strip())
    body = textwrap.dedent("\n".join(lines)).strip("\n")
    if all(_comment_or_blank(line) for line in body.split("\n")):
        return ""  # nothing but comments
    return "".join(f"  {line.rstrip()}\n" if line.strip() else "\n" for line in body.split("\n"))


def _aux_body(lines: list[str]) -> str:
    text = "\n".join(line.rstrip() for line in lines).strip("\n")
    return f"\n{text}\n" if text.strip() else ""


def parse_reply(text: str, headers: Sequence[DefinitionHeader]) -> ReplySections | ReplyError:
    """The sections a reply fills (each header's body and its helpers), or why it cannot be read."""
    block = extract_lean_block(text)
    if isinstance(block, ReplyError):
        return block
    lines = block.split("\n")
    if any(_IMPORT_LINE.match(line) for line in lines):
        return ReplyError(reason="import-in-reply")
    starts: list[int] = []
    for header in headers:
        pattern = _def_line(header.name, header.keyword)
        found = [i for i, line in enumerate(lines) if pattern.match(line)]
        if not found:
            return ReplyError(reason=f"missing-definition: {header.name}")
        if len(found) > 1:
            return ReplyError(reason=f"duplicate-definition: {header.name}")
        if starts and found[0] < starts[-1]:
            return ReplyError(reason=f"out-of-order: {header.name}")
        starts.append(found[0])

    sections: dict[str, str] = {}
    cursor = 0  # first line not yet assigned to a section
    for header, start in zip(headers, starts):
        aux_end = start
        # An attribute line just above the definition belongs to the header, not to the helpers.
        previous = start - 1
        while previous >= cursor and not lines[previous].strip():
            previous -= 1
        if previous >= cursor and _ATTRIBUTE_LINE.match(lines[previous]):
            aux_end = previous
        # Always set: the reply's helpers (possibly none) replace the task's own.
        sections[header.aux_section] = _aux_body(lines[cursor:aux_end])

        # The header runs from the def line to the first ':=' (it may span lines).
        rest = "\n".join(lines[start:])
        assign = rest.find(":=")
        if assign < 0:
            return ReplyError(reason=f"empty-body: {header.name}")
        written_header = re.sub(r"^@\[[^\]]*\]\s*", "", rest[:assign])
        if not same_header(header.text, written_header):
            return ReplyError(reason=f"header-changed: {header.name}")
        header_lines = rest[:assign].count("\n")
        assign_line = start + header_lines
        first = lines[assign_line].split(":=", 1)[1]  # the first ':=' of the rest is on this line
        end = assign_line + 1
        while end < len(lines) and not _top_level(lines[end]):
            end += 1
        # Comments just above the next command introduce it: they go with the next helpers.
        while end > assign_line + 1 and _comment_or_blank(lines[end - 1]):
            end -= 1
        following = lines[assign_line + 1:end]
        if header.keyword == "theorem":
            tactics = _after_by(first, following)
            if tactics is None:
                return ReplyError(reason=f"not-a-tactic-proof: {header.name}")
            first, following = tactics
        body = _section_body(first, following)
        if not body:
            return ReplyError(reason=f"empty-body: {header.name}")
        sections[header.section] = body
        cursor = end

    trailing = lines[cursor:]
    if not all(_comment_or_blank(line) for line in trailing):
        return ReplyError(reason="text-after-definition")
    return ReplySections(sections=sections)
