"""End-of-speech detection on real speech (espeak-ng) and on measured noise."""

from __future__ import annotations

import numpy as np

from jawad_desktop.core.voice import EndOfSpeechDetector, VadConfig, read_audio
from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples
from tests.fixtures.pulseaudio import PulseServer


def blocks(audio: Samples, size: int = 480) -> list[Samples]:
    return [audio[i : i + size] for i in range(0, audio.size, size)]


def silence(seconds: float, level: float = 0.0, seed: int = 1) -> Samples:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(int(seconds * SAMPLE_RATE)) * level).astype(np.float32)


def run(detector: EndOfSpeechDetector, audio: Samples) -> str | None:
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
