"""The end-of-turn model (Smart Turn v3.2 from pipecat-ai's installed files, ``core.voice.turns_model``)
on real recorded speech (``clips/NOTICE``), and the end-of-turn decision that weighs it with the
words (``core.voice.turns.end_of_turn_wait_s``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from jawad_desktop.core.store import pins
from jawad_desktop.core.voice import read_audio
from jawad_desktop.core.voice.audio import SAMPLE_RATE
from jawad_desktop.core.voice.turns import COMPLETE_P, INCOMPLETE_P, QUICK_WAIT_S, end_of_turn_wait_s
from jawad_desktop.core.voice.turns_model import MODEL_FILE, PIN_KEY, TurnModel, features, load_turn_model, model_path
from jawad_desktop.core.voice.vad import FINISHED_WAIT_S

CLIPS = Path(__file__).parent / "clips"
JFK = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."


@pytest.fixture(scope="module")
def model() -> TurnModel:
    loaded = load_turn_model()
    assert loaded is not None, "the end-of-turn model is not installed (pip install --no-deps pipecat-ai)"
    return loaded


def upto(name: str, seconds: float) -> np.ndarray:
    return read_audio(CLIPS / name)[: int(seconds * SAMPLE_RATE)]


def test_the_model_file_is_pipecats_copy_checked_against_its_pin() -> None:
    path = model_path()
    assert path is not None and path.name == MODEL_FILE
    pin = pins.pin_for(PIN_KEY)
    assert pin is not None and pin.package == "pipecat-ai"
    assert pins.sha256_of(path) == pin.sha256(MODEL_FILE)


def test_pipecat_is_never_imported_to_find_or_run_the_model() -> None:
    code = ("import sys; from jawad_desktop.core.voice.turns_model import load_turn_model; "
            "import numpy as np; m = load_turn_model(); assert m is not None; "
            "m.p_complete(np.zeros(16000, dtype=np.float32)); "
            "print(sorted(n for n in sys.modules if n.split('.')[0] == 'pipecat'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_the_input_is_the_last_8_seconds_as_whispers_log_mel() -> None:
    audio = read_audio(CLIPS / "jfk.flac")  # 11 s: only the last 8 count
    made = features(audio)
    assert made.shape == (1, 80, 800) and made.dtype == np.float32
    assert np.array_equal(made, features(audio[-8 * SAMPLE_RATE:]))
    short = features(audio[: 2 * SAMPLE_RATE])  # zeros before a short turn
    assert np.allclose(short[0, :, :500], short[0, 0, 0])  # the padding is one flat value
    assert not np.allclose(short[0, :, 650:], short[0, 0, 0])


def test_the_model_hears_finished_turns_and_mid_sentence_pauses_in_real_speech(model: TurnModel) -> None:
    # 0.1 s into each pause, as the session asks it (the ends of the voice by the voice activity model).
    assert model.p_complete(upto("quilter.flac", 5.47 + 0.10)) >= COMPLETE_P  # "...welcome his gospel."
    assert model.p_complete(upto("jfk.flac", 10.50 + 0.10)) >= COMPLETE_P  # "...for your country."
    assert model.p_complete(upto("arenas_es.flac", 7.62 + 0.10)) >= COMPLETE_P  # "...poca asistencia."
    assert model.p_complete(upto("jfk.flac", 4.35 + 0.10)) < INCOMPLETE_P  # "...ask not" | "what your"
    assert model.p_complete(upto("jfk.flac", 7.62 + 0.10)) < INCOMPLETE_P  # "...do for you," | "ask what"
    assert model.p_complete(upto("arenas_es.flac", 4.77 + 0.10)) < INCOMPLETE_P  # "...grano medio" | "y tiene"
    assert model.p_complete(upto("quilter.flac", 4.2)) < INCOMPLETE_P  # "...we are glad to" | "welcome"
    # "Las arenas son blanquecinas" | 0.6 s | "de grano medio": not sure it ended (later in the pause it
    # climbs to 0.93, and the turn would end before she goes on).
    assert model.p_complete(upto("arenas_es.flac", 3.01 + 0.10)) < 0.6


def test_a_damaged_or_missing_model_leaves_the_words_to_decide(tmp_path: Path) -> None:
    damaged = tmp_path / MODEL_FILE
    damaged.write_bytes(b"not an onnx model")
    assert load_turn_model(damaged) is None
    assert load_turn_model(tmp_path / "absent.onnx") is None


@pytest.mark.parametrize(("heard", "sure", "p", "wait"), [
    # Without the model (or without words) the words decide as before.
    ("Book the earlier one.", True, None, FINISHED_WAIT_S),
    ("I'd like to", True, None, 1.5),
    (JFK, True, None, 1.5),
    ("I had a song blank as seen as.", False, None, 1.5),
    (None, True, 0.97, (FINISHED_WAIT_S + 1.5) / 2),
    # The model hears a finished turn.
    ("Book the earlier one.", True, 0.97, QUICK_WAIT_S),
    (JFK, True, 0.95, FINISHED_WAIT_S),  # a long sentence opening with "and"
    # Words that decide nothing: the wait without words (after the finished wait, a Spanish speaker on tiny.en
    # was cut off at a pause of 0.63 s mid-sentence, the model hearing it as finished).
    ("I had a song blank as seen as.", False, 0.96, (FINISHED_WAIT_S + 1.5) / 2),
    ("And so, my fellow Americans.", True, 0.93, 1.5),  # a short build-up: the words' veto stands
    ("and we are glad to", True, 0.95, 1.5),  # a word that needs more
    ("ask not what your country can do for you,", True, 0.95, 1.5),
    # Unsure either way: the words decide.
    ("Book the earlier one.", True, 0.7, FINISHED_WAIT_S),
    ("I had a song blank as seen as.", False, 0.7, 1.5),
    # The model hears the voice going on: the longest wait, whatever the words say.
    ("Las arenas son blanquecinas.", True, 0.3, 1.5),
])
def test_the_end_of_turn_wait_weighs_the_words_and_the_model(
    heard: str | None, sure: bool, p: float | None, wait: float
) -> None:
    assert end_of_turn_wait_s(heard, sure, p, 1.5) == pytest.approx(wait)
