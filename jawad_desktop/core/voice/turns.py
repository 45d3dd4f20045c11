"""One spoken turn as conversation mode (``core.voice.conversation``) sees it: how long a pause
ends it (``end_of_turn_wait_s``), its timing (``TurnTiming``, what the benchmarks and the window
read), the user speaking over the reply (``BargeInDetector``), and the phrases that end the
conversation (``is_stop_phrase``).

The end of a turn is decided once per pause, from two signals taken early in it: the words
heard so far (``vad.turn_wait_s``: a finished sentence, an unfinished one, or words the model was
unsure of) and the end-of-turn model's probability that the speaker has finished
(``turns_model``, from the sound of the voice). The model is trusted where it is sure:

- it hears an unfinished turn (below ``INCOMPLETE_P``): the longest wait, whatever the words say
  ("Las arenas son blanquecinas." and a breath: the sentence goes on);
- it hears a finished one (``COMPLETE_P`` or more): after a finished sentence the turn ends after
  ``QUICK_WAIT_S``; where the words could not tell (unsure words, a language the recogniser does
  not know), after the wait of a pause without words (between the finished wait and the longest:
  the model alone has decided, and it heard "Las arenas son blanquecinas" and its 0.63 s pause
  mid-sentence as finished, 0.87 to over 0.9, in recordings of the same clip: after the finished
  wait she was cut off there); where only the "and/but/so" opening says it chains on in a long
  sentence ("And so, my fellow Americans, ask not ... for your country."), after the finished
  wait. A short sentence opening with "and" ("And so, my fellow Americans.") is a build-up the
  model hears as finished:
  the longest wait; so do words that need more ("to", "the", a comma);
- in between, and without the model, the words decide as they did before it.
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples, rms
from jawad_desktop.core.voice.vad import FINISHED_WAIT_S, sentence_finished, turn_wait_s

COMPLETE_P = 0.9  # the model's probability of a finished turn it is trusted on
INCOMPLETE_P = 0.5  # below this it hears the speaker going on
QUICK_WAIT_S = 0.3  # the pause that ends a turn both the words and the model say is finished
BUILD_UP_WORDS = 8  # a sentence opening with "and" shorter than this builds up to what follows


def end_of_turn_wait_s(heard: str | None, sure: bool, p_complete: float | None, longest: float,
                       finished: float = FINISHED_WAIT_S) -> float:
    """How long the pause after ``heard`` (the words so far, None when they could not be had;
    ``sure``: the recogniser was sure of them) must last to end the turn, given the end-of-turn
    model's ``p_complete`` (None without the model). See the module docstring."""
    by_words = turn_wait_s(heard if sure or heard is None else "", longest, finished)
    if p_complete is None or not heard:
        return by_words
    if p_complete < INCOMPLETE_P:
        return longest
    if p_complete < COMPLETE_P:
        return by_words
    if sure and sentence_finished(heard):
        return min(QUICK_WAIT_S, by_words)
    if not sure:  # words that decide nothing: the wait of a pause without words
        return turn_wait_s(None, longest, finished)
    if _chains_on_at_length(heard):
        return min(finished, longest)
    return longest


def _chains_on_at_length(text: str) -> bool:
    """Only the "and/but/so" opening says ``text`` goes on, and its last sentence is long."""
    if not sentence_finished(text, chaining=False):
        return False
    last = re.split(r"(?<=[.?!…])\s+(?=\S)", text.strip())[-1]
    return len(re.sub(r"[^\w' ]+", " ", last).split()) >= BUILD_UP_WORDS

_STOP_PHRASES = {"stop", "stop listening", "goodbye", "good bye", "bye", "bye bye", "that's all", "that is all",
                 "stop it", "ok stop", "okay stop", "thank you goodbye", "thanks goodbye"}


def is_stop_phrase(text: str) -> bool:
    """Whether the user asked to end the conversation ("Stop.", "Stop listening!", "Goodbye")."""
    words = re.sub(r"[^a-z' ]+", " ", text.casefold()).split()
    return " ".join(words) in _STOP_PHRASES


class BargeInDetector:
    """Decides, block by block, that the user speaks over the reply; returns the onset time.

    A block counts as the user's when its level is above ``min_rms`` (a threshold raised well
    above the end-of-speech detector's) and ``margin`` times louder than the echo expected of
    what the app plays: the loudest block played in the last 300 ms times the echo gain, the
    ratio of what the microphone hears to what is played, learnt while the reply plays (a high
    percentile of the last 1.5 s; ``gain`` until enough was heard). ``hold_s`` of such blocks in
    a row is speech, not a click.
    """

    def __init__(self, *, min_rms: float = 0.02, margin: float = 2.0, gain: float = 0.5,
                 hold_s: float = 0.12) -> None:
        self.min_rms = min_rms
        self.margin = margin
        self.gain = gain
        self.hold_s = hold_s
        self._ratios: collections.deque[float] = collections.deque(maxlen=50)
        self._run_s = 0.0
        self._run_start: float | None = None
        self.onset: float | None = None

    def echo_gain(self) -> float:
        if len(self._ratios) < 10:
            return self.gain
        return float(np.percentile(self._ratios, 80))

    def feed(self, block: Samples, arrived_at: float, playing_level: float) -> float | None:
        """The onset (``time.monotonic()`` of the first loud sample) once decided, else None."""
        if self.onset is not None:
            return self.onset
        duration = block.size / SAMPLE_RATE
        level = rms(block)
        threshold = max(self.min_rms, self.margin * self.echo_gain() * playing_level)
        if level >= threshold:
            if self._run_start is None:
                self._run_start = arrived_at - duration
            self._run_s += duration
            if self._run_s >= self.hold_s - 1e-6:
                self.onset = self._run_start
                return self.onset
        else:
            self._run_s = 0.0
            self._run_start = None
            if playing_level > 0.01:
                self._ratios.append(level / playing_level)  # learnt only from what is not the user
        return None


@dataclass
class TurnTiming:
    """One spoken turn: what was said and answered, and when (``time.monotonic()``)."""

    transcript: str = ""
    answer: str = ""
    speech_end_at: float = 0.0  # the detector decided the turn ended (the pause after the voice included)
    last_speech_at: float = 0.0  # the last voiced frame of the user's speech, as the detector heard it
    transcript_at: float = 0.0
    first_token_at: float | None = None
    first_audio_at: float | None = None  # the reply's first sound left the speaker
    barge_in_at: float | None = None  # the onset of the user's speech over the reply
    barge_in_decided_at: float | None = None  # when the detector decided it was the user
    playback_stopped_at: float | None = None  # the first silent block after the barge-in left the speaker
    spoken: list[str] = field(default_factory=list)
    error: str = ""
    typed: bool = False  # a message typed in the composer, not spoken
    speculative: bool = False  # answered by the answer started on the pause (``Assistant.speculate``)

    def as_dict(self) -> dict[str, Any]:
        def since_end(at: float | None) -> float | None:
            return round(at - self.speech_end_at, 3) if at is not None and self.speech_end_at else None

        result: dict[str, Any] = {
            "transcript": self.transcript,
            "answer": self.answer,
            "timings_s": {
                "speech_end_to_transcript": since_end(self.transcript_at),
                "speech_end_to_first_token": since_end(self.first_token_at),
                "speech_end_to_first_audio": since_end(self.first_audio_at),
                "voice_end_to_first_audio": round(self.first_audio_at - self.last_speech_at, 3)
                if self.first_audio_at is not None and self.last_speech_at else None,
            },
        }
        if self.barge_in_at is not None:
            result["barge_in"] = {
                "stop_latency_s": round(self.playback_stopped_at - self.barge_in_at, 3)
                if self.playback_stopped_at is not None else None,
            }
        if self.speculative:
            result["speculative"] = True
        if self.error:
            result["error"] = self.error
        return result
