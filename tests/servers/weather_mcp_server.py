"""A FastMCP server over stdio with one tool, ``get_weather``: the name the loopback
provider servers' ``tool`` model calls, so the agent can run an MCP tool end to end."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

server = FastMCP("jawad-weather")


@server.tool()
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"{city}: 21 C and sunny (from MCP)"


if __name__ == "__main__":
    server.run("stdio")
