"""``jawad read-page URL [--json]``: what read_page gives the model, from an offscreen browser.

The page is loaded in an offscreen view on a private (off-the-record) profile, so the command
never touches the window's cookies and can run while the window is open, and read through the
same ``Assistant`` the window uses. The output is exactly the tool's result for the model;
``--json`` prints spec 001's READ_PAGE shape (title, url, markdown, product,
interactiveElements) plus notes, injection warnings and the parts; ``--part N`` prints part N of
a long page's content, as ``read_page(part=N)`` gives it.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from jawad_desktop.cli.terminal import offscreen_page, page_url, printable, printable_json, run_on_qt
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "read-page",
        help="print what read_page gives the model for a web page",
        description="Load URL in an offscreen browser and print what the read_page tool gives the model: "
        "title, URL, product, numbered interactive elements and the main content as Markdown.",
    )
    parser.add_argument("url", help="the page: a web address (https://...) or a bare host (example.com)")
    parser.add_argument("--json", action="store_true", help="print the reading as JSON (spec 001 READ_PAGE)")
    parser.add_argument("--part", type=int, default=1, metavar="N",
                        help="print part N of a long page's content (the first read says how many there are)")
    parser.add_argument("--max-elements", type=int, default=150, metavar="N",
                        help="list at most N interactive elements (default 150)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="give up when the page has not loaded after S seconds (default 30)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.tools.page import PageError

    url = page_url(args.url)
    page = offscreen_page(None, private=True)  # nothing of this read is kept
    outcome: dict[str, str] = {}

    async def main() -> int:
        assistant = Assistant(ctx, page=page, ask=False, save=False)
        assert assistant.browser is not None
        assistant.browser.max_elements = max(1, args.max_elements)
        try:
            await page.navigate(url, timeout=args.timeout)
            reading = await assistant.read_page()
        except PageError as exc:
            raise JawadError(f"Could not read {url}: {exc.message}",
                             suggestions=["Check the address and your network connection.",
                                          "Give it more time with --timeout 60 if the site is slow."]) from None
        finally:
            await assistant.aclose()
        count = len(reading.parts())
        if not 1 <= args.part <= count:
            raise JawadError(f"{url} has {count} part{'s' * (count != 1)} of content; there is no part {args.part}.",
                             suggestions=[f"Ask for a part from 1 to {count} with --part."])
        outcome["text"] = (printable_json(json.dumps(reading.as_dict(args.part), ensure_ascii=False, indent=2))
                           if args.json else printable(reading.for_model(part=args.part)))
        return 0

    run_on_qt(main, after=lambda: print(outcome["text"]) if "text" in outcome else None)
