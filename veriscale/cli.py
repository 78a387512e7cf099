"""The ``veriscale`` command line: one subcommand per job.

Heavy modules are imported inside the commands so that ``veriscale --help`` and ``doctor`` work
even when an optional part (LeanInteract, say) is missing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO, TypeVar

import typer

from veriscale.cli_base import (
    AddressOption,
    BackendOption,
    ExecutorOption,
    JobsOption,
    QuietOption,
    TaskAliasOption,
    TasksOption,
    Typer,
    WorkersOption,
    executor_or_exit,
    fail,
    task_ids,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

    from veriscale.api.options import ProgressCallback, ProgressEvent

T = TypeVar("T")
OptionsT = TypeVar("OptionsT", bound="BaseModel")

app = Typer(
    name="veriscale",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = Typer(help="Measure speed and coverage figures (printed as numbers).", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
from veriscale.games.cli import falsify_app, refute_app  # noqa: E402 - light: the commands import lazily

app.add_typer(refute_app, name="refute")
app.add_typer(falsify_app, name="falsify")


def _echo_err(message: str) -> None:
    typer.echo(message, err=True)


def _write_json(path: Path, payload: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_json_out(json_out: Path | None, payload: Callable[[], object], quiet: bool) -> None:
    """``--json``: write the payload there (when given) and say so."""
    if json_out is not None:
        _write_json(json_out, payload())
        _note(quiet, f"wrote {json_out}")


def _seconds_option(flag: str, help: str) -> Any:
    """A wall-clock limit in seconds (``None`` when not given: the options model's default)."""
    return typer.Option(flag, min=0.001, show_default=False, help=help)


def _require_dir(path: Path) -> None:
    if not path.is_dir():
        raise fail(f"{path}: not a directory")


def _require_exists(path: Path) -> None:
    if not path.exists():
        raise fail(f"{path}: no such file or directory")


def _options_or_exit(model: type[OptionsT], given: dict[str, Any]) -> OptionsT:
    """The options model from the flags given (``None``: not given, the model's default), or exit 2."""
    return _or_exit(lambda: model.model_validate({k: v for k, v in given.items() if v is not None}))


def _backend_name_or_exit(backend: str) -> str:
    """The engine ``--backend`` names (``auto`` resolved), or exit 2 saying why it is unusable."""
    from veriscale.backends.select import BackendUnavailable, resolve_backend_name

    try:
        return resolve_backend_name(backend)
    except BackendUnavailable as exc:
        raise fail(str(exc)) from exc


# Mistakes of the user that the library reports as exceptions: one line on stderr, exit code 2.
def _user_errors() -> tuple[type[BaseException], ...]:
    from pydantic import ValidationError

    from veriscale.api import (
        BackendUnavailable,
        ExactCoverUnavailable,
        NoTaskSelected,
        RecipeError,
        ReportInputError,
        RunMismatchError,
    )
    from veriscale.hf_dataset import DatasetFormatError
    from veriscale.parallel import ExecutorUnavailable

    return (BackendUnavailable, ExactCoverUnavailable, NoTaskSelected, RecipeError, ReportInputError,
            RunMismatchError, DatasetFormatError, ExecutorUnavailable, NotADirectoryError, ValidationError)


def _or_exit(call: Callable[[], T]) -> T:
    """``call()``, or exit 2 with one line on stderr when the user's input is what is wrong."""
    from pydantic import ValidationError

    try:
        return call()
    except _user_errors() as exc:
        if isinstance(exc, ValidationError):
            error = exc.errors()[0]
            raise fail(f"bad option: {'.'.join(map(str, error['loc']))}: {error['msg']}") from exc
        raise fail(str(exc)) from exc


def _score_or_exit(score: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return _or_exit(lambda: score(*args, **kwargs))


def _progress(quiet: bool) -> ProgressCallback | None:
    """A progress bar on stderr per stage (none with --quiet)."""
    if quiet:
        return None
    from tqdm import tqdm

    bars: dict[str, Any] = {}

    def update(event: ProgressEvent) -> None:
        bar = bars.get(event.stage)
        if bar is None:
            bar = bars[event.stage] = tqdm(desc=event.stage, unit="task", file=sys.stderr, dynamic_ncols=True)
        bar.total, bar.n = event.total, event.done
        if event.item is not None:
            bar.set_postfix_str(event.item, refresh=False)
        bar.refresh()
        if event.total is not None and event.done >= event.total:
            bar.close()

    return update


def _version_callback(value: bool) -> None:
    if value:
        from veriscale._version import __version__

        typer.echo(f"veriscale {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Adversarially scale the test suites of Lean 4 verifiable-code-generation benchmarks."""


def _note(quiet: bool, message: str) -> None:
    if not quiet:
        typer.echo(message)


@app.command()
def doctor(
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only what is missing or unusable.")] = False,
) -> None:
    """Report Python, dependencies, the Lean toolchain, and which backends are usable."""
    from veriscale.doctor import collect_report, format_report

    report = collect_report()
    typer.echo(format_report(report, problems_only=quiet))


@app.command()
def inspect(
    path: Annotated[Path, typer.Argument(help="A task directory or a benchmark directory of tasks.")],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write {loaded, failed[]} as JSON to this file.")
    ] = None,
    tasks: TasksOption = None,
    quiet: QuietOption = False,
) -> None:
    """Summarise one task or a whole benchmark, reporting tasks that fail to load."""
    from veriscale.overview import inspect_benchmark

    _require_exists(path)
    selected = task_ids(tasks)
    summary = _or_exit(lambda: inspect_benchmark(path, selected))
    if selected and not summary.tasks and not summary.failed:
        raise fail(f"none of the task ids {', '.join(sorted(set(selected)))} is a task of {path}")
    typer.echo(summary.format_table())
    _write_json_out(json_out, summary.to_json, quiet)


@app.command()
def screen(
    files: Annotated[list[Path], typer.Argument(help="Lean files of generated code to screen.")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No \"ok\" lines: findings and errors only.")] = False,
) -> None:
    """Screen generated Lean for constructs that could fool a scorer or escape the sandbox.

    Exit 0 and "ok" when accepted; exit 1 and one line per finding when rejected; exit 2 when a
    file cannot be read.
    """
    raise typer.Exit(screen_main(files, quiet=quiet))


def screen_main(paths: list[Path], *, out: TextIO | None = None, err: TextIO | None = None,
                quiet: bool = False) -> int:
    """``ok`` and 0 when every file is accepted; one line per finding and 1 when one is rejected;
    2 (with a message on ``err``) when a file is missing or unreadable. ``quiet`` leaves out the
    ``ok`` lines."""
    from veriscale.lean.safety import format_findings, screen_file

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if not paths:
        print("veriscale screen: no file given", file=err)
        return 2
    unreadable = rejected = False
    for path in paths:
        try:
            result = screen_file(path)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"veriscale screen: {path}: {_unreadable_reason(exc)}", file=err)
            unreadable = True
            continue
        if result.ok:
            if not quiet:
                print("ok" if len(paths) == 1 else f"{path}: ok", file=out)
        else:
            rejected = True
            for line in format_findings(result):
                print(line, file=out)
    if unreadable:
        return 2
    return 1 if rejected else 0


def _unreadable_reason(exc: OSError | UnicodeDecodeError) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a Lean file"
    return f"cannot read ({exc.strerror or exc})"


@app.command("setup-lean")
def setup_lean_command(
    project_dir: Annotated[
        Path | None, typer.Option(help="Directory holding lakefile.lean (default: the installed project).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No step notes; errors only (and lake's own output).")
                     ] = False,
) -> None:
    """Fetch Mathlib's cache and build the Lean package used by the Lean backend (needs elan/lake)."""
    from veriscale.backends.setup_lean import default_project_dir, setup_lean

    def echo(message: str) -> None:
        if message.startswith("error:"):
            _echo_err(message)
        elif not quiet:
            typer.echo(message)

    raise typer.Exit(setup_lean(project_dir or default_project_dir(), echo=echo))


@app.command()
def validate(
    path: Annotated[Path, typer.Argument(help="A benchmark (or task) directory whose answers came from real Lean.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the full report as JSON.")] = None,
    backend: BackendOption = "embedded",
    workers: WorkersOption = None,
    jobs: JobsOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    tasks: TasksOption = None,
    task: TaskAliasOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every task, not only the notable.")] = False,
    quiet: QuietOption = False,
) -> None:
    """Check an engine against stored answers: precond on tests/rejects, code, postcond; the embedded engine also elaborates every task file and reports what Lean would reject."""
    import veriscale.api as api
    from veriscale.stages.validate import format_report

    _require_exists(path)
    backend_name = _backend_name_or_exit(backend)
    runner = executor_or_exit(executor, workers, jobs, address)
    report = _or_exit(lambda: api.validate(path, backend=backend_name, tasks=task_ids(tasks, task), executor=runner,
                                           progress=_progress(quiet)))
    typer.echo(format_report(report, verbose=verbose))
    _write_json_out(json_out, lambda: report.model_dump(mode="json"), quiet)


@app.command()
def audit(
    path: Annotated[Path, typer.Argument(help="A benchmark (or task) directory.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write every finding as JSON to this file.")] = None,
    backend: BackendOption = "embedded",
    seed: Annotated[int | None, typer.Option(help="Seed of the counterexample search (default: 42).")] = None,
    search: Annotated[bool, typer.Option(help="Search generated inputs for counterexamples.")] = True,
    task_steps: Annotated[int | None, typer.Option(help="Step budget of one task's search.")] = None,
    tasks: TasksOption = None,
    task: TaskAliasOption = None,
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    quiet: QuietOption = False,
) -> None:
    """Everything wrong with a benchmark's tasks and data, with evidence, each finding re-evaluated: counterexamples to spec_satisfied, failing reference code, stored rows the ground truth contradicts, duplicates, unreadable values, broken markers."""
    import veriscale.api as api
    from veriscale.stages.audit import format_audit

    _require_exists(path)
    backend_name = _backend_name_or_exit(backend)
    given = {"seed": seed, "search": search, "task_steps": task_steps}
    options = _options_or_exit(api.AuditOptions, given)
    runner = executor_or_exit(executor, workers, None, address)
    report = _or_exit(lambda: api.audit(path, options, backend=backend_name, tasks=task_ids(tasks, task),
                                        executor=runner, progress=_progress(quiet)))
    typer.echo(format_audit(report))
    _write_json_out(json_out, lambda: report.model_dump(mode="json"), quiet)


@app.command()
def expand(
    path: Annotated[Path, typer.Argument(help="A benchmark directory in Verina's layout.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the expanded suite (and run.sqlite).")],
    seed: Annotated[
        int | None, typer.Option(help="Seed for synthesis, mutation and selection (default: 42).", show_default=False)
    ] = None,
    backend: BackendOption = "embedded",
    llm: Annotated[str | None, typer.Option(help="Model name; without it the run is LLM-free.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL).")
    ] = None,
    workers: WorkersOption = None,
    jobs: JobsOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    tasks: TasksOption = None,
    task: TaskAliasOption = None,
    task_steps: Annotated[
        int | None,
        typer.Option(
            "--task-steps", min=1,
            help="Per-task budget in engine steps, for engines that count steps (embedded); deterministic. "
            "Default: about 120 s of work on an idle machine.",
            show_default=False,
        ),
    ] = None,
    task_seconds: Annotated[float | None, _seconds_option(
        "--task-seconds", "Per-task wall-clock budget for engines that do not count steps (lean). Default: 120.")
    ] = None,
    backstop: Annotated[float | None, _seconds_option(
        "--backstop", "Per-task wall-clock safety backstop for every engine (reported when it fires). Default: 900.")
    ] = None,
    max_batch: Annotated[
        int | None,
        typer.Option("--max-batch", min=1, help="Largest batch of checks sent to the engine while classifying."),
    ] = None,
    quiet: QuietOption = False,
) -> None:
    """Synthesize inputs, classify them, build adversaries and record the kill matrix (resumable).

    With the embedded engine two runs with the same seed write byte-identical suites: the
    per-task budget is counted in evaluation steps. Only the wall-clock backstop (far above the
    step budget) can make a task differ; the summary lists such tasks.
    """
    import veriscale.api as api
    from veriscale.llm import LLMConfig
    from veriscale.stages.expand import format_summary

    _require_dir(path)
    backend_name = _backend_name_or_exit(backend)
    runner = executor_or_exit(executor, workers, jobs, address)
    llm_config = LLMConfig(model=llm, base_url=base_url) if llm else None
    given = {"seed": seed, "task_steps": task_steps, "task_deadline_s": task_seconds, "task_backstop_s": backstop,
             "check_chunk": max_batch}
    options = _options_or_exit(api.ExpandOptions, given)
    try:
        summary = _or_exit(lambda: api.expand(path, out, options, backend=backend_name, tasks=task_ids(tasks, task),
                                              llm=llm_config, executor=runner, progress=_progress(quiet)))
    except ValueError as exc:  # the output directory is the benchmark, or inside it
        raise fail(str(exc)) from exc
    typer.echo(format_summary(summary))
    typer.echo(
        f"\n{summary.tasks_expanded} task(s) expanded, {summary.tasks_resumed} resumed, "
        f"{summary.tasks_failed} failed; checks {summary.checks_before} -> {summary.checks_after} "
        f"({summary.growth:.1f}x) in {summary.seconds:.1f} s"
    )
    _note(quiet, f"wrote {out}")


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
    tasks: TasksOption = None,
    quiet: QuietOption = False,
) -> None:
    """Keep a small set of tests that still kills every adversary, and boundary reject inputs."""
    import veriscale.api as api

    _require_dir(suite)
    options = _or_exit(lambda: api.ReduceOptions(target=target, exact=exact, published_compat=published_compat,
                                                 original=original))
    try:
        report = _or_exit(lambda: api.reduce(suite, out, options, tasks=task_ids(tasks)))
    except ValueError as exc:  # the output directory is the suite, or inside it
        raise fail(str(exc)) from exc
    typer.echo(report.summary())
    _note(quiet, f"wrote {out}")


@app.command()
def export(
    suite: Annotated[Path, typer.Argument(help="A benchmark directory (or a dataset) to export.")],
    out: Annotated[Path, typer.Option("--out", help="Directory to write (must not exist or be empty).")],
    fmt: Annotated[
        str, typer.Option("--format", help="hf (datasets' save_to_disk) or parquet (data/train-*.parquet).")
    ] = "hf",
    tasks: TasksOption = None,
    quiet: QuietOption = False,
) -> None:
    """Write a benchmark as a Hugging Face dataset in the schema of Verina's own export."""
    import veriscale.api as api
    from veriscale.hf_dataset import export_dataset

    if fmt not in ("hf", "parquet"):
        raise fail(f"--format {fmt}: expected hf or parquet")
    _require_exists(suite)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise fail(f"{out}: exists and is not an empty directory")
    loaded = _or_exit(lambda: api.load_benchmark(suite))
    wanted = task_ids(tasks)
    chosen = [t for t in loaded.tasks if wanted is None or t.id in wanted]
    for failure in loaded.failures:
        if wanted is None or failure.task in wanted:
            _echo_err(f"skipped: {failure}")
    if wanted is not None and not set(wanted) & ({t.id for t in loaded.tasks} | {f.task for f in loaded.failures}):
        raise fail(f"none of the task ids {', '.join(sorted(set(wanted)))} is a task of {suite}")
    if not chosen:
        raise fail(f"{suite}: no task loaded, nothing to export")
    written = export_dataset(chosen, out, "hf" if fmt == "hf" else "parquet")
    _note(quiet, f"wrote {len(chosen)} task(s) to {written}")


@app.command("eval")
def eval_command(
    model: Annotated[str, typer.Option("--model", help="Model name as the endpoint knows it.")],
    suite: Annotated[Path, typer.Option("--suite", help="A suite directory in Verina's layout.")],
    mode: Annotated[
        str, typer.Option("--mode", help="What the model writes: codegen, specgen or proofgen.")
    ],
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run directory (default: runs/eval/<model>/<suite>/<mode>).")
    ] = None,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int, typer.Option(help="Completion tokens per reply.")] = 4096,
    seed: Annotated[int, typer.Option(help="Sent with every request.")] = 42,
    examples: Annotated[int, typer.Option(help="Tests (and reject inputs) shown per task (not for proofgen).")] = 2,
    concurrency: Annotated[int, typer.Option(help="LLM requests in flight at once.")] = 4,
    token_budget: Annotated[int | None, typer.Option(help="Prompt + completion tokens the run may use.")] = None,
    backend: Annotated[
        str, typer.Option(help="Scoring engine: auto, embedded or lean (proofs are checked by lean only).")
    ] = "embedded",
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    samples: Annotated[
        int, typer.Option("--samples", min=1, help="Replies per task (sample k sent with seed + k), for pass@k.")
    ] = 1,
    tasks: TasksOption = None,
    quiet: QuietOption = False,
) -> None:
    """Ask a model for CodeGen, SpecGen or ProofGen answers on every task of a suite and score them (resumable)."""
    from veriscale.llm import LLMCallError, LLMConfig, LLMConfigError, TokenBudgetExceeded
    from veriscale.stages.evaluate import EvalOptions, format_summary, run_eval
    from veriscale.stages.score import NoTaskSelected

    if mode not in ("codegen", "specgen", "proofgen"):
        raise fail(f"--mode must be codegen, specgen or proofgen, not {mode!r}")
    _require_dir(suite)
    selected = task_ids(tasks)
    options = EvalOptions(
        kind=mode,  # type: ignore[arg-type]
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        examples=examples,
        concurrency=concurrency,
        backend=_backend_name_or_exit(backend),
        workers=workers,
        samples=samples,
        tasks=tuple(selected) if selected else None,
    )
    config = LLMConfig(model=model, base_url=base_url, token_budget=token_budget)
    runner = executor_or_exit(executor, workers, None, address)
    try:
        summary = run_eval(suite, config, options, out, progress=not quiet, executor=runner)
    except (LLMConfigError, NoTaskSelected) as exc:
        raise fail(str(exc)) from exc
    except LLMCallError as exc:  # the endpoint is unreachable or refuses every request (bad key, model)
        raise fail(f"{exc} (the run stopped; a rerun asks again only what was not answered)") from exc
    except (TokenBudgetExceeded, RuntimeError) as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(1) from exc
    typer.echo(format_summary(summary))
    _note(quiet, f"wrote {summary.out}")


@app.command()
def report(
    out: Annotated[Path, typer.Option("--out", help="Directory for report.md, report.html and plots/.")],
    scores: Annotated[
        list[Path] | None,
        typer.Option("--scores", help="A score.json, or a directory searched for them (repeatable)."),
    ] = None,
    power: Annotated[Path | None, typer.Option("--power", help="A power JSON file (power --json).")] = None,
    expand_runs: Annotated[
        list[Path] | None, typer.Option("--expand", help="An expand run directory (repeatable).")
    ] = None,
    quiet: QuietOption = False,
) -> None:
    """Write a Markdown and HTML report with plots: scores and pass@k per suite (original → Plus → Lite), provenance, per-task failures, suite power with intervals, expansion growth, and the engine caveat."""
    import veriscale.api as api

    options = api.ReportOptions(scores=scores or [], power=power, expand=expand_runs or [])
    result = _or_exit(lambda: api.report(out, options))
    for missing in result.missing:
        if not quiet:
            _echo_err(f"note: {missing} not found; left out")
    typer.echo(f"sections: {', '.join(result.sections) or 'none'}; {len(result.plots)} plot(s)")
    _note(quiet, f"wrote {result.markdown} and {result.html}")


@app.command()
def score(
    suite: Annotated[Path, typer.Argument(help="A suite directory (Verina, VerinaPlus, VerinaLite, or your own).")],
    submission: Annotated[
        Path, typer.Option("--submission", help='JSONL: one {"task": ID, SECTION: BODY, ...} object per line.')
    ],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the scores as JSON.")] = None,
    backend: BackendOption = "embedded",
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every task, not only the imperfect.")] = False,
    k: Annotated[
        list[int] | None,
        typer.Option("--k", min=1, help="Report pass@k for this k (repeatable; default: the number of samples)."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Whose submissions these are (recorded).")] = None,
    tasks: TasksOption = None,
    quiet: QuietOption = False,
) -> None:
    """Score model output (code, pre/postconditions, proofs) with lower and upper bounds per task.

    A submission file may hold several samples per task ("sample": 0, 1, ...): the totals give
    pass@1 and pass@k (the unbiased estimator), each with a lower and an upper bound. Lines that
    cannot be read are listed on stderr; the others are scored and written, then the exit code is 2."""
    import veriscale.api as api
    from veriscale.stages.score import format_report

    _require_dir(suite)
    backend_name = _backend_name_or_exit(backend)
    runner = executor_or_exit(executor, workers, None, address)
    try:
        submissions, errors = api.load_submissions(submission)
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"{submission}: {exc}") from exc
    for error in errors:
        _echo_err(f"submission: {error}")
    options = api.ScoreOptions(ks=k, model=model)
    report = _or_exit(lambda: api.score(suite, submissions, options, backend=backend_name, tasks=task_ids(tasks),
                                        executor=runner, progress=_progress(quiet)))
    # the unreadable lines are on stderr already: the summary lists only what scoring refused,
    # and the JSON records both (the lines first, as `api.score` records them)
    typer.echo(format_report(report, verbose=verbose))
    report.errors[:0] = [str(e) for e in errors]
    _write_json_out(json_out, report.to_json, quiet)
    _exit_on_unusable_lines((submission, len(errors)))


def _exit_on_unusable_lines(*files: tuple[Path, int]) -> None:
    """Submission files with lines that are not what was asked are the user's mistake: exit 2,
    once everything the other lines gave is printed and written (nothing computed is lost)."""
    for submission, count in files:
        if count:
            _echo_err(f"error: {submission}: {count} line(s) could not be read as submissions (listed above); "
                      "the other lines were scored")
    if any(count for _, count in files):
        raise typer.Exit(2)


@app.command()
def compare(
    submissions: Annotated[
        list[str], typer.Argument(help="Submission files, one per model; NAME=PATH names the model (default: file stem).")
    ],
    suites: Annotated[
        list[Path], typer.Option("--suite", help="Suites in order, the reference first (original, Plus, Lite); repeatable.")
    ],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the comparisons as JSON.")] = None,
    backend: BackendOption = "embedded",
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    tasks: TasksOption = None,
    quiet: QuietOption = False,
) -> None:
    """Score each model on every suite side by side: the drop, and what passes the first suite but
    fails a later one, with the input that exposes it."""
    import veriscale.api as api
    from veriscale.stages.score.suites import compare_reports, format_comparison

    if len(suites) < 2:
        raise fail("--suite must be given at least twice (the reference suite first)")
    for suite in suites:
        _require_dir(suite)
    backend_name = _backend_name_or_exit(backend)
    runner = executor_or_exit(executor, workers, None, address)
    labels = [suite.name for suite in suites]
    if len(set(labels)) != len(labels):
        labels = [f"{i + 1}:{label}" for i, label in enumerate(labels)]
    results = []
    unusable: list[tuple[Path, int]] = []
    for given in submissions:
        name, _, path_text = given.rpartition("=") if "=" in given else ("", "", given)
        path = Path(path_text)
        try:
            loaded, errors = api.load_submissions(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise fail(f"{path}: {exc}") from exc
        for error in errors:
            _echo_err(f"submission: {error}")
        options = api.ScoreOptions(model=name or path.stem)
        reports = [(label, _score_or_exit(api.score, suite, loaded, options, backend=backend_name,
                                          tasks=task_ids(tasks), executor=runner, progress=_progress(quiet)))
                   for label, suite in zip(labels, suites)]
        model = options.model or path.stem
        comparison = compare_reports(model, reports)
        results.append(comparison)
        typer.echo(format_comparison(comparison))
        typer.echo("")
        unusable.append((path, len(errors)))
    _write_json_out(json_out, lambda: {"comparisons": [c.model_dump() for c in results]}, quiet)
    _exit_on_unusable_lines(*unusable)


@app.command()
def power(
    suites: Annotated[list[Path], typer.Argument(help="Suite directories; the first one's tasks are the ground truth.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the power table as JSON.")] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed for choosing flawed specifications and mutants (default: 2027).",
                                 show_default=False)
    ] = None,
    max_mutants: Annotated[
        int | None, typer.Option("--max-mutants", min=0, show_default=False,
                                 help="Reference-code mutants per task and order (default: 20).")
    ] = None,
    max_flawed: Annotated[
        int | None, typer.Option("--max-flawed", min=0, show_default=False,
                                 help="Flawed preconditions and flawed postconditions per task, each (default: 12).")
    ] = None,
    mutant_orders: Annotated[
        str, typer.Option("--mutant-orders", help="Mutant orders to measure: 1 (one edit), 2 (two edits), or 1,2.")
    ] = "1,2",
    pool_size: Annotated[
        int | None, typer.Option("--pool-size", min=1, show_default=False,
                                 help="Judging-pool inputs per task, which decide the items that count (default: 120).")
    ] = None,
    workers: WorkersOption = None,
    jobs: JobsOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    backend: BackendOption = "embedded",
    tasks: TasksOption = None,
    task: TaskAliasOption = None,
    every: Annotated[
        int | None, typer.Option(min=1, show_default=False, help="Only every n-th compared task, in sorted order.")
    ] = None,
    task_steps: Annotated[
        int | None,
        typer.Option("--task-steps", min=1, show_default=False,
                     help="Engine steps per task (deterministic); items left are undetermined. Default: 30,000,000."),
    ] = None,
    task_seconds: Annotated[float | None, _seconds_option(
        "--task-seconds", "Wall-clock limit per task (the budget of an engine without steps; a backstop). Default: 900.")
    ] = None,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="Directory of finished phases: reused, and written as they finish "
                                                  "(a rerun resumes; a suite measured before is not measured again).")
    ] = None,
    quiet: QuietOption = False,
) -> None:
    """How well each suite tells right from wrong, without any LLM: flawed specs caught, mutants killed."""
    import veriscale.api as api
    from veriscale.stages.power import format_power

    for suite in suites:
        _require_dir(suite)
    orders = sorted({part.strip() for part in mutant_orders.split(",") if part.strip()})
    if not orders or any(o not in ("1", "2") for o in orders):
        raise fail(f"--mutant-orders: expected 1, 2 or 1,2, got {mutant_orders!r}")
    backend_name = _backend_name_or_exit(backend)
    runner = executor_or_exit(executor, workers, jobs, address)
    given = {"seed": seed, "max_flawed": max_flawed, "max_mutants": max_mutants,
             "mutant_orders": [int(o) for o in orders], "pool_size": pool_size,
             "every": every, "task_steps": task_steps, "task_seconds": task_seconds, "cache": cache}
    options = _options_or_exit(api.PowerOptions, given)
    report = _or_exit(lambda: api.power(suites, options, backend=backend_name, tasks=task_ids(tasks, task),
                                        executor=runner, progress=_progress(quiet)))
    typer.echo(format_power(report))
    _write_json_out(json_out, report.to_json, quiet)


@bench_app.command("load")
def bench_load(
    path: Annotated[Path, typer.Argument(help="A benchmark directory, e.g. ../shared/data/verinaplus.")],
    tasks: TasksOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="The figures only, without the heading line.")] = False,
) -> None:
    """Time loading every task and parsing every stored value at its declared type."""
    from veriscale.bench import bench_load as run

    _require_exists(path)
    _or_exit(lambda: run(path, echo=lambda line: None if quiet and line.startswith("benchmark: ") else typer.echo(line),
                         tasks=task_ids(tasks)))


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
