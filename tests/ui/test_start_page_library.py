"""The app's own start page goes without the agent's page library (200 KB of script, 2 MB of the
page's process at every start); the next web page has it, and the agent still reads the start page."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from jawad_desktop.browser.guarded_page import WORLD
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.loopback import send_html, serving


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        send_html(self, "<title>Shop</title><h1>A kettle</h1><button>Add to cart</button>")

    def log_message(self, *_args: Any) -> None:
        pass


def _library(window: MainWindow, qtbot: Any) -> str:
    """``typeof window.__jawad`` in the library's world of the document shown."""
    got: list[Any] = []
    window.browser.view.page().runJavaScript("typeof window.__jawad", WORLD, got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    return str(got[0])


def test_the_start_page_goes_without_the_page_library(make_window: Any, profile_dir: Path, qtbot: Any,
                                                       arun: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    browser = window.browser
    qtbot.waitUntil(lambda: browser.view.title() == "Jawad Desktop" and browser.loads_finished > 0, timeout=10_000)
    assert _library(window, qtbot) == "undefined"
    # Its theme changing reloads it, still without.
    window.ctx.settings.ui.theme = "dark"
    window.apply_appearance()
    qtbot.waitUntil(lambda: browser.loads_finished > 1, timeout=10_000)
    assert _library(window, qtbot) == "undefined"
    # The agent asked about it reads it all the same (the driver injects the library when it acts).
    snapshot = arun(window.driver.snapshot())
    assert "Jawad's browser" in snapshot.text

    with serving(_Page, "shop") as url:
        loads = browser.loads_finished
        browser.load(url + "/kettle")
        qtbot.waitUntil(lambda: browser.loads_finished > loads and browser.view.title() == "Shop", timeout=10_000)
        assert _library(window, qtbot) == "object"  # the next document has the library from its start
