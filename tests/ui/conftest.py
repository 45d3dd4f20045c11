"""A real main window on a fresh profile, disposed of properly after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.window.main_window import MainWindow


@pytest.fixture
def make_window(
    qtbot: Any, secret_store: SecretStore, aio_loop: Any
) -> Iterator[Callable[[Path], MainWindow]]:
    windows: list[MainWindow] = []

    def make(profile: Path) -> MainWindow:
        ctx = AppContext.open(str(profile), secrets=secret_store)
        window = MainWindow(ctx)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        # The store, sidebar, agent and voice are built right after the window shows.
        qtbot.waitUntil(lambda: window.presenter.assistant is not None, timeout=30_000)
        return window

    yield make
    for window in windows:
        window.close()
        window.dispose()
