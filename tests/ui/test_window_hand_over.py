"""What the user sees while the agent works, in the real window with a scripted model: the "Take over"
banner (Continue resumes with a fresh reading, Cancel, Stop during the wait), the status line saying
what a step does, Stop within half a second during a slow navigation, and panes that keep their
size when the permission panel opens."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from jawad_desktop.core.harbor import HarborGate, PermissionCheck, PermissionLevel
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, call, text
from tests.servers.slow_pages import SlowPageServer
from tests.ui.windows import window_with_model


def _open(qtbot: Any, window: MainWindow, url: str) -> None:
    loads = window.browser.loads_finished
    window.browser.load(url)
    qtbot.waitUntil(lambda: window.browser.loads_finished > loads and window.browser.view.url().toString() == url,
                    timeout=30_000)


def _send(qtbot: Any, window: MainWindow, message: str) -> None:
    window.chat.input.setPlainText(message)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)


def _run_js(qtbot: Any, window: MainWindow, source: str) -> None:
    done: list[Any] = []
    window.browser.view.page().runJavaScript(source, 0, done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)


def _browser_has_focus(window: MainWindow) -> bool:
    focused = QApplication.focusWidget()
    view = window.browser.view
    return focused is not None and (focused is view or view.isAncestorOf(focused) or focused is view.focusProxy())


def test_take_over_banner_continue_resumes_with_a_fresh_reading(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, page_server: str, qtbot: Any
) -> None:
    scripted_model.script(call("ask_user_to_take_over", {"reason": "sign in to Example Mail"}),
                          text("You are signed in and have 3 new messages."))
    window = window_with_model(make_window, profile_dir, scripted_model)
    _open(qtbot, window, f"{page_server}/hand_over/login.html")
    _send(qtbot, window, "Open my inbox")
    banner = window.take_over
    qtbot.waitUntil(banner.isVisible, timeout=30_000)
    assert "Jawad needs you:" in banner.message.text() and "sign in to Example Mail" in banner.message.text()
    assert "Use the page, then press <b>Continue</b>" in banner.message.text()
    assert banner.continue_button.accessibleName() and banner.cancel_button.accessibleName()
    assert banner.accessibleName() == "Jawad needs you to take over the page"
    assert window.presenter.busy
    qtbot.waitUntil(lambda: _browser_has_focus(window), timeout=3000)
    # The user signs in on the page, then presses Ctrl+Return (while the page has the keyboard).
    _run_js(qtbot, window, "document.getElementById('email').value='me@example.com';"
                           "document.getElementById('password').value='hunter2-secret';"
                           "document.querySelector('button').click(); true")
    assert banner.yes_shortcut is not None and banner.yes_shortcut.key().toString() == "Ctrl+Return"
    banner.yes_shortcut.activated.emit()
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=30_000)
    assert not banner.isVisible()
    result = scripted_model.requests[1]["messages"][-1]
    assert result["role"] == "tool" and "pressed Continue" in result["content"]
    assert "Welcome back, me@example.com" in result["content"] and "hunter2" not in result["content"]
    assert "3 new messages" in window.chat.view.chat_model.items()[-1].text


def test_take_over_cancel_tells_the_model(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, page_server: str, qtbot: Any
) -> None:
    scripted_model.script(call("ask_user_to_take_over", {"reason": "solve the CAPTCHA"}),
                          text("I could not go on without the CAPTCHA."))
    window = window_with_model(make_window, profile_dir, scripted_model)
    _open(qtbot, window, f"{page_server}/hand_over/captcha.html")
    _send(qtbot, window, "Buy the tickets")
    qtbot.waitUntil(window.take_over.isVisible, timeout=30_000)
    qtbot.mouseClick(window.take_over.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=30_000)
    assert not window.take_over.isVisible()
    assert "cancelled" in scripted_model.requests[1]["messages"][-1]["content"]


def test_stop_during_a_hand_over_ends_the_run_within_half_a_second(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, page_server: str, qtbot: Any
) -> None:
    scripted_model.script(call("ask_user_to_take_over", {"reason": "enter the code we sent you"}))
    window = window_with_model(make_window, profile_dir, scripted_model)
    _open(qtbot, window, f"{page_server}/hand_over/code_and_card.html")
    _send(qtbot, window, "Pay for my order")
    qtbot.waitUntil(window.take_over.isVisible, timeout=30_000)
    started = time.monotonic()
    window.stop_action.trigger()
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=5000)
    assert time.monotonic() - started < 0.5
    qtbot.waitUntil(lambda: not window.take_over.isVisible(), timeout=1000)
    assistant = window.presenter.assistant
    assert assistant is not None and assistant.hand_over is not None and not assistant.hand_over.pending_ids


def test_stop_during_a_slow_navigation_and_the_status_says_what_a_step_does(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, page_server: str,
    slow_pages: SlowPageServer, qtbot: Any
) -> None:
    scripted_model.script(call("read_page"), call("click_element", {"index": 3}),
                          call("navigate", {"url": f"{slow_pages.base_url}/page/blocked"}))
    window = window_with_model(make_window, profile_dir, scripted_model)
    _open(qtbot, window, f"{page_server}/hand_over/login.html")
    said: list[str] = []
    window.presenter.status.connect(said.append)
    _send(qtbot, window, "Sign in, then open the slow page")
    panel = window.permission_panel
    # The user allows the click (the navigation stays on the same site: allowed without asking).
    qtbot.waitUntil(lambda: panel.current is not None and panel.current.tool_name == "click_element", timeout=30_000)
    qtbot.mouseClick(panel.buttons["allow-once"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any("opening " in s for s in said), timeout=10_000)
    qtbot.wait(300)  # the navigation is under way and its page never finishes
    assert window.presenter.busy
    started = time.monotonic()
    window.stop_action.trigger()
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=5000)
    assert time.monotonic() - started < 0.5
    steps = [s for s in said if s.startswith("Step ")]
    assert any(s.endswith(": reading the page") for s in steps), steps
    assert any(s.endswith(': clicking "Sign in"') for s in steps), steps
    assert any(f"opening {slow_pages.base_url}/page/blocked" in s for s in steps), steps


def test_the_browser_keeps_its_width_when_the_permission_panel_opens(
    make_window: Any, profile_dir: Path, qtbot: Any, arun: Any, aio_loop: Any
) -> None:
    window = make_window(profile_dir)
    window.resize(1000, 700)  # a chat column narrower than the panel's buttons in one row
    window.main_split.setSizes([200, 330, 470] if window.main_split.count() == 3 else [400, 600])
    qtbot.wait(200)
    before = (window.browser.view.width(), list(window.main_split.sizes()))
    gate = HarborGate(window.presenter.assistant.harbor, window.ctx.bus, timeout_s=30)
    check = PermissionCheck(tool="click_element", call_id="c1", arguments={"index": 7},
                            level=PermissionLevel.INTERACT, site="shop.test")
    window.permission_panel.decided.connect(gate.respond)
    task = aio_loop.create_task(gate.check(check))
    qtbot.waitUntil(window.permission_panel.isVisible, timeout=5000)
    qtbot.wait(200)
    after = (window.browser.view.width(), list(window.main_split.sizes()))
    assert after == before
    assert all(b.isVisible() and b.width() > 20 for b in window.permission_panel.buttons.values())
    window.permission_panel.decide("deny")
    qtbot.waitUntil(task.done, timeout=5000)
