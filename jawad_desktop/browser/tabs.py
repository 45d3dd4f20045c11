"""The browser's tabs: one ``QWebEngineView`` and ``GuardedWebPage`` per tab, sharing a profile.

``PageTabs`` owns the list and which tab is shown. A popup (``window.open``) or a ``target=_blank``
link becomes a new tab whose page Chromium gets back from ``createWindow``, so ``window.opener``
is kept (a sign-in popup can answer the page that opened it), and the new tab is shown unless the
page asked for a background tab. A page's ``window.close()`` closes its tab; the last tab is never
closed. Whoever shows the tabs (the browser pane's tab bar) and whoever drives them (the agent's
page driver, which follows the shown tab) listen to the signals; the views come from a factory, so
the pane puts them in its stack and an offscreen driver makes windows of its own.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6 import QtCore
from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView

from jawad_desktop.browser.guarded_page import GuardedWebPage, install_page_script

log = logging.getLogger("jawad.ui.browser")

ViewFactory = Callable[[], QWebEngineView]


class PageTabs(QObject):
    """The tabs of one browser. ``tab_added(index)``, ``tab_removed(index)`` (the tab is gone from
    the list, its view not yet deleted), ``current_changed(index)`` and ``tab_changed(index)``
    (its title or URL) say what happened; ``views``/``pages`` are in tab order."""

    tab_added = Signal(int)
    tab_removed = Signal(int)
    current_changed = Signal(int)
    tab_changed = Signal(int)

    def __init__(self, profile: QWebEngineProfile, make_view: ViewFactory, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.profile = profile
        self.make_view = make_view
        self.views: list[QWebEngineView] = []
        self.pages: list[GuardedWebPage] = []
        self.current = -1
        self.driver: Any = None  # the agent's page driver: every tab's page asks it about navigations

    # -- the list -----------------------------------------------------------------------------

    def adopt(self, view: QWebEngineView, page: GuardedWebPage) -> int:
        """Make ``view`` (showing ``page``) a tab; the first one becomes the current tab."""
        page.tab_host = self
        if self.driver is not None:
            page.driver = self.driver
        self.views.append(view)
        self.pages.append(page)
        page.windowCloseRequested.connect(functools.partial(self._close_requested, page))
        page.titleChanged.connect(functools.partial(self._changed, page))
        page.urlChanged.connect(functools.partial(self._changed, page))
        index = len(self.pages) - 1
        self.tab_added.emit(index)
        if self.current < 0:
            self.set_current(index)
        return index

    def open_from(self, opener: QWebEnginePage, kind: QWebEnginePage.WebWindowType) -> GuardedWebPage:
        """A new tab for a window ``opener`` opens; its page goes back to Chromium (``createWindow``)."""
        view = self.make_view()
        page = GuardedWebPage(self.profile, view, self.driver)
        page.opener_url = opener.url().toString()
        install_page_script(page)
        view.setPage(page)
        index = self.adopt(view, page)
        log.info("a page opened a new tab (%s)", kind.name)
        if kind is not QWebEnginePage.WebWindowType.WebBrowserBackgroundTab:
            self.set_current(index)
        return page

    def set_driver(self, driver: Any) -> None:
        self.driver = driver
        for page in self.pages:
            page.driver = driver

    def set_current(self, index: int) -> bool:
        if not 0 <= index < len(self.pages):
            return False
        if index != self.current:
            self.current = index
            self.current_changed.emit(index)
        return True

    def close(self, index: int) -> bool:
        """Close tab ``index``; False for the last tab (a browser keeps one) or an unknown one."""
        if len(self.pages) <= 1 or not 0 <= index < len(self.pages):
            return False
        view = self.views.pop(index)
        page = self.pages.pop(index)
        was_current = index == self.current
        if index < self.current or (was_current and self.current >= len(self.pages)):
            self.current -= 1
        self.tab_removed.emit(index)
        if was_current:
            self.current_changed.emit(self.current)
        # The page before its view's deletion finishes: a page must not outlive its profile.
        page.tab_host = None
        if shiboken6.isValid(view):
            view.setPage(None)  # type: ignore[arg-type]
            view.deleteLater()
        if shiboken6.isValid(page):
            page.deleteLater()
        return True

    def dispose(self) -> None:
        """Delete every tab now (a profile released while a page lives aborts Chromium)."""
        while self.views:
            view, page = self.views.pop(), self.pages.pop()
            if shiboken6.isValid(view):
                shiboken6.delete(view)
            if shiboken6.isValid(page):
                shiboken6.delete(page)
        self.current = -1

    def index_of(self, page: QWebEnginePage) -> int:
        for i, known in enumerate(self.pages):
            if known is page:
                return i
        return -1

    @property
    def current_view(self) -> QWebEngineView:
        return self.views[self.current]

    @property
    def current_page(self) -> GuardedWebPage:
        return self.pages[self.current]

    def title(self, index: int) -> str:
        page = self.pages[index]
        return page.title() or _shown_url(page.url()) or "New tab"

    # -- what the pages say -------------------------------------------------------------------

    def _close_requested(self, page: QWebEnginePage, *_: object) -> None:
        index = self.index_of(page)
        if index >= 0 and not self.close(index):
            log.info("a page asked to close the only tab; it stays open")

    def _changed(self, page: QWebEnginePage, *_: object) -> None:
        index = self.index_of(page)
        if index >= 0:
            self.tab_changed.emit(index)


def _shown_url(url: QUrl) -> str:
    text = url.toDisplayString()
    return "" if text in ("", "about:blank") else text


def offscreen_tabs(view: QWebEngineView, page: GuardedWebPage) -> PageTabs:
    """Tabs for a view no browser pane shows (the CLI's offscreen page, the tests'): each new tab
    is a window of its own, owned by ``view``, of its size."""

    def make_view() -> QWebEngineView:
        new = QWebEngineView(view)
        new.setWindowFlag(QtCore.Qt.WindowType.Window)  # owned by the first view, deleted with it
        new.resize(view.size())
        new.show()
        return new

    tabs = PageTabs(page.profile(), make_view, parent=view)
    tabs.adopt(view, page)
    return tabs
