"""The document library's index (``library.py`` owns the library): the SQLite schema of
``library.db`` (one row per file, one FTS5 row per page or part, the pages' vectors), the records a
search gives (``DocumentHit``) and a source's counts (``SourceCounts``), and the statements the
library runs on its database thread: what is known, writing and dropping files, search by words with
a snippet, vectors to compute and store, reciprocal rank fusion of two rankings, counts. Each takes the
connection first; a batch of writes is one transaction."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jawad_desktop.core.tools.files.extract import ExtractedFile

if TYPE_CHECKING:  # numpy (20 MB) is imported by the first search by meaning, not with the app
    import numpy as np

SNIPPET_TOKENS = 24
SNIPPET_CHARS = 200  # a page found by meaning only: its start
RRF_K = 60  # reciprocal rank fusion: score = sum of 1 / (RRF_K + rank)
SCHEMA = """
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
CREATE TABLE IF NOT EXISTS vectors (
    chunk_id INTEGER NOT NULL,              -- the chunks row (page) it is the embedding of
    model    TEXT NOT NULL,                 -- the embedder's key: vectors of other models are not compared
    doc_id   INTEGER NOT NULL,
    vector   BLOB NOT NULL,                 -- float32, unit length
    PRIMARY KEY (chunk_id, model)
);
CREATE INDEX IF NOT EXISTS vectors_doc ON vectors (doc_id);
"""


@dataclass(frozen=True, slots=True)
class DocumentHit:
    """One page (or part) that matches: which file, where in it, and the words around the match."""

    path: str
    label: str  # "page 3", "part 2 of 5", "sheet Sales" ("" for a short file read whole)
    snippet: str
    score: float
    chunk: int = 0  # the page's row in the index

    def citation(self) -> str:
        name = Path(self.path).name
        return f"{name}, {self.label}" if self.label else name


@dataclass(frozen=True, slots=True)
class SourceCounts:
    """One source of the library as the index knows it."""

    source: str
    files: int
    pages: int
    failed: int
    exists: bool


def known_documents(conn: sqlite3.Connection) -> dict[str, tuple[int, int, int]]:
    return {path: (doc_id, mtime, size)
            for doc_id, path, mtime, size in conn.execute("SELECT id, path, mtime_ns, size FROM documents")}


def delete_documents(conn: sqlite3.Connection, ids: list[int]) -> None:
    with transaction(conn):
        for doc_id in ids:
            conn.execute("DELETE FROM vectors WHERE doc_id = ?", (doc_id,))
            conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
            conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))


def write_batch(conn: sqlite3.Connection,
                 batch: list[tuple[str, tuple[int, int], ExtractedFile | None, str]]) -> None:
    with transaction(conn):
        for path, (mtime, size), extracted, error in batch:
            row = conn.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()
            parts = extracted.parts if extracted is not None else ()
            kind = extracted.kind if extracted is not None else ""
            if row is not None:
                doc_id = row[0]
                conn.execute("DELETE FROM vectors WHERE doc_id = ?", (doc_id,))
                conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
                conn.execute("UPDATE documents SET mtime_ns = ?, size = ?, kind = ?, parts = ?, error = ? "
                             "WHERE id = ?", (mtime, size, kind, len(parts), error, doc_id))
            else:
                doc_id = conn.execute(
                    "INSERT INTO documents (path, mtime_ns, size, kind, parts, error) VALUES (?, ?, ?, ?, ?, ?)",
                    (path, mtime, size, kind, len(parts), error)).lastrowid
            conn.executemany("INSERT INTO chunks (text, label, doc_id) VALUES (?, ?, ?)",
                             [(part.text, part.label, doc_id) for part in parts])


def search_words(conn: sqlite3.Connection, words: list[str], limit: int) -> list[DocumentHit]:
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
                hits.append(DocumentHit(path, label, " ".join(snippet.split()), -float(rank), int(rowid)))
        if len(hits) >= limit:
            break
    return hits


def unembedded(conn: sqlite3.Connection, key: str, limit: int) -> list[tuple[int, int, str]]:
    rows = conn.execute(
        "SELECT rowid, doc_id, text FROM chunks WHERE rowid NOT IN (SELECT chunk_id FROM vectors WHERE model = ?) "
        "AND trim(text) != '' ORDER BY rowid LIMIT ?", (key, limit)).fetchall()
    return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]


def save_vectors(conn: sqlite3.Connection, key: str, items: list[tuple[int, int, list[float]]]) -> None:
    with transaction(conn):
        conn.executemany("INSERT OR REPLACE INTO vectors (chunk_id, model, doc_id, vector) VALUES (?, ?, ?, ?)",
                         [(chunk, key, doc, unit_vector(vector).tobytes()) for chunk, doc, vector in items])


def chunk_hits(conn: sqlite3.Connection, near: list[tuple[int, float]]) -> list[DocumentHit]:
    hits: list[DocumentHit] = []
    for chunk, score in near:
        row = conn.execute("SELECT documents.path, chunks.label, substr(chunks.text, 1, ?) FROM chunks "
                           "JOIN documents ON documents.id = chunks.doc_id WHERE chunks.rowid = ?",
                           (SNIPPET_CHARS * 2, chunk)).fetchone()
        if row is not None:
            text = " ".join(str(row[2]).split())
            snippet = text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS - 1] + "…"
            hits.append(DocumentHit(row[0], row[1], snippet, score, chunk))
    return hits


def fuse(rankings: list[list[DocumentHit]], limit: int) -> list[DocumentHit]:
    """Reciprocal rank fusion of rankings of the same pages (a page's words' snippet is kept)."""
    scores: dict[int, float] = {}
    first: dict[int, DocumentHit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, 1):
            scores[hit.chunk] = scores.get(hit.chunk, 0.0) + 1.0 / (RRF_K + rank)
            first.setdefault(hit.chunk, hit)
    order = sorted(scores, key=lambda chunk: -scores[chunk])[:limit]
    return [DocumentHit(first[c].path, first[c].label, first[c].snippet, scores[c], c) for c in order]


def unit_vector(vector: list[float]) -> np.ndarray:
    import numpy as np

    array = np.asarray(vector, dtype="<f4")
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array


def counts(conn: sqlite3.Connection) -> tuple[int, int, int]:
    documents, failed = conn.execute("SELECT count(*), count(NULLIF(error, '')) FROM documents").fetchone()
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return int(documents), int(chunks), int(failed)


def source_counts(conn: sqlite3.Connection, sources: list[str]) -> list[SourceCounts]:
    counts: list[SourceCounts] = []
    for source in sources:
        prefix = source.rstrip(os.sep) + os.sep
        # A range on the paths' unique index: the folder's files without a scan of the table.
        files, pages, failed = conn.execute(
            "SELECT count(*), coalesce(sum(parts), 0), count(NULLIF(error, '')) FROM documents "
            "WHERE path = ? OR (path >= ? AND path < ?)",
            (source, prefix, prefix[:-1] + chr(ord(os.sep) + 1))).fetchone()
        counts.append(SourceCounts(source, int(files), int(pages), int(failed), os.path.exists(source)))
    return counts


def failures(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return [(p, e) for p, e in conn.execute("SELECT path, error FROM documents WHERE error != '' ORDER BY path")]


def close(conn: sqlite3.Connection) -> None:
    conn.close()


class transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN")
        return self.conn

    def __exit__(self, kind: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


def words(query: str) -> list[str]:
    """The query's words for FTS5 (each quoted there, so no word is read as an operator)."""
    cleaned = "".join(ch if ch.isalnum() else " " for ch in query)
    return list(dict.fromkeys(w.lower() for w in cleaned.split() if w))[:20]
