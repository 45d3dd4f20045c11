"""Speech played: the speaker and the reply pipeline.

``AudioOutput`` keeps one output stream open on the default (or chosen) output through
sounddevice and plays clips on it; ``stop()`` silences it at the next 20 ms block, and it
records what it played (``recent_level``) so barge-in can tell the app's own voice from the
user's. ``SpeechPipeline`` speaks sentences in order, synthesizing sentence n+1 while n plays;
``ReplyReader`` reads a finished reply with them (Read replies aloud, outside conversation mode).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from jawad_desktop.core.voice.audio import Samples, Spoken, Synthesizer, resample, rms
from jawad_desktop.core.voice.capture import PORTAUDIO_LOCK, sounddevice_module
from jawad_desktop.core.voice.errors import VOICE, VoiceError, from_portaudio
from jawad_desktop.core.voice.reply_voices import reply_synthesizer
from jawad_desktop.core.voice.tts import build_synthesizer

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice.tts")

__all__ = ["OUTPUT_RATE", "AudioOutput", "ReplyReader", "SpeechPipeline"]

OUTPUT_RATE = 24_000
OUTPUT_BLOCK_S = 0.02


def _output_device(name: str) -> int | None:
    """The output called ``name`` (exact, then part of it), None for the default."""
    if not name:
        return None
    sd = sounddevice_module()
    with PORTAUDIO_LOCK:
        devices = sd.query_devices()
    outputs = [(i, str(d["name"])) for i, d in enumerate(devices) if int(d["max_output_channels"]) > 0]
    for index, device in outputs:
        if device == name:
            return index
    for index, device in outputs:
        if name.casefold() in device.casefold():
            return index
    raise VoiceError("NO_OUTPUT_DEVICE", f"The audio output {name!r} was not found.",
                     suggestions=["Choose another output, or the system default."], remedy=VOICE)


class AudioOutput:
    """One open output stream that plays one clip at a time; ``stop()`` silences it within a block.

    The stream runs (silent between clips) from ``open()`` to ``close()``: opening one through
    PulseAudio takes long enough to be heard as a gap before every sentence.
    """

    def __init__(self, *, device: str = "", rate: int = OUTPUT_RATE) -> None:
        self._wanted = device
        self.rate = rate
        self._stream: Any = None
        self._lock = threading.Lock()
        self._clip: Samples | None = None
        self._position = 0
        self._done: asyncio.Future[bool] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._levels: collections.deque[tuple[float, float]] = collections.deque(maxlen=200)
        self._held = False  # ``hold()``: silent, and clips given meanwhile are not played
        self.latency_s = 0.0  # the stream's output latency: sound leaves the speaker this long after a block
        self.started_at: float | None = None  # the callback's clock when the current clip's first block went out
        self.silenced_at: float | None = None  # when the first silent block after stop() went out

    @property
    def is_open(self) -> bool:
        return self._stream is not None

    @property
    def playing(self) -> bool:
        return self._clip is not None

    def open(self) -> None:
        """Open and start the stream (blocking; run it in a worker thread)."""
        sd = sounddevice_module()
        device = _output_device(self._wanted)
        try:
            with PORTAUDIO_LOCK:
                try:
                    stream = self._make_stream(sd, device, self.rate)
                except sd.PortAudioError as exc:
                    if "sample rate" not in str(exc).lower():
                        raise
                    info = sd.query_devices(device, "output")
                    self.rate = int(info["default_samplerate"]) or 48_000
                    stream = self._make_stream(sd, device, self.rate)
                stream.start()
        except sd.PortAudioError as exc:
            error = from_portaudio(exc, self._wanted)
            if error.code == "NO_INPUT_DEVICE":
                raise VoiceError("NO_OUTPUT_DEVICE", "No audio output (speaker or headphones) was found.",
                                 suggestions=["Plug in speakers or headphones, and check that the sound server runs."],
                                 remedy=VOICE) from None
            raise VoiceError("AUDIO_DEVICE_FAILED", f"The audio output could not be opened: {exc}.",
                             suggestions=["Choose another output, or check the sound server."],
                             remedy=VOICE) from None
        self.latency_s = float(stream.latency)
        self._stream = stream
        log.info("speaking on %s at %d Hz (latency %.0f ms)", self._wanted or "the default output",
                 self.rate, self.latency_s * 1000)

    def _make_stream(self, sd: Any, device: int | None, rate: int) -> Any:
        return sd.OutputStream(samplerate=rate, channels=1, dtype="float32", device=device,
                               blocksize=int(rate * OUTPUT_BLOCK_S), latency="low", callback=self._callback)

    def close(self) -> None:
        """Stop and close the stream (blocking briefly; safe to call twice)."""
        self.stop()
        stream, self._stream = self._stream, None
        if stream is not None:
            with PORTAUDIO_LOCK:
                try:
                    stream.abort(ignore_errors=True)  # silence is all that is left: no need to drain it
                finally:
                    stream.close(ignore_errors=True)

    def _callback(self, out: Any, frames: int, time_info: Any, status: Any) -> None:
        now = time.monotonic()
        with self._lock:
            clip = self._clip
            if clip is None:
                out.fill(0)
                if self.silenced_at is None:
                    self.silenced_at = now
                self._levels.append((now, 0.0))
                return
            if self.started_at is None:
                self.started_at = now
            piece = clip[self._position:self._position + frames]
            out[: piece.size, 0] = piece
            out[piece.size:, 0] = 0.0
            self._position += frames
            self._levels.append((now, rms(piece)))
            if self._position >= clip.size:
                self._finish(True)

    def _finish(self, completed: bool) -> None:  # under the lock
        self._clip = None
        done, self._done = self._done, None
        if done is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
                self._loop.call_soon_threadsafe(_settle, done, completed)

    async def play(self, spoken: Spoken) -> bool:
        """Play one clip to the end (True) or until ``stop()`` (False)."""
        if self._stream is None:
            raise VoiceError("AUDIO_DEVICE_FAILED", "The audio output is not open.")
        samples = spoken.samples if spoken.rate == self.rate else resample(spoken.samples, spoken.rate, self.rate)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bool] = loop.create_future()
        with self._lock:
            if self._clip is not None:
                self._finish(False)
            if self._held:
                return False
            self._loop = loop
            self._clip = np.ascontiguousarray(samples, dtype=np.float32)
            self._position = 0
            self._done = done
            self.started_at = None
        try:
            return await done
        except asyncio.CancelledError:
            self.stop()
            raise

    def stop(self) -> bool:
        """Silence now: the next block written is silent (within 20 ms plus the output latency).
        Returns whether something was playing. Safe from any thread."""
        with self._lock:
            if self._clip is None:
                return False
            self.silenced_at = None
            self._finish(False)
            return True

    def hold(self) -> bool:
        """``stop()``, and play nothing more until ``release()`` (the user spoke over the reply:
        a sentence handed over meanwhile must not start). Returns whether something was playing."""
        with self._lock:
            self._held = True
        return self.stop()

    def release(self) -> None:
        with self._lock:
            self._held = False

    def recent_level(self, window_s: float = 0.3) -> float:
        """The loudest block played in the last ``window_s`` (RMS), to tell our own echo from the user."""
        since = time.monotonic() - window_s
        with self._lock:
            return max((level for at, level in self._levels if at >= since), default=0.0)


def _settle(done: asyncio.Future[bool], completed: bool) -> None:
    if not done.done():
        done.set_result(completed)


class SpeechPipeline:
    """Speaks sentences in order as they are given, synthesizing the next while one plays.

    ``say()`` queues a sentence, ``end()`` says no more will come, ``wait()`` returns True once
    all were spoken, False when ``stop()`` cut them off; a synthesis failure is raised by ``wait()``.
    ``held``: sentences are synthesized but nothing plays until ``release()`` (a speculative
    answer, spoken only if the user has finished).
    """

    def __init__(self, synthesizer: Synthesizer, output: AudioOutput, *, ahead: int = 2,
                 on_start: Callable[[], None] | None = None, held: bool = False) -> None:
        self._synth = synthesizer
        self._on_start = on_start
        self._output = output
        self._texts: asyncio.Queue[str | None] = asyncio.Queue()
        self._audio: asyncio.Queue[Spoken | None] = asyncio.Queue(maxsize=ahead)
        self._stopped = False
        self.first_audio_at: float | None = None  # monotonic time the first clip began to play
        self.spoken: list[str] = []  # sentences played to the end
        self._released = asyncio.Event()
        if not held:
            self._released.set()
        self._tasks = [asyncio.ensure_future(self._synthesize()), asyncio.ensure_future(self._play())]

    @property
    def stopped(self) -> bool:
        return self._stopped

    def say(self, sentence: str) -> None:
        if not self._stopped and sentence.strip():
            self._texts.put_nowait(sentence)

    def end(self) -> None:
        self._texts.put_nowait(None)

    def release(self) -> None:
        """Play what was held (and all that follows)."""
        self._released.set()

    def stop(self) -> None:
        """Stop speaking now and drop what was not said."""
        self._stopped = True
        if self._released.is_set():  # a held answer never played: the speaker is not its to silence
            self._output.stop()
        for task in self._tasks:
            task.cancel()

    async def wait(self) -> bool:
        results = await asyncio.gather(*self._tasks, return_exceptions=True)
        for result in results:
            if isinstance(result, VoiceError):
                raise result
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
        return not self._stopped

    async def _synthesize(self) -> None:
        while True:
            text = await self._texts.get()
            if text is None:
                await self._audio.put(None)
                return
            try:
                spoken = await self._synth.synthesize(text)
            except VoiceError:
                self._tasks[1].cancel()
                raise
            await self._audio.put(spoken)

    async def _play(self) -> None:
        await self._released.wait()
        while True:
            spoken = await self._audio.get()
            if spoken is None:
                return
            playing = asyncio.ensure_future(self._output.play(spoken))
            if self.first_audio_at is None:
                self.first_audio_at = time.monotonic()
                if self._on_start is not None:
                    await asyncio.sleep(0)  # the clip is handed to the stream first
                    self._on_start()
            if not await playing:
                self._stopped = True
                self._tasks[0].cancel()
                return
            self.spoken.append(spoken.text)


class ReplyReader:
    """Reads a finished reply aloud ("Read replies aloud", a message's Read aloud) with the engine
    Settings → Voice picks: the same synthesizers, speaker and sentence cutting as conversation
    mode. One reply at a time; ``stop()`` silences it within a 20 ms block.

    The speaker's stream is opened for each reply and closed after it (a running stream costs a
    little CPU for nothing between replies). ``warm_up()`` loads a local voice ahead, while the
    model is still thinking.
    """

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.engine = ""  # the synthesizer the last reply was read with ("piper:…", "espeak-ng", …)
        self._pipeline: SpeechPipeline | None = None
        self._output: AudioOutput | None = None

    @property
    def speaking(self) -> bool:
        return self._pipeline is not None

    async def warm_up(self) -> None:
        """Load the chosen local voice now (a Piper voice takes about half a second)."""
        warm = getattr(build_synthesizer(self.ctx), "warm_up", None)
        if warm is not None:
            await warm()

    async def read(self, markdown: str) -> bool:
        """Say ``markdown``'s speakable sentences; True when all were said, False when stopped.
        Raises ``VoiceError`` when no engine or no speaker can be used."""
        from jawad_desktop.core.voice.speakable import SentenceChunker

        self.stop()
        chunker = SentenceChunker(early_clause=False)
        sentences = chunker.feed(markdown) + chunker.flush()
        if not sentences:
            return True
        synthesizer = reply_synthesizer(self.ctx)  # in the voice settings' language
        self.engine = synthesizer.name
        output = self._output = AudioOutput(device=self.ctx.settings.voice.output_device)
        pipeline: SpeechPipeline | None = None
        try:
            await asyncio.to_thread(output.open)
            if self._output is not output:  # stopped while the speaker opened
                return False
            pipeline = self._pipeline = SpeechPipeline(synthesizer, output)
            for sentence in sentences:
                pipeline.say(sentence)
            pipeline.end()
            said = await pipeline.wait()
            self.engine = synthesizer.name  # the voice that read it (one of the reply's language)
            return said
        finally:
            if self._pipeline is pipeline:
                self._pipeline = None
            if self._output is output:
                self._output = None
            await asyncio.to_thread(output.close)
            close = getattr(synthesizer, "aclose", None)
            if close is not None:  # the speech API's connection pool
                await close()

    def stop(self) -> None:
        """Stop reading now (what was not said is dropped)."""
        pipeline, self._pipeline = self._pipeline, None
        output, self._output = self._output, None
        if pipeline is not None:
            pipeline.stop()
        elif output is not None:
            output.stop()
