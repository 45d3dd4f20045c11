"""Full-text search of the saved conversations (``core.store.conversations``' ``search`` and
``search_conversations``): what a person typed made a safe FTS5 query, messages newest first with
their matches marked in a snippet, and conversations whose title or messages match."""

from __future__ import annotations

import re

from jawad_desktop.core.store.conversation_records import (
    MARK_END,
    MARK_START,
    SUMMARY_COLUMNS,
    ConversationMatch,
    SearchHit,
    summary_from_row,
)
from jawad_desktop.core.store.database import Database

TOKEN_RE = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str:
    """Turn what a person typed into a safe FTS5 query: every word must appear, the last
    one as a prefix (search as you type). Quotes, operators and stray symbols never make
    a syntax error; an empty result means there is nothing to search for."""
    words = TOKEN_RE.findall(text)
    if not words:
        return ""
    parts = [f'"{w}"' for w in words[:-1]]
    parts.append(f'"{words[-1]}"*')
    return " ".join(parts)


def mark_words(text: str, query: str) -> str:
    """``text`` with the query's words (as prefixes, case-insensitively) between the markers."""
    words = sorted({w.casefold() for w in TOKEN_RE.findall(query)}, key=len, reverse=True)
    if not words:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\w*", re.IGNORECASE)
    return pattern.sub(lambda m: MARK_START + m.group(0) + MARK_END, text)


def search_messages(db: Database, query: str, *, limit: int = 50) -> list[SearchHit]:
    """Messages matching every word of ``query`` (the last as a prefix), newest first."""
    match = fts_query(query)
    if not match:
        return []
    with db.read() as conn:
        # Newest first, decided inside the full-text index: it walks its lists backwards and
        # stops after ``limit``, so a word in every message costs no more than a rare one
        # (ranking by relevance would score every match: 120 ms for "the" in 100k messages).
        rows = conn.execute(
            "SELECT m.conversation_id, c.title, m.position, m.role, m.created_at, hits.snip "
            "FROM (SELECT rowid, snippet(messages_fts, 0, ?, ?, '…', 12) AS snip "
            "      FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?) AS hits "
            "JOIN messages m ON m.id = hits.rowid "
            "JOIN conversations c ON c.id = m.conversation_id "
            "WHERE c.deleted_at IS NULL ORDER BY hits.rowid DESC",
            # Twice the limit: hits in conversations deleted (awaiting undo) are dropped here.
            (MARK_START, MARK_END, match, limit * 2),
        ).fetchall()
    return [
        SearchHit(
            conversation_id=r["conversation_id"],
            conversation_title=r["title"],
            position=r["position"],
            role=r["role"],
            snippet=r["snip"],
            created_at=r["created_at"],
        )
        for r in rows[:limit]
    ]


def search_conversations(db: Database, query: str, *, limit: int = 50) -> list[ConversationMatch]:
    """Conversations whose title or messages match, each with its best snippet, newest first."""
    words = TOKEN_RE.findall(query)
    if not words:
        return []
    hits = search_messages(db, query, limit=200)
    by_conv: dict[str, list[SearchHit]] = {}
    for hit in hits:
        by_conv.setdefault(hit.conversation_id, []).append(hit)
    # Titles are few (one per conversation): a LIKE per word is enough and catches renames.
    where = " AND ".join("title LIKE ? ESCAPE '\\'" for _ in words)
    params = [
        "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for w in words
    ]
    with db.read() as conn:
        title_rows = conn.execute(
            f"SELECT {SUMMARY_COLUMNS} FROM conversations WHERE deleted_at IS NULL AND {where} "
            "ORDER BY updated_at DESC LIMIT ?",
            (*params, limit),
        ).fetchall()
        ids = list(by_conv)
        conv_rows = []
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            conv_rows += conn.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM conversations WHERE deleted_at IS NULL "
                f"AND id IN ({','.join('?' * len(chunk))})",
                chunk,
            ).fetchall()
    matches: dict[str, ConversationMatch] = {}
    for row in conv_rows:
        conv_hits = by_conv[row["id"]]
        matches[row["id"]] = ConversationMatch(summary_from_row(row), conv_hits[0], len(conv_hits))
    for row in title_rows:
        prior = matches.get(row["id"])
        matches[row["id"]] = ConversationMatch(
            summary_from_row(row),
            prior.best if prior else None,
            prior.hit_count if prior else 0,
            title_snippet=mark_words(row["title"], query),
        )
    ordered = sorted(matches.values(), key=lambda m: m.conversation.updated_at, reverse=True)
    return ordered[:limit]
