"""The tray menu, the global hotkeys and the quick-ask window.

The X11 hotkeys are tested for real: a private Xvfb, the key grabbed on its root window, a key
press sent with the XTEST extension, the Qt signal checked; a key another client holds is
reported, not raised. The menu's actions and the quick-ask window run on the real main window
(offscreen: no tray there, so the menu object is driven directly) with a scripted model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.desktop.global_hotkeys import HotkeyError, X11Hotkeys, choose_backend, parse_combination
from jawad_desktop.ui.desktop.shell import DesktopShell, HotkeyService
from jawad_desktop.ui.settings.desktop_page import DesktopPage
from jawad_desktop.ui.window.main_window import MainWindow
from tests.fixtures.gui_process import virtual_display
from tests.servers.scripted_model import ScriptedModel, text
from tests.ui.desktop_bus import GlobalShortcutsPortal, private_bus


@pytest.fixture
def x_display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private Xvfb, as this process's DISPLAY (an X11 session, not Wayland)."""
    with virtual_display() as display:
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        monkeypatch.delenv("XDG_SESSION_TYPE", raising=False)
        yield display


def _keys(display: str, presses: list[str], releases: list[str]) -> None:
    """Press then release keys on ``display`` through XTEST, as a keyboard would."""
    from Xlib import XK, X
    from Xlib.display import Display
    from Xlib.ext import xtest

    client = Display(display)
    try:
        for name in presses:
            xtest.fake_input(client, X.KeyPress, client.keysym_to_keycode(XK.string_to_keysym(name)))
            client.sync()
        for name in releases:
            xtest.fake_input(client, X.KeyRelease, client.keysym_to_keycode(XK.string_to_keysym(name)))
            client.sync()
    finally:
        client.close()


def _applied(qtbot: Any, service: HotkeyService, hotkeys: dict[str, str]) -> None:
    with qtbot.waitSignal(service.status_changed, timeout=10_000):
        service.apply(hotkeys)


# --- key text -------------------------------------------------------------------------------------

def test_key_combinations_are_parsed_for_x11_and_the_portal() -> None:
    combo = parse_combination("Ctrl+Alt+Space")
    assert combo.modifiers == {"Control", "Alt"} and combo.keysym == "space"
    assert combo.portal_trigger() == "CTRL+ALT+space"
    assert parse_combination("Ctrl+Alt+M").keysym == "m"
    assert parse_combination("Meta+Shift+F5").portal_trigger() == "SHIFT+LOGO+F5"
    for bad, why in (("M", "needs Ctrl"), ("Shift+A", "needs Ctrl"), ("Ctrl+K, Ctrl+C", "sequence"),
                     ("Hyper+X", "not a modifier"), ("", "No key")):
        with pytest.raises(HotkeyError, match=why):
            parse_combination(bad)


# --- X11, for real ------------------------------------------------------------------------------

def test_an_x11_hotkey_press_and_release_reach_qt(qtbot: Any, x_display: str) -> None:
    service = HotkeyService("xcb")
    try:
        _applied(qtbot, service, {"quick_ask": "Ctrl+Alt+Space", "talk": "Ctrl+Alt+M"})
        assert service.choice is not None and service.choice.kind == "x11"
        assert service.active == {"quick_ask", "talk"} and service.problems == {}
        assert service.holds  # X11 reports the release: push to talk is held
        assert service.describe("talk") == "Active (through X11)."
        with qtbot.waitSignal(service.pressed, timeout=5000) as pressed:
            _keys(x_display, ["Control_L", "Alt_L", "m"], [])
        assert pressed.args == ["talk"]
        with qtbot.waitSignal(service.released, timeout=5000) as released:
            _keys(x_display, [], ["m", "Alt_L", "Control_L"])
        assert released.args == ["talk"]
        # With Caps Lock on the hotkey still works (grabbed with every lock combination).
        _keys(x_display, ["Caps_Lock"], ["Caps_Lock"])
        with qtbot.waitSignal(service.pressed, timeout=5000) as pressed:
            _keys(x_display, ["Control_L", "Alt_L", "space"], ["space", "Alt_L", "Control_L"])
        assert pressed.args == ["quick_ask"]
        # Another key with the same modifiers is not ours.
        with qtbot.assertNotEmitted(service.pressed, wait=300):
            _keys(x_display, ["Control_L", "Alt_L", "k"], ["k", "Alt_L", "Control_L"])
        # Applied live: a new key replaces the old one.
        _applied(qtbot, service, {"quick_ask": "Ctrl+Alt+J"})
        # A status from the apply before may come first: wait for this one's.
        qtbot.waitUntil(lambda: service.active == {"quick_ask"}, timeout=10_000)
        with qtbot.assertNotEmitted(service.pressed, wait=300):
            _keys(x_display, ["Control_L", "Alt_L", "space"], ["space", "Alt_L", "Control_L"])
        with qtbot.waitSignal(service.pressed, timeout=5000) as pressed:
            _keys(x_display, ["Control_L", "Alt_L", "j"], ["j", "Alt_L", "Control_L"])
        assert pressed.args == ["quick_ask"]
    finally:
        service.stop()


def test_a_key_another_application_holds_is_reported_not_raised(qtbot: Any, x_display: str) -> None:
    other = X11Hotkeys(lambda _name, _pressed: None, x_display)  # another X client, its own connection
    assert other.start({"theirs": "Ctrl+Alt+M"}) == {}
    service = HotkeyService("xcb")
    try:
        _applied(qtbot, service, {"quick_ask": "Ctrl+Alt+Space", "talk": "Ctrl+Alt+M"})
        assert service.active == {"quick_ask"}
        assert service.problems["talk"] == ("Ctrl+Alt+M is already taken by another application: choose another "
                                            "key in Settings → Tray and hotkeys.")
        assert service.describe("talk") == service.problems["talk"]
        # Once the other application lets go, applying again takes it.
        other.stop()
        _applied(qtbot, service, {"talk": "Ctrl+Alt+M"})
        assert service.active == {"talk"} and service.problems == {}
    finally:
        service.stop()
        other.stop()


# --- where there are no global hotkeys -----------------------------------------------------------

def test_without_any_display_the_note_says_what_to_do(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    choice = choose_backend(qt_platform="xcb")
    assert choice.kind == "none"
    assert "no display" in choice.note and "jawad ask" in choice.note
    service = HotkeyService("xcb")
    _applied(qtbot, service, {"quick_ask": "Ctrl+Alt+Space"})
    assert service.choice == choice and service.active == set()
    assert service.describe("quick_ask") == "Not available on this desktop (see the note above)."


def test_wayland_without_the_portal_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    with private_bus() as address:  # a session bus with no xdg-desktop-portal on it
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
        monkeypatch.setenv("DISPLAY", ":99")  # XWayland: X11 grabs would not be global there
        choice = choose_backend(qt_platform="wayland")
    assert choice.kind == "none"
    assert "GlobalShortcuts" in choice.note and "jawad ask" in choice.note


def test_offscreen_is_not_a_desktop() -> None:
    choice = choose_backend({"DISPLAY": ":0"}, qt_platform="offscreen")
    assert choice.kind == "none" and "not on a desktop" in choice.note


# --- the window: tray menu, quick ask, settings ---------------------------------------------------

def _window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.desktop is not None, timeout=10_000)
    return window


def _shell(window: MainWindow) -> DesktopShell:
    assert window.desktop is not None
    return window.desktop


def test_the_tray_menu_does_what_it_says(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    window = _window(make_window, profile_dir, scripted_model, qtbot)
    shell = _shell(window)
    tray = shell.tray
    tray.refresh()
    assert [a.text() for a in tray.menu.actions() if not a.isSeparator()] == [
        "Hide Jawad", "Quick ask…", "New chat", "Push to talk", "Settings…", "Quit"]
    assert tray.talk_action.isVisible() == (window.voice_button is not None)
    # Offscreen there is no system tray: no icon, and the reason is known.
    assert not tray.available and "no system tray" in tray.unavailable_reason

    tray.show_action.trigger()
    assert not window.isVisible()
    tray.refresh()
    assert tray.show_action.text() == "Show Jawad"
    tray.show_action.trigger()
    assert window.isVisible()

    scripted_model.script(text("Lisbon has a famous tram."))
    window.presenter.send("Tell me about Lisbon")
    qtbot.waitUntil(lambda: not window.presenter.busy and window.presenter.conversation_id is not None,
                    timeout=60_000)
    assert window.chat.view.chat_model.items()
    tray.new_chat_action.trigger()
    assert window.chat.view.chat_model.items() == [] and window.presenter.conversation_id is None

    tray.quick_ask_action.trigger()
    assert shell.quick.isVisible()
    qtbot.keyClick(shell.quick.input, Qt.Key.Key_Escape)
    assert not shell.quick.isVisible()
    # The quick-ask hotkey opens the box, and closes it when pressed again.
    shell.hotkeys.pressed.emit("quick_ask")
    assert shell.quick.isVisible()
    shell.hotkeys.pressed.emit("quick_ask")
    assert not shell.quick.isVisible()

    tray.settings_action.trigger()
    dialog = window._settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.show_page("Tray and hotkeys")
    page = dialog.current_page()
    assert page.__class__.__name__ == "DesktopPage"
    # No tray here: keeping the app running in it cannot be chosen, and the page says why.
    assert not page.keep_in_tray.isEnabled() and "no system tray" in page.tray_note.text()
    qtbot.waitUntil(lambda: "not on a desktop" in page.hotkey_note.text(), timeout=10_000)
    dialog.close()

    with qtbot.waitSignal(window.closed, timeout=5000):
        tray.quit_action.trigger()
    assert not window.isVisible()


def test_settings_page_applies_hotkeys_live(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    window = _window(make_window, profile_dir, scripted_model, qtbot)
    shell = _shell(window)
    page = DesktopPage(shell.ctx, shell)
    qtbot.addWidget(page)
    assert page.quick_ask_key.keySequence().toString() == "Ctrl+Alt+Space"
    page.talk_enabled.setChecked(False)
    page.quick_ask_key.setKeySequence(QKeySequence("Ctrl+Alt+K"))
    page.quick_ask_key.editingFinished.emit()
    saved = AppContext.open(str(profile_dir)).settings.desktop
    assert not saved.talk_enabled and saved.quick_ask_hotkey == "Ctrl+Alt+K"
    page.keep_in_tray.setChecked(True)  # disabled in the page (no tray), set here to show it changes nothing
    assert window.ctx.settings.desktop.keep_in_tray and not shell.hides_on_close()
    with qtbot.waitSignal(window.closed, timeout=5000):
        window.close()  # without a tray, closing the window still quits


def test_quick_ask_sends_through_the_assistant_and_keeps_the_draft(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    window = _window(make_window, profile_dir, scripted_model, qtbot)
    shell = _shell(window)
    window.chat.input.setPlainText("a draft I was writing")
    window.hide()
    scripted_model.script(text("Four.", delay_s=0.5))
    shell.quick_ask()
    assert shell.quick.isVisible() and shell.quick.input.text() == ""
    qtbot.keyClicks(shell.quick.input, "What is 2 + 2?")
    qtbot.keyClick(shell.quick.input, Qt.Key.Key_Return)
    assert not shell.quick.isVisible()
    assert window.isVisible()  # brought forward, where the answer streams
    assert window.presenter.busy
    # Asking again while the answer streams is refused in the box, with the reason.
    shell.quick_ask()
    qtbot.keyClicks(shell.quick.input, "And 3 + 3?")
    qtbot.keyClick(shell.quick.input, Qt.Key.Key_Return)
    assert shell.quick.isVisible() and "still answering" in shell.quick.problem.text()
    qtbot.keyClick(shell.quick.input, Qt.Key.Key_Escape)
    assert not shell.quick.isVisible()
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    items = window.chat.view.chat_model.items()
    assert [(i.role, i.text) for i in items] == [("user", "What is 2 + 2?"), ("assistant", "Four.")]
    assert scripted_model.requests[-1]["messages"][-1]["content"] == "What is 2 + 2?"
    assert window.chat.input.toPlainText() == "a draft I was writing"


def test_wayland_hotkeys_go_through_the_desktop_portal(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with private_bus() as address:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
        portal = GlobalShortcutsPortal()
        service = HotkeyService("wayland")
        try:
            assert choose_backend(qt_platform="wayland").kind == "portal"
            _applied(qtbot, service, {"quick_ask": "Ctrl+Alt+Space", "talk": "Ctrl+Alt+M"})
            assert service.choice is not None and service.choice.kind == "portal"
            assert service.active == {"quick_ask", "talk"} and service.problems == {}
            assert not service.holds  # push to talk toggles: portals differ in reporting releases
            assert service.describe("talk") == "Active (through the desktop portal)."
            wished = {name: info["preferred_trigger"][1] for name, info in portal.bound}
            assert wished == {"quick_ask": "CTRL+ALT+space", "talk": "CTRL+ALT+m"}
            with qtbot.waitSignal(service.pressed, timeout=5000) as pressed:
                portal.press("quick_ask")
            assert pressed.args == ["quick_ask"]
            with qtbot.waitSignal(service.released, timeout=5000) as released:
                portal.press("quick_ask", down=False)
            assert released.args == ["quick_ask"]
        finally:
            service.stop()
            portal.close()
