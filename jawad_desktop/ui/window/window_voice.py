"""The main window's voice: the Mic button, Ctrl+Space, conversation mode and the live transcript
in the input (a part of ``MainWindow``, kept apart so each room stays readable)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jawad_desktop.ui.window.window_part import WindowPart

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext


class WindowVoice(WindowPart):
    """Voice input and conversation mode for ``MainWindow``."""

    def _add_voice(self) -> None:
        from jawad_desktop.ui.chat.voice_button import VoiceButton

        self.voice_session = VoiceOnFirstUse(self.ctx)
        button = VoiceButton(self.voice_session, self.bridge.voice_state, self)
        self.chat.add_input_button(button)
        # Ctrl+Space toggles listening (hold the Mic button to push-to-talk). An application-wide
        # key filter would see every event of every object, including ones being destroyed.
        self.voice_action.triggered.connect(self.voice_key)
        self.voice_action.setEnabled(True)
        self.voice_button = button
        self._idle_hint: str | None = None  # the input's hint text while a live draft shows
        button.transcript_ready.connect(self._on_transcript)
        button.partial_transcript.connect(self._show_hearing)
        button.state_changed.connect(self._voice_state_changed)
        button.send_requested.connect(self._send_spoken)
        # What went wrong is said in words above the chat, not only by a red icon and its tooltip.
        button.failed.connect(lambda text: self.show_notice("error", text))
        button.pressed_to_talk.connect(self.presenter.stop_speaking)
        self.presenter.attach_speaker(self._make_speaker)
        self.chat.view.can_read_aloud = True  # an answer's menu: Read aloud
        self.chat.view.read_aloud_requested.connect(self.presenter.speak)

    def _make_speaker(self) -> Any:
        """The reply speaker (``ui.chat.reply_speaker``, imported with speech synthesis at the first
        answer read aloud)."""
        from jawad_desktop.ui.chat.reply_speaker import ReplySpeaker

        return ReplySpeaker(self.ctx, self)

    def voice_key(self) -> None:
        """Ctrl+Space (and the push-to-talk hotkey's toggle): in conversation mode it cuts Jawad's
        spoken reply short; otherwise it starts or stops listening."""
        if self.conversation_button is not None and self.conversation_button.interrupt():
            return
        if self.voice_button is not None:
            self.voice_button.click()  # type: ignore[attr-defined]  # a VoiceButton: a click toggles listening

    def _add_conversation(self) -> None:
        """Conversation mode (``ui.chat.conversation_button``): its toggle and state line in the composer."""
        from jawad_desktop.ui.chat.conversation_button import ConversationButton

        button = ConversationButton(self.ctx, self.presenter.build, self.bridge.conversation_state, self)
        self.chat.add_input_button(button)
        self.chat.add_input_button(button.status)
        self.conversation_button = button
        self.conversation_action.setEnabled(True)
        self.stop_action.triggered.connect(button.stop)  # Esc ends it too
        self.new_chat_action.triggered.connect(button.stop)
        if self.sidebar is not None:
            self.sidebar.new_chat_requested.connect(button.stop)  # type: ignore[attr-defined]
        button.active_changed.connect(self._conversation_active)

    def _toggle_conversation(self) -> None:
        if self.conversation_button is not None:
            self.conversation_button.click()

    def _conversation_active(self, active: bool) -> None:
        """While a conversation runs the mic button only shows its level (the conversation listens
        and sends), replies are not read aloud twice, and Esc ends it."""
        self.presenter.hands_free = active
        # A message typed meanwhile is the conversation's next turn (``ChatPresenter.send``).
        self.presenter.conversation = self.conversation_button.conversation if active else None
        if self.voice_button is not None:
            self.voice_button.blockSignals(active)
        self.stop_action.setEnabled(active or self.presenter.busy)

    def _show_hearing(self, text: str) -> None:
        """The live transcript in the empty input. A change of the hint text does not repaint a
        QPlainTextEdit by itself: without the update the draft stayed invisible."""
        if self._idle_hint is None:
            self._idle_hint = self.chat.input.placeholderText()
        self.chat.input.setPlaceholderText(f"Hearing: {text.rstrip(' .…')}…")
        self.chat.input.viewport().update()

    def _voice_state_changed(self, state: str) -> None:
        if state in ("idle", "error"):
            self._end_hearing()

    def _end_hearing(self) -> None:
        """The input's own hint text again (a cancelled or failed turn leaves no stale draft)."""
        if self._idle_hint is not None:
            self.chat.input.setPlaceholderText(self._idle_hint)
            self.chat.input.viewport().update()
            self._idle_hint = None

    def _on_transcript(self, text: str) -> None:
        self._end_hearing()
        current = self.chat.input.toPlainText().rstrip()
        self.chat.edit_text(f"{current} {text}".strip() if current else text)

    def _send_spoken(self, text: str) -> None:
        self.chat.input.setPlainText(text)
        self.presenter.send(text)


class VoiceOnFirstUse:
    """The window's ``VoiceSession``, made the first time it is used (the mic pressed, Ctrl+Space):
    voice capture and transcription import numpy and PortAudio, about 20 MB the idle window does
    not need. Attributes are read from and written to the session, made on the first access;
    ``made`` says whether it exists (closing the window makes none just to cancel it)."""

    def __init__(self, ctx: AppContext) -> None:
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "_session", None)

    @property
    def made(self) -> bool:
        return self._session is not None

    def _made(self) -> Any:
        if self._session is None:
            from jawad_desktop.core.voice import VoiceSession

            object.__setattr__(self, "_session", VoiceSession(self._ctx))
        return self._session

    def __getattr__(self, name: str) -> Any:  # only for names this class does not have
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._made(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._made(), name, value)
