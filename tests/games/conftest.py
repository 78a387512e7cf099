"""Fixtures of the games' tests: our small games benchmark (tests/fixtures/games), expanded once
per session with a small deterministic step budget, the REFUTE items built from it, and the
FalsifyBench game of examples/mini's clamp task."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from veriscale.backends.base import Backend
from veriscale.backends.select import make_backend
from veriscale.games.falsify.build import build_games
from veriscale.games.refute.build import BuildSummary, build_items
from veriscale.stages.expand import ExpandOptions, expand_benchmark

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "games"


@pytest.fixture(scope="session")
def backend() -> Backend:
    return make_backend("embedded")


@pytest.fixture(scope="session")
def games_plus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("games-plus")
    expand_benchmark(FIXTURE, out, jobs=1, progress=False, options=ExpandOptions(task_steps=300_000))
    return out


@pytest.fixture(scope="session")
def refute_build(
    games_plus: Path, backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, BuildSummary]:
    out = tmp_path_factory.mktemp("refute-build")
    return out, build_items(games_plus, out, backend)


@pytest.fixture(scope="session")
def clamp_games(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """FalsifyBench games built from examples/mini's clamp task alone (one game)."""
    suite = tmp_path_factory.mktemp("clamp-suite")
    shutil.copytree(ROOT / "examples" / "mini" / "mini_clamp", suite / "mini_clamp")
    out = tmp_path_factory.mktemp("clamp-games")
    build_games(suite, out, backend)
    return out
