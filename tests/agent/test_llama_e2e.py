"""One agent run against the real llama.cpp server with SmolLM2-135M: the protocol and the
loop (requests, streaming, tool definitions, events, history), not the answer's quality."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core import events
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.local_server import LocalServer
from jawad_desktop.core.tools.basic import basic_registry


@pytest.mark.slow
@pytest.mark.parametrize("tool_format", ["auto", "xml"])
def test_agent_turns_on_llama_cpp(llama_server: LocalServer, arun: Any, tool_format: str) -> None:
    settings = Settings()
    settings.agent.tool_format = tool_format  # type: ignore[assignment]
    settings.agent.max_iterations = 3
    settings.agent.max_tokens = 48
    settings.agent.temperature = 0.0
    bus = EventBus()
    seen: list[events.Event] = []
    bus.subscribe(seen.append)
    provider = ProviderConfig(name="local", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=llama_server.base_url,
                              model="smollm2")

    forced = "calculate" if tool_format == "auto" else None

    async def scenario() -> tuple[events.ChatResponse, events.ChatResponse, list[str]]:
        async with LLMClient(provider, network=settings.network, bus=bus) as client:
            session = AgentSession(client=client, registry=basic_registry(), settings=settings, bus=bus)
            first = await session.run("What is 12 times 12? Use the calculate tool.", force_tool=forced)
            second = await session.run("Thanks. Say hello.")
            return first, second, [m.role for m in session.history.messages]

    first, second, roles = arun(scenario(), timeout=240)
    history_size = len(roles)
    if forced:
        # The forced native call went through the whole round: call, tool run, result sent back.
        logged = [e.entry for e in seen if isinstance(e, events.ActionLogUpdate) and e.entry.result != "pending"]
        assert logged and logged[0].tool_name == "calculate"
        assert roles[:3] == ["user", "assistant", "tool"] and first.metadata["api_calls"] >= 2
    finals = [e for e in seen if isinstance(e, events.ChatResponse)]
    assert finals == [first, second]  # exactly one final event per turn
    for response in (first, second):
        # A weak model may loop into the step limit or say nothing; any other failure is a protocol bug.
        quality = response.metadata.get("iteration_limit") or response.metadata.get("empty_answer")
        assert not response.is_error or quality, response.content
        assert response.metadata["model"] and response.metadata["api_calls"] >= 1
        assert response.metadata["iterations"] in (1, 2, 3)
    assert history_size >= 4  # both turns committed: user + answer at least
    for entry in (e.entry for e in seen if isinstance(e, events.ActionLogUpdate)):
        assert entry.tool_name in ("calculate", "get_time") or entry.decision == "invalid"
    streamed = "".join(e.text for e in seen if isinstance(e, events.ChatDelta) and e.run_id == second.run_id)
    assert streamed.strip() == second.content.strip() or second.is_error
