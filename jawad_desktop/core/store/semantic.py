"""Semantic search of conversation history, beside the full-text search: messages are
embedded (``core.llm.embeddings``) into the ``message_embeddings`` table, one vector per
message and embedding model, and a query is answered by cosine similarity.

Vectors of different models are never compared: each is stored under the embedder's
``key`` (kind, model, dimensions). Messages written since the last search are embedded
at the next one, in batches.

Usage::

    index = SemanticIndex(store)
    hits = await index.search(embedder, "that laptop with the good battery", limit=10)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from jawad_desktop.core.store.conversation_records import SearchHit
from jawad_desktop.core.store.conversations import ConversationStore

log = logging.getLogger("jawad.store.semantic")

__all__ = ["SemanticHit", "SemanticIndex"]

_SNIPPET_CHARS = 160
_MAX_EMBED_CHARS = 8000  # embedding models take a few thousand tokens; the start says enough


class _Embedder(Protocol):
    @property
    def key(self) -> str: ...

    async def embed_batch(self, texts: list[str]) -> _Vectors: ...


class _Vectors(Protocol):
    vectors: list[list[float]]


@dataclass(frozen=True, slots=True)
class SemanticHit:
    """A message close in meaning to the query; ``score`` is the cosine similarity (-1 to 1)."""

    hit: SearchHit
    score: float


def _unit(vector: list[float]) -> np.ndarray:
    array = np.asarray(vector, dtype="<f4")
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array


class SemanticIndex:
    """The embeddings of one ``ConversationStore``'s messages."""

    def __init__(self, store: ConversationStore, *, batch_size: int = 64) -> None:
        self.store = store
        self.batch_size = batch_size

    def unindexed(self, key: str, limit: int) -> list[tuple[int, str]]:
        """Messages (id, text) of the user and the assistant with no vector under ``key`` yet."""
        with self.store.db.read() as conn:
            rows = conn.execute(
                "SELECT m.id, m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                "LEFT JOIN message_embeddings e ON e.message_id = m.id AND e.model = ? "
                "WHERE e.message_id IS NULL AND c.deleted_at IS NULL AND m.role IN ('user', 'assistant') "
                "AND trim(m.content) != '' ORDER BY m.id DESC LIMIT ?",
                (key, limit),
            ).fetchall()
        return [(int(r[0]), str(r[1])[:_MAX_EMBED_CHARS]) for r in rows]

    def save(self, key: str, items: list[tuple[int, list[float]]]) -> None:
        with self.store.db.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO message_embeddings (message_id, model, dims, vector) VALUES (?, ?, ?, ?)",
                [(message_id, key, len(vector), _unit(vector).tobytes()) for message_id, vector in items],
            )

    async def update(self, embedder: _Embedder, *, progress: Callable[[int], None] | None = None) -> int:
        """Embed every message not indexed under ``embedder.key``; returns how many were added."""
        added = 0
        while True:
            pending = await self.store._in_worker(self.unindexed, embedder.key, self.batch_size)
            if not pending:
                return added
            result = await embedder.embed_batch([text for _, text in pending])
            await self.store._in_worker(self.save, embedder.key,
                                        [(mid, vec) for (mid, _), vec in zip(pending, result.vectors, strict=True)])
            added += len(pending)
            if progress is not None:
                progress(added)

    def nearest(self, key: str, query: list[float], limit: int) -> list[SemanticHit]:
        """The messages whose vectors under ``key`` are closest to ``query``."""
        target = _unit(query)
        with self.store.db.read() as conn:
            rows = conn.execute(
                "SELECT e.message_id, e.vector FROM message_embeddings e JOIN messages m ON m.id = e.message_id "
                "JOIN conversations c ON c.id = m.conversation_id "
                "WHERE e.model = ? AND e.dims = ? AND c.deleted_at IS NULL",
                (key, len(target)),
            ).fetchall()
            if not rows:
                return []
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), len(target))
            scores = matrix @ target
            order = np.argsort(-scores)[:limit]
            chosen = [(int(ids[i]), float(scores[i])) for i in order]
            details = {
                int(r[0]): r for r in conn.execute(
                    "SELECT m.id, m.conversation_id, c.title, m.position, m.role, m.created_at, m.content "
                    f"FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                    f"WHERE m.id IN ({','.join('?' * len(chosen))})",
                    [mid for mid, _ in chosen],
                ).fetchall()
            }
        hits = []
        for message_id, score in chosen:
            row = details[message_id]
            text = " ".join(str(row[6]).split())
            snippet = text if len(text) <= _SNIPPET_CHARS else text[: _SNIPPET_CHARS - 1] + "…"
            hits.append(SemanticHit(SearchHit(conversation_id=row[1], conversation_title=row[2], position=row[3],
                                              role=row[4], snippet=snippet, created_at=row[5]), score))
        return hits

    async def search(self, embedder: _Embedder, query: str, *, limit: int = 20,
                     progress: Callable[[int], None] | None = None) -> list[SemanticHit]:
        """Index what is new, then the ``limit`` messages closest in meaning to ``query``."""
        await self.update(embedder, progress=progress)
        vector = (await embedder.embed_batch([query])).vectors[0]
        return await self.store._in_worker(self.nearest, embedder.key, vector, limit)
