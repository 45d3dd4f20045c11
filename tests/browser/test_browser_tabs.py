"""The browser pane's tabs, as the user sees them: a page's popup opens as a tab of the pane's tab bar,
the agent's driver follows the tab shown (whether the page, the agent or the user chose it), and
Ctrl+W and Ctrl+Tab work in the browser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWebEngineCore import QWebEngineProfile

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.page import Target
from jawad_desktop.ui.window.browser_pane import BrowserPane

Run = Callable[..., Any]


def test_popups_open_as_tabs_of_the_pane_and_the_agent_follows_the_tab_shown(
        qtbot: Any, web_profile: QWebEngineProfile, page_server: str, arun: Run) -> None:
    pane = BrowserPane(web_profile)
    qtbot.addWidget(pane)
    pane.resize(900, 700)
    pane.show()
    qtbot.waitExposed(pane)
    driver = QtWebEnginePage(pane.view)  # as the window's assistant does
    assert driver.adopted and driver.tab_host is pane.tabs
    form = f"{page_server}/form.html"
    arun(driver.navigate(form))
    assert pane.tab_bar.count() == 1 and not pane.tab_bar.isVisible()  # one tab: no bar
    out = arun(driver.click(Target(selector="#newwin")))
    popup = f"{page_server}/shop/search.html?q=popup"
    assert popup in out.opened_tab
    # The user sees the new tab: the bar, its title, the page and its address.
    assert pane.tab_bar.count() == 2 and pane.tab_bar.isVisible() and pane.tab_bar.currentIndex() == 1
    assert pane.stack.currentWidget() is pane.view is driver.view
    qtbot.waitUntil(lambda: pane.address.text() == popup, timeout=5000)
    qtbot.waitUntil(lambda: pane.tab_bar.tabText(0) == "Contact form", timeout=5000)
    # The user picks the first tab: the agent works there now.
    pane.tab_bar.setCurrentIndex(0)
    assert driver.page is pane.tabs.pages[0] and arun(driver.url()) == form
    assert pane.address.text() == form
    assert arun(driver.call("describe", {"selector": "#newwin"}))["label"] == "Open in a new window"
    # Ctrl+Tab shows the next tab, Ctrl+W closes the tab shown, and never the last one.
    pane.activateWindow()
    qtbot.waitActive(pane)
    pane.view.setFocus()
    qtbot.keyClick(pane.view.focusProxy(), Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert pane.tabs.current == 1 and arun(driver.url()) == popup
    qtbot.keyClick(pane.view.focusProxy(), Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: pane.tab_bar.count() == 1, timeout=2000)
    assert arun(driver.url()) == form and pane.address.text() == form
    qtbot.keyClick(pane.view.focusProxy(), Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert pane.tab_bar.count() == 1 and len(pane.tabs.pages) == 1
    # The driver still drives the tab that is left (its loads are watched).
    arun(driver.navigate(f"{page_server}/shop/jsonld.html"))
    assert arun(driver.call("describe", {"selector": "button.add-to-cart"}))["label"] == "Add to Cart"


def test_a_popup_loading_in_the_background_keeps_its_own_load_state(
        qtbot: Any, web_page: QtWebEnginePage, page_server: str, arun: Run) -> None:
    arun(web_page.navigate(f"{page_server}/form.html"))
    arun(web_page.click(Target(selector="#newwin")))
    tabs = arun(web_page.tabs())
    assert [t.active for t in tabs] == [False, True]
    arun(web_page.switch_tab(0))
    # The tab not shown loads a page: the driver, on the first tab, is not told it is loading.
    background = web_page.tab_host.pages[1]
    background.load(f"{page_server}/shop/jsonld.html")
    qtbot.waitUntil(lambda: background.url().toString().endswith("jsonld.html"), timeout=5000)
    assert arun(web_page.url()).endswith("/form.html")
    arun(web_page.switch_tab(1))  # waits until its document is usable
    assert arun(web_page.call("describe", {"selector": "button.add-to-cart"}))["label"] == "Add to Cart"


def test_closing_the_driver_with_its_profile_deletes_every_tabs_page_first(
        qtbot: Any, page_server: str, arun: Run) -> None:
    import shiboken6

    # A profile of its own, as the window's (which is released when it quits).
    profile = QWebEngineProfile()
    pane = BrowserPane(profile, shortcuts=False)
    qtbot.addWidget(pane)
    pane.resize(800, 600)
    pane.show()
    driver = QtWebEnginePage(pane.view)
    arun(driver.navigate(f"{page_server}/form.html"))
    arun(driver.click(Target(selector="#newwin")))
    arun(driver.switch_tab(0))
    pages = list(pane.tabs.pages)
    assert len(pages) == 2
    arun(driver.close(release_profile=True, settle_s=0))
    assert not any(shiboken6.isValid(p) for p in pages)  # none outlives the profile
