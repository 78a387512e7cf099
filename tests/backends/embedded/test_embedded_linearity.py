"""Array updates written in place when the generated function owns the array
(:mod:`veriscale.backends.embedded.compiler.linearity`): the shapes it proves answer exactly as
the closures do (values and steps) and are written in place; an array still read after its
update (aliased, captured, read again, the caller's) keeps its old value."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import engine_answers as _answers

from veriscale.backends.base import Answer, Check, CheckKind
from veriscale.lean.values import Arr, owned_result
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"

#: the text of an update done in place (push, set!)
PUSHED = "._items.append("
SET = re.compile(r"\._items\[_t\d+\] = ")

TOTAL = "def total (a : Array Int) : Int := a.foldl (fun s v => s + v) 0\n\n"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def _both_ways(clamp: Task, code_aux: str, code: str, xs: Sequence[int], **limits: int) -> tuple[list[Answer], str]:
    """The answers of the generated path (equal to the closures' in every field) and its text."""
    task = clamp.with_sections(code_aux=TOTAL + code_aux, code="  " + code.replace("\n", "\n  "))
    checks = [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 10}) for x in xs]
    generated, program = _answers(task, checks, True, **limits)
    closures, plain = _answers(task, checks, False, **limits)
    assert plain.compiler.gen.functions == 0

    def fields(answers: Sequence[Answer]) -> list[tuple[object, ...]]:
        return [(a.status, repr(a.value), a.reason, a.detail, a.steps) for a in answers]

    assert fields(generated) == fields(closures)
    return generated, "\n".join(program.compiler.gen.sources)


LOOP_PUSH = """def evens (n : Nat) : Array Int :=
  let rec loop (i : Nat) (acc : Array Int) : Array Int :=
    if i < n then
      if i % 2 = 0 then loop (i + 1) (acc.push (Int.ofNat i)) else loop (i + 1) acc
    else acc
  loop 0 #[]
"""

DEF_SET = """def fill (i : Nat) (c : Array Int) : Array Int :=
  if i < c.size then fill (i + 1) (c.set! i (Int.ofNat i * 2 + c[i]!)) else c
termination_by c.size - i
decreasing_by all_goals sorry
"""

CHAIN = """def bump (a : Array Int) : Array Int :=
  let a := a.set! 0 7
  let a := a.set! 1 (a[0]! + 1)
  a.push 3
"""


def test_a_let_rec_accumulator_is_pushed_onto_in_place(clamp: Task) -> None:
    answers, text = _both_ways(clamp, LOOP_PUSH, "let a := evens x.toNat\ntotal a * 100 + a.size", range(0, 9))
    assert PUSHED in text and "_o" in text
    # x = 7: evens 7 = #[0, 2, 4, 6]
    assert answers[7].value == 12 * 100 + 4
    assert answers[0].value == 0


def test_a_definition_loop_sets_in_place_on_a_fresh_array(clamp: Task) -> None:
    answers, text = _both_ways(clamp, DEF_SET, "total (fill 0 (Array.mkArray x.toNat 1))", range(0, 6))
    assert SET.search(text)
    # fill 0 (mkArray 4 1) = #[1, 3, 5, 7]
    assert [a.value for a in answers[:5]] == [0, 1, 4, 9, 16]


def test_a_let_chain_shadowing_its_array_updates_in_place(clamp: Task) -> None:
    answers, text = _both_ways(clamp, CHAIN, "let b := bump #[x, lo, hi]\ntotal b * 10 + b.size", [0, 5])
    assert text.count(" is _o") >= 3  # three updates of one chain
    # bump #[5, 0, 10] = #[7, 8, 10, 3]
    assert answers[1].value == 28 * 10 + 4


def test_the_callers_array_keeps_its_value(clamp: Task) -> None:
    # the check's own array, a literal and an updated (not frozen) array handed to the loop,
    # then read again by the caller, twice
    aux = """def grow (i n : Nat) (acc : Array Int) : Array Int :=
  if i < n then grow (i + 1) n (acc.push (Int.ofNat (i * 2))) else acc
"""
    code = ("let lit := #[x, 1]\nlet r := grow 0 2 lit\nlet base := lit.push 5\n"
            "let s := grow 0 2 base\nlet t := grow 0 2 base\n"
            "total lit + total r * 10 + total base * 100 + total s * 1000 + total t * 10000 + base.size")
    answers, text = _both_ways(clamp, aux, code, [3])
    assert PUSHED in text
    # lit = #[3, 1]; r = lit ++ #[0, 2]; base = #[3, 1, 5]; s = t = base ++ #[0, 2]
    assert answers[0].value == 4 + 6 * 10 + 9 * 100 + 11 * 1000 + 11 * 10000 + 3


def test_an_accumulator_captured_by_a_fun_is_not_updated_in_place(clamp: Task) -> None:
    aux = """def cap (i : Nat) (acc : Array Int) : Array Int :=
  if i < 4 then
    let f := fun (k : Nat) => acc.size + k
    cap (i + 1) (acc.push (Int.ofNat (f i)))
  else acc
"""
    answers, text = _both_ways(clamp, aux, "total (cap 0 #[x])", [0, 3])
    assert PUSHED not in text
    # #[3] then pushes 1+0, 2+1, 3+2, 4+3
    assert answers[1].value == 3 + 1 + 3 + 5 + 7


def test_an_accumulator_read_after_its_update_keeps_its_old_value(clamp: Task) -> None:
    aux = """def later (i : Nat) (acc : Array Int) (m : Nat) : Nat :=
  if i < 4 then later (i + 1) (acc.push (Int.ofNat m)) (acc.size + m) else acc.size * 100 + m
"""
    answers, text = _both_ways(clamp, aux, "Int.ofNat (later 0 #[x] 0)", [0])
    assert PUSHED not in text
    # sizes 1, 2, 3, 4 read before each push: m = 1, 3, 6, 10
    assert answers[0].value == 5 * 100 + 10


def test_a_version_read_after_the_next_update_keeps_its_value(clamp: Task) -> None:
    aux = """def keep (a : Array Int) : Int :=
  let b := a.set! 0 9
  let c := b.set! 1 8
  b[1]! * 10 + c[1]! + a[1]! * 100
"""
    answers, _ = _both_ways(clamp, aux, "keep #[1, x, 3]", [2])
    assert answers[0].value == 2 * 10 + 8 + 2 * 100


def test_an_aliased_array_keeps_its_value(clamp: Task) -> None:
    aux = """def twice (i : Nat) (acc : Array Int) (other : Array Int) : Int :=
  if i < 3 then twice (i + 1) (acc.push 1) acc else total acc * 10 + total other
"""
    answers, text = _both_ways(clamp, aux, "twice 0 #[x] #[]", [4])
    assert PUSHED not in text
    # acc = #[4, 1, 1, 1]; other = the acc before the last push, #[4, 1, 1]
    assert answers[0].value == 7 * 10 + 6


def test_two_accumulators_each_keep_their_own_chain(clamp: Task) -> None:
    aux = """def split (i : Nat) (ev od : Array Int) : Int :=
  if i < 7 then
    if i % 2 = 0 then split (i + 1) (ev.push (Int.ofNat i)) od else split (i + 1) ev (od.push (Int.ofNat i))
  else ev[3]! * 100 + od[0]! * 10 + od[3]! + Int.ofNat (ev.size * 1000)
"""
    answers, text = _both_ways(clamp, aux, "split 0 #[] #[x]", [5])
    assert text.count(PUSHED) == 2
    assert len(set(t for t in text.split() if t.startswith("_o") and t.rstrip(":").isidentifier())) >= 2
    # ev = #[0, 2, 4, 6]; od = #[5, 1, 3, 5]
    assert answers[0].value == 6 * 100 + 5 * 10 + 5 + 4 * 1000


def test_a_push_loop_runs_out_of_steps_at_the_same_step(clamp: Task) -> None:
    answers, _ = _both_ways(clamp, LOOP_PUSH, "total (evens (x.toNat * 400))", [1, 3, 9], max_steps=2_000)
    assert {a.status for a in answers} >= {"value"}
    assert any(a.status != "value" for a in answers)


def test_only_a_copied_version_is_owned() -> None:
    frozen = Arr([1, 2])
    copied = frozen.push(3)
    assert owned_result(copied, frozen) is copied  # a copy: nothing else reads its list
    stolen = copied.push(4)
    assert owned_result(stolen, copied) is None  # `copied` became a diff reading its list
    assert owned_result(frozen, frozen) is None  # (an update that returned its receiver)
    assert owned_result((1, 2), frozen) is None
    assert list(frozen) == [1, 2] and list(copied) == [1, 2, 3] and list(stolen) == [1, 2, 3, 4]


# -- folds: the loop of a `fun` owns its accumulator (.loops, .linearity) ---------------------
#: the start of a fold's loop taking a copy of its accumulator as its own
OWN_COPY = re.compile(r"_len <= \d+ \* _k\d+\(_t\d+\):")

FOLD_EVENS = "def evensOf (a : Array Int) : Array Int := a.foldl (fun acc v => if v % 2 = 0 then acc.push v else acc) #[]\n"


def test_a_fold_pushes_onto_its_accumulator_in_place(clamp: Task) -> None:
    answers, text = _both_ways(clamp, FOLD_EVENS, "let e := evensOf #[x, 1, 2, x + 2, 4, lo]\ntotal e * 10 + e.size", [0, 3, 4])
    assert PUSHED in text and OWN_COPY.search(text)
    # x = 4: #[4, 2, 6, 4, 0]
    assert answers[2].value == 16 * 10 + 5
    assert answers[1].value == 6 * 10 + 3


def test_a_fold_sets_in_place_and_its_start_keeps_its_value(clamp: Task) -> None:
    # the start is an updated (not frozen) array, read again after the fold; the second fold
    # starts from the first one's result, also read again
    code = ("let a := #[x, 1, 2].push 3\n"
            "let b := (List.range 3).foldl (fun acc i => acc.set! i (acc[i]! + 10)) a\n"
            "let c := Array.foldl (fun acc i => acc.set! (i + 1) 0) b (Array.range 2)\n"
            "total a + total b * 100 + total c * 10000")
    answers, text = _both_ways(clamp, "", code, [5])
    assert SET.search(text) and OWN_COPY.search(text)
    # a = #[5, 1, 2, 3]; b = #[15, 11, 12, 3]; c = #[15, 0, 0, 3]
    assert answers[0].value == 11 + 41 * 100 + 18 * 10000


def test_a_fold_called_again_through_its_memo_keeps_every_result(clamp: Task) -> None:
    # the same fold site twice from the same start: the second fold of a longer list is
    # answered from the first one's result (List.foldl_append), which the caller reads after
    aux = "def addAll (a : Array Int) (n : Nat) : Array Int :=\n  (List.range n).foldl (fun acc i => acc.push (Int.ofNat i)) a\n"
    code = ("let b := #[x].push 1\nlet r1 := addAll b 3\nlet r2 := addAll b 4\nlet r3 := addAll r1 2\n"
            "total r1 + total r2 * 100 + total b * 10000 + total r3 * 1000000 + r2.size")
    answers, text = _both_ways(clamp, aux, code, [7])
    assert PUSHED in text
    # b = #[7, 1]; r1 = b ++ #[0, 1, 2]; r2 = r1 ++ #[3]; r3 = r1 ++ #[0, 1]
    assert answers[0].value == 11 + 14 * 100 + 8 * 10000 + 12 * 1000000 + 6


def test_a_fold_accumulator_read_after_its_update_is_not_updated_in_place(clamp: Task) -> None:
    aux = ("def keepSome (a : Array Int) : Array Int :=\n"
           "  a.foldl (fun acc v => let b := acc.push v; if b.size > 3 then acc else b) #[]\n")
    answers, text = _both_ways(clamp, aux, "let k := keepSome #[x, 1, 2, 3, 4]\ntotal k * 10 + k.size", [9])
    assert PUSHED not in text
    # pushes kept up to three elements: #[9, 1, 2] (the push of 3, then of 4, dropped)
    assert answers[0].value == 12 * 10 + 3


def test_a_fold_accumulator_handed_to_a_definition_is_not_updated_in_place(clamp: Task) -> None:
    aux = ("def sizeOf' (a : Array Int) : Nat := a.size\n"
           "def grown (a : Array Int) : Array Int :=\n"
           "  a.foldl (fun acc v => (acc.push v).push (Int.ofNat (sizeOf' acc))) #[]\n")
    answers, text = _both_ways(clamp, aux, "total (grown #[x, 1, 2])", [5])
    assert OWN_COPY.search(text) is None
    # #[5, 0, 1, 2, 2, 4]
    assert answers[0].value == 14


def test_a_fold_in_place_runs_out_of_steps_at_the_same_step(clamp: Task) -> None:
    code = "total (Array.foldl (fun acc i => acc.push (Int.ofNat i)) #[] (Array.range (x.toNat * 300)))"
    answers, text = _both_ways(clamp, "", code, [1, 3, 9], max_steps=2_000)
    assert PUSHED in text
    assert {a.status for a in answers} >= {"value"}
    assert any(a.status != "value" for a in answers)
