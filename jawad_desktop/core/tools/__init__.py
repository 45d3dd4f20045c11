"""Tools the agent can call: the registry, the context tools receive, and the basic tools.

Public surface: ``ToolRegistry``, ``Tool``, ``ToolContext``, ``PageContext``, ``ToolResult``,
``ToolError``, ``ToolArgumentsError``, ``PermissionLevel``, ``normalize_tool_name``,
``site_of``. See ``registry`` for how to write a tool.
"""

from jawad_desktop.core.tools.context import PageContext, ToolContext, site_of
from jawad_desktop.core.tools.registry import (
    PermissionLevel,
    Tool,
    ToolArgumentsError,
    ToolError,
    ToolRegistry,
    ToolResult,
    normalize_tool_name,
)

__all__ = [
    "PageContext",
    "PermissionLevel",
    "Tool",
    "ToolArgumentsError",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "normalize_tool_name",
    "site_of",
]
