"""Settings → Tasks in the window (issue 34): a task made in words (said back as a rule while typed),
with the scope it may act within; Run now runs it with the window's scheduler and tells the answer in a
desktop notification; its run shows in the history; Pause and Remove; bad input says what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.settings.guide import GUIDES, SUMMARY
from jawad_desktop.ui.settings.tasks_page import TasksPage
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def _rows(page: TasksPage) -> list[str]:
    return [page.list.item(r).text() for r in range(page.list.count())]


def test_a_task_made_run_and_removed_in_settings(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
                                                 qtbot: Any) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    desktop = window.start_desktop()
    assert desktop is not None and desktop.tasks is not None
    notified: list[tuple[str, str]] = []
    desktop.notifier.notified.connect(lambda title, body: notified.append((title, body)))
    window.open_settings()
    dialog = window._settings_dialog
    assert dialog is not None
    dialog.show_page("Tasks")
    page = dialog.current_page()
    assert isinstance(page, TasksPage)
    assert _rows(page) == ["No scheduled tasks yet: make one below."]
    holder = dialog.stack.currentWidget().widget()  # the page explains itself (ui.settings.guide)
    assert [s.text() for s in holder.findChildren(QLabel, SUMMARY) if s.isVisible()] == [GUIDES["Tasks"].summary]

    page.prompt.setText("Give me one word of encouragement")
    page.when.setText("every day at")
    assert "say at what time" in page.rule.text()
    page.when.setText("every weekday at 8")
    assert page.rule.text().startswith("Weekdays (Monday to Friday) at 08:00 — first run ")
    page.kinds["submit"].setChecked(True)
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    assert "needs the sites it may act on" in page.status.text()  # nothing lost: the form stays filled
    assert page.prompt.text() == "Give me one word of encouragement"
    page.kinds["submit"].setChecked(False)
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _rows(page)[0].startswith("Give me one word of encouragement\nWeekdays"), timeout=5000)
    assert "not run yet" in _rows(page)[0] and page.prompt.text() == ""

    page.list.setCurrentRow(0)
    scripted_model.script(text("Onward!"))
    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "last run: done" in _rows(page)[0], timeout=30_000)
    qtbot.waitUntil(lambda: bool(notified), timeout=5000)
    assert notified == [("Jawad: Give me one word of encouragement", "Onward!")]
    page.list.setCurrentRow(0)
    assert ": done — Onward!" in page.history.text()
    assert window.chat.view.chat_model.items() == [] or all(
        "Onward!" not in item.text for item in window.chat.view.chat_model.items())  # not in the window's chat

    qtbot.mouseClick(page.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "paused" in _rows(page)[0], timeout=5000)
    page.list.setCurrentRow(0)
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _rows(page) == ["No scheduled tasks yet: make one below."], timeout=5000)
    dialog.close()
