"""The wake word "Hey Jawad" (``core.voice.wake``): the transcript match, the setting's default, and
``jawad wake FILE`` with the real VAD and tiny.en: a spoken wake word wakes it, real recorded speech
without it (``clips/NOTICE``) does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jawad_desktop.core.config.settings import VoiceSettings
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.voice.wake import heard_wake

CLIPS = Path(__file__).parent / "clips"


@pytest.mark.parametrize("text", [
    "Hey Jawad.", "Hey, Jawad, what's the time?", "hi javad", "Okay Jawad", "Um, hey Jawad!", "Hey Jawad's",
    "Hey, it's Jawad.", "Is the apostle of Hey Jawad.",
    "Hey, Ja wad.", "Heyjawad", "HEY JAWED",
])
def test_a_greeting_then_the_name_wakes(text: str) -> None:
    assert heard_wake(text)


@pytest.mark.parametrize("text", [
    "", "Jawad", "Hey Jarvis", "Hey Java", "hey John, what?", "Thank you everyone.", "Alexa. Alexa.",
    "I told Jawad hey", "Hey, what did Jawad say?",
    "And so, my fellow Americans, ask not: hey Jawad",  # only the first words count
])
def test_other_words_do_not_wake(text: str) -> None:
    assert not heard_wake(text)


def test_the_wake_word_is_off_by_default(profile_dir: Path) -> None:
    assert VoiceSettings().wake_word is False
    assert AppContext.open(str(profile_dir)).settings.voice.wake_word is False


def _wake(profile: Path, file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "wake", str(file)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))


@pytest.mark.slow
def test_jawad_wake_hears_the_wake_word_in_a_file_and_not_in_real_speech(tmp_path: Path, profile_dir: Path) -> None:
    wav = tmp_path / "wake.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), "Hey Jawad, what time is it?"], check=True)
    heard = _wake(profile_dir, wav)
    assert heard.returncode == 0, heard.stderr
    assert "jawad" in heard.stdout.lower()
    for clip in ("jfk.flac", "quilter.flac"):  # real speech, without the wake word
        quiet = _wake(profile_dir, CLIPS / clip)
        assert quiet.returncode == 1, quiet.stdout
        assert "the wake word was not heard" in quiet.stderr and "Traceback" not in quiet.stderr
    missing = _wake(profile_dir, tmp_path / "nothing.wav")
    assert missing.returncode == 1 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr
