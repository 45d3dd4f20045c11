"""Conversations from other assistants' data exports, into the conversation store.

- ChatGPT (Settings → Data controls → Export): ``conversations.json``, a list of conversations,
  each a tree of nodes (``mapping``: id -> {message, parent, children}); the conversation shown
  is the branch that ends at ``current_node`` (an edited message leaves other branches). A
  message has ``author.role`` and ``content`` (``parts``: text, or objects for pictures and files;
  ``text`` for code and results); ``create_time`` in seconds.
- Claude (Settings → Privacy → Export data): ``conversations.json``, a list of conversations with
  ``name``, ``created_at`` (ISO 8601) and ``chat_messages`` ({sender: human|assistant, text,
  content: [{type: text, text}...]}).

Either file may be given as is or inside the export's ``.zip``. What the user and the assistant
said is kept (their text, in order, with the original times); system and tool messages, hidden
messages and pictures are left out, and the report says how many of each. A conversation already
imported (the same source id) is not imported again.
"""

from __future__ import annotations

import json
import logging
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.messages import Message, Role
from jawad_desktop.core.store.conversations import ConversationStore

__all__ = ["ImportReport", "Source", "import_export"]

log = logging.getLogger("jawad.store.import")

Source = Literal["chatgpt", "claude"]
_MAX_BYTES = 2_000_000_000


@dataclass
class ImportReport:
    """What an import did."""

    conversations: int = 0
    messages: int = 0
    already_there: int = 0
    left_out: dict[str, int] = field(default_factory=dict)  # what was not imported, by kind

    def skip(self, kind: str) -> None:
        self.left_out[kind] = self.left_out.get(kind, 0) + 1

    def summary(self) -> str:
        text = (f"Imported {self.conversations} conversation{'s' if self.conversations != 1 else ''} "
                f"({self.messages} messages)")
        if self.already_there:
            text += f"; {self.already_there} already imported before"
        if self.left_out:
            text += "; left out: " + ", ".join(f"{n} {kind}" for kind, n in sorted(self.left_out.items()))
        return text + "."


@dataclass
class _Conversation:
    source_id: str
    title: str
    created_ms: int | None
    messages: list[tuple[Message, int | None]]


def _read(path: Path) -> Any:
    """The export's conversations.json, from the file or from inside its zip."""
    if not path.is_file():
        raise JawadError(f"{path} does not exist.", suggestions=["Give the export's conversations.json or its .zip."])
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
                if not names:
                    raise JawadError(f"{path.name} has no conversations.json.",
                                     suggestions=["Give the .zip the export's e-mail linked to, or the "
                                                  "conversations.json inside it."])
                info = archive.getinfo(names[0])
                if info.file_size > _MAX_BYTES:
                    raise JawadError(f"The conversations.json in {path.name} is too large to import.")
                return json.loads(archive.read(info).decode("utf-8"))
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, zipfile.BadZipFile) as exc:
        raise JawadError(f"{path.name} could not be read as an export: {exc}.",
                         suggestions=["Give the export's conversations.json or its .zip, unchanged."]) from None


def _ms(value: Any) -> int | None:
    """Milliseconds since the epoch from seconds (ChatGPT) or an ISO 8601 time (Claude)."""
    if isinstance(value, (int, float)) and value > 0:
        return int(value * 1000)
    if isinstance(value, str) and value:
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            return None
    return None


def _chatgpt(data: Any, report: ImportReport) -> Iterator[_Conversation]:
    if not isinstance(data, list):
        raise JawadError("This is not a ChatGPT export: its conversations.json is not a list of conversations.")
    for conv in data:
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            report.skip("damaged conversations")
            continue
        mapping: dict[str, Any] = conv["mapping"]
        node_id = conv.get("current_node")
        if node_id not in mapping:  # no pointer: the last leaf of the tree
            leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
            node_id = leaves[-1] if leaves else None
        branch: list[dict[str, Any]] = []
        seen: set[str] = set()
        while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            node = mapping[node_id]
            branch.append(node)
            node_id = node.get("parent")
        messages: list[tuple[Message, int | None]] = []
        for node in reversed(branch):
            message = node.get("message")
            if not isinstance(message, dict):
                continue
            role = str((message.get("author") or {}).get("role", ""))
            meta = message.get("metadata") or {}
            if role not in ("user", "assistant"):
                if role in ("system", "tool"):
                    report.skip(f"{role} messages")
                continue
            if meta.get("is_visually_hidden_from_conversation"):
                report.skip("hidden messages")
                continue
            content = message.get("content") or {}
            parts = content.get("parts")
            texts: list[str] = []
            if isinstance(parts, list):
                for part in parts:
                    if isinstance(part, str):
                        texts.append(part)
                    else:
                        report.skip("pictures and files")
            elif isinstance(content.get("text"), str):
                texts.append(content["text"])
            text = "\n\n".join(t for t in texts if t.strip())
            if text.strip():
                spoken: Role = "user" if role == "user" else "assistant"
                messages.append((Message(role=spoken, content=text), _ms(message.get("create_time"))))
        yield _Conversation(str(conv.get("conversation_id") or conv.get("id") or ""),
                            str(conv.get("title") or ""), _ms(conv.get("create_time")), messages)


def _claude(data: Any, report: ImportReport) -> Iterator[_Conversation]:
    if not isinstance(data, list):
        raise JawadError("This is not a Claude export: its conversations.json is not a list of conversations.")
    for conv in data:
        if not isinstance(conv, dict) or not isinstance(conv.get("chat_messages"), list):
            report.skip("damaged conversations")
            continue
        messages: list[tuple[Message, int | None]] = []
        for message in conv["chat_messages"]:
            if not isinstance(message, dict):
                continue
            sender = str(message.get("sender", ""))
            role: Role | None = "user" if sender == "human" else "assistant" if sender == "assistant" else None
            if role is None:
                continue
            blocks = message.get("content")
            if isinstance(blocks, list) and blocks:
                texts = [str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
                for block in blocks:
                    if isinstance(block, dict) and block.get("type") not in ("text", None):
                        report.skip(f"{block.get('type')} blocks")
                text = "\n\n".join(t for t in texts if t.strip())
            else:
                text = str(message.get("text") or "")
            for _ in message.get("attachments") or []:
                report.skip("attachments")
            for _ in message.get("files") or []:
                report.skip("files")
            if text.strip():
                messages.append((Message(role=role, content=text), _ms(message.get("created_at"))))
        yield _Conversation(str(conv.get("uuid") or ""), str(conv.get("name") or ""), _ms(conv.get("created_at")),
                            messages)


def import_export(store: ConversationStore, source: Source, path: Path) -> ImportReport:
    """Import every conversation of ``path`` (``source``'s export) into ``store``."""
    data = _read(path)
    report = ImportReport()
    parse = _chatgpt if source == "chatgpt" else _claude
    for conv in parse(data, report):
        if not conv.messages:
            report.skip("empty conversations")
            continue
        cid = f"{source}-{conv.source_id}" if conv.source_id else None
        if cid is not None and store.exists(cid):
            report.already_there += 1
            continue
        first = conv.created_ms or conv.messages[0][1]
        summary = store.create(conv.title, conversation_id=cid, at_ms=first)
        last = max((at for _, at in conv.messages if at is not None), default=first)
        store.append_messages(summary.id, [m for m, _ in conv.messages], at_ms=last)
        report.conversations += 1
        report.messages += len(conv.messages)
    log.info("import from %s: %s", source, report.summary())
    return report
