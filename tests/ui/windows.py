"""The main window over a scripted model, as the window tests open it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel


def window_with_model(make_window: Any, profile_dir: Path, model: ScriptedModel,
                      *names: str) -> MainWindow:
    """A window (``make_window``, tests/ui/conftest.py) whose saved providers are ``model`` under each of
    ``names`` ("Scripted" when none), the first one active."""
    names = names or ("Scripted",)
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [model.provider(name) for name in names]
    ctx.settings.active_provider = names[0]
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    return window
