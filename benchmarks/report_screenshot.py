#!/usr/bin/env python3
"""The report for all of Verina, rendered in headless Chromium and screenshotted.

Builds the report's inputs into ``OUT/inputs`` (each step is skipped when its output is already
there, so a second run only redraws the report):

* score files for two "models" on Verina, VerinaPlus and VerinaLite: ``ground-truth`` (every
  task's own sections: should pass nearly everything) and ``weakened`` (two samples per task:
  sample 0 has the task's first flawed postcondition and first single-edit code mutant; sample 1
  is the ground truth on every other task and the same weakening elsewhere), so the report shows
  drops between suites, failures with inputs, and pass@1 against pass@2;
* a power file from ``veriscale power`` on every ``--power-every``-th task (a full run is hours);
* the expansion: ``--expand-run DIR`` (an existing ``veriscale expand`` of Verina) or, without
  one, an expansion of every ``--expand-every``-th task.

Then writes ``OUT/report/`` and ``OUT/report-*.png`` (the top of the page, and the whole page in
slices), and prints the sizes, the time of each step and whether each screenshot has content.
Before the screenshot it checks that the installed fonts cover every character of the page
(VerinaPlus inputs hold Chinese, Japanese and Korean text, which Chromium would otherwise draw as
boxes without a word): when they do not it names the characters and the Debian package to
install (``fonts-noto-cjk``), and takes no screenshot.

    python benchmarks/report_screenshot.py OUT --expand-run runs/verina-plus
    python benchmarks/report_screenshot.py OUT --score-every 10 --power-every 50   # quick
    python benchmarks/report_screenshot.py OUT --tasks verina_basic_17 verina_basic_73   # two tasks
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SUITES = ("verina", "verinaplus", "verinalite")


def _data_root() -> Path:
    return Path(os.environ.get("VERISCALE_DATA", PROJECT_ROOT.parent / "shared" / "data"))


def _executor(workers: int | None):  # type: ignore[no-untyped-def]
    from veriscale import ExecutorConfig

    return ExecutorConfig(workers=workers) if workers else None


def _truth(task):  # type: ignore[no-untyped-def]
    """The task's own sections without the proof (the embedded engine does not check proofs)."""
    from veriscale.stages.score import SUBMITTABLE_SECTIONS, ground_truth_submission

    return ground_truth_submission(task, [s for s in SUBMITTABLE_SECTIONS if not s.startswith("proof")])


def _weakened(task, sample: int):  # type: ignore[no-untyped-def]
    """The task's own sections with its first flawed postcondition and first code mutant."""
    from veriscale.stages.power.items import flawed_specs, power_mutants

    truth = _truth(task)
    changes: dict[str, str] = {}
    flawed = [item for item in flawed_specs(task) if item.kind == "postcond"]
    if flawed:
        changes.update(flawed[0].sections)
    mutants = power_mutants(task, order=1)
    if mutants:
        changes.update(mutants[0].sections)
    return truth.model_copy(update={**changes, "sample": sample})


def write_submissions(out: Path, suite: Path, every: int, ids: list[str] | None) -> dict[str, Path]:
    """``ground-truth.jsonl`` and ``weakened.jsonl`` for the suite's tasks (every n-th of ``ids``,
    or of all)."""
    from veriscale.benchmark import load_benchmark
    from veriscale.stages.score.submission import write_submissions as write

    tasks = sorted((t for t in load_benchmark(suite).tasks if ids is None or t.id in ids),
                   key=lambda t: t.id)[::every]
    truth = out / "ground-truth.jsonl"
    weak = out / "weakened.jsonl"
    if not truth.exists():
        write(truth, (_truth(t) for t in tasks))
    if not weak.exists():
        lines = []
        for index, task in enumerate(tasks):
            lines.append(_weakened(task, 0))
            lines.append(_truth(task).model_copy(update={"sample": 1}) if index % 2 == 0
                         else _weakened(task, 1))
        write(weak, lines)
    return {"ground-truth": truth, "weakened": weak}


def score_all(inputs: Path, data: Path, every: int, ids: list[str] | None, workers: int | None) -> None:
    import veriscale

    submissions = write_submissions(inputs, data / "verina", every, ids)
    for model, path in submissions.items():
        for suite in SUITES:
            target = inputs / "scores" / model / suite / "score.json"
            if target.exists():
                continue
            started = time.monotonic()
            report = veriscale.score(data / suite, path, veriscale.ScoreOptions(model=model), tasks=ids,
                                     executor=_executor(workers))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(report.to_json(), indent=1) + "\n", encoding="utf-8")
            print(f"score {model} on {suite}: {len(report.tasks)} task-samples, {report.checks} checks, "
                  f"{time.monotonic() - started:.0f} s", flush=True)


def power_run(inputs: Path, data: Path, every: int, ids: list[str] | None, workers: int | None) -> Path:
    import veriscale

    target = inputs / "power.json"
    if not target.exists():
        started = time.monotonic()
        report = veriscale.power([data / s for s in SUITES], veriscale.PowerOptions(every=every), tasks=ids,
                                 executor=_executor(workers))
        target.write_text(json.dumps(report.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"power on every {every}th task ({len(report.tasks)} tasks): "
              f"{time.monotonic() - started:.0f} s", flush=True)
    return target


def expand_run(inputs: Path, data: Path, given: Path | None, every: int, ids: list[str] | None,
               workers: int | None) -> Path:
    import veriscale

    if given is not None:
        return given
    target = inputs / "verina-plus"
    if not (target / "summary.json").exists():
        from veriscale.benchmark import load_benchmark

        chosen = sorted(t.id for t in load_benchmark(data / "verina").tasks if ids is None or t.id in ids)[::every]
        started = time.monotonic()
        veriscale.expand(data / "verina", target, tasks=chosen, executor=_executor(workers))
        print(f"expand {len(chosen)} tasks: {time.monotonic() - started:.0f} s", flush=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="directory for inputs/, report/ and the screenshots")
    parser.add_argument("--data", type=Path, default=_data_root(), help="holds verina, verinaplus, verinalite")
    parser.add_argument("--expand-run", type=Path, default=None, help="an existing expand run of Verina")
    parser.add_argument("--expand-every", type=int, default=10, help="without --expand-run: every n-th task")
    parser.add_argument("--score-every", type=int, default=1, help="score every n-th task (1: all)")
    parser.add_argument("--power-every", type=int, default=25, help="power on every n-th task")
    parser.add_argument("--tasks", nargs="+", default=None, metavar="ID",
                        help="only these tasks (then --*-every picks among them)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--width", type=int, default=1280, help="browser window width (CSS pixels)")
    parser.add_argument("--inputs-only", action="store_true", help="build the inputs, no report")
    parser.add_argument("--report-only", action="store_true",
                        help="report on the inputs already in OUT/inputs (build none)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(PROJECT_ROOT))
    import veriscale

    if args.expand_run is not None and not (args.expand_run / "summary.json").is_file():
        print(f"error: {args.expand_run}: no summary.json (not an expand run)", file=sys.stderr)
        return 2
    inputs = args.out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        power, run = inputs / "power.json", args.expand_run or inputs / "verina-plus"
    else:
        score_all(inputs, args.data, args.score_every, args.tasks, args.workers)
        power = power_run(inputs, args.data, args.power_every, args.tasks, args.workers)
        run = expand_run(inputs, args.data, args.expand_run, args.expand_every, args.tasks, args.workers)
    if args.inputs_only:
        return 0
    from veriscale.stages.report.screenshot import (
        find_chromium,
        font_check,
        page_characters,
        screenshot_slices,
    )

    started = time.monotonic()
    result = veriscale.report(args.out / "report", veriscale.ReportOptions(
        scores=[inputs / "scores"], power=power, expand=[run], title="VeriScale report: Verina"))
    print(f"report: sections {', '.join(result.sections)}; {len(result.plots)} plots; "
          f"{result.html.stat().st_size / 1e6:.1f} MB HTML; {time.monotonic() - started:.1f} s")
    chromium = find_chromium()
    if chromium is None:
        print("no chromium found: report written, no screenshot", file=sys.stderr)
        return 1
    characters = page_characters(result.html)
    fonts = font_check(characters)
    if not fonts.ok:
        print(f"error: {fonts.advice()}; report written, no screenshot", file=sys.stderr)
        return 1
    print(f"fonts: the page's {len(characters)} distinct non-ASCII characters all have an installed font")
    started = time.monotonic()
    shots = screenshot_slices(chromium, result.html, args.out, width=args.width)
    for shot in shots:
        print(f"screenshot {shot.path.name}: {shot.width}x{shot.height} px, "
              f"{'has content' if shot.has_content else 'BLANK'}")
    print(f"screenshots: {time.monotonic() - started:.1f} s")
    return 0 if shots and all(s.has_content for s in shots) else 1


if __name__ == "__main__":
    sys.exit(main())
