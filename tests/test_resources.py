"""One lookup order for VeriScale's own files (``veriscale.resources``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from veriscale import resources


def test_the_checkout_holds_the_shipped_resources() -> None:
    assert (resources.checkout_root() / "veriscale" / "__init__.py").is_file()
    assert (resources.prompts_dir()).is_dir()
    assert (resources.lean_templates_dir()).is_dir()
    assert any((d / "lite.toml").is_file() for d in resources.suite_dirs())


def test_an_override_comes_first_even_when_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # a mistyped override must fail where it is used, not silently fall back to the shipped files
    missing = tmp_path / "nowhere"
    monkeypatch.setenv(resources.PROMPTS_DIR_ENV, str(missing))
    assert resources.prompts_dir() == missing
    monkeypatch.setenv(resources.SUITES_DIR_ENV, str(tmp_path))
    assert resources.suite_dirs()[0] == tmp_path


def test_installed_data_dirs_are_under_share_veriscale() -> None:
    dirs = resources.installed_data_dirs("suites")
    assert dirs and all(d.parts[-3:] == ("share", "veriscale", "suites") for d in dirs)


def test_every_environment_variable_read_is_documented() -> None:
    """Each ``VERISCALE_*``/``OPENAI_*`` name the package reads is in ENVIRONMENT and the README."""
    root = resources.checkout_root()
    read: set[str] = set()
    for path in (root / "veriscale").rglob("*.py"):
        read.update(re.findall(r'"((?:VERISCALE|OPENAI)_[A-Z_]+)"', path.read_text(encoding="utf-8")))
    assert read <= set(resources.ENVIRONMENT), read - set(resources.ENVIRONMENT)
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in resources.ENVIRONMENT)
