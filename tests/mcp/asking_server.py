"""A real MCP server (FastMCP, stdio) whose tool asks the user for input mid-call (elicitation).

``python -m tests.mcp.asking_server``. Tool ``book_table(day)`` asks for the name, the number of
guests (1 to 12) and the seating (inside by default), and returns what came back: the action and
the values, or that it was declined or cancelled. Tool ``clear_bookings()`` is marked destructive
(a tool annotation) and logs a warning to the client (``notifications/message``); ``list_bookings()``
is marked read-only. ``slow_task(marker)`` reports progress, then works for a minute; told to stop
(``notifications/cancelled``) it writes "cancelled" to the file ``marker``. ``floor_plan()`` returns a
picture (a PNG) with a caption.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp.server.fastmcp import Context, FastMCP, Image
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


# The smallest PNG: one transparent pixel.
PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")


@server.tool(structured_output=False)
def floor_plan() -> list[Any]:
    """The restaurant's floor plan, as a picture."""
    return ["The floor plan:", Image(data=PIXEL, format="png")]


if __name__ == "__main__":
    server.run("stdio")
