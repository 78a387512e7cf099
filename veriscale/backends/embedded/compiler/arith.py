"""Operators: arithmetic as Lean's ``binop%`` elaborates it (the type of a whole tree of
``+ - * / %`` decided by all its leaves, statically when their types are known, else from the
run-time types of the values), relations, coercions (``↑``), logical connectives, membership,
``++``, ``::``, ``∣``, ``∘`` and the pipes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.builtins import (
    ARITH,
    BUILTINS,
    NEG,
    LeanHashSet,
    compare_le,
    compare_lt,
    decidable_eq,
    lean_beq,
    numbers,
    type_name_of,
)
from veriscale.backends.embedded.builtins.order import SCALAR_TYPES, beq_member, eq_is_beq
from veriscale.backends.embedded.compiler.bitwise import bitwise_complement, bitwise_shift
from veriscale.backends.embedded.compiler.codegen import CodeGen
from veriscale.backends.embedded.compiler.fast_paths import append_writer
from veriscale.backends.embedded.compiler.monads import OPTION_OPS, option_operator
from veriscale.backends.embedded.compiler.scalar_paths import membership_writer
from veriscale.backends.embedded.compiler.support import (
    ARITH_OPS,
    REL_OPS,
    UNSURE,
    Closure,
    Scope,
    _coercer,
    _has_cdot,
    _needs_int,
    _some_of,
    unsupported,
)
from veriscale.backends.embedded.runtime_support import Fn
from veriscale.backends.embedded.statics import BOOL, NAT, PROP, elem_type, head, is_known, max_type
from veriscale.lean.types import LeanType
from veriscale.lean.values import Arr, Ctor, Nat, Pair, Some, Struct, Undecidable, Unsupported


def _eq(a: Any, b: Any) -> bool:
    if type(a) in SCALAR_TYPES and type(b) in SCALAR_TYPES:
        return a == b
    if isinstance(a, float) or isinstance(b, float):
        raise Undecidable("Float equality is not decidable")
    return decidable_eq(a, b)


class ArithMixin:
    """Unary and binary operators (part of :class:`~.core.Compiler`)."""

    instance_choices: dict[tuple[str, int, int], Any]

    # -- operators --------------------------------------------------------------------------
    def c_UnOp(self, node: A.UnOp, sc: Scope, expected: LeanType | None) -> Closure:
        op = node.op
        if op == "-":
            return self._arith_tree(node, sc, expected)
        if op in ("¬", "!"):
            c = self.compile(node.arg, sc, PROP if op == "¬" else BOOL)
            return self.gen.fuse(lambda fr: not c(fr), "(not {0})", [c])
        if op == "↑":
            return self._coe(node, node.arg, sc, expected)
        if op == "~~~":
            return bitwise_complement(self, node, sc, expected)  # .bitwise
        raise unsupported(node, f"operator {op}")

    def _coe(self, node: A.Node, arg: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        c = self.compile(arg, sc, None)
        if expected is None or not is_known(expected):
            raise unsupported(node, "↑ coercion", "target type unknown")
        h = head(expected)
        if h == "Int":
            return lambda fr: int(c(fr))
        if h == "Nat":
            def to_nat(fr: list[Any]) -> Any:
                v = c(fr)
                if isinstance(v, Nat):
                    return v
                raise unsupported(node, "↑ coercion", f"{type_name_of(v)} to Nat")
            return to_nat
        if h == "Float":
            raise unsupported(node, "↑ coercion to Float")
        if h == "Option":
            return lambda fr: Some(c(fr))
        raise unsupported(node, "↑ coercion", f"to {expected}")

    def c_BinOp(self, node: A.BinOp, sc: Scope, expected: LeanType | None) -> Closure:
        op = node.op
        if op in ARITH_OPS or op == "^":
            return self._arith_tree(node, sc, expected)
        if op in REL_OPS:
            return self._relation(node, sc)
        if op in ("∧", "∨", "&&", "||"):
            # decided `∧`/`∨` and boolean `&&`/`||` short-circuit alike; only the operands' type differs
            ty = PROP if op in ("∧", "∨") else BOOL
            a, b = self.compile(node.lhs, sc, ty), self.compile(node.rhs, sc, ty)
            if op in ("∧", "&&"):
                return self.gen.short_circuit(lambda fr: a(fr) and b(fr), "and", a, b)
            return self.gen.short_circuit(lambda fr: a(fr) or b(fr), "or", a, b)
        if op == "→":
            lhs = node.lhs
            inner = sc
            if isinstance(lhs, A.Paren) and isinstance(lhs.term, A.Ascription) and isinstance(lhs.term.term, A.Ident):
                inner, _ = sc.bind(lhs.term.term.name, None)
                lhs = lhs.term.type
            elif isinstance(lhs, A.Ascription) and isinstance(lhs.term, A.Ident):
                inner, _ = sc.bind(lhs.term.name, None)
                lhs = lhs.type
            a, b = self.compile(lhs, sc, PROP), self.compile(node.rhs, inner, PROP)
            return lambda fr: (not a(fr)) or b(fr)
        if op == "↔":
            a, b = self.compile(node.lhs, sc, PROP), self.compile(node.rhs, sc, PROP)
            return lambda fr: a(fr) == b(fr)
        if op in ("∈", "∉"):
            ct = self.stype(node.rhs, sc)
            x = self.compile(node.lhs, sc, elem_type(ct))
            coll = self.compile(node.rhs, sc, None)
            neg = op == "∉"

            def member_of(c: Any, v: Any) -> Any:
                # the collection is computed first, then the element
                if isinstance(c, (tuple, Arr)):
                    # without Float or function leaves Python's `==` is Lean's decidable equality
                    r = beq_member(v, c) if eq_is_beq(v) else any(_eq(v, y) for y in c)
                elif isinstance(c, str):
                    raise unsupported(node, "∈ on String")
                elif isinstance(c, LeanHashSet):
                    r = BUILTINS["Std.HashSet.contains"].fn(c, v)
                else:
                    raise unsupported(node, "∈", f"on {type_name_of(c)}")
                return (not r) if neg else r

            return self.gen.fuse_with(lambda fr: member_of(coll(fr), x(fr)), [coll, x],
                                      membership_writer(self.gen, member_of, neg))
        if op == "++":
            et = expected if expected is not None and is_known(expected) else (self.stype(node.lhs, sc) or self.stype(node.rhs, sc))
            a, b = self.compile(node.lhs, sc, et), self.compile(node.rhs, sc, et)
            local_append = self.operator_instance(node, sc)  # type: ignore[attr-defined]
            if local_append is not None:
                # `++` is `HAppend` through `instHAppendOfAppend` from a local `Append` instance
                return lambda fr: local_append(fr)(a(fr), b(fr))

            def append_values(x: Any, y: Any) -> Any:
                kind = type_name_of(x)
                f = ARITH.get(("++", kind))
                if f is None:
                    raise unsupported(node, "++", f"on {kind}")
                return f(x, y)

            return self.gen.fuse_with(lambda fr: append_values(a(fr), b(fr)), [a, b],
                                      append_writer(self.gen, append_values, head(et)))
        if op == "::":
            return self._cons(node, node.lhs, node.rhs, sc, expected)
        if op == "∣":
            a = self.compile(node.lhs, sc, None)
            b = self.compile(node.rhs, sc, None)

            def dvd(fr: list[Any]) -> Any:
                x, y = a(fr), b(fr)
                if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool):
                    raise unsupported(node, "∣")
                if x == 0:
                    return y == 0
                return y % x == 0

            return dvd
        if op == "∘":
            f, g = self.compile(node.lhs, sc, None), self.compile(node.rhs, sc, None)
            return lambda fr: _compose(f(fr), g(fr))
        if op == "|>":
            return self.compile(A.App(node.line, node.col, node.rhs, [node.lhs]), sc, expected)
        if op in ("<|", "$"):
            return self.compile(A.App(node.line, node.col, node.lhs, [node.rhs]), sc, expected)
        if op in OPTION_OPS:
            return option_operator(self, node, sc, expected)  # .monads
        if op in ("<<<", ">>>"):
            return bitwise_shift(self, node, sc, expected)  # .bitwise
        raise unsupported(node, f"operator {op}")

    def _cons(self, node: A.Node, lhs: A.Node, rhs: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        lt = expected if head(expected) == "List" else self.stype(rhs, sc)
        et = elem_type(lt) if head(lt) == "List" else self.stype(lhs, sc)
        h = self.compile(lhs, sc, et)
        t = self.compile(rhs, sc, lt if head(lt) == "List" else None)
        if et is not None and _needs_int(et):
            h = _coercer(h, et, self.gen)
        return self.gen.fuse(lambda fr: (h(fr),) + t(fr), "(({0},) + {1})", [h, t])

    # binop% trees -----------------------------------------------------------------------
    def _flatten(self, node: A.Node, leaves: list[A.Node]) -> Any:
        if isinstance(node, A.Paren) and not _has_cdot(node.term):
            return self._flatten(node.term, leaves)
        if isinstance(node, A.BinOp) and node.op in ARITH_OPS:
            return ("bin", node.op, self._flatten(node.lhs, leaves), self._flatten(node.rhs, leaves), node)
        if isinstance(node, A.BinOp) and node.op == "^":
            return ("pow", self._flatten(node.lhs, leaves), node.rhs, node)
        if isinstance(node, A.UnOp) and node.op == "-":
            return ("neg", self._flatten(node.arg, leaves), node)
        if isinstance(node, A.NumLit):
            return ("num", node.value)
        if isinstance(node, A.UnOp) and node.op == "↑":
            leaves.append(node.arg)
            return ("coe", len(leaves) - 1)
        leaves.append(node)
        return ("leaf", len(leaves) - 1)

    def _arith_tree(self, node: A.Node, sc: Scope, expected: LeanType | None) -> Closure:
        leaves: list[A.Node] = []
        tree = self._flatten(node, leaves)
        exp = expected if expected is not None and is_known(expected) and head(expected) not in ("Prop",) else None
        return self._tree_closure([tree], leaves, sc, exp, node, unsure=expected is UNSURE)[0][0]

    def _tree_closure(self, trees: list[Any], leaves: list[A.Node], sc: Scope, exp: LeanType | None,
                      node: A.Node, unsure: bool = False,
                      relation: bool = False) -> tuple[list[Closure], str | None]:
        """The closures of ``trees`` (sharing ``leaves``) and the name of their type when it is
        known statically (``None``: decided at run time from the leaves' values).

        ``relation``: the trees are the two sides of a ``binrel%`` relation, whose type Lean
        computes from the leaves alone, never from an expected type."""
        stypes = [self.stype(lf, sc) for lf in leaves]
        coe_idx = set()

        def collect_coe(t: Any) -> None:
            if t[0] == "coe":
                coe_idx.add(t[1])
            elif t[0] == "bin":
                collect_coe(t[2])
                collect_coe(t[3])
            elif t[0] in ("neg",):
                collect_coe(t[1])
            elif t[0] == "pow":
                collect_coe(t[1])

        for t in trees:
            collect_coe(t)
        known = [t for i, t in enumerate(stypes) if i not in coe_idx]
        static_ok = all(t is not None and is_known(t) for t in known)
        static_T: LeanType | None = None
        if static_ok:
            m, bad = max_type([*known, *([exp] if exp is not None else [])])
            if bad:
                static_ok = False
            else:
                static_T = m if m is not None else NAT
        leaf_cs = [self.compile(lf, sc, static_T if (static_ok and i in coe_idx) else None) for i, lf in enumerate(leaves)]
        if static_ok and static_T is not None and head(static_T) in ("Int",):
            leaf_cs = [_coercer(c, static_T, self.gen) if stypes[i] != static_T else c for i, c in enumerate(leaf_cs)]
        comp = self
        exp_name = head(exp) if exp is not None else None

        # A dynamic tree evaluates each leaf once, before the type is decided (from the leaves'
        # run-time types); the tree's closures `(fr, T, vals)` then read the leaf values `vals`.
        def build(t: Any) -> Callable[[list[Any], str, list[Any]], Any]:
            kind = t[0]
            if kind == "num":
                val = t[1]

                def num(fr: list[Any], T: str, vals: list[Any], val: int = val) -> Any:
                    return _numeral(val, T, node)

                return num
            if kind in ("leaf", "coe"):
                i = t[1]

                def leaf(fr: list[Any], T: str, vals: list[Any], i: int = i) -> Any:
                    v = vals[i]
                    if T == "Int" and isinstance(v, Nat):
                        return int(v)
                    return v

                return leaf
            if kind == "neg":
                sub = build(t[1])
                nnode = t[2]

                def neg(fr: list[Any], T: str, vals: list[Any]) -> Any:
                    f = NEG.get(T)
                    if f is None:
                        raise unsupported(nnode, "negation", f"at type {T}")
                    return f(sub(fr, T, vals))

                return neg
            if kind == "pow":
                base = build(t[1])
                expo = comp.compile(t[2], sc, None)
                pnode = t[3]

                def power(fr: list[Any], T: str, vals: list[Any]) -> Any:
                    return _power_at(base(fr, T, vals), expo(fr), T, pnode)

                return power
            op = t[1]
            lhs, rhs = build(t[2]), build(t[3])
            bnode = t[4]

            def binop(fr: list[Any], T: str, vals: list[Any], op: str = op) -> Any:
                f = ARITH.get((op, T))
                if f is None:
                    raise unsupported(bnode, f"operator {op}", f"at type {T}")
                return f(lhs(fr, T, vals), rhs(fr, T, vals))

            return binop

        if static_ok:
            # The type is known now: numerals, operator lookups and coercions are settled once,
            # here, instead of on every evaluation (this is the evaluator's hottest path).
            T = head(static_T) or "Nat"
            if T == "Nat" and (unsure or not (relation and self._declared_nat_leaf(leaves, coe_idx, sc)) and any(
                    i not in coe_idx and not is_known(self.declared_stype(lf, sc)) for i, lf in enumerate(leaves))):
                # `Nat` only by the elaborator's inference for some leaf, or an expected type the
                # compiler is unsure of: where Lean propagates an expected type the elaborator
                # does not (`(fun x => x) (n - 5) : Int`), Lean computes in `Int`, so a
                # subtraction that truncates is refused, never guessed. Not so in a relation
                # with a leaf declared `Nat` (see `_declared_nat_leaf`).
                T = "NatChecked"
            return [self._static_tree(t, T, leaf_cs, sc, node) for t in trees], T
        if self.instance_choices and any(self._local_operator(t, sc) for t in trees):
            # the operators' instances were chosen at the type the elaborator inferred: a tree
            # whose type is decided only at run time cannot follow them
            raise unsupported(node, "arithmetic with a local instance", "operand types not known statically")
        builders = [build(t) for t in trees]

        # dynamic: the run-time types of the leaves decide the type (as binop% would statically)
        unknown_leaf = [i for i, t in enumerate(stypes) if (t is None or not is_known(t)) and i not in coe_idx]
        if unsure:
            unknown_leaf.append(-1)

        def run_dynamic(fr: list[Any], b: Callable[[list[Any], str, list[Any]], Any]) -> Any:
            vals = [c(fr) for c in leaf_cs]
            names = set()
            for i, v in enumerate(vals):
                if i in coe_idx:
                    continue
                names.add(type_name_of(v))
            if exp_name is not None:
                names.add(exp_name)
            if len(names) == 0:
                T = "Nat"
            elif len(names) == 1:
                T = next(iter(names))
            elif names == {"Nat", "Int"}:
                T = "Int"
            else:
                raise unsupported(node, "arithmetic", f"mixed types {sorted(names)}")
            if T == "Nat" and unknown_leaf:
                return _checked_nat(b, fr, vals)
            return b(fr, T, vals)

        return [lambda fr, b=b: run_dynamic(fr, b) for b in builders], None

    def _local_operator(self, t: Any, sc: Scope) -> bool:
        """Whether an operator of the flattened tree ``t`` uses a local instance."""
        kind = t[0]
        if kind == "bin":
            return (self.operator_instance(t[4], sc) is not None  # type: ignore[attr-defined]
                    or self._local_operator(t[2], sc) or self._local_operator(t[3], sc))
        if kind == "neg":
            return self.operator_instance(t[2], sc) is not None or self._local_operator(t[1], sc)  # type: ignore[attr-defined]
        if kind == "pow":
            return self._local_operator(t[1], sc)
        return False

    def _declared_nat_leaf(self, leaves: list[A.Node], coe_idx: set[int], sc: Scope) -> bool:
        """Whether some leaf (not under ``↑``) is ``Nat`` by declared types alone.

        Lean elaborates a relation's sides as one ``binrel%`` tree whose maximal type is taken
        over the leaves only, the expected type unused (``Lean.Elab.Extra``, ``elabBinRelCore``
        calls ``analyze tree none``); a leaf whose type is still a metavariable is then unified
        with that maximal type when coercions are applied (``applyCoe``). With a leaf declared
        ``Nat`` and every other leaf typed ``Nat`` by the elaborator, no context can make Lean
        compute the relation's sides in ``Int``: the elaborator's ``Nat`` is Lean's.
        """
        return any(i not in coe_idx and head(self.declared_stype(lf, sc)) == "Nat"
                   for i, lf in enumerate(leaves))

    def _static_tree(self, t: Any, T: str, leaf_cs: list[Closure], sc: Scope, node: A.Node) -> Closure:
        """A binop% tree whose type ``T`` is known statically, as one closure per node."""
        kind = t[0]
        if kind == "num":
            try:
                value = _numeral(t[1], T, node)
            except Unsupported as exc:
                return _raiser(exc)
            return self.gen.constant(lambda fr: value, value)
        if kind in ("leaf", "coe"):
            # at `Int`, :meth:`_tree_closure` has already coerced every leaf not statically `Int`
            return leaf_cs[t[1]]
        if kind == "neg":
            sub = self._static_tree(t[1], T, leaf_cs, sc, node)
            local = self.operator_instance(t[2], sc)  # type: ignore[attr-defined]
            if local is not None:
                return lambda fr: local(fr)(sub(fr))
            negate = NEG.get(T)
            if negate is None:
                return _raiser(unsupported(t[2], "negation", f"at type {T}"))
            return self.gen.fuse(lambda fr: negate(sub(fr)), self.gen.const(negate) + "({0})", [sub])
        if kind == "pow":
            base = self._static_tree(t[1], T, leaf_cs, sc, node)
            exponent, pnode = self.compile(t[2], sc, None), t[3]
            return lambda fr: _power_at(base(fr), exponent(fr), T, pnode)
        op, bnode = t[1], t[4]
        local_method = self.operator_instance(bnode, sc)  # type: ignore[attr-defined]
        if local_method is not None:
            # the operator's instance is a local one (`have : Add Int := ⟨f⟩`): `f a b`
            left = self._static_tree(t[2], T, leaf_cs, sc, node)
            right = self._static_tree(t[3], T, leaf_cs, sc, node)
            return lambda fr: local_method(fr)(left(fr), right(fr))
        f = ARITH.get((op, T))
        if f is None:
            return _raiser(unsupported(bnode, f"operator {op}", f"at type {T}"))
        lhs = self._static_tree(t[2], T, leaf_cs, sc, node)
        if t[3][0] == "num":
            # `i + 1`, `x % 2`: the numeral is a constant of the closure, not a call
            try:
                k = _numeral(t[3][1], T, node)
            except Unsupported as exc:
                return _raiser(exc)

            def with_constant(fr: list[Any]) -> Any:
                return f(lhs(fr), k)

            closure: Closure = with_constant
            inline = _inline_arith(self.gen, f)
            if inline is not None:
                kname = self.gen.const(k)
                return self.gen.fuse_with(closure, [lhs], lambda xs: inline(xs[0], kname))
            return self.gen.fuse(closure, f"{self.gen.const(f)}({{0}}, {self.gen.const(k)})", [lhs])
        rhs = self._static_tree(t[3], T, leaf_cs, sc, node)

        def binary(fr: list[Any]) -> Any:
            return f(lhs(fr), rhs(fr))

        closure = binary
        inline = _inline_arith(self.gen, f)
        if inline is not None:
            return self.gen.fuse_with(closure, [lhs, rhs], lambda xs: inline(xs[0], xs[1]))
        return self.gen.fuse(closure, self.gen.const(f) + "({0}, {1})", [lhs, rhs])

    def _relation(self, node: A.BinOp, sc: Scope) -> Closure:
        op = node.op
        leaves: list[A.Node] = []
        lt = self._flatten(node.lhs, leaves)
        rt = self._flatten(node.rhs, leaves)
        if lt[0] in ("leaf",) and rt[0] in ("leaf",):
            # no arithmetic and no numerals: compile both sides plainly (with mutual expected types)
            lty, rty = self.stype(node.lhs, sc), self.stype(node.rhs, sc)
            a = self.compile(node.lhs, sc, rty if lty is None else None)
            b = self.compile(node.rhs, sc, lty if rty is None else None)
            if lty is not None and rty is not None and lty != rty:
                m, bad = max_type([lty, rty])
                if not bad and m is not None and head(m) == "Int":
                    a, b = _coercer(a, m, self.gen), _coercer(b, m, self.gen)
                elif not bad and m is not None and head(m) == "Option":
                    # `x = some y` with `x : α` elaborates as `↑x = some y`, i.e. `some x = some y`
                    if lty != m:
                        a = _some_of(a, self.gen)
                    if rty != m:
                        b = _some_of(b, self.gen)
            if (lty is not None and lty == rty and _python_relation(op, head(lty))
                    and not self._user_instance_types(op)):
                # both sides statically of one scalar type: Lean's order and equality are Python's
                return _integer_rel(self.gen, op, a, b, node)
        else:
            (a, b), T = self._tree_closure([lt, rt], leaves, sc, None, node, relation=True)
            if T is not None and _python_relation(op, T) and not self._user_instance_types(op):
                # both sides computed at one scalar type known statically
                return _integer_rel(self.gen, op, a, b, node)
        overridden = self._user_instance_types(op)
        if overridden:
            a, b = _refuse_user_instance(a, overridden, op, node), _refuse_user_instance(b, overridden, op, node)
        return _rel(self.gen, op, a, b, node)

    def _user_instance_types(self, op: str) -> frozenset[str]:
        """Types for which the task declares its own instance of the class behind ``op``.

        Comparisons use the structural instances of the runtime; a user instance could mean
        anything, so a comparison that reaches a value of such a type is refused, never guessed.
        """
        classes = _RELATION_CLASSES.get(op, ())
        return frozenset(
            inst.type_name for inst in self.env.instances if inst.class_name in classes and inst.type_name
        )


def _inline_arith(gen: CodeGen, f: Callable[[Any, Any], Any]) -> Callable[[str, str], tuple[list[str], str]] | None:
    """For the hottest typed operators (``+ - * / %`` at ``Nat`` and ``Int``), the text of their
    bodies (:mod:`..builtins.numbers`) over two operand expressions: statements and result, the
    same operations in the same order, without the call."""
    if f not in _INLINE_ARITH:
        return None
    op, at_nat = _INLINE_ARITH[f]
    nat, new_int = gen.const(Nat), gen.const(int.__new__)
    small, limit = gen.const(numbers.SMALL_NATS), gen.const(numbers.SMALL_NAT_LIMIT)
    max_bits, check_bits = gen.const(numbers.MAX_BITS), gen.const(numbers.check_bits)

    def write(x: str, y: str) -> tuple[list[str], str]:
        t = gen.temp()
        if at_nat and op == "-":
            return [f"{t} = {x} - {y}"], (f"(({small}[{t}] if {t} < {limit} else {new_int}({nat}, {t})) if {t} > 0 "
                                          f"else {gen.const(numbers._NAT_ZERO)})")
        if at_nat and op in ("/", "%"):
            # `n / 0 = 0`, `n % 0 = n`; the result is no larger than `n`: no bit limit to check
            d = gen.temp()
            py_op, by_zero = ("//", "0") if op == "/" else ("%", t)
            return [f"{t} = {x}", f"{d} = {y}", f"{t} = {t} {py_op} {d} if {d} else {by_zero}"], \
                f"({small}[{t}] if {t} < {limit} else {new_int}({nat}, {t}))"
        if at_nat:
            # a small sum or product is looked up (and has far fewer bits than the limit)
            return [f"{t} = {x} {op} {y}", f"if {t} < {limit} and {t} >= 0:", f"    {t} = {small}[{t}]", "else:",
                    f"    if {t}.bit_length() > {max_bits}:",
                    f"        {check_bits}({t})", f"    {t} = {new_int}({nat}, {t})"], t
        if op in ("/", "%"):
            # `Int.ediv`/`Int.emod` are Python's `//`/`%` when the divisor is positive
            d = gen.temp()
            slow = gen.const(numbers.int_ediv if op == "/" else numbers.int_emod)
            py_op = "//" if op == "/" else "%"
            return [f"{t} = {x}", f"{d} = {y}", f"{t} = {t} {py_op} {d} if {d} > 0 else {slow}({t}, {d})"], t
        stmts = [f"{t} = {x} {op} {y}", f"if {t}.bit_length() > {max_bits}:", f"    {check_bits}({t})"]
        return stmts, t

    return write


_INLINE_ARITH: dict[Callable[[Any, Any], Any], tuple[str, bool]] = {
    numbers._nat_add: ("+", True), numbers._nat_sub: ("-", True), numbers._nat_mul: ("*", True),
    numbers._nat_div: ("/", True), numbers._nat_mod: ("%", True),
    numbers._int_add: ("+", False), numbers._int_sub: ("-", False), numbers._int_mul: ("*", False),
    numbers._int_div: ("/", False), numbers._int_mod: ("%", False),
}


def _raiser(exc: Exception) -> Closure:
    """A closure that raises ``exc`` when evaluated (an error of the code, not of compiling it)."""

    def raise_it(fr: list[Any]) -> Any:
        raise exc

    return raise_it


def _power_at(b: Any, e: Any, T: str, node: A.Node) -> Any:
    """``b ^ e`` at the type ``T``: ``Float ^ Float``, or ``T ^ Nat``."""
    if T == "Float":
        if isinstance(e, float):
            return ARITH[("^", "Float")](b, e)
        raise unsupported(node, "Float ^ Nat")
    if not isinstance(e, Nat):
        raise unsupported(node, "^", f"exponent of type {type_name_of(e)}")
    f = ARITH.get(("^", T))
    if f is None:
        raise unsupported(node, "^", f"at type {T}")
    return f(b, e)


def _numeral(val: int, T: str, node: A.Node) -> Any:
    if T == "Nat" or T == "NatChecked":
        return Nat(val)
    if T == "Int":
        return val
    if T == "Float":
        return float(val)
    from veriscale.lean.values import FIXED_WIDTH_TYPES

    cls = FIXED_WIDTH_TYPES.get(T)
    if cls is not None:
        return cls(val)
    raise unsupported(node, "numeral", f"at type {T}")


class _NatUnsure(Exception):
    pass


def _checked_nat(b: Callable[[list[Any], str, list[Any]], Any], fr: list[Any], vals: list[Any]) -> Any:
    """Compute in ``Nat`` but refuse when a subtraction truncates: one leaf's static type was
    unknown, so Lean may have computed in ``Int`` instead."""
    global _NAT_SUB_GUARD
    old = _NAT_SUB_GUARD[0]
    _NAT_SUB_GUARD[0] = True
    try:
        return b(fr, "NatChecked", vals)
    finally:
        _NAT_SUB_GUARD[0] = old


_NAT_SUB_GUARD = [False]


def _nat_checked_sub(a: Any, b: Any) -> Any:
    if a < b:
        raise Unsupported("Nat subtraction", "truncating subtraction whose operand types are not known statically")
    return Nat(a - b)


for _op in ("+", "*", "/", "%", "^", "&&&", "|||", "^^^"):
    ARITH[(_op, "NatChecked")] = ARITH[(_op, "Nat")]
ARITH[("-", "NatChecked")] = _nat_checked_sub


_RELATION_CLASSES: dict[str, tuple[str, ...]] = {
    "=": ("DecidableEq", "BEq"),
    "≠": ("DecidableEq", "BEq"),
    "==": ("BEq",),
    "!=": ("BEq",),
    "<": ("LT", "Ord"),
    ">": ("LT", "Ord"),
    "≤": ("LE", "Ord"),
    "≥": ("LE", "Ord"),
}


def _value_types(v: Any) -> Iterator[str]:
    """Names of the user types (structures, inductives) occurring in a value."""
    if isinstance(v, Struct):
        yield v.type_name
        for _, field_value in v.fields:
            yield from _value_types(field_value)
    elif isinstance(v, Ctor):
        yield v.name.rsplit(".", 1)[0]
        for arg in v.args:
            yield from _value_types(arg)
    elif isinstance(v, (tuple, Arr)):
        for item in v:
            yield from _value_types(item)
    elif isinstance(v, Pair):
        yield from _value_types(v.fst)
        yield from _value_types(v.snd)
    elif isinstance(v, Some):
        yield from _value_types(v.value)


def _refuse_user_instance(c: Closure, types: frozenset[str], op: str, node: A.Node) -> Closure:
    def guarded(fr: Any) -> Any:
        value = c(fr)
        for name in _value_types(value):
            if name in types:
                raise unsupported(node, f"user instance behind {op}", f"on {name}")
        return value

    return guarded


_PYTHON_ORDER = frozenset({"Nat", "Int", "UInt8", "UInt16", "UInt32", "UInt64", "Char", "String"})
"""Types whose ``<``/``≤`` instances Lean decides as Python orders their values (numbers by
value, characters and strings by code points, lexicographically)."""
_PYTHON_EQUALITY = _PYTHON_ORDER | {"Bool"}
"""Types whose ``DecidableEq`` and ``BEq`` instances are Python's ``==`` on their values."""


def _python_relation(op: str, type_head: str | None) -> bool:
    """Whether ``op`` at the type ``type_head`` (both sides statically of that type) is Python's."""
    if op in ("=", "≠", "==", "!="):
        return type_head in _PYTHON_EQUALITY
    return type_head in _PYTHON_ORDER


def _integer_rel(gen: CodeGen, op: str, a: Closure, b: Closure, node: A.Node) -> Closure:
    ab = [a, b]
    if op == "<":
        return gen.fuse(lambda fr: a(fr) < b(fr), "({0} < {1})", ab)
    if op == ">":
        return gen.fuse(lambda fr: a(fr) > b(fr), "({0} > {1})", ab)
    if op == "≤":
        return gen.fuse(lambda fr: a(fr) <= b(fr), "({0} <= {1})", ab)
    if op == "≥":
        return gen.fuse(lambda fr: a(fr) >= b(fr), "({0} >= {1})", ab)
    if op in ("=", "=="):
        return gen.fuse(lambda fr: a(fr) == b(fr), "({0} == {1})", ab)
    if op in ("≠", "!="):
        return gen.fuse(lambda fr: a(fr) != b(fr), "({0} != {1})", ab)
    return _rel(gen, op, a, b, node)


def _rel(gen: CodeGen, op: str, a: Closure, b: Closure, node: A.Node) -> Closure:
    ab = [a, b]
    if op == "=":
        return gen.fuse(lambda fr: _eq(a(fr), b(fr)), gen.const(_eq) + "({0}, {1})", ab)
    if op == "≠":
        return gen.fuse(lambda fr: not _eq(a(fr), b(fr)), "(not " + gen.const(_eq) + "({0}, {1}))", ab)
    if op == "==":
        return gen.fuse(lambda fr: lean_beq(a(fr), b(fr)), gen.const(lean_beq) + "({0}, {1})", ab)
    if op == "!=":
        return gen.fuse(lambda fr: not lean_beq(a(fr), b(fr)), "(not " + gen.const(lean_beq) + "({0}, {1}))", ab)
    if op == "<":
        return gen.fuse(lambda fr: compare_lt(a(fr), b(fr)), gen.const(compare_lt) + "({0}, {1})", ab)
    if op == "≤":
        return gen.fuse(lambda fr: compare_le(a(fr), b(fr)), gen.const(compare_le) + "({0}, {1})", ab)
    # `>`/`≥` evaluate `b` before `a`: no source (the operands' order is fixed left to right)
    if op == ">":
        return lambda fr: compare_lt(b(fr), a(fr))
    if op == "≥":
        return lambda fr: compare_le(b(fr), a(fr))
    raise unsupported(node, f"relation {op}")


def _compose(f: Any, g: Any) -> Any:
    return Fn(1, lambda env, a: f(g(a[0])), None, "∘")
