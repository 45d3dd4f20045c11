"""The browser tools issue 18 adds, each called as the model calls it (through the browser registry)
on real pages in the offscreen QtWebEngine: press_key, type_text, hover, drag_and_drop, go_forward,
reload, the tabs (list_tabs, switch_tab, close_tab; popups open as tabs), downloads and upload_file.
The task pages of ``tests/pages/tasks`` that need these tools are solved with them and judge
themselves; the small pages of ``tests/pages/input`` show the details."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.tools.browser import BrowserSession, browser_registry
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext
from tests.browser.wiring import WiredBrowser, wire_browser
from tests.fixtures.task_server import TaskServer, task_server  # noqa: F401  (a fixture)
from tests.fixtures.task_suite import task_instance

Run = Callable[..., Any]
Load = Callable[[str], str]


def session_for(page: QtWebEnginePage, *user_texts: str) -> ToolContext:
    browser = BrowserSession(page, highlight_s=0)
    for text in user_texts:
        browser.note_user_message(text)
    return ToolContext(settings=Settings(), bus=EventBus(), browser=browser)


def call(arun: Run, ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    tool = browser_registry().get(name)
    assert tool is not None, name
    return arun(tool.run(ctx, tool.validate(arguments)), timeout=30)


def js(arun: Run, page: QtWebEnginePage, source: str) -> Any:
    """A value from the page's own world (what its scripts see), through JSON."""
    return json.loads(arun(page.run_js(f"JSON.stringify({source})", world=0)) or "null")


def open_task(arun: Run, page: QtWebEnginePage, server: TaskServer, task: str, seed: int = 1) -> dict[str, Any]:
    inst = task_instance(task, seed)
    server.clear(task, seed)
    arun(page.navigate(server.url(inst.spec.file, seed)))
    return inst.data


def verdict(arun: Run, server: TaskServer, task: str, seed: int = 1) -> Any:
    return arun(server.until_done(task, seed, 10.0))


# -- keys -----------------------------------------------------------------------------------------


def test_a_terminal_that_takes_only_real_keys_runs_the_typed_command(
        web_page: QtWebEnginePage, task_server: TaskServer, arun: Run) -> None:  # noqa: F811
    data = open_task(arun, web_page, task_server, "terminal", 2)
    ctx = session_for(web_page)
    typed = call(arun, ctx, "type_text", text=data["command"], selector="#term")
    assert typed.ok and f'Typed "{data["command"]}" into' in typed.for_model, typed.for_model
    pressed = call(arun, ctx, "press_key", key="Enter")
    assert pressed.ok and pressed.for_model.startswith('Pressed Enter in ')
    report = verdict(arun, task_server, "terminal", 2)
    assert report is not None and report.ok, report
    assert js(arun, web_page, "document.getElementById('term').dataset.ignored") == "0"  # every key was trusted


def test_keys_combinations_focus_moves_and_typing_in_other_scripts(web_page: QtWebEnginePage, load: Load,
                                                                  arun: Run) -> None:
    load("input/keys.html")
    ctx = session_for(web_page)
    # Control+A selects the field's text, Backspace deletes it: a real shortcut, not a typed "a".
    call(arun, ctx, "press_key", key="Control+A", selector="#first")
    cleared = call(arun, ctx, "press_key", key="Backspace")
    assert js(arun, web_page, "document.getElementById('first').value") == ""
    assert 'Pressed Backspace in textbox "First" = "hello world". Now: textbox "First" = "".' in cleared.for_model
    keys = js(arun, web_page, "window.keys")
    assert {"key": "a", "ctrl": True, "shift": False, "alt": False, "trusted": True, "on": "first"} in keys
    assert all(k["trusted"] for k in keys)
    # Tab and Shift+Tab move the focus, and the model is told where it went.
    tabbed = call(arun, ctx, "press_key", key="Tab")
    assert "Now: textbox \"Second\"" in tabbed.for_model
    back = call(arun, ctx, "press_key", key="shift+tab")
    assert "Now: textbox \"First\"" in back.for_model
    # Letters no key makes (Arabic, an accent, an emoji) arrive through the input method; new text
    # goes after what is there.
    call(arun, ctx, "type_text", text="Hi", selector="#editor")
    result = call(arun, ctx, "type_text", text=" مرحبا é ☕")
    assert js(arun, web_page, "document.getElementById('editor').innerText") == "Hi مرحبا é ☕"
    assert 'It now holds: textbox "Editor" = "Hi مرحبا é ☕".' in result.for_model
    # Escape reaches the page's listeners.
    call(arun, ctx, "press_key", key="Escape")
    assert js(arun, web_page, "document.getElementById('log').textContent") == "Escape pressed"


def test_a_password_typed_with_keys_is_not_echoed(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("input/keys.html")
    ctx = session_for(web_page)
    result = call(arun, ctx, "type_text", text="s3cret-Pw", selector="#secret")
    assert js(arun, web_page, "document.getElementById('secret').value") == "s3cret-Pw"
    assert "s3cret" not in result.for_model and "s3cret" not in result.for_log
    assert 'Typed 9 characters into input[password] "Secret"' in result.for_model
    assert '"Secret" (9 characters, hidden)' in result.for_model


def test_a_chord_presses_its_modifier_keys_first_as_a_keyboard_does(web_page: QtWebEnginePage, load: Load,
                                                                   arun: Run) -> None:
    # A page that watches keydown for "Shift" then "A" (WebGames' key combo) sees both keys.
    load("input/keys.html")
    ctx = session_for(web_page)
    call(arun, ctx, "press_key", key="Control+Shift+Y", selector="#box")
    keys = [k["key"] for k in js(arun, web_page, "window.keys")]
    assert keys[-3:] == ["Control", "Shift", "Y"]


def test_scroll_page_scrolls_sideways_to_the_right_edge(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("input/wide.html")
    ctx = session_for(web_page)
    step = call(arun, ctx, "scroll_page", direction="right").for_model
    assert step.startswith("Scrolled right; now at ") and "of the page's width" in step
    assert "the right edge" in call(arun, ctx, "scroll_page", direction="rightmost").for_model
    # The page's observer says so once the last box is in view (it runs after the scroll).
    assert call(arun, ctx, "wait_for", text="The last box came into view", timeout_s=5).ok
    assert "the left edge" in call(arun, ctx, "scroll_page", direction="leftmost").for_model
    assert "Nothing more to scroll left" in call(arun, ctx, "scroll_page", direction="left").for_model


def test_an_element_that_takes_keys_only_once_clicked_is_clicked_first(web_page: QtWebEnginePage, load: Load,
                                                                       arun: Run) -> None:
    load("input/keys.html")
    ctx = session_for(web_page)
    call(arun, ctx, "press_key", key="x", selector="#box")  # a div with no tabindex until it is clicked
    assert js(arun, web_page, "window.keys[window.keys.length - 1]") == {
        "key": "x", "ctrl": False, "shift": False, "alt": False, "trusted": True, "on": "box"}


def test_a_key_that_does_not_exist_is_explained(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("input/keys.html")
    ctx = session_for(web_page)
    for key, words in (("Hyper+A", "not a modifier key"), ("Kaboom", "is not a key press_key knows"),
                       ("Control", "a modifier alone"), ("é", "No key makes 'é': type it with type_text")):
        result = call(arun, ctx, "press_key", key=key)
        assert not result.ok and words in result.for_model, (key, result.for_model)
    assert js(arun, web_page, "window.keys") == []


def test_typing_a_long_text_stops_at_once(web_page: QtWebEnginePage, load: Load, arun: Run, aio_loop: Any,
                                          qtbot: Any) -> None:
    load("input/keys.html")
    task = aio_loop.create_task(web_page.type_text("x" * 5000, None))
    qtbot.wait(300)
    started = time.monotonic()
    task.cancel()
    qtbot.waitUntil(task.done, timeout=2000)
    assert time.monotonic() - started < 0.5
    typed = len(js(arun, web_page, "window.keys"))
    assert 0 < typed < 5000


# -- pointer --------------------------------------------------------------------------------------


def test_hover_opens_a_css_menu_and_its_entry_is_clicked(web_page: QtWebEnginePage, task_server: TaskServer,  # noqa: F811
                                                        arun: Run) -> None:
    data = open_task(arun, web_page, task_server, "hover_menu", 1)
    ctx = session_for(web_page)
    # The menu bar has no handler and nothing to click: the stylesheet's li:hover says what opens.
    first = arun(ctx.browser.read())  # type: ignore[union-attr]
    menus = {item["label"]: item for item in first.elements}
    assert set(menus) == set(data["menus"])
    assert all(item["role"] == "MENU" and item.get("opensOnHover") for item in menus.values())
    assert f'menu "{data["menu"]}" (opens on hover)' in first.interactive_elements
    hovered = call(arun, ctx, "hover", index=menus[data["menu"]]["index"])
    assert hovered.ok and 'The pointer is over' in hovered.for_model and data["menu"] in hovered.for_model
    reading = arun(ctx.browser.read())  # type: ignore[union-attr]
    entry = next(item for item in reading.elements if item.get("label") == data["item"])
    clicked = call(arun, ctx, "click_element", index=entry["index"])
    assert clicked.ok, clicked.for_model
    report = verdict(arun, task_server, "hover_menu", 1)
    assert report is not None and report.ok, report


def test_drag_and_drop_with_the_mouse(web_page: QtWebEnginePage, task_server: TaskServer, arun: Run) -> None:  # noqa: F811
    data = open_task(arun, web_page, task_server, "drag_drop", 3)
    ctx = session_for(web_page)
    # The cards take a press, a move and a release on a handler of the document; their cursor is a hand.
    reading = arun(ctx.browser.read())  # type: ignore[union-attr]
    cards = {item["label"]: item for item in reading.elements}
    assert set(cards) == set(data["cards"]) and all(c["role"] == "DRAGGABLE" for c in cards.values())
    # The boxes are no controls: the place is named by the words on it.
    result = call(arun, ctx, "drag_and_drop", from_index=cards[data["card"]]["index"], to_text=data["bin"])
    assert result.ok and result.for_model.startswith("Dragged "), result.for_model
    report = verdict(arun, task_server, "drag_drop", 3)
    assert report is not None and report.ok, report


def test_html_drag_and_drop_gets_its_drag_events(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("input/drag_html5.html")
    ctx = session_for(web_page)
    result = call(arun, ctx, "drag_and_drop", from_selector="#task-b", to_selector="#done")
    assert result.ok, result.for_model
    assert js(arun, web_page, "[...document.getElementById('done').children].map(e => e.id)") == ["task-b"]


# -- history --------------------------------------------------------------------------------------


def test_go_back_go_forward_and_reload(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    first = load("input/history_a.html")
    second = load("input/history_b.html")
    ctx = session_for(web_page)
    nothing = call(arun, ctx, "go_forward")
    assert not nothing.ok and "no next page" in nothing.for_model
    assert call(arun, ctx, "go_back").for_model == f"Went back; the page is now {first}."
    assert call(arun, ctx, "go_forward").for_model == f"Went forward; the page is now {second}."
    loaded = js(arun, web_page, "document.getElementById('loaded').textContent")
    assert call(arun, ctx, "reload").for_model == f"Reloaded {second}; call read_page to see it."
    assert js(arun, web_page, "document.getElementById('loaded').textContent") != loaded  # a new document


# -- tabs -----------------------------------------------------------------------------------------


def test_a_sign_in_popup_opens_as_a_tab_the_agent_works_in(web_page: QtWebEnginePage, task_server: TaskServer,  # noqa: F811
                                                          arun: Run) -> None:
    data = open_task(arun, web_page, task_server, "popup_login", 2)
    opener = arun(web_page.url())
    ctx = session_for(web_page)
    clicked = call(arun, ctx, "click_element", selector="#signin")
    assert "It opened a new tab, now shown: tab 2: Acme ID – Sign in (" in clicked.for_model, clicked.for_model
    listed = call(arun, ctx, "list_tabs")
    popup = opener.split("popup_login.html")[0] + "popup_login_window.html"
    assert listed.data == [{"index": 1, "title": "Photo Lab", "url": opener, "active": False},
                           {"index": 2, "title": "Acme ID – Sign in", "url": popup, "active": True}]
    assert listed.for_model.splitlines()[1] == f"Tab 2 (shown: read_page reads it): Acme ID – Sign in — {popup}"
    assert js(arun, web_page, "window.opener !== null")  # the popup can answer the page that opened it
    call(arun, ctx, "fill_form", selector="#username", text=data["username"])
    call(arun, ctx, "fill_form", selector="#password", text=data["password"])
    signed = call(arun, ctx, "click_element", selector="#form button[type=submit]")
    assert "That tab closed itself; now showing tab 1: Photo Lab" in signed.for_model, signed.for_model
    report = verdict(arun, task_server, "popup_login", 2)
    assert report is not None and report.ok, report
    assert arun(web_page.url()) == opener and len(call(arun, ctx, "list_tabs").data) == 1


def test_switch_and_close_tabs(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    url = load("form.html")
    ctx = session_for(web_page)
    call(arun, ctx, "click_element", selector="#newwin")
    switched = call(arun, ctx, "switch_tab", tab=1)
    assert switched.for_model == (f"Now showing Tab 1 (shown: read_page reads it): Contact form — {url}. "
                                  "Call read_page to see it.")
    assert arun(web_page.url()) == url
    missing = call(arun, ctx, "switch_tab", tab=5)
    assert not missing.ok and "There is no tab 5: there are 2 tabs (list_tabs shows them)." in missing.for_model
    closed = call(arun, ctx, "close_tab", tab=2)
    assert closed.ok and closed.for_model.startswith("Closed tab 2. Now showing Tab 1")
    last = call(arun, ctx, "close_tab", tab=1)
    assert not last.ok and "This is the only tab" in last.for_model
    assert [t.url for t in arun(web_page.tabs())] == [url]


# -- downloads ------------------------------------------------------------------------------------


@dataclass
class Asked:
    """A page wired to Harbor (``wired``) with the tools' context; ``answers`` are given to the
    permission requests in turn, ``asked`` records them; downloads go to ``folder``."""

    ctx: ToolContext
    wired: WiredBrowser
    folder: Path
    answers: list[str] = field(default_factory=list)
    asked: list[events.PermissionRequest] = field(default_factory=list)


@pytest.fixture
def asked_browser(web_page: QtWebEnginePage, tmp_path: Path) -> Iterator[Asked]:
    """The page wired to Harbor as the assistant wires it, the downloads going to a folder of the test."""

    bus = EventBus()
    wired = wire_browser(web_page, bus, config_dir=tmp_path / "config", data_dir=tmp_path / "data",
                         highlight_s=0, timeout_s=5)
    folder = tmp_path / "Downloads"
    folder.mkdir()
    web_page.kept_downloads.folder = lambda: folder
    kit = Asked(ToolContext(settings=Settings(), bus=bus, browser=wired.session), wired, folder)

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.PermissionRequest):
            kit.asked.append(event)
            if kit.answers:
                asyncio.get_running_loop().call_soon(wired.gate.respond, event.id, kit.answers.pop(0))

    bus.subscribe(on_event)
    yield kit
    wired.close()


def until_downloads(arun: Run, page: QtWebEnginePage, states: list[str]) -> list[Any]:
    async def wait() -> list[Any]:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            items = await page.downloads()
            if [d.state for d in items] == states:
                return items
            await asyncio.sleep(0.05)
        raise AssertionError(f"downloads are {[(d.name, d.state) for d in await page.downloads()]}, not {states}")
    return arun(wait(), timeout=15)


def test_the_agents_download_is_asked_for_then_saved_or_not(web_page: QtWebEnginePage, load: Load, arun: Run,
                                                           asked_browser: Asked) -> None:
    ctx, folder, answers, asked = asked_browser.ctx, asked_browser.folder, asked_browser.answers, asked_browser.asked
    load("input/downloads.html")
    answers.append("allow-once")
    clicked = call(arun, ctx, "click_element", selector="#report")
    assert "It started a download: report.csv" in clicked.for_model, clicked.for_model
    [item] = until_downloads(arun, web_page, ["done"])
    assert (folder / "report.csv").read_text() == "month,total\njanuary,120\nfebruary,95\n"
    assert item.path == str(folder / "report.csv") and item.size == 36
    request = asked[-1]
    assert (request.tool_name, request.permission_level, request.site) == ("download", "interact", "127.0.0.1")
    assert "It would save the file 'report.csv' (" in request.reason and "to your downloads folder" in request.reason
    # Denied: nothing is saved, not even the part that came while the user was asked.
    answers.append("deny")
    call(arun, ctx, "click_element", selector="#notes")
    until_downloads(arun, web_page, ["done", "denied"])
    assert sorted(p.name for p in folder.iterdir()) == ["report.csv"]
    staging = web_page.kept_downloads._staging
    assert staging is not None and list(staging.iterdir()) == []
    listed = call(arun, ctx, "list_downloads")
    assert listed.for_model.splitlines() == [f"1. report.csv — 36 bytes — done — {folder / 'report.csv'}",
                                             "2. notes.csv — 36 bytes — denied"]
    # Allowed for the site: the next one is saved without asking, and a name taken gets a number.
    answers.append("allow-site")
    call(arun, ctx, "click_element", selector="#report")
    until_downloads(arun, web_page, ["done", "denied", "done"])
    count = len(asked)
    call(arun, ctx, "click_element", selector="#report")
    until_downloads(arun, web_page, ["done", "denied", "done", "done"])
    assert len(asked) == count
    assert sorted(p.name for p in folder.iterdir()) == ["report (1).csv", "report (2).csv", "report.csv"]


def test_downloads_ask_even_where_interact_runs_without_asking(web_page: QtWebEnginePage, load: Load, arun: Run,
                                                              asked_browser: Asked) -> None:
    from jawad_desktop.core.harbor.policy import PermissionLevel

    ctx, folder, asked = asked_browser.ctx, asked_browser.folder, asked_browser.asked
    asked_browser.wired.harbor.policy.auto_levels.add(PermissionLevel.INTERACT)  # jawad ask --allow interact
    load("input/downloads.html")
    clicked = call(arun, ctx, "click_element", selector="#report")  # the click runs; its download asks
    assert clicked.ok
    until_downloads(arun, web_page, ["denied"])  # nobody answered within the gate's time
    assert [a.tool_name for a in asked] == ["download"] and list(folder.iterdir()) == []


def test_stop_refuses_a_download_still_asked_about(web_page: QtWebEnginePage, load: Load, arun: Run,
                                                  asked_browser: Asked, qtbot: Any) -> None:
    load("input/downloads.html")
    settled: list[events.PermissionSettled] = []
    bus = asked_browser.ctx.bus
    bus.subscribe(lambda e: settled.append(e) if isinstance(e, events.PermissionSettled) else None)
    call(arun, asked_browser.ctx, "click_element", selector="#report")
    until_downloads(arun, web_page, ["asking"])
    started = time.monotonic()
    stopped = events.ChatResponse(run_id="r1", content="", interrupted=True)
    bus.emit(events.TurnFinished(run_id="r1", user_text="", messages=(), response=stopped))  # the user pressed Stop
    until_downloads(arun, web_page, ["denied"])
    assert time.monotonic() - started < 0.5
    assert [s.outcome for s in settled] == ["stopped"] and list(asked_browser.folder.iterdir()) == []


def test_a_download_the_user_starts_is_saved_without_asking(web_page: QtWebEnginePage, load: Load, arun: Run,
                                                            asked_browser: Asked) -> None:
    folder, asked = asked_browser.folder, asked_browser.asked
    load("input/downloads.html")
    arun(web_page.run_js("document.getElementById('notes').click()", world=0))  # the user's click, no agent action
    until_downloads(arun, web_page, ["done"])
    assert asked == [] and (folder / "notes.csv").exists()


# -- uploads --------------------------------------------------------------------------------------


def test_upload_only_a_file_the_user_named(web_page: QtWebEnginePage, load: Load, arun: Run, tmp_path: Path) -> None:
    cv = tmp_path / "cv.txt"
    cv.write_text("Jane Doe, engineer\n")
    other = tmp_path / "secrets.txt"
    other.write_text("do not send")
    load("input/upload.html")
    ctx = session_for(web_page, f"Please upload my CV, {cv}, to this form")
    result = call(arun, ctx, "upload_file", path=str(cv), selector="#cv")
    assert result.ok and f'Gave the file {cv} to "CV"; the field now holds: cv.txt.' in result.for_model
    assert js(arun, web_page, "document.getElementById('chosen').textContent") == "cv: cv.txt: Jane Doe, engineer"
    # A file input the page hides behind its label is opened through the label.
    hidden = call(arun, ctx, "upload_file", path=str(cv), selector="#hidden-file")
    assert hidden.ok, hidden.for_model
    chosen = js(arun, web_page, "document.getElementById('chosen').textContent")
    assert chosen == "hidden-file: cv.txt: Jane Doe, engineer"
    refused = call(arun, ctx, "upload_file", path=str(other), selector="#cv")
    assert not refused.ok and "The user did not name the file" in refused.for_model
    missing_ctx = session_for(web_page, "upload /nowhere/cv.pdf please")
    missing = call(arun, missing_ctx, "upload_file", path="/nowhere/cv.pdf", selector="#cv")
    assert not missing.ok and "There is no file at /nowhere/cv.pdf" in missing.for_model
    wrong = call(arun, ctx, "upload_file", path=str(cv), selector="h1")
    assert not wrong.ok and "is not a file field" in wrong.for_model
    assert js(arun, web_page, "document.getElementById('cv').files.length") == 1


def test_uploads_are_critical_and_enter_is_a_submit(web_page: QtWebEnginePage, load: Load, arun: Run,
                                                    tmp_path: Path) -> None:
    from jawad_desktop.core.harbor.gate import PermissionCheck
    from jawad_desktop.core.harbor.policy import PermissionLevel
    from jawad_desktop.core.tools.browser import inspect

    load("input/upload.html")
    ctx = session_for(web_page, f"upload {tmp_path}/cv.txt")
    assert ctx.browser is not None

    def insight(tool: str, **arguments: Any) -> Any:
        check = PermissionCheck(tool=tool, call_id="c1", arguments=arguments, level=PermissionLevel.INTERACT,
                                site="127.0.0.1", current_site="127.0.0.1")
        return arun(inspect(ctx.browser, check))

    up = insight("upload_file", path=f"{tmp_path}/cv.txt", selector="#cv")
    assert up.critical and f"It would give the file {tmp_path}/cv.txt to 127.0.0.1" in up.note
    assert insight("press_key", key="Enter", selector="#cv") is not None
    registry = browser_registry()
    press, typing = registry.get("press_key"), registry.get("type_text")
    assert press is not None and typing is not None
    assert press.permission_level(press.validate({"key": "Enter"})) is PermissionLevel.SUBMIT
    assert press.permission_level(press.validate({"key": "Tab"})) is PermissionLevel.INTERACT
    assert typing.permission_level(typing.validate({"text": "hi\n"})) is PermissionLevel.SUBMIT
    assert typing.permission_level(typing.validate({"text": "hi"})) is PermissionLevel.INTERACT


# -- scrolling a feed -------------------------------------------------------------------------------


def test_scrolling_to_the_end_of_a_feed_waits_for_what_it_loads(web_page: QtWebEnginePage, task_server: TaskServer,  # noqa: F811
                                                                 arun: Run) -> None:
    # The feed appends ten articles 150 ms after its end comes into view: each scroll to the end says
    # the page grew (so three scrolls in a row are not "the same result" to the loop guard), until the
    # last batch, and then the bottom is the bottom.
    data = open_task(arun, web_page, task_server, "infinite_scroll", 1)
    ctx = session_for(web_page)
    messages = [call(arun, ctx, "scroll_page", direction="bottom").for_model for _ in range(8)]
    total = len(data["titles"])
    assert js(arun, web_page, "document.querySelectorAll('article.item').length") == total
    grew = [m for m in messages if "loaded more below" in m]
    assert len(grew) == (total - 1) // 10, messages  # the page loads ten at a time
    assert messages[-1] == "Scrolled bottom; now at the bottom of the page." or "Already" in messages[-1], messages
