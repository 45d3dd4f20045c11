"""The browser tools the model calls: read_page, find_in_page, click (by index or by the words shown),
fill, select, check, scroll, wait, summarise, navigate, go back and search (spec 001 READ_PAGE,
CLICK_ELEMENT, FILL_FORM, SCROLL_PAGE; spec 000 search_web).

Each tool is declared once, here, with its permission level, and works on the browser session
of the run it is called in (``ctx.browser``); without one it fails with a message the model
can act on. Each returns a concise result for the model and a short one for the log; page
failures (element gone, hidden, detached, navigation blocked, timeout) come back as the page's
own sentences through ``page_errors``, the one place a ``PageError`` becomes a ``ToolError``;
every acting tool runs through ``act`` (show the target, act, clear the highlight, say what
changed, ``changes``, and where the page went); ``fill_form`` enters dates, times, colours and
numbers in the field's format (``values``). The names, levels and schemas are what the
model sees: ``tests/browser/test_tool_surface.py`` keeps them from drifting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.messages import Image
from jawad_desktop.core.sites import address_of, is_script_link, is_web_address, scheme_of, site_of
from jawad_desktop.core.tools.browser import values
from jawad_desktop.core.tools.browser.browser_session import DEFAULT_SEARCH_ENGINE, BrowserSession, search_url_for
from jawad_desktop.core.tools.browser.by_text import find_by_text
from jawad_desktop.core.tools.browser.changes import PageChanges, field_sentence
from jawad_desktop.core.tools.browser.downloads import size_text
from jawad_desktop.core.tools.browser.hand_over import HAND_OVER_TOOL, needs_user_note
from jawad_desktop.core.tools.browser.parts import PASSAGES
from jawad_desktop.core.tools.browser.provenance import wrap_untrusted
from jawad_desktop.core.tools.browser.reading import PageReading
from jawad_desktop.core.tools.browser.uploads import UploadRefused, user_named_file
from jawad_desktop.core.tools.keys import parse_keys
from jawad_desktop.core.tools.page import ActionOutcome, Page, PageError, TabInfo, Target, not_web_address
from jawad_desktop.core.tools.registry import ToolError, ToolRegistry, ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext

LOOK_TOOL = "look"  # offered only to models that see images (core.agent.session)
CLICK_AT_TOOL = "click_at"  # a point of look's screenshot: offered with look only
SEEING_TOOLS = frozenset({LOOK_TOOL, CLICK_AT_TOOL})

IndexArg = Annotated[int | None, Field(description="The element's number [n] from read_page")]
SelectorArg = Annotated[str | None, Field(description="A CSS selector, when there is no index")]

log = logging.getLogger("jawad.browser")

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


# A page's own javascript: navigation, refused in a document the agent loaded (browser/guarded_page.py).
REFUSED_SCRIPT_SENTENCE = ("The page's own script tried to run a script address (javascript:); Jawad refused it, "
                           "as it opens web addresses only, and that script did not run.")


def _navigation_sentence(outcome: ActionOutcome) -> str:
    """What the model must know about where an action took the page."""
    if scheme_of(outcome.blocked_navigation) == "javascript":
        return " " + REFUSED_SCRIPT_SENTENCE
    if outcome.blocked_navigation:
        return (f" The action tried to open {outcome.blocked_navigation} on another site; the browser blocked it. "
                "Use navigate with that URL if the user wants to go there (they will be asked).")
    if outcome.navigated_to:
        return (f" The page is now {outcome.navigated_to}; call read_page to see it."
                + _tab_and_download_sentence(outcome))
    return _tab_and_download_sentence(outcome)


def _tab_and_download_sentence(outcome: ActionOutcome) -> str:
    """A new tab or a download the action started (the tabs and downloads tools say more)."""
    text = ""
    if outcome.opened_tab and "(in the background)" in outcome.opened_tab:
        text += f" It opened a new tab, {outcome.opened_tab}; switch_tab shows it."
    elif outcome.opened_tab:
        text += (f" It opened a new tab, now shown: {outcome.opened_tab}. read_page reads it; list_tabs and "
                 "switch_tab go back to the others.")
    if outcome.download:
        text += (f" It started a download: {outcome.download} (the user is asked before it is kept; "
                 "list_downloads shows where it stands).")
    return text


PageAction = Callable[[Page], Awaitable[ActionOutcome]]


async def act(browser: BrowserSession, target: Target, what: str, action: PageAction, *,
              note: str = "", value_hint: str = "") -> ToolResult:
    """Run an acting tool's page action the one way they all run.

    The target is highlighted for ``highlight_s`` first, so the user sees what is about to
    happen; the highlight is cleared after the action, or when it fails. The model is told what
    the action changed (``changes``: a dialog, new or gone elements, new text, or nothing), what a
    typed field holds when the page did not keep the text as typed (``value_hint`` names the format
    it takes), that an element a re-render replaced was found again by its description, and when
    the action took the page elsewhere or the browser blocked that. ``note`` (how a value was
    converted) follows the action's own sentence.
    """
    page = browser.page
    with page_errors():
        info = await page.describe(target)  # a gone or hidden element fails before it is highlighted
        if what == "click" and is_script_link(info.href):
            raise PageError("script_link", f'"{info.label or "This link"}" runs a script written into its address '
                            "(javascript:) instead of opening a page: Jawad does not run scripts from links. "
                            "Look for another way, or ask the user to click it.")
        await page.highlight(target, f"Jawad: {what}")
    if browser.highlight_s > 0:
        await asyncio.sleep(browser.highlight_s)
    browser.acted_since_reading = True  # the next part or search reads the page again
    await _mark_changes(page)
    with page_errors():
        try:
            outcome = await action(page)
        except PageError:
            await page.clear_highlight()
            raise
    await page.clear_highlight()
    changes = await _changes_since(page)  # a new document has nothing to compare: "" (the navigation is said)
    parts = [outcome.message, note]
    if info.refound or outcome.refound:
        parts.append(f"(Element {target} had been re-rendered since read_page listed it; it was found again "
                     f'by its description, {info.role} "{info.label}".)')
    if outcome.field is not None:
        parts.append(field_sentence(outcome.field, hint=value_hint))
    if changes is not None:
        parts.append(changes.summary(with_url=not outcome.navigated_to))
    text = " ".join(p for p in parts if p)
    return ToolResult(for_model=text + _navigation_sentence(outcome), for_log=outcome.message,
                      ok=not outcome.blocked_navigation, changed_page=not outcome.blocked_navigation)


async def _mark_changes(page: Page) -> None:
    """The page's fingerprint before an action (``J.changesMark``); without it, no changes are told."""
    try:
        await page.call("changesMark", timeout=5.0)
    except PageError:
        log.debug("could not take the page's fingerprint before an action", exc_info=True)


async def _changes_since(page: Page) -> PageChanges | None:
    """What the action changed since ``_mark_changes`` (None when the page could not say)."""
    try:
        return PageChanges.from_js(await page.call("changesSince", timeout=5.0))
    except PageError:
        log.debug("could not compare the page with its fingerprint", exc_info=True)
        return None


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


def _fill_level(args: Any) -> PermissionLevel:
    return PermissionLevel.SUBMIT if getattr(args, "submit", False) else PermissionLevel.INTERACT


# -- reading ----------------------------------------------------------------------------------------


@_TOOLS.tool(name="read_page", level=PermissionLevel.READ_ONLY, aliases=("read", "get_page", "read_current_page"))
async def read_page_tool(
    ctx: ToolContext,
    part: Annotated[int | None, Field(ge=1, description=(
        "Which part of a long page's content to read: read_page says how many parts there are and its "
        "outline which part holds each heading. Leave it out to read the page as it is now"))] = None,
    section: Annotated[str | None, Field(description=(
        "A section folded out of the element list to list in full, such as 'navigation' "
        "(read_page names the folded sections)"))] = None,
) -> ToolResult:
    """Read the current page: title, URL, product details, the numbered interactive elements and
    the main content as Markdown; a long page's content comes in parts, with an outline. Use it
    before acting on a page, and again after it changes."""
    browser = _browser(ctx)
    with page_errors():
        if part is None and not section:
            reading, reused = await browser.read(), False
        else:  # a further part or a section of the reading the model has: no new snapshot
            reading, reused = await browser.reading_of_current_page()
    if section:
        return _folded_section(reading, section, ctx.result_chars_for(reading.interactive_elements))
    limit = ctx.result_chars_for(reading.markdown)  # the same for every part of this reading
    count = len(reading.parts(limit))
    if part is not None and part > count:
        raise ToolError(f"The content of this page has {count} part{'s' * (count != 1)}: ask for a part "
                        f"from 1 to {count}, or use find_in_page(query) to find text in it.")
    shown = part or 1
    product = f", product {reading.product.get('name', '')}" if reading.product else ""
    log_text = (f"Read {reading.title or reading.url}"
                + (f" (part {shown} of {count})" if count > 1 else "")
                + ("" if reused else f": {len(reading.elements)} elements{product}")
                + (" — page text looks like instructions to an AI (flagged)" if reading.injections else ""))
    text = reading.for_model(limit, shown, elements=not reused)
    note = "" if reused else await needs_user_note(browser.page)  # a login, CAPTCHA, code or card: hand over
    return ToolResult(for_model=f"{text}\n\n{note}" if note else text, for_log=log_text,
                      data=reading.as_dict(shown, limit), observed_page=True)


def _folded_section(reading: PageReading, section: str, limit: int) -> ToolResult:
    """``read_page(section=...)``: a listing folded out of the element list, in full."""
    names = {name.casefold(): name for name in reading.folded}
    name = names.get(section.strip().casefold())
    if name is None:
        known = ", ".join(f"'{n}'" for n in reading.folded)
        raise ToolError(f"This page has no folded section '{section}'. "
                        + (f"Its folded sections are: {known}." if known else
                           "Nothing was folded out of its element list: read_page() lists every element."))
    listing = reading.folded[name]
    head = f"Section '{name}' of {reading.url}, folded out of read_page's element list:\n"
    lines = listing.splitlines()
    if limit and len(listing) > limit - len(head) - 400:  # room for the wrapper and the note
        kept: list[str] = []
        used = len(head) + 400
        for line in lines:
            used += len(line) + 1
            if used > limit:
                break
            kept.append(line)
        listing = "\n".join(kept) + (f"\n[... {len(lines) - len(kept)} more lines not shown; a selector "
                                     "or scroll_page reaches them]")
    return ToolResult(for_model=head + wrap_untrusted(listing, reading.url),
                      for_log=f"Listed the '{name}' section of {reading.title or reading.url}",
                      data={"url": reading.url, "title": reading.title, "section": name,
                            "listing": reading.folded[name]}, observed_page=True)


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("find", "search_page", "find_text"))
async def find_in_page(
    ctx: ToolContext,
    query: Annotated[str, Field(description="The words or phrase to look for (case does not matter)")],
) -> ToolResult:
    """Find text anywhere in the current page's content, not only the part read_page showed: the
    passages that match, each with the part it is in."""
    if not query.strip():
        raise ToolError("The query is empty: say which words to look for.")
    with page_errors():
        reading, _ = await _browser(ctx).reading_of_current_page()
    limit = ctx.result_chars_for(reading.markdown)  # the parts read_page numbered
    most = max(2, min(PASSAGES, (limit - 800) // 360)) if limit else PASSAGES
    found = reading.parts(limit).find(query, max_passages=most)
    text = f"Title: {reading.title or '(none)'}\nURL: {reading.url}\n{found.summary()}"
    if found.passages:
        text += "\n" + wrap_untrusted(found.listing(), reading.url)
    shown = "not found" if found.how == "none" else f"{found.count} match{'es' * (found.count != 1)}"
    return ToolResult(for_model=text, for_log=f'Searched {reading.title or reading.url} for "{query}": {shown}',
                      data={"url": reading.url, "title": reading.title, "query": query, "how": found.how,
                            "count": found.count,
                            "passages": [{"part": p.part, "heading": p.heading, "text": p.text}
                                         for p in found.passages]}, observed_page=True)


# -- acting on an element -----------------------------------------------------------------------


ButtonArg = Annotated[Literal["left", "right", "middle"], Field(description=(
    "The mouse button: right opens the page's own right-click (context) menu"))]
HoldArg = Annotated[float, Field(ge=0, le=30, description=(
    "Press and hold the button this many seconds before letting go (a press-and-hold button); 0 for a "
    "plain click"))]


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("click", "right_click", "press_and_hold", "long_press"))
async def click_element(
    ctx: ToolContext,
    index: IndexArg = None,
    selector: SelectorArg = None,
    button: ButtonArg = "left",
    hold_seconds: HoldArg = 0,
) -> ToolResult:
    """Click an element of the current page (a button, link, tab...). Give its [n] from read_page.
    Also right-clicks (button "right") and presses and holds (hold_seconds)."""
    target = _target(index, selector)
    return await act(_browser(ctx), target, *_pressing(target, button, hold_seconds))


@_TOOLS.tool(name=CLICK_AT_TOOL, level=PermissionLevel.INTERACT, aliases=("click_point", "click_xy", "click_pixel"))
async def click_at(
    ctx: ToolContext,
    x: Annotated[float, Field(ge=0, description="Pixels from the left edge of the last look screenshot")],
    y: Annotated[float, Field(ge=0, description="Pixels from the top edge of the last look screenshot")],
    button: ButtonArg = "left",
) -> ToolResult:
    """Click at a point of the last look screenshot, for what is drawn and not listed (a canvas, a
    picture, a spot in a drawing). Prefer click_element when the thing has an [n]."""
    browser = _browser(ctx)
    browser.acted_since_reading = True
    page = browser.page
    await _mark_changes(page)
    with page_errors():
        outcome = await page.click_at(x, y, button=button)
    changes = None if outcome.navigated_to or outcome.opened_tab else await _changes_since(page)
    text = " ".join(p for p in (outcome.message, changes.summary() if changes is not None else "") if p)
    return ToolResult(for_model=text + _navigation_sentence(outcome), for_log=outcome.message,
                      ok=not outcome.blocked_navigation, changed_page=not outcome.blocked_navigation)


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("click_by_text", "click_on_text"))
async def click_text(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The words shown on the element, as the page shows them")],
    nth: Annotated[int, Field(ge=1, description="Which one, when several elements show these words (1: the "
                                               "first; the result says how many there are)")] = 1,
    button: ButtonArg = "left",
    hold_seconds: HoldArg = 0,
) -> ToolResult:
    """Click the visible element that shows these words (its whole text first, then one containing
    them), for something read_page does not list. Prefer click_element with an index when it does.
    Also right-clicks (button "right") and presses and holds (hold_seconds)."""
    if not text.strip():
        raise ToolError("Say which words to click: the text shown on the element.")
    browser = _browser(ctx)
    with page_errors():
        match = await find_by_text(browser.page, text, nth)
    target = match.target
    if (button != "left" or hold_seconds) and match.on_words is not None:
        target = match.on_words  # a right-click or a hold lands on the words, not the middle of a container
    return await act(browser, target, *_pressing(target, button, hold_seconds), note=match.note(text.strip()))


def _pressing(target: Target, button: str, hold_seconds: float) -> tuple[str, PageAction]:
    """What a click does (its word for the highlight, and the page action): a plain click, a right
    or middle click, or a press held ``hold_seconds``."""
    if button == "left" and not hold_seconds:
        return "click", lambda page: page.click(target)
    return ("hold" if hold_seconds else f"{button}-click",
            lambda page: page.click(target, button=button, hold_s=float(hold_seconds)))


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("fill", "fill_input"), level_for=_fill_level)
async def fill_form(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The text to type into the field")],
    index: IndexArg = None,
    selector: SelectorArg = None,
    submit: Annotated[bool, Field(description="Submit the form (or press Enter) after typing")] = False,
) -> ToolResult:
    """Type text into a text field of the current page, replacing what is there; optionally submit.
    Dates, times and colours may be given as people write them: they are entered in the field's format."""
    target = _target(index, selector)
    browser = _browser(ctx)
    with page_errors():
        info = await browser.page.describe(target)
    kind = info.type or (info.role[6:-1].lower() if info.role.startswith("INPUT[") else "")
    entry = values.for_input(kind, text)
    return await act(browser, target, "submit" if submit else "type",
                     lambda page: page.fill(target, entry.value, submit=submit),
                     note=entry.note, value_hint=values.format_hint(kind))


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
    direction: Annotated[Literal["up", "down", "top", "bottom", "left", "right", "leftmost", "rightmost"] | None,
                         Field(description="Which way to scroll (left, right, leftmost, rightmost: sideways)")]
    = "down",
    index: Annotated[int | None, Field(description="Scroll element [n] into view instead")] = None,
) -> ToolResult:
    """Scroll the current page up, down, to the top or bottom, sideways, or to an element [n]."""
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
    return ToolResult(for_model=f"{what} is on the page now.", observed_page=True)


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("summarize", "summarise_page", "summarise"))
async def summarize_page(ctx: ToolContext) -> ToolResult:
    """Get the current page's content to summarise it for the user."""
    with page_errors():
        reading = await _browser(ctx).read()
    ask = ("Summarise this page for the user: the main points in a few short bullet points, "
           "with the product and price if there is one.\n")
    limit = ctx.result_chars_for(reading.markdown)
    text = ask + reading.for_model(max(0, limit - len(ask)) if limit else 0)
    return ToolResult(for_model=text, for_log=f"Read {reading.title or reading.url} to summarise it",
                      observed_page=True)


# -- going elsewhere ------------------------------------------------------------------------------


@_TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("open_url", "go_to", "goto", "open"), site=_navigate_site)
async def navigate(
    ctx: ToolContext, url: Annotated[str, Field(description="The address to open"), AfterValidator(_web_address)]
) -> ToolResult:
    """Open a web address in the browser."""
    page = _browser(ctx).page
    before = len(page.blocked_navigations)
    with page_errors():
        final = await page.navigate(_normalize_url(url))
    title = await page.title()
    refused = any(scheme_of(b) == "javascript" for b in page.blocked_navigations[before:])
    note = f" {REFUSED_SCRIPT_SENTENCE}" if refused else ""
    return ToolResult(for_model=f"Opened {final} ({title}).{note} Call read_page to see it.",
                      for_log=f"Opened {final}{' (refused a script address)' if refused else ''}")


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


@_TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("forward",))
async def go_forward(ctx: ToolContext) -> ToolResult:
    """Go forward to the next page in the browser's history (after go_back)."""
    page = _browser(ctx).page
    with page_errors():
        now = await page.go_forward()
    return ToolResult(for_model=f"Went forward; the page is now {now}.", for_log=f"Forward to {now}")


@_TOOLS.tool(level=PermissionLevel.NAVIGATE, aliases=("refresh", "reload_page", "refresh_page"))
async def reload(ctx: ToolContext) -> ToolResult:
    """Load the current page again (when it is stuck or shows old content)."""
    browser = _browser(ctx)
    browser.acted_since_reading = True
    with page_errors():
        now = await browser.page.reload()
    return ToolResult(for_model=f"Reloaded {now}; call read_page to see it.", for_log=f"Reloaded {now}")


# -- keys, pointer and files -----------------------------------------------------------------------

KeyArg = Annotated[str, Field(description=(
    "The key: Enter, Escape, Tab, Backspace, Delete, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, "
    "PageUp, PageDown, Space, F1-F12 or one character; a combination joins keys with +, as in Control+A or "
    "Shift+Tab"))]


def _presses_enter(keys: str) -> bool:
    try:
        return parse_keys(keys).key == "Enter"
    except ValueError:
        return False


def _key_level(args: Any) -> PermissionLevel:
    # Enter sends the form a field is in, as fill_form's submit does.
    return PermissionLevel.SUBMIT if _presses_enter(getattr(args, "key", "")) else PermissionLevel.INTERACT


def _typing_level(args: Any) -> PermissionLevel:
    # A new line is an Enter.
    return PermissionLevel.SUBMIT if "\n" in getattr(args, "text", "") else PermissionLevel.INTERACT


async def _keys_action(ctx: ToolContext, index: int | None, selector: str | None, what: str,
                       action: Callable[[Page, Target | None], Awaitable[ActionOutcome]]) -> ToolResult:
    """Keys go to element [n] (highlighted and focused first, as any acting tool) or where the focus is."""
    browser = _browser(ctx)
    if index is not None or selector:
        target = _target(index, selector)
        return await act(browser, target, what, lambda page: action(page, target))
    browser.acted_since_reading = True
    page = browser.page
    await _mark_changes(page)
    with page_errors():
        outcome = await action(page, None)
    changes = None if outcome.navigated_to or outcome.opened_tab else await _changes_since(page)
    text = " ".join(p for p in (outcome.message, changes.summary() if changes is not None else "") if p)
    return ToolResult(for_model=text + _navigation_sentence(outcome), for_log=outcome.message,
                      ok=not outcome.blocked_navigation, changed_page=not outcome.blocked_navigation)


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("press", "key", "keypress", "press_keys", "send_keys"),
             level_for=_key_level)
async def press_key(ctx: ToolContext, key: KeyArg, index: IndexArg = None, selector: SelectorArg = None) -> ToolResult:
    """Press a key or a key combination as on a keyboard: in element [n] (focused first), or where the
    keyboard focus is. For lists, menus, sliders and date pickers (arrows), dialogs (Escape), moving
    between fields (Tab), fields that act on Enter, and shortcuts (Control+A)."""
    try:
        parse_keys(key)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    return await _keys_action(ctx, index, selector, f"press {key}", lambda page, t: page.press_key(key, t))


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("type", "type_keys", "keyboard_type", "send_text"),
             level_for=_typing_level)
async def type_text(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The text to type; a new line presses Enter")],
    index: IndexArg = None,
    selector: SelectorArg = None,
) -> ToolResult:
    """Type text with real key presses: into element [n] (focused first), or where the keyboard focus
    is, after what is already there. For editors, terminals, chat boxes and fields that react to each
    key; fill_form replaces a field's value instead."""
    if not text:
        raise ToolError("The text is empty: say what to type (press_key presses one key).")
    return await _keys_action(ctx, index, selector, "type", lambda page, t: page.type_text(text, t))


# Read-only: moving the pointer changes nothing the site keeps, as scrolling does not; what a hover
# opens (a menu) is then used with click_element, which asks.
@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("hover_over", "mouse_over", "mouseover", "hover_element"))
async def hover(ctx: ToolContext, index: IndexArg = None, selector: SelectorArg = None) -> ToolResult:
    """Move the mouse pointer over an element and leave it there, to open a menu or a tooltip that
    shows on hover; then read_page shows what opened."""
    target = _target(index, selector)
    return await act(_browser(ctx), target, "point at", lambda page: page.hover(target))


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("drag", "drag_drop", "drag_to"))
async def drag_and_drop(
    ctx: ToolContext,
    from_index: Annotated[int | None, Field(description="The [n] of the element to drag")] = None,
    to_index: Annotated[int | None, Field(description="The [n] of the element to drop it on")] = None,
    from_selector: Annotated[str | None, Field(description="A CSS selector for the element to drag")] = None,
    to_selector: Annotated[str | None, Field(description="A CSS selector for where to drop it")] = None,
    to_text: Annotated[str | None, Field(description="The words shown where it goes (a column's or box's "
                                                     "heading), when that place is not in the list")] = None,
) -> ToolResult:
    """Drag an element with the mouse and drop it on another (cards between columns, items in a
    list, a file onto a drop zone's box, a slider's handle)."""
    browser = _browser(ctx)
    source = _target(from_index, from_selector)
    if to_text and to_text.strip() and to_index is None and not to_selector:
        with page_errors():
            target = (await find_by_text(browser.page, to_text, 1)).target
    else:
        target = _target(to_index, to_selector)
    return await act(browser, source, "drag", lambda page: page.drag_and_drop(source, target))


@_TOOLS.tool(level=PermissionLevel.SUBMIT, aliases=("upload", "attach_file", "choose_file", "upload_files"))
async def upload_file(
    ctx: ToolContext,
    path: Annotated[str, Field(description="The file's full path, as the user gave it")],
    index: IndexArg = None,
    selector: SelectorArg = None,
) -> ToolResult:
    """Give a file from the user's computer to a file field (an upload button) of the current page.
    Only a file the user named in their messages; the user is asked every time."""
    browser = _browser(ctx)
    target = _target(index, selector)
    try:
        file = user_named_file(path, browser.user_texts)
    except UploadRefused as exc:
        raise ToolError(str(exc)) from None
    return await act(browser, target, "upload", lambda page: page.upload_file(target, str(file)))


# -- tabs and downloads ---------------------------------------------------------------------------

TabArg = Annotated[int, Field(ge=1, description="The tab's number from list_tabs (1 is the first)")]


def _tab_line(tab: TabInfo) -> str:
    shown = " (shown: read_page reads it)" if tab.active else ""
    return f"Tab {tab.index + 1}{shown}: {tab.title or 'untitled'} — {tab.url or 'about:blank'}"


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("tabs", "get_tabs"))
async def list_tabs(ctx: ToolContext) -> ToolResult:
    """List the browser's tabs (pop-ups and links that open a new window become tabs): number,
    title, address, and which one is shown."""
    with page_errors():
        tabs = await _browser(ctx).page.tabs()
    lines = [_tab_line(t) for t in tabs]
    return ToolResult(for_model="\n".join(lines), for_log=f"{len(tabs)} tab{'s' * (len(tabs) != 1)}",
                      data=[{"index": t.index + 1, "title": t.title, "url": t.url, "active": t.active} for t in tabs])


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("select_tab", "go_to_tab", "activate_tab"))
async def switch_tab(ctx: ToolContext, tab: TabArg) -> ToolResult:
    """Show another tab: the tools then read and act on it."""
    browser = _browser(ctx)
    browser.acted_since_reading = True
    with page_errors():
        now = await browser.page.switch_tab(tab - 1)
    return ToolResult(for_model=f"Now showing {_tab_line(now)}. Call read_page to see it.",
                      for_log=f"Switched to tab {tab}: {now.title or now.url}")


@_TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("close_window",))
async def close_tab(ctx: ToolContext, tab: TabArg) -> ToolResult:
    """Close a tab (not the last one); the tab shown afterwards is where the tools work."""
    browser = _browser(ctx)
    browser.acted_since_reading = True
    with page_errors():
        now = await browser.page.close_tab(tab - 1)
    return ToolResult(for_model=f"Closed tab {tab}. Now showing {_tab_line(now)}.", for_log=f"Closed tab {tab}",
                      changed_page=True)


@_TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("downloads", "get_downloads"))
async def list_downloads(ctx: ToolContext) -> ToolResult:
    """List the files downloaded in this browser: name, size, state (asking the user, downloading,
    done, denied, failed) and where each is saved."""
    with page_errors():
        items = await _browser(ctx).page.downloads()
    if not items:
        return ToolResult(for_model="Nothing has been downloaded yet.", for_log="No downloads")
    lines = [f"{i}. {d.name} — {size_text(d.size or d.received)} — {d.state}" + (f" — {d.path}" if d.path else "")
             for i, d in enumerate(items, 1)]
    return ToolResult(for_model="\n".join(lines), for_log=f"{len(items)} download{'s' * (len(items) != 1)}",
                      data=[{"name": d.name, "size": d.size, "state": d.state, "path": d.path, "url": d.url}
                            for d in items])


# -- handing the page to the user -----------------------------------------------------------------


@_TOOLS.tool(name=HAND_OVER_TOOL, level=PermissionLevel.READ_ONLY,
             aliases=("take_over", "hand_over", "ask_user_to_log_in", "ask_user_to_act"))
async def ask_user_to_take_over(
    ctx: ToolContext,
    reason: Annotated[str, Field(description=(
        "What the user must do on the page, in a few words, e.g. 'sign in to your account' or "
        "'solve the CAPTCHA'"))],
) -> ToolResult:
    """Hand the page to the user when it needs them: signing in, a CAPTCHA, a two-factor or one-time
    code, payment card details. The user does it in the browser and presses Continue; you then get
    a fresh read_page of the page. Never type a password or card number the user did not give you."""
    browser = _browser(ctx)
    if browser.hand_over is None:
        raise ToolError("Nobody can take over the page here. Tell the user what they need to do on the page.")
    with page_errors():
        url = await browser.page.url()
    outcome = await browser.hand_over.request(reason, url, run_id=ctx.run_id)
    if outcome != "continued":
        return ToolResult(for_model=(f"The user cancelled the hand-over ({reason}): nothing was done on the page. "
                                     "Do not try it yourself; tell the user what is still needed."),
                          for_log="The user cancelled the hand-over")
    browser.acted_since_reading = True  # the user changed the page
    reading = await read_page_tool(ctx)
    return ToolResult(for_model="The user finished on the page and pressed Continue. The page now:\n\n"
                                + reading.for_model,
                      for_log=f"The user took over and continued; {reading.for_log}", data=reading.data,
                      observed_page=True)


@_TOOLS.tool(name=LOOK_TOOL, level=PermissionLevel.READ_ONLY,
             aliases=("screenshot", "take_screenshot", "look_at_page", "view_page"))
async def look_tool(
    ctx: ToolContext,
    question: Annotated[str, Field(description="What to look for (optional; for the log)")] = "",
) -> ToolResult:
    """See the visible part of the page as a screenshot, each listed element boxed with its [n], with
    the element list: for what the text does not say (a drawing, a chart, colours, layout, an icon
    without words). Act on what you see with the same [n]."""
    browser = _browser(ctx)
    with page_errors():
        reading = await browser.read()  # the numbers drawn are this listing's
        png = await browser.page.screenshot(marks=True)
    text = reading.for_model(ctx.result_chars_for(reading.markdown), 1)
    about = f" for {question!r}" if question else ""
    return ToolResult(for_model=f"Screenshot of the visible part of the page attached, elements boxed with their "
                                f"[n].\n\n{text}",
                      for_log=f"Looked at {reading.title or reading.url}{about}", observed_page=True,
                      images=[Image(png, "image/png")])


def browser_registry() -> ToolRegistry:
    """A new registry holding the browser tools (merge it with the basic tools)."""
    registry = ToolRegistry()
    for tool in _TOOLS:
        registry.add(tool)
    return registry
