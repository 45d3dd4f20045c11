"""The wake word on the desktop: "Hey Jawad" heard while the window is hidden starts a turn.

``WakeWordService`` runs ``core.voice.wake.WakeListener`` (the microphone open on a thread of its
own) while Settings → Voice → "Listen for “Hey Jawad”" is on, and turns its callbacks into Qt
signals on the GUI thread: ``woke(text)`` when the phrase was heard, ``listening_changed(bool)``
when the microphone opens or closes (the tray shows it), ``failed(text)`` when it could not listen.
While a turn runs the desktop shell pauses it (the turn has the microphone) and resumes it after.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.core.voice.errors import VoiceError
    from jawad_desktop.core.voice.wake import WakeHit, WakeListener, WakeSpotter

log = logging.getLogger("jawad.ui.wake")

POLL_MS = 200  # how often the opening microphone is looked at (it takes ~2 s through PulseAudio)


class WakeWordService(QObject):
    """The wake-word listener of one window, started and stopped from the settings."""

    woke = Signal(str)
    listening_changed = Signal(bool)
    failed = Signal(str)
    _heard = Signal(str)  # from the listener's thread
    _broke = Signal(str)

    def __init__(self, ctx: AppContext, parent: QObject | None = None,
                 spotter_factory: Callable[[], WakeSpotter] | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._factory = spotter_factory
        self._listener: WakeListener | None = None
        self._wanted = False
        self._paused = False
        self.listening = False
        self._heard.connect(self._on_heard, Qt.ConnectionType.QueuedConnection)
        self._broke.connect(self._on_broke, Qt.ConnectionType.QueuedConnection)
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._check_open)

    def apply(self, enabled: bool) -> None:
        """Listen (or stop listening) as the setting says."""
        self._wanted = enabled
        self._update()

    def pause(self) -> None:
        """Let go of the microphone while a turn runs."""
        self._paused = True
        self._update()

    def resume(self) -> None:
        self._paused = False
        self._update()

    def _update(self) -> None:
        if self._wanted and not self._paused:
            self._start()
        else:
            self._stop()

    def _start(self) -> None:
        if self._listener is not None and self._listener.running:
            return
        from jawad_desktop.core.voice.wake import WakeListener, make_spotter

        factory = self._factory or (lambda: make_spotter(self.ctx))
        self._listener = WakeListener(factory, self._from_thread, device=self.ctx.settings.voice.input_device,
                                      on_failure=lambda error: self._broke.emit(_say(error)))
        self._listener.start()
        self._poll.start()

    def _stop(self) -> None:
        self._poll.stop()
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop(timeout=0.5)  # it closes the microphone on its own thread if still opening
        self._set_listening(False)

    def _check_open(self) -> None:
        listener = self._listener
        self._set_listening(listener is not None and listener.listening.is_set())

    def _set_listening(self, on: bool) -> None:
        if on != self.listening:
            self.listening = on
            log.info("wake word %s", "listening" if on else "not listening")
            self.listening_changed.emit(on)

    def _from_thread(self, hit: WakeHit) -> None:
        self._heard.emit(hit.text)

    def _on_heard(self, text: str) -> None:
        if self._wanted and not self._paused:
            self.woke.emit(text)

    def _on_broke(self, text: str) -> None:
        self._stop()
        self.failed.emit(text)

    def dispose(self) -> None:
        self._wanted = False
        self._stop()


def _say(error: VoiceError | Any) -> str:
    message = getattr(error, "message", str(error))
    return f"Jawad stopped listening for “Hey Jawad”: {message}"
