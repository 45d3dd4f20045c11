"""The chat: a virtualised message list, the multi-line input, Send and Stop.

The list is a ``QListView`` over ``ChatModel``; each row is painted by ``ChatDelegate`` from
markdown rendered once and cached, so 5,000 messages stay smooth (only visible rows are laid
out; others use a cheap height estimate until first painted). Streaming deltas are coalesced
and flushed at most every ``FLUSH_MS`` so a fast model does not re-layout the last row per token.
Tool calls show as collapsible cards. Links open through ``link_activated``; code blocks have
Copy links. An answer may carry a small usage line under its text ("1,234 tokens · about $0.0021").
"""

from __future__ import annotations

import html
import itertools
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.markdown import code_blocks, render_markdown

log = logging.getLogger("jawad.ui.chat")

FLUSH_MS = 33
_ids = itertools.count(1)

ModelIndex = QModelIndex | QPersistentModelIndex


@dataclass
class ChatItem:
    """One row: a message, a tool-call card, or a notice."""

    role: str  # user, assistant, tool, notice, error
    text: str = ""
    tool_name: str = ""
    tool_args: dict[str, Any] = field(default_factory=dict)
    tool_result: str = ""
    tool_status: str = ""  # pending, success, error, denied
    expanded: bool = False
    streaming: bool = False
    usage: str = ""  # the answer's tokens and cost, shown small under it (core.llm.pricing.describe)
    id: int = field(default_factory=lambda: next(_ids))
    version: int = 0

    def markdown(self) -> str:
        if self.role != "tool":
            return self.text or ("…" if self.streaming else "")
        icon = {"success": "✓", "error": "✗", "denied": "⛔", "pending": "…"}.get(self.tool_status, "•")
        head = f"{icon} **{self.tool_name}**"
        if not self.expanded:
            summary = self.tool_result.splitlines()[0][:120] if self.tool_result else self.tool_status
            return f"{head} — {summary}  \n[show details](toggle:)"
        args = json.dumps(self.tool_args, ensure_ascii=False, indent=2)
        return f"{head}\n\n```json\n{args}\n```\n\n{self.tool_result}\n\n[hide details](toggle:)"


class ChatModel(QAbstractListModel):
    """The rows of the chat; the single source of truth for the view.

    Items are addressed by their ``id`` (rows shift when earlier messages are shown). Only
    the last ``WINDOW`` items are exposed to the view at first; ``show_earlier()`` exposes
    more (the view calls it when scrolled to the top). This bounds the cost of a relayout:
    a view over every one of 5,000 rows asks the delegate for 5,000 sizes each time.
    Streamed text does not emit ``dataChanged`` (which makes QListView lay out every row)
    but ``item_grew(row)``; the view repaints that row and relayouts only if its height changed.
    """

    ItemRole = Qt.ItemDataRole.UserRole + 1
    WINDOW = 200
    item_grew = Signal(int)  # row

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[ChatItem] = []
        self._offset = 0  # index in _items of the first row shown
        self._pending: dict[int, str] = {}  # item id -> text not yet flushed
        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(FLUSH_MS)
        self._flush.timeout.connect(self.flush)

    # Qt model interface
    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items) - self._offset

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self.rowCount():
            return None
        item = self._items[self._offset + index.row()]
        if role == self.ItemRole:
            return item
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return f"{item.role}: {item.text or item.tool_name}"
        return None

    # Looking up
    def item_at(self, row: int) -> ChatItem:
        """The item shown at ``row``."""
        return self._items[self._offset + row]

    def row_of(self, item_id: int) -> int:
        """The row showing item ``item_id``, or -1 (not shown, or gone)."""
        for i in range(len(self._items) - 1, self._offset - 1, -1):
            if self._items[i].id == item_id:
                return i - self._offset
        return -1

    def get(self, item_id: int) -> ChatItem | None:
        for item in reversed(self._items):
            if item.id == item_id:
                return item
        return None

    def items(self) -> list[ChatItem]:
        return list(self._items)

    def hidden_count(self) -> int:
        """How many earlier items are not shown yet."""
        return self._offset

    # Editing
    def append(self, item: ChatItem) -> int:
        """Add ``item`` at the end; returns its id."""
        row = self.rowCount()
        self.beginInsertRows(QModelIndex(), row, row)
        self._items.append(item)
        self.endInsertRows()
        return item.id

    def extend(self, items: list[ChatItem]) -> None:
        """Replace nothing, add ``items`` at the end; only the last WINDOW rows are shown."""
        if not items:
            return
        if not self._items:
            self.beginResetModel()
            self._items = list(items)
            self._offset = max(0, len(self._items) - self.WINDOW)
            self.endResetModel()
            return
        first = self.rowCount()
        self.beginInsertRows(QModelIndex(), first, first + len(items) - 1)
        self._items.extend(items)
        self.endInsertRows()

    def show_earlier(self, count: int | None = None) -> int:
        """Show up to ``count`` earlier items; returns how many were added at the top."""
        count = min(self._offset, count or self.WINDOW)
        if count <= 0:
            return 0
        self.beginInsertRows(QModelIndex(), 0, count - 1)
        self._offset -= count
        self.endInsertRows()
        return count

    def clear(self) -> None:
        self.beginResetModel()
        self._items.clear()
        self._offset = 0
        self._pending.clear()
        self.endResetModel()

    def append_text(self, item_id: int, delta: str) -> None:
        """Queue ``delta`` for item ``item_id``; the view updates at most every FLUSH_MS."""
        self._pending[item_id] = self._pending.get(item_id, "") + delta
        if not self._flush.isActive():
            self._flush.start()

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for item_id, text in pending.items():
            item = self.get(item_id)
            if item is None:
                continue
            item.text += text
            item.version += 1
            row = self.row_of(item_id)
            if row >= 0:
                self.item_grew.emit(row)

    def update(self, item_id: int, **changes: Any) -> None:
        if item_id in self._pending:
            self.flush()
        item = self.get(item_id)
        if item is None:
            return
        for key, value in changes.items():
            setattr(item, key, value)
        item.version += 1
        row = self.row_of(item_id)
        if row >= 0:
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def remove(self, item_id: int) -> ChatItem | None:
        self._pending.pop(item_id, None)
        for i, item in enumerate(self._items):
            if item.id != item_id:
                continue
            if i < self._offset:
                self._items.pop(i)
                self._offset -= 1
                return item
            row = i - self._offset
            self.beginRemoveRows(QModelIndex(), row, row)
            self._items.pop(i)
            self.endRemoveRows()
            return item
        return None


class ChatDelegate(QStyledItemDelegate):
    """Paints a row as a bubble of rendered markdown; caches documents and heights."""

    PAD = 8
    MARGIN = 6
    CACHE = 300

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view
        self._docs: OrderedDict[tuple[int, int, int, bool], QTextDocument] = OrderedDict()
        self._heights: dict[tuple[int, int, int], int] = {}  # exact, from a laid-out document
        self._estimates: dict[tuple[int, int, int], int] = {}
        self._last_hint: dict[int, int] = {}  # item id -> height the view laid the row out with
        self._painted: set[int] = set()  # ids of rows painted at least once
        self.painted_height: dict[int, int] = {}  # item id -> height it was last painted at
        # One timer, not QTimer.singleShot(lambda): PySide leaks references to None through
        # singleShot functors called thousands of times (a crash after a long stream).
        self._resize_pending: list[QPersistentModelIndex] = []
        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(0)
        self._resize_timer.timeout.connect(self._resize_now)

    def _dark(self) -> bool:
        return self._view.palette().color(QPalette.ColorRole.Base).lightness() < 128

    def exact_height(self, item: ChatItem, width: int) -> int | None:
        return self._heights.get((item.id, item.version, width))

    def text_width(self, option_width: int) -> int:
        return max(80, option_width - 2 * (self.PAD + self.MARGIN) - 40)

    def document(self, item: ChatItem, width: int) -> QTextDocument:
        dark = self._dark()
        key = (item.id, item.version, width, dark)
        doc = self._docs.get(key)
        if doc is not None:
            self._docs.move_to_end(key)
            return doc
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self._view.font())
        body = render_markdown(item.markdown(), dark=dark)
        if item.usage:  # plain text, escaped: not part of the markdown (copying the answer leaves it out)
            body += f'<p style="font-size:small; color:#888888;">{html.escape(item.usage)}</p>'
        doc.setHtml(body)
        doc.setTextWidth(width)
        self._docs[key] = doc
        while len(self._docs) > self.CACHE:
            self._docs.popitem(last=False)
        if len(self._heights) > 50_000:
            self._heights.clear()
        self._heights[(item.id, item.version, width)] = int(doc.size().height())
        return doc

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        item: ChatItem = index.data(ChatModel.ItemRole)
        width = self.text_width(self._view.viewport().width())
        key = (item.id, item.version, width)
        height = self._heights.get(key)
        if height is None and item.id in self._last_hint and item.id in self._painted:
            # A row already on screen changed (streaming): lay it out exactly now, so the view
            # never switches between an estimate and the real height (a relayout each token).
            self.document(item, width)
            height = self._heights.get(key)
        if height is None:
            height = self._estimates.get(key)
        if height is None:
            if len(self._estimates) > 50_000:
                self._estimates.clear()
            # Cheap estimate until the row is painted: avoids laying out 5,000 documents at once.
            metrics = self._view.fontMetrics()
            per_line = max(1, width // max(1, metrics.averageCharWidth()))
            text = item.markdown()
            lines = sum(1 + len(line) // per_line for line in text.splitlines()) or 1
            height = lines * metrics.lineSpacing()
            self._estimates[key] = height
        self._last_hint[item.id] = height
        return QSize(self._view.viewport().width(), height + 2 * (self.PAD + self.MARGIN) // 2 + self.PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        item: ChatItem = index.data(ChatModel.ItemRole)
        width = self.text_width(option.rect.width())
        doc = self.document(item, width)
        self._painted.add(item.id)
        self.painted_height[item.id] = self._heights.get((item.id, item.version, width), 0)
        exact = self._heights.get((item.id, item.version, width), 0)
        if exact != self._last_hint.get(item.id):
            # The row was laid out with another height (an estimate, or the text grew a line):
            # ask for a new layout. Most streamed tokens do not change the height: no relayout.
            self._last_hint[item.id] = exact
            self._resize_pending.append(QPersistentModelIndex(index))
            self._resize_timer.start()
        painter.save()
        rect: QRect = option.rect
        bubble = self._bubble_rect(item, rect, doc)
        palette = self._view.palette()
        colors = {
            "user": palette.color(QPalette.ColorRole.Highlight).lighter(170 if not self._dark() else 60),
            "assistant": palette.color(QPalette.ColorRole.AlternateBase),
            "tool": palette.color(QPalette.ColorRole.Button),
            "notice": palette.color(QPalette.ColorRole.ToolTipBase),
            "error": QColor("#fde2e1") if not self._dark() else QColor("#5c1f1f"),
        }
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colors.get(item.role, colors["assistant"]))
        painter.drawRoundedRect(bubble, 8, 8)
        if option.state & QStyle.StateFlag.State_HasFocus:
            painter.setPen(palette.color(QPalette.ColorRole.Highlight))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(bubble, 8, 8)
        painter.translate(bubble.left() + self.PAD, bubble.top() + self.PAD)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, palette.color(QPalette.ColorRole.Text))
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def _bubble_rect(self, item: ChatItem, rect: QRect, doc: QTextDocument) -> QRect:
        content_w = int(doc.idealWidth()) if item.role == "user" else int(doc.textWidth())
        w = min(rect.width() - 2 * self.MARGIN, content_w + 2 * self.PAD)
        h = int(doc.size().height()) + 2 * self.PAD
        left = rect.right() - self.MARGIN - w if item.role == "user" else rect.left() + self.MARGIN
        return QRect(left, rect.top() + self.MARGIN // 2, w, h)

    def _resize_now(self) -> None:
        pending, self._resize_pending = self._resize_pending, []
        for index in pending:
            if index.isValid():
                self.sizeHintChanged.emit(self._view.model().index(index.row(), 0))

    def anchor_at(self, index: ModelIndex, pos: QPoint) -> str:
        """The link under ``pos`` (view coordinates) in the row at ``index``, or ''."""
        item: ChatItem = index.data(ChatModel.ItemRole)
        rect = self._view.visualRect(self._view.model().index(index.row(), 0))
        width = self.text_width(rect.width())
        doc = self.document(item, width)
        bubble = self._bubble_rect(item, rect, doc)
        local = pos - bubble.topLeft() - QPoint(self.PAD, self.PAD)
        return doc.documentLayout().anchorAt(local.toPointF())


class ChatView(QListView):
    """The message list. Emits ``link_activated(url)`` for links in messages."""

    link_activated = Signal(str)

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

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selected()
            return
        super().keyPressEvent(event)


class ChatInput(QPlainTextEdit):
    """Multi-line input: Enter sends, Shift+Enter adds a line."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText("Ask Jawad anything — Enter sends, Shift+Enter adds a line")
        self.setAccessibleName("Message input")
        self.setTabChangesFocus(True)
        self.setFixedHeight(76)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class ChatPanel(QWidget):
    """The chat view with its input row. Emits ``send_requested(text)`` and ``stop_requested``."""

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = ChatView(self)
        self.input = ChatInput(self)
        self.send_button = QPushButton("Send", self)
        self.send_button.setAccessibleName("Send message")
        self.send_button.setToolTip("Send (Enter)")
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setAccessibleName("Stop the running answer")
        self.stop_button.setToolTip("Stop (Esc)")
        self.stop_button.setEnabled(False)
        self.busy_widgets: list[QWidget] = []  # other controls disabled while an answer runs
        self._answer_id: int | None = None  # the answer being streamed
        self._cards: dict[str, int] = {}  # tool call (action-log entry id) -> its card's item id
        self._input_row = QHBoxLayout()
        self._input_row.addWidget(self.input, 1)
        self._buttons = QVBoxLayout()
        self._buttons.addWidget(self.send_button)
        self._buttons.addWidget(self.stop_button)
        self._buttons.addStretch(1)
        self._input_row.addLayout(self._buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addLayout(self._input_row, 0)
        self.input.submitted.connect(self._submit)
        self.send_button.clicked.connect(self._submit)
        self.stop_button.clicked.connect(self.stop_requested)

    def insert_above_input(self, widget: QWidget) -> None:
        """Put a panel (e.g. a permission question) between the messages and the input."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, widget)

    def add_input_button(self, widget: QWidget) -> None:
        """Put another control (e.g. the microphone) beside Send and Stop."""
        self._buttons.insertWidget(self._buttons.count() - 1, widget)

    def _submit(self) -> None:
        text = self.input.toPlainText().strip()
        if not text or not self.send_button.isEnabled():
            return
        self.send_requested.emit(text)

    def set_busy(self, busy: bool) -> None:
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        for widget in self.busy_widgets:
            widget.setEnabled(not busy)

    def take_input(self) -> str:
        """Clear the input and return what it held (called once a send was accepted)."""
        text = self.input.toPlainText()
        self.input.clear()
        return text

    # The panel's API: what the window's presenter shows, in the user's terms.
    def add_message(self, role: str, text: str, *, streaming: bool = False) -> int:
        """Add a message at the end; returns its item id."""
        return self.view.chat_model.append(ChatItem(role=role, text=text, streaming=streaming))

    def stream_answer(self, text: str) -> None:
        """Add streamed text to the answer being written (started on the first piece)."""
        model = self.view.chat_model
        if self._answer_id is None:
            self._answer_id = self.add_message("assistant", "", streaming=True)
        model.append_text(self._answer_id, text)

    def end_answer(self, text: str, *, error: bool = False, stopped: bool = False, usage: str = "") -> None:
        """The answer is complete: its final text replaces what streamed (or it is added), with
        its ``usage`` line under it ("" for none)."""
        role = "error" if error else "assistant"
        if stopped:
            text = (text + "\n\n*(stopped)*").strip()
        if self._answer_id is None:
            self.view.chat_model.append(ChatItem(role=role, text=text, usage=usage))
        else:
            self.view.chat_model.update(self._answer_id, text=text, role=role, streaming=False, usage=usage)
        self._answer_id = None

    def show_tool_call(self, call_id: str, name: str, arguments: dict[str, Any], result: str, status: str) -> None:
        """A tool call's card: added the first time ``call_id`` is seen, updated after."""
        model = self.view.chat_model
        status = status if status in ("success", "error", "denied") else "pending"
        card = self._cards.get(call_id)
        if card is None:
            self._cards[call_id] = model.append(ChatItem(role="tool", tool_name=name, tool_args=dict(arguments),
                                                         tool_result=result, tool_status=status))
        else:
            model.update(card, tool_result=result, tool_status=status)

    def show_conversation(self, items: list[ChatItem]) -> None:
        """Show a saved conversation in place of what is shown."""
        self.clear_messages()
        self.view.chat_model.extend(items)

    def clear_messages(self) -> None:
        """An empty chat (a new conversation)."""
        self._cards.clear()
        self._answer_id = None
        self.view.chat_model.clear()

    def retract_last_turn(self) -> None:
        """Remove the last user message and everything after it (regenerate, edit and resend)."""
        model = self.view.chat_model
        items = model.items()
        last = next((i for i in range(len(items) - 1, -1, -1) if items[i].role == "user"), None)
        if last is None:
            return
        for item in items[last:]:
            model.remove(item.id)
        self._answer_id = None

    def edit_text(self, text: str) -> None:
        """Put ``text`` in the input to be edited, and focus it."""
        self.input.setPlainText(text)
        self.input.setFocus()

