"""Tools the agent can call: the registry, the context tools receive, and the basic tools.

Public surface: ``ToolRegistry``, ``Tool``, ``ToolContext``, ``PageContext``, ``ToolResult``,
``ToolError``, ``ToolArgumentsError``, ``normalize_tool_name``. See ``registry`` for how to
write a tool. Permission levels are Harbor's (``core.harbor.policy.PermissionLevel``).
"""

from jawad_desktop.core.tools.page import PageContext
from jawad_desktop.core.tools.registry import (
    Tool,
    ToolArgumentsError,
    ToolError,
    ToolRegistry,
    ToolResult,
    normalize_tool_name,
)
from jawad_desktop.core.tools.tool_context import ToolContext

__all__ = [
    "PageContext",
    "Tool",
    "ToolArgumentsError",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "normalize_tool_name",
]
