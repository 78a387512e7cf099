"""Binders of user definitions: their names, their types, and which of them are proofs.

Needed both to index a task's file (:mod:`.program`) and to compile its definitions
(:mod:`.compiler`); they live in a module of their own so that neither of those imports the other's.
"""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.env import Env, UserDef
from veriscale.lean.types import LeanType, LeanTypeError, parse_type


def type_of_text(text: str) -> LeanType | None:
    """Parse a binder's type text; ``None`` when it is not a plain data type."""
    text = text.strip()
    if not text:
        return None
    try:
        return parse_type(text)
    except (LeanTypeError, ValueError, RecursionError):
        return None


def _binder_names(binders: list[A.Binder]) -> list[tuple[str, A.Binder]]:
    out: list[tuple[str, A.Binder]] = []
    for b in binders:
        if b.kind != "explicit":
            continue
        for n in b.names or ["_"]:
            out.append((n, b))
    return out


def is_proof_binder(binder: A.Binder, env: Env, namespace: str = "") -> bool:
    """A binder whose type is a proposition (``h_precond : foo_precond a b``, ``h : i < n``)."""
    ty = binder.type
    if ty is None:
        return False
    if isinstance(ty, A.BinOp) and ty.op in ("<", "≤", ">", "≥", "=", "≠", "∧", "∨", "↔", "∈", "∉"):
        return True
    if isinstance(ty, A.UnOp) and ty.op == "¬":
        return True
    head = ty.fn if isinstance(ty, A.App) else ty
    if isinstance(head, A.Ident):
        for cand in (head.name, f"{namespace}.{head.name}" if namespace else head.name):
            d = env.defs.get(cand)
            if d is not None:
                return d.returns_prop
    return False


def explicit_params(d: UserDef) -> list[tuple[str, A.Binder]]:
    return _binder_names(d.cmd.binders)
