"""The Lean backend against real Lean 4 (v4.24, prepared by ``veriscale setup-lean``).

Skipped when ``lake`` is not on PATH. When ``lake`` is there but the package is not built, the
tests fail and say so (a machine that has Lean should run them).

What only real Lean can confirm, and these tests do:

* the snippets elaborate: ``#eval decide (P args)``, ``#eval f args (h_precond := lcProof)`` under
  ``set_option eval.pp false``, the probe theorems with ``simp_all!`` and Plausible's config syntax;
* ``#eval`` prints through ``Repr`` in a form the value codec reads back at the return type;
* messages land on the lines the backend attributes them to;
* ``#print axioms`` output is parsed correctly, and a diverging evaluation is stopped by the wall
  clock (compiled code ignores ``maxHeartbeats``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import write_verina_task

from veriscale.backends.base import Check, CheckKind, UnknownReason
from veriscale.backends.lean import LeanBackend, LeanBackendConfig, lean_available
from veriscale.lean.codec import parse_value
from veriscale.lean.types import parse_structures
from veriscale.lean.values import values_equal
from veriscale.task import Task, load_task

pytestmark = [
    pytest.mark.lean,
    pytest.mark.skipif(shutil.which("lake") is None, reason="needs a Lean 4 toolchain (lake on PATH)"),
]

MINI = Path(__file__).resolve().parents[3] / "examples" / "mini"
MINI_TASKS = sorted(p.name for p in MINI.iterdir() if (p / "task.json").is_file()) if MINI.is_dir() else []


@pytest.fixture(scope="module")
def backend() -> Iterator[LeanBackend]:
    usable, reason = lean_available()
    if not usable:
        pytest.fail(f"lake is installed but the Lean backend is not ready: {reason}")
    with LeanBackend(LeanBackendConfig(workers=2, timeout_s=60.0)) as lean:
        yield lean


def _parse_inputs(task: Task, raw: dict[str, Any]) -> dict[str, Any]:
    structs = parse_structures(task.lean_text())
    return {p.name: parse_value(raw[p.name], p.type, structs) for p in task.signature.parameters}


def _suite(task: Task) -> list[tuple[Check, Any]]:
    """Each check of the stored suite with the answer it must get: a status, or a value."""
    structs = parse_structures(task.lean_text())
    return_type = task.signature.return_type
    cases: list[tuple[Check, Any]] = []
    for test in task.tests:
        args = _parse_inputs(task, test.input)
        expected = parse_value(test.expected, return_type, structs)
        cases.append((Check(kind=CheckKind.PRECOND, args=args), "true"))
        cases.append((Check(kind=CheckKind.CODE, args=args), ("value", expected)))
        cases.append((Check(kind=CheckKind.POSTCOND, args=args, output=expected), "true"))
        for wrong in test.unexpected:
            output = parse_value(wrong, return_type, structs)
            cases.append((Check(kind=CheckKind.POSTCOND, args=args, output=output), "false"))
    for reject in task.reject_inputs:
        cases.append((Check(kind=CheckKind.PRECOND, args=_parse_inputs(task, reject.input)), "false"))
    return cases


@pytest.mark.parametrize("task_name", MINI_TASKS)
def test_example_suites_match_lean(backend: LeanBackend, task_name: str) -> None:
    task = load_task(MINI / task_name)
    cases = _suite(task)
    assert cases, "the example has no tests"
    answers = backend.run(task, [check for check, _ in cases])
    for (check, want), answer in zip(cases, answers):
        label = f"{task_name} {check.kind.value} {check.args} {check.output!r}: {answer}"
        if isinstance(want, tuple):
            assert answer.status == "value", label
            assert values_equal(answer.value, want[1]), label
        else:
            assert answer.status == want, label


@pytest.mark.parametrize("task_name", MINI_TASKS)
def test_example_definitions_compile(backend: LeanBackend, task_name: str) -> None:
    assert backend.compile(load_task(MINI / task_name)) == []


@pytest.mark.parametrize("task_name", MINI_TASKS)
def test_sorry_proofs_are_rejected_by_their_axioms(backend: LeanBackend, task_name: str) -> None:
    task = load_task(MINI / task_name)
    if task.section("proof").strip() != "sorry":
        pytest.skip("this example has a real proof")
    verdict = backend.check_proof(task)
    assert not verdict.accepted
    assert verdict.axioms is not None and "sorryAx" in verdict.axioms


# ---------------------------------------------------------------------------------------------
# Tasks of our own, for what the examples do not exercise

def _own_task(root: Path, name: str, *, precond: str = "True", code: str = "x", code_aux: str = "",
              proof: str = "sorry", proof_aux: str = "") -> Task:
    """``name x : Nat`` with the postcondition ``result = x``."""
    return write_verina_task(root, name, name, [("x", "Nat")], "Nat", description="test\n", precond=precond,
                             code=code, code_aux=code_aux, postcond="result = x", proof=proof, proof_aux=proof_aux)


def _nat(x: int) -> dict[str, Any]:
    return {"x": parse_value(x, "Nat")}


def test_proof_axioms_accept_a_real_proof(backend: LeanBackend, tmp_path: Path) -> None:
    task = _own_task(tmp_path, "vsIdProof", proof="unfold vsIdProof_postcond vsIdProof\n  rfl")
    verdict = backend.check_proof(task)
    assert verdict.accepted, verdict
    assert verdict.axioms is not None and verdict.axioms <= {"propext", "Classical.choice", "Quot.sound"}


def test_proof_axioms_reject_a_user_axiom(backend: LeanBackend, tmp_path: Path) -> None:
    task = _own_task(tmp_path, "vsCheat", proof_aux="axiom vsCheatAx : False", proof="exact vsCheatAx.elim")
    verdict = backend.check_proof(task)
    assert not verdict.accepted
    assert verdict.axioms is not None and "vsCheatAx" in verdict.axioms


def test_compile_reports_errors_on_task_lean_lines(backend: LeanBackend, tmp_path: Path) -> None:
    task = _own_task(tmp_path, "vsBroken", code="x + vsNoSuchName")
    errors = backend.compile(task)
    line = next(n for n, text in enumerate(task.lean_text().split("\n"), start=1) if "vsNoSuchName" in text)
    assert errors and all(e.startswith("line ") for e in errors)
    assert any(e.startswith(f"line {line},") for e in errors), errors


def test_undecidable_preconditions_use_the_plausible_fallback(backend: LeanBackend, tmp_path: Path) -> None:
    # `∀ y : Nat, ...` has no Decidable instance in core Lean, so `decide` cannot elaborate.
    always = _own_task(tmp_path, "vsForallTrue", precond="∀ y : Nat, y * 0 = 0")
    never = _own_task(tmp_path, "vsForallFalse", precond="∀ y : Nat, y * 0 = 1")
    before = backend.stats.probe_checks
    assert backend.run(always, [Check(kind=CheckKind.PRECOND, args=_nat(3))])[0].status == "true"
    assert backend.run(never, [Check(kind=CheckKind.PRECOND, args=_nat(3))])[0].status == "false"
    assert backend.stats.probe_checks == before + 2


def test_diverging_code_times_out_and_the_next_check_runs(tmp_path: Path) -> None:
    task = _own_task(
        tmp_path,
        "vsLoop",
        code_aux="partial def vsSpin (n : Nat) : Nat := if n = 0 then 0 else vsSpin (n + 1)",
        code="vsSpin x",
    )
    with LeanBackend(LeanBackendConfig(workers=1, timeout_s=15.0)) as lean:
        answers = lean.run(task, [Check(kind=CheckKind.CODE, args=_nat(0)), Check(kind=CheckKind.CODE, args=_nat(1))])
        assert answers[0].status == "value" and answers[0].value == 0
        assert answers[1].status == "unknown" and answers[1].reason is UnknownReason.TIMEOUT
        again = lean.run(task, [Check(kind=CheckKind.CODE, args=_nat(0))])[0]
        assert again.status == "value" and again.value == 0
        assert lean.stats.restarts_after_failure >= 1


def test_large_values_are_read_whole(backend: LeanBackend, tmp_path: Path) -> None:
    # A value far wider than Lean's 120-column format width prints over many lines.
    task = _own_task(tmp_path, "vsBig", code="(List.range (x + 1)).foldl (· + ·) 0 * 10 ^ 300")
    answer = backend.run(task, [Check(kind=CheckKind.CODE, args=_nat(4))])[0]
    assert answer.status == "value" and answer.value == 10 * 10**300
