"""Typed evaluation: the compiler reads the elaborator's type of every term.

The elaborator records the type it inferred for each term (``Report.node_types``); the compiler
uses it where the declared types alone do not tell (an unannotated ``fun`` binder, a numeral
whose type comes from unification), so arithmetic is compiled at its static type instead of being
decided, or refused, at run time. Local instances (``have inst : BEq Int := …``) are never
silently replaced by the global instance.
"""

from __future__ import annotations

import pytest

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.program import Program
from veriscale.lean.types import NamedType
from veriscale.lean.values import Arr, Nat, Unsupported

INT = NamedType("Int")
NAT = NamedType("Nat")


def _nodes(node: object) -> list[A.Node]:
    out: list[A.Node] = []

    def walk(n: object) -> None:
        if isinstance(n, A.Node):
            out.append(n)
            for child in A.children(n):
                walk(child)
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)

    walk(node)
    return out


def test_the_elaborator_records_the_type_of_numerals_and_binders() -> None:
    program = Program("def total (xs : List Int) : Int :=\n  xs.foldl (fun acc x => acc + x) 0\n")
    types = program.elaboration.node_types
    body = program.env.defs["total"].cmd.body
    numerals = [n for n in _nodes(body) if isinstance(n, A.NumLit)]
    binder_uses = [n for n in _nodes(body) if isinstance(n, A.Ident) and n.name in ("acc", "x")]
    assert [types.of(n) for n in numerals] == [INT]  # unified with `acc`, not defaulted to Nat
    assert binder_uses and all(types.of(n) == INT for n in binder_uses)


def test_a_rejected_declaration_keeps_no_types() -> None:
    program = Program('def bad (n : Nat) : Nat :=\n  n + "a"\n')
    assert program.elaboration.errors
    body = program.env.defs["bad"].cmd.body
    assert all(program.elaboration.node_types.of(n) is None for n in _nodes(body))


def test_a_subtraction_typed_nat_only_by_the_elaborator_is_static_but_guarded() -> None:
    # `k` has no declared type; the elaborator infers `Nat`, so the tree is compiled at `Nat`
    # (no run-time type dispatch). Lean may still compute such a tree in `Int` where it
    # propagates an expected type the elaborator does not model, so a subtraction that would
    # truncate is refused rather than guessed; one that does not truncate is exact either way.
    program = Program("def h (n : Nat) : Int :=\n  let f := fun k => k - 3\n  f n\n")
    assert call_entry(program, "h", {"n": Nat(10)}, None) == 7
    with pytest.raises(Unsupported, match="truncating"):
        call_entry(program, "h", {"n": Nat(2)}, None)


# binrel% (Lean.Elab.Extra, `elabBinRelCore`) analyses both sides of a relation as one tree with
# no expected type (`analyze tree none`), and unifies a leaf whose type is still unknown with the
# maximal type of the others (`applyCoe`). So with a leaf declared `Nat`, a fold or sum that only
# the elaborator types is `Nat` in Lean as well: the subtraction truncates, `3 - 5 = 0`.
_RELATION_WITH_A_NAT_LEAF = [
    ("def p (r : Nat) (xs : List Nat) : Prop :=\n  r - xs.foldl (fun acc x => acc + x) 0 = 0\n",
     {"r": Nat(3), "xs": (Nat(5),)}),
    ("def p (r : Nat) (xs : List Nat) : Prop :=\n  xs.foldl (fun acc x => acc + x) 0 - r = 0\n",
     {"r": Nat(5), "xs": (Nat(1), Nat(2))}),
    ("def p (r : Nat) (xs : List Int) (t : Int) : Prop :=\n"
     "  r - xs.foldl (fun c x => if x < t then c + 1 else c) 0 = 0\n",
     {"r": Nat(1), "xs": (-4, -3, 8), "t": 0}),
    ("def p (r : Nat) (xs : List Nat) : Prop :=\n  (xs.map (fun x => x * 2)).sum - r ≤ 0\n",
     {"r": Nat(7), "xs": (Nat(1), Nat(2))}),
]


@pytest.mark.parametrize(("source", "args"), _RELATION_WITH_A_NAT_LEAF)
def test_a_relation_with_a_declared_nat_leaf_truncates_at_nat(source: str, args: dict[str, object]) -> None:
    # each left side truncates (in Int it would be negative and the relation false)
    assert call_entry(Program(source), "p", args, None) is True


def test_the_same_relation_with_a_declared_int_leaf_computes_in_int() -> None:
    # the maximal type is `Int`: the fold's accumulator is `Int` and `3 - 5 = -2`
    program = Program("def p (r : Int) (xs : List Int) : Prop :=\n  r - xs.foldl (fun acc x => acc + x) 0 = -2\n")
    assert call_entry(program, "p", {"r": 3, "xs": (5,)}, None) is True


def test_a_relation_typed_nat_only_by_the_elaborator_keeps_its_guard() -> None:
    # no leaf is `Nat` by its declaration: the elaborator's `Nat` for `f n` rests on its own
    # inference of `f`, so a truncating subtraction is still refused, never guessed
    program = Program("def p (n : Nat) : Prop :=\n  let f := fun k => k + 1\n  f n - 5 = 0\n")
    with pytest.raises(Unsupported, match="truncating"):
        call_entry(program, "p", {"n": Nat(2)}, None)
    assert call_entry(program, "p", {"n": Nat(4)}, None) is True


@pytest.mark.parametrize("head", ["(fun x => x)", "id"])
def test_a_subtraction_at_an_expected_int_propagated_through_an_application(head: str) -> None:
    # Lean.Elab.App `propagateExpectedType`: the result type of the head is unified with `Int`
    # before the argument is elaborated, so `n - 5` is `↑n - 5` in Int
    program = Program(f"def h (n : Nat) : Int :=\n  {head} (n - 5)\n")
    assert call_entry(program, "h", {"n": Nat(2)}, None) == -3


def test_a_subtraction_at_declared_nat_types_truncates() -> None:
    program = Program("def d (a : Nat) (b : Nat) : Nat :=\n  a - b\n")
    assert call_entry(program, "d", {"a": Nat(2), "b": Nat(5)}, None) == 0


def test_int_arithmetic_in_an_unannotated_lambda() -> None:
    program = Program("def g (xs : List Int) : List Int :=\n  xs.map (fun x => x - 5)\n")
    assert call_entry(program, "g", {"xs": (1, 10)}, None) == (-4, 5)


def test_a_list_int_result_built_by_recursion_keeps_its_values() -> None:
    program = Program(
        "def keep (x : Int) (xs : List Int) : List Int :=\n"
        "  match xs with\n"
        "  | [] => []\n"
        "  | y :: ys => if y = x then y :: keep x ys else keep x ys\n")
    assert call_entry(program, "keep", {"x": -2, "xs": (-2, 3, -2, 0)}, None) == (-2, -2)


@pytest.mark.parametrize("declaration", ["have inst : BEq Int := ⟨fun _ _ => true⟩",
                                         "let inst : BEq Int := ⟨fun _ _ => true⟩"])
def test_a_local_instance_is_evaluated_not_replaced_by_the_global_one(declaration: str) -> None:
    # Lean's `==` here is the local instance (always true); the global one would say false
    program = Program(f"def f (a : Int) (b : Int) : Bool :=\n  {declaration}\n  a == b\n")
    assert call_entry(program, "f", {"a": 1, "b": 2}, None) is True


def test_a_local_instance_of_a_class_the_engine_does_not_evaluate_is_refused() -> None:
    program = Program("def f (a : Int) (b : Int) : Bool :=\n  have inst : LT Int := ⟨fun _ _ => True⟩\n  a == b\n")
    assert [d.rule for d in program.elaboration.gaps] == ["local-instance"]
    with pytest.raises(Unsupported, match="local instance of LT"):
        call_entry(program, "f", {"a": 1, "b": 2}, None)


def test_char_and_string_relations_at_their_static_types() -> None:
    program = Program("def hasZ (s : String) : Bool :=\n  s.toList.any fun c => c = 'z' || c = 'Z'\n")
    assert call_entry(program, "hasZ", {"s": "aZb"}, None) is True
    assert call_entry(program, "hasZ", {"s": "abc"}, None) is False
    program = Program('def before (a : String) (b : String) : Bool :=\n  decide (a < b) && a != b\n')
    assert call_entry(program, "before", {"a": "ab", "b": "b"}, None) is True
    assert call_entry(program, "before", {"a": "b", "b": "ab"}, None) is False


def _run_time_typed_trees(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Collect the line of every arithmetic tree compiled without a static type."""
    from veriscale.backends.embedded.compiler.arith import ArithMixin

    lines: list[int] = []
    original = ArithMixin._tree_closure

    def spy(self, trees, leaves, sc, exp, node, unsure=False, relation=False):  # type: ignore[no-untyped-def]
        closures, type_name = original(self, trees, leaves, sc, exp, node, unsure, relation)
        if type_name is None:
            lines.append(node.line)
        return closures, type_name

    monkeypatch.setattr(ArithMixin, "_tree_closure", spy)
    return lines


@pytest.mark.parametrize(("source", "entry", "args", "value"), [
    # `a.foldl f init` leaves `start`/`stop` to their defaults: its type is `Int`, not `Nat → Nat → Int`
    ("def p (a : Array Int) (r : Int) : Prop :=\n  r + a.foldl (fun m x => if x < m then x else m) a[0]! = 0\n",
     "p", {"a": Arr((3, -2)), "r": 2}, True),
    # a `·` section: the compiler's copy of the term reads the types the elaborator gave the original
    ("def p (xs : List Int) (n : Nat) : Bool :=\n  let count := fun x => (xs.filter (fun y => y = x)).length\n"
     "  xs.all (count · ≤ n / 2)\n", "p", {"xs": (1, 2, 1), "n": Nat(4)}, True),
    # leaves typed `Nat` under an argument whose parameter type the compiler does not know
    ("def q (xs : List Nat) : Nat :=\n  let window := fun (i j : Nat) => (xs.drop i).take (j - i + 1)\n"
     "  List.range xs.length |>.foldl (fun acc i =>\n"
     "    acc + (List.range (xs.length - i) |>.foldl (fun acc' d =>\n"
     "      let w := (window i (i + d)).length\n      acc' + w * w) 0)) 0\n",
     "q", {"xs": (Nat(7), Nat(8))}, 6),
])
def test_typed_leaves_compile_to_a_typed_tree(monkeypatch: pytest.MonkeyPatch, source: str, entry: str,
                                              args: dict[str, object], value: object) -> None:
    lines = _run_time_typed_trees(monkeypatch)
    program = Program(source)
    assert not program.elaboration.errors
    assert call_entry(program, entry, args, None) == value
    assert lines == []
