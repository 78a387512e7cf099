"""The list of Lean v4.24.0 core + Std names behind "the environment does not contain ..." errors.

Lean's rule (``Lean.Elab.App``, ``resolveLValLoop``/``throwLValError``): ``e.f`` with ``e : C ...``
is an "invalid field" error when the environment has no ``C.f`` (nor a parent's or an unfolding's);
``veriscale.backends.embedded.core_names.lean_has`` decides that for the core namespaces.
"""

from __future__ import annotations

from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from veriscale.backends.embedded import core_names
from veriscale.backends.embedded.builtins.coverage import used_names
from veriscale.backends.embedded.core_names import CORE_NAMESPACES, lean_has
from veriscale.backends.embedded.elab import Elaborator, elaborate
from veriscale.backends.embedded.program import Program

PROJECT_ROOT = Path(__file__).resolve().parents[3]
DATA_FILE = PROJECT_ROOT / "veriscale" / "backends" / "embedded" / "data" / "lean_core_names.txt"


@pytest.mark.parametrize(
    "name",
    [
        "List.foldl", "List.sum", "List.Nodup", "List.cons", "List.mergeSort", "List.foldl_cons",
        "Array.push", "Array.mkArray", "String.splitOn", "String.toList", "Char.isDigit",
        "Nat.repr", "Int.natAbs", "Prod.fst", "Option.some", "Option.getD", "Substring.str",
        "String.Iterator.next", "Std.HashMap.insert", "Std.HashSet.contains", "UInt8.toNat",
        "Float.sqrt", "Fin.val", "max", "min", "id",
    ],
)
def test_known_members_are_present(name: str) -> None:
    assert lean_has(name) is True


def test_root_prefix_is_ignored() -> None:
    assert lean_has("_root_.List.foldl") is True


@pytest.mark.parametrize(
    "name",
    ["String.charCount", "List.frobnicate", "Array.sumBy", "Nat.toRomanNumeral", "Option.unwrapOr",
     "Std.HashMap.getOrElse", "Char.isVowel", "String.Iterator.peekTwice"],
)
def test_invented_members_are_absent(name: str) -> None:
    assert lean_has(name) is False


@pytest.mark.parametrize(
    "name",
    [
        "Finset.sum", "Std.TreeMap.insert", "Lean.Name.append", "frobnicate",  # namespace not covered
        "List.frobnicate_cons", "Nat.succ_frob", "Array.ext",  # theorem-shaped: not listed completely
        "List.casesOn", "Option.noConfusion", "List.foldl.eq_1", "List.instBEqList",  # generated
        "List.frobAux", "Array.frobTR", "Array.frobUnsafe", "String.hasDecFrob",  # helper-shaped
    ],
)
def test_cannot_tell_outside_what_the_list_claims(name: str) -> None:
    assert lean_has(name) in (None, True)
    if name not in {"Array.ext", "List.casesOn", "Option.noConfusion"}:  # these may well be listed
        assert lean_has(name) is None


def test_uncovered_namespace_gives_none() -> None:
    assert "Finset" not in CORE_NAMESPACES
    assert lean_has("Finset.frobnicate") is None


def test_data_file_is_sorted_unique_and_in_scope() -> None:
    lines = DATA_FILE.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and "v4.24.0" in lines[0]
    names = [line for line in lines if line and not line.startswith("#")]
    assert names == sorted(set(names))
    assert len(names) > 1000
    for name in names:
        namespace = name.rpartition(".")[0]
        assert namespace == "" or any(
            namespace == ns or namespace.startswith(ns + ".") for ns in CORE_NAMESPACES
        ) or name in CORE_NAMESPACES, name
    assert core_names.core_names() == frozenset(names)


def test_data_file_is_packaged() -> None:
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["veriscale"]
    assert "backends/embedded/data/*.txt" in patterns


def _field_notation_targets(text: str) -> set[str]:
    """``C.f`` for every field notation ``e.f`` the elaborator resolves with ``e : C ...``."""
    seen: set[str] = set()
    original = Elaborator.lookup_method

    def record(self, h, field, ctx):  # type: ignore[no-untyped-def]
        seen.add(f"{h}.{field}")
        return original(self, h, field, ctx)

    program = Program(text)
    Elaborator.lookup_method = record  # type: ignore[method-assign]
    try:
        elaborate(program.env)
    finally:
        Elaborator.lookup_method = original  # type: ignore[method-assign]
    own = set(program.env.defs) | set(program.env.structs)
    return {name for name in seen if name not in own}


def _is_core_member(name: str) -> bool:
    namespace = name.rpartition(".")[0]
    return namespace in CORE_NAMESPACES or namespace == ""


@pytest.mark.data
def test_every_member_used_by_non_mathlib_ground_truth_is_listed(data_dir: Path) -> None:
    texts = [
        text
        for path in sorted(data_dir.glob("verina*/*/task.lean"))
        if "import Mathlib" not in (text := path.read_text(encoding="utf-8"))
    ]
    assert len(texts) > 100
    used = {name for name in used_names(texts) if not name.startswith(".")}
    for text in texts:
        used |= _field_notation_targets(text)
    members = {name for name in used if _is_core_member(name)}
    assert len(members) > 80  # guards against an empty scan
    missing = sorted(name for name in members if lean_has(name) is not True)
    assert missing == []
