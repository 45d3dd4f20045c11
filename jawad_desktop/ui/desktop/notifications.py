"""Desktop notifications: a long turn ended, or the agent waits for the user (a permission, a plan to
approve, a page to take over) while the window is hidden, minimised or in the background.

``DesktopNotifier`` listens to the core's events through the ``EventBridge`` and decides; it hands a
notification to the tray icon (``QSystemTrayIcon.showMessage``) where there is one, else to the
desktop's notification daemon over D-Bus (``DBusNotifications``: ``org.freedesktop.Notifications``
with jeepney, on a thread of its own, Qt-free). Clicking the notification emits ``clicked`` (the
shell raises the window). A body is plain text (a model's answer, a page's words): many daemons read
bodies as markup (``<b>``, ``<a href>``, ``<img>``), so ``&``, ``<`` and ``>`` are escaped on the way.
"""

from __future__ import annotations

import contextlib
import html
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QSystemTrayIcon, QWidget

from jawad_desktop import APP_ID, APP_NAME
from jawad_desktop.core import events as ev

if TYPE_CHECKING:
    from jawad_desktop.core.config.settings import DesktopSettings
    from jawad_desktop.ui.base.bridge import EventBridge

log = logging.getLogger("jawad.ui.notifications")

NOTIFICATIONS_BUS = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
SHOW_MS = 10_000
BODY_CHARS = 160


class DBusNotifications:
    """Notifications through the desktop's notification daemon, sent and watched on one thread.
    ``on_clicked`` is called (on that thread) when the user clicks one of ours."""

    def __init__(self, on_clicked: Callable[[], None], *, bus: str = "SESSION") -> None:
        self._on_clicked = on_clicked
        self._bus = bus
        self._outbox: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._ids: set[int] = set()
        self.problem = ""  # why notifications cannot be shown, once that is known

    def notify(self, title: str, body: str) -> None:
        if self._thread is None or not self._thread.is_alive():  # a daemon may have started since
            self._thread = threading.Thread(target=self._run, name="jawad-notifications", daemon=True)
            self._thread.start()
        self._outbox.put((title, body))

    def stop(self) -> None:
        if self._thread is not None:
            self._outbox.put(None)
            self._thread.join(2.0)
            self._thread = None

    def _run(self) -> None:
        from jeepney import DBusAddress, MatchRule, message_bus, new_method_call
        from jeepney.io.blocking import open_dbus_connection

        try:
            conn = open_dbus_connection(bus=self._bus)
        except Exception as exc:
            self.problem = f"no session bus: {exc}"
            log.info("desktop notifications unavailable: %s", self.problem)
            return
        with conn:
            owner = conn.send_and_get_reply(message_bus.NameHasOwner(NOTIFICATIONS_BUS), timeout=5).body[0]
            activatable = conn.send_and_get_reply(message_bus.ListActivatableNames(), timeout=5).body[0]
            if not owner and NOTIFICATIONS_BUS not in activatable:
                self.problem = "no notification daemon is running"
                log.info("desktop notifications unavailable: %s", self.problem)
                return
            rule = MatchRule(type="signal", interface=NOTIFICATIONS_BUS, member="ActionInvoked",
                             path=NOTIFICATIONS_PATH)
            conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=5)
            daemon = DBusAddress(NOTIFICATIONS_PATH, bus_name=NOTIFICATIONS_BUS, interface=NOTIFICATIONS_BUS)
            with conn.filter(rule) as invoked:
                while True:
                    try:
                        item = self._outbox.get_nowait()
                    except queue.Empty:
                        item = ()  # type: ignore[assignment]
                    if item is None:
                        return
                    if item:
                        title, body = item
                        message = new_method_call(daemon, "Notify", "susssasa{sv}i", (
                            APP_NAME, 0, APP_ID, title, body, ["default", f"Open {APP_NAME}"],
                            {"desktop-entry": ("s", APP_ID)}, SHOW_MS))
                        try:
                            reply = conn.send_and_get_reply(message, timeout=5)
                            self._ids.add(int(reply.body[0]))
                        except Exception as exc:
                            log.warning("the notification was not shown: %s", exc)
                        continue
                    try:
                        signal = conn.recv_until_filtered(invoked, timeout=0.2)
                    except TimeoutError:
                        continue
                    notification_id = signal.body[0]
                    if notification_id in self._ids:
                        self._ids.discard(notification_id)
                        self._on_clicked()


class DesktopNotifier(QObject):
    """Decides when to notify and hands the notification to the tray or the daemon.

    ``notified(title, body)``: one was handed to the desktop. ``clicked()``: the user clicked one.
    """

    notified = Signal(str, str)
    clicked = Signal()
    _clicked_elsewhere = Signal()  # from the D-Bus thread

    def __init__(self, bridge: EventBridge, settings: Callable[[], DesktopSettings], window: QWidget,
                 tray: QSystemTrayIcon | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self._window = window
        self._tray = tray
        self._started: dict[str, float] = {}
        self._dbus: DBusNotifications | None = None
        self._clicked_elsewhere.connect(self.clicked)
        if tray is not None:
            tray.messageClicked.connect(self.clicked)
        bridge.turn_started.connect(self._turn_started)
        bridge.turn_finished.connect(self._turn_finished)
        bridge.permission_request.connect(self._permission)
        bridge.plan_proposed.connect(self._plan)
        bridge.hand_over_requested.connect(self._hand_over)

    def window_away(self) -> bool:
        """The user is not looking at the window: hidden, minimised or another window is active."""
        window = self._window
        return not window.isVisible() or window.isMinimized() or not window.isActiveWindow()

    def notify(self, title: str, body: str) -> None:
        """Show it now, through the tray where it is shown, else through the notification daemon.
        ``body`` is plain text; it goes out escaped (``plain_body``)."""
        if self._tray is not None and self._tray.isVisible():
            # Qt's tray hands the message to the same daemons on Linux (or to a label that takes markup).
            self._tray.showMessage(title, plain_body(body), QSystemTrayIcon.MessageIcon.Information, SHOW_MS)
        else:
            if self._dbus is None:
                self._dbus = DBusNotifications(self._clicked_elsewhere.emit)
            self._dbus.notify(title, plain_body(body))
        log.info("notified: %s", title)
        self.notified.emit(title, body)

    def _maybe(self, title: str, body: str) -> None:
        if self._settings().notifications and self.window_away():
            self.notify(title, _short(body))

    def _turn_started(self, event: ev.TurnStarted) -> None:
        self._started[event.run_id] = time.monotonic()

    def _turn_finished(self, event: ev.TurnFinished) -> None:
        started = self._started.pop(event.run_id, None)
        if started is None or time.monotonic() - started < self._settings().notify_after_s:
            return
        response = event.response
        if response.is_error:
            self._maybe(f"{APP_NAME} could not finish", response.content or event.user_text)
        elif response.interrupted:
            self._maybe(f"{APP_NAME} stopped", event.user_text)
        else:
            self._maybe(f"{APP_NAME} finished", response.content or event.user_text)

    def _permission(self, event: ev.PermissionRequest) -> None:
        where = f" on {event.site}" if event.site else ""
        self._maybe(f"{APP_NAME} needs your permission", f"{event.tool_name}{where}: {event.reason}")

    def _plan(self, event: ev.PlanProposed) -> None:
        self._maybe(f"{APP_NAME} has a plan for you to approve", event.request)

    def _hand_over(self, event: ev.HandOverRequested) -> None:
        self._maybe(f"{APP_NAME} needs you to take over the page", event.reason)

    def dispose(self) -> None:
        if self._dbus is not None:
            with contextlib.suppress(Exception):
                self._dbus.stop()


def plain_body(text: str) -> str:
    """Plain text as a notification body: ``&``, ``<`` and ``>`` escaped, since the desktop
    notification specification lets a daemon read the body as markup (links, images, bold)."""
    return html.escape(text, quote=False)


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= BODY_CHARS else line[: BODY_CHARS - 1] + "…"

