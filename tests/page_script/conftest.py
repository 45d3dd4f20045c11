"""Small pages written in the tests, served on loopback and opened in real QtWebEngine (offscreen),
and a door to the page library's entry points (``window.__jawad``) there.

``open_html(html)`` serves ``html`` at a new address (``open_html(html, frames={"f.html": ...})``
with pages its iframes load, same origin) and navigates the test page to it; ``call(name, *args)``
runs ``J.call(name, args)`` in the library's isolated world and gives its decoded answer;
``js(source)`` runs any expression there and gives its value.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.browser.guarded_page import WORLD
from tests.servers.loopback import serving

Run = Callable[..., Any]


class _Pages(BaseHTTPRequestHandler):
    pages: dict[str, str] = {}

    def do_GET(self) -> None:
        body = self.pages.get(self.path.split("?", 1)[0])
        if body is None:
            self.send_error(404)
            return
        data = body.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def inline_server() -> Iterator[tuple[str, dict[str, str]]]:
    """A loopback server for pages the tests write: its base URL and the pages it serves by path."""
    pages: dict[str, str] = {}
    handler = type("Pages", (_Pages,), {"pages": pages})
    with serving(handler, "inline-pages") as url:
        yield url, pages


_numbers = itertools.count(1)


@pytest.fixture
def open_html(web_page: QtWebEnginePage, inline_server: tuple[str, dict[str, str]], arun: Run) -> Callable[..., str]:
    base, pages = inline_server

    def go(html: str, *, frames: dict[str, str] | None = None) -> str:
        folder = f"/p{next(_numbers)}/"
        for name, source in (frames or {}).items():
            pages[folder + name] = source
        pages[folder] = html if "<html" in html.lower() else f"<!doctype html><html><body>{html}</body></html>"
        arun(web_page.navigate(base + folder), timeout=30)
        return base + folder

    return go


@pytest.fixture
def call(web_page: QtWebEnginePage, arun: Run) -> Callable[..., Any]:
    def run(name: str, *args: Any) -> Any:
        return arun(web_page.call(name, *args), timeout=30)

    return run


@pytest.fixture
def js(web_page: QtWebEnginePage, arun: Run) -> Callable[[str], Any]:
    """``js("expression")``: its value, as JSON, from the library's isolated world."""

    def run(source: str) -> Any:
        raw = arun(web_page.run_js(f"JSON.stringify((function(){{return {source};}})())", world=WORLD), timeout=30)
        return json.loads(raw) if isinstance(raw, str) and raw else None

    return run
