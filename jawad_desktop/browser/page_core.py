"""The page driver's core: its state, its calls into the page library and the mouse and keys it sends.

``PageCore`` holds what every part of the driver shares: the page and view it drives, the
profile's request filter, the load state (``PageReadiness``), the page library's calls
(``call``, ``snapshot``, ``screenshot``), an agent action's context (``agent_action``) and real
input events at a point. The tabs it follows are ``tab_following.TabFollowing``'s, the actions on
elements ``page_actions.PageActions``', and navigation and its guard ``driver.QtWebEnginePage``'s.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QPointF, Qt
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
from jawad_desktop.browser.download_keeper import AGENT_WINDOW_S
from jawad_desktop.browser.guarded_page import WORLD, GuardedWebPage, install_page_script
from jawad_desktop.browser.readiness import PageReadiness
from jawad_desktop.browser.screenshot import marked_screenshot
from jawad_desktop.core.sites import is_web_address
from jawad_desktop.core.tools.page import (
    ActionOutcome,
    ElementInfo,
    PageError,
    RawSnapshot,
    Target,
    error_for,
    not_web_address,
    page_script,
)

log = logging.getLogger("jawad.browser")

# A navigation guard answers: may the agent's action take the page from ``from_url`` to ``to_url``?
NavigationGuard = Callable[[str, str], bool]
RequestGuard = Callable[[str, str, str], bool]  # (page address, request address, method) -> allowed


def _well_formed(value: Any) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_well_formed(v) for v in value]
    if isinstance(value, dict):
        return {_well_formed(k): _well_formed(v) for k, v in value.items()}
    return value


def resolve_waiters(waiters: Iterable[asyncio.Future[bool]], ok: bool) -> None:
    """Tell everyone waiting for a load that it ended (``ok``: it succeeded)."""
    for fut in waiters:
        if not fut.done():
            fut.set_result(ok)


class _RequestFilter(QWebEngineUrlRequestInterceptor):
    """Asks the driver's ``request_guard`` about each request a page makes to another site (its
    scripts' fetches and beacons, its frames, its images): one that would carry what the agent read
    is blocked. The page's own navigations are ``acceptNavigationRequest``'s."""

    def __init__(self, driver: PageCore) -> None:
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


class PageCore:
    """What the driver's parts share (see the module's docstring); ``QtWebEnginePage`` is the driver."""

    def __init__(self, view: QWebEngineView, profile: QWebEngineProfile | None) -> None:
        self.view = view
        # Decides a page's own requests to other sites (core.tools.browser.make_request_guard); None: all go.
        self.request_guard: RequestGuard | None = None
        self.blocked_requests: list[str] = []
        old = view.page()
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
        self.blocked_navigations: list[str] = []
        self.dialogs: list[str] = []  # JavaScript dialogs the page showed during agent actions
        self._load_waiters: list[asyncio.Future[bool]] = []
        self._loading = self.page.loading
        # When the document can be read (DOMContentLoaded and a quiet moment, not the load event).
        self.readiness = PageReadiness(self.page, self.run_js, loading=self._loading)
        self._request_filter = _RequestFilter(self)
        self.profile.setUrlRequestInterceptor(self._request_filter)
        self._action_page: QWebEnginePage | None = None  # the tab an agent action runs on
        self._action_started = 0.0
        self._tabs_before = 0
        self.last_action_end = time.monotonic() - 2 * AGENT_WINDOW_S
        self.opened_tabs: list[QWebEnginePage] = []  # tabs the pages opened, oldest first
        self._pending_upload: list[str] | None = None  # the file the agent's upload gives the page's chooser

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

    def _on_load_started(self) -> None:
        self._loading = True
        self.readiness.load_started()

    def _on_load_finished(self, ok: bool) -> None:
        self._loading = False
        self.readiness.load_finished()
        waiters, self._load_waiters = self._load_waiters, []
        resolve_waiters(waiters, ok)

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

    async def wait_until_loaded(self, timeout: float = 30.0) -> bool:
        """Wait for a load in progress to finish (True at once when none is running)."""
        if not self._loading:
            return True
        try:
            async with asyncio.timeout(timeout):  # not wait_for: see run_js
                return await self._new_load_waiter()
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
            # Not asyncio.wait_for: on Python 3.11 it returns the answer when Stop cancels the task as
            # the answer arrives, and the run goes on (a navigation waited its 30 s after Stop).
            async with asyncio.timeout(timeout):
                return await fut
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

    # -- input at a point ----------------------------------------------------------------------

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
        def __init__(self, driver: PageCore) -> None:
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

    def agent_action(self) -> PageCore._AgentAction:
        """A context in which navigations are the agent's doing (the guard applies)."""
        return PageCore._AgentAction(self)

    def _acting_recently(self) -> bool:
        return self._agent_depth > 0 or time.monotonic() - self.last_action_end < AGENT_WINDOW_S

    @staticmethod
    def _with_settled(message: str, outcome: ActionOutcome, trusted: bool = True) -> ActionOutcome:
        return ActionOutcome(message=message + (f" {outcome.message}" if outcome.message else ""),
                             navigated_to=outcome.navigated_to, trusted=trusted,
                             blocked_navigation=outcome.blocked_navigation, opened_tab=outcome.opened_tab,
                             download=outcome.download)

    def _point_in_view(self, info: dict[str, Any]) -> bool:
        viewport = info.get("viewport") or {}
        x, y = float(info.get("x", -1)), float(info.get("y", -1))
        return 0 <= x < float(viewport.get("width", 0)) and 0 <= y < float(viewport.get("height", 0))

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
