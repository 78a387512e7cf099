"""Higher-order builtins applied to a literal ``fun``, written as loops with the ``fun``'s body
inlined (generated code, :mod:`.codegen`).

``xs.any (fun x => …)`` calls the builtin, which applies the function value once per element:
the builtin's loop, ``Fn.direct`` (a ``functools.partial``) and the ``fun``'s generated function,
one Python call per element and one ``Fn`` made per call. Where the ``fun`` is written at the
call site and its body was generated on Python locals (:class:`.lambdas.LocalFn`), the call is
written instead as a Python ``for`` loop whose iteration does what one application does: charge
the application's step, bind the parameters' frame slots (their ``fun``'s own, fresh slots of the
enclosing definition) and run the body's text. Its captured variables are read from the
enclosing frame, whose slots hold what the ``fun``'s snapshot would hold (Lean values are
immutable; a slot is allocated once per definition, and nothing in the call's other operands
stores into a variable in scope).

Each loop does what its builtin does, in the same order: the elements visited in order (an
``Array``'s as the builtin snapshots them), one step charged per application before the body's
own, ``any``/``all``/``find?`` stopped at the first element that decides, so the values, errors
and step counts (running out of steps included) are the builtin's. The collection's class is
tested exactly (a ``tuple`` for a ``List``, an ``Arr`` for an ``Array``); any other value (the
symbolic list of sublists, :mod:`..builtins.sublists`) goes to the builtin, with the function
value made as before.

``List.foldl``/``Array.foldl`` are memoised (:func:`..memo.memoised_fold`), which needs the
function value (its code and captured values key the table): for them the memo wrapper keeps
its place and its table, and only the fold it calls on a miss is the generated loop
(:func:`fold_function`), run on the function value's snapshot, so hits and steps are unchanged.
That loop updates an ``Array`` accumulator in place where :mod:`.linearity` proves the ``fun``'s
body linear in it: it starts from a copy of ``init`` that its owner holds
(:func:`_own_accumulator`; ``init``, which the memo table may keep, is never changed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from veriscale.backends.embedded.builtins._core import nat_range
from veriscale.backends.embedded.builtins.arrays import _snapshot
from veriscale.backends.embedded.compiler.codegen import Body, CodeGen, Src
from veriscale.backends.embedded.compiler.support import Closure
from veriscale.backends.embedded.runtime_support import Fn
from veriscale.lean.values import NONE, Arr, Nat, Some, owned_copy


class InlineFun:
    """What a builtin's loop needs of a ``fun`` generated on locals: the frame slots of its
    parameters, the source of its body over the frame (without the application's step), the
    budget the application charges, the maker's source (the value for a builtin called
    instead) and the runner of the values it makes."""

    __slots__ = ("params", "body", "budget", "maker", "runner", "acc_owner")

    def __init__(self, params: Sequence[int], body: Src, budget: Any, maker: Src, runner: Any,
                 acc_owner: str | None = None) -> None:
        self.params = tuple(params)
        self.body = body
        self.budget = budget
        self.maker = maker
        self.runner = runner
        self.acc_owner = acc_owner
        """The owner of the chain of the first parameter when the ``fun`` is a fold's whose
        accumulator the proof of :mod:`.linearity` lets its loop update in place."""


_INLINE_ATTR = "_veriscale_inline_fun"


def note_inline(maker: Closure, fun: InlineFun) -> None:
    """Record on ``maker`` (the closure making a ``fun``'s value) what inlining it needs."""
    if _inlinable(fun.body):
        setattr(maker, _INLINE_ATTR, fun)


def inline_fun(c: Closure) -> InlineFun | None:
    """The ``fun`` that the operand ``c`` makes, when it may be inlined."""
    return getattr(c, _INLINE_ATTR, None)


def _inlinable(body: Src) -> bool:
    """A body whose text can run as a loop's iteration: no statement of its own that leaves an
    enclosing loop (a tail call's jump, a ``break``/``continue`` outside its own loops)."""
    for line in body.stmts:
        if line[:1] != " " and line.split(" ", 1)[0] in ("break", "continue", "return"):
            return False
    return True


# -- the shapes ---------------------------------------------------------------------------------
#: builtin name → (how the loop uses each application, the collection's class, the fun's
#: operand index, the collection's operand index, the number of operands, the fun's arity)
_SHAPES: dict[str, tuple[str, type, int, int, int, int]] = {
    "List.any": ("any", tuple, 1, 0, 2, 1),
    "List.all": ("all", tuple, 1, 0, 2, 1),
    "Array.any": ("any", Arr, 1, 0, 2, 1),
    "Array.all": ("all", Arr, 1, 0, 2, 1),
    "List.find?": ("find", tuple, 0, 1, 2, 1),
    "Array.find?": ("find", Arr, 0, 1, 2, 1),
    "List.map": ("map", tuple, 0, 1, 2, 1),
    "Array.map": ("map", Arr, 0, 1, 2, 1),
    "List.filter": ("filter", tuple, 0, 1, 2, 1),
    "Array.filter": ("filter", Arr, 0, 1, 2, 1),
    "List.countP": ("count", tuple, 0, 1, 2, 1),
    "Array.countP": ("count", Arr, 0, 1, 2, 1),
    "List.mapIdx": ("map_idx", tuple, 0, 1, 2, 2),
    "Array.mapIdx": ("map_idx", Arr, 0, 1, 2, 2),
}


def fuse_loop(gen: CodeGen, closure: Closure, name: str, operands: Sequence[Closure], builtin: Any) -> Closure | None:
    """``closure`` (the call of the builtin ``name`` on ``operands``, the function ``builtin``)
    with the source of its loop attached, when the builtin has one and its function operand is
    a ``fun`` that may be inlined; else ``None``."""
    shape = _SHAPES.get(name)
    if shape is None or not gen.enabled:
        return None
    kind, cls, fun_at, coll_at, nargs, arity = shape
    if len(operands) != nargs:
        return None
    fun = inline_fun(operands[fun_at])
    if fun is None or len(fun.params) != arity:
        return None
    # the other operands, in order; the function value is made (without steps, from slots that
    # nothing here stores into) only where the builtin is called instead
    others = [c for i, c in enumerate(operands) if i != fun_at]
    stmts, exprs = gen.sequence(others)
    coll = gen.temp()
    stmts.append(f"{coll} = {exprs[coll_at - (1 if fun_at < coll_at else 0)]}")
    args = [fun.maker.expr if i == fun_at else coll for i in range(nargs)]
    fallback = f"{gen.const(builtin)}({', '.join(args)})"
    result = gen.temp()
    loop = _loop(gen, fun, kind, cls, coll, result)
    lines = [*stmts, f"if {coll}.__class__ is {gen.const(cls)}:", *_indent(loop),
             "else:", f"    {result} = {fallback}"]
    return gen.attach(closure, Src(result, lines))


def _loop(gen: CodeGen, fun: InlineFun, kind: str, cls: type, coll: str, result: str) -> list[str]:
    """The statements computing ``result`` from the collection ``coll`` (of class ``cls``)."""
    items = coll if cls is tuple else f"{gen.const(_snapshot)}({coll})"
    x = gen.temp()
    body = fun.body
    if kind == "map_idx":
        # `map f (nat_range 0 n) xs`, as the builtin: the index first, a `Nat`
        i, snap = gen.temp(), gen.temp()
        indices = f"{gen.const(nat_range)}(0, {gen.const(len)}({snap}))"
        head = [f"{snap} = {items}", f"{result} = []", f"for {i}, {x} in {gen.const(zip)}({indices}, {snap}):"]
        binds = [f"fr[{fun.params[0]}] = {i}", f"fr[{fun.params[1]}] = {x}"]
    else:
        start = {"any": "False", "all": "True", "find": gen.const(NONE), "count": "0"}.get(kind, "[]")
        head = [f"{result} = {start}", f"for {x} in {items}:"]
        binds = [f"fr[{fun.params[0]}] = {x}"]
    v = body.expr
    use = {
        "any": [f"if {v}:", f"    {result} = True", "    break"],
        "all": [f"if not ({v}):", f"    {result} = False", "    break"],
        "find": [f"if {v}:", f"    {result} = {gen.const(Some)}({x})", "    break"],
        "map": [f"{result}.append({v})"],
        "map_idx": [f"{result}.append({v})"],
        "filter": [f"if {v}:", f"    {result}.append({x})"],
        "count": [f"if {v}:", f"    {result} += 1"],
    }[kind]
    lines = [*head, *_indent([*_tick(gen, fun.budget), *binds, *body.stmts, *use])]
    if kind in ("map", "map_idx"):
        # List: `tuple(map(…))`; Array: `Arr(map(…))`
        lines.append(f"{result} = {gen.const(tuple if cls is tuple else Arr)}({result})")
    elif kind == "filter":
        # List: `tuple(filter(…))`; Array: `Arr.of_list([…])`
        make = gen.const(tuple) if cls is tuple else gen.const(Arr.of_list)
        lines.append(f"{result} = {make}({result})")
    elif kind == "count":
        lines.append(f"{result} = {gen.const(Nat)}({result})")
    return lines


# -- memoised folds -----------------------------------------------------------------------------
def fold_function(gen: CodeGen, name: str, operands: Sequence[Closure], builtin: Callable[..., Any]) -> Callable[..., Any] | None:
    """``builtin`` (``List.foldl``/``Array.foldl`` of ``f init xs``) with its loop generated
    for the ``fun`` the first operand makes, for the memo wrapper to call on a miss: applied to
    a function value that ``fun`` made and a collection of the builtin's class, the loop runs on
    the value's snapshot; anything else is the builtin's. ``None`` when the ``fun`` cannot be
    inlined."""
    cls = {"List.foldl": tuple, "Array.foldl": Arr}.get(name)
    if cls is None or len(operands) != 3 or not gen.enabled:
        return None
    fun = inline_fun(operands[0])
    if fun is None or len(fun.params) != 2:
        return None
    loop = _fold_loop(gen, fun)
    if loop is None:
        return None
    runner = fun.runner
    fn_class = Fn
    if cls is tuple:
        def fold(f: Any, init: Any, xs: Any) -> Any:
            if f.__class__ is fn_class and f.run is runner and xs.__class__ is tuple:
                return loop(f.env, init, xs)
            return builtin(f, init, xs)
    else:
        def fold(f: Any, init: Any, xs: Any) -> Any:
            if f.__class__ is fn_class and f.run is runner and xs.__class__ is Arr:
                return loop(f.env, init, _snapshot(xs))
            return builtin(f, init, xs)
    return fold


def _fold_loop(gen: CodeGen, fun: InlineFun) -> Callable[..., Any] | None:
    """The generated ``loop(env, init, items)``: the fold of the ``fun`` over ``items`` from
    ``init`` on the captured frame ``env``, on Python locals (``None`` where it would not be).

    Its two parameters are the ``fun``'s own slots, which hold ``init`` and ``items`` on entry
    until the first iteration binds them (an on-locals body takes its arguments in its
    parameters' slots, and slots below the ``fun``'s would be the enclosing frame's)."""
    acc_slot, x_slot = fun.params
    acc, items, x = gen.temp(), gen.temp(), gen.temp()
    body = fun.body
    lines = [f"{acc} = fr[{acc_slot}]", f"{items} = fr[{x_slot}]"]
    if fun.acc_owner is not None:
        lines.extend(_own_accumulator(gen, acc, items, fun.acc_owner))
    lines.extend([f"for {x} in {items}:",
                  *_indent([*_tick(gen, fun.budget), f"fr[{acc_slot}] = {acc}", f"fr[{x_slot}] = {x}", *body.stmts,
                            f"{acc} = {body.expr}"])])

    def unused(fr: list[Any]) -> Any:  # pragma: no cover - only its source is compiled
        raise AssertionError("a fold's loop runs as generated code only")

    generated = gen.body(gen.attach(unused, Src(acc, lines)), fun.params, env=True)
    return generated.fn if generated.kind == Body.LOCALS else None


#: an accumulator is copied for its fold's loop to own when it has at most this many elements
#: per element folded over: the copy then costs less than a small part of the loop's turns
OWN_COPY_RATIO = 32


def _own_accumulator(gen: CodeGen, acc: str, items: str, owner: str) -> list[str]:
    """The loop's start taking its accumulator ``acc`` (an ``Array``) as its own: a copy, which
    its owner ``owner`` holds, so every update of the accumulator's chain is done in place.

    Why in place is then sound: the copy is a new root that nothing but this loop refers to
    (the caller's ``init``, which the memo wrapper may keep, is left as it was), and the proof
    of the ``fun``'s body (:meth:`.linearity.LinearityMixin.fold_fun_owner`) is that of a loop
    whose turn's result flows into the accumulator, a linear chain variable: each version the
    chain makes is dead once the next update of the chain has run, or is the fold's result,
    which the loop returns and never touches again. Without the copy the chain's first update
    would update ``init`` persistently (a copy only when ``init`` is frozen), and every later
    one too when it is not. The copy is bounded by the loop's own length
    (:data:`OWN_COPY_RATIO`), so no fold gets asymptotically slower; steps are not charged
    for it (nothing Lean does)."""
    arr, size, copy = gen.const(Arr), gen.const(len), gen.const(owned_copy)
    return [f"if {acc}.__class__ is {arr} and {acc}._len <= {OWN_COPY_RATIO} * {size}({items}):",
            f"    {acc} = {owner} = {copy}({acc})"]


def _tick(gen: CodeGen, budget: Any) -> list[str]:
    """One step charged to ``budget``, as an application charges it."""
    k = gen.const(budget)
    return [f"{k}.tick -= 1", f"if {k}.tick < 0:", f"    {k}.refill()"]


def _indent(lines: Sequence[str]) -> list[str]:
    return ["    " + line for line in lines]


__all__ = ["InlineFun", "fold_function", "fuse_loop", "inline_fun", "note_inline"]
