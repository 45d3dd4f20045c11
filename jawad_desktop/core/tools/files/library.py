"""The document library: folders and files the user adds, indexed locally for ``search_documents``.

Owns:

- the list of sources (folders and files) in ``library.json`` in the profile's config folder,
  written atomically (``core.store.jsonfile``);
- the index in ``library.db`` in the data folder: one row per file (its path, modification time in
  nanoseconds and size, to see changes) and one SQLite FTS5 row per page or part of it (``extract``:
  a PDF's pages, a text's parts), so a hit cites "file, page N". The index is a cache of the files
  and can be rebuilt at any time, so it lives in its own file beside ``jawad.db``: a large library
  never slows the conversations' database, and deleting it loses nothing;
- ``reindex()``: a scan that compares each file's time and size with the index, reads what is new
  or changed (in worker threads, never on the event loop), drops what is gone, and announces its
  progress as ``LibraryProgress`` events; it stops between two files when its task is cancelled,
  and what it had written stays consistent (each batch of files is one transaction);
- ``search(query, limit)``: the best pages for the query's words (all words first, then any of
  them), ranked by BM25, with a snippet.

Every SQLite call runs on the library's one database thread, so the connection is used by one
thread only and a search waits at most for one batch of the indexer's writes.

Search is by words only (FTS5): no embeddings are computed for the library, so a query finds
pages that use its words (with their stems: "invoices" finds "invoice"), not its synonyms.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.jsonfile import move_aside, write_json
from jawad_desktop.core.tools.files.extract import ExtractedFile, FileReadError, extract_file, file_kind

log = logging.getLogger("jawad.files.library")

__all__ = ["DocumentHit", "DocumentLibrary", "IndexReport", "LibraryStats"]

LIBRARY_FILE = "library.json"
INDEX_FILE = "library.db"
BATCH_FILES = 50  # files written per transaction
PROGRESS_EVERY_S = 0.2  # the most often progress is announced (the last one always is)
SNIPPET_TOKENS = 24
_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id       INTEGER PRIMARY KEY,
    path     TEXT NOT NULL UNIQUE,
    mtime_ns INTEGER NOT NULL,
    size     INTEGER NOT NULL,
    kind     TEXT NOT NULL DEFAULT '',
    parts    INTEGER NOT NULL DEFAULT 0,
    error    TEXT NOT NULL DEFAULT ''          -- why it could not be read ('' when it was)
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
    text, label UNINDEXED, doc_id UNINDEXED, tokenize = 'porter unicode61'
);
"""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class DocumentHit:
    """One page (or part) that matches: which file, where in it, and the words around the match."""

    path: str
    label: str  # "page 3", "part 2 of 5", "sheet Sales" ("" for a short file read whole)
    snippet: str
    score: float

    def citation(self) -> str:
        name = Path(self.path).name
        return f"{name}, {self.label}" if self.label else name


@dataclass(slots=True)
class IndexReport:
    """What a reindex did."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    cancelled: bool = False
    seconds: float = 0.0
    total: int = 0  # files to read (new or changed)
    done: int = 0  # of them, read

    def summary(self) -> str:
        words = [f"{self.added} added", f"{self.updated} updated", f"{self.removed} removed",
                 f"{self.unchanged} unchanged"]
        if self.failed:
            words.append(f"{len(self.failed)} could not be read")
        return ", ".join(words) + (" (stopped)" if self.cancelled else "")


@dataclass(frozen=True, slots=True)
class LibraryStats:
    sources: tuple[str, ...]
    documents: int
    chunks: int
    failed: int


class DocumentLibrary:
    """The user's document library (see the module docstring). Open with ``DocumentLibrary.open``;
    ``await aclose()`` when done."""

    def __init__(self, config_dir: Path, data_dir: Path, *, bus: ev.EventBus | None = None,
                 max_bytes: int = 50_000_000) -> None:
        self.list_file = Path(config_dir) / LIBRARY_FILE
        self.index_file = Path(data_dir) / INDEX_FILE
        self.bus = bus
        self.max_bytes = max_bytes
        self.sources: list[str] = self._load_sources()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jawad-library-db")
        self._conn: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()  # one reindex at a time
        self.last_scan = 0.0  # time.monotonic() of the last finished scan (0: none in this process)
        self.progress_every_s = PROGRESS_EVERY_S

    @classmethod
    def open(cls, config_dir: Path, data_dir: Path, *, bus: ev.EventBus | None = None,
             max_bytes: int = 50_000_000) -> DocumentLibrary:
        return cls(config_dir, data_dir, bus=bus, max_bytes=max_bytes)

    # -- the sources ----------------------------------------------------------------------------

    def _load_sources(self) -> list[str]:
        try:
            data = json.loads(self.list_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("the library list %s is unusable (%s); it is kept aside", self.list_file, exc)
            try:
                move_aside(self.list_file)
            except OSError:
                log.warning("could not move %s aside", self.list_file)
            return []
        sources = data.get("sources") if isinstance(data, dict) else None
        return [s for s in sources if isinstance(s, str)] if isinstance(sources, list) else []

    def _save_sources(self) -> None:
        try:
            write_json(self.list_file, {"sources": self.sources})
        except OSError as exc:
            raise JawadError(f"The library list could not be saved ({exc.strerror or exc}).",
                             suggestions=["Check that the profile's folder is writable."]) from None

    def add(self, path: str | Path) -> str:
        """Add a folder or a file (indexed at the next ``reindex``); returns its absolute path."""
        resolved = Path(path).expanduser().resolve()
        if not resolved.exists():
            raise JawadError(f"{path} does not exist.", suggestions=["Check the folder's or file's name."])
        if resolved.is_file() and (file_kind(resolved) in (None, "image")):
            raise FileReadError(f"{resolved.name} is of a type the library does not index.",
                                suggestions=["Add PDF, DOCX, Markdown, text, code, CSV, XLSX or HTML files, "
                                             "or a folder holding them."])
        text = str(resolved)
        if text not in self.sources:
            self.sources.append(text)
            self._save_sources()
        return text

    def remove(self, path: str | Path) -> bool:
        """Take a source out of the library (its files leave the index at the next ``reindex``)."""
        text = str(Path(path).expanduser().resolve())
        if text not in self.sources:
            return False
        self.sources.remove(text)
        self._save_sources()
        return True

    def files(self) -> Iterator[Path]:
        """Every file of the sources the library indexes (hidden files and folders skipped)."""
        seen: set[str] = set()
        for source in self.sources:
            root = Path(source)
            if root.is_file():
                candidates: Iterator[Path] = iter([root])
            elif root.is_dir():
                candidates = _walk(root)
            else:
                continue
            for path in candidates:
                key = str(path)
                if key not in seen and file_kind(path) not in (None, "image"):
                    seen.add(key)
                    yield path

    # -- the database thread --------------------------------------------------------------------

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._call, fn, args)

    def _call(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        if self._conn is None:
            self._conn = self._connect()
        try:
            return fn(self._conn, *args)
        except sqlite3.DatabaseError as exc:
            log.exception("the library index failed")
            raise JawadError(f"The document library's index could not be used ({exc}).",
                             suggestions=[f"Run a reindex; if it keeps failing, delete {self.index_file} "
                                          "(it is rebuilt from your files)."]) from None

    def _connect(self) -> sqlite3.Connection:
        self.index_file.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.index_file, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # a cache of the files: a power cut may lose the last batch
        conn.executescript(_SCHEMA)
        return conn

    # -- indexing -------------------------------------------------------------------------------

    async def reindex(self) -> IndexReport:
        """Bring the index up to date with the files (see the module docstring). Cancel its task to stop."""
        async with self._lock:
            report = IndexReport()
            started = time.monotonic()
            try:
                await self._reindex(report)
            except asyncio.CancelledError:
                report.cancelled = True
                report.seconds = time.monotonic() - started
                self._progress(report.done, report.total, finished=True, cancelled=True, summary=report.summary())
                raise
            report.seconds = time.monotonic() - started
            self.last_scan = time.monotonic()
            self._progress(report.total, report.total, finished=True, summary=report.summary())
            log.info("library reindexed in %.1f s: %s", report.seconds, report.summary())
            return report

    async def _reindex(self, report: IndexReport) -> None:
        found = await asyncio.to_thread(_stat_all, list(self.files()))
        known: dict[str, tuple[int, int, int]] = await self._db(_known_documents)
        gone = [doc_id for path, (doc_id, _, _) in known.items() if path not in found]
        if gone:
            await self._db(_delete_documents, gone)
            report.removed = len(gone)
        todo = [(path, stat) for path, stat in found.items() if known.get(path, (0, -1, -1))[1:] != stat]
        report.unchanged = len(found) - len(todo)
        total, last = len(todo), 0.0
        report.total = total
        batch: list[tuple[str, tuple[int, int], ExtractedFile | None, str]] = []
        for done, (path, stat) in enumerate(todo):
            now = time.monotonic()
            if now - last >= self.progress_every_s:
                self._progress(done, total, current=path)
                last = now
            try:
                extracted: ExtractedFile | None = await asyncio.to_thread(
                    extract_file, Path(path), max_bytes=self.max_bytes)
                error = ""
            except FileReadError as exc:
                extracted, error = None, exc.message
                report.failed.append((path, exc.message))
            batch.append((path, stat, extracted, error))
            if len(batch) >= BATCH_FILES or done + 1 == total:
                await self._db(_write_batch, batch)
                # Counted once written: a stopped scan reports what the index holds.
                report.done = done + 1
                report.updated += sum(1 for item in batch if item[0] in known)
                report.added += sum(1 for item in batch if item[0] not in known)
                batch = []

    def _progress(self, done: int, total: int, *, current: str = "", finished: bool = False,
                  cancelled: bool = False, summary: str = "") -> None:
        if self.bus is not None:
            self.bus.emit(ev.LibraryProgress(done=done, total=total, current=current, finished=finished,
                                             cancelled=cancelled, summary=summary))

    async def refresh(self, *, max_age_s: float = 60.0) -> None:
        """Reindex unless this process scanned less than ``max_age_s`` ago (a search's freshness)."""
        if self.sources and (not self.last_scan or time.monotonic() - self.last_scan > max_age_s):
            await self.reindex()

    # -- reading --------------------------------------------------------------------------------

    async def search(self, query: str, limit: int = 5) -> list[DocumentHit]:
        """The pages that best match ``query``'s words (all of them first, then any), best first."""
        words = _words(query)
        if not words:
            return []
        return await self._db(_search, words, max(1, min(limit, 50)))

    async def stats(self) -> LibraryStats:
        documents, chunks, failed = await self._db(_counts)
        return LibraryStats(tuple(self.sources), documents, chunks, failed)

    async def failures(self) -> list[tuple[str, str]]:
        return await self._db(_failures)

    async def aclose(self) -> None:
        if self._conn is not None:
            await self._db(_close)
            self._conn = None
        self._executor.shutdown(wait=True)


# -- on the database thread ---------------------------------------------------------------------


def _known_documents(conn: sqlite3.Connection) -> dict[str, tuple[int, int, int]]:
    return {path: (doc_id, mtime, size)
            for doc_id, path, mtime, size in conn.execute("SELECT id, path, mtime_ns, size FROM documents")}


def _delete_documents(conn: sqlite3.Connection, ids: list[int]) -> None:
    with _transaction(conn):
        for doc_id in ids:
            conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
            conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))


def _write_batch(conn: sqlite3.Connection,
                 batch: list[tuple[str, tuple[int, int], ExtractedFile | None, str]]) -> None:
    with _transaction(conn):
        for path, (mtime, size), extracted, error in batch:
            row = conn.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()
            parts = extracted.parts if extracted is not None else ()
            kind = extracted.kind if extracted is not None else ""
            if row is not None:
                doc_id = row[0]
                conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
                conn.execute("UPDATE documents SET mtime_ns = ?, size = ?, kind = ?, parts = ?, error = ? "
                             "WHERE id = ?", (mtime, size, kind, len(parts), error, doc_id))
            else:
                doc_id = conn.execute(
                    "INSERT INTO documents (path, mtime_ns, size, kind, parts, error) VALUES (?, ?, ?, ?, ?, ?)",
                    (path, mtime, size, kind, len(parts), error)).lastrowid
            conn.executemany("INSERT INTO chunks (text, label, doc_id) VALUES (?, ?, ?)",
                             [(part.text, part.label, doc_id) for part in parts])


def _search(conn: sqlite3.Connection, words: list[str], limit: int) -> list[DocumentHit]:
    # The snippets carry no marks around the matches: a mark inside a code or a name ("ORD-**4417**")
    # would change what the model copies.
    hits: list[DocumentHit] = []
    seen: set[int] = set()
    quoted = [f'"{w}"' for w in words]
    for match in dict.fromkeys((" AND ".join(quoted), " OR ".join(quoted))):
        rows = conn.execute(
            "SELECT chunks.rowid, documents.path, chunks.label, "
            f"snippet(chunks, 0, '', '', '…', {SNIPPET_TOKENS}), chunks.rank "
            "FROM chunks JOIN documents ON documents.id = chunks.doc_id "
            "WHERE chunks MATCH ? ORDER BY chunks.rank LIMIT ?", (match, limit)).fetchall()
        for rowid, path, label, snippet, rank in rows:
            if rowid not in seen and len(hits) < limit:
                seen.add(rowid)
                hits.append(DocumentHit(path, label, " ".join(snippet.split()), -float(rank)))
        if len(hits) >= limit:
            break
    return hits


def _counts(conn: sqlite3.Connection) -> tuple[int, int, int]:
    documents, failed = conn.execute("SELECT count(*), count(NULLIF(error, '')) FROM documents").fetchone()
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return int(documents), int(chunks), int(failed)


def _failures(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return [(p, e) for p, e in conn.execute("SELECT path, error FROM documents WHERE error != '' ORDER BY path")]


def _close(conn: sqlite3.Connection) -> None:
    conn.close()


class _transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN")
        return self.conn

    def __exit__(self, kind: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


# -- files ----------------------------------------------------------------------------------------


def _walk(root: Path) -> Iterator[Path]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith("."):
                yield Path(folder) / name


def _stat_all(paths: list[Path]) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        found[str(path)] = (stat.st_mtime_ns, stat.st_size)
    return found


def _words(query: str) -> list[str]:
    """The query's words for FTS5 (each quoted there, so no word is read as an operator)."""
    cleaned = "".join(ch if ch.isalnum() else " " for ch in query)
    return list(dict.fromkeys(w.lower() for w in cleaned.split() if w))[:20]
