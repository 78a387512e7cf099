"""The Lean backend driven by a stand-in REPL (tests/fake_repl.py): no Lean toolchain needed.

The stand-in speaks the REPL's JSON protocol and is steered by rules matched against the Lean
text the backend sends (see its docstring), so these tests check the backend's own logic:
batching and attributing messages to checks, reading values and booleans, timeouts, crashes and
restarts, process-group cleanup, environment reuse, memory limits, the Plausible fallback, and
the compile and proof checks. What only real Lean can confirm is in test_lean_integration.py.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import write_verina_task

from veriscale.backends.base import Check, CheckKind, UnknownReason
from veriscale.backends.lean import LeanBackend, LeanBackendConfig, LeanCheckError, lean_available
from veriscale.backends.lean.config import PROJECT_REPL_BINARY, resolve_repl_launch
from veriscale.backends.lean.interpret import SnippetResult, parse_axioms, split_messages
from veriscale.backends.lean.process import ReplProcess, ReplTimeout, limited_command
from veriscale.backends.lean.protocol import ReplMessage, ReplPos, ResponseReader
from veriscale.backends.lean.snippets import Snippet
from veriscale.backends.lean.source import split_imports, task_source, theorem_name
from veriscale.backends.setup_lean import setup_lean
from veriscale.lean.values import Nat
from veriscale.task import Task

FAKE_REPL = Path(__file__).resolve().parents[2] / "fake_repl.py"

# ---------------------------------------------------------------------------------------------
# Small tasks of our own


def write_task(root: Path, *, task_id: str, name: str, params: list[tuple[str, str]], ret: str,
               imports: str = "", code: str = "x + 1", precond: str = "True",
               postcond: str = "result = x + 1") -> Task:
    return write_verina_task(root, task_id, name, params, ret, description="A test task.\n", imports=imports,
                             code=code, precond=precond, postcond=postcond, proof="simp")


@pytest.fixture
def int_task(tmp_path: Path) -> Task:
    return write_task(tmp_path, task_id="t_inc", name="incr", params=[("x", "Int")], ret="Int")


@pytest.fixture
def list_task(tmp_path: Path) -> Task:
    return write_task(
        tmp_path,
        task_id="t_dup",
        name="dupAll",
        params=[("xs", "List Int")],
        ret="List Int",
        code="xs ++ xs",
        postcond="result = xs ++ xs",
    )


def code(x: int) -> Check:
    return Check(kind=CheckKind.CODE, args={"x": x})


def pre(x: int) -> Check:
    return Check(kind=CheckKind.PRECOND, args={"x": x})


def post(x: int, out: int) -> Check:
    return Check(kind=CheckKind.POSTCOND, args={"x": x}, output=out)


# ---------------------------------------------------------------------------------------------
# Running the backend against the stand-in


class Harness:
    """A backend wired to the stand-in REPL, with its rules and its log."""

    def __init__(self, tmp_path: Path, rules: list[dict[str, Any]], **config: Any) -> None:
        self.rules_file = tmp_path / "rules.json"
        self.log_file = tmp_path / "fake.log"
        self.rules_file.write_text(json.dumps(rules), encoding="utf-8")
        command = [sys.executable, str(FAKE_REPL), "--rules", str(self.rules_file), "--log", str(self.log_file)]
        settings: dict[str, Any] = {"workers": 1, "timeout_s": 1.0, "memory_limit_mb": None}
        settings.update(config)
        self.backend = LeanBackend(LeanBackendConfig(repl_command=command, **settings))

    def log(self) -> list[dict[str, Any]]:
        if not self.log_file.exists():
            return []
        return [json.loads(line) for line in self.log_file.read_text(encoding="utf-8").splitlines()]

    def commands(self, kind: str) -> list[dict[str, Any]]:
        return [entry for entry in self.log() if entry["event"] == "command" and entry["kind"] == kind]


@pytest.fixture
def harness(tmp_path: Path):
    created: list[Harness] = []

    def make(rules: list[dict[str, Any]] | None = None, **config: Any) -> Harness:
        h = Harness(tmp_path, rules or [], **config)
        created.append(h)
        return h

    yield make
    for h in created:
        h.backend.close()


def arg(x: int) -> str:
    """How the backend writes an Int argument (type-ascribed)."""
    return rf"\({x} : Int\)" if x >= 0 else rf"\({x} : Int\)"


# ---------------------------------------------------------------------------------------------
# Batching and reading answers


def test_batches_map_answers_back_to_their_checks(int_task: Task, harness) -> None:
    rules = [
        {"match": rf"#eval incr {arg(5)}", "value": "6"},
        {"match": rf"#eval incr {arg(-4)}", "value": "-3"},
        {"match": rf"decide \(incr_precond {arg(-1)}\)", "value": "false"},
        {"match": rf"decide \(incr_postcond {arg(2)} {arg(9)}", "value": "false"},
    ]
    h = harness(rules, batch_size=4)
    checks = []
    for x in range(-5, 5):
        checks += [code(x), pre(x), post(x, x + 1)]
    checks += [code(5), post(2, 9), pre(7)]
    answers = h.backend.run(int_task, checks)

    assert len(answers) == len(checks)
    by_check = {(c.kind, c.args["x"], c.output): a for c, a in zip(checks, answers)}
    assert by_check[(CheckKind.CODE, 5, None)].value == 6
    assert by_check[(CheckKind.CODE, -4, None)].value == -3
    assert by_check[(CheckKind.CODE, 0, None)].value == 0  # the stand-in's default value
    assert by_check[(CheckKind.PRECOND, -1, None)].status == "false"
    assert by_check[(CheckKind.PRECOND, 3, None)].status == "true"
    assert by_check[(CheckKind.POSTCOND, 2, 9)].status == "false"
    assert by_check[(CheckKind.POSTCOND, 2, 3)].status == "true"
    assert all(a.engine == "lean" for a in answers)
    # The value is read at the declared return type.
    assert type(by_check[(CheckKind.CODE, 5, None)].value) is int

    stats = h.backend.stats
    assert stats.batches == -(-len(checks) // 4)
    assert stats.checks == len(checks)
    assert stats.repl_starts == 1
    assert [entry["snippets"] for entry in h.commands("checks")] == [4] * (len(checks) // 4) + [1]


def test_full_multiline_value_is_read_not_just_its_last_line(list_task: Task, harness) -> None:
    # Lean breaks long values over lines, and #eval logs what the code printed before the value.
    rules = [
        {
            "match": r"#eval dupAll",
            "output": "PANIC at something\nbacktrace line",
            "value": "[1, 2, 3,\n  4, 5,\n  6]",
        }
    ]
    h = harness(rules)
    answer = h.backend.run(list_task, [Check(kind=CheckKind.CODE, args={"xs": (1, 2, 3)})])[0]
    assert answer.status == "value"
    assert answer.value == (1, 2, 3, 4, 5, 6)


def test_unparsable_value_is_unknown_error(int_task: Task, harness) -> None:
    h = harness([{"match": r"#eval incr", "value": "not a number"}])
    answer = h.backend.run(int_task, [code(1)])[0]
    assert answer.status == "unknown" and answer.reason is UnknownReason.ERROR
    assert "not a number" in answer.detail


def test_elaboration_error_of_code_check_is_unknown_error(int_task: Task, harness) -> None:
    h = harness([{"match": rf"#eval incr {arg(3)}", "error": "unknown identifier 'foo'"}])
    answers = h.backend.run(int_task, [code(3), code(4)])
    assert answers[0].status == "unknown" and answers[0].reason is UnknownReason.ERROR
    assert "unknown identifier" in answers[0].detail
    assert answers[1].status == "value"


def test_arguments_are_rendered_with_type_ascriptions(list_task: Task, harness) -> None:
    # The rule only matches the exact rendering the backend promises: (literal : Type).
    h = harness([{"match": r"#eval dupAll \(\[7, -8\] : List Int\) \(h_precond := lcProof\)", "value": "[9]"}])
    answer = h.backend.run(list_task, [Check(kind=CheckKind.CODE, args={"xs": (7, -8)})])[0]
    assert answer.value == (9,)


def test_missing_argument_is_unsupported_and_starts_nothing(int_task: Task, harness) -> None:
    h = harness()
    answers = h.backend.run(int_task, [Check(kind=CheckKind.CODE, args={"y": 1})])
    assert answers[0].reason is UnknownReason.UNSUPPORTED
    assert h.backend.stats.repl_starts == 0


# ---------------------------------------------------------------------------------------------
# Timeouts, crashes, restarts, process groups


def test_hung_repl_is_killed_check_is_timeout_and_the_rest_are_answered(int_task: Task, harness) -> None:
    h = harness([{"match": rf"#eval incr {arg(13)}", "hang": True}, {"match": r"#eval incr", "value": "1"}])
    started = time.monotonic()
    answers = h.backend.run(int_task, [code(1), code(13), code(2)])
    elapsed = time.monotonic() - started
    assert answers[1].status == "unknown" and answers[1].reason is UnknownReason.TIMEOUT
    assert answers[0].value == 1 and answers[2].value == 1
    # One timeout for the batch, one when the culprit runs alone; never more than that.
    assert elapsed < 6
    stats = h.backend.stats
    assert stats.timeouts == 2
    assert stats.restarts_after_failure == 2
    # The backend keeps working afterwards.
    assert h.backend.run(int_task, [code(4)])[0].value == 1


def test_crash_is_unknown_error_and_the_repl_restarts(int_task: Task, harness) -> None:
    h = harness([{"match": rf"#eval incr {arg(66)}", "crash": 3}])
    answers = h.backend.run(int_task, [code(65), code(66), code(67)])
    assert answers[1].reason is UnknownReason.ERROR
    assert "crashed" in answers[1].detail and "status 3" in answers[1].detail
    assert answers[0].status == "value" and answers[2].status == "value"
    assert h.backend.stats.crashes == 2
    starts = [entry for entry in h.log() if entry["event"] == "start"]
    assert len(starts) == h.backend.stats.repl_starts == 3


def _gone(pid: int) -> bool:
    """A process is gone when it no longer exists or is a zombie waiting for its reaper."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return state in ("Z", "X")


def test_timeout_kills_the_whole_process_group(int_task: Task, harness, tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    h = harness([{"match": rf"#eval incr {arg(77)}", "spawn": str(pid_file)}])
    answers = h.backend.run(int_task, [code(77)])
    assert answers[0].reason is UnknownReason.TIMEOUT
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not _gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(grandchild), "the grandchild survived the kill"


def test_huge_output_is_refused_and_the_next_check_works(int_task: Task, harness) -> None:
    h = harness([{"match": rf"#eval incr {arg(5)}", "huge": 3 * 1024 * 1024}], max_response_mb=1)
    answers = h.backend.run(int_task, [code(5)])
    assert answers[0].reason is UnknownReason.ERROR and "too large" in answers[0].detail
    assert h.backend.run(int_task, [code(6)])[0].status == "value"


def test_stray_stdout_line_does_not_break_the_protocol(int_task: Task, harness) -> None:
    h = harness([{"match": r"#eval incr", "noise": "Processing incremental state [pos: 0..10]", "value": "2"}])
    assert h.backend.run(int_task, [code(1)])[0].value == 2


def test_refused_command_restarts_the_process(int_task: Task, harness, tmp_path: Path) -> None:
    h = harness([{"match": rf"{arg(8)}", "refuse": "Unknown environment.", "once": str(tmp_path / "once")}])
    answers = h.backend.run(int_task, [code(8)])
    assert answers[0].reason is UnknownReason.ERROR and "refused" in answers[0].detail
    assert h.backend.run(int_task, [code(8)])[0].status == "value"
    assert h.backend.stats.restarts_after_failure == 1


def test_slow_imports_hit_the_import_limit_and_fail_every_check(int_task: Task, harness) -> None:
    h = harness([{"match": r"^import Plausible$", "hang": True}], import_timeout_s=0.5)
    answers = h.backend.run(int_task, [code(1), pre(1)])
    assert all(a.reason is UnknownReason.TIMEOUT for a in answers)
    assert "imports" in answers[0].detail


def test_import_errors_fail_every_check_once(int_task: Task, harness) -> None:
    h = harness([{"match": r"^import Plausible$", "error": "unknown module prefix 'Plausible'"}])
    answers = h.backend.run(int_task, [code(1), pre(1), code(2)])
    assert all(a.reason is UnknownReason.ERROR and "unknown module" in a.detail for a in answers)
    assert h.backend.stats.header_loads == 1  # the failure is remembered, not retried per batch


# ---------------------------------------------------------------------------------------------
# Environments and resources


def test_imports_and_definitions_load_once_per_worker(tmp_path: Path, int_task: Task, harness) -> None:
    h = harness(workers=2, batch_size=2)
    checks = [code(x) for x in range(20)]
    h.backend.run(int_task, checks)
    h.backend.run(int_task, checks)  # the same task again: nothing is reloaded

    headers = Counter(entry["pid"] for entry in h.commands("header"))
    definitions = Counter(entry["pid"] for entry in h.commands("definitions"))
    assert len(headers) == 2, "both workers should have been used"
    assert set(headers.values()) == {1} and set(definitions.values()) == {1}
    stats = h.backend.stats
    assert stats.repl_starts == 2 and stats.header_loads == 2 and stats.definition_loads == 2
    assert stats.batches == 20

    # A second task with the same imports reuses each process's header.
    other = write_task(tmp_path, task_id="t_other", name="other", params=[("x", "Int")], ret="Int")
    h.backend.run(other, [code(x) for x in range(20)])
    stats = h.backend.stats
    assert stats.header_loads == 2 and stats.repl_starts == 2
    # Which workers pick up the second task's batches depends on thread scheduling; what must
    # hold is one definitions load per task per worker that ran it (so 1 or 2 for the new task).
    assert 3 <= stats.definition_loads <= 4
    assert len(h.commands("definitions")) == stats.definition_loads


def test_a_single_batch_uses_a_single_process(int_task: Task, harness) -> None:
    h = harness(workers=2, batch_size=50)
    h.backend.run(int_task, [code(x) for x in range(10)])
    assert h.backend.stats.repl_starts == 1


def test_processes_are_recycled_after_their_command_budget(int_task: Task, harness) -> None:
    h = harness(batch_size=1, max_commands_per_process=4)
    answers = h.backend.run(int_task, [code(x) for x in range(6)])
    assert all(a.status == "value" for a in answers)
    stats = h.backend.stats
    # header + definitions + 2 checks per process: 3 processes for 6 checks.
    assert stats.repl_starts == 3 and stats.recycles == 2
    assert stats.header_loads == 3


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_memory_limit_is_applied_to_the_repl_process(int_task: Task, harness) -> None:
    h = harness([{"match": r"#eval incr", "rlimit": True}], memory_limit_mb=700)
    assert h.backend.run(int_task, [code(1)])[0].value == 700 * 1024 * 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_no_memory_limit_leaves_rlimit_unlimited(int_task: Task, harness) -> None:
    h = harness([{"match": r"#eval incr", "rlimit": True}], memory_limit_mb=None)
    assert h.backend.run(int_task, [code(1)])[0].value == resource.getrlimit(resource.RLIMIT_AS)[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_exceeding_the_memory_limit_kills_only_that_check(int_task: Task, harness) -> None:
    h = harness([{"match": rf"#eval incr {arg(9)}", "alloc_mb": 2048}], memory_limit_mb=400)
    answers = h.backend.run(int_task, [code(8), code(9), code(10)])
    assert answers[1].reason is UnknownReason.ERROR and "crashed" in answers[1].detail
    assert "MemoryError" in answers[1].detail
    assert answers[0].status == "value" and answers[2].status == "value"


def test_limited_command_wraps_only_when_a_limit_is_set() -> None:
    assert limited_command(["repl"], None) == ["repl"]
    wrapped = limited_command(["lake", "env", "repl"], 100)
    assert wrapped[-3:] == ["lake", "env", "repl"] and str(100 * 1024 * 1024) in wrapped


def test_process_request_times_out_and_kills(tmp_path: Path) -> None:
    rules = tmp_path / "r.json"
    rules.write_text(json.dumps([{"match": "x", "hang": True}]))
    process = ReplProcess([sys.executable, str(FAKE_REPL), "--rules", str(rules)])
    assert process.request({"cmd": "import A"}, 5)["env"] == 0
    with pytest.raises(ReplTimeout):
        process.request({"cmd": "-- veriscale check 0\n#eval x", "env": 0}, 0.3)
    assert not process.alive
    process.close()


# ---------------------------------------------------------------------------------------------
# The Plausible fallback


def test_decide_failure_falls_back_to_plausible_counterexample_means_false(int_task: Task, harness) -> None:
    rules = [
        {"match": rf"decide \(incr_precond {arg(4)}\)", "error": "failed to synthesize\n  Decidable (∀ y, y > x)"},
        {"match": r"veriscale_probe_\w+_pos", "counterexample": True},
    ]
    h = harness(rules)
    answer = h.backend.run(int_task, [pre(4)])[0]
    assert answer.status == "false"
    assert h.backend.stats.probe_checks == 1


def test_counterexample_to_the_negation_means_true(int_task: Task, harness) -> None:
    rules = [
        {"match": rf"decide \(incr_postcond {arg(4)}", "error": "failed to synthesize Decidable"},
        {"match": r"veriscale_probe_\w+_neg", "counterexample": True},
    ]
    h = harness(rules)
    assert h.backend.run(int_task, [post(4, 5)])[0].status == "true"


def test_probe_proved_without_sorry_decides(int_task: Task, harness) -> None:
    rules = [
        {"match": rf"decide \(incr_precond {arg(4)}\)", "error": "failed to synthesize Decidable"},
        {"match": r"veriscale_probe_\w+_neg", "axioms": ["propext"]},
    ]
    h = harness(rules)
    assert h.backend.run(int_task, [pre(4)])[0].status == "false"


def test_no_counterexample_is_never_true(int_task: Task, harness) -> None:
    rules = [{"match": rf"decide \(incr_precond {arg(4)}\)", "error": "failed to synthesize Decidable (P x)"}]
    h = harness(rules)
    answer = h.backend.run(int_task, [pre(4)])[0]
    assert answer.status == "unknown" and answer.reason is UnknownReason.UNDECIDABLE


def test_postcondition_probe_takes_the_precondition_as_hypothesis(int_task: Task, harness) -> None:
    rules = [
        {"match": rf"decide \(incr_postcond {arg(4)}", "error": "failed to synthesize Decidable"},
        {
            "match": rf"theorem veriscale_probe_\w+_pos \(h_precond : incr_precond {arg(4)}\) :\s+"
            rf"\(incr_postcond {arg(4)} {arg(5)} \(h_precond := h_precond\)\)",
            "counterexample": True,
        },
    ]
    h = harness(rules)
    assert h.backend.run(int_task, [post(4, 5)])[0].status == "false"


def test_fallback_can_be_disabled(int_task: Task, harness) -> None:
    rules = [{"match": rf"decide \(incr_precond {arg(4)}\)", "error": "failed to synthesize Decidable (P x)"}]
    h = harness(rules, plausible_fallback=False)
    answer = h.backend.run(int_task, [pre(4)])[0]
    assert answer.reason is UnknownReason.UNDECIDABLE
    assert h.backend.stats.probe_checks == 0
    assert len(h.commands("checks")) == 1  # the decide batch only, no probes


def test_a_timed_out_decide_is_not_retried_with_plausible(int_task: Task, harness) -> None:
    h = harness([{"match": rf"decide \(incr_precond {arg(4)}\)", "hang": True}])
    answer = h.backend.run(int_task, [pre(4)])[0]
    assert answer.reason is UnknownReason.TIMEOUT
    assert h.backend.stats.probe_checks == 0


# ---------------------------------------------------------------------------------------------
# Compile and proof checks


def test_compile_reports_errors_with_task_lean_line_numbers(tmp_path: Path, harness) -> None:
    task = write_task(tmp_path, task_id="t_bad", name="bad", params=[("x", "Int")], ret="Int",
                      code="x + FAKE_UNKNOWN_NAME")
    h = harness([{"match": "FAKE_UNKNOWN_NAME", "error": "unknown identifier 'FAKE_UNKNOWN_NAME'"}])
    errors = h.backend.compile(task)
    line = next(n for n, text in enumerate(task.lean_text().split("\n"), start=1) if "FAKE_UNKNOWN_NAME" in text)
    assert errors == [f"line {line}, column 0: unknown identifier 'FAKE_UNKNOWN_NAME'"]


def test_compile_of_good_code_is_empty_and_reuses_the_environment(int_task: Task, harness) -> None:
    h = harness()
    assert h.backend.compile(int_task) == []
    h.backend.run(int_task, [code(1)])
    assert h.backend.stats.definition_loads == 1


def test_compile_raises_when_lean_cannot_run(int_task: Task, harness) -> None:
    h = harness([{"match": r"^import Plausible$", "error": "unknown module prefix"}])
    with pytest.raises(LeanCheckError):
        h.backend.compile(int_task)


def test_proof_with_standard_axioms_is_accepted(int_task: Task, harness) -> None:
    h = harness()
    verdict = h.backend.check_proof(int_task)
    assert verdict.accepted and verdict.theorem == "incr_spec_satisfied"
    assert h.backend.proof_axioms(int_task) == {"propext", "Classical.choice", "Quot.sound"}


def test_proof_using_sorry_is_rejected(int_task: Task, harness) -> None:
    h = harness([{"match": r"#print axioms incr_spec_satisfied", "axioms": ["propext", "sorryAx"]}])
    verdict = h.backend.check_proof(int_task)
    assert not verdict.accepted and "sorryAx" in verdict.reason


def test_proof_with_errors_is_rejected(tmp_path: Path, harness) -> None:
    task = write_task(tmp_path, task_id="t_p", name="pp", params=[("x", "Int")], ret="Int")
    task = task.with_sections(proof="  exact FAKE_BROKEN_PROOF\n")
    h = harness([{"match": "FAKE_BROKEN_PROOF", "error": "unknown identifier"}])
    verdict = h.backend.check_proof(task)
    assert not verdict.accepted and verdict.errors
    with pytest.raises(LeanCheckError):
        h.backend.proof_axioms(task)


def test_checks_do_not_elaborate_the_proof(tmp_path: Path, harness) -> None:
    task = write_task(tmp_path, task_id="t_q", name="qq", params=[("x", "Int")], ret="Int")
    task = task.with_sections(proof="  exact FAKE_SLOW_PROOF\n")
    h = harness([{"match": "FAKE_SLOW_PROOF", "hang": True}])
    assert h.backend.run(task, [code(1)])[0].status == "value"


# ---------------------------------------------------------------------------------------------
# Pure parts


def test_response_reader_handles_chunks_noise_and_multiline_json() -> None:
    reader = ResponseReader()
    payload = json.dumps({"env": 3, "messages": [{"data": "a\n\nb"}]}, indent=2) + "\n\n"
    reader.feed(b"stray line\n\n")
    assert reader.next_object() is None
    for i in range(0, len(payload), 7):
        reader.feed(payload[i : i + 7].encode())
        got = reader.next_object()
        if got is not None:
            break
    assert got == {"env": 3, "messages": [{"data": "a\n\nb"}]}
    assert reader.noise == ["stray line"]
    assert len(reader) == 0


def test_response_reader_rejects_malformed_blocks() -> None:
    reader = ResponseReader()
    reader.feed(b'{"env": 1,,}\n\n')
    with pytest.raises(ValueError):
        reader.next_object()


def _message(line: int, data: str, severity: str = "info") -> ReplMessage:
    return ReplMessage(severity=severity, pos=ReplPos(line=line, column=0), data=data)  # type: ignore[arg-type]


def test_messages_are_attributed_by_line() -> None:
    snippets = [
        Snippet(check_index=0, role="eval", text="a\nb\nc", result_line=3),
        Snippet(check_index=1, role="eval", text="d\ne", result_line=2),
    ]
    results = split_messages([_message(3, "x"), _message(4, "y", "error"), _message(5, "z"), _message(9, "w")],
                             snippets)
    assert [(m.pos.line, m.data) for m in results[0].messages] == [(3, "x")]
    assert [(m.pos.line, m.data) for m in results[1].messages] == [(1, "y"), (2, "z")]
    assert isinstance(results[1], SnippetResult) and results[1].errors[0].data == "y"


def test_parse_axioms() -> None:
    assert parse_axioms("'t' depends on axioms: [propext,\n Classical.choice, Quot.sound]") == {
        "propext",
        "Classical.choice",
        "Quot.sound",
    }
    assert parse_axioms("'t' does not depend on any axioms") == set()
    assert parse_axioms("something else") is None


def test_split_imports_blanks_lines_and_keeps_line_numbers() -> None:
    text = "-- !benchmark @start import type=solution\nimport Mathlib\nimport Std.Data.HashMap -- maps\n" \
           "-- !benchmark @end import\ndef f := 1\nimport_like := 2\n"
    modules, body = split_imports(text)
    assert modules == ["Mathlib", "Std.Data.HashMap"]
    assert body.split("\n")[4] == "def f := 1"
    assert "import Mathlib" not in body and len(body.split("\n")) == len(text.split("\n"))


def test_split_imports_reads_comments_as_lean_does() -> None:
    # `/- import X -/` is a comment (the shared lexer's `finishCommentBlock`), a comment may follow
    # an import across lines, and an import after other code is no header import
    text = "/- import X -/\nimport A /- c\n -/\nimport B.C\ndef f := 1\nimport D\n"
    modules, body = split_imports(text)
    assert modules == ["A", "B.C"]
    assert body == "/- import X -/\n         /- c\n -/\n          \ndef f := 1\nimport D\n"


def test_task_source_adds_plausible_and_replaces_the_proof(int_task: Task) -> None:
    source = task_source(int_task, always_import=("Plausible",))
    assert source.imports == ("Plausible",)
    assert "  simp\n" not in source.body and "sorry" in source.body
    kept = task_source(int_task, always_import=("Plausible",), keep_proof=True)
    assert "  simp\n" in kept.body and kept.key != source.key
    assert theorem_name(int_task) == "incr_spec_satisfied"


def test_nat_return_values_are_typed(tmp_path: Path, harness) -> None:
    task = write_task(tmp_path, task_id="t_nat", name="nn", params=[("x", "Nat")], ret="Nat")
    h = harness([{"match": r"#eval nn \(3 : Nat\)", "value": "4"}])
    answer = h.backend.run(task, [Check(kind=CheckKind.CODE, args={"x": Nat(3)})])[0]
    assert answer.value == 4 and isinstance(answer.value, Nat)


# ---------------------------------------------------------------------------------------------
# Setup and discovery


def test_setup_lean_fails_clearly_without_lake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lakefile.lean").write_text("-- test\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    lines: list[str] = []
    assert setup_lean(tmp_path, echo=lines.append) == 127
    assert any("lake" in line and "elan" in line for line in lines)


def test_setup_lean_runs_cache_build_and_repl_build_in_order(tmp_path: Path) -> None:
    (tmp_path / "lakefile.lean").write_text("-- test\n")
    ran: list[list[str]] = []

    def runner(command, cwd) -> int:
        ran.append(list(command))
        assert Path(cwd) == tmp_path.resolve()
        return 0

    assert setup_lean(tmp_path, lake="/opt/lake", runner=runner, echo=lambda _: None) == 0
    assert ran == [["/opt/lake", "exe", "cache", "get"], ["/opt/lake", "build"], ["/opt/lake", "build", "repl"]]


def test_setup_lean_stops_at_the_first_failing_step(tmp_path: Path) -> None:
    (tmp_path / "lakefile.lean").write_text("-- test\n")
    ran: list[list[str]] = []

    def runner(command, cwd) -> int:
        ran.append(list(command))
        return 1 if command[1] == "build" else 0

    lines: list[str] = []
    assert setup_lean(tmp_path, lake="lake", runner=runner, echo=lines.append) == 1
    assert len(ran) == 2 and "step 2 failed" in lines[-1]


def test_setup_lean_needs_a_lakefile(tmp_path: Path) -> None:
    lines: list[str] = []
    assert setup_lean(tmp_path, lake="lake", echo=lines.append) == 2


def _fake_lake(directory: Path) -> None:
    directory.mkdir()
    lake = directory / "lake"
    lake.write_text("#!/bin/sh\nexit 0\n")
    lake.chmod(0o755)


def test_lean_available_reports_each_missing_piece(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERISCALE_LEAN_REPL", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    usable, reason = lean_available(tmp_path)
    assert not usable and "lake" in reason

    _fake_lake(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    project = tmp_path / "project"
    project.mkdir()
    usable, reason = lean_available(project)
    assert not usable and "lakefile.lean" in reason

    (project / "lakefile.lean").write_text("-- test\n")
    usable, reason = lean_available(project)
    assert not usable and "not built" in reason

    (project / ".lake" / "build").mkdir(parents=True)
    binary = project / PROJECT_REPL_BINARY
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    usable, reason = lean_available(project)
    assert usable, reason
    launch = resolve_repl_launch(LeanBackendConfig(project_dir=project))
    assert launch.command == [str(tmp_path / "bin" / "lake"), "env", str(binary.resolve())]
    assert launch.cwd == project.resolve()


def test_configured_repl_command_wins(tmp_path: Path) -> None:
    launch = resolve_repl_launch(LeanBackendConfig(repl_command=["my-repl"], project_dir=tmp_path))
    assert launch.command == ["my-repl"] and launch.origin == "configured"


def test_backend_imports_without_lean_interact() -> None:
    code_text = (
        "import sys\n"
        "sys.modules['lean_interact'] = None\n"  # any import of it would now fail
        "import veriscale.backends.lean as lean\n"
        "print(lean.LeanBackend.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code_text], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "LeanBackend"


def test_an_environment_failure_is_paid_once_per_run(int_task: Task, harness) -> None:
    h = harness([{"match": r"^import Plausible$", "hang": True}], import_timeout_s=0.4, batch_size=1)
    started = time.monotonic()
    answers = h.backend.run(int_task, [code(x) for x in range(6)])
    assert all(a.reason is UnknownReason.TIMEOUT for a in answers)
    assert time.monotonic() - started < 3
    assert h.backend.stats.header_loads == 1
