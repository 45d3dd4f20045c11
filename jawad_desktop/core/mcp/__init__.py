"""MCP servers as tools (spec 003's MCP tool adapter), through the official ``mcp`` SDK.

- ``config``: McpServerConfig, McpSettings (the ``mcp`` section of the settings)
- ``adapter``: McpConnections / mcp_registry: connect to the configured servers (stdio or
  streamable HTTP), list their tools, and register the allowed ones in a ToolRegistry

Nothing is imported here: ``core.store.settings`` imports ``config`` and must not pull in
the SDK.
"""
