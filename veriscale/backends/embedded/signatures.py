"""Lean signatures of the builtins, parsed from the text of their declarations.

Each builtin is registered with its full Lean (v4.24) signature, written as the declaration writes
it after the name: binders, a colon, the type.

    {α : Type u} {β : Type v} (f : α → β → α) : (init : α) → List β → α     -- List.foldl
    {α : Type u} [BEq α] (a : α) : List α → Bool                           -- List.elem
    {α : Type u} (xs : Array α) (i j : Nat) (hi : i < xs.size := by get_elem_tactic)
        (hj : j < xs.size := by get_elem_tactic) : Array α                 -- Array.swap

Binders are explicit ``(x : T)``, implicit ``{x : T}``, strict implicit ``⦃x : T⦄`` and instance
``[C α]`` / ``[inst : C α]``; an explicit binder may carry a default, an ``optParam``
(``(start : Nat := 0)``) or an ``autoParam`` (``(h : i < n := by get_elem_tactic)``). Binder types
are always written (Lean may infer ``(start := 0)``'s type; here it is spelt ``(start : Nat :=
0)``, which is the type Lean elaborates). Where the declaration's type itself begins with binders
(``: (init : α) → List β → α``), those are binders of the signature too: Lean's field notation and
named arguments see every binder of the type (``Lean.Elab.App``, ``addLValArg`` walks the whole
``forallMetaTelescope`` of the function's type), so the explicit parameters of ``List.foldl`` are
``f``, ``init`` and an anonymous ``List β``, and its result type is ``α``.

From the parsed :class:`BuiltinSignature` the registry derives what the evaluator needs: the
number of explicit parameters (the arity), how many trailing ones have defaults, which are proofs,
which implicit ones carry values (``{n : Nat}``), and the receiver position of field notation
(:meth:`BuiltinSignature.receiver_index`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cache

from veriscale.lean.types import (
    FunType,
    LeanType,
    LeanTypeError,
    NamedType,
    PropType,
    SortType,
    parse_signature_type,
    type_head,
)

__all__ = ["Binder", "BinderKind", "BuiltinSignature", "SignatureError", "parse_signature", "type_head"]


class SignatureError(ValueError):
    """A signature text that could not be read; says which text and why."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{reason} in Lean signature {text!r}")


class BinderKind(str, Enum):
    EXPLICIT = "explicit"
    IMPLICIT = "implicit"
    STRICT = "strict"
    """Strict implicit ``⦃x : T⦄``."""
    INST = "inst"
    """Instance implicit ``[C α]``."""


_OPEN_KIND = {"(": BinderKind.EXPLICIT, "{": BinderKind.IMPLICIT, "⦃": BinderKind.STRICT, "[": BinderKind.INST}
_CLOSE = {"(": ")", "{": "}", "⦃": "⦄", "[": "]"}
_BRACKETS = {"(": ")", "{": "}", "⦃": "⦄", "[": "]"}


@dataclass(frozen=True, slots=True)
class Binder:
    name: str | None
    """The binder's name; ``None`` for an anonymous one (``[BEq α]``, the ``List β`` of ``List β → α``)."""
    kind: BinderKind
    type: LeanType
    """A :mod:`veriscale.lean.types` type; a proof binder's type is a :class:`PropType`."""
    default: str | None = None
    """The text after ``:=`` (an ``optParam`` value, or ``by tactic`` for an ``autoParam``)."""

    @property
    def is_explicit(self) -> bool:
        return self.kind is BinderKind.EXPLICIT

    @property
    def is_proof(self) -> bool:
        return isinstance(self.type, PropType)

    @property
    def is_universe(self) -> bool:
        """A type parameter: its type is a universe (``{α : Type u}``, ``(α : Type)``)."""
        return _is_universe(self.type)

    def __str__(self) -> str:
        open_, close = {
            BinderKind.EXPLICIT: ("(", ")"),
            BinderKind.IMPLICIT: ("{", "}"),
            BinderKind.STRICT: ("⦃", "⦄"),
            BinderKind.INST: ("[", "]"),
        }[self.kind]
        name = self.name if self.name is not None else "_"
        body = f"{name} : {self.type}" if self.kind is not BinderKind.INST or self.name else str(self.type)
        if self.default is not None:
            body += f" := {self.default}"
        return f"{open_}{body}{close}"


def _is_universe(ty: LeanType) -> bool:
    return isinstance(ty, SortType) or (isinstance(ty, NamedType) and not ty.args and ty.name in ("Type", "Prop", "Sort"))


@dataclass(frozen=True, slots=True)
class BuiltinSignature:
    text: str
    """The signature as written at registration."""
    binders: tuple[Binder, ...]
    """Every binder of the declaration's type, in order (header binders, then those of the type)."""
    result: LeanType
    """The type after the last binder."""

    @property
    def explicit(self) -> tuple[Binder, ...]:
        return tuple(b for b in self.binders if b.is_explicit)

    @property
    def arity(self) -> int:
        """Number of explicit parameters: the arguments a full application takes, in order."""
        return len(self.explicit)

    @property
    def optional_count(self) -> int:
        """Number of trailing explicit parameters with a default (an argument that may be left out)."""
        count = 0
        for b in reversed(self.explicit):
            if b.default is None:
                break
            count += 1
        return count

    @property
    def proof_positions(self) -> frozenset[int]:
        """Positions (among the explicit parameters) of the proof parameters."""
        return frozenset(i for i, b in enumerate(self.explicit) if b.is_proof)

    @property
    def value_implicits(self) -> tuple[str, ...]:
        """Names of implicit parameters that carry a value rather than a type or an instance
        (``{n : Nat}`` of ``Array.ofFn``): a call may give them as named arguments."""
        return tuple(
            b.name
            for b in self.binders
            if b.kind in (BinderKind.IMPLICIT, BinderKind.STRICT) and b.name is not None and not b.is_universe
        )

    @property
    def instances(self) -> tuple[LeanType, ...]:
        """The instance binders' classes: ``(BEq α,)`` for ``List.elem``."""
        return tuple(b.type for b in self.binders if b.kind is BinderKind.INST)

    def receiver_index(self, namespace: str) -> int | None:
        """Where ``x`` goes in ``x.f args`` for ``f`` in ``namespace``: Lean (``Lean.Elab.App``,
        ``addLValArg``) takes the first binder, of any kind, whose type's head is the namespace
        (any arrow for ``Function``); if that binder is explicit, ``x`` is inserted at its position
        among the explicit arguments. ``None`` when that binder is not explicit (Lean then passes
        ``x`` as a named argument) or when no binder has such a type (Lean rejects ``x.f``)."""
        position = 0
        for b in self.binders:
            if type_head(b.type) == namespace:
                return position if b.is_explicit else None
            if b.is_explicit:
                position += 1
        return None

    def __str__(self) -> str:
        return self.text


# ---------------------------------------------------------------------------------------------
# Parsing


def _matching(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start`` (nested brackets of any kind skipped)."""
    stack = [_BRACKETS[text[start]]]
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch in _BRACKETS:
            stack.append(_BRACKETS[ch])
        elif ch == stack[-1]:
            stack.pop()
            if not stack:
                return i
        elif ch in _BRACKETS.values():
            raise SignatureError(text, f"unbalanced {ch!r} at position {i}")
        i += 1
    raise SignatureError(text, f"unclosed {text[start]!r} at position {start}")


def _top_level(text: str, needle: str) -> int:
    """Index of the first ``needle`` outside brackets (``-1`` if none)."""
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in _BRACKETS:
            depth += 1
        elif ch in _BRACKETS.values():
            depth -= 1
        elif depth == 0 and text.startswith(needle, i):
            return i
        i += 1
    return -1


def _type(text: str, whole: str) -> LeanType:
    try:
        return parse_signature_type(text.strip())
    except LeanTypeError as exc:
        raise SignatureError(whole, f"binder type {text.strip()!r}: {exc.reason}") from exc


def _group(open_: str, body: str, whole: str) -> list[Binder]:
    """The binders of one bracketed group: ``x y : T := d`` inside ``open_``."""
    kind = _OPEN_KIND[open_]
    default: str | None = None
    cut = _top_level(body, ":=")
    if cut >= 0:
        if kind is not BinderKind.EXPLICIT:
            raise SignatureError(whole, "only explicit binders take a default")
        default = " ".join(body[cut + 2 :].split())
        body = body[:cut]
    colon = _top_level(body, ":")
    if kind is BinderKind.INST:
        if colon < 0:
            return [Binder(None, kind, _type(body, whole))]
        return [Binder(_name(body[:colon].strip()), kind, _type(body[colon + 1 :], whole))]
    if colon < 0:
        raise SignatureError(whole, f"binder {body.strip()!r} has no type")
    names = body[:colon].split()
    if not names:
        raise SignatureError(whole, "binder without a name")
    ty = _type(body[colon + 1 :], whole)
    return [Binder(_name(name), kind, ty, default) for name in names]


def _name(text: str) -> str | None:
    """A binder name; ``_`` (as in Std's ``variable {_ : BEq α}``) is anonymous."""
    return None if text == "_" else text


def _leading_binders(text: str, whole: str) -> tuple[list[Binder], str]:
    """Bracketed binder groups at the start of ``text``; returns them and the rest."""
    binders: list[Binder] = []
    rest = text.strip()
    while rest and rest[0] in _OPEN_KIND:
        end = _matching(rest, 0)
        binders.extend(_group(rest[0], rest[1:end], whole))
        rest = rest[end + 1 :].strip()
    return binders, rest


def _type_binders(text: str, whole: str) -> tuple[list[Binder], LeanType]:
    """The binders at the head of a type (``(init : α) → List β → α``, ``∀ (as : List α), as ≠ [] → α``)
    and the type that remains."""
    binders: list[Binder] = []
    rest = text.strip()
    while True:
        if rest.startswith("∀"):
            comma = _top_level(rest, ",")
            if comma < 0:
                raise SignatureError(whole, "'∀' without ','")
            group, leftover = _leading_binders(rest[1:comma], whole)
            if leftover or not group:
                raise SignatureError(whole, f"unsupported '∀' binders {rest[1:comma].strip()!r}")
            binders.extend(group)
            rest = rest[comma + 1 :].strip()
            continue
        if rest and rest[0] in _OPEN_KIND:
            end = _matching(rest, 0)
            after = rest[end + 1 :].lstrip()
            inner = rest[1:end]
            is_binder = rest[0] != "(" or (_top_level(inner, ":") >= 0 and _top_level(inner, "×") < 0)
            if is_binder and after.startswith(("→", "->")):
                binders.extend(_group(rest[0], inner, whole))
                rest = after[1:] if after.startswith("→") else after[2:]
                rest = rest.strip()
                continue
        break
    ty = _type(rest, whole)
    while isinstance(ty, FunType):
        binders.append(Binder(None, BinderKind.EXPLICIT, ty.domain))
        ty = ty.codomain
    return binders, ty


@cache
def parse_signature(text: str) -> BuiltinSignature:
    """Parse ``binders : type`` (the text of a declaration after its name)."""
    binders, rest = _leading_binders(text, text)
    if not rest.startswith(":") or rest.startswith(":="):
        raise SignatureError(text, "expected ':' and the type after the binders")
    more, result = _type_binders(rest[1:], text)
    return BuiltinSignature(" ".join(text.split()), tuple(binders + more), result)
