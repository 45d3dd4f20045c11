"""Starting and ending the GUI: one QApplication, one qasync loop run exactly once.

Closing the window cancels running work; the process then exits within 2 s, with a
watchdog for work that does not end when cancelled (a stuck worker thread). asyncio and
qasync are imported once the window's frame is on screen (start-up time).

Every way the desktop asks the app to quit ends the same way as closing the window (messages
saved, the browser profile written to disk, Chromium's helper processes gone): SIGTERM,
SIGINT and SIGHUP (``QuitRequests``), the session manager's ``commitDataRequest`` and a
platform Quit (``Application``). An exception no task retrieves is logged and told to the
user (``UnhandledErrors``), never lost.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NoReturn

from jawad_desktop.ui.app import qt_env

if TYPE_CHECKING:
    import asyncio
    import socket

    from jawad_desktop.core.events import EventBus

log = logging.getLogger("jawad.ui.app")

EXIT_DEADLINE_S = 1.8
# From a quit signal to the end of the process even if the GUI thread is stuck and cannot
# start the shutdown (which has EXIT_DEADLINE_S of its own once it starts).
SIGNAL_EXIT_DEADLINE_S = 3.0
QUIT_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")  # SIGHUP: the terminal or the session went away


def _application_class() -> type:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    class Application(QApplication):
        """A QApplication that hands a platform's request to quit (QEvent.Quit: the session
        ending, the desktop's Quit) to ``on_quit_request``: left to Qt, it would end the event
        loop under the running shutdown (no messages saved, no cookies written)."""

        on_quit_request: Callable[[], None] | None = None

        def event(self, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Quit and self.on_quit_request is not None:
                self.on_quit_request()
                event.accept()
                return True
            return super().event(event)

    return Application


def create_application(headless: bool = False) -> Any:
    """The QApplication (created once), with name, icon and Qt's messages in our log; reference cycles
    are collected on its main thread only (``ui.app.garbage_collection``)."""
    qt_env.prepare(headless=headless)
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from jawad_desktop import APP_ID, APP_NAME, __version__
    from jawad_desktop.ui.app.garbage_collection import collect_on_the_main_thread
    from jawad_desktop.ui.look.resources import app_icon

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else _application_class()([sys.argv[0]])
    app.setApplicationName(APP_ID)
    app.setApplicationDisplayName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())
    collect_on_the_main_thread(app)
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


class UnhandledErrors:
    """The loop's exception handler: an exception that no one retrieved (a task that failed
    unwatched, a callback that raised) is logged with its traceback and told to the user on
    ``bus`` (``background.tell``) once the app has one. A cancellation is not a failure."""

    def __init__(self, bus: EventBus | None = None) -> None:
        self.bus = bus

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        import asyncio

        from jawad_desktop.ui.base.background import tell

        exc = context.get("exception")
        message = context.get("message") or "Unhandled exception in event loop"
        if isinstance(exc, asyncio.CancelledError):
            log.debug("%s: cancelled", message)
            return
        where = context.get("task") or context.get("future") or context.get("handle")
        details = f"{message} ({where!r})" if where is not None else message
        if exc is None:  # asyncio's own complaints ("Task was destroyed but it is pending!")
            log.error("%s", details)
            return
        log.error("%s", details, exc_info=(type(exc), exc, exc.__traceback__))
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if len(what) > 200:  # the banner is one line; the log has it all
            what = what[:199] + "…"
        tell(self.bus, "error", f"Something went wrong in the background: {what}. Details are in the log file.")


class QuitRequests:
    """SIGTERM, SIGINT and SIGHUP, the session manager and a platform Quit, turned into the
    window's own close (``close_window``), which runs the orderly shutdown.

    A signal reaches Python through ``signal.set_wakeup_fd``: its C-level handler writes the
    signal's number to a socket at once, whatever the GUI thread is doing (Qt's loop idle in
    poll, or stuck), and a watcher thread reading that socket hands the request to the loop.
    A second signal ends the process at once (128 + its number), and
    SIGNAL_EXIT_DEADLINE_S after the first one the process ends even if the GUI thread never
    got to close the window. Nothing else in the GUI may use ``loop.add_signal_handler``: it
    would take the wake-up fd.
    """

    def __init__(self, close_window: Callable[[], object]) -> None:
        self._close_window = close_window
        self._loop: asyncio.AbstractEventLoop | None = None
        self._signals = 0  # seen by the watcher thread
        self._numbers: set[int] = set()  # of QUIT_SIGNALS
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self.shutting_down = False

    def install(self, loop: asyncio.AbstractEventLoop, app: Any) -> None:
        """Take over the quit signals and the application's quit requests (GUI thread)."""
        # Imported here, after the window's frame (start-up time).
        import signal
        import socket

        self._loop = loop
        app.commitDataRequest.connect(lambda _manager: self.request("the session is ending"))
        if hasattr(app, "on_quit_request"):
            app.on_quit_request = lambda: self.request("the application was asked to quit")
        receive, wake = socket.socketpair()
        wake.setblocking(False)
        try:
            signal.set_wakeup_fd(wake.fileno(), warn_on_full_buffer=False)
        except ValueError as exc:  # not the main thread
            receive.close()
            wake.close()
            log.warning("quit signals keep their default action: %s", exc)
            return
        for name in QUIT_SIGNALS:
            number = getattr(signal, name, None)
            if number is None:  # Windows has no SIGHUP
                continue
            # A Python-level handler is needed for Python to catch the signal; the work is
            # done by the watcher, which also sees it while the GUI thread is busy.
            signal.signal(number, _ignore_signal)
            self._numbers.add(number)
            if hasattr(signal, "siginterrupt"):  # not on Windows
                signal.siginterrupt(number, False)  # restart the system calls it interrupts
        # The sockets live as long as the process (the wake-up fd must stay valid).
        self._sockets = (receive, wake)
        threading.Thread(target=self._watch, args=(receive,), name="jawad-signals", daemon=True).start()

    def request(self, why: str) -> None:
        """Close the window, once (GUI thread)."""
        if self.shutting_down:
            return
        self.shutting_down = True
        log.info("%s: closing the window", why)
        self._close_window()

    def _watch(self, receive: socket.socket) -> None:
        while True:
            try:
                numbers = receive.recv(64)
            except OSError:
                return
            if not numbers:
                return
            for number in numbers:
                if number in self._numbers:  # any other signal with a Python handler writes here too
                    self._signalled(number)

    def _signalled(self, number: int) -> None:
        """On the watcher thread."""
        import signal

        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        if self._signals:  # a first one lets a running shutdown (the user closed the window) finish
            log.warning("%s while shutting down: exiting now", name)
            end_process(128 + number)
        self._signals += 1
        _exit_watchdog(SIGNAL_EXIT_DEADLINE_S)
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self.request, f"{name} received")


def _ignore_signal(_number: int, _frame: Any) -> None:
    pass


def run_loop(main: Callable[[], Coroutine[Any, Any, int]], *, errors: UnhandledErrors | None = None) -> int:
    """Run ``main`` on a qasync loop, once, for the life of the process. Exceptions no one
    retrieves go to ``errors`` (logged, and told to the user once it has a bus)."""
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
    loop.set_exception_handler(errors or UnhandledErrors())
    asyncio.set_event_loop(loop)
    result = loop.run_until_complete(main())
    return int(result or 0)


def _exit_watchdog(deadline_s: float = EXIT_DEADLINE_S) -> None:
    """After the window closed, end the process even if some work ignores cancellation."""

    def force_exit() -> None:
        log.warning("shutdown took longer than %.1f s: exiting", deadline_s)
        logging.shutdown()
        os._exit(0)

    timer = threading.Timer(deadline_s, force_exit)
    timer.daemon = True
    timer.start()


def end_process(code: int) -> NoReturn:
    """Exit now, skipping interpreter teardown: destroying Qt and Chromium objects in
    Python's arbitrary order at exit aborts the process. Everything the app keeps is
    already saved (settings atomically, conversations per message)."""
    from jawad_desktop.core.llm.local_server import stop_local_servers

    stop_local_servers()  # os._exit runs no atexit handler: the model server is stopped here
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


async def _report_startup(path: str, window: Any, *, shown: float, shown_cpu: float, native_window: int) -> None:
    """``--startup-report``: when the window was shown, built and painted, and when the web view
    was ready (wall-clock seconds), the CPU time the process had used when the window was shown
    (less swayed by a busy machine than the wall clock), the idle memory, the imported packages
    and the native window ids, written to ``path`` as JSON."""
    import asyncio

    from jawad_desktop.core.procmem import tree_pss_kb

    web_ready = asyncio.Event()
    window.browser.view.loadFinished.connect(lambda _ok: web_ready.set())
    if window.browser.loads_finished:  # the start page was quicker than the build
        web_ready.set()
    # Let Qt paint the built window: yield to the loop (a nested processEvents() here
    # would step other tasks inside this one: qasync's "Cannot enter into task").
    await asyncio.sleep(0)
    built = time.time()
    await web_ready.wait()
    ready = time.time()
    await asyncio.sleep(2.0)
    report = {"shown": shown, "shown_cpu_s": shown_cpu, "built": built, "web_ready": ready, "idle_rss_kb": _rss_kb(),
              "idle_pss_kb": tree_pss_kb(), "idle_anon_kb": tree_pss_kb(part="Pss_Anon"),
              # what the idle app has imported (tests/ui/test_startup_imports.py: no heavy module
              # before its use), by package and by module
              "packages": sorted({name.partition(".")[0] for name in sys.modules}),
              "modules": sorted(sys.modules),
              # Qt re-creating the native window makes it vanish and come back.
              "native_windows": sorted({native_window, int(window.winId())})}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(report, fh)


async def release_window(window: Any) -> None:
    """After the window closed: release its work (``aclose``), cancel the tasks left, dispose of it."""
    import asyncio

    await window.aclose()
    current = asyncio.current_task()
    pending = [t for t in asyncio.all_tasks() if t is not current]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=1.0)
    window.dispose()


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
    from jawad_desktop.ui.window.main_window import MainWindow

    paths = AppPaths.for_profile(profile)
    window = MainWindow(frame=peek_first_frame(paths.settings_file), data_dir=paths.data)
    window.show()
    native_window = int(window.winId())
    app.processEvents()  # paint the frame now; the rest is built behind it
    shown, shown_cpu = time.time(), time.process_time()
    log.info("window frame shown")
    window.frame_shown()  # the browser and its start page, where they were not in the frame
    open_log_file()  # with the records of the start so far

    # asyncio (30 ms to import) after the frame, with everything else.
    import asyncio

    errors = UnhandledErrors()
    quit_requests = QuitRequests(window.quit)

    async def main() -> int:
        from jawad_desktop.core.context import AppContext

        quit_requests.install(asyncio.get_running_loop(), app)
        closed = asyncio.Event()
        window.closed.connect(closed.set)
        app.aboutToQuit.connect(closed.set)
        await asyncio.sleep(0)  # a close during the first paint is seen before the build
        if closed.is_set():
            return 0
        ctx = AppContext.open(profile, defer_keyring=True)
        errors.bus = ctx.bus
        window.build(ctx)
        log.info("window built")
        if startup_report:
            await _report_startup(startup_report, window, shown=shown, shown_cpu=shown_cpu,
                                  native_window=native_window)
            window.close()
        if screenshot:
            await asyncio.sleep(1.0)
            window.grab().save(screenshot)
            log.info("screenshot saved to %s; closing", screenshot)
            window.close()
        await closed.wait()
        quit_requests.shutting_down = True
        _exit_watchdog()
        await release_window(window)
        return 0

    return run_loop(main, errors=errors)
