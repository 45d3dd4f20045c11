"""Global hotkeys: keys that reach Jawad while another application has the focus.

This module owns the platform side, with no Qt import: which mechanism this desktop offers
(``choose_backend``), the X11 one (``X11Hotkeys``: ``XGrabKey`` on the root window through
python-xlib, its events read on a background thread) and the Wayland one (``PortalHotkeys``: the
xdg-desktop-portal ``org.freedesktop.portal.GlobalShortcuts`` interface over D-Bus, with jeepney,
also on a background thread). Where neither works (Wayland without the portal, no display at all)
``choose_backend`` says why and what to do instead, for the Settings page.

Hotkeys are named ("quick_ask", "talk") and written as Qt key-sequence text ("Ctrl+Alt+Space").
A backend calls ``on_event(name, pressed)`` from its thread: ``pressed`` True when the key goes
down, False when it is released (X11 reports releases reliably while the grab is active; the
portal's ``Deactivated`` signal does where the desktop sends it). ``ui.desktop.shell`` turns the
calls into Qt signals.
"""

from __future__ import annotations

import abc
import contextlib
import logging
import os
import secrets
import select
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

log = logging.getLogger("jawad.ui.hotkeys")

BackendKind = Literal["x11", "portal", "none"]
EventCallback = Callable[[str, bool], None]

# What the Settings page says when no mechanism works, and what to do instead.
FALLBACK_ADVICE = (
    "Instead, bind a key in your desktop's own keyboard settings to a terminal running "
    "`jawad ask`, or use the tray icon's Quick ask."
)

_MODIFIERS = {"ctrl": "Control", "control": "Control", "alt": "Alt", "shift": "Shift", "meta": "Super",
              "super": "Super", "win": "Super"}
# Qt's key names that are not X keysym names (letters are lower-cased separately).
_KEYSYM_NAMES = {
    "space": "space", "esc": "Escape", "escape": "Escape", "return": "Return", "enter": "Return",
    "tab": "Tab", "backspace": "BackSpace", "del": "Delete", "delete": "Delete", "ins": "Insert",
    "insert": "Insert", "pgup": "Prior", "pgdown": "Next", "home": "Home", "end": "End", "left": "Left",
    "right": "Right", "up": "Up", "down": "Down", "pause": "Pause", "print": "Print",
    ",": "comma", ".": "period", "/": "slash", ";": "semicolon", "'": "apostrophe", "[": "bracketleft",
    "]": "bracketright", "-": "minus", "=": "equal", "`": "grave", "\\": "backslash",
}


class HotkeyError(Exception):
    """A hotkey that cannot be set up; the message is for the user."""


@dataclass(frozen=True, slots=True)
class KeyCombination:
    """A parsed hotkey: modifier names ("Control", "Alt", "Shift", "Super") and an X keysym name."""

    modifiers: frozenset[str]
    keysym: str
    text: str  # as the user wrote it, for messages

    def portal_trigger(self) -> str:
        """The XDG shortcuts format the portal's ``preferred_trigger`` takes ("CTRL+ALT+space")."""
        names = {"Control": "CTRL", "Alt": "ALT", "Shift": "SHIFT", "Super": "LOGO"}
        order = ("Control", "Alt", "Shift", "Super")
        return "+".join([names[m] for m in order if m in self.modifiers] + [self.keysym])


def parse_combination(text: str) -> KeyCombination:
    """``"Ctrl+Alt+Space"`` → Control, Alt and ``space``. Raises ``HotkeyError`` for anything else
    than modifiers and one key, or a hotkey without Ctrl, Alt or Super (it would steal typing)."""
    cleaned = text.strip()
    if not cleaned:
        raise HotkeyError("No key is set.")
    if "," in cleaned.rstrip(","):  # a multi-chord sequence ("Ctrl+K, Ctrl+C")
        raise HotkeyError(f"{cleaned} is a sequence of keys; a global hotkey is one combination.")
    parts = cleaned.split("+")
    if cleaned.endswith("++"):  # "Ctrl++": the key is "+"
        parts = [*parts[:-2], "+"]
    *mods, key = parts
    modifiers: set[str] = set()
    for mod in mods:
        name = _MODIFIERS.get(mod.strip().lower())
        if name is None:
            raise HotkeyError(f"{mod!r} in {cleaned} is not a modifier (Ctrl, Alt, Shift or Meta).")
        modifiers.add(name)
    key = key.strip()
    if not key:
        raise HotkeyError(f"{cleaned} has no key.")
    if not modifiers & {"Control", "Alt", "Super"}:
        raise HotkeyError(f"{cleaned} needs Ctrl, Alt or Meta: on its own it would take the key from every app.")
    keysym = _KEYSYM_NAMES.get(key.lower())
    if keysym is None:
        keysym = key.lower() if len(key) == 1 else key  # "M" → "m"; "F5" stays "F5"
    return KeyCombination(frozenset(modifiers), keysym, cleaned)


def _parsed(hotkeys: Mapping[str, str], problems: dict[str, str]) -> Iterator[tuple[str, KeyCombination]]:
    """Each hotkey's name and key combination; one that does not parse goes to ``problems``."""
    for name, text in hotkeys.items():
        try:
            yield name, parse_combination(text)
        except HotkeyError as exc:
            problems[name] = str(exc)


@dataclass(frozen=True, slots=True)
class BackendChoice:
    """Which mechanism this session can use; ``note`` says why none when ``kind`` is "none"."""

    kind: BackendKind
    note: str = ""


def choose_backend(environ: Mapping[str, str] | None = None, *, qt_platform: str = "",
                   portal_available: Callable[[], bool] | None = None) -> BackendChoice:
    """X11 where the session is X11; the portal on Wayland where it offers GlobalShortcuts;
    else "none" with the reason. ``qt_platform``: the window's Qt platform ("offscreen" is no desktop)."""
    env = os.environ if environ is None else environ
    if qt_platform in ("offscreen", "minimal", "vnc"):
        return BackendChoice("none", f"This window is not on a desktop (Qt platform \"{qt_platform}\"), so "
                                     "there are no global hotkeys.")
    if qt_platform in ("windows", "cocoa"):  # X11 and the Wayland portal only, for now
        system = "Windows" if qt_platform == "windows" else "macOS"
        return BackendChoice("none", f"Global hotkeys are not available on {system} yet. " + FALLBACK_ADVICE)
    wayland = bool(env.get("WAYLAND_DISPLAY")) or env.get("XDG_SESSION_TYPE") == "wayland" or qt_platform == "wayland"
    if wayland:
        check = portal_available or portal_has_global_shortcuts
        if check():
            return BackendChoice("portal")
        return BackendChoice("none", "This Wayland desktop does not offer global shortcuts to applications "
                                     "(no xdg-desktop-portal GlobalShortcuts interface). " + FALLBACK_ADVICE)
    if env.get("DISPLAY"):
        return BackendChoice("x11")
    return BackendChoice("none", "There is no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so "
                                 "global hotkeys cannot be used. " + FALLBACK_ADVICE)


class HotkeyBackend(Protocol):
    def start(self, hotkeys: Mapping[str, str]) -> dict[str, str]:
        """Register ``{name: key text}``; returns ``{name: problem}`` for the ones that failed."""
        ...

    def stop(self) -> None: ...


class _KeyReader(abc.ABC):
    """What both backends share: the event callback and the thread that reads the key events
    (``_run``) from ``_source`` (the X display, the bus connection), started once keys are
    registered; stopping joins it, then lets the keys go (``_release``) and the source with them."""

    def __init__(self, on_event: EventCallback) -> None:
        self._on_event = on_event
        self._source: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join(2.0)
        source, self._source = self._source, None
        if source is not None:
            self._release(source)

    def _start_reading(self, source: Any, thread_name: str, registered: str) -> None:
        self._source = source
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()
        log.info("%s", registered)

    @abc.abstractmethod
    def _run(self) -> None:
        """Read key events from ``_source`` until ``_stop`` is set (the backend's own loop)."""

    @abc.abstractmethod
    def _release(self, source: Any) -> None:
        """Let the registered keys go, then close ``source``."""


# --- X11 -------------------------------------------------------------------------------------------

class X11Hotkeys(_KeyReader):
    """Hotkeys grabbed on the X server's root window (``XGrabKey``), for every combination of
    Caps Lock and Num Lock, read on a thread of their own. A key another client already grabbed
    (X's BadAccess) is reported, not raised."""

    def __init__(self, on_event: EventCallback, display_name: str | None = None) -> None:
        super().__init__(on_event)
        self._display_name = display_name
        self._grabs: dict[tuple[int, int], str] = {}  # (keycode, modifier mask) → name
        self._ignored_mask = 0  # Caps Lock | Num Lock
        self._relevant_mask = 0
        self._extra: list[int] = [0]  # the lock combinations each hotkey is grabbed with
        self._held: set[str] = set()

    def start(self, hotkeys: Mapping[str, str]) -> dict[str, str]:
        from Xlib import XK, X, error
        from Xlib.display import Display

        self.stop()
        try:
            display = Display(self._display_name)
        except Exception as exc:  # no server, no authority, a refused connection
            return {name: f"Cannot reach the X server: {exc}" for name in hotkeys}
        root = display.screen().root
        masks = {"Control": X.ControlMask, "Alt": X.Mod1Mask, "Shift": X.ShiftMask, "Super": X.Mod4Mask}
        numlock = _numlock_mask(display)
        self._ignored_mask = X.LockMask | numlock
        self._relevant_mask = X.ControlMask | X.Mod1Mask | X.ShiftMask | X.Mod4Mask
        extra = [0, X.LockMask, numlock, X.LockMask | numlock] if numlock else [0, X.LockMask]
        problems: dict[str, str] = {}
        grabs: dict[tuple[int, int], str] = {}
        for name, combo in _parsed(hotkeys, problems):
            keysym = XK.string_to_keysym(combo.keysym)
            keycode = display.keysym_to_keycode(keysym) if keysym else 0
            if not keycode:
                problems[name] = f"{combo.text}: this keyboard has no such key."
                continue
            mask = 0
            for modifier in combo.modifiers:
                mask |= masks[modifier]
            if (keycode, mask) in grabs:
                problems[name] = f"{combo.text} is already used by another Jawad hotkey."
                continue
            catcher = error.CatchError(error.BadAccess)
            for more in extra:
                root.grab_key(keycode, mask | more, True, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher)
            display.sync()
            if catcher.get_error() is not None:
                for more in extra:  # the combinations that did succeed
                    root.ungrab_key(keycode, mask | more)
                display.sync()
                problems[name] = (f"{combo.text} is already taken by another application: choose another "
                                  "key in Settings → Tray and hotkeys.")
                continue
            grabs[(keycode, mask)] = name
        if not grabs:
            display.close()
            return problems
        self._grabs, self._extra = grabs, extra
        self._start_reading(display, "jawad-hotkeys-x11", f"X11 hotkeys grabbed: {sorted(grabs.values())}")
        return problems

    def _release(self, display: Any) -> None:
        with contextlib.suppress(Exception):
            root = display.screen().root
            for keycode, mask in self._grabs:
                for more in self._extra:
                    root.ungrab_key(keycode, mask | more)
            display.sync()
        with contextlib.suppress(Exception):
            display.close()
        self._grabs = {}
        self._held.clear()

    def _run(self) -> None:
        from Xlib import X, error

        display, stop = self._source, self._stop
        assert display is not None
        try:
            while not stop.is_set():
                if not display.pending_events():
                    select.select([display.fileno()], [], [], 0.2)
                    continue
                event = display.next_event()
                if event.type not in (X.KeyPress, X.KeyRelease):
                    continue
                name = self._grabs.get((event.detail, event.state & self._relevant_mask))
                if name is None:
                    continue
                if event.type == X.KeyRelease and self._is_auto_repeat(display, event):
                    continue
                pressed = event.type == X.KeyPress
                if pressed == (name in self._held):  # a repeated press, or a release never pressed
                    continue
                (self._held.add if pressed else self._held.discard)(name)
                self._on_event(name, pressed)
        except (error.ConnectionClosedError, OSError) as exc:
            if not stop.is_set():
                log.warning("X11 hotkeys stopped: %s", exc)

    @staticmethod
    def _is_auto_repeat(display: Any, release: Any) -> bool:
        """X sends a held key's auto-repeat as a release and a press with the same time: drop both."""
        from Xlib import X

        if not display.pending_events():
            return False
        queue = display.display  # python-xlib's protocol side: peek at the next event without taking it
        with queue.event_queue_write_lock:
            following = queue.event_queue[0] if queue.event_queue else None
        if (following is not None and following.type == X.KeyPress and following.detail == release.detail
                and following.time == release.time):
            display.next_event()
            return True
        return False


def _numlock_mask(display: Any) -> int:
    """The modifier mask Num Lock sets (usually Mod2), found from the modifier mapping."""
    from Xlib import XK

    numlock = display.keysym_to_keycode(XK.string_to_keysym("Num_Lock"))
    if not numlock:
        return 0
    for index, keycodes in enumerate(display.get_modifier_mapping()):
        if numlock in keycodes:
            return 1 << index
    return 0


# --- Wayland: the desktop portal -------------------------------------------------------------------

PORTAL_BUS = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS_INTERFACE = "org.freedesktop.portal.GlobalShortcuts"
REQUEST_INTERFACE = "org.freedesktop.portal.Request"
PORTAL_TIMEOUT_S = 60.0  # BindShortcuts may show the desktop's own dialog and wait for the user


def portal_has_global_shortcuts(timeout: float = 2.0) -> bool:
    """Whether the session bus has a portal with the GlobalShortcuts interface."""
    try:
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
    except ImportError:
        return False
    try:
        with open_dbus_connection(bus="SESSION") as conn:
            props = DBusAddress(PORTAL_PATH, bus_name=PORTAL_BUS, interface="org.freedesktop.DBus.Properties")
            reply = conn.send_and_get_reply(new_method_call(props, "Get", "ss", (SHORTCUTS_INTERFACE, "version")),
                                            timeout=timeout)
            return reply.header.message_type.name == "method_return"
    except Exception as exc:  # no session bus, no portal, a timeout: no portal either way
        log.debug("no GlobalShortcuts portal: %s", exc)
        return False


class PortalHotkeys(_KeyReader):
    """Hotkeys through ``org.freedesktop.portal.GlobalShortcuts``: a session is created, the
    shortcuts bound (the desktop may ask the user to confirm or change the keys: the portal's
    ``preferred_trigger`` is a wish), then ``Activated``/``Deactivated`` are read on a thread."""

    def __init__(self, on_event: EventCallback, *, bus: str = "SESSION") -> None:
        super().__init__(on_event)
        self._bus = bus
        self._session = ""
        self.bound: dict[str, str] = {}  # name → the trigger the desktop reports

    def start(self, hotkeys: Mapping[str, str]) -> dict[str, str]:
        from jeepney.io.blocking import open_dbus_connection

        self.stop()
        problems: dict[str, str] = {}
        wanted: list[tuple[str, dict[str, tuple[str, Any]]]] = []
        for name, combo in _parsed(hotkeys, problems):
            description = {"quick_ask": "Quick ask", "talk": "Push to talk"}.get(name, name)
            wanted.append((name, {"description": ("s", f"Jawad: {description}"),
                                  "preferred_trigger": ("s", combo.portal_trigger())}))
        if not wanted:
            return problems
        conn: Any = None
        try:
            conn = open_dbus_connection(bus=self._bus)
            self._session = self._create_session(conn)
            results = self._request(conn, "BindShortcuts", "oa(sa{sv})sa{sv}", (self._session, wanted, "", {}))
        except Exception as exc:
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()
            return {name: f"The desktop portal refused the global shortcuts: {exc}" for name, _ in wanted} | problems
        for shortcut_id, info in results.get("shortcuts", ("a(sa{sv})", []))[1]:
            trigger = info.get("trigger_description", ("s", ""))[1]
            self.bound[shortcut_id] = trigger
        self._start_reading(conn, "jawad-hotkeys-portal", f"portal shortcuts bound: {self.bound}")
        return problems

    def stop(self) -> None:
        super().stop()
        self.bound = {}

    def _release(self, conn: Any) -> None:
        from jeepney import DBusAddress, new_method_call

        with contextlib.suppress(Exception):
            session = DBusAddress(self._session, bus_name=PORTAL_BUS, interface="org.freedesktop.portal.Session")
            conn.send(new_method_call(session, "Close"))
        with contextlib.suppress(Exception):
            conn.close()

    def _create_session(self, conn: Any) -> str:
        token = "jawad_" + secrets.token_hex(6)
        results = self._request(conn, "CreateSession", "a{sv}", ({"session_handle_token": ("s", token)},))
        handle = results.get("session_handle", ("s", ""))[1]
        if not handle:
            raise HotkeyError("the portal created no session")
        return str(handle)

    def _request(self, conn: Any, method: str, signature: str, args: tuple[Any, ...]) -> dict[str, Any]:
        """Call a portal method that answers with a Request's ``Response`` signal; its results."""
        from jeepney import DBusAddress, MatchRule, message_bus, new_method_call

        token = "jawad_" + secrets.token_hex(6)
        options = args[-1]
        options["handle_token"] = ("s", token)
        sender = conn.unique_name.lstrip(":").replace(".", "_")
        path = f"/org/freedesktop/portal/desktop/request/{sender}/{token}"
        rule = MatchRule(type="signal", interface=REQUEST_INTERFACE, member="Response", path=path)
        conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=5)
        with conn.filter(rule) as responses:
            portal = DBusAddress(PORTAL_PATH, bus_name=PORTAL_BUS, interface=SHORTCUTS_INTERFACE)
            reply = conn.send_and_get_reply(new_method_call(portal, method, signature, args), timeout=10)
            if reply.header.message_type.name == "error":
                raise HotkeyError(f"{method}: {reply.body[0] if reply.body else 'error'}")
            response = conn.recv_until_filtered(responses, timeout=PORTAL_TIMEOUT_S)
        code, results = response.body
        if code != 0:
            raise HotkeyError(f"{method} was cancelled" if code == 1 else f"{method} failed")
        return dict(results)

    def _run(self) -> None:
        from jeepney import MatchRule, message_bus

        conn, stop = self._source, self._stop
        assert conn is not None
        try:
            for signal_name in ("Activated", "Deactivated"):
                rule = MatchRule(type="signal", interface=SHORTCUTS_INTERFACE, member=signal_name, path=PORTAL_PATH)
                conn.send(message_bus.AddMatch(rule))
            while not stop.is_set():
                try:
                    message = conn.receive(timeout=0.2)
                except TimeoutError:
                    continue
                header = message.header
                if header.message_type.name != "signal":
                    continue
                fields = {key.name: value for key, value in header.fields.items()}
                if fields.get("interface") != SHORTCUTS_INTERFACE:
                    continue
                member = fields.get("member")
                session, shortcut_id = message.body[0], message.body[1]
                if session == self._session and member in ("Activated", "Deactivated"):
                    self._on_event(shortcut_id, member == "Activated")
        except Exception as exc:
            if not stop.is_set():
                log.warning("portal shortcuts stopped: %s", exc)


def make_backend(choice: BackendChoice, on_event: EventCallback) -> HotkeyBackend | None:
    if choice.kind == "x11":
        return X11Hotkeys(on_event)
    if choice.kind == "portal":
        return PortalHotkeys(on_event)
    return None


def releases_reported(kind: BackendKind) -> bool:
    """Whether a hold can be told from a tap: X11 grabs see the release; portals differ, so a toggle there."""
    return kind == "x11"
