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
from veriscale.backends.embedded.compiler.support import INSTANCE_SLOT_PREFIX, Closure, Scope, unsupported
from veriscale.backends.embedded.elab.instances import (
    CLASS_METHOD_FUNCTIONS,
    InstanceChoice,
    method_type,
    use_key,
)


class InstancesMixin:
    """Compiling local instances and their uses (part of :class:`~.core.Compiler`)."""

    local_instances: dict[int, tuple[A.LetDecl, str, A.Node]]
    instance_choices: dict[tuple[str, int, int], Any]
    _instance_slots: dict[int, int]

    def compile_local_instance(self, decl: A.LetDecl, sc: Scope) -> tuple[Scope, Any] | None:
        """``have inst : C T := ⟨f⟩`` the elaborator modelled: bind ``f`` (``None`` otherwise)."""
        entry = self.local_instances.get(id(decl))
        if entry is None or entry[0] is not decl:
            return None
        _decl, cls, impl = entry
        fn = self.compile(impl, sc, None)  # type: ignore[attr-defined]
        # bound under a name no term mentions: uses find it by the declaration (a later `inst`
        # may shadow the name, not the instance), and every closure in its scope captures it
        inner, slot = sc.bind(f"{INSTANCE_SLOT_PREFIX}{cls}#{len(self._instance_slots)}", None)
        self._instance_slots[id(decl)] = slot

        def set_instance(fr: list[Any]) -> None:
            fr[slot] = fn(fr)

        return inner, set_instance

    def instance_choice(self, node: A.Node, sc: Scope) -> InstanceChoice | None:
        """The local instance the elaborator chose for ``node``; a use it did not resolve, in the
        scope of a local instance, is refused (the elaborator gave it no answer to follow)."""
        if not isinstance(node, (A.BinOp, A.App, A.Ident)):
            return None
        choice = self.instance_choices.get(use_key(node))
        if choice is not None:
            return choice  # type: ignore[no-any-return]
        cls = _class_used(node)
        if cls is not None and any(n.startswith(f"{INSTANCE_SLOT_PREFIX}{cls}#") for n in sc.vars):
            raise unsupported(node, "a class use in the scope of a local instance",
                              "the elaborator did not resolve it")
        return None

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


def _class_used(node: A.Node) -> str | None:
    """The class of a use whose local instances can be evaluated: ``==``/``!=``, ``max``/``min``."""
    if isinstance(node, A.BinOp):
        return "BEq" if node.op in ("==", "!=") else None
    fn = node.fn if isinstance(node, A.App) else node
    return CLASS_METHOD_FUNCTIONS.get(fn.name) if isinstance(fn, A.Ident) else None


__all__ = ["InstancesMixin", "method_type"]
