"""Memory in the window (issue 34): a message's Remember, Settings → Memory (add, edit in place,
forget, off), "Remember that …" in the chat, and the answer saying it was given remembered facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.settings.memory_page import MemoryPage
from tests.servers.scripted_model import ScriptedModel, text
from tests.ui.windows import window_with_model


def _facts(page: MemoryPage) -> list[str]:
    return [page.list.item(r).text() for r in range(page.list.count())]


def test_remember_in_the_chat_and_in_settings(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
                                              qtbot: Any) -> None:
    window = window_with_model(make_window, profile_dir, scripted_model)
    window.chat.input.setPlainText("Remember that I am vegetarian.")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=30_000)
    assert scripted_model.requests == []  # kept without asking the model
    assert "I'll remember that: I am vegetarian" in window.chat.view.chat_model.items()[-1].text

    window.open_settings()
    dialog = window._settings_dialog
    assert dialog is not None
    dialog.show_page("Memory")
    page = dialog.current_page()
    assert isinstance(page, MemoryPage) and _facts(page) == ["I am vegetarian"]
    # A message's Remember adds its words; the open page follows.
    window.chat.view.remember_requested.emit("My flat is on the fourth floor.")
    qtbot.waitUntil(lambda: _facts(page) == ["My flat is on the fourth floor.", "I am vegetarian"], timeout=5000)
    # Typed in the page, changed in place, forgotten with Del.
    page.new_fact.setText("I cycle to work")
    qtbot.keyClick(page.new_fact, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _facts(page)[0] == "I cycle to work", timeout=5000)
    page.list.item(0).setText("I cycle to work every day")
    qtbot.waitUntil(lambda: "I cycle to work every day" in _facts(page), timeout=5000)
    page.list.setCurrentRow(_facts(page).index("My flat is on the fourth floor."))
    page.list.setFocus()
    qtbot.keyClick(page.list, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: _facts(page) == ["I cycle to work every day", "I am vegetarian"], timeout=5000)
    dialog.close()

    scripted_model.script(text("Try the lentil soup; the cycle path is open."))
    window.chat.input.setPlainText("What should I have for lunch before I cycle back?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    system = str(scripted_model.requests[-1]["messages"][0]["content"])
    assert "- I am vegetarian" in system and "- I cycle to work every day" in system
    assert "with 2 remembered facts" in window.chat.view.chat_model.items()[-1].usage

    # Off: the facts stay, no message carries them.
    window.open_settings()
    page.enabled.setChecked(False)
    assert not AppContext.open(str(profile_dir)).settings.memory.enabled
    scripted_model.script(text("Anything you like."))
    window.chat.input.setPlainText("Lunch ideas?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    assert "vegetarian" not in str(scripted_model.requests[-1]["messages"][0]["content"])
    assert len(_facts(page)) == 2
    dialog.close()
