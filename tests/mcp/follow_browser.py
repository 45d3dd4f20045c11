"""A stand-in for the system browser (``BROWSER``): ``python -m tests.mcp.follow_browser URL`` loads
the sign-in page and follows its redirects, as a browser does once its user allows the sign-in (the
conformance suite's authorization server allows at once). It ends at Jawad's loopback listener."""

from __future__ import annotations

import sys

import httpx

if __name__ == "__main__":
    response = httpx.get(sys.argv[1], follow_redirects=True, timeout=30)
    print(f"{response.status_code} {response.url}", file=sys.stderr)
    sys.exit(0 if response.status_code < 400 else 1)
