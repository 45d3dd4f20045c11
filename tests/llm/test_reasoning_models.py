"""OpenAI's reasoning models through the real client against the scripted model, which
answers as OpenAI documents (tests/servers/openai_rules.py): the dialect table sends what
each family takes the first time; a model no table knows is repaired from its refusals, one
parameter at a time, and what was learned is remembered for the next request."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.events import Event, EventBus, Notice
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.errors import BadRequestError, LLMError
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.model_facts import ModelFactsStore
from tests.servers.openai_rules import UNKNOWN_REASONER
from tests.servers.scripted_model import Reply, ScriptedModel, call, reject_tools, text

TOOLS: list[dict[str, Any]] = [{"type": "function", "function": {
    "name": "calculate", "description": "Evaluate an arithmetic expression",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
}}]
QUESTION = [Message(role="user", content="What is 12*34? Use the calculator.")]
TEMPERATURE_REFUSED = {"error": {"message": "Unsupported value: 'temperature' does not support 0.3 with this model. "
                                            "Only the default (1) value is supported.",
                                 "type": "invalid_request_error", "param": "temperature",
                                 "code": "unsupported_value"}}

O_SERIES = ["o1", "o3", "o3-mini", "o4-mini", "o4-mini-2025-04-16"]
GPT5 = ["gpt-5", "gpt-5-mini", "gpt-5-nano"]
GPT5_1 = ["gpt-5.1", "gpt-5.2", "gpt-5.1-2025-11-13"]
LOWEST = {**dict.fromkeys(O_SERIES, "low"), **dict.fromkeys(GPT5, "minimal"), **dict.fromkeys(GPT5_1, "none")}


def client(url: str, kind: ProviderKind, model: str, *, facts: ModelFactsStore | None = None,
           reasoning: str = "", bus: EventBus | None = None) -> LLMClient:
    provider = ProviderConfig(name="Loop", kind=kind, base_url=url, model=model, reasoning=reasoning)
    network = NetworkSettings(connect_timeout_s=5, read_timeout_s=10, total_timeout_s=30)
    return make_client(provider, "sk-test", network, bus, retry=RetryPolicy(max_retries=0), facts=facts)


async def ask(c: LLMClient, *, stream: bool = True) -> ChatResponse:
    """One request as the agent sends it: tools, its temperature (0.3) and max_tokens."""
    async with c.chat(QUESTION, TOOLS, stream=stream, temperature=0.3, max_tokens=4096) as answer:
        async for _ in answer:
            pass
        return await answer.response()


def _calls_calculator(response: ChatResponse) -> None:
    assert [(t.name, t.arguments) for t in response.tool_calls] == [("calculate", {"expression": "12*34"})]


@pytest.mark.parametrize("kind", [ProviderKind.OPENAI, ProviderKind.OPENAI_COMPATIBLE])
@pytest.mark.parametrize("model", O_SERIES + GPT5 + GPT5_1)
def test_reasoning_models_get_their_parameters_the_first_time(kind: ProviderKind, model: str,
                                                              scripted_model: ScriptedModel, arun: Any) -> None:
    scripted_model.script(call("calculate", {"expression": "12*34"}))
    store = ModelFactsStore(None)

    async def run() -> ChatResponse:
        async with client(scripted_model.base_url, kind, model, facts=store, reasoning="none") as c:
            return await ask(c)

    _calls_calculator(arun(run()))
    [body] = scripted_model.requests  # accepted at once: nothing refused, nothing to learn
    assert body["max_completion_tokens"] == 4096 and "max_tokens" not in body
    assert "temperature" not in body and "top_p" not in body
    assert body["reasoning_effort"] == LOWEST[model]  # "none" as the family's lowest level
    assert body["tools"] == TOOLS and store.all() == {}


@pytest.mark.parametrize(("kind", "model", "limit"), [
    (ProviderKind.OPENAI, "gpt-4o", "max_completion_tokens"),  # documented for every chat model
    (ProviderKind.OPENAI, "gpt-5-chat-latest", "max_completion_tokens"),  # not a reasoning model
    (ProviderKind.OPENAI_COMPATIBLE, "scripted", "max_tokens"),  # what compatible servers document
    (ProviderKind.OLLAMA, "llama3.2", "max_tokens"),
    (ProviderKind.OPENROUTER, "meta-llama/llama-3.3-70b", "max_tokens"),
])
def test_other_chat_models_keep_temperature(kind: ProviderKind, model: str, limit: str,
                                            scripted_model: ScriptedModel, arun: Any) -> None:
    scripted_model.script(text("408"))

    async def run() -> ChatResponse:
        async with client(scripted_model.base_url, kind, model) as c:
            return await ask(c)

    assert arun(run()).content == "408"
    [body] = scripted_model.requests
    other = "max_tokens" if limit == "max_completion_tokens" else "max_completion_tokens"
    assert body[limit] == 4096 and other not in body and body["temperature"] == 0.3
    assert "reasoning_effort" not in body


def test_openrouter_gets_its_reasoning_object(scripted_model: ScriptedModel, arun: Any) -> None:
    """OpenRouter documents ``reasoning: {effort}``; OpenAI's models behind it refuse sampling."""
    scripted_model.script(text("408"), text("408"))

    async def run() -> None:
        async with client(scripted_model.base_url, ProviderKind.OPENROUTER, "openai/o4-mini", reasoning="high") as c:
            await ask(c)
        async with client(scripted_model.base_url, ProviderKind.OPENROUTER, "qwen/qwen3-32b", reasoning="none") as c:
            await ask(c)

    arun(run())
    openai, qwen = scripted_model.requests
    assert openai["reasoning"] == {"effort": "high"} and "temperature" not in openai and openai["max_tokens"] == 4096
    assert qwen["reasoning"] == {"effort": "none"} and qwen["temperature"] == 0.3
    assert "reasoning_effort" not in openai and "reasoning_effort" not in qwen


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("gateway", ["", "litellm", "openrouter"])
def test_an_unknown_reasoning_model_is_repaired_and_remembered(gateway: str, stream: bool,
                                                               scripted_model: ScriptedModel, arun: Any) -> None:
    """No table knows "zeta-reasoner-2": it refuses max_tokens, then temperature (from a
    gateway, in words only); each is repaired once and the third request is answered."""
    url = scripted_model.gateway_url(gateway) if gateway else scripted_model.base_url
    store = ModelFactsStore(None)
    scripted_model.script(call("calculate", {"expression": "12*34"}))

    async def first() -> ChatResponse:
        async with client(url, ProviderKind.OPENAI_COMPATIBLE, UNKNOWN_REASONER, facts=store) as c:
            return await ask(c, stream=stream)

    _calls_calculator(arun(first()))
    sent = scripted_model.requests
    assert [("max_tokens" in b, "max_completion_tokens" in b, "temperature" in b) for b in sent] == [
        (True, False, True), (False, True, True), (False, True, False)]
    assert all(b["tools"] == TOOLS and b["stream"] is stream for b in sent)  # never taken for a tools rejection
    [(key, facts)] = store.all().items()
    assert key == ("openai-compatible", url, UNKNOWN_REASONER)
    assert facts.renamed == {"max_tokens": "max_completion_tokens"} and facts.dropped == ["temperature"]
    assert len(facts.notes) == 2 and "max_completion_tokens" in facts.notes[0] and "0.3" in facts.notes[1]

    # The next client on the same store sends the right parameters at once.
    scripted_model.script(call("calculate", {"expression": "12*34"}))
    _calls_calculator(arun(first()))
    [body] = scripted_model.requests
    assert body["max_completion_tokens"] == 4096 and "max_tokens" not in body and "temperature" not in body


def test_under_the_openai_kind_only_temperature_is_learned(scripted_model: ScriptedModel, arun: Any) -> None:
    store = ModelFactsStore(None)
    scripted_model.script(call("calculate", {"expression": "12*34"}))

    async def run() -> ChatResponse:
        async with client(scripted_model.base_url, ProviderKind.OPENAI, UNKNOWN_REASONER, facts=store) as c:
            return await ask(c)

    _calls_calculator(arun(run()))
    assert ["temperature" in b for b in scripted_model.requests] == [True, False]
    assert all(b["max_completion_tokens"] == 4096 for b in scripted_model.requests)
    [facts] = store.all().values()
    assert facts.dropped == ["temperature"] and facts.renamed == {}


def test_a_parameter_is_repaired_only_once(scripted_model: ScriptedModel, arun: Any) -> None:
    """A server that still names the parameter after it was left out gets its error, not a loop."""
    refused = Reply(status=400, error=TEMPERATURE_REFUSED)
    scripted_model.script(refused, refused, text("never"))

    async def run() -> ChatResponse:
        async with client(scripted_model.base_url, ProviderKind.OPENAI_COMPATIBLE, "scripted") as c:
            return await ask(c)

    with pytest.raises(BadRequestError) as caught:
        arun(run())
    assert "Only the default (1) value is supported" in caught.value.user_text()
    assert ["temperature" in b for b in scripted_model.requests] == [True, False]
    assert type(caught.value) is BadRequestError  # the provider's error, not the client's private one


def test_a_client_without_a_store_remembers_for_its_lifetime(scripted_model: ScriptedModel, arun: Any) -> None:
    scripted_model.script(*[text("408")] * 3)

    async def run() -> list[int]:
        counts = []
        async with client(scripted_model.base_url, ProviderKind.OPENAI_COMPATIBLE, UNKNOWN_REASONER) as c:
            for _ in range(3):
                before = len(scripted_model.requests)
                await ask(c)
                counts.append(len(scripted_model.requests) - before)
        return counts

    assert arun(run()) == [3, 1, 1]
    scripted_model.script(text("408"))
    assert arun(_one_fresh(scripted_model)) == 3


async def _one_fresh(scripted_model: ScriptedModel) -> int:
    async with client(scripted_model.base_url, ProviderKind.OPENAI_COMPATIBLE, UNKNOWN_REASONER) as c:
        await ask(c)
    return len(scripted_model.requests)  # a new client learns again


def test_what_is_forgotten_is_learned_again(scripted_model: ScriptedModel, arun: Any) -> None:
    store = ModelFactsStore(None)
    bus = EventBus()
    notices: list[Event] = []
    bus.subscribe(notices.append)
    scripted_model.script(*[text("408")] * 3)

    async def run() -> list[int]:
        counts = []
        async with client(scripted_model.base_url, ProviderKind.OPENAI_COMPATIBLE, UNKNOWN_REASONER,
                          facts=store, bus=bus) as c:
            for forget in (False, False, True):
                if forget:
                    assert store.forget(model=UNKNOWN_REASONER) == 1
                before = len(scripted_model.requests)
                await ask(c)
                counts.append(len(scripted_model.requests) - before)
        return counts

    assert arun(run()) == [3, 1, 3]
    said = [e.text for e in notices if isinstance(e, Notice)]
    assert len(said) == 4 and "max_completion_tokens" in said[0] and all(e.level == "info" for e in notices
                                                                         if isinstance(e, Notice))


def test_a_tools_rejection_is_not_taken_for_a_parameter(scripted_model: ScriptedModel, arun: Any) -> None:
    """The 400 of a model without function calling ("tools is not supported") teaches the
    parameter store nothing and drops no parameter."""
    store = ModelFactsStore(None)
    scripted_model.script(reject_tools(), text("408"), text("408"))

    async def run() -> None:
        async with client(scripted_model.base_url, ProviderKind.OPENAI_COMPATIBLE, "scripted", facts=store) as c:
            with contextlib.suppress(LLMError):  # however the client reports a tools rejection
                await ask(c)

    arun(run())
    assert store.all() == {}
    assert all(b["temperature"] == 0.3 and b["max_tokens"] == 4096 for b in scripted_model.requests)
