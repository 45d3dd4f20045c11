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
        # The history, Research and voice join right after the window shows; the assistant at its
        # first need (tests/ui/test_main_window.py checks that): built here for the tests that drive it.
        qtbot.waitUntil(lambda: window.sidebar is not None, timeout=30_000)
        window.presenter.build()
        return window

    yield make
    for window in windows:
        window.close()
        window.dispose()
