"""An MCP tool whose name is already taken (by a built-in tool or another server) is renamed
and reported, never dropped, and merging it into the built-in registry never fails.

The bug this guards: a server offering ``search`` made ``ToolRegistry.merged`` raise inside
the task that connects MCP, and every tool of that server silently vanished.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jawad_desktop.core.config.mcp import McpSettings
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.mcp.adapter import McpConnections, McpRegistry, mcp_registry
from jawad_desktop.core.mcp.tool_bridge import unique_name
from jawad_desktop.core.tools.registry import ToolRegistry, normalize_tool_name
from tests.mcp.test_adapter import STDIO, _call

# The test server's tools: add, echo, fail, whoami.


def _builtins() -> ToolRegistry:
    """Built-in tools that clash with the server's: by alias, by case, and with the prefixed name."""
    reg = ToolRegistry()

    @reg.tool(aliases=("add",))
    def calculate(expression: str) -> str:
        """Evaluate an expression."""
        return "builtin"

    @reg.tool(name="WHOAMI")
    def who() -> str:
        """Say who is asking."""
        return "builtin"

    @reg.tool
    def test_stdio_add() -> str:
        """Take the name a renamed 'add' would get first."""
        return "builtin"

    return reg


def test_a_tool_named_like_a_builtin_is_renamed_reported_and_merges(arun: Any) -> None:
    base = _builtins()

    async def run() -> tuple[McpRegistry, ToolRegistry, tuple[bool, str], tuple[bool, str]]:
        connections = McpConnections(McpSettings(servers=[STDIO], connect_timeout_s=20))
        await connections.connect()
        registry = connections.registry(reserved=base.all_names())
        try:
            merged = base.merged(registry)  # raised ValueError before the fix
            return registry, merged, await _call(merged, "Test_stdio_add_2", {"a": 2, "b": 40}), \
                await _call(merged, "Test_stdio_whoami", {})
        finally:
            await registry.aclose()

    registry, merged, added, who = arun(run(), timeout=60)
    assert registry.names() == ["Test_stdio_add_2", "echo", "fail", "Test_stdio_whoami"]
    assert added == (True, "42") and who == (True, "stdio")
    # The built-ins keep their names and aliases.
    assert merged.get("add") is base.get("calculate") and merged.get("whoami") is base.get("WHOAMI")
    assert [(r.tool, r.name) for r in registry.renamed] == [("add", "Test_stdio_add_2"),
                                                             ("whoami", "Test_stdio_whoami")]
    assert registry.problems == {
        "Test stdio/add": "The MCP server 'Test stdio' offers a tool named 'add', which a built-in tool "
                          "already uses; it is available as 'Test_stdio_add_2'.",
        "Test stdio/whoami": "The MCP server 'Test stdio' offers a tool named 'whoami', which a built-in "
                             "tool already uses; it is available as 'Test_stdio_whoami'.",
    }


def test_two_servers_offering_the_same_tools_both_survive(arun: Any) -> None:
    other = STDIO.model_copy(update={"name": "Other"})

    async def run() -> tuple[McpRegistry, tuple[bool, str], tuple[bool, str]]:
        connections = McpConnections(McpSettings(servers=[STDIO, other], connect_timeout_s=20))
        await connections.connect()
        registry = connections.registry()
        try:
            return registry, await _call(registry, "add", {"a": 1, "b": 2}), \
                await _call(registry, "Other_add", {"a": 3, "b": 4})
        finally:
            await registry.aclose()

    registry, first, second = arun(run(), timeout=90)
    assert registry.names() == ["add", "echo", "fail", "whoami", "Other_add", "Other_echo", "Other_fail",
                                "Other_whoami"]
    assert first == (True, "3") and second == (True, "7")
    assert registry.problems["Other/echo"] == (
        "The MCP server 'Other' offers a tool named 'echo', which the MCP server 'Test stdio' already uses; "
        "it is available as 'Other_echo'.")
    assert set(registry.connections.problems) == set()  # both servers work


def test_mcp_registry_takes_the_reserved_names(arun: Any, tmp_path: Path) -> None:
    ctx = SimpleNamespace(settings=Settings(mcp=McpSettings(servers=[STDIO], connect_timeout_s=20)),
                          secrets=SimpleNamespace(available=False), paths=SimpleNamespace(logs=tmp_path), bus=None)

    async def run() -> tuple[list[str], list[str]]:
        default = await mcp_registry(ctx)
        await default.aclose()
        reserving = await mcp_registry(ctx, reserved={"echo"})
        await reserving.aclose()
        return default.names(), reserving.names()

    default, reserving = arun(run(), timeout=90)
    assert default == ["add", "echo", "fail", "whoami"]  # reserved defaults to nothing
    assert reserving == ["add", "Test_stdio_echo", "fail", "whoami"]


def test_unique_names_stay_valid_and_short() -> None:
    long = "s" * 70
    taken = {normalize_tool_name("s" * 64), normalize_tool_name("s" * 62 + "_2")}
    name = unique_name(long, taken)
    assert name == "s" * 62 + "_3" and len(name) == 64
    assert unique_name("9 lives: search!", set()) == "t_9_lives_search"
