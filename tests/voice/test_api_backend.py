"""The Whisper API backend against our own OpenAI-compatible transcription server on loopback."""

from __future__ import annotations

import socket
import wave
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from jawad_desktop.core.voice import (
    FallbackTranscriber,
    LocalWhisper,
    VoiceError,
    WhisperAPI,
    api_transcriber,
    build_transcriber,
    read_audio,
)
from jawad_desktop.core.voice.audio import Samples
from tests.fixtures.pulseaudio import PulseServer
from tests.voice.whisper_server import WhisperServer


@pytest.fixture(scope="module")
def speech(pulse_server: PulseServer) -> Samples:
    return read_audio(pulse_server.speech_wav("summarize this page"))


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_multipart_upload_and_text(whisper_server: WhisperServer, speech: Samples, arun: Callable[..., Any]) -> None:
    api = WhisperAPI(whisper_server.base_url, api_key=whisper_server.api_key, model="whisper-large-v3", language="en")
    result = arun(api.transcribe(speech))
    assert "page" in result.text.lower() and result.backend.startswith("api:")
    upload = whisper_server.uploads[-1]
    assert upload.authorization == f"Bearer {whisper_server.api_key}"
    assert upload.content_type.startswith("multipart/form-data; boundary=")
    assert upload.fields == {"model": "whisper-large-v3", "response_format": "json", "language": "en"}
    assert upload.file_name == "speech.wav" and upload.file_type == "audio/wav"
    with wave.open(BytesIO(upload.file_bytes)) as reader:
        assert (reader.getnchannels(), reader.getframerate(), reader.getsampwidth()) == (1, 16000, 2)
        assert reader.getnframes() == speech.size


def test_wrong_key_is_api_key_invalid(whisper_server: WhisperServer, speech: Samples, arun: Callable[..., Any]) -> None:
    api = WhisperAPI(whisper_server.base_url, api_key="sk-wrong", provider_name="Groq")
    with pytest.raises(VoiceError) as caught:
        arun(api.transcribe(speech))
    assert caught.value.code == "API_KEY_INVALID"
    assert "Incorrect API key" in caught.value.message and "Groq" in caught.value.message
    assert caught.value.remedy == Remedy("provider-key", "Groq")  # each face says where the key is set


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (500, {"error": {"message": "model crashed"}}, "model crashed"),
        (429, {"error": {"message": "slow down"}}, "rate-limiting"),
        (413, {"error": "too large"}, "shorter maximum length"),
    ],
)
def test_server_errors_are_mapped(
    whisper_server: WhisperServer, speech: Samples, arun: Callable[..., Any], status: int, body: dict[str, Any],
    expected: str,
) -> None:
    whisper_server.fail_next(status, body)
    api = WhisperAPI(whisper_server.base_url, api_key=whisper_server.api_key)
    with pytest.raises(VoiceError) as caught:
        arun(api.transcribe(speech))
    assert caught.value.code == "API_ERROR"
    assert f"HTTP {status}" in caught.value.message
    assert expected in caught.value.user_text()


def test_unreachable_server(speech: Samples, arun: Callable[..., Any]) -> None:
    api = WhisperAPI(closed_port_url(), api_key="k")
    with pytest.raises(VoiceError) as caught:
        arun(api.transcribe(speech))
    assert caught.value.code == "API_UNREACHABLE" and "recording was kept" in caught.value.user_text()


def test_key_comes_from_the_keyring(
    whisper_server: WhisperServer, secret_store: SecretStore, profile_dir: Path, speech: Samples,
    arun: Callable[..., Any],
) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    ctx.settings.providers = [
        ProviderConfig(name="Local Whisper", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=whisper_server.base_url)
    ]
    ctx.settings.voice.api_provider = "Local Whisper"
    secret_store.set(provider_key_name("Local Whisper"), whisper_server.api_key)
    try:
        api = api_transcriber(ctx)
        assert "page" in arun(api.transcribe(speech)).text.lower()
        assert whisper_server.uploads[-1].authorization == f"Bearer {whisper_server.api_key}"
    finally:
        secret_store.delete(provider_key_name("Local Whisper"))


def test_an_openai_provider_without_a_stored_key_uses_openai_api_key(
    whisper_server: WhisperServer, secret_store: SecretStore, profile_dir: Path, speech: Samples,
    arun: Callable[..., Any], monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    ctx.settings.providers = [ProviderConfig(name="OpenAI", kind=ProviderKind.OPENAI, base_url=whisper_server.base_url)]
    monkeypatch.setenv("OPENAI_API_KEY", whisper_server.api_key)
    api = api_transcriber(ctx)
    assert "page" in arun(api.transcribe(speech)).text.lower()
    assert whisper_server.uploads[-1].authorization == f"Bearer {whisper_server.api_key}"


def test_missing_provider_and_missing_key(voice_ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    voice_ctx.settings.voice.api_provider = "Nope"
    with pytest.raises(VoiceError) as caught:
        api_transcriber(voice_ctx)
    assert caught.value.code == "API_NOT_CONFIGURED" and "'Nope'" in caught.value.message
    voice_ctx.settings.providers = [ProviderConfig(name="OpenAI", kind=ProviderKind.OPENAI)]
    voice_ctx.settings.voice.api_provider = "OpenAI"
    with pytest.raises(VoiceError) as caught:
        api_transcriber(voice_ctx)
    assert caught.value.code == "API_KEY_INVALID"


def test_fallback_to_local_when_the_api_fails(
    voice_ctx: AppContext, whisper_server: WhisperServer, speech: Samples, arun: Callable[..., Any]
) -> None:
    voice_ctx.settings.providers = [
        ProviderConfig(name="Loop", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=whisper_server.base_url)
    ]
    voice_ctx.settings.voice.api_provider = "Loop"
    voice_ctx.settings.voice.backend = "api"
    voice_ctx.settings.voice.fallback = True
    voice_ctx.secrets.set(provider_key_name("Loop"), "sk-revoked")
    transcriber = build_transcriber(voice_ctx)
    assert isinstance(transcriber, FallbackTranscriber) and isinstance(transcriber.secondary, LocalWhisper)
    result = arun(transcriber.transcribe(speech))
    assert result.backend == "local:tiny.en" and "page" in result.text.lower()
    assert whisper_server.uploads, "the API was not tried first"
