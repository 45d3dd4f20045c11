"""The tabs the page driver follows, and what an action opened: ``TabFollowing``.

Every tab's page is driven by the one driver (its navigation guard and dialogs); the one it reads
and acts on is the tab shown, and each tab keeps its load state while another is shown. After an
action ``_settle`` says what happened: a dialog, a navigation, a tab it opened or closed, a download.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from dataclasses import dataclass, field

import shiboken6
from PySide6.QtWebEngineCore import QWebEnginePage
from PySide6.QtWebEngineWidgets import QWebEngineView

from jawad_desktop.browser.download_keeper import DownloadGuard, DownloadKeeper
from jawad_desktop.browser.page_core import PageCore, resolve_waiters
from jawad_desktop.browser.readiness import PageReadiness
from jawad_desktop.browser.tabs import PageTabs, offscreen_tabs
from jawad_desktop.core.tools.page import ActionOutcome, DownloadInfo, PageError, TabInfo

log = logging.getLogger("jawad.browser")


@dataclass(eq=False)
class _Parked:
    """A tab's load state while the driver drives another tab."""

    readiness: PageReadiness
    loading: bool
    waiters: list[asyncio.Future[bool]] = field(default_factory=list)


class TabFollowing(PageCore):
    """The driver's tabs: the shown one is driven, the others parked with their load state."""

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

    # -- tabs ------------------------------------------------------------------------------------
    # Every tab's page is driven by this driver (its navigation guard and dialogs); the one it reads
    # and acts on is the tab shown. Each tab keeps its load state while another is shown.

    def _init_tabs(self, view: QWebEngineView) -> None:
        self._parked: dict[QWebEnginePage, _Parked] = {}
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
            resolve_waiters(waiters, ok)

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
            resolve_waiters(self._load_waiters, False)  # the tab closed: its loads will not end
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
