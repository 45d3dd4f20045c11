"""The window's life on the desktop beyond its frame: the tray icon (``ui.desktop.tray``), the global
hotkeys (``ui.desktop.global_hotkeys``), the quick-ask window (``ui.desktop.quick_ask``), desktop notifications
(``ui.desktop.notifications``) and the wake word (``ui.desktop.wake_service``), tied to the main window and applied
from Settings → Tray and hotkeys (and Settings → Voice for the wake word).

The main window makes one ``DesktopShell`` after it is on screen (start-up time) and asks it, when
it is closed, whether to hide to the tray instead of quitting. A quick-ask question goes through
the window's presenter (``ChatPresenter.send``), like one typed in the chat. Push to talk drives
the window's voice button: held on X11 (the grab reports the release), a toggle elsewhere. "Hey Jawad"
starts the same turn as the hotkey's toggle (the window shown, where the live transcript is); the wake
word lets go of the microphone until the turn is over.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from jawad_desktop.ui.base.background import tell
from jawad_desktop.ui.desktop.global_hotkeys import (
    BackendChoice,
    HotkeyBackend,
    choose_backend,
    make_backend,
    releases_reported,
)
from jawad_desktop.ui.desktop.notifications import DesktopNotifier
from jawad_desktop.ui.desktop.quick_ask import QuickAskWindow
from jawad_desktop.ui.desktop.task_scheduler import ScheduledTasks
from jawad_desktop.ui.desktop.tray import TrayMenu
from jawad_desktop.ui.desktop.wake_service import WakeWordService

if TYPE_CHECKING:
    from jawad_desktop.core.config.settings import DesktopSettings
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.base.bridge import EventBridge
    from jawad_desktop.ui.chat.chat_view import ChatPanel
    from jawad_desktop.ui.chat.presenter import ChatPresenter

log = logging.getLogger("jawad.ui.desktop")

HOTKEY_LABELS = {"quick_ask": "Quick ask", "talk": "Push to talk"}
BUSY = "Jawad is still answering the last question: ask again when it is done, or open Jawad to stop it."


class HotkeyService(QObject):
    """The global hotkeys as Qt signals. ``apply`` (re)registers them on a worker thread (an X
    server or the desktop portal may be slow to answer); ``status_changed`` fires when it is done.
    ``pressed(name)`` / ``released(name)`` arrive on the GUI thread."""

    pressed = Signal(str)
    released = Signal(str)
    status_changed = Signal()
    _event = Signal(str, bool)  # from the backend's thread

    def __init__(self, qt_platform: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._qt_platform = qt_platform
        self._lock = threading.Lock()
        self._generation = 0
        self._backend: HotkeyBackend | None = None
        self.choice: BackendChoice | None = None  # None until the first apply finished
        self.problems: dict[str, str] = {}
        self.active: set[str] = set()
        self._event.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)

    def apply(self, hotkeys: Mapping[str, str]) -> threading.Thread:
        """Register ``{name: key text}`` (an empty mapping releases them all)."""
        self._generation += 1
        thread = threading.Thread(target=self._apply, args=(dict(hotkeys), self._generation),
                                  name="jawad-hotkeys-apply", daemon=True)
        thread.start()
        return thread

    def _apply(self, hotkeys: dict[str, str], generation: int) -> None:
        with self._lock:
            if generation != self._generation:  # a newer apply follows
                return
            if self._backend is not None:
                self._backend.stop()
                self._backend = None
            if self.choice is None:
                self.choice = choose_backend(qt_platform=self._qt_platform)
                log.info("global hotkeys: %s %s", self.choice.kind, self.choice.note)
            problems: dict[str, str] = {}
            backend = make_backend(self.choice, self._event.emit) if hotkeys else None
            if backend is not None:
                try:
                    problems = backend.start(hotkeys)
                except Exception as exc:  # a broken X server or bus must not take the window down
                    log.exception("global hotkeys failed")
                    problems = {name: f"Could not register the hotkey: {exc}" for name in hotkeys}
                self._backend = backend
            for name, problem in problems.items():
                log.warning("hotkey %s: %s", name, problem)
            self.problems = problems
            self.active = set(hotkeys) - set(problems) if backend is not None else set()
        self.status_changed.emit()

    def _dispatch(self, name: str, pressed: bool) -> None:
        (self.pressed if pressed else self.released).emit(name)

    @property
    def holds(self) -> bool:
        """Whether a hotkey's release is reported (push to talk is held, not toggled)."""
        return self.choice is not None and releases_reported(self.choice.kind)

    def describe(self, name: str) -> str:
        """One line for the Settings page: active, why not, or that it is being set up."""
        if self.choice is None:
            return "Setting up…"
        if self.choice.kind == "none":
            return "Not available on this desktop (see the note above)."
        if name in self.problems:
            return self.problems[name]
        if name in self.active:
            how = "X11" if self.choice.kind == "x11" else "the desktop portal"
            return f"Active (through {how})."
        return "Off."

    def stop(self) -> None:
        self._generation += 1
        with self._lock:
            if self._backend is not None:
                self._backend.stop()
                self._backend = None
            self.active = set()


class ShellWindow(Protocol):
    """What the shell uses of the window it serves (the main window, a ``QWidget``)."""

    @property
    def ctx(self) -> AppContext: ...
    @property
    def bridge(self) -> EventBridge: ...
    @property
    def presenter(self) -> ChatPresenter: ...
    @property
    def chat(self) -> ChatPanel: ...
    @property
    def voice_button(self) -> QWidget | None: ...
    @property
    def conversation_button(self) -> Any: ...
    def isVisible(self) -> bool: ...
    def isMinimized(self) -> bool: ...
    def hide(self) -> None: ...
    def show(self) -> None: ...
    def showNormal(self) -> None: ...
    def raise_(self) -> None: ...
    def activateWindow(self) -> None: ...
    def open_settings(self) -> None: ...
    def quit(self) -> None: ...


class DesktopShell(QObject):
    """The tray, the hotkeys, the quick-ask window and notifications of one main window."""

    def __init__(self, window: ShellWindow) -> None:
        frame = cast(QWidget, window)  # the main window is a widget: the parent of what the shell shows
        super().__init__(frame)
        self.window = window
        self.ctx = window.ctx
        self.tray = TrayMenu(self, frame)
        self.quick = QuickAskWindow()
        self.quick.asked.connect(self.ask)
        self.notifier = DesktopNotifier(window.bridge, self.settings, frame, self.tray.icon, self)
        self.notifier.clicked.connect(self.show_window)
        self.hotkeys = HotkeyService(QGuiApplication.platformName(), self)
        self.hotkeys.pressed.connect(self._hotkey_pressed)
        self.hotkeys.released.connect(self._hotkey_released)
        self._talk_held = False
        self._disposed = False
        self.wake = WakeWordService(self.ctx, self)
        self.wake.listening_changed.connect(self.tray.show_listening)
        self.wake.woke.connect(self._woke)
        self.wake.failed.connect(lambda text: self.notifier.notify("Not listening for “Hey Jawad”", text))
        self._wake_turn = False
        self._watching: QWidget | None = None  # the voice button whose state ends a wake turn
        self.apply_settings()
        self.tasks: ScheduledTasks | None = None
        try:  # scheduled tasks run while the window or its tray icon is open (ui.desktop.task_scheduler)
            self.tasks = ScheduledTasks(self.ctx, window.bridge, self.notifier.notify, self)
            self.tasks.start()
        except Exception as exc:  # the database could not be opened: the rest of the desktop still works
            log.exception("scheduled tasks unavailable")
            tell(self.ctx.bus, "warning", f"Scheduled tasks will not run: {exc}")

    def settings(self) -> DesktopSettings:
        return self.ctx.settings.desktop

    def apply_settings(self) -> None:
        """Register the hotkeys the settings ask for (live, after a change on the Settings page)."""
        desktop = self.settings()
        wanted = {}
        if desktop.quick_ask_enabled and desktop.quick_ask_hotkey.strip():
            wanted["quick_ask"] = desktop.quick_ask_hotkey
        if desktop.talk_enabled and desktop.talk_hotkey.strip():
            wanted["talk"] = desktop.talk_hotkey
        self.hotkeys.apply(wanted)
        self.wake.apply(self.ctx.settings.voice.wake_word and self.window.voice_button is not None)

    def hides_on_close(self) -> bool:
        """Closing the window hides it to the tray: the setting is on and the tray is there."""
        return self.settings().keep_in_tray and self.tray.available

    # -- the tray's actions (ui.desktop.tray.TrayActions) -------------------------------------------------

    def window_shown(self) -> bool:
        return self.window.isVisible() and not self.window.isMinimized()

    def toggle_window(self) -> None:
        if self.window_shown():
            self.window.hide()
        else:
            self.show_window()

    def show_window(self) -> None:
        window = self.window
        if window.isMinimized():
            window.showNormal()
        else:
            window.show()
        window.raise_()
        window.activateWindow()

    def quick_ask(self) -> None:
        self.quick.open()

    def new_chat(self) -> None:
        self.show_window()
        self.window.presenter.new_chat()

    def can_talk(self) -> bool:
        return self.window.voice_button is not None

    def talk(self) -> None:
        button = self.window.voice_button
        if button is not None:
            button.click()  # type: ignore[attr-defined]  # a VoiceButton: a click toggles listening

    def open_settings(self) -> None:
        self.show_window()
        self.window.open_settings()

    def quit(self) -> None:
        self.window.quit()

    # -- the quick-ask window ---------------------------------------------------------------------

    def ask(self, text: str) -> None:
        """Send ``text`` through the window's presenter and bring the window forward, where the
        answer streams; a draft the user had in the chat input is kept."""
        presenter, chat = self.window.presenter, self.window.chat
        if presenter.busy:
            self.quick.refuse(BUSY)
            return
        self.quick.close()
        self.show_window()
        draft = chat.input.toPlainText()
        chat.input.setPlainText(text)
        presenter.send(text)
        accepted = chat.input.toPlainText() != text
        if accepted and draft:
            chat.input.setPlainText(draft)

    # -- hotkeys ----------------------------------------------------------------------------------

    def _hotkey_pressed(self, name: str) -> None:
        if name == "quick_ask":
            if self.quick.isVisible():
                self.quick.close()
            else:
                self.quick.open()
        elif name == "talk":
            button = self.window.voice_button
            conversation = self.window.conversation_button
            if conversation is not None and conversation.interrupt():
                return  # in conversation mode the hotkey cuts the spoken reply short
            if button is None:
                self.notifier.notify("Push to talk is not ready", "Voice input is not set up: see Settings → Voice.")
            elif self.hotkeys.holds:
                self.show_window()  # where the live transcript shows
                self._talk_held = True
                button.press()  # type: ignore[attr-defined]  # held: released on the key's release
            else:
                self.start_talk()

    def start_talk(self) -> None:
        """Show the window and start listening for one turn (the voice button's toggle)."""
        button = self.window.voice_button
        if button is not None:
            self.show_window()  # where the live transcript shows
            button.click()  # type: ignore[attr-defined]

    # -- the wake word ----------------------------------------------------------------------------

    def _woke(self, text: str) -> None:
        """On “Hey Jawad”: a turn, as the push-to-talk hotkey starts one, unless one runs already."""
        button = self.window.voice_button
        conversation = self.window.conversation_button
        busy = conversation is not None and getattr(conversation, "active", False)
        if button is None or busy or getattr(button, "state", "idle") != "idle":
            return
        log.info("wake word heard (%r): starting a turn", text)
        if self._watching is not button:  # the window makes its voice button after the shell
            button.state_changed.connect(self._voice_state)  # type: ignore[attr-defined]
            self._watching = button
        self.wake.pause()  # the turn has the microphone
        self._wake_turn = True
        self.start_talk()

    def _voice_state(self, state: str) -> None:
        if self._wake_turn and state in ("idle", "error"):
            self._wake_turn = False
            self.wake.resume()

    def _hotkey_released(self, name: str) -> None:
        if name == "talk" and self._talk_held:
            self._talk_held = False
            button = self.window.voice_button
            if button is not None:
                button.release()  # type: ignore[attr-defined]

    # -- Settings ---------------------------------------------------------------------------------

    def dispose(self) -> None:
        """Release the hotkeys and the tray icon, close the quick-ask box (once)."""
        if self._disposed:
            return
        self._disposed = True
        if self.tasks is not None:
            self.tasks.dispose()
        self.hotkeys.stop()
        self.wake.dispose()
        self.notifier.dispose()
        self.tray.dispose()
        self.quick.close()
        self.quick.deleteLater()
