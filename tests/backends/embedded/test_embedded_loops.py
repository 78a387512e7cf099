"""Higher-order builtins applied to a literal ``fun``, written as loops with the body inlined
(:mod:`veriscale.backends.embedded.compiler.loops`): every shape answers exactly as the closures
(and the builtins they call) do, values and steps, also when the steps run out inside the loop
or the loop stops early; memoised folds keep their hits."""

from __future__ import annotations

import re

import pytest

from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded.compiler.codegen import CodeGen, Src
from veriscale.backends.embedded.compiler.loops import InlineFun, fuse_loop, note_inline
from veriscale.task import Task

from .test_embedded_codegen import _int_checks, _same_both_ways, clamp  # noqa: F401  (a fixture)

#: a `for` over an element of a collection, written in a generated function
_LOOP = re.compile(r"^\s+for _t\d+ in ", re.MULTILINE)

# Programs over `x lo hi : Int` returning `Int` (with the aux definitions they call), one or
# more shapes each: the name of the shape, then the program.
SHAPES: list[tuple[str, str, str]] = [
    ("List.any/all", "",
     "let xs := (List.range x.toNat).map (fun i => (i : Int) * 3 - lo)\n"
     "(if xs.any (fun y => y > hi + x) then 1 else 0) + (if xs.all fun y => y < 2 * hi then 10 else 0)"),
    ("Array.any/all", "",
     "let a := (List.range x.toNat).toArray.map (fun i => (i : Int) - hi)\n"
     "(if a.any (fun y => y * y = x + lo) then 1 else 0) + (if a.all (fun y => y ≠ 2) then 10 else 0)"),
    ("find?", "",
     "let xs := List.range (x.toNat * 2)\nlet a := xs.toArray\n"
     "let r : Int := match xs.find? (fun i => i * i > x.toNat + 3) with\n  | some i => Int.ofNat i\n  | none => -1\n"
     "let q : Int := match a.find? (fun i => i % 4 = 3 ∧ (i : Int) > lo) with\n  | some i => Int.ofNat i * 100\n  | none => -100\n"
     "r + q"),
    ("map/filter/countP", "",
     "let xs := (List.range x.toNat).map (fun i => (i : Int) - lo)\nlet a := xs.toArray\n"
     "let ys := xs.filter (fun y => y % 3 ≠ 0)\nlet b := (a.filter fun y => y > 2).map (fun y => y * hi)\n"
     "Int.ofNat (ys.countP (fun y => y > 1)) + Int.ofNat (b.countP (fun y => y < 40)) + ys.foldl (· + ·) 0\n"
     "  + b.foldl (· - ·) 0"),
    ("mapIdx", "",
     "let xs := (List.range x.toNat).map (fun i => (i : Int) * lo - x)\n"
     "let ps := xs.mapIdx (fun i y => y * i)\nlet qs := xs.toArray.mapIdx fun i y => (i, y)\n"
     "ps.foldl (· + ·) 0 + (qs.map (fun (i, y) => (i : Int) - y)).foldl (· + ·) 0"),
    ("pattern parameter, captured variables, nested", "",
     "let ps := (List.range x.toNat).map (fun i => ((i : Int), (i : Int) % 3))\n"
     "let k := hi - 3\n"
     "if ps.all (fun (a, b) => b ≤ k ∧ (ps.any fun (c, _) => c + a = k)) then 1 else 0"),
    ("memoised foldl",
     "def cnt (n : Int) (xs : List Int) : Nat := xs.foldl (fun acc y => if y = n then acc + 1 else acc) 0\n"
     "def acnt (n : Int) (a : Array Int) : Nat := a.foldl (fun acc y => if y = n then acc + 1 else acc) 0",
     "let xs := (List.range x.toNat).map (fun i => (i : Int) % 3 - lo)\nlet a := xs.toArray\n"
     "Int.ofNat ((xs.map (fun y => cnt y xs)).foldl (· + ·) 0) + Int.ofNat ((a.map fun y => acnt y a).foldl (· + ·) 0)"),
    ("prefix folds (memo level 3)", "",
     "let xs := (List.range x.toNat).map (fun i => (i : Int) - lo)\n"
     "((List.range x.toNat).map (fun k => (xs.take k).foldl (fun s y => s + y * hi) 0)).foldl (· + ·) 0"),
    ("memoised foldl, starts with an array or an empty list in them (memo level 2a)",
     "def minFrom (a : Array Int) (s : Nat) : Nat :=\n"
     "  (List.range (a.size - s)).foldl (fun m i => if a[s + i]! < a[m]! then s + i else m) s\n"
     "def pos (xs : List Int) : List Int := xs.foldl (fun acc y => if y > 0 then y :: acc else acc) []",
     "let a := ((List.range x.toNat).map (fun i => (i : Int) % 4 - lo)).toArray\n"
     "let xs := a.toList\n"
     "Int.ofNat ((List.range a.size).foldl (fun acc i => acc + minFrom a i + minFrom a (i / 2)) 0)\n"
     "  + Int.ofNat ((List.range 3).foldl (fun acc _ => acc + (pos xs).length + (pos (xs.take 2)).length) 0)"),
    ("sublists (the builtin, not the loop)", "",
     "let xs := (List.range (x.toNat % 6)).map (fun i => (i : Int) - lo)\n"
     "if xs.sublists.any (fun s => s.foldl (· + ·) 0 = hi) then 1 else 0"),
]


@pytest.mark.parametrize("index", range(len(SHAPES)))
def test_loops_answer_like_the_builtins(clamp: Task, index: int) -> None:  # noqa: F811
    _, code_aux, code = SHAPES[index]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks(range(-2, 13)), max_steps=50_000)
    assert all(a.status == "value" for a in answers), [(a.status, a.reason, a.detail) for a in answers]
    if index < len(SHAPES) - 1:
        assert any(_LOOP.search(text) for text in program.compiler.gen.sources)


@pytest.mark.parametrize("index", range(len(SHAPES)))
def test_loops_run_out_of_steps_at_the_same_step(clamp: Task, index: int) -> None:  # noqa: F811
    _, code_aux, code = SHAPES[index]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    checks = _int_checks([11])
    full, _ = _same_both_ways(task, checks, max_steps=50_000)
    steps = full[0].steps
    assert steps > 8
    # stopped inside the loops at various points (the last one at the very last step)
    for limit in sorted({steps // 3, steps // 2, steps - 2}):
        answers, _ = _same_both_ways(task, checks, max_steps=limit)
        assert answers[0].reason is not None and answers[0].reason.value == "timeout"
        assert answers[0].steps == limit + 1


def _steps(task: Task, x: int) -> int:
    answers, _ = _same_both_ways(task, [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 10})])
    return answers[0].steps


def test_any_all_and_find_stop_at_the_first_deciding_element(clamp: Task) -> None:  # noqa: F811
    # `xs = [0, 1, …, x - 1]`: `any (· ≥ 2)`, `all (· < 2)` and `find? (· ≥ 2)` decide at the
    # third element; each application is one step, so the step count does not grow with x
    for code in ("if (List.range x.toNat).any (fun i => i ≥ 2) then 1 else 0",
                 "if (List.range x.toNat).toArray.all (fun i => i < 2) then 1 else 0",
                 "match (List.range x.toNat).find? (fun i => i ≥ 2) with\n  | some i => Int.ofNat i\n  | none => 0 - 1"):
        task = clamp.with_sections(code="  " + code)
        assert _steps(task, 2) < _steps(task, 5) == _steps(task, 50)


def test_a_memoised_fold_keeps_its_hits(clamp: Task) -> None:  # noqa: F811
    # the same fold (same function, captured value and start) over the same list, once per
    # element: the repeats are memo hits of one step each
    code_aux = "def cnt (n : Int) (xs : List Int) : Nat := xs.foldl (fun acc y => if y = n then acc + 1 else acc) 0"
    code = "let xs := List.replicate x.toNat lo\nInt.ofNat ((xs.map (fun y => cnt y xs)).foldl (· + ·) 0)"
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, [Check(kind=CheckKind.CODE, args={"x": 40, "lo": 3, "hi": 10})])
    assert answers[0].value == 40 * 40
    # the first fold runs 40 applications; the 39 others are hits: far fewer than 40 × 40 steps
    assert answers[0].steps < 40 * 40
    assert any(_LOOP.search(text) and "for " in text for text in program.compiler.gen.sources)


def test_only_literal_funs_generated_on_locals_are_inlined() -> None:
    gen = CodeGen()

    def call(fr: list[object]) -> object:
        return None

    def coll(fr: list[object]) -> object:
        return ()

    gen.slot(coll, 0)
    maker = gen.attach(lambda fr: None, Src("_k0([fr[0], ])"))
    assert fuse_loop(gen, call, "List.any", [coll, maker], object()) is None  # not a fun's maker
    note_inline(maker, InlineFun([1], Src("fr[1] > 2"), object(), Src("_k0([fr[0], ])"), object()))
    assert fuse_loop(gen, call, "List.any", [coll, maker], object()) is call
    assert fuse_loop(gen, call, "List.foldr", [coll, maker], object()) is None  # no loop for it
    jumping = gen.attach(lambda fr: None, Src("_k0([])"))
    note_inline(jumping, InlineFun([1], Src("None", ["continue  # tail L1"]), object(), Src("_k0([])"), object()))
    assert fuse_loop(gen, call, "List.any", [coll, jumping], object()) is None  # leaves a loop



def test_merge_sort_applies_a_function_value_through_its_direct_function() -> None:
    # `List.mergeSort`/`List.merge` call a `fun` comparator of two variables as a plain Python
    # function (`Fn.direct`, which charges the same step as `Fn.__call__` through its runner)
    from veriscale.backends.embedded.builtins.lists import list_merge, list_merge_sort
    from veriscale.backends.embedded.runtime_support import Fn

    def runner(env: object, args: tuple[object, ...]) -> object:
        raise AssertionError("applied through its runner")

    calls: list[tuple[object, object]] = []

    def direct(a: int, b: int) -> bool:
        calls.append((a, b))
        return a <= b

    le = Fn(2, runner, [], "fun", None, None, direct)
    assert list_merge_sort((3, 1, 2), le) == (1, 2, 3)
    assert list_merge((1, 4), (2, 3), le) == (1, 2, 3, 4)
    assert len(calls) == 3 + 3
