"""The wake word through a private PulseAudio: the listener opens the microphone with the app's
capture code, and "Hey Jawad" played into it wakes it; a real recording of speech without it
(``clips/quilter.flac``, see ``clips/NOTICE``) does not."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.wake import WakeHit, WakeListener, make_spotter
from tests.fixtures.pulseaudio import SPOKEN_IN_REAL_TIME, PulseServer

pytestmark = SPOKEN_IN_REAL_TIME

CLIPS = Path(__file__).parent / "clips"


def test_the_listener_wakes_on_the_phrase_and_not_on_other_speech(
    pulse_server: PulseServer, voice_ctx: AppContext, tmp_path: Path
) -> None:
    hits: list[WakeHit] = []
    failures: list[VoiceError] = []
    woke = threading.Event()

    def on_wake(hit: WakeHit) -> None:
        hits.append(hit)
        woke.set()

    listener = WakeListener(lambda: make_spotter(voice_ctx), on_wake, on_failure=failures.append)
    listener.start()
    try:
        assert listener.listening.wait(30), failures
        time.sleep(0.5)
        speech = tmp_path / "quilter.wav"
        subprocess.run(["sox", str(CLIPS / "quilter.flac"), "-r", "16000", "-c", "1", str(speech)], check=True)
        assert pulse_server.play(speech).wait(timeout=30) == 0
        time.sleep(2.0)  # its last stretch ends and is transcribed
        assert not hits, hits
        assert pulse_server.play(pulse_server.speech_wav("Hey Jawad")).wait(timeout=15) == 0
        assert woke.wait(15), f"not woken; failures: {failures}"
    finally:
        listener.stop()
    assert "jawad" in hits[0].text.lower()
    assert not listener.running and not listener.listening.is_set()
    # Started again (the shell does after each turn), it opens the microphone again and hears again.
    listener.start()
    try:
        assert listener.listening.wait(30), failures
        time.sleep(2.5)  # a PulseAudio input delivers sound about 2 s after it opens
        woke.clear()
        assert pulse_server.play(pulse_server.speech_wav("Hey Jawad")).wait(timeout=15) == 0
        assert woke.wait(15), f"not woken after a restart; failures: {failures}"
    finally:
        listener.stop()
    assert len(hits) == 2 and not failures
