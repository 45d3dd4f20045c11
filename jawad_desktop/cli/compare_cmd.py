"""``jawad compare "MESSAGE" --with PROVIDER``: one message to two models at once, both answers shown.

The first model is the one in use (or ``--provider``), the second a saved provider (``--with``).
Both run with the assistant's tools. Nothing is saved unless ``--keep first`` or ``--keep second``
makes that answer the conversation's (in the history, like ``jawad ask``). Permission questions
are asked as ``jawad ask`` asks them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from jawad_desktop.cli.providers_cmd import client_from_args
from jawad_desktop.cli.terminal import TerminalQuestions, allowed_levels, interactive, permission_options
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "compare", help="one message to two models at once, answers side by side",
        description="Send one message to two models at once and show both answers.")
    parser.add_argument("prompt", help='the message ("-" reads it from standard input)')
    parser.add_argument("--with", dest="other", required=True, metavar="NAME",
                        help="the saved provider to compare with (see `jawad providers list`)")
    parser.add_argument("--provider", metavar="NAME", help="the first model's provider (default: the active one)")
    parser.add_argument("--keep", choices=("first", "second"),
                        help="save that answer in the history as the conversation's (default: save nothing)")
    permission_options(parser)
    parser.set_defaults(handler=run)
    return parser


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from jawad_desktop.cli.ask_cmd import read_prompt
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.compare import Comparison

    prompt = read_prompt(args.prompt)
    levels = [] if args.deny_all else allowed_levels(args.allow)
    assistant = Assistant(ctx, client=client_from_args(args, ctx), ask=interactive(args), auto_levels=levels,
                          deny_all=args.deny_all, save=args.keep is not None)
    if interactive(args):
        TerminalQuestions(assistant)
    try:
        comparison = Comparison.against(assistant, args.other)
        await assistant.connect_mcp()
        answers = await comparison.run(prompt)
        for side, answer in zip(comparison.sides, answers, strict=True):
            print(f"== {side.label}{' (failed)' if answer.is_error else ''}")
            print(answer.content.rstrip())
            print()
        if args.keep:
            comparison.keep(0 if args.keep == "first" else 1)
            print(f"Kept {comparison.sides[0 if args.keep == 'first' else 1].label}'s answer in the history.",
                  file=sys.stderr)
        failed = [a for a in answers if a.is_error]
        if len(failed) == len(answers):
            raise JawadError("Neither model answered.", suggestions=["See each one's reason above."])
        return 0
    finally:
        await assistant.aclose()
