"""Plan-first mode in the real window with the scripted model: Settings → Agent turns it on, the plan
panel shows the proposed plan (named for screen readers), Ctrl+Return approves it and the action
within it runs without a permission question; Reject ends the turn with nothing done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, call, text

PLAN = {"sites": ["127.0.0.1"], "actions": ["interact: type the message"], "steps": ["Type Hello"]}


def test_settings_agent_turns_plan_first_on(qtbot: Any, profile_dir: Path, secret_store: SecretStore,
                                           aio_loop: Any) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.open()
    dialog.show_page("Agent")
    box = dialog.agent.plan_first
    assert not box.isChecked() and box.accessibleName() and "approval" in box.toolTip()
    box.setChecked(True)  # saved at once, read at the next message
    assert AppContext.open(str(profile_dir), secrets=secret_store).settings.agent.plan_first
    dialog.close()


def _window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.settings.agent.plan_first = True
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    return window


def _open_and_send(qtbot: Any, window: MainWindow, url: str, message: str) -> None:
    loads = window.browser.loads_finished
    window.browser.load(url)
    qtbot.waitUntil(lambda: window.browser.loads_finished > loads, timeout=30_000)
    window.chat.input.setPlainText(message)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)


def test_the_plan_panel_approves_with_ctrl_return(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
                                                  page_server: str, qtbot: Any) -> None:
    scripted_model.script(call("propose_plan", PLAN), call("type_text", {"selector": "#live", "text": "Hello"}),
                          text("Typed."), text("I typed Hello."))
    window = _window(make_window, profile_dir, scripted_model, qtbot)
    _open_and_send(qtbot, window, f"{page_server}/form.html", "Type Hello in the live search")
    panel = window.presenter.plans
    qtbot.waitUntil(panel.isVisible, timeout=30_000)
    assert panel.accessibleName() == "Plan to approve" and "127.0.0.1" in panel.accessibleDescription()
    assert panel.approve_button.accessibleName() == "Approve the plan"
    assert panel.reject_button.accessibleName() == "Reject the plan"
    assert "interact: type the message" in panel.details.text() and "Type Hello" in panel.details.text()
    assert "Rejected automatically in" in panel.countdown.text()
    assert panel.yes_shortcut is not None and panel.yes_shortcut.key().toString() == "Ctrl+Return"
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=30_000)
    assert not panel.isVisible()
    assert not window.permission_panel.isVisible() and window.permission_panel.current is None
    assert len(scripted_model.requests) == 4
    assert "THE PLAN THE USER APPROVED" in scripted_model.requests[1]["messages"][0]["content"]
    tool_results = [m for m in scripted_model.requests[2]["messages"] if m["role"] == "tool"]
    assert tool_results and not tool_results[0]["content"].startswith("Permission denied")


def test_reject_ends_the_turn_with_nothing_done(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
                                               page_server: str, qtbot: Any) -> None:
    scripted_model.script(call("propose_plan", PLAN))
    window = _window(make_window, profile_dir, scripted_model, qtbot)
    _open_and_send(qtbot, window, f"{page_server}/form.html", "Type Hello in the live search")
    panel = window.presenter.plans
    qtbot.waitUntil(panel.isVisible, timeout=30_000)
    qtbot.mouseClick(panel.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=30_000)
    assert not panel.isVisible() and len(scripted_model.requests) == 1
    assert any("You rejected the plan, so nothing was done" in i.text for i in window.chat.view.chat_model.items())
