"""The page the agent drives, and its profile: ``GuardedWebPage`` asks its driver about the
navigations an agent action starts, opens popups as tabs and answers JavaScript dialogs while the
agent acts; ``install_page_script`` injects the page library into every document it loads (but the
app's own start page, ``show_builtin_page``);
``make_profile`` is the persistent (or off-the-record) profile the window's and the terminal's
pages share. A document loaded while the agent drives also gets the guard of script addresses
(``core/tools/js/jawad_schemes.js``): the page's own ``javascript:`` navigations are refused there."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from jawad_desktop.core.sites import NO_OP_SCRIPT, is_web_address

log = logging.getLogger("jawad.ui.browser")

# The isolated JavaScript world of the agent's page library (core/tools/js/page).
WORLD = int(QWebEngineScript.ScriptWorldId.ApplicationWorld)
SCRIPT_NAME = "jawad-page-library"
READER_SCRIPT_NAME = "jawad-page-reader"  # Readability, for the main frame's library only
# The watcher of the page's own click handlers (core/tools/js/jawad_clicks.js), in the page's world.
CLICKS_SCRIPT_NAME = "jawad-click-marks"
# The guard of script addresses (core/tools/js/jawad_schemes.js), in the page's world, in the
# documents loaded while the agent drives.
SCHEMES_SCRIPT_NAME = "jawad-script-addresses"
# What Chromium says when the guard refused a page's javascript: navigation.
_REFUSED_SCRIPT_ADDRESS = "Navigating to a javascript:-URL"
# How a refused script address is noted among the driver's blocked navigations.
REFUSED_SCRIPT = "javascript:"  # as core/tools/page.Page.blocked_navigations notes it


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
    one drives it) about navigations an agent action starts, opens new windows as tabs of its
    ``tab_host`` (``browser/tabs.PageTabs``; in place when it has none), and answers the page's
    JavaScript dialogs itself while the agent acts (a modal dialog would block the agent and the
    window; confirm and prompt get Cancel). ``loading`` is true from a load's start to its end;
    ``opener_url`` is the address of the page that opened this one as a popup."""

    def __init__(self, profile: QWebEngineProfile, parent: QWidget | None, driver: Any = None) -> None:
        super().__init__(profile, parent)
        self.driver = driver
        self.tab_host: Any = None  # the PageTabs this page is a tab of
        self.opener_url = ""
        self.loading = False
        # Built-in HTML loading (the start page, show_builtin_page): the page library (library_wanted)
        # is installed once it has loaded, or at a navigation away before that.
        self.showing_builtin = False
        self.library_wanted = False
        self._popups: list[QWebEnginePage] = []
        self.loadStarted.connect(self._load_started)
        self.loadFinished.connect(self._load_finished)

    def _load_started(self) -> None:
        self.loading = True

    def _load_finished(self, _ok: bool) -> None:
        self.loading = False
        if self.showing_builtin:  # the start page is in: the library, for the documents after it
            self._leave_builtin()

    def _leave_builtin(self) -> None:
        self.showing_builtin = False
        if self.library_wanted:
            self.library_wanted = False
            install_page_script(self)

    def _acting(self) -> bool:
        return self.driver is not None and self.driver._agent_depth > 0

    def _guard_script_addresses(self, on: bool) -> None:
        """Whether the documents this page loads from now on get the guard of script addresses.
        Set at each navigation it lets through, before its document exists: on while the agent
        drives (the page's own ``javascript:`` navigations are refused), off for the user's pages."""
        scripts = self.scripts()
        present = scripts.find(SCHEMES_SCRIPT_NAME)
        if on and not present:
            for world in (int(QWebEngineScript.ScriptWorldId.MainWorld), WORLD):
                scripts.insert(_schemes_script(world))
        elif not on:
            for old in present:
                scripts.remove(old)

    def javaScriptConsoleMessage(self, level: QWebEnginePage.JavaScriptConsoleMessageLevel, message: str,
                                 lineNumber: int, sourceID: str) -> None:
        if self.driver is not None and _REFUSED_SCRIPT_ADDRESS in message:
            log.info("refused a script address (javascript:) the page's own script went to, at %s:%d",
                     sourceID, lineNumber)
            self.driver.blocked_navigations.append(REFUSED_SCRIPT)
        super().javaScriptConsoleMessage(level, message, lineNumber, sourceID)

    def createWindow(self, _type: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        if self.tab_host is not None:  # a tab of its own, which keeps window.opener
            return self.tab_host.open_from(self, _type)
        # Without tabs, a link meant for a new window opens here instead. A throwaway
        # page receives the new window's first navigation and hands its URL over.
        catcher = QWebEnginePage(self.profile(), self)
        self._popups.append(catcher)

        def hand_over(url: QUrl) -> None:
            if url.isEmpty() or not shiboken6.isValid(catcher):
                return
            catcher.urlChanged.disconnect(hand_over)
            self._popups.remove(catcher)
            catcher.deleteLater()
            if self.driver is not None and self.driver._agent_driving() and not is_web_address(url.toString()):
                log.info("a popup to %s (not a web address) while the agent acts was not opened", url.toString())
                return
            self.load(url)

        catcher.urlChanged.connect(hand_over)
        return catcher

    def chooseFiles(self, mode: QWebEnginePage.FileSelectionMode, oldFiles: Sequence[str],
                    acceptedMimeTypes: Sequence[str]) -> list[str]:
        # The agent's upload (allowed by the user, for a file the user named) answers the chooser it opened.
        files = self.driver.take_upload() if self.driver is not None else None
        if files is not None:
            return files
        return super().chooseFiles(mode, oldFiles, acceptedMimeTypes)

    def _answers_dialogs(self) -> bool:
        """Whether Jawad answers the page's JavaScript dialog itself (and reports it with the next
        action) instead of Qt's modal box: while the agent acts or drives, and whenever no one could
        see the box (no window shown, as under ``jawad ask`` or offscreen) — a modal box there would
        freeze the page, and every read after it, until the page is closed."""
        if self.driver is None:
            return False
        if self._acting() or self.driver._agent_driving():
            return True
        view = QWebEngineView.forPage(self)
        return (view is None or not view.window().isVisible()
                or QGuiApplication.platformName() in ("offscreen", "minimal"))

    def javaScriptAlert(self, securityOrigin: QUrl | str, msg: str) -> None:
        if self._answers_dialogs():
            self.driver.dialogs.append(f'alert: "{msg}"')
            return
        super().javaScriptAlert(securityOrigin, msg)

    def javaScriptConfirm(self, securityOrigin: QUrl | str, msg: str) -> bool:
        if self._answers_dialogs():
            self.driver.dialogs.append(f'confirm: "{msg}" (Jawad answered Cancel)')
            return False
        return bool(super().javaScriptConfirm(securityOrigin, msg))

    def javaScriptPrompt(self, securityOrigin: QUrl | str, msg: str, defaultValue: str) -> tuple[bool, str]:
        if self._answers_dialogs():
            self.driver.dialogs.append(f'prompt: "{msg}" (Jawad answered Cancel)')
            return False, ""
        return super().javaScriptPrompt(securityOrigin, msg, defaultValue)

    def acceptNavigationRequest(
        self, url: QUrl | str, type: QWebEnginePage.NavigationType, isMainFrame: bool
    ) -> bool:
        target = url.toString() if isinstance(url, QUrl) else str(url)
        if isMainFrame and self.showing_builtin and not target.startswith("data:"):  # left before it loaded
            self._leave_builtin()
        if self.driver is None:
            return True
        if not isMainFrame:
            allowed = bool(self.driver._allow_frame_navigation(target))
        else:
            typed = type == QWebEnginePage.NavigationType.NavigationTypeTyped
            allowed = bool(self.driver._allow_navigation(target, self, typed=typed))
        if allowed:
            self._guard_script_addresses(self.driver._agent_driving())
        return allowed


def install_page_script(page: QWebEnginePage) -> None:
    """Inject the agent's page library into every document ``page`` loads, subframes included,
    in its own isolated world (the page's scripts can neither see nor change it), with the reader
    (Readability, half its size) in the main frame only, where articles are read; and the watcher
    of the page's click handlers (``jawad_clicks.js``) into the page's world, which leaves nothing
    there a page can read or forge (it answers the library on a channel whose name the page never
    learns). On the app's own start page the library waits for the next document."""
    if isinstance(page, GuardedWebPage) and page.showing_builtin:
        page.library_wanted = True
        return
    from jawad_desktop.core.tools.page import READER, page_script

    scripts = page.scripts()
    for name, source, sub_frames in ((READER_SCRIPT_NAME, page_script(READER), False),
                                     (SCRIPT_NAME, page_script(with_reader=False), True)):
        for old in scripts.find(name):
            scripts.remove(old)
        script = QWebEngineScript()
        script.setName(name)
        script.setSourceCode(source)
        script.setWorldId(WORLD)
        script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentReady)
        script.setRunsOnSubFrames(sub_frames)
        scripts.insert(script)
    # The page's listeners are out of the library's sight: this small script notes the elements
    # that get click handlers, in the page's own world, before any of the page's scripts runs.
    for old in scripts.find(CLICKS_SCRIPT_NAME):
        scripts.remove(old)
    marks = QWebEngineScript()
    marks.setName(CLICKS_SCRIPT_NAME)
    marks.setSourceCode(page_script("jawad_clicks.js"))
    marks.setWorldId(int(QWebEngineScript.ScriptWorldId.MainWorld))
    marks.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    marks.setRunsOnSubFrames(True)
    scripts.insert(marks)


def show_builtin_page(page: QWebEnginePage, html: str) -> None:
    """Show the app's own ``html`` (the start page, ``about:blank`` underneath) without the page library
    (200 KB of script, 2 MB of the page's process, for a page no tool needs: the driver injects it if
    the agent acts there); it is installed again once that page has loaded, for the documents after it
    (installed at the next navigation instead, a new site's document can miss it)."""
    if isinstance(page, GuardedWebPage):
        scripts = page.scripts()
        for name in (READER_SCRIPT_NAME, SCRIPT_NAME, CLICKS_SCRIPT_NAME):
            for old in scripts.find(name):
                scripts.remove(old)
                page.library_wanted = True
        page.showing_builtin = True
    page.setHtml(html, QUrl("about:blank"))


@functools.cache
def schemes_source(main_world: bool) -> str:
    """The guard's source as injected in the page's world (``main_world``) or the library's."""
    from jawad_desktop.core.tools.page import page_script

    return (page_script("jawad_schemes.js").replace("__JAWAD_NO_OP__", json.dumps(NO_OP_SCRIPT.pattern))
            .replace("__JAWAD_MAIN_WORLD__", json.dumps(main_world)))


def _schemes_script(world: int) -> QWebEngineScript:
    """The guard of script addresses in ``world``, in every frame, before any page script: in the
    page's world it refuses them; in the library's it lets the library's own markup through."""
    script = QWebEngineScript()
    script.setName(SCHEMES_SCRIPT_NAME)
    script.setSourceCode(schemes_source(world == int(QWebEngineScript.ScriptWorldId.MainWorld)))
    script.setWorldId(world)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(True)
    return script
