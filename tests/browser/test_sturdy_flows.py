"""Whole agent runs on task pages (issue 18, point 3 and 5): the answer after an action is checked
against the page before it is shown, the same failing click three times stops the run, and a password
never reaches the model nor the action log. A scripted model over HTTP drives the real agent, Harbor
and browser; the task pages judge themselves."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.agent.confirm import CONFIRM_HEADER
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.browser import BrowserSession, browser_registry
from tests.browser.wiring import wire_browser
from tests.fixtures.task_server import TaskServer
from tests.servers.scripted_model import ScriptedModel, call, text


@dataclass
class Run:
    agent: AgentSession
    browser: BrowserSession
    model: ScriptedModel
    seen: list[events.Event] = field(default_factory=list)

    def log(self) -> list[events.ActionLogEntry]:
        latest: dict[str, events.ActionLogEntry] = {}
        for event in self.seen:
            if isinstance(event, events.ActionLogUpdate):
                latest[event.entry.id] = event.entry
        return list(latest.values())

    def streamed(self) -> str:
        return "".join(e.text for e in self.seen if isinstance(e, events.ChatDelta))


@pytest.fixture(scope="module")
def tasks() -> Iterator[TaskServer]:
    with TaskServer() as server:
        yield server


@pytest.fixture
def run(web_page: QtWebEnginePage, scripted_model: ScriptedModel, tmp_path: Path,
        arun: Callable[..., Any]) -> Iterator[Run]:
    settings = Settings()
    settings.network.max_retries = 0
    bus = events.EventBus()
    wired = wire_browser(web_page, bus, config_dir=tmp_path / "config", data_dir=tmp_path / "data",
                         settings=settings, highlight_s=0.0, timeout_s=5)
    # The user allowed typing, submitting and clicking on these local pages for the session.
    for level in (PermissionLevel.INTERACT, PermissionLevel.SUBMIT):
        wired.harbor.policy.auto_levels.add(level)
    client = LLMClient(scripted_model.provider(), network=settings.network, bus=bus)
    agent = AgentSession(client=client, registry=basic_registry().merged(browser_registry()), settings=settings,
                         bus=bus, gate=wired.gate, browser=wired.session)
    r = Run(agent=agent, browser=wired.session, model=scripted_model)
    bus.subscribe(r.seen.append)
    yield r
    arun(client.aclose())
    wired.close()


def open_task(arun: Callable[..., Any], page: QtWebEnginePage, tasks: TaskServer, task: str, seed: int
              ) -> dict[str, Any]:
    tasks.clear(task, seed)
    arun(page.navigate(tasks.url(f"{task}.html", seed)))
    return dict(json.loads(arun(page.run_js("JSON.stringify(window.__task.data)", world=0))))


def index_of(arun: Callable[..., Any], browser: BrowserSession, line: str) -> int:
    reading = arun(browser.read())
    for shown in reading.interactive_elements.splitlines():
        numbered = re.match(r"\[(\d+)\] (.*)", shown)
        if numbered and (numbered.group(2) + " (").startswith(line + " ("):
            return int(numbered.group(1))
    raise AssertionError(f"no {line!r} in:\n{reading.interactive_elements}")


def test_the_answer_after_a_login_is_checked_against_the_page_and_the_password_stays_out(
        run: Run, web_page: QtWebEnginePage, tasks: TaskServer, arun: Callable[..., Any]) -> None:
    data = open_task(arun, web_page, tasks, "login_form", 3)
    user, password = data["username"], data["password"]
    name_field = index_of(arun, run.browser, 'textbox "Username"')
    password_field = index_of(arun, run.browser, 'input[password] "Password"')
    run.model.script(
        call("fill_form", {"index": name_field, "text": user}),
        call("fill_form", {"index": password_field, "text": password, "submit": True}),
        text("You are signed in."),  # the draft: held back, checked against the page
        text(f"You are signed in: the page says Welcome back, {user}!"),
    )
    response = arun(run.agent.run(f"Log in as {user} with the password {password}"), timeout=60)
    final = f"You are signed in: the page says Welcome back, {user}!"
    assert response.content == final and not response.is_error
    assert run.streamed() == final  # the draft was never shown
    report = arun(tasks.until_done("login_form", 3, 5))
    assert report is not None and report.ok
    check = run.model.requests[-1]["messages"]
    assert check[-2]["content"] == "You are signed in."
    assert check[-1]["role"] == "user" and check[-1]["content"].startswith(CONFIRM_HEADER)
    assert f"Welcome back, {user}!" in check[-1]["content"]
    assert [e.tool_name for e in run.log()] == ["fill_form", "fill_form", "read_page"]
    # The password is in the model's own call (it came from the user) and nowhere the page answered.
    for request in run.model.requests:
        for message in request["messages"]:
            if message["role"] != "assistant" and not message["content"].startswith("Log in as"):
                assert password not in message["content"], message["role"]
    typed = run.model.requests[2]["messages"][-1]["content"]
    assert typed.startswith(f'Typed {len(password)} characters into the password field "Password" and submitted')
    assert all(password not in e.details for e in run.log())


def test_the_same_failing_click_three_times_stops_the_run(run: Run, web_page: QtWebEnginePage, page_server: str,
                                                           arun: Callable[..., Any]) -> None:
    arun(web_page.navigate(f"{page_server}/actions/covered.html"))
    save = index_of(arun, run.browser, 'button "Save settings"')
    run.model.script(*[call("click_element", {"index": save}) for _ in range(3)], text("never asked"))
    response = arun(run.agent.run("save my settings"), timeout=60)
    assert response.is_error and response.metadata["repeated_action"] == "click_element"
    assert f"click_element(index={save}) 3 times" in response.content
    assert 'covered by dialog "Cookies"' in response.content
    assert len(run.model.requests) == 3
