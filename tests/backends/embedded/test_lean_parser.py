"""The parser of the embedded Lean engine, one construct per test, on hand-written Lean snippets.

Trees are compared through :func:`shape`, a small projection of the AST onto tuples that keeps node
types and the fields that matter (operators, names, modes) and drops positions and parentheses.
"""

from __future__ import annotations

from typing import Any

import pytest

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser import OpenIn, ParsedFile, parse_file, parse_term
from veriscale.lean.lexer import LeanSyntaxError


def shape(node: Any) -> Any:
    """A compact, comparable view of a term: literals and names as Python values, nodes as tuples."""
    if node is None:
        return None
    if isinstance(node, list):
        return [shape(x) for x in node]
    if isinstance(node, A.Paren):
        return shape(node.term)
    if isinstance(node, A.Ident):
        return node.name
    if isinstance(node, A.NumLit):
        return node.value
    if isinstance(node, A.SciLit):
        return ("sci", node.mantissa, node.exponent)
    if isinstance(node, A.StrLit):
        return ("str", node.value)
    if isinstance(node, A.CharLit):
        return ("char", node.value)
    if isinstance(node, A.DotIdent):
        return "." + node.name
    if isinstance(node, A.Hole):
        return "_"
    if isinstance(node, A.Cdot):
        return "·"
    if isinstance(node, A.UnitLit):
        return "()"
    if isinstance(node, A.BinOp):
        return (node.op, shape(node.lhs), shape(node.rhs))
    if isinstance(node, A.UnOp):
        return (node.op, shape(node.arg))
    if isinstance(node, A.App):
        return ("app", shape(node.fn), *[shape(a) for a in node.args])
    if isinstance(node, A.NamedArg):
        return ("named", node.name, shape(node.value))
    if isinstance(node, A.Explicit):
        return ("@", shape(node.term))
    if isinstance(node, A.Proj):
        return ("proj", shape(node.term), node.field)
    if isinstance(node, A.Index):
        return ("idx" + ("" if node.mode == "plain" else node.mode), shape(node.coll), shape(node.index))
    if isinstance(node, A.Tuple):
        return ("tuple", *[shape(x) for x in node.items])
    if isinstance(node, A.AnonCtor):
        return ("anon", *[shape(x) for x in node.items])
    if isinstance(node, A.ListLit):
        return ("list", *[shape(x) for x in node.items])
    if isinstance(node, A.ArrayLit):
        return ("array", *[shape(x) for x in node.items])
    if isinstance(node, A.Ascription):
        return ("as", shape(node.term), shape(node.type))
    if isinstance(node, A.Sort):
        return ("sort", node.name)
    if isinstance(node, A.Quant):
        bound = None if node.bound is None else (node.bound[0], shape(node.bound[1]))
        return (node.kind, node.name, shape(node.type), bound, shape(node.body))
    return type(node).__name__


def term(text: str) -> A.Node:
    return parse_term(text)


def parse_ok(source: str) -> ParsedFile:
    parsed = parse_file(source)
    assert parsed.errors == [], [(e.line, e.col, e.message) for e in parsed.errors]
    return parsed


def one_command(source: str) -> A.Node:
    commands = parse_ok(source).commands
    assert len(commands) == 1, [type(c).__name__ for c in commands]
    return commands[0]


def one_def(source: str) -> A.DefCmd:
    cmd = one_command(source)
    assert isinstance(cmd, A.DefCmd)
    return cmd


def body(source: str) -> A.Node:
    d = one_def(source)
    assert d.body is not None
    return d.body


def binder_view(b: A.Binder) -> tuple[Any, ...]:
    return (b.kind, b.names, shape(b.type))


# =============================================================================================
# Definitions


def test_def_with_explicit_implicit_and_instance_binders() -> None:
    d = one_def("def pick {α : Type} [BEq α] (a b : α) (xs : List α) : Bool :=\n  a == b\n")
    assert (d.kind, d.name) == ("def", "pick")
    assert [binder_view(b) for b in d.binders] == [
        ("implicit", ["α"], ("sort", "Type")),
        ("inst", [], ("app", "BEq", "α")),
        ("explicit", ["a", "b"], "α"),
        ("explicit", ["xs"], ("app", "List", "α")),
    ]
    assert shape(d.type) == "Bool"
    assert d.type_text == "Bool"
    assert shape(d.body) == ("==", "a", "b")


def test_binder_type_text_is_the_source_text() -> None:
    d = one_def("def f (m : List (Int × Nat)) (g : Nat → Option Nat) : Array (Array Int) := #[]")
    assert [b.type_text for b in d.binders] == ["List (Int × Nat)", "Nat → Option Nat"]
    assert d.type_text == "Array (Array Int)"


def test_named_instance_binder_and_default_value() -> None:
    d = one_def("def f [inst : Inhabited α] (n : Nat := 3) : Nat := n")
    inst, dflt = d.binders
    assert (inst.kind, inst.names, shape(inst.type)) == ("inst", ["inst"], ("app", "Inhabited", "α"))
    assert (dflt.names, shape(dflt.default)) == (["n"], 3)


def test_def_without_type_and_abbrev() -> None:
    d = one_def("def three := 3")
    assert (d.name, d.type, shape(d.body)) == ("three", None, 3)
    ab = one_def("abbrev Grid := Array (Array Nat)")
    assert (ab.kind, ab.name, shape(ab.body)) == ("abbrev", "Grid", ("app", "Array", ("app", "Array", "Nat")))


def test_attributes_and_modifiers() -> None:
    d = one_def("@[reducible, simp]\nprivate partial def spin (n : Nat) : Nat := spin n\n")
    assert d.modifiers.attributes == ["reducible", "simp"]
    assert d.modifiers.private and d.modifiers.partial
    assert not d.modifiers.noncomputable
    assert d.name == "spin"


def test_attribute_on_its_own_line_applies_to_the_next_def() -> None:
    parsed = parse_ok("@[inline]\ndef a := 1\n\ndef b := 2\n")
    a, b = parsed.commands
    assert isinstance(a, A.DefCmd) and isinstance(b, A.DefCmd)
    assert (a.name, a.modifiers.attributes) == ("a", ["inline"])
    assert (b.name, b.modifiers.attributes) == ("b", [])


def test_def_by_equations() -> None:
    d = one_def("def fib : Nat → Nat\n  | 0 => 0\n  | 1 => 1\n  | n + 2 => fib n + fib (n + 1)\n")
    assert d.body is None and d.alts is not None
    assert [shape(a.patterns) for a in d.alts] == [[0], [1], [("+", "n", 2)]]
    assert shape(d.alts[2].rhs) == ("+", ("app", "fib", "n"), ("app", "fib", ("+", "n", 1)))


def test_where_clause_helpers() -> None:
    d = one_def(
        "def total (xs : List Nat) : Nat := go xs 0\n"
        "where\n"
        "  go (ys : List Nat) (acc : Nat) : Nat :=\n"
        "    match ys with\n"
        "    | [] => acc\n"
        "    | y :: rest => go rest (acc + y)\n"
        "  zero : Nat := 0\n"
    )
    assert shape(d.body) == ("app", "go", "xs", 0)
    assert [w.name for w in d.where] == ["go", "zero"]
    go = d.where[0]
    assert [binder_view(b) for b in go.binders] == [
        ("explicit", ["ys"], ("app", "List", "Nat")),
        ("explicit", ["acc"], "Nat"),
    ]
    assert isinstance(go.body, A.Match)
    assert shape(d.where[1].body) == 0


def test_termination_hints_are_skipped() -> None:
    parsed = parse_ok(
        "def down (n : Nat) : Nat :=\n"
        "  match n with\n"
        "  | 0 => 0\n"
        "  | k + 1 => down k\n"
        "termination_by n\n"
        "decreasing_by\n"
        "  simp_wf\n"
        "  omega\n"
        "\n"
        "def next := 1\n"
    )
    down, nxt = parsed.commands
    assert isinstance(down, A.DefCmd) and isinstance(down.body, A.Match)
    assert [shape(a.rhs) for a in down.body.alts] == [0, ("app", "down", "k")]
    assert isinstance(nxt, A.DefCmd) and (nxt.name, shape(nxt.body)) == ("next", 1)


def test_termination_hint_inside_where_helper() -> None:
    d = one_def(
        "def f (n : Nat) : Nat := aux n\n"
        "where\n"
        "  aux : Nat → Nat\n"
        "    | 0 => 0\n"
        "    | k + 1 => aux k\n"
        "  termination_by k => k\n"
        "  decreasing_by all_goals simp_wf\n"
    )
    assert [w.name for w in d.where] == ["aux"]
    assert d.where[0].alts is not None and len(d.where[0].alts) == 2


# =============================================================================================
# let / have


def test_let_chain() -> None:
    b = body("def f (n : Nat) : Nat :=\n  let a := n + 1\n  let b : Nat := a * 2\n  a + b\n")
    assert isinstance(b, A.Let) and not b.is_have
    assert (b.decl.name, shape(b.decl.value)) == ("a", ("+", "n", 1))
    inner = b.body
    assert isinstance(inner, A.Let)
    assert (inner.decl.name, shape(inner.decl.type), inner.decl.type_text) == ("b", "Nat", "Nat")
    assert shape(inner.body) == ("+", "a", "b")


def test_let_ends_at_a_line_in_its_own_column() -> None:
    # `f a` must not swallow the next line as another argument
    b = body("def g (a : Nat) : Nat :=\n  let x := f a\n  x\n")
    assert isinstance(b, A.Let)
    assert shape(b.decl.value) == ("app", "f", "a")
    assert shape(b.body) == "x"


def test_let_value_continues_on_a_more_indented_line() -> None:
    b = body("def g (a : Nat) : Nat :=\n  let x := f a\n    (a + 1)\n  x\n")
    assert isinstance(b, A.Let)
    assert shape(b.decl.value) == ("app", "f", "a", ("+", "a", 1))


def test_let_with_semicolon() -> None:
    t = term("let x := 5; x + 1")
    assert isinstance(t, A.Let)
    assert (t.decl.name, shape(t.decl.value), shape(t.body)) == ("x", 5, ("+", "x", 1))


def test_let_function_with_binders() -> None:
    t = term("let sq (k : Nat) : Nat := k * k\nsq 3")
    assert isinstance(t, A.Let)
    assert t.decl.name == "sq"
    assert [binder_view(b) for b in t.decl.binders] == [("explicit", ["k"], "Nat")]
    assert shape(t.body) == ("app", "sq", 3)


def test_let_patterns() -> None:
    b = body("def f (p : Nat × Nat) : Nat :=\n  let (a, b) := p\n  let ⟨c, d⟩ := p\n  a + b + c + d\n")
    assert isinstance(b, A.Let)
    assert b.decl.name is None and shape(b.decl.pattern) == ("tuple", "a", "b")
    assert isinstance(b.body, A.Let)
    assert shape(b.body.decl.pattern) == ("anon", "c", "d")


def test_let_rec() -> None:
    b = body(
        "def f (xs : List Nat) : Nat :=\n"
        "  let rec go (ys : List Nat) (acc : Nat) : Nat :=\n"
        "    match ys with\n"
        "    | [] => acc\n"
        "    | y :: rest => go rest (acc + y)\n"
        "  go xs 0\n"
    )
    assert isinstance(b, A.LetRec)
    assert [d.name for d in b.decls] == ["go"]
    assert [x for bd in b.decls[0].binders for x in bd.names] == ["ys", "acc"]
    assert isinstance(b.decls[0].value, A.Match)
    assert shape(b.body) == ("app", "go", "xs", 0)


def test_have_with_tactic_proof() -> None:
    b = body("def f (a b : Nat) : Nat :=\n  have h : a ≤ a + b := by\n    omega\n  a + b\n")
    assert isinstance(b, A.Let) and b.is_have
    assert b.decl.name == "h"
    assert shape(b.decl.type) == ("≤", "a", ("+", "a", "b"))
    assert isinstance(b.decl.value, A.ProofTerm)
    assert shape(b.body) == ("+", "a", "b")


def test_anonymous_have() -> None:
    t = term("have : 0 < 1 := by decide\n0")
    assert isinstance(t, A.Let) and t.is_have
    assert t.decl.name == "this"
    assert shape(t.body) == 0


# =============================================================================================
# match


def test_match_with_several_discriminants_and_patterns() -> None:
    b = body(
        "def f (n : Nat) (xs : List Nat) : Nat :=\n"
        "  match n, xs with\n"
        "  | 0, [] => 0\n"
        "  | k+1, b :: rest => k\n"
        "  | _, [x, y] => x + y\n"
        "  | 7, _ => 7\n"
        "  | _, _ => 1\n"
    )
    assert isinstance(b, A.Match)
    assert shape(b.discrs) == ["n", "xs"]
    assert b.hyps == [None, None]
    assert [shape(a.patterns) for a in b.alts] == [
        [0, ("list",)],
        [("+", "k", 1), ("::", "b", "rest")],
        ["_", ("list", "x", "y")],
        [7, "_"],
        ["_", "_"],
    ]


def test_match_constructor_patterns() -> None:
    b = body(
        "def f (o : Option (Nat × Nat)) : Nat :=\n"
        "  match o with\n"
        "  | .some (x, y) => x + y\n"
        "  | some ⟨a, _⟩ => a\n"
        "  | .none => 0\n"
        "  | none => 1\n"
    )
    assert isinstance(b, A.Match)
    assert [shape(a.patterns[0]) for a in b.alts] == [
        ("app", ".some", ("tuple", "x", "y")),
        ("app", "some", ("anon", "a", "_")),
        ".none",
        "none",
    ]


def test_match_literal_and_nested_patterns() -> None:
    b = body(
        "def f (xs : List (Nat × Nat)) (c : Char) (s : String) (i : Int) : Nat :=\n"
        "  match xs, c, s, i with\n"
        "  | (x, _) :: _, 'a', \"hi\", -1 => x\n"
        "  | all@(⟨a, _⟩ :: _), _, _, _ => a\n"
        "  | _, _, _, _ => 0\n"
    )
    assert isinstance(b, A.Match)
    first, second, _ = b.alts
    assert shape(first.patterns) == [
        ("::", ("tuple", "x", "_"), "_"),
        ("char", "a"),
        ("str", "hi"),
        ("-", 1),
    ]
    assert shape(second.patterns[0]) == ("@", "all", ("::", ("anon", "a", "_"), "_"))


def test_match_alternatives_sharing_a_right_hand_side() -> None:
    b = body("def f (n : Nat) : Nat :=\n  match n with\n  | 0 | 1 => 1\n  | _ => 2\n")
    assert isinstance(b, A.Match)
    assert [shape(a.patterns) for a in b.alts] == [[0], [1], ["_"]]
    assert b.alts[0].rhs is b.alts[1].rhs


def test_match_with_hypothesis_name() -> None:
    b = body("def f (n : Nat) : Nat :=\n  match h : n with\n  | 0 => 0\n  | _ => 1\n")
    assert isinstance(b, A.Match)
    assert b.hyps == ["h"]


def test_nested_match_alternatives_stop_at_the_outer_column() -> None:
    b = body(
        "def f (a b : Nat) : Nat :=\n"
        "  match a with\n"
        "  | 0 => match b with\n"
        "    | 0 => 1\n"
        "    | _ => 2\n"
        "  | _ => 3\n"
    )
    assert isinstance(b, A.Match)
    assert len(b.alts) == 2
    inner = b.alts[0].rhs
    assert isinstance(inner, A.Match) and len(inner.alts) == 2
    assert shape(b.alts[1].rhs) == 3


def test_match_as_lambda_body_inside_parentheses() -> None:
    t = term("xs.foldl (fun acc x =>\n    match x with\n    | 0 => acc\n    | _ => acc + x) 0")
    assert isinstance(t, A.App) and shape(t.fn) == "xs.foldl"
    lam, init = t.args
    assert isinstance(lam, A.Paren) and isinstance(lam.term, A.Lambda)
    assert isinstance(lam.term.body, A.Match) and len(lam.term.body.alts) == 2
    assert shape(init) == 0


# =============================================================================================
# if


def test_if_then_else_chain() -> None:
    t = term("if x > 3 then a else if x > 1 then b else c")
    assert isinstance(t, A.If) and t.hyp is None
    assert shape(t.cond) == (">", "x", 3)
    assert isinstance(t.els, A.If)
    assert (shape(t.els.then), shape(t.els.els)) == ("b", "c")


def test_dependent_if() -> None:
    t = term("if h : i < xs.size then xs[i] else 0")
    assert isinstance(t, A.If)
    assert t.hyp == "h"
    assert shape(t.cond) == ("<", "i", "xs.size")
    assert shape(t.then) == ("idx", "xs", "i")


def test_if_let() -> None:
    t = term("if let some x := o then x + 1 else 0")
    assert isinstance(t, A.IfLet)
    assert (shape(t.pattern), shape(t.value)) == (("app", "some", "x"), "o")
    assert (shape(t.then), shape(t.els)) == (("+", "x", 1), 0)


def test_term_if_requires_else() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        term("if c then a")
    assert info.value.line == 1
    assert "else" in info.value.message


# =============================================================================================
# fun, sections, pipelines


def test_fun_with_simple_and_typed_binders() -> None:
    t = term("fun (x : Nat) (y z : Int) w => x")
    assert isinstance(t, A.Lambda)
    assert [(b.names, shape(b.type)) for b in t.binders] == [(["x"], "Nat"), (["y", "z"], "Int"), (["w"], None)]


def test_fun_type_after_binders_applies_to_untyped_binders() -> None:
    t = term("fun x y : Nat => x + y")
    assert isinstance(t, A.Lambda)
    assert [(b.names, shape(b.type)) for b in t.binders] == [(["x"], "Nat"), (["y"], "Nat")]


def test_lambda_symbol() -> None:
    t = term("λ x => x * 2")
    assert isinstance(t, A.Lambda) and shape(t.body) == ("*", "x", 2)


def test_fun_pattern_binders() -> None:
    t = term("fun (a, b) ⟨c, d⟩ _ => a")
    assert isinstance(t, A.Lambda)
    assert [(b.names, shape(b.pattern)) for b in t.binders] == [
        ([], ("tuple", "a", "b")),
        ([], ("anon", "c", "d")),
        (["_"], None),
    ]


def test_fun_with_match_alternatives() -> None:
    t = term("fun\n  | 0 => 1\n  | _ => 2")
    assert isinstance(t, A.LambdaMatch)
    assert [shape(a.patterns) for a in t.alts] == [[0], ["_"]]


def test_fun_with_mapsto_arrow() -> None:
    # Lean's basicFun ends the binders with `unicodeSymbol " ↦" " =>"`
    t = term("fun x ↦ x + 1")
    assert isinstance(t, A.Lambda) and shape(t.body) == ("+", "x", 1)
    typed = term("fun (x : Nat) y ↦ x * y")
    assert isinstance(typed, A.Lambda)
    assert [b.names for b in typed.binders] == [["x"], ["y"]] and shape(typed.body) == ("*", "x", "y")
    assert isinstance(term("λ x ↦ x").body, A.Ident)


def test_fun_as_trailing_argument() -> None:
    t = term("xs.all fun x => x > 0")
    assert isinstance(t, A.App) and shape(t.fn) == "xs.all"
    assert isinstance(t.args[0], A.Lambda)


def test_fun_body_extends_over_pipeline() -> None:
    t = term("fun x => x |>.succ")
    assert isinstance(t, A.Lambda)
    assert shape(t.body) == ("proj", "x", "succ")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(· + 1)", ("+", "·", 1)),
        ("(· + ·)", ("+", "·", "·")),
        ("(f · 2)", ("app", "f", "·", 2)),
        ("(·.length)", ("proj", "·", "length")),
        ("(·.1)", ("proj", "·", "1")),
        ("(. < 3)", ("<", "·", 3)),
    ],
)
def test_cdot_sections(text: str, expected: Any) -> None:
    t = term(text)
    assert isinstance(t, A.Paren)  # the parentheses delimit the section
    assert shape(t) == expected


def test_pipelines() -> None:
    assert shape(term("x |> f |> g")) == ("|>", ("|>", "x", "f"), "g")
    assert shape(term("f <| g <| x")) == ("<|", "f", ("<|", "g", "x"))
    assert shape(term("f $ g $ x")) == ("$", "f", ("$", "g", "x"))
    assert shape(term("f x |> g")) == ("|>", ("app", "f", "x"), "g")


def test_pipeline_field_with_arguments() -> None:
    t = term("xs |>.map f |>.filter (· > 2) |>.length")
    assert shape(t) == (
        "proj",
        ("app", ("proj", ("app", ("proj", "xs", "map"), "f"), "filter"), (">", "·", 2)),
        "length",
    )


def test_pipeline_field_on_application() -> None:
    assert shape(term("xs.toArray.qsort (· < ·) |>.toList")) == (
        "proj",
        ("app", "xs.toArray.qsort", ("<", "·", "·")),
        "toList",
    )


# =============================================================================================
# Field notation, projections, indexing


def test_dotted_identifier_stays_one_name() -> None:
    assert shape(term("xs.length")) == "xs.length"
    assert shape(term("List.range n")) == ("app", "List.range", "n")


def test_field_on_parenthesised_expression() -> None:
    assert shape(term("(f x).length")) == ("proj", ("app", "f", "x"), "length")
    assert shape(term("(xs.map f).sum")) == ("proj", ("app", "xs.map", "f"), "sum")


def test_numeric_projections() -> None:
    assert shape(term("p.1 + p.2")) == ("+", "p.1", "p.2")
    assert shape(term("(f p).2.1")) == ("proj", ("proj", ("app", "f", "p"), "2"), "1")
    assert shape(term("(a, b).1")) == ("proj", ("tuple", "a", "b"), "1")


def test_field_on_literals() -> None:
    assert shape(term('"abc".length')) == ("proj", ("str", "abc"), "length")
    assert shape(term("#[1, 2].size")) == ("proj", ("array", 1, 2), "size")
    assert shape(term("'a'.toNat")) == ("proj", ("char", "a"), "toNat")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("xs[i]", ("idx", "xs", "i")),
        ("xs[i]!", ("idx!", "xs", "i")),
        ("xs[i]?", ("idx?", "xs", "i")),
        ("xs[i]'h", ("idxproof", "xs", "i")),
        ("xs[i]'(by omega)", ("idxproof", "xs", "i")),
        ("xs[i + 1]!", ("idx!", "xs", ("+", "i", 1))),
        ("g[i]![j]!", ("idx!", ("idx!", "g", "i"), "j")),
        ("(f x)[0]!", ("idx!", ("app", "f", "x"), 0)),
        ("xs[i]?.getD 0", ("app", ("proj", ("idx?", "xs", "i"), "getD"), 0)),
    ],
)
def test_indexing(text: str, expected: Any) -> None:
    assert shape(term(text)) == expected


def test_bracket_after_space_is_an_argument_not_an_index() -> None:
    assert shape(term("f [i]")) == ("app", "f", ("list", "i"))


def test_subarray_slice() -> None:
    # Init/Data/Array/Subarray: `syntax:max term noWs "[" term ":" term "]"`, expanded by
    # `macro_rules` to `Array.toSubarray xs a b` (not `xs` applied to the range `[1:3]`)
    assert shape(term("xs[1:3]")) == ("app", "Array.toSubarray", "xs", 1, 3)
    assert shape(term("xs[:n]")) == ("app", "Array.toSubarray", "xs", 0, "n")
    assert shape(term("xs[i + 1:j].toArray")) == ("proj", ("app", "Array.toSubarray", "xs", ("+", "i", 1), "j"), "toArray")


def test_subarray_slice_without_stop_binds_the_array_once() -> None:
    # `$a[$start : ]` expands to `let a := $a; Array.toSubarray a $start a.size`
    t = term("f xs[2:]")
    assert isinstance(t, A.App) and isinstance(t.args[0], A.Let)
    slice_let = t.args[0]
    var = slice_let.decl.name
    assert shape(slice_let.decl.value) == "xs"
    assert shape(slice_let.body) == ("app", "Array.toSubarray", var, 2, ("proj", var, "size"))


def test_slice_needs_the_bracket_right_after_the_term() -> None:
    # `noWs`: with a space, `[1:3]` is a range argument
    assert shape(term("f [1:3]")) == ("app", "f", "RangeLit")


# =============================================================================================
# Literals, brackets, structures


def test_numeric_literals() -> None:
    assert shape(term("42")) == 42
    assert shape(term("0xff")) == 255
    assert shape(term("1.25")) == ("sci", 125, -2)
    assert shape(term("3e2")) == ("sci", 3, 2)
    sci = term("2.5e-3")
    assert isinstance(sci, A.SciLit) and sci.text == "2.5e-3"


def test_interpolated_string() -> None:
    t = term('s!"n = {n}, twice {2 * n}"')
    assert isinstance(t, A.Interp)
    parts = [p if isinstance(p, str) else shape(p) for p in t.parts]
    assert parts == ["n = ", "n", ", twice ", ("*", 2, "n")]


def test_interpolated_expression_positions_are_file_positions() -> None:
    d = one_def('def f (n : Nat) : String :=\n  s!"v={n + 1}"\n')
    assert isinstance(d.body, A.Interp)
    inner = d.body.parts[1]
    assert isinstance(inner, A.BinOp)
    assert (inner.lhs.line, inner.lhs.col) == (2, 8)
    assert (inner.rhs.line, inner.rhs.col) == (2, 12)


def test_brackets() -> None:
    assert shape(term("[1, 2, 3]")) == ("list", 1, 2, 3)
    assert shape(term("[]")) == ("list",)
    assert shape(term("#[a, b]")) == ("array", "a", "b")
    assert shape(term("#[]")) == ("array",)
    assert shape(term("(1, 2, 3)")) == ("tuple", 1, 2, 3)
    assert shape(term("()")) == "()"
    assert shape(term("⟨1, ⟨2, 3⟩⟩")) == ("anon", 1, ("anon", 2, 3))


def test_ranges() -> None:
    r = term("[0:n]")
    assert isinstance(r, A.RangeLit)
    assert (shape(r.start), shape(r.stop), r.step) == (0, "n", None)
    r2 = term("[:10]")
    assert isinstance(r2, A.RangeLit) and r2.start is None and shape(r2.stop) == 10
    r3 = term("[1:n:2]")
    assert isinstance(r3, A.RangeLit) and shape(r3.step) == 2


def test_structure_instances() -> None:
    s = term("{ x := 1, y := a + 2 }")
    assert isinstance(s, A.StructInst) and s.source is None
    assert [(n, shape(v)) for n, v in s.fields] == [("x", 1), ("y", ("+", "a", 2))]
    upd = term("{ p with x := 3 }")
    assert isinstance(upd, A.StructInst)
    assert shape(upd.source) == "p" and [n for n, _ in upd.fields] == ["x"]
    typed = term("{ x := 1 : Point }")
    assert isinstance(typed, A.StructInst) and shape(typed.type) == "Point"


def test_structure_instance_fields_on_separate_lines() -> None:
    # the fields are `sepByIndent`ed: under `withPosition`, so a value's arguments must lie right
    # of the first field's column and a line starting in that column is the next field
    s = term("{ x := 1\n  y := f 2 }")
    assert isinstance(s, A.StructInst)
    assert [(n, shape(v)) for n, v in s.fields] == [("x", 1), ("y", ("app", "f", 2))]
    upd = term("{ p with\n    x := g a\n    y := h\n      b }")
    assert isinstance(upd, A.StructInst)
    assert [(n, shape(v)) for n, v in upd.fields] == [("x", ("app", "g", "a")), ("y", ("app", "h", "b"))]


def test_structure_instance_field_left_of_the_first_field_is_an_error() -> None:
    # `sepByIndent` checks `colGe` against the first field before each further field
    with pytest.raises(LeanSyntaxError) as info:
        term("{ x := 1\n y := 2 }")
    assert (info.value.line, info.value.col) == (2, 1)


def test_structure_instance_argument_in_the_field_column_is_a_new_field() -> None:
    s = term("{ x := f\n  a }")  # `a` is the field abbreviation `a := a`, not an argument of `f`
    assert isinstance(s, A.StructInst)
    assert [(n, shape(v)) for n, v in s.fields] == [("x", "f"), ("a", "a")]


def test_type_ascription_and_coercion() -> None:
    assert shape(term("(n : Int) + 1")) == ("+", ("as", "n", "Int"), 1)
    asc = term("(xs.length : Int)")
    assert isinstance(asc, A.Paren) and isinstance(asc.term, A.Ascription)
    assert asc.term.type_text == "Int"
    assert shape(term("↑x + 1")) == ("+", ("↑", "x"), 1)
    assert shape(term("f ↑x")) == ("app", "f", ("↑", "x"))


def test_named_and_explicit_arguments() -> None:
    assert shape(term("xs.foldl (init := 0) f")) == ("app", "xs.foldl", ("named", "init", 0), "f")
    assert shape(term("@id Nat 1")) == ("app", ("@", "id"), "Nat", 1)


def test_sorts() -> None:
    assert shape(term("Type")) == ("sort", "Type")
    assert shape(term("Prop")) == ("sort", "Prop")
    assert shape(term("List Type")) == ("app", "List", ("sort", "Type"))


def test_show_from() -> None:
    t = term("show Nat from 3")
    assert isinstance(t, A.Show) and (shape(t.type), shape(t.term)) == ("Nat", 3)


def test_proof_terms_inside_anonymous_constructor() -> None:
    t = term("xs.get ⟨i, by omega⟩")
    assert isinstance(t, A.App)
    ctor = t.args[0]
    assert isinstance(ctor, A.AnonCtor)
    assert shape(ctor.items[0]) == "i" and isinstance(ctor.items[1], A.ProofTerm)


# =============================================================================================
# Operators: precedence and associativity


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a + b * c", ("+", "a", ("*", "b", "c"))),
        ("a * b + c", ("+", ("*", "a", "b"), "c")),
        ("a - b - c", ("-", ("-", "a", "b"), "c")),
        ("a / b * c", ("*", ("/", "a", "b"), "c")),
        ("a % b + 1", ("+", ("%", "a", "b"), 1)),
        ("n - 1 + 1", ("+", ("-", "n", 1), 1)),
        ("a :: b :: c", ("::", "a", ("::", "b", "c"))),
        ("a :: b ++ c", ("++", ("::", "a", "b"), "c")),
        ("a ++ b ++ c", ("++", ("++", "a", "b"), "c")),
        ("2 ^ 3 ^ 4", ("^", 2, ("^", 3, 4))),
        ("a ^ b * c", ("*", ("^", "a", "b"), "c")),
        ("¬ a ∧ b", ("∧", ("¬", "a"), "b")),
        ("¬ a = b", ("¬", ("=", "a", "b"))),
        ("!a && b", ("&&", ("!", "a"), "b")),
        ("!a == b", ("!", ("==", "a", "b"))),
        ("a → b → c", ("→", "a", ("→", "b", "c"))),
        ("a ∧ b → c", ("→", ("∧", "a", "b"), "c")),
        ("a ∨ b → c", ("→", ("∨", "a", "b"), "c")),
        ("a ↔ b ∧ c", ("↔", "a", ("∧", "b", "c"))),
        ("a ∧ b ∨ c", ("∨", ("∧", "a", "b"), "c")),
        ("a ∨ b ∧ c", ("∨", "a", ("∧", "b", "c"))),
        ("a ∧ b ∧ c", ("∧", "a", ("∧", "b", "c"))),
        ("a && b || c", ("||", ("&&", "a", "b"), "c")),
        ("a = b ∧ c < d", ("∧", ("=", "a", "b"), ("<", "c", "d"))),
        ("a ≤ b ∧ b ≥ c", ("∧", ("≤", "a", "b"), ("≥", "b", "c"))),
        ("a ≠ b", ("≠", "a", "b")),
        ("a != b", ("!=", "a", "b")),
        ("a <= b", ("≤", "a", "b")),
        ("a -> b", ("→", "a", "b")),
        ("f x y + 1", ("+", ("app", "f", "x", "y"), 1)),
        ("f (g x) y", ("app", "f", ("app", "g", "x"), "y")),
        ("-x", ("-", "x")),
        ("- x * y", ("*", ("-", "x"), "y")),
        ("-x ^ 2", ("-", ("^", "x", 2))),
        ("a * -b", ("*", "a", ("-", "b"))),
        ("n - -1", ("-", "n", ("-", 1))),
        ("f (-1)", ("app", "f", ("-", 1))),
        ("f -1", ("-", "f", 1)),  # as in Lean: binary minus, not an argument
        ("x ∈ xs", ("∈", "x", "xs")),
        ("x ∉ xs", ("∉", "x", "xs")),
        ("x ∈ xs ∧ y ∈ ys", ("∧", ("∈", "x", "xs"), ("∈", "y", "ys"))),
        ("a ∣ b", ("∣", "a", "b")),
        ("f ∘ g ∘ h", ("∘", "f", ("∘", "g", "h"))),
        ("Nat × Nat → Nat", ("→", ("×", "Nat", "Nat"), "Nat")),
        ("List (Nat × Int) → Option Nat", ("→", ("app", "List", ("×", "Nat", "Int")), ("app", "Option", "Nat"))),
        ("Nat.succ <$> some 1", ("<$>", "Nat.succ", ("app", "some", 1))),
    ],
)
def test_precedence_and_associativity(text: str, expected: Any) -> None:
    assert shape(term(text)) == expected


def test_pow_binds_tighter_than_shift() -> None:
    # Prelude: `infixl:75 " <<< "`, `infixr:80 " ^ "`
    assert shape(term("a <<< b ^ c")) == ("<<<", "a", ("^", "b", "c"))
    assert shape(term("a ^ b <<< c")) == ("<<<", ("^", "a", "b"), "c")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2 ^ 3 ^ 2", ("^", 2, ("^", 3, 2))),  # right associative
        ("a * b ^ c", ("*", "a", ("^", "b", "c"))),
        ("-x ^ 2", ("-", ("^", "x", 2))),  # prefix `-` takes its argument at 75 < 80
        ("f x ^ 2", ("^", ("app", "f", "x"), 2)),
    ],
)
def test_pow_precedence(text: str, expected: Any) -> None:
    assert shape(term(text)) == expected


def test_bool_xor_is_the_function_xor() -> None:
    # namespace Bool: `infixl:33 " ^^ " => xor`, between `||` (30) and `&&` (35)
    assert shape(term("a ^^ b")) == ("app", "Bool.xor", "a", "b")
    assert shape(term("a || b ^^ c && d")) == ("||", "a", ("app", "Bool.xor", "b", ("&&", "c", "d")))
    assert shape(term("a ^^^ b")) == ("^^^", "a", "b")


def test_sum_type_notation() -> None:
    # `infixr:30 " ⊕ " => Sum`, below `×` (35)
    assert shape(term("Nat ⊕ Int × Bool")) == ("⊕", "Nat", ("×", "Int", "Bool"))
    assert shape(term("A ⊕ B ⊕ C")) == ("⊕", "A", ("⊕", "B", "C"))


def test_negative_argument_needs_parentheses() -> None:
    # `-` is `prefix:75`, below argument precedence
    t = term("f (-x) y")
    assert shape(t) == ("app", "f", ("-", "x"), "y")


# =============================================================================================
# Quantifiers


def test_bounded_forall_over_a_collection_scopes_over_the_conjunction() -> None:
    t = term("∀ x ∈ xs, P x ∧ Q x")
    assert shape(t) == ("forall", "x", None, ("∈", "xs"), ("∧", ("app", "P", "x"), ("app", "Q", "x")))


def test_bounded_forall_below_a_number() -> None:
    t = term("∀ i < n, xs[i]! > 0")
    assert shape(t) == ("forall", "i", None, ("<", "n"), (">", ("idx!", "xs", "i"), 0))


def test_unbounded_forall_with_implication() -> None:
    t = term("∀ i, i < n → P i")
    assert shape(t) == ("forall", "i", None, None, ("→", ("<", "i", "n"), ("app", "P", "i")))


def test_exists_with_several_names_nests() -> None:
    t = term("∃ i j, i < j ∧ P i j")
    assert shape(t) == (
        "exists", "i", None, None,
        ("exists", "j", None, None, ("∧", ("<", "i", "j"), ("app", "P", "i", "j"))),
    )


def test_typed_quantifier_binders() -> None:
    assert shape(term("∀ (i : Nat), P i")) == ("forall", "i", "Nat", None, ("app", "P", "i"))
    assert shape(term("∀ x : Int, P x")) == ("forall", "x", "Int", None, ("app", "P", "x"))
    two = term("∀ (i j : Nat), i ≤ j → P i")
    assert shape(two) == ("forall", "i", "Nat", None, ("forall", "j", "Nat", None, ("→", ("≤", "i", "j"), ("app", "P", "i"))))
    assert isinstance(two, A.Quant) and two.type_text == "Nat"


def test_nested_bounded_quantifiers() -> None:
    t = term("∀ i < n, ∀ j < i, a[j]! ≤ a[i]!")
    assert shape(t) == (
        "forall", "i", None, ("<", "n"),
        ("forall", "j", None, ("<", "i"), ("≤", ("idx!", "a", "j"), ("idx!", "a", "i"))),
    )


def test_exists_bounded_by_membership() -> None:
    assert shape(term("∃ x ∈ xs, x > 0")) == ("exists", "x", None, ("∈", "xs"), (">", "x", 0))


def test_quantifier_with_name_then_bracketed_binder() -> None:
    # `∀` takes `many1 (binderIdent <|> bracketedBinder)`: names and brackets mix
    t = term("∀ i (h : i < n), xs[i] = 0")
    assert shape(t) == ("forall", "i", None, None, ("forall", "h", ("<", "i", "n"), None, ("=", ("idx", "xs", "i"), 0)))


def test_quantifier_with_names_around_a_bracket() -> None:
    t = term("∃ i j (h : i < j) k, k = i")
    assert shape(t) == (
        "exists", "i", None, None,
        ("exists", "j", None, None, ("exists", "h", ("<", "i", "j"), None, ("exists", "k", None, None, ("=", "k", "i")))),
    )


def test_binder_predicate_after_a_bracket_is_an_error_at_the_operator() -> None:
    # `∀ x ∈ s, P` is its own notation (one binder name); it does not follow a bracketed binder
    with pytest.raises(LeanSyntaxError) as info:
        term("∀ (y : Nat) x ∈ s, P x")
    assert (info.value.line, info.value.col) == (1, 14)


def test_quantifier_with_several_bracketed_binders() -> None:
    t = term("∀ (i : Nat) (h : i < n), xs[i] = 0")
    assert shape(t) == ("forall", "i", "Nat", None, ("forall", "h", ("<", "i", "n"), None, ("=", ("idx", "xs", "i"), 0)))


def test_dependent_arrow_inside_quantifier_body() -> None:
    t = term("∀ i, (h : i < n) → xs[i] = 0")
    assert shape(t) == ("forall", "i", None, None, ("→", ("as", "h", ("<", "i", "n")), ("=", ("idx", "xs", "i"), 0)))


def test_quantifier_body_extends_to_the_right() -> None:
    # the body of `∀` is a whole term: the conjunction belongs to it
    t = term("a ∧ ∀ x ∈ xs, x > 0 ∧ x < 9")
    assert isinstance(t, A.BinOp) and t.op == "∧"
    assert shape(t.rhs) == ("forall", "x", None, ("∈", "xs"), ("∧", (">", "x", 0), ("<", "x", 9)))


# =============================================================================================
# do notation


def do_items(source: str) -> list[A.Node]:
    b = body(source)
    assert isinstance(b, A.App) and shape(b.fn) == "Id.run"
    block = b.args[0]
    assert isinstance(block, A.Do)
    return block.seq.items


def test_do_let_mut_reassign_and_return() -> None:
    items = do_items(
        "def f (n : Nat) : Nat := Id.run do\n"
        "  let mut acc := 0\n"
        "  let k : Nat := 2\n"
        "  acc := acc + n\n"
        "  acc += k\n"
        "  return acc\n"
    )
    assert [type(i).__name__ for i in items] == ["DoLet", "DoLet", "DoReassign", "DoReassign", "DoReturn"]
    first, second, assign, plus_assign, ret = items
    assert isinstance(first, A.DoLet) and first.mutable and first.decl.name == "acc"
    assert isinstance(second, A.DoLet) and not second.mutable and shape(second.decl.type) == "Nat"
    assert isinstance(assign, A.DoReassign)
    assert (shape(assign.target), assign.op, shape(assign.value)) == ("acc", ":=", ("+", "acc", "n"))
    assert isinstance(plus_assign, A.DoReassign) and plus_assign.op == "+="
    assert isinstance(ret, A.DoReturn) and shape(ret.term) == "acc"


def test_do_for_in_collection_and_range() -> None:
    items = do_items(
        "def f (xs : Array Nat) (n : Nat) : Nat := Id.run do\n"
        "  let mut s := 0\n"
        "  for x in xs do\n"
        "    s := s + x\n"
        "  for i in [0:n] do\n"
        "    s := s + i\n"
        "  for h : j in [1:n] do\n"
        "    s := s + j\n"
        "  s\n"
    )
    loops = [i for i in items if isinstance(i, A.DoFor)]
    assert len(loops) == 3
    assert [(shape(p), shape(c)) for p, c in loops[0].clauses] == [("x", "xs")]
    pat, coll = loops[1].clauses[0]
    assert shape(pat) == "i" and isinstance(coll, A.RangeLit)
    assert loops[2].hyp == "h"
    assert all(len(loop.body.items) == 1 for loop in loops)
    assert isinstance(items[-1], A.DoExpr) and shape(items[-1].term) == "s"


def test_do_for_with_lockstep_clauses() -> None:
    items = do_items(
        "def f (xs ys : List Nat) : Nat := Id.run do\n  let mut s := 0\n  for x in xs, y in ys do\n    s := s + x * y\n  s\n"
    )
    loop = items[1]
    assert isinstance(loop, A.DoFor)
    assert [(shape(p), shape(c)) for p, c in loop.clauses] == [("x", "xs"), ("y", "ys")]


def test_do_while_break_continue() -> None:
    items = do_items(
        "def f (n : Nat) : Nat := Id.run do\n"
        "  let mut i := 0\n"
        "  while i < n do\n"
        "    i := i + 1\n"
        "    if i == 3 then\n"
        "      continue\n"
        "    if i > 7 then break\n"
        "  return i\n"
    )
    loop = items[1]
    assert isinstance(loop, A.DoWhile)
    assert shape(loop.cond) == ("<", "i", "n")
    inner = loop.body.items
    assert [type(x).__name__ for x in inner] == ["DoReassign", "DoIf", "DoIf"]
    assert isinstance(inner[1], A.DoIf) and isinstance(inner[1].then.items[0], A.DoContinue)
    assert isinstance(inner[2], A.DoIf) and isinstance(inner[2].then.items[0], A.DoBreak)
    assert inner[1].els is None and inner[2].els is None


def test_do_if_without_else_is_followed_by_more_elements() -> None:
    items = do_items(
        "def f (n : Nat) : Nat := Id.run do\n  if n > 5 then return 1\n  let x := n\n  pure x\n"
    )
    assert [type(i).__name__ for i in items] == ["DoIf", "DoLet", "DoExpr"]
    cond = items[0]
    assert isinstance(cond, A.DoIf) and cond.els is None
    assert isinstance(cond.then.items[0], A.DoReturn)


def test_do_if_else_if_chain() -> None:
    items = do_items(
        "def f (n : Nat) : Nat := Id.run do\n"
        "  let mut r := 0\n"
        "  if n = 0 then\n"
        "    r := 1\n"
        "  else if n = 1 then\n"
        "    r := 2\n"
        "  else\n"
        "    r := 3\n"
        "  return r\n"
    )
    chain = items[1]
    assert isinstance(chain, A.DoIf) and chain.els is not None
    nested = chain.els.items[0]
    assert isinstance(nested, A.DoIf)
    assert shape(nested.cond) == ("=", "n", 1)
    assert nested.els is not None and isinstance(nested.els.items[0], A.DoReassign)
    assert isinstance(items[2], A.DoReturn)


def test_do_arrow_bind_and_pattern_reassign() -> None:
    items = do_items(
        "def f : Nat := Id.run do\n  let y ← pure 1\n  let mut r := y\n  r ← pure (r + 1)\n  let mut (a, b) := (1, 2)\n  (a, b) := (b, a)\n  return r\n"
    )
    bind = items[0]
    assert isinstance(bind, A.DoLet) and bind.arrow and bind.decl.name == "y"
    rebind = items[2]
    assert isinstance(rebind, A.DoReassign) and rebind.op == "←"
    swap = items[4]
    assert isinstance(swap, A.DoReassign) and shape(swap.target) == ("tuple", "a", "b")


def test_do_match_with_sequence_alternatives() -> None:
    items = do_items(
        "def f (xs : List Nat) : Nat := Id.run do\n"
        "  let mut n := 0\n"
        "  match xs with\n"
        "  | [] =>\n"
        "    n := 5\n"
        "    return n\n"
        "  | _ :: _ => pure ()\n"
        "  return n\n"
    )
    m = items[1]
    assert isinstance(m, A.DoMatch)
    assert [len(a.rhs.items) for a in m.alts] == [2, 1]
    assert isinstance(items[2], A.DoReturn)


def test_do_unless_and_let_rec() -> None:
    items = do_items(
        "def f (n : Nat) : Nat := Id.run do\n"
        "  unless n > 0 do\n"
        "    return 1\n"
        "  let rec aux (k : Nat) : Nat := if k = 0 then 0 else aux (k - 1)\n"
        "  return aux n\n"
    )
    assert isinstance(items[0], A.DoUnless)
    assert isinstance(items[1], A.DoLetRec) and [d.name for d in items[1].decls] == ["aux"]


def test_do_element_continues_on_a_deeper_line() -> None:
    items = do_items("def f (n : Nat) : Nat := Id.run do\n  let x := Nat.add n\n    1\n  let y := x\n  y\n")
    assert len(items) == 3
    first = items[0]
    assert isinstance(first, A.DoLet) and shape(first.decl.value) == ("app", "Nat.add", "n", 1)


def test_do_nested_action() -> None:
    # Lean's expandLiftMethod: `(← e)` becomes `let a ← e` just before its do element
    items = do_items("def f : Nat := Id.run do\n  let x := (← pure 1) + 1\n  return x\n")
    assert [type(i).__name__ for i in items] == ["DoLet", "DoLet", "DoReturn"]
    lifted, let_x = items[0], items[1]
    assert isinstance(lifted, A.DoLet) and isinstance(let_x, A.DoLet)
    assert lifted.arrow and shape(lifted.decl.value) == ("app", "pure", 1)
    assert let_x.decl.name == "x" and shape(let_x.decl.value) == ("+", lifted.decl.name, 1)


def test_nested_actions_are_lifted_innermost_first_in_order() -> None:
    items = do_items("def f : Nat := Id.run do\n  return (← g (← a)) + (← b)\n")
    assert [type(i).__name__ for i in items] == ["DoLet", "DoLet", "DoLet", "DoReturn"]
    a, g, b, ret = items
    assert isinstance(a, A.DoLet) and isinstance(g, A.DoLet) and isinstance(b, A.DoLet)
    assert shape(a.decl.value) == "a"
    assert shape(g.decl.value) == ("app", "g", a.decl.name)
    assert shape(b.decl.value) == "b"
    assert isinstance(ret, A.DoReturn) and shape(ret.term) == ("+", g.decl.name, b.decl.name)
    assert len({a.decl.name, g.decl.name, b.decl.name}) == 3


def test_nested_action_goes_to_the_innermost_do_element() -> None:
    # a nested `do` sequence (here the `then` branch) is the target of its own actions
    items = do_items("def f : Nat := Id.run do\n  if (← c) then\n    let y := (← d)\n    return y\n  return 0\n")
    assert [type(i).__name__ for i in items] == ["DoLet", "DoIf", "DoReturn"]
    branch = items[1]
    assert isinstance(branch, A.DoIf)
    assert [type(i).__name__ for i in branch.then.items] == ["DoLet", "DoLet", "DoReturn"]


def test_nested_action_in_a_while_condition_runs_at_each_iteration() -> None:
    # `while c do b` is `repeat (if c then b else break)`: the lifted action lands inside the loop
    items = do_items("def f : Nat := Id.run do\n  while (← c) do\n    x := 1\n  return 0\n")
    assert [type(i).__name__ for i in items] == ["DoRepeat", "DoReturn"]
    loop = items[0]
    assert isinstance(loop, A.DoRepeat)
    assert [type(i).__name__ for i in loop.body.items] == ["DoLet", "DoIf"]


@pytest.mark.parametrize(
    ("source", "pos", "message"),
    [
        ("def f : Nat := (← g) + 1\n", (1, 16), "must be nested inside a 'do'"),
        ("def f : Nat := Id.run do\n  let h := fun y => (← g y)\n  return 1\n", (2, 21), "binder"),
        ("def f : Nat := Id.run do\n  let h (y : Nat) := (← g y)\n  return 1\n", (2, 22), "binder"),
        ("def f : Nat := Id.run do\n  let r := match n with\n    | _ => (← g)\n  return r\n", (3, 12), "binder"),
        ("def f : Nat := Id.run do\n  let r := if c then (← g) else 1\n  return r\n", (2, 22), "pure `if`"),
    ],
)
def test_nested_actions_that_lean_refuses_to_lift(source: str, pos: tuple[int, int], message: str) -> None:
    (err,) = parse_file(source).errors
    assert (err.line, err.col) == pos and message in err.message


def test_nested_action_under_a_fun_with_its_own_do_is_fine() -> None:
    items = do_items("def f : Nat := Id.run do\n  let h := fun y => do return (← g y)\n  return 1\n")
    assert [type(i).__name__ for i in items] == ["DoLet", "DoReturn"]


def test_bare_left_arrow_needs_parentheses_in_argument_position() -> None:
    (err,) = parse_file("def f : Nat := Id.run do\n  return g ← a\n").errors
    assert (err.line, err.col) == (2, 11)


def test_do_elements_separated_by_semicolons() -> None:
    items = do_items("def f : Nat := Id.run do\n  let mut x := 0\n  x := x + 1; x := x * 2\n  return x\n")
    assert [type(i).__name__ for i in items] == ["DoLet", "DoReassign", "DoReassign", "DoReturn"]


def test_do_let_else_matches_over_the_rest_of_the_block() -> None:
    # Lean's doLetElseToCode: `let pat := e | alt; rest` is `match e with | pat => rest | _ => alt`
    items = do_items("def f (o : Option Nat) : Nat := Id.run do\n  let some x := o | return 0\n  let y := x + 1\n  return y\n")
    assert len(items) == 1
    m = items[0]
    assert isinstance(m, A.DoMatch) and shape(m.discrs) == ["o"]
    assert [shape(a.patterns) for a in m.alts] == [[("app", "some", "x")], ["_"]]
    hit, miss = m.alts[0].rhs, m.alts[1].rhs
    assert isinstance(hit, A.DoSeq) and [type(i).__name__ for i in hit.items] == ["DoLet", "DoReturn"]
    assert isinstance(miss, A.DoSeq) and [type(i).__name__ for i in miss.items] == ["DoReturn"]


def test_do_let_arrow_else_binds_the_action_first() -> None:
    items = do_items("def f : Nat := Id.run do\n  let x :: _ ← pure [1] | return 0\n  return x\n")
    assert [type(i).__name__ for i in items] == ["DoLet", "DoMatch"]
    bind, m = items
    assert isinstance(bind, A.DoLet) and bind.arrow and isinstance(m, A.DoMatch)
    assert shape(m.discrs) == [bind.decl.name]
    assert shape(m.alts[0].patterns) == [("::", "x", "_")]


def test_do_let_without_else_is_still_a_let() -> None:
    # without `| alt`, `let some x := o` is `letIdDecl`: a local function named `some`
    items = do_items("def f (o : Nat) : Nat := Id.run do\n  let some x := o\n  return 1\n")
    first = items[0]
    assert isinstance(first, A.DoLet) and first.decl.name == "some" and [b.names for b in first.decl.binders] == [["x"]]


def test_do_let_else_bar_must_be_right_of_the_block_column() -> None:
    (err,) = parse_file("def f (o : Option Nat) : Nat := Id.run do\n  let some x := o\n  | return 0\n  return x\n").errors
    assert (err.line, err.col) == (3, 2)


def test_bracketed_do_sequence() -> None:
    # `doSeq := doSeqBracketed <|> doSeqIndent`; `{ ... }` after `do` is a sequence, not a structure
    items = do_items("def f : Nat := Id.run do { let x := 1; x := x + 1\n                           return x }\n")
    assert [type(i).__name__ for i in items] == ["DoLet", "DoReassign", "DoReturn"]
    # `many1Indent`: an element on a later line may not start left of the first one
    (err,) = parse_file("def f : Nat := Id.run do { let x := 1\n  return x }\n").errors
    assert (err.line, err.col) == (2, 2)


def test_do_after_back_pipe() -> None:
    t = body("def f : Nat := Id.run <| do\n  let x ← pure 1\n  return x\n")
    assert isinstance(t, A.BinOp) and t.op == "<|"
    assert isinstance(t.rhs, A.Do) and len(t.rhs.seq.items) == 2


# =============================================================================================
# structure, inductive, instance


def test_structure_with_defaults_and_deriving() -> None:
    cmd = one_command("structure Point where\n  x : Int\n  y : Int := 0\n  deriving Repr, BEq\n")
    assert isinstance(cmd, A.StructureCmd)
    assert cmd.name == "Point" and not cmd.is_class and cmd.ctor_name == "mk"
    assert [(f.name, shape(f.type), shape(f.default)) for f in cmd.fields] == [("x", "Int", None), ("y", "Int", 0)]
    assert cmd.deriving == ["Repr", "BEq"]


def test_structure_with_parameters_custom_constructor_and_binder_fields() -> None:
    cmd = one_command("structure Pair (α : Type) where\n  mkPair ::\n  (fst : α)\n  snd : Nat\n")
    assert isinstance(cmd, A.StructureCmd)
    assert [b.names for b in cmd.params] == [["α"]]
    assert cmd.ctor_name == "mkPair"
    assert [f.name for f in cmd.fields] == ["fst", "snd"]


def test_class_declaration() -> None:
    cmd = one_command("class Sized (α : Type) where\n  size : α → Nat\n")
    assert isinstance(cmd, A.StructureCmd) and cmd.is_class
    assert shape(cmd.fields[0].type) == ("→", "α", "Nat")


def test_inductive_with_constructor_forms_and_deriving() -> None:
    cmd = one_command(
        "inductive Shape (α : Type) where\n"
        "  | dot\n"
        "  | circle (r : α)\n"
        "  | pair : Shape α → Shape α → Shape α\n"
        "deriving Repr, DecidableEq\n"
    )
    assert isinstance(cmd, A.InductiveCmd)
    assert cmd.name == "Shape" and [b.names for b in cmd.params] == [["α"]]
    assert [c.name for c in cmd.ctors] == ["dot", "circle", "pair"]
    assert [x for b in cmd.ctors[1].binders for x in b.names] == ["r"]
    assert shape(cmd.ctors[2].type) == ("→", ("app", "Shape", "α"), ("→", ("app", "Shape", "α"), ("app", "Shape", "α")))
    assert cmd.deriving == ["Repr", "DecidableEq"]


def test_inductive_on_one_line() -> None:
    cmd = one_command("inductive Op | add | sub")
    assert isinstance(cmd, A.InductiveCmd) and [c.name for c in cmd.ctors] == ["add", "sub"]


def test_instance_with_where_methods() -> None:
    cmd = one_command("instance : BEq Point where\n  beq a b := a.x == b.x\n")
    assert isinstance(cmd, A.InstanceCmd)
    assert cmd.name is None and shape(cmd.type) == ("app", "BEq", "Point")
    assert [m.name for m in cmd.methods] == ["beq"]
    assert [x for b in cmd.methods[0].binders for x in b.names] == ["a", "b"]
    assert shape(cmd.methods[0].body) == ("==", "a.x", "b.x")


def test_instance_with_binders_and_equation_method() -> None:
    cmd = one_command("instance [BEq α] : BEq (Box α) where\n  beq\n    | ⟨a⟩, ⟨b⟩ => a == b\n")
    assert isinstance(cmd, A.InstanceCmd)
    assert [b.kind for b in cmd.binders] == ["inst"]
    method = cmd.methods[0]
    assert method.alts is not None and shape(method.alts[0].patterns) == [("anon", "a"), ("anon", "b")]


def test_named_instance_with_term_body() -> None:
    cmd = one_command("instance instDefaultBox : Inhabited Box := ⟨⟨0⟩⟩")
    assert isinstance(cmd, A.InstanceCmd)
    assert cmd.name == "instDefaultBox" and cmd.methods == []
    assert shape(cmd.body) == ("anon", ("anon", 0))


# =============================================================================================
# Other commands; theorems are skipped


def test_bookkeeping_commands() -> None:
    parsed = parse_ok(
        "import Mathlib\nset_option maxRecDepth 1000\nopen List Nat\nnamespace Foo\ndef a := 1\nend Foo\n#eval a\n"
    )
    kinds = [type(c).__name__ for c in parsed.commands]
    assert kinds == ["OtherCmd", "OtherCmd", "OpenCmd", "NamespaceCmd", "DefCmd", "EndCmd", "OtherCmd"]
    opened = parsed.commands[2]
    assert isinstance(opened, A.OpenCmd) and opened.names == ["List", "Nat"]
    ns, end = parsed.commands[3], parsed.commands[5]
    assert isinstance(ns, A.NamespaceCmd) and ns.name == "Foo"
    assert isinstance(end, A.EndCmd) and end.name == "Foo"


def test_open_in_on_the_same_line() -> None:
    cmd = one_command("open Nat in def c := succ 1")
    assert isinstance(cmd, OpenIn)
    assert cmd.names == ["Nat"] and isinstance(cmd.command, A.DefCmd)


def test_open_in_on_its_own_line() -> None:
    # `open Nat in` is a prefix of the next command, wherever that command starts
    cmd = one_command("open Nat in\ndef c := succ 1\n")
    assert isinstance(cmd, OpenIn) and isinstance(cmd.command, A.DefCmd)
    attr = one_command("open Nat List in\n@[simp]\ndef c := succ 1\n")
    assert isinstance(attr, OpenIn) and attr.names == ["Nat", "List"]
    assert isinstance(attr.command, A.DefCmd) and attr.command.modifiers.attributes == ["simp"]


def test_plain_open_on_its_own_line_is_its_own_command() -> None:
    parsed = parse_ok("open Nat\ndef c := succ 1\n")
    assert [type(c).__name__ for c in parsed.commands] == ["OpenCmd", "DefCmd"]


def test_deriving_instance_command() -> None:
    # `deriving instance C, D for T, U` (the reserved word `for`)
    cmd = one_command("deriving instance Repr, BEq for Foo")
    assert isinstance(cmd, A.DerivingCmd)
    assert (cmd.classes, cmd.types) == (["Repr", "BEq"], ["Foo"])
    two = one_command("deriving instance Repr for Foo, Bar")
    assert isinstance(two, A.DerivingCmd) and two.types == ["Foo", "Bar"]


def test_deriving_instance_without_for_is_an_error_at_the_token() -> None:
    (err,) = parse_file("deriving instance Repr Foo\n").errors
    assert (err.line, err.col) == (1, 23)


def test_mutual_block() -> None:
    parsed = parse_ok(
        "mutual\n"
        "def isEven : Nat → Bool\n  | 0 => true\n  | n+1 => isOdd n\n"
        "def isOdd : Nat → Bool\n  | 0 => false\n  | n+1 => isEven n\n"
        "end\n"
    )
    names = [c.name for c in parsed.commands if isinstance(c, A.DefCmd)]
    assert names == ["isEven", "isOdd"]


def test_theorem_with_tactic_proof_is_skipped_and_the_next_command_parses() -> None:
    parsed = parse_ok(
        "theorem add_zero' (n : Nat) : n + 0 = n := by\n"
        "  induction n with\n"
        "  | zero => rfl\n"
        "  | succ k ih =>\n"
        "    simp [Nat.add_succ] at *\n"
        "    <;> omega\n"
        "  · exact ⟨_, by simp⟩\n"
        "  /- def not_a_def := 0 -/\n"
        "  all_goals (first | rfl | decide)\n"
        "\n"
        "lemma other : True := trivial\n"
        "example : 1 = 1 := rfl\n"
        "def after (n : Nat) : Nat := n + 1\n"
    )
    kinds = [(c.kind, c.name) for c in parsed.commands if isinstance(c, A.DefCmd)]
    assert kinds == [("theorem", "add_zero'"), ("lemma", "other"), ("example", "example"), ("def", "after")]
    thm = parsed.commands[0]
    assert isinstance(thm, A.DefCmd) and thm.body is None
    after = parsed.commands[-1]
    assert isinstance(after, A.DefCmd) and shape(after.body) == ("+", "n", 1)


def test_match_and_equations_at_column_zero() -> None:
    parsed = parse_ok(
        "def f (n : Nat) : Nat :=\nmatch n with\n| 0 => 1\n| k+1 => f k\n\ndef g : Nat → Nat\n| 0 => 1\n| _ => 2\n"
    )
    f, g = parsed.commands
    assert isinstance(f, A.DefCmd) and isinstance(f.body, A.Match) and len(f.body.alts) == 2
    assert isinstance(g, A.DefCmd) and g.alts is not None and len(g.alts) == 2


def test_def_names_and_end_lines() -> None:
    parsed = parse_ok("def a :=\n  1\n\ndef b := 2\n")
    a, b = parsed.commands
    assert isinstance(a, A.DefCmd) and isinstance(b, A.DefCmd)
    assert (a.line, a.col) == (1, 0) and (b.line, b.col) == (4, 0)


# =============================================================================================
# Errors


def test_syntax_error_reports_line_and_column_and_the_rest_still_parses() -> None:
    source = (
        "def ok1 := 1\n"
        "\n"
        "def bad (n : Nat) : Nat :=\n"
        "  n + * 2\n"
        "\n"
        "def ok2 (n : Nat) : Nat := n\n"
    )
    parsed = parse_file(source)
    assert [type(c).__name__ for c in parsed.commands] == ["DefCmd", "CommandError", "DefCmd"]
    (err,) = parsed.errors
    assert (err.line, err.col) == (4, 6)
    assert "'*'" in err.message
    assert err.name == "bad"
    assert err.text.startswith("def bad") and "n + * 2" in err.text
    ok2 = parsed.commands[2]
    assert isinstance(ok2, A.DefCmd) and ok2.name == "ok2"


def test_several_errors_each_stay_in_their_command() -> None:
    source = "def a := (1\ndef b := 2\ndef c := ]\ndef d := 4\n"
    parsed = parse_file(source)
    assert [type(c).__name__ for c in parsed.commands] == ["CommandError", "DefCmd", "CommandError", "DefCmd"]
    assert [e.name for e in parsed.errors] == ["a", "c"]
    assert parsed.errors[1].line == 3


def test_trailing_garbage_after_a_definition_is_an_error() -> None:
    parsed = parse_file("def a := 1 )\ndef b := 2\n")
    assert [type(c).__name__ for c in parsed.commands] == ["CommandError", "DefCmd"]
    assert (parsed.errors[0].line, parsed.errors[0].col) == (1, 11)


def test_error_at_end_of_command_is_reported_inside_the_file_extent_of_that_command() -> None:
    source = "def bad (n : Nat) : Nat :=\n  (n + 1\n\ndef ok := 3\n\n\n\ndef ok2 := 4\n"
    (err,) = parse_file(source).errors
    # Lean reports the unexpected `def` of line 4 ("unexpected token 'def'; expected ')'")
    assert (err.line, err.col) == (4, 0)
    assert "'def'" in err.message


def test_error_at_the_end_of_the_last_command_is_at_the_end_of_the_file() -> None:
    (err,) = parse_file("def ok := 1\ndef bad := (1 +\n").errors
    assert (err.line, err.col) == (3, 0) and "end of input" in err.message


def test_lexical_error_is_recorded_on_its_command_with_a_position() -> None:
    parsed = parse_file('def a := 1\ndef s := "unterminated\n')
    assert [type(c).__name__ for c in parsed.commands] == ["DefCmd", "CommandError"]
    (err,) = parsed.errors
    assert (err.line, err.col, err.name) == (2, 9, "s") and "unterminated string" in err.message


def test_parsing_resumes_at_the_next_command_after_a_lexical_error() -> None:
    # as Lean does: the command with the bad token fails, the following ones are still read
    parsed = parse_file('def a := "bad \\q escape"\n  ++ "x"\ndef b := 2\n@[simp] def c := 3\n')
    assert [type(c).__name__ for c in parsed.commands] == ["CommandError", "DefCmd", "DefCmd"]
    (err,) = parsed.errors
    assert (err.line, err.col, err.name) == (1, 15, "a")
    assert [getattr(c, "name", None) for c in parsed.commands[1:]] == ["b", "c"]


def test_unterminated_comment_swallows_the_rest_of_the_file() -> None:
    # an unterminated `/-` runs to the end of the input in Lean too, and Lean reports it there
    # (`finishCommentBlock` fails with `eoi` at the end of the input)
    parsed = parse_file("def a := 1\ndef b := 2 /- no end\ndef c := 3\n")
    assert [type(c).__name__ for c in parsed.commands] == ["DefCmd", "CommandError"]
    assert (parsed.errors[0].line, parsed.errors[0].col) == (4, 0)


def test_parse_term_still_raises_lexical_errors() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        parse_term('f "a\\qb"')
    assert (info.value.line, info.value.col) == (1, 5)


def test_parse_term_rejects_leftover_tokens() -> None:
    with pytest.raises(LeanSyntaxError) as info:
        parse_term("a + b )")
    assert (info.value.line, info.value.col) == (1, 6)


def test_parse_term_positions_with_a_base_offset() -> None:
    t = parse_term("f x\n  + y", line=5, col=4, offset=100)
    assert isinstance(t, A.BinOp) and isinstance(t.lhs, A.App)
    assert (t.lhs.line, t.lhs.col) == (5, 4)
    assert (t.lhs.args[0].line, t.lhs.args[0].col) == (5, 6)
    assert (t.rhs.line, t.rhs.col) == (6, 4)
