"""The program environment: user definitions, structures, inductives and instances of a task.

Built by :mod:`.program` from parsed commands and consulted by the compiler for name resolution.
Definitions are compiled lazily (on first use), so a construct the engine does not support only
affects the checks that actually reach it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.resolve import FileScopes, OpenDecl, ScopeState, aux_locals, resolve_name
from veriscale.lean.types import LeanType


@dataclass(eq=False)
class UserDef:
    """A top-level ``def``/``abbrev`` (or an instance method, or a ``where`` helper)."""

    name: str
    """Fully qualified name."""
    cmd: A.DefCmd
    namespace: str
    """Where the compiler's own lookup (``find_def``) starts: the namespace of the body for a
    top-level definition, the parent's full name for a ``where`` helper. Lean's scope is
    :attr:`scope`."""
    opens: tuple[str, ...] = ()
    """Namespaces the compiler opens for this definition (every ``open`` before it, plus its
    ``open … in``); Lean's open declarations in force are ``scope.open_decls``."""
    scope: ScopeState | None = None
    """The scope Lean elaborates the body in (:mod:`.resolve`): namespace, open declarations in
    force, and the position that bounds the visible declarations."""
    reducible: bool = False
    explicit: list[A.Binder] = field(default_factory=list)
    """Explicit binders (one per name), in order."""
    type_params: tuple[str, ...] = ()
    param_types: list[LeanType | None] = field(default_factory=list)
    param_is_proof: list[bool] = field(default_factory=list)
    return_type: LeanType | None = None
    returns_prop: bool = False
    run: Any = None
    """After compilation: ``run(env, args)``."""
    compile_error: BaseException | None = None
    compiling: bool = False
    arity: int = 0
    equation_arity: int = 0
    """Extra parameters taken by equation-style definitions (``def f : Nat → Nat | 0 => ...``)."""

    @property
    def where(self) -> str:
        return f"{self.name} (line {self.cmd.line})"


@dataclass(eq=False)
class StructInfo:
    name: str
    params: list[str]
    fields: list[tuple[str, LeanType | None, A.Node | None]]
    """Field name, type (with structure parameters as type variables), default value."""
    deriving: set[str]
    ctor: str
    cmd: A.StructureCmd
    scope: ScopeState | None = None

    def field_index(self, name: str) -> int:
        for i, (n, _, _) in enumerate(self.fields):
            if n == name:
                return i
        return -1


@dataclass(eq=False)
class CtorInfo:
    name: str
    """Fully qualified: ``Tree.node``."""
    type_name: str
    arg_types: list[LeanType | None]
    arg_names: list[str]


@dataclass(eq=False)
class IndInfo:
    name: str
    params: list[str]
    ctors: list[CtorInfo]
    deriving: set[str]
    cmd: A.InductiveCmd
    scope: ScopeState | None = None


@dataclass(eq=False)
class InstanceInfo:
    class_name: str
    """``BEq``, ``LT``, ``Ord``, ``ToString``, ``Inhabited``, ``Hashable``, ``Repr``, ``Decidable``..."""
    type_name: str | None
    """Head of the instance type (``Point`` in ``BEq Point``); the def name for ``Decidable``."""
    methods: dict[str, UserDef]
    body: A.Node | None
    cmd: A.InstanceCmd
    namespace: str
    scope: ScopeState | None = None


@dataclass(eq=False)
class Env:
    defs: dict[str, UserDef] = field(default_factory=dict)
    structs: dict[str, StructInfo] = field(default_factory=dict)
    inductives: dict[str, IndInfo] = field(default_factory=dict)
    ctors: dict[str, CtorInfo] = field(default_factory=dict)
    instances: list[InstanceInfo] = field(default_factory=list)
    opens: list[str] = field(default_factory=list)
    errors: dict[str, A.CommandError] = field(default_factory=dict)
    """Definitions that failed to parse, by the name they would define."""
    has_mathlib: bool = False
    std_containers: frozenset[str] = frozenset({"Std.HashMap", "Std.HashSet"})
    """The ``Std`` container types the file's imports bring (:func:`.resolve.std_containers`)."""
    scopes: FileScopes | None = None
    """Lean's scopes and declarations of the file (:func:`.resolve.walk_scopes`)."""

    def instance(self, class_name: str, type_name: str | None) -> InstanceInfo | None:
        for inst in self.instances:
            if inst.class_name == class_name and inst.type_name == type_name:
                return inst
        return None


def resolve_in(env: Env, udef: UserDef, name: str, extra_opens: tuple[str, ...] = ()) -> list[str] | None:
    """The global declarations ``name`` denotes inside ``udef`` (Lean's rules, :mod:`.resolve`),
    without field access: several are ambiguous, none unknown. ``extra_opens`` are the namespaces
    an enclosing ``open … in`` term adds. ``None`` when ``udef`` carries no scope."""
    scopes = env.scopes
    if udef.scope is None or scopes is None:
        return None
    decls = scopes.declarations
    scope = udef.scope
    if extra_opens:
        scope = ScopeState(scope.namespace, scope.open_decls + tuple(OpenDecl.simple(n) for n in extra_opens),
                           scope.position)
    decl = decls.lookup(udef.name)
    locals_ = aux_locals(decl, decls) if decl is not None else []
    out: list[str] = []
    for cand in resolve_name(name, locals_, scope, decls):
        if cand.fields:
            continue
        full = cand.local.full_name if cand.local is not None else cand.name
        if full and full not in out:
            out.append(full)
    return out


_Found = TypeVar("_Found")


def find_scoped(table: Mapping[str, _Found], name: str, namespace: str = "", opens: Iterable[str] = ()) -> _Found | None:
    """``name`` looked up the way a definition without a resolved scope sees it: in ``namespace``
    and each enclosing one (innermost first), then at the root, then in each opened namespace."""
    ns = namespace
    while ns:
        found = table.get(f"{ns}.{name}")
        if found is not None:
            return found
        ns = ns.rpartition(".")[0]
    found = table.get(name)
    if found is not None:
        return found
    for opened in opens:
        found = table.get(f"{opened}.{name}")
        if found is not None:
            return found
    return None
