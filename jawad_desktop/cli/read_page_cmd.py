"""``jawad read-page URL [--json]``: what read_page gives the model, from an offscreen browser.

The page is loaded in an offscreen QWebEngineView on a private (off-the-record) profile, so
the command never touches the window's cookies and can run while the window is open. The
output is exactly the tool's result for the model; ``--json`` prints spec 001's READ_PAGE
shape (title, url, markdown, product, interactiveElements) plus notes and injection warnings.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError

log = logging.getLogger("jawad.cli.read_page")


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "read-page",
        help="print what read_page gives the model for a web page",
        description="Load URL in an offscreen browser and print what the read_page tool gives the model: "
        "title, URL, product, numbered interactive elements and the main content as Markdown.",
    )
    parser.add_argument("url", help="the page: a URL, a bare host (example.com) or a local HTML file")
    parser.add_argument("--json", action="store_true", help="print the reading as JSON (spec 001 READ_PAGE)")
    parser.add_argument("--max-elements", type=int, default=150, metavar="N",
                        help="list at most N interactive elements (default 150)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="give up when the page has not loaded after S seconds (default 30)")
    parser.set_defaults(handler=run)
    return parser


def page_url(text: str) -> str:
    """What the user typed as an address: a URL, a local file, or a bare host."""
    text = text.strip()
    if not text:
        raise JawadError("No page was given.", suggestions=["Run `jawad read-page https://example.com`."])
    if "://" in text or text.startswith(("about:", "data:")):
        return text
    path = Path(text).expanduser()
    if path.exists():
        return path.resolve().as_uri()
    scheme = "http://" if text.startswith(("localhost", "127.")) else "https://"
    return scheme + text


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    url = page_url(args.url)
    from jawad_desktop.ui.app import create_application, end_process, run_loop

    create_application(headless=True)
    from PySide6.QtWebEngineCore import QWebEngineProfile
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from jawad_desktop.core.tools.browser import read_page
    from jawad_desktop.core.tools.page import PageError
    from jawad_desktop.ui.page_driver import QtWebEnginePage

    profile = QWebEngineProfile()  # off the record: nothing of this read is kept
    view = QWebEngineView()
    view.resize(1280, 900)
    view.show()
    page = QtWebEnginePage(view, profile=profile)
    outcome: dict[str, Any] = {}

    async def main() -> int:
        try:
            await page.navigate(url, timeout=args.timeout)
            reading = await read_page(page, max_elements=max(1, args.max_elements))
        except PageError as exc:
            outcome["error"] = JawadError(
                f"Could not read {url}: {exc.message}",
                suggestions=["Check the address and your network connection.",
                             "Give it more time with --timeout 60 if the site is slow."],
            )
            return 1
        outcome["text"] = (json.dumps(reading.as_dict(), ensure_ascii=False, indent=2) if args.json
                           else reading.for_model())
        return 0

    try:
        code = run_loop(main)
    except KeyboardInterrupt:
        print("jawad: interrupted", file=sys.stderr)
        end_process(130)
    if "error" in outcome:
        print(f"jawad: {outcome['error'].user_text()}", file=sys.stderr)
    else:
        print(outcome.get("text", ""))
    # Exit without tearing Qt and Chromium down in Python's order (see ui/app.py).
    end_process(code)
