"""Exporting a saved conversation to Markdown or JSON, with its action log, secrets redacted.

Owns the two export formats. Every piece of text that leaves through an export (titles,
messages, tool-call arguments, tool results, action-log parameters and details) passes
through ``core.logging_setup.redact``, and values stored under secret-sounding keys
(``api_key``, ``token``, ``password``...) are replaced whole, so a shared export never
carries an API key or a token.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from jawad_desktop import APP_NAME, __version__
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.core.logging_setup import redact
from jawad_desktop.core.store.conversation_records import StoredMessage
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.jsonfile import write_atomic

ExportFormat = Literal["md", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "json")
JSON_FORMAT_NAME = "jawad-conversation"
JSON_FORMAT_VERSION = 1

REDACTED = "[redacted]"
_SECRET_KEY_RE = re.compile(
    r"(api[_-]?key|token|secret|password|passwd|authorization|cookie|credential)", re.IGNORECASE
)


def redact_data(value: Any, key: str = "") -> Any:
    """A copy of a JSON-like value with secrets masked: whole values under secret-sounding
    keys, and key-shaped text anywhere in strings."""
    if key and _SECRET_KEY_RE.search(key) and isinstance(value, str | int | float) and value != "":
        return REDACTED
    if isinstance(value, dict):
        return {k: redact_data(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(v) for v in value]
    if isinstance(value, str):
        return redact(value)
    return value


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000).astimezone().isoformat(timespec="seconds")


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000).astimezone().strftime("%Y-%m-%d %H:%M")


def _message_dict(stored: StoredMessage) -> dict[str, Any]:
    m = stored.message
    return {
        "position": stored.position,
        "role": m.role,
        "content": redact(m.content),
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": redact_data(c.arguments)} for c in m.tool_calls
        ],
        "tool_call_id": m.tool_call_id,
        "name": m.name,
        "created_at": _iso(stored.created_at),
        "metadata": redact_data(stored.metadata),
    }


def _action_dict(entry: ActionLogEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "time": _iso(entry.timestamp),
        "tool_name": entry.tool_name,
        "parameters": redact_data(entry.parameters),
        "site": entry.site,
        "permission_level": entry.permission_level,
        "decision": entry.decision,
        "result": entry.result,
        "details": redact(entry.details),
        "run_id": entry.run_id,
    }


def export_json(store: ConversationStore, conversation_id: str) -> str:
    """The conversation, its messages and its action log as one JSON document."""
    conv = store.get(conversation_id)
    document = {
        "format": JSON_FORMAT_NAME,
        "version": JSON_FORMAT_VERSION,
        "exported_by": f"{APP_NAME} {__version__}",
        "exported_at": datetime.now().astimezone().isoformat(timespec="seconds"),
        "conversation": {
            "id": conv.id,
            "title": redact(conv.display_title),
            "created_at": _iso(conv.created_at),
            "updated_at": _iso(conv.updated_at),
            "message_count": conv.message_count,
        },
        "messages": [_message_dict(m) for m in store.messages(conversation_id)],
        "action_log": [_action_dict(e) for e in store.action_log(conversation_id)],
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _fence(text: str, lang: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|") or " "


_SPEAKERS = {"user": "You", "assistant": "Jawad", "system": "System", "tool": "Tool result"}


def export_markdown(store: ConversationStore, conversation_id: str) -> str:
    """The conversation as a readable Markdown document, action log at the end."""
    conv = store.get(conversation_id)
    lines = [
        f"# {redact(conv.display_title)}",
        "",
        f"- Conversation: `{conv.id}`",
        f"- Started: {_when(conv.created_at)}",
        f"- Last message: {_when(conv.updated_at)}",
        f"- Messages: {conv.message_count}",
        f"- Exported by {APP_NAME} {__version__} on {_when(int(datetime.now().timestamp() * 1000))}",
        "",
    ]
    for stored in store.messages(conversation_id):
        m = stored.message
        speaker = _SPEAKERS.get(m.role, m.role)
        if m.role == "tool" and m.name:
            speaker = f"Tool result: {m.name}"
        lines += [f"## {speaker} · {_when(stored.created_at)}", ""]
        if m.role == "tool":
            lines += [_fence(redact(m.content)), ""]
        elif m.content:
            lines += [redact(m.content), ""]
        for call in m.tool_calls:
            args = redact_data(call.arguments)
            shown = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, indent=2)
            lines += [f"**Tool call** `{call.name}`", "", _fence(shown, "json"), ""]
    entries = store.action_log(conversation_id)
    lines += ["## Action log", ""]
    if not entries:
        lines += ["No tools were used in this conversation.", ""]
    else:
        lines += [
            "| Time | Tool | Site | Permission | Decision | Result | Parameters | Details |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for e in entries:
            params = json.dumps(redact_data(e.parameters), ensure_ascii=False)
            lines.append(
                "| "
                + " | ".join(
                    _cell(x)
                    for x in (
                        _when(e.timestamp), e.tool_name, e.site, e.permission_level,
                        e.decision, e.result, params, redact(e.details),
                    )
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def export_conversation(store: ConversationStore, conversation_id: str, fmt: str) -> str:
    """The export of ``conversation_id`` in ``fmt`` (``md`` or ``json``)."""
    if fmt == "md":
        return export_markdown(store, conversation_id)
    if fmt == "json":
        return export_json(store, conversation_id)
    raise JawadError(
        f"Unknown export format {fmt!r}.", suggestions=[f"Use one of: {', '.join(EXPORT_FORMATS)}."]
    )


def write_export(store: ConversationStore, conversation_id: str, fmt: str, path: Path) -> Path:
    """Export to ``path`` atomically (a half-written file never replaces a good one)."""
    text = export_conversation(store, conversation_id, fmt)
    path = Path(path).expanduser()
    try:
        # Owner-only (the mode exports always had): a conversation stays private until the
        # user chooses to share the file.
        write_atomic(path, text)
    except OSError as exc:
        raise JawadError(
            f"Could not write the export to {path}: {exc.strerror or exc}.",
            suggestions=["Choose a folder you can write to."],
        ) from exc
    return path
