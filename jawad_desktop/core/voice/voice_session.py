"""One conversation turn by voice: record, detect the end of the turn, transcribe, report.

``VoiceSession`` is what the mic button, the ``listen`` command and the tests drive. It emits
``VoiceState`` events on the app's EventBus, mirroring spec 001: ``started`` (mic is live),
``level`` (about 20 per second), ``partial`` (live draft text while speaking, local backend),
``transcribing``, ``result`` (final text), ``error`` and always ``end`` last.

The end of the turn: the voice activity model (``vad.make_detector``) says where the user's voice
stops; how long a pause then ends the turn depends on what was said and how it sounded
(``turns.end_of_turn_wait_s``). With a local model the whole utterance is transcribed as soon as
the voice pauses (speculatively, on the model's worker, while the pause goes on), and the
end-of-turn model (``turns_model``, when installed) judges the same pause on its own worker: a
finished sentence ends the turn after 0.5 s (0.3 s when the model hears it finished too), and its
transcript is ready by then; an unfinished one ("I'd like to...") waits the longest,
``voice.silence_stop_s``, and so do words the model was unsure of (``Transcript.sure``: a
language it does not know) unless the end-of-turn model is sure the turn ended; if the user goes
on, that transcript and verdict are dropped. Drafts of the words
(``partial``) run only while the voice goes on (``recording.draft_due``): in a pause they would
hold up the pause's own transcription on the model's one worker. Without a local model
(the Whisper API), the wait is halfway between the two. ``likely_end`` is told the words of a
pause that reads as a finished sentence, at once (conversation mode starts the answer then), and
``went_on`` that the user spoke again after it (the answer is dropped).

Audio blocks arrive on PortAudio's thread and are handed to the event loop; detection and
bookkeeping run on the loop, transcription on the model's worker thread. What was said is
never lost: the recording is written to ``<cache>/voice/`` before it is transcribed and
removed only once the text was delivered, so ``retry()`` can transcribe it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

from jawad_desktop.core.events import VoiceState
from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples, level_of, read_audio, write_wav
from jawad_desktop.core.voice.capture import Recorder
from jawad_desktop.core.voice.errors import VOICE, VoiceError
from jawad_desktop.core.voice.microphone import MicAttachment, OpenMicrophone
from jawad_desktop.core.voice.recording import (
    Recording,
    draft_due,
    pause_judgeable,
    settled,
    trim_to_speech,
    turn_audio,
    verdict_of,
    words_of,
)
from jawad_desktop.core.voice.transcribers import Backend, Transcriber, Transcript, build_transcriber
from jawad_desktop.core.voice.turns import end_of_turn_wait_s
from jawad_desktop.core.voice.turns_model import TurnModel, load_turn_model
from jawad_desktop.core.voice.vad import (
    FINISHED_WAIT_S,
    SpeechDetector,
    StopReason,
    VadConfig,
    make_detector,
    turn_wait_s,
)

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice")

T = TypeVar("T")
Phase = Literal["idle", "opening", "listening", "transcribing"]

LEVEL_INTERVAL_S = 0.05
FIRST_BLOCK_TIMEOUT_S = 6.0
STALL_TIMEOUT_S = 2.0  # blocks come every 30 ms: this long without one means the input died
SPECULATE_AFTER_S = 0.15  # a pause this long starts transcribing the utterance (dropped if the user goes on)
# The end-of-turn model hears the pause's first 0.1 s: later in a pause mid-sentence ("Las arenas son
# blanquecinas" | "de grano medio") its verdict climbs from 0.4 to 0.9 (real speech, tests/voice/clips).
TURN_MODEL_HEARS_S = 0.1


# Opening and closing streams and file reads block; they run here, not on the loop's default
# executor (under qasync that is a QThread pool, which must not outlive the application).
_io_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="jawad-voice-io")


async def _in_io_thread(func: Callable[..., T], *args: object) -> T:
    return await asyncio.get_running_loop().run_in_executor(_io_threads, func, *args)


class VoiceSession:
    """Record one utterance at a time and turn it into text, reporting on ``ctx.bus``."""

    def __init__(
        self,
        ctx: AppContext,
        *,
        backend: Backend | None = None,
        transcriber_factory: Callable[[], Transcriber] | None = None,
        microphone: OpenMicrophone | None = None,
        detector_factory: Callable[[VadConfig], SpeechDetector] = make_detector,
        adaptive_wait: bool = True,
        turn_model: Callable[[], TurnModel | None] | None = load_turn_model,
    ) -> None:
        self.ctx = ctx
        self._turn_model_factory = turn_model  # the end-of-turn model (None: the words decide alone)
        self._turn_model: TurnModel | None = None
        # ``adaptive_wait=False``: every pause waits ``voice.silence_stop_s`` and nothing is transcribed
        # before the turn ends (how turns ended before; the benchmark compares the two).
        self._detector_factory = detector_factory
        self._adaptive_wait = adaptive_wait
        self.finished_wait_s = FINISHED_WAIT_S  # the pause that ends a turn after a finished sentence
        # Conversation mode: an input kept open across turns (None: each turn opens its own).
        self._microphone = microphone
        self._since: float | None = None  # a turn on it starts with the audio kept since then
        self._no_speech_timeout_s: float | None = None
        self.last_reason: StopReason | Literal["user"] | None = None  # why the last recording ended
        self._backend = backend
        self._factory = transcriber_factory or (lambda: build_transcriber(ctx, backend))
        self._transcriber: Transcriber | None = None
        self.phase: Phase = "idle"
        # False while push-to-talk is held: silence does not end the recording, the user does.
        self.auto_stop = True
        self._lost_input: VoiceError | None = None  # the input failed mid-recording
        self._task: asyncio.Task[Transcript | None] | None = None
        self._stop_requested: asyncio.Event | None = None
        self._discard = False
        self.pending_audio: Path | None = None  # a recording whose transcription failed
        self.last_transcript: Transcript | None = None
        # Timings of the last turn, for the benchmarks and the log.
        self.speech_end_at: float = 0.0  # monotonic time the detector decided the turn ended
        self.last_speech_at: float = 0.0  # monotonic time of the last voiced frame the detector heard
        self.turn_wait_s: float = 0.0  # the pause that ended the last turn (vad.turn_wait_s)
        self.speculations: int = 0  # transcriptions started on a pause in the last turn
        self.speculation_used = False  # the last turn's transcript came from one of them
        self.judged_waits: list[float] = []  # the wait each of them set, in order (tests, the log)
        self.turn_probabilities: list[float | None] = []  # the end-of-turn model's verdict on each
        self.result_at: float = 0.0
        # A pause that reads as the end of the turn (its words), and speech after it (conversation mode).
        self.likely_end: Callable[[str], None] | None = None
        self.went_on: Callable[[], None] | None = None
        self.first_partial_latency_s: float | None = None
        self.partial_latencies: list[float] = []

    # --- public API ---------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self._task is not None and not self._task.done()

    def transcriber(self) -> Transcriber:
        """A transcriber for the settings and API key as they are now.

        Built afresh for every turn (cheap: loaded models are cached process-wide), so a key
        fixed in Settings after a failure is used by the retry.
        """
        self._transcriber = self._factory()
        return self._transcriber

    async def warm_up(self) -> None:
        """Load the model now so the first utterance is transcribed without waiting for it."""
        await self.transcriber().prepare()
        if self._turn_model_factory is not None:
            await _in_io_thread(self._turn_model_factory)

    def start(
        self, *, auto_stop: bool = True, since: float | None = None, no_speech_timeout_s: float | None = None
    ) -> asyncio.Task[Transcript | None]:
        """Start listening (no-op if already busy); ``auto_stop=False`` for push-to-talk.

        On an open microphone, ``since`` (a ``time.monotonic()``) starts the recording with the
        audio heard since then (the user spoke over the reply); ``no_speech_timeout_s`` overrides
        the setting for this turn. Returns the task of this turn; its result is the transcript
        or None (error, cancel).
        """
        if self._task is not None and not self._task.done():
            return self._task
        self._since = since
        self._no_speech_timeout_s = no_speech_timeout_s
        self.last_reason = None
        self._stop_requested = asyncio.Event()
        self._discard = False
        self._lost_input = None
        self.auto_stop = auto_stop
        self._task = asyncio.ensure_future(self._run())
        return self._task

    def stop(self) -> None:
        """End the recording now and transcribe what was said."""
        if self._stop_requested is not None:
            self._stop_requested.set()

    def cancel(self) -> None:
        """End the recording and throw it away."""
        self._discard = True
        self.stop()

    async def listen(
        self, *, auto_stop: bool = True, since: float | None = None, no_speech_timeout_s: float | None = None
    ) -> Transcript | None:
        """Record until the end of speech and return the transcript (None on error)."""
        return await self.start(auto_stop=auto_stop, since=since, no_speech_timeout_s=no_speech_timeout_s)

    async def retry(self) -> Transcript | None:
        """Transcribe the kept recording of the last failed turn again."""
        if self.active or self.pending_audio is None:
            return None
        path = self.pending_audio
        self._task = asyncio.ensure_future(self._retry(path))
        return await self._task

    def discard_pending(self) -> None:
        """Forget the kept recording (the user chose not to retry)."""
        if self.pending_audio is not None:
            self.pending_audio.unlink(missing_ok=True)
            self.pending_audio = None

    # --- the turn -----------------------------------------------------------------------------

    def _emit(self, state: str, **kwargs: object) -> None:
        self.ctx.bus.emit(VoiceState(state=state, **kwargs))  # type: ignore[arg-type]

    def _fail(self, error: VoiceError, *, retryable: bool = False) -> None:
        # Info, not warning: the user is told through the event; the CLI would print it twice.
        log.info("voice failed: %s: %s", error.code, error.message)
        # The remedy travels as plain data: each face words it (``ui.base.remedies``, ``cli.remedies``).
        remedy = error.remedy.as_json() if error.remedy else {}
        self._emit("error", error=error.user_text(), retryable=retryable, remedy=remedy)

    async def _run(self) -> Transcript | None:
        loop = asyncio.get_running_loop()
        voice = self.ctx.settings.voice
        blocks: asyncio.Queue[Samples | VoiceError] = asyncio.Queue()
        self.phase = "opening"
        self.first_partial_latency_s = None
        self.partial_latencies = []
        try:
            transcriber = self.transcriber()
        except VoiceError as exc:
            return self._give_up(exc)
        warm = asyncio.ensure_future(transcriber.prepare())
        judge = asyncio.ensure_future(_in_io_thread(self._turn_model_factory)) if self._turn_model_factory else None

        def deliver(item: Samples | VoiceError) -> None:  # on PortAudio's thread
            loop.call_soon_threadsafe(blocks.put_nowait, item)

        recorder: Recorder | MicAttachment = (
            self._microphone.attachment(deliver, since=self._since) if self._microphone is not None
            else Recorder(deliver, device=voice.input_device, on_failure=deliver)
        )
        try:
            await _in_io_thread(recorder.open)
        except VoiceError as exc:
            warm.cancel()
            return self._give_up(exc)
        if warm.done() and not warm.cancelled() and isinstance(warm.exception(), VoiceError):
            # The model is missing (found out in milliseconds, while the mic opened): say so
            # now rather than after the user has spoken for nothing.
            await _in_io_thread(recorder.close)
            error = warm.exception()
            assert isinstance(error, VoiceError)
            return self._give_up(error)
        ready: asyncio.Task[Transcript] | None = None
        self._turn_model = await judge if judge is not None else None  # loaded (once) while the mic opened
        try:
            audio, reason, ready = await self._record(blocks, transcriber)
            self.last_reason = reason
        except VoiceError as exc:
            await _in_io_thread(recorder.close)
            return self._give_up(exc)
        finally:
            if recorder.is_open:
                await _in_io_thread(recorder.close)
        if ready is not None and (self._discard or reason == "no_speech"):
            ready.cancel()
            ready = None
        if self._discard:
            return self._give_up(None)
        if reason == "no_speech":
            return self._give_up(VoiceError(
                "NO_SPEECH",
                "No speech was heard.",
                suggestions=[
                    "Speak after the mic turns on, a little louder or closer to the microphone.",
                    "Check the input and its level.",
                ],
                remedy=VOICE,
            ))
        path = await _in_io_thread(
            write_wav, self.ctx.paths.cache / "voice" / f"recording-{int(time.time() * 1000)}.wav", audio
        )
        with contextlib.suppress(asyncio.CancelledError, VoiceError):
            await warm  # a load failure is reported by transcribe() below
        return await self._transcribe(transcriber, audio, path, ready=ready)

    def _give_up(self, error: VoiceError | None) -> Transcript | None:
        """End the turn without a transcript (None): idle, the ``error`` told (None: discarded), ``end``."""
        self.phase = "idle"
        if error is not None:
            self._fail(error)
        self._emit("end")
        return None

    async def _record(
        self,
        blocks: asyncio.Queue[Samples | VoiceError],
        transcriber: Transcriber,
    ) -> tuple[Samples, StopReason | Literal["user"], asyncio.Task[Transcript] | None]:
        """Record until the turn ends; returns the audio, why it ended, and the transcription
        started on the final pause when it covers all the speech (else None)."""
        rec = self._new_recording(transcriber)
        try:
            while rec.reason is None:
                await self._record_step(rec, blocks, transcriber)
        finally:
            rec.stop_wait.cancel()
            if rec.stale is not None:
                rec.stale.cancel()
            if rec.reason is None and rec.spec is not None:  # an error ends the recording: no transcript
                rec.spec.cancel()
        return self._recorded(rec, blocks)

    def _new_recording(self, transcriber: Transcriber) -> Recording:
        """The state of a recording that starts: its detector set for this turn, counters reset."""
        voice = self.ctx.settings.voice
        longest = voice.silence_stop_s
        # Speculation needs a local model (drafts cost nothing but CPU) and a turn that ends itself.
        speculate = self._adaptive_wait and self.auto_stop and transcriber.supports_partials
        detector = self._detector_factory(
            VadConfig(
                # Until the words are known: the longest wait while they may come, else halfway.
                silence_s=longest if speculate or not self._adaptive_wait
                else turn_wait_s(None, longest, self.finished_wait_s),
                max_length_s=voice.max_length_s,
                no_speech_timeout_s=self._no_speech_timeout_s or voice.no_speech_timeout_s,
            )
        )
        self.speculations = 0
        self.speculation_used = False
        self.judged_waits = []
        self.turn_probabilities = []
        assert self._stop_requested is not None
        return Recording(detector, longest, speculate, voice.partial_results and transcriber.supports_partials,
                         stop_wait=asyncio.ensure_future(self._stop_requested.wait()), turn_model=self._turn_model)

    async def _record_step(self, rec: Recording, blocks: asyncio.Queue[Samples | VoiceError],
                           transcriber: Transcriber) -> None:
        """Wait for the next block (or the user's stop, or the pause's transcript) and take it;
        sets ``rec.reason`` when the recording ends."""
        getter = asyncio.ensure_future(blocks.get())
        waiting: set[asyncio.Future[Any]] = {getter, rec.stop_wait}
        if rec.spec is not None and not rec.judged:
            # Its words (and the end-of-turn model's verdict) may end the turn before the next block;
            # only what is still to come is waited for (a done one would wake this at once, again and again).
            waiting.update(f for f in (rec.spec, rec.verdict) if f is not None and not f.done())
        done, _ = await asyncio.wait(
            waiting,
            timeout=STALL_TIMEOUT_S if rec.chunks else FIRST_BLOCK_TIMEOUT_S,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if pause_judgeable(rec):
            assert rec.spec is not None
            self._judge_pause(rec, rec.spec)
            if rec.detector.trailing_silence_s >= rec.detector.config.silence_s:
                getter.cancel()
                rec.reason = "silence"
                self._ended(rec.detector)
                return
            if getter not in done and rec.stop_wait not in done:
                getter.cancel()
                return
        elif done and getter not in done and rec.stop_wait not in done:
            getter.cancel()  # one of the pause's two verdicts is in: the other is awaited
            return
        item: Samples | VoiceError
        if not done:
            getter.cancel()
            if not rec.chunks:
                raise VoiceError(
                    "AUDIO_DEVICE_FAILED",
                    "The microphone was opened but delivers no sound.",
                    suggestions=[
                        "Check that it is not muted and that the sound server runs, then try again.",
                        "Or choose another input.",
                    ],
                    remedy=VOICE,
                )
            item = VoiceError(  # a stream that went quiet without saying so
                "AUDIO_DEVICE_FAILED",
                "The microphone stopped delivering sound.",
                suggestions=["Check that it is still connected, then try again."],
            )
        elif getter not in done:
            getter.cancel()
            rec.reason = "user"
            return
        else:
            item = getter.result()
        if isinstance(item, VoiceError):
            if not rec.detector.speech_started:
                raise item
            # The microphone went away mid-sentence: transcribe what was said, then tell.
            log.warning("input lost while recording (%s); keeping what was said", item.code)
            self._lost_input = item
            rec.reason = "user"
            self._ended(rec.detector)
            return
        self._take_block(rec, item, transcriber)

    def _judge_pause(self, rec: Recording, spec: asyncio.Task[Transcript]) -> None:
        """The pause's transcript (and the end-of-turn model's verdict) are in: they set how long the
        pause must last to end the turn."""
        rec.judged = True
        detector = rec.detector
        heard = words_of(spec)
        # Words the model was unsure of (a language it does not know) do not say the sentence ended.
        sure = heard is not None and spec.result().sure
        p_complete = verdict_of(rec)
        detector.config.silence_s = end_of_turn_wait_s(heard, sure, p_complete, rec.longest, self.finished_wait_s)
        self.judged_waits.append(detector.config.silence_s)
        self.turn_probabilities.append(p_complete)
        if heard and detector.config.silence_s < rec.longest and self.likely_end is not None:
            rec.told = True
            self.likely_end(heard)
        log.debug("pause after %r (transcribed in %.2f s; end-of-turn model: %s): the turn ends after %.2f s of it",
                  heard, spec.result().elapsed_s if heard is not None else -1.0, p_complete, detector.config.silence_s)
        if heard and rec.partials_on:
            self._emit("partial", transcript=heard, is_final=False)  # the words so far, at once

    def _take_block(self, rec: Recording, item: Samples, transcriber: Transcriber) -> None:
        """One block of sound: to the detector (which may end the recording), the level meter, a
        transcription started on a pause (dropped when the user goes on), a draft of the words."""
        detector = rec.detector
        if not rec.chunks:
            # The mic is live only once sound flows (PulseAudio takes about 2 s):
            # saying "listening" earlier would make the user's first words vanish.
            self.phase = "listening"
            self._emit("started")
        rec.chunks.append(item)
        decided = detector.feed(item)
        now = time.monotonic()
        if now - rec.last_level >= LEVEL_INTERVAL_S:
            rec.last_level = now
            self._emit("level", level=level_of(item))
        if decided in ("silence", "no_speech") and not self.auto_stop:
            decided = None  # push-to-talk: only the user ends it (max length still does)
            detector.stopped = None
        if decided is not None:
            rec.reason = decided
            self._ended(detector)
            return
        if rec.speculate and detector.last_speech_at is not None:
            if rec.spec is not None and detector.last_speech_at > rec.spec_end:
                # The user went on after the pause: that transcript is not the turn's.
                rec.stale = None if rec.spec.done() else rec.spec
                rec.spec, rec.judged, rec.verdict = None, False, None
                if rec.told and self.went_on is not None:
                    self.went_on()
                rec.told = False
                detector.config.silence_s = rec.longest
            if (
                rec.spec is None
                and (rec.stale is None or rec.stale.done())
                and detector.trailing_silence_s >= SPECULATE_AFTER_S
            ):
                rec.spec_end = detector.last_speech_at
                self.speculations += 1
                log.debug("pause at %.2f s: transcribing it", rec.spec_end)
                rec.spec = asyncio.ensure_future(
                    transcriber.transcribe(trim_to_speech(np.concatenate(rec.chunks), detector))
                )
                rec.spec.add_done_callback(settled)
                if rec.turn_model is not None:
                    rec.verdict = asyncio.ensure_future(rec.turn_model.judge(
                        turn_audio(np.concatenate(rec.chunks), detector, TURN_MODEL_HEARS_S)))
        if draft_due(rec, now):
            rec.last_partial_at = now
            rec.partial = asyncio.ensure_future(
                self._partial(transcriber, np.concatenate(rec.chunks), detector)
            )

    def _recorded(self, rec: Recording, blocks: asyncio.Queue[Samples | VoiceError],
                  ) -> tuple[Samples, StopReason | Literal["user"], asyncio.Task[Transcript] | None]:
        """The recording ended (``rec.reason``): its audio trimmed, why it ended, and the pause's
        transcription when it covers all the speech."""
        detector, chunks, spec, reason = rec.detector, rec.chunks, rec.spec, rec.reason
        assert reason is not None
        if reason == "user":
            self._ended(detector)
            # Blocks already delivered belong to the recording.
            while not blocks.empty():
                item = blocks.get_nowait()
                if isinstance(item, np.ndarray):
                    chunks.append(item)
                    detector.feed(item)
        if reason == "max_length" and not detector.speech_started:
            reason = "no_speech"  # nothing but silence until the limit: nothing to transcribe
        if rec.partial is not None and not rec.partial.done():
            rec.partial.cancel()
        if spec is not None and (detector.last_speech_at is None or detector.last_speech_at > rec.spec_end):
            spec.cancel()  # speech came after it
            spec = None
        self.turn_wait_s = detector.config.silence_s
        audio = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)
        if reason == "user" and audio.size < SAMPLE_RATE * 0.2 and not self._discard:
            if spec is not None:
                spec.cancel()
            return audio, "no_speech", None
        return trim_to_speech(audio, detector), reason, spec

    def _ended(self, detector: SpeechDetector) -> None:
        """Note when the turn ended and when the voice stopped (blocks arrive as they are heard)."""
        now = time.monotonic()
        self.speech_end_at = now
        self.last_speech_at = now - detector.trailing_silence_s if detector.last_speech_at is not None else now

    async def _partial(self, transcriber: Transcriber, audio: Samples, detector: SpeechDetector) -> None:
        started = time.monotonic()
        try:
            draft = await transcriber.transcribe(trim_to_speech(audio, detector), partial=True)
        except VoiceError as exc:
            log.debug("partial transcription failed: %s", exc.code)
            return
        if self.phase != "listening" or not draft.text:
            return
        latency = time.monotonic() - started
        self.partial_latencies.append(latency)
        if self.first_partial_latency_s is None:
            self.first_partial_latency_s = latency
        self._emit("partial", transcript=draft.text, is_final=False)

    async def _transcribe(
        self, transcriber: Transcriber, audio: Samples, path: Path, *, ready: asyncio.Task[Transcript] | None = None
    ) -> Transcript | None:
        """Transcribe ``audio``, or take the transcription ``ready`` started on the pause (it covers
        the same speech); one that failed is done again."""
        self.phase = "transcribing"
        self.pending_audio = path
        self._emit("transcribing")
        try:
            result: Transcript | None = None
            if ready is not None:
                try:
                    result = await ready
                    self.speculation_used = True
                except VoiceError as exc:
                    log.debug("the transcription started on the pause failed (%s): again", exc.code)
            if result is None:
                result = await transcriber.transcribe(audio)
        except VoiceError as exc:
            self.phase = "idle"
            self._fail(exc, retryable=True)
            self._emit("end")
            return None
        except asyncio.CancelledError:
            self.phase = "idle"
            self._emit("end")
            raise
        self.phase = "idle"
        self.result_at = time.monotonic()
        if not result.text:
            self.discard_pending()
            self._fail(
                VoiceError(
                    "NO_SPEECH",
                    "Nothing could be made out of the recording.",
                    suggestions=["Speak a little louder or closer to the microphone, and try again."],
                )
            )
            self._emit("end")
            return None
        self.last_transcript = result
        self._emit("result", transcript=result.text, is_final=True, language=result.language)
        self.discard_pending()
        if self._lost_input is not None:
            lost, self._lost_input = self._lost_input, None
            self._fail(lost)
        self._emit("end")
        return result

    async def _retry(self, path: Path) -> Transcript | None:
        try:
            transcriber = self.transcriber()
            audio = await _in_io_thread(read_audio, path)
        except VoiceError as exc:
            self._fail(exc, retryable=path.exists())
            self._emit("end")
            return None
        return await self._transcribe(transcriber, audio, path)
