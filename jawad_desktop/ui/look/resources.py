"""Finding the app's resources (icons, desktop entry) from a source tree or a bundle."""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

from PySide6.QtGui import QIcon


def resources_dir() -> Path:
    """``resources/`` beside the package, or inside a PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parents[3] / "resources"


@lru_cache(maxsize=1)
def app_icon() -> QIcon:
    icons = resources_dir() / "icons"
    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256):
        png = icons / f"jawad-{size}.png"
        if png.exists():
            icon.addFile(str(png))
    svg = icons / "jawad.svg"
    if svg.exists():
        icon.addFile(str(svg))
    return icon
