"""The agent's loop runs unchanged on every new provider and on MCP tools: the model asks
for a tool, the registry runs it, the result goes back in the provider's own format, and
the final answer quotes it. Real components end to end: loopback provider servers, the
real AgentSession and registry, a real FastMCP server over stdio."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings
from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import HarborGate
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.tools.registry import ToolRegistry
from tests.mcp.conftest import ROOT
from tests.mcp.test_adapter import unfenced
from tests.providers.test_providers import ALL, client
from tests.servers.provider_servers import ProviderServer, weather_answer


def weather_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    return registry


@pytest.mark.parametrize("kind", [*ALL, ProviderKind.BEDROCK])
def test_agent_runs_a_tool_on_every_provider(kind: ProviderKind, provider_server: ProviderServer, arun: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if kind is ProviderKind.BEDROCK:
        from tests.providers.test_bedrock import bedrock
        from tests.servers.provider_servers import BEDROCK_CREDENTIALS, BEDROCK_REGION

        for name, value in zip(("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"),
                               BEDROCK_CREDENTIALS, strict=True):
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("AWS_REGION", BEDROCK_REGION)
        chat = bedrock(provider_server, "tool.model")
    else:
        chat = client(provider_server, kind, "tool")

    async def run() -> Any:
        async with chat:
            session = AgentSession(client=chat, registry=weather_registry(), settings=Settings(), bus=EventBus())
            return await session.run("What's the weather in Paris?")

    response = arun(run())
    assert not response.is_error, response.content
    assert response.content.endswith(weather_answer("sunny in Paris"))  # after any "Let me check."


def test_agent_uses_an_mcp_tool_when_allowed(provider_server: ProviderServer, arun: Any) -> None:
    """An MCP tool with permission "ask" is denied without someone to ask, and runs once the
    policy allows its level: the gate decides, as for built-in tools."""
    server = McpServerConfig(name="weather", transport="stdio", command=sys.executable, cwd=str(ROOT),
                             args=["-m", "tests.servers.weather_mcp_server"])

    async def run() -> tuple[Any, Any]:
        connections = McpConnections(McpSettings(servers=[server]))
        await connections.connect()
        registry = connections.registry()
        try:
            assert registry.problems == {}
            async with client(provider_server, ProviderKind.GEMINI, "tool") as chat:
                denied = await AgentSession(client=chat, registry=registry, settings=Settings(),
                                            bus=EventBus()).run("Weather in Paris?")
                bus = EventBus()
                harbor = Harbor(auto_levels=[PermissionLevel.READ_ONLY, PermissionLevel.SUBMIT])
                allowed = await AgentSession(
                    client=chat, registry=registry, settings=Settings(), bus=bus,
                    gate=HarborGate(harbor, bus, ask=False),
                ).run("Weather in Paris?")
            return denied, allowed
        finally:
            await registry.aclose()

    denied, allowed = arun(run(), timeout=60)
    assert "Permission denied: get_weather" in denied.content
    # The MCP server's words reach the model fenced as untrusted content (each call its own marker).
    fenced = allowed.content.split(weather_answer(""), 1)[1]
    assert unfenced(fenced) == "Paris: 21 C and sunny (from MCP)", allowed.content
