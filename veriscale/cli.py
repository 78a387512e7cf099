"""The ``veriscale`` command line: one subcommand per job.

Heavy modules are imported inside the commands so that ``veriscale --help`` and ``doctor`` work
even when an optional part (LeanInteract, say) is missing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from veriscale.parallel import Executor

app = typer.Typer(
    name="veriscale",
    help="Adversarially scale the test suites of Lean 4 verifiable-code-generation benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Measure speed and coverage figures (printed as numbers).", no_args_is_help=True)
app.add_typer(bench_app, name="bench")


def _echo_err(message: str) -> None:
    typer.echo(message, err=True)


def _write_json(path: Path, payload: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _task_ids(given: list[str] | None) -> list[str] | None:
    """``--tasks a --tasks b,c`` -> ``[a, b, c]``; ``None`` when not given."""
    if not given:
        return None
    return [part.strip() for item in given for part in item.split(",") if part.strip()]


def _backend_name_or_exit(backend: str) -> str:
    """The engine ``--backend`` names (``auto`` resolved), or exit 2 saying why it is unusable."""
    from veriscale.backends.select import BackendUnavailable, resolve_backend_name

    try:
        return resolve_backend_name(backend)
    except BackendUnavailable as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc


# The worker options of every command that runs tasks in parallel (veriscale.parallel).
WorkersOption = Annotated[
    int | None,
    typer.Option("--workers", min=1, show_default=False,
                 help="Worker processes (default: one per core; with --executor ray, one per CPU of the cluster)."),
]
JobsOption = Annotated[int | None, typer.Option("--jobs", min=1, hidden=True, help="Deprecated name of --workers.")]
ExecutorOption = Annotated[
    str, typer.Option("--executor", help="local (worker processes on this machine) or ray (needs the ray extra).")
]
AddressOption = Annotated[
    str | None,
    typer.Option("--address", show_default=False,
                 help="With --executor ray: the cluster to join (default: $RAY_ADDRESS or a cluster already "
                 "running on this machine, else a new local one)."),
]


def _executor_or_exit(kind: str, workers: int | None, jobs: int | None, address: str | None) -> Executor:
    """The executor the flags describe, or exit 2 with one line saying what is wrong."""
    import importlib.util

    from veriscale.parallel import ExecutorConfig, make_executor

    if kind not in ("local", "ray"):
        _echo_err(f"error: --executor {kind}: expected local or ray")
        raise typer.Exit(2)
    if address is not None and kind != "ray":
        _echo_err("error: --address is for the Ray executor (add --executor ray)")
        raise typer.Exit(2)
    if kind == "ray" and importlib.util.find_spec("ray") is None:
        _echo_err("error: --executor ray needs Ray: pip install 'veriscale[ray]'")
        raise typer.Exit(2)
    return make_executor(ExecutorConfig(kind=kind, workers=workers or jobs, address=address))  # type: ignore[arg-type]


@app.command()
def doctor() -> None:
    """Report Python, dependencies, the Lean toolchain, and which backends are usable."""
    from veriscale.doctor import collect_report, format_report

    report = collect_report()
    typer.echo(format_report(report))


@app.command()
def inspect(
    path: Annotated[Path, typer.Argument(help="A task directory or a benchmark directory of tasks.")],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write {loaded, failed[]} as JSON to this file.")
    ] = None,
) -> None:
    """Summarise one task or a whole benchmark, reporting tasks that fail to load."""
    from veriscale.overview import inspect_benchmark

    if not path.exists():
        _echo_err(f"error: {path}: no such file or directory")
        raise typer.Exit(2)
    summary = inspect_benchmark(path)
    typer.echo(summary.format_table())
    if json_out is not None:
        _write_json(json_out, summary.to_json())
        typer.echo(f"wrote {json_out}")


@app.command()
def screen(
    files: Annotated[list[Path], typer.Argument(help="Lean files of generated code to screen.")],
) -> None:
    """Screen generated Lean for constructs that could fool a scorer or escape the sandbox.

    Exit 0 and ``ok`` when accepted; exit 1 and one line per finding when rejected.
    """
    from veriscale.backends.safety import screen_main

    raise typer.Exit(screen_main(files))


@app.command("setup-lean")
def setup_lean_command(
    project_dir: Annotated[
        Path | None, typer.Option(help="Directory holding lakefile.lean (default: the installed project).")
    ] = None,
) -> None:
    """Fetch Mathlib's cache and build the Lean package used by the Lean backend (needs elan/lake)."""
    from veriscale.backends.setup_lean import default_project_dir, setup_lean

    raise typer.Exit(setup_lean(project_dir or default_project_dir()))


@app.command()
def validate(
    path: Annotated[Path, typer.Argument(help="A benchmark (or task) directory whose answers came from real Lean.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the full report as JSON.")] = None,
    backend: Annotated[str, typer.Option(help="auto, embedded or lean.")] = "embedded",
    workers: WorkersOption = None,
    jobs: JobsOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    task: Annotated[list[str] | None, typer.Option(help="Only these task ids (repeatable).")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every task, not only the notable.")] = False,
) -> None:
    """Check an engine against stored answers: precond on tests/rejects, code, postcond; the embedded engine also elaborates every task file and reports what Lean would reject."""
    from veriscale.parallel import progress_bar
    from veriscale.validate import format_report, validate_benchmark

    if not path.exists():
        _echo_err(f"error: {path}: no such file or directory")
        raise typer.Exit(2)
    backend_name = _backend_name_or_exit(backend)
    runner = _executor_or_exit(executor, workers, jobs, address)
    report = validate_benchmark(path, backend_name=backend_name, progress=progress_bar("validate"), task_ids=task,
                                executor=runner)
    typer.echo(format_report(report, verbose=verbose))
    if json_out is not None:
        _write_json(json_out, report.model_dump(mode="json"))
        typer.echo(f"wrote {json_out}")


@app.command()
def audit(
    path: Annotated[Path, typer.Argument(help="A benchmark (or task) directory.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write every finding as JSON to this file.")] = None,
    backend: Annotated[str, typer.Option(help="auto, embedded or lean.")] = "embedded",
    seed: Annotated[int, typer.Option(help="Seed of the counterexample search.")] = 42,
    search: Annotated[bool, typer.Option(help="Search generated inputs for counterexamples.")] = True,
    task_steps: Annotated[int | None, typer.Option(help="Step budget of one task's search.")] = None,
    task: Annotated[list[str] | None, typer.Option(help="Only these task ids (repeatable).")] = None,
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
) -> None:
    """Everything wrong with a benchmark's tasks and data, with evidence, each finding re-evaluated: counterexamples to spec_satisfied, failing reference code, stored rows the ground truth contradicts, duplicates, unreadable values, broken markers."""
    from pydantic import ValidationError

    from veriscale.audit import AuditOptions, audit_benchmark, format_audit
    from veriscale.parallel import progress_bar

    if not path.exists():
        _echo_err(f"error: {path}: no such file or directory")
        raise typer.Exit(2)
    backend_name = _backend_name_or_exit(backend)
    try:
        given = {"seed": seed, "search": search, "task_steps": task_steps}
        options = AuditOptions.model_validate({k: v for k, v in given.items() if v is not None})
    except ValidationError as exc:
        _echo_err(f"error: bad option: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}")
        raise typer.Exit(2) from exc
    runner = _executor_or_exit(executor, workers, None, address)
    report = audit_benchmark(path, backend_name=backend_name, options=options, task_ids=task, executor=runner,
                             progress=progress_bar("audit"))
    typer.echo(format_audit(report))
    if json_out is not None:
        _write_json(json_out, report.model_dump(mode="json"))
        typer.echo(f"wrote {json_out}")


@app.command()
def expand(
    path: Annotated[Path, typer.Argument(help="A benchmark directory in Verina's layout.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the expanded suite (and run.sqlite).")],
    seed: Annotated[int, typer.Option(help="Seed for synthesis, mutation and selection.")] = 42,
    backend: Annotated[str, typer.Option(help="auto, embedded or lean.")] = "embedded",
    llm: Annotated[str | None, typer.Option(help="Model name; without it the run is LLM-free.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL).")
    ] = None,
    workers: WorkersOption = None,
    jobs: JobsOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    task: Annotated[list[str] | None, typer.Option(help="Only these task ids (repeatable).")] = None,
    task_steps: Annotated[
        int | None,
        typer.Option(
            "--task-steps", min=1,
            help="Per-task budget in engine steps, for engines that count steps (embedded); deterministic. "
            "Default: about 120 s of work on an idle machine.",
            show_default=False,
        ),
    ] = None,
    task_seconds: Annotated[
        float | None,
        typer.Option("--task-seconds", min=0.001, show_default=False,
                     help="Per-task wall-clock budget for engines that do not count steps (lean). Default: 120."),
    ] = None,
    backstop: Annotated[
        float | None,
        typer.Option("--backstop", min=0.001, show_default=False,
                     help="Per-task wall-clock safety backstop for every engine (reported when it fires). "
                     "Default: 900."),
    ] = None,
    max_batch: Annotated[
        int | None,
        typer.Option("--max-batch", min=1, help="Largest batch of checks sent to the engine while classifying."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Synthesize inputs, classify them, build adversaries and record the kill matrix (resumable).

    With the embedded engine two runs with the same seed write byte-identical suites: the
    per-task budget is counted in evaluation steps. Only the wall-clock backstop (far above the
    step budget) can make a task differ; the summary lists such tasks.
    """
    from veriscale.expand import ExpandOptions, expand_benchmark, format_summary
    from veriscale.llm import LLMConfig

    if not path.is_dir():
        _echo_err(f"error: {path}: not a directory")
        raise typer.Exit(2)
    backend_name = _backend_name_or_exit(backend)
    runner = _executor_or_exit(executor, workers, jobs, address)
    llm_config = LLMConfig(model=llm, base_url=base_url) if llm else None
    given = {"task_steps": task_steps, "task_deadline_s": task_seconds, "task_backstop_s": backstop,
             "check_chunk": max_batch}
    limits = {name: value for name, value in given.items() if value is not None}
    summary = expand_benchmark(
        path, out, seed=seed, backend_name=backend_name, llm=llm_config, task_ids=task,
        options=ExpandOptions.model_validate(limits), progress=not quiet, executor=runner,
    )
    typer.echo(format_summary(summary))
    typer.echo(
        f"\n{summary.tasks_expanded} task(s) expanded, {summary.tasks_resumed} resumed, "
        f"{summary.tasks_failed} failed; checks {summary.checks_before} -> {summary.checks_after} "
        f"({summary.growth:.1f}x) in {summary.seconds:.1f} s"
    )
    typer.echo(f"wrote {out}")


@app.command()
def reduce(
    suite: Annotated[Path, typer.Argument(help="A suite directory (e.g. the output of expand, or VerinaPlus).")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the reduced suite.")],
    target: Annotated[str, typer.Option(help="A recipe name in suites/ (lite, plus) or a .toml path.")] = "lite",
    exact: Annotated[bool, typer.Option(help="Use an exact minimum cover (needs the 'exact' extra).")] = False,
    published_compat: Annotated[
        bool | None,
        typer.Option(
            "--published-compat/--typed",
            help="Reject-input reduction exactly as the published VerinaLite (default: the recipe's).",
        ),
    ] = None,
    original: Annotated[
        Path | None, typer.Option(help="The original benchmark, to recognise (and keep) its tests.")
    ] = None,
) -> None:
    """Keep a small set of tests that still kills every adversary, and boundary reject inputs."""
    from veriscale.reduce import reduce_suite
    from veriscale.reduce.recipe import RecipeError

    if not suite.is_dir():
        _echo_err(f"error: {suite}: not a directory")
        raise typer.Exit(2)
    try:
        report = reduce_suite(suite, target, out, exact=exact, published_compat=published_compat, original_dir=original)
    except (RecipeError, ValueError) as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc
    typer.echo(report.summary())
    typer.echo(f"wrote {out}")


@app.command()
def export(
    suite: Annotated[Path, typer.Argument(help="A benchmark directory (or a dataset) to export.")],
    out: Annotated[Path, typer.Option("--out", help="Directory to write (must not exist or be empty).")],
    fmt: Annotated[
        str, typer.Option("--format", help="hf (datasets' save_to_disk) or parquet (data/train-*.parquet).")
    ] = "hf",
) -> None:
    """Write a benchmark as a Hugging Face dataset in the schema of Verina's own export."""
    from veriscale.benchmark import load_benchmark
    from veriscale.hf_dataset import DatasetFormatError, export_dataset

    if fmt not in ("hf", "parquet"):
        _echo_err(f"error: --format {fmt}: expected hf or parquet")
        raise typer.Exit(2)
    if not suite.exists():
        _echo_err(f"error: {suite}: no such file or directory")
        raise typer.Exit(2)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        _echo_err(f"error: {out}: exists and is not an empty directory")
        raise typer.Exit(2)
    try:
        loaded = load_benchmark(suite)
    except (DatasetFormatError, NotADirectoryError) as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc
    for failure in loaded.failures:
        _echo_err(f"skipped: {failure}")
    if not loaded.tasks:
        _echo_err(f"error: {suite}: no task loaded, nothing to export")
        raise typer.Exit(2)
    written = export_dataset(loaded.tasks, out, "hf" if fmt == "hf" else "parquet")
    typer.echo(f"wrote {len(loaded.tasks)} task(s) to {written}")


@app.command("eval")
def eval_command(
    model: Annotated[str, typer.Option("--model", help="Model name as the endpoint knows it.")],
    suite: Annotated[Path, typer.Option("--suite", help="A suite directory in Verina's layout.")],
    task: Annotated[str, typer.Option("--task", help="What the model writes: codegen or specgen.")],
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run directory (default: runs/eval/<model>/<suite>/<task>).")
    ] = None,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int, typer.Option(help="Completion tokens per reply.")] = 4096,
    seed: Annotated[int, typer.Option(help="Sent with every request.")] = 42,
    examples: Annotated[int, typer.Option(help="Tests (and reject inputs) shown per task.")] = 2,
    concurrency: Annotated[int, typer.Option(help="LLM requests in flight at once.")] = 4,
    token_budget: Annotated[int | None, typer.Option(help="Prompt + completion tokens the run may use.")] = None,
    backend: Annotated[str, typer.Option(help="Scoring engine: auto, embedded or lean.")] = "embedded",
    workers: Annotated[int | None, typer.Option(help="Scoring worker processes.")] = None,
    samples: Annotated[
        int, typer.Option("--samples", min=1, help="Replies per task (sample k sent with seed + k), for pass@k.")
    ] = 1,
) -> None:
    """Ask a model for CodeGen or SpecGen answers on every task of a suite and score them (resumable)."""
    from veriscale.evaluate import EvalOptions, run_eval
    from veriscale.llm import LLMCallError, LLMConfig, LLMConfigError, TokenBudgetExceeded

    if task not in ("codegen", "specgen"):
        _echo_err(f"error: --task must be codegen or specgen, not {task!r}")
        raise typer.Exit(2)
    if not suite.is_dir():
        _echo_err(f"error: {suite}: not a directory")
        raise typer.Exit(2)
    options = EvalOptions(
        kind=task,  # type: ignore[arg-type]
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        examples=examples,
        concurrency=concurrency,
        backend=backend,
        workers=workers,
        samples=samples,
    )
    config = LLMConfig(model=model, base_url=base_url, token_budget=token_budget)
    try:
        summary = run_eval(suite, config, options, out)
    except LLMConfigError as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc
    except (LLMCallError, TokenBudgetExceeded) as exc:
        _echo_err(f"error: {exc} (answers received so far are kept; rerun to resume)")
        raise typer.Exit(1) from exc
    cost = "unknown" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"
    typer.echo(
        f"{summary.model} on {summary.suite_name} ({summary.task_kind}): {summary.tasks} task(s), "
        f"{summary.replies_ok} usable replies, {summary.replies_failed} failed; "
        f"{summary.prompt_tokens + summary.completion_tokens:,} tokens, cost {cost}; "
        f"{summary.http_requests} HTTP request(s), {summary.cache_hits} from the store; {summary.seconds:.1f} s"
    )
    for reason, count in summary.failure_reasons.items():
        typer.echo(f"  failed replies: {reason}: {count}")
    for metric, total in summary.totals.items():
        passes = "".join(f"  pass@{p['k']} {p['lower']:.3f}-{p['upper']:.3f}" for p in total.get("pass_at_k", [])[1:])
        typer.echo(
            f"  {metric:<24} lower {total['lower']}/{total.get('samples', total['tasks'])} "
            f"({100 * total['lower_rate']:.1f}%)  upper {total['upper']}/{total.get('samples', total['tasks'])} "
            f"({100 * total['upper_rate']:.1f}%){passes}"
        )
    typer.echo(f"wrote {summary.out}")


@app.command()
def report(
    out: Annotated[Path, typer.Option("--out", help="Directory for report.md, report.html and plots/.")],
    scores: Annotated[
        list[Path] | None,
        typer.Option("--scores", help="A score.json, or a directory searched for them (repeatable)."),
    ] = None,
    power: Annotated[Path | None, typer.Option("--power", help="A power JSON file ({\"suites\": [...]}).")] = None,
    expand_runs: Annotated[
        list[Path] | None, typer.Option("--expand", help="An expand run directory (repeatable).")
    ] = None,
) -> None:
    """Write a Markdown and HTML report with plots: scores, suite power, expansion statistics."""
    from veriscale.report import ReportInputError, build_report

    try:
        result = build_report(out, scores=scores or [], power=power, expand=expand_runs or [])
    except ReportInputError as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc
    for missing in result.missing:
        _echo_err(f"note: {missing} not found; left out")
    typer.echo(f"sections: {', '.join(result.sections) or 'none'}; {len(result.plots)} plot(s)")
    typer.echo(f"wrote {result.markdown} and {result.html}")


@app.command()
def score(
    suite: Annotated[Path, typer.Argument(help="A suite directory (Verina, VerinaPlus, VerinaLite, or your own).")],
    submission: Annotated[Path, typer.Option("--submission", help="JSONL: one {\"task\": id, <section>: body} per line.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the scores as JSON.")] = None,
    backend: Annotated[str, typer.Option(help="auto, embedded or lean.")] = "embedded",
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every task, not only the imperfect.")] = False,
    k: Annotated[
        list[int] | None,
        typer.Option("--k", min=1, help="Report pass@k for this k (repeatable; default: the number of samples)."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Whose submissions these are (recorded).")] = None,
    tasks: Annotated[
        list[str] | None, typer.Option("--tasks", help="Only these task ids (repeatable, or comma-separated).")
    ] = None,
) -> None:
    """Score model output (code, pre/postconditions, proofs) with lower and upper bounds per task.

    A submission file may hold several samples per task ("sample": 0, 1, ...): the totals give
    pass@1 and pass@k (the unbiased estimator), each with a lower and an upper bound."""
    from veriscale.backends.select import BackendUnavailable
    from veriscale.score import NoTaskSelected, format_report, load_submissions, score_suite

    if not suite.is_dir():
        _echo_err(f"error: {suite}: not a directory")
        raise typer.Exit(2)
    try:
        submissions, errors = load_submissions(submission)
    except (OSError, UnicodeDecodeError) as exc:
        _echo_err(f"error: {submission}: {exc}")
        raise typer.Exit(2) from exc
    backend_name = _backend_name_or_exit(backend)
    runner = _executor_or_exit(executor, workers, None, address)
    for error in errors:
        _echo_err(f"submission: {error}")
    try:
        report = score_suite(suite, submissions, backend=backend_name, progress=True, executor=runner,
                             ks=sorted({1, *k}) if k else None, model=model, task_ids=_task_ids(tasks))
    except (BackendUnavailable, NoTaskSelected) as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc
    report.errors[:0] = [str(e) for e in errors]
    typer.echo(format_report(report, verbose=verbose))
    if json_out is not None:
        _write_json(json_out, report.to_json())
        typer.echo(f"wrote {json_out}")


@app.command()
def compare(
    submissions: Annotated[
        list[str], typer.Argument(help="Submission files, one per model; NAME=PATH names the model (default: file stem).")
    ],
    suites: Annotated[
        list[Path], typer.Option("--suite", help="Suites in order, the reference first (original, Plus, Lite); repeatable.")
    ],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the comparisons as JSON.")] = None,
    backend: Annotated[str, typer.Option(help="auto, embedded or lean.")] = "embedded",
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: one per core).")] = None,
    tasks: Annotated[
        list[str] | None, typer.Option("--tasks", help="Only these task ids (repeatable, or comma-separated).")
    ] = None,
) -> None:
    """Score each model on every suite side by side: the drop, and what passes the first suite but
    fails a later one, with the input that exposes it."""
    from veriscale.backends.select import BackendUnavailable
    from veriscale.score import NoTaskSelected, load_submissions, score_suite
    from veriscale.score.suites import compare_reports, format_comparison

    if len(suites) < 2:
        _echo_err("error: --suite must be given at least twice (the reference suite first)")
        raise typer.Exit(2)
    for suite in suites:
        if not suite.is_dir():
            _echo_err(f"error: {suite}: not a directory")
            raise typer.Exit(2)
    backend_name = _backend_name_or_exit(backend)
    labels = [suite.name for suite in suites]
    if len(set(labels)) != len(labels):
        labels = [f"{i + 1}:{label}" for i, label in enumerate(labels)]
    results = []
    for given in submissions:
        name, _, path_text = given.rpartition("=") if "=" in given else ("", "", given)
        path = Path(path_text)
        try:
            loaded, errors = load_submissions(path)
        except (OSError, UnicodeDecodeError) as exc:
            _echo_err(f"error: {path}: {exc}")
            raise typer.Exit(2) from exc
        for error in errors:
            _echo_err(f"submission: {error}")
        model = name or path.stem
        try:
            reports = [(label, score_suite(suite, loaded, backend=backend_name, workers=workers, progress=False,
                                           model=model, task_ids=_task_ids(tasks)))
                       for label, suite in zip(labels, suites)]
        except (BackendUnavailable, NoTaskSelected) as exc:
            _echo_err(f"error: {exc}")
            raise typer.Exit(2) from exc
        comparison = compare_reports(model, reports)
        results.append(comparison)
        typer.echo(format_comparison(comparison))
        typer.echo("")
    if json_out is not None:
        _write_json(json_out, {"comparisons": [c.model_dump() for c in results]})
        typer.echo(f"wrote {json_out}")


@app.command()
def power(
    suites: Annotated[list[Path], typer.Argument(help="Suite directories; the first one's tasks are the ground truth.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write {\"suites\": [...], ...} as JSON.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for choosing flawed specifications and mutants.")] = 2027,
    max_mutants: Annotated[int, typer.Option("--max-mutants", min=0, help="Reference-code mutants per task.")] = 30,
    max_flawed: Annotated[
        int, typer.Option("--max-flawed", min=0, help="Flawed preconditions and flawed postconditions per task, each.")
    ] = 12,
    mutant_order: Annotated[
        int, typer.Option("--mutant-order", min=1, max=2, help="2: two edits per mutant; 1: single edits.")
    ] = 2,
    workers: WorkersOption = None,
    jobs: JobsOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    backend: Annotated[str, typer.Option(help="auto, embedded or lean.")] = "embedded",
    task: Annotated[list[str] | None, typer.Option(help="Only these task ids (repeatable).")] = None,
    every: Annotated[int, typer.Option(min=1, help="Only every n-th compared task, in sorted order.")] = 1,
    task_steps: Annotated[
        int | None,
        typer.Option("--task-steps", min=1, show_default=False,
                     help="Engine steps per task (deterministic); items left are undetermined. Default: 30,000,000."),
    ] = None,
    task_seconds: Annotated[
        float | None,
        typer.Option("--task-seconds", min=0.001, show_default=False,
                     help="Wall-clock limit per task (the budget of an engine without steps; a backstop). "
                     "Default: 900."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """How well each suite tells right from wrong, without any LLM: flawed specs caught, mutants killed."""
    from veriscale.power import format_power, measure_power

    for suite in suites:
        if not suite.is_dir():
            _echo_err(f"error: {suite}: not a directory")
            raise typer.Exit(2)
    backend_name = _backend_name_or_exit(backend)
    runner = _executor_or_exit(executor, workers, jobs, address)
    report = measure_power(
        suites, seed=seed, max_flawed=max_flawed, max_mutants=max_mutants, mutant_order=mutant_order,
        executor=runner, backend=backend_name, task_ids=task, every=every, progress=not quiet,
        **{name: value for name, value in (("task_steps", task_steps), ("task_seconds", task_seconds))
           if value is not None},
    )
    typer.echo(format_power(report))
    if json_out is not None:
        _write_json(json_out, report.to_json())
        typer.echo(f"wrote {json_out}")


@bench_app.command("load")
def bench_load(
    path: Annotated[Path, typer.Argument(help="A benchmark directory, e.g. ../shared/data/verinaplus.")],
) -> None:
    """Time loading every task and parsing every stored value at its declared type."""
    from veriscale.bench import bench_load as run

    run(path, echo=typer.echo)


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
