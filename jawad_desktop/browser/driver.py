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

The driver is built in layers, one module each: ``page_core.PageCore`` (state, the page library's
calls, input at a point), ``tab_following.TabFollowing`` (tabs, what an action opened),
``page_actions.PageActions`` (clicks, typing, keys, pointer, files) and, here, navigation and its guard.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator

from PySide6.QtCore import QUrl
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView

from jawad_desktop.browser.download_keeper import AGENT_WINDOW_S
from jawad_desktop.browser.page_actions import PageActions
from jawad_desktop.browser.page_core import NavigationGuard, RequestGuard
from jawad_desktop.core.sites import is_web_address, scheme_of, site_of
from jawad_desktop.core.tools.page import PageError, not_web_address

__all__ = ["NavigationGuard", "QtWebEnginePage", "RequestGuard"]

log = logging.getLogger("jawad.browser")

HISTORY_POLL_S = 0.05  # how often a history step looks whether the address changed


class QtWebEnginePage(PageActions):
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
        self.navigation_guard = navigation_guard
        self._agent_nav_allowed: str | None = None  # the URL of the agent's own navigate()
        self._agent_loading = 0  # > 0 while the agent's navigate, reload or history step loads
        self._agent_load_end = 0.0
        self._allowed_once: set[str] = set()  # cross-site targets of actions the user allowed
        old = view.page()
        shown = old.url() if old is not None else QUrl()
        super().__init__(view, profile)
        self._init_tabs(view)
        if self.adopted:
            return
        if shown.isValid() and not shown.isEmpty() and shown.scheme() in ("http", "https", "file"):
            self.page.load(shown)  # the page the user was looking at stays in view

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

    def allow_navigation_once(self, url: str) -> None:
        self._allowed_once.add(url.rstrip("/"))

    # -- loads the agent starts -------------------------------------------------------------------

    @contextlib.contextmanager
    def _agent_load(self) -> Iterator[asyncio.Future[bool]]:
        """A load the agent starts (navigate, reload, a history step): the waiter for its end, and the
        agent's loading window held open while it runs (a refresh or a script's redirect may follow)."""
        waiter = self._new_load_waiter()
        self._agent_loading += 1
        try:
            yield waiter
        finally:
            self._agent_loading -= 1
            self._agent_load_end = time.monotonic()
            if waiter in self._load_waiters:
                self._load_waiters.remove(waiter)

    async def navigate(self, url: str, *, timeout: float = 30.0) -> str:
        """Load ``url``; returns once its document is usable (DOMContentLoaded and a quiet moment,
        ``browser/readiness.py``), though images and adverts may still be loading."""
        qurl = QUrl.fromUserInput(url)
        if not qurl.isValid():
            raise PageError("navigation_failed", f"'{url}' is not a valid address.")
        if not is_web_address(qurl.toString()) or (scheme_of(url) and not is_web_address(url)):
            raise not_web_address(url)
        shown = await self.readiness.probe(0.5)  # the document this load replaces
        self._agent_nav_allowed = qurl.toString()
        try:
            with self._agent_load() as waiter:
                self.page.load(qurl)
                usable = await self.readiness.wait_usable(timeout, origin=shown.id if shown else None, load=waiter)
                if not usable and not waiter.done():
                    self.page.triggerAction(QWebEnginePage.WebAction.Stop)
                    raise PageError("timeout", f"{url} did not load within {timeout:.0f} s; it was stopped "
                                    "(read_page shows what arrived).")
        finally:
            self._agent_nav_allowed = None
        if waiter.done() and not waiter.result():
            raise PageError("navigation_failed", f"{url} could not be loaded (the site did not answer or refused).")
        return self.page.url().toString()

    async def go_back(self, *, timeout: float = 15.0) -> str:
        if not self.page.history().canGoBack():
            raise PageError("navigation_failed", "There is no previous page to go back to.")
        return await self._history_step(QWebEnginePage.WebAction.Back, timeout)

    async def go_forward(self, *, timeout: float = 15.0) -> str:
        if not self.page.history().canGoForward():
            raise PageError("navigation_failed", "There is no next page to go forward to.")
        return await self._history_step(QWebEnginePage.WebAction.Forward, timeout)

    async def reload(self, *, timeout: float = 30.0) -> str:
        shown = await self.readiness.probe(0.5)  # the document the reload replaces
        with self._agent_load() as waiter:
            self.page.triggerAction(QWebEnginePage.WebAction.Reload)
            if not await self.readiness.wait_usable(timeout, origin=shown.id if shown else None, load=waiter):
                if not waiter.done():
                    raise PageError("timeout", f"The page did not load again within {timeout:.0f} s.")
                raise PageError("navigation_failed", "The page could not be loaded again (the site did not answer).")
        return self.page.url().toString()

    async def _history_step(self, action: QWebEnginePage.WebAction, timeout: float) -> str:
        before = self.page.url().toString()
        with self._agent_load() as waiter:
            self.page.triggerAction(action)
            deadline = time.monotonic() + timeout
            # The step may be served from the back-forward cache without a load: watch the URL too.
            while time.monotonic() < deadline and not waiter.done() and self.page.url().toString() == before:
                await asyncio.sleep(HISTORY_POLL_S)
            if not waiter.done() and self._loading:
                await self.readiness.wait_usable(max(0.1, deadline - time.monotonic()))
        return self.page.url().toString()
