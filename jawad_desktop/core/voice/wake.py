"""The wake word, "Hey Jawad": heard offline from the microphone while the window is hidden.

No wake-word model for "Jawad" exists to download (openWakeWord's are trained per phrase), so the
spotter reuses the two models voice already has: Silero VAD (``vad``) finds voiced stretches of
the microphone's sound, and the bundled tiny.en (``transcribers.LocalWhisper``, on one CPU thread,
its prompt "Hey Jawad." so a name it does not know is spelt as the user means it) transcribes only
the first ``HEAD_S`` of each; ``heard_wake`` then looks for a greeting ("hey", "hi", "okay") and
the name ("Jawad", "Javad", "Jawaad"...) among the first words. Silence costs the VAD only (about
0.3 ms per 32 ms window); speech costs one short transcription per stretch.

- ``VoicedStretches`` cuts a stream of 16 kHz blocks into stretches (a little sound before the
  VAD was sure is kept, so "hey" keeps its onset).
- ``WakeSpotter`` feeds blocks to it and transcribes the stretches: ``feed`` returns a ``WakeHit``
  when one held the wake word; ``scan`` does a whole recording (``jawad wake FILE``, the benchmark).
- ``WakeListener`` keeps the microphone open on a thread of its own and calls ``on_wake``; the
  desktop shell (``ui.desktop.wake_service``) starts a turn with it and shows the listening in the tray.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import queue
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.pack import local_engine_error
from jawad_desktop.core.voice.vad import (
    END_PROBABILITY,
    START_PROBABILITY,
    WINDOW,
    VadConfig,
    VoiceActivityDetector,
    load_silero,
)

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.core.voice.transcribers import LocalWhisper

log = logging.getLogger("jawad.voice.wake")

WAKE_PHRASE = "Hey Jawad"
PROMPT = "Hey Jawad."  # tiny.en spells an unknown name by ear ("Hey, JetWatt"); the prompt gives it the spelling
HEAD_S = 2.5  # only the start of a stretch is transcribed: the wake word opens what is said
PRE_ROLL_S = 0.25  # sound kept from before the VAD was sure: the onset of "hey"
END_SILENCE_S = 0.3  # this much quiet ends a stretch
MAX_TOKENS = 12  # the wake word is among the first words: decoding stops after these
PAD_S = 0.5  # silence put either side of a stretch before it is transcribed
FULL_WINDOW_S = 29  # a stretch this long (with trailing silence) is decoded over Whisper's whole window
MIN_VOICED_S = 0.25  # shorter stretches (a click, a cough) are not transcribed

_GREETINGS = frozenset({"hey", "hi", "hay", "hei", "okay", "ok", "o", "k", "hello", "yo"})
_NAMES = ("jawad", "javad", "jawaad", "jawwad", "jewad")
_NAME_SIMILARITY = 0.8  # difflib's ratio to one of _NAMES ("jawed", "jawads" pass; "jared" does not)
# The phrase may follow a few words (an "um", or someone else on the television heard first):
# it is looked for among the first words of the stretch (about its first 2.5 s).
_FIRST_WORDS = 8


def _words(text: str) -> list[str]:
    return re.sub(r"[^a-z' ]+", " ", text.casefold().replace("’", "'")).replace("'s ", " ").split()


def _is_name(word: str) -> bool:
    """"Jawad" as tiny.en may spell it: a j-word ending in d (or t) close to one of _NAMES."""
    word = word.strip("'").removesuffix("s")
    if not word.startswith("j") or not word.endswith(("d", "t")):
        return False  # "java", "jarvis", "john"
    return any(difflib.SequenceMatcher(None, word, name).ratio() >= _NAME_SIMILARITY for name in _NAMES)


def heard_wake(text: str) -> bool:
    """Whether a transcript holds the wake word among its first words: a greeting then the name
    (next, or one word on: "Hey, it's Jawad"; also split in two, "Hey, Ja wad", or run together,
    "Heyjawad")."""
    words = _words(text + " ")[:_FIRST_WORDS]
    for i, word in enumerate(words):
        after = words[i + 1 : i + 3]
        if word in _GREETINGS and (any(_is_name(w) for w in after) or _is_name("".join(after))):
            return True
        for greeting in ("hey", "hi"):
            if word.startswith(greeting) and len(word) > len(greeting) and _is_name(word[len(greeting):]):
                return True
    return False


def might_be_wake(text: str) -> bool:
    """Whether a transcript that is not the wake word may be a mishearing of it ("Hey Joe, what?"):
    a greeting or a word starting with "j" among its first words."""
    return any(word in _GREETINGS or word.startswith("j") for word in _words(text + " ")[:_FIRST_WORDS])


@dataclass(frozen=True)
class WakeHit:
    """The wake word was heard: in the stretch from ``start_s`` to ``end_s`` (seconds from the
    start of listening), transcribed as ``text``."""

    start_s: float
    end_s: float
    text: str


@dataclass(frozen=True)
class Stretch:
    start_s: float
    audio: Samples


class VoicedStretches:
    """Silero VAD over a stream of blocks: each voiced stretch's first ``HEAD_S`` seconds, once,
    as soon as it ends or reaches that length."""

    def __init__(self, model: Any) -> None:
        # The detector is used for its model state only (its stop rules never fire here).
        self._vad = VoiceActivityDetector(VadConfig(silence_s=1e9, max_length_s=1e12, no_speech_timeout_s=1e12), model)
        self._pending = np.zeros(0, dtype=np.float32)
        self._recent: list[Samples] = []  # the pre-roll while nobody speaks
        self._current: list[Samples] | None = None  # the stretch being heard
        self._start_s = 0.0
        self._voiced = 0
        self._quiet = 0
        self._run = 0
        self._done = False  # the stretch's head was handed out; wait for its end
        self.windows = 0
        self.voiced_windows = 0  # windows heard as voice (the benchmark's minutes of speech)

    @property
    def elapsed_s(self) -> float:
        return self.windows * WINDOW / SAMPLE_RATE

    def feed(self, block: Samples) -> list[Stretch]:
        data = np.concatenate((self._pending, block)) if self._pending.size else block
        usable = data.size - data.size % WINDOW
        self._pending = data[usable:].copy()
        ready: list[Stretch] = []
        for start in range(0, usable, WINDOW):
            stretch = self._window(data[start : start + WINDOW])
            if stretch is not None:
                ready.append(stretch)
        return ready

    def _window(self, window: Samples) -> Stretch | None:
        p = self._vad.probability(window)
        self.windows += 1
        if self._current is None:
            self._recent.append(window)
            keep = int(PRE_ROLL_S * SAMPLE_RATE / WINDOW) + 2
            del self._recent[:-keep]
            self._run = self._run + 1 if p >= START_PROBABILITY and self.windows > 4 else 0
            if self._run >= 2:
                self.voiced_windows += self._run
                self._current = list(self._recent)
                self._start_s = self.elapsed_s - len(self._current) * WINDOW / SAMPLE_RATE
                self._voiced, self._quiet, self._done = self._run, 0, False
            return None
        if not self._done:
            self._current.append(window)
        if p >= END_PROBABILITY:
            self._voiced += 1
            self.voiced_windows += 1
            self._quiet = 0
        else:
            self._quiet += 1
        ended = self._quiet * WINDOW >= END_SILENCE_S * SAMPLE_RATE
        full = len(self._current) * WINDOW >= HEAD_S * SAMPLE_RATE
        stretch = None
        if not self._done and (ended or full) and self._voiced * WINDOW >= MIN_VOICED_S * SAMPLE_RATE:
            stretch = Stretch(self._start_s, np.concatenate(self._current))
            self._done = True
        if ended:
            self._current, self._recent, self._run = None, [], 0
        elif full:
            self._done = True
        return stretch


class WakeSpotter:
    """VAD-gated transcription of the start of each stretch, and the wake word looked for in it."""

    def __init__(self, transcriber: LocalWhisper, model: Any) -> None:
        self.transcriber = transcriber
        self.stretches = VoicedStretches(model)
        self.checked = 0  # stretches transcribed (for the benchmark's cost figures)
        self.rechecked = 0  # of which transcribed twice (``check``)
        self.heard: list[str] = []  # what each said (the CLI's --verbose, tests)

    async def feed(self, block: Samples) -> WakeHit | None:
        """Hear ``block``; the first stretch it completes that holds the wake word, else None."""
        hit = None
        for stretch in self.stretches.feed(block):
            if hit is None:
                hit = await self.check(stretch)
        return hit

    async def check(self, stretch: Stretch) -> WakeHit | None:
        """Transcribe a stretch (with half a second of silence either side: tiny.en misheard a
        stretch cut close); when it opens with a greeting or a j-word that is not the name, once
        more over Whisper's full 30 s window, which hears a name better and costs three times more."""
        self.checked += 1
        quiet = np.zeros(int(PAD_S * SAMPLE_RATE), dtype=np.float32)
        text = (await self.transcriber.transcribe(np.concatenate((quiet, stretch.audio, quiet)), partial=True)).text
        if not heard_wake(text) and might_be_wake(text):
            self.rechecked += 1
            full = np.zeros(FULL_WINDOW_S * SAMPLE_RATE, dtype=np.float32)
            full[: stretch.audio.size] = stretch.audio
            text = (await self.transcriber.transcribe(full, partial=True)).text
        self.heard.append(text)
        log.debug("wake check at %.1f s: %r", stretch.start_s, text)
        if not heard_wake(text):
            return None
        return WakeHit(stretch.start_s, stretch.start_s + stretch.audio.size / SAMPLE_RATE, text)

    async def scan(self, audio: Samples, *, block: int = 1600) -> list[WakeHit]:
        """Every wake word in a recording (16 kHz mono), fed in blocks as the microphone would; a
        second of silence after it ends the last stretch."""
        hits = []
        tail = np.zeros(SAMPLE_RATE, dtype=np.float32)
        for data in (audio, tail):
            for start in range(0, data.size, block):
                hit = await self.feed(data[start : start + block])
                if hit is not None:
                    hits.append(hit)
        return hits


def vad_model() -> Any:
    """The Silero VAD model, or the reason the wake word cannot work without it (the packaged app:
    its voice pack, which holds the model and tiny.en, is not installed)."""
    missing = local_engine_error()
    if missing is not None:
        raise missing
    model = load_silero()
    if model is None:
        raise VoiceError(
            "WAKE_UNAVAILABLE", "The wake word needs the voice activity model, and it is not installed here.",
            suggestions=["Install the voice features (faster-whisper and onnxruntime), or the offline speech pack."],
        )
    return model


def wake_transcriber(ctx: AppContext) -> LocalWhisper:
    """The bundled English model on one CPU thread, prompted with the wake word (offline always:
    the wake word never sends the microphone's sound anywhere)."""
    from jawad_desktop.core.voice.models import BUNDLED_MODEL
    from jawad_desktop.core.voice.transcribers import LocalWhisper

    return LocalWhisper(BUNDLED_MODEL, cache_dir=ctx.paths.cache, compute_type="int8", cpu_threads=1,
                        prompt=PROMPT, max_tokens=MAX_TOKENS)


def make_spotter(ctx: AppContext) -> WakeSpotter:
    return WakeSpotter(wake_transcriber(ctx), vad_model())


async def scan_file(ctx: AppContext, path: Path) -> tuple[list[WakeHit], WakeSpotter]:
    """The wake words in an audio file (any format ``read_audio`` decodes), and the spotter that heard them."""
    from jawad_desktop.core.voice.audio import read_audio

    audio = read_audio(path)
    spotter = make_spotter(ctx)
    await spotter.transcriber.prepare()
    return await spotter.scan(audio), spotter


class WakeListener:
    """The microphone kept open for the wake word, on a thread of its own; ``on_wake(hit)`` and
    ``on_failure(error)`` are called on that thread. ``start`` returns at once; the input opens
    on the thread (PulseAudio takes about 2 s)."""

    def __init__(self, spotter_factory: Callable[[], WakeSpotter], on_wake: Callable[[WakeHit], None], *,
                 device: str = "", on_failure: Callable[[VoiceError], None] | None = None) -> None:
        self._factory = spotter_factory
        self._on_wake = on_wake
        self._on_failure = on_failure
        self._device = device
        self._blocks: queue.Queue[Samples | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.listening = threading.Event()  # the microphone is open and heard

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        # Each run has its own queue and stop flag: a run still closing its microphone after
        # ``stop`` never reads the next run's blocks.
        self._stop, self._blocks = threading.Event(), queue.Queue()
        self._thread = threading.Thread(target=self._run, args=(self._blocks, self._stop), name="jawad-wake",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Close the microphone and end the thread (waits up to ``timeout`` for a transcription
        or the microphone's opening under way; the thread finishes either way)."""
        self._stop.set()
        self._blocks.put(None)
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(self, blocks: queue.Queue[Samples | None], stop: threading.Event) -> None:
        from jawad_desktop.core.voice.capture import Recorder

        def failed(error: VoiceError) -> None:
            stop.set()
            blocks.put(None)
            self._failed(error)

        recorder = Recorder(blocks.put, device=self._device, on_failure=failed)
        try:
            spotter = self._factory()
            asyncio.run(spotter.transcriber.prepare())
            if stop.is_set():
                return
            recorder.open()
            self.listening.set()
            log.info("listening for %r on %s", WAKE_PHRASE, recorder.device.name if recorder.device else "?")
            asyncio.run(self._hear(spotter, blocks, stop))
        except VoiceError as exc:
            failed(exc)
        finally:
            self.listening.clear()
            recorder.close()

    async def _hear(self, spotter: WakeSpotter, blocks: queue.Queue[Samples | None], stop: threading.Event) -> None:
        while not stop.is_set():
            block = blocks.get()  # nothing else runs on this loop
            if block is None:
                return
            hit = await spotter.feed(block)
            if hit is not None and not stop.is_set():
                log.info("wake word heard: %r", hit.text)
                self._on_wake(hit)

    def _failed(self, error: VoiceError) -> None:
        log.warning("wake word listening stopped: %s", error.message)
        if self._on_failure is not None:
            self._on_failure(error)
