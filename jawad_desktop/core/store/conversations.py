"""Conversations that last: the store of conversations, their messages and their action log.

Owns everything about saved conversations: creating them, appending each message the
moment it is complete (one short transaction each, so a crash loses at most the message
still streaming), titles from the first exchange (until the user renames), newest-first
listing, full-text search with highlighted snippets, paging through long conversations by
position, truncating for regenerate/edit-and-resend, and delete with undo (a soft delete
that ``restore`` reverses and ``purge_deleted`` makes final).

The API is synchronous sqlite3 with short transactions. Calls that may take longer on big
histories (search, listing, reading a range) have ``*_async`` twins that run on the store's
worker thread, so a window on an asyncio loop never waits on the disk.

Every change is announced on the app's ``EventBus`` as ``ConversationsChanged(kind, id)``
when the store was opened with one; whoever shows conversations subscribes there.

The shapes it returns and their rows are in ``core.store.conversation_records``, the search in
``core.store.conversation_search``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import (
    ActionLogEntry,
    ConversationsChanged,
    ConversationsChangeKind,
    EventBus,
)
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store import conversation_records as records
from jawad_desktop.core.store.conversation_records import ConversationMatch, ConversationSummary
from jawad_desktop.core.store.conversation_records import highlight_html as highlight_html  # the window's, from here
from jawad_desktop.core.store.conversation_search import search_conversations, search_messages
from jawad_desktop.core.store.database import Database

log = logging.getLogger("jawad.store")

T = TypeVar("T")


# How long a deleted conversation stays restorable when nobody purges it explicitly.
DEFAULT_UNDO_WINDOW_MS = 10 * 60 * 1000


def now_ms() -> int:
    return int(time.time() * 1000)


def new_conversation_id() -> str:
    return uuid.uuid4().hex


class ConversationStore:
    """Saved conversations in the app's database. Thread-safe; every write is one transaction."""

    def __init__(self, db: Database, *, owns_db: bool = False, bus: EventBus | None = None) -> None:
        """A store on ``db``; with ``owns_db`` its ``close()`` closes the database too (share one
        ``Database`` between this store and the page cache by leaving it False). Changes are
        announced on ``bus`` (none: nobody is told, as in the CLI's read-only commands)."""
        self.db = db
        self.bus = bus
        self._owns_db = owns_db
        self._executor: ThreadPoolExecutor | None = None
        self._executor_lock = threading.Lock()
        # Set on the worker thread while an *_async call runs: its announcements wait there.
        self._worker_state = threading.local()

    @classmethod
    def open(
        cls,
        data_dir: Path,
        *,
        purge_older_than_ms: int = DEFAULT_UNDO_WINDOW_MS,
        bus: EventBus | None = None,
    ) -> ConversationStore:
        """Open (creating or migrating) the store in ``data_dir`` and finish old deletions;
        changes are announced on ``bus``."""
        store = cls(Database.in_folder(data_dir), owns_db=True, bus=bus)
        store.purge_deleted(older_than_ms=purge_older_than_ms)
        return store

    def close(self) -> None:
        with self._executor_lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
                self._executor = None
        if self._owns_db:
            self.db.close()

    def __enter__(self) -> ConversationStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- change announcements ------------------------------------------------------------------

    def _changed(self, kind: ConversationsChangeKind, conversation_id: str) -> None:
        """Announce a committed change: at once on the calling thread, or, inside an ``*_async``
        call, on the loop's thread when the worker is done (the bus promises the loop's thread)."""
        if self.bus is None:
            return
        event = ConversationsChanged(kind=kind, conversation_id=conversation_id)
        held: list[ConversationsChanged] | None = getattr(self._worker_state, "held", None)
        if held is not None:
            held.append(event)
        else:
            self.bus.emit(event)

    def _announce(self, events: list[ConversationsChanged]) -> None:
        if self.bus is not None:
            for event in events:
                self.bus.emit(event)

    # -- conversations -------------------------------------------------------------------------

    def create(self, title: str = "", *, conversation_id: str | None = None,
               at_ms: int | None = None, project_id: str | None = None) -> ConversationSummary:
        """A new, empty conversation (titled later from its first exchange unless ``title``);
        ``at_ms``: when it was started (an import keeps the original time), else now;
        ``project_id``: the project it starts in."""
        cid = conversation_id or new_conversation_id()
        ts = now_ms() if at_ms is None else int(at_ms)
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO conversations (id, title, title_is_custom, created_at, updated_at, project_id) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (cid, title.strip(), 1 if title.strip() else 0, ts, ts, project_id),
            )
        self._changed("created", cid)
        return ConversationSummary(cid, title.strip(), ts, ts, 0, bool(title.strip()), project_id=project_id)

    def move_to_project(self, conversation_id: str, project_id: str | None) -> None:
        """Put a conversation in a project (None: in no project)."""
        with self.db.transaction() as conn:
            if conn.execute("UPDATE conversations SET project_id = ? WHERE id = ?",
                            (project_id, conversation_id)).rowcount == 0:
                raise JawadError(f"There is no conversation {conversation_id}.")
        self._changed("updated", conversation_id)

    def exists(self, conversation_id: str) -> bool:
        """Whether a conversation with this id is saved (deleted ones included)."""
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone() is not None

    def get(self, conversation_id: str, *, include_deleted: bool = False) -> ConversationSummary:
        """The conversation, or a JawadError saying it does not exist."""
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {records.SUMMARY_COLUMNS} FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        if row is None or (row["deleted_at"] is not None and not include_deleted):
            raise JawadError(
                f"There is no conversation {conversation_id!r}.",
                suggestions=["It may have been deleted: choose one from the saved conversations."],
            )
        return records.summary_from_row(row)

    def resolve_id(self, prefix: str) -> str:
        """The full id of the one live conversation whose id starts with ``prefix``.

        Only the command line takes id prefixes (the window picks from its list), so its
        errors may name ``jawad history list``."""
        prefix = prefix.strip().lower()
        if not prefix or not re.fullmatch(r"[0-9a-z_\-]+", prefix):
            raise JawadError(
                f"{prefix!r} is not a conversation id.",
                suggestions=["Run 'jawad history list' to see the ids."],
            )
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id FROM conversations WHERE deleted_at IS NULL AND id >= ? AND id < ? LIMIT 3",
                (prefix, prefix + "\U0010ffff"),
            ).fetchall()
        if not rows:
            raise JawadError(
                f"No saved conversation has an id starting with {prefix!r}.",
                suggestions=["Run 'jawad history list' to see the ids."],
            )
        if len(rows) > 1:
            raise JawadError(
                f"More than one conversation has an id starting with {prefix!r}.",
                suggestions=["Type more characters of the id."],
            )
        return str(rows[0]["id"])

    def list_conversations(self, *, limit: int = 500, offset: int = 0,
                           project_id: str | None = None) -> list[ConversationSummary]:
        """Live conversations, most recently active first; with ``project_id``, only that
        project's ("": only those in no project)."""
        where, args = "", tuple[str, ...]()
        if project_id == "":
            where = " AND project_id IS NULL"
        elif project_id is not None:
            where, args = " AND project_id = ?", (project_id,)
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {records.SUMMARY_COLUMNS} FROM conversations WHERE deleted_at IS NULL{where} "
                "ORDER BY updated_at DESC, rowid DESC LIMIT ? OFFSET ?",
                (*args, limit, offset),
            ).fetchall()
        return [records.summary_from_row(r) for r in rows]

    def rename(self, conversation_id: str, title: str) -> None:
        """Set the title the user chose; an empty title goes back to the automatic one."""
        title = " ".join(title.split())
        with self.db.transaction() as conn:
            if title:
                cur = conn.execute(
                    "UPDATE conversations SET title = ?, title_is_custom = 1 WHERE id = ?",
                    (title, conversation_id),
                )
            else:
                first = conn.execute(
                    "SELECT content FROM messages WHERE conversation_id = ? AND role = 'user' "
                    "ORDER BY position LIMIT 1",
                    (conversation_id,),
                ).fetchone()
                cur = conn.execute(
                    "UPDATE conversations SET title = ?, title_is_custom = 0 WHERE id = ?",
                    (records.title_from_text(first["content"]) if first else "", conversation_id),
                )
        if cur.rowcount == 0:
            raise JawadError(f"There is no conversation {conversation_id!r} to rename.")
        self._changed("renamed", conversation_id)

    def delete(self, conversation_id: str) -> None:
        """Hide the conversation; ``restore`` brings it back until ``purge_deleted`` runs."""
        with self.db.transaction() as conn:
            cur = conn.execute(
                "UPDATE conversations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                (now_ms(), conversation_id),
            )
        if cur.rowcount:
            self._changed("deleted", conversation_id)

    def restore(self, conversation_id: str) -> bool:
        """Undo ``delete``; False when it was already purged (or never deleted)."""
        with self.db.transaction() as conn:
            cur = conn.execute(
                "UPDATE conversations SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL",
                (conversation_id,),
            )
        if cur.rowcount:
            self._changed("restored", conversation_id)
        return bool(cur.rowcount)

    def purge_deleted(self, conversation_id: str | None = None, *, older_than_ms: int = 0) -> int:
        """Erase deleted conversations for good (one, or all deleted ``older_than_ms`` ago)."""
        with self.db.transaction() as conn:
            if conversation_id is not None:
                rows = conn.execute(
                    "SELECT id FROM conversations WHERE id = ? AND deleted_at IS NOT NULL",
                    (conversation_id,),
                ).fetchall()
            else:
                rows = conn.execute(
                    "SELECT id FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at <= ?",
                    (now_ms() - older_than_ms,),
                ).fetchall()
            ids = [str(r["id"]) for r in rows]
            for cid in ids:
                # ON DELETE CASCADE removes messages (and their search entries) and the action log.
                conn.execute("DELETE FROM conversations WHERE id = ?", (cid,))
        for cid in ids:
            self._changed("purged", cid)
        return len(ids)

    # -- messages ------------------------------------------------------------------------------

    def append_message(
        self,
        conversation_id: str,
        message: Message,
        *,
        metadata: dict[str, Any] | None = None,
    ) -> records.StoredMessage:
        """Save a completed message at the end of the conversation, durably, and return it.

        The first user message titles the conversation (unless the user named it); if the
        conversation still has no title, the first assistant answer does."""
        ts = now_ms()
        meta = json.dumps(metadata or {}, ensure_ascii=False)
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT title, title_is_custom, message_count FROM conversations "
                "WHERE id = ? AND deleted_at IS NULL",
                (conversation_id,),
            ).fetchone()
            if row is None:
                raise JawadError(
                    f"The conversation {conversation_id!r} no longer exists, so the message was not saved.",
                    suggestions=["Start a new chat; the text is still in the input box."],
                )
            position = int(
                conn.execute(
                    "SELECT COALESCE(MAX(position) + 1, 0) FROM messages WHERE conversation_id = ?",
                    (conversation_id,),
                ).fetchone()[0]
            )
            conn.execute(
                f"INSERT INTO messages ({records.MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    position,
                    message.role,
                    message.content or "",
                    records.tool_calls_json(message.tool_calls),
                    message.tool_call_id,
                    message.name,
                    ts,
                    meta,
                ),
            )
            title = row["title"]
            if not row["title_is_custom"] and not title and message.role in ("user", "assistant"):
                title = records.title_from_text(message.content or "")
            conn.execute(
                "UPDATE conversations SET updated_at = ?, message_count = ?, title = ? WHERE id = ?",
                (ts, position + 1, title, conversation_id),
            )
        self._changed("updated", conversation_id)
        return records.StoredMessage(conversation_id, position, message, ts, dict(metadata or {}))

    def append_messages(self, conversation_id: str, messages: Iterable[Message], *,
                        at_ms: int | None = None) -> int:
        """Save many messages in one transaction (imports, benchmarks); returns how many.
        ``at_ms``: when they were written (an import keeps the original time), else now."""
        count = 0
        ts = now_ms() if at_ms is None else int(at_ms)
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT title, title_is_custom FROM conversations WHERE id = ? AND deleted_at IS NULL",
                (conversation_id,),
            ).fetchone()
            if row is None:
                raise JawadError(f"The conversation {conversation_id!r} no longer exists.")
            start = int(
                conn.execute(
                    "SELECT COALESCE(MAX(position) + 1, 0) FROM messages WHERE conversation_id = ?",
                    (conversation_id,),
                ).fetchone()[0]
            )
            title = row["title"]
            rows = []
            for i, message in enumerate(messages):
                if not row["title_is_custom"] and not title and message.role in ("user", "assistant"):
                    title = records.title_from_text(message.content or "")
                rows.append(
                    (conversation_id, start + i, message.role, message.content or "",
                     records.tool_calls_json(message.tool_calls), message.tool_call_id, message.name, ts, "{}")
                )
                count += 1
            conn.executemany(
                f"INSERT INTO messages ({records.MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
            )
            conn.execute(
                "UPDATE conversations SET updated_at = ?, message_count = ?, title = ? WHERE id = ?",
                (ts, start + count, title, conversation_id),
            )
        self._changed("updated", conversation_id)
        return count

    def count_messages(self, conversation_id: str) -> int:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM messages WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
        return int(row[0])

    def messages(self, conversation_id: str, start: int = 0, stop: int | None = None) -> list[records.StoredMessage]:
        """Messages at positions ``start`` (inclusive) to ``stop`` (exclusive), in order."""
        end = stop if stop is not None else 2**62
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {records.MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? "
                "AND position >= ? AND position < ? ORDER BY position",
                (conversation_id, max(0, start), end),
            ).fetchall()
        return [records.stored_from_row(r) for r in rows]

    def history(self, conversation_id: str) -> list[Message]:
        """The whole conversation as ``Message`` objects, ready for the agent to continue it."""
        return [m.message for m in self.messages(conversation_id)]

    def usage_totals(self, conversation_id: str) -> records.UsageTotals:
        """Tokens and cost of the conversation's answers, summed in SQL over their saved usage.

        Reads only this conversation's rows (its index) and parses only messages with metadata:
        about a millisecond for a conversation of thousands of messages."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT COUNT(u) AS turns, "
                "COALESCE(SUM(json_extract(u, '$.input_tokens')), 0) AS input_tokens, "
                "COALESCE(SUM(json_extract(u, '$.output_tokens')), 0) AS output_tokens, "
                "COALESCE(SUM(CASE WHEN json_extract(u, '$.cost_known') THEN json_extract(u, '$.cost_usd') END), 0)"
                " AS cost_usd, "
                "COALESCE(SUM(CASE WHEN json_extract(u, '$.cost_known') THEN 0 ELSE 1 END), 0) AS unknown "
                "FROM (SELECT json_extract(metadata, '$.usage') AS u FROM messages "
                "      WHERE conversation_id = ? AND metadata <> '{}' AND json_valid(metadata)) WHERE u IS NOT NULL",
                (conversation_id,),
            ).fetchone()
        return records.UsageTotals(int(row["turns"]), int(row["input_tokens"]), int(row["output_tokens"]),
                                   float(row["cost_usd"]), int(row["unknown"]))

    def truncate(self, conversation_id: str, from_position: int) -> int:
        """Remove messages at ``from_position`` and after (regenerate, edit and resend)."""
        with self.db.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND position >= ?",
                (conversation_id, from_position),
            )
            conn.execute(
                "UPDATE conversations SET updated_at = ?, message_count = "
                "(SELECT COUNT(*) FROM messages WHERE conversation_id = ?) WHERE id = ?",
                (now_ms(), conversation_id, conversation_id),
            )
        if cur.rowcount:
            self._changed("updated", conversation_id)
        return int(cur.rowcount)

    # -- action log ------------------------------------------------------------------------------

    def record_action(self, conversation_id: str, entry: ActionLogEntry) -> None:
        """Save an action-log entry; a later entry with the same id (pending → success) replaces it."""
        try:
            self._record_action(conversation_id, entry)
        except sqlite3.IntegrityError as exc:  # the conversation is gone (foreign key)
            raise JawadError(
                f"The conversation {conversation_id!r} no longer exists, so its action log was not saved."
            ) from exc

    def _record_action(self, conversation_id: str, entry: ActionLogEntry) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO action_log (id, conversation_id, timestamp, tool_name, parameters, site, "
                "permission_level, decision, result, details, run_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET timestamp = excluded.timestamp, "
                "parameters = excluded.parameters, site = excluded.site, "
                "permission_level = excluded.permission_level, decision = excluded.decision, "
                "result = excluded.result, details = excluded.details, run_id = excluded.run_id",
                (
                    entry.id, conversation_id, entry.timestamp, entry.tool_name,
                    json.dumps(entry.parameters, ensure_ascii=False, default=str), entry.site,
                    entry.permission_level, entry.decision, entry.result, entry.details, entry.run_id,
                ),
            )

    def action_log(self, conversation_id: str) -> list[ActionLogEntry]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM action_log WHERE conversation_id = ? ORDER BY timestamp, rowid",
                (conversation_id,),
            ).fetchall()
        return [records.action_from_row(r) for r in rows]

    # -- search ----------------------------------------------------------------------------------


    def search(self, query: str, *, limit: int = 50) -> list[records.SearchHit]:
        """Messages matching every word of ``query`` (the last as a prefix), newest first."""
        return search_messages(self.db, query, limit=limit)

    def search_conversations(self, query: str, *, limit: int = 50) -> list[ConversationMatch]:
        """Conversations whose title or messages match, each with its best snippet, newest first."""
        return search_conversations(self.db, query, limit=limit)

    # -- async twins for the window ------------------------------------------------------------------
    # They run on the store's own worker thread rather than the loop's default executor: the
    # store shuts its thread down in close(), and qasync's default executor is a QThread pool
    # that outlives the loop.

    async def _in_worker(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        with self._executor_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jawad-store")
            executor = self._executor
        return await loop.run_in_executor(
            executor, functools.partial(self._run_on_worker, loop, functools.partial(fn, *args, **kwargs))
        )

    def _run_on_worker(self, loop: asyncio.AbstractEventLoop, call: Callable[[], T], /) -> T:
        """Run ``call`` on the worker thread and post the changes it made to the loop's thread.

        Posted from here rather than announced after the ``await``: a change committed while
        the awaiting task was being cancelled is still announced."""
        held: list[ConversationsChanged] = []
        self._worker_state.held = held
        try:
            return call()
        finally:
            self._worker_state.held = None
            if held:
                try:
                    loop.call_soon_threadsafe(self._announce, held)
                except RuntimeError:  # the loop is closed: the app is quitting, nobody listens
                    log.debug("%d conversation change(s) not announced: the loop is closed", len(held))

    async def usage_totals_async(self, conversation_id: str) -> records.UsageTotals:
        return await self._in_worker(self.usage_totals, conversation_id)

    async def search_async(self, query: str, *, limit: int = 50) -> list[records.SearchHit]:
        return await self._in_worker(self.search, query, limit=limit)

    async def search_conversations_async(self, query: str, *, limit: int = 50) -> list[ConversationMatch]:
        return await self._in_worker(self.search_conversations, query, limit=limit)

    async def list_conversations_async(
        self, *, limit: int = 500, offset: int = 0
    ) -> list[ConversationSummary]:
        return await self._in_worker(self.list_conversations, limit=limit, offset=offset)

    async def messages_async(
        self, conversation_id: str, start: int = 0, stop: int | None = None
    ) -> list[records.StoredMessage]:
        return await self._in_worker(self.messages, conversation_id, start, stop)

    async def append_message_async(
        self, conversation_id: str, message: Message, *, metadata: dict[str, Any] | None = None
    ) -> records.StoredMessage:
        return await self._in_worker(self.append_message, conversation_id, message, metadata=metadata)
