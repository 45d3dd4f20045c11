"""``jawad ask "PROMPT"``: one request to the agent (with its tools), the answer streamed to stdout.

``--json`` prints the final response with its metadata instead; ``--verbose`` prints the
action log (each tool call, its permission decision and result) to stderr. Failures go to
stderr as friendly text (exit 1); text that had already streamed stays on stdout.
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
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.store.recorder import TurnRecorder


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "ask",
        help="ask a question and stream the answer",
        description="Ask the model one question; the answer streams to standard output.",
    )
    parser.add_argument("prompt", help='the question ("-" reads it from standard input)')
    parser.add_argument("--json", action="store_true", help="print the final response and its metadata as JSON")
    parser.add_argument("--verbose", "-v", action="store_true", help="print the action log (tool calls) to stderr")
    parser.add_argument("--no-save", action="store_true",
                        help="do not save this conversation in the history (saved by default)")
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
    from jawad_desktop.core import events
    from jawad_desktop.core.agent.session import AgentSession
    from jawad_desktop.core.tools.basic import basic_registry

    prompt = read_prompt(args.prompt)
    streamed: list[str] = []

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.ChatDelta) and not args.json:
            streamed.append(event.text)
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, events.ActionLogUpdate) and args.verbose and event.entry.result != "pending":
            print(action_log_line(event.entry), file=sys.stderr, flush=True)

    recorder = open_recorder(args, ctx)
    if recorder is not None:
        recorder.user_message(prompt)

        def record(event: events.Event) -> None:
            if isinstance(event, events.ActionLogUpdate):
                recorder.action(event.entry)

        ctx.bus.subscribe(record)
    ctx.bus.subscribe(on_event)
    mcp = None
    registry = basic_registry()
    if ctx.settings.mcp.servers:
        from jawad_desktop.core.mcp.adapter import mcp_registry

        mcp = await mcp_registry(ctx)
        registry = registry.merged(mcp)
        for problem in mcp.problems.values():
            print(f"jawad: {problem}", file=sys.stderr)
    try:
        async with client_from_args(args, ctx) as client:
            agent = AgentSession.for_app(ctx, client, registry)
            response = await agent.run(prompt)
        if recorder is not None:
            recorder.turn_messages(agent.history.messages, prompt, interrupted=response.interrupted)
    finally:
        if recorder is not None:
            recorder.store.close()
        if mcp is not None:
            await mcp.aclose()
    if args.json:
        print(json.dumps({"content": response.content, "is_error": response.is_error,
                          "interrupted": response.interrupted, "metadata": response.metadata},
                         ensure_ascii=False, indent=2))
    elif response.is_error:
        if streamed and not "".join(streamed).endswith("\n"):
            print()
        print(f"jawad: {response.content}", file=sys.stderr)
    elif not "".join(streamed).strip():
        print(response.content)
    elif not "".join(streamed).endswith("\n"):
        print()
    return 1 if response.is_error else 0


def open_recorder(args: argparse.Namespace, ctx: AppContext) -> TurnRecorder | None:
    """The history store for this question, unless --no-save (shared with the window)."""
    if getattr(args, "no_save", False):
        return None
    from jawad_desktop.core.store.conversations import ConversationStore

    return TurnRecorder(ConversationStore.open(ctx.paths.data))


def action_log_line(entry: Any) -> str:
    """One action-log entry as a line for stderr: decision, tool, arguments, site, result."""
    arguments = json.dumps(entry.parameters, ensure_ascii=False)
    if len(arguments) > 200:
        arguments = arguments[:199] + "…"
    site = f" on {entry.site}" if entry.site else ""
    details = " ".join(entry.details.split())[:300]
    return f"[{entry.decision}] {entry.tool_name}({arguments}){site} [{entry.permission_level}]: {entry.result}" + (
        f" - {details}" if details else "")
