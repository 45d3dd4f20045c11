"""When a page in the QtWebEngine driver can be read: its document has passed DOMContentLoaded and
its DOM has been quiet for a moment, not when the last advert of the page has loaded.

``PageReadiness`` asks the page library (``core/tools/js/page``, ``J.readiness``) about the
document it runs in: an id of its own (the library runs once per document), ``document.readyState``,
the time since DOMContentLoaded and the time since the DOM's nodes or text last changed. While a load
runs, the document that counts is a new one: a document whose id is the one shown when the load
started is the page the load is replacing. The id shown then is asked for as the load starts
(``load_started``); ``navigate`` knows it exactly, having asked before it loads.

A document is usable when it is the load's own (or no load runs), has passed DOMContentLoaded, and
its DOM has not changed for ``QUIET_S``; a page that never stops changing (a ticker, a carousel that
rebuilds itself) is usable ``READY_CAP_S`` after DOMContentLoaded, or ``AFTER_LOAD_S`` after its
load finished. A page still loading then is read as it is, with a note (``reading.py``).

After an action, ``settle`` gives the page time to answer it: until neither its DOM nor a request has
changed for ``SETTLE_QUIET_S`` (a request still under way is not seen, only the ones that ended), or a
load has started, at most ``SETTLE_CAP_S``; never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtWebEngineCore import QWebEnginePage

from jawad_desktop.browser.guarded_page import WORLD
from jawad_desktop.core.tools.page import PageError, page_script

log = logging.getLogger("jawad.browser")

QUIET_S = 0.4  # no change to the DOM for this long after DOMContentLoaded: the page is usable
READY_CAP_S = 3.0  # ... or this long after DOMContentLoaded, whatever still changes
AFTER_LOAD_S = 1.0  # ... or this long after its load finished
POLL_S = 0.05
# After an action: settled when neither the DOM nor a request has changed for SETTLE_QUIET_S, waiting
# at least SETTLE_GRACE_S (a navigation the action starts shows within it), at most SETTLE_CAP_S.
SETTLE_QUIET_S = 0.25
SETTLE_GRACE_S = 0.12
SETTLE_CAP_S = 2.0

PROBE = "(function(){var J=window.__jawad;return J&&J.readiness?J.call('readiness',[]):null;})()"


class _Pending:
    """The id of the document a load replaces, while the page has not said it yet."""


PENDING = _Pending()
LOAD_ORIGIN = object()  # ``wait_usable``: the load in progress is the one the page started

RunJs = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class DocumentState:
    """What the page library says about the document it runs in (``J.readiness``)."""

    id: str
    ready_state: str  # document.readyState: loading, interactive, complete
    url: str
    since_ready_ms: float  # since DOMContentLoaded ended; -1 before it
    quiet_ms: float  # since the DOM's nodes or text last changed
    net_ms: float = 1e9  # since the page's last request finished (one under way is not seen)
    moving: int = 0  # CSS transitions and animations under way that end (a dialog fading in)

    @classmethod
    def parse(cls, raw: Any) -> DocumentState | None:
        """From the probe's answer; None when the library is not in the document (PySide gives "" for
        a script's null) or the answer is not one."""
        if not isinstance(raw, str) or not raw:
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(data, dict) or not data.get("id"):
            return None
        return cls(id=str(data["id"]), ready_state=str(data.get("state", "")), url=str(data.get("url", "")),
                   since_ready_ms=float(data.get("sinceReady", -1)), quiet_ms=float(data.get("quiet", 0)),
                   net_ms=float(data.get("net", 1e9)), moving=int(data.get("moving", 0) or 0))


class PageReadiness:
    """Tells the driver when ``page``'s document is usable. The driver calls ``load_started`` and
    ``load_finished`` from its load signals; ``run_js(source, timeout=...)`` runs a script in the
    library's world (the driver's own, with its timeout)."""

    def __init__(self, page: QWebEnginePage, run_js: RunJs, *, loading: bool = False) -> None:
        self.page = page
        self._run_js = run_js
        self.loading = loading
        self._load_seq = 0
        self._origin: str | _Pending | None = None  # the document the running load replaces
        self._finished_at = time.monotonic()

    def load_started(self) -> None:
        self.loading = True
        self._load_seq += 1
        seq = self._load_seq
        self._origin = PENDING

        # Asked at once: the old document answers, since the new one needs the server's answer first.
        # Should the new one answer (a very fast server), its id makes the wait the load's whole
        # length, as before; before DOMContentLoaded it has no library, and None is right.
        def answered(raw: Any) -> None:
            if self._load_seq == seq and self._origin is PENDING:
                state = DocumentState.parse(raw)
                self._origin = state.id if state else None

        self.page.runJavaScript(PROBE, WORLD, answered)

    def load_finished(self) -> None:
        self.loading = False
        self._finished_at = time.monotonic()

    async def probe(self, timeout: float = 1.0) -> DocumentState | None:
        """The document's state now; None when the library is not there or the page did not answer."""
        try:
            raw = await self._run_js(PROBE, timeout=timeout)
        except PageError:
            return None
        return DocumentState.parse(raw)

    async def wait_usable(self, timeout: float, *, origin: object = LOAD_ORIGIN,
                          load: asyncio.Future[bool] | None = None) -> bool:
        """Wait until the page is usable (see the module's docstring); False after ``timeout``, or at
        once when ``load`` ended in failure.

        ``load``: the load to watch (``navigate``'s own, whose start may not be signalled yet), with
        ``origin``, the id of the document it replaces (None: one without the library). Without it,
        the load the page signalled and the id asked for as it started."""
        deadline = time.monotonic() + timeout
        injected = False
        while True:
            loading = self.loading if load is None else not load.done()
            if load is not None and load.done() and not load.result():
                return False
            state = await self.probe(max(0.1, min(1.0, deadline - time.monotonic())))
            if state is None and not loading and not injected:
                # No library in a loaded document: a page opened before the script was installed, or
                # a load stopped before DOMContentLoaded. Put it there (it starts watching then).
                injected = True
                try:
                    await self._run_js(page_script(), timeout=max(0.5, deadline - time.monotonic()))
                except PageError:
                    log.debug("could not add the page library to %s", self.page.url().toString())
                continue
            if state is None and not loading:
                return True  # a page no script runs in (an error page): the caller finds out
            if state is not None and self._usable(state, loading, self._origin if origin is LOAD_ORIGIN else origin):
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_S)

    async def settle(self, cap: float = SETTLE_CAP_S) -> bool:
        """After an action: wait until the page has settled (no change to its DOM and no request ending
        for ``SETTLE_QUIET_S``, no CSS transition under way) or a load has started; at most ``cap``
        seconds, never a fixed sleep: a
        click that changes nothing returns after ``SETTLE_GRACE_S``. True when a load started (the
        caller waits for the new document with ``wait_usable``)."""
        start = time.monotonic()
        deadline = start + cap
        while True:
            if self.loading:
                return True
            state = await self.probe(max(0.1, min(1.0, deadline - time.monotonic())))
            if self.loading:
                return True
            elapsed = time.monotonic() - start
            # A transition under way (a dialog fading in) is no quiet page: what it shows is not there yet.
            quiet = min(state.quiet_ms, state.net_ms) if state is not None and not state.moving else (
                0.0 if state is not None else 1e9)
            if elapsed >= SETTLE_GRACE_S and quiet >= SETTLE_QUIET_S * 1000:
                return False
            if time.monotonic() >= deadline:
                log.debug("the page was still changing %.1f s after an action", cap)
                return False
            await asyncio.sleep(POLL_S)

    def _usable(self, state: DocumentState, loading: bool, origin: object) -> bool:
        if loading and (origin is PENDING or state.id == origin or state.ready_state == "loading"
                        or state.url.startswith("chrome-error:")):
            # Still the document the load replaces, the new one before DOMContentLoaded, or the
            # browser's error page (the load is about to fail).
            return False
        if state.quiet_ms >= QUIET_S * 1000 or state.since_ready_ms >= READY_CAP_S * 1000:
            return True
        return not loading and time.monotonic() - self._finished_at >= AFTER_LOAD_S
