"""Order classes core Lean does not have: ``Ord``, ``LT``, ``LE``, ``Max``, ``Min`` on products.

Core Lean v4.24 gives a pair no order instance at all:

* ``Ord (α × β)``: ``lexOrd`` is a ``def`` (Init/Data/Ord.lean); the ``instance`` attribute it
  carried by accident in ``Std.Classes.Ord.Basic`` was removed (lean4#9739, v4.23);
* ``LT (α × β)``: ``Prod.lexLt`` is a ``def`` with a ``Decidable`` instance of its own
  (``Prod.lexLtDec``, Init/Core.lean), not an ``LT`` instance; there is no ``LE``, ``Max`` or
  ``Min`` on products either;
* ``List``, ``Array`` and ``Option`` build these classes from their elements' (``List.lt`` needs
  ``[LT α]``, ``Ord (List α)`` is ``List.compareLex compare`` with ``[Ord α]``, ``Ord (Option α)``
  needs ``[Ord α]``): so a container of pairs has none either, whatever its own instance is.

So ``compare (1, 2) (1, 3)``, ``(a, b) < (c, d)``, ``max p q``, ``[(1, 2)] < [(1, 3)]`` and
``xs.mergeSort`` of pairs with the default ``le := fun a b => a ≤ b`` fail in Lean with "failed to
synthesize" -- unless the file imports Mathlib (whose ``Prod`` has the componentwise ``Preorder``,
``Max`` and ``Min``: not modelled, left to run-time ``unknown``), declares instances of these
classes itself, or a local instance is in scope (``letI : Ord (Nat × Nat) := lexOrd``).

``Max``/``Min`` at ``String``, ``Char``, ``List`` and ``Array`` (types with ``LT``/``LE`` in core):
whether core Lean v4.24 declares these instances was not settled from its source (``String.Pos``
has ``maxOfLe``/``minOfLe`` instances; for ``String`` itself none was found, while user files
declare ``instance : Min String`` of their own), so ``max s t`` there is left undecided, never
evaluated as if the instance existed.
"""

from __future__ import annotations

import functools

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.context import Ctx
from veriscale.backends.embedded.elab.core import ElabCore
from veriscale.backends.embedded.elab.instances import CLASS_METHOD_FUNCTIONS
from veriscale.backends.embedded.elab.types import deep, show, zonk
from veriscale.lean.types import FunType, LeanType, NamedType, ProdType

ORDER_FAMILY = frozenset({"Ord", "LT", "LE", "Max", "Min"})
_FROM_ELEMENTS = frozenset({"List", "Array", "Option"})
#: heads whose core ``Max``/``Min`` instances are not settled here (see the module docstring)
_UNSETTLED_MAX_MIN = frozenset({"String", "Char", "List", "Array"})

DEFAULT_ORDER_PARAMS = {"le": "LE", "lt": "LT"}
"""Optional comparison parameters whose default is the type's order (``List.mergeSort``'s ``le :=
by exact fun a b => a ≤ b``): left out, they need the instance."""


def core_has_order(t: LeanType) -> bool | None:
    """``False`` when core Lean has no instance of the order classes at ``t`` (a pair, or a
    ``List``/``Array``/``Option`` of one); ``None``: not decided here."""
    t = zonk(t)
    if isinstance(t, ProdType) or (isinstance(t, NamedType) and t.name == "Prod"):
        return False
    if isinstance(t, NamedType) and t.name in _FROM_ELEMENTS and len(t.args) == 1:
        return core_has_order(t.args[0])
    return None


class OrderInstancesMixin(ElabCore):
    """Uses of an order class at a type core Lean gives none."""

    def require_order_instance(self, node: A.Node, cls: str, t: LeanType, ctx: Ctx) -> None:
        """``cls t`` must be synthesized at ``node``: checked once the types are settled."""
        if cls not in ORDER_FAMILY or getattr(self, "has_mathlib", False) or ctx.instances:
            return
        env = getattr(self, "env", None)
        if env is not None and any(i.class_name in ORDER_FAMILY for i in env.instances):
            return  # the file declares order instances of its own: not modelled here
        self.postponed.append(functools.partial(self._check_order_instance, node, cls, t))

    def _check_order_instance(self, node: A.Node, cls: str, t: LeanType) -> None:
        want = deep(t)
        if core_has_order(want) is False:
            self.error(node, f"failed to synthesize {cls} ({show(want)}): core Lean declares no order on pairs "
                             "(`lexOrd` and `Prod.lexLt` are definitions, not instances)", "missing-instance")
        elif cls in ("Max", "Min") and isinstance(want, NamedType) and want.name in _UNSETTLED_MAX_MIN:
            self.gap(node, f"whether core Lean v4.24 declares `{cls} {want.name}` is not settled here",
                     "unsettled-instance")

    def require_call_instances(self, node: A.Node, name: str, instances: tuple[LeanType, ...],
                               params: tuple[LeanType, ...], ctx: Ctx) -> None:
        """The order instances a call needs: its instance binders (``Ord.compare``'s ``[Ord α]``),
        or the class of a method used directly (``max a b`` is ``Max.max a b``)."""
        env = getattr(self, "env", None)
        cls = CLASS_METHOD_FUNCTIONS.get(name) if env is None or name not in env.defs else None
        if cls in ORDER_FAMILY and params:
            self.require_order_instance(node, cls, params[0], ctx)
        for inst in instances:
            z = zonk(inst)
            if isinstance(z, NamedType) and z.name in ORDER_FAMILY and len(z.args) == 1 and z.name != cls:
                self.require_order_instance(node, z.name, z.args[0], ctx)

    def require_default_order(self, node: A.Node, param_name: str, param_type: LeanType, ctx: Ctx) -> None:
        """A left-out ``le``/``lt`` parameter (``α → α → Bool``) whose default compares with the
        type's ``≤``/``<``."""
        cls = DEFAULT_ORDER_PARAMS.get(param_name)
        z = zonk(param_type)
        if cls is not None and isinstance(z, FunType):
            self.require_order_instance(node, cls, z.domain, ctx)
