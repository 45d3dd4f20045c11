"""A private D-Bus session bus, and a notification daemon on it, for the desktop tests
(notifications and the Wayland portal's absence) — real ``dbus-daemon`` and real D-Bus messages."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jeepney import DBusAddress, message_bus, new_method_return, new_signal
from jeepney.io.blocking import open_dbus_connection

NOTIFICATIONS = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"


@contextmanager
def private_bus() -> Iterator[str]:
    """A fresh ``dbus-daemon`` session bus; yields its address (set DBUS_SESSION_BUS_ADDRESS to it)."""
    assert shutil.which("dbus-daemon"), "dbus-daemon not installed: run scripts/test (it installs dbus)"
    root = Path(tempfile.mkdtemp(prefix="jawad-bus-"))
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
         f"--address=unix:path={root}/bus"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert daemon.stdout is not None
        address = daemon.stdout.readline().strip()
        assert address, "dbus-daemon did not start"
        yield address
    finally:
        daemon.terminate()
        try:
            daemon.wait(5)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        shutil.rmtree(root, ignore_errors=True)


class NotificationDaemon:
    """``org.freedesktop.Notifications`` on the session bus: records each Notify call and can
    click one (the ``ActionInvoked`` signal a real daemon sends)."""

    def __init__(self) -> None:
        self.received: list[tuple[Any, ...]] = []
        self._conn = open_dbus_connection(bus="SESSION")
        reply = self._conn.send_and_get_reply(message_bus.RequestName(NOTIFICATIONS), timeout=5)
        assert reply.body[0] == 1, f"could not own {NOTIFICATIONS}: {reply.body}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                message = self._conn.receive(timeout=0.1)
            except TimeoutError:
                continue
            except OSError:
                return
            fields = {key.name: value for key, value in message.header.fields.items()}
            if message.header.message_type.name == "method_call" and fields.get("member") == "Notify":
                self.received.append(tuple(message.body))
                self._conn.send(new_method_return(message, "u", (len(self.received),)))

    def click(self, notification_id: int) -> None:
        emitter = DBusAddress(NOTIFICATIONS_PATH, interface=NOTIFICATIONS)
        self._conn.send(new_signal(emitter, "ActionInvoked", "us", (notification_id, "default")))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._conn.close()


PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"


class GlobalShortcutsPortal:
    """The part of xdg-desktop-portal the hotkeys use, on the session bus: the GlobalShortcuts
    interface (CreateSession, BindShortcuts, each answered by a Request's Response signal, the
    Activated and Deactivated signals) and its version property. ``bound`` records what was asked."""

    def __init__(self) -> None:
        self.bound: list[tuple[str, dict[str, Any]]] = []
        self.session = ""
        self._conn = open_dbus_connection(bus="SESSION")
        reply = self._conn.send_and_get_reply(message_bus.RequestName(PORTAL), timeout=5)
        assert reply.body[0] == 1, f"could not own {PORTAL}: {reply.body}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _respond(self, message: Any, sender: str, token: str, results: dict[str, Any]) -> None:
        path = f"{PORTAL_PATH}/request/{sender}/{token}"
        self._conn.send(new_method_return(message, "o", (path,)))
        request = DBusAddress(path, interface="org.freedesktop.portal.Request")
        self._conn.send(new_signal(request, "Response", "ua{sv}", (0, results)))

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                message = self._conn.receive(timeout=0.1)
            except TimeoutError:
                continue
            except OSError:
                return
            if message.header.message_type.name != "method_call":
                continue
            fields = {key.name: value for key, value in message.header.fields.items()}
            member, sender = fields.get("member"), str(fields.get("sender", "")).lstrip(":").replace(".", "_")
            if member == "Get" and tuple(message.body) == (SHORTCUTS, "version"):
                self._conn.send(new_method_return(message, "v", (("u", 1),)))
            elif member == "CreateSession":
                options = message.body[0]
                self.session = f"{PORTAL_PATH}/session/{sender}/{options['session_handle_token'][1]}"
                self._respond(message, sender, options["handle_token"][1], {"session_handle": ("s", self.session)})
            elif member == "BindShortcuts":
                _session, shortcuts, _parent, options = message.body
                self.bound = [(name, dict(info)) for name, info in shortcuts]
                answer = [(name, {"description": info["description"],
                                  "trigger_description": ("s", info["preferred_trigger"][1])})
                          for name, info in shortcuts]
                self._respond(message, sender, options["handle_token"][1], {"shortcuts": ("a(sa{sv})", answer)})
            elif member == "Close":
                self._conn.send(new_method_return(message))

    def press(self, shortcut_id: str, *, down: bool = True) -> None:
        emitter = DBusAddress(PORTAL_PATH, interface=SHORTCUTS)
        signal = "Activated" if down else "Deactivated"
        self._conn.send(new_signal(emitter, signal, "osta{sv}", (self.session, shortcut_id, 1, {})))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._conn.close()
