"""The microphone kept open across turns (conversation mode), shared by whoever listens.

Opening an input through PulseAudio takes about 2 s, and barge-in must hear the user while
Jawad speaks, so conversation mode opens the input once. ``OpenMicrophone`` hands every
block (16 kHz mono float32, on PortAudio's thread) to the listeners attached now and keeps
the last few seconds with the time each block arrived: a turn that starts when the user
spoke over the reply is given the audio from the onset (``attach(..., since=onset)``), so
no word is lost. ``attachment()`` gives ``VoiceSession`` an object shaped like a recorder.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable

from jawad_desktop.core.voice.audio import Samples
from jawad_desktop.core.voice.capture import Recorder
from jawad_desktop.core.voice.errors import VoiceError

log = logging.getLogger("jawad.voice")

__all__ = ["MicAttachment", "OpenMicrophone"]

Listener = Callable[[Samples | VoiceError], None]
HISTORY_S = 4.0


class OpenMicrophone:
    """One input stream open from ``open()`` to ``close()``, fanned out to attached listeners."""

    def __init__(self, *, device: str = "") -> None:
        self._recorder = Recorder(self._on_block, device=device, on_failure=self._on_failure)
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._history: collections.deque[tuple[float, Samples]] = collections.deque()
        self.failure: VoiceError | None = None

    @property
    def is_open(self) -> bool:
        return self._recorder.is_open

    @property
    def latency_s(self) -> float:
        """The input latency the stream reports: a block arrives this long after it was heard."""
        return self._recorder.latency_s

    @property
    def device_name(self) -> str:
        return self._recorder.device.name if self._recorder.device else ""

    def open(self) -> None:
        """Open the input (blocking: run it in a worker thread)."""
        self.failure = None
        self._recorder.open()

    def close(self) -> None:
        self._recorder.close()
        with self._lock:
            self._listeners.clear()
            self._history.clear()

    def _on_block(self, block: Samples) -> None:  # PortAudio's thread
        now = time.monotonic()
        with self._lock:
            self._history.append((now, block))
            while self._history and self._history[0][0] < now - HISTORY_S:
                self._history.popleft()
            listeners = list(self._listeners)
        for listener in listeners:
            listener(block)

    def _on_failure(self, error: VoiceError) -> None:
        self.failure = error
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(error)

    def attach(self, listener: Listener, *, since: float | None = None) -> None:
        """Give ``listener`` every block from now on; with ``since`` (a ``time.monotonic()``), first
        the kept blocks that arrived after it, in order."""
        with self._lock:
            if since is not None:
                for at, block in self._history:
                    if at >= since:
                        listener(block)
            self._listeners.append(listener)

    def detach(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def attachment(self, listener: Listener, *, since: float | None = None) -> MicAttachment:
        return MicAttachment(self, listener, since)


class MicAttachment:
    """What ``VoiceSession`` opens and closes for a turn on an open microphone (a listener attached)."""

    def __init__(self, microphone: OpenMicrophone, listener: Listener, since: float | None) -> None:
        self._microphone = microphone
        self._listener = listener
        self._since = since
        self.is_open = False

    def open(self) -> None:
        if not self._microphone.is_open:
            raise self._microphone.failure or VoiceError(
                "AUDIO_DEVICE_FAILED", "The microphone is not open.",
                suggestions=["Start conversation mode again."],
            )
        self._microphone.attach(self._listener, since=self._since)
        self.is_open = True

    def close(self) -> None:
        self._microphone.detach(self._listener)
        self.is_open = False
