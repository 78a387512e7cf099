"""Runtime values: the one Python representation of Lean values used everywhere.

The value codec (``veriscale.lean.codec``) parses stored test data into these objects, the embedded
evaluator computes with them, and results are compared and rendered from them. Keeping a single
representation means there is no conversion layer that could drift from Lean's semantics.

Representation (Lean type -> Python):

=================  ==========================================================
``Nat``            :class:`Nat` (an ``int`` subclass, always >= 0)
``Int``            plain ``int`` (never ``bool``)
``UInt8`` ...      :class:`UInt8`, :class:`UInt16`, :class:`UInt32`, :class:`UInt64`
``Bool``           ``bool``
``Float``          ``float`` (IEEE double, like Lean's ``Float``)
``Char``           :class:`Char` (a ``str`` subclass of length 1, one Unicode scalar)
``String``         plain ``str``
``List α``         ``tuple`` (plain tuple, immutable, hashable)
``Array α``        :class:`Arr` (a persistent array: updates of the newest version are O(1))
``α × β``          :class:`Pair` (``(a, b, c)`` is ``Pair(a, Pair(b, c))`` as in Lean)
``Option α``       :data:`NONE` or :class:`Some`
``Unit``           :data:`UNIT`
structures         :class:`Struct` (type name and field values in declaration order)
inductives         :class:`Ctor` (constructor name and arguments)
``Ordering``       :data:`ORDERING_LT`, :data:`ORDERING_EQ`, :data:`ORDERING_GT` (``Ctor`` values)
functions          any Python callable; see :class:`LeanFunction`
=================  ==========================================================

Values are immutable and hashable (floats aside, NaN), so they can be keys of hash maps, members
of sets, and compared structurally with ``==``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

# ---------------------------------------------------------------------------------------------
# Numbers


class Nat(int):
    """A natural number. Arithmetic on it is done by the evaluator, which re-wraps results."""

    __slots__ = ()

    def __new__(cls, value: int = 0) -> Nat:
        if value < 0:
            raise ValueError(f"Nat cannot be negative: {value}")
        return super().__new__(cls, value)

    def __repr__(self) -> str:
        return f"Nat({int(self)})"


class _FixedWidth(int):
    """Unsigned fixed-width integers; construction wraps modulo 2**BITS like Lean's ``ofNat``."""

    __slots__ = ()
    BITS = 0

    def __new__(cls, value: int = 0) -> _FixedWidth:
        return super().__new__(cls, int(value) % (1 << cls.BITS))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"


class UInt8(_FixedWidth):
    __slots__ = ()
    BITS = 8


class UInt16(_FixedWidth):
    __slots__ = ()
    BITS = 16


class UInt32(_FixedWidth):
    __slots__ = ()
    BITS = 32


class UInt64(_FixedWidth):
    __slots__ = ()
    BITS = 64


FIXED_WIDTH_TYPES: dict[str, type[_FixedWidth]] = {
    "UInt8": UInt8,
    "UInt16": UInt16,
    "UInt32": UInt32,
    "UInt64": UInt64,
}


# ---------------------------------------------------------------------------------------------
# Characters and containers


class Char(str):
    """A Lean ``Char``: exactly one Unicode scalar value (no surrogates)."""

    __slots__ = ()

    def __new__(cls, value: str) -> Char:
        if len(value) != 1:
            raise ValueError(f"Char must be one code point, got {value!r}")
        cp = ord(value)
        if 0xD800 <= cp <= 0xDFFF:
            raise ValueError(f"Char cannot be a surrogate: U+{cp:04X}")
        return super().__new__(cls, value)

    def __repr__(self) -> str:
        return f"Char({str.__repr__(self)})"


# How a superseded array version (see Arr) differs from the newer one it points to; an index
# >= 0 means "the same except this index holds the recorded value".
_TRUNCATED = -1  # the first `len` elements of the newer version
_EXTENDED = -2  # the newer version followed by the recorded value
_FROZEN = -3  # (of a root) updates copy its list instead of taking it over
_FRESH = -4  # (of a root) made by copying a frozen version: no other version reads its list


class Arr:
    """A Lean ``Array``: an immutable sequence, distinct from ``List`` (a plain tuple) so the two
    never compare equal, with ``push``, ``pop``, ``set`` and ``extend`` in O(1) (amortised, per
    element added) on the newest version of an array.

    Lean updates an array in place when nothing else refers to it, so a loop that pushes onto or
    sets an accumulator is linear; a tuple would copy the whole array at each step. This is a
    persistent array (Baker's version trees): each ``Arr`` is a *version*, either the **root**,
    which owns a Python list of exactly its elements, or a **diff** pointing to a newer version
    and recording the one change that gives it back (an index's old value, a shorter length, one
    more element). An update of the root mutates the list in place, hands it to a new root and
    turns the old root into a diff, so both versions keep their values; any value semantics
    (equality, hashing, iteration, indexing) are those of the tuple of its elements. Reading a
    diff version first gives it its own list again (a copy of the root's list with the diffs
    applied, once), so an old version that is read costs one copy, as the tuple did at each update.
    A version made by the constructor (stored data, a check's inputs, a builtin's fresh result)
    is *frozen*: its first update copies its list, as Lean copies a shared array, so values that
    outlive one evaluation never become diffs; only versions made by updates are updated in place.
    The root such a copy makes is *fresh* (no diff reads its list): generated code that proves it
    alone holds that version may then change its list in place (:func:`owned_result`).

    Every update first builds the new version, then turns the old one into a diff, then mutates
    the list, each step one attribute or item store. An exception delivered between two
    bytecodes (the engine's watchdog interrupts a check that way) therefore leaves every version
    reachable from outside with its value: at worst the new version is dropped unfinished.

    Iterating yields a snapshot of the elements, so evaluating Lean code inside the loop (which
    may update this very version) never changes what the loop sees. Hot paths read the elements
    with :meth:`view` (the root's own list: read it, never keep it across an evaluation of Lean
    code, never mutate it); the engine's generated code reads ``_len`` and, when it is not
    ``None``, ``_items`` (that same list) directly. Not safe for concurrent updates from several
    threads (the engine evaluates in one thread)."""

    __slots__ = ("_items", "_len", "_next", "_at", "_old")

    def __init__(self, items: Iterable[Any] = ()) -> None:
        self._items: list[Any] | None = list(items.view() if type(items) is Arr else items)
        self._len = len(self._items)
        self._next: Arr | None = None
        self._at = _FROZEN
        self._old: Any = None

    @classmethod
    def of_list(cls, items: list[Any]) -> Arr:
        """A (frozen) array owning ``items`` without a copy: the caller hands the list over and
        never touches it again."""
        arr = _root(items, len(items))
        arr._at = _FROZEN
        return arr

    # -- reading ------------------------------------------------------------------------------
    def view(self) -> list[Any]:
        """The elements, as the root's own list: read-only, and only until Lean code runs."""
        items = self._items
        return items if items is not None else self._detach()

    def _detach(self) -> list[Any]:
        """Give this diff version a list of its own: the root's elements with every diff between
        them undone, newest first."""
        path: list[Arr] = []
        node = self
        while node._items is None:
            path.append(node)
            node = node._next  # type: ignore[assignment]
        items = node._items.copy()
        for diff in reversed(path):
            at = diff._at
            if at >= 0:
                items[at] = diff._old
            elif at == _TRUNCATED:
                del items[diff._len :]
            else:
                items.append(diff._old)
        self._items = items  # one store: from here on this version is a root of its own
        self._at = 0
        self._next = self._old = None
        return items

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index: Any) -> Any:
        items = self._items
        if items is None:
            items = self._detach()
        if type(index) is slice:
            return tuple(items[index])
        return items[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(tuple(self.view()))

    def __reversed__(self) -> Iterator[Any]:
        return reversed(tuple(self.view()))

    def __contains__(self, value: object) -> bool:
        return value in self.view()

    def count(self, value: Any) -> int:
        return self.view().count(value)

    def index(self, value: Any) -> int:
        return self.view().index(value)

    def __repr__(self) -> str:
        return f"Arr({tuple(self.view())!r})"

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is Arr and self._len == other._len and self.view() == other.view())

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("Arr", tuple(self.view())))

    def __lt__(self, other: Arr) -> bool:
        if type(other) is not Arr:
            return NotImplemented
        return self.view() < other.view()

    def __le__(self, other: Arr) -> bool:
        if type(other) is not Arr:
            return NotImplemented
        return self.view() <= other.view()

    def __gt__(self, other: Arr) -> bool:
        if type(other) is not Arr:
            return NotImplemented
        return self.view() > other.view()

    def __ge__(self, other: Arr) -> bool:
        if type(other) is not Arr:
            return NotImplemented
        return self.view() >= other.view()

    def __reduce__(self) -> tuple[Any, ...]:
        return (Arr, (tuple(self.view()),))

    def __copy__(self) -> Arr:
        return self  # a value: a copy sharing the root's list would break the ownership above

    def __deepcopy__(self, memo: dict[int, Any]) -> Arr:
        return self

    # -- updates: a new version, this one keeps its value --------------------------------------
    def _writable(self, length: int, at: int, old: Any) -> tuple[Arr, list[Any]]:
        """A new version of ``length`` elements and the list it owns, which the caller then
        changes into those elements: this version's list, this version becoming the diff
        ``(at, old)`` from the new one; or, if this version is frozen, a copy of its list."""
        items = self._items
        if items is None:
            items = self._detach()
        elif self._at == _FROZEN:
            items = items.copy()
            copied = _root(items, length)
            copied._at = _FRESH
            return copied, items
        new = _root(items, length)
        self._next = new
        self._old = old
        self._at = at
        self._items = None  # one store: from here on this version is the diff
        return new, items

    def push(self, value: Any) -> Arr:
        """``Array.push``: this array with ``value`` at the end."""
        items = self._items
        if items is None or self._at == _FROZEN:
            new, items = self._writable(self._len + 1, _TRUNCATED, None)
            items.append(value)
            return new
        # what `_writable` does for a version owning its list, inline (a loop pushes once a turn)
        new = _new_arr(Arr)
        new._items = items
        new._len = self._len + 1
        new._next = None
        new._at = 0
        new._old = None
        self._next = new
        self._old = None
        self._at = _TRUNCATED
        self._items = None
        items.append(value)
        return new

    def extend(self, values: Iterable[Any]) -> Arr:
        """``Array.append``/``appendList``: this array followed by ``values``."""
        tail = list(values.view() if type(values) is Arr else values)  # before any change: `a ++ a`
        if not tail:
            return self
        new, items = self._writable(self._len + len(tail), _TRUNCATED, None)
        items.extend(tail)
        return new

    def pop(self) -> Arr:
        """``Array.pop``: without its last element (``#[].pop = #[]``)."""
        if self._len == 0:
            return self
        new, items = self._writable(self._len - 1, _EXTENDED, self.view()[-1])
        items.pop()
        return new

    def set(self, index: int, value: Any) -> Arr:
        """``Array.set``: ``value`` at ``index``, which must be in range."""
        if not 0 <= index < self._len:
            raise IndexError(index)
        return self.set_in_range(index, value)

    def set_in_range(self, index: int, value: Any) -> Arr:
        """:meth:`set` at an ``index`` the caller found in range (``0 <= index < len(self)``)."""
        items = self._items
        if items is None or self._at == _FROZEN:
            new, items = self._writable(self._len, index, self.view()[index])
            items[index] = value
            return new
        # what `_writable` does for a version owning its list, inline
        new = _new_arr(Arr)
        new._items = items
        new._len = self._len
        new._next = None
        new._at = 0
        new._old = None
        self._next = new
        self._old = items[index]
        self._at = index
        self._items = None
        items[index] = value
        return new


def owned_result(new: Any, old: Any) -> Arr | None:
    """``new``, the result of updating ``old``, when it is an array version that no other
    version depends on and nothing but the caller refers to: a new root made by copying
    (``old`` was frozen); else ``None``. Generated code that can prove that it alone holds the
    array from then on updates such a version in place (:mod:`...compiler.linearity`)."""
    if new is not old and type(new) is Arr and new._at == _FRESH:
        return new
    return None


def owned_copy(arr: Arr) -> Arr:
    """A new root with the elements of ``arr`` in a list of its own: a version that no other
    version depends on and nothing but the caller refers to (as :func:`owned_result` finds one),
    ``arr`` unchanged."""
    copied = _root(list(arr.view()), arr._len)
    copied._at = _FRESH
    return copied


def _root(items: list[Any], length: int) -> Arr:
    """A root version owning ``items``, updated in place (not frozen)."""
    arr = _new_arr(Arr)
    arr._items = items
    arr._len = length
    arr._next = None
    arr._at = 0
    arr._old = None
    return arr


_new_arr = object.__new__


@dataclass(frozen=True, slots=True)
class Pair:
    """``Prod.mk fst snd``."""

    fst: Any
    snd: Any


@dataclass(frozen=True, slots=True)
class Some:
    """``Option.some value``."""

    value: Any


_set_some_value = Some.__dict__["value"].__set__


def some(value: Any) -> Some:
    """``Some(value)``, made without the frozen dataclass's ``__init__`` (a third of its cost):
    the same object state, so equal, hashed and printed alike."""
    made = _new_object(Some)
    _set_some_value(made, value)
    return made


_set_pair_fst = Pair.__dict__["fst"].__set__
_set_pair_snd = Pair.__dict__["snd"].__set__


def pair(fst: Any, snd: Any) -> Pair:
    """``Pair(fst, snd)``, made as :func:`some` is (without the frozen dataclass's ``__init__``)."""
    made = _new_object(Pair)
    _set_pair_fst(made, fst)
    _set_pair_snd(made, snd)
    return made


_new_object = object.__new__

SOME_PARTS: tuple[Any, Any] = (_new_object, _set_some_value)
"""How :func:`some` makes its object: ``made = SOME_PARTS[0](Some)``, then
``SOME_PARTS[1](made, value)``; for generated code that writes it in place of the call."""


class _NoneType:
    """``Option.none``; a singleton distinct from Python's ``None``."""

    __slots__ = ()
    _instance: _NoneType | None = None

    def __new__(cls) -> _NoneType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NONE"

    def __reduce__(self) -> str:
        return "NONE"


NONE = _NoneType()


class _UnitType:
    __slots__ = ()
    _instance: _UnitType | None = None

    def __new__(cls) -> _UnitType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNIT"

    def __reduce__(self) -> str:
        return "UNIT"


UNIT = _UnitType()


@dataclass(frozen=True, slots=True)
class Struct:
    """A structure instance: its type name and ``(field name, value)`` pairs in declaration order."""

    type_name: str
    fields: tuple[tuple[str, Any], ...]

    def get(self, field: str) -> Any:
        for name, value in self.fields:
            if name == field:
                return value
        raise KeyError(f"structure {self.type_name} has no field {field!r}")


@dataclass(frozen=True, slots=True)
class Ctor:
    """A value of a user inductive type: constructor name (e.g. ``Tree.node``) and arguments.
    Core's ``Ordering`` is one too (:data:`ORDERING_LT` …)."""

    name: str
    args: tuple[Any, ...] = ()


ORDERING_LT = Ctor("Ordering.lt")
ORDERING_EQ = Ctor("Ordering.eq")
ORDERING_GT = Ctor("Ordering.gt")
ORDERINGS: tuple[Ctor, Ctor, Ctor] = (ORDERING_LT, ORDERING_EQ, ORDERING_GT)
"""``inductive Ordering | lt | eq | gt deriving Inhabited, DecidableEq, Repr`` (Init/Data/Ord.lean),
in constructor order: its derived ``Inhabited`` default is ``lt`` (the first constructor) and the
core ``Ord Ordering`` compares constructor indices."""


class LeanFunction(Protocol):
    """A function value. Calling it with several arguments applies them in order (currying)."""

    def __call__(self, *args: Any) -> Any: ...


# ---------------------------------------------------------------------------------------------
# Structural equality with Lean's view of floats


def structurally_equal(a: Any, b: Any, same_float: Callable[[float, float], bool]) -> bool:
    """The one structural comparison of runtime values; ``same_float`` decides between two floats.

    Values of different Lean types are never equal (``Nat`` vs ``Int``, ``List`` vs ``Array``: a
    stored value is parsed at the declared type, so a mismatch is a real difference). Containers
    compare element by element, so a float anywhere inside is judged by ``same_float``.
    """
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, float) and isinstance(b, float) and same_float(a, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, Arr)):
        return len(a) == len(b) and all(structurally_equal(x, y, same_float) for x, y in zip(a, b))
    if isinstance(a, Pair):
        return structurally_equal(a.fst, b.fst, same_float) and structurally_equal(a.snd, b.snd, same_float)
    if isinstance(a, Some):
        return structurally_equal(a.value, b.value, same_float)
    if isinstance(a, Struct):
        return (
            a.type_name == b.type_name
            and len(a.fields) == len(b.fields)
            and all(
                n1 == n2 and structurally_equal(v1, v2, same_float)
                for (n1, v1), (n2, v2) in zip(a.fields, b.fields)
            )
        )
    if isinstance(a, Ctor):
        return a.name == b.name and structurally_equal(a.args, b.args, same_float)
    return bool(a == b)


def _same_double(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def values_equal(a: Any, b: Any) -> bool:
    """Structural equality used to compare a computed value with a stored one.

    Floats compare by their bits' meaning rather than IEEE ``==``: a stored ``Float.nan`` equals a
    computed NaN (``#eval`` prints both as ``NaN``), and ``0.0`` differs from ``-0.0`` because Lean
    prints them differently. (Comparing with a value Lean *printed* goes through
    :func:`veriscale.lean.printing.same_as_printed`, the same walk with floats compared as printed.)
    """
    return structurally_equal(a, b, _same_double)


# ---------------------------------------------------------------------------------------------
# Errors raised while computing


class LeanRuntimeError(Exception):
    """Base class of errors raised while evaluating Lean code."""


class Unsupported(LeanRuntimeError):
    """The construct or builtin is outside what the engine implements; names the construct."""

    def __init__(self, construct: str, detail: str = "") -> None:
        self.construct = construct
        self.detail = detail
        super().__init__(f"unsupported: {construct}" + (f" ({detail})" if detail else ""))


class Undecidable(LeanRuntimeError):
    """A proposition that Lean's ``decide`` could not decide (e.g. an unbounded quantifier)."""


class BudgetExceeded(LeanRuntimeError):
    """The step, time or recursion budget of one check ran out."""


class LeanPanic(LeanRuntimeError):
    """A Lean ``panic!`` whose result cannot be replaced by the type's default value."""


# ---------------------------------------------------------------------------------------------
# Type names


_bit_length = int.bit_length


def value_size(value: Any) -> int:
    """How big a runtime value is, deterministically: its elements, characters and fields, and the
    bit length of a number (a loop may run up to it). Used to order work from small to large."""
    if isinstance(value, int):  # bool, Nat and the fixed-width types too
        return 1 + abs(value).bit_length()
    if isinstance(value, str):
        return 1 + len(value)
    if isinstance(value, (tuple, Arr)):
        items = value.view() if type(value) is Arr else value
        try:
            # every item a number (the common case), in C calls: 1 + bit length per item
            return 1 + len(items) + sum(map(_bit_length, map(abs, items)))
        except TypeError:  # an item that is not a number (`abs` of a str, `bit_length` of a float)
            return 1 + sum(map(value_size, items))
    if isinstance(value, Pair):
        return 1 + value_size(value.fst) + value_size(value.snd)
    if isinstance(value, Some):
        return 1 + value_size(value.value)
    if isinstance(value, Struct):
        return 1 + sum(value_size(field) for _, field in value.fields)
    if isinstance(value, Ctor):
        return 1 + sum(value_size(arg) for arg in value.args)
    return 1


_TYPE_NAMES: dict[type, str] = {
    bool: "Bool", Nat: "Nat", UInt8: "UInt8", UInt16: "UInt16", UInt32: "UInt32", UInt64: "UInt64",
    int: "Int", float: "Float", Char: "Char", str: "String", Arr: "Array", tuple: "List", Pair: "Prod",
    Some: "Option", _NoneType: "Option", _UnitType: "Unit",
}

#: representations :data:`_TYPE_NAMES` may learn (classes declaring ``LEAN_TYPE``)
_TYPE_NAMES_LIMIT = 64


def type_name_of(value: Any) -> str:
    """The Lean type head of a runtime value (``Nat``, ``List``, ``Prod`` ...).

    ``bool`` and the integer subclasses are checked before ``int`` because Python's ``bool`` is an
    ``int`` and so are :class:`Nat` and the fixed-width types.
    """
    # the common representations, by exact type (what the isinstance chain below answers for them)
    name = _TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, Nat):
        return "Nat"
    if isinstance(value, _FixedWidth):
        return type(value).__name__
    if isinstance(value, int):
        return "Int"
    if isinstance(value, float):
        return "Float"
    if isinstance(value, Char):
        return "Char"
    if isinstance(value, str):
        return "String"
    if isinstance(value, Arr):
        return "Array"
    if isinstance(value, tuple):
        return "List"
    if isinstance(value, Pair):
        return "Prod"
    if isinstance(value, (Some, _NoneType)):
        return "Option"
    if isinstance(value, _UnitType):
        return "Unit"
    if isinstance(value, Struct):
        return value.type_name
    if isinstance(value, Ctor):
        return value.name.rsplit(".", 1)[0]
    name = getattr(value, "LEAN_TYPE", None)
    if isinstance(name, str):
        if getattr(type(value), "LEAN_TYPE", None) == name and len(_TYPE_NAMES) < _TYPE_NAMES_LIMIT:
            # a name the class declares is every value's, which nothing above matched: by type next time
            _TYPE_NAMES[type(value)] = name
        return name
    if callable(value):
        return "Function"
    raise Unsupported("runtime value", f"unknown representation {type(value).__name__}")
