"""What the window needs from the settings file before the settings are loaded.

The window's frame is shown before the settings models are even imported (start-up time):
``peek_first_frame`` reads its saved size and theme with the plain ``json`` module. It never
fails and never touches the file: anything odd gives the defaults, and the full load that
follows (``SettingsStore.load``) is what validates the file and recovers a bad one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

THEMES = ("system", "light", "dark")


@dataclass(frozen=True)
class FirstFrame:
    """The saved window geometry (base64 of ``QWidget.saveGeometry``) and theme."""

    geometry: str = ""
    theme: str = "system"


def peek_first_frame(settings_file: Path) -> FirstFrame:
    """The frame's geometry and theme from ``settings_file``, or the defaults."""
    try:
        data = json.loads(settings_file.read_text(encoding="utf-8"))
        ui = data.get("ui") if isinstance(data, dict) else None
    except (OSError, ValueError):
        return FirstFrame()
    if not isinstance(ui, dict):
        return FirstFrame()
    geometry = ui.get("window_geometry")
    theme = ui.get("theme")
    return FirstFrame(
        geometry=geometry if isinstance(geometry, str) else "",
        theme=theme if theme in THEMES else "system",
    )
