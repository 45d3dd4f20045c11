"""The app's look: one theme system for every widget.

This module owns the design tokens (colours per theme, the type scale, the spacing scale,
the corner radii), turns them into the application's ``QPalette`` and one application-wide
style sheet, and applies both with ``apply_theme``. Themes: "light", "dark", "system" (light
or dark as the desktop says, followed live) and "high-contrast" (white on black, every text
colour at least 7:1 against its background). The accent colour is a setting; each theme
adjusts it until it is legible on that theme's surfaces.

Widgets that paint themselves read the active tokens with ``current()``; icons tint
themselves from ``role_colour`` (``ui.look.icons``); ``notifier().changed`` fires after a change.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, NamedTuple

from PySide6 import QtCore
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from PySide6.QtGui import QFont

log = logging.getLogger("jawad.ui.theme")

THEMES = ("system", "light", "dark", "high-contrast")
THEME_LABELS = {
    "system": "Follow the system",
    "light": "Light",
    "dark": "Dark",
    "high-contrast": "High contrast",
}
DEFAULT_ACCENT = "#2f6fed"
ACCENTS: dict[str, str] = {  # the swatches offered in Settings → Appearance
    "Blue": DEFAULT_ACCENT,
    "Teal": "#0f8b8d",
    "Green": "#2e8b57",
    "Purple": "#7b4fd6",
    "Rose": "#d2416e",
    "Orange": "#d9660b",
}

# The type scale (pixels): caption, small, body, heading, title.
TYPE_SCALE: dict[str, int] = {"caption": 12, "small": 13, "body": 15, "heading": 18, "title": 22}


def type_step(font: QFont, step: str, *, size: float | None = None) -> QFont:
    """A copy of ``font`` at the type scale's ``step`` (``TYPE_SCALE``), relative to the body text it
    stands beside: the user's font size (Settings → Appearance, or ``size`` in points) stays the body.
    The one place a widget's font size is set."""
    from PySide6.QtGui import QFont  # made at its first use, after the first frame (its 8 enums: 1 ms)

    scaled = QFont(font)
    body = size if size is not None else font.pointSizeF()
    scaled.setPointSizeF(max(6.0, body * TYPE_SCALE[step] / TYPE_SCALE["body"]))
    return scaled


# The spacing scale (pixels): every margin, padding and gap of the widgets and the style sheet is
# one of these (or 0); tests/ui/test_spacing_scale.py holds the Settings pages and this sheet to it.
SPACE: dict[str, int] = {"xxs": 2, "xs": 4, "sm": 8, "md": 12, "lg": 16, "xl": 24}
# The chat's reading column (pixels): messages and the composer, centred, at most this wide (a
# line of about 80 characters of body text, as chat apps keep it at any window size).
READING_WIDTH = 760
# Corner radii (pixels).
RADIUS: dict[str, int] = {"sm": 4, "md": 6, "lg": 10}

# Colours an icon or a painted widget may ask for by role (``role_colour``).
ROLES = ("text", "muted", "accent", "on-accent", "danger", "success", "warning", "white", "black")


class Colours(NamedTuple):  # not a dataclass: dataclasses costs 2 ms to import before the first frame
    """A theme's colours, as ``#rrggbb`` strings."""

    window: str  # the window's background
    surface: str  # text fields, lists, cards
    surface_alt: str  # alternate rows, assistant messages, code
    raised: str  # buttons
    hover: str
    pressed: str
    border: str
    text: str
    muted: str  # secondary text, placeholders
    disabled: str
    accent: str
    on_accent: str  # text and icons on the accent colour
    link: str
    danger: str
    success: str
    warning: str
    notice: str  # the background of a banner that needs the user (take over the page)
    tooltip: str
    tooltip_text: str


class Theme(NamedTuple):
    """A resolved theme: its name ("light", "dark" or "high-contrast"), what was asked for
    ("system" resolves to light or dark), its colours and whether it is dark."""

    name: str
    requested: str
    dark: bool
    colours: Colours
    border_width: int = 1


_LIGHT = Colours(
    window="#f5f6f8", surface="#ffffff", surface_alt="#eef1f5", raised="#ffffff", hover="#e8ecf1",
    pressed="#dbe1e8", border="#cfd6de", text="#1d2127", muted="#56606b", disabled="#8a939d",
    accent=DEFAULT_ACCENT, on_accent="#ffffff", link=DEFAULT_ACCENT, danger="#c62828",
    success="#1b7f3b", warning="#8a5a00", notice="#fef3c7", tooltip="#1d2127", tooltip_text="#ffffff",
)
_DARK = Colours(
    window="#1c1d21", surface="#25272c", surface_alt="#2d3036", raised="#33363d", hover="#3b3f47",
    pressed="#464a53", border="#454951", text="#e8eaed", muted="#a5abb3", disabled="#6e747c",
    accent=DEFAULT_ACCENT, on_accent="#ffffff", link=DEFAULT_ACCENT, danger="#f2726f",
    success="#5cc177", warning="#e0b04a", notice="#3d3115", tooltip="#e8eaed", tooltip_text="#1c1d21",
)
_HIGH_CONTRAST = Colours(
    window="#000000", surface="#000000", surface_alt="#141414", raised="#000000", hover="#262626",
    pressed="#3a3a3a", border="#ffffff", text="#ffffff", muted="#e0e0e0", disabled="#b3b3b3",
    accent="#ffd43b", on_accent="#000000", link="#8fd3ff", danger="#ff8a80", success="#7ee787",
    warning="#ffd43b", notice="#000000", tooltip="#ffffff", tooltip_text="#000000",
)


def contrast_ratio(a: str | QColor, b: str | QColor) -> float:
    """The WCAG 2 contrast ratio of two colours (1 to 21)."""

    def luminance(colour: str | QColor) -> float:
        # QColor(QColor) would build all of Qt's namespace enums (its overloads take Qt.GlobalColor)
        c = colour if isinstance(colour, QColor) else QColor(colour)
        channels = []
        for value in (c.redF(), c.greenF(), c.blueF()):
            channels.append(value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4)
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def legible(colour: str, background: str, ratio: float) -> str:
    """``colour`` made lighter (on a dark background) or darker (on a light one) in small
    steps until it reaches ``ratio`` against ``background``."""
    c = QColor(colour)
    if not c.isValid():
        c = QColor(DEFAULT_ACCENT)
    towards_white = QColor(background).lightnessF() < 0.5
    for _ in range(40):
        if contrast_ratio(c, background) >= ratio:
            break
        lightness = c.lightnessF()
        lightness = min(1.0, lightness + 0.03) if towards_white else max(0.0, lightness - 0.03)
        c = QColor.fromHslF(max(c.hslHueF(), 0.0), c.hslSaturationF(), lightness)
    return c.name()


ON_ACCENT_RATIO = 6.0  # text on the accent (selected rows, primary buttons): 4.5 and a margin for antialiasing


def _with_accent(base: Colours, accent: str, *, ratio: float, link_ratio: float, dark: bool) -> Colours:
    """``base`` with ``accent`` made legible on its surfaces and under its own text: white text
    on a darkened accent in a light theme, black text on a lightened one in a dark theme (the
    default blue had black text at 4.6:1, antialiased to 4.1:1 on screen)."""
    accent = legible(accent, base.surface, ratio)
    on_accent = "#000000" if dark else "#ffffff"
    accent = legible(accent, on_accent, max(ON_ACCENT_RATIO, ratio * ON_ACCENT_RATIO / 4.5))
    link = accent
    for background in (base.surface, base.window, base.surface_alt):  # links show on all three (cards, notes)
        link = legible(link, background, link_ratio)
    return base._replace(accent=accent, on_accent=on_accent, link=link)


def system_is_dark() -> bool:
    """Whether the desktop asks for a dark look (Qt's colour-scheme hint)."""
    return QGuiApplication.styleHints().colorScheme() == QtCore.Qt.ColorScheme.Dark  # unknown: light


def resolve(requested: str, accent: str = DEFAULT_ACCENT, *, system_dark: bool | None = None) -> Theme:
    """The theme ``requested`` ("system", "light", "dark" or "high-contrast"; anything else
    is "system") with ``accent``."""
    if requested == "high-contrast":
        # Text colours already pass 7:1; the accent (focus, selection, links) passes it too.
        colours = _with_accent(_HIGH_CONTRAST, accent, ratio=7.0, link_ratio=7.0, dark=True)
        return Theme("high-contrast", requested, True, colours, border_width=2)
    dark = requested == "dark" or (requested not in ("light", "dark") and
                                   (system_is_dark() if system_dark is None else system_dark))
    base = _DARK if dark else _LIGHT
    return Theme("dark" if dark else "light", requested if requested in THEMES else "system", dark,
                 _with_accent(base, accent, ratio=3.0, link_ratio=4.5, dark=dark))


def palette_for(theme: Theme) -> QPalette:
    """The ``QPalette`` of ``theme``: every role set, the disabled group dimmed."""
    c = theme.colours
    p = QPalette()
    R = QPalette.ColorRole
    roles = {
        R.Window: c.window, R.WindowText: c.text, R.Base: c.surface, R.AlternateBase: c.surface_alt,
        R.Text: c.text, R.Button: c.raised, R.ButtonText: c.text, R.BrightText: c.on_accent,
        R.Highlight: c.accent, R.HighlightedText: c.on_accent, R.ToolTipBase: c.tooltip,
        R.ToolTipText: c.tooltip_text, R.PlaceholderText: c.muted, R.Link: c.link, R.LinkVisited: c.link,
        R.Light: c.hover, R.Midlight: c.border, R.Mid: c.border, R.Dark: c.pressed, R.Shadow: "#000000",
        R.Accent: c.accent,
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (R.WindowText, R.Text, R.ButtonText, R.PlaceholderText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(c.disabled))
    p.setColor(QPalette.ColorGroup.Disabled, R.Highlight, QColor(c.pressed))
    p.setColor(QPalette.ColorGroup.Disabled, R.HighlightedText, QColor(c.disabled))
    return p


def stylesheet_for(theme: Theme) -> str:
    """The application style sheet of ``theme``: buttons, fields, lists, tabs, menus,
    scroll bars, tool tips, and the ``role`` property's text styles. Spin boxes are left to
    Fusion and the palette: a style sheet border would hide their arrows."""
    return "".join(part(theme.colours, theme.border_width) for part in (_controls_sheet, _views_sheet,
                                                                          _frames_sheet, _text_sheet))


def _controls_sheet(c: Colours, b: int) -> str:
    """The style sheet of buttons and tool buttons, tool tips."""
    r, s, t = RADIUS, SPACE, TYPE_SCALE
    return f"""
QToolTip {{ color: {c.tooltip_text}; background: {c.tooltip}; border: 1px solid {c.border};
  padding: {s['xs']}px {s['sm']}px; border-radius: {r['sm']}px; font-size: {t['caption']}px; }}
QPushButton {{ color: {c.text}; background: {c.raised}; border: {b}px solid {c.border};
  border-radius: {r['md']}px; padding: {s['xs']}px {s['md']}px; }}
QPushButton:hover {{ background: {c.hover}; }}
QPushButton:pressed, QPushButton:checked {{ background: {c.pressed}; }}
QPushButton:focus {{ border-color: {c.accent}; }}
QPushButton:disabled {{ color: {c.disabled}; }}
QPushButton:default, QPushButton[primary="true"] {{ color: {c.on_accent}; background: {c.accent};
  border-color: {c.accent}; }}
QPushButton:default:focus, QPushButton[primary="true"]:focus {{ border-color: {c.text}; }}
QPushButton:default:disabled, QPushButton[primary="true"]:disabled {{ color: {c.disabled};
  background: {c.pressed}; border-color: {c.border}; }}
QToolButton {{ color: {c.text}; background: transparent; border: {b}px solid transparent;
  border-radius: {r['md']}px; padding: {s['xs']}px; }}
QToolButton:hover {{ background: {c.hover}; }}
QToolButton:pressed, QToolButton:checked {{ background: {c.pressed}; }}
QToolButton:focus {{ border-color: {c.accent}; }}
QToolButton:disabled {{ color: {c.disabled}; }}
"""


def _views_sheet(c: Colours, b: int) -> str:
    """The style sheet of fields, lists, tables, tabs."""
    r, s = RADIUS, SPACE
    return f"""
QLineEdit, QPlainTextEdit, QTextEdit, QComboBox, QKeySequenceEdit {{
  color: {c.text}; background: {c.surface}; border: {b}px solid {c.border}; border-radius: {r['md']}px;
  selection-background-color: {c.accent}; selection-color: {c.on_accent}; placeholder-text-color: {c.muted}; }}
QLineEdit, QComboBox {{ padding: {s['xs']}px {s['sm']}px; }}
QLineEdit:focus, QPlainTextEdit:focus, QTextEdit:focus, QComboBox:focus {{ border-color: {c.accent}; }}
QLineEdit:disabled, QPlainTextEdit:disabled, QTextEdit:disabled, QComboBox:disabled {{ color: {c.disabled}; }}
QComboBox QAbstractItemView {{ background: {c.surface}; border: 1px solid {c.border};
  selection-background-color: {c.accent}; selection-color: {c.on_accent}; }}
QListView, QTreeView, QTableView, QListWidget, QTreeWidget, QTableWidget {{ background: {c.surface};
  color: {c.text}; border: {b}px solid {c.border}; border-radius: {r['md']}px;
  alternate-background-color: {c.surface_alt}; placeholder-text-color: {c.muted}; }}
QListView:focus, QTreeView:focus, QTableView:focus {{ border-color: {c.accent}; }}
QListView::item:hover, QTreeView::item:hover {{ background: {c.hover}; }}
QListView::item:selected, QTreeView::item:selected, QTableView::item:selected,
QListView::item:selected:!active, QTreeView::item:selected:!active, QTableView::item:selected:!active {{
  background: {c.accent}; color: {c.on_accent}; }}
QHeaderView::section {{ background: {c.surface_alt}; color: {c.text}; border: none;
  border-bottom: 1px solid {c.border}; padding: {s['xs']}px {s['sm']}px; }}
QTabWidget::pane {{ border: {b}px solid {c.border}; border-radius: {r['md']}px; top: -1px; }}
QTabBar::tab {{ color: {c.muted}; background: transparent; padding: {s['sm']}px {s['md']}px;
  border: none; border-bottom: 2px solid transparent; }}
QTabBar::tab:hover {{ color: {c.text}; background: {c.hover}; }}
QTabBar::tab:selected {{ color: {c.text}; border-bottom: 2px solid {c.accent}; }}
"""


def _frames_sheet(c: Colours, b: int) -> str:
    """The style sheet of menus, group boxes, progress bars, scroll bars, splitters."""
    r, s = RADIUS, SPACE
    return f"""
QMenuBar {{ background: {c.window}; color: {c.text}; }}
QMenuBar::item {{ padding: {s['xs']}px {s['sm']}px; border-radius: {r['sm']}px; background: transparent; }}
QMenuBar::item:selected {{ background: {c.hover}; }}
QMenu {{ background: {c.surface}; color: {c.text}; border: 1px solid {c.border}; padding: {s['xs']}px; }}
QMenu::item {{ padding: {s['sm']}px {s['xl']}px {s['sm']}px {s['md']}px; border-radius: {r['sm']}px; }}
QMenu::item:selected {{ background: {c.accent}; color: {c.on_accent}; }}
QMenu::item:disabled {{ color: {c.disabled}; }}
QMenu::separator {{ height: 1px; background: {c.border}; margin: {s['xs']}px {s['sm']}px; }}
QGroupBox {{ border: {b}px solid {c.border}; border-radius: {r['lg']}px; margin-top: {s['md']}px;
  padding: {s['md']}px {s['sm']}px {s['sm']}px {s['sm']}px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: {s['md']}px; padding: 0 {s['xs']}px; color: {c.text}; }}
QProgressBar {{ background: {c.surface_alt}; border: {b}px solid {c.border}; border-radius: {r['sm']}px;
  text-align: center; color: {c.text}; }}
QProgressBar::chunk {{ background: {c.accent}; border-radius: {r['sm']}px; }}
QScrollBar:vertical {{ background: transparent; width: {s['md']}px; margin: 0; }}
QScrollBar:horizontal {{ background: transparent; height: {s['md']}px; margin: 0; }}
QScrollBar::handle:vertical {{ background: {c.border}; min-height: 32px; border-radius: {r['sm']}px;
  margin: {s['xxs']}px; }}
QScrollBar::handle:horizontal {{ background: {c.border}; min-width: 32px; border-radius: {r['sm']}px;
  margin: {s['xxs']}px; }}
QScrollBar::handle:hover {{ background: {c.muted}; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: transparent; }}
QSplitter::handle {{ background: {c.window}; }}
QSplitter::handle:hover {{ background: {c.border}; }}
"""


def _text_sheet(c: Colours, b: int) -> str:
    """The style sheet of the status bar, the ``role`` text styles, banners and cards."""
    r, t = RADIUS, TYPE_SCALE
    return f"""
QStatusBar {{ color: {c.muted}; }}
QLabel[role="title"] {{ font-size: {t['title']}px; font-weight: 600; }}
QLabel[role="heading"] {{ font-size: {t['heading']}px; font-weight: 600; }}
QLabel[role="section"] {{ font-size: {t['body']}px; font-weight: 600; }}
QLabel[role="body"] {{ font-size: {t['body']}px; }}
QLabel[role="small"] {{ font-size: {t['small']}px; }}
QLabel[role="caption"] {{ font-size: {t['caption']}px; color: {c.muted}; }}
QLabel[role="muted"] {{ color: {c.muted}; }}
QLabel[role="danger"] {{ color: {c.danger}; }}
QLabel[role="warning"] {{ color: {c.warning}; }}
QFrame#takeOverBanner {{ background: {c.notice}; border: {max(b, 2)}px solid {c.warning};
  border-radius: {r['md']}px; }}
QFrame#takeOverBanner QLabel {{ color: {c.text}; }}
QListView#conversation {{ border: none; background: {c.window}; }}
QFrame[card="true"] {{ background: {c.surface}; border: {b}px solid {c.border}; border-radius: {r['lg']}px; }}
"""


class _Notifier(QObject):
    changed = Signal()


_current: Theme | None = None
_notifier: _Notifier | None = None
_applied: tuple[str, str] | None = None  # (requested, accent) last applied
_following_system = False
_fusion = False


def notifier() -> _Notifier:
    """The object whose ``changed`` signal fires after a theme or accent change."""
    global _notifier
    if _notifier is None:
        _notifier = _Notifier()
    return _notifier


def current() -> Theme:
    """The theme in use: the applied one; before one is (the first frame), light or dark as the
    application's palette is, which draws the frame's widgets (the desktop's, or the saved
    theme's from ``apply_frame_palette``). Asking Qt's colour-scheme hint here would build all
    of Qt's namespace enums before the frame (15 ms); ``apply_theme`` asks it once built."""
    if _current is not None:
        return _current
    return resolve("system", system_dark=palette_is_dark())


def palette_is_dark() -> bool:
    """Whether the application's palette is dark: its window colour below mid-grey."""
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def role_colour(role: str, *, disabled: bool = False) -> QColor:
    """The colour of ``role`` (one of ``ROLES``) in the theme in use."""
    c = current().colours
    if disabled:
        return QColor(c.disabled)
    name = {
        "text": c.text, "muted": c.muted, "accent": c.accent, "on-accent": c.on_accent,
        "danger": c.danger, "success": c.success, "warning": c.warning,
        "white": "#ffffff", "black": "#000000",  # on a fixed colour (the listening microphone's red)
    }.get(role, c.text)
    return QColor(name)


def apply_frame_palette(requested: str, accent: str = DEFAULT_ACCENT) -> None:
    """The first frame's colours, before the window is built: the palette of a chosen theme (the
    desktop's own for "system"). Neither the style sheet nor anything of Qt's namespace (PySide
    builds its 100-odd enums on their first use: 30 ms) is touched before the frame; the window's
    ``build`` applies the whole theme with ``apply_theme``."""
    app = QApplication.instance()
    if isinstance(app, QApplication) and requested in ("light", "dark", "high-contrast"):
        app.setPalette(palette_for(resolve(requested, accent if QColor(accent).isValid() else DEFAULT_ACCENT)))


def apply_theme(requested: str, accent: str = DEFAULT_ACCENT, *, force: bool = False) -> Theme | None:
    """Apply theme ``requested`` with ``accent`` to the whole application: the Fusion style,
    the palette and the style sheet. Returns the theme, or None without a QApplication.
    "system" follows the desktop's light/dark changes until another theme is applied."""
    global _current, _applied
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return None
    accent = accent if QColor(accent).isValid() else DEFAULT_ACCENT
    if not force and _applied == (requested, accent) and _current is not None:
        return _current
    hints = QGuiApplication.styleHints()
    if requested == "system":
        hints.unsetColorScheme()
        _follow_system()
    theme = resolve(requested, accent)
    if requested != "system":
        # Web pages (prefers-color-scheme) and native dialogs follow the chosen look.
        hints.setColorScheme(QtCore.Qt.ColorScheme.Dark if theme.dark else QtCore.Qt.ColorScheme.Light)
    if not _fusion:
        _use_fusion(app)
    app.setPalette(palette_for(theme))
    app.setStyleSheet(stylesheet_for(theme))
    _current, _applied = theme, (requested, accent)
    log.debug("theme %s (%s), accent %s", theme.name, requested, theme.colours.accent)
    notifier().changed.emit()
    return theme


def _use_fusion(app: QApplication) -> None:
    """Fusion draws every control from the palette, the same on every desktop (a native style
    would ignore part of it). Set once: with a style sheet, ``app.style()`` is a wrapper."""
    global _fusion
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    _fusion = True


def _follow_system() -> None:
    global _following_system
    if _following_system:
        return
    _following_system = True
    QGuiApplication.styleHints().colorSchemeChanged.connect(_system_scheme_changed)


def _system_scheme_changed(_scheme: QtCore.Qt.ColorScheme) -> None:
    if _applied is not None and _applied[0] == "system":
        apply_theme("system", _applied[1], force=True)
