"""The history sidebar inside the real window: the assistant's store announces on the app's bus,
and the window's bridge brings the change to the sidebar (no store listener in between)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.chat.conversation_rows import IdRole
from jawad_desktop.ui.chat.history_sidebar import HistorySidebar
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def _titles(sidebar: HistorySidebar) -> dict[str, str]:
    model = sidebar.model
    return {model.index(i).data(IdRole): model.index(i).data(Qt.ItemDataRole.DisplayRole)
            for i in range(model.rowCount())}


def test_a_saved_turn_and_a_rename_reach_the_window_sidebar(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    scripted_model.script(text("Tram 28 climbs to Alfama."))
    window: MainWindow = make_window(profile_dir)
    sidebar = window.sidebar
    assert isinstance(sidebar, HistorySidebar)
    assert sidebar.model.rowCount() == 0

    window.chat.input.setPlainText("Which tram goes to Alfama?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    cid = window.presenter.conversation_id
    assert cid is not None
    qtbot.waitUntil(lambda: _titles(sidebar).get(cid) == "Which tram goes to Alfama?", timeout=5000)

    store = window.presenter.store
    assert store is not None
    store.rename(cid, "Alfama trams")
    qtbot.waitUntil(lambda: _titles(sidebar).get(cid) == "Alfama trams", timeout=5000)


def _selected_ids(sidebar: HistorySidebar) -> list[str]:
    return [index.data(IdRole) for index in sidebar.list_view.selectionModel().selectedIndexes()]


def test_a_new_chat_becomes_the_selected_row_once_it_is_saved(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    """After New chat and a first message the list selected the previous conversation still
    (the refresh kept the row the keyboard was on); the conversation shown must be selected."""
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    scripted_model.script(text("Tram 28 climbs to Alfama."), text("The 15E goes to Belém."))
    window: MainWindow = make_window(profile_dir)
    sidebar = window.sidebar
    assert isinstance(sidebar, HistorySidebar)

    window.chat.input.setPlainText("Which tram goes to Alfama?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    first = window.presenter.conversation_id
    assert first is not None
    qtbot.waitUntil(lambda: _selected_ids(sidebar) == [first], timeout=5000)

    window.new_chat_action.trigger()
    qtbot.waitUntil(lambda: window.presenter.conversation_id is None, timeout=5000)
    assert _selected_ids(sidebar) == [], "a new, unsaved chat has no row to select"

    window.chat.input.setPlainText("And which goes to Belém?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    second = window.presenter.conversation_id
    assert second is not None and second != first
    qtbot.waitUntil(lambda: sidebar.model.row_of(second) >= 0, timeout=5000)
    qtbot.wait(100)  # let any later refresh run: it must not move the selection back
    assert _selected_ids(sidebar) == [second]
    assert sidebar.list_view.currentIndex().data(IdRole) == second


def test_undoing_the_delete_of_the_open_conversation_shows_it_again_and_nothing_shifts(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    """After Undo the restored conversation was selected but the chat showed the empty state; a
    long title in the "Deleted …" bar widened the sidebar and the whole window shifted."""
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    scripted_model.script(text("Tram 28 climbs to Alfama."))
    window: MainWindow = make_window(profile_dir)
    sidebar = window.sidebar
    assert isinstance(sidebar, HistorySidebar)
    question = "Which tram goes to Alfama, and what about the long way round through Graça and Mouraria?"
    window.chat.input.setPlainText(question)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    cid = window.presenter.conversation_id
    assert cid is not None
    qtbot.waitUntil(lambda: cid in _titles(sidebar), timeout=5000)
    sizes = window.main_split.sizes()
    sidebar.delete_conversation(cid)
    qtbot.waitUntil(lambda: window.presenter.conversation_id is None)
    assert sidebar.undo_bar.isVisible()
    qtbot.wait(50)
    assert window.main_split.sizes() == sizes
    assert sidebar.undo_delete()
    qtbot.waitUntil(lambda: window.presenter.conversation_id == cid, timeout=5000)
    assert [i.role for i in window.chat.view.chat_model.items()][:2] == ["user", "assistant"]
    assert not window.chat.empty_state.isVisible()
    qtbot.waitUntil(lambda: _selected_ids(sidebar) == [cid], timeout=5000)
