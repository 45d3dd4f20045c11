"""What a run used and cost, in its response's metadata, and the run's budget (tokens, cost).

Most runs use the in-process scripted client (each reply reports the usage it is given); the
provider-reported cost goes through the real client and the loopback scripted model, which
answers with OpenRouter's usage object (``cost``, cached and reasoning token details)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jawad_desktop.core import events
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.pricing import Price, PriceTable
from jawad_desktop.core.tools.basic import basic_registry
from tests.agent.conftest import Recorder
from tests.fixtures.scripted_client import Scripted, ScriptedClient
from tests.servers.scripted_model import call, text

GPT_4O = Price(input=2.5, output=10.0, cached_input=1.25)

Made = tuple[AgentSession, ScriptedClient, Recorder]


@pytest.fixture
def agent() -> Callable[..., Made]:
    def make(*replies: Scripted, model: str = "gpt-4o", kind: str = "openai", prices: PriceTable | None = None,
             **budget: Any) -> Made:
        settings = Settings()
        for key, value in budget.items():
            setattr(settings.agent, key, value)
        bus = EventBus()
        recorder = Recorder()
        bus.subscribe(recorder)
        client = ScriptedClient(model, kind=kind).script(*replies)
        session = AgentSession(client=client, registry=basic_registry(), settings=settings, bus=bus, prices=prices)
        return session, client, recorder

    return make


def _calc(n: int, usage: tuple[int, int]) -> Scripted:
    return Scripted(calls=[("calculate", {"expression": f"{n}+{n}"})], usage=usage)


def test_a_turns_tokens_and_estimated_cost_reach_the_response(agent: Any, arun: Any) -> None:
    session, _client, _seen = agent(
        _calc(1, (1000, 50)),
        Scripted(text="Done.", usage=(1200, 100), metadata={"cached_input_tokens": 800, "model": "gpt-4o-2024-08-06"}),
    )
    response = arun(session.run("add things"))
    meta = response.metadata
    assert not response.is_error
    assert (meta["input_tokens"], meta["output_tokens"], meta["total_tokens"]) == (2200, 150, 2350)
    assert meta["cached_input_tokens"] == 800
    expected = GPT_4O.cost(1000, 50) + GPT_4O.cost(1200, 100, 800)
    assert meta["cost_usd"] == pytest.approx(expected) and meta["cost_known"] is True
    assert meta["model"] == "gpt-4o-2024-08-06"  # the model that answered


def test_an_unknown_price_makes_the_cost_unknown_not_zero(agent: Any, arun: Any) -> None:
    session, _client, _seen = agent(Scripted(text="Hi."), model="brand-new-model", kind="openai-compatible")
    meta = arun(session.run("hello")).metadata
    assert meta["total_tokens"] == 15 and meta["cost_usd"] is None and meta["cost_known"] is False


def test_a_local_model_costs_nothing(agent: Any, arun: Any) -> None:
    session, _client, _seen = agent(Scripted(text="Hi."), model="llama3.2", kind="ollama")
    meta = arun(session.run("hello")).metadata
    assert meta["cost_usd"] == 0.0 and meta["cost_known"] is True


def test_the_users_prices_are_used(agent: Any, arun: Any, tmp_path: Any) -> None:
    (tmp_path / "prices.json").write_text('{"house-model": {"input": 1, "output": 2}}')
    session, _client, _seen = agent(Scripted(text="Hi.", usage=(1_000_000, 500_000)), model="house-model",
                                    kind="openai-compatible", prices=PriceTable.in_folder(tmp_path))
    assert arun(session.run("hello")).metadata["cost_usd"] == pytest.approx(2.0)


def test_a_slash_command_uses_nothing(agent: Any, arun: Any) -> None:
    session, _client, _seen = agent()
    meta = arun(session.run("/help")).metadata
    assert meta["total_tokens"] == 0 and meta["cost_usd"] == 0.0


def test_the_token_budget_stops_the_run_after_the_request_that_crossed_it(agent: Any, arun: Any) -> None:
    session, client, seen = agent(_calc(1, (400, 50)), _calc(2, (500, 100)), _calc(3, (600, 50)),
                                  Scripted(text="never"), max_run_tokens=1000)
    response = arun(session.run("keep adding"))
    assert response.is_error and response.metadata["budget_exceeded"] == "tokens"
    assert response.metadata["total_tokens"] == 1050 and len(client.sent) == 2  # stopped after the 2nd request
    assert "1,050 tokens" in response.content and "budget of 1,000 tokens" in response.content
    assert "raise the token budget" in response.content
    assert Remedy.from_json(response.metadata["remedy"]) == Remedy("agent")
    # The first round ran; the calls of the request that crossed the budget did not.
    assert [e.entry.parameters for e in seen.of(events.ActionLogUpdate)
            if e.entry.result == "success"] == [{"expression": "1+1"}]
    roles = [m.role for m in session.history.messages]
    assert roles == ["user", "assistant", "tool"]  # no call left without its result
    (finished,) = seen.of(events.TurnFinished)
    assert finished.response is response


def test_the_cost_budget_stops_the_run_with_what_it_cost(agent: Any, arun: Any) -> None:
    # gpt-4o: 100K input + 10K output = $0.35 a request; the budget is $0.50.
    session, client, _seen = agent(_calc(1, (100_000, 10_000)), _calc(2, (100_000, 10_000)),
                                   Scripted(text="never"), max_run_cost_usd=0.5)
    response = arun(session.run("expensive"))
    assert response.metadata["budget_exceeded"] == "cost" and len(client.sent) == 2
    assert response.metadata["cost_usd"] == pytest.approx(0.70)
    assert "cost about $0.70" in response.content and "budget of $0.50" in response.content
    assert "raise the cost budget" in response.content


def test_a_final_answer_that_crosses_the_budget_is_kept(agent: Any, arun: Any) -> None:
    session, _client, _seen = agent(_calc(1, (400, 50)), Scripted(text="Here it is.", usage=(900, 100)),
                                    max_run_tokens=1000)
    response = arun(session.run("add"))
    assert not response.is_error and response.content == "Here it is."
    assert "budget_exceeded" not in response.metadata


def test_no_budget_means_no_limit(agent: Any, arun: Any) -> None:
    replies = [_calc(i, (500_000, 50_000)) for i in range(3)] + [Scripted(text="ok")]
    session, _client, _seen = agent(*replies)
    response = arun(session.run("big"))
    assert not response.is_error and response.metadata["total_tokens"] == 1_650_015  # the answer: 10 + 5


def test_a_cost_budget_that_cannot_be_checked_says_so_once(agent: Any, arun: Any) -> None:
    session, _client, seen = agent(_calc(1, (10, 5)), _calc(2, (10, 5)), Scripted(text="ok"),
                                   model="brand-new-model", kind="openai-compatible", max_run_cost_usd=0.01)
    response = arun(session.run("go"))
    assert not response.is_error
    (notice,) = [n for n in seen.of(events.Notice) if "cost budget" in n.text]
    assert notice.level == "warning" and "brand-new-model is not known" in notice.text
    assert "prices.json" in notice.text


def test_the_cost_the_provider_reports_is_preferred(make_agent: Any, arun: Any) -> None:
    """OpenRouter's usage object, through the real client: its cost wins over the estimate."""
    h = make_agent()
    openrouter_usage = {"prompt_tokens": 2000, "completion_tokens": 300, "total_tokens": 2300, "cost": 0.0123,
                        "prompt_tokens_details": {"cached_tokens": 1500},
                        "completion_tokens_details": {"reasoning_tokens": 120}}
    h.model.script(call("calculate", {"expression": "1+1"}, usage=dict(openrouter_usage)),
                   text("Two.", usage={**openrouter_usage, "cost": 0.0077}))
    response = arun(h.session.run("1+1?"))
    meta = response.metadata
    assert meta["cost_usd"] == pytest.approx(0.02) and meta["cost_known"] is True  # the model "scripted" has no price
    assert (meta["input_tokens"], meta["output_tokens"]) == (4000, 600)
    assert (meta["cached_input_tokens"], meta["reasoning_tokens"]) == (3000, 240)


def test_the_wire_usage_details_reach_a_requests_metadata(make_agent: Any, arun: Any) -> None:
    h = make_agent()
    h.model.script(text("Hi.", usage={"prompt_tokens": 10, "completion_tokens": 2, "cost": 0.5,
                                      "prompt_tokens_details": {"cached_tokens": 4}}))

    async def ask() -> Any:
        stream = h.client.chat([events_message("hi")], stream=False)
        async for _ in stream:
            pass
        return await stream.response()

    response = arun(ask())
    assert response.metadata["cost_usd"] == 0.5 and response.metadata["cached_input_tokens"] == 4


def events_message(text_: str) -> Any:
    from jawad_desktop.core.messages import Message

    return Message(role="user", content=text_)
