"""``BrowserSession``: the one page the agent works on, and how the browser tools act on it.

The session holds the page, Harbor (for the inspector), the page cache, what the user asked
(for provenance checks) and the last reading. It reads the page (``read``, which also writes
the page cache), gives the agent the page and the last product for the system prompt, builds
search URLs, and runs every acting tool the same way (``act``: show the target, act, clear the
highlight, say where the page went). ``page_errors`` is the one place a page's failure
(``PageError``) becomes feedback for the model (``ToolError``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import KW_ONLY, dataclass, field
from typing import Any
from urllib.parse import quote_plus

from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import CallInsight, PermissionCheck
from jawad_desktop.core.store.page_cache import CachedPageSnapshot, PageCache
from jawad_desktop.core.tools.browser import inspector
from jawad_desktop.core.tools.browser.reading import MAX_ELEMENTS, PageReading, read_page
from jawad_desktop.core.tools.page import ActionOutcome, Page, PageContext, PageError, Target
from jawad_desktop.core.tools.registry import ToolError, ToolResult

log = logging.getLogger("jawad.browser")

DEFAULT_SEARCH_ENGINE = "https://html.duckduckgo.com/html/?q={query}"
USER_TEXTS_KEPT = 20  # the user's latest messages kept for provenance checks

PageAction = Callable[[Page], Awaitable[ActionOutcome]]


@contextlib.contextmanager
def page_errors() -> Iterator[None]:
    """Turn a ``PageError`` raised inside the block into a ``ToolError`` the model reads.

    Page errors already say what happened and what to try (``core.tools.page.ERROR_MESSAGES``);
    the tools pass them on as they are.
    """
    try:
        yield
    except PageError as exc:
        raise ToolError(exc.message) from None


def search_url_for(engine: str, query: str) -> str:
    """The results URL of ``engine`` (a template with ``{query}``, else the query is appended)."""
    template = engine or DEFAULT_SEARCH_ENGINE
    if "{query}" not in template:
        template += "{query}"
    return template.replace("{query}", quote_plus(query))


def _navigation_sentence(outcome: ActionOutcome) -> str:
    """What the model must know about where an action took the page."""
    if outcome.blocked_navigation:
        return (f" The action tried to open {outcome.blocked_navigation} on another site; the browser blocked it. "
                "Use navigate with that URL if the user wants to go there (they will be asked).")
    if outcome.navigated_to:
        return f" The page is now {outcome.navigated_to}; call read_page to see it."
    return ""


@dataclass
class BrowserSession:
    """One page the agent works on, with Harbor, the page cache and what the user asked."""

    page: Page
    _: KW_ONLY
    harbor: Harbor | None = None
    cache: PageCache | None = None
    search_engine: str = DEFAULT_SEARCH_ENGINE
    max_elements: int = MAX_ELEMENTS
    highlight_s: float = 0.35  # how long the target stays highlighted before the action
    user_texts: list[str] = field(default_factory=list)
    last_reading: PageReading | None = None

    def note_user_message(self, text: str) -> None:
        """Remember what the user asked (provenance checks compare actions against it)."""
        self.user_texts.append(text)
        del self.user_texts[:-USER_TEXTS_KEPT]

    # -- reading ---------------------------------------------------------------------------------

    async def read(self) -> PageReading:
        """Read the page (``PageError`` when it cannot be read); the reading goes to the page cache."""
        reading = await read_page(self.page, max_elements=self.max_elements)
        self.last_reading = reading
        if self.cache is not None and reading.url and not reading.url.startswith("about:"):
            await self.cache.cache_page_snapshot(CachedPageSnapshot(
                url=reading.url, title=reading.title, markdown=reading.markdown, product=reading.product,
                interactive_elements=reading.interactive_elements))
        return reading

    async def page_context(self) -> PageContext:
        """The current page for the system prompt (read fresh; spec 000 context injection)."""
        return (await self.read()).page_context()

    async def last_product(self) -> dict[str, Any] | None:
        """The product of an earlier page, from the page cache (for "cheaper than that one")."""
        if self.cache is None:
            return None
        current = await self.page.url()
        return await self.cache.get_last_product_context(exclude_url=current)

    def search_url(self, query: str) -> str:
        """The results URL for ``query`` on this session's search engine."""
        return search_url_for(self.search_engine, query)

    # -- acting ----------------------------------------------------------------------------------

    async def act(self, target: Target, what: str, action: PageAction) -> ToolResult:
        """Run an acting tool's page action the one way they all run.

        The target is highlighted for ``highlight_s`` first, so the user sees what is about to
        happen; the highlight is cleared after the action, or when it fails; the model is told
        when the action took the page elsewhere or the browser blocked that.
        """
        with page_errors():
            await self.page.describe(target)  # a gone or hidden element fails before it is highlighted
            await self.page.highlight(target, f"Jawad: {what}")
        if self.highlight_s > 0:
            await asyncio.sleep(self.highlight_s)
        with page_errors():
            try:
                outcome = await action(self.page)
            except PageError:
                await self.page.clear_highlight()
                raise
        await self.page.clear_highlight()
        return ToolResult(for_model=outcome.message + _navigation_sentence(outcome), for_log=outcome.message,
                          ok=not outcome.blocked_navigation)

    # -- Harbor ----------------------------------------------------------------------------------

    async def inspect(self, check: PermissionCheck) -> CallInsight | None:
        """The ``HarborGate`` inspector for this session's page (see ``inspector.inspect``)."""
        return await inspector.inspect(self, check)
