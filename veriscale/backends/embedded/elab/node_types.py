"""The elaborator's type of every term, for the compiler.

While it elaborates, the elaborator records each term's inferred type (:meth:`NodeTypes.record`);
the compiler asks :meth:`NodeTypes.of` for the type of a term once elaboration is over, when
every metavariable that will ever be assigned is (numerals defaulted). A term elaborated more than
once (a ``binop%`` tree re-elaborated at its maximal type, a postponed argument) is answered only
when every elaboration gave the same type.

Only *concrete* types are answered: no metavariable, gap, type parameter or proof, and only
type formers whose run-time representation the compiler keeps exactly at the static type (numbers,
``Bool``, ``Char``, ``String``, ``Unit``, ``Ordering``, and ``List``/``Array``/``Option``/products of them,
and ``Std.HashSet``/``Std.HashMap`` of them: a hash set or map is one run-time class whatever its
type arguments, and its elements are inserted through calls compiled at the element types).
Everything else is ``None``, and the compiler keeps its own reading of declared types and the
run-time checks that go with it.
"""

from __future__ import annotations

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.elab.types import deep
from veriscale.lean.types import LeanType, NamedType, ProdType

_SCALARS = frozenset({"Nat", "Int", "Float", "Bool", "Char", "String", "Unit",
                      "UInt8", "UInt16", "UInt32", "UInt64", "Ordering"})
_CONTAINERS = {"List": 1, "Array": 1, "Option": 1, "Std.HashSet": 1, "Std.HashMap": 2}
_MONADS = {"Id": 1, "Option": 1, "Except": 2}
"""Monads whose ``do`` blocks the compiler runs, with their number of type arguments."""


def concrete(t: LeanType) -> LeanType | None:
    """``t`` with its metavariables followed, if it is concrete (see the module docstring)."""
    t = deep(t)
    return t if _is_concrete(t) else None


def _is_concrete(t: LeanType) -> bool:
    if type(t) is NamedType:
        if not t.args:
            return t.name in _SCALARS
        return _CONTAINERS.get(t.name) == len(t.args) and all(_is_concrete(a) for a in t.args)
    if type(t) is ProdType:
        return _is_concrete(t.fst) and _is_concrete(t.snd)
    return False


class NodeTypes:
    """Terms' elaborated types, by term identity."""

    __slots__ = ("_raw", "_answers", "_fin_values")

    def __init__(self) -> None:
        # id(term) -> (term, types): the term is kept so an id is never read for another object
        self._raw: dict[int, tuple[A.Node, list[LeanType]]] = {}
        self._answers: dict[int, LeanType | None] = {}
        self._fin_values: dict[int, A.Node] = {}

    def record(self, node: A.Node, t: LeanType) -> None:
        entry = self._raw.get(id(node))
        if entry is None or entry[0] is not node:
            self._raw[id(node)] = (node, [t])
        else:
            entry[1].append(t)

    def of(self, node: A.Node) -> LeanType | None:
        """The concrete type the elaborator gave ``node`` (``None``: not elaborated, not concrete,
        or not the same on every elaboration)."""
        key = id(node)
        if key in self._answers:
            return self._answers[key]
        entry = self._raw.get(key)
        answer: LeanType | None = None
        if entry is not None and entry[0] is node:
            types = [concrete(t) for t in entry[1]]
            first = types[0]
            if first is not None and all(t == first for t in types[1:]):
                answer = first
        self._answers[key] = answer
        return answer

    def monad_of(self, node: A.Node) -> str | None:
        """The head of the monad type the elaborator gave ``node`` (``Id`` for ``pure v`` in an
        ``Id.run do`` block, ``Option``, ``Except``), when every elaboration of it agrees; ``None`` otherwise.
        Monad types are not concrete (:meth:`of` does not answer them): this tells only the head."""
        entry = self._raw.get(id(node))
        if entry is None or entry[0] is not node:
            return None
        heads = {t.name if isinstance(t, NamedType) and _MONADS.get(t.name) == len(t.args) else None
                 for t in map(deep, entry[1])}
        return heads.pop() if len(heads) == 1 else None

    def head_of(self, node: A.Node) -> str | None:
        """The head of the type the elaborator gave ``node`` (``Acc`` for a structure instance
        ``{ best := 0 }`` whose type came from elsewhere), when every elaboration agrees and it
        is a named type; ``None`` otherwise. Like :meth:`monad_of` it tells only the head."""
        entry = self._raw.get(id(node))
        if entry is None or entry[0] is not node:
            return None
        heads = {t.name if isinstance(t, NamedType) else None for t in map(deep, entry[1])}
        return heads.pop() if len(heads) == 1 else None

    def mark_fin_value(self, node: A.Node) -> None:
        """``node`` is ``i.val``/``i.1`` of some ``i : Fin n`` (the structure's first field)."""
        self._fin_values[id(node)] = node

    def is_fin_value(self, node: A.Node) -> bool:
        """``node`` projects the number out of a ``Fin``: at run time the engine keeps a ``Fin`` as
        that number itself, so the projection is the identity."""
        return self._fin_values.get(id(node)) is node

    def alias(self, target: A.Node, source: A.Node) -> None:
        """Record for ``target`` what was recorded for ``source``: a term rewritten into a copy
        (a ``·`` section turned into a ``fun``) is the same term for the elaborator's types,
        whichever of the two the elaborator or the compiler holds."""
        entry = self._raw.get(id(source))
        if entry is None or entry[0] is not source:
            return
        for t in entry[1]:
            self.record(target, t)
        self._answers.pop(id(target), None)

    def merge(self, other: NodeTypes) -> None:
        """Take ``other``'s records (another declaration's terms)."""
        for key, (node, types) in other._raw.items():
            entry = self._raw.get(key)
            if entry is None or entry[0] is not node:
                self._raw[key] = (node, list(types))
            else:
                entry[1].extend(types)
        self._fin_values.update(other._fin_values)
        self._answers.clear()

    def __len__(self) -> int:
        return len(self._raw)


__all__ = ["NodeTypes", "concrete"]
