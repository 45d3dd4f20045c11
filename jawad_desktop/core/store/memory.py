"""The user's memory: short facts Jawad keeps across conversations ("I live in Lisbon", "my
daughter is called Mia"), in the ``memories`` table of ``jawad.db``.

A fact is saved only on the user's word: a message that starts with "Remember that …" (or
"/remember"), the Remember action on a message, Settings → Memory, ``jawad memory add``.
Nothing the model, a page or a tool says is remembered, so an injected "remember that my bank
is …" cannot stick. ``relevant(text, budget)`` chooses what goes to the model with a message:
the facts that share words with it first (FTS5's rank), then the newest, within the budget.
Every change is announced as ``MemoriesChanged`` on the bus.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from dataclasses import dataclass

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import EventBus, MemoriesChanged
from jawad_desktop.core.store.database import Database

__all__ = ["MAX_FACT_CHARS", "Memory", "MemoryStore", "as_fact", "fact_to_remember"]

log = logging.getLogger("jawad.store.memory")

MAX_FACT_CHARS = 500
_WORD = re.compile(r"[^\W_]{2,}")
# Words too common to say what a message is about (they would match every fact).
_COMMON = frozenset(
    "about after again all also am an and any are as at be been before being but by can could did do does "
    "for from had has have he her here him his how if in into is it its just me more most my no not now of "
    "on once only or other our out over own same she should so some such than that the their them then "
    "there these they this those through to too under until up very was we were what when where which "
    "while who whom why will with would you your yours".split())
# "Remember that I live in Lisbon", "please remember: …", "/remember …" (the user's own words).
_REMEMBER = re.compile(r"^\s*(?:/remember\b|(?:please\s+)?remember(?:\s+that\b|\s*:))\s*(?P<fact>.+)$",
                       re.IGNORECASE | re.DOTALL)


def fact_to_remember(text: str) -> str | None:
    """The fact in a message that asks Jawad to remember it ("Remember that X" -> "X"), else None."""
    match = _REMEMBER.match(text)
    if match is None:
        return None
    fact = " ".join(match.group("fact").split()).rstrip(".")
    return fact or None


def as_fact(text: str) -> str:
    """A message as a fact to keep (a message's Remember): its words on one line, cut after the
    last whole sentence (else word) that fits ``MAX_FACT_CHARS``."""
    words = " ".join(text.split())
    if len(words) <= MAX_FACT_CHARS:
        return words
    cut = words[:MAX_FACT_CHARS]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    return cut[: end + 1] if end > MAX_FACT_CHARS // 3 else cut.rsplit(" ", 1)[0]


@dataclass(frozen=True, slots=True)
class Memory:
    """One remembered fact."""

    id: int
    text: str
    created_at: int  # ms since the epoch
    updated_at: int


def _clean(text: str) -> str:
    fact = " ".join(text.split())
    if not fact:
        raise JawadError("There is nothing to remember.", suggestions=["Write the fact to remember."])
    if len(fact) > MAX_FACT_CHARS:
        raise JawadError(f"A fact to remember is at most {MAX_FACT_CHARS} characters ({len(fact)} given).",
                         suggestions=["Keep the part that matters; several short facts work better than one long."])
    return fact


def _row(row: sqlite3.Row) -> Memory:
    return Memory(int(row["id"]), str(row["text"]), int(row["created_at"]), int(row["updated_at"]))


class MemoryStore:
    """The facts, on the app's database (shared with the conversations)."""

    def __init__(self, db: Database, bus: EventBus | None = None) -> None:
        self.db = db
        self.bus = bus
        # The project the conversation is in (core.store.projects): a fact added now belongs to it,
        # and only its facts and those of no project are given to the model. None: no project.
        self.project_id: str | None = None

    def _changed(self) -> None:
        if self.bus is not None:
            self.bus.emit(MemoriesChanged())

    def add(self, text: str) -> Memory:
        """Remember ``text`` (the same fact twice is kept once, its date renewed)."""
        fact = _clean(text)
        now = int(time.time() * 1000)
        with self.db.transaction() as conn:
            row = conn.execute("SELECT id FROM memories WHERE lower(text) = lower(?) AND project_id IS ?",
                               (fact, self.project_id)).fetchone()
            if row is not None:
                conn.execute("UPDATE memories SET updated_at = ? WHERE id = ?", (now, row["id"]))
                memory_id = int(row["id"])
            else:
                cursor = conn.execute("INSERT INTO memories (text, created_at, updated_at, project_id) "
                                      "VALUES (?, ?, ?, ?)", (fact, now, now, self.project_id))
                memory_id = int(cursor.lastrowid or 0)
            saved = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        self._changed()
        return _row(saved)

    def edit(self, memory_id: int, text: str) -> Memory:
        """Change a fact's words."""
        fact = _clean(text)
        with self.db.transaction() as conn:
            cursor = conn.execute("UPDATE memories SET text = ?, updated_at = ? WHERE id = ?",
                                  (fact, int(time.time() * 1000), memory_id))
            if cursor.rowcount == 0:
                raise JawadError(f"There is no remembered fact {memory_id}.",
                                 suggestions=["List them with `jawad memory list`."])
            saved = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        self._changed()
        return _row(saved)

    def remove(self, memory_id: int) -> bool:
        """Forget a fact; False when there was none with that id."""
        with self.db.transaction() as conn:
            removed = conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount > 0
        if removed:
            self._changed()
        return removed

    def facts(self) -> list[Memory]:
        """Every fact, the newest first."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM memories ORDER BY updated_at DESC, id DESC").fetchall()
        return [_row(r) for r in rows]

    def relevant(self, text: str, budget_chars: int) -> list[Memory]:
        """The facts to give the model with ``text``: those sharing its words (best first), then
        the newest, as many as fit in ``budget_chars``."""
        words = sorted({w.casefold() for w in _WORD.findall(text)} - _COMMON)
        ranked: list[Memory] = []
        if words:
            query = " OR ".join('"' + w.replace('"', '""') + '"' for w in words[:64])
            try:
                with self.db.read() as conn:
                    rows = conn.execute(
                        "SELECT m.* FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
                        "WHERE memories_fts MATCH ? AND (m.project_id IS NULL OR m.project_id IS ?) "
                        "ORDER BY rank LIMIT 50", (query, self.project_id)).fetchall()
                ranked = [_row(r) for r in rows]
            except sqlite3.Error as exc:  # a query FTS5 cannot read: the newest facts still go
                log.info("memory search failed: %s", exc)
        seen = {m.id for m in ranked}
        chosen: list[Memory] = []
        used = 0
        with self.db.read() as conn:  # the newest, enough to fill any budget
            newest = [_row(r) for r in conn.execute(
                "SELECT * FROM memories WHERE project_id IS NULL OR project_id IS ? "
                "ORDER BY updated_at DESC, id DESC LIMIT ?", (self.project_id, max(20, budget_chars // 20)))]
        for memory in [*ranked, *(m for m in newest if m.id not in seen)]:
            if used + len(memory.text) > budget_chars:
                continue
            chosen.append(memory)
            used += len(memory.text) + 3
        return chosen
