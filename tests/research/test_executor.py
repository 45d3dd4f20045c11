"""A research across three local shops, end to end: the planner and every step talk to the scripted model
over HTTP, the steps navigate and read real pages in QtWebEngine, Harbor decides, the plan is saved."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.research import Planner, PlanStatus, ResearchPlan, ResearchStore, Source, StepStatus
from tests.research.conftest import ResearchEnv, final_actions
from tests.servers.scripted_model import call, error, text

INTENT = "Compare the price of the Acme Kettle 1.7 L across three shops"
SHOPS = {"a": "Alpha Appliances", "b": "Bravo Home", "c": "Charlie Kitchen"}


def plan_json(page_server: str, shops: str = "abc", permissions: list[str] | None = None) -> dict[str, Any]:
    return {"steps": [{"agent": "BrowserAgent", "task": f"Find the price of the Acme Kettle at {SHOPS[s]}",
                       "site": f"{page_server}/research/shop-{s}.html",
                       "permissions": permissions or ["read-only", "navigate"]} for s in shops]}


def plan_for(arun: Callable[..., Any], env: ResearchEnv, page_server: str, shops: str = "abc") -> ResearchPlan:
    env.model.script(text(json.dumps(plan_json(page_server, shops))))
    return arun(Planner(env.client).plan(INTENT))


def visit(url: str, result: str) -> list[Any]:
    return [call("navigate", {"url": url}), call("read_page", {}), text(result)]


def test_compare_one_product_across_three_shops(research: ResearchEnv, page_server: str,
                                                arun: Callable[..., Any]) -> None:
    plan = plan_for(arun, research, page_server)
    assert [s.site for s in plan.steps] == [f"{page_server}/research/shop-{s}.html" for s in "abc"]
    urls = [s.site for s in plan.steps]
    research.model.script(
        *visit(urls[0], "Alpha Appliances: Acme Kettle 1.7 L at $39.99."),
        *visit(urls[1], "Bravo Home: Acme Kettle 1.7 L at $34.50."),
        *visit(urls[2], "Charlie Kitchen: Acme Kettle 1.7 L at $42.00."),
        text("Bravo Home is the cheapest at $34.50 [2]; Alpha Appliances asks $39.99 [1] and Charlie Kitchen "
             "$42.00 [3]. A better deal may be at [Deals](https://deals.example/kettle) or "
             "https://fake.example/x [7]."),
    )
    done = research.run(arun, plan)

    assert done.status is PlanStatus.COMPLETED
    assert [s.status for s in done.steps] == [StepStatus.COMPLETED] * 3
    titles = [f"Acme Kettle 1.7 L — {name}" for name in SHOPS.values()]
    assert [s.sources for s in done.steps] == [[Source(u, t)] for u, t in zip(urls, titles, strict=True)]
    assert done.citations == [Source(u, t) for u, t in zip(urls, titles, strict=True)]
    # The answer cites the pages visited, never the model's own addresses or out-of-range numbers.
    assert "[2]" in done.answer and "[7]" not in done.answer
    assert "deals.example" not in done.answer and "fake.example" not in done.answer and "Deals" in done.answer
    for number, (url, title) in enumerate(zip(urls, titles, strict=True), 1):
        assert f"[{number}] {title} — {url}" in done.answer

    requests = research.model.requests
    # Each step's agent saw only the tools its levels allow, and the page's real content.
    tools = {t["function"]["name"] for t in requests[0]["tools"]}
    assert {"navigate", "read_page"} <= tools and not tools & {"click_element", "fill_form"}
    assert any("34.50" in m["content"] for m in requests[5]["messages"] if m["role"] == "tool")
    synthesis = requests[-1]["messages"][-1]["content"]
    assert all(url in synthesis for url in urls) and "Bravo Home: Acme Kettle 1.7 L at $34.50." in synthesis
    # The plan's navigate level was approved with the plan: nobody was asked.
    assert not research.asked
    navigations = [e for e in final_actions(research.actions) if e.tool_name == "navigate"]
    assert [(e.decision, e.result) for e in navigations] == [("auto-approved", "success")] * 3

    # WORKFLOW_UPDATE: the whole plan after each change, in spec 001's shape.
    first, last = research.updates[0], research.updates[-1]
    assert first["status"] == "running" and first["steps"][0]["status"] == "pending"
    assert set(last) >= {"id", "intent", "steps", "status", "createdAt"} and last["status"] == "completed"
    assert set(last["steps"][0]) >= {"id", "agent", "task", "site", "permissions", "status", "result"}
    order = [(u["steps"][i]["status"]) for u in research.updates for i in range(3)]
    assert "running" in order and order[-3:] == ["completed"] * 3
    running = [[s["status"] for s in u["steps"]] for u in research.updates if "running" in
               [s["status"] for s in u["steps"]]]
    assert running[0] == ["running", "pending", "pending"] and ["completed", "completed", "running"] in running
    (response,) = research.responses
    assert response.content == done.answer and response.metadata["research_plan_id"] == done.id

    # Saved with the conversation: the plan with its results, and the answer as a message.
    (saved,) = ResearchStore(research.store.db).for_conversation(research.conversation_id)
    assert saved.to_payload() == done.to_payload()
    answer = research.store.messages(research.conversation_id)[-1]
    assert answer.message.role == "assistant" and answer.message.content == done.answer
    assert answer.metadata["research_plan_id"] == done.id
    assert [c["url"] for c in answer.metadata["citations"]] == urls


def test_a_failed_step_does_not_lose_the_others(research: ResearchEnv, page_server: str,
                                                arun: Callable[..., Any]) -> None:
    plan = plan_for(arun, research, page_server)
    closed = f"{page_server}/research/missing.html"  # a 404: the navigation fails
    research.model.script(
        *visit(plan.steps[0].site, "Alpha Appliances: $39.99."),
        call("navigate", {"url": closed}), text("I could not open Bravo Home's page."),
        *visit(plan.steps[2].site, "Charlie Kitchen: $42.00."),
        text("Alpha Appliances is cheaper ($39.99 [1]) than Charlie Kitchen ($42.00 [2]); Bravo Home could not "
             "be checked."),
    )
    done = research.run(arun, plan)
    assert [s.status for s in done.steps] == [StepStatus.COMPLETED, StepStatus.FAILED, StepStatus.COMPLETED]
    assert done.status is PlanStatus.COMPLETED
    failed = done.steps[1]
    assert "Every action of this step failed" in failed.result and "navigate" in failed.result
    assert not failed.sources
    assert [c.url for c in done.citations] == [plan.steps[0].site, plan.steps[2].site]
    assert "[2] Acme Kettle 1.7 L — Charlie Kitchen" in done.answer
    assert "— failed." in research.model.requests[-1]["messages"][-1]["content"]


def test_a_model_error_fails_its_step_and_the_research_goes_on(research: ResearchEnv, page_server: str,
                                                               arun: Callable[..., Any]) -> None:
    plan = plan_for(arun, research, page_server, shops="ab")
    research.model.script(
        error(500, "the model crashed"),
        *visit(plan.steps[1].site, "Bravo Home: $34.50."),
        text("Only Bravo Home could be checked: $34.50 [1]."),
    )
    done = research.run(arun, plan)
    assert [s.status for s in done.steps] == [StepStatus.FAILED, StepStatus.COMPLETED]
    assert done.status is PlanStatus.COMPLETED and done.answer.startswith("Only Bravo Home")


def test_when_every_step_fails_there_is_no_made_up_answer(research: ResearchEnv, page_server: str,
                                                          arun: Callable[..., Any]) -> None:
    plan = plan_for(arun, research, page_server, shops="a")
    research.model.script(error(500, "down"))
    done = research.run(arun, plan)
    assert done.status is PlanStatus.FAILED and done.steps[0].status is StepStatus.FAILED
    assert "None of the research steps could be completed" in done.answer
    assert research.model.remaining == 0 and len(research.model.requests) == 1  # no synthesis asked for
    assert research.responses[-1].is_error


def test_cancel_in_the_middle_of_a_step_stops_at_once(research: ResearchEnv, page_server: str,
                                                      arun: Callable[..., Any], aio_loop: asyncio.AbstractEventLoop,
                                                      qtbot: Any) -> None:
    plan = plan_for(arun, research, page_server)
    research.model.script(
        call("navigate", {"url": plan.steps[0].site}), call("read_page", {}),
        text("Alpha Appliances: the price is", hang=True),  # still answering when Cancel comes
        text("never asked for"),
    )
    task = aio_loop.create_task(research.executor.execute(plan))
    qtbot.waitUntil(lambda: len(research.model.requests) == 3, timeout=30_000)
    qtbot.wait(200)
    assert research.executor.running
    started = time.monotonic()
    assert research.executor.cancel()
    qtbot.waitUntil(task.done, timeout=5_000)
    assert time.monotonic() - started < 2.0
    done = task.result()
    assert done.status is PlanStatus.CANCELLED
    assert [s.status for s in done.steps] == [StepStatus.SKIPPED] * 3
    assert "Stopped by the user" in done.steps[0].result
    assert done.steps[0].sources  # what it read before the cancel is kept
    assert research.model.remaining == 1  # no further step, no synthesis
    qtbot.waitUntil(research.model.closed_early.is_set, timeout=5_000)  # the model's stream was closed
    assert research.updates[-1]["status"] == "cancelled" and research.responses[-1].interrupted
    assert not research.executor.cancel()


def test_a_step_may_do_only_what_its_permissions_allow_and_harbor_still_asks(
        research: ResearchEnv, page_server: str, arun: Callable[..., Any]) -> None:
    steps = [
        {"agent": "BrowserAgent", "task": "Send the message Hello on the form page", "site": f"{page_server}/form.html",
         "permissions": ["read-only", "navigate", "interact"]},
        {"agent": "BrowserAgent", "task": "Look at the checkout page", "site": f"{page_server}/shop/checkout.html",
         "permissions": ["read-only", "navigate", "interact"]},
    ]
    research.model.script(text(json.dumps({"steps": steps})))
    plan = arun(Planner(research.client).plan("try the forms"))
    research.model.script(
        call("navigate", {"url": steps[0]["site"]}),
        call("fill_form", {"selector": "#msg", "text": "Hello", "submit": True}),  # submit: above the step's levels
        text("I was not allowed to send it."),
        call("navigate", {"url": steps[1]["site"]}),
        call("click_element", {"selector": "#place"}),  # interact is allowed, but this buys: Harbor asks
        text("The order was not placed."),
        text("Nothing was sent or bought."),
    )
    research.answers = ["deny"]
    done = research.run(arun, plan)
    decided = {(e.tool_name, e.decision, e.result) for e in final_actions(research.actions)}
    assert ("fill_form", "denied", "denied") in decided and ("click_element", "denied", "denied") in decided
    (asked,) = research.asked
    assert asked.tool_name == "click_element" and asked.critical
    tool_results = [m["content"] for m in research.model.requests[2]["messages"] if m["role"] == "tool"]
    assert "may only use read-only, navigate, interact actions" in tool_results[-1]
    assert research.harbor.policy.auto_levels == {PermissionLevel.READ_ONLY}  # the plan's levels were lent, not kept
    assert done.status is PlanStatus.COMPLETED
