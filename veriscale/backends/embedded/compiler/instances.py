"""Local instances in evaluation: the instance the elaborator chose is the one evaluated.

The elaborator (:mod:`..elab.instances`) records each local instance declaration it can evaluate
(``have inst : BEq Int := ⟨f⟩``: the declaration, its class and the method ``f``) and, while a
local instance is in scope, each use of a class with the plan of its instance (a local instance,
``BEq (List Int)`` built from a local ``BEq Int``, or the global instance). Here the declaration
binds its method, a function value, in the frame; a use builds its plan's function
(:mod:`.builtins.with_beq` and :mod:`.builtins.with_to_string` for the core instances of
containers) and calls it -- the method itself (``a == b``, ``max a b``, ``toString x``, each
operator of an arithmetic tree, each chunk and ``++`` of ``s!"…"``), or the library function
whose ``[BEq α]`` argument it is (``xs.contains x``), with that function's
:data:`~.builtins.with_beq.BEQ_FUNCTIONS` version. A recorded use whose declaration the compiler
has not bound (a ``let`` form it compiles some other way), a partial application of such a
function, or a use of a class in the scope of a local instance of it that the elaborator gave
no answer for, is refused, never evaluated with the global instance.
"""

from __future__ import annotations

from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins.order import lean_beq
from veriscale.backends.embedded.builtins.ordering import (
    ORD_FUNCTIONS,
    lean_compare,
    option_compare,
    seq_compare,
)
from veriscale.backends.embedded.builtins.with_beq import BEQ_FUNCTIONS, option_beq, prod_beq, seq_beq
from veriscale.backends.embedded.builtins.with_to_string import (
    option_to_string,
    prod_to_string,
    seq_to_string,
)
from veriscale.backends.embedded.compiler.support import INSTANCE_SLOT_PREFIX, Closure, Scope, unsupported
from veriscale.backends.embedded.elab.instances import (
    CLASS_METHOD_FUNCTIONS,
    OPERATOR_CLASSES,
    InstanceChoice,
    InstancePlan,
    argument_key,
    interpolation_chunks,
    interpolation_key,
    method_type,
    use_key,
)
from veriscale.backends.embedded.registry import Builtin
from veriscale.backends.embedded.signatures import BinderKind, type_head
from veriscale.lean.printing import to_string


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
        """The local instance the elaborator chose for ``node`` (``None``: the global one); a use
        it did not resolve, in the scope of a local instance of its class, is refused (the
        elaborator gave it no answer to follow). Operators of arithmetic trees are looked up by
        :meth:`operator_instance`, operator by operator."""
        if not isinstance(node, (A.BinOp, A.App, A.Ident)) or _is_tree_operator(node):
            return None
        choice = self.instance_choices.get(use_key(node))
        if choice is not None:
            return None if choice.plan.is_global else choice  # type: ignore[no-any-return]
        cls = _class_used(node)
        if cls is not None and _in_scope(cls, sc):
            raise unsupported(node, "a class use in the scope of a local instance",
                              "the elaborator did not resolve it")
        return None

    def operator_instance(self, op_node: A.Node, sc: Scope) -> Closure | None:
        """The method of the local instance an arithmetic operator (``+``, ``-x``, ``++``, …) of a
        ``binop%`` tree uses, as a frame closure; ``None`` for the global instance."""
        if not self.instance_choices:
            return None
        kind = "neg" if isinstance(op_node, A.UnOp) else op_node.op  # type: ignore[attr-defined]
        cls = OPERATOR_CLASSES.get(kind)
        if cls is None:
            return None
        choice = self.instance_choices.get(use_key(op_node))
        if choice is None:
            if _in_scope(cls, sc):
                raise unsupported(op_node, f"`{kind}` in the scope of a local {cls} instance",
                                  "the elaborator did not resolve it")
            return None
        if choice.plan.is_global:
            return None
        return self.instance_function(op_node, choice, sc)

    def compile_instance_use(self, node: A.Node, choice: InstanceChoice, sc: Scope) -> Closure:
        """A use of a class's method resolved to (an instance built from) a local instance: the
        instance's method applied to the arguments."""
        method = self.instance_function(node, choice, sc)
        if isinstance(node, A.BinOp) and node.op in ("==", "!="):
            a = self.compile(node.lhs, sc, None)  # type: ignore[attr-defined]
            b = self.compile(node.rhs, sc, None)  # type: ignore[attr-defined]
            negate = node.op == "!="

            def beq(fr: list[Any]) -> Any:
                result = method(fr)(a(fr), b(fr))
                return (not result) if negate else result

            return beq
        if isinstance(node, A.App):
            args = [self.compile(x, sc, None) for x in node.args]  # type: ignore[attr-defined]

            def apply(fr: list[Any]) -> Any:
                return method(fr)(*[c(fr) for c in args])

            return apply
        if isinstance(node, A.Ident):
            return method
        raise unsupported(node, f"local instance of {choice.cls}", f"used by `{type(node).__name__}`")

    def interpolation_with_instances(self, node: A.Interp, sc: Scope) -> Closure | None:
        """``s!"…"`` when one of its ``toString`` chunks or its ``++`` resolves to a local
        instance: ``toString c₀ ++ toString c₁ ++ …`` left to right, each with its instance
        (``None``: every chunk with the global instances, compiled the usual way)."""
        chunks = interpolation_chunks(node.parts)
        choices = [self.instance_choices.get(interpolation_key(node, i)) for i in range(len(chunks))]
        append_choice = self.instance_choices.get(interpolation_key(node, None)) if len(chunks) > 1 else None
        if all(c is None or c.plan.is_global for c in [*choices, append_choice]):
            unresolved = {"ToString": any(c is None for c in choices),
                          "Append": len(chunks) > 1 and append_choice is None}
            for cls, missing in unresolved.items():
                if missing and _in_scope(cls, sc):
                    raise unsupported(node, f"`s!` in the scope of a local {cls} instance",
                                      "the elaborator did not resolve it")
            return None
        pieces: list[Closure] = []
        for chunk, choice in zip(chunks, choices):
            value: Closure = (lambda fr, text=chunk: text) if isinstance(chunk, str) else \
                self.compile(chunk, sc, None)  # type: ignore[attr-defined]
            if choice is None or choice.plan.is_global:
                pieces.append(lambda fr, v=value: to_string(v(fr)))
            else:
                show = self.instance_function(node, choice, sc)
                pieces.append(lambda fr, v=value, f=show: f(fr)(v(fr)))
        append = None
        if append_choice is not None and not append_choice.plan.is_global:
            append = self.instance_function(node, append_choice, sc)

        def interpolate(fr: list[Any]) -> Any:
            out = pieces[0](fr)
            join = append(fr) if append is not None else None
            for piece in pieces[1:]:
                nxt = piece(fr)
                out = join(out, nxt) if join is not None else out + nxt
            return out

        return interpolate

    def instance_function(self, node: A.Node, choice: InstanceChoice | InstancePlan, sc: Scope,
                          cls: str | None = None) -> Closure:
        """The frame's value of the instance a plan builds: its method as a Python function."""
        if isinstance(choice, InstanceChoice):
            cls, plan = choice.cls, choice.plan
        else:
            plan = choice
        if plan.decl is not None:
            slot = self._instance_slots.get(id(plan.decl))
            if slot is None:
                raise unsupported(node, "a local instance", "its declaration is not evaluated here")
            return lambda fr: fr[slot]
        if plan.former is None:
            if cls == "BEq":
                return lambda fr: lean_beq
            if cls == "ToString":
                return lambda fr: to_string
            if cls == "Ord":
                return lambda fr: lean_compare
            raise unsupported(node, f"the global {cls} instance", "as a function value")
        parts = [self.instance_function(node, p, sc, cls) for p in plan.parts]
        if cls == "ToString":
            return _to_string_former(node, plan.former, parts)
        if cls == "Ord":
            return _ord_former(node, plan.former, parts)
        if plan.former in ("List", "Array") and len(parts) == 1:
            elem = parts[0]
            return lambda fr: seq_beq(elem(fr))
        if plan.former == "Option" and len(parts) == 1:
            elem = parts[0]
            return lambda fr: option_beq(elem(fr))
        if plan.former == "Prod" and len(parts) == 2:
            fst, snd = parts
            return lambda fr: prod_beq(fst(fr), snd(fr))
        raise unsupported(node, f"the {cls} instance of {plan.former}", "built from a local instance")

    # -- instance arguments of library functions ------------------------------------------------
    def beq_call(self, node: A.Node, b: Builtin, args: list[Closure], sc: Scope) -> Closure | None:
        """The call of library function ``b`` at ``node`` with the ``[BEq α]`` (or ``[Ord α]``)
        argument the elaborator chose, when that involves a local instance (``None``: the builtin
        itself, with the global instances). In the scope of a local instance of such a binder's
        class, a call the elaborator gave no answer for is refused."""
        choice = self.instance_choices.get(argument_key(b.name, node))
        if choice is None:
            for cls in _INSTANCE_FUNCTIONS:
                if CLASS_METHOD_FUNCTIONS.get(b.name) == cls:
                    continue  # the class's method itself (`Ord.compare`): resolved as a method use
                if cls in _instance_binder_classes(b) and _in_scope(cls, sc):
                    raise unsupported(node, f"`{b.name}` in the scope of a local {cls} instance",
                                      "the elaborator did not resolve its instance argument")
            return None
        if choice.plan.is_global:
            return None
        impl = _INSTANCE_FUNCTIONS.get(choice.cls, {}).get(b.name)
        if impl is None or len(args) != b.arity:
            raise unsupported(node, f"`{b.name}` with a local instance of {choice.cls}",
                              "partial application or another function")
        beq = self.instance_function(node, choice, sc)
        cs = list(args)

        def call(fr: list[Any]) -> Any:
            return impl(beq(fr), *[c(fr) for c in cs])

        return call


def _class_used(node: A.Node) -> str | None:
    """The class of a use whose local instances can be evaluated: ``==``/``!=``, ``max``/``min``,
    ``toString``."""
    if isinstance(node, A.BinOp):
        return "BEq" if node.op in ("==", "!=") else None
    fn = node.fn if isinstance(node, A.App) else node
    return CLASS_METHOD_FUNCTIONS.get(fn.name) if isinstance(fn, A.Ident) else None


def _is_tree_operator(node: A.Node) -> bool:
    """An operator of a ``binop%`` tree (its instance is looked up where the tree is compiled)."""
    return isinstance(node, A.BinOp) and node.op in OPERATOR_CLASSES


def _in_scope(cls: str, sc: Scope) -> bool:
    """Whether a local instance of ``cls`` is bound in ``sc``."""
    prefix = f"{INSTANCE_SLOT_PREFIX}{cls}#"
    return any(n.startswith(prefix) for n in sc.vars)


_INSTANCE_FUNCTIONS: dict[str, dict[str, Any]] = {"BEq": BEQ_FUNCTIONS, "Ord": ORD_FUNCTIONS}
"""Per class, the library functions evaluated with a given instance (its method first)."""


def _instance_binder_classes(b: Builtin) -> frozenset[str]:
    """The classes of ``b``'s instance binders (``[BEq α]`` → ``BEq``)."""
    return frozenset(type_head(binder.type) or "" for binder in b.signature.binders
                     if binder.kind is BinderKind.INST)


def _ord_former(node: A.Node, former: str, parts: list[Closure]) -> Closure:
    """The core ``Ord`` instance of ``former`` built from its element's (a frame closure)."""
    if former in ("List", "Array") and len(parts) == 1:
        elem = parts[0]
        return lambda fr: seq_compare(elem(fr))
    if former == "Option" and len(parts) == 1:
        elem = parts[0]
        return lambda fr: option_compare(elem(fr))
    raise unsupported(node, f"the Ord instance of {former}", "built from a local instance")


def _to_string_former(node: A.Node, former: str, parts: list[Closure]) -> Closure:
    """The core ``ToString`` instance of ``former`` built from its components' (frame closures)."""
    if former in ("List", "Array") and len(parts) == 1:
        elem, array = parts[0], former == "Array"
        return lambda fr: seq_to_string(elem(fr), array)
    if former == "Option" and len(parts) == 1:
        elem = parts[0]
        return lambda fr: option_to_string(elem(fr))
    if former == "Prod" and len(parts) == 2:
        fst, snd = parts
        return lambda fr: prod_to_string(fst(fr), snd(fr))
    raise unsupported(node, f"the ToString instance of {former}", "built from a local instance")


__all__ = ["InstancesMixin", "method_type"]
