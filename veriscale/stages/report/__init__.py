"""``veriscale report``: Markdown and HTML with plots from score, power and expand results."""

from veriscale.stages.report.build import ReportResult, build_report, render_html, render_markdown
from veriscale.stages.report.inputs import (
    ExpandRun,
    PowerRow,
    ReportInputError,
    ScoreRow,
    find_score_files,
    read_expand_run,
    read_power_file,
    read_score_file,
)

__all__ = [
    "ExpandRun",
    "PowerRow",
    "ReportInputError",
    "ReportResult",
    "ScoreRow",
    "build_report",
    "find_score_files",
    "read_expand_run",
    "read_power_file",
    "read_score_file",
    "render_html",
    "render_markdown",
]
