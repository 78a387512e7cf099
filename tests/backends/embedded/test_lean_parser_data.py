"""The embedded parser on every ``task.lean`` of the reference suites (read by path; nothing copied)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import SUITES

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser import OpenIn, ParsedFile, parse_file
from veriscale.lean.lexer import LeanSyntaxError

pytestmark = pytest.mark.data

# The published VerinaPlus/VerinaLite copies of this task lost the `--` of its proof markers, so
# `!benchmark @start proof` is code there.
BROKEN_TASK = "verina_basic_32"


@dataclass
class TaskParse:
    task: str
    parsed: ParsedFile | None
    lex_error: LeanSyntaxError | None

    @property
    def failures(self) -> list[str]:
        if self.lex_error is not None:
            return [f"{self.task}: lexer {self.lex_error}"]
        assert self.parsed is not None
        return [f"{self.task}:{e.line}:{e.col}: {e.message}" for e in self.parsed.errors]


@dataclass
class SuiteParse:
    tasks: dict[str, TaskParse] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def failing_tasks(self) -> set[str]:
        return {name for name, tp in self.tasks.items() if tp.failures}

    def failures(self) -> list[str]:
        return [f for tp in self.tasks.values() for f in tp.failures]


_cache: dict[str, SuiteParse] = {}


def parse_suite(data_dir: Path, suite: str) -> SuiteParse:
    if suite in _cache:
        return _cache[suite]
    result = SuiteParse()
    sources = {p.parent.name: p.read_text(encoding="utf-8") for p in sorted((data_dir / suite).glob("*/task.lean"))}
    start = time.perf_counter()
    for task, text in sources.items():
        try:
            result.tasks[task] = TaskParse(task, parse_file(text), None)
        except LeanSyntaxError as exc:
            result.tasks[task] = TaskParse(task, None, exc)
    result.seconds = time.perf_counter() - start
    _cache[suite] = result
    return result


def all_defs(commands: list[A.Node]) -> list[A.DefCmd]:
    found: list[A.DefCmd] = []
    for cmd in commands:
        if isinstance(cmd, OpenIn):
            cmd = cmd.command
        if isinstance(cmd, A.DefCmd):
            found.append(cmd)
    return found


def outline(parsed: ParsedFile) -> list[tuple[str, str | None, str | None]]:
    """Command kinds and names: what a file declares, independent of positions."""
    rows: list[tuple[str, str | None, str | None]] = []
    for cmd in parsed.commands:
        name = getattr(cmd, "name", None)
        kind = getattr(cmd, "kind", None) or getattr(cmd, "keyword", None)
        rows.append((type(cmd).__name__, kind, name))
    return rows


def test_every_suite_has_the_same_tasks(data_dir: Path) -> None:
    names = {suite: set(parse_suite(data_dir, suite).tasks) for suite in SUITES}
    assert len(names["verina"]) > 100
    assert names["verinaplus"] == names["verina"] == names["verinalite"]


def test_verina_parses_without_errors(data_dir: Path) -> None:
    suite = parse_suite(data_dir, "verina")
    assert suite.failures() == []


@pytest.mark.parametrize("suite_name", ["verinaplus", "verinalite"])
def test_plus_and_lite_fail_only_on_the_known_broken_task(data_dir: Path, suite_name: str) -> None:
    suite = parse_suite(data_dir, suite_name)
    assert suite.failing_tasks <= {BROKEN_TASK}, suite.failures()
    # Measured: not even the broken task fails, because its un-commented markers sit inside the
    # tactic proof of a theorem, which the parser skips. Pin that, so a change is noticed.
    assert suite.failing_tasks == set()


@pytest.mark.parametrize("suite_name", ["verinaplus", "verinalite"])
def test_broken_task_still_declares_what_verina_declares(data_dir: Path, suite_name: str) -> None:
    text = (data_dir / suite_name / BROKEN_TASK / "task.lean").read_text(encoding="utf-8")
    # the defect is really there: a marker without its `--`
    assert any(line.strip().startswith("!benchmark") for line in text.splitlines())
    broken = parse_suite(data_dir, suite_name).tasks[BROKEN_TASK].parsed
    original = parse_suite(data_dir, "verina").tasks[BROKEN_TASK].parsed
    assert broken is not None and original is not None
    assert outline(broken) == outline(original)


@pytest.mark.parametrize("suite_name", SUITES)
def test_signature_functions_are_parsed_with_their_parameters(data_dir: Path, suite_name: str) -> None:
    """Each task defines ``f``, ``f_precond`` and ``f_postcond`` whose leading binders are the
    signature's parameters, and at least one theorem (the proof section)."""
    suite = parse_suite(data_dir, suite_name)
    problems: list[str] = []
    for task, tp in suite.tasks.items():
        if tp.parsed is None:
            continue  # reported by the failure tests
        signature = json.loads((data_dir / suite_name / task / "task.json").read_text(encoding="utf-8"))["signature"]
        name = signature["name"]
        params = [p["param_name"] for p in signature["parameters"]]
        defs = {d.name: d for d in all_defs(tp.parsed.commands)}
        for fn in (name, f"{name}_precond", f"{name}_postcond"):
            d = defs.get(fn)
            if d is None or d.kind != "def" or (d.body is None and d.alts is None):
                problems.append(f"{task}: {fn} missing or without a body")
                continue
            names = [n for b in d.binders for n in b.names]
            if names[: len(params)] != params:
                problems.append(f"{task}: {fn} binders {names} do not start with {params}")
        if not any(d.kind == "theorem" for d in defs.values()):
            problems.append(f"{task}: no theorem")
    assert problems == []


def test_total_parse_time_is_reported(data_dir: Path, record_property: Callable[[str, object], None]) -> None:
    """Measured, not asserted: the time to parse each suite (printed with ``pytest -s``)."""
    total = 0.0
    for suite_name in SUITES:
        suite = parse_suite(data_dir, suite_name)
        total += suite.seconds
        record_property(f"parse_seconds_{suite_name}", round(suite.seconds, 3))
        print(f"parsed {len(suite.tasks)} {suite_name} task.lean files in {suite.seconds:.2f}s")
    print(f"total parse time {total:.2f}s")
    assert all(parse_suite(data_dir, s).tasks for s in SUITES)
