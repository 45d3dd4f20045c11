"""The theme system and the icon set: each theme applies to the whole application, the accent
re-tints, high contrast passes 7:1, every bundled icon draws, every icon the code asks for is
bundled, tool-card states are icons, and Settings → Appearance applies live."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QImage, QPalette, QTextDocument, QTextImageFormat
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QPushButton, QToolButton

import jawad_desktop
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.core.store.settings_file import SettingsStore
from jawad_desktop.ui.chat.action_log import COLUMNS, ActionLogModel
from jawad_desktop.ui.chat.chat_model import ChatItem
from jawad_desktop.ui.chat.chat_view import ChatPanel
from jawad_desktop.ui.look import icons, theme
from jawad_desktop.ui.look.icons import ICON_NAMES, TOOL_STATES, icon

Window = QPalette.ColorRole.Window


@pytest.fixture(autouse=True)
def restore_look(qapp: QApplication) -> Iterator[None]:
    """Each test starts from, and leaves, the application's own look."""
    style, palette, sheet = qapp.style().name(), QPalette(qapp.palette()), qapp.styleSheet()
    yield
    qapp.setStyleSheet(sheet)
    qapp.setStyle(style)
    qapp.setPalette(palette)
    QGuiApplication.styleHints().unsetColorScheme()
    theme._current, theme._applied = None, None


def _opaque_colours(image: QImage) -> set[str]:
    return {image.pixelColor(x, y).name() for x in range(image.width()) for y in range(image.height())
            if image.pixelColor(x, y).alpha() == 255}


def _drawn(qicon: Any, side: int = 24) -> QImage:
    return qicon.pixmap(QSize(side, side)).toImage()


def test_each_theme_sets_the_palette_and_one_style_sheet(qapp: QApplication) -> None:
    windows = {}
    for name in ("light", "dark", "high-contrast"):
        applied = theme.apply_theme(name, theme.DEFAULT_ACCENT)
        assert applied is not None and applied.name == name
        assert qapp.palette().color(Window) == QColor(applied.colours.window)
        assert qapp.palette().color(QPalette.ColorRole.Text) == QColor(applied.colours.text)
        assert "QPushButton" in qapp.styleSheet() and applied.colours.accent in qapp.styleSheet()
        windows[name] = qapp.palette().color(Window).name()
    assert len(set(windows.values())) == 3, windows
    # A widget made after the change, and one made before, both have the theme's colours.
    label = QLabel("x")
    assert label.palette().color(Window).name() == windows["high-contrast"]
    theme.apply_theme("light")
    assert label.palette().color(Window).name() == windows["light"]


def test_follow_the_system_is_light_or_dark_as_the_desktop_says(qapp: QApplication) -> None:
    assert theme.resolve("system", system_dark=True).colours.window == theme.resolve("dark").colours.window
    assert theme.resolve("system", system_dark=False).colours.window == theme.resolve("light").colours.window
    applied = theme.apply_theme("system")
    assert applied is not None and applied.requested == "system"
    assert applied.dark == (QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark)


def test_before_a_theme_is_applied_the_theme_in_use_is_light_or_dark_as_the_palette(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first frame's start page: the palette drawing the frame's widgets says light or dark.
    # The process is as before any theme was applied (a test before this one in it may have).
    monkeypatch.setattr(theme, "_current", None)
    monkeypatch.setattr(theme, "_applied", None)
    saved = QPalette(qapp.palette())
    try:
        qapp.setPalette(theme.palette_for(theme.resolve("dark")))
        assert theme.current().dark and theme.current().colours.window == theme.resolve("dark").colours.window
        qapp.setPalette(theme.palette_for(theme.resolve("light")))
        assert not theme.current().dark
    finally:
        qapp.setPalette(saved)


def test_an_accent_change_retints_icons_already_shown(qapp: QApplication, qtbot: Any) -> None:
    button = QPushButton()
    qtbot.addWidget(button)
    send = icon("send", "accent")
    button.setIcon(send)
    theme.apply_theme("light", theme.ACCENTS["Blue"])
    blue = theme.current().colours.accent
    assert _opaque_colours(_drawn(button.icon())) == {blue}
    theme.apply_theme("light", theme.ACCENTS["Rose"])
    rose = theme.current().colours.accent
    assert rose != blue
    assert _opaque_colours(_drawn(button.icon())) == {rose}, "the icon on the button kept the old accent"
    assert qapp.palette().color(QPalette.ColorRole.Highlight).name() == rose and rose in qapp.styleSheet()
    # Text icons follow the theme: dark text on light, light text on dark.
    theme.apply_theme("dark", theme.ACCENTS["Rose"])
    assert _opaque_colours(_drawn(icon("copy"))) == {theme.current().colours.text}
    disabled = icon("copy").pixmap(QSize(24, 24), QIcon.Mode.Disabled).toImage()
    assert _opaque_colours(disabled) == {theme.current().colours.disabled}


def test_high_contrast_passes_seven_to_one_and_the_others_pass_aa() -> None:
    for accent in [*theme.ACCENTS.values(), "#ffff66", "#101010", "#777777"]:
        hc = theme.resolve("high-contrast", accent).colours
        pairs = {
            "text": (hc.text, hc.window), "text on fields": (hc.text, hc.surface), "muted": (hc.muted, hc.surface),
            "disabled": (hc.disabled, hc.surface), "on accent": (hc.on_accent, hc.accent),
            "accent": (hc.accent, hc.surface), "link": (hc.link, hc.surface), "danger": (hc.danger, hc.surface),
            "success": (hc.success, hc.surface), "warning": (hc.warning, hc.surface),
            "tool tip": (hc.tooltip_text, hc.tooltip), "alternate rows": (hc.text, hc.surface_alt),
            "banner": (hc.text, hc.notice), "banner border": (hc.warning, hc.notice),
        }
        for what, (fg, bg) in pairs.items():
            assert theme.contrast_ratio(fg, bg) >= 7.0, (accent, what, fg, bg)
        for name in ("light", "dark"):
            c = theme.resolve(name, accent).colours
            for fg, bg in ((c.text, c.window), (c.text, c.surface), (c.text, c.surface_alt), (c.muted, c.surface),
                           (c.link, c.surface), (c.danger, c.surface), (c.success, c.surface),
                           (c.on_accent, c.accent), (c.tooltip_text, c.tooltip), (c.text, c.notice),
                           (c.warning, c.surface)):
                assert theme.contrast_ratio(fg, bg) >= 4.5, (name, accent, fg, bg)
            assert theme.contrast_ratio(c.accent, c.surface) >= 3.0, (name, accent)  # focus rings, selection
    assert theme.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert theme.contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_every_bundled_svg_draws_and_the_licence_ships(qapp: QApplication) -> None:
    theme.apply_theme("light")
    folder = icons.icons_dir()
    assert (folder / "LICENSE").read_text().startswith("ISC License")
    assert sorted(p.stem for p in folder.glob("*.svg")) == sorted(ICON_NAMES)
    for name in ICON_NAMES:
        drawn = icon(name)
        assert not drawn.isNull(), name
        colours = _opaque_colours(_drawn(drawn, 32))
        assert colours == {theme.current().colours.text}, name
    with pytest.raises(KeyError):
        icon("no-such-icon")


def _names_in_code() -> set[str]:
    """The icon names the package asks for: ``icon("x")`` calls, the (widget, "x") pairs of
    the loops that set icons, and the tables of (icon, role) pairs."""
    from jawad_desktop.ui.chat.research_panel import STATUS_ICONS
    from jawad_desktop.ui.chat.voice_button import _ICON
    from jawad_desktop.ui.prompts.permission_panel import DECISION_ICONS

    patterns = [
        re.compile(r'\bicon\(\s*"([^"]+)"'),
        re.compile(r'\(\s*(?:self|browser)\.[\w.]+,\s*"([a-z0-9-]+)"\s*\)'),
    ]
    found: set[str] = set()
    for path in Path(jawad_desktop.__file__).parent.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        for pattern in patterns:
            found.update(pattern.findall(source))
    for table in (DECISION_ICONS, STATUS_ICONS, _ICON, TOOL_STATES):
        found.update(pair[0] for pair in table.values())
    return found


def test_every_icon_the_code_names_is_bundled() -> None:
    used = _names_in_code()
    # The scan itself works: it sees the composer's, the tool cards' and the menus' icons.
    assert {"send", "square", "mic", "ban", "circle-check", "message-square-plus", "arrow-left"} <= used
    assert used - set(ICON_NAMES) == set()


@pytest.mark.parametrize("status", sorted(TOOL_STATES))
def test_a_tool_card_shows_its_state_with_an_icon_not_a_glyph(status: str, qtbot: Any, qapp: QApplication) -> None:
    theme.apply_theme("light")
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 400)
    panel.show()
    qtbot.waitExposed(panel)
    card = ChatItem(role="tool", tool_name="click_element", tool_args={"index": 3}, tool_result="", tool_status=status)
    panel.view.chat_model.append(card)
    head = card.markdown().split("**click_element**")[0]
    assert head.startswith(f"![{TOOL_STATES[status][2]}](icon:{status})"), head
    assert all(ord(ch) < 128 for ch in head), f"the state is a character the fonts may lack: {head!r}"
    doc = panel.view.chat_delegate.document(card, 500)
    images = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                images.append(QTextImageFormat(fmt).name())
            it += 1
        block = block.next()
    assert images[:1] == [f"icon:{status}"]
    image = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(f"icon:{status}"))
    assert isinstance(image, QImage) and not image.isNull()
    # On screen: the card shows the state's colour (a red "denied" icon, a green tick...).
    _name, role, _words = TOOL_STATES[status]
    want = theme.role_colour(role)
    qtbot.waitUntil(lambda: card.id in panel.view.chat_delegate.painted_height, timeout=3000)
    shot = panel.view.viewport().grab().toImage()
    near = sum(1 for x in range(0, min(shot.width(), 120)) for y in range(0, min(shot.height(), 80))
               if _close(shot.pixelColor(x, y), want))
    assert near >= 6, f"no {role} icon drawn on the {status} card"


def _close(a: QColor, b: QColor) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) < 40


def test_old_settings_files_load_and_a_bad_accent_is_the_default(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"ui": {"theme": "dark", "font_size": 12}}))
    loaded = SettingsStore(path).load()
    assert loaded.ui.theme == "dark" and loaded.ui.accent == theme.DEFAULT_ACCENT
    assert Settings.model_validate({"ui": {"accent": "blue; }"}}).ui.accent == theme.DEFAULT_ACCENT
    assert Settings.model_validate({"ui": {"accent": "#D2416E", "theme": "high-contrast"}}).ui.accent == "#d2416e"


def test_appearance_in_settings_applies_live(make_window: Any, profile_dir: Path, qtbot: Any,
                                             qapp: QApplication) -> None:
    window = make_window(profile_dir)
    window.open_settings()
    dialog = window._settings_dialog
    dialog.show_page("Appearance")
    page = dialog.appearance
    page.theme.setCurrentIndex(page.theme.findData("dark"))
    dark = theme.resolve("dark", window.ctx.settings.ui.accent).colours
    assert qapp.palette().color(Window).name() == dark.window
    assert window.chat.input.palette().color(QPalette.ColorRole.Text).name() == dark.text
    page.swatches[theme.ACCENTS["Teal"]].click()
    assert window.ctx.settings.ui.accent == theme.ACCENTS["Teal"]
    assert qapp.palette().color(QPalette.ColorRole.Highlight).name() == theme.current().colours.accent
    assert theme.current().colours.accent != dark.accent
    page.theme.setCurrentIndex(page.theme.findData("high-contrast"))
    assert qapp.palette().color(Window).name() == "#000000"
    saved = json.loads(window.ctx.paths.settings_file.read_text())
    assert saved["ui"]["theme"] == "high-contrast" and saved["ui"]["accent"] == theme.ACCENTS["Teal"]
    dialog.close()


def test_the_window_buttons_show_icons_not_glyphs(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window = make_window(profile_dir)
    for button in (window.chat.send_button, window.chat.stop_button, window.browser.back_button,
                   window.browser.forward_button, window.browser.reload_button, window.voice_button,
                   *window.permission_panel.buttons.values()):
        assert not button.icon().isNull(), button.accessibleName()
        assert button.accessibleName() and button.toolTip(), button
    qtbot.waitUntil(lambda: window.sidebar is not None, timeout=10_000)
    assert not window.sidebar.new_chat_button.icon().isNull()
    for action in (window.new_chat_action, window.settings_action, window.stop_action):
        assert not action.icon().isNull(), action.text()
    for button in window.findChildren(QAbstractButton):
        if isinstance(button, QToolButton) and button.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly:
            continue  # its text is not shown
        words = button.text().replace("&", "").strip()
        assert not words or any(ch.isalnum() for ch in words), f"a glyph for a label: {words!r}"


def test_the_action_log_shows_a_calls_result_as_the_cards_icon(qapp: QApplication) -> None:
    theme.apply_theme("dark")
    model = ActionLogModel()
    model.upsert(ActionLogEntry(id="a1", timestamp=0, tool_name="click_element", parameters={}, site="shop.test",
                                permission_level="interact", decision="denied", result="denied"))
    result = model.index(0, COLUMNS.index("Result"))
    drawn = model.data(result, Qt.ItemDataRole.DecorationRole)
    assert isinstance(drawn, QIcon) and _opaque_colours(_drawn(drawn)) == {theme.current().colours.danger}
    assert model.data(model.index(0, COLUMNS.index("Tool")), Qt.ItemDataRole.DecorationRole) is None


@pytest.mark.parametrize("name", ["light", "dark", "high-contrast"])
def test_the_take_over_banner_is_drawn_in_the_themes_colours(name: str, qtbot: Any, qapp: QApplication) -> None:
    from jawad_desktop.core.events import HandOverRequested
    from jawad_desktop.ui.prompts.take_over_banner import TakeOverBanner

    applied = theme.apply_theme(name)
    assert applied is not None
    banner = TakeOverBanner()
    qtbot.addWidget(banner)
    banner.resize(480, 120)
    banner.show_request(HandOverRequested(id="h1", reason="sign in", url="http://127.0.0.1/login"))
    image = banner.grab().toImage()
    assert image.pixelColor(image.width() - 8, image.height() // 2).name() == applied.colours.notice
    assert image.pixelColor(0, image.height() // 2).name() == applied.colours.warning  # the border
    assert banner.message.palette().color(QPalette.ColorRole.WindowText).name() == applied.colours.text


def _shown(colour: QColor, background: QColor) -> QColor:
    """``colour`` as painted over ``background`` (its alpha blended)."""
    a = colour.alphaF()
    return QColor.fromRgbF(*(a * f + (1 - a) * b for f, b in zip(
        (colour.redF(), colour.greenF(), colour.blueF()),
        (background.redF(), background.greenF(), background.blueF()), strict=True)))


def test_placeholders_and_secondary_text_are_readable_in_every_theme(make_window: Any, profile_dir: Path,
                                                                    qtbot: Any) -> None:
    """A style sheet's text colour made Qt paint placeholders, the "Jawad" label, the usage line
    and the history's dates at half opacity: mid-grey on black in high contrast (3.2:1 in light)."""
    window = make_window(profile_dir)
    for name, ratio in (("light", 4.5), ("dark", 4.5), ("high-contrast", 7.0)):
        window.ctx.settings.ui.theme = name
        window.apply_appearance()
        qtbot.wait(20)
        surface = QColor(theme.current().colours.surface)  # what the style sheet paints under the text
        for widget in (window.chat.input, window.chat.view, window.sidebar.search_box, window.sidebar.list_view):
            shown = _shown(widget.palette().color(QPalette.ColorRole.PlaceholderText), surface)
            assert theme.contrast_ratio(shown, surface) >= ratio, (name, type(widget).__name__, shown.name())


def test_text_on_the_accent_and_links_keep_their_contrast_in_every_theme() -> None:
    """Selected rows and primary buttons: text on the accent at 6:1 (4.5 and a margin for
    antialiasing; the default blue had black text at 4.6:1); links readable on the surface, the
    window and the alternate surface (a link in a tool card was 4.2:1 on the window colour)."""
    for name in ("light", "dark", "high-contrast"):
        for accent in [*theme.ACCENTS.values(), "#ffff66", "#101010", "#777777"]:
            c = theme.resolve(name, accent).colours
            wanted = theme.ON_ACCENT_RATIO * (7.0 if name == "high-contrast" else 4.5) / 4.5
            assert theme.contrast_ratio(c.on_accent, c.accent) >= wanted - 0.01, (name, accent)
            for background in (c.surface, c.window, c.surface_alt):
                assert theme.contrast_ratio(c.link, background) >= 4.5, (name, accent, background)
