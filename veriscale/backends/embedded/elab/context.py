"""The elaborator's state: local context, hypotheses in scope, diagnostics.

A *diagnostic* is either an ``error`` (Lean rejects the command: the message names what Lean would
say) or a ``gap`` (the elaborator cannot tell whether Lean accepts: a construct, builtin or proof
it does not model). Gaps are never silent: a section with a gap is not known to be well-typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.node_types import NodeTypes
from veriscale.lean.types import LeanType

DiagnosticKind = Literal["error", "gap"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    kind: DiagnosticKind
    line: int
    col: int
    message: str
    rule: str
    """A short tag of the rule: ``type-mismatch``, ``getelem-bound``, ``unknown-identifier``, ..."""
    decl: str = ""
    """The declaration being elaborated."""

    def format(self) -> str:
        what = "Lean would reject it" if self.kind == "error" else "cannot tell whether Lean accepts it"
        return f"line {self.line}, column {self.col}: {self.message} ({what}; {self.rule})"


@dataclass(frozen=True, slots=True)
class ProofType(LeanType):
    """The type of a proof of the proposition ``prop`` (a hypothesis binder ``h : i < n``)."""

    prop: A.Node
    text: str
    fvars: frozenset[str] = frozenset()
    """Names in ``prop`` that are local variables (not ``let``-bound): definitional unfolding never
    makes two distinct ones equal."""
    is_proof = True

    def _render(self, prec: int) -> str:
        return A.lean_syntax(self.prop)  # `text` is the comparison key; this is what a user reads

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProofType) and other.text == self.text


LocalKind = Literal["var", "mut", "let", "aux", "pattern"]


@dataclass(frozen=True, slots=True)
class LocalDecl:
    name: str
    type: LeanType
    kind: LocalKind = "var"
    aux_of: str | None = None
    """For ``where``/``let rec`` helpers seen as locals: the global name of the helper."""


@dataclass(frozen=True, slots=True)
class LocalInstance:
    """A local of class type (:mod:`.instances`): ``have``/``let`` in a term, or an instance binder."""

    name: str
    cls: str
    type: LeanType
    """The class's argument (``Int`` in ``BEq Int``)."""
    source: Literal["have", "let", "binder"]
    decl: A.LetDecl | None
    modelled: bool = True
    """Whether the engine evaluates it (:data:`.instances.MODELLED_METHODS`)."""


@dataclass(frozen=True, slots=True)
class Fact:
    """A proposition a tactic may use: a hypothesis in scope (named or anonymous), or a fact the
    elaborator knows from the construct (``i ∈ [a:b]`` of ``for h : i in [a:b]``)."""

    prop: A.Node
    source: str


@dataclass(frozen=True, slots=True)
class Ctx:
    """An immutable local context: locals by name (innermost wins) and facts in scope."""

    locals: tuple[LocalDecl, ...] = ()
    facts: tuple[Fact, ...] = ()
    monad: LeanType | None = None
    """Inside ``do``: the monad (``Id``, ``Option``) -- ``None`` outside ``do``."""
    do_return: LeanType | None = None
    """Inside ``do``: the type ``return`` must give."""
    in_loop: bool = False
    instances: tuple[LocalInstance, ...] = ()
    """The local instances in scope, oldest first (Lean tries the most recent first)."""

    def lookup(self, name: str) -> LocalDecl | None:
        for decl in reversed(self.locals):
            if decl.name == name:
                return decl
        return None

    def bind(self, name: str, ty: LeanType, kind: LocalKind = "var", aux_of: str | None = None) -> Ctx:
        if not name or name == "_":
            return self
        return Ctx(self.locals + (LocalDecl(name, ty, kind, aux_of),), self.facts, self.monad, self.do_return,
                   self.in_loop, self.instances)

    def assume(self, prop: A.Node, source: str) -> Ctx:
        return Ctx(self.locals, self.facts + (Fact(prop, source),), self.monad, self.do_return, self.in_loop,
                   self.instances)

    def with_do(self, monad: LeanType | None, do_return: LeanType | None, in_loop: bool | None = None) -> Ctx:
        return Ctx(self.locals, self.facts, monad, do_return, self.in_loop if in_loop is None else in_loop,
                   self.instances)

    def with_instance(self, inst: LocalInstance) -> Ctx:
        return replace(self, instances=self.instances + (inst,))


@dataclass
class Report:
    """Everything the elaborator found in one file."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    declarations: int = 0
    node_types: NodeTypes = field(default_factory=NodeTypes)
    """The type of each term of the declarations elaborated without an error (the compiler's)."""
    local_instances: dict[int, tuple[A.LetDecl, str, A.Node]] = field(default_factory=dict)
    """Local instance declarations the engine evaluates, by ``id`` of the ``let``/``have``
    declaration: the declaration, its class and the method's implementation (:mod:`.instances`)."""
    instance_choices: dict[tuple[str, int, int], Any] = field(default_factory=dict)
    """Uses of a class that resolve to one of those local instances, by
    :func:`.instances.use_key` of the using term: its :class:`.instances.InstanceChoice`."""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.kind == "error"]

    @property
    def gaps(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.kind == "gap"]

    def within(self, first_line: int, last_line: int) -> list[Diagnostic]:
        return [d for d in self.diagnostics if first_line <= d.line <= last_line]
