"""Import cycles among the modules of ``veriscale``, from every import statement.

    python benchmarks/import_cycles.py [--scope veriscale.backends.embedded --scope veriscale.lean]

Builds the module import graph from the source alone (nothing is imported): every ``import`` and
``from ... import`` counts, at module level, inside functions and under ``if TYPE_CHECKING:``
alike, since each one is a dependency the modules cannot be understood or loaded without. Prints
the strongly connected components (sets of modules that import each other, directly or through
others) that contain a module of the given scopes, and exits with status 1 if there is any.

Edges, for a statement in module ``m``:

* ``import a.b.c`` -> ``a.b.c``;
* ``from a.b import x`` -> ``a.b`` (its namespace is read, so a package's ``__init__`` counts),
  and also ``a.b.x`` when that is a module;
* relative imports are resolved against ``m``'s package;
* ``m`` -> ``m`` is dropped (a package's ``__init__`` importing its own submodules by its own
  name), and so are the implicit imports of the parent packages that loading any submodule does:
  they are how packages work, not a dependency one module chose.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SCOPES = ("veriscale.backends.embedded", "veriscale.lean")

Graph = dict[str, set[str]]


def module_files(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under ``package_dir`` (a package)."""
    root = package_dir.parent
    modules: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _package_of(module: str, path: Path) -> str:
    """The package relative imports in ``module`` are resolved against."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imported(node: ast.Import | ast.ImportFrom, module: str, path: Path, known: set[str]) -> set[str]:
    """The known modules one import statement depends on."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    if node.level:
        package = _package_of(module, path)
        parts = package.split(".")
        base_parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        base = ".".join([*base_parts, *([node.module] if node.module else [])])
    else:
        base = node.module or ""
    targets = {base} if base in known else set()
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in known:
            targets.add(sub)
    return targets


def import_graph(package_dir: Path) -> Graph:
    """Module -> the modules of the same tree it imports (any statement, anywhere in the file)."""
    files = module_files(package_dir)
    known = set(files)
    graph: Graph = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[name] |= _imported(node, name, path, known) - {name}
    return graph


def strongly_connected_components(graph: Graph) -> list[list[str]]:
    """Tarjan's algorithm, iteratively (no recursion limit); each component sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _in_scope(module: str, scopes: Iterable[str]) -> bool:
    return any(module == s or module.startswith(s + ".") for s in scopes)


def import_cycles(package_dir: Path | None = None, scopes: Iterable[str] = DEFAULT_SCOPES) -> list[list[str]]:
    """The import cycles (components of more than one module) that touch a module of ``scopes``,
    sorted. The whole tree's graph is used, so a cycle through a module outside the scopes counts."""
    scopes = tuple(scopes)
    graph = import_graph(package_dir or PROJECT_ROOT / "veriscale")
    cycles = [
        c for c in strongly_connected_components(graph) if len(c) > 1 and any(_in_scope(m, scopes) for m in c)
    ]
    return sorted(cycles)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=PROJECT_ROOT / "veriscale", help="the package directory")
    parser.add_argument("--scope", action="append", default=None,
                        help="report cycles touching modules under this dotted prefix (repeatable; "
                        f"default: {', '.join(DEFAULT_SCOPES)})")
    args = parser.parse_args(argv)
    cycles = import_cycles(args.root, args.scope or DEFAULT_SCOPES)
    for cycle in cycles:
        print(f"cycle of {len(cycle)} modules:")
        for module in cycle:
            print(f"  {module}")
    if not cycles:
        print("no import cycle")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
