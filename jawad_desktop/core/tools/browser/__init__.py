"""The browser: reading a page, acting on it through the tools, and telling Harbor what an action does.

- ``reading``: ``read_page`` and ``PageReading`` (content, product, elements, flags).
- ``product``: the product on a page (``extract_product``), from its structured data and, in
  ``product_page``, the page as shown (the current price, identifiers, availability).
- ``elements``: the element list the model reads (regions, state, navigation folded, a budget).
- ``parts``: a long page's content in parts, its outline, and finding text in all of it
  (``read_page(part=N)``, ``find_in_page``).
- ``provenance``: where text came from (the page or the user) and page text flagged as
  instructions to an AI; ``wrap_untrusted`` labels page text for the model.
- ``session``: ``BrowserSession``, the page the agent works on (its reading, the page cache).
- ``inspector``: the ``HarborGate`` inspector (``inspector_for(session)``) and the page driver's
  navigation guard.
- ``downloads``: asking before a download the agent started is kept (the driver's download guard);
  ``uploads``: only a file the user named is uploaded.
- ``browser_tools``: ``browser_registry()``, the tools the model calls (declared in ``reading_tools``,
  ``element_tools``, ``moving_tools``); ``tool_running``: the one way they act (``act``) and the
  one place page errors become tool errors (``page_errors``).

Everything here is written against the ``core.tools.page.Page`` interface, never a browser engine.
"""

from jawad_desktop.core.tools.browser.browser_session import DEFAULT_SEARCH_ENGINE, BrowserSession
from jawad_desktop.core.tools.browser.browser_tools import browser_registry
from jawad_desktop.core.tools.browser.downloads import make_download_guard
from jawad_desktop.core.tools.browser.inspector import (
    inspect,
    inspector_for,
    make_navigation_guard,
    make_request_guard,
)
from jawad_desktop.core.tools.browser.provenance import carries_page_data, find_injections, said_by_user, wrap_untrusted
from jawad_desktop.core.tools.browser.reading import (
    MAX_ELEMENTS,
    MAX_MARKDOWN_CHARS,
    PageReading,
    extract_product,
    format_elements,
    html_to_markdown,
    parse_snapshot,
    read_page,
)
from jawad_desktop.core.tools.browser.tool_running import page_errors

__all__ = [
    "DEFAULT_SEARCH_ENGINE",
    "MAX_ELEMENTS",
    "MAX_MARKDOWN_CHARS",
    "BrowserSession",
    "PageReading",
    "browser_registry",
    "carries_page_data",
    "extract_product",
    "find_injections",
    "format_elements",
    "html_to_markdown",
    "inspect",
    "inspector_for",
    "make_download_guard",
    "make_navigation_guard",
    "make_request_guard",
    "page_errors",
    "parse_snapshot",
    "read_page",
    "said_by_user",
    "wrap_untrusted",
]
