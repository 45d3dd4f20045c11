"""The history's rows: ``SidebarRow`` (a conversation's title and detail line as HTML, or the
matched message of a search), ``GroupHeader`` (a project's name above its conversations, when
the rows are grouped by ``grouped_rows``) and ``ConversationListModel``, the list model the
history sidebar shows; renaming a row renames the conversation in the store. A header is
neither selectable nor enabled: the keyboard and the mouse pass over it. ``when_text`` says when in a few
characters ("14:05", "Yesterday", "12 Nov").
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.pricing import totals_text
from jawad_desktop.core.store.conversations import (
    ConversationMatch,
    ConversationStore,
    ConversationSummary,
    highlight_html,
)
from jawad_desktop.core.store.projects import Project, group_by_project

log = logging.getLogger("jawad.ui.history")

IdRole = Qt.ItemDataRole.UserRole + 1
DetailHtmlRole = Qt.ItemDataRole.UserRole + 2
TitleHtmlRole = Qt.ItemDataRole.UserRole + 3
PositionRole = Qt.ItemDataRole.UserRole + 4
HeaderRole = Qt.ItemDataRole.UserRole + 5  # True on a project's header
NO_PROJECT = "No project"


def when_text(ms: int, now: datetime | None = None) -> str:
    """A short, human date: ``14:05`` today, ``Yesterday``, ``Mon``, ``12 Nov``, ``12 Nov 2024``."""
    moment = datetime.fromtimestamp(ms / 1000)
    now = now or datetime.now()
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    if moment.date() == (now - timedelta(days=1)).date():
        return "Yesterday"
    if now - moment < timedelta(days=7):
        return moment.strftime("%a")
    if moment.year == now.year:
        return moment.strftime("%d %b").lstrip("0")
    return moment.strftime("%d %b %Y").lstrip("0")


@dataclass(frozen=True, slots=True)
class SidebarRow:
    """One row: the conversation, its title and detail line as HTML, and the matched message."""

    summary: ConversationSummary
    title_html: str
    detail_html: str
    accessible: str
    position: int = -1  # the best matching message when the row came from a search
    project_name: str = ""  # the group it is shown in, when the rows are grouped by project

    @property
    def accessible_text(self) -> str:
        return f"{self.accessible} (in {self.project_name})" if self.project_name else self.accessible


@dataclass(frozen=True, slots=True)
class GroupHeader:
    """A project's name above its conversations ("No project" above those in none)."""

    project_id: str  # "" for no project
    name: str
    count: int

    @property
    def accessible(self) -> str:
        return f"{self.name}: {self.count} conversation{'s' if self.count != 1 else ''}"


T = TypeVar("T")


def grouped_rows(items: Sequence[T], project_of: Callable[[T], str | None], make_row: Callable[[T], SidebarRow],
                 projects: list[Project]) -> list[SidebarRow | GroupHeader]:
    """``items`` as rows under their projects' headers (``core.store.projects.group_by_project``:
    each group where its first item comes); each row's accessible name says its project."""
    rows: list[SidebarRow | GroupHeader] = []
    for project, members in group_by_project(items, project_of, projects):
        name = project.name if project is not None else NO_PROJECT
        rows.append(GroupHeader(project.id if project is not None else "", name, len(members)))
        for member in members:
            rows.append(replace(make_row(member), project_name=name))
    return rows


def row_for_summary(summary: ConversationSummary) -> SidebarRow:
    count = summary.shown_count
    detail = f"{when_text(summary.updated_at)} · {count} message{'s' if count != 1 else ''}"
    return SidebarRow(
        summary,
        html.escape(summary.display_title),
        html.escape(detail),
        f"{summary.display_title}, {detail}",
    )


def row_for_match(match: ConversationMatch) -> SidebarRow:
    summary = match.conversation
    title_html = highlight_html(match.title_snippet) if match.title_snippet else html.escape(
        summary.display_title
    )
    if match.best is not None:
        detail_html = highlight_html(" ".join(match.best.snippet.split()))
        detail_plain = match.best.marked("", "")
        more = f" (+{match.hit_count - 1} more)" if match.hit_count > 1 else ""
        detail_html += html.escape(more)
        position = match.best.position
    else:
        detail_plain = f"{when_text(summary.updated_at)} · title matches"
        detail_html = html.escape(detail_plain)
        position = -1
    return SidebarRow(summary, title_html, detail_html, f"{summary.display_title}: {detail_plain}", position)


class ConversationListModel(QAbstractListModel):
    """The rows the sidebar shows; renaming a row renames the conversation in the store."""

    def __init__(self, store: ConversationStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._rows: list[SidebarRow | GroupHeader] = []
        self._usage: dict[str, str] = {}  # conversation id -> its usage line, until the rows change
        self.last_error: JawadError | None = None

    def set_rows(self, rows: list[SidebarRow | GroupHeader]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._usage.clear()
        self.endResetModel()

    def usage_text(self, conversation_id: str) -> str:
        """What the conversation used ("" before its first answer): summed by the store on
        first hover (one indexed query, about a millisecond), then kept until the next refresh."""
        text = self._usage.get(conversation_id)
        if text is None:
            try:
                text = totals_text(self._store.usage_totals(conversation_id))
            except JawadError as exc:
                log.info("usage of %s not shown: %s", conversation_id, exc.message)
                text = ""
            self._usage[conversation_id] = text
        return text

    def row_of(self, conversation_id: str) -> int:
        for i, row in enumerate(self._rows):
            if isinstance(row, SidebarRow) and row.summary.id == conversation_id:
                return i
        return -1

    def header_row(self, project_id: str) -> int:
        """The row of ``project_id``'s header ("": no project's), or -1."""
        for i, row in enumerate(self._rows):
            if isinstance(row, GroupHeader) and row.project_id == project_id:
                return i
        return -1

    def row_at(self, index: int) -> SidebarRow | GroupHeader:
        return self._rows[index]

    def conversation_rows(self) -> list[int]:
        """The rows that are conversations (not headers), top to bottom."""
        return [i for i, row in enumerate(self._rows) if isinstance(row, SidebarRow)]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if isinstance(row, GroupHeader):
            return self._header_data(row, role)
        if role == Qt.ItemDataRole.DisplayRole:
            return row.summary.display_title
        if role == Qt.ItemDataRole.EditRole:
            return row.summary.title
        if role == Qt.ItemDataRole.ToolTipRole:
            usage = self.usage_text(row.summary.id)
            return f"{row.summary.display_title}\n{usage}" if usage else row.summary.display_title
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return row.accessible_text
        if role == IdRole:
            return row.summary.id
        if role == TitleHtmlRole:
            return row.title_html
        if role == DetailHtmlRole:
            return row.detail_html
        if role == PositionRole:
            return row.position
        return None

    @staticmethod
    def _header_data(header: GroupHeader, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return header.name
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return header.accessible
        if role == TitleHtmlRole:
            return html.escape(header.name)
        if role == HeaderRole:
            return True
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if index.isValid() and isinstance(self._rows[index.row()], GroupHeader):
            return Qt.ItemFlag.NoItemFlags
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.isValid() else base

    def setData(
        self, index: QModelIndex | QPersistentModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole
    ) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        row = self._rows[index.row()]
        if isinstance(row, GroupHeader):
            return False
        try:
            self._store.rename(row.summary.id, str(value))
        except JawadError as exc:
            self.last_error = exc
            log.warning("rename failed: %s", exc.message)
            return False
        # The ConversationsChanged event refreshes the list; show the new title at once too.
        summary = self._store.get(row.summary.id)
        self._rows[index.row()] = replace(row_for_summary(summary), project_name=row.project_name)
        self.dataChanged.emit(index, index)
        return True
