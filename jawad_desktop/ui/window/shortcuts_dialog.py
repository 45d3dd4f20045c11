"""Help → Keyboard shortcuts: every key the window answers to, in one readable table.

The menu commands are read from the window's menus themselves (their words and their keys), so
the table cannot drift from what the keys do; the keys that belong to a place (the message input,
a permission or plan panel, the history list, the browser) are listed after them, with the
constants their widgets use where there is one. Non-modal, like every dialog of the window.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMenu,
    QMenuBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.ui.prompts.permission_panel import DECISIONS
from jawad_desktop.ui.prompts.plan_panel import APPROVE_KEYS
from jawad_desktop.ui.prompts.take_over_banner import CONTINUE_KEYS


def _native(keys: str | QKeySequence) -> str:
    sequence = keys if isinstance(keys, QKeySequence) else QKeySequence(keys)
    return sequence.toString(QKeySequence.SequenceFormat.NativeText)


def _mnemonic(text: str) -> str:
    """The letter after the "&" of a button's text ("Allow &once" -> "O")."""
    return text[text.index("&") + 1].upper()


# The keys of a place in the window, not of a menu: (place, ((keys, what they do), ...)).
PLACES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Message input", (
        ("Return", "Send the message"),
        ("Shift+Return", "Start a new line"),
        ("Tab", "Go to the next control (Shift+Tab: the previous one)"),
    )),
    ("Permission request", (
        *((f"Alt+{_mnemonic(text)}", tip) for _decision, text, tip in DECISIONS),
        ("Escape", "Deny (while the request has the keyboard)"),
    )),
    ("Plan to approve", (
        (APPROVE_KEYS, "Approve the plan"),
        ("Escape", "Reject the plan (while the plan has the keyboard)"),
    )),
    ("Take-over banner", (
        (CONTINUE_KEYS, "Continue: you are done on the page"),
    )),
    ("Conversation list", (
        ("Return", "Open the conversation"),
        ("F2", "Rename it"),
        ("Delete", "Delete it"),
        ("Ctrl+Z", "Bring back the conversation deleted last"),
        ("Down", "From the search box: go to the results"),
    )),
    ("Browser", (
        ("Alt+Left", "Back"),
        ("Alt+Right", "Forward"),
        ("F5", "Reload"),
        ("Ctrl+Shift+L", "Go to the address (while the browser has the keyboard)"),
        ("Ctrl+Tab", "Next tab (Ctrl+Shift+Tab: the previous one)"),
        ("Ctrl+W", "Close the tab"),
    )),
)


def menu_shortcuts(menu_bar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu, command, keys) for every command of the menus that has keys, in menu order."""
    found: list[tuple[str, str, str]] = []
    for menu_action in menu_bar.actions():
        menu = menu_action.menu()
        if not isinstance(menu, QMenu):
            continue
        title = menu_action.text().replace("&", "")
        for action in menu.actions():
            if isinstance(action, QAction) and not action.shortcut().isEmpty():
                found.append((title, action.text().replace("&", "").rstrip("…"), _native(action.shortcut())))
    return found


class ShortcutsDialog(QDialog):
    """A two-column tree: the keys and what they do, grouped by menu and by place."""

    def __init__(self, menu_bar: QMenuBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setAccessibleName("Keyboard shortcuts")
        self.resize(560, 600)
        intro = QLabel("Every command works from the keyboard. Tab and Shift+Tab move between "
                       "the history, the chat, the action log and the browser.", self)
        intro.setWordWrap(True)
        self.table = QTreeWidget(self)
        self.table.setObjectName("shortcutsTable")
        self.table.setAccessibleName("Keyboard shortcuts")
        self.table.setColumnCount(2)
        self.table.setHeaderLabels(["Keys", "What they do"])
        self.table.setRootIsDecorated(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        groups: dict[str, list[tuple[str, str]]] = {}
        for menu, command, keys in menu_shortcuts(menu_bar):
            groups.setdefault(f"{menu} menu", []).append((keys, command))
        for place, keys_and_words in PLACES:
            groups[place] = [(_native(keys), what) for keys, what in keys_and_words]
        for group, rows in groups.items():
            self._add_group(group, rows)
        self.table.expandAll()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def _add_group(self, title: str, rows: Iterable[tuple[str, str]]) -> None:
        group = QTreeWidgetItem(self.table, [title])
        group.setFirstColumnSpanned(True)
        font = group.font(0)
        font.setBold(True)
        group.setFont(0, font)
        group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        for keys, what in rows:
            item = QTreeWidgetItem(group, [keys, what])
            item.setData(0, Qt.ItemDataRole.AccessibleTextRole, f"{keys}: {what}")

    def rows(self) -> list[tuple[str, str, str]]:
        """(group, keys, what) as shown, for the tests and for copying."""
        found: list[tuple[str, str, str]] = []
        for g in range(self.table.topLevelItemCount()):
            group = self.table.topLevelItem(g)
            if group is None:
                continue
            for i in range(group.childCount()):
                child = group.child(i)
                if child is not None:
                    found.append((group.text(0), child.text(0), child.text(1)))
        return found
