"""Spoken replies on the Qt side: the engine Settings → Voice picks, QtTextToSpeech where none works.

``ReplySpeaker.say(text)`` reads an answer aloud through the core's ``ReplyReader`` (the same
Piper, speech API or espeak-ng voice, rate and speaker as conversation mode); ``stop()`` silences
it at once; the mic button stops it when pressed. Where no engine of ours can speak (espeak-ng
missing, no voice set up) a real QtTextToSpeech engine (the system's voices) reads instead; Qt's
test engine ("mock") is used only when asked for by name. A failure is a notice (``tell``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from jawad_desktop.core.voice import VoiceError
from jawad_desktop.core.voice.playback import ReplyReader
from jawad_desktop.core.voice.speakable import SentenceChunker
from jawad_desktop.ui.base.background import tell
from jawad_desktop.ui.base.remedies import error_text

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

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


def _plain(markdown: str) -> str:
    """The reply as the sentences worth saying (code blocks, link targets and marks left out)."""
    chunker = SentenceChunker(early_clause=False)
    return " ".join(chunker.feed(markdown) + chunker.flush())


class ReplySpeaker(QObject):
    """Reads replies aloud; one at a time; stoppable. ``system_voices=False``: never fall back to
    QtTextToSpeech (a failure is told instead)."""

    speaking_changed = Signal(bool)

    def __init__(self, ctx: AppContext, parent: QObject | None = None, *, engine: str = "",
                 system_voices: bool = True) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._reader = ReplyReader(ctx)
        self._qt: object | None = None  # the QtTextToSpeech engine, found when first needed
        self._qt_probed = not system_voices
        self._qt_only = bool(engine)  # a QtTextToSpeech engine by name (the tests' "mock")
        self._last = ""  # "qt" when the last reply was read by the Qt engine
        if engine:
            self._use_qt(_qt_engine(engine))
        self._task: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[None] | None = None
        self._speaking = False

    def _use_qt(self, tts: object | None) -> None:
        self._qt_probed = True
        self._qt = tts
        if tts is None:
            return
        from PySide6.QtTextToSpeech import QTextToSpeech

        assert isinstance(tts, QTextToSpeech)
        tts.setParent(self)
        tts.stateChanged.connect(lambda state: self._set_speaking(state == QTextToSpeech.State.Speaking))

    @property
    def backend(self) -> str:
        """What read the last reply: ``qt:ENGINE``, or the core synthesizer's name."""
        if self._qt is not None and (self._qt_only or self._last == "qt"):
            from PySide6.QtTextToSpeech import QTextToSpeech

            assert isinstance(self._qt, QTextToSpeech)
            return f"qt:{self._qt.engine()}"
        return self._reader.engine

    @property
    def speaking(self) -> bool:
        return self._speaking

    def _set_speaking(self, value: bool) -> None:
        if value != self._speaking:
            self._speaking = value
            self.speaking_changed.emit(value)

    def warm_up(self) -> None:
        """Load the chosen local voice in the background (a reply is on its way)."""
        if not self._qt_only and (self._warming is None or self._warming.done()):
            self._warming = asyncio.ensure_future(self._warm_up())

    async def _warm_up(self) -> None:
        try:
            await self._reader.warm_up()
        except VoiceError as exc:  # said when the reply is read
            log.info("the voice could not be loaded ahead: %s", exc.message)

    def say(self, text: str) -> None:
        """Start reading ``text`` (stops what was being read)."""
        self.stop()
        if self._qt_only:
            self._qt_say(text)
            return
        self._task = asyncio.ensure_future(self._read(text))

    def _qt_say(self, text: str) -> None:
        from PySide6.QtTextToSpeech import QTextToSpeech

        assert isinstance(self._qt, QTextToSpeech)
        self._last = "qt"
        spoken = _plain(text)
        if spoken:
            self._qt.say(spoken)

    async def _read(self, text: str) -> None:
        self._last = ""
        self._set_speaking(True)
        try:
            await self._reader.read(text)
        except VoiceError as exc:
            if exc.code == "TTS_UNAVAILABLE":  # none of ours can speak: the system's own voices
                if not self._qt_probed:
                    self._use_qt(_qt_engine())
                if self._qt is not None:
                    self._set_speaking(False)
                    self._qt_say(text)
                    return
            tell(self.ctx.bus, "warning", error_text(exc))
        finally:
            if self._last != "qt":
                self._set_speaking(False)

    def stop(self) -> None:
        """Stop reading now."""
        if self._qt is not None:
            from PySide6.QtTextToSpeech import QTextToSpeech

            assert isinstance(self._qt, QTextToSpeech)
            self._qt.stop(QTextToSpeech.BoundaryHint.Immediate)
        self._reader.stop()
        if self._task is not None and not self._task.done():
            with contextlib.suppress(RuntimeError):
                self._task.cancel()
