"""On real pages: read_page tells the model when a page needs the user (a password, a CAPTCHA, a
one-time code, card fields), the hand-over tool resumes with a fresh reading, and the "Jawad asks"
outline follows its element through scrolling, resizing and reflow."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.tools.browser import BrowserSession, browser_registry
from jawad_desktop.core.tools.browser.hand_over import HandOver, needs_user_note
from jawad_desktop.core.tools.page import Target
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext

Load = Callable[[str], str]
Run = Callable[..., Any]


def _context(page: QtWebEnginePage, *, ask: bool = True) -> tuple[ToolContext, list[events.Event]]:
    bus = EventBus()
    seen: list[events.Event] = []
    bus.subscribe(seen.append)
    browser = BrowserSession(page, highlight_s=0, hand_over=HandOver(bus, ask=ask))
    return ToolContext(settings=Settings(), bus=bus, browser=browser, run_id="run_1"), seen


def _run_tool(arun: Run, ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    tool = browser_registry().get(name)
    assert tool is not None, name
    return arun(tool.run(ctx, tool.validate(arguments)), timeout=30)


def _box(arun: Run, page: QtWebEnginePage) -> dict[str, float]:
    """The outline's rectangle and the element's, as the page lays them out now."""
    found = json.loads(arun(page.run_js(
        "JSON.stringify((function(){var b=document.getElementById('__jawad_highlight__'),"
        "e=document.getElementById('place');"
        "if(!b) return null; var r=b.getBoundingClientRect(), s=e.getBoundingClientRect();"
        "return {top:r.top,left:r.left,width:r.width,elTop:s.top,elLeft:s.left,elWidth:s.width,"
        "shown:getComputedStyle(b).display!=='none'};})())", world=0)) or "null")
    assert found is not None, "no outline on the page"
    return dict(found)


def _follows(box: dict[str, float]) -> bool:
    return (abs(box["top"] - (box["elTop"] - 4)) < 1.5 and abs(box["left"] - (box["elLeft"] - 4)) < 1.5
            and abs(box["width"] - (box["elWidth"] + 8)) < 1.5)


def test_read_page_says_when_the_page_needs_the_user(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("hand_over/login.html")
    assert "a password field" in arun(needs_user_note(web_page))
    load("hand_over/captcha.html")
    note = arun(needs_user_note(web_page))
    assert "a CAPTCHA" in note and "password" not in note.split("Do not")[0]
    load("hand_over/code_and_card.html")
    note = arun(needs_user_note(web_page))
    assert "a one-time code field and payment card fields" in note, note
    load("hand_over/plain.html")  # a hidden password field and a hidden captcha box are not shown: no note
    assert arun(needs_user_note(web_page)) == ""
    load("hand_over/login.html")
    ctx, _ = _context(web_page)
    result = _run_tool(arun, ctx, "read_page")
    assert "ask_user_to_take_over" in result.for_model and "a password field" in result.for_model


def test_the_hand_over_tool_waits_for_the_user_and_reads_the_page_again(
    web_page: QtWebEnginePage, load: Load, arun: Run, aio_loop: asyncio.AbstractEventLoop, qtbot: Any
) -> None:
    url = load("hand_over/login.html")
    ctx, seen = _context(web_page)
    assert ctx.browser is not None and ctx.browser.hand_over is not None
    hand_over = ctx.browser.hand_over
    tool = browser_registry().get("ask_user_to_take_over")
    assert tool is not None
    task = aio_loop.create_task(tool.run(ctx, tool.validate({"reason": "sign in to Example Mail"})))
    qtbot.waitUntil(lambda: bool(hand_over.pending_ids), timeout=10_000)
    [request] = [e for e in seen if isinstance(e, events.HandOverRequested)]
    assert request.reason == "sign in to Example Mail" and request.url == url and request.run_id == "run_1"
    # The user signs in on the page, then presses Continue.
    arun(web_page.run_js("document.getElementById('email').value='me@example.com';"
                         "document.getElementById('password').value='hunter2-secret';"
                         "document.querySelector('button').click(); true", world=0))
    assert hand_over.respond(request.id, True)
    qtbot.waitUntil(task.done, timeout=20_000)
    result = task.result()
    assert "pressed Continue" in result.for_model and "Welcome back, me@example.com" in result.for_model
    assert "hunter2" not in result.for_model and result.observed_page
    assert [e.outcome for e in seen if isinstance(e, events.HandOverFinished)] == ["continued"]
    assert not hand_over.respond(request.id, True)  # settled once


def test_cancel_and_nobody_to_ask(web_page: QtWebEnginePage, load: Load, arun: Run,
                                  aio_loop: asyncio.AbstractEventLoop, qtbot: Any) -> None:
    load("hand_over/captcha.html")
    ctx, seen = _context(web_page)
    assert ctx.browser is not None and ctx.browser.hand_over is not None
    hand_over = ctx.browser.hand_over
    tool = browser_registry().get("ask_user_to_take_over")
    assert tool is not None
    task = aio_loop.create_task(tool.run(ctx, tool.validate({"reason": "solve the CAPTCHA"})))
    qtbot.waitUntil(lambda: bool(hand_over.pending_ids), timeout=10_000)
    hand_over.respond(hand_over.pending_ids[0], False)
    qtbot.waitUntil(task.done, timeout=10_000)
    assert "cancelled" in task.result().for_model
    assert [e.outcome for e in seen if isinstance(e, events.HandOverFinished)] == ["cancelled"]
    # Nobody can answer (a command without a terminal): cancelled at once, and said as a notice.
    ctx, seen = _context(web_page, ask=False)
    result = _run_tool(arun, ctx, "ask_user_to_take_over", reason="solve the CAPTCHA")
    assert "cancelled" in result.for_model
    assert not any(isinstance(e, events.HandOverRequested) for e in seen)
    [notice] = [e for e in seen if isinstance(e, events.Notice)]
    assert "nobody can answer here" in notice.text and "interactive terminal" in notice.text


def test_the_outline_follows_its_element(web_page: QtWebEnginePage, load: Load, arun: Run, qtbot: Any) -> None:
    load("hand_over/moving.html")
    arun(web_page.highlight(Target(selector="#place"), "Jawad asks: Place order"))
    start = _box(arun, web_page)
    assert _follows(start), start
    # Scrolling: the box moves with the button.
    arun(web_page.run_js("window.scrollBy(0, 150); true", world=0))
    qtbot.waitUntil(lambda: _box(arun, web_page)["elTop"] != start["elTop"], timeout=3000)
    qtbot.waitUntil(lambda: _follows(_box(arun, web_page)), timeout=3000)
    assert abs(_box(arun, web_page)["top"] - (start["top"] - 150)) < 1.5
    # Reflow: content inserted above pushes the button down; a resize makes it wider.
    arun(web_page.run_js("var p=document.createElement('p');p.style.height='90px';p.textContent='Promo';"
                         "document.body.insertBefore(p, document.getElementById('place'));"
                         "document.getElementById('place').style.width='260px'; true", world=0))
    qtbot.waitUntil(lambda: _follows(_box(arun, web_page)), timeout=3000)
    assert _box(arun, web_page)["width"] > 260
    # Cleared: the box goes and stops following.
    arun(web_page.clear_highlight())
    assert arun(web_page.run_js("document.getElementById('__jawad_highlight__') === null", world=0)) is True
