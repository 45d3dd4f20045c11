"""Jawad Desktop: a desktop AI assistant that works in a browser the user can watch.

The package has two halves: ``core`` (pure asyncio, no Qt) and ``ui`` (the Qt edge).
``cli`` drives the same core from a terminal.
"""

import sys
from types import ModuleType

# httpx imports its command line (httpx._main: click, rich and pygments, about 100 modules and 6 MB)
# whenever those happen to be installed; Jawad never runs it. Marked absent, httpx skips it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def _no_pydantic_plugins() -> tuple[()]:
    return ()


# pydantic looks for its plugins before it builds its first model: its loader imports importlib.metadata
# (email, csv, calendar...: 25 modules, 1.2 MB of the idle window) and reads the entry points of every
# installed package (20 ms). Jawad uses none (and PYDANTIC_DISABLE_PLUGINS would reach the programs it
# starts, MCP servers among them): the loader, put in place before pydantic's, finds no plugin.
_plugin_loader = ModuleType("pydantic.plugin._loader", "No pydantic plugins in Jawad (jawad_desktop/__init__.py).")
_plugin_loader.get_plugins = _no_pydantic_plugins  # type: ignore[attr-defined]
sys.modules.setdefault("pydantic.plugin._loader", _plugin_loader)

__version__ = "0.1.0"

APP_NAME = "Jawad Desktop"
APP_ID = "jawad-desktop"

__all__ = ["APP_ID", "APP_NAME", "__version__"]
