"""Screenshots of a report in headless Chromium, to check it as a reader sees it.

Chromium's ``--screenshot`` takes the window, not the page, so the page is taken in a window
tall enough for it (doubled until the bottom rows are blank background) and cut into slices of
a viewable height. Needs a ``chromium`` (or ``chromium-browser``, ``google-chrome``) on the PATH
and Pillow.

Chromium draws a character no installed font covers as an empty box, and says nothing. Before a
screenshot, :func:`font_check` reads the fonts fontconfig knows (``fc-list``; Chromium falls back
through the same fonts) and names the page's characters none of them covers, with the Debian
package that has them (``fonts-noto-cjk`` for Chinese, Japanese and Korean).
"""

from __future__ import annotations

import bisect
import html
import shutil
import subprocess
import tempfile
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FontCheck", "Shot", "find_chromium", "font_check", "has_content", "installed_coverage", "page_characters",
    "screenshot", "screenshot_slices",
]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MAX_HEIGHT = 32_000
"""Tallest window tried (Chromium draws larger windows blank)."""


@dataclass(frozen=True)
class Shot:
    path: Path
    width: int
    height: int
    has_content: bool


@dataclass(frozen=True)
class FontCheck:
    """Which of a page's characters no installed font covers (``uncovered`` is sorted)."""

    uncovered: tuple[str, ...]
    checked: bool
    """False when fontconfig's ``fc-list`` is not there to ask (nothing could be checked)."""

    @property
    def ok(self) -> bool:
        return self.checked and not self.uncovered

    def advice(self) -> str:
        """One line saying what is missing and what to install (empty when all is covered)."""
        if not self.checked:
            return "cannot check the fonts: no fc-list on the PATH (Debian: apt-get install fontconfig)"
        if not self.uncovered:
            return ""
        shown = " ".join(self.uncovered[:12]) + (" …" if len(self.uncovered) > 12 else "")
        packages = " ".join(sorted({_font_package(c) for c in self.uncovered}))
        return (f"no installed font covers {len(self.uncovered)} character(s) of the page ({shown}): the "
                f"screenshot would show them as boxes; install fonts that have them (Debian/Ubuntu: "
                f"apt-get install {packages})")


#: Unicode ranges (first, last) with the Debian package whose fonts cover them; anything else is
#: sent to fonts-noto-core (Noto's other scripts).
_FONT_PACKAGES: tuple[tuple[int, int, str], ...] = (
    (0x1100, 0x11FF, "fonts-noto-cjk"),  # Hangul Jamo
    (0x2E80, 0x9FFF, "fonts-noto-cjk"),  # CJK radicals and punctuation, kana, Hangul compatibility, Han
    (0xA960, 0xA97F, "fonts-noto-cjk"),  # Hangul Jamo extended
    (0xAC00, 0xD7FF, "fonts-noto-cjk"),  # Hangul syllables
    (0xF900, 0xFAFF, "fonts-noto-cjk"),  # CJK compatibility ideographs
    (0xFE30, 0xFE4F, "fonts-noto-cjk"),  # CJK compatibility forms
    (0xFF00, 0xFFEF, "fonts-noto-cjk"),  # full- and half-width forms
    (0x1F000, 0x1FAFF, "fonts-noto-color-emoji"),
    (0x20000, 0x3FFFF, "fonts-noto-cjk"),  # Han extensions
)


def _font_package(char: str) -> str:
    code = ord(char)
    return next((package for first, last, package in _FONT_PACKAGES if first <= code <= last), "fonts-noto-core")


def page_characters(page: Path) -> set[str]:
    """The characters a reader sees drawn from the HTML page, ASCII and white space aside (they
    are in every font); markup is left in, being ASCII, and entities are read as what they stand for."""
    text = html.unescape(page.read_text(encoding="utf-8"))
    return {c for c in set(text) if ord(c) > 0x7F and not c.isspace() and unicodedata.category(c)[0] not in "CZ"}


def _parse_charset(charset: str) -> Iterable[tuple[int, int]]:
    """fontconfig's ``%{charset}``: space-separated hexadecimal code points and ``first-last`` ranges."""
    for item in charset.split():
        first, _, last = item.partition("-")
        yield int(first, 16), int(last or first, 16)


def installed_coverage() -> list[tuple[int, int]] | None:
    """The code-point ranges some installed font covers, merged and sorted (None: no ``fc-list``)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    listing = subprocess.run([fc_list, "--format", "%{charset}\n"], capture_output=True, text=True,
                             timeout=60, check=False).stdout
    ranges = sorted(r for line in listing.splitlines() for r in _parse_charset(line))
    merged: list[tuple[int, int]] = []
    for first, last in ranges:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def _covered(code: int, ranges: list[tuple[int, int]]) -> bool:
    """``ranges`` sorted and disjoint: the one starting at or before ``code`` holds it, if any does."""
    index = bisect.bisect_right(ranges, (code, 0x10FFFF)) - 1
    return index >= 0 and ranges[index][0] <= code <= ranges[index][1]


def font_check(characters: Iterable[str], coverage: list[tuple[int, int]] | None = None) -> FontCheck:
    """Which ``characters`` no installed font covers; ``coverage`` defaults to
    :func:`installed_coverage` (given, it makes the check independent of this machine's fonts)."""
    ranges = installed_coverage() if coverage is None else coverage
    if ranges is None:
        return FontCheck(uncovered=(), checked=False)
    uncovered = sorted(c for c in set(characters) if not _covered(ord(c), ranges))
    return FontCheck(uncovered=tuple(uncovered), checked=True)


def find_chromium() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot(chromium: str, page: Path, png: Path, *, width: int, height: int, timeout: float = 180.0) -> None:
    """One screenshot of ``page`` in a ``width`` × ``height`` window."""
    with tempfile.TemporaryDirectory(prefix="veriscale-chromium-") as profile:
        command = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            f"--window-size={width},{height}", f"--screenshot={png}", page.resolve().as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if not png.is_file():
        raise RuntimeError(f"chromium made no screenshot (exit {done.returncode}): {done.stderr.strip()[-500:]}")


def has_content(png: Path) -> bool:
    """True when the image is not one flat colour."""
    from PIL import Image

    with Image.open(png) as image:
        low, high = zip(*image.convert("RGB").getextrema())
    return any(h - lo > 16 for lo, h in zip(low, high))


def _content_bottom(png: Path) -> tuple[int, int]:
    """(height of the image, last row that differs from the bottom-right background pixel + 1)."""
    from PIL import Image, ImageChops

    with Image.open(png) as image:
        rgb = image.convert("RGB")
        background = Image.new("RGB", rgb.size, rgb.getpixel((rgb.width - 1, rgb.height - 1)))
        box = ImageChops.difference(rgb, background).getbbox()
        return rgb.height, (box[3] if box else 0)


def screenshot_slices(chromium: str, page: Path, out: Path, *, width: int = 1280, slice_height: int = 1600,
                      prefix: str = "report") -> list[Shot]:
    """``out/<prefix>-top.png`` (the first screen) and ``out/<prefix>-1.png``, ``-2`` ... (the
    whole page cut into ``slice_height`` slices); returns them with whether each has content."""
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob(f"{prefix}-*.png"):
        stale.unlink()
    full = out / f"{prefix}-full.png"
    height = 4 * slice_height
    while True:
        screenshot(chromium, page, full, width=width, height=height)
        image_height, bottom = _content_bottom(full)
        if bottom < image_height - 40 or height >= MAX_HEIGHT:
            break
        height = min(2 * height, MAX_HEIGHT)
    shots: list[Shot] = []
    with Image.open(full) as image:
        rgb = image.convert("RGB")
        used = max(1, min(bottom + 20, rgb.height))
        top = out / f"{prefix}-top.png"
        rgb.crop((0, 0, rgb.width, min(slice_height, used))).save(top)
        shots.append(Shot(top, rgb.width, min(slice_height, used), has_content(top)))
        for index, start in enumerate(range(0, used, slice_height), start=1):
            piece = out / f"{prefix}-{index}.png"
            end = min(start + slice_height, used)
            rgb.crop((0, start, rgb.width, end)).save(piece)
            shots.append(Shot(piece, rgb.width, end - start, has_content(piece)))
    full.unlink()
    return shots
