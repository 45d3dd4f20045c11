"""Plan-first mode without a browser: the plan read from the model's answer in its shapes, what an
approved plan lets through the gate (and what still asks: outside it, critical, data leaving), the
round trip's settling (approved, rejected, timeout, Stop, nobody to ask), and the turn on the scripted
model through the real client (the plan's request offers propose_plan alone and requires it)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.agent.plan_first import PLAN_TOOL, plan_from_reply
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.harbor import CallInsight, Harbor, HarborGate, PermissionCheck, PermissionLevel
from jawad_desktop.core.harbor.plan_approval import ActionPlan, PlanError
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import ToolCall
from tests.servers.scripted_model import call, text

L = PermissionLevel

PLAN = {"sites": ["https://shop.test/kettle", "www.mail.test"],
        "actions": ["navigate: open the kettle's page", "Click: Add to cart",
                    {"kind": "submit", "purpose": "the form"}],
        "steps": ["Open the kettle", "Add it to the cart"]}


def _reply(content: str = "", calls: list[tuple[str, Any]] | None = None) -> ChatResponse:
    return ChatResponse(content=content, tool_calls=[ToolCall(id=f"c{n}", name=name, arguments=args)
                                                     for n, (name, args) in enumerate(calls or [])])


@pytest.mark.parametrize("reply", [
    _reply(calls=[(PLAN_TOOL, PLAN)]),
    _reply('Here is my plan:\n```json\n{"plan": ' + json.dumps(PLAN) + "}\n```"),
    _reply('<propose_plan>{"sites": ["shop.test", "mail.test"], "actions": ["navigate: open", "interact: click", '
           '"submit: send"], "steps": []}</propose_plan>'),
])
def test_the_plan_is_read_from_a_call_or_from_text(reply: ChatResponse) -> None:
    plan = plan_from_reply(reply)
    assert plan.sites == ("shop.test", "mail.test")
    assert plan.kinds == {"navigate", "interact", "submit"}
    assert plan.levels == {L.NAVIGATE, L.INTERACT, L.SUBMIT}


def test_what_is_not_a_plan_says_why() -> None:
    with pytest.raises(PlanError, match="no plan"):
        plan_from_reply(_reply("I will just do it."))
    with pytest.raises(PlanError, match="names no kind"):
        ActionPlan.from_lists(["shop.test"], ["wander about"], [])
    with pytest.raises(PlanError, match="names no site"):
        ActionPlan.from_lists(["the current page"], ["interact: click it"], [])
    assert ActionPlan.from_lists([], [], []).kinds == frozenset()  # nothing to do but answer


def test_covers_site_and_kind() -> None:
    plan = ActionPlan.from_lists(PLAN["sites"], PLAN["actions"], [])
    assert plan.covers("click_element", "https://www.shop.test/x", L.INTERACT)
    assert not plan.covers("click_element", "evil.test", L.INTERACT)
    assert not plan.covers("download", "shop.test", L.INTERACT)  # a download must be named
    reading = ActionPlan.from_lists(["shop.test"], ["read: the reviews"], [])
    assert not reading.covers("navigate", "shop.test", L.NAVIGATE)


# -- the gate under an approved plan -------------------------------------------------------------


class Answers:
    """Answers plans and permission requests as they come, and keeps them."""

    def __init__(self, gate: HarborGate, *, approve: bool | None = True, permission: str = "deny") -> None:
        self.gate = gate
        self.approve = approve
        self.permission = permission
        self.plans: list[ev.PlanProposed] = []
        self.settled: list[ev.PlanSettled] = []
        self.requests: list[ev.PermissionRequest] = []
        gate.bus.subscribe(self)

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.PlanProposed):
            self.plans.append(event)
            if self.approve is not None:
                asyncio.get_running_loop().call_soon(self.gate.plans.respond, event.id, self.approve)
        elif isinstance(event, ev.PlanSettled):
            self.settled.append(event)
        elif isinstance(event, ev.PermissionRequest):
            self.requests.append(event)
            asyncio.get_running_loop().call_soon(self.gate.respond, event.id, self.permission)


def _check(tool: str, level: PermissionLevel, site: str, run_id: str = "run-1", **arguments: Any) -> PermissionCheck:
    return PermissionCheck(tool=tool, call_id="c", arguments=arguments, level=level, site=site,
                           current_site="shop.test", run_id=run_id)


def test_within_the_plan_no_question_outside_it_one(arun: Callable[..., Any]) -> None:
    gate = HarborGate(Harbor(), ev.EventBus(), timeout_s=5)
    answers = Answers(gate)
    plan = ActionPlan.from_lists(PLAN["sites"], PLAN["actions"], PLAN["steps"])
    answer = arun(gate.plans.propose(plan, run_id="run-1", request="buy the kettle"))
    assert answer.approved and [s.outcome for s in answers.settled] == ["approved"]
    assert answers.plans[0].sites == ("shop.test", "mail.test") and answers.plans[0].request == "buy the kettle"

    within = arun(gate.check(_check("click_element", L.INTERACT, "shop.test", index=3)))
    assert within.allowed and within.decision == "auto-approved" and not answers.requests
    submit = arun(gate.check(_check("fill_form", L.SUBMIT, "mail.test", text="hello")))
    assert submit.allowed and not answers.requests

    elsewhere = arun(gate.check(_check("click_element", L.INTERACT, "evil.test", index=1)))
    assert not elsewhere.allowed and "not in the approved plan" in answers.requests[-1].reason
    # Same-site navigation runs by default, but the plan did not name it for this site: it asks.
    gate.plans._approved = ("run-1", ActionPlan.from_lists(["shop.test"], ["interact: click"], []))
    arun(gate.check(_check("navigate", L.NAVIGATE, "shop.test", url="https://shop.test/b")))
    assert len(answers.requests) == 2 and "not in the approved plan" in answers.requests[-1].reason
    # Another run has no plan: the usual rules.
    assert not arun(gate.check(_check("click_element", L.INTERACT, "shop.test", run_id="run-2"))).allowed
    assert "not in the approved plan" not in answers.requests[-1].reason


def test_critical_actions_and_data_leaving_ask_within_the_plan(arun: Callable[..., Any]) -> None:
    async def inspector(check: PermissionCheck) -> CallInsight:
        return CallInsight(critical=check.arguments.get("text") == "Place order")

    gate = HarborGate(Harbor(), ev.EventBus(), timeout_s=5, inspector=inspector)
    answers = Answers(gate, permission="allow-once")
    plan = ActionPlan.from_lists(["shop.test", "mail.test"], ["interact: click", "navigate: open pages"], [])
    assert arun(gate.plans.propose(plan, run_id="run-1")).approved
    assert arun(gate.check(_check("click_element", L.INTERACT, "shop.test", text="Place order"))).allowed
    assert len(answers.requests) == 1 and answers.requests[0].critical
    gate.record_result("shop.test", "Your order number is A-77881234, delivered to 12 Baker Street.")
    arun(gate.check(_check("navigate", L.NAVIGATE, "mail.test", url="https://mail.test/?o=A-77881234")))
    assert len(answers.requests) == 2 and "A-77881234" in answers.requests[1].data_flow


def test_a_download_is_the_plans_to_allow(arun: Callable[..., Any]) -> None:
    async def inspector(check: PermissionCheck) -> CallInsight:
        return CallInsight(force_ask=True)  # as download_insight says for a site without a grant

    gate = HarborGate(Harbor(auto_levels=[L.INTERACT]), ev.EventBus(), timeout_s=5, inspector=inspector)
    answers = Answers(gate)
    plan = ActionPlan.from_lists(["files.test"], ["download: the report"], [])
    assert arun(gate.plans.propose(plan, run_id="run-1")).approved
    assert arun(gate.check(_check("download", L.INTERACT, "files.test", file="r.pdf"))).allowed
    assert not answers.requests
    assert not arun(gate.check(_check("download", L.INTERACT, "other.test", file="r.pdf"))).allowed
    assert "not in the approved plan" in answers.requests[0].reason


def test_a_plan_settles_once_rejected_unanswered_or_stopped(arun: Callable[..., Any]) -> None:
    plan = ActionPlan.from_lists(["shop.test"], ["interact: click"], [])
    gate = HarborGate(Harbor(), ev.EventBus(), timeout_s=0.3)
    answers = Answers(gate, approve=False)
    rejected = arun(gate.plans.propose(plan, run_id="r1"))
    assert rejected.outcome == "rejected" and rejected.asked and gate.plans.approved_for("r1") is None
    answers.approve = None
    timed_out = arun(gate.plans.propose(plan, run_id="r2"))
    assert timed_out.outcome == "timeout" and "nobody approved the plan within" in timed_out.reason

    async def stopped() -> None:
        task = asyncio.ensure_future(gate.plans.propose(plan, run_id="r3"))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    arun(stopped())
    assert [s.outcome for s in answers.settled] == ["rejected", "timeout", "stopped"]
    assert not gate.plans.pending_ids and not gate.plans.respond(answers.plans[-1].id, True)

    nobody = HarborGate(Harbor(), ev.EventBus(), ask=False).plans
    answer = arun(nobody.propose(plan, run_id="r4"))
    assert answer.outcome == "rejected" and not answer.asked and "nobody can be asked here" in answer.reason
    # Reading needs no approval, and holds: any action then asks.
    assert arun(nobody.propose(ActionPlan.from_lists([], ["read: the page"], []), run_id="r5")).approved


# -- the turn, on the scripted model through the real client ------------------------------------


def test_the_turn_asks_for_the_plan_first_and_stops_when_it_is_rejected(
    make_agent: Callable[..., Any], arun: Callable[..., Any]
) -> None:
    harness = make_agent(gate=None)
    gate = HarborGate(Harbor(), harness.bus, timeout_s=5)
    harness.session.gate = gate
    Answers(gate, approve=False)
    harness.model.script(call(PLAN_TOOL, {"sites": ["shop.test"], "actions": ["interact: add to cart"],
                                          "steps": ["Add it"]}))
    response = arun(harness.session.run("Add the kettle to my cart", plan_first=True))
    assert not response.is_error and response.content.startswith("You rejected the plan, so nothing was done")
    assert response.metadata["plan"] == "rejected"
    (request,) = harness.model.requests
    assert [t["function"]["name"] for t in request["tools"]] == [PLAN_TOOL]
    assert request["tool_choice"] == {"type": "function", "function": {"name": PLAN_TOOL}}
    assert "[Plan-first mode]" in request["messages"][-1]["content"]
    assert not harness.recorder.of(ev.ActionLogUpdate) and not harness.recorder.streamed()
    # The next turn, without plan-first, has the user's message and the answer in its history.
    assert [m.role for m in harness.session.history.messages] == ["user", "assistant"]


def test_an_approved_plan_goes_into_the_system_prompt_and_the_turn_goes_on(
    make_agent: Callable[..., Any], arun: Callable[..., Any]
) -> None:
    settings = Settings()
    settings.agent.tool_format = "xml"  # the text format: the plan comes as JSON in the answer
    harness = make_agent(settings=settings)
    gate = HarborGate(Harbor(), harness.bus, timeout_s=5)
    harness.session.gate = gate
    Answers(gate)
    harness.model.script(text('{"sites": ["shop.test"], "actions": ["navigate: open the shop"], "steps": []}'),
                         text('<calculate><expression>6*7</expression></calculate>'), text("It is 42."))
    response = arun(harness.session.run("What is 6*7 on shop.test?", plan_first=True))
    assert response.content == "It is 42.", response.content
    first, second, _ = harness.model.requests
    assert "tools" not in first and "Answer with ONLY a JSON object" in first["messages"][-1]["content"]
    assert "THE PLAN THE USER APPROVED" in second["messages"][0]["content"]
    assert "navigate: open the shop" in second["messages"][0]["content"]
    assert second["messages"][-1]["content"] == "What is 6*7 on shop.test?"  # the plan's request is not kept
