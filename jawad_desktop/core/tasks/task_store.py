"""Scheduled tasks and their runs, in the ``tasks`` and ``task_runs`` tables of ``jawad.db`` (no Qt).

A ``Task`` is a prompt, a ``Schedule``, and the scope the user approved when making it (sites and
kinds of action, as a plan-first plan: ``scope()``). ``next_at`` is when it is next due (None:
never again, a one-off that ran). ``TaskRun`` is one run's record: the occurrence it ran for,
its outcome, the answer, why it stopped or failed, and the actions it took. Every change to the
tasks is announced as ``TasksChanged``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import EventBus, TasksChanged, now_ms
from jawad_desktop.core.harbor.plan_approval import ACTION_KINDS, ActionPlan
from jawad_desktop.core.sites import is_web_address, site_of
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.tasks.schedule import Schedule

__all__ = ["KINDS", "Task", "TaskRun", "TaskStore", "as_ms", "scope_of"]

log = logging.getLogger("jawad.tasks")

KINDS = tuple(ACTION_KINDS)  # read, navigate, interact, submit, download
MAX_PROMPT_CHARS = 4000
RunOutcome = Literal["running", "done", "stopped", "failed"]


def as_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def scope_of(sites: list[str], kinds: list[str]) -> ActionPlan:
    """The plan a task may act within: ``sites`` (hosts or addresses) and ``kinds``; reading is
    always in it. A ``JawadError`` names what is wrong."""
    unknown = [k for k in kinds if k not in ACTION_KINDS]
    if unknown:
        raise JawadError(f"Unknown kind of action: {', '.join(unknown)}.",
                         suggestions=[f"Use {', '.join(KINDS)}."])
    clean: list[str] = []
    for value in sites:
        text = value.strip()
        site = site_of(text if "://" in text else f"https://{text}")
        if not text or not site or ("://" in text and not is_web_address(text)):
            raise JawadError(f"{value!r} is not a web site.", suggestions=["Give each site as a host: shop.example."])
        if site not in clean:
            clean.append(site)
    actions = sorted({"read", *kinds})
    if set(actions) - {"read"} and not clean:
        raise JawadError("A task that acts on pages needs the sites it may act on.",
                         suggestions=["Name them with --site (for example --site shop.example)."])
    return ActionPlan.from_lists(clean, [f"{kind}: scheduled task" for kind in actions], [])


@dataclass(frozen=True, slots=True)
class Task:
    """One scheduled task (see the module docstring)."""

    id: int
    name: str
    prompt: str
    schedule: Schedule
    wording: str
    sites: tuple[str, ...]
    kinds: tuple[str, ...]
    enabled: bool
    next_at: int | None  # ms since the epoch
    created_at: int

    def scope(self) -> ActionPlan:
        return scope_of(list(self.sites), list(self.kinds))

    def scope_text(self) -> str:
        """What the task may do, in words ("may read; may navigate, interact on shop.example")."""
        acts = [k for k in self.kinds if k != "read"]
        if not acts:
            return "may only read"
        return f"may read; may {', '.join(acts)} on {', '.join(self.sites)}"


@dataclass(frozen=True, slots=True)
class TaskRun:
    """One run of a task."""

    id: int
    task_id: int
    due_at: int
    started_at: int
    finished_at: int | None
    outcome: RunOutcome
    answer: str
    reason: str
    actions: list[dict[str, Any]]
    conversation_id: str


def _task(row: sqlite3.Row) -> Task:
    return Task(int(row["id"]), str(row["name"]), str(row["prompt"]), Schedule.from_json(json.loads(row["schedule"])),
                str(row["wording"]), tuple(json.loads(row["sites"])), tuple(json.loads(row["kinds"])),
                bool(row["enabled"]), None if row["next_at"] is None else int(row["next_at"]), int(row["created_at"]))


def _run(row: sqlite3.Row) -> TaskRun:
    return TaskRun(int(row["id"]), int(row["task_id"]), int(row["due_at"]), int(row["started_at"]),
                   None if row["finished_at"] is None else int(row["finished_at"]), row["outcome"],
                   str(row["answer"]), str(row["reason"]), json.loads(row["actions"]), str(row["conversation_id"]))


class TaskStore:
    """The tasks and their runs, on the app's database."""

    def __init__(self, db: Database, bus: EventBus | None = None) -> None:
        self.db = db
        self.bus = bus

    def _changed(self) -> None:
        if self.bus is not None:
            self.bus.emit(TasksChanged())

    def add(self, prompt: str, schedule: Schedule, *, now: datetime, wording: str = "", name: str = "",
            sites: list[str] | None = None, kinds: list[str] | None = None) -> Task:
        """A new task, first due at ``schedule.next_after(now)``. The scope is checked here."""
        prompt = prompt.strip()
        if not prompt:
            raise JawadError("The task has nothing to do.", suggestions=["Write what Jawad should do each time."])
        if len(prompt) > MAX_PROMPT_CHARS:
            raise JawadError(f"A task's prompt is at most {MAX_PROMPT_CHARS} characters ({len(prompt)} given).")
        plan = scope_of(sites or [], kinds or [])
        first = schedule.next_after(now)
        if first is None:
            raise JawadError("That time has passed, so the task would never run.",
                             suggestions=["Choose a time in the future."])
        name = " ".join((name or prompt).split())
        name = name if len(name) <= 60 else name[:59] + "…"
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO tasks (name, prompt, schedule, wording, sites, kinds, enabled, next_at, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
                (name, prompt, json.dumps(schedule.to_json()), wording.strip(), json.dumps(list(plan.sites)),
                 json.dumps(sorted(plan.kinds)), as_ms(first), now_ms()))
            task_id = int(cursor.lastrowid or 0)
        self._changed()
        log.info("task %d added: %s (%s)", task_id, name, schedule.describe())
        return self.get(task_id)

    def get(self, task_id: int) -> Task:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise JawadError(f"There is no task {task_id}.", suggestions=["List them with `jawad tasks list`."])
        return _task(row)

    def tasks(self) -> list[Task]:
        """Every task, the next due first (those never due again last)."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM tasks ORDER BY next_at IS NULL, next_at, id").fetchall()
        return [_task(r) for r in rows]

    def due(self, now: datetime) -> list[Task]:
        """The enabled tasks due at ``now`` (the earliest first)."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM tasks WHERE enabled = 1 AND next_at IS NOT NULL AND next_at <= ? "
                                "ORDER BY next_at, id", (as_ms(now),)).fetchall()
        return [_task(r) for r in rows]

    def set_enabled(self, task_id: int, enabled: bool) -> Task:
        with self.db.transaction() as conn:
            if conn.execute("UPDATE tasks SET enabled = ? WHERE id = ?", (int(enabled), task_id)).rowcount == 0:
                raise JawadError(f"There is no task {task_id}.", suggestions=["List them with `jawad tasks list`."])
        self._changed()
        return self.get(task_id)

    def remove(self, task_id: int) -> bool:
        """Remove a task and its runs; False when there was none."""
        with self.db.transaction() as conn:
            removed = conn.execute("DELETE FROM tasks WHERE id = ?", (task_id,)).rowcount > 0
        if removed:
            self._changed()
        return removed

    def claim(self, task: Task, now: datetime) -> bool:
        """Take ``task``'s occurrence due at ``task.next_at`` and move it past every occurrence up to
        ``now`` (missed ones are caught up once, not each). False when another process (the window,
        ``jawad tasks run-due``) took it first: then it is not run twice."""
        following = task.schedule.next_after(now)
        next_at = None if following is None else as_ms(following)
        with self.db.transaction() as conn:
            taken = conn.execute("UPDATE tasks SET next_at = ? WHERE id = ? AND next_at IS ?",
                                 (next_at, task.id, task.next_at)).rowcount > 0
        if taken:
            self._changed()
        return taken

    # -- runs ------------------------------------------------------------------------------

    def start_run(self, task: Task, due_at: int) -> int:
        with self.db.transaction() as conn:
            cursor = conn.execute("INSERT INTO task_runs (task_id, due_at, started_at) VALUES (?, ?, ?)",
                                  (task.id, due_at, now_ms()))
            return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, outcome: RunOutcome, *, answer: str = "", reason: str = "",
                   actions: list[dict[str, Any]] | None = None, conversation_id: str = "") -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE task_runs SET finished_at = ?, outcome = ?, answer = ?, reason = ?, actions = ?, "
                         "conversation_id = ? WHERE id = ?",
                         (now_ms(), outcome, answer, reason, json.dumps(actions or []), conversation_id, run_id))
        self._changed()

    def runs(self, task_id: int, limit: int = 20) -> list[TaskRun]:
        """A task's runs, the newest first."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM task_runs WHERE task_id = ? ORDER BY started_at DESC, id DESC LIMIT ?",
                                (task_id, limit)).fetchall()
        return [_run(r) for r in rows]

    def abandoned(self, older_than_ms: int) -> int:
        """Runs still "running" that started before ``older_than_ms`` (longer ago than a run may
        last: the process ended mid-run) are marked failed; how many."""
        with self.db.transaction() as conn:
            count = conn.execute("UPDATE task_runs SET outcome = 'failed', finished_at = ?, reason = "
                                 "'Jawad was closed while it ran.' WHERE outcome = 'running' AND started_at < ?",
                                 (now_ms(), older_than_ms)).rowcount
        return int(count)
