"""Sturdy actions in the real browser (issue 18, point 3): every action says what it changed, a value
the page refused is reported as refused and dates are entered in the field's format, a re-rendered
element is found again, a covered element is reported by what covers it, and a password's characters
never reach the model.

The tools run through the browser registry on a ``BrowserSession``, as the agent runs them; the task
pages judge themselves (``tests/fixtures/task_server.py``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.tools.browser import BrowserSession, browser_registry
from jawad_desktop.core.tools.browser.changes import field_sentence
from jawad_desktop.core.tools.page import PageError, Target
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext
from tests.fixtures.task_server import TaskServer


@pytest.fixture(scope="module")
def tasks() -> Iterator[TaskServer]:
    """The task pages, which judge themselves (``tests/fixtures/task_server.py``)."""
    with TaskServer() as server:
        yield server


@pytest.fixture
def ctx(web_page: QtWebEnginePage) -> ToolContext:
    session = BrowserSession(web_page, highlight_s=0)
    return ToolContext(settings=Settings(), bus=EventBus(), browser=session, result_chars=20000)


def run_tool(arun: Callable[..., Any], ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    tool = browser_registry().get(name)
    assert tool is not None
    return arun(tool.run(ctx, tool.validate(arguments)))


def index_of(arun: Callable[..., Any], ctx: ToolContext, line: str, nth: int = 1) -> int:
    """The [n] read_page shows for ``line`` (``button "Delete"``, maybe followed by its row in brackets);
    ``nth`` for the n-th of several."""
    assert ctx.browser is not None
    reading = arun(ctx.browser.read())
    found = [int(m.group(1)) for shown in reading.interactive_elements.splitlines()
             if (m := re.match(r"\[(\d+)\] (.*)", shown)) and (m.group(2) + " (").startswith(line + " (")]
    assert len(found) >= nth, f"no {line!r} (#{nth}) in:\n{reading.interactive_elements}"
    return found[nth - 1]


def main_world(arun: Callable[..., Any], page: QtWebEnginePage, source: str) -> Any:
    return arun(page.run_js(source, world=0))


def load_task(arun: Callable[..., Any], page: QtWebEnginePage, server: TaskServer, task: str, seed: int = 1
              ) -> dict[str, Any]:
    server.clear(task, seed)
    arun(page.navigate(server.url(f"{task}.html", seed)))
    return dict(json.loads(main_world(arun, page, "JSON.stringify(window.__task.data)")))


def test_a_refused_date_is_reported_then_a_human_date_is_converted(
        web_page: QtWebEnginePage, tasks: TaskServer, ctx: ToolContext, arun: Callable[..., Any]) -> None:
    data = load_task(arun, web_page, tasks, "enter_date", seed=2)
    # Typed as it is, the browser refuses a US date in a date input: the field stays empty, and says so.
    outcome = arun(web_page.fill(Target(selector="#date"), data["date"]))
    assert outcome.field is not None and outcome.field.length == 0 and not outcome.field.same
    refused = field_sentence(outcome.field, hint="A date field takes yyyy-mm-dd.")
    assert "refused" in refused and "empty" in refused and "yyyy-mm-dd" in refused
    # fill_form converts it, says what it set, and the page takes it.
    field = index_of(arun, ctx, f'input[date] "{data["label"]}"')
    result = run_tool(arun, ctx, "fill_form", index=field, text=data["date"])
    assert result.ok and result.changed_page
    assert f'"{data["date"]}" was entered as {data["iso"]}' in result.for_model
    assert "refused" not in result.for_model
    assert main_world(arun, web_page, "document.getElementById('date').value") == data["iso"]
    submit = run_tool(arun, ctx, "click_element", index=index_of(arun, ctx, 'button "Submit"'))
    assert f'"Saved {data["iso"]}."' in submit.for_model  # the page's answer is in the action's result
    report = arun(tasks.until_done("enter_date", 2, 5))
    assert report is not None and report.ok


def test_a_date_that_cannot_be_read_is_reported_as_refused(
        web_page: QtWebEnginePage, tasks: TaskServer, ctx: ToolContext, arun: Callable[..., Any]) -> None:
    data = load_task(arun, web_page, tasks, "enter_date")
    result = run_tool(arun, ctx, "fill_form", index=index_of(arun, ctx, f'input[date] "{data["label"]}"'),
                      text="sometime next week")
    assert "The field refused the value: it is empty now. A date field takes yyyy-mm-dd." in result.for_model


def test_a_dialog_opening_after_a_fill_is_reported(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                   ctx: ToolContext, arun: Callable[..., Any]) -> None:
    load("actions/fields.html")
    result = run_tool(arun, ctx, "fill_form", index=index_of(arun, ctx, 'textbox "Street address"'),
                      text="1 Main Street")
    text = result.for_model
    assert text.startswith('Typed "1 Main Street" into INPUT[text] "Street address".')
    assert 'A dialog "Confirm address" opened: "Deliver to 1 Main Street?".' in text
    assert '2 new elements: button "Use this address", button "Edit".' in text


def test_what_the_page_kept_of_a_typed_value_is_said(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                     ctx: ToolContext, arun: Callable[..., Any]) -> None:
    load("actions/fields.html")
    cut = run_tool(arun, ctx, "fill_form", selector="#postcode", text="1234567")
    assert "accepts at most 5 characters, so it holds only \"12345\" of the 7 typed" in cut.for_model
    masked = run_tool(arun, ctx, "fill_form", selector="#phone", text="5551234567")
    assert 'The page changed the value: the field holds "(555) 123-4567".' in masked.for_model
    slider = run_tool(arun, ctx, "fill_form", selector="#volume", text="42%")
    assert '"42%" was entered as 42' in slider.for_model
    assert 'holds "40" instead (it takes values from 0, to 100, in steps of 5)' in slider.for_model
    colour = run_tool(arun, ctx, "fill_form", selector="#colour", text="red")
    assert '"red" was entered as #ff0000' in colour.for_model and "changed the value" not in colour.for_model
    email = run_tool(arun, ctx, "fill_form", selector="#email", text="not an address")
    assert "The page marks the value invalid" in email.for_model
    plain = run_tool(arun, ctx, "fill_form", selector="#street", text="2 High Street")
    assert "holds" not in plain.for_model and "refused" not in plain.for_model


def test_a_re_rendered_button_is_found_again_by_its_description(
        web_page: QtWebEnginePage, load: Callable[[str], str], ctx: ToolContext, arun: Callable[..., Any]) -> None:
    load("actions/rerender.html")
    second = index_of(arun, ctx, 'button "Delete"', nth=2)  # the row of notes.txt
    main_world(arun, web_page, "rerender()")  # every row is a new node now
    result = run_tool(arun, ctx, "click_element", index=second)
    assert result.ok, result.for_model
    assert "had been re-rendered since read_page listed it; it was found again" in result.for_model
    assert main_world(arun, web_page, "document.getElementById('status').textContent") == "Deleted notes.txt."
    assert '"Deleted notes.txt."' in result.for_model and "1 element gone" in result.for_model
    # A row that is gone for good is not mistaken for another: the element is reported gone.
    first = index_of(arun, ctx, 'button "Delete"', nth=1)
    main_world(arun, web_page, "files = files.filter(function (f) { return f !== 'report.pdf'; }); rerender()")
    gone = run_tool(arun, ctx, "click_element", index=first)
    assert not gone.ok and "no longer on the page" in gone.for_model
    assert main_world(arun, web_page, "files.join(',')") == "photo.jpg"


def test_a_click_on_a_covered_button_names_the_dialog_over_it(
        web_page: QtWebEnginePage, load: Callable[[str], str], ctx: ToolContext, arun: Callable[..., Any]) -> None:
    load("actions/covered.html")
    with pytest.raises(PageError) as info:
        arun(web_page.click(Target(selector="#save")))
    assert info.value.code == "covered"
    save = index_of(arun, ctx, 'button "Save settings"')
    result = run_tool(arun, ctx, "click_element", index=save)
    assert not result.ok and 'covered by dialog "Cookies"' in result.for_model
    assert main_world(arun, web_page, "document.getElementById('status').textContent") == ""  # not clicked
    accept = run_tool(arun, ctx, "click_element", index=index_of(arun, ctx, 'button "Accept all"'))
    assert 'The dialog "Cookies" closed.' in accept.for_model
    saved = run_tool(arun, ctx, "click_element", index=index_of(arun, ctx, 'button "Save settings"'))
    assert saved.ok and 'New text on the page: "Settings saved.".' in saved.for_model


def test_a_click_that_changes_nothing_says_so(web_page: QtWebEnginePage, load: Callable[[str], str],
                                              ctx: ToolContext, arun: Callable[..., Any]) -> None:
    load("actions/fields.html")
    heading = run_tool(arun, ctx, "click_element", selector="h1")
    assert heading.for_model.endswith("The page did not visibly change.")


def test_a_modal_after_a_click_is_reported(web_page: QtWebEnginePage, tasks: TaskServer,
                                           ctx: ToolContext, arun: Callable[..., Any]) -> None:
    data = load_task(arun, web_page, tasks, "confirm_dialog")
    row = data["files"].index(data["file"]) + 1
    result = run_tool(arun, ctx, "click_element", index=index_of(arun, ctx, 'button "Delete"', nth=row))
    assert 'A dialog "Delete file?" opened' in result.for_model and data["file"] in result.for_model


def test_a_password_never_reaches_the_model(web_page: QtWebEnginePage, tasks: TaskServer,
                                            load: Callable[[str], str], ctx: ToolContext,
                                            arun: Callable[..., Any]) -> None:
    data = load_task(arun, web_page, tasks, "login_form")
    secret = data["password"]
    user = run_tool(arun, ctx, "fill_form", index=index_of(arun, ctx, 'textbox "Username"'),
                    text=data["username"])
    assert user.ok
    field = index_of(arun, ctx, 'input[password] "Password"')
    typed = run_tool(arun, ctx, "fill_form", index=field, text=secret)
    assert typed.ok and f'Typed {len(secret)} characters into the password field "Password".' in typed.for_model
    assert secret not in typed.for_model and secret not in typed.for_log
    reading = run_tool(arun, ctx, "read_page")
    assert f'[{field}] input[password] "Password" = "(filled)"' in reading.for_model
    assert secret not in reading.for_model and secret not in json.dumps(reading.data)
    # A page script that copies the password into the value attribute does not carry it to read_page.
    load("actions/fields.html")
    other = "Sesame-4711"
    typed = run_tool(arun, ctx, "fill_form", selector="#secret", text=other)
    assert f"Typed {len(other)} characters" in typed.for_model and other not in typed.for_model
    assert main_world(arun, web_page, "document.getElementById('secret').getAttribute('value')") == other
    reading = run_tool(arun, ctx, "read_page")
    assert other not in reading.for_model and other not in json.dumps(reading.data)
    described = arun(web_page.describe(Target(selector="#secret")))
    assert described.value == ""
    snapshot = arun(web_page.snapshot())
    assert other not in snapshot.html and other not in json.dumps(snapshot.elements)


def test_new_scripted_controls_are_reported_as_what_changed(web_page: QtWebEnginePage,
                                                            load: Callable[[str], str], ctx: ToolContext,
                                                            arun: Callable[..., Any]) -> None:
    # Entries that are plain divs with listeners count as controls in "what changed", as in the list.
    load("actions/scripted-menu.html")
    result = run_tool(arun, ctx, "click_element", index=index_of(arun, ctx, 'clickable "Choose a colour"'))
    assert "2 new elements" in result.for_model and "Crimson" in result.for_model, result.for_model
    assert "did not visibly change" not in result.for_model
