"""The contract between the evaluator and the library of Lean builtins.

A builtin is a Python function implementing one Lean declaration with Lean's exact semantics on
runtime values (``veriscale.lean.values``). The evaluator resolves a name -- ``List.foldl`` from a
qualified call, or ``xs.foldl f 0`` through field notation on a value of type ``List`` -- to a
:class:`Builtin` and calls it with the *explicit* arguments in Lean's declared order.

Every builtin is registered once, with its full Lean signature as text
(:mod:`.signatures`): ``@builtin("List.foldl", "{α : Type u} {β : Type v} (f : α → β → α) :
(init : α) → List β → α")``. Everything the evaluator needs about parameters is derived from it:

* ``arity`` is the number of explicit parameters; they are passed in declaration order
  (``List.foldl f init l`` is called as ``fn(f, init, l)``); implicit and instance arguments are not
  passed, except an implicit value parameter (``{n : Nat}`` of ``Array.ofFn``) that the call names
  (``Array.ofFn (n := 3) f``): it arrives as a keyword argument.
* Trailing explicit parameters with a default (``(start : Nat := 0)``, ``(h : i < xs.size := by
  get_elem_tactic)``) may be left out; the Python function has defaults for them.
* A proof parameter (its type is a proposition) receives the proof token, the proof is not
  evaluated.
* ``self_index`` is the position of the explicit argument that receives ``x`` in ``x.name ...``:
  Lean's rule (``Lean.Elab.App``, ``addLValArg``) takes the first binder whose type's head is the
  namespace (``List.foldl``'s anonymous ``List β``, index 2). When no explicit binder qualifies,
  ``field_notation`` is false and ``self_index`` is 0.
* ``verified`` says whether the signature was checked against Lean's source (v4.24, or Mathlib
  for Mathlib's declarations); an unverified one keeps what the engine assumed before.
* ``declared_as`` names the Lean declaration when the builtin is an instance of a more general one
  (``List.getElem!`` is ``GetElem?.getElem!`` at ``List α``, ``Nat``, ``α``); the signature is
  then that declaration's, specialised.
* Function arguments arrive as Python callables; calling one with several arguments applies them
  in order (Lean functions are curried).
* Builtins that cannot know a type from their values alone (``List.sum []`` is ``0`` of which
  type? the default of ``xs[i]!`` on an empty array) declare ``typed=True`` and receive a
  keyword argument ``result_type`` (a ``veriscale.lean.types`` type, or ``None`` when the
  evaluator does not know it). With ``None`` where the type matters they raise
  :class:`veriscale.lean.values.Unsupported` -- they never guess.
* Propositions with a ``Decidable`` instance in Lean (``List.Nodup``, ``List.Pairwise``, ...) are
  builtins returning ``bool``; the evaluator treats them as decided.
* Work is bounded: a builtin that would build a collection larger than :data:`MAX_COLLECTION`
  elements raises :class:`veriscale.lean.values.BudgetExceeded` instead of exhausting memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from veriscale.backends.embedded.signatures import BuiltinSignature, parse_signature

MAX_COLLECTION = 5_000_000
"""Largest collection a single builtin may build (a ``List.range`` of ten million is a bug)."""


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    """Fully qualified Lean name, e.g. ``List.foldl``."""
    fn: Callable[..., Any]
    signature: BuiltinSignature
    typed: bool = False
    verified: bool = True
    declared_as: str | None = None
    arity: int = field(init=False)
    """Number of explicit arguments."""
    self_index: int = field(init=False)
    """Receiver position of field notation (0 when ``field_notation`` is false)."""
    field_notation: bool = field(init=False)

    def __post_init__(self) -> None:
        receiver = self.signature.receiver_index(namespace_of(self.name)) if "." in self.name else None
        object.__setattr__(self, "arity", self.signature.arity)
        object.__setattr__(self, "self_index", receiver if receiver is not None else 0)
        object.__setattr__(self, "field_notation", receiver is not None)


def namespace_of(name: str) -> str:
    """``List`` for ``List.foldl``, ``Std.HashMap`` for ``Std.HashMap.insert``."""
    return name.rpartition(".")[0]


BUILTINS: dict[str, Builtin] = {}


def builtin(name: str, signature: str, *, typed: bool = False, verified: bool = True,
            declared_as: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn`` as the implementation of the Lean declaration ``name`` whose signature (the
    text after the name: binders, ``:``, type) is ``signature``."""
    parsed = parse_signature(signature)

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in BUILTINS:
            raise ValueError(f"builtin {name} registered twice")
        BUILTINS[name] = Builtin(name, fn, parsed, typed=typed, verified=verified, declared_as=declared_as)
        return fn

    return register


def alias(new_name: str, existing: str, signature: str, *, verified: bool = True,
          declared_as: str | None = None) -> None:
    """Register another Lean declaration implemented by an existing builtin's function
    (``List.get!`` / ``List.getElem!``); it has its own signature."""
    old = BUILTINS[existing]
    builtin(new_name, signature, typed=old.typed, verified=verified, declared_as=declared_as)(old.fn)
