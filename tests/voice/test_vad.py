"""End-of-speech detection: the energy detector on espeak-ng speech and noise; the voice activity
model on real recorded speech (``clips/``), silence, a fan and a hum; its fallback; the end-of-turn wait."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import numpy as np
import pytest

from jawad_desktop.core.voice import EndOfSpeechDetector, VadConfig, read_audio, vad
from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples
from jawad_desktop.core.voice.recording import Recording, draft_due
from jawad_desktop.core.voice.vad import (
    FINISHED_WAIT_S,
    WINDOW,
    VoiceActivityDetector,
    load_silero,
    make_detector,
    sentence_finished,
    speech_end_in,
    turn_wait_s,
)
from tests.fixtures.pulseaudio import PulseServer


def blocks(audio: Samples, size: int = 480) -> list[Samples]:
    return [audio[i : i + size] for i in range(0, audio.size, size)]


def silence(seconds: float, level: float = 0.0, seed: int = 1) -> Samples:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(int(seconds * SAMPLE_RATE)) * level).astype(np.float32)


def run(detector: vad.SpeechDetector, audio: Samples) -> str | None:
    for block in blocks(audio):
        reason = detector.feed(block)
        if reason:
            return reason
    return None


def test_speech_then_silence_ends_after_the_silence(pulse_server: PulseServer) -> None:
    speech = read_audio(pulse_server.speech_wav("summarize this page"))
    audio = np.concatenate([silence(1.0), speech, silence(3.0)])
    detector = EndOfSpeechDetector(VadConfig(silence_s=0.8, max_length_s=30, no_speech_timeout_s=5))
    assert run(detector, audio) == "silence"
    speech_end = 1.0 + speech.size / SAMPLE_RATE - 0.2  # the file ends with 0.2 s of padding
    assert detector.speech_started_at is not None and 1.0 <= detector.speech_started_at <= 1.6
    assert speech_end + 0.8 - 0.3 <= detector.elapsed_s <= speech_end + 0.8 + 0.3


def test_pauses_between_words_do_not_end_it(pulse_server: PulseServer) -> None:
    speech = read_audio(pulse_server.speech_wav("summarize this page"))
    # a 0.6 s pause with the padding, plus the fading end of "page": well under the default 1.2 s
    audio = np.concatenate([speech, silence(0.1), speech, silence(2.0)])
    detector = EndOfSpeechDetector(VadConfig(silence_s=1.2, max_length_s=30))
    assert run(detector, audio) == "silence"
    assert detector.elapsed_s > 2 * speech.size / SAMPLE_RATE


def test_steady_room_noise_is_not_speech(pulse_server: PulseServer) -> None:
    noise = silence(4.0, level=0.02)
    detector = EndOfSpeechDetector(VadConfig(silence_s=0.8, max_length_s=30, no_speech_timeout_s=3))
    assert run(detector, noise) == "no_speech" and not detector.speech_started
    # the same speech over that noise is heard and ends
    speech = read_audio(pulse_server.speech_wav("summarize this page"))
    noisy = np.concatenate([noise[:16000], speech + noise[: speech.size], noise[:48000]])
    detector = EndOfSpeechDetector(VadConfig(silence_s=0.8, max_length_s=30, no_speech_timeout_s=3))
    assert run(detector, noisy) == "silence"


def test_max_length_stops_endless_speech(pulse_server: PulseServer) -> None:
    speech = read_audio(pulse_server.speech_wav("find me a cheaper alternative to this product"))
    detector = EndOfSpeechDetector(VadConfig(silence_s=5, max_length_s=2.0))
    assert run(detector, np.tile(speech, 3)) == "max_length"
    assert abs(detector.elapsed_s - 2.0) < 0.05


# --- the voice activity model (Silero VAD v6) on real recorded speech -------------------------

CLIPS = Path(__file__).parent / "clips"  # public recordings, see clips/NOTICE


def clip(name: str) -> Samples:
    return read_audio(CLIPS / name)


def word_end(name: str) -> float:
    """The end of the last word in the source's own word timings."""
    entry = next(c for c in json.loads((CLIPS / "clips.json").read_text())["clips"] if c["file"] == name)
    return float(entry["words"][-1][2])


def model_detector(silence_s: float, no_speech_timeout_s: float = 5.0) -> VoiceActivityDetector:
    detector = make_detector(VadConfig(silence_s=silence_s, max_length_s=60, no_speech_timeout_s=no_speech_timeout_s))
    assert isinstance(detector, VoiceActivityDetector), "the Silero model faster-whisper ships should load here"
    return detector


def test_the_model_hears_the_voice_not_the_crowd_and_waits_through_pauses() -> None:
    # JFK, 1961: a crowd under the voice, and two pauses of about a second mid-sentence.
    audio = np.concatenate([clip("jfk.flac"), silence(2.0)])
    detector = model_detector(silence_s=1.2)
    assert run(detector, audio) == "silence"
    assert detector.speech_started_at is not None and 0.2 <= detector.speech_started_at <= 0.5
    assert detector.last_speech_at is not None and 10.3 <= detector.last_speech_at <= 10.7  # "...your country."
    # The energy threshold takes the crowd for speech from the first frames and never hears the end.
    energy = EndOfSpeechDetector(VadConfig(silence_s=1.2, max_length_s=60))
    run(energy, audio)
    assert energy.speech_started_at is not None and energy.speech_started_at < 0.2
    assert energy.last_speech_at is not None and energy.last_speech_at > 10.9


def test_the_model_ends_where_the_words_end() -> None:
    for name in ("quilter.flac", "arenas_es.flac"):
        end = speech_end_in(clip(name))
        assert end is not None and abs(end - word_end(name)) <= 0.2, (name, end, word_end(name))


def test_silence_a_fan_and_a_hum_are_not_speech() -> None:
    rng = np.random.default_rng(3)
    fan = np.concatenate([silence(1.0), (rng.standard_normal(5 * SAMPLE_RATE) * 0.03).astype(np.float32)])
    t = np.arange(6 * SAMPLE_RATE) / SAMPLE_RATE
    hum = (0.05 * np.sin(2 * np.pi * 120 * t) + 0.02 * np.sin(2 * np.pi * 240 * t)).astype(np.float32)
    for noise in (silence(6.0), fan, hum):
        detector = model_detector(silence_s=0.8, no_speech_timeout_s=4)
        assert run(detector, noise) == "no_speech" and not detector.speech_started
    # The energy threshold hears the fan switched on as someone speaking.
    energy = EndOfSpeechDetector(VadConfig(silence_s=0.8, max_length_s=60, no_speech_timeout_s=4))
    run(energy, fan)
    assert energy.speech_started
    # Real speech over the fan is heard, and its end.
    speech = clip("quilter.flac")
    noisy = np.concatenate([fan[: 2 * SAMPLE_RATE], speech + fan[: speech.size], fan[: 2 * SAMPLE_RATE]])
    detector = model_detector(silence_s=0.8)
    assert run(detector, noisy) == "silence"
    assert detector.last_speech_at is not None and abs(detector.last_speech_at - (2.0 + word_end("quilter.flac"))) < 0.3


def test_without_onnxruntime_the_energy_detector_takes_over(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    monkeypatch.setattr(vad, "_model", None)  # not loaded yet in this process
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    with caplog.at_level(logging.WARNING, logger="jawad.voice"):
        detector = make_detector(VadConfig(silence_s=0.8, max_length_s=30, no_speech_timeout_s=5))
    assert type(detector) is EndOfSpeechDetector
    assert "using the energy detector" in caplog.text and "onnxruntime" in caplog.text
    assert speech_end_in(clip("quilter.flac")) is None
    # It still does the job on the same speech.
    assert run(detector, np.concatenate([clip("quilter.flac"), silence(2.0)])) == "silence"


def test_a_missing_or_damaged_model_file_falls_back(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    damaged = tmp_path / "silero_vad_v6.onnx"
    damaged.write_bytes(b"not a model")
    with caplog.at_level(logging.WARNING, logger="jawad.voice"):
        assert load_silero(tmp_path / "missing.onnx") is None
        assert load_silero(damaged) is None
    assert "not found" in caplog.text and "could not be loaded" in caplog.text
    assert load_silero() is not None  # the installed one is unaffected


# --- the end of a turn: short after a finished sentence, long after an unfinished one -------------


@pytest.mark.parametrize("text", [
    "Book the earlier one.", "What is the weather like in Paris today?", "Thank you!", "Summarize this.",
    "Mr. Quilter is the apostle of the middle classes and we are glad to welcome his gospel.",
    "And what about tomorrow?", "Book it. And what time is it there?", "Android phones are fine.",
])
def test_a_finished_sentence_ends_the_turn_soon(text: str) -> None:
    assert sentence_finished(text)
    assert turn_wait_s(text, 1.5) == FINISHED_WAIT_S


@pytest.mark.parametrize("text", [
    "I'd like to", "I'd like to...", "I'd like to.", "Book the earlier one and", "Um.", "So, uh,", "because",
    "Find me a cheaper alternative to the", "And so, my fellow Americans,", "Mr. Quilter is the apostle of the",
    "I would like", "Can you", "",
    # The sentence chains on (JFK's pauses as tiny.en heard them, then mid-sentence pauses like them):
    "And so my fellow Americans.", "And so am I, fellow Americans.", "And so, my fellow Americans ask not.",
    "Book the earlier one. But only if it is cheaper.", "So that was the plan.",
])
def test_an_unfinished_sentence_waits_the_longest(text: str) -> None:
    assert not sentence_finished(text)
    assert turn_wait_s(text, 1.5) == 1.5


def test_without_a_transcript_the_wait_is_halfway() -> None:
    assert turn_wait_s(None, 1.5) == pytest.approx((FINISHED_WAIT_S + 1.5) / 2)
    assert turn_wait_s("Done.", 0.4) == 0.4  # never longer than the longest


# --- drafts of the words: while the voice goes on, never in its pauses ---------------------------


def test_a_draft_is_due_while_the_voice_goes_on_and_never_in_a_pause() -> None:
    # The real JFK clip in 30 ms blocks, as the microphone delivers them; every block asks whether a
    # draft is due with the last one long done. In a pause the pause's own transcription is made: a
    # draft there would hold it up on the model's one worker.
    model = load_silero()
    assert model is not None
    detector = VoiceActivityDetector(VadConfig(silence_s=1e9, max_length_s=1e9, no_speech_timeout_s=1e9), model)
    loop = asyncio.new_event_loop()
    try:
        rec = Recording(detector, 1.5, True, True, stop_wait=loop.create_future())
        due_speaking, due_paused = 0, []
        for block in blocks(read_audio(CLIPS / "jfk.flac")):
            detector.feed(block)
            if draft_due(rec, now=1e6):
                if detector.trailing_silence_s <= WINDOW / SAMPLE_RATE + 1e-9:  # the voice, or its last window
                    due_speaking += 1
                else:
                    due_paused.append(round(detector.trailing_silence_s, 3))
    finally:
        loop.close()
    assert due_speaking > 100  # about 7 s of voice
    assert due_paused == [], due_paused
    rec.partials_on = False
    assert not draft_due(rec, now=1e6)
