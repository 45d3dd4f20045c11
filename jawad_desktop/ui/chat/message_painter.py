"""How a message looks: ``ChatDelegate`` paints each row of the chat from markdown rendered once
and cached (the user's bubbles on the right, answers plain under the assistant's name, tool calls
as compact cards, an answer's usage line under it); an answer being streamed grows one document
in place (``_LiveDocument``: each finished block rendered once) and ends with a caret.
"""

from __future__ import annotations

import html
import re
from collections import OrderedDict

from PySide6.QtCore import QPersistentModelIndex, QPoint, QRect, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from jawad_desktop.core.markdown import render_markdown
from jawad_desktop.ui.chat.chat_model import ChatItem, ChatModel, ModelIndex
from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.icons import add_state_images

ASSISTANT_NAME = "Jawad"
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

    PAD = theme.SPACE["sm"]  # inside a bubble or a card, around its text
    MARGIN = theme.SPACE["sm"]  # between rows, and from the reading column's edges
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
        font = theme.type_step(self._view.font(), "caption")
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
            radius = theme.RADIUS["lg" if item.role == "user" else "md"]
            painter.drawRoundedRect(bubble, radius, radius)
        if option.state & QStyle.StateFlag.State_HasFocus:
            painter.setPen(palette.color(QPalette.ColorRole.Highlight))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(bubble, theme.RADIUS["md"], theme.RADIUS["md"])
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
        # MARGIN pixels clear on either side (QRect.right() is the last pixel, not one past it).
        left = rect.right() + 1 - self.MARGIN - w if item.role == "user" else rect.left() + self.MARGIN
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
