"""A real server's tool annotations raise (never lower) a tool's permission level, its log messages
reach our log, its progress is announced, and Stop tells it to stop its work."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus, ToolProgress
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.tools.tool_context import ToolContext
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
    ("read-only", {"book_table": "read-only", "list_bookings": "read-only", "clear_bookings": "submit",
                   "slow_task": "read-only", "floor_plan": "read-only"}),
    ("ask", {"book_table": "submit", "list_bookings": "submit", "clear_bookings": "submit", "slow_task": "submit",
             "floor_plan": "submit"}),
])
def test_annotations_raise_the_level_and_never_lower_it(arun: Any, caplog: pytest.LogCaptureFixture,
                                                        permission: str, expected: dict[str, str]) -> None:
    with caplog.at_level(logging.INFO, logger="jawad.mcp"):
        levels, result = arun(_levels_and_clear(permission), timeout=60)
    assert {name: level.value for name, level in levels.items()} == expected
    assert "cleared" in result
    assert any(r.levelno == logging.WARNING and r.getMessage() == "MCP server tables: all bookings were cleared"
               for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_progress_is_announced_and_stop_cancels_the_servers_work(arun: Any, tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.txt"
    bus = EventBus()
    progress: list[ToolProgress] = []

    async def run() -> bool:
        connections = McpConnections(_settings("read-only"))
        try:
            await connections.connect()
            slow = connections.registry().get("slow_task")
            assert slow is not None
            started = asyncio.Event()
            bus.subscribe(lambda e: (progress.append(e), started.set()) if isinstance(e, ToolProgress) else None)
            ctx = ToolContext(settings=Settings(), bus=bus, run_id="run_1", call_id="call_1")
            call = asyncio.create_task(slow.run(ctx, slow.validate({"marker": str(marker)})))
            await asyncio.wait_for(started.wait(), 20)
            call.cancel()  # what Stop does to the running tool
            with contextlib.suppress(asyncio.CancelledError):
                await call
            for _ in range(100):  # the server stops its work and says so in the file, while still connected
                if marker.exists():
                    return True
                await asyncio.sleep(0.05)
            return False
        finally:
            await connections.aclose()

    assert arun(run(), timeout=60), "the server was not told to stop"
    assert progress and progress[0].progress == 1 and progress[0].total == 60 and progress[0].message == "started"
    assert progress[0].call_id == "call_1" and progress[0].tool_name == "slow_task"
    assert marker.read_text() == "cancelled"


def test_a_tools_picture_goes_to_the_model_as_a_picture(arun: Any) -> None:
    from tests.mcp.asking_server import PIXEL

    async def run() -> Any:
        connections = McpConnections(_settings("read-only"))
        try:
            await connections.connect()
            plan = connections.registry().get("floor_plan")
            assert plan is not None
            return await plan.run(ToolContext(settings=Settings(), bus=EventBus()), plan.validate({}))
        finally:
            await connections.aclose()

    result = arun(run(), timeout=60)
    assert result.ok and "The floor plan:" in result.for_model
    assert [(image.data, image.media_type) for image in result.images] == [(PIXEL, "image/png")]
