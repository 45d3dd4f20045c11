"""Reading a window's text contrast from its pixels, as the user sees it.

``contrast_problems(top)`` renders the top-level widget ``top`` once and, for every visible,
enabled widget that shows text (labels, buttons, check boxes, fields and the hint text of empty ones,
choices, list and history rows, the chat's messages and notices), crops what it painted, takes
the most common colour as the background and splits the crop into lines of ink; each line's
contrast is that of its strongest pixel against the background (antialiased edges are lighter,
glyph stems carry the text's colour). A line under the minimum is a problem, named by the
widget and its text. Disabled controls are exempt (WCAG 1.4.3); thin rules (under 4 pixels
tall) are borders, not text. The colours themselves are checked exactly by tests/ui/test_theme.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import QModelIndex, QPoint, QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QWidget,
)

from jawad_desktop.ui.chat.chat_model import ChatItem, ChatModel
from jawad_desktop.ui.chat.message_list import ChatView

INK = 1.5  # a pixel this far from the background is ink
MIN_LINE = 4  # pixels: a shorter run of ink rows is a rule or a border, not a line of text
INSET = 3  # pixels kept off a control's edges (its border)
# Antialiasing: small text's stems rarely cover a whole pixel, so its strongest pixel reads a
# little under the colour it was drawn in (white on the accent, drawn at 6:1, reads 4.6:1). A
# line passes at 90% of the minimum; mid-grey text, a black bar or a blank box read far below.
ANTIALIASING = 0.9


def _luminance(rgb: np.ndarray) -> np.ndarray:
    c = rgb.astype(np.float64) / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return 0.2126 * c[..., 0] + 0.7152 * c[..., 1] + 0.0722 * c[..., 2]


def pixels(image: QImage) -> np.ndarray:
    """``image`` as an (height, width, 3) array of RGB bytes."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * height).reshape(height, stride)
    return raw[:, : width * 3].reshape(height, width, 3).copy()


def line_contrasts(rgb: np.ndarray) -> list[tuple[int, float]]:
    """(top row, contrast) of each line of ink in ``rgb``, against its most common colour."""
    if rgb.size == 0:
        return []
    flat = rgb.reshape(-1, 3)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    background = colours[counts.argmax()]
    lum = _luminance(rgb)
    bg = float(_luminance(background[None, None, :])[0, 0])
    ratio = (np.maximum(lum, bg) + 0.05) / (np.minimum(lum, bg) + 0.05)
    strongest = ratio.max(axis=1)
    inked = strongest >= INK
    lines: list[tuple[int, float]] = []
    start = None
    for y, ink in enumerate([*inked.tolist(), False]):
        if ink and start is None:
            start = y
        elif not ink and start is not None:
            if y - start >= MIN_LINE:
                lines.append((start, float(strongest[start:y].max())))
            start = None
    return lines


def _text_of(widget: QWidget) -> str:
    if isinstance(widget, QLabel):
        return widget.text() if widget.pixmap().isNull() else ""
    if isinstance(widget, QAbstractButton):
        return widget.text()
    if isinstance(widget, QLineEdit):
        return widget.text() or widget.placeholderText()
    if isinstance(widget, QPlainTextEdit):
        return widget.toPlainText() or widget.placeholderText()
    if isinstance(widget, QComboBox):
        return widget.currentText()
    if isinstance(widget, QAbstractSpinBox):
        return widget.text()
    return ""


def _areas(widget: QWidget) -> list[tuple[str, QRect]]:
    """The parts of ``widget`` (its coordinates) that hold text, each with what it says."""
    if isinstance(widget, QAbstractItemView):
        model = widget.model()
        if model is None:
            return []
        found = []
        port = widget.viewport()
        offset = port.mapTo(widget, QPoint(0, 0))
        for row in range(model.rowCount(widget.rootIndex())):
            index = model.index(row, 0, widget.rootIndex())
            rect = widget.visualRect(index)
            if (isinstance(widget, QListView) and widget.isRowHidden(row)) or not rect.intersects(port.rect()):
                continue
            if isinstance(widget, ChatView):
                rect = _message_area(widget, index, rect)
            if rect.isValid():
                found.append((str(index.data())[:60], rect.intersected(port.rect()).translated(offset)))
        return found
    text = _text_of(widget)
    if not text.strip():
        return []
    rect = widget.visibleRegion().boundingRect()  # what its scroll area and parents leave in view
    if isinstance(widget, (QAbstractButton, QLineEdit, QPlainTextEdit, QComboBox, QAbstractSpinBox)):
        rect = rect.adjusted(INSET, INSET, -INSET, -INSET)
    return [(text[:60], rect)]


def _message_area(view: ChatView, index: QModelIndex, rect: QRect) -> QRect:
    """Where a chat row's text is painted: an answer's whole row (its name above it), else the
    inside of its bubble or card (its outline left out)."""
    delegate = view.chat_delegate
    item: ChatItem = index.data(ChatModel.ItemRole)
    if item.role == "assistant":
        return rect
    doc = delegate.document(item, delegate.text_width(rect.width()))
    return delegate._bubble_rect(item, rect, doc).adjusted(2, 2, -2, -2)


def contrast_problems(top: QWidget, minimum: float) -> list[str]:
    """What text in ``top`` (a top-level widget, shown) is under ``minimum`` contrast."""
    rgb = pixels(top.grab().toImage())
    scale = rgb.shape[1] / max(1, top.width())
    problems = []
    for widget in [top, *top.findChildren(QWidget)]:
        if not widget.isVisible() or not widget.isEnabled() or widget.window() is not top:
            continue
        if isinstance(widget, QAbstractItemView) and widget.viewport().isHidden():
            continue
        for text, area in _areas(widget):
            box = QRect(widget.mapTo(top, area.topLeft()), area.size())
            box = box.intersected(top.rect())
            if box.width() < 4 or box.height() < MIN_LINE:
                continue
            crop = rgb[int(box.top() * scale): int((box.bottom() + 1) * scale),
                       int(box.left() * scale): int((box.right() + 1) * scale)]
            for row, ratio in line_contrasts(crop):
                if ratio < minimum * ANTIALIASING:
                    name = widget.accessibleName() or widget.objectName() or type(widget).__name__
                    if dump := os.environ.get("JAWAD_CONTRAST_DUMP"):  # the crops, to look at
                        top.grab(box).save(str(Path(dump) / f"{len(problems)}-{type(widget).__name__}.png"))
                    problems.append(f"{type(widget).__name__} {name!r} {text!r} line at {row}: {ratio:.2f}:1")
    return problems
