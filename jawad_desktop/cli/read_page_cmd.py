"""``jawad read-page URL [--json]``: what read_page gives the model, from an offscreen browser.

The page is loaded in an offscreen QWebEngineView on a private (off-the-record) profile, so
the command never touches the window's cookies and can run while the window is open. The
output is exactly the tool's result for the model; ``--json`` prints spec 001's READ_PAGE
shape (title, url, markdown, product, interactiveElements) plus notes and injection warnings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Callable
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


# -- jawad ask --url: the agent with browser tools on a page -----------------------------------

LEVEL_NAMES = ("navigate", "interact", "submit")


def add_browser_ask_options(parser: argparse.ArgumentParser) -> None:
    """``jawad ask``'s options for working on a page: --url, --allow, --deny-all, --private."""
    group = parser.add_argument_group("browser", "run the agent with browser tools on a web page")
    group.add_argument("--url", metavar="URL", help="open URL in an offscreen browser and let the agent work on it")
    group.add_argument("--allow", metavar="LEVELS", default="",
                       help="comma-separated levels to allow without asking: navigate, interact, submit "
                            "(buying, paying, deleting always ask)")
    group.add_argument("--deny-all", action="store_true",
                       help="deny every action that needs permission, without asking")
    group.add_argument("--private", action="store_true",
                       help="use a private browser profile (no cookies kept) instead of Jawad's own")


def allowed_levels(text: str) -> list[str]:
    levels = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = [level for level in levels if level not in LEVEL_NAMES]
    if unknown:
        raise JawadError(f"Unknown permission level: {', '.join(unknown)}.",
                         suggestions=[f"Use one or more of {', '.join(LEVEL_NAMES)}, e.g. --allow navigate,interact."])
    return levels


_TERMINAL_CHOICES = {"o": "allow-once", "s": "allow-site", "e": "allow-session", "d": "deny", "a": "deny-all",
                     "": "deny"}


def terminal_question(request: Any) -> str:
    """A permission request as the terminal shows it."""
    lines = [f"\nJawad wants to use {request.tool_name} on {request.site or 'this page'} ({request.permission_level})."]
    if request.critical:
        lines.append("  WARNING: this looks like a purchase, payment, deletion or sign-up.")
    if request.from_page_content:
        lines.append("  WARNING: the target or text comes from the web page, not from what you asked.")
    if request.element_hint:
        lines.append(f"  Element: {request.element_hint}")
    if request.parameters:
        lines.append(f"  Arguments: {json.dumps(request.parameters, ensure_ascii=False)[:300]}")
    lines.append(f"  {request.reason}")
    lines.append("  [o] allow once  [s] allow on this site  [e] allow this session  [d] deny  [a] deny all")
    return "\n".join(lines) + "\n  Your choice (Enter = deny): "


def run_ask_on_page(args: argparse.Namespace, ctx: AppContext, prompt: str) -> int:
    """Run one agent turn with browser tools on ``args.url``; ends the process (Qt, see ui/app.py)."""

    from jawad_desktop.cli.providers_cmd import client_from_args
    from jawad_desktop.core import events
    from jawad_desktop.ui.app import create_application, end_process, run_loop

    url = page_url(args.url)
    levels = [] if args.deny_all else allowed_levels(args.allow)
    interactive = sys.stdin.isatty() and sys.stderr.isatty() and not args.deny_all
    create_application(headless=True)
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from jawad_desktop.core.agent.session import AgentSession
    from jawad_desktop.core.tools.basic import basic_registry
    from jawad_desktop.core.tools.browser import browser_kit
    from jawad_desktop.core.tools.page import PageError
    from jawad_desktop.ui.browser_pane import make_profile
    from jawad_desktop.ui.page_driver import QtWebEnginePage

    private = args.private or ctx.settings.browser.off_the_record
    profile = make_profile(None if private else ctx.paths.data / "browser")
    view = QWebEngineView()
    view.resize(1280, 900)
    view.show()
    page = QtWebEnginePage(view, profile=profile)
    kit = browser_kit(ctx.settings, ctx.bus, page, config_dir=ctx.paths.config, data_dir=ctx.paths.data,
                      ask=interactive, auto_levels=levels)
    if args.deny_all:
        kit.harbor.policy.deny_all = True
    outcome: dict[str, Any] = {}
    streamed: list[str] = []

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.ChatDelta) and not args.json:
            streamed.append(event.text)
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, events.ActionLogUpdate) and event.entry.result not in ("pending",):
            entry = event.entry
            print(f"[{entry.decision}] {entry.tool_name} {entry.site}: {entry.result} {entry.details}".rstrip(),
                  file=sys.stderr)
        elif isinstance(event, events.PermissionRequest) and interactive:
            ask_terminal(event)

    ask_terminal = terminal_asker(kit)

    ctx.bus.subscribe(on_event)

    async def main() -> int:
        client = client_from_args(args, ctx)
        try:
            try:
                await page.navigate(url)
            except PageError as exc:
                outcome["error"] = JawadError(f"Could not open {url}: {exc.message}",
                                              suggestions=["Check the address and your network connection."])
                return 1
            kit.session.note_user_message(prompt)
            agent = AgentSession(client=client, registry=basic_registry().merged(kit.session.registry()),
                                 settings=ctx.settings, bus=ctx.bus, gate=kit.gate,
                                 context_provider=kit.session.page_context, page_provider=lambda: page,
                                 last_product_provider=kit.session.last_product)
            response = await agent.run(prompt)
            outcome["response"] = response
            outcome["url"] = await page.url()
            return 1 if response.is_error else 0
        finally:
            await client.aclose()
            kit.close()
            await page.close(release_profile=True)  # cookies reach the disk before the process ends

    try:
        code = run_loop(main)
    except KeyboardInterrupt:
        print("\njawad: interrupted", file=sys.stderr)
        end_process(130)
    if "error" in outcome:
        print(f"jawad: {outcome['error'].user_text()}", file=sys.stderr)
    response = outcome.get("response")
    if response is not None:
        if args.json:
            print(json.dumps({"content": response.content, "is_error": response.is_error,
                              "url": outcome.get("url", url), "metadata": response.metadata},
                             ensure_ascii=False, indent=2))
        elif response.is_error:
            print(f"jawad: {response.content}", file=sys.stderr)
        elif not "".join(streamed).strip():
            print(response.content)
        elif not "".join(streamed).endswith("\n"):
            print()
    end_process(code)


def terminal_asker(kit: Any) -> Callable[[Any], None]:
    """Answers the kit's permission requests with a question on the terminal (off the loop's
    thread, so the browser keeps running while the user reads it)."""

    async def ask(request: Any) -> None:
        answer = await asyncio.to_thread(input_answer, terminal_question(request))
        kit.gate.respond(request.id, _TERMINAL_CHOICES.get(answer, "deny"))

    def on_request(request: Any) -> None:
        asyncio.get_running_loop().create_task(ask(request))

    return on_request


def input_answer(question: str) -> str:
    """One keypress-word from the terminal (on a worker thread: the browser keeps running)."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        return sys.stdin.readline().strip().lower()[:1]
    except (OSError, ValueError):
        return ""
