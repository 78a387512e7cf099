"""Where VeriScale's own files are: the source checkout, templates, suite recipes, the Lean package.

One lookup order for every kind of resource, so an editable install, a wheel and an override
behave the same way everywhere:

1. the kind's environment variable (``$VERISCALE_PROMPTS_DIR`` …), when set;
2. the source checkout the package is imported from (the directory above ``veriscale/``);
3. ``<prefix>/share/veriscale/…`` where a wheel installs its data files, for the interpreter's
   and the user's install schemes.

The environment variables are listed in :data:`ENVIRONMENT` (and in the README's table).
"""

from __future__ import annotations

import os
import sysconfig
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

PROMPTS_DIR_ENV = "VERISCALE_PROMPTS_DIR"
LEAN_TEMPLATES_DIR_ENV = "VERISCALE_LEAN_TEMPLATES_DIR"
SUITES_DIR_ENV = "VERISCALE_SUITES_DIR"
LEAN_PROJECT_ENV = "VERISCALE_LEAN_PROJECT"

ENVIRONMENT: dict[str, str] = {
    PROMPTS_DIR_ENV: "jinja2 prompt templates (default: the checkout's or the wheel's templates/prompts)",
    LEAN_TEMPLATES_DIR_ENV: "Lean snippet templates of the Lean backend (default: templates/lean)",
    SUITES_DIR_ENV: "suite recipes such as lite.toml, searched before the shipped ones",
    LEAN_PROJECT_ENV: "the Lean package (lakefile.lean) the Lean backend runs in",
    "VERISCALE_LEAN_REPL": "a built Lean REPL binary, started with `lake env` in the Lean package",
    "VERISCALE_DATA": "the reference data (Verina, VerinaPlus, VerinaLite) for data tests and benchmarks",
    "OPENAI_API_KEY": "the key for --base-url endpoints (an OpenAI-compatible server)",
    "OPENAI_BASE_URL": "the endpoint when --base-url is not given",
}
"""Every environment variable VeriScale reads, with what it sets."""


def checkout_root() -> Path:
    """The directory above the ``veriscale`` package (a source checkout in editable installs)."""
    return Path(__file__).resolve().parents[1]


def is_checkout(path: Path | None = None) -> bool:
    """Whether ``path`` (default: :func:`checkout_root`) is a git checkout."""
    return ((path or checkout_root()) / ".git").exists()


def installed_data_dirs(relative: str) -> list[Path]:
    """``<data>/share/veriscale/<relative>`` for the interpreter's and the user's install schemes."""
    dirs: list[Path] = []
    for scheme in (None, f"{os.name}_user"):
        try:
            data = sysconfig.get_path("data", scheme) if scheme else sysconfig.get_path("data")
        except KeyError:
            continue
        candidate = Path(data) / "share" / "veriscale" / relative
        if candidate not in dirs:
            dirs.append(candidate)
    return dirs


def search_path(relative: str, env_var: str | None = None) -> list[Path]:
    """Every directory a resource of this kind is looked up in, in order (existing or not)."""
    dirs: list[Path] = []
    override = os.environ.get(env_var) if env_var else None
    if override:
        dirs.append(Path(override).expanduser())
    dirs.append(checkout_root() / relative)
    dirs.extend(installed_data_dirs(relative))
    return dirs


def find_dir(relative: str, env_var: str | None = None) -> Path:
    """The first existing directory of :func:`search_path` (an override always wins, existing or
    not, so a mistyped override fails loudly where it is used); else the checkout's path."""
    dirs = search_path(relative, env_var)
    if env_var and os.environ.get(env_var):
        return dirs[0]
    return next((d for d in dirs if d.is_dir()), dirs[0])


def prompts_dir() -> Path:
    return find_dir("templates/prompts", PROMPTS_DIR_ENV)


def lean_templates_dir() -> Path:
    return find_dir("templates/lean", LEAN_TEMPLATES_DIR_ENV)


@lru_cache(maxsize=16)
def template_environment(directory: Path, *, trim_blocks: bool = False) -> jinja2.Environment:
    """The Jinja environment of one template directory (prompts, Lean snippets): an undefined name
    is an error, nothing is HTML-escaped and the trailing newline is dropped."""
    import jinja2  # here: the CLI's light commands import this module

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=trim_blocks,
    )


def suite_dirs() -> list[Path]:
    return search_path("suites", SUITES_DIR_ENV)
