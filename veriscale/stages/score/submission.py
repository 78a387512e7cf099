"""Submissions: JSONL lines ``{"task": id, "sample": k, <section>: body, ...}``.

A task may have several lines, one per sample (``"sample"``: 0, 1, ...; left out it is 0), for
pass@k.
A body is the text of a ``task.lean`` section (what sits between its ``@start``/``@end`` markers),
exactly as a model would fill it in. Lines that cannot be used are reported with their line number
and the rest load, so that one malformed answer does not cost a model its whole score.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SUBMITTABLE_SECTIONS: tuple[str, ...] = (
    "code", "code_aux", "precond", "precond_aux", "postcond", "postcond_aux", "proof", "proof_aux",
)


class Submission(BaseModel):
    """One model answer for one task; a section left out (``None``) keeps the task's own text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    sample: int = Field(default=0, ge=0)
    """Which of the task's samples this is (0-based), for pass@k."""
    code: str | None = None
    code_aux: str | None = None
    precond: str | None = None
    precond_aux: str | None = None
    postcond: str | None = None
    postcond_aux: str | None = None
    proof: str | None = None
    proof_aux: str | None = None

    def sections(self) -> dict[str, str]:
        """The submitted section bodies, by section name."""
        return {name: body for name in SUBMITTABLE_SECTIONS if (body := getattr(self, name)) is not None}


class SubmissionError(BaseModel):
    """A line of a submission file that was not loaded, and why."""

    file: str
    line: int
    task: str | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where}: {self.task}: {self.reason}" if self.task else f"{where}: {self.reason}"


def _validation_reason(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        location = ".".join(str(p) for p in error["loc"]) or "line"
        message = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        parts.append(f"{location}: {message}")
    return "; ".join(parts)


def parse_submission_lines(lines: Iterable[str], file: str = "<submission>") -> tuple[list[Submission], list[SubmissionError]]:
    """Parse JSONL text; blank lines are skipped, a duplicate (task, sample) keeps its first line."""
    submissions: list[Submission] = []
    errors: list[SubmissionError] = []
    first_line: dict[tuple[str, int], int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(SubmissionError(file=file, line=number, task=None, reason=f"not JSON: {exc.msg}"))
            continue
        task_id = raw.get("task") if isinstance(raw, dict) else None
        task_name = task_id if isinstance(task_id, str) else None
        if not isinstance(raw, dict):
            errors.append(SubmissionError(file=file, line=number, task=None, reason="not a JSON object"))
            continue
        try:
            submission = Submission.model_validate(raw, strict=True)
        except ValidationError as exc:
            errors.append(SubmissionError(file=file, line=number, task=task_name, reason=_validation_reason(exc)))
            continue
        key = (submission.task, submission.sample)
        if key in first_line:
            errors.append(SubmissionError(
                file=file, line=number, task=submission.task,
                reason=f"duplicate task and sample {submission.sample} (first submitted on line "
                       f"{first_line[key]}; that line is scored)",
            ))
            continue
        first_line[key] = number
        submissions.append(submission)
    return submissions, errors


def load_submissions(path: Path) -> tuple[list[Submission], list[SubmissionError]]:
    """Read a JSONL submission file (UTF-8). Raises ``OSError`` when it cannot be read."""
    path = Path(path)
    with path.open(encoding="utf-8", newline="") as handle:
        text = handle.read()
    # Only "\n" separates lines: a body may hold other line separators inside its JSON string,
    # but never a raw one, and splitlines() would also split at U+2028 and friends.
    return parse_submission_lines(text.split("\n"), str(path))


def write_submissions(path: Path, submissions: Iterable[Submission]) -> None:
    """Write one compact JSON line per submission (sections left out are not written)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for submission in submissions:
            line = submission.model_dump(exclude_none=True)
            if line["sample"] == 0:
                del line["sample"]  # the single-sample layout, as before samples existed
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
