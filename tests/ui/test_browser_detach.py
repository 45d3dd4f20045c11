"""The browser in its own window (issue 32: "the browser can be collapsed, detached or given the
space when the agent works in it"), in the real window with a scripted model: the button detaches
the same page (the chat gets the main window), the agent navigates and reads it there, folded away
the window comes back when the agent works in the page, closing it puts the browser back at the
width it had, and a restart opens it detached again where it stood."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.window.browser_detach import ATTACH_WORDS, DETACH_WORDS, SHORTCUT, BrowserWindow
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, call, text
from tests.ui.windows import window_with_model


def _window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel) -> MainWindow:
    window = window_with_model(make_window, profile_dir, scripted_model)
    window.resize(1440, 900)
    return window


def _ask(qtbot: Any, window: MainWindow, message: str) -> int:
    """Send ``message``, let each action Harbor asks about run this session; the questions asked."""
    window.chat.input.setPlainText(message)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.presenter.busy, timeout=5000)
    panel = window.permission_panel
    asked = 0
    while window.presenter.busy:
        qtbot.waitUntil(lambda: not window.presenter.busy or panel.isVisible(), timeout=30_000)
        if panel.isVisible():  # Harbor's question, in the main window while the page is in the other
            asked += 1
            qtbot.mouseClick(panel.buttons["allow-session"], Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: not panel.isVisible(), timeout=5000)
    return asked


def _tab_order(start: QWidget, targets: list[QWidget]) -> list[QWidget]:
    """``targets`` in the order Tab reaches them from ``start`` (the window's focus chain)."""
    seen: list[QWidget] = []
    widget = start.nextInFocusChain()
    while widget is not start and len(seen) < len(targets):
        if widget in targets and widget not in seen:
            seen.append(widget)
        widget = widget.nextInFocusChain()
    return seen


def _browser_window(window: MainWindow) -> BrowserWindow:
    detached = window.browser.window()
    assert isinstance(detached, BrowserWindow), "the browser is in the main window"
    return detached


def test_the_browser_detaches_the_agent_works_in_it_and_it_comes_back(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, page_server: str, qtbot: Any
) -> None:
    window = _window(make_window, profile_dir, scripted_model)
    detach = window.browser_detach
    button = window.browser.detach_button
    qtbot.wait(50)
    sizes = window.main_split.sizes()
    page = window.browser.page
    assert button.accessibleName() == DETACH_WORDS and detach.action.shortcut().toString() == SHORTCUT
    assert detach.action in window.view_menu.actions()

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # the button on the browser's toolbar
    separate = _browser_window(window)
    qtbot.waitExposed(separate)
    assert detach.is_detached() and detach.action.isChecked() and button.isChecked()
    assert button.accessibleName() == ATTACH_WORDS and separate.accessibleName()
    assert window.browser.page is page, "the same page, moved"
    assert window.main_split.indexOf(window.browser_column) == -1  # the chat has the main window
    qtbot.waitUntil(lambda: window.chat.width() > 1000, timeout=3000)

    # The agent navigates and reads the page in the detached window.
    url = f"{page_server}/form.html"
    scripted_model.script(call("navigate", {"url": url}), call("read_page", {}), text("It is a contact form."))
    assert _ask(qtbot, window, "What is on the form page?") >= 1, "Harbor asks before navigating"
    assert window.browser.view.url().toString() == url
    read = scripted_model.requests[2]["messages"][-1]
    assert read["role"] == "tool" and "Contact us" in read["content"], read
    assert window.browser.window() is separate and separate.isVisible()
    logged = window.action_log.model()
    assert logged is not None and logged.rowCount() >= 2, "the action log still records the page's steps"

    # Folded away while detached (View → Browser): the window hides; the agent working in the
    # page shows it again.
    window.browser_toggle.action.trigger()
    assert separate.isHidden() and not window.browser_toggle.action.isChecked()
    assert window.main_split.indexOf(window.browser_column) == -1, "folded, it stays out of the main window"
    scripted_model.script(call("read_page", {}), text("Still the contact form."))
    _ask(qtbot, window, "Read it again")
    qtbot.waitUntil(separate.isVisible, timeout=3000)
    assert window.browser_toggle.action.isChecked() and detach.is_detached()

    # Closing the detached window puts the browser back, at the width it had.
    separate.setGeometry(QRect(30, 20, 620, 480))  # within the (offscreen) screen
    qtbot.wait(50)
    separate.close()
    assert not detach.is_detached() and window.browser.window() is window
    assert not detach.action.isChecked() and not button.isChecked() and button.accessibleName() == DETACH_WORDS
    assert window.main_split.indexOf(window.browser_column) == len(sizes) - 1 and window.browser_column.isVisible()
    assert abs(window.main_split.sizes()[-1] - sizes[-1]) <= 4, (window.main_split.sizes(), sizes)
    assert window.browser.view.url().toString() == url
    sidebar = window.sidebar
    assert sidebar is not None
    parts: list[QWidget] = [window.browser.address, *sidebar.findChildren(QWidget)]
    order = _tab_order(window.action_log, parts)
    assert order and order[0] is window.browser.address, "Tab: the action log, then the browser, then the history"

    # Detached again from the menu: the window stands where it was left.
    detach.action.trigger()
    separate = _browser_window(window)
    qtbot.waitExposed(separate)
    assert separate.size().width() == 620 and separate.size().height() == 480
    window.close()  # quitting remembers the choice and the window's place
    assert not separate.isVisible()
    saved = AppContext.open(str(profile_dir)).settings.ui
    assert saved.browser_detached and saved.browser_window_geometry
    main = saved.splitter_sizes["main"]
    assert len(main) == len(sizes) and max(abs(a - b) for a, b in zip(main, sizes, strict=True)) <= 2, \
        ("the main window's panes as they are with the browser in it", main, sizes)
    window.dispose()

    again: MainWindow = make_window(profile_dir)  # a restart: detached, where it stood
    assert again.browser_detach.is_detached() and again.browser_detach.action.isChecked()
    reopened = _browser_window(again)
    qtbot.waitExposed(reopened)
    assert reopened.size().width() == 620 and reopened.size().height() == 480
    again.resize(1440, 900)  # restoreGeometry fits the window to the small offscreen screen
    qtbot.waitUntil(lambda: sum(again.main_split.sizes()) > 1400, timeout=3000)
    again.browser_detach.action.trigger()  # Ctrl+Shift+N's action: back in the window, as wide as it was
    assert again.browser.window() is again and again.main_split.indexOf(again.browser_column) == len(sizes) - 1
    back = again.main_split.sizes()
    assert max(abs(a - b) for a, b in zip(back, sizes, strict=True)) <= 4, ("the panes it had", back, sizes)
    again.close()
    assert not AppContext.open(str(profile_dir)).settings.ui.browser_detached
