"""Projects in the window's history (issue 34, point 2): the history groups every conversation under
its project's header ("No project" for the others) once projects exist, following the core's
announcements (a project made, renamed or removed elsewhere); the chooser above it says and sets the
project the assistant works in, so new chats start in it; "New project…" makes one; a conversation's
"Move to project" moves it under another header. Search, delete with Undo and the keyboard work
across the headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.projects import ProjectStore
from jawad_desktop.ui.chat.conversation_rows import GroupHeader, IdRole, SidebarRow
from jawad_desktop.ui.chat.history_sidebar import HistorySidebar
from jawad_desktop.ui.chat.project_chooser import ProjectChooser
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def _groups(sidebar: HistorySidebar) -> list[tuple[str | None, list[str]]]:
    """The list as (header or None before the first header, the titles under it)."""
    groups: list[tuple[str | None, list[str]]] = []
    for r in range(sidebar.model.rowCount()):
        row = sidebar.model.row_at(r)
        if isinstance(row, GroupHeader):
            groups.append((row.name, []))
        else:
            assert isinstance(row, SidebarRow)
            if not groups:
                groups.append((None, []))
            groups[-1][1].append(row.summary.display_title)
    return groups


def _entries(chooser: ProjectChooser) -> list[str]:
    return [chooser.combo.itemText(i) for i in range(chooser.combo.count())]


def _send(window: MainWindow, qtbot: Any, words: str) -> None:
    window.chat.input.setPlainText(words)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)


def _current_title(sidebar: HistorySidebar) -> str:
    index = sidebar.list_view.currentIndex()
    return str(index.data(Qt.ItemDataRole.DisplayRole)) if index.isValid() else ""


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
    assert _entries(chooser) == ["No project", "New project…"]
    assert chooser.current.text() == "New chats start in no project."

    scripted_model.script(text("Hi."))
    _send(window, qtbot, "A chat in no project")
    qtbot.waitUntil(lambda: _groups(sidebar) == [(None, ["A chat in no project"])], timeout=5000)  # no headers yet
    # A project made elsewhere (the CLI, Settings) appears in the chooser, and the history gets its headers.
    ProjectStore(assistant.store.db, bus=window.ctx.bus).add("Garden")
    qtbot.waitUntil(lambda: "Garden" in _entries(chooser), timeout=5000)
    qtbot.waitUntil(lambda: _groups(sidebar) == [("No project", ["A chat in no project"])], timeout=5000)

    # "New project…" asks a name, makes the project and works in it; the open chat was elsewhere: a new one.
    chooser.combo.setCurrentIndex(_entries(chooser).index("New project…"))
    chooser.combo.activated.emit(chooser.combo.currentIndex())
    dialog = chooser.name_dialog
    assert dialog.isVisible()
    assert chooser.combo.currentText() == "No project", "the chooser shows the project worked in until it is made"
    dialog.setTextValue("Kitchen")
    dialog.accept()
    qtbot.waitUntil(lambda: chooser.combo.currentText() == "Kitchen", timeout=5000)
    assert _entries(chooser) == ["No project", "Garden", "Kitchen", "New project…"]
    assert chooser.current.text() == "New chats start in the project Kitchen."
    assert assistant.project is not None and assistant.project.name == "Kitchen"
    assert assistant.conversation_id is None and window.chat.view.chat_model.items() == []

    # New chats start in the current project, and show under its header (the newest group first).
    scripted_model.script(text("Oak is sturdy."))
    _send(window, qtbot, "Which worktop for the kitchen")
    kitchen_chat = assistant.conversation_id
    assert kitchen_chat is not None and assistant.store.get(kitchen_chat).project_id == assistant.project.id
    qtbot.waitUntil(lambda: _groups(sidebar) == [("Kitchen", ["Which worktop for the kitchen"]),
                                                 ("No project", ["A chat in no project"])], timeout=5000)
    qtbot.mouseClick(sidebar.new_chat_button, Qt.MouseButton.LeftButton)
    scripted_model.script(text("Tiles."))
    _send(window, qtbot, "Which floor for the kitchen")
    qtbot.waitUntil(lambda: _groups(sidebar) == [
        ("Kitchen", ["Which floor for the kitchen", "Which worktop for the kitchen"]),
        ("No project", ["A chat in no project"])], timeout=5000)
    header = sidebar.model.index(0)
    assert header.data(Qt.ItemDataRole.AccessibleTextRole) == "Kitchen: 2 conversations"
    assert not header.flags() & Qt.ItemFlag.ItemIsSelectable
    assert sidebar.model.index(1).data(Qt.ItemDataRole.AccessibleTextRole).endswith("(in Kitchen)")
    sidebar.grab()  # the headers and rows paint

    # The keyboard passes over the headers: from the search box to the first chat, across a header, and back.
    window.activateWindow()
    sidebar.focus_search()
    qtbot.waitUntil(sidebar.search_box.hasFocus, timeout=3000)
    qtbot.keyClick(sidebar.search_box, Qt.Key.Key_Down)
    qtbot.waitUntil(sidebar.list_view.hasFocus, timeout=3000)
    assert _current_title(sidebar) == "Which floor for the kitchen"
    for expected in ("Which worktop for the kitchen", "A chat in no project", "A chat in no project"):
        qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Down)
        assert _current_title(sidebar) == expected
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Up)
    assert _current_title(sidebar) == "Which worktop for the kitchen"
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Home)
    assert _current_title(sidebar) == "Which floor for the kitchen"
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Up)
    qtbot.waitUntil(sidebar.search_box.hasFocus, timeout=3000)

    # Search: the results under their projects, the best match's group first; Enter opens the best match.
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        sidebar.search_box.setText("chat")
    assert _groups(sidebar) == [("No project", ["A chat in no project"])]
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        sidebar.search_box.setText("kitchen")
    assert [name for name, _ in _groups(sidebar)] == ["Kitchen"]
    with qtbot.waitSignal(sidebar.conversation_selected, timeout=5000) as opened:
        qtbot.keyClick(sidebar.search_box, Qt.Key.Key_Return)
    assert opened.args[0] == sidebar.model.index(1).data(IdRole)
    qtbot.keyClick(sidebar.search_box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: len(_groups(sidebar)) == 2, timeout=5000)

    # A project renamed elsewhere: its header follows.
    kitchen_id = ProjectStore(assistant.store.db).find("Kitchen").id
    ProjectStore(assistant.store.db, bus=window.ctx.bus).update(kitchen_id, name="Kitchen works")
    qtbot.waitUntil(lambda: [name for name, _ in _groups(sidebar)] == ["Kitchen works", "No project"], timeout=5000)
    qtbot.waitUntil(lambda: "Kitchen works" in _entries(chooser), timeout=5000)

    # Delete with Undo inside a group: the row goes, the header stays while the group holds one, Undo brings it back.
    sidebar.delete_conversation(kitchen_chat)
    qtbot.waitUntil(lambda: _groups(sidebar) == [("Kitchen works", ["Which floor for the kitchen"]),
                                                 ("No project", ["A chat in no project"])], timeout=5000)
    assert sidebar.undo_bar.isVisible()
    qtbot.mouseClick(sidebar.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _groups(sidebar)[0] == (
        "Kitchen works", ["Which floor for the kitchen", "Which worktop for the kitchen"]), timeout=5000)

    # Opened again, a project's chat continues in its project, and the chooser says so.
    chooser.choose("")
    qtbot.waitUntil(lambda: chooser.current.text() == "New chats start in no project.", timeout=5000)
    sidebar.conversation_selected.emit(kitchen_chat)
    qtbot.waitUntil(lambda: chooser.current.text() == "New chats start in the project Kitchen works.", timeout=5000)
    assert chooser.combo.currentText() == "Kitchen works"
    # The open conversation moved to no project continues there, under that header.
    assistant.store.move_to_project(kitchen_chat, None)
    qtbot.waitUntil(lambda: chooser.current.text() == "New chats start in no project.", timeout=5000)
    qtbot.waitUntil(lambda: _groups(sidebar) == [
        ("Kitchen works", ["Which floor for the kitchen"]),
        ("No project", ["Which worktop for the kitchen", "A chat in no project"])], timeout=5000)
    assert assistant.project is None and chooser.combo.currentText() == "No project"

    # A row's context menu moves the conversation to another project: it shows under that header.
    [index] = [sidebar.model.index(r) for r in sidebar.model.conversation_rows()
               if sidebar.model.index(r).data(Qt.ItemDataRole.DisplayRole) == "A chat in no project"]
    menu = sidebar._context_menu(index)
    [moves] = [a.menu() for a in menu.actions() if a.text() == "Move to project"]
    assert [a.text() for a in moves.actions()] == ["No project", "Garden", "Kitchen works"]
    assert [a.isChecked() for a in moves.actions()] == [True, False, False]
    [garden] = [a for a in moves.actions() if a.text() == "Garden"]
    garden.trigger()
    garden_id = ProjectStore(assistant.store.db).find("Garden").id
    assert assistant.store.get(str(index.data(IdRole))).project_id == garden_id
    qtbot.waitUntil(lambda: ("Garden", ["A chat in no project"]) in _groups(sidebar), timeout=5000)
    chooser.choose(garden_id)
    qtbot.waitUntil(lambda: chooser.current.text() == "New chats start in the project Garden.", timeout=5000)

    # The project worked in removed (Settings or the CLI): its chats join "No project", new chats start there.
    ProjectStore(assistant.store.db, bus=window.ctx.bus).remove(garden_id)
    qtbot.waitUntil(lambda: chooser.combo.currentText() == "No project", timeout=5000)
    qtbot.waitUntil(lambda: [name for name, _ in _groups(sidebar)] == ["Kitchen works", "No project"], timeout=5000)
    assert sorted(_groups(sidebar)[1][1]) == ["A chat in no project", "Which worktop for the kitchen"]
    assert chooser.current.text() == "New chats start in no project." and assistant.project is None
