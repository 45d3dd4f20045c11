"""``jawad history``: list, search, show and export saved conversations from a terminal.

Reads the same store as the window (``jawad.db`` in the profile's data folder). Ids may be
shortened to any unique prefix, as ``history list`` shows them. ``show`` says what the
conversation used (tokens, and the cost the price table gave each answer).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from jawad_desktop.cli.terminal import one_line, printable
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.pricing import totals_text
from jawad_desktop.core.store.conversation_records import MARK_END, MARK_START
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.export import EXPORT_FORMATS, export_conversation, write_export

SHORT_ID = 8
_SPEAKERS = {"user": "You", "assistant": "Jawad", "system": "System", "tool": "Tool"}


def register(subparsers: Any) -> argparse.ArgumentParser:
    from jawad_desktop.cli import add_actions

    parser, actions = add_actions(
        subparsers, "history",
        help="list, search, show and export saved conversations",
        description="Saved conversations: list them, search every message, show one, export one.",
        dest="history_action", handler=run,
    )

    p_list = actions.add_parser("list", help="conversations, most recent first")
    p_list.add_argument("--limit", type=int, default=50, help="how many to show (default 50)")
    p_list.add_argument("--json", action="store_true", help="print JSON instead of a table")

    p_search = actions.add_parser("search", help="search every message (all words must appear)")
    p_search.add_argument("query", nargs="+", help="words to look for; the last may be a prefix")
    p_search.add_argument("--limit", type=int, default=20, help="how many matches to show (default 20)")
    p_search.add_argument("--json", action="store_true", help="print JSON instead of text")
    p_search.add_argument("--semantic", action="store_true",
                          help="search by meaning with embeddings (new messages are indexed first)")
    p_search.add_argument("--provider", metavar="NAME",
                          help="with --semantic: the provider that embeds (default: the active one)")
    p_search.add_argument("--embedding-model", metavar="M", help="with --semantic: the embedding model to use")

    p_show = actions.add_parser("show", help="print a conversation")
    p_show.add_argument("id", help="the conversation id (or a unique prefix)")

    p_export = actions.add_parser("export", help="export a conversation (API keys and tokens redacted)")
    p_export.add_argument("id", help="the conversation id (or a unique prefix)")
    p_export.add_argument("--format", choices=EXPORT_FORMATS, default="md", help="md (default) or json")
    p_export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of the terminal")
    return parser


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000).astimezone().strftime("%Y-%m-%d %H:%M")


def _emphasis() -> tuple[str, str]:
    # Bold on a terminal; plain **markers** when piped, so the matches stay visible.
    if sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
        return "\033[1m", "\033[0m"
    return "**", "**"


def _json_or_nothing(args: argparse.Namespace, rows: list[dict[str, Any]], nothing: str) -> bool:
    """With ``--json`` print ``rows``; without rows say ``nothing`` on stderr (stdout stays empty
    for scripts). True when that was the whole answer."""
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return True
    if not rows:
        print(nothing, file=sys.stderr)
        return True
    return False


def _list(store: ConversationStore, args: argparse.Namespace) -> int:
    conversations = store.list_conversations(limit=max(1, args.limit))
    rows = [
        {"id": c.id, "title": c.display_title, "updated_at": c.updated_at,
         "created_at": c.created_at, "message_count": c.message_count}
        for c in conversations
    ]
    if _json_or_nothing(args, rows, "No saved conversations yet."):
        return 0
    print(f"{'ID':<{SHORT_ID}}  {'LAST MESSAGE':<16}  {'MSGS':>5}  TITLE")
    for c in conversations:
        print(f"{c.id[:SHORT_ID]:<{SHORT_ID}}  {_when(c.updated_at):<16}  {c.message_count:>5}  "
              f"{one_line(c.display_title)}")
    return 0


def _search(store: ConversationStore, args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    hits = store.search(query, limit=max(1, args.limit))
    rows = [
        {"conversation_id": h.conversation_id, "title": h.conversation_title, "position": h.position,
         "role": h.role, "snippet": h.marked("**", "**"), "created_at": h.created_at}
        for h in hits
    ]
    if _json_or_nothing(args, rows, f"No saved message matches {query!r}."):
        return 0
    start, end = _emphasis()
    for h in hits:
        title = one_line(h.conversation_title or "New chat")
        print(f"{h.conversation_id[:SHORT_ID]}  {title}  ({_SPEAKERS.get(h.role, h.role)}, message {h.position + 1})")
        snippet = one_line(h.snippet).replace(MARK_START, start).replace(MARK_END, end)
        print(f"    {snippet}")
    return 0


def _show(store: ConversationStore, args: argparse.Namespace) -> int:
    cid = store.resolve_id(args.id)
    conv = store.get(cid)
    print(one_line(conv.display_title))
    print(f"id {conv.id} · started {_when(conv.created_at)} · {conv.message_count} messages")
    usage = totals_text(store.usage_totals(cid))
    if usage:
        print(f"used {usage}")
    for stored in store.messages(cid):
        m = stored.message
        speaker = _SPEAKERS.get(m.role, m.role)
        if m.role == "tool" and m.name:
            speaker = f"Tool ({m.name})"
        print(f"\n[{_when(stored.created_at)}] {speaker}:")
        if m.content:
            print(printable(m.content))
        for call in m.tool_calls:
            print(one_line(f"  → {call.name}({call.arguments_json()})"))
    return 0


def _export(store: ConversationStore, args: argparse.Namespace) -> int:
    cid = store.resolve_id(args.id)
    if args.output:
        try:
            write_export(store, cid, args.format, Path(args.output))
        except JawadError as exc:
            exc.suggestions = ["Choose a folder you can write to with -o FILE, or leave -o out to print it."]
            raise
        count = store.get(cid).message_count
        print(f"Exported {count} messages to {args.output} (API keys and tokens redacted).", file=sys.stderr)
    else:
        sys.stdout.write(export_conversation(store, cid, args.format))
    return 0


_ACTIONS = {"list": _list, "search": _search, "show": _show, "export": _export}


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    with ConversationStore.open(ctx.paths.data) as store:
        if args.history_action == "search" and args.semantic:
            return await _semantic_search(store, args, ctx)
        return _ACTIONS[args.history_action](store, args)


async def _semantic_search(store: ConversationStore, args: argparse.Namespace, ctx: AppContext) -> int:
    from jawad_desktop.core.llm.embeddings import Embedder
    from jawad_desktop.core.llm.errors import LLMError
    from jawad_desktop.core.llm.factory import client_for
    from jawad_desktop.core.store.semantic import SemanticIndex

    query = " ".join(args.query)

    def progress(count: int) -> None:
        print(f"Indexed {count} new messages…", file=sys.stderr, flush=True)

    async with client_for(ctx, args.provider) as client:
        try:
            embedder = Embedder(client, args.embedding_model or "")
        except LLMError as exc:
            # The core's words are neutral ("choose another provider"); here that is an option.
            exc.suggestions.append("Choose the provider with --provider NAME, the model with --embedding-model M.")
            raise
        found = await SemanticIndex(store).search(embedder, query, limit=max(1, args.limit), progress=progress)
    rows = [
        {"conversation_id": f.hit.conversation_id, "title": f.hit.conversation_title,
         "position": f.hit.position, "role": f.hit.role, "snippet": f.hit.snippet,
         "created_at": f.hit.created_at, "score": round(f.score, 4)}
        for f in found
    ]
    if _json_or_nothing(args, rows, "No saved message to search yet."):
        return 0
    for f in found:
        h = f.hit
        title = one_line(h.conversation_title or "New chat")
        print(f"{h.conversation_id[:SHORT_ID]}  {title}  ({_SPEAKERS.get(h.role, h.role)}, message {h.position + 1}, "
              f"similarity {f.score:.2f})")
        print(f"    {one_line(h.snippet)}")
    return 0
