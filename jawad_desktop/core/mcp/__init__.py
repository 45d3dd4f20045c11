"""MCP servers as tools (spec 003's MCP tool adapter), through the official ``mcp`` SDK.

- ``adapter``: McpConnections / mcp_registry: connect to the configured servers (stdio or
  streamable HTTP), list their tools, and register the allowed ones in a ToolRegistry
- ``auth``: signing in to remote servers (OAuth 2.1 through the SDK): the keyring storage, the
  authorizers (loopback redirect, system browser); ``server_auth.oauth_for``: the sign-in one
  server's configuration asks for (``enterprise``: the organisation's identity provider)
- ``elicitation``: a server's questions to the user mid-call, as events the faces answer

Nothing is imported here: ``core.store.settings_file`` imports ``config`` and must not pull in
the SDK.
"""
