"""Screenshots of a report in headless Chromium, to check it as a reader sees it.

Chromium's ``--screenshot`` takes the window, not the page, so the page is taken in a window
tall enough for it (doubled until the bottom rows are blank background) and cut into slices of
a viewable height. Needs a ``chromium`` (or ``chromium-browser``, ``google-chrome``) on the PATH
and Pillow.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Shot", "find_chromium", "has_content", "screenshot", "screenshot_slices"]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MAX_HEIGHT = 32_000
"""Tallest window tried (Chromium draws larger windows blank)."""


@dataclass(frozen=True)
class Shot:
    path: Path
    width: int
    height: int
    has_content: bool


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
