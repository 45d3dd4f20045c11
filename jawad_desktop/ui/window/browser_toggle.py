"""The browser's column, collapsible: View → Browser (Ctrl+Shift+B) hides it so the chat has the
window, and shows it again at the width it had. When the agent works in the page (a browser
tool's entry in the action log) a hidden browser comes back and a narrow one gets the room it
needs to be watched: the user sees what is done on their behalf.

While the browser is in its own window (``browser_detach``) the same action shows and hides that
window, and the agent working in the page shows it again (without taking the keyboard).

Whether the browser was shown is remembered with the window's layout (``splitter_sizes["browser"]``:
[1] shown, [0] hidden).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QSplitter, QWidget

from jawad_desktop.core.events import ActionLogEntry

log = logging.getLogger("jawad.ui.window")

SHORTCUT = "Ctrl+Shift+B"
WATCH_SHARE = 0.45  # the share of the window a browser the agent works in gets, at least
MIN_WIDTH = 240  # narrower than this, a shown browser is given its remembered width again


def browser_tool_names() -> frozenset[str]:
    """The tools that act in the page (read, click, type...): the agent is working in the browser."""
    from jawad_desktop.core.tools.browser.browser_tools import browser_registry

    return frozenset(browser_registry().all_names())


class BrowserToggle(QObject):
    """Shows and hides ``column`` (the last widget of ``split``) with a checkable ``action``."""

    def __init__(self, split: QSplitter, column: QWidget, parent: QWidget) -> None:
        super().__init__(parent)
        self.split = split
        self.column = column
        self.hidden_width = 0  # the column's width when it was last hidden
        self._tools: frozenset[str] | None = None
        self.window: QWidget | None = None  # the browser's own window while it is detached
        self.action = QAction("&Browser", parent)
        self.action.setCheckable(True)
        self.action.setChecked(True)
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setToolTip(f"Show or hide the browser ({SHORTCUT}); the chat takes the room")
        self.action.toggled.connect(self.set_shown)
        parent.addAction(self.action)

    def is_shown(self) -> bool:
        return not (self.window if self.window is not None else self.column).isHidden()

    def set_shown(self, shown: bool) -> None:
        """Show or hide the browser; shown again, it has the width it had."""
        if shown == self.is_shown():
            self.action.setChecked(shown)
            return
        if self.window is not None:  # detached: its window comes and goes
            self.window.setVisible(shown)
            self.action.setChecked(shown)
            return
        sizes = self.split.sizes()
        index = self.split.indexOf(self.column)
        if not shown:
            self.hidden_width = sizes[index]
            self.column.hide()
        else:
            self.column.show()
            self._give(self.hidden_width if self.hidden_width >= MIN_WIDTH else int(sum(sizes) * WATCH_SHARE))
        self.action.setChecked(shown)
        log.debug("browser %s", "shown" if shown else "hidden")

    def _give(self, width: int) -> None:
        """The column ``width`` pixels wide, taken from the widest other pane."""
        sizes = self.split.sizes()
        index = self.split.indexOf(self.column)
        total = sum(sizes)
        width = min(width, max(0, total - 2 * MIN_WIDTH))
        grow = width - sizes[index]
        if grow <= 0:
            return
        widest = max((i for i in range(len(sizes)) if i != index), key=lambda i: sizes[i])
        sizes[widest] = max(0, sizes[widest] - grow)
        sizes[index] = width
        self.split.setSizes(sizes)

    def agent_acted(self, entry: ActionLogEntry) -> None:
        """An action-log entry: a browser tool brings the browser back, given room to watch."""
        if self._tools is None:
            self._tools = browser_tool_names()
        if entry.tool_name not in self._tools:
            return
        if self.window is not None:
            self._show_window(self.window)
            return
        sizes = self.split.sizes()
        if not self.is_shown() or sizes[self.split.indexOf(self.column)] < MIN_WIDTH:
            # A width the user chose is kept; a hidden or squeezed browser gets room to watch.
            self.column.show()
            self.action.setChecked(True)
            self._give(int(sum(sizes) * WATCH_SHARE))

    def _show_window(self, window: QWidget) -> None:
        """The detached browser back on screen (folded or minimised), the keyboard left where it is."""
        if not window.isHidden() and not window.isMinimized():
            return
        window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
        if window.isMinimized():
            window.showNormal()
        else:
            window.show()
        window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
        self.action.setChecked(True)
