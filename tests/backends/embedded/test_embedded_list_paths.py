"""Generated code for recursions over lists and scalar methods: options matched unboxed
(``match xs[i]? with | some a => …``), scalar/list/option builtins and ``∈`` written inline.

Each shape runs through both paths (generated code and closures only) on the same checks: the
values, statuses, reasons and step counts must be the same; the generated text must hold the
inline form (so the test fails when the shape falls back to calls)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import answer_fields as _fields
from conftest import engine_answers as _answers

from veriscale.backends.base import Answer, Check, CheckKind
from veriscale.task import Task, load_task

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def _checks() -> list[Check]:
    return [Check(kind=CheckKind.CODE, args={"x": x, "lo": 0, "hi": 10}) for x in range(-3, 14)]


def _both_ways(clamp: Task, code_aux: str, code: str, max_steps: int = 20_000) -> tuple[list[Answer], str]:
    """The answers (the same on both paths, checked) and the generated text."""
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    generated, program = _answers(task, _checks(), True, max_steps=max_steps)
    closures, plain = _answers(task, _checks(), False, max_steps=max_steps)
    assert plain.compiler.gen.functions == 0
    assert _fields(generated) == _fields(closures)
    return generated, "\n".join(program.compiler.gen.sources)


# -- options matched unboxed ------------------------------------------------------------------

UNBOXED_PROGRAMS: list[tuple[str, str]] = [
    # two discriminants, `some a, some b` then `_, _` (a palindrome by indices)
    ("def pal (l r : Nat) (cs : List Int) : Bool :=\n"
     "  if l ≥ r then true else\n"
     "  match cs[l]?, cs[r]? with\n"
     "  | some a, some b => if a == b then pal (l + 1) (r - 1) cs else false\n"
     "  | _, _ => false\n"
     "termination_by r - l",
     "let cs : List Int := (List.range x.toNat).map (fun i => ((i : Int) - x / 2) * ((i : Int) - x / 2))\n"
     "if pal 0 (cs.length - 1) cs then 1 else if pal 0 (cs.length + 3) cs then 2 else 0"),
    # `some`/`none` on an array, one discriminant, a count through the recursion
    ("def cnt (a : Array Int) (k : Int) (i n : Nat) : Nat :=\n"
     "  match a[i]? with\n"
     "  | some v => cnt a k (i + 1) (if v = k then n + 1 else n)\n"
     "  | none => n\n"
     "termination_by a.size - i",
     "Int.ofNat (cnt ((Array.range (x.toNat + 2)).map (fun i => (i : Int) % 3)) 1 0 0)"),
    # a nested pattern inside `some`, a numeral inside `some`, a variable binding the option
    ("def f (ps : List (Int × Int)) (i : Nat) : Int :=\n"
     "  match ps[i]?, ps[i + 1]? with\n"
     "  | some (a, 0), _ => a\n"
     "  | some (a, b), some (c, _) => a * b + c\n"
     "  | o, none => match o with | some (a, _) => a - 100 | none => -1",
     "let ps : List (Int × Int) := (List.range 6).map (fun k => ((k : Int), (k : Int) % 4 - 1))\n"
     "f ps x.toNat + f ps (x.toNat + 1)"),
    # options of options: `none` inside `some` is a value, not the absent element
    ("def g (xs : List (Option Nat)) (i : Nat) : Int :=\n"
     "  match xs[i]? with\n  | some (some n) => n\n  | some none => -5\n  | none => -9",
     "g [some 3, none, some 7] x.toNat + g [none] (x.toNat % 2)"),
]


@pytest.mark.parametrize("index", range(len(UNBOXED_PROGRAMS)))
def test_options_matched_unboxed_answer_like_the_closures(clamp: Task, index: int) -> None:
    code_aux, code = UNBOXED_PROGRAMS[index]
    answers, text = _both_ways(clamp, code_aux, code)
    assert all(a.status == "value" for a in answers), [a.detail for a in answers if a.status != "value"]
    # the match tests the unboxed value against the sentinel: no `some` made for the match
    assert re.search(r"is not _k\d+", text), text


def test_unboxed_index_fails_alike_on_a_collection_it_does_not_index(clamp: Task) -> None:
    # `xs[i]?` on a `Subarray` is not written inline (another run-time class): the fallback's
    # option is unboxed, with the same values
    code_aux = ("def h (s : Subarray Int) (i : Nat) : Int :=\n"
                "  match s[i]? with\n  | some v => v\n  | none => 0")
    answers, _ = _both_ways(clamp, code_aux, "h (#[1, 2, 3, 4].toSubarray 1 3) x.toNat")
    assert [a.value for a in answers if a.status == "value"][:6] == [2, 2, 2, 2, 3, 0]


# -- builtins written inline ------------------------------------------------------------------

SCALAR_PROGRAMS: list[tuple[str, str, Sequence[str]]] = [
    ("def u (a b : UInt8) : UInt8 × UInt8 :=\n  let t := a.xor b\n  (t.land (a.lor 3), t.xor b)",
     "let p := u (UInt8.ofNat (x.toNat * 37)) (UInt8.ofNat (x.toNat + 200))\n"
     "Int.ofNat p.1.toNat - Int.ofNat p.2.toNat + Int.ofNat ((UInt64.ofNat (x.toNat * 1000000007)).xor 5).toNat",
     [" ^ ", " & ", " | "]),
    ("", "let xs := List.replicate (x.toNat * 120) 'a'\n"
     "let s := String.mk xs\n"
     "Int.ofNat xs.length + Int.ofNat s.length + Int.ofNat (Nat.min x.toNat 4) + Int.ofNat (Nat.max x.toNat 4)\n"
     "  + Int.ofNat (x - 5).toNat + Int.ofNat (x * 300 - 2000).natAbs + Int.ofNat (x * 400).toNat",
     []),
    ("def cls (c : Char) : Int :=\n"
     "  (if c.isDigit then 1 else 0) + (if c.isUpper then 2 else 0) + (if c.isLower then 4 else 0)\n"
     "  + (if c.isAlpha then 8 else 0) + (if c.isAlphanum then 16 else 0)",
     "let cs := \"a0Z_z9A \".toList\n(cs.map cls).foldl (· + ·) 0 + cls (cs[x.toNat % 8]!)",
     []),
    # a number printed digit by digit: `Char.ofNat` (small, and past the table), `Char.toNat`,
    # `String.mk`
    ("def digits (n : Nat) : List Char :=\n"
     "  if n < 10 then [Char.ofNat (n + 48)] else digits (n / 10) ++ [Char.ofNat (n % 10 + 48)]",
     "let s := String.mk (digits (x.toNat * 98765))\n"
     "let w := String.mk [Char.ofNat (x.toNat * 40), Char.ofNat 955]\n"
     "Int.ofNat s.length * 1000 + Int.ofNat (s.toList.foldl (fun acc c => acc + c.toNat) 0)"
     " + Int.ofNat (w.toList.map Char.toNat).sum",
     []),
    ("def pick (o : Option Int) (d : Int) : Int :=\n"
     "  (if o.isNone then 1 else 0) + (if o.isSome then 2 else 0) + o.getD d",
     "pick (if x > 4 then some x else none) (lo - 3) + pick ([1, 2, 3][x.toNat]?) hi",
     []),
    # `∈` / `∉` on lists of scalars (small, and past the size where the builtin hashes), of
    # strings and of lists (not scalars: the builtin)
    ("def mem (x : Int) (xs : List Int) (ws : List String) (ls : List (List Nat)) : Int :=\n"
     "  let a : Int := if x ∈ xs then 1 else 0\n  let b : Int := if x * 7 ∉ xs then 2 else 0\n"
     "  let c : Int := if \"bc\" ∈ ws then 4 else 0\n  let d : Int := if [x.toNat] ∈ ls then 8 else 0\n"
     "  a + b + c + d",
     "mem x ((List.range (x.toNat * 10)).map (fun i => (i : Int) * 2)) [\"a\", \"bc\"] [[1], [2, 3]]",
     [" in ", " not in "]),
]


@pytest.mark.parametrize("index", range(len(SCALAR_PROGRAMS)))
def test_scalar_builtins_written_inline_answer_like_the_closures(clamp: Task, index: int) -> None:
    code_aux, code, fragments = SCALAR_PROGRAMS[index]
    answers, text = _both_ways(clamp, code_aux, code)
    assert all(a.status == "value" for a in answers), [a.detail for a in answers if a.status != "value"]
    for fragment in fragments:
        assert fragment in text, (fragment, text)


def test_scalar_builtins_are_not_called_where_written_inline(clamp: Task) -> None:
    from veriscale.backends.embedded.builtins import BUILTINS

    code_aux, code, _ = SCALAR_PROGRAMS[1]
    task = clamp.with_sections(code_aux=code_aux, code="  " + code.replace("\n", "\n  "))
    _, program = _answers(task, _checks()[:1], True)
    gen = program.compiler.gen
    text = "\n".join(gen.sources)
    for name in ("List.length", "String.length", "Nat.min", "Nat.max", "Int.toNat", "Int.natAbs"):
        # the builtin is only the fallback of a class test: never called outside an `else`
        call = f"{gen.const(BUILTINS[name].fn)}("
        assert call in text, name
        assert text.count(call) == text.count(f"else {call}"), name


def test_runtime_classes_read_by_identity_have_no_subclasses() -> None:
    # the inline texts read `v.__class__ is Nat`/`UInt8`…/`int`/`str` where the builtins call
    # isinstance or dispatch on the type: equal only while no run-time class derives from them
    import veriscale.backends.embedded.builtins  # noqa: F401 - every runtime class defined
    from veriscale.lean.values import FIXED_WIDTH_TYPES, Nat

    assert Nat.__subclasses__() == []
    assert all(cls.__subclasses__() == [] for cls in FIXED_WIDTH_TYPES.values())
