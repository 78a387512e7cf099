"""benchmarks/port_speed.py: port extraction, value mapping, agreement, growth, and a whole run
on a task written here (the shared data is needed only by the test marked ``data``)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from conftest import load_benchmark_script

from veriscale.lean.types import parse_type
from veriscale.lean.values import NONE, Arr, Char, Nat, Pair, Some, Struct

PROJECT_ROOT = Path(__file__).resolve().parents[1]
MINI_CLAMP = PROJECT_ROOT / "examples" / "mini" / "mini_clamp"


P = load_benchmark_script("port_speed")


def _report(numbered_source: str, test_file: str = "def f():\n    pass\n\ndef run_tests():\n    pass\n") -> str:
    """A coverage report laid out as Verina's are (written for these tests)."""
    return (
        "# Coverage Report\n\nTotal executable lines: 3\nCovered lines: 3\nMissed lines: 0\n"
        "Coverage percentage: 100.00%\n\n## Source Code with Coverage\n\n```python\n"
        f"{numbered_source}```\n\n## Complete Test File\n\n```python\n{test_file}```\n"
    )


# ---------------------------------------------------------------------------------------------
# Extraction


def test_extract_port_strips_numbers_and_coverage_marks_keeping_indentation() -> None:
    numbered = (
        "1: ✓ def pick(xs, n):\n"
        "2: ✓     for x in xs:\n"
        "3:           # a comment: no mark\n"
        "4: ✗         if x > n:\n"
        "5:   \n"
        "6: ✓             return x\n"
        "7: ✓     return -1\n"
    )
    source = P.extract_port(_report(numbered))
    assert source == (
        "def pick(xs, n):\n"
        "    for x in xs:\n"
        "        # a comment: no mark\n"
        "        if x > n:\n"
        "\n"
        "            return x\n"
        "    return -1\n"
    )
    namespace: dict[str, object] = {}
    exec(compile(source, "<test>", "exec"), namespace)
    assert namespace["pick"]([1, 5, 9], 4) == 5  # type: ignore[operator]


def test_extract_port_falls_back_to_the_test_file_before_its_driver() -> None:
    report = (
        "# Coverage Report\n\n## Complete Test File\n\n```python\n"
        "def double(x):\n    return 2 * x\n\ndef run_tests():\n    assert double(2) == 4\n```\n"
    )
    assert P.extract_port(report) == "def double(x):\n    return 2 * x\n"


def test_extract_port_refuses_a_report_without_code_or_with_misnumbered_lines() -> None:
    with pytest.raises(P.PortError):
        P.extract_port("# Coverage Report\n\nnothing here\n")
    with pytest.raises(P.PortError, match="line 2"):
        P.extract_port(_report("1: ✓ def f():\n3: ✓     return 1\n"))


def test_algorithm_marker_finds_a_stated_difference_only() -> None:
    assert P.algorithm_marker("Note: this port uses a different algorithm (a heap).") == "a different algorithm"
    assert P.algorithm_marker("We take another approach here.") == "another approach"
    assert P.algorithm_marker(_report("1: ✓ def f(): return 1\n")) is None


# ---------------------------------------------------------------------------------------------
# Values


def test_to_python_maps_by_type() -> None:
    assert P.to_python((Nat(1), Nat(2)), parse_type("List Nat")) == [1, 2]
    assert type(P.to_python(Nat(3), parse_type("Nat"))) is int
    assert P.to_python(Arr((1, -2)), parse_type("Array Int")) == [1, -2]
    assert P.to_python(((Nat(1),), ()), parse_type("List (List Nat)")) == [[1], []]
    assert P.to_python((Char("a"), Char("b")), parse_type("List Char")) == ["a", "b"]
    triple = Pair(1, Pair(True, "s"))
    assert P.to_python(triple, parse_type("Int × Bool × String")) == (1, True, "s")
    assert P.to_python(triple, parse_type("Int × Bool × String"), list) == [1, True, "s"]
    assert P.to_python(Pair(Pair(1, 2), 3), parse_type("(Int × Int) × Int")) == ((1, 2), 3)
    assert P.to_python(Some(Nat(4)), parse_type("Option Nat")) == 4
    assert P.to_python(NONE, parse_type("Option Nat")) is None
    assert P.to_python(1.5, parse_type("Float")) == 1.5


@pytest.mark.parametrize(("value", "type_text"), [
    (Struct("Map", (("entries", ()),)), "Map Int Int"),
    (Some(NONE), "Option (Option Nat)"),
    (True, "Int"),
    (3, "Bool"),
])
def test_to_python_refuses_what_has_no_plain_counterpart(value: object, type_text: str) -> None:
    with pytest.raises(P.Unmappable):
        P.to_python(value, parse_type(type_text))


def test_from_python_reads_a_result_back_at_the_return_type() -> None:
    assert P.from_python(3, parse_type("Nat")) == Nat(3)
    assert type(P.from_python(3, parse_type("Nat"))) is Nat
    assert P.from_python([1, 2], parse_type("Array Int")) == Arr((1, 2))
    assert P.from_python([1, 2], parse_type("List Int")) == (1, 2)
    assert P.from_python("ab", parse_type("List Char")) == (Char("a"), Char("b"))
    assert P.from_python((1, [2]), parse_type("Int × List Nat")) == Pair(1, (Nat(2),))
    assert P.from_python(None, parse_type("Option Int")) is NONE
    assert P.from_python(2, parse_type("Option Int")) == Some(2)
    assert P.from_python(2, parse_type("Float")) == 2.0


@pytest.mark.parametrize(("obj", "type_text"), [
    (-1, "Nat"),       # Lean's Nat subtraction would not go below zero
    (True, "Int"),     # a bool is not a number to Lean
    (1, "Bool"),
    ("ab", "Char"),
    ((1, 2, 3), "Int × Int"),
    (256, "UInt8"),
    ([1], "Array Bool"),
])
def test_from_python_refuses_results_of_the_wrong_shape(obj: object, type_text: str) -> None:
    with pytest.raises(P.Unmappable):
        P.from_python(obj, parse_type(type_text))


def test_disagreement_names_the_side_that_differs() -> None:
    assert P.disagreement(Nat(3), Nat(3), Nat(3), True) is None
    assert P.disagreement(Nat(3), Nat(3), None, False) is None
    assert P.disagreement(Nat(2), Nat(3), Nat(3), True) == P.PORT_DISAGREES
    assert P.disagreement(Nat(2), Nat(3), None, False) == P.PORT_DISAGREES
    assert P.disagreement(Nat(2), Nat(3), Nat(4), True) == P.PORT_DISAGREES
    assert P.disagreement(Nat(3), Nat(2), Nat(3), True) == P.ENGINE_DISAGREES
    assert P.disagreement(Nat(3), Nat(3), Nat(4), True) == P.STORED_DIFFERS
    # floats compare as Lean prints them (six decimals), like `validate`
    assert P.disagreement(0.1 + 0.2, 0.3, 0.3, True) is None
    assert P.disagreement(0.31, 0.3, 0.3, True) == P.PORT_DISAGREES


# ---------------------------------------------------------------------------------------------
# Growth


def test_growth_slope_tells_quadratic_from_linear_work() -> None:
    sizes = list(range(0, 40))
    linear_port = [5 + 3 * n for n in sizes]
    assert P.growth_slope([2 + 2 * n for n in sizes], linear_port) == pytest.approx(1.0)
    quadratic = P.growth_slope([2 + n * n for n in sizes], linear_port)
    assert quadratic == pytest.approx(2.0)
    assert P.another_algorithm(quadratic)
    assert not P.another_algorithm(1.0)
    # the port doing quadratic work where the engine's is linear
    assert P.growth_slope([2 + 2 * n for n in sizes], [5 + n * n for n in sizes]) == pytest.approx(0.5)
    # the worst case counts: an early exit on the engine's side on some inputs hides nothing
    exits = [2 + (n * n if n % 3 else n) for n in sizes]
    assert P.growth_slope(exits + [2 + n * n for n in sizes], linear_port * 2) == pytest.approx(2.0)


def test_growth_slope_draws_no_verdict_from_flat_or_few_counts() -> None:
    sizes = list(range(0, 40))
    assert P.growth_slope([1 + n for n in sizes], [4] * 40) is None   # the port's work is a builtin's
    assert P.growth_slope([1, 2, 3], [1, 2, 3]) is None
    assert P.growth_slope([1 + n for n in range(3)] * 10, [1 + n for n in range(3)] * 10) is None
    assert not P.another_algorithm(None)


def test_a_closed_form_port_is_another_algorithm_only_over_numbers() -> None:
    looping_engine = [2 + n for n in range(0, 64, 3)]
    flat_port = [2] * len(looping_engine)
    slope, why = P.judge_growth(looping_engine, flat_port, numbers=True)
    assert slope is None and why is not None and "closed form" in why
    # over a list the flat port may hand a loop to a builtin (`a + b`, `sum`): no verdict
    assert P.judge_growth(looping_engine, flat_port, numbers=False) == (None, None)
    # both flat: nothing to tell
    assert P.judge_growth([3] * 10, [2] * 10, numbers=True) == (None, None)
    # flat steps, but the engine's time grows: a builtin does the loop the port's formula avoids
    slope, why = P.judge_growth([1] * 10, [2] * 10, numbers=True, engine_seconds=lambda: (2e-6, 80e-6))
    assert why is not None and "time per check grows 40-fold" in why
    assert P.judge_growth([1] * 10, [2] * 10, numbers=True, engine_seconds=lambda: (3e-6, 4e-6)) == (None, None)
    # a large ratio between microsecond-sized checks is noise, not growth
    assert P.judge_growth([1] * 10, [2] * 10, numbers=True, engine_seconds=lambda: (0.2e-6, 5e-6)) == (None, None)
    sizes = list(range(40))
    slope, why = P.judge_growth([2 + n * n for n in sizes], [5 + 3 * n for n in sizes], numbers=False)
    assert slope == pytest.approx(2.0) and why is not None and "power 2.00" in why
    assert P.numbers_only([parse_type("Nat"), parse_type("Int"), parse_type("UInt8"), parse_type("Bool")])
    assert not P.numbers_only([parse_type("Nat"), parse_type("List Nat")])
    assert not P.numbers_only([parse_type("String")])


def test_geometric_mean() -> None:
    assert P.geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert P.geometric_mean([]) is None


# ---------------------------------------------------------------------------------------------
# Guarded runs


def test_run_guarded_returns_raises_and_stops_a_port_that_never_ends() -> None:
    assert P.run_guarded(lambda: 41 + 1, 5.0) == 42
    with pytest.raises(ZeroDivisionError):
        P.run_guarded(lambda: 1 // 0, 5.0)

    def deep(n: int) -> int:
        return 0 if n == 0 else 1 + deep(n - 1)

    assert P.run_guarded(lambda: deep(20_000), 10.0) == 20_000  # past Python's default limit

    def forever() -> None:
        while True:
            pass

    started = time.perf_counter()
    with pytest.raises(P.PortTimeout):
        P.run_guarded(forever, 0.2)
    assert time.perf_counter() - started < 5


def test_load_port_needs_the_entry_point_and_survives_a_crashing_module() -> None:
    port = P.load_port("def f(x):\n    return x + 1\n", "f", "t")
    assert P.call_counted(port, (1,)) == (2, 2)  # one call event, one line event
    with pytest.raises(P.PortError, match="no function 'g'"):
        P.load_port("def f(x):\n    return x\n", "g", "t")
    with pytest.raises(P.PortError, match="SystemExit"):
        P.load_port("import sys\nsys.exit(3)\n", "f", "t")
    with pytest.raises(P.PortError, match="SyntaxError"):
        P.load_port("def f(:\n", "f", "t")


# ---------------------------------------------------------------------------------------------
# A whole run on a task of this project's examples, with ports written here


def _suite_with_port(tmp_path: Path, body: str) -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(MINI_CLAMP, suite / "mini_clamp")
    numbered = "".join(f"{i}: ✓ {line}\n" for i, line in enumerate(
        ["def clampToRange(x, lo, hi):", *body.splitlines()], start=1))
    (suite / "mini_clamp" / P.REPORT_NAME).write_text(_report(numbered), encoding="utf-8")
    return suite


def _run(suite: Path, tmp_path: Path, *extra: str) -> dict[str, object]:
    out = tmp_path / "out.json"
    argv = [str(suite), "--min-seconds", "0", "--min-passes", "2", "--port-timeout", "1",
            "--no-progress", "--json", str(out), *extra]
    assert P.main(argv) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_a_faithful_port_is_measured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    payload = _run(_suite_with_port(tmp_path, "    return max(lo, min(x, hi))"), tmp_path)
    assert payload["skipped"] == []
    [row] = payload["measured"]  # type: ignore[misc]
    assert row["task"] == "mini_clamp" and row["inputs"] > 1
    # The engine's time is its best batch minus the measured batch overhead, floored at 0: on a
    # loaded machine the overhead's own noise can cover a tiny batch (it did, at load 28 on 2 cores).
    assert row["engine_us"] >= 0 and row["port_us"] > 0
    assert row["ratio"] == pytest.approx(row["engine_us"] / row["port_us"])
    # (a ratio of 0, from such a floored time, is left out of the mean: there is no mean then)
    assert payload["geomean_ratio"] == (pytest.approx(row["ratio"]) if row["ratio"] > 0 else None)
    out = capsys.readouterr().out
    assert "mini_clamp" in out and "geometric-mean ratio (engine / port):" in out


@pytest.mark.parametrize(("body", "reason", "detail"), [
    ("    return x", "port-disagrees", "port"),
    ("    return str(x)", "port-disagrees", "is not a value of type Int"),
    ("    raise RuntimeError('no')", "port-error", "RuntimeError"),
    ("    while True:\n        pass", "port-error", "PortTimeout"),
])
def test_a_port_that_differs_or_fails_is_skipped_with_its_reason(
    tmp_path: Path, body: str, reason: str, detail: str
) -> None:
    payload = _run(_suite_with_port(tmp_path, body), tmp_path)
    assert payload["measured"] == []
    [skipped] = payload["skipped"]  # type: ignore[misc]
    assert skipped["reason"] == reason and detail in skipped["detail"]
    assert payload["skip_counts"] == {reason: 1}
    assert payload["geomean_ratio"] is None


def test_a_task_without_a_report_is_not_selected_by_default(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(MINI_CLAMP, suite / "mini_clamp")
    payload = _run(suite, tmp_path)
    assert payload["measured"] == [] and payload["skipped"] == []
    payload = _run(suite, tmp_path, "--tasks", "mini_clamp")
    assert payload["skip_counts"] == {"no-port": 1}


@pytest.mark.data
def test_verinaplus_ports_are_read_from_verina_and_measured(data_dir: Path, tmp_path: Path) -> None:
    payload = _run(data_dir / "verinaplus", tmp_path, "--tasks", "verina_basic_10,verina_basic_104",
                   "--limit-inputs", "30")
    [measured] = payload["measured"]  # type: ignore[misc]
    assert measured["task"] == "verina_basic_10" and measured["inputs"] == 30
    [skipped] = payload["skipped"]  # type: ignore[misc]
    # `Map Int Int` is a structure: no plain-Python value stands for it
    assert skipped["task"] == "verina_basic_104" and skipped["reason"] == "args-unmappable"


def _pairs_task(tmp_path: Path) -> Path:
    """A task of `List (Int × Int)` written for this test, from mini_clamp's layout."""
    suite = tmp_path / "pairs"
    task_dir = suite / "pairs_dot"
    shutil.copytree(MINI_CLAMP, task_dir)
    lean = (MINI_CLAMP / "task.lean").read_text(encoding="utf-8")
    lean = lean.replace("(x : Int) (lo : Int) (hi : Int)", "(xs : List (Int × Int))")
    lean = lean.replace("(x) (lo) (hi)", "(xs)").replace("clampToRange", "dot")
    lean = lean.replace("  lo ≤ hi\n", "  True\n")
    lean = lean.replace("  if x < lo then lo\n  else if hi < x then hi\n  else x\n",
                        "  xs.foldl (fun acc p => acc + p.1 * p.2) 0\n")
    start = lean.index("  -- !benchmark @start postcond\n") + len("  -- !benchmark @start postcond\n")
    lean = lean[:start] + "  True\n" + lean[lean.index("  -- !benchmark @end postcond"):]
    (task_dir / "task.lean").write_text(lean, encoding="utf-8")
    task = json.loads((task_dir / "task.json").read_text(encoding="utf-8"))
    task["id"] = "pairs_dot"
    task["signature"] = {"name": "dot", "parameters": [{"param_name": "xs", "param_type": "List (Int × Int)"}],
                         "return_type": "Int"}
    (task_dir / "task.json").write_text(json.dumps(task), encoding="utf-8")
    rows = [{"input": {"xs": text}, "expected": value, "unexpected": []}
            for text, value in [("[]", 0), ("[(2, 3)]", 6), ("[(1, 2), (3, -4)]", -10)]]
    (task_dir / "test.json").write_text(json.dumps(rows), encoding="utf-8")
    (task_dir / "reject_inputs.json").write_text("[]", encoding="utf-8")
    # a port that writes into its pairs: Python tuples refuse, lists do not
    port = ["def dot(xs):", "    for p in xs:", "        p[0] = p[0] * p[1]", "    return sum(p[0] for p in xs)"]
    numbered = "".join(f"{i}: ✓ {line}\n" for i, line in enumerate(port, start=1))
    (task_dir / P.REPORT_NAME).write_text(_report(numbered), encoding="utf-8")
    return suite


def test_products_go_to_the_port_as_lists_when_tuples_fail(tmp_path: Path) -> None:
    payload = _run(_pairs_task(tmp_path), tmp_path)
    assert payload["skipped"] == []
    [row] = payload["measured"]  # type: ignore[misc]
    assert row["task"] == "pairs_dot" and row["inputs"] == 3 and row["products_as"] == "list"


def test_passes_are_timed_by_the_wall_clock_or_by_cpu_time() -> None:
    assert P.Settings().timer() is time.perf_counter
    assert P.Settings(clock="cpu").timer() is time.process_time


def test_deciles_by_size_are_the_smallest_and_largest_tenth() -> None:
    sizes = [5, 1, 9, 3, 7, 2, 8, 4, 6, 10, 11, 0, 12, 13, 14, 15, 16, 17, 18, 19]
    small, large = P.deciles_by_size(sizes)
    assert [sizes[i] for i in small] == [0, 1] and [sizes[i] for i in large] == [18, 19]
    assert P.deciles_by_size([4, 4, 4]) == ([0], [2])  # at least one each, ties in order


def test_fastest_pass_leaves_out_a_reading_below_half_the_median() -> None:
    # the process's CPU clock can miss a worker thread that has just ended: such a reading is not
    # the fastest pass
    readings = iter([1.8e-3, 1.0e-4, 1.75e-3, 1.9e-3, 1.77e-3])
    settings = P.Settings(min_passes=5, min_seconds=0.0)
    best, passes = P._fastest_pass(lambda: next(readings), settings)
    assert (best, passes) == (1.75e-3, 5)
