"""Monadic traversals of lists and arrays (``foldlM``, ``mapM``, ``forM``) at the monads the engine
runs: ``Option``, ``Except ε`` and ``Id``.

Lean's signatures (Init/Data/List/Control.lean, Init/Data/Array/Basic.lean), each with
``{m : Type u → Type v} [Monad m]``:

* ``List.foldlM (f : s → α → m s) (init : s) : List α → m s``
* ``List.mapM (f : α → m β) (as : List α) : m (List β)``
* ``protected List.forM (as : List α) (f : α → m PUnit) : m PUnit`` (the list comes first)
* ``Array.foldlM (f : β → α → m β) (init : β) (as : Array α) (start := 0) (stop := as.size) : m β``
* ``Array.mapM (f : α → m β) (as : Array α) : m (Array β)``
* ``Array.forM (f : α → m PUnit) (as : Array α) (start := 0) (stop := as.size) : m PUnit``

The engine's types have no variable of kind ``Type → Type``, so ``m`` is read off the expected
type, as Lean's ``elabAppArgs`` does when it propagates the expected type to the result ``m X``
before elaborating the arguments: at ``Option X``, ``Except ε X`` or ``Id X`` the signature is
instantiated with that monad; anywhere else (the monad is not known yet, or another one) the call
is a gap. ``PUnit`` is read as ``Unit`` (``abbrev Unit := PUnit.{1}``, Init/Prelude.lean).
"""

from __future__ import annotations

from collections.abc import Callable

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.calls import CallsMixin, Param, ParamKind, Receiver, Sig
from veriscale.backends.embedded.elab.context import Ctx
from veriscale.backends.embedded.elab.types import args, head_name, show, zonk
from veriscale.backends.embedded.statics import TVar
from veriscale.lean.types import FunType, LeanType, NamedType

MONADIC_TRAVERSALS = frozenset({"List.foldlM", "List.mapM", "List.forM", "Array.foldlM", "Array.mapM",
                                "Array.forM"})
"""The traversals :meth:`MonadicMixin.monadic_sig` types (and :mod:`..compiler.monads` runs)."""

_UNIT = NamedType("Unit")
_NAT = NamedType("Nat")


def _monad_wrapper(expected: LeanType | None) -> Callable[[LeanType], LeanType] | None:
    """``X ↦ m X`` for the monad ``m`` of the expected type ``m Y``, when it is one the engine runs."""
    z = zonk(expected) if expected is not None else None
    h = head_name(z) if z is not None else None
    n = len(args(z)) if z is not None else 0
    if h in ("Option", "Id") and n == 1:
        return lambda t: NamedType(h, (t,))
    if h == "Except" and n == 2:
        # `ε` is a variable of the signature: unifying the result with the expected type fixes it
        return lambda t: NamedType("Except", (TVar("ε"), t))
    return None


def traversal_sig(name: str, wrap: Callable[[LeanType], LeanType]) -> Sig:
    """The signature of ``name`` (one of :data:`MONADIC_TRAVERSALS`) with ``m`` instantiated."""
    a, b = TVar("α"), TVar("β")
    coll = "List" if name.startswith("List.") else "Array"
    xs = Param("as", NamedType(coll, (a,)))
    ranges: tuple[Param, ...] = ()
    if coll == "Array" and not name.endswith("mapM"):
        optional: ParamKind = "optional"
        ranges = (Param("start", _NAT, optional), Param("stop", _NAT, optional))
    op = name.partition(".")[2]
    if op == "foldlM":
        params = (Param("f", FunType(b, FunType(a, wrap(b)))), Param("init", b), xs, *ranges)
        return Sig(params, wrap(b), name)
    if op == "mapM":
        return Sig((Param("f", FunType(a, wrap(b))), xs), wrap(NamedType(coll, (b,))), name)
    f = Param("f", FunType(a, wrap(_UNIT)))
    params = (xs, f) if coll == "List" else (f, xs, *ranges)
    return Sig(params, wrap(_UNIT), name)


class MonadicMixin(CallsMixin):
    def monadic_call(self, node: A.Node, name: str, arg_nodes: list[A.Node], ctx: Ctx,
                     expected: LeanType | None, receiver: tuple[A.Node, LeanType] | None = None) -> LeanType:
        """``name args`` (``receiver.name args`` with a receiver) for ``name`` in
        :data:`MONADIC_TRAVERSALS`, at the monad of the expected type."""
        wrap = _monad_wrapper(expected)
        if wrap is None:
            for a in arg_nodes:
                self.elab(a.value if isinstance(a, A.NamedArg) else a, ctx, None)
            z = zonk(expected) if expected is not None else None
            shown = "a monad not yet known" if z is None or head_name(z) is None else f"the monad of {show(z)}"
            return self.gap(node, f"`{name}` at {shown} is not modelled", "postponed")
        sig = self.instantiate_sig(traversal_sig(name, wrap))
        if receiver is None:
            return self.apply_sig(node, sig, arg_nodes, ctx, expected)
        base_node, base = receiver
        h = name.partition(".")[0]
        index = self.self_position(sig, h)
        assert index is not None  # every traversal has its collection parameter
        remaining = Sig(sig.params[:index] + sig.params[index + 1:], sig.result, sig.name, tvars=sig.tvars)
        return self.apply_sig(node, remaining, arg_nodes, ctx, expected,
                              receiver=Receiver(sig.params[index].name, base_node, base, sig.params[index].type,
                                                index))

    def is_core_traversal(self, name: str) -> bool:
        """``name`` is one of Lean's traversals and the file declares nothing by that name."""
        env = getattr(self, "env", None)
        return name in MONADIC_TRAVERSALS and (env is None or name not in env.defs)


__all__ = ["MONADIC_TRAVERSALS", "MonadicMixin", "traversal_sig"]
