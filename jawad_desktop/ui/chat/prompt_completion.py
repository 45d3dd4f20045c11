"""Completion while typing an MCP prompt's slash command in the composer: after a short pause in typing
``/sum`` or ``/summarize topic=bu``, a list under the cursor offers the servers' prompts, then each
argument's values as the server completes them (``core.mcp.prompt_line.complete_prompt_line``).
Up and Down choose, Tab or Enter puts the choice in the line, Escape closes the list; while the list is
open Enter never sends the message. The input keeps the focus throughout."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QListWidget, QPlainTextEdit

from jawad_desktop.ui.base.background import run_async

if TYPE_CHECKING:
    from jawad_desktop.core.mcp.prompt_line import LineCompletion

log = logging.getLogger("jawad.ui")

Completer = Callable[[str], Coroutine[Any, Any, "LineCompletion | None"]]
_ACCEPT = (Qt.Key.Key_Tab, Qt.Key.Key_Return, Qt.Key.Key_Enter)


class PromptCompletion(QObject):
    """Offers completions of the slash command typed in ``editor``; ``complete(line)`` finds them (None:
    no MCP servers yet)."""

    PAUSE_MS = 200  # after this long without typing, the servers are asked

    def __init__(self, editor: QPlainTextEdit, complete: Callable[[], Completer | None]) -> None:
        super().__init__(editor)
        self.editor = editor
        self._complete = complete
        self._found: LineCompletion | None = None
        self.list = QListWidget()
        self.list.setWindowFlags(Qt.WindowType.ToolTip | Qt.WindowType.FramelessWindowHint)
        self.list.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setAccessibleName("Completions of the prompt")
        self.list.itemClicked.connect(lambda item: self._accept(item.text()))
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.PAUSE_MS)
        self._timer.timeout.connect(self._ask)
        editor.textChanged.connect(self._typed)
        editor.installEventFilter(self)
        editor.destroyed.connect(lambda *_: self.list.deleteLater())

    @property
    def showing(self) -> list[str]:
        """The values in the open list ([] when it is closed)."""
        return [self.list.item(i).text() for i in range(self.list.count())] if self.list.isVisible() else []

    def _typed(self) -> None:
        text = self.editor.toPlainText()
        if text.startswith("/") and "\n" not in text:
            self._timer.start()
        else:
            self._timer.stop()
            self.hide()

    def _ask(self) -> None:
        completer = self._complete()
        line = self.editor.toPlainText()
        if completer is None or not line.startswith("/"):
            return
        # A failed completion only goes to the log: the user is typing, and the line still runs as typed.
        run_async(completer(line), what="completing the prompt", on_done=lambda found: self._show(line, found),
                  on_error=lambda exc: log.info("no completion of %r: %s", line, exc))

    def _show(self, line: str, found: LineCompletion | None) -> None:
        if line != self.editor.toPlainText():  # typed on meanwhile: a newer answer is coming
            return
        self._found = found
        if found is None or not found.values:
            self.hide()
            return
        self.list.clear()
        self.list.addItems(found.values[:50])
        self.list.setCurrentRow(0)
        rect = self.editor.cursorRect()
        height = min(8, len(found.values)) * self.list.sizeHintForRow(0) + 2 * self.list.frameWidth() + 4
        self.list.setFixedSize(max(220, self.list.sizeHintForColumn(0) + 40), height)
        self.list.move(self.editor.viewport().mapToGlobal(rect.bottomLeft()))
        self.list.show()

    def hide(self) -> None:
        self.list.hide()
        self._found = None

    def _accept(self, value: str) -> None:
        found = self._found
        self.hide()
        if found is None:
            return
        line = self.editor.toPlainText()
        self.editor.setPlainText(line[:found.start] + value + " ")
        cursor = self.editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.editor.setTextCursor(cursor)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self.editor or not isinstance(event, QKeyEvent) or not self.list.isVisible():
            return False
        if event.type() != QEvent.Type.KeyPress:
            return False
        key = event.key()
        if key in _ACCEPT and self.list.currentItem() is not None:
            self._accept(self.list.currentItem().text())
            return True
        if key == Qt.Key.Key_Escape:
            self.hide()
            return True
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            step = -1 if key == Qt.Key.Key_Up else 1
            self.list.setCurrentRow(max(0, min(self.list.count() - 1, self.list.currentRow() + step)))
            return True
        return False


def attach(editor: QPlainTextEdit, connections: Callable[[], Any]) -> PromptCompletion:
    """Completion for ``editor`` from the MCP servers of ``connections()`` (None while none are connected)."""
    from jawad_desktop.core.mcp.prompt_line import complete_prompt_line

    def completer() -> Completer | None:
        offers = connections()
        if offers is None:
            return None
        return lambda line: complete_prompt_line(offers, line)

    return PromptCompletion(editor, completer)
