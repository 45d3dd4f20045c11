"""The browser tools the model calls: read_page, find_in_page, click (by index or by the words shown),
fill, select, check, scroll, wait, summarise, navigate, go back and search (spec 001 READ_PAGE,
CLICK_ELEMENT, FILL_FORM, SCROLL_PAGE; spec 000 search_web), gathered by ``browser_registry``.

Each tool is declared once, with its permission level, in the module of its purpose
(``reading_tools``, ``element_tools``, ``moving_tools``, ``downloaded_files``; the way they act is
``tool_running``), and works on the browser session of the run it is called in (``ctx.browser``);
without one it fails with a message the model can act on. Each returns a concise result for the
model and a short one for the log; page failures (element gone, hidden, detached, navigation
blocked, timeout) come back as the page's own sentences through ``page_errors``, the one place a
``PageError`` becomes a ``ToolError``; every acting tool runs through ``act`` (show the target, act,
clear the highlight, say what changed, ``changes``, and where the page went); ``fill_form`` enters
dates, times, colours and numbers in the field's format (``values``). The names, levels and schemas
are what the model sees: ``tests/browser/test_tool_surface.py`` keeps them from drifting.
"""

from __future__ import annotations

# The tool modules declare their tools in ``TOOLS`` when imported.
from jawad_desktop.core.tools.browser import downloaded_files, element_tools, moving_tools, reading_tools
from jawad_desktop.core.tools.browser.tool_running import TOOLS
from jawad_desktop.core.tools.registry import ToolRegistry

__all__ = ["browser_registry", "downloaded_files", "element_tools", "moving_tools", "reading_tools"]


def browser_registry() -> ToolRegistry:
    """A new registry holding the browser tools (merge it with the basic tools)."""
    registry = ToolRegistry()
    for tool in TOOLS:
        registry.add(tool)
    return registry
