"""Best-effort static types of terms: what Lean's elaborator would know about a term's type,
as far as declared types tell it (``None`` where they do not)."""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import type_of_text
from veriscale.backends.embedded.builtins import BUILTINS, OPTIONAL_ARGS
from veriscale.backends.embedded.compiler.support import (
    _STD_SHORT_NAMES,
    ARITH_OPS,
    REL_OPS,
    Scope,
    _field_builtin,
)
from veriscale.backends.embedded.statics import (
    BOOL,
    CHAR,
    FLOAT,
    PROP,
    STRING,
    TVar,
    elem_type,
    fresh,
    head,
    is_known,
    max_type,
    signature,
    subst,
    unify,
)
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType


def _unified_signature(
    name: str, argtys: list[LeanType | None], expected: LeanType | None
) -> tuple[list[LeanType], LeanType, dict[str, LeanType]] | None:
    """The builtin's parameter and result types (fresh variables) with the substitution that
    unifies them with the known argument types and the expected type; ``None`` for no signature."""
    sig = signature(name, len(argtys))
    if sig is None:
        return None
    full = signature(name, BUILTINS[name].arity) if name in OPTIONAL_ARGS else None
    if full is not None and BUILTINS[name].arity - OPTIONAL_ARGS[name] <= len(argtys) < len(full.params):
        # the explicit parameters left are all optional: Lean's application elaborator fills them
        # with their default values once the arguments run out (`a.foldl f init : β`, not
        # `Nat → Nat → β`)
        sig = type(sig)(sig.params, full.result)
    s: dict[str, LeanType] = {}
    params = [fresh(p, "#") for p in sig.params]
    result = fresh(sig.result, "#")
    for p, a in zip(params, argtys):
        if a is not None:
            unify(p, a, s)
    if expected is not None:
        unify(result, expected, s)
    return params, result, s

class StaticTypesMixin:
    """Static types of terms (part of :class:`~.core.Compiler`)."""

    # -- static types ---------------------------------------------------------------------
    def stype(self, node: A.Node, sc: Scope) -> LeanType | None:
        """Best-effort static type of a term (``None``: unknown)."""
        try:
            t = self._stype(node, sc)
        except RecursionError:
            t = None
        if t is None or not is_known(t):
            # what the declared types do not tell, the elaborator may have inferred
            return self.node_types.of(node) or t  # type: ignore[attr-defined]
        return t

    def declared_stype(self, node: A.Node, sc: Scope) -> LeanType | None:
        """The static type of a term as far as declared types tell, without the elaborator's."""
        try:
            return self._stype(node, sc)
        except RecursionError:
            return None

    def _stype(self, node: A.Node, sc: Scope) -> LeanType | None:
        if isinstance(node, A.Paren):
            return self._stype(node.term, sc)
        if isinstance(node, A.Ident):
            return self._ident_type(node.name, sc, [])
        if isinstance(node, A.StrLit) or isinstance(node, A.Interp):
            return STRING
        if isinstance(node, A.CharLit):
            return CHAR
        if isinstance(node, A.SciLit):
            return FLOAT
        if isinstance(node, A.Ascription):
            return type_of_text(node.type_text)
        if isinstance(node, A.App) and isinstance(node.fn, A.Ident):
            return self._ident_type(node.fn.name, sc, node.args)
        if isinstance(node, A.Proj):
            return self._field_type(self._stype(node.term, sc), node.field, [], sc)
        if isinstance(node, A.App) and isinstance(node.fn, A.Proj):
            return self._field_type(self._stype(node.fn.term, sc), node.fn.field, node.args, sc)
        if isinstance(node, A.Index):
            ct = self._stype(node.coll, sc)
            et = elem_type(ct) if head(ct) in ("List", "Array") else None
            if node.mode == "?":
                return NamedType("Option", (et,)) if et is not None else None
            return et
        if isinstance(node, A.BinOp):
            if node.op in ARITH_OPS:
                lt, rt = self._stype(node.lhs, sc), self._stype(node.rhs, sc)
                if lt is not None and lt == rt:
                    return lt
                if isinstance(node.lhs, A.NumLit):
                    return rt
                if isinstance(node.rhs, A.NumLit):
                    return lt
                if lt is not None and rt is not None:
                    m, bad = max_type([lt, rt])
                    return None if bad else m
                return None
            if node.op in REL_OPS or node.op in ("∧", "∨", "→", "↔", "∈", "∉"):
                return BOOL if node.op in ("==", "!=") else PROP
            if node.op in ("&&", "||"):
                return BOOL
            if node.op == "++":
                return self._stype(node.lhs, sc) or self._stype(node.rhs, sc)
            if node.op == "::":
                t = self._stype(node.rhs, sc)
                return t
            if node.op == "^":
                return self._stype(node.lhs, sc)
            return None
        if isinstance(node, A.UnOp):
            if node.op == "-":
                return self._stype(node.arg, sc)
            if node.op == "!":
                return BOOL
            if node.op == "¬":
                return PROP
            return None
        if isinstance(node, A.If):
            return self._stype(node.then, sc) or self._stype(node.els, sc)
        if isinstance(node, A.Tuple) and len(node.items) >= 2:
            ts = [self._stype(x, sc) for x in node.items]
            if any(t is None for t in ts):
                return None
            t = ts[-1]
            for x in reversed(ts[:-1]):
                t = ProdType(x, t)  # type: ignore[arg-type]
            return t
        return None

    def _ident_type(self, name: str, sc: Scope, args: list[A.Node]) -> LeanType | None:
        v = sc.vars.get(name)
        if v is not None:
            return v[1] if not args else _apply_fun_type(v[1], len(args))
        parts = name.split(".")
        if parts[0] in sc.vars:
            t = sc.vars[parts[0]][1]
            for i, f in enumerate(parts[1:]):
                last = i == len(parts) - 2
                t = self._field_type(t, f, args if last else [], sc)
                if t is None:
                    return None
            return t
        if name in ("true", "false"):
            return BOOL
        if name in ("some", "Option.some") and len(args) == 1:
            inner = self._stype(args[0], sc)
            return NamedType("Option", (inner,)) if inner is not None else None
        d = self.find_def(name, sc)
        if d is not None:
            ptypes, ret = self.def_types(d)
            n, flags = self.def_arity(d)
            if len(args) >= n or n == 0:
                if any(isinstance(t, TVar) or (t is not None and not is_known(t)) for t in [ret]):
                    return None
                return ret
            return None
        b = self.find_builtin(name, sc)
        if b is not None:
            return self._builtin_result_type(b.name, [self._stype(a, sc) for a in args if not isinstance(a, A.NamedArg)], None)
        # Namespace.fn with a local? e.g. `List.length xs` handled above; struct field of global? no
        return None

    def _field_type(self, t: LeanType | None, field: str, args: list[A.Node], sc: Scope) -> LeanType | None:
        if t is None:
            return None
        if field in ("1", "fst") and isinstance(t, ProdType):
            return t.fst
        if field in ("2", "snd") and isinstance(t, ProdType):
            return t.snd
        h = head(t)
        if h is None:
            return None
        si = self.env.structs.get(h)
        if si is not None:
            for fname, fty, _ in si.fields:
                if fname == field:
                    if si.params and isinstance(t, NamedType):
                        from veriscale.lean.types import substitute
                        fty = substitute(fty, dict(zip(si.params, t.args))) if fty is not None else None
                    return fty
        d = self.env.defs.get(f"{h}.{field}")
        if d is not None:
            _, ret = self.def_types(d)
            return ret if ret is not None and is_known(ret) else None
        b = _field_builtin(h, field)
        if b is None and h in _STD_SHORT_NAMES and isinstance(t, NamedType) and not self._declares(h):  # type: ignore[attr-defined]
            # `HashMap Nat Nat` under `open Std` is `Std.HashMap Nat Nat` (as `_method` resolves it)
            t = NamedType(_STD_SHORT_NAMES[h], t.args)
            b = _field_builtin(t.name, field)
        if b is not None:
            argtys: list[LeanType | None] = [self._stype(a, sc) for a in args if not isinstance(a, A.NamedArg)]
            argtys.insert(min(b.self_index, len(argtys)), t)
            return self._builtin_result_type(b.name, argtys, None)
        return None

    def _builtin_result_type(self, name: str, argtys: list[LeanType | None], expected: LeanType | None) -> LeanType | None:
        unified = _unified_signature(name, argtys, expected)
        if unified is None:
            return None
        _, result, s = unified
        r = subst(result, s)
        return r if r is not None and is_known(r) else None

    def _builtin_arg_types(self, name: str, argtys: list[LeanType | None], expected: LeanType | None) -> tuple[list[LeanType | None], LeanType | None]:
        unified = _unified_signature(name, argtys, expected)
        if unified is None:
            return [None] * len(argtys), None
        params, result, s = unified
        out: list[LeanType | None] = []
        for p in params:
            t = subst(p, s)
            out.append(t if t is not None and is_known(t) else None)
        r = subst(result, s)
        return out, (r if r is not None and is_known(r) else None)


def _apply_fun_type(t: LeanType | None, n: int) -> LeanType | None:
    for _ in range(n):
        if isinstance(t, FunType):
            t = t.codomain
        else:
            return None
    return t
