"""What the window needs from the settings file before the settings are loaded.

The window's frame (its size, theme and browser) is shown before the settings models are
even imported (start-up time): ``peek_first_frame`` reads what it needs with plain ``json``. It never
fails and never touches the file: anything odd gives the defaults, and the full load that
follows (``SettingsStore.load``) is what validates the file and recovers a bad one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

THEMES = ("system", "light", "dark", "high-contrast")


class FirstFrame(NamedTuple):  # not a dataclass: dataclasses costs 2 ms to import before the frame
    """The saved window geometry (base64 of ``QWidget.saveGeometry``), the theme, and the
    browser's storage choice and home page."""

    geometry: str = ""
    theme: str = "system"
    off_the_record: bool = False
    home_url: str = ""


def peek_first_frame(settings_file: Path) -> FirstFrame:
    """The frame's geometry and theme from ``settings_file``, or the defaults."""
    try:
        data = json.loads(settings_file.read_text(encoding="utf-8"))
        ui = data.get("ui") if isinstance(data, dict) else None
    except (OSError, ValueError):
        return FirstFrame()
    if not isinstance(data, dict):
        return FirstFrame()
    browser = data.get("browser") if isinstance(data, dict) else None
    ui = ui if isinstance(ui, dict) else {}
    browser = browser if isinstance(browser, dict) else {}
    geometry = ui.get("window_geometry")
    theme = ui.get("theme")
    home_url = browser.get("home_url")
    return FirstFrame(
        geometry=geometry if isinstance(geometry, str) else "",
        theme=theme if theme in THEMES else "system",
        off_the_record=browser.get("off_the_record") is True,
        home_url=home_url if isinstance(home_url, str) else "",
    )
