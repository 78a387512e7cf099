"""``veriscale setup-lean``: prepare the Lean package the Lean backend runs in.

On a machine with elan (which provides ``lake`` and installs the toolchain named in
``lean-toolchain`` on first use), this runs, in the directory holding ``lakefile.lean``:

1. ``lake exe cache get`` -- download Mathlib's prebuilt ``.olean`` files (without it, step 2
   compiles Mathlib from source, which takes hours);
2. ``lake build`` -- build the ``VeriScale`` library and whatever of the dependencies is missing;
3. ``lake build repl`` -- build the REPL executable the backend talks to.

Each step says what it does and why a failure matters; the first failing step ends the setup
with its exit status.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from veriscale import resources

LAKEFILE = "lakefile.lean"
PROJECT_ENV = resources.LEAN_PROJECT_ENV
ELAN_HINT = (
    "install elan (https://github.com/leanprover/elan, e.g. "
    "`curl https://elan.lean-lang.org/elan-init.sh -sSf | sh`), then open a new shell"
)


def default_project_dir() -> Path:
    """Where the Lean package lives: ``$VERISCALE_LEAN_PROJECT``, else the source checkout.

    The checkout is the directory above the ``veriscale`` package when it holds ``lakefile.lean``
    (an editable install); otherwise the current directory.
    """
    env = os.environ.get(PROJECT_ENV)
    if env:
        return Path(env).expanduser().resolve()
    checkout = resources.checkout_root()
    if (checkout / LAKEFILE).is_file():
        return checkout
    return Path.cwd()


Runner = Callable[[Sequence[str], Path], int]


def _run(command: Sequence[str], cwd: Path) -> int:
    return subprocess.run(list(command), cwd=cwd, check=False).returncode


def setup_lean(
    project_dir: Path,
    *,
    lake: str | None = None,
    runner: Runner = _run,
    echo: Callable[[str], None] = print,
) -> int:
    """Fetch Mathlib's cache, build the library and the REPL. Returns a process exit status.

    ``lake`` overrides the executable (default: ``lake`` on PATH); ``runner`` and ``echo`` exist so
    the sequence can be tested without a toolchain.
    """
    project_dir = Path(project_dir).resolve()
    if not (project_dir / LAKEFILE).is_file():
        echo(f"error: {project_dir} has no {LAKEFILE}; pass --project-dir pointing at the VeriScale checkout")
        return 2
    lake_path = lake or shutil.which("lake")
    if lake_path is None:
        echo(f"error: `lake` is not on PATH. The Lean backend needs the Lean toolchain: {ELAN_HINT}.")
        echo("Without it VeriScale still runs with the embedded backend (`--backend embedded`).")
        return 127
    steps: list[tuple[list[str], str, str]] = [
        (
            [lake_path, "exe", "cache", "get"],
            "Downloading Mathlib's prebuilt files (a few GB on first run)",
            "Mathlib's cache could not be fetched; `lake build` would compile Mathlib from source "
            "(hours). Check the network connection and retry.",
        ),
        (
            [lake_path, "build"],
            "Building the VeriScale Lean library and its dependencies",
            "the Lean library did not build; the messages above name the failing file.",
        ),
        (
            [lake_path, "build", "repl"],
            "Building the Lean REPL the backend talks to",
            "the REPL did not build; the Lean backend cannot start without it.",
        ),
    ]
    echo(f"Preparing the Lean package in {project_dir} with {lake_path}")
    for index, (command, what, on_failure) in enumerate(steps, start=1):
        echo(f"[{index}/{len(steps)}] {what}: lake {' '.join(command[1:])}")
        try:
            status = runner(command, project_dir)
        except OSError as exc:
            echo(f"error: could not run {command[0]}: {exc}")
            return 127
        if status != 0:
            echo(f"error: step {index} failed with status {status}: {on_failure}")
            return status
    echo("Lean backend ready: `veriscale doctor` should now list it as usable.")
    return 0
