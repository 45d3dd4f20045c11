"""Process environment Qt and QtWebEngine need, set before the first Qt import.

Chromium refuses to run as root without its sandbox disabled (PLATFORM.md); qasync must
pick PySide6; QtWebEngineWidgets must be imported before the QApplication exists.

PySide6 looks at every module imported after it for the word "PySide6" (its ``__feature__``
switches) with ``inspect.getsource``, which keeps the source of each one in ``linecache``: about
13 MB of the idle app's memory and 60 ms of its start. ``_lean_feature_check`` does the same
check on the file's bytes, keeping nothing.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType


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

    _lean_feature_check()


def _uses_pyside(module: ModuleType) -> bool:
    """Whether ``module``'s source names PySide6: shiboken's own test, on the file's bytes."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return False  # no source (built-in, extension, bundled bytecode): as getsource's OSError
    try:
        with open(path, "rb") as fh:
            return b"PySide6" in fh.read()
    except OSError:
        return False


def _lean_feature_check() -> None:
    """Put ``_uses_pyside`` in place of shiboken's ``_mod_uses_pyside`` (see the module's text)."""
    feature = sys.modules.get("shibokensupport.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = _uses_pyside  # type: ignore[attr-defined]
