"""Starting and ending the GUI: one QApplication, one qasync loop run exactly once.

Closing the window cancels running work; the process then exits within 2 s, with a
watchdog for work that does not end when cancelled (a stuck worker thread). asyncio and
qasync are imported once the window's frame is on screen (start-up time).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

from jawad_desktop.ui import qt_env

log = logging.getLogger("jawad.ui.app")

EXIT_DEADLINE_S = 1.8


def create_application(headless: bool = False) -> Any:
    """The QApplication (created once), with name, icon and Qt's messages in our log."""
    qt_env.prepare(headless=headless)
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from jawad_desktop import APP_ID, APP_NAME, __version__
    from jawad_desktop.ui.resources import app_icon

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    app.setApplicationName(APP_ID)
    app.setApplicationDisplayName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())
    qt_log = logging.getLogger("jawad.qt")
    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }

    def handler(kind: QtMsgType, _context: Any, message: str) -> None:
        # Qt's own warnings go to the log file, not the user's terminal.
        qt_log.log(min(levels.get(kind, logging.INFO), logging.INFO), "%s", message)

    qInstallMessageHandler(handler)
    return app


def run_loop(main: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run ``main`` on a qasync loop, once, for the life of the process."""
    import asyncio
    import concurrent.futures

    import qasync
    from PySide6.QtWidgets import QApplication

    # One run_until_complete and nothing after it: asyncio.run's clean-up runs the loop a
    # second time, which segfaults inside QCoreApplication::exit once WebEngine has loaded a
    # page (PLATFORM.md). Tasks are cancelled by ``main`` itself before it returns.
    loop = qasync.QEventLoop(QApplication.instance())
    # Plain threads for asyncio.to_thread: qasync's QThread pool aborts at exit if a worker lives.
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(thread_name_prefix="jawad-worker"))
    asyncio.set_event_loop(loop)
    result = loop.run_until_complete(main())
    return int(result or 0)


def _exit_watchdog() -> None:
    """After the window closed, end the process even if some work ignores cancellation."""

    def force_exit() -> None:
        log.warning("shutdown took longer than %.1f s: exiting", EXIT_DEADLINE_S)
        logging.shutdown()
        os._exit(0)

    timer = threading.Timer(EXIT_DEADLINE_S, force_exit)
    timer.daemon = True
    timer.start()


def end_process(code: int) -> NoReturn:
    """Exit now, skipping interpreter teardown: destroying Qt and Chromium objects in
    Python's arbitrary order at exit aborts the process. Everything the app keeps is
    already saved (settings atomically, conversations per message)."""
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)


def _rss_kb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_gui(profile: str | None, *, screenshot: str | None = None, startup_report: str | None = None) -> int:
    """Open the main window and run until it is closed.

    The window's frame is on screen first (its saved size and theme, "Starting…"), before
    the settings, the chat and the browser are loaded; they fill it a moment later.

    ``screenshot``: a test hook (``--screenshot FILE``): once the window is built and idle,
    save a picture of it to FILE and close it, as a user would.
    ``startup_report``: a benchmark hook (``--startup-report FILE``): write when the window
    was shown, when it was built and painted, and when the web view was ready (wall-clock
    seconds), the idle RSS and the native window ids (one, unless Qt re-created it); then close.
    """
    app = create_application()
    app.setQuitOnLastWindowClosed(False)
    from jawad_desktop.core.logging_setup import open_log_file
    from jawad_desktop.core.store.first_frame import peek_first_frame
    from jawad_desktop.core.store.paths import AppPaths
    from jawad_desktop.ui.main_window import MainWindow

    paths = AppPaths.for_profile(profile)
    window = MainWindow(frame=peek_first_frame(paths.settings_file), data_dir=paths.data)
    window.show()
    native_window = int(window.winId())
    app.processEvents()  # paint the frame now; the rest is built behind it
    shown = time.time()
    log.info("window frame shown")
    open_log_file()  # with the records of the start so far

    # asyncio (30 ms to import) after the frame, with everything else.
    import asyncio

    async def main() -> int:
        from jawad_desktop.core.context import AppContext

        closed = asyncio.Event()
        window.closed.connect(closed.set)
        app.aboutToQuit.connect(closed.set)
        await asyncio.sleep(0)  # a close during the first paint is seen before the build
        if closed.is_set():
            return 0
        window.build(AppContext.open(profile, defer_keyring=True))
        web_ready = asyncio.Event()
        window.browser.view.loadFinished.connect(lambda _ok: web_ready.set())
        if window.browser.loads_finished:  # the start page was quicker than the build
            web_ready.set()
        if startup_report:
            # Let Qt paint the built window: yield to the loop (a nested processEvents() here
            # would step other tasks inside this one: qasync's "Cannot enter into task").
            await asyncio.sleep(0)
            built = time.time()
            await web_ready.wait()
            ready = time.time()
            await asyncio.sleep(2.0)
            report = {"shown": shown, "built": built, "web_ready": ready, "idle_rss_kb": _rss_kb(),
                      # Qt re-creating the native window makes it vanish and come back.
                      "native_windows": sorted({native_window, int(window.winId())})}
            with open(startup_report, "w", encoding="utf-8") as fh:
                json.dump(report, fh)
            window.close()
        if screenshot:
            await asyncio.sleep(1.0)
            window.grab().save(screenshot)
            log.info("screenshot saved to %s; closing", screenshot)
            window.close()
        await closed.wait()
        _exit_watchdog()
        await window.controller.aclose()
        current = asyncio.current_task()
        pending = [t for t in asyncio.all_tasks() if t is not current]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=1.0)
        window.dispose()
        return 0

    return run_loop(main)
