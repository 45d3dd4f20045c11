"""Projects: conversations, files, instructions, a default model and memory grouped per piece of
work, in the ``projects`` table of ``jawad.db`` (no Qt).

A ``Project`` has a name, instructions the model gets in each of its chats, the saved provider
and model its chats use ('' : the one in use), and folders: its own files, a scope of the
document library (``search_documents`` in a project searches only them). Its conversations
carry its id (``conversations.project_id``), and so do the facts remembered in it
(``memories.project_id``; a fact with none is remembered everywhere). Removing a project keeps
its conversations (out of any project) unless asked to delete them too; its facts go with it.
``export`` writes one JSON file with the project, its facts and its conversations (secrets
redacted, as every export). Every change is announced as ``ConversationsChanged`` ("updated")
for the history and ``ProjectsChanged``. ``group_by_project`` puts a list of conversations
under their projects, as the history shows them.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import EventBus, ProjectsChanged, new_id, now_ms
from jawad_desktop.core.store.database import Database

__all__ = ["MAX_INSTRUCTIONS_CHARS", "Project", "ProjectStore", "group_by_project"]

log = logging.getLogger("jawad.store.projects")

MAX_INSTRUCTIONS_CHARS = 8000
EXPORT_FORMAT = "jawad-project"


@dataclass(frozen=True, slots=True)
class Project:
    """One project (see the module docstring)."""

    id: str
    name: str
    instructions: str
    provider: str
    model: str
    folders: tuple[str, ...]
    created_at: int
    updated_at: int

    def covers(self, path: str) -> bool:
        """Whether ``path`` is one of the project's files (inside one of its folders)."""
        target = Path(path)
        return any(target == Path(f) or Path(f) in target.parents for f in self.folders)


def _project(row: sqlite3.Row) -> Project:
    return Project(str(row["id"]), str(row["name"]), str(row["instructions"]), str(row["provider"]),
                   str(row["model"]), tuple(json.loads(row["folders"])), int(row["created_at"]),
                   int(row["updated_at"]))


def _clean_name(name: str) -> str:
    clean = " ".join(name.split())
    if not clean:
        raise JawadError("A project needs a name.", suggestions=["Name it after the piece of work: \"Kitchen\"."])
    if len(clean) > 80:
        raise JawadError(f"A project's name is at most 80 characters ({len(clean)} given).")
    return clean


def _clean_folders(folders: list[str]) -> list[str]:
    clean: list[str] = []
    for folder in folders:
        path = Path(folder).expanduser()
        if not path.is_dir():
            raise JawadError(f"{folder} is not a folder.",
                             suggestions=["Give a folder that holds the project's files."])
        resolved = str(path.resolve())
        if resolved not in clean:
            clean.append(resolved)
    return clean


class ProjectStore:
    """The projects, on the app's database (shared with the conversations and memory)."""

    def __init__(self, db: Database, bus: EventBus | None = None) -> None:
        self.db = db
        self.bus = bus

    def _changed(self) -> None:
        if self.bus is not None:
            self.bus.emit(ProjectsChanged())

    def add(self, name: str, *, instructions: str = "", provider: str = "", model: str = "",
            folders: list[str] | None = None) -> Project:
        name = _clean_name(name)
        if len(instructions) > MAX_INSTRUCTIONS_CHARS:
            raise JawadError(f"A project's instructions are at most {MAX_INSTRUCTIONS_CHARS} characters.")
        project_id, now = new_id("project"), now_ms()
        try:
            with self.db.transaction() as conn:
                conn.execute("INSERT INTO projects (id, name, instructions, provider, model, folders, created_at, "
                             "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (project_id, name, instructions.strip(), provider.strip(), model.strip(),
                              json.dumps(_clean_folders(folders or [])), now, now))
        except sqlite3.IntegrityError:
            raise JawadError(f"There is already a project called {name}.",
                             suggestions=["Choose another name, or open that project."]) from None
        self._changed()
        return self.get(project_id)

    def get(self, project_id: str) -> Project:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM projects WHERE id = ?", (project_id,)).fetchone()
        if row is None:
            raise JawadError(f"There is no project {project_id}.",
                             suggestions=["List them with `jawad projects list`."])
        return _project(row)

    def find(self, name_or_id: str) -> Project:
        """The project called ``name_or_id`` (any case) or with that id."""
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM projects WHERE name = ? COLLATE NOCASE OR id = ?",
                               (" ".join(name_or_id.split()), name_or_id)).fetchone()
        if row is None:
            raise JawadError(f"There is no project called {name_or_id}.",
                             suggestions=["List them with `jawad projects list`, or add it with `jawad projects add`."])
        return _project(row)

    def projects(self) -> list[Project]:
        """Every project, by name."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM projects ORDER BY name COLLATE NOCASE").fetchall()
        return [_project(r) for r in rows]

    def update(self, project_id: str, *, name: str | None = None, instructions: str | None = None,
               provider: str | None = None, model: str | None = None, folders: list[str] | None = None) -> Project:
        current = self.get(project_id)
        values: dict[str, Any] = {
            "name": _clean_name(name) if name is not None else current.name,
            "instructions": (instructions if instructions is not None else current.instructions).strip(),
            "provider": (provider if provider is not None else current.provider).strip(),
            "model": (model if model is not None else current.model).strip(),
            "folders": json.dumps(_clean_folders(folders) if folders is not None else list(current.folders)),
        }
        try:
            with self.db.transaction() as conn:
                conn.execute("UPDATE projects SET name = :name, instructions = :instructions, provider = :provider, "
                             "model = :model, folders = :folders, updated_at = :now WHERE id = :id",
                             {**values, "now": now_ms(), "id": project_id})
        except sqlite3.IntegrityError:
            raise JawadError(f"There is already a project called {values['name']}.") from None
        self._changed()
        return self.get(project_id)

    def conversation_ids(self, project_id: str) -> list[str]:
        """The project's conversations (not deleted), the most recent first."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT id FROM conversations WHERE project_id = ? AND deleted_at IS NULL "
                                "ORDER BY updated_at DESC", (project_id,)).fetchall()
        return [str(r["id"]) for r in rows]

    def remove(self, project_id: str, *, conversations: Literal["keep", "delete"] = "keep") -> int:
        """Remove the project and its remembered facts; its conversations stay (in no project) or,
        with ``conversations="delete"``, are deleted (undoable from the history until purged).
        How many conversations it held."""
        self.get(project_id)
        now = now_ms()
        with self.db.transaction() as conn:
            if conversations == "delete":
                count = conn.execute("UPDATE conversations SET deleted_at = ? WHERE project_id = ? AND "
                                     "deleted_at IS NULL", (now, project_id)).rowcount
            else:
                count = conn.execute("SELECT COUNT(*) FROM conversations WHERE project_id = ? AND deleted_at IS NULL",
                                     (project_id,)).fetchone()[0]
            conn.execute("UPDATE conversations SET project_id = NULL WHERE project_id = ?", (project_id,))
            conn.execute("DELETE FROM memories WHERE project_id = ?", (project_id,))
            conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))
        self._changed()
        return int(count)

    def export(self, project_id: str, path: Path) -> Path:
        """One JSON file: the project, its facts and its conversations (each as ``jawad history
        export`` writes it, secrets redacted)."""
        from jawad_desktop.core.store.conversations import ConversationStore
        from jawad_desktop.core.store.export import export_json, redact_data
        from jawad_desktop.core.store.jsonfile import write_atomic

        project = self.get(project_id)
        store = ConversationStore(self.db)
        with self.db.read() as conn:
            facts = [str(r["text"]) for r in conn.execute(
                "SELECT text FROM memories WHERE project_id = ? ORDER BY id", (project_id,))]
        data = {
            "format": EXPORT_FORMAT, "version": 1,
            "project": redact_data({"name": project.name, "instructions": project.instructions,
                                    "provider": project.provider, "model": project.model,
                                    "folders": list(project.folders)}),
            "memory": redact_data(facts),
            "conversations": [json.loads(export_json(store, cid)) for cid in self.conversation_ids(project_id)],
        }
        write_atomic(Path(path), json.dumps(data, ensure_ascii=False, indent=2))
        return Path(path)


T = TypeVar("T")


def group_by_project(items: Sequence[T], project_of: Callable[[T], str | None],
                     projects: Iterable[Project]) -> list[tuple[Project | None, list[T]]]:
    """``items`` (conversations, or search results) under their projects, keeping their order
    (most recent first, or the best match first): each group comes where its first item came,
    and holds its items in their order. Those in no project, or in a project not among
    ``projects`` (removed meanwhile), are in the group of ``None``."""
    known = {project.id: project for project in projects}
    groups: dict[str, tuple[Project | None, list[T]]] = {}
    for item in items:
        project = known.get(project_of(item) or "")
        key = project.id if project is not None else ""
        groups.setdefault(key, (project, []))[1].append(item)
    return list(groups.values())
