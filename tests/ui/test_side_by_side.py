"""Two models side by side in the window (issue 34): Compare with another model sends the typed message to
the model in use and to another saved provider at once; both answers show in their columns; Keep makes
one the conversation's turn in the chat and the history; with one provider the window says what to do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from tests.servers.scripted_model import ScriptedModel, text
from tests.ui.windows import window_with_model


def test_two_answers_side_by_side_and_the_kept_one_in_the_chat(make_window: Any, profile_dir: Path,
                                                               scripted_model: ScriptedModel, qtbot: Any) -> None:
    window = window_with_model(make_window, profile_dir, scripted_model, "Alpha", "Beta")
    qtbot.waitUntil(lambda: window.compare_action.isEnabled(), timeout=30_000)
    assert window.compare_action.shortcut().toString() == "Ctrl+Shift+D"
    scripted_model.script(text("Blue."), text("Green."))
    window.chat.input.setPlainText("Pick a colour")
    window.compare_models("Beta")
    controller = window.side_by_side
    assert controller is not None
    panel = controller.panel
    assert panel.isVisible() and window.chat.input.toPlainText() == ""
    assert [label.text() for label in panel.labels] == ["Alpha · scripted", "Beta · scripted"]
    qtbot.waitUntil(lambda: all(b.isEnabled() for b in panel.keep_buttons), timeout=30_000)
    answers = [a.toPlainText().strip() for a in panel.answers]
    assert sorted(answers) == ["Blue.", "Green."]
    assert window.chat.view.chat_model.items() == []  # nothing in the conversation until one is kept
    qtbot.mouseClick(panel.keep_buttons[1], Qt.MouseButton.LeftButton)
    assert not panel.isVisible()
    items = [(i.role, i.text) for i in window.chat.view.chat_model.items()]
    assert items[0] == ("user", "Pick a colour") and items[-1][0] == "assistant" and answers[1] in items[-1][1]
    assistant = window.presenter.assistant
    assert assistant is not None and assistant.conversation_id is not None


def test_with_one_provider_the_window_says_how_to_compare(make_window: Any, profile_dir: Path,
                                                          scripted_model: ScriptedModel, qtbot: Any) -> None:
    window = window_with_model(make_window, profile_dir, scripted_model, "Alpha")
    qtbot.waitUntil(lambda: window.compare_action.isEnabled(), timeout=30_000)
    window.chat.input.setPlainText("Pick a colour")
    window.compare_models()
    assert "Add a second provider in Settings → Providers" in window.banner.label.text()
    assert window.chat.input.toPlainText() == "Pick a colour"  # nothing lost
