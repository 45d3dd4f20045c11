"""The mic button: press to talk, hold to push-to-talk, and the voice states at a glance.

A click (short press) starts listening and the recording ends by itself after the speaker
falls silent (or on a second click). Holding the button records for as long as it is held.
The button shows idle, listening (with the live input level), transcribing and error; its
accessible name and tooltip always say what pressing it will do. In the error state a click
transcribes the kept recording again when there is one (nothing said is lost). Escape cancels.

It drives a core ``VoiceSession`` and follows its ``VoiceState`` events, which it receives
through the UI bridge's ``voice_state`` signal. It emits ``transcript_ready(text)`` with the
final text, ``partial_transcript(text)`` while the user speaks, and ``failed(message)``.

Wiring it into a window::

    session = VoiceSession(ctx)                      # core.voice; warm_up() loads the model early
    button = VoiceButton(session, bridge.voice_state, parent)
    button.partial_transcript.connect(input_box.setPlainText)   # live draft…
    button.transcript_ready.connect(input_box.setPlainText)     # …replaced by the final text
    button.send_requested.connect(send_message)      # only when Settings → Voice → auto-send
    button.pressed_to_talk.connect(speaker.stop)     # ui.chat.reply_speaker.ReplySpeaker: the mic silences replies
    PushToTalkKey(button, window)                    # hold Ctrl+Space anywhere in the window
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt, Signal, SignalInstance
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QApplication, QToolButton, QWidget

from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.events import VoiceState
from jawad_desktop.core.voice.languages import language_name
from jawad_desktop.ui.base.remedies import with_remedy
from jawad_desktop.ui.look.icons import icon

if TYPE_CHECKING:
    from jawad_desktop.core.voice import VoiceSession  # numpy: imported with the session's first use

log = logging.getLogger("jawad.ui.voice")

ButtonState = Literal["idle", "starting", "listening", "transcribing", "error"]

HOLD_S = 0.35  # a press longer than this is push-to-talk

_STYLE: dict[ButtonState, str] = {
    "idle": "",
    "starting": "QToolButton { background: #f6d32d; color: black; border-radius: 6px; }",
    "listening": "QToolButton { background: #c01c28; color: white; border-radius: 6px; }",
    "transcribing": "QToolButton { background: #e5a50a; color: black; border-radius: 6px; }",
    "error": "QToolButton { border: 2px solid #c01c28; border-radius: 6px; }",
}
_ICON: dict[ButtonState, tuple[str, str]] = {  # (icon, colour role) of each state (ui.look.icons)
    "idle": ("mic", "text"), "starting": ("mic", "black"), "listening": ("square", "white"),
    "transcribing": ("loader-circle", "black"), "error": ("mic-off", "danger"),
}


class VoiceButton(QToolButton):
    """The microphone button of the chat input."""

    transcript_ready = Signal(str)
    partial_transcript = Signal(str)
    failed = Signal(str)
    state_changed = Signal(str)
    pressed_to_talk = Signal()  # emitted on every press: stop reading a reply aloud
    send_requested = Signal(str)  # the final text, when Settings → Voice → "Send right away" is on

    def __init__(
        self,
        session: VoiceSession,
        voice_states: SignalInstance,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self._state: ButtonState = "idle"
        self._error = ""
        self._retryable = False
        self._heard = ""  # the language the model detected in the last result (shown in the tooltip)
        self._level = 0.0
        self._pressed_at = 0.0
        self._started_by_press = False
        self._retry_task: asyncio.Future[Any] | None = None
        self._push_to_talk_key: PushToTalkKey | None = None
        self.setObjectName("voiceButton")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setIconSize(QSize(20, 20))
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        voice_states.connect(self.handle_voice_state)
        self.pressed.connect(self._on_pressed)
        self.released.connect(self._on_released)
        self._apply("idle")

    # --- what the user sees -----------------------------------------------------------------------

    @property
    def state(self) -> ButtonState:
        return self._state

    @property
    def error_text(self) -> str:
        return self._error

    def _apply(self, state: ButtonState) -> None:
        changed = state != self._state
        self._state = state
        if state != "listening":
            self._level = 0.0
        self.setIcon(icon(*_ICON[state]))
        self.setStyleSheet(_STYLE[state])
        self.setProperty("voiceState", state)
        name, tip = self._describe()
        self.setAccessibleName(name)
        self.setAccessibleDescription(tip)
        self.setToolTip(tip)
        self.setEnabled(state != "transcribing")
        self.update()
        if changed:
            self.state_changed.emit(state)

    def _describe(self) -> tuple[str, str]:
        if self._state == "starting":
            return "Starting the microphone", "The microphone is starting; speak when it turns red. Click to cancel."
        if self._state == "listening":
            return "Stop listening", "Listening. Click to stop (or just stop speaking); Escape cancels."
        if self._state == "transcribing":
            return "Transcribing", "Turning what you said into text…"
        if self._state == "error":
            first = self._error.splitlines()[0] if self._error else "Voice input failed."
            if self._retryable:
                return "Retry transcription", f"{self._error}\n\nClick to transcribe your recording again."
            return f"Voice input failed: {first}", f"{self._error}\n\nClick to try again."
        heard = f" Last time Jawad heard {self._heard}." if self._heard else ""
        return "Start voice input", f"Click to talk (stops when you pause), or hold to talk while held.{heard}"

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._state != "listening" or self._level <= 0:
            return
        painter = QPainter(self)
        bar = QRectF(3, self.height() - 5, (self.width() - 6) * self._level, 3)
        painter.fillRect(bar, QColor("white"))
        painter.end()

    # --- events from the core ---------------------------------------------------------------------

    def handle_voice_state(self, event: Any) -> None:
        """Follow the session: connect to the bridge's ``voice_state`` signal."""
        if not isinstance(event, VoiceState):
            return
        if event.state == "started":
            self._error = ""
            self._apply("listening")
        elif event.state == "level":
            self._level = event.level
            self.update()
        elif event.state == "partial":
            self.partial_transcript.emit(event.transcript)
        elif event.state == "transcribing":
            self._apply("transcribing")
        elif event.state == "result":
            # The language heard, in the tooltip when the model detected it (Settings → Voice: Automatic).
            automatic = not self.session.ctx.settings.voice.language
            self._heard = language_name(event.language) if event.language and automatic else ""
            self._apply("idle")
            self.transcript_ready.emit(event.transcript)
            if self.session.ctx.settings.voice.auto_send:
                self.send_requested.emit(event.transcript)
        elif event.state == "error":
            self._error = with_remedy(event.error, Remedy.from_json(event.remedy))
            self._retryable = event.retryable
            self._apply("error")
            self.failed.emit(self._error)
        elif event.state == "end" and self._state in ("starting", "listening", "transcribing"):
            self._apply("idle")

    # --- what the user does -----------------------------------------------------------------------

    def start_listening(self, *, push_to_talk: bool = False) -> None:
        """Start a turn (no-op while one runs); with ``push_to_talk`` only ``stop_listening`` ends it."""
        self.pressed_to_talk.emit()
        if self.session.active:
            return
        self._error = ""
        self._apply("starting")
        self.session.start(auto_stop=not push_to_talk)

    def stop_listening(self) -> None:
        """End the recording and transcribe it."""
        self.session.stop()

    def cancel(self) -> None:
        """End the recording and throw it away."""
        self.session.cancel()

    def press(self) -> None:
        """What pressing the button does (also for a push-to-talk key): start, stop or retry."""
        self._on_pressed()

    def release(self) -> None:
        """What releasing it does: a short press keeps listening until silence, a long one stops."""
        self._on_released()

    def _on_pressed(self) -> None:
        self._pressed_at = time.monotonic()
        self._started_by_press = False
        self.pressed_to_talk.emit()
        if self.session.active:
            return  # the release decides (a click stops)
        if self._state == "error" and self._retryable and self.session.pending_audio is not None:
            self._retryable = False
            self._retry_task = asyncio.ensure_future(self.session.retry())
            return
        # Record from the press on, so nothing said while holding is lost; a short click
        # turns it into a recording that ends by itself after the speaker's silence.
        self._started_by_press = True
        self._error = ""
        self._apply("starting")
        self.session.start(auto_stop=False)

    def _on_released(self) -> None:
        held = time.monotonic() - self._pressed_at
        if self._started_by_press:
            self._started_by_press = False
            if held >= HOLD_S:
                self.session.stop()  # push-to-talk: released
            else:
                self.session.auto_stop = True  # a click: toggle mode, silence ends it
        elif self.session.active and self._state == "listening":
            self.session.stop()  # a click while listening stops
        elif self.session.active and self._state == "starting":
            self.session.cancel()  # a click while the mic is still opening: the user changed their mind

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        # Released outside the button still ends push-to-talk (QToolButton would not emit released).
        if self.isDown() and not self.rect().contains(event.position().toPoint()):
            self.setDown(False)
            self._on_released()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.session.active:
            self.cancel()
            return
        super().keyPressEvent(event)


class PushToTalkKey(QObject):
    """Hold a key (Ctrl+Space by default) anywhere in ``scope``'s window to talk; a tap toggles.

    Shortcuts only report presses, so this is an application event filter that also sees the
    release; key auto-repeat is ignored.
    """

    def __init__(self, button: VoiceButton, scope: QWidget, sequence: str = "Ctrl+Space") -> None:
        super().__init__(button)
        self.button = button
        self.scope = scope
        self.combination = QKeySequence(sequence)[0]  # type: ignore[index]  # PySide6 stubs lack __getitem__
        self._held = False
        # The button keeps this Python object alive: a Qt parent alone keeps only the C++ side,
        # and the overridden eventFilter would silently stop being called.
        button._push_to_talk_key = self
        app = QApplication.instance()
        assert app is not None
        app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease) or not isinstance(event, QKeyEvent):
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self.scope.window():
            return False
        if event.key() != self.combination.key():
            return False
        if event.isAutoRepeat():
            return self._held
        if kind == QEvent.Type.KeyPress and event.keyCombination() == self.combination and not self._held:
            self._held = True
            self.button.press()
            return True
        if kind == QEvent.Type.KeyRelease and self._held:
            self._held = False
            self.button.release()
            return True
        return False
