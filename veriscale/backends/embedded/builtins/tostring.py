"""The ``toString`` and ``repr`` builtins: Lean's printing, from the engine-neutral Lean layer.

What each instance prints is decided once, in :mod:`veriscale.lean.printing`; this module only
declares the builtins with their Lean signatures.
"""

from __future__ import annotations

from veriscale.backends.embedded.registry import builtin
from veriscale.lean.printing import repr_value, to_string

__all__ = ["repr_value", "to_string"]

builtin("toString", "{α : Type _} : α → String", verified=False)(to_string)
builtin("ToString.toString", "{α : Type _} : α → String", verified=False)(to_string)
# `repr a` is `reprPrec a 0` (the builtin takes Lean's one explicit argument)
builtin("repr", "{α : Type _} : α → String", verified=False)(lambda value: repr_value(value))
# Init/Data/Repr.lean: `abbrev reprStr [Repr α] (a : α) : String := reprPrec a 0 |>.pretty`, the
# text `repr a` prints
builtin("reprStr", "{α : Type _} : α → String", verified=False)(lambda value: repr_value(value))
