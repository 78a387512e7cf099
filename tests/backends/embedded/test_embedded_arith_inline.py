"""Typed `* / %` at `Nat` and `Int` written inline by the code generator, and the fixed-width
operators (`UInt8` …): every value as Lean defines it (`Int.ediv`/`Int.emod` round so the
remainder is never negative; `n / 0 = 0`, `n % 0 = n`; `UIntN` wraps modulo 2^N), the generated
functions answering exactly as the closures do."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriscale.backends.base import Check, CheckKind
from veriscale.backends.embedded.builtins import ARITH, BUILTINS
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Nat, UInt8, UInt16
from veriscale.task import Task, load_task

from .test_embedded_codegen import _same_both_ways

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(MINI / "mini_clamp")


def _ediv(a: int, b: int) -> int:
    """Lean's `Int.ediv`, from its definition: `a = b * q + r` with `0 ≤ r < |b|`; `a / 0 = 0`."""
    if b == 0:
        return 0
    r = a % abs(b)  # Python's % by a positive number is in [0, |b|)
    return (a - r) // b


def _checks(pairs: list[tuple[int, int]]) -> list[Check]:
    return [Check(kind=CheckKind.CODE, args={"x": x, "lo": lo, "hi": 10}) for x, lo in pairs]


PAIRS = [(a, b) for a in (-7, -6, -1, 0, 1, 6, 7, 1000003) for b in (-3, -1, 0, 1, 3, 5)]


def test_int_product_quotient_remainder(clamp: Task) -> None:
    task = clamp.with_sections(code="  x * lo + x / lo * 1000 + x % lo * 1000000")
    answers, program = _same_both_ways(task, _checks(PAIRS))
    expected = [a * b + _ediv(a, b) * 1000 + (a - b * _ediv(a, b)) * 1000000 for a, b in PAIRS]
    assert [a.value for a in answers] == expected
    # the three operators are inline: no call of the table's functions in the generated text
    text = "\n".join(program.compiler.gen.sources)
    assert " * " in text and " // " in text and " % " in text


def test_nat_product_quotient_remainder(clamp: Task) -> None:
    task = clamp.with_sections(code_aux="def f (n k : Nat) : Nat := n * k + n / k * 1000 + n % k * 1000000",
                               code="  Int.ofNat (f x.toNat lo.toNat)")
    pairs = [(a, b) for a in (0, 1, 6, 7, 1000003) for b in (0, 1, 3, 5)]
    answers, program = _same_both_ways(task, _checks(pairs))
    assert [a.value for a in answers] == [a * b + (a // b if b else 0) * 1000 + (a % b if b else a) * 1000000
                                          for a, b in pairs]
    assert " // " in "\n".join(program.compiler.gen.sources)


def test_a_product_past_the_size_limit_fails_alike(clamp: Task) -> None:
    task = clamp.with_sections(code_aux="def big (k : Nat) : Int := 2 ^ k",
                               code="  big x.toNat * big lo.toNat")
    answers, _ = _same_both_ways(task, _checks([(3, 4), (600000, 500000)]))
    assert answers[0].status == "value" and answers[0].value == 2 ** 7
    assert answers[1].status == "unknown" and "bits exceeds the limit" in answers[1].detail


def test_inline_results_are_values_of_their_type() -> None:
    program = Program("def f (n k : Nat) : Nat := n * k + n / k + n % k\ndef g (a b : Int) : Int := a * b + a / b + a % b")
    f = program.compiler.def_function(program.env.defs["f"])
    g = program.compiler.def_function(program.env.defs["g"])
    assert type(f(Nat(7), Nat(3))) is Nat and f(Nat(7), Nat(3)) == 21 + 2 + 1
    assert type(g(Nat(7), -3)) is int and g(7, -3) == -21 + _ediv(7, -3) + (7 + 3 * _ediv(7, -3))


@pytest.mark.parametrize(("op", "a", "b", "expected"), [
    ("+", 200, 100, 300 - 256), ("-", 100, 200, 256 - 100), ("*", 200, 100, 20000 % 256), ("/", 200, 100, 2),
    ("%", 200, 7, 4), ("/", 200, 0, 0), ("%", 200, 0, 200),
])
def test_uint8_operators_wrap(op: str, a: int, b: int, expected: int) -> None:
    value = ARITH[(op, "UInt8")](UInt8(a), UInt8(b))
    assert type(value) is UInt8 and value == expected


def test_fixed_width_library() -> None:
    a, b = UInt8(0b1010_1100), UInt8(0b0110_0101)
    assert BUILTINS["UInt8.xor"].fn(a, b) == a ^ b and type(BUILTINS["UInt8.xor"].fn(a, b)) is UInt8
    assert BUILTINS["UInt8.complement"].fn(a) == 0b0101_0011
    assert BUILTINS["UInt8.shiftLeft"].fn(a, UInt8(9)) == (a << 1) % 256  # the shift is taken mod 8
    assert BUILTINS["UInt8.shiftRight"].fn(a, UInt8(2)) == a >> 2
    assert BUILTINS["UInt8.ofNat"].fn(Nat(300)) == 44 and type(BUILTINS["UInt8.ofNat"].fn(Nat(300))) is UInt8
    assert type(BUILTINS["UInt8.toNat"].fn(a)) is Nat and BUILTINS["UInt8.toNat"].fn(a) == 0b1010_1100
    assert ARITH[("/", "UInt16")](UInt16(7), UInt16(0)) == 0 and ARITH[("%", "UInt16")](UInt16(7), UInt16(0)) == 7
    assert ARITH[("-", "UInt16")](UInt16(0), UInt16(1)) == 65535
