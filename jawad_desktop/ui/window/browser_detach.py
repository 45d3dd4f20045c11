"""The browser in its own window: View → Browser in its own window (Ctrl+Shift+N) or the button on
the browser's toolbar moves the browser's column into a top-level window of its own, and the chat
has the main window; the same command, the button, or closing that window puts it back.

The column moves, it is not rebuilt: the same views and pages, so the agent's driver, the tabs,
the "Take over" banner, the action log and Harbor's checks go on working while the user watches
the agent in the separate window. Folded (View → Browser) while detached, the window hides; the
agent working in the page shows it again, without taking the keyboard from the chat.

Whether the browser is detached and where its window stands are kept in the UI settings
(``browser_detached``, ``browser_window_geometry``) with the rest of the window's layout.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget

from jawad_desktop.ui.window.browser_toggle import MIN_WIDTH, WATCH_SHARE

if TYPE_CHECKING:
    from jawad_desktop.ui.window.browser_toggle import BrowserToggle

log = logging.getLogger("jawad.ui.window")

SHORTCUT = "Ctrl+Shift+N"
TITLE = "Jawad's browser"
DETACH_WORDS = "Open the browser in its own window"
ATTACH_WORDS = "Put the browser back in the main window"


class BrowserWindow(QWidget):
    """The detached browser's top-level window. Closing it asks for the browser to be put back
    (``close_requested``) instead of destroying it; ``close_for_good`` closes it with the app."""

    close_requested = Signal()

    def __init__(self) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.setWindowTitle(TITLE)
        self.setAccessibleName("Browser window")
        self.setObjectName("browserWindow")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self._for_good = False

    def close_for_good(self) -> None:
        self._for_good = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._for_good:
            event.accept()
            return
        event.ignore()
        self.close_requested.emit()


class BrowserDetach(QObject):
    """Moves ``toggle``'s column out of its splitter into a ``BrowserWindow`` and back, with a
    checkable ``action`` (View menu) and ``button`` (the browser's toolbar)."""

    def __init__(self, toggle: BrowserToggle, button: QToolButton, parent: QWidget) -> None:
        super().__init__(parent)
        self.toggle = toggle
        self.split = toggle.split
        self.column = toggle.column
        self.button = button
        self.window: BrowserWindow | None = None
        self.geometry = ""  # base64 of the detached window's geometry, as last seen
        self._width = 0  # the browser's width in the splitter when it left
        self.action = QAction("Browser in its own &window", parent)
        self.action.setCheckable(True)
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setToolTip(f"{DETACH_WORDS} ({SHORTCUT}); again, or closing it, puts it back")
        self.action.toggled.connect(self.set_detached)
        parent.addAction(self.action)
        from jawad_desktop.ui.look.icons import icon  # not on the way to the first frame

        button.setIcon(icon("external-link"))
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        button.setCheckable(True)
        button.clicked.connect(lambda: self.action.setChecked(self.button.isChecked()))
        self._name_button()

    def is_detached(self) -> bool:
        return self.window is not None and self.column.window() is self.window

    def split_sizes(self) -> list[int]:
        """The splitter's sizes as they would be with the browser in it (to keep between runs)."""
        sizes = list(self.split.sizes())
        return self._with_browser(sizes) if self.is_detached() else sizes

    def fit_sizes(self, sizes: list[int] | None) -> list[int] | None:
        """Saved sizes (the browser's pane last) for the splitter while the browser is in its own
        window: its width goes to the widest other pane, and is given back when it returns."""
        if not sizes or not self.is_detached() or len(sizes) != self.split.count() + 1:
            return sizes
        *others, self._width = sizes
        widest = max(range(len(others)), key=others.__getitem__)
        others[widest] += self._width + self.split.handleWidth()
        return others

    def _with_browser(self, others: list[int]) -> list[int]:
        """``others`` (the splitter's sizes without the browser) with the browser's width added
        last, taken from the widest pane."""
        total = sum(others)
        width = self._width if self._width >= MIN_WIDTH else int(total * WATCH_SHARE)
        width = max(0, min(width, total - MIN_WIDTH * len(others)))
        widest = max(range(len(others)), key=others.__getitem__)
        sizes = list(others)
        sizes[widest] = max(0, sizes[widest] - width - self.split.handleWidth())
        return [*sizes, width]

    def set_detached(self, detached: bool, *, shown: bool = True) -> None:
        """Move the browser into its own window (shown there unless ``shown`` is false) or back."""
        if detached == self.is_detached():
            self._sync(detached)
            return
        if detached:
            self._detach(shown)
        else:
            self._attach()
        self._sync(detached)
        log.debug("browser %s", "detached" if detached else "put back")

    def _detach(self, shown: bool) -> None:
        if self.toggle.is_shown():
            self._width = self.split.sizes()[self.split.indexOf(self.column)]
        elif self.toggle.hidden_width >= MIN_WIDTH:
            self._width = self.toggle.hidden_width  # folded: the width it had
        width = self._width
        window = self.window
        if window is None:
            window = self.window = BrowserWindow()
            window.close_requested.connect(lambda: self.set_detached(False))
            # The window's keys work there too: fold it, put it back.
            window.addAction(self.toggle.action)
            window.addAction(self.action)
        layout = window.layout()
        assert layout is not None
        layout.addWidget(self.column)  # out of the splitter: the chat has the main window
        self.column.show()
        self.toggle.window = window
        if not (self.geometry and window.restoreGeometry(QByteArray.fromBase64(self.geometry.encode()))):
            self._place(window, width)
        self.toggle.set_shown(shown)  # the window shows (or stays folded away)
        if shown:
            window.raise_()
            window.activateWindow()

    def _place(self, window: BrowserWindow, width: int) -> None:
        """A first detached window: the browser's width (or 640), the main window's height, beside it."""
        main = self.split.window()
        window.resize(max(width, 640), max(main.height(), 480))
        screen = main.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry() if screen is not None else None
        beside = main.frameGeometry().topRight() + QPoint(8, 0)
        if room is not None and room.contains(beside + QPoint(window.width(), 0)):
            window.move(beside)
        elif room is not None:
            window.move(room.center() - window.rect().center())

    def _attach(self) -> None:
        window = self.window
        assert window is not None
        self.geometry = bytes(window.saveGeometry().toBase64().data()).decode()
        self.toggle.window = None
        sizes = self._with_browser(self.split.sizes())
        self.split.addWidget(self.column)  # the browser is the last pane
        self.column.show()
        self.split.setSizes(sizes)
        window.hide()
        self.toggle.action.setChecked(True)

    def remembered_geometry(self) -> str:
        """The detached window's geometry to keep (base64), the current one while it is out."""
        if self.window is not None and self.is_detached():
            self.geometry = bytes(self.window.saveGeometry().toBase64().data()).decode()
        return self.geometry

    def close_with_app(self) -> None:
        """The main window closes: the browser back in it (the choice saved stays) and its own
        window closed, so nothing outlives the app and the pages are released with the window."""
        if self.is_detached():
            self.remembered_geometry()
            window = self.window
            self.toggle.window = None
            self.split.addWidget(self.column)
            if window is not None:
                window.hide()
        if self.window is not None:
            self.window.close_for_good()
            self.window.deleteLater()
            self.window = None

    def _sync(self, detached: bool) -> None:
        if self.action.isChecked() != detached:
            self.action.blockSignals(True)
            self.action.setChecked(detached)
            self.action.blockSignals(False)
        self.button.setChecked(detached)
        self._name_button()

    def _name_button(self) -> None:
        words = ATTACH_WORDS if self.is_detached() else DETACH_WORDS
        self.button.setAccessibleName(words)
        self.button.setToolTip(f"{words} ({SHORTCUT})")
