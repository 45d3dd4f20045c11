"""A real server's tool annotations raise (never lower) a tool's permission level, and its log
messages reach our log."""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.tools.context import ToolContext
from tests.mcp.conftest import ROOT


def _settings(permission: str) -> McpSettings:
    return McpSettings(servers=[McpServerConfig(
        name="tables", transport="stdio", command=sys.executable, args=["-m", "tests.mcp.asking_server"],
        cwd=str(ROOT), permission=permission)])  # type: ignore[arg-type]


async def _levels_and_clear(permission: str) -> tuple[dict[str, PermissionLevel], str]:
    connections = McpConnections(_settings(permission))
    try:
        await connections.connect()
        registry = connections.registry()
        levels = {tool.name: tool.level for tool in registry}
        clear = registry.get("clear_bookings")
        assert clear is not None
        result = await clear.run(ToolContext(settings=Settings(), bus=EventBus()), clear.validate({}))
        return levels, result.for_model
    finally:
        await connections.aclose()


@pytest.mark.parametrize(("permission", "expected"), [
    ("read-only", {"book_table": "read-only", "list_bookings": "read-only", "clear_bookings": "submit"}),
    ("ask", {"book_table": "submit", "list_bookings": "submit", "clear_bookings": "submit"}),
])
def test_annotations_raise_the_level_and_never_lower_it(arun: Any, caplog: pytest.LogCaptureFixture,
                                                        permission: str, expected: dict[str, str]) -> None:
    with caplog.at_level(logging.INFO, logger="jawad.mcp"):
        levels, result = arun(_levels_and_clear(permission), timeout=60)
    assert {name: level.value for name, level in levels.items()} == expected
    assert "cleared" in result
    assert any(r.levelno == logging.WARNING and r.getMessage() == "MCP server tables: all bookings were cleared"
               for r in caplog.records), [r.getMessage() for r in caplog.records]
