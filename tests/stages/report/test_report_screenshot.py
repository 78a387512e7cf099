"""The report in a real browser: headless Chromium renders it and the screenshot has content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriscale.stages.report import build_report
from veriscale.stages.report.screenshot import (
    find_chromium,
    font_check,
    has_content,
    installed_coverage,
    page_characters,
    screenshot_slices,
)

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


def test_page_characters_are_the_drawn_non_ascii_ones(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text('<html><body style="font:x">\u4f60\u597d &#x4e16;&#30028; \u00a0\u2713 a&lt;b</body></html>',
                    encoding="utf-8")
    # Entities count as what they stand for; ASCII and white space (here a no-break space) do not.
    assert page_characters(page) == {"你", "好", "世", "界", "✓"}


def test_font_check_names_the_uncovered_characters_and_the_package() -> None:
    coverage = [(0x20, 0x7E), (0x2713, 0x2713), (0x4F60, 0x4F60)]
    check = font_check(["你", "好", "✓", "界", "Ж", "\U0001F600"], coverage)
    assert check.checked and not check.ok
    assert check.uncovered == tuple(sorted(["好", "界", "Ж", "\U0001F600"]))
    advice = check.advice()
    assert "4 character(s)" in advice and "好" in advice and "你" not in advice
    assert "apt-get install fonts-noto-cjk fonts-noto-color-emoji fonts-noto-core" in advice
    assert font_check(["你", "✓"], coverage).ok
    assert font_check(["你"], []).uncovered == ("你",)


@pytest.mark.skipif(installed_coverage() is None, reason="no fc-list (fontconfig) on the PATH")
def test_installed_coverage_is_merged_and_covers_latin() -> None:
    coverage = installed_coverage()
    assert coverage
    assert all(a <= b < c - 1 for (a, b), (c, _) in zip(coverage, coverage[1:]))  # sorted, disjoint, merged
    assert font_check("Report", coverage).ok
