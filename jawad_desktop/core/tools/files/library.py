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
- ``update_paths(paths)``: the same for a few files the watcher saw change (``watch``): each is
  read again, or dropped when it is gone or no longer in a source;
- embeddings, when ``embedder`` gives one (the default provider has an embeddings API): after each
  scan, a background task gives every page without a vector one (``vectors`` table, computed in
  batches; the FTS index never waits for it). Vectors of different models are never compared
  (each is stored under the embedder's ``key``). A provider that fails is not asked again in this
  process; search then stays by words;
- ``search(query, limit)``: the best pages for the query's words (all words first, then any of
  them), ranked by BM25, with a snippet; with embeddings, merged with the pages nearest in meaning
  (cosine similarity) by reciprocal rank fusion, so a query in other words than the page's still
  finds it.

The index's schema, its records (``DocumentHit``, ``SourceCounts``) and the statements run on it
are in ``library_index``. Every SQLite call runs on the library's one database thread, so the
connection is used by one thread only and a search waits at most for one batch of the indexer's
writes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.jsonfile import move_aside, write_json
from jawad_desktop.core.store.paths import LIBRARY_FILE
from jawad_desktop.core.tools.files import library_index as index
from jawad_desktop.core.tools.files.extract import ExtractedFile, FileReadError, extract_file, file_kind
from jawad_desktop.core.tools.files.library_index import DocumentHit, SourceCounts

if TYPE_CHECKING:  # numpy (20 MB) is imported by the first search by meaning, not with the app
    import numpy as np

log = logging.getLogger("jawad.files.library")

__all__ = ["DocumentHit", "DocumentLibrary", "Embedder", "IndexReport", "LibraryStats", "SourceCounts"]

INDEX_FILE = "library.db"
BATCH_FILES = 50  # files written per transaction
PROGRESS_EVERY_S = 0.2  # the most often progress is announced (the last one always is)
EMBED_BATCH = 32  # pages per embeddings request
EMBED_CHARS = 8_000  # embedding models take a few thousand tokens; a page's start says enough
QUERY_EMBED_TIMEOUT_S = 10.0  # a search waits this long for the query's vector, then goes by words

T = TypeVar("T")


class _Vectors(Protocol):
    vectors: list[list[float]]


class Embedder(Protocol):
    """What the library needs of ``core.llm.embeddings.Embedder``."""

    @property
    def key(self) -> str: ...

    async def embed_batch(self, texts: list[str]) -> _Vectors: ...


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
        # Reading the files (stat, text extraction) has its own thread: the app's shared pool may be
        # busy with long work (a model download) and the index must not wait behind it.
        self._files = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jawad-library-files")
        self._conn: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()  # one reindex at a time
        self.last_scan = 0.0  # time.monotonic() of the last finished scan (0: none in this process)
        self.progress_every_s = PROGRESS_EVERY_S
        # Embeddings: ``embedder()`` gives the default provider's embedder, or None (no embeddings).
        self.embedder: Callable[[], Embedder | None] | None = None
        self.embed_batch = EMBED_BATCH
        self._embed_failed: set[str] = set()  # embedder keys that failed in this process
        self._embed_task: asyncio.Task[int] | None = None
        self._embed_again = False
        self._matrix: tuple[str, int, np.ndarray, np.ndarray] | None = None  # key, version, ids, vectors
        self._version = 0  # bumped at every write of vectors or removal of pages (the matrix is stale)

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
        if not os.access(resolved, os.R_OK | (os.X_OK if resolved.is_dir() else 0)):
            raise JawadError(f"{resolved} cannot be read: permission denied.",
                             suggestions=["Choose a folder or file your user account may read."])
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

    def covers(self, path: Path) -> bool:
        """Whether ``path`` is a file the library indexes: in a source, not hidden below it, of a
        kind it reads (whether it exists is not looked at)."""
        if file_kind(path) in (None, "image"):
            return False
        for source in self.sources:
            root = Path(source)
            if path == root:
                return True
            try:
                inside = path.relative_to(root)
            except ValueError:
                continue
            if not any(part.startswith(".") for part in inside.parts):
                return True
        return False

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
        conn.executescript(index.SCHEMA)
        return conn

    # -- indexing -------------------------------------------------------------------------------

    async def _on_files_thread(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._files, fn)

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
            self._embed_later()
            return report

    async def _reindex(self, report: IndexReport) -> None:
        found = await self._on_files_thread(lambda: _stat_all(list(self.files())))
        known: dict[str, tuple[int, int, int]] = await self._db(index.known_documents)
        gone = [doc_id for path, (doc_id, _, _) in known.items() if path not in found]
        if gone:
            await self._db(index.delete_documents, gone)
            self._version += 1
            report.removed = len(gone)
        todo = [(path, stat) for path, stat in found.items() if known.get(path, (0, -1, -1))[1:] != stat]
        report.unchanged = len(found) - len(todo)
        await self._index(todo, known, report)

    async def update_paths(self, paths: Iterable[str | Path]) -> IndexReport:
        """Bring these paths up to date (the watcher saw them change): each file read again when it
        changed, dropped when it is gone or no longer in a source; a gone folder drops its files."""
        async with self._lock:
            report = IndexReport()
            started = time.monotonic()
            wanted = {str(Path(p)) for p in paths}
            known: dict[str, tuple[int, int, int]] = await self._db(index.known_documents)

            def look() -> dict[str, tuple[int, int]]:
                # A folder that appeared: its files (made before the watch of it began, they have no event).
                files = [file for p in map(Path, wanted) for file in (_walk(p) if p.is_dir() else [p])]
                return _stat_all([f for f in files if self.covers(f) and f.is_file()])

            present = await self._on_files_thread(look)
            prefixes = tuple(p.rstrip(os.sep) + os.sep for p in wanted if p not in present)
            gone = [doc_id for path, (doc_id, _, _) in known.items()
                    if path not in present and (path in wanted or path.startswith(prefixes))]
            if gone:
                await self._db(index.delete_documents, gone)
                self._version += 1
                report.removed = len(gone)
            todo = [(path, stat) for path, stat in present.items() if known.get(path, (0, -1, -1))[1:] != stat]
            report.unchanged = len(present) - len(todo)
            await self._index(todo, known, report)
            report.seconds = time.monotonic() - started
            if gone or todo:
                self._progress(report.total, report.total, finished=True, summary=report.summary())
                log.info("library updated in %.2f s: %s", report.seconds, report.summary())
                self._embed_later()
            return report

    async def _index(self, todo: list[tuple[str, tuple[int, int]]], known: dict[str, tuple[int, int, int]],
                     report: IndexReport) -> None:
        """Read the files of ``todo`` and write them to the index, in batches."""
        total, last = len(todo), 0.0
        report.total = total
        batch: list[tuple[str, tuple[int, int], ExtractedFile | None, str]] = []
        for done, (path, stat) in enumerate(todo):
            now = time.monotonic()
            if now - last >= self.progress_every_s:
                self._progress(done, total, current=path)
                last = now
            try:
                extracted: ExtractedFile | None = await self._on_files_thread(
                    functools.partial(extract_file, Path(path), max_bytes=self.max_bytes))
                error = ""
            except FileReadError as exc:
                extracted, error = None, exc.message
                report.failed.append((path, exc.message))
            batch.append((path, stat, extracted, error))
            if len(batch) >= BATCH_FILES or done + 1 == total:
                await self._db(index.write_batch, batch)
                self._version += 1
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

    # -- embeddings -----------------------------------------------------------------------------

    def _embedder_now(self) -> Embedder | None:
        if self.embedder is None:
            return None
        try:
            embedder = self.embedder()
        except JawadError as exc:  # no embedding model set, say
            log.debug("no embeddings for the library: %s", exc.message)
            return None
        return embedder if embedder is not None and embedder.key not in self._embed_failed else None

    def _embed_later(self) -> None:
        """Start (or mark for one more round) the background embedding of the pages without a vector."""
        if self._embedder_now() is None:
            return
        if self._embed_task is not None and not self._embed_task.done():
            self._embed_again = True
            return
        self._embed_task = asyncio.get_running_loop().create_task(self._embed_rounds(), name="jawad-library-embed")

    async def _embed_rounds(self) -> int:
        added = 0
        while True:
            self._embed_again = False
            added += await self.embed_pending()
            if not self._embed_again:
                return added

    async def wait_embedded(self) -> None:
        """Wait for the background embedding to finish (tests, ``jawad docs``)."""
        while self._embed_task is not None and not self._embed_task.done():
            await asyncio.wait({self._embed_task})

    async def embed_pending(self) -> int:
        """Give every page without a vector under the embedder's key one; returns how many. A
        failure is logged and the embedder is not asked again (search goes by words)."""
        embedder = self._embedder_now()
        if embedder is None:
            return 0
        key, added = embedder.key, 0
        while True:
            pending: list[tuple[int, int, str]] = await self._db(index.unembedded, key, self.embed_batch)
            if not pending:
                break
            try:
                result = await embedder.embed_batch([text[:EMBED_CHARS] for _, _, text in pending])
            except JawadError as exc:
                log.warning("the library's pages could not be embedded (%s); search goes by words", exc.message)
                self._embed_failed.add(key)
                break
            if len(result.vectors) != len(pending):
                self._embed_failed.add(key)
                break
            await self._db(index.save_vectors, key, [(chunk, doc, vector) for (chunk, doc, _), vector
                                                in zip(pending, result.vectors, strict=True)])
            self._version += 1
            added += len(pending)
        if added:
            log.info("library: %d pages embedded with %s", added, key)
        return added

    def _nearest(self, conn: sqlite3.Connection, key: str, version: int, query: list[float],
                 limit: int) -> list[tuple[int, float]]:
        """The pages (chunk row, cosine) nearest to ``query`` under ``key`` (on the database thread;
        the vectors are kept in memory until the index changes)."""
        import numpy as np

        target = index.unit_vector(query)
        if self._matrix is None or self._matrix[:2] != (key, version):
            rows = conn.execute("SELECT chunk_id, vector FROM vectors WHERE model = ?", (key,)).fetchall()
            rows = [r for r in rows if len(r[1]) == 4 * len(target)]
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            matrix = (np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), len(target))
                      if rows else np.zeros((0, len(target)), dtype="<f4"))
            self._matrix = (key, version, ids, matrix)
        _, _, ids, matrix = self._matrix
        if matrix.shape[0] == 0 or matrix.shape[1] != len(target):
            return []
        scores = matrix @ target
        count = min(limit, len(scores))
        best = np.argpartition(-scores, count - 1)[:count]
        best = best[np.argsort(-scores[best])]
        return [(int(ids[i]), float(scores[i])) for i in best]

    async def _by_meaning(self, query: str, limit: int) -> list[DocumentHit]:
        embedder = self._embedder_now()
        if embedder is None:
            return []
        try:
            async with asyncio.timeout(QUERY_EMBED_TIMEOUT_S):
                result = await embedder.embed_batch([query])
        except (JawadError, TimeoutError) as exc:
            log.info("the query was not embedded (%s); searching by words", exc)
            return []
        if not result.vectors:
            return []
        near = await self._db(self._nearest, embedder.key, self._version, result.vectors[0], limit)
        return await self._db(index.chunk_hits, near)

    # -- reading --------------------------------------------------------------------------------

    async def search(self, query: str, limit: int = 5, *, within: tuple[str, ...] = ()) -> list[DocumentHit]:
        """The pages that best match ``query``: by its words (all of them first, then any), merged
        with the pages nearest in meaning when there are embeddings; best first. ``within``: only
        files inside these folders (a project's)."""
        limit = max(1, min(limit, 50))
        if within:
            folders = [Path(f) for f in within]
            wider = await self.search(query, min(50, limit * 5))
            inside = [h for h in wider if any(Path(h.path) == f or f in Path(h.path).parents for f in folders)]
            return inside[:limit]
        words = index.words(query)
        by_words = await self._db(index.search_words, words, limit) if words else []
        by_meaning = await self._by_meaning(query, limit) if query.strip() else []
        if not by_meaning:
            return by_words
        return index.fuse([by_words, by_meaning], limit)

    async def stats(self) -> LibraryStats:
        documents, chunks, failed = await self._db(index.counts)
        return LibraryStats(tuple(self.sources), documents, chunks, failed)

    async def source_counts(self) -> list[SourceCounts]:
        """For each source: its files in the index, their pages, and the ones that could not be read."""
        return await self._db(index.source_counts, list(self.sources))

    async def failures(self) -> list[tuple[str, str]]:
        return await self._db(index.failures)

    async def aclose(self) -> None:
        if self._embed_task is not None and not self._embed_task.done():
            self._embed_task.cancel()
            await asyncio.wait({self._embed_task})
        if self._conn is not None:
            await self._db(index.close)
            self._conn = None
        self._executor.shutdown(wait=True)
        self._files.shutdown(wait=True)


# -- on the database thread ---------------------------------------------------------------------


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
