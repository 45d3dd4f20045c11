"""Settings → Network reaches the voice services too: the Whisper API and the speech API go
through the user's proxy (a real one on loopback) like the chat does.

The services are called by the name ``provider.test``, which only the test proxy resolves (to
127.0.0.1, where the fakes listen): without the proxy the name means nothing, so an answer shows
that the request went through it (``tests/fixtures/network.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.voice import WhisperAPI, read_audio
from jawad_desktop.core.voice.audio import Samples
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.pack import VoicePack
from jawad_desktop.core.voice.tts import SpeechAPI
from tests.fixtures.network import PROVIDER_HOST
from tests.fixtures.pulseaudio import PulseServer
from tests.servers.http_proxy import HttpProxy
from tests.servers.speech_server import SpeechServer
from tests.voice.pack_server import PackServer, make_pack
from tests.voice.whisper_server import WhisperServer

pytestmark = pytest.mark.usefixtures("no_environment_proxy")


@pytest.fixture(scope="module")
def speech(pulse_server: PulseServer) -> Samples:
    return read_audio(pulse_server.speech_wav("summarize this page"))


def _by_name(url: str) -> str:
    """``url`` with the proxy's name for 127.0.0.1."""
    return url.replace("127.0.0.1", PROVIDER_HOST)


def test_transcription_goes_through_the_proxy(whisper_server: WhisperServer, provider_proxy: HttpProxy,
                                              speech: Samples, arun: Callable[..., Any]) -> None:
    url = _by_name(whisper_server.base_url)
    through = WhisperAPI(url, api_key=whisper_server.api_key, network=NetworkSettings(proxy_url=provider_proxy.url))
    assert "page" in arun(through.transcribe(speech)).text.lower()
    assert provider_proxy.targets("POST") == [f"{url}/audio/transcriptions"]
    # Without the proxy the name does not resolve: the answer above came through it.
    with pytest.raises(VoiceError):
        arun(WhisperAPI(url, api_key=whisper_server.api_key, network=NetworkSettings()).transcribe(speech))


def test_spoken_replies_go_through_the_proxy(speech_server: SpeechServer, provider_proxy: HttpProxy,
                                             arun: Callable[..., Any]) -> None:
    url = _by_name(speech_server.base_url)
    api = SpeechAPI(url, api_key=speech_server.api_key, voice="alloy",
                    network=NetworkSettings(proxy_url=provider_proxy.url))
    try:
        spoken = arun(api.synthesize("Through the proxy."))
    finally:
        arun(api.aclose())
    assert len(spoken.samples) > 1000
    assert provider_proxy.targets("POST") == [f"{url}/audio/speech"]


def test_the_voice_pack_download_goes_through_the_proxy(pack_server: PackServer, provider_proxy: HttpProxy,
                                                        tmp_path: Path) -> None:
    """The packaged app's voice pack is downloaded with Settings → Network's proxy like every other
    download (issue 31: it built its own client and ignored it)."""
    made = make_pack(pack_server.folder, "9.8.7")
    url = _by_name(f"{pack_server.base_url}/{made.release.file}")
    pack = VoicePack(tmp_path / "packs", version="9.8.7", release=made.release, required=True)
    with pytest.raises(VoiceError) as caught:  # without the proxy the name does not resolve
        pack.install(url, network=NetworkSettings())
    assert caught.value.code == "VOICE_PACK_DOWNLOAD_FAILED"
    assert pack.install(url, network=NetworkSettings(proxy_url=provider_proxy.url)).installed
    assert provider_proxy.targets("GET") == [url]
