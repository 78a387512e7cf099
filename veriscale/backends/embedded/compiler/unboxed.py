"""Options matched where they are made: ``match xs[i]?, ys[j]? with | some a, some b => …``.

A recursion over indices reads ``xs[i]?`` and matches it at once; the ``some`` it makes is only
looked into by the match. In generated code (:mod:`.codegen`) such a discriminant is computed
*unboxed*: the element itself when the index is in range, else the sentinel :data:`ABSENT`
(the value of ``none``; no Lean value is it), and the alternatives' tests at that position are
written on it: ``some p`` as ``v is not ABSENT`` and then ``p``'s test on ``v``, ``none`` as
``v is ABSENT``, ``_`` as nothing. That is what the closures compute on the ``some``/``none``
they make, so the values, errors and steps are theirs (making and reading a ``some`` runs no
Lean code and charges no step).

A discriminant is unboxed only when every alternative's pattern at its position is ``some p``
with ``p`` tested in the text, ``none``, ``_`` or a variable (``| o => …``, which binds the
option itself: made again from the unboxed value, in that alternative only). The closures of the match are unchanged (they store and test the ``some``): the
discriminant's slot holds the unboxed value only while generated text runs, and is read by the
match's own tests and nothing else (its name is the match's own, ``_m<line>_<col>_<k>``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from veriscale.backends.embedded.compiler.codegen import CodeGen, InlineTest, some_text
from veriscale.lean.values import NONE, Some


class _Absent:
    """The unboxed ``none``: a sentinel no Lean value is."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()

Closure = Callable[[list[Any]], Any]


def unbox(option: Any) -> Any:
    """An option's value, or :data:`ABSENT` for ``none``."""
    return option.value if option.__class__ is Some else ABSENT


_UNBOXED: weakref.WeakKeyDictionary[Closure, Closure] = weakref.WeakKeyDictionary()
"""For a closure computing an option: a closure computing it unboxed, with its source."""
_SOME_INNER: weakref.WeakKeyDictionary[Callable[..., bool], Callable[..., bool]] = weakref.WeakKeyDictionary()
"""The matcher of ``p`` for each matcher of a pattern ``some p``."""
_NONE_MATCHERS: weakref.WeakSet[Callable[..., bool]] = weakref.WeakSet()
"""The matchers of the pattern ``none``."""


def record_unboxed(gen: CodeGen, closure: Closure, operands: Sequence[Closure],
                   write: Callable[[Sequence[str]], tuple[Sequence[str], str]]) -> Closure:
    """Record that ``closure`` (an option computed from ``operands``) can be computed unboxed by
    the text ``write`` makes from the operands' expressions; returns ``closure``."""
    def run(fr: list[Any]) -> Any:
        return unbox(closure(fr))

    _UNBOXED[closure] = gen.fuse_with(run, operands, write)
    return closure


def unboxed_of(closure: Closure) -> Closure | None:
    """The unboxed form of an option's closure, when it was recorded."""
    return _UNBOXED.get(closure)


def record_some_pattern(matcher: Callable[..., bool], inner: Callable[..., bool]) -> None:
    _SOME_INNER[matcher] = inner


def record_none_pattern(matcher: Callable[..., bool]) -> None:
    _NONE_MATCHERS.add(matcher)


def unboxed_tests(gen: CodeGen, matchers: Sequence[Callable[..., bool]],
                  test_of: Callable[[Callable[..., bool]], Any],
                  anything: Callable[..., bool]) -> list[InlineTest | None] | None:
    """The tests, on the unboxed value, of the patterns whose ``matchers`` are tried on one
    discriminant (``anything``: the matcher of ``_``; ``test_of``: a matcher's test as generated
    code takes it), or ``None`` when one of them needs the option itself."""
    absent = gen.const(ABSENT)
    tests: list[InlineTest | None] = []
    for m in matchers:
        if m is anything:
            tests.append(None)
        elif isinstance(test_of(m), int):
            # a variable binds the option: made again from the unboxed value (in its branch only)
            option = f"({some_text(gen, '{v}')} if {{v}} is not {absent} else {gen.const(NONE)})"
            tests.append(InlineTest("True", [(test_of(m), option)]))
        elif m in _NONE_MATCHERS:
            tests.append(InlineTest(f"{{v}} is {absent}"))
        elif m in _SOME_INNER:
            inner = test_of(_SOME_INNER[m])
            if inner is None:
                tests.append(InlineTest(f"{{v}} is not {absent}"))
            elif isinstance(inner, int):
                tests.append(InlineTest(f"{{v}} is not {absent}", [(inner, "{v}")]))
            elif isinstance(inner, InlineTest):
                tests.append(InlineTest(f"{{v}} is not {absent} and ({inner.cond})", inner.binds))
            else:
                return None  # the inner pattern is tested by its matcher, on a value it is given
        else:
            return None
    return tests


__all__ = ["ABSENT", "record_none_pattern", "record_some_pattern", "record_unboxed", "unbox", "unboxed_of",
           "unboxed_tests"]
