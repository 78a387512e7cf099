"""Local instances: which instance Lean's resolution picks at each use, when locals are in scope.

A local whose type is a class application is a *local instance*: ``have inst : BEq Int := …``,
``let inst : Max Int := …`` (``Lean.Meta.withLocalDecl``/``withLetDecl`` add every local of class
type to the local instances, ``Lean.Meta.Basic``), and an instance binder ``[inst : BEq α]`` /
``[BEq α]`` of a definition (``Lean.Elab.Binders``, ``elabBinderViews``). Instance resolution
(``Lean.Meta.SynthInstance``, ``getInstances``) tries the local instances before the global ones,
the most recent first; a local instance also answers the subgoals of global instances (``BEq
(List Int)`` from ``List``'s instance and a local ``BEq Int``).

The engine evaluates a local instance when it is one it can read:

* classes with one method (:data:`MODELLED_METHODS`): ``BEq`` (``==``, ``!=``), ``Max``/``Min``
  (``max``/``min``), ``Ord`` (``compare``, exported from ``Ord.compare``), ``ToString`` (``toString``, and every chunk of ``s!"…"``, which
  ``Lean.TSyntax.expandInterpolatedStr`` expands to ``toString c₀ ++ toString c₁ ++ …``, the
  literal chunks included), the arithmetic classes ``Add``, ``Sub``, ``Mul``, ``Div``, ``Mod``,
  ``Neg`` and ``Append`` (``a + b`` is ``binop%`` elaborated to ``HAdd.hAdd`` at ``HAdd α α α``,
  which the global ``instHAdd [Add α]`` answers with the ``Add α`` found for it -- the local one;
  likewise ``instHSub``, ``instHMul``, ``instHDiv``, ``instHMod``, ``instHAppendOfAppend``, and
  ``-x`` is ``Neg.neg``), given as ``⟨f⟩``, ``{ beq := f }`` or ``C.mk f``: the elaborator checks
  ``f`` at the method's type and records (:attr:`Report.local_instances`) the declaration and
  its method;
* each use of a class is resolved among the local instances as Lean does: a local instance at
  exactly the use's type (the most recent first), else the global instance -- which for ``BEq``
  and ``ToString`` of ``List``/``Array``/``Option``/``Prod`` (``instBEqList``'s ``List.beq``,
  ``Array.isEqv``, the derived ``BEq (Option α)``, ``instBEqProd``; ``instToStringList``'s
  ``List.toString``, ``"#" ++ toString a.toList`` for arrays, ``"(some " ++ …`` for options,
  the pair's ``"(" ++ toString a ++ ", " ++ toString b ++ ")"``, Init/Data/ToString/Basic.lean)
  asks for its components' instances in turn, so ``[a] == [b]`` compares elements with a local
  ``BEq Int`` (and likewise ``Ord`` of ``List``/``Array``/``Option``: ``List.compareLex compare``,
  ``Array.compareLex compare``, ``none < some _``, Init/Data/Ord.lean, so ``compare [a] [b]``
  compares with a local ``Ord Int``). The result is an :class:`InstancePlan`, recorded (:attr:`Report.instance_choices`)
  for the use whenever a local instance is in scope (global plans too: the compiler refuses a
  use it finds no answer for), and the compiler builds and calls it;
* a use is the method itself (``a == b``, ``max a b``, ``a + b``, ``toString x``), or the
  ``[BEq α]`` argument of a library function the engine evaluates with any instance
  (:data:`.builtins.with_beq.BEQ_FUNCTIONS`: ``List.contains``/``elem``/``count``/``idxOf``/
  ``lookup``/``erase``/``eraseDups``/…, ``Array.contains``), or the ``[Ord β]`` argument of
  ``compareOn`` (:data:`.builtins.ordering.ORD_FUNCTIONS`);
* membership ``x ∈ xs`` in a ``List``/``Array`` is ``List.Mem``, logical equality: its
  ``Decidable`` instance (``instDecidableMemOfLawfulBEq``) needs ``LawfulBEq``, which only an
  instance equal to the global one has, so its truth never depends on a local ``BEq``;
* an instance binder of a definition stands for the caller's instance: at an entry call that is
  the global instance, which evaluation already implements, and a call passing a local instance
  to such a binder is a gap;
* ``LT``/``LE`` are not modelled: their uses hide in bounded quantifiers (``∀ i < n``), default
  arguments (``mergeSort``'s ``le``) and index proofs. One case is decided: a ``have`` of ``LT α``/``LE α`` hides its value (``have`` is
  ``withLocalDecl``, ``Lean.Elab.BuiltinNotation``/``elabLetDeclAux``), so ``a < b`` at ``α``
  where a ``Decidable`` instance is needed (``if``, ``decide``, a ``Prop`` used as a ``Bool``)
  finds none -- ``Int.decLt`` and its kind are stated for the global ``LT`` instance, which the
  local one is not definitionally equal to -- and Lean reports "failed to synthesize Decidable".
* a local ``Ord`` is used by ``compare`` and by the instances and functions above, nothing else:
  ``ltOfOrd``, ``leOfOrd``, ``beqOfOrd``, ``compareOfLessAndEq`` and ``maxOfLe`` are definitions,
  not instances (Init/Data/Ord.lean, Init/Prelude.lean), so ``<``, ``≤``, ``==``, ``max`` and a
  sort's default comparison (``mergeSort``'s ``le := fun a b => a ≤ b``) stay global -- only a
  comparison the code writes with ``compare`` (``xs.mergeSort (fun a b => compare a b != .gt)``)
  follows the local instance.

Anything else is a gap (never a silent use of the global instance): a local instance of another
class (``Hashable``, ``OfNat``, ``HAdd``, ``Zero``, …) or with another value, another library
function receiving a local instance, a class other than ``BEq``/``ToString`` reached through a
global instance, a use whose type is not known, and -- since ``omega``, ``decreasing_tactic`` and
``get_elem_tactic`` read ``+``, ``-``, ``<`` as the global operations -- an index or termination
proof in the scope of a local arithmetic or order instance of ``Nat``/``Int``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins.ordering import ORD_FUNCTIONS
from veriscale.backends.embedded.builtins.with_beq import BEQ_FUNCTIONS
from veriscale.backends.embedded.core_names import CORE_CLASSES, LAW_CLASSES
from veriscale.backends.embedded.elab.context import Ctx, LocalInstance
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.ops import OPERATOR_CLASSES
from veriscale.backends.embedded.elab.types import (
    BOOL,
    INT,
    NAT,
    STRING,
    Gap,
    MVar,
    deep,
    has_gap,
    show,
    zonk,
)
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType

ORDERING = NamedType("Ordering")

MODELLED_METHODS: dict[str, str] = {
    "BEq": "beq", "Max": "max", "Min": "min", "ToString": "toString", "Ord": "compare",
    "Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Mod": "mod", "Neg": "neg", "Append": "append",
}
"""The classes whose local instances the engine evaluates, and each one's method."""

ORDER_CLASSES: dict[str, str] = {"<": "LT", ">": "LT", "≤": "LE", "≥": "LE"}
"""``a > b`` is ``GT.gt a b := LT.lt b a`` and ``≥`` is ``GE.ge`` through ``LE`` (Init/Prelude.lean)."""

PROOF_SENSITIVE = frozenset({"Add", "Sub", "Mul", "Div", "Mod", "Neg", "LT", "LE", "HAdd", "HSub", "HMul",
                             "HDiv", "HMod", "OfNat"})
"""Classes whose local instances at ``Nat``/``Int`` change what ``omega`` and the index and
termination tactics read: a proof the engine's arithmetic prover finds may not be Lean's."""

CLASS_METHOD_FUNCTIONS: dict[str, str] = {
    "max": "Max", "Max.max": "Max", "min": "Min", "Min.min": "Min", "BEq.beq": "BEq", "bne": "BEq",
    "toString": "ToString", "ToString.toString": "ToString",
    "compare": "Ord", "Ord.compare": "Ord",
}
"""Global functions that are a class's method, used directly (``max a b`` is ``Max.max a b``)."""

_COMPONENT_FORMERS: dict[str, frozenset[str]] = {
    "BEq": frozenset({"List", "Array", "Option", "Prod"}),
    "ToString": frozenset({"List", "Array", "Option", "Prod"}),
    "Ord": frozenset({"List", "Array", "Option"}),
}
"""Per class, the type formers whose core instance is built from their components' instances
(``Ord``: ``List``/``Array`` by ``compareLex compare``, ``Option``; products have no core ``Ord``)."""


@dataclass(frozen=True, slots=True)
class InstancePlan:
    """How Lean's resolution builds an instance: a local instance (``decl`` declared it), the
    global instance (neither field), or the core instance of a type ``former`` built from its
    components' instances (``parts``, in the former's argument order)."""

    decl: A.LetDecl | None = None
    former: str | None = None
    parts: tuple[InstancePlan, ...] = ()

    @property
    def is_global(self) -> bool:
        return self.decl is None and self.former is None


GLOBAL = InstancePlan()


@dataclass(frozen=True, slots=True)
class InstanceChoice:
    """A use of class ``cls`` whose instance involves a local one: built as ``plan``. ``function``
    names the library function whose instance argument it is (``List.contains``); ``None`` when
    the use is the class's method itself (``a == b``, ``max a b``)."""

    cls: str
    plan: InstancePlan
    function: str | None = None

    @property
    def decl(self) -> A.LetDecl | None:
        return self.plan.decl


def use_key(node: A.Node) -> tuple[str, int, int]:
    """The key of a use of a class: by position, not identity, because the elaborator and the
    compiler each expand ``(· == x)`` into a ``fun`` of their own (copies of the same terms).
    Operators are keyed by their own token's position, so each operator of a tree has its own."""
    what = node.op if isinstance(node, A.BinOp) else type(node).__name__
    return what, node.line, node.col


def interpolation_key(node: A.Interp, chunk: int | None) -> tuple[str, int, int]:
    """The key of the ``toString`` of chunk ``chunk`` of ``s!"…"`` (:func:`interpolation_chunks`),
    or of its ``++`` (``chunk`` is ``None``)."""
    return ("s!++" if chunk is None else f"s!{chunk}"), node.line, node.col


def interpolation_chunks(parts: list[A.Node | str]) -> list[A.Node | str]:
    """The chunks Lean's ``s!`` expansion sees: a literal chunk, then alternately a term and a
    literal chunk (possibly empty) -- the interpolated string token is split at each ``{…}``."""
    chunks: list[A.Node | str] = []
    want_literal = True
    for part in parts:
        if isinstance(part, str):
            if want_literal:
                chunks.append(part)
                want_literal = False
            else:
                chunks[-1] = str(chunks[-1]) + part
        else:
            if want_literal:
                chunks.append("")
            chunks.append(part)
            want_literal = True
    if want_literal:
        chunks.append("")
    return chunks


def argument_key(function: str, node: A.Node) -> tuple[str, int, int]:
    """The key of the instance argument of a call of library ``function`` at ``node``: by the
    function's name and the call's position, because the elaborator and the compiler may see a
    chained call (``s.toList.count c``) through different nodes starting at one position."""
    return function, node.line, node.col


def class_application(ty: A.Node | None) -> tuple[str, A.Node | None] | None:
    """``(C, arg)`` when the type term ``ty`` is a core class applied (``BEq Int``, ``DecidableEq α``)."""
    ty = A.unparen(ty)
    arg: A.Node | None = None
    if isinstance(ty, A.App) and isinstance(ty.fn, A.Ident):
        arg = ty.args[0] if len(ty.args) == 1 else None
        ty = ty.fn
    if isinstance(ty, A.Ident):
        name = ty.name.removeprefix("_root_.")
        if name in CORE_CLASSES or name in LAW_CLASSES:
            return name, arg
    return None


def method_type(cls: str, t: LeanType) -> LeanType:
    """The method's type at ``t``: ``t → t → Bool`` for ``BEq``, ``t → String`` for ``ToString``,
    ``t → t`` for ``Neg``, ``t → t → t`` for the others (``Max``, ``Add``, ``Append``, …)."""
    if cls == "ToString":
        return FunType(t, STRING)
    if cls == "Neg":
        return FunType(t, t)
    if cls == "Ord":
        return FunType(t, FunType(t, ORDERING))
    return FunType(t, FunType(t, BOOL if cls == "BEq" else t))


def _mentions(outer: LeanType, inner: LeanType) -> bool:
    """Whether ``inner`` occurs strictly inside ``outer`` (as a container's element or a product's part)."""
    if isinstance(outer, NamedType):
        return any(a == inner or _mentions(a, inner) for a in outer.args)
    if isinstance(outer, ProdType):
        return any(a == inner or _mentions(a, inner) for a in (outer.fst, outer.snd))
    return False


class InstancesMixin(ElabCore):
    """Local instance declarations and the resolution of class uses among them."""

    local_instances: dict[int, tuple[A.LetDecl, str, A.Node]]
    instance_choices: dict[tuple[str, int, int], InstanceChoice]

    def init_instances(self) -> None:
        self.local_instances = {}
        self.instance_choices = {}
        self.proof_sensitive_defs: set[str] = set()
        """Declarations whose bodies declare a local instance of :data:`PROOF_SENSITIVE`."""

    # -- declarations ---------------------------------------------------------------------------
    def local_instance_decl(self, decl: A.LetDecl, ctx: Ctx, kind: Literal["have", "let"]) -> Ctx | None:
        """``have inst : C T := v``: the context with the local instance, or ``None`` when
        ``decl`` does not declare one."""
        found = class_application(decl.type)
        if found is None or decl.binders or decl.alts is not None or decl.pattern is not None:
            return None
        cls, arg = found
        name = decl.name or "this"
        method = MODELLED_METHODS.get(cls)
        t = self.read_type(arg, ctx) if arg is not None else None  # type: ignore[attr-defined]
        if cls in PROOF_SENSITIVE and (t is None or _unknown(deep(t)) or deep(t) in (NAT, INT)):
            self.proof_sensitive_defs.add(self.decl_name)
        impl = _method_node(decl.value, cls, method) if method is not None else None
        if method is None or t is None or isinstance(zonk(t), Gap) or has_gap(t) or impl is None:
            # (its value is not elaborated: without the class's structure its type is not known)
            self.gap(decl, f"a local instance of {cls} (`{decl.type_text}`) is not modelled: every use of "
                           f"{cls} in its scope may mean it", "local-instance")
            inst = LocalInstance(name, cls, t if t is not None else self.fresh(), kind, decl, modelled=False)
            return ctx.bind(name, NamedType(cls), "let").with_instance(inst)
        self.check(impl, ctx, method_type(cls, t))
        self.local_instances[id(decl)] = (decl, cls, impl)
        return ctx.bind(name, NamedType(cls), "let").with_instance(LocalInstance(name, cls, t, kind, decl))

    def binder_instances(self, cmd: A.DefCmd, ctx: Ctx) -> Ctx:
        """A definition's instance binders (``[inst : BEq α]``): local instances standing for the
        caller's."""
        for b in cmd.binders:
            if b.kind != "inst":
                continue
            found = class_application(b.type)
            if found is None:
                continue
            cls, arg = found
            t = self.read_type(arg, ctx) if arg is not None else self.fresh()  # type: ignore[attr-defined]
            name = b.names[0] if b.names else "inst✝"
            ctx = ctx.with_instance(LocalInstance(name, cls, t, "binder", None))
        return ctx

    def class_typed_binder(self, binder: A.Node, type_term: A.Node | None) -> None:
        """A ``fun``/definition binder whose type is a class (``fun (inst : BEq Nat) => …``) is a
        local instance too (``withLocalDecl``); its value comes from the caller: not modelled."""
        found = class_application(type_term)
        if found is not None:
            self.gap(binder, f"a binder of class type ({found[0]}) is a local instance for its scope (not modelled)",
                     "local-instance")

    def proof_sensitive_instances(self, ctx: Ctx | None) -> bool:
        """Whether a local instance in scope may change what ``omega`` and the index and termination
        tactics read (:data:`PROOF_SENSITIVE` at ``Nat``, ``Int`` or an unknown type)."""
        for inst in ctx.instances if ctx is not None else ():
            if inst.cls in PROOF_SENSITIVE and inst.source != "binder":
                t = deep(inst.type)
                if _unknown(t) or t in (NAT, INT):
                    return True
        return False

    # -- uses -----------------------------------------------------------------------------------
    def use_class(self, node: A.Node, cls: str, t: LeanType, ctx: Ctx, direct: bool,
                  function: str | None = None, key: tuple[str, int, int] | None = None) -> None:
        """A use of class ``cls`` at ``t`` in ``node`` (checked once types are settled): ``direct``
        when ``node`` is the method itself (``a == b``, ``max a b``), else the instance argument
        of ``function``. ``key`` overrides :func:`use_key` (the chunks of ``s!``)."""
        if not ctx.instances:
            return
        self.postponed.append(lambda: self._resolve(node, cls, t, ctx, direct, function, key))

    def use_interpolation(self, node: A.Interp, part_types: list[LeanType], ctx: Ctx) -> None:
        """``s!"a{x}b"`` is ``toString "a" ++ toString x ++ toString "b"``: a ``ToString`` use per
        chunk (at ``String`` for the literal ones) and an ``Append String`` use for the ``++``."""
        if not ctx.instances:
            return
        term_types = iter([t for part, t in zip(node.parts, part_types) if not isinstance(part, str)])
        chunk_types = [STRING if isinstance(c, str) else next(term_types) for c in interpolation_chunks(node.parts)]
        for i, t in enumerate(chunk_types):
            self.use_class(node, "ToString", t, ctx, direct=True, key=interpolation_key(node, i))
        if len(chunk_types) > 1:
            self.use_class(node, "Append", STRING, ctx, direct=True, key=interpolation_key(node, None))

    def use_order(self, node: A.BinOp, t: LeanType, ctx: Ctx) -> None:
        """``a < b`` (``≤``, ``>``, ``≥``) at ``t``: checked against the local ``LT``/``LE``
        instances once the use is known to need a ``Decidable`` instance."""
        cls = ORDER_CLASSES.get(node.op)
        if cls is None or not any(i.cls == cls for i in ctx.instances):
            return
        self.postponed.append(lambda: self._order_decidable(node, cls, t, ctx))

    def _order_decidable(self, node: A.BinOp, cls: str, t: LeanType, ctx: Ctx) -> None:
        if use_key(node) not in self.decidable_relations:
            return  # a `Prop` only: the declaration's gap already says it is not modelled
        want = deep(t)
        for inst in reversed([i for i in ctx.instances if i.cls == cls]):
            have = deep(inst.type)
            if _unknown(want) or _unknown(have):
                return
            if have != want:
                continue
            if inst.source == "have":
                self.error(node, f"failed to synthesize Decidable ({A.lean_syntax(node)}): `{node.op}` here is the "
                                 f"local instance `{inst.name} : {cls} {show(have)}`, whose value a `have` hides, "
                                 f"and the core Decidable instances are for the global {cls} {show(have)}",
                           "missing-instance")
            return

    def _resolve(self, node: A.Node, cls: str, t: LeanType, ctx: Ctx, direct: bool, function: str | None,
                 key: tuple[str, int, int] | None = None) -> None:
        want = deep(t)
        plan = self._plan(node, cls, want, ctx)
        if plan is None:
            return
        if direct:
            if plan.decl is None and not plan.is_global and cls not in _COMPONENT_FORMERS:
                self.gap(node, f"{cls} {show(want)} built from local instances (not modelled)", "local-instance")
                return
            # recorded even when global: the compiler refuses a use of a class in the scope of a
            # local instance of it that has no answer here
            self._record(key if key is not None else use_key(node), InstanceChoice(cls, plan), node)
            return
        if function is not None and cls in _INSTANCE_FUNCTIONS and (
                plan.is_global or function in _INSTANCE_FUNCTIONS[cls]):
            # recorded even when global: the compiler refuses a `[BEq α]`/`[Ord α]` call in the
            # scope of a local instance that has no answer here
            self._record(argument_key(function, node), InstanceChoice(cls, plan, function), node)
            return
        if not plan.is_global:
            self.gap(node, f"the instance argument {cls} {show(want)} of `{function}` resolves to a local instance "
                           "(not modelled for this function)", "local-instance")

    def _record(self, key: tuple[str, int, int], choice: InstanceChoice, node: A.Node) -> None:
        previous = self.instance_choices.get(key)
        if previous is not None and previous != choice:
            self.gap(node, "two uses of a class at one position resolve differently", "local-instance")
            return
        self.instance_choices[key] = choice

    def _plan(self, node: A.Node, cls: str, want: LeanType, ctx: Ctx) -> InstancePlan | None:
        """The instance Lean's resolution finds for ``cls want`` (``None``: a gap, reported).

        ``getInstances`` puts the local instances after the global ones and the generator tries
        the last first, so a local instance at exactly ``want`` wins, the most recent first;
        otherwise a global instance, whose own instance binders are resolved the same way: for
        ``BEq`` and ``ToString`` of a list, array, option or pair, the components' instances."""
        relevant = [i for i in ctx.instances if i.cls in (cls, "DecidableEq" if cls == "BEq" else cls)]
        if not relevant:
            return GLOBAL
        for inst in reversed(relevant):
            have = deep(inst.type)
            if _unknown(want) or _unknown(have):
                self.gap(node, f"cannot tell whether the local instance `{inst.name} : {inst.cls} {show(have)}` "
                               f"is the one Lean uses for {cls} {show(want)}", "local-instance")
                return None
            if have != want:
                continue
            if inst.source == "binder":
                return GLOBAL  # the caller's instance: the global one at an entry call
            if not inst.modelled or inst.cls != cls or inst.decl is None:
                self.gap(node, f"this use of {cls} {show(want)} resolves to the local instance `{inst.name}` "
                               "(not modelled here)", "local-instance")
                return None
            return InstancePlan(decl=inst.decl)
        if not any(_mentions(want, deep(i.type)) for i in relevant):
            return GLOBAL
        components = _components(cls, want)
        if components is None:
            self.gap(node, f"{cls} {show(want)} uses a local instance of {cls} for its components (not modelled)",
                     "local-instance")
            return None
        former, types = components
        parts: list[InstancePlan] = []
        for part_type in types:
            part = self._plan(node, cls, part_type, ctx)
            if part is None:
                return None
            parts.append(part)
        if all(p.is_global for p in parts):
            return GLOBAL
        return InstancePlan(former=former, parts=tuple(parts))

    def use_instances_of_call(self, node: A.Node, name: str, instances: tuple[LeanType, ...],
                              params: tuple[LeanType, ...], ctx: Ctx) -> None:
        """The instance arguments of a call of ``name``: its instance binders (``[BEq α]`` of
        ``List.contains``, of a user definition), or the class of a method used directly."""
        if not ctx.instances:
            return
        cls = CLASS_METHOD_FUNCTIONS.get(name)
        if cls is not None and params:
            self.use_class(node, cls, params[0], ctx, direct=True)
        for inst_type in instances:
            z = zonk(inst_type)
            if cls is not None and isinstance(z, NamedType) and z.name == cls:
                continue  # `Ord.compare`'s own `[self : Ord α]`: the use of the method above
            if isinstance(z, NamedType) and len(z.args) == 1:
                self.use_class(node, z.name, z.args[0], ctx, direct=False, function=name)
            elif isinstance(z, NamedType) and (z.name in CORE_CLASSES or z.name in LAW_CLASSES):
                self.gap(node, f"the instance argument {show(z)} of `{name}` with local instances in scope",
                         "local-instance")

    def use_membership(self, node: A.Node, elem: LeanType, ctx: Ctx) -> None:
        """``x ∈ xs`` in a list or an array is ``List.Mem`` (logical equality), decided through
        ``LawfulBEq`` (``List.instDecidableMemOfLawfulBEq``): whichever ``BEq`` instance the
        decision uses agrees with ``=``, so a local ``BEq`` never changes its truth (a local
        ``LawfulBEq`` is a class the engine does not model, a gap where it is declared)."""


_INSTANCE_FUNCTIONS: dict[str, Mapping[str, object]] = {"BEq": BEQ_FUNCTIONS, "Ord": ORD_FUNCTIONS}
"""Per class, the library functions evaluated with whichever instance their binder receives."""


def _unknown(t: LeanType) -> bool:
    return isinstance(t, (MVar, Gap)) or has_gap(t) or _has_mvar(t)


def _has_mvar(t: LeanType) -> bool:
    if isinstance(t, MVar):
        return True
    if isinstance(t, NamedType):
        return any(_has_mvar(a) for a in t.args)
    if isinstance(t, ProdType):
        return _has_mvar(t.fst) or _has_mvar(t.snd)
    if isinstance(t, FunType):
        return _has_mvar(t.domain) or _has_mvar(t.codomain)
    return False


def _components(cls: str, t: LeanType) -> tuple[str, tuple[LeanType, ...]] | None:
    """The type former of ``t`` and its components, when its core ``cls`` instance is built from
    theirs (``BEq``: Init/Data/List/Basic.lean ``instBEqList``, Init/Data/Array/Basic.lean, the
    derived ``BEq (Option α)``, Init/Core.lean ``instBEqProd``; ``ToString``:
    Init/Data/ToString/Basic.lean, Init/Data/Array/Basic.lean)."""
    formers = _COMPONENT_FORMERS.get(cls, frozenset())
    if isinstance(t, NamedType) and t.name in formers and len(t.args) == 1:
        return t.name, (t.args[0],)
    if isinstance(t, ProdType) and "Prod" in formers:
        return "Prod", (t.fst, t.snd)
    return None


def _method_node(value: A.Node | None, cls: str, method: str) -> A.Node | None:
    """The method's implementation in an instance value ``⟨f⟩``, ``{ m := f }`` or ``C.mk f``."""
    value = A.unparen(value)
    if isinstance(value, A.AnonCtor) and len(value.items) == 1:
        return value.items[0]
    if isinstance(value, A.StructInst) and value.source is None and len(value.fields) == 1:
        field, impl = value.fields[0]
        return impl if field == method else None
    if isinstance(value, A.App) and isinstance(value.fn, A.Ident) and value.fn.name == f"{cls}.mk" \
            and len(value.args) == 1:
        return value.args[0]
    return None


__all__ = ["CLASS_METHOD_FUNCTIONS", "GLOBAL", "MODELLED_METHODS", "OPERATOR_CLASSES", "ORDER_CLASSES",
           "InstanceChoice", "InstancePlan", "InstancesMixin", "argument_key", "class_application",
           "interpolation_chunks", "interpolation_key", "method_type", "use_key"]
