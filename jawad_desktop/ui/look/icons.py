"""The app's icons: Lucide SVGs (ISC licence) tinted to the theme.

Bundled names (``resources/icons/ui/<name>.svg``; ``ICON_NAMES``):
arrow-left arrow-right ban check chevron-down chevron-right chevron-up circle-check
circle-question-mark circle-stop circle-x clock copy download external-link globe hand house
info keyboard list-checks loader-circle message-square-plus mic mic-off moon
mouse-pointer-click palette panel-left paperclip pause pencil play plus refresh-cw rotate-cw
scroll-text search send settings shield-alert shield-check sparkles square sun telescope
trash-2 triangle-alert undo-2 volume-2 wrench x

``icon(name, role)`` gives a ``QIcon`` whose strokes take the colour of ``role`` ("text",
"muted", "accent", "on-accent", "danger", "success", "warning") in the theme in use
(``ui.theme``). The colour is read when the icon is drawn, so an icon already on a button
follows a theme or accent change; a disabled button's icon takes the disabled colour.
Rendered pixmaps are cached per colour and size; the cache is emptied on a theme change.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6 import QtCore
from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, QUrl
from PySide6.QtGui import QIcon, QIconEngine, QPainter, QPixmap, QTextDocument

from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.resources import resources_dir

log = logging.getLogger("jawad.ui.icons")

ICON_NAMES: tuple[str, ...] = (
    "arrow-left", "arrow-right", "audio-lines", "ban", "check", "chevron-down", "chevron-right", "chevron-up",
    "circle-check", "circle-question-mark", "circle-stop", "circle-x", "clock", "copy", "download",
    "external-link", "globe", "hand", "house", "info", "keyboard", "list-checks", "loader-circle",
    "message-square-plus", "mic", "mic-off", "moon", "mouse-pointer-click", "palette", "panel-left",
    "paperclip", "pause", "pencil", "play", "plus", "refresh-cw", "rotate-cw", "scroll-text", "search",
    "send", "settings", "shield-alert", "shield-check", "sparkles", "square", "sun", "telescope",
    "trash-2", "triangle-alert", "undo-2", "volume-2", "wrench", "x",
)

# A tool card's state: (icon, colour role, words a screen reader and the alt text say).
TOOL_STATES: dict[str, tuple[str, str, str]] = {
    "pending": ("loader-circle", "muted", "Running"),
    "running": ("loader-circle", "muted", "Running"),
    "success": ("circle-check", "success", "Done"),
    "error": ("circle-x", "danger", "Failed"),
    "denied": ("ban", "danger", "Denied"),
    "stopped": ("circle-stop", "warning", "Stopped"),
}
STATE_ICON_SIZE = 16

_svg_text: dict[str, str] = {}
_renderers: dict[tuple[str, str], object] = {}  # (name, colour) -> QSvgRenderer
_pixmaps: dict[tuple[str, str, int, int, float], QPixmap] = {}
_icons: dict[tuple[str, str], QIcon] = {}
_listening = False
_missing: set[str] = set()


def icons_dir() -> Path:
    """Where the bundled SVGs are."""
    return resources_dir() / "icons" / "ui"


def svg_source(name: str) -> str:
    """The SVG text of icon ``name``; KeyError for a name that is not bundled."""
    if name not in ICON_NAMES:
        raise KeyError(f"no bundled icon named {name!r}")
    text = _svg_text.get(name)
    if text is None:
        text = (icons_dir() / f"{name}.svg").read_text(encoding="utf-8")
        _svg_text[name] = text
    return text


def _renderer(name: str, colour: str) -> object:
    from PySide6.QtSvg import QSvgRenderer  # imported on first paint, not at start-up

    key = (name, colour)
    renderer = _renderers.get(key)
    if renderer is None:
        renderer = QSvgRenderer(QByteArray(svg_source(name).replace("currentColor", colour).encode()))
        _renderers[key] = renderer
    return renderer


def _colour(role: str, mode: QIcon.Mode) -> str:
    return theme.role_colour(role, disabled=mode == QIcon.Mode.Disabled).name()


def render(name: str, role: str, size: QSize, scale: float = 1.0, mode: QIcon.Mode = QIcon.Mode.Normal) -> QPixmap:
    """Icon ``name`` in the colour of ``role``, ``size`` logical pixels at ``scale``."""
    colour = _colour(role, mode)
    key = (name, colour, size.width(), size.height(), scale)
    pixmap = _pixmaps.get(key)
    if pixmap is None:
        pixmap = QPixmap(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)))
        pixmap.fill(QtCore.Qt.GlobalColor.transparent)
        try:
            renderer = _renderer(name, colour)
        except OSError as exc:  # an install without resources/: a blank icon, said once
            if name not in _missing:
                _missing.add(name)
                log.error("icon %s is missing from %s: %s", name, icons_dir(), exc)
        else:
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            renderer.render(painter, QRectF(pixmap.rect()))  # type: ignore[attr-defined]
            painter.end()
        pixmap.setDevicePixelRatio(scale)
        _pixmaps[key] = pixmap
    return pixmap


class _TintedEngine(QIconEngine):
    """Draws a bundled SVG in a theme role's colour, read at paint time."""

    def __init__(self, name: str, role: str) -> None:
        super().__init__()
        self._name = name
        self._role = role

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        scale = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        painter.drawPixmap(rect, render(self._name, self._role, rect.size(), scale, mode))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return render(self._name, self._role, size, 1.0, mode)

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        return render(self._name, self._role, size, scale, mode)

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        side = min(size.width(), size.height())
        return QSize(side, side)

    def clone(self) -> QIconEngine:
        return _TintedEngine(self._name, self._role)

    def key(self) -> str:
        return "jawad-tinted-svg"

    def iconName(self) -> str:
        return self._name

    def isNull(self) -> bool:
        return False


def icon(name: str, role: str = "text") -> QIcon:
    """The bundled icon ``name`` tinted with the theme colour of ``role``. KeyError for a
    name that is not bundled (``ICON_NAMES``)."""
    if name not in ICON_NAMES:
        raise KeyError(f"no bundled icon named {name!r}")
    key = (name, role)
    cached = _icons.get(key)
    if cached is None:
        _listen()
        cached = QIcon(_TintedEngine(name, role))
        _icons[key] = cached
    return cached


def state_markdown(status: str) -> str:
    """The Markdown image of a tool card's ``status`` (``TOOL_STATES``; unknown: pending):
    an icon, never a character the fonts may lack. ``add_state_images`` supplies the image."""
    _name, _role, words = TOOL_STATES.get(status, TOOL_STATES["pending"])
    return f"![{words}](icon:{status if status in TOOL_STATES else 'pending'})"


def add_state_images(doc: QTextDocument, scale: float = 1.0) -> None:
    """Give ``doc`` the ``icon:<status>`` images ``state_markdown`` refers to, in the theme's colours."""
    size = QSize(STATE_ICON_SIZE, STATE_ICON_SIZE)
    for status, (name, role, _words) in TOOL_STATES.items():
        image = render(name, role, size, scale).toImage()
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"icon:{status}"), image)


def _listen() -> None:
    global _listening
    if not _listening:
        _listening = True
        theme.notifier().changed.connect(_theme_changed)


def _theme_changed() -> None:
    _pixmaps.clear()
    _renderers.clear()
