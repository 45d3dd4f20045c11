"""A whole agent turn with a tool call on every provider kind that speaks chat completions
(OpenAI, OpenRouter, Ollama's /v1, any OpenAI-compatible server, the built-in model's
server), against the scripted model as their loopback server; the kinds with their own API
are in test_agent_loop.py. Real client, real AgentSession, real calculator tool."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.tools.basic import basic_registry
from tests.servers.openai_rules import UNKNOWN_REASONER
from tests.servers.scripted_model import ScriptedModel, call, text

CHAT_KINDS = [ProviderKind.OPENAI, ProviderKind.OPENROUTER, ProviderKind.OLLAMA, ProviderKind.OPENAI_COMPATIBLE,
              ProviderKind.LOCAL]


def _turn(scripted_model: ScriptedModel, arun: Any, kind: ProviderKind, model: str,
          facts: ModelFactsStore | None = None) -> Any:
    scripted_model.script(call("calculate", {"expression": "12*34"}), text("12*34 is 408."))
    provider = ProviderConfig(name="Loop", kind=kind, base_url=scripted_model.base_url, model=model)
    settings = Settings()

    async def run() -> Any:
        async with make_client(provider, "sk-test", settings.network, facts=facts) as chat:
            session = AgentSession(client=chat, registry=basic_registry(), settings=settings, bus=EventBus())
            return await session.run("What is 12*34? Use the calculator.")

    return arun(run())


def _chats(scripted_model: ScriptedModel) -> list[dict[str, Any]]:
    """The chat requests (not the model-details lookups a kind may make on the side)."""
    return [b for b in scripted_model.requests if "messages" in b]


@pytest.mark.parametrize("kind", CHAT_KINDS)
def test_agent_runs_a_tool_on_every_chat_completions_kind(kind: ProviderKind, scripted_model: ScriptedModel,
                                                          arun: Any) -> None:
    response = _turn(scripted_model, arun, kind, "scripted")
    assert not response.is_error and response.content.endswith("408.")
    first, second = _chats(scripted_model)
    assert first["tools"] and first["temperature"] == Settings().agent.temperature
    result = second["messages"][-1]
    assert result["role"] == "tool" and "408" in result["content"]  # the calculator ran
    assert result["tool_call_id"] == second["messages"][-2]["tool_calls"][0]["id"]


@pytest.mark.parametrize(("kind", "model", "requests"), [
    (ProviderKind.OPENAI, "o4-mini", 2),
    (ProviderKind.OPENAI, "gpt-5", 2),
    (ProviderKind.OPENAI_COMPATIBLE, "gpt-5.1", 2),
    (ProviderKind.OPENAI, UNKNOWN_REASONER, 3),  # temperature refused once
    (ProviderKind.OPENAI_COMPATIBLE, UNKNOWN_REASONER, 4),  # max_tokens, then temperature
])
def test_agent_turn_on_reasoning_models(kind: ProviderKind, model: str, requests: int,
                                        scripted_model: ScriptedModel, arun: Any) -> None:
    store = ModelFactsStore(None)
    response = _turn(scripted_model, arun, kind, model, store)
    assert not response.is_error and response.content.endswith("408.")
    assert len(_chats(scripted_model)) == requests
    last_two = _chats(scripted_model)[-2:]
    assert all("temperature" not in b and b["max_completion_tokens"] for b in last_two)
