"""``veriscale doctor``: what this machine offers the tool, and why a backend is or is not usable."""

from __future__ import annotations

import importlib
import platform
import shutil
import subprocess
import sys
from importlib import metadata

from pydantic import BaseModel

REQUIRED = ("pydantic", "jinja2", "openai", "tqdm", "typer")
OPTIONAL = {"lean-interact": "the Lean backend (pip install 'veriscale[lean]')", "pytest": "running the tests"}


class Component(BaseModel):
    name: str
    ok: bool
    detail: str


class BackendStatus(BaseModel):
    name: str
    usable: bool
    reason: str


class DoctorReport(BaseModel):
    python: str
    platform: str
    packages: list[Component]
    tools: list[Component]
    backends: list[BackendStatus]
    auto_backend: str


def _package(name: str, purpose: str | None = None) -> Component:
    try:
        version = metadata.version(name)
    except metadata.PackageNotFoundError:
        detail = "not installed" + (f" (needed for {purpose})" if purpose else "")
        return Component(name=name, ok=False, detail=detail)
    return Component(name=name, ok=True, detail=version)


def _tool(name: str) -> Component:
    path = shutil.which(name)
    if path is None:
        return Component(name=name, ok=False, detail="not on PATH")
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        version = (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "?"
    except (OSError, subprocess.TimeoutExpired) as exc:
        version = f"found but `{name} --version` failed: {exc}"
    return Component(name=name, ok=True, detail=f"{path}: {version}")


def _embedded_status() -> BackendStatus:
    try:
        importlib.import_module("veriscale.backends.embedded.backend")
    except Exception as exc:  # noqa: BLE001 - report any import problem verbatim
        return BackendStatus(name="embedded", usable=False, reason=f"cannot import: {exc}")
    return BackendStatus(name="embedded", usable=True, reason="pure Python, always available")


def _lean_status() -> BackendStatus:
    try:
        lean_module = importlib.import_module("veriscale.backends.lean")
    except Exception as exc:  # noqa: BLE001
        return BackendStatus(name="lean", usable=False, reason=f"cannot import: {exc}")
    usable, reason = lean_module.lean_available()
    return BackendStatus(name="lean", usable=usable, reason=reason)


def collect_report() -> DoctorReport:
    packages = [_package(name) for name in REQUIRED]
    packages += [_package(name, purpose) for name, purpose in OPTIONAL.items()]
    tools = [_tool(name) for name in ("elan", "lake", "lean")]
    backends = [_embedded_status(), _lean_status()]
    lean = backends[1]
    auto = "lean" if lean.usable else "embedded"
    return DoctorReport(
        python=sys.version.split()[0],
        platform=platform.platform(),
        packages=packages,
        tools=tools,
        backends=backends,
        auto_backend=auto,
    )


def format_report(report: DoctorReport, *, problems_only: bool = False) -> str:
    """Everything checked, or with ``problems_only`` what is missing or unusable and the engine
    ``--backend auto`` selects."""
    def mark(ok: bool) -> str:
        return "ok " if ok else "-- "

    if problems_only:
        rows = [(c.ok, c.name, c.detail) for c in (*report.packages, *report.tools)]
        rows += [(b.usable, b.name, b.reason) for b in report.backends]
        return "\n".join([*(f"{mark(ok)}{name:<14} {detail}" for ok, name, detail in rows if not ok),
                          f"--backend auto selects: {report.auto_backend}"])

    lines = [f"python   {report.python} on {report.platform}", "", "packages:"]
    lines += [f"  {mark(c.ok)}{c.name:<14} {c.detail}" for c in report.packages]
    lines += ["", "tools:"]
    lines += [f"  {mark(c.ok)}{c.name:<14} {c.detail}" for c in report.tools]
    lines += ["", "backends:"]
    lines += [f"  {mark(b.usable)}{b.name:<14} {b.reason}" for b in report.backends]
    lines += ["", f"--backend auto selects: {report.auto_backend}"]
    return "\n".join(lines)
