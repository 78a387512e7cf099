"""Reduction against the published data: the published reject-input reduction of VerinaPlus
must give VerinaLite's reject_inputs.json exactly (same rows, same order) for every task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from veriscale.stages.reduce import reduce_reject_inputs
from veriscale.stages.reduce.rejects import published_canonical_text

pytestmark = pytest.mark.data


def _rows(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [row["input"] for row in json.load(handle)]


def _task_names(data_dir: Path) -> list[str]:
    return sorted(p.name for p in (data_dir / "verinaplus").iterdir() if (p / "reject_inputs.json").is_file())


def test_published_reject_reduction_reproduces_verinalite(data_dir: Path) -> None:
    names = _task_names(data_dir)
    assert len(names) == 151
    mismatches: list[str] = []
    selected, published_full = 0, 0
    for name in names:
        plus = _rows(data_dir / "verinaplus" / name / "reject_inputs.json")
        lite = [
            published_canonical_text(row)
            for row in _rows(data_dir / "verinalite" / name / "reject_inputs.json")
        ]
        result = reduce_reject_inputs(plus, 50, mode="published")
        got = [published_canonical_text(plus[i]) for i in result.kept]
        selected += result.unique > 50
        published_full += len(plus) > 50 and len(lite) == 50
        if got != lite:
            first = next((i for i, (a, b) in enumerate(zip(got, lite)) if a != b), min(len(got), len(lite)))
            mismatches.append(
                f"{name}: {len(plus)} rows -> got {len(got)}, published {len(lite)}; first difference at "
                f"{first}: got {got[first] if first < len(got) else None!r}, "
                f"published {lite[first] if first < len(lite) else None!r}; "
                f"missing {len(set(lite) - set(got))}, extra {len(set(got) - set(lite))}"
            )
    assert not mismatches, "\n".join(mismatches)
    # The bucket selection ran exactly where the published reduction had to cut.
    assert selected == published_full > 30


def test_published_lite_keeps_every_original_test(data_dir: Path) -> None:
    """Why the lite recipe keeps original tests outside the budget: in every published task,
    VerinaPlus starts with Verina's test inputs, and VerinaLite has them all plus at most 50 others."""
    for name in _task_names(data_dir):
        tests = {
            suite: json.loads((data_dir / suite / name / "test.json").read_text(encoding="utf-8"))
            for suite in ("verina", "verinaplus", "verinalite")
        }
        keys_of = {
            suite: [json.dumps(t["input"], sort_keys=True) for t in rows] for suite, rows in tests.items()
        }
        original = keys_of["verina"]
        assert keys_of["verinaplus"][: len(original)] == original, name
        keys = set(original)
        lite_keys = keys_of["verinalite"]
        assert keys <= set(lite_keys), name
        assert sum(key not in keys for key in lite_keys) <= 50, name
