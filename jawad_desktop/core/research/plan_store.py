"""Research plans saved with their conversation (table ``research_plans``, migration 3).

Each plan is one row holding its whole WorkflowPlan JSON (steps, statuses, results, answer,
citations), written again after every change so a crash keeps the progress so far. Rows go
with their conversation (``ON DELETE CASCADE`` when it is purged).
"""

from __future__ import annotations

import json
import logging
import sqlite3

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.research.plan import ResearchPlan
from jawad_desktop.core.store.database import Database

log = logging.getLogger("jawad.research")


class ResearchStore:
    """Plans by conversation, in the app's database (share the ``ConversationStore``'s ``db``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def save(self, plan: ResearchPlan, conversation_id: str) -> None:
        """Insert or replace the plan's row; a conversation that is gone is a ``JawadError``."""
        try:
            with self.db.transaction() as conn:
                conn.execute(
                    "INSERT INTO research_plans (id, conversation_id, intent, status, plan, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, "
                    "plan = excluded.plan, updated_at = excluded.updated_at",
                    (plan.id, conversation_id, plan.intent, plan.status.value,
                     json.dumps(plan.to_payload(), ensure_ascii=False), plan.created_at, plan.updated_at),
                )
        except sqlite3.IntegrityError as exc:
            raise JawadError(f"The conversation {conversation_id!r} no longer exists, so the research plan "
                             "was not saved.") from exc

    def get(self, plan_id: str) -> ResearchPlan | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT plan FROM research_plans WHERE id = ?", (plan_id,)).fetchone()
        return self._load(row["plan"]) if row is not None else None

    def for_conversation(self, conversation_id: str) -> list[ResearchPlan]:
        """The conversation's plans, oldest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT plan FROM research_plans WHERE conversation_id = ? ORDER BY created_at, rowid",
                (conversation_id,),
            ).fetchall()
        plans = [self._load(r["plan"]) for r in rows]
        return [p for p in plans if p is not None]

    @staticmethod
    def _load(text: str) -> ResearchPlan | None:
        try:
            data = json.loads(text)
            return ResearchPlan.from_payload(data) if isinstance(data, dict) else None
        except (ValueError, TypeError) as exc:
            log.warning("an unreadable research plan in the database was skipped: %s", exc)
            return None
