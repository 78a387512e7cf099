"""Typed code generation (:mod:`veriscale.backends.embedded.compiler.codegen`): the generated
functions answer every check exactly as the closures do (value, status, reason, detail and
steps), on small tasks of our own and on VerinaPlus; the generated text is built from the
compiler's own names only."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import answer_fields as _fields
from conftest import engine_answers as _answers

from veriscale.backends.base import Answer, Check, CheckKind
from veriscale.backends.embedded.compiler.codegen import CodeGen
from veriscale.backends.embedded.program import Program
from veriscale.task import Task, TaskLoadError, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def _same_both_ways(task: Task, checks: Sequence[Check], **limits: int) -> tuple[list[Answer], Program]:
    generated, program = _answers(task, checks, True, **limits)
    closures, plain = _answers(task, checks, False, **limits)
    assert plain.compiler.gen.functions == 0
    assert _fields(generated) == _fields(closures)
    return generated, program


def _int_checks(xs: Sequence[int]) -> list[Check]:
    return [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 10}) for x in xs]


# Small programs over `x lo hi : Int` returning `Int`, each exercising constructs the generator
# fuses (let, if, arithmetic at Nat and Int, relations, calls, tail calls, lambdas, folds, do
# blocks with loops and reassignment), with the aux definitions they call.
PROGRAMS: list[tuple[str, str]] = [
    ("", "let a := x + 1\nlet b := a * 2 - lo\nlet c := b\nif c < hi then c else hi - c"),
    ("def tri : Nat → Nat\n  | 0 => 0\n  | n + 1 => tri n + (n + 1)",
     "Int.ofNat (tri x.toNat) - Int.ofNat (tri (x.toNat - 3))"),
    ("def loop (n acc : Nat) : Nat := if n = 0 then acc else loop (n - 1) (acc + n % 3)",
     "Int.ofNat (loop (x.toNat * 7) 0)"),
    ("def sumTo (xs : List Int) : Int := xs.foldl (fun acc y => if y > 2 then acc + y else acc - 1) 0",
     "sumTo ((List.range x.toNat).map (fun i => (i : Int) - lo))"),
    ("",
     "Id.run do\n    let mut s : Int := 0\n    let mut k := 0\n    for i in List.range x.toNat do\n"
     "      if i % 2 = 0 then\n        s := s + i\n      else\n        k := k + 1\n    return s * k - hi"),
    ("def pick (p : Int × Int) : Int := match p with\n  | (a, b) => if a ≤ b ∧ ¬ (a = 3) then b else a",
     "pick (x, hi) + pick (hi, x)"),
    ("def fib : Nat → Nat\n  | 0 => 0\n  | 1 => 1\n  | n + 2 => fib n + fib (n + 1)",
     "Int.ofNat (fib (x.toNat % 15))"),
    ("", "let xs := #[x, lo, hi]\nxs[(x.toNat % 5)]! + xs[1]! - (if x ≠ 4 || x == 5 then 1 else 0)"),
    ("def spin (n k : Nat) : Nat := if n > k then n else spin (n + 1) k", "Int.ofNat (spin 0 (x.toNat * 2000))"),
    ("def deep (n : Nat) : Nat := if n = 0 then 0 else 1 + deep (n - 1)", "Int.ofNat (deep (x.toNat * 1000))"),
    # matches whose tests generated code writes inline: `some v`/`some _`/`none`, `[]`/`y :: ys`,
    # `true`/`false`, `.none`, `List.nil`
    ("def firstBig (xs : List Int) (k : Int) : Option Int := match xs with\n"
     "  | [] => none\n  | y :: ys => if y > k then some y else firstBig ys k\n"
     "def orZero (o : Option Int) : Int := match o with\n  | some v => v\n  | none => 0\n"
     "def isSome' (o : Option Int) : Bool := match o with\n  | some _ => true\n  | .none => false\n"
     "def flag (b : Bool) (x : Int) : Int := match b with\n  | true => x\n  | false => -x\n"
     "def len' (xs : List Int) (n : Nat) : Nat := match xs with\n  | List.nil => n\n  | _ :: t => len' t (n + 1)",
     "let xs := (List.range x.toNat).map (fun i => (i : Int) * 3 - hi)\n"
     "orZero (firstBig xs lo) + flag (isSome' (firstBig xs (x * 2))) 7 + Int.ofNat (len' xs 0)"),
    # `+`/`-` at Nat and Int, written inline: truncated subtraction, and a sum past the size
    # limit on integers (from x = 5 on), which must fail alike
    ("def huge (k : Nat) : Nat := 2 ^ (1048570 + k)",
     "let n : Nat := x.toNat\nlet d : Nat := n - 4 + (3 - n)\nlet s : Nat := huge n + huge n\n"
     "let i : Int := x - 7 + lo\nInt.ofNat (d + s % 5) + (i - hi)"),
]


@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_generated_functions_answer_like_the_closures(clamp: Task, index: int) -> None:
    code_aux, code = PROGRAMS[index]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks(range(-3, 14)), max_steps=20_000)
    assert program.compiler.gen.functions > 0  # the generated path ran
    assert any(a.status == "value" for a in answers)


# Tail loops, written as `while True:` over Python locals in the generated body: `let rec` loops
# over arrays and lists, captured variables, closures made inside a loop (each must keep the
# values of its own iteration), nested `let rec`, a match on several values, `for` with
# `let mut` inside a loop, a top-level tail recursion whose result is coerced to `Int`, and a
# partial application of a definition whose body takes its arguments on locals.
LOOP_PROGRAMS: list[tuple[str, str]] = [
    ("", "let n := x.toNat\nlet rec go (i : Nat) (c : Array Int) : Array Int :=\n"
         "  if i < n then go (i + 1) (c.set! (i % 3) (c[i % 3]! + i - lo)) else c\n"
         "let a := go 0 #[lo, hi, x]\na[0]! + a[1]! * 2 + Int.ofNat a.size"),
    ("", "let k := hi - x\nlet rec go (i : Nat) (fs : List (Int → Int)) : List (Int → Int) :=\n"
         "  if i < x.toNat % 4 + 1 then go (i + 1) ((fun y => y * k + i) :: fs) else fs\n"
         "(go 0 []).foldl (fun acc f => f acc - 1) lo"),
    ("", "let rec outer (i : Nat) (acc : Int) : Int :=\n"
         "  let rec inner (j : Nat) (s : Int) : Int := if j = 0 then s else inner (j - 1) (s + j + i)\n"
         "  if i = 0 then acc else outer (i - 1) (acc + inner (i % 5) 0)\n"
         "outer (x.toNat % 9) hi"),
    ("", "let rec walk (xs : List Int) (best : Option Int) (n : Nat) : Int :=\n"
         "  match xs, best with\n  | [], some b => b + n\n  | [], none => -1\n"
         "  | y :: ys, some b => walk ys (some (if y > b then y else b)) (n + 1)\n"
         "  | y :: ys, none => walk ys (some y) (n + 1)\n"
         "walk ((List.range x.toNat).map (fun i => (i : Int) * 7 % 5 - lo)) none 0"),
    ("", "let rec go (i : Nat) (acc : Int) : Int :=\n"
         "  if i = 0 then acc else\n"
         "    let s := Id.run do\n      let mut t : Int := 0\n      for j in List.range i do\n"
         "        t := t + j - lo\n      return t\n"
         "    go (i - 1) (acc + s)\n"
         "go (x.toNat % 7) 0"),
    ("def countDown (n : Nat) (acc : Nat) : Int := if n = 0 then acc else countDown (n - 1) (acc + n)",
     "countDown (x.toNat * 3) 1 - hi"),
    ("def addThree (a b c : Int) : Int := a + b * 2 + c * 3",
     "let f := addThree x\nlet g := f lo\ng hi + (List.map (addThree 1 2) [x, hi]).foldl (· + ·) 0"),
]


#: the programs whose loop runs on locals: all of them with a loop (a loop making closures
#: makes them from a snapshot of the captured slots; a `do` block's `return` is caught by a
#: `try` in the text; a `some` of an `if` is written inline)
ON_LOCALS = (0, 1, 2, 3, 4, 5)


@pytest.mark.parametrize("index", range(len(LOOP_PROGRAMS)))
def test_tail_loops_on_locals_answer_like_the_closures(clamp: Task, index: int) -> None:
    code_aux, code = LOOP_PROGRAMS[index]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks(range(-3, 14)), max_steps=20_000)
    assert all(a.status == "value" for a in answers), [a.detail for a in answers if a.status != "value"]
    sources = program.compiler.gen.sources
    if index in ON_LOCALS:
        # the loop is a `while True:` in a body on locals (no frame list read in it)
        assert any("while True:" in text and "fr[" not in text for text in sources), sources
    elif index < len(LOOP_PROGRAMS) - 1:
        # a loop making closures snapshots its frame: a jump still, on the frame
        assert any("while True:" in text for text in sources), sources


# Round 2 shapes: array operations written inline (size, set!, push, a[i]!, a[i], a[i]?, on
# arrays and lists, in range and out of it, on an array version that is no longer the newest),
# local functions made from a snapshot of their captured slots and applied directly (a `let`
# function, a group of mutually recursive `let rec` functions, a local function a `do` block
# reassigns), field notation on `HashSet` under `open Std`, `toList` of a string, `Array.all`/
# `any`/`foldl` over the whole array and over a window.
ROUND2_PROGRAMS: list[tuple[str, str, str]] = [
    ("", "", "let n := x.toNat % 6\nlet rec go (i : Nat) (c : Array Int) : Array Int :=\n"
             "  if i < n + 2 then go (i + 1) ((c.set! (i * 2) (c[i]! + lo)).push (i : Int)) else c\n"
             "let a := go 0 #[x, hi, 3]\nlet b := a.set! 1 7\n"
             "a[1]! + b[1]! + a[100]! + Int.ofNat a.size + Int.ofNat (b.push 1).size"),
    ("", "", "let xs : List Int := (List.range (x.toNat % 5)).map (fun i => (i : Int) + lo)\nlet a := xs.toArray\n"
             "let f (o : Option Int) : Int := match o with\n  | some v => v\n  | none => -100\n"
             "f xs[2]? + f a[1]? + f a[9]? + f xs[x.toNat]? + (if h : 1 < a.size then a[1] else 0) + xs[3]!"),
    ("", "def parity (m : List Int) (k : Int) : Int := ev m\nwhere\n"
         "  ev : List Int → Int\n    | [] => k\n    | _ :: t => od t\n"
         "  od : List Int → Int\n    | [] => -k\n    | _ :: t => ev t",
     "let k := hi - x\nlet f (y : Int) (z : Int) : Int := y * k + z\n"
     "let rec go (i : Nat) (acc : Int) : Int := if i = 0 then acc else go (i - 1) (f acc 1)\n"
     "f lo 2 + f 3 x + parity ((List.range (x.toNat % 7)).map (fun i => (i : Int))) 1 + go (x.toNat % 3) 1"),
    ("", "", "Id.run do\n    let mut g : Int → Int := fun y => y + x\n    let mut s : Int := 0\n"
             "    for i in List.range (x.toNat % 4 + 1) do\n      s := s + g i\n"
             "      g := fun y => y * 2 - lo\n    return s"),
    ("", "", "let rec go (k : Nat) (acc : Int) : Int :=\n  if k = 0 then acc else\n    let v := Id.run do\n"
             "      let mut s : Int := 0\n      for i in List.range (x.toNat % 9 + k) do\n"
             "        if i = 2 then continue\n        if i = 6 then break\n"
             "        if s > 8 + lo then return s * 100\n        s := s + i\n      return s\n"
             "    go (k - 1) (acc + v)\ngo 3 0"),
    ("open Std", "", "let s := [x, lo, hi, x].foldl (fun (acc : HashSet Int) v => acc.insert v) HashSet.emptyWithCapacity\n"
             "Int.ofNat s.size + (if s.contains hi then 1 else 0)"),
    ("", "", "let cs := (if x > 3 then \"zäZ𝔸\" else \"abc\").toList\nlet a := #[x, lo, hi, 2]\n"
             "(if cs.any (fun c => c = 'z' || c = 'Z') then 1 else 0) + Int.ofNat cs.length\n"
             "  + (if a.all (fun v => v ≥ lo) then 10 else 0) + (if a.any (fun v => v > 5) 1 3 then 100 else 0)\n"
             "  + a.foldl (fun acc v => acc * 2 + v) 0 + a.foldl (fun acc v => acc - v) 0 1 3"),
]


@pytest.mark.parametrize("index", range(len(ROUND2_PROGRAMS)))
def test_round2_shapes_answer_like_the_closures(clamp: Task, index: int) -> None:
    imports, code_aux, code = ROUND2_PROGRAMS[index]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    if imports:
        task = task.with_sections(**{"import": imports})
    answers, program = _same_both_ways(task, _int_checks(range(-3, 14)), max_steps=20_000)
    assert all(a.status == "value" for a in answers), [a.detail for a in answers if a.status != "value"]
    assert program.compiler.gen.functions > 0


def test_array_operations_are_written_inline(clamp: Task) -> None:
    _, code_aux, code = ROUND2_PROGRAMS[0]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks([0, 5]))
    text = "\n".join(program.compiler.gen.sources)
    assert ".set_in_range(" in text and ".push(" in text and "._items[" in text and "._len" in text
    # x = 0: n = 0, two turns; a = #[0 + 0, 10, 3 + 0, 0, 1] (set! at 0 then 2, pushes 0 and 1)
    assert answers[0].value == 10 + 7 + 0 + 5 + 6


def test_local_functions_are_made_from_their_captured_slots_and_called_directly(clamp: Task) -> None:
    _, code_aux, code = ROUND2_PROGRAMS[2]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks([2, 3]))
    sources = program.compiler.gen.sources
    # `f`, a function value, is made from a list of its captured slots and applied through its
    # generated code when the value is one it made: by the entry point and by `go`'s loop, on
    # locals; `go` and the `where` group `ev`/`od`, whose names are only ever applied, are
    # lifted: no function value made, each application a call of the generated function on the
    # group's environment (`ev` and `od` call each other on the list their group's slots hold)
    guarded = [text for text in sources if ".run is " in text]
    assert len(guarded) == 2 and all(".env, " in text and "fr[" not in text for text in guarded), guarded
    assert not any(".env[" in text for text in sources), sources
    group = [text for text in sources if text.startswith("def _f") and "(_v0, _v1):" in text.splitlines()[0]]
    assert len(group) == 1 and re.search(r"(_t\d+)\[\d+\] = \1\n\s*\1\[\d+\] = \1\n", group[0]), group
    mutual = [text for text in sources if re.search(r"_k\d+\(env\[\d+\], _v\d+\)", text)]
    assert len(mutual) == 2 and all("fr[" not in text for text in mutual), sources
    k = 10 - 2
    # f lo 2 + f 3 x + parity 2 1 + go 2 1, with f y z = y * k + z
    assert answers[0].value == (0 * k + 2) + (3 * k + 2) + 1 + ((1 * k + 1) * k + 1)


def test_a_reassigned_local_function_is_applied_as_its_value(clamp: Task) -> None:
    _, code_aux, code = ROUND2_PROGRAMS[3]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, _ = _same_both_ways(task, _int_checks([2]))
    # i = 0: g 0 = 0 + 2; then g y = 2y - 0: i = 1, 2 give 2, 4
    assert answers[0].value == 2 + 2 + 4


def test_a_tail_loop_on_locals_runs_out_of_steps_at_the_same_step(clamp: Task) -> None:
    code = ("  let rec go (i : Nat) (acc : Int) : Int := if i = 0 then acc else go (i - 1) (acc + i % 7 - lo)\n"
            "  go (x.toNat * 1000) hi")
    task = clamp.with_sections(code=code)
    answers, program = _same_both_ways(task, _int_checks([1, 4, 5, 9]), max_steps=4_500)
    assert [a.status for a in answers] == ["value", "value", "unknown", "unknown"]
    assert answers[2].reason is not None and answers[2].reason.value == "timeout"
    assert answers[2].steps == answers[3].steps == 4_501
    assert any("while True:" in text and "continue  # tail" in text for text in program.compiler.gen.sources)


def test_closures_made_in_a_tail_loop_keep_their_own_iteration(clamp: Task) -> None:
    # the loop rebinds `i` in place; each `fun` captured the value of its own iteration
    code_aux, code = LOOP_PROGRAMS[1]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, _ = _same_both_ways(task, _int_checks([3]))
    k, lo, fs = 10 - 3, 0, [lambda y, i=i: y * 7 + i for i in range(4)]
    acc = lo
    for f in reversed(fs):  # `go` conses: the last made is applied first
        acc = f(acc) - 1
    assert answers[0].value == acc and k == 7


# Round 3 shapes (calls): a user definition called through its entry (the step charged in the
# text, from a recursion, by itself and with an argument that runs Lean code), a memoised one
# called through its memo table,
# a definition passed as a value, `++` on lists, strings and arrays, `∈`/`∉`, and patterns whose
# tests are written as text: `some (a, b)`, `[x]`, `x :: y :: rest`, numerals, `n + 1`,
# characters, user constructors with arguments, `let (a, b) := …` and `fun (i, v) => …`.
ROUND3_PROGRAMS: list[tuple[str, str]] = [
    ("def bump (n : Nat) : Nat := n * 2 + 1\n"
     "def depth (n : Nat) : Nat := if n = 0 then 0 else bump 0 + depth (n - 1)\n"
     "def twice (n : Nat) : Nat := bump (bump n) + depth (n % 50)",
     "Int.ofNat (twice (x.toNat * 300)) - Int.ofNat (depth (x.toNat * 200))"),
    ("def sq (n : Int) : Int := n * n\n"
     "def fib : Nat → Nat\n  | 0 => 0\n  | 1 => 1\n  | n + 2 => fib n + fib (n + 1)",
     "((List.range (x.toNat % 6)).map (fun i => (i : Int))).map sq |>.foldl (· + ·) (Int.ofNat (fib (x.toNat % 12)))"),
    ("def build (n : Nat) (acc : List Int) : List Int := if n = 0 then acc else build (n - 1) (acc ++ [(n : Int)])\n"
     "def word (n : Nat) (s : String) : String := if n = 0 then s else word (n - 1) (s ++ \"ab\")",
     "let xs := build (x.toNat % 8) []\nlet a := #[x, lo] ++ #[hi]\n"
     "Int.ofNat (xs ++ xs).length + Int.ofNat (word (x.toNat % 5) \"\").length + Int.ofNat a.size"
     " + (if hi ∈ xs then 100 else 0) + (if x ∉ a.toList then 1000 else 0)"),
    ("def pairs : List (Option (Int × Int)) → Int\n  | [] => 0\n  | [some (a, b)] => a - b\n"
     "  | some (a, b) :: none :: rest => a * b + pairs rest\n  | _ :: rest => 1 + pairs rest\n"
     "def nums : Nat → Int\n  | 0 => 7\n  | 3 => 30\n  | n + 1 => 1 + nums n\n"
     "inductive Shape where\n  | dot (k : Int)\n  | box (w h : Int)\n  | empty\n"
     "def area : Shape → Int\n  | .dot 0 => 100\n  | .dot k => k\n  | .box w h => w * h\n  | .empty => -1\n"
     "def firstChar (s : String) : Int := match s.toList with\n  | 'a' :: _ => 1\n  | [c] => if c = 'z' then 2 else 3\n  | _ => 4",
     "let ps : List (Option (Int × Int)) := (List.range (x.toNat % 7)).map "
     "(fun i => if i % 3 = 1 then none else some ((i : Int), lo))\n"
     "let (p, q) := (nums (x.toNat % 6), area (if x > 4 then Shape.box x hi else if x > 1 then Shape.dot (x - 2) else Shape.empty))\n"
     "let ws := #[(1 : Int), x, hi].mapIdx fun i v => (i, v)\n"
     "pairs ps + p + q + ws.foldl (fun acc (i, v) => acc + i * v) 0 + firstChar (if x > 5 then \"z\" else \"abc\")"),
]


@pytest.mark.parametrize("index", range(len(ROUND3_PROGRAMS)))
def test_round3_shapes_answer_like_the_closures(clamp: Task, index: int) -> None:
    code_aux, code = ROUND3_PROGRAMS[index]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks(range(-3, 14)), max_steps=20_000)
    assert all(a.status == "value" for a in answers), [a.detail for a in answers if a.status != "value"]
    sources = program.compiler.gen.sources
    if index < 3:
        # every body the generator made is on Python locals (nothing in it reads a frame)
        assert sources and all("(fr):" not in text.splitlines()[0] for text in sources), sources
    else:
        # nested patterns tested in the text: `some (a, b)` in a list, a constructor's arguments,
        # a `fun`'s and a `let`'s pair, the `n + 1` and numeral patterns (`nums` on locals)
        text = "\n".join(sources)
        assert "[0].value.fst" in text and ".args[0]" in text and ".fst" in text and ".snd" in text
        assert sum("(fr):" not in t.splitlines()[0] for t in sources) >= 4, sources


# Round 4: bodies that stayed on the frame because one construct had no text (a pair's `.1`/`.2`,
# a structure's field, `[a:b]`, `{}`/`∅` of a hash map) or because the compiler did not know a
# local's type where the elaborator did (a hash set made by `foldl` with no annotation, whose
# methods were then looked up at run time; `m.toList` of a `HashMap` written under `open Std`).
ROUND4_PROGRAMS: list[tuple[str, str]] = [
    ("def swap (p : Int × Int) : Int × Int := (p.2, p.1)\n"
     "def spread (p : Int × Int) : Int := p.fst - p.snd",
     "spread (swap (x, hi)) + (swap (lo, x)).1 * 3"),
    ("structure Tally where\n  best : Int\n  count : Nat\n"
     "def score (a : Tally) (v : Int) : Int := if v > a.best then v * a.best else Int.ofNat a.count - v",
     "score (Tally.mk lo 2) x + score (Tally.mk hi (x.toNat % 3)) (x - 4)"),
    ("",
     "Id.run do\n    let mut s : Int := 0\n    for i in [1:x.toNat:2] do\n      s := s + i\n    return s - hi"),
    ("def seen (xs : List Int) : Nat :=\n"
     "  let s := xs.foldl (fun acc y => if y > 2 then acc.insert y else acc) Std.HashSet.emptyWithCapacity\n"
     "  let t := xs.foldl (fun acc y => acc.insert (y % 3)) s\n  t.size + (if t.contains 1 then 10 else 0)",
     "Int.ofNat (seen [x, hi, lo, x + 1, 7, x % 4])"),
    ("open Std in\ndef freq (xs : List Int) : Bool := Id.run do\n"
     "  let mut m : HashMap Int Nat := {}\n  for y in xs do\n    m := m.insert y (m.getD y 0 + 1)\n"
     "  return m.toList.any (fun (_, v) => v > 1)",
     "if freq [x, hi % 5, lo, 3] then 1 else 0"),
    # a term the engine refuses (`panic!`) in a branch no check reaches: the refusal is text too
    ("def safe (n : Int) : Int := if n > 100 then panic! \"big\" else n * 2 - 1",
     "safe x + safe hi"),
    # a triple, a builtin as a function value and partly applied
    ("def spin (t : Int × Int × Int) : Int × Int × Int := (t.2.1, t.2.2, t.1)",
     "let t := spin (spin (x, hi, lo))\n"
     "t.1 - t.2.1 * 2 + t.2.2 + Int.ofNat ([x, lo - 3].map Int.natAbs).sum + ([x, hi].map (max lo)).sum"),
    # structures made by `Tally.mk`, `⟨…⟩` and `{ … }`; a constructor without arguments
    ("structure Tally where\n  best : Int\n  count : Nat\ninductive Tag where\n  | plain\n  | one (k : Int)\n"
     "def step (a : Tally) (v : Int) : Tally :=\n"
     "  if v > a.best then ⟨v, a.count + 1⟩ else { best := a.best - 1, count := a.count }\n"
     "def tagged (t : Tag) : Int := match t with\n  | .plain => 5\n  | .one k => k",
     "let a := step (step (Tally.mk lo 0) x) hi\na.best * 10 + Int.ofNat a.count + tagged Tag.plain + tagged (Tag.one x)"),
]


@pytest.mark.parametrize("index", range(len(ROUND4_PROGRAMS)))
def test_round4_bodies_run_on_locals_and_answer_like_the_closures(clamp: Task, index: int) -> None:
    code_aux, code = ROUND4_PROGRAMS[index]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    if index in (3, 4):
        task = task.with_sections(**{"import": "import Std"})
    answers, program = _same_both_ways(task, _int_checks(range(-3, 14)), max_steps=20_000)
    assert all(a.status == "value" for a in answers), [a.detail for a in answers if a.status != "value"]
    sources = program.compiler.gen.sources
    # no closure is called on the frame: every construct of these bodies is text
    assert sources and not any(re.search(r"_k\d+\(fr\)", text) for text in sources), sources


def test_a_refused_term_reached_from_generated_text_answers_like_its_closure(clamp: Task) -> None:
    code_aux, code = ROUND4_PROGRAMS[5]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code)
    answers, _ = _same_both_ways(task, _int_checks([3, 150, 7]))
    assert [a.status for a in answers] == ["value", "unknown", "value"]
    assert "panic!" in (answers[1].reason or "") + (answers[1].detail or "")


def test_a_definition_is_called_through_its_entry(clamp: Task) -> None:
    code_aux, code = ROUND3_PROGRAMS[0]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code)
    answers, program = _same_both_ways(task, _int_checks([0, 2, 5]))
    bodies = [text for text in program.compiler.gen.sources if text.splitlines()[0].endswith("(_v0):")]
    # `bump (bump n)` and `depth (n % 50)` in `twice`, `bump 0` and `depth (n - 1)` in `depth`:
    # the callee fetched (compiled on the first call), the argument computed, the step charged,
    # then its entry (its generated body) called, all in the text; a recursive definition too,
    # so `depth` nests one Python frame per call
    call = re.compile(r"(_t\d+) = _k\d+\[0\] or _k\d+\(\)\n(.*\n)*.*\.refill\(\)\n(.*\n)*.*\1\((_[tkv]\d+)\)")
    assert sum(bool(call.search(text)) for text in bodies) == 2, bodies
    assert sorted(text.count(".refill()") for text in bodies) == [0, 2, 3], bodies  # bump, depth, twice
    # twice n - depth m = (4n + 3 + n % 50) - m, with n = 300x and m = 200x
    assert [a.value for a in answers] == [3, 2003, 5003]


def test_let_rec_self_calls_call_the_generated_function(clamp: Task) -> None:
    # `go (n - 1)` is a self-call outside tail position, `step …` and `go 0` the siblings' calls
    # inside the group, `twice` calls `go` after it: each written as a direct call of the generated function on
    # the value's captured frame, the self and sibling calls through the holder their group
    # fills once compiled (before, a group's own calls applied the value: `Fn.__call__`, its
    # runner, then the body); `h` holds `go` as a value, so the group is not lifted
    code = ("let rec go (n : Nat) : Nat := if n = 0 then lo.toNat else step (go (n - 1)) + 1,\n"
            "  step (m : Nat) : Nat := if m % 3 = 0 then m + go 0 else m\n"
            "let h : Nat → Nat := go\n"
            "let twice (k : Nat) : Nat := h k + go (k / 2)\n"
            "Int.ofNat (twice (x.toNat * 7))")
    task = clamp.with_sections(code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks(range(-2, 12)))
    assert all(a.status == "value" for a in answers)
    held = re.compile(r"(_k\d+)\[0\]\((_t\d+)\.env, .* if \2\.__class__ is _k\d+ and \2\.run is \1\[1\] else ")
    group = [text for text in program.compiler.gen.sources if text.startswith("def _f") and "(env, " in text]
    assert len(group) >= 2 and sum(len(held.findall(text)) for text in group) == 3, group

    def go(n: int) -> int:
        return 0 if n == 0 else step(go(n - 1)) + 1

    def step(m: int) -> int:
        return m + go(0) if m % 3 == 0 else m

    assert [a.value for a in answers] == [go(7 * max(x, 0)) + go(7 * max(x, 0) // 2) for x in range(-2, 12)]


def test_a_non_tail_recursion_through_entries_runs_out_of_steps_at_the_same_step(clamp: Task) -> None:
    code_aux, code = ROUND3_PROGRAMS[0]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code)
    answers, _ = _same_both_ways(task, _int_checks([1, 5, 6, 9]), max_steps=2_000)
    assert [a.status for a in answers] == ["value", "unknown", "unknown", "unknown"]
    assert answers[1].steps == answers[3].steps == 2_001


def test_append_past_the_size_limit_fails_alike(clamp: Task) -> None:
    code_aux = "def big (n : Nat) : String := \"\".pushn 'a' n"
    code = "  let s := big (x.toNat * 1000000)\n  let t := s ++ s\n  Int.ofNat t.length - lo"
    answers, program = _same_both_ways(clamp.with_sections(code_aux=code_aux, code=code), _int_checks([1, 2, 3]))
    assert [a.status for a in answers] == ["value", "value", "unknown"]
    assert "exceeds the limit" in (answers[2].detail or "")
    assert any(" + " in text and "<= _k" in text for text in program.compiler.gen.sources)


def test_small_nats_are_shared_values_of_type_nat() -> None:
    from veriscale.backends.embedded.builtins._core import SMALL_NAT_LIMIT, nat_range, nat_unchecked
    from veriscale.backends.embedded.builtins.numbers import _nat_add, _nat_sub
    from veriscale.lean.values import Nat

    for value in (0, 1, SMALL_NAT_LIMIT - 1, SMALL_NAT_LIMIT, 10**30):
        made = nat_unchecked(value)
        assert type(made) is Nat and made == value
    assert [type(v) for v in (_nat_add(Nat(3), Nat(4)), _nat_sub(Nat(3), Nat(4)), _nat_add(Nat(10**20), Nat(1)))] == [Nat] * 3
    assert _nat_sub(Nat(3), Nat(4)) == 0 and _nat_add(Nat(10**20), Nat(1)) == 10**20 + 1
    assert nat_range(2, 9, 3) == (2, 5, 8) and all(type(v) is Nat for v in nat_range(1020, 1030))
    assert nat_range(5, 1) == ()


def test_nat_and_int_addition_are_written_inline(clamp: Task) -> None:
    code_aux, code = PROGRAMS[-1]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks(range(0, 9)))
    assert any(".bit_length()" in text for text in program.compiler.gen.sources)
    # 2^(1048570 + x) + 2^(1048570 + x) has 1048572 + x bits: past the limit of 2^20 from x = 5
    assert [a.status for a in answers[:5]] == ["value"] * 5
    assert all(a.status == "unknown" and "of 1048577 bits" in answers[5].detail for a in answers[5:])


def test_out_of_steps_at_the_same_step(clamp: Task) -> None:
    code_aux, code = PROGRAMS[8]  # `spin` takes 2,000 steps per unit of `x`
    task = clamp.with_sections(code_aux=code_aux, code="  " + code)
    answers, _ = _same_both_ways(task, _int_checks([10, 12]), max_steps=5_000)
    assert [a.reason.value if a.reason else None for a in answers] == ["timeout", "timeout"]
    assert answers[0].steps == 5_001


def test_postconditions_and_preconditions_answer_alike(clamp: Task) -> None:
    checks = [Check(kind=CheckKind.POSTCOND, args={"x": x, "lo": 0, "hi": 10}, output=y)
              for x in range(-2, 13) for y in (x, 0, 10, 5)]
    checks += [Check(kind=CheckKind.PRECOND, args={"x": x, "lo": lo, "hi": 3}) for x in (0, 1) for lo in (2, 5)]
    answers, program = _same_both_ways(clamp, checks)
    assert {a.status for a in answers} == {"true", "false"}
    assert program.compiler.gen.functions > 0


def test_generated_text_holds_no_name_of_the_submission(clamp: Task) -> None:
    code_aux = "def zzSecretHelper (qqValue : Nat) : Nat := qqValue + 1"
    task = clamp.with_sections(code_aux=code_aux, code="  let wwLocal := x + 1\n  Int.ofNat (zzSecretHelper wwLocal.toNat)")
    _, program = _same_both_ways(task, _int_checks([1, 5]))
    gen = program.compiler.gen
    assert gen.sources, "nothing was generated"
    for text in gen.sources:
        for name in ("zzSecretHelper", "qqValue", "wwLocal", "clampToRange"):
            assert name not in text
    assert gen.namespace["__builtins__"] == {}


def test_operands_with_statements_keep_left_to_right_order() -> None:
    gen = CodeGen()
    order: list[str] = []

    def first(fr: list[object]) -> object:
        order.append("first")
        return 1

    def store(fr: list[object]) -> None:
        order.append("store")
        fr[0] = 2

    second = gen.store(store, 0, gen.constant(lambda fr: 2, 2))
    both = gen.then(lambda fr: fr[0], second, gen.slot(lambda fr: fr[0], 0))
    pair = gen.fuse(lambda fr: (first(fr), both(fr)), "({0}, {1})", [first, both])
    fn = gen.function(pair)
    assert fn is not pair
    frame: list[object] = [None]
    assert fn(frame) == (1, 2) and frame == [2]
    # `first` ran before the statement storing the slot, as the closures would run them
    assert gen.sources[-1].index("_t") < gen.sources[-1].index("fr[0] = ")


def test_a_closure_without_source_is_not_regenerated() -> None:
    gen = CodeGen()

    def plain(fr: list[object]) -> object:
        return 3

    assert gen.function(plain) is plain and gen.functions == 0


# -- VerinaPlus ---------------------------------------------------------------------------------

#: every how-many-th test row of a task is checked (all tasks, both check kinds on each row)
DATA_STRIDE = 3


def _verinaplus_checks(task: Task) -> list[Check]:
    from veriscale.typed_task import TypedTaskError, typed_view

    try:
        view = typed_view(task)
    except TypedTaskError:
        return []
    checks: list[Check] = []
    for test in view.tests[::DATA_STRIDE]:
        if test.args is None:
            continue
        checks.append(Check(kind=CheckKind.CODE, args=test.args))
        checks.append(Check(kind=CheckKind.PRECOND, args=test.args))
        if test.expected_ok:
            checks.append(Check(kind=CheckKind.POSTCOND, args=test.args, output=test.expected))
        checks.extend(Check(kind=CheckKind.POSTCOND, args=test.args, output=v) for _, v in test.unexpected[:2])
    for reject in view.rejects[::DATA_STRIDE]:
        if reject.args is not None:
            checks.append(Check(kind=CheckKind.PRECOND, args=reject.args))
    return checks


@pytest.mark.data
def test_verinaplus_checks_answer_alike_with_and_without_generated_code(data_dir: Path) -> None:
    suite = data_dir / "verinaplus"
    differing: list[str] = []
    compared = generated = 0
    for directory in sorted(p for p in suite.iterdir() if (p / "task.lean").is_file()):
        try:
            task = load_task(directory)
        except TaskLoadError:
            continue
        checks = _verinaplus_checks(task)
        if not checks:
            continue
        with_code, program = _answers(task, checks, True)
        without, _ = _answers(task, checks, False)
        generated += program.compiler.gen.functions
        compared += len(checks)
        for check, a, b in zip(checks, _fields(with_code), _fields(without)):
            if a != b:
                differing.append(f"{task.id} {check.kind.value} {check.args}: generated {a} closures {b}")
    assert not differing, "\n".join(differing[:20])
    assert compared > 20_000 and generated > 300


def test_an_int_result_computed_from_a_nat_local_is_an_int(clamp: Task) -> None:
    # the body is typed `Int` by the elaborator, but the `let rec` returns its `Nat` variable
    # (Lean coerces it): the entry point's coercion must still apply
    code = ("  let rec go (xs : List Int) (start : Nat) : Int :=\n    match xs with\n    | [] => start\n"
            "    | _ :: rest => go rest (start + 1)\n  if x < 0 then -1 else go [x, lo] 3")
    answers, _ = _same_both_ways(clamp.with_sections(code=code), _int_checks([2]))
    assert answers[0].value == 5 and type(answers[0].value) is int


# Results proven in `Int`'s representation (compiler.representation): the entry point returns
# them as computed, with no scan of their elements; every other body keeps the coercion.
PROVEN_ARRAY_BODIES = [
    "a.set! 1 60",
    "let b := a.set! 0 ((a[0]!) + 3)\nlet c := b.set! 7 516\nc",
    "let rec loop (i : Nat) (acc : Array Int) : Array Int :=\n"
    "  if i < a.size then\n    match a[i]? with\n    | some v => loop (i + 1) (acc.push (v - 1))\n"
    "    | none => acc\n  else acc\nloop 0 Array.empty",
    "let n := a.size\nlet rec fill (i : Nat) (c : Array Int) : Array Int :=\n"
    "  if i < n then fill (i + 1) (c.set! i (-(a[n - 1 - i]!))) else c\nfill 0 (Array.mkArray n 0)",
    "let l := a.toList\nlet r := l.reverse\nList.toArray (r ++ [Int.ofNat a.size, 2])",
]
UNPROVEN_ARRAY_BODIES = [
    # `Nat` values where `Int` is wanted (Lean inserts `↑`), which the compiled body leaves
    # as `Nat`: in an array literal, through a local, from a local function's match arm
    "if a.size > 3 then a else #[a.size, 1]",
    "let k := a.size\n#[k, 2]",
    "let rec go (xs : List Int) (k : Nat) : Int :=\n  match xs with\n  | [] => k\n  | _ :: r => go r (k + 1)\n"
    "a.push (go [1, 2] 3)",
    # a `Nat` pushed where `Int` is wanted (here the call coerces it, but nothing proves so)
    "let rec go (i : Nat) (acc : Array Int) : Array Int :=\n"
    "  if i < a.size then go (i + 1) (acc.push i) else acc\ngo 0 #[]",
    "let rec len (i : Nat) : Nat := if i < a.size then len (i + 1) else i\na.push (len 0)",
    # a helper of the task given a `Nat` argument at an `Int` parameter
    "let k : Nat := a.size\nwiden #[] k",
]
WIDEN = "def widen (acc : Array Int) (v : Int) : Array Int := acc.push v"


@pytest.fixture(scope="module")
def running_max() -> Task:
    return load_task(MINI / "mini_running_max")


def _array_checks() -> list[Check]:
    from veriscale.lean.values import Arr

    return [Check(kind=CheckKind.CODE, args={"a": Arr(range(-2, n))}) for n in range(0, 12)]


def _entry_coerces(program: Program) -> bool:
    from veriscale.backends.embedded.backend import _entry_plan

    return bool(_entry_plan(program, "runningMax").int_coercer)


def _int_elements(answers: Sequence[Answer]) -> bool:
    return all(type(e) is int for a in answers for e in a.value)


@pytest.mark.parametrize("body", PROVEN_ARRAY_BODIES)
def test_a_result_proven_in_int_representation_is_not_coerced(running_max: Task, body: str) -> None:
    task = running_max.with_sections(code_aux=WIDEN, code="  " + body.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _array_checks())
    assert all(a.status == "value" for a in answers)
    assert not _entry_coerces(program)
    assert _int_elements(answers)


@pytest.mark.parametrize("body", UNPROVEN_ARRAY_BODIES)
def test_a_result_not_proven_in_int_representation_is_coerced(running_max: Task, body: str) -> None:
    task = running_max.with_sections(code_aux=WIDEN, code="  " + body.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _array_checks())
    assert all(a.status == "value" for a in answers)
    assert _entry_coerces(program)
    assert _int_elements(answers)
    assert any(len(a.value) for a in answers)


@pytest.mark.parametrize("body", UNPROVEN_ARRAY_BODIES[:3])
def test_without_the_coercion_a_nat_would_sit_in_an_int_array(running_max: Task, body: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # what the coercion is for: these compiled bodies leave `↑n` to their caller, so without it
    # the result holds `Nat` values, which print differently (`Nat(2)`, not `2`) and dispatch
    # differently on their run-time type
    from veriscale.backends.embedded import backend

    monkeypatch.setattr(backend, "result_in_int_repr", lambda comp, d: True)
    task = running_max.with_sections(code="  " + body.replace("\n", "\n  "))
    answers, _ = _answers(task, _array_checks(), True)
    assert not _int_elements(answers) and "Nat(" in repr([a.value for a in answers])


def test_map_idx_applies_a_function_value_through_its_direct_function() -> None:
    # `Array.mapIdx`/`List.mapIdx` call a `fun` of two variables as a plain Python function
    # (`Fn.direct`, one call per element instead of `Fn.__call__` then its runner), with the
    # index a `Nat`
    from veriscale.backends.embedded.builtins.arrays import array_map_idx
    from veriscale.backends.embedded.builtins.lists import list_map_idx
    from veriscale.backends.embedded.runtime_support import Fn
    from veriscale.lean.values import Arr, Nat

    def runner(env: object, args: tuple[object, ...]) -> object:
        raise AssertionError("applied through its runner")

    seen: list[object] = []

    def direct(i: object, v: object) -> object:
        seen.append(type(i))
        return (i, v)

    fn = Fn(2, runner, [], "fun", None, None, direct)
    assert list(array_map_idx(fn, Arr(("a", "b", "c")))) == [(0, "a"), (1, "b"), (2, "c")]
    assert list_map_idx(fn, ("x", "y")) == ((0, "x"), (1, "y"))
    assert seen == [Nat] * 5


def test_pattern_tests_by_class_identity_see_every_value() -> None:
    # generated pattern tests read `v.__class__ is tuple/Some/Pair/Ctor` where the closures call
    # isinstance: equal only while no run-time class derives from those
    import veriscale.backends.embedded.builtins  # noqa: F401 - every runtime class defined
    from veriscale.lean.values import Ctor, Pair, Some

    assert Some.__subclasses__() == [] and Pair.__subclasses__() == [] and Ctor.__subclasses__() == []
    runtime = ("veriscale.lean.", "veriscale.backends.embedded.builtins", "veriscale.backends.embedded.compiler",
               "veriscale.backends.embedded.runtime_support", "veriscale.backends.embedded.memo")
    assert [c for c in tuple.__subclasses__() if c.__module__.startswith(runtime)] == []


# Lifted `let rec` groups (compiler.lambdas: `only_applied`, `_compile_lifted_group`): a group
# whose names are only ever applied to all their arguments makes no function value; its names
# hold the group's environment and each application calls the generated function on it. Shapes:
# captured variables and a self-call outside tail position, mutual recursion by equations, a name
# applied inside a `fun` and a group nested in a group's body, a group of a `do` block made in
# each turn of a loop over a reassigned variable.
LIFTED_PROGRAMS: list[tuple[str, str]] = [
    ("sum", "let k := hi - x\nlet rec sum (n : Nat) : Int := if n = 0 then k else sum (n - 1) + n\n"
            "sum (x.toNat * 3) + sum 2"),
    ("ev", "let rec ev : List Int → Int\n  | [] => lo\n  | _ :: t => od t + 1,\n  od : List Int → Int\n"
           "  | [] => -lo\n  | y :: t => ev t * 2 + y\nev ((List.range (x.toNat % 9)).map (fun i => (i : Int) - hi))"),
    ("go", "let rec go (i : Nat) (acc : Int) : Int :=\n"
           "  let rec inner (j : Nat) : Int := if j = 0 then acc else inner (j - 1) + j\n"
           "  if i = 0 then acc else go (i - 1) (inner (i % 4))\n"
           "((List.range (x.toNat % 5)).map (fun i => go i lo)).foldl (· + ·) 0"),
    ("f", "Id.run do\n    let mut s : Int := 0\n    for i in List.range (x.toNat % 6) do\n"
          "      let rec f (n : Nat) : Int := if n = 0 then s else f (n - 1) + 2\n      s := s + f i\n    return s"),
]


def _escaping(name: str, code: str) -> str:
    """``code`` with its group's ``name`` also held as a value (so the group is not lifted)."""
    lines = code.split("\n")
    if lines[0] == "Id.run do":  # the group is made inside the loop: read it right after
        at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("s := "))
        return "\n".join([*lines[:at], "      let _keep := " + name, *lines[at:]])
    return "\n".join([*lines[:-1], f"let _keep := {name}", lines[-1]])


@pytest.mark.parametrize("index", range(len(LIFTED_PROGRAMS)))
def test_lifted_let_rec_groups_answer_like_function_values(clamp: Task, index: int) -> None:
    name, code = LIFTED_PROGRAMS[index]
    checks = _int_checks(range(-3, 14))
    lifted = clamp.with_sections(code="  " + code.replace("\n", "\n  "))
    values = clamp.with_sections(code="  " + _escaping(name, code).replace("\n", "\n  "))
    for max_steps in (20_000, 9):  # within the limit, and running out of steps in the recursion
        answers, program = _same_both_ways(lifted, checks, max_steps=max_steps)
        as_values, control = _same_both_ways(values, checks, max_steps=max_steps)
        # the same values, steps and step where each runs out as the group made as function values
        assert _fields(answers) == _fields(as_values)
        statuses = {a.status for a in answers}
        assert statuses == ({"value"} if max_steps > 9 else {"value", "unknown"}), statuses
        # no function value made, no environment completed with the group's functions
        assert not any(".env[" in text for text in program.compiler.gen.sources)
        assert any(".env[" in text for text in control.compiler.gen.sources)


def test_only_applied_takes_nothing_that_reads_a_name_as_a_value() -> None:
    from veriscale.backends.embedded.compiler.lambdas import only_applied
    from veriscale.backends.embedded.parser.parse import parse_term

    arities: dict[str, int | None] = {"f": 2, "g": 1}
    applied = ["f 1 (g 2)", "(f 1 2) + g (f 3 4)", "xs.map (fun x => f x (g x))", "(xs.map (g ·)).sum", "(f) 1 2",
               "h 1"]
    # partial and over-application, a name passed or piped, named arguments, `@`, field notation,
    # two pairs of parentheses; and a name bound again and read (conservatively refused)
    as_values = ["f 1", "f 1 2 3", "xs.map g", "g", "(g) <| 1", "f (a := 1) 2", "@g 1", "f.1 2 3", "g.x 1",
                 "((f)) 1 2", "let f := 3; f"]
    assert all(only_applied(arities, [parse_term(t)]) for t in applied)
    assert [t for t in as_values if only_applied(arities, [parse_term(t)])] == []
    # a function whose arity is not known (a `let rec` whose value is not a `fun`) is never lifted
    assert not only_applied({"f": None}, [parse_term("f 1 2")])


# A repeated self tail call (compiler.sharing.tail_only): its sharing site could never record (a
# pending tail call is not a value), so it is left out and the body runs on locals with its jumps;
# a term that also occurs outside tail position keeps its sites.
SCAN = ("def scan (xs : Array Int) (i m : Nat) (best : Option Nat) : Int :=\n"
        "  if i ≥ xs.size then\n    match best with\n    | some b => xs[b]! + m\n    | none => -1\n"
        "  else if xs[i]! < xs[m]! then scan xs (i + 1) i (some m)\n"
        "  else if xs[i]! = xs[m]! then scan xs (i + 1) m best\n"
        "  else match best with\n    | none => scan xs (i + 1) m (some i)\n"
        "    | some b => if xs[i]! < xs[b]! then scan xs (i + 1) m (some i) else scan xs (i + 1) m (some b)")
SCAN_CODE = "  scan ((List.range (x.toNat * 9)).map (fun i => ((i * 7) % 13 : Int) - lo)).toArray 1 0 none"


def test_a_repeated_self_tail_call_has_no_sharing_site(clamp: Task) -> None:
    task = clamp.with_sections(code_aux=SCAN, code=SCAN_CODE)
    checks = _int_checks(range(-3, 14))
    answers, program = _same_both_ways(task, checks)
    assert {a.status for a in answers} == {"value"}
    short, _ = _same_both_ways(task, checks, max_steps=40)  # out of steps in the loop, alike
    assert {a.status for a in short} == {"value", "unknown"}
    body = [text for text in program.compiler.gen.sources if text.startswith("def _f") and "while True:" in text]
    assert len(body) == 1 and "fr" not in re.sub(r"_k\d+|_t\d+|_v\d+", "", body[0]), body
    assert body[0].count("continue  # tail") == 5

    def scan(xs: list[int], i: int, m: int, best: int | None) -> int:
        while i < len(xs):
            if xs[i] < xs[m]:
                i, m, best = i + 1, i, m
            elif xs[i] == xs[m]:
                i += 1
            elif best is None or xs[i] < xs[best]:
                i, best = i + 1, i
            else:
                i += 1
        return -1 if best is None else xs[best] + m

    for x, a in zip(range(-3, 14), answers):
        assert a.value == scan([(i * 7) % 13 for i in range(max(x, 0) * 9)], 1, 0, None)


def test_only_terms_whose_every_occurrence_is_a_tail_call_lose_their_site() -> None:
    from veriscale.backends.embedded.compiler.sharing import tail_only

    shared = {1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c"}
    # "a": both in tail position; "b": one of them not; "c": neither
    assert tail_only(shared, {1, 2, 3, 7}) == {1, 2}
    assert tail_only(shared, set()) == frozenset()


def test_some_is_made_in_place_of_a_call(clamp: Task) -> None:
    # `some v` written, an `Int` passed where an `Option Int` is taken, `a[i]?` on arrays and
    # lists, an option bound again from an unboxed match (compiler.unboxed): each made by the
    # generated text itself (`values.some` is no constant of it), with the closures' values
    from veriscale.lean.values import some

    code_aux = ("def pick (o : Option Int) (d : Int) : Int := match o with\n  | some v => v\n  | none => d\n"
                "def firstOver (xs : List Int) (k : Int) : Option Int := match xs with\n  | [] => none\n"
                "  | y :: ys => if y > k then some y else firstOver ys k\n"
                "def second (a : Array Int) (xs : List Int) : Int := match a[1]?, xs[2]? with\n"
                "  | some p, q => p + pick q 100\n  | none, _ => pick a[0]? 5")
    code = ("let xs := (List.range (x.toNat % 7)).map (fun i => (i : Int) * 2 - lo)\n"
            "let o : Option Int := some (x * 3)\npick o 0 + pick (firstOver xs hi) 7 + second xs.toArray xs + pick x 9")
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks(range(-3, 14)))
    assert {a.status for a in answers} == {"value"}
    assert not any(v is some for v in program.compiler.gen.namespace.values())
    assert sum(text.count(":= ") for text in program.compiler.gen.sources) >= 6

    def expected(x: int) -> int:
        xs = [i * 2 for i in range(max(x, 0) % 7)]
        over = next((y for y in xs if y > 10), 7)
        second = (xs[1] + (xs[2] if len(xs) > 2 else 100)) if len(xs) > 1 else (xs[0] if xs else 5)
        return x * 3 + over + second + x

    assert [a.value for a in answers] == [expected(x) for x in range(-3, 14)]


def test_some_text_makes_what_some_makes() -> None:
    from veriscale.backends.embedded.compiler.codegen import some_text
    from veriscale.lean.values import Some, some

    gen = CodeGen()
    made = eval(some_text(gen, "value"), gen.namespace, {"value": (1, 2)})  # noqa: S307 - our own text
    assert type(made) is Some and made == some((1, 2)) and hash(made) == hash(some((1, 2)))
    assert repr(made) == repr(some((1, 2))) and made.value == (1, 2)


def test_list_get_d_head_d_and_int_to_nat_are_written_inline(clamp: Task) -> None:
    # a rotation as Verina writes it: `Int.ofNat`/`Int.toNat` (plain calls) and `getD`/`headD`
    # in a `map` body; indices past the end and negative ones, an empty list, a huge index
    code = ("let l : List Int := (List.range (x.toNat % 5)).map (fun i => Int.ofNat i * 3 - lo)\n"
            "let r := (List.range (l.length + 2)).map (fun i : Nat =>\n"
            "  let k : Int := Int.ofNat i - x + Int.ofNat l.length\n"
            "  l.getD (Int.toNat k) (l.headD (x - 100)))\n"
            "r.foldl (fun s v => s * 7 + v) 0 + ([] : List Int).headD hi + l.getD (Int.toNat (x * 2^70)) 5")
    task = clamp.with_sections(code="  " + code.replace("\n", "\n  "))
    answers, program = _same_both_ways(task, _int_checks([-3, 0, 2, 4, 7, 9]))
    text = "\n".join(program.compiler.gen.sources)
    assert "[0] if " in text and re.search(r"if _t\d+.__class__ is _k\d+ and 0 <= _t\d+ < _k\d+ else", text)
    from veriscale.backends.embedded.builtins.lists import list_get_d, list_head_d
    consts = {name for name, v in program.compiler.gen.namespace.items() if v in (list_get_d, list_head_d)}
    # each builtin is only the fallback of its inline text (called after a class test)
    assert consts and all(f"else {k}(" in text for k in consts)

    def rotation(x: int) -> int:
        lo, hi = 0, 10
        items = [i * 3 - lo for i in range(x % 5 if x >= 0 else 0)]
        head = items[0] if items else x - 100
        r = []
        for i in range(len(items) + 2):
            k = max(i - x + len(items), 0)
            r.append(items[k] if k < len(items) else head)
        s = 0
        for v in r:
            s = s * 7 + v
        return s + hi + (items[x * 2**70] if 0 <= x * 2**70 < len(items) else 5)

    assert [a.value for a in answers] == [rotation(x) for x in [-3, 0, 2, 4, 7, 9]]
