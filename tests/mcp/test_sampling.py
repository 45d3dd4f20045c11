"""Sampling (``core.mcp.sampling``): which model answers a server, and the run's budgets, with Harbor's
real gate asking on a bus and the real client talking to the scripted model on loopback."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp import types

from jawad_desktop.core import events as ev
from jawad_desktop.core.config.mcp import McpSettings
from jawad_desktop.core.config.settings import AgentSettings, NetworkSettings
from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import HarborGate
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.mcp.sampling import Sampler
from tests.servers.scripted_model import ScriptedModel, text


def _params(max_tokens: int, *hints: str) -> types.CreateMessageRequestParams:
    return types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say hi"))],
        maxTokens=max_tokens,
        modelPreferences=types.ModelPreferences(hints=[types.ModelHint(name=h) for h in hints]) if hints else None)


def _sampler(model: ScriptedModel, agent: AgentSettings, settings: McpSettings,
             asked: list[ev.PermissionRequest]) -> tuple[Sampler, list[Any]]:
    bus = ev.EventBus()
    gate = HarborGate(Harbor(), bus)

    def allow(event: Any) -> None:
        if isinstance(event, ev.PermissionRequest):
            asked.append(event)
            asyncio.get_running_loop().call_soon(gate.respond, event.id, "allow-once")

    bus.subscribe(allow)
    clients: list[Any] = []

    def client(provider: str) -> Any:
        name = {"": "in-use", "fast": "acme-small", "big": "acme-large"}[provider]
        made = make_client(model.provider(provider or "in use").model_copy(update={"model": name}),
                           network=NetworkSettings(max_retries=0))
        clients.append(made)
        return made

    return Sampler(gate, client, agent, settings=lambda: settings,
                   providers=lambda: [("fast", "acme-small"), ("big", "acme-large")]), clients


def test_the_model_is_chosen_by_the_servers_hints_or_the_users_setting(scripted_model: ScriptedModel,
                                                                        arun: Any) -> None:
    asked: list[ev.PermissionRequest] = []
    settings = McpSettings()
    sampler, clients = _sampler(scripted_model, AgentSettings(), settings, asked)

    sent: list[str] = []

    async def main() -> list[Any]:
        results = []
        try:
            for hints, chosen in ((("claude", "large"), ""), ((), ""), (("large",), "fast")):
                settings.sampling_provider = chosen
                scripted_model.script(text("Hi."))
                results.append(await sampler.create_message("tracker", _params(30, *hints)))
                sent.append(scripted_model.requests[-1]["model"])
        finally:
            for client in clients:
                await client.aclose()
        return results

    results = arun(main(), timeout=60)
    assert [r.model for r in results] == ["acme-large", "in-use", "acme-small"]
    assert [r.content.text for r in results] == ["Hi."] * 3 and results[0].stopReason == "endTurn"
    assert sent == ["acme-large", "in-use", "acme-small"]
    assert [a.parameters["provider"] for a in asked] == ["big", "the one in use", "fast"]
    assert asked[0].parameters["model_hints"] == ["claude", "large"]


def test_sampling_keeps_to_the_runs_budgets(scripted_model: ScriptedModel, arun: Any) -> None:
    asked: list[ev.PermissionRequest] = []
    sampler, clients = _sampler(scripted_model, AgentSettings(max_tokens=40, max_run_tokens=90), McpSettings(),
                                asked)

    async def main() -> list[Any]:
        try:
            scripted_model.script(text("Hi."))
            first = await sampler.create_message("tracker", _params(500))  # capped at the agent's 40
            second = await sampler.create_message("tracker", _params(90))  # 60 used + 40 would go over the 90
            return [first, second]
        finally:
            for client in clients:
                await client.aclose()

    first, second = arun(main(), timeout=60)
    assert isinstance(first, types.CreateMessageResult) and scripted_model.requests[0]["max_tokens"] == 40
    assert asked[0].parameters["max_tokens"] == 40
    assert isinstance(second, types.ErrorData) and second.code == -1
    assert "token budget (90 tokens, 60 used)" in second.message
    assert len(asked) == 1 and len(scripted_model.requests) == 1  # refused before asking the user or the model


def test_a_servers_sound_is_kept_for_a_model_that_hears_it() -> None:
    from jawad_desktop.core.mcp.sampling import _messages

    params = types.CreateMessageRequestParams(messages=[types.SamplingMessage(
        role="user", content=[types.TextContent(type="text", text="What is this?"),
                              types.AudioContent(type="audio", data="UklGRg==", mimeType="audio/wav")])], maxTokens=20)
    (message,) = _messages(params)
    assert message.content == "What is this?" and [(a.data, a.media_type) for a in message.audio] == [
        (b"RIFF", "audio/wav")]
