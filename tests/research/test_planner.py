"""The planner against the scripted model: repair of what can be repaired, retries with the validation
errors fed back, a clear failure at the end; and the plan's own rules (payload, editing, saving)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.research import (
    Planner,
    PlanParseError,
    PlanStatus,
    ResearchPlan,
    ResearchStore,
    StepStatus,
    parse_plan,
)
from jawad_desktop.core.store.conversations import ConversationStore
from tests.servers.scripted_model import ScriptedModel, text

VALID = {"steps": [
    {"agent": "BrowserAgent", "task": "Find the kettle's price at shop A", "site": "http://a.example/k",
     "permissions": ["read-only", "navigate"]},
    {"agent": "SearchAgent", "task": "Search for reviews of the kettle", "permissions": ["navigate"]},
]}


@pytest.fixture
def client(scripted_model: ScriptedModel, arun: Callable[..., Any]) -> Iterator[LLMClient]:
    settings = Settings()
    settings.network.max_retries = 0
    llm = LLMClient(scripted_model.provider(), network=settings.network)
    yield llm
    arun(llm.aclose())


def _last_user(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def test_malformed_then_missing_fields_then_valid(client: LLMClient, scripted_model: ScriptedModel,
                                                  arun: Callable[..., Any]) -> None:
    scripted_model.script(
        text('Here is my plan: {"steps": [{"agent": "BrowserAgent", "task": "Find the price" '),  # cut off
        text('{"steps": [{"agent": "browser", "site": "http://a.example/k"}]}'),  # no task
        text("Sure! The corrected plan:\n```json\n" + json.dumps({"plan": VALID["steps"]}) + "\n```\nGood luck."),
    )
    planner = Planner(client)
    plan = arun(planner.plan("  compare   the kettle "))
    assert planner.attempts == 3
    assert plan.intent == "compare the kettle" and plan.status is PlanStatus.DRAFT
    assert [(s.agent, s.site) for s in plan.steps] == [("BrowserAgent", "http://a.example/k"), ("SearchAgent", "")]
    # read-only is always given: a step must be able to read what it opens.
    assert plan.steps[1].permissions == [PermissionLevel.READ_ONLY, PermissionLevel.NAVIGATE]
    requests = scripted_model.requests
    assert "contains no JSON object" in _last_user(requests[1])
    assert "steps.0.task: Field required" in _last_user(requests[2])
    # The conversation went back to the model: its own bad answer, then the problem.
    assert requests[2]["messages"][-2]["role"] == "assistant" and "browser" in requests[2]["messages"][-2]["content"]
    assert "JSON object" in requests[0]["messages"][0]["content"]
    assert not requests[0].get("stream")


def test_the_retries_are_bounded_and_the_user_is_told(client: LLMClient, scripted_model: ScriptedModel,
                                                      arun: Callable[..., Any]) -> None:
    scripted_model.script(text("I cannot plan that."), text("[]"),
                          text('{"steps": [{"agent": "Wizard", "task": "x"}]}'))
    with pytest.raises(JawadError) as info:
        arun(Planner(client).plan("compare kettles"))
    message = info.value.user_text()
    assert "did not write a usable research plan in 3 tries" in message
    assert "unknown agent 'Wizard'" in message and "more capable model" in message
    assert scripted_model.remaining == 0


def test_an_unreachable_model_is_a_friendly_error(client: LLMClient, scripted_model: ScriptedModel,
                                                  arun: Callable[..., Any]) -> None:
    from tests.servers.scripted_model import error

    scripted_model.script(error(401, "bad key"))
    with pytest.raises(JawadError, match="The plan could not be made"):
        arun(Planner(client).plan("compare kettles"))
    with pytest.raises(JawadError, match="intent is empty"):
        arun(Planner(client).plan("   "))


@pytest.mark.parametrize(("reply", "steps"), [
    (json.dumps(VALID), 2),
    (json.dumps(VALID["steps"]), 2),  # a bare list of steps
    ("```\n" + json.dumps(VALID).replace('"http', "'http").replace('/k"', "/k'") + "\n```", 2),  # single quotes
    ('{"steps": [{"agent": "reader agent", "description": "Read the open page", "permission": "read only",},]}', 1),
    ('[{"task": "Open the shop", "url": "http://a.example"}, {"task": "Search for reviews"}]', 2),
])
def test_parse_plan_repairs_the_usual_shapes(reply: str, steps: int) -> None:
    assert len(parse_plan(reply).steps) == steps


def test_a_missing_agent_is_chosen_from_the_site() -> None:
    plan = parse_plan('[{"task": "Open the shop", "url": "http://a.example"}, {"task": "Search for reviews"}]')
    assert [(s.agent, s.site) for s in plan.steps] == [("BrowserAgent", "http://a.example"), ("SearchAgent", "")]


@pytest.mark.parametrize(("reply", "problem"), [
    ("", "empty"),
    ('{"steps": []}', "'steps' is invalid"),
    ('{"steps": [{"agent": "BrowserAgent", "task": "Open it", "permissions": ["fly"]}]}', "unknown permission"),
    ('{"steps": ' + json.dumps([VALID["steps"][0]] * 9) + "}", "at most 8"),
])
def test_parse_plan_says_what_is_wrong(reply: str, problem: str) -> None:
    with pytest.raises(PlanParseError) as info:
        parse_plan(reply)
    assert problem in str(info.value)


def test_editing_a_draft_and_the_payload() -> None:
    plan = ResearchPlan.from_draft("kettles", parse_plan(json.dumps(VALID)))
    first, second = plan.steps
    assert first.id.startswith("step_0_") and plan.id.startswith("wf_")
    plan.update_step(first.id, task="Find the price at shop B", site="http://b.example/k", permissions="navigate")
    plan.move_step(second.id, 0)
    added = plan.add_step("Read the reviews", agent="reader", permissions=["read-only"])
    assert [s.id for s in plan.steps] == [second.id, first.id, added.id] and added.agent == "ReaderAgent"
    plan.remove_step(second.id)
    payload = plan.to_payload()
    assert payload["status"] == "draft" and payload["intent"] == "kettles"
    assert payload["steps"][0] == {"id": first.id, "agent": "BrowserAgent", "task": "Find the price at shop B",
                                   "site": "http://b.example/k", "permissions": ["read-only", "navigate"],
                                   "status": "pending"}
    assert ResearchPlan.from_payload(payload).to_payload() == payload
    with pytest.raises(JawadError, match="unknown agent"):
        plan.update_step(first.id, agent="Wizard")
    with pytest.raises(JawadError, match="task"):
        plan.update_step(first.id, task=" ")
    plan.status = PlanStatus.RUNNING
    with pytest.raises(JawadError, match="can no longer be changed"):
        plan.remove_step(first.id)


def test_plans_are_saved_with_their_conversation(tmp_path: Path) -> None:
    with ConversationStore.open(tmp_path) as store:
        cid = store.create().id
        research = ResearchStore(store.db)
        plan = ResearchPlan.from_draft("kettles", parse_plan(json.dumps(VALID)))
        research.save(plan, cid)
        plan.steps[0].status = StepStatus.COMPLETED
        plan.steps[0].result = "$10"
        research.save(plan, cid)
        (saved,) = research.for_conversation(cid)
        assert saved.steps[0].result == "$10" and research.get(plan.id) is not None
        with pytest.raises(JawadError, match="no longer exists"):
            research.save(plan.__class__.from_draft("x", parse_plan(json.dumps(VALID))), "missing")
        store.delete(cid)
        store.purge_deleted(cid)
        assert research.for_conversation(cid) == [] and research.get(plan.id) is None


def test_the_research_slash_command() -> None:
    from jawad_desktop.core.agent import commands

    assert commands.research_intent("/research  compare kettles in 3 shops ") == "compare kettles in 3 shops"
    assert commands.research_intent("/Research") == ""
    assert commands.research_intent("research kettles") is None and commands.research_intent("/help") is None
    assert "`/research`" in commands.help_text() and not commands.known("research")
