"""How the browser tools act and report, the one way for all of them.

``TOOLS`` is the registry every browser tool is declared in (``browser_tools.browser_registry``
hands out copies). ``page_errors`` is the one place a ``PageError`` becomes a ``ToolError``; every
acting tool runs through ``act`` (show the target, act, clear the highlight, say what changed,
``changes``, and where the page went), or ``act_in_place`` when there is no element to show
(keys where the focus is, a point of a screenshot).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated

from pydantic import Field

from jawad_desktop.core.sites import is_script_link, scheme_of
from jawad_desktop.core.tools.browser.browser_session import BrowserSession
from jawad_desktop.core.tools.browser.changes import PageChanges, field_sentence
from jawad_desktop.core.tools.page import ActionOutcome, Page, PageError, Target
from jawad_desktop.core.tools.registry import ToolError, ToolRegistry, ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext

LOOK_TOOL = "look"  # offered only to models that see images (core.agent.session)
CLICK_AT_TOOL = "click_at"  # a point of look's screenshot: offered with look only
SEEING_TOOLS = frozenset({LOOK_TOOL, CLICK_AT_TOOL})

IndexArg = Annotated[int | None, Field(description="The element's number [n] from read_page")]
SelectorArg = Annotated[str | None, Field(description="A CSS selector, when there is no index")]

log = logging.getLogger("jawad.browser")

# Declared once; ``browser_registry`` hands out copies, since a registry can be changed.
TOOLS = ToolRegistry()


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


def navigation_sentence(outcome: ActionOutcome) -> str:
    """What the model must know about where an action took the page."""
    if scheme_of(outcome.blocked_navigation) == "javascript":
        return " " + REFUSED_SCRIPT_SENTENCE
    if outcome.blocked_navigation:
        return (f" The action tried to open {outcome.blocked_navigation} on another site; the browser blocked it. "
                "Use navigate with that URL if the user wants to go there (they will be asked).")
    if outcome.navigated_to:
        return (f" The page is now {outcome.navigated_to}; call read_page to see it."
                + tab_and_download_sentence(outcome))
    return tab_and_download_sentence(outcome)


def tab_and_download_sentence(outcome: ActionOutcome) -> str:
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
    await mark_changes(page)
    with page_errors():
        try:
            outcome = await action(page)
        except PageError:
            await page.clear_highlight()
            raise
    await page.clear_highlight()
    changes = await changes_since(page)  # a new document has nothing to compare: "" (the navigation is said)
    parts = [outcome.message, note]
    if info.refound or outcome.refound:
        parts.append(f"(Element {target} had been re-rendered since read_page listed it; it was found again "
                     f'by its description, {info.role} "{info.label}".)')
    if outcome.field is not None:
        parts.append(field_sentence(outcome.field, hint=value_hint))
    if changes is not None:
        parts.append(changes.summary(with_url=not outcome.navigated_to))
    return _acted(" ".join(p for p in parts if p), outcome)


async def act_in_place(browser: BrowserSession, action: PageAction) -> ToolResult:
    """An action with no element to show first (keys where the focus is, a point of the last
    screenshot): run it, and say what it changed and where the page went."""
    browser.acted_since_reading = True
    page = browser.page
    await mark_changes(page)
    with page_errors():
        outcome = await action(page)
    changes = None if outcome.navigated_to or outcome.opened_tab else await changes_since(page)
    return _acted(" ".join(p for p in (outcome.message, changes.summary() if changes is not None else "") if p),
                  outcome)


def _acted(text: str, outcome: ActionOutcome) -> ToolResult:
    """An acting tool's result: ``text`` and where the action took the page (not ok when blocked)."""
    return ToolResult(for_model=text + navigation_sentence(outcome), for_log=outcome.message,
                      ok=not outcome.blocked_navigation, changed_page=not outcome.blocked_navigation)


async def mark_changes(page: Page) -> None:
    """The page's fingerprint before an action (``J.changesMark``); without it, no changes are told."""
    try:
        await page.call("changesMark", timeout=5.0)
    except PageError:
        log.debug("could not take the page's fingerprint before an action", exc_info=True)


async def changes_since(page: Page) -> PageChanges | None:
    """What the action changed since ``_mark_changes`` (None when the page could not say)."""
    try:
        return PageChanges.from_js(await page.call("changesSince", timeout=5.0))
    except PageError:
        log.debug("could not compare the page with its fingerprint", exc_info=True)
        return None


def browser_of(ctx: ToolContext) -> BrowserSession:
    """The run's browser session, or a failure the model can act on."""
    if ctx.browser is None:
        raise ToolError("No web page is open here: the browser tools need a page (the window's browser, or "
                        "`jawad ask --url`). Answer without them, or ask the user to open the page.")
    return ctx.browser


def target_of(index: int | None, selector: str | None) -> Target:
    if index is None and not selector:
        raise ToolError("Give the element's index [n] from read_page, or a CSS selector.")
    if index is not None and selector:
        selector = None  # the index from the listing is the more exact of the two
    return Target(index=index, selector=selector)
