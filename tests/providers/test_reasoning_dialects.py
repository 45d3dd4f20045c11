"""The reasoning level and the parameters each provider with its own API documents, against
loopback servers that enforce the providers' rules (tests/servers/provider_servers.py): the
dialect table's request is taken the first time, and a model the table does not know falls
back to what it accepts, remembered (spec 003's "fallback for models that reject explicit
thinking level")."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.model_facts import ModelFactsStore
from tests.servers.openai_rules import UNKNOWN_REASONER
from tests.servers.provider_servers import ANSWER, ProviderServer

HELLO = [Message(role="user", content="Hello?")]
URLS = {ProviderKind.GEMINI: "gemini", ProviderKind.OPENAI_RESPONSES: "openai", ProviderKind.OLLAMA_NATIVE: "ollama",
        ProviderKind.ANTHROPIC: "anthropic"}


def client(server: ProviderServer, kind: ProviderKind, model: str, reasoning: str,
           facts: ModelFactsStore | None = None) -> LLMClient:
    provider = ProviderConfig(name="Loop", kind=kind, base_url=server.url(URLS[kind]), model=model,
                              reasoning=reasoning)
    network = NetworkSettings(connect_timeout_s=5, read_timeout_s=10, total_timeout_s=30)
    return make_client(provider, "key-123", network, retry=RetryPolicy(max_retries=0), facts=facts)


def run(server: ProviderServer, arun: Any, kind: ProviderKind, model: str, reasoning: str,
        facts: ModelFactsStore | None = None) -> tuple[ChatResponse, list[dict[str, Any]]]:
    before = len(server.requests)

    async def go() -> ChatResponse:
        async with client(server, kind, model, reasoning, facts) as c:
            return await c.chat(HELLO, temperature=0.3, max_tokens=2048).response()

    response = arun(go())
    return response, [r["body"] for r in server.requests[before:] if r["body"] is not None]


@pytest.mark.parametrize(("model", "reasoning", "config"), [
    ("gemini-2.5-flash", "none", {"thinkingBudget": 0}),
    ("gemini-2.5-flash", "high", {"thinkingBudget": 24576}),
    ("gemini-2.5-pro", "none", {"thinkingBudget": 128}),  # cannot turn thinking off
    ("gemini-2.5-flash-lite", "low", {"thinkingBudget": 1024}),
    ("gemini-3-pro-preview", "none", {"thinkingLevel": "low"}),  # Pro: low or high
    ("gemini-3-pro-preview", "medium", {"thinkingLevel": "high"}),
    ("gemini-3-flash-preview", "none", {"thinkingLevel": "minimal"}),
    ("gemini-3-flash-preview", "medium", {"thinkingLevel": "medium"}),
])
def test_gemini_thinking_by_family(model: str, reasoning: str, config: dict[str, Any],
                                   provider_server: ProviderServer, arun: Any) -> None:
    response, [body] = run(provider_server, arun, ProviderKind.GEMINI, model, reasoning)
    assert response.content == ANSWER
    assert body["generationConfig"]["thinkingConfig"] == config and body["generationConfig"]["temperature"] == 0.3


@pytest.mark.parametrize(("model", "refused"), [
    ("gemini-4-pro", "thinkingBudget"),  # a Pro the table does not know: budget 0 is invalid
    ("gemini-3-pro-preview", None),
])
def test_gemini_falls_back_when_a_model_refuses_its_thinking(model: str, refused: str | None,
                                                             provider_server: ProviderServer, arun: Any) -> None:
    store = ModelFactsStore(None)
    response, bodies = run(provider_server, arun, ProviderKind.GEMINI, model, "none", store)
    assert response.content == ANSWER
    if refused is None:
        assert len(bodies) == 1 and store.all() == {}
        return
    assert len(bodies) == 2 and "thinkingConfig" not in bodies[1]["generationConfig"]
    [facts] = store.all().values()
    assert facts.dropped == [f"generationConfig.thinkingConfig.{refused}"]
    # Remembered: the next request goes with the model's own thinking at once.
    response, bodies = run(provider_server, arun, ProviderKind.GEMINI, model, "none", store)
    assert response.content == ANSWER and len(bodies) == 1


@pytest.mark.parametrize(("model", "reasoning", "effort"), [
    ("o4-mini", "none", "low"),
    ("o3", "high", "high"),
    ("gpt-5", "none", "minimal"),
    ("gpt-5.1", "none", "none"),
    ("ok", "medium", "medium"),
])
def test_responses_reasoning_models(model: str, reasoning: str, effort: str, provider_server: ProviderServer,
                                    arun: Any) -> None:
    response, [body] = run(provider_server, arun, ProviderKind.OPENAI_RESPONSES, model, reasoning)
    assert response.content == ANSWER
    assert body["reasoning"] == {"effort": effort} and "temperature" not in body
    assert body["max_output_tokens"] == 2048 and "max_tokens" not in body


def test_responses_unknown_reasoning_model_is_repaired(provider_server: ProviderServer, arun: Any) -> None:
    store = ModelFactsStore(None)
    response, bodies = run(provider_server, arun, ProviderKind.OPENAI_RESPONSES, UNKNOWN_REASONER, "", store)
    assert response.content == ANSWER
    assert ["temperature" in b for b in bodies] == [True, False]
    [facts] = store.all().values()
    assert facts.dropped == ["temperature"]
    _, bodies = run(provider_server, arun, ProviderKind.OPENAI_RESPONSES, UNKNOWN_REASONER, "", store)
    assert len(bodies) == 1 and "temperature" not in bodies[0]


@pytest.mark.parametrize(("model", "reasoning", "think"), [
    ("gpt-oss:20b", "none", "low"),  # gpt-oss cannot turn thinking off: its lowest level
    ("gpt-oss:20b", "high", "high"),
    ("qwen3:8b", "none", False),
    ("qwen3:8b", "low", True),
])
def test_ollama_think(model: str, reasoning: str, think: Any, provider_server: ProviderServer, arun: Any) -> None:
    _, [body] = run(provider_server, arun, ProviderKind.OLLAMA_NATIVE, model, reasoning)
    assert body["think"] == think and body["options"] == {"temperature": 0.3, "num_predict": 2048}


@pytest.mark.parametrize(("reasoning", "budget"), [("low", 1024), ("medium", 4096), ("high", 16384), ("none", None)])
def test_anthropic_thinking_budget_below_max_tokens(reasoning: str, budget: int | None,
                                                    provider_server: ProviderServer, arun: Any) -> None:
    _, [body] = run(provider_server, arun, ProviderKind.ANTHROPIC, "claude-sonnet-4-5", reasoning)
    if budget is None:
        assert "thinking" not in body and body["temperature"] == 0.3 and body["max_tokens"] == 2048
    else:
        assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
        assert body["max_tokens"] > budget and "temperature" not in body  # required, and above the budget
