"""What VeriScale's command groups share: a ``Typer`` with plain help, the options of every command
that takes a benchmark, and the worker flags made into an executor.

Help is rendered without rich markup: a help string is shown as written (brackets included, no
markup to escape) and docstring paragraphs are re-wrapped to the terminal. typer names a value by
its Python type (``<list[str]>``, ``<int range>``); the value column shows the plain element type
instead (``<str>``, ``<int>``; the range is printed next to the help), and on/off flags show none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:
    from veriscale.parallel import Executor

__all__ = [
    "AddressOption", "BackendOption", "Command", "ExecutorOption", "Group", "JobsOption", "QuietOption", "TaskAliasOption",
    "TasksOption", "Typer", "WorkersOption", "executor_or_exit", "plain_type", "task_ids",
]

_LIST = re.compile(r"<list\[(\w+)\]>")
_RANGE = re.compile(r"<(\w+) range>")


def plain_type(label: str) -> str:
    """``<list[Path]>`` -> ``<path>``, ``<int range>`` -> ``<int>``; anything else unchanged."""
    if match := _LIST.fullmatch(label):
        return f"<{match[1].lower()}>"
    if match := _RANGE.fullmatch(label):
        return f"<{match[1]}>"
    return label


class _PlainTypes:
    """Shows every parameter's value type as :func:`plain_type` writes it."""

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            shown = param.display_type_rich(ctx)
            if shown is None or plain_type(shown) == shown:
                continue
            # typer builds its parameters itself (no class to hand it), so the label is set per parameter
            param.display_type_rich = _constant(plain_type(shown))
        return params


def _constant(label: str) -> Callable[[Any], str]:
    return lambda ctx: label


class Command(_PlainTypes, TyperCommand):
    """A command whose help shows plain value types."""


class Group(_PlainTypes, TyperGroup):
    """A command group whose help shows plain value types."""


class Typer(typer.Typer):
    """``typer.Typer`` with plain help (no rich markup) and plain value types in every command."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", Group)
        kwargs.setdefault("rich_markup_mode", None)
        super().__init__(**kwargs)

    def command(self, *args: Any, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Any:
        return super().command(*args, cls=cls or Command, **kwargs)


# ---------------------------------------------------------------------------------------------
# The options of every command that takes a benchmark (veriscale.cli and veriscale.games.cli)

TasksOption = Annotated[
    list[str] | None,
    typer.Option("--tasks", show_default=False, help="Only these task ids (repeatable, or comma-separated)."),
]
TaskAliasOption = Annotated[list[str] | None, typer.Option("--task", hidden=True, help="Old name of --tasks.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress and no notes; results and errors only.")]

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

BackendOption = Annotated[str, typer.Option(help="Engine: auto, embedded or lean.")]


def fail(message: str) -> typer.Exit:
    """Say ``error: message`` on stderr; returns the exit (code 2) for the caller to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def task_ids(*given: list[str] | None) -> list[str] | None:
    """``--tasks a --tasks b,c`` (and the old ``--task``) -> ``[a, b, c]``; ``None`` when not given."""
    ids = [part.strip() for option in given for item in option or [] for part in item.split(",") if part.strip()]
    return ids or None


def executor_or_exit(kind: str, workers: int | None, jobs: int | None, address: str | None) -> Executor:
    """The executor the flags describe, or exit 2 with one line saying what is wrong."""
    import importlib.util

    from veriscale.parallel import ExecutorConfig, make_executor

    if kind not in ("local", "ray"):
        _exit_with(f"--executor {kind}: expected local or ray")
    if address is not None and kind != "ray":
        _exit_with("--address is for the Ray executor (add --executor ray)")
    if kind == "ray" and importlib.util.find_spec("ray") is None:
        _exit_with("--executor ray needs Ray: pip install 'veriscale[ray]'")
    return make_executor(ExecutorConfig(kind=kind, workers=workers or jobs, address=address))  # type: ignore[arg-type]


def _exit_with(message: str) -> NoReturn:
    raise fail(message)
