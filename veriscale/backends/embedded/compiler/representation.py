"""Which definitions provably return their result in ``Int``'s run-time representation.

An ``Int`` is a plain Python ``int`` at run time, a ``Nat`` an instance of the ``Nat`` subclass:
the two compare and hash alike, but they print differently and the builtins that dispatch on
run-time types (the dynamic arithmetic path, ``Nat`` subtraction) treat them differently. A
definition whose result type holds ``Int`` may compute a ``Nat`` where Lean inserted ``↑``
(``if x < 0 then 0 else x.toNat``, a local function returning its ``Nat`` argument at ``Int``),
so its caller converts the result deeply (:func:`..statics.coerce_value`): a scan of every
element on every check.

:func:`result_in_int_repr` proves that scan useless for one definition, by construction: every
term a result can come from is one whose compiled value is in the representation of the type the
elaborator gave it, checked construct by construct below, and anything else (an unknown construct,
a term the elaborator typed otherwise than its context, a function value, a user instance) makes
the proof fail, so the scan stays. The producers it accepts:

- an entry point's parameters: a check's inputs are read at their declared types (``Int`` a plain
  ``int`` everywhere: :func:`veriscale.lean.codec.parse_value`, the input generators);
- a numeral the elaborator typed ``Int`` (compiled by ``check_numeral_type`` to an ``int``);
- arithmetic the elaborator typed ``Int`` whose leaves are all numerals or sure ``Int`` terms
  (Python's operators on ``int`` values, ``Nat`` ones included, give plain ``int``);
- ``Int.ofNat`` (``int(n)``), ``-`` at ``Int``;
- locals bound to sure values, pattern variables of a match on sure values;
- polymorphic builtins that only move values of the element type (``Array.set!``, ``push``,
  ``toArray``, ``[i]!``, ``[i]?`` …) applied to sure arguments; ``a[i]!`` out of range returns
  ``Inhabited Int``'s default, the plain ``0``;
- calls of user functions (top-level or ``let rec``) with sure arguments at their declared
  parameter types, when the callee's own results are sure given sure parameters (recursion is
  assumed sure while it is analysed: every value such a function returns comes from one of its
  non-recursive result terms, which are all checked), or when the callee coerces its own result
  (``Compiler.results_in_repr``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import _binder_names, type_of_text
from veriscale.backends.embedded.statics import INT, NAT, needs_int
from veriscale.lean.types import LeanType, NamedType, ProdType

if TYPE_CHECKING:
    from veriscale.backends.embedded.compiler.core import Compiler
    from veriscale.backends.embedded.env import UserDef

# Builtins polymorphic in the element type `α` that never make a value of it: their results'
# elements are their arguments' elements (checked against each implementation in ..builtins).
# Each: the shape of its result (`Array α`, `List α`, `Option α`, `α` itself) and, per argument,
# what it must be: `c` a list or array of `α`, `e` an `α`, `n` a `Nat` (an index or a size).
_MOVING_FUNCTIONS: dict[str, tuple[str, str]] = {
    "Array.mkArray": ("Array", "ne"), "Array.replicate": ("Array", "ne"), "Array.mkEmpty": ("Array", "n"),
    "Array.emptyWithCapacity": ("Array", "n"), "Array.mk": ("Array", "c"), "Array.singleton": ("Array", "e"),
    "Array.toList": ("List", "c"), "Array.push": ("Array", "ce"), "Array.set!": ("Array", "cne"),
    "Array.setIfInBounds": ("Array", "cne"), "Array.reverse": ("Array", "c"),
    "Array.getElem?": ("Option", "cn"), "Array.get?": ("Option", "cn"),
    "Array.getElem!": ("α", "cn"), "Array.get!": ("α", "cn"),
    "List.toArray": ("Array", "c"), "List.cons": ("List", "ec"), "List.concat": ("List", "ce"),
    "List.append": ("List", "cc"), "List.reverse": ("List", "c"),
}
_ARITH = frozenset({"+", "-", "*", "/", "%"})
_SURE_CONSTANTS = frozenset({"Array.empty", "#[]", "[]", "List.nil", "none", "Option.none"})


class _Local:
    """A local name: a value (``sure``: in its type's representation) or a local function."""

    __slots__ = ("type", "sure", "function")

    def __init__(self, type_: LeanType | None, sure: bool, function: _Function | None = None) -> None:
        self.type = type_
        self.sure = sure
        self.function = function


class _Function:
    """A user function (top-level or ``let rec``): its parameters, result type and result terms,
    and the scope its body sees."""

    __slots__ = ("key", "params", "ret", "results", "scope", "coerces")

    def __init__(self, key: object, params: list[tuple[str, LeanType | None]], ret: LeanType | None,
                 results: list[A.Node], scope: dict[str, _Local], coerces: bool = False) -> None:
        self.key = key
        self.params = params
        self.ret = ret
        self.results = results
        self.scope = scope
        self.coerces = coerces


Scope = dict[str, _Local]


class _Prover:
    def __init__(self, comp: Compiler) -> None:
        self.comp = comp
        self.types = comp.node_types
        self.proven: dict[object, bool] = {}
        self.assumed: list[object] = []  # functions under analysis, assumed sure

    # -- functions ------------------------------------------------------------------------------
    def function_sure(self, fn: _Function) -> bool:
        """Given sure arguments, are the function's results sure?"""
        if fn.coerces:
            return True
        known = self.proven.get(fn.key)
        if known is not None:
            return known
        if fn.key in self.assumed:
            return True  # a recursive call: its values come from the other result terms
        if fn.ret is None or not fn.results:
            return False
        self.assumed.append(fn.key)
        try:
            scope = dict(fn.scope)
            for name, ty in fn.params:
                # (a parameter of unknown type is not read at any declared type: unsure)
                scope[name] = _Local(ty, ty is not None)
            sure = all(self.types.of(t) == fn.ret and self.sure(t, scope) for t in fn.results)
        finally:
            self.assumed.pop()
        if not sure or not self.assumed:
            # (a failure holds whatever was assumed; a success only once nothing is assumed)
            self.proven[fn.key] = sure
        return sure

    def top_level(self, d: UserDef) -> _Function | None:
        cmd = d.cmd
        if cmd.alts is not None or cmd.body is None or cmd.where:
            return None
        binders = _binder_names(cmd.binders)
        if any(b.kind != "explicit" for _, b in binders):
            return None
        ptypes, ret = self.comp.def_types(d)
        names = [n for n, _ in binders]
        if len(names) != len(ptypes):
            return None
        return _Function(d.name, list(zip(names, ptypes)), ret, [cmd.body], {},
                         coerces=d.name in self.comp.results_in_repr)

    def _global_function(self, name: str) -> _Function | None:
        from veriscale.backends.embedded.builtins import BUILTINS

        d = self.comp.env.defs.get(name)
        if d is None or name in BUILTINS or "." in name or self._user_suffix_count(name) != 1:
            return None  # (a dotted or namespaced name, or several: resolution left to the compiler)
        return self.top_level(d)

    def _user_suffix_count(self, name: str) -> int:
        """How many user definitions ``name`` may denote (itself, or in some namespace)."""
        tail = "." + name
        return sum(1 for full in self.comp.env.defs if full == name or full.endswith(tail))

    def _core(self, name: str) -> bool:
        """``name`` denotes the core builtin of that name: no user definition could be meant."""
        return self._user_suffix_count(name) == 0

    def call_sure(self, fn: _Function, args: list[A.Node], scope: Scope) -> bool:
        if len(args) != len(fn.params):
            return False
        for arg, (_, ty) in zip(args, fn.params):
            if ty is not None and needs_int(ty) and not (self.types.of(arg) == ty and self.sure(arg, scope)):
                return False
        return self.function_sure(fn)

    # -- terms ----------------------------------------------------------------------------------
    def sure(self, node: A.Node, scope: Scope) -> bool:
        """Is the compiled value of ``node`` in the representation of the type the elaborator gave it?"""
        ty = self.types.of(node)
        if ty is None:
            return False
        if not needs_int(ty):
            return True
        method = getattr(self, "s_" + type(node).__name__, None)
        return bool(method is not None and method(node, ty, scope))

    def s_Paren(self, node: A.Paren, ty: LeanType, scope: Scope) -> bool:
        return self.types.of(node.term) == ty and self.sure(node.term, scope)

    def s_NumLit(self, node: A.NumLit, ty: LeanType, scope: Scope) -> bool:
        return ty == INT

    def s_UnOp(self, node: A.UnOp, ty: LeanType, scope: Scope) -> bool:
        return node.op == "-" and ty == INT and self._arith_leaves_sure(node.arg, scope)

    def s_BinOp(self, node: A.BinOp, ty: LeanType, scope: Scope) -> bool:
        if node.op in _ARITH:
            return ty == INT and self._arith_leaves_sure(node, scope)
        if node.op == "::":
            return self._same_and_sure(node.rhs, ty, scope) and self._element_sure(node.lhs, ty, scope)
        if node.op == "++":
            return self._same_and_sure(node.lhs, ty, scope) and self._same_and_sure(node.rhs, ty, scope)
        return False

    def _arith_leaves_sure(self, node: A.Node, scope: Scope) -> bool:
        """Every leaf of an arithmetic tree at ``Int`` is a numeral or a sure ``Int`` term."""
        if isinstance(node, A.Paren):
            return self._arith_leaves_sure(node.term, scope)
        if isinstance(node, A.NumLit):
            return True
        if self.types.of(node) != INT:
            return False
        if isinstance(node, A.BinOp) and node.op in _ARITH:
            return self._arith_leaves_sure(node.lhs, scope) and self._arith_leaves_sure(node.rhs, scope)
        if isinstance(node, A.UnOp) and node.op == "-":
            return self._arith_leaves_sure(node.arg, scope)
        return self.sure(node, scope)

    def s_Tuple(self, node: A.Tuple, ty: LeanType, scope: Scope) -> bool:
        for item in node.items[:-1]:
            if not isinstance(ty, ProdType) or not self._same_and_sure(item, ty.fst, scope):
                return False
            ty = ty.snd
        return self._same_and_sure(node.items[-1], ty, scope)

    def s_ListLit(self, node: A.ListLit, ty: LeanType, scope: Scope) -> bool:
        return all(self._element_sure(item, ty, scope) for item in node.items)

    s_ArrayLit = s_ListLit

    def s_If(self, node: A.If, ty: LeanType, scope: Scope) -> bool:
        return self._same_and_sure(node.then, ty, scope) and self._same_and_sure(node.els, ty, scope)

    def s_Let(self, node: A.Let, ty: LeanType, scope: Scope) -> bool:
        decl = node.decl
        if decl.name is None or decl.pattern is not None or decl.alts is not None or decl.value is None:
            return False
        inner = dict(scope)
        if decl.binders:
            inner[decl.name] = _Local(None, False, self._local_function(decl, scope, recursive=False))
        else:
            vty = self.types.of(decl.value)
            inner[decl.name] = _Local(vty, vty is not None and self.sure(decl.value, scope))
        return self._same_and_sure(node.body, ty, inner)

    def s_LetRec(self, node: A.LetRec, ty: LeanType, scope: Scope) -> bool:
        inner = dict(scope)
        for decl in node.decls:
            if decl.name is None:
                return False
            # each function sees the others and itself (the dict is filled before any is analysed)
            inner[decl.name] = _Local(None, False, self._local_function(decl, inner, recursive=True))
        return self._same_and_sure(node.body, ty, inner)

    def _local_function(self, decl: A.LetDecl, scope: Scope, recursive: bool) -> _Function | None:
        if decl.value is None or decl.alts is not None or decl.pattern is not None:
            return None
        params = [(n, type_of_text(b.type_text)) for n, b in _binder_names(decl.binders)]
        if any(b.kind != "explicit" for _, b in _binder_names(decl.binders)):
            return None
        return _Function(id(decl), params, type_of_text(decl.type_text), [decl.value],
                         scope if recursive else dict(scope))

    def s_Match(self, node: A.Match, ty: LeanType, scope: Scope) -> bool:
        discrs_sure = all(self.sure(d, scope) for d in node.discrs)
        for alt in node.alts:
            inner = dict(scope)
            for pattern in alt.patterns:
                for name in A.identifier_roots(pattern):
                    inner[name] = _Local(None, discrs_sure)
            if not isinstance(alt.rhs, A.Node) or not self._same_and_sure(alt.rhs, ty, inner):
                return False
        return True

    def s_Index(self, node: A.Index, ty: LeanType, scope: Scope) -> bool:
        if node.mode not in ("!", "?", ""):
            return False
        coll = self.types.of(node.coll)
        if not (isinstance(coll, NamedType) and coll.name == "Array" and len(coll.args) == 1):
            return False
        element = _element_of("Option", ty) if node.mode == "?" else ty
        return element == coll.args[0] and self.sure(node.coll, scope)

    def s_Ident(self, node: A.Ident, ty: LeanType, scope: Scope) -> bool:
        return self._applied(node.name, [], ty, scope)

    def s_App(self, node: A.App, ty: LeanType, scope: Scope) -> bool:
        if not isinstance(node.fn, A.Ident) or any(isinstance(a, A.NamedArg) for a in node.args):
            return False
        return self._applied(node.fn.name, node.args, ty, scope)

    def _applied(self, name: str, args: list[A.Node], ty: LeanType, scope: Scope) -> bool:
        """``name args`` (no arguments: the name alone) at type ``ty``."""
        local = scope.get(name)
        if local is not None:
            if local.function is not None:
                return local.function.ret == ty and self.call_sure(local.function, args, scope)
            return not args and local.sure
        root, dot, method = name.partition(".")
        receiver = scope.get(root) if dot else None
        if receiver is not None:
            # `a.set! i v`: a method of the receiver's type (one level only)
            rty = receiver.type
            if receiver.function is not None or "." in method or not isinstance(rty, NamedType):
                return False
            full = f"{rty.name}.{method}"
            shape = _MOVING_FUNCTIONS.get(full)
            if shape is None or not self._core(full) or not receiver.sure:
                return False
            element = _element_of(shape[0], ty)
            return (element is not None and _collection_of(rty, element)
                    and self._moved(shape[1][1:], args, element, scope))
        if name == "Int.ofNat" and self._core(name):
            return ty == INT and len(args) == 1
        if name in _SURE_CONSTANTS and self._core(name):
            return not args
        shape = _MOVING_FUNCTIONS.get(name)
        if shape is not None and self._core(name):
            element = _element_of(shape[0], ty)
            return element is not None and self._moved(shape[1], args, element, scope)
        fn = self._global_function(name)
        return fn is not None and fn.ret == ty and self.call_sure(fn, args, scope)

    def _moved(self, kinds: str, args: list[A.Node], element: LeanType, scope: Scope) -> bool:
        """The arguments of a builtin that moves values of type ``element`` (see _MOVING_FUNCTIONS)."""
        if len(args) != len(kinds):
            return False
        for kind, arg in zip(kinds, args):
            aty = self.types.of(arg)
            if kind == "n":
                if aty != NAT:
                    return False
            elif not (aty == element if kind == "e" else _collection_of(aty, element)) or not self.sure(arg, scope):
                return False
        return True

    # -- helpers --------------------------------------------------------------------------------
    def _same_and_sure(self, node: A.Node, ty: LeanType | None, scope: Scope) -> bool:
        """``node`` typed exactly ``ty`` (no coercion inserted there) and sure."""
        return ty is not None and self.types.of(node) == ty and self.sure(node, scope)

    def _element_sure(self, node: A.Node, coll: LeanType, scope: Scope) -> bool:
        return (isinstance(coll, NamedType) and len(coll.args) == 1
                and self._same_and_sure(node, coll.args[0], scope))


def _element_of(shape: str, ty: LeanType) -> LeanType | None:
    """The element type ``α`` of a result ``ty`` of the shape ``shape``."""
    if shape == "α":
        return ty
    if isinstance(ty, NamedType) and ty.name == shape and len(ty.args) == 1:
        return ty.args[0]
    return None


def _collection_of(ty: LeanType | None, element: LeanType) -> bool:
    """``ty`` is ``List element`` or ``Array element``."""
    return isinstance(ty, NamedType) and ty.name in ("List", "Array") and ty.args == (element,)


def result_in_int_repr(comp: Compiler, d: UserDef) -> bool:
    """Whether every value the entry point ``d`` returns, called with a check's inputs, is already
    in the run-time representation of its declared result type (see the module docstring)."""
    if comp.instance_choices or comp.env.instances:
        return False  # a user instance could compute anything at `Int`
    prover = _Prover(comp)
    fn = prover.top_level(d)
    return fn is not None and fn.ret is not None and prover.function_sure(fn)
