"""The chat's rows: ``ChatItem`` (a message, a tool-call card or a notice) and ``ChatModel``,
the list model the message list shows, with streamed text coalesced and flushed at most every
``FLUSH_MS`` and only the last ``ChatModel.WINDOW`` rows exposed until earlier ones are asked for.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

from jawad_desktop.ui.look.icons import state_markdown

FLUSH_MS = 33
_ids = itertools.count(1)

ModelIndex = QModelIndex | QPersistentModelIndex


@dataclass
class ChatItem:
    """One row: a message, a tool-call card, or a notice."""

    role: str  # user, assistant, tool, notice, error
    text: str = ""
    tool_name: str = ""
    tool_args: dict[str, Any] = field(default_factory=dict)
    tool_result: str = ""
    tool_status: str = ""  # pending, success, error, denied
    expanded: bool = False
    streaming: bool = False
    usage: str = ""  # the answer's tokens and cost, shown small under it (core.llm.pricing.describe)
    progress: str = ""  # a running tool's progress ("3 of 5 · Step 3"), shown while it is pending
    id: int = field(default_factory=lambda: next(_ids))
    version: int = 0

    def markdown(self) -> str:
        if self.role != "tool":
            return self.text
        head = f"{state_markdown(self.tool_status)} **{self.tool_name}**"  # an icon: no missing glyph
        if not self.expanded:
            summary = self.tool_result.splitlines()[0][:120] if self.tool_result else self.tool_status
            if self.tool_status == "pending" and self.progress:
                summary = self.progress
            return f"{head} — {summary} · [show details](toggle:)"
        args = json.dumps(self.tool_args, ensure_ascii=False, indent=2)
        running = f"{self.progress}\n\n" if self.tool_status == "pending" and self.progress else ""
        return f"{head}\n\n```json\n{args}\n```\n\n{running}{self.tool_result}\n\n[hide details](toggle:)"


class ChatModel(QAbstractListModel):
    """The rows of the chat; the single source of truth for the view.

    Items are addressed by their ``id`` (rows shift when earlier messages are shown). Only
    the last ``WINDOW`` items are exposed to the view at first; ``show_earlier()`` exposes
    more (the view calls it when scrolled to the top). This bounds the cost of a relayout:
    a view over every one of 5,000 rows asks the delegate for 5,000 sizes each time.
    Streamed text does not emit ``dataChanged`` (which makes QListView lay out every row)
    but ``item_grew(row)``; the view repaints that row and relayouts only if its height changed.
    """

    ItemRole = Qt.ItemDataRole.UserRole + 1
    WINDOW = 200
    item_grew = Signal(int)  # row

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[ChatItem] = []
        self._offset = 0  # index in _items of the first row shown
        self._pending: dict[int, str] = {}  # item id -> text not yet flushed
        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(FLUSH_MS)
        self._flush.timeout.connect(self.flush)

    # Qt model interface
    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items) - self._offset

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self.rowCount():
            return None
        item = self._items[self._offset + index.row()]
        if role == self.ItemRole:
            return item
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return f"{item.role}: {item.text or item.tool_name}"
        return None

    # Looking up
    def item_at(self, row: int) -> ChatItem:
        """The item shown at ``row``."""
        return self._items[self._offset + row]

    def row_of(self, item_id: int) -> int:
        """The row showing item ``item_id``, or -1 (not shown, or gone)."""
        for i in range(len(self._items) - 1, self._offset - 1, -1):
            if self._items[i].id == item_id:
                return i - self._offset
        return -1

    def get(self, item_id: int) -> ChatItem | None:
        for item in reversed(self._items):
            if item.id == item_id:
                return item
        return None

    def items(self) -> list[ChatItem]:
        return list(self._items)

    def hidden_count(self) -> int:
        """How many earlier items are not shown yet."""
        return self._offset

    # Editing
    def append(self, item: ChatItem) -> int:
        """Add ``item`` at the end; returns its id."""
        row = self.rowCount()
        self.beginInsertRows(QModelIndex(), row, row)
        self._items.append(item)
        self.endInsertRows()
        return item.id

    def extend(self, items: list[ChatItem]) -> None:
        """Replace nothing, add ``items`` at the end; only the last WINDOW rows are shown."""
        if not items:
            return
        if not self._items:
            self.beginResetModel()
            self._items = list(items)
            self._offset = max(0, len(self._items) - self.WINDOW)
            self.endResetModel()
            return
        first = self.rowCount()
        self.beginInsertRows(QModelIndex(), first, first + len(items) - 1)
        self._items.extend(items)
        self.endInsertRows()

    def show_earlier(self, count: int | None = None) -> int:
        """Show up to ``count`` earlier items; returns how many were added at the top."""
        count = min(self._offset, count or self.WINDOW)
        if count <= 0:
            return 0
        self.beginInsertRows(QModelIndex(), 0, count - 1)
        self._offset -= count
        self.endInsertRows()
        return count

    def clear(self) -> None:
        self.beginResetModel()
        self._items.clear()
        self._offset = 0
        self._pending.clear()
        self.endResetModel()

    def append_text(self, item_id: int, delta: str) -> None:
        """Queue ``delta`` for item ``item_id``; the view updates at most every FLUSH_MS."""
        self._pending[item_id] = self._pending.get(item_id, "") + delta
        if not self._flush.isActive():
            self._flush.start()

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for item_id, text in pending.items():
            item = self.get(item_id)
            if item is None:
                continue
            item.text += text
            item.version += 1
            row = self.row_of(item_id)
            if row >= 0:
                self.item_grew.emit(row)

    def update(self, item_id: int, **changes: Any) -> None:
        if item_id in self._pending:
            self.flush()
        item = self.get(item_id)
        if item is None:
            return
        for key, value in changes.items():
            setattr(item, key, value)
        item.version += 1
        row = self.row_of(item_id)
        if row >= 0:
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def remove(self, item_id: int) -> ChatItem | None:
        self._pending.pop(item_id, None)
        for i, item in enumerate(self._items):
            if item.id != item_id:
                continue
            if i < self._offset:
                self._items.pop(i)
                self._offset -= 1
                return item
            row = i - self._offset
            self.beginRemoveRows(QModelIndex(), row, row)
            self._items.pop(i)
            self.endRemoveRows()
            return item
        return None
