"""The QtWebEngine implementation of the core's ``Page`` interface.

``QtWebEnginePage(view)`` drives a ``QWebEngineView`` the user can see (the main window's
browser pane, or an offscreen view in the CLI and tests):

- The page library (``core/tools/js/page``) is injected with ``QWebEngineScript`` into
  an isolated JavaScript world (``ApplicationWorld``), subframes included, so the page's own
  scripts can neither see nor tamper with it. Calls go through ``runJavaScript`` wrapped in
  asyncio Futures, which works on the one qasync loop.
- Clicks are trusted: the element is scrolled into view, hit-tested, and a real mouse press and
  release are sent to ``view.focusProxy()`` at its centre. When something covers the element
  (or the view cannot take input) a JavaScript click is the fallback, and the outcome says what
  covered it; a dialog over it is refused instead (``covered``): a person would answer it first.
- After an action the page is given time to settle (``PageReadiness.settle``: DOM and requests
  quiet, at most 2 s); a typed field is read back then (``FieldReadback``; a password's length only).
- A page is read, and ``navigate`` returns, once its document is usable (DOMContentLoaded and a
  quiet moment, ``browser/readiness.py``), not at the load event its last advert sends; calls made
  while a load runs wait for that too, so none goes to the document the load is replacing.
- Navigations an agent action starts are enforced in ``acceptNavigationRequest``: while an
  action runs, a main-frame navigation to another site needs ``navigation_guard`` to say yes;
  otherwise it is refused and reported back to the model as blocked.
- Web addresses only (``core.sites.is_web_address``): ``navigate`` refuses any other address,
  and while the agent loads or acts (and ``AGENT_WINDOW_S`` after) a navigation of any frame, a
  popup's or a redirect's, to ``file:``, ``view-source:``, ``chrome:`` or any scheme but
  http(s) is refused (``about:blank`` and, in frames, the page's own ``about:``, ``data:``,
  ``blob:`` and ``javascript:`` documents excepted). A tab that shows such a page (one the user
  opened) is neither read nor acted on: every page-library call and screenshot says so.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QPointF, Qt, QUrl
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication

from jawad_desktop.browser import page_input
from jawad_desktop.browser.download_keeper import AGENT_WINDOW_S, DownloadGuard, DownloadKeeper
from jawad_desktop.browser.guarded_page import WORLD, GuardedWebPage, install_page_script
from jawad_desktop.browser.readiness import PageReadiness
from jawad_desktop.browser.screenshot import marked_screenshot
from jawad_desktop.browser.tabs import PageTabs, offscreen_tabs
from jawad_desktop.core.sites import is_web_address, scheme_of, site_of
from jawad_desktop.core.tools.browser.elements import role_name
from jawad_desktop.core.tools.keys import parse_keys
from jawad_desktop.core.tools.page import (
    ActionOutcome,
    DownloadInfo,
    ElementInfo,
    FieldReadback,
    PageError,
    RawSnapshot,
    ScrollWhere,
    TabInfo,
    Target,
    error_for,
    not_web_address,
    page_script,
)

log = logging.getLogger("jawad.browser")

# Scrolled to the end of a page that loads more when its end comes into view (a feed): how long the
# scroll waits for it to grow, looking every POLL_GROWTH_S. A page that is really at its end costs this.
GROW_WAIT_S = 1.2
POLL_GROWTH_S = 0.05
# Between a chord's modifier keys going down and its key (and back up): a page that re-renders on each
# keydown (React state) reads the next one with the new state, as with a person's fingers.
MODIFIER_LEAD_S = 0.06


def _well_formed(value: Any) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_well_formed(v) for v in value]
    if isinstance(value, dict):
        return {_well_formed(k): _well_formed(v) for k, v in value.items()}
    return value

# A navigation guard answers: may the agent's action take the page from ``from_url`` to ``to_url``?
NavigationGuard = Callable[[str, str], bool]
RequestGuard = Callable[[str, str, str], bool]  # (page address, request address, method) -> allowed


def _cover_of(prepared: dict[str, Any]) -> str:
    """What lies over the element ``J.prepare`` hit-tested ('dialog "Cookies"'), or "" when nothing does."""
    cover = prepared.get("cover") if not prepared.get("onTop") else None
    if not isinstance(cover, dict):
        return ""
    kind, label = str(cover.get("kind") or "element"), str(cover.get("label") or "")
    return f'{kind} "{label}"' if label else kind


@dataclass(eq=False)
class _Parked:
    """A tab's load state while the driver drives another tab."""

    readiness: PageReadiness
    loading: bool
    waiters: list[asyncio.Future[bool]] = field(default_factory=list)


class _RequestFilter(QWebEngineUrlRequestInterceptor):
    """Asks the driver's ``request_guard`` about each request a page makes to another site (its
    scripts' fetches and beacons, its frames, its images): one that would carry what the agent read
    is blocked. The page's own navigations are ``acceptNavigationRequest``'s."""

    def __init__(self, driver: QtWebEnginePage) -> None:
        super().__init__()
        self._driver = weakref.ref(driver)

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        driver = self._driver()
        if driver is None or driver.request_guard is None:
            return
        if info.resourceType() == QWebEngineUrlRequestInfo.ResourceType.ResourceTypeMainFrame:
            return
        method = bytes(info.requestMethod().data()).decode("latin-1") or "GET"
        if not driver.allow_request(info.firstPartyUrl().toString(), info.requestUrl().toString(), method):
            info.block(True)


_BUTTONS = {"left": Qt.MouseButton.LeftButton, "right": Qt.MouseButton.RightButton,
            "middle": Qt.MouseButton.MiddleButton}


def _press_words(button: str, hold_s: float) -> str:
    """How a press is told: "Right-clicked", "Pressed and held for 3 s"."""
    if hold_s > 0:
        held = f"for {hold_s:g} s"
        return f"Pressed and held ({button} button) {held}" if button != "left" else f"Pressed and held {held}"
    return f"{button.capitalize()}-clicked"


class QtWebEnginePage:
    """Drives one ``QWebEngineView`` for the agent (implements ``core.tools.page.Page``).

    ``profile``: the view's current page's profile is reused when None (the browser pane made
    it: persistent in the data folder, or off the record). ``navigation_guard`` decides
    cross-site navigations that an agent action starts; without one they are allowed.
    """

    def __init__(
        self,
        view: QWebEngineView,
        *,
        profile: QWebEngineProfile | None = None,
        navigation_guard: NavigationGuard | None = None,
    ) -> None:
        self.view = view
        self.navigation_guard = navigation_guard
        # Decides a page's own requests to other sites (core.tools.browser.make_request_guard); None: all go.
        self.request_guard: RequestGuard | None = None
        self.blocked_requests: list[str] = []
        old = view.page()
        shown = old.url() if old is not None else QUrl()
        # The browser pane's page is made for a driver: adopted as it is, with the document
        # it shows (no second load); any other page is replaced by one of ours.
        self.adopted = (
            isinstance(old, GuardedWebPage) and old.driver is None and (profile is None or profile is old.profile())
        )
        if isinstance(old, GuardedWebPage) and self.adopted:
            self.page = old
            self.profile = old.profile()
            old.driver = self
            # The library in every document it loads (the window installs it too; again is harmless):
            # a document without it is only known usable when its load ends.
            install_page_script(old)
        else:
            chosen = profile or (old.profile() if old is not None else None) or QWebEngineProfile.defaultProfile()
            self.profile = chosen
            self.page = GuardedWebPage(chosen, view, self)
            install_page_script(self.page)
            view.setPage(self.page)
            # setPage deletes a page the view created itself; one a caller parented to the view is ours to drop.
            if old is not None and shiboken6.isValid(old) and old is not self.page and old.parent() is view:
                old.deleteLater()
        # The last screenshot's width, height (its pixels) and CSS pixels per pixel (click_at).
        self._shot: tuple[int, int, float] | None = None
        self._agent_depth = 0  # > 0 while an agent action may cause navigations
        self._agent_nav_allowed: str | None = None  # the URL of the agent's own navigate()
        self._agent_loading = 0  # > 0 while the agent's navigate, reload or history step loads
        self._agent_load_end = 0.0
        self._allowed_once: set[str] = set()  # cross-site targets of actions the user allowed
        self.blocked_navigations: list[str] = []
        self.dialogs: list[str] = []  # JavaScript dialogs the page showed during agent actions
        self._load_waiters: list[asyncio.Future[bool]] = []
        self._loading = self.page.loading
        # When the document can be read (DOMContentLoaded and a quiet moment, not the load event).
        self.readiness = PageReadiness(self.page, self.run_js, loading=self._loading)
        self._request_filter = _RequestFilter(self)
        self.profile.setUrlRequestInterceptor(self._request_filter)
        self._init_tabs(view)
        if self.adopted:
            return
        if shown.isValid() and not shown.isEmpty() and shown.scheme() in ("http", "https", "file"):
            self.page.load(shown)  # the page the user was looking at stays in view

    async def close(self, *, release_profile: bool = False, settle_s: float = 0.5) -> None:
        """Delete the page now (a page must go before its profile); with ``release_profile`` also
        delete the profile and give Chromium ``settle_s`` to write its cookies and storage to
        disk, which it otherwise does only every 30 s (a process that ends with ``os._exit``
        right after would lose them). The other tabs' pages go too (with the profile released, or
        when the driver made the tabs itself)."""
        self._close_tabs(every_page=release_profile)
        # The profile outlives this driver: it must not keep asking it about requests.
        if shiboken6.isValid(self.profile):
            self.profile.setUrlRequestInterceptor(None)  # type: ignore[arg-type]
        view_page = self.view.page() if shiboken6.isValid(self.view) else None
        if view_page is self.page and shiboken6.isValid(self.view):
            self.view.setPage(None)  # type: ignore[arg-type]
        if shiboken6.isValid(self.page):
            shiboken6.delete(self.page)
        if release_profile and shiboken6.isValid(self.profile) and not self.profile.isOffTheRecord():
            shiboken6.delete(self.profile)
            await asyncio.sleep(settle_s)

    # -- setup -------------------------------------------------------------------------------

    # -- navigation enforcement ----------------------------------------------------------------

    def _agent_driving(self) -> bool:
        """Whether a navigation now may be the agent's doing (its load, its action, or just after)."""
        return (self._agent_loading > 0 or self._acting_recently()
                or time.monotonic() - self._agent_load_end < AGENT_WINDOW_S)

    def _allow_frame_navigation(self, target: str) -> bool:
        """A subframe's navigation: never to the user's files or the browser's own pages while the
        agent drives (a frame's ``about:srcdoc``, ``data:``, ``blob:`` or ``javascript:`` document is
        the page's own)."""
        if not self._agent_driving() or scheme_of(target) in ("http", "https", "about", "data", "blob", "javascript"):
            return True
        log.info("blocked a frame's navigation to %s while the agent acts", target)
        self.blocked_navigations.append(target)
        return False

    def _allow_navigation(self, target: str, page: QWebEnginePage | None = None, *, typed: bool = False) -> bool:
        """Whether the page may go to ``target`` now. ``typed``: an address loaded as typed (the user's
        address bar; the agent's own loads are its ``navigate``, which refuses other addresses first)."""
        user_typed = typed and self._agent_depth <= 0 and self._agent_loading <= 0
        if not is_web_address(target) and self._agent_driving() and not user_typed:
            # file:, javascript:, data:, view-source:, chrome:... never while the agent drives: a page's
            # link, script, form, redirect or popup cannot take it to the user's files or run a script.
            log.info("blocked a navigation to %s (not a web address) while the agent acts", target)
            self.blocked_navigations.append(target)
            return False
        if self._agent_nav_allowed is not None and target.rstrip("/") == self._agent_nav_allowed.rstrip("/"):
            return True
        if self._agent_depth <= 0 or self.navigation_guard is None:
            return True
        once = target.rstrip("/")
        if once in self._allowed_once:
            self._allowed_once.discard(once)
            return True
        # The page that navigates: a popup's first navigation counts from the page that opened it.
        asking = page if page is not None else self.page
        current = asking.url().toString() or getattr(asking, "opener_url", "") or self.page.url().toString()
        if site_of(target) == site_of(current) or target == "about:blank":
            return True
        try:
            allowed = bool(self.navigation_guard(current, target))
        except Exception:
            log.exception("navigation guard failed; refusing %s", target)
            allowed = False
        if not allowed:
            log.info("blocked a navigation the agent's action started: %s -> %s", current, target)
            self.blocked_navigations.append(target)
        return allowed

    def allow_request(self, page_url: str, url: str, method: str) -> bool:
        """Whether the page at ``page_url`` may send a ``method`` request to ``url`` (``request_guard``)."""
        guard = self.request_guard
        if guard is None:
            return True
        try:
            allowed = bool(guard(page_url, url, method))
        except Exception:
            log.exception("request guard failed; letting %s %s through", method, url)
            return True
        if not allowed:
            log.info("blocked a request of %s: %s %s (it would carry what the agent read)", page_url, method, url)
            self.blocked_requests.append(f"{method} {url}")
            del self.blocked_requests[:-50]
        return allowed

    def allow_navigation_once(self, url: str) -> None:
        self._allowed_once.add(url.rstrip("/"))

    def _on_load_started(self) -> None:
        self._loading = True
        self.readiness.load_started()

    def _on_load_finished(self, ok: bool) -> None:
        self._loading = False
        self.readiness.load_finished()
        waiters, self._load_waiters = self._load_waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(ok)

    def _new_load_waiter(self) -> asyncio.Future[bool]:
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._load_waiters.append(fut)
        return fut

    # -- Page: basics --------------------------------------------------------------------------

    async def url(self) -> str:
        return self.page.url().toString()

    def _refuse_local_page(self) -> None:
        """PageError when the tab shows no web page (a local file or folder, a browser page the user
        opened): its text and its picture never reach the model."""
        shown = self.page.url().toString()
        if shown and not is_web_address(shown) and not shown.startswith("chrome-error:"):  # the engine's error page
            raise not_web_address(shown, shown=True)

    async def title(self) -> str:
        return self.page.title()

    async def navigate(self, url: str, *, timeout: float = 30.0) -> str:
        """Load ``url``; returns once its document is usable (DOMContentLoaded and a quiet moment,
        ``browser/readiness.py``), though images and adverts may still be loading."""
        qurl = QUrl.fromUserInput(url)
        if not qurl.isValid():
            raise PageError("navigation_failed", f"'{url}' is not a valid address.")
        if not is_web_address(qurl.toString()) or (scheme_of(url) and not is_web_address(url)):
            raise not_web_address(url)
        shown = await self.readiness.probe(0.5)  # the document this load replaces
        waiter = self._new_load_waiter()
        self._agent_nav_allowed = qurl.toString()
        self._agent_loading += 1
        try:
            self.page.load(qurl)
            usable = await self.readiness.wait_usable(timeout, origin=shown.id if shown else None, load=waiter)
            if not usable and not waiter.done():
                self.page.triggerAction(QWebEnginePage.WebAction.Stop)
                raise PageError("timeout", f"{url} did not load within {timeout:.0f} s; it was stopped "
                                "(read_page shows what arrived).")
        finally:
            self._agent_nav_allowed = None
            self._agent_loading -= 1
            self._agent_load_end = time.monotonic()  # a refresh or a script's redirect may follow the load
            if waiter in self._load_waiters:
                self._load_waiters.remove(waiter)
        if waiter.done() and not waiter.result():
            raise PageError("navigation_failed", f"{url} could not be loaded (the site did not answer or refused).")
        return self.page.url().toString()

    async def go_back(self, *, timeout: float = 15.0) -> str:
        history = self.page.history()
        if not history.canGoBack():
            raise PageError("navigation_failed", "There is no previous page to go back to.")
        return await self._history_step(QWebEnginePage.WebAction.Back, timeout)

    async def wait_until_loaded(self, timeout: float = 30.0) -> bool:
        """Wait for a load in progress to finish (True at once when none is running)."""
        if not self._loading:
            return True
        try:
            return await asyncio.wait_for(self._new_load_waiter(), timeout)
        except TimeoutError:
            return False

    # -- Page: scripts ---------------------------------------------------------------------------

    async def run_js(self, source: str, *, timeout: float = 10.0, world: int = WORLD) -> Any:
        """Run ``source`` in ``world`` and return its (structured-cloned) value."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()

        def done(value: Any) -> None:
            if not fut.done():
                fut.set_result(value)

        self.page.runJavaScript(source, world, done)
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise PageError(
                "timeout", f"The page did not answer within {timeout:.0f} s (it may be busy or frozen)."
            ) from None

    async def call(self, function: str, *args: Any, timeout: float = 10.0) -> Any:
        self._refuse_local_page()
        encoded = json.dumps(list(args))
        source = (
            "(function(){var J=window.__jawad;if(!J)return null;"
            f"return J.call({json.dumps(function)}, {encoded});}})()"
        )
        # A script sent while a navigation is under way can be lost with the old document (its answer
        # never comes): wait until the load's own document is usable (not until the load ends).
        if self._loading:
            await self.readiness.wait_usable(timeout)
        raw = await self.run_js(source, timeout=timeout)
        if not isinstance(raw, str) or not raw:
            # The library is not in this document (PySide gives "" for the script's null): a page
            # opened before the script was installed, or a load stopped before DOMContentLoaded,
            # when the script is injected. Inject it into the isolated world now.
            await self.run_js(page_script(), timeout=timeout)
            raw = await self.run_js(source, timeout=timeout)
            if not isinstance(raw, str) or not raw:
                raise PageError("no_page", "The page script could not run on this page (is a page loaded?).")
        try:
            data = json.loads(raw)
            # A page's text cut inside a surrogate pair (an emoji clipped by a label's length) arrives as a
            # lone surrogate, which no UTF-8 request to a model can carry: replaced by U+FFFD here, once.
            return _well_formed(data) if re.search(r"\\u[dD][89a-fA-F]", raw) else data
        except ValueError:
            raise PageError("script_error", f"The page script gave an answer that is not JSON to {function}.") from None

    async def _checked(self, function: str, target: Target, *args: Any) -> dict[str, Any]:
        result = await self.call(function, target.as_js(), *args)
        if not isinstance(result, dict):
            raise PageError("script_error", f"The page script returned nothing for {target}.")
        if not result.get("ok"):
            code = str(result.get("error", "script_error"))
            detail = str(result.get("message", ""))
            if code == "no_option" and result.get("options"):
                detail = "Its options: " + ", ".join(map(str, result["options"]))
            raise error_for(code, target, detail)
        return result

    async def snapshot(self, *, max_elements: int = 150) -> RawSnapshot:
        data = await self.call("snapshot", {"maxElements": max_elements}, timeout=20.0)
        if not isinstance(data, dict):
            raise PageError("script_error", "The page could not be read.")
        if data.get("ok") is False:  # the page library caught an error (J.call): not an empty page
            log.warning("the page script failed to read %s: %s", await self.url(), data.get("message", ""))
            raise PageError("script_error", "The page could not be read: the page script failed "
                            f"({str(data.get('message', ''))[:200]}). Try read_page again.")
        snapshot = RawSnapshot.from_js(data)
        snapshot.still_loading = snapshot.still_loading or self._loading  # images, frames, adverts
        return snapshot

    async def screenshot(self, *, marks: bool = True) -> bytes:
        """The viewport as PNG, the listed elements boxed and numbered (browser/screenshot.py); its size
        and scale are kept, so ``click_at`` can take a point of it."""
        self._refuse_local_page()
        rects = await self.call("markRects", timeout=5.0) if marks else None
        png = marked_screenshot(self.view, rects if isinstance(rects, dict) else None)
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # the PNG's IHDR
        if width > 0:
            self._shot = (width, height, self.view.width() / self.page.zoomFactor() / width)
        return png

    async def describe(self, target: Target) -> ElementInfo:
        return ElementInfo.from_js(await self._checked("describe", target))

    async def highlight(self, target: Target, note: str = "") -> None:
        await self._checked("highlight", target, note)

    async def clear_highlight(self) -> None:
        try:
            await self.call("clearHighlight", timeout=3.0)
        except PageError:
            log.debug("could not clear the highlight", exc_info=True)

    # -- Page: actions -------------------------------------------------------------------------

    async def _settle(self, before_url: str, before_blocked: int) -> ActionOutcome:
        """After an action: give the page time to settle (its DOM and requests quiet, at most 2 s, or
        the document a navigation it started is usable), and say what happened."""
        if await self.readiness.settle() or self._loading:
            await self.readiness.wait_usable(30.0)
        acted = self._action_page if self._action_page is not None else self.page  # a new tab may show now
        now = acted.url().toString() if shiboken6.isValid(acted) else before_url
        blocked = self.blocked_navigations[before_blocked:]
        dialogs, self.dialogs = self.dialogs, []
        return ActionOutcome(
            message=" ".join([*(f"The page showed a dialog: {d}." for d in dialogs), *self._closed_tab_note(acted)]),
            navigated_to=now if now != before_url else "",
            blocked_navigation=blocked[-1] if blocked else "",
            opened_tab=await self._tab_opened_by_action(),
            download=self.kept_downloads.started_since(self._action_started),
        )

    def _send_click(self, x: float, y: float) -> bool:
        target = self.view.focusProxy() or self.view
        if target is None or not self.view.isVisible():
            return False
        zoom = self.page.zoomFactor()
        local = QPointF(x * zoom, y * zoom)
        glob = QPointF(target.mapToGlobal(local.toPoint()))
        left = Qt.MouseButton.LeftButton
        no_mod = Qt.KeyboardModifier.NoModifier
        events = [
            QMouseEvent(QEvent.Type.MouseMove, local, glob, Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, no_mod),
            QMouseEvent(QEvent.Type.MouseButtonPress, local, glob, left, left, no_mod),
            QMouseEvent(QEvent.Type.MouseButtonRelease, local, glob, left, Qt.MouseButton.NoButton, no_mod),
        ]
        for event in events:
            QApplication.sendEvent(target, event)
        return True

    def _send_key(self, key: Qt.Key, text: str = "") -> bool:
        target = self.view.focusProxy() or self.view
        if target is None:
            return False
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(target, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text))
        return True

    class _AgentAction:
        def __init__(self, driver: QtWebEnginePage) -> None:
            self.driver = driver

        def __enter__(self) -> None:
            if self.driver._agent_depth == 0:
                self.driver._action_page = self.driver.page  # the tab acted on, should a new one open
                self.driver._tabs_before = len(self.driver.opened_tabs)
                self.driver._action_started = time.monotonic()
            self.driver._agent_depth += 1

        def __exit__(self, *exc: object) -> None:
            self.driver._agent_depth -= 1
            if self.driver._agent_depth == 0:
                self.driver._action_page = None
                self.driver.last_action_end = time.monotonic()

    def agent_action(self) -> QtWebEnginePage._AgentAction:
        """A context in which navigations are the agent's doing (the guard applies)."""
        return QtWebEnginePage._AgentAction(self)

    async def click(self, target: Target, *, button: str = "left", hold_s: float = 0.0) -> ActionOutcome:
        if button != "left" or hold_s > 0:
            return await self._press(target, button, hold_s)
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._checked("prepare", target)
            if info.get("disabled"):
                raise error_for("disabled", target)
            # Let the scroll reach the compositor before the click lands on screen coordinates.
            await asyncio.sleep(0.05)
            info = await self._checked("prepare", target)
            cover = _cover_of(info)
            if cover and (info.get("cover") or {}).get("modal"):
                # A person could not reach it before closing the dialog; nor does the agent click through.
                raise PageError("covered", f"Element {target} is covered by {cover}: it cannot be clicked "
                                "until that is closed or answered. Use the dialog's own buttons (read_page "
                                "lists them first), then try again.")
            trusted = False
            if info.get("onTop") and self._point_in_view(info):
                trusted = self._send_click(float(info["x"]), float(info["y"]))
            if not trusted:
                await self._checked("jsClick", target)
            outcome = await self._settle(before_url, before_blocked)
        label = str(info.get("label") or info.get("selector") or target)
        how = ("" if trusted else f" (with a JavaScript click: it was covered by {cover})" if cover
               else " (with a JavaScript click: the element was off screen or the view takes no input)")
        message = f'Clicked {info.get("role", "element")} "{label}"{how}.'
        if outcome.message:
            message += " " + outcome.message
        return ActionOutcome(message=message, navigated_to=outcome.navigated_to, trusted=trusted,
                             blocked_navigation=outcome.blocked_navigation, opened_tab=outcome.opened_tab,
                             download=outcome.download, refound=bool(info.get("refound")), covered_by=cover)

    async def _press(self, target: Target, button: str, hold_s: float) -> ActionOutcome:
        """A right or middle click, or a press held ``hold_s`` seconds, with real mouse events at the
        element's centre (no JavaScript stands in: a page watching contextmenu or the press's length
        needs the real ones)."""
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._on_screen(target)
            if info.get("disabled"):
                raise error_for("disabled", target)
            cover = _cover_of(info)
            if not info.get("onTop"):
                raise PageError("covered", f"Element {target} is covered by {cover or 'another element'} there, so "
                                "the mouse cannot reach it. Close or move what covers it, then try again.")
            await self._press_at(float(info["x"]), float(info["y"]), button, hold_s)
            outcome = await self._settle(before_url, before_blocked)
        label = str(info.get("label") or info.get("selector") or target)
        return self._with_settled(f'{_press_words(button, hold_s)} {role_name(str(info.get("role", "")))} '
                                  f'"{label}".', outcome)

    async def _press_at(self, x: float, y: float, button: str, hold_s: float) -> None:
        """Press ``button`` at a viewport point (CSS pixels), hold it ``hold_s`` seconds, let go. A
        right press gives the page its contextmenu event; the browser's own menu is not shown."""
        pressed, none = _BUTTONS[button], Qt.MouseButton.NoButton
        policy = self.view.contextMenuPolicy()
        if button == "right":
            self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        try:
            self._mouse(QEvent.Type.MouseMove, x, y)
            self._mouse(QEvent.Type.MouseButtonPress, x, y, pressed, pressed)
            try:
                if hold_s > 0:
                    await asyncio.sleep(hold_s)
            finally:  # never leave the button held (a Stop while holding lets go)
                self._mouse(QEvent.Type.MouseButtonRelease, x, y, pressed, none)
            if button == "right":
                await asyncio.sleep(0.15)  # the menu request comes back from the renderer after the press
        finally:
            self.view.setContextMenuPolicy(policy)

    async def click_at(self, x: float, y: float, *, button: str = "left") -> ActionOutcome:
        if self._shot is None:
            raise PageError("no_screenshot", "There is no screenshot to take a point from: call look first, "
                            "then give a point of that picture (its pixels, from the top-left corner).")
        width, height, css_per_px = self._shot
        if not (0 <= x < width and 0 <= y < height):
            raise PageError("hidden", f"({x:g}, {y:g}) is outside the last screenshot, which is {width} x {height} "
                            "pixels. Give a point inside it.")
        css_x, css_y = x * css_per_px, y * css_per_px
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            hit = await self.call("atPoint", css_x, css_y)
            if not isinstance(hit, dict) or not hit.get("ok"):
                raise PageError("hidden", f"({x:g}, {y:g}) is no longer on the visible part of the page (it was "
                                "scrolled or resized since the screenshot): call look again.")
            await self._press_at(css_x, css_y, button, 0.0)
            outcome = await self._settle(before_url, before_blocked)
        what = (f' on {role_name(str(hit.get("role", "")))} "{hit.get("label") or hit.get("selector") or ""}"'
                if hit.get("tag") else "")
        verb = "Clicked" if button == "left" else f"{button.capitalize()}-clicked"
        return self._with_settled(f"{verb} at ({x:g}, {y:g}) of the last screenshot{what}.", outcome)

    def _point_in_view(self, info: dict[str, Any]) -> bool:
        viewport = info.get("viewport") or {}
        x, y = float(info.get("x", -1)), float(info.get("y", -1))
        return 0 <= x < float(viewport.get("width", 0)) and 0 <= y < float(viewport.get("height", 0))

    async def fill(self, target: Target, text: str, *, submit: bool = False) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            result = await self._checked("fill", target, text)
            info = await self.describe(target)
            submitted = ""
            if submit:
                if result.get("hasForm"):
                    await self._checked("submit", target)
                    submitted = " and submitted the form"
                else:
                    # No form: the page listens for Enter itself (search boxes often do).
                    await self._checked("focus", target)
                    self._send_key(Qt.Key.Key_Return, "\r")
                    submitted = " and pressed Enter"
            outcome = await self._settle(before_url, before_blocked)
            if not submit and not outcome.navigated_to:
                # Read again once the page has settled: a mask or a check may rewrite the value late.
                try:
                    result = await self._checked("fieldValue", target, text)
                except PageError:
                    log.debug("could not read %s back after typing", target)
        label = info.label or info.selector
        readback = FieldReadback.from_js(result)
        # A password is never echoed: the model gets its length, not its characters.
        typed = (f'{len(text)} characters into the password field "{label}"' if readback.secret
                 else f'"{text}" into {info.role} "{label}"')
        return ActionOutcome(
            message=f"Typed {typed}{submitted}." + (f" {outcome.message}" if outcome.message else ""),
            navigated_to=outcome.navigated_to,
            blocked_navigation=outcome.blocked_navigation,
            opened_tab=outcome.opened_tab,
            download=outcome.download,
            field=readback,
            refound=info.refound or bool(result.get("refound")),
        )

    async def select_option(self, target: Target, option: str) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            result = await self._checked("selectOption", target, option)
            info = await self.describe(target)
            outcome = await self._settle(before_url, before_blocked)
        return ActionOutcome(
            message=f'Selected "{result.get("text", option)}" in "{info.label or info.selector}".' + (
                f" {outcome.message}" if outcome.message else ""),
            navigated_to=outcome.navigated_to, blocked_navigation=outcome.blocked_navigation,
            opened_tab=outcome.opened_tab, download=outcome.download, refound=info.refound)

    async def set_checked(self, target: Target, checked: bool) -> ActionOutcome:
        info = await self.describe(target)
        if info.role not in ("CHECKBOX", "RADIO", "SWITCH") and info.type not in ("checkbox", "radio"):
            raise PageError("not_checkable", f"Element {target} is not a checkbox, radio button or switch.")
        state = "checked" if checked else "unchecked"
        if info.checked == checked:
            return ActionOutcome(message=f'"{info.label or info.selector}" was already {state}.')
        outcome = await self.click(target)
        after = await self.describe(target)
        if after.checked != checked:
            raise PageError("script_error", f'Clicking "{after.label}" did not change it; it is still '
                            f'{"checked" if after.checked else "unchecked"}.')
        return ActionOutcome(message=f'"{after.label or after.selector}" is now {state}.',
                             navigated_to=outcome.navigated_to, trusted=outcome.trusted,
                             blocked_navigation=outcome.blocked_navigation, refound=outcome.refound or info.refound)

    async def scroll(self, where: ScrollWhere | Target) -> ActionOutcome:
        if isinstance(where, Target):
            await self._checked("scrollTo", where)
            return ActionOutcome(message=f"Scrolled element {where} into view.")
        result = await self.call("scroll", where)
        if not isinstance(result, dict) or not result.get("ok"):
            raise PageError("script_error", "The page could not be scrolled.")
        after, top = float(result.get("after", 0)), float(result.get("max", 0))
        if result.get("sideways"):
            if after == float(result.get("before", 0)):
                return ActionOutcome(message=f"Nothing more to scroll {where.replace('most', '')}: the page is "
                                             "at that edge (or does not scroll sideways).")
            place = ("the left edge" if after <= 0 else "the right edge" if after >= top - 1
                     else f"{after / max(top, 1):.0%}")
            return ActionOutcome(message=f"Scrolled {where}; now at {place} of the page's width.")
        if where in ("down", "bottom") and after >= top - 1:
            # At the end of a feed that loads more when its end comes into view: wait for it to grow.
            grown = await self._grown_beyond(top)
            if grown is not None:
                return ActionOutcome(message=f"Scrolled {where}; the page loaded more below (now at "
                                             f"{after / max(grown, 1):.0%} of it).")
        if after == float(result.get("before", 0)) and where in ("up", "down"):
            edge = "top" if where == "up" else "bottom"
            return ActionOutcome(message=f"Already at the {edge} of the page; nothing more to scroll.")
        position = "the top" if after <= 0 else "the bottom" if after >= top - 1 else f"{after / max(top, 1):.0%}"
        return ActionOutcome(message=f"Scrolled {where}; now at {position} of the page.")

    async def _grown_beyond(self, height: float) -> float | None:
        """The page's new scroll height once it grows past ``height`` (more loaded at its end), after
        the new part settles; None when it has not grown within ``GROW_WAIT_S``."""
        deadline = time.monotonic() + GROW_WAIT_S
        while time.monotonic() < deadline:
            await asyncio.sleep(POLL_GROWTH_S)
            state = await self.call("scroll", "none")
            if isinstance(state, dict) and float(state.get("max", 0)) > height + 1:
                await self.readiness.settle()
                again = await self.call("scroll", "none")
                return float(again.get("max", 0)) if isinstance(again, dict) else float(state["max"])
        return None

    async def wait_for(self, *, text: str = "", selector: str = "", timeout: float = 10.0) -> bool:
        query = {"selector": selector} if selector else {"text": text}
        deadline = time.monotonic() + timeout
        while True:
            try:
                result = await self.call("find", query, timeout=max(1.0, min(5.0, timeout)))
            except PageError as exc:
                if exc.code != "no_page":
                    raise
                result = {"ok": True, "found": False}  # a navigation is replacing the document
            if isinstance(result, dict) and result.get("error") == "invalid_selector":
                raise error_for("invalid_selector", selector)
            if isinstance(result, dict) and result.get("found"):
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.15)

    # -- tabs ------------------------------------------------------------------------------------
    # Every tab's page is driven by this driver (its navigation guard and dialogs); the one it reads
    # and acts on is the tab shown. Each tab keeps its load state while another is shown.

    def _init_tabs(self, view: QWebEngineView) -> None:
        self._parked: dict[QWebEnginePage, _Parked] = {}
        self._action_page: QWebEnginePage | None = None  # the tab an agent action runs on
        self._action_started = 0.0
        self._tabs_before = 0
        self.last_action_end = time.monotonic() - 2 * AGENT_WINDOW_S
        self.opened_tabs: list[QWebEnginePage] = []  # tabs the pages opened, oldest first
        self._pending_upload: list[str] | None = None  # the file the agent's upload gives the page's chooser
        self._own_tabs = self.page.tab_host is None
        self._first_view = view  # the caller's view; the driver made any other tab's
        self.tab_host: PageTabs = offscreen_tabs(view, self.page) if self._own_tabs else self.page.tab_host
        self.tab_host.set_driver(self)
        for page in self.tab_host.pages:
            self._watch(page)
        self.tab_host.tab_added.connect(self._tab_added)
        self.tab_host.tab_removed.connect(self._tab_removed)
        self.tab_host.current_changed.connect(self._follow_current)
        self.kept_downloads = DownloadKeeper(self.profile, owns=self._owns, acting=self._acting_recently)

    def _close_tabs(self, *, every_page: bool) -> None:
        self.kept_downloads.close()
        if not (self._own_tabs or every_page):
            return  # the browser pane's tabs are the pane's to delete
        for view, page in zip(list(self.tab_host.views), list(self.tab_host.pages), strict=True):
            if page is self.page:
                continue  # close() deletes it
            if shiboken6.isValid(view) and view.page() is page:
                view.setPage(None)  # type: ignore[arg-type]
            if shiboken6.isValid(page):
                shiboken6.delete(page)  # before the profile: a page must not outlive it
            if self._own_tabs and view is not self._first_view and shiboken6.isValid(view):
                shiboken6.delete(view)

    @property
    def download_guard(self) -> DownloadGuard | None:
        """Asked before a download an agent action started is kept (``core.tools.browser.downloads``)."""
        return self.kept_downloads.guard

    @download_guard.setter
    def download_guard(self, guard: DownloadGuard | None) -> None:
        self.kept_downloads.guard = guard

    def _owns(self, page: QWebEnginePage | None) -> bool:
        return page is not None and self.tab_host.index_of(page) >= 0

    def _acting_recently(self) -> bool:
        return self._agent_depth > 0 or time.monotonic() - self.last_action_end < AGENT_WINDOW_S

    def _watch(self, page: QWebEnginePage) -> None:
        page.loadStarted.connect(functools.partial(self._load_started_on, page))
        page.loadFinished.connect(functools.partial(self._load_finished_on, page))

    def _load_started_on(self, page: QWebEnginePage) -> None:
        if page is self.page:
            self._on_load_started()
        elif (parked := self._parked.get(page)) is not None:
            parked.loading = True
            parked.readiness.load_started()

    def _load_finished_on(self, page: QWebEnginePage, ok: bool) -> None:
        if page is self.page:
            self._on_load_finished(ok)
        elif (parked := self._parked.get(page)) is not None:
            parked.loading = False
            parked.readiness.load_finished()
            waiters, parked.waiters = parked.waiters, []
            for fut in waiters:
                if not fut.done():
                    fut.set_result(ok)

    def _tab_added(self, index: int) -> None:
        page = self.tab_host.pages[index]
        self._watch(page)
        self.opened_tabs.append(page)
        if page is not self.page:
            self._parked[page] = _Parked(PageReadiness(page, self.run_js, loading=page.loading), page.loading)

    def _tab_removed(self, _index: int) -> None:
        for page in [p for p in self._parked if not self._owns(p)]:
            del self._parked[page]

    def _follow_current(self, index: int) -> None:
        """The shown tab changed (a popup opened, the user or the agent switched, a tab closed)."""
        if not 0 <= index < len(self.tab_host.pages) or self.tab_host.pages[index] is self.page:
            return
        old, page = self.page, self.tab_host.pages[index]
        if shiboken6.isValid(old) and self._owns(old):
            self._parked[old] = _Parked(self.readiness, self._loading, self._load_waiters)
        else:
            for fut in self._load_waiters:  # the tab closed: its loads will not end
                if not fut.done():
                    fut.set_result(False)
        parked = self._parked.pop(page, None) or _Parked(
            PageReadiness(page, self.run_js, loading=page.loading), page.loading)
        self.view, self.page = self.tab_host.views[index], page
        self.readiness, self._loading, self._load_waiters = parked.readiness, parked.loading, parked.waiters
        log.info("the agent follows tab %d: %s", index + 1, page.url().toString())

    async def _tab_opened_by_action(self) -> str:
        """The tab the running action opened, as "tab N: title (URL)" ("" when none)."""
        if len(self.opened_tabs) <= self._tabs_before:
            return ""
        page = self.opened_tabs[-1]
        deadline = time.monotonic() + 3.0
        # The new tab's first navigation may not have committed yet: wait briefly for its address.
        while shiboken6.isValid(page) and page.url().toString() in ("", "about:blank") and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if not shiboken6.isValid(page) or self.tab_host.index_of(page) < 0:
            return ""
        if page is self.page and self._loading:
            await self.readiness.wait_usable(max(0.5, deadline - time.monotonic()))
        index = self.tab_host.index_of(page)
        shown = "" if page is self.page else " (in the background)"
        return f"tab {index + 1}{shown}: {page.title() or 'untitled'} ({page.url().toString()})"

    def _closed_tab_note(self, acted: QWebEnginePage) -> list[str]:
        """A sentence when the tab the action ran in closed itself (a sign-in popup that is done)."""
        if acted is self.page or self._owns(acted):
            return []
        now = self._tab_info(self.tab_host.current)
        return [f"That tab closed itself; now showing tab {now.index + 1}: {now.title or 'untitled'} ({now.url})."]

    def _tab_info(self, index: int) -> TabInfo:
        page = self.tab_host.pages[index]
        return TabInfo(index=index, title=page.title(), url=page.url().toString(),
                       active=index == self.tab_host.current)

    async def tabs(self) -> list[TabInfo]:
        return [self._tab_info(i) for i in range(len(self.tab_host.pages))]

    def _tab_index(self, index: int) -> int:
        count = len(self.tab_host.pages)
        if not 0 <= index < count:
            raise PageError("no_tab", f"There is no tab {index + 1}: there {'is' if count == 1 else 'are'} "
                            f"{count} tab{'s' * (count != 1)} (list_tabs shows them).")
        return index

    async def switch_tab(self, index: int) -> TabInfo:
        self.tab_host.set_current(self._tab_index(index))
        if self._loading:
            await self.readiness.wait_usable(15.0)
        return self._tab_info(self.tab_host.current)

    async def close_tab(self, index: int) -> TabInfo:
        self._tab_index(index)
        if len(self.tab_host.pages) <= 1:
            raise PageError("last_tab", "This is the only tab; the browser keeps one open. "
                            "Navigate elsewhere instead.")
        self.tab_host.close(index)
        if self._loading:
            await self.readiness.wait_usable(15.0)
        return self._tab_info(self.tab_host.current)

    async def downloads(self) -> list[DownloadInfo]:
        return self.kept_downloads.infos()

    # -- history -----------------------------------------------------------------------------------

    async def go_forward(self, *, timeout: float = 15.0) -> str:
        if not self.page.history().canGoForward():
            raise PageError("navigation_failed", "There is no next page to go forward to.")
        return await self._history_step(QWebEnginePage.WebAction.Forward, timeout)

    async def reload(self, *, timeout: float = 30.0) -> str:
        shown = await self.readiness.probe(0.5)  # the document the reload replaces
        waiter = self._new_load_waiter()
        self._agent_loading += 1
        self.page.triggerAction(QWebEnginePage.WebAction.Reload)
        try:
            if not await self.readiness.wait_usable(timeout, origin=shown.id if shown else None, load=waiter):
                if not waiter.done():
                    raise PageError("timeout", f"The page did not load again within {timeout:.0f} s.")
                raise PageError("navigation_failed", "The page could not be loaded again (the site did not answer).")
        finally:
            self._agent_loading -= 1
            self._agent_load_end = time.monotonic()
            if waiter in self._load_waiters:
                self._load_waiters.remove(waiter)
        return self.page.url().toString()

    async def _history_step(self, action: QWebEnginePage.WebAction, timeout: float) -> str:
        before = self.page.url().toString()
        waiter = self._new_load_waiter()
        self._agent_loading += 1
        try:
            self.page.triggerAction(action)
            deadline = time.monotonic() + timeout
            # The step may be served from the back-forward cache without a load: watch the URL too.
            while time.monotonic() < deadline and not waiter.done() and self.page.url().toString() == before:
                await asyncio.sleep(0.05)
            if not waiter.done() and self._loading:
                await self.readiness.wait_usable(max(0.1, deadline - time.monotonic()))
        finally:
            self._agent_loading -= 1
            self._agent_load_end = time.monotonic()
            if waiter in self._load_waiters:
                self._load_waiters.remove(waiter)
        return self.page.url().toString()

    # -- keys ----------------------------------------------------------------------------------------

    async def _focus_for_keys(self, target: Target) -> None:
        """Give ``target`` the keyboard focus; an element a script cannot focus (a box that takes
        keys once clicked) is clicked, as a person would."""
        focused = await self._checked("focus", target)
        if focused.get("focused"):
            return
        info = await self._checked("prepare", target)
        await asyncio.sleep(0.05)  # the scroll reaches the compositor before the click
        info = await self._checked("prepare", target)
        if not (info.get("onTop") and self._point_in_view(info)
                and self._send_click(float(info["x"]), float(info["y"]))):
            await self._checked("jsClick", target)

    async def _focused(self) -> dict[str, Any]:
        try:
            found = await self.call("focused", timeout=3.0)
        except PageError:
            return {}
        return found if isinstance(found, dict) and found.get("focused") else {}

    @staticmethod
    def _describe_focused(found: dict[str, Any]) -> str:
        if not found:
            return "the page"
        what = f'{role_name(str(found.get("role") or found.get("tag") or ""))} "{found.get("label") or ""}"'
        if found.get("secret"):
            return f"{what} ({found.get('length', 0)} characters, hidden)"
        if found.get("editable") or found.get("value"):
            return f'{what} = "{found.get("value", "")}"'
        return what

    async def press_key(self, keys: str, target: Target | None = None) -> ActionOutcome:
        try:
            chord = parse_keys(keys)
        except ValueError as exc:
            raise PageError("bad_key", str(exc)) from None
        try:
            page_input.key_events(chord)
        except ValueError:
            raise PageError("bad_key", f"No key makes '{chord.key}': type it with type_text.") from None
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            if target is not None:
                await self._focus_for_keys(target)
            before = await self._focused()
            if chord.modifiers:  # held first, as fingers do: the page's keydown sees each key
                page_input.send_modifiers(self.view, chord, down=True)
                await asyncio.sleep(MODIFIER_LEAD_S)
            page_input.send_key(self.view, chord)
            if chord.modifiers:
                await asyncio.sleep(MODIFIER_LEAD_S)
                page_input.send_modifiers(self.view, chord, down=False)
            outcome = await self._settle(before_url, before_blocked)
            after = await self._focused() if not outcome.navigated_to and not outcome.opened_tab else {}
        message = f"Pressed {chord} in {self._describe_focused(before)}."
        if after and self._describe_focused(after) != self._describe_focused(before):
            message += f" Now: {self._describe_focused(after)}."
        return self._with_settled(message, outcome)

    async def type_text(self, text: str, target: Target | None = None) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            if target is not None:
                await self._focus_for_keys(target)
            before = await self._focused()
            committed = ""
            for i, char in enumerate(text.replace("\r\n", "\n")):
                if page_input.has_key(char) or char in "\n\r\t":
                    if committed:
                        page_input.commit(self.view, committed)
                        committed = ""
                    page_input.send_char(self.view, char)
                else:
                    committed += char  # letters no key makes go in one input-method commit
                if i % 16 == 15:
                    await asyncio.sleep(0.005)  # the loop stays free (Stop) and the page keeps up
            if committed:
                page_input.commit(self.view, committed)
            outcome = await self._settle(before_url, before_blocked)
            after = await self._focused() if not outcome.navigated_to and not outcome.opened_tab else {}
        secret = before.get("secret") or after.get("secret")
        typed = f"{len(text)} characters" if secret else f'"{text}"'
        message = f"Typed {typed} into {self._describe_focused(before)}."
        if after:
            message += f" It now holds: {self._describe_focused(after)}."
        return self._with_settled(message, outcome)

    @staticmethod
    def _with_settled(message: str, outcome: ActionOutcome, trusted: bool = True) -> ActionOutcome:
        return ActionOutcome(message=message + (f" {outcome.message}" if outcome.message else ""),
                             navigated_to=outcome.navigated_to, trusted=trusted,
                             blocked_navigation=outcome.blocked_navigation, opened_tab=outcome.opened_tab,
                             download=outcome.download)

    # -- pointer ---------------------------------------------------------------------------------

    async def _on_screen(self, target: Target) -> dict[str, Any]:
        """Scroll ``target`` into view; where its centre is (PageError ``hidden`` when off the view)."""
        await self._checked("prepare", target)
        await asyncio.sleep(0.05)  # the scroll reaches the compositor before the pointer does
        info = await self._checked("prepare", target)
        if not self._point_in_view(info) or not self.view.isVisible():
            raise error_for("hidden", target, "It is outside the visible part of the page.")
        return info

    def _mouse(self, kind: QEvent.Type, x: float, y: float, button: Qt.MouseButton = Qt.MouseButton.NoButton,
               buttons: Qt.MouseButton = Qt.MouseButton.NoButton) -> None:
        page_input.send_mouse(self.view, self.page.zoomFactor(), kind, x, y, button, buttons)

    async def hover(self, target: Target) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._on_screen(target)
            x, y = float(info["x"]), float(info["y"])
            self._mouse(QEvent.Type.MouseMove, x - 2, y)  # a move onto it, as a pointer arrives
            self._mouse(QEvent.Type.MouseMove, x, y)
            outcome = await self._settle(before_url, before_blocked)
        label = info.get("label") or info.get("selector") or str(target)
        covered = "" if info.get("onTop") else " Something else covers it there, so the pointer is over that."
        return self._with_settled(f'The pointer is over {role_name(str(info.get("role", "")))} "{label}".'
                                  f"{covered} Call read_page to see what it opened.", outcome)

    async def drag_and_drop(self, source: Target, target: Target) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            start = await self._on_screen(source)
            end = await self._checked("pointOf", target)
            if not self._point_in_view(end):
                await self._checked("scrollTo", target)
                await asyncio.sleep(0.05)
                start = await self._checked("pointOf", source)
                end = await self._checked("pointOf", target)
                if not self._point_in_view(start):
                    raise PageError("hidden", f"{source} and {target} are too far apart to drag between on one "
                                    "screen.")
            html_drag = await self.call("isHtmlDraggable", source.as_js())
            if isinstance(html_drag, dict) and html_drag.get("draggable"):
                # HTML drag and drop would start the platform's drag loop, which blocks the window:
                # the page gets the drag events from the page library instead.
                await self._checked("htmlDrag", source, target.as_js())
                trusted = False
            else:
                await self._drag_with_mouse(start, end)
                trusted = True
            outcome = await self._settle(before_url, before_blocked)
        what = f'{role_name(str(start.get("role", "")))} "{start.get("label") or source}"'
        onto = f'{role_name(str(end.get("role", "")))} "{end.get("label") or target}"'
        return self._with_settled(f"Dragged {what} onto {onto}.", outcome, trusted=trusted)

    async def _drag_with_mouse(self, start: dict[str, Any], end: dict[str, Any], steps: int = 10) -> None:
        x0, y0, x1, y1 = float(start["x"]), float(start["y"]), float(end["x"]), float(end["y"])
        left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
        self._mouse(QEvent.Type.MouseMove, x0, y0)
        self._mouse(QEvent.Type.MouseButtonPress, x0, y0, left, left)
        try:
            for i in range(1, steps + 1):
                await asyncio.sleep(0.02)  # pages follow a drag frame by frame
                self._mouse(QEvent.Type.MouseMove, x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps, none, left)
            await asyncio.sleep(0.03)
        finally:  # never leave the button held (a Stop in the middle lets go where the pointer is)
            self._mouse(QEvent.Type.MouseButtonRelease, x1, y1, left, none)

    # -- files -----------------------------------------------------------------------------------

    def take_upload(self) -> list[str] | None:
        """The file the agent's upload gives the page's file chooser, once (``GuardedWebPage.chooseFiles``)."""
        files, self._pending_upload = self._pending_upload, None
        return files

    async def upload_file(self, target: Target, path: str) -> ActionOutcome:
        field_info = await self._checked("fileInput", target)
        chooser = Target(selector=str(field_info["click"]))
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._on_screen(chooser)
            self._pending_upload = [path]
            try:
                if not (info.get("onTop") and self._send_click(float(info["x"]), float(info["y"]))):
                    raise PageError("hidden", f"The file field {target} is covered, so its chooser cannot be opened.")
                deadline = time.monotonic() + 3.0
                while self._pending_upload is not None and time.monotonic() < deadline:
                    await asyncio.sleep(0.03)
                if self._pending_upload is not None:
                    raise PageError("not_file_input", f"The page did not open a file chooser for {target}.")
            finally:
                self._pending_upload = None
            outcome = await self._settle(before_url, before_blocked)
            after = await self._checked("fileInput", target)
        names = ", ".join(map(str, after.get("names") or [])) or "nothing"
        label = field_info.get("label") or str(target)
        return self._with_settled(f'Gave the file {path} to "{label}"; the field now holds: {names}.', outcome)
