"""Which library names the Lean code of a task uses, so builtin coverage can be measured.

This is a token scan, not a parser: it keeps the executable sections of a task file (everything
but proofs), drops comments, string contents (keeping ``s!`` interpolations), proof terms
(``have``, ``by`` blocks, ``termination_by``/``decreasing_by``) and declarations that are not
evaluated (``theorem``, ``lemma``, ``axiom``, ``example``), then counts

* qualified names whose first component is a library namespace (``List.range``, ``Nat.Prime``),
  with ``HashMap.x``/``HashSet.x`` normalised to ``Std.HashMap.x``/``Std.HashSet.x``;
* field-notation names, reported with a leading dot (``.foldl`` from ``xs.foldl f 0``), since the
  receiver's type is unknown to a token scan;
* a few global functions (``max``, ``min``, ``toString`` ...) used bare.

Names the file itself declares (``def List.myprod``, structure fields) are not library names and
are left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from veriscale.lean.lexer import strip_comments

LIBRARY_NAMESPACES = frozenset(
    {
        "List", "Array", "String", "Char", "Nat", "Int", "Float", "Option", "Prod", "Bool",
        "UInt8", "UInt16", "UInt32", "UInt64", "Fin", "Std", "HashMap", "HashSet", "Id",
        "Function", "Substring", "Subarray", "Except", "Sum", "Decidable", "Ord", "Ordering",
    }
)
"""First components that make ``A.b`` a library name rather than a field access on a variable."""

TYPE_NAMES = frozenset(
    {"Std.HashMap", "Std.HashSet", "String.Iterator", "String.Pos", "Std.Format", "Id"}
)
"""Qualified names that denote types, not functions (they appear in signatures)."""

GLOBAL_FUNCTIONS = frozenset({"max", "min", "toString", "repr", "id", "not", "xor"})
"""Library functions commonly used unqualified."""

_PROOF_SECTION = re.compile(
    r"--\s*!benchmark\s+@start\s+(proof_aux|proof)\b.*?--\s*!benchmark\s+@end\s+\1\b", re.S
)
_DECL_HEAD = re.compile(r"^(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+|noncomputable\s+)*(\w+)")
_SKIPPED_DECLS = frozenset({"theorem", "lemma", "axiom", "example"})
_PROOF_LINE_STARTS = ("have ", "have:", "termination_by", "decreasing_by")
_IDENT_CHARS = r"[A-Za-z_][A-Za-z0-9_'!?]*"
_QUALIFIED = re.compile(rf"(?<![\w.'])({_IDENT_CHARS}(?:\.{_IDENT_CHARS})+)")
_FIELD = re.compile(r"(?:(?<=[)\]}·])|(?<=[)\]][!?]))\.([a-z_][A-Za-z0-9_'!?]*)")
_BARE = re.compile(rf"(?<![\w.'])({_IDENT_CHARS})(?![\w.'])")
_DECLARED = re.compile(
    rf"^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+|partial\s+|noncomputable\s+)*"
    rf"(?:def|abbrev|instance|structure|inductive|class|opaque)\s+({_IDENT_CHARS}(?:\.{_IDENT_CHARS})*)",
    re.M,
)
_STRUCT_FIELD = re.compile(rf"^\s+({_IDENT_CHARS})\s*:", re.M)


def _strip_literals(text: str) -> str:
    """Blank string and char literals; keep the code inside ``s!`` interpolation braces."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            interpolated = text[max(0, i - 2) : i] == "s!"
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 2
                    continue
                if interpolated and text[j] == "{":
                    depth, k = 1, j + 1
                    while k < n and depth:
                        depth += {"{": 1, "}": -1}.get(text[k], 0)
                        k += 1
                    out.append(" " + text[j + 1 : k - 1] + " ")
                    j = k
                    continue
                j += 1
            out.append('""')
            i = j + 1
        elif ch == "'" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_'!?")):
            m = re.match(r"'(\\.[0-9a-fA-F]*|[^'\\])'", text[i:])
            if m:
                out.append("' '")
                i += m.end()
            else:
                out.append(ch)
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _strip_inline_by(line: str) -> str:
    """Remove ``(by tactic ...)`` groups and a trailing ``by ...`` (a proof term) from a line."""
    while True:
        m = re.search(r"\(\s*by\b", line)
        if not m:
            break
        depth, k = 0, m.start()
        while k < len(line):
            depth += {"(": 1, ")": -1}.get(line[k], 0)
            k += 1
            if depth == 0:
                break
        line = line[: m.start()] + line[k:]
    m = re.search(r"(?<![\w.])by\b", line)
    return line[: m.start()] if m else line


def executable_code(text: str) -> str:
    """The part of a task file that is evaluated: no proofs, comments, literals or theorems."""
    text = _PROOF_SECTION.sub("", text)
    text = _strip_literals(strip_comments(text))
    kept: list[str] = []
    skip_deeper_than: int | None = None
    skip_decl = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            head = _DECL_HEAD.match(stripped)
            skip_decl = bool(head and head.group(1) in _SKIPPED_DECLS)
            skip_deeper_than = None
            if stripped.startswith(("import ", "open ", "set_option", "#")):
                continue
        if skip_decl:
            continue
        if skip_deeper_than is not None:
            if indent > skip_deeper_than:
                continue
            skip_deeper_than = None
        if stripped.startswith(_PROOF_LINE_STARTS):
            skip_deeper_than = indent
            continue
        if re.search(r"(?<![\w.])by\s*$", line):
            skip_deeper_than = indent
        kept.append(_strip_inline_by(line))
    return "\n".join(kept)


def _normalise(name: str) -> str:
    if name.startswith(("HashMap.", "HashSet.")):
        return "Std." + name
    return name


def used_names(lean_texts: Iterable[str]) -> Counter[str]:
    """Count the library names used by the executable code of each Lean file in ``lean_texts``."""
    counts: Counter[str] = Counter()
    for text in lean_texts:
        code = executable_code(text)
        declared = {m.group(1) for m in _DECLARED.finditer(code)}
        declared_last = {d.rsplit(".", 1)[-1] for d in declared}
        fields: set[str] = set()
        for block in re.finditer(r"^structure\b.*?(?=^\S)", code + "\n.", re.M | re.S):
            fields.update(m.group(1) for m in _STRUCT_FIELD.finditer(block.group(0)))
        for m in _QUALIFIED.finditer(code):
            parts = m.group(1).split(".")
            if parts[0] in LIBRARY_NAMESPACES:
                name = _normalise(m.group(1))
                if name not in declared and name not in TYPE_NAMES and not name.startswith(
                    "Std.Data."
                ):
                    counts[name] += 1
            else:
                # ``x.foo.bar`` on a variable: each component after the first is a field access.
                for part in parts[1:]:
                    if part not in declared_last and part not in fields and part[0].islower():
                        counts["." + part] += 1
        for m in _FIELD.finditer(code):
            name = m.group(1)
            if name not in declared_last and name not in fields:
                counts["." + name] += 1
        for m in _BARE.finditer(code):
            name = m.group(1)
            if name in GLOBAL_FUNCTIONS and name not in declared:
                counts[name] += 1
    return counts


def is_implemented(name: str, registered: Iterable[str]) -> bool:
    """Whether a name from :func:`used_names` has a builtin.

    A field-notation name (``.foldl``) counts as implemented when some namespace provides it,
    since a token scan cannot tell the receiver's type.
    """
    names = set(registered)
    if name.startswith("."):
        return any(r.endswith(name) for r in names)
    return name in names


def coverage_rows(counts: Counter[str], registered: Iterable[str]) -> list[tuple[str, int, bool]]:
    """``(name, count, implemented)`` rows, most used first."""
    names = set(registered)
    return [
        (name, count, is_implemented(name, names))
        for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
