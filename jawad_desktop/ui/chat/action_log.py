"""The action log: every tool call with time, tool, site, level, decision and result.

Rows come from ``ActionLogUpdate`` events; an update with a known id replaces its row
(a call goes from pending to success or error). ``ActionLogDrawer`` holds the table under the
chat: collapsed to a one-line header ("3 actions · last: opened shop.test") until opened (a
click, or Ctrl+Shift+A through the window's menu), with a filter (every action, errors and
denials, one tool, one site). The window's splitter remembers its height when open.
"""

from __future__ import annotations

import json
import time
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QSizePolicy,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.ui.look.icons import TOOL_STATES, icon
from jawad_desktop.ui.look.theme import SPACE

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
        if role == Qt.ItemDataRole.DecorationRole and COLUMNS[index.column()] == "Result":
            name, colour, _words = TOOL_STATES.get(entry.result, TOOL_STATES["pending"])
            return icon(name, colour)  # the same icons as the chat's tool cards
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

    def entry_at(self, row: int) -> ActionLogEntry:
        return self._rows[row]


class ActionLogView(QTableView):
    """The panel's table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.log_model = ActionLogModel(self)
        self.filter_model = ActionLogFilter(self)
        self.filter_model.setSourceModel(self.log_model)
        self.setModel(self.filter_model)
        self.setAccessibleName("Action log")
        self.setAccessibleDescription("Every action Jawad took, with its permission decision and result")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTabKeyNavigation(False)  # Tab leaves the log (arrows move in it), not a keyboard trap
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.log_model.rowsInserted.connect(lambda *_: self.scrollToBottom())


# What a call did, in words, for the drawer's header: tool -> (verb, the argument to quote).
_VERBS: dict[str, tuple[str, str]] = {
    "navigate": ("opened", "url"),
    "click_element": ("clicked", "text"),
    "type_text": ("typed", "text"),
    "fill_form": ("filled a form", ""),
    "select_option": ("chose", "option"),
    "scroll_page": ("scrolled", ""),
    "go_back": ("went back", ""),
    "read_page": ("read the page", ""),
    "summarize_page": ("summarized the page", ""),
    "search_web": ("searched", "query"),
    "calculate": ("calculated", "expression"),
}


def describe(entry: ActionLogEntry) -> str:
    """One action in a few words: "clicked 'Add to cart'", "opened shop.test (denied)"."""
    verb, key = _VERBS.get(entry.tool_name, (entry.tool_name.replace("_", " "), ""))
    value = entry.parameters.get(key) if key else None
    if entry.site and entry.tool_name == "navigate":
        words = f"{verb} {entry.site}"
    elif isinstance(value, str) and value:
        words = f"{verb} '{value[:40]}{'…' if len(value) > 40 else ''}'"
    else:
        words = verb
    if entry.result in ("error", "denied"):
        words += f" ({entry.result})"
    return words


def is_problem(entry: ActionLogEntry) -> bool:
    """An action that failed or that permission refused."""
    return entry.result in ("error", "denied") or entry.decision == "denied"


class ActionLogFilter(QSortFilterProxyModel):
    """The rows the drawer's filter lets through: every one, the problems, or one tool or site."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._mode = "all"  # all, problems, tool, site
        self._value = ""

    def set_filter(self, mode: str, value: str = "") -> None:
        self.beginFilterChange()
        self._mode, self._value = mode, value
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: ModelIndex) -> bool:
        model = self.sourceModel()
        if self._mode == "all" or not isinstance(model, ActionLogModel):
            return True
        entry = model.entry_at(source_row)
        if self._mode == "problems":
            return is_problem(entry)
        if self._mode == "tool":
            return entry.tool_name == self._value
        return entry.site == self._value


class ActionLogDrawer(QFrame):
    """The action log under the chat: a header line that opens and closes the table below it,
    and a filter. ``expanded_changed(bool)`` tells the window to give it room or take it back."""

    expanded_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("actionLogDrawer")
        self.setAccessibleName("Action log drawer")
        self.view = ActionLogView(self)
        self.log_model = self.view.log_model
        self.header = QToolButton(self)
        self.header.setObjectName("actionLogHeader")
        self.header.setCheckable(True)
        self.header.setAutoRaise(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setArrowType(Qt.ArrowType.RightArrow)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.header.setToolTip("Show or hide every action Jawad took (Ctrl+Shift+A)")
        self.header.toggled.connect(self.set_expanded)
        self.filter = QComboBox(self)
        self.filter.setObjectName("actionLogFilter")
        self.filter.setAccessibleName("Show which actions")
        self.filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.filter.currentIndexChanged.connect(self._apply_filter)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.filter, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(SPACE["xxs"])
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        self._expanded: bool | None = None
        self.log_model.rowsInserted.connect(self._refresh)
        self.log_model.dataChanged.connect(self._refresh)
        self.log_model.modelReset.connect(self._refresh)
        self._refresh()
        self.set_expanded(False)

    def is_expanded(self) -> bool:
        return bool(self._expanded)

    def collapsed_height(self) -> int:
        """The header line's height: all the drawer takes when closed."""
        return self.header.sizeHint().height() + 2

    def set_expanded(self, expanded: bool) -> None:
        """Open the table (with its filter) or close the drawer to its header line."""
        if expanded == self._expanded:
            return
        self._expanded = expanded
        self.header.blockSignals(True)
        self.header.setChecked(expanded)
        self.header.blockSignals(False)
        self.header.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.view.setVisible(expanded)
        self.filter.setVisible(expanded)
        self.setMaximumHeight(16_777_215 if expanded else self.collapsed_height())
        self.expanded_changed.emit(expanded)

    def toggle(self) -> None:
        self.set_expanded(not self.is_expanded())

    def _refresh(self, *args: Any) -> None:
        entries = self.log_model.entries()
        if not entries:
            self.header.setText("Action log · no actions yet")
        else:
            count = f"{len(entries)} action{'s' if len(entries) != 1 else ''}"
            problems = sum(1 for e in entries if is_problem(e))
            trouble = f" · {problems} failed or denied" if problems else ""
            self.header.setText(f"{count}{trouble} · last: {describe(entries[-1])}")
        self.header.setAccessibleName(f"Action log: {self.header.text()}")
        self._fill_filter(entries)

    def _fill_filter(self, entries: list[ActionLogEntry]) -> None:
        # Each choice's data is "mode:value" (a mode has no colon; a site may).
        choices = [("All actions", "all:"), ("Errors and denials", "problems:")]
        choices += [(f"Tool: {t}", f"tool:{t}") for t in sorted({e.tool_name for e in entries})]
        choices += [(f"Site: {s}", f"site:{s}") for s in sorted({e.site for e in entries if e.site})]
        if [self.filter.itemData(i) for i in range(self.filter.count())] == [c[1] for c in choices]:
            return
        current = self.filter.currentData()
        self.filter.blockSignals(True)
        self.filter.clear()
        for label, data in choices:
            self.filter.addItem(label, data)
        kept = [i for i, (_label, data) in enumerate(choices) if data == current]
        self.filter.setCurrentIndex(kept[0] if kept else 0)
        self.filter.blockSignals(False)
        self._apply_filter()

    def show_only(self, choice: str) -> None:
        """Filter to ``choice`` ("all:", "problems:", "tool:NAME", "site:HOST") if it is offered."""
        index = self.filter.findData(choice)
        if index >= 0:
            self.filter.setCurrentIndex(index)

    def _apply_filter(self, *args: Any) -> None:
        mode, _, value = str(self.filter.currentData() or "all:").partition(":")
        self.view.filter_model.set_filter(mode, value)
