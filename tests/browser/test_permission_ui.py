"""The in-chat permission panel and the Site permissions page, as a user works them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.events import PermissionRequest
from jawad_desktop.core.harbor import Harbor
from jawad_desktop.ui.grants_page import GrantsPage
from jawad_desktop.ui.permission_panel import PermissionPanel


def _request(n: int, *, critical: bool = False, from_page: bool = False) -> PermissionRequest:
    return PermissionRequest(id=f"perm_{n}", tool_name="click_element", parameters={"index": n}, site="shop.test",
                             permission_level="interact", reason="Jawad wants to use 'click_element' on shop.test.",
                             timestamp=0, critical=critical, from_page_content=from_page,
                             element_hint='BUTTON "Place order" -> #place')


def test_panel_shows_the_request_and_each_decision(qtbot: Any) -> None:
    panel = PermissionPanel(timeout_s=60)
    qtbot.addWidget(panel)
    decided: list[tuple[str, str]] = []
    panel.decided.connect(lambda rid, d: decided.append((rid, d)))
    decisions = ["allow-once", "allow-site", "allow-session", "deny", "deny-all"]
    for n, decision in enumerate(decisions):
        panel.show_request(_request(n, critical=n == 0, from_page=n == 1))
        assert panel.isVisible()
        assert "click_element" in panel.title.text() and "shop.test" in panel.title.text()
        assert "Place order" in panel.details.text() and "&quot;index&quot;: " in panel.details.text()
        if n == 0:
            assert "purchase" in panel.flags.text()
        if n == 1:
            assert "comes from the web page" in panel.flags.text()
        qtbot.mouseClick(panel.buttons[decision], Qt.MouseButton.LeftButton)
    assert decided == [(f"perm_{n}", d) for n, d in enumerate(decisions)]
    assert not panel.isVisible()


def test_requests_queue_and_keyboard_answers(qtbot: Any) -> None:
    panel = PermissionPanel(timeout_s=60)
    qtbot.addWidget(panel)
    panel.show()
    decided: list[tuple[str, str]] = []
    panel.decided.connect(lambda rid, d: decided.append((rid, d)))
    panel.show_request(_request(1))
    panel.show_request(_request(2))
    assert "1 more waiting" in panel.countdown.text()
    panel.buttons["allow-once"].setFocus()
    qtbot.keyClick(panel.buttons["allow-once"], Qt.Key.Key_Escape)  # Escape denies
    assert decided == [("perm_1", "deny")]
    assert panel.current is not None and panel.current.id == "perm_2"
    assert panel.buttons["deny-all"].text() == "Deny &all"  # Alt+A
    panel.buttons["allow-session"].animateClick()
    qtbot.waitUntil(lambda: len(decided) == 2)
    assert decided[-1] == ("perm_2", "allow-session")


def test_no_answer_in_time_shows_denied(qtbot: Any) -> None:
    panel = PermissionPanel(timeout_s=0.5)
    qtbot.addWidget(panel)
    decided: list[tuple[str, str]] = []
    panel.decided.connect(lambda rid, d: decided.append((rid, d)))
    panel.show_request(_request(1))
    qtbot.waitUntil(lambda: "denied" in panel.countdown.text(), timeout=3000)
    assert panel.current is None and not panel.buttons["allow-once"].isEnabled()
    assert decided == []  # the gate denies it on its side; the panel never answers late
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=3000)


def test_grants_page_lists_and_revokes(qtbot: Any, tmp_path: Path) -> None:
    harbor = Harbor.in_folder(tmp_path)
    harbor.apply_decision("click_element", "shop.test", "allow-site", level="interact")
    harbor.apply_decision("fill_form", "shop.test", "allow-session", level="interact")
    page = GrantsPage(harbor)
    qtbot.addWidget(page)
    def cell(r: int, c: int) -> str:
        item = page.table.item(r, c)
        return item.text() if item is not None else ""

    rows = [[cell(r, c) for c in range(3)] for r in range(page.table.rowCount())]
    assert rows == [["shop.test", "click_element", "interact"], ["shop.test", "fill_form", "interact"]]
    assert cell(0, 3) == "saved" and cell(1, 3) == "until Jawad closes"
    page.table.selectRow(0)
    qtbot.mouseClick(page.revoke_button, Qt.MouseButton.LeftButton)
    assert page.table.rowCount() == 1
    assert Harbor.in_folder(tmp_path).grants() == []  # gone from disk too
    harbor.apply_decision("navigate", "other.test", "allow-site")
    assert page.table.rowCount() == 2  # refreshed by Harbor's change notice
    qtbot.mouseClick(page.revoke_all_button, Qt.MouseButton.LeftButton)
    assert page.table.rowCount() == 0 and page.empty.isVisibleTo(page)
