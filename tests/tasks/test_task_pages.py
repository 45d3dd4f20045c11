"""Self-check of issue 18's task suite (``tests/pages/tasks``): every task page, in the real offscreen
QtWebEngine through the page driver, loads for each seed without a JavaScript error and builds the
task the harness computes for that seed; a reference solution made of the ``Page`` interface's
actions (click, fill, select_option, set_checked, scroll, wait_for) makes it report ``ok=1``; and a
wrong action makes it report ``ok=0``, or nothing where the page only shows a validation message.
So each page's checker is shown able to pass and to fail.

Keys, hover and drag are the driver's own (``press_key``, ``type_text``, ``hover``, ``drag_and_drop``);
the popup opens as a tab of ``trusted_input.TabbedWebPage``, which also carries the error catcher. A
solution that uses those tools declares them (``needs``), and the manifest must say the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.browser.guarded_page import install_page_script
from jawad_desktop.core.tools.page import PageError, Target
from tests.fixtures.task_server import TaskServer
from tests.fixtures.task_suite import TASKS_DIR, TaskInstance, TaskSpec, load_manifest, seeds, task_instance
from tests.tasks import trusted_input as real

SPECS = load_manifest()
SEEDS = seeds()

# Catches the page's own errors from the first script on, in every frame (the main world: the
# page's scripts run there, not in the page library's isolated world).
ERROR_CATCHER = """
window.__taskErrors = [];
window.addEventListener('error', function (e) { window.__taskErrors.push(String(e.message)); });
window.addEventListener('unhandledrejection', function (e) { window.__taskErrors.push('rejection: ' + e.reason); });
"""
READ_ERRORS = """(function () {
  var all = (window.__taskErrors || []).slice();
  for (var i = 0; i < window.frames.length; i++) {
    try { all = all.concat(window.frames[i].__taskErrors || []); } catch (e) { all.push('frame ' + i + ': ' + e); }
  }
  return JSON.stringify(all);
})()"""


@dataclass
class Ctx:
    """What a solution may use besides the page: the page's popups, opened as tabs."""

    popups: real.TabbedWebPage


Solution = Callable[[QtWebEnginePage, dict[str, Any], Ctx], Awaitable[None]]
SOLUTIONS: dict[str, tuple[Solution, tuple[str, ...]]] = {}
WRONG: dict[str, Solution] = {}


def solution(task_id: str, *, needs: tuple[str, ...] = ()) -> Callable[[Solution], Solution]:
    def register(fn: Solution) -> Solution:
        SOLUTIONS[task_id] = (fn, needs)
        return fn
    return register


def wrong(task_id: str) -> Callable[[Solution], Solution]:
    def register(fn: Solution) -> Solution:
        WRONG[task_id] = fn
        return fn
    return register


async def click(page: QtWebEnginePage, selector: str) -> None:
    await page.click(Target(selector=selector))


async def fill(page: QtWebEnginePage, selector: str, text: str, *, submit: bool = False) -> None:
    await page.fill(Target(selector=selector), text, submit=submit)


def other(items: list[Any], item: Any) -> Any:
    """An item of ``items`` that is not ``item``."""
    return next(x for x in items if x != item)


# -- reference solutions and wrong actions, one pair per task ------------------------------------

@solution("click_button")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#buttons > button:nth-child({d['labels'].index(d['label']) + 1})")


@wrong("click_button")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#buttons > button:nth-child({d['labels'].index(other(d['labels'], d['label'])) + 1})")


def _nth_button(d: dict[str, Any], label: str) -> str:
    return f"#buttons > button:nth-child({d['labels'].index(label) + 1})"


@solution("button_sequence")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, _nth_button(d, d["first"]))
    await click(page, _nth_button(d, d["second"]))


@wrong("button_sequence")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, _nth_button(d, d["second"]))  # the right buttons, the wrong order


@solution("click_link")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#text p:nth-child({d['links'].index(d['link']) + 1}) a")


@wrong("click_link")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#text p:nth-child({d['links'].index(other(d['links'], d['link'])) + 1}) a")


@solution("checkbox_set")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    for i, item in enumerate(d["items"]):
        await page.set_checked(Target(selector=f"#c{i}"), item in d["wanted"])
    await click(page, "#form button[type=submit]")


@wrong("checkbox_set")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#form button[type=submit]")  # as the page started: a wanted box is not ticked


@solution("radio")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await page.set_checked(Target(selector=f"#r{d['options'].index(d['choice'])}"), True)
    await click(page, "#form button[type=submit]")


@wrong("radio")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#form button[type=submit]")  # the first option, checked from the start


@solution("tabs")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    t = d["tabs"].index(d["tab"])
    await click(page, f"#tab{t}")
    await click(page, f"#panel{t} button:nth-of-type({d['panels'][t].index(d['button']) + 1})")


@wrong("tabs")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#panel0 button")  # a button of the tab shown first


@solution("collapsible")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    s = d["sections"].index(d["section"])
    await click(page, f"#s{s} .head")
    await click(page, f"#s{s} .body a:nth-of-type({d['links'].index(d['link']) + 1})")


@wrong("collapsible")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    s = d["sections"].index(other(d["sections"], d["section"]))  # the same link in another section
    await click(page, f"#s{s} .head")
    await click(page, f"#s{s} .body a:nth-of-type({d['links'].index(d['link']) + 1})")


@solution("confirm_dialog")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#files li:nth-child({d['files'].index(d['file']) + 1}) button")
    await click(page, "#confirm")


@wrong("confirm_dialog")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#files li:nth-child({d['files'].index(other(d['files'], d['file'])) + 1}) button")
    await click(page, "#confirm")


@solution("enter_text")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, f"#f{d['fields'].index(d['field'])}", d["value"])
    await click(page, "#form button[type=submit]")


@wrong("enter_text")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, f"#f{d['fields'].index(other(d['fields'], d['field']))}", d["value"])  # the wrong field
    await click(page, "#form button[type=submit]")


@solution("login_form")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#username", d["username"])
    await fill(page, "#password", d["password"])
    await click(page, "#form button[type=submit]")


@wrong("login_form")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#username", d["username"])
    await fill(page, "#password", d["password"][::-1])
    await click(page, "#form button[type=submit]")


@solution("enter_date")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#date", d["iso"])  # the format the browser wants
    await click(page, "#form button[type=submit]")


@wrong("enter_date")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    with contextlib.suppress(PageError):  # a fill that reads the field back says it was refused
        await fill(page, "#date", d["date"])  # 07/26/2017: the browser refuses it, the field stays empty
    await click(page, "#form button[type=submit]")


@solution("date_picker")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    for _ in range(abs(d["offset"])):
        await click(page, ".next" if d["offset"] > 0 else ".prev")
    await click(page, f"#grid span.day[data-day=\"{d['day']}\"]")
    await click(page, "#form button[type=submit]")


@wrong("date_picker")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#grid span.day[data-day=\"{d['day']}\"]")  # the right day of the month shown first
    await click(page, "#form button[type=submit]")


@solution("autocomplete")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#country", d["country"])
    await click(page, f"#cb-list li[data-value=\"{d['country']}\"]")
    await click(page, "#form button[type=submit]")


@wrong("autocomplete")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    name = "Canada" if d["country"] != "Canada" else "Chile"
    await fill(page, "#country", name)
    await click(page, f"#cb-list li[data-value=\"{name}\"]")
    await click(page, "#form button[type=submit]")


@solution("native_select")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await page.select_option(Target(selector="#choice"), d["option"])
    await click(page, "#form button[type=submit]")


@wrong("native_select")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await page.select_option(Target(selector="#choice"), other(d["options"], d["option"]))
    await click(page, "#form button[type=submit]")


@solution("custom_dropdown")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#current")
    await click(page, f"#menu .dd-option:nth-child({d['options'].index(d['option']) + 1})")
    await click(page, "#save")


@wrong("custom_dropdown")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#current")
    await click(page, f"#menu .dd-option:nth-child({d['options'].index(other(d['options'], d['option'])) + 1})")
    await click(page, "#save")


@solution("number_spinner")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#qty", str(d["quantity"]))
    await click(page, "#form button[type=submit]")


@wrong("number_spinner")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#qty", str(d["quantity"] - 1))
    await click(page, "#form button[type=submit]")


@solution("custom_spinner")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    steps = d["count"] - d["start"]
    for _ in range(abs(steps)):
        await click(page, ".plus" if steps > 0 else ".minus")
    await click(page, "#book")


@wrong("custom_spinner")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#book")  # the count the page started with


@solution("slider")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#slider", str(d["value"]))
    await click(page, "#form button[type=submit]")


@wrong("slider")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#form button[type=submit]")  # still at 50


async def _popup_sign_in(page: QtWebEnginePage, ctx: Ctx, user: str, password: str) -> None:
    await click(page, "#signin")
    tab = await ctx.popups.wait_for_tab()
    await fill(tab, "#username", user)
    await fill(tab, "#password", password)
    await click(tab, "#form button[type=submit]")


@solution("popup_login", needs=("switch_tab",))
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await _popup_sign_in(page, ctx, d["username"], d["password"])


@wrong("popup_login")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await _popup_sign_in(page, ctx, d["username"], d["password"] + "x")


@solution("search_pagination")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#q", d["term"], submit=True)
    await click(page, f"#pager a.page[data-page=\"{d['page']}\"]")
    await click(page, f"#r{d['index']}")


@wrong("search_pagination")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#q", d["term"], submit=True)
    await click(page, "#results a")  # the first result of page 1; the asked one is on a later page


@solution("email_inbox")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    row = f"#email-{d['index']}"
    if d["kind"] in ("star", "delete"):
        await click(page, f"{row} .{'star' if d['kind'] == 'star' else 'trash'}")
        return
    await click(page, f"{row} .sender")  # opens the email
    if d["kind"] == "reply":
        await click(page, "#view .reply")
        await fill(page, "#body", d["text"])
    else:
        await click(page, "#view .forward")
        await fill(page, "#to", d["address"])
    await click(page, "#send")


@wrong("email_inbox")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#email-{(d['index'] + 1) % len(d['emails'])} .star")  # another email


@solution("social_feed")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    post = f"#post-{d['index']}"
    if d["kind"] == "like":
        await click(page, f"{post} .like")
    elif d["kind"] == "follow":
        await click(page, f"{post} .follow")
    elif d["kind"] == "comment":
        await click(page, f"{post} .comment-toggle")
        await fill(page, f"{post} .comment-input", d["text"])
        await click(page, f"{post} .post-comment")
    else:
        await click(page, f"{post} .more")
        await click(page, f"{post} .menu-item:nth-child(2)")  # Hide post


@wrong("social_feed")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"#post-{(d['index'] + 1) % len(d['posts'])} .like")


async def _search_flights(page: QtWebEnginePage, d: dict[str, Any]) -> None:
    await fill(page, "#from", d["from"])
    await fill(page, "#to", d["to"])
    await fill(page, "#depart", d["iso"])
    await page.select_option(Target(selector="#pax"), str(d["passengers"]))
    await click(page, "#search button[type=submit]")


@solution("flight_booking")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await _search_flights(page, d)
    await click(page, f"#flight-{d['cheapest']} button")


@wrong("flight_booking")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await _search_flights(page, d)
    await click(page, f"#flight-{(d['cheapest'] + 1) % len(d['flights'])} button")  # dearer


def _tree_steps(path: str) -> list[str]:
    parts = path.split("/")
    return [f"li[data-path=\"{'/'.join(parts[:i])}\"] > .name" for i in range(1, len(parts) + 1)]


@solution("tree_navigation")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    for step in _tree_steps(d["path"]):
        await click(page, step)


@wrong("tree_navigation")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    top, sub, _file = d["path"].split("/")
    folder = next(t for t in d["tree"] if t["name"] == top)
    other_sub = next(s for s in folder["children"] if s["name"] != sub)
    for step in _tree_steps(f"{top}/{other_sub['name']}/{other_sub['files'][0]}"):
        await click(page, step)


@solution("read_table")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#answer", d["answer"])
    await click(page, "#form button[type=submit]")


@wrong("read_table")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#answer", "Nobody knows")
    await click(page, "#form button[type=submit]")


async def _sign_up(page: QtWebEnginePage, d: dict[str, Any], plan: str) -> None:
    await fill(page, "#name", d["name"])
    await fill(page, "#email", d["email"])
    await click(page, "#step1 .next")
    await page.set_checked(Target(selector=f"#plan-{plan.lower()}"), True)
    await page.select_option(Target(selector="#billing"), d["billing"])
    await click(page, "#step2 .next")
    await page.set_checked(Target(selector="#terms"), True)
    await click(page, "#finish")


@solution("wizard")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await _sign_up(page, d, d["plan"])


@wrong("wizard")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await _sign_up(page, d, "Starter")


@solution("infinite_scroll")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    item = f"#item-{d['index']}"
    for _ in range(8):
        if await page.wait_for(selector=item, timeout=0.1):
            break
        await page.scroll("bottom")
        await page.wait_for(selector=item, timeout=1.0)
    await click(page, f"{item} button")


@wrong("infinite_scroll")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#item-0 button")


@solution("iframe_form")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#signup >>> #name", d["name"])
    await fill(page, "#signup >>> #email", d["email"])
    await click(page, "#signup >>> button[type=submit]")


@wrong("iframe_form")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#signup >>> #name", d["name"])
    await fill(page, "#signup >>> #email", "someone@example.com")
    await click(page, "#signup >>> button[type=submit]")


@solution("shadow_widgets")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "coupon-box >>> #code", d["code"])
    await click(page, "coupon-box >>> #apply")
    await click(page, "checkout-bar >>> #checkout")


@wrong("shadow_widgets")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "checkout-bar >>> #checkout")  # no coupon


@solution("terminal", needs=("press_key", "type_text"))
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await page.type_text(d["command"], Target(selector="#term"))
    await page.press_key("Enter")


@wrong("terminal")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    # Synthetic key events, as a page script can make them: the terminal ignores them.
    keys = json.dumps([*d["command"], "Enter"])
    ignored = await page.run_js(
        "(function (keys) { var t = document.getElementById('term'); t.focus();"
        " keys.forEach(function (k) { t.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true})); });"
        f" return Number(t.dataset.ignored); }})({keys})", world=0)
    assert ignored == len(d["command"]) + 1


@solution("hover_menu", needs=("hover",))
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    m = d["menus"].index(d["menu"])
    await page.hover(Target(selector=f"#menu-{m} > span"))
    await click(page, f"#menu-{m} .submenu li:nth-child({d['items'][m].index(d['item']) + 1}) a")


@wrong("hover_menu")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    m = d["menus"].index(other(d["menus"], d["menu"]))
    await page.hover(Target(selector=f"#menu-{m} > span"))
    await click(page, f"#menu-{m} .submenu li:nth-child(1) a")


@solution("calendar_slots")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, f"[data-slot=\"{d['day']} {d['time']}\"]")


@wrong("calendar_slots")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    times = ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"]
    free = [f"{day} {t}" for t in times for day in days if f"{day} {t}" not in d["busy"]]
    await click(page, f"[data-slot=\"{other(free, d['day'] + ' ' + d['time'])}\"]")


@solution("drag_drop", needs=("drag_and_drop",))
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await page.drag_and_drop(Target(selector=f"#card-{d['cards'].index(d['card'])}"),
                             Target(selector=f"#bin-{d['bins'].index(d['bin'])}"))


@wrong("drag_drop")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await page.drag_and_drop(Target(selector=f"#card-{d['cards'].index(d['card'])}"),
                             Target(selector=f"#bin-{d['bins'].index(other(d['bins'], d['bin']))}"))


@solution("place_order")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    shipping = ["Standard", "Express", "Next day", "Store pickup"]
    await page.set_checked(Target(selector=f"#ship-{shipping.index(d['shipping'])}"), True)
    await click(page, "#place")


@wrong("place_order")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await click(page, "#place")  # Standard shipping, as the page started


@solution("rich_text")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#editor", d["text"])
    await click(page, "#send")


@wrong("rich_text")
async def _(page: QtWebEnginePage, d: dict[str, Any], ctx: Ctx) -> None:
    await fill(page, "#editor", d["text"] + " and more")
    await click(page, "#send")


# -- the harness ---------------------------------------------------------------------------------

@pytest.fixture
def new_task_page(web_profile: QWebEngineProfile, qtbot: Any) -> Callable[[], QtWebEnginePage]:
    """``new_task_page()``: a shown 1024x768 view driven by the page driver, whose popups open as
    tabs, with the error catcher in every document it loads. Each run of a task gets its own, so
    the runs of a test go side by side (the driver's waits are sleeps, not work)."""

    def make() -> QtWebEnginePage:
        view = QWebEngineView()
        qtbot.addWidget(view)
        view.resize(1024, 768)
        view.show()
        qtbot.waitExposed(view)
        tabbed = real.TabbedWebPage(web_profile, view, qtbot)
        install_page_script(tabbed)
        script = QWebEngineScript()
        script.setName("task-error-catcher")
        script.setSourceCode(ERROR_CATCHER)
        script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
        script.setWorldId(int(QWebEngineScript.ScriptWorldId.MainWorld))
        script.setRunsOnSubFrames(True)
        tabbed.scripts().insert(script)
        view.setPage(tabbed)
        page = QtWebEnginePage(view, profile=web_profile)
        assert page.adopted and page.page is tabbed
        return page

    return make


async def open_task(page: QtWebEnginePage, server: TaskServer, inst: TaskInstance) -> None:
    """Load the task page for the instance's seed and check it: no JavaScript error, the task the
    harness computed, no verdict yet."""
    server.clear(inst.id, inst.seed)
    await page.navigate(server.url(inst.spec.file, inst.seed))
    where = f"{inst.id} seed {inst.seed}"
    assert await page_errors(page) == [], f"{where}: JavaScript errors on load"
    built = json.loads(await page.run_js("JSON.stringify(window.__task || null)", world=0) or "null")
    assert built == {"instruction": inst.instruction, "data": inst.data}, f"{where}: the page built another task"
    assert server.result(inst.id, inst.seed) is None, f"{where}: a verdict before any action"


async def page_errors(page: QtWebEnginePage) -> list[str]:
    return list(json.loads(await page.run_js(READ_ERRORS, world=0)))


def test_the_manifest_lists_every_page_and_each_seed_makes_its_own_task(qapp: Any) -> None:
    # qapp first: the instances run in QJSEngine, which needs the application object.
    assert len(SPECS) >= 32
    assert len({s.id for s in SPECS}) == len(SPECS)
    pages = {p.name for p in TASKS_DIR.glob("*.html")}
    named = {s.file for s in SPECS} | {f for s in SPECS for f in s.files}
    assert named == pages  # no page left out, none missing
    assert set(SOLUTIONS) == set(WRONG) == {s.id for s in SPECS}
    for spec in SPECS:
        assert spec.wrong in ("ok=0", "nothing"), spec.id
        assert tuple(SOLUTIONS[spec.id][1]) == spec.needs, f"{spec.id}: the manifest's needs differ from the solution's"
        made = [task_instance(spec, seed) for seed in SEEDS]
        for inst in made:
            assert inst.template() is not None, f"{spec.id} seed {inst.seed}: {inst.instruction!r} fits no template"
        assert len({json.dumps(inst.data, sort_keys=True) for inst in made}) == len(SEEDS), spec.id


# The seeds each task is solved with: every seed, and for the pages whose seed picks the kind of
# task, seeds that cover every kind.
EXTRA_SEEDS = {"email_inbox": ("kind", 4), "social_feed": ("kind", 4)}


def solve_seeds(spec: TaskSpec) -> list[int]:
    chosen = list(SEEDS)
    if spec.id in EXTRA_SEEDS:
        key, kinds = EXTRA_SEEDS[spec.id]
        seen = {task_instance(spec, s).data[key] for s in chosen}
        seed = max(chosen)
        while len(seen) < kinds:
            seed += 1
            kind = task_instance(spec, seed).data[key]
            if kind not in seen:
                seen.add(kind)
                chosen.append(seed)
    return chosen


def _param(spec: TaskSpec) -> Any:
    # The wrong date is typed as 07/26/2017: Chromium warns that it refuses it, which is the point.
    marks = [pytest.mark.qt_log_ignore("does not conform to the required format")] if spec.id == "enter_date" else []
    return pytest.param(spec, id=spec.id, marks=marks)


WRONG_SEED = 100  # the wrong action's run has a seed of its own: the runs go side by side


async def solve_run(page: QtWebEnginePage, server: TaskServer, inst: TaskInstance) -> None:
    """The reference solution makes the page report ok=1."""
    await open_task(page, server, inst)
    solve, _needs = SOLUTIONS[inst.id]
    assert isinstance(page.page, real.TabbedWebPage)
    await solve(page, inst.data, Ctx(popups=page.page))
    report = await server.until_done(inst.id, inst.seed, timeout=5.0)
    where = f"{inst.id} seed {inst.seed}"
    assert report is not None, f"{where}: the reference solution got no verdict"
    assert report.ok, f"{where}: the reference solution failed: {report.detail}"
    assert await page_errors(page) == [], f"{where}: JavaScript errors while solving"


async def wrong_run(page: QtWebEnginePage, server: TaskServer, inst: TaskInstance) -> None:
    """A wrong action makes the page report ok=0, or nothing where it only shows a validation message."""
    await open_task(page, server, inst)
    assert isinstance(page.page, real.TabbedWebPage)
    await WRONG[inst.id](page, inst.data, Ctx(popups=page.page))
    if inst.spec.wrong == "ok=0":
        report = await server.until_done(inst.id, inst.seed, timeout=5.0)
        assert report is not None and not report.ok, f"{inst.id}: a wrong action gave {report}"
    else:
        await asyncio.sleep(0.5)
        assert server.result(inst.id, inst.seed) is None, f"{inst.id}: a wrong action gave a verdict"
    assert await page_errors(page) == [], f"{inst.id}: JavaScript errors after the wrong action"


@pytest.mark.parametrize("spec", [_param(s) for s in SPECS])
def test_task_page_loads_is_solvable_and_can_fail(
    spec: TaskSpec, new_task_page: Callable[[], QtWebEnginePage], task_server: TaskServer,
    arun: Callable[..., Any],
) -> None:
    runs = [solve_run(new_task_page(), task_server, task_instance(spec, seed)) for seed in solve_seeds(spec)]
    runs.append(wrong_run(new_task_page(), task_server, task_instance(spec, WRONG_SEED)))

    async def side_by_side() -> None:
        await asyncio.gather(*runs)

    arun(side_by_side(), timeout=60)
