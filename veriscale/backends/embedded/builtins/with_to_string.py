"""The core ``ToString`` instances of containers, built from their components' instances.

``toString`` (:func:`veriscale.lean.printing.to_string`) prints with the global instances. When
Lean's instance resolution builds ``ToString (List α)`` from a *local* ``ToString α`` (see
:mod:`..elab.instances`), the container prints its elements with that instance's method instead,
in the shape of the core instance (Init/Data/ToString/Basic.lean, Init/Data/Array/Basic.lean):

* ``List.toString``: ``"[]"``, else ``"[" ++ a ++ ", " ++ b ++ … ++ "]"``;
* ``Array``: ``"#" ++ toString a.toList``;
* ``Option``: ``"none"``, or ``"(some " ++ addParenHeuristic (toString a) ++ ")"``;
* ``Prod``: ``"(" ++ toString a ++ ", " ++ toString b ++ ")"``.

Each builder takes the components' methods (Python functions of one value, the user's method
charging its own steps) and returns the container's method.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.lean.printing import add_paren_heuristic
from veriscale.lean.values import NONE, Arr, Pair, Some

Show = Callable[[Any], Any]


def seq_to_string(elem: Show, array: bool) -> Show:
    """``List.toString`` (``array``: prefixed by ``#``, as ``toString a.toList``)."""

    def show(xs: Any) -> str:
        items = tuple(xs) if type(xs) is Arr else xs
        text = "[" + ", ".join(str(elem(x)) for x in items) + "]"
        return "#" + text if array else text

    return show


def option_to_string(elem: Show) -> Show:
    def show(o: Any) -> str:
        if type(o) is Some:
            return "(some " + add_paren_heuristic(str(elem(o.value))) + ")"
        if o is NONE:
            return "none"
        raise TypeError(f"not an Option value: {o!r}")

    return show


def prod_to_string(fst: Show, snd: Show) -> Show:
    def show(p: Pair) -> str:
        return "(" + str(fst(p.fst)) + ", " + str(snd(p.snd)) + ")"

    return show


__all__ = ["option_to_string", "prod_to_string", "seq_to_string"]
