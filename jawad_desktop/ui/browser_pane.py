"""The embedded browser: a QWebEngineView with address bar, back, forward, reload and progress.

The agent drives the same view through the page driver; the user watches and can browse too.
The profile is persistent (cookies kept) in the data folder unless off-the-record is chosen.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QProgressBar, QToolButton, QVBoxLayout, QWidget

log = logging.getLogger("jawad.ui.browser")

# The isolated JavaScript world of the agent's page library (core/tools/js/jawad_page.js).
WORLD = int(QWebEngineScript.ScriptWorldId.ApplicationWorld)
SCRIPT_NAME = "jawad-page-library"


def normalise_address(text: str, search_template: str) -> QUrl:
    """What the user typed as a URL: a URL as is, a bare host with https, else a search."""
    text = text.strip()
    if not text:
        return QUrl("about:blank")
    if "://" in text or text.startswith(("about:", "data:", "file:")):
        return QUrl(text)
    if " " not in text and ("." in text or text.startswith("localhost")):
        scheme = "http://" if text.startswith(("localhost", "127.")) else "https://"
        return QUrl(scheme + text)
    encoded = bytes(QUrl.toPercentEncoding(text).data()).decode()
    return QUrl(search_template.replace("{query}", encoded))


START_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Jawad Desktop</title>
<style>body{font-family:sans-serif;max-width:36em;margin:3em auto;color:#333;line-height:1.5}
h1{font-weight:600;font-size:1.5em}code{background:#eee;padding:0 .3em}</style></head><body>
<h1>Jawad's browser</h1>
<p>This is the browser Jawad works in. Type an address or a search above, or ask Jawad to
read, click, fill or scroll a page: you watch every step, and Harbor asks before anything
that acts on a site.</p></body></html>"""


def make_profile(storage: Path | None, parent: QWidget | None = None) -> QWebEngineProfile:
    """A persistent profile under ``storage``, or an off-the-record one when None."""
    if storage is None:
        return QWebEngineProfile(parent)
    storage.mkdir(parents=True, exist_ok=True)
    # A named profile: Qt 6's default profile is off the record (cookies would not be kept).
    profile = QWebEngineProfile("jawad", parent)
    profile.setPersistentStoragePath(str(storage / "storage"))
    profile.setCachePath(str(storage / "cache"))
    profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.ForcePersistentCookies)
    return profile


class GuardedWebPage(QWebEnginePage):
    """A QWebEnginePage that asks its driver (the agent's ``page_driver.QtWebEnginePage``, once
    one drives it) about navigations an agent action starts, opens new-window links in place,
    and answers the page's JavaScript dialogs itself while the agent acts (a modal dialog would
    block the agent and the window; confirm and prompt get Cancel). ``loading`` is true from a
    load's start to its end."""

    def __init__(self, profile: QWebEngineProfile, parent: QWidget | None, driver: Any = None) -> None:
        super().__init__(profile, parent)
        self.driver = driver
        self.loading = False
        self._popups: list[QWebEnginePage] = []
        self.loadStarted.connect(self._load_started)
        self.loadFinished.connect(self._load_finished)

    def _load_started(self) -> None:
        self.loading = True

    def _load_finished(self, _ok: bool) -> None:
        self.loading = False

    def _acting(self) -> bool:
        return self.driver is not None and self.driver._agent_depth > 0

    def createWindow(self, _type: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        # One page the user watches: a link meant for a new window opens here instead. A throwaway
        # page receives the new window's first navigation and hands its URL over.
        catcher = QWebEnginePage(self.profile(), self)
        self._popups.append(catcher)

        def hand_over(url: QUrl) -> None:
            if url.isEmpty() or not shiboken6.isValid(catcher):
                return
            catcher.urlChanged.disconnect(hand_over)
            self._popups.remove(catcher)
            catcher.deleteLater()
            self.load(url)

        catcher.urlChanged.connect(hand_over)
        return catcher

    def javaScriptAlert(self, securityOrigin: QUrl | str, msg: str) -> None:
        if self._acting():
            self.driver.dialogs.append(f'alert: "{msg}"')
            return
        super().javaScriptAlert(securityOrigin, msg)

    def javaScriptConfirm(self, securityOrigin: QUrl | str, msg: str) -> bool:
        if self._acting():
            self.driver.dialogs.append(f'confirm: "{msg}" (Jawad answered Cancel)')
            return False
        return bool(super().javaScriptConfirm(securityOrigin, msg))

    def javaScriptPrompt(self, securityOrigin: QUrl | str, msg: str, defaultValue: str) -> tuple[bool, str]:
        if self._acting():
            self.driver.dialogs.append(f'prompt: "{msg}" (Jawad answered Cancel)')
            return False, ""
        return super().javaScriptPrompt(securityOrigin, msg, defaultValue)

    def acceptNavigationRequest(
        self, url: QUrl | str, type: QWebEnginePage.NavigationType, isMainFrame: bool
    ) -> bool:
        target = url.toString() if isinstance(url, QUrl) else str(url)
        if not isMainFrame or self.driver is None:
            return True
        return bool(self.driver._allow_navigation(target))


def install_page_script(page: QWebEnginePage) -> None:
    """Inject the agent's page library into every document ``page`` loads, subframes included,
    in its own isolated world (the page's scripts can neither see nor change it)."""
    from jawad_desktop.core.tools.page import page_script

    scripts = page.scripts()
    for old in scripts.find(SCRIPT_NAME):
        scripts.remove(old)
    script = QWebEngineScript()
    script.setName(SCRIPT_NAME)
    script.setSourceCode(page_script())
    script.setWorldId(WORLD)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentReady)
    script.setRunsOnSubFrames(True)
    scripts.insert(script)


class BrowserPane(QWidget):
    """The browser with its navigation bar. ``page_ready`` fires after each successful load."""

    page_ready = Signal(str)  # url
    summarize_requested = Signal()  # the Summarize button: the window asks the agent (/summarize)
    first_load_finished = Signal()  # the first page (the start page) has loaded

    def __init__(
        self,
        profile: QWebEngineProfile,
        *,
        search_template: str = "https://html.duckduckgo.com/html/?q={query}",
        shortcuts: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        """``shortcuts=False``: the keyboard shortcuts come with ``add_shortcuts`` (the window's
        first frame: making a QKeySequence builds all of PySide's Qt enums, 30 ms)."""
        super().__init__(parent)
        self.search_template = search_template
        self.profile = profile
        self._disposed = False
        self.loads_finished = 0  # page loads ended (the start page's included)
        self.view = QWebEngineView(self)
        # Made for the agent's driver, which adopts it when the assistant starts.
        self.page = GuardedWebPage(profile, self.view)
        self.view.setPage(self.page)
        self.view.setAccessibleName("Web page")
        self.back_button = self._button("◀", "Back")
        self.forward_button = self._button("▶", "Forward")
        self.reload_button = self._button("⟳", "Reload")
        self.address = QLineEdit(self)
        self.address.setAccessibleName("Address")
        self.address.setPlaceholderText("Type an address or search")
        self.progress = QProgressBar(self)
        self.progress.setAccessibleName("Page load progress")
        self.progress.setMaximumHeight(4)
        self.progress.setTextVisible(False)
        self.progress.setRange(0, 100)
        self.progress.hide()
        bar = QHBoxLayout()
        bar.setContentsMargins(2, 2, 2, 2)
        for widget in (self.back_button, self.forward_button, self.reload_button):
            bar.addWidget(widget)
        bar.addWidget(self.address, 1)
        self.summarize_button = QToolButton(self)
        self.summarize_button.setText("Summarize")
        self.summarize_button.setAccessibleName("Summarize this page")
        self.summarize_button.setToolTip("Ask Jawad to summarize this page (Ctrl+Shift+S)")
        self.summarize_button.clicked.connect(self.summarize_requested)
        bar.addWidget(self.summarize_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.progress)
        layout.addWidget(self.view, 1)
        self.back_button.clicked.connect(self.view.back)
        self.forward_button.clicked.connect(self.view.forward)
        self.reload_button.clicked.connect(self.view.reload)
        self.address.returnPressed.connect(self._go)
        self.view.urlChanged.connect(self._url_changed)
        self.view.loadStarted.connect(self._load_started)
        self.view.loadProgress.connect(self.progress.setValue)
        self.view.loadFinished.connect(self._load_finished)
        if shortcuts:
            self.add_shortcuts()
        # A new page has no history yet (asking Chromium for it costs 10 ms at start-up).
        self.back_button.setEnabled(False)
        self.forward_button.setEnabled(False)

    def _button(self, text: str, name: str) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setAccessibleName(name)
        button.setToolTip(name)
        return button

    def add_shortcuts(self) -> None:
        """Back, Forward and Reload on the platform's keys; Ctrl+Shift+L for the address."""
        for button, key in ((self.back_button, QKeySequence.StandardKey.Back),
                            (self.forward_button, QKeySequence.StandardKey.Forward),
                            (self.reload_button, QKeySequence.StandardKey.Refresh)):
            button.setShortcut(QKeySequence(key))
        focus = QAction(self)
        focus.setShortcut(QKeySequence("Ctrl+Shift+L"))
        focus.triggered.connect(self.focus_address)
        self.addAction(focus)

    def install_page_script(self) -> None:
        """The agent's page library in every document from now on (the driver injects it into
        one already shown when it needs it)."""
        install_page_script(self.page)

    def show_start_page(self, home_url: str = "about:blank") -> None:
        """The home page, or a short built-in page that says what this browser is for."""
        if home_url and home_url != "about:blank":
            self.load(home_url)
        else:
            self.view.setHtml(START_PAGE, QUrl("about:blank"))

    def dispose(self) -> None:
        """Delete the page now: a profile released while its page lives aborts Chromium."""
        if self._disposed:
            return
        self._disposed = True
        # Deleting the view deletes its page (its child) now; a lone page deletion would let
        # the view lazily create a default page that outlives the default profile.
        shiboken6.delete(self.view)
        # Then the profile: its storage folder must not be in use by two profiles at once (a
        # window opened again on the same profile in this process would hang its page loads).
        if shiboken6.isValid(self.profile):
            shiboken6.delete(self.profile)

    def focus_address(self) -> None:
        self.address.setFocus()
        self.address.selectAll()

    def load(self, url: str | QUrl) -> None:
        self.view.load(QUrl(url) if isinstance(url, str) else url)

    def _go(self) -> None:
        self.view.load(normalise_address(self.address.text(), self.search_template))
        self.view.setFocus()

    def _url_changed(self, url: QUrl) -> None:
        if not self.address.hasFocus():
            # The built-in start page is about:blank underneath: show an empty address bar.
            self.address.setText("" if url.toString() in ("", "about:blank") else url.toDisplayString())
        self._update_buttons()

    def _load_started(self) -> None:
        self.progress.setValue(0)
        self.progress.show()

    def _load_finished(self, ok: bool) -> None:
        self.loads_finished += 1
        if self.loads_finished == 1:
            self.first_load_finished.emit()
        self.progress.hide()
        self._update_buttons()
        if ok:
            self.page_ready.emit(self.view.url().toString())

    def _update_buttons(self) -> None:
        history = self.view.history()
        self.back_button.setEnabled(history.canGoBack())
        self.forward_button.setEnabled(history.canGoForward())
