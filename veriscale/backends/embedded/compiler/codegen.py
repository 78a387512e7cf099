"""Typed code generation: compiled terms fused into straight-line Python source.

Every term compiles to a closure ``f(frame) -> value`` (:mod:`.core`). Where a construct's closure
is simple enough to be written as Python text over its operands, the construct also attaches that
text to the closure (:meth:`CodeGen.attach`): a :class:`Src`, an expression over the frame ``fr``
with the statements that must run before it. A parent whose own closure has a source combines its
operands' sources into one; an operand without a source enters the text as a call of its closure
(``_k3(fr)``). Where a function body begins (a definition's body, a ``fun``, a loop's body), the
body's source is compiled once, by Python's ``compile``, into one function
(:meth:`CodeGen.function`), which runs in place of the tree of closures: one Python frame instead
of one call per node, and the frame's slots read and written inline.

The source of a construct does what its closure does, in the same order, calling the same
run-time functions (operator tables, builtins, user definitions' entry points, which charge the
steps), so values, errors and step counts are the closures' own; a test runs both on the same
checks (``tests/backends/embedded/test_embedded_codegen.py``).

The generated text is built from the compiler's own strings only: frame slots and temporaries are
numbers the compiler allocated, every value (literals included) and every function enters as a
constant named ``_k<n>`` in the namespace the code runs in, which has no builtins. Nothing of the
submitted text reaches the source, not even a name.

A self-call in tail position (:meth:`CodeGen.tail_call`) is written as a jump: the function
whose body holds it runs that body in a ``while True:`` loop, and the call stores its arguments
in the parameters' slots, charges the step the call costs and ``continue``-s. Its closure still
returns a :class:`..runtime_support.TailCall` for the function's runner to loop on, which is what
happens wherever the call's source is not part of its function's generated body (a construct
without source in between).

A function body whose text uses the frame only through its own slot reads and stores (no
closure or matcher called on ``fr``) is generated on Python locals (:meth:`CodeGen.body`): its
slots become local variables, a definition takes its arguments positionally, and a ``fun``
reads its captured variables from the snapshot it was made with (never written: Lean values are
immutable, so capture by value is the snapshot), instead of copying it on each application.

Such a ``fun`` is also *made* from generated text (:class:`.lambdas.LocalFn`): its snapshot is
a list of only the slots it can read (its captured variables; a ``let rec`` group's functions,
stored into every snapshot of the group once all are made), so the body making it needs no
frame either; and where the compiler knows which ``fun`` a local variable holds, an application
calls its generated function on the value's snapshot, after checking at run time that the
value is one that ``fun`` made (else it is applied as any function value). A ``do`` block's
``return`` is a ``raise`` caught by a ``try`` written around the block's text
(:meth:`CodeGen.catching`), so a block called from a loop joins the loop's function.

A call of a user definition with all its arguments calls its *entry*
(:meth:`.core.Compiler.def_entry`: its body generated on locals, or the body on a frame built
for it) after charging the call's step in the text, in place of its ``run`` (one Python call per
call instead of two), a recursive one too; a memoised definition is called through its memo
table. Inside a ``let rec`` group, the group's own names applied (self-calls outside tail
position, siblings' calls) call the functions generated for them through a holder the group
fills once compiled (:class:`.lambdas.PendingLocalFn`), one Python call instead of three. A
recursion then nests one Python frame per call; where Python's recursion limit stops it does not
depend on the path that evaluates the check (``backend._pin_frames``). ``++``, ``∈``, ascriptions,
constructor applications and patterns made of sub-patterns (``some (a, b)``, ``[x]``,
``x :: y :: t``, numerals, ``n + 1``, constructors with arguments, ``let (a, b) := …``,
``fun (i, v) => …``) are text too, so the bodies holding them run on locals.

A ``let rec`` group whose names are only ever applied to all their arguments (and not read as
values, :func:`.lambdas.only_applied`) makes no function value: its names hold the group's
environment, a list of only the slots its bodies read, and an application calls the function
generated for it on that list (``_k7(env, a, b)``), through a constant defined once the group is
compiled (:meth:`CodeGen.forward`): lambda lifting, with the captured variables passed as one
list. ``some v`` is made in the text (:func:`some_text`), as :func:`..values.some` makes it.

A higher-order builtin applied to a ``fun`` written at the call site (``xs.any (fun x => …)``,
``all``, ``find?``, ``map``, ``filter``, ``countP``, ``mapIdx``) is a Python ``for`` loop with the
``fun``'s body inlined, one step charged per iteration as per application; a memoised ``foldl``
keeps its memo wrapper, which runs a loop generated for the ``fun`` on a miss (:mod:`.loops`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from veriscale.lean.values import SOME_PARTS, Some

Closure = Callable[[list[Any]], Any]

_SRC_ATTR = "_veriscale_src"
#: statements of a combined source past which no further function is generated (a pathological
#: term: Python's compiler copes, but the gain of one frame is lost in compile time)
MAX_LINES = 2_000
#: how a tail call's jump statement begins; the rest of the line names its function's loop
_TAIL_JUMP = "continue  # tail "
#: an operand's expression that neither runs Lean code nor can fail, nor changes when a step is
#: charged: a temporary, a constant, a frame slot (kept in place where the operands after it are
#: computed into temporaries first)
INERT = re.compile(r"_t\d+|_k\d+|fr\[\d+\]")


def _undefined(*args: Any) -> Any:
    """What a :meth:`CodeGen.forward` constant holds until it is defined (never called: a
    ``let rec`` group's functions run only once the group is compiled and made)."""
    raise AssertionError("a forward constant called before its definition")


class Src:
    """Python text computing a term: ``stmts`` (lines, run first, in order), then ``expr``.

    ``fused`` is false for the source that only calls a closure (nothing to gain by compiling it);
    ``simple`` marks an expression that neither runs Lean code nor can fail (a constant, a frame
    read), which may be evaluated out of order (see :meth:`CodeGen.sequence`)."""

    __slots__ = ("stmts", "expr", "fused", "simple")

    def __init__(self, expr: str, stmts: Sequence[str] = (), fused: bool = True, simple: bool = False) -> None:
        self.stmts = tuple(stmts)
        self.expr = expr
        self.fused = fused
        self.simple = simple


class InlineTest:
    """A pattern's test written as Python text: ``cond`` over the matched value ``{v}`` (it runs
    no Lean code and cannot fail), then, when it holds, the frame stores ``binds`` (slot, value
    text over ``{v}``). Equal to its matcher ``m(v, fr)``, which binds the same slots only when
    it matches; names in the text are the code generator's constants."""

    __slots__ = ("cond", "binds")

    def __init__(self, cond: str, binds: Sequence[tuple[int, str]] = ()) -> None:
        self.cond = cond
        self.binds = tuple(binds)


class CodeGen:
    """The constants, temporaries and generated functions of one compiler (one task)."""

    def __init__(self) -> None:
        # no builtins: the generated code calls only what it was given as a constant
        self.namespace: dict[str, Any] = {"__builtins__": {}}
        self._names: dict[int, str] = {}
        self._count = 0
        self.functions = 0
        """How many functions were generated (for tests and benchmarks)."""
        self.sources: list[str] = []
        """The text of each generated function (for tests and for reading what was generated)."""
        self.enabled = True
        """Off: :meth:`function` returns closures unchanged (the closure-only path, for tests)."""

    # -- names --------------------------------------------------------------------------------
    def const(self, value: Any) -> str:
        """The name under which ``value`` is visible to generated code (one per object)."""
        name = self._names.get(id(value))
        if name is None or self.namespace.get(name) is not value:
            self._count += 1
            name = f"_k{self._count}"
            self.namespace[name] = value
            self._names[id(value)] = name
        return name

    def forward(self) -> str:
        """A constant's name whose value :meth:`define` gives later: a function that text
        generated before it was compiled calls (a ``let rec`` group's own calls). Generated
        code reads its constants when it runs, so it sees the value once given."""
        self._count += 1
        name = f"_k{self._count}"
        self.namespace[name] = _undefined
        return name

    def define(self, name: str, value: Any) -> None:
        """Give the constant :meth:`forward` named ``name`` its value."""
        assert self.namespace.get(name) is _undefined
        self.namespace[name] = value

    def temp(self) -> str:
        """A fresh local variable of a generated function."""
        self._count += 1
        return f"_t{self._count}"

    def owner(self) -> str:
        """A fresh owner variable of a generated function (:mod:`.linearity`): ``None`` on entry."""
        self._count += 1
        return f"_o{self._count}"

    def into_temps(self, exprs: Sequence[str]) -> tuple[list[str], list[str]]:
        """Statements computing each of ``exprs`` that is not :data:`INERT` into a temporary, in
        order, and the operands to use instead: a call written with them evaluates its arguments
        before the step it charges, and nests without repeating their text."""
        stmts: list[str] = []
        operands: list[str] = []
        for e in exprs:
            if INERT.fullmatch(e):
                operands.append(e)
            else:
                t = self.temp()
                stmts.append(f"{t} = {e}")
                operands.append(t)
        return stmts, operands

    # -- sources ------------------------------------------------------------------------------
    def attach(self, closure: Closure, src: Src) -> Closure:
        """``closure`` with ``src`` recorded as its source; returns ``closure``."""
        setattr(closure, _SRC_ATTR, src)
        return closure

    def src(self, closure: Closure) -> Src:
        """The source of ``closure``: its own, or a call of it."""
        src = getattr(closure, _SRC_ATTR, None)
        if src is not None:
            return src  # type: ignore[no-any-return]
        return Src(f"{self.const(closure)}(fr)", fused=False)

    def sequence(self, closures: Sequence[Closure]) -> tuple[list[str], list[str]]:
        """The statements and expressions evaluating ``closures`` left to right, as the closures'
        caller does: an operand's statements run after the operands before it, which are first
        kept in temporaries (unless simple)."""
        srcs = [self.src(c) for c in closures]
        stmts: list[str] = []
        exprs: list[str] = []
        for s in srcs:
            if s.stmts:
                for i, e in enumerate(exprs):
                    if not _is_simple(e, srcs[i]):
                        t = self.temp()
                        stmts.append(f"{t} = {e}")
                        exprs[i] = t
                stmts.extend(s.stmts)
            exprs.append(s.expr)
        return stmts, exprs

    def fuse(self, closure: Closure, template: str, operands: Sequence[Closure], simple: bool = False) -> Closure:
        """Attach to ``closure`` the source ``template`` with ``{0}``, ``{1}``, … standing for the
        operands' expressions (each used exactly once, left to right)."""
        stmts, exprs = self.sequence(operands)
        return self.attach(closure, Src(template.format(*exprs), stmts, simple=simple))

    def fuse_with(self, closure: Closure, operands: Sequence[Closure],
                  build: Callable[[Sequence[str]], tuple[Sequence[str], str]]) -> Closure:
        """Attach to ``closure`` the source ``build`` writes from the operands' expressions: its
        statements (run after the operands' own) and its expression."""
        stmts, exprs = self.sequence(operands)
        more, expr = build(exprs)
        return self.attach(closure, Src(expr, [*stmts, *more]))

    def constant(self, closure: Closure, value: Any) -> Closure:
        """Attach to ``closure`` (which returns ``value``) the source reading the constant."""
        return self.attach(closure, Src(self.const(value), simple=True))

    def slot(self, closure: Closure, slot: int) -> Closure:
        """Attach to ``closure`` (which reads frame slot ``slot``) the source of that read (not
        *simple*: a later operand's statements might write the slot)."""
        return self.attach(closure, Src(f"fr[{int(slot)}]"))

    def choice(self, closure: Closure, cond: Closure, then: Closure, els: Closure) -> Closure:
        """``then if cond else els``, evaluating only the branch taken."""
        cs, ts, es = self.src(cond), self.src(then), self.src(els)
        if not ts.stmts and not es.stmts:
            return self.attach(closure, Src(f"({ts.expr} if {cs.expr} else {es.expr})", cs.stmts))
        t = self.temp()
        lines = [*cs.stmts, f"if {cs.expr}:", *_indent(ts.stmts), f"    {t} = {ts.expr}", "else:",
                 *_indent(es.stmts), f"    {t} = {es.expr}"]
        return self.attach(closure, Src(t, lines))

    def short_circuit(self, closure: Closure, op: str, a: Closure, b: Closure) -> Closure:
        """``a and b`` / ``a or b`` (``op``), ``b`` evaluated only when Python's operator would."""
        sa, sb = self.src(a), self.src(b)
        if not sb.stmts:
            return self.attach(closure, Src(f"({sa.expr} {op} {sb.expr})", sa.stmts))
        t = self.temp()
        test = t if op == "and" else f"not {t}"
        lines = [*sa.stmts, f"{t} = {sa.expr}", f"if {test}:", *_indent(sb.stmts), f"    {t} = {sb.expr}"]
        return self.attach(closure, Src(t, lines))

    def then(self, closure: Closure, first: Closure, rest: Closure) -> Closure:
        """``first`` run for its effect (its value dropped), then ``rest`` for the value."""
        sf, sr = self.src(first), self.src(rest)
        lines = [*sf.stmts]
        if not sf.simple:
            lines.append(sf.expr)
        lines.extend(sr.stmts)
        return self.attach(closure, Src(sr.expr, lines))

    def store(self, closure: Closure, slot: int, value: Closure, result: str = "None") -> Closure:
        """A statement storing ``value`` in frame slot ``slot``; the closure returns ``result``
        (a constant's name, or ``None``)."""
        sv = self.src(value)
        return self.attach(closure, Src(result, [*sv.stmts, f"fr[{int(slot)}] = {sv.expr}"], simple=True))

    def match(self, closure: Closure, value: Closure,
              alts: Sequence[tuple[int | InlineTest | Closure | None, Closure]], fail: Callable[[], Any]) -> Closure:
        """A ``match`` on the one value ``value``: the alternatives ``(test, rhs)`` tried in order,
        where ``test`` is a matcher ``m(v, fr) -> bool`` (which binds its variables), its text
        (:class:`InlineTest`), a frame slot (a variable pattern: binds and always matches) or
        ``None`` (``_``: always matches); when none matches, ``fail()`` raises."""
        sv = self.src(value)
        v, result = self.temp(), self.temp()
        lines = [*sv.stmts, f"{v} = {sv.expr}"]
        keyword = "if"
        for test, rhs in alts:
            sr = self.src(rhs)
            binds: list[str] = []
            if test is None or isinstance(test, int):
                if isinstance(test, int):
                    binds.append(f"fr[{int(test)}] = {v}")
                body = [*binds, *sr.stmts, f"{result} = {sr.expr}"]
                if keyword == "if":  # the first alternative always matches
                    lines.extend(body)
                else:
                    lines.extend(["else:", *_indent(body)])
                return self.attach(closure, Src(result, lines))
            if isinstance(test, InlineTest):
                lines.append(f"{keyword} {test.cond.format(v=v)}:")
                binds = [f"fr[{int(slot)}] = {text.format(v=v)}" for slot, text in test.binds]
            else:
                lines.append(f"{keyword} {self.const(test)}({v}, fr):")
            lines.extend(_indent([*binds, *sr.stmts, f"{result} = {sr.expr}"]))
            keyword = "elif"
        lines.extend(["else:", f"    {self.const(fail)}()"])
        return self.attach(closure, Src(result, lines))

    def destructure(self, closure: Closure, value: Closure | None, slot: int | None, test: InlineTest,
                    fail: Callable[[], Any]) -> Closure:
        """An irrefutable-looking pattern binding (``let (a, b) := v``, a ``fun (a, b) => …``
        parameter): the value (``value``'s, or frame slot ``slot``'s), tested by ``test``, whose
        variables are then stored; when the test fails, ``fail()`` raises. ``closure`` does the
        same and returns ``None``."""
        lines: list[str] = []
        if value is not None:
            sv = self.src(value)
            lines.extend(sv.stmts)
            expr = sv.expr
        else:
            expr = f"fr[{int(slot)}]" if slot is not None else "None"
        v = self.temp()
        lines.extend([f"{v} = {expr}", f"if not ({test.cond.format(v=v)}):", f"    {self.const(fail)}()"])
        lines.extend(f"fr[{int(s)}] = {text.format(v=v)}" for s, text in test.binds)
        return self.attach(closure, Src("None", lines, simple=True))

    def match_many(self, closure: Closure, values: Sequence[Closure],
                   alts: Sequence[tuple[Sequence[int | InlineTest | Closure | None], Closure]],
                   fail: Callable[[], Any]) -> Closure:
        """A ``match`` on several values ``values`` (evaluated left to right, once): the
        alternatives ``(tests, rhs)`` tried in order, each test of one value as in :meth:`match`;
        an alternative's tests run left to right and stop at the first that fails, its
        variables are bound once they all pass."""
        stmts, exprs = self.sequence(values)
        lines = [*stmts]
        vs = []
        for e in exprs:
            v = self.temp()
            lines.append(f"{v} = {e}")
            vs.append(v)
        result = self.temp()
        keyword = "if"
        for tests, rhs in alts:
            conds: list[str] = []
            binds: list[str] = []
            for test, v in zip(tests, vs):
                if test is None:
                    continue
                if isinstance(test, int):
                    binds.append(f"fr[{int(test)}] = {v}")
                elif isinstance(test, InlineTest):
                    conds.append(f"({test.cond.format(v=v)})")
                    binds.extend(f"fr[{int(slot)}] = {text.format(v=v)}" for slot, text in test.binds)
                else:
                    conds.append(f"{self.const(test)}({v}, fr)")
            sr = self.src(rhs)
            body = [*binds, *sr.stmts, f"{result} = {sr.expr}"]
            if not conds:  # always matches: the alternatives after it are never tried
                lines.extend(body if keyword == "if" else ["else:", *_indent(body)])
                return self.attach(closure, Src(result, lines))
            lines.append(f"{keyword} {' and '.join(conds)}:")
            lines.extend(_indent(body))
            keyword = "elif"
        lines.extend(["else:", f"    {self.const(fail)}()"])
        return self.attach(closure, Src(result, lines))

    def for_loop(self, closure: Closure, coll: Closure, iterate: Callable[[Any], Any], budget: Any,
                 bind: int | Callable[..., Any], body: Closure, stops: tuple[type, type], done: Any) -> Closure:
        """A ``for`` loop of a ``do`` block: over ``iterate(collection)``, one step charged to
        ``budget`` per iteration before its element is bound (to a frame slot, or by a matcher
        ``m(x, fr)``), then ``body``, ended early or resumed by the exceptions ``stops`` (break,
        continue); its value is ``done``."""
        sc, sb = self.src(coll), self.src(body)
        if _tail_loops(sb.stmts):
            return closure  # (never by construction) a jump out of the body would continue this loop
        x, b, result = self.temp(), self.temp(), self.temp()
        binding = f"fr[{bind}] = {x}" if isinstance(bind, int) else f"{self.const(bind)}({x}, fr)"
        run_body = [*sb.stmts] + ([] if sb.simple else [sb.expr])
        lines = [*sc.stmts, f"{b} = {self.const(budget)}",
                 f"for {x} in {self.const(iterate)}({sc.expr}):",
                 f"    {b}.tick -= 1", f"    if {b}.tick < 0:", f"        {b}.refill()", f"    {binding}",
                 "    try:", *_indent(_indent(run_body or ["pass"])),
                 f"    except {self.const(stops[0])}:", "        break",
                 f"    except {self.const(stops[1])}:", "        continue",
                 f"{result} = {self.const(done)}"]
        return self.attach(closure, Src(result, lines))

    def raising(self, closure: Closure, exc: type, value: Closure | None = None) -> Closure:
        """A statement raising ``exc()``, or ``exc(v)`` of ``value``'s value (a ``do`` block's
        ``return``, ``break``, ``continue``), as ``closure`` does."""
        if value is None:
            return self.attach(closure, Src("None", [f"raise {self.const(exc)}()"], simple=True))
        sv = self.src(value)
        return self.attach(closure, Src("None", [*sv.stmts, f"raise {self.const(exc)}({sv.expr})"], simple=True))

    def catching(self, closure: Closure, body: Closure, exc: type) -> Closure:
        """``body``'s value, or the ``value`` of an ``exc`` it raises (a ``do`` block's
        ``return``), as ``closure`` does; ``closure`` alone when ``body`` has no source of its
        own or jumps to a loop (a jump out of a ``try`` is not what the closure does)."""
        sb = self.src(body)
        if not sb.fused or _tail_loops(sb.stmts):
            return closure
        t, e = self.temp(), self.temp()
        lines = ["try:", *_indent([*sb.stmts, f"{t} = {sb.expr}"]),
                 f"except {self.const(exc)} as {e}:", f"    {t} = {e}.value"]
        return self.attach(closure, Src(t, lines))

    def tail_call(self, closure: Closure, operands: Sequence[Closure], loop: str, slots: Sequence[int],
                  budget: Any) -> Closure:
        """A self-call in tail position of the function whose loop is named ``loop`` (see
        :meth:`loop_name`), whose parameters are the frame slots ``slots``: the arguments
        evaluated left to right, then stored in those slots, one step charged to ``budget``,
        and the body run again (``closure`` returns the pending call instead)."""
        stmts, exprs = self.sequence(operands)
        targets = ", ".join(f"fr[{int(s)}]" for s in slots)
        values = ", ".join(exprs)
        k = self.const(budget)
        # every argument is evaluated before any parameter changes (a tuple assignment)
        lines = [*stmts, f"{targets} = {values}",
                 f"{k}.tick -= 1", f"if {k}.tick < 0:", f"    {k}.refill()", _TAIL_JUMP + loop]
        return self.attach(closure, Src("None", lines, simple=True))

    def loop_name(self) -> str:
        """A fresh name for the loop of one function's self tail calls."""
        self._count += 1
        return f"L{self._count}"

    # -- functions ----------------------------------------------------------------------------
    def function(self, closure: Closure, loop: str | None = None) -> Closure:
        """A generated function computing what ``closure`` computes, when its source has something
        fused; else ``closure`` itself. The function carries the same source (a parent may fuse
        it again).

        ``loop`` names the loop of the function's own self tail calls (:meth:`tail_call`): a body
        holding one runs in ``while True:``. A source with a jump to any other loop is not
        compiled here (its closures return the pending call instead)."""
        src = self._generable(closure, loop)
        if src is None:
            return closure
        fn: Closure = self._define("fr", _body_lines(src, loop is not None and bool(_tail_loops(src.stmts))))
        return self.attach(fn, src)

    def body(self, closure: Closure, params: Sequence[int], loop: str | None = None, env: bool = False,
             budget: Any = None, finish: Callable[[Any], Any] | None = None) -> Body:
        """The generated function of a function body whose parameters are the frame slots
        ``params``, run on a frame of its own (a definition's, or a copy of a ``fun``'s
        captured frame ``env``): on Python locals when nothing in it reads the frame but the
        generated text itself, else on the frame (see :class:`Body`).

        ``loop`` is as for :meth:`function`; ``finish`` is applied to the value returned (not to
        a pending tail call's); ``budget``: on locals, the function charges it one step on entry
        (a ``fun``'s application)."""
        src = self._generable(closure, loop)
        if src is None:
            return Body(closure, Body.CLOSURE)
        loops = loop is not None and bool(_tail_loops(src.stmts))
        if finish is not None:
            src = Src(f"{self.const(finish)}({src.expr})", src.stmts)
        lines = _body_lines(src, loops)
        on_locals = _on_locals(lines, params, env)
        if on_locals is None:
            return Body(self._define("fr", lines), Body.FRAME)
        renamed, captured = on_locals
        if budget is not None:
            k = self.const(budget)
            renamed = [f"{k}.tick -= 1", f"if {k}.tick < 0:", f"    {k}.refill()", *renamed]
        args = ", ".join([*(["env"] if env else []), *(f"_v{int(s)}" for s in params)])
        return Body(self._define(args, renamed), Body.LOCALS, captured)

    def _generable(self, closure: Closure, loop: str | None) -> Src | None:
        """The source of ``closure`` when a function is worth generating from it."""
        src = getattr(closure, _SRC_ATTR, None)
        if not self.enabled or src is None or not src.fused or len(src.stmts) > MAX_LINES:
            return None
        if _tail_loops(src.stmts) - {loop}:
            return None
        return src  # type: ignore[no-any-return]

    def _define(self, params: str, lines: Sequence[str]) -> Any:
        self._count += 1
        name = f"_f{self._count}"
        text = "\n".join([f"def {name}({params}):", *_indent(lines)])
        code = compile(text, f"<veriscale generated {name}>", "exec")
        scope: dict[str, Any] = {}
        exec(code, self.namespace, scope)  # noqa: S102 - our own text over our own constants (module docstring)
        self.functions += 1
        self.sources.append(text)
        return scope[name]


class Body:
    """A function body as :meth:`CodeGen.body` made it: ``fn`` and how it is called (``kind``):
    :attr:`CLOSURE` (not generated) and :attr:`FRAME`, ``fn(frame)``; :attr:`LOCALS`,
    ``fn(*args)``, or ``fn(env, *args)`` for a ``fun`` (its captured frame, read, never written),
    charging the application's step itself when asked to. Only a generated body has ``finish``
    applied. ``captured``: on locals, the slots of ``env`` the body reads (no other is read)."""

    CLOSURE, FRAME, LOCALS = "closure", "frame", "locals"
    __slots__ = ("fn", "kind", "captured")

    def __init__(self, fn: Callable[..., Any], kind: str, captured: frozenset[int] = frozenset()) -> None:
        self.fn = fn
        self.kind = kind
        self.captured = captured


#: a frame slot in generated text; what is left of ``fr`` when they are taken out
_SLOT = re.compile(r"\bfr\[(\d+)\]")
_FRAME = re.compile(r"\bfr\b")
#: a statement storing into frame slots (``fr[3] = …``, ``fr[3], fr[4] = …``)
_STORE = re.compile(r"^\s*((?:fr\[\d+\], )*fr\[\d+\]) = ")


#: an owner variable in generated text (:meth:`CodeGen.owner`)
_OWNER = re.compile(r"\b_o\d+\b")


def _body_lines(src: Src, loops: bool) -> list[str]:
    lines = [*src.stmts, f"return {src.expr}"]
    # owners start empty once per call of the function (not per turn of its loop): what one
    # holds was made by this call (.linearity)
    owners = sorted(set(_OWNER.findall("\n".join(src.stmts))))
    start = [f"{o} = None" for o in owners]
    return [*start, "while True:", *_indent(lines)] if loops else [*start, *lines]


def _on_locals(lines: Sequence[str], params: Sequence[int], env: bool) -> tuple[list[str], frozenset[int]] | None:
    """``lines`` with each frame slot a Python local ``_v<slot>`` (a slot read and never stored,
    other than a parameter, read from ``env``: a captured variable), and the captured slots;
    ``None`` when the text uses
    the frame otherwise (a closure or matcher called on it, which reads or binds slots itself),
    or reads a slot it neither binds nor has (no ``env``).

    Reading ``env`` in place of a copy of it is exact: a ``fun``'s captured frame is a snapshot
    taken when the ``fun`` was made (Lean values are immutable: capture by value), only ever
    completed by its ``let rec`` siblings before any call."""
    text = "\n".join(lines)
    if _FRAME.search(_SLOT.sub("", text)):
        return None
    stored = set(params)
    for line in lines:
        m = _STORE.match(line)
        if m is not None:
            stored.update(int(x) for x in _SLOT.findall(m.group(1)))
    captured = {int(x) for x in _SLOT.findall(text)} - stored
    if captured and not env:
        return None
    if env and (not params or min(stored) < min(params)):
        # a store into a slot of the enclosing function's (its slots come before the fun's own):
        # the frame copy it would be made in is what keeps `env` unchanged
        return None

    def name(m: re.Match[str]) -> str:
        slot = int(m.group(1))
        return f"env[{slot}]" if slot in captured else f"_v{slot}"

    return [_SLOT.sub(name, line) for line in lines], frozenset(captured)


def call_template(callee: str, n: int, keywords: str = "") -> str:
    """The template of calling ``callee`` with ``n`` operands (``{0}``…) and ``keywords`` text."""
    args = [f"{{{i}}}" for i in range(n)]
    if keywords:
        args.append(keywords)
    return f"{callee}({', '.join(args)})"


def some_text(gen: CodeGen, value: str) -> str:
    """An expression making ``some`` of ``value`` (an expression) as :func:`..values.some`
    does, without calling it (one Python call less): the object allocated, ``value``
    evaluated, the object's field set, then the object, held by a fresh temporary."""
    new, set_value = SOME_PARTS
    t = gen.temp()
    return f"({gen.const(set_value)}({t} := {gen.const(new)}({gen.const(Some)}), {value}) or {t})"


def _indent(lines: Sequence[str]) -> list[str]:
    return ["    " + line for line in lines]


def _tail_loops(lines: Sequence[str]) -> set[str]:
    """The loops that the tail calls written in ``lines`` jump to."""
    out = set()
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(_TAIL_JUMP):
            out.add(stripped[len(_TAIL_JUMP):])
    return out


def _is_simple(expr: str, src: Src) -> bool:
    return src.simple and expr == src.expr


__all__ = ["Body", "CodeGen", "InlineTest", "Src", "call_template", "some_text"]
