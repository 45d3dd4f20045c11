"""Quitting the window from outside: SIGTERM, SIGINT (and SIGHUP: logout, a closed terminal)
take the same orderly path as closing the window, and an exception no task retrieves reaches
the log and the user.

The signal tests run the real ``jawad`` on a private X server, with a start page that sets a
cookie: Chromium writes cookies to disk only every 30 s or when the profile is released, so
the cookie is on disk only if the shutdown ran (a process killed by the signal loses it).
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.events import Event, EventBus, Notice
from jawad_desktop.ui.app.application import UnhandledErrors
from tests.fixtures.gui_process import alive, gui_env, virtual_display, wait_until, webengine_helpers

COOKIE = "jawad_quit_test"


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    with virtual_display() as name:
        yield name


@pytest.fixture(scope="module")
def cookie_page() -> Iterator[tuple[str, list[float]]]:
    """A start page that sets a persistent cookie; yields its URL and the times it was served."""
    served: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            served.append(time.time())
            body = b"<!doctype html><title>Start</title><h1>Start page</h1>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Set-Cookie", f"{COOKIE}=kept; Max-Age=86400; Path=/")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="cookie-page", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", served
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class RunningWindow:
    """``jawad`` on ``display`` with a fresh profile whose start page is ``start_url``."""

    def __init__(self, profile: Path, display: str, start_url: str) -> None:
        (profile / "config").mkdir(parents=True)
        (profile / "config" / "settings.json").write_text(json.dumps({"browser": {"home_url": start_url}}))
        self.profile = profile
        self.log_file = profile / "logs" / "jawad.log"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jawad_desktop", "--profile", str(profile)],
            env=gui_env(display), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )

    def log(self) -> str:
        return self.log_file.read_text(encoding="utf-8") if self.log_file.exists() else ""

    def wait_ready(self, served: list[float]) -> set[int]:
        """Until the window is built and its start page served; returns its helper processes."""
        wait_until(lambda: "window built" in self.log() or self.process.poll() is not None, 60,
                   "the window was not built")
        assert self.process.poll() is None, self.stop_and_report()
        wait_until(lambda: served, 30, "the start page was not loaded")
        wait_until(lambda: len(webengine_helpers(self.process.pid)) >= 2, 30, "no QtWebEngine helper started")
        time.sleep(1.5)  # the deferred start-up (the assistant, the page driver) after the start page
        return webengine_helpers(self.process.pid)

    def stop_and_report(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        _out, err = self.process.communicate(timeout=10)
        return f"exit code {self.process.returncode}\nstderr:\n{err[-3000:]}\nlog:\n{self.log()[-3000:]}"

    def cookies(self) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for database in self.profile.rglob("Cookies"):
            with sqlite3.connect(database) as db:
                found += db.execute("SELECT name, value FROM cookies").fetchall()
        return found


@pytest.fixture
def start_window(
    tmp_path: Path, display: str, cookie_page: tuple[str, list[float]]
) -> Iterator[Callable[[], tuple[RunningWindow, set[int]]]]:
    windows: list[RunningWindow] = []

    def start() -> tuple[RunningWindow, set[int]]:
        url, served = cookie_page
        served.clear()
        window = RunningWindow(tmp_path / f"profile{len(windows)}", display, url)
        windows.append(window)
        return window, window.wait_ready(served)

    yield start
    for window in windows:
        if window.process.poll() is None:
            window.process.kill()
            window.process.wait(10)


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_quit_signal_closes_the_window_the_orderly_way(
    signal_name: str, start_window: Callable[[], tuple[RunningWindow, set[int]]]
) -> None:
    window, helpers = start_window()
    sent = time.monotonic()
    window.process.send_signal(getattr(signal, signal_name))
    try:
        window.process.wait(5)
    except subprocess.TimeoutExpired:
        report = window.stop_and_report()
        raise AssertionError(f"the window did not quit within 5 s of {signal_name}\n{report}") from None
    took = time.monotonic() - sent
    _out, err = window.process.communicate()
    log = window.log()

    assert window.process.returncode == 0, f"exit code {window.process.returncode}\n{err[-3000:]}\n{log[-3000:]}"
    assert took < 3.0
    assert f"{signal_name} received: closing the window" in log
    assert "shutdown took longer" not in log
    assert "Traceback" not in log and "Traceback" not in err, log[-3000:] + err[-3000:]
    # Chromium's helpers end with the process (the renderer as soon as the page is released).
    wait_until(lambda: not alive(helpers), 2, f"QtWebEngine helpers {sorted(alive(helpers))} outlived the window")
    # The profile was released before the process ended: the cookie set a moment ago is on disk.
    assert (COOKIE, "kept") in window.cookies()


def test_a_second_signal_while_quitting_ends_the_process_at_once(
    start_window: Callable[[], tuple[RunningWindow, set[int]]],
) -> None:
    window, helpers = start_window()
    window.process.send_signal(signal.SIGTERM)
    time.sleep(0.05)  # the orderly shutdown takes about 0.6 s (the profile writes its cookies)
    window.process.send_signal(signal.SIGTERM)
    window.process.wait(5)
    assert window.process.returncode == 128 + signal.SIGTERM, window.stop_and_report()
    assert "SIGTERM while shutting down: exiting now" in window.log()
    wait_until(lambda: not alive(helpers), 2, f"QtWebEngine helpers {sorted(alive(helpers))} outlived the window")


QUIT_REQUEST_SCRIPT = """
import asyncio, sys
from jawad_desktop.ui.app import application as gui

app = gui.create_application(headless=True)
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

window = QWidget()
window.show()

async def main():
    requests = gui.QuitRequests(window.close)
    requests.install(asyncio.get_running_loop(), app)
    QTimer.singleShot(100, app.quit)  # what the session manager or the desktop's Quit does
    while window.isVisible():
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)  # the orderly shutdown still runs on the loop
    print("orderly shutdown done", flush=True)
    return 3

gui.end_process(gui.run_loop(main))
"""


def test_a_quit_request_from_the_platform_closes_the_window_and_lets_the_shutdown_run() -> None:
    """QApplication.quit() (the session ending, the desktop's Quit) would end Qt's loop under the
    running shutdown: it closes the window instead, and the loop ends when ``main`` returns."""
    out = subprocess.run([sys.executable, "-c", QUIT_REQUEST_SCRIPT], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 3, out.stderr[-3000:]
    assert "orderly shutdown done" in out.stdout
    assert "Traceback" not in out.stderr


# -- the loop's exception handler ---------------------------------------------------------------


def _notices(bus: EventBus) -> list[Notice]:
    seen: list[Event] = []
    bus.subscribe(seen.append)
    return seen  # type: ignore[return-value]


def test_an_exception_no_task_retrieves_is_logged_and_told_to_the_user(
    aio_loop: asyncio.AbstractEventLoop, arun: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    bus = EventBus()
    notices = _notices(bus)

    async def fails() -> None:
        raise ValueError("the disk is full")

    async def scenario() -> None:
        task = asyncio.ensure_future(fails())
        await asyncio.sleep(0.05)
        assert task.done()
        del task  # never awaited: asyncio reports it when the task is collected

    aio_loop.set_exception_handler(UnhandledErrors(bus))
    try:
        with caplog.at_level(logging.ERROR, logger="jawad.ui.app"):
            arun(scenario())
            gc.collect()
    finally:
        aio_loop.set_exception_handler(None)

    assert notices == [Notice(level="error", text="Something went wrong in the background: "
                                                  "ValueError: the disk is full. Details are in the log file.")]
    records = [r for r in caplog.records if r.name == "jawad.ui.app"]
    assert len(records) == 1 and records[0].levelno == logging.ERROR
    assert "exception was never retrieved" in records[0].getMessage()
    exc_info = records[0].exc_info
    assert exc_info is not None and isinstance(exc_info[1], ValueError) and exc_info[1].args == ("the disk is full",)


def test_the_exception_handler_keeps_cancellation_quiet_and_logs_without_a_bus(
    aio_loop: asyncio.AbstractEventLoop, caplog: pytest.LogCaptureFixture
) -> None:
    bus = EventBus()
    notices = _notices(bus)
    handler = UnhandledErrors(bus)
    with caplog.at_level(logging.DEBUG, logger="jawad"):
        handler(aio_loop, {"message": "Exception in callback", "exception": asyncio.CancelledError()})
    assert notices == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="jawad"):
        UnhandledErrors()(aio_loop, {"message": "Exception in callback", "exception": KeyError("page")})
    # No bus yet (the window is not built): the user-facing text goes to the log too.
    texts = [r.getMessage() for r in caplog.records]
    assert any(t.startswith("Exception in callback") for t in texts)
    assert any("Something went wrong in the background: KeyError: 'page'" in t for t in texts)
