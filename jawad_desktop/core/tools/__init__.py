"""Tools the agent can call: the registry, the context tools receive, and the basic tools.

Public surface: ``ToolRegistry``, ``Tool``, ``ToolContext``, ``PageContext``, ``ToolResult``,
``ToolError``, ``ToolArgumentsError``, ``normalize_tool_name``. See ``registry`` for how to
write a tool. Permission levels are Harbor's (``core.harbor.policy.PermissionLevel``).
Each name is imported on its first use: the browser installs the page library (``page``) in
the window's first pages without the registry and the permission gate it brings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jawad_desktop.core.lazy_names import names_on_first_use

if TYPE_CHECKING:
    from jawad_desktop.core.tools.page import (
        PageContext,
    )
    from jawad_desktop.core.tools.registry import (
        Tool,
        ToolArgumentsError,
        ToolError,
        ToolRegistry,
        ToolResult,
        normalize_tool_name,
    )
    from jawad_desktop.core.tools.tool_context import (
        ToolContext,
    )

# Each name's module, imported on the name's first use (``__getattr__``).
_SOURCES = {
    "PageContext": "page",
    "Tool": "registry",
    "ToolArgumentsError": "registry",
    "ToolContext": "tool_context",
    "ToolError": "registry",
    "ToolRegistry": "registry",
    "ToolResult": "registry",
    "normalize_tool_name": "registry",
}

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


__getattr__ = names_on_first_use(__name__, _SOURCES)
