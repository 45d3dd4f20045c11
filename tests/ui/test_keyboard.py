"""The whole window works from the keyboard (issue 19): Tab and Shift+Tab go round every part in
reading order and back (no part keeps the keyboard), every menu key is bound once and does what
its menu says when pressed on the window, Escape in a panel answers the panel (not Stop), and
Help → Keyboard shortcuts lists them all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.exceptions import TimeoutError as WaitTimedOut

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import PlanProposed, now_ms
from jawad_desktop.core.harbor import PermissionCheck, PermissionLevel
from jawad_desktop.ui.chat.history_sidebar import HistorySidebar
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.window.main_window import MainWindow
from jawad_desktop.ui.window.shortcuts_dialog import ShortcutsDialog, menu_shortcuts
from tests.servers.scripted_model import ScriptedModel, text
from tests.ui.accessibility import describe, stray_ampersands, unnamed_controls


@pytest.fixture
def window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    scripted_model.script(text("Tram 28 climbs to Alfama."))
    made: MainWindow = make_window(profile_dir)
    made.chat.input.setPlainText("Which tram goes to Alfama?")
    qtbot.keyClick(made.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not made.presenter.busy and scripted_model.remaining == 0, timeout=60_000)
    _activate(qtbot, made)
    return made


def _activate(qtbot: Any, window: QWidget) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)


def _focused() -> QWidget | None:
    return QApplication.focusWidget()


def _walk(qtbot: Any, start: QWidget, key: Qt.Key, limit: int = 60) -> list[QWidget]:
    """Press ``key`` from ``start`` until the keyboard comes back to it; the widgets it visited."""
    start.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: _focused() is start, timeout=3000)
    visited: list[QWidget] = []
    for _ in range(limit):
        current = _focused()
        assert current is not None, "the keyboard went nowhere"
        QTest.keyClick(current, key)
        try:
            qtbot.waitUntil(lambda c=current: _focused() is not c, timeout=3000)
        except WaitTimedOut:
            raise AssertionError(f"{key.name} stays in {describe(current)}: a keyboard trap") from None
        now = _focused()
        assert now is not None
        if now is start:
            return visited
        visited.append(now)
    raise AssertionError(f"{key.name} never came back to {start.accessibleName()!r}; it stayed in: "
                         + ", ".join(w.accessibleName() or type(w).__name__ for w in visited[-5:]))


def test_tab_goes_round_every_part_in_reading_order_and_shift_tab_back(window: MainWindow, qtbot: Any) -> None:
    sidebar = window.sidebar
    assert isinstance(sidebar, HistorySidebar)
    composer = window.chat.input
    drawer = window.action_log_drawer
    drawer.set_expanded(True)  # closed, the drawer is its header line; open, its filter and table too
    forward = _walk(qtbot, composer, Qt.Key.Key_Tab)
    parts = [window.chat.send_button, drawer.header, drawer.filter, window.action_log, window.browser.address,
             sidebar.new_chat_button, sidebar.search_box, sidebar.list_view, window.chat.view]
    for part in parts:
        assert part in forward, f"Tab never reaches {part.accessibleName()!r}"
    # Reading order: the input's buttons, the action log, the browser, then round to the history
    # and the messages above the input.
    positions = [forward.index(part) for part in parts]
    assert positions == sorted(positions), [p.accessibleName() for p in sorted(parts, key=forward.index)]
    backward = _walk(qtbot, composer, Qt.Key.Key_Backtab)
    assert backward == list(reversed(forward)), "Shift+Tab must go back the way Tab came"
    drawer.set_expanded(False)
    closed = _walk(qtbot, composer, Qt.Key.Key_Tab)
    assert drawer.header in closed and window.action_log not in closed


def test_every_menu_key_is_bound_once_and_named(window: MainWindow) -> None:
    actions = [a for a in window.findChildren(QAction) if not a.shortcut().isEmpty()]
    keys = [a.shortcut().toString() for a in actions if a.shortcutContext() != Qt.ShortcutContext.WidgetShortcut]
    window_keys = [a.shortcut().toString() for a in window.actions() if not a.shortcut().isEmpty()]
    assert len(window_keys) == len(set(window_keys)), f"a key is bound twice (Qt then runs neither): {window_keys}"
    assert {"Ctrl+N", "Ctrl+,", "Ctrl+Q", "Esc", "Ctrl+R", "Ctrl+E", "Ctrl+Shift+C", "Ctrl+Shift+S", "Ctrl+F",
            "Ctrl+Shift+R", "Ctrl+Space", "Ctrl+L", "Ctrl+Shift+A", "Ctrl+Shift+H", "F6", "Ctrl+/"} <= set(keys)
    for menu in (window.file_menu, window.chat_menu, window.view_menu, window.help_menu):
        letters = [a.text()[a.text().index("&") + 1].lower() for a in menu.actions() if "&" in a.text()]
        assert len(letters) == len(set(letters)), f"two commands of {menu.title()!r} share an Alt letter: {letters}"


def _press(qtbot: Any, window: MainWindow, keys: str) -> None:
    sequence = QKeySequence(keys)
    combo = sequence[0]
    QTest.keyClick(window, combo.key(), combo.keyboardModifiers())
    qtbot.wait(20)


def test_the_menu_keys_do_what_their_menu_says(window: MainWindow, qtbot: Any, scripted_model: ScriptedModel) -> None:
    sidebar = window.sidebar
    assert isinstance(sidebar, HistorySidebar)
    chat = window.chat

    _press(qtbot, window, "Ctrl+Shift+H")
    qtbot.waitUntil(lambda: _focused() is sidebar.list_view, timeout=3000)
    _press(qtbot, window, "Ctrl+L")
    qtbot.waitUntil(lambda: _focused() is chat.input, timeout=3000)
    _press(qtbot, window, "Ctrl+F")
    qtbot.waitUntil(lambda: _focused() is sidebar.search_box, timeout=3000)
    _press(qtbot, window, "F6")
    qtbot.waitUntil(lambda: _focused() is window.browser.address, timeout=3000)

    drawer = window.action_log_drawer
    assert not drawer.is_expanded()
    _press(qtbot, window, "Ctrl+Shift+A")  # opens the action log drawer
    qtbot.waitUntil(window.action_log.isVisible, timeout=3000)
    _press(qtbot, window, "Ctrl+Shift+A")
    qtbot.waitUntil(lambda: not window.action_log.isVisible(), timeout=3000)

    chat.input.setFocus()
    _press(qtbot, window, "Ctrl+E")  # the last message back in the input, to edit
    qtbot.waitUntil(lambda: chat.input.toPlainText() == "Which tram goes to Alfama?", timeout=3000)
    chat.input.clear()

    # Escape stops an answer that would never end.
    scripted_model.script(text("and on " * 400, chunk_delay_s=0.05))
    chat.input.setPlainText("Tell me everything about trams.")
    QTest.keyClick(chat.input, Qt.Key.Key_Return)
    streaming = lambda: any("and on" in item.text for item in chat.view.chat_model.items())  # noqa: E731
    qtbot.waitUntil(streaming, timeout=10_000)
    assert window.presenter.busy and window.stop_action.isEnabled()
    _press(qtbot, window, "Esc")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=5000)

    _press(qtbot, window, "Ctrl+Shift+R")  # Research with an empty input asks what to research
    qtbot.waitUntil(lambda: "Research" in chat.view.chat_model.items()[-1].text, timeout=3000)

    _press(qtbot, window, "Ctrl+N")
    qtbot.waitUntil(lambda: window.presenter.conversation_id is None and not chat.view.chat_model.items(),
                    timeout=3000)

    _press(qtbot, window, "Ctrl+,")
    dialog = window._settings_dialog
    assert isinstance(dialog, SettingsDialog)
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    dialog.close()

    _activate(qtbot, window)
    _press(qtbot, window, "Ctrl+/")
    shortcuts = window._shortcuts_dialog
    assert isinstance(shortcuts, ShortcutsDialog)
    qtbot.waitUntil(shortcuts.isVisible, timeout=3000)
    shortcuts.close()

    _activate(qtbot, window)
    _press(qtbot, window, "Ctrl+Q")
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=3000)


def test_the_shortcuts_dialog_lists_every_key(window: MainWindow, qtbot: Any) -> None:
    window.shortcuts_action.trigger()
    dialog = window._shortcuts_dialog
    assert isinstance(dialog, ShortcutsDialog)
    qtbot.waitExposed(dialog)
    shown = {(keys, what) for _group, keys, what in dialog.rows()}
    listed = menu_shortcuts(window.menuBar())
    assert len(listed) >= 15
    for _menu, command, keys in listed:
        assert (keys, command) in shown, f"{command} ({keys}) is not in the dialog"
    assert ("Ctrl+Return", "Approve the plan") in shown
    assert ("Alt+O", "Run this action this one time") in shown
    # The browser's keys, as the browser binds them.
    browser = window.browser
    for button in (browser.back_button, browser.forward_button, browser.reload_button):
        native = button.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        assert any(keys == native for keys, _what in shown), f"{button.accessibleName()} ({native}) is not listed"
    browser_keys = {a.shortcut().toString() for a in browser.actions() if not a.shortcut().isEmpty()}
    assert browser_keys <= {keys for keys, _what in shown} | {"Ctrl+Shift+Tab"}
    assert not unnamed_controls(dialog) and not stray_ampersands(dialog)
    assert dialog.table.topLevelItemCount() >= 8


def test_escape_in_a_panel_answers_it_and_does_not_stop_the_run(
    window: MainWindow, qtbot: Any, scripted_model: ScriptedModel, aio_loop: Any
) -> None:
    """While an answer runs the window's Esc means Stop; with the keyboard in the permission
    panel Escape must deny that one request (the safe answer), in the plan panel reject the
    plan, and the run goes on."""
    scripted_model.script(text("Working on it", hang=True))
    window.chat.input.setPlainText("Buy the kettle.")
    QTest.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.presenter.busy and window.stop_action.isEnabled(), timeout=10_000)
    assistant = window.presenter.assistant
    assert assistant is not None
    gate = assistant.gate  # the window's panel answers it
    check = PermissionCheck(tool="click_element", call_id="c1", arguments={"index": 1},
                            level=PermissionLevel.INTERACT, site="shop.test")
    answer = aio_loop.create_task(gate.check(check))
    panel = window.permission_panel
    qtbot.waitUntil(panel.isVisible, timeout=5000)
    panel.buttons["allow-once"].setFocus()
    qtbot.waitUntil(lambda: _focused() is panel.buttons["allow-once"], timeout=3000)
    QTest.keyClick(panel.buttons["allow-once"], Qt.Key.Key_Escape)
    qtbot.waitUntil(answer.done, timeout=5000)
    assert not answer.result().allowed and not panel.isVisible()
    assert window.presenter.busy, "Escape in the panel stopped the whole run"
    plans = window.presenter.plans
    answers: list[tuple[str, bool]] = []
    plans.answered.connect(lambda plan_id, approved: answers.append((plan_id, approved)))
    plans.show_plan(PlanProposed(id="plan1", run_id="r1", request="Buy the kettle", sites=("shop.test",),
                                 actions=("interact: add to cart",), steps=("Add it",), timestamp=now_ms()))
    plans.approve_button.setFocus()
    qtbot.waitUntil(lambda: _focused() is plans.approve_button, timeout=3000)
    QTest.keyClick(plans.approve_button, Qt.Key.Key_Escape)
    assert answers == [("plan1", False)] and window.presenter.busy
    window.chat.input.setFocus()
    _press(qtbot, window, "Esc")  # elsewhere, Escape is Stop
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=5000)


def test_tab_goes_round_every_settings_page(window: MainWindow, qtbot: Any) -> None:
    """From the list of pages, Tab reaches the page's controls and the Close button, and comes back
    (a table with rows, as Site permissions has here, used to keep Tab going round its cells)."""
    assistant = window.presenter.assistant
    assert assistant is not None
    assistant.harbor.apply_decision("click_element", "shop.test", "allow-site", level="interact")
    assistant.harbor.apply_decision("navigate", "other.test", "allow-site")
    window.settings_action.trigger()
    dialog = window._settings_dialog
    assert isinstance(dialog, SettingsDialog)
    _activate(qtbot, dialog)
    for row in range(dialog.pages.count()):
        dialog.pages.setCurrentRow(row)
        page = dialog.current_page()
        visited = _walk(qtbot, dialog.pages, Qt.Key.Key_Tab)
        title = dialog.pages.item(row).text()
        assert any(page.isAncestorOf(w) for w in visited), f"Tab never reaches the {title} page"
        assert any(getattr(w, "text", lambda: "")() == "Close" for w in visited), f"{title}: no way to Close"
    dialog.close()
