"""The safety gate in front of every engine (``veriscale.backends.gate``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from veriscale.backends.base import Answer, Backend, Check, CheckKind, SourceDiagnostic, UnknownReason
from veriscale.backends.gate import ScreenedBackend, UnsafeLean, screen_substituted
from veriscale.backends.select import make_backend
from veriscale.lean.values import Nat
from veriscale.task import Task, load_task

CLAMP = Path(__file__).resolve().parents[2] / "examples" / "mini" / "mini_clamp"
ARGS = {"x": 5, "lo": 0, "hi": 10}


class Spy(Backend):
    """An engine that records every task it is shown."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[Task] = []

    def run(self, task: Task, checks: Sequence[Check]) -> list[Answer]:
        self.seen.append(task)
        return [Answer.of_value(Nat(0), self.name) for _ in checks]

    def diagnose(self, task: Task) -> list[SourceDiagnostic] | None:
        self.seen.append(task)
        return []

    def check_proof(self, task: Task) -> str:
        self.seen.append(task)
        return "accepted"

    def stats(self) -> int:
        return len(self.seen)


@pytest.fixture()
def clamp() -> Task:
    return load_task(CLAMP)


def test_substituted_sections_are_marked_and_the_mark_is_not_content(clamp: Task, tmp_path: Path) -> None:
    assert not any(s.substituted for s in clamp.lean.sections())
    changed = clamp.with_sections(code="  x\n")
    assert [s.name for s in changed.lean.sections() if s.substituted] == ["code"]
    assert changed.with_sections(precond="  True\n").lean.sections("code")[0].substituted  # kept
    assert clamp.with_sections(code=clamp.section("code")) == clamp  # provenance is not compared


def test_the_ground_truth_is_not_screened(clamp: Task) -> None:
    # Verina-style files carry `sorry` in the proof section: text read from the file is trusted
    assert "sorry" in clamp.section("proof")
    spy = Spy()
    answers = ScreenedBackend(spy).run(clamp, [Check(kind=CheckKind.CODE, args=ARGS)])
    assert [a.status for a in answers] == ["value"] and spy.seen == [clamp]


@pytest.mark.parametrize(
    ("sections", "rule"),
    [
        ({"code": "  sorry\n"}, "sorry"),
        ({"code_aux": "#exit\n", "code": "  x\n"}, "exit-command"),
        ({"precond": "  (unsafe (lo ≤ hi))\n"}, "unsafe"),
        ({"proof": "  native_decide\n"}, "native-decide"),
    ],
)
def test_a_rejected_section_never_reaches_the_engine(clamp: Task, sections: dict[str, str], rule: str) -> None:
    spy = Spy()
    gate = ScreenedBackend(spy)
    hostile = clamp.with_sections(**sections)
    checks = [Check(kind=CheckKind.CODE, args=ARGS), Check(kind=CheckKind.PRECOND, args=ARGS)]

    answers = gate.run(hostile, checks)
    assert [(a.status, a.reason, a.engine) for a in answers] == [("unknown", UnknownReason.UNSAFE, "spy")] * 2
    assert rule in answers[0].detail

    diagnostics = gate.diagnose(hostile)
    assert diagnostics and all(d.kind == "error" and d.rule == f"unsafe:{rule}" for d in diagnostics)
    definite, _ = gate.reading_problems(clamp, hostile)
    assert definite and rule in definite[0]
    with pytest.raises(UnsafeLean, match=rule):
        gate.check_proof(hostile)  # the engine's own extras are gated too
    assert spy.seen == []


def test_the_diagnostic_points_at_the_line_in_the_file(clamp: Task) -> None:
    hostile = clamp.with_sections(code="  if x < lo then lo\n  else sorry\n")
    (diagnostic,) = ScreenedBackend(Spy()).diagnose(hostile) or []
    line = hostile.lean_text().splitlines()[diagnostic.line - 1]
    assert line == "  else sorry" and line[diagnostic.col :].startswith("sorry")


def test_accepted_text_and_the_engines_extras_pass_through(clamp: Task) -> None:
    spy = Spy()
    gate = ScreenedBackend(spy)
    fine = clamp.with_sections(code="  max lo (min x hi)\n")
    assert screen_substituted(fine) == []
    assert gate.run(fine, [Check(kind=CheckKind.CODE, args=ARGS)])[0].status == "value"
    assert gate.check_proof(fine) == "accepted" and gate.stats() == 2 and gate.name == "spy"


def test_every_engine_from_make_backend_is_behind_the_gate(clamp: Task) -> None:
    backend = make_backend("embedded")
    try:
        assert isinstance(backend, ScreenedBackend) and backend.name == "embedded"
        check = Check(kind=CheckKind.CODE, args=ARGS)
        assert backend.run(clamp, [check])[0].value == 5
        (answer,) = backend.run(clamp.with_sections(code="  dbg_trace \"hi\" fun _ => x\n"), [check])
        assert answer.reason == UnknownReason.UNSAFE
    finally:
        backend.close()
