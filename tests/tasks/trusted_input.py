"""Popups opened as tabs of their own for the reference solutions of the task pages: ``TabbedWebPage``
keeps ``window.opener`` and gives each popup a driver of its own, with the harness's error catcher
in the first page (keys, hover and drag are the page driver's own tools now)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.browser.guarded_page import GuardedWebPage


class TabbedWebPage(GuardedWebPage):
    """The product's page, but a new window it opens (``window.open``, ``target=_blank``) becomes a
    tab of its own (a view driven by a ``QtWebEnginePage`` of its own), which keeps its opener; the
    product's pages open it as a tab of their ``PageTabs``, which the driver follows
    (``tests/browser/test_browser_tools.py`` solves this task that way)."""

    def __init__(self, profile: QWebEngineProfile, parent: QWebEngineView, qtbot: Any) -> None:
        super().__init__(profile, parent)
        self.qtbot = qtbot
        self.tabs: list[QtWebEnginePage] = []

    def createWindow(self, _type: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        view = QWebEngineView()
        self.qtbot.addWidget(view)
        view.resize(480, 560)
        view.show()
        tab = QtWebEnginePage(view, profile=self.profile())
        self.tabs.append(tab)
        return tab.page

    async def wait_for_tab(self, timeout: float = 10.0) -> QtWebEnginePage:
        """The newest tab, once its document can be used."""
        deadline = time.monotonic() + timeout
        while not self.tabs:
            if time.monotonic() > deadline:
                raise AssertionError("no popup opened")
            await asyncio.sleep(0.05)
        tab = self.tabs[-1]
        if not await tab.wait_for(selector="form", timeout=max(0.1, deadline - time.monotonic())):
            raise AssertionError("the popup showed no form")
        return tab
