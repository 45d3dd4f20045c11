"""What the conversation store (``core.store.conversations``) returns and how it is kept in rows:
the shapes (``ConversationSummary``, ``StoredMessage``, ``UsageTotals``, ``SearchHit``,
``ConversationMatch``), titles made from a first message, the search snippets' markers, and the
messages' and action-log entries' (de)serialisation to the database's columns."""

from __future__ import annotations

import html
import json
import logging
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.core.logging_setup import redact
from jawad_desktop.core.messages import Message, Role, ToolCall

log = logging.getLogger("jawad.store")


# Snippet markers: private-use characters that never occur in real text, turned into
# <b>…</b> for the window or [ … ] for the terminal by ``SearchHit``.
MARK_START = "\ue000"
MARK_END = "\ue001"

TITLE_MAX_CHARS = 60


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """One row of the history list."""

    id: str
    title: str
    created_at: int
    updated_at: int
    message_count: int
    title_is_custom: bool = False
    shown_count: int = 0  # the messages the chat shows: the user's and the answers with text
    deleted_at: int | None = None
    project_id: str | None = None  # the project it belongs to (core.store.projects), if any

    @property
    def display_title(self) -> str:
        return self.title or "New chat"


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A saved message: the ``Message`` itself, where it sits, and when it was written."""

    conversation_id: str
    position: int
    message: Message
    created_at: int
    metadata: dict[str, Any] = field(default_factory=dict)

# What an answer's metadata says it used ({"usage": {...}}, saved by the recorder from the
# turn's ChatResponse metadata): tokens, cost in USD (None: unknown), and the model.
USAGE_KEYS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "cost_usd",
              "cost_known", "model")


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """What a conversation used, summed over its answers; ``unknown_cost_turns`` answers came
    from a model without a known price (their cost is not in ``cost_usd``)."""

    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unknown_cost_turns: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def cost_known(self) -> bool:
        return self.unknown_cost_turns == 0


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A message that matched a search; ``snippet`` has the matches between MARK_START/MARK_END."""

    conversation_id: str
    conversation_title: str
    position: int
    role: str
    snippet: str
    created_at: int

    def marked(self, start: str = "[", end: str = "]") -> str:
        """The snippet with matches wrapped in ``start``/``end`` (for a terminal)."""
        return self.snippet.replace(MARK_START, start).replace(MARK_END, end)

    def html(self) -> str:
        """The snippet as HTML, text escaped and matches in bold."""
        return highlight_html(self.snippet)


@dataclass(frozen=True, slots=True)
class ConversationMatch:
    """A conversation that matched a search: its best message hit (if any) and how many matched."""

    conversation: ConversationSummary
    best: SearchHit | None
    hit_count: int
    title_snippet: str = ""  # the title with its matches marked, when the title matched


def highlight_html(marked_text: str) -> str:
    """Escape ``marked_text`` for HTML and turn the markers into <b>…</b>."""
    return (
        html.escape(marked_text)
        .replace(MARK_START, "<b>")
        .replace(MARK_END, "</b>")
        .replace("\n", " ")
    )

# Markdown in a title's line: block markers at its start, emphasis and code marks around words, a
# link's brackets and address. A lone "*" or "_" is the user's ("12*34", "snake_case") and stays.
_MARKDOWN_BLOCK = re.compile(r"^\s*(?:#{1,6}\s+|>+\s*|[-+*]\s+)")

_MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")

_MARKDOWN_WRAP = re.compile(r"(`+|\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1(?!\w)")


def title_from_text(text: str, max_chars: int = TITLE_MAX_CHARS) -> str:
    """A short title from a message: its first non-empty line, markdown stripped, cut at a word.

    Keys pasted into a first message are masked: the title is on screen all the time."""
    for line in redact(text).splitlines():
        # Keep redact()'s "[redacted]" marker whole while link brackets are stripped.
        line = line.replace("[redacted]", "\x00")
        line = _MARKDOWN_WRAP.sub(r"\2", _MARKDOWN_LINK.sub(r"\1", _MARKDOWN_BLOCK.sub("", line)))
        cleaned = " ".join(line.split()).replace("\x00", "[redacted]")
        if cleaned:
            break
    else:
        return ""
    if len(cleaned) <= max_chars:
        return cleaned
    cut = cleaned[: max_chars - 1]
    if " " in cut[max_chars // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,.;:-") + "…"


def tool_calls_json(calls: Iterable[ToolCall]) -> str:
    return json.dumps(
        [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls], ensure_ascii=False
    )


def tool_calls_from_json(text: str) -> list[ToolCall]:
    try:
        raw = json.loads(text or "[]")
    except json.JSONDecodeError:
        log.warning("unreadable tool_calls JSON in the database; shown as none")
        return []
    calls: list[ToolCall] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            args = item.get("arguments", {})
            calls.append(
                ToolCall(
                    id=str(item.get("id", "")),
                    name=str(item.get("name", "")),
                    arguments=args if isinstance(args, dict | str) else json.dumps(args),
                )
            )
    return calls


def json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _columns(row: sqlite3.Row, names: str) -> dict[str, Any]:
    """The row's columns ``names`` (space-separated), by name: the fields a record takes as stored."""
    return {name: row[name] for name in names.split()}


def summary_from_row(row: sqlite3.Row) -> ConversationSummary:
    return ConversationSummary(
        **_columns(row, "id title created_at updated_at message_count shown_count deleted_at project_id"),
        title_is_custom=bool(row["title_is_custom"]),
    )


def stored_from_row(row: sqlite3.Row) -> StoredMessage:
    return StoredMessage(
        **_columns(row, "conversation_id position created_at"),
        message=Message(
            role=cast(Role, row["role"]),
            content=row["content"],
            tool_calls=tool_calls_from_json(row["tool_calls"]),
            tool_call_id=row["tool_call_id"],
            name=row["name"],
        ),
        metadata=json_object(row["metadata"]),
    )


def action_from_row(row: sqlite3.Row) -> ActionLogEntry:
    return ActionLogEntry(
        **_columns(row, "id timestamp tool_name site permission_level decision result details run_id"),
        parameters=json_object(row["parameters"]),
    )

# shown_count: what the chat shows of it, the user's messages and the answers with text (not the
# tool calls and results that a single question can bring: "4 messages" for one question).
SUMMARY_COLUMNS = ("id, title, title_is_custom, created_at, updated_at, deleted_at, message_count, project_id, "
                    "(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = conversations.id "
                    "AND (m.role = 'user' OR (m.role = 'assistant' AND m.content != ''))) AS shown_count")


MESSAGE_COLUMNS = (
    "conversation_id, position, role, content, tool_calls, tool_call_id, name, created_at, metadata"
)
