"""Settings → Site permissions follows Harbor through the bus and the window's bridge: whoever
changes a grant (this page, the permission panel, a worker thread), the table shows it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.events import EventBus
from jawad_desktop.core.harbor import Harbor
from jawad_desktop.ui.base.bridge import EventBridge
from jawad_desktop.ui.settings.grants_page import GrantsPage


def _page(qtbot: Any, harbor: Harbor, bus: EventBus) -> GrantsPage:
    bridge = EventBridge(bus)
    page = GrantsPage(harbor, bridge.grants_changed)
    bridge.setParent(page)
    qtbot.addWidget(page)
    return page


def _rows(page: GrantsPage) -> list[list[str]]:
    def cell(r: int, c: int) -> str:
        item = page.table.item(r, c)
        return item.text() if item is not None else ""

    return [[cell(r, c) for c in range(4)] for r in range(page.table.rowCount())]


def test_lists_and_revokes(qtbot: Any, tmp_path: Path) -> None:
    bus = EventBus()
    harbor = Harbor.in_folder(tmp_path, bus=bus)
    harbor.apply_decision("click_element", "shop.test", "allow-site", level="interact")
    harbor.apply_decision("fill_form", "shop.test", "allow-session", level="interact")
    page = _page(qtbot, harbor, bus)
    assert _rows(page) == [["shop.test", "click_element", "interact", "saved"],
                           ["shop.test", "fill_form", "interact", "until Jawad closes"]]
    assert not page.revoke_button.isEnabled()
    page.table.selectRow(0)
    qtbot.mouseClick(page.revoke_button, Qt.MouseButton.LeftButton)
    assert [r[1] for r in _rows(page)] == ["fill_form"]
    assert Harbor.in_folder(tmp_path).grants() == []  # gone from disk too
    qtbot.mouseClick(page.revoke_all_button, Qt.MouseButton.LeftButton)
    assert page.table.rowCount() == 0 and page.empty.isVisibleTo(page)
    assert not page.revoke_all_button.isEnabled()


def test_changes_made_elsewhere_refresh_the_page(qtbot: Any, tmp_path: Path) -> None:
    bus = EventBus()
    harbor = Harbor.in_folder(tmp_path, bus=bus)
    harbor.apply_decision("click_element", "shop.test", "allow-site", level="interact")
    page = _page(qtbot, harbor, bus)
    assert page.table.rowCount() == 1
    harbor.revoke("shop.test", "click_element")  # e.g. the CLI's or the panel's Harbor call
    assert page.table.rowCount() == 0 and page.empty.isVisibleTo(page)
    harbor.apply_decision("navigate", "other.test", "allow-site")  # the user answered a request
    assert [r[:2] for r in _rows(page)] == [["other.test", "navigate"]]
    harbor.end_session()
    assert page.table.rowCount() == 1  # a saved site grant outlives the session


def test_a_change_on_a_worker_thread_refreshes_on_the_gui_thread(qtbot: Any, tmp_path: Path) -> None:
    bus = EventBus()
    harbor = Harbor.in_folder(tmp_path, bus=bus)
    page = _page(qtbot, harbor, bus)
    worker = threading.Thread(target=harbor.apply_decision, args=("navigate", "far.test", "allow-site"))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: page.table.rowCount() == 1, timeout=3000)


def test_a_closed_page_stops_listening(qtbot: Any, tmp_path: Path) -> None:
    bus = EventBus()
    harbor = Harbor.in_folder(tmp_path, bus=bus)
    page = _page(qtbot, harbor, bus)
    page.deleteLater()
    qtbot.waitUntil(lambda: not bus._subscribers, timeout=3000)
    harbor.apply_decision("navigate", "other.test", "allow-site")  # nothing left to refresh: no error
