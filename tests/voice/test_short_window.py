"""The encoder sees only the audio there is: real recorded speech (``clips/``, see its NOTICE)
through the real tiny.en, its words the same as with faster-whisper's whole 30 s window, at a
fraction of the CPU (what the end of a spoken turn waits for)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.core.voice import LocalWhisper, read_audio
from jawad_desktop.core.voice.audio import SAMPLE_RATE
from jawad_desktop.core.voice.transcribers import _engines, encode_frames

CLIPS = Path(__file__).parent / "clips"


def test_the_frames_encoded_follow_the_audio() -> None:
    assert encode_frames(int(2.8 * SAMPLE_RATE)) == 1000  # at least 10 s
    assert encode_frames(int(11.0 * SAMPLE_RATE)) == 1300  # rounded up, a second to spare
    assert encode_frames(int(28.5 * SAMPLE_RATE)) is None  # most of the window: all of it
    assert encode_frames(int(45 * SAMPLE_RATE)) is None


def test_a_short_utterance_is_encoded_short_with_the_same_words(tmp_path: Path, arun: Callable[..., Any]) -> None:
    model = LocalWhisper("tiny.en", cache_dir=tmp_path, beam_size=2)
    arun(model.prepare(), timeout=60)
    engine = next(e for e in _engines.values() if e is model._engine)
    jfk = read_audio(CLIPS / "jfk.flac")
    cpu = time.process_time()
    short = arun(model.transcribe(jfk), timeout=60)
    short_cpu = time.process_time() - cpu
    assert engine.model.last_encoded_frames == 1300 and engine.model.encode_frames is None
    text = short.text.lower()
    assert "fellow americans" in text and "ask not what your country can do for you" in text, text
    # The whole window, for comparison: the same words, at much more CPU.
    engine.model.encode_frames = None
    cpu = time.process_time()
    segments, _ = engine.model.transcribe(jfk, language="en", beam_size=2, best_of=1, temperature=0.0,
                                          condition_on_previous_text=False, vad_filter=False)
    whole = "".join(segment.text for segment in segments).strip().lower()
    whole_cpu = time.process_time() - cpu
    assert engine.model.last_encoded_frames == 3000
    assert "ask not what your country can do for you" in whole
    assert short_cpu < 0.8 * whole_cpu, (short_cpu, whole_cpu)


def test_the_model_says_how_sure_it_was_of_its_words(tmp_path: Path, arun: Callable[..., Any]) -> None:
    # English through tiny.en: sure; Spanish through the English-only model: made-up English, unsure.
    model = LocalWhisper("tiny.en", cache_dir=tmp_path, beam_size=2)
    english = arun(model.transcribe(read_audio(CLIPS / "quilter.flac")), timeout=60)
    spanish = arun(model.transcribe(read_audio(CLIPS / "arenas_es.flac")), timeout=60)
    assert english.sure and -1.0 < english.avg_logprob < 0.0, english
    assert not spanish.sure and spanish.avg_logprob < -1.0, spanish
