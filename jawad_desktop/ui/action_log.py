"""The action log panel: every tool call with time, tool, site, level, decision and result.

Rows come from ``ActionLogUpdate`` events; an update with a known id replaces its row
(a call goes from pending to success or error).
"""

from __future__ import annotations

import json
import time
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from jawad_desktop.core.events import ActionLogEntry

ModelIndex = QModelIndex | QPersistentModelIndex

COLUMNS = ("Time", "Tool", "Site", "Level", "Decision", "Result", "Details")


class ActionLogModel(QAbstractTableModel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[ActionLogEntry] = []
        self._by_id: dict[str, int] = {}

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self._cell(entry, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            params = json.dumps(entry.parameters, ensure_ascii=False, indent=1)
            return f"{entry.tool_name}({params})\n{entry.details}"
        return None

    @staticmethod
    def _cell(entry: ActionLogEntry, column: int) -> str:
        if column == 0:
            return time.strftime("%H:%M:%S", time.localtime(entry.timestamp / 1000))
        return [
            "",
            entry.tool_name,
            entry.site,
            entry.permission_level,
            entry.decision,
            entry.result,
            entry.details.replace("\n", " ")[:200],
        ][column]

    def upsert(self, entry: ActionLogEntry) -> None:
        row = self._by_id.get(entry.id)
        if row is not None:
            self._rows[row] = entry
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
            return
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(entry)
        self._by_id[entry.id] = row
        self.endInsertRows()

    def clear(self) -> None:
        self.beginResetModel()
        self._rows.clear()
        self._by_id.clear()
        self.endResetModel()

    def entries(self) -> list[ActionLogEntry]:
        return list(self._rows)


class ActionLogView(QTableView):
    """The panel's table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.log_model = ActionLogModel(self)
        self.setModel(self.log_model)
        self.setAccessibleName("Action log")
        self.setAccessibleDescription("Every action Jawad took, with its permission decision and result")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.log_model.rowsInserted.connect(lambda *_: self.scrollToBottom())
