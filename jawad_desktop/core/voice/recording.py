"""One turn's recording as ``core.voice.voice_session.VoiceSession`` makes it: the state of its
loop (``Recording``: the detector, the blocks so far, the transcription started on a pause and
what its words and the end-of-turn model decided, the draft in progress, why it ended), the silence
cut around the speech before it is transcribed, what the end-of-turn model hears, when a draft of
the words is due, and a pause's transcription's words."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples
from jawad_desktop.core.voice.transcribers import Transcript
from jawad_desktop.core.voice.turns_model import TurnModel
from jawad_desktop.core.voice.vad import SpeechDetector, StopReason, sentence_finished

_KEEP_BEFORE_SPEECH_S = 0.3  # audio kept before the first detected word
_KEEP_AFTER_SPEECH_S = 0.4  # and after the last one
_TURN_BEFORE_SPEECH_S = 0.5  # the end-of-turn model hears this much before the first word (as Pipecat feeds it)
PARTIAL_INTERVAL_S = 0.6  # between the starts of two drafts of the words
_PARTIAL_MIN_SPEECH_S = 0.5  # a first draft of less than this is usually empty
# No draft once the voice has stopped (more than a window of the voice activity model ago): it would
# say nothing new, and on the model's one worker it would hold up the pause's own transcription.
_PARTIAL_MAX_SILENCE_S = 0.035


@dataclass
class Recording:
    """The state of one recording, from its first block to why it ended."""

    detector: SpeechDetector
    longest: float  # the longest pause that ends the turn (voice.silence_stop_s)
    speculate: bool  # transcribe on each pause (a local model, a turn that ends itself)
    partials_on: bool  # drafts of the words while the user speaks
    stop_wait: asyncio.Future[Any]  # the user's stop
    spec: asyncio.Task[Transcript] | None = None  # the transcription started on the last pause
    spec_end: float = 0.0  # detector.last_speech_at when ``spec`` started: it covers the speech up to there
    judged: bool = False  # ``spec``'s words have set the wait
    told: bool = False  # ``likely_end`` was told of ``spec``'s words
    # A dropped transcription still occupies the model's one worker until it is done: no new one
    # starts before (they would queue up on a busy machine and come too late).
    stale: asyncio.Task[Transcript] | None = None
    turn_model: TurnModel | None = None  # the end-of-turn model, if it is here
    verdict: asyncio.Future[float | None] | None = None  # its probability that ``spec``'s pause ends the turn
    chunks: list[Samples] = field(default_factory=list)
    last_level: float = 0.0
    partial: asyncio.Task[None] | None = None
    last_partial_at: float = 0.0
    reason: StopReason | Literal["user"] | None = None


def draft_due(rec: Recording, now: float) -> bool:
    """Whether a draft of the words should start now (``now``: ``time.monotonic()``): drafts are on,
    the voice has gone on for a moment and has not stopped, the last draft is done and far enough back."""
    detector = rec.detector
    return (
        rec.partials_on
        and detector.speech_started
        and detector.elapsed_s - (detector.speech_started_at or 0.0) >= _PARTIAL_MIN_SPEECH_S
        and detector.trailing_silence_s < _PARTIAL_MAX_SILENCE_S
        and (rec.partial is None or rec.partial.done())
        and now - rec.last_partial_at >= PARTIAL_INTERVAL_S
    )


def pause_judgeable(rec: Recording) -> bool:
    """The pause's transcript is in, and so is the end-of-turn model's verdict (if it was asked), or
    the model is late (a busy machine: it runs behind the transcription) and the words end the turn
    soon by themselves: they do not wait for it."""
    if rec.spec is None or rec.judged or not rec.spec.done():
        return False
    if rec.verdict is None or rec.verdict.done():
        return True
    heard = words_of(rec.spec)
    return bool(heard) and rec.spec.result().sure and sentence_finished(heard or "")


def verdict_of(rec: Recording) -> float | None:
    """The end-of-turn model's probability for the pause, None without it (or when it failed or is late)."""
    verdict = rec.verdict
    if verdict is None or not verdict.done() or verdict.cancelled() or verdict.exception() is not None:
        return None
    return verdict.result()


def turn_audio(audio: Samples, detector: SpeechDetector, after_s: float) -> Samples:
    """What the end-of-turn model hears: from just before the first word to ``after_s`` into the pause
    (a fixed point, so its verdict does not depend on when the blocks arrived)."""
    if detector.speech_started_at is None or detector.last_speech_at is None:
        return audio
    start = max(0, int((detector.speech_started_at - _TURN_BEFORE_SPEECH_S) * SAMPLE_RATE))
    return audio[start:int((detector.last_speech_at + after_s) * SAMPLE_RATE)]


def settled(task: asyncio.Task[Transcript]) -> None:
    """A transcription made in a pause may be dropped: its failure is not an unretrieved error."""
    if not task.cancelled():
        task.exception()


def words_of(spec: asyncio.Task[Transcript]) -> str | None:
    """The words of a finished speculative transcription, None when it failed."""
    if spec.cancelled() or spec.exception() is not None:
        return None
    return spec.result().text


def trim_to_speech(audio: Samples, detector: SpeechDetector) -> Samples:
    """Drop long silence before the first and after the last word (less to decode, fewer ghosts)."""
    if detector.speech_started_at is None or detector.last_speech_at is None:
        return audio
    start = max(0, int((detector.speech_started_at - _KEEP_BEFORE_SPEECH_S) * SAMPLE_RATE))
    end = min(audio.size, int((detector.last_speech_at + _KEEP_AFTER_SPEECH_S) * SAMPLE_RATE))
    return audio[start:end] if end > start else audio
