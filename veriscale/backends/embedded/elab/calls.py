"""Names and applications: constants, locals, field notation, arguments against signatures.

A constant's type is a :class:`Sig`: its explicit parameters (with optional and auto-proof ones
marked, as Lean's ``optParam``/``autoParam``) and its result, with the constant's universe of type
variables instantiated by fresh metavariables at every use. Applying a constant checks each
argument against its parameter; trailing optional parameters take their defaults and trailing
``autoParam`` proofs become obligations, as Lean's application elaborator does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, NamedTuple

import veriscale.backends.embedded.builtins  # noqa: F401  (registers the builtins)
from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins import IMPLICIT_ARGS, OPTIONAL_ARGS, PROOF_PARAMS
from veriscale.backends.embedded.core_names import lean_has
from veriscale.backends.embedded.elab.context import Ctx, ProofType
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.types import (
    BOOL,
    GAP,
    NAT,
    PROP,
    Gap,
    MVar,
    canonical_name,
    has_gap,
    head_name,
    show,
    term_arg,
    unify,
    zonk,
)
from veriscale.backends.embedded.elab.types import args as args_of
from veriscale.backends.embedded.registry import BUILTINS
from veriscale.backends.embedded.resolve import MATHLIB_NAMES
from veriscale.backends.embedded.signatures import BinderKind
from veriscale.backends.embedded.statics import TVar, evaluated_type, signature
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType, PropType

ParamKind = Literal["explicit", "optional", "auto"]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: LeanType
    kind: ParamKind = "explicit"


@dataclass(frozen=True, slots=True)
class Sig:
    params: tuple[Param, ...]
    result: LeanType
    name: str
    self_index: int = 0
    instances: tuple[LeanType, ...] = ()
    """The classes of the instance binders (``BEq α`` of ``List.contains``)."""
    tvars: tuple[tuple[str, LeanType], ...] = ()
    """After :meth:`CallsMixin.instantiate_sig`: each signature variable and its metavariable
    (a value parameter ``n`` of ``Fin n`` among them, which the argument given for ``n`` fixes)."""


def instantiate(ty: LeanType, mapping: dict[str, LeanType], fresh: object) -> LeanType:
    """Replace signature type variables (``TVar``) by metavariables, one per name."""
    if isinstance(ty, TVar):
        if ty.name == "?":
            return GAP
        if ty.name not in mapping:
            mapping[ty.name] = fresh()  # type: ignore[operator]
        return mapping[ty.name]
    if isinstance(ty, NamedType) and ty.args:
        return NamedType(canonical_name(ty.name), tuple(instantiate(a, mapping, fresh) for a in ty.args))
    if isinstance(ty, NamedType):
        return NamedType(canonical_name(ty.name))
    if isinstance(ty, ProdType):
        return ProdType(instantiate(ty.fst, mapping, fresh), instantiate(ty.snd, mapping, fresh))
    if isinstance(ty, FunType):
        return FunType(instantiate(ty.domain, mapping, fresh), instantiate(ty.codomain, mapping, fresh))
    return ty


# Core constants the engine evaluates specially (not registered builtins), with Lean's types.
# `α` and `β` are instantiated per use.
_CORE_CONSTANTS: dict[str, str] = {
    "max": "α → α → α",
    "min": "α → α → α",
    "id": "α → α",
    "some": "α → Option α",
    "Option.some": "α → Option α",
    "none": "Option α",
    "Option.none": "Option α",
    "true": "Bool",
    "false": "Bool",
    "Bool.true": "Bool",
    "Bool.false": "Bool",
    "Ordering.lt": "Ordering",
    "Ordering.eq": "Ordering",
    "Ordering.gt": "Ordering",
    "not": "Bool → Bool",
    "default": "α",
    "Inhabited.default": "α",
    "Prod.mk": "α → β → α × β",
    "List.nil": "List α",
    "List.cons": "α → List α → List α",
    "Nat.succ": "Nat → Nat",
    "Nat.zero": "Nat",
    "decide": "Prop → Bool",
    "panic!": "String → α",
    "panic": "String → α",
    "unreachable!": "α",
    "Decidable.decide": "Prop → Bool",
    "Id.run": "Id α → α",
    "Int.toNat": "Int → Nat",
    "Int.ofNat": "Nat → Int",
    "Int.negSucc": "Nat → Int",
    "Except.ok": "β → Except α β",
    "Except.error": "α → Except α β",
    "Array.mk": "List α → Array α",
    "List.toArray": "List α → Array α",
}
_UNCERTAIN_NAMES = frozenset({"List.enum", "List.iota", "Int.mod", "Nat.binaryRec", "Float.toRatParts",
                              "List.enumFrom", "Array.enum"})
"""Names whose presence in v4.24 could not be confirmed (deprecations): never claimed absent."""

_CORE_FIRST = frozenset({"Id.run"})
"""Constants whose Lean type the registry's evaluation signature does not state (``Id.run`` is
evaluated as the identity, but its parameter is an ``Id α``: that is what gives ``do`` its monad)."""
_PROP_CONSTANTS = frozenset({"True", "False"})
_PURE_NAMES = frozenset({"pure", "Pure.pure"})
_THROW_NAMES = frozenset({"throw", "MonadExcept.throw"})


def _core_sig(name: str) -> Sig | None:
    from veriscale.lean.types import parse_type

    text = _CORE_CONSTANTS.get(name)
    if text is None:
        return None
    ty = _type_variables(parse_type(text))
    params: list[Param] = []
    while isinstance(ty, FunType):
        params.append(Param(f"x{len(params)}", ty.domain))
        ty = ty.codomain
    return Sig(tuple(params), ty, name)


def _type_variables(ty: LeanType) -> LeanType:
    """``α``/``β`` of the core table as type variables. Unlike the evaluator's reading of
    signatures (``statics.evaluated_type``) it keeps ``Id α``: that is what gives ``Id.run do`` its
    monad."""
    if isinstance(ty, NamedType):
        if not ty.args and ty.name in ("α", "β"):
            return TVar(ty.name)
        return NamedType(ty.name, tuple(_type_variables(a) for a in ty.args)) if ty.args else ty
    if isinstance(ty, ProdType):
        return ProdType(_type_variables(ty.fst), _type_variables(ty.snd))
    if isinstance(ty, FunType):
        return FunType(_type_variables(ty.domain), _type_variables(ty.codomain))
    return ty


def builtin_sig(name: str) -> Sig | None:
    """The Lean signature of a builtin, as registered (:mod:`..signatures`): its explicit binders
    with their defaults (``optional``) and auto-proofs (``auto``); a proof binder without a
    default is a parameter the caller must supply (``List.head xs h``)."""
    if name in _CORE_FIRST:
        return _core_sig(name)
    b = BUILTINS.get(name)
    if b is None:
        return None
    registered = getattr(b, "signature", None)
    if registered is None:
        return _statics_sig(name)
    params: list[Param] = []
    instances: list[LeanType] = []
    bound: set[str] = set()  # names bound by earlier binders are type variables (`α`, `n` of `Fin n`)
    for binder in registered.binders:
        if binder.kind is BinderKind.INST:
            instances.append(evaluated_type(binder.type, frozenset(bound)))
        if binder.is_explicit:
            ty = binder.type
            if isinstance(ty, PropType):
                ptype: LeanType = _proof_type(ty.text)
                kind: ParamKind = "auto" if binder.default is not None else "explicit"
            else:
                nested = _nested_param_type(ty, frozenset(bound)) if isinstance(ty, FunType) else None
                ptype = nested if nested is not None else evaluated_type(ty, frozenset(bound))
                kind = "optional" if binder.default is not None else "explicit"
            params.append(Param(binder.name or f"x{len(params)}", ptype, kind))
        if binder.name is not None:
            bound.add(binder.name)
    return Sig(tuple(params), evaluated_type(registered.result, frozenset(bound)), name, b.self_index,
               tuple(instances))


def _proof_type(text: str) -> LeanType:
    from veriscale.backends.embedded.parser import parse_term

    try:
        return ProofType(parse_term(text), text)
    except Exception:  # noqa: BLE001 - an unreadable statement is still a proof, of something
        return ProofType(A.Ident(0, 0, "True"), text)


def _statics_sig(name: str) -> Sig | None:
    b = BUILTINS[name]
    sig = signature(name, b.arity)
    if sig is None:
        return None
    optional = OPTIONAL_ARGS.get(name, 0)
    proofs = PROOF_PARAMS.get(name, frozenset())
    params = []
    for i, t in enumerate(sig.params):
        kind: ParamKind = "explicit"
        if i in proofs:
            kind = "auto"
        elif i >= len(sig.params) - optional:
            kind = "optional"
        params.append(Param(f"x{i}", t, kind))
    return Sig(tuple(params), sig.result, name, b.self_index)


def _may_be_generated(last: str) -> bool:
    """A name Lean may generate in a structure's namespace (``rec``, ``casesOn``, ``mk.injEq``,
    ``instReprBest``, equation lemmas, ...): never claimed absent."""
    from veriscale.backends.embedded.core_names import _may_be_unlisted

    return _may_be_unlisted(last) or last[:1].islower() and last.startswith(("inst", "mk", "rec", "cases", "no"))


class CallsMixin(ElabCore):
    """Identifiers, applications and field notation (needs ``lookup_global`` from the driver)."""

    # -- provided by the driver -----------------------------------------------------------------
    def lookup_global(self, name: str, ctx: Ctx) -> Sig | None:  # pragma: no cover - driver
        raise NotImplementedError

    def instantiate_sig(self, sig: Sig) -> Sig:
        mapping: dict[str, LeanType] = {}
        params = tuple(Param(p.name, instantiate(p.type, mapping, self.fresh), p.kind) for p in sig.params)
        instances = tuple(instantiate(t, mapping, self.fresh) for t in sig.instances)
        result = instantiate(sig.result, mapping, self.fresh)
        return Sig(params, result, sig.name, sig.self_index, instances, tuple(mapping.items()))

    # -- identifiers ----------------------------------------------------------------------------
    def e_Ident(self, node: A.Ident, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return self.call_name(node, node.name, [], ctx, expected)

    def e_App(self, node: A.App, ctx: Ctx, expected: LeanType | None) -> LeanType:
        fn = node.fn
        if isinstance(fn, A.Paren) and not isinstance(fn.term, A.Cdot):
            fn = fn.term
        if isinstance(fn, A.Ident):
            return self.call_name(node, fn.name, node.args, ctx, expected)
        if isinstance(fn, A.DotIdent):
            return self.dot_ident(node, fn.name, node.args, ctx, expected)
        if isinstance(fn, A.Proj):
            base = self.elab(fn.term, ctx, None)
            return self.method(node, fn.term, base, fn.field, node.args, ctx, expected)
        ft = self.elab(fn, ctx, None)
        return self.apply_type(node, ft, node.args, ctx, expected)

    def e_Proj(self, node: A.Proj, ctx: Ctx, expected: LeanType | None) -> LeanType:
        base = self.elab(node.term, ctx, None)
        return self.method(node, node.term, base, node.field, [], ctx, expected)

    def e_DotIdent(self, node: A.DotIdent, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return self.dot_ident(node, node.name, [], ctx, expected)

    def e_NamedArg(self, node: A.NamedArg, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return self.gap(node, "a named argument outside an application")

    def e_Explicit(self, node: A.Explicit, ctx: Ctx, expected: LeanType | None) -> LeanType:
        return self.gap(node, "`@` (explicit mode) is not modelled")

    def dot_ident(self, node: A.Node, name: str, arg_nodes: list[A.Node], ctx: Ctx,
                  expected: LeanType | None) -> LeanType:
        """``.some x``: the constant ``name`` in the namespace of the expected type's head."""
        h = head_name(expected) if expected is not None else None
        if h is None:
            for a in arg_nodes:
                self.elab(a, ctx, None)
            return self.gap(node, f"`.{name}` needs a known expected type", "postponed")
        return self.call_name(node, f"{h}.{name}", arg_nodes, ctx, expected)

    def call_name(self, node: A.Node, name: str, arg_nodes: list[A.Node], ctx: Ctx,
                  expected: LeanType | None) -> LeanType:
        local = ctx.lookup(name)
        if local is not None:
            if local.aux_of is not None:
                sig = self.lookup_global(local.aux_of, ctx)
                if sig is not None:
                    self.note_opaque_prop(node, sig.name, arg_nodes, ctx)
                    return self.apply_sig(node, self.instantiate_sig(sig), arg_nodes, ctx, expected)
            if local.kind == "var" and arg_nodes and _returns_prop_after(local.type, len(arg_nodes)) \
                    and not self.decidable_instance_in_scope(ctx):
                self.undecidable_heads[id(node)] = (f"`{name}` is a local function to `Prop`, and no `Decidable` "
                                                    "instance for it is in scope")
            return self.apply_type(node, local.type, arg_nodes, ctx, expected)
        parts = name.split(".")
        # `x.f.g`: the longest prefix that is a local, then field notation on the rest (Lean's
        # resolveLocalName tries a local before any global).
        for k in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:k])
            decl = ctx.lookup(prefix)
            if decl is not None:
                return self.fields(node, A.Ident(node.line, node.col, prefix), decl.type, parts[k:], arg_nodes,
                                   ctx, expected)
        if name in _PROP_CONSTANTS and not arg_nodes:
            return PROP if expected is None or not _is_bool(expected) else BOOL
        if name in _PURE_NAMES and self.denotes_core(name, ctx):
            return self.pure_call(node, name, arg_nodes, ctx, expected)
        if name in _THROW_NAMES and self.denotes_core(name, ctx):
            return self.throw_call(node, name, arg_nodes, ctx, expected)
        if self.is_core_traversal(name) and self.denotes_core(name, ctx):
            return self.monadic_call(node, name, arg_nodes, ctx, expected)
        sig = self.lookup_global(name, ctx)
        if sig is not None:
            if sig.name in ("decide", "Decidable.decide") and len(arg_nodes) == 1 and not isinstance(arg_nodes[0], A.NamedArg):
                self.check_decidable(arg_nodes[0])  # `decide p` takes `[Decidable p]`, as `if` does
                out = self.apply_sig(node, self.instantiate_sig(sig), arg_nodes, ctx, expected)
                self.check_decidable_heads(arg_nodes[0])
                return out
            self.note_opaque_prop(node, sig.name, arg_nodes, ctx)
            return self.apply_sig(node, self.instantiate_sig(sig), arg_nodes, ctx, expected)
        # `Foo.bar.baz`: a global followed by field notation
        for k in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:k])
            sig = self.lookup_global(prefix, ctx)
            if sig is not None:
                base = self.apply_sig(node, self.instantiate_sig(sig), [], ctx, None)
                return self.fields(node, A.Ident(node.line, node.col, prefix), base, parts[k:], arg_nodes, ctx,
                                   expected)
        for a in arg_nodes:
            if not isinstance(a, A.NamedArg):
                self.elab(a, ctx, GAP)  # its parameter types are not known: nothing in it is an error
        if "." in name and self.surely_absent(name) and ctx.lookup(name.split(".")[0]) is None:
            self.error(node, f"unknown identifier '{name}'", "unknown-constant")
            return GAP
        if "." not in name:
            # Lean would say "unknown identifier" unless its root namespace has the name; the
            # engine's list of Lean's declarations is complete only for some namespaces, not the root
            return self.gap(node, f"the engine does not know the constant `{name}` (an unknown identifier "
                                  "unless Lean's root namespace has it, which the engine cannot tell)",
                            "unknown-constant")
        return self.gap(node, f"the engine does not know the constant `{name}`", "unknown-constant")

    def is_core_traversal(self, name: str) -> bool:
        """Hook: ``name`` is a monadic traversal :mod:`.monadic` types."""
        return False

    def monadic_call(self, node: A.Node, name: str, arg_nodes: list[A.Node], ctx: Ctx,
                     expected: LeanType | None, receiver: tuple[A.Node, LeanType] | None = None
                     ) -> LeanType:  # pragma: no cover - :mod:`.monadic`
        raise NotImplementedError

    def denotes_core(self, name: str, ctx: Ctx) -> bool:  # pragma: no cover - driver
        """``name`` resolves to the core declaration of that name (no user declaration shadows it)."""
        raise NotImplementedError

    def pure_call(self, node: A.Node, name: str, arg_nodes: list[A.Node], ctx: Ctx,
                  expected: LeanType | None) -> LeanType:
        """``pure v`` (``Pure.pure : {f : Type u → Type v} → [Pure f] → {α : Type u} → α → f α``,
        ``Init/Prelude.lean``): its monad ``f`` is found by unifying ``f α`` with the expected type
        (``elabAppArgs`` propagates it first). At ``Id β`` (``Id.run do``, where ``Id β`` unfolds to
        ``β``) and ``Option β`` (``Option``'s ``Monad`` instance, ``Init/Data/Option/Basic.lean``)
        ``v`` is checked at ``β``; any other monad, or one not yet known, is a gap."""
        positional = [a for a in arg_nodes if not isinstance(a, A.NamedArg)]
        z = zonk(expected) if expected is not None else None
        monad = head_name(z) if z is not None else None
        wrapped = args_of(z) if z is not None else ()
        if monad == "Except" and len(wrapped) == 2 and len(positional) == 1 == len(arg_nodes):
            # `Except.pure : α → Except ε α` (Init/Prelude.lean, `instance : Monad (Except ε)`)
            self.check(positional[0], ctx, wrapped[1])
            return z  # type: ignore[return-value]
        if z is None or len(positional) != 1 or len(arg_nodes) != 1 or monad not in ("Id", "Option") \
                or len(wrapped) != 1:
            for a in arg_nodes:
                self.elab(a.value if isinstance(a, A.NamedArg) else a, ctx, None)
            shown = "a monad not yet known" if z is None or monad is None else f"the monad of {show(z)}"
            return self.gap(node, f"`{name}` at {shown} is not modelled", "postponed")
        self.check(positional[0], ctx, wrapped[0])
        return z

    def throw_call(self, node: A.Node, name: str, arg_nodes: list[A.Node], ctx: Ctx,
                   expected: LeanType | None) -> LeanType:
        """``throw e`` (``MonadExcept.throw : {ε} {m} [MonadExcept ε m] {α} → ε → m α``,
        Init/Prelude.lean): at ``Except ε α`` the instance is ``MonadExceptOf ε (Except ε)``
        (Init/Control/Except.lean), so ``e`` is checked at ``ε``; any other monad is a gap."""
        positional = [a for a in arg_nodes if not isinstance(a, A.NamedArg)]
        z = zonk(expected) if expected is not None else None
        wrapped = args_of(z) if z is not None else ()
        if z is None or head_name(z) != "Except" or len(wrapped) != 2 or len(positional) != 1 \
                or len(arg_nodes) != 1:
            for a in arg_nodes:
                self.elab(a.value if isinstance(a, A.NamedArg) else a, ctx, None)
            shown = "a monad not yet known" if z is None or head_name(z) is None else f"the monad of {show(z)}"
            return self.gap(node, f"`{name}` at {shown} is not modelled", "postponed")
        self.check(positional[0], ctx, wrapped[0])
        return z

    def fields(self, node: A.Node, base_node: A.Node, base: LeanType, names: list[str], arg_nodes: list[A.Node],
               ctx: Ctx, expected: LeanType | None) -> LeanType:
        t = base
        for i, f in enumerate(names):
            last = i == len(names) - 1
            t = self.method(node, base_node, t, f, arg_nodes if last else [], ctx, expected if last else None)
            # the receiver of the next field is this projection (`a.size` in `a.size.fold f x`)
            base_node = A.Proj(base_node.line, base_node.col, base_node, f)
        return t

    # -- field notation -------------------------------------------------------------------------
    def method(self, node: A.Node, base_node: A.Node, base: LeanType, field: str, arg_nodes: list[A.Node],
               ctx: Ctx, expected: LeanType | None) -> LeanType:
        t = zonk(base)
        if isinstance(t, MVar):
            # Lean postpones field notation on a term whose type is still a metavariable and
            # resumes it once other parts of the definition have fixed that type
            result = self.fresh()
            self.resumes.append(lambda: self._resume_method(node, base_node, base, field, arg_nodes, ctx,
                                                            expected, result))
            return result
        if isinstance(t, Gap):
            for a in arg_nodes:
                if not isinstance(a, A.NamedArg):
                    self.elab(a, ctx, GAP)
            return GAP
        if isinstance(t, ProdType) and field in ("1", "2", "fst", "snd"):
            out = t.fst if field in ("1", "fst") else t.snd
            return self.apply_type(node, out, arg_nodes, ctx, expected)
        if isinstance(t, ProofType):
            for a in arg_nodes:
                self.elab(a, ctx, None)
            return self.gap(node, f"`.{field}` of a proof is not modelled", "proof")
        h = head_name(t)
        if h is None:
            return self.gap(node, f"field notation `.{field}` on {show(t)}")
        if h == "Fin" and field in ("1", "2", "isLt"):
            return self.fin_field(node, base_node, t, field, arg_nodes, ctx, expected)
        if h == "Fin" and field == "val" and not arg_nodes:
            self.node_types.mark_fin_value(node)
        field_type = self.structure_field(t, field)
        if field_type is not None:
            return self.apply_type(node, field_type, arg_nodes, ctx, expected)
        if self.is_core_traversal(f"{h}.{field}"):
            return self.monadic_call(node, f"{h}.{field}", arg_nodes, ctx, expected, receiver=(base_node, base))
        sig = self.lookup_method(h, field, ctx)
        if sig is None:
            for a in arg_nodes:
                if not isinstance(a, A.NamedArg):
                    self.elab(a, ctx, GAP)
            alias = self.abbreviation_with_field(field)
            if alias is not None:
                # the value's type may be written with the abbreviation (`r : Row`), whose
                # namespace Lean searches first; the engine's types are unfolded
                return self.gap(node, f"`.{field}` may be `{alias}.{field}` through the type abbreviation "
                                f"`{alias}`, which the engine unfolds", "unknown-constant")
            if self.surely_absent(f"{h}.{field}"):
                self.error(node, f"invalid field '{field}', the environment does not contain '{h}.{field}'",
                           "unknown-constant")
                return GAP
            return self.gap(node, f"the engine does not know `{h}.{field}`", "unknown-constant")
        sig = self.instantiate_sig(sig)
        index = self.self_position(sig, h)
        if index is None:
            return self.gap(node, f"`{sig.name}` has no explicit parameter of type {h}", "field-notation")
        remaining = Sig(sig.params[:index] + sig.params[index + 1:], sig.result, sig.name, instances=sig.instances,
                        tvars=sig.tvars)
        return self.apply_sig(node, remaining, arg_nodes, ctx, expected,
                              receiver=Receiver(sig.params[index].name, base_node, base, sig.params[index].type, index))

    def fin_field(self, node: A.Node, base_node: A.Node, t: LeanType, field: str, arg_nodes: list[A.Node],
                  ctx: Ctx, expected: LeanType | None) -> LeanType:
        """``structure Fin (n : Nat) where val : Nat; isLt : val < n`` (``Init/Prelude.lean``):
        ``i.1`` is ``i.val``, ``i.2``/``i.isLt`` a proof of ``i.val < n``."""
        from veriscale.backends.embedded.elab.getelem import fin_bound_term

        if field == "1":
            return self.method(node, base_node, t, "val", arg_nodes, ctx, expected)  # marks `node`
        bound = fin_bound_term(t)
        receiver = A.unparen(base_node)
        if bound is None or not isinstance(receiver, A.Ident):
            for a in arg_nodes:
                self.elab(a.value if isinstance(a, A.NamedArg) else a, ctx, None)
            return self.gap(node, f"`.{field}` of a `Fin` whose bound or receiver is not known", "proof")
        prop = A.BinOp(node.line, node.col, "<", A.Ident(node.line, node.col, f"{receiver.name}.val"), bound)
        return self.apply_type(node, ProofType(prop, A.sexpr(prop)), arg_nodes, ctx, expected)

    def _resume_method(self, node: A.Node, base_node: A.Node, base: LeanType, field: str,
                       arg_nodes: list[A.Node], ctx: Ctx, expected: LeanType | None, result: LeanType) -> bool:
        """Run a postponed field notation; ``False`` when its receiver's type is still unknown."""
        if isinstance(zonk(base), MVar):
            return False
        out = self.method(node, base_node, base, field, arg_nodes, ctx, expected)
        # Lean's `resumePostponed` ends with `ensureHasType`: the type the rest of the declaration
        # gave the postponed term meanwhile wins, with a coercion (`↑` Nat→Int) where one exists
        self.expect(node, out, result)
        return True

    def abbreviation_with_field(self, field: str) -> str | None:
        """A type abbreviation ``T`` of the file that declares ``T.field`` (the elaborator knows)."""
        return None

    def surely_absent(self, name: str) -> bool:
        """Lean v4.24 core has no declaration ``name`` (:mod:`..core_names`), and no import could
        add one (no Mathlib; the file itself declares nothing by that name)."""
        if getattr(self, "has_mathlib", False) or name in _UNCERTAIN_NAMES:
            return False
        env = getattr(self, "env", None)
        if env is not None and (name in env.defs or name in env.ctors):
            return False
        namespace, _, last = name.rpartition(".")
        si = env.structs.get(namespace) if env is not None else None
        if si is not None and not si.cmd.extends and not si.cmd.is_class and "." not in namespace:
            # a root structure the file declares (a prelude name would be a redeclaration error):
            # its namespace holds its fields, its constructor, the names Lean generates for it and
            # what the file declares there -- nothing else
            return last != si.ctor and si.field_index(last) < 0 and not _may_be_generated(last)
        return lean_has(name) is False

    def self_position(self, sig: Sig, h: str) -> int | None:
        """Lean's generalized field notation: the first explicit parameter whose type's head is
        the namespace (``Lean.Elab.App``, ``addLValArg``)."""
        for i, p in enumerate(sig.params):
            if head_name(p.type) == h:
                return i
        return None

    def lookup_method(self, h: str, field: str, ctx: Ctx) -> Sig | None:
        if f"{h}.{field}" in MATHLIB_NAMES and not getattr(self, "has_mathlib", False):
            return None  # a Mathlib declaration the engine implements, absent without Mathlib
        sig = self.lookup_global(f"{h}.{field}", ctx, qualified=True)  # type: ignore[call-arg]
        if sig is None and h == "Subarray":
            sig = self.lookup_global(f"Std.Slice.{field}", ctx, qualified=True)  # type: ignore[call-arg]
        return sig

    def structure_field(self, t: LeanType, field: str) -> LeanType | None:  # pragma: no cover - driver
        raise NotImplementedError

    def require_call_instances(self, node: A.Node, name: str, instances: tuple[LeanType, ...],
                               params: tuple[LeanType, ...], ctx: Ctx) -> None:
        """Hook: the order instances a call needs (:mod:`.order_instances`)."""

    def require_default_order(self, node: A.Node, param_name: str, param_type: LeanType, ctx: Ctx) -> None:
        """Hook: a left-out ``le``/``lt`` parameter's default order (:mod:`.order_instances`)."""

    def use_instances_of_call(self, node: A.Node, name: str, instances: tuple[LeanType, ...],
                              params: tuple[LeanType, ...], ctx: Ctx) -> None:
        """Hook: the instance arguments of a call (:mod:`.instances`)."""

    # -- application ----------------------------------------------------------------------------
    def apply_sig(self, node: A.Node, sig: Sig, arg_nodes: list[A.Node], ctx: Ctx,
                  expected: LeanType | None, receiver: Receiver | None = None) -> LeanType:
        params = list(sig.params)
        positional = [a for a in arg_nodes if not isinstance(a, A.NamedArg)]
        named = [a for a in arg_nodes if isinstance(a, A.NamedArg)]
        for na in named:
            match = next((i for i, p in enumerate(params) if p.name == na.name), None)
            if match is None and self._named_value_param(sig, na, ctx):
                continue
            if match is None:
                self.elab(na.value, ctx, None)
                names = self.binder_names(sig.name)
                if names is not None and na.name not in names:
                    # Lean.Elab.App `elabAppArgs`: a named argument must name a binder of the
                    # function's type, explicit or not
                    self.error(na, f"invalid argument name '{na.name}' for function '{sig.name}'", "named-argument")
                    return GAP
                return self.gap(node, f"named argument `({na.name} := …)` of `{sig.name}` is not modelled")
            self.check(na.value, ctx, params[match].type)
            del params[match]
        if len(positional) == len(params) and _propagates(expected):
            # Lean propagates the expected type to the result before elaborating the arguments
            # (`elabAppArgs`, `propagateExpectedType`): `Id.run do …` learns its monad from it
            if unify(sig.result, expected) is False:  # type: ignore[arg-type]
                pass  # reported by the final check, with coercions considered
        # Lean elaborates the arguments left to right (`ElabAppArgs.processExplicitArg`), the
        # receiver of field notation at its own position (`addLValArg` inserts it as an already
        # elaborated argument): in `xs.map (·.length)` the function comes first, while the element
        # type is still unknown, so its body is postponed (field notation on an unknown type) and
        # resumed only after the rest of the declaration had its say.
        pairs = list(zip(params, positional))
        # a proof parameter's statement mentions earlier parameters: `(h : foo_precond xs)`
        bindings = {p.name: a for p, a in pairs}
        if receiver is not None:
            bindings[receiver.name] = receiver.node
        self.use_instances_of_call(node, sig.name, sig.instances,
                                   tuple(p.type for p in sig.params), ctx)
        self.require_call_instances(node, sig.name, sig.instances, tuple(p.type for p in sig.params), ctx)
        self._bind_value_params(sig, pairs, receiver)
        pending = receiver
        for i, (p, a) in enumerate(pairs):
            if pending is not None and i >= pending.position:
                self.expect(pending.node, pending.type, pending.param_type)
                pending = None
            self.check_arg(a, ctx, p.type, bindings)
        if pending is not None:
            self.expect(pending.node, pending.type, pending.param_type)
        rest_params = params[len(positional):]
        extra = positional[len(params):]
        if extra:
            t = sig.result
            return self.apply_type(node, t, extra, ctx, expected)
        # trailing optional and auto-proof parameters take their defaults
        defaulted: list[Param] = []
        while rest_params and rest_params[-1].kind in ("optional", "auto") and not _wants_function(expected):
            defaulted.append(rest_params.pop())
        for p in reversed(defaulted):
            if p.kind == "auto":
                # the default is a tactic run at the call (`elabAppArgs` synthesizes the autoParam):
                # `xs.back` needs `get_elem_tactic` to prove `0 < xs.size` here, not at run time
                self.auto_param_obligation(node, self._instantiate_proof(p.type, bindings, ctx), ctx)
            else:
                self.require_default_order(node, p.name, p.type, ctx)
        out = sig.result
        for p in reversed(rest_params):
            out = FunType(self._instantiate_proof(p.type, bindings, ctx), out)
        self.expect(node, out, expected)
        return out

    def auto_param_obligation(self, node: A.Node, prop: LeanType, ctx: Ctx) -> None:  # pragma: no cover - mixin
        raise NotImplementedError

    def opaque_prop_def(self, full_name: str) -> bool:  # pragma: no cover - driver
        raise NotImplementedError

    def note_opaque_prop(self, node: A.Node, full_name: str, arg_nodes: list[A.Node], ctx: Ctx) -> None:
        """Remember ``node`` when it applies a definition of the file that returns ``Prop`` and is
        not reducible (:meth:`check_decidable_heads` reports it where a ``Decidable`` instance is
        needed)."""
        if self.opaque_prop_def(full_name) and not self.decidable_instance_in_scope(ctx):
            self.undecidable_heads[id(node)] = (f"`{full_name}` is a definition returning `Prop` that is not "
                                                "reducible, which instance synthesis does not unfold (use `abbrev` "
                                                "or return `Bool`)")

    def decidable_instance_in_scope(self, ctx: Ctx) -> bool:
        """A ``Decidable``-family instance among the local instances or the binders of the
        definition being elaborated (``[DecidablePred p]``): instance synthesis may use it."""
        if any(i.cls.startswith("Decidable") for i in ctx.instances):
            return True
        current = getattr(self, "current", None)
        binders = list(current.cmd.binders) if current is not None else []
        return any(b.kind == "inst" and "Decidable" in b.type_text for b in binders)

    def binder_names(self, name: str) -> frozenset[str] | None:
        """Every binder name of the constant ``name`` (explicit, implicit and instance ones) when
        the engine knows its whole signature: a definition of the file, or a builtin whose
        registered signature was checked against Lean's source; else ``None``."""
        env = getattr(self, "env", None)
        d = env.defs.get(name) if env is not None else None
        if d is not None:
            cmd = d.cmd
            if id(cmd) in getattr(self, "parent_of", {}):
                return None  # a `where` helper also abstracts what it uses of its parent
            # names of auto-bound implicits (`α` in a binder type) are binder names too: every
            # identifier of the signature's types is taken as one (more names, never a false error)
            texts = [cmd.type_text] + [b.type_text for b in cmd.binders]
            auto = {w for text in texts for w in re.findall(r"[^\W\d][\w'!?]*", text)}
            return frozenset(n for b in cmd.binders for n in b.names) | auto
        b = BUILTINS.get(name)
        registered = getattr(b, "signature", None) if b is not None else None
        if registered is None or not b.verified:  # type: ignore[union-attr]
            return None
        if any(binder.name is None for binder in registered.binders if binder.is_explicit):
            return None  # an anonymous explicit binder (`: List α → Prop`): Lean names it `a✝`
        return frozenset(binder.name for binder in registered.binders if binder.name is not None)

    def _named_value_param(self, sig: Sig, na: A.NamedArg, ctx: Ctx) -> bool:
        """``(n := e)`` for an implicit ``{n : Nat}`` that the signature's types mention
        (``Array.ofFn (n := xs.length) f``, whose ``f : Fin n → α``): Lean's named argument fills
        the implicit binder (``elabAppArgs``), so ``n`` stands for ``e`` in the types, as an explicit
        value parameter does (:meth:`_bind_value_params`). Only the implicits a builtin declares
        nameable (``IMPLICIT_ARGS``) are taken."""
        if na.name not in IMPLICIT_ARGS.get(sig.name, ()):
            return False
        m = dict(sig.tvars).get(na.name)
        if m is None or not isinstance(zonk(m), MVar):
            return False
        self.check(na.value, ctx, NAT)
        unify(m, term_arg(na.value))
        return True

    def _bind_value_params(self, sig: Sig, pairs: list[tuple[Param, A.Node]], receiver: Receiver | None) -> None:
        """A ``Nat`` parameter ``n`` that the signature's types mention (``Fin n`` of ``Fin.foldl``,
        ``List.finRange``) stands in them for the argument given: Lean's dependent arrow
        ``(n : Nat) → (α → Fin n → α) → …`` is instantiated with the argument (``instantiateForall``
        in ``elabAppArgs``), so the function's index type is ``Fin a.size`` itself."""
        if not sig.tvars:
            return
        variables = dict(sig.tvars)
        given = [(p.name, a) for p, a in pairs]
        if receiver is not None:
            given.append((receiver.name, receiver.node))
        params = {p.name: p for p in sig.params}
        for name, arg in given:
            m = variables.get(name)
            p = params.get(name)
            if m is None or p is None or head_name(p.type) != "Nat" or not isinstance(zonk(m), MVar):
                continue
            unify(m, term_arg(arg))

    def _instantiate_proof(self, ptype: LeanType, bindings: dict[str, A.Node], ctx: Ctx) -> LeanType:
        """A proof parameter left for the caller states its proposition about the arguments given
        (``xs.head : xs ≠ [] → α``, Lean's dependent arrow instantiated by ``elabAppArgs``)."""
        z = zonk(ptype)
        if not isinstance(z, ProofType) or not bindings:
            return ptype
        prop = substitute_names(z.prop, {k: A.unparen(v) for k, v in bindings.items()})
        fvars = frozenset(
            a.name for a in map(A.unparen, bindings.values())
            if isinstance(a, A.Ident) and (local := ctx.lookup(a.name)) is not None and local.kind in ("var", "pattern")
        )
        text = z.text
        for name, arg in bindings.items():
            arg = A.unparen(arg)
            shown = arg.name if isinstance(arg, A.Ident) else f"({A.sexpr(arg)})"
            text = re.sub(rf"(?<![\w.]){re.escape(name)}(?![\w.])", shown, text)
        return ProofType(prop, text, fvars)

    def check_arg(self, a: A.Node, ctx: Ctx, ptype: LeanType, bindings: dict[str, A.Node] | None = None) -> None:
        z = zonk(ptype)
        if isinstance(z, ProofType):
            self.check_proof(a, ctx, z, bindings or {})
            return
        if isinstance(z, FunType) and bindings:
            ptype = _instantiate_nested_proofs(z, bindings)
        self.check(a, ctx, ptype)

    def check_proof(self, a: A.Node, ctx: Ctx, want: ProofType, bindings: dict[str, A.Node]) -> None:
        """A proof argument (``h_precond`` of a call): checked against the parameter's statement
        instantiated with the arguments given (:meth:`prove`), never trusted."""
        self.prove(a, substitute_names(want.prop, bindings), ctx)

    def apply_type(self, node: A.Node, ft: LeanType, arg_nodes: list[A.Node], ctx: Ctx,
                   expected: LeanType | None) -> LeanType:
        self._propagate_expected(ft, arg_nodes, expected)
        t = ft
        for a in arg_nodes:
            z = zonk(t)
            if isinstance(a, A.NamedArg):
                self.elab(a.value, ctx, None)
                return self.gap(node, "a named argument to a local function")
            if isinstance(z, FunType):
                self.check_arg(a, ctx, z.domain)
                t = z.codomain
                continue
            if isinstance(z, (Gap, MVar)):
                self.elab(a, ctx, GAP)
                t = GAP if isinstance(z, Gap) else self.gap(node, "applying a term of unknown type", "postponed")
                continue
            self.elab(a, ctx, None)
            self.error(node, f"function expected: `{A.lean_syntax(node)}` applies a term of type {show(z)}",
                       "function-expected")
            return GAP
        self.expect(node, t, expected)
        return t


    def _propagate_expected(self, ft: LeanType, arg_nodes: list[A.Node], expected: LeanType | None) -> None:
        """Lean's ``propagateExpectedType`` (``Lean.Elab.App``): before the first explicit argument
        is elaborated, the function's result type after all the given arguments is unified with
        the expected type -- unless that type is ``Prop``, the result depends on the arguments, or
        there are named arguments -- so ``(fun x => x) (n - 5) : Int`` elaborates ``n - 5`` at
        ``Int`` (``↑n - 5``). A failed unification is not an error: the final check coerces."""
        if not arg_nodes or not _propagates(expected) or any(isinstance(a, A.NamedArg) for a in arg_nodes):
            return
        t = zonk(ft)
        for _ in arg_nodes:
            if not isinstance(t, FunType) or isinstance(zonk(t.domain), ProofType):
                return
            t = zonk(t.codomain)
        if isinstance(t, (Gap, ProofType)) or has_gap(t):
            return
        tied = {id(zonk(m)) for m in self.heterogeneous_until_defaulted}
        if any(id(m) in tied for m in _mvars(t)):
            # a result typed by an arithmetic tree whose leaves were all unknown: Lean's
            # `HSub ?α ?β ?γ` may take the expected type at `?γ` only, which the elaborator's
            # homogeneous reading of the tree cannot say (`let f := fun k => k - 3; f n`)
            return
        unify(t, expected)  # type: ignore[arg-type]


def _instantiate_nested_proofs(ft: FunType, bindings: dict[str, A.Node]) -> LeanType:
    """The proof domains of a function parameter's type (``i < n`` of ``Nat.fold``'s ``f``) with the
    signature's parameters replaced by the arguments given (``n`` by ``a.size``)."""
    mapping = {k: A.unparen(v) for k, v in bindings.items()}
    domains: list[LeanType] = []
    t: LeanType = ft
    while isinstance(t, FunType):
        d = zonk(t.domain)
        if isinstance(d, ProofType):
            prop = substitute_names(d.prop, mapping)
            d = ProofType(prop, A.sexpr(prop), d.fvars)
        domains.append(d)
        t = zonk(t.codomain)
    for d in reversed(domains):
        t = FunType(d, t)
    return t


def dependent_placeholder(position: int) -> str:
    """The name standing in a signature's proof domain for the dependent binder at ``position`` of
    the same arrow chain (``i`` in ``(i : Nat) → i < n → α → α``); :meth:`e_Lambda` replaces it
    by the name the lambda binds there. No Lean identifier can be spelt this way."""
    return f"#dep{position}"


def _nested_param_type(ty: LeanType, bound: frozenset[str]) -> LeanType | None:
    """A function parameter type with proof domains (``(i : Nat) → i < n → α → α``): each proof
    domain as a :class:`ProofType` whose dependent binder is a :func:`dependent_placeholder`.
    The registry's reading drops the binder names of dependent arrows, so the binder is found as
    the one name of the statement that no signature binder binds, and only when the chain has a
    single earlier non-proof domain for it to be; ``None`` otherwise (the evaluator's reading,
    where a proof domain is unknown)."""
    domains: list[LeanType] = []
    t = ty
    while isinstance(t, FunType):
        domains.append(t.domain)
        t = t.codomain
    if not any(isinstance(d, PropType) for d in domains):
        return None
    out: list[LeanType] = []
    for k, d in enumerate(domains):
        if not isinstance(d, PropType):
            out.append(evaluated_type(d, bound))
            continue
        earlier = [j for j in range(k) if not isinstance(domains[j], PropType)]
        prop = _proof_type(d.text)
        assert isinstance(prop, ProofType)
        free = sorted(A.identifier_roots(prop.prop) - bound)
        if len(earlier) != 1 or len(free) != 1:
            return None
        placeholder = A.Ident(0, 0, dependent_placeholder(earlier[0]))
        stated = substitute_names(prop.prop, {free[0]: placeholder})
        out.append(ProofType(stated, A.sexpr(stated)))
    result = evaluated_type(t, bound)
    for d in reversed(out):
        result = FunType(d, result)
    return result


def _mvars(t: LeanType) -> list[MVar]:
    z = zonk(t)
    if isinstance(z, MVar):
        return [z]
    if isinstance(z, FunType):
        return _mvars(z.domain) + _mvars(z.codomain)
    if isinstance(z, ProdType):
        return _mvars(z.fst) + _mvars(z.snd)
    if isinstance(z, NamedType):
        return [m for a in z.args for m in _mvars(a)]
    return []


def _propagates(expected: LeanType | None) -> bool:
    """An expected type ``propagateExpectedType`` uses: known, and not ``Prop`` (Lean does not
    propagate ``Prop``, which it often uses as a more general ``Bool``)."""
    if expected is None:
        return False
    z = zonk(expected)
    return not isinstance(z, (MVar, Gap, ProofType)) and head_name(z) != "Prop"


def substitute_names(node: A.Node, mapping: dict[str, A.Node]) -> A.Node:
    from veriscale.backends.embedded.elab.getelem import _substitute

    return _substitute(node, mapping) if mapping else node


class Receiver(NamedTuple):
    """The receiver of generalized field notation (``xs`` in ``xs.map f``): the parameter it
    fills (``name``, ``param_type``, position ``position`` among the explicit parameters) and the
    term with its elaborated type."""

    name: str
    node: A.Node
    type: LeanType
    param_type: LeanType
    position: int


def _wants_function(expected: LeanType | None) -> bool:
    return expected is not None and isinstance(zonk(expected), FunType)


def _is_bool(t: LeanType) -> bool:
    return head_name(t) == "Bool"


__all__ = ["CallsMixin", "Param", "Sig", "builtin_sig", "dependent_placeholder", "instantiate"]


def _returns_prop_after(t: LeanType, count: int) -> bool:
    """``t`` is a function type of at least ``count`` arguments whose result after them is ``Prop``."""
    z = zonk(t)
    for _ in range(count):
        if not isinstance(z, FunType):
            return False
        z = zonk(z.codomain)
    return head_name(z) == "Prop"
