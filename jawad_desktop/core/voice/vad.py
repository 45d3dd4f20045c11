"""Voice activity detection on energy: when speech started, and when it ended.

Frames of 30 ms are compared with an adaptive noise floor (the quietest recent level), so
a humming room does not count as speech and a quiet one does not need a loud voice.
Speech starts after a few loud frames in a row; it ends after ``silence_s`` of quiet.
A recording also ends at ``max_length_s``, or after ``no_speech_timeout_s`` when nobody
spoke at all. Pure numpy, no threads: the session feeds it blocks as they arrive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples

StopReason = Literal["silence", "max_length", "no_speech"]

FRAME_S = 0.03
_MIN_SPEECH_RMS = 0.004  # about -48 dBFS: below this nothing counts as speech
_FLOOR_FACTOR = 3.0  # speech is this many times louder than the noise floor
_START_FRAMES = 3  # 90 ms of sound in a row starts speech
_FLOOR_RISE = 1.002  # the floor rises slowly so steady noise is learned, speech is not


@dataclass
class VadConfig:
    silence_s: float = 1.2
    max_length_s: float = 60.0
    no_speech_timeout_s: float = 8.0


class EndOfSpeechDetector:
    """Feed blocks with ``feed``; it returns a reason once the recording should stop."""

    def __init__(self, config: VadConfig, samplerate: int = SAMPLE_RATE) -> None:
        self.config = config
        self._frame = max(1, int(samplerate * FRAME_S))
        self._rate = samplerate
        self._pending = np.zeros(0, dtype=np.float32)
        self._floor: float | None = None
        self._loud_run = 0
        self.frames = 0
        self.speech_started_at: float | None = None  # seconds from the start of the recording
        self.last_speech_at: float | None = None
        self.stopped: StopReason | None = None

    @property
    def elapsed_s(self) -> float:
        return self.frames * self._frame / self._rate

    @property
    def speech_started(self) -> bool:
        return self.speech_started_at is not None

    @property
    def trailing_silence_s(self) -> float:
        if self.last_speech_at is None:
            return self.elapsed_s
        return self.elapsed_s - self.last_speech_at

    def threshold(self) -> float:
        floor = self._floor if self._floor is not None else 0.0
        return max(_MIN_SPEECH_RMS, floor * _FLOOR_FACTOR)

    def feed(self, block: Samples) -> StopReason | None:
        if self.stopped is not None:
            return self.stopped
        data = np.concatenate((self._pending, block)) if self._pending.size else block
        usable = data.size - data.size % self._frame
        self._pending = data[usable:].copy()
        for start in range(0, usable, self._frame):
            reason = self._frame_done(data[start : start + self._frame])
            if reason is not None:
                self.stopped = reason
                return reason
        return None

    def _frame_done(self, frame: Samples) -> StopReason | None:
        self.frames += 1
        level = float(np.sqrt(np.mean(np.square(frame, dtype=np.float64))))
        if self._floor is None or level < self._floor:
            self._floor = level
        else:
            self._floor = min(level, max(self._floor * _FLOOR_RISE, 1e-5))
        now = self.elapsed_s
        if level >= self.threshold():
            self._loud_run += 1
            if self._loud_run >= _START_FRAMES:
                if self.speech_started_at is None:
                    self.speech_started_at = now - _START_FRAMES * FRAME_S
                self.last_speech_at = now
        else:
            self._loud_run = 0
        if now >= self.config.max_length_s:
            return "max_length"
        if self.speech_started_at is None:
            if now >= self.config.no_speech_timeout_s:
                return "no_speech"
            return None
        if self.trailing_silence_s >= self.config.silence_s:
            return "silence"
        return None
