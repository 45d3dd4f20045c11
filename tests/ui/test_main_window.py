"""The main window as a user meets it: the first frame, first start, a broken settings file,
the layout."""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLineEdit, QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.first_frame import FirstFrame
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.window.main_window import FIRST_START, MainWindow


def _image_colours(widget: QWidget) -> int:
    image = widget.grab().toImage()
    colours = set()
    step_x, step_y = max(1, image.width() // 80), max(1, image.height() // 60)
    for x in range(0, image.width(), step_x):
        for y in range(0, image.height(), step_y):
            colours.add(image.pixel(x, y))
    return len(colours)


def test_first_start_tells_the_user_what_to_do(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    # The empty chat says what to do (not a message that would stay above every exchange).
    assert window.chat.view.chat_model.items() == []
    empty = window.chat.empty_state
    assert empty.isVisible() and empty.text.text() == FIRST_START
    assert not any(b.isVisible() for b in empty.prompt_buttons)
    assert "Settings → Providers" in window.provider_label.text()
    qtbot.mouseClick(empty.settings_button, Qt.MouseButton.LeftButton)
    dialog = window._settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.pages.currentItem().text() == "Providers"
    dialog.close()
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
    # A size the offscreen screen holds whole: a restored geometry is clamped to the screen.
    window.resize(790, 700)
    qtbot.waitUntil(lambda: window.width() == 790)
    window.main_split.setSizes([150, 330, 300])
    window.action_log_drawer.set_expanded(True)  # the action log's height is the open drawer's
    window.left_split.setSizes([400, 200])
    window.close()
    saved = window.ctx.settings.ui.splitter_sizes
    assert saved["action_log"] == [1]
    window.dispose()
    again: MainWindow = make_window(profile_dir)
    assert (again.width(), again.height()) == (790, 700)
    assert again.action_log_drawer.is_expanded()
    for restored, before in ((again.main_split.sizes(), saved["main"]), (again.left_split.sizes(), saved["chat_log"])):
        assert all(abs(a - b) <= 2 for a, b in zip(restored, before, strict=True)), (restored, before)
    assert abs(again.left_split.sizes()[1] - 200) <= 2


def test_send_without_provider_keeps_the_text(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    window.chat.input.setPlainText("hello there")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    assert window.chat.input.toPlainText() == "hello there"
    assert window.chat.view.chat_model.items()[-1].role == "notice"
    dialog = window._settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.close()


def _notice_contrast(window: MainWindow, qtbot: Any) -> float:
    """The contrast of the chat's text colour on the notice's fill, as painted."""
    from jawad_desktop.ui.look.theme import contrast_ratio

    view = window.chat.view
    qtbot.waitUntil(lambda: view.visualRect(view.model().index(0, 0)).height() > 20)
    rect = view.visualRect(view.model().index(0, 0))
    image = view.viewport().grab().toImage()
    delegate = view.chat_delegate
    # Inside the bubble, left of its text: the fill, not a glyph.
    fill = image.pixelColor(rect.left() + delegate.MARGIN + 3, rect.center().y())
    return contrast_ratio(fill, view.palette().color(view.palette().ColorRole.Text))


def test_the_no_provider_notice_is_readable_in_every_theme_and_goes_once_a_provider_is_added(
        make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind

    window: MainWindow = make_window(profile_dir)
    window.chat.input.setPlainText("hello there")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)  # asked twice: one notice, not two
    assert [i.role for i in window.chat.view.chat_model.items()] == ["notice"]
    dialog = window._settings_dialog
    assert dialog is not None
    dialog.close()
    for name, ratio in (("light", 4.5), ("dark", 4.5), ("high-contrast", 7.0)):
        window.ctx.settings.ui.theme = name
        window.apply_appearance()
        # The tooltip colours made it a black bar (light) and white on white (high contrast).
        assert _notice_contrast(window, qtbot) >= ratio, name
    window.ctx.settings.providers = [ProviderConfig(name="Loop", kind=ProviderKind.OPENAI_COMPATIBLE,
                                                    base_url="http://127.0.0.1:9/v1", model="m")]
    window.ctx.settings.active_provider = "Loop"
    dialog.settings_changed.emit()  # what the Providers page says after Save
    assert window.chat.view.chat_model.items() == []
    assert window.chat.input.toPlainText() == "hello there"


def test_stop_and_shortcuts_exist(make_window: Any, profile_dir: Path) -> None:
    window: MainWindow = make_window(profile_dir)
    shortcuts = {a.shortcut().toString() for a in window.actions()}
    assert {"Ctrl+,", "Ctrl+Q", "Ctrl+N", "Esc", "Ctrl+L"} <= shortcuts


# What the first frame must be shown without: the modules on the way to it load none of it.
HEAVY_FOR_THE_FRAME = [
    "pydantic",
    "asyncio",
    "qasync",
    "dataclasses",
    "logging.handlers",
    "jawad_desktop.core.context",
    "jawad_desktop.core.store.settings_file",
    "jawad_desktop.ui.chat.chat_view",
    "jawad_desktop.ui.chat.presenter",
    "jawad_desktop.ui.window.browser_pane",
]


def test_the_way_to_the_first_frame_loads_no_settings_models_panels_or_asyncio() -> None:
    code = (
        "import sys\n"
        "import jawad_desktop.cli, jawad_desktop.core.logging_setup, jawad_desktop.core.store.paths\n"
        "import jawad_desktop.ui.app.application, jawad_desktop.core.store.first_frame\n"
        "import jawad_desktop.ui.window.main_window\n"
        f"print(' '.join(m for m in {HEAVY_FOR_THE_FRAME!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == []


def test_the_frame_shows_at_once_and_is_built_in_place(
    qtbot: Any, secret_store: SecretStore, aio_loop: Any, profile_dir: Path
) -> None:
    sized = MainWindow(frame=FirstFrame())
    qtbot.addWidget(sized)
    sized.resize(700, 500)
    geometry = bytes(sized.saveGeometry().toBase64().data()).decode()

    window = MainWindow(frame=FirstFrame(geometry=geometry), data_dir=profile_dir / "data")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert not window.built
    # The browser comes right after the frame, as the app shows it (the native window is made for its
    # web view from the start: tests/test_cli.py checks under Xvfb that Qt does not re-create it).
    window.frame_shown()
    assert window.browser.isVisible()
    assert (window.width(), window.height()) == (700, 500)
    assert window.windowTitle() == "Jawad Desktop" and not window.windowIcon().isNull()
    menus = [a.text() for a in window.menuBar().actions()]

    window.build(AppContext.open(str(profile_dir), secrets=secret_store))
    assert window.built and window.centralWidget() is window.main_split
    assert [a.text() for a in window.menuBar().actions()] == menus  # nothing moved
    assert window.file_menu.actions(), "the menus are filled"
    # The deferred work (the history, Research, voice) starts without another show; the assistant
    # waits for its first need (tests/ui/test_window_first_need.py).
    qtbot.waitUntil(lambda: window.sidebar is not None and window.conversation_button is not None, timeout=30_000)
    assert window.presenter.assistant is None
    window.close()
    window.dispose()


def test_closing_the_frame_before_it_is_built(qtbot: Any) -> None:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitSignal(window.closed, timeout=2000):
        window.close()
    window.dispose()


def test_the_built_in_offer_downloads_its_model_with_progress_then_answers_from_it(
        make_window: Any, profile_dir: Path, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31: the first start's local model is downloaded (checked against its pin) with progress
    shown, then the built-in provider runs that file."""
    from jawad_desktop.core.llm.discovery import local_model_offer, models_folder
    from jawad_desktop.ui.window.first_start import OffersPanel
    from tests.voice.hub_server import serve_catalog_model

    window: MainWindow = make_window(profile_dir)
    offer = local_model_offer(models_folder(window.ctx.paths.data), memory_bytes=8 * 10**9, free_bytes=50 * 10**9)
    assert offer is not None and offer.download
    panel = OffersPanel(window.ctx, [offer], window.chat)
    adopted: list[str] = []
    panel.adopted.connect(adopted.append)
    with contextmanager(serve_catalog_model)(tmp_path, offer.download, 3_000_004) as hub:
        hub.throttle_s = 0.02  # slow enough to see the progress
        monkeypatch.setenv("JAWAD_MODEL_ENDPOINT", hub.base_url)
        panel.buttons[0].click()
        qtbot.waitUntil(lambda: "%)…" in panel.status.text(), timeout=30_000)
        qtbot.waitUntil(lambda: bool(adopted), timeout=60_000)
    provider = window.ctx.settings.provider(adopted[0])
    assert provider is not None and provider.model == offer.download
    path = Path(provider.model_file)
    assert path.is_file() and path.parent == models_folder(window.ctx.paths.data)
    assert window.ctx.settings.active_provider == adopted[0]


def test_the_offers_go_once_a_provider_is_added_in_settings(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
    from jawad_desktop.core.llm.discovery import ProviderOffer
    from jawad_desktop.ui.window.first_start import OffersPanel

    window: MainWindow = make_window(profile_dir)
    offers = OffersPanel(window.ctx, [ProviderOffer(
        ProviderConfig(name="Ollama", kind=ProviderKind.OLLAMA, base_url="http://127.0.0.1:11434/v1", model="qwen3"),
        "Ollama on this computer")], window.chat)
    window.offers_panel = offers
    window.chat.insert_above_input(offers)
    qtbot.waitUntil(offers.isVisible, timeout=3000)
    window.open_settings()
    dialog = window._settings_dialog
    assert dialog is not None
    window.ctx.settings.providers = [ProviderConfig(name="Loop", kind=ProviderKind.OPENAI_COMPATIBLE,
                                                    base_url="http://127.0.0.1:9/v1", model="m")]
    window.ctx.settings.active_provider = "Loop"
    dialog.settings_changed.emit()  # what the Providers page says after Save
    assert not offers.isVisible() and "Loop" in window.provider_label.text()
    dialog.close()


def test_settings_fits_a_small_screen_on_every_page(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    """At 1280x720 (and on the smaller offscreen screen) the dialog and its Close button stay on
    screen whatever the page: pages scroll inside it (the dialog opened 955-1,011 px tall)."""
    from PySide6.QtWidgets import QDialogButtonBox

    window: MainWindow = make_window(profile_dir)
    window.open_settings()
    dialog = window._settings_dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    room = dialog.screen().availableGeometry()
    close = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    for row in range(dialog.pages.count()):
        dialog.pages.setCurrentRow(row)
        title = dialog.pages.item(row).text()
        qtbot.wait(10)
        assert dialog.minimumSizeHint().height() <= min(room.height(), 720) - 40, title
        assert dialog.frameGeometry().height() <= room.height(), title
        dialog.resize(dialog.width(), min(room.height(), 720) - 40)
        qtbot.wait(10)
        assert dialog.rect().contains(close.geometry()) and close.isVisible(), title
    dialog.close()


def test_the_start_page_follows_the_theme(make_window: Any, profile_dir: Path, qtbot: Any, arun: Any) -> None:
    """The browser's start page stayed white in the dark themes, its text at the very edge."""
    import json

    from PySide6.QtGui import QColor

    from jawad_desktop.ui.look import theme

    window: MainWindow = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.browser.view.title() == "Jawad Desktop", timeout=10_000)

    def page_colours() -> tuple[str, str, str]:
        got: list[Any] = []
        window.browser.view.page().runJavaScript(
            "document.body ? JSON.stringify([getComputedStyle(document.documentElement).backgroundColor,"
            " getComputedStyle(document.body).color, getComputedStyle(document.body).paddingLeft]) : ''",
            0, got.append)
        for _ in range(100):  # a page being replaced drops the question: ask again
            if got:
                break
            qtbot.wait(20)
        value = json.loads(got[0]) if got and got[0] else None
        # While the page is replaced there is no body yet: no answer.
        return tuple(value) if isinstance(value, list) and len(value) == 3 else ("", "", "")

    for name in ("dark", "high-contrast", "light"):
        window.ctx.settings.ui.theme = name
        window.apply_appearance()
        colours = theme.current().colours
        qtbot.waitUntil(lambda c=colours: _rgb_names(page_colours()[0]) == QColor(c.window).name(), timeout=10_000)
        background, text, padding = page_colours()
        assert theme.contrast_ratio(_rgb(background), _rgb(text)) >= 7.0, (name, background, text)
        assert padding != "0px"


def _rgb(css: str) -> Any:
    from PySide6.QtGui import QColor

    r, g, b = (int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    return QColor(r, g, b)


def _rgb_names(css: str) -> str:
    return _rgb(css).name() if "(" in css else ""
