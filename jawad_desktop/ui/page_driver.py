"""The QtWebEngine implementation of the core's ``Page`` interface.

``QtWebEnginePage(view)`` drives a ``QWebEngineView`` the user can see (the main window's
browser pane, or an offscreen view in the CLI and tests):

- The page library (``core/tools/js/jawad_page.js``) is injected with ``QWebEngineScript`` into
  an isolated JavaScript world (``ApplicationWorld``), subframes included, so the page's own
  scripts can neither see nor tamper with it. Calls go through ``runJavaScript`` wrapped in
  asyncio Futures, which works on the one qasync loop.
- Clicks are trusted: the element is scrolled into view, hit-tested, and a real mouse press and
  release are sent to ``view.focusProxy()`` at its centre. When something covers the element
  (or the view cannot take input) a JavaScript click is the fallback, and the outcome says so.
- Navigations an agent action starts are enforced in ``acceptNavigationRequest``: while an
  action runs, a main-frame navigation to another site needs ``navigation_guard`` to say yes;
  otherwise it is refused and reported back to the model as blocked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QPointF, Qt, QUrl
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication

from jawad_desktop.core.sites import site_of
from jawad_desktop.core.tools.page import (
    ActionOutcome,
    ElementInfo,
    PageError,
    RawSnapshot,
    ScrollWhere,
    Target,
    error_for,
    page_script,
)
from jawad_desktop.ui.browser_pane import WORLD, GuardedWebPage, install_page_script

log = logging.getLogger("jawad.browser")

# A navigation guard answers: may the agent's action take the page from ``from_url`` to ``to_url``?
NavigationGuard = Callable[[str, str], bool]


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
        else:
            chosen = profile or (old.profile() if old is not None else None) or QWebEngineProfile.defaultProfile()
            self.profile = chosen
            self.page = GuardedWebPage(chosen, view, self)
            install_page_script(self.page)
            view.setPage(self.page)
            # setPage deletes a page the view created itself; one a caller parented to the view is ours to drop.
            if old is not None and shiboken6.isValid(old) and old is not self.page and old.parent() is view:
                old.deleteLater()
        self._agent_depth = 0  # > 0 while an agent action may cause navigations
        self._agent_nav_allowed: str | None = None  # the URL of the agent's own navigate()
        self._allowed_once: set[str] = set()  # cross-site targets of actions the user allowed
        self.blocked_navigations: list[str] = []
        self.dialogs: list[str] = []  # JavaScript dialogs the page showed during agent actions
        self._load_waiters: list[asyncio.Future[bool]] = []
        self._loading = self.page.loading
        self.page.loadStarted.connect(self._on_load_started)
        self.page.loadFinished.connect(self._on_load_finished)
        if self.adopted:
            return
        if shown.isValid() and not shown.isEmpty() and shown.scheme() in ("http", "https", "file"):
            self.page.load(shown)  # the page the user was looking at stays in view

    async def close(self, *, release_profile: bool = False, settle_s: float = 0.5) -> None:
        """Delete the page now (a page must go before its profile); with ``release_profile`` also
        delete the profile and give Chromium ``settle_s`` to write its cookies and storage to
        disk, which it otherwise does only every 30 s (a process that ends with ``os._exit``
        right after would lose them)."""
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

    def _allow_navigation(self, target: str) -> bool:
        if self._agent_nav_allowed is not None and target.rstrip("/") == self._agent_nav_allowed.rstrip("/"):
            return True
        if self._agent_depth <= 0 or self.navigation_guard is None:
            return True
        once = target.rstrip("/")
        if once in self._allowed_once:
            self._allowed_once.discard(once)
            return True
        current = self.page.url().toString()
        if site_of(target) == site_of(current) or target.startswith(("about:", "data:", "javascript:")):
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

    def allow_navigation_once(self, url: str) -> None:
        self._allowed_once.add(url.rstrip("/"))

    def _on_load_started(self) -> None:
        self._loading = True

    def _on_load_finished(self, ok: bool) -> None:
        self._loading = False
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

    async def title(self) -> str:
        return self.page.title()

    async def navigate(self, url: str, *, timeout: float = 30.0) -> str:
        qurl = QUrl.fromUserInput(url)
        if not qurl.isValid():
            raise PageError("navigation_failed", f"'{url}' is not a valid address.")
        waiter = self._new_load_waiter()
        self._agent_nav_allowed = qurl.toString()
        try:
            self.page.load(qurl)
            try:
                ok = await asyncio.wait_for(waiter, timeout)
            except TimeoutError:
                self.page.triggerAction(QWebEnginePage.WebAction.Stop)
                raise PageError(
                    "timeout", f"{url} did not finish loading within {timeout:.0f} s; it was stopped."
                ) from None
        finally:
            self._agent_nav_allowed = None
        now = self.page.url().toString()
        if not ok:
            raise PageError("navigation_failed", f"{url} could not be loaded (the site did not answer or refused).")
        return now

    async def go_back(self, *, timeout: float = 15.0) -> str:
        history = self.page.history()
        if not history.canGoBack():
            raise PageError("navigation_failed", "There is no previous page to go back to.")
        before = self.page.url().toString()
        waiter = self._new_load_waiter()
        self.page.triggerAction(QWebEnginePage.WebAction.Back)
        deadline = time.monotonic() + timeout
        # Back may be served from the back-forward cache without a load: watch the URL too.
        while time.monotonic() < deadline:
            if waiter.done() or self.page.url().toString() != before:
                break
            await asyncio.sleep(0.05)
        if not waiter.done() and self._loading:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, max(0.1, deadline - time.monotonic()))
        if waiter in self._load_waiters:
            self._load_waiters.remove(waiter)
        return self.page.url().toString()

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
        encoded = json.dumps(list(args))
        source = (
            "(function(){var J=window.__jawad;if(!J)return null;"
            f"return J.call({json.dumps(function)}, {encoded});}})()"
        )
        # A script sent while a document loads can be lost with the old document (its answer
        # never comes): let a load in progress finish first.
        await self.wait_until_loaded(timeout)
        raw = await self.run_js(source, timeout=timeout)
        if raw is None:
            # The library is not in this document yet (a load in progress, or a page opened
            # before the script was installed): inject it into the isolated world now.
            await self.run_js(page_script(), timeout=timeout)
            raw = await self.run_js(source, timeout=timeout)
            if raw is None:
                raise PageError("no_page", "The page script could not run on this page (is a page loaded?).")
        return json.loads(raw)

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
        return RawSnapshot.from_js(data)

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
        """After an action: wait briefly for a navigation it started, and say what happened."""
        deadline = time.monotonic() + 0.35
        while time.monotonic() < deadline and not self._loading:
            await asyncio.sleep(0.03)
        if self._loading:
            await self.wait_until_loaded(30.0)
        now = self.page.url().toString()
        blocked = self.blocked_navigations[before_blocked:]
        dialogs, self.dialogs = self.dialogs, []
        return ActionOutcome(
            message=" ".join(f"The page showed a dialog: {d}." for d in dialogs),
            navigated_to=now if now != before_url else "",
            blocked_navigation=blocked[-1] if blocked else "",
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
            self.driver._agent_depth += 1

        def __exit__(self, *exc: object) -> None:
            self.driver._agent_depth -= 1

    def agent_action(self) -> QtWebEnginePage._AgentAction:
        """A context in which navigations are the agent's doing (the guard applies)."""
        return QtWebEnginePage._AgentAction(self)

    async def click(self, target: Target) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._checked("prepare", target)
            if info.get("disabled"):
                raise error_for("disabled", target)
            # Let the scroll reach the compositor before the click lands on screen coordinates.
            await asyncio.sleep(0.05)
            info = await self._checked("prepare", target)
            trusted = False
            if info.get("onTop") and self._point_in_view(info):
                trusted = self._send_click(float(info["x"]), float(info["y"]))
            if not trusted:
                await self._checked("jsClick", target)
            outcome = await self._settle(before_url, before_blocked)
        label = str(info.get("label") or info.get("selector") or target)
        how = "" if trusted else " (with a JavaScript click: the element was covered or off screen)"
        message = f'Clicked {info.get("role", "element")} "{label}"{how}.'
        if outcome.message:
            message += " " + outcome.message
        return ActionOutcome(message=message, navigated_to=outcome.navigated_to, trusted=trusted,
                             blocked_navigation=outcome.blocked_navigation)

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
        label = info.label or info.selector
        return ActionOutcome(
            message=f'Typed "{text}" into {info.role} "{label}"{submitted}.' + (
                f" {outcome.message}" if outcome.message else ""),
            navigated_to=outcome.navigated_to,
            blocked_navigation=outcome.blocked_navigation,
        )

    async def select_option(self, target: Target, option: str) -> ActionOutcome:
        with self.agent_action():
            result = await self._checked("selectOption", target, option)
            info = await self.describe(target)
        return ActionOutcome(message=f'Selected "{result.get("text", option)}" in "{info.label or info.selector}".')

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
                             navigated_to=outcome.navigated_to, trusted=outcome.trusted)

    async def scroll(self, where: ScrollWhere | Target) -> ActionOutcome:
        if isinstance(where, Target):
            await self._checked("scrollTo", where)
            return ActionOutcome(message=f"Scrolled element {where} into view.")
        result = await self.call("scroll", where)
        if not isinstance(result, dict) or not result.get("ok"):
            raise PageError("script_error", "The page could not be scrolled.")
        after, top = float(result.get("after", 0)), float(result.get("max", 0))
        if after == float(result.get("before", 0)) and where in ("up", "down"):
            edge = "top" if where == "up" else "bottom"
            return ActionOutcome(message=f"Already at the {edge} of the page; nothing more to scroll.")
        position = "the top" if after <= 0 else "the bottom" if after >= top - 1 else f"{after / max(top, 1):.0%}"
        return ActionOutcome(message=f"Scrolled {where}; now at {position} of the page.")

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
