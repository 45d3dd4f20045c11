"""The window gives the agent the MCP servers' tools from Settings (a real stdio MCP server)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jawad_desktop.core.config.mcp import McpServerConfig
from jawad_desktop.core.context import AppContext
from tests.mcp.conftest import ROOT
from tests.servers.scripted_model import ScriptedModel


def test_the_window_adds_mcp_tools(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
                                   qtbot: Any) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.mcp.servers = [McpServerConfig(
        name="calc", transport="stdio", command=sys.executable, args=["-m", "tests.servers.mcp_server", "stdio"],
        cwd=str(ROOT), allowed_tools=["add"], permission="read-only")]
    ctx.save_settings()
    window = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.presenter.assistant is not None, timeout=30_000)
    assistant = window.presenter.assistant
    assert assistant is not None
    qtbot.waitUntil(lambda: assistant.mcp is not None, timeout=30_000)
    assert any(t.endswith("add") for t in assistant.registry.names())
