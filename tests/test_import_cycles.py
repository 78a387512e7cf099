"""benchmarks/import_cycles.py: the engine (``veriscale.backends.embedded``, ``veriscale.lean``)
has no import cycle, and the graph builder finds cycles of every kind of import statement."""

from __future__ import annotations

from pathlib import Path

from conftest import load_benchmark_script

PROJECT_ROOT = Path(__file__).resolve().parents[1]


IC = load_benchmark_script("import_cycles")


def test_the_engine_has_no_import_cycle() -> None:
    assert IC.import_cycles(PROJECT_ROOT / "veriscale") == []


def test_the_graph_covers_the_engine_modules() -> None:
    graph = IC.import_graph(PROJECT_ROOT / "veriscale")
    assert "veriscale.backends.embedded.parser.terms" in graph
    assert "veriscale.backends.embedded.parser.core" in graph["veriscale.backends.embedded.parser.terms"]
    assert "veriscale.lean.lexer" in graph["veriscale.backends.embedded.parser.core"]


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_cycles_through_lazy_type_checking_and_package_imports_are_found(tmp_path: Path) -> None:
    pkg = _write(tmp_path, {
        "pkg/__init__.py": "from pkg import a  # a package importing its own submodule\n",
        "pkg/a.py": "def f():\n    from pkg.b import g\n    return g\n",  # inside a function
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n",
        "pkg/sub/__init__.py": "from pkg.sub import c\n",
        "pkg/sub/c.py": "from pkg.sub import d\n",  # reads the package's namespace
        "pkg/sub/d.py": "",
        "pkg/e.py": "import pkg.sub.d\nfrom .sub.d import x\n",
    })
    cycles = IC.import_cycles(pkg, scopes=("pkg",))
    assert cycles == [["pkg.a", "pkg.b"], ["pkg.sub", "pkg.sub.c"]]
    assert IC.import_cycles(pkg, scopes=("pkg.sub.d", "pkg.e")) == []


def test_main_exits_1_on_a_cycle_and_0_without(tmp_path: Path, capsys) -> None:
    pkg = _write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "import pkg.b\n", "pkg/b.py": "from pkg import a\n"})
    assert IC.main(["--root", str(pkg), "--scope", "pkg"]) == 1
    assert "pkg.a" in capsys.readouterr().out
    (pkg / "b.py").write_text("", encoding="utf-8")
    assert IC.main(["--root", str(pkg), "--scope", "pkg"]) == 0
