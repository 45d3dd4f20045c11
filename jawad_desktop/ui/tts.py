"""Spoken replies on the Qt side: QtTextToSpeech when a real engine works, espeak-ng otherwise.

``ReplySpeaker.say(text)`` reads an answer aloud (Markdown reduced to sentences); ``stop()``
silences it at once; the mic button stops it when pressed. Qt's test engine ("mock") never
counts as a real engine unless asked for by name.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from PySide6.QtCore import QObject, Signal

from jawad_desktop.core.voice import EspeakSpeaker, VoiceError, speakable_text
from jawad_desktop.ui.remedies import error_text

log = logging.getLogger("jawad.ui.voice")


def _qt_engine(name: str = "") -> object | None:
    """A working QTextToSpeech (by engine name, or the first real one), else None."""
    try:
        from PySide6.QtTextToSpeech import QTextToSpeech
    except ImportError:
        return None
    names = [name] if name else [e for e in QTextToSpeech.availableEngines() if e != "mock"]
    for engine in names:
        tts = QTextToSpeech(engine)
        if tts.state() != QTextToSpeech.State.Error:
            log.info("spoken replies use the QtTextToSpeech engine %r", engine)
            return tts
        tts.deleteLater()
    return None


class ReplySpeaker(QObject):
    """Reads replies aloud; one at a time; stoppable."""

    speaking_changed = Signal(bool)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, *, engine: str = "", prefer_qt: bool = True) -> None:
        super().__init__(parent)
        self._qt = _qt_engine(engine) if prefer_qt or engine else None
        self._espeak = EspeakSpeaker()
        self._task: asyncio.Task[None] | None = None
        self._speaking = False
        if self._qt is not None:
            from PySide6.QtTextToSpeech import QTextToSpeech

            assert isinstance(self._qt, QTextToSpeech)
            self._qt.setParent(self)
            self._qt.stateChanged.connect(
                lambda state: self._set_speaking(state == QTextToSpeech.State.Speaking)
            )

    @property
    def backend(self) -> str:
        if self._qt is not None:
            from PySide6.QtTextToSpeech import QTextToSpeech

            assert isinstance(self._qt, QTextToSpeech)
            return f"qt:{self._qt.engine()}"
        return "espeak-ng" if EspeakSpeaker.available() else "none"

    @property
    def speaking(self) -> bool:
        return self._speaking

    def _set_speaking(self, value: bool) -> None:
        if value != self._speaking:
            self._speaking = value
            self.speaking_changed.emit(value)

    def say(self, text: str) -> None:
        """Start reading ``text`` (stops what was being read)."""
        self.stop()
        spoken = speakable_text(text)
        if not spoken:
            return
        if self._qt is not None:
            from PySide6.QtTextToSpeech import QTextToSpeech

            assert isinstance(self._qt, QTextToSpeech)
            self._qt.say(spoken)
            return
        self._task = asyncio.ensure_future(self._espeak_say(spoken))

    async def _espeak_say(self, text: str) -> None:
        self._set_speaking(True)
        try:
            await self._espeak.speak(text)
        except VoiceError as exc:
            self.failed.emit(error_text(exc))
        finally:
            self._set_speaking(False)

    def stop(self) -> None:
        """Stop reading now."""
        if self._qt is not None:
            from PySide6.QtTextToSpeech import QTextToSpeech

            assert isinstance(self._qt, QTextToSpeech)
            self._qt.stop(QTextToSpeech.BoundaryHint.Immediate)
        self._espeak.stop()
        if self._task is not None and not self._task.done():
            with contextlib.suppress(RuntimeError):
                self._task.cancel()
