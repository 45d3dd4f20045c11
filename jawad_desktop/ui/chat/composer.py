"""The composer's text field (``ChatInput``): Enter sends, Shift+Enter adds a line, it grows with
its text up to eight lines, and files or pictures pasted or dropped into it are attached.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QMimeData, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QSizePolicy, QWidget

from jawad_desktop.ui.chat.attachments_bar import files_in, save_pasted_image


class ChatInput(QPlainTextEdit):
    """Multi-line input: Enter sends, Shift+Enter adds a line. It grows with its text from
    ``MIN_LINES`` to ``MAX_LINES`` lines, then scrolls."""

    submitted = Signal()
    files_given = Signal(list)  # list[Path]: files pasted or dropped into the input
    MIN_LINES = 2
    MAX_LINES = 8

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerInput")
        self.setPlaceholderText("Ask Jawad anything — Enter sends, Shift+Enter adds a line")
        self.setAccessibleName("Message input")
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def lines_shown(self) -> int:
        """How many lines of text the input is tall now."""
        lines = int(self.document().documentLayout().documentSize().height())
        return max(self.MIN_LINES, min(self.MAX_LINES, lines))

    def _fit(self, *args: Any) -> None:
        margins = self.contentsMargins()
        height = (self.lines_shown() * self.fontMetrics().lineSpacing() + 2 * int(self.document().documentMargin())
                  + margins.top() + margins.bottom() + 2)
        if height != self.height() or self.minimumHeight() != height:
            self.setFixedHeight(height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()  # a narrower input wraps into more lines

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)

    # Files and pictures pasted (or dropped) into the input are attached, not typed as their paths.
    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(files_in(source)) or source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        files = files_in(source)
        if not files and source.hasImage() and not source.hasText():
            pasted = save_pasted_image(QImage(source.imageData()))
            files = [pasted] if pasted is not None else []
        if files:
            self.files_given.emit(files)
            return
        super().insertFromMimeData(source)
