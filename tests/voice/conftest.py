"""Fixtures of the voice tests: an app context on a fresh profile, our transcription server,
a server publishing voice packs, and collected VoiceState events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, VoiceState
from jawad_desktop.core.store.secrets import SecretStore
from tests.voice.pack_server import PackServer, serve_packs
from tests.voice.whisper_server import WhisperServer, serve


@pytest.fixture
def voice_ctx(profile_dir: Path) -> AppContext:
    """A context on a fresh profile; secrets in session memory (tests needing the keyring use secret_store)."""
    secrets = SecretStore()
    secrets.use_session_memory()
    ctx = AppContext.open(str(profile_dir), secrets=secrets)
    ctx.settings.voice.silence_stop_s = 0.8
    return ctx


@pytest.fixture
def voice_events(voice_ctx: AppContext) -> list[VoiceState]:
    events: list[VoiceState] = []

    def collect(event: Event) -> None:
        if isinstance(event, VoiceState):
            events.append(event)

    voice_ctx.bus.subscribe(collect)
    return events


@pytest.fixture(scope="session")
def whisper_server_session() -> Iterator[WhisperServer]:
    yield from serve()


@pytest.fixture
def whisper_server(whisper_server_session: WhisperServer) -> WhisperServer:
    whisper_server_session.uploads.clear()
    whisper_server_session.failures.clear()
    return whisper_server_session


@pytest.fixture
def pack_server(tmp_path: Path) -> Iterator[PackServer]:
    """A server on 127.0.0.1 publishing the voice packs made in its ``folder``."""
    folder = tmp_path / "release"
    folder.mkdir()
    yield from serve_packs(folder)


from tests.servers.speech_server import speech_server  # noqa: E402,F401  (the /v1/audio/speech fixture)
