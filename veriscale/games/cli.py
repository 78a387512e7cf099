"""``veriscale refute ...`` and ``veriscale falsify ...``: the games' command groups.

Heavy modules are imported inside the commands (as in :mod:`veriscale.cli`). Bad input gets one
line naming what is wrong and exit code 2.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from veriscale.cli_base import (
    AddressOption,
    BackendOption,
    ExecutorOption,
    QuietOption,
    TaskAliasOption,
    TasksOption,
    Typer,
    WorkersOption,
    executor_or_exit,
    fail,
    task_ids,
)

refute_app = Typer(help="REFUTE: find inputs that expose wrong implementations.", no_args_is_help=True)
falsify_app = Typer(help="FalsifyBench: discover a task's hidden precondition.", no_args_is_help=True)


ModelOption = Annotated[str | None, typer.Option(help="An inspect_ai model, e.g. openai/gpt-4o-mini.")]
RunOutOption = Annotated[Path, typer.Option("--out", help="Run directory: transcripts, metrics.json (resumable).")]


def _note(quiet: bool, message: str) -> None:
    if not quiet:
        typer.echo(message)


def _errors_then_wrote(errors: dict[str, str], quiet: bool, out: Path) -> None:
    """A build's closing lines: each task's error on stderr, then where it wrote."""
    for name, error in errors.items():
        typer.echo(f"  {name}: {error}", err=True)
    _note(quiet, f"wrote {out}")


def _backend(name: str):  # noqa: ANN202 - Backend, imported lazily
    from veriscale.backends.select import BackendUnavailable, make_backend

    try:
        return make_backend(name)
    except BackendUnavailable as exc:
        raise fail(str(exc)) from exc


def _selected_or_exit(suite: Path, tasks: list[str] | None, task: list[str] | None) -> list[str] | None:
    """The task ids ``--tasks`` names, or exit 2 when none of them is a task directory of ``suite``."""
    ids = task_ids(tasks, task)
    if ids and not set(ids) & {p.name for p in suite.iterdir() if p.is_dir()}:
        raise fail(f"none of the task ids {', '.join(sorted(set(ids)))} is a task of {suite}")
    return ids


def _backend_name(name: str) -> str:
    """The engine ``--backend`` names (``auto`` resolved), or exit 2 saying why it is unusable."""
    from veriscale.backends.select import BackendUnavailable, resolve_backend_name

    try:
        return resolve_backend_name(name)
    except BackendUnavailable as exc:
        raise fail(str(exc)) from exc


def _model_or_exit(model: str, play: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The metrics of a model's run, or exit 2 with the first line of what went wrong."""
    try:
        return play()
    except Exception as exc:  # noqa: BLE001 - inspect reports a bad model or provider in many ways
        raise fail(f"model {model}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from exc


def _print_metrics(metrics: dict, keys: tuple[str, ...]) -> None:
    typer.echo("  " + "  ".join(f"{k} {metrics[k]}" for k in keys if k in metrics))
    for group in ("by_bucket", "by_kind", "by_agent"):
        for name, row in metrics.get(group, {}).items():
            typer.echo(f"    {group[3:]} {name}: " + "  ".join(f"{k} {row[k]}" for k in keys if k in row))


@refute_app.command("build")
def refute_build(
    suite: Annotated[Path, typer.Argument(help="An expanded suite (written by 'veriscale expand').")],
    out: Annotated[Path, typer.Option("--out", help="Directory for items.jsonl and build_summary.json.")],
    witnesses: Annotated[int, typer.Option(help="Witnesses verified and kept per item.", min=1)] = 5,
    pool: Annotated[
        int, typer.Option(help="Blind random draws per task that calibrate the difficulty (0: none).", min=0)
    ] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the blind pool.")] = 0,
    tasks: TasksOption = None,
    task: TaskAliasOption = None,
    backend: BackendOption = "embedded",
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    quiet: QuietOption = False,
) -> None:
    """Items (task, wrong implementation that passes the original tests) with verified witnesses
    and a difficulty bucket (resumable: a rerun with the same --out builds only unfinished tasks)."""
    from veriscale.games.refute.build import BuildSettings, build_items, suite_task_dirs

    if not suite.is_dir():
        raise fail(f"{suite}: not a directory")
    if not suite_task_dirs(suite):
        raise fail(f"{suite}: no task with a kill_matrix.json (expand the benchmark first)")

    def progress(name: str, items: int) -> None:
        if not quiet:
            typer.echo(f"  {name}: {items} item(s)", err=True)

    selected = _selected_or_exit(suite, tasks, task)
    engine = _backend_name(backend)
    runner = executor_or_exit(executor, workers, None, address)
    settings = BuildSettings(witnesses=witnesses, pool_size=pool, seed=seed)
    summary = build_items(suite, out, engine, settings=settings, tasks=selected, progress=progress, executor=runner)
    data = summary.to_json()
    typer.echo(
        f"{data['items']} item(s) over {data['tasks_with_items']} of {data['tasks_seen']} task(s); "
        f"dropped {data['dropped_total']} {data['dropped']}; adversaries {data['adversaries']}, "
        f"caught by the original tests {data['killed_by_original_tests']}"
    )
    typer.echo(f"  by bucket: {data['by_bucket']} (suite route {data['by_suite_bucket']}, "
               f"blind route {data['by_blind_bucket']})")
    _errors_then_wrote(data["task_errors"], quiet, out)


@refute_app.command("run")
def refute_run(
    build: Annotated[Path, typer.Argument(help="A directory written by 'veriscale refute build'.")],
    out: RunOutOption,
    model: ModelOption = None,
    baseline: Annotated[str | None, typer.Option(help="An LLM-free player: random or mutation.")] = None,
    attempts: Annotated[int, typer.Option("--attempts", "-k", help="Answers per item.", min=1)] = 1,
    feedback: Annotated[
        int, typer.Option(help="Calls to the run-the-wrong-program tool per item.", min=0)
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the LLM-free players.")] = 42,
    limit: Annotated[int | None, typer.Option(help="Only the first N items.", min=1)] = None,
    backend: BackendOption = "embedded",
    quiet: QuietOption = False,
) -> None:
    """Play the REFUTE items with a model (through inspect_ai) or an LLM-free baseline."""
    from veriscale.games.refute.build import ITEMS_FILE, load_items

    if not (build / ITEMS_FILE).is_file():
        raise fail(f"{build}: no {ITEMS_FILE} (run `veriscale refute build` first)")
    if (model is None) == (baseline is None):
        raise fail("give exactly one of --model and --baseline")
    try:
        every_item = load_items(build)
    except (ValueError, KeyError) as exc:
        raise fail(f"{build / ITEMS_FILE}: {exc}") from exc
    items = every_item[:limit] if limit else every_item
    if model is not None:
        from veriscale.games.inspect_tasks import run_refute_model

        metrics = _model_or_exit(
            model, lambda: run_refute_model(build, out, model, attempts=attempts, feedback_calls=feedback, limit=limit)
        )
    else:
        from veriscale.games.refute.game import RefuteSettings
        from veriscale.games.refute.runner import baseline_player, run_items, suite_of

        if baseline not in ("random", "mutation"):
            raise fail(f"--baseline must be random or mutation, not {baseline!r}")
        suite = suite_of(build)
        metrics = run_items(
            build,
            out,
            _backend(backend),
            lambda judge: baseline_player(str(baseline), judge, suite, seed=seed, budget=attempts),
            RefuteSettings(attempts=attempts, feedback_calls=0),
            items=items,
        )
    _print_metrics(metrics, ("items", "solved", "success_rate", "pass@1", f"pass@{attempts}"))
    _note(quiet, f"wrote {out / 'metrics.json'}")


@falsify_app.command("build")
def falsify_build(
    suite: Annotated[Path, typer.Argument(help="A suite in Verina's layout (expanded or not).")],
    out: Annotated[Path, typer.Option("--out", help="Directory for games.jsonl and build_summary.json.")],
    cap: Annotated[int, typer.Option(help="Judging inputs taken from each source.", min=1)] = 60,
    seed: Annotated[int, typer.Option(help="Seed of the independent pool.")] = 42,
    tasks: TasksOption = None,
    task: TaskAliasOption = None,
    backend: BackendOption = "embedded",
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    address: AddressOption = None,
    quiet: QuietOption = False,
) -> None:
    """One game per task with a non-trivial precondition (the hidden rule)."""
    from veriscale.games.falsify.build import build_games

    if not suite.is_dir():
        raise fail(f"{suite}: not a directory")
    selected = _selected_or_exit(suite, tasks, task)
    engine = _backend_name(backend)
    runner = executor_or_exit(executor, workers, None, address)

    def progress(name: str, built: bool) -> None:
        if not quiet:
            typer.echo(f"  {name}: game built", err=True)

    summary = build_games(suite, out, engine, seed=seed, cap=cap, tasks=selected, executor=runner,
                          progress=progress).to_json()
    typer.echo(
        f"{summary['games']} game(s) from {summary['tasks']} task(s) ({summary['trivial']} with a trivial "
        f"precondition); {summary['judging_inputs']} judging inputs; lowest decided share "
        f"{summary['min_decided_share']}; games below 95%: {len(summary['games_below_95'])}"
    )
    _errors_then_wrote(summary["errors"], quiet, out)


@falsify_app.command("run")
def falsify_run(
    build: Annotated[Path, typer.Argument(help="A directory written by 'veriscale falsify build'.")],
    out: RunOutOption,
    model: ModelOption = None,
    agent: Annotated[str | None, typer.Option(help="A scripted player: positive or negative.")] = None,
    turns: Annotated[int, typer.Option(help="Tests (proposals) per game.", min=1)] = 20,
    guesses: Annotated[int, typer.Option(help="Final rules per game.", min=1)] = 2,
    limit: Annotated[int | None, typer.Option(help="Only the first N games.", min=1)] = None,
    backend: BackendOption = "embedded",
    quiet: QuietOption = False,
) -> None:
    """Play the games with a model (through inspect_ai) or a scripted tester."""
    from veriscale.games.falsify.build import GAMES_FILE, load_games
    from veriscale.games.falsify.game import FalsifySettings

    if not (build / GAMES_FILE).is_file():
        raise fail(f"{build}: no {GAMES_FILE} (run `veriscale falsify build` first)")
    if (model is None) == (agent is None):
        raise fail("give exactly one of --model and --agent")
    settings = FalsifySettings(max_turns=turns, max_guesses=guesses)
    if model is not None:
        from veriscale.games.inspect_tasks import run_falsify_model

        metrics = _model_or_exit(model, lambda: run_falsify_model(build, out, model, settings=settings, limit=limit))
    else:
        from veriscale.games.falsify.baselines import AGENTS
        from veriscale.games.falsify.runner import run_games

        if agent not in AGENTS:
            raise fail(f"--agent must be one of {', '.join(AGENTS)}, not {agent!r}")
        games = load_games(build)[:limit] if limit else None
        metrics = run_games(build, out, _backend(backend), AGENTS[agent], settings, games=games)
    keys = ("games", "solved", "success_rate", "mean_turns_to_solution", "mean_guesses", "positive_bias")
    _print_metrics(metrics, (*keys, "conclusive_falsifications"))
    _note(quiet, f"wrote {out / 'metrics.json'}")


RunsArgument = Annotated[
    list[Path], typer.Argument(help="Run directories (written by 'run'); each is one bar or point, named by its directory.")
]


def _report(runs: list[Path], out: Path, required: tuple[str, ...], draw: Callable[[list[Any], Path], object]) -> None:
    from veriscale.games.plots import RunReadError, read_run, run_labels

    if out.suffix.lower() != ".png":
        raise fail(f"{out}: --out names a .png file")
    try:
        records = [read_run(run, required) for run in runs]
    except RunReadError as exc:
        raise fail(str(exc)) from exc
    draw(list(zip(run_labels(runs), records)), out)


@refute_app.command("report")
def refute_report(
    runs: RunsArgument,
    out: Annotated[Path, typer.Option("--out", help="The PNG to write.")],
    quiet: QuietOption = False,
) -> None:
    """Plot success by difficulty bucket and by adversary kind, one bar per run."""
    from veriscale.games.plots import REFUTE_FIELDS, refute_figure

    _report(runs, out, REFUTE_FIELDS, refute_figure)
    _note(quiet, f"wrote {out}")


@falsify_app.command("report")
def falsify_report(
    runs: RunsArgument,
    out: Annotated[Path, typer.Option("--out", help="The PNG to write.")],
    quiet: QuietOption = False,
) -> None:
    """Plot the tests each game took and each run's positive-testing bias against its success."""
    from veriscale.games.plots import FALSIFY_FIELDS, falsify_figure

    _report(runs, out, FALSIFY_FIELDS, falsify_figure)
    _note(quiet, f"wrote {out}")


def print_json(path: Path) -> None:  # pragma: no cover - small helper for users
    typer.echo(json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=2))
