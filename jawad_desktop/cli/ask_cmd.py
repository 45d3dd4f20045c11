"""``jawad ask "PROMPT"``: one question to a model, the answer streamed to stdout.

``--json`` prints the final response with its metadata instead. Failures go to stderr as
friendly text (exit 1); text that had already streamed stays on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from jawad_desktop.cli.providers_cmd import add_provider_selection, client_from_args
from jawad_desktop.cli.read_page_cmd import add_browser_ask_options, run_ask_on_page
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.client import ChatStream
from jawad_desktop.core.llm.types import ChatResponse, Message


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "ask",
        help="ask a question and stream the answer",
        description="Ask the model one question; the answer streams to standard output.",
    )
    parser.add_argument("prompt", help='the question ("-" reads it from standard input)')
    parser.add_argument("--json", action="store_true", help="print the final response and its metadata as JSON")
    add_provider_selection(parser)
    add_browser_ask_options(parser)
    parser.set_defaults(handler=dispatch)
    return parser


def dispatch(args: argparse.Namespace, ctx: AppContext) -> Any:
    """With --url the agent works on that page in a browser (read_page_cmd); else a plain answer."""
    if getattr(args, "url", None):
        return run_ask_on_page(args, ctx, read_prompt(args.prompt))
    return run(args, ctx)


def read_prompt(value: str) -> str:
    prompt = sys.stdin.read() if value == "-" else value
    if not prompt.strip():
        raise JawadError("The question is empty.", suggestions=['Run `jawad ask "your question"`.'])
    return prompt


def response_json(response: ChatResponse) -> dict[str, Any]:
    """A ChatResponse as plain JSON data."""
    return {
        "content": response.content,
        "tool_calls": [c.to_wire() for c in response.tool_calls],
        "finish_reason": response.finish_reason,
        "usage": asdict(response.usage),
        "interrupted": response.interrupted,
        "tools_unsupported": response.tools_unsupported,
        "metadata": response.metadata,
    }


async def stream_to_stdout(stream: ChatStream) -> ChatResponse:
    """Print each piece of text as it comes; returns the final response."""
    wrote = False
    async for delta in stream:
        if delta.text:
            sys.stdout.write(delta.text)
            sys.stdout.flush()
            wrote = True
    response = await stream.response()
    if wrote and not response.content.endswith("\n"):
        sys.stdout.write("\n")
    return response


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    prompt = read_prompt(args.prompt)
    messages = [Message(role="user", content=prompt)]
    agent = ctx.settings.agent
    async with client_from_args(args, ctx) as client:
        stream = client.chat(messages, temperature=agent.temperature, max_tokens=agent.max_tokens)
        if args.json:
            response = await stream.response()
            print(json.dumps(response_json(response), ensure_ascii=False, indent=2))
        else:
            await stream_to_stdout(stream)
    return 0
