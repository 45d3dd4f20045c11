"""The message list (``ChatView``): a virtualised ``QListView`` over ``ChatModel`` painted by
``ChatDelegate``. It follows the bottom while an answer streams, shows earlier messages when
scrolled to the top, and gives each message's actions (copy, read aloud, remember, copy a code
block, open a link, a tool card's details) to the mouse, the keyboard and its context menu.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QContextMenuEvent, QGuiApplication, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QAbstractItemView, QListView, QMenu, QWidget

from jawad_desktop.core.markdown import code_blocks
from jawad_desktop.ui.chat.chat_model import ChatModel
from jawad_desktop.ui.chat.message_painter import ChatDelegate


class ChatView(QListView):
    """The message list. Emits ``link_activated(url)`` for links in messages,
    ``read_aloud_requested(markdown)`` from an answer's menu once ``can_read_aloud`` is set, and
    ``remember_requested(text)`` from a message's menu once ``can_remember`` is set."""

    link_activated = Signal(str)
    read_aloud_requested = Signal(str)
    remember_requested = Signal(str)  # a message's Remember: its text
    can_read_aloud = False  # a speaker is attached (the window's voice set-up)
    can_remember = False  # the assistant has a memory

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chat_model = ChatModel(self)
        self.setModel(self.chat_model)
        self.chat_delegate = ChatDelegate(self)
        self.setItemDelegate(self.chat_delegate)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setUniformItemSizes(False)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setWordWrap(True)
        self.setMouseTracking(True)
        self.setAccessibleName("Conversation")
        self.setObjectName("conversation")
        self.setAccessibleDescription("Messages of this conversation; links open in the browser")
        self._stick_to_bottom = True
        self._bottom_timer = self._timer(self.scrollToBottom)
        self._earlier_timer = self._timer(self.show_earlier)
        self.verticalScrollBar().valueChanged.connect(self._remember_position)
        self.chat_model.rowsInserted.connect(self._follow)
        self.chat_model.dataChanged.connect(self._follow)
        self.chat_model.item_grew.connect(self._row_grew)
        self.chat_delegate.sizeHintChanged.connect(self._follow)
        self.chat_model.modelReset.connect(self._follow)
        self.chat_model.modelReset.connect(self.chat_delegate.forget_streams)

    def _timer(self, slot: Any) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(0)
        timer.timeout.connect(slot)
        return timer

    def _remember_position(self, value: int) -> None:
        self._stick_to_bottom = value >= self.verticalScrollBar().maximum() - 4
        if value == 0 and self.chat_model.hidden_count():
            self._earlier_timer.start()

    def show_earlier(self) -> None:
        """Show earlier messages above, keeping the row under the user's eyes in place."""
        anchor = self.indexAt(QPoint(4, 4))
        anchor_id = self.chat_model.item_at(anchor.row()).id if anchor.isValid() else None
        if not self.chat_model.show_earlier():
            return
        if anchor_id is not None:
            row = self.chat_model.row_of(anchor_id)
            self.scrollTo(self.chat_model.index(row), QAbstractItemView.ScrollHint.PositionAtTop)

    def _row_grew(self, row: int) -> None:
        index = self.chat_model.index(row)
        item = self.chat_model.item_at(row)
        width = self.chat_delegate.text_width(self.viewport().width())
        self.chat_delegate.document(item, width)  # lay out the new text once (paint reuses it)
        new = self.chat_delegate.exact_height(item, width)
        if new != self.chat_delegate.painted_height.get(item.id):
            # A new line: rows below and the scroll range move. Only the rows shown are laid
            # out again (see ChatModel.WINDOW).
            self.scheduleDelayedItemsLayout()
        else:
            self.viewport().update(self.visualRect(index))
        self._follow()

    def _follow(self, *args: Any) -> None:
        if self._stick_to_bottom:
            self._bottom_timer.start()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.scheduleDelayedItemsLayout()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        index = self.indexAt(event.position().toPoint())
        href = self.chat_delegate.anchor_at(index, event.position().toPoint()) if index.isValid() else ""
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if href else Qt.CursorShape.ArrowCursor)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        index = self.indexAt(event.position().toPoint())
        if index.isValid() and event.button() == Qt.MouseButton.LeftButton:
            href = self.chat_delegate.anchor_at(index, event.position().toPoint())
            if href:
                self.activate_link(index.row(), href)
                return
        super().mouseReleaseEvent(event)

    def activate_link(self, row: int, href: str) -> None:
        """Follow a link of row ``row``: copy a code block, toggle a card, or open a URL."""
        item = self.chat_model.item_at(row)
        if href.startswith("copy:"):
            blocks = code_blocks(item.markdown())
            n = int(href[5:]) if href[5:].isdigit() else -1
            if 0 <= n < len(blocks):
                QGuiApplication.clipboard().setText(blocks[n])
        elif href.startswith("toggle:"):
            self.chat_model.update(item.id, expanded=not item.expanded)
        elif href.startswith(("http://", "https://")):
            self.link_activated.emit(href)

    def copy_selected(self) -> None:
        index = self.currentIndex()
        if index.isValid():
            QGuiApplication.clipboard().setText(self.chat_model.item_at(index.row()).text)

    def actions_for(self, row: int) -> list[tuple[str, str]]:
        """What can be done on row ``row`` from the keyboard and its menu, as (label, link) pairs
        for ``activate_link``: a tool card's details, each code block's copy, each web link."""
        item = self.chat_model.item_at(row)
        actions: list[tuple[str, str]] = []
        if item.role == "tool":
            actions.append(("Hide the details" if item.expanded else "Show the details", "toggle:"))
        for n, _code in enumerate(code_blocks(item.markdown())):
            actions.append((f"Copy code block {n + 1}", f"copy:{n}"))
        seen: set[str] = set()
        for title, url in _LINK_RE.findall(item.markdown()) + [("", u) for u in _BARE_URL_RE.findall(item.text)]:
            url = url.rstrip(".,;:)")
            if url not in seen:
                seen.add(url)
                actions.append((f"Open {title or url}"[:90], url))
        return actions

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selected()
            return
        index = self.currentIndex()
        # A tool card opens and closes from the keyboard; a message's own menu has the rest.
        if (index.isValid() and event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and self.chat_model.item_at(index.row()).role == "tool"):
            self.activate_link(index.row(), "toggle:")
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """The message's menu (right click, the Menu key, Shift+F10): copy it, read an answer
        aloud, copy its code blocks, open its links, show or hide a tool card's details."""
        index = self.indexAt(event.pos()) if event.reason() == QContextMenuEvent.Reason.Mouse else self.currentIndex()
        if not index.isValid():
            return
        self.setCurrentIndex(index)
        menu = QMenu(self)
        menu.setAccessibleName("Message actions")
        menu.addAction("Copy the message", self.copy_selected)
        row = index.row()
        item = self.chat_model.item_at(row)
        if self.can_read_aloud and item.role == "assistant" and item.text.strip():
            menu.addAction("Read aloud", functools.partial(self.read_aloud_requested.emit, item.text))
        if self.can_remember and item.role in ("user", "assistant") and item.text.strip():
            menu.addAction("Remember this", functools.partial(self.remember_requested.emit, item.text))
        for label, href in self.actions_for(row):
            menu.addAction(label, functools.partial(self.activate_link, row, href))
        where = event.globalPos() if event.reason() == QContextMenuEvent.Reason.Mouse else (
            self.viewport().mapToGlobal(self.visualRect(index).topLeft()))
        menu.popup(where)


_LINK_RE = re.compile(r"\[([^\]]{1,80})\]\((https?://[^)\s]+)\)")
_BARE_URL_RE = re.compile(r"(?<![(\[])https?://[^\s<>\])]+")
