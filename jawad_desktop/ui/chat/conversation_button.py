"""The conversation-mode toggle of the composer and the line that says what Jawad is doing.

Checking the button (or Chat → Conversation mode, Ctrl+Shift+Space) starts a hands-free
``core.voice.conversation.Conversation`` with the window's assistant: Jawad listens, answers
aloud, and listens again. Unchecking it, Esc (the window's Stop action), a new chat or closing
the window ends it; so do the user saying "stop" and a long silence. The state follows the
``ConversationState`` events the bridge hands over (``conversation_state``): "Listening…",
"Thinking…", "Speaking — talk to interrupt", and when it ends, why (the error's own text when
voice cannot start, e.g. no microphone). The mic button beside it shows the input level, from
the conversation's ``VoiceState`` events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import QLabel, QToolButton, QWidget

from jawad_desktop.core.events import ConversationState
from jawad_desktop.ui.look.controls import error_style
from jawad_desktop.ui.look.icons import icon

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.core.voice.conversation import Assistant, Conversation

log = logging.getLogger("jawad.ui.voice")

SHORTCUT = "Ctrl+Shift+Space"

_STATE_TEXT = {
    "listening": "Listening…",
    "thinking": "Thinking…",
    "speaking": "Speaking — talk to interrupt",
}
_END_TEXT = {
    "silence": "Conversation ended: no one spoke for a while.",
    "stop-word": "Conversation ended: you said stop.",
    "stopped": "Conversation ended.",
    "once": "Conversation ended.",
}


class ConversationButton(QToolButton):
    """Checked while a conversation runs. ``active_changed(bool)`` when one starts or ends;
    ``status`` is the label to place beside it."""

    active_changed = Signal(bool)

    def __init__(
        self,
        ctx: AppContext,
        build_assistant: Callable[[], Assistant | None],
        states: SignalInstance,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._build_assistant = build_assistant
        self.conversation: Conversation | None = None
        self._task: asyncio.Task[None] | None = None
        self.setCheckable(True)
        self.setIcon(icon("audio-lines"))
        self.status = QLabel(parent)
        self.status.setAccessibleName("Conversation mode status")
        self.status.hide()
        self._describe()
        self.toggled.connect(self._toggled)
        states.connect(self.handle_state)

    @property
    def active(self) -> bool:
        return self.conversation is not None and self.conversation.active

    def _describe(self) -> None:
        if self.isChecked():
            name = "Stop conversation mode"
            tip = f"Stop the hands-free conversation ({SHORTCUT} or Esc)"
        else:
            name = "Start conversation mode: talk with Jawad hands-free"
            tip = (f"Talk with Jawad hands-free: it listens, answers aloud and listens again; "
                   f"say \"stop\" or press Esc to end ({SHORTCUT})")
        self.setAccessibleName(name)
        self.setToolTip(tip)

    def _show(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(error_style() if error else "")
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setVisible(bool(text))

    # --- what the user does -----------------------------------------------------------------------

    def _toggled(self, checked: bool) -> None:
        self._describe()
        if checked:
            self.start()
        else:
            self.stop()

    def start(self) -> None:
        """Begin a conversation (no-op while one runs)."""
        if self.active:
            return
        assistant = self._build_assistant()
        if assistant is None:
            self._show("Conversation mode needs the assistant, which could not start: see the notice above.",
                       error=True)
            self._uncheck()
            return
        from jawad_desktop.core.voice.conversation import Conversation  # numpy: on the first conversation

        conversation = Conversation(self.ctx, assistant)
        self.conversation = conversation
        self._show("Starting…")
        self._task = conversation.start()
        self._task.add_done_callback(self._ended)
        self.active_changed.emit(True)

    def stop(self) -> None:
        """End the conversation now (the toggle, Esc, a new chat, closing the window)."""
        if self.conversation is not None:
            self.conversation.stop()

    def interrupt(self) -> bool:
        """Cut Jawad's spoken reply short and listen (the voice key or the push-to-talk hotkey while
        a conversation runs); False when no conversation runs, so the key does its usual job."""
        if self.conversation is None or not self.active:
            return False
        self.conversation.interrupt()
        return True

    async def aclose(self) -> None:
        """Stop and wait until the microphone and speaker are closed (the window's disposal)."""
        self.stop()
        if self._task is not None and not self._task.done():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._task), 3.0)

    # --- what the conversation says ---------------------------------------------------------------

    def handle_state(self, event: Any) -> None:
        """Follow the conversation: connect to the bridge's ``conversation_state`` signal."""
        if not isinstance(event, ConversationState):
            return
        if event.state != "idle":
            self._show(_STATE_TEXT.get(event.state, event.state))
            return
        if event.reason == "error" or event.error:
            self._show(event.error or "Conversation mode stopped because of an error.", error=True)
        else:
            self._show(_END_TEXT.get(event.reason, "Conversation ended."))
        self._uncheck()

    def _ended(self, task: asyncio.Task[None]) -> None:
        try:
            if not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                log.error("conversation mode failed", exc_info=exc)
                self._show(f"Conversation mode failed: {type(exc).__name__}: {exc}", error=True)
            self._uncheck()
            self.active_changed.emit(False)
        except RuntimeError:  # the window was closed meanwhile
            pass

    def _uncheck(self) -> None:
        if self.isChecked():
            self.blockSignals(True)
            self.setChecked(False)
            self.blockSignals(False)
            self._describe()
