"""How this copy of the app was installed: the packaged app (PyInstaller) or from source (no Qt).

A fix the app suggests depends on it: a source install can add a package with pip, a packaged
app cannot (there is no pip, and the words would mean nothing to who double-clicked it). Every
user-facing hint that differs between the two goes through ``fix``.
"""

from __future__ import annotations

import sys


def packaged() -> bool:
    """True in the packaged app (PyInstaller sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def fix(*, source: str, app: str) -> str:
    """The hint for this installation: ``source`` (may name pip) or ``app`` (must not)."""
    return app if packaged() else source
