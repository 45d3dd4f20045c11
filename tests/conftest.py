"""The test harness: real components, started and stopped by fixtures.

- Qt runs offscreen with QtWebEngine, on ONE session-wide qasync loop (see PLATFORM.md:
  a second run_until_complete after WebEngine loaded a page segfaults). Coroutines are run
  with the ``arun`` fixture, which schedules a task and waits with ``qtbot.waitUntil``.
  Never call ``asyncio.run`` or ``loop.run_until_complete`` in a test.
- Fixture modules live in ``tests/fixtures/``; add yours to ``pytest_plugins`` below.
- Unexpected Qt warnings fail the test (``qt_log_level_fail`` in pyproject.toml).
- ``scripts/test`` runs the suite on every core (pytest-xdist): each worker is a process with
  its own home and session fixtures (``tests/fixtures/workers.py``).
"""

from __future__ import annotations

import os

from tests.fixtures.cores import share_cores
from tests.fixtures.home import private_home

# Before anything imports Qt.
private_home()
share_cores()  # before any engine starts its threads
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["QT_API"] = "pyside6"
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

from PySide6 import QtWebEngineWidgets  # noqa: E402,F401  (after the environment; must precede QApplication)

pytest_plugins = [
    "tests.fixtures.workers",
    "tests.fixtures.cpu",
    "tests.fixtures.watchdog",
    "tests.fixtures.qt_loop",
    "tests.fixtures.keyring_service",
    "tests.fixtures.page_server",
    "tests.fixtures.profile",
    "tests.fixtures.llama_server",
    "tests.fixtures.pulseaudio",
    "tests.fixtures.browser",
    "tests.fixtures.network",
    "tests.servers.scripted_model",
    "tests.servers.provider_servers",
    "tests.servers.slow_pages",
]
