"""The report in a real browser: headless Chromium renders it and the screenshot has content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriscale.stages.report import build_report
from veriscale.stages.report.screenshot import find_chromium, has_content, screenshot_slices

CHROMIUM = find_chromium()


def test_has_content_tells_a_blank_image(tmp_path: Path) -> None:
    Image = pytest.importorskip("PIL.Image")
    blank = tmp_path / "blank.png"
    Image.new("RGB", (50, 40), (255, 255, 255)).save(blank)
    assert not has_content(blank)
    drawn = Image.new("RGB", (50, 40), (255, 255, 255))
    drawn.putpixel((10, 10), (0, 0, 0))
    drawn.save(tmp_path / "drawn.png")
    assert has_content(tmp_path / "drawn.png")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on the PATH")
def test_a_small_report_renders_in_chromium(tmp_path: Path) -> None:
    pytest.importorskip("PIL")
    power = tmp_path / "power.json"
    power.write_text(json.dumps({"suites": [
        {"path": f"/d/{name}", "checks": checks, "flawed_specs_caught": caught, "flawed_specs_total": 100,
         "mutants_killed": caught, "mutants_total": 100}
        for name, checks, caught in (("verina", 3000, 92), ("verinaplus", 200000, 99), ("verinalite", 50000, 97))]}),
        encoding="utf-8")
    result = build_report(tmp_path / "report", power=power)
    assert CHROMIUM is not None
    shots = screenshot_slices(CHROMIUM, result.html, tmp_path / "shots", width=1000, slice_height=800)
    assert [s.path.name for s in shots][:2] == ["report-top.png", "report-1.png"]
    for shot in shots:
        assert shot.path.is_file() and shot.width == 1000 and 0 < shot.height <= 800
    assert all(s.has_content for s in shots)
    # The page ends inside the window: the slices cover it and no more (the blank tail is cut).
    assert sum(s.height for s in shots[1:]) < 4 * 800
