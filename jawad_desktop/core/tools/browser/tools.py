"""The browser tools the model calls: read_page, click, fill, select, check, scroll, wait,
summarise, navigate, go back and search (spec 001 READ_PAGE, CLICK_ELEMENT, FILL_FORM,
SCROLL_PAGE; spec 000 search_web).

Each tool is declared once, here, with its permission level, and works on the browser session
of the run it is called in (``ctx.browser``); without one it fails with a message the model
can act on. Each returns a concise result for the model and a short one for the log; page
failures (element gone, hidden, detached, navigation blocked, timeout) come back as the page's
own sentences through ``page_errors``, the one place a ``PageError`` becomes a ``ToolError``;
every acting tool runs through ``act`` (show the target, act, clear the highlight, say where
the page went). The names, levels and schemas are what the
model sees: ``tests/browser/test_tool_surface.py`` keeps them from drifting.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any, Literal

from pydantic import Field

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.sites import site_of
from jawad_desktop.core.tools.browser.session import DEFAULT_SEARCH_ENGINE, BrowserSession, search_url_for
from jawad_desktop.core.tools.context import ToolContext
from jawad_desktop.core.tools.page import ActionOutcome, Page, PageError, Target
from jawad_desktop.core.tools.registry import ToolError, ToolRegistry, ToolResult

IndexArg = Annotated[int | None, Field(description="The element's number [n] from read_page")]
SelectorArg = Annotated[str | None, Field(description="A CSS selector, when there is no index")]

# Declared once; ``browser_registry`` hands out copies, since a registry can be changed.
_TOOLS = ToolRegistry()


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


def _navigation_sentence(outcome: ActionOutcome) -> str:
    """What the model must know about where an action took the page."""
    if outcome.blocked_navigation:
        return (f" The action tried to open {outcome.blocked_navigation} on another site; the browser blocked it. "
                "Use navigate with that URL if the user wants to go there (they will be asked).")
    if outcome.navigated_to:
        return f" The page is now {outcome.navigated_to}; call read_page to see it."
    return ""


PageAction = Callable[[Page], Awaitable[ActionOutcome]]


async def act(browser: BrowserSession, target: Target, what: str, action: PageAction) -> ToolResult:
    """Run an acting tool's page action the one way they all run.

    The target is highlighted for ``highlight_s`` first, so the user sees what is about to
    happen; the highlight is cleared after the action, or when it fails; the model is told
    when the action took the page elsewhere or the browser blocked that.
    """
    page = browser.page
    with page_errors():
        await page.describe(target)  # a gone or hidden element fails before it is highlighted
        await page.highlight(target, f"Jawad: {what}")
    if browser.highlight_s > 0:
        await asyncio.sleep(browser.highlight_s)
    with page_errors():
        try:
            outcome = await action(page)
        except PageError:
            await page.clear_highlight()
            raise
    await page.clear_highlight()
    return ToolResult(for_model=outcome.message + _navigation_sentence(outcome), for_log=outcome.message,
                      ok=not outcome.blocked_navigation)


def _browser(ctx: ToolContext) -> BrowserSession:
    """The run's browser session, or a failure the model can act on."""
    if ctx.browser is None:
        raise ToolError("No web page is open here: the browser tools need a page (the window's browser, or "
                        "`jawad ask --url`). Answer without them, or ask the user to open the page.")
    return ctx.browser


def _target(index: int | None, selector: str | None) -> Target:
    if index is None and not selector:
        raise ToolError("Give the element's index [n] from read_page, or a CSS selector.")
    if index is not None and selector:
        selector = None  # the index from the listing is the more exact of the two
    return Target(index=index, selector=selector)


def _normalize_url(url: str) -> str:
    url = url.strip()
    if not url:
        return url
    if "://" not in url and not url.startswith(("about:", "data:", "file:")):
        scheme = "http://" if url.startswith(("localhost", "127.")) else "https://"
        url = scheme + url
    return url


def _navigate_site(ctx: ToolContext, args: Any) -> str:
    return site_of(_normalize_url(args.url))


def _search_site(ctx: ToolContext, args: Any) -> str:
    # Asked before the call runs, so it must not fail: without a browser the call fails later.
    engine = ctx.browser.search_engine if ctx.browser is not None else DEFAULT_SEARCH_ENGINE
    return site_of(search_url_for(engine, "x"))


def _fill_level(args: Any) -> PermissionLevel:
    return PermissionLevel.SUBMIT if getattr(args, "submit", False) else PermissionLevel.INTERACT


# -- reading ----------------------------------------------------------------------------------------


@_TOOLS.tool(name="read_page", level=PermissionLevel.READ_ONLY, aliases=("read", "get_page", "read_current_page"))
async def read_page_tool(ctx: ToolContext) -> ToolResult:
    """Read the current page: title, URL, product details, the numbered interactive elements and
    the main content as Markdown. Use it before acting on a page, and again after it changes."""
    with page_errors():
        reading = await _browser(ctx).read()
    product = f", product {reading.product.get('name', '')}" if reading.product else ""
    log_text = (f"Read {reading.title or reading.url}: {len(reading.elements)} elements{product}"
                + (" — page text looks like instructions to an AI (flagged)" if reading.injections else ""))
    return ToolResult(for_model=reading.for_model(ctx.result_chars), for_log=log_text, data=reading.as_dict())


# -- acting on an element -----------------------------------------------------------------------


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("click",))
async def click_element(ctx: ToolContext, index: IndexArg = None, selector: SelectorArg = None) -> ToolResult:
    """Click an element of the current page (a button, link, tab...). Give its [n] from read_page."""
    target = _target(index, selector)
    return await act(_browser(ctx), target, "click", lambda page: page.click(target))


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("fill", "type_text", "fill_input"), level_for=_fill_level)
async def fill_form(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The text to type into the field")],
    index: IndexArg = None,
    selector: SelectorArg = None,
    submit: Annotated[bool, Field(description="Submit the form (or press Enter) after typing")] = False,
) -> ToolResult:
    """Type text into a text field of the current page, replacing what is there; optionally submit."""
    target = _target(index, selector)
    return await act(_browser(ctx), target, "submit" if submit else "type",
                                   lambda page: page.fill(target, text, submit=submit))


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("select",))
async def select_option(
    ctx: ToolContext,
    option: Annotated[str, Field(description="The option's visible text or value")],
    index: IndexArg = None,
    selector: SelectorArg = None,
) -> ToolResult:
    """Choose an option of a drop-down list (SELECT) on the current page."""
    target = _target(index, selector)
    return await act(_browser(ctx), target, "select", lambda page: page.select_option(target, option))


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("check", "toggle"))
async def set_checked(
    ctx: ToolContext,
    index: IndexArg = None,
    selector: SelectorArg = None,
    checked: Annotated[bool, Field(description="true to tick it, false to clear it")] = True,
) -> ToolResult:
    """Tick or clear a checkbox, radio button or switch on the current page."""
    target = _target(index, selector)
    return await act(_browser(ctx), target, "check" if checked else "uncheck",
                                   lambda page: page.set_checked(target, checked))


# -- moving around the page -----------------------------------------------------------------------


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("scroll",))
async def scroll_page(
    ctx: ToolContext,
    direction: Annotated[Literal["up", "down", "top", "bottom"] | None,
                         Field(description="Which way to scroll")] = "down",
    index: Annotated[int | None, Field(description="Scroll element [n] into view instead")] = None,
) -> ToolResult:
    """Scroll the current page up, down, to the top or bottom, or to an element [n]."""
    page = _browser(ctx).page
    with page_errors():
        outcome = await page.scroll(Target(index=index) if index is not None else direction or "down")
    return ToolResult(for_model=outcome.message)


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("wait",))
async def wait_for(
    ctx: ToolContext,
    text: Annotated[str, Field(description="Text to wait for on the page")] = "",
    selector: Annotated[str, Field(description="Or a CSS selector to wait for")] = "",
    timeout_s: Annotated[float, Field(ge=0.5, le=60, description="How long to wait, in seconds")] = 10.0,
) -> ToolResult:
    """Wait until some text or an element appears on the current page (after a click or a search)."""
    if not text and not selector:
        raise ToolError("Say what to wait for: text or selector.")
    page = _browser(ctx).page
    what = f'"{text}"' if text else selector
    with page_errors():
        found = await page.wait_for(text=text, selector=selector, timeout=timeout_s)
    if not found:
        raise ToolError(f"{what} did not appear within {timeout_s:g} s. Call read_page to see the page.")
    return ToolResult(for_model=f"{what} is on the page now.")


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("summarize", "summarise_page", "summarise"))
async def summarize_page(ctx: ToolContext) -> ToolResult:
    """Get the current page's content to summarise it for the user."""
    with page_errors():
        reading = await _browser(ctx).read()
    ask = ("Summarise this page for the user: the main points in a few short bullet points, "
           "with the product and price if there is one.\n")
    text = ask + reading.for_model(max(0, ctx.result_chars - len(ask)) if ctx.result_chars else 0)
    return ToolResult(for_model=text, for_log=f"Read {reading.title or reading.url} to summarise it")


# -- going elsewhere ------------------------------------------------------------------------------


@_TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("open_url", "go_to", "goto", "open"), site=_navigate_site)
async def navigate(
    ctx: ToolContext, url: Annotated[str, Field(description="The address to open")]
) -> ToolResult:
    """Open a web address in the browser."""
    page = _browser(ctx).page
    with page_errors():
        final = await page.navigate(_normalize_url(url))
    title = await page.title()
    return ToolResult(for_model=f"Opened {final} ({title}). Call read_page to see it.", for_log=f"Opened {final}")


@_TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("back",))
async def go_back(ctx: ToolContext) -> ToolResult:
    """Go back to the previous page in the browser's history."""
    page = _browser(ctx).page
    with page_errors():
        now = await page.go_back()
    return ToolResult(for_model=f"Went back; the page is now {now}.", for_log=f"Back to {now}")


# The results page only shows what the user asked for: read-only, so searching does not ask. A
# query that carries text from the page to the engine's site still asks (the inspector forces it).
@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("search", "web_search", "google"), site=_search_site)
async def search_web(
    ctx: ToolContext, query: Annotated[str, Field(description="What to search for")]
) -> ToolResult:
    """Search the web with the configured search engine and open the results page."""
    if not query.strip():
        raise ToolError("The search query is empty: say what to search for.")
    browser = _browser(ctx)
    with page_errors():
        final = await browser.page.navigate(browser.search_url(query))
    return ToolResult(for_model=f"Opened the search results for {query!r} ({final}). "
                      "Call read_page to see them.", for_log=f"Searched for {query!r}")


def browser_registry() -> ToolRegistry:
    """A new registry holding the browser tools (merge it with the basic tools)."""
    registry = ToolRegistry()
    for tool in _TOOLS:
        registry.add(tool)
    return registry
