"""Voice activity: when speech started, when it ended, and how long to wait before the turn ends.

Two detectors with one interface (``feed`` blocks as they arrive; it returns a reason once the
recording should stop):

- ``VoiceActivityDetector``: Silero VAD v6, the voice activity model faster-whisper ships as
  ``faster_whisper/assets/silero_vad_v6.onnx``, run with onnxruntime one 32 ms window at a
  time (64 samples of context + 512 new ones at 16 kHz, its recurrent state carried from one
  window to the next; about 0.3 ms a window). Speech starts when the probability reaches 0.5
  in two windows in a row and goes on until it falls below 0.35 (hysteresis), so a fan, a street
  or a hum is not speech and a soft syllable does not end it. The first 128 ms start nothing:
  the model's fresh state takes the onset of a steady hum for a voice.
- ``EndOfSpeechDetector``: the energy threshold it replaces, against an adaptive noise floor;
  kept as the fallback when onnxruntime or the model file is missing (``make_detector`` says so
  in the log once).

Both end a recording after ``config.silence_s`` of quiet after speech (the session changes it
while the user speaks, see ``turn_wait_s``), at ``max_length_s``, or after
``no_speech_timeout_s`` when nobody spoke at all. No threads: the session feeds blocks on its loop.

``turn_wait_s`` decides the end of a turn from the words heard so far: a finished sentence
("Book the earlier one.") ends the turn after a short pause (``FINISHED_WAIT_S``), an unfinished
one ("I'd like to", "and", "um", or one that chains on: "And so, my fellow Americans.") only
after the longest wait, the setting
``voice.silence_stop_s``; without a transcript (the Whisper API has no drafts) it waits halfway.
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples

log = logging.getLogger("jawad.voice")

StopReason = Literal["silence", "max_length", "no_speech"]

FRAME_S = 0.03
_MIN_SPEECH_RMS = 0.004  # about -48 dBFS: below this nothing counts as speech
_FLOOR_FACTOR = 3.0  # speech is this many times louder than the noise floor
_START_FRAMES = 3  # 90 ms of sound in a row starts speech
_FLOOR_RISE = 1.002  # the floor rises slowly so steady noise is learned, speech is not

FINISHED_WAIT_S = 0.5  # the pause that ends a turn after a finished sentence


@dataclass
class VadConfig:
    silence_s: float = 1.5
    max_length_s: float = 60.0
    no_speech_timeout_s: float = 8.0


class SpeechDetector(Protocol):
    """What the session needs of a detector (times in seconds from the start of the recording)."""

    config: VadConfig
    frames: int
    speech_started_at: float | None
    last_speech_at: float | None
    stopped: StopReason | None

    @property
    def elapsed_s(self) -> float: ...

    @property
    def speech_started(self) -> bool: ...

    @property
    def trailing_silence_s(self) -> float: ...

    def feed(self, block: Samples) -> StopReason | None: ...


class _Clock:
    """The bookkeeping both detectors share: elapsed time, speech start and end, the stop rules."""

    config: VadConfig
    frames: int
    speech_started_at: float | None
    last_speech_at: float | None
    stopped: StopReason | None
    _frame: int
    _rate: int

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

    def _verdict(self) -> StopReason | None:
        now = self.elapsed_s
        if now >= self.config.max_length_s:
            return "max_length"
        if self.speech_started_at is None:
            if now >= self.config.no_speech_timeout_s:
                return "no_speech"
            return None
        if self.trailing_silence_s >= self.config.silence_s:
            return "silence"
        return None


class EndOfSpeechDetector(_Clock):
    """Energy against an adaptive noise floor, 30 ms frames (the fallback without the model)."""

    def __init__(self, config: VadConfig, samplerate: int = SAMPLE_RATE) -> None:
        self.config = config
        self._frame = max(1, int(samplerate * FRAME_S))
        self._rate = samplerate
        self._pending = np.zeros(0, dtype=np.float32)
        self._floor: float | None = None
        self._loud_run = 0
        self.frames = 0
        self.speech_started_at = None
        self.last_speech_at = None
        self.stopped = None

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
        return self._verdict()


# --- Silero VAD --------------------------------------------------------------------------------

WINDOW = 512  # samples of new audio per run at 16 kHz (32 ms)
CONTEXT = 64  # samples of the previous window the model sees again
START_PROBABILITY = 0.5
END_PROBABILITY = 0.35
_START_WINDOWS = 2  # 64 ms over the start probability starts speech
# A fresh model state says "speech" to the first windows of a steady hum: they start nothing.
_WARM_UP_WINDOWS = 4

MODEL_FILE = "silero_vad_v6.onnx"
_model_lock = threading.Lock()
_model: Any = None  # the onnxruntime session, loaded once per process; False when unavailable


def silero_model_path() -> Path | None:
    """The Silero VAD model file faster-whisper installs (the packaged app: its voice pack's), or None."""
    try:
        files = importlib.metadata.files("faster-whisper") or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.name == MODEL_FILE:
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    from jawad_desktop.core.voice.pack import active_pack_file

    return active_pack_file(f"faster_whisper/assets/{MODEL_FILE}")


def load_silero(path: Path | None = None) -> Any:
    """The model as an onnxruntime session (shared: each detector keeps its own state), or None
    with the reason in the log when onnxruntime or the file is missing. ``path`` overrides the
    installed file (and is not cached)."""
    global _model
    with _model_lock:
        if path is None and _model is not None:
            return _model or None
        try:
            import onnxruntime
        except ImportError as exc:  # not remembered: the packaged app's voice pack brings it once installed
            log.warning("voice activity model unavailable (onnxruntime: %s); using the energy detector", exc)
            return None
        else:
            file = path or silero_model_path()
            session: Any
            if file is None or not file.is_file():
                log.warning("voice activity model %s not found; using the energy detector", path or MODEL_FILE)
                session = False
            else:
                options = onnxruntime.SessionOptions()
                options.inter_op_num_threads = 1
                options.intra_op_num_threads = 1
                options.log_severity_level = 4
                try:
                    session = onnxruntime.InferenceSession(
                        str(file), providers=["CPUExecutionProvider"], sess_options=options)
                except Exception as exc:  # a damaged file: onnxruntime raises its own types
                    log.warning("voice activity model %s could not be loaded (%s); using the energy detector",
                                file, exc)
                    session = False
        if path is None:
            _model = session
        return session or None


class VoiceActivityDetector(_Clock):
    """Silero VAD v6 on 32 ms windows with hysteresis (see the module docstring)."""

    def __init__(self, config: VadConfig, model: Any) -> None:
        self.config = config
        self._model = model
        self._frame = WINDOW
        self._rate = SAMPLE_RATE
        self._pending = np.zeros(0, dtype=np.float32)
        self._context = np.zeros(CONTEXT, dtype=np.float32)
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._speaking = False
        self._run = 0
        self.frames = 0
        self.speech_started_at = None
        self.last_speech_at = None
        self.stopped = None
        self.probabilities: list[float] = []  # one per window, for tests and the benchmark

    def probability(self, window: Samples) -> float:
        """The model's speech probability for the next 512 samples (advances its state)."""
        batch = np.concatenate((self._context, window)).astype(np.float32, copy=False)[None, :]
        out, self._h, self._c = self._model.run(None, {"input": batch, "h": self._h, "c": self._c})
        self._context = window[-CONTEXT:].copy()
        return float(np.asarray(out).reshape(-1)[0])

    def feed(self, block: Samples) -> StopReason | None:
        if self.stopped is not None:
            return self.stopped
        data = np.concatenate((self._pending, block)) if self._pending.size else block
        usable = data.size - data.size % WINDOW
        self._pending = data[usable:].copy()
        for start in range(0, usable, WINDOW):
            reason = self._window_done(data[start : start + WINDOW])
            if reason is not None:
                self.stopped = reason
                return reason
        return None

    def _window_done(self, window: Samples) -> StopReason | None:
        p = self.probability(window)
        self.probabilities.append(p)
        self.frames += 1
        now = self.elapsed_s
        if self._speaking:
            if p >= END_PROBABILITY:
                self.last_speech_at = now
            else:
                self._speaking = False
                self._run = 0
        elif p >= START_PROBABILITY and self.frames > _WARM_UP_WINDOWS:
            self._run += 1
            if self._run >= _START_WINDOWS:
                self._speaking = True
                if self.speech_started_at is None:
                    self.speech_started_at = now - _START_WINDOWS * WINDOW / SAMPLE_RATE
                self.last_speech_at = now
        else:
            self._run = 0
        return self._verdict()


def make_detector(config: VadConfig) -> SpeechDetector:
    """The voice activity model when it can run here, else the energy detector."""
    model = load_silero()
    if model is None:
        return EndOfSpeechDetector(config)
    return VoiceActivityDetector(config, model)


def speech_end_in(audio: Samples) -> float | None:
    """Where the last speech in ``audio`` (16 kHz) ends, in seconds: the end of the last window the
    model is sure of (probability >= 0.5); None without speech or without the model. For the
    benchmark's "true end of speech" and tests, found offline from the file itself."""
    model = load_silero()
    if model is None:
        return None
    detector = VoiceActivityDetector(VadConfig(silence_s=1e9, max_length_s=1e9, no_speech_timeout_s=1e9), model)
    detector.feed(audio)
    voiced = [i for i, p in enumerate(detector.probabilities) if p >= START_PROBABILITY]
    return (voiced[-1] + 1) * WINDOW / SAMPLE_RATE if voiced else None


# --- the end of a turn --------------------------------------------------------------------------

# Words a sentence hardly ever ends on: it goes on after the pause ("I'd like to... book", "and...").
_OPEN_ENDINGS = frozenset("""
a an the and or but because if than of to for from with into onto at by my your his her its our their
whose while as nor very um uh er erm hmm mm ah eh i'd i'm i'll we'd you'd
""".split())
_OPEN_PHRASES = ("i'd like", "i want", "i would like", "i need", "can you", "could you", "let me", "you know",
                 "i mean", "kind of", "sort of", "such as", "as well as", "in order")
_FINISHED = re.compile(r"[.?!…][\"')\]]*$")
# A last sentence that opens with one of these chains on to what came before ("And so, my fellow
# Americans" and a pause, then "ask not..."): unless it asks something, the speaker is building up.
_CHAINING_OPENINGS = frozenset({"and", "but", "or", "so", "nor", "because"})
_SENTENCE_BREAK = re.compile(r"(?<=[.?!…])\s+(?=\S)")


def sentence_finished(text: str, *, chaining: bool = True) -> bool:
    """Whether ``text`` (a transcript so far) reads as a finished sentence: it ends with . ? ! and
    not on a word that needs more ("and", "to", "the", "um"), nor with an ellipsis, and its last
    sentence, unless a question, does not open with "and", "but", "so"... (it chains on; not
    asked with ``chaining=False``)."""
    text = text.strip()
    if not text or text.endswith(("...", "…", ",", "-", "—")) or not _FINISHED.search(text):
        return False
    words = re.sub(r"[^\w' ]+", " ", text.casefold()).split()
    if not words:
        return False
    if words[-1] in _OPEN_ENDINGS:
        return False
    last = re.sub(r"[^\w' ]+", " ", _SENTENCE_BREAK.split(text)[-1].casefold()).split()
    if chaining and last and last[0] in _CHAINING_OPENINGS and not text.rstrip("\"')]").endswith("?"):
        return False
    tail = " ".join(words[-3:])
    return not any(tail.endswith(phrase) for phrase in _OPEN_PHRASES)


def turn_wait_s(text: str | None, longest: float, finished: float = FINISHED_WAIT_S) -> float:
    """How long a pause ends the turn after ``text``: ``finished`` after a finished sentence,
    ``longest`` after an unfinished one, halfway without a transcript (None)."""
    shortest = min(finished, longest)
    if text is None:
        return (shortest + longest) / 2
    return shortest if sentence_finished(text) else longest
