"""The real audio path: espeak-ng speech played into a private PulseAudio is recorded by the
app's own capture code, cut by the VAD and transcribed by the real tiny.en model."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, VoiceState
from jawad_desktop.core.voice import Recorder, VoiceSession, list_input_devices
from jawad_desktop.core.voice.audio import Samples, rms
from tests.fixtures.pulseaudio import SPOKEN_IN_REAL_TIME, PulseServer
from tests.voice.whisper_server import WhisperServer

pytestmark = SPOKEN_IN_REAL_TIME


def states(events: list[VoiceState]) -> list[str]:
    return [e.state for e in events if e.state != "level"]


def speak_when_listening(ctx: AppContext, pulse: PulseServer, text: str) -> list[subprocess.Popen[bytes]]:
    """Play ``text`` into the microphone as soon as the session says it listens, as a person would."""
    players: list[subprocess.Popen[bytes]] = []
    wav = pulse.speech_wav(text)

    def on_event(event: Event) -> None:
        if isinstance(event, VoiceState) and event.state == "started":
            players.append(pulse.play(wav))

    ctx.bus.subscribe(on_event)
    return players


def test_recorder_hears_what_is_played(pulse_server: PulseServer) -> None:
    devices = list_input_devices()
    assert devices and devices[0].is_default
    blocks: list[Samples] = []
    recorder = Recorder(blocks.append)
    recorder.open()
    try:
        time.sleep(2.0)  # the PulseAudio stream takes about 2 s to deliver
        silent = np.concatenate(blocks) if blocks else np.zeros(1, dtype=np.float32)
        blocks.clear()
        player = pulse_server.play(pulse_server.speech_wav("summarize this page"))
        player.wait(timeout=15)
        time.sleep(0.3)
    finally:
        recorder.close()
    heard = np.concatenate(blocks)
    assert rms(silent) < 0.001
    assert rms(heard) > 0.01, "the recorder heard nothing while speech was played"
    assert all(b.dtype == np.float32 and b.ndim == 1 for b in blocks)


def test_speech_is_transcribed_and_vad_ends_it(
    pulse_server: PulseServer, voice_ctx: AppContext, voice_events: list[VoiceState], arun: Callable[..., Any]
) -> None:
    voice_ctx.settings.voice.max_length_s = 20
    session = VoiceSession(voice_ctx)
    arun(session.warm_up())
    players = speak_when_listening(voice_ctx, pulse_server, "find me a cheaper alternative to this product")
    started = time.monotonic()
    result = arun(session.listen(), timeout=30)
    elapsed = time.monotonic() - started
    assert players and players[0].wait(timeout=5) == 0
    assert result is not None, [e.error for e in voice_events if e.error]
    text = result.text.lower()
    # tiny.en hears espeak-ng's "cheaper" as "keep" now and then: assert on the words it always gets.
    assert "alternative" in text and "product" in text
    assert elapsed < 12, "the VAD did not end the recording after the speech"  # well below max_length 20 s
    names = states(voice_events)
    assert names[0] == "started" and names[-1] == "end"
    assert names.index("transcribing") < names.index("result")
    assert any(e.state == "level" and e.level > 0.2 for e in voice_events)
    final = next(e for e in voice_events if e.state == "result")
    assert final.is_final and final.transcript == result.text
    assert any(e.state == "partial" and not e.is_final and e.transcript for e in voice_events), names
    assert session.pending_audio is None and not list((voice_ctx.paths.cache / "voice").glob("*.wav"))


def test_push_to_talk_ends_when_released(
    pulse_server: PulseServer, voice_ctx: AppContext, arun: Callable[..., Any], qtbot: Any
) -> None:
    voice_ctx.settings.voice.partial_results = False
    session = VoiceSession(voice_ctx)
    players = speak_when_listening(voice_ctx, pulse_server, "summarize this page")
    task = session.start(auto_stop=False)
    qtbot.waitUntil(lambda: bool(players) and players[0].poll() is not None, timeout=15000)
    qtbot.wait(1800)  # longer than the silence that would end a toggle recording
    assert session.phase == "listening", "push-to-talk stopped on silence"
    session.stop()
    qtbot.waitUntil(task.done, timeout=20000)
    result = task.result()
    assert result is not None and "this page" in result.text.lower()


def test_failed_transcription_keeps_the_recording_for_retry(
    pulse_server: PulseServer,
    voice_ctx: AppContext,
    voice_events: list[VoiceState],
    whisper_server: WhisperServer,
    arun: Callable[..., Any],
) -> None:
    from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
    from jawad_desktop.core.store.secrets import provider_key_name

    voice_ctx.settings.providers = [
        ProviderConfig(name="Loop", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=whisper_server.base_url)
    ]
    voice_ctx.settings.voice.backend = "api"
    voice_ctx.settings.voice.api_provider = "Loop"
    voice_ctx.secrets.set(provider_key_name("Loop"), "sk-expired")
    session = VoiceSession(voice_ctx)
    speak_when_listening(voice_ctx, pulse_server, "summarize this page")
    assert arun(session.listen(), timeout=30) is None
    error = next(e for e in voice_events if e.state == "error")
    assert error.retryable and "refused the API key" in error.error
    assert session.pending_audio is not None and session.pending_audio.is_file()
    kept = session.pending_audio
    voice_ctx.secrets.set(provider_key_name("Loop"), whisper_server.api_key)  # the user fixes the key
    result = arun(session.retry(), timeout=30)
    assert result is not None and "this page" in result.text.lower()
    assert not kept.exists() and session.pending_audio is None
    assert len(whisper_server.uploads) == 2
    assert whisper_server.uploads[0].file_bytes == whisper_server.uploads[1].file_bytes


def test_nothing_said_ends_with_no_speech(
    pulse_server: PulseServer, voice_ctx: AppContext, voice_events: list[VoiceState], arun: Callable[..., Any]
) -> None:
    voice_ctx.settings.voice.no_speech_timeout_s = 1.0
    session = VoiceSession(voice_ctx)
    assert arun(session.listen(), timeout=20) is None
    error = next(e for e in voice_events if e.state == "error")
    assert "No speech was heard" in error.error and not error.retryable
    assert states(voice_events)[-1] == "end"


def test_microphone_lost_mid_sentence_keeps_what_was_said(
    pulse_server: PulseServer, voice_ctx: AppContext, voice_events: list[VoiceState], qtbot: Any, aio_loop: Any
) -> None:
    from tests.fixtures.pulseaudio import private_pulseaudio

    voice_ctx.settings.voice.partial_results = False
    session = VoiceSession(voice_ctx)
    with private_pulseaudio() as doomed:  # a second server, to be killed like an unplugged headset
        assert doomed.daemon is not None
        players = speak_when_listening(voice_ctx, doomed, "summarize this page")
        task = session.start(auto_stop=False)
        qtbot.waitUntil(lambda: bool(players) and players[0].poll() is not None, timeout=15000)
        doomed.daemon.kill()
        qtbot.waitUntil(task.done, timeout=20000)
    result = task.result()
    assert result is not None and "this page" in result.text.lower()
    names = states(voice_events)
    assert names[-3:] == ["result", "error", "end"]
    assert "stopped delivering sound" in voice_events[-2].error


def test_silence_until_the_maximum_length_is_no_speech(
    pulse_server: PulseServer, voice_ctx: AppContext, voice_events: list[VoiceState], arun: Callable[..., Any]
) -> None:
    voice_ctx.settings.voice.max_length_s = 2.0  # shorter than the no-speech timeout (8 s)
    assert arun(VoiceSession(voice_ctx).listen(), timeout=20) is None
    assert "transcribing" not in states(voice_events), "silence was sent to the transcriber"
    assert "No speech was heard" in next(e for e in voice_events if e.state == "error").error
