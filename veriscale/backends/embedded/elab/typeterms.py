"""Reading type expressions (binder types, return types, ascriptions) from the parsed tree.

A type is written as a term (``List (Int × Nat)``, ``Array α → Nat``, ``i < xs.size``); this turns
such a term into an elaborator type. Propositions become :class:`~.context.ProofType` (the binder
holds a proof); names the elaborator does not know become a :data:`~.types.GAP`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import ProofType
from veriscale.backends.embedded.elab.types import GAP, PROP, TYPE, canonical_name, term_arg
from veriscale.lean.types import FunType, LeanType, NamedType, NatLitType, ProdType

_PROP_OPS = frozenset({"<", "≤", ">", "≥", "=", "≠", "∧", "∨", "↔", "∈", "∉", "→", "∣", "⊆"})

KNOWN_ARITY: dict[str, int] = {
    "Nat": 0, "Int": 0, "Bool": 0, "String": 0, "Char": 0, "Float": 0, "Unit": 0, "Prop": 0, "Type": 0,
    "UInt8": 0, "UInt16": 0, "UInt32": 0, "UInt64": 0, "USize": 0, "Ordering": 0, "Substring": 0,
    "List": 1, "Array": 1, "Option": 1, "Fin": 1, "Std.HashSet": 1, "Subarray": 1, "Id": 1,
    "Prod": 2, "Std.HashMap": 2, "Sum": 2, "Except": 2,
}


def source_text(node: A.Node) -> str:
    return A.sexpr(node)


class TypeReader:
    """Turns type terms into types. ``user_types`` maps a user type name to its parameter count;
    ``abbrevs`` unfolds ``abbrev T := ...`` (by name, to a function of the arguments); ``is_prop_def``
    tells whether a name is a definition returning ``Prop`` (so ``foo_precond xs`` is a proof type)."""

    def __init__(self, user_types: Mapping[str, int], abbrevs: Mapping[str, Callable[[list[LeanType]], LeanType]],
                 is_prop_def: Callable[[str], bool], not_imported: frozenset[str] = frozenset()) -> None:
        self.user_types = user_types
        self.abbrevs = abbrevs
        self.is_prop_def = is_prop_def
        self.not_imported = not_imported
        """Library types (and notations for them) the file cannot name because it does not import
        their module."""

    def read(self, node: A.Node | None, tparams: Mapping[str, LeanType]) -> LeanType:
        if node is None:
            return GAP
        if isinstance(node, A.Paren):
            return self.read(node.term, tparams)
        if isinstance(node, A.Sort):
            return PROP if node.name == "Prop" else TYPE
        if isinstance(node, A.Arrow):
            dom = self.read(node.dom, tparams)
            return FunType(dom, self.read(node.cod, tparams))
        if isinstance(node, A.BinOp):
            if node.op == "×":
                return ProdType(self.read(node.lhs, tparams), self.read(node.rhs, tparams))
            if node.op == "→":
                dom, cod = self.read(node.lhs, tparams), self.read(node.rhs, tparams)
                if isinstance(dom, ProofType) or isinstance(cod, ProofType):
                    return ProofType(node, source_text(node))
                return FunType(dom, cod)
            if node.op in _PROP_OPS:
                return ProofType(node, source_text(node))
            return GAP
        if isinstance(node, A.UnOp) and node.op == "¬":
            return ProofType(node, source_text(node))
        if isinstance(node, A.Quant):
            return ProofType(node, source_text(node))
        if isinstance(node, A.NumLit):
            return NatLitType(node.value)
        if isinstance(node, A.Ident):
            return self._applied(node, node.name, [], tparams)
        if isinstance(node, A.App) and isinstance(node.fn, A.Ident):
            return self._applied(node, node.fn.name, node.args, tparams)
        return GAP

    def _applied(self, node: A.Node, name: str, arg_nodes: list[A.Node], tparams: Mapping[str, LeanType]) -> LeanType:
        if name in tparams and not arg_nodes:
            return tparams[name]
        if self.is_prop_def(name):
            return ProofType(node, source_text(node))
        if name in ("True", "False"):
            return ProofType(node, name)
        if name in self.not_imported and name not in self.abbrevs and name not in self.user_types:
            # `ℕ`/`ℤ` are Mathlib's notations (Mathlib/Data/Nat/Notation.lean, Data/Int/Notation.lean):
            # without that import the name is unknown (a body's ascription) or, in a signature,
            # an auto-bound implicit type variable -- not `Nat`
            return GAP
        cname = canonical_name(name)
        if cname == "Fin" and len(arg_nodes) == 1 and not isinstance(A.unparen(arg_nodes[0]), A.NumLit):
            # `Fin a.size`: the bound is a term (a value argument of the type)
            return NamedType("Fin", (term_arg(arg_nodes[0]),))
        args = [self.read(a, tparams) for a in arg_nodes]
        if name in self.abbrevs:
            return self.abbrevs[name](args)
        arity = KNOWN_ARITY.get(cname) if cname not in self.not_imported else None
        if arity is None:
            arity = self.user_types.get(name)
        if arity is None:
            return GAP
        if arity != len(args):
            return GAP
        if cname == "Prod":
            return ProdType(args[0], args[1])
        return NamedType(cname, tuple(args))
