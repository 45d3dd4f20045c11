"""`jawad ask` gives the agent the MCP servers' tools from Settings."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.llm.test_cli import jawad
from tests.mcp.conftest import ROOT
from tests.servers.scripted_model import ScriptedModel, call, text


def _add_calc(profile_dir: Path) -> None:
    added = jawad(profile_dir, "mcp", "add", "calc", "--command", f"{sys.executable} -m tests.servers.mcp_server stdio",
                  "--cwd", str(ROOT), "--allow", "add", "--permission", "read-only")
    assert added.returncode == 0, added.stderr


def test_ask_calls_an_mcp_tool(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    _add_calc(profile_dir)
    scripted_model.script(call("add", {"a": 40, "b": 2}), text("The sum is 42."))
    out = jawad(profile_dir, "ask", "--no-save", "--kind", "openai-compatible", "--base-url", scripted_model.base_url,
                "--model", "scripted", "--verbose", "Add 40 and 2 with the calculator")
    assert out.returncode == 0, out.stderr
    assert "The sum is 42." in out.stdout
    tool_message = scripted_model.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "42" in tool_message["content"]
    names = [t["function"]["name"] for t in scripted_model.requests[0].get("tools", [])]
    assert any(name.endswith("add") for name in names), names
