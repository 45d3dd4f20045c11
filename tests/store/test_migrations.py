"""Schema versions: a fresh file, an upgrade that keeps the data, a failed step, a newer file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.database import DB_FILENAME, MIGRATIONS, Database, Migration, split_statements

_PAGE_CACHE = Migration(
    len(MIGRATIONS) + 1,
    "a page-cache table, as the browser engineer adds one",
    sql="""
    CREATE TABLE page_cache_test (url TEXT PRIMARY KEY, body TEXT NOT NULL); -- a comment; with semicolons
    CREATE TRIGGER page_cache_test_trim AFTER INSERT ON page_cache_test BEGIN
        DELETE FROM page_cache_test WHERE url = 'evict-me';
        SELECT 1;
    END;
    """,
)


def test_a_fresh_database_is_at_the_latest_version_in_wal_mode(tmp_path: Path) -> None:
    with Database.in_folder(tmp_path) as db:
        assert db.schema_version == max(m.version for m in MIGRATIONS)
        with db.read() as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"conversations", "messages", "action_log", "messages_fts"} <= tables
        assert db.integrity_check() == "ok"
    assert (tmp_path / DB_FILENAME).exists()


def test_an_appended_migration_upgrades_and_keeps_the_data(tmp_path: Path) -> None:
    with ConversationStore.open(tmp_path) as store:
        cid = store.create().id
        store.append_message(cid, Message("user", "kept across the upgrade"))
    with Database(tmp_path / DB_FILENAME, migrations=[*MIGRATIONS, _PAGE_CACHE]) as db:
        assert db.schema_version == _PAGE_CACHE.version
        with db.transaction() as conn:
            conn.execute("INSERT INTO page_cache_test VALUES ('evict-me', 'x')")
            conn.execute("INSERT INTO page_cache_test VALUES ('https://a.test', 'y')")
        with db.read() as conn:
            assert [r[0] for r in conn.execute("SELECT url FROM page_cache_test")] == ["https://a.test"]
        store = ConversationStore(db)
        assert store.history(cid) == [Message("user", "kept across the upgrade")]
    # Opening again applies nothing twice.
    with Database(tmp_path / DB_FILENAME, migrations=[*MIGRATIONS, _PAGE_CACHE]) as db:
        assert db.schema_version == _PAGE_CACHE.version


def test_a_failing_step_rolls_back_completely(tmp_path: Path) -> None:
    with ConversationStore.open(tmp_path) as store:
        cid = store.create("safe").id
    broken = Migration(len(MIGRATIONS) + 1, "half good, half broken",
                       sql="CREATE TABLE half_done (x); INSERT INTO no_such_table VALUES (1);")
    with pytest.raises(JawadError) as info:
        Database(tmp_path / DB_FILENAME, migrations=[*MIGRATIONS, broken])
    assert "no_such_table" in info.value.message and info.value.suggestions
    with Database.in_folder(tmp_path) as db:
        assert db.schema_version == len(MIGRATIONS)
        with db.read() as conn:
            assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
        assert ConversationStore(db).get(cid).title == "safe"


def test_a_migration_function_runs_in_the_same_transaction(tmp_path: Path) -> None:
    def backfill(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE conversations SET metadata = '{\"migrated\": true}'")

    with ConversationStore.open(tmp_path) as store:
        store.create("x")
    step = Migration(len(MIGRATIONS) + 1, "backfill", apply=backfill)
    with Database(tmp_path / DB_FILENAME, migrations=[*MIGRATIONS, step]) as db, db.read() as conn:
        assert conn.execute("SELECT metadata FROM conversations").fetchone()[0] == '{"migrated": true}'


def test_a_file_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    with Database.in_folder(tmp_path) as db, db.transaction() as conn:
        conn.execute("PRAGMA user_version = 999")
    with pytest.raises(JawadError, match="newer version") as info:
        Database.in_folder(tmp_path)
    assert any("Update" in s for s in info.value.suggestions)
    conn = sqlite3.connect(tmp_path / DB_FILENAME)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 999
    conn.close()


def test_a_damaged_file_gives_a_friendly_error_and_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / DB_FILENAME
    garbage = b"this is not a database" * 100
    path.write_bytes(garbage)
    with pytest.raises(JawadError) as info:
        Database.in_folder(tmp_path)
    assert "could not be read" in info.value.message
    assert any("move" in s for s in info.value.suggestions)
    assert path.read_bytes() == garbage


def test_split_statements_keeps_trigger_bodies_whole() -> None:
    statements = split_statements(_PAGE_CACHE.sql)
    assert len(statements) == 2
    assert "CREATE TRIGGER" in statements[1] and statements[1].rstrip().endswith("END;")
    assert "SELECT 1;" in statements[1]  # the inner semicolons stay inside the trigger
    with pytest.raises(ValueError):
        split_statements("CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1;")
