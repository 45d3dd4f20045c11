"""How a row of the history looks (``ConversationDelegate``): the title in bold on one line,
cut with "…" when long, then the date or the highlighted match, dimmed. A project's header is one
line in small capitals with a rule under it.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFont,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from jawad_desktop.ui.chat.conversation_rows import DetailHtmlRole, HeaderRole, PositionRole, TitleHtmlRole
from jawad_desktop.ui.look.theme import type_step


class ConversationDelegate(QStyledItemDelegate):
    """Paints a row as two lines: the title, then the date or the highlighted match."""

    PADDING = 6

    def _document(self, html_text: str, option: QStyleOptionViewItem, width: int, small: bool,
                  one_line: bool = False) -> QTextDocument:
        doc = QTextDocument()
        if one_line:
            no_wrap = QTextOption()
            no_wrap.setWrapMode(QTextOption.WrapMode.NoWrap)
            doc.setDefaultTextOption(no_wrap)
        font = type_step(option.font, "small") if small else option.font
        doc.setDefaultFont(font)
        doc.setDocumentMargin(0)
        doc.setTextWidth(width)
        doc.setHtml(html_text)
        return doc

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        metrics = option.fontMetrics
        if index.data(HeaderRole):
            return QSize(200, metrics.height() + 2 * self.PADDING)
        detail_lines = 2 if index.data(PositionRole) not in (None, -1) else 1
        return QSize(200, metrics.height() * (1 + detail_lines) + 3 * self.PADDING)

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        if index.data(HeaderRole):
            self._paint_header(painter, option, str(index.data(Qt.ItemDataRole.DisplayRole) or ""))
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect: QRect = opt.rect.adjusted(self.PADDING, self.PADDING, -self.PADDING, -self.PADDING)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        palette: QPalette = opt.palette
        group = QPalette.ColorGroup.Active
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        title_html = str(index.data(TitleHtmlRole) or "")
        plain = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        if title_html == html.escape(plain):  # no search highlight: a long title ends in "…"
            bold = QFont(opt.font)
            bold.setBold(True)
            title_html = html.escape(QFontMetrics(bold).elidedText(plain, Qt.TextElideMode.ElideRight, rect.width()))
        title_html = f"<b>{title_html}</b>"
        detail_html = str(index.data(DetailHtmlRole) or "")
        painter.save()
        try:
            context = QAbstractTextDocumentLayout.PaintContext()
            context.palette.setColor(QPalette.ColorRole.Text, palette.color(group, text_role))
            # One line: a wrapped second line showed its glyph tops under the clip.
            title = self._document(title_html, opt, rect.width(), small=False, one_line=True)
            painter.translate(rect.topLeft())
            # Clip the title to one line: long titles end at the row's edge.
            line_height = opt.fontMetrics.height()
            context.clip = QRectF(0, 0, rect.width(), line_height + 2)
            painter.setClipRect(context.clip)
            title.documentLayout().draw(painter, context)
            painter.setClipping(False)
            painter.translate(0, line_height + self.PADDING // 2)
            detail = self._document(detail_html, opt, rect.width(), small=True)
            dim = palette.color(group, text_role if selected else QPalette.ColorRole.PlaceholderText)
            context.palette.setColor(QPalette.ColorRole.Text, dim)
            context.clip = QRectF(0, 0, rect.width(), rect.height() - line_height - self.PADDING // 2)
            painter.setClipRect(context.clip)
            detail.documentLayout().draw(painter, context)
        finally:
            painter.restore()

    def _paint_header(self, painter: QPainter, option: QStyleOptionViewItem, name: str) -> None:
        """A project's name above its conversations, in the text's colour (a header is disabled
        for the keyboard, not for the eyes), and a rule under it."""
        rect: QRect = option.rect.adjusted(self.PADDING, self.PADDING // 2, -self.PADDING, 0)
        font = QFont(option.font)
        font.setBold(True)
        font.setCapitalization(QFont.Capitalization.SmallCaps)
        painter.save()
        try:
            painter.setFont(font)
            painter.setPen(option.palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.Text))
            text = QFontMetrics(font).elidedText(name, Qt.TextElideMode.ElideRight, rect.width())
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
            painter.setPen(option.palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.Mid))
            painter.drawLine(rect.left(), option.rect.bottom(), rect.right(), option.rect.bottom())
        finally:
            painter.restore()
