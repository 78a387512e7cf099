"""The contract between the evaluator and the library of Lean builtins.

A builtin is a Python function implementing one Lean declaration with Lean's exact semantics on
runtime values (``veriscale.runtime``). The evaluator resolves a name -- ``List.foldl`` from a
qualified call, or ``xs.foldl f 0`` through field notation on a value of type ``List`` -- to a
:class:`Builtin` and calls it with the *explicit* arguments in Lean's declared order.

Conventions every builtin follows:

* Implicit and instance arguments are not passed. Explicit ones are, in declaration order
  (``List.foldl (f : α → β → α) (init : α) (l : List β)`` is called as ``fn(f, init, l)``).
  Two exceptions are declared in ``builtins/__init__.py``: an implicit parameter listed in
  ``IMPLICIT_ARGS`` that the call names (``Array.ofFn (n := 3) f``) arrives as a keyword argument,
  and an explicit proof parameter listed in ``PROOF_PARAMS`` (``Array.swap xs i j hi hj``) receives
  the proof token instead of the evaluated proof.
* ``self_index`` is the position of the explicit argument that receives ``x`` in ``x.name ...``
  (Lean picks the first explicit argument whose type head is the namespace; for ``List.foldl``
  that is ``l``, index 2).
* Function arguments arrive as Python callables; calling one with several arguments applies them
  in order (Lean functions are curried).
* Builtins that cannot know a type from their values alone (``List.sum []`` is ``0`` of which
  type? the default of ``xs[i]!`` on an empty array) declare ``typed=True`` and receive a
  keyword argument ``result_type`` (a ``veriscale.lean_types`` type, or ``None`` when the
  evaluator does not know it). With ``None`` where the type matters they raise
  :class:`veriscale.runtime.Unsupported` -- they never guess.
* Propositions with a ``Decidable`` instance in Lean (``List.Nodup``, ``List.Pairwise``, ...) are
  builtins returning ``bool``; the evaluator treats them as decided.
* Work is bounded: a builtin that would build a collection larger than :data:`MAX_COLLECTION`
  elements raises :class:`veriscale.runtime.BudgetExceeded` instead of exhausting memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_COLLECTION = 5_000_000
"""Largest collection a single builtin may build (a ``List.range`` of ten million is a bug)."""


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    """Fully qualified Lean name, e.g. ``List.foldl``."""
    fn: Callable[..., Any]
    arity: int
    """Number of explicit arguments."""
    self_index: int = 0
    typed: bool = False


BUILTINS: dict[str, Builtin] = {}


def builtin(name: str, arity: int, *, self_index: int = 0, typed: bool = False) -> Callable[
    [Callable[..., Any]], Callable[..., Any]
]:
    """Register ``fn`` as the implementation of the Lean declaration ``name``."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in BUILTINS:
            raise ValueError(f"builtin {name} registered twice")
        if not 0 <= self_index < max(arity, 1):
            raise ValueError(f"builtin {name}: self_index {self_index} out of range for arity {arity}")
        BUILTINS[name] = Builtin(name=name, fn=fn, arity=arity, self_index=self_index, typed=typed)
        return fn

    return register


def alias(new_name: str, existing: str) -> None:
    """Register another Lean name for an existing builtin (e.g. ``List.elem`` / ``List.contains``)."""
    old = BUILTINS[existing]
    if new_name in BUILTINS:
        raise ValueError(f"builtin {new_name} registered twice")
    BUILTINS[new_name] = Builtin(new_name, old.fn, old.arity, old.self_index, old.typed)
