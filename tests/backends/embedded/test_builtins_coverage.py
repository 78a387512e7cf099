"""Coverage of the builtin library over the names the reference tasks use."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from veriscale.backends.embedded.builtins import BUILTINS
from veriscale.backends.embedded.builtins.coverage import (
    coverage_rows,
    executable_code,
    is_implemented,
    used_names,
)

# Names the data uses that are deliberately not registered. Keep this short and explain each.
KNOWN_MISSING: dict[str, str] = {
    # (none today: every name found by the token scan has a builtin. Note that the scan cannot
    # see receiver types, so `s.toList` on a `Std.HashSet` counts as covered by `Array.toList`;
    # `Std.HashSet.toList` exists too, with Lean's bucket order, see builtins/hashmaps.py.)
}


def test_used_names_scans_executable_code_only() -> None:
    text = """
-- !benchmark @start code
def f (xs : List Nat) : Nat :=
  -- xs.bogusInComment
  let s := "xs.bogusInString"
  have h : xs.length ≥ 0 := by simp [List.length_cons]
  (xs.map (· + 1)).foldl max 0 + List.sum xs + (s!"{xs.length}").length
-- !benchmark @end code
theorem foo : List.bogusTheorem = 1 := by simp
-- !benchmark @start proof
  exact List.bogusProof
-- !benchmark @end proof
def List.myprod : List Int → Int := fun _ => 1
def g (xs : List Int) := xs.myprod
"""
    counts = used_names([text])
    assert counts[".map"] == 1 and counts[".foldl"] == 1 and counts["List.sum"] == 1
    assert counts[".length"] == 2  # the interpolated one counts, the `have` one does not
    assert counts["max"] == 1
    for bogus in (".bogusInComment", ".bogusInString", "List.bogusTheorem", "List.bogusProof",
                  "List.length_cons", ".myprod", "List.myprod"):
        assert bogus not in counts, bogus
    assert "bogus" not in executable_code(text)


def test_is_implemented_for_fields_and_qualified_names() -> None:
    assert is_implemented(".foldl", BUILTINS)
    assert is_implemented("List.foldl", BUILTINS)
    assert not is_implemented(".definitelyNotALeanName", BUILTINS)
    rows = coverage_rows(Counter({"List.range": 2, ".nope": 5}), BUILTINS)
    assert rows == [(".nope", 5, False), ("List.range", 2, True)]


@pytest.mark.data
def test_every_name_used_by_verina_is_registered(data_dir: Path) -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted((data_dir / "verina").glob("*/task.lean"))]
    assert texts
    rows = coverage_rows(used_names(texts), BUILTINS)
    assert len(rows) > 50  # the scan finds the library names (guards against an empty scan)
    missing = {name for name, _, implemented in rows if not implemented}
    assert missing <= set(KNOWN_MISSING), sorted(missing - set(KNOWN_MISSING))
