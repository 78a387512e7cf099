"""Subtle mutants: wrong programs meant to survive a small test suite (REFUTE's "passes the official
tests, hacked later").

Single-change mutants of a short reference are mostly caught by a handful of tests. The edits
here are wrong only on some inputs, the kind a small hand-written suite misses:

* ``guard-result``  ``when C, the result is perturbed``: the body becomes
  ``let r : T := (body); if C then W(r) else r`` where ``C`` is a condition that few small tests
  meet and ``W`` a change of the result's type (``r + 1``, ``!r``, ``r.dropLast``, ``none`` ...);
* ``guard-input``   ``when C, a parameter is perturbed``: the body starts with
  ``let p := if C then T(p) else p`` (``p.dropLast``, ``p.reverse``, ``p + 1`` ...), the bug that
  only shows on long, empty, negative or duplicated inputs;
* ``bound``         off-by-one in a count or an index: ``xs.take n → xs.take (n ± 1)`` (also
  ``drop``), ``xs[i]! → xs[i ± 1]!`` (also ``?``); literal counts and indices are left to the
  ``constant`` operator of :mod:`.mutants`;
* ``drop-last``     one use of a ``List``/``Array``/``String`` parameter loses its last element;
* ``second-order``  two of the above or of :mod:`.mutants`' changes at once (built by
  :func:`combine`; its id joins the two ids with :data:`ORDER_SEPARATOR`).

Conditions ``C`` come from the signature alone (no test is read), over each parameter: sizes above
a ladder of thresholds, empty, singleton, a zero / a negative / a repeated element, zero and large
numbers, upper-case letters, spaces and digits in strings. Which of them survive a benchmark's
original tests is decided by running them (``veriscale.stages.expand.subtle``); the generator is
deterministic and pure: the same task gives the same list, ids and order.

None of these edits is one of ``veriscale power``'s (relations negated, far constants, fixed
conditions, swapped parameters or operators): power's mutants stay independent of what expand
builds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veriscale.generate.adversaries.mutants import (
    Edit,
    Mutation,
    _Analysis,
    _lexes_as_expected,
    analyse_section,
    body_span,
)
from veriscale.lean.lexer import FIELD, IDENT, NUM, Token
from veriscale.lean.types import LeanType, LeanTypeError, NamedType, parse_type
from veriscale.task import Task

__all__ = [
    "ORDER_SEPARATOR",
    "SUBTLE_FAMILIES",
    "bound_mutations",
    "combine",
    "guard_mutations",
    "split_order",
    "subtle_mutations",
]

SUBTLE_FAMILIES = ("guard-result", "guard-input", "bound", "drop-last", "second-order")
ORDER_SEPARATOR = " + "
"""Joins the ids of a second-order mutant's two changes."""

SIZE_LADDER = (3, 5, 8, 12, 20)
"""Thresholds of ``size > K`` conditions: Verina's original tests rarely hold long lists."""
NUMBER_LADDER = (10, 50, 100, 1000)
"""Thresholds of ``n > K`` (and ``n < -K`` for ``Int``) conditions."""
_EQ_ELEMENTS = frozenset({"Nat", "Int", "Char", "String", "Bool"})


@dataclass(frozen=True)
class _Condition:
    label: str
    """Short and unique within a task: ``xs.len>8``, ``n=0``, ``xs.dup``."""
    kind: str
    """What the condition is about, for spreading a selection: ``size``, ``empty``, ``dup`` ..."""
    text: str
    """Lean source of a decidable condition."""


def _named(ty: LeanType) -> tuple[str, tuple[LeanType, ...]] | None:
    return (ty.name, ty.args) if isinstance(ty, NamedType) else None


def _size(p: str, head: str) -> str:
    return f"{p}.size" if head == "Array" else f"{p}.length"


def _conditions(p: str, ty: LeanType) -> list[_Condition]:
    """Conditions over parameter ``p`` of type ``ty`` that a few small tests rarely meet."""
    named = _named(ty)
    if named is None:
        return []
    head, args = named
    out: list[_Condition] = []
    if head in ("List", "Array", "String") and (head == "String" or len(args) == 1):
        size = _size(p, head)
        out += [_Condition(f"{p}.len>{k}", "size", f"{size} > {k}") for k in SIZE_LADDER]
        out.append(_Condition(f"{p}.empty", "empty", f"{size} = 0"))
        out.append(_Condition(f"{p}.single", "single", f"{size} = 1"))
        if head == "String":
            out.append(_Condition(f"{p}.upper", "chars", f"{p}.any Char.isUpper"))
            out.append(_Condition(f"{p}.space", "chars", f"{p}.any (fun c => c = ' ')"))
            out.append(_Condition(f"{p}.digit", "chars", f"{p}.any Char.isDigit"))
            return out
        elem = _named(args[0])
        elem_name = elem[0] if elem is not None and not elem[1] else None
        if elem_name in ("Nat", "Int"):
            out.append(_Condition(f"{p}.zero", "elements", f"{p}.any (fun x => x = 0)"))
        if elem_name == "Int":
            out.append(_Condition(f"{p}.neg", "elements", f"{p}.any (fun x => x < 0)"))
        if elem_name in _EQ_ELEMENTS:
            items = f"{p}.toList" if head == "Array" else p
            out.append(_Condition(f"{p}.dup", "dup", f"{items}.eraseDups.length < {size}"))
    elif head in ("Nat", "Int") and not args:
        out += [_Condition(f"{p}>{k}", "large", f"{p} > {k}") for k in NUMBER_LADDER]
        out.append(_Condition(f"{p}=0", "zero", f"{p} = 0"))
        out.append(_Condition(f"{p}=1", "one", f"{p} = 1"))
        if head == "Int":
            out += [_Condition(f"{p}<-{k}", "large", f"{p} < -{k}") for k in NUMBER_LADDER[:2]]
            out.append(_Condition(f"{p}<0", "negative", f"{p} < 0"))
    return out


def _result_changes(ret: LeanType, r: str) -> list[tuple[str, str]]:
    """``(label, Lean source)`` of wrong results made from the right one, named ``r``."""
    named = _named(ret)
    if named is None:
        return []
    head, args = named
    if head in ("Nat", "Int") and not args:
        return [("+1", f"{r} + 1"), ("-1", f"{r} - 1")]
    if head == "Bool" and not args:
        return [("not", f"!{r}")]
    if head == "Float" and not args:
        return [("+1", f"{r} + 1.0")]
    if head == "List" and len(args) == 1:
        return [("dropLast", f"{r}.dropLast"), ("reverse", f"{r}.reverse")]
    if head == "Array" and len(args) == 1:
        return [("pop", f"{r}.pop"), ("reverse", f"{r}.reverse")]
    if head == "String" and not args:
        return [("dropRight", f"{r}.dropRight 1")]
    if head == "Option" and len(args) == 1:
        return [("none", "none")]
    return []


def _input_changes(p: str, ty: LeanType) -> list[tuple[str, str]]:
    """``(label, Lean source)`` of wrong values of parameter ``p`` made from the right one."""
    named = _named(ty)
    if named is None:
        return []
    head, args = named
    if head == "List" and len(args) == 1:
        return [("dropLast", f"{p}.dropLast"), ("reverse", f"{p}.reverse"), ("tail", f"{p}.tail")]
    if head == "Array" and len(args) == 1:
        return [("pop", f"{p}.pop"), ("reverse", f"{p}.reverse")]
    if head == "String" and not args:
        return [("dropRight", f"{p}.dropRight 1"), ("drop", f"{p}.drop 1")]
    if head in ("Nat", "Int") and not args:
        return [("+1", f"{p} + 1"), ("-1", f"{p} - 1")]
    return []


def _parameters(task: Task) -> list[tuple[str, LeanType]]:
    out: list[tuple[str, LeanType]] = []
    for parameter in task.signature.parameters:
        try:
            out.append((parameter.name, parse_type(parameter.type)))
        except LeanTypeError:
            continue
    return out


def _fresh_name(taken: set[str]) -> str:
    for name in ("r", "res", "out", "answer"):
        if name not in taken:
            return name
    return "result0"


def _guard(first: Token, family: str, condition: _Condition, change: str, what: str, *edits: Edit) -> Mutation:
    """A guard mutant of ``code`` placed at the body's first token: when ``condition`` holds, ``what``."""
    return Mutation("code", first.line, first.col, family, f"{family}[{condition.label}]:{change}",
                    f"code: when `{condition.text}`, {what}", edits)


def guard_mutations(task: Task) -> list[Mutation]:
    """``guard-result`` then ``guard-input`` mutants of the ``code`` section (see the module doc)."""
    code = task.section("code")
    span = body_span(code)
    if span is None:
        return []
    start, end, first = span
    indent = " " * first.col
    params = _parameters(task)
    out: list[Mutation] = []
    try:
        ret = parse_type(task.signature.return_type)
    except LeanTypeError:
        ret = None
    if ret is not None:
        r = _fresh_name({name for name, _ in params})
        ret_text = " ".join(task.signature.return_type.split())
        bind_result = Edit(start, start, f"let {r} : {ret_text} := (")
        changes = _result_changes(ret, r)
        out += [
            _guard(first, "guard-result", condition, label, f"the result becomes `{wrong}`", bind_result,
                   Edit(end, end, f"\n{indent})\n{indent}if {condition.text} then {wrong} else {r}"))
            for p, ty in params for condition in _conditions(p, ty) for label, wrong in changes
        ]
    for p, ty in params:
        changes = _input_changes(p, ty)
        out += [
            _guard(first, "guard-input", condition, f"{p}.{label}", f"`{p}` is read as `{wrong}`",
                   Edit(start, start, f"let {p} := if {condition.text} then {wrong} else {p}\n{indent}"))
            for condition in _conditions(p, ty) for label, wrong in changes
        ]
    return out


# ---------------------------------------------------------------------------------------------
# Off-by-one counts and indices, a lost last element


def _argument_end(analysis: _Analysis, j: int) -> int | None:
    """Exclusive end of the argument starting at token ``j`` (an atom or bracket group, with any
    ``.field`` accesses glued to it), or ``None`` when there is none to change."""
    toks = analysis.tokens
    if j >= analysis.eof or toks[j].newline_before or analysis.skip[j]:
        return None
    if analysis.is_opener(j):
        end = analysis.closer[j] + 1
    elif toks[j].kind == IDENT:
        end = j + 1
    else:
        return None  # a literal is the constant operator's, anything else is not one argument
    while end < analysis.eof and toks[end].kind == FIELD and not toks[end].space_before:
        end += 1
    if any(analysis.skip[j:end]):
        return None
    return end


def _shifted(section: str, analysis: _Analysis, at: Token, start: int, end: int, what: str) -> list[Mutation]:
    """``e → (e + 1)`` / ``(e - 1)`` for the tokens ``start:end``."""
    toks = analysis.tokens
    first, last = toks[start], toks[end - 1]
    shown = analysis.text[first.offset : last.end]
    return [
        Mutation(
            section,
            at.line,
            at.col,
            "bound",
            f"{what}{sign}1@{first.line}:{first.col}",
            f"{section} line {at.line}: {what} `{shown}` {sign} 1",
            (Edit(first.offset, first.offset, "("), Edit(last.end, last.end, f" {sign} 1)")),
        )
        for sign in ("+", "-")
    ]


def _sequence_parameters(param_types: Mapping[str, LeanType]) -> dict[str, str]:
    """Parameter name -> the call that drops its last element."""
    drops = {"List": "dropLast", "Array": "pop", "String": "dropRight 1"}
    out: dict[str, str] = {}
    for name, ty in param_types.items():
        named = _named(ty)
        if named is not None and named[0] in drops:
            out[name] = drops[named[0]]
    return out


def bound_mutations(
    section: str, text: str, param_types: Mapping[str, LeanType] | None = None, *, recursive_names: Sequence[str] = ()
) -> list[Mutation]:
    """``bound`` and ``drop-last`` mutants of one section body, in source order (``[]`` when the
    text does not lex). Positions are :mod:`.mutants`' safe ones: no binder, pattern, proof or
    recursion step is touched."""
    analysis = analyse_section(text, param_types, recursive_names)
    if analysis is None:
        return []
    toks = analysis.tokens
    bound = {t.value for i, t in enumerate(toks) if t.kind == IDENT and analysis.skip[i]}
    droppable = {p: call for p, call in _sequence_parameters(param_types or {}).items() if p not in bound}
    out: list[Mutation] = []
    for i, tok in enumerate(toks):
        if analysis.skip[i]:
            continue
        if tok.kind in (IDENT, FIELD) and tok.parts and tok.parts[-1] in ("take", "drop"):
            end = _argument_end(analysis, i + 1)
            if end is not None and not (tok.kind == IDENT and tok.parts[0][:1].isupper() and len(tok.parts) == 1):
                out += _shifted(section, analysis, tok, i + 1, end, f"{tok.parts[-1]}-count")
        elif analysis.is_index_bracket(i):
            close = analysis.closer[i]
            after = toks[close + 1] if close + 1 < len(toks) else None
            inner = toks[i + 1 : close]
            guarded = after is not None and after.is_sym("!", "?") and not after.space_before
            if guarded and inner and not (len(inner) == 1 and inner[0].kind == NUM):
                if not any(analysis.skip[i + 1 : close]):
                    out += _shifted(section, analysis, tok, i + 1, close, "index")
        elif tok.kind == IDENT and tok.parts and tok.parts[0] in droppable:
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is not None and nxt.is_sym("[") and not nxt.space_before:
                continue  # `xs[i]`: an index, whose bound may be proved
            name = tok.parts[0]
            call = droppable[name]
            # `xs` → `(xs.dropLast)`, also as the receiver of a call: `(xs.dropLast).foldl f 0`
            out.append(
                Mutation(
                    section,
                    tok.line,
                    tok.col,
                    "drop-last",
                    f"{name}-drop-last",
                    f"{section} line {tok.line}: `{name}` → `({name}.{call})`",
                    (Edit(tok.offset, tok.offset + len(name), f"({name}.{call})"),),
                )
            )
    return [m for m in out if _lexes_as_expected(text, toks, m)]


def _code_params(task: Task) -> dict[str, LeanType]:
    return dict(_parameters(task))


def subtle_mutations(task: Task) -> list[Mutation]:
    """Every first-order subtle mutant of the task: ``bound``/``drop-last`` in ``code_aux`` and
    ``code`` (source order), then the guards."""
    out = bound_mutations("code_aux", task.section("code_aux"))
    out += bound_mutations(
        "code", task.section("code"), _code_params(task), recursive_names=[task.signature.name]
    )
    out += guard_mutations(task)
    return out


# ---------------------------------------------------------------------------------------------
# Second order


def _overlap(a: Mutation, b: Mutation) -> bool:
    if a.section != b.section:
        return False
    for x in a.edits:
        for y in b.edits:
            if x.start < y.end and y.start < x.end:
                return True
            if x.start == y.start:
                return True  # two insertions (or an insertion and a change) at one place
    return False


def combine(a: Mutation, b: Mutation) -> Mutation | None:
    """The two changes at once (``None`` when their edits touch), ordered by position."""
    if _overlap(a, b):
        return None
    first, second = sorted((a, b), key=lambda m: (m.section != "code_aux", m.edits[0].start, m.id))
    if first.section != second.section:
        return None  # one adversary replaces one section (see ``mutant_sections``)
    return Mutation(
        first.section,
        first.line,
        first.col,
        "second-order",
        first.change + ORDER_SEPARATOR + second.id,
        f"{first.description}; and {second.description}",
        first.edits + second.edits,
    )


def split_order(adversary_id: str) -> list[str]:
    """The ids of the changes of a (possibly second-order) mutant id."""
    parts = adversary_id.split(ORDER_SEPARATOR + "mutant:")
    return [parts[0], *("mutant:" + p for p in parts[1:])]
