"""Settings → Projects in the window (issue 34, point 2): add a project with instructions, a folder,
a provider and a model; its chats get its instructions; edit it; export it to a file; remove it
keeping its conversations, and another deleting them, each said plainly; bad input says what is wrong;
the history's chooser follows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.settings.projects_page import ProjectsPage
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def _rows(page: ProjectsPage) -> list[str]:
    return [page.list.item(r).text() for r in range(page.list.count())]


def _send(window: MainWindow, qtbot: Any, words: str) -> None:
    window.chat.input.setPlainText(words)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)


def test_projects_added_edited_exported_and_removed_in_settings(
        make_window: Any, profile_dir: Path, tmp_path: Path, scripted_model: ScriptedModel, qtbot: Any) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    window.open_settings()
    dialog = window._settings_dialog
    assert dialog is not None
    dialog.show_page("Projects")
    page = dialog.current_page()
    assert isinstance(page, ProjectsPage)
    assert _rows(page) == ["No projects yet: make one below."]
    assert not page.remove_button.isEnabled() and page.save_button.text() == "&Add project"

    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    assert "A project needs a name." in page.status.text()
    plans = tmp_path / "plans"
    plans.mkdir()
    page.name.setText("Kitchen")
    page.instructions.setPlainText("The budget is 8,000 EUR.")
    page.add_folder(str(plans))
    page.provider.setCurrentIndex(page.provider.findData("Scripted"))
    page.model.setText("scripted-large")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    assert page.status.text() == "Added the project Kitchen."
    assert _rows(page) == ["Kitchen\n0 conversations · 1 folder · Scripted scripted-large"]
    assert page.selected_id() is not None and page.save_button.text() == "&Save"
    chooser = window.projects
    assert chooser is not None
    qtbot.waitUntil(lambda: chooser.combo.findText("Kitchen") >= 0, timeout=5000)

    # A chat in it gets its instructions, with its model.
    chooser.choose(page.selected_id())
    scripted_model.script(text("Oak fits the budget."))
    _send(window, qtbot, "Which worktop")
    request = scripted_model.requests[-1]
    assert "The budget is 8,000 EUR." in str(request["messages"][0]["content"])
    assert request["model"] == "scripted-large"
    qtbot.waitUntil(lambda: _rows(page)[0].startswith("Kitchen\n1 conversation ·"), timeout=5000)

    # Edited: the next turn follows the new instructions; the form shows what was saved.
    page.instructions.setPlainText("The budget is 6,000 EUR.")
    page.model.clear()
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    assert page.status.text() == "Saved the project Kitchen."
    scripted_model.script(text("Then laminate."))
    _send(window, qtbot, "And now")
    assert "The budget is 6,000 EUR." in str(scripted_model.requests[-1]["messages"][0]["content"])
    assert "8,000" not in str(scripted_model.requests[-1]["messages"][0]["content"])
    page.name.setText("")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    assert "A project needs a name." in page.status.text()
    page._selected()  # the form again shows what is saved
    assert page.name.text() == "Kitchen" and page.model.text() == ""

    # Exported to a file.
    out = tmp_path / "kitchen.json"
    project_id = page.selected_id()
    assert project_id is not None and page.export_to(project_id, str(out))
    assert page.status.text().startswith(f"Exported to {out}")
    exported = json.loads(out.read_text())
    assert exported["project"]["name"] == "Kitchen" and len(exported["conversations"]) == 1

    # Removed, keeping its conversation: said plainly, the conversation stays in no project.
    conversation = window.presenter.assistant.conversation_id  # type: ignore[union-attr]
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    assert page.confirm.isVisible()
    assert page.confirm_text.text().startswith("Remove the project Kitchen? It holds 1 conversation: keep them")
    assert page.delete_button.isVisible()
    qtbot.mouseClick(page.keep_button, Qt.MouseButton.LeftButton)
    assert page.status.text() == "Removed the project Kitchen. Its 1 conversation: kept, in no project."
    assert _rows(page) == ["No projects yet: make one below."]
    store = window.presenter.store
    assert store is not None and conversation is not None
    assert store.get(conversation).project_id is None
    qtbot.waitUntil(lambda: chooser.combo.findText("Kitchen") < 0, timeout=5000)
    assert chooser.current.text() == "New chats start in no project."

    # Another, removed with its conversations.
    page.name.setText("Garden")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    store.move_to_project(conversation, page.selected_id())
    qtbot.waitUntil(lambda: _rows(page) == ["Garden\n1 conversation"], timeout=5000)
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert page.status.text() == "Removed the project Garden. Its 1 conversation: deleted."
    assert all(c.id != conversation for c in store.list_conversations())
    dialog.close()
