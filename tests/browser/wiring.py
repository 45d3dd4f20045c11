"""A page wired to Harbor for the browser tests, assembled part by part as the assistant does it:
Harbor with its grants in ``config_dir``, the page cache in ``data_dir``, the ``BrowserSession``,
the ``HarborGate`` asking through ``bus`` with the session as its inspector, and the page's own
navigation and download guards when it has them (the Qt driver)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.harbor import Harbor, HarborGate
from jawad_desktop.core.store.page_cache import PageCache
from jawad_desktop.core.tools.browser import (
    BrowserSession,
    inspector_for,
    make_download_guard,
    make_navigation_guard,
)
from jawad_desktop.core.tools.page import Page


@dataclass
class WiredBrowser:
    session: BrowserSession
    harbor: Harbor
    gate: HarborGate
    cache: PageCache

    def close(self) -> None:
        self.cache.close()


def wire_browser(page: Page, bus: EventBus, *, config_dir: Path, data_dir: Path, settings: Settings | None = None,
                 highlight_s: float | None = None, timeout_s: float | None = None) -> WiredBrowser:
    browser = (settings or Settings()).browser
    harbor = Harbor.in_folder(config_dir, bus=bus)
    cache = PageCache.open(data_dir)
    session = BrowserSession(page, harbor=harbor, cache=cache, search_engine=browser.search_engine,
                             max_elements=browser.max_elements,
                             highlight_s=browser.highlight_ms / 1000 if highlight_s is None else highlight_s)
    gate = HarborGate(harbor, bus, timeout_s=timeout_s or browser.permission_timeout_s,
                      inspector=inspector_for(session))
    if hasattr(page, "navigation_guard"):
        page.navigation_guard = make_navigation_guard(harbor)
    if hasattr(page, "download_guard"):
        page.download_guard = make_download_guard(gate, bus)
    return WiredBrowser(session=session, harbor=harbor, gate=gate, cache=cache)
