"""Jawad Desktop: a desktop AI assistant that works in a browser the user can watch.

The package has two halves: ``core`` (pure asyncio, no Qt) and ``ui`` (the Qt edge).
``cli`` drives the same core from a terminal.
"""

import sys

# httpx imports its command line (httpx._main: click, rich and pygments, about 100 modules and 6 MB)
# whenever those happen to be installed; Jawad never runs it. Marked absent, httpx skips it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

__version__ = "0.1.0"

APP_NAME = "Jawad Desktop"
APP_ID = "jawad-desktop"

__all__ = ["APP_ID", "APP_NAME", "__version__"]
