"""A real MCP server (FastMCP, stdio) whose tool asks the user for input mid-call (elicitation).

``python -m tests.mcp.asking_server``. Tool ``book_table(day)`` asks for the name, the number of
guests (1 to 12) and the seating (inside by default), and returns what came back: the action and
the values, or that it was declined or cancelled. Tool ``clear_bookings()`` is marked destructive
(a tool annotation) and logs a warning to the client (``notifications/message``); ``list_bookings()``
is marked read-only. ``slow_task(marker)`` reports progress, then works for a minute; told to stop
(``notifications/cancelled``) it writes "cancelled" to the file ``marker``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp.server.fastmcp import Context, FastMCP
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = FastMCP("jawad-asking-server")


class Booking(BaseModel):
    name: str = Field(description="Whose name the table is booked under", min_length=1)
    guests: int = Field(description="How many people", ge=1, le=12)
    seating: str = Field("inside", description="Where to sit", json_schema_extra={"enum": ["inside", "terrace"]})


@server.tool()
async def book_table(day: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Book a table for the given day (asks the user for the details)."""
    answer = await ctx.elicit(f"Booking a table for {day}: who, and how many?", Booking)
    if answer.action == "accept":
        return f"booked for {day}: {answer.data.model_dump_json()}"
    return f"not booked: the user chose {answer.action}"


@server.tool(annotations=ToolAnnotations(destructiveHint=True, readOnlyHint=False))
async def clear_bookings(ctx: Context) -> str:  # type: ignore[type-arg]
    """Cancel every booking."""
    await ctx.warning("all bookings were cleared")
    return "cleared"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_bookings() -> str:
    """The bookings."""
    return "none"


@server.tool()
async def slow_task(marker: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Work for a minute, saying how far it is."""
    try:
        await ctx.report_progress(1, 60, "started")
        await anyio.sleep(60)
    except anyio.get_cancelled_exc_class():
        Path(marker).write_text("cancelled")
        raise
    return "done"


if __name__ == "__main__":
    server.run("stdio")
