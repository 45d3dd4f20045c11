"""The panels that ask the user mid-turn: permission, plan, take-over and an MCP server's question."""
