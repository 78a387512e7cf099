"""Elaboration: the embedded engine reads a task file the way Lean does before evaluating it.

:func:`elaborate` type-checks every definition of a parsed program (the task's own and those a
submission put in) and returns a :class:`~.context.Report` of diagnostics: ``error`` where Lean
rejects the command (with line, column and what Lean would say) and ``gap`` where the elaborator
cannot tell. The phases: :mod:`.types` (types, metavariables, unification), :mod:`.core`
(dispatch, expected types, coercions), :mod:`.calls` (names, applications, field notation),
:mod:`.ops` (``binop%``/``binrel%``), :mod:`.binding` (``fun``/``let``/``if``/``match``/binders),
:mod:`.getelem` and :mod:`.arith` (index obligations), :mod:`.dos` (``do``), :mod:`.patterns`
(exhaustiveness) and this driver (declarations, environment lookups).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.binding import BindingMixin
from veriscale.backends.embedded.elab.calls import CallsMixin, Param, Sig, _core_sig, builtin_sig
from veriscale.backends.embedded.elab.context import Ctx, Diagnostic, ProofType, Report
from veriscale.backends.embedded.elab.core import ElabBudgetExceeded
from veriscale.backends.embedded.elab.dos import DoMixin
from veriscale.backends.embedded.elab.getelem import GetElemMixin
from veriscale.backends.embedded.elab.instances import InstancesMixin, class_application
from veriscale.backends.embedded.elab.monadic import MonadicMixin
from veriscale.backends.embedded.elab.node_types import NodeTypes
from veriscale.backends.embedded.elab.ops import OpsMixin
from veriscale.backends.embedded.elab.order_instances import OrderInstancesMixin
from veriscale.backends.embedded.elab.patterns import PatternsMixin
from veriscale.backends.embedded.elab.tactics import TacticsMixin
from veriscale.backends.embedded.elab.termination import TerminationMixin
from veriscale.backends.embedded.elab.types import (
    GAP,
    TParam,
    canonical_name,
    default_numerals,
    has_gap,
    head_name,
    zonk,
)
from veriscale.backends.embedded.elab.typeterms import KNOWN_ARITY, TypeReader
from veriscale.backends.embedded.env import Env, UserDef, find_scoped, resolve_in
from veriscale.backends.embedded.resolve import MATHLIB_TYPE_NOTATIONS, STD_CONTAINERS
from veriscale.backends.embedded.statics import TVar
from veriscale.lean.types import FunType, LeanType, NamedType, substitute

_GREEK = frozenset("αβγδεζηθικλμνξοπρστυφχψω")


class Elaborator(TerminationMixin, TacticsMixin, PatternsMixin, DoMixin, GetElemMixin, InstancesMixin, BindingMixin,
                 OrderInstancesMixin, OpsMixin, MonadicMixin, CallsMixin):
    def __init__(self, env: Env) -> None:
        super().__init__()
        self.init_instances()
        self.env = env
        self.has_mathlib = env.has_mathlib
        self.current: UserDef | None = None
        self.aux_root: str | None = None
        self.open_terms: tuple[str, ...] = ()
        self.parent_of: dict[int, UserDef] = {}
        for d in self.env.defs.values():
            for helper in d.cmd.where:
                self.parent_of[id(helper)] = d
        self.tparams: dict[str, LeanType] = {}
        user_types = {name: len(s.params) for name, s in self.env.structs.items()}
        user_types.update({name: len(i.params) for name, i in self.env.inductives.items()})
        not_imported = STD_CONTAINERS - env.std_containers
        if not env.has_mathlib:
            not_imported |= MATHLIB_TYPE_NOTATIONS
        self.reader = TypeReader(user_types, self._abbrevs(), self._is_prop_def, not_imported)

    # -- the environment ------------------------------------------------------------------------
    def _abbrevs(self) -> dict[str, Callable[[list[LeanType]], LeanType]]:
        out: dict[str, Callable[[list[LeanType]], LeanType]] = {}
        for name, d in self.env.defs.items():
            cmd = d.cmd
            params = _type_params(cmd.binders)
            if params is None or cmd.body is None:
                continue
            if not (isinstance(cmd.type, A.Sort) and cmd.type.name.startswith("Type")) and not (
                    cmd.type is None and self._is_type_alias(cmd)):
                continue
            body = cmd.body

            def unfold(args: list[LeanType], body: A.Node = body, params: tuple[str, ...] = params) -> LeanType:
                # `abbrev Matrix (α : Type) := Array (Array α)`: `Matrix Int` is the body with
                # `α := Int` (a definition applied to all its parameters unfolds by delta/beta)
                if len(args) != len(params):
                    return GAP
                return self.reader.read(body, dict(zip(params, args)))

            out[name] = unfold
        return out

    def _is_type_alias(self, cmd: A.DefCmd) -> bool:
        """``abbrev Row := Array Int`` (no type given): the body is a type -- an application of a
        type Lean's library or the file declares, a product or a function type -- so the
        definition is a type (its type ``Type`` is inferred from the body)."""
        body = A.unparen(cmd.body) if cmd.body is not None else None
        if isinstance(body, A.Arrow) or (isinstance(body, A.BinOp) and body.op == "×"):
            return True
        head = body.fn if isinstance(body, A.App) else body
        if not isinstance(head, A.Ident):
            return False
        name = canonical_name(head.name)
        return name in KNOWN_ARITY or name in self.env.structs or name in self.env.inductives

    def abbreviation_with_field(self, field: str) -> str | None:
        return next((name for name in self.reader.abbrevs if f"{name}.{field}" in self.env.defs), None)

    def _is_prop_def(self, name: str) -> bool:
        d = self._find_def(name)
        return d is not None and d.returns_prop

    def _find_def(self, name: str, qualified: bool = False) -> UserDef | None:
        defs = self.env.defs
        if not qualified and self.aux_root is not None:
            # `where` helpers are auxiliary declarations visible by their short names in the
            # definition and in each other (Lean.Elab.LetRec; their full names are `f.go`)
            d = defs.get(f"{self.aux_root}.{name}")
            if d is not None:
                return d
        if qualified:
            return defs.get(name)
        namespace = self.current.namespace if self.current is not None else ""
        opens = list(self.env.opens) + list(self.current.opens if self.current is not None else ())
        return find_scoped(defs, name, namespace, opens)

    def lookup_global(self, name: str, ctx: Ctx, qualified: bool = False) -> Sig | None:  # type: ignore[override]
        """The signature of the constant ``name`` denotes: resolved by Lean's rules in the current
        definition's scope (the compiler resolves the same way), or taken as a full name for field
        notation (``qualified``: ``List.foldl`` found from a receiver's type)."""
        if not qualified and self.current is not None:
            names = resolve_in(self.env, self.current, name, self.open_terms)
            if names is not None:
                if len(names) > 1:
                    self.gap(None, f"`{name}` is ambiguous: {', '.join(names)}", "ambiguous")
                    return None
                if names:
                    return self._sig_of(names[0])
                return _core_sig(name) if "." not in name else None
        return self._sig_of(name) or (self._legacy_lookup(name) if not qualified else None)

    def denotes_core(self, name: str, ctx: Ctx) -> bool:
        """``name`` (no local has it) resolves to the core declaration ``name`` itself: no user
        declaration in scope (``def pure``, ``namespace N def pure``) shadows it."""
        if self.current is not None:
            names = resolve_in(self.env, self.current, name, self.open_terms)
            if names is not None:
                return names == [name]
        return self._find_def(name) is None

    def _sig_of(self, full: str) -> Sig | None:
        d = self.env.defs.get(full)
        if d is not None:
            return self.def_sig(d)
        return self._type_decl_sig(full) or builtin_sig(full) or _core_sig(full)

    def _legacy_lookup(self, name: str) -> Sig | None:
        """Before scopes: namespace walk and the file's opens (definitions without scope data)."""
        d = self._find_def(name)
        if d is not None:
            return self.def_sig(d)
        opens = list(self.env.opens) + list(self.current.opens if self.current is not None else ())
        for o in opens:
            sig = builtin_sig(f"{o}.{name}")
            if sig is not None:
                return sig
        return None

    def e_OpenTerm(self, node: A.OpenTerm, ctx: Ctx, expected: LeanType | None) -> LeanType:
        saved = self.open_terms
        self.open_terms = saved + tuple(node.names)
        try:
            return self.elab(node.term, ctx, expected)
        finally:
            self.open_terms = saved

    def _type_decl_sig(self, name: str) -> Sig | None:
        """Constructors and field accessors of the task's structures and inductives."""
        owner, _, last = name.rpartition(".")
        si = self.env.structs.get(owner)
        if si is not None:
            tvars = {p: TVar(p) for p in si.params}
            result = NamedType(si.name, tuple(TVar(p) for p in si.params))
            if last == si.ctor:
                params = tuple(Param(f, _tv(t, tvars)) for f, t, _ in si.fields)
                return Sig(params, result, name)
            for f, t, _ in si.fields:
                if f == last:
                    return Sig((Param("self", result),), _tv(t, tvars), name)
        ctor = self.env.ctors.get(name)
        if ctor is not None:
            ind = self.env.inductives.get(ctor.type_name)
            tparams = ind.params if ind is not None else []
            tvars = {p: TVar(p) for p in tparams}
            result = NamedType(ctor.type_name, tuple(TVar(p) for p in tparams))
            params = tuple(Param(n, _tv(t, tvars)) for n, t in zip(ctor.arg_names, ctor.arg_types))
            return Sig(params, result, name)
        return None

    def def_sig(self, d: UserDef) -> Sig:
        cmd = d.cmd
        tvars: dict[str, LeanType] = {}
        for b in cmd.binders:
            if b.kind in ("implicit", "strict") and (b.type is None or isinstance(b.type, A.Sort)):
                for n in b.names:
                    tvars[n] = TVar(n)
        for g in _greek_names(cmd):
            tvars.setdefault(g, TVar(g))
        params: list[Param] = []
        instances: list[LeanType] = []
        for b in cmd.binders:
            found = class_application(b.type) if b.kind == "inst" else None
            if found is not None:
                arg = self.reader.read(found[1], tvars) if found[1] is not None else GAP
                instances.append(NamedType(found[0], (arg,)))
            if b.kind != "explicit":
                continue
            t = self.reader.read(b.type, tvars) if b.type is not None else GAP
            kind = "explicit"
            if b.default is not None:
                kind = "auto" if isinstance(t, ProofType) else "optional"
            for n in b.names or ["_"]:
                params.append(Param(n, t, kind))  # type: ignore[arg-type]
        result = self.reader.read(cmd.type, tvars) if cmd.type is not None else GAP
        # `def f : List Nat → Nat | … `: the arrows of the declared type are explicit parameters
        # too (field notation and applications see the constant's whole type)
        while isinstance(result, FunType):
            params.append(Param(f"_{len(params)}", result.domain))
            result = result.codomain
        return Sig(tuple(params), result, d.name, instances=tuple(instances))

    def structure_field(self, t: LeanType, field: str) -> LeanType | None:  # type: ignore[override]
        h = head_name(t)
        si = self.env.structs.get(h or "")
        if si is None:
            return None
        head_type = zonk(t)
        args = head_type.args if isinstance(head_type, NamedType) else ()
        for f, ft, _ in si.fields:
            if f == field:
                if ft is None:
                    return GAP
                return substitute(ft, dict(zip(si.params, args))) if si.params else ft
        return None

    def structure_fields(self, t: LeanType) -> list[LeanType] | None:  # type: ignore[override]
        h = head_name(t)
        si = self.env.structs.get(h or "")
        if si is None:
            return None
        return [self.structure_field(t, f) or GAP for f, _, _ in si.fields]

    def constructor_pattern(self, pat: A.Node, name: str, arg_pats: list[A.Node], ty: LeanType, ctx: Ctx,
                            dotted: bool = False) -> Ctx | None:  # type: ignore[override]
        """Bind a constructor pattern (``some x``, ``.node l v r``, ``Point.mk a b``, ``none``);
        ``None`` when ``name`` is not a constructor (then a plain name is a pattern variable)."""
        if dotted:
            h = head_name(ty)
            if h is None:
                self.gap(pat, f"`.{name}` pattern at an unknown type", "postponed")
                return ctx
            name = f"{h}.{name}"
        if not dotted and "." not in name and self.current is not None:
            # a bare name is a constructor when it resolves to one (`lt` under `open Ordering`)
            resolved = resolve_in(self.env, self.current, name, self.open_terms)
            if resolved is not None and len(resolved) == 1 and resolved[0] in _CORE_PATTERN_CTORS.values():
                name = resolved[0]
        full = _CORE_PATTERN_CTORS.get(name, name)
        sig = self._type_decl_sig(full) if full not in _CORE_PATTERN_CTORS.values() else _core_sig(full)
        if sig is None and "." not in name:
            h = head_name(ty)
            if h is not None and f"{h}.{name}" in self.env.ctors:
                sig = self._type_decl_sig(f"{h}.{name}")
            else:
                short = [c for c in self.env.ctors if c.rpartition(".")[2] == name]
                if len(short) == 1 and any(o == short[0].rpartition(".")[0] for o in self.env.opens):
                    sig = self._type_decl_sig(short[0])
        if sig is None:
            if "." in name or not arg_pats and name[:1].isupper() and name not in ("_",):
                if "." in name:
                    self.gap(pat, f"the constructor pattern `{name}` is not modelled")
                    for a in arg_pats:
                        ctx = self._bind_all_gap(a, ctx)
                    return ctx
            return None if not arg_pats else self._unknown_ctor(pat, name, arg_pats, ctx)
        sig = self.instantiate_sig(sig)
        if len(arg_pats) != len(sig.params):
            self.error(pat, f"the constructor `{name}` takes {len(sig.params)} arguments, the pattern gives "
                            f"{len(arg_pats)}", "pattern-arity")
            for a in arg_pats:
                ctx = self._bind_all_gap(a, ctx)
            return ctx
        self.expect(pat, sig.result, ty)
        for a, p in zip(arg_pats, sig.params):
            ctx = self.bind_pattern(a, p.type, ctx)
        return ctx

    def _unknown_ctor(self, pat: A.Node, name: str, arg_pats: list[A.Node], ctx: Ctx) -> Ctx:
        self.gap(pat, f"the constructor pattern `{name}` is not modelled")
        for a in arg_pats:
            ctx = self._bind_all_gap(a, ctx)
        return ctx

    def prop_definition(self, name: str, nargs: int) -> tuple[list[str], A.Node] | None:  # type: ignore[override]
        d = self._find_def(name)
        if d is None or not d.returns_prop or d.cmd.body is None:
            return None
        if "reducible" not in d.cmd.modifiers.attributes and d.cmd.kind != "abbrev":
            return None
        params = [n for b in d.cmd.binders if b.kind == "explicit" for n in (b.names or ["_"])]
        if len(params) != nargs:
            return None
        return params, d.cmd.body

    def classical_open(self) -> bool:  # type: ignore[override]
        opens = tuple(self.env.opens) + (tuple(self.current.opens) if self.current is not None else ())
        return "Classical" in opens

    def opaque_prop_def(self, full_name: str) -> bool:  # type: ignore[override]
        """``full_name`` is a ``def`` of the file returning ``Prop`` that instance synthesis does
        not unfold: neither ``abbrev`` nor ``@[reducible]`` (nor ``@[instance_reducible]``)."""
        d = self.env.defs.get(full_name)
        if d is None or not d.returns_prop:
            return False
        return not (d.reducible or d.cmd.kind == "abbrev")

    def unimported_type_name(self, node: A.Node | None) -> str | None:
        """A name in the type term ``node`` the file cannot use for lack of an import (``ℕ``
        without Mathlib), unless the file declares it itself."""
        if node is None:
            return None
        if isinstance(node, A.Ident):
            name = node.name
            if (name in self.reader.not_imported and name in MATHLIB_TYPE_NOTATIONS
                    and name not in self.reader.abbrevs and name not in self.reader.user_types):
                return name
            return None
        for child in A.children(node):
            found = self.unimported_type_name(child)
            if found is not None:
                return found
        return None

    def read_type(self, node: A.Node | None, ctx: Ctx) -> LeanType:  # type: ignore[override]
        return self.reader.read(node, self.tparams)

    def bind_binders(self, cmd: A.DefCmd, ctx: Ctx) -> Ctx:
        for b in cmd.binders:
            if b.kind == "inst" or (b.kind in ("implicit", "strict") and (b.type is None or isinstance(b.type, A.Sort))):
                continue
            t = self.read_type(b.type, ctx) if b.type is not None else self.fresh()
            for n in b.names or ["_"]:
                ctx = ctx.bind(n, t)
                if isinstance(t, ProofType):
                    ctx = ctx.assume(t.prop, "binder")
        return ctx

    # -- declarations ---------------------------------------------------------------------------
    def elaborate_def(self, d: UserDef) -> None:
        self.current = d
        self.decl_name = d.name
        self.postponed = []
        self.resumes = []
        self.heterogeneous_until_defaulted = []
        cmd = d.cmd
        self.tparams = {}
        for b in cmd.binders:
            if b.kind in ("implicit", "strict") and (b.type is None or isinstance(b.type, A.Sort)):
                for n in b.names:
                    self.tparams[n] = TParam(n)
        for g in _greek_names(cmd):
            self.tparams.setdefault(g, TParam(g))
        ctx = Ctx()
        parent = self.parent_of.get(id(cmd))
        root = d
        while parent is not None:
            # a `where` helper sees the parameters of the definition it belongs to
            ctx = self.binder_instances(parent.cmd, self.bind_binders(parent.cmd, ctx))
            root = parent
            parent = self.parent_of.get(id(parent.cmd))
        self.aux_root = root.name
        for b in cmd.binders:
            if b.kind == "inst":
                continue
            if b.kind in ("implicit", "strict") and (b.type is None or isinstance(b.type, A.Sort)):
                continue
            self.class_typed_binder(b, b.type)
            t = self.read_type(b.type, ctx) if b.type is not None else self.fresh()
            if b.type is not None and has_gap(t):
                # a type the reader does not know, at the top or inside (`Array Integer`): with
                # Lean's default `autoImplicit` an unknown name in a signature may be an auto-bound
                # implicit type (Lean.Elab.Term `withAutoBoundImplicit`) or a declaration the engine
                # does not know -- either way the engine cannot tell what Lean makes of it
                self.gap(b, f"the binder type `{b.type_text}` is not modelled")
            for n in b.names or ["_"]:
                ctx = ctx.bind(n, t)
                if isinstance(t, ProofType):
                    ctx = ctx.assume(t.prop, "binder")
        ctx = self.binder_instances(cmd, ctx)
        ret = self.read_type(cmd.type, ctx) if cmd.type is not None else self.fresh()
        if cmd.type is not None and has_gap(ret):
            self.gap(cmd, f"the type `{cmd.type_text}` is not modelled")
        if cmd.body is not None and cmd.type is None and _type_params(cmd.binders) is not None and self._is_type_alias(cmd):
            pass  # a type abbreviation: read as a type where it is used (`_abbrevs`)
        elif cmd.body is not None:
            t = self.elab(cmd.body, ctx, ret)
            self.expect(cmd.body, t, ret)
        elif cmd.alts is not None:
            self.elab_equations(cmd, cmd.alts, ret, ctx)
        self.check_termination(d, ctx)
        self.run_resumes()
        default_numerals(self.store)
        for check in self.postponed:
            check()
        self.postponed = []


def _type_params(binders: list[A.Binder]) -> tuple[str, ...] | None:
    """The names of a type definition's parameters when each is an explicit ``(α : Type)``
    (``Type u`` too); ``None`` for any other binder, which the engine does not unfold."""
    names: list[str] = []
    for b in binders:
        if b.kind != "explicit" or not b.names or not (isinstance(b.type, A.Sort) and b.type.name.startswith("Type")):
            return None
        names.extend(b.names)
    return tuple(names)


_CORE_PATTERN_CTORS = {
    "some": "Option.some", "none": "Option.none", "Option.some": "Option.some", "Option.none": "Option.none",
    "true": "Bool.true", "false": "Bool.false", "Bool.true": "Bool.true", "Bool.false": "Bool.false",
    "List.nil": "List.nil", "List.cons": "List.cons", "Nat.succ": "Nat.succ", "Prod.mk": "Prod.mk",
    "Nat.zero": "Nat.zero", "Ordering.lt": "Ordering.lt", "Ordering.eq": "Ordering.eq", "Ordering.gt": "Ordering.gt",
    # `inductive Int | ofNat : Nat → Int | negSucc : Nat → Int` (Init/Prelude.lean) and
    # `inductive Except | error : ε → Except ε α | ok : α → Except ε α` (Init/Prelude.lean)
    "Int.ofNat": "Int.ofNat", "Int.negSucc": "Int.negSucc", "Except.ok": "Except.ok", "Except.error": "Except.error",
}


def _tv(t: LeanType | None, tvars: Mapping[str, LeanType]) -> LeanType:
    if t is None:
        return GAP
    return substitute(t, tvars) if tvars else t


def _greek_names(cmd: A.DefCmd) -> set[str]:
    text = " ".join([cmd.type_text] + [b.type_text for b in cmd.binders])
    return {c for c in text if c in _GREEK}


def elaborate(env: Env) -> Report:
    """Elaborate every definition of a program's environment (theorems and instances excepted)."""
    elab = Elaborator(env)
    report = Report()
    for d in env.defs.values():
        report.declarations += 1
        elab.node_types = NodeTypes()
        errors_before = sum(1 for x in elab.diagnostics if x.kind == "error")
        try:
            elab.elaborate_def(d)
            if sum(1 for x in elab.diagnostics if x.kind == "error") == errors_before:
                # a declaration Lean rejects keeps no types: what was inferred may not be Lean's
                report.node_types.merge(elab.node_types)
        except RecursionError:
            elab.gap(d.cmd, "the definition is nested too deeply for the elaborator")
        except ElabBudgetExceeded as exc:
            elab.gap(d.cmd, f"the elaborator's budget ran out: {exc}", "elaborator-budget")
            break
        except Exception as exc:  # noqa: BLE001 - an elaborator defect is a gap, never a pass or a crash
            elab.gap(d.cmd, f"the elaborator failed on this definition: {type(exc).__name__}: {exc}",
                     "elaborator-failure")
    scopes = env.scopes
    for sd in scopes.diagnostics if scopes is not None else []:
        # Lean's scope and declaration errors (`end` mismatch, a name declared twice or already in
        # Lean): certain ones are errors, the others mean the engine cannot tell
        elab.diagnostics.append(Diagnostic("error" if sd.certain else "gap", sd.line, sd.col, sd.message,
                                           "declaration", ""))
    report.diagnostics = _dedupe(elab.diagnostics)
    report.local_instances = elab.local_instances
    report.instance_choices = elab.instance_choices
    return report


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[str, int, int, str]] = set()
    out: list[Diagnostic] = []
    for d in diags:
        key = (d.kind, d.line, d.col, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


__all__ = ["Diagnostic", "Elaborator", "Report", "elaborate"]
