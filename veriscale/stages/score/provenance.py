"""Where a score came from: tool version and commit, suite and its content hash, engine, options,
date and model -- enough to tell whether two score files can be compared."""

from __future__ import annotations

import datetime as _dt
import hashlib
import subprocess
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from veriscale._version import __version__


class Provenance(BaseModel):
    veriscale_version: str
    git_commit: str | None = None
    """The commit of the VeriScale checkout that scored (``+dirty`` with local changes), or
    ``None`` when it does not run from a git checkout."""
    suite: str
    """The suite directory, as given."""
    suite_hash: str
    """``sha256:`` of every file of the suite (relative path and bytes, in sorted order)."""
    engine: str
    options: dict[str, Any] = Field(default_factory=dict)
    date: str
    """When scoring started, UTC, ISO 8601."""
    model: str | None = None
    """The model whose submissions these are (``score --model``; ``eval`` knows it)."""


def suite_hash(suite: Path) -> str:
    """A content hash of a suite directory: any changed, added or removed file changes it."""
    digest = hashlib.sha256()
    root = Path(suite)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        digest.update(relative.encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def git_commit() -> str | None:
    """The commit of the source tree ``veriscale`` is imported from, if it is a git checkout."""
    here = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=False)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = head.stdout.strip()
    return commit + ("+dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def collect(suite: Path, engine: str, options: dict[str, Any], model: str | None) -> Provenance:
    return Provenance(
        veriscale_version=__version__,
        git_commit=git_commit(),
        suite=str(suite),
        suite_hash=suite_hash(suite),
        engine=engine,
        options=options,
        date=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        model=model,
    )
