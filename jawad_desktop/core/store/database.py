"""The app's one SQLite database: where it lives, how it is opened, and its schema versions.

Conversations, messages, the action log and the page cache all live in ``jawad.db`` in the
data folder. The file is opened in WAL mode (readers never wait for the writer, a killed
process leaves a consistent file) with ``synchronous=FULL`` (a committed message survives
even a power cut). The schema is versioned with ``PRAGMA user_version``: ``MIGRATIONS`` is
the ordered list of steps, each applied once in its own transaction.

Adding a table (the page cache, say): append a ``Migration`` with the next version number to
``MIGRATIONS``. Never edit or reorder a migration that has shipped; write a new one.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from jawad_desktop.core.errors import JawadError

log = logging.getLogger("jawad.store")

DB_FILENAME = "jawad.db"


@dataclass(frozen=True)
class Migration:
    """One step of the schema: SQL statements (or a function) that take it to ``version``."""

    version: int
    description: str
    sql: str = ""
    apply: Callable[[sqlite3.Connection], None] | None = None


_V1_CONVERSATIONS = """
CREATE TABLE conversations (
    id              TEXT PRIMARY KEY,
    title           TEXT NOT NULL DEFAULT '',
    title_is_custom INTEGER NOT NULL DEFAULT 0,   -- renamed by the user: never auto-titled again
    created_at      INTEGER NOT NULL,             -- milliseconds since the epoch
    updated_at      INTEGER NOT NULL,
    deleted_at      INTEGER,                      -- soft delete: set until undone or purged
    message_count   INTEGER NOT NULL DEFAULT 0,
    metadata        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX conversations_by_recency ON conversations(updated_at DESC);

CREATE TABLE messages (
    id              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,             -- 0, 1, 2 ... within the conversation
    role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content         TEXT NOT NULL DEFAULT '',
    tool_calls      TEXT NOT NULL DEFAULT '[]',   -- JSON list of {id, name, arguments}
    tool_call_id    TEXT NOT NULL DEFAULT '',
    name            TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    metadata        TEXT NOT NULL DEFAULT '{}',
    UNIQUE (conversation_id, position)
);

CREATE TABLE action_log (
    id               TEXT PRIMARY KEY,            -- the ActionLogEntry id: updates replace the row
    conversation_id  TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    timestamp        INTEGER NOT NULL,
    tool_name        TEXT NOT NULL,
    parameters       TEXT NOT NULL DEFAULT '{}',  -- JSON
    site             TEXT NOT NULL DEFAULT '',
    permission_level TEXT NOT NULL DEFAULT '',
    decision         TEXT NOT NULL DEFAULT '',
    result           TEXT NOT NULL DEFAULT '',
    details          TEXT NOT NULL DEFAULT '',
    run_id           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX action_log_by_conversation ON action_log(conversation_id, timestamp);

-- Full-text search over message text; the text itself stays in `messages` (external content).
-- prefix='1 2 3': search-as-you-type on one to three letters stays under 2 ms at 100k messages.
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2',
    prefix='1 2 3'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
"""

# The schema, oldest first. Append new steps at the end with the next version number.
MIGRATIONS: list[Migration] = [
    Migration(1, "conversations, messages, action log, full-text search", sql=_V1_CONVERSATIONS),
    Migration(2, "page cache (core/store/page_cache.py)", sql="""
CREATE TABLE page_cache (
    url         TEXT PRIMARY KEY,                 -- without the #fragment
    title       TEXT NOT NULL DEFAULT '',
    markdown    TEXT NOT NULL DEFAULT '',         -- capped excerpt of the main content
    product     TEXT NOT NULL DEFAULT '',         -- JSON object, or '' when the page has none
    elements    TEXT NOT NULL DEFAULT '',         -- the indexed interactive elements, as listed
    timestamp   INTEGER NOT NULL                  -- milliseconds since the epoch
);
CREATE INDEX page_cache_by_recency ON page_cache(timestamp DESC);
"""),
    Migration(3, "research plans (core/research/plan_store.py)", sql="""
CREATE TABLE research_plans (
    id               TEXT PRIMARY KEY,            -- the WorkflowPlan id
    conversation_id  TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    intent           TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,
    plan             TEXT NOT NULL,               -- the WorkflowPlan JSON, steps and results included
    created_at       INTEGER NOT NULL,            -- milliseconds since the epoch
    updated_at       INTEGER NOT NULL
);
CREATE INDEX research_plans_by_conversation ON research_plans(conversation_id, created_at);
"""),
    Migration(4, "message embeddings for semantic search (core/store/semantic.py)", sql="""
CREATE TABLE message_embeddings (
    message_id  INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    model       TEXT NOT NULL,                    -- provider kind and embedding model, e.g. 'ollama:nomic-embed-text'
    dims        INTEGER NOT NULL,
    vector      BLOB NOT NULL,                    -- float32, little-endian, unit length
    PRIMARY KEY (message_id, model)
);
"""),
    Migration(5, "the user's memory (core/store/memory.py)", sql="""
CREATE TABLE memories (
    id          INTEGER PRIMARY KEY,
    text        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,             -- milliseconds since the epoch
    updated_at  INTEGER NOT NULL
);
CREATE VIRTUAL TABLE memories_fts USING fts5(
    text, content='memories', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memories_au AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
END;
"""),
    Migration(6, "scheduled tasks and their runs (core/tasks/task_store.py)", sql="""
CREATE TABLE tasks (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    schedule    TEXT NOT NULL,                -- JSON: core.tasks.schedule.Schedule.to_json
    wording     TEXT NOT NULL DEFAULT '',     -- the schedule as the user wrote it
    sites       TEXT NOT NULL DEFAULT '[]',   -- JSON: the scope approved when it was made
    kinds       TEXT NOT NULL DEFAULT '[]',   -- JSON: read, navigate, interact, submit, download
    enabled     INTEGER NOT NULL DEFAULT 1,
    next_at     INTEGER,                      -- ms since the epoch; NULL: never again
    created_at  INTEGER NOT NULL
);
CREATE TABLE task_runs (
    id              INTEGER PRIMARY KEY,
    task_id         INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    due_at          INTEGER NOT NULL,         -- the occurrence it ran for
    started_at      INTEGER NOT NULL,
    finished_at     INTEGER,
    outcome         TEXT NOT NULL DEFAULT 'running',  -- running, done, stopped, failed
    answer          TEXT NOT NULL DEFAULT '',
    reason          TEXT NOT NULL DEFAULT '',
    actions         TEXT NOT NULL DEFAULT '[]',       -- JSON: [{tool, site, decision, result}]
    conversation_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_runs_by_task ON task_runs(task_id, started_at DESC);
"""),
    Migration(7, "projects: conversations, memory and documents grouped (core/store/projects.py)", sql="""
CREATE TABLE projects (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE COLLATE NOCASE,
    instructions TEXT NOT NULL DEFAULT '',
    provider     TEXT NOT NULL DEFAULT '',    -- the saved provider its chats use ('' : the one in use)
    model        TEXT NOT NULL DEFAULT '',
    folders      TEXT NOT NULL DEFAULT '[]',  -- JSON: its files, a scope of the document library
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
ALTER TABLE conversations ADD COLUMN project_id TEXT;
CREATE INDEX conversations_by_project ON conversations(project_id, updated_at DESC);
ALTER TABLE memories ADD COLUMN project_id TEXT;
"""),
]


def split_statements(script: str) -> list[str]:
    """Split a SQL script into complete statements (triggers keep their inner semicolons)."""
    statements: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            text = pending.strip()
            # A piece holding only comments is complete but empty: drop it.
            if text != ";" and any(
                line.strip() and not line.strip().startswith("--") for line in text.splitlines()
            ):
                statements.append(text)
            pending = ""
    if pending.strip(" \n\t;"):
        raise ValueError(f"incomplete SQL statement: {pending.strip()[:80]!r}")
    return statements


class Database:
    """One connection to ``jawad.db``, safe to share between the GUI thread and worker threads.

    Every use goes through ``read()`` or ``transaction()``, which hold one lock: sqlite3
    connections are not safe for concurrent use, and transactions here are short.
    """

    def __init__(
        self, path: Path, *, migrations: list[Migration] | None = None, busy_timeout_ms: int = 10_000
    ) -> None:
        self.path = Path(path)
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._lock = threading.RLock()
        self._migrations = MIGRATIONS if migrations is None else migrations
        self._conn = self._connect()

    @classmethod
    def in_folder(cls, data_dir: Path) -> Database:
        """The database in the app's data folder (``ctx.paths.data``)."""
        return cls(Path(data_dir) / DB_FILENAME)

    # -- opening ---------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: no implicit transactions; ``transaction()`` says BEGIN itself.
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        except (OSError, sqlite3.Error) as exc:
            raise JawadError(
                f"Could not open the conversation database {self.path}: {exc}.",
                suggestions=["Check that the data folder exists and that you may write to it."],
            ) from exc
        try:
            conn.row_factory = sqlite3.Row
            # The CLI and the window may share the file: wait for the other writer a while.
            conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                log.warning("SQLite refused WAL mode (got %s) for %s", mode, self.path)
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            self._migrate(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise JawadError(
                f"The conversation database {self.path} could not be read: {exc}.",
                suggestions=[
                    "Another program may be holding it locked: close other Jawad windows and retry.",
                    f"If the file is damaged, move {self.path.name} out of {self.path.parent} "
                    "(your conversations stay in the moved file) and start again.",
                ],
            ) from exc
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        latest = max((m.version for m in self._migrations), default=0)
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if current > latest:
            raise JawadError(
                f"The conversation database {self.path} was written by a newer version of "
                f"Jawad Desktop (schema {current}, this version knows up to {latest}).",
                suggestions=["Update Jawad Desktop, or start it with a separate profile folder."],
            )
        for migration in sorted(self._migrations, key=lambda m: m.version):
            if migration.version <= current:
                continue
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Another process may have migrated while this one waited for the lock.
                now = int(conn.execute("PRAGMA user_version").fetchone()[0])
                if now >= migration.version:
                    conn.execute("COMMIT")
                    current = now
                    continue
                for statement in split_statements(migration.sql):
                    conn.execute(statement)
                if migration.apply is not None:
                    migration.apply(conn)
                conn.execute(f"PRAGMA user_version = {int(migration.version)}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            log.info("database %s migrated to schema %d: %s", self.path, migration.version,
                     migration.description)
            current = migration.version

    # -- use -------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        with self.read() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection, for reads (each statement sees a consistent snapshot)."""
        with self._lock:
            try:
                yield self._conn
            except sqlite3.OperationalError as exc:
                raise self._friendly(exc) from exc

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed (and on disk) when the block ends, rolled back on error."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                except BaseException:
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise self._friendly(exc) from exc

    def _friendly(self, exc: sqlite3.OperationalError) -> JawadError:
        """What a failed read or write means for the user, and what to do about it."""
        text = str(exc).lower()
        if "locked" in text or "busy" in text:
            return JawadError(
                "Another Jawad window or command is busy writing to the conversation database, "
                "so this change could not be saved yet.",
                suggestions=["Wait a moment and try again; nothing you typed was lost."],
            )
        if "full" in text:
            return JawadError(
                "The disk is full, so the conversation could not be saved.",
                suggestions=[f"Free some space on the disk holding {self.path.parent}, then try again."],
            )
        if "readonly" in text or "read-only" in text:
            return JawadError(
                f"The conversation database {self.path} is read-only, so nothing can be saved.",
                suggestions=["Check the file's permissions, or start Jawad with a profile in a writable folder."],
            )
        return JawadError(
            f"The conversation database failed: {exc}.",
            suggestions=["Try again; if it keeps failing, the details are in the log file."],
        )

    def integrity_check(self) -> str:
        """``ok``, or SQLite's description of what is damaged."""
        with self.read() as conn:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(str(row[0]) for row in rows)

    def close(self) -> None:
        with self._lock:
            try:
                # Fold the WAL back into the main file so a copied .db is complete on its own.
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                log.debug("checkpoint on close failed", exc_info=True)
            self._conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
