"""Reduction recipes: TOML files in ``suites/`` (``--target lite`` reads ``suites/lite.toml``).

A recipe says, per task, which tests and which reject inputs a reduced suite keeps::

    name = "lite"
    description = "..."

    [tests]
    mode = "cover"            # all | cover | first
    budget = 50               # tests kept beyond the original ones
    cover = "greedy"          # greedy | exact (minimum cover; needs the `exact` extra)
    keep_original = true      # tests whose input is an original test's input are always kept
    skip_duplicate_inputs = true  # the budget fill skips repeats of an earlier test's input
    columns = ["adversaries", "flawed_specs"]  # what the cover must keep killing
    flawed_seed = 42          # the flawed specifications' seed (flawed_specs columns)
    flawed_per_section = 40   # flawed preconditions and postconditions, each
    boundary = true           # keep boundary accept tests (veriscale.stages.reduce.boundary)
    unexpected_per_test = 4   # unexpected outputs kept per test beyond those killing a column

    [reject_inputs]
    mode = "boundary"         # all | boundary
    budget = 50
    published_compat = false  # true: the published raw-JSON method, exactly

``mode = "all"`` keeps everything (the ``plus`` recipe). ``tests.mode = "first"`` keeps the first
``budget`` tests (also what ``cover`` falls back to for a task without ``kill_matrix.json``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from veriscale import resources

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["Recipe", "RecipeError", "RejectRule", "TestRule", "load_recipe", "recipe_dirs"]

SUITES_DIR_ENV = resources.SUITES_DIR_ENV


class RecipeError(ValueError):
    """A recipe that cannot be found or read; the message says which file and why."""


Column = Literal["adversaries", "flawed_specs"]


def _adversaries_only() -> list[Column]:
    return ["adversaries"]


class TestRule(BaseModel):
    """``[tests]``: how many tests to keep and how to choose them."""

    __test__ = False  # not a pytest class despite the name
    model_config = ConfigDict(extra="forbid")

    mode: Literal["all", "cover", "first"] = "all"
    budget: int = Field(50, ge=0)
    cover: Literal["greedy", "exact"] = "greedy"
    keep_original: bool = True
    skip_duplicate_inputs: bool = True
    columns: list[Column] = Field(default_factory=_adversaries_only)
    """Kill-matrix columns the kept tests must keep killing: expand's adversaries
    (``kill_matrix.json``) and LLM-free flawed specifications computed at reduce time
    (:mod:`veriscale.stages.reduce.flaws`; needs an engine)."""
    flawed_seed: int = 42
    flawed_per_section: int = Field(40, ge=0)
    flaw_steps: int = Field(20_000_000, ge=1)
    """Engine steps per task for finding the tests that kill the flawed specifications."""
    boundary: bool = False
    """Keep boundary accept tests (:mod:`veriscale.stages.reduce.boundary`) before the budget fill."""
    unexpected_per_test: int | None = Field(None, ge=0)
    """Unexpected outputs kept per test besides those that kill a column (``None``: all)."""


class RejectRule(BaseModel):
    """``[reject_inputs]``: how many reject inputs to keep and how to choose them."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["all", "boundary"] = "all"
    budget: int = Field(50, ge=0)
    published_compat: bool = False


class Recipe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    tests: TestRule = Field(default_factory=TestRule)
    reject_inputs: RejectRule = Field(default_factory=RejectRule)
    source: str | None = Field(None, exclude=True)
    """The file it was read from (not part of the recipe)."""


def recipe_dirs() -> list[Path]:
    """Where named recipes are looked up, in order: ``$VERISCALE_SUITES_DIR``, the source
    checkout's ``suites/``, and ``<prefix>/share/veriscale/suites`` (a wheel's data files)."""
    return resources.suite_dirs()


def _parse_recipe(path: Path) -> Recipe:
    try:
        raw: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RecipeError(f"{path}: cannot read recipe: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(f"{path}: not valid TOML: {exc}") from exc
    raw.setdefault("name", path.stem)
    try:
        recipe = Recipe.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise RecipeError(f"{path}: invalid recipe: {problems}") from exc
    return recipe.model_copy(update={"source": str(path)})


def load_recipe(name_or_path: str | Path) -> Recipe:
    """A recipe by name (``lite`` -> ``lite.toml`` in :func:`recipe_dirs`) or by file path."""
    text = str(name_or_path)
    path = Path(text)
    if path.suffix == ".toml" or os.sep in text or "/" in text:
        if not path.is_file():
            raise RecipeError(f"{path}: recipe file not found")
        return _parse_recipe(path)
    for directory in recipe_dirs():
        candidate = directory / f"{text}.toml"
        if candidate.is_file():
            return _parse_recipe(candidate)
    searched = ", ".join(str(d) for d in recipe_dirs())
    raise RecipeError(f"no recipe named {text!r} (looked for {text}.toml in: {searched})")
