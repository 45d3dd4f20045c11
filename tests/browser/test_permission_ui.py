"""The in-chat permission panel, as a user works it: the gate's clock and its settling close it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.events import PermissionRequest, PermissionSettled, now_ms
from jawad_desktop.ui.prompts.permission_panel import PermissionPanel


def _request(n: int, *, critical: bool = False, from_page: bool = False, timeout_s: float = 60) -> PermissionRequest:
    return PermissionRequest(id=f"perm_{n}", tool_name="click_element", parameters={"index": n}, site="shop.test",
                             permission_level="interact", reason="Jawad wants to use 'click_element' on shop.test.",
                             timestamp=now_ms(), critical=critical, from_page_content=from_page,
                             element_hint='BUTTON "Place order" -> #place', timeout_s=timeout_s)


def test_panel_shows_the_request_and_each_decision(qtbot: Any) -> None:
    panel = PermissionPanel()
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
    panel = PermissionPanel()
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


def test_the_gates_clock_is_shown_and_its_settling_closes_the_panel(qtbot: Any) -> None:
    panel = PermissionPanel()
    qtbot.addWidget(panel)
    decided: list[tuple[str, str]] = []
    panel.decided.connect(lambda rid, d: decided.append((rid, d)))
    panel.show_request(_request(1, timeout_s=30))
    assert "Denied automatically in 30 s" in panel.countdown.text()  # from the request's own deadline
    panel.show_request(_request(2))
    panel.show_request(_request(3))
    # The gate timed the first one out: said for a moment, then the next one.
    panel.settle(PermissionSettled(id="perm_1", outcome="timeout"))
    assert "No answer in time" in panel.countdown.text() and not panel.buttons["allow-once"].isEnabled()
    assert decided == []  # the gate denied it on its side; the panel never answers late
    qtbot.waitUntil(lambda: panel.current is not None and panel.current.id == "perm_2", timeout=3000)
    # Stop settled the rest: the one shown closes at once, the one waiting never shows.
    panel.settle(PermissionSettled(id="perm_3", outcome="stopped"))
    panel.settle(PermissionSettled(id="perm_2", outcome="stopped"))
    assert panel.current is None and not panel.isVisible() and not panel.queue
    assert decided == []
