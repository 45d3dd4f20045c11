"""Projects in the window's history (issue 34, point 2): the chooser above the list filters it
("All conversations", "No project", each project), choosing a project puts new chats in it and
says so, "New project…" makes one, and a conversation's "Move to project" moves it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.projects import ProjectStore
from jawad_desktop.ui.chat.conversation_rows import IdRole
from jawad_desktop.ui.chat.history_sidebar import HistorySidebar
from jawad_desktop.ui.chat.project_chooser import ProjectChooser
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def _titles(sidebar: HistorySidebar) -> list[str]:
    return [sidebar.model.row_at(r).summary.display_title for r in range(sidebar.model.rowCount())]


def _entries(chooser: ProjectChooser) -> list[str]:
    return [chooser.combo.itemText(i) for i in range(chooser.combo.count())]


def _send(window: MainWindow, qtbot: Any, words: str) -> None:
    window.chat.input.setPlainText(words)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)


def test_the_sidebar_groups_by_project_and_new_chats_start_in_the_chosen_one(
        make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.projects is not None, timeout=10_000)
    sidebar, chooser = window.sidebar, window.projects
    assert isinstance(sidebar, HistorySidebar) and chooser is not None
    assistant = window.presenter.assistant
    assert assistant is not None and assistant.store is not None
    assert _entries(chooser) == ["All conversations", "No project", "New project…"]
    assert chooser.current.text() == "New chats start in no project."

    scripted_model.script(text("Hi."))
    _send(window, qtbot, "A chat in no project")
    # A project made elsewhere (the CLI, Settings) appears in the chooser.
    ProjectStore(assistant.store.db, bus=window.ctx.bus).add("Garden")
    qtbot.waitUntil(lambda: "Garden" in _entries(chooser), timeout=5000)

    # "New project…" asks a name, makes the project and works in it.
    chooser.combo.setCurrentIndex(_entries(chooser).index("New project…"))
    chooser.combo.activated.emit(chooser.combo.currentIndex())
    dialog = chooser.name_dialog
    assert dialog.isVisible()
    dialog.setTextValue("Kitchen")
    dialog.accept()
    qtbot.waitUntil(lambda: chooser.combo.currentText() == "Kitchen", timeout=5000)
    assert _entries(chooser) == ["All conversations", "No project", "Garden", "Kitchen", "New project…"]
    assert chooser.current.text() == "New chats start in the project Kitchen."
    assert assistant.project is not None and assistant.project.name == "Kitchen"
    qtbot.waitUntil(lambda: _titles(sidebar) == [], timeout=5000)  # Kitchen has no chat yet
    assert sidebar.empty_label.text() == "No conversations here yet. New chat starts one in it."

    qtbot.mouseClick(sidebar.new_chat_button, Qt.MouseButton.LeftButton)
    scripted_model.script(text("Oak is sturdy."))
    _send(window, qtbot, "Which worktop for the kitchen")
    qtbot.waitUntil(lambda: _titles(sidebar) == ["Which worktop for the kitchen"], timeout=5000)
    kitchen_chat = assistant.conversation_id
    assert kitchen_chat is not None
    assert assistant.store.get(kitchen_chat).project_id == assistant.project.id

    chooser.choose("")  # No project: the Kitchen chat is not in it, so a new chat starts
    qtbot.waitUntil(lambda: _titles(sidebar) == ["A chat in no project"], timeout=5000)
    assert chooser.current.text() == "New chats start in no project."
    assert assistant.conversation_id is None and window.chat.view.chat_model.items() == []
    chooser.choose(None)  # All conversations
    qtbot.waitUntil(lambda: len(_titles(sidebar)) == 2, timeout=5000)
    # Opened from "All conversations", a project's chat continues in its project, and the window says so.
    sidebar.conversation_selected.emit(kitchen_chat)
    qtbot.waitUntil(lambda: chooser.current.text() == "New chats start in the project Kitchen.", timeout=5000)

    # The open conversation moved to no project continues there, and the window says so.
    assistant.store.move_to_project(kitchen_chat, None)
    qtbot.waitUntil(lambda: chooser.current.text() == "New chats start in no project.", timeout=5000)
    assert assistant.project is None
    assistant.store.move_to_project(kitchen_chat, ProjectStore(assistant.store.db).find("Kitchen").id)
    qtbot.waitUntil(lambda: chooser.current.text() == "New chats start in the project Kitchen.", timeout=5000)

    # A row's context menu moves the conversation to another project.
    row = _titles(sidebar).index("A chat in no project")
    index = sidebar.model.index(row)
    menu = sidebar._context_menu(index)
    [moves] = [a.menu() for a in menu.actions() if a.text() == "Move to project"]
    assert [a.text() for a in moves.actions()] == ["No project", "Garden", "Kitchen"]
    assert [a.isChecked() for a in moves.actions()] == [True, False, False]
    [garden] = [a for a in moves.actions() if a.text() == "Garden"]
    garden.trigger()
    moved = str(index.data(IdRole))
    garden_id = ProjectStore(assistant.store.db).find("Garden").id
    assert assistant.store.get(moved).project_id == garden_id
    chooser.choose(garden_id)
    qtbot.waitUntil(lambda: _titles(sidebar) == ["A chat in no project"], timeout=5000)
    assert chooser.current.text() == "New chats start in the project Garden."

    # The project shown removed (Settings or the CLI): back to all, new chats in no project.
    ProjectStore(assistant.store.db, bus=window.ctx.bus).remove(garden_id)
    qtbot.waitUntil(lambda: chooser.combo.currentText() == "All conversations", timeout=5000)
    qtbot.waitUntil(lambda: len(_titles(sidebar)) == 2, timeout=5000)
    assert chooser.current.text() == "New chats start in no project." and assistant.project is None
