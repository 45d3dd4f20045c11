"""What the user configures, as pydantic models: the settings file's schema (``settings``), the
providers (``providers``) and the MCP servers (``mcp``). Loading and saving is ``core.store``."""
