"""Shared fixtures: where the reference data lives, and skipping when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = PROJECT_ROOT / "examples"


def reference_data_dir() -> Path:
    """``$VERISCALE_DATA`` if set, else ``shared/data`` beside the project checkout."""
    env = os.environ.get("VERISCALE_DATA")
    return Path(env) if env else PROJECT_ROOT.parent / "shared" / "data"


DATA_DIR = reference_data_dir()
SUITES = ("verina", "verinaplus", "verinalite")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not (DATA_DIR / "verina").is_dir():
        pytest.skip(f"reference data not found at {DATA_DIR} (set VERISCALE_DATA)")
    return DATA_DIR
