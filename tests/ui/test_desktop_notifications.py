"""Desktop notifications, end to end: a turn through the real agent and a scripted model ends
while the window is hidden, and the desktop's notification daemon (a real D-Bus service on the
test session's private bus) receives the notification; clicking it brings the window back. A
short turn, or notifications turned off, send nothing; the agent waiting for permission does."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text
from tests.ui.desktop_bus import NotificationDaemon


@pytest.fixture
def daemon(secret_store: Any) -> Iterator[NotificationDaemon]:
    """A notification daemon on the session bus the tests run on (the private one ``secret_store`` starts)."""
    service = NotificationDaemon()
    yield service
    service.close()


def _window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.settings.desktop.notify_after_s = 0.3
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.desktop is not None, timeout=10_000)
    return window


def _turn(qtbot: Any, window: MainWindow, message: str) -> None:
    window.presenter.send(message)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)


def test_a_long_turn_ending_while_hidden_is_notified_and_a_click_shows_the_window(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any, daemon: NotificationDaemon
) -> None:
    window = _window(make_window, profile_dir, scripted_model, qtbot)
    assert window.desktop is not None
    notifier = window.desktop.notifier
    window.hide()
    scripted_model.script(text("The report is ready: three offers compared.", delay_s=0.6))
    with qtbot.waitSignal(notifier.notified, timeout=60_000) as shown:
        window.presenter.send("Compare the three offers")
    assert shown.args == ["Jawad Desktop finished", "The report is ready: three offers compared."]
    qtbot.waitUntil(lambda: len(daemon.received) == 1, timeout=10_000)
    app_name, _replaces, _icon, summary, body, actions, _hints, _timeout = daemon.received[0]
    assert (app_name, summary, body) == ("Jawad Desktop", "Jawad Desktop finished",
                                         "The report is ready: three offers compared.")
    assert actions[0] == "default"  # what a click on the notification invokes
    assert not window.isVisible()
    daemon.click(1)
    qtbot.waitUntil(window.isVisible, timeout=10_000)

    # A quick answer is not worth a notification.
    window.hide()
    scripted_model.script(text("Yes."))
    window.ctx.settings.desktop.notify_after_s = 30
    with qtbot.assertNotEmitted(notifier.notified, wait=200):
        _turn(qtbot, window, "Still there?")

    # The agent waiting for the user always is.
    with qtbot.waitSignal(notifier.notified, timeout=5000) as shown:
        window.ctx.bus.emit(ev.PermissionRequest(
            id="p1", tool_name="click", parameters={"element": 3}, site="shop.example", permission_level="interact",
            reason="Add the cheapest offer to the cart", timestamp=int(time.time())))
    assert shown.args == ["Jawad Desktop needs your permission",
                          "click on shop.example: Add the cheapest offer to the cart"]
    qtbot.waitUntil(lambda: len(daemon.received) == 2, timeout=10_000)

    # Turned off in Settings: nothing.
    window.ctx.settings.desktop.notifications = False
    with qtbot.assertNotEmitted(notifier.notified, wait=200):
        window.ctx.bus.emit(ev.HandOverRequested(id="h1", reason="Log in to the shop"))
    assert len(daemon.received) == 2


def test_a_body_is_plain_text_not_markup(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any, daemon: NotificationDaemon
) -> None:
    """A model's answer (or a page's words in a reason) is shown as it reads: the daemon gets it escaped,
    so a daemon that reads bodies as markup shows the characters instead of bold text, links or images."""
    window = _window(make_window, profile_dir, scripted_model, qtbot)
    assert window.desktop is not None
    window.hide()
    answer = '<b>Paid</b> & <a href="http://evil.test/">confirm</a> <img src="http://evil.test/t.png">'
    scripted_model.script(text(answer, delay_s=0.6))
    with qtbot.waitSignal(window.desktop.notifier.notified, timeout=60_000):
        window.presenter.send("Pay the bill")
    qtbot.waitUntil(lambda: len(daemon.received) == 1, timeout=10_000)
    body = daemon.received[0][4]
    assert body == ('&lt;b&gt;Paid&lt;/b&gt; &amp; &lt;a href="http://evil.test/"&gt;confirm&lt;/a&gt; '
                    '&lt;img src="http://evil.test/t.png"&gt;'), body
