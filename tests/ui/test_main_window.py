"""The main window as a user meets it: first start, a broken settings file, the layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLineEdit, QWidget

from jawad_desktop.ui.main_window import FIRST_START, MainWindow


def _image_colours(widget: QWidget) -> int:
    image = widget.grab().toImage()
    colours = set()
    step_x, step_y = max(1, image.width() // 80), max(1, image.height() // 60)
    for x in range(0, image.width(), step_x):
        for y in range(0, image.height(), step_y):
            colours.add(image.pixel(x, y))
    return len(colours)


def test_first_start_tells_the_user_what_to_do(make_window: Any, profile_dir: Path) -> None:
    window: MainWindow = make_window(profile_dir)
    items = window.chat.view.chat_model.items()
    assert [i.role for i in items] == ["notice"]
    assert items[0].text == FIRST_START
    assert "Settings → Providers" in window.provider_label.text()
    assert window.windowTitle() == "Jawad Desktop"
    assert not window.windowIcon().isNull()


def test_window_is_not_blank(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.browser.view.title() == "Jawad Desktop", timeout=10_000)
    assert _image_colours(window) > 20
    path = profile_dir / "window.png"
    assert window.grab().save(str(path))
    assert path.stat().st_size > 10_000


def test_corrupt_settings_are_moved_aside_and_user_is_told(make_window: Any, profile_dir: Path) -> None:
    config = profile_dir / "config"
    config.mkdir()
    (config / "settings.json").write_text('{"providers": [{"name": "x"')
    window: MainWindow = make_window(profile_dir)
    assert window.banner.isVisible()
    text = window.banner.label.text()
    assert "could not be used" in text and "not valid JSON" in text
    kept = list(config.glob("settings.corrupt-*.json"))
    assert len(kept) == 1 and kept[0].read_text() == '{"providers": [{"name": "x"'


def test_every_control_has_an_accessible_name(make_window: Any, profile_dir: Path) -> None:
    window: MainWindow = make_window(profile_dir)
    unnamed = [
        w.objectName() or type(w).__name__ + ":" + getattr(w, "text", lambda: "")()
        for w in window.findChildren(QWidget)
        if isinstance(w, (QAbstractButton, QLineEdit)) and w.isVisible() and not w.accessibleName()
        and not (isinstance(w, QAbstractButton) and w.text().strip("&"))
    ]
    assert unnamed == []


def test_layout_is_restored(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    window.main_split.setSizes([200, 300, 700])
    window.close()
    sizes = window.ctx.settings.ui.splitter_sizes["main"]
    window.dispose()
    again: MainWindow = make_window(profile_dir)
    restored = again.main_split.sizes()
    # The offscreen screen may be smaller than the window was: compare the chat/browser share.
    assert abs(restored[1] / (restored[1] + restored[2]) - sizes[1] / (sizes[1] + sizes[2])) < 0.02, (restored, sizes)


def test_send_without_provider_keeps_the_text(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    window.chat.input.setPlainText("hello there")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    assert window.chat.input.toPlainText() == "hello there"
    assert window.chat.view.chat_model.items()[-1].role == "notice"
    dialog = window._settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.close()


def test_stop_and_shortcuts_exist(make_window: Any, profile_dir: Path) -> None:
    window: MainWindow = make_window(profile_dir)
    shortcuts = {a.shortcut().toString() for a in window.actions()}
    assert {"Ctrl+,", "Ctrl+Q", "Ctrl+N", "Esc", "Ctrl+L"} <= shortcuts
