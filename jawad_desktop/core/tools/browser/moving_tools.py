"""The browser tools that move around: scroll, wait for text, navigate, back and forward, search
the web, reload, and the tabs and downloads."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.sites import address_of, is_web_address, scheme_of, site_of
from jawad_desktop.core.tools.browser.browser_session import DEFAULT_SEARCH_ENGINE, search_url_for
from jawad_desktop.core.tools.browser.downloads import size_text
from jawad_desktop.core.tools.browser.tool_running import REFUSED_SCRIPT_SENTENCE, TOOLS, browser_of, page_errors
from jawad_desktop.core.tools.page import TabInfo, Target, not_web_address
from jawad_desktop.core.tools.registry import ToolError, ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext


def _normalize_url(url: str) -> str:
    return address_of(url)


def _web_address(url: str) -> str:
    """A navigate argument that is not a web address is refused before anyone is asked."""
    address = address_of(url)
    if address and not is_web_address(address):
        raise ValueError(not_web_address(address).message)
    return url


def _navigate_site(ctx: ToolContext, args: Any) -> str:
    return site_of(_normalize_url(args.url))


def _search_site(ctx: ToolContext, args: Any) -> str:
    # Asked before the call runs, so it must not fail: without a browser the call fails later.
    engine = ctx.browser.search_engine if ctx.browser is not None else DEFAULT_SEARCH_ENGINE
    return site_of(search_url_for(engine, "x"))


# -- moving around the page -----------------------------------------------------------------------


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("scroll",))
async def scroll_page(
    ctx: ToolContext,
    direction: Annotated[Literal["up", "down", "top", "bottom", "left", "right", "leftmost", "rightmost"] | None,
                         Field(description="Which way to scroll (left, right, leftmost, rightmost: sideways)")]
    = "down",
    index: Annotated[int | None, Field(description="Scroll element [n] into view instead")] = None,
) -> ToolResult:
    """Scroll the current page up, down, to the top or bottom, sideways, or to an element [n]."""
    page = browser_of(ctx).page
    with page_errors():
        outcome = await page.scroll(Target(index=index) if index is not None else direction or "down")
    return ToolResult(for_model=outcome.message)


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("wait",))
async def wait_for(
    ctx: ToolContext,
    text: Annotated[str, Field(description="Text to wait for on the page")] = "",
    selector: Annotated[str, Field(description="Or a CSS selector to wait for")] = "",
    timeout_s: Annotated[float, Field(ge=0.5, le=60, description="How long to wait, in seconds")] = 10.0,
) -> ToolResult:
    """Wait until some text or an element appears on the current page (after a click or a search)."""
    if not text and not selector:
        raise ToolError("Say what to wait for: text or selector.")
    page = browser_of(ctx).page
    what = f'"{text}"' if text else selector
    with page_errors():
        found = await page.wait_for(text=text, selector=selector, timeout=timeout_s)
    if not found:
        raise ToolError(f"{what} did not appear within {timeout_s:g} s. Call read_page to see the page.")
    return ToolResult(for_model=f"{what} is on the page now.", observed_page=True)


# -- going elsewhere ------------------------------------------------------------------------------


@TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("open_url", "go_to", "goto", "open"), site=_navigate_site)
async def navigate(
    ctx: ToolContext, url: Annotated[str, Field(description="The address to open"), AfterValidator(_web_address)]
) -> ToolResult:
    """Open a web address in the browser."""
    page = browser_of(ctx).page
    before = len(page.blocked_navigations)
    with page_errors():
        final = await page.navigate(_normalize_url(url))
    title = await page.title()
    refused = any(scheme_of(b) == "javascript" for b in page.blocked_navigations[before:])
    note = f" {REFUSED_SCRIPT_SENTENCE}" if refused else ""
    return ToolResult(for_model=f"Opened {final} ({title}).{note} Call read_page to see it.",
                      for_log=f"Opened {final}{' (refused a script address)' if refused else ''}")


@TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("back",))
async def go_back(ctx: ToolContext) -> ToolResult:
    """Go back to the previous page in the browser's history."""
    return await _history_step(ctx, forward=False)


# The results page only shows what the user asked for: read-only, so searching does not ask. A
# query that carries text from the page to the engine's site still asks (the inspector forces it).
@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("search", "web_search", "google"), site=_search_site)
async def search_web(
    ctx: ToolContext, query: Annotated[str, Field(description="What to search for")]
) -> ToolResult:
    """Search the web with the configured search engine and open the results page."""
    if not query.strip():
        raise ToolError("The search query is empty: say what to search for.")
    browser = browser_of(ctx)
    with page_errors():
        final = await browser.page.navigate(browser.search_url(query))
    return ToolResult(for_model=f"Opened the search results for {query!r} ({final}). "
                      "Call read_page to see them.", for_log=f"Searched for {query!r}")


@TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("forward",))
async def go_forward(ctx: ToolContext) -> ToolResult:
    """Go forward to the next page in the browser's history (after go_back)."""
    return await _history_step(ctx, forward=True)


async def _history_step(ctx: ToolContext, *, forward: bool) -> ToolResult:
    page = browser_of(ctx).page
    with page_errors():
        now = await (page.go_forward() if forward else page.go_back())
    word = "forward" if forward else "back"
    return ToolResult(for_model=f"Went {word}; the page is now {now}.", for_log=f"{word.capitalize()} to {now}")


@TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("refresh", "reload_page", "refresh_page"))
async def reload(ctx: ToolContext) -> ToolResult:
    """Load the current page again (when it is stuck or shows old content)."""
    browser = browser_of(ctx)
    browser.acted_since_reading = True
    with page_errors():
        now = await browser.page.reload()
    return ToolResult(for_model=f"Reloaded {now}; call read_page to see it.", for_log=f"Reloaded {now}")


# -- tabs and downloads ---------------------------------------------------------------------------

TabArg = Annotated[int, Field(ge=1, description="The tab's number from list_tabs (1 is the first)")]


def _tab_line(tab: TabInfo) -> str:
    shown = " (shown: read_page reads it)" if tab.active else ""
    return f"Tab {tab.index + 1}{shown}: {tab.title or 'untitled'} — {tab.url or 'about:blank'}"


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("tabs", "get_tabs"))
async def list_tabs(ctx: ToolContext) -> ToolResult:
    """List the browser's tabs (pop-ups and links that open a new window become tabs): number,
    title, address, and which one is shown."""
    with page_errors():
        tabs = await browser_of(ctx).page.tabs()
    lines = [_tab_line(t) for t in tabs]
    return ToolResult(for_model="\n".join(lines), for_log=f"{len(tabs)} tab{'s' * (len(tabs) != 1)}",
                      data=[{"index": t.index + 1, "title": t.title, "url": t.url, "active": t.active} for t in tabs])


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("select_tab", "go_to_tab", "activate_tab"))
async def switch_tab(ctx: ToolContext, tab: TabArg) -> ToolResult:
    """Show another tab: the tools then read and act on it."""
    browser = browser_of(ctx)
    browser.acted_since_reading = True
    with page_errors():
        now = await browser.page.switch_tab(tab - 1)
    return ToolResult(for_model=f"Now showing {_tab_line(now)}. Call read_page to see it.",
                      for_log=f"Switched to tab {tab}: {now.title or now.url}")


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("close_window",))
async def close_tab(ctx: ToolContext, tab: TabArg) -> ToolResult:
    """Close a tab (not the last one); the tab shown afterwards is where the tools work."""
    browser = browser_of(ctx)
    browser.acted_since_reading = True
    with page_errors():
        now = await browser.page.close_tab(tab - 1)
    return ToolResult(for_model=f"Closed tab {tab}. Now showing {_tab_line(now)}.", for_log=f"Closed tab {tab}",
                      changed_page=True)


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("downloads", "get_downloads"))
async def list_downloads(ctx: ToolContext) -> ToolResult:
    """List the files downloaded in this browser: name, size, state (asking the user, downloading,
    done, denied, failed) and where each is saved."""
    with page_errors():
        items = await browser_of(ctx).page.downloads()
    if not items:
        return ToolResult(for_model="Nothing has been downloaded yet.", for_log="No downloads")
    lines = [f"{i}. {d.name} — {size_text(d.size or d.received)} — {d.state}" + (f" — {d.path}" if d.path else "")
             for i, d in enumerate(items, 1)]
    return ToolResult(for_model="\n".join(lines), for_log=f"{len(items)} download{'s' * (len(items) != 1)}",
                      data=[{"name": d.name, "size": d.size, "state": d.state, "path": d.path, "url": d.url}
                            for d in items])
