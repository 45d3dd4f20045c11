"""The viewport as a PNG for a model that sees images, with set-of-marks: each element of the last
listing that is on screen gets a box and its ``[n]`` drawn on it, so the model can name what it sees
by the same numbers the element list and the action tools use.

``marked_screenshot(view, rects)`` draws; ``QtWebEnginePage.screenshot`` (browser/driver.py) asks
the page for the listed elements' boxes (``J.markRects`` in the page library) and calls it. The view is
grabbed as it is shown (offscreen views render too), scaled to at most ``MAX_WIDTH`` pixels across.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

log = logging.getLogger("jawad.ui.page_screenshot")

__all__ = ["MAX_WIDTH", "marked_screenshot", "png_bytes"]

MAX_WIDTH = 1280
# Colours that stand out on most pages; cycled so neighbouring boxes are told apart.
_COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000")


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # (the stubs say bytes; PySide takes str)
    buffer.close()
    return bytes(data.data())


def marked_screenshot(view: QWidget, marks: dict[str, Any] | None, *, max_width: int = MAX_WIDTH) -> bytes:
    """The PNG of ``view``; with ``marks`` (``J.markRects``'s answer: rects in CSS pixels and the
    viewport's size) each rect is boxed and numbered."""
    image = view.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    if image.isNull() or image.width() == 0:
        raise RuntimeError("the browser view could not be captured (is it shown?)")
    if image.width() > max_width:
        image = image.scaledToWidth(max_width, Qt.TransformationMode.SmoothTransformation)
    rects = (marks or {}).get("rects") or []
    viewport = (marks or {}).get("viewport") or {}
    css_width = float(viewport.get("width") or 0)
    if rects and css_width > 0:
        scale = image.width() / css_width  # CSS pixels -> image pixels (device ratio, zoom, scaling)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = QFont()
        font.setPixelSize(max(11, round(12 * min(scale, 1.5))))
        font.setBold(True)
        painter.setFont(font)
        metrics = painter.fontMetrics()
        for n, rect in enumerate(rects):
            colour = QColor(_COLOURS[n % len(_COLOURS)])
            box = QRectF(float(rect["x"]) * scale, float(rect["y"]) * scale,
                         float(rect["width"]) * scale, float(rect["height"]) * scale)
            painter.setPen(QPen(colour, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(box)
            label = f"[{int(rect['index'])}]"
            width, height = metrics.horizontalAdvance(label) + 6, metrics.height() + 2
            # The label sits above the box's top-left corner, inside the image.
            top = box.top() - height if box.top() - height >= 0 else box.top()
            left = min(max(box.left(), 0.0), max(image.width() - width, 0))
            tag = QRectF(left, top, width, height)
            painter.fillRect(tag, colour)
            painter.setPen(QColor("white"))
            painter.drawText(tag, int(Qt.AlignmentFlag.AlignCenter), label)
        painter.end()
    return png_bytes(image)
