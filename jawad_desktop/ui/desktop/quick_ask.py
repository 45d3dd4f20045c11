"""The quick-ask window: a small always-on-top box with one input, opened by a global hotkey or
the tray. Enter hands the question to ``asked(text)`` (``ui.desktop.shell`` sends it through the
window's presenter and brings the window forward, where the answer streams) and closes the box;
Escape closes it. When the question cannot be taken now (the assistant is still answering), the
box stays open with the reason under the input.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QVBoxLayout, QWidget

from jawad_desktop import APP_NAME
from jawad_desktop.ui.look.theme import SPACE, type_step

WIDTH = 560


class QuickAskWindow(QFrame):
    """One line to ask Jawad something from anywhere."""

    asked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        flags = (Qt.WindowType.Tool | Qt.WindowType.WindowStaysOnTopHint | Qt.WindowType.FramelessWindowHint)
        super().__init__(parent, flags)
        self.setObjectName("quickAsk")
        self.setWindowTitle(f"Ask {APP_NAME}")
        self.setAccessibleName(f"Quick ask {APP_NAME}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
        self.input = QLineEdit(self)
        self.input.setObjectName("quickAskInput")
        self.input.setAccessibleName("Question for Jawad")
        self.input.setPlaceholderText("Ask Jawad… (Enter to send, Escape to close)")
        self.input.setMinimumHeight(36)
        self.input.setFont(type_step(self.input.font(), "heading"))
        self.input.returnPressed.connect(self._submit)
        self.input.installEventFilter(self)
        self.problem = QLabel(self)
        self.problem.setAccessibleName("Why the question was not sent")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(*[SPACE["md"]] * 4)
        layout.addWidget(self.input)
        layout.addWidget(self.problem)
        self.setFixedWidth(WIDTH)

    def open(self) -> None:
        """Show it at the top third of the screen under the pointer, focused, the input empty."""
        self.input.clear()
        self.problem.hide()
        self.adjustSize()
        screen = QGuiApplication.screenAt(self.cursor().pos()) or QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.move(area.x() + (area.width() - self.width()) // 2, area.y() + area.height() // 4)
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def refuse(self, reason: str) -> None:
        """The question was not taken: say why and keep it for another try."""
        self.problem.setText(reason)
        self.problem.show()
        self.adjustSize()

    def _submit(self) -> None:
        text = self.input.text().strip()
        if not text:
            return
        self.asked.emit(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Escape closes the box, even where another window's Escape shortcut (the main window's
        Stop) would take the key first: the box claims it (ShortcutOverride)."""
        if watched is self.input and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape:
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()
                return True
            if event.type() == QEvent.Type.KeyPress:
                self.close()
                return True
        return super().eventFilter(watched, event)
