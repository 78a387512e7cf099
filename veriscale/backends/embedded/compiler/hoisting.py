"""Terms of a postcondition that do not read its output: evaluated once per input, replayed after.

A postcondition ``Q x y`` is checked on one input ``x`` against several outputs ``y`` (the
expected one and every unexpected one), and it typically computes a reference value from ``x``
alone (``let expected := …; y = expected``, ``(xs.filter p).length - result = 0``). Such a term
has the same value for every output: it reads only the definition's other parameters and
``let`` variables computed from them (Lean values are immutable and functions pure). This mixin
wraps each largest such term of a definition named in :attr:`Compiler.hoist_over` in a
:class:`_Site` that records one evaluation (the value, the steps it took and what it added to
the check's memo table) and replays it while the inputs are the same.

Replaying is exact, so a check's answer and step count never depend on the checks before it:

* a term is recorded, and replayed, only when the check's memo table (:mod:`..memo`) is empty
  on entry; its evaluation then depends on the inputs alone, takes the same steps and leaves the
  same entries every time, and a replay charges those steps and puts those entries in the table;
* a replay that would go past the step limit is not made: the term is evaluated, and runs out of
  steps exactly where it would have;
* an evaluation that raises (out of steps, undecidable, unsupported) records nothing, and
  neither does one inside a witness search (whose candidate limit depends on its nesting).

Which variables a term may read is :func:`.support.captured_slots` (a superset), so a term is
only taken for one that reads nothing the output decides. Variables a ``do`` block reassigns
are never taken as fixed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.compiler.support import Closure, Scope, captured_slots, referenced_names
from veriscale.backends.embedded.memo import NotKeyable, memo_key
from veriscale.backends.embedded.runtime_support import Budget, TailCall

if TYPE_CHECKING:
    from veriscale.backends.embedded.compiler.support import DefCtx

#: terms worth recording (a variable, literal or projection costs less than the bookkeeping)
_HOISTABLE = (A.App, A.BinOp, A.UnOp, A.Quant, A.Let, A.If, A.Match, A.Do, A.Explicit)
#: constructs whose presence means a term does work worth recording
_WORK = (A.App, A.Quant, A.Do)
#: memo entries a recording may carry (a replay copies them into the check's table)
DELTA_LIMIT = 50_000


class HoistPlan:
    """Per definition compiled with hoisting: the slots whose values are fixed by the inputs."""

    __slots__ = ("fixed", "inputs", "reassigned")

    def __init__(self, inputs: tuple[int, ...], reassigned: set[str]) -> None:
        self.inputs = inputs
        """The frame slots of the parameters that stay the same between calls (the replay key)."""
        self.fixed: set[int] = set(inputs)
        """Slots whose values are determined by those parameters alone."""
        self.reassigned = reassigned
        """Names some ``do`` block reassigns: never taken as fixed."""


class HoistingMixin:
    """Recording and replaying output-independent terms (part of :class:`~.core.Compiler`)."""

    budget: Budget
    hoist_over: dict[str, str]
    _hoisting: bool
    _search_depth: int

    def hoist_plan(self, def_name: str, body: Any, params: Iterable[tuple[str, int]]) -> HoistPlan | None:
        """The plan for definition ``def_name`` whose non-proof parameters are ``params`` (name,
        slot), or ``None`` when it is not compiled with hoisting."""
        varying = self.hoist_over.get(def_name)
        if varying is None:
            return None
        params = list(params)
        reassigned = reassigned_names(body)
        if varying not in {n for n, _ in params} or reassigned & {n for n, _ in params}:
            return None
        inputs = tuple(slot for name, slot in params if name != varying)
        return HoistPlan(inputs, reassigned) if inputs else None

    def hoist_candidate(self, node: A.Node, sc: Scope) -> bool:
        """Whether ``node`` is a largest term worth recording that reads only fixed slots."""
        plan = sc.ctx.hoist
        if plan is None or self._hoisting or not isinstance(node, _HOISTABLE) or not _does_work(node):
            return False
        if getattr(self, "local_instances", None):
            # a term may use a local instance without naming it (`a == b`): never taken as fixed
            return False
        return set(captured_slots(node, sc)) <= plan.fixed

    def note_fixed_let(self, decl: A.LetDecl | list[A.LetDecl], outer: Scope, inner: Scope) -> None:
        """After ``let decl`` (or ``let rec decls``) is compiled: the variables it binds are
        fixed when its values read only fixed slots (a ``let rec`` function's own name is not a
        variable of ``outer``) and no ``do`` block reassigns them."""
        plan = outer.ctx.hoist
        if plan is None:
            return
        read = {outer.vars[n][0] for n in referenced_names(decl) if n in outer.vars}
        if not read <= plan.fixed:
            return
        for name, (slot, _ty) in inner.vars.items():
            if (name not in outer.vars or outer.vars[name][0] != slot) and name not in plan.reassigned:
                plan.fixed.add(slot)

    def hoisted(self, compile_term: Any, ctx: DefCtx) -> Closure:
        """Compile the term (``compile_term()``, with nested terms not wrapped again) and wrap it
        in a recording site."""
        saved = self._hoisting
        self._hoisting = True
        try:
            inner = compile_term()
        finally:
            self._hoisting = saved
        assert ctx.hoist is not None
        return _site(inner, ctx.hoist.inputs, self.budget, self)


def _does_work(node: Any) -> bool:
    return isinstance(node, _WORK) or any(_does_work(sub) for sub in A.subterms(node))


def reassigned_names(body: Any) -> set[str]:
    """Names a ``do`` reassignment (``x := …``, ``x += …``, ``(a, b) := …``) writes."""
    out: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, A.DoReassign):
            referenced_names(node.target, out)
        for sub in A.subterms(node):
            walk(sub)

    walk(body)
    return out


class _Site:
    """One recorded evaluation of a term: ``entry`` is ``(inputs, value, steps, memo entries)``
    (set in one assignment, so an interrupt never leaves half of it), ``key`` the inputs' exact
    key once computed, ``off`` set once a recording took no steps (nothing to save)."""

    __slots__ = ("entry", "key", "off")

    def __init__(self) -> None:
        self.entry: tuple[tuple[Any, ...], Any, int, dict[Any, Any] | None] | None = None
        self.key: Any = None
        self.off = False

    def same_inputs(self, inputs: tuple[Any, ...]) -> bool:
        """Whether ``inputs`` are those of the recording: the same objects, or the same Lean
        values with the same representation (:func:`..memo.memo_key`)."""
        entry = self.entry
        assert entry is not None
        recorded = entry[0]
        if all(a is b for a, b in zip(recorded, inputs)):
            return True
        try:
            if self.key is None:
                self.key = memo_key(recorded)
            if memo_key(inputs) != self.key:
                return False
        except NotKeyable:
            return False
        self.entry = (inputs, *entry[1:])  # the next lookup with these objects is one comparison
        return True


def _copied(table: dict[Any, Any]) -> dict[Any, Any]:
    """A copy of memo entries; the per-definition call counters (lists) are copied too, since
    the table that receives them updates them in place."""
    return {k: (list(v) if type(v) is list else v) for k, v in table.items()}


def _site(inner: Closure, inputs: tuple[int, ...], budget: Budget, compiler: HoistingMixin) -> Closure:
    site = _Site()

    def run(fr: list[Any]) -> Any:
        if site.off:
            return inner(fr)
        table = budget.memo
        if table or compiler._search_depth:
            return inner(fr)  # a recording starts from an empty table, outside any search
        values = tuple([fr[s] for s in inputs])
        entry = site.entry
        if entry is not None and site.same_inputs(values):
            steps = entry[2]
            if budget.used() + steps <= budget.max_steps:
                if steps:
                    budget.charge(steps)
                if entry[3]:
                    table.update(_copied(entry[3]))
                return entry[1]
            return inner(fr)  # runs out of steps where the evaluation would
        start = budget.used()
        value = inner(fr)
        if type(value) is TailCall:
            return value
        steps = budget.used() - start
        if not steps and not table:
            site.off = True
        elif len(table) <= DELTA_LIMIT:
            site.key = None
            site.entry = (values, value, steps, _copied(table) if table else None)
        return value

    return run
