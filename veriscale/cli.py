"""The ``veriscale`` command line: one subcommand per job.

Heavy modules are imported inside the commands so that ``veriscale --help`` and ``doctor`` work
even when an optional part (LeanInteract, say) is missing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

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
    from veriscale.inspect import inspect_benchmark

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
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: one per core).")] = None,
    task: Annotated[list[str] | None, typer.Option(help="Only these task ids (repeatable).")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every task, not only the notable.")] = False,
) -> None:
    """Check an engine against stored answers: precond on tests/rejects, code, postcond."""
    from tqdm import tqdm

    from veriscale.backends.select import BackendUnavailable, resolve_backend_name
    from veriscale.validate import format_report, validate_benchmark

    if not path.exists():
        _echo_err(f"error: {path}: no such file or directory")
        raise typer.Exit(2)
    try:
        backend_name = resolve_backend_name(backend)
    except BackendUnavailable as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc

    def progress(stream, total):  # type: ignore[no-untyped-def]
        return tqdm(stream, total=total, desc="validate", unit="task", file=sys.stderr)

    report = validate_benchmark(path, backend_name=backend_name, jobs=jobs, progress=progress, task_ids=task)
    typer.echo(format_report(report, verbose=verbose))
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
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: one per core).")] = None,
    task: Annotated[list[str] | None, typer.Option(help="Only these task ids (repeatable).")] = None,
) -> None:
    """Synthesize inputs, classify them, build adversaries and record the kill matrix (resumable)."""
    from veriscale.backends.select import BackendUnavailable, resolve_backend_name
    from veriscale.expand import expand_benchmark
    from veriscale.llm import LLMConfig

    if not path.is_dir():
        _echo_err(f"error: {path}: not a directory")
        raise typer.Exit(2)
    try:
        backend_name = resolve_backend_name(backend)
    except BackendUnavailable as exc:
        _echo_err(f"error: {exc}")
        raise typer.Exit(2) from exc
    llm_config = LLMConfig(model=llm, base_url=base_url) if llm else None
    summary = expand_benchmark(
        path, out, seed=seed, backend_name=backend_name, llm=llm_config, jobs=jobs, task_ids=task
    )
    typer.echo(
        f"{summary.tasks_expanded} task(s) expanded, {summary.tasks_resumed} resumed, "
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
