"""The dismissable notice line above the chat (corrupt settings, no keyring, ...)."""

from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.look.theme import SPACE


class Banner(QWidget):
    """A dismissable line above the chat for notices (corrupt settings, no keyring, ...)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName("Notice")
        close = QToolButton(self)
        close.setIcon(icon("x"))
        close.setToolTip("Dismiss")
        close.setAccessibleName("Dismiss notice")
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(SPACE["sm"], SPACE["xs"], SPACE["xs"], SPACE["xs"])
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        self.setAutoFillBackground(True)
        self.hide()

    def show_text(self, level: str, text: str) -> None:
        palette = self.palette()
        colour = {"error": "#f6d5d5", "warning": "#fff1c2"}.get(level, "#dbeafe")
        palette.setColor(QPalette.ColorRole.Window, colour)
        palette.setColor(QPalette.ColorRole.WindowText, QtCore.Qt.GlobalColor.black)
        self.setPalette(palette)
        current = self.label.text() if self.isVisible() else ""
        self.label.setText(f"{current}\n{text}".strip())
        self.show()
