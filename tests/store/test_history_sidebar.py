"""The history sidebar under pytest-qt, on a real store: listing, search, rename, delete and undo.

The store announces its changes on a bus; the sidebar hears them through an ``EventBridge``, as
in the window. Searches run on the session's qasync loop (the ``aio_loop`` fixture).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import ConversationsChanged, EventBus
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.conversation_records import ConversationMatch
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.ui.base.bridge import EventBridge
from jawad_desktop.ui.chat.conversation_rows import DetailHtmlRole, IdRole, TitleHtmlRole, when_text
from jawad_desktop.ui.chat.history_sidebar import HistorySidebar


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def bridge(qapp: Any, bus: EventBus) -> Iterator[EventBridge]:
    bridge = EventBridge(bus)
    yield bridge
    bridge.detach()


@pytest.fixture
def filled_store(tmp_path: Path, bus: EventBus) -> Iterator[tuple[ConversationStore, dict[str, str]]]:
    store = ConversationStore.open(tmp_path / "data", bus=bus)
    ids = {}
    for name, question, answer in [
        ("lisbon", "Plan a weekend in Lisbon", "Start at Alfama, then take tram 28."),
        ("hoodie", "Find a cheaper hoodie", "Here are three hoodies under $40."),
        ("python", "Why does Python raise KeyError?", "The key is missing from the dict."),
    ]:
        cid = store.create().id
        store.append_message(cid, Message("user", question))
        store.append_message(cid, Message("assistant", answer))
        ids[name] = cid
        time.sleep(0.003)
    yield store, ids
    store.close()


@pytest.fixture
def sidebar(qtbot: Any, filled_store: tuple[ConversationStore, dict[str, str]], bridge: EventBridge,
            aio_loop: Any) -> HistorySidebar:
    store, _ = filled_store
    widget = HistorySidebar(store, bridge.conversations_changed)
    qtbot.addWidget(widget)
    widget.resize(300, 500)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    return widget


def _ids(sidebar: HistorySidebar) -> list[str]:
    return [sidebar.model.index(i).data(IdRole) for i in range(sidebar.model.rowCount())]


def _search(qtbot: Any, sidebar: HistorySidebar, text: str) -> None:
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        sidebar.search_box.setText(text)


def test_lists_newest_first_with_accessible_names(sidebar: HistorySidebar,
                                                  filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    _, ids = filled_store
    assert _ids(sidebar) == [ids["python"], ids["hoodie"], ids["lisbon"]]
    first = sidebar.model.index(0)
    assert first.data(Qt.ItemDataRole.DisplayRole) == "Why does Python raise KeyError?"
    assert "2 messages" in first.data(DetailHtmlRole)
    assert first.data(Qt.ItemDataRole.AccessibleTextRole).startswith("Why does Python raise KeyError?, ")
    for widget in (sidebar, sidebar.search_box, sidebar.list_view, sidebar.new_chat_button, sidebar.undo_button):
        assert widget.accessibleName()
    assert not sidebar.empty_label.isVisible()
    sidebar.grab()  # paints every visible row through the delegate


def test_new_messages_move_a_conversation_to_the_top(qtbot: Any, sidebar: HistorySidebar,
                                                      filled_store: tuple[ConversationStore, dict[str, str]],
                                                      arun: Callable[..., Any]) -> None:
    store, ids = filled_store
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        store.append_message(ids["lisbon"], Message("user", "And on Sunday?"))
    assert _ids(sidebar)[0] == ids["lisbon"]
    # A change made on the store's worker thread refreshes the list too.
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        arun(store.append_message_async(ids["hoodie"], Message("user", "Any in blue?")))
    assert _ids(sidebar)[0] == ids["hoodie"]
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        new = store.create().id
    assert _ids(sidebar)[0] == new
    assert sidebar.model.index(0).data(Qt.ItemDataRole.DisplayRole) == "New chat"


def test_the_bridge_turns_the_event_into_its_signal(qtbot: Any, bus: EventBus, bridge: EventBridge) -> None:
    with qtbot.waitSignal(bridge.conversations_changed, timeout=2000) as blocker:
        bus.emit(ConversationsChanged(kind="renamed", conversation_id="abc"))
    assert blocker.args == ["renamed", "abc"]


def test_changes_made_elsewhere_show_up(qtbot: Any, sidebar: HistorySidebar,
                                        filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    """Changes the sidebar did not make (the recorder, a command) refresh it through the bus.

    The same store: a second store object on the file announces on no bus the sidebar hears."""
    store, ids = filled_store
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        created = store.create("Packing list").id
    assert _ids(sidebar)[0] == created
    assert sidebar.model.index(0).data(Qt.ItemDataRole.DisplayRole) == "Packing list"

    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        store.rename(ids["lisbon"], "Lisbon weekend")
    row = sidebar.model.row_of(ids["lisbon"])
    assert sidebar.model.index(row).data(Qt.ItemDataRole.DisplayRole) == "Lisbon weekend"

    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        store.delete(ids["hoodie"])
    assert ids["hoodie"] not in _ids(sidebar)
    assert not sidebar.undo_bar.isVisible()  # Undo is offered only for the sidebar's own deletions

    # A change written on another thread is announced on that thread; the bridge's signal is
    # queued to the GUI thread, where the list refreshes (a direct probe sees the emitting thread).
    refreshed_on: list[threading.Thread] = []
    sidebar.listing_changed.connect(lambda: refreshed_on.append(threading.current_thread()),
                                    Qt.ConnectionType.DirectConnection)
    writer = threading.Thread(target=store.rename, args=(created, "Packing list for Lisbon"))
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        writer.start()
        writer.join()
    assert refreshed_on == [threading.main_thread()]
    assert sidebar.model.index(sidebar.model.row_of(created)).data(Qt.ItemDataRole.DisplayRole) == (
        "Packing list for Lisbon")


def test_a_failing_search_says_what_went_wrong(qtbot: Any, sidebar: HistorySidebar,
                                               filled_store: tuple[ConversationStore, dict[str, str]],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = filled_store

    def broken(query: str, *, limit: int = 50) -> list[ConversationMatch]:
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(store, "search_conversations", broken)
    _search(qtbot, sidebar, "hood")
    assert sidebar.model.rowCount() == 0
    assert sidebar.empty_label.isVisible()
    assert "Search failed: database disk image is malformed." in sidebar.empty_label.text()
    assert "Try different words." in sidebar.empty_label.text()

    def busy(query: str, *, limit: int = 50) -> list[ConversationMatch]:
        raise JawadError("The history is busy.", suggestions=["Try again in a moment."])

    monkeypatch.setattr(store, "search_conversations", busy)
    _search(qtbot, sidebar, "tram")
    assert sidebar.empty_label.text().startswith("The history is busy.")
    assert "Try again in a moment." in sidebar.empty_label.text()


def test_a_slow_search_that_was_overtaken_is_dropped(qtbot: Any, sidebar: HistorySidebar,
                                                     filled_store: tuple[ConversationStore, dict[str, str]],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    store, ids = filled_store
    original = store.search_conversations

    def slow_for_hood(query: str, *, limit: int = 50) -> list[ConversationMatch]:
        if query == "hood":
            time.sleep(0.3)
        return original(query, limit=limit)

    monkeypatch.setattr(store, "search_conversations", slow_for_hood)
    shown: list[list[str]] = []
    sidebar.listing_changed.connect(lambda: shown.append(_ids(sidebar)))
    sidebar.search_box.setText("hood")
    sidebar.refresh()
    sidebar.search_box.setText("tram")
    sidebar.refresh()
    qtbot.waitUntil(lambda: bool(shown), timeout=5000)
    qtbot.wait(100)
    # The store's one worker ran "hood" first; its result came back stale and was not shown.
    assert shown == [[ids["lisbon"]]]


def test_search_shows_highlighted_matches_and_escape_clears(qtbot: Any, sidebar: HistorySidebar,
                                                            filled_store: tuple[ConversationStore, dict[str, str]]
                                                            ) -> None:
    _, ids = filled_store
    _search(qtbot, sidebar, "hood")
    assert _ids(sidebar) == [ids["hoodie"]]
    detail = sidebar.model.index(0).data(DetailHtmlRole)
    assert "<b>hoodie" in detail and "(+1 more)" in detail
    assert "<b>hoodie</b>" in sidebar.model.index(0).data(TitleHtmlRole)
    sidebar.grab()

    _search(qtbot, sidebar, "zanzibar")
    assert sidebar.model.rowCount() == 0
    assert sidebar.empty_label.isVisible() and "zanzibar" in sidebar.empty_label.text()

    sidebar.search_box.setFocus()
    qtbot.waitUntil(sidebar.search_box.hasFocus)
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        qtbot.keyClick(sidebar.search_box, Qt.Key.Key_Escape)
    assert sidebar.search_box.text() == "" and sidebar.model.rowCount() == 3


def test_enter_in_search_opens_the_best_match(qtbot: Any, sidebar: HistorySidebar,
                                              filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    _, ids = filled_store
    _search(qtbot, sidebar, "tram")
    opened: list[str] = []
    matched: list[tuple[str, int]] = []
    sidebar.conversation_selected.connect(opened.append)
    sidebar.match_selected.connect(lambda cid, pos: matched.append((cid, pos)))
    qtbot.keyClick(sidebar.search_box, Qt.Key.Key_Return)
    assert opened == [ids["lisbon"]]
    assert matched == [(ids["lisbon"], 1)]
    assert sidebar.current_id == ids["lisbon"]


def test_keyboard_moves_between_search_and_list_and_opens(qtbot: Any, sidebar: HistorySidebar,
                                                          filled_store: tuple[ConversationStore, dict[str, str]]
                                                          ) -> None:
    _, ids = filled_store
    sidebar.focus_search()
    qtbot.waitUntil(sidebar.search_box.hasFocus)
    qtbot.keyClick(sidebar.search_box, Qt.Key.Key_Down)
    qtbot.waitUntil(sidebar.list_view.hasFocus)
    assert sidebar.list_view.currentIndex().row() == 0
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Down)
    with qtbot.waitSignal(sidebar.conversation_selected, timeout=2000) as blocker:
        qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Return)
    assert blocker.args == [ids["hoodie"]]
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Up)
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Up)
    qtbot.waitUntil(sidebar.search_box.hasFocus)


def test_click_opens_and_new_chat_asks_the_window(qtbot: Any, sidebar: HistorySidebar,
                                                  filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    _, ids = filled_store
    rect = sidebar.list_view.visualRect(sidebar.model.index(2))
    with qtbot.waitSignal(sidebar.conversation_selected, timeout=2000) as blocker:
        qtbot.mouseClick(sidebar.list_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [ids["lisbon"]]
    with qtbot.waitSignal(sidebar.new_chat_requested, timeout=2000):
        qtbot.mouseClick(sidebar.new_chat_button, Qt.MouseButton.LeftButton)
    sidebar.set_current(ids["hoodie"])
    assert sidebar.list_view.currentIndex().data(IdRole) == ids["hoodie"]


def test_f2_renames_in_place(qtbot: Any, sidebar: HistorySidebar,
                             filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    store, ids = filled_store
    sidebar.set_current(ids["python"])
    sidebar.list_view.setFocus()
    qtbot.waitUntil(sidebar.list_view.hasFocus)
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit)
                    and QApplication.focusWidget() is not sidebar.search_box)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, "KeyError help")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: store.get(ids["python"]).title == "KeyError help")
    assert store.get(ids["python"]).title_is_custom
    qtbot.waitUntil(lambda: sidebar.model.index(0).data(Qt.ItemDataRole.DisplayRole) == "KeyError help")


def test_delete_key_then_undo_then_expiry_purges(qtbot: Any, sidebar: HistorySidebar,
                                                  filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    store, ids = filled_store
    sidebar.set_current(ids["hoodie"])
    sidebar.list_view.setFocus()
    qtbot.waitUntil(sidebar.list_view.hasFocus)
    with qtbot.waitSignal(sidebar.conversation_deleted, timeout=2000) as deleted:
        qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Delete)
    assert deleted.args == [ids["hoodie"]]
    qtbot.waitUntil(lambda: ids["hoodie"] not in _ids(sidebar))
    assert sidebar.undo_bar.isVisible() and "Find a cheaper hoodie" in sidebar.undo_label.toolTip()
    shown = sidebar.undo_label.text()
    assert shown.startswith("Deleted “") and (shown.endswith("”") or shown.endswith("…")), shown
    assert sidebar.current_id is None

    qtbot.mouseClick(sidebar.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ids["hoodie"] in _ids(sidebar))
    assert not sidebar.undo_bar.isVisible()
    assert store.history(ids["hoodie"])[0].content == "Find a cheaper hoodie"

    # Ctrl+Z works too, while the list has focus.
    sidebar.delete_conversation(ids["lisbon"])
    sidebar.list_view.setFocus()
    qtbot.waitUntil(sidebar.list_view.hasFocus)
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: ids["lisbon"] in _ids(sidebar))

    # Left alone, the deletion becomes final when the undo time runs out.
    sidebar._undo_timer.setInterval(50)
    sidebar.delete_conversation(ids["python"])
    qtbot.waitUntil(lambda: not sidebar.undo_bar.isVisible(), timeout=3000)
    assert store.restore(ids["python"]) is False
    assert ids["python"] not in _ids(sidebar)


def test_a_second_delete_makes_the_first_final(qtbot: Any, sidebar: HistorySidebar,
                                               filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    store, ids = filled_store
    sidebar.delete_conversation(ids["lisbon"])
    sidebar.delete_conversation(ids["python"])
    assert store.restore(ids["lisbon"]) is False  # purged
    assert sidebar.undo_delete() is True
    qtbot.waitUntil(lambda: _ids(sidebar) == [ids["python"], ids["hoodie"]])


def test_context_menu_offers_rename_and_delete(qtbot: Any, sidebar: HistorySidebar,
                                               filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    _, ids = filled_store
    index = sidebar.model.index(1)
    sidebar.list_view.setCurrentIndex(index)
    menu = sidebar._context_menu(index)
    actions = {a.text(): a for a in menu.actions() if not a.isSeparator()}
    assert list(actions) == ["Open", "Rename", "Export as Markdown…", "Export as JSON…", "Move to project", "Delete"]
    assert menu.accessibleName()
    with qtbot.waitSignal(sidebar.conversation_deleted, timeout=2000) as blocker:
        actions["Delete"].trigger()
    assert blocker.args == [ids["hoodie"]]


def test_export_through_the_save_dialog(qtbot: Any, sidebar: HistorySidebar, tmp_path: Path,
                                        filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    store, ids = filled_store
    store.append_message(ids["python"], Message("user", "my token=ghp_ABCDEFGHIJKLMNOPQRSTUVWX0123"))
    dialog = sidebar.choose_export_file(ids["python"], "json")
    assert dialog.isVisible() and dialog.accessibleName() == "Export conversation"
    target = tmp_path / "out" / "python.json"
    target.parent.mkdir()
    dialog.selectFile(str(target))
    with qtbot.waitSignal(sidebar.exported, timeout=5000) as blocker:
        dialog.accept()
    assert blocker.args == [str(target)]
    text = target.read_text()
    assert "Why does Python raise KeyError?" in text and "ABCDEFGHIJKLMNOP" not in text
    assert sidebar.status_label.isVisible() and "Exported to" in sidebar.status_label.text()

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert sidebar.export_to(ids["python"], "md", str(blocked / "x.md")) is False
    assert "Could not write the export" in sidebar.status_label.text()


def test_an_empty_history_says_how_to_start(qtbot: Any, tmp_path: Path, bridge: EventBridge) -> None:
    with ConversationStore.open(tmp_path) as store:
        widget = HistorySidebar(store, bridge.conversations_changed)
        qtbot.addWidget(widget)
        widget.show()
        assert widget.model.rowCount() == 0
        assert widget.empty_label.isVisible() and "New chat" in widget.empty_label.text()
        widget.close()
        widget.deleteLater()


def test_when_text_is_short_and_human() -> None:
    from datetime import datetime

    now = datetime(2026, 11, 21, 15, 0)
    ms = lambda d: int(d.timestamp() * 1000)  # noqa: E731
    assert when_text(ms(datetime(2026, 11, 21, 9, 5)), now) == "09:05"
    assert when_text(ms(datetime(2026, 11, 20, 23, 0)), now) == "Yesterday"
    assert when_text(ms(datetime(2026, 11, 17, 12, 0)), now) == "Tue"
    assert when_text(ms(datetime(2026, 3, 2, 12, 0)), now) == "2 Mar"
    assert when_text(ms(datetime(2024, 3, 2, 12, 0)), now) == "2 Mar 2024"


def test_a_row_counts_what_the_chat_shows_and_keeps_its_title_on_one_line(
        qtbot: Any, sidebar: HistorySidebar, filled_store: tuple[ConversationStore, dict[str, str]]) -> None:
    from jawad_desktop.core.messages import ToolCall

    store, _ = filled_store
    cid = store.create().id
    question = "What is 12*34? Use the calculator, and then tell me about snake_case names in Python please."
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        store.append_message(cid, Message("user", question))
        store.append_message(cid, Message("assistant", "", tool_calls=[ToolCall("c1", "calculate", {"e": "12*34"})]))
        store.append_message(cid, Message("tool", "408", tool_call_id="c1", name="calculate"))
        store.append_message(cid, Message("assistant", "12*34 is 408."))
    qtbot.waitUntil(lambda: sidebar.model.index(0).data(IdRole) == cid, timeout=5000)
    row = sidebar.model.index(0)
    # One question and its answer: the tool call and its result are not messages the user sees.
    assert "2 messages" in row.data(DetailHtmlRole), row.data(DetailHtmlRole)
    assert row.data(Qt.ItemDataRole.DisplayRole).startswith("What is 12*34? Use the calculator")
    # The title is painted on one line ending in "…": nothing under it but the detail line.
    sidebar.resize(220, 500)
    qtbot.wait(20)
    image = sidebar.list_view.viewport().grab().toImage()
    rect = sidebar.list_view.visualRect(row)
    metrics = sidebar.list_view.fontMetrics()
    pad = 6
    gap_top = rect.top() + pad + metrics.height()
    background = image.pixelColor(rect.right() - 2, gap_top)
    inked = [x for x in range(rect.left(), rect.right()) for y in range(gap_top, gap_top + 2)
             if image.pixelColor(x, y) != background]
    assert not inked, "a second title line shows under the first"


def test_grouped_by_project_a_chosen_project_scrolls_into_view_and_headers_follow_renames(
        qtbot: Any, sidebar: HistorySidebar, filled_store: tuple[ConversationStore, dict[str, str]],
        bus: EventBus, bridge: EventBridge) -> None:
    from jawad_desktop.core.store.projects import ProjectStore
    from jawad_desktop.ui.chat.conversation_rows import GroupHeader

    store, ids = filled_store
    projects = ProjectStore(store.db, bus=bus)
    garden = projects.add("Garden")
    for n in range(30):  # more than the list can show: Garden's group is far below
        store.create(f"Loose chat {n}")
    store.move_to_project(ids["lisbon"], garden.id)
    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        sidebar.group_by_project(projects, bridge.other)
    headers = [sidebar.model.row_at(r) for r in range(sidebar.model.rowCount())
               if isinstance(sidebar.model.row_at(r), GroupHeader)]
    assert [(h.name, h.count) for h in headers] == [("No project", 32), ("Garden", 1)]
    garden_header = sidebar.model.index(sidebar.model.header_row(garden.id))
    assert sidebar.list_view.visualRect(garden_header).top() > sidebar.list_view.viewport().height()
    sidebar.show_project(garden.id)
    # The last group: as high as the list can scroll it, in view.
    qtbot.waitUntil(lambda: 0 <= sidebar.list_view.visualRect(garden_header).top()
                    < sidebar.list_view.viewport().height(), timeout=3000)
    sidebar.show_project("")
    qtbot.waitUntil(lambda: sidebar.list_view.visualRect(sidebar.model.index(0)).top() == 0, timeout=3000)

    with qtbot.waitSignal(sidebar.listing_changed, timeout=5000):
        projects.update(garden.id, name="Garden and balcony")  # announced: ProjectsChanged
    assert sidebar.model.row_at(sidebar.model.header_row(garden.id)) == GroupHeader(garden.id, "Garden and balcony", 1)
    # A click on a header opens nothing and selects nothing.
    header_rect = sidebar.list_view.visualRect(sidebar.model.index(0))
    with qtbot.assertNotEmitted(sidebar.conversation_selected, wait=100):
        qtbot.mouseClick(sidebar.list_view.viewport(), Qt.MouseButton.LeftButton, pos=header_rect.center())
    assert sidebar.list_view.selectionModel().selectedIndexes() == []
