"""A client for the conformance suite that only hands the server's URL on: ``python -m tests.mcp.hold_url
FILE URL`` writes URL to FILE and waits, so the suite keeps its MCP and authorization servers up while
something else (the screenshot of signing in from Settings, ``tests/fixtures/screenshots.py``) uses them."""

from __future__ import annotations

import sys
import time
from pathlib import Path

if __name__ == "__main__":
    Path(sys.argv[1]).write_text(sys.argv[2], encoding="utf-8")
    time.sleep(600)
