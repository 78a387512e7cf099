"""Name resolution as Lean 4 does it: scopes, declarations, and what an identifier refers to.

This module is pure: it reads parsed commands (:mod:`.ast`) and answers questions; it never
evaluates. It follows Lean's own procedures, cited by file and function (Lean v4.24 sources):

* scopes -- ``Lean/Elab/BuiltinCommand.lean``: ``elabNamespace``/``addNamespace`` push one
  scope per name component, ``elabSection`` pushes scopes that keep the namespace, ``elabEnd``
  checks the name against the innermost scopes and pops them, and every scope starts with the
  ``open`` declarations of the scope around it (so an ``open`` ends with its section or
  namespace); ``expandInCmd`` turns ``open X in cmd`` into ``section open X cmd end``;
* ``open`` -- ``Lean/Elab/Open.lean`` ``elabOpenDecl``: ``open A`` adds ``OpenDecl.simple A []``
  for every namespace ``A`` resolves to, ``open A hiding x`` adds ``OpenDecl.simple A [x]``,
  ``open A (x)`` and ``open A renaming x → y`` add ``OpenDecl.explicit`` entries, each ``x``
  resolved when the command runs;
* ``export`` -- ``elabExport``: an alias ``<current namespace>.x ↦ A.x``;
* declaration names -- ``Lean/Elab/Declaration.lean`` ``expandDeclNamespace?`` (``def A.B.f``
  is ``namespace A.B def f end A.B``; a ``_root_.`` name is not), ``Lean/Elab/DeclModifiers.lean``
  ``mkDeclName`` (``_root_``, ``protected`` needs a namespace) and ``checkNotAlreadyDeclared``;
  ``Lean/Elab/LetRec.lean`` ``mkLetRecDeclView`` (a ``where``/``let rec`` helper is named
  ``<declaration>.<helper>`` and elaborated with ``withDeclName`` only: its namespace is the one
  of the declaration's command);
* global names -- ``Lean/ResolveName.lean`` ``resolveGlobalName`` (:func:`resolve_global`);
* local names first -- ``Lean/Elab/Term.lean`` ``resolveLocalName`` and ``resolveName``
  (:func:`resolve_name`);
* field notation and dotted identifiers -- ``Lean/Elab/App.lean`` ``resolveLValAux``/
  ``findMethod?`` (:func:`resolve_field`) and ``resolveDotName`` (:func:`resolve_dot_ident`);
* ambiguity -- ``Lean/Elab/App.lean`` ``elabAppAux``: every candidate is elaborated; one
  success is used, several give "ambiguous, possible interpretations" (:func:`ambiguity_message`).

Declarations outside the file are the engine's builtins plus a small table of core names with
Lean's ``protected`` flags where they are known (:func:`external_declarations`). Lean's
environment has many more names than the engine knows; a name missing from the tables is
missing from the candidates, and the scope walker says "cannot tell" (``certain=False``) where
that could change Lean's answer, never "error".
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace

from veriscale.backends.embedded import ast as A

ROOT = "_root_"
"""``Lean.rootNamespace``: a leading ``_root_.`` names the root namespace explicitly."""

# ---------------------------------------------------------------------------------------------
# Names


def components(name: str) -> list[str]:
    """The components of a dotted name (``«a.b»`` quoting is kept as one component)."""
    out: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in name:
        if ch == "«":
            quoted = True
        elif ch == "»":
            quoted = False
        if ch == "." and not quoted:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def join(*parts: str) -> str:
    """``Name.append``: the anonymous name (``""``) is the unit."""
    return ".".join(p for p in parts if p)


def prefix(name: str) -> str:
    """``Name.getPrefix``: ``A.B.c`` ↦ ``A.B``; an atomic name ↦ ``""``."""
    return ".".join(components(name)[:-1])


def is_atomic(name: str) -> bool:
    return len(components(name)) == 1


def _is_suffix(suffix: Sequence[str], name: Sequence[str]) -> bool:
    """``Name.isSuffixOf`` on components."""
    return len(suffix) <= len(name) and list(name[len(name) - len(suffix):]) == list(suffix)


def _strip_root(name: str) -> str:
    """``id.replacePrefix rootNamespace anonymous``."""
    comps = components(name)
    return ".".join(comps[1:]) if comps and comps[0] == ROOT else name


# ---------------------------------------------------------------------------------------------
# Scopes


@dataclass(frozen=True, slots=True)
class OpenClause:
    """An ``open`` as written: ``kind`` is ``all`` (``open A``), ``only`` (``open A (x y)``),
    ``hiding`` (``open A hiding x y``), ``renaming`` (``open A renaming x → y``) or ``scoped``."""

    namespace: str
    kind: str = "all"
    names: tuple[str, ...] = ()
    renames: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, cmd: A.OpenCmd) -> list[OpenClause]:
        """The clauses of a parsed ``open`` (``open A B`` opens two namespaces)."""
        if cmd.kind in ("all", "scoped"):
            return [cls(ns, cmd.kind) for ns in cmd.names]
        return [cls(cmd.names[0], cmd.kind, tuple(cmd.idents), tuple(cmd.renames))]


@dataclass(frozen=True, slots=True)
class OpenDecl:
    """One entry of Lean's ``OpenDecl`` list (``Lean/Data/OpenDecl.lean``), as ``elabOpenDecl``
    leaves it: ``simple`` (``namespace`` with the ``hiding`` exceptions) or ``explicit`` (the
    identifier ``alias`` stands for the declaration ``target``)."""

    namespace: str = ""
    hiding: tuple[str, ...] = ()
    alias: str = ""
    target: str = ""

    @property
    def is_explicit(self) -> bool:
        return bool(self.alias)

    @classmethod
    def simple(cls, namespace: str, hiding: Iterable[str] = ()) -> OpenDecl:
        return cls(namespace=namespace, hiding=tuple(hiding))

    @classmethod
    def explicit(cls, alias: str, target: str) -> OpenDecl:
        return cls(alias=alias, target=target)

    def __str__(self) -> str:
        if self.is_explicit:
            return f"{self.alias} → {self.target}"
        return self.namespace + (f" hiding {' '.join(self.hiding)}" if self.hiding else "")


FOREVER = 1 << 60
"""A position after every command: everything the file declares is visible there."""


@dataclass(frozen=True, slots=True)
class ScopeState:
    """What name resolution sees at one point of a file: the current namespace, the ``open``
    declarations in force (oldest first) and the position (command index) whose earlier
    declarations are visible."""

    namespace: str = ""
    open_decls: tuple[OpenDecl, ...] = ()
    position: int = FOREVER

    @property
    def opened_namespaces(self) -> tuple[str, ...]:
        """Namespaces opened whole (``open A``, ``open A hiding x``), oldest first."""
        out: list[str] = []
        for d in self.open_decls:
            if not d.is_explicit and d.namespace not in out:
                out.append(d.namespace)
        return tuple(out)


# ---------------------------------------------------------------------------------------------
# Declarations


@dataclass(frozen=True, slots=True)
class Declaration:
    """A declaration in the environment (its user-facing name: a private name is not mangled)."""

    name: str
    kind: str
    """``def``, ``abbrev``, ``theorem``, ``opaque``, ``axiom``, ``instance``, ``structure``,
    ``class``, ``inductive``, ``ctor``, ``field``, ``aux`` (auto-generated: ``rec``, ``casesOn``…),
    ``where``/``let rec`` (helpers), ``error`` (a command that did not parse), ``core``."""
    protected: bool = False
    private: bool = False
    origin: str = "file"
    """``file``, ``core`` (Lean's prelude and standard library) or ``mathlib``."""
    position: int = -1
    """Index of the declaring command (-1: outside the file)."""
    line: int = 0
    short_name: str = ""
    """The name the declaration's own body uses for it (``expandDeclId``'s ``shortName``)."""
    scope: ScopeState | None = None
    """For file declarations: the scope the body is elaborated in."""
    parent: str | None = None
    """For ``where``/``let rec`` helpers: the declaration they belong to."""
    fields: tuple[str, ...] = ()
    """For structures: the fields the structure itself declares (parents' are the parents')."""
    parents: tuple[str, ...] = ()
    """For structures: the parent structures of ``extends``."""
    node: A.Node | None = field(default=None, compare=False)
    mutual: tuple[str, ...] = ()
    """For the definitions of a ``mutual … end`` block: every definition of the block (each body
    sees the others' headers: ``withFunLocalDecls`` in ``Lean.Elab.MutualDef``)."""


class Declarations:
    """The environment name resolution consults: declarations, namespaces and export aliases,
    each with the position it appeared at. Lookups take a position and see only what was
    declared before it (a later ``def`` is not visible to an earlier use)."""

    def __init__(self, base: Declarations | None = None) -> None:
        self._base = base
        self._public: dict[str, Declaration] = {}
        self._private: dict[str, Declaration] = {}
        self._namespaces: dict[str, int] = {}
        self._aliases: dict[str, list[tuple[str, int]]] = {}

    # -- building ---------------------------------------------------------------------------
    def add(self, decl: Declaration) -> None:
        (self._private if decl.private else self._public)[decl.name] = decl
        # `Environment.addDecl` registers every proper prefix of the name as a namespace
        comps = components(decl.name)
        for k in range(1, len(comps)):
            self.register_namespace(".".join(comps[:k]), decl.position)

    def register_namespace(self, namespace: str, position: int) -> None:
        if namespace and namespace not in self._namespaces:
            self._namespaces[namespace] = position

    def add_alias(self, alias: str, target: str, position: int) -> None:
        """``addAlias``: ``alias`` also names ``target``."""
        entries = self._aliases.setdefault(alias, [])
        if all(t != target for t, _ in entries):
            entries.insert(0, (target, position))

    # -- queries ----------------------------------------------------------------------------
    def get(self, name: str, position: int = FOREVER, *, private: bool = False) -> Declaration | None:
        d = (self._private if private else self._public).get(name)
        if d is not None and d.position < position:
            return d
        return self._base.get(name, position, private=private) if self._base is not None else None

    def lookup(self, name: str, position: int = FOREVER) -> Declaration | None:
        """The public declaration ``name``, else the private one."""
        return self.get(name, position) or self.get(name, position, private=True)

    def contains(self, name: str, position: int = FOREVER) -> bool:
        """``env.contains name`` for the public name."""
        return self.get(name, position) is not None

    def contains_private(self, name: str, position: int = FOREVER) -> bool:
        """``env.contains (mkPrivateName env name)``."""
        return self.get(name, position, private=True) is not None

    def is_protected(self, name: str, position: int = FOREVER) -> bool:
        d = self.lookup(name, position)
        return d is not None and d.protected

    def is_namespace(self, namespace: str, position: int = FOREVER) -> bool:
        p = self._namespaces.get(namespace)
        if p is not None and p < position:
            return True
        return self._base.is_namespace(namespace, position) if self._base is not None else False

    def aliases(self, name: str, position: int = FOREVER, *, skip_protected: bool = False) -> list[str]:
        """``getAliases env name skipProtected``: newest first."""
        out = [t for t, p in self._aliases.get(name, ()) if p < position]
        if self._base is not None:
            out += [t for t in self._base.aliases(name, position) if t not in out]
        if skip_protected:
            out = [t for t in out if not self.is_protected(t, position)]
        return out

    def __iter__(self) -> Iterator[Declaration]:
        """The declarations of this layer (not of the base), public then private."""
        yield from self._public.values()
        yield from self._private.values()

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.lookup(name) is not None


# ---------------------------------------------------------------------------------------------
# Declarations outside the file

CORE_PROTECTED: frozenset[str] = frozenset(
    {
        # Init/Prelude.lean: `protected def Nat.add/sub/mul/pow/mod/div`
        "Nat.add", "Nat.sub", "Nat.mul", "Nat.pow", "Nat.mod", "Nat.div",
        # Init/Data/Nat/Basic.lean, "min/max": `protected def min`, `protected def max`
        "Nat.min", "Nat.max",
        # Init/Prelude.lean: `protected def Nat.le`/`Nat.lt` (the relations)
        "Nat.le", "Nat.lt",
        # Init/Data/Int/Basic.lean: `protected def neg/add/mul/sub/le/lt/pow/decEq`, `Int.cast`
        "Int.neg", "Int.add", "Int.mul", "Int.sub", "Int.le", "Int.lt", "Int.pow", "Int.decEq", "Int.cast",
        # Init/Data/List/Basic.lean: `protected def append/beq/le`; Init/Data/ToString/Basic.lean:
        # `protected def List.toString`
        "List.append", "List.beq", "List.le", "List.toString",
        # Init/Data/Ord.lean: `protected def List.compareLex`, `protected def Array.compareLex`
        "List.compareLex", "Array.compareLex",
        # Init/Data/List/Control.lean: `protected def forM`
        "List.forM",
    }
)
"""Core declarations that are ``protected`` (looked up in Lean's sources, file per group). The
unprotected ones checked there too: ``Nat.pred``, ``Nat.beq``, ``Nat.ble``, ``Nat.blt``,
``Nat.fold``/``foldRev``/``any``/``all``/``repeat`` (Init/Data/Nat/Basic.lean), ``Int.natAbs``,
``Int.sign``, ``Int.toNat``, ``Int.ediv`` (Init/Data/Int/Basic.lean, DivMod/Basic.lean),
``List.sum``, ``List.map``, ``List.filter``, ``List.range``, ``List.replicate``, ``List.and``,
``List.or``, ``List.all``, ``List.any`` (Init/Data/List/Basic.lean). Any other core name is
taken as not protected: an approximation, said here."""

CORE_ALIASES: tuple[tuple[str, str], ...] = (
    # Init/Prelude.lean: `export Bool (false true)`, `export Option (none some)`,
    # `export Decidable (isTrue isFalse decide)`
    ("false", "Bool.false"), ("true", "Bool.true"),
    ("none", "Option.none"), ("some", "Option.some"),
    ("isTrue", "Decidable.isTrue"), ("isFalse", "Decidable.isFalse"), ("decide", "Decidable.decide"),
    # Init/Data/Ord.lean: `export Ord (compare)`
    ("compare", "Ord.compare"),
)

CORE_NAMES: frozenset[str] = frozenset(
    {
        # types and their constructors the compiler knows without a builtin
        "Nat", "Nat.zero", "Nat.succ", "Nat.cast", "Int", "Int.ofNat", "Int.negSucc", "Int.toNat", "Int.cast",
        "Bool", "Bool.true", "Bool.false", "Prop", "True", "True.intro", "False", "Not", "And", "Or", "Iff",
        "Eq", "Ne", "Exists", "Option", "Option.none", "Option.some", "List", "List.nil", "List.cons",
        "List.toArray", "Array", "Array.mk", "String", "Char", "Float", "Unit", "Unit.unit", "Prod", "Prod.mk",
        "Fin", "Subtype", "UInt8", "UInt16", "UInt32", "UInt64", "Std.HashMap", "Std.HashSet",
        "Ordering", "Ordering.lt", "Ordering.eq", "Ordering.gt", "Ord",
        # functions the compiler handles itself (`_special`)
        "id", "ite", "dite", "cond", "Decidable", "Decidable.decide", "Decidable.isTrue", "Decidable.isFalse",
        "Inhabited", "Inhabited.default", "default", "Id", "Id.run", "Pure.pure", "pure",
        "Except", "Except.ok", "Except.error", "throw", "MonadExcept.throw",
        "dbgTrace", "Function.comp",
        # monadic traversals at Option/Except/Id (elab.monadic, compiler.monads)
        "List.foldlM", "List.mapM", "List.forM", "Array.foldlM", "Array.mapM", "Array.forM",
    }
)
"""Core declarations the engine handles without a registered builtin."""

MATHLIB_NAMES: frozenset[str] = frozenset(
    {
        "Nat.Prime", "Nat.factorial", "Nat.choose", "Nat.fib", "Nat.digits", "Nat.dist", "Nat.log",
        "List.sublists", "List.Sorted", "List.Chain'", "List.dedup", "List.insertionSort",
        "List.minimum", "List.maximum", "List.argmax", "List.argmin", "Even", "Odd",
        # Batteries' (which Mathlib imports), not core's at v4.24: `Nat.sqrt` (Batteries/Data/Nat/Basic.lean,
        # upstreamed to core only in v4.32, release notes #14054); `List.diff`, `List.union`,
        # `List.inter` (Batteries/Data/List/Basic.lean, still Batteries' at v4.33)
        "Nat.sqrt", "List.diff", "List.union", "List.inter",
    }
)
"""Names that exist only with ``import Mathlib`` (``List.minimum``/``maximum`` are Mathlib's
``WithTop``/``WithBot``-valued functions of Mathlib/Order/…/List/MinMax)."""

MATHLIB_TYPE_NOTATIONS: frozenset[str] = frozenset({"ℕ", "ℤ"})
"""Mathlib's notations for core types (``notation "ℕ" => Nat`` in Mathlib/Data/Nat/Notation.lean,
``ℤ`` in Mathlib/Data/Int/Notation.lean). Core Lean v4.24 declares neither: ``ℕ`` is an ordinary
identifier (a letter-like character) that names nothing -- later releases only add a
``@[suggest_for ℕ]`` hint to ``Nat`` for that unknown identifier (v4.27 release notes, #11554)."""

CORE_STRUCTURE_FIELDS: dict[str, tuple[str, ...]] = {"Prod": ("fst", "snd"), "Subtype": ("val", "property")}

CORE_NAMESPACES: frozenset[str] = frozenset(
    {"Nat", "Int", "List", "Array", "String", "Char", "Bool", "Option", "Prod", "Float", "Std", "Function",
     "Decidable", "Classical", "Id", "Fin", "Subtype", "Sum", "Except", "IO", "Lean", "UInt8", "UInt16",
     "UInt32", "UInt64", "Std.HashMap", "Std.HashSet", "Subarray", "Substring", "StateT", "StateM",
     "ReaderT", "ExceptT", "Thunk", "Ordering", "Max", "Min", "BEq", "Hashable", "ToString", "Repr"}
)
"""Namespaces of Lean's core library that tasks open (besides the prefixes of known names)."""


STD_CONTAINERS: frozenset[str] = frozenset({"Std.HashMap", "Std.HashSet"})
"""The engine's types from the ``Std`` library, which Lean's prelude (``Init``) does not import:
a file has them only through an ``import`` (:func:`std_containers`)."""


def std_containers(imports: Sequence[str]) -> frozenset[str]:
    """The :data:`STD_CONTAINERS` the modules ``imports`` bring: ``Std.Data.HashMap`` gives
    ``Std.HashMap``; ``Std.Data.HashSet`` (built on it) both; ``Std``, ``Std.Data``, ``Lean``,
    ``Mathlib`` and ``Batteries`` (which import all of Std's data structures) both."""
    found: set[str] = set()
    for module in imports:
        if module.startswith("Std.Data.HashMap"):
            found.add("Std.HashMap")
        elif module.startswith("Std.Data.HashSet"):
            found |= STD_CONTAINERS
        elif module in ("Std", "Std.Data", "Lean") or module.startswith(("Mathlib", "Batteries")):
            found |= STD_CONTAINERS
    return frozenset(found)


def _std_container(name: str) -> str | None:
    """The :data:`STD_CONTAINERS` type ``name`` is or belongs to (``Std.HashMap.insert``)."""
    return next((t for t in STD_CONTAINERS if name == t or name.startswith(t + ".")), None)


@functools.lru_cache(maxsize=8)
def external_declarations(has_mathlib: bool, std: frozenset[str] = STD_CONTAINERS) -> Declarations:
    """Everything the file can use without declaring it: the engine's builtins (their names are
    Lean's) and :data:`CORE_NAMES`, with ``protected`` from :data:`CORE_PROTECTED` and the root
    aliases of :data:`CORE_ALIASES`; :data:`MATHLIB_NAMES` only when Mathlib is imported, and the
    ``Std`` containers only when in ``std`` (those the imports bring, :func:`std_containers`)."""
    import veriscale.backends.embedded.builtins  # noqa: F401  (registers the builtins)
    from veriscale.backends.embedded.registry import BUILTINS

    decls = Declarations()
    for name in sorted(set(BUILTINS) | CORE_NAMES | MATHLIB_NAMES):
        mathlib = name in MATHLIB_NAMES
        if mathlib and not has_mathlib:
            continue
        container = _std_container(name)
        if container is not None and container not in std:
            continue
        decls.add(Declaration(
            name=name, kind="core", protected=name in CORE_PROTECTED, origin="mathlib" if mathlib else "core",
            short_name=components(name)[-1], fields=CORE_STRUCTURE_FIELDS.get(name, ())))
    for ns in CORE_NAMESPACES:
        container = _std_container(ns)
        if container is None or container in std:
            decls.register_namespace(ns, -1)
    for alias, target in CORE_ALIASES:
        decls.add_alias(alias, target, -1)
    return decls


def _library_declares(full: str) -> bool:
    """Whether the prelude (``Init``, which every file imports) declares ``full`` although the
    engine's tables do not: a name of :mod:`.core_names`' list of Lean v4.24 core + Std (``Std.``
    names come only with an import; Mathlib's names are not claimed)."""
    from veriscale.backends.embedded.core_names import lean_has

    return not full.startswith("Std.") and full not in MATHLIB_NAMES and lean_has(full) is True


# ---------------------------------------------------------------------------------------------
# Global names: Lean/ResolveName.lean


def _resolve_qualified(decls: Declarations, ns: str, ident: str, pos: int) -> list[str]:
    """``resolveQualifiedName``: ``ns ++ id`` unless protected and reached by an atomic ``id``
    (then its private version, which is not checked for ``protected``), plus aliases."""
    resolved = join(ns, ident)
    atomic = is_atomic(ident)
    out = decls.aliases(resolved, pos, skip_protected=atomic)
    if decls.contains(resolved, pos) and not (atomic and decls.is_protected(resolved, pos)):
        return [resolved, *out]
    if decls.contains_private(resolved, pos):
        return [resolved, *out]
    return out


def _resolve_using_namespace(decls: Declarations, ident: str, ns: str, pos: int) -> list[str]:
    """``resolveUsingNamespace``: the innermost enclosing namespace that has the name wins."""
    comps = components(ns) if ns else []
    while comps:
        found = _resolve_qualified(decls, ".".join(comps), ident, pos)
        if found:
            return found
        comps.pop()
    return []


EXPORTED_ONLY: frozenset[str] = frozenset({alias for alias, _ in CORE_ALIASES} | {"max", "min", "toString"})
"""Root names Lean has only as aliases, made by ``export`` (Init/Prelude.lean ``export Max (max)``,
``export Min (min)``; Init/Data/ToString/Basic.lean ``export ToString (toString)``; and
:data:`CORE_ALIASES`), although the engine registers some of them as declarations of its own."""


def _resolve_exact(decls: Declarations, ident: str, pos: int) -> str | None:
    """``resolveExact``: a non-atomic name as written (``_root_.`` removed), when it is a
    declaration -- an alias is not one, so ``_root_.max`` names nothing (Lean: unknown
    identifier) while plain ``max`` reaches ``Max.max`` through the alias."""
    if is_atomic(ident):
        return None
    resolved = _strip_root(ident)
    declared = decls.lookup(resolved, pos)
    if resolved in EXPORTED_ONLY and (declared is None or declared.kind == "core"):
        return None
    if decls.contains(resolved, pos) or decls.contains_private(resolved, pos):
        return resolved
    return None


def _resolve_open_decls(decls: Declarations, ident: str, open_decls: Sequence[OpenDecl], found: list[str],
                        pos: int) -> list[str]:
    """``resolveOpenDecls`` over Lean's list (newest first)."""
    for od in reversed(open_decls):
        if od.is_explicit:
            if od.alias == ident:
                found = [od.target, *found]
            else:
                alias_comps, id_comps = components(od.alias), components(ident)
                if id_comps[: len(alias_comps)] == alias_comps:
                    candidate = join(od.target, *id_comps[len(alias_comps):])
                    if decls.contains(candidate, pos):
                        found = [candidate, *found]
        elif ident not in od.hiding:
            found = _resolve_qualified(decls, od.namespace, ident, pos) + found
    return found


def _dedup(names: Iterable[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        if n not in out:
            out.append(n)
    return out


def resolve_global(name: str, scope: ScopeState, decls: Declarations) -> list[tuple[str, tuple[str, ...]]]:
    """``Lean.ResolveName.resolveGlobalName``: every ``(declaration, remaining fields)`` the
    identifier ``name`` can denote, in Lean's order. The longest prefix of ``name`` that resolves
    wins; the components after it are field accesses (``xs.foldl`` with no global ``xs`` is
    ``[]``, ``Foo.bar.baz`` may be ``(Foo.bar, ("baz",))``). Empty: unknown identifier.
    More than one: the caller elaborates each and reports ambiguity (:func:`ambiguity_message`)."""
    comps = components(name)
    pos = scope.position
    for k in range(len(comps), 0, -1):
        ident = ".".join(comps[:k])
        projs = tuple(comps[k:])
        found = _resolve_using_namespace(decls, ident, scope.namespace, pos)
        if found:
            return [(n, projs) for n in _dedup(found)]
        exact = _resolve_exact(decls, ident, pos)
        if exact is not None:
            return [(exact, projs)]
        found = [ident] if decls.contains(ident, pos) else []
        if decls.contains_private(ident, pos):
            found = [ident, *found]
        found = _resolve_open_decls(decls, ident, scope.open_decls, found, pos)
        found = decls.aliases(ident, pos, skip_protected=is_atomic(ident)) + found
        if found:
            return [(n, projs) for n in _dedup(found)]
    return []


def resolve_namespace(name: str, scope: ScopeState, decls: Declarations) -> list[str]:
    """``ResolveName.resolveNamespace``: the innermost ``<enclosing namespace>.name`` that is a
    namespace (``_root_.`` allowed at the root), then ``N.name`` for every simple ``open N``
    that does not hide ``name``."""
    pos = scope.position
    out: list[str] = []
    comps = components(scope.namespace) if scope.namespace else []
    while True:
        if not comps:
            candidate = _strip_root(name)
            if decls.is_namespace(candidate, pos):
                out.append(candidate)
            break
        candidate = join(".".join(comps), name)
        if decls.is_namespace(candidate, pos):
            out.append(candidate)
            break
        comps.pop()
    for od in reversed(scope.open_decls):
        if not od.is_explicit and name not in od.hiding and decls.is_namespace(join(od.namespace, name), pos):
            out.append(join(od.namespace, name))
    return out


def resolve_global_const(name: str, scope: ScopeState, decls: Declarations) -> list[str]:
    """``resolveGlobalConstCore``: the candidates with no field part."""
    return [n for n, projs in resolve_global(name, scope, decls) if not projs]


# ---------------------------------------------------------------------------------------------
# Local names first: Lean/Elab/Term.lean


@dataclass(frozen=True, slots=True)
class Local:
    """A local binding: a variable (``full_name`` None) or an auxiliary declaration of the
    definition being elaborated -- the definition itself (``f``) or a ``where``/``let rec``
    helper (``go``, full name ``f.go``), which Lean adds with ``withAuxDecl``."""

    name: str
    full_name: str | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """One interpretation of an identifier: a global declaration or a local, then fields."""

    name: str
    fields: tuple[str, ...] = ()
    local: Local | None = None

    @property
    def is_local(self) -> bool:
        return self.local is not None


def _match_aux(local: Local, given: list[str], namespace: str) -> bool:
    """``matchAuxRecDecl?``: relaxed suffix matching when the current namespace is a prefix of
    the full name (``go``, ``f.go``, ``A.f.go`` all reach ``A.f.go`` inside namespace ``A``),
    otherwise ``ns ++ given == full`` for an enclosing namespace ``ns``."""
    assert local.full_name is not None
    full = components(local.full_name)
    ns = components(namespace) if namespace else []
    if full[: len(ns)] == ns:
        return _is_suffix(components(local.name), given) and _is_suffix(given, full)
    while True:
        if ns + given == full:
            return True
        if not ns:
            return False
        ns = ns[:-1]


def _find_local(locals_: Sequence[Local], given: list[str], namespace: str, skip_aux: bool) -> Local | None:
    """``findLocalDecl?``: innermost first; auxiliary declarations matched by
    :func:`_match_aux`, then (second pass) by exact name."""
    text = ".".join(given)
    for loc in reversed(locals_):
        if loc.full_name is not None:
            if not skip_aux and _match_aux(loc, given, namespace):
                return loc
        elif loc.name == text:
            return loc
    if skip_aux:
        return None
    for loc in reversed(locals_):
        if loc.full_name is not None and loc.name == text:
            return loc
    return None


def resolve_local(name: str, locals_: Sequence[Local], scope: ScopeState,
                  decls: Declarations) -> tuple[Local, tuple[str, ...]] | None:
    """``resolveLocalName``: the longest prefix of ``name`` that is a local, with the rest as
    fields. A prefix that also names a global declaration makes the shorter prefixes skip the
    auxiliary declarations (so ``foo.aux`` inside ``foo`` is the global ``foo.aux``, not a field
    of the recursive ``foo``)."""
    comps = components(name)
    global_found = False
    for k in range(len(comps), 0, -1):
        given = comps[:k]
        projs = tuple(comps[k:])
        if not global_found and resolve_global_const(".".join(given), scope, decls):
            global_found = True
        loc = _find_local(locals_, given, scope.namespace, skip_aux=global_found and bool(projs))
        if loc is not None:
            return loc, projs
    return None


def resolve_name(name: str, locals_: Sequence[Local], scope: ScopeState, decls: Declarations) -> list[Candidate]:
    """``Lean.Elab.Term.resolveName``: a local (variable or auxiliary declaration) first, with
    field accesses after it; otherwise every global candidate of :func:`resolve_global`.
    A numeric component (``p.1.foo``) starts the field part: Lean's parser never puts it in an
    identifier."""
    comps = components(name)
    forced: tuple[str, ...] = ()
    for i, c in enumerate(comps):
        if c.isdigit():
            comps, forced = comps[:i], tuple(comps[i:])
            break
    ident = ".".join(comps)
    local = resolve_local(ident, locals_, scope, decls)
    if local is not None:
        loc, projs = local
        return [Candidate(loc.name, projs + forced, loc)]
    return [Candidate(n, projs + forced) for n, projs in resolve_global(ident, scope, decls)]


def ambiguity_message(candidates: Sequence[tuple[str, str | None]]) -> str:
    """Lean's message when several interpretations elaborate (``elabAppAux``): the successful
    candidates, each ``name : type`` when the type is known, in the order Lean prints them
    (``mkConsts`` reverses :func:`resolve_global`'s order)."""
    lines = [f"{n} : {t}" if t else n for n, t in reversed(candidates)]
    return "ambiguous, possible interpretations\n  " + "\n\n  ".join(lines)


# ---------------------------------------------------------------------------------------------
# Field notation and dotted identifiers: Lean/Elab/App.lean


@dataclass(frozen=True, slots=True)
class FieldResolution:
    """How ``e.f`` resolves when ``e : C …``: ``projection`` (structure field of ``C`` or a
    parent), ``local`` (the recursive function being defined, named ``C.f``), ``const`` (the
    declaration ``C.f`` / a parent's / an alias, taking ``e`` as its first explicit argument of
    type ``C …``), or ``function`` (``Function.f`` when ``e`` is a function)."""

    kind: str
    name: str
    local: Local | None = None


def _resolution_order(decls: Declarations, struct: str, pos: int) -> list[str]:
    """Structure resolution order (``getStructureResolutionOrder``), depth first."""
    order: list[str] = []
    todo = [struct]
    while todo:
        s = todo.pop(0)
        if s in order:
            continue
        order.append(s)
        d = decls.lookup(s, pos)
        if d is not None:
            todo.extend(d.parents)
    return order


def resolve_field(head: str | None, field_name: str, decls: Declarations, *, position: int = FOREVER,
                  locals_: Sequence[Local] = (), is_function: bool = False) -> FieldResolution | None:
    """``resolveLValAux`` for a named field, by the head constant ``head`` of the type of ``e``.
    ``None``: "invalid field", and Lean then unfolds the type (``resolveLValLoop``) and tries
    again with the head of the unfolded type -- the caller's to do."""
    if is_function and decls.contains(join("Function", field_name), position):
        return FieldResolution("function", join("Function", field_name))
    if head is None:
        return None
    order = _resolution_order(decls, head, position)
    info = decls.lookup(head, position)
    if (info is not None and info.kind in ("structure", "class")) or head in CORE_STRUCTURE_FIELDS:
        for s in order:
            d = decls.lookup(s, position)
            own = d.fields if d is not None else ()
            if field_name in own:
                return FieldResolution("projection", join(s, field_name))
    full = join(head, field_name)
    for loc in locals_:
        if loc.full_name == full:
            return FieldResolution("local", full, loc)
    for s in order:
        candidate = join(s, field_name)
        if decls.contains(candidate, position) or decls.contains_private(candidate, position):
            return FieldResolution("const", candidate)
    aliases = [a for a in decls.aliases(full, position) if components(a)[-1] == field_name]
    if len(aliases) == 1:
        return FieldResolution("const", aliases[0])
    return None


def resolve_dot_ident(name: str, expected_heads: Sequence[str], decls: Declarations,
                      position: int = FOREVER) -> str | None:
    """``resolveDotName``: ``.name`` at expected type ``C …`` is ``C.name`` (public declarations
    only: ``env.contains``); ``expected_heads`` lists the head constants of the expected type
    and of its successive unfoldings, outermost first."""
    for head in expected_heads:
        candidate = join(head, name)
        if decls.contains(candidate, position):
            return candidate
    return None


# ---------------------------------------------------------------------------------------------
# The scope walker


@dataclass(frozen=True, slots=True)
class ScopeDiagnostic:
    """A problem Lean reports at a command (``certain``), or one the engine cannot decide
    because a name outside its tables may exist in Lean (``certain=False``)."""

    line: int
    col: int
    message: str
    certain: bool = True


@dataclass(frozen=True, slots=True)
class _Frame:
    """One of Lean's ``Scope``s: the ``header`` given to ``end`` and the state it starts with."""

    kind: str
    header: str
    namespace: str
    open_decls: tuple[OpenDecl, ...]


@dataclass
class FileScopes:
    """The result of :func:`walk_scopes`."""

    declarations: Declarations
    commands: list[tuple[A.Node, ScopeState]] = field(default_factory=list)
    """Every command (an ``open … in`` unwrapped) with the scope it runs in."""
    diagnostics: list[ScopeDiagnostic] = field(default_factory=list)
    _by_node: dict[int, ScopeState] = field(default_factory=dict)

    def scope_of(self, node: A.Node) -> ScopeState | None:
        """The scope a command -- or a declaration's body (a ``where`` helper included) -- is
        elaborated in."""
        return self._by_node.get(id(node))

    def declared_by(self, node: A.Node) -> list[Declaration]:
        return [d for d in self.declarations if d.node is node]

    @property
    def errors(self) -> list[ScopeDiagnostic]:
        return [d for d in self.diagnostics if d.certain]


_AUX_SUFFIXES = ("rec", "recOn", "casesOn", "noConfusion", "noConfusionType")
"""Declarations every inductive type gets (``mkRecOn``, ``mkCasesOn``, ``mkNoConfusion``)."""


class _Walker:
    def __init__(self, has_mathlib: bool, base: Declarations | None, std: frozenset[str] = STD_CONTAINERS) -> None:
        self.decls = Declarations(base if base is not None else external_declarations(has_mathlib, std))
        self.frames: list[_Frame] = [_Frame("root", "", "", ())]
        self.out = FileScopes(self.decls)
        self.position = 0
        #: the definitions of the ``mutual`` block being walked (``None``: outside one)
        self.mutual_group: list[str] | None = None

    # -- state ------------------------------------------------------------------------------
    @property
    def top(self) -> _Frame:
        return self.frames[-1]

    def scope(self) -> ScopeState:
        return ScopeState(self.top.namespace, self.top.open_decls, self.position)

    def error(self, node: A.Node, message: str, certain: bool = True) -> None:
        self.out.diagnostics.append(ScopeDiagnostic(node.line, node.col, message, certain))

    def set_opens(self, open_decls: tuple[OpenDecl, ...]) -> None:
        self.frames[-1] = replace(self.top, open_decls=open_decls)

    def push_namespace(self, name: str) -> None:
        """``addNamespace``: one scope per component, each registering its namespace."""
        for comp in components(name):
            ns = join(self.top.namespace, comp)
            self.decls.register_namespace(ns, self.position - 1)
            self.frames.append(_Frame("namespace", comp, ns, self.top.open_decls))

    # -- commands ---------------------------------------------------------------------------
    def command(self, cmd: A.Node) -> None:
        from veriscale.backends.embedded.parser import OpenIn

        if isinstance(cmd, OpenIn):
            # `expandInCmd`: `section open X cmd end`
            self.frames.append(_Frame("section", "", self.top.namespace, self.top.open_decls))
            self.open_cmd(cmd.decl or A.OpenCmd(cmd.line, cmd.col, list(cmd.names)))
            self.command(cmd.command)
            self.frames.pop()
            return
        self.out._by_node[id(cmd)] = self.scope()
        self.out.commands.append((cmd, self.scope()))
        if isinstance(cmd, A.NamespaceCmd):
            self.namespace_cmd(cmd)
        elif isinstance(cmd, A.SectionCmd):
            for comp in components(cmd.name) if cmd.name else [""]:
                self.frames.append(_Frame("section", comp, self.top.namespace, self.top.open_decls))
        elif isinstance(cmd, A.EndCmd):
            self.end_cmd(cmd)
        elif isinstance(cmd, A.OpenCmd):
            self.open_cmd(cmd)
        elif isinstance(cmd, A.ExportCmd):
            self.export_cmd(cmd)
        elif isinstance(cmd, A.OtherCmd) and cmd.keyword == "mutual":
            self.frames.append(_Frame("mutual", "", self.top.namespace, self.top.open_decls))
            self.mutual_group = []
        elif isinstance(cmd, (A.DefCmd, A.StructureCmd, A.InductiveCmd, A.InstanceCmd)):
            self.declaration(cmd)
        elif isinstance(cmd, A.CommandError) and cmd.name:
            # a declaration that did not parse still claims its name (the compiler reports it)
            self.add(cmd, join(self.top.namespace, _strip_root(cmd.name)), "error", A.Modifiers())

    def end_mutual(self) -> None:
        """Each definition of the block learns the others (:attr:`Declaration.mutual`)."""
        group = tuple(self.mutual_group or ())
        self.mutual_group = None
        for name in group:
            d = self.decls.lookup(name)
            if d is not None and len(group) > 1:
                self.decls.add(replace(d, mutual=group))

    def namespace_cmd(self, cmd: A.NamespaceCmd) -> None:
        if ROOT in components(cmd.name):
            self.error(cmd, f"invalid namespace '{cmd.name}', '_root_' is a reserved namespace")
            return
        self.push_namespace(cmd.name)

    def end_cmd(self, cmd: A.EndCmd) -> None:
        """``elabEnd``: checked before anything is popped; a wrong ``end`` changes nothing."""
        scopes = self.frames
        if len(scopes) == 1:
            self.error(cmd, "Invalid `end`: There is no current scope to end")
            return
        if self.top.kind == "mutual":
            scopes.pop()
            self.end_mutual()
            return
        if cmd.name is None:
            if self.top.header:
                self.error(cmd, f"Missing name after `end`: Expected the current scope name `{self.top.header}`")
                return
            scopes.pop()
            return
        size = len(components(cmd.name))
        if size >= len(scopes):
            self.error(cmd, f"Invalid name after `end`: `{cmd.name}` contains too many components")
            return
        headers: list[str] = []
        for frame in reversed(scopes[len(scopes) - size:]):
            if frame.header == "":
                break
            headers.insert(0, frame.header)
        expected = ".".join(headers)
        if expected != cmd.name:
            if not expected:
                self.error(cmd, f"Unexpected name `{cmd.name}` after `end`: The current section is unnamed")
            else:
                self.error(cmd, f"Invalid name after `end`: Expected `{expected}`, but found `{cmd.name}`")
            return
        del scopes[len(scopes) - size:]

    # -- open / export ----------------------------------------------------------------------
    def _namespaces(self, cmd: A.Node, name: str, scope: ScopeState) -> list[str] | None:
        nss = resolve_namespace(name, scope, self.decls)
        if not nss:
            self.error(cmd, f"unknown namespace '{name}'", certain=self._file_only(name, scope))
            return None
        return nss

    def _file_only(self, name: str, scope: ScopeState) -> bool:
        """Whether Lean's answer about ``name`` depends on the file alone: its first component
        (or the current namespace's) is a namespace of the file and of nothing outside it. Any
        other name may exist in Lean's library beyond the engine's tables."""
        base = self.decls._base
        firsts = {components(_strip_root(name))[0]}
        if scope.namespace:
            firsts.add(components(scope.namespace)[0])
        return all(
            self.decls.is_namespace(f) and not (base is not None and base.is_namespace(f)) for f in firsts)

    def _resolve_id(self, cmd: A.Node, ns: str, ident: str, scope: ScopeState, report: bool = True) -> str | None:
        """``OpenDecl.resolveId``: ``ns ++ id`` if declared, else ``ns ++ id`` resolved as a
        constant in the current scope (unique, no fields)."""
        full = join(ns, ident)
        if self.decls.contains(full, scope.position):
            return full
        found = resolve_global_const(full, scope, self.decls)
        if len(found) == 1:
            return found[0]
        if not report:
            return None
        if len(found) > 1:
            self.error(cmd, f"ambiguous identifier '{full}', possible interpretations: {found}")
        else:
            self.error(cmd, f"unknown constant '{full}'", certain=self._file_only(ns, ScopeState()))
        return None

    def _resolve_in(self, cmd: A.Node, nss: list[str], ident: str, scope: ScopeState) -> str | None:
        """``resolveNameUsingNamespacesCore``: ``ident`` in exactly one of ``nss``; an error
        only when every namespace fails, or when several succeed."""
        found = _dedup(r for ns in nss if (r := self._resolve_id(cmd, ns, ident, scope, report=False)) is not None)
        if len(found) == 1:
            return found[0]
        if found:
            self.error(cmd, f"ambiguous identifier `{ident}`, possible interpretations: {found}")
        else:
            self._resolve_id(cmd, nss[0], ident, scope)  # reports why
        return None

    def open_cmd(self, cmd: A.OpenCmd) -> None:
        """``elabOpenDecl``; each new entry is visible to the next namespace of the same
        command (``open Lean Elab``). On an error the command has no effect."""
        scope = self.scope()
        added: list[OpenDecl] = []

        def current() -> ScopeState:
            return replace(scope, open_decls=scope.open_decls + tuple(added))

        for clause in OpenClause.of(cmd):
            if not self.open_clause(cmd, clause, current(), added):
                return
        self.set_opens(scope.open_decls + tuple(added))

    def open_clause(self, cmd: A.OpenCmd, clause: OpenClause, scope: ScopeState, added: list[OpenDecl]) -> bool:
        """One clause of ``elabOpenDecl``; ``False`` on an error (reported)."""
        nss = self._namespaces(cmd, clause.namespace, scope)
        if nss is None:
            return False
        if clause.kind == "all":
            added.extend(OpenDecl.simple(ns) for ns in nss)
        elif clause.kind == "only":
            for ident in clause.names:
                target = self._resolve_in(cmd, nss, ident, scope)
                if target is None:
                    return False
                added.append(OpenDecl.explicit(ident, target))
        elif clause.kind in ("hiding", "renaming"):
            if len(nss) > 1:  # `resolveUniqueNamespace`
                self.error(cmd, f"ambiguous namespace '{clause.namespace}', possible interpretations: '{nss}'")
                return False
            ns = nss[0]
            if clause.kind == "hiding":
                if any(self._resolve_id(cmd, ns, ident, scope) is None for ident in clause.names):
                    return False
                added.append(OpenDecl.simple(ns, clause.names))
            for src, dst in clause.renames:
                target = self._resolve_id(cmd, ns, src, scope)
                if target is None:
                    return False
                added.append(OpenDecl.explicit(dst, target))
        return True

    def export_cmd(self, cmd: A.ExportCmd) -> None:
        """``elabExport``: ``<current namespace>.x`` becomes an alias of what ``A.x`` is."""
        scope = self.scope()
        nss = self._namespaces(cmd, cmd.namespace, scope)
        if nss is None:
            return
        if nss == [scope.namespace]:
            self.error(cmd, "invalid 'export', self export")
            return
        aliases: list[tuple[str, str]] = []
        for ident in cmd.idents:
            target = self._resolve_in(cmd, nss, ident, scope)
            if target is None:
                return  # an error: no alias of the command is added
            aliases.append((join(scope.namespace, ident), target))
        for alias, target in aliases:
            self.decls.add_alias(alias, target, self.position)

    # -- declarations -----------------------------------------------------------------------
    def declaration(self, cmd: A.DefCmd | A.StructureCmd | A.InductiveCmd | A.InstanceCmd) -> None:
        name = cmd.name
        if name is None or (isinstance(cmd, A.DefCmd) and cmd.kind == "example"):
            self.out._by_node[id(cmd)] = self.scope()
            if isinstance(cmd, (A.DefCmd, A.InstanceCmd)):
                self.bodies(cmd, None)
            return
        comps = components(name)
        if comps[0] == ROOT:
            if len(comps) == 1:
                self.error(cmd, "invalid declaration name `_root_`, `_root_` is a prefix used to refer to the "
                                "`root` namespace")
                return
            if ROOT in comps[1:]:
                self.error(cmd, f"invalid namespace '{prefix(_strip_root(name))}', '_root_' is a reserved namespace")
                return
            # `mkDeclName`: declared at the root, elaborated in the current namespace
            self.declare(cmd, _strip_root(name), prefix(_strip_root(name)), comps[-1])
            return
        if len(comps) > 1:
            # `expandDeclNamespace?`: `namespace A.B <decl f> end A.B`
            depth = len(self.frames)
            self.push_namespace(prefix(name))
            self.out._by_node[id(cmd)] = self.scope()
            self.declare(cmd, join(self.top.namespace, comps[-1]), self.top.namespace, comps[-1])
            del self.frames[depth:]
            return
        self.declare(cmd, join(self.top.namespace, name), self.top.namespace, name)

    def declare(self, cmd: A.DefCmd | A.StructureCmd | A.InductiveCmd | A.InstanceCmd, full: str,
                protected_ns: str, short: str) -> None:
        mods = cmd.modifiers
        if mods.protected and not protected_ns and is_atomic(short):
            self.error(cmd, "protected declarations must be in a namespace")
            return
        short_name = join(components(protected_ns)[-1], short) if mods.protected and protected_ns else short
        scope = self.scope()
        self.out._by_node[id(cmd)] = scope
        kind = cmd.kind if isinstance(cmd, A.DefCmd) else (
            "instance" if isinstance(cmd, A.InstanceCmd) else
            "inductive" if isinstance(cmd, A.InductiveCmd) else ("class" if cmd.is_class else "structure"))
        if not self.add(cmd, full, kind, mods, short_name=short_name, scope=scope):
            return
        if isinstance(cmd, A.StructureCmd):
            self.structure(cmd, full, scope)
        elif isinstance(cmd, A.InductiveCmd):
            for ctor in cmd.ctors:
                self.add(ctor, join(full, ctor.name), "ctor", A.Modifiers(private=mods.private), scope=scope)
            self.auxiliaries(cmd, full, mods)
        if isinstance(cmd, (A.DefCmd, A.InstanceCmd)):
            self.bodies(cmd, full)
        if isinstance(cmd, A.DefCmd) and self.mutual_group is not None:
            self.mutual_group.append(full)

    def structure(self, cmd: A.StructureCmd, full: str, scope: ScopeState) -> None:
        parents = tuple(p for p in (self._struct_parent(e, scope) for e in cmd.extends) if p)
        d = self.decls.lookup(full)
        if d is not None:
            self.decls.add(replace(d, fields=tuple(f.name for f in cmd.fields), parents=parents))
        mods = A.Modifiers(private=cmd.modifiers.private)
        self.add(cmd, join(full, cmd.ctor_name), "ctor", mods, scope=scope)
        for f in cmd.fields:
            self.add(f, join(full, f.name), "field", mods, scope=scope)
        self.auxiliaries(cmd, full, cmd.modifiers)

    def _struct_parent(self, text: str, scope: ScopeState) -> str | None:
        head = text.strip().split()[0] if text.strip() else ""
        found = resolve_global_const(head, scope, self.decls) if head else []
        return found[0] if len(found) == 1 else None

    def auxiliaries(self, cmd: A.Node, full: str, mods: A.Modifiers) -> None:
        for suffix in _AUX_SUFFIXES:
            name = join(full, suffix)
            if self.decls.lookup(name, self.position + 1) is None:
                self.decls.add(Declaration(name, "aux", private=mods.private, position=self.position,
                                           line=cmd.line, short_name=suffix, node=cmd))

    def bodies(self, cmd: A.DefCmd | A.InstanceCmd, full: str | None) -> None:
        """``where`` helpers (``<full>.<helper>``) and the ``let rec``s of the bodies, each
        elaborated in the declaration's scope (``withDeclName`` does not change the namespace)."""
        scope = self.scope()
        if isinstance(cmd, A.InstanceCmd):
            for m in cmd.methods:
                self.out._by_node[id(m)] = scope
                self.let_recs(m, full, scope)
            if cmd.body is not None:
                self.let_recs(cmd.body, full, scope)
            return
        for helper in cmd.where:
            self.out._by_node[id(helper)] = scope
            if full is not None:
                hname = join(full, helper.name)
                self.add(helper, hname, "where", helper.modifiers, short_name=helper.name, scope=scope, parent=full)
                self.let_recs(helper, hname, scope)
        self.let_recs(cmd, full, scope, skip_where=True)

    def let_recs(self, node: object, current: str | None, scope: ScopeState, skip_where: bool = False) -> None:
        """Every ``let rec`` below ``node``: named ``<enclosing declaration>.<name>``; nested
        ones under the helper they are in."""
        stack: list[tuple[object, str | None]] = [(node, current)]
        while stack:
            n, cur = stack.pop()
            if isinstance(n, (A.LetRec, A.DoLetRec)):
                for d in n.decls:
                    full = join(cur, d.name) if cur and d.name else None
                    if full is not None:
                        self.add(d, full, "let rec", A.Modifiers(), short_name=d.name or "", scope=scope, parent=cur)
                    stack.append((d, full or cur))
                if isinstance(n, A.LetRec):
                    stack.append((n.body, cur))
                continue
            if isinstance(n, list | tuple):
                stack.extend((x, cur) for x in n)
            elif isinstance(n, A.Node) or isinstance(n, A.Modifiers):
                for f in fields(n):
                    if skip_where and n is node and f.name == "where":
                        continue
                    v = getattr(n, f.name)
                    if isinstance(v, A.Node | list | tuple):
                        stack.append((v, cur))

    def add(self, node: A.Node, full: str, kind: str, mods: A.Modifiers, *, short_name: str = "",
            scope: ScopeState | None = None, parent: str | None = None) -> bool:
        """``mkDeclName``'s checks in its order: ``checkIfShadowingStructureField``, then
        ``applyVisibility``'s ``checkNotAlreadyDeclared``."""
        here = self.position + 1
        owner = self.decls.lookup(prefix(full), here)
        if owner is not None and owner.kind in ("structure", "class") and kind != "field" and any(
                components(full)[-1] in (p.fields if p else ())
                for p in (self.decls.lookup(s, here) for s in _resolution_order(self.decls, owner.name, here))):
            self.error(node, f"invalid declaration name `{full}`, structure `{owner.name}` has field "
                             f"`{components(full)[-1]}`")
            return False
        if self.decls.contains(full, here) or self.decls.contains_private(full, here):
            old = self.decls.lookup(full, here)
            assert old is not None
            if old.private != mods.private:
                which = "private" if old.private else "non-private"
                self.error(node, f"a {which} declaration `{full}` has already been declared")
            elif old.private:
                self.error(node, f"private declaration `{full}` has already been declared")
            elif full in EXPORTED_ONLY and old.kind == "core":
                # Lean has only the alias (`export Max (max)`): the declaration is accepted and
                # every later `max` is ambiguous with `Max.max`, which the engine does not model
                self.error(node, f"`{full}` is declared beside Lean's alias `{full}` (of a class method); "
                                 "the engine does not model the overloads this makes", certain=False)
            else:
                self.error(node, f"`{full}` has already been declared")
            return False
        if _library_declares(full):
            # the engine's tables lack it, but Lean's core library has it (`Acc`, `Dynamic`, ...)
            self.error(node, f"`{full}` has already been declared (Lean's core library declares it)")
            return False
        self.decls.add(Declaration(
            name=full, kind=kind, protected=mods.protected, private=mods.private, position=self.position,
            line=node.line, short_name=short_name or components(full)[-1], scope=scope, parent=parent, node=node))
        return True


def walk_scopes(commands: Sequence[A.Node], *, has_mathlib: bool = False,
                external: Declarations | None = None, std: frozenset[str] = STD_CONTAINERS) -> FileScopes:
    """Walk a parsed file's commands as Lean's command elaborator does: namespaces, sections and
    ``end`` (checked), ``open`` in all its forms, ``export``, and every declaration with its full
    name, modifiers and the scope its body is elaborated in. ``external`` overrides the
    declarations outside the file (default: :func:`external_declarations`); ``std``: the ``Std``
    containers the file's imports bring (:func:`std_containers`)."""
    w = _Walker(has_mathlib, external, std)
    for i, cmd in enumerate(commands):
        w.position = i
        w.command(cmd)
    return w.out


def aux_locals(decl: Declaration, decls: Declarations) -> list[Local]:
    """The auxiliary declarations Lean puts in the local context for the whole of ``decl``'s
    body and its ``where`` helpers' bodies (``withFunLocalDecls`` for the definition, under its
    short name; ``withAuxDecl`` for each ``where`` helper, which is a ``let rec`` around the whole
    body). A ``let rec`` inside a term is in scope only there: the caller adds
    ``Local(short, full)`` when it enters one."""
    top = decl
    while top.parent is not None:
        parent = decls.lookup(top.parent)
        if parent is None:
            break
        top = parent
    out = [Local(top.short_name, top.name)]
    out += [Local(d.short_name, d.name) for d in decls if d.parent == top.name and d.kind == "where"]
    for name in top.mutual:  # the other definitions of its `mutual` block
        member = decls.lookup(name)
        if member is not None and member.name != top.name:
            out.append(Local(member.short_name, member.name))
    return out


__all__ = [
    "CORE_ALIASES", "CORE_NAMES", "CORE_PROTECTED", "FOREVER", "MATHLIB_NAMES", "MATHLIB_TYPE_NOTATIONS", "ROOT", "Candidate",
    "Declaration", "Declarations", "FieldResolution", "FileScopes", "Local", "OpenClause", "OpenDecl",
    "STD_CONTAINERS", "ScopeDiagnostic", "ScopeState", "ambiguity_message", "aux_locals", "components",
    "external_declarations", "std_containers",
    "resolve_dot_ident", "resolve_field", "resolve_global", "resolve_global_const", "resolve_local",
    "resolve_name", "resolve_namespace", "walk_scopes",
]
