"""``jawad ask "PROMPT"``: one request to the assistant (with its tools), the answer streamed to stdout.

With ``--url`` the assistant also works on that page in an offscreen browser (reading,
clicking, typing...). Actions that need permission are asked on an interactive terminal (or
allowed with ``--allow LEVELS``, or all denied with ``--deny-all``); without a person they are
denied. ``--plan-first`` shows the agent's plan for approval before it acts (y or Enter approves;
without a person the plan is rejected). ``--json`` prints the final response with its metadata
instead; ``--attach FILE`` sends files with the question (read before anything is sent: a
file that cannot be read ends the command with its reason); ``--verbose`` prints the action log
(each tool call, its permission decision and result) to stderr. The exchange is saved in the
history unless ``--no-save``. Failures go to stderr as friendly text (exit 1); text that had
already streamed stays on stdout.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from jawad_desktop.cli.providers_cmd import add_provider_selection, client_from_args
from jawad_desktop.cli.terminal import (
    TerminalQuestions,
    TurnPrinter,
    allowed_levels,
    interactive,
    offscreen_page,
    page_url,
    permission_options,
    run_on_qt,
)
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError

if TYPE_CHECKING:
    from jawad_desktop.core.assistant import Assistant


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "ask",
        help="ask a question and stream the answer",
        description="Ask the model one question; the answer streams to standard output.",
    )
    parser.add_argument("prompt", help='the question ("-" reads it from standard input)')
    parser.add_argument("--json", action="store_true", help="print the final response and its metadata as JSON")
    parser.add_argument("--verbose", "-v", action="store_true", help="print the action log (tool calls) to stderr")
    parser.add_argument("--attach", metavar="FILE", action="append", default=[],
                        help="send FILE with the question (repeatable): PDF, DOCX, Markdown, text, code, CSV, "
                             "XLSX, HTML, PNG, JPEG or WebP")
    parser.add_argument("--resource", nargs=2, metavar=("SERVER", "URI"), action="append", default=[],
                        help="send an MCP server's resource with the question (repeatable; `jawad mcp resources` "
                             "lists them)")
    parser.add_argument("--no-save", action="store_true",
                        help="do not save this conversation in the history (saved by default)")
    parser.add_argument("--project", metavar="NAME",
                        help="ask in this project: its instructions, memory and files (see `jawad projects`)")
    add_provider_selection(parser)
    group = parser.add_argument_group("browser", "run the agent with browser tools on a web page")
    group.add_argument("--url", metavar="URL", help="open URL in an offscreen browser and let the agent work on it")
    group.add_argument("--private", action="store_true",
                       help="use a private browser profile (no cookies kept) instead of Jawad's own")
    permission_options(parser)
    parser.add_argument("--plan-first", action="store_true",
                        help="before acting, show the agent's plan (sites and kinds of actions) for your approval; "
                             "anything outside it asks (needs an interactive terminal)")
    parser.set_defaults(handler=dispatch)
    return parser


def read_prompt(value: str) -> str:
    prompt = sys.stdin.read() if value == "-" else value
    if not prompt.strip():
        raise JawadError("The question is empty.", suggestions=['Run `jawad ask "your question"`.'])
    return prompt


def dispatch(args: argparse.Namespace, ctx: AppContext) -> Any:
    """With --url the assistant works on that page in an offscreen browser (on Qt's loop)."""
    prompt = read_prompt(args.prompt)
    levels = [] if args.deny_all else allowed_levels(args.allow)
    if args.url:
        url = page_url(args.url)
        return run_on_page(args, ctx, prompt, url, levels)
    return run(args, ctx, prompt, levels)


def _assistant(args: argparse.Namespace, ctx: AppContext, levels: list[str], page: Any = None) -> Any:
    from jawad_desktop.core.assistant import Assistant

    assistant = Assistant(ctx, page=page, client=client_from_args(args, ctx), ask=interactive(args),
                          auto_levels=levels, deny_all=args.deny_all, save=not args.no_save,
                          plan_first=True if args.plan_first else None, project=args.project)
    if interactive(args):
        TerminalQuestions(assistant)
    return assistant


async def _attachments(assistant: Assistant, args: argparse.Namespace) -> list[Any]:
    """The files of ``--attach`` and the MCP resources of ``--resource``, to send with the question."""
    resources = [await assistant.read_mcp_resource(server, uri) for server, uri in args.resource]
    return [*args.attach, *resources]


async def run(args: argparse.Namespace, ctx: AppContext, prompt: str, levels: list[str]) -> int:
    printer = TurnPrinter(ctx.bus, json_output=args.json, verbose=args.verbose)
    assistant = _assistant(args, ctx, levels)
    try:
        await assistant.connect_mcp()
        response = await assistant.send(prompt, await _attachments(assistant, args))
    finally:
        await assistant.aclose()
    return printer.finish(response)


def run_on_page(args: argparse.Namespace, ctx: AppContext, prompt: str, url: str, levels: list[str]) -> int:
    """One turn with browser tools on ``url``; ends the process (Qt, see ``ui/app/application.py``)."""
    from jawad_desktop.core.tools.page import PageError

    page = offscreen_page(ctx, private=args.private)
    printer = TurnPrinter(ctx.bus, json_output=args.json, verbose=True)
    outcome: dict[str, Any] = {}

    async def main() -> int:
        assistant = _assistant(args, ctx, levels, page)
        try:
            try:
                await page.navigate(url)
            except PageError as exc:
                raise JawadError(f"Could not open {url}: {exc.message}",
                                 suggestions=["Check the address and your network connection."]) from None
            await assistant.connect_mcp()
            response = await assistant.send(prompt, await _attachments(assistant, args))
            outcome["response"], outcome["url"] = response, await page.url()
            return 1 if response.is_error else 0
        finally:
            await assistant.aclose()
            await page.close(release_profile=True)  # cookies reach the disk before the process ends

    def after() -> None:
        response = outcome.get("response")
        if response is not None:
            printer.finish(response, {"url": outcome["url"]})

    run_on_qt(main, after=after)
