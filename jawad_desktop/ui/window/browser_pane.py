"""The embedded browser: tabs of QWebEngineViews with address bar, back, forward, reload and progress.

The agent drives the same view through the page driver; the user watches and can browse too.
The profile is persistent (cookies kept) in the data folder unless off-the-record is chosen.
"""

from __future__ import annotations

import functools

import shiboken6
from PySide6 import QtCore
from PySide6.QtCore import QUrl, Signal
from PySide6.QtWebEngineCore import QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QStackedWidget,
    QTabBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.browser.guarded_page import GuardedWebPage, install_page_script, show_builtin_page
from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.theme import Colours


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


START_PAGE_TITLE = "Jawad Desktop"


def start_page(colours: Colours) -> str:
    """The built-in start page in the theme's colours (it stayed white in the dark themes)."""
    c = colours
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{START_PAGE_TITLE}</title>
<style>html{{background:{c.window}}}
body{{font-family:sans-serif;max-width:36em;margin:3em auto;padding:0 1.5em;color:{c.text};line-height:1.5}}
h1{{font-weight:600;font-size:{theme.TYPE_SCALE['title']}px}}</style></head><body>
<h1>Jawad's browser</h1>
<p>This is the browser Jawad works in. Type an address or a search above, or ask Jawad to
read, click, fill or scroll a page: you watch every step, and Harbor asks before anything
that acts on a site.</p></body></html>"""


class BrowserPane(QWidget):
    """The browser with its tab bar and navigation bar. ``page_ready`` fires after each successful
    load of the tab shown. A page's popups and ``target=_blank`` links open as tabs
    (``browser/tabs.PageTabs``); the bar shows when there are two or more. ``view`` and ``page``
    are the tab shown."""

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
        """``shortcuts=False``: the keyboard shortcuts and the tab titles' elision come with
        ``add_shortcuts`` (the window's first frame: the first use of Qt's namespace, even importing
        ``Qt``, builds all of PySide's ~90 Qt enums, 20-30 ms; a second tab cannot open before)."""
        from jawad_desktop.browser.tabs import PageTabs

        super().__init__(parent)
        self.search_template = search_template
        self.profile = profile
        self._disposed = False
        self.loads_finished = 0  # page loads ended (the start page's included)
        self.stack = QStackedWidget(self)
        self.tab_bar = QTabBar(self)
        self.tab_bar.setAccessibleName("Tabs")
        self.tab_bar.setAutoHide(True)  # one tab: no bar
        self.tab_bar.setTabsClosable(True)
        self.tab_bar.setDocumentMode(True)
        self.tab_bar.setExpanding(False)
        self.tabs = PageTabs(profile, self._new_view, parent=self)
        self.tabs.tab_added.connect(self._tab_added)
        self.tabs.tab_removed.connect(self.tab_bar.removeTab)
        self.tabs.current_changed.connect(self._show_tab)
        self.tabs.tab_changed.connect(self._retitle)
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
        bar.setContentsMargins(*[theme.SPACE["xxs"]] * 4)
        for widget in (self.back_button, self.forward_button, self.reload_button):
            bar.addWidget(widget)
        bar.addWidget(self.address, 1)
        self.summarize_button = QToolButton(self)
        self.summarize_button.setText("Summarize")
        self.summarize_button.setAccessibleName("Summarize this page")
        self.summarize_button.setToolTip("Ask Jawad to summarize this page (Ctrl+Shift+S)")
        self.summarize_button.clicked.connect(self.summarize_requested)
        bar.addWidget(self.summarize_button)
        # Into its own window and back (ui.window.browser_detach names it and gives it its icon).
        self.detach_button = self._button("⧉", "Open the browser in its own window")
        bar.addWidget(self.detach_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.tab_bar)
        layout.addLayout(bar)
        layout.addWidget(self.progress)
        layout.addWidget(self.stack, 1)
        first = self._new_view()
        page = GuardedWebPage(profile, first)  # made for the agent's driver, which adopts it
        first.setPage(page)
        self.tabs.adopt(first, page)
        self.tab_bar.currentChanged.connect(self.tabs.set_current)
        self.tab_bar.tabCloseRequested.connect(self.tabs.close)
        self.back_button.clicked.connect(lambda: self.view.back())
        self.forward_button.clicked.connect(lambda: self.view.forward())
        self.reload_button.clicked.connect(lambda: self.view.reload())
        self.address.returnPressed.connect(self._go)
        if shortcuts:
            self.add_shortcuts()
        # A new page has no history yet (``_update_buttons`` asks Chromium once a page has loaded).
        self.back_button.setEnabled(False)
        self.forward_button.setEnabled(False)

    @property
    def view(self) -> QWebEngineView:
        """The view of the tab shown."""
        return self.tabs.current_view

    @property
    def page(self) -> GuardedWebPage:
        """The page of the tab shown."""
        return self.tabs.current_page

    def _new_view(self) -> QWebEngineView:
        view = QWebEngineView(self.stack)
        view.setAccessibleName("Web page")
        self.stack.addWidget(view)
        view.urlChanged.connect(functools.partial(self._url_changed, view))
        view.loadStarted.connect(functools.partial(self._load_started, view))
        view.loadProgress.connect(functools.partial(self._load_progress, view))
        view.loadFinished.connect(functools.partial(self._load_finished, view))
        return view

    def _button(self, text: str, name: str) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setAccessibleName(name)
        button.setToolTip(name)
        return button

    def add_shortcuts(self) -> None:
        """Back, Forward and Reload on the platform's keys; Ctrl+Shift+L for the address; Ctrl+W
        closes the tab shown (not the last), Ctrl+Tab and Ctrl+Shift+Tab go to the next and previous;
        and the long tab titles elided at their end (the tab bar shows from the second tab). Qt's action
        and key classes come with them, when the window is built (5 ms with their enums before the frame)."""
        from PySide6.QtGui import QAction, QKeySequence

        self.tab_bar.setElideMode(QtCore.Qt.TextElideMode.ElideRight)
        for button, key in ((self.back_button, QKeySequence.StandardKey.Back),
                            (self.forward_button, QKeySequence.StandardKey.Forward),
                            (self.reload_button, QKeySequence.StandardKey.Refresh)):
            button.setShortcut(QKeySequence(key))
        for keys, slot in (("Ctrl+Shift+L", self.focus_address), ("Ctrl+W", self.close_tab),
                           ("Ctrl+Tab", lambda: self.next_tab(1)), ("Ctrl+Shift+Tab", lambda: self.next_tab(-1))):
            action = QAction(self)
            action.setShortcut(QKeySequence(keys))
            # In the browser only: elsewhere in the window these keys are the widgets' own.
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    def close_tab(self) -> None:
        """Close the tab shown, unless it is the only one."""
        self.tabs.close(self.tabs.current)

    def next_tab(self, step: int) -> None:
        """Show the next tab (``step`` 1) or the previous one (-1), round the end."""
        count = len(self.tabs.pages)
        if count > 1:
            self.tabs.set_current((self.tabs.current + step) % count)

    def install_page_script(self) -> None:
        """The agent's page library in every tab's documents from now on (the driver injects it
        into one already shown when it needs it)."""
        for page in self.tabs.pages:
            install_page_script(page)

    def show_start_page(self, home_url: str = "about:blank") -> None:
        """The home page, or a short built-in page that says what this browser is for."""
        if home_url and home_url != "about:blank":
            self.load(home_url)
        else:
            show_builtin_page(self.view.page(), start_page(theme.current().colours))

    def restyle_start_page(self) -> None:
        """The theme changed: the built-in start page, if it is on show, takes its colours."""
        if self.view.url() == QUrl("about:blank") and self.view.title() == START_PAGE_TITLE:
            show_builtin_page(self.view.page(), start_page(theme.current().colours))

    def dispose(self) -> None:
        """Delete the pages now: a profile released while a page lives aborts Chromium."""
        if self._disposed:
            return
        self._disposed = True
        # Deleting a view deletes its page (its child) now; a lone page deletion would let the
        # view lazily create a default page that outlives the default profile.
        self.tabs.dispose()
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

    # -- tabs ------------------------------------------------------------------------------------

    def _tab_added(self, index: int) -> None:
        self.tab_bar.insertTab(index, self.tabs.title(index))

    def _retitle(self, index: int) -> None:
        title = self.tabs.title(index)
        self.tab_bar.setTabText(index, title if len(title) <= 28 else title[:27] + "…")
        self.tab_bar.setTabToolTip(index, f"{title}\n{self.tabs.pages[index].url().toDisplayString()}")

    def _show_tab(self, index: int) -> None:
        if not 0 <= index < len(self.tabs.views):
            return
        view = self.tabs.views[index]
        self.stack.setCurrentWidget(view)
        self.tab_bar.setCurrentIndex(index)
        self._url_changed(view, view.url())
        if view.page() is not None and getattr(view.page(), "loading", False):
            self.progress.show()
        else:
            self.progress.hide()

    # -- the shown tab's loads -----------------------------------------------------------------

    def _url_changed(self, view: QWebEngineView, url: QUrl) -> None:
        if view is not self.view:
            return
        if not self.address.hasFocus():
            # The built-in start page is about:blank underneath: show an empty address bar.
            self.address.setText("" if url.toString() in ("", "about:blank") else url.toDisplayString())
        self._update_buttons()

    def _load_started(self, view: QWebEngineView) -> None:
        if view is not self.view:
            return
        self.progress.setValue(0)
        self.progress.show()

    def _load_progress(self, view: QWebEngineView, value: int) -> None:
        if view is self.view:
            self.progress.setValue(value)

    def _load_finished(self, view: QWebEngineView, ok: bool) -> None:
        if view is not self.view:
            return
        self.loads_finished += 1
        if self.loads_finished == 1:
            self.first_load_finished.emit()
        self.progress.hide()
        self._update_buttons()
        if ok:
            self.page_ready.emit(view.url().toString())

    def _update_buttons(self) -> None:
        if not self.loads_finished:  # nothing loaded yet, nothing to go back to (Chromium asked: 10 ms at start)
            return
        history = self.view.history()
        self.back_button.setEnabled(history.canGoBack())
        self.forward_button.setEnabled(history.canGoForward())
