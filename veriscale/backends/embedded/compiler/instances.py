"""Local instances in evaluation: the instance the elaborator chose is the one evaluated.

The elaborator (:mod:`..elab.instances`) records each local instance declaration it can evaluate
(``have inst : BEq Int := ⟨f⟩``: the declaration, its class and the method ``f``) and each use
of a class that Lean resolves to such an instance (``a == b``, ``max a b``, ``max`` as a value).
Here the declaration binds its method, a function value, in the frame, and each recorded use
calls that function instead of the global instance. A recorded use whose declaration the compiler
has not bound (a ``let`` form it compiles some other way) is refused, never evaluated with the
global instance.
"""

from __future__ import annotations

from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.compiler.support import Closure, Scope, unsupported
from veriscale.backends.embedded.elab.instances import InstanceChoice, method_type


class InstancesMixin:
    """Compiling local instances and their uses (part of :class:`~.core.Compiler`)."""

    local_instances: dict[int, tuple[A.LetDecl, str, A.Node]]
    instance_choices: dict[int, tuple[A.Node, Any]]
    _instance_slots: dict[int, int]

    def compile_local_instance(self, decl: A.LetDecl, sc: Scope) -> tuple[Scope, Any] | None:
        """``have inst : C T := ⟨f⟩`` the elaborator modelled: bind ``f`` (``None`` otherwise)."""
        entry = self.local_instances.get(id(decl))
        if entry is None or entry[0] is not decl:
            return None
        _decl, _cls, impl = entry
        fn = self.compile(impl, sc, None)  # type: ignore[attr-defined]
        inner, slot = sc.bind(decl.name or "this", None)
        self._instance_slots[id(decl)] = slot

        def set_instance(fr: list[Any]) -> None:
            fr[slot] = fn(fr)

        return inner, set_instance

    def instance_choice(self, node: A.Node) -> InstanceChoice | None:
        entry = self.instance_choices.get(id(node))
        if entry is None or entry[0] is not node:
            return None
        return entry[1]  # type: ignore[no-any-return]

    def compile_instance_use(self, node: A.Node, choice: InstanceChoice, sc: Scope) -> Closure:
        """A use of a class resolved to a local instance: its method applied to the arguments."""
        slot = self._instance_slots.get(id(choice.decl))
        if slot is None:
            raise unsupported(node, f"local instance of {choice.cls}", "its declaration is not evaluated here")
        if isinstance(node, A.BinOp) and node.op in ("==", "!="):
            a = self.compile(node.lhs, sc, None)  # type: ignore[attr-defined]
            b = self.compile(node.rhs, sc, None)  # type: ignore[attr-defined]
            negate = node.op == "!="

            def beq(fr: list[Any]) -> Any:
                result = fr[slot](a(fr), b(fr))
                return (not result) if negate else result

            return beq
        if isinstance(node, A.App):
            args = [self.compile(x, sc, None) for x in node.args]  # type: ignore[attr-defined]

            def apply(fr: list[Any]) -> Any:
                return fr[slot](*[c(fr) for c in args])

            return apply
        if isinstance(node, A.Ident):
            return lambda fr: fr[slot]
        raise unsupported(node, f"local instance of {choice.cls}", f"used by `{type(node).__name__}`")


__all__ = ["InstancesMixin", "method_type"]
