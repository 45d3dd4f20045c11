"""The chat: a virtualised message list, the composer (input, Send/Stop and the window's other
input buttons in one rounded box), and the empty state that guides a new conversation.

The list is a ``QListView`` over ``ChatModel``; each row is painted by ``ChatDelegate`` from
markdown rendered once and cached, so 5,000 messages stay smooth (only visible rows are laid
out; others use a cheap height estimate until first painted). The user's messages are bubbles on
the right; answers are plain, full width, under the assistant's name; tool calls are compact
cards. Streaming deltas are coalesced and flushed at most every ``FLUSH_MS``; the answer being
streamed grows one document in place (``_LiveDocument``: each finished block rendered once, so a
long answer stays linear) and ends with a caret. Links open through ``link_activated``; code
blocks show their language and a Copy link. An answer may carry a small usage line under its
text ("1,234 tokens · about $0.0021"). The input grows with its text up to eight lines; Send
turns into Stop while an answer runs. An empty conversation shows ``EmptyState`` instead of
the list: what to do when no provider is set, else example requests that fill the input.
"""

from __future__ import annotations

import functools
import html
import itertools
import json
import logging
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QContextMenuEvent,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QImage,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.markdown import code_blocks, render_markdown
from jawad_desktop.ui.chat.attachments_bar import AttachmentBar, files_in, save_pasted_image
from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.icons import add_state_images, icon, state_markdown

log = logging.getLogger("jawad.ui.chat")

FLUSH_MS = 33
ASSISTANT_NAME = "Jawad"
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
    progress: str = ""  # a running tool's progress ("3 of 5 · Step 3"), shown while it is pending
    id: int = field(default_factory=lambda: next(_ids))
    version: int = 0

    def markdown(self) -> str:
        if self.role != "tool":
            return self.text
        head = f"{state_markdown(self.tool_status)} **{self.tool_name}**"  # an icon: no missing glyph
        if not self.expanded:
            summary = self.tool_result.splitlines()[0][:120] if self.tool_result else self.tool_status
            if self.tool_status == "pending" and self.progress:
                summary = self.progress
            return f"{head} — {summary} · [show details](toggle:)"
        args = json.dumps(self.tool_args, ensure_ascii=False, indent=2)
        running = f"{self.progress}\n\n" if self.tool_status == "pending" and self.progress else ""
        return f"{head}\n\n```json\n{args}\n```\n\n{running}{self.tool_result}\n\n[hide details](toggle:)"


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


CARET = "▍"
_COPY_LINK = re.compile(r'href="copy:(\d+)"')
_FENCE = re.compile(r" {0,3}(```|~~~)")


def stable_end(text: str, start: int = 0) -> int:
    """Where the blocks of ``text`` that no later text can change end: just after its last blank
    line outside a code fence, from ``start`` on (which must be outside a fence); ``start`` if
    there is none. A streamed answer's blocks before that point are rendered once."""
    end, in_fence, pos = start, False, start
    for line in text[start:].splitlines(keepends=True):
        pos += len(line)
        if not line.endswith("\n"):
            break  # the last line is still being written
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and not line.strip():
            end = pos
    return end


class _LiveDocument:
    """The document of an answer being streamed, grown in place: the finished blocks are
    rendered and laid out once, only the block being written is rendered again at each flush
    (re-rendering the whole answer each flush made a long stream quadratic). The caret ends it."""

    def __init__(self, font: QFont, width: int, dark: bool) -> None:
        self.doc = QTextDocument()
        self.doc.setDocumentMargin(0)
        self.doc.setDefaultFont(font)
        self.doc.setTextWidth(width)
        self.width, self.dark = width, dark
        self.version = -1
        self.source = ""  # the text rendered as finished blocks
        self.stable_pos = 0  # where those blocks end in the document
        self.copies = 0  # their code blocks (the tail's Copy links are numbered after them)
        self.rendered = 0  # characters of markdown rendered so far (about the answer's length, not its square)

    def _html(self, text: str) -> str:
        first = self.copies
        self.rendered += len(text)
        return _COPY_LINK.sub(lambda m: f'href="copy:{first + int(m.group(1))}"',
                              render_markdown(text, dark=self.dark)).strip()

    @staticmethod
    def _insert(cursor: QTextCursor, html_: str) -> None:
        """Add blocks at the end. Inserted HTML's first paragraph merges into the cursor's block:
        it gets a block of its own, with its own format (margins), as ``setHtml`` would give it."""
        if html_.startswith(("<p", "<h")):
            if cursor.block().text():
                cursor.insertBlock()
            probe = QTextDocument()
            probe.setHtml(html_)
            cursor.setBlockFormat(probe.begin().blockFormat())
        cursor.insertHtml(html_)

    def update(self, text: str) -> None:
        if not text.startswith(self.source):  # replaced, not grown: start again
            self.doc.clear()
            self.source, self.stable_pos, self.copies = "", 0, 0
        cursor = QTextCursor(self.doc)
        cursor.setPosition(self.stable_pos)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        split = stable_end(text, len(self.source))
        if split > len(self.source):
            html_ = self._html(text[len(self.source):split])
            self._insert(cursor, html_)
            self.copies += len(_COPY_LINK.findall(html_))
            self.source = text[:split]
            self.stable_pos = cursor.position()
        tail = text[split:]
        if tail.strip():
            self._insert(cursor, self._html(tail))
        cursor.insertText(CARET)


class ChatDelegate(QStyledItemDelegate):
    """Paints a row from rendered markdown: the user's messages as tinted bubbles on the right,
    the assistant's plain and full width under its name, tool calls as compact cards; caches
    documents and heights. An answer being streamed ends with a caret (▍)."""

    PAD = 8
    MARGIN = 6
    CACHE = 300

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view
        self._docs: OrderedDict[tuple[int, int, int, bool], QTextDocument] = OrderedDict()
        self._live: dict[int, _LiveDocument] = {}  # item id -> its document while it streams
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
        theme.notifier().changed.connect(self._docs.clear)  # their colours (the usage line's) are the theme's

    def _dark(self) -> bool:
        return self._view.palette().color(QPalette.ColorRole.Base).lightness() < 128

    def exact_height(self, item: ChatItem, width: int) -> int | None:
        return self._heights.get((item.id, item.version, width))

    def text_width(self, option_width: int) -> int:
        return max(80, self.column_width(option_width) - 2 * (self.PAD + self.MARGIN) - 40)

    @staticmethod
    def column_width(option_width: int) -> int:
        """The reading column's width in a row ``option_width`` wide: at most theme.READING_WIDTH."""
        return min(option_width, theme.READING_WIDTH)

    def column_rect(self, rect: QRect) -> QRect:
        """The reading column of a row: centred in it, the scroll bar's side included."""
        width = self.column_width(rect.width())
        return QRect(rect.left() + (rect.width() - width) // 2, rect.top(), width, rect.height())

    def forget_streams(self) -> None:
        """The conversation was replaced: no answer streams any more."""
        self._live.clear()

    def header_height(self, item: ChatItem) -> int:
        """The name line above an answer ("Jawad"); other rows have none."""
        if item.role != "assistant":
            return 0
        return self._small_metrics().lineSpacing() + 2

    def _small_font(self) -> QFont:
        font = QFont(self._view.font())
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
        font.setBold(True)
        return font

    def _small_metrics(self) -> QFontMetrics:
        return QFontMetrics(self._small_font())

    def _live_document(self, item: ChatItem, width: int, dark: bool) -> QTextDocument:
        live = self._live.get(item.id)
        if live is None or live.width != width or live.dark != dark:
            live = self._live[item.id] = _LiveDocument(self._view.font(), width, dark)
        if live.version != item.version:
            live.update(item.text)
            live.version = item.version
            self._heights[(item.id, item.version, width)] = int(live.doc.size().height())
        return live.doc

    def document(self, item: ChatItem, width: int) -> QTextDocument:
        dark = self._dark()
        if item.streaming and item.role == "assistant":
            return self._live_document(item, width, dark)
        self._live.pop(item.id, None)
        key = (item.id, item.version, width, dark)
        doc = self._docs.get(key)
        if doc is not None:
            self._docs.move_to_end(key)
            return doc
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self._view.font())
        if item.role == "tool":
            add_state_images(doc, self._view.devicePixelRatioF())
        body = render_markdown(item.markdown(), dark=dark)
        if item.usage:  # plain text, escaped: not part of the markdown (copying the answer leaves it out)
            muted = theme.current().colours.muted  # #888888 was 3.3:1 on the light theme's window
            body += f'<p style="font-size:small; color:{muted};">{html.escape(item.usage)}</p>'
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
        extra = 2 * self.PAD + self.MARGIN + self.header_height(item)
        return QSize(self._view.viewport().width(), height + extra)

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
            "user": self._user_bubble(palette),
            "assistant": palette.color(QPalette.ColorRole.AlternateBase),
            "tool": palette.color(QPalette.ColorRole.Button),
            # A notice wears the theme's notice colour, framed by its warning colour (the tooltip
            # colours were a black bar in the light theme and white on white in high contrast).
            "notice": QColor(theme.current().colours.notice),
            "error": QColor("#fde2e1") if not self._dark() else QColor("#5c1f1f"),
        }
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        if item.role == "assistant":  # plain, under its name
            header = self.header_height(item)
            painter.setFont(self._small_font())
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(QRect(bubble.left() + self.PAD, bubble.top() - header, bubble.width(), header),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, ASSISTANT_NAME)
            painter.setPen(Qt.PenStyle.NoPen)
        else:
            painter.setBrush(colors.get(item.role, colors["notice"]))
            if item.role == "tool":  # a compact card: a light fill and an outline
                painter.setPen(palette.color(QPalette.ColorRole.Mid))
            elif item.role not in ("user", "error"):  # a notice
                painter.setPen(QColor(theme.current().colours.warning))
            painter.drawRoundedRect(bubble, 8 if item.role != "user" else 12, 8 if item.role != "user" else 12)
        if option.state & QStyle.StateFlag.State_HasFocus:
            painter.setPen(palette.color(QPalette.ColorRole.Highlight))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(bubble, 8, 8)
        origin = QPoint(bubble.left() + self.PAD, bubble.top() + self.PAD)
        painter.translate(origin)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, palette.color(QPalette.ColorRole.Text))
        # Only the part on screen is drawn (a long answer is taller than the view).
        ctx.clip = QRectF(rect.intersected(self._view.viewport().rect()).translated(-origin))
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    @staticmethod
    def _user_bubble(palette: QPalette) -> QColor:
        """The user's bubble: a tint of the accent, kept far enough from the text colour (7:1 and
        a margin in high contrast, where the darkened accent was 6.8:1 under white text)."""
        current = theme.current()
        tint = palette.color(QPalette.ColorRole.Highlight).lighter(170 if not current.dark else 60)
        ratio = 8.0 if current.name == "high-contrast" else 6.0
        return QColor(theme.legible(tint.name(), current.colours.text, ratio))

    def _bubble_rect(self, item: ChatItem, rect: QRect, doc: QTextDocument) -> QRect:
        rect = self.column_rect(rect)
        content_w = int(doc.idealWidth()) if item.role == "user" else int(doc.textWidth())
        w = min(rect.width() - 2 * self.MARGIN, content_w + 2 * self.PAD)
        h = int(doc.size().height()) + 2 * self.PAD
        left = rect.right() - self.MARGIN - w if item.role == "user" else rect.left() + self.MARGIN
        return QRect(left, rect.top() + self.MARGIN // 2 + self.header_height(item), w, h)

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


EXAMPLE_PROMPTS = (
    "Summarize the page I have open",
    "Compare three well-reviewed laptops under €600",
    "What does \"No module named 'numpy'\" mean?",
    "Plan a day in Lisbon by tram",
)


class EmptyState(QWidget):
    """What an empty conversation shows where the messages go. Without a provider: what to do,
    with a button that opens Settings → Providers (``settings_requested``). With one: a few
    example requests; a click puts one in the input (``prompt_chosen(text)``) to edit or send."""

    settings_requested = Signal()
    prompt_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatEmptyState")
        self.title = QLabel(self)
        self.title.setObjectName("emptyStateTitle")
        self.title.setProperty("role", "title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setWordWrap(True)
        self.text = QLabel(self)
        self.text.setObjectName("emptyStateText")
        self.text.setProperty("role", "muted")
        self.text.setTextFormat(Qt.TextFormat.MarkdownText)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setWordWrap(True)
        self.text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.settings_button = QPushButton("Open Settings → Providers", self)
        self.settings_button.setObjectName("emptyStateSettings")
        self.settings_button.setProperty("primary", True)
        self.settings_button.setAccessibleName("Open Settings, Providers")
        self.settings_button.clicked.connect(self.settings_requested)
        self.prompt_buttons: list[QPushButton] = []
        column = QVBoxLayout(self)
        column.setContentsMargins(24, 24, 24, 24)
        column.setSpacing(10)
        column.addStretch(1)
        column.addWidget(self.title)
        column.addWidget(self.text)
        column.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignHCenter)
        for prompt in EXAMPLE_PROMPTS:
            button = QPushButton(prompt, self)
            button.setObjectName("emptyStatePrompt")
            button.setAccessibleName(f"Example request: {prompt}")
            button.setToolTip("Put this request in the input, to edit or send")
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setMaximumWidth(420)
            button.clicked.connect(lambda _=False, p=prompt: self.prompt_chosen.emit(p))
            column.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
            self.prompt_buttons.append(button)
        column.addStretch(2)
        self.set_provider_ready(True)

    def set_provider_ready(self, ready: bool, setup_text: str = "") -> None:
        """Examples when a provider is set; else ``setup_text`` (what to do) and the Settings button."""
        if ready:
            self.title.setText("What can I do for you?")
            self.text.setText("Ask anything, or try one of these. I can browse the page on the right "
                              "for you, and ask before I act.")
        else:
            self.title.setText("Set up a model to start")
            self.text.setText(setup_text)
        self.settings_button.setVisible(not ready)
        for button in self.prompt_buttons:
            button.setVisible(ready)

    def is_provider_ready(self) -> bool:
        return not self.settings_button.isVisibleTo(self)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # A narrow column shortens the examples with "…" (the whole request still goes in the input).
        for prompt, button in zip(EXAMPLE_PROMPTS, self.prompt_buttons, strict=True):
            room = min(button.maximumWidth(), self.width() - 48) - 24
            button.setText(button.fontMetrics().elidedText(prompt, Qt.TextElideMode.ElideRight, max(40, room)))


class ChatPanel(QWidget):
    """The chat view with its input row. Emits ``send_requested(text)`` and ``stop_requested``."""

    send_requested = Signal(str)
    stop_requested = Signal()
    resources_requested = Signal()  # the MCP resources button: the window offers the servers' resources

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = ChatView(self)
        self.input = ChatInput(self)
        self.send_button = QPushButton("", self)
        self.send_button.setAccessibleName("Send message")
        self.send_button.setToolTip("Send (Enter)")
        self.send_button.setIcon(icon("send", "on-accent"))
        self.send_button.setProperty("primary", True)
        self.stop_button = QPushButton("", self)
        self.stop_button.setAccessibleName("Stop the running answer")
        self.stop_button.setToolTip("Stop (Esc)")
        self.stop_button.setIcon(icon("square"))
        self.stop_button.setEnabled(False)
        self.busy_widgets: list[QWidget] = []  # other controls disabled while an answer runs
        self._answer_id: int | None = None  # the answer being streamed
        self._cards: dict[str, int] = {}  # tool call (action-log entry id) -> its card's item id
        self.stop_button.hide()  # Send turns into Stop while an answer runs
        # Files to send with the message: the attach button, a drop on the panel, a paste.
        self.attachments = AttachmentBar(self)
        self.attach_button = QPushButton("", self)
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setIcon(icon("paperclip"))
        self.attach_button.setToolTip("Attach files (Ctrl+Shift+O): documents, tables, pictures")
        self.attach_button.setAccessibleName("Attach files")
        self.attach_button.clicked.connect(self.attachments.choose_files)
        # Attach an MCP server's resource (a document, a record): shown when MCP servers are set up.
        self.resource_button = QPushButton("", self)
        self.resource_button.setObjectName("resourceButton")
        self.resource_button.setIcon(icon("plus"))
        self.resource_button.setToolTip("Attach a resource from your MCP servers")
        self.resource_button.setAccessibleName("Attach an MCP resource")
        self.resource_button.clicked.connect(self.resources_requested)
        self.resource_button.hide()
        self.setAcceptDrops(True)
        self.send_button.setObjectName("sendButton")
        self.stop_button.setObjectName("stopButton")
        # The composer: the input with its buttons under it, in one rounded box.
        self.composer = QFrame(self)
        self.composer.setObjectName("composer")
        self.composer.setProperty("card", True)
        self.composer.setFrameShape(QFrame.Shape.StyledPanel)
        self.composer.setStyleSheet("#composerInput { border: none; background: transparent; }")
        self.input.setParent(self.composer)
        self._buttons = QHBoxLayout()
        self._buttons.setContentsMargins(0, 0, 0, 0)
        self._buttons.addWidget(self.attach_button)
        self._buttons.addWidget(self.resource_button)
        self._buttons.addStretch(1)
        self._buttons.addWidget(self.send_button)
        self._buttons.addWidget(self.stop_button)
        box = QVBoxLayout(self.composer)
        box.setContentsMargins(8, 6, 6, 6)
        box.setSpacing(2)
        box.addWidget(self.attachments)
        box.addWidget(self.input)
        box.addLayout(self._buttons)
        # What an empty conversation shows in place of the messages (see EmptyState).
        self.empty_state = EmptyState(self)
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self.view)
        self._stack.addWidget(self.empty_state)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._stack, 1)
        # The composer as wide as the reading column, centred under it (margins set on resize).
        self._composer_row = QHBoxLayout()
        self._composer_row.setContentsMargins(0, 0, 0, 0)
        self._composer_row.addWidget(self.composer)
        layout.addLayout(self._composer_row, 0)
        model = self.view.chat_model
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            signal.connect(self._show_empty_state_if_empty)
        self.empty_state.prompt_chosen.connect(self.edit_text)
        self._show_empty_state_if_empty()
        self.input.submitted.connect(self._submit)
        self.input.files_given.connect(self.attachments.add)
        self.send_button.clicked.connect(self._submit)
        self.stop_button.clicked.connect(self.stop_requested)

    def insert_above_input(self, widget: QWidget) -> None:
        """Put a panel (e.g. a permission question) between the messages and the input. It takes
        the column's width whatever its contents would like (Ignored): a panel that opens or
        closes never widens the chat column, so the splitter and the page do not move."""
        policy = widget.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        widget.setSizePolicy(policy)
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, widget)

    def add_input_button(self, widget: QWidget) -> None:
        """Put another control (e.g. the microphone) in the composer, before Send."""
        widget.setParent(self.composer)
        self._buttons.insertWidget(self._buttons.indexOf(self.send_button), widget)

    def resizeEvent(self, event: QResizeEvent) -> None:
        side = max(0, (self.width() - theme.READING_WIDTH - 2 * ChatDelegate.MARGIN) // 2)
        self._composer_row.setContentsMargins(side, 0, side, 0)
        super().resizeEvent(event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if files_in(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        files = files_in(event.mimeData())
        if files:
            self.attachments.add(files)
            event.acceptProposedAction()
            self.input.setFocus()
        else:
            super().dropEvent(event)

    def take_attachments(self) -> list[Path]:
        """Empty the composer's files and return them (called once a send was accepted)."""
        return self.attachments.take()

    def restore_message(self, text: str, files: list[Path]) -> None:
        """Put a message that was not sent back in the composer, with its files."""
        if not self.input.toPlainText().strip():
            self.input.setPlainText(text)
        self.attachments.add(files)
        self.input.setFocus()

    def is_empty(self) -> bool:
        """No message in this conversation (the empty state shows)."""
        return not self.view.chat_model.items()

    def _show_empty_state_if_empty(self, *args: Any) -> None:
        self._stack.setCurrentWidget(self.empty_state if self.is_empty() else self.view)

    def _submit(self) -> None:
        text = self.input.toPlainText().strip()
        if not text or not self.send_button.isEnabled():
            return
        self.send_requested.emit(text)

    def set_busy(self, busy: bool) -> None:
        """While an answer runs, Send gives its place to Stop (and back when it ends)."""
        had_focus = self.send_button.hasFocus() or self.stop_button.hasFocus()
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        if had_focus:
            (self.stop_button if busy else self.send_button).setFocus()
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

    def remove_message(self, item_id: int) -> None:
        """Take a message off the chat (a notice that no longer applies)."""
        self.view.chat_model.remove(item_id)

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

    def show_tool_call(self, call_id: str, name: str, arguments: dict[str, Any], result: str, status: str,
                       tool_call_id: str = "") -> None:
        """A tool call's card: added the first time ``call_id`` is seen, updated after.
        ``tool_call_id``: the model's id of the call, which its progress names (``show_progress``)."""
        model = self.view.chat_model
        status = status if status in ("success", "error", "denied") else "pending"
        card = self._cards.get(call_id)
        if card is None:
            card = self._cards[call_id] = model.append(ChatItem(role="tool", tool_name=name, tool_args=dict(arguments),
                                                                tool_result=result, tool_status=status))
        else:
            model.update(card, tool_result=result, tool_status=status)
        if tool_call_id:
            self._cards[f"call:{tool_call_id}"] = card

    def show_progress(self, tool_call_id: str, done: float, total: float, message: str) -> None:
        """A running tool's progress on its card: "3 of 5 (60%) · the server's words"."""
        card = self._cards.get(f"call:{tool_call_id}")
        if card is None:
            return
        amount = f"{done:g} of {total:g} ({done / total:.0%})" if total > 0 else f"{done:g} done"
        self.view.chat_model.update(card, progress=" · ".join(part for part in (amount, message) if part))

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

