"""Tables for people: ``rich`` tables rendered to plain text.

Every report the CLI prints is a string built here, the same bytes on a terminal, in a pipe and in
a test: no colour, no terminal codes, a fixed width (a cell wider than its share folds onto the
next line); lines of text are kept as they are. Cell text is taken literally: a Lean value such as ``[a, b]`` is not rich markup.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

__all__ = ["WIDTH", "add_row", "new_table", "render"]

WIDTH = 160
"""Characters per line of every rendered report."""


def new_table(*columns: str, right: Iterable[str] = (), title: str | None = None) -> Table:
    """A borderless table with these column headers; the ``right`` ones are right-aligned (numbers)."""
    aligned = set(right)
    table = Table(box=None, pad_edge=False, title=title, title_justify="left")
    for column in columns:
        table.add_column(column, justify="right" if column in aligned else "left", overflow="fold")
    return table


def add_row(table: Table, *cells: object) -> None:
    """A row of cells shown as their ``str``, literally (no markup)."""
    table.add_row(*(Text(str(cell)) for cell in cells))


def render(*parts: RenderableType, width: int = WIDTH) -> str:
    """Tables and lines of text, one after the other, as plain text. A line given as a string is
    kept as it is (never wrapped); a table is laid out in ``width`` characters."""
    lines: list[str] = []
    for part in parts:
        if isinstance(part, str):
            lines.extend(part.splitlines() or [""])
            continue
        buffer = io.StringIO()
        console = Console(file=buffer, width=width, force_terminal=False, color_system=None, no_color=True,
                          emoji=False, highlight=False, markup=False)
        console.print(part)
        lines.extend(line.rstrip() for line in buffer.getvalue().rstrip("\n").splitlines())
    return "\n".join(lines)
