"""Process environment Qt and QtWebEngine need, set before the first Qt import.

Chromium refuses to run as root without its sandbox disabled (PLATFORM.md); qasync must
pick PySide6; QtWebEngineWidgets must be imported before the QApplication exists.
"""

from __future__ import annotations

import os
import sys


def prepare(headless: bool = False) -> None:
    """Set the environment for Qt; call before importing anything from PySide6."""
    os.environ["QT_API"] = "pyside6"
    if headless:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    elif sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        # No screen: start offscreen rather than fail with a cryptic xcb error.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags:
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = (flags + " --no-sandbox").strip()
    # Quiet Chromium's attempts to reach the network on start (closed networks, privacy).
    flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
    extra = "--disable-background-networking --disable-component-update"
    if "--disable-background-networking" not in flags:
        os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = (flags + " " + extra).strip()
    from PySide6 import QtWebEngineWidgets  # noqa: F401  (must precede QApplication)
