"""``BrowserSession``: the one page the agent works on.

The session holds the page, Harbor (for the inspector), the page cache, what the user asked
(for provenance checks) and the last reading. It reads the page (``read``, which also writes
the page cache), gives the agent the page and the last product for the system prompt, and
builds search URLs. The tools that act on it are ``tools``; the Harbor inspector that looks
at a call before it runs is ``inspector``.
"""

from __future__ import annotations

import logging
from dataclasses import KW_ONLY, dataclass, field
from typing import Any
from urllib.parse import quote_plus

from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.store.page_cache import CachedPageSnapshot, PageCache
from jawad_desktop.core.tools.browser.hand_over import HandOver
from jawad_desktop.core.tools.browser.reading import MAX_ELEMENTS, PageReading, read_page
from jawad_desktop.core.tools.page import Page, PageContext

log = logging.getLogger("jawad.browser")

DEFAULT_SEARCH_ENGINE = "https://html.duckduckgo.com/html/?q={query}"
USER_TEXTS_KEPT = 20  # the user's latest messages kept for provenance checks
TYPED_KEPT = 50  # texts typed into fields kept for the data-flow check of a submit

def search_url_for(engine: str, query: str) -> str:
    """The results URL of ``engine`` (a template with ``{query}``, else the query is appended)."""
    template = engine or DEFAULT_SEARCH_ENGINE
    if "{query}" not in template:
        template += "{query}"
    return template.replace("{query}", quote_plus(query))


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
    acted_since_reading: bool = False  # an action may have changed the page under the same URL
    # The round trip that hands the page to the user (a login, a CAPTCHA...); None: nobody to hand it to.
    hand_over: HandOver | None = None
    # What the agent typed into the fields of a page (URL, text): a submit sends it (data-flow check).
    typed: list[tuple[str, str]] = field(default_factory=list)

    def note_typed(self, url: str, text: str) -> None:
        self.typed.append((url, text))
        del self.typed[:-TYPED_KEPT]

    def typed_on(self, url: str) -> list[str]:
        """What the agent typed into fields of the page at ``url``."""
        return [text for where, text in self.typed if where == url]

    def note_user_message(self, text: str) -> None:
        """Remember what the user asked (provenance checks compare actions against it)."""
        self.user_texts.append(text)
        del self.user_texts[:-USER_TEXTS_KEPT]

    # -- reading ---------------------------------------------------------------------------------

    async def read(self) -> PageReading:
        """Read the page (``PageError`` when it cannot be read); the reading goes to the page cache."""
        reading = await read_page(self.page, max_elements=self.max_elements)
        self.last_reading = reading
        if self.harbor is not None:  # what the agent read, for the data-flow check
            self.harbor.dataflow.record(reading.text, reading.url)
            # The page's links (and the page itself): opening one is following the page, not an
            # address the assistant composed (``DataFlow.composed``).
            self.harbor.dataflow.record_links([reading.url, *(str(e["href"]) for e in reading.elements
                                                              if e.get("href"))])
        self.acted_since_reading = False
        await self._remember(reading)
        return reading

    async def reading_of_current_page(self) -> tuple[PageReading, bool]:
        """The last reading while the page is still the one read (same URL, no action since),
        else a new reading; and whether the last one was reused. A further part of a long page,
        a folded section or a search in it then costs no new snapshot (the agent reads the page
        for its prompt before each step anyway)."""
        last = self.last_reading
        if last is not None and not self.acted_since_reading and last.url == await self.page.url():
            return last, True
        return await self.read(), False

    async def cache_current_page(self) -> PageReading | None:
        """Read the page only to write it to the page cache (a page the user browsed by hand,
        spec 001 PAGE_CONTENT_READY); ``last_reading``, which the inspector's provenance checks
        use, stays the agent's own. None without a cache."""
        if self.cache is None:
            return None
        reading = await read_page(self.page, max_elements=self.max_elements)
        await self._remember(reading)
        return reading

    async def _remember(self, reading: PageReading) -> None:
        if self.cache is not None and reading.url and not reading.url.startswith(("about:", "data:", "chrome-error:")):
            await self.cache.cache_page_snapshot(CachedPageSnapshot(
                url=reading.url, title=reading.title, markdown=reading.markdown, product=reading.product,
                interactive_elements=reading.interactive_elements))

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
